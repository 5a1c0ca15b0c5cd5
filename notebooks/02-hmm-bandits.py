# %% [markdown]
# # 02 · hmm-bandits — Linear contextual bandits driven by a hidden Markov chain
#
# ## Overview
#
# A recommender sees a context $X_t$ (what the user just did), picks one of $K$ actions and
# observes a reward. In many applications both the contexts and the rewards are driven by a
# *latent* regime (the user's mood, the market's state) that evolves slowly and is never observed.
# {cite:t}`nelson2022linearizing` modelled the regime as a finite hidden Markov chain
# and reduced the problem to a linear contextual bandit whose features are the *beliefs*
# $b_t = \mathbb{P}(S_t \mid X_{1:t})$, computed by the HMM forward filter. Their reduction relies
# on a simplification: the reward is linear in the belief, $r_t = \langle \theta_a, b_t\rangle +$
# noise, rather than a function of the hidden state itself.
#
# Li and Stoltz {cite}`li2026direct` (ICML 2026) revisit this model. For the simplified model they
# extend the analysis of the reduction to the estimation of the HMM parameters and give
# high-probability regret bounds that depend on the model only through that estimation. Then they
# study the *natural* model, in which the reward depends directly on the hidden state (and on the
# context). There the rewards themselves carry information about the hidden state, which creates
# statistical dependencies that break the standard self-normalised martingale argument of OFUL
# {cite}`abbasiyadkori2011oful`; their remedy, under a classic HMM *forgetting* condition, is to
# update the reward-model parameters only periodically.
#
# By the end of this chapter you will be able to: write and run a batched HMM simulator, forward
# filter and Baum–Welch estimator in torch (checked against `hmmlearn`); prove that the HMM filter
# forgets its initial law geometrically, with a rate read off the transition matrix; derive the
# OFUL regret of the belief reduction and the extra regret caused by estimated beliefs; explain why
# the natural model needs periodic updates; estimate a finite-context HMM by the method of
# moments (the spectral estimator the paper's analysis uses) and compare it with Baum–Welch. You
# will reproduce, on 64 batched runs of $10^4$ rounds, the $\sqrt T$ regret of the belief learner
# with known HMM, the small but linear extra regret of one whose HMM was estimated once, the
# sublinear regret (over a late window) of one that re-estimates its HMM on a doubling schedule,
# and the linear regret of a learner that ignores the chain; in a regime where the rewards are
# very informative about the hidden state, the bias that every-round updates create and periodic
# updates remove; and the $n^{-1/2}$ decay of the belief error of the spectral estimator. The
# paper's high-probability bounds with online HMM estimation, and its rate for the natural model,
# are beyond this toy (see the limits at the end).
#
# ```{admonition} What is the paper's and what is reconstructed
# :class: warning
#
# The full text of {cite}`li2026direct` was not available to us; this chapter is built from its
# two abstracts (arXiv v1 of April 2026, and the later ICML version, which differ: only the ICML
# abstract mentions periodic updates) and from a machine-generated summary of v1 (the arxivlens
# "quick answers" page). The abstracts establish the two models, the direct reduction with HMM
# estimation for the simplified model, high-probability bounds that depend on the model only
# through the HMM estimation, and, for the natural model, periodic updates under a forgetting
# condition. The machine summary is the *only* source for the finite-context setting with a
# spectral estimator and for the rate $\tilde O(T^{7/8})$; neither is verified, and the rate may
# not be the ICML version's statement. Reconstructed by us: the perturbation lemma and the
# estimated-belief proposition (with their constants), the reward map $\psi$ of the natural
# model, the regret benchmark (a belief oracle that uses the contexts only), the epoch lengths,
# and the spectral algorithm's details. The theorem boxes say which is which.
# ```
#
# ## Setting and notation
#
# We follow the book's notation ({doc}`../notation`); $[m] = \{1, \dots, m\}$ and $\Delta_N$ is the
# simplex of probability vectors on $[N]$.
#
# - **Hidden chain.** $S_1, S_2, \dots \in [N]$ is a Markov chain with initial law $\pi \in
#   \Delta_N$ and transition matrix $P \in \mathbb{R}^{N \times N}$, $P_{ij} = \mathbb{P}(S_{t+1}
#   = j \mid S_t = i)$ (rows sum to one).
# - **Contexts.** Given $S_t = s$, the context $X_t \in \mathbb{R}^p$ is drawn independently from an
#   emission density $g_s$; in this chapter $g_s = \mathcal{N}(\mu_s, \operatorname{diag}(v_s))$.
#   We write $g(x) = (g_1(x), \dots, g_N(x))$ and $\operatorname{diag}(g(x))$ for the diagonal
#   matrix.
# - **Actions and rewards.** At round $t$ the learner sees $X_{1:t}$ (and its past actions and
#   rewards), picks $A_t \in [K]$ and receives the reward $r_t$. The chain and the contexts do not
#   depend on the actions.
# - **Beliefs.** $b_t \in \Delta_N$, $b_t(s) = \mathbb{P}(S_t = s \mid X_{1:t})$; $\hat b_t$ is the
#   same filter run with estimated parameters $(\hat P, \hat\pi, \hat\mu, \hat v)$.
# - **Features.** $e_a \in \mathbb{R}^K$ is the $a$-th basis vector and $\otimes$ the Kronecker
#   product. For a per-step vector $z_t \in \mathbb{R}^m$ the action features are $\phi(z_t, a) =
#   e_a \otimes z_t \in \mathbb{R}^d$, $d = Km$, so that $\langle \theta, \phi(z_t, a)\rangle =
#   \langle \theta_a, z_t\rangle$ for the stacked parameter $\theta = (\theta_1, \dots,
#   \theta_K)$.
# - **Regret.** $\mu_t(a)$ is the mean reward of action $a$ given everything an omniscient but
#   state-blind agent (one that knows all parameters and sees the contexts, but neither $S_t$ nor
#   any reward) would know; the pseudo-regret is
#
#   $$
#   R_T = \sum_{t \le T} \Bigl(\max_a \mu_t(a) - \mu_t(A_t)\Bigr).
#   $$ (hmm-bandits-eq-regret)
#
#   This benchmark is the chapter's choice. The paper's comparator in the natural model is not
#   known to us; note that past rewards carry information about $S_t$, so a reward-aware policy
#   can in principle beat this belief oracle (the regret below can then be negative in places).
# - **Distances.** $\lVert p - q\rVert_{TV} = \tfrac12 \sum_i |p_i - q_i|$ and the Hilbert
#   projective distance $d_H(p, q) = \log \max_i (p_i / q_i) - \log \min_i (p_i / q_i)$ for
#   positive vectors.
#
# ## Theory
#
# ### The filter and its forgetting
#
# ```{prf:definition} Forward filter
# :label: hmm-bandits-def-filter
#
# The belief $b_t$ satisfies the forward recursion
#
# $$
# b_1 = \frac{\operatorname{diag}(g(X_1))\, \pi}{\mathbf{1}^\top \operatorname{diag}(g(X_1))\,\pi},
# \qquad
# b_t = \frac{\operatorname{diag}(g(X_t))\, P^\top b_{t-1}}
#            {\mathbf{1}^\top \operatorname{diag}(g(X_t))\, P^\top b_{t-1}}, \quad t \ge 2,
# $$ (hmm-bandits-eq-filter)
#
# and the normalising constants multiply to the likelihood: $\log p(X_{1:T}) = \sum_{t \le T}
# \log c_t$ with $c_t$ the denominator at step $t$. The prediction step $b \mapsto P^\top b$ moves
# the chain forward; the correction step multiplies by the emission likelihoods $g_s(X_t)$
# and renormalises; for Gaussian emissions
#
# $$
# \log g_s(x) = -\tfrac12 \textstyle\sum_j \bigl[(x_j - \mu_{sj})^2 / v_{sj} + \log(2\pi v_{sj})
# \bigr].
# $$ (hmm-bandits-eq-emission)
# ```
#
# The filter is started from $\pi$, which the learner may not know. *Forgetting* (filter
# stability) says that the initial law stops mattering geometrically fast, uniformly over the
# observations. The cleanest proof uses the Hilbert metric, in which the correction step is an
# isometry.
#
# ```{prf:theorem} Geometric forgetting of the filter
# :label: hmm-bandits-thm-forgetting
#
# Let $P$ have strictly positive entries and let
# $\Delta(P) = \max_{i,j,k,l} \log \frac{P_{ik} P_{jl}}{P_{jk} P_{il}}$ and
# $\tau(P) = \tanh(\Delta(P)/4) < 1$ (Birkhoff's contraction coefficient). Let $b_t$ and $b'_t$
# be the filters {eq}`hmm-bandits-eq-filter` started from two initial laws $\pi, \pi'$ with full support and fed the
# *same* contexts. Then for every context sequence and every $t \ge 1$,
#
# $$
# \begin{aligned}
# d_H(b_t, b'_t) &\le \tau(P)^{\,t-1}\, d_H(b_1, b'_1), \\
# \lVert b_t - b'_t \rVert_{TV} &\le 1 - e^{-d_H(b_t, b'_t)} \le \tau(P)^{\,t-1} d_H(b_1, b'_1).
# \end{aligned}
# $$
# ```
#
# ```{prf:proof}
# Three facts. (i) $d_H$ is invariant under positive scaling of either argument, so
# normalisation does not change it. (ii) A positive diagonal matrix $D$ is an isometry: the ratios
# $(Dp)_i / (Dq)_i = p_i / q_i$ are unchanged. (iii) The Birkhoff–Hopf theorem
# {cite}`birkhoff1957hilbert` ({cite}`cappe2005hmm`, Ch. 4, for its use in HMMs): a matrix $M$
# with positive entries contracts the Hilbert metric, $d_H(Mp, Mq) \le \tanh(\Delta(M)/4)\,
# d_H(p, q)$, and $\Delta(M^\top)
# = \Delta(M)$. One step of {eq}`hmm-bandits-eq-filter` is normalise $\circ \operatorname{diag}(g(X_t)) \circ P^\top$, so
# $d_H(b_t, b'_t) \le \tau(P)\, d_H(b_{t-1}, b'_{t-1})$; iterate. For the total variation, let
# $m = \min_i p_i/q_i \le 1 \le M = \max_i p_i / q_i$ (both vectors sum to one). Then
#
# $$
# \begin{aligned}
# \lVert p - q\rVert_{TV} &= \sum_i q_i (1 - p_i/q_i)^+ \le 1 - m \\
# &\le 1 - m/M = 1 - e^{-d_H(p,q)} \le d_H(p, q).
# \end{aligned}
# $$
# ```
#
# Two other rates are computed from $P$ and appear below: $|\lambda_2(P)|$, the second largest
# eigenvalue modulus (the rate at which the chain alone, without observations, forgets), and
# Dobrushin's coefficient $\delta(P) = \tfrac12 \max_{i,j} \lVert P_{i\cdot} - P_{j\cdot}
# \rVert_1$, which contracts total variation for the prediction step only. The Birkhoff bound is a
# worst case over context sequences, not a statement that observations always help; when the
# contexts carry no information the filter is the chain's own prediction $b \mapsto P^\top b$, and
# near the stationary law its rate is $|\lambda_2(P)|$ (which never exceeds $\tau(P)$). With
# informative contexts we will *measure* a much faster rate (checked below); the theorem does not
# predict it.
#
# ```{prf:lemma} Beliefs from estimated parameters (our reconstruction)
# :label: hmm-bandits-lem-perturbation
#
# Let $\hat b_t$ be the filter run with $(\hat P, \hat g, \hat \pi)$, with $P$ and $\hat P$
# entrywise positive and $\pi, \hat\pi$ of full support, and define the one-step parameter error
# $\varepsilon_t = 2 \max_{i,j} |\log(\hat P_{ij}/P_{ij})| + 2 \max_s |\log(\hat
# g_s(X_t)/g_s(X_t))|$. Then
#
# $$
# \begin{aligned}
# d_H(\hat b_t, b_t) &\le \tau(\hat P)^{t-1} d_H(\hat b_1, b_1) + \sum_{k=2}^{t}
# \tau(\hat P)^{t-k} \varepsilon_k \\
# &\le \tau(\hat P)^{t-1} d_H(\hat b_1, b_1) + \frac{\max_k \varepsilon_k}{1 - \tau(\hat P)}.
# \end{aligned}
# $$
# ```
#
# ```{prf:proof}
# Write $F_t$ and $\hat F_t$ for one step of {eq}`hmm-bandits-eq-filter` with the true and the estimated parameters. By
# the triangle inequality $d_H(\hat F_t \hat b, F_t b) \le d_H(\hat F_t \hat b, \hat F_t b) +
# d_H(\hat F_t b, F_t b)$. The first term is at most $\tau(\hat P) d_H(\hat b, b)$
# ({prf:ref}`hmm-bandits-thm-forgetting`). For the second, $(\hat P^\top b)_j / (P^\top b)_j$ lies
# between $\min_i \hat P_{ij}/P_{ij}$ and $\max_i \hat P_{ij}/P_{ij}$, so $d_H(\hat P^\top b,
# P^\top b) \le 2\max_{ij} |\log \hat P_{ij}/P_{ij}|$, and the diagonal steps differ by at most
# $2 \max_s |\log \hat g_s/g_s|$. Unroll the recursion.
# ```
#
# The lemma is the mechanism by which HMM estimation enters the regret: errors in the parameters
# do not accumulate along the trajectory, because the filter forgets them at rate $\tau(\hat P)$.
# It is our reconstruction of the role filter stability plays in {cite}`li2026direct`; we expect,
# but cannot check, that the paper's own perturbation bound has the same form, an estimation error
# divided by a forgetting gap.
#
# Two caveats on using the lemma. First, with the Gaussian contexts of this chapter the emission
# part of $\varepsilon_t$ is not bounded: $\log(\hat g_s(x)/g_s(x))$ is quadratic in $x$ (affine
# when the variances are equal), so $\max_{k \le t} \varepsilon_k$ grows with $t$ (like
# $\log t$ for Gaussian tails) and "a fixed estimate gives a linear term at rate error$/(1 -
# \hat\tau)$" needs bounded contexts or a truncation argument. With finite contexts (the
# paper's reported setting, {prf:ref}`hmm-bandits-alg-spectral`) $\varepsilon_t$ is bounded by the
# largest log-ratio of emission probabilities and the lemma applies as stated. Second, for our
# persistent chain $\tau(P) = 0.98$, so $1/(1 - \hat\tau) \approx 50$ and the Hilbert-metric
# bound is vacuous in total variation unless $\varepsilon$ is tiny; the forgetting we measure below
# is much faster than the theorem's worst case.
#
# ### The simplified model and its reduction
#
# ```{prf:definition} Simplified (belief-linear) model
# :label: hmm-bandits-def-simplified
#
# Rewards are linear in the belief: $r_t = \langle \theta_{A_t}, b_t\rangle + \eta_t$ with
# $\theta_a \in \mathbb{R}^N$ and $\eta_t$ conditionally $\sigma$-sub-Gaussian given the past and
# $(X_{1:t}, A_t)$. With the features
#
# $$
# \phi_t(a) = e_a \otimes b_t \in \mathbb{R}^{KN}
# $$ (hmm-bandits-eq-simplified)
#
# this *is* a linear contextual bandit with $d = KN$ and mean $\mu_t(a) = \langle \theta,
# \phi_t(a)\rangle$.
# ```
#
# OFUL (optimism in the face of uncertainty for linear bandits) keeps the regularised least-squares
# estimate $\hat\theta_t = V_t^{-1} \sum_{s \le t} r_s \phi_s$, $V_t = \lambda I_d + \sum_{s \le t}
# \phi_s \phi_s^\top$ (with $\phi_s = \phi_s(A_s)$), and plays $A_t = \arg\max_a \langle
# \hat\theta_{t-1}, \phi_t(a)\rangle + \beta_{t-1} \lVert \phi_t(a) \rVert_{V_{t-1}^{-1}}$.
#
# ```{prf:theorem} OFUL regret (Abbasi-Yadkori, Pál and Szepesvári, 2011)
# :label: hmm-bandits-thm-oful
#
# Assume $\lVert\theta\rVert \le S$, $\lVert \phi_t(a)\rVert \le L$, $|\mu_t(a)| \le 1$, and
# conditionally $\sigma$-sub-Gaussian noise. With
#
# $$
# \beta_t(\delta) = \sigma \sqrt{\log\frac{\det V_t}{\det \lambda I_d} + 2\log\frac1\delta} +
# \sqrt{\lambda}\, S,
# $$
#
# with probability at least $1 - \delta$, simultaneously for all $t$, $\lVert \hat\theta_t -
# \theta\rVert_{V_t} \le \beta_t(\delta)$, and (for $\beta_T \ge 1$)
#
# $$
# R_T \le \sqrt{8\, d\, T\, \beta_T(\delta)^2 \log\Bigl(1 + \frac{T L^2}{d \lambda}\Bigr)}
# = \tilde O(d \sqrt T).
# $$
# ```
#
# ```{prf:proof}
# (Sketch; {cite}`abbasiyadkori2011oful`, Thms. 2–3; {cite}`lattimore2020banditalgs`, Thm. 19.2.)
# *Confidence set.* $\hat\theta_t - \theta = V_t^{-1}(\sum_s \phi_s \eta_s - \lambda\theta)$, so
# $\lVert\hat\theta_t - \theta\rVert_{V_t} \le \lVert \sum_s \phi_s\eta_s\rVert_{V_t^{-1}} +
# \sqrt\lambda S$. Because $\eta_s$ is a martingale difference and $\phi_s$ is predictable, the
# self-normalised bound (a method-of-mixtures supermartingale and Ville's inequality) gives
# $\lVert \sum_s \phi_s\eta_s\rVert^2_{V_t^{-1}} \le 2\sigma^2 \log(\det(V_t)^{1/2}
# \det(\lambda I)^{-1/2}/\delta)$ for all $t$ at once. *Optimism.* On that event the instantaneous
# regret is at most $2 \beta_{t-1} \lVert \phi_t(A_t) \rVert_{V_{t-1}^{-1}}$, and at most $2$.
# *Elliptical potential.* $\sum_t \min(1, \lVert \phi_t \rVert^2_{V_{t-1}^{-1}}) \le 2 \log
# (\det V_T / \det \lambda I) \le 2 d \log(1 + TL^2/(d\lambda))$; Cauchy–Schwarz finishes.
# ```
#
# With *estimated* parameters the learner regresses on $\hat\phi_t = e_a \otimes \hat b_t$ while the
# mean is $\langle\theta_a, b_t\rangle$: the model is misspecified by $\xi_t = \langle
# \theta_{A_t}, b_t - \hat b_t\rangle$, $|\xi_t| \le 2 \max_a \lVert\theta_a\rVert_\infty \lVert
# b_t - \hat b_t\rVert_{TV}$.
#
# ```{prf:proposition} Regret with estimated beliefs (our reconstruction)
# :label: hmm-bandits-prop-estimated
#
# Run OFUL on $\hat\phi_t$ with radius $\beta_t(\delta) + \sqrt{\sum_{s \le t} \xi_s^2}$. Assume,
# besides the assumptions of {prf:ref}`hmm-bandits-thm-oful`, that the surrogate means are bounded too,
# $|\langle \theta, \hat\phi_t(a)\rangle| \le 1$ (e.g. $\max_{a,s} |\theta_{as}| \le 1$, since
# $\hat b_t \in \Delta_N$), and that $\beta_T(\delta) \ge 1$. Then with probability $1 - \delta$,
#
# $$
# \begin{aligned}
# R_T &\le 2 \sum_{t \le T} \bar\xi_t + \sqrt{8 d T \Bigl(\beta_T(\delta) +
# \sqrt{\textstyle\sum_{t\le T} \xi_t^2}\Bigr)^2 \log\Bigl(1 + \frac{T L^2}{d\lambda}\Bigr)}, \\
# \bar\xi_t &= \max_a |\langle \theta_a, b_t - \hat b_t\rangle|.
# \end{aligned}
# $$
#
# With $\lVert p - q\rVert_{TV} \le d_H(p, q)$ ({prf:ref}`hmm-bandits-thm-forgetting`) and
# {prf:ref}`hmm-bandits-lem-perturbation`, writing $\hat\tau = \tau(\hat P)$,
#
# $$
# \bar\xi_t \le 2 \max_{a,s} |\theta_{as}| \Bigl(\hat\tau^{\,t-1} d_H(\hat b_1, b_1) +
# \frac{\max_{k \le t} \varepsilon_k}{1 - \hat\tau}\Bigr).
# $$
#
# So with a *fixed* estimate (fitted once) the term $2\sum_t \bar\xi_t$ grows linearly in $T$, at
# a rate proportional to the HMM estimation error divided by the forgetting gap $1 - \hat\tau$.
# *Heuristically*, if the estimate is refreshed on a doubling schedule and the recent per-step
# errors $\varepsilon_k$ decay like $k^{-1/2}$, then $\sum_t \bar\xi_t = O(\sqrt T / (1 -
# \hat\tau))$ and $\lVert \xi\rVert = O(\sqrt{\log T} / (1 - \hat\tau))$, and the bound becomes
# $\tilde O(d\sqrt T + \sqrt{dT}/(1 - \hat\tau))$; making this rigorous needs a high-probability
# rate for the estimator, which we do not prove.
# ```
#
# ```{prf:proof}
# Now $\hat\theta_t - \theta = V_t^{-1}(\sum_s \hat\phi_s (\eta_s + \xi_s) - \lambda\theta)$. The
# new term obeys $\lVert \sum_s \hat\phi_s \xi_s\rVert_{V_t^{-1}} = \lVert V_t^{-1/2}
# \hat\Phi^\top \xi\rVert \le \lVert \xi\rVert$, because $\hat\Phi V_t^{-1} \hat\Phi^\top
# \preceq I$ for the design matrix $\hat\Phi$ (rows $\hat\phi_s$). So the enlarged ellipsoid
# contains $\theta$, optimism holds for the *surrogate* means $\langle\theta, \hat\phi_t(a)
# \rangle$, and the proof of {prf:ref}`hmm-bandits-thm-oful` bounds their regret. The surrogate and the
# true means differ by at most $\bar\xi_t$ for every action, which costs $2\bar\xi_t$ per round.
# ```
#
# This proposition is our reconstruction, in the spirit of {cite}`li2026direct`: the paper states
# high-probability bounds for this reduction that do not depend on the reward functions and depend
# on the model only through the HMM estimation error; we did not have access to its exact
# constants. {cite:t}`nelson2022linearizing` gave only expected, gap-dependent bounds
# and ignored the estimation error in the analysis.
#
# ### The natural model and periodic updates
#
# ```{prf:definition} Natural model
# :label: hmm-bandits-def-natural
#
# Rewards depend on the hidden state and the context: $r_t = \langle \theta_{A_t}, \psi(S_t, X_t)
# \rangle + \eta_t$ with $\psi(s, x) = e_s \otimes (x, 1) \in \mathbb{R}^{N(p+1)}$ (this
# reward map is our modelling choice: the paper's abstract says only that the reward depends
# directly on the hidden state and on the context). The mean given the contexts is linear in the
# *expected* feature
#
# $$
# \mu_t(a) = \langle \theta_a, \varphi_t\rangle, \qquad \varphi_t = \mathbb{E}[\psi(S_t, X_t)
# \mid X_{1:t}] = b_t \otimes (X_t, 1).
# $$ (hmm-bandits-eq-natural)
# ```
#
# So one could run OFUL on $\phi_t(a) = e_a \otimes \varphi_t$. The trouble is the noise
# $\zeta_t = \langle \theta_{A_t}, \psi(S_t, X_t) - \varphi_t\rangle + \eta_t$. The learner's
# filtration is $\mathcal G_t = \sigma(X_{1:t}, A_{1:t}, r_{1:t-1})$, and the *past rewards are
# informative about the hidden states*: $r_{t-1}$ depends on $S_{t-1}$, which predicts $S_t$. Hence
# $\mathbb{E}[\zeta_t \mid \mathcal G_t] = \langle \theta_{A_t}, \mathbb{E}[\psi(S_t, X_t) \mid
# \mathcal G_t] - \varphi_t\rangle \ne 0$ in general, and $\zeta_t$ is not a martingale difference
# for the filtration to which the features and actions are adapted. The self-normalised bound in
# the proof of {prf:ref}`hmm-bandits-thm-oful` fails at its first line. Worse, $A_t$ is chosen from
# $\hat\theta_{t-1}$, a function of the very rewards that bias $\zeta_t$: a selection effect.
#
# ```{prf:algorithm} Periodic-update OFUL
# :label: hmm-bandits-alg-periodic
#
# **Input** epoch starts $1 = t_1 < t_2 < \dots$ (a fixed period $t_{k+1} - t_k = L$, or
# growing epochs such as $t_{k+1} - t_k \propto t_k$ when the horizon is unknown), $\lambda,
# \delta, \sigma, S$.
#
# 1. At the start of epoch $k$ (round $t_k$): compute $\hat\theta_{t_k - 1}$, $V_{t_k - 1}$ and
#    $\beta_{t_k - 1}$ from all data so far, and **freeze** them.
# 2. For $t_k \le t < t_{k+1}$: play $A_t = \arg\max_a \langle \hat\theta_{t_k-1}, \phi_t(a)\rangle +
#    \beta_{t_k - 1} \lVert\phi_t(a)\rVert_{V_{t_k-1}^{-1}}$; record $(\phi_t(A_t), r_t)$.
# ```
#
# The schedule is ours to choose: the paper's epoch lengths are not known to us. Why this helps,
# heuristically (our reading, not a proof): within an epoch the actions are
# functions of the contexts and of data that ended at $t_k - 1$. Under the forgetting condition the
# conditional law of $S_t$ given $\mathcal G_{t_k}$ and $X_{1:t}$ approaches $b_t$ geometrically in
# $t - t_k$, so the bias of $\zeta_t$ and the selection effect are confined to $O(1/(1-\rho))$
# rounds after each epoch start (with $\rho$ a forgetting rate), and the remaining dependence
# between rewards decays fast enough for concentration of $\sum_t \phi_t \zeta_t$ (with a
# variance inflated by the forgetting time). With growing epochs there are only $O(\log T)$
# epoch starts, so the rounds exposed to the bias are a vanishing fraction; with a fixed period
# $L$ they are a fixed fraction of order $1/((1 - \rho) L)$.
#
# ```{prf:theorem} Regret of the periodic-update algorithm (reported, not verified by us)
# :label: hmm-bandits-thm-natural
#
# Under the HMM forgetting condition (and, for the estimation step, finite contexts with a
# full-rank emission matrix and an invertible transition matrix, estimated by a spectral method),
# the fully adaptive periodic-update strategy of {cite}`li2026direct` has, with high probability,
# sublinear regret in the natural model, with constants that depend on the model only through the
# HMM estimation. The rate $\tilde O(T^{7/8})$ comes from a machine-generated summary of the
# paper's arXiv v1 (the arxivlens page), whose abstract does not even mention periodic updates;
# the exponent, its conditions, its constants and whether it applies to the ICML version are
# unverified, so read it as indicative (we use it only as a threshold for late regret increments
# in claim 02.6). That with *known* HMM parameters the same epoch analysis should give $\tilde
# O(\sqrt T)$ up to epoch and forgetting terms is our expectation, not a result we can attribute
# to the paper.
# ```
#
# ```{prf:proof}
# (Structure only, not a proof.) The paper's full proof is not reproduced here; what follows is a
# reconstruction of how such a proof is organised, and no step below is carried out. (1)
# *Decomposition*: regret = regret of the idealised learner that knows the HMM + the cost of
# estimated beliefs ({prf:ref}`hmm-bandits-lem-perturbation`). (2) *Epochs*: within epoch $k$ the frozen
# parameters make the actions $\mathcal G_{t_k} \vee \sigma(X_{1:t})$-measurable; discarding (or
# paying for) the first $O(\log T / (1 - \rho))$ rounds after each epoch start removes the bias of
# $\zeta_t$ up to $T^{-1}$. (3) *Concentration*: the sums $\sum_t \phi_t \zeta_t$ over the remaining
# rounds concentrate as in the self-normalised bound, with a variance proxy multiplied by the
# forgetting time. (4) *Trade-off*: longer epochs cost more regret from frozen parameters, shorter
# ones more bias; the estimation error of the spectral method enters through (1). Optimising the
# epoch lengths and the estimation schedule gives a
# sublinear exponent; we have not derived $7/8$ ourselves.
# ```
#
# ### Finite contexts and spectral estimation
#
# The paper's estimation step (as reported, see the admonition above) assumes finitely many
# contexts, $X_t \in [d]$ with $\mathbb{P}(X_t = x \mid S_t = s) = B_{sx}$, an emission matrix
# $B \in \mathbb{R}^{N \times d}$ of rank $N$ and an invertible $P$, and estimates the HMM by a
# spectral method. Here is the method of moments of Anandkumar, Hsu and Kakade
# {cite}`anandkumar2012mom` (in the line of Hsu, Kakade and Zhang {cite}`hsu2012spectral`),
# specialised to this model. Write $M_1 = \mathbb{E}[e_{X_{t-1}} \mid S_t]$ and $M_3 =
# \mathbb{E}[e_{X_{t+1}} \mid S_t]$ (both $d \times N$, of rank $N$ when $B$ has rank $N$ and $P$
# is invertible), $w$ the stationary law, and for a stationary chain the moments
#
# $$
# \begin{aligned}
# P_{12} &= \mathbb{E}[e_{X_t} e_{X_{t+1}}^\top] = B^\top \operatorname{diag}(w) P B, \\
# P_{13} &= \mathbb{E}[e_{X_{t-1}} e_{X_{t+1}}^\top] = M_1 \operatorname{diag}(w) M_3^\top, \\
# P_{13}(y) &= \mathbb{E}[e_{X_{t-1}} e_{X_{t+1}}^\top \mathbb{1}[X_t = y]] = M_1
# \operatorname{diag}(w) \operatorname{diag}(B_{\cdot y}) M_3^\top.
# \end{aligned}
# $$ (hmm-bandits-eq-moments)
#
# The middle context $X_t$ is independent of $X_{t-1}$ and $X_{t+1}$ given $S_t$, which gives the
# last factorisation.
#
# ```{prf:algorithm} Spectral HMM estimation
# :label: hmm-bandits-alg-spectral
#
# **Input** contexts $X_{1:n}$, number of states $N$.
#
# 1. Estimate the moments {eq}`hmm-bandits-eq-moments` by empirical averages over $t$.
# 2. Let $U_1, U_3$ be the top-$N$ left and right singular vectors of $\hat P_{13}$ and
#    $\hat M(y) = (U_1^\top \hat P_{13}(y) U_3)(U_1^\top \hat P_{13} U_3)^{-1}$ for each symbol $y$.
# 3. Diagonalise one random combination $\sum_y \eta_y \hat M(y) = R \Lambda R^{-1}$, and read
#    $\hat B_{sy} = (R^{-1} \hat M(y) R)_{ss}$ for every $y$.
# 4. Joint law of two consecutive states: $\hat J = (\hat B^\top)^{+\top} \hat P_{12} (\hat
#    B^\top)^{+}$; $\hat P$ is its row-normalisation and $\hat\pi$ its row sums. Floor negative
#    entries and renormalise.
# ```
#
# ```{prf:proposition} Exactness on exact moments
# :label: hmm-bandits-prop-spectral
#
# If $B$ has rank $N$, $P$ is invertible and $w > 0$, the algorithm applied to the population
# moments returns $(P, w, B)$ up to a relabelling of the states. With empirical moments from $n$
# contexts, the moment errors are $O_{\mathbb P}(n^{-1/2})$, and so are the parameter errors (the
# steps are smooth maps near the population moments when the eigenvalues $\sum_y \eta_y B_{sy}$
# are distinct); by {prf:ref}`hmm-bandits-lem-perturbation` the belief error is then $O(n^{-1/2})$ too.
# ```
#
# ```{prf:proof}
# From {eq}`hmm-bandits-eq-moments`, $U_1^\top P_{13}(y) U_3 = (U_1^\top M_1) \operatorname{diag}(w)
# \operatorname{diag}(B_{\cdot y}) (M_3^\top U_3)$ and $U_1^\top P_{13} U_3 = (U_1^\top M_1)
# \operatorname{diag}(w) (M_3^\top U_3)$, both products of invertible $N \times N$ matrices
# (the singular vectors span the ranges of $M_1$ and $M_3$). Hence $M(y) = (U_1^\top M_1)
# \operatorname{diag}(B_{\cdot y}) (U_1^\top M_1)^{-1}$: all $M(y)$ share the eigenvectors
# $U_1^\top M_1$, and a combination with distinct eigenvalues identifies them (up to order and
# scale, which cancel in $R^{-1} M(y) R$). Then $B^{\top +}$ is a left inverse of $B^\top$, so
# $(B^{\top})^{+\top} P_{12} (B^\top)^{+} = \operatorname{diag}(w) P$, whose rows sum to $w$. The
# rate: each step is a differentiable function of the moments at the population point (an SVD
# with a gap, an inverse, a simple eigen-decomposition), so the delta method carries the
# $n^{-1/2}$ rate of the empirical moments of a geometrically mixing chain to the estimates;
# the constants, which grow as the singular values of $P_{13}$ and the eigenvalue gaps shrink, are
# not tracked here.
# ```

