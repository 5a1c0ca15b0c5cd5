# %% [markdown]
# # 03 · informed-critic — Informed asymmetric actor-critic: privileged signals for the critic
#
# ## Overview
#
# An agent that acts under partial observability must choose from its *history* of
# observations and actions, because the state of the world is hidden from it. During training,
# however, we often know much more: a simulator exposes the full state, a robot in the lab has
# extra sensors, an expert can say what it would have done. *Asymmetric actor-critic* methods
# exploit this: the actor $\pi(a \mid h)$ still sees only the history, so that it can be deployed
# without the extra information, while the critic, which only exists during training, may look
# at privileged quantities. {cite:t}`pinto2018asymmetric` gave the critic the full state; this
# is biased, and {cite:t}`baisero2022unbiased` showed that a critic of the history *and* the
# state, $Q(h, s, a)$, restores an unbiased policy gradient.
#
# {cite:t}`ebi2026informed` (ICML 2026) ask for less: full-state access is often unavailable or
# useless, and the critic may instead receive **any privileged signal $i_t$ that depends on the
# state** — a velocity, a noisy sensor, an expert's action. Their main theorem says that the
# policy gradient estimated with such an *informed* critic $Q(h, i, a)$ is still unbiased. Since
# not every signal helps, they add two statistical tests, run on episodes of any fixed policy
# *before* training, that say whether a candidate signal carries information about the return
# beyond the history: a kernel independence test on cross-fitted residuals, and a test of the
# prediction gain of an informed critic over a symmetric one. Their experiments train the
# informed asymmetric actor-critic and report that a well-chosen signal learns as fast as the
# full state, or faster, and faster than a critic of the history alone.
#
# By the end of this chapter you will be able to: state and prove the unbiasedness theorem and
# the lemma it rests on; compute every quantity exactly on a small POMDP, by enumerating all of its
# trajectories, and see the bias of a state-only critic appear and the informed critics' bias
# vanish; say exactly in what sense a signal "helps" (less noisy critic targets, not a
# lower-variance oracle estimator); run the paper's two informativeness tests, with episode-level
# permutations, on a reconstruction of its synthetic benchmark; **train** the informed
# asymmetric actor-critic beside a history-only, a full-state and a noise-fed critic, on that
# benchmark and on CartPole with its velocities hidden from the actor; and recognise a caveat of
# bootstrapped (TD) critics with signals that forget.
#
# ## Setting and notation
#
# | symbol | meaning |
# |---|---|
# | $s_t \in \mathcal{S}$, $a_t \in \mathcal{A}$, $o_t \in \mathcal{O}$ | state, action, observation at $t$ |
# | $p_0$, $T(s' \mid s, a)$, $O(o \mid s)$ | initial law, transition kernel, observation kernel |
# | $i_t \sim I_t(\cdot \mid s_t)$ | the **privileged signal**, drawn from the current state only |
# | $r_t = r_t(s_t, a_t)$, $\gamma \in [0, 1]$ | reward and discount |
# | $H$ | horizon (number of steps; the book's $T$ is the transition kernel here) |
# | $h_t = (o_0, a_0, \dots, a_{t-1}, o_t)$ | history; the actor $\pi_\theta(a \mid h)$ never sees $i$ |
# | $G_t = \sum_{k \ge t} \gamma^{k-t} r_k$ | return from step $t$; $J(\theta) = \mathbb{E}[G_0]$ |
# | $Q(h, a) = \mathbb{E}[G_t \mid h_t = h, a_t = a]$, $V(h)$ | symmetric (history) values |
# | $Q(h, i, a) = \mathbb{E}[G_t \mid h_t = h, i_t = i, a_t = a]$, $V(h, i)$ | **informed** values |
# | $Q(s, a) = \mathbb{E}[G_t \mid s_t = s, a_t = a]$ | state-only value (of step $t$) |
# | $\nabla \log \pi$ | the score $\nabla_\theta \log \pi_\theta(a_t \mid h_t)$ |
#
# Expectations are over trajectories of $\pi_\theta$; values are indexed by the step $t$ (the
# horizon is finite), which we leave implicit. In the paper's *informed POMDP*
# {cite}`lambrechts2024informed` the observation is drawn from the information, $o_t \sim
# O(\cdot \mid i_t)$; an extra signal $x_t \sim X(\cdot \mid s_t)$ drawn beside the observation,
# as here, fits that frame by taking $\tilde\imath_t = (o_t, x_t)$. What matters below is only
# that $i_t$ is drawn from the state, not from the action.

# %% [markdown]
# ## Theory
#
# ```{admonition} What the paper states, and what this chapter reconstructs
# :class: important
#
# The statements of {prf:ref}`informed-critic-lem-tower`,
# {prf:ref}`informed-critic-thm-unbiased`, {prf:ref}`informed-critic-def-residual`,
# {prf:ref}`informed-critic-def-gain` and {prf:ref}`informed-critic-alg-a2c` follow the paper as
# reported by its abstract and two detailed secondary summaries; we did not read its full text,
# so theorem numbers, exact constants and the author order of the citation should be checked
# against the camera-ready version. {prf:ref}`informed-critic-thm-history-pg` and
# {prf:ref}`informed-critic-prop-state-bias` are background (policy gradient; Baisero and
# Amato). {prf:ref}`informed-critic-prop-variance` uses classical tools, and its second half
# (oracle critics) is our remark, as is {prf:ref}`informed-critic-prop-td` on TD fixed points.
# The audit POMDP is ours. The synthetic benchmark is our **reconstruction** of the paper's
# Table 1 environment: its sizes and reward weights are the paper's; the aliasing of
# observations, the sparse Dirichlet transitions and the window of past observations that
# stands in for the paper's recurrent history encoder are ours. The prediction-gain critics are
# linear least-squares fits on Monte-Carlo returns, not the paper's TD-trained networks. The
# trained actor-critic is the paper's algorithm at toy scale (one-hidden-layer heads on that
# window instead of GRUs); position-only CartPole follows POPGym's task. Where a threshold is
# ours, the text says so.
# ```
#
# ```{prf:theorem} Policy gradient over histories
# :label: informed-critic-thm-history-pg
#
# For a history policy $\pi_\theta(a \mid h)$ in a finite-horizon POMDP,
#
# $$
# \nabla_\theta J(\theta) = \mathbb{E}\Big[\sum_{t=0}^{H-1} \gamma^t\, Q(h_t, a_t)\,
# \nabla_\theta \log \pi_\theta(a_t \mid h_t)\Big].
# $$ (informed-critic-eq-pg)
# ```
#
# ```{prf:proof}
# A POMDP seen through histories is an MDP whose state is $h_t$ (the next history
# $h_{t+1} = (h_t, a_t, o_{t+1})$ has a law that depends only on $(h_t, a_t)$, by Bayes' rule),
# so this is the policy-gradient theorem {cite}`williams1992simple,sutton2000policy` for that
# MDP. Directly: $J = \sum_\tau P_\theta(\tau) \sum_t \gamma^t r_t$ and only the policy factors
# of $P_\theta(\tau)$ depend on $\theta$, so $\nabla J = \mathbb{E}[\sum_t \gamma^t r_t \sum_{k}
# \nabla \log \pi(a_k \mid h_k)]$. A reward $r_t$ with $t < k$ is fixed given $h_k$, and
# $\mathbb{E}[\nabla \log \pi(a_k \mid h_k) \mid h_k] = \sum_a \nabla \pi(a \mid h_k) = 0$, so only
# $k \le t$ survive: $\nabla J = \mathbb{E}[\sum_k \gamma^k G_k \nabla\log\pi(a_k \mid h_k)]$.
# Conditioning each term on $(h_k, a_k)$ replaces $G_k$ by $Q(h_k, a_k)$.
# ```
#
# ```{prf:proposition} A state-only critic is biased (Baisero and Amato)
# :label: informed-critic-prop-state-bias
#
# Replacing $Q(h_t, a_t)$ in {eq}`informed-critic-eq-pg` by $Q(s_t, a_t)$ changes the
# expectation by
#
# $$
# b = \mathbb{E}\Big[\sum_t \gamma^t \big(Q(s_t, a_t) - Q(h_t, s_t, a_t)\big)
# \nabla \log \pi(a_t \mid h_t)\Big].
# $$
#
# It vanishes when $Q(h, s, a) = Q(s, a)$, i.e. when the return after $(s_t, a_t)$ does not
# depend on the rest of the history — for instance when the policy is *reactive* (reads only the
# current observation) — but not in general: $Q(s, a)$ averages over the histories that reach
# $s$, while a policy with memory chooses its future actions from those histories.
# ```
#
# ```{prf:proof}
# By {prf:ref}`informed-critic-thm-unbiased` below with $i = s$, $\mathbb{E}[\sum_t \gamma^t
# Q(h_t, s_t, a_t) \nabla\log\pi] = \nabla J$; subtracting gives $b$, which is zero when the two
# critics coincide. With a reactive policy, the future observations, actions and rewards after
# $(s_t, a_t)$ are generated by the state process and the current observations alone, so they
# are independent of $h_t$ given $(s_t, a_t)$ and $Q(h, s, a) = Q(s, a)$. With memory, they are
# not: even if $s_t = f(h_t)$ is decodable, $Q(s, a) = \mathbb{E}[Q(h_t, a_t) \mid s_t = s, a_t =
# a]$ averages histories that the policy treats differently. The audit POMDP below gives $b \ne 0$
# with a relative size of tenths, and {ref}`informed-critic-ex-decodable` shows that
# decodability alone does not remove it.
# ```
#
# ```{prf:lemma} Tower property of the informed critic
# :label: informed-critic-lem-tower
#
# If $i_t$ is drawn from the state, $i_t \sim I_t(\cdot \mid s_t)$, and the actor sees only the
# history, then $a_t \perp i_t \mid h_t$, and for every history $h$ and action $a$,
#
# $$
# \mathbb{E}_{i_t \mid h_t = h}\big[Q(h, i_t, a)\big] = Q(h, a), \qquad
# \mathbb{E}_{i_t \mid h_t = h}\big[V(h, i_t)\big] = V(h).
# $$ (informed-critic-eq-tower)
# ```
#
# ```{prf:proof}
# Given $h_t$, the action is drawn from $\pi(\cdot \mid h_t)$ with fresh randomness, and
# $i_t$ from $I_t(\cdot \mid s_t)$ with $s_t$ distributed as $\mathbb{P}(s_t \mid h_t)$; neither
# draw uses the other, so $\mathbb{P}(i_t, a_t \mid h_t) = \mathbb{P}(i_t \mid h_t)\,\pi(a_t \mid
# h_t)$. Hence $\mathbb{P}(i_t \mid h_t, a_t) = \mathbb{P}(i_t \mid h_t)$, and the law of total
# expectation gives
#
# $$
# \begin{aligned}
# Q(h, a) &= \mathbb{E}[\mathbb{E}[G_t \mid h, i_t, a] \mid h, a] \\
# &= \sum_i \mathbb{P}(i \mid h, a)\, Q(h, i, a) = \sum_i \mathbb{P}(i \mid h)\, Q(h, i, a).
# \end{aligned}
# $$
#
# The second
# identity is the law of total expectation alone. The middle step is where the assumption is
# used: a signal that depends on the action (for instance "was the action right?") has
# $\mathbb{P}(i \mid h, a) \ne \mathbb{P}(i \mid h)$ and breaks the first identity.
# ```
#
# ```{prf:theorem} Unbiased informed policy gradient
# :label: informed-critic-thm-unbiased
#
# For any state-dependent signal $i_t \sim I_t(\cdot \mid s_t)$,
#
# $$
# \begin{aligned}
# \nabla_\theta J(\theta)
# &= \mathbb{E}\Big[\sum_t \gamma^t\, Q(h_t, i_t, a_t)\,
# \nabla \log \pi_\theta(a_t \mid h_t)\Big] \\
# &= \mathbb{E}\Big[\sum_t \gamma^t\, \big(Q(h_t, i_t, a_t) - V(h_t, i_t)\big)\,
# \nabla \log \pi_\theta(a_t \mid h_t)\Big].
# \end{aligned}
# $$ (informed-critic-eq-unbiased)
#
# Special cases: $i = s$ is the history-state critic of {cite:t}`baisero2022unbiased`; $i = a^\star$
# with $a^\star \sim \pi^\star(\cdot \mid s)$, an expert's action, lets expert knowledge into
# the critic without making the actor imitate it.
# ```
#
# ```{prf:proof}
# Take one term of {eq}`informed-critic-eq-pg` and condition on $(h_t, a_t)$. The score is a
# function of $(h_t, a_t)$, so
#
# $$
# \begin{aligned}
# \mathbb{E}[Q(h_t, i_t, a_t) \nabla \log \pi \mid h_t, a_t]
# &= \nabla \log \pi\; \mathbb{E}[Q(h_t, i_t, a_t) \mid h_t, a_t] \\
# &= \nabla \log \pi\; Q(h_t, a_t),
# \end{aligned}
# $$
#
# by the law of total expectation ($Q(h, i, a) = \mathbb{E}[G_t \mid h, i, a]$ averaged over $i$ given
# $(h, a)$), and by {prf:ref}`informed-critic-lem-tower` this average may be taken with
# $\mathbb{P}(i \mid h)$, the law the critic sees during training. Summing and taking
# expectations gives the first equality. For the baseline condition on $(h_t, i_t)$ instead:
# $a_t \sim \pi(\cdot \mid h_t)$ still ({prf:ref}`informed-critic-lem-tower`), so
#
# $$
# \begin{aligned}
# \mathbb{E}[V(h_t, i_t) \nabla \log \pi(a_t \mid h_t) \mid h_t, i_t]
# &= V(h_t, i_t) \sum_a \nabla \pi(a \mid h_t) \\
# &= V(h_t, i_t)\, \nabla 1 = 0.
# \end{aligned}
# $$
# ```
#
# Read the proof closely: the first equality needs nothing of $i$ beyond its being a random
# variable of the trajectory — the exact $\mathbb{E}[G_t \mid h_t, i_t, a_t]$ always averages back
# to $Q(h_t, a_t)$. The state-dependence of the signal is what makes the **baseline** $V(h, i)$
# harmless (and with it the advantage $Q(h, i, a) - V(h, i)$ that actor-critic methods use), and
# what makes $Q(h, a) = \sum_i \mathbb{P}(i \mid h) Q(h, i, a)$. A signal that looks at the
# action, such as "was the action right?", breaks both; experiments 03.1 and 03.3 use it as a
# negative control.
#
# Unbiasedness says the informed critic is *allowed*. Why would it *help*? The paper's argument
# is about the critic's regression target.
#
# ```{prf:proposition} What a signal changes: target noise, not oracle variance
# :label: informed-critic-prop-variance
#
# (a) For every history $h$ (law of total variance),
#
# $$
# \begin{aligned}
# \operatorname{Var}(G_t \mid h) &= \mathbb{E}_{i \mid h}\big[\operatorname{Var}(G_t \mid h, i)\big] +
# \operatorname{Var}_{i \mid h}\big(V(h, i)\big) \\
# &\ge \mathbb{E}_{i \mid h}\big[\operatorname{Var}(G_t \mid h, i)\big],
# \end{aligned}
# $$ (informed-critic-eq-totvar)
#
# with equality iff $V(h, i)$ does not depend on $i$ (given $h$), for instance when $i$ is
# independent noise. An informed critic regresses returns that are, on average, less noisy.
#
# (b) With *exact* critics the informed estimator is not less variable, per step: for each $t$,
# writing $X^{\mathrm{inf}}_t = \gamma^t Q(h_t, i_t, a_t)\nabla\log\pi$ and
# $X^{\mathrm{sym}}_t = \gamma^t Q(h_t, a_t)\nabla\log\pi$,
# $\operatorname{tr}\operatorname{Cov}(X^{\mathrm{sym}}_t) \le
# \operatorname{tr}\operatorname{Cov}(X^{\mathrm{inf}}_t)$.
# ```
#
# ```{prf:proof}
# (a) is the law of total variance applied to $G_t$ given $h$ with the inner conditioning on
# $i$; the second term is a variance, hence $\ge 0$, and zero iff $V(h, \cdot)$ is a.s. constant.
# (b) By the proof of {prf:ref}`informed-critic-thm-unbiased`,
# $X^{\mathrm{sym}}_t = \mathbb{E}[X^{\mathrm{inf}}_t \mid h_t, a_t]$, and conditioning never
# increases the covariance (Rao–Blackwell: $\operatorname{Cov}(X) = \mathbb{E}\operatorname{Cov}(X
# \mid h_t, a_t) + \operatorname{Cov}(\mathbb{E}[X \mid h_t, a_t])$). For the
# sum over $t$ this argument does not apply term by term, because $\mathbb{E}[Q(h_t, i_t,
# a_t) \mid \text{whole trajectory}] \ne Q(h_t, a_t)$; we only measure that case.
# ```
#
# ```{prf:proposition} The TD fixed point with a signal that forgets (our remark)
# :label: informed-critic-prop-td
#
# Let $V_{\mathrm{TD}}$ be the fixed point of expected TD(0) on the pair $(h_t, i_t)$:
# $V_{\mathrm{TD}}(h_t, i_t) = \mathbb{E}[r_t + \gamma V_{\mathrm{TD}}(h_{t+1}, i_{t+1}) \mid
# h_t, i_t]$. If $G_{t+1} \perp i_t \mid (h_{t+1}, i_{t+1})$ for every $t$ (true for $i = s$, by
# the Markov property), then $V_{\mathrm{TD}} = V(h, i)$. Otherwise it may differ: with $i_0 = s_0$
# and later signals pure noise,
#
# $$
# \begin{aligned}
# V_{\mathrm{TD}}(h_0, i_0) &= \mathbb{E}[r_0 + \gamma V(h_1) \mid h_0, s_0] \\
# &\ne \mathbb{E}[r_0 + \gamma V(h_1, s_0) \mid h_0, s_0] = V(h_0, i_0)
# \end{aligned}
# $$
#
# in general.
# ```
#
# ```{prf:proof}
# Backward induction. At the last step both equal $\mathbb{E}[r_{H-1} \mid h, i]$. If
# $V_{\mathrm{TD}}(h_{t+1}, i_{t+1}) = V(h_{t+1}, i_{t+1}) = \mathbb{E}[G_{t+1} \mid h_{t+1},
# i_{t+1}]$, and this equals $\mathbb{E}[G_{t+1} \mid h_{t+1}, i_{t+1}, i_t]$ by the assumed
# independence, then $\mathbb{E}[V(h_{t+1}, i_{t+1}) \mid h_t, i_t] = \mathbb{E}[G_{t+1} \mid h_t,
# i_t]$ by the tower property ($h_t, i_t$ are functions of $h_{t+1}, i_{t+1}, i_t$), so
# $V_{\mathrm{TD}}(h_t, i_t) = V(h_t, i_t)$. For $i = s$: given $(h_{t+1}, s_{t+1})$ the future
# depends on $s_t$ only through $s_{t+1}$. When the signal forgets, the induction breaks at the
# step where the information is lost; Monte-Carlo targets (or a critic of the signal history
# $i_{0:t}$) avoid it. Experiment 03.5 measures the gap.
# ```
#
# Not every signal is worth giving to the critic. The paper proposes two tests, run on
# episodes of a fixed (even uniformly random) policy before training.
#
# ```{prf:definition} α-residual informativeness
# :label: informed-critic-def-residual
#
# The target null is conditional independence, $H_0^{\mathrm{CI}}: G_t \perp i_t \mid (h_t,
# a_t)$. Let $e_G = G_t - \mathbb{E}[G_t \mid h_t, a_t]$ and $e_i = i_t - \mathbb{E}[i_t \mid h_t,
# a_t]$ be residuals, estimated by cross-fitting (out-of-fold regressions on a history encoding
# $z_t$ and $a_t$). The signal is **α-residually informative** if a test of $H_0^{\mathrm{res}}:
# e_G \perp e_i$ rejects at level $\alpha$. The test statistic is the HSIC
# {cite}`gretton2005measuring` with Gaussian kernels of median-heuristic bandwidth,
#
# $$
# \widehat{\mathrm{HSIC}} = \frac{1}{n^2}\operatorname{tr}(K \mathcal{H} L \mathcal{H}), \qquad
# \mathcal{H} = I_n - \tfrac{1}{n}\mathbf{1}\mathbf{1}^\top,
# $$ (informed-critic-eq-hsic)
#
# ($K$, $L$ the Gram matrices of $e_G$ and $e_i$, approximated with Nyström features
# {cite}`williams2001nystrom`), and its null distribution comes from permuting **whole
# episodes** of $e_i$ against those of $e_G$ {cite}`gretton2008kernel`: the $p$-value is
# $(1 + \#\{b : \mathrm{HSIC}_b \ge \widehat{\mathrm{HSIC}}\})/(1 + B)$.
# ```
#
# Conditional independence implies residual independence, not conversely, so a rejection is
# necessary, not sufficient, evidence that the signal adds predictive content. Permuting
# single steps would be wrong: returns within one episode overlap and are strongly dependent,
# and a step-level shuffle underestimates the spread of the null statistic.
#
# ```{prf:definition} (ε, δ)-prediction informativeness
# :label: informed-critic-def-gain
#
# Fit a symmetric critic $\hat Q(h, a)$ and an informed critic $\hat Q(h, i, a)$ on the same
# episodes (cross-fitted). For an episode $\tau_j$ of length $T_j$ the **prediction gain** is
#
# $$
# L^{\tau_j} = \frac{1}{T_j} \sum_{t} \Big[\big(\hat Q(h_t, a_t) - G_t\big)^2 -
# \big(\hat Q(h_t, i_t, a_t) - G_t\big)^2\Big],
# $$ (informed-critic-eq-gain)
#
# and the signal is **(ε, δ)-prediction informative** if a one-sided test of $H_0:
# \mathbb{E}[L^\tau] \le \varepsilon$ rejects at level $\delta$ (a $t$-test over episodes; the
# paper uses $\varepsilon = 0$).
# ```
#
# The algorithm itself is an advantage actor-critic {cite}`mnih2016asynchronous` whose critic,
# and only its critic, reads the chosen signal.
#
# ```{prf:algorithm} Informed asymmetric advantage actor-critic
# :label: informed-critic-alg-a2c
#
# **Input** a signal $i_t$ (a subset of the simulator's features, or none), step sizes
# $\eta_\pi, \eta_V$, an entropy weight $\lambda_k$ decaying linearly, a refresh period $K$.
#
# 1. Roll out the actor $\pi_\theta(a \mid h)$ in $N$ environments for $T$ steps, recording
#    $(h_t, i_t, a_t, r_t)$ and the episode ends $d_t$.
# 2. TD(0) advantages with the current critic:
#    $A_t = r_t + \gamma (1 - d_t) V_\phi(h_{t+1}, i_{t+1}) - V_\phi(h_t, i_t)$.
# 3. Critic step: descend $\sum_t (V_\phi(h_t, i_t) - r_t - \gamma (1 - d_t)
#    V_{\bar\phi}(h_{t+1}, i_{t+1}))^2$ with a frozen target critic $V_{\bar\phi}$.
# 4. Actor step: ascend $\sum_t A_t \log \pi_\theta(a_t \mid h_t) + \lambda_k
#    \mathcal{H}(\pi_\theta(\cdot \mid h_t))$; $i$ never enters the actor.
# 5. Every $K$ updates, $\bar\phi \leftarrow \phi$.
# ```
#
# With no signal this is the symmetric A2C; with $i = s$ it is the history-state critic of
# Baisero and Amato. By {prf:ref}`informed-critic-thm-unbiased` every state-dependent choice
# leaves the gradient that step 4 estimates unbiased *when the critic is exact*; which signal
# makes the critic easiest to learn is the empirical question of experiments 03.10–03.14.

