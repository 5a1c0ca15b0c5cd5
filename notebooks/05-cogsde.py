# %% [markdown]
# # 05 · cogsde — Controlled SDEs for long-horizon motion under latent decision uncertainty
#
# ## Overview
#
# An animal that receives a command — a stimulation cue to go forward, to turn, to stop — does
# not execute it like a robot: whether and when it complies depends on an internal decision
# state that we never observe and that changes at random. Predicting its motion under a known
# sequence of commands is therefore a problem about *latent decision uncertainty*: a good model
# must let the commands steer a latent state, represent the randomness of the decision process,
# and stay well behaved when rolled out over long horizons. CogSDE
# {cite}`cogsde2026controlled` answers with a *controlled stochastic differential equation* for a
# latent "cognitive" state. Its drift is a smooth mixture of three linear regimes whose weights
# depend on the state, and the command enters through two channels: a **level** channel (the
# sustained effect of the current command) and an **event** channel (an impulse when the command
# changes). The diffusion is state dependent. The latent path then modulates a trajectory
# generator that proposes $K$ futures, and a dissipativity condition is meant to keep the latent
# state bounded in mean square.
#
# This chapter builds that model and its mathematics at toy scale. We state the regime-switching
# SDE as it appears in the authors' released code, the dissipativity condition and the
# mean-square bound it implies (Itô's formula and a comparison argument), and the *soft* penalty
# by which the code encourages the condition on the states the model visits. We show why a
# penalty on visited states cannot certify the condition far from them, and we keep, as a
# labelled alternative, a parameterisation that is dissipative *by construction* with constants
# computed from the weights. Numerically we analyse Euler–Maruyama
# {cite}`kloeden1992numerical,higham2001algorithmic`, then train the paper's pipeline — a GRU
# encoder giving $z_0$, the SDE as a latent driver, a FiLM-modulated trajectory generator, a
# best-of-$K$ loss — to predict 2 s of motion from 1 s of history of a synthetic command-driven
# agent, and compare it over seeds with a stochastic recurrent baseline of similar size, a
# deterministic GRU and a neural ODE, with the paper's metrics (minADE/minFDE@20, average
# ADE/FDE, diversity) and a command-timing test.
#
# At the end you will be able to implement a regime-switching controlled SDE with level and
# event channels, simulate it with a batched Euler–Maruyama kernel that agrees with `torchsde`,
# train it with best-of-$K$ and a dissipativity penalty, measure where that penalty does and
# does not enforce the condition, and evaluate multimodal trajectory forecasts and their timing
# with respect to the commands.
#
# ```{admonition} What is known about the paper, and what is reconstructed
# :class: warning
#
# Only the paper's abstract was available; its authors are not identified in any source we
# could read. The model below is **read off the authors' released code** (CSDLLab/CogSDE), which
# may differ from the paper's text: the three-regime drift with level and event channels, the
# clamped state-dependent diffusion, the GRU encoder, the FiLM modulation, the best-of-$K$ loss,
# the dissipativity penalty with $\alpha = 0.01$, $\beta = 1$ and its schedule, and the metrics.
# Whether the paper's theorem has exactly the form of {prf:ref}`cogsde-thm-ms` is our inference:
# the abstract announces "dissipativity-based mean-square boundedness" (the conference page says
# "a theoretical upper bound on the long-horizon prediction"), and we prove a bound of that type.
# The dissipative-by-construction parameterisation of {prf:ref}`cogsde-prop-param` is **our
# alternative**, not the paper's. At toy scale we replace the paper's flow-matching generator
# (a transformer with 10 sampling steps) by a one-step FiLM-modulated network, so the $K$
# proposals differ only through the SDE's Brownian path, and the rat-keypoint and BABEL data by a
# synthetic agent. The code's command-perturbation analyses suggest how the paper supports
# "trajectories stay aligned with the commands"; our timing test is in that spirit, not a copy.
# ```
#
# ## Setting and notation
#
# Time is $t \in [0, T]$. The latent state is $z_t \in \mathbb{R}^d$; the command is
# $u_t \in \mathbb{R}^c$ (here one-hot over $c = 3$ commands *go / turn / stop*), piecewise
# constant and bounded, $U^2 := \sup_t \lVert u_t\rVert^2$ ($U^2 = 1$ for one-hot commands). On the
# frame grid of step $h$ (the frame period $\Delta t$), the **event** input is the clipped rate
# of change $\dot u_k := \operatorname{clip}\bigl((u_k - u_{k-1})/h, -10, 10\bigr)$, with
# $\dot u_0 = 0$. $W_t$ is an $m$-dimensional standard Brownian motion; the drift is $f$ and the
# diffusion $G(z) \in \mathbb{R}^{d\times m}$ with Frobenius norm $\lVert G\rVert_F$; here $G$ is
# diagonal, $G(z) = \operatorname{diag}\sigma(z)$. $\pi(z) \in \Delta^{S-1}$ are the weights of
# $S = 3$ regimes. We write $m_t := \mathbb{E}\lVert z_t\rVert^2$ for the second moment.
# $\odot$ is the entrywise product, $\lambda_{\min}(S)$ the smallest eigenvalue of a symmetric
# matrix, $\lVert B\rVert_2$ the spectral norm. Numerically $t_k = kh$,
# $\Delta W_k \sim \mathcal{N}(0, hI_m)$ and $u_k = u_{t_k}$. In code, tensors are time-major as
# in `torchsde`: latent paths `(n_steps + 1, N, d)`, commands `(n_steps, N, c)`.
#
# The observations are planar positions. An agent has a body-frame speed $v_t \ge 0$ and turn
# rate $\omega_t$, heading $\theta_t = \int_0^t \omega_s\,ds$ and position
# $p_t = \int_0^t v_s(\cos\theta_s, \sin\theta_s)\,ds$. A hidden decision state
# $e_t \in \{\text{engaged}, \text{distracted}\}$ (a Markov chain) decides whether it follows
# the command. A forecast sees $P$ past frames (1 s) of positions and commands, receives the $F$
# future commands (2 s), and returns $K$ sampled futures $\hat p^{(1)}, \dots, \hat p^{(K)}$, all in
# the agent's frame at the present (origin at the current position, heading along $+x$).
#
# ## Theory
#
# ```{prf:definition} CogSDE: a regime-switching controlled SDE
# :label: cogsde-def-switching
#
# The latent state solves the Itô SDE
#
# $$
# dz_t = f(z_t, u_t, \dot u_t)\,dt + G(z_t)\,dW_t, \qquad z_0 \text{ independent of } W,
# \quad \mathbb{E}\lVert z_0\rVert^2 < \infty,
# $$ (cogsde-eq-sde)
#
# with the drift a smooth mixture of $S$ linear regimes with two command channels,
#
# $$
# f(z, u, \dot u) = \sum_{i=1}^{S} \pi_i(z)\,\bigl(A_i z + a_i + B^{\mathrm{lvl}}_i u +
# B^{\mathrm{evt}}_i \dot u\bigr), \qquad
# \pi(z) = \operatorname{softmax}\bigl([\phi(z) W, 0]/\tau\bigr),
# $$ (cogsde-eq-switching)
#
# where $\phi$ is a two-layer $\tanh$ network and $\tau > 0$ a learned temperature. The **level**
# term $B^{\mathrm{lvl}}_i u_t$ is the sustained effect of the current command, the **event** term
# $B^{\mathrm{evt}}_i \dot u_t$ the impulse of a change of command; the state gates both through
# $\pi(z)$. The diffusion is diagonal, regime-mixed and state dependent,
#
# $$
# \sigma(z) = \operatorname{clamp}\Bigl(\sum_i \pi_i(z)\exp\bigl(\log s_i + g\,(h(z)\odot r_i +
# q_i)\bigr),\ 0.02,\ 0.5\Bigr),
# $$
#
# with $h$ a two-layer SiLU network and $g$ a learned gain. The released code initialises
# $A_i = 0.1 I + 0.1\,\mathcal{N}(0, 1)$ — positive diagonal, i.e. *expanding* — and $s_i = 0.1$.
# ```
#
# Nothing in {eq}`cogsde-eq-switching` makes the dynamics stable: each $A_i$ is free. Stability
# is asked of the model through the following condition.
#
# ```{prf:definition} Dissipativity
# :label: cogsde-def-dissipative
#
# A drift/diffusion pair is *$(\alpha, \beta)$-dissipative* if for some $\alpha > 0$,
# $\beta \ge 0$ and all $z \in \mathbb{R}^d$ and commands,
#
# $$
# 2\langle z, f(z, u)\rangle + \lVert G(z)\rVert_F^2 \le -\alpha \lVert z\rVert^2 +
# \beta\,(1 + \lVert u\rVert^2).
# $$ (cogsde-eq-dissipative)
#
# The left-hand side is $\mathcal{L}V(z)$, the Itô generator of {eq}`cogsde-eq-sde` applied to
# $V(z) = \lVert z\rVert^2$: {eq}`cogsde-eq-dissipative` says that $V$ is a Lyapunov function
# outside a ball whose radius grows with the command. The released code writes the same
# condition with other constants and without the command factor,
#
# $$
# 2\langle z, f\rangle + \lVert G(z)\rVert_F^2 \le -2\alpha\lVert z\rVert^2 + \beta,
# \qquad \alpha = 0.01,\ \beta = 1,
# $$ (cogsde-eq-paper-diss)
#
# which is {eq}`cogsde-eq-dissipative` with $\alpha \to 2\alpha$ and $\beta(1 + U^2) \to \beta$:
# the two forms are equivalent up to constants.
# ```
#
# ```{prf:theorem} Mean-square boundedness
# :label: cogsde-thm-ms
#
# Let $f, G$ be continuous and locally Lipschitz in $z$, uniformly over $u$ in bounded sets, and
# $(\alpha, \beta)$-dissipative, and let $u$ be measurable with
# $\sup_t \lVert u_t\rVert^2 \le U^2$. Then {eq}`cogsde-eq-sde` has a unique global solution and for all
# $t \ge 0$
#
# $$
# \mathbb{E}\lVert z_t\rVert^2 \le e^{-\alpha t}\,\mathbb{E}\lVert z_0\rVert^2 +
# \frac{\beta}{\alpha}\,(1 + U^2)\,\bigl(1 - e^{-\alpha t}\bigr).
# $$
#
# In particular $\sup_t \mathbb{E}\lVert z_t\rVert^2 \le \max\{\mathbb{E}\lVert z_0\rVert^2,
# \beta(1+U^2)/\alpha\}$ and $\limsup_{t\to\infty} \mathbb{E}\lVert z_t\rVert^2 \le
# \beta(1+U^2)/\alpha$, whatever the horizon.
# ```
#
# ```{prf:proof}
# *Local solution and localisation.* Locally Lipschitz coefficients give a unique solution up to
# the explosion time; let $\tau_R = \inf\{t : \lVert z_t\rVert \ge R\}$. *Itô's formula* for
# $Y_t = e^{\alpha t} V(z_t)$ with $V(z) = \lVert z\rVert^2$ ($\nabla V = 2z$,
# $\nabla^2 V = 2I$) gives
#
# $$
# dY_t = e^{\alpha t}\bigl(\alpha \lVert z_t\rVert^2 + 2\langle z_t, f(z_t,u_t)\rangle +
# \lVert G(z_t)\rVert_F^2\bigr)\,dt + 2 e^{\alpha t} z_t^\top G(z_t)\,dW_t .
# $$
#
# By {eq}`cogsde-eq-dissipative` the $dt$ term is at most $e^{\alpha t}\beta(1 + U^2)$. Integrate from $0$ to
# $t \wedge \tau_R$ and take expectations: the stochastic integral is a martingale with mean zero
# because its integrand is bounded on $[0, \tau_R]$, so
#
# $$
# \mathbb{E}\bigl[e^{\alpha (t\wedge\tau_R)}\lVert z_{t\wedge\tau_R}\rVert^2\bigr]
# \le \mathbb{E}\lVert z_0\rVert^2 + \beta(1+U^2)\,\frac{e^{\alpha t} - 1}{\alpha} =: C_t .
# $$
#
# *No explosion.* On $\{\tau_R \le t\}$ the left integrand is at least $R^2$, hence
# $\mathbb{P}(\tau_R \le t) \le C_t / R^2 \to 0$: $\tau_R \to \infty$ almost surely and the
# solution is global. *Conclusion.* Let $R \to \infty$; by Fatou's lemma
# $e^{\alpha t}\,\mathbb{E}\lVert z_t\rVert^2 \le C_t$, and multiplying by $e^{-\alpha t}$ is the
# claim. This is Grönwall's comparison argument for $m_t' \le -\alpha m_t + \beta(1+U^2)$, with
# the integrating factor $e^{\alpha t}$ applied *before* taking expectations; working with $Y_t$
# avoids having to show first that $m_t$ is finite and differentiable. This is the classical
# Lyapunov-function argument of Khasminskii {cite}`khasminskii2012stochastic` and Mao
# {cite}`mao2007stochastic`; the only step we do not spell out is the standard local existence
# for locally Lipschitz coefficients.
# ```
#
# With the code's constants {eq}`cogsde-eq-paper-diss` the same argument gives
# $\mathbb{E}\lVert z_t\rVert^2 \le e^{-2\alpha t}\,\mathbb{E}\lVert z_0\rVert^2 +
# \frac{\beta}{2\alpha}(1 - e^{-2\alpha t})$: with $\alpha = 0.01$, $\beta = 1$ a stationary
# level of $50$ and a relaxation time of $50$ s — a bound of the type the abstract announces, if
# the condition holds *for all* $z$.
#
# The released code does not impose {eq}`cogsde-eq-paper-diss` by construction. It adds to the
# training loss a soft penalty on the states that the model visits.
#
# ```{prf:definition} The soft dissipativity penalty
# :label: cogsde-def-penalty
#
# For a rollout $z_0, \dots, z_{T-1}$ with drift evaluations $f_k = f(z_k, u_k, \dot u_k)$, let
# $r_k := 2\langle z_k, f_k\rangle + \lVert\sigma(z_k)\rVert^2 + 2\alpha\lVert z_k\rVert^2 - \beta$,
# the *residual* of {eq}`cogsde-eq-paper-diss` (the condition holds at $z_k$ iff $r_k \le 0$). The
# penalty is
#
# $$
# \mathcal{L}_{\mathrm{bnd}} = \frac{1}{T}\sum_{k} w_k\,\tau_b\,
# \operatorname{softplus}(r_k/\tau_b),
# \qquad w_k = \begin{cases} 0.25 & k < T/2 \\ 1 & k \ge T/2 \end{cases},
# $$ (cogsde-eq-penalty)
#
# averaged over the batch, with $\tau_b = 1$, $\alpha = 0.01$, $\beta = 1$. It is switched on
# after 10 of 600 epochs and ramped linearly to its weight $\lambda$ over the next 20
# ($\lambda = 10^{-3}$ in the authors' example command; off in the released configuration).
# ```
#
# A penalty on visited states constrains the drift where the data put the latent state. Far away,
# the quadratic part decides.
#
# ```{prf:proposition} Far from the data, only the regimes' linear parts matter
# :label: cogsde-prop-far
#
# For the drift {eq}`cogsde-eq-switching` with bounded diffusion, fix a unit vector $e$ and
# bounded commands, and let $\pi^\infty(e) = \lim_{\rho\to\infty}\pi(\rho e)$ (it exists since
# $\phi$ is built from $\tanh$). Then
#
# $$
# \lim_{\rho\to\infty} \frac{r(\rho e)}{\rho^2} = 2\sum_i \pi^\infty_i(e)\,e^\top A_i e + 2\alpha .
# $$
#
# Hence if $\sum_i \pi^\infty_i(e)\,e^\top A_i e > -\alpha$ for some direction $e$, condition
# {eq}`cogsde-eq-paper-diss` fails at every far enough point along $e$, however small the penalty
# on visited states is.
# ```
#
# ```{prf:proof}
# $r(\rho e) = 2\rho^2\sum_i\pi_i(\rho e)\,e^\top A_i e + 2\rho\sum_i\pi_i(\rho e)\,e^\top(a_i +
# B^{\mathrm{lvl}}_i u + B^{\mathrm{evt}}_i\dot u) + \lVert\sigma\rVert^2 + 2\alpha\rho^2 - \beta$.
# The commands, $a_i$ and $\sigma$ are bounded, so after division by $\rho^2$ only the first and
# the $2\alpha$ terms survive; $\pi(\rho e) \to \pi^\infty(e)$ because $\tanh(\rho x)$ converges
# to $\operatorname{sign}(x)$ entrywise (where an argument is exactly $0$ the limit is the value
# at $0$). A positive limit makes $r(\rho e) > 0$ for all large $\rho$.
# ```
#
# The paper's pipeline uses the SDE as a latent driver of a trajectory generator.
#
# ```{prf:definition} The forecasting pipeline
# :label: cogsde-def-pipeline
#
# A GRU reads the past positions and commands and returns a context $c$; $z_0 = W_0 c$. The SDE
# {eq}`cogsde-eq-sde` is rolled out by Euler–Maruyama under the future commands, $K$ times with
# independent Brownian paths, giving latent paths $z^{(j)}_{1:F}$. Frame $t$ of sample $j$ is
# generated by a network whose hidden token is modulated by the latent state (FiLM),
#
# $$
# (\gamma_t, \beta_t) = M z^{(j)}_t, \qquad
# \Delta\hat p^{(j)}_t = \operatorname{MLP}\bigl(x_t \odot (1 + \gamma_t) + \beta_t\bigr),
# \qquad \hat p^{(j)}_t = \sum_{s \le t}\Delta\hat p^{(j)}_s,
# $$ (cogsde-eq-film)
#
# with $x_t = \tanh(e_t + V c)$ built from a learned frame embedding $e_t$. Training minimises
# the best-of-$K$ loss
#
# $$
# \mathcal{L}_K = \frac{1}{B}\sum_{b} \min_{j \le K} \sum_{t=1}^{F} \bigl\lVert \hat p^{(j)}_{b,t} -
# p_{b,t}\bigr\rVert^2 ,
# $$ (cogsde-eq-bok)
#
# plus $\lambda\,\mathcal{L}_{\mathrm{bnd}}$. The evaluation reports
# $\mathrm{minADE}_K = \frac{1}{B}\sum_b \min_j \frac1F\sum_t \lVert\hat p^{(j)}_{b,t} - p_{b,t}\rVert$,
# $\mathrm{minFDE}_K$ (the same at $t = F$), the averages over $j$ instead of the minimum (ADE,
# FDE) and the diversity, the mean distance between the end points of two proposals.
# ```
#
# Best-of-$K$ rewards a *set* of proposals of which one is close; it does not reward calibrated
# probabilities. Conversely, a condition checked only where the model has been cannot bound the
# second moment everywhere. The chapter's **alternative** closes that gap by construction: the
# linear part is negative definite up to a rotation, the nonlinearity and the diffusion are
# bounded. It is not the paper's model; it shows what a certificate costs.
#
# ```{prf:proposition} The chapter's alternative: dissipative by construction
# :label: cogsde-prop-param
#
# Let $A = -(\varepsilon I + M M^\top) + (N - N^\top)$ with $\varepsilon > 0$ and free
# $M, N \in \mathbb{R}^{d\times d}$;
# $\phi(z) = s \odot \tanh\bigl(W_2 \tanh(W_1 z + c_1) + c_2\bigr)$ with $s \in \mathbb{R}^d_{>0}$;
# and $G(z) = \operatorname{diag}\bigl(\varsigma \odot
# \operatorname{sig}(W_s z + b_s)\bigr)$ with $\varsigma \in \mathbb{R}^d_{>0}$ and
# $\operatorname{sig}(x) = 1/(1 + e^{-x})$ the logistic function. Then the pair
#
# $$
# f(z,u) = A z + \operatorname{sig}(W_g u + b_g) \odot \phi(z) + B u + b_0,\qquad G(z) \text{ as above},
# $$ (cogsde-eq-param)
#
# is $(\alpha, \beta)$-dissipative with
#
# $$
# \alpha = \lambda := \lambda_{\min}(\varepsilon I + M M^\top) \ge \varepsilon, \qquad
# \beta = \max\Bigl\{\tfrac{2a^2}{\lambda} + \lVert\varsigma\rVert^2,\;
# \tfrac{2 b^2}{\lambda}\Bigr\}, \quad a = \lVert s\rVert + \lVert b_0\rVert,\
# b = \lVert B\rVert_2 .
# $$
#
# Moreover $\lVert f(z,u)\rVert^2 \le 2L^2\lVert z\rVert^2 + K(1 + \lVert u\rVert^2)$ with
# $L = \lVert A\rVert_2$ and $K = 4\max\{a^2, b^2\}$.
# ```
#
# ```{prf:proof}
# The skew part does not contribute to the quadratic form: $\langle z, (N - N^\top) z\rangle = 0$,
# so $\langle z, A z\rangle = -z^\top(\varepsilon I + MM^\top) z \le -\lambda\lVert z\rVert^2$, and
# $\lambda \ge \varepsilon > 0$ because $MM^\top \succeq 0$. The gate lies in $(0,1)^d$ and
# $\lvert\tanh\rvert < 1$, so the remaining drift is bounded by
# $\lVert \operatorname{sig}(\cdot)\odot\phi(z) + Bu + b_0\rVert \le \lVert s\rVert + \lVert b_0\rVert +
# b\lVert u\rVert = a + b\lVert u\rVert$. Young's inequality $2xy \le \lambda x^2 + y^2/\lambda$
# gives
#
# $$
# 2\langle z, f\rangle \le -2\lambda\lVert z\rVert^2 + \lambda\lVert z\rVert^2 +
# \frac{(a + b\lVert u\rVert)^2}{\lambda}
# \le -\lambda\lVert z\rVert^2 + \frac{2a^2 + 2b^2\lVert u\rVert^2}{\lambda}.
# $$
#
# The diffusion is diagonal with entries in $(0, \varsigma_i)$, so
# $\lVert G(z)\rVert_F^2 \le \lVert\varsigma\rVert^2$. Adding the two and bounding
# $c_0 + c_1\lVert u\rVert^2 \le \max\{c_0, c_1\}(1+\lVert u\rVert^2)$ gives {eq}`cogsde-eq-dissipative` with the stated
# $(\alpha, \beta)$. For the growth bound,
# $\lVert f\rVert \le L\lVert z\rVert + a + b\lVert u\rVert$ and $(x + y)^2 \le 2x^2 + 2y^2$ twice.
# ```
#
# The certificate is conservative — Young's inequality spends half of the contraction and the
# bounds on $\tanh$ and $\operatorname{sig}$ are attained only asymptotically — so we expect the Monte-Carlo
# second moment to sit well below the bound. {ref}`cogsde-ex-tight` shows a case where the
# bound is an equality.
#
# In practice {eq}`cogsde-eq-sde` is simulated with the Euler–Maruyama scheme
#
# $$
# z_{k+1} = z_k + f(z_k, u_k)\,h + G(z_k)\,\Delta W_k, \qquad
# \Delta W_k \sim \mathcal{N}(0, h I_m) \text{ i.i.d.}
# $$ (cogsde-eq-em)
#
# ```{prf:theorem} Strong order 1/2 of Euler–Maruyama
# :label: cogsde-thm-strong
#
# If $f$ and $G$ are globally Lipschitz in $z$ (uniformly in $u$) and of linear growth, and the
# command is constant on each step (its switching times lie on the grid), the Euler–Maruyama
# approximation $z^h$ driven by the same Brownian path satisfies
# $\mathbb{E}\lVert z_T - z^h_T\rVert \le C\,h^{1/2}$ for a constant $C$ that depends on $T$ but not
# on $h$ {cite}`kloeden1992numerical`. When the noise is additive ($G$ constant) and $f$ is in
# addition twice continuously differentiable in $z$ with bounded derivatives, the order
# improves to $1$.
# ```
#
# ```{prf:proof}
# *Sketch.* Write the exact solution over one step by Itô–Taylor expansion:
# $z_{t_{k+1}} = z_{t_k} + f h + G\Delta W_k + \sum_{j,l} (\partial G_{\cdot l}\, G_{\cdot j})
# I_{(j,l)} + R_k$, where $I_{(j,l)} = \int_{t_k}^{t_{k+1}}\int_{t_k}^{s} dW^j_r\, dW^l_s$ are the
# double Itô integrals and $R_k$ collects terms with mean $O(h^{2})$ and mean square $O(h^{3})$.
# Euler–Maruyama drops the double-integral term, which has mean zero and mean square
# $O(h^2)$. The local errors are martingale increments, so their mean squares add up over the
# $T/h$ steps: $O(h^2)\cdot T/h = O(h)$; a discrete Grönwall argument, using the Lipschitz
# constants, propagates this to $\mathbb{E}\lVert z_T - z_T^h\rVert^2 = O(h)$, and Jensen's
# inequality gives the first absolute moment $O(h^{1/2})$. With additive noise $\partial G = 0$,
# the dropped term vanishes and the leading local error is $O(h^{3/2})$ in mean square root,
# giving order $1$. The full proof (Theorem 10.2.2 of {cite}`kloeden1992numerical`) handles the
# remainders carefully; we only sketch it.
# ```
#
# The continuous-time bound does not automatically survive discretisation: the explicit scheme
# can blow up when $h$ is large compared with the stiffness $L$. The next result makes the
# step-size condition explicit.
#
# ```{prf:proposition} Euler–Maruyama keeps the bound for small steps
# :label: cogsde-prop-em
#
# Under the hypotheses of {prf:ref}`cogsde-prop-param`, let $h < \alpha/(2L^2)$ and
# $\rho = 1 - h\alpha + 2h^2L^2 \in (0, 1)$. Then the iterates of {eq}`cogsde-eq-em` satisfy
#
# $$
# \mathbb{E}\lVert z_k\rVert^2 \le \rho^k\,\mathbb{E}\lVert z_0\rVert^2 +
# \frac{(\beta + hK)(1 + U^2)}{\alpha - 2hL^2}\,\bigl(1 - \rho^k\bigr),
# $$
#
# which tends to the bound of {prf:ref}`cogsde-thm-ms` as $h \to 0$ (since
# $\rho^{t/h} \to e^{-\alpha t}$).
# ```
#
# ```{prf:proof}
# $\Delta W_k$ is independent of $z_k$ with mean zero and covariance $hI$, so expanding the square,
# $\mathbb{E}\lVert z_{k+1}\rVert^2 = \mathbb{E}\bigl[\lVert z_k\rVert^2 + 2h\langle z_k, f\rangle +
# h^2\lVert f\rVert^2 + h\lVert G(z_k)\rVert_F^2\bigr]$ (the cross terms with $\Delta W_k$
# vanish). By {eq}`cogsde-eq-dissipative` and the growth bound,
# $m_{k+1} \le (1 - h\alpha + 2h^2L^2)\,m_k + h(\beta + hK)(1 + U^2)$. Since $\alpha \le \lambda \le
# L$, $\rho \ge 1 - h\alpha + 2h^2\alpha^2 > 0$, and $\rho < 1$ exactly when $h < \alpha/(2L^2)$.
# Unrolling the linear recursion, $m_k \le \rho^k m_0 + h(\beta+hK)(1+U^2)(1-\rho^k)/(1-\rho)$ with
# $1 - \rho = h(\alpha - 2hL^2)$. Finiteness of every $m_k$ follows by induction from the growth
# bound.
# ```

