# %% [markdown]
# # 07 · safety-game — Black-box safety alignment as a zero-sum game
#
# ## Overview
#
# A deployed language model answers a prompt in many possible ways: a refusal that is safe but
# useless, a hedged partial answer, a detailed answer that helps a curious user and also helps a
# malicious one. {cite:t}`nguyen2026safetygame` pick among such candidate answers *at inference
# time and from the outside*: without retraining the model and without access to its weights,
# they score a handful of candidates with black-box probes — the model is asked "does this answer
# the question well?" and "is this potentially harmful?" and its yes-confidence is read off — and
# they choose a **mixed strategy** over the candidates by solving a small game. The game is
# between the model and a user whose type is drawn by chance and hidden: benign (it rewards
# helpfulness) or adversarial (it punishes risk beyond a budget $T$). Everything is measured
# **relative to the refusal**, which is always a candidate. The game reduces to one linear
# program (LP) per prompt — maximise helpfulness subject to extra risk at most $T$ — solved by an
# off-the-shelf solver outside the model.
#
# The formulation comes from **safe exploitation** in imperfect-information games
# {cite}`brown2017safe,ge2024safe`: adapt to an opponent only as far as the adapted strategy is
# not more exploitable than a safe baseline. Here the hidden cards are the user's intent, the safe
# baseline is the refusal, the adapted strategy is a mixture of more helpful answers, and the
# exploitability bound is "at most $T$ extra risk over refusing". Two design choices follow and
# carry the method: score everything relative to the refusal, and bound the risk of the *whole
# mixed strategy*, not of each answer. The mathematics underneath is classical: von Neumann's
# minimax theorem {cite}`vonneumann1928theorie` and LP duality {cite}`dantzig1951equivalence`.
#
# By the end of this chapter you will be able to: write the paper's game and reduce it to the
# budgeted LP; say exactly when the reduction holds (the prior weight of the adversarial type
# must exceed the LP's multiplier, {prf:ref}`safety-game-thm-reduction`); make the LP robust to probe
# errors by tightening the budget by $2\varepsilon$ ({prf:ref}`safety-game-prop-robust`); see why a game
# beats a threshold filter at the same budget (it mixes in *borderline* answers); and solve the LP
# for thousands of prompts at once without a solver. A second part presents the chapter's own
# extensions — a game against several query intents, a batched no-regret solver
# {cite}`freund1999adaptive`, and judge-sampling statistics — which are not in the paper.
#
# ```{admonition} What is known about the paper, and what is reconstructed
# :class: warning
#
# The method and experiment sections of the paper were not available to us. The game, its value
# function, the LP, the $T - 2\varepsilon$ robustness rule, the probes and the filter baseline
# are taken from the authors' own description of the ICML version; the equivalence condition
# $\beta \ge \lambda^\star$ and the proofs below are our derivations. An earlier version
# (arXiv v2) used a **sigmoid** penalty that softens the budget; the ICML-era formula has a hard
# hinge ($\lambda \in [0, 1]$). **This chapter follows the hinge**; whether the sigmoid survives
# in the final paper is uncertain. The paper's benchmark numbers (HHH, TruthfulQA, SafetyBench,
# with language models) are not reproduced: candidates and probes are simulated here.
# ```
#
# ## Setting and notation
#
# One prompt at a time. The model has candidate answers $i \in \{s, 1, \dots, m\}$, where $s$ is
# the refusal; $K = m + 1$, and in code the refusal is candidate 0.
#
# | symbol | meaning |
# |---|---|
# | $h_i, r_i \in [0,1]$ | yes-probabilities of the helpfulness and harm probes for answer $i$ |
# | $M_i = h_i - h_s$ | helpfulness gain over refusing ($M_s = 0$) |
# | $\Delta_i = r_i - r_s$ | extra risk over refusing ($\Delta_s = 0$) |
# | $\pi \in \Delta_K$ | the model's mixed strategy over the candidates |
# | $T \ge 0$ | risk budget: allowed expected extra risk over refusing |
# | $\beta > 0$ | prior weight: the user is adversarial with probability $\beta/(\beta+1)$ |
# | $\lambda \in [0,1]$ | penalty chosen by the adversarial user |
# | $\lambda^\star$ | smallest optimal Lagrange multiplier of the budget in the LP |
# | $\varepsilon$ | bound on each probe's error |
#
# The chapter's extensions (second half) add their own notation, introduced there; their
# failure probability is $\rho$, not to be confused with the prior weight $\beta$.

