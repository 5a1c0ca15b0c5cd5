# ---
# jupyter:
#   jupytext:
#     formats: ipynb,py:percent
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
#       jupytext_version: 1.19.3
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 16 · debiasing — Debiasing for robustness to prompt perturbations
#
# ## Overview
#
# Ask a language model the same question twice, once with a typo, a synonym or an extra
# "please", and it may answer differently. None of these changes alters the meaning of the
# prompt; they are *random* and *non-adversarial*, yet they move benchmark scores by many
# points. {cite:t}`zhou2026harnessing` ask whether robustness to such meaning-preserving
# perturbations can be obtained without retraining the whole model. Their answer rests on one
# object: the **perturbation-induced bias** of a network module, the *systematic expected
# shift* $\mathbb{E}[M(h + \Delta h)] - M(h)$ of its output when its input is perturbed at
# random. The abstract reports that this shift, more than the module's sensitivity (its
# Lipschitz constant) alone, decides robustness; that a cheap fine-tuning, *debiasing for
# robustness*, removes much of it; that there are identifiable conditions under which
# debiasing helps and others under which it does not; and that debiasing enables
# certification against random prompt perturbations.
#
# "Bias" here is a statistical word, the mean of an error, as in the bias–variance
# decomposition. It has nothing to do with social or fairness bias.
#
# By the end of the chapter you will be able to: split the damage a perturbation does to any
# module's output into a bias part and a fluctuation part, and say which part a constant
# correction can undo; compute the bias that a ReLU creates from zero-mean noise in closed
# form; measure the per-layer bias of a trained network in one batched pass; fine-tune only the
# bias parameters of a network (BitFit {cite}`benzaken2022bitfit`) and predict when that
# helps; and certify a prediction against random perturbations with Clopper–Pearson
# {cite}`clopper1934use` and Cantelli bounds.
#
# ```{admonition} What the paper states and what this chapter reconstructs
# :class: warning
#
# **The paper's** (from its abstract; the full text was not available to us): the central
# object, a systematic expected shift $\mathbb{E}[M(x + \delta x)] - M(x)$ of module outputs
# produced by nonlinearity even for meaningless perturbations; the qualitative claims that it
# is a crucial factor for robustness, that fine-tuning can remove it cheaply, that this helps
# under some conditions and not others, and that it enables certification. The paper's
# definitions, theorem statements, models, benchmarks and numbers are not reproduced, and no
# number in this chapter is the paper's.
#
# **Reconstructed here:** every numbered result below. {prf:ref}`debiasing-lem-split` and
# {prf:ref}`debiasing-lem-jensen` are classical probability applied to the stated mechanism;
# {prf:ref}`debiasing-prop-cantelli` (a one-sided certificate) and
# {prf:ref}`debiasing-prop-certify` (statistical certification) are our reading of
# "certification against random prompt perturbations". The debiasing recipe (which parameters,
# which loss, how many steps) is our choice: bias-only fine-tuning on a mixture of clean and
# perturbed prompts. The toy task, model and perturbation families are our own design, not the
# paper's LLM experiments.
# ```
#
# ## Setting and notation
#
# A network is a composition of modules, $f = M_L \circ \dots \circ M_1$, with
# representations $h_\ell(x)$ after module $\ell$. A random, meaning-preserving perturbation
# $\pi \sim \Pi$ maps a prompt $x$ to $\pi(x)$, which changes every representation.
#
# | symbol | meaning |
# |---|---|
# | $x$, $\pi \sim \Pi$ | a prompt; a random perturbation from a family $\Pi$ |
# | $h_\ell(x)$ | representation after module $\ell$ (width $D_\ell$) |
# | $\Delta_\ell = h_\ell(\pi(x)) - h_\ell(x)$ | change of layer $\ell$ caused by the perturbation |
# | $b_\ell(x) = \mathbb{E}_\Pi[\Delta_\ell]$ | perturbation-induced bias at prompt $x$ |
# | $\xi_\ell = \Delta_\ell - b_\ell(x)$ | zero-mean fluctuation |
# | $\bar b_\ell = \mathbb{E}_x[b_\ell(x)]$ | input-independent (pooled) part of the bias |
# | $\rho_\ell = \lVert \bar b_\ell\rVert^2 / \mathbb{E}\lVert\Delta_\ell\rVert^2$ | share of the damage that is a constant shift |
# | $z(x) \in \mathbb{R}^2$, $m(x) = z_y - z_{y'}$ | logits; margin of the label $y$ over the other class $y'$ |
# | $w$ | difference of the head's two weight columns: $m$ changes by $w \cdot \Delta$ |
# | $\beta$, $\sigma^2$ | mean and variance of $w\cdot\Delta$ over $\Pi$ at one prompt |
# | $\Phi$, $\varphi$ | standard normal distribution function and density |
# | $n$, $k$, $p_L$, $q$ | perturbations drawn, of which correct; certified lower bound; level |
#
# Expectations $\mathbb{E}_\Pi$ are over the perturbation at a fixed prompt, $\mathbb{E}_x$
# over prompts; the *bias* in this chapter is always $b$ or $\bar b$, never a network's
# bias parameters, which we call "bias parameters".