# %% tags=["hide-input"]
import time

import matplotlib.pyplot as plt
import numpy as np
import torch
from matplotlib.patches import FancyArrowPatch, FancyBboxPatch
from scipy.stats import t as student_t
from scipy.stats import ttest_1samp

import icml26
from icml26 import background
from icml26.pipeline import paper
from icml26.sequential import a2c, critic
from icml26.sequential import critic_envs as envs
from icml26.sequential import informativeness as info

SEED = 3
rng = icml26.seed_everything(SEED)
icml26.plotting.use_book_style()
DEVICE = icml26.device()
gen = torch.Generator().manual_seed(SEED)  # the audit's random policies
torch.set_num_threads(1)  # many small tensor ops: one thread avoids oversubscription
DT = torch.float64
FLOOR = 1e-14  # rounding differs across machines: claims report max(error, FLOOR)

# %% tags=["parameters", "hide-input"]
HORIZON = 3  # audit POMDP: steps t = 0, 1, 2
FLIP, ACCURACY, STEP_COST = (
    0.1,
    0.7,
    0.05,
)  # side flips; observation accuracy; step cost
GAMMA_AUDIT = 0.95
N_POLICIES = icml26.pick(ci=20, paper=200)  # random tabular policies audited
N_GROUPS, GROUP_SIZE, N_ACTIONS = 5, 4, 4  # synthetic POMDP: 20 states, 4 actions
CONCENTRATION = (
    0.1  # Dirichlet parameter of its transition rows (sparse: actions matter)
)
EPISODE_LEN, GAMMA, WINDOW = 25, 0.99, 3  # episode length, discount, history window
RESID_EPISODES = 250  # residual test: the paper's 250 episodes of 25 steps
N_PERMUTATIONS = icml26.pick(ci=200, paper=1000)  # episode-level permutations B
N_LANDMARKS = icml26.pick(ci=256, paper=512)  # Nyström landmarks
N_TREES = icml26.pick(ci=30, paper=100)  # random-forest trees for cross-fitting
MIN_LEAF = 5  # random-forest minimum leaf size
MAX_FEATURES = 1 / 3  # fraction of inputs tried per split
N_FOLDS, ALPHA = 5, 0.05  # cross-fitting folds; level of the residual test
N_OFFSETS = icml26.pick(ci=5, paper=10)  # independent offsets of the redundant signal
GAIN_EPISODES = icml26.pick(ci=1000, paper=2500)  # prediction-gain test
GAIN_SETS = icml26.pick(ci=5, paper=20)  # independent data sets for the gain test
SENSOR_NOISE = 2.0  # noise of the sensor reading (phi_4, phi_5) in 03.8
OBS_NOISE = [0.0, 0.1, 0.5]  # β_o: observation noise for the robustness panel
A2C_SEEDS = icml26.pick(ci=32, paper=40)  # seeds per critic (the paper: 20 runs)
A2C_GROUP = 8  # 03.13 is decided in each group of 8 seeds
A2C_ITERS = icml26.pick(ci=400, paper=1000)  # updates of 16 episodes of 25 steps
RETENTION = 0.5  # non-inferiority: share of the full-state critic's gain to keep
CP_SEEDS = icml26.pick(ci=8, paper=10)  # position-only CartPole
CP_ITERS = icml26.pick(ci=600, paper=5000)  # updates of 16 segments of 10 steps
CP_SIGNALS = icml26.pick(
    ci=["none", "cart velocity", "angular velocity"],
    paper=[
        "none",
        "cart velocity",
        "angular velocity",
        "both velocities",
        "full state",
    ],
)

# %% [markdown]
# The picture to keep in mind: the signal $i_t$ hangs off the state, the actor reads only the
# history, and the informed critic reads the history *and* the signal.

# %% tags=["hide-input"] mystnb={"figure": {"caption": "The informed POMDP. The signal hangs off the state and reaches only the critic.", "name": "informed-critic-fig-diagram"}}
fig, ax = plt.subplots(figsize=(7.4, 3.2))
ax.set_axis_off()
ax.set_xlim(-0.2, 10.2)
ax.set_ylim(0.1, 4.1)
W, HB = 1.5, 0.55  # box width and height
nodes = {  # name: (x, y, label, width)
    "s": (1.4, 3.5, "state $s_t$", W),
    "s1": (5.6, 3.5, "state $s_{t+1}$", W),
    "o": (0.8, 2.1, "obs. $o_t$", W),
    "i": (2.8, 2.1, "signal $i_t$", W),
    "h": (0.8, 0.7, "history $h_t$", W),
    "actor": (3.3, 0.7, r"actor $\pi_\theta(a \mid h)$", 2.0),
    "a": (5.6, 0.7, "action $a_t$", W),
    "critic": (8.6, 2.1, "critic $Q(h, i, a)$", 2.2),
}
for key, (x, y, text, wd) in nodes.items():
    fc = "#fde7c8" if key in ("critic", "i") else "#dde8f5"
    box = FancyBboxPatch(
        (x - wd / 2, y - HB / 2), wd, HB, boxstyle="round,pad=0.04", fc=fc, ec="0.3"
    )
    ax.add_patch(box)
    ax.text(x, y, text, ha="center", va="center", fontsize=9)


def edge(key, toward):
    """Point where the segment from a box's centre toward `toward` leaves the box."""
    x, y, _, wd = nodes[key]
    dx, dy = toward[0] - x, toward[1] - y
    tx = wd / 2 / abs(dx) if dx else np.inf
    ty = HB / 2 / abs(dy) if dy else np.inf
    t = min(tx, ty) + 0.02
    return x + t * dx, y + t * dy


def arrow(a, b, color="0.3"):
    pa, pb = nodes[a][:2], nodes[b][:2]
    ax.add_patch(
        FancyArrowPatch(
            edge(a, pb),
            edge(b, pa),
            arrowstyle="-|>",
            mutation_scale=11,
            color=color,
            lw=1.3,
        )
    )


for a, b in [("s", "s1"), ("s", "o"), ("s", "i"), ("o", "h"), ("h", "actor")]:
    arrow(a, b)
for a, b in [("actor", "a"), ("a", "s1")]:
    arrow(a, b)
for a in ("h", "i", "a"):
    arrow(a, "critic", color="C1")
ax.text(
    8.6,
    3.3,
    "training only: $i_t$ reaches\nthe critic, never the actor",
    fontsize=8.5,
    ha="center",
    va="center",
    color="C1",
)
ax.set_title(
    "The informed POMDP: a state-dependent signal feeds the critic, not the actor"
)
plt.show()


