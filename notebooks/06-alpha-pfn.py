# %% [markdown]
# # 06 · alpha-pfn — Amortized entropy search with prior-data fitted networks
#
# ## Overview
#
# Bayesian optimisation (BO) finds the maximum of an expensive black box $f$ with few
# evaluations: a probabilistic model of $f$ is fitted to the observations so far, and an
# *acquisition function* scores where to evaluate next. The most principled acquisitions are
# the **entropy-search** family: they pick the point whose observation is expected to tell us
# the most about the optimum — its location $x^\star$ (ES/PES), its value $f^\star$ (MES) or both
# (JES). They are also the most expensive: each evaluation of the acquisition averages an entropy
# reduction over samples of the unknown optimum, and with a fully Bayesian GP it also averages
# over hyper-parameters by MCMC. {cite:t}`rakotoarison2026alphapfn` remove that cost at inference
# time. A **prior-data fitted network** (PFN, {cite}`muller2022pfn`) is a transformer trained on
# datasets sampled from a prior; it outputs the posterior predictive in one forward pass. The
# α-PFN trains a second network whose *output is the acquisition value itself*: it is trained to
# predict, from the data $D$ and a candidate $x$, the entropy reduction that knowing the **true**
# optimum of the sampled task would give. Proposition 4.1 of the paper shows that the mean of the
# learnt distribution is then the entropy-search acquisition — the expectation over optima has
# moved from inference time into the training data.
#
# The paper trains the base PFN and three α-PFN heads (PES, MES, JES) for about a GPU-day each on
# some 100 million synthetic datasets of dimension 1–6, and reports BO performance on par with
# GP-based entropy search under the same prior, with acquisition speed-ups between about 2× and
# 72× depending on the problem and the baseline's Monte-Carlo settings. This chapter rebuilds the
# construction at a scale that trains in seconds on a CPU: a one-dimensional GP prior on a grid,
# an exact "oracle" posterior in place of the base PFN, a small permutation-invariant α-network
# trained on a few thousand labels, and the full chain of checks — the exact entropy of the bar
# distribution, Proposition 4.1 on a regression with a known answer, agreement of the amortised
# acquisition with Monte-Carlo entropy search *in nats*, against expected improvement (EI) as
# the control that ignores entropy search, BoTorch's three entropy-search acquisitions, speed,
# and BO regret.
#
# By the end you will be able to: write PES, MES and JES as mutual informations and estimate them
# by grouping posterior samples; compute the exact entropy and mean of a bar distribution; prove
# that an NLL-trained bar head learns a conditional law (and that its **mean**, not its mode, is
# the acquisition); and build, train and run an amortised entropy-search acquisition.
#
# ```{admonition} What the paper states, and what this chapter reconstructs
# :class: warning
#
# **From the paper and its released code:** the entropy-search definitions; the two-stage
# construction (a conditional base PFN $q(y \mid x, D, I)$ that takes the optimum information $I$
# as an extra context token; labels $\tilde\alpha = H(q(y\mid D,x)) - H(q(y\mid D,x,I))$ with the
# task's *true* optimum; a bar-distribution head trained by NLL, read out by its mean);
# Proposition 4.1; the bar distribution with half-normal tails; the training scale and the
# speed-up range. The runtime table was read in a secondary summary of the paper, and the ICML and
# earlier versions quote different ranges ("beyond 50×" vs "at least 12×").
#
# **Reconstructed here:** everything at toy scale. The base PFN is replaced by the *exact* GP
# posterior with grouped posterior samples (so the labels are exact up to Monte-Carlo and binning
# error, not a network's approximation); the paper's transformer is replaced by a small DeepSets
# network over (candidate, context point) pairs; contexts are uniform on $[0,1]$, whereas the
# paper generates BO-like trajectories with a heuristic we do not know. The experiment is 1-D
# with fixed GP hyper-parameters; the paper's prior samples hyper-parameters and dimension. Of
# the paper's three heads (PES, MES, JES) the chapter trains the PES head, for the reason given
# in {ref}`alpha-pfn-when-es-differs`. At `ICML26_SCALE=paper` a further section
# ({ref}`alpha-pfn-paper-bo`) runs the paper's kind of experiment at small scale: an MES head
# per dimension on a prior with sampled length-scales in two and three dimensions, and BO on
# Branin and Hartmann-3 against BoTorch's GP-based MES and EI.
# ```
#
# ## Setting and notation
#
# | symbol | meaning |
# |---|---|
# | $f : [0,1] \to \mathbb{R}$ | the black box, maximised; a draw from the prior |
# | $y = f(x) + \varepsilon$, $\varepsilon \sim \mathcal N(0, \sigma_n^2)$ | a noisy observation |
# | $D = \{(x_j, y_j)\}_{j \le n}$ | the data (context), $n$ points |
# | $x^\star = \arg\max f$, $f^\star = \max f$ | the optimum and its value |
# | $I \in \{x^\star, f^\star, (x^\star, f^\star)\}$ | the optimum information (PES, MES, JES) |
# | $H[p]$ | differential entropy of a density $p$, in nats |
# | $\alpha_I(x)$ | entropy-search acquisition for information $I$ |
# | $\tilde\alpha(D, x, I)$ | the α-PFN's training label for one task |
# | $a_\theta(\cdot \mid x, D)$ | the α-network's predicted distribution of $\tilde\alpha$ |
# | $\beta_0 < \dots < \beta_B$, $w_b = \beta_b - \beta_{b-1}$ | bar-distribution borders and widths |
# | $p_b$ | probability of bucket $b$ (softmax of the logits) |
# | $G$, $M$ | grid size of the toy domain; number of posterior samples |
# | $\mathrm{EI}(x)$ | expected improvement over the best observation (the control) |
#
# The toy prior is a zero-mean GP with RBF kernel, length-scale $\ell = 0.15$, output variance 1
# and noise $\sigma_n = 0.1$, sampled exactly on a grid of $G$ points.

# %% [markdown]
# ## Theory
#
# ### Entropy search
#
# ```{prf:definition} The entropy-search family
# :label: alpha-pfn-def-es
#
# Given data $D$, the entropy-search acquisition for optimum information $I$ is the mutual
# information between the next noisy observation $y$ at $x$ and $I$:
#
# $$
# \alpha_I(x) = H\big[p(y \mid D, x)\big] -
#   \mathbb{E}_{I \sim p(I \mid D)} H\big[p(y \mid D, x, I)\big].
# $$ (alpha-pfn-eq-es)
#
# $I = x^\star$ gives entropy search / predictive entropy search {cite}`hennig2012es,hernandezlobato2014pes`
# (ES and PES are the same mutual information written two ways), $I = f^\star$ max-value entropy
# search (MES, {cite}`wang2017mes`) and $I = (x^\star, f^\star)$ joint entropy search (JES,
# {cite}`hvarfner2022jes`).
# ```
#
# With a GP, $p(y \mid D, x) = \mathcal N(\mu(x), \sigma^2(x) + \sigma_n^2)$ exactly, but the
# conditional $p(y \mid D, x, I)$ has no closed form; PES, MES and JES differ mainly in how they
# approximate it. A consistent Monte-Carlo estimator, the reference of this chapter, draws $M$
# joint posterior functions $f_1, \dots, f_M$, groups them by the bin of their optimum, and
# treats $y$ at $x$ as a mixture of $\mathcal N(f_m(x), \sigma_n^2)$ within each group.
#
# ```{prf:lemma} Grouped estimators measure a lower bound
# :label: alpha-pfn-lem-binning
#
# Let $g(I)$ be any function of the optimum information (a bin index). Then
# $0 \le \mathrm{MI}(y; g(I)) \le \mathrm{MI}(y; I) = \alpha_I(x)$. The grouped estimator
#
# $$
# \begin{aligned}
# \hat\alpha(x) = {} & H\Big[\tfrac1M \textstyle\sum_m \mathcal N(f_m(x), \sigma_n^2)\Big] \\
# & - \sum_g \tfrac{n_g}{M}\,
#   H\Big[\tfrac1{n_g} \textstyle\sum_{m \in g} \mathcal N(f_m(x), \sigma_n^2)\Big]
# \end{aligned}
# $$ (alpha-pfn-eq-grouped)
#
# is exactly $\mathrm{MI}(y; g(I))$ under the empirical distribution of the samples, so it is
# non-negative for every $M$ and converges to $\mathrm{MI}(y; g(I))$ as $M \to \infty$.
# ```
#
# ```{prf:proof}
# $y - I - g(I)$ is a Markov chain ($y$ depends on $g(I)$ only through $I$), so the
# data-processing inequality gives $\mathrm{MI}(y; g(I)) \le \mathrm{MI}(y; I)$. Under the
# empirical measure (uniform over $m$, $y \mid m \sim \mathcal N(f_m(x), \sigma_n^2)$), the
# marginal of $y$ is the full mixture and $y \mid g$ is the within-group mixture with weight
# $n_g/M$; {eq}`alpha-pfn-eq-grouped` is then $H[y] - H[y \mid g]$, a mutual information, which is
# non-negative by concavity of entropy. Consistency follows from the law of large numbers for each
# group's mixture density.
# ```
#
# Coarse bins therefore bias entropy search *low*, and refining the bins can only raise it
# ({ref}`alpha-pfn-ex-bins`). A finite $M$ biases it the other way: a mixture of few samples is
# lumpier than the density it stands for, so its entropy is too small, and more so for the small
# within-group mixtures than for the full one. Both the labels and the references of this
# chapter use the same estimator; its two biases are stated wherever values are compared.
#
# ### Bar distributions
#
# ```{prf:definition} Bar (Riemann) distribution
# :label: alpha-pfn-def-bar
#
# Fix borders $\beta_0 < \beta_1 < \dots < \beta_B$. Logits $z \in \mathbb R^B$ give bucket
# probabilities $p = \operatorname{softmax}(z)$ and the **interior** density
# $q(y) = p_b / w_b$ for $y \in (\beta_{b-1}, \beta_b]$. The **full-support** version used by
# PFNs replaces the two outer buckets by half-normal tails anchored at their inner border, with
# scale $s = w / \Phi^{-1}(3/4) \approx 1.4826\, w$ (half of the tail's mass lies inside the
# bucket). Its mean is $\sum_b p_b m_b$ with $m_b$ the bucket midpoint (tails:
# $\beta_1 - s\sqrt{2/\pi}$ and $\beta_{B-1} + s\sqrt{2/\pi}$).
# ```
#
# ```{prf:proposition} Exact entropy of a bar distribution
# :label: alpha-pfn-prop-bar-entropy
#
# The differential entropy of a bar distribution is
#
# $$
# \begin{aligned}
# H[q] &= -\sum_b p_b \log p_b + \sum_b p_b H_b, \\
# H_b &= \log w_b \ \text{(interior)}, \qquad
# H_b = \tfrac12 \log\!\big(\tfrac{\pi e s^2}{2}\big) \ \text{(half-normal tail)}.
# \end{aligned}
# $$ (alpha-pfn-eq-bar-entropy)
#
# If the bar is the bucket average $\bar p$ of a density $p$ (that is $p_b = \int_b p$), then
# $H[\bar p] - H[p] = \mathrm{KL}(p \,\Vert\, \bar p) \ge 0$: a bar approximation never
# underestimates the entropy, and the excess vanishes as the buckets shrink.
# ```
#
# ```{prf:proof}
# Write $q = \sum_b p_b u_b$ with $u_b$ the normalised shape on bucket $b$ (uniform, or
# half-normal for a tail). The supports are disjoint, so
# $-\int q \log q = -\sum_b \int_b p_b u_b (\log p_b + \log u_b) = -\sum_b p_b \log p_b +
# \sum_b p_b H[u_b]$; a uniform density on width $w$ has entropy $\log w$ and a half-normal of
# scale $s$ has $\frac12\log(\pi e s^2/2)$. For the second statement, $\bar p$ is constant on
# every bucket, so $-\int p \log \bar p = -\sum_b p_b \log(p_b/w_b) = H[\bar p]$ and hence
# $H[\bar p] - H[p] = \int p \log(p / \bar p) = \mathrm{KL}(p \Vert \bar p)$.
# ```
#
# ### The α-PFN
#
# ```{prf:definition} The α-PFN label and loss
# :label: alpha-pfn-def-alpha
#
# Sample a task $f$ from the prior, data $D$ and a candidate $x$, and let $I$ be the task's own
# optimum information. With a conditional model $q(y \mid x, D, I)$ of the posterior predictive
# (the paper's stage-1 PFN; here the exact GP with grouped samples), the label is
#
# $$
# \tilde\alpha(D, x, I) = H\big[q(y \mid D, x)\big] - H\big[q(y \mid D, x, I)\big].
# $$ (alpha-pfn-eq-label)
#
# The α-network $a_\theta(\cdot \mid x, D)$ is a bar distribution over $\tilde\alpha$, trained by
# $\ell(\theta) = \mathbb E_{D, x, I}\big[-\log a_\theta(\tilde\alpha(D,x,I) \mid x, D)\big]$. The
# acquisition is the **mean** of $a_\theta$.
# ```
#
# Because $D$ was generated by the same $f$ whose optimum is $I$, the task's $I$ is — marginally
# over tasks — a draw from $p(I \mid D)$. That is the whole trick: no sampling of optima is needed
# when the acquisition is evaluated. (It requires the context points to be placed without
# looking at the true optimum; a trajectory heuristic that peeks at $x^\star$ would bias the
# labels.) A single label can be **negative**: conditioning on one particular optimum can make
# $y$ *more* uncertain. Only the average is a mutual information, so the bar must cover negative
# values and nothing should be clamped.
#
# ```{prf:proposition} The NLL is an expected KL (the paper's Proposition 4.1)
# :label: alpha-pfn-prop-nll
#
# Let $p(\tilde\alpha \mid D, x)$ be the conditional law of the label. Then
#
# $$
# \begin{aligned}
# \ell(\theta) = {} & \mathbb E_{D, x}\Big[\mathrm{KL}\big(p(\cdot \mid D, x)
#   \,\Vert\, a_\theta(\cdot \mid x, D)\big)\Big] \\
# & + \mathbb E_{D,x}\, H\big[p(\cdot \mid D, x)\big],
# \end{aligned}
# $$ (alpha-pfn-eq-nll-kl)
#
# the second term free of $\theta$. A minimiser matches the conditional law, and its mean is
#
# $$
# \begin{aligned}
# \mathbb E_{a_\theta}[\tilde\alpha] &= \mathbb E_{I \sim p(I\mid D)}\,\tilde\alpha(D, x, I) \\
# &= H[q(y \mid D, x)] - \mathbb E_{I \sim p(I\mid D)} H[q(y \mid D, x, I)],
# \end{aligned}
# $$ (alpha-pfn-eq-mean)
#
# which is {eq}`alpha-pfn-eq-es` under the model $q$. With fixed borders the best bar puts mass
# $P(\tilde\alpha \in b \mid D, x)$ on bucket $b$; its mean is then biased by at most half the
# widest interior bucket.
# ```
#
# ```{prf:proof}
# For fixed $(D, x)$, $-\log a = -\log p + \log(p / a)$; taking the expectation over
# $\tilde\alpha \sim p(\cdot \mid D, x)$ gives $H[p(\cdot\mid D,x)] + \mathrm{KL}(p \Vert a)$, and
# averaging over $(D, x)$ gives {eq}`alpha-pfn-eq-nll-kl`. The KL is zero iff $a = p$ (for a flexible
# enough family), so the mean of the minimiser is the conditional mean of the label, which by the
# tower rule is {eq}`alpha-pfn-eq-mean` ($I$ being distributed as $p(I \mid D)$ given $D$). For a bar
# family with fixed borders, the KL to a bar with masses $r_b$ is minimised by
# $r_b = \int_b p$ (Gibbs' inequality on the bucket masses); the bar's mean places each bucket's
# mass at its midpoint instead of its conditional mean, an error of at most $w_b / 2$ per bucket.
# ```
#
# The proposition is what makes the construction work — and what makes it fail in two visible
# ways: reading out the **mode** or median of $a_\theta$ gives a different function, and a
# Gaussian head cannot represent the skewed, partly negative law of $\tilde\alpha$, so its NLL
# stays away from the conditional entropy.
#
# **Why it is fast.** Reference entropy search needs, at every BO step, $M$ posterior samples
# (or optimal samples found by optimisation, as in BoTorch's JES/PES), and per candidate a
# mixture entropy per group. The α-network needs one forward pass per candidate batch; the
# optima were sampled once, offline, when the training labels were made.
#
# (alpha-pfn-when-es-differs)=
# ### When entropy search and expected improvement differ
#
# Expected improvement over the best observation $y^+$,
# $\mathrm{EI}(x) = \sigma(x)\,[\varphi(z) + z\,\Phi(z)]$ with $z = (\mu(x) - y^+)/\sigma(x)$,
# is a function of the posterior mean and standard deviation *at $x$ alone*, increasing in both.
# MES in its usual closed-form approximation is too: it treats $f(x) \mid f^\star$ as a Gaussian
# truncated at $f^\star$, so its value at $x$ depends on $\mu(x)$, $\sigma(x)$ and the law of
# the one number $f^\star$, and it also grows with both. The two therefore rank candidates much
# alike, and a test of "the network learnt MES" can be passed by a network that learnt something
# EI-like. PES asks *where* the maximum is. Its value at $x$ depends on how an observation there
# moves the posterior everywhere else — the correlations of the GP — and it can be large at a
# point with a mediocre mean that separates two candidate peaks, or small at a high point whose
# neighbourhood is already known. The experiments measure how closely EI tracks each reference
# (table in {ref}`alpha-pfn-es-vs-ei`), and the chapter trains the **PES head**, whose target EI
# follows least.