# %% [markdown]
# ## Theory
#
# ```{prf:definition} Perturbation-induced bias
# :label: debiasing-def-bias
#
# For a module $M$, an input $h$ and a random input change $\Delta h$ induced by $\pi \sim
# \Pi$, the *perturbation-induced bias* is $b_M(h) = \mathbb{E}_\Pi[M(h + \Delta h)] - M(h)$
# and the *fluctuation* is $\xi = M(h + \Delta h) - \mathbb{E}_\Pi[M(h + \Delta h)]$, so that
#
# $$
# M(h + \Delta h) - M(h) = b_M(h) + \xi, \qquad \mathbb{E}_\Pi[\xi] = 0 .
# $$ (debiasing-eq-split)
# ```
#
# ```{prf:lemma} Bias–variance split, and what a constant correction removes
# :label: debiasing-lem-split
#
# For every prompt, $\mathbb{E}_\Pi\lVert \Delta\rVert^2 = \lVert b(x)\rVert^2 +
# \mathbb{E}_\Pi\lVert\xi\rVert^2$. Averaged over prompts, for any constant vector $c$,
#
# $$
# \mathbb{E}_x \mathbb{E}_\Pi \lVert \Delta - c\rVert^2 = \lVert \bar b - c\rVert^2 +
# \operatorname{tr}\operatorname{Cov}_x(b) + \mathbb{E}_x\mathbb{E}_\Pi\lVert\xi\rVert^2 ,
# $$ (debiasing-eq-constant)
#
# minimised by $c^\star = \bar b$. A constant correction removes exactly the share $\rho =
# \lVert\bar b\rVert^2/\mathbb{E}\lVert\Delta\rVert^2$ of the mean squared change; the
# input-dependent bias $\operatorname{tr}\operatorname{Cov}_x(b)$ and the fluctuation remain.
# The identities also hold for the sample moments when $b(x)$ is the mean over the prompt's
# own perturbations, every prompt has the same number of them, and all moments use the
# divisor $n$ (not $n - 1$).
# ```
#
# ```{prf:proof}
# Write $\Delta - c = (b(x) - c) + \xi$ and expand the square. The cross term is $2(b(x) -
# c)^\top \mathbb{E}_\Pi[\xi] = 0$, so $\mathbb{E}_\Pi\lVert\Delta - c\rVert^2 = \lVert b(x) -
# c\rVert^2 + \mathbb{E}_\Pi\lVert\xi\rVert^2$; $c = 0$ gives the first identity. Averaging
# over $x$ and writing $b(x) - c = (b(x) - \bar b) + (\bar b - c)$, the cross term vanishes
# again because $\mathbb{E}_x[b(x) - \bar b] = 0$, which leaves
# {eq}`debiasing-eq-constant`. The sample version is the same computation with $\mathbb{E}$
# replaced by the empirical means; the cross terms vanish exactly under the stated conditions
# (empirical means of deviations from their own mean are zero), and only then.
# ```
#
# The lemma measures the corrected *perturbed* output against the *uncorrected clean* one.
# A correction built into the network, however, moves clean and perturbed outputs alike: if
# $c$ is subtracted after module $\ell$ for every input, $\Delta_\ell$ and $b_\ell$ do not
# change at all. A constant correction therefore helps on perturbed traffic and costs on clean
# traffic; $\rho_\ell$ large is necessary for it to help, not sufficient. Fine-tuning the bias
# parameters can do more than a constant shift only through the nonlinearities downstream, for
# instance by switching off ReLU units that fire only under perturbation. Experiments 16.5 and
# 16.6 measure both effects.
#
# Where does the bias come from, if the perturbations are "meaningless"?
#
# ```{prf:lemma} Jensen gap of a nonlinearity
# :label: debiasing-lem-jensen
#
# Let $M$ be twice continuously differentiable near $h$, $\mathbb{E}[\Delta h] = \mu$ and
# $\operatorname{Cov}(\Delta h) = \Sigma$. Then, with $J$ the Jacobian and $\nabla^2 M_k$ the
# Hessian of output $k$ at $h$,
#
# $$
# b_{M,k}(h) = (J\mu)_k + \tfrac12 \operatorname{tr}\big(\nabla^2 M_k\,(\Sigma +
# \mu\mu^\top)\big) + O\big(\mathbb{E}\lVert\Delta h\rVert^3\big).
# $$ (debiasing-eq-taylor)
#
# For the ReLU and Gaussian noise $\varepsilon \sim \mathcal{N}(0, s^2)$, exactly,
# $\mathbb{E}[\operatorname{ReLU}(z + \varepsilon)] = z\,\Phi(z/s) + s\,\varphi(z/s)$, so the bias
# is
#
# $$
# \begin{aligned}
# g(z, s) &= s\,\varphi(z/s) - \lvert z\rvert\,\Phi(-\lvert z\rvert/s) \ \ge\ 0 ,\\
# g(0, s) &= \frac{s}{\sqrt{2\pi}} \approx 0.399\,s ,
# \end{aligned}
# $$ (debiasing-eq-gap)
#
# and $g(z, s) \to 0$ as $\lvert z\rvert/s \to \infty$.
# ```
#
# ```{prf:proof}
# The expansion is Taylor's theorem with integral remainder, $M_k(h + \Delta h) = M_k(h) +
# \nabla M_k^\top \Delta h + \frac12\Delta h^\top\nabla^2M_k\,\Delta h + R_3$, in
# expectation: $\mathbb{E}[\Delta h\,\Delta h^\top] = \Sigma + \mu\mu^\top$ and
# $\mathbb{E}[\Delta h^\top A\,\Delta h] = \operatorname{tr}(A\,\mathbb{E}[\Delta h\Delta
# h^\top])$; $\lvert R_3\rvert$ is bounded by the third derivatives times
# $\lVert\Delta h\rVert^3$ (this is a sketch: it needs bounded third derivatives on the
# support of $\Delta h$). For the ReLU, with $u = z + \varepsilon \sim \mathcal{N}(z, s^2)$,
# $\mathbb{E}[u\,\mathbb{1}\{u>0\}] = z\,\mathbb{P}(u > 0) + s^2 p_u(0) = z\,\Phi(z/s) +
# s\,\varphi(z/s)$, using $\mathbb{E}[(u - z)\mathbb{1}\{u>0\}] = s^2 p_u(0)$ for a Gaussian
# density $p_u$. Subtracting $\operatorname{ReLU}(z) = z\,\mathbb{1}\{z > 0\}$ gives
# $s\varphi(z/s) + z(\Phi(z/s) - \mathbb{1}\{z>0\})$, and $\Phi(z/s) - 1 = -\Phi(-z/s)$ for
# $z > 0$ turns both cases into {eq}`debiasing-eq-gap`. Non-negativity is Jensen's inequality
# (the ReLU is convex); the limit follows from the Gaussian tail $\Phi(-t) \le \varphi(t)/t$.
# ```
#
# So even zero-mean noise shifts a ReLU's output upward, most of all for units near their
# threshold; and perturbations that are not zero-mean in embedding space (inserted filler
# words whose embeddings share a common direction) add the first-order term $J\mu$. Each
# layer's bias becomes part of the next layer's $\mu$: biases compound with depth.
#
# The bias matters for a decision because the decision is one-sided. For two classes the
# perturbed margin is $m + w\cdot\Delta$, where $\Delta$ is the change of the penultimate
# representation.
#
# ```{prf:proposition} A one-sided certificate (Cantelli)
# :label: debiasing-prop-cantelli
#
# Let $\beta = \mathbb{E}_\Pi[w\cdot\Delta]$ and $\sigma^2 = \operatorname{Var}_\Pi(w\cdot\Delta)$ at
# a prompt with margin $m$. If $m + \beta > 0$,
#
# $$
# \mathbb{P}_\Pi\big[m + w\cdot\Delta \le 0\big] \ \le\ \frac{\sigma^2}{\sigma^2 + (m + \beta)^2} ;
# $$ (debiasing-eq-cantelli)
#
# if $m + \beta < 0$ (a bias larger than the margin, pointing the wrong way), the same
# inequality applied to the other tail gives $\mathbb{P}_\Pi[m + w\cdot\Delta < 0] \ge (m +
# \beta)^2/(\sigma^2 + (m+\beta)^2)$: when $\sigma \ll \lvert m + \beta\rvert$ almost every
# perturbation errs, however small the fluctuations. Removing $\beta$ restores the bound
# $\sigma^2/(\sigma^2 + m^2)$. The bounds hold for the empirical distribution of any finite
# set of perturbations when $\beta$ and $\sigma^2$ (divisor $n$) are computed from that set.
# ```
#
# ```{prf:proof}
# Cantelli's inequality: for a random variable $Y$ with mean $0$ and variance $\sigma^2$ and
# any $t > 0$, $\mathbb{P}[Y \le -t] \le \sigma^2/(\sigma^2 + t^2)$. (For every $a \ge 0$,
# $\mathbb{P}[Y \le -t] \le \mathbb{P}[(a - Y)^2 \ge (a + t)^2] \le (\sigma^2 + a^2)/(a +
# t)^2$ by Markov's inequality; $a = \sigma^2/t$ minimises the right-hand side.) Apply it to
# $Y = w\cdot\Delta - \beta$ and $t = m + \beta$: $\{m + w\cdot\Delta \le 0\} = \{Y \le -t\}$.
# For $m + \beta < 0$ apply it to $-Y$ and $t = -(m + \beta)$ and take complements. The
# empirical distribution of a finite sample is a distribution, so the statement holds for it
# exactly.
# ```
#
# ```{prf:proposition} Statistical certification (Clopper–Pearson)
# :label: debiasing-prop-certify
#
# Draw $n$ independent perturbations of a prompt and let $k$ of them leave the answer
# correct. With probability at least $1 - \alpha$ over the draws,
#
# $$
# \mathbb{P}_\Pi[\text{correct}] \ \ge\ p_L = \operatorname{Beta}^{-1}(\alpha;\, k,\, n - k + 1)
# \qquad (p_L = 0 \text{ if } k = 0).
# $$ (debiasing-eq-cp)
#
# The prompt is *certified at level $q$* when $p_L \ge q$. At $n = 100$, $\alpha = 0.05$,
# certification at $q = 0.9$ needs $k \ge 96$, at $q = 0.95$ it needs $k \ge 99$.
# ```
#
# ```{prf:proof}
# Let $p$ be the true probability and $K \sim \operatorname{Bin}(n, p)$. For fixed $k$ the
# tail $p \mapsto \mathbb{P}_p[K \ge k]$ is continuous and increasing and equals
# $I_p(k, n - k + 1)$, the regularised incomplete beta function (the order-statistic
# identity), so $p_L(k)$ is the $p$ at which this tail equals $\alpha$, and $p_L(k) > p$
# exactly when $\mathbb{P}_p[K \ge k] < \alpha$. Since the tail decreases in $k$, these $k$
# form a set $\{k \ge k^\ast\}$, hence $\mathbb{P}_p[p_L(K) > p] = \mathbb{P}_p[K \ge
# k^\ast] < \alpha$. The thresholds follow from evaluating {eq}`debiasing-eq-cp`: $p_L =
# 0.8977$ at $k = 95$, $0.9108$ at $96$, $0.9534$ at $99$ and $0.05^{1/100} = 0.9705$ at
# $100$.
# ```

# %% tags=["hide-input"]
import time

import matplotlib.pyplot as plt
import numpy as np
import scipy.stats
import torch
from statsmodels.stats.proportion import proportion_confint

import icml26
from icml26.trust import debias

SEED = 16
rng = icml26.seed_everything(SEED)
icml26.plotting.use_book_style()
torch.set_default_dtype(torch.float64)

# %% tags=["parameters", "hide-input"]
SEEDS = icml26.pick(ci=5, paper=10)  # independent tasks, initialisations and data sets
RULE = "worst"  # a reproduction holds only if it holds on every seed
N_TRAIN = icml26.pick(ci=4000, paper=4000)  # training prompts per seed
N_TEST = icml26.pick(ci=1000, paper=2000)  # test prompts per seed
TRAIN_STEPS = icml26.pick(ci=1500, paper=1500)  # Adam steps, lr 3e-3, batch 128
FT_STEPS = icml26.pick(
    ci=500, paper=500
)  # fine-tuning steps (bias-only lr 1e-2, full 3e-3)
BATCH = 128
FILLER_OFFSET = 4.0  # common filler offset, in units of the content-embedding norm √d
P_EVAL = icml26.pick(ci=20, paper=50)  # perturbations per test prompt for bias/accuracy
N_CERT = icml26.pick(ci=100, paper=500)  # perturbations per prompt for certification
CERT_CHUNK = icml26.pick(ci=1000, paper=200)  # prompts per certification pass (memory)
ALPHA, LEVEL = 0.05, 0.9  # Clopper–Pearson confidence, certification level q
MC_DRAWS = icml26.pick(ci=10**6, paper=10**7)  # Monte-Carlo draws for the ReLU gap
N_REFERENCE = icml26.pick(ci=40, paper=200)  # prompts for the reference-vs-kernel check