# %% [markdown]
# ## Theory
#
# ```{prf:definition} The safety game
# :label: safety-game-def-budget-game
#
# Chance draws the user type, hidden from the model: benign with probability $1/(\beta+1)$,
# adversarial with probability $\beta/(\beta+1)$. The model commits to one $\pi \in \Delta_K$
# (both branches are one information set). The benign user pays the helpfulness gain
# $\pi^\top M$; the adversarial user picks $\lambda \in [0, 1]$ and charges $\lambda$ per unit of
# extra risk beyond the budget. The value of the game is
#
# $$
# V(\beta) = \max_{\pi \in \Delta_K} \min_{\lambda \in [0,1]}
# \Big[\tfrac{1}{\beta+1}\, \pi^\top M \;-\; \tfrac{\beta}{\beta+1}\, \lambda\, (\pi^\top \Delta - T)\Big].
# $$ (safety-game-eq-game-value)
#
# The **budgeted LP** is
#
# $$
# p^\star = \max_{\pi \in \Delta_K} \ \pi^\top M \quad \text{s.t.}\quad \pi^\top \Delta \le T ,
# $$ (safety-game-eq-budget-lp)
#
# and $\lambda^\star \ge 0$ denotes the smallest optimal Lagrange multiplier of its budget.
# ```
#
# The refusal is always feasible ($\Delta_s = 0 \le T$), so the LP has a solution, and it is the
# refusal when no mixture improves on it within the budget.
#
# ```{prf:theorem} The game reduces to the budgeted LP exactly when β ≥ λ*
# :label: safety-game-thm-reduction
#
# (i) $V(\beta)$ is the value of the $K \times 2$ matrix game
#
# $$
# G_\beta = \tfrac{1}{\beta+1} \big[\, M \ \ \big|\ \ M + \beta (T\mathbf{1} - \Delta) \,\big]
# $$ (safety-game-eq-game-matrix)
#
# and $(\beta+1) V(\beta) = \max_\pi \phi_\beta(\pi)$ with
# $\phi_\beta(\pi) = \pi^\top M - \beta (\pi^\top \Delta - T)_+$.
# (ii) If $\beta \ge \lambda^\star$, then $(\beta+1) V(\beta) = p^\star$ and every LP solution is
# a maximin strategy of the game; if $\beta > \lambda^\star$, every maximin strategy meets the
# budget, so the game's strategies are exactly the LP's. (iii) If $\beta < \lambda^\star$,
# every maximin strategy of the game violates the budget.
# ```
#
# ```{prf:proof}
# (i) For fixed $\pi$ the bracket in {eq}`safety-game-eq-game-value` is affine in $\lambda$, so its
# minimum over $[0,1]$ is at $\lambda = 0$ or $\lambda = 1$ — the two columns of $G_\beta$ — and
# equals $\phi_\beta(\pi)/(\beta+1)$ (the adversary charges only when the budget is exceeded): an
# exact-penalty function. (ii) LP duality for the budget (with $\Delta_K$ kept as the domain)
# gives $p^\star = \max_{\pi \in \Delta_K} [\pi^\top M + \lambda^\star(T - \pi^\top \Delta)]$, so
# for every $\pi$,
# $\pi^\top M \le p^\star + \lambda^\star(\pi^\top\Delta - T) \le p^\star + \lambda^\star
# (\pi^\top\Delta - T)_+$ and hence
# $\phi_\beta(\pi) \le p^\star - (\beta - \lambda^\star)(\pi^\top \Delta - T)_+ \le p^\star$. An LP
# solution is feasible, so $\phi_\beta = p^\star$ there. If $\beta > \lambda^\star$ the second
# inequality is strict for every infeasible $\pi$, which therefore cannot maximise $\phi_\beta$.
# (iii) Let $h(t)$ be the LP optimum at budget $t$; it is concave and non-decreasing, and the
# optimal multipliers at $T$ are its supergradients, so $\lambda^\star = h'(T^+)$, the right
# derivative. For a feasible $\pi$, $\phi_\beta(\pi) \le p^\star$; but an LP solution $\pi_t$ at a
# budget $t$ slightly above $T$ has $\phi_\beta(\pi_t) \ge h(t) - \beta(t - T) =
# p^\star + (\lambda^\star - \beta)(t - T) + o(t - T) > p^\star$ (in fact $h$ is piecewise linear,
# so the $o$-term vanishes near $T$). Hence no feasible $\pi$ is a maximiser.
# ```
#
# The theorem says what "$\beta$ large enough" means: the prior weight of the adversarial user
# must exceed the price of risk at the budget, the extra helpfulness bought per unit of extra
# risk. Below it the penalty is too cheap and the model happily overspends its budget. Since an
# optimal vertex of {eq}`safety-game-eq-budget-lp` mixes at most two candidates — one within the budget and
# one over it, with the budget tight — $\lambda^\star$ is the slope of the segment between them,
# and it is computed in closed form: $\lambda^\star = \max\big(0, \max_{i: \Delta_i > T}
# (M_i - p^\star)/(\Delta_i - T)\big)$.
#
# ```{prf:proposition} Robustness to probe errors: tighten the budget by 2ε
# :label: safety-game-prop-robust
#
# Suppose each probe's risk reading is within $\varepsilon$ of the truth,
# $\lvert \hat r_i - r_i \rvert \le \varepsilon$ for all $i$ including the refusal, and let
# $\hat\Delta_i = \hat r_i - \hat r_s$. Any $\pi$ feasible for the LP with scores $\hat \Delta$ and
# budget $T - 2\varepsilon$ has true extra risk $\pi^\top \Delta \le T$. The budget $T$ itself
# can be exceeded by up to $2\varepsilon$.
# ```
#
# ```{prf:proof}
# $\lvert \hat \Delta_i - \Delta_i \rvert \le \lvert \hat r_i - r_i\rvert + \lvert \hat r_s -
# r_s\rvert \le 2\varepsilon$, so $\pi^\top \Delta \le \pi^\top \hat\Delta + 2\varepsilon \le
# T$ for any $\pi \in \Delta_K$. For the second statement take $\hat r_i = r_i - \varepsilon$
# on a risky answer and $\hat r_s = r_s + \varepsilon$: its extra risk is under-read by
# $2\varepsilon$, and the LP at $T$ may spend it.
# ```
#
# The price of robustness is small when the frontier is flat: the LP optimum is concave in the
# budget, so the helpfulness lost by $T \to T - 2\varepsilon$ is at most
# $2\varepsilon$ times the multiplier at $T - 2\varepsilon$.
#
# ### Theory of the chapter's extensions
#
# The rest of this section is **not in the paper**. It develops a different game — the model
# against a set of query intents, each with its own helpfulness and risk — and the statistics of
# estimating such a game from repeated judge calls. It is kept because it teaches how equilibria
# of matrix games are computed, certified and estimated.
#
# One query at a time. The **answering agent** (row player, maximiser) chooses among $K$
# candidate answers $i \in [K]$; the **opponent** (column player, minimiser) among $J$ query
# intents or evaluators $j \in [J]$ — a benign user, a curious student, a malicious actor — each
# of whom judges helpfulness and harm differently. Mixed strategies are $x \in \Delta_K$ and
# $y \in \Delta_J$ (the simplex of the book's {doc}`../notation`).
#
# | symbol | meaning |
# |---|---|
# | $H_{ij} \in [0,1]$ | probability that a judge under intent $j$ rates answer $i$ helpful |
# | $R_{ij} \in [0,1]$ | probability that it flags answer $i$ unsafe |
# | $w \in [0,1]$ | safety weight |
# | $A = A(w) \in \mathbb{R}^{K \times J}$ | payoff matrix, $A_{ij} = (1-w) H_{ij} - w R_{ij}$ |
# | $x^\top A y$ | expected payoff of the pair $(x, y)$ |
# | $v = v(A)$ | value of the game, $\max_x \min_y x^\top A y$ |
# | $\hat A$, $\hat v$ | payoff estimated from $n$ judge calls per entry, and its value |
# | $\delta$, $\rho$ | target for $\lVert \hat A - A\rVert_{\max}$; allowed failure probability |
# | $\lVert B \rVert_{\max}$ | $\max_{ij} \lvert B_{ij} \rvert$ (also $\lVert B\rVert_\infty$) |
# | $T$, $\eta$ | rounds and step size of multiplicative weights (in this part only; elsewhere $T$ is the risk budget) |
# | $L$ | payoff range $\max A - \min A$ of one game |
#
# The payoff of the game is
#
# $$
# A_{ij}(w) = (1 - w)\, H_{ij} - w\, R_{ij}, \qquad i \in [K],\ j \in [J].
# $$ (safety-game-eq-payoff)
#
# At $w = 0$ only helpfulness counts and a detailed answer wins; at $w = 1$ only safety
# counts and the refusal ($H = R = 0$) is optimal; in between the agent may *mix*.
#
# ```{prf:definition} Intents game (extension)
# :label: safety-game-def-game
#
# For one query with candidates $[K]$, intents $[J]$ and safety weight $w$, the *safety game* is
# the two-player zero-sum game with payoff matrix $A(w)$ of {eq}`safety-game-eq-payoff`: the agent picks
# $x \in \Delta_K$, the opponent $y \in \Delta_J$, and the agent receives $x^\top A y$. The
# agent's *worst-case payoff* of $x$ is $\min_{y} x^\top A y = \min_j (x^\top A)_j$, and a
# *maximin strategy* maximises it.
# ```
#
# ```{prf:theorem} Minimax theorem by LP duality
# :label: safety-game-thm-minimax
#
# For every $A \in \mathbb{R}^{K \times J}$ the row player's LP
#
# $$
# \max_{x \in \mathbb{R}^K,\ v \in \mathbb{R}} \ v
# \quad \text{s.t.}\quad A^\top x \ge v \mathbf{1},\ \ \mathbf{1}^\top x = 1,\ \ x \ge 0
# $$ (safety-game-eq-primal)
#
# and the column player's LP
#
# $$
# \min_{y \in \mathbb{R}^J,\ u \in \mathbb{R}} \ u
# \quad \text{s.t.}\quad A y \le u \mathbf{1},\ \ \mathbf{1}^\top y = 1,\ \ y \ge 0
# $$ (safety-game-eq-dual)
#
# are both feasible, are dual to each other, and have equal optimal values $v^\star = u^\star$.
# Consequently $\max_x \min_y x^\top A y = \min_y \max_x x^\top A y$, and any optimal $x^\star$,
# $y^\star$ form a Nash equilibrium.
# ```
#
# ```{prf:proof}
# Both LPs are feasible (any $x \in \Delta_K$ with $v = \min_j (x^\top A)_j$; likewise for $y$)
# and bounded ($v \le \max_{ij} A_{ij}$). Write the Lagrangian of {eq}`safety-game-eq-primal` with
# multipliers $y \ge 0$ for $A^\top x \ge v\mathbf{1}$, $u \in \mathbb{R}$ for
# $\mathbf{1}^\top x = 1$ and $s \ge 0$ for $x \ge 0$:
# $\mathcal{L} = v + y^\top (A^\top x - v\mathbf{1}) + u(1 - \mathbf{1}^\top x) + s^\top x$.
# Maximising over the free $v$ forces $\mathbf{1}^\top y = 1$; maximising over $x$ forces
# $A y - u\mathbf{1} + s = 0$, i.e. $A y \le u\mathbf{1}$. What remains is $\min u$ — exactly
# {eq}`safety-game-eq-dual`. Strong LP duality (feasible and bounded primal) gives $v^\star = u^\star$.
# For the game: $\min_y x^\top A y = \min_j (x^\top A)_j$ because a linear function on the
# simplex is minimised at a vertex, so {eq}`safety-game-eq-primal` computes $\max_x \min_y x^\top A y$
# and {eq}`safety-game-eq-dual` computes $\min_y \max_x x^\top A y$; their equality is the minimax
# theorem. Finally $v^\star \le \min_j (x^{\star\top} A)_j \le x^{\star\top} A y^\star \le
# \max_i (A y^\star)_i \le u^\star = v^\star$, so neither player gains by deviating.
# ```
#
# ```{prf:definition} Duality gap (exploitability)
# :label: safety-game-def-gap
#
# For a pair $(x, y) \in \Delta_K \times \Delta_J$,
#
# $$
# \operatorname{gap}(x, y) = \max_i (A y)_i - \min_j (x^\top A)_j .
# $$ (safety-game-eq-gap)
#
# By {prf:ref}`safety-game-thm-minimax`, $\min_j (x^\top A)_j \le v \le \max_i (Ay)_i$: the gap is
# non-negative, brackets the value, and vanishes exactly at equilibria. A pair with gap
# $\le \varepsilon$ is an $\varepsilon$-equilibrium: neither player can gain more than
# $\varepsilon$ by deviating.
# ```
#
# In the black-box setting the agent never sees $A$. For each entry it calls a judge $n$ times;
# call $k$ returns a helpful flag $X_k \sim \mathrm{Bernoulli}(H_{ij})$ and an unsafe flag
# $Y_k \sim \mathrm{Bernoulli}(R_{ij})$, and the estimate is the mean score
#
# $$
# \hat A_{ij} = \frac{1}{n} \sum_{k=1}^{n} \big[(1 - w) X_k - w Y_k\big],
# \qquad \mathbb{E}\,\hat A_{ij} = A_{ij}.
# $$ (safety-game-eq-estimate)
#
# ```{prf:proposition} Value stability
# :label: safety-game-prop-stability
#
# For any $A, \hat A \in \mathbb{R}^{K \times J}$, $\ \lvert v(\hat A) - v(A) \rvert \le
# \lVert \hat A - A \rVert_{\max}$. The bound is tight
# (take $\hat A = A + \delta \mathbf{1}\mathbf{1}^\top$).
# ```
#
# ```{prf:proof}
# Let $\delta = \lVert \hat A - A \rVert_{\max}$. For all mixed $x, y$,
# $\lvert x^\top (\hat A - A) y \rvert \le \sum_{ij} x_i y_j \lvert \hat A_{ij} - A_{ij} \rvert
# \le \delta$, so $x^\top A y - \delta \le x^\top \hat A y \le x^\top A y + \delta$. Taking
# $\min_y$ and then $\max_x$ preserves these inequalities, hence
# $v(A) - \delta \le v(\hat A) \le v(A) + \delta$.
# ```
#
# ```{prf:proposition} Judge calls needed (Hoeffding)
# :label: safety-game-prop-hoeffding
#
# If each score in {eq}`safety-game-eq-estimate` lies in an interval of length $\ell$ (here $\ell = 1$)
# and the $KJ$ entries are estimated from $n$ calls each, then
#
# $$
# n \ \ge\ \frac{\ell^2 \ln(2KJ/\rho)}{2\delta^2}
# \quad\Longrightarrow\quad
# \mathbb{P}\big(\lVert \hat A - A \rVert_{\max} \le \delta\big) \ge 1 - \rho ,
# $$
#
# for a failure probability $\rho \in (0, 1)$, and then $\lvert \hat v - v \rvert \le \delta$ by
# {prf:ref}`safety-game-prop-stability`. Read the other way: with probability $\ge 1 - \rho$,
# $\lvert \hat v - v\rvert \le \ell\sqrt{\ln(2KJ/\rho)/(2n)}$, so the value error is
# $O(1/\sqrt n)$ (one entry alone errs by order $\ell/\sqrt n$; the union bound over $KJ$
# entries costs the factor $\sqrt{\ln(2KJ/\rho)}$).
# ```
#
# ```{prf:proof}
# Hoeffding's inequality {cite}`hoeffding1963probability` for a mean of $n$ independent scores
# in an interval of length $\ell$ gives
# $\mathbb{P}(\lvert \hat A_{ij} - A_{ij} \rvert > \delta) \le 2\exp(-2n\delta^2/\ell^2)$. A union
# bound over the $KJ$ entries bounds the probability that any entry is off by more than
# $\delta$ by $2KJ\exp(-2n\delta^2/\ell^2)$, which is $\le \rho$ for the stated $n$.
# ```
#
# The LP is exact but sequential: one solver call per game. For thousands of small games — one
# per query of a benchmark, or per safety weight — a solver made only of batched matrix products
# is attractive ({doc}`chapter 08 <08-hrc-dsppo>` reuses the same kernels for preference
# games). In **multiplicative weights** (Hedge) both players keep exponential weights on
# their cumulative payoffs:
#
# $$
# \begin{aligned}
# x_t &\propto \exp\Big(\eta_x \sum_{s<t} A y_s\Big), &
# y_t &\propto \exp\Big(-\eta_y \sum_{s<t} A^\top x_s\Big), \\
# \bar x_T &= \frac1T \sum_{t=1}^{T} x_t, & \bar y_T &= \frac1T \sum_{t=1}^{T} y_t .
# \end{aligned}
# $$ (safety-game-eq-hedge)
#
# ```{prf:theorem} No-regret dynamics reach an ε-equilibrium
# :label: safety-game-thm-mwu
#
# Let $L = \max A - \min A$. With $\eta_x = \sqrt{8 \ln K / T}/L$ and
# $\eta_y = \sqrt{8 \ln J / T}/L$, the averaged strategies of {eq}`safety-game-eq-hedge` satisfy
#
# $$
# \operatorname{gap}(\bar x_T, \bar y_T)
# \ \le\ L\left(\sqrt{\frac{\ln K}{2T}} + \sqrt{\frac{\ln J}{2T}}\right),
# $$
#
# so an $\varepsilon$-equilibrium is reached after $T = O(L^2 \log(KJ)/\varepsilon^2)$ rounds, and
# $\tfrac12(\min_j (\bar x_T^\top A)_j + \max_i (A \bar y_T)_i)$ estimates $v$ to within half
# the gap.
# ```
#
# ```{prf:proof}
# *Sketch; the regret bound is quoted from {cite}`freund1999adaptive` (see also
# {cite}`arora2012multiplicative`).* Hedge over $K$ actions with gains in an interval of
# length $L$ has regret $R^x_T = \max_i \sum_t (A y_t)_i - \sum_t x_t^\top A y_t \le
# \ln K/\eta_x + \eta_x T L^2 / 8$ (a potential argument with Hoeffding's lemma), which is
# $L\sqrt{T \ln K / 2}$ for the stated $\eta_x$; likewise $R^y_T \le L\sqrt{T\ln J/2}$ for the
# minimiser. Now $\max_i (A\bar y_T)_i = \frac1T \max_i \sum_t (Ay_t)_i \le \frac1T \sum_t
# x_t^\top A y_t + R^x_T/T$ and $\min_j (\bar x_T^\top A)_j \ge \frac1T \sum_t x_t^\top A y_t -
# R^y_T/T$. Subtracting gives $\operatorname{gap}(\bar x_T, \bar y_T) \le (R^x_T + R^y_T)/T$,
# the stated bound. The bound is a worst case over opponents; nothing in the argument says the
# gap of Hedge *against Hedge* decays no faster — that we measure in experiment E3 (claim 07.6).
# ```
#

# %% tags=["hide-input"]
import time
import warnings

import matplotlib.pyplot as plt
import nashpy as nash
import numpy as np
import torch

import icml26
from icml26.games import budgeted, zerosum

SEED = 7
rng = icml26.seed_everything(SEED)
icml26.plotting.use_book_style()
DEVICE = icml26.device()
gen = torch.Generator().manual_seed(
    SEED
)  # CPU generator for the extensions' torch draws
gen_pool = torch.Generator().manual_seed(SEED + 1)  # and for the candidate pool