# %% [markdown]
# ## Implementation
#
# **The audit POMDP.** A hidden side $s \in \{0, 1\}$ persists from step to step (it flips with
# probability 0.1), each observation reports it correctly with probability 0.7, the first two
# steps cost 0.05 and at the last step ($t = 2$) the action earns $+1$ if it names the side and
# $-1$ otherwise; $\gamma = 0.95$. The policy is a tabular softmax over all 42 histories
# (84 logits). Four admissible signals: the state itself; a noisy state (flipped with probability
# 0.2); independent noise; and an expert's action $a^\star \sim \pi^\star(\cdot \mid s)$ with
# $\pi^\star(s \mid s) = 0.9$. Listing every combination of states, observations, signals and
# actions gives $16^3 = 4096$ candidate trajectories, 512 of them possible.
#
# The readable reference: conditional means by a dictionary over *tuples* (the history as the
# tuple of its observations and actions), and the policy-gradient estimator as a sum over
# trajectories and steps with the softmax score $\nabla \log \pi(a \mid h) = e_a - \pi(\cdot \mid
# h)$ on the logits of $h$.


# %% tags=["reference"]
def reference_conditional_mean(values, prob, keys):
    """E[value | key] under trajectory probabilities, returned for each trajectory."""
    num, den = {}, {}
    for v, p, k in zip(values, prob, keys, strict=True):
        num[k] = num.get(k, 0.0) + p * v
        den[k] = den.get(k, 0.0) + p
    return np.array([num[k] / den[k] for k in keys])


def reference_policy_gradient(
    theta, hist, actions, prob, critic_values, n_hist, n_actions, gamma
):
    """Sum over trajectories and steps of P(traj) γ^t C_t ∇ log π(a_t | h_t)."""
    grad = np.zeros_like(theta)
    offsets = np.cumsum([0] + [n * n_actions for n in n_hist])
    for k in range(len(prob)):
        for t in range(hist.shape[1]):
            start = offsets[t] + hist[k, t] * n_actions
            logits = theta[start : start + n_actions]
            pi = np.exp(logits - logits.max())
            pi /= pi.sum()
            score = -pi
            score[actions[k, t]] += 1.0
            grad[start : start + n_actions] += (
                prob[k] * gamma**t * critic_values[k, t] * score
            )
    return grad


def reference_permutation_hsic(e_x, e_y, episode_length, perms, sigma_x, sigma_y):
    """Exact-Gram HSIC and its episode-level permutation p-value, one permutation
    at a time."""
    n = len(e_x)
    K = np.exp(-((e_x[:, None, :] - e_x[None]) ** 2).sum(-1) / (2 * sigma_x**2))
    L = np.exp(-((e_y[:, None, :] - e_y[None]) ** 2).sum(-1) / (2 * sigma_y**2))
    centre = np.eye(n) - 1.0 / n
    Kc = centre @ K @ centre
    stat = (Kc * L).sum() / n**2  # tr(K H L H) / n² = <HKH, L>
    null = []
    for perm in perms:  # step (e, t) of x against step (perm[e], t) of y
        idx = (perm[:, None] * episode_length + np.arange(episode_length)).ravel()
        null.append((Kc * L[np.ix_(idx, idx)]).sum() / n**2)
    null = np.array(null)
    return stat, (1 + (null >= stat).sum()) / (1 + len(perms))


# %% [markdown]
# The kernels of {mod}`icml26.sequential.critic`: {func}`~icml26.sequential.critic.enumerate_pomdp`
# lists the trajectories as integer tensors with a mixed-radix index per history,
# {func}`~icml26.sequential.critic.conditional_mean` groups them with one `index_add_`,
# {func}`~icml26.sequential.critic.informed_gradient` computes the estimator as the gradient of
# a surrogate $\sum_\tau P(\tau) \sum_t \gamma^t C_t \log \pi(a_t \mid h_t)$ with $P$ and $C$
# held fixed, and {func}`~icml26.sequential.critic.exact_objective` gives $J(\theta)$, whose
# autograd gradient is the ground truth $\nabla J$. Both must agree with the reference on a
# random policy.

# %%
p0, T_audit, O_audit, R_audit = critic.audit_pomdp(
    horizon=HORIZON, flip=FLIP, accuracy=ACCURACY, step_cost=STEP_COST
)


def per_step(kernel):
    """The same signal kernel I(i | s) at every step, in float64 (rows sum to 1)."""
    return torch.tensor(kernel, dtype=DT).expand(HORIZON, 2, 2).clone()


SIGNALS = {
    "state i = s": per_step([[1.0, 0.0], [0.0, 1.0]]),
    "noisy state": per_step([[0.8, 0.2], [0.2, 0.8]]),
    "independent noise": per_step([[0.5, 0.5], [0.5, 0.5]]),
    "expert action a*": per_step([[0.9, 0.1], [0.1, 0.9]]),
}
ENUMS = {
    name: critic.enumerate_pomdp(p0, T_audit, O_audit, kern, R_audit, 2)
    for name, kern in SIGNALS.items()
}


def exact_quantities(theta, E):
    """Trajectory weights, returns and the exact critics of one enumeration."""
    w = (E.log_env + critic.policy_log_probs(theta, E).sum(1)).exp()
    G = critic.discounted_returns(E.reward, GAMMA_AUDIT)
    A, nI = E.n_actions, E.n_signal
    keys = {
        "Q(h,i,a)": (E.hist * nI + E.i) * A + E.a,
        "V(h,i)": E.hist * nI + E.i,
        "Q(h,a)": E.hist * A + E.a,
        "V(h)": E.hist,
        "Q(s,a)": E.s * A + E.a,
    }
    crit = {
        name: torch.stack(
            [critic.conditional_mean(G[:, t], w, k[:, t]) for t in range(E.horizon)], 1
        )
        for name, k in keys.items()
    }
    return w, G, crit


def true_gradient(theta, E):
    th = theta.clone().requires_grad_(True)
    (g,) = torch.autograd.grad(critic.exact_objective(th, E, GAMMA_AUDIT), th)
    return g


E_s = ENUMS["state i = s"]
theta0 = torch.randn(E_s.n_logits, generator=gen, dtype=DT)
w0, G0, crit0 = exact_quantities(theta0, E_s)
hist_tuples = [
    [
        tuple(E_s.o[k, : t + 1].tolist()) + tuple(E_s.a[k, :t].tolist())
        for t in range(HORIZON)
    ]
    for k in range(len(w0))
]
q_ref = np.stack(
    [
        reference_conditional_mean(
            G0[:, t].numpy(),
            w0.numpy(),
            [
                (hist_tuples[k][t], int(E_s.i[k, t]), int(E_s.a[k, t]))
                for k in range(len(w0))
            ],
        )
        for t in range(HORIZON)
    ],
    1,
)
icml26.checks.agree(
    "Q(h,i,a): kernel vs reference", crit0["Q(h,i,a)"], q_ref, atol=1e-12
)
g_kernel = critic.informed_gradient(theta0, E_s, crit0["Q(h,i,a)"], GAMMA_AUDIT)
g_ref = reference_policy_gradient(
    theta0.numpy(),
    E_s.hist.numpy(),
    E_s.a.numpy(),
    w0.numpy(),
    q_ref,
    E_s.n_hist,
    E_s.n_actions,
    GAMMA_AUDIT,
)
icml26.checks.agree(
    "informed gradient: kernel vs reference", g_kernel, g_ref, atol=1e-12
)
print(
    f"{len(w0)} possible trajectories, {E_s.n_logits} logits; J(θ₀) = "
    f"{float(critic.exact_objective(theta0, E_s, GAMMA_AUDIT)):.4f}; kernel = reference"
)

# %% [markdown]
# **The synthetic informed POMDP** (our reconstruction of the paper's Table 1 environment).
# Twenty states with Gaussian features $\phi(s) \in \mathbb{R}^5$, four actions with random
# Dirichlet transition rows, reward $w_r^\top \phi(s_t)$ with the paper's weights $w_r =
# (10^{-4}, 10^{-4}, -10^{-4}, -1, 1)$ — so $\phi_4, \phi_5$ carry the reward — and observation
# $o_t = (\phi_1, \phi_2)$; episodes of 25 steps, $\gamma = 0.99$. The states come in five
# groups of four that share $(\phi_1, \phi_2)$: the observation is **aliased**, and the history
# only partly reveals which state of the group the agent is in. (With continuous random
# features in every coordinate the observation would identify the state, every state-derived
# signal would be a function of the history, and the conditional-independence null would be
# *true* for all of them.) The transition rows are Dirichlet(0.1), i.e. sparse, so that the
# choice of action matters: a uniformly random policy and the best policy that sees the state
# are far apart, which leaves room to learn. Candidate signals are the paper's feature subsets
# and a few of ours, introduced where they are used.
#
# **The actor-critic.** {func}`~icml26.sequential.a2c.train_a2c` trains
# {prf:ref}`informed-critic-alg-a2c` for every (signal, seed) pair at once: each head is a
# one-hidden-layer network on the history features $z_t$ — the last three observations with
# one-hot previous actions, and the time $t/25$ — and every matrix product carries a leading
# model axis. The readable reference below computes one model's losses one episode and one step
# at a time, with its own sampling (Gumbel-max: $a_t = \arg\max_a(\ell_a + g_a)$ with the
# segment's Gumbel noise $g$) and its own features; the kernel's batched
# {func}`~icml26.sequential.a2c.collect` and {func}`~icml26.sequential.a2c.a2c_losses` must
# give the same actions, rewards and losses.

# %%
env = envs.aliased_pomdp(
    n_groups=N_GROUPS,
    group_size=GROUP_SIZE,
    n_actions=N_ACTIONS,
    concentration=CONCENTRATION,
    horizon=EPISODE_LEN,
    generator=icml26.stats.stream(SEED, 1),
)
R_RANDOM, R_BEST = envs.reference_returns(env)
print(
    f"expected return over {EPISODE_LEN} steps: uniformly random policy "
    f"{R_RANDOM:.1f}, best policy that sees the state {R_BEST:.1f}"
)


# %% tags=["reference"]
def reference_a2c_losses(env, models, m, starts, draws, sel, noise, gamma, ent, window):
    """Model m's actor and critic losses, one episode and one step at a time (each
    segment is one episode from its first step)."""

    def head(params, x):  # the model's one-hidden-layer network on one input
        W1, b1, W2, b2 = (p[m] for p in params)
        return torch.relu(x @ W1 + b1[0]) @ W2 + b2[0]

    T, A, dt = draws["gumbel"].shape[0], env.n_actions, sel.dtype
    actor_terms, critic_terms = [], []
    for n in range(starts.shape[1]):
        state, steps, record = starts[m, n], [], []
        prev = torch.zeros(A, dtype=dt)
        for t in range(T):
            obs = env.observe(state).to(dt)
            steps.insert(0, torch.cat([obs, prev, torch.ones(1, dtype=dt)]))
            lags = steps[:window] + [torch.zeros_like(steps[0])] * (window - len(steps))
            z = torch.cat([*lags, torch.tensor([t / env.horizon], dtype=dt)])
            i = (
                env.privileged(state).to(dt) @ sel[m]
                + draws["noise"][t, m, n] * noise[m, 0]
            )
            a = int(torch.argmax(head(models.actor, z) + draws["gumbel"][t, m, n]))
            state, r, _ = env.step(state, torch.tensor(a), draws["step"][t, m, n])
            record.append((torch.cat([z, i]), a, float(r)))
            prev = torch.nn.functional.one_hot(torch.tensor(a), A).to(dt)
        for t, (x, a, r) in enumerate(record):
            v = head(models.critic, x)[0]
            v_next, v_target = 0.0, 0.0  # the episode ends at t = T - 1
            if t < T - 1:
                with torch.no_grad():
                    v_next = float(head(models.critic, record[t + 1][0])[0])
                    v_target = float(head(models.target, record[t + 1][0])[0])
            advantage = r + gamma * v_next - v.item()
            logp = torch.log_softmax(head(models.actor, x[: -sel.shape[-1]]), -1)
            entropy = -(logp.exp() * logp).sum()
            actor_terms.append(-advantage * logp[a] - ent * entropy)
            critic_terms.append((v - r - gamma * v_target) ** 2)
    return torch.stack(actor_terms).mean(), torch.stack(critic_terms).mean()


# %%
check_signals = [
    a2c.Signal("none"),
    a2c.Signal("noise", noise=2),
    a2c.Signal("[s1,s2,s4,s5]", (0, 1, 3, 4)),
]
S_chk, N_chk = 2, 3
sel_chk, noise_chk = a2c.signal_maps(check_signals, 5, S_chk, DT)
models_chk = a2c.init_models(
    3, S_chk, 22, sel_chk.shape[-1], N_ACTIONS, 8, generator=gen
)
draws_chk = a2c.draw_segment(env, EPISODE_LEN, S_chk, 3, N_chk, 4, generator=gen)
u_start = torch.rand(S_chk, N_chk, 1, generator=gen, dtype=DT).repeat(3, 1, 1)
ro_chk = a2c.start(env, 3 * S_chk, N_chk, WINDOW, u_start)
seg_chk, _ = a2c.collect(env, models_chk, ro_chk, sel_chk, noise_chk, draws_chk)
loss_kernel = torch.stack(a2c.a2c_losses(models_chk, seg_chk, GAMMA, 0.01), 1)
loss_ref = torch.stack(
    [
        torch.stack(
            reference_a2c_losses(
                env,
                models_chk,
                m,
                ro_chk.state,
                draws_chk,
                sel_chk,
                noise_chk,
                GAMMA,
                0.01,
                WINDOW,
            )
        )
        for m in range(3 * S_chk)
    ]
)
icml26.checks.agree(
    "A2C losses: kernel vs reference", loss_kernel, loss_ref, atol=1e-12
)
print(
    f"{3 * S_chk} models × {N_chk} episodes: actor and critic losses of the batched "
    "kernel = the one-episode-at-a-time reference"
)

# %% [markdown]
# ## Experiments
#
# The first five experiments check the theory exactly, on the audit POMDP, over `N_POLICIES`
# random tabular policies (20 at the default scale, logits of scale 1.5). One loop computes
# everything they need for each policy: the exact gradient $\nabla J$ by autograd, the
# estimator with every critic, the variance decomposition of
# {prf:ref}`informed-critic-prop-variance` and the TD fixed points of
# {prf:ref}`informed-critic-prop-td`. Three broken variants serve as controls: a signal that
# *looks at the action*, $i_t = \mathbb{1}\{a_t = s_t\}$, which violates $a_t \perp i_t \mid
# h_t$; a *reactive* policy, whose logits read only the last observation, for which the
# state-only critic is unbiased; and the Markov signal $i = s$ for the TD experiment.


# %%
def action_peeking_critic(w, G, E, baseline=False):
    """Q(h, i', a), or V(h, i'), for the inadmissible signal i'_t = 1{a_t = s_t}."""
    peek = (E.a == E.s).long()
    keys = E.hist * 2 + peek if baseline else (E.hist * 2 + peek) * E.n_actions + E.a
    return torch.stack(
        [critic.conditional_mean(G[:, t], w, keys[:, t]) for t in range(HORIZON)], 1
    )


def reactive_theta(E, generator):
    """Logits that read only the last observation (a memoryless, reactive policy)."""
    blocks = []
    for n in E.n_hist:  # the last observation is the history index modulo n_obs
        base = 1.5 * torch.randn(E.n_obs, E.n_actions, generator=generator, dtype=DT)
        blocks.append(base[torch.arange(n) % E.n_obs])
    return torch.cat(blocks).reshape(-1)


