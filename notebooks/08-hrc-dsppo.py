# ---
# jupyter:
#   jupytext:
#     formats: ipynb,py:percent
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 08 · hrc-dsppo — Transitive and cyclic preferences: HRC decomposition and dynamic self-play
#
# ## Overview
#
# Reward models for language-model alignment are usually **Bradley–Terry** models
# {cite}`bradley1952rank`: every response gets a scalar reward, and the probability that one
# response is preferred to another is a logistic function of the reward difference. A scalar
# reward can only express *transitive* preferences — if $a$ beats $b$ and $b$ beats $c$, then
# $a$ beats $c$. Human and AI judges are not always like that: a concise answer may beat a
# thorough one, the thorough one beat a friendly one, and the friendly one beat the concise one.
# The **General Preference Model** (GPM) {cite}`zhang2025gpm` represents such *cycles* with a
# skew-symmetric bilinear form of response embeddings, but it mixes the global ranking and the
# cycles in one representation.
#
# {cite:t}`huang2026transitivity` make the split explicit. Any skew-symmetric preference score
# decomposes uniquely into a **transitive** part (a difference of potentials) and a **cyclic**
# part (zero average against a uniform population) — the decomposition of symmetric zero-sum
# games of {cite:t}`balduzzi2019openended`. Their **Hybrid Reward-Cyclic** (HRC) model gives each
# part its own head: a clipped scalar reward plus a GPM term. They prove that a 2-dimensional
# GPM cannot host a dominant response together with a cycle while HRC of the same size can, and
# they turn the split into an alignment algorithm, **Dynamic Self-Play Preference Optimization**
# (DSPPO): self-play by multiplicative weights {cite}`wu2025sppo` against a judge whose
# transitive head is up-weighted early and whose cyclic head is phased in as $1 - \lambda/\sqrt t$.
# DSPPO's averaged policy converges to the Nash equilibrium {cite}`munos2024nash` of the true
# preference game at rate $O(1/\sqrt T)$.
#
# By the end of this chapter you will be able to: split a preference tournament into its
# transitive and cyclic parts and prove that the split is orthogonal and unique; say exactly
# when a GPM head is purely cyclic; construct (and rule out) embeddings of a dominant response
# plus a cycle; run SPPO and DSPPO as batched multiplicative weights on a thousand preference
# games, certify their distance to equilibrium with the duality gap, and bound it; and test the
# paper's "two-stage learning" picture on synthetic data where the truth is known.
#
# ## Setting and notation
#
# One prompt $x$ at a time; we drop it from the notation. $y, y'$ are responses from a finite
# set of $n$ (or $K$) candidates.
#
# | symbol | meaning |
# |---|---|
# | $P(y \succ y') \in (0, 1)$ | probability that $y$ is preferred to $y'$ (orders sum to 1) |
# | $\sigma(z) = 1/(1 + e^{-z})$ | the logistic function |
# | $s(y, y') = \log \frac{P(y \succ y')}{1 - P(y \succ y')}$ | preference **score** (logit) |
# | $S \in \mathbb{R}^{n \times n}$ | score matrix $S_{ij} = s(y_i, y_j)$; skew: $S^\top = -S$ |
# | $f \in \mathbb{R}^n$, $T$, $C$ | potential; transitive part $f_i - f_j$; cyclic $S - T$ |
# | $\langle A, B\rangle_F$, $\lVert A \rVert_F$ | $\sum_{ij} A_{ij} B_{ij}$ and its norm |
# | $r(y) \in \mathbb{R}$ | scalar reward (BT, HRC); clipped to $[-\delta, \delta]$ in HRC |
# | $v(y) \in \mathbb{R}^{2d}$ | response embedding (GPM, HRC), unit norm |
# | $R^\succ$ | $2d \times 2d$; blocks $\left(\begin{smallmatrix}0&-1\\1&0\end{smallmatrix}\right)$|
# | $D = \mathrm{diag}(\lambda_1, \dots, \lambda_d) \otimes I_2$ | gate of the GPM blocks, $\ge 0$ |
# | $\tau$ | temperature of the training loss ($0.1$ in the paper) |
# | $\pi \in \Delta_K$ | policy over $K$ responses; $P(\pi \succ \pi') = \pi^\top P \pi'$ |
# | $\lambda$, $t$, $T$, $\eta$ | DSPPO schedule, iteration ($t \ge 1$), horizon, step size |
#
# The score, not the probability, is what the paper decomposes: $S$ is skew-symmetric because
# $\log\frac{p}{1-p}$ changes sign when $p \mapsto 1 - p$. ($P - \tfrac12$ is skew-symmetric too,
# but its split is a different one; see experiment 08.1.)