# %% tags=["hide-input"]
import copy
import math
import time
import warnings

import matplotlib.pyplot as plt
import numpy as np
import torch
from alphapfn.model.bar_distribution import BarDistribution, FullSupportBarDistribution
from botorch.acquisition.joint_entropy_search import qJointEntropySearch
from botorch.acquisition.max_value_entropy_search import qMaxValueEntropy
from botorch.acquisition.predictive_entropy_search import qPredictiveEntropySearch
from botorch.acquisition.utils import get_optimal_samples
from scipy import integrate, special, stats

import icml26
from icml26.bayesopt import pfn
from icml26.stats import stream

SEED = 6
rng = icml26.seed_everything(SEED)
icml26.plotting.use_book_style()
torch.set_num_threads(1)  # tiny networks: one thread is fastest on a shared CPU
warnings.filterwarnings("ignore", message=".*input data is not standardized.*")

# %% tags=["parameters", "hide-input"]
GRID = icml26.pick(ci=64, paper=128)  # G: grid points on [0, 1]
LENGTHSCALE = icml26.pick(ci=0.15, paper=0.15)  # ℓ of the RBF prior
VARIANCE = icml26.pick(ci=1.0, paper=1.0)  # output variance of the prior
NOISE_SD = icml26.pick(ci=0.1, paper=0.1)  # σ_n
N_CTX = icml26.pick(ci=(2, 16), paper=(2, 16))  # context size n ~ U{lo..hi}
BINS = icml26.pick(ci=16, paper=32)  # optimum bins of the grouped estimator
Y_POINTS = icml26.pick(ci=64, paper=96)  # quadrature nodes of a mixture entropy
TRAIN_SETS = icml26.pick(ci=256, paper=2048)  # training datasets for the α-network
TRAIN_CANDS = icml26.pick(ci=32, paper=32)  # candidates (labels) per training dataset
LABEL_SAMPLES = icml26.pick(ci=256, paper=512)  # M for the labels (plus the true f)
ALPHA_BUCKETS = icml26.pick(ci=64, paper=128)  # bar buckets of the α-network
TRAIN_STEPS = icml26.pick(ci=500, paper=3000)
TRAIN_BATCH = icml26.pick(ci=8, paper=32)  # datasets per step (all their candidates)
NET_SEEDS = icml26.pick(ci=3, paper=3)  # independently trained α-networks
TEST_SETS = icml26.pick(ci=48, paper=100)  # held-out datasets
REF_SAMPLES = icml26.pick(ci=512, paper=2000)  # M for the reference acquisitions
MULTIMODAL_LS = icml26.pick(ci=0.05, paper=0.05)  # ℓ of the multimodal prior
MULTIMODAL_SETS = icml26.pick(ci=24, paper=48)
P41_SAMPLES = icml26.pick(ci=20000, paper=100000)  # regression samples (Prop. 4.1)
P41_BUCKETS = icml26.pick(ci=64, paper=64)
P41_STEPS = icml26.pick(ci=800, paper=3000)
P41_SEEDS = icml26.pick(ci=3, paper=5)
P41_BATCH = icml26.pick(ci=256, paper=512)
BT_SETS = icml26.pick(ci=4, paper=12)  # datasets for the BoTorch cross-check
BT_REF_SAMPLES = icml26.pick(ci=2000, paper=4000)
N_OPTIMA = icml26.pick(ci=32, paper=64)  # optimal samples shared with BoTorch
MES_Y_SAMPLES = icml26.pick(ci=2048, paper=4096)  # qMaxValueEntropy's y samples
TIME_CANDS = icml26.pick(ci=1024, paper=1024)  # candidates in the timing experiment
TIME_SAMPLES = icml26.pick(ci=1000, paper=1000)  # M of the timed reference
BO_SEEDS = icml26.pick(ci=20, paper=60)  # prior functions optimised by BO
BO_INIT = icml26.pick(ci=2, paper=2)
BO_ITERS = icml26.pick(ci=15, paper=15)
BO_SAMPLES = icml26.pick(ci=256, paper=512)  # M of the reference PES that drives BO
# BO on Branin (d = 2) and Hartmann-3 (d = 3): at paper scale only (minutes of CPU)
ND_RUN = icml26.pick(ci=False, paper=True)
ND_POINTS = icml26.pick(ci=128, paper=256)  # uniform points per prior task in [0, 1]^d
ND_N_CTX = icml26.pick(ci=(2, 32), paper=(2, 32))  # context size n ~ U{lo..hi}
ND_NOISE_SD = icml26.pick(ci=0.1, paper=0.1)  # σ_n of the prior
ND_TRAIN_SETS = icml26.pick(ci=128, paper=1024)  # training tasks per dimension
ND_TRAIN_CANDS = icml26.pick(ci=32, paper=32)  # labelled candidates per task
ND_LABEL_SAMPLES = icml26.pick(ci=64, paper=256)  # M for the labels (plus the true f)
ND_BINS = icml26.pick(ci=16, paper=16)  # f* quantile bins of the MES labels
ND_BUCKETS = icml26.pick(ci=64, paper=64)  # bar buckets of the α-network
ND_STEPS = icml26.pick(ci=100, paper=2000)
ND_BATCH = icml26.pick(ci=16, paper=16)  # tasks per step
ND_TEST_SETS = icml26.pick(ci=8, paper=32)  # held-out prior tasks (fit of the network)
ND_REF_SAMPLES = icml26.pick(ci=256, paper=512)  # M of the held-out reference MES
ND_RUNS = icml26.pick(ci=3, paper=10)  # BO runs per method and benchmark
ND_ITERS = icml26.pick(ci=3, paper=20)  # BO iterations after 2d initial points
ND_CANDS = icml26.pick(ci=128, paper=1024)  # fresh uniform candidates per iteration
ND_MV_SAMPLES = icml26.pick(ci=10, paper=10)  # max-value samples of BoTorch's MES
ND_FLOOR = 1e-3  # simple regrets below this count as this (log scale)

# %% [markdown]
# The construction at a glance. Offline, tasks are sampled from the prior and labelled with the
# entropy reduction their *true* optimum gives; online, one forward pass scores every candidate.

# %% tags=["hide-input"] mystnb={"figure": {"caption": "The α-PFN pipeline. Offline (top): sample a task $f$ from the prior, its data $D$, a candidate $x$ and the task's own optimum $I$; the conditional model turns them into a label $\\tilde\\alpha = H(q(y\\mid D,x)) - H(q(y\\mid D,x,I))$; the α-network is trained by NLL on $(D, x, \\tilde\\alpha)$. Online (bottom): given real data, one forward pass gives the bar distribution $a_\\theta$, whose mean is the entropy-search acquisition (Proposition 4.1).", "name": "alpha-pfn-fig-pipeline"}}
fig, ax = plt.subplots(figsize=(7.4, 3.2))
icml26.plotting.diagram(
    ax,
    {
        "prior": (0.08, 0.78, "prior\ntask $f$"),
        "data": (0.27, 0.78, "data $D$,\ncandidate $x$,\noptimum $I$"),
        "base": (0.5, 0.78, "stage 1:\n$q(y \\mid D,x,I)$"),
        "lab": (0.72, 0.78, "label\n$\\tilde\\alpha = H - H_I$"),
        "net": (0.91, 0.5, "α-network\n$a_\\theta(\\cdot\\mid x,D)$\n(NLL)"),
        "bo": (0.27, 0.2, "BO step:\nreal $D$,\ncandidates"),
        "mean": (
            0.62,
            0.2,
            "acquisition\n"
            "$\\mathbb{E}_{a_\\theta}[\\tilde\\alpha] \\approx \\alpha_I(x)$",
        ),
    },
    [
        ("prior", "data", ""),
        ("data", "base", ""),
        ("base", "lab", "exact entropies"),
        ("lab", "net", "train"),
        ("bo", "net", ""),
        ("net", "mean", "one pass"),
    ],
    colors={"prior": 0, "data": 0, "base": 3, "lab": 1, "net": 2, "bo": 0, "mean": 2},
)
ax.set_title("Offline: labels from true optima; online: one forward pass")
plt.show()

# %% [markdown]
# ## Implementation
#
# ### The bar distribution
#
# The readable reference integrates $-q \log q$ bucket by bucket with `scipy.integrate.quad`,
# tails included — it does not use {eq}`alpha-pfn-eq-bar-entropy`.


# %% tags=["reference"]
def bar_entropy_reference(
    borders: np.ndarray, probs: np.ndarray, full_support: bool
) -> float:
    """−∫ q log q of a bar distribution, bucket by bucket, by adaptive quadrature."""

    def tail_integrand(y: float, p: float, s: float, anchor: float) -> float:
        q = (
            p * np.sqrt(2 / np.pi) / s * np.exp(-0.5 * ((y - anchor) / s) ** 2)
        )  # half-normal
        return -q * np.log(q) if q > 0 else 0.0

    B = len(probs)
    w = np.diff(borders)
    total = 0.0
    for b in range(B):
        if full_support and B > 1 and b in (0, B - 1):  # a half-normal tail
            s = w[b] / stats.norm.ppf(0.75)
            anchor = borders[1] if b == 0 else borders[B - 1]
            lo, hi = (-np.inf, anchor) if b == 0 else (anchor, np.inf)
            total += integrate.quad(tail_integrand, lo, hi, args=(probs[b], s, anchor))[
                0
            ]
        else:  # a uniform bucket
            d = probs[b] / w[b]
            total += integrate.quad(
                lambda y, d=d: -d * np.log(d), borders[b], borders[b + 1]
            )[0]
    return total


# %% [markdown]
# The kernel {func}`~icml26.bayesopt.pfn.bars.bar_entropy` evaluates {eq}`alpha-pfn-eq-bar-entropy`
# for a whole batch of logits at once; {func}`~icml26.bayesopt.pfn.bars.bar_mean`,
# {func}`~icml26.bayesopt.pfn.bars.bar_log_density` and {func}`~icml26.bayesopt.pfn.bars.bar_nll`
# complete the family. The authors' package `alphapfn` ships the same bar distribution
# (`BarDistribution`, and `FullSupportBarDistribution` with half-normal tails); it is checked
# here and used again on the trained α-network below.

# %%
g_demo = stream(SEED, 0)
borders_demo = torch.sort(
    torch.rand(9, generator=g_demo, dtype=torch.float64) * 4 - 2
).values
logits_demo = torch.randn(5, 8, generator=g_demo, dtype=torch.float64)
for full in (False, True):
    icml26.checks.agree(
        f"bar entropy kernel vs quadrature (full_support={full})",
        pfn.bar_entropy(borders_demo, logits_demo, full_support=full).numpy(),
        np.array(
            [
                bar_entropy_reference(borders_demo.numpy(), p, full)
                for p in torch.softmax(logits_demo, -1).numpy()
            ]
        ),
        atol=1e-8,
    )
for ours, theirs, full in [
    (pfn.bar_entropy, "entropy", False),
    (pfn.bar_mean, "mean", False),
    (pfn.bar_entropy, "entropy", True),
    (pfn.bar_mean, "mean", True),
]:
    package = (FullSupportBarDistribution if full else BarDistribution)(borders_demo)
    icml26.checks.agree(
        f"bar {theirs} vs alphapfn (full_support={full})",
        ours(borders_demo, logits_demo, full_support=full),
        getattr(package, theirs)(logits_demo),
        atol=1e-9,
    )
print(
    "H (interior)     :",
    np.round(pfn.bar_entropy(borders_demo, logits_demo).numpy(), 4),
)
print(
    "H (full support) :",
    np.round(pfn.bar_entropy(borders_demo, logits_demo, full_support=True).numpy(), 4),
)
print("entropy and mean agree with the alphapfn package, interior and full support")