# %% tags=["hide-input"]
import math
import time

import matplotlib.pyplot as plt
import matplotlib.ticker
import numpy as np
import torch
from hmmlearn.hmm import CategoricalHMM, GaussianHMM

import icml26
from icml26.sequential import bandits, categorical, hmm

SEED = 2026
rng = icml26.seed_everything(SEED)
icml26.plotting.use_book_style()
DEVICE = icml26.device()
torch.set_num_threads(
    1
)  # many tiny tensor ops per step: one thread avoids sync overhead
DT = torch.float64


def below(err: float, floor: float = 1e-8) -> str:
    """Rounding-level errors differ across machines.

    Print them as a bound, larger ones as is.
    """
    return f"< {floor:.0e}" if err < floor else f"{err:.1e}"


# %% tags=["parameters", "hide-input"]
RUNS = icml26.pick(ci=64, paper=256)  # independent runs, batched
GROUPS = 8  # seeds of a claim: disjoint groups of runs, each with its own draws
T = icml26.pick(ci=10_000, paper=50_000)  # rounds per run
T_NAT = icml26.pick(ci=6_000, paper=50_000)  # rounds per run in the natural model
RUNS_NAT = icml26.pick(ci=96, paper=256)  # runs per schedule in the natural model
T_WARM = icml26.pick(
    ci=1_000, paper=2_000
)  # warm-up rounds before Baum–Welch (estimated HMM)
BW_ITERS = icml26.pick(ci=10, paper=40)  # Baum–Welch iterations
REFIT_ITERS = icml26.pick(
    ci=3, paper=10
)  # warm-started EM iterations per re-estimation
PERIOD = icml26.pick(
    ci=50, paper=50
)  # (first) epoch length of the periodic-update algorithm
EPOCH_GROWTH = 1.3  # growing epochs: epoch k ends at PERIOD * EPOCH_GROWTH^k
SPEC_SIZES = icml26.pick(
    ci=[500, 1_000, 2_000, 4_000, 8_000, 16_000], paper=[500 * 2**i for i in range(9)]
)
BW_SPEC_SIZES = icml26.pick(
    ci=[500, 2_000, 8_000], paper=[500 * 2**i for i in range(7)]
)
RUNS_SPEC = icml26.pick(ci=32, paper=128)  # independent sequences per sample size
BW_SPEC_ITERS = icml26.pick(
    ci=8, paper=30
)  # Baum-Welch iterations after the spectral start
T_MIN = icml26.pick(ci=100, paper=100)  # first round of the log-log slope fits
FORGET_RUNS = icml26.pick(ci=64, paper=256)  # runs of the forgetting experiment
FORGET_T = icml26.pick(ci=40, paper=40)  # steps of the forgetting experiment
XCHECK_T = icml26.pick(
    ci=1_000, paper=5_000
)  # length of the hmmlearn cross-check sequence
BW_XCHECK_ITERS = icml26.pick(
    ci=25, paper=100
)  # Baum-Welch iterations in the cross-check
N_STATES, N_ACTIONS, P_DIM = 3, 3, 2  # hidden states, actions, context dimension
STAY = 0.98  # P(S_{t+1} = S_t): a persistent chain
CONTEXT_SD = (
    1.5  # emission standard deviation (state means are 1 apart from the origin)
)
REWARD_SD = 0.7  # reward noise of the simplified model
NATURAL_SD = 0.05  # reward noise of the natural model (informative rewards)
STATE_EFFECT = 2.0  # c_as = STATE_EFFECT * 1[a = s] in the natural model
STAY_INF = 0.995  # natural model: a slowly mixing chain
CONTEXT_SD_INF = 4.0  # natural model: weakly informative contexts
STAY_SPEC = 0.9  # finite-context chain
EMISSION_SPEC = [
    [0.6, 0.2, 0.1, 0.1],
    [0.1, 0.6, 0.2, 0.1],
    [0.1, 0.1, 0.2, 0.6],
]  # B[s, x]
EMISSION_SPEC_D = 4  # number of symbols d