# %% [markdown]
# ```{admonition} What is the paper's and what is reconstructed here
# :class: important
#
# **The paper's** (from its full text): the preference score, the three models of
# {prf:ref}`hrc-dsppo-def-models` and their loss with $\tau = 0.1$, the statements of
# {prf:ref}`hrc-dsppo-thm-decomposition` (continuous form, after Balduzzi et al.),
# {prf:ref}`hrc-dsppo-thm-instantiation`, {prf:ref}`hrc-dsppo-thm-gpm-limits` and {prf:ref}`hrc-dsppo-thm-dsppo`
# (as an $O(1/\sqrt T)$ rate with $\eta = \Theta(1/\sqrt T)$), the schedule
# {eq}`hrc-dsppo-eq-schedule` with default $\lambda = 1$, the synthetic "dominant + cycle" study, and
# all LLM results. **Ours:** the finite form and proofs as written here (including the explicit
# constants of {eq}`hrc-dsppo-eq-dsppo-bound`), the tournament generators, the tabular and
# small-encoder versions of the heads with $C_1 = C_2 = 1$ and $\delta = 1$ (the paper does not
# report $C_1, C_2, \delta$), the feature generator of experiment 08.13 (the paper uses
# UltraFeedback responses annotated on four dimensions), and every threshold's toy setting. The
# paper's public code repository held only a README and a licence in May 2026.
#
# **Simplified:** the paper's gate $D(x)$ is computed from the prompt. Our tabular heads and
# the small encoder of experiments 08.13–08.14 learn one constant gate per 2-D block instead,
# the same for every prompt. In the tabular experiments each tournament is one prompt, so a
# constant gate loses nothing (and {prf:ref}`hrc-dsppo-thm-gpm-limits` absorbs gates into the
# embeddings anyway); in 08.13–08.14 every prompt shares the same "dominant + cycle"
# structure, so there is nothing for a prompt-dependent gate to adapt to. Whether $D(x)$
# helps when prompts differ in how cyclic their preferences are is not tested here.
# ```
#
# ## Theory
#
# ```{prf:definition} Bradley–Terry, GPM and HRC preference models
# :label: hrc-dsppo-def-models
#
# For responses with rewards $r_i$ and embeddings $v_i \in \mathbb{R}^{2d}$,
#
# $$
# \begin{aligned}
# s_{\mathrm{BT}}(y_i, y_j) &= r_i - r_j, \\
# s_{\mathrm{GPM}}(y_i, y_j) &= v_i^\top D R^\succ D\, v_j, \\
# s_{\mathrm{HRC}}(y_i, y_j) &= C_1 (r_i - r_j) + C_2\, v_i^\top D R^\succ D\, v_j ,
# \end{aligned}
# $$ (hrc-dsppo-eq-models)
#
# with, in HRC, $r = \mathrm{clip}(w_r^\top h, -\delta, \delta)$ and $v = W_c h / \lVert W_c h
# \rVert_2$ computed from a shared representation $h$ of the (prompt, response) pair, and a gate
# $D = D(x) \ge 0$ computed from the prompt. All three are trained with the same loss on
# labelled pairs $(y_w \succ y_l)$,
#
# $$
# \mathcal{L} = -\mathbb{E} \log \sigma\big(s(y_w, y_l) / \tau\big).
# $$ (hrc-dsppo-eq-loss)
#
# The paper calls HRC with a $2d$-dimensional GPM head "dimension $2d + 1$" (e.g. HRC(2+1)).
# ```
#
# Every score in {eq}`hrc-dsppo-eq-models` is skew-symmetric ($R^\succ$ is, and $D R^\succ D = R^\succ
# D^2$ because $D$ is constant on each block). BT is itself a rank-2 GPM: for the block
# $R^\succ$, $[r_i, -c]\, R^\succ [r_j, -c]^\top = c\,(r_i - r_j)$, so HRC is a GPM whose first
# block has a constant second coordinate.
#
# ```{prf:theorem} Transitive–cyclic decomposition (finite form)
# :label: hrc-dsppo-thm-decomposition
#
# Let $S \in \mathbb{R}^{n \times n}$ be skew-symmetric and $\mathbf{1}$ the all-ones vector.
# Define the potential $f = \frac1n S \mathbf{1}$ (the mean score of each item against the
# uniform population), $T = f \mathbf{1}^\top - \mathbf{1} f^\top$ and $C = S - T$. Then
#
# 1. $C$ is skew-symmetric and every row and column of $C$ sums to zero;
# 2. $\langle T, C \rangle_F = 0$, hence $\lVert S \rVert_F^2 = \lVert T \rVert_F^2 + \lVert C
#    \rVert_F^2$;
# 3. (uniqueness) if $S = (g \mathbf{1}^\top - \mathbf{1} g^\top) + C'$ with $C' \mathbf{1} = 0$,
#    then $g = f + c\mathbf{1}$ for a constant $c$, and $C' = C$;
# 4. (least squares) $f$ minimises $\sum_{i<j} (S_{ij} - g_i + g_j)^2$ over $g$, uniquely up to a
#    constant; $T$ is the orthogonal projection of $S$ onto the potential differences, a subspace
#    of dimension $n - 1$, and $C$ lies in its complement, of dimension $(n-1)(n-2)/2$.
# ```
#
# ```{prf:proof}
# Skew-symmetry gives $\mathbf{1}^\top S \mathbf{1} = 0$, so $\mathbf{1}^\top f = 0$. (1) $T$ is
# skew, hence so is $C$; and $C\mathbf{1} = S\mathbf{1} - (f\, \mathbf{1}^\top\mathbf{1} -
# \mathbf{1}\, f^\top \mathbf{1}) = nf - nf + 0 = 0$; columns follow from
# $\mathbf{1}^\top C = -(C\mathbf{1})^\top$. (2) For any $g$ and any $C'$ with $C'\mathbf{1} = 0 =
# \mathbf{1}^\top C'$,
# $\langle g\mathbf{1}^\top - \mathbf{1} g^\top, C' \rangle_F = g^\top C' \mathbf{1} -
# \mathbf{1}^\top C' g = 0$: every zero-row-sum skew matrix is orthogonal to every potential
# difference. With $g = f$, $C' = C$ this is (2), and Pythagoras follows. (3) Multiplying the
# alternative split by $\mathbf{1}$ gives $S\mathbf{1} = n g - (\mathbf{1}^\top g)\mathbf{1}$, i.e.
# $f = g - \bar g \mathbf{1}$; potential differences ignore constants, so the transitive parts
# coincide and so do the remainders. (4) The potential differences form the image of the linear
# map $g \mapsto g\mathbf{1}^\top - \mathbf{1}g^\top$, whose kernel is the constants, so the
# subspace has dimension $n - 1$; by (2), $S - T = C$ is orthogonal to it, so $T$ is the
# orthogonal projection of $S$ and minimises $\lVert S - (g\mathbf{1}^\top - \mathbf{1}g^\top)
# \rVert_F^2 = 2\sum_{i<j}(S_{ij} - g_i + g_j)^2$. Skew matrices have dimension $n(n-1)/2$, and
# $n(n-1)/2 - (n-1) = (n-1)(n-2)/2$.
# ```
#
# The paper states the decomposition for a skew-symmetric function $\phi(v, w)$ on a space of
# embeddings with the uniform measure $\mu$: $f(v) = \int \phi(v, w)\, d\mu(w)$, $\phi_T(v, w) =
# f(v) - f(w)$, $\phi_C = \phi - \phi_T$ — the same proof with integrals, a restatement of
# {cite:t}`balduzzi2019openended`. On a finite complete graph it is the combinatorial Hodge
# decomposition behind HodgeRank {cite}`jiang2011hodgerank`. The measure matters: with a
# non-uniform population the "cyclic" part has zero mean only under that population.
#
# ```{prf:theorem} Which heads are transitive and which cyclic
# :label: hrc-dsppo-thm-instantiation
#
# (a) A Bradley–Terry score matrix is purely transitive: $C = 0$ and $f = r - \bar r\mathbf{1}$.
# (b) A GPM score matrix $S = V W V^\top$ ($V$ the $n \times 2d$ matrix of embeddings, $W$ skew)
# is purely cyclic, $T = 0$, **if the embeddings have zero mean**, $\sum_i v_i = 0$. (c) If their
# mean is $m \ne 0$, the potential is $f_i = v_i^\top W m$, and the transitive part
# $T_{ij} = (v_i - v_j)^\top W m$ vanishes only when $W m$ is orthogonal to all differences $v_i -
# v_j$. (d) Hence
# for HRC with zero-mean embeddings, the reward head *is* the transitive part and the GPM head the
# cyclic part of its own score.
# ```
#
# ```{prf:proof}
# (a) $S\mathbf{1} = n r - (\mathbf{1}^\top r)\mathbf{1}$, so $f = r - \bar r\mathbf{1}$ and
# $T = S$.
# (b, c) $f = \frac1n V W V^\top \mathbf{1} = V W m$ with $m = \frac1n \sum_j v_j$; it vanishes for
# $m = 0$, and otherwise $T_{ij} = f_i - f_j = (v_i - v_j)^\top W m$. (d) The decomposition is
# linear and unique ({prf:ref}`hrc-dsppo-thm-decomposition`), so it splits the sum of a transitive and a
# cyclic matrix into exactly those two.
# ```
#
# Unit-norm embeddings are *not* zero-mean in general. The paper reports that in a trained
# HRC(2+1) the mean embedding was about $(0.13, -0.51)$: its GPM head also carries transitive
# signal. Experiment 08.3 shows that this is not a small effect.
#
# ```{prf:theorem} GPM cannot host a dominant response and a cycle in two dimensions
# :label: hrc-dsppo-thm-gpm-limits
#
# Let $A_1 \succ A_2 \succ \dots \succ A_n \succ A_1$ ($n \ge 3$) be a cycle of responses and
# $A^\star$ a dominant response, $A^\star \succ A_i$ for all $i$.
#
# 1. (existence) A GPM of dimension $2d$ represents these preferences (all scores of the right
#    sign) if and only if $d \ge 2$; an HRC(2+1) model represents them.
# 2. (lack of arbitrariness for a fixed embedding) For every $d$ there is an embedding of the
#    cycle — $c_i = (\cos\theta_i, \sin\theta_i)$ in every one of the $d$ blocks, $\theta_i$
#    evenly spaced — for which no embedding $u$ of $A^\star$ beats every $A_i$:
#    $\max_u \min_i u^\top R^\succ c_i \le 0$. With an HRC reward advantage $r^\star > 0$ the
#    best margin becomes exactly $r^\star$.
# ```
#
# ```{prf:proof}
# Gates can be absorbed into the embeddings ($v \mapsto D v$), so take $D = I$.
# (1, $d = 1$.) In $\mathbb{R}^2$, $u^\top R^\succ c = \lVert u \rVert \lVert c\rVert \sin(\alpha -
# \gamma)$ where $\alpha, \gamma$ are the angles of $u$ and $c$. $A^\star \succ A_i$ for all $i$
# forces every $c_i \neq 0$ with angle in the open half-circle $(\alpha - \pi, \alpha)$. Inside
# an arc shorter than $\pi$, $s(A_i, A_j) = \lVert c_i\rVert\lVert c_j\rVert\sin(\gamma_i -
# \gamma_j) > 0$ exactly when $\gamma_i > \gamma_j$: the preference among the $A_i$ is the order of
# their angles, which is transitive and cannot contain a cycle. Contradiction.
# (1, $d \ge 2$.) Put $c_i = (\cos\theta_i, \sin\theta_i, 1, 0, 0, \dots)$ with
# $\theta_i = -2\pi i/n$ and $u = (0, 0, 0, 1, 0, \dots)$. Then $s(A_i, A_{i+1}) = \sin(2\pi/n) > 0$
# (indices mod $n$; the second block contributes $(1,0) R^\succ (1,0)^\top = 0$), and $s(A^\star,
# A_i) = (0, 1)
# R^\succ (1, 0)^\top = 1 > 0$.
# (1, HRC.) Keep the cycle on the unit circle of the 2-D head with rewards $r_i = -\delta$ and
# give $A^\star$ the reward $+\delta$ and $v^\star = c_1$: $s(A^\star, A_i) \ge 2\delta - 1 > 0$ for
# $\delta > 1/2$.
# (2) With $c_i$ repeated in all blocks, $u^\top R^\succ c_i = (\sum_l u_l)^\top R^\succ
# (\cos\theta_i, \sin\theta_i)^\top = \rho \sin(\alpha - \theta_i)$ for $\sum_l u_l = \rho(\cos
# \alpha, \sin\alpha)$, and $\sum_i \sin(\alpha - \theta_i) = \mathrm{Im}\big(e^{\mathrm{i}\alpha}
# \sum_i e^{-\mathrm{i}\theta_i}\big) = 0$ for evenly spaced angles. The minimum over $i$ is at
# most the mean, $0$, and $u = 0$ attains $0$. With the reward, the scores become $r^\star +
# \rho\sin(\alpha - \theta_i)$: the mean is $r^\star$, which bounds the minimum, and $u = 0$
# attains it.
# ```
#
# Part 2 is about a **fixed, adversarial embedding** of the cycle, not about the preference
# relation: for $d \ge 2$ the same relation can be re-embedded (as in part 1) to admit a dominant
# response. What HRC buys is that its reward can dominate the bounded cyclic term *whatever*
# the cycle's embedding, because unit norms keep $\lvert v_i^\top R^\succ v_j \rvert \le 1$.
#
# ### Self-play against a time-varying judge
#
# Alignment as a game: a policy $\pi$ over responses plays against a copy of itself, and the
# target is the symmetric Nash equilibrium of $\max_\pi \min_{\pi'} P(\pi \succ \pi')$
# {cite}`munos2024nash`. For a finite candidate set, $P(\pi \succ \pi') = \pi^\top P \pi'$.
#
# ```{prf:definition} SPPO and DSPPO as multiplicative weights
# :label: hrc-dsppo-def-dsppo
#
# Given a judge with transitive scores $S_T$ and cyclic scores $S_C$, true preference $P =
# \sigma(S_T + S_C)$ and a schedule parameter $\lambda$, DSPPO uses at iteration $t = 1, 2, \dots$
# the judge
#
# $$
# P_t = \sigma\big((1 + \lambda/\sqrt t)\, S_T + (1 - \lambda/\sqrt t)\, S_C\big)
# $$ (hrc-dsppo-eq-schedule)
#
# and the update
#
# $$
# \pi_{t+1}(y) \propto \pi_t(y) \exp\big(\eta\, P_t(y \succ \pi_t)\big), \qquad
# P_t(y \succ \pi_t) = (P_t \pi_t)_y ,
# $$ (hrc-dsppo-eq-mwu)
#
# from $\pi_1$ uniform; the output is the average $\bar\pi_T = \frac1T \sum_{t=1}^T \pi_t$.
# SPPO is the case $\lambda = 0$ ($P_t = P$ for all $t$).
# ```
#
# The paper writes the update as a regression of $\log \pi(y)/\pi_t(y)$ onto $\eta(\hat P_t(y
# \succ \pi_t) - \frac12)$, with $\hat P_t$ estimated from $K = 5$ samples of $\pi_t$; for a
# tabular policy and exact win rates its minimiser is {eq}`hrc-dsppo-eq-mwu`. With $\lambda = 1$ the
# first iteration uses $2S_T$ and no cyclic signal at all ($t$ starts at 1; starting at 0 divides
# by zero), and with the paper's three iterations the weights are $(2, 0)$, $(1.71, 0.29)$,
# $(1.58, 0.42)$.
#
# ```{prf:lemma} The duality gap of a symmetric preference game
# :label: hrc-dsppo-lem-gap
#
# For every preference matrix ($P + P^\top = \mathbf{1}\mathbf{1}^\top$) and every $\pi$,
# $\pi^\top P \pi = \frac12$. The duality gap
#
# $$
# \operatorname{gap}_P(\bar\pi) = \max_\pi P(\pi \succ \bar\pi) - \min_{\pi'} P(\bar\pi \succ \pi')
# = 2\Big(\max_y (P\bar\pi)_y - \tfrac12\Big)
# $$ (hrc-dsppo-eq-gap)
#
# is non-negative and vanishes exactly when $\bar\pi$ is a Nash equilibrium. It is the duality
# gap of {doc}`chapter 07 <07-safety-game>` for the zero-sum game with payoff
# $A = P - \frac12$ at the pair $(\bar\pi, \bar\pi)$.
# ```
#
# ```{prf:proof}
# $\pi^\top P \pi = \pi^\top P^\top \pi$ and their sum is $\pi^\top \mathbf{1}\mathbf{1}^\top
# \pi = 1$. Linear functions on the simplex are maximised at vertices, so $\max_\pi P(\pi \succ
# \bar\pi) = \max_y (P\bar\pi)_y$, and $\min_{\pi'} P(\bar\pi \succ \pi') = \min_{\pi'} (1 -
# P(\pi' \succ \bar\pi)) = 1 - \max_y (P\bar\pi)_y$. The gap is $\ge 2(\bar\pi^\top P \bar\pi -
# \frac12) = 0$, and it is $0$ iff no response beats $\bar\pi$ with probability above $\frac12$,
# i.e. $\bar\pi$ guarantees the game's value $\frac12$ against every opponent: a (symmetric)
# Nash equilibrium. With $A = P - \frac12$, $A^\top = -A$, so $\max_i (A\bar\pi)_i - \min_j
# (\bar\pi^\top A)_j = 2 \max_i (A\bar\pi)_i$.
# ```
#
# ```{prf:theorem} DSPPO converges to the Nash equilibrium of the true game
# :label: hrc-dsppo-thm-dsppo
#
# Let $\varepsilon_t = \max_{ij} \lvert (s_t)_{ij} - (s_\infty)_{ij} \rvert$ be the distance of
# the scores used at iteration $t$ from the true scores $s_\infty$, $P = \sigma(s_\infty)$. The
# average $\bar\pi_T$ of {eq}`hrc-dsppo-eq-mwu` (any judges $P_t = \sigma(s_t)$) satisfies
#
# $$
# \operatorname{gap}_P(\bar\pi_T) \le \frac{2 \ln K}{\eta T} + \frac{\eta}{4} +
# \frac{1}{2T}\sum_{t=1}^T \varepsilon_t .
# $$ (hrc-dsppo-eq-dsppo-bound)
#
# For the schedule {eq}`hrc-dsppo-eq-schedule`, $\varepsilon_t = \lvert\lambda\rvert M/\sqrt t$ with
# $M = \max_{ij} \lvert (S_T - S_C)_{ij}\rvert$, and with $\eta = 2\sqrt{\ln K / T}$
#
# $$
# \operatorname{gap}_P(\bar\pi_T) \le \frac{1.5\sqrt{\ln K} + \lvert\lambda\rvert M}{\sqrt T}
# = O(1/\sqrt T).
# $$ (hrc-dsppo-eq-dsppo-rate)
# ```
#
# ```{prf:proof}
# *Step 1 (no regret against any gain sequence; quoted from {cite}`freund1999adaptive`).* For gains
# $g_t \in [0, 1]^K$, the exponential-weights iterates satisfy $\max_y \sum_t g_t(y) - \sum_t
# \pi_t^\top g_t \le \ln K/\eta + \eta T/8$ (the potential argument with Hoeffding's lemma).
# *Step 2 (self-play ties itself).* With $g_t = P_t\pi_t$, {prf:ref}`hrc-dsppo-lem-gap` applied to
# $P_t$ gives $\pi_t^\top g_t = \frac12$, so $\max_y \frac1T\sum_t (P_t\pi_t)_y \le \frac12 +
# \frac{\ln K}{\eta T} + \frac{\eta}{8}$. *Step 3 (judges close to the truth).* $\sigma$ is
# $\frac14$-Lipschitz, so $\lvert P - P_t\rvert \le \varepsilon_t/4$ entrywise and $(P\pi_t)_y \le
# (P_t\pi_t)_y + \varepsilon_t/4$. Averaging over $t$, $(P\bar\pi_T)_y \le \frac12 + \frac{\ln
# K}{\eta T} + \frac\eta8 + \frac{1}{4T}\sum_t \varepsilon_t$ for every $y$, and
# {eq}`hrc-dsppo-eq-gap` doubles the excess over $\frac12$: {eq}`hrc-dsppo-eq-dsppo-bound`. For the schedule,
# $s_t - s_\infty = \frac{\lambda}{\sqrt t}(S_T - S_C)$ and $\sum_{t \le T} t^{-1/2} \le 2\sqrt T$;
# inserting $\eta$ gives $\frac{\ln K}{\sqrt{T \ln K}} + \frac{\sqrt{\ln K}}{2\sqrt T} =
# \frac{1.5\sqrt{\ln K}}{\sqrt T}$ for the first two terms.
# ```
#
# The theorem holds for any $\lambda$, also $\lvert\lambda\rvert > 1$ where a coefficient of
# {eq}`hrc-dsppo-eq-schedule` is negative early on; only the constant grows. It says nothing about the
# *last* iterate, which can cycle for ever in rock-paper-scissors-like games. The paper assumes
# bounded scores (clipped rewards, unit-norm embeddings) so that $\varepsilon_t$ is bounded.