# %% [markdown]
# ### Grouped Monte-Carlo entropy search
#
# The second reference is {eq}`alpha-pfn-eq-grouped` written literally for one dataset: a loop
# over candidates and over groups, each mixture entropy by the trapezoid rule on a fine $y$-grid.
# Passed the task's true function as sample 0, it also returns the α-PFN label
# {eq}`alpha-pfn-eq-label` of that task.


# %% tags=["reference"]
def grouped_es_reference(
    f_samples: np.ndarray, query_idx: np.ndarray, noise_sd: float, kind: str, bins: int
) -> tuple[np.ndarray, np.ndarray]:
    """Grouped MC entropy search of one dataset, f_samples (M, G).

    Returns the acquisition and the label of sample 0 at the queried grid points.
    """

    def mixture_entropy(ys: np.ndarray, centres: np.ndarray) -> float:
        dens = stats.norm.pdf(ys[:, None], centres[None, :], noise_sd).mean(1)
        return -np.trapezoid(
            np.where(dens > 0, dens * np.log(np.maximum(dens, 1e-300)), 0), ys
        )

    G = f_samples.shape[1]
    if kind == "pes":
        groups = f_samples.argmax(1) * bins // G
    else:
        fmax = f_samples.max(1)
        edges = np.quantile(fmax, np.linspace(0, 1, bins + 1)[1:-1])
        groups = np.searchsorted(edges, fmax, side="right")
    acq, label = np.zeros(len(query_idx)), np.zeros(len(query_idx))
    for c, i in enumerate(query_idx):
        centres = f_samples[:, i]
        ys = np.linspace(
            centres.min() - 6 * noise_sd, centres.max() + 6 * noise_sd, 800
        )
        h_all = mixture_entropy(ys, centres)
        h_cond = {
            g: mixture_entropy(ys, centres[groups == g]) for g in np.unique(groups)
        }
        acq[c] = h_all - sum(np.mean(groups == g) * h for g, h in h_cond.items())
        label[c] = h_all - h_cond[groups[0]]
    return acq, label


# %% [markdown]
# The kernel {func}`~icml26.bayesopt.pfn.entropy.grouped_entropy_search` does the same for a batch of
# datasets and candidates in a few tensor operations: all Gaussian kernels on a per-candidate
# $y$-grid of `Y_POINTS` nodes at once, summed into groups with one `index_add_`. Posterior
# samples come from {func}`~icml26.bayesopt.pfn.gp.gp_posterior` (exact, batched over padded
# contexts) and {func}`~icml26.bayesopt.pfn.gp.sample_posterior` (Cholesky). We check kernel
# against reference on three datasets, for MES and PES.

# %%
grid = torch.linspace(0, 1, GRID, dtype=torch.float64)
prior = dict(lengthscale=LENGTHSCALE, variance=VARIANCE)
g_demo = stream(SEED, 1)
demo = pfn.make_tasks(grid, 3, N_CTX, noise_sd=NOISE_SD, generator=g_demo, **prior)
mu_d, cov_d = pfn.gp_posterior(
    demo.x_ctx, demo.y_ctx, demo.mask, grid, noise_sd=NOISE_SD, **prior
)
f_d = torch.cat(
    [demo.f[:, None], pfn.sample_posterior(mu_d, cov_d, 200, generator=g_demo)], 1
)
q_d = torch.arange(0, GRID, 4).expand(3, -1)
# 256 quadrature nodes against the reference's 800: agreement to 1e-4
for kind in ("mes", "pes"):
    acq_k, lab_k = pfn.grouped_entropy_search(
        f_d, q_d, NOISE_SD, kind=kind, bins=BINS, points=256
    )
    ref = [
        grouped_es_reference(f_d[i].numpy(), q_d[i].numpy(), NOISE_SD, kind, BINS)
        for i in range(3)
    ]
    icml26.checks.agree(
        f"{kind} kernel vs reference",
        acq_k.numpy(),
        np.array([r[0] for r in ref]),
        atol=1e-4,
    )
    icml26.checks.agree(
        f"{kind} labels", lab_k.numpy(), np.array([r[1] for r in ref]), atol=1e-4
    )
print(
    "PES on dataset 0 at every 4th grid point:",
    np.round(acq_k[0].numpy(), 3)[:8],
    "...",
)

# %% [markdown]
# ## Experiments
#
# ### 06.1–06.2 · The bar distribution's entropy is exact
#
# *Claim* ({prf:ref}`alpha-pfn-prop-bar-entropy`): {eq}`alpha-pfn-eq-bar-entropy` is the exact
# entropy of the bar distribution, interior and full-support alike; and a fine bar fitted to
# $\mathcal N(0,1)$ has entropy close to $\tfrac12 \log(2\pi e)$, the gap being
# $\mathrm{KL}(p\Vert\bar p) \ge 0$. We compare the formula with quadrature on 40 random bar
# distributions (random borders, buckets and logits). The broken variant forgets the widths
# ($-\sum p_b \log p_b$, the entropy of the bucket index); the control of the second claim is a
# coarse bar of 32 buckets, whose KL is visible.

# %%
g_bar = stream(SEED, 2)
errs, broken = [], []
for k in range(40):
    B = int(torch.randint(2, 40, (1,), generator=g_bar))
    b = (
        torch.cumsum(torch.rand(B + 1, generator=g_bar, dtype=torch.float64) + 0.05, 0)
        - B / 2
    )
    z = 2 * torch.randn(B, generator=g_bar, dtype=torch.float64)
    full = k % 2 == 1
    want = bar_entropy_reference(b.numpy(), torch.softmax(z, 0).numpy(), full)
    errs.append(abs(float(pfn.bar_entropy(b, z, full_support=full)) - want))
    p = torch.softmax(z, 0)
    broken.append(abs(float(-(p * p.log()).sum()) - want))
print(
    f"max |formula − quadrature| = {max(errs):.1e}; "
    f"without the widths: min error {min(broken):.2f}"
)

# %% tags=["claim"]
# fails if: the bucket widths (the control drops them) or tail entropies were missing
icml26.claim(
    "06.1",
    "bar entropy formula vs quadrature, 40 random bars",
    max(errs),
    at_most=1e-8,
    kind="theorem",
    control=min(broken),
    control_label="without widths",
)


# %%
def gaussian_bar_gap(buckets: int) -> float:
    """H of the bucket-averaged N(0,1), equal buckets on [−6, 6], minus ½ log 2πe."""
    b = pfn.equal_borders(-6.0, 6.0, buckets)
    mass = torch.diff(torch.special.ndtr(b))
    return float(pfn.bar_entropy(b, mass.log())) - 0.5 * math.log(2 * math.pi * math.e)


gap_fine, gap_coarse = gaussian_bar_gap(2000), gaussian_bar_gap(32)
assert gap_fine > 0 and gap_coarse > 0, "the excess entropy of a bar is a KL, ≥ 0"
print(
    f"H(bar) − ½ log 2πe: B = 2000: {gap_fine:.1e}; B = 32: {gap_coarse:.1e} "
    "(both ≥ 0, as KL)"
)

# %% tags=["claim"]
# fails if: the entropy were biased, or the bar too coarse for the density (control)
icml26.claim(
    "06.2",
    "B = 2000 bar of N(0,1): |H − ½ log 2πe|",
    abs(gap_fine),
    at_most=1e-5,
    kind="theorem",
    control=abs(gap_coarse),
    control_label="B = 32",
)

# %% [markdown]
# The tolerance $10^{-5}$ is for equal-width borders on $[-6, 6]$ with the interior version.
# With borders at the empirical quantiles of a sample the gap is larger: the bar's excess
# entropy is a KL, and noise in the borders adds to it.
#
# ### 06.3–06.5 · Proposition 4.1 on a known conditional law
#
# *Claim* ({prf:ref}`alpha-pfn-prop-nll`): a bar head trained by NLL learns the conditional law
# — its mean approaches $\mathbb E[t \mid x]$, and its NLL approaches the best achievable by a
# bar with these borders, $\mathrm{NLL}^\star_{\text{bar}}$ (the bucket-averaged true density),
# which itself exceeds the conditional entropy $h(t \mid x)$ by the discretisation KL. The law
# is skewed and heteroscedastic: $t = \sin 2\pi x + \Gamma(k = 2, \theta(x) = 0.1 + 0.5x)$, with
# 64 equal buckets on $[-1, 6]$ and an MLP ($2 \times 64$, float64). Each of `P41_SEEDS` heads
# is trained on its own sample; all are scored on one test sample, where every NLL is compared
# with the true density's NLL *on the same points*, so that the sampling noise of the test set
# cancels. Three controls: the mode of the bar as read-out, a bar that ignores $x$ (the
# marginal bucket frequencies), and a Gaussian head with the true heteroscedastic moments.
# Thresholds, fixed in advance: $R^2 \ge 0.98$ for the mean; an expected KL to the best bar of
# at most 0.08 nats; and at most 0.15 nats above the true law, which leaves room for the
# discretisation floor and 0.08 of training error while excluding the best Gaussian.


# %%
def gamma_task(n: int, g: torch.Generator) -> tuple[torch.Tensor, torch.Tensor]:
    x = torch.rand(n, generator=g, dtype=torch.float64)
    theta = 0.1 + 0.5 * x
    e = torch.from_numpy(
        stats.gamma.rvs(
            2.0, size=n, random_state=int(torch.randint(0, 2**31, (1,), generator=g))
        )
    )
    return x, torch.sin(2 * math.pi * x) + theta * e


def discretisation_floor(buckets: int, nodes: int = 400) -> float:
    """E_x KL(p(·|x) ‖ its bucket average), exact: Gauss–Legendre in x, Gamma CDF."""
    u, w = np.polynomial.legendre.leggauss(nodes)
    xq, wq = 0.5 * (u + 1), 0.5 * w
    bn = pfn.equal_borders(-1.0, 6.0, buckets).numpy()
    th, sh = 0.1 + 0.5 * xq, np.sin(2 * np.pi * xq)
    mass = np.diff(
        stats.gamma.cdf(bn[None] - sh[:, None], 2.0, scale=th[:, None]), axis=1
    )
    h_bar = -special.xlogy(mass, mass / np.diff(bn)).sum(1)
    h = 2.0 + np.log(th) + special.gammaln(2.0) - special.digamma(2.0)
    return float(np.sum(wq * (h_bar - h)))


b41 = pfn.equal_borders(-1.0, 6.0, P41_BUCKETS)
inside = lambda t: t.clamp(-1 + 1e-9, 6 - 1e-9)  # noqa: E731  (P(t > 6) < 3e-5)
x_te, t_te = gamma_task(P41_SAMPLES, stream(SEED, 3))
k, th = 2.0, (0.1 + 0.5 * x_te).numpy()
shift = np.sin(2 * np.pi * x_te.numpy())
true_mean = shift + k * th
nll_true = float(np.mean(-stats.gamma.logpdf(t_te.numpy() - shift, k, scale=th)))
bn = b41.numpy()
j = np.clip(
    np.searchsorted(bn, inside(t_te).numpy(), side="right") - 1, 0, P41_BUCKETS - 1
)
mass = stats.gamma.cdf(bn[j + 1] - shift, k, scale=th) - stats.gamma.cdf(
    bn[j] - shift, k, scale=th
)
nll_bar = float(np.mean(-np.log(mass / np.diff(bn)[j])))
mids41 = 0.5 * (bn[1:] + bn[:-1])


def r2(pred: np.ndarray) -> float:
    sse = np.sum((pred - true_mean) ** 2)
    return float(1 - sse / np.sum((true_mean - true_mean.mean()) ** 2))


def train_bar_head(seed: int) -> tuple[torch.nn.Module, torch.Tensor]:
    """One NLL-trained bar head on its own sample; returns it and its targets."""
    g = stream(SEED, 10 + seed)
    x_tr, t_tr = gamma_task(P41_SAMPLES, g)
    torch.manual_seed(SEED + seed)
    head = torch.nn.Sequential(
        torch.nn.Linear(1, 64),
        torch.nn.GELU(),
        torch.nn.Linear(64, 64),
        torch.nn.GELU(),
        torch.nn.Linear(64, P41_BUCKETS),
    ).double()
    opt = torch.optim.Adam(head.parameters(), lr=1e-2)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, P41_STEPS)
    xs, ts = x_tr[:, None], inside(t_tr)
    for _ in range(P41_STEPS):
        i = torch.randint(0, P41_SAMPLES, (P41_BATCH,), generator=g)
        loss = pfn.bar_nll(b41, head(xs[i]), ts[i])
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
    return head, ts


p41 = {"r2_mean": [], "r2_mode": [], "kl_bar": [], "gap": []}
for seed in icml26.progress(range(P41_SEEDS), desc="NLL-trained bar heads"):
    head_s, t_train = train_bar_head(seed)
    with torch.no_grad():
        lg41 = head_s(x_te[:, None])
    nll = float(pfn.bar_nll(b41, lg41, inside(t_te)))
    p41["r2_mean"].append(r2(pfn.bar_mean(b41, lg41).numpy()))
    p41["r2_mode"].append(r2(mids41[lg41.argmax(-1).numpy()]))
    p41["kl_bar"].append(nll - nll_bar)
    p41["gap"].append(nll - nll_true)
    if seed == 0:
        head, lg_head = head_s, lg41
        counts = torch.bincount(
            torch.searchsorted(b41, t_train, right=True).clamp(1, P41_BUCKETS) - 1,
            minlength=P41_BUCKETS,
        )
        marginal = torch.log(counts.double() + 0.5).expand(len(x_te), -1)
        kl_marginal = float(pfn.bar_nll(b41, marginal, inside(t_te))) - nll_bar
gauss_gap = (
    float(np.mean(-stats.norm.logpdf(t_te.numpy(), true_mean, np.sqrt(k) * th)))
    - nll_true
)
for key, what in [
    ("r2_mean", "R² of the bar mean vs E[t|x]"),
    ("r2_mode", "R² of the bar mode"),
    ("kl_bar", "NLL − NLL*_bar"),
    ("gap", "NLL − NLL of the true law"),
]:
    print(f"{what:>28}: " + ", ".join(f"{v:.3f}" for v in p41[key]))
print(f"bar that ignores x: NLL − NLL*_bar = {kl_marginal:.3f}")
print(f"Gaussian with the true moments: NLL − NLL of the true law = {gauss_gap:.3f}")
print(
    "discretisation floor E_x KL(p ‖ p̄), exact: "
    f"64 buckets {discretisation_floor(64):.3f},"
    f" 32 buckets {discretisation_floor(32):.3f}; on the test sample "
    f"{nll_bar - nll_true:.3f}"
)