# %% [markdown]
# The model at a glance: a hidden Markov chain emits the contexts; the learner never sees the
# state, filters the contexts into a belief, and plays OFUL on belief features.

# %% tags=["hide-input"] mystnb={"figure": {"caption": "The setting: the hidden state $S_t$ follows the chain $P$ and emits the context $X_t$; the learner filters $X_{1:t}$ into the belief $b_t$, chooses $A_t$ by OFUL on features of $b_t$, and receives a reward that depends on the hidden state.", "name": "02-fig-model"}}
fig, ax = plt.subplots(figsize=(7.2, 3.2))
icml26.plotting.diagram(
    ax,
    {
        "s0": (0.1, 0.8, "$S_{t-1}$"),
        "s1": (0.42, 0.8, "$S_t$"),
        "s2": (0.74, 0.8, "$S_{t+1}$"),
        "x": (0.42, 0.5, "context $X_t$"),
        "b": (0.12, 0.15, "belief $b_t$ (filter)"),
        "a": (0.5, 0.15, "action $A_t$ (OFUL)"),
        "r": (0.88, 0.15, "reward $r_t$"),
    },
    [
        ("s0", "s1", "$P$"),
        ("s1", "s2", "$P$"),
        ("s1", "x", ""),
        ("x", "b", "filter"),
        ("b", "a", "features"),
        ("a", "r", ""),
        ("s1", "r", "hidden"),
    ],
    colors={"s0": 1, "s1": 1, "s2": 1, "x": 0, "b": 2, "a": 2, "r": 0},
)
ax.set_title(
    "Hidden states (orange), what the learner sees (blue), what it computes (green)"
)
plt.show()


# %% [markdown]
# ## Implementation
#
# The environment: $N = 3$ states that persist ($P_{ii} = 0.98$, so a state lasts 50 rounds on
# average), Gaussian contexts in $\mathbb{R}^2$ centred on the vertices of a triangle with a large
# standard deviation, so that one context says little about the state but a run of contexts says
# a lot. That is exactly the regime in which a learner must filter.

# %%
P_true = torch.full((N_STATES, N_STATES), (1 - STAY) / (N_STATES - 1), dtype=DT)
P_true.fill_diagonal_(STAY)
pi_true = torch.full((N_STATES,), 1 / N_STATES, dtype=DT)
angles = torch.tensor([90.0, -30.0, 210.0], dtype=DT) * math.pi / 180
mu_true = torch.stack(
    [angles.cos(), angles.sin()], -1
)  # (N, p), unit distance from the origin
var_true = torch.full((N_STATES, P_DIM), CONTEXT_SD**2, dtype=DT)
to_dev = {"device": DEVICE, "dtype": DT}
P_d, pi_d, mu_d, var_d = (x.to(DEVICE) for x in (P_true, pi_true, mu_true, var_true))
print("P =", P_true.numpy().round(3).tolist())
print(
    f"tau(P) = {hmm.birkhoff_coefficient(P_true):.3f}, "
    f"|lambda_2(P)| = {hmm.second_eigenvalue_modulus(P_true):.3f}, "
    f"Dobrushin delta(P) = {hmm.dobrushin_coefficient(P_true):.3f}"
)

# %% [markdown]
# The reference implementation: the forward filter {eq}`hmm-bandits-eq-filter` for *one* run, written as a loop over time
# in numpy, exactly as on paper. The kernel `icml26.sequential.hmm.forward_filter` does the same
# for all runs
# at once (one batched matrix product per step), in normalised or in log space.


# %% tags=["reference"]
def reference_filter(x, P, pi, means, var):
    """The forward filter for one run, one time step at a time.

    Returns the beliefs (T, N) and the log-likelihood.
    """
    T_, N_ = x.shape[0], P.shape[0]
    beliefs, loglik = np.zeros((T_, N_)), 0.0
    b = pi
    for t in range(T_):
        log_g = -0.5 * (
            ((x[t] - means) ** 2 / var).sum(1) + np.log(2 * np.pi * var).sum(1)
        )
        pred = b if t == 0 else P.T @ b  # prediction step
        a = pred * np.exp(
            log_g - log_g.max()
        )  # correction step (rescaled for stability)
        loglik += np.log(a.sum()) + log_g.max()
        b = a / a.sum()
        beliefs[t] = b
    return beliefs, loglik


gen = torch.Generator().manual_seed(SEED)
S_chk, X_chk = hmm.simulate(P_d, pi_d, mu_d, var_d, 3, 500, generator=gen)
log_obs = hmm.gaussian_loglik(X_chk, mu_d, var_d)
b_k, ll_k = hmm.forward_filter(log_obs, P_d, pi_d)
b_log, ll_log = hmm.forward_filter(log_obs, P_d, pi_d, log_space=True)
args = [a.numpy() for a in (P_true, pi_true, mu_true, var_true)]
b_ref, ll_ref = reference_filter(X_chk[1].cpu().numpy(), *args)
err_b = float(np.abs(b_k[1].cpu().numpy() - b_ref).max())
err_ll = abs(float(ll_k[1]) - ll_ref)
err_log = float((b_k - b_log).abs().max())
assert err_b < 1e-10 and err_ll < 1e-8 and err_log < 1e-10
print(
    f"kernel vs reference: beliefs {below(err_b)}, log-likelihood {below(err_ll)}; "
    f"log space vs normalised {below(err_log)}"
)

# %% [markdown]
# The batched simulator draws the state paths by inverse-CDF sampling (one gather and one
# comparison per step for all runs), then all contexts in one vectorised draw. Simulating and
# filtering $R = 64$ runs of $T = 10^4$ steps is a few thousand small tensor operations; the same
# work with a loop over runs in Python is far slower (see the benchmark in
# `benchmarks/bench_02_hmm_bandits.py`; here we time the reference on a tenth of one run and
# extrapolate).