# %% tags=["hide-input"]
import math
import time

import matplotlib.pyplot as plt
import numpy as np
import torch
import torchsde
from torch.nn import functional as F

import icml26
from icml26.dynamics import motion, sde, switching

SEED = 5
rng = icml26.seed_everything(SEED)
icml26.plotting.use_book_style()
DEVICE = icml26.device()
# The tensors of this chapter are small: one intra-op thread avoids synchronisation overhead.
torch.set_num_threads(1)

# %% tags=["parameters", "hide-input"]
# Mean-square bound of the certified alternative (cogsde-thm-ms) and free drifts
LATENT_DIM = icml26.pick(ci=6, paper=16)
HIDDEN = icml26.pick(ci=16, paper=64)
N_PATHS = icml26.pick(ci=1024, paper=16384)
N_STEPS = icml26.pick(ci=500, paper=2000)
STEP = 0.02  # h, seconds; horizon N_STEPS * STEP
T_END = N_STEPS * STEP
SAVE_EVERY = icml26.pick(ci=10, paper=20)
N_FREE = icml26.pick(ci=4, paper=32)  # random unconstrained drifts
FREE_PATHS = icml26.pick(ci=128, paper=4096)
# Strong order of Euler–Maruyama (cogsde-thm-strong)
ORDER_PATHS = icml26.pick(ci=2048, paper=65536)
ORDER_FINE = icml26.pick(
    ci=2**10, paper=2**14
)  # steps of the finest Brownian grid on [0, 1]
ORDER_LEVELS = icml26.pick(ci=(3, 4, 5, 6, 7, 8), paper=(4, 5, 6, 7, 8, 9, 10, 11))
# Forecasting task: 1 s of history, 2 s of prediction at 10 frames per second
DT = 0.1  # seconds per frame
PAST, FUTURE = 10, 20
P_COMMAND = 0.05  # probability per frame that a new command is drawn
TRAIN_AGENTS = icml26.pick(ci=128, paper=2048)
TRAIN_LEN = icml26.pick(ci=200, paper=2000)
TEST_AGENTS = icml26.pick(ci=128, paper=1024)
Z_DIM = icml26.pick(ci=8, paper=64)  # latent state d (the released code: 64)
NET = icml26.pick(
    ci=16, paper=64
)  # width of encoder, generator and the SDE's small networks
N_REGIMES = 3
TRAIN_ITERS = icml26.pick(ci=40, paper=2000)
BATCH = icml26.pick(ci=16, paper=64)
K_TRAIN = icml26.pick(ci=4, paper=20)  # proposals in the best-of-K loss
K_EVAL = 20  # minADE / minFDE @ 20
LR = 1e-2
SEEDS = icml26.pick(ci=(0, 1, 2, 3, 4), paper=tuple(range(10)))
PENALTY = 1e-3  # weight of L_bnd in the authors' example command
STRONG_PENALTY = 1.0  # a thousand times the example weight, for comparison
ALPHA_B, BETA_B = 0.01, 1.0  # constants of the penalised condition in the released code
SHIFTS = (0, 3, 6)  # command-timing test: delay of the command switch, frames
SWITCH0 = 4  # first future frame of the switched command before the delay