# %% tags=["parameters", "hide-input"]
PROMPTS = icml26.pick(ci=1000, paper=10000)  # simulated prompts of the candidate pool
POOL_K = icml26.pick(ci=8, paper=8)  # K: the refusal and 7 sampled answers
PROBE_NOISE = icml26.pick(ci=0.3, paper=0.3)  # logit noise of one probe reading
BUDGET = icml26.pick(ci=0.1, paper=0.1)  # default risk budget T
N_REDUCTION = icml26.pick(ci=200, paper=1000)  # prompts solved as games (07.1, 07.2)
BETA_ABOVE = [1.1, 2.0, 10.0]  # β / λ* above the threshold
BETA_BELOW = 0.5  # β / λ* below it
EPSILONS = [0.01, 0.02, 0.04]  # probe error bounds ε (07.3)
BUDGETS = np.linspace(0.02, 0.3, icml26.pick(ci=8, paper=15))  # T grid (07.4)
BAND = icml26.pick(ci=0.1, paper=0.1)  # borderline: T < Δ ≤ T + BAND
POOL_SEEDS = icml26.pick(ci=5, paper=10)  # independent pools and probes (07.4, 07.5)
N_RANDOM_GAMES = icml26.pick(ci=150, paper=2000)  # random games for LP duality (E1)
MAX_SIZE = icml26.pick(ci=8, paper=12)  # largest m, n of those games
N_NASH_GAMES = icml26.pick(ci=40, paper=300)  # small games checked against nashpy
NASH_MAX_SIZE = icml26.pick(ci=4, paper=5)
N_CROSS = icml26.pick(ci=12, paper=64)  # safety games for the nashpy cross-check
CANDIDATES = icml26.pick(ci=6, paper=6)  # K: refusal ... most detailed answer
INTENTS = icml26.pick(ci=4, paper=4)  # J: query intents / evaluators
QUERIES = icml26.pick(ci=64, paper=512)  # simulated safety benchmark (E2)
N_WEIGHTS = icml26.pick(ci=11, paper=21)  # safety weights w on [0, 1]
N_CAPS = icml26.pick(ci=40, paper=100)  # risk caps for the Pareto frontier
MWU_GAMES = icml26.pick(ci=1024, paper=8192)  # batch of games for Hedge (E3, E4)
MWU_HORIZONS = [2**k for k in range(6, icml26.pick(ci=13, paper=15))]  # T
MWU_FIT_FROM = icml26.pick(ci=128, paper=128)  # fit the gap slope for T >= this
W_EST = icml26.pick(ci=0.5, paper=0.5)  # safety weight of the estimation experiments
EST_QUERIES = icml26.pick(
    ci=64, paper=256
)  # queries for the value-error experiment (E5)
EST_REPEATS = icml26.pick(ci=2, paper=4)  # independent judge panels per query
JUDGE_SAMPLES = [2**k for k in range(5, icml26.pick(ci=16, paper=18))]  # n
EST_FIT_FROM = icml26.pick(ci=256, paper=256)  # fit the error slope for n >= this
HOEFFDING_DELTA = icml26.pick(ci=0.05, paper=0.02)  # target ‖Â − A‖_max
HOEFFDING_RHO = icml26.pick(ci=0.05, paper=0.05)  # allowed failure probability ρ
HOEFFDING_QUERIES = icml26.pick(ci=1024, paper=8192)

# %% [markdown]
# The paper's game at a glance: chance picks the user type, the model does not see it and
# commits to one mixture over the candidates, and each branch scores the mixture differently.

# %% tags=["hide-input"] mystnb={"figure": {"caption": "The paper's safety game for one prompt: chance draws a benign user (probability $1/(\\beta+1)$) or an adversarial one ($\\beta/(\\beta+1)$); the model, not knowing which, mixes its candidates (refusal included) with $\\pi$; the benign branch pays the helpfulness gain $\\pi^\\top M$, the adversarial branch charges $\\lambda(\\pi^\\top\\Delta - T)$. For $\\beta \\ge \\lambda^\\star$ the maximin $\\pi$ solves one budgeted LP.", "name": "07-fig-game"}}
fig, ax = plt.subplots(figsize=(7.4, 3.0))
icml26.plotting.diagram(
    ax,
    {
        "p": (0.08, 0.5, "prompt +\ncandidates\n$s, 1..m$"),
        "pr": (0.3, 0.5, "probes\n$M_i, \\Delta_i$\n(vs refusal)"),
        "c": (0.52, 0.5, "chance:\nuser type"),
        "b": (0.74, 0.82, "benign\npays $\\pi^\\top M$"),
        "a": (0.74, 0.18, "adversarial: pays\n$-\\lambda(\\pi^\\top\\Delta - T)$"),
        "lp": (0.93, 0.5, "LP:\nmax $\\pi^\\top M$\n$\\pi^\\top\\Delta \\leq T$"),
    },
    [
        ("p", "pr", ""),
        ("pr", "c", ""),
        ("c", "b", "$1/(\\beta+1)$"),
        ("c", "a", "$\\beta/(\\beta+1)$"),
        ("b", "lp", ""),
        ("a", "lp", "$\\beta \\geq \\lambda^\\star$"),
    ],
    colors={"p": 0, "pr": 3, "c": 1, "b": 2, "a": 1, "lp": 0},
)
ax.set_title("One information set, two user types, one budgeted LP")
plt.show()

# %% [markdown]
# The intents game of the extensions at a glance: for one query the agent mixes over its candidate answers, the opponent
# over intents (or judges), and judges score each pair for helpfulness and risk.

# %% tags=["hide-input"] mystnb={"figure": {"caption": "The safety game for one query: the agent mixes its $m$ candidate answers with $x$, the opponent picks an intent with $y$, and judges turn each (answer, intent) pair into helpfulness and risk; the weight $w$ combines them into the payoff $A$, and the value of the game is what the agent can guarantee.", "name": "07-fig-model"}}
fig, ax = plt.subplots(figsize=(7.2, 3.0))
icml26.plotting.diagram(
    ax,
    {
        "q": (0.1, 0.5, "query"),
        "c": (0.33, 0.8, "$m$ candidate\nanswers, mix $x$"),
        "i": (0.33, 0.2, "$n$ intents,\nmix $y$"),
        "j": (0.6, 0.5, "judges: $H_{ij}$, $R_{ij}$"),
        "A": (0.88, 0.75, "payoff\n$A = (1-w)H - wR$"),
        "v": (0.88, 0.22, "value\n$\\max_x \\min_y x^\\top A y$"),
    },
    [
        ("q", "c", ""),
        ("q", "i", ""),
        ("c", "j", ""),
        ("i", "j", ""),
        ("j", "A", ""),
        ("A", "v", "LP or Hedge"),
    ],
    colors={"q": 0, "c": 2, "i": 1, "j": 3, "A": 0, "v": 2},
)
ax.set_title("Answers against intents, scored by judges")
plt.show()


# %% [markdown]
# ## Implementation
#
# The paper's LP {eq}`safety-game-eq-budget-lp` first. A readable reference solves it for one prompt
# without a solver: an optimal vertex mixes at most two candidates (one within the budget, one
# over it, with the budget tight), so it suffices to try every single candidate within the
# budget and every such pair.


# %% tags=["reference"]
def budgeted_lp_reference(
    M: np.ndarray, D: np.ndarray, T: float
) -> tuple[float, np.ndarray]:
    """max π·M s.t. π·Δ ≤ T over the simplex, by trying every vertex.

    Returns (value, π).
    """
    K = len(M)
    best, pi = -np.inf, None
    for i in range(K):
        if D[i] > T:
            continue
        if M[i] > best:  # a single answer within the budget
            best, pi = M[i], np.eye(K)[i]
        for j in range(K):
            if D[j] > T:  # mix i with the riskier j until the budget is tight
                theta = (T - D[i]) / (D[j] - D[i])
                value = (1 - theta) * M[i] + theta * M[j]
                if value > best:
                    best, pi = value, (1 - theta) * np.eye(K)[i] + theta * np.eye(K)[j]
    return best, pi


# %% [markdown]
# The library has the same LP three ways: `icml26.games.budgeted.budgeted_lp` calls HiGHS
# (through `scipy.optimize.linprog`) and also returns the smallest optimal multiplier
# $\lambda^\star$; `icml26.games.budgeted.budgeted_lp_batched` does the vertex enumeration of the
# reference for a whole batch of prompts at once, as a few vectorised operations on
# $(Q, K, K)$ tensors; and `icml26.games.budgeted.safety_game` builds the $K \times 2$ matrix
# {eq}`safety-game-eq-game-matrix`, which `icml26.games.zerosum.maximin_lp` solves as a game. The candidate
# pool is simulated by `icml26.games.budgeted.simulate_candidates`: per prompt, a refusal and seven
# answers with a level of detail, a quality, and a prompt-level sensitivity (most prompts are
# harmless; detail helps and, on sensitive prompts, harms). `icml26.games.budgeted.probe` reads
# each probe **once** — the yes-probability with logit noise, as one forward pass of a model
# asked "helpful?" or "harmful?" — and the scores are taken relative to the refusal.

# %%
pool = budgeted.simulate_candidates(PROMPTS, POOL_K, generator=gen_pool)
h_hat = budgeted.probe(pool.helpful, PROBE_NOISE, generator=gen_pool)
r_hat = budgeted.probe(pool.risk, PROBE_NOISE, generator=gen_pool)
M_hat, D_hat = h_hat - h_hat[:, :1], r_hat - r_hat[:, :1]  # what the method sees
M_true, D_true = pool.helpful - pool.helpful[:, :1], pool.risk - pool.risk[:, :1]
Mn, Dn = M_hat.numpy(), D_hat.numpy()
v_batch, pi_batch = budgeted.budgeted_lp_batched(M_hat, D_hat, BUDGET)
sols = [budgeted.budgeted_lp(Mn[q], Dn[q], BUDGET) for q in range(N_REDUCTION)]
icml26.checks.agree(
    "batched LP vs HiGHS",
    v_batch[:N_REDUCTION].numpy(),
    np.array([s.value for s in sols]),
    atol=1e-9,
)
icml26.checks.agree(
    "batched LP vs reference",
    v_batch[:20].numpy(),
    np.array([budgeted_lp_reference(Mn[q], Dn[q], BUDGET)[0] for q in range(20)]),
    atol=1e-12,
)
print("prompt 0, refusal first: M =", np.round(Mn[0], 2), "Δ =", np.round(Dn[0], 2))
print(
    f"LP at T = {BUDGET}: π = {np.round(sols[0].strategy, 2)}, λ* = "
    f"{sols[0].multiplier:.2f}"
)

# %% [markdown]
# For the extensions, a second reference: Hedge for one intents game, a plain loop over rounds,
# exactly {eq}`safety-game-eq-hedge` with the step sizes of {prf:ref}`safety-game-thm-mwu`.


# %% tags=["reference"]
def hedge_reference(A: np.ndarray, T: int) -> tuple[np.ndarray, np.ndarray]:
    """Multiplicative weights for both players of one game.

    Returns the averaged strategies.
    """
    K, J = A.shape
    L = A.max() - A.min()
    eta_x, eta_y = np.sqrt(8 * np.log(K) / T) / L, np.sqrt(8 * np.log(J) / T) / L
    gain_x, loss_y = (
        np.zeros(K),
        np.zeros(J),
    )  # cumulative payoffs of every pure strategy
    sum_x, sum_y = np.zeros(K), np.zeros(J)
    for _ in range(T):
        x = np.exp(eta_x * (gain_x - gain_x.max()))
        y = np.exp(-eta_y * (loss_y - loss_y.min()))
        x, y = x / x.sum(), y / y.sum()
        sum_x, sum_y = sum_x + x, sum_y + y
        gain_x, loss_y = gain_x + A @ y, loss_y + x @ A
    return sum_x / T, sum_y / T


# %% [markdown]
# The kernel `icml26.games.zerosum.mwu` runs the same rounds on a whole batch `(B, K, J)` of games,
# on
# whatever device the batch lives, with no transfer to the host inside the loop. It applies the
# update multiplicatively, $x_{t+1} \propto x_t \odot e^{\eta A y_t}$ (the same iterates as
# {eq}`safety-game-eq-hedge`, on the payoff centred per game so that no factor overflows), and stores the
# batch as the *last* axis, so that each round is a dozen vectorised sweeps over all games
# rather than $B$ tiny matrix products. It returns the averaged strategies, the value bracket
# $[\min_j (\bar x^\top A)_j,\ \max_i (A\bar y)_i]$ and the duality gap {eq}`safety-game-eq-gap`;
# with `tol=` it stops as soon as every game's gap — the certificate — is below `tol`, checked
# every 32 rounds (the only host synchronisation). The LPs {eq}`safety-game-eq-primal` and
# {eq}`safety-game-eq-dual` are `icml26.games.zerosum.maximin_lp` and `icml26.games.zerosum.minimax_lp`
# (HiGHS through
# `scipy.optimize.linprog`). Both must agree with the reference on a random case.

# %%
A_check = torch.rand(16, 5, 3, generator=gen, dtype=torch.float64).to(DEVICE) * 2 - 1
res_check = zerosum.mwu(A_check, 400)
x_ref, y_ref = hedge_reference(A_check[0].cpu().numpy(), 400)
assert np.allclose(res_check.x[0].cpu().numpy(), x_ref, atol=1e-10)
assert np.allclose(res_check.y[0].cpu().numpy(), y_ref, atol=1e-10)
lp_check = zerosum.maximin_lp(A_check[0].cpu().numpy())
assert (
    float(res_check.lower[0]) - 1e-12
    <= lp_check.value
    <= float(res_check.upper[0]) + 1e-12
)
print(
    f"kernel = reference on game 0; LP value {lp_check.value:.4f} lies in the Hedge "
    "bracket "
    f"[{float(res_check.lower[0]):.4f}, {float(res_check.upper[0]):.4f}]"
)