# %% [markdown]
# The model and the two kinds of perturbation, at a glance: a prompt is perturbed, every
# module of the network records how far its output moved, and the move splits into a bias
# (the same for every draw) and a fluctuation.

# %% tags=["hide-input"] mystnb={"figure": {"caption": "The toy classifier and where the bias is measured. A prompt $x$ and its perturbation $\\pi(x)$ pass through the same network; at every module the change $\\Delta_\\ell$ splits into the bias $b_\\ell$ (its mean over perturbations) and the fluctuation $\\xi_\\ell$. Debiasing fine-tunes only the bias parameters (green).", "name": "16-fig-model"}}
fig, ax = plt.subplots(figsize=(7.4, 3.0))
icml26.plotting.diagram(
    ax,
    {
        "x": (0.08, 0.78, "prompt $x$"),
        "px": (0.08, 0.22, "$\\pi(x)$, $\\pi\\sim\\Pi$\nfillers, synonyms"),
        "pool": (0.3, 0.5, "embed +\nmean pool"),
        "ln": (0.48, 0.5, "LayerNorm\n$+\\,\\beta_{LN}$"),
        "r1": (0.64, 0.5, "ReLU layer\n$+\\,b_1$"),
        "r2": (0.8, 0.5, "ReLU layer\n$+\\,b_2$"),
        "z": (0.94, 0.5, "logits\n$+\\,b_3$"),
        "d": (0.64, 0.12, "$\\Delta_\\ell = b_\\ell(x) + \\xi_\\ell$"),
    },
    [
        ("x", "pool", ""),
        ("px", "pool", ""),
        ("pool", "ln", ""),
        ("ln", "r1", ""),
        ("r1", "r2", ""),
        ("r2", "z", ""),
        ("r1", "d", ""),
    ],
    colors={"x": 0, "px": 1, "pool": 7, "ln": 2, "r1": 2, "r2": 2, "z": 2, "d": 3},
    fontsize=9,
)
ax.set_title("Same network, two inputs: the mean of the change is the bias")
plt.show()

# %% [markdown]
# ## Implementation
#
# A readable reference first: the per-layer split of {prf:ref}`debiasing-lem-split` for one
# network, one prompt and one perturbation at a time. `forward` returns the representation of
# every module; the reference accumulates $\Delta_\ell$ prompt by prompt.


# %% tags=["reference"]
def bias_variance_reference(forward, clean_inputs, perturbed_inputs):
    """Per-layer mean‖Δ‖², ‖b̄‖², mean‖b(x)‖², tr Cov_x b, mean‖ξ‖² and ρ.

    One pass per input.

    `forward(input)` returns a dict layer -> 1-D representation;
    `perturbed_inputs[i][j]` is the j-th perturbation of prompt i (every prompt has the
    same number of perturbations).
    """
    out = {}
    for layer in forward(clean_inputs[0]):
        b_x, sq, fluct = [], 0.0, 0.0
        for x, perturbations in zip(clean_inputs, perturbed_inputs, strict=True):
            h = forward(x)[layer]
            deltas = np.array([forward(p)[layer] - h for p in perturbations])
            b_x.append(deltas.mean(0))
            sq += (deltas**2).sum(1).mean()
            fluct += ((deltas - b_x[-1]) ** 2).sum(1).mean()
        b_x = np.array(b_x)
        b_bar = b_x.mean(0)
        msd = sq / len(clean_inputs)
        out[layer] = {
            "msd": msd,
            "pooled2": b_bar @ b_bar,
            "bias2": (b_x**2).sum(1).mean(),
            "cov": ((b_x - b_bar) ** 2).sum(1).mean(),
            "fluct": fluct / len(clean_inputs),
            "rho": (b_bar @ b_bar) / msd,
        }
    return out


# %% [markdown]
# The toy task, "polarity prompts", is built by `icml26.trust.debias`. Forty content words
# carry a polarity in $\{-2, \dots, 2\}$; a prompt is ten of them and its label is whether the
# polarities sum to a positive number. Ten synonyms (same polarity) are seen in only 2% of
# training positions; twelve filler words and an unknown token are never seen in training, so
# their embeddings stay at initialisation, as unseen tokens effectively do in a language
# model. Every filler embedding shares one common offset of norm $4\sqrt d$, four times the
# norm of a content embedding: filler words have a common direction in embedding space.
#
# - **Π_neutral** (meaning-preserving by construction): insert 1–4 fillers, swap each word
#   that has a synonym for it with probability 0.3, replace a zero-polarity word by the unknown
#   token with probability 0.05. The label cannot change.
# - **Π_interacting** (the negative control): multiply each token's embedding by an
#   independent factor drawn from $U[0.3, 1.7]$. The input change has mean zero and depends on
#   the prompt's own words, so its bias is input-dependent.
#
# The classifier is embedding ($d = 32$) → mean pooling → LayerNorm → 32→64 → ReLU → 64→64 →
# ReLU → 64→2. Because the model pools by a mean, a prompt enters only through its *bag*, the
# vector of its token counts divided by its length, and `debias.forward` evaluates all layers
# for all prompts, perturbations and seeds in one batched pass; the kernel
# `debias.bias_variance` takes the resulting tensors. We train one model per seed (each
# with its own vocabulary, offset direction, data and initialisation), all in one batch.
# Training all of them takes a few seconds, so every reproduction claim below is decided
# over five seeds (ten at the `paper` scale) by the strictest rule: it holds only if it
# holds on every seed, and the line prints the worst seed and the range.

# %%
gen = icml26.stats.stream(SEED)
task = debias.make_task(gen)
V = task.vocab
gen_copy = torch.Generator().set_state(gen.get_state())
params0 = debias.init_classifier(task, SEEDS, gen, filler_offset=FILLER_OFFSET)
# the same initialisation without the fillers' common offset (an ablation used in 16.4)
filler_shift = (
    params0["E"] - debias.init_classifier(task, SEEDS, gen_copy, filler_offset=0.0)["E"]
)
train_tok, train_lab = debias.sample_prompts(
    task, (SEEDS, N_TRAIN), gen, synonym_rate=0.02
)
test_tok, test_lab = debias.sample_prompts(task, (SEEDS, N_TEST), gen)
train_bag, test_bag = debias.bag(train_tok, V), debias.bag(test_tok, V)


def clean_batch(step):
    idx = torch.randint(0, N_TRAIN, (SEEDS, BATCH), generator=gen)
    return train_bag[torch.arange(SEEDS)[:, None], idx], train_lab[
        torch.arange(SEEDS)[:, None], idx
    ]


t0 = time.process_time()
base = debias.train(params0, clean_batch, TRAIN_STEPS, lr=3e-3)
t_train = time.process_time() - t0
n_params = sum(v[0].numel() for v in base.values())
n_bias = sum(base[k][0].numel() for k in debias.bias_parameter_names())
print(
    f"{SEEDS} models of {n_params:,} parameters, {n_bias} of them bias parameters "
    f"({n_bias / n_params:.2%})"
)
print(
    "clean test accuracy per seed:",
    np.round(debias.accuracy(base, test_bag, test_lab).numpy(), 3),
)

# %% [markdown]
# The kernel against the reference, on a few prompts of seed 0 (the reference calls the
# network once per input):

# %%
ev = icml26.stats.stream(SEED, 1)  # evaluation perturbations: their own stream
pert_n = debias.perturb_neutral(task, test_tok, P_EVAL, ev)  # (S, N, P, V)
pert_i = debias.perturb_interacting(test_tok, V, P_EVAL, ev)


def per_layer(params, pert):
    with torch.no_grad():
        clean, moved = debias.forward(params, test_bag), debias.forward(params, pert)
    return {
        layer: debias.bias_variance(clean[layer], moved[layer])
        for layer in debias.LAYERS
    }


def seed0_forward(bag_row):
    with torch.no_grad():
        reps = debias.forward(base, bag_row.expand(SEEDS, 1, V))
    return {layer: reps[layer][0, 0].numpy() for layer in debias.LAYERS}


split_n = per_layer(base, pert_n)
ref = bias_variance_reference(
    seed0_forward, test_bag[0, :N_REFERENCE], pert_n[0, :N_REFERENCE]
)
small = {}
with torch.no_grad():
    c_small = debias.forward(base, test_bag[:, :N_REFERENCE])
    p_small = debias.forward(base, pert_n[:, :N_REFERENCE])
for layer in debias.LAYERS:
    got = debias.bias_variance(c_small[layer], p_small[layer])
    for key in ("msd", "pooled2", "bias2", "cov", "fluct", "rho"):
        icml26.checks.agree(
            f"{layer}.{key}", got[key][0], ref[layer][key], atol=1e-10, rtol=1e-9
        )
print(
    f"kernel = reference on {N_REFERENCE} prompts × {P_EVAL} perturbations, every layer"
)

# %% [markdown]
# ## Experiments
#
# ### 16.1 · A ReLU turns zero-mean noise into a bias
#
# *Claim* ({prf:ref}`debiasing-lem-jensen`): the bias of a ReLU under Gaussian noise is
# {eq}`debiasing-eq-gap`. We compare the closed form with a Monte-Carlo average of $10^6$ shared
# draws on 61 points $z \in [-3s, 3s]$, at $s = 0.5$ and $s = 2$. The threshold $3\cdot
# 10^{-3}\,s$ is above the 99% quantile of the Monte-Carlo error ($2.2\cdot 10^{-3}\,s$ over 100
# seeds). At $s = 1$ a formula that forgot to scale by $s$ would also pass, which is why
# $s \ne 1$: the negative control is exactly that formula.