# %% [markdown]
# The model at a glance: a GRU turns the recent past into the latent state $z_0$; the controlled
# SDE carries it forward under the commands (level and event channels) and its own noise, with
# regime weights $\pi(z)$ that depend on where the state is; each future frame of a small
# generator is modulated by $z_t$. $K$ noise draws give $K$ proposed futures.

# %% tags=["hide-input"] mystnb={"figure": {"caption": "The CogSDE pipeline at toy scale: the past gives the initial latent state, the commands drive the regime-switching SDE through a level and an event channel, the diffusion adds the agent's variability, and the latent path modulates (FiLM) a generator of future positions. K Brownian paths give K proposals, trained with the best-of-K loss.", "name": "05-fig-model"}}
fig, ax = plt.subplots(figsize=(7.4, 3.2))
icml26.plotting.diagram(
    ax,
    {
        "past": (0.09, 0.78, "past positions\nand commands (1 s)"),
        "enc": (0.33, 0.78, "GRU encoder"),
        "sde": (
            0.6,
            0.5,
            "regime-switching SDE\n$dz = \\sum_i \\pi_i(z)(\\dots)\\,dt + G(z)\\,dW$",
        ),
        "u": (0.14, 0.22, "future commands\nlevel $u_t$, event $\\dot u_t$"),
        "dw": (0.6, 0.12, "noise $dW_t$ (K draws)"),
        "gen": (0.9, 0.78, "FiLM generator"),
        "out": (0.9, 0.28, "K proposals\n(2 s)"),
    },
    [
        ("past", "enc", ""),
        ("enc", "sde", "$z_0$"),
        ("enc", "gen", "context"),
        ("u", "sde", "drift"),
        ("dw", "sde", ""),
        ("sde", "gen", "$z_t$"),
        ("gen", "out", ""),
    ],
    colors={"past": 0, "enc": 2, "sde": 1, "u": 0, "dw": 3, "gen": 2, "out": 0},
    fontsize=9,
)
ax.set_title("From commands to K proposed futures")
plt.show()


# %% [markdown]
# ## Implementation
#
# The readable references are the equations written literally: {eq}`cogsde-eq-switching` for
# one state, regime by regime, and {eq}`cogsde-eq-em` one path at a time, one step at a time.


# %% tags=["reference"]
def switching_drift_reference(model, z, u, du):
    """f(z, u, du) = sum_i pi_i(z) (A_i z + a_i + B_lvl_i u + B_evt_i du), one state at a time."""
    out = torch.empty_like(z)
    for n in range(z.shape[0]):
        feat = model.phi(z[n])
        raw = torch.cat([model.logits(feat), feat.new_zeros(1)])
        pi = torch.softmax(raw / model.log_tau.exp(), dim=0)
        f = torch.zeros_like(z[n])
        for i in range(model.n_regimes):
            term = model.A[i] @ z[n] + model.a[i] + model.B_lvl[i] @ u[n]
            if model.B_evt is not None:
                term = term + model.B_evt[i] @ du[n]
            f = f + pi[i] * term
        out[n] = f
    return out