# %% tags=["claim"]
# fails if: the acquisition were read from the bar's mode (the control), or not learnt
icml26.claim(
    "06.3",
    "bar head trained by NLL: R² of its mean vs E[t|x]",
    seeds=p41["r2_mean"],
    rule="worst",
    at_least=0.98,
    control=p41["r2_mode"],
    control_label="mode read-out",
)

# %% tags=["claim"]
# fails if: NLL training did not approach the best bar — as a bar ignoring x does not
icml26.claim(
    "06.4",
    "bar head: NLL − NLL*_bar in nats (expected KL to the best bar)",
    seeds=p41["kl_bar"],
    rule="worst",
    at_most=0.08,
    control=kl_marginal,
    control_label="bar ignoring x",
)

# %% tags=["claim"]
# fails if: the head could not represent the skewed law — as a Gaussian head cannot
icml26.claim(
    "06.5",
    "bar head: NLL above the true law's, in nats",
    seeds=p41["gap"],
    rule="worst",
    at_most=0.15,
    control=gauss_gap,
    control_label="Gaussian with the true moments",
)

# %% [markdown]
# The gap of 06.5 contains the discretisation floor $\mathrm{KL}(p\Vert\bar p)$, which no amount
# of training removes. Computed exactly (Gauss–Legendre over $x$, the Gamma CDF per bucket) it is
# 0.017 nats for these 64 buckets and 0.046 for 32 (printed above); the test sample estimates
# the 64-bucket floor to within its sampling error. What 06.4 measures is the rest, the
# expected KL from the trained bar to the best bar with these borders: training error only.
# The Gaussian head fails the bound even with the *true* moments: the law is skewed, and a
# Gaussian family cannot follow it.

# %% tags=["hide-input"] mystnb={"figure": {"caption": "Proposition 4.1 on a known law (the first of the trained heads). Left: the NLL-trained bar head's density (steps) against the true shifted-Gamma density at three inputs $x$. Right: the head's mean tracks $\\mathbb{E}[t \\mid x]$ while its mode does not.", "name": "alpha-pfn-fig-prop41"}}
fig, (a0, a1) = plt.subplots(1, 2, figsize=(7.4, 3.0))
xs_show = torch.tensor([0.1, 0.5, 0.9], dtype=torch.float64)
with torch.no_grad():
    lg_show = head(xs_show[:, None])
ygrid = torch.linspace(-1, 6, 1400, dtype=torch.float64)
for c, (xv, lgv) in enumerate(zip(xs_show, lg_show, strict=True)):
    dens = pfn.bar_log_density(b41, lgv.expand(len(ygrid), -1), ygrid).exp()
    a0.plot(
        ygrid, dens, color=icml26.plotting.color(c), lw=1, label=f"x = {float(xv):.1f}"
    )
    thv = 0.1 + 0.5 * float(xv)
    a0.plot(
        ygrid,
        stats.gamma.pdf(ygrid - math.sin(2 * math.pi * float(xv)), 2, scale=thv),
        "--",
        color=icml26.plotting.color(c),
        lw=1,
    )
a0.set(
    xlabel="t",
    ylabel="density",
    title="bar head (solid) vs true law (dashed)",
    xlim=(-1.2, 3.5),
)
a0.legend(fontsize=8)
order = np.argsort(x_te.numpy())[::50]
a1.plot(x_te.numpy()[order], true_mean[order], "k-", lw=2, label="E[t | x]")
a1.plot(
    x_te.numpy()[order],
    pfn.bar_mean(b41, lg_head).numpy()[order],
    "-",
    color=icml26.plotting.color(0),
    label="bar mean",
)
a1.plot(
    x_te.numpy()[order],
    mids41[lg_head.argmax(-1).numpy()][order],
    ".",
    ms=3,
    color=icml26.plotting.color(1),
    label="bar mode",
)
a1.set(xlabel="x", ylabel="t", title="the mean is the right read-out")
a1.legend(fontsize=8)
plt.show()

# %% [markdown]
# ### 06.6–06.7 · The α-network's mean is entropy search, in nats
#
# Now the paper's construction. We sample `TRAIN_SETS` tasks from the prior, each with $n$
# uniform context points, and label `TRAIN_CANDS` random candidates per task with
# {eq}`alpha-pfn-eq-label` for PES ($I = x^\star$): the exact GP posterior gives `LABEL_SAMPLES`
# posterior functions, the task's true $f$ is put first among them, and the grouped estimator
# returns $H[\text{all}] - H[\text{group of the true } x^\star]$. Labels and training are in
# float64, so that the trained networks do not depend on the last bits of the machine.


# %%
def pes_labels(
    tasks: pfn.Tasks, cands: torch.Tensor, samples: int, g: torch.Generator
) -> torch.Tensor:
    """Single-optimum PES labels of the candidates: the task's own f is sample 0."""
    out = []
    for s in range(0, len(tasks.f), 64):  # chunks of 64 datasets bound the memory
        c = slice(s, s + 64)
        mu, cov = pfn.gp_posterior(
            tasks.x_ctx[c],
            tasks.y_ctx[c],
            tasks.mask[c],
            grid,
            noise_sd=NOISE_SD,
            **prior,
        )
        fs = pfn.sample_posterior(mu, cov, samples, generator=g)
        fs = torch.cat([tasks.f[c, None], fs], 1)
        out.append(
            pfn.grouped_entropy_search(
                fs, cands[c], NOISE_SD, kind="pes", bins=BINS, points=Y_POINTS
            )[1]
        )
    return torch.cat(out)


g_lab = stream(SEED, 4)
train = pfn.make_tasks(
    grid, TRAIN_SETS, N_CTX, noise_sd=NOISE_SD, generator=g_lab, **prior
)
q_tr = torch.rand(TRAIN_SETS, GRID, generator=g_lab).argsort(-1)[:, :TRAIN_CANDS]
labels = pes_labels(train, q_tr, LABEL_SAMPLES, g_lab)
print(
    f"{labels.numel()} labels: range [{labels.min():.2f}, {labels.max():.2f}], "
    f"{(labels < 0).double().mean():.0%} negative, median {labels.median():.3f}"
)

# %% [markdown]
# The α-network ({class}`~icml26.bayesopt.pfn.network.AlphaNet`) is a bar distribution over
# `ALPHA_BUCKETS` buckets at the quantiles of the labels, trained by
# {func}`~icml26.bayesopt.pfn.network.train_alpha_net`; `NET_SEEDS` networks are trained from
# independent initialisations and minibatch streams, and every claim about the network is
# decided over them.

# %%
alpha_borders = pfn.quantile_borders(labels.reshape(-1), ALPHA_BUCKETS)


def train_net(seed: int) -> tuple[pfn.AlphaNet, list[float]]:
    torch.manual_seed(SEED + seed)
    net = pfn.AlphaNet(ALPHA_BUCKETS).double()
    losses = pfn.train_alpha_net(
        net,
        alpha_borders,
        train.x_ctx,
        train.y_ctx,
        train.mask,
        grid[q_tr],
        labels,
        steps=TRAIN_STEPS,
        batch=TRAIN_BATCH,
        generator=stream(SEED, 20 + seed),
    )
    return net, losses


t0 = time.process_time()
nets, curves = zip(
    *[train_net(s) for s in icml26.progress(range(NET_SEEDS), desc="α-networks")],
    strict=True,
)
t_train = time.process_time() - t0
for s, losses in enumerate(curves):
    print(
        f"network {s}: NLL over the first 50 steps {np.mean(losses[:50]):.3f}, "
        f"over the last 50 {np.mean(losses[-50:]):.3f}"
    )


def alpha_pfn(
    net: pfn.AlphaNet,
    x_ctx: torch.Tensor,
    y_ctx: torch.Tensor,
    mask: torch.Tensor,
    x_query: torch.Tensor,
) -> torch.Tensor:
    """The α-PFN acquisition: the mean of the α-network's bar distribution."""
    with torch.no_grad():
        return pfn.bar_mean(alpha_borders, net(x_ctx, y_ctx, mask, x_query))


# %% tags=["nbval-ignore-output"]
print(f"{NET_SEEDS} α-networks trained in {t_train:.1f} s of CPU time")

# %% [markdown]
# On `TEST_SETS` held-out datasets we compute the reference PES over the whole grid with
# `REF_SAMPLES` posterior samples (no true function inside), and the reference MES from the same
# samples.
#
# (alpha-pfn-es-vs-ei)=
# #### Where entropy search and EI part ways
#
# Before testing the network, the control. For each reference we ask how closely EI follows
# it: the pooled correlation of values over all (dataset, grid point) pairs, and how often EI's
# maximiser lies within 0.1 of the reference's. Besides the chapter's prior we try a
# multimodal one ($\ell = 0.05$, about three times as many bumps on $[0, 1]$), where EI is
# known to over-exploit.


# %%
def references(tasks: pfn.Tasks, g: torch.Generator, ls: float) -> dict:
    """Reference PES and MES (shared posterior samples) and EI for a batch of tasks."""
    kw = dict(lengthscale=ls, variance=VARIANCE, noise_sd=NOISE_SD)
    mu, cov = pfn.gp_posterior(tasks.x_ctx, tasks.y_ctx, tasks.mask, grid, **kw)
    fs = pfn.sample_posterior(mu, cov, REF_SAMPLES, generator=g).float()
    idx = torch.arange(GRID).expand(len(fs), -1)
    out = {
        kind: pfn.grouped_entropy_search(
            fs, idx, NOISE_SD, kind=kind, bins=BINS, points=Y_POINTS
        )[0].double()
        for kind in ("pes", "mes")
    }
    var = torch.diagonal(cov, dim1=1, dim2=2)
    best = tasks.y_ctx.masked_fill(~tasks.mask, -1e9).max(-1).values
    out["ei"] = pfn.expected_improvement(mu, var, best[:, None])
    out["ucb"] = mu + 2 * var.sqrt()
    out["mu"], out["sd"] = mu, var.sqrt()
    return out


def near_argmax(acq: torch.Tensor, ref: torch.Tensor) -> float:
    """Share of datasets (non-constant reference) with argmaxes at most 0.1 apart."""
    ok = ref.std(-1) > 1e-9
    near = (grid[acq.argmax(-1)] - grid[ref.argmax(-1)]).abs() <= 0.1 + 1e-9
    return float(near[ok].double().mean())


def pooled_corr(acq: torch.Tensor, ref: torch.Tensor) -> float:
    return float(np.corrcoef(acq.reshape(-1).numpy(), ref.reshape(-1).numpy())[0, 1])


g_te = stream(SEED, 5)
test = pfn.make_tasks(
    grid, TEST_SETS, N_CTX, noise_sd=NOISE_SD, generator=g_te, **prior
)
ref_te = references(test, g_te, LENGTHSCALE)
g_mm = stream(SEED, 6)
multi = pfn.make_tasks(
    grid,
    MULTIMODAL_SETS,
    N_CTX,
    noise_sd=NOISE_SD,
    lengthscale=MULTIMODAL_LS,
    variance=VARIANCE,
    generator=g_mm,
)
ref_mm = references(multi, g_mm, MULTIMODAL_LS)
print("EI against each reference      pooled correlation   argmax within 0.1")
for ls, r in [(LENGTHSCALE, ref_te), (MULTIMODAL_LS, ref_mm)]:
    for kind in ("mes", "pes"):
        print(
            f"  ℓ = {ls:4.2f}, {kind.upper()}"
            f"{pooled_corr(r['ei'], r[kind]):22.2f}"
            f"{near_argmax(r['ei'], r[kind]):18.0%}"
        )

# %% [markdown]
# On the chapter's prior EI follows MES closely — a pooled correlation of 0.78, and its
# maximiser within 0.1 of MES's in 90 % of the datasets — and PES much less (0.58 and 67 %).
# On the multimodal prior EI's values part from MES's too, while PES stays about as far from
# EI as before. PES is the target EI does not imitate on either prior. So the network learns
# **PES** on the chapter's prior, and EI — the acquisition that ignores entropy search — is
# its control.
#
# *Claim 06.6* (Proposition 4.1 at work: the mean of $a_\theta$ is the ES value): the α-network
# reproduces the reference PES *in nats*. The measure is the pooled $R^2$ over all (dataset,
# grid point) pairs of the held-out sets, $1 - \sum (a - \alpha)^2 / \sum (\alpha -
# \bar\alpha)^2$, with no rescaling of the network; the threshold, fixed in advance, is
# $R^2 \ge 0.5$ — more than half of the reference's variance explained. EI is not in nats, so
# it gets the fairest translation there is: the affine map $c_0 + c_1\,\mathrm{EI}$ fitted by
# least squares to the *same training labels* the network saw (their conditional mean is the
# PES value, so the fit is consistent). An acquisition that ranks like ES but does not carry its
# values is capped by its squared correlation with the reference (table above).
#
# *Claim 06.7* (the decision): acting on the network's maximiser forfeits little of the
# information a step could gain. The measure is the share of the best reference PES lost by
# evaluating at the acquisition's maximiser, $(\max_x \alpha - \alpha(\hat x)) / \max_x \alpha$,
# averaged over the held-out datasets whose reference is not flat; the threshold, fixed in
# advance, is 0.1. Random choice and UCB (also mapped to nats) are shown for scale.

# %%
# EI and UCB on the training candidates, for the affine map into nats
mu_tr, cov_tr = pfn.gp_posterior(
    train.x_ctx, train.y_ctx, train.mask, grid, noise_sd=NOISE_SD, **prior
)
sd_tr = torch.diagonal(cov_tr, dim1=1, dim2=2).sqrt()
best_tr = train.y_ctx.masked_fill(~train.mask, -1e9).max(-1).values
feats_tr = {
    "ei": pfn.expected_improvement(mu_tr, sd_tr**2, best_tr[:, None]),
    "ucb": mu_tr + 2 * sd_tr,
}


def in_nats(name: str) -> torch.Tensor:
    """Baseline ``name`` on the test sets, mapped affinely onto the training labels."""
    x = feats_tr[name].gather(1, q_tr).reshape(-1)
    basis = torch.stack([torch.ones_like(x), x], 1)
    coef = torch.linalg.lstsq(basis, labels.reshape(-1, 1)).solution[:, 0]
    return coef[0] + coef[1] * ref_te[name]


def value_r2(acq: torch.Tensor) -> float:
    ref = ref_te["pes"]
    return float(1 - ((acq - ref) ** 2).sum() / ((ref - ref.mean()) ** 2).sum())