# %%
mc = icml26.stats.stream(SEED, 2)
eps = torch.randn(MC_DRAWS, generator=mc)
gap_err, wrong_err, curves = 0.0, 0.0, {}
for s in (0.5, 2.0):
    z = np.linspace(-3 * s, 3 * s, 61)
    mc_gap = np.array(
        [torch.relu(zi + s * eps).mean().item() for zi in z]
    ) - np.maximum(z, 0)
    closed = debias.relu_gaussian_gap(z, s)
    unscaled = scipy.stats.norm.pdf(z) - np.abs(z) * scipy.stats.norm.cdf(
        -np.abs(z)
    )  # s = 1 form
    gap_err = max(gap_err, np.abs(mc_gap - closed).max() / s)
    wrong_err = max(wrong_err, np.abs(mc_gap - unscaled).max() / s)
    curves[s] = (z, mc_gap, closed)
print(
    f"g(0, s)/s = {debias.relu_gaussian_gap(np.zeros(1), 2.0)[0] / 2:.5f} (1/√(2π) = "
    f"{1 / np.sqrt(2 * np.pi):.5f}); the unscaled formula errs by {wrong_err:.3f}·s"
)

# %% tags=["claim"]
# fails if: the closed form has a sign, scale or Φ/φ error (the unscaled s = 1 form is
# rejected)
assert wrong_err > 3e-3, (
    "negative control: the formula without s must fail at s = 0.5, 2"
)
icml26.claim(
    "16.1",
    "ReLU Jensen gap: max |MC − closed form| / s",
    gap_err,
    at_most=3e-3,
    kind="theorem",
)

# %% tags=["hide-input"] mystnb={"figure": {"caption": "Zero-mean Gaussian noise of scale $s$ raises the mean output of a ReLU by the Jensen gap $g(z, s)$, most at the threshold $z = 0$ (where it is $s/\\sqrt{2\\pi}$) and vanishing far from it. Right: divided by $s$ the curves for $s = 0.5$ and $s = 2$ coincide, since $g(z, s) = s\\,g(z/s, 1)$; points: Monte-Carlo, lines: the closed form {eq}`debiasing-eq-gap`.", "name": "16-fig-jensen"}}
fig, (ax0, ax1) = plt.subplots(1, 2, figsize=(7.4, 3.0))
z, mc_gap, closed = curves[2.0]
ax0.plot(z, np.maximum(z, 0), color="black", lw=1.2, label="ReLU(z)")
ax0.plot(z, np.maximum(z, 0) + closed, label="E[ReLU(z + ε)], s = 2")
ax0.fill_between(
    z, np.maximum(z, 0), np.maximum(z, 0) + closed, alpha=0.25, label="gap g(z, s)"
)
ax0.set(xlabel="pre-activation z", ylabel="output", title="Noise lifts the ReLU's mean")
ax0.legend()
for i, s in enumerate((0.5, 2.0)):
    z, mc_gap, closed = curves[s]
    c = icml26.plotting.color(i)
    ax1.plot(
        z / s,
        closed / s,
        color=c,
        lw=3.5 - 2 * i,
        ls="-" if i == 0 else "--",
        label=f"closed form, s = {s:g}",
    )
    ax1.plot(
        z[1 + i :: 3] / s,
        mc_gap[1 + i :: 3] / s,
        "os"[i],
        ms=3.5,
        color=c,
        label=f"Monte-Carlo, s = {s:g}",
    )
ax1.axhline(1 / np.sqrt(2 * np.pi), color="0.5", ls=":", lw=1)
ax1.set(xlabel="z / s", ylabel="g(z, s) / s", title="One curve: g(z, s) = s·g(z/s, 1)")
ax1.set_ylim(0, 0.58)
ax1.legend(fontsize=7.5, ncols=2, loc="upper center")
plt.show()

# %% [markdown]
# ### 16.2 · A constant correction undoes the shift, when there is one
#
# {prf:ref}`debiasing-lem-split` is an algebraic identity: on the trained toy, for every
# layer and seed, with the same perturbations, $\operatorname{mean}\lVert\Delta\rVert^2 =
# \operatorname{mean}_x\lVert b(x)\rVert^2 + \operatorname{mean}\lVert\xi\rVert^2$, and the
# residual after subtracting $\bar b$ equals $\operatorname{tr}\operatorname{Cov}_x(b) +
# \operatorname{mean}\lVert\xi\rVert^2$, both to a relative $10^{-10}$ (float64). Any
# correct code satisfies it, so it is checked by an assertion, together with two broken
# variants that must violate it: reading $\lVert b\rVert^2$ as the pooled
# $\lVert\bar b\rVert^2$, and a covariance with divisor $n - 1$ (`np.cov`'s default).

# %%
split_err, pooled_err, ddof1_err = 0.0, 0.0, 0.0
with torch.no_grad():
    clean_reps, moved_reps = (
        debias.forward(base, test_bag),
        debias.forward(base, pert_n),
    )
for layer in debias.LAYERS:
    r = split_n[layer]
    delta = moved_reps[layer] - clean_reps[layer][:, :, None]
    resid = (delta - r["b"][:, None, None]).pow(2).sum(-1).mean((1, 2))
    split_err = max(
        split_err,
        ((r["msd"] - r["bias2"] - r["fluct"]).abs() / r["msd"]).max().item(),
        ((resid - r["cov"] - r["fluct"]).abs() / r["msd"]).max().item(),
    )
    pooled_err = max(
        pooled_err,
        ((r["msd"] - r["pooled2"] - r["fluct"]).abs() / r["msd"]).max().item(),
    )
    bx = delta.mean(2)
    cov1 = np.trace(
        np.atleast_2d(np.cov(bx[0].numpy().T))
    )  # np.cov's default ddof = 1, seed 0
    ddof1_err = max(
        ddof1_err,
        abs(resid[0].item() - cov1 - r["fluct"][0].item()) / r["msd"][0].item(),
    )
assert split_err <= 1e-10, f"the split must hold to 1e-10, off by {split_err:.1e}"
assert pooled_err > 1e-6 and ddof1_err > 1e-10, (
    "the broken variants must violate the identity"
)
print(
    "split holds to 1e-10; broken variants: pooled ‖b̄‖² off by "
    f"{pooled_err:.1e}, ddof = 1 off by {ddof1_err:.1e}"
)

# %% [markdown]
# What the lemma predicts, and what can fail, is its consequence for the network: a
# constant correction $c = \bar b$ removes the input-independent part of the damage and
# nothing else. So subtracting the measured penultimate bias $\bar b$ from the
# representations of *perturbed* prompts (an oracle that knows which inputs are perturbed)
# should win back much of the accuracy lost under Π_neutral, whose damage at that layer is
# partly a shift, and nothing under Π_interacting, whose damage is not. *Claim*: under
# Π_neutral, the oracle correction recovers at least half of the clean-to-perturbed
# accuracy gap on every seed (the same bar as 16.5, fixed before the run). The control is
# the same correction under Π_interacting.


# %%
def oracle_accuracy(split, pert):
    """Accuracy on perturbed prompts after subtracting the penultimate b̄ (oracle)."""
    with torch.no_grad():
        pen = debias.forward(base, pert)["relu2"] - split["relu2"]["b"][:, None, None]
        logits = pen @ base["W3"][:, None] + base["b3"][:, None, None]
    return (logits.argmax(-1) == test_lab[..., None]).double().mean((1, 2)).numpy()


acc_clean = debias.accuracy(base, test_bag, test_lab).numpy()
acc_n = debias.accuracy(base, pert_n, test_lab).numpy()
acc_i = debias.accuracy(base, pert_i, test_lab).numpy()
split_i = per_layer(base, pert_i)
acc_oracle_n = oracle_accuracy(split_n, pert_n)
acc_oracle_i = oracle_accuracy(split_i, pert_i)
oracle_share_n = (acc_oracle_n - acc_n) / (acc_clean - acc_n)
oracle_share_i = (acc_oracle_i - acc_i) / (acc_clean - acc_i)
print(
    "share of the gap recovered by the oracle shift, per seed: Π_neutral",
    np.round(oracle_share_n, 3),
    "| Π_interacting",
    np.round(oracle_share_i, 3) + 0.0,
)

# %% tags=["claim"]
# fails if: the damage is not a constant shift (as under Π_interacting, the control),
# so subtracting b̄ cannot undo it
icml26.claim(
    "16.2",
    "Π_neutral: share of the accuracy gap recovered by subtracting b̄",
    seeds=oracle_share_n,
    rule=RULE,
    at_least=0.5,
    control=oracle_share_i,
    control_label="Π_interacting",
)