def variance_terms(w, G, crit, E):
    """Per trajectory and step: Var(G_t | h_t) and E_{i|h} Var(G_t | h_t, i_t)."""
    var_h, e_var_hi = [], []
    for t in range(HORIZON):
        h, hi = E.hist[:, t], E.hist[:, t] * E.n_signal + E.i[:, t]
        g2 = G[:, t] ** 2
        var_h.append(critic.conditional_mean(g2, w, h) - crit["V(h)"][:, t] ** 2)
        var_hi = critic.conditional_mean(g2, w, hi) - crit["V(h,i)"][:, t] ** 2
        e_var_hi.append(critic.conditional_mean(var_hi, w, h))
    return torch.stack(var_h, 1), torch.stack(e_var_hi, 1)


def relative_error(g, gJ):
    return float((g - gJ).norm() / gJ.norm())


forget = per_step([[0.5, 0.5], [0.5, 0.5]])
forget[0] = torch.eye(2, dtype=DT)  # i_0 = s_0, then independent noise
E_f = critic.enumerate_pomdp(p0, T_audit, O_audit, forget, R_audit, 2)
audit = {
    key: []
    for key in (
        "unbiased", "state-only", "symmetric", "peek", "reactive state-only",
        "gap i=s", "gap noise", "td forget", "td i=s", "violations", "peek max",
    )
}  # fmt: skip
for _ in range(N_POLICIES):
    theta = 1.5 * torch.randn(E_s.n_logits, generator=gen, dtype=DT)
    gJ = true_gradient(theta, E_s)
    for name, E in ENUMS.items():
        w, G, crit = exact_quantities(theta, E)
        for c in (crit["Q(h,i,a)"], crit["Q(h,i,a)"] - crit["V(h,i)"]):
            g = critic.informed_gradient(theta, E, c, GAMMA_AUDIT)
            audit["unbiased"].append(float((g - gJ).abs().max()))
        var_h, e_var_hi = variance_terms(w, G, crit, E)
        audit["violations"].append(int((e_var_hi > var_h + 1e-12).sum()))
        gap = torch.stack(
            [(w * (var_h - e_var_hi)[:, t]).sum() for t in range(HORIZON)]
        )
        if name in ("state i = s", "independent noise"):
            audit["gap i=s" if name == "state i = s" else "gap noise"].append(gap)
    w, G, crit = exact_quantities(theta, E_s)
    grads = {
        "state-only": crit["Q(s,a)"],
        "symmetric": crit["Q(h,a)"],
        "peek": action_peeking_critic(w, G, E_s)
        - action_peeking_critic(w, G, E_s, baseline=True),
    }
    for key, c in grads.items():
        g = critic.informed_gradient(theta, E_s, c, GAMMA_AUDIT)
        audit[key].append(relative_error(g, gJ))
        if key == "peek":
            audit["peek max"].append(float((g - gJ).abs().max()))
    theta_r = reactive_theta(E_s, gen)
    _, _, crit_r = exact_quantities(theta_r, E_s)
    g_r = critic.informed_gradient(theta_r, E_s, crit_r["Q(s,a)"], GAMMA_AUDIT)
    audit["reactive state-only"].append(
        relative_error(g_r, true_gradient(theta_r, E_s))
    )
    for key, E in (("td forget", E_f), ("td i=s", E_s)):
        w, _, crit = exact_quantities(theta, E)
        keys = E.hist * E.n_signal + E.i
        V_td = critic.td_fixed_point(w, E.reward, keys, GAMMA_AUDIT)
        audit[key].append(float((V_td[:, 0] - crit["V(h,i)"][:, 0]).abs().max()))

assert sum(audit["violations"]) == 0, "the law of total variance holds for any signal"
print(f"{N_POLICIES} random policies; relative gradient error, median over policies:")
for key in ("state-only", "symmetric", "peek", "reactive state-only"):
    med = float(np.median(audit[key]))
    print(f"  {key:>20}: " + ("< 1e-12" if med < 1e-12 else f"{med:.2f}"))
td = np.array(audit["td forget"])
print(
    f"TD gap at t = 0 with a forgetting signal: median {np.median(td):.2f}, "
    f"{(td >= 0.05).sum()} of {N_POLICIES} policies at least 0.05"
)

# %% [markdown]
# ### 03.1 · The informed gradient is unbiased for every admissible signal
#
# *Claim* ({prf:ref}`informed-critic-thm-unbiased`): with the exact informed critic,
# $g_{\mathrm{inf}} = \sum_\tau P(\tau) \sum_t \gamma^t Q(h_t, i_t, a_t) \nabla \log \pi(a_t \mid
# h_t)$ equals $\nabla J$ — for all four signals, with and without the baseline $V(h, i)$, for
# every audited policy. The threshold $10^{-9}$ is rounding level for sums of a few thousand
# terms. The control is the action-peeking signal's advantage $Q(h, i, a) - V(h, i)$, which the
# theorem does not cover.

# %% tags=["claim"]
# fails if: the signal depended on the action, i leaked into the actor, or the score
# were wrong — the action-peeking signal (the control) gives a biased gradient
icml26.claim(
    "03.1",
    "max |g_inf − ∇J| over policies (floor 1e-14), 4 signals, ± baseline",
    max(max(audit["unbiased"]), FLOOR),
    at_most=1e-9,
    kind="theorem",
    control=min(audit["peek max"]),
    control_label="action-peeking signal",
)

# %% [markdown]
# ### 03.2 · A state-only critic is biased
#
# *Claim* ({prf:ref}`informed-critic-prop-state-bias`, background from Baisero and Amato):
# with $Q(s_t, a_t)$ in place of the history critic the gradient is off by at least 5 %
# (relative norm) for every audited policy with memory. The 5 % is our threshold, chosen to rule
# out a toy in which the bias trivially vanishes; the control is a set of reactive policies,
# for which the proposition says the bias is zero.

# %% tags=["claim"]
# fails if: the audit POMDP were effectively Markov in the observation or Q(s,a) were
# secretly conditioned on the history — reactive policies (the control) must give no
# bias
icml26.claim(
    "03.2",
    "relative error ‖g_state-only − ∇J‖ / ‖∇J‖, policies with memory",
    seeds=audit["state-only"],
    rule="worst",
    at_least=0.05,
    control=[max(e, FLOOR) for e in audit["reactive state-only"]],
    control_label="reactive policies",
)

# %% tags=["hide-input"] mystnb={"figure": {"caption": "Gradient error by critic, at the last audited policy. Informed critics are exact; state-only and action-peeking are not.", "name": "informed-critic-fig-gradient"}}
labels = [*SIGNALS, "symmetric Q(h,a)", "state-only Q(s,a)", "action-peeking Q−V"]
rel_inf = []
for E in ENUMS.values():  # relative errors of the informed critics at the last policy
    w, G, crit = exact_quantities(theta, E)
    g_inf = critic.informed_gradient(theta, E, crit["Q(h,i,a)"], GAMMA_AUDIT)
    rel_inf.append(relative_error(g_inf, gJ))
last = [audit[k][-1] for k in ("symmetric", "state-only", "peek")]
vals = np.maximum([*rel_inf, *last], 1e-17)
fig, ax = plt.subplots(figsize=(7.2, 3.4))
colors = [icml26.plotting.color(0)] * 4 + [icml26.plotting.color(2)]
colors += [icml26.plotting.color(1)] * 2
ax.bar(range(len(vals)), vals, color=colors)
ax.set_yscale("log")
ticks = [lab.replace(" ", "\n", 1) for lab in labels]
ax.set_xticks(range(len(vals)), ticks, fontsize=8)
ax.axhline(0.05, color="black", ls="--", lw=1)
ax.text(-0.4, 0.07, "5 % (claim 03.2)", fontsize=8, ha="left", va="bottom")
ax.set_ylabel("relative gradient error ‖g − ∇J‖ / ‖∇J‖")
ax.set_title(
    "Informed critics are exact (rounding level); state-only and action-peeking are not"
)
plt.show()

# %% [markdown]
# The informed critics (blue) sit at $10^{-16}$, the floating-point floor, whatever the
# signal's quality — even pure noise is an admissible (useless) signal. The state-only critic
# misses by tens of per cent: its $Q(s, a)$ averages over the observations that led to $s$,
# but the policy at the next step reads those observations.
#
# ### 03.3 · The tower property, and where it breaks
#
# *Claim* ({prf:ref}`informed-critic-lem-tower`): for every history and action, $\sum_i
# \mathbb{P}(i \mid h)\, Q(h, i, a) = Q(h, a)$ — with $\mathbb{P}(i \mid h)$, not $\mathbb{P}(i
# \mid h, a)$ — and $\sum_i \mathbb{P}(i \mid h) V(h, i) = V(h)$, to $10^{-12}$, for all four
# signals. The action-peeking signal must violate the first identity.


# %%
def tower_gap(w, crit, E, i_values):
    """max over (t, h, a) of |Σ_i P(i|h) Q(h,i,a) − Q(h,a)| and of
    |Σ_i P(i|h) V(h,i) − V(h)|."""
    nI, A = int(i_values.max()) + 1, E.n_actions
    gap_q, gap_v = 0.0, 0.0
    for t in range(HORIZON):
        h, i, a = E.hist[:, t], i_values[:, t], E.a[:, t]
        grid = (E.n_hist[t], nI, A)  # Q(h, i, a') for every a' on one grid
        p_ih = torch.zeros(grid[:2], dtype=DT).index_put_((h, i), w, accumulate=True)
        p_ih = p_ih / p_ih.sum(1, keepdim=True).clamp_min(1e-300)
        q = torch.zeros(grid, dtype=DT).index_put_((h, i, a), crit["Q(h,i,a)"][:, t])
        q_mix = (p_ih[:, :, None] * q).sum(1)  # Σ_i P(i|h) Q(h,i,a), shape (n_hist, A)
        seen = torch.zeros(grid, dtype=torch.bool).index_put_((h, i, a), w > 0)
        seen = seen.all(1)  # (h, a) pairs with every i possible
        qha = torch.zeros(grid[0], A, dtype=DT).index_put_((h, a), crit["Q(h,a)"][:, t])
        gap_q = max(gap_q, float((q_mix - qha)[seen].abs().max()))
        v_mix = critic.conditional_mean(crit["V(h,i)"][:, t], w, h)
        gap_v = max(gap_v, float((v_mix - crit["V(h)"][:, t]).abs().max()))
    return gap_q, gap_v


tower = []
for E in ENUMS.values():
    w, G, crit = exact_quantities(theta0, E)
    tower.append(max(tower_gap(w, crit, E, E.i)))
w, G, crit = exact_quantities(theta0, E_s)
peek = (E_s.a == E_s.s).long()
crit_peek = dict(crit, **{"Q(h,i,a)": action_peeking_critic(w, G, E_s)})
crit_peek["V(h,i)"] = action_peeking_critic(w, G, E_s, baseline=True)
peek_gap_q, _ = tower_gap(w, crit_peek, E_s, peek)

# %% tags=["claim"]
# fails if: the signal were drawn with knowledge of the action (a_t and i_t dependent
# given h_t) or the critics were conditioned wrongly — the action-peeking control breaks
# it
icml26.claim(
    "03.3",
    "tower lemma: max |E[Q(h,i,a) | h] − Q(h,a)| (floor 1e-14)",
    max(max(tower), FLOOR),
    at_most=1e-12,
    kind="theorem",
    control=peek_gap_q,
    control_label="action-peeking signal",
)

# %% [markdown]
# ### 03.4 · Total variance: informed targets are less noisy
#
# Part (a) of {prf:ref}`informed-critic-prop-variance` is the law of total variance, so it
# holds for any signal and any correct code: the loop above asserts
# $\mathbb{E}_{i \mid h}\operatorname{Var}(G_t \mid h, i) \le \operatorname{Var}(G_t \mid h) +
# 10^{-12}$ for every step, history, signal and policy. What is not automatic is that a signal
# *helps*: that the gap $\operatorname{Var}_{i \mid h}(V(h, i))$ is sizeable. *Claim*: for $i =
# s$ the probability-weighted mean over histories of $\operatorname{Var}(G_t \mid h) -
# \mathbb{E}_{i\mid h}\operatorname{Var}(G_t \mid h, i)$, averaged over the three steps, is at
# least $0.01$ (our threshold, about a tenth of the return's variance here) for every audited
# policy; independent noise, the control, leaves it at zero.

# %% tags=["claim"]
# fails if: the state signal carried no information about the return beyond the history
# (no value aliasing) — independent noise, the control, explains nothing
icml26.claim(
    "03.4",
    "i = s: mean over t, h of Var(G|h) − E Var(G|h,i)",
    seeds=[float(g.mean()) for g in audit["gap i=s"]],
    rule="worst",
    at_least=0.01,
    control=[max(abs(float(g.mean())), FLOOR) for g in audit["gap noise"]],
    control_label="independent noise",
)

# %% tags=["hide-input"] mystnb={"figure": {"caption": "Variance explained by each signal, per step, at a random policy. Noise explains nothing.", "name": "informed-critic-fig-variance"}}
per_step_gap = {}
for name, E in ENUMS.items():
    w, G, crit = exact_quantities(theta0, E)
    var_h, e_var_hi = variance_terms(w, G, crit, E)
    per_step_gap[name] = [float((w * (var_h - e_var_hi)[:, t]).sum()) for t in range(3)]
fig, ax = plt.subplots(figsize=(7.2, 3.3))
width = 0.2
for k, name in enumerate(SIGNALS):
    ax.bar(
        np.arange(HORIZON) + (k - 1.5) * width,
        per_step_gap[name],
        width,
        label=name,
        color=icml26.plotting.color(k),
    )
ax.set_xticks(range(HORIZON), [f"t = {t}" for t in range(HORIZON)])
ax.set_ylabel(
    r"$\mathbb{E}_h[\mathrm{Var}(G_t|h) - \mathbb{E}_{i|h}\mathrm{Var}(G_t|h,i)]$"
)
ax.set_title("How much return variance each signal explains, per step")
ax.legend(fontsize=8)
plt.show()

# %% [markdown]
# The state explains most, the expert's action (which is the state, seen through a 10 %-noisy
# expert) and the noisy state less, and independent noise nothing. The gap grows towards the end,
# where the remaining return hinges on the hidden side.
#
# The second half of {prf:ref}`informed-critic-prop-variance` is the caution: with **exact**
# critics, the per-step estimator with $Q(h, a)$ is never more variable than the one with
# $Q(h, i, a)$. We measure the trace of the covariance of $X_t$ per step and of the whole sum
# $\sum_t X_t$, for $i = s$.


# %%
def score_vectors(theta, E):
    """∇ log π(a_t | h_t) for every trajectory and step, shape (N, H, n_logits)."""
    out = torch.zeros(len(E.s), HORIZON, E.n_logits, dtype=DT)
    offsets = np.cumsum([0] + [n * E.n_actions for n in E.n_hist])
    rows = torch.arange(len(E.s))
    for t in range(HORIZON):
        logits = theta[offsets[t] : offsets[t + 1]].view(-1, E.n_actions)
        score = -torch.softmax(logits, -1)[E.hist[:, t]]  # e_a − π(·|h), (N, A)
        score[rows, E.a[:, t]] += 1.0
        cols = offsets[t] + E.hist[:, t, None] * E.n_actions + torch.arange(E.n_actions)
        out[rows[:, None], t, cols] = score
    return out