def decision_loss(acq: torch.Tensor) -> float:
    ref = ref_te["pes"]
    ok = ref.std(-1) > 1e-9
    top = ref.max(-1).values
    lost = (top - ref.gather(1, acq.argmax(-1)[:, None])[:, 0]) / top.clamp_min(1e-12)
    return float(lost[ok].mean())


acq_nets = [
    alpha_pfn(net, test.x_ctx, test.y_ctx, test.mask, grid.expand(TEST_SETS, -1))
    for net in nets
]
acq_base = {
    "EI in nats": in_nats("ei"),
    "UCB in nats": in_nats("ucb"),
    "random": torch.rand(TEST_SETS, GRID, generator=g_te, dtype=torch.float64)
    * 2
    * labels.mean(),
}
scores = {f"α-network {s}": a for s, a in enumerate(acq_nets)} | acq_base
print("                 R² (nats)   pooled corr.   PES lost at the maximiser")
for name, a in scores.items():
    print(
        f"{name:>14}{value_r2(a):11.3f}{pooled_corr(a, ref_te['pes']):14.3f}"
        f"{decision_loss(a):22.3f}"
    )

# %% tags=["claim"]
# fails if: the network learnt an EI-like score, not the entropy reduction (EI: control)
icml26.claim(
    "06.6",
    "α-network mean vs reference PES: pooled R² in nats",
    seeds=[value_r2(a) for a in acq_nets],
    rule="worst",
    at_least=0.5,
    control=value_r2(acq_base["EI in nats"]),
    control_label="EI in nats",
)

# %% tags=["claim"]
# fails if: the network's maximiser lost as much PES as EI's does (EI is the control)
icml26.claim(
    "06.7",
    "share of the best PES lost at the α-network's maximiser",
    seeds=[decision_loss(a) for a in acq_nets],
    rule="worst",
    at_most=0.1,
    control=decision_loss(acq_base["EI in nats"]),
    control_label="EI",
)

# %% [markdown]
# The networks explain about two thirds of the reference's variance in nats, with no
# rescaling (the range is on the claim line); EI, mapped into nats on the same labels, explains
# under a quarter — the square of its correlation with PES is the most any map of EI can reach.
# The network has learnt the entropy reduction itself, not a proxy for it: this is what
# separates amortised entropy search from expected improvement at this scale.
#
# Its *decisions* are another matter. Acting on a network's maximiser forfeits about a quarter
# of the PES a step could gain — less than EI, about as much as UCB, and far above the tenth
# that 06.7 asks for. PES curves are broad near their peaks (figure in the Cross-check), so a
# mean that is right on average across datasets can still place a flat maximum a few grid
# points off, and 8192 noisy labels do not pin the tops down. Claim 06.7 is NOT REPRODUCED at
# this scale. With eight times the training tasks and six times the training steps (the paper
# scale, its record in the Limits section) the forfeited share shrinks but stays above the
# tenth. The BO experiment (06.9–06.10) shows the
# practical side: these decisions find the optimum.

# %% tags=["hide-input"] mystnb={"figure": {"caption": "Every (dataset, grid point) pair of the held-out sets against the reference PES, in nats. Left: the first α-network's mean, unscaled. Middle: EI mapped into nats by the affine fit to the training labels — it orders the points but cannot carry their values. Right: the single-optimum training labels, skewed and partly negative; the network learns their conditional mean.", "name": "alpha-pfn-fig-scatter"}}
fig, (a0, a1, a2) = plt.subplots(1, 3, figsize=(7.4, 2.8))
ref_flat = ref_te["pes"].reshape(-1)
lim = float(max(ref_flat.max(), acq_nets[0].max(), acq_base["EI in nats"].max()))
for ax, (name, a) in zip(
    (a0, a1),
    [("α-network mean", acq_nets[0]), ("EI in nats", acq_base["EI in nats"])],
    strict=True,
):
    ax.plot(ref_flat, a.reshape(-1), ".", ms=2, alpha=0.4)
    ax.plot([0, lim], [0, lim], "k--", lw=1)
    ax.set(
        xlabel="reference PES (nats)",
        ylabel=f"{name} (nats)",
        title=f"R² = {value_r2(a):.2f}",
        ylim=(-0.05 * lim, 1.05 * lim),
    )
a2.hist(labels.reshape(-1).numpy(), bins=80, color=icml26.plotting.color(1))
a2.axvline(0, color="k", lw=1)
a2.set(xlabel="label α̃ (nats)", ylabel="count", title="training labels")
a2.set_yscale("log")
plt.show()

# %% [markdown]
# ## Cross-check
#
# ### BoTorch: the posterior and three entropy-search acquisitions
#
# BoTorch's {cite}`balandat2020botorch` `SingleTaskGP` with the toy prior's fixed
# hyper-parameters (zero mean, RBF kernel $\ell = 0.15$, output scale 1, noise variance 0.01;
# built by {func}`~icml26.bayesopt.pfn.network.fixed_gp_model`) must give our posterior. Its three
# entropy-search acquisitions are *different estimators* of the quantities our grouped
# reference estimates, and we give them the **same optimal samples**: the first `N_OPTIMA` of the
# reference's own posterior draws, their maxima $f^\star$ for `qMaxValueEntropy` (MES, with
# Takeno et al.'s treatment of noisy observations), their maximisers $x^\star$ for
# `qPredictiveEntropySearch` (PES, by expectation propagation) and both for
# `qJointEntropySearch` (JES). Values are compared in nats. For MES we also compute, by
# quadrature ({func}`~icml26.bayesopt.pfn.entropy.truncated_gaussian_mes`), the quantity
# `qMaxValueEntropy` estimates by Monte Carlo — the information under its truncated-Gaussian
# approximation — once on the same `N_OPTIMA` values $f^\star$ that BoTorch gets, and once on
# the maxima of *all* the reference's draws, the same $f^\star$ draws that our grouped MES bins.

# %%
g_bt = stream(SEED, 7)
bt = pfn.make_tasks(grid, BT_SETS, N_CTX, noise_sd=NOISE_SD, generator=g_bt, **prior)
mu_bt, cov_bt = pfn.gp_posterior(
    bt.x_ctx, bt.y_ctx, bt.mask, grid, noise_sd=NOISE_SD, **prior
)
f_bt = pfn.sample_posterior(mu_bt, cov_bt, BT_REF_SAMPLES, generator=g_bt)
idx_bt = torch.arange(GRID).expand(BT_SETS, -1)
ref_bt = {
    kind: pfn.grouped_entropy_search(
        f_bt.float(), idx_bt, NOISE_SD, kind=kind, bins=BINS, points=Y_POINTS
    )[0].double()
    for kind in ("mes", "pes")
}
torch.manual_seed(
    SEED
)  # BoTorch's quasi-Monte-Carlo samplers draw from the global stream
X_bt = grid[:, None, None]
bt_acq = {"qMES": [], "qPES": [], "qJES": []}
post_err = 0.0
for i in range(BT_SETS):
    m = bt.mask[i]
    model = pfn.fixed_gp_model(
        bt.x_ctx[i][m], bt.y_ctx[i][m], noise_sd=NOISE_SD, **prior
    )
    shared = f_bt[i, :N_OPTIMA]  # the reference's own draws, shared with BoTorch
    f_star = shared.max(-1).values[:, None]
    x_star = grid[shared.argmax(-1)][:, None]
    with torch.no_grad():
        post = model.posterior(grid[:, None])
        post_err = max(
            post_err,
            float((post.mean[:, 0] - mu_bt[i]).abs().max()),
            float((post.variance[:, 0] - torch.diagonal(cov_bt[i])).abs().max()),
        )
        mes = qMaxValueEntropy(
            model,
            candidate_set=grid[:, None],
            num_mv_samples=N_OPTIMA,
            num_y_samples=MES_Y_SAMPLES,
        )
        mes.posterior_max_values = f_star
        bt_acq["qMES"].append(mes(X_bt))
        bt_acq["qPES"].append(
            qPredictiveEntropySearch(model, optimal_inputs=x_star)(X_bt)
        )
        bt_acq["qJES"].append(
            qJointEntropySearch(model, optimal_inputs=x_star, optimal_outputs=f_star)(
                X_bt
            )
        )
bt_acq = {k: torch.stack(v) for k, v in bt_acq.items()}
assert post_err < 1e-6, post_err
print(f"exact GP posterior vs SingleTaskGP.posterior: max difference {post_err:.0e}")
var_bt = torch.diagonal(cov_bt, dim1=1, dim2=2).clamp_min(1e-12)
f_star_bt = f_bt.max(-1).values  # (BT_SETS, BT_REF_SAMPLES): every draw's maximum
tmes_shared = pfn.truncated_gaussian_mes(
    mu_bt, var_bt, NOISE_SD, f_star_bt[:, None, :N_OPTIMA], points=101
)
tmes_all = pfn.truncated_gaussian_mes(
    mu_bt, var_bt, NOISE_SD, f_star_bt[:, None, :], points=101
)
# BoTorch's qMES estimates the same number by Monte Carlo over MES_Y_SAMPLES values of y
icml26.checks.agree(
    "truncated-Gaussian MES by quadrature vs qMaxValueEntropy, same f* (nats)",
    tmes_shared,
    bt_acq["qMES"],
    atol=5e-3,
    rtol=0.0,
)
print(
    "truncated-Gaussian MES by quadrature and qMaxValueEntropy, on the same "
    f"{N_OPTIMA} f*:\nequal within 5e-3 nats at every grid point of every dataset"
)
# the grouped PES at the sample size of the training labels, the network's actual target
f_lab = pfn.sample_posterior(mu_bt, cov_bt, LABEL_SAMPLES + 1, generator=g_bt)
pes_label_m = pfn.grouped_entropy_search(
    f_lab.float(), idx_bt, NOISE_SD, kind="pes", bins=BINS, points=Y_POINTS
)[0].double()
acq_bt_net = alpha_pfn(nets[0], bt.x_ctx, bt.y_ctx, bt.mask, grid.expand(BT_SETS, -1))


def corr(a: torch.Tensor, b: torch.Tensor) -> float:
    return float(np.corrcoef(a.numpy(), b.numpy())[0, 1])


rho_mes = [corr(bt_acq["qMES"][i], ref_bt["mes"][i]) for i in range(BT_SETS)]
rho_pes = [corr(bt_acq["qPES"][i], ref_bt["pes"][i]) for i in range(BT_SETS)]
print("correlation over the grid with the grouped reference")
print("  n   qMES vs MES   qPES vs PES   α-network vs PES")
for i in range(BT_SETS):
    print(
        f"{int(bt.mask[i].sum()):3d}{rho_mes[i]:14.2f}{rho_pes[i]:14.2f}"
        f"{corr(acq_bt_net[i], ref_bt['pes'][i]):19.2f}"
    )
assert np.median(rho_mes) > 0.7 and np.median(rho_pes) > 0.5, (rho_mes, rho_pes)
columns = {
    "MES grp": ref_bt["mes"],
    "MES trunc": tmes_all,
    "qMES": bt_acq["qMES"],
    "PES grp": ref_bt["pes"],
    f"M={LABEL_SAMPLES + 1}": pes_label_m,
    "α-net": acq_bt_net,
    "qPES": bt_acq["qPES"],
    "qJES": bt_acq["qJES"],
}
print("mean over the grid, in nats")
print("  n" + "".join(f"{name:>10}" for name in columns))
for i in range(BT_SETS):
    print(
        f"{int(bt.mask[i].sum()):3d}"
        + "".join(f"{float(v[i].mean()):10.3f}" for v in columns.values())
    )

# %% [markdown]
# The posteriors agree to round-off. Given the same optimal samples, BoTorch's MES and PES
# *rank* the grid much as the grouped references do (the correlations above), but their
# *values* are lower, by up to a factor of three. For MES the value-level check locates the
# gap. On the `N_OPTIMA` values $f^\star$ that `qMaxValueEntropy` is given, our quadrature of
# the truncated-Gaussian information equals its Monte-Carlo estimate at every point, so
# BoTorch computes what it sets out to; and on *all* the $f^\star$ draws that our grouped MES
# bins ("MES trunc"), the truncated-Gaussian value stays below the grouped one. The gap is
# the approximation, not the samples: conditioning $f(x)$ only on $f(x) \le f^\star$ ignores
# that the maximum is attained somewhere, which is information too. The grouped estimator
# measures $\mathrm{MI}(y; g(I))$, which {prf:ref}`alpha-pfn-lem-binning` bounds above by the
# true information; its finite-$M$ bias runs the other way, but at $M$ = `BT_REF_SAMPLES` it
# is small — compare the column at the labels' sample size, where it is not.
# `qPredictiveEntropySearch` replaces the conditional on $x^\star$ by an
# expectation-propagation fit, and its values too are below the grouped PES.
# `qJointEntropySearch` lies above both references, as the information about
# $(x^\star, f^\star)$ must: it is at least the information about either (here in its mean
# over the grid, on every dataset of the table).
#
# Part of the α-network's offset comes from its labels. They were made with
# `LABEL_SAMPLES` + 1 draws, and at that sample size the grouped PES lies above its converged
# value where data are few — the finite-$M$ bias that follows
# {prf:ref}`alpha-pfn-lem-binning`, which the network learns as faithfully as the signal. The
# rest is the network's own error: on these four datasets it ranks the grid about as well as
# BoTorch's PES does, but in value it lies above both grouped estimates on three datasets and
# below them on the fourth. Pooled over the held-out datasets, 06.6 measures how much of the
# reference's variance it explains in nats; against BoTorch's estimators it should be
# compared in ranking only.

# %% tags=["hide-input"] mystnb={"figure": {"caption": "Three datasets of the BoTorch cross-check. Top: the GP posterior (mean ± 2 sd) and the data. Bottom: the acquisitions in nats — the reference PES (grouped Monte Carlo), the first α-network's mean, and BoTorch's PES, JES and MES on the same optimal samples; EI is rescaled to the reference's maximum, for its shape only. The network follows the shape of PES but, where data are few, sits above it: its labels were made with far fewer posterior draws than this reference, and carry their finite-sample bias (table above); on the third dataset it flattens the sharp peak. Note how closely EI's shape follows BoTorch's MES.", "name": "alpha-pfn-fig-acquisitions"}}
best_bt = bt.y_ctx.masked_fill(~bt.mask, -1e9).max(-1).values
ei_bt = pfn.expected_improvement(mu_bt, var_bt, best_bt[:, None])
fig, axes = plt.subplots(2, 3, figsize=(7.4, 4.6), sharex=True)
for c in range(3):
    m, s = mu_bt[c].numpy(), var_bt[c].sqrt().numpy()
    top, bot = axes[0, c], axes[1, c]
    top.plot(grid, bt.f[c], color="0.6", lw=1, label="true f")
    top.plot(grid, m, color=icml26.plotting.color(0), label="posterior mean")
    top.fill_between(
        grid, m - 2 * s, m + 2 * s, color=icml26.plotting.color(0), alpha=0.2
    )
    top.plot(bt.x_ctx[c][bt.mask[c]], bt.y_ctx[c][bt.mask[c]], "k.", ms=6)
    top.set_title(f"dataset {c}, n = {int(bt.mask[c].sum())}")
    bot.plot(grid, ref_bt["pes"][c], color="k", lw=2, label="reference PES")
    bot.plot(grid, acq_bt_net[c], color=icml26.plotting.color(1), label="α-network")
    for j, name in enumerate(("qPES", "qJES", "qMES")):
        bot.plot(
            grid,
            bt_acq[name][c],
            ("--", "-.", ":")[j],
            color=icml26.plotting.color(2 + j),
            lw=1.2,
            label=f"BoTorch {name}",
        )
    ei = ei_bt[c] / ei_bt[c].max() * ref_bt["pes"][c].max()
    bot.plot(grid, ei, color="0.55", lw=1, label="EI (rescaled)")
    bot.set_xlabel("x")