# %% [markdown]
# ### 16.3–16.4 · The bias is a crucial factor
#
# *Claim* (the paper's first finding): for meaning-preserving perturbations, a large share of
# the damage at some module is a systematic shift, and the perturbations cost accuracy. A
# first design of this toy (fillers at random initialisation, no common offset) showed
# $\rho = 0.10$–$0.15$ at every layer and a gap of only 7 points: too weak a phenomenon to
# test. Rather than lower the bar we strengthened the filler mean (the common offset of
# $4\sqrt d$) and kept the bar: $\rho \ge 0.5$ at the LayerNorm output, where this design
# carries the bias, and a clean-to-perturbed accuracy gap of at least 10 points, both for the
# *worst* of the seeds.

# %%
print("ρ under Π_neutral, per layer (rows) and seed (columns):")
for layer in debias.LAYERS:
    print(f"  {layer:7s}", np.round(split_n[layer]["rho"].numpy(), 3))
print(
    "accuracy clean",
    np.round(acc_clean, 3),
    "| Π_neutral",
    np.round(acc_n, 3),
    "| Π_interacting",
    np.round(acc_i, 3),
)

# %% tags=["claim"]
# fails if: the perturbation's damage at the LayerNorm output is mostly fluctuation, not
# shift (as it is under Π_interacting, the control)
icml26.claim(
    "16.3",
    "Π_neutral: ρ at the LayerNorm output",
    seeds=split_n["ln"]["rho"],
    rule=RULE,
    at_least=0.5,
    control=split_i["ln"]["rho"],
    control_label="Π_interacting",
    tuned="the layer and the filler offset, after a first design failed",
)

# %% tags=["claim"]
# fails if: meaning-preserving perturbations barely hurt (as without the fillers' common
# offset, the ablation run here: the same models with the offset removed)
no_offset = dict(base, E=base["E"] - filler_shift)
gap_no_offset = (
    100
    * (
        debias.accuracy(no_offset, test_bag, test_lab)
        - debias.accuracy(no_offset, pert_n, test_lab)
    ).numpy()
)
icml26.claim(
    "16.4",
    "Π_neutral: clean − perturbed accuracy (points)",
    seeds=100 * (acc_clean - acc_n),
    rule=RULE,
    at_least=10,
    control=gap_no_offset,
    control_label="without the offset",
    tuned="the filler offset 4√d, after a first design without it failed",
)

# %% [markdown]
# ### 16.5–16.6 · Debiasing helps for Π_neutral
#
# *Claim* (the paper's second finding): a cheap fine-tuning restores robustness. We fine-tune
# only the bias parameters (LayerNorm shift and the three Linear biases, under 2% of the
# parameters) on a half-clean, half-perturbed mixture with the task loss, Adam at learning
# rate $10^{-2}$ for 500 steps ($10^{-3}$ barely moves them). The upper reference
# is full fine-tuning on the same data. The bar: bias-only fine-tuning closes at least
# half of the perturbed-accuracy gap between the base model and full fine-tuning (16.5),
# losing at most 2 points of clean accuracy (16.6), with at most 3% of the parameters trained.
# Beside them, the closed-form baseline: subtract the measured penultimate bias $\bar b$ for
# every input (the constant correction of {prf:ref}`debiasing-lem-split`).


# %%
def mixed_batch(perturb):
    def batch(step):
        idx = torch.randint(0, N_TRAIN, (SEEDS, BATCH), generator=gen)
        rows = torch.arange(SEEDS)[:, None]
        tok, lab = train_tok[rows, idx], train_lab[rows, idx]
        half = BATCH // 2
        moved = perturb(tok[:, half:])[:, :, 0]
        return torch.cat([debias.bag(tok[:, :half], V), moved], 1), lab

    return batch


neutral_1 = mixed_batch(lambda t: debias.perturb_neutral(task, t, 1, gen))
interacting_1 = mixed_batch(lambda t: debias.perturb_interacting(t, V, 1, gen))
bias_names = debias.bias_parameter_names()
t0 = time.process_time()
bitfit_n = debias.train(base, neutral_1, FT_STEPS, lr=1e-2, trainable=bias_names)
full_n = debias.train(base, neutral_1, FT_STEPS, lr=3e-3)
bitfit_i = debias.train(base, interacting_1, FT_STEPS, lr=1e-2, trainable=bias_names)
# the ablation: the same bias-only fine-tuning on clean prompts only
bitfit_c = debias.train(base, clean_batch, FT_STEPS, lr=1e-2, trainable=bias_names)
t_ft = time.process_time() - t0


def shifted(params, b_pen):
    """Fold a constant penultimate correction −b̄ into the head's bias parameter."""
    p = dict(params)
    p["b3"] = params["b3"] - torch.einsum("sh,shk->sk", b_pen, params["W3"])
    return p


shift_n = shifted(base, split_n["relu2"]["b"])
acc = {}
for name, p in [
    ("base", base),
    ("closed-form shift", shift_n),
    ("bias-only FT", bitfit_n),
    ("bias-only FT, clean", bitfit_c),
    ("full FT", full_n),
]:
    acc[name] = (
        debias.accuracy(p, test_bag, test_lab).numpy(),
        debias.accuracy(p, pert_n, test_lab).numpy(),
    )
    print(
        f"{name:19s} clean {np.round(acc[name][0], 3)}  "
        f"Π_neutral {np.round(acc[name][1], 3)}"
    )
gap_full = acc["full FT"][1] - acc_n
share = (acc["bias-only FT"][1] - acc_n) / gap_full
share_clean = (acc["bias-only FT, clean"][1] - acc_n) / gap_full
clean_drop = 100 * (acc_clean - acc["bias-only FT"][0])
clean_drop_shift = 100 * (acc_clean - acc["closed-form shift"][0])
assert n_bias / n_params <= 0.03
print(
    "share of the gap closed per seed:",
    np.round(share, 3),
    "| clean drop (points):",
    np.round(clean_drop, 1),
    f"| trained {n_bias / n_params:.2%} of the parameters",
)

# %% tags=["claim"]
# fails if: shifting operating points cannot undo the systematic shift (debiasing does
# not help), as when the same bias-only fine-tuning sees only clean prompts (the
# control)
icml26.claim(
    "16.5",
    "Π_neutral: share of the gap to full FT closed by bias-only FT",
    seeds=share,
    rule=RULE,
    at_least=0.5,
    control=share_clean,
    control_label="bias-only FT on clean prompts",
    tuned="lr 1e-2 and the filler offset, after a first measurement",
)

# %% tags=["claim"]
# fails if: bias-only FT buys robustness by giving up clean accuracy (a plain constant
# shift, the control)
icml26.claim(
    "16.6",
    "bias-only FT: clean-accuracy drop (points)",
    seeds=clean_drop,
    rule=RULE,
    at_most=2,
    control=clean_drop_shift,
    control_label="closed-form shift",
)

# %% [markdown]
# The closed-form shift illustrates the caveat after {prf:ref}`debiasing-lem-split`: it moves
# clean prompts as much as perturbed ones, so the accuracy it gains under perturbation is paid
# for on clean prompts (26 points on the worst seed). Bias-only fine-tuning, trained on
# both, gives up far less: under a point on four seeds, but 3.2 points on one, so 16.6 is
# not reproduced on every seed. What it changes is *which ReLU units fire*, and the share
# $\rho$ of the penultimate layer falls.

# %% tags=["hide-input"] mystnb={"figure": {"caption": "Per-layer share $\\rho_\\ell$ of the mean squared change that is a constant shift, mean over seeds (bars) and range (whiskers). Π_neutral carries a large shift from the pooled embedding onward; bias-only fine-tuning reduces it after the ReLUs, not before; Π_interacting has almost none.", "name": "16-fig-rho"}}
split_bit = per_layer(bitfit_n, pert_n)
layers = list(debias.LAYERS)
series = [
    ("Π_neutral, base", split_n),
    ("Π_neutral, bias-only FT", split_bit),
    ("Π_interacting, base", split_i),
]
fig, ax = plt.subplots(figsize=(7.2, 3.4))
width = 0.27
for i, (label, sp) in enumerate(series):
    r = np.array([sp[layer]["rho"].numpy() for layer in layers])
    x = np.arange(len(layers)) + (i - 1) * width
    ax.bar(x, r.mean(1), width, color=icml26.plotting.color(i), label=label)
    ax.errorbar(
        x,
        r.mean(1),
        yerr=[r.mean(1) - r.min(1), r.max(1) - r.mean(1)],
        fmt="none",
        ecolor="0.2",
        lw=1,
    )
ax.axhline(0.5, color="0.4", ls="--", lw=1)
ax.set_xticks(
    np.arange(len(layers)),
    ["pooled\nembedding", "LayerNorm", "ReLU 1", "ReLU 2\n(penultimate)", "logits"],
)
ax.set(
    ylabel="ρ = ‖b̄‖² / mean‖Δ‖²",
    ylim=(0, 1),
    title="Where the shift lives, and what removes it",
)
ax.legend(loc="upper right")
plt.show()

# %% [markdown]
# ### 16.7–16.8 · Debiasing does not help for Π_interacting
#
# *Claim* (the paper's "conditions" statement): when the perturbation's effect depends on the
# input, there is no systematic shift to remove and debiasing cannot help. A ratio
# version ("closes at most 30% of the gap to full fine-tuning") is undefined here, because
# full fine-tuning does not help either; we test instead:
# $\rho \le 0.01$ at every layer (16.7), and bias-only fine-tuning moves perturbed accuracy by
# at most 1 point (16.8), while Π_interacting still costs at least 5 points. We also apply the
# oracle correction, subtracting $\bar b$ from perturbed penultimate representations only,
# which should recover at most half a point.