def em_reference(drift, diffusion, z0, h, u, dW):
    """Euler–Maruyama, path by path: z_{k+1} = z_k + f(z_k, u_k) h + diag(G(z_k)) dW_k."""
    n_steps, n_paths = dW.shape[0], z0.shape[0]
    out = torch.empty(n_steps + 1, *z0.shape, dtype=z0.dtype)
    for i in range(n_paths):
        z = z0[i : i + 1]
        out[0, i] = z[0]
        for k in range(n_steps):
            z = z + drift(z, u[k : k + 1]) * h + diffusion(z) * dW[k, i : i + 1]
            out[k + 1, i] = z[0]
    return out


# %% [markdown]
# The kernels: `icml26.dynamics.switching.RegimeSwitchingSDE` evaluates the drift of all states
# and all regimes in one matrix product (the regime weights are computed once per step and shared
# with the diffusion), `switching.command_channels` builds $[u_k, \dot u_k]$ from a command grid,
# and `icml26.dynamics.sde.euler_maruyama` advances all $N$ paths together, with optional
# pre-drawn increments, validating its arguments and never leaving the device.

# %%
torch.manual_seed(SEED)
rs_small = switching.RegimeSwitchingSDE(4, 3, hidden=8).double()
g = torch.Generator().manual_seed(SEED)
u_small = F.one_hot(torch.randint(0, 3, (25,), generator=g), 3).double()
v_small = switching.command_channels(u_small, 0.05)  # (25, 6): level and event channels
z0_small = torch.randn(7, 4, generator=g, dtype=torch.float64)
dW_small = math.sqrt(0.05) * torch.randn(25, 7, 4, generator=g, dtype=torch.float64)
with torch.no_grad():
    zs = torch.randn(50, 4, generator=g, dtype=torch.float64)
    vs = v_small[torch.randint(0, 25, (50,), generator=g)]
    icml26.checks.agree(
        "switching drift: kernel vs reference",
        rs_small.drift(zs, vs),
        switching_drift_reference(rs_small, zs, vs[:, :3], vs[:, 3:]),
        atol=1e-12,
    )
    slow = em_reference(
        rs_small.drift, rs_small.diffusion, z0_small, 0.05, v_small, dW_small
    )
    fast = sde.euler_maruyama(
        rs_small.drift, rs_small.diffusion, z0_small, 0.05, u=v_small, dW=dW_small
    )
icml26.checks.agree(
    "Euler–Maruyama: batched kernel vs per-path loop", fast, slow, atol=1e-12
)
print("drift and Euler–Maruyama: kernels agree with the references to 1e-12")

# %% [markdown]
# ## Experiments
#
# ### The certified alternative obeys its mean-square bound (claim 05.1)
#
# *Claim (theory of the bound).* A pair satisfying {eq}`cogsde-eq-dissipative` has a second
# moment bounded uniformly in time ({prf:ref}`cogsde-thm-ms`). We check the theorem on the
# chapter's certified alternative, where the constants are known from the weights
# ({prf:ref}`cogsde-prop-param`): we draw one with random weights (the additive command channel
# scaled up so that the command matters), compute its certificate, simulate `N_PATHS` paths for
# `N_STEPS` steps ($T = 10$ s at the default scale) under a random piecewise-constant command
# sequence, and compare the Monte-Carlo estimate $\hat m_t$ (with its standard error) with the
# bound and with the discrete bound of {prf:ref}`cogsde-prop-em`.

# %%
torch.manual_seed(SEED)
cog = sde.CertifiedSDE(LATENT_DIM, 3, HIDDEN, eps=0.5, sigma=0.5).to(DEVICE)
with torch.no_grad():
    cog.shift.weight.mul_(2.0)
cert = cog.certificate()
h_max = cert.alpha / (2 * cert.lipschitz**2)
print(
    f"certificate: alpha = {cert.alpha:.3f}, beta = {cert.beta:.2f}, L = {cert.lipschitz:.2f}; "
    f"EM step h = {STEP} < alpha / (2 L^2) = {h_max:.3f}: {STEP < h_max}"
)