axes[0, 0].set_ylabel("f(x)")
axes[1, 0].set_ylabel("acquisition (nats)")
fig.legend(
    *axes[1, 0].get_legend_handles_labels(),
    loc="outside lower center",
    ncol=3,
    fontsize=8,
)
fig.suptitle("The α-network's mean against Monte-Carlo PES and BoTorch")
plt.show()

# %% [markdown]
# ### The authors' bar distribution on the trained network
#
# The α-PFN acquisition of this chapter is {func}`~icml26.bayesopt.pfn.bars.bar_mean` of the
# network's logits. The `alphapfn` package's `BarDistribution` with the same borders gives the
# same acquisition, entropy and NLL on every held-out (dataset, grid point).

# %%
with torch.no_grad():
    lg_te = nets[0](test.x_ctx, test.y_ctx, test.mask, grid.expand(TEST_SETS, -1))
package = BarDistribution(alpha_borders)
mids = 0.5 * (alpha_borders[1:] + alpha_borders[:-1])  # inside a bucket, off its edges
pick = torch.randint(0, ALPHA_BUCKETS, lg_te.shape[:2], generator=stream(SEED, 34))
y_in = mids[pick]
for what, ours, theirs in [
    ("mean", pfn.bar_mean(alpha_borders, lg_te), package.mean(lg_te)),
    ("entropy", pfn.bar_entropy(alpha_borders, lg_te), package.entropy(lg_te)),
    ("NLL", -pfn.bar_log_density(alpha_borders, lg_te, y_in), package(lg_te, y_in)),
]:
    icml26.checks.agree(f"α-PFN {what}: ours vs alphapfn", ours, theirs, atol=1e-9)
print(
    "mean, entropy and NLL agree with alphapfn on "
    f"{lg_te.shape[0] * lg_te.shape[1]} bars"
)

# %% [markdown]
# ### Noiseless MES and `scipy.stats.truncnorm`
#
# For noiseless observations, the MES conditional $p(f(x) \mid D, f^\star)$ is approximated by
# a Gaussian truncated above at $f^\star$;
# {func}`~icml26.bayesopt.pfn.entropy.truncated_normal_entropy` gives its entropy in closed form.

# %%
g_tn = stream(SEED, 33)
mu_c = torch.randn(50, generator=g_tn, dtype=torch.float64)
sd_c = torch.rand(50, generator=g_tn, dtype=torch.float64) + 0.1
gam_c = 6 * torch.rand(50, generator=g_tn, dtype=torch.float64) - 2  # γ in [−2, 4]
up_c = mu_c + sd_c * gam_c
want = [
    stats.truncnorm(-30.0, (u - m) / s, loc=m, scale=s).entropy()
    for m, s, u in zip(mu_c, sd_c, up_c, strict=True)
]
icml26.checks.agree(
    "truncated-normal entropy vs scipy",
    pfn.truncated_normal_entropy(mu_c, sd_c, up_c).numpy(),
    np.array(want),
    atol=1e-9,
)
print("truncated-normal entropies agree with scipy.stats.truncnorm on 50 cases")

# %% [markdown]
# ### 06.8 · Why it is fast
#
# *Claim*: evaluating the amortised acquisition on 1024 candidates is at least 10× faster than
# reference Monte-Carlo entropy search and than BoTorch's JES (with its `N_OPTIMA` optimal
# samples, which must be redrawn at every BO step). Process (CPU) time is measured for: the
# α-network forward; the grouped PES with $M$ = `TIME_SAMPLES` posterior samples on the 1024
# candidates (posterior and sampling included); BoTorch `get_optimal_samples` +
# `qJointEntropySearch`. BoTorch's MES and PES are timed in the book's benchmarks.
#
# The network is timed as it would be deployed: a float32 copy of the trained float64 network
# (the paper trains and runs its networks in mixed precision), whose acquisition agrees with
# the float64 one to about 1e-7. The references stay in float64, as BoTorch recommends for GP
# posteriors. Timings depend on the processor: the α-network and qJES are timed in three
# interleaved rounds and the claim reads the median of the three speed-ups. This set-up was
# chosen after a run with scalar-only kernels (no SIMD) had measured 12-16× for the float64
# network against qJES, close to the bar; the claim line carries that mark.

# %% tags=["nbval-ignore-output"]
ctx = test.x_ctx[:1], test.y_ctx[:1], test.mask[:1]
cand = torch.linspace(0, 1, TIME_CANDS, dtype=torch.float64)


def time_it(fn, repeats: int = 3) -> float:
    best = math.inf
    for _ in range(repeats):
        t0 = time.process_time()
        fn()
        best = min(best, time.process_time() - t0)
    return best


def reference_pes_1024():
    mu_, cov_ = pfn.gp_posterior(*ctx, cand, noise_sd=NOISE_SD, **prior)
    fs = pfn.sample_posterior(
        mu_, cov_, TIME_SAMPLES, generator=stream(SEED, 8)
    ).float()
    return pfn.grouped_entropy_search(
        fs,
        torch.arange(TIME_CANDS)[None],
        NOISE_SD,
        kind="pes",
        bins=BINS,
        points=Y_POINTS,
    )


model0 = pfn.fixed_gp_model(
    ctx[0][0][ctx[2][0]], ctx[1][0][ctx[2][0]], noise_sd=NOISE_SD, **prior
)


def botorch_jes_1024():
    xs, fs = get_optimal_samples(
        model0, torch.tensor([[0.0], [1.0]], dtype=torch.float64), num_optima=N_OPTIMA
    )
    with torch.no_grad():
        return qJointEntropySearch(model0, optimal_inputs=xs, optimal_outputs=fs)(
            cand[:, None, None]
        )


net32 = copy.deepcopy(nets[0]).float()  # the deployed network: a float32 copy
ctx32 = (ctx[0].float(), ctx[1].float(), ctx[2])
cand32, borders32 = cand[None].float(), alpha_borders.float()


def alpha_network_1024():
    with torch.inference_mode():
        return pfn.bar_mean(borders32, net32(*ctx32, cand32))


gap32 = (
    (alpha_network_1024().double() - alpha_pfn(nets[0], *ctx, cand[None])).abs().max()
)
print(f"float32 copy vs the float64 network: max |Δ acquisition| = {float(gap32):.0e}")
assert gap32 < 1e-4

ref_name = f"reference PES (M={TIME_SAMPLES})"
jes_name = f"BoTorch qJES ({N_OPTIMA} optima)"
rounds = [
    {
        "α-network": time_it(alpha_network_1024, 10),
        jes_name: time_it(botorch_jes_1024, 2),
    }
    for _ in range(3)
]
times = {
    "α-network": float(np.median([r["α-network"] for r in rounds])),
    ref_name: time_it(reference_pes_1024, 1),
    jes_name: float(np.median([r[jes_name] for r in rounds])),
}
for name, t in times.items():
    print(f"{name:>28}: {1e3 * t:8.1f} ms")
speedups = [
    times[ref_name] / times["α-network"],
    float(np.median([r[jes_name] / r["α-network"] for r in rounds])),
]
print("speed-ups (median of rounds):", [f"{s:.0f}×" for s in speedups])

# %% tags=["claim"]
# fails if: the α-network were not cheaper than sampling optima at every step
icml26.claim(
    "06.8",
    "comparisons where the α-network is < 10× faster (of 2)",
    sum(s < 10 for s in speedups),
    at_most=0,
    single_seed="process times: best of repeats, median of three rounds",
    no_control="the baselines are the two comparisons themselves",
    tuned="float32 network, after scalar kernels measured 12-16× in float64",
)

# %% tags=["hide-input", "nbval-ignore-output"] mystnb={"figure": {"caption": "Process time to score 1024 candidates once (log scale; one CPU thread). The α-network pays for its optima offline.", "name": "alpha-pfn-fig-time"}}
fig, ax = plt.subplots(figsize=(6.0, 2.4))
names = list(times)
ax.barh(
    names,
    [1e3 * times[n] for n in names],
    color=[icml26.plotting.color(c) for c in (1, 0, 2)],
)
ax.set_xscale("log")
ax.set_xlabel("time per acquisition over 1024 candidates (ms)")
ax.set_title("Amortised vs Monte-Carlo entropy search")
plt.show()

# %% [markdown]
# ### 06.9–06.10 · Bayesian optimisation with the α-network
#
# *Claims*: driving BO with the α-network's mean is as good as driving it with the entropy
# search it amortises — the paper's comparison, with GP-based ES under the same prior — and far
# better than random search. We run `BO_SEEDS` fresh prior functions, `BO_INIT` random initial
# points and `BO_ITERS` iterations on the grid, and compare the mean simple regret
# $f^\star - \max_{t} f(x_t)$ at the end. The reference is grouped Monte-Carlo PES with
# $M$ = `BO_SAMPLES` fresh posterior samples at every step. The tolerance, fixed in advance,
# is 0.02 above the reference's regret (2 % of the prior's standard deviation), and at most
# half of random search's regret. The control of both is EI, run on the same functions from
# the same initial designs: it reads the same posterior but ignores the law of the optimum,
# so if EI meets a threshold as well, that claim cannot tell amortised entropy search from
# expected improvement. The same network *untrained* — an acquisition that reads the data but
# has learnt nothing — is printed in each statement, for scale.

# %%
g_bo = stream(SEED, 9)
bo_f = pfn.sample_gp_prior(grid, BO_SEEDS, generator=g_bo, **prior)
g_random, g_bo_ref = stream(SEED, 30), stream(SEED, 31)


def posterior(x_ctx, y_ctx, mask):
    return pfn.gp_posterior(x_ctx, y_ctx, mask, grid, noise_sd=NOISE_SD, **prior)


def ei_acq(x_ctx, y_ctx, mask):
    m, c = posterior(x_ctx, y_ctx, mask)
    best = y_ctx.masked_fill(~mask, -1e9).max(-1).values
    return pfn.expected_improvement(m, torch.diagonal(c, dim1=1, dim2=2), best[:, None])


def random_acq(x_ctx, y_ctx, mask):
    return torch.rand(len(x_ctx), GRID, generator=g_random, dtype=torch.float64)


def reference_pes_acq(x_ctx, y_ctx, mask):
    m, c = posterior(x_ctx, y_ctx, mask)
    fs = pfn.sample_posterior(m, c, BO_SAMPLES, generator=g_bo_ref)
    idx = torch.arange(GRID).expand(len(x_ctx), -1)
    return pfn.grouped_entropy_search(
        fs, idx, NOISE_SD, kind="pes", bins=BINS, points=Y_POINTS
    )[0]


def net_acq(net):
    return lambda x_ctx, y_ctx, mask: alpha_pfn(
        net, x_ctx, y_ctx, mask, grid.expand(len(x_ctx), -1)
    )


untrained = []
for s in range(NET_SEEDS):
    torch.manual_seed(SEED + 100 + s)
    untrained.append(pfn.AlphaNet(ALPHA_BUCKETS).double())
methods = (
    [(f"α-network {s}", net_acq(net)) for s, net in enumerate(nets)]
    + [(f"untrained {s}", net_acq(net)) for s, net in enumerate(untrained)]
    + [("reference PES", reference_pes_acq), ("EI", ei_acq), ("random", random_acq)]
)
regret = {}
for name, acq in icml26.progress(methods, desc="BO runs"):
    regret[name] = pfn.bo_loop(
        bo_f,
        grid,
        acq,
        n_init=BO_INIT,
        n_iter=BO_ITERS,
        noise_sd=NOISE_SD,
        generator=stream(SEED, 32),  # the same initial designs and noise for all
    )
final = {name: float(r[:, -1].mean()) for name, r in regret.items()}
print("mean final simple regret:")
for name, v in final.items():
    print(f"  {name:>14}: {v:.3f}")
net_regret = [final[f"α-network {s}"] for s in range(NET_SEEDS)]
untrained_regret = [final[f"untrained {s}"] for s in range(NET_SEEDS)]

# %% tags=["claim"]
# fails if: the α-network drove BO worse than the PES it imitates (control: EI)
icml26.claim(
    "06.9",
    "BO mean regret: α-network − reference PES (untrained network "
    f"{np.mean(untrained_regret) - final['reference PES']:+.2f})",
    seeds=[r - final["reference PES"] for r in net_regret],
    rule="worst",
    at_most=0.02,
    control=final["EI"] - final["reference PES"],
    control_label="EI",
)

# %% tags=["claim"]
# fails if: the α-network carried no information about the optimum (control: EI)
icml26.claim(
    "06.10",
    "BO mean regret: α-network / random search (untrained network "
    f"{np.mean(untrained_regret) / final['random']:.1f})",
    seeds=[r / final["random"] for r in net_regret],
    rule="worst",
    at_most=0.5,
    control=final["EI"] / final["random"],
    control_label="EI",
)

# %% [markdown]
# All three networks find the optimum about as reliably as EI, and far more reliably than the
# Monte-Carlo PES they were trained to imitate. The reason is instructive: with $M$ samples the
# grouped estimator is noisy, and once every sample puts $x^\star$ in one bin its PES is
# exactly zero everywhere and its maximiser falls on the first grid point. The network's mean
# is smooth, because it averages the labels of many tasks — amortisation averages out the
# labels' Monte-Carlo noise as well as their cost. The untrained networks read the same data
# and do worse than random search.
#
# But EI meets both thresholds too, by a wide margin, so 06.9 and 06.10 are **NOT
# DISCRIMINATING**: on one-dimensional draws from a known prior, fifteen greedy steps of
# expected improvement find the optimum, and simple regret cannot show whether an acquisition
# has learnt entropy search or something EI-like. What these runs do show is that amortisation
# keeps the decisions usable — the trained networks are as good as EI, the untrained ones far
# worse than random search. The evidence that the network carries the entropy-search values
# and not EI's is 06.6; a BO setting in which entropy search beats EI would be needed to turn
# that into regret, and {ref}`alpha-pfn-ex-multimodal-bo` asks whether the multimodal prior is
# one.