# %% [markdown]
# The black-box simulator `icml26.games.zerosum.simulate_benchmark` draws, for every query, $K$
# candidates
# ordered from the refusal (never helpful, never unsafe) to the most detailed answer, and $J$
# intents with their own appreciation of detail and their own amplification of harm (the last
# intent is fully malicious). Queries differ in *sensitivity*: a harmless question makes even
# detailed answers safe. `icml26.games.zerosum.payoff_matrix` forms {eq}`safety-game-eq-payoff`, and
# `icml26.games.zerosum.judge_estimate` simulates the judges of {eq}`safety-game-eq-estimate`. One query,
# rounded:

# %%
bench = zerosum.simulate_benchmark(
    QUERIES, CANDIDATES, INTENTS, generator=gen, device=DEVICE
)
H_all, R_all = bench.helpful.cpu().numpy(), bench.risk.cpu().numpy()
print("helpful H[0] (rows: refusal → most detailed; columns: intents)")
print(np.round(H_all[0], 2))
print("risk R[0]")
print(np.round(R_all[0], 2))

# %% [markdown]
# ## Experiments
#
# The first five experiments test the paper's statements on the simulated candidate pool; the
# extensions follow in their own part.
#
# ### 07.1–07.2 · The game is the budgeted LP exactly when β ≥ λ*
#
# *Claim* ({prf:ref}`safety-game-thm-reduction`): for every prompt whose budget binds
# ($\lambda^\star > 0$), solving the $K \times 2$ game {eq}`safety-game-eq-game-matrix` with
# $\beta \in \{1.1, 2, 10\} \cdot \lambda^\star$ gives $(\beta+1)V = p^\star$ and a strategy within
# the budget (07.1); with $\beta = \lambda^\star/2$ the game's maximin strategy exceeds the budget
# on every such prompt (07.2). The game is solved by the generic maximin LP, not by the budgeted
# LP, so the two computations are independent.

# %%
lam = np.array([s.multiplier for s in sols])
binding = np.flatnonzero(lam > 0)
above_err, below_err, below_excess, above_excess = 0.0, 0.0, [], []
for q in binding:
    for f in BETA_ABOVE:
        b = f * lam[q]
        g = zerosum.maximin_lp(budgeted.safety_game(Mn[q], Dn[q], BUDGET, b))
        above_err = max(
            above_err,
            abs((b + 1) * g.value - sols[q].value),
            g.strategy @ Dn[q] - BUDGET,
        )
        if f == BETA_ABOVE[0]:
            above_excess.append(g.strategy @ Dn[q] - BUDGET)
    b = BETA_BELOW * lam[q]
    g = zerosum.maximin_lp(budgeted.safety_game(Mn[q], Dn[q], BUDGET, b))
    below_excess.append(g.strategy @ Dn[q] - BUDGET)
    below_err = max(below_err, abs((b + 1) * g.value - sols[q].value), below_excess[-1])
below_excess, above_excess = np.array(below_excess), np.array(above_excess)
print(
    f"{len(binding)} of {N_REDUCTION} prompts have a binding budget; λ* quartiles "
    f"{np.round(np.quantile(lam[binding], [0.25, 0.5, 0.75]), 2)}"
)
print(
    f"β = λ*/2: mean extra risk spent beyond T by the game: {below_excess.mean():.4f}"
)

# %% tags=["claim"]
# fails if: the game's maximin strategy were not the LP solution for β above λ* (wrong
# reduction); the control is the same measure at β = λ*/2, where it must fail
icml26.claim(
    "07.1",
    "β ≥ λ*: max |(β+1)V − p*| and budget excess of the game",
    above_err,
    at_most=1e-8,
    kind="theorem",
    control=below_err,
    control_label="β = λ*/2",
)

# %% tags=["claim"]
# fails if: a prior weight below λ* still enforced the budget (then β ≥ λ* would not be
# needed); the control is the same share at β = 1.1 λ*, where it must fail
icml26.claim(
    "07.2",
    "β = λ*/2: share of binding prompts where the game exceeds T",
    float((below_excess > 1e-9).mean()),
    at_least=1.0,
    kind="theorem",
    control=float((above_excess > 1e-9).mean()),
    control_label="β = 1.1 λ*",
)

# %% [markdown]
# The threshold is sharp and prompt-dependent: $\lambda^\star$ ranges over an order of magnitude
# across prompts, so a single $\beta$ "large enough" must exceed the largest price of risk among
# the prompts one cares about. Nothing is lost by taking $\beta$ larger: above $\lambda^\star$ the
# game and the LP coincide, which is why the method can simply solve the LP.
#
# ### 07.3 · The ε-robustness rule: solve at T − 2ε
#
# *Claim* ({prf:ref}`safety-game-prop-robust`): if every risk reading is within $\varepsilon$
# of the truth, the LP solved at budget $T - 2\varepsilon$ on the read scores keeps the **true**
# extra risk $\le T$ on every prompt; the LP solved at $T$ does not (negative control, same cell).
# Errors are drawn uniformly in $[-\varepsilon, \varepsilon]$ per reading, the refusal's included,
# for $\varepsilon \in \{0.01, 0.02, 0.04\}$, on all prompts; decisions use the read scores,
# risk is evaluated on the true ones.

# %%
robust_excess, plain_violations, plain_excess, cost = [], [], [], []
v_true_T = budgeted.budgeted_lp_batched(M_true, D_true, BUDGET)[0]
for eps in EPSILONS:
    noise = (
        torch.rand(pool.risk.shape, generator=gen_pool, dtype=torch.float64) * 2 - 1
    ) * eps
    r_read = pool.risk + noise
    D_read = r_read - r_read[:, :1]
    _, pi_robust = budgeted.budgeted_lp_batched(M_true, D_read, BUDGET - 2 * eps)
    _, pi_plain = budgeted.budgeted_lp_batched(M_true, D_read, BUDGET)
    risk_robust, risk_plain = (pi_robust * D_true).sum(1), (pi_plain * D_true).sum(1)
    robust_excess.append((risk_robust - BUDGET).numpy())
    plain_violations.append(int((risk_plain > BUDGET + 1e-12).sum()))
    plain_excess.append(float((risk_plain - BUDGET).max()))
    cost.append(float((v_true_T - (pi_robust * M_true).sum(1)).mean()))
    print(
        f"ε = {eps}: LP at T − 2ε exceeds T on "
        f"{int((risk_robust > BUDGET + 1e-12).sum())} "
        f"prompts; LP at T on {plain_violations[-1]} of {PROMPTS} "
        f"(worst excess {float((risk_plain - BUDGET).max()):.4f}); helpfulness cost of "
        "the rule "
        f"{cost[-1]:.4f}"
    )
robust_excess = np.array(robust_excess)

# %% tags=["claim"]
# fails if: the 2ε margin were too small for refusal-relative scores, as no margin (the
# control: the LP at T on the same readings) is
icml26.claim(
    "07.3",
    "LP at T − 2ε: max over ε, prompts of true risk − T",
    float(robust_excess.max()),
    at_most=1e-12,
    kind="theorem",
    control=max(plain_excess),
    control_label="LP at T",
)

# %% tags=["hide-input"] mystnb={"figure": {"caption": "The $T - 2\\varepsilon$ rule (claim 07.3): left, the true extra risk of the LP's strategy when the risk readings err by up to $\\varepsilon = 0.02$ — solved at $T$ it overspends on about a third of the prompts, solved at $T - 2\\varepsilon$ never; right, what the margin costs in mean helpfulness, against $\\varepsilon$.", "name": "07-fig-robust"}}
eps_show = EPSILONS.index(0.02) if 0.02 in EPSILONS else 0
noise = (
    torch.rand(
        pool.risk.shape,
        generator=torch.Generator().manual_seed(SEED),
        dtype=torch.float64,
    )
    * 2
    - 1
) * EPSILONS[eps_show]
r_read = pool.risk + noise
D_read = r_read - r_read[:, :1]
fig, (ax0, ax1) = plt.subplots(1, 2, figsize=(7.5, 3.3))
for tb, lab, c in (
    (BUDGET, "LP at T", 1),
    (BUDGET - 2 * EPSILONS[eps_show], "LP at T − 2ε", 0),
):
    pi_show = budgeted.budgeted_lp_batched(M_true, D_read, tb)[1]
    risk_show = (pi_show * D_true).sum(1).numpy()
    ax0.hist(
        risk_show[risk_show > 0.5 * BUDGET],
        bins=40,
        alpha=0.6,
        color=icml26.plotting.color(c),
        label=lab,
    )
ax0.axvline(BUDGET, color="black", lw=1.2, ls="--", label="budget T")
ax0.set(
    xlabel="true extra risk π·Δ (probability)",
    ylabel="prompts (risk > T/2)",
    title=f"Readings off by ≤ ε = {EPSILONS[eps_show]}",
)
ax0.legend(fontsize=8)
ax1.plot(EPSILONS, cost, marker="o")
ax1.set(
    xlabel="probe error bound ε (probability)",
    ylabel="mean helpfulness lost (gain over refusal)",
    title="The price of the margin",
)
plt.show()

# %% [markdown]
# The margin is exactly what refusal-relative scores need: each $\Delta_i$ is a difference of
# two readings, so it can be off by $2\varepsilon$, and the LP spends its budget to the last unit
# (the budget is tight at the optimum whenever it binds), so any under-read risk is spent. The
# price is not small here: the LP optimum is concave in the budget, so tightening it by
# $2\varepsilon$ costs at most $2\varepsilon$ times the price of risk — but with $T = 0.1$ and
# prices of risk of order 1–3, $\varepsilon = 0.04$ removes most of the budget and a third of the
# helpfulness. Probes must be accurate to well under $T/2$ for the rule to be affordable.
#
# ### 07.4–07.5 · Game vs threshold filter at the same budget
#
# *Claim* (the paper's comparison with a filter): at the same risk budget, the
# game earns more helpfulness than the filter "drop every answer with $\hat\Delta_i > T$, answer
# the most helpful remaining" (07.4), and the gain comes from **borderline** answers — those just
# over the budget, $T < \hat\Delta_i \le T + 0.1$, which a filter drops at any cutoff and the game
# mixes with safer answers (07.5: at least half of the gain comes from prompts where the game
# uses one). Both methods decide on single noisy probe readings; helpfulness and risk are then
# measured with the true probabilities. The threshold of 07.4 is "at every budget of the grid";
# 07.5's "at least half" is our reading of "the gain comes from borderline answers". Both are
# decided on 5 independently simulated pools (prompts, candidates and probe readings; the
# pool above is the first), every pool must pass (rule `worst`). The control of 07.5 is the
# share of the gain from prompts where the game uses an answer *far* over the budget
# ($\hat\Delta_i > T + 0.1$), which the claim says should be the minor part.


# %%
def game_vs_filter(M_h, D_h, M_t, D_t):
    """Per budget of the grid: mean true helpfulness and risk of game and filter,
    the share of prompts where the game uses a borderline answer, and the shares of the
    game's gain from those prompts and from prompts where it uses one far over T."""
    out = []
    for T_b in BUDGETS:
        v_g, pi_g = budgeted.budgeted_lp_batched(M_h, D_h, T_b)
        pi_f = budgeted.threshold_filter(M_h, D_h, T_b)
        gain = v_g - (pi_f * M_h).sum(1)  # on the scores the methods see
        used = pi_g > 1e-9
        border = ((D_h > T_b) & (D_h <= T_b + BAND) & used).any(1)
        far = ((D_h > T_b + BAND) & used).any(1)
        out.append(
            [
                float((pi_g * M_t).sum(1).mean()),
                float((pi_f * M_t).sum(1).mean()),
                float((pi_g * D_t).sum(1).mean()),
                float((pi_f * D_t).sum(1).mean()),
                float(border.double().mean()),
                float((gain * border).sum() / gain.sum()),
                float((gain * far).sum() / gain.sum()),
            ]
        )
    return np.array(out)


def at_equal_risk(r):
    """Game − filter true helpfulness at the game's realised mean risk (the filter's
    curve interpolated over its cutoffs; NaN outside the filter's range)."""
    return r[:, 0] - np.interp(r[:, 2], r[:, 3], r[:, 1], left=np.nan, right=np.nan)