def trace_cov(X, w):
    mean = (w[:, None] * X).sum(0)
    return float((w * X.square().sum(1)).sum() - mean.square().sum())


w, G, crit = exact_quantities(theta0, E_s)
S_vec = score_vectors(theta0, E_s)
disc = GAMMA_AUDIT ** torch.arange(HORIZON, dtype=DT)
X_sym = disc[None, :, None] * crit["Q(h,a)"][:, :, None] * S_vec
X_inf = disc[None, :, None] * crit["Q(h,i,a)"][:, :, None] * S_vec
step_sym = [trace_cov(X_sym[:, t], w) for t in range(HORIZON)]
step_inf = [trace_cov(X_inf[:, t], w) for t in range(HORIZON)]
assert all(a <= b + 1e-12 for a, b in zip(step_sym, step_inf, strict=True))
tot_sym, tot_inf = trace_cov(X_sym.sum(1), w), trace_cov(X_inf.sum(1), w)
print(
    "tr Cov per step, symmetric vs informed:",
    [f"{a:.3f} ≤ {b:.3f}" for a, b in zip(step_sym, step_inf, strict=True)],
)
print(f"whole trajectory: symmetric {tot_sym:.3f}, informed {tot_inf:.3f}")

# %% [markdown]
# With oracle critics the informed estimator is *more* variable, step by step and here also
# summed over the trajectory. The benefit of a signal is therefore not in the estimator with a
# known critic but in *learning* the critic: its targets are less noisy
# {eq}`informed-critic-eq-totvar` and, with an aliased observation, the function to learn is
# simpler. Experiments 03.10–03.14 train critics and measure that effect.
#
# ### 03.5 · Beyond the paper: TD bootstrapping with a signal that forgets
#
# The paper trains its critic by TD(0) with a target network, while
# {prf:ref}`informed-critic-thm-unbiased` is about the *true* $Q(h, i, a)$. *Claim* (our
# {prf:ref}`informed-critic-prop-td`, not a claim of the paper): in the audit POMDP with $i_0 =
# s_0$ and $i_t$ independent noise for $t \ge 1$, the TD(0) fixed point of $V(h, i)$ differs
# from $\mathbb{E}[G \mid h, i]$ at $t = 0$ for every audited policy — by more than $10^{-6}$,
# far above rounding. The control is $i = s$ at every step, for which the proposition says
# they agree. (The size of the gap depends on the policy: its median over the policies is
# printed above; a policy that barely uses its memory loses little.)

# %% tags=["claim"]
# fails if: the TD recursion did not bootstrap on (h_{t+1}, i_{t+1}) — or the caveat
# were wrong; the Markov signal i = s (the control) must reach the informed value
# exactly
icml26.claim(
    "03.5",
    "min over policies of |V_TD − E[G|h,i]| at t=0, forgetting signal (ours)",
    min(audit["td forget"]),
    at_least=1e-6,
    kind="theorem",
    control=max(max(audit["td i=s"]), FLOOR),
    control_label="i = s",
)

# %% [markdown]
# The gap is the value of knowing $s_0$ *beyond step 0*: the TD target $r_0 + \gamma
# V(h_1, i_1)$ is computed from a noise signal at $t = 1$, which has forgotten what $i_0$ said
# about $s_0$. A Monte-Carlo target, $\mathbb{E}[G_t \mid h_t, i_t]$ by definition, is always
# right. The trained critics below bootstrap, as the paper's do; their signals are read afresh
# at every step, as $i = s$ is.

# %% [markdown]
# ### 03.6 · The residual test picks the reward-relevant signals
#
# The residual test, as the paper describes it, on the synthetic POMDP: 250 episodes of 25
# steps from a uniformly random policy; a history encoding $z_t$ (here the window of the last
# three observations and previous actions with the time, in place of the paper's recurrent
# encoder); cross-fitted random forests of $G_t$ and of $i_t$ on $(z_t, a_t)$, five folds split
# by episode; HSIC with Nyström features; $B = 200$ episode-level permutations. The candidate
# signals are the paper's feature subsets, $[\phi_3]$ alone (which tells the states of a group
# apart but carries no reward), independent noise, and a signal that is **redundant but not a
# copy**: the observation read through a sensor with a per-episode calibration offset,
# $[\phi_1, \phi_2] + \xi_e$ with $\xi_e \sim \mathcal N(0, I_2)$ drawn once per episode. The
# offset is independent of everything else, so the conditional-independence null holds for it,
# yet no regression recovers it from the history: its residual is not zero, and the test has to
# *work* to accept it. (The exact copy $[\phi_1, \phi_2]$ is accepted by construction, since
# its residual is the forest's error in predicting the observation from itself.)
#
# *Claim* 03.6: at $\alpha = 0.05$, the test flags the reward-carrying subsets $[\phi_1, \phi_2,
# \phi_4, \phi_5]$ and the full state ($p < \alpha$ for both); the control, the redundant
# sensor signal, must not be flagged.

# %%
SUBSETS = {
    "[s1,s2]": [0, 1],
    "[s3]": [2],
    "[s1,s2,s3]": [0, 1, 2],
    "[s1,s2,s4,s5]": [0, 1, 3, 4],
    "full [s1..s5]": [0, 1, 2, 3, 4],
}
OFFSET = "[s1,s2] + offset"
SENSOR = "[s4,s5] + sensor noise"


def episodes(n, generator, obs_noise=0.0):
    """Random-policy episodes, their critic features (z_t, a_t) and returns."""
    d = envs.rollout(env, n, EPISODE_LEN, obs_noise=obs_noise, generator=generator)
    z = envs.history_window(
        d["obs"], d["actions"], N_ACTIONS, WINDOW, horizon=EPISODE_LEN
    )
    a_onehot = torch.nn.functional.one_hot(d["actions"], N_ACTIONS).to(DT)
    G = critic.discounted_returns(d["rewards"], GAMMA)
    return d, torch.cat([z, a_onehot], -1), G


def candidates(d, generator, n_offsets=1):
    """Candidate signals (E, L, width) of a batch of episodes."""
    f = d["features"]
    E, L, _ = f.shape
    out = {name: f[..., idx] for name, idx in SUBSETS.items()}
    out["noise"] = torch.randn(E, L, 2, generator=generator, dtype=DT)
    for k in range(n_offsets):  # offset k: a fresh calibration offset per episode
        offset = torch.randn(E, 1, 2, generator=generator, dtype=DT)
        out[OFFSET if k == 0 else f"offset {k}"] = f[..., :2] + offset
    sensor = SENSOR_NOISE * torch.randn(E, L, 2, generator=generator, dtype=DT)
    out[SENSOR] = f[..., 3:] + sensor
    return out


gen_res = icml26.stats.stream(SEED, 2)
t0 = time.process_time()
d_res, X_res, G_res = episodes(RESID_EPISODES, gen_res)
cand_res = candidates(d_res, gen_res, N_OFFSETS)
n_rows = RESID_EPISODES * EPISODE_LEN
groups = np.repeat(np.arange(RESID_EPISODES), EPISODE_LEN)
X_np = X_res.reshape(n_rows, -1).numpy()
forest = dict(
    n_folds=N_FOLDS,
    n_trees=N_TREES,
    min_samples_leaf=MIN_LEAF,
    max_features=MAX_FEATURES,
    seed=SEED,
)


def cross_fit_residuals(Y):
    """Out-of-fold residuals of the columns of Y (n_rows, k) given (z_t, a_t)."""
    Y = Y.reshape(n_rows, -1).numpy()
    return torch.from_numpy(Y - info.cross_fit_predict(X_np, Y, groups, **forest))


e_G = cross_fit_residuals(G_res)
e_features = cross_fit_residuals(d_res["features"])  # one forest for all five features
others = [k for k in cand_res if k not in SUBSETS and k != SENSOR]
e_others = cross_fit_residuals(torch.cat([cand_res[k] for k in others], -1))
e_i = {name: e_features[:, idx] for name, idx in SUBSETS.items()}
e_i |= {k: e_others[:, 2 * j : 2 * j + 2] for j, k in enumerate(others)}
resid = {}
for name in icml26.progress(e_i, desc="residual tests"):
    resid[name] = info.permutation_hsic(
        e_G,
        e_i[name],
        EPISODE_LEN,
        n_permutations=N_PERMUTATIONS,
        n_landmarks=N_LANDMARKS,
        generator=gen_res,
    )
step_level = info.permutation_hsic(
    e_G, e_i[OFFSET], 1, n_permutations=N_PERMUTATIONS, generator=gen_res
)
t_resid = time.process_time() - t0
for name in [*SUBSETS, "noise", OFFSET]:
    r = resid[name]
    print(f"{name:>18}: HSIC = {r.statistic:.1e}, p = {r.p_value:.3f}")
offset_p = [resid[OFFSET].p_value] + [
    resid[f"offset {k}"].p_value for k in range(1, N_OFFSETS)
]
print(
    f"{OFFSET}, {N_OFFSETS} offset draws: p =", ", ".join(f"{p:.2f}" for p in offset_p)
)
print(f"the same with single steps permuted: p = {step_level.p_value:.3f}")

# %% tags=["nbval-ignore-output"]
print(f"residual tests: {t_resid:.1f} s of CPU time")

# %% tags=["claim"]
# fails if: the residuals were not cross-fitted or the toy were not aliased — the
# reward-carrying subsets would not be flagged; the redundant sensor signal (control) is
# not
icml26.claim(
    "03.6",
    "residual test p-value, worst of [s1,s2,s4,s5] and full state",
    max(resid["[s1,s2,s4,s5]"].p_value, resid["full [s1..s5]"].p_value),
    at_most=ALPHA,
    single_seed="one data set of 250 episodes, the paper's size",
    control=resid[OFFSET].p_value,
    control_label="[s1,s2] + offset",
)

# %% [markdown]
# ### 03.7 · The residual test does not flag a redundant signal
#
# *Claim*: a signal that adds nothing to the history is not flagged — over `N_OFFSETS`
# independent draws of the calibration offsets (5 at the default scale), the mean $p$-value of
# $[\phi_1, \phi_2] + \xi_e$ stays above $\alpha$ (lower 95 % bound of the mean; under the null
# $p$ is uniform, with mean 0.5). The control permutes single steps instead of whole
# episodes: both residuals are autocorrelated within an episode (overlapping discounted sums;
# a constant offset), so the step-level null is far too narrow and the redundant signal looks
# informative.

# %% tags=["claim"]
# fails if: the permutations re-paired single steps instead of whole episodes (the
# control) or the residuals leaked the return — the redundant signal would be flagged
icml26.claim(
    "03.7",
    "residual test p-value, redundant [s1,s2] + per-episode offset",
    seeds=offset_p,
    rule="mean-ci",
    at_least=ALPHA,
    control=step_level.p_value,
    control_label="single steps permuted",
)

# %% [markdown]
# $[\phi_3]$ is flagged too, with a statistic between the redundant and the reward-carrying
# signals: in our reconstruction $\phi_3$ tells the states of a group apart, and hence predicts
# the next states and their rewards, although its own reward weight is tiny. The exact copy
# $[\phi_1, \phi_2]$ is accepted, and so is independent noise.
#
# ### 03.8 · The prediction-gain test detects an effect of the paper's size
#
# The second test ({prf:ref}`informed-critic-def-gain`): on fresh random-policy episodes, five-fold
# cross-fitted linear critics of $(z_t, a_t)$ and of $(z_t, i_t, a_t)$ fitted to the Monte-Carlo
# returns, the per-episode gain $L^\tau$, and a one-sided $t$-test of $\mathbb{E}[L^\tau] > 0$.
# The paper's most informative subset has a mean gain of 0.064 in its Table 1. Ours are much
# larger (the reward here is a linear function of $\phi_4, \phi_5$, which a linear critic given
# them predicts exactly), so to test the detection of an effect of the paper's size we read
# $(\phi_4, \phi_5)$ through a noisy sensor, $i_t = (\phi_4, \phi_5) + 2\varepsilon_t$ with
# $\varepsilon_t \sim \mathcal N(0, I_2)$; the noise level was set so that the mean gain is near
# the paper's, before running the test. *Claim*: over `GAIN_SETS` independent data sets of
# `GAIN_EPISODES` episodes (5 × 1000 at the default scale), the test gives $p < 0.01$ on every
# one; the control, the redundant sensor signal of 03.6, must not.

# %%
gen_gain = icml26.stats.stream(SEED, 3)
gains, gain_p = {}, {}
for beta in OBS_NOISE:  # β_o: noisy observations, for the robustness panel
    d_g, X_g, G_g = episodes(GAIN_EPISODES, gen_gain, obs_noise=beta)
    cand = candidates(d_g, gen_gain)
    names = [*SUBSETS, "noise", OFFSET, SENSOR] if beta == 0 else list(SUBSETS)
    for name in names:
        X_i = torch.cat([X_g, cand[name]], -1)
        L = info.prediction_gains(X_g, X_i, G_g, n_folds=N_FOLDS, generator=gen_gain)
        gains[beta, name], gain_p[beta, name] = L, info.gain_ttest(L)[1]
    if beta == 0:
        sets = [(X_g, G_g, cand)]
for _ in range(GAIN_SETS - 1):
    d_g, X_g, G_g = episodes(GAIN_EPISODES, gen_gain)
    sets.append((X_g, G_g, candidates(d_g, gen_gain)))


def mixed_gains(X_sym, X_inf, G, generator):
    """The broken variant: the symmetric critic cross-fitted, the informed one fitted
    and scored on all episodes (its in-sample error is optimistic)."""

    def fit(X, rows):  # least squares on the episodes `rows`, predictions for all
        X_tr, y_tr = X[rows].reshape(-1, X.shape[-1]), G[rows].reshape(-1, 1)
        w = torch.linalg.lstsq(X_tr, y_tr, rcond=1e-10, driver="gelsd").solution
        return X @ w[:, 0]

    fold = torch.randperm(len(G), generator=generator) % N_FOLDS
    q_sym = torch.stack([fit(X_sym, fold != f) for f in range(N_FOLDS)])
    q_sym = q_sym[fold, torch.arange(len(G))]  # each episode from the fit without it
    q_inf = fit(X_inf, torch.ones(len(G), dtype=torch.bool))
    return ((q_sym - G).square() - (q_inf - G).square()).mean(1)


by_set = {key: [] for key in ("sensor", "sensor gain", "offset", "offset mixed")}
for X_g, G_g, cand in sets:
    for name, key in ((SENSOR, "sensor"), (OFFSET, "offset")):
        X_i = torch.cat([X_g, cand[name]], -1)
        L = info.prediction_gains(X_g, X_i, G_g, n_folds=N_FOLDS, generator=gen_gain)
        by_set[key].append(info.gain_ttest(L)[1])
        if key == "sensor":
            by_set["sensor gain"].append(float(L.mean()))
    L_mixed = mixed_gains(X_g, torch.cat([X_g, cand[OFFSET]], -1), G_g, gen_gain)
    by_set["offset mixed"].append(info.gain_ttest(L_mixed)[1])
for name in [*SUBSETS, "noise", OFFSET, SENSOR]:
    mean = round(float(gains[0.0, name].mean()), 3) + 0.0
    print(f"{name:>22}: mean L = {mean:+.3f}, p = {gain_p[0.0, name]:.0e}")
print(
    f"{SENSOR}, {GAIN_SETS} data sets: mean gain "
    f"{np.mean(by_set['sensor gain']):.2f} (the paper's best subset: 0.064)"
)