# %% tags=["hide-input"] mystnb={"figure": {"caption": "Simple regret over BO iterations on fresh prior functions (median and interquartile range over functions; the $y$-axis is symmetric-log). The α-network finds the optimum about as fast as EI; the Monte-Carlo PES stalls on its sampling noise (see the text); random search and the untrained network lag far behind.", "name": "alpha-pfn-fig-regret"}}
fig, ax = plt.subplots(figsize=(6.4, 3.2))
steps = np.arange(BO_ITERS + 1)
shown = ["α-network 0", "reference PES", "EI", "random", "untrained 0"]
for c, name in enumerate(shown):
    q25, q50, q75 = np.quantile(regret[name].numpy(), [0.25, 0.5, 0.75], axis=0)
    ax.plot(steps, q50, color=icml26.plotting.color(c), label=name)
    ax.fill_between(steps, q25, q75, color=icml26.plotting.color(c), alpha=0.15)
ax.set_yscale("symlog", linthresh=1e-2)
ax.set(
    xlabel="BO iteration",
    ylabel="simple regret f* − max f(x_t)",
    title="BO driven by the amortised PES",
)
fig.legend(loc="outside lower center", ncol=5, fontsize=8)
plt.show()

# %% [markdown]
# (alpha-pfn-paper-bo)=
# ### Paper scale: Branin and Hartmann-3
#
# The paper's own experiment is BO in several dimensions on synthetic benchmarks, against
# GP-based entropy search. At `ICML26_SCALE=paper` the chapter runs a version of it; at the
# default scale this section only describes it (it takes about six minutes on one CPU
# thread), and its result is the paper-scale record printed under {ref}`alpha-pfn-limits`.
#
# - **Prior.** A zero-mean GP on $[0,1]^d$ with an ARD RBF kernel, output variance 1, noise
#   sd $\sigma_n$ = `ND_NOISE_SD`, and the paper's length-scale hyper-prior
#   $\ell_k \sim \mathrm{LogNormal}(-0.75 + \tfrac12 \log d,\ 0.75)$. A task lives on
#   `ND_POINTS` uniform points, where $f$ is drawn exactly;
#   $f^\star$ is its maximum over them, and context and candidates are among them.
# - **Labels.** MES, $I = f^\star$: `ND_LABEL_SAMPLES` posterior draws on the task's points
#   (exact GP with the task's own length-scales — the oracle stage 1 of this chapter, now
#   with sampled hyper-parameters), grouped into `ND_BINS` quantile bins of $f^\star$, with the
#   task's true $f$ as draw 0; no grid is involved
#   ({func}`~icml26.bayesopt.pfn.prior_nd.mes_labels`).
# - **α-network.** One per dimension, the DeepSets network of the chapter with
#   $d$-dimensional inputs (`AlphaNet(dim=d)`), context $y$ standardised per dataset,
#   `ND_BUCKETS` buckets at the labels' quantiles, trained on `ND_TRAIN_SETS` tasks ×
#   `ND_TRAIN_CANDS` candidates for `ND_STEPS` Adam steps of `ND_BATCH` tasks.
# - **BO.** BoTorch's Branin ($d = 2$) and Hartmann ($d = 3$), rescaled to $[0,1]^d$ and
#   negated, evaluated **without noise**; $2d$ uniform initial points, then `ND_ITERS`
#   iterations at which every method scores the same `ND_CANDS` fresh uniform candidates and
#   evaluates its best ({func}`~icml26.bayesopt.pfn.benchmarks.bo_benchmark`). Methods: the
#   α-network's mean; BoTorch's `qMaxValueEntropy` (`ND_MV_SAMPLES` max-value samples on the
#   candidates) and log-EI, each on a `SingleTaskGP` refitted by marginal likelihood at every
#   step (BoTorch's default priors); random search. `ND_RUNS` runs per method, with the same
#   initial designs and candidate sets for every method.
#
# *Claims*, with thresholds fixed before the runs. **06.13–06.14**, the paper's "competitive
# with GP-based entropy search": on each benchmark, the mean over runs of the difference in
# $\log_{10}$ final simple regret (regrets below `ND_FLOOR` count as `ND_FLOOR`), α-network
# minus GP-MES on the same run, is at most $\log_{10} 2 \approx 0.30$ — within a factor of two
# — decided by the upper 95 % confidence bound of the mean. The control is EI on the same
# GP: if it is within the factor as well, regret cannot tell amortised entropy search from
# expected improvement. Random search is printed in the statement, for scale. **06.15**, the
# speed-up: one acquisition step (scoring `ND_CANDS` candidates for one run at the final
# context size) is at least 1.6× faster with the α-network than with GP-MES, 1.6× being the
# smallest speed-up the paper reports. Our GP is fitted by marginal likelihood, far cheaper
# than the paper's MCMC, so this baseline is the harder one to beat.

# %%
dev = icml26.device()
ND_BENCH = {2: "branin", 3: "hartmann3"}


def nd_alpha_network(dim: int) -> tuple[pfn.AlphaNet, torch.Tensor, dict[str, float]]:
    """MES labels from the d-dimensional prior and an α-network trained on them."""
    g = stream(SEED, 40 + dim)
    t0 = time.perf_counter()
    tasks = pfn.make_tasks_nd(
        ND_TRAIN_SETS, dim, ND_POINTS, ND_N_CTX, ND_NOISE_SD, generator=g, device=dev
    )
    q = torch.rand(ND_TRAIN_SETS, ND_POINTS, generator=g).argsort(-1)
    q = q[:, :ND_TRAIN_CANDS].to(dev)
    lab = pfn.mes_labels(
        tasks, q, ND_LABEL_SAMPLES, ND_NOISE_SD, bins=ND_BINS, generator=g
    )[1]
    t1 = time.perf_counter()
    borders = pfn.quantile_borders(lab.reshape(-1), ND_BUCKETS)
    torch.manual_seed(SEED + dim)
    net = pfn.AlphaNet(ND_BUCKETS, dim=dim).double().to(dev)
    xq = tasks.x.gather(1, q[..., None].expand(-1, -1, dim))
    ys = pfn.standardize_context(tasks.y_ctx, tasks.mask)
    losses = pfn.train_alpha_net(
        net,
        borders,
        tasks.x_ctx,
        ys,
        tasks.mask,
        xq,
        lab,
        steps=ND_STEPS,
        batch=ND_BATCH,
        generator=stream(SEED, 50 + dim),
    )
    t2 = time.perf_counter()
    # fit on held-out prior tasks: the network's mean against a better-sampled MES
    te = pfn.make_tasks_nd(
        ND_TEST_SETS,
        dim,
        ND_POINTS,
        ND_N_CTX,
        ND_NOISE_SD,
        generator=stream(SEED, 60 + dim),
        device=dev,
    )
    qt = torch.arange(ND_POINTS, device=dev).expand(ND_TEST_SETS, -1)[:, :128]
    ref = pfn.mes_labels(
        te, qt, ND_REF_SAMPLES, ND_NOISE_SD, bins=ND_BINS, generator=stream(SEED, 61)
    )[0]
    xt = te.x[:, :128]
    yt = pfn.standardize_context(te.y_ctx, te.mask)
    with torch.no_grad():
        pred = pfn.bar_mean(borders, net(te.x_ctx, yt, te.mask, xt))
    stats_ = {
        "labels_s": t1 - t0,
        "train_s": t2 - t1,
        "nll_first": float(np.mean(losses[:50])),
        "nll_last": float(np.mean(losses[-50:])),
        "r2": float(
            np.corrcoef(pred.reshape(-1).cpu(), ref.reshape(-1).cpu())[0, 1] ** 2
        ),
        "spearman": float(
            np.median(
                [
                    stats.spearmanr(p.cpu(), r.cpu())[0]
                    for p, r in zip(pred, ref, strict=True)
                ]
            )
        ),
    }
    return net, borders, stats_


def nd_bo(
    dim: int, net: pfn.AlphaNet, borders: torch.Tensor
) -> dict[str, pfn.BOResult]:
    """Every method on one benchmark, from the same designs and candidate sets."""
    bench = pfn.benchmark(ND_BENCH[dim])
    methods = {
        "α-network": pfn.alpha_policy(net, borders),
        "GP-MES": pfn.gp_policy("mes", mv_samples=ND_MV_SAMPLES, seed=SEED),
        "GP-EI": pfn.gp_policy("ei", seed=SEED),
        "random": pfn.random_policy(stream(SEED, 70 + dim)),
    }
    return {
        name: pfn.bo_benchmark(
            bench,
            policy,
            runs=ND_RUNS,
            n_init=2 * dim,
            n_iter=ND_ITERS,
            candidates=ND_CANDS,
            generator=stream(SEED, 80 + dim),  # the same designs and candidates for all
            device=dev,
        )
        for name, policy in methods.items()
    }


def log_regret(r: pfn.BOResult) -> np.ndarray:
    """log10 of each run's final simple regret, floored at ND_FLOOR."""
    return np.log10(np.maximum(r.regret[:, -1].cpu().numpy(), ND_FLOOR))


def best_time(fn, repeats: int, *args) -> float:
    """The smallest process time of ``repeats`` calls ``fn(*args)``."""
    best = math.inf
    for _ in range(repeats):
        t0 = time.process_time()
        fn(*args)
        best = min(best, time.process_time() - t0)
    return best


# %%
nd_runs, nd_stats = {}, {}
if ND_RUN:
    for dim in ND_BENCH:
        net_d, borders_d, nd_stats[dim] = nd_alpha_network(dim)
        t0 = time.perf_counter()
        nd_runs[dim] = nd_bo(dim, net_d, borders_d)
        nd_stats[dim]["bo_s"] = time.perf_counter() - t0
        # one acquisition step for one run at the final context size
        last = nd_runs[dim]["GP-MES"]
        x1, y1 = last.x[:1, :-1], last.y[:1, :-1]
        c1 = torch.rand(
            1, ND_CANDS, dim, generator=stream(SEED, 90), dtype=torch.float64
        )
        c1 = c1.to(dev)
        alpha_1 = pfn.alpha_policy(net_d, borders_d)
        mes_1 = pfn.gp_policy("mes", mv_samples=ND_MV_SAMPLES, seed=SEED)
        nd_stats[dim]["alpha_step_s"] = best_time(alpha_1, 5, x1, y1, c1)
        nd_stats[dim]["mes_step_s"] = best_time(mes_1, 3, x1, y1, c1)
    for dim, st in nd_stats.items():
        nll0, nll1, r2, rho = (
            st[k] for k in ("nll_first", "nll_last", "r2", "spearman")
        )
        print(
            f"d = {dim}: α-network NLL {nll0:.2f} → {nll1:.2f}; held-out MES: "
            f"pooled R² {r2:.2f}, median Spearman {rho:.2f}"
        )
        print("  mean log10 final regret:", end="")
        for name, r in nd_runs[dim].items():
            print(f" {name} {log_regret(r).mean():.2f}", end=";")
        print()

# %% tags=["nbval-ignore-output"]
if ND_RUN:
    for dim, st in nd_stats.items():
        lab_s, train_s, bo_s = st["labels_s"], st["train_s"], st["bo_s"]
        a_ms, m_ms = st["alpha_step_s"] * 1e3, st["mes_step_s"] * 1e3
        print(
            f"d = {dim}: labels {lab_s:.0f} s, training {train_s:.0f} s, "
            f"BO {bo_s:.0f} s; one step: α-network {a_ms:.0f} ms, GP-MES {m_ms:.0f} ms"
        )

# %%
if ND_RUN:

    def versus_mes(dim: int, name: str) -> list[float]:
        runs = nd_runs[dim]
        return list(log_regret(runs[name]) - log_regret(runs["GP-MES"]))

    for cid, dim in (("06.13", 2), ("06.14", 3)):
        bench_name = {2: "Branin", 3: "Hartmann-3"}[dim]
        random_gap = np.mean(versus_mes(dim, "random"))
        # fails if: the α-network drove BO worse than GP-based MES (control: GP-EI)
        icml26.claim(
            cid,
            f"{bench_name} BO: log10 final regret, α-network − GP-MES "
            f"(random search {random_gap:+.2f})",
            seeds=versus_mes(dim, "α-network"),
            rule="mean-ci",
            at_most=0.30,
            digits=2,
            control=versus_mes(dim, "GP-EI"),
            control_label="GP-EI",
        )
    speedups = [
        nd_stats[d]["mes_step_s"] / nd_stats[d]["alpha_step_s"] for d in nd_stats
    ]
    # fails if: a forward pass of the α-network cost more than fitting a GP and its MES
    icml26.claim(
        "06.15",
        "one BO step: GP-MES time / α-network time, worst of Branin and Hartmann-3",
        measured=min(speedups),
        at_least=1.6,
        digits=2,
        no_control="the baseline is the comparison itself",
        single_seed="process times, the best of repeated calls",
    )

# %% tags=["hide-input"]
if ND_RUN:
    fig, axes = plt.subplots(1, 2, figsize=(6.4, 3.0), sharey=True)
    for ax, (dim, runs) in zip(axes, nd_runs.items(), strict=True):
        for c, (name, r) in enumerate(runs.items()):
            lr_ = np.log10(np.maximum(r.regret.cpu().numpy(), ND_FLOOR))
            q25, q50, q75 = np.quantile(lr_, [0.25, 0.5, 0.75], axis=0)
            it = np.arange(ND_ITERS + 1)
            ax.plot(it, q50, color=icml26.plotting.color(c), label=name)
            ax.fill_between(it, q25, q75, color=icml26.plotting.color(c), alpha=0.15)
        ax.set(xlabel="BO iteration", title={2: "Branin (d = 2)", 3: "Hartmann-3"}[dim])
    axes[0].set_ylabel("log10 simple regret")
    fig.suptitle("BO regret, median and IQR over runs", fontsize=9)
    fig.legend(*axes[0].get_legend_handles_labels(), loc="outside lower center", ncol=4)
    plt.show()