# the pool above is seed 0; POOL_SEEDS - 1 more pools, each with its own probes
per_pool = [game_vs_filter(M_hat, D_hat, M_true, D_true)]
for k in range(1, POOL_SEEDS):
    g_k = torch.Generator().manual_seed(SEED + 100 + k)
    pool_k = budgeted.simulate_candidates(PROMPTS, POOL_K, generator=g_k)
    h_k = budgeted.probe(pool_k.helpful, PROBE_NOISE, generator=g_k)
    r_k = budgeted.probe(pool_k.risk, PROBE_NOISE, generator=g_k)
    per_pool.append(
        game_vs_filter(
            h_k - h_k[:, :1],
            r_k - r_k[:, :1],
            pool_k.helpful - pool_k.helpful[:, :1],
            pool_k.risk - pool_k.risk[:, :1],
        )
    )
rows = per_pool[0]
help_g, help_f, risk_g, risk_f, border_share, border_gain, far_gain = rows.T
print(
    "pool 0:\n T     help game  help filter  risk game  risk filter  borderline used"
    "  gain share"
)
for T_b, r in zip(BUDGETS, rows, strict=True):
    print(f"{T_b:.2f}  " + "  ".join(f"{v:10.3f}" for v in r[:6]))
i_def = int(np.abs(BUDGETS - BUDGET).argmin())
gap_budget = np.array([r[:, 0] - r[:, 1] for r in per_pool])  # (pools, budgets)
gap_risk = np.array([at_equal_risk(r) for r in per_pool])
print(
    f"over {POOL_SEEDS} pools, game − filter true helpfulness: at equal budget "
    f"{gap_budget.min():+.3f} to {gap_budget.max():+.3f}; at equal realised risk "
    f"{np.nanmin(gap_risk):+.3f} to {np.nanmax(gap_risk):+.3f}"
)

# %% tags=["claim"]
# fails if: mixing did not beat keeping the best answer under the cutoff, at some
# budget; the control is the same share at equal realised risk instead of equal budget
icml26.claim(
    "07.4",
    "equal budget T: share of budgets where game's true helpfulness > filter's",
    seeds=(gap_budget > 0).mean(1),
    at_least=1.0,
    kind="reproduction",
    control=[float((g[np.isfinite(g)] > 0).mean()) for g in gap_risk],
    control_label="at equal realised risk",
)

# %% tags=["claim"]
# fails if: the game's gain came from answers far over the budget, not from borderline
# ones (the control: the share of the gain from answers with Δ̂ > T + 0.1)
icml26.claim(
    "07.5",
    f"T = {BUDGETS[i_def]:.2f}: share of game's gain from borderline answers",
    seeds=[r[i_def, 5] for r in per_pool],
    at_least=0.5,
    kind="reproduction",
    control=[r[i_def, 6] for r in per_pool],
    control_label="far over T",
)

# %% [markdown]
# At the same *budget* the game also spends more of it: the filter's pick is usually well under
# $T$, the game's mixture exactly at $T$ (on the read scores). The right panel below therefore
# compares the two at the same *realised* true risk, by tracing each method over the budget grid.

# %%
help_f_at = np.interp(risk_g, risk_f, help_f, left=np.nan, right=np.nan)
ok = np.isfinite(help_f_at)
print(
    f"at equal realised mean risk ({ok.sum()} budgets inside the filter's range): game "
    "− filter "
    f"helpfulness from {np.nanmin(help_g - help_f_at):.3f} to "
    f"{np.nanmax(help_g - help_f_at):.3f}"
)

# %% [markdown]
# This is the honest reading of 07.4 in our simulator. The paper's comparison is the one at the
# same *budget* — the filter with the cutoff $T$ that the game is given, the baseline the
# authors describe — and there the game is more helpful at every budget of the grid, on every
# pool, and most of its gain comes from borderline answers (07.5), as the paper says. The claim
# line also carries the other comparison, as its control: **at the same realised risk** the
# filter, traced over its cutoffs, is about as helpful — slightly more, by the margins printed
# above (the game is behind at every budget inside the filter's range, on every pool). On the
# scores the methods read, the game cannot lose at equal budget — the filter's pick is a
# feasible point of the LP — so the claim is measured on the true scores, where it could.
# The game's advantage is that it spends the budget it is given, on every prompt, exactly; a filter with a per-task tuned cutoff buys the same trade-off
# on average across prompts. Whether real probe scores, with their human-judged borderline
# answers, behave differently is what the paper's benchmarks measure and this simulation cannot.

# %% tags=["hide-input"] mystnb={"figure": {"caption": "Game vs threshold filter on the simulated pool (claims 07.4–07.5): left, mean true helpfulness gain over refusing against the risk budget $T$, with the share of prompts where the game uses a borderline answer; right, the same methods traced against their realised mean true extra risk.", "name": "07-fig-filter"}}
fig, (ax0, ax1) = plt.subplots(1, 2, figsize=(7.5, 3.3))
ax0.plot(BUDGETS, help_g, marker="o", label="game (LP)")
ax0.plot(BUDGETS, help_f, marker="s", label="threshold filter")
ax0b = ax0.twinx()
ax0b.plot(BUDGETS, border_share, ls=":", color="grey", label="borderline used (game)")
ax0b.set_ylabel("share of prompts using a borderline answer")
ax0b.set_ylim(0, 1)
ax0.set(
    xlabel="risk budget T (extra risk over refusal)",
    ylabel="mean helpfulness gain over refusal",
    title="Same budget: the game is more helpful",
)
ax0.legend(loc="lower right", fontsize=8)
ax1.plot(risk_g, help_g, marker="o", label="game (LP)")
ax1.plot(risk_f, help_f, marker="s", label="threshold filter")
ax1.set(
    xlabel="realised mean true extra risk (probability)",
    ylabel="mean helpfulness gain over refusal",
    title="Same realised risk",
)
ax1.legend(loc="lower right", fontsize=8)
plt.show()

# %% [markdown]
# ## The chapter's own extensions: intents, Hedge and judge estimation
#
# Everything from here to the Cross-check is **not in the paper**. The game is the intents game
# {prf:ref}`safety-game-def-game` — the model against the worst of several query intents, with a safety
# weight $w$ — its payoffs are estimated from repeated judge calls, and it is solved both by LP
# and by batched multiplicative weights. The checks of LP duality and maximin optimality are
# implementation checks (plain assertions); the rates of Hedge and of judge estimation are
# textbook results measured as claims of this chapter (07.6–07.8), not of the paper.
#
# ### E1 · The LP computes the minimax value, and both LPs agree
#
# *Claim* ({prf:ref}`safety-game-thm-minimax`): the row player's LP and the column player's LP have the
# same value, and their solutions are the equilibria that a game-theory library finds by other
# means. We solve both LPs on random games of every size up to $8 \times 8$, and on small games
# compare with nashpy's Lemke–Howson {cite}`lemke1964equilibrium` (all starting labels) and
# support enumeration.

# %%
primal_dual_err = 0.0
for _ in range(N_RANDOM_GAMES):
    m, n = (int(k) for k in rng.integers(1, MAX_SIZE + 1, size=2))
    A = rng.uniform(-1.0, 1.0, (m, n))
    primal_dual_err = max(
        primal_dual_err, abs(zerosum.maximin_lp(A).value - zerosum.minimax_lp(A).value)
    )

nash_err, se_found, lh_found, lh_eq = 0.0, 0, 0, 0
for _ in range(N_NASH_GAMES):
    m, n = (int(k) for k in rng.integers(2, NASH_MAX_SIZE + 1, size=2))
    A = rng.uniform(-1.0, 1.0, (m, n))
    v = zerosum.maximin_lp(A).value
    game = nash.Game(A)
    for x, y in game.lemke_howson_enumeration():
        lh_found += 1
        # an output counts only with a duality gap of zero: plain Lemke-Howson can
        # stop at a vertex that is not an equilibrium (see the chapter's last check)
        if (A @ y).max() - (x @ A).min() < 1e-9:
            nash_err, lh_eq = max(nash_err, abs(x @ A @ y - v)), lh_eq + 1
    with warnings.catch_warnings():
        # nashpy warns when roundoff makes its exact `prob >= 0` test drop an
        # equilibrium
        warnings.filterwarnings(
            "ignore", message=r"\s*An even number of", category=RuntimeWarning
        )
        eqs = list(game.support_enumeration(tol=1e-12))
    se_found += len(eqs) > 0
    for x, y in eqs:
        nash_err = max(nash_err, abs(x @ A @ y - v))

worst = max(primal_dual_err, nash_err)
print(
    f"{N_RANDOM_GAMES} games up to {MAX_SIZE}x{MAX_SIZE}: primal and dual LP values "
    "agree"
)
print(
    f"{N_NASH_GAMES} small games: Lemke-Howson returned {lh_found} profiles, "
    f"{lh_eq} of them equilibria (gap < 1e-9); every equilibrium has the LP value"
)

# %% tags=["nbval-ignore-output"]
# how often support enumeration finds the equilibrium depends on round-off inside nashpy
# (its exact `prob >= 0` test, below), so this count differs between processors
print(f"support enumeration found one in {se_found} of {N_NASH_GAMES} games")

# %%
# LP duality and nashpy agree with the LP: an implementation check, not a claim of the
# paper
assert worst <= 1e-8, f"primal, dual and nashpy values disagree by {worst:.1e}"
print(
    "max |v_primal − v_dual|, |v_LP − v_nashpy|:",
    "< 1e-12" if worst < 1e-12 else f"{worst:.1e}",
)

# %% [markdown]
# Support enumeration can miss the equilibrium (in a few of these games, a count that differs
# between processors): nashpy tests the indifference solution with an exact `prob >= 0`, and a
# zero probability computed as $-10^{-17}$ fails it.
# Lemke–Howson has no such test, but it can stop at a vertex that is not an equilibrium, so
# each of its outputs is first checked by its duality gap {eq}`safety-game-eq-gap`. Every
# equilibrium either method returned matches the LP.
#
# ### E2 · The equilibrium guarantees more than any fixed policy
#
# *Claim* (the paper's motivation): the minimax mixture is the optimal balance between safety
# and helpfulness, in the sense that its worst case over intents is at least that of every
# single candidate and of the two obvious policies, **always safest** (the candidate with the
# least mean risk: the refusal) and **always most helpful** (the candidate with the most mean
# helpfulness). By {prf:ref}`safety-game-thm-minimax` this must hold exactly; we check it on all
# (query, weight) pairs of the simulated benchmark (64 queries × 11 weights at the default
# scale).

# %%
weights = np.linspace(0.0, 1.0, N_WEIGHTS)
safest = R_all.mean(-1).argmin(-1)  # per query
most_helpful = H_all.mean(-1).argmax(-1)
eq_worst = np.zeros((N_WEIGHTS, QUERIES))
pure_worst = np.zeros((N_WEIGHTS, QUERIES, CANDIDATES))
strategies = np.zeros((N_WEIGHTS, QUERIES, CANDIDATES))
for a, w in enumerate(weights):
    A_w = (1 - w) * H_all - w * R_all
    pure_worst[a] = A_w.min(-1)
    for q in range(QUERIES):
        sol = zerosum.maximin_lp(A_w[q])
        eq_worst[a, q], strategies[a, q] = sol.value, sol.strategy
idx = np.arange(QUERIES)
safest_worst, helpful_worst = (
    pure_worst[:, idx, safest],
    pure_worst[:, idx, most_helpful],
)
violations = int((eq_worst < pure_worst.max(-1) - 1e-9).sum())
mixed = (strategies > 1e-6).sum(-1) > 1
gain_pure = (eq_worst - pure_worst.max(-1)).mean()
gain_base = (eq_worst - np.maximum(safest_worst, helpful_worst)).mean()
print(
    f"mean gain over the best single candidate: {gain_pure:.4f}; over the better of "
    "the two "
    f"baselines: {gain_base:.4f}"
)
print(
    "(query, w) pairs where the equilibrium mixes two or more candidates: "
    f"{mixed.mean():.0%}"
)

# %%
# Maximin optimality (true of any LP solution): asserted, not claimed
assert violations == 0, (
    f"{violations} (query, w) pairs where a fixed policy beats the equilibrium"
)
print("(query, w) pairs where a fixed policy beats the equilibrium's worst case: 0")

# %% [markdown]
# The figure shows one query (the one where mixing gains most at $w = 0.5$). Left: the
# helpfulness–safety trade-off. The black curve is the exact Pareto frontier of guaranteed
# helpfulness $\min_j (x^\top H)_j$ against worst-case risk $\max_j (x^\top R)_j$, computed by the
# risk-capped LP `icml26.games.zerosum.max_helpfulness_lp` (the risk-cap form of the paper's
# constrained
# problem) on a grid of caps; the coloured points are the equilibria as $w$ runs from 0 to 1;
# grey crosses are the single candidates. Right: how the equilibrium splits its probability
# among the candidates.