# %%
rho_i = np.max([split_i[layer]["rho"].numpy() for layer in debias.LAYERS], 0)
rho_n = np.max([split_n[layer]["rho"].numpy() for layer in debias.LAYERS], 0)
acc_bit_i = debias.accuracy(bitfit_i, pert_i, test_lab).numpy()
cost_i = 100 * (acc_clean - acc_i)
move_i = 100 * np.abs(acc_bit_i - acc_i)
assert cost_i.min() >= 5, "the negative control must be a real robustness problem"
print(
    f"Π_interacting costs {np.round(cost_i, 1)} points; oracle shift recovers "
    f"{np.round(100 * (acc_oracle_i - acc_i), 1) + 0.0} points (≤ 0.5 expected); "
    "bias-only FT "
    f"moves it by {np.round(move_i, 1)} points; "
    "ρ_interacting < ρ_neutral at every layer: "
    f"{all((split_i[k]['rho'] < split_n[k]['rho']).all().item() for k in layers)}"
)
assert (100 * (acc_oracle_i - acc_i)).max() <= 0.5

# %% tags=["claim"]
# fails if: Π_interacting also carries a systematic shift, as Π_neutral does (the
# control)
icml26.claim(
    "16.7",
    "Π_interacting: max ρ over layers",
    seeds=rho_i,
    rule=RULE,
    at_most=0.01,
    control=rho_n,
    control_label="Π_neutral",
    tuned="bar 0.01 set after a first measurement",
)

# %% tags=["claim"]
# fails if: bias-only FT also fixes input-dependent damage (the "conditions" statement
# is wrong); the control is the same fine-tuning under Π_neutral, where there is a shift
icml26.claim(
    "16.8",
    "Π_interacting: |accuracy change| by bias-only FT (points)",
    seeds=move_i,
    rule=RULE,
    at_most=1,
    control=100 * np.abs(acc["bias-only FT"][1] - acc_n),
    control_label="Π_neutral",
    tuned="bar 1 point set after a first measurement",
)

# %% tags=["hide-input"] mystnb={"figure": {"caption": "Accuracy on clean prompts (light) and under perturbation (dark), mean over seeds with the range as whiskers. For Π_neutral, bias-only fine-tuning closes most of the gap to full fine-tuning and loses little clean accuracy; the closed-form constant shift trades clean for perturbed accuracy. For Π_interacting nothing that shifts helps.", "name": "16-fig-accuracy"}}
rows = [("Π_neutral", n, acc[n]) for n in acc] + [
    ("Π_interacting", "base", (acc_clean, acc_i)),
    ("Π_interacting", "oracle shift", (acc_clean, acc_oracle_i)),
    (
        "Π_interacting",
        "bias-only FT",
        (debias.accuracy(bitfit_i, test_bag, test_lab).numpy(), acc_bit_i),
    ),
]
fig, ax = plt.subplots(figsize=(7.4, 3.4))
for j, (fam, name, (c, p)) in enumerate(rows):
    col = icml26.plotting.color(0 if fam == "Π_neutral" else 1)
    for k, (v, alpha) in enumerate([(c, 0.35), (p, 1.0)]):
        ax.bar(
            j + (k - 0.5) * 0.38,
            v.mean(),
            0.38,
            color=col,
            alpha=alpha,
            label=(f"{fam}, " + ("clean" if k == 0 else "perturbed"))
            if name == "base"
            else None,
        )
        ax.errorbar(
            j + (k - 0.5) * 0.38,
            v.mean(),
            yerr=[[v.mean() - v.min()], [v.max() - v.mean()]],
            fmt="none",
            ecolor="0.2",
            lw=1,
        )
ax.set_xticks(
    range(len(rows)), [name.replace(" ", "\n", 1) for _, name, _ in rows], fontsize=8.5
)
ax.set(
    ylabel="accuracy",
    ylim=(0.4, 1.16),
    title="Debiasing helps for Π_neutral, not for Π_interacting",
)
ax.set_yticks(np.arange(0.4, 1.01, 0.1))
ax.legend(loc="upper center", ncols=4, fontsize=8)
plt.show()

# %% [markdown]
# ### 16.9–16.10 · Debiasing enables certification
#
# *Claim* (the paper's last finding): after debiasing, more prompts can be certified against
# random perturbations. For every test prompt we draw 100 fresh perturbations (a stream not
# used to estimate anything), count the correct answers $k$ and certify at $q = 0.9$ when
# the Clopper–Pearson bound {eq}`debiasing-eq-cp` with $\alpha = 0.05$ reaches it (that is,
# $k \ge 96$). A bar of "+20 points" was not reached in any design of this toy that we tried; the
# bar tied to this design: the mean error rate under perturbation at least halves (16.9) and the
# certified fraction rises by at least 5 points (16.10), both on every seed. The control of
# both is the bias-only fine-tuning on clean prompts only. The Cantelli bound
# {eq}`debiasing-eq-cantelli`, evaluated with each prompt's empirical $\beta$ and
# $\sigma^2$, can never be violated by the same draws: it is asserted, as a check of the
# bookkeeping (the sign of $w$, the margin, the reference class), with the wrong reference
# class as a broken variant that must violate it.


# %%
def certify_chunk(params, rows, generator):
    """Correct answers k, clean margins m and projected changes w·Δ.

    For the prompts `rows`.
    """
    moved_bags = debias.perturb_neutral(task, test_tok[:, rows], N_CERT, generator)
    with torch.no_grad():
        clean, moved = (
            debias.forward(params, test_bag[:, rows]),
            debias.forward(params, moved_bags),
        )
    lab = test_lab[:, rows]
    k = (moved["logits"].argmax(-1) == lab[..., None]).sum(-1)
    w = (
        params["W3"][..., 1] - params["W3"][..., 0]
    )  # (S, H): margin of class 1 over class 0
    sign = (2 * lab - 1).double()  # margin of the label over the other class
    m = sign * (clean["logits"][..., 1] - clean["logits"][..., 0])
    proj = sign[..., None] * torch.einsum(
        "snph,sh->snp", moved["relu2"] - clean["relu2"][:, :, None], w
    )
    direct = sign[..., None] * (moved["logits"][..., 1] - moved["logits"][..., 0])
    icml26.checks.agree(
        "margin m + w·Δ vs the perturbed logits", m[..., None] + proj, direct, atol=1e-9
    )
    return k, m, proj


def certify(params):
    """The same fresh perturbations for every model: one stream per chunk of prompts."""
    parts = [
        certify_chunk(
            params, slice(a, a + CERT_CHUNK), icml26.stats.stream(SEED, 100 + c)
        )
        for c, a in enumerate(range(0, N_TEST, CERT_CHUNK))
    ]
    k, m, proj = (torch.cat(x, 1) for x in zip(*parts, strict=True))
    k = k.numpy()
    n_flips = ((m[..., None] + proj) <= 0).sum(-1).numpy()
    bound = debias.cantelli_flip_bound(
        m.numpy(), proj.mean(-1).numpy(), proj.var(-1, unbiased=False).numpy()
    )
    assert np.array_equal(n_flips, N_CERT - k), (
        "flip rule m + w·Δ ≤ 0 must match the argmax"
    )
    wrong = n_flips / N_CERT
    violations = int(np.nansum(wrong > bound + 1e-12))
    return k, wrong, violations, (m.numpy(), proj.numpy())


k_before, err_before, viol_before, proj_before = certify(base)
k_after, err_after, viol_after, proj_after = certify(bitfit_n)
k_clean, err_clean, viol_clean, _ = certify(bitfit_c)  # the control


def certified(k):
    return (debias.clopper_pearson_lower(k, N_CERT, ALPHA) >= LEVEL).mean(1)


p_lo_before = debias.clopper_pearson_lower(k_before, N_CERT, ALPHA)
p_lo_after = debias.clopper_pearson_lower(k_after, N_CERT, ALPHA)
cert_before, cert_after = certified(k_before), certified(k_after)
err_ratio = err_after.mean(1) / err_before.mean(1)
err_ratio_clean = err_clean.mean(1) / err_before.mean(1)
rise, rise_clean = (
    100 * (cert_after - cert_before),
    100 * (certified(k_clean) - cert_before),
)
print(
    "mean error rate under Π_neutral, before → after:",
    np.round(err_before.mean(1), 3),
    "→",
    np.round(err_after.mean(1), 3),
)
print(
    f"certified at q = {LEVEL}:", np.round(cert_before, 3), "→", np.round(cert_after, 3)
)
between = ((err_after > 0.04) & (err_after <= 0.3)).mean(1)
print(
    "prompts with an error rate in (4%, 30%] after debiasing: "
    "improved, not certifiable:",
    np.round(between, 3),
)
# the wrong reference class (sign flipped) must violate the bound
m0, pr0 = proj_before
wrong_bound = debias.cantelli_flip_bound(-m0, -pr0.mean(-1), pr0.var(-1))
wrong_viol = int(np.nansum(err_before > wrong_bound + 1e-12))
assert viol_before + viol_after + viol_clean == 0, (
    "Cantelli cannot fail on its own draws"
)
assert wrong_viol > 0, "the wrong reference class must violate Cantelli"
print(
    "Cantelli bound: 0 violations on every model; with the wrong reference class "
    f"{wrong_viol}"
)