# %% tags=["claim"]
# fails if: the informed critic gained nothing from the reward-carrying features (the
# signal leaked into the symmetric critic, or folds were not split by episode); control:
# redundant
icml26.claim(
    "03.8",
    "gain-test p-value, [s4,s5] through a noisy sensor (mean gain near 0.064)",
    seeds=by_set["sensor"],
    rule="worst",
    at_most=0.01,
    control=by_set["offset"],
    control_label="[s1,s2] + offset",
)

# %% [markdown]
# ### 03.9 · The prediction-gain test does not flag a redundant signal
#
# *Claim*: on the same data sets, the redundant sensor signal $[\phi_1, \phi_2] + \xi_e$ is
# not flagged: its mean $p$-value stays above 0.05 (lower 95 % bound of the mean). The control
# is a bug that is easy to make: the symmetric critic cross-fitted, but the informed critic
# fitted and scored on the same episodes. Its in-sample error is optimistic by the whole
# critic's generalisation gap, which the test then reads as a gain from the signal.

# %% tags=["claim"]
# fails if: the informed critic were scored on the episodes it was fitted on while the
# symmetric one is cross-fitted (the control) — a redundant signal would look useful
icml26.claim(
    "03.9",
    "gain-test p-value, redundant [s1,s2] + per-episode offset",
    seeds=by_set["offset"],
    rule="mean-ci",
    at_least=0.05,
    control=by_set["offset mixed"],
    control_label="informed critic scored in-sample",
)

# %% tags=["hide-input"] mystnb={"figure": {"caption": "Residual test and prediction gain per candidate signal. Both single out the subsets that carry φ₄, φ₅, put φ₃ next, and leave the redundant signals alone.", "name": "informed-critic-fig-tests"}}
fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(7.4, 3.5))
names = [*SUBSETS, OFFSET]
short = [
    "[s1,s2]",
    "[s3]",
    "[s1,s2,\ns3]",
    "[s1,s2,\ns4,s5]",
    "full",
    "[s1,s2]\n+offset",
]
pv = [max(resid[n].p_value, 1e-4) for n in names]
ax1.bar(range(len(names)), pv, color=[icml26.plotting.color(k) for k in range(6)])
ax1.axhline(ALPHA, color="black", ls="--", lw=1)
ax1.text(-0.4, ALPHA * 1.25, "α = 0.05", fontsize=8, ha="left")
ax1.set_yscale("log")
ax1.set_ylim(1e-3, 2)
ax1.set_xticks(range(len(names)), short, fontsize=8)
ax1.set_ylabel(f"residual-test p-value (B = {N_PERMUTATIONS})")
ax1.set_title("Residual HSIC test", fontsize=10)
for j, beta in enumerate(OBS_NOISE):
    keys = names if beta == 0 else list(SUBSETS)
    m = [float(gains[beta, n].mean()) for n in keys]
    se = [float(gains[beta, n].std() / np.sqrt(len(gains[beta, n]))) for n in keys]
    ax2.errorbar(
        np.arange(len(keys)) + (j - 1) * 0.2,
        m,
        yerr=[2 * s for s in se],
        fmt="o",
        ms=4,
        color=icml26.plotting.color(j),
        label=f"β_o = {beta}",
    )
ax2.axhline(0, color="black", lw=0.8)
ax2.set_yscale("symlog", linthresh=1e-2)
ax2.set_ylim(-0.3, 6)
ax2.set_xticks(range(len(names)), short, fontsize=8)
ax2.set_ylabel("mean prediction gain $L^\\tau$ (± 2 s.e.)")
ax2.set_title("Prediction-gain test", fontsize=10)
ax2.legend(fontsize=8, loc="upper left")
fig.suptitle("Both tests single out the subsets that carry φ₄, φ₅", fontsize=10.5)
plt.show()

# %% [markdown]
# Both criteria rank the subsets as the paper's Table 1 does: the redundant $[\phi_1, \phi_2]$
# last, $[\phi_1, \phi_2, \phi_3]$ next, the two subsets with $\phi_4, \phi_5$ far ahead and
# close to each other. With noisy observations the exact copy $[\phi_1, \phi_2]$ stops being
# redundant — the true $(\phi_1, \phi_2)$ now denoises the observation — and gains a small but
# significant amount; the ranking is unchanged. The redundant sensor signal's gain is slightly
# *negative*: two columns of pure offset make the cross-fitted informed critic overfit a
# little.

# %% [markdown]
# ### 03.10–03.13 · Training the informed asymmetric actor-critic
#
# Now the paper's algorithm itself. {prf:ref}`informed-critic-alg-a2c` is trained on the
# synthetic POMDP with five critics that differ only in their signal: **history only** (the
# symmetric A2C), **noise** (two columns of independent noise: an uninformative signal),
# $[\phi_3]$, the informative $[\phi_1, \phi_2, \phi_4, \phi_5]$, and the **full state**
# $[\phi_1..\phi_5]$ — over `A2C_SEEDS` seeds each (32 at the default scale), 400 updates of
# 16 episodes (160 000 steps per run); all 160 runs are one batched computation. A seed
# fixes the actor's and critic's initial weights and every random number of the environment
# and of the action sampling, for all five critics alike, so the critics are compared in
# pairs. Settings: one hidden layer of 16 units, Adam with step sizes $3 \cdot 10^{-3}$
# (actor) and $10^{-2}$ (critic), entropy weight from 0.01 to 0.001, target critic refreshed
# every 10 updates, $\gamma = 0.99$. The critic's step size and
# the sparse transitions were set so that a run learns within the notebook's time budget, by
# trying them on a different instance of the benchmark before these runs (with a critic step
# size of $3 \cdot 10^{-3}$ and Dirichlet(1) rows, the actors barely left the random policy in
# 300 updates).
#
# Returns are normalised: 0 is the uniformly random policy, 1 the best policy that *sees the
# state* (an upper bound no history policy reaches). The score of a run is the area under its
# learning curve, the mean normalised return over its updates, as the paper reports areas
# under the curve.
#
# *Claims*, with thresholds, margins and decision rules fixed before the runs:
#
# - 03.10: the informative signal beats the history-only critic: the gain in area over the
#   history-only critic of the same seed is positive. Control: the noise signal.
# - 03.11: it reaches the full-state critic (non-inferiority): it keeps at least half of the
#   full-state critic's gain, $g_{\mathrm{inf}} - \tfrac12 g_{\mathrm{full}} \ge 0$,
#   where $g$ is the gain over the history-only critic. Keeping half of the active control's
#   effect is the usual margin of non-inferiority trials. Control: the history-only critic
#   itself, which keeps none of it.
# - 03.12: an uninformative signal does not help: the noise critic keeps less than half of
#   the full-state gain, $g_{\mathrm{noise}} - \tfrac12 g_{\mathrm{full}} \le 0$. Control: the
#   informative signal, which must fail this.
# - 03.13: the paper's tests rank the signals as learning does: no pair of signals is ordered
#   one way by the mean prediction gain of 03.8 and the other way by the areas, counting only
#   the pairs that both order with 95 % confidence. Control: the heuristic "the more privileged
#   features, the better".
#
# Each of 03.10–03.12 is decided on the one-sided 95 % confidence bound of the **mean** over
# the 32 seeds (Student's $t$; 40 seeds at `ICML26_SCALE=paper`). 03.13 is replicated: the
# seeds form disjoint groups of eight (four at the default scale), each group orders the pairs
# of signals on its own (two-sided paired $t$-test of the areas, 95 %) against a test run on
# its own data set (a change made after a first run, see below), and the claim must hold in
# every group. Learning outcomes of RL runs are heavy-tailed: in a run of this experiment with
# 8 seeds, one seed in which the history-only and noise-fed critics stayed on a poor policy for
# long moved the bounds of the mean of 03.10 and 03.11 across zero, and at other base seeds
# the verdicts changed. What guards against
# that here is four times the seeds, not a more forgiving rule; the bounds of the median are
# printed beside the mean's for comparison, and the Limits section reports the verdicts at two
# other base seeds.

# %% [markdown]
# The CartPole experiment of 03.14–03.15 (its own section below) shares no random stream with
# this one, so it trains meanwhile in a second Python process, on the machine's other core
# ({mod}`icml26.background`; the child inherits this kernel's numeric settings and computes
# bit for bit what the kernel would).

# %%
CP_FEATURES = {
    "none": (),
    "cart velocity": (1,),
    "angular velocity": (3,),
    "both velocities": (1, 3),
    "full state": (0, 1, 2, 3),
}
cp_signals = [
    a2c.Signal("history only" if n == "none" else n, CP_FEATURES[n]) for n in CP_SIGNALS
]
cp_signals.append(a2c.Signal("noise", noise=1))
cp_job = background.start(
    a2c.train_a2c,
    envs.PositionOnlyCartPole(horizon=200),
    cp_signals,
    n_seeds=CP_SEEDS,
    settings=a2c.A2CSettings(n_iterations=CP_ITERS, segment=10),
    generator=icml26.stats.stream(SEED, 6),
    device=DEVICE,
)