# %% tags=["hide-input"] mystnb={"figure": {"caption": "One query: left, the exact frontier of guaranteed helpfulness against worst-case risk, with the equilibrium as the safety weight $w$ varies; right, the equilibrium's mixed strategy.", "name": "07-fig-frontier"}}
q_star = int((eq_worst[N_WEIGHTS // 2] - pure_worst[N_WEIGHTS // 2].max(-1)).argmax())
Hq, Rq = H_all[q_star], R_all[q_star]
caps = np.linspace(
    0.0, Rq.max(1).max(), N_CAPS
)  # from the refusal to the riskiest answer
frontier = [zerosum.max_helpfulness_lp(Hq, Rq, c) for c in caps]
front_risk = [(s.strategy @ Rq).max() for s in frontier]
front_help = [s.value for s in frontier]
w_dense = np.linspace(0.0, 1.0, 41)
eq_dense = [zerosum.maximin_lp((1 - w) * Hq - w * Rq).strategy for w in w_dense]

fig, (ax0, ax1) = plt.subplots(1, 2, figsize=(7.5, 3.4))
ax0.plot(
    front_risk,
    front_help,
    color="black",
    lw=1.5,
    label="Pareto frontier (risk-capped LP)",
)
pts = ax0.scatter(
    [(x @ Rq).max() for x in eq_dense],
    [(x @ Hq).min() for x in eq_dense],
    c=w_dense,
    cmap="viridis",
    s=28,
    zorder=3,
    label="equilibrium for weight w",
)
ax0.scatter(
    Rq.max(1), Hq.min(1), marker="x", color="grey", s=40, label="single candidates"
)
ax0.annotate("refusal", (0, 0), textcoords="offset points", xytext=(6, 4), fontsize=9)
ax0.set(
    xlabel="worst-case risk max_j xᵀR (probability)",
    ylabel="guaranteed helpfulness min_j xᵀH (probability)",
    title="Equilibria vs the separate-worst-case frontier",
)
fig.colorbar(pts, ax=ax0, label="safety weight w")
ax0.legend(loc="lower right")
ax1.stackplot(
    w_dense,
    np.array(eq_dense).T,
    colors=[icml26.plotting.color(i) for i in range(CANDIDATES)],
    labels=[
        f"candidate {i}" + (" (refusal)" if i == 0 else "") for i in range(CANDIDATES)
    ],
)
ax1.set(
    xlabel="safety weight w",
    ylabel="equilibrium probability",
    title="Mixing appears between the extremes",
    xlim=(0, 1),
    ylim=(0, 1),
)
ax1.legend(loc="center left", bbox_to_anchor=(1.0, 0.5))
plt.show()

# %% [markdown]
# As $w$ grows the equilibrium walks from the most helpful mixture down to the refusal, through
# mixtures that no single candidate offers. At $w = 0$ and for large $w$ it lies on the frontier,
# but for intermediate $w$ it falls *below and to the right* of it: worse on both separate worst
# cases.
# This is not a solver error; the two objects answer different questions. For every mixture $x$,
#
# $$
# \underbrace{\min_j \big[(1-w)(x^\top H)_j - w (x^\top R)_j\big]}_{\text{game: one intent}}
# \ \ge\
# \underbrace{(1-w)\min_j (x^\top H)_j - w \max_j (x^\top R)_j}_{\text{frontier: two worst cases}},
# $$
#
# with equality only when a single intent is both the least appreciative and the most dangerous
# for $x$. The frontier is made of the maximisers of the right-hand side (as the cap varies);
# the equilibrium maximises the left-hand side, which it scores higher, and so it can sit below
# the frontier of the right-hand side. In this query, candidate 4's worst risk comes from the
# malicious intent — the intent that also finds it the most helpful — so no single intent
# realises its separate worst helpfulness and worst risk together, and the equilibrium leans on
# it. The cell below scores the equilibrium at $w = 0.5$ and the frontier point that is best for
# the right-hand side under both criteria. Which notion of "worst case" is right is a modelling
# choice; the game's is the one whose guarantee the LP certifies.

# %%
w_mid = 0.5
x_eq = zerosum.maximin_lp((1 - w_mid) * Hq - w_mid * Rq).strategy


def joint(x: np.ndarray) -> float:
    """The game's guarantee: the worst intent scores helpfulness and risk together."""
    return float(((1 - w_mid) * (x @ Hq) - w_mid * (x @ Rq)).min())


def separate(x: np.ndarray) -> float:
    """The frontier's criterion: the two worst cases taken separately."""
    return float((1 - w_mid) * (x @ Hq).min() - w_mid * (x @ Rq).max())


x_sep = max((f.strategy for f in frontier), key=separate)  # on the grid of caps


for name, x in (("equilibrium", x_eq), ("best frontier point", x_sep)):
    print(
        f"{name:20s} x = {np.round(x, 2)}: game score {joint(x):.4f}, "
        f"two-worst-cases score {separate(x):.4f}"
    )
assert joint(x_eq) >= joint(x_sep) - 1e-12 and separate(x_sep) >= separate(x_eq) - 1e-12

# %% [markdown]
# Over the whole benchmark, the game's guarantee dominates both baselines at every weight — by a
# wide margin in the middle, where neither refusing nor answering in full is right:

# %% tags=["hide-input"] mystnb={"figure": {"caption": "Mean worst-case payoff over queries: the equilibrium's guarantee dominates every fixed policy (best single candidate, always most helpful, always safest) at every weight $w$.", "name": "07-fig-mixing"}}
fig, ax = plt.subplots()
ax.plot(weights, eq_worst.mean(1), marker="o", label="equilibrium (LP)")
ax.plot(
    weights,
    pure_worst.max(-1).mean(1),
    ls="--",
    label="best single candidate (per query)",
)
ax.plot(weights, helpful_worst.mean(1), marker="s", label="always most helpful")
ax.plot(weights, safest_worst.mean(1), marker="^", label="always safest (refusal)")
ax.set(
    xlabel="safety weight w",
    ylabel="mean worst-case payoff over queries",
    title="The equilibrium's guarantee dominates fixed policies at every w",
)
ax.legend()
plt.show()

# %% [markdown]
# ### 07.6 · Extension E3, multiplicative weights: the duality gap falls like $1/\sqrt{T}$
#
# *Claim* ({prf:ref}`safety-game-thm-mwu`): with the horizon-tuned step size, the averaged Hedge
# strategies reach an $\varepsilon$-equilibrium after $O(\log(KJ)/\varepsilon^2)$ rounds, i.e.
# the duality gap falls like $T^{-1/2}$. We run the batched solver on 1024 (default scale) safety
# games ($w = 0.5$) for each horizon $T = 64, \dots, 4096$, and fit the log–log slope of the mean
# gap for $T \ge 128$.

# %%
bench_mwu = zerosum.simulate_benchmark(
    MWU_GAMES, CANDIDATES, INTENTS, generator=gen, device=DEVICE
)
A_mwu = zerosum.payoff_matrix(bench_mwu.helpful, bench_mwu.risk, W_EST)
gaps = []
for T in icml26.progress(MWU_HORIZONS, desc="Hedge horizons"):
    t0 = time.perf_counter()
    res_T = zerosum.mwu(A_mwu, T)  # the last run, T = 4096, is reused in E4
    gaps.append(res_T.gap.cpu().numpy())
    t_mwu = time.perf_counter() - t0
gaps = np.array(gaps)  # (horizons, games)
Ts = np.array(MWU_HORIZONS)
fit = Ts >= MWU_FIT_FROM
slope_T, icpt_T = icml26.stats.loglog_fit(Ts[fit], gaps.mean(1)[fit])
widths = (A_mwu.amax((-2, -1)) - A_mwu.amin((-2, -1))).cpu().numpy()
bound_T = np.array(
    [
        zerosum.mwu_gap_bound(CANDIDATES, INTENTS, int(T), float(widths.mean()))
        for T in Ts
    ]
)
print(
    f"mean gap at T={Ts[-1]}: {gaps.mean(1)[-1]:.4f} (bound for the mean width: "
    f"{bound_T[-1]:.4f})"
)

# %% tags=["claim"]
# fails if: the batched Hedge step or its horizon-tuned rate were wrong (gap not ∝ 1/√T)
icml26.claim(
    "07.6",
    f"Hedge duality gap vs T on {MWU_GAMES} safety games: log-log slope",
    slope_T,
    between=(-0.65, -0.35),
    kind="theorem",
)

# %% [markdown]
# ### E4 · The batched solver matches the LP within its own gap
#
# *Claim*: the duality gap is a certificate — the LP value of every game lies in Hedge's bracket,
# so the midpoint is within half the gap of the exact value. We check all 1024 games of the last
# run ($T = 4096$) against HiGHS.

# %%
t0 = time.perf_counter()
v_lp = np.array([zerosum.maximin_lp(a).value for a in A_mwu.cpu().numpy()])
t_lp = time.perf_counter() - t0
mid, half_gap = res_T.value.cpu().numpy(), res_T.gap.cpu().numpy() / 2
ratio_T = float((np.abs(mid - v_lp) / half_gap).max())
print(
    f"max gap {2 * half_gap.max():.4f}; mean |midpoint − v_LP| "
    f"{np.abs(mid - v_lp).mean():.5f}"
)

# %% tags=["nbval-ignore-output"]
t0 = time.perf_counter()
res_fast = zerosum.mwu(
    A_mwu.float(), 1024, tol=2e-2
)  # certified: every |midpoint − v| ≤ 1e-2
t_fast = time.perf_counter() - t0
assert float(res_fast.gap.max()) <= 2e-2
print(
    f"{MWU_GAMES} games: LP loop took {t_lp:.2f} s, "
    f"batched Hedge (T={Ts[-1]}) took {t_mwu:.2f} s on {DEVICE};\n"
    f"float32 Hedge stopped once every gap ≤ 2e-2 ({res_fast.rounds} rounds) took "
    f"{t_fast:.3f} s: {t_lp / t_fast:.0f}× faster than the LP loop at that certified "
    "accuracy"
)

# %%
# The bracket is a certificate by weak duality: asserted, not claimed
assert ratio_T <= 1.0, "an LP value lies outside Hedge's bracket"
print(
    f"max over {MWU_GAMES} games of |Hedge midpoint − v_LP| / (gap/2): {ratio_T:.3f} ≤ "
    "1"
)

# %% tags=["hide-input"] mystnb={"figure": {"caption": "Batched Hedge: the duality gap falls like $1/\\sqrt T$ over a thousand games (claim 07.6), and the LP value always lies in Hedge's bracket.", "name": "07-fig-hedge"}}
fig, (ax0, ax1) = plt.subplots(1, 2, figsize=(7.5, 3.4))
lo, hi = np.quantile(gaps, 0.1, axis=1), np.quantile(gaps, 0.9, axis=1)
ax0.fill_between(
    Ts, lo, hi, alpha=0.25, color=icml26.plotting.color(0), label="10–90% of games"
)
ax0.loglog(
    Ts, gaps.mean(1), marker="o", color=icml26.plotting.color(0), label="mean gap"
)
ax0.loglog(
    Ts[fit],
    np.exp(icpt_T) * Ts[fit] ** slope_T,
    ls="--",
    color="black",
    label=f"fit, slope {slope_T:.2f}",
)
ax0.loglog(
    Ts,
    bound_T,
    ls=":",
    color=icml26.plotting.color(1),
    label="Theorem bound (mean width)",
)
ax0.set(
    xlabel="rounds T",
    ylabel="duality gap of averaged strategies (payoff units)",
    title="Hedge's gap falls like 1/√T",
)
ax0.legend()
ax1.scatter(half_gap, np.abs(mid - v_lp), s=6, alpha=0.5)
top = half_gap.max() * 1.05
ax1.plot([0, top], [0, top], color="black", lw=1, label="|error| = gap / 2")
ax1.set(
    xlabel="half duality gap (payoff units)",
    ylabel="|Hedge midpoint − LP value|",
    title=f"Every game's LP value is inside its bracket (T={Ts[-1]})",
)
ax1.legend()
plt.show()

# %% [markdown]
# The measured gap sits about a factor of two below the worst-case bound and parallel to it:
# with the theorem's step, Hedge against Hedge is not faster than $T^{-1/2}$ here. The bracket
# is conservative — the midpoint typically errs by a fraction of half the gap.
#
# **Speed, at a stated accuracy.** The LP is exact; Hedge is as accurate as its certificate
# says, and its rounds grow like $1/\varepsilon^2$. So "faster than the LP" only means something
# at a fixed accuracy. At $\pm 10^{-2}$ on the value — below the judge noise of a realistic
# budget (E6 works at $\delta = 0.05$) — the early-stopped float32 run in the timing cell above
# beats the loop of HiGHS calls by one to two orders of magnitude on a 2-core CPU (`make bench`
# records the ratios; they vary with the machine's load), and a larger fixed step $\eta = 1/L$,
# outside the theorem but still certified, stops after about a hundred rounds. At
# $\pm 3.7 \times 10^{-3}$ ($T = 4096$) the advantage shrinks to about $5\times$, and at
# $10^{-3}$ the LP loop would win.
#
# ### 07.7–07.8 · Extension E5, black-box estimation: the value error shrinks like $1/\sqrt{n}$, within the bound
#
# *Claim* ({prf:ref}`safety-game-prop-stability` and {prf:ref}`safety-game-prop-hoeffding`): with
# $n$ judge calls per entry, the value of the estimated game is off by $O(1/\sqrt n)$. For 64
# queries (default scale), two independent judge panels each, we keep querying the judges
# ($n = 32, \dots, 32768$, nested: larger $n$ reuses the earlier calls), solve every estimated
# game by LP and fit the slope of the mean value error for $n \ge 256$.

# %%
H_est = bench.helpful[:EST_QUERIES].repeat(EST_REPEATS, 1, 1)
R_est = bench.risk[:EST_QUERIES].repeat(EST_REPEATS, 1, 1)
A_true = zerosum.payoff_matrix(H_est, R_est, W_EST).cpu().numpy()
v_true = np.array([zerosum.maximin_lp(a).value for a in A_true])
A_hat = (
    zerosum.judge_estimate(H_est, R_est, W_EST, JUDGE_SAMPLES, generator=gen)
    .cpu()
    .numpy()
)
v_hat = np.array(
    [
        [zerosum.maximin_lp(a).value for a in A_n]
        for A_n in icml26.progress(A_hat, desc="judge budgets")
    ]
)
value_err = np.abs(v_hat - v_true)  # (budgets, instances)
est_err = np.abs(A_hat - A_true).max((-2, -1))  # ‖Â − A‖_max
ns = np.array(JUDGE_SAMPLES)
fit_n = ns >= EST_FIT_FROM
slope_n, icpt_n = icml26.stats.loglog_fit(ns[fit_n], value_err.mean(1)[fit_n])
slope_d = icml26.stats.loglog_fit(ns[fit_n], est_err.mean(1)[fit_n])[0]
LP_TOL = (
    1e-9  # absolute slack for the LP's roundoff; vertex solutions err by ~1e-15 here
)
assert (est_err > 0).all()  # every instance has a noisy entry, so the ratio is defined
bound_ratio = float((value_err / est_err).max())
excess = float((value_err - est_err).max())  # ≤ 0 is the proposition
tight = float((value_err >= est_err - LP_TOL).mean())
print(f"slope of mean ‖Â − A‖_max over the same range: {slope_d:.2f}")
print(
    f"median |v̂ − v| / ‖Â − A‖_max: {np.median(value_err / est_err):.2f}; "
    f"instances where the bound is attained (to {LP_TOL:g}): {tight:.1%}; "
    "max of |v̂ − v| − ‖Â − A‖_max: "
    f"{'≤ 1e-12' if excess <= 1e-12 else f'{excess:.1e}'}"
)

# %% tags=["claim"]
# fails if: the value of the estimated game did not inherit the 1/√n rate of the judge
# averages
icml26.claim(
    "07.7",
    "value error |v̂ − v| vs judge calls n ≥ 256: log-log slope",
    slope_n,
    between=(-0.65, -0.35),
    kind="theorem",
)

# %% tags=["claim"]
# fails if: the game value were not 1-Lipschitz in the max-norm of the payoffs
icml26.claim(
    "07.8",
    "max over instances and n of |v̂ − v| / ‖Â − A‖_max",
    bound_ratio,
    at_most=1.0 + LP_TOL,
    kind="theorem",
)

# %% tags=["hide-input"] mystnb={"figure": {"caption": "From noisy judges, the value error shrinks like $1/\\sqrt n$ (claim 07.7) and never exceeds the payoff error $\\lVert \\hat A - A\\rVert_{\\max}$ (claim 07.8).", "name": "07-fig-estimation"}}
fig, ax = plt.subplots()
ax.loglog(
    ns,
    est_err.mean(1),
    marker="s",
    color=icml26.plotting.color(1),
    label="mean ‖Â − A‖_max (the bound)",
)
ax.loglog(
    ns,
    value_err.mean(1),
    marker="o",
    color=icml26.plotting.color(0),
    label="mean |v̂ − v|",
)
ax.loglog(
    ns[fit_n],
    np.exp(icpt_n) * ns[fit_n] ** slope_n,
    ls="--",
    color="black",
    label=f"fit n ≥ {EST_FIT_FROM}, slope {slope_n:.2f}",
)
ax.loglog(
    ns,
    np.quantile(value_err, 0.9, axis=1),
    ls=":",
    color=icml26.plotting.color(0),
    label="90% quantile of |v̂ − v|",
)
ax.axvspan(
    ns[0], EST_FIT_FROM, color="grey", alpha=0.12, label="pre-asymptotic (rare risks)"
)
ax.set(
    xlabel="judge calls per payoff entry n",
    ylabel="error (payoff units)",
    title="The equilibrium value from noisy judges converges like 1/√n",
)
ax.legend(fontsize=8.5)
plt.show()

# %% [markdown]
# Below $n \approx 256$ the curve is flatter than $n^{-1/2}$: many risk probabilities are small
# (a few per cent for benign intents), and a Bernoulli mean with $np \lesssim 1$ errs by about
# $p$ regardless of $n$ — the $1/\sqrt n$ regime of the central limit theorem starts once
# $np \gg 1$. The value error is typically well below the bound $\lVert \hat A - A\rVert_{\max}$
# (a median ratio near a quarter): the bound charges the single worst entry, while the value
# depends on a few entries averaged by the equilibrium strategies. The bound is nevertheless
# *attained* in a few per cent of the instances — games with a pure saddle point whose entry
# happens to be the worst-estimated one — which is why 07.8 reads exactly 1: the proposition
# cannot be improved.
#
# ### E6 · How many judge calls: Hoeffding's sample size
#
# *Claim* ({prf:ref}`safety-game-prop-hoeffding`): $n = \lceil \ln(2KJ/\rho) / (2\delta^2) \rceil$ calls
# per entry make $\lVert \hat A - A \rVert_{\max} \le \delta$, hence $\lvert \hat v - v \rvert \le
# \delta$, for at least a fraction $1 - \rho$ of queries. We draw a fresh benchmark of 1024
# queries and count.

# %%
n_hoeffding = zerosum.hoeffding_samples(
    HOEFFDING_DELTA, HOEFFDING_RHO, CANDIDATES * INTENTS
)
bench_h = zerosum.simulate_benchmark(
    HOEFFDING_QUERIES, CANDIDATES, INTENTS, generator=gen, device=DEVICE
)
A_h = zerosum.payoff_matrix(bench_h.helpful, bench_h.risk, W_EST)
A_h_hat = zerosum.judge_estimate(
    bench_h.helpful, bench_h.risk, W_EST, n_hoeffding, generator=gen
)
dev_h = (A_h_hat - A_h).abs().amax((-2, -1)).cpu().numpy()
within = float((dev_h <= HOEFFDING_DELTA).mean())
print(
    f"δ = {HOEFFDING_DELTA}, ρ = {HOEFFDING_RHO}, K·J = {CANDIDATES * INTENTS} entries "
    "→ "
    f"n = {n_hoeffding} calls per entry; largest ‖Â − A‖_max over queries: "
    f"{dev_h.max():.3f}"
)

# %%
# Hoeffding's inequality at work (a textbook fact): asserted, not claimed
assert within >= 1 - HOEFFDING_RHO, "Hoeffding's sample size missed its confidence"
print(
    f"queries with ‖Â − A‖_max ≤ δ at Hoeffding's n: {within:.3f} (≥ "
    f"{1 - HOEFFDING_RHO:.2f})"
)

# %% [markdown]
# Hoeffding is conservative by design: the largest deviation over a thousand queries is well
# under $\delta$, because scores with small variance (rare risks) concentrate faster than the
# worst case of a $[0, 1]$ variable, and the union bound over $KJ$ entries is loose.
#
# ## Cross-check
#
# Three independent computations of the same equilibria, on the simulated safety games
# themselves ($w = 0.5$), which are *degenerate* — the refusal row is identically zero and
# answers tie — unlike the random games of E1.
#
# 1. HiGHS returns the dual variables of the row LP {eq}`safety-game-eq-primal`; by
#    {prf:ref}`safety-game-thm-minimax` the multipliers of $A^\top x \ge v\mathbf{1}$ *are* a minimax
#    strategy of the column player, so reading them off must reproduce
#    `icml26.games.zerosum.minimax_lp`.
# 2. nashpy's support enumeration (exhaustive over support pairs, so slow: 12 games) and its own
#    LP.
# 3. nashpy's Lemke–Howson from every starting label, each output checked by its duality gap
#    {eq}`safety-game-eq-gap`.

# %%
from scipy.optimize import linprog

A_cross = (1 - W_EST) * H_all[:N_CROSS] - W_EST * R_all[:N_CROSS]
dual_err, se_err, nlp_err, se_games, lh_valid, lh_runs = 0.0, 0.0, 0.0, 0, 0, 0
for A in A_cross:
    K, J = A.shape
    res = linprog(
        np.r_[np.zeros(K), -1.0],
        A_ub=np.c_[-A.T, np.ones(J)],
        b_ub=np.zeros(J),
        A_eq=np.r_[np.ones(K), 0.0][None],
        b_eq=[1.0],
        bounds=[(0, None)] * K + [(None, None)],
        method="highs",
    )
    y_dual = -res.ineqlin.marginals  # multipliers of Aᵀx ≥ v1 (scipy reports them ≤ 0)
    v = zerosum.maximin_lp(A).value
    dual_err = max(dual_err, abs((A @ y_dual).max() - zerosum.minimax_lp(A).value))
    game = nash.Game(A)
    with warnings.catch_warnings():
        warnings.filterwarnings(
            "ignore", category=RuntimeWarning
        )  # nashpy's degeneracy notices
        eqs = list(game.support_enumeration(tol=1e-12))
        lh = list(game.lemke_howson_enumeration())
    se_games += len(eqs) > 0
    for x, y in eqs:
        se_err = max(se_err, abs(x @ A @ y - v), (A @ y).max() - (x @ A).min())
    x, y = game.linear_program()
    nlp_err = max(nlp_err, abs(x @ A @ y - v))
    for x, y in lh:
        lh_runs += 1
        ok = np.isfinite(x).all() and np.isfinite(y).all()
        lh_valid += bool(ok and (A @ y).max() - (x @ A).min() < 1e-9)
print(f"{N_CROSS} safety games at w = {W_EST}:")
print(f"  HiGHS dual multipliers reproduce the minimax value: {dual_err < 1e-9}")
print(f"  support enumeration: equilibria with gap 0 and the LP value: {se_err < 1e-9}")
print(f"  nashpy linear_program agrees with zerosum.maximin_lp: {nlp_err < 1e-8}")

# %% tags=["nbval-ignore-output"]
# these counts depend on round-off inside nashpy on tied payoffs (support enumeration's
# exact `prob >= 0` test, Lemke-Howson's pivoting), so they differ between processors
print(f"support enumeration found equilibria in {se_games} of {N_CROSS} games")
print(f"Lemke-Howson outputs that are equilibria (gap < 1e-9): {lh_valid} of {lh_runs}")
# the text below says so; checked here, as the counts are not compared
assert 2 * lh_valid < lh_runs, "most Lemke-Howson outputs were equilibria"

# %% [markdown]
# Lemke–Howson's outputs on these games are mostly **not** equilibria: without lexicographic
# pivoting, its complementary pivoting is ill-defined under ties, and nashpy's implementation
# returns whatever vertex it stops at. On E1's random games up to $4 \times 4$ every one of
# its outputs is an equilibrium; on the paper scale's games up to $5 \times 5$ some are not.
# The lesson for an agent that calls a solver at inference time is the one
# of {prf:ref}`safety-game-def-gap`: the duality gap is a one-line certificate — check it.

# %% [markdown]
# ## Limits of this reproduction
#
# - **No language model.** The paper's candidates are sampled from open LLMs and scored by
#   probes on HHH, TruthfulQA and SafetyBench (secondary sources list, for one unknown setting,
#   SafetyBench accuracy 60.1, HHH 72.9, TruthfulQA 54.7, and a gain of about 15 % on
#   SafetyBench over baselines). Here candidates and probe readings are simulated
#   (`icml26.games.budgeted.simulate_candidates`, `icml26.games.budgeted.probe`) and the LP is
#   solved directly. The paper's headline empirical claim is **not tested**.
# - **What is tested** is the paper's formulation: the reduction of the game to the budgeted LP
#   and its threshold $\beta \ge \lambda^\star$ (07.1–07.2, our derivation of "$\beta$ large
#   enough"), the $T - 2\varepsilon$ rule (07.3), and the comparison with a threshold filter
#   (07.4–07.5). The first three are theorems and hold exactly, each with its control failing
#   (β = λ*/2, β = 1.1 λ*, the LP at $T$). 07.4–07.5 reproduce the paper's comparison and its
#   mechanism at the same *budget*, on each of 5 independently simulated pools, but at the same
#   *realised risk* — the control of 07.4 — the game does not beat the filter in our simulator
#   (it is behind by 0.002 to 0.011 on every pool). On the read scores the game cannot lose at
#   equal budget (the filter's pick is feasible for the LP), so 07.4 is measured on the true
#   scores, where it could; that it holds there says the probe noise does not undo the game's
#   extra helpfulness, not that the game buys helpfulness more cheaply than a tuned filter.
# - **Penalty version.** We follow the hinge penalty of the ICML-era description; the sigmoid
#   penalty of an earlier version is not implemented. $T$ is fixed here; the paper tunes it per
#   task on a development set.
# - **The extensions** (intents game, Hedge, judge estimation; 07.6–07.8) are not in the paper.
#   In our simulator the equilibrium's gain over the best *single* candidate is small (a few
#   thousandths on average): most queries have a dominant candidate, and the equilibrium mixes
#   in about a quarter of the (query, weight) pairs. The gain over the fixed baselines is large.
# - **Scale.** $K = 6$ candidates and $J = 4$ intents; the paper's candidate sets are of similar
#   size, but real judges are neither independent nor unbiased, which {eq}`safety-game-eq-estimate` assumes.
# - **Speed was measured on CPU only.** The batched solver is written to run on a GPU, but its
#   advantage over the LP loop was timed on a 2-core CPU; the GPU case is not tested here.
#
# **Paper scale.** `ICML26_SCALE=paper` runs ten times the prompts, ten pools instead of five,
# twice the budget grid, LP checks on 2000 games up to $12 \times 12$ and nashpy checks on
# games up to $5 \times 5$, 64 safety games in the cross-check, and Hedge on 8192 games to
# $T = 16\,384$. It is still the simulated candidate pool, not the paper's LLMs and benchmarks,
# and needs no GPU. Its record gives its claim lines and the verdicts that differ from this
# run's:

# %%
from icml26.pipeline import paper

paper.show("07-safety-game")

# %% [markdown]
# ## Exercises
#
# ````{exercise} The price of the T − 2ε rule
# :label: safety-game-ex-robust-price
#
# (a) Show that the helpfulness lost per prompt by solving at $T - 2\varepsilon$ instead of $T$
# (both with true scores) is at most $2\varepsilon\,\lambda^\star(T - 2\varepsilon)$, the
# smallest optimal multiplier at the tightened budget. (b) Check it on the pool of 07.3 with
# `icml26.games.budgeted.budgeted_lp` for $\varepsilon = 0.02$. (c) Why can no rule that only
# sees readings within $\varepsilon$ guarantee true risk $\le T$ with a smaller margin?
# ````
#
# ````{solution} safety-game-ex-robust-price
# :class: dropdown
#
# (a) The optimum $h(t)$ is concave in the budget, so $h(T) - h(T - 2\varepsilon) \le
# 2\varepsilon\, h'((T - 2\varepsilon)^+)$, and the right derivative is the smallest optimal
# multiplier there ({prf:ref}`safety-game-thm-reduction`, proof of (iii)). (b) The inequality holds on
# every prompt, with equality on those whose optimal pair does not change between the two
# budgets (the frontier is linear there). (c) Readings $\hat r_i = r_i - \varepsilon$ for a risky
# answer and $\hat r_s = r_s + \varepsilon$ for the refusal are consistent with the data and
# hide $2\varepsilon$ of extra risk; a rule with a margin below $2\varepsilon$ that spends its
# budget (as the LP does whenever the budget binds) exceeds $T$ on such readings.
# ````
#
# ````{exercise} Fixed step size
# :label: safety-game-ex-fixed-eta
#
# Run `icml26.games.zerosum.mwu(A_mwu, T, eta=eta)` with a fixed step, $\eta = 0.05$ and $\eta =
# 2$, for the
# horizons of experiment E3 extended to $T = 16384$, instead of the horizon-tuned step; do the
# same on 1024 random $4 \times 4$ games `torch.rand(1024, 4, 4, dtype=torch.float64) * 2 - 1`.
# Predict the shape of the mean and maximum gap curves from the regret bound before plotting,
# then compare.
# ````
#
# ````{solution} safety-game-ex-fixed-eta
# :class: dropdown
#
# *Prediction.* With a fixed step (in units of $1/L$, as `mwu` scales it) the regret bound gives
# $\operatorname{gap} \lesssim L\,[\ln(KJ)/(\eta T) + \eta/4]$: a $1/T$ decay, then a **floor** of
# order $\eta L$ that does not shrink with $T$. The $1/\sqrt T$ rate of {prf:ref}`safety-game-thm-mwu`
# comes from balancing the two terms, $\eta \propto 1/\sqrt T$; a schedule
# $\eta_t \propto 1/\sqrt t$ gets the same rate without knowing $T$.
#
# *What one measures.* With $\eta = 0.05$ the curve falls like $1/T$ over the whole range
# (slope close to $-1$): it starts far above the tuned curve and crosses it near $T \approx 5000$,
# where $0.05$ *is* the tuned step. The floor is a worst case over opponents: Hedge against
# Hedge, on these games, keeps going below it. With $\eta = 2$ the start is much faster, but
# the iterates of Hedge against Hedge spiral away from an interior equilibrium towards the
# boundary of the simplex {cite}`bailey2018multiplicative`. In our runs, on the random games
# the *maximum* gap falls until $T = 4096$ and then jumps by more than an order of magnitude by
# $T = 16384$ (the mean gap rises too); on the safety games (many with a pure saddle point) the
# mean keeps falling but the maximum jumps as well. A large fixed
# step is fine only with the certificate checked — which is what `tol=` does.
# ````
#
# ````{exercise} The stability bound is tight, and when it is loose
# :label: safety-game-ex-tight
#
# (a) Give a game and a perturbation with $\lvert v(\hat A) - v(A)\rvert = \lVert \hat A -
# A\rVert_{\max}$. (b) Suppose the equilibrium $(x^\star, y^\star)$ of $A$ is unique and
# $\hat A - A = E$ is small. Argue that $v(\hat A) - v(A) \approx x^{\star\top} E y^\star$, and
# use it to explain why experiment 07.7 finds the value error far below the bound.
# ````
#
# ````{solution} safety-game-ex-tight
# :class: dropdown
#
# (a) Any $A$ and $\hat A = A + \delta\mathbf{1}\mathbf{1}^\top$: every payoff moves by $\delta$,
# so $v$ does too. (b) For a unique, non-degenerate equilibrium the supports of the optimal
# strategies do not change under a small perturbation, and on those supports the equilibrium
# solves a linear system; to first order the value moves by $x^{\star\top} E y^\star$ (an
# envelope/Danskin argument). With independent entry errors of standard deviation
# $\sigma_{ij}/\sqrt n$, this has standard deviation $\sqrt{\sum_{ij} x_i^{\star2} y_j^{\star2}
# \sigma_{ij}^2}/\sqrt n$ — an *average* of entry errors, while $\lVert E\rVert_{\max}$ is the
# *maximum* of $KJ$ of them (larger by about $\sqrt{2\ln(KJ)}$). Both shrink like $1/\sqrt n$, as
# 07.7 measures.
# ````
#
# ````{exercise} The bounded multiplier
# :label: safety-game-ex-multiplier
#
# For one query of the benchmark take the malicious intent, $M = $ `H_all[q, :, -1]`,
# $r = $ `R_all[q, :, -1]` and a cap $\tau = 0.1$. Compare
# `icml26.games.zerosum.max_helpfulness_lp(M[:, None],
# r[:, None], 0.1)` with `icml26.games.zerosum.maximin_lp(zerosum.multiplier_game(M, r, 0.1, lam))`
# for
# $\bar\lambda \in \{0.1, 1, 10, 100\}$. When do they agree? What does the equilibrium do when
# $\bar\lambda$ is too small?
# ````
#
# ````{solution} safety-game-ex-multiplier
# :class: dropdown
#
# They agree once $\bar\lambda$ exceeds the optimal multiplier $\lambda^\star$ of the risk cap
# ({prf:ref}`safety-game-thm-reduction`, with $\bar\lambda$ in the role of $\beta$) — the extra helpfulness bought per unit of extra risk at the
# optimum (the slope of the helpfulness–risk frontier at the cap). On the 64 queries of our
# benchmark $\bar\lambda = 10$ suffices for every one, $\bar\lambda = 1$ for fewer than a
# third. Below $\lambda^\star$ the penalty is too cheap: the agent prefers to exceed the cap
# and pay $\bar\lambda$ per unit of excess risk, so the multiplier game's equilibrium is
# riskier than $\tau$ and its value exceeds the constrained optimum.
# Bounding the multiplier thus turns the hard cap into a soft one; the sigmoid penalty of the
# paper's earlier version softens it further.
# ````
#
# ````{exercise} Budgeting judge calls
# :label: safety-game-ex-budget
#
# (a) With `icml26.games.zerosum.hoeffding_samples`, how many calls per entry guarantee $\lvert
# \hat v - v\rvert
# \le 0.01$ with probability $0.99$ for $K = 6$, $J = 4$? (b) How does the answer scale with
# $K$ and with $\delta$? (c) Replace Hoeffding by Bernstein's inequality for entries whose score
# variance is $\sigma^2 \ll 1/4$ and estimate the saving.
# ````
#
# ````{solution} safety-game-ex-budget
# :class: dropdown
#
# (a) $n = \lceil \ln(2 \cdot 24/0.01)/(2 \cdot 10^{-4}) \rceil = \lceil 8.476/0.0002\rceil =
# 42\,382$ calls per entry, about a million in total per query — which is why the black-box
# setting needs cheap judges, or smaller $K$. (b) Only logarithmically in $K$ (through the
# union bound), but as $1/\delta^2$ in the accuracy. (c) Bernstein gives $n \approx
# (2\sigma^2/\delta^2 + 2/(3\delta)) \ln(2KJ/\rho)$; for $\sigma^2 = 0.05$ and $\delta = 0.01$
# that is about $(1000 + 67) \cdot 8.48 \approx 9\,000$, a saving of nearly $5\times$ —
# consistent with the slack measured in E6.
# ````
#
# ## Summary
#
# - The paper's safety game — a model against a chance-drawn benign or adversarial user, scores
#   relative to the refusal, a risk budget $T$ — is the $K \times 2$ matrix game
#   {eq}`safety-game-eq-game-matrix`, and for $\beta \ge \lambda^\star$ its maximin strategy is the
#   solution of one budgeted LP (07.1); below $\lambda^\star$ it overspends the budget (07.2).
# - With probe errors bounded by $\varepsilon$, solving at $T - 2\varepsilon$ keeps the true
#   risk within $T$ on every prompt; solving at $T$ overspends on about a third (07.3).
# - At the same budget the game beats a threshold filter, mostly through borderline answers
#   (07.4–07.5); at the same realised risk, in our simulator, it does not.
# - *Extensions of the chapter:* the intents game's maximin mixture guarantees at least as much
#   as any single answer or fixed policy (E2).
# - Its value and both players' strategies are one LP and its dual (E1), cross-checked with
#   nashpy and HiGHS's dual multipliers.
# - Batched multiplicative weights solves a thousand games at once; its duality gap falls like
#   $1/\sqrt T$ (07.6) and certifies the answer: the LP value lies inside every bracket (E4).
#   It beats a loop of LP calls at the modest accuracy ($\pm 10^{-2}$) that judge noise warrants,
#   not at LP precision.
# - From noisy judges, the value error is at most $\lVert \hat A - A\rVert_{\max}$ (07.8) and
#   shrinks like $1/\sqrt n$ (07.7); Hoeffding's $n$ guarantees a target accuracy (E6).
# - Not reproduced: the LLM experiments of the paper and the sigmoid penalty of its earlier version.