g = torch.Generator().manual_seed(SEED + 1)
segments = torch.randint(0, 3, (N_STEPS // 50,), generator=g).repeat_interleave(50)
commands = (
    F.one_hot(segments, 3).float().to(DEVICE)
)  # (N_STEPS, 3), shared by every path
z0 = (2.0 * torch.randn(N_PATHS, LATENT_DIM, generator=g)).to(DEVICE)
dW = (math.sqrt(STEP) * torch.randn(N_STEPS, N_PATHS, LATENT_DIM, generator=g)).to(
    DEVICE
)
with torch.no_grad():
    t0 = time.perf_counter()
    path = sde.euler_maruyama(
        cog.drift, cog.diffusion, z0, STEP, u=commands, dW=dW, save_every=SAVE_EVERY
    )
    em_seconds = time.perf_counter() - t0
sq = path.pow(2).sum(-1).double()
m_hat, m_se = sq.mean(1), sq.std(1) / math.sqrt(N_PATHS)
times = (
    torch.arange(path.shape[0], dtype=torch.float64, device=DEVICE) * STEP * SAVE_EVERY
)
m0 = m_hat[0].item()
bound = sde.mean_square_bound(times, cert.alpha, cert.beta, m0, 1.0)
bound_em = (
    sde.em_mean_square_bound(times / STEP, STEP, cert, m0, 1.0)
    if STEP < h_max
    else None
)
ratio = (m_hat / bound)[1:]  # at t = 0 the bound equals the empirical m_0 by definition
allowance = (3 * m_se / bound)[1:]
print(
    f"max_t m_hat/bound = {ratio.max().item():.3f}; at T: m_hat = {m_hat[-1].item():.3f}, "
    f"bound = {bound[-1].item():.1f} (stationary level beta/alpha = {cert.beta / cert.alpha:.1f})"
)

# %% [markdown]
# A demonstration, not evidence about CogSDE: an *unconstrained* linear part is free to be
# unstable. We draw `N_FREE` drifts of the same form with a free Gaussian matrix $A$
# (`sde.UnconstrainedSDE`: same layers, same diffusion, same commands and noise); a Gaussian
# $6\times 6$ matrix has an eigenvalue with positive real part in most draws, and then the second
# moment explodes.

# %%
m_free, free_eigs = [], []
for r in range(N_FREE):
    torch.manual_seed(SEED + 100 + r)
    free = sde.UnconstrainedSDE(LATENT_DIM, 3, HIDDEN, sigma=0.5).to(DEVICE)
    with torch.no_grad():
        free.shift.weight.copy_(cog.shift.weight)
        p_free = sde.euler_maruyama(
            free.drift,
            free.diffusion,
            z0[:FREE_PATHS],
            STEP,
            u=commands,
            dW=dW[:, :FREE_PATHS],
            save_every=SAVE_EVERY,
        )
    m_free.append(p_free.pow(2).sum(-1).double().mean(1).clamp(max=1e30))
    free_eigs.append(
        torch.linalg.eigvals(free.linear().detach().cpu().double()).real.max().item()
    )
m_free = torch.stack(m_free)  # (N_FREE, n_saved)
print(
    f"largest real part of an eigenvalue of each free A: {[round(e, 2) for e in free_eigs]}"
)
print(
    f"free drifts above 1000x the certified bound at T: "
    f"{int((m_free[:, -1] > 1e3 * bound[-1]).sum())} of {N_FREE}"
)

# %% tags=["hide-input"] mystnb={"figure": {"caption": "The certified alternative stays under its mean-square bound (claim 05.1); drifts of the same form with a free linear part explode whenever it has an unstable eigenvalue.", "name": "05-fig-bound"}}
fig, ax = plt.subplots(figsize=(6.4, 3.6))
tt = times.cpu().numpy()
ax.plot(tt, bound.cpu(), color=icml26.plotting.color(1), label="bound of the theorem")
if bound_em is not None:
    ax.plot(
        tt,
        bound_em.cpu(),
        "--",
        color=icml26.plotting.color(4),
        label="Euler–Maruyama bound",
    )
lo, hi = (m_hat - 3 * m_se).cpu(), (m_hat + 3 * m_se).cpu()
ax.fill_between(tt, lo, hi, color=icml26.plotting.color(0), alpha=0.3)
ax.plot(
    tt,
    m_hat.cpu(),
    color=icml26.plotting.color(0),
    label="certified SDE, Monte Carlo ±3 s.e.",
)
for r in range(N_FREE):
    ax.plot(
        tt,
        m_free[r].cpu(),
        color=icml26.plotting.color(7),
        lw=0.8,
        alpha=0.7,
        label="free linear part (random draws)" if r == 0 else None,
    )
ax.set_yscale("log")
ax.set_ylim(1e-1, 1e6)
ax.set_xlabel("time t (s)")
ax.set_ylabel(r"$\mathbb{E}\|z_t\|^2$ (latent units$^2$)")
ax.set_title("The certified SDE stays under its bound; free drifts may explode")
ax.legend(loc="upper left")
plt.show()

# %% [markdown]
# The Monte-Carlo second moment decays with the initial condition and settles far below the
# bound's stationary value $\beta(1 + U^2)/\alpha$: the certificate is valid but conservative. The
# discrete bound of {prf:ref}`cogsde-prop-em` lies slightly above the continuous one, as it should
# for $h = 0.02$.

# %% tags=["claim"]
# fails if: the certified drift were not dissipative (or the bound's constants wrong): the
# Monte-Carlo second moment would exceed the bound by more than its sampling allowance
icml26.claim(
    "05.1",
    f"certified SDE: max_t MC E‖z_t‖² / bound, T = {T_END:g} s",
    ratio.max().item(),
    at_most=1.0 + allowance.max().item(),
    kind="theorem",
)

# %% [markdown]
# ### Euler–Maruyama has strong order 1/2 (claim 05.2)
#
# *Claim (background the paper relies on).* On an SDE with a known solution, the pathwise error
# of Euler–Maruyama driven by the same Brownian path decays like $h^{1/2}$
# ({prf:ref}`cogsde-thm-strong`). We use geometric Brownian motion
# $dX = \mu X\,dt + \varsigma X\,dW$, whose solution is
# $X_T = X_0\exp\bigl((\mu - \varsigma^2/2)T + \varsigma W_T\bigr)$; its noise is multiplicative,
# so the order is $1/2$ and not $1$. We draw the increments on the finest grid and sum them to
# coarser grids, so every step size sees the same Brownian path.

# %%
mu, vol, horizon_gbm = 0.5, 1.0, 1.0
g = torch.Generator().manual_seed(SEED + 2)
dW_fine = torch.randn(ORDER_FINE, ORDER_PATHS, 1, generator=g, dtype=torch.float64)
dW_fine = (dW_fine * math.sqrt(horizon_gbm / ORDER_FINE)).to(DEVICE)
x0 = torch.ones(ORDER_PATHS, 1, dtype=torch.float64, device=DEVICE)
exact = x0 * torch.exp((mu - vol**2 / 2) * horizon_gbm + vol * dW_fine.sum(0))
steps, errors = [], []
for level in ORDER_LEVELS:
    n = 2**level
    dW_n = dW_fine.reshape(n, ORDER_FINE // n, ORDER_PATHS, 1).sum(1)
    x = sde.euler_maruyama(
        lambda z, u: mu * z, lambda z: vol * z, x0, horizon_gbm / n, dW=dW_n
    )
    steps.append(horizon_gbm / n)
    errors.append((x[-1] - exact).abs().mean().item())
slope, intercept = icml26.stats.loglog_fit(steps, errors)
print(
    f"strong errors: {[f'{e:.4f}' for e in errors]}; fitted log-log slope {slope:.3f}"
)

# %% tags=["hide-input"] mystnb={"figure": {"caption": "Halving the step shrinks the pathwise Euler–Maruyama error by about $\\sqrt 2$: strong order ½ (claim 05.2).", "name": "05-fig-order"}}
fig, ax = plt.subplots(figsize=(5.6, 3.6))
hs = np.array(steps)
ax.loglog(hs, errors, "o", color=icml26.plotting.color(0), label="Euler–Maruyama, GBM")
ax.loglog(
    hs,
    np.exp(intercept) * hs**slope,
    color=icml26.plotting.color(0),
    alpha=0.6,
    label=f"fit: slope {slope:.2f}",
)
ax.loglog(
    hs,
    errors[-1] * (hs / hs[-1]) ** 1.0,
    ":",
    color=icml26.plotting.color(7),
    label="slope 1 (additive noise)",
)
ax.set_xlabel("step size h (s)")
ax.set_ylabel(r"strong error $\mathbb{E}|X_T - X^h_T|$")
ax.set_title("Halving h shrinks the pathwise error by about √2: strong order 1/2")
ax.legend()
plt.show()

# %% tags=["claim"]
# fails if: the Euler–Maruyama step used the wrong Brownian increment scale (order ≠ ½)
icml26.claim(
    "05.2",
    "Euler–Maruyama strong error on GBM: log-log slope in h",
    slope,
    between=(0.4, 0.6),
    kind="theorem",
)

# %% [markdown]
# ### Forecasting a command-driven agent: 2 s from 1 s of history (claims 05.3–05.5)
#
# *Claim (the paper's experiments).* CogSDE improves motion prediction under commands over latent
# dynamics baselines, and its trajectories stay aligned with the commands.
#
# **The task.** `icml26.dynamics.sde.simulate_animal` generates agents in the plane; it stands
# for the paper's animals under stimulation commands (the rat data set), reduced to one point
# per agent. Commands switch at random (5 % per frame of 0.1 s) between *go* (target speed 1,
# no turning), *turn* (speed 0.6, turn rate 1.2 rad/s) and *stop*. A hidden decision state
# switches from engaged to distracted (2 % per frame) and back (6 %); engaged, the speed and turn
# rate relax (rate 3/s) towards the command's target, distracted towards a slow wander with three
# times the noise. A forecast sees 1 s (10 frames) of positions and commands and the 2 s
# (20 frames) of future commands, and proposes $K$ futures, as in the released configurations
# (which use 30 frames per second).
#
# **The models** share the GRU encoder, the FiLM generator and the loss
# ({prf:ref}`cogsde-def-pipeline`); only the latent driver differs:
# - **CogSDE**: the regime-switching SDE {eq}`cogsde-eq-switching` with level and event
#   channels, trained with best-of-$K$ and the penalty {eq}`cogsde-eq-penalty` at the example
#   weight $\lambda = 10^{-3}$;
# - **CogSDE, no event**: the same without $B^{\mathrm{evt}}$ (the ablation);
# - **RSSM-like GRU** (the stochastic baseline): $z_{k+1} = \mathrm{GRU}(u_k, z_k) + s(z_k)\odot\varepsilon_k$
#   with a learned state-dependent noise scale, like the code's recurrent state-space baseline;
# - **GRU**: the same without noise (a deterministic latent autoregressive baseline);
# - **neural ODE**: $dz = \mathrm{MLP}([z, u])\,dt$, deterministic.
#
# The stochastic models are trained with $K$ = `K_TRAIN` proposals and evaluated with
# $K = 20$; a deterministic model has a single proposal, so its minADE equals its ADE. Every
# model is trained from `len(SEEDS)` seeds on fresh windows; the metrics are computed on the same
# test agents. Training is tiny at the default scale (`TRAIN_ITERS` steps of AdamW with weight
# decay 0.05 and gradient clipping at 1, as in the code, but a constant learning rate).

# %%
g_data = torch.Generator().manual_seed(SEED + 3)
train = sde.simulate_animal(
    TRAIN_AGENTS, TRAIN_LEN, DT, generator=g_data, p_command=P_COMMAND
)
test = sde.simulate_animal(
    TEST_AGENTS, PAST + FUTURE, DT, generator=g_data, p_command=P_COMMAND
)
test_ids = torch.arange(TEST_AGENTS)
test_past, test_cmd, test_future = motion.motion_windows(
    test, test_ids, torch.zeros_like(test_ids), PAST, FUTURE, DT
)

MODELS = ("CogSDE", "CogSDE, no event", "RSSM-like GRU", "GRU", "neural ODE")
STOCHASTIC = {"CogSDE": True, "CogSDE, no event": True, "RSSM-like GRU": True}


def build(name, seed):
    """The forecaster with the named latent driver, initialised from `seed`."""
    torch.manual_seed(seed)
    if name.startswith("CogSDE"):
        rs = switching.RegimeSwitchingSDE(
            Z_DIM, 3, n_regimes=N_REGIMES, hidden=NET // 2, event=name == "CogSDE"
        )
        driver = motion.SDEDriver(rs)
    elif name == "certified SDE":
        driver = motion.SDEDriver(
            sde.CertifiedSDE(Z_DIM, 3, NET // 2, eps=0.1, sigma=0.1)
        )
    elif name == "neural ODE":
        driver = motion.ODEDriver(Z_DIM, 3, NET)
    else:
        driver = motion.RecurrentDriver(Z_DIM, 3, noisy=name == "RSSM-like GRU")
    return motion.MotionForecaster(driver, 3, FUTURE, hidden=NET)


def train_forecaster(model, seed, n_samples, penalty=0.0):
    """Best-of-K training (cogsde-eq-bok), plus the ramped dissipativity penalty if asked."""
    gen = torch.Generator().manual_seed(1000 + seed)
    opt = torch.optim.AdamW(model.parameters(), lr=LR, weight_decay=0.05)
    rs = getattr(model.driver, "sde", None)
    for it in range(TRAIN_ITERS):
        agents = torch.randint(0, TRAIN_AGENTS, (BATCH,), generator=gen)
        starts = torch.randint(
            0, TRAIN_LEN - PAST - FUTURE + 1, (BATCH,), generator=gen
        )
        past, cmd, future = motion.motion_windows(
            train, agents, starts, PAST, FUTURE, DT
        )
        pos, path = model(
            past, cmd, DT, n_samples=n_samples, generator=gen, return_latent=True
        )
        loss = motion.best_of_k_loss(pos, future)
        if penalty > 0 and isinstance(rs, switching.RegimeSwitchingSDE):
            v = switching.command_channels(
                cmd.transpose(0, 1).repeat(1, n_samples, 1), DT
            )
            res = switching.dissipativity_residual(
                rs, path[:-1].flatten(0, 1), v.flatten(0, 1), alpha=ALPHA_B, beta=BETA_B
            )
            ramp = switching.penalty_ramp(it, TRAIN_ITERS)
            loss = loss + penalty * ramp * switching.dissipativity_penalty(
                res.view(FUTURE, -1)
            )
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
    return model


def forecast(model, name, past, cmd, seed):
    """K_EVAL proposals (one for a deterministic model), same Brownian draws for the same seed."""
    gen = torch.Generator().manual_seed(2000 + seed)
    k = K_EVAL if STOCHASTIC.get(name, False) else 1
    with torch.no_grad():
        return model(past, cmd, DT, n_samples=k, generator=gen)


def n_params(model):
    return sum(p.numel() for p in model.parameters())


runs = [(seed, name) for seed in SEEDS for name in MODELS]
trained, metrics = {}, {name: [] for name in MODELS}
for seed, name in icml26.progress(runs, desc="training"):
    k = K_TRAIN if STOCHASTIC.get(name, False) else 1
    model = train_forecaster(
        build(name, seed), seed, k, PENALTY if name == "CogSDE" else 0.0
    )
    trained[seed, name] = model
    metrics[name].append(
        motion.trajectory_metrics(
            forecast(model, name, test_past, test_cmd, seed), test_future
        )
    )
for name in MODELS:
    print(f"{name:>17}: {n_params(trained[SEEDS[0], name])} parameters")


# %% [markdown]
# The metrics over seeds, mean and a 95 % $t$-interval (in metres if speeds are in m/s). The
# "constant velocity" row extrapolates the last observed displacement, a floor that any learned
# model should beat.


# %%
def interval(values):
    """Mean and half-width of the 95 % t-interval over seeds."""
    x = np.asarray(values, dtype=float)
    t975 = {2: 12.71, 3: 4.30, 4: 3.18, 5: 2.78, 6: 2.57, 8: 2.36, 10: 2.26}.get(
        len(x), 2.0
    )
    return x.mean(), t975 * x.std(ddof=1) / math.sqrt(len(x))


keys = ("minADE", "minFDE", "ADE", "FDE", "diversity")
print(
    f"{'model':>17} | "
    + " | ".join(f"{k + ('@20' if k.startswith('min') else ''):>13}" for k in keys)
)
for name in MODELS:
    cells = []
    for key in keys:
        m, w = interval([r[key] for r in metrics[name]])
        cells.append(f"{m:6.3f} ±{w:5.3f}")
    print(f"{name:>17} | " + " | ".join(cells))
last_step = test_past[:, -1, :2] - test_past[:, -2, :2]
const_vel = (
    last_step[:, None] * torch.arange(1, FUTURE + 1)[None, :, None]
    + test_past[:, -1:, :2]
)
cv = motion.trajectory_metrics(const_vel.unsqueeze(0), test_future)
print(
    f"{'constant velocity':>17} | {cv['minADE']:6.3f}        | {cv['minFDE']:6.3f}        |"
)
ratio_min = [
    a["minADE"] / b["minADE"]
    for a, b in zip(metrics["CogSDE"], metrics["RSSM-like GRU"], strict=True)
]
print(f"minADE@20, CogSDE / RSSM-like GRU per seed: {[round(r, 2) for r in ratio_min]}")

# %% tags=["hide-input"] mystnb={"figure": {"caption": "Best-of-20 and average displacement errors per model over five training seeds (mean and 95 % t-interval). A deterministic model has one proposal, so its two bars coincide.", "name": "05-fig-ade"}}
fig, ax = plt.subplots(figsize=(7.2, 3.4))
xs = np.arange(len(MODELS))
for j, (key, label) in enumerate((("minADE", "minADE@20"), ("ADE", "average ADE"))):
    stats = [interval([r[key] for r in metrics[name]]) for name in MODELS]
    ax.bar(
        xs + (j - 0.5) * 0.38,
        [s[0] for s in stats],
        0.36,
        yerr=[s[1] for s in stats],
        capsize=3,
        color=icml26.plotting.color(j),
        label=label,
    )
ax.axhline(cv["ADE"], color="0.4", ls=":", label="constant velocity (ADE)")
ax.set_xticks(xs, [n.replace(", ", ",\n") for n in MODELS])
ax.set_ylabel("displacement error (m)")
ax.set_title("Best-of-20 vs average error over seeds: the stochastic drivers' gap")
ax.legend()
plt.show()

# %% tags=["hide-input"] mystnb={"figure": {"caption": "Three test agents: 1 s of history (black), the true 2 s future coloured by the command in force, and CogSDE's 20 proposals (grey; the best one dashed).", "name": "05-fig-samples"}}
pos_cog = forecast(trained[SEEDS[0], "CogSDE"], "CogSDE", test_past, test_cmd, SEEDS[0])
fig, axes = plt.subplots(1, 3, figsize=(7.5, 2.9))
for ax, b in zip(axes, (0, 1, 2), strict=True):
    p = pos_cog[:, b].numpy()
    for j in range(p.shape[0]):
        ax.plot(p[j, :, 0], p[j, :, 1], color="0.65", lw=0.6)
    best = int((pos_cog[:, b] - test_future[b]).norm(dim=-1).mean(-1).argmin())
    ax.plot(
        p[best, :, 0], p[best, :, 1], "--", color="k", lw=1.0, label="best proposal"
    )
    hist = test_past[b, :, :2].numpy()
    ax.plot(hist[:, 0], hist[:, 1], color="k", lw=1.5, label="history")
    truth = test_future[b].numpy()
    cmd_id = test_cmd[b].argmax(-1).numpy()
    for c, cname in enumerate(sde.COMMANDS):
        mask = cmd_id == c
        ax.scatter(
            truth[mask, 0],
            truth[mask, 1],
            s=8,
            color=icml26.plotting.color(c),
            label=f"truth: {cname}",
            zorder=3,
        )
    ax.set_xlabel("x (m)")
    ax.set_ylabel("y (m)")
    ax.set_aspect("equal", adjustable="datalim")
    ax.set_title(f"test agent {b}")
axes[0].legend(fontsize=7, loc="best")
fig.suptitle("20 CogSDE proposals against the truth, commands marked by colour")
plt.show()

# %% [markdown]
# **The command-timing test.** To ask whether predictions are *aligned in time* with the
# commands, we give every test agent a controlled command sequence: the last observed command is
# held, then replaced at future frame $k_\delta = 4 + \delta$ by *stop* (or by *go* if it already
# was *stop*), for delays $\delta \in \{0, 3, 6\}$ frames. With the same Brownian draws we predict
# once with and once without the switch; the response curve is the mean distance between the two
# predicted velocities, frame by frame. It is zero before $k_\delta$ for every causal driver. The
# **response lag** is the (interpolated) number of frames from $k_\delta$ until the curve reaches
# half of its peak. The true agent, engaged and noise-free, gives the reference lag (it relaxes
# at rate 3/s and covers 30 % of the change in the switch frame itself, so it reaches half of it
# about one frame later, as printed); the **timing error** is the
# absolute difference from it, averaged over $\delta$. A model that ignores the commands has no
# defined lag; one that responds late, early or smeared has a large timing error.

# %%
hold = test_past[:, -1, 2:].argmax(-1)  # last observed command of each agent
target = torch.where(hold == 2, 0, 2)
hold_cmd = F.one_hot(hold[:, None].expand(-1, FUTURE), 3).float()


def switched(delay):
    ids = hold[:, None].repeat(1, FUTURE)
    ids[:, SWITCH0 + delay :] = target[:, None]
    return ids


def response(pos_a, pos_b):
    """Mean distance between the predicted velocities of two forecasts, per future frame."""
    zero = torch.zeros_like(pos_a[:, :, :1])
    va = torch.diff(pos_a, dim=2, prepend=zero) / DT
    vb = torch.diff(pos_b, dim=2, prepend=zero) / DT
    return (va - vb).norm(dim=-1).mean((0, 1))


def true_positions(ids):
    g = torch.Generator().manual_seed(SEED + 7)
    agent = sde.simulate_animal(
        TEST_AGENTS,
        FUTURE,
        DT,
        generator=g,
        commands=ids,
        initial=test.speed_turn[:, PAST - 1],
        p_distract=0.0,
        noise=0.0,
    )
    return sde.unicycle_positions(agent.speed_turn, DT)[:, 1:].unsqueeze(0)


truth_hold = true_positions(hold[:, None].repeat(1, FUTURE))
truth_curves = {d: response(true_positions(switched(d)), truth_hold) for d in SHIFTS}
truth_lag = {
    d: motion.response_lag(truth_curves[d], SWITCH0 + d).item() for d in SHIFTS
}
lags, timing = {name: [] for name in MODELS}, {name: [] for name in MODELS}
curves0 = {}
for seed in SEEDS:
    for name in MODELS:
        model = trained[seed, name]
        base = forecast(model, name, test_past, hold_cmd, seed)
        per = []
        for d in SHIFTS:
            curve = response(
                forecast(
                    model, name, test_past, F.one_hot(switched(d), 3).float(), seed
                ),
                base,
            )
            per.append(motion.response_lag(curve, SWITCH0 + d).item())
            if seed == SEEDS[0] and d == 0:
                curves0[name] = curve
        lags[name].append(float(np.mean(per)))
        timing[name].append(
            float(
                np.mean(
                    [abs(a - truth_lag[d]) for a, d in zip(per, SHIFTS, strict=True)]
                )
            )
        )
print(f"true agent: response lag {np.mean(list(truth_lag.values())):.2f} frames")
for name in MODELS:
    (lm, lw), (tm, tw) = interval(lags[name]), interval(timing[name])
    print(
        f"{name:>17}: lag {lm:5.2f} ±{lw:4.2f} frames, timing error {tm:5.2f} ±{tw:4.2f} frames"
    )

# %% tags=["hide-input"] mystnb={"figure": {"caption": "Response to a command switch at future frame 4 (seed of the first model): distance between the velocities predicted with and without the switch, normalised by its peak; the true agent reaches half of its response about one frame after the switch.", "name": "05-fig-timing"}}
fig, ax = plt.subplots(figsize=(6.4, 3.4))
frames = np.arange(FUTURE)
tc = truth_curves[0].numpy()
ax.plot(frames, tc / tc.max(), color="k", lw=2, label="true agent")
for j, name in enumerate(MODELS):
    c = curves0[name].numpy()
    ax.plot(
        frames,
        c / max(c.max(), 1e-12),
        color=icml26.plotting.color(j),
        label=name,
        marker=".",
    )
ax.axvline(SWITCH0, color="0.5", ls=":", label="command switch")
ax.axhline(0.5, color="0.7", lw=0.8)
ax.set_xlabel("future frame (0.1 s)")
ax.set_ylabel("normalised response")
ax.set_title("How fast does each model react to a change of command?")
ax.legend(fontsize=7.5, ncol=2)
plt.show()

# %% [markdown]
# The claims compare like with like: CogSDE with the stochastic baseline of similar size for
# accuracy (both produce 20 proposals; the deterministic models cannot profit from best-of-$K$),
# the timing error with every baseline, and CogSDE with its own ablation for the event channel.
# Each measured value is the mean over the training seeds.

# %% tags=["claim"]
# fails if: the regime-switching SDE driver is no better than a stochastic recurrent driver of
# similar size at proposing a close future (the paper's accuracy claim at toy scale)
icml26.claim(
    "05.3",
    "minADE@20, CogSDE / RSSM-like GRU (mean over seeds)",
    float(np.mean(ratio_min)),
    at_most=1.0,
)

# %% tags=["claim"]
# fails if: a baseline follows the timing of the commands more closely than CogSDE
best_baseline = min(
    float(np.mean(timing[n])) for n in ("RSSM-like GRU", "GRU", "neural ODE")
)
icml26.claim(
    "05.4",
    "timing error, CogSDE / best baseline (mean over seeds)",
    float(np.mean(timing["CogSDE"])) / best_baseline,
    at_most=1.0,
)

# %% tags=["claim"]
# fails if: the event channel does not speed up the response to a change of command
icml26.claim(
    "05.5",
    "response lag without event channel − with it (frames)",
    float(np.mean(lags["CogSDE, no event"]) - np.mean(lags["CogSDE"])),
    at_least=0.0,
)

# %% [markdown]
# What the toy shows, at the default scale (numbers printed above):
#
# 1. **Best-of-20 accuracy.** All three stochastic drivers beat the deterministic ones and the
#    constant-velocity floor in minADE@20, because 20 proposals can cover the agent's hidden
#    choices; their *average* ADE is no better than the deterministic models', which is the
#    trade best-of-$K$ makes. Against the stochastic baseline of similar size, CogSDE does
#    **not** win with this training budget (claim 05.3): its mean minADE ratio to the RSSM-like GRU
#    is 1.36, with per-seed ratios from 0.83 to 2.53 — one seed of CogSDE trained badly in 40
#    steps. With `TRAIN_ITERS = 160` (four times the default, same code) we measured a ratio of
#    0.91, below 1 in four of five seeds: the SDE driver learns more slowly than the GRU, and the
#    toy's verdict on "improves accuracy" depends on the training budget.
# 2. **Timing.** The event channel does what it is for: it makes the latent state jump when the
#    command changes, and without it the response lags by several frames more (claim 05.5; the
#    same at four times the training: 2.6 frames). But the recurrent baselines react as fast
#    — a GRU sees the new command directly in its update — and follow the true agent's
#    half-response more closely than CogSDE, whose jump overshoots the truth at the switch and
#    then plateaus (figure above): claim 05.4 is not reproduced (ratio 2.5, also at four times the
#    training). The neural ODE, whose command enters only through its drift like CogSDE's level
#    channel, lags as much as the ablation.

# %% [markdown]
# ### Regimes along a trajectory
#
# The regime weights $\pi(z_t)$ are the model's "decision state" made visible. For a test agent
# whose commands change during the forecast, we plot them along CogSDE's 20 latent paths: whether
# the weights move with the commands, and how much they spread between proposals, is what a
# state-dependent switching drift can express and a single linear drift cannot.

# %% tags=["hide-input"] mystnb={"figure": {"caption": "Regime weights π(z_t) along the 20 latent paths of CogSDE (thin lines: proposals; thick: their mean) for a test agent whose command changes during the forecast (coloured band at the top).", "name": "05-fig-regimes"}}
changes = (test_cmd.argmax(-1).diff(dim=1) != 0).sum(1)
b_reg = int(torch.nonzero(changes > 0)[0]) if (changes > 0).any() else 0
cog0 = trained[SEEDS[0], "CogSDE"]
with torch.no_grad():
    _, lat = cog0(
        test_past[b_reg : b_reg + 1],
        test_cmd[b_reg : b_reg + 1],
        DT,
        n_samples=K_EVAL,
        generator=torch.Generator().manual_seed(2000),
        return_latent=True,
    )
    pi = cog0.driver.sde.regime_weights(lat.flatten(0, 1)).view(
        FUTURE + 1, K_EVAL, N_REGIMES
    )
fig, ax = plt.subplots(figsize=(6.8, 3.4))
t_ax = np.arange(FUTURE + 1) * DT
for i in range(N_REGIMES):
    ax.plot(
        t_ax, pi[:, :, i].numpy(), color=icml26.plotting.color(i + 3), lw=0.5, alpha=0.5
    )
    ax.plot(
        t_ax,
        pi[:, :, i].mean(1).numpy(),
        color=icml26.plotting.color(i + 3),
        lw=2.2,
        label=f"regime {i + 1}",
    )
ids = test_cmd[b_reg].argmax(-1).numpy()
for k, c in enumerate(ids):
    ax.axvspan(
        k * DT,
        (k + 1) * DT,
        ymin=0.94,
        ymax=1.0,
        color=icml26.plotting.color(int(c)),
        lw=0,
    )
for c, cname in enumerate(sde.COMMANDS):
    ax.plot([], [], color=icml26.plotting.color(c), lw=6, label=f"command: {cname}")
ax.set_ylim(0, 1.06)
ax.set_xlabel("prediction time (s)")
ax.set_ylabel(r"regime weight $\pi_i(z_t)$")
ax.set_title(f"Regime weights along CogSDE's latent paths, test agent {b_reg}")
ax.legend(fontsize=7.5, ncol=2, loc="center right")
plt.show()

# %%
moved = (pi.mean(1) - pi.mean(1)[0]).abs().max().item()
print(
    f"largest change of a mean regime weight over the {FUTURE * DT:g} s forecast: {moved:.3f}"
)

# %% [markdown]
# At the default training budget the regime weights stay close to their initial mixture and
# respond little to the commands: the model behaves like one averaged linear system driven
# through its channels, and the regime structure is not yet used. This is the diagnostic to
# watch when training longer or on data with distinct behavioural modes.

# %% [markdown]
# ### The soft dissipativity penalty, on and off the data (claims 05.6–05.7)
#
# *Claim (the paper's theory, through its code).* Dissipativity {eq}`cogsde-eq-paper-diss` is
# what gives mean-square boundedness ({prf:ref}`cogsde-thm-ms`); the code encourages it with the
# penalty {eq}`cogsde-eq-penalty` on visited states. We measure the residual $r$ on two sets:
# the states the trained CogSDE visits on the test agents (all 20 proposals, every frame), and
# *off-distribution* probes — random directions at 2 to 10 times the 99th percentile of the
# visited norms, with random commands and command changes. Besides CogSDE as trained above
# ($\lambda = 10^{-3}$) we train the same model with a thousand times the weight
# ($\lambda = 1$), without it ($\lambda = 0$, the released configuration), and the certified
# alternative of {prf:ref}`cogsde-prop-param` in the same pipeline, all from the first seed. By {prf:ref}`cogsde-prop-far`, far from the data only the
# regimes' linear parts decide, and nothing in the penalty constrains them there.

# %%
s0 = SEEDS[0]
variants = {
    "CogSDE, λ = 0": train_forecaster(build("CogSDE", s0), s0, K_TRAIN, 0.0),
    f"CogSDE, λ = {PENALTY:g}": trained[s0, "CogSDE"],
    f"CogSDE, λ = {STRONG_PENALTY:g}": train_forecaster(
        build("CogSDE", s0), s0, K_TRAIN, STRONG_PENALTY
    ),
    "certified SDE": train_forecaster(build("certified SDE", s0), s0, K_TRAIN),
}
g_probe = torch.Generator().manual_seed(SEED + 8)
v_test = switching.command_channels(test_cmd.transpose(0, 1).repeat(1, K_EVAL, 1), DT)
n_probe = 4096
direction = F.normalize(torch.randn(n_probe, Z_DIM, generator=g_probe), dim=-1)
spread = 10 ** (
    math.log10(2) + torch.rand(n_probe, 1, generator=g_probe) * math.log10(5)
)
u_new = F.one_hot(torch.randint(0, 3, (n_probe,), generator=g_probe), 3).float()
u_old = F.one_hot(torch.randint(0, 3, (n_probe,), generator=g_probe), 3).float()
v_probe = torch.cat([u_new, ((u_new - u_old) / DT).clamp(-10, 10)], dim=-1)
violations = {}
with torch.no_grad():
    for name, model in variants.items():
        _, lat = model(
            test_past,
            test_cmd,
            DT,
            n_samples=K_EVAL,
            generator=torch.Generator().manual_seed(2000),
            return_latent=True,
        )
        z_vis = lat[:-1].flatten(0, 1)
        certified = not isinstance(model.driver.sde, switching.RegimeSwitchingSDE)
        v_vis = v_test.flatten(0, 1)[:, :3] if certified else v_test.flatten(0, 1)
        r_vis = switching.dissipativity_residual(
            model.driver.sde, z_vis, v_vis, alpha=ALPHA_B, beta=BETA_B
        )
        radius = z_vis.norm(dim=-1).quantile(0.99)
        z_far = direction * spread * radius
        v_far = v_probe[:, :3] if certified else v_probe
        r_far = switching.dissipativity_residual(
            model.driver.sde, z_far, v_far, alpha=ALPHA_B, beta=BETA_B
        )
        violations[name] = (
            (r_vis > 0).float().mean().item(),
            (r_far > 0).float().mean().item(),
            radius.item(),
        )
        if certified:  # its own certificate (cogsde-prop-param) holds everywhere
            sde_c, c = model.driver.sde, model.driver.sde.certificate()
            lhs = 2 * (z_far * sde_c.drift(z_far, v_far)).sum(-1) + sde_c.diffusion(
                z_far
            ).pow(2).sum(-1)
            rhs = -c.alpha * z_far.pow(2).sum(-1) + c.beta * (1 + v_far.pow(2).sum(-1))
            assert (lhs <= rhs + 1e-6).all(), "the certificate must hold at every probe"
print(
    f"{'model':>18} | visited states violating | far probes violating | 99 % visited norm"
)
for name, (vis, far, rad) in violations.items():
    print(f"{name:>18} | {vis:24.3f} | {far:20.3f} | {rad:.2f}")
for name in list(variants)[:3]:
    a_sym = variants[name].driver.sde.A.detach()
    top = torch.linalg.eigvalsh((a_sym + a_sym.transpose(1, 2)) / 2)[:, -1]
    print(
        f"{name}: largest eigenvalue of (A_i + A_iᵀ)/2 per regime: {[round(x, 2) for x in top.tolist()]}"
    )

# %% [markdown]
# A visited-state violation rate of at most 5 % is the natural yardstick: the code's alternative
# choice of $\beta$ — the 95 % quantile of the residual term — admits exactly 5 % of violations
# by construction. Off the data the same yardstick asks whether the penalised model satisfies the
# condition where it has never been; the certified alternative satisfies its own certificate at
# every probe (asserted above).

# %% tags=["claim"]
# fails if: the trained CogSDE (penalty weight 1e-3, as in the code's example) violates the
# dissipativity condition on the states it visits
main = f"CogSDE, λ = {PENALTY:g}"
icml26.claim(
    "05.6",
    "penalised CogSDE: visited states violating the condition",
    violations[main][0],
    at_most=0.05,
)

# %% tags=["claim"]
# fails if: a penalty on visited states does not carry the condition to states far from them
icml26.claim(
    "05.7",
    "penalised CogSDE: far-away states violating the condition",
    violations[main][1],
    at_most=0.05,
)

# %% [markdown]
# ### The endpoint: minFDE@20 (claim 05.8)
#
# The paper reports final displacement beside average displacement. The same comparison as
# claim 05.3, at the last predicted frame, from the metrics computed above:

# %% tags=["claim"]
ratio_fde = [
    a["minFDE"] / b["minFDE"]
    for a, b in zip(metrics["CogSDE"], metrics["RSSM-like GRU"], strict=True)
]
print(f"minFDE@20, CogSDE / RSSM-like GRU per seed: {[round(r, 2) for r in ratio_fde]}")
# fails if: the SDE driver's best proposal ends no closer to the true endpoint than the
# stochastic recurrent driver's (the paper's accuracy claim, at the final frame)
icml26.claim(
    "05.8",
    "minFDE@20, CogSDE / RSSM-like GRU (mean over seeds)",
    float(np.mean(ratio_fde)),
    at_most=1.0,
)

# %% [markdown]
# On the states it visits, the trained CogSDE satisfies the condition almost everywhere —
# and so does the model trained without the penalty, so at this scale the penalty is not what
# keeps the visited states dissipative: the diffusion is small and the latent state stays near the
# origin, where $\beta = 1$ dominates. Far from the data the picture reverses: about half of the
# probes violate the condition for every penalty weight, including $\lambda = 1$. The printed
# eigenvalues explain why ({prf:ref}`cogsde-prop-far`): every regime keeps an expanding direction
# from its initialisation $A_i = 0.1 I + \dots$, and a penalty on visited states never sees it.
# The certified alternative has no far violations (its contraction dominates there) but violates
# the code's constants on 17 % of its visited states: it is dissipative with its *own*
# $(\alpha, \beta)$, whose $\beta$ is larger than 1. A guarantee of the kind the abstract states
# needs the condition everywhere; the soft penalty provides it only where the model has been.

# %% [markdown]
# ## Cross-check
#
# **`torchsde`.** `torchsde.sdeint(method="euler")` {cite}`li2020scalable` implements the same
# scheme {eq}`cogsde-eq-em`. It accepts any object implementing its `BaseBrownian` interface as
# `bm`; the solver asks it for the increment over each step $[t_k, t_{k+1}]$, so a ten-line class
# that returns our pre-drawn $\Delta W_k$ (`sde.FixedIncrements`) lets both solvers integrate the
# *same* Brownian path. `sde.TorchsdeAdapter` presents a model as a torchsde SDE, reading the
# command grid — here the level and event channels $[u_k, \dot u_k]$ — from the step index, as
# `sde.euler_maruyama` does. We check the regime-switching SDE and the certified alternative.

# %%
h_x, n_x, N_x = 2.0**-6, 128, 256
g = torch.Generator().manual_seed(SEED + 5)
grid_x = F.one_hot(torch.randint(0, 3, (n_x,), generator=g), 3).double()
z0_x = torch.randn(N_x, 4, generator=g, dtype=torch.float64)
dW_x = math.sqrt(h_x) * torch.randn(n_x, N_x, 4, generator=g, dtype=torch.float64)
ts = torch.arange(n_x + 1, dtype=torch.float64) * h_x
torch.manual_seed(SEED)
cert_small = sde.CertifiedSDE(4, 3, 8, sigma=0.4).double()
for label, model_x, grid in (
    ("regime-switching SDE", rs_small, switching.command_channels(grid_x, h_x)),
    ("certified SDE", cert_small, grid_x),
):
    with torch.no_grad():
        ours = sde.euler_maruyama(
            model_x.drift, model_x.diffusion, z0_x, h_x, u=grid, dW=dW_x
        )
        theirs = torchsde.sdeint(
            sde.TorchsdeAdapter(model_x, grid, h_x),
            z0_x,
            ts,
            bm=sde.FixedIncrements(dW_x, h_x),
            method="euler",
            dt=h_x,
        )
    gap_x = icml26.checks.agree(
        f"{label}: icml26 EM vs torchsde", ours, theirs, atol=1e-9
    )
    print(f"{label}: icml26 EM and torchsde.sdeint(method='euler') agree to 1e-9")

# %% [markdown]
# **Ornstein–Uhlenbeck moments.** For $dX = -\vartheta X\,dt + \varsigma\,dW$ the law at time $t$
# is Gaussian with mean $x_0 e^{-\vartheta t}$ and variance
# $\frac{\varsigma^2}{2\vartheta}(1 - e^{-2\vartheta t})$. We check the kernel's Monte-Carlo
# moments against these closed forms, allowing four standard errors plus the $O(h)$ weak bias of
# the scheme.

# %%
theta, vol_ou, x0_ou, h_ou, n_ou, N_ou = 1.5, 0.8, 2.0, 0.01, 200, 4096
g = torch.Generator().manual_seed(SEED + 6)
dW_ou = (
    math.sqrt(h_ou) * torch.randn(n_ou, N_ou, 1, generator=g, dtype=torch.float64)
).to(DEVICE)
x_ou = sde.euler_maruyama(
    lambda z, u: -theta * z,
    lambda z: torch.full_like(z, vol_ou),
    torch.full((N_ou, 1), x0_ou, dtype=torch.float64, device=DEVICE),
    h_ou,
    dW=dW_ou,
)[-1, :, 0]
t_ou = n_ou * h_ou
mean_cf = x0_ou * math.exp(-theta * t_ou)
var_cf = vol_ou**2 / (2 * theta) * (1 - math.exp(-2 * theta * t_ou))
mean_gap, var_gap = abs(x_ou.mean().item() - mean_cf), abs(x_ou.var().item() - var_cf)
assert mean_gap < 4 * math.sqrt(var_cf / N_ou) + 2 * h_ou
assert var_gap < 4 * var_cf * math.sqrt(2 / N_ou) + 2 * h_ou
print(
    f"OU at t = {t_ou:g}: mean {x_ou.mean().item():.4f} vs {mean_cf:.4f}, "
    f"variance {x_ou.var().item():.4f} vs {var_cf:.4f} (within 4 s.e. + O(h))"
)

# %% [markdown]
# **Performance.** The batched kernel advanced the paths of the bound experiment above; its wall
# time on this machine (the `make bench` page compares it, and the batched regime-switching
# drift, with `torchsde` and with the per-path loop):

# %% tags=["nbval-ignore-output"]
print(
    f"EM, {N_PATHS} paths x {N_STEPS} steps, d = {LATENT_DIM}: elapsed {em_seconds:.2f} s"
)

# %% [markdown]
# ## Limits of this reproduction
#
# - **The paper's equations.** Only the abstract was available. The model is read off the
#   authors' released code; the mean-square theorem is our derivation of a bound of the type the
#   abstract announces, in our constants (the code's $2\alpha$ and $\beta$ without the
#   $(1 + \lVert u\rVert^2)$ factor are equivalent up to constants). The certified
#   parameterisation is our alternative, not the paper's model.
# - **Generator and data.** The paper's flow-matching transformer (10 sampling steps, MTR-style
#   context) is replaced by a one-step FiLM network, so the 20 proposals differ only through the
#   SDE's Brownian path; rat keypoints and BABEL body motion are replaced by one synthetic point
#   agent per trajectory; 10 frames per second instead of 30; latent size 8 instead of 64;
#   `TRAIN_ITERS` training steps instead of 600 epochs, with a constant learning rate.
# - **Results at this scale.** Four of the six experimental claims are not reproduced at the
#   default scale. CogSDE does not beat the RSSM-like baseline in minADE@20 with 40 training
#   steps (claim 05.3, ratio 1.36; at the endpoint minFDE@20 likewise, claim 05.8, 1.26); with
#   four times the training minADE@20 does (0.91, four of five
#   seeds), so the verdict depends on the budget, and the paper's "consistently improves
#   accuracy" is neither confirmed nor refuted by this toy. Its timing error is larger than the
#   recurrent baselines' (claim 05.4) at both budgets; the event channel's effect (claim 05.5) is
#   robust. The soft penalty does not enforce the condition away from the data (claim 05.7) —
#   that is the point of {prf:ref}`cogsde-prop-far`, and we expect it at any scale; the
#   visited-state claim 05.6 holds, but also without the penalty.
# - **Baselines.** The RSSM-like baseline is a GRU with additive Gaussian latent noise, not the
#   code's full RSSM with a posterior and a learned storage/supply dissipativity constraint;
#   the parameter counts differ by about 10 % (printed above). There is no Transformer baseline.
# - **What the toy cannot test.** The paper's long horizons on real behaviour, the benefit of
#   the regime structure on data with genuinely distinct behavioural modes, and the class
#   tolerance test of the code (swapping a command for another) are not reproduced.
#
# ## Exercises
#
# ````{exercise} When is the bound an equality?
# :label: cogsde-ex-tight
#
# Take the Ornstein–Uhlenbeck SDE $dz = -\lambda z\,dt + \varsigma\,dW$ in $\mathbb{R}^d$
# (no command). Find the best $(\alpha, \beta)$ in {eq}`cogsde-eq-dissipative`, and show that
# {prf:ref}`cogsde-thm-ms` then holds with equality. Predict what the ratio of claim 05.1 (certified SDE)
# becomes, and check it with `sde.euler_maruyama`.
# ````
#
# ````{solution} cogsde-ex-tight
# :class: dropdown
#
# $2\langle z, -\lambda z\rangle + \lVert\varsigma I\rVert_F^2 = -2\lambda\lVert z\rVert^2 +
# d\varsigma^2$, so $\alpha = 2\lambda$ and $\beta(1 + 0) = d\varsigma^2$ (with $u = 0$). Itô's
# formula gives $m_t' = -2\lambda m_t + d\varsigma^2$ *exactly* (the inequality in the proof is an
# equality), whose solution is $m_t = e^{-2\lambda t}m_0 + \frac{d\varsigma^2}{2\lambda}
# (1 - e^{-2\lambda t})$ — the bound. The Monte-Carlo ratio is $1$ up to sampling error and the
# $O(h)$ bias of Euler–Maruyama (the scheme's stationary second moment is
# $d\varsigma^2 h / (1 - (1-\lambda h)^2) = \frac{d\varsigma^2}{\lambda(2 - \lambda h)}$, slightly
# above the SDE's). For example
# `sde.euler_maruyama(lambda z, u: -lam * z, lambda z: torch.full_like(z, s), z0, h, n_steps=n)`.
# ````
#
# ````{exercise} Change the noise and predict the slope
# :label: cogsde-ex-slope
#
# Replace geometric Brownian motion in claim 05.2 by the Ornstein–Uhlenbeck SDE
# $dX = -X\,dt + dW$, whose solution driven by the same path you can compute exactly on the fine
# grid. Predict the log-log slope before you run it, then measure it.
# ````
#
# ````{solution} cogsde-ex-slope
# :class: dropdown
#
# The noise is additive, so the double Itô integral dropped by Euler–Maruyama has coefficient
# $\partial G\, G = 0$ and the scheme coincides with the Milstein scheme: the slope is about
# $1$ ({prf:ref}`cogsde-thm-strong`). A convenient "exact" reference is Euler–Maruyama on the
# finest grid (or the exact discretisation $X_{k+1} = e^{-h}X_k + \int e^{-(t_{k+1}-s)}dW_s$);
# the measured slope lies close to 1, against 0.5 for GBM.
# ````
#
# ````{exercise} Break the step-size condition
# :label: cogsde-ex-step
#
# For the certified SDE of claim 05.1, compute $h^\star = \alpha/(2L^2)$ and the explicit-Euler
# stability limit of the linear part, $h_{\mathrm{lin}} = \min_\mu 2\operatorname{Re}\mu /
# \lvert\mu\rvert^2$ over the eigenvalues $\mu$ of $-A$. Run Euler–Maruyama over 20 s with $h$
# equal to $h^\star/2$, $2h^\star$, $0.9\,h_{\mathrm{lin}}$ and $1.5\,h_{\mathrm{lin}}$. Which
# runs stay bounded, and is {prf:ref}`cogsde-prop-em` sharp?
# ````
#
# ````{solution} cogsde-ex-step
# :class: dropdown
#
# For the model of claim 05.1 (seed 5) $h^\star \approx 0.079$ s and $h_{\mathrm{lin}} \approx
# 1.4$ s. The runs with $h^\star/2$, $2h^\star$ and even $0.9\,h_{\mathrm{lin}}$ stay bounded
# ($\mathbb{E}\lVert z_T\rVert^2$ of order 2–4), while $1.5\,h_{\mathrm{lin}}$ explodes (order
# $10^6$ after 20 s). The proposition is therefore only sufficient, and far from sharp: $2L^2$
# bounds $\lVert Az\rVert^2/\lVert z\rVert^2$ in the worst direction and Young's inequality
# wastes half the contraction. What does break the scheme is the instability of explicit Euler on
# the linear part: $z \mapsto (I + hA)z$ expands along an eigenvector once
# $\lvert 1 - h\mu\rvert > 1$, i.e. $h > 2\operatorname{Re}\mu/\lvert\mu\rvert^2$, and the
# bounded nonlinearity cannot stop a linear blow-up — although the SDE itself is dissipative.
# ````
#
# ````{exercise} Where does the penalised model stop being dissipative?
# :label: cogsde-ex-far
#
# For the CogSDE trained with $\lambda = 10^{-3}$, estimate the limit of
# {prf:ref}`cogsde-prop-far` along 1000 random directions $e$: evaluate $r(\rho e)/\rho^2$ for
# $\rho = 10^3$ and compare it with $2\sum_i \pi_i(\rho e)\,e^\top A_i e + 0.02$. In how many
# directions is it positive? Then add the optional global contraction $-c\,z$ of the released
# code (`RegimeSwitchingSDE(..., contraction=c)`): which $c$ makes the limit negative in every
# direction, and what does that imply for the bound of {prf:ref}`cogsde-thm-ms`?
# ````
#
# ````{solution} cogsde-ex-far
# :class: dropdown
#
# At $\rho = 10^3$ the terms linear in $\rho$ and the bounded diffusion contribute $O(1/\rho)$
# to $r/\rho^2$, so the two numbers agree to about $10^{-3}$. The limit is positive in a
# direction when the $\pi$-weighted quadratic form of the $A_i$ exceeds $-\alpha$ there; with the
# expanding initialisation and little training pressure far from the data this is the case in
# many directions (compare the largest eigenvalues of $(A_i + A_i^\top)/2$ printed above). With a
# contraction $c > \max_i \lambda_{\max}\bigl((A_i + A_i^\top)/2\bigr) + \alpha$ the quadratic
# form is at most $-\alpha - \epsilon$ in every direction, and the terms linear in $\lVert z\rVert$
# are bounded, so {eq}`cogsde-eq-paper-diss` holds outside a ball; enlarging $\beta$ to the
# maximum of the residual over that ball (a compact set) gives a global certificate, and the
# mean-square bound follows — a certificate by construction, at the price of a fixed contraction.
# ````
#
# ## Summary
#
# - CogSDE, as released, models a latent decision state by a three-regime switching linear SDE:
#   state-dependent weights $\pi(z)$ mix the regimes, the command enters through a level and an
#   event channel, and the diffusion is state dependent and clamped.
# - Dissipativity bounds $\mathbb{E}\lVert z_t\rVert^2$ uniformly in time (Itô + comparison); the
#   code asks for it through a soft penalty on visited states, which cannot certify it far from
#   the data ({prf:ref}`cogsde-prop-far`); a negative-definite-plus-skew parameterisation
#   certifies it by construction.
# - The batched Euler–Maruyama kernel matches `torchsde` path by path and shows strong order
#   $1/2$ on geometric Brownian motion.
# - At toy scale (2 s from 1 s of a synthetic command-driven agent, five seeds) the stochastic
#   drivers win best-of-20 accuracy, the event channel speeds up the response to commands, but
#   CogSDE beats neither the RSSM-like baseline in minADE@20 at the default budget nor the
#   recurrent baselines in timing; the penalty leaves about half of the far states violating the
#   condition.