# %% tags=["hide-input"]
import time
import warnings

import choix
import matplotlib.pyplot as plt
import nashpy as nash
import numpy as np
import scipy.linalg
import torch

import icml26
from icml26 import stats
from icml26.games import preferences as pref

SEED = 8
rng = icml26.seed_everything(SEED)
icml26.plotting.use_book_style()
DEVICE = icml26.device()
torch.set_num_threads(
    1
)  # every tensor of the chapter is tiny: threads only add overhead

# %% tags=["parameters", "hide-input"]
N_TOURN = icml26.pick(
    ci=100, paper=1000
)  # G1 tournaments for the decomposition (08.1-08.3)
N_ITEMS = icml26.pick(ci=12, paper=12)  # items per tournament
MEAN_SHIFT = (0.13, -0.51)  # the paper's measured mean embedding of a trained HRC(2+1)
RESTARTS = icml26.pick(ci=16, paper=64)  # restarts of the tabular heads (08.4)
TAB_STEPS = icml26.pick(
    ci=1500, paper=3000
)  # full-batch Adam steps of the tabular heads
CYCLE_N = 7  # cycle length of the fixed-embedding LP (08.5)
BLOCKS = [1, 2, 3, 4]  # GPM dimensions 2d of the LP
K_RESP = 8  # candidate responses of the self-play games (G3)
N_GAMES = icml26.pick(
    ci=8, paper=64
)  # random preference games for self-play (08.8-08.12)
HORIZONS = icml26.pick(
    ci=[100, 400, 1600, 6400, 25600], paper=[100, 400, 1600, 6400, 25600, 102400]
)
LAMBDAS = [0.0, 1.0, 1.5]  # SPPO, DSPPO (the paper's default), DSPPO with λ > 1
REWARD_SCALE, CYCLIC_SCALE = 0.5, 2.0  # G3: size of the transitive and cyclic parts
SWEEP = [-2.0, -1.0, -0.5, 0.0, 0.25, 0.5, 0.75, 1.0, 2.0]  # the paper's λ sweep
SWEEP_T = icml26.pick(ci=400, paper=1600)
TAU = 0.1  # the paper's temperature
PROMPTS_TRAIN = icml26.pick(ci=200, paper=2000)  # G2 with item features (08.13-08.14)
PROMPTS_TEST = icml26.pick(ci=50, paper=500)
SEEDS = icml26.pick(ci=5, paper=10)
ENC_STEPS = icml26.pick(ci=400, paper=1000)
ENC_LR = 1e-3
BENCH_GAMES = icml26.pick(ci=1000, paper=10000)  # batched self-play vs an LP per game
BENCH_T = 1600

# %% [markdown]
# The whole chapter in one picture, from labelled pairs to the aligned policy:

# %% tags=["hide-input"] mystnb={"figure": {"caption": "The chapter in one picture: labelled pairs train a judge whose score splits into a ranking (reward head) and cycles (GPM head); DSPPO re-weights the two heads with $1 \\pm \\lambda/\\sqrt t$ and runs multiplicative weights, whose average policy converges to the Nash equilibrium of the true preference.", "name": "08-fig-model"}}
fig, ax = plt.subplots(figsize=(7.5, 3.4))
icml26.plotting.diagram(
    ax,
    {
        "d": (0.08, 0.5, "labelled pairs\n$y_w \\succ y_l$"),
        "s": (0.3, 0.5, "score (logit)\n$S = T + C$"),
        "r": (0.55, 0.85, "reward head $r$\n(transitive $S_T$)"),
        "c": (0.55, 0.15, "GPM head $v$\n(cyclic $S_C$)"),
        "j": (0.86, 0.5, "judge\n$P_t = \\sigma(a_t S_T + b_t S_C)$"),
        "p": (0.86, 0.12, "average policy $\\bar\\pi_T$\n$\\to$ Nash equilibrium"),
    },
    [
        ("d", "s", "loss, $\\tau$"),
        ("s", "r", ""),
        ("s", "c", ""),
        ("r", "j", "$a_t = 1 + \\lambda/\\sqrt{t}$"),
        ("c", "j", "$b_t = 1 - \\lambda/\\sqrt{t}$"),
        ("j", "p", "MWU"),
    ],
    colors={"d": 0, "s": 0, "r": 1, "c": 2, "j": 3, "p": 2},
    fontsize=9,
)
ax.set_title("HRC + DSPPO: split the judge, then phase in the cycles")
plt.show()


# %% [markdown]
# ## Implementation
#
# The readable reference: the decomposition of {prf:ref}`hrc-dsppo-thm-decomposition` with explicit
# loops, and DSPPO for one game exactly as {eq}`hrc-dsppo-eq-schedule`–{eq}`hrc-dsppo-eq-mwu`.