# %% tags=["claim"]
# fails if: bias-only FT does not make perturbed answers more reliable, as fine-tuning
# on clean prompts does not (the control)
icml26.claim(
    "16.9",
    "error-rate ratio under Π_neutral, after / before bias-only FT",
    seeds=err_ratio,
    rule=RULE,
    at_most=0.5,
    control=err_ratio_clean,
    control_label="bias-only FT on clean prompts",
    tuned="bar set after +20 points certified was not reached",
)

# %% tags=["claim"]
# fails if: debiasing helps on average but not enough prompts reach the certificate, as
# after fine-tuning on clean prompts (the control)
icml26.claim(
    "16.10",
    "rise in certified fraction at q = 0.9 (points)",
    seeds=rise,
    rule=RULE,
    at_least=5,
    control=rise_clean,
    control_label="bias-only FT on clean prompts",
    tuned="bar set after +20 points certified was not reached",
)

# %% [markdown]
# The next figure shows why: for one prompt, the projected change $w\cdot\Delta$ across its 100
# perturbations before and after debiasing, against the margin. Before, the whole distribution
# sits shifted towards the wrong side, so many draws cross $-m$; after, it is shifted less and
# the same fluctuation rarely crosses. On the right, the "before" curves are flat: about
# half of the prompts never err and the other half almost always do, the regime
# $m + \beta < 0$ of {prf:ref}`debiasing-prop-cantelli` in which the bias outweighs the margin.
# After debiasing the curves fall with $q$: many prompts now err on a few of their
# perturbations, which is far better on average but not enough for a certificate at a high
# level.

# %% tags=["hide-input"] mystnb={"figure": {"caption": "Left: one prompt's projected change $w\\cdot\\Delta$ over 100 perturbations (seed 0), before and after bias-only fine-tuning; a draw errs when it falls left of $-m$ (dashed, one per model). Right: fraction of test prompts certified at level $q$ (Clopper–Pearson, $n = 100$, $\\alpha = 0.05$), per seed.", "name": "16-fig-certify"}}
m_b, pr_b = proj_before
m_a, pr_a = proj_after
frac = err_before[0] - err_after[0]
i = int(np.argmax(np.where((err_before[0] > 0.3) & (err_after[0] < 0.1), frac, -1)))
fig, (ax0, ax1) = plt.subplots(1, 2, figsize=(7.4, 3.2))
for j, (mm, pp, lab) in enumerate([(m_b, pr_b, "before"), (m_a, pr_a, "after")]):
    c = icml26.plotting.color(1 if j == 0 else 2)
    ax0.hist(
        pp[0, i],
        bins=20,
        alpha=0.6,
        color=c,
        label=f"{lab} (mean β = {pp[0, i].mean():.1f})",
    )
    ax0.axvline(-mm[0, i], color=c, ls="--", lw=1.4)
ax0.set(
    xlabel="projected change w·Δ (logit units)",
    ylabel="perturbations",
    title="The bias pushes draws past −m",
)
ax0.legend(fontsize=8)
qs = np.linspace(0.5, 0.97, 48)
for s in range(SEEDS):
    ax1.plot(
        qs,
        [(p_lo_before[s] >= q).mean() for q in qs],
        color=icml26.plotting.color(1),
        alpha=0.8,
        label="before" if s == 0 else None,
    )
    ax1.plot(
        qs,
        [(p_lo_after[s] >= q).mean() for q in qs],
        color=icml26.plotting.color(2),
        alpha=0.8,
        label="after bias-only FT" if s == 0 else None,
    )
ax1.axvline(LEVEL, color="0.5", ls=":", lw=1)
ax1.set(
    xlabel="certification level q",
    ylabel="fraction of prompts certified",
    title="Certified fraction before and after",
    ylim=(0, 1),
)
ax1.legend()
plt.show()

# %% [markdown]
# ## Cross-check
#
# The closed form {eq}`debiasing-eq-gap` against `scipy.stats.norm`; the one-sided Clopper–Pearson
# bound against statsmodels' `proportion_confint(method="beta")` and scipy's exact
# `binomtest` interval (both two-sided: at level 0.90 their lower end is our one-sided 95%
# bound); and the second-order bias {eq}`debiasing-eq-taylor` of the trained LayerNorm module
# against Monte-Carlo, with the Hessian from `torch.func.hessian`. For the last one we use
# antithetic pairs $\pm\varepsilon$, which cancel the first-order term exactly, and zero-mean
# Gaussian input noise of decreasing scale: the relative error must shrink with the scale.

# %%
z = np.linspace(-6, 6, 121)
for s in (0.5, 2.0):
    want = (
        z * scipy.stats.norm.cdf(z / s) + s * scipy.stats.norm.pdf(z / s)
    ) - np.maximum(z, 0)
    icml26.checks.agree(
        f"Jensen gap vs scipy.stats.norm, s={s}",
        debias.relu_gaussian_gap(z, s),
        want,
        atol=1e-14,
    )
ks = np.arange(0, 101)
mine = debias.clopper_pearson_lower(ks, 100, 0.05)
sm_low = proportion_confint(ks, 100, alpha=0.10, method="beta")[0]
sp_low = np.array(
    [scipy.stats.binomtest(int(k), 100).proportion_ci(0.90, "exact").low for k in ks]
)
icml26.checks.agree(
    "Clopper–Pearson vs statsmodels", mine, np.nan_to_num(sm_low), atol=1e-12
)
icml26.checks.agree("Clopper–Pearson vs scipy binomtest", mine, sp_low, atol=1e-12)
print("p_L at k = 95, 96, 99, 100:", np.round(mine[[95, 96, 99, 100]], 4))

ln_w, ln_b = base["ln_w"][0], base["ln_b"][0]


def layer_norm(h):
    mu, var = h.mean(), h.var(unbiased=False)
    return (h - mu) / torch.sqrt(var + 1e-5) * ln_w + ln_b


h0 = debias.forward(base, test_bag[:, :1])["pool"][0, 0]
hess = torch.func.hessian(layer_norm)(h0)  # (D, D, D): output k, inputs i, j
taylor_err = []
noise = torch.randn(200_000, h0.numel(), generator=icml26.stats.stream(SEED, 4))
for c in (0.2, 0.1, 0.05):
    s = c * h0.std().item()
    pred = (
        0.5 * s**2 * torch.diagonal(hess, dim1=1, dim2=2).sum(-1)
    )  # ½ tr(∇²M_k Σ), Σ = s² I
    pair = 0.5 * (
        torch.func.vmap(layer_norm)(h0 + s * noise)
        + torch.func.vmap(layer_norm)(h0 - s * noise)
    )
    b_mc = pair.mean(0) - layer_norm(h0)
    taylor_err.append(((b_mc - pred).norm() / b_mc.norm()).item())
print(
    "relative error of the second-order bias at noise scale 0.2, 0.1, 0.05 × std(h):",
    np.round(taylor_err, 4),
)
assert taylor_err[0] > taylor_err[1] > taylor_err[2] and taylor_err[2] < 0.05

# %% [markdown]
# ## Performance
#
# The per-layer split for all prompts, perturbations and seeds is one batched forward pass
# plus a few reductions. The reference calls the network once per input.

# %% tags=["nbval-ignore-output"]
sub = slice(0, N_REFERENCE)
t0 = time.perf_counter()
bias_variance_reference(seed0_forward, test_bag[0, sub], pert_n[0, sub])
t_ref = time.perf_counter() - t0
t0 = time.perf_counter()
with torch.no_grad():
    cr, mr = debias.forward(base, test_bag), debias.forward(base, pert_n)
    _ = {layer: debias.bias_variance(cr[layer], mr[layer]) for layer in debias.LAYERS}
t_kernel = time.perf_counter() - t0
per_ref = t_ref / (N_REFERENCE * P_EVAL)
per_kernel = t_kernel / (SEEDS * N_TEST * P_EVAL)
print(
    f"reference: {t_ref:.2f} s for {N_REFERENCE}×{P_EVAL} inputs of one seed; kernel: "
    f"{t_kernel:.3f} s for {SEEDS}×{N_TEST}×{P_EVAL}; "
    f"{per_ref / per_kernel:.0f}× faster per input"
)
print(
    f"training {SEEDS} models: {t_train:.1f} CPU-s; four fine-tunings: {t_ft:.1f} CPU-s"
)