# %%
A2C_SIGNALS = [
    a2c.Signal("history only"),
    a2c.Signal("noise", noise=2),
    a2c.Signal("[s3]", (2,)),
    a2c.Signal("[s1,s2,s4,s5]", (0, 1, 3, 4)),
    a2c.Signal("full state", (0, 1, 2, 3, 4)),
]
t0 = time.process_time()
run = a2c.train_a2c(
    env.to(DEVICE),
    A2C_SIGNALS,
    n_seeds=A2C_SEEDS,
    settings=a2c.A2CSettings(n_iterations=A2C_ITERS),
    generator=icml26.stats.stream(SEED, 4),
    device=DEVICE,
    progress=icml26.progress,
)
t_a2c = time.process_time() - t0
score = (run.returns - R_RANDOM) / (R_BEST - R_RANDOM)  # (updates, signals, seeds)
auc = score.mean(0)  # normalised area under the learning curve, (signals, seeds)
gain = auc - auc[0]  # over the history-only critic of the same seed
col = {s.name: k for k, s in enumerate(A2C_SIGNALS)}
final = score[-A2C_ITERS // 10 :].mean(0)  # the last tenth of the updates
print("signal           area (± s.d.)   last tenth   gain over history only (± s.e.)")
for k, s in enumerate(A2C_SIGNALS):
    se = float(gain[k].std() / np.sqrt(A2C_SEEDS)) if k else 0.0
    print(
        f"{s.name:>15}  {float(auc[k].mean()):.3f} ± {float(auc[k].std()):.3f}"
        f"    {float(final[k].mean()):.2f}"
        f"       {float(gain[k].mean()):+.3f} ± {se:.3f}"
    )
keep = gain - RETENTION * gain[col["full state"]]  # share of the full-state gain kept
# the one-sided 95 % bounds of the median, on the side of 0, for comparison
zero = icml26.claims.Threshold.of(None, 0.0, None)
median_bounds = {
    key: icml26.claims.decide(values.tolist(), zero, "median-ci")[0]
    for key, values in (
        ("03.10", gain[col["[s1,s2,s4,s5]"]]),
        ("03.11", keep[col["[s1,s2,s4,s5]"]]),
        ("03.12", -keep[col["noise"]]),  # its upper bound, negated
    )
}
median_bounds["03.12"] *= -1
print(
    "bounds of the median instead of the mean: "
    + ", ".join(f"{k} {v:+.3f}" for k, v in median_bounds.items())
)


# %% tags=["nbval-ignore-output"]
n_models = len(A2C_SIGNALS) * A2C_SEEDS
print(f"{n_models} actor-critics trained at once in {t_a2c:.1f} s of CPU time")

# %% tags=["hide-input"] mystnb={"figure": {"caption": "Learning curves of the five critics (mean over seeds, 95 % band, moving average over 20 updates). The reward-carrying signal learns as fast as the full state; noise and the history alone lag.", "name": "informed-critic-fig-a2c"}}
fig, ax = plt.subplots(figsize=(7.2, 3.6))
kernel = np.ones(20) / 20
steps = np.arange(A2C_ITERS) * 16 * EPISODE_LEN / 1e3
t_crit = student_t.ppf(0.975, A2C_SEEDS - 1)
for k, s in enumerate(A2C_SIGNALS):
    curves = np.stack(
        [np.convolve(score[:, k, j], kernel, "valid") for j in range(A2C_SEEDS)]
    )
    m, se = curves.mean(0), curves.std(0, ddof=1) / np.sqrt(A2C_SEEDS)
    x = steps[len(kernel) - 1 :]
    color = icml26.plotting.color(k)
    ax.plot(x, m, color=color, label=s.name)
    ax.fill_between(x, m - t_crit * se, m + t_crit * se, color=color, alpha=0.2, lw=0)
ax.set_xlabel("environment steps per run (thousands)")
ax.set_ylabel("normalised return (0 random, 1 best with state)")
ax.set_title("The reward-carrying signal learns as fast as the full state")
ax.legend(fontsize=8, loc="lower right")
plt.show()

# %% tags=["claim"]
# fails if: the signal reached the actor or did not reach the critic, or an informed
# critic were no easier to learn — the critic fed pure noise (the control) gains nothing
icml26.claim(
    "03.10",
    "area gain over the history-only critic, [s1,s2,s4,s5]",
    seeds=gain[col["[s1,s2,s4,s5]"]],
    rule="mean-ci",
    at_least=0.0,
    control=gain[col["noise"]],
    control_label="noise signal",
    tuned="critic step size and sparse transitions, set on another instance",
)

# %% tags=["claim"]
# fails if: the informative subset lacked what the full state offers the critic — the
# history-only critic (the control) keeps none of the full-state gain
icml26.claim(
    "03.11",
    "[s1,s2,s4,s5] keeps half the full-state gain: g_inf − g_full/2",
    seeds=keep[col["[s1,s2,s4,s5]"]],
    rule="mean-ci",
    at_least=0.0,
    control=keep[col["history only"]],
    control_label="history only",
    tuned="critic step size and sparse transitions, set on another instance",
)

# %% tags=["claim"]
# fails if: any extra critic input helped (more parameters, not information) — then
# noise would keep half of the full-state gain, as the informative signal (the control)
# does
icml26.claim(
    "03.12",
    "noise keeps under half the full-state gain: g_noise − g_full/2",
    seeds=keep[col["noise"]],
    rule="mean-ci",
    at_most=0.0,
    control=keep[col["[s1,s2,s4,s5]"]],
    control_label="[s1,s2,s4,s5]",
    tuned="critic step size and sparse transitions, set on another instance",
)

# %% [markdown]
# For 03.13, each signal's effect size in the paper's sense is its mean prediction gain on
# random-policy episodes (zero for the history-only critic). Each group of eight seeds is a
# whole replicate of the paper's procedure: the test runs on one of the independent data
# sets of 03.8 (1000 episodes), the group's runs train. Two signals are ordered by the test
# when the difference of their per-episode gains is significant (two-sided 95 % $t$-test over
# the episodes), and by learning when the difference of their areas over the group's eight
# seeds is (two-sided 95 % paired $t$-test). Each group gives one count of discordant pairs;
# the claim takes the worst group. (A first version of this experiment ran the test once, on
# one data set for all groups: the verdict then turned on that data set, see below.)


# %%
def order(diffs):
    """+1 or -1 when the paired differences are significantly positive or negative
    (two-sided t-test, 95 %), 0 when they are not."""
    diffs = np.asarray(diffs, dtype=float)
    if np.all(diffs == 0):
        return 0
    p = ttest_1samp(diffs, 0.0).pvalue
    return int(np.sign(diffs.mean())) if p < 0.05 else 0


TEST_NAMES = {  # the trained signals and their names among the test's candidates
    "noise": "noise",
    "[s3]": "[s3]",
    "[s1,s2,s4,s5]": "[s1,s2,s4,s5]",
    "full state": "full [s1..s5]",
}
assert len(sets) >= A2C_SEEDS // A2C_GROUP, "one test data set per group of seeds"
test_gains = []  # per group: the per-episode gains of each signal on its own data set
for X_g, G_g, cand in sets[: A2C_SEEDS // A2C_GROUP]:
    test_gains.append({"history only": torch.zeros(GAIN_EPISODES, dtype=DT)})
    for name, key in TEST_NAMES.items():
        X_i = torch.cat([X_g, cand[key]], -1)
        test_gains[-1][name] = info.prediction_gains(
            X_g, X_i, G_g, n_folds=N_FOLDS, generator=gen_gain
        )
width = {s.name: s.width for s in A2C_SIGNALS}  # the control: more features is better
n_groups = A2C_SEEDS // A2C_GROUP
pairs, discordant, heuristic_discordant = [], [], []
for grp in range(n_groups):
    seeds_g, test_gain = slice(grp * A2C_GROUP, (grp + 1) * A2C_GROUP), test_gains[grp]
    pairs.append(0), discordant.append([]), heuristic_discordant.append([])
    for j in range(len(A2C_SIGNALS)):
        for k in range(j + 1, len(A2C_SIGNALS)):
            a, b = A2C_SIGNALS[j].name, A2C_SIGNALS[k].name
            by_learning = order(auc[j, seeds_g] - auc[k, seeds_g])
            by_test = order(test_gain[a] - test_gain[b])
            by_width = int(np.sign(width[a] - width[b]))
            pairs[-1] += by_learning != 0
            if by_learning * by_test < 0:
                discordant[-1].append(f"{a} / {b}")
            if by_learning * by_width < 0:
                heuristic_discordant[-1].append(f"{a} / {b}")
print(
    f"{n_groups} groups of {A2C_GROUP} seeds; pairs of signals (of 10) ordered by "
    "learning with 95 % confidence:",
    ", ".join(map(str, pairs)),
)
print("ordered the other way by the prediction gain:")
for grp in range(n_groups):
    print(f"  group {grp + 1}:", ", ".join(discordant[grp]) or "none")
print("ordered the other way by the number of features:")
for grp in range(n_groups):
    print(f"  group {grp + 1}:", ", ".join(heuristic_discordant[grp]) or "none")

# %% tags=["claim"]
# fails if: the tests measured something unrelated to what helps the critic learn — like
# the number of features, the control, which orders pairs printed above the other way
icml26.claim(
    "03.13",
    "pairs ordered oppositely by gain test and learning, per group of 8 seeds",
    seeds=[len(d) for d in discordant],
    rule="worst",
    at_most=0,
    control=[len(d) for d in heuristic_discordant],
    control_label="more features is better",
    tuned="a test data set per group, after a run that shared one",
)

# %% [markdown]
# ### 03.14 · Position-only CartPole: the masked velocities as the signal
#
# The second environment is gymnasium's CartPole {cite}`towers2024gymnasium` with the
# velocities hidden from the actor, as in POPGym's position-only CartPole
# {cite}`morad2023popgym`: the actor sees the cart position and the pole angle, and must infer
# the velocities from its window of past observations; the critic may be given the masked
# velocities. {class}`~icml26.sequential.critic_envs.PositionOnlyCartPole` re-implements
# gymnasium's equations in torch, batched (the cross-check below steps both side by side);
# reward 1 per step, episodes cut at 200 steps. The paper reports areas under the curve over
# 2 M steps, 20 runs: angular velocity $8.68 \cdot 10^5$ > both velocities $8.48 \cdot 10^5$ >
# full state $8.26 \cdot 10^5$ ≫ cart velocity $2.57 \cdot 10^5$ > none $1.53 \cdot 10^5$.
#
# The actor-critic is the one of 03.10, with one change: episodes of up to 200 steps are cut
# into segments of 10 steps, bootstrapped from the critic at the cut, as A2C implementations
# do (with the synthetic POMDP's 25-step segments, one per episode, the CartPole actors had
# barely moved after 120 000 steps on seeds other than those below). At the default scale we
# train the history-only critic, the cart-velocity and angular-velocity critics and a noise-fed
# control, 8 seeds × 600 updates (96 000 steps per run); `ICML26_SCALE=paper` trains all
# five signals of the paper and the control, 10 seeds × 5000 updates (800 000 steps per run;
# the paper's runs are 2.5 times longer, with 256-unit GRUs). *Claim*: the angular-velocity
# critic learns faster than the history-only critic (area gain, lower 95 % bound of the mean
# above zero); the noise-fed critic, the control, does not.

# %%
cartpole = envs.PositionOnlyCartPole(horizon=200)
cp_run = cp_job.result()  # trained in a second process during 03.10's training
t_cp = cp_job.cpu_seconds
cp_auc = cp_run.returns.nanmean(
    0
)  # mean episode return over the updates (signals, seeds)
cp_gain = cp_auc - cp_auc[0]
cp_col = {s.name: k for k, s in enumerate(cp_signals)}
print("signal              area (return per episode)   last tenth   gain (± s.e.)")
for k, s in enumerate(cp_signals):
    se = float(cp_gain[k].std() / np.sqrt(CP_SEEDS)) if k else 0.0
    last_tenth = float(cp_run.returns[-CP_ITERS // 10 :, k].nanmean())
    print(
        f"{s.name:>17}   {float(cp_auc[k].mean()):6.1f}            {last_tenth:6.1f}"
        f"       {float(cp_gain[k].mean()):+5.1f} ± {se:.1f}"
    )

# %% tags=["nbval-ignore-output"]
print(f"CartPole: {len(cp_signals) * CP_SEEDS} runs in {t_cp:.1f} s of CPU time")

# %% tags=["claim"]
# fails if: the masked angular velocity did not make the critic easier to learn, or
# reached the actor — a critic fed noise (the control) must not gain
icml26.claim(
    "03.14",
    "position-only CartPole: area gain over history only, angular velocity",
    seeds=cp_gain[cp_col["angular velocity"]],
    rule="mean-ci",
    at_least=0.0,
    control=cp_gain[cp_col["noise"]],
    control_label="noise signal",
    tuned="segments of 10 steps, chosen on other seeds for learning speed",
)

# %% tags=["hide-input"] mystnb={"figure": {"caption": "Position-only CartPole: mean episode return during training (mean over seeds, 95 % band, moving average over 20 updates). The critic that sees the masked angular velocity pulls ahead.", "name": "informed-critic-fig-cartpole"}}
fig, ax = plt.subplots(figsize=(7.2, 3.4))
steps = np.arange(CP_ITERS) * 16 * 10 / 1e3
t_crit = student_t.ppf(0.975, CP_SEEDS - 1)
first = int(
    np.isfinite(cp_run.returns.numpy()).all((1, 2)).argmax()
)  # all have a return
for k, s in enumerate(cp_signals):
    R = cp_run.returns[first:, k].numpy()
    curves = np.stack([np.convolve(R[:, j], kernel, "valid") for j in range(CP_SEEDS)])
    m, se = curves.mean(0), curves.std(0, ddof=1) / np.sqrt(CP_SEEDS)
    x = steps[first + len(kernel) - 1 :]
    color = icml26.plotting.color(k)
    ax.plot(x, m, color=color, label=s.name)
    ax.fill_between(x, m - t_crit * se, m + t_crit * se, color=color, alpha=0.2, lw=0)
ax.set_xlabel("environment steps per run (thousands)")
ax.set_ylabel("episode return (steps balanced)")
ax.set_title("Position-only CartPole: the masked angular velocity helps the critic")
ax.legend(fontsize=8, loc="upper left")
plt.show()

# %% [markdown]
# ### 03.15 · Position-only CartPole: the angular velocity, not the cart's
#
# The paper's CartPole table separates the two velocities sharply: the angular velocity alone
# gives the best area of all signals, the cart velocity alone barely more than none. *Claim*,
# fixed before the cart-velocity critic was first trained: per seed, the angular-velocity
# critic's area gain over the history-only critic exceeds the cart-velocity critic's (lower
# 95 % bound of the mean of the paired difference above zero). The control puts the noise
# signal in place of the angular velocity: an extra input that carries nothing must not come
# out ahead of the cart velocity.

# %% tags=["claim"]
# fails if: any extra critic input helped alike, whatever it tells of the return —
# then noise in place of the angular velocity (the control) would match the cart
# velocity too
icml26.claim(
    "03.15",
    "position-only CartPole: area gain, angular minus cart velocity",
    seeds=cp_gain[cp_col["angular velocity"]] - cp_gain[cp_col["cart velocity"]],
    rule="mean-ci",
    at_least=0.0,
    control=cp_gain[cp_col["noise"]] - cp_gain[cp_col["cart velocity"]],
    control_label="noise in place of the angular velocity",
    tuned="segments of 10 steps, chosen on other seeds for learning speed",
)

# %% [markdown]
# ## Cross-check
#
# Six independent computations of what the chapter's kernels compute.
#
# 1. **`torch.autograd` vs finite differences** on $J(\theta)$ (central differences, step
#    $10^{-5}$).
# 2. **Our permutation HSIC vs the exact-Gram reference** (same episode permutations; with
#    every point as a landmark the Nyström features reproduce the Gram matrix).
# 3. **scikit-learn's `Nystroem`** against the exact Gram matrix, beside ours.
# 4. **scikit-learn's `RandomForestRegressor`** on i.i.d. data, as the cross-fitting uses it:
#    out-of-fold predictions of pure noise carry no signal, those of a function of the inputs
#    do. (The test suite adds hyppo's HSIC test and dcor's distance-covariance test on i.i.d.
#    data, whose verdicts must match ours; their imports alone cost several CPU-seconds.)
# 5. **`scipy.stats.ttest_1samp`** with `alternative="greater"` against our gain test.
# 6. **gymnasium's `CartPoleEnv`** stepped beside our batched position-only CartPole from the
#    same state with the same actions: the states must agree to rounding and the episodes
#    must end at the same step.


# %%
def sklearn_nystroem_features(x, sigma, n_components, seed):
    """scikit-learn's Nystroem features for the same Gaussian kernel."""
    from sklearn.kernel_approximation import Nystroem

    ny = Nystroem(
        kernel="rbf",
        gamma=1 / (2 * sigma**2),
        n_components=n_components,
        random_state=seed,
    )
    return ny.fit_transform(x)


def gymnasium_cartpole_gap(n_steps, generator):
    """Step gymnasium's CartPole and ours from the same state with the same actions."""
    import gymnasium

    gym_env = gymnasium.make("CartPole-v1").unwrapped
    gym_env.reset(seed=SEED)
    ours = gym_env.state.copy()
    gap, same_end = 0.0, True
    for _ in range(n_steps):
        a = int(torch.randint(2, (), generator=generator))
        _, _, done, _, _ = gym_env.step(a)
        state = torch.tensor(ours, dtype=DT)
        nxt, _, ended = cartpole.step(state, torch.tensor(a))
        ours = nxt.numpy()
        gap = max(gap, float(np.abs(ours - gym_env.state).max()))
        same_end &= bool(ended) == done
        if done:
            gym_env.reset(seed=int(torch.randint(1000, (), generator=generator)))
            ours = gym_env.state.copy()
    return gap, same_end


# 1. autograd vs finite differences
gJ0 = true_gradient(theta0, E_s)
fd = torch.zeros_like(theta0)
for j in range(len(theta0)):
    e = torch.zeros_like(theta0)
    e[j] = 1e-5
    fd[j] = (
        critic.exact_objective(theta0 + e, E_s, GAMMA_AUDIT)
        - critic.exact_objective(theta0 - e, E_s, GAMMA_AUDIT)
    ) / 2e-5
icml26.checks.agree("autograd vs finite differences", gJ0, fd, atol=1e-8)

# 2. kernel vs reference permutation test (20 episodes, 40 permutations)
sub = 20 * EPISODE_LEN
ex, ey = e_G[:sub], d_res["features"][:20, :, [0, 1, 3, 4]].reshape(sub, -1)
perms = torch.stack([torch.randperm(20, generator=gen) for _ in range(40)])
res_k = info.permutation_hsic(
    ex, ey, EPISODE_LEN, n_permutations=40, n_landmarks=sub, permutations=perms
)
stat_r, p_r = reference_permutation_hsic(
    ex.numpy(),
    ey.numpy(),
    EPISODE_LEN,
    perms.numpy(),
    info.median_bandwidth(ex),
    info.median_bandwidth(ey),
)
icml26.checks.agree(
    "HSIC: kernel vs exact reference", res_k.statistic, stat_r, rtol=1e-6
)
assert res_k.p_value == p_r

# 3. Nyström vs the exact Gram matrix, and scikit-learn's Nystroem
x_ny = torch.from_numpy(rng.normal(size=(1000, 2)))
sig = info.median_bandwidth(x_ny)
K_exact = torch.exp(-torch.cdist(x_ny, x_ny).square() / (2 * sig**2)).numpy()
phi = info.rbf_nystrom_features(x_ny, 256, bandwidth=sig, generator=gen).numpy()
phi_sk = sklearn_nystroem_features(x_ny.numpy(), sig, 256, SEED)
err_ours = np.abs(phi @ phi.T - K_exact).max()
err_sk = np.abs(phi_sk @ phi_sk.T - K_exact).max()
assert err_ours < 0.05 and err_sk < 0.05

# 4. cross-fitting on i.i.d. data: noise stays unpredictable, a function of X does not
X_iid = rng.normal(size=(500, 4))
y_iid = np.c_[
    rng.normal(size=500), np.sin(2 * X_iid[:, 0]) + 0.1 * rng.normal(size=500)
]
pred = info.cross_fit_predict(X_iid, y_iid, np.arange(500) // 10, n_trees=20, seed=SEED)
r_noise, r_signal = (np.corrcoef(pred[:, k], y_iid[:, k])[0, 1] for k in (0, 1))
assert r_noise < 0.2 and r_signal > 0.8

# 5. scipy's one-sided t-test
L_chk = gains[0.0, "[s3]"]
p_scipy = ttest_1samp(L_chk.numpy(), 0.0, alternative="greater").pvalue
icml26.checks.agree(
    "gain t-test vs scipy", info.gain_ttest(L_chk)[1], p_scipy, rtol=1e-9
)

# 6. gymnasium's CartPole, 500 steps of random actions
cp_gap, cp_same_end = gymnasium_cartpole_gap(500, gen)
assert cp_gap < 1e-12 and cp_same_end
print(
    "autograd = finite differences (to 1e-8); HSIC kernel = exact reference "
    f"(p = {p_r:.3f} both)"
)
print(f"Nyström (256 landmarks) vs exact Gram: ours {err_ours:.3f}, "
      f"scikit-learn {err_sk:.3f}")  # fmt: skip
print(
    f"cross-fitted forests: correlation with pure noise {r_noise:.2f}, "
    f"with a function of the inputs {r_signal:.2f}"
)
print("gain test p-value = scipy.stats.ttest_1samp(alternative='greater')")
print(
    "CartPole: our batched dynamics = gymnasium's (states to 1e-12, same episode ends)"
)

# %% [markdown]
# **Speed.** Two kernels carry the chapter's compute. The permutation test multiplies
# Nyström features of numerical rank $r_x \times r_y$ for $B$ episode-level permutations at
# once, $O(B\, n\, r_x r_y)$ instead of the reference's $O(B n^2)$ re-indexing of a Gram
# matrix; the trained actor-critics run as one batched computation over every (signal, seed)
# pair. `benchmarks/bench_03_informed_critic.py` times both against their readable references
# (the book's Performance page shows the figures).
#
# ## Limits of this reproduction
#
# - **The scale.** The paper trains GRU actor-critics on twelve benchmarks (six navigation
#   tasks, six POPGym tasks) for 2 M steps and 20 seeds. We train its algorithm on two of its
#   settings only — a reconstruction of its synthetic benchmark and position-only CartPole —
#   with small networks on a window of the last three observations, for 160 000 and 96 000
#   steps per run at the default scale (400 000 and 800 000 at `ICML26_SCALE=paper`, see
#   below). The
#   navigation tasks, the card-game and memory tasks of POPGym, the wall-clock overheads and the
#   paper's expert-action signals are not tested.
# - **The synthetic benchmark is reconstructed.** We do not know the paper's transition model,
#   its history encoder, or how its observations alias the state; the aliasing and the sparse
#   transitions are our choices, made so that the conditional-independence null is false for
#   the reward-carrying subsets and true for the redundant ones, and so that a run can learn in
#   the time budget. Our test gains are far larger than the paper's ($L \approx 0.9$ vs 0.064
#   for $[\phi_1, \phi_2, \phi_4, \phi_5]$): our critics are linear fits of Monte-Carlo returns
#   on a toy whose reward is a linear function of the signal. 03.8 therefore tests detection
#   at the paper's effect size with a noisy version of that signal.
# - **What the training compares.** In our toy, $[\phi_1, \phi_2, \phi_4, \phi_5]$ identifies
#   the state as well as the full state does (continuous random features tell the twenty states
#   apart); it carries *less* only in the sense of fewer features. The paper's finding that a
#   subset can beat the full state (its Table 1: $1.23 \cdot 10^5$ vs $1.19 \cdot 10^5$) is within
#   seed noise here, as it plausibly is there; we test non-inferiority (03.11), not superiority.
#   The settings that make the runs learn in the budget (the critic's step size, the sparse
#   transitions) were set on a different instance of the benchmark before these runs, and are
#   marked as tuned on the claim lines; varied one at a time there (actor step size
#   $10^{-3}$, 32 or 8 environments per update, a larger entropy bonus), every variant kept the
#   same order: the reward-carrying subset and the full state ahead of the history-only and
#   noise-fed critics.
# - **Random forests at reduced size.** Cross-fitting uses 30 trees (100 at
#   `ICML26_SCALE=paper`, the paper's number) with leaves of at least 5 samples, each split
#   trying a third of the inputs, to keep the notebook within its budget; the paper's forests
#   are grown fully on all inputs.
# - **03.10–03.13 and the seed.** With 8 seeds per critic these verdicts changed with the
#   base seed: rerun with base seeds 7 and 11 instead of 3 (other initial weights and random
#   numbers for every run, same settings), 03.10 and 03.11 held at one and failed at the
#   other, under the mean or the median rule. With 32 seeds, the mean rule and the margins
#   fixed before the runs, 03.10–03.12 hold at all three base seeds, under either rule, with
#   lower bounds of +0.027, +0.065 and +0.019 for 03.10 (at 3, 7 and 11) and +0.015, +0.030
#   and +0.009 for 03.11, and upper bounds of −0.013, −0.040 and −0.007 for 03.12; their
#   controls fail at all three. They hold at the paper scale too (its record below). The
#   learning gain of the informative signal is real on our toy, and small: 0.03 to 0.08 of the
#   distance from the random to the best state-aware policy, in area, at the three base seeds.
# - **03.13 does not survive a change of seed.** The tests and the runs agree on the coarse
#   ranking in every group at every base seed: the two reward-carrying signals far ahead, the
#   others behind. The verdict turns on the pairs that learning barely separates. At base
#   seed 3 it holds in all four groups and its control fails in two (printed above). At 7 it
#   is NOT REPRODUCED: in one group the history-only critic learns faster than the
#   $[\phi_3]$ critic, which the test flags (mean gain 0.09, {ref}`informed-critic-fig-tests`)
#   — $\phi_3$ predicts the next states of the group, yet a critic given it learns no faster
#   in our runs. At 11, and at the paper scale, it holds but does not discriminate: no group
#   orders a pair against the number of features either. A first version shared one test data
#   set among the four groups; there the verdict also turned on that data set: at base seed 3,
#   another 1000 episodes made the test order the full state above $[\phi_1, \phi_2, \phi_4,
#   \phi_5]$ by under 1 % of their gains, against one group's runs. We read 03.13 as not
#   established on our toy: the tests separate informative from uninformative signals, and
#   learning does too, but neither orders near-equivalent signals reliably.
# - **CartPole at the paper scale.** At the default scale the angular velocity helps the
#   critic, and more than the cart velocity (03.14, 03.15). Over 10 seeds × 800 000 steps (the
#   record below) the spread of the gains between seeds is as large as the gains: 03.14 is NOT
#   REPRODUCED there (the mean gain of the angular-velocity critic is positive, its confidence
#   bound is not), and 03.15 holds but does not discriminate, because the critic given the cart
#   velocity alone falls behind even the noise-fed one. In that run the critics given both
#   velocities or the full state come out ahead of the angular velocity alone, where the paper
#   puts the angular velocity first, and the cart velocity alone trails the history-only critic,
#   where the paper puts it slightly ahead. A masked velocity helps the CartPole critic in our
#   runs; which one helps most is not settled by ten seeds of a 16-unit network, and the paper's
#   sharp separation of the two velocities is not reproduced at the paper scale.
# - **03.6 is decided once.** The residual test runs on one data set of the paper's size (its
#   informative $p$-values sit at the smallest attainable value, $1/(B + 1)$); its line says
#   why.
# - **"Biased unless the state is decodable" is not the whole story.** The usual summary of
#   Baisero and Amato's result says that a state critic is fine when the state can be decoded
#   from the history. In our audit it is biased even with perfect observations (relative error
#   0.07–0.52 over random policies, {ref}`informed-critic-ex-decodable`), and unbiased with
#   noisy ones when the policy is reactive (the control of 03.2): what matters is whether the
#   return after $(s_t, a_t)$ depends on the rest of the history
#   ({prf:ref}`informed-critic-prop-state-bias`).
# - **Multiple testing.** Several signals are tested at $\alpha = 0.05$ without correction, as
#   a ranking device, as in the paper.
#
# **Paper scale.** `ICML26_SCALE=paper` audits 200 policies, runs the tests with 2500 gain
# episodes on each of 20 data sets, $B = 1000$ permutations, 512 landmarks and forests of 100
# trees, trains 40 seeds per critic (five groups of eight for 03.13) for 1000 updates on the
# synthetic POMDP (400 000 steps per run), and all five CartPole signals of the paper plus the
# control for 10 seeds × 5000 updates (800 000 steps per run). It needs no GPU and is sized
# to run in about half an hour on two shared CPU cores. Its record says where and when it
# last ran and gives its claim lines, or says why it has not run:

# %%
paper.show("03-informed-critic")

# %% [markdown]
# ## Exercises
#
# ````{exercise} Make the state decodable
# :label: informed-critic-ex-decodable
#
# Set the observation accuracy of the audit POMDP to 1 (`accuracy=1.0` in
# {func}`~icml26.sequential.critic.audit_pomdp`) and recompute the relative error of the
# state-only critic (03.2) and the variance gap for $i = s$ (03.4). Predict both before
# running.
# ````
#
# ````{solution} informed-critic-ex-decodable
# :class: dropdown
#
# With perfect observations $s_t = o_t$ is a function of $h_t$. Then $Q(h, s, a) = Q(h, a)$ and
# $V(h, s) = V(h)$: the variance gap is exactly zero, and the state signal is useless to the
# critic. The state-only critic is **still biased**, because $Q(s_t, a_t)$ averages over *past*
# observations and actions that the tabular history policy still reads: over 20 random
# policies (scale 1.5, as in 03.1) the relative error ranges from 0.07 to 0.52 (median 0.14),
# against 0.16 to 0.72 with accuracy 0.7. With a *reactive* policy, whose logits depend only on
# the last observation, it drops to rounding level ($< 10^{-14}$) — at accuracy 1 and also at
# accuracy 0.7 — as {prf:ref}`informed-critic-prop-state-bias` predicts: what biases the state
# critic is the policy's memory, not the observation noise alone.
# ````
#
# ````{exercise} The level of the residual test
# :label: informed-critic-ex-level
#
# (a) Repeat the redundant-signal experiment of 03.7 on 50 independent data sets (fresh
# episodes and offsets each time) and count rejections at $\alpha = 0.05$. (b) Replace the
# episode-level permutations by permutations of single steps (`episode_length=1`) and count
# again. Explain the difference.
# ````
#
# ````{solution} informed-critic-ex-level
# :class: dropdown
#
# (a) The residual $e_i \approx \xi_e$ is constant within an episode and independent of the
# returns, so about 5 % of the data sets should reject: the episode-level permutation test is
# exact when episodes are exchangeable. (b) A step-level shuffle treats the 25 steps of an
# episode as exchangeable with all others. Both $e_G$ (overlapping discounted sums) and $e_i$
# (constant per episode) are strongly autocorrelated, and the HSIC of two autocorrelated but
# independent series fluctuates far more than under an i.i.d. shuffle, so the step-level null
# is much too narrow. In our run (20 data sets of 100 episodes, forests of 10 trees, $B = 100$,
# 128 landmarks) the episode-level test rejected 1 of 20 and the step-level test **20 of
# 20** — the pitfall the paper avoids by permuting episodes.
# ````
#
# ````{exercise} An expert signal
# :label: informed-critic-ex-expert
#
# In the audit POMDP, give the critic the expert's action $a^\star$ with expert accuracy $q \in
# \{0.5, 0.7, 0.9, 1\}$. (a) Show from {prf:ref}`informed-critic-thm-unbiased` that the
# gradient stays unbiased for every $q$. (b) How does the variance gap of
# {eq}`informed-critic-eq-totvar` depend on $q$? Compute it. (c) Why does $q = 1$ give the same
# critic as $i = s$?
# ````
#
# ````{solution} informed-critic-ex-expert
# :class: dropdown
#
# (a) $a^\star \sim \pi^\star(\cdot \mid s_t)$ is a state-dependent signal, drawn without
# looking at $a_t$, so {prf:ref}`informed-critic-lem-tower` and the theorem apply for every $q$
# — {func}`~icml26.sequential.critic.informed_gradient` returns $\nabla J$ to rounding. (b) The
# gap $\operatorname{Var}_{i \mid h}(V(h, i))$ grows with $q$: at $q = 0.5$ the expert's action
# is independent of the state and the gap is zero; averaged over steps and over 20 random
# policies it is about 0, 0.016, 0.070 and 0.120 for $q = 0.5, 0.7, 0.9, 1$. (c) At $q = 1$
# the map $s \mapsto a^\star$ is a bijection on two states, so $(h, a^\star)$ and $(h, s)$
# generate the same information and $Q(h, a^\star, a) = Q(h, s, a)$.
# ````
#
# ````{exercise} Fix TD with the signal history
# :label: informed-critic-ex-td
#
# Repeat 03.5 with a critic of $(h_t, i_{0:t})$, the history of signals, instead of $(h_t,
# i_t)$ (hint: build the keys of {func}`~icml26.sequential.critic.td_fixed_point` from $i_0$
# and $i_t$). Show that its TD fixed point is the informed value $\mathbb{E}[G_t \mid h_t,
# i_{0:t}]$, and explain why that value still gives an unbiased gradient.
# ````
#
# ````{solution} informed-critic-ex-td
# :class: dropdown
#
# With the key $(h_t, i_{0:t})$ the condition of {prf:ref}`informed-critic-prop-td` holds:
# given $(h_{t+1}, i_{0:t+1})$, nothing about the future is lost, because the previous key is
# a function of the next. The backward induction goes through and the TD gap is zero (to
# $10^{-16}$ on the audit POMDP). The signal history $i_{0:t}$ is drawn from the state history
# without looking at the actions, so $a_t \perp i_{0:t} \mid h_t$ and the proof of
# {prf:ref}`informed-critic-lem-tower` applies verbatim: the informed critic may condition on
# the whole privileged history, which is what a recurrent critic with the signal fed *into*
# the RNN does.
# ````
#
# ````{exercise} More of the state for the CartPole critic
# :label: informed-critic-ex-cartpole
#
# (a) Before looking at 03.15, explain why the angular velocity should help the CartPole critic
# more than the cart velocity. (b) Add the critics given both velocities and the full state to
# `CP_SIGNALS` and predict their order against the angular velocity alone (the paper: angular
# velocity ahead of both velocities, ahead of the full state, by a few per cent of area).
# Why might more of the state help the critic less?
# ````
#
# ````{solution} informed-critic-ex-cartpole
# :class: dropdown
#
# (a) The return depends on how long the pole stays up, which the angle and the angular
# velocity decide over the next few steps; the cart velocity matters mostly through the slow
# drift towards the track's edge. A critic that reads $\dot\theta$ predicts the return of the
# next dozens of steps much better, and its TD targets are less noisy. Both velocities are
# finite differences of the observed positions, so the actor can infer them from its window,
# but the critic's job — value, not action — profits from being given the one that drives the
# return. (b) The extra columns carry little that the angular velocity and the history do not
# already give, and each one is an input whose weight the critic must learn from noisy TD
# targets; with small networks and few seeds the differences among the three are within the
# seed-to-seed spread, and no order among them should be read from one run.
# `ICML26_SCALE=paper` trains all five signals and prints their areas in the table of 03.14.
# ````
#
# ## Summary
#
# - An informed critic $Q(h, i, a)$ with any signal drawn from the state gives an unbiased
#   policy gradient, with or without the baseline $V(h, i)$ (03.1), because the action and the
#   signal are independent given the history (03.3); a state-only critic is biased (03.2).
# - A signal helps the critic, not the oracle estimator: it lowers the variance of the return
#   given what the critic sees (03.4), while with exact critics the symmetric estimator is the
#   less variable one; a TD-trained critic of a signal that forgets converges elsewhere (03.5).
# - The paper's two tests, on random-policy episodes, flag the reward-carrying signals and
#   leave redundant ones alone when episodes, not steps, are permuted (03.6–03.9).
# - Trained over 32 seeds, the informed actor-critic with the reward-carrying subset learns
#   faster than the history-only critic and keeps the full-state critic's gain, and noise does
#   not help (03.10–03.12, at three base seeds); the gain is small. That the tests order the
#   signals as learning does (03.13) holds at our seed but not across seeds: near-equivalent
#   signals are ordered by chance.
# - On position-only CartPole the masked angular velocity speeds the critic up, and more than
#   the cart velocity does (03.14–03.15), at the default scale; over longer runs the spread
#   between seeds hides both effects.