# %% [markdown]
# (alpha-pfn-limits)=
# ## Limits of this reproduction
#
# - **The paper's setting and this one.** The paper trains a transformer base PFN and three
#   α-PFN heads (PES, MES, JES) on about $10^8$ datasets from a prior that samples the
#   dimension ($d \le 6$) and the GP hyper-parameters (log-normal length-scales and noise),
#   with 5000 bar buckets and order of a GPU-day per model, and evaluates BO on Branin,
#   Hartmann, Ackley, LCBench and HPO-B against GP-based entropy search with NUTS over the
#   hyper-parameters. Here, at the default scale: one PES head, a DeepSets network with a few
#   thousand parameters, `TRAIN_SETS` × `TRAIN_CANDS` = 8192 labels, 500 Adam steps, a 1-D
#   grid of 64 points, fixed hyper-parameters. The `paper` scale of the parameters cell
#   enlarges this toy (2048 training tasks with 512 posterior samples per label, 3000 steps
#   of 32 tasks, a 128-point grid, 32 bins, 100 test sets and 60 BO functions) and adds a
#   step towards the paper's setting, BO in two and three dimensions
#   ({ref}`alpha-pfn-paper-bo`); how far that step goes is said below, with its record.
# - **Stage 1 is an oracle.** Labels use the exact GP posterior and grouped posterior samples
#   instead of a trained conditional PFN, so they carry Monte-Carlo and binning error
#   ({prf:ref}`alpha-pfn-lem-binning`) but not the base PFN's approximation error, which the
#   paper's α-PFN inherits. **Contexts are uniform**, not the paper's BO-like trajectories; the
#   BO experiment asks the network to extrapolate to clustered contexts, which it does here.
# - **One head.** The chapter trains the PES head, because on this prior EI follows MES too
#   closely for a test of "learnt MES" to tell entropy search from EI (table in
#   {ref}`alpha-pfn-es-vs-ei`). MES and JES heads are not trained; BoTorch's MES and JES appear
#   only as cross-checks of the references.
# - **06.7 is NOT REPRODUCED.** The network's values follow PES (06.6), but acting on its
#   maximiser loses about a quarter of the attainable PES, not at most a tenth; EI loses more,
#   UCB about as much. The threshold was fixed before the run and is not moved. The decisions
#   are nevertheless good enough for BO (06.9–06.10), where simple regret, not the PES of one
#   step, is what counts.
# - **06.9–06.10 are NOT DISCRIMINATING.** The network drives BO as well as the entropy search
#   it imitates (better, in fact, than its noisy Monte-Carlo reference) and far better than
#   random search, while the same network untrained does worse than random. But EI, their
#   control, meets both thresholds as well: on one-dimensional GP draws with a known prior,
#   greedy improvement finds the optimum within fifteen steps, so regret here cannot tell
#   entropy search from EI. The thresholds were fixed before the runs and are not moved. Only
#   06.6 (values) puts EI on the failing side of a claim the network passes. At the default
#   scale no BO benchmark in more dimensions is run; the paper scale runs Branin and
#   Hartmann-3 (below). On the multimodal 1-D prior EI kept its lead in our runs, and a
#   network trained at this budget fell behind both ({ref}`alpha-pfn-ex-multimodal-bo`).
# - **Estimators disagree in nats.** BoTorch's MES and PES rank like the grouped references
#   but are lower in value; for MES the whole gap is the truncated-Gaussian approximation
#   (same $f^\star$ draws, Cross-check). The claims compare the network with the estimator
#   that made its labels. That estimator is biased low by its bins and high by its finite
#   $M$, and the labels' $M$ is small enough that the network learns the second bias too: its
#   values sit above a well-converged reference where data are few.
# - **Not tested:** the paper's benchmarks Ackley, LCBench and HPO-B (Branin and Hartmann-3
#   only at paper scale), extrapolation to 16 dimensions, the fully Bayesian treatment of hyper-parameters, and the
#   paper's runtime table, which depends on hardware and on the baselines' Monte-Carlo
#   settings. The speed-up claim (06.8) is measured against our Monte-Carlo reference and
#   BoTorch's JES on one CPU thread, not against GP-MCMC.
#
# **Paper scale.** `ICML26_SCALE=paper` does two things. It enlarges the one-dimensional toy
# (a 128-point grid, 2048 training tasks labelled from 512 posterior samples each, 3000
# training steps of 32 tasks, 60 BO runs per method), and it runs {ref}`alpha-pfn-paper-bo`:
# an MES α-network per dimension, trained on a GP prior with the paper's length-scale
# hyper-prior, drives BO on Branin ($d = 2$) and Hartmann-3 against BoTorch's GP-based MES
# and EI (claims 06.13–06.15, which only the record holds). That is the paper's kind of
# experiment, still far from its scale:
#
# | | paper | paper scale here |
# |---|---|---|
# | dimensions | one transformer for $d$ = 1–6, tested up to 16 | one DeepSets network per $d$, $d$ = 2, 3 |
# | training data | about $10^8$ datasets | 1024 tasks × 32 labels per $d$ (256 posterior draws each) |
# | training | 2500 × 100 steps of 100 datasets, about a GPU-day per head | 2000 Adam steps of 16 tasks, one CPU thread |
# | output | 5000 buckets; PES, MES and JES heads | 64 buckets; MES head only |
# | stage 1 | a conditional base PFN | the exact GP at the task's length-scales |
# | contexts | BO-like trajectories | uniform |
# | BO | 30 repetitions, continuous maximisation, GP baselines with NUTS | 10 runs × 20 iterations after $2d$ initial points, 1024 random candidates per step, GP by marginal likelihood, noiseless |
#
# What it found: the amortised acquisition is fast (06.15), but it did not drive BO as well as
# GP-based MES on either benchmark — 06.13 and 06.14 are **NOT REPRODUCED**, while their
# control, EI on the same GP, stays within the factor of two. The network did better than
# random search on Branin and not on Hartmann-3. It learnt the prior's own MES only in part
# (its fit on held-out prior tasks is printed by the section), and the benchmarks differ
# from its training data: their contexts cluster like BO trajectories instead of being
# uniform, and their standardised values do not look like GP draws. The experiment does not
# test the paper's claim at the paper's scale; what it shows is that about a minute of CPU
# training per dimension, on uniform contexts, is not enough for the amortised acquisition
# to act like the GP's. The thresholds were fixed before the run and are not moved.
#
# Its record, with the verdicts that differ from this run's:

# %%
from icml26.pipeline import paper

paper.show("06-alpha-pfn")

# %% [markdown]
# ## Exercises
#
# ````{exercise} Negative labels
# :label: alpha-pfn-ex-negative
#
# (a) Give a two-component example in which conditioning on one value of $I$ *increases* the
# entropy of $y$. (b) Why must the α-network's bar cover negative values, and what goes wrong if
# the labels are clamped at 0 before training? (c) Check on the training labels above how much
# the mean would move.
# ````
#
# ````{solution} alpha-pfn-ex-negative
# :class: dropdown
#
# (a) Let $I = 0$ with probability 0.9 and $y \mid I{=}0 \sim \mathcal N(0, 0.01)$, and $I = 1$
# with probability 0.1 and $y \mid I{=}1 \sim \mathcal N(0, 100)$: a rare optimum under which $y$
# would be very uncertain. Then $H[y \mid I{=}1] = \tfrac12\log(2\pi e \cdot 100) \approx 3.72$,
# while $H[y] \le H(I) + \sum_i P(i) H[y \mid i] \approx 0.33 - 0.79 + 0.37 \approx -0.09$, so
# the single-$I$ label $H[y] - H[y \mid I{=}1]$ is below $-3.8$ nats. The average over $I$ is
# still the mutual information, $\ge 0$. (b) By {prf:ref}`alpha-pfn-prop-nll` the mean of the
# learnt law equals the mean of the labels; clamping at 0 replaces the law by its positive part
# and biases the mean upwards, most where labels are often negative. (c)
# `labels.clamp_min(0).mean() - labels.mean()`.
# ````
#
# ````{exercise} More bins, larger values
# :label: alpha-pfn-ex-bins
#
# Recompute the reference PES on the test sets with 8, 16, 32 and 64 bins (and $M$ large enough
# that each bin holds at least 50 samples). Predict from {prf:ref}`alpha-pfn-lem-binning` how the
# mean acquisition changes, then measure it. Does the ranking over the grid change?
# ````
#
# ````{solution} alpha-pfn-ex-bins
# :class: dropdown
#
# The grouped estimator is $\mathrm{MI}(y; g(I))$, and refining the bins refines $g$, so by data
# processing the mean acquisition increases monotonically with the number of bins (for $M \to
# \infty$) towards $\mathrm{MI}(y; x^\star)$ on the grid. Expect the rankings to change much
# less than the values: the bias is close to a common factor over the grid of one dataset,
# which is why the coarse reference is still a useful target. With small $M$, fine bins become
# noisy: the mixture entropy of a handful of samples is itself biased low, so the estimate
# rises for the wrong reason (the finite-$M$ bias of the lemma's remark).
# ````
#
# ````{exercise} An MES head
# :label: alpha-pfn-ex-mes
#
# Train the same network on MES labels (`kind="mes"` in `pes_labels`) and repeat 06.6 against
# the reference MES, with EI mapped into nats on the MES labels as the control. Predict from
# the table in {ref}`alpha-pfn-es-vs-ei` whether the claim discriminates, then measure.
# ````
#
# ````{solution} alpha-pfn-ex-mes
# :class: dropdown
#
# EI's pooled correlation with the reference MES is about 0.78 on this prior, so EI mapped into
# nats can explain up to about 0.6 of its variance, while the MES labels are noisier than the
# PES labels (a quarter of them negative) and a network trained for seconds reaches a similar
# $R^2$. Expect the control to pass the threshold of 0.5 as well, or the network to fail it:
# either NOT DISCRIMINATING or NOT REPRODUCED. On the multimodal prior, where EI departs from
# MES, the test has more room — a reason to evaluate amortised MES where it differs from EI.
# ````
#
# ````{exercise} A Gaussian α-head
# :label: alpha-pfn-ex-gaussian
#
# Replace the bar output of `AlphaNet` by a Gaussian (two outputs, mean and log-variance) trained
# by Gaussian NLL on the same labels. (a) Which part of {prf:ref}`alpha-pfn-prop-nll` still holds —
# is the Gaussian mean at the optimum still the conditional mean? (b) Compare the pooled $R^2$
# with reference PES and the test NLL with the bar head's.
# ````
#
# ````{solution} alpha-pfn-ex-gaussian
# :class: dropdown
#
# (a) For a Gaussian family the expected NLL is minimised, pointwise in $(D, x)$, by matching the
# first two moments, so a flexible enough Gaussian head still has the conditional mean as its
# mean — the acquisition survives. What fails is the KL part: the Gaussian cannot represent the
# skewed, heavy-right-tailed law of $\tilde\alpha$ (with its atom at zero, where every sample
# puts $x^\star$ in one bin), so its NLL stays above $H[p]$ by the KL from the best Gaussian, as
# in the control of 06.5. (b) The Gaussian NLL is pulled by the heavy right tail of the labels
# (the log-variance absorbs outliers), so with the same budget of steps its mean is learnt from
# noisier gradients; measure whether its $R^2$ falls below the bar head's. The paper's choice of
# a bar head also keeps the base PFN and the α-PFN on one output family.
# ````
#
# ````{exercise} BO where EI and PES part ways
# :label: alpha-pfn-ex-multimodal-bo
#
# On the multimodal prior ($\ell$ = `MULTIMODAL_LS`) EI's values follow PES no better than on
# the chapter's prior (table in {ref}`alpha-pfn-es-vs-ei`). Make training labels from that
# prior, train three α-networks, and repeat 06.9–06.10 on fresh multimodal functions with EI as
# the control. Before running, write down which of EI, the reference PES and the network you
# expect to reach the lowest regret, and why.
# ````
#
# ````{solution} alpha-pfn-ex-multimodal-bo
# :class: dropdown
#
# With about three times as many bumps, 64 grid points and 17 evaluations, the posterior over
# $x^\star$ stays spread for longer, so the grouped PES is rarely flat and its decisions are
# less noisy than on the chapter's prior. Whether it then beats EI is an empirical question:
# EI also explores, through $\sigma(x)$, and in one dimension the grid is small enough that
# a greedy search visits most bumps. Expect the network, trained with the same budget on a
# harder prior, to fit PES less well than here (measure 06.6 on this prior first): a claim
# that EI fails requires *both* a regime in which the reference beats EI and a network that
# follows the reference there. In our runs of this exercise (two sets of 20 functions, with
# other seeds than the chapter's) neither held: EI kept the lowest mean regret, the
# Monte-Carlo PES was several times worse, and a single network trained with this chapter's
# budget was worse still, once worse than random search. Report the verdicts as the claims
# print them.
# ````
#
# ````{exercise} Amortising JES
# :label: alpha-pfn-ex-jes
#
# Extend `grouped_entropy_search` to JES ($I = (x^\star, f^\star)$) by grouping on the product
# of the argmax bins and the $f^\star$ bins, train a JES head, and compare its BO regret with the
# PES head. What happens to the number of samples per group?
# ````
#
# ````{solution} alpha-pfn-ex-jes
# :class: dropdown
#
# Group index $g = b_{x}(m) \cdot B_f + b_f(m)$; with 16 × 16 groups and $M = 256$ most groups
# hold one or two samples, and a mixture of one Gaussian has entropy exactly
# $\tfrac12\log(2\pi e \sigma_n^2)$, so the estimate saturates at $H[y] - \tfrac12\log(2\pi e
# \sigma_n^2)$, the information of a noiseless $f(x)$. Use coarser bins for the joint grouping
# (e.g. 4 × 4) or many more samples. JES conditions on more, so its values are larger than MES
# and PES (as BoTorch's JES is in the cross-check); the paper finds its head the most robust of
# the three.
# ````
#
# ## Summary
#
# - Entropy search (PES, MES, JES) is the mutual information between the next observation and
#   the optimum; grouping posterior samples by optimum bins estimates a lower bound of it.
# - A bar distribution has an exact entropy (06.1–06.2), and an NLL-trained bar head learns a
#   conditional law: its mean, not its mode, is the conditional mean (06.3–06.5,
#   Proposition 4.1).
# - The α-PFN trains on labels built from each task's *true* optimum; by Proposition 4.1 the
#   mean of its output is the entropy-search value. At toy scale the PES head reproduces the
#   reference in nats, which EI cannot (06.6); its maximisers are not yet those of PES (06.7).
# - MES and EI are close cousins in one dimension; PES is where entropy search departs from EI.
# - The expectation over optima moves offline: one forward pass replaces per-step sampling of
#   optima (06.8). BO with the amortised acquisition finds the optimum as EI does, better than
#   its noisy Monte-Carlo reference — but so does EI, so these runs cannot tell the two apart
#   (06.9–06.10, not discriminating).