# %% tags=["nbval-ignore-output"]
t0 = time.perf_counter()
gen = torch.Generator().manual_seed(SEED + 1)
S, X = hmm.simulate(P_d, pi_d, mu_d, var_d, RUNS, T, generator=gen)
beliefs, loglik = hmm.forward_filter(hmm.gaussian_loglik(X, mu_d, var_d), P_d, pi_d)
t_kernel = time.perf_counter() - t0
t0 = time.perf_counter()
reference_filter(
    X[0, : T // 10].cpu().numpy(), *args
)  # a tenth of one run, extrapolated
t_ref = (time.perf_counter() - t0) * RUNS * 10
print(f"batched simulate + filter, {RUNS} x {T}: took {t_kernel:.2f} s")
print(
    f"per-run reference filter alone (extrapolated to {RUNS} x {T}): took {t_ref:.2f} s"
)

# %% [markdown]
# Two learners need the HMM: with known parameters the beliefs are `beliefs` above; with
# estimated parameters, the learner plays uniformly at random for the first `T_WARM` rounds,
# fits the HMM on the contexts seen so far by batched Baum–Welch
# (`icml26.sequential.hmm.baum_welch`, one
# model per run, started from a k-means initialisation), and from then on filters with its
# estimates. The warm-up rounds are fed to LinUCB with the estimated beliefs, which the learner
# can compute retroactively at round `T_WARM`. Baum–Welch recovers the states only up to a
# relabelling, which LinUCB does not care about; to *inspect* the estimates we align them with
# `align_states`.
#
# A third learner *re-estimates*: at the epoch starts $t_k = 1000, 2000, 4000, 8000$ (a doubling
# schedule, `icml26.sequential.hmm.doubling_epochs`) it refits the HMM on all contexts seen so far
# by
# Baum–Welch warm-started from its previous estimate, with only `REFIT_ITERS` = 3 EM iterations,
# batched over runs (`icml26.sequential.hmm.epoch_beliefs`). The contexts are emitted by the chain
# whatever
# the actions, so the estimate does not depend on the policy. Each new estimate is relabelled to
# match the previous one (a label switch would scramble LinUCB's statistics), and on $[t_k,
# t_{k+1})$ the filter *continues* from $\hat b_{t_k - 1}$ with the new parameters rather than
# being re-run over the past: by {prf:ref}`hmm-bandits-thm-forgetting` the two filters differ only for
# the few rounds it takes to forget the initial law, and the cost is one pass over $T$ instead of
# one per epoch. Past features are not rewritten (LinUCB keeps its statistics), so round $t$ uses
# only contexts up to $t$.

# %%
x_warm = X[:, :T_WARM]
P0 = torch.full((N_STATES, N_STATES), 0.1 / (N_STATES - 1), **to_dev)
P0.fill_diagonal_(0.9)
mu0 = hmm.kmeans_init(x_warm, N_STATES)
var0 = x_warm.var(1, keepdim=True).expand(-1, N_STATES, -1).contiguous()
P_hat, pi_hat, mu_hat, var_hat, trace = hmm.baum_welch(
    x_warm, P0, pi_d, mu0, var0, n_iter=BW_ITERS, var_floor=1e-3
)
assert bool((trace.diff(dim=1) > -1e-8).all()), "EM must not decrease the likelihood"
beliefs_hat, _ = hmm.forward_filter(
    hmm.gaussian_loglik(X, mu_hat, var_hat), P_hat, pi_hat
)
EPOCHS = hmm.doubling_epochs(T_WARM, T)  # re-estimation rounds 1000, 2000, 4000, 8000
beliefs_re, fits_re = hmm.epoch_beliefs(
    X,
    EPOCHS,
    P_hat,
    pi_hat,
    mu_hat,
    var_hat,
    n_iter_first=0,
    n_iter=REFIT_ITERS,
    var_floor=1e-3,
)  # the first epoch uses the fit above; refits warm-started from the previous estimate
perm = hmm.align_states(mu_hat, mu_d)
P_al, _, mu_al, _ = hmm.permute_hmm(perm, P_hat, pi_hat, mu_hat, var_hat)
rows = torch.arange(RUNS, device=DEVICE)
beliefs_al = beliefs_hat[
    rows[:, None, None], torch.arange(T)[None, :, None], perm[:, None, :]
]
mean_err = (mu_al - mu_d).norm(dim=-1).amax(-1)
tv_err = hmm.tv_distance(beliefs_al, beliefs)[:, T_WARM:].mean(1)
print(
    f"Baum-Welch on {T_WARM} contexts, median over runs: max |mu_hat - mu| = "
    f"{mean_err.median():.2f}, |P_hat - P|_max = "
    f"{(P_al - P_d).abs().amax((1, 2)).median():.3f}"
)
print(
    f"mean TV(b_hat, b) after warm-up: median {tv_err.median():.2f}, "
    f"90% quantile {tv_err.quantile(0.9):.2f}"
)
perm_re = hmm.align_states(fits_re[-1][2], mu_d)
beliefs_re_al = beliefs_re[
    rows[:, None, None], torch.arange(T)[None, :, None], perm_re[:, None, :]
]
mean_err_re = [
    float((hmm.permute_hmm(perm_re, *f)[2] - mu_d).norm(dim=-1).amax(-1).median())
    for f in fits_re
]
print(
    "re-estimated at t = "
    + ", ".join(f"{t_k}: {e:.2f}" for t_k, e in zip(EPOCHS, mean_err_re, strict=True))
    + " (median max |mu_hat - mu|)"
)
print(
    f"state accuracy of argmax b_t: {(beliefs.argmax(-1) == S).double().mean():.2f}; "
    f"of the single-context posterior: "
    f"{(hmm.gaussian_loglik(X, mu_d, var_d).argmax(-1) == S).double().mean():.2f}"
)

# %% [markdown]
# What the filter does, on one run after the warm-up: for each state $s$, the true state in the
# background, the belief $b_t(s)$ with known and with estimated parameters, and the posterior
# from the current context alone.

# %% tags=["hide-input"] mystnb={"figure": {"caption": "The forward filter tracks the persistent hidden state; one context on its own does not.", "name": "02-fig-filter"}}
run, window = 0, slice(T_WARM, T_WARM + 600)
tt = np.arange(T)[window]
fig, axes = plt.subplots(N_STATES, 1, figsize=(7.0, 5.2), sharex=True)
ctx_post = torch.softmax(hmm.gaussian_loglik(X, mu_d, var_d), -1)
for s, ax in enumerate(axes):
    ax.fill_between(
        tt,
        0,
        (S[run, window] == s).cpu().numpy(),
        step="mid",
        color="0.85",
        label="true state = s",
    )
    ax.plot(
        tt,
        ctx_post[run, window, s].cpu(),
        color=icml26.plotting.color(5),
        lw=0.6,
        alpha=0.8,
        label="one-context posterior",
    )
    ax.plot(
        tt,
        beliefs[run, window, s].cpu(),
        color=icml26.plotting.color(0),
        label="belief, known HMM",
    )
    ax.plot(
        tt,
        beliefs_al[run, window, s].cpu(),
        color=icml26.plotting.color(1),
        ls="--",
        label="belief, Baum-Welch HMM",
    )
    ax.set_ylabel(f"P(S_t = {s + 1})")
    ax.set_ylim(-0.02, 1.02)
handles, labels = axes[0].get_legend_handles_labels()
fig.legend(handles, labels, loc="outside lower center", ncol=4, fontsize=8)
axes[-1].set_xlabel("round t")
axes[0].set_title(
    "Filtering tracks the persistent hidden state; one context alone does not"
)
plt.show()

# %% [markdown]
# ## Experiments
#
# ### The filter forgets its initial law geometrically
#
# {prf:ref}`hmm-bandits-thm-forgetting` predicts that two filters fed the same contexts but started from
# different initial laws approach each other at least as fast as $\tau(P)^{t-1}$, for *every*
# context sequence. We start filters from $\pi = (0.98, 0.01, 0.01)$ and $\pi' = (0.01, 0.01,
# 0.98)$ on the contexts of our chain, fit the geometric rate $\hat\rho$ of the mean log Hilbert
# distance, and compare with $\tau(P)$ and $|\lambda_2(P)|$. We repeat with nearly uninformative
# contexts (standard deviation 20): the filter is then almost the chain's own prediction and
# forgets at about $|\lambda_2(P)|$.

# %%
pi_a = torch.tensor([0.98, 0.01, 0.01], **to_dev)
pi_b = torch.tensor([0.01, 0.01, 0.98], **to_dev)
forget = {}
for name, sd in [("informative", CONTEXT_SD), ("uninformative", 20.0)]:
    var_f = torch.full((N_STATES, P_DIM), sd**2, **to_dev)
    gen = torch.Generator().manual_seed(SEED + 2)
    _, X_f = hmm.simulate(P_d, pi_d, mu_d, var_f, FORGET_RUNS, FORGET_T, generator=gen)
    lo_f = hmm.gaussian_loglik(X_f, mu_d, var_f)
    d_hilbert = hmm.hilbert_distance(
        hmm.forward_filter(lo_f, P_d, pi_a)[0], hmm.forward_filter(lo_f, P_d, pi_b)[0]
    )
    forget[name] = d_hilbert
tau = hmm.birkhoff_coefficient(P_true)
lam2 = hmm.second_eigenvalue_modulus(P_true)
rho_inf = hmm.fit_contraction_rate(forget["informative"], t_min=1, t_max=20)
rho_un = hmm.fit_contraction_rate(forget["uninformative"], t_min=1)
d0 = forget["informative"][:, :1]
steps_f = torch.arange(FORGET_T, device=DEVICE, dtype=DT)
ratio_bound = float(
    (forget["informative"] / (d0 * tau**steps_f))[:, 1:].amax()
)  # t >= 2
print(
    f"fitted rate: informative contexts {rho_inf:.2f}, uninformative {rho_un:.3f}; "
    f"tau(P) = {tau:.3f}, |lambda_2(P)| = {lam2:.3f}"
)

# %% tags=["hide-input"] mystnb={"figure": {"caption": "Two filters started from different initial laws forget them geometrically, faster with informative contexts (the Birkhoff check).", "name": "02-fig-forget"}}
fig, ax = plt.subplots()
for i, (name, d) in enumerate(forget.items()):
    q = torch.quantile(d, torch.tensor([0.1, 0.5, 0.9], **to_dev), dim=0).cpu()
    ax.semilogy(
        np.arange(1, FORGET_T + 1),
        q[1],
        color=icml26.plotting.color(i),
        label=f"{name} contexts (median, 10-90%)",
    )
    ax.fill_between(
        np.arange(1, FORGET_T + 1),
        q[0],
        q[2],
        color=icml26.plotting.color(i),
        alpha=0.2,
    )
t_ax = np.arange(1, FORGET_T + 1)
d0_med = float(forget["informative"][:, 0].median())
ax.semilogy(
    t_ax,
    d0_med * tau ** (t_ax - 1),
    "k--",
    lw=1,
    label=r"Birkhoff bound $\tau(P)^{t-1}$",
)
ax.semilogy(
    t_ax, d0_med * lam2 ** (t_ax - 1), "k:", lw=1, label=r"$|\lambda_2(P)|^{t-1}$"
)
ax.set_xlabel("step t")
ax.set_ylabel(r"Hilbert distance $d_H(b_t, b'_t)$ (nats)")
ax.set_ylim(1e-14, 50)
ax.set_title("Two filters forget their initial laws; informative contexts speed it up")
ax.legend(fontsize=8)
plt.show()

# %%
# Birkhoff's contraction, checked on the runs above (an implementation check of the
# filter)
print(f"fitted forgetting rate {rho_inf:.2f} ≤ τ(P) = {tau:.3f}")
print(
    "worst pathwise ratio d_H(b_t, b'_t) / (τ(P)^(t-1) d_H(b_1, b'_1)): "
    f"{ratio_bound:.2f}"
)
assert rho_inf <= tau, (
    "the filter forgets more slowly than Birkhoff's coefficient allows"
)
assert ratio_bound <= 1.0 + 1e-9, (
    "a pathwise Hilbert distance exceeds τ(P)^(t-1) d_H(b_1, b'_1)"
)

# %% [markdown]
# The uninformative case forgets at a fitted rate close to $|\lambda_2(P)| = 0.97$, the
# informative one several times faster in log scale. The Birkhoff coefficient is a worst case
# over context sequences and is not attained here: even nearly uninformative contexts only bring
# the rate down to about $|\lambda_2(P)| < \tau(P)$.
#
# ### 02.1–02.2 · Belief-LinUCB has $\sqrt T$ regret; a once-estimated HMM adds a small linear term
#
# The simplified model with $\theta_a = e_a$: the mean reward of action $a$ is $b_t(a)$, the
# probability that the hidden state is $a$ ("recommend the item that fits the user's current
# regime"), plus Gaussian noise of standard deviation 0.7. Four learners run OFUL
# (`icml26.sequential.bandits.run_linucb`, $\lambda = 1$, $\delta = 0.05$, the radius of
# {prf:ref}`hmm-bandits-thm-oful` with $S = \sqrt 3$) on 64 runs each, batched as one $256$-run
# problem: belief features with the true HMM, belief features with the Baum–Welch HMM fitted
# once, the same with the HMM re-estimated on the doubling schedule, and the
# context-only baseline $z_t = (X_t, 1)$ that ignores the chain. Regret is measured against the
# belief oracle $\arg\max_a b_t(a)$.
#
# The reference implementation of OFUL for *one* run keeps the full $d \times d$ design matrix
# $V_t$ and inverts it at every refresh, exactly as the algorithm is written; the kernel
# `run_linucb` keeps one block per action, updates its inverse by Sherman–Morrison and runs all
# runs at once. Both choose the same actions.


# %% tags=["reference"]
def reference_oful(z, rewards, k, sigma, bound, lam=1.0, delta=0.05, period=1):
    """OFUL for one run.

    The full design matrix is inverted at every refresh (every `period` rounds).
    """
    steps, m = z.shape
    d = k * m
    V = lam * torch.eye(d, dtype=z.dtype)
    bvec = torch.zeros(d, dtype=z.dtype)
    act_theta, act_vinv = torch.zeros(d, dtype=z.dtype), torch.linalg.inv(V)
    act_beta = sigma * math.sqrt(2 * math.log(1 / delta)) + math.sqrt(lam) * bound
    actions = []
    for t in range(steps):
        phi = torch.stack(
            [torch.kron(torch.eye(k, dtype=z.dtype)[a], z[t]) for a in range(k)]
        )
        # ||phi_a||_{V^-1} from the a-th diagonal block of the inverse (the same
        # rounding as the per-action blocks of the kernel, so that exact ties break the
        # same way)
        blocks = [act_vinv[a * m : (a + 1) * m, a * m : (a + 1) * m] for a in range(k)]
        width = torch.stack([torch.sqrt(z[t] @ blk @ z[t]) for blk in blocks])
        a = int((phi @ act_theta + act_beta * width).argmax())
        actions.append(a)
        V = V + torch.outer(phi[a], phi[a])
        bvec = bvec + rewards[t, a] * phi[a]
        if (t + 1) % period == 0:
            act_vinv = torch.linalg.inv(V)
            act_theta = act_vinv @ bvec
            logdet = torch.logdet(V) - d * math.log(lam)
            act_beta = (
                sigma * math.sqrt(logdet + 2 * math.log(1 / delta))
                + math.sqrt(lam) * bound
            )
    return torch.tensor(actions)


gen = torch.Generator().manual_seed(SEED + 2)
z_chk = bandits.belief_features(beliefs[:2, :300].cpu())
r_chk = z_chk + REWARD_SD * torch.randn(2, 300, N_ACTIONS, generator=gen, dtype=DT)
a_kernel = bandits.run_linucb(
    z_chk, r_chk, N_ACTIONS, sigma=REWARD_SD, bound=math.sqrt(3)
)
for r in range(2):
    a_ref = reference_oful(z_chk[r], r_chk[r], N_ACTIONS, REWARD_SD, math.sqrt(3))
    icml26.checks.agree(f"OFUL actions, run {r}", a_kernel[r], a_ref, atol=0)
print("OFUL kernel vs reference: identical actions on 2 runs x 300 rounds")

# %%
gen = torch.Generator().manual_seed(SEED + 3)
mean_simple = beliefs  # mu_t(a) = <e_a, b_t> = b_t(a)
noise = torch.randn(RUNS, T, N_ACTIONS, generator=gen, dtype=DT).to(DEVICE)
rewards_simple = mean_simple + REWARD_SD * noise
warm_actions = torch.randint(0, N_ACTIONS, (RUNS, T_WARM), generator=gen).to(DEVICE)
forced = torch.full((4 * RUNS, T), -1, dtype=torch.long, device=DEVICE)
forced[RUNS : 3 * RUNS, :T_WARM] = warm_actions.repeat(
    2, 1
)  # same warm-up for both estimators
z_all = torch.cat(
    [
        bandits.belief_features(beliefs),  # known HMM
        bandits.belief_features(
            beliefs_hat
        ),  # Baum-Welch HMM (states in its own labelling)
        bandits.belief_features(
            beliefs_re
        ),  # re-estimated HMM (labels kept across epochs)
        bandits.context_features(X),  # (X_t, 1): also 3 numbers per step (p + 1 = N)
    ]
)
t0 = time.perf_counter()
actions = bandits.run_linucb(
    z_all,
    rewards_simple.repeat(4, 1, 1),
    N_ACTIONS,
    sigma=REWARD_SD,
    bound=math.sqrt(N_ACTIONS),
    lam=1.0,
    delta=0.05,
    forced=forced,
)
elapsed_simple = time.perf_counter() - t0
regret_all = bandits.regret(mean_simple.repeat(4, 1, 1), actions)
reg_known, reg_est, reg_re, reg_ctx = regret_all.split(RUNS)
slope_known = bandits.loglog_slope(reg_known, T_MIN)
slope_est = bandits.loglog_slope(reg_est, 2 * T_WARM)
slope_ctx = bandits.loglog_slope(reg_ctx, T_MIN)
post_known = (reg_known[:, -1] - reg_known[:, T_WARM - 1]).mean()
post_est = (reg_est[:, -1] - reg_est[:, T_WARM - 1]).mean()
ratio_post = float(post_est / post_known)
# the single Baum-Welch fit leaves a fixed belief error:
# Prop. hmm-bandits-prop-estimated predicts a linear term. Slope of the regret
# accumulated *after* the warm-up, against rounds since the warm-up:
slope_post_est = bandits.loglog_slope(
    reg_est[:, T_WARM:] - reg_est[:, T_WARM - 1 : T_WARM], T_MIN
)
slope_post_known = bandits.loglog_slope(
    reg_known[:, T_WARM:] - reg_known[:, T_WARM - 1 : T_WARM], T_MIN
)
late = slice(T // 2, T)  # the second half of the horizon
rate_est = float((reg_est[:, -1] - reg_est[:, T // 2 - 1]).mean()) / (T - T // 2)
rate_known = float((reg_known[:, -1] - reg_known[:, T // 2 - 1]).mean()) / (T - T // 2)
xi_bar = (
    (beliefs - beliefs_al).abs().amax(-1)
)  # max_a |<theta_a, b_t - b_hat_t>|, theta_a = e_a
price = 2 * float(
    xi_bar[:, late].mean()
)  # the per-round misspecification price 2 xi_bar_t
slope_ctx_late = bandits.loglog_slope(reg_ctx, 10 * T_MIN)


def by_group(fn, *regs):
    """A claim's statistic on each of GROUPS disjoint groups of runs (its seeds)."""
    return [fn(*g) for g in zip(*(r.chunk(GROUPS) for r in regs), strict=True)]


def after_warmup(reg_a, reg_b):
    """Mean regret over the rounds after the warm-up, learner a / learner b."""
    return float(
        (reg_a[:, -1] - reg_a[:, T_WARM - 1]).mean()
        / (reg_b[:, -1] - reg_b[:, T_WARM - 1]).mean()
    )


def slope_from(t_min):
    return lambda reg: bandits.loglog_slope(reg, t_min)


slopes_known = by_group(slope_from(T_MIN), reg_known)
slopes_ctx = by_group(slope_from(T_MIN), reg_ctx)
ratios_est = by_group(after_warmup, reg_est, reg_known)
ratios_ctx = by_group(after_warmup, reg_ctx, reg_known)
for name, reg in [
    ("known HMM", reg_known),
    ("Baum-Welch HMM", reg_est),
    ("context only", reg_ctx),
]:
    m = reg.mean(0)
    print(
        f"{name:>15}: mean regret at t = 1e2, 1e3, 1e4: {m[99]:.0f}, {m[999]:.0f}, "
        f"{m[-1]:.0f}"
    )
print(
    f"log-log slopes: known {slope_known:.2f} (t >= {T_MIN}), estimated "
    f"{slope_est:.2f} "
    f"(t >= {2 * T_WARM}), context only {slope_ctx:.2f} (t >= {T_MIN}), "
    f"{slope_ctx_late:.2f} (t >= {10 * T_MIN})"
)
print(
    f"regret after the warm-up vs rounds since it: slope {slope_post_known:.2f} (known "
    "HMM), "
    f"{slope_post_est:.2f} (Baum-Welch HMM)"
)
print(
    f"per-round regret over t > {T // 2}: known {rate_known:.4f}, Baum-Welch "
    f"{rate_est:.4f}; "
    f"misspecification price 2 mean xi_bar_t = {price:.3f}"
)


# %% tags=["hide-input"] mystnb={"figure": {"caption": "Regret of belief-based OFUL grows like $\\sqrt t$ with the known HMM (claim 02.1) and linearly for the context-only learner (claim 02.5).", "name": "02-fig-regret"}}
def regret_band(ax, reg, label, i, ls="-"):
    """Mean cumulative regret on log-log axes.

    With a band of +- 2 standard errors over runs.
    """
    t_ax = np.arange(1, reg.shape[1] + 1)
    m, se = (
        reg.mean(0).cpu().numpy(),
        (reg.std(0) / math.sqrt(reg.shape[0])).cpu().numpy(),
    )
    ax.loglog(t_ax, m, color=icml26.plotting.color(i), ls=ls, label=label)
    ax.fill_between(
        t_ax,
        np.maximum(m - 2 * se, 1e-1),
        m + 2 * se,
        color=icml26.plotting.color(i),
        alpha=0.25,
    )


fig, ax = plt.subplots()
regret_band(ax, reg_known, f"belief LinUCB, known HMM (slope {slope_known:.2f})", 0)
regret_band(
    ax,
    reg_est,
    f"belief LinUCB, Baum-Welch HMM (slope after warm-up {slope_post_est:.2f})",
    1,
)
regret_band(ax, reg_ctx, f"context-only LinUCB (slope {slope_ctx:.2f})", 2)
t_ax = np.arange(1, T + 1)
ax.loglog(t_ax, 3 * np.sqrt(t_ax), "k:", lw=1, label=r"$\propto \sqrt{t}$")
ax.loglog(t_ax, 0.3 * t_ax, "k--", lw=1, label=r"$\propto t$")
ax.axvline(T_WARM, color="0.5", lw=0.8, label="end of the warm-up (Baum-Welch fit)")
ax.set_xlim(10, T)
ax.set_ylim(1, 2 * T)
ax.set_xlabel("round t")
ax.set_ylabel("cumulative regret $R_t$ (reward units)")
ax.set_title("Known-HMM beliefs: regret ∝ √t; ignoring the chain: linear")
ax.legend(fontsize=8, loc="upper left")
plt.show()

# %% [markdown]
# Each claim of this section is decided over 8 seeds: the 64 runs split into 8 disjoint
# groups of 8, each with its own chains, contexts and noise, and the statistic computed on each
# group. Slopes must hold on every group (rule `worst`); ratios of regret, in which one run
# whose EM fit lands in a poor local optimum can dominate a group of 8, by the one-sided 95 %
# confidence bound of their mean (rule `mean-ci`). Each claim's control is the learner the
# claim says should fail its threshold, run in the same batch.

# %% tags=["claim"]
# fails if: the belief features were not enough for √T regret (slope near 1: linear
# regret, as for the context-only learner, the control) or the estimate of the slope
# were dominated by the early exploration phase (slope far below ½)
icml26.claim(
    "02.1",
    f"known HMM: log-log regret slope, {T_MIN} ≤ t ≤ {T}",
    seeds=slopes_known,
    between=(0.35, 0.65),
    digits=2,
    control=slopes_ctx,
    control_label="context only",
)

# %% [markdown]
# Read the Baum–Welch curve with care. Its slope over $[2 \cdot 10^3, 10^4]$ is small only because
# the warm-up regret is a large constant offset: measured from the end of the warm-up, its regret
# grows with slope about 1, i.e. *linearly*, at a small per-round rate. That is what
# {prf:ref}`hmm-bandits-prop-estimated` predicts for a model fitted once: a fixed belief error costs up
# to $2\bar\xi_t$ per round for ever. The paper's sublinear bounds rely on re-estimating the HMM
# as data accumulates, which we do next (02.3–02.4). For the single fit we assert what holds:
# over the rounds after the warm-up it stays within a factor 3 of the known-HMM learner (02.2),
# and its late per-round regret is within the misspecification price $2\bar\xi_t$ of the
# proposition, checked below. Least squares partly compensates for the biased
# features, so the learner does better than that price.

# %% tags=["claim"]
# fails if: estimated beliefs cost more than a constant factor over the known HMM, as
# ignoring the chain does (the control: the context-only learner, same ratio)
icml26.claim(
    "02.2",
    f"Baum–Welch / known-HMM regret over rounds {T_WARM + 1}..{T}",
    seeds=ratios_est,
    rule="mean-ci",
    at_most=3.0,
    digits=2,
    control=ratios_ctx,
    control_label="context only",
)

# %%
# The price of estimated beliefs: the proposition's per-round bound, checked (not a
# claim)
per_round = f"per-round regret over t > {T // 2} / price 2·mean ξ̄_t"
print(f"{per_round} = {rate_est / price:.1f}")
assert rate_est <= price, "per-round regret above the price of estimated beliefs"

# %% [markdown]
# ### 02.3–02.4 · Re-estimating the HMM on a doubling schedule
#
# {prf:ref}`hmm-bandits-prop-estimated` says where the single fit's linear term comes from: the extra
# regret is at most $2 \sum_t \bar\xi_t$, the sum of the belief errors. If the estimate improves
# as contexts accumulate, the belief errors shrink and so does the per-round extra regret. The
# re-estimating learner tests this. We measure, on each epoch $[t_k, t_{k+1})$, the mean belief
# error $\bar\xi_t$ and the mean per-round extra regret over the known-HMM learner, and the
# log-log slope of the regret accumulated after the warm-up, against rounds since the warm-up,
# over the late window from the first refit on ($10^3 \le t - 1000 \le 9 \cdot 10^3$). A
# learner with a fixed belief error has a linear term and its slope tends to 1 (the single fit
# measures close to 1 on this window); a slope clearly below 1 is what a shrinking error
# predicts.

# %%
post_known = (
    reg_known[:, T_WARM:] - reg_known[:, T_WARM - 1 : T_WARM]
)  # regret after the warm-up
post_single = reg_est[:, T_WARM:] - reg_est[:, T_WARM - 1 : T_WARM]
post_re = reg_re[:, T_WARM:] - reg_re[:, T_WARM - 1 : T_WARM]
T_LATE = EPOCHS[1] - T_WARM  # the late window starts at the first refit (t = 2000)
slope_late = {
    name: bandits.loglog_slope(p, T_LATE)
    for name, p in [("known", post_known), ("single", post_single), ("re", post_re)]
}
ratio_post_re = float(post_re[:, -1].mean() / post_known[:, -1].mean())
xi_re = (beliefs - beliefs_re_al).abs().amax(-1)
ends = [*EPOCHS[1:], T]
per_epoch = []  # (t_k, mean xi single, mean xi re, extra regret/round single, re)
for t_k, t_e in zip(EPOCHS, ends, strict=True):

    def extra(reg, t_k=t_k, t_e=t_e):
        inc = (reg[:, t_e - 1] - reg[:, t_k - 1]) - (
            reg_known[:, t_e - 1] - reg_known[:, t_k - 1]
        )
        return float(inc.mean()) / (t_e - t_k)

    xi_1, xi_r = float(xi_bar[:, t_k:t_e].mean()), float(xi_re[:, t_k:t_e].mean())
    per_epoch.append((t_k, xi_1, xi_r, extra(reg_est), extra(reg_re)))
ep = np.array(per_epoch)
xi_decay = float(
    np.polyfit(np.log(ep[:, 0]), np.log(ep[:, 2]), 1)[0]
)  # exponent of xi_bar
rate_re = float((reg_re[:, -1] - reg_re[:, T // 2 - 1]).mean()) / (T - T // 2)
print(
    "epoch start | mean xi_bar: single, re-est | extra regret per round: single, re-est"
)
for t_k, x1, xr, e1, er in per_epoch:
    print(f"{int(t_k):>11} | {x1:.3f}, {xr:.3f} | {e1:+.4f}, {er:+.4f}")
print(
    f"re-estimated xi_bar decays like t^{xi_decay:.2f} over the epochs; "
    f"per-round regret over t > {T // 2}: known {rate_known:.4f}, single fit "
    f"{rate_est:.4f}, "
    f"re-estimated {rate_re:.4f}"
)
print(
    f"slope of the regret after the warm-up over {T_LATE} <= t - {T_WARM} <= "
    f"{T - T_WARM}: "
    f"known {slope_late['known']:.2f}, single fit {slope_late['single']:.2f}, "
    f"re-estimated {slope_late['re']:.2f}"
)
print(
    f"regret over rounds {T_WARM + 1}..{T}: known {post_known[:, -1].mean():.0f}, "
    f"single fit {post_single[:, -1].mean():.0f}, re-estimated "
    f"{post_re[:, -1].mean():.0f}"
)

# %% tags=["hide-input"] mystnb={"figure": {"caption": "Re-estimating the HMM on doubling epochs bends the regret (claims 02.3 and 02.4); a single fit stays linear. Right: belief error and extra regret per epoch.", "name": "02-fig-reestimate"}}
fig, (ax, ax2) = plt.subplots(1, 2, figsize=(7.5, 3.4))
regret_band(ax, post_known, "known HMM", 0)
regret_band(ax, post_single, f"fitted once (late slope {slope_late['single']:.2f})", 1)
regret_band(ax, post_re, f"re-estimated (late slope {slope_late['re']:.2f})", 2)
t_post = np.arange(1, T - T_WARM + 1)
ax.loglog(t_post, 0.015 * t_post, "k--", lw=1, label=r"$\propto t$")
for t_k in EPOCHS[1:]:
    ax.axvline(t_k - T_WARM, color="0.6", lw=0.6)
ax.set_xlim(10, T - T_WARM)
ax.set_ylim(0.5, 500)
ax.set_xlabel("rounds since the warm-up, t - 1000 (refits: grey lines)")
ax.text(
    12, 0.7, "the two estimated learners coincide until the first refit", fontsize=7
)
ax.set_ylabel("regret after the warm-up (reward units)")
ax.set_title("Re-estimating bends the regret; one fit stays linear", fontsize=9)
ax.legend(fontsize=7, loc="upper left")
mid = np.sqrt(ep[:, 0] * np.array(ends))  # geometric midpoint of each epoch
c1, c4 = icml26.plotting.color(1), icml26.plotting.color(2)
ax2.loglog(mid, ep[:, 1], "o-", color=c1, label=r"$\bar\xi_t$, fitted once")
ax2.loglog(mid, ep[:, 2], "o-", color=c4, label=r"$\bar\xi_t$, re-estimated")
pos = np.where(
    ep > 0, ep, np.nan
)  # a negative extra regret (first epochs) is not drawn
ax2.loglog(mid, pos[:, 3], "s--", color=c1, label="extra regret/round, fitted once")
ax2.loglog(mid, pos[:, 4], "s--", color=c4, label="extra regret/round, re-estimated")
ax2.loglog(
    mid, ep[0, 2] * np.sqrt(mid[0] / mid), "k:", lw=1, label=r"$\propto t^{-1/2}$"
)
ax2.xaxis.set_minor_locator(matplotlib.ticker.NullLocator())
ax2.set_xticks(
    mid, [f"{a // 1000}k-{b // 1000}k" for a, b in zip(EPOCHS, ends, strict=True)]
)
ax2.set_xlabel(r"epoch $[t_k, t_{k+1})$ (rounds)")
ax2.set_ylabel("per-round mean (reward units)")
ax2.set_title("Belief error and extra regret per epoch", fontsize=9)
ax2.legend(fontsize=7, loc="lower left")
plt.show()

# %% tags=["claim"]
# fails if: re-estimating on doubling epochs left the regret linear after the warm-up,
# as the single fit (the control) does
icml26.claim(
    "02.3",
    f"re-estimated HMM: late log-log regret slope, {T_LATE} ≤ t − {T_WARM} ≤ "
    f"{T - T_WARM}",
    seeds=by_group(slope_from(T_LATE), post_re),
    at_most=0.8,
    digits=2,
    control=by_group(slope_from(T_LATE), post_single),
    control_label="fitted once",
)

# %% tags=["claim"]
# fails if: re-estimated beliefs cost more than half again the known-HMM regret, as the
# single fit (the control) does
icml26.claim(
    "02.4",
    f"re-estimated / known-HMM regret over rounds {T_WARM + 1}..{T}",
    seeds=by_group(after_warmup, reg_re, reg_known),
    rule="mean-ci",
    at_most=1.5,
    digits=2,
    control=by_group(after_warmup, reg_est, reg_known),
    control_label="fitted once",
)

# %% [markdown]
# What the table and the right panel show: with one fit the belief error stays at its warm-up
# level and, once the warm-up's head start is used up, the per-round extra regret settles on a
# plateau (about $0.013$): a linear term. With re-estimation the belief error falls from epoch to
# epoch, roughly like $t^{-1/2}$ (the fitted exponent is printed above), as the heuristic part of
# {prf:ref}`hmm-bandits-prop-estimated` assumes, and the late per-round extra regret is about four
# times smaller than the single fit's, in proportion to the smaller belief error. In the first
# epoch (and, for the re-estimating learner, the second) the extra regret is *negative* (not
# drawn on the log axis): the 1000 uniform
# warm-up rounds are exploration that the known-HMM learner has not yet done, so the comparison
# per epoch is clean only late; with four epochs we cannot resolve whether the re-estimating
# learner's extra regret keeps falling like $t^{-1/2}$ after that. Pooled over the 64 runs, the
# late slope of the re-estimating learner is clearly below 1 (0.66, printed above), while the
# single fit, measured on the same window, is close to 1. Decided group by group (02.3), it is
# not: over one decade and 8 runs the slope is dominated by single runs, it ranges from 0.42
# to 1.25 across the groups, and the worst group fails the threshold, as does the single fit
# (the control); the claim is NOT REPRODUCED on every seed. Its regret after the warm-up is also
# no larger than the known-HMM learner's (02.4) — but read that ratio with care: both
# estimating learners start the post-warm-up phase with 1000 rounds of uniform exploration in
# their statistics, which the known-HMM learner does not have, and over the second half of the
# horizon the re-estimating learner still pays about three times the known learner's per-round
# regret (printed above). A slope over $[2 \cdot 10^3, 10^4]$ is a finite-horizon summary, not a
# proof of a rate.

# %% [markdown]
# ### 02.5 · Ignoring the hidden chain costs linear regret
#
# The context-only learner solves a misspecified problem: the best action depends on the belief,
# a non-linear function of the whole context history, and a linear function of the current
# context cannot represent it. Its regret therefore grows linearly once the exploration phase is
# over, while the known-HMM belief learner bends over (figure above). The slope over $[10^2,
# 10^4]$ includes the exploration phase, where every learner's regret grows sublinearly; over
# $[10^3, 10^4]$ alone it is printed above and is essentially 1.

# %% tags=["claim"]
# fails if: the hidden state did not matter (a context-only learner would then be
# sublinear too, like the known-HMM belief learner, the control)
icml26.claim(
    "02.5",
    f"context-only LinUCB: log-log regret slope, {T_MIN} ≤ t ≤ {T}",
    seeds=slopes_ctx,
    at_least=0.9,
    digits=2,
    control=slopes_known,
    control_label="known-HMM beliefs",
)

# %% [markdown]
# ### 02.6–02.8 · In the natural model, periodic updates remove the bias of every-round updates
#
# The natural model of {prf:ref}`hmm-bandits-def-natural`, in a regime built to expose the problem
# periodic updates are for: the rewards are *very* informative about $S_t$ (state effect
# $c_{as} = 2 \cdot \mathbb{1}[a = s]$, reward noise standard deviation 0.05), the chain mixes
# slowly ($P_{ii} = 0.995$, a state lasts 200 rounds on average) and the contexts are weakly
# informative (standard deviation 4 around the same triangle), so that past rewards say much
# more about the current state than the contexts do. The slopes $w_{as}$ are small random
# vectors as before (entries $0.3\,\mathcal N(0, 1)$). The learners know the HMM (only the
# reward-dependency issue is at play) and run OFUL on the features $b_t \otimes (X_t, 1)$
# ($d = 27$) with three schedules: update every round; {prf:ref}`hmm-bandits-alg-periodic` with a fixed
# period $L = 50$; and the same algorithm with *growing* epochs (epoch $k$ ends at round
# $\lfloor 50 \cdot 1.3^k \rceil$, so each epoch after the first lasts $0.3$ times the time
# elapsed; `icml26.sequential.bandits.epoch_refresh`), as an algorithm that does not know the
# horizon would use them: 19 refreshes over $T = 6000$ rounds. The radius uses $\sigma = 1.1$, a
# rough scale for $\zeta_t$, which mixes the reward noise with the state uncertainty (up to the
# state effect 2 plus the slope terms, which grow with $|X_t|$): a valid sub-Gaussian constant
# is what a proof needs, our runs use a plausible one.
#
# We measure three things for each schedule:
#
# - the **bias of $\hat\theta$**: the estimate $\hat\theta_T$ (per-action ridge regression on the
#   played rounds, `ridge_estimates`) minus the true $\theta$, averaged over the runs, divided by
#   its standard error; we report the largest $|t|$ over the 27 coordinates. Under an unbiased
#   estimator (and approximately Gaussian errors) it exceeds $3.56$ with probability at most 1%
#   (Bonferroni over 27 two-sided tests);
# - the **score** $\frac1T \sum_t \phi_t(A_t)\, \zeta_t$ with $\zeta_t = r_t - \mu_t(A_t)$, the
#   term that the self-normalised bound of {prf:ref}`hmm-bandits-thm-oful` controls: its expectation is
#   zero whenever $A_t$ depends on the past only through the contexts (then $\zeta_t$ is a
#   martingale difference), and it is exactly what breaks when actions depend on past rewards.
#   Same statistic: largest $|t|$ over the 27 coordinates, same 3.56 threshold. The bias of
#   $\hat\theta$ is $V_T^{-1}$ times this score (up to the ridge term), but $V_T^{-1}$ is itself
#   random and adapted, which is why we look at both;
# - the **late per-round regret**: the mean regret per round over $[T/2, T]$ divided by that
#   over $[T/4, T/2]$. For $R_t \propto t^\alpha$ this ratio is $2^{\alpha - 1}$: $0.71$ for
#   $\sqrt t$, $2^{-1/8} = 0.917$ for the reported $t^{7/8}$, and 1 for linear regret. Unlike a
#   log-log slope over a short window, it is not flattered by a large early offset.

# %%
gen = torch.Generator().manual_seed(SEED + 4)
P_inf = torch.full((N_STATES, N_STATES), (1 - STAY_INF) / (N_STATES - 1), **to_dev)
P_inf.fill_diagonal_(STAY_INF)
var_inf = torch.full((N_STATES, P_DIM), CONTEXT_SD_INF**2, **to_dev)
S_n, X_n = hmm.simulate(P_inf, pi_d, mu_d, var_inf, RUNS_NAT, T_NAT, generator=gen)
b_n, _ = hmm.forward_filter(hmm.gaussian_loglik(X_n, mu_d, var_inf), P_inf, pi_d)
theta_nat = torch.zeros(N_ACTIONS, N_STATES, P_DIM + 1, dtype=DT)
theta_nat[:, :, :P_DIM] = 0.3 * torch.randn(
    N_ACTIONS, N_STATES, P_DIM, generator=gen, dtype=DT
)
theta_nat[:, :, P_DIM] = STATE_EFFECT * torch.eye(N_ACTIONS, N_STATES, dtype=DT)  # c_as
theta_nat = theta_nat.to(DEVICE)
xc = bandits.context_features(X_n)  # (X_t, 1)
per_state = torch.einsum(
    "asj,rtj->rtas", theta_nat, xc
)  # mean reward of (a, s), (R, T, K, N)
idx = S_n[:, :, None, None].expand(-1, -1, N_ACTIONS, 1)
mean_state = per_state.gather(-1, idx).squeeze(
    -1
)  # what the true-state oracle would see
mean_nat = (per_state * b_n[:, :, None, :]).sum(
    -1
)  # the belief oracle's means (natural model)
noise = torch.randn(RUNS_NAT, T_NAT, N_ACTIONS, generator=gen, dtype=DT).to(DEVICE)
rewards_nat = mean_state + NATURAL_SD * noise
z_nat = bandits.natural_features(b_n, X_n)
SCHEDULES = {
    "every round": torch.ones(T_NAT, dtype=torch.bool),
    f"fixed L = {PERIOD}": torch.arange(1, T_NAT + 1) % PERIOD == 0,
    "growing epochs": bandits.epoch_refresh(T_NAT, PERIOD, growth=EPOCH_GROWTH),
}
# the control of 02.6: growing epochs with the chain ignored, i.e. the belief replaced
# by the stationary law, so that the features are (X_t, 1) only
z_blind = bandits.natural_features(torch.full_like(b_n, 1 / N_STATES), X_n)
BLIND = "growing epochs, chain ignored"
refresh = torch.cat(
    [m.expand(RUNS_NAT, T_NAT) for m in SCHEDULES.values()]
    + [SCHEDULES["growing epochs"].expand(RUNS_NAT, T_NAT)]
)
n_sched = len(SCHEDULES)
act_all = bandits.run_linucb(
    torch.cat([z_nat.repeat(n_sched, 1, 1), z_blind]),
    rewards_nat.repeat(n_sched + 1, 1, 1),
    N_ACTIONS,
    sigma=1.1,
    bound=1.1 * float(theta_nat.norm()),
    refresh=refresh,
)
act_nat, act_blind = act_all[: n_sched * RUNS_NAT], act_all[n_sched * RUNS_NAT :]
theta_hat = bandits.ridge_estimates(
    z_nat.repeat(n_sched, 1, 1), rewards_nat.repeat(n_sched, 1, 1), act_nat
)


def late_ratio(reg):
    """Mean regret per round over [T/2, T] / over [T/4, T/2]."""
    m_reg = reg.mean(0)
    q, h = T_NAT // 4, T_NAT // 2
    late = float(m_reg[-1] - m_reg[h - 1]) / (T_NAT - h)
    return late / (float(m_reg[h - 1] - m_reg[q - 1]) / (h - q))


theta_flat = theta_nat.reshape(
    N_ACTIONS, -1
)  # the order of natural_features: s ⊗ (x, 1)
nat = {}
for name, a_s, th in zip(
    SCHEDULES, act_nat.split(RUNS_NAT), theta_hat.split(RUNS_NAT), strict=True
):
    err = th - theta_flat  # (R, K, m)
    t_stat = err.mean(0) / (err.std(0) / math.sqrt(RUNS_NAT))
    reg = bandits.regret(mean_nat, a_s)
    m_reg = reg.mean(0)
    got = rewards_nat.gather(-1, a_s.unsqueeze(-1)).squeeze(-1)
    zeta_t = got - mean_nat.gather(-1, a_s.unsqueeze(-1)).squeeze(
        -1
    )  # the noise zeta_t
    zeta = zeta_t.mean(1)  # mean residual per run
    one_hot = torch.nn.functional.one_hot(a_s, N_ACTIONS).to(DT)
    score = (
        torch.einsum("rtk,rt,rti->rki", one_hot, zeta_t, z_nat) / T_NAT
    )  # sum phi zeta / T
    score_t = score.mean(0) / (score.std(0) / math.sqrt(RUNS_NAT))
    nat[name] = {
        "reg": reg,
        "t_max": float(t_stat.abs().max()),
        "bias": err.mean(0),
        "se": err.std(0) / math.sqrt(RUNS_NAT),
        "ratio": late_ratio(reg),
        "zeta": float(zeta.mean()),
        "zeta_z": float(zeta.mean() / (zeta.std() / math.sqrt(RUNS_NAT))),
        "score_t": float(score_t.abs().max()),
    }
    print(
        f"{name:>15}: R_T {float(m_reg[-1]):5.0f}, late/earlier per-round regret "
        f"{nat[name]['ratio']:.2f}, max|t|: theta_hat bias {nat[name]['t_max']:.1f}, "
        f"score {nat[name]['score_t']:.1f}; mean residual {nat[name]['zeta']:+.4f} "
        f"(z = {nat[name]['zeta_z']:+.1f})"
    )
reg_blind = bandits.regret(mean_nat, act_blind)
print(
    f"{BLIND}: R_T {float(reg_blind.mean(0)[-1]):5.0f}, late/earlier per-round regret "
    f"{late_ratio(reg_blind):.2f}"
)
hidden_price = bandits.regret(mean_state, bandits.oracle_actions(mean_nat)).mean(0)[-1]
print(
    "for scale: the belief oracle's regret against the true-state oracle is "
    f"{hidden_price:.0f} "
    "(linear, the price of never seeing S_t)"
)

# %% tags=["hide-input"] mystnb={"figure": {"caption": "The natural model in the informative regime: left, the bias of the least-squares estimate per coordinate (in standard errors) for each update schedule; right, the regret. Every-round updates bias the estimate; periodic updates do not, but pay more regret at this horizon (claims 02.6, 02.7 and 02.8).", "name": "02-fig-natural"}}
fig, (ax, ax2) = plt.subplots(1, 2, figsize=(7.5, 3.4))
coords = np.arange(theta_flat.numel())
for i, (name, res) in enumerate(nat.items()):
    tt = (res["bias"] / res["se"]).reshape(-1).cpu().numpy()
    ax.plot(
        coords + 0.2 * (i - 1),
        tt,
        "o",
        ms=3,
        color=icml26.plotting.color(i),
        label=name,
    )
ax.axhspan(-3.56, 3.56, color="0.9", label="|t| ≤ 3.56 (unbiased, 99%)")
ax.axhline(0, color="k", lw=0.5)
ax.set_xlabel(r"coordinate of $\theta$ (action-major, then state, then $(x, 1)$)")
ax.set_ylabel(r"bias of $\hat\theta_T$ / standard error")
ax.set_title("Every-round updates bias θ̂", fontsize=9)
ax.legend(fontsize=7)
for i, (name, res) in enumerate(nat.items()):
    regret_band(ax2, res["reg"], f"{name} (late ratio {res['ratio']:.2f})", i)
regret_band(
    ax2, reg_blind, f"chain ignored (late ratio {late_ratio(reg_blind):.2f})", 3
)
t_nat = np.arange(1, T_NAT + 1)
ax2.loglog(t_nat, 10 * np.sqrt(t_nat), "k:", lw=1, label=r"$\propto \sqrt{t}$")
ax2.set_xlim(10, T_NAT)
ax2.set_xlabel("round t")
ax2.set_ylabel("regret vs belief oracle (reward units)")
ax2.set_title("…but periodic schedules pay more regret here", fontsize=9)
ax2.legend(fontsize=7, loc="upper left")
plt.show()

# %% tags=["claim"]
# fails if: periodic updates with growing epochs left the regret linear (ratio near 1),
# as the same learner with the chain ignored (the control) does, or grew it faster than
# the reported T^(7/8) rate (threshold 2^(-1/8), see the definition above)
icml26.claim(
    "02.6",
    "growing epochs: late / earlier per-round regret (T/2..T vs T/4..T/2)",
    seeds=by_group(late_ratio, nat["growing epochs"]["reg"]),
    at_most=round(2 ** (-1 / 8), 3),
    digits=2,
    control=by_group(late_ratio, reg_blind),
    control_label="chain ignored",
)

# %% tags=["claim"]
# fails if: freezing the parameters over growing epochs did not remove the dependence
# between past rewards and the current action (the bias of every-round updates, asserted
# below)
icml26.claim(
    "02.7",
    "growing epochs: θ̂ bias, max |t| over the 27 coordinates",
    nat["growing epochs"]["t_max"],
    at_most=3.56,
    digits=3,
    single_seed=f"one t-test over {RUNS_NAT} independent runs, Bonferroni 1%",
    control=nat["every round"]["t_max"],
    control_label="every round",
)

# %% tags=["claim"]
# fails if: the score sum_t phi_t zeta_t of the periodic learner were not centred (its
# actions would still depend on S_t beyond the contexts); the every-round learner's is
# not (asserted)
icml26.claim(
    "02.8",
    "growing epochs: score Σ φ_t ζ_t / T, max |t| over 27 coordinates",
    nat["growing epochs"]["score_t"],
    at_most=3.56,
    digits=3,
    single_seed=f"one t-test over {RUNS_NAT} independent runs, Bonferroni 1%",
    control=nat["every round"]["score_t"],
    control_label="every round",
)

# %% [markdown]
# What this shows, and what it does not. The every-round learner's estimate is biased (its
# largest $|t|$ is far beyond 3.56), its score is not centred and its regression noise has a
# positive mean: it plays an action more often when the recent rewards of that action were high,
# i.e. when the hidden state favours it beyond what the contexts say, so its data over-represent
# the lucky states. This is the selection effect of the natural model, and the controls of
# claims 02.7 and 02.8 (the every-round learner) show it. Both periodic schedules remove it from the score (claim 02.8): their residual mean
# is consistent with zero. The estimate $\hat\theta$ itself is *not* unbiased under periodic
# updates either (claim 02.7, measured just above the 3.56 line): its largest deviation sits on
# the intercept of an action in a state where that action is wrong and rarely played, and it is
# negative. That is the classic bias of least squares on adaptively collected data (an arm that
# looks bad stops being sampled, so its low estimates are not corrected), which any adaptive
# design has, whatever its update schedule; it does not come from the reward–state dependence
# and it does not break the confidence-set argument, which needs the score, not $\hat\theta$, to
# be centred.
#
# The price is regret: at this horizon the every-round learner has the *smallest* regret of the
# three — its bias is a form of using the reward information about $S_t$, which the belief
# oracle of {eq}`hmm-bandits-eq-regret` does not use — and the growing epochs, frozen for longer and
# longer, pay the most. All three have late per-round regret well below their earlier one
# (ratios below 0.7), so the toy does **not** separate the schedules in regret: what it separates
# is the dependence that the proofs must control. The claim on the growing schedule's late
# increments (02.6) tests sublinearity against the reported rate, not superiority over the other
# schedules; its threshold $2^{-1/8}$ is a heuristic reading of a rate (a ratio of increments
# over one doubling of a finite horizon), so it is a reproduction, decided on the 8 groups of 12
# runs, worst group. Its control is the same growing-epoch learner with the chain ignored (the
# belief replaced by the stationary law, so that only $(X_t, 1)$ enters the features): its regret
# is linear and its ratio close to 1, above the threshold.

# %% [markdown]
# ### 02.9 · The paper's setting — finite contexts and a spectral estimator
#
# The paper's estimation step, as reported, assumes finitely many contexts and estimates the HMM
# by a spectral method ({prf:ref}`hmm-bandits-alg-spectral`). We switch to that setting: $N = 3$
# persistent states ($P_{ii} = 0.9$) emitting one of $d = 4$ symbols through an emission matrix
# of full rank, and compare, on `RUNS_SPEC` independent sequences of growing length $n$, the
# belief error of three filters against the filter with the true parameters, on a fresh test
# sequence of 1000 contexts: the spectral estimate; Baum–Welch run for `BW_SPEC_ITERS`
# iterations from the spectral estimate (the usual pairing: moments give a consistent start,
# EM then climbs the likelihood); and, for reference, the true parameters (error 0). The
# estimation error of the spectral method is $O(n^{-1/2})$ in its parameters (up to spectral
# constants), and {prf:ref}`hmm-bandits-lem-perturbation` turns a parameter error into a belief error of
# the same order, so the belief error should fall like $n^{-1/2}$.
#
# The reference implementation of {prf:ref}`hmm-bandits-alg-spectral` for *one* sequence, in numpy,
# step by step as written (moments by counting, one symbol at a time); the kernel
# `icml26.sequential.categorical.spectral_hmm` does the same for all runs at once, the moments by one
# `bincount` over flat indices and the linear algebra as batched SVD and eigen-decompositions.


# %% tags=["reference"]
def reference_spectral(obs, n_states, n_symbols, eta, floor=1e-4):
    """Spectral estimate (P, pi, B) from one sequence of symbols.

    In numpy, step by step.
    """
    d, n = n_symbols, len(obs)
    p12, p13, p132 = np.zeros((d, d)), np.zeros((d, d)), np.zeros((d, d, d))
    for t in range(n - 1):
        p12[obs[t], obs[t + 1]] += 1 / (n - 1)
    for t in range(1, n - 1):
        p13[obs[t - 1], obs[t + 1]] += 1 / (n - 2)
        p132[obs[t - 1], obs[t + 1], obs[t]] += 1 / (n - 2)
    u, _, vh = np.linalg.svd(p13)
    u1, u3 = u[:, :n_states], vh[:n_states].T
    denom_inv = np.linalg.inv(u1.T @ p13 @ u3)
    m = [
        u1.T @ p132[:, :, y] @ u3 @ denom_inv for y in range(d)
    ]  # M(y), shared eigenvectors
    _, vec = np.linalg.eig(sum(eta[y] * m[y] for y in range(d)))
    vinv = np.linalg.inv(vec)
    B = np.stack([np.diag(vinv @ m[y] @ vec).real for y in range(d)], 1).clip(floor)
    B = B / B.sum(1, keepdims=True)
    bt_pinv = np.linalg.pinv(B.T)
    joint = (bt_pinv @ p12 @ bt_pinv.T).clip(floor**2)
    P = (joint / joint.sum(1, keepdims=True)).clip(floor)
    return P / P.sum(1, keepdims=True), joint.sum(1) / joint.sum(), B


# %% [markdown]
# Kernel and reference agree on a random case, and the estimator is exact on exact moments (an
# implementation check, with the population moments of {eq}`hmm-bandits-eq-moments` computed from the
# true parameters).

# %%
P_sp = torch.full((N_STATES, N_STATES), (1 - STAY_SPEC) / (N_STATES - 1), **to_dev)
P_sp.fill_diagonal_(STAY_SPEC)
B_sp = torch.tensor(EMISSION_SPEC, **to_dev)
joint3 = torch.einsum(
    "i,ij,jk->ijk", pi_d, P_sp, P_sp
)  # law of (S_{t-1}, S_t, S_{t+1})
pop = (
    torch.einsum("i,ij,ix,jy->xy", pi_d, P_sp, B_sp, B_sp)[None],
    torch.einsum("ijk,ix,kz->xz", joint3, B_sp, B_sp)[None],
    torch.einsum("ijk,ix,kz,jy->xzy", joint3, B_sp, B_sp, B_sp)[None],
)
P_pop, pi_pop, B_pop = categorical.spectral_from_moments(*pop, N_STATES, floor=0.0)
perm_pop = hmm.align_states(B_pop, B_sp)
P_pop, _, B_pop, _ = hmm.permute_hmm(perm_pop, P_pop, pi_pop, B_pop, B_pop)
err_pop = max(
    float((P_pop[0] - P_sp).abs().max()), float((B_pop[0] - B_sp).abs().max())
)
assert err_pop < 1e-10, "the spectral estimator must be exact on exact moments"
print(f"spectral estimator on population moments: max parameter error {below(err_pop)}")
gen = torch.Generator().manual_seed(SEED + 7)
_, obs_chk = categorical.simulate_categorical(P_sp, pi_d, B_sp, 2, 3_000, generator=gen)
eta_default = torch.randn(
    EMISSION_SPEC_D, generator=torch.Generator().manual_seed(0), dtype=DT
)
kern = [x.cpu() for x in categorical.spectral_hmm(obs_chk, N_STATES, EMISSION_SPEC_D)]
refs = reference_spectral(
    obs_chk[1].cpu().numpy(), N_STATES, EMISSION_SPEC_D, eta_default.cpu().numpy()
)
perm_k = hmm.align_states(kern[2][1:], torch.as_tensor(refs[2]))[0]
for name, got, want in zip(("P", "pi", "B"), kern, refs, strict=True):
    got = got[1]
    got = got[perm_k][:, perm_k] if name == "P" else got[perm_k]
    icml26.checks.agree(f"spectral {name}, kernel vs reference", got, want, atol=1e-8)
print("spectral kernel vs reference: the same (P, pi, B) on a run of 3000 contexts")

# %%
gen = torch.Generator().manual_seed(SEED + 6)
_, obs_all = categorical.simulate_categorical(
    P_sp, pi_d, B_sp, RUNS_SPEC, max(SPEC_SIZES), generator=gen
)
_, obs_test = categorical.simulate_categorical(
    P_sp, pi_d, B_sp, RUNS_SPEC, 1_000, generator=gen
)
b_true_test, _ = hmm.forward_filter(
    categorical.categorical_loglik(obs_test, B_sp), P_sp, pi_d
)


def belief_error(P_e, pi_e, B_e):
    """Mean TV distance, per run, between estimated and true beliefs.

    Measured on the test contexts.
    """
    perm_e = hmm.align_states(B_e, B_sp)
    P_a, pi_a, B_a, _ = hmm.permute_hmm(perm_e, P_e, pi_e, B_e, B_e)
    b_e, _ = hmm.forward_filter(
        categorical.categorical_loglik(obs_test, B_a), P_a, pi_a
    )
    return hmm.tv_distance(b_e, b_true_test).mean(1)


# the cold start, as hmmlearn initialises a CategoricalHMM: uniform P and pi, random
# emission rows (one draw per run, the same at every n)
gen = torch.Generator().manual_seed(SEED + 8)
B_cold = torch.rand(RUNS_SPEC, N_STATES, EMISSION_SPEC_D, generator=gen, dtype=DT)
B_cold = (B_cold / B_cold.sum(-1, keepdim=True)).to(DEVICE)
P_cold = torch.full((RUNS_SPEC, N_STATES, N_STATES), 1 / N_STATES, **to_dev)
pi_cold = torch.full((RUNS_SPEC, N_STATES), 1 / N_STATES, **to_dev)
spec_err, bw_err, cold_err = [], [], []
for n in icml26.progress(SPEC_SIZES, desc="spectral vs Baum-Welch"):
    obs_n = obs_all[:, :n]
    fit_s = categorical.spectral_hmm(obs_n, N_STATES, EMISSION_SPEC_D)
    spec_err.append(belief_error(*fit_s))
    if n in BW_SPEC_SIZES:  # spectral and cold starts, batched as one problem
        P_b, pi_b, B_b, _ = categorical.baum_welch_categorical(
            obs_n.repeat(2, 1),
            torch.cat([fit_s[0], P_cold]),
            torch.cat([fit_s[1], pi_cold]),
            torch.cat([fit_s[2], B_cold]),
            n_iter=BW_SPEC_ITERS,
        )
        halves = zip(P_b.chunk(2), pi_b.chunk(2), B_b.chunk(2), strict=True)
        (warm, cold) = (belief_error(*h) for h in halves)
        bw_err.append(warm)
        cold_err.append(cold)
spec_med = np.array([float(e.median()) for e in spec_err])
bw_med = np.array([float(e.median()) for e in bw_err])
cold_med = np.array([float(e.median()) for e in cold_err])
sizes = np.array(SPEC_SIZES, dtype=float)
bw_sizes = np.array(BW_SPEC_SIZES, dtype=float)
spec_slope = float(np.polyfit(np.log(sizes), np.log(spec_med), 1)[0])
bw_slope = float(np.polyfit(np.log(bw_sizes), np.log(bw_med), 1)[0])
cold_slope = float(np.polyfit(np.log(bw_sizes), np.log(cold_med), 1)[0])
for i, n in enumerate(SPEC_SIZES):
    j = BW_SPEC_SIZES.index(n) if n in BW_SPEC_SIZES else None
    bw_txt = (
        f"; Baum-Welch from spectral {bw_med[j]:.3f}, cold {cold_med[j]:.3f}"
        if j is not None
        else ""
    )
    print(f"n = {n:>6}: median belief TV error, spectral {spec_med[i]:.3f}{bw_txt}")
print(
    f"log-log slope of the belief error: spectral {spec_slope:.2f}; Baum-Welch from "
    f"spectral {bw_slope:.2f}, from a cold start {cold_slope:.2f}"
)
print(
    "share of runs where the cold start ends with a larger belief error than the "
    "spectral estimate: "
    + ", ".join(
        f"n = {n}: {float((c > spec_err[SPEC_SIZES.index(n)]).double().mean()):.2f}"
        for n, c in zip(BW_SPEC_SIZES, cold_err, strict=True)
    )
)

# %% tags=["hide-input"] mystnb={"figure": {"caption": "Finite contexts: the belief error of the spectral estimator falls like $n^{-1/2}$ (claim 02.9); Baum–Welch started from it is more accurate at every size; started cold, with the same 8 iterations, it does not improve with $n$.", "name": "02-fig-spectral"}}
fig, ax = plt.subplots(figsize=(6.0, 3.6))
for i, (name, errs) in enumerate(
    [
        ("spectral", spec_err),
        ("Baum-Welch from spectral", bw_err),
        ("Baum-Welch, cold start", cold_err),
    ]
):
    q = np.array([[float(e.quantile(v)) for v in (0.1, 0.5, 0.9)] for e in errs])
    xs = sizes if len(errs) == len(sizes) else bw_sizes
    ax.loglog(
        xs, q[:, 1], "o-", color=icml26.plotting.color(i), label=f"{name} (median)"
    )
    ax.fill_between(xs, q[:, 0], q[:, 2], color=icml26.plotting.color(i), alpha=0.2)
ax.loglog(
    sizes,
    spec_med[0] * np.sqrt(sizes[0] / sizes),
    "k:",
    lw=1,
    label=r"$\propto n^{-1/2}$",
)
ax.set_xlabel("number of contexts n used for estimation")
ax.set_ylabel(r"mean TV$(\hat b_t, b_t)$ on test contexts")
ax.set_title("Belief error vs sample size: spectral and Baum–Welch")
ax.legend(fontsize=8)
plt.show()

# %% tags=["claim"]
# fails if: the spectral estimator were inconsistent (error flat in n) or its belief
# error fell at less than half the n^(-1/2) rate that the moment concentration and the
# lemma predict
icml26.claim(
    "02.9",
    f"spectral: log-log slope of belief error, {SPEC_SIZES[0]} ≤ n ≤ {SPEC_SIZES[-1]}",
    spec_slope,
    at_most=-0.25,
    digits=2,
    kind="theorem",
)

# %% [markdown]
# The spectral estimator needs no initialisation and no iterations, and its error falls at the
# predicted rate; its belief error is also about twice that of Baum–Welch *started from it* at
# every size where both were run, which is the usual finding: moments are a consistent but
# inefficient estimator, and maximum likelihood started from them improves on them. Started
# cold instead (uniform $P$ and $\pi$, random emission rows, as `hmmlearn` initialises a
# `CategoricalHMM`) and given the same 8 iterations, Baum–Welch does not improve with $n$ at
# all: its belief error stays near 0.35 from $n = 500$ to $8000$ (slope about 0, printed above),
# worse than the spectral estimate in most runs from $n = 2000$ on. The 8 iterations are enough
# only from a consistent start; a cold start needs many more, and may stop in a local optimum.
# A spectral method is presumably the paper's choice for what it lets one
# *prove* (a high-probability error bound at every round, with no local optima), but the
# comparison shows a practical side too: it is what makes a few EM iterations enough.
#
# ## Cross-check
#
# `hmmlearn` {cite}`hmmlearn2024` implements the same Gaussian HMM. We set its parameters by hand to
# ours and compare the log-likelihood (`score`) and the last-step posterior (`predict_proba`,
# which at the last step equals the filter $b_T$), then run both Baum–Welch implementations for
# the same number of iterations from the same starting point (hmmlearn with its covariance prior
# switched off, so that both M-steps are maximum likelihood), and finally let hmmlearn fit from
# its own initialisation and compare after state alignment.

# %%
gen = torch.Generator().manual_seed(SEED + 5)
_, X_x = hmm.simulate(P_true, pi_true, mu_true, var_true, 1, XCHECK_T, generator=gen)
x_np = X_x[0].numpy()
ref = GaussianHMM(
    n_components=N_STATES, covariance_type="diag", init_params="", params="stmc"
)
ref.startprob_, ref.transmat_ = pi_true.numpy(), P_true.numpy()
ref.means_, ref.covars_ = mu_true.numpy(), var_true.numpy()
b_x, ll_x = hmm.forward_filter(
    hmm.gaussian_loglik(X_x, mu_true, var_true), P_true, pi_true
)
err_score = abs(float(ll_x[0]) - ref.score(x_np))
err_post = float(np.abs(ref.predict_proba(x_np)[-1] - b_x[0, -1].numpy()).max())

P_init = torch.full(
    (N_STATES, N_STATES), 0.1 / (N_STATES - 1), dtype=DT
).fill_diagonal_(0.9)
mu_init = hmm.kmeans_init(X_x, N_STATES)[0]
var_init = torch.ones(N_STATES, P_DIM, dtype=DT)
fit = hmm.baum_welch(X_x, P_init, pi_true, mu_init, var_init, n_iter=BW_XCHECK_ITERS)
lib = GaussianHMM(
    n_components=N_STATES,
    covariance_type="diag",
    init_params="",
    params="stmc",
    n_iter=BW_XCHECK_ITERS,
    tol=-np.inf,
    covars_prior=0.0,
)
lib.startprob_, lib.transmat_ = pi_true.numpy(), P_init.numpy()
lib.means_, lib.covars_ = mu_init.numpy(), var_init.numpy()
lib.fit(x_np)
err_bw = max(
    float(np.abs(fit[0][0].numpy() - lib.transmat_).max()),
    float(np.abs(fit[2][0].numpy() - lib.means_).max()),
    float(np.abs(fit[3][0].numpy() - np.diagonal(lib.covars_, axis1=1, axis2=2)).max()),
)
own = GaussianHMM(
    n_components=N_STATES,
    covariance_type="diag",
    n_iter=500,
    tol=1e-10,
    random_state=SEED,
    covars_prior=0.0,
)  # hmmlearn's own k-means initialisation
own.fit(x_np)
perm_x = hmm.align_states(torch.as_tensor(own.means_).unsqueeze(0), fit[2])[0].numpy()
err_indep = float(np.abs(own.means_[perm_x] - fit[2][0].numpy()).max())
print(
    f"forward filter vs hmmlearn: |log-lik diff| {below(err_score)}, "
    f"max |posterior diff| at T {below(err_post)}"
)
print(
    f"Baum-Welch, {BW_XCHECK_ITERS} iterations from the same start: "
    f"max parameter diff {below(err_bw)}"
)
print(
    f"vs hmmlearn from its own initialisation (run to convergence; ours stopped after "
    f"{BW_XCHECK_ITERS} iterations), after state alignment: max |mean diff| = "
    f"{err_indep:.0e}"
)

# %% [markdown]
# The finite-context kernels against `hmmlearn`'s `CategoricalHMM`: the log-likelihood of a
# sequence under the spectral estimate (our forward filter with `categorical_loglik` vs
# `score`), and categorical Baum–Welch from the spectral start vs `fit` from the same start.

# %%
obs_x = obs_all[:1, :XCHECK_T]
P_s1, pi_s1, B_s1 = categorical.spectral_hmm(obs_x, N_STATES, EMISSION_SPEC_D)
cat = CategoricalHMM(n_components=N_STATES, n_features=EMISSION_SPEC_D, init_params="")
cat.startprob_, cat.transmat_ = pi_s1[0].numpy(), P_s1[0].numpy()
cat.emissionprob_ = B_s1[0].numpy()
obs_np = obs_x[0].numpy()[:, None]
_, ll_cat = hmm.forward_filter(categorical.categorical_loglik(obs_x, B_s1), P_s1, pi_s1)
err_cat = abs(float(ll_cat[0]) - cat.score(obs_np))
_, ll_true_x = hmm.forward_filter(
    categorical.categorical_loglik(obs_x, B_sp), P_sp, pi_d
)
fit_c = categorical.baum_welch_categorical(
    obs_x, P_s1, pi_s1, B_s1, n_iter=BW_SPEC_ITERS
)
cat_fit = CategoricalHMM(
    n_components=N_STATES,
    n_features=EMISSION_SPEC_D,
    init_params="",
    params="ste",
    n_iter=BW_SPEC_ITERS,
    tol=-np.inf,
)
cat_fit.startprob_, cat_fit.transmat_ = pi_s1[0].numpy(), P_s1[0].numpy()
cat_fit.emissionprob_ = B_s1[0].numpy()
cat_fit.fit(obs_np)
err_cat_bw = max(
    float(np.abs(fit_c[0][0].numpy() - cat_fit.transmat_).max()),
    float(np.abs(fit_c[2][0].numpy() - cat_fit.emissionprob_).max()),
)
print(
    f"log-likelihood per context of {XCHECK_T} contexts: true parameters "
    f"{float(ll_true_x[0]) / XCHECK_T:.4f}, spectral "
    f"{float(ll_cat[0]) / XCHECK_T:.4f}, "
    f"after Baum-Welch {cat_fit.score(obs_np) / XCHECK_T:.4f}"
)
assert err_cat <= 1e-6, "categorical forward filter and hmmlearn disagree"
assert err_cat_bw <= 1e-6, (
    "categorical Baum–Welch and hmmlearn's fit disagree from the same start"
)
print(
    f"categorical filter vs hmmlearn: |log-lik diff| {below(err_cat)}; "
    f"Baum-Welch from the spectral start: max parameter diff {below(err_cat_bw)}"
)

# %%
assert max(err_score, err_post) <= 1e-6, "forward filter and hmmlearn disagree"
print(
    "forward filter vs hmmlearn: max |score or posterior diff| "
    f"{below(max(err_score, err_post))}"
)

# %%
assert err_bw <= 1e-6, "Baum–Welch and hmmlearn's fit disagree from the same start"
print(
    "Baum–Welch vs hmmlearn from the same start: max parameter difference "
    f"{below(err_bw)}"
)

# %% [markdown]
# ## Limits of this reproduction
#
# - **No access to the paper's full text.** The exact statements and constants of
#   {cite}`li2026direct` were not available to us. {prf:ref}`hmm-bandits-lem-perturbation` and
#   {prf:ref}`hmm-bandits-prop-estimated` are our reconstructions (with complete proofs of what they
#   state, except the heuristic rate for a re-estimated HMM, which is marked as such); they may
#   differ from the paper's own statements and constants. The $\tilde O(T^{7/8})$ rate in
#   {prf:ref}`hmm-bandits-thm-natural` comes from a machine-generated summary of arXiv v1 and is not
#   checked against the paper; only the structure of its proof is sketched. In particular the
#   proposition carries $2 \max|\theta_{as}|$ and the enlarged radius $\lVert\xi\rVert$: it is
#   not a bound free of the reward functions, as the paper's is reported to be.
# - **Estimation.** The paper (as reported) estimates the HMM online with a spectral method
#   (finite contexts, full-rank emissions, invertible $P$) and re-estimates over time. Our
#   bandit experiments use Gaussian contexts and Baum–Welch after a uniform warm-up of 1000
#   rounds; the finite-context spectral estimator is run on its own (claim 02.9), not inside a
#   bandit, and it is a batch estimator on one sequence, not an online one; the warm-up dominates the estimated
#   learners' regret, which is why claims 02.2 and 02.4 compare regret after the warm-up. Fitted
#   *once*, the belief error does not shrink and the regret after the warm-up is linear (slope
#   about 1), as {prf:ref}`hmm-bandits-prop-estimated` predicts; the check after claim 02.2 asserts only
#   that this linear
#   part stays within the proposition's misspecification price. Re-estimated at $t = 2000, 4000,
#   8000$ (3 warm-started EM iterations each, not run to convergence), the belief error shrinks
#   and the late slope, pooled over the 64 runs, drops well below 1 (0.66). Claim 02.3 is
#   nevertheless NOT REPRODUCED: decided on each of the 8 groups of 8 runs, as every claim of
#   the section is, the slope ranges from 0.42 to 1.25, and a slope over one decade of a group
#   whose regret after the warm-up is small (about 80 reward units) is dominated by its few
#   worst runs. More runs per group (the paper scale has 256 runs) or a longer horizon would be
#   needed to decide it per seed. That is a slope over one late window of a finite horizon with
#   four epochs, not a measured rate, and the paper's high-probability bounds are not tested. The ratio of 02.4 is flattered by the warm-up: the estimating learners enter
#   the post-warm-up phase with 1000 rounds of exploration in their statistics. EM can stop in a
#   local optimum: in a few runs the first fit's means are far off (see the 90% quantile printed
#   above), and those runs carry most of the single fit's extra regret.
# - **Natural model with known HMM.** Claims 02.6–02.8 isolate the reward-dependency problem:
#   the beliefs use the true HMM. We do not reproduce the fully adaptive strategy, nor its
#   reported $T^{7/8}$ rate; the late-increment ratio of 02.6 uses that rate only as an upper
#   threshold (a heuristic one, so 02.6 is tagged as a reproduction, with the same learner
#   ignoring the chain as its control). The regime was chosen to make rewards far more informative about $S_t$ than the
#   contexts; with informative contexts (standard deviation 1.5), noisier rewards and faster
#   forgetting the dependence is at the edge of detection and the schedules cannot be told apart
#   (see the exercises).
# - **Periodic updates do not win on regret here.** The every-round learner has the smallest
#   regret of the three schedules, because its bias exploits the reward information about $S_t$
#   that the belief-oracle benchmark ignores. The toy separates the schedules on the *score*
#   (02.8) and on $\hat\theta$'s bias, not on regret. Claim 02.7 fails narrowly: under growing
#   epochs $\hat\theta$ still has a bias of about 3.7 standard errors on one coordinate, the
#   negative bias of least squares on adaptively collected data, on a rarely played
#   (action, state) pair. The Bonferroni threshold 3.56 assumes an unbiased estimator; no update
#   schedule removes that adaptive-sampling bias, and the proofs do not need it removed. Claims
#   02.7 and 02.8 are each one t-test over the 96 runs (a statistic of all runs together, not a
#   per-seed value), so a verdict this close to its threshold (3.68 against 3.56) could flip at
#   other seeds; the score of 02.8 (2.4) and the every-round controls (9.4 and 7.9) are far from
#   it.
# - **Slopes are finite-horizon summaries.** For the known-HMM learner the local slope falls with
#   $t$ (the problem has gaps, and OFUL is eventually logarithmic): the $[0.35, 0.65]$ window of
#   claim 02.1 is met over $10^2 \le t \le 10^4$ and would drift below it at much larger $T$.
# - **Radius.** {prf:ref}`hmm-bandits-prop-estimated` enlarges the confidence radius by the
#   misspecification $\lVert \xi\rVert$, which a learner cannot compute; our estimated-HMM
#   learners use the plain OFUL radius, so the proposition does not cover them as run (with a
#   fixed belief error the enlarged radius would grow like $\sqrt t$ and make the bound linear
#   anyway). We did not run the enlarged-radius variant.
# - **Spectral vs Baum–Welch.** The comparison is on one sequence per run, batch estimation,
#   median over 32 runs; Baum–Welch is run for 8 iterations, from the spectral estimate and from
#   a cold start, at $n = 500, 2000, 8000$ only (the E-step is a sequential pass over the
#   sequence, and $n = 16000$ would double the chapter's running time). At that budget the cold
#   start has not converged, so the comparison says what a few iterations buy from each start,
#   not where EM ends. The rate of 02.9 is a slope over
#   $[500, 16000]$ (1.5 decades), and its constant depends on the emission matrix and on the
#   random combination $\eta$ used in the eigen-decomposition.
#
# **Paper scale.** `ICML26_SCALE=paper` runs 256 runs of 50 000 rounds in every experiment
# (the ci scale runs 64 or 96 runs of 6 000 or 10 000 rounds), Baum–Welch with four times the iterations, and
# the spectral comparison up to $n = 128\,000$ with 128 sequences per size. It ran on one
# H200 GPU until claim 02.8, where a tensor of the spectral estimator left on the CPU stopped
# it (fixed since; 02.9 was not reached). At 50 000 rounds the known-HMM policy's regret
# flattens below the $\sqrt{T}$ band of 02.1, and 02.2 and 02.4, whose denominator it is,
# exceed their bars: the estimated models' late per-round regret does not shrink as fast as
# the known model's. The record:

# %%
from icml26.pipeline import paper

paper.show("02-hmm-bandits")

# %% [markdown]
# ## Exercises
#
# ````{exercise} Less persistence, smaller gap
# :label: hmm-bandits-ex-persistence
#
# Set `STAY = 0.6` (a state lasts 2.5 rounds on average) and predict, before running, what happens
# to (a) the gap between the state accuracy of $b_t$ and of the single-context posterior, and
# (b) the slope of the context-only learner. Then run it.
# ````
#
# ````{solution} hmm-bandits-ex-persistence
# :class: dropdown
#
# With little persistence the past says little about the present: $b_t$ is closer to the
# single-context posterior, so the accuracy gap shrinks. The context-only
# learner is then only mildly misspecified: the best action is nearly a function of $X_t$, its
# per-round regret after learning is small, and its slope over $[10^2, 10^4]$ drops well below
# $0.9$ (about $0.6$ when we ran it; the regret is still linear asymptotically, with a small
# constant). Forgetting is
# faster too: $\tau(P) = \tanh(\log(9)/4)$ falls from $0.98$ to $0.50$.
# ````
#
# ````{exercise} Total variation from the Hilbert metric
# :label: hmm-bandits-ex-tv
#
# Prove that for $p, q \in \Delta_N$ with positive entries, $\lVert p - q\rVert_{TV} \le 1 -
# e^{-d_H(p, q)}$, and find $p \ne q$ for which $\lVert p - q\rVert_{TV}$ is much smaller than
# $d_H(p,q)$. What does that mean for using $d_H$ in {prf:ref}`hmm-bandits-lem-perturbation`?
# ````
#
# ````{solution} hmm-bandits-ex-tv
# :class: dropdown
#
# Let $m = \min_i p_i/q_i$ and $M = \max_i p_i/q_i$. Since $\sum_i p_i = \sum_i q_i = 1$,
# $m \le 1 \le M$. Then
#
# $$
# \begin{aligned}
# \lVert p - q\rVert_{TV} &= \sum_i (q_i - p_i)^+ = \sum_i q_i (1 - p_i/q_i)^+
# \le (1 - m) \sum_i q_i \\
# &= 1 - m \le 1 - m/M = 1 - e^{-d_H}.
# \end{aligned}
# $$
#
# Example: $p = (1 -
# \epsilon^2, \epsilon^2)$, $q = (1 - \epsilon, \epsilon)$: the TV distance is about $\epsilon$
# but $d_H \approx \log(1/\epsilon) \to \infty$. The Hilbert metric is very sensitive to small
# probabilities, so the lemma is informative only when the estimated and true beliefs stay away
# from the boundary of the simplex — in practice, when $\hat P$ and $P$ have no tiny entries.
# ````
#
# ````{exercise} The misspecification term
# :label: hmm-bandits-ex-misspec
#
# Show that for any design matrix $\Phi \in \mathbb{R}^{t \times d}$, $\lambda > 0$ and $\xi \in
# \mathbb{R}^t$, $\lVert \Phi^\top \xi\rVert_{(\lambda I + \Phi^\top\Phi)^{-1}} \le \lVert \xi
# \rVert$, the step used in {prf:ref}`hmm-bandits-prop-estimated`. Then explain why a *fixed* belief
# error $\varepsilon$ makes the regret bound linear in $T$.
# ````
#
# ````{solution} hmm-bandits-ex-misspec
# :class: dropdown
#
# $\lVert \Phi^\top\xi\rVert^2_{V^{-1}} = \xi^\top \Phi V^{-1} \Phi^\top \xi$ with $V = \lambda I +
# \Phi^\top \Phi$. With the SVD $\Phi = U \Sigma W^\top$, $\Phi V^{-1}\Phi^\top = U
# \operatorname{diag}(\sigma_i^2 / (\lambda + \sigma_i^2)) U^\top \preceq I$, so the quadratic form
# is at most $\lVert\xi\rVert^2$. With $|\xi_s| \approx \varepsilon$ for all $s$,
# $\lVert\xi\rVert \approx \varepsilon\sqrt t$ enters the radius, and the regret bound gains
# $\varepsilon\sqrt T \cdot \sqrt{dT\log T} + 2\varepsilon T$: linear in $T$. Only an
# estimation error that shrinks with $t$ (re-estimate as data accumulates) keeps it sublinear.
# ````
#
# ````{exercise} Continue the filter or re-run it?
# :label: hmm-bandits-ex-adaptive
#
# `icml26.sequential.hmm.epoch_beliefs` continues the filter from $\hat b_{t_k - 1}$ with the new
# parameters
# at each refit. Write the alternative that re-runs the filter with the new estimate over the
# whole prefix $X_{1:t}$ at each epoch start and keeps the rows $t_k \le t < t_{k+1}$. (a) Use
# {prf:ref}`hmm-bandits-thm-forgetting` to bound the difference between the two beliefs at round $t_k +
# j$. (b) Compare the costs. (c) Measure the largest difference over rounds $t_k + 20 \le t <
# t_{k+1}$ on our runs.
# ````
#
# ````{solution} hmm-bandits-ex-adaptive
# :class: dropdown
#
# (a) On $[t_k, t_{k+1})$ both are the filter {eq}`hmm-bandits-eq-filter` with the *same* parameters $\hat\theta_k$ and
# the same contexts, started at $t_k$ from two different predictive laws ($\hat b_{t_k-1}^\top
# \hat P_k$, with $\hat b_{t_k - 1}$ from the old parameters, against the re-run filter's). By
# {prf:ref}`hmm-bandits-thm-forgetting`, with $\hat P_k$ in place of $P$, their Hilbert distance (hence
# their TV distance) at round $t_k + j$ is at most $\tau(\hat P_k)^{j}$ times the distance at
# $t_k$: the choice matters only for the first few rounds of each epoch. (b) Continuing costs one
# filter pass over $T$ in all; re-running costs $\sum_k t_{k+1} \approx 2T$ more steps on a
# doubling schedule (the Baum–Welch refits cost several times more than either). (c) For
# example, for the refit at $t_k$ = `EPOCHS[1]`:
#
# ```python
# P_k, pi_k, mu_k, v_k = fits_re[1]
# t_k, t_e = EPOCHS[1], EPOCHS[2]
# full, _ = hmm.forward_filter(hmm.gaussian_loglik(X[:, :t_e], mu_k, v_k), P_k, pi_k)
# print(hmm.tv_distance(full[:, t_k + 20 :], beliefs_re[:, t_k + 20 : t_e]).max())
# ```
#
# When we ran it (for the three refits) the largest TV difference right at the epoch start was
# up to about 0.4, but from 20 rounds on it was below 0.01 over all runs and rounds, well below
# the mean belief error $\bar\xi_t \approx 0.02$–$0.05$ of the estimate itself: with informative
# contexts the filter forgets fast (see the Birkhoff check), and only runs of ambiguous contexts
# keep the two
# versions apart for longer, at the slower rate of the chain.
# ````
#
# ````{exercise} Why three consecutive contexts?
# :label: hmm-bandits-ex-three-views
#
# Show that the pair moments $P_{12}$ of {eq}`hmm-bandits-eq-moments` do not identify $(B, P, w)$: find,
# for any invertible $Q \in \mathbb{R}^{N \times N}$, other factors giving the same $P_{12}$.
# Then explain which property of the triple moments $P_{13}(y)$ removes the ambiguity in
# {prf:ref}`hmm-bandits-alg-spectral`.
# ````
#
# ````{solution} hmm-bandits-ex-three-views
# :class: dropdown
#
# $P_{12} = B^\top \operatorname{diag}(w) P B = (B^\top Q)\,(Q^{-1} \operatorname{diag}(w) P
# Q^{-\top})\,(Q^\top B)$: any invertible $Q$ gives another factorisation (a matrix
# factorisation is identified only up to such a change of basis; non-negativity and row sums
# restrict $Q$ but do not pin it down in general). The triple moments add one more view: all the
# matrices $M(y)$ are similar to the *diagonal* matrices $\operatorname{diag}(B_{\cdot y})$ through
# the same change of basis $U_1^\top M_1$. A family of commuting diagonalisable matrices with
# distinct eigenvalues (for a generic combination) has a unique eigenbasis up to order and
# scale, so the basis is fixed, and with it $B$ up to a relabelling of the states. This is why
# spectral methods need three conditionally independent views of the hidden state, and why a
# rank-deficient $B$ or a singular $P$ (which makes $M_1$ or $M_3$ rank-deficient) breaks them.
# ````
#
# ````{exercise} What makes the dependence visible?
# :label: hmm-bandits-ex-mild
#
# In the natural-model experiment set `NATURAL_SD = 0.5`, `STATE_EFFECT = 1.0` and `STAY_INF =
# 0.98` (noisier rewards, a smaller state effect, a chain that forgets four times faster).
# Predict, before running, the every-round learner's largest $|t|$ for the score and for
# $\hat\theta$. Then also set `CONTEXT_SD_INF = 1.5` (contexts as informative as in the
# simplified-model experiments) and predict again.
# ````
#
# ````{solution} hmm-bandits-ex-mild
# :class: dropdown
#
# The selection effect needs rewards that reveal the state *beyond what the contexts already
# say*. With the first change alone the contexts are still weak (standard deviation 4), so even a
# noisy reward adds information about $S_t$: when we ran it, the every-round learner's largest
# $|t|$ was still 8.4 for $\hat\theta$ and 10.4 for the score (mean residual $+0.034$), against
# 3.3–3.6 for the score of the periodic schedules. With informative contexts as well, the filter's
# belief already pins the state down and past rewards add little: the every-round learner's
# largest $|t|$ fell to 3.4 ($\hat\theta$) and 3.5 (score), at the edge of the 3.56 line, with a
# mean residual of $+0.0035$, and its regret (751) was the smallest again (777 for $L = 50$, 949
# for growing epochs). In that regime a toy cannot tell the schedules apart, which is why the
# experiment above uses weak contexts and informative rewards.
# ````
#
# ## Summary
#
# - The HMM filter forgets its initial law geometrically, at least at Birkhoff's rate $\tau(P)$
#   and much faster when contexts are informative (the Birkhoff check).
# - With rewards linear in the belief, belief features reduce the problem to a linear bandit:
#   OFUL's regret grows like $\sqrt T$ (slope 0.5 here); an HMM fitted once by Baum–Welch adds a
#   small linear term, within the misspecification price of the theory and within a factor 3
#   of the known-HMM regret at this horizon (02.1–02.2). Re-estimating the HMM on a doubling
#   schedule shrinks the belief errors (roughly like $t^{-1/2}$) and with them the extra regret:
#   the late slope of its regret after the warm-up falls well below 1, and its regret after the
#   warm-up is no larger than the known-HMM learner's (02.4); the late slope is below 1 pooled
#   over all runs but not on every group of runs (02.3). A learner that ignores the
#   chain is misspecified and has linear regret (02.5).
# - When rewards depend on the hidden state and are informative about it, every-round updates
#   bias the regression (score and $\hat\theta$); periodic updates with growing epochs centre the
#   score (02.8) and keep the regret sublinear (02.6), but pay more regret than updating every
#   round at this horizon, and do not remove the adaptive-sampling bias of $\hat\theta$ (02.7).
# - With finite contexts, the spectral (method-of-moments) estimator has belief errors falling
#   like $n^{-1/2}$ (02.9), about twice those of Baum–Welch started from it; Baum–Welch
#   started cold does not improve with $n$ in the same 8 iterations.
# - Our filter, both Baum–Welch variants and the spectral estimator are checked against
#   `hmmlearn` (Cross-check section and tests).