# %% tags=["reference"]
def decompose_reference(S: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Split one skew score matrix.

    Returns the potential (row means), the transitive part and the cyclic part.
    """
    n = len(S)
    f = np.array([sum(S[i]) / n for i in range(n)])
    T = np.array([[f[i] - f[j] for j in range(n)] for i in range(n)])
    return f, T, S - T


def dsppo_reference(
    S_T: np.ndarray, S_C: np.ndarray, T: int, lam: float = 1.0
) -> np.ndarray:
    """DSPPO (SPPO for lam = 0) on one game.

    Returns the average policy of T iterations.
    """
    K = len(S_T)
    eta = 2 * np.sqrt(np.log(K) / T)
    pi, total = np.full(K, 1.0 / K), np.zeros(K)
    for t in range(1, T + 1):  # t starts at 1: the schedule divides by √t
        total += pi
        a, b = 1 + lam / np.sqrt(t), 1 - lam / np.sqrt(t)
        P_t = 1 / (1 + np.exp(-(a * S_T + b * S_C)))
        win = P_t @ pi  # P_t(y ≻ π_t) for every response y
        pi = pi * np.exp(eta * win)
        pi = pi / pi.sum()
    return total / T


# %% [markdown]
# The kernels in `icml26.games.preferences` do the same on batches: `decompose` on a stack of
# score matrices `(B, n, n)`, `self_play` on a stack of games with one $\lambda$ per game, all
# rounds as a handful of batched tensor operations on the games' device. `preference_gap` is
# {eq}`hrc-dsppo-eq-gap`, computed by chapter 07's `zerosum.duality_gap` on $A = P - \frac12$, and
# `preference_equilibrium` is chapter 07's `zerosum.maximin_lp` (HiGHS) on the same matrix. Both
# kernels must agree with the reference.

# %%
gen = torch.Generator().manual_seed(SEED)
ST_chk, SC_chk = pref.random_tournament(K_RESP, batch=3, generator=gen)
S_chk = ST_chk + SC_chk
dec_chk = pref.decompose(S_chk)
f_ref, T_ref, C_ref = decompose_reference(S_chk[0].numpy())
icml26.checks.agree(
    "decompose vs reference (potential)", dec_chk.potential[0], f_ref, atol=1e-12
)
icml26.checks.agree(
    "decompose vs reference (cyclic)", dec_chk.cyclic[0], C_ref, atol=1e-12
)
sp_chk = pref.self_play(
    ST_chk, SC_chk, 300, lam=torch.tensor([0.0, 1.0, 1.5], dtype=torch.float64)
)
for b, lam in enumerate([0.0, 1.0, 1.5]):
    want = dsppo_reference(ST_chk[b].numpy(), SC_chk[b].numpy(), 300, lam)
    icml26.checks.agree(
        f"self_play vs reference (λ = {lam})", sp_chk.average[b], want, atol=1e-12
    )
print(
    "kernels = reference: decomposition and SPPO/DSPPO (λ = 0, 1, 1.5) on random games"
)

# %% [markdown]
# ## Experiments
#
# ### 08.1–08.2 · The decomposition is orthogonal and unique
#
# *Claim* ({prf:ref}`hrc-dsppo-thm-decomposition`): on random tournaments from generator G1 — a random
# potential plus a random zero-mean GPM, $n = 12$ items — the row-mean split has cyclic rows
# summing to zero, orthogonal parts and Pythagoras' identity (relative error $\le 10^{-10}$), and
# the least-squares potential fitted by `numpy.linalg.lstsq` over all pairs equals the row means
# (to $10^{-10}$). Negative controls: the potential of the column means (the wrong sign) leaves
# rows that do not sum to zero; a least-squares fit that weights the pairs non-uniformly (a
# different population) returns a different potential; and decomposing $P - \frac12$ instead of
# the logits finds "cycles" in a purely Bradley–Terry tournament.

# %%
ST_g1, SC_g1 = pref.random_tournament(N_ITEMS, batch=N_TOURN, generator=gen)
S_g1 = ST_g1 + SC_g1
dec = pref.decompose(S_g1)
norm2 = (S_g1**2).sum((-2, -1))
row_err = (dec.cyclic.sum(-1).abs().amax(-1) / norm2.sqrt()).max()
inner_err = ((dec.transitive * dec.cyclic).sum((-2, -1)).abs() / norm2).max()
pyth_err = (
    (norm2 - (dec.transitive**2).sum((-2, -1)) - (dec.cyclic**2).sum((-2, -1))).abs()
    / norm2
).max()
decomp_err = float(max(row_err, inner_err, pyth_err))
lstsq_err = max(
    np.abs(pref.potential_lstsq(S_g1[k]) - dec.potential[k].numpy()).max()
    for k in range(N_TOURN)
)
# negative controls
f_wrong = S_g1.mean(-2)  # column means = −(row means)
C_wrong = S_g1 - (f_wrong.unsqueeze(-1) - f_wrong.unsqueeze(-2))
wrong_rows = float((C_wrong.sum(-1).abs().amax(-1) / norm2.sqrt()).min())
i_up, j_up = np.triu_indices(N_ITEMS, 1)
wts = np.where(i_up < N_ITEMS // 2, 4.0, 1.0)  # pairs involving the first half count 4x
S0 = S_g1[0].numpy()
D_pairs = np.zeros((i_up.size, N_ITEMS))
D_pairs[np.arange(i_up.size), i_up], D_pairs[np.arange(i_up.size), j_up] = 1.0, -1.0
g_w = np.linalg.lstsq(
    D_pairs * np.sqrt(wts)[:, None], S0[i_up, j_up] * np.sqrt(wts), rcond=None
)[0]
weighted_dev = np.abs((g_w - g_w.mean()) - dec.potential[0].numpy()).max()
P_bt = torch.sigmoid(ST_g1)  # purely transitive logits ...
cyc_share_P = float(
    (
        pref.decompose(P_bt - 0.5).cyclic.norm(dim=(-2, -1))
        / (P_bt - 0.5).norm(dim=(-2, -1))
    ).median()
)
cyc_share_S = float(
    (pref.decompose(ST_g1).cyclic.norm(dim=(-2, -1)) / ST_g1.norm(dim=(-2, -1))).max()
)
print(
    f"{N_TOURN} tournaments, n = {N_ITEMS}: worst relative row-sum / inner / "
    "Pythagoras error"
)
print(
    f"  {row_err:.1e} / {inner_err:.1e} / {pyth_err:.1e}; "
    f"least squares vs row means {lstsq_err:.1e}"
)
print(
    f"negative controls: column-mean potential leaves row sums ≥ {wrong_rows:.2f}·‖S‖;"
)
print(f"  a non-uniform population moves the potential by {weighted_dev:.2f};")
print(
    f"  Bradley–Terry tournaments: cyclic share of the logits {cyc_share_S:.0e}, of P "
    "− 1/2 "
    f"{cyc_share_P:.3f} (median)"
)

# %% tags=["claim"]
# fails if: the potential is not the row mean (wrong axis or sign), or T and C are not
# orthogonal
assert wrong_rows > 1e-3 and cyc_share_P > 1e-3  # the broken variants must be rejected
icml26.claim(
    "08.1",
    "S = T + C: zero row sums of C, ⟨T,C⟩ = 0, Pythagoras",
    decomp_err,
    at_most=1e-10,
    kind="theorem",
)

# %% tags=["claim"]
# fails if: the split is not unique, i.e. another potential fits S better than the row
# means
assert weighted_dev > 1e-3  # a non-uniform population gives a different potential
icml26.claim(
    "08.2",
    "least-squares potential = row-mean potential",
    lstsq_err,
    at_most=1e-10,
    kind="theorem",
)

# %% [markdown]
# The figure splits one tournament. Items are sorted by their potential $f$: the transitive part
# is then a smooth gradient (item $i$ beats every item below it), while the cyclic part has no
# direction at all — each row sums to zero.

# %% tags=["hide-input"] mystnb={"figure": {"caption": "One tournament of 12 items, sorted by potential: the score $S$ (left) is the sum of a ranking $T$ (middle, a smooth gradient) and pure cycles $C$ (right, every row sums to zero), orthogonally (claims 08.1–08.2).", "name": "08-fig-decomposition"}}
k_fig = 0
order = torch.argsort(dec.potential[k_fig], descending=True)
mats = [S_g1[k_fig], dec.transitive[k_fig], dec.cyclic[k_fig]]
mats = [m[order][:, order].numpy() for m in mats]
share = float((mats[1] ** 2).sum() / (mats[0] ** 2).sum())
vmax = max(np.abs(m).max() for m in mats)
fig, axes = plt.subplots(1, 3, figsize=(7.5, 2.9), constrained_layout=True)
titles = [
    "score S",
    f"transitive T ({share:.0%} of ‖S‖²)",
    f"cyclic C ({1 - share:.0%})",
]
for ax, m, title in zip(axes, mats, titles, strict=True):
    im = ax.imshow(m, cmap="RdBu_r", vmin=-vmax, vmax=vmax)
    ax.set(title=title, xlabel="item j (by potential)", ylabel="item i (by potential)")
    ax.set_xticks([0, N_ITEMS - 1])
    ax.set_yticks([0, N_ITEMS - 1])
fig.colorbar(im, ax=axes, shrink=0.8, label=r"logit $s(y_i, y_j)$")
fig.suptitle("A preference tournament = a ranking (T) + pure cycles (C), orthogonally")
plt.show()

# %% [markdown]
# ### 08.3 · A GPM head is purely cyclic only with zero-mean embeddings
#
# *Claim* ({prf:ref}`hrc-dsppo-thm-instantiation`): a GPM(2) score matrix built from centred embeddings
# has no transitive part ($\lVert T\rVert_F / \lVert S\rVert_F \le 10^{-12}$); shifting the same
# embeddings by the paper's own measured mean $m = (0.13, -0.51)$ makes the transitive share
# exceed $0.05$ in every tournament. The threshold $0.05$ is ours, not the paper's; the claim is that
# the zero-mean assumption is load-bearing. The embeddings start as unit vectors at random
# angles.

# %%
ang = 2 * np.pi * torch.rand(N_TOURN, N_ITEMS, generator=gen, dtype=torch.float64)
U = torch.stack([ang.cos(), ang.sin()], -1)
V_centred = U - U.mean(-2, keepdim=True)
V_shifted = V_centred + torch.tensor(MEAN_SHIFT, dtype=torch.float64)


def transitive_share(S: torch.Tensor) -> torch.Tensor:
    """‖T‖_F / ‖S‖_F for a stack of score matrices."""
    return pref.decompose(S).transitive.norm(dim=(-2, -1)) / S.norm(dim=(-2, -1))


share_centred = float(transitive_share(pref.gpm_scores(V_centred)).max())
share_shifted = transitive_share(pref.gpm_scores(V_shifted))
print(f"transitive share, centred embeddings: max {share_centred:.1e}")
print(
    f"transitive share, mean (0.13, −0.51): min {float(share_shifted.min()):.3f}, "
    f"median {float(share_shifted.median()):.3f}"
)

# %% tags=["claim"]
# fails if: GPM scores kept a transitive part with zero-mean embeddings (zero mean not
# enough)
assert (
    float(share_shifted.min()) > 0.05
)  # the shifted negative control carries a ranking
icml26.claim(
    "08.3",
    "GPM with centred embeddings: max ‖T‖/‖S‖",
    share_centred,
    at_most=1e-12,
    kind="theorem",
)

# %% [markdown]
# With the paper's measured mean, the transitive part carries more than half of the GPM head's
# score norm (at least $0.55$ of $\lVert S\rVert_F$, at least 30 % of its energy): in the
# trained model the two heads of HRC are *not* the clean transitive/cyclic split of
# {prf:ref}`hrc-dsppo-thm-instantiation` (d) — the reward head does not carry all of the ranking.
#
# ### 08.4–08.5 · GPM(2) cannot fit "dominant + cycle"; HRC(2+1) and GPM(4) can
#
# *Claim* ({prf:ref}`hrc-dsppo-thm-gpm-limits`, part 1): on the four responses $\{A^\star, A_1, A_2,
# A_3\}$ with the six labelled pairs of the paper's synthetic study (three cyclic, three
# dominant), free (tabular) embeddings trained with the loss {eq}`hrc-dsppo-eq-loss` ($\tau = 0.1$,
# full-batch Adam, 16 restarts at the default scale) reach at most $5/6$ pair accuracy with
# GPM(2) — a theorem, so the threshold is exact — while the best restart of HRC(2+1) and of
# GPM(4) reaches $6/6$. An
# optimisation failure of HRC or GPM(4) would make the second claim fail. (A longer schedule of
# 3000 steps is not needed; 1500 suffice here, which only makes the second claim harder.)

# %%
pairs = pref.dominant_cycle_pairs()
heads = {
    "BT": ("bt", 0),
    "GPM(2)": ("gpm", 2),
    "GPM(4)": ("gpm", 4),
    "HRC(2+1)": ("hrc", 2),
    "HRC(4+1)": ("hrc", 4),
}
tab = {
    name: pref.fit_tabular(
        pairs,
        4,
        h,
        d,
        restarts=RESTARTS,
        steps=TAB_STEPS,
        tau=TAU,
        generator=torch.Generator().manual_seed(SEED),
    )
    for name, (h, d) in heads.items()
}
for name, fit in tab.items():
    acc = fit.accuracy.numpy()
    print(
        f"{name:9s} best {acc.max():.3f}, restarts at 6/6: "
        f"{int((acc > 1 - 1e-9).sum())}/{acc.size}"
    )

# %% tags=["claim"]
# fails if: a 2-D GPM could rank a dominant response above a cycle (the half-plane
# argument wrong)
icml26.claim(
    "08.4",
    "GPM(2) best pair accuracy on dominant+cycle",
    tab["GPM(2)"].accuracy.max(),
    at_most=5 / 6 + 1e-9,
    kind="theorem",
)

# %% tags=["claim"]
# fails if: HRC(2+1) or GPM(4) could not fit dominant + cycle (bad construction or
# training)
best_hrc_gpm4 = min(tab["HRC(2+1)"].accuracy.max(), tab["GPM(4)"].accuracy.max())
icml26.claim(
    "08.5",
    "HRC(2+1) and GPM(4): best pair accuracy (min of two)",
    best_hrc_gpm4,
    at_least=1.0,
    kind="theorem",
)

# %% [markdown]
# Bradley–Terry stops at $5/6$ as well: a scalar reward gets the dominant pairs and two of the
# three cyclic ones. The diagram shows why two dimensions are not enough. Left: a GPM(2) response
# $u$ beats exactly the embeddings in the open half-plane on one side of its direction (shaded);
# the three cycle members, $120°$ apart, never fit in one half-plane, and inside a half-plane the
# angle order would be transitive anyway. Right: with a second block, all cycle members share
# one vector there, on which they tie, and $A^\star$ sits a quarter turn ahead of it.

# %% tags=["hide-input"] mystnb={"figure": {"caption": "Why two GPM dimensions are not enough (claims 08.4–08.7): in one block a dominant response beats only the half-plane on one side of it, which cannot hold a cycle; a second block, where the cycle members tie, hosts it.", "name": "08-fig-geometry"}}
fig, (ax0, ax1) = plt.subplots(1, 2, figsize=(7.5, 3.6), constrained_layout=True)
circle = np.linspace(0, 2 * np.pi, 200)
th = np.pi / 2 - 2 * np.pi * np.arange(3) / 3  # A1, A2, A3 with A_k ≻ A_{k+1}
alpha = np.deg2rad(20.0)  # direction of the candidate u
for ax in (ax0, ax1):
    ax.plot(np.cos(circle), np.sin(circle), color="grey", lw=0.8)
    ax.set_aspect("equal")
    ax.set(xlim=(-1.45, 1.45), ylim=(-1.45, 1.45))
wedge = np.linspace(alpha - np.pi, alpha, 100)
ax0.fill(
    np.r_[0, 1.25 * np.cos(wedge), 0],
    np.r_[0, 1.4 * np.sin(wedge), 0],
    color=icml26.plotting.color(2),
    alpha=0.18,
    label=r"beaten by $u$: $u^\top R^\succ c > 0$",
)
for k in range(3):
    beaten = np.sin(alpha - th[k]) > 0
    ax0.plot(np.cos(th[k]), np.sin(th[k]), "o", ms=9, color=icml26.plotting.color(0))
    ax0.annotate(
        f"$A_{k + 1}$" + ("" if beaten else " (not beaten)"),
        (np.cos(th[k]), np.sin(th[k])),
        xytext=(6, 6),
        textcoords="offset points",
    )
    a, b = th[k], th[(k + 1) % 3]
    ax0.annotate(
        "",
        xy=(0.8 * np.cos(b), 0.8 * np.sin(b)),
        xytext=(0.8 * np.cos(a), 0.8 * np.sin(a)),
        arrowprops=dict(arrowstyle="->", color="black", lw=0.8),
    )
ax0.annotate(
    "",
    xy=(np.cos(alpha), np.sin(alpha)),
    xytext=(0, 0),
    arrowprops=dict(arrowstyle="->", color=icml26.plotting.color(1), lw=2),
)
ax0.text(
    1.02 * np.cos(alpha),
    1.02 * np.sin(alpha) + 0.08,
    r"$u = A^\star$",
    color=icml26.plotting.color(1),
)
ax0.set(
    title="d = 1: a half-plane cannot hold a cycle",
    xlabel="block 1, coordinate 1",
    ylabel="block 1, coordinate 2",
)
ax0.legend(loc="lower left", fontsize=8)
ax1.plot(1, 0, "o", ms=9, color=icml26.plotting.color(0))
ax1.annotate(
    r"$A_1, A_2, A_3$ (tie here)", (1, 0), xytext=(-40, -22), textcoords="offset points"
)
ax1.annotate(
    "",
    xy=(0, 1),
    xytext=(0, 0),
    arrowprops=dict(arrowstyle="->", color=icml26.plotting.color(1), lw=2),
)
ax1.annotate(
    "",
    xy=(1, 0),
    xytext=(0, 0),
    arrowprops=dict(arrowstyle="->", color=icml26.plotting.color(0), lw=1),
)
ax1.text(0.05, 1.08, r"$A^\star$ (block 1 = 0)", color=icml26.plotting.color(1))
ax1.text(
    -1.35,
    -1.3,
    r"$s(A^\star, A_i) = (0,1)\,R^\succ (1,0)^\top = 1 > 0$;"
    "\nthe cycle lives in block 1",
    fontsize=8.5,
)
ax1.set(
    title="d = 2: a second block hosts A*",
    xlabel="block 2, coordinate 1",
    ylabel="block 2, coordinate 2",
)
plt.show()

# %% [markdown]
# ### 08.6–08.7 · No dominant response for a fixed cycle embedding, whatever $d$
#
# *Claim* ({prf:ref}`hrc-dsppo-thm-gpm-limits`, part 2): embed a 7-cycle with the same vector
# $(\cos\theta_i, \sin\theta_i)$ in all $d$ blocks and solve the linear program $\max_{u \in
# [-1,1]^{2d}} \min_i u^\top R^\succ c_i$ with HiGHS: the optimum is $\le 10^{-9}$ for
# $d = 1, \dots, 4$. With an HRC reward advantage $r^\star = 1$ for $A^\star$ the best margin is
# exactly $1$
# (checked to $10^{-9}$). Negative control: re-embedding the *same* cycle as in part 1 of the
# theorem (cycle in block 1, a shared vector in block 2) gives a positive margin.

# %%
theta = 2 * np.pi * np.arange(CYCLE_N) / CYCLE_N
base = np.c_[np.cos(theta), np.sin(theta)]
lp_opt = {d: pref.dominant_margin_lp(np.tile(base, d)) for d in BLOCKS}
lp_hrc = {d: pref.dominant_margin_lp(np.tile(base, d), reward=1.0) for d in BLOCKS}
re_embedded = np.c_[base, np.ones(CYCLE_N), np.zeros(CYCLE_N)]
lp_re = pref.dominant_margin_lp(re_embedded)
for d in BLOCKS:
    print(
        f"2d = {2 * d}: best GPM margin {lp_opt[d]:+.1e}; with HRC reward 1: "
        f"{lp_hrc[d]:.6f}"
    )
print(f"the same cycle re-embedded in 2 blocks: best margin {lp_re:.3f}")

# %% tags=["claim"]
# fails if: some embedding of A* beat every member of the fixed cycle (the mean-zero
# argument wrong)
assert lp_re > 0.5  # the re-embedded cycle does admit a dominant response
icml26.claim(
    "08.6",
    "fixed cycle, d = 1..4: max best margin of a GPM A*",
    max(lp_opt.values()),
    at_most=1e-9,
    kind="theorem",
)

# %% tags=["claim"]
# fails if: the HRC reward could not dominate the bounded cyclic term (margin ≠ r* = 1)
icml26.claim(
    "08.7",
    "fixed cycle + HRC reward r* = 1: worst |margin − 1| over d",
    max(abs(v - 1.0) for v in lp_hrc.values()),
    at_most=1e-9,
    kind="theorem",
)

# %% [markdown]
# ### 08.8–08.12 · SPPO and DSPPO converge to the Nash equilibrium at rate $1/\sqrt T$
#
# *Claim* ({prf:ref}`hrc-dsppo-thm-dsppo`): on generator G3 — $K = 8$ candidate responses, true
# scores $S_T + S_C$ from G1 with a small ranking (reward scale $0.5$) and strong cycles
# (cyclic scale $2$), uniform $\pi_1$, step $\eta = 2\sqrt{\ln K/T}$ — the averaged policy of SPPO
# ($\lambda = 0$), DSPPO ($\lambda = 1$) and DSPPO with $\lambda = 1.5$ converges to the Nash
# equilibrium of the **true** preference at rate $1/\sqrt T$. Two checks are the theorem
# itself: for SPPO the bound {eq}`hrc-dsppo-eq-dsppo-rate` reads $\operatorname{gap}\cdot\sqrt T
# \le 1.5\sqrt{\ln 8} \approx 2.16$ (08.8), and for every $\lambda$ every gap must lie below the
# bound with its drift term $\lvert\lambda\rvert M/\sqrt T$ (08.11; $M$ is between 3 and 9 on these
# games). Three are empirical statements with thresholds of ours, set from a quick check on
# one instance before the sweep (so marked as tuned): DSPPO's constant stays as small as
# SPPO's bound would allow, $\operatorname{gap}\cdot\sqrt T \le 2$ (08.9), the log–log slope of
# the gap is $\le -0.35$ (08.10, the theorem's rate is $-\tfrac12$ for large $T$), and the
# average policy lies within total variation $0.1$ of the LP equilibrium at the largest $T$
# (08.12). They are decided over 8 random games, each a seed, by the worst game. Their
# control is the *last* iterate $\pi_T$ of the same runs, which the theorem says nothing
# about and which can cycle for ever.

# %%
ST_g3, SC_g3 = pref.random_tournament(
    K_RESP,
    batch=N_GAMES,
    reward_scale=REWARD_SCALE,
    cyclic_scale=CYCLIC_SCALE,
    generator=gen,
)
P_true = torch.sigmoid(ST_g3 + SC_g3)
eq_lp = np.stack([pref.preference_equilibrium(P_true[b]) for b in range(N_GAMES)])
L = len(LAMBDAS)
lam_batch = torch.tensor(LAMBDAS, dtype=torch.float64).repeat_interleave(N_GAMES)
ST_rep, SC_rep = ST_g3.repeat(L, 1, 1), SC_g3.repeat(L, 1, 1)
P_rep = P_true.repeat(L, 1, 1)
gaps = np.zeros((len(HORIZONS), L, N_GAMES))
gaps_last = np.zeros_like(gaps)  # the control: the last iterate instead of the average
for h, T_h in enumerate(icml26.progress(HORIZONS, desc="horizons")):
    rec = (
        [t for t in np.unique(np.geomspace(1, T_h, 60).astype(int))]
        if T_h == HORIZONS[-1]
        else None
    )
    run = pref.self_play(ST_rep, SC_rep, T_h, lam=lam_batch, record=rec)
    gaps[h] = pref.preference_gap(P_rep, run.average).reshape(L, N_GAMES).numpy()
    gaps_last[h] = pref.preference_gap(P_rep, run.last).reshape(L, N_GAMES).numpy()
final = run  # the longest run, with its recorded trajectory
Ts = np.array(HORIZONS, dtype=float)
scaled = gaps * np.sqrt(Ts)[:, None, None]
slopes = np.array(
    [[stats.loglog_fit(Ts, gaps[:, a, b])[0] for b in range(N_GAMES)] for a in range(L)]
)
tv = 0.5 * np.abs(final.average.reshape(L, N_GAMES, K_RESP).numpy() - eq_lp[None]).sum(
    -1
)
tv_last = 0.5 * np.abs(
    final.last.reshape(L, N_GAMES, K_RESP).numpy() - eq_lp[None]
).sum(-1)
scaled_last = gaps_last * np.sqrt(Ts)[:, None, None]
slopes_last = np.array(
    [
        [stats.loglog_fit(Ts, gaps_last[:, a, b] + 1e-12)[0] for b in range(N_GAMES)]
        for a in range(L)
    ]
)
M_game = (ST_g3 - SC_g3).abs().amax((-2, -1)).numpy()
bound = (
    1.5 * np.sqrt(np.log(K_RESP)) + np.abs(np.array(LAMBDAS))[:, None] * M_game[None]
) / np.sqrt(Ts)[:, None, None]
for a, lam in enumerate(LAMBDAS):
    print(
        f"λ = {lam:3.1f}: gap·√T in [{scaled[:, a].min():.2f}, "
        f"{scaled[:, a].max():.2f}], slopes "
        f"[{slopes[a].min():.2f}, {slopes[a].max():.2f}], TV to LP at T = "
        f"{HORIZONS[-1]}: "
        f"max {tv[a].max():.3f} (median {np.median(tv[a]):.3f})"
    )
h_w, g_w3 = np.unravel_index(scaled[:, 1].argmax(), scaled[:, 1].shape)
print(
    f"DSPPO's worst case: game {g_w3} at T = {HORIZONS[h_w]}, gap·√T = "
    f"{scaled[h_w, 1, g_w3]:.2f}; "
    f"its bound's constant 1.5√ln K + M = {bound[h_w, 1, g_w3] * np.sqrt(Ts[h_w]):.2f}"
)
print(f"M = max|S_T − S_C| over the games: {M_game.min():.1f} to {M_game.max():.1f}")
print(f"largest gap / convergence bound: {(gaps / bound).max():.3f}")

# %% tags=["claim"]
# fails if: SPPO's average did not approach the Nash equilibrium at rate 1/√T (η or gain
# wrong)
icml26.claim(
    "08.8",
    "SPPO (λ = 0): worst gap·√T over T and games vs the bound 1.5√ln K",
    scaled[:, 0].max(),
    at_most=1.5 * np.sqrt(np.log(K_RESP)),
    kind="theorem",
)

# %% tags=["claim"]
# fails if: the time-varying judge (λ = 1) kept DSPPO away from the true game's
# equilibrium (as the last iterate, the control, stays away)
icml26.claim(
    "08.9",
    "DSPPO (λ = 1): gap·√T, worst over T, per game",
    seeds=scaled[:, 1].max(0),
    at_most=2.0,
    control=scaled_last[:, 1].max(0),
    control_label="last iterate",
    tuned="threshold 2 set from one game before the sweep",
)

# %% tags=["claim"]
# fails if: the gap decayed slower than the O(1/√T) rate (as for the last iterate, the
# control)
icml26.claim(
    "08.10",
    "SPPO/DSPPO (λ = 0, 1, 1.5): log-log slope of gap, worst λ, per game",
    seeds=slopes.max(0),
    at_most=-0.35,
    control=slopes_last.max(0),
    control_label="last iterate",
    tuned="threshold −0.35 set from one game before the sweep",
)

# %% tags=["claim"]
# fails if: the proof's constants were wrong, or the judge's drift ε_t were not averaged
# out
icml26.claim(
    "08.11",
    "all λ, T, games: max gap / proven convergence bound",
    (gaps / bound).max(),
    at_most=1.0,
    kind="theorem",
)

# %% tags=["claim"]
# fails if: the average policy converged to something other than the LP Nash equilibrium
# (as the last iterate, the control, does)
icml26.claim(
    "08.12",
    "SPPO/DSPPO: TV(π̄_T, LP equilibrium), worst λ, per game",
    seeds=tv[:2].max(0),
    at_most=0.1,
    control=tv_last[:2].max(0),
    control_label="last iterate",
    tuned="threshold 0.1 set from one game before the sweep",
)

# %% [markdown]
# The theorem's own bound holds everywhere (08.8 for SPPO, 08.11 for every $\lambda$), with
# room: the bound is a worst case over all gain sequences. The rate holds too (08.10), while
# the last iterate's gap does not fall at all (slope $+0.11$ on its worst game): the average
# is what converges. What fails (08.9) is our constant $2$ for
# DSPPO: on one of the 8 games the gap of DSPPO with $\lambda = 1$ is $2.42/\sqrt T$ at the
# smallest horizon. Early iterations use a judge that is far from the truth ($2 S_T$ and no cycles
# at $t = 1$), and the theorem charges for that drift through $\frac{1}{2T}\sum_t \varepsilon_t
# \le \lvert\lambda\rvert M/\sqrt T$ — the threshold $2$ ignores this term, so it is wrong for
# DSPPO on games with large $M$, as the numbers above show; the measured gaps stay below two
# thirds of the bound. The rate is what the theorem promises; the *constant* depends on $\eta$,
# which is why the step is tuned to $\ln K$: a naive $\eta = 1/\sqrt T$ makes the first term of
# {eq}`hrc-dsppo-eq-dsppo-bound` $2\ln 8 \approx 4.2$ instead of $\sqrt{\ln 8} \approx 1.4$ times
# $1/\sqrt T$.
#
# The total-variation distance to the equilibrium is a different question from the gap: it is
# not bounded by {prf:ref}`hrc-dsppo-thm-dsppo`. Where it is largest, the equilibrium is poorly
# conditioned — a nearby policy is almost as unexploitable — and a small gap allows a visibly
# different policy. The figure shows the gaps (left) and, for the game with the largest TV
# distance under DSPPO, the distance of the running average and of the last iterate to the
# equilibrium along the longest run (right).

# %% tags=["hide-input"] mystnb={"figure": {"caption": "Left: the duality gap of the averaged self-play policy under the true preference falls like $1/\\sqrt T$ for SPPO and DSPPO (claims 08.8–08.11); right: on the hardest game the average approaches the equilibrium while the iterates oscillate (claim 08.12).", "name": "08-fig-convergence"}}
fig, (ax0, ax1) = plt.subplots(1, 2, figsize=(7.5, 3.4), constrained_layout=True)
for a, lam in enumerate(LAMBDAS):
    name = "SPPO (λ = 0)" if lam == 0 else f"DSPPO (λ = {lam:g})"
    ax0.loglog(
        Ts,
        gaps[:, a].max(-1),
        marker="o",
        color=icml26.plotting.color(a),
        label=f"{name}, worst game",
    )
    ax0.loglog(Ts, np.median(gaps[:, a], -1), ls=":", color=icml26.plotting.color(a))
ax0.loglog(Ts, 2 / np.sqrt(Ts), color="black", ls="--", lw=1, label="2/√T (threshold)")
ax0.loglog(
    Ts,
    bound[:, 1].max(-1),
    color="grey",
    lw=1,
    label="proven bound, λ = 1 (worst game)",
)
ax0.set(
    xlabel="horizon T (iterations)",
    ylabel="duality gap of π̄_T under the true P",
    title="Averaged self-play: gap ∝ 1/√T",
)
ax0.legend(fontsize=7.5)
b_star = int(tv[1].argmax())
rec_t = np.unique(np.geomspace(1, HORIZONS[-1], 60).astype(int))
for a in (0, 1):
    idx = a * N_GAMES + b_star
    avg_tv = 0.5 * np.abs(final.snapshots[:, idx].numpy() - eq_lp[b_star]).sum(-1)
    last_tv = 0.5 * np.abs(final.iterates[:, idx].numpy() - eq_lp[b_star]).sum(-1)
    name = "SPPO" if a == 0 else "DSPPO λ = 1"
    ax1.semilogx(
        rec_t, avg_tv, color=icml26.plotting.color(a), label=f"{name}: average π̄_t"
    )
    ax1.semilogx(
        rec_t,
        last_tv,
        color=icml26.plotting.color(a),
        ls=":",
        label=f"{name}: iterate π_t",
    )
ax1.axhline(0.1, color="black", ls="--", lw=1)
ax1.set(
    xlabel=f"iteration t (run with T = {HORIZONS[-1]})",
    ylabel="TV distance to LP equilibrium",
    title=f"Hardest game (#{b_star}): average vs last iterate",
)
ax1.legend(fontsize=7.5)
plt.show()

# %% [markdown]
# **The schedule.** The paper's only tuning knob is $\lambda$. Its λ sweep (Llama-3.1-8B judge,
# AlpacaEval 2.0 length-controlled win rate after three iterations, single runs) reads
# $\lambda = -2 \mapsto 37.27$, $-1 \mapsto 38.66$, $-0.5 \mapsto 40.21$, $0 \mapsto 40.62$,
# $0.25 \mapsto 41.09$, $0.5 \mapsto 40.85$, $0.75 \mapsto 41.54$, $1 \mapsto 41.90$,
# $2 \mapsto 40.15$: a mild optimum at $\lambda = 1$, within about one point of
# SPPO ($\lambda = 0$). On the toy games (right, solid) the same sweep at a fixed horizon can
# only show what the theorem predicts: against the *true* game, any schedule is a detour whose
# cost grows with $\lvert\lambda\rvert$ — the curve is flat for $0 \le \lambda \le 0.5$ and rises
# on both sides ($1.64$ at $\lambda = -2$, $1.38$ at $\lambda = 2$). The toy has no
# analogue of what the paper hopes the schedule buys for an LLM (learning the easy ranking first),
# so the two curves answer different questions.

# %% tags=["hide-input"] mystnb={"figure": {"caption": "Left: the DSPPO weights $1 \\pm \\lambda/\\sqrt t$ of the transitive and cyclic heads; right: the gap of the toy games at a fixed horizon against $\\lambda$, beside the paper's AlpacaEval λ sweep.", "name": "08-fig-schedule"}}
lam_sweep = torch.tensor(SWEEP, dtype=torch.float64).repeat_interleave(N_GAMES)
S_sw = len(SWEEP)
sweep_run = pref.self_play(
    ST_g3.repeat(S_sw, 1, 1), SC_g3.repeat(S_sw, 1, 1), SWEEP_T, lam=lam_sweep
)
sweep_gap = pref.preference_gap(P_true.repeat(S_sw, 1, 1), sweep_run.average).reshape(
    S_sw, N_GAMES
)
print(
    "toy mean gap·√T by λ:",
    dict(
        zip(
            SWEEP,
            np.round(sweep_gap.mean(-1).numpy() * np.sqrt(SWEEP_T), 2).tolist(),
            strict=True,
        )
    ),
)
paper_lc = [37.27, 38.66, 40.21, 40.62, 41.09, 40.85, 41.54, 41.90, 40.15]
fig, (ax0, ax1) = plt.subplots(1, 2, figsize=(7.5, 3.8), constrained_layout=True)
tt = np.arange(1, 11)
for i, lam in enumerate([-1.0, 0.0, 0.5, 1.0, 2.0]):
    a_t, b_t = pref.schedule(tt, lam)
    ax0.plot(
        tt, a_t, color=icml26.plotting.color(i), marker="o", ms=3, label=f"λ = {lam:g}"
    )
    ax0.plot(tt, b_t, color=icml26.plotting.color(i), ls=":", marker="s", ms=3)
ax0.axvspan(0.7, 3.3, color="grey", alpha=0.12)
ax0.text(1.0, -0.9, "paper: T = 3", fontsize=8)
ax0.set(
    xlabel="iteration t",
    ylabel="weight of S_T (solid), of S_C (dotted)",
    title="DSPPO schedule: ranking first, cycles later",
)
ax0.legend(fontsize=7)
ax1.plot(
    SWEEP,
    sweep_gap.mean(-1).numpy() * np.sqrt(SWEEP_T),
    marker="o",
    color=icml26.plotting.color(0),
    label=f"toy: mean gap·√T at T = {SWEEP_T}",
)
ax1.set(
    xlabel="schedule parameter λ",
    ylabel="toy gap·√T (mean over games)",
    title="λ sweep: toy games and the paper",
)
ax1b = ax1.twinx()
ax1b.plot(
    SWEEP,
    paper_lc,
    marker="s",
    ls="--",
    color=icml26.plotting.color(1),
    label="paper: AlpacaEval LC win rate (%)",
)
ax1b.set_ylabel("paper's LC win rate (%)")
h1, l1 = ax1.get_legend_handles_labels()
h2, l2 = ax1b.get_legend_handles_labels()
ax1.legend(
    h1 + h2, l1 + l2, fontsize=7.5, loc="upper center", bbox_to_anchor=(0.5, -0.2)
)
plt.show()

# %% [markdown]
# ### 08.13–08.14 · Two-stage learning of dominant + cycle
#
# *Claim* (the paper's synthetic study, a figure without numbers): training on "dominant +
# cycle" data, pair accuracy rises in two stages, $\sim 50\% \to \sim 75\%$ when the dominant
# response is found (three dominant pairs right, the three cyclic pairs at chance) and then $\to
# 100\%$ when the cycle is learned; HRC finishes the first stage faster than GPM(4); GPM(2) never
# captures the cycle. Our version: 200 training and 50 held-out prompts of generator G2 with
# item features (a hidden "style" angle that makes the cycle, a hidden quality that makes the
# dominant response, mixed into 16 noisy features), a shared two-layer MLP encoder with each
# head, full-batch Adam (learning rate $10^{-3}$) in float64 (held-out accuracies count
# pairs, and in float32 a last-bit difference between two CPUs moved a pair or two), 5
# seeds. The claims, with our
# thresholds: HRC(2+1) reaches 75% held-out accuracy strictly earlier (by at least one
# evaluation interval) than GPM(4), on every seed (08.13); and adding the one-dimensional
# reward head to a 2-D GPM captures dominant + cycle, a final held-out accuracy of at least
# 95% on every seed (08.14), while GPM(2) alone, the control, cannot: every prompt of this
# generator has the same six pairs, so GPM(2)'s accuracy is at most $5/6 \approx 0.833$ by
# {prf:ref}`hrc-dsppo-thm-gpm-limits`, which is asserted, not claimed.

# %%
X_all, pairs_g2 = pref.dominant_cycle_data(
    PROMPTS_TRAIN + PROMPTS_TEST, generator=gen, dtype=torch.float64
)
X_tr, X_te = X_all[:PROMPTS_TRAIN], X_all[PROMPTS_TRAIN:]
enc = {}
for name, (h, d) in icml26.progress(list(heads.items()), desc="heads"):
    enc[name] = pref.fit_encoder(
        X_tr,
        X_te,
        pairs_g2,
        h,
        d,
        seeds=SEEDS,
        steps=ENC_STEPS,
        lr=ENC_LR,
        tau=TAU,
        generator=torch.Generator().manual_seed(SEED),
    )


def steps_to(fit: pref.EncoderFit, level: float) -> np.ndarray:
    """First evaluation step at which each seed's held-out accuracy reaches ``level``.

    inf where it never does.
    """
    hit = fit.test_accuracy >= level - 1e-12
    return np.where(hit.any(0), fit.steps[hit.argmax(0)], np.inf)


for name, fit in enc.items():
    print(
        f"{name:9s} steps to 75%: {steps_to(fit, 0.75).tolist()}, to 95%: "
        f"{steps_to(fit, 0.95).tolist()}, final held-out: "
        f"{np.round(fit.test_accuracy[-1], 3).tolist()}"
    )
interval = float(np.diff(enc["HRC(2+1)"].steps).min())
never = (
    float(ENC_STEPS) + interval
)  # a seed that never gets there counts as one step late


def reach(name):
    return np.minimum(steps_to(enc[name], 0.75), never)


lead = reach("GPM(4)") - reach("HRC(2+1)")  # steps by which HRC(2+1) is earlier
assert enc["GPM(2)"].test_accuracy.max() <= 5 / 6 + 1e-9, "GPM(2) above its ceiling"
print(f"HRC(2+1)'s lead over GPM(4) at 75%, per seed (steps): {lead.tolist()}")

# %% tags=["claim"]
# fails if: the explicit reward head did not find the dominant response faster than
# GPM(4)
icml26.claim(
    "08.13",
    "steps by which HRC(2+1) reaches 75% before GPM(4)",
    seeds=lead,
    at_least=interval,
    no_control="a race between two heads: its baseline GPM(4) is the other runner",
)

# %% tags=["claim"]
# fails if: the reward head did not add the dominant response to what a 2-D GPM can fit
# (GPM(2) alone, the control, cannot fit both)
icml26.claim(
    "08.14",
    "HRC(2+1): final held-out pair accuracy",
    seeds=enc["HRC(2+1)"].test_accuracy[-1],
    at_least=0.95,
    control=enc["GPM(2)"].test_accuracy[-1],
    control_label="GPM(2)",
)

# %% tags=["hide-input"] mystnb={"figure": {"caption": "Held-out pair accuracy on dominant + cycle data: heads that cannot represent the cycle stop at 75 %, the others reach 100 % (claims 08.13–08.14); thin lines are seeds.", "name": "08-fig-two-stage"}}
fig, ax = plt.subplots(figsize=(7.5, 3.6))
for i, (name, fit) in enumerate(enc.items()):
    ax.plot(
        fit.steps, fit.test_accuracy, color=icml26.plotting.color(i), lw=0.6, alpha=0.45
    )
    ax.plot(
        fit.steps,
        fit.test_accuracy.mean(1),
        color=icml26.plotting.color(i),
        lw=2,
        label=name,
    )
for level, text in (
    (0.5, "chance"),
    (0.75, "stage 1: dominant found"),
    (1.0, "stage 2: cycle learned"),
):
    ax.axhline(level, color="grey", ls=":", lw=1)
    ax.text(ENC_STEPS * 0.99, level + 0.01, text, ha="right", fontsize=8, color="grey")
ax.set(
    xlabel="training step (full-batch Adam)",
    ylabel="held-out pair accuracy",
    title="Dominant + cycle: plateaus at 75 % (dominant) and 100 % (cycle)",
    ylim=(0.3, 1.05),
)
ax.legend(loc="lower right", ncol=2, fontsize=8)
plt.show()

# %% [markdown]
# Two stages are visible, but not as the paper draws them. The heads that cannot represent the
# cycle, GPM(2) and Bradley–Terry, climb to the 75% plateau and stay there (held-out accuracy
# 0.72–0.75, below their ceiling of $5/6$). The heads that can, pass 75% without a visible pause
# and reach 100% — HRC(2+1) most slowly, its mean curve lingering between 80% and 95% for a
# hundred steps. And the order is not the paper's: HRC(2+1) reaches 75% after 20–40 steps,
# GPM(4) after 0–45 (in one seed the untrained network already ranks the dominant response
# first), and GPM(4) is the faster one in 4 of 5 seeds; it also finishes the second stage first
# (95% after 30–70 steps, against 55–260 for HRC(2+1) and 45–65 for HRC(4+1)). In this generator
# the feature that makes a response dominant is as easy to read linearly for a gated GPM block as
# for a reward head, so the explicit reward buys no head start (08.13 is not reproduced: the
# lead is $-40$ to $+25$ steps). Every head that can represent the cycle ends at 100%,
# HRC(2+1) on every seed, while GPM(2) stays at 0.72–0.75 (08.14): the reward head is what a
# 2-D GPM needs to fit dominant + cycle.
#
# ## Cross-check
#
# 1. `scipy.linalg.schur(S, output="real")` writes a skew matrix as $Z\,\Sigma Z^\top$ with
#    $2 \times 2$ blocks $\left(\begin{smallmatrix}0&\tau_l\\-\tau_l&0\end{smallmatrix}\right)$:
#    every skew matrix *is* a GPM of dimension $2\lceil n/2 \rceil$ — the embedding is read off
#    $Z$ and the $\tau_l$ — and `numpy.linalg.eigvals` gives $\pm \mathrm{i}\tau_l$. We rebuild a
#    cyclic part with `gpm_scores` from the Schur form.
# 2. `choix.ilsr_pairwise` {cite}`maystre2015lsr` computes the Bradley–Terry maximum-likelihood
#    strengths from pairwise outcomes; our BT head trained with the loss {eq}`hrc-dsppo-eq-loss` at
#    $\tau = 1$ (the BT likelihood) must find the same strengths up to a constant.
# 3. The Nash equilibria of the self-play games: our LP (HiGHS), nashpy's linear program and
#    Lemke–Howson {cite}`knight2018nashpy` must agree, and the DSPPO limit is checked against them
#    in 08.12.
# 4. `torch.nn.functional.binary_cross_entropy_with_logits` against the hand-written loss.

# %%
C_x = dec.cyclic[0].numpy()
Sig, Z = scipy.linalg.schur(C_x, output="real")
blocks = N_ITEMS // 2
off_block = Sig.copy()
V_schur = np.zeros((N_ITEMS, 2 * blocks))
for l in range(blocks):
    i = 2 * l
    off_block[i : i + 2, i : i + 2] = 0.0
    tau_l = Sig[i, i + 1]
    scale_l = np.sqrt(abs(tau_l))
    V_schur[:, i] = np.sign(tau_l) * scale_l * Z[:, i + 1]
    V_schur[:, i + 1] = scale_l * Z[:, i]
rebuilt = pref.gpm_scores(torch.tensor(V_schur)).numpy()
icml26.checks.agree(
    "GPM from the real Schur form vs the cyclic part", rebuilt, C_x, atol=1e-10
)
assert np.abs(off_block).max() < 1e-10 and np.abs(np.diag(Sig)).max() < 1e-10
eig = np.sort(np.abs(np.linalg.eigvals(C_x).imag))
taus = np.sort(
    np.repeat(np.abs(Sig[np.arange(0, N_ITEMS, 2), np.arange(1, N_ITEMS, 2)]), 2)
)
icml26.checks.agree("eigenvalues ±iτ vs Schur blocks", eig, taus, atol=1e-10)
print(
    f"cyclic part (rank {np.linalg.matrix_rank(C_x)}) rebuilt exactly as a GPM "
    f"from its {blocks} Schur blocks"
)

r_true = rng.normal(size=N_ITEMS)
n_cmp = 6000
a_i = rng.integers(0, N_ITEMS, n_cmp)
b_i = (a_i + rng.integers(1, N_ITEMS, n_cmp)) % N_ITEMS
a_wins = rng.random(n_cmp) < 1 / (1 + np.exp(-(r_true[a_i] - r_true[b_i])))
outcomes = [(a, b) if w else (b, a) for a, b, w in zip(a_i, b_i, a_wins, strict=True)]
strength = choix.ilsr_pairwise(N_ITEMS, outcomes, alpha=0.0)
bt_fit = pref.fit_tabular(
    torch.tensor(outcomes),
    N_ITEMS,
    "bt",
    0,
    restarts=1,
    steps=1500,
    tau=1.0,
    generator=torch.Generator().manual_seed(SEED),
)
ours = (
    bt_fit.scores[0].mean(1).numpy()
)  # the potential of the fitted BT scores = centred r
icml26.checks.agree(
    "BT head vs choix ILSR (centred strengths)",
    ours,
    strength - strength.mean(),
    atol=1e-6,
)
print(
    f"BT head = choix MLE on {n_cmp} comparisons; correlation with the true rewards "
    f"{np.corrcoef(ours, r_true)[0, 1]:.3f}"
)

lh_ok = 0
for b in range(N_GAMES):
    A_b = P_true[b].numpy() - 0.5
    x_np, _ = nash.Game(A_b).linear_program()
    icml26.checks.agree(f"nashpy LP vs HiGHS LP (game {b})", x_np, eq_lp[b], atol=1e-6)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        x_lh, y_lh = nash.Game(A_b).lemke_howson(initial_dropped_label=0)
    lh_ok += bool(np.isfinite(x_lh).all() and np.abs(x_lh - eq_lp[b]).max() < 1e-6)
print(
    f"{N_GAMES} games: nashpy linear_program = our LP; Lemke–Howson lands on it in "
    f"{lh_ok}"
)

s_pairs = torch.randn(64, generator=gen, dtype=torch.float64)
bce = torch.nn.functional.binary_cross_entropy_with_logits(
    s_pairs / TAU, torch.ones_like(s_pairs)
)
icml26.checks.agree(
    "preference_loss vs BCE with logits",
    pref.preference_loss(s_pairs, TAU),
    bce,
    atol=1e-12,
)
print("preference_loss = binary_cross_entropy_with_logits(s/τ, 1)")

# %% [markdown]
# Every cyclic part is a GPM of full dimension, so a GPM with enough dimensions can represent any
# preference — the paper's point is not expressiveness but *how the dimensions are spent*.
#
# ### Speed: a thousand games at once
#
# An equilibrium per prompt is a linear program; self-play solves all prompts at once. We time
# DSPPO on 1000 random $8 \times 8$ preference games, batched, against the readable reference on
# a few games (extrapolated) and one HiGHS LP per game, and report the accuracy the batch
# certifies through its duality gaps. (`benchmarks/bench_08_hrc_dsppo.py` repeats this.)

# %% tags=["nbval-ignore-output"]
ST_b, SC_b = pref.random_tournament(
    K_RESP,
    batch=BENCH_GAMES,
    reward_scale=REWARD_SCALE,
    cyclic_scale=CYCLIC_SCALE,
    generator=gen,
)
P_b = torch.sigmoid(ST_b + SC_b).to(DEVICE)
t0 = time.perf_counter()
res_b = pref.self_play(ST_b.to(DEVICE), SC_b.to(DEVICE), BENCH_T, lam=1.0)
gap_b = pref.preference_gap(P_b, res_b.average)
t_kernel = time.perf_counter() - t0
n_ref = 4
t0 = time.perf_counter()
for b in range(n_ref):
    dsppo_reference(ST_b[b].numpy(), SC_b[b].numpy(), BENCH_T, 1.0)
t_ref = (time.perf_counter() - t0) * BENCH_GAMES / n_ref
n_lp = 100
t0 = time.perf_counter()
for b in range(n_lp):
    pref.preference_equilibrium(P_b[b].cpu())
t_lp = (time.perf_counter() - t0) * BENCH_GAMES / n_lp
print(
    f"batched DSPPO, {BENCH_GAMES} games, T = {BENCH_T}: {t_kernel:.2f} s "
    f"(every gap ≤ {float(gap_b.max()):.3f})"
)
print(
    f"reference loop (extrapolated): {t_ref:.1f} s; one LP per game (extrapolated): "
    f"{t_lp:.2f} s"
)

# %% [markdown]
# The batched self-play is one to two orders of magnitude faster than the same loop per game.
# Against an exact LP per game it wins only at the modest accuracy that a gap of a few
# hundredths certifies — the same trade-off as chapter 07's batched Hedge.
#
# ## Limits of this reproduction
#
# - **No language model, no real judge.** The paper trains reward models on Gemma-2B-it and
#   Llama-3.1-8B over Skywork-Reward-Preference-80K, evaluates them on RewardBench (HRC(2+1)
#   57.63 vs 56.40 for the best baseline on Gemma, 70.95 vs 70.10 on Llama) and aligns policies
#   with SPPO/DSPPO, judged by AlpacaEval 2.0, Arena-Hard and MT-Bench (e.g. HRC+DSPPO 44.75 LC win
#   rate vs 40.25 for GPM+SPPO). None of these numbers is tested here: they need LLMs, GPT
#   judges and a network. They are single runs, partly mixed (on Llama, HRC+SPPO beats DSPPO on
#   MT-Bench at iteration 2), and no claim cell is built on them.
# - **What is tested** is the mathematics the method rests on — the decomposition (08.1–08.2),
#   the zero-mean caveat (08.3), the representation limits (08.4–08.7) and the convergence of
#   self-play against a time-varying judge (08.8–08.12) — plus a synthetic version of the
#   paper's two-stage study (08.13–08.14). The empirical self-play claims (08.9, 08.10,
#   08.12) use thresholds set from one game before the sweep, marked as tuned on their
#   lines; they are decided over 8 random games by the worst game, with the last iterate as
#   control. The theorem checks (08.8, 08.11) use the proof's own bound.
# - **08.9 is not reproduced: our constant $2$ is wrong for DSPPO, not the
#   theorem.** On the worst of our 8 games DSPPO ($\lambda = 1$) has $\operatorname{gap}\cdot\sqrt T
#   = 2.42$ at $T = 100$, above the threshold $2$ (set from one instance, where it was $1.10$). The
#   proven bound for that game is larger still, and every gap lies below the bound (08.11) and
#   falls at the rate $T^{-1/2}$ or faster (08.10). The threshold $2$ omits the drift term
#   $\lvert\lambda\rvert M/\sqrt T$ of {eq}`hrc-dsppo-eq-dsppo-rate`. The claim still
#   discriminates: the last iterate's $\operatorname{gap}\cdot\sqrt T$ reaches 50.
# - **08.12 (TV distance to the equilibrium) is not implied by the theorem**, which bounds the
#   gap, and is not reproduced on the worst of our 8 games ($0.163$ for DSPPO, $0.129$ for SPPO
#   at $T = 25\,600$; median $0.036$; the single instance the threshold was set from was at $0.05$). Its
#   equilibrium is poorly conditioned: the gap is as small as on the other games while the
#   policy is still visibly elsewhere; the figure's right panel shows the distance still
#   falling.
# - **08.13 is not reproduced in our synthetic setting.** HRC(2+1) reaches the first plateau
#   earlier than GPM(4) in 1 of 5 seeds (leads of $-40$ to $+25$ steps), not on every seed
#   (nor in 4 of 5, a looser reading). Our generator, encoder, learning rate and $C_1 =
#   C_2 = 1$, $\delta = 1$ are reconstructions, and a generator in which dominance is harder to
#   read from the features could behave differently; the paper's own study is a figure on
#   UltraFeedback responses, with no numbers or seeds reported. We did not tune the setting to
#   make the claim hold.
# - **A constant gate.** The encoder and the tabular heads learn one gate per 2-D block, not
#   the paper's prompt-dependent $D(x)$. In these experiments every prompt has the same
#   structure, so a prompt-dependent gate has nothing to adapt to; its value on mixed data is
#   untested.
# - **Tabular realizability.** Self-play here updates an explicit probability vector, where the
#   paper's squared-loss regression equals the multiplicative-weights step
#   ({prf:ref}`hrc-dsppo-def-dsppo`); an LLM policy only approximates it, with $K = 5$ sampled
#   opponents instead of exact win rates.
# - **Scale.** `ICML26_SCALE=paper` runs the same experiments larger: 1000 tournaments, 64
#   restarts, 64 games with $T$ up to $102\,400$, and the encoder study on 2000 training
#   prompts with 10 seeds. It needs no GPU. Its record, below, gives its claim lines and names
#   the verdicts that differ from this run's. A claim decided by its worst game or seed meets
#   harder cases when there are 64 games instead of 8, or 10 seeds instead of 5: a threshold
#   set from one instance describes a typical game, not the worst of many, and only the
#   theorem's bound (08.11) is a statement about all of them. A verdict that turns at the
#   paper scale therefore says that the claim holds typically but not uniformly.

# %%
from icml26.pipeline import paper

paper.show("08-hrc-dsppo")

# %% [markdown]
# ## Exercises
#
# ````{exercise} Decompose the probability instead of the logit
# :label: hrc-dsppo-ex-probability
#
# Take a purely Bradley–Terry tournament, $S_{ij} = r_i - r_j$, and decompose $P - \frac12 =
# \sigma(S) - \frac12$ with `pref.decompose`. (a) Before computing: is its cyclic part zero?
# (b) How does the cyclic share depend on the spread of $r$ — predict the limits of very small
# and very large spreads, then check numerically.
# ````
#
# ````{solution} hrc-dsppo-ex-probability
# :class: dropdown
#
# (a) No. $\sigma(r_i - r_j) - \frac12$ is skew, but it is not a difference $g_i - g_j$ unless
# $\sigma$ is affine on the range of differences: for three items,
# $g_1 - g_3 = (g_1 - g_2) + (g_2 - g_3)$ would require $\sigma(a + b) - \frac12 = (\sigma(a) -
# \frac12) + (\sigma(b) - \frac12)$.
# Experiment 08.1 measured a median cyclic share $\lVert C\rVert_F/\lVert S\rVert_F$ of $0.14$ for
# unit-variance rewards and $n = 12$. (b) For a small spread,
# $\sigma(z) - \frac12 = z/4 - z^3/48 + \dots$ is nearly linear; only the cubic term has a cyclic
# part, so the share vanishes like
# the *square* of the spread (we measured $0.002$ at spread $0.1$ and $0.020$ at $0.3$). For a
# large spread the entries saturate at $\pm\frac12$ and $P - \frac12$ approaches
# $\frac12\,\mathrm{sign}(r_i - r_j)$, the tournament matrix of a total order, whose cyclic share
# does not depend on $r$: $0.527$ for $n = 12$ (a sign matrix is not a potential
# difference). The paper's choice of the logit is what makes BT exactly transitive.
# ````
#
# ````{exercise} The last iterate cycles
# :label: hrc-dsppo-ex-last-iterate
#
# Run `pref.self_play` on rock–paper–scissors scores,
# $S_C = c\,\left(\begin{smallmatrix}0&-1&1\\1&0&-1\\-1&1&0\end{smallmatrix}\right)$ (item $i$
# beats item $i - 1$), $S_T = 0$, with a fixed step $\eta = 0.5$ for $T = 2000$ steps, starting
# from $\pi_1 = (0.5, 0.3, 0.2)$ (`pi0=`), and record the iterates. Plot
# $\mathrm{KL}(\pi^\star \Vert \pi_t)$ for $\pi^\star$ uniform. What do the average and the last
# iterate do? Why does {prf:ref}`hrc-dsppo-thm-dsppo` not help with the latter?
# ````
#
# ````{solution} hrc-dsppo-ex-last-iterate
# :class: dropdown
#
# For continuous-time replicator dynamics $\mathrm{KL}(\pi^\star\Vert\pi_t)$ is conserved (the
# orbits are closed around $\pi^\star$); the discrete multiplicative-weights step makes it grow
# slowly {cite}`bailey2018multiplicative`, so the iterates spiral *outwards* towards the
# boundary of the simplex and cycle
# through "mostly rock", "mostly paper", "mostly scissors" for ever. The average $\bar\pi_t$ still
# approaches the uniform equilibrium, because the theorem bounds its gap through the regret,
# which is a statement about time averages only. Last-iterate convergence needs other
# algorithms (optimistic or extragradient updates, or regularised games such as
# {cite}`munos2024nash`'s mirror-descent variant).
# ````
#
# ````{exercise} How many dimensions does a cycle need?
# :label: hrc-dsppo-ex-dimensions
#
# (a) Prove that every skew-symmetric $n \times n$ matrix is the score matrix of a GPM of
# dimension $2\lceil n/2 \rceil$ (hint: the Schur form of the cross-check). (b) Use
# `pref.fit_tabular` to find the smallest GPM dimension that fits all $\binom{5}{2}$ pairs of the
# "regular" 5-item tournament in which item $i$ beats $i + 1$ and $i + 2$ (mod 5), and compare with
# HRC(2+1). (c) Where in {prf:ref}`hrc-dsppo-thm-gpm-limits` did the dominant response matter?
# ````
#
# ````{solution} hrc-dsppo-ex-dimensions
# :class: dropdown
#
# (a) The real Schur form of a skew matrix is block diagonal with $2\times 2$ blocks $\tau_l
# \left(\begin{smallmatrix}0&1\\-1&0\end{smallmatrix}\right)$ (plus a zero for odd $n$),
# $S = Z\Sigma Z^\top$ with $Z$ orthogonal; setting the embedding of item $i$ in block $l$ to
# $\sqrt{\lvert\tau_l\rvert}\,(\mathrm{sign}(\tau_l) Z_{i,2l+1}, Z_{i,2l})$ gives $v_i^\top R^\succ
# v_j = S_{ij}$ — exactly what the cross-check rebuilds. (b) The regular 5-tournament is
# *rotation-symmetric*: the points $e^{-2\pi\mathrm{i} k/5}$ on one circle give $\sin(2\pi(j -
# i)/5)$-type scores with the right signs for both "beats $i+1$" and "beats $i+2$" (angles $72°$
# and $144°$ are both below $180°$), so GPM(2) already fits all 10 pairs; HRC(2+1) fits them too
# (reward constant). (c) The dominant response is what breaks two dimensions: a cycle alone lives
# happily on one circle; a cycle plus an item that beats all of it needs the cycle inside a
# half-plane, where angles are ordered.
# ````
#
# ````{exercise} A schedule for the cyclic head
# :label: hrc-dsppo-ex-schedule
#
# The paper also tried $\lambda/\sqrt[3]{t}$ and a sinusoidal schedule. (a) Redo the last step of
# the proof of {prf:ref}`hrc-dsppo-thm-dsppo` for $\varepsilon_t = \lvert\lambda\rvert M t^{-p}$, $p
# \in (0, 1)$: which rate does the bound give, and for which $p$ is it still $O(1/\sqrt T)$?
# (b) What does the bound give for a schedule that never converges, e.g. $\varepsilon_t =
# \lvert\lambda\rvert M \lvert\sin t\rvert$?
# ````
#
# ````{solution} hrc-dsppo-ex-schedule
# :class: dropdown
#
# (a) $\sum_{t \le T} t^{-p} \le T^{1-p}/(1-p)$, so the last term is $\lvert\lambda\rvert M
# T^{-p}/(2(1-p))$: the gap is $O(T^{-\min(p, 1/2)})$, and $O(1/\sqrt T)$ exactly when $p \ge
# \frac12$. The cube-root schedule ($p = \frac13$) slows the guarantee to $T^{-1/3}$. (b) The
# average of $\lvert\sin t\rvert$ tends to $2/\pi$, so the bound tends to
# $\lvert\lambda\rvert M/\pi$:
# no convergence to the true game's equilibrium, only to a neighbourhood — the policy
# equilibrates against an averaged, wrong judge.
# ````
#
# ## Summary
#
# - A preference **logit** matrix splits uniquely and orthogonally into a ranking (row means)
#   and pure cycles (zero row sums), exactly as least squares finds it (08.1–08.2).
# - A GPM head is purely cyclic only with zero-mean embeddings; at the paper's own measured mean
#   more than half of its score norm is a ranking (08.3).
# - Two GPM dimensions cannot host a dominant response plus a cycle; HRC(2+1) and GPM(4) can
#   (08.4–08.5); against a fixed cycle embedding only a reward can dominate (08.6–08.7).
# - SPPO and DSPPO are multiplicative weights against a (moving) judge; the average policy's gap
#   under the true preference falls like $1/\sqrt T$ for every $\lambda$ and stays below the
#   explicit bound of {prf:ref}`hrc-dsppo-thm-dsppo` (08.8, 08.10, 08.11); our tighter constant
#   for DSPPO and its distance-to-equilibrium target fail on the worst game (08.9, 08.12).
# - In our synthetic encoder study a reward head lets a 2-D GPM fit dominant + cycle (08.14),
#   but HRC does not find the dominant response before GPM(4) (08.13); the LLM benchmarks
#   are not tested.