# %% [markdown]
# ## Limits of this reproduction
#
# - **Not the paper's model or data.** Everything runs on a 63-word bag-of-words classifier
#   with about 8,500 parameters. Which modules of an LLM carry the bias, how it scales with
#   depth and width, which real perturbations (typos, paraphrases, formatting) are systematic,
#   and the paper's benchmark numbers are all beyond this toy. The `paper` scale runs more
#   seeds, prompts and perturbations of the same toy; a GPU variant (a small transformer
#   trained from scratch on templated prompts) is not implemented.
# - **The phenomenon is designed in.** Fillers share a common embedding offset of four times
#   a content word's norm. Without it (the control of 16.4) the same models lose only about
#   7 points under Π_neutral, and a first design without the offset had a bias share $\rho$
#   of only 0.10–0.15: too little to test anything. The claims test the paper's statements
#   *given* a systematic shift, not that real perturbations produce one.
# - **Seeds.** Every reproduction holds only if it holds on each of five seeds. This is
#   strict, and three claims miss on one or two seeds (below). The `paper` scale is stricter
#   still: ten seeds, 2,000 test prompts, 50 perturbations each for the bias and 500 for the
#   certificate. Its record, at the end of this section, names the claims whose verdict it
#   changes. The seeds that fail there are the ones whose models turn the fillers' shift into
#   input-dependent change rather than a constant by the last layers (their bias share $\rho$
#   at the logits, printed per seed above for this run, is small): there Π_neutral costs
#   fewer points and a constant correction has less to remove, as
#   {prf:ref}`debiasing-lem-split` predicts. The paper's claims, read as "on every model",
#   need that share to be large; on our toy it is large on some seeds and not on others.
# - **Bars changed after a first measurement.** "+20 points certified" (16.10) was never
#   reached in any design and is replaced by "+5 points" together with "the error rate at
#   least halves" (16.9); the ratio form of 16.8 is undefined because full fine-tuning does
#   not help on Π_interacting either.
# - **16.2 is not reproduced.** Subtracting the penultimate $\bar b$ from perturbed inputs
#   wins back 61–72% of the lost accuracy on four seeds and 43% on the fifth, while under
#   Π_interacting it wins back nothing (the control). {prf:ref}`debiasing-lem-split` predicts
#   that the correction removes the share $\rho$ of the *mean squared* change, and at the
#   penultimate layer $\rho$ is only 0.36–0.48: the rest is input-dependent bias and
#   fluctuation. How much accuracy that buys is not fixed by the lemma, and on one seed it is
#   less than half.
# - **16.6 is not reproduced.** Bias-only fine-tuning costs 0.2–0.9 points of clean accuracy
#   on four seeds and 3.2 on the fifth, above the 2-point bar (the closed-form shift, the
#   control, costs up to 26 points). Debiasing by fine-tuning is far cheaper in clean
#   accuracy than a constant shift, but not free on every seed. The paper scale, whose ten
#   seeds are other models and data, holds it exactly at the bar: its worst seed loses
#   2.0 points, 40 of 2,000 prompts, and seven of the ten lose under half a point. So the
#   verdict differs between the scales by the luck of the seeds, not by a trend: the cost
#   is under a point on most seeds and two or more on a few.
# - **16.10 is not reproduced.** The certified fraction at $q = 0.9$ rises by up to 20
#   points on some seeds and falls by up to 5 on others. Debiasing does cut the error rate
#   under perturbation by more than half on every seed (16.9), but it changes *how* errors
#   are spread: before, a prompt tends to fail on almost every perturbation or on none;
#   after, 23–41% of prompts fail on between 4% and 30% of their perturbations. Those prompts
#   are much better off but cannot reach $k \ge 96$ of 100. A certificate at a high level
#   needs the error rate of each prompt, not only the average, to fall below $1 - q$.
# - **Constant corrections trade.** A constant shift is not a free lunch: the closed-form
#   correction lowers clean accuracy about as much as it raises perturbed accuracy (see
#   16.5–16.6). Bias-only fine-tuning escapes that only through nonlinear effects.
# - **Identities are assertions.** The bias–variance split and the Cantelli bound evaluated
#   on its own draws hold for any correctly computed sample moments, so they are asserted
#   (with broken variants that must violate them), not counted as claims.
#
# **Paper scale.** The record of the run at `ICML26_SCALE=paper` on the same toy: where and
# when it ran, its claim lines, and the verdicts that differ from this run's:

# %%
from icml26.pipeline import paper

paper.show("16-debiasing")

# %% [markdown]
# ## Exercises
#
# ````{exercise} Predict the bias of a ReLU layer
# :label: debiasing-ex-relu
#
# A ReLU unit with pre-activation $z = 0.5$ receives zero-mean Gaussian noise of standard
# deviation $s$. (a) For which $s$ is the bias $g(z, s)$ largest relative to $s$, and how
# large is $g(0.5, 1)$? (b) A layer of 64 such units with $z$ spread uniformly on $[-2, 2]$
# gets noise $s = 0.5$: estimate $\lVert b\rVert$. Check with `debias.relu_gaussian_gap`.
# ````
#
# ````{solution} debiasing-ex-relu
# :class: dropdown
#
# (a) $g(z, s)/s = \varphi(t) - t\,\Phi(-t)$ with $t = \lvert z\rvert/s$ decreases in $t$,
# so relative to $s$ the bias is largest when $s \gg \lvert z\rvert$ (then $g \approx
# s/\sqrt{2\pi}$). $g(0.5, 1) = \varphi(0.5) - 0.5\,\Phi(-0.5) = 0.3521 - 0.1543 = 0.198$.
# (b) The mean of $g(z, 0.5)^2$ over $z \sim U[-2, 2]$ is about $0.0034$, so $\lVert b\rVert
# \approx \sqrt{64 \cdot 0.0034} \approx 0.47$ — every unit contributes a positive bias, so
# they add up coherently, while the fluctuations of the units point in random directions.
# ````
#
# ````{exercise} When does a constant correction help?
# :label: debiasing-ex-constant
#
# Use {prf:ref}`debiasing-lem-split` to show that subtracting $c = \bar b$ after module $\ell$ of
# the network changes neither $\Delta_\ell$ nor $b_\ell$. Then (a) compute, from `split_n`,
# the mean squared change at the penultimate layer that an *oracle* correction applied to
# perturbed inputs only would leave; (b) apply the correction to all inputs (the
# closed-form shift above) and explain why its clean accuracy falls.
# ````
#
# ````{solution} debiasing-ex-constant
# :class: dropdown
#
# Both $h_\ell(x)$ and $h_\ell(\pi(x))$ lose $c$, so their difference is unchanged. (a) The
# oracle leaves $\operatorname{tr}\operatorname{Cov}_x(b) + \operatorname{mean}\lVert\xi\rVert^2$,
# i.e. `split_n["relu2"]["cov"] + split_n["relu2"]["fluct"]`, a fraction $1 - \rho$ of
# `split_n["relu2"]["msd"]`. (b) The network was trained with clean representations on the
# correct side of the decision boundary; moving them all by $-\bar b$ pushes prompts with
# small margin in the direction opposite to the bias, across the boundary. Only a correction
# that knows whether the input is perturbed (the oracle) avoids this, and at deployment that
# is not known.
# ````
#
# ````{exercise} Certification budget
# :label: debiasing-ex-budget
#
# (a) With $n$ perturbations all correct ($k = n$), what is the largest level $q$ a prompt can
# be certified at with $\alpha = 0.05$? How many perturbations are needed to certify $q =
# 0.99$? (b) Rerun experiment 16.10 with `N_CERT = 500`: predict whether the certified
# fraction at $q = 0.9$ rises or falls, before running it.
# ````
#
# ````{solution} debiasing-ex-budget
# :class: dropdown
#
# (a) $p_L = \alpha^{1/n}$, so $q_{\max} = 0.05^{1/n}$ and $q = 0.99$ needs $n \ge \ln 0.05 /
# \ln 0.99 \approx 299$ perturbations, all correct. (b) With more draws the bound tightens
# towards the true probability of a correct answer: prompts whose probability is above 0.9
# but that failed the $k \ge 96$ test at $n = 100$ (true probability 0.92, say) become
# certifiable, while prompts below 0.9 that passed by luck drop out. Since most debiased
# prompts have a probability near 1, the fraction usually rises.
# ````
#
# ## Summary
#
# - The damage a random perturbation does to a module's output splits exactly into a bias
#   (its mean) and a fluctuation; a constant correction removes only the input-independent
#   part of the bias ({prf:ref}`debiasing-lem-split`): it wins back much of the accuracy a
#   systematic perturbation costs, though less than half on one of five seeds (16.2).
# - Nonlinearities create bias even from zero-mean noise: a ReLU's Jensen gap is
#   $s\varphi(z/s) - \lvert z\rvert\Phi(-\lvert z\rvert/s)$ (16.1); systematic input shifts add a
#   first-order term.
# - On a toy where meaning-preserving perturbations shift embeddings systematically, most of
#   the damage at the LayerNorm output is a shift (16.3–16.4), and fine-tuning only the bias
#   parameters (under 2% of the network) recovers most of the lost accuracy (16.5) at a small
#   cost in clean accuracy, which exceeds 2 points on one of five seeds (16.6, not
#   reproduced).
# - When the perturbation's effect depends on the input, there is no shift to remove and
#   debiasing does nothing (16.7–16.8).
# - After debiasing, the error rate under perturbation at least halves (16.9), but the share of
#   prompts that pass a Clopper–Pearson certificate at $q = 0.9$ does not rise on every seed
#   (16.10, not reproduced): errors become rarer and more spread out across prompts.
