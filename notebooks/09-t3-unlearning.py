# %% [markdown]
# # 09 · t3-unlearning — Temper-then-tilt: unlearning a generative model by tempering and classifier guidance
#
# ## Overview
#
# A generative model trained on a data set has also learned the parts of it that someone later
# asks to remove: a person's private record, a copyrighted passage, a set of fictitious authors
# in the TOFU benchmark {cite}`maini2024tofu`. *Unlearning* asks for the model one would have
# obtained by training on the remaining data only, without retraining. For a language model,
# most methods fine-tune the weights against the forget set (gradient ascent, NPO
# {cite}`zhang2024npo`, SimNPO {cite}`fan2025simnpo`). {cite:t}`block2026temper` take a
# different view. The base model is a mixture of a *retain* and a *forget* distribution, and the
# retain distribution is the base model reweighted by a density ratio. A small classifier that
# tells retain from forget examples estimates this ratio, and the frozen base model is *tilted*
# by it at generation time. This is the idea of classifier guidance in diffusion models
# {cite}`dhariwal2021diffusion` and of classifier-steered decoding in language models
# {cite}`yang2021fudge`, applied to a classical density-ratio identity
# {cite}`sugiyama2012density`.
#
# The paper observes that plain classifier guidance fails exactly where unlearning matters
# most. Memorised data are **sharp spikes** of the model's density. A classifier whose average
# error is small still errs a little on the spike, and the tilt multiplies that error by the
# spike's height, so the forget error grows linearly in the peak density $\lVert p_f\rVert_\infty$.
# The remedy is to **temper first**: raise the base density to the power $1/T$, which flattens
# the spikes, and tilt afterwards. The forget error then grows like
# $\lVert p_f\rVert_\infty^{1/T}$. The price is a *tempering bias*, because tempering also
# flattens the retain distribution. The total error is smallest at an intermediate temperature.
#
# This chapter rebuilds that argument on exact one-dimensional densities, where every error is
# an integral computed by quadrature. By the end you will be able to: write unlearning as a
# density-ratio tilt and apply the class-prior correction; prove why the forget error of
# guidance grows linearly in the peak height and why tempering reduces the exponent to $1/T$;
# compute the tempering bias in closed form and find the best temperature; and see why a
# TOFU-style Kolmogorov–Smirnov "forget quality" can rank methods in the wrong order.
#
# ## Setting and notation
#
# | symbol | meaning |
# |---|---|
# | $z \in \mathbb{R}$ | a sample (for a language model: a token sequence) |
# | $p_r$, $p_f$ | retain and forget densities |
# | $\gamma \in (0, 1)$ | forget fraction of the training data |
# | $p = (1-\gamma)\, p_r + \gamma\, p_f$ | the base model, assumed equal to the training mixture |
# | $y \in \{0, 1\}$ | label, $1$ = retain, $0$ = forget |
# | $\eta(z) = \mathbb{P}(y = 1 \mid z)$ | Bayes posterior of *retain* under the mixture |
# | $\hat\eta$ | a learned or perturbed classifier |
# | $\varepsilon_\infty$ | its sup-norm error $\sup_z \lvert\hat\eta(z) - \eta(z)\rvert$ |
# | $\pi$ | retain fraction of the classifier's training set (usually $1 - \gamma$) |
# | $\delta$ | excess logistic risk $\mathbb{E}_{p}\,\mathrm{KL}(\eta \Vert \hat\eta)$ (Bernoulli) |
# | $T \ge 1$ | temperature; $s = 1 - 1/T \in [0, 1)$ |
# | $\hat p^{(T)}$ | the T3 estimate {eq}`t3-unlearning-eq-t3`; $T = 1$ is classifier guidance |
# | $\lVert p_f \rVert_\infty$ | peak density of the forget distribution (spike height) |
# | $\kappa$ | shrinkage of the controlled classifier {eq}`t3-unlearning-eq-shrink` |
#
# The toy of the whole chapter:
# $p_r = \tfrac12 \mathcal N(-3, 1) + \tfrac12 \mathcal N(4, 1)$, a forget spike
# $p_f = \mathcal N(\mu_f, \sigma_f^2)$ with $\mu_f = 0.5$ in the low-density gap of $p_r$,
# $\sigma_f \in \{0.3, 0.1, 0.03, 0.01\}$ (so $\lVert p_f\rVert_\infty = 1/(\sigma_f\sqrt{2\pi})$
# spans a factor 30), and $\gamma = 0.1$. Integrals are trapezoid sums on a fine grid of
# $[-10, 10]$.

# %% [markdown]
# ## Theory
#
# ```{prf:definition} Unlearning by temper-then-tilt
# :label: t3-unlearning-def-t3
#
# The base model is the mixture
#
# $$
# p(z) = (1 - \gamma)\, p_r(z) + \gamma\, p_f(z),
# $$ (t3-unlearning-eq-mixture)
#
# and unlearning targets $p_r$. Given a nonnegative *tilt* $\hat f$ (below, a classifier
# $\hat\eta$) and a temperature $T \ge 1$, the **temper-then-tilt (T3)** estimate is
#
# $$
# \hat p^{(T)}(z) = \frac{p(z)^{1/T}\, \hat f(z)}{Z_T}, \qquad
# Z_T = \int p(u)^{1/T}\, \hat f(u)\, du .
# $$ (t3-unlearning-eq-t3)
#
# With $T = 1$ it is **classifier guidance**. The *retain error* is
# $\mathrm{KL}(p_r \,\Vert\, \hat p^{(T)})$; the *forget error* is
#
# $$
# \mathcal E_f(\hat p) = \int p_f(z)\, \bigl\lvert \hat p(z) - p_r(z) \bigr\rvert\, dz ,
# $$ (t3-unlearning-eq-forget)
#
# the excess density that the unlearned model still puts where the forget data live,
# weighted by the forget distribution (a likelihood-type metric sees exactly this).
# ```
#
# ```{admonition} What the paper states and what this chapter reconstructs
# :class: warning
#
# **The paper's:** the mixture model {eq}`t3-unlearning-eq-mixture` with the base model assumed equal to
# the mixture; the estimate {eq}`t3-unlearning-eq-t3` (temper the base model, then tilt it with a
# retain-vs-forget classifier); an untempered guarantee whose forget-error bound grows
# linearly in $\lVert p_f\rVert_\infty$ for a classifier of given excess risk $\delta$; a
# result that untempered guidance can fail on concentrated forget distributions; a tempered
# guarantee whose forget-error bound scales with $\lVert p_f\rVert_\infty^{1/T}$ plus a
# tempering bias, with a retain-error bound that also acquires a tempering bias.
#
# **Reconstructed here:** the exact constants and hypotheses of the paper's theorems. The
# statements below are our own versions, proved in full. They are phrased with the sup-norm
# error $\varepsilon_\infty$ on the spike; {prf:ref}`t3-unlearning-lem-shrink` shows that a fixed excess
# risk $\delta$ permits such an error. The precise weighting of the paper's forget error is
# also uncertain: {eq}`t3-unlearning-eq-forget` is the natural reading, not a quotation. The paper's
# language-model procedure (per-token logits divided by $T$, plus an additive correction from
# a classifier on pooled hidden states) is described in its text but is not reproduced here
# (see the Limits section).
# ```
#
# ```{prf:proposition} Exact tilt and the class-prior correction
# :label: t3-unlearning-prop-tilt
#
# (a) The Bayes posterior of the mixture is $\eta = (1-\gamma) p_r / p$, so
# $p\,\eta = (1 - \gamma)\, p_r$, $\int p\,\eta = 1 - \gamma$, and the tilt with
# $\hat f = \eta$ recovers the target exactly: $\hat p^{(1)} = p_r$.
#
# (b) A classifier trained with retain fraction $\pi$ (for example $\pi = \tfrac12$ after
# rebalancing the classes) has Bayes posterior
# $c = \pi p_r / (\pi p_r + (1-\pi) p_f)$, and
#
# $$
# \frac{\eta}{1 - \eta} = \frac{1-\gamma}{\gamma} \cdot \frac{1-\pi}{\pi} \cdot \frac{c}{1 - c} .
# $$ (t3-unlearning-eq-prior)
#
# Tilting by $c$ instead of $\eta$ gives $p\,c / \int p\,c \neq p_r$ wherever $p_f > 0$ and
# $\pi \ne 1 - \gamma$.
# ```
#
# ```{prf:proof}
# (a) By Bayes' rule with prior $\mathbb P(y = 1) = 1 - \gamma$,
# $\eta = (1-\gamma) p_r / ((1-\gamma) p_r + \gamma p_f) = (1-\gamma) p_r / p$. Multiplying by
# $p$ gives $p\eta = (1-\gamma)p_r$, whose integral is $1 - \gamma$; dividing by it gives $p_r$.
# (b) The odds of the classifier are $c/(1-c) = \pi p_r / ((1-\pi) p_f)$ and those of the
# mixture posterior are $\eta/(1-\eta) = (1-\gamma) p_r / (\gamma p_f)$; dividing one by the
# other gives {eq}`t3-unlearning-eq-prior`. Where $p_f > 0$ the two odds differ by the constant
# factor $(1-\gamma)(1-\pi) / (\gamma \pi) \ne 1$. Since $c$ is not a constant multiple of
# $\eta$ there, $p c$ is not proportional to $p\eta$, hence not to $p_r$.
# ```
#
# The classifier needs the correction only if the classes were rebalanced. If it is trained
# on samples of $p$ labelled by origin, the classes come in proportions $1-\gamma : \gamma$,
# and its posterior already estimates $\eta$.
#
# To isolate the amplification we use a **controlled classifier**, a probability-space
# shrinkage of the Bayes posterior towards $\tfrac12$:
#
# $$
# \hat\eta_\kappa = (1 - \kappa)\, \eta + \kappa / 2, \qquad \kappa \in [0, 1].
# $$ (t3-unlearning-eq-shrink)
#
# ```{prf:lemma} A fixed excess risk allows a fixed floor on the spike
# :label: t3-unlearning-lem-shrink
#
# For every $p_r$, $p_f$ and $\gamma$, the excess logistic risk of $\hat\eta_\kappa$ satisfies
# $\delta \le \kappa \ln 2$, while $\hat\eta_\kappa \ge \kappa/2$ everywhere. In general, any
# classifier with excess risk $\delta$ has
# $\mathbb{E}_p \lvert \hat\eta - \eta\rvert \le \sqrt{\delta / 2}$.
# ```
#
# ```{prf:proof}
# For a fixed $z$, $q \mapsto \mathrm{KL}(\mathrm{Bern}(\eta)\,\Vert\,\mathrm{Bern}(q))$ is
# convex, so $\mathrm{KL}(\eta \,\Vert\, (1-\kappa)\eta + \kappa\cdot\tfrac12) \le
# (1-\kappa)\,\mathrm{KL}(\eta\,\Vert\,\eta) + \kappa\, \mathrm{KL}(\eta \,\Vert\, \tfrac12) \le
# \kappa \ln 2$, because $\mathrm{KL}(\eta \,\Vert\, \tfrac12) = \ln 2 - H(\eta) \le \ln 2$.
# Integrate against $p$. For the second statement, Pinsker's inequality gives
# $\mathrm{KL}(\mathrm{Bern}(\eta)\,\Vert\,\mathrm{Bern}(\hat\eta)) \ge 2 (\eta - \hat\eta)^2$, so
# $\delta \ge 2\,\mathbb{E}_p(\hat\eta - \eta)^2 \ge 2\,(\mathbb{E}_p\lvert\hat\eta -
# \eta\rvert)^2$ by Jensen.
# ```
#
# The bound does not depend on $\sigma_f$. However sharp the spike, the controlled classifier
# is equally good *on average*. Yet near the spike, where $\eta \approx 0$, it reports
# $\kappa/2$ instead of $0$.
#
# ```{prf:theorem} Classifier guidance amplifies error on sharp spikes
# :label: t3-unlearning-thm-amplify
#
# Let $T = 1$, $\hat f = \hat\eta \in [0, 1]$, $\hat Z = \int p\,\hat\eta$ and
# $\varepsilon_\infty = \sup_z \lvert\hat\eta - \eta\rvert$. Then
#
# $$
# \begin{aligned}
# \mathcal E_f(\hat p^{(1)}) \le {} &
# \frac{\varepsilon_\infty}{\hat Z}\Bigl[(1-\gamma)\lVert p_r\rVert_\infty +
# \gamma\, \lVert p_f\rVert_\infty\Bigr] \\
# & + (1-\gamma)\lVert p_r\rVert_\infty
# \Bigl\lvert \frac{1}{\hat Z} - \frac{1}{1-\gamma}\Bigr\rvert ,
# \end{aligned}
# $$ (t3-unlearning-eq-upper)
#
# with $\lvert \hat Z - (1 - \gamma)\rvert \le \sqrt{\delta/2}$. Conversely, for the controlled
# classifier {eq}`t3-unlearning-eq-shrink`, whose excess risk is at most $\kappa\ln 2$ for every $p_f$,
#
# $$
# \begin{aligned}
# \mathcal E_f(\hat p^{(1)}) &\ge \frac{\kappa\gamma}{2\hat Z} \int p_f^2 \;-\; \int p_f\, p_r ,
# \\
# \hat Z &= (1-\kappa)(1-\gamma) + \kappa/2 .
# \end{aligned}
# $$ (t3-unlearning-eq-lower)
#
# For a Gaussian spike $\int p_f^2 = \lVert p_f\rVert_\infty / \sqrt 2$. The forget error of
# guidance is therefore linear in the spike height, at fixed excess risk, from above and from
# below.
# ```
#
# ```{prf:proof}
# Write $\hat p^{(1)} - p_r = p(\hat\eta - \eta)/\hat Z + p\eta\,(1/\hat Z - 1/(1-\gamma))$,
# using $p\eta = (1-\gamma)p_r$ from {prf:ref}`t3-unlearning-prop-tilt`. Integrate the absolute value
# against $p_f$. The first term is at most
# $(\varepsilon_\infty/\hat Z)\int p_f\, p$, and
# $\int p_f\, p = (1-\gamma)\int p_f p_r + \gamma \int p_f^2 \le (1-\gamma)\lVert p_r\rVert_\infty +
# \gamma\lVert p_f\rVert_\infty$, because $\int p_f g \le \lVert g\rVert_\infty$ for a density
# $p_f$. The second term is $(1-\gamma)\int p_f p_r \cdot \lvert 1/\hat Z - 1/(1-\gamma)\rvert$.
# Finally $\hat Z - (1-\gamma) = \int p\,(\hat\eta - \eta)$, which is at most
# $\mathbb{E}_p\lvert\hat\eta-\eta\rvert \le \sqrt{\delta/2}$ in absolute value by
# {prf:ref}`t3-unlearning-lem-shrink`.
#
# For the lower bound, $\lvert a - b\rvert \ge a - b$ gives
# $\mathcal E_f \ge \int p_f \hat p^{(1)} - \int p_f p_r$. Since $\hat\eta_\kappa \ge \kappa/2$ and
# $p \ge \gamma p_f$, we get
# $\hat p^{(1)} = p\hat\eta_\kappa/\hat Z \ge \kappa\gamma p_f/(2\hat Z)$.
# Here
# $\hat Z = (1-\kappa)\int p\eta + \kappa/2 = (1-\kappa)(1-\gamma) + \kappa/2$. For
# $p_f = \mathcal N(\mu, \sigma^2)$, $\int p_f^2 = 1/(2\sigma\sqrt\pi)$ and
# $\lVert p_f\rVert_\infty = 1/(\sigma\sqrt{2\pi})$.
# ```
#
# ```{prf:theorem} Tempering reduces the exponent to 1/T
# :label: t3-unlearning-thm-temper
#
# For $T \ge 1$ and $\hat f = \hat\eta \in [0,1]$ with $\varepsilon_\infty = \sup_z
# \lvert\hat\eta - \eta\rvert$,
#
# $$
# \begin{aligned}
# \mathcal E_f(\hat p^{(T)}) \le {} & \frac{1}{Z_T}\Bigl[(1+\varepsilon_\infty)(1-\gamma)^{1/T}
# \int p_f\, p_r^{1/T} \\
# & \quad + \varepsilon_\infty\, \gamma^{1/T} \int p_f^{1 + 1/T}\Bigr] + \int p_f\, p_r ,
# \end{aligned}
# $$ (t3-unlearning-eq-temper)
#
# and $\int p_f^{1+1/T} \le \lVert p_f\rVert_\infty^{1/T}$ (for a Gaussian spike,
# $\int p_f^{1+1/T} = \lVert p_f\rVert_\infty^{1/T} / \sqrt{1 + 1/T}$). For the controlled
# classifier the spike term is also a lower bound up to constants:
# $\int p_f \hat p^{(T)} \ge \kappa\gamma^{1/T}\int p_f^{1+1/T}/(2 Z_T)$. The normaliser stays
# bounded away from zero as the spike sharpens, since
# $Z_T \ge (\kappa/2)(1-\gamma)^{1/T}\int p_r^{1/T}$. The spike part of the forget error therefore
# scales exactly like $\lVert p_f\rVert_\infty^{1/T}$.
# ```
#
# ```{prf:proof}
# Three pointwise facts. (i) Since $1/T - 1 \le 0$ and $p \ge (1-\gamma)p_r$,
# $p^{1/T}\eta = (1-\gamma)p_r\, p^{1/T - 1} \le ((1-\gamma)p_r)^{1/T}$. (ii) The map
# $t \mapsto t^{1/T}$ is concave and vanishes at $0$, hence subadditive:
# $p^{1/T} \le ((1-\gamma)p_r)^{1/T} + (\gamma p_f)^{1/T}$. (iii)
# $\hat\eta \le \eta + \varepsilon_\infty$. Together,
# $p^{1/T}\hat\eta \le (1 + \varepsilon_\infty)((1-\gamma)p_r)^{1/T} + \varepsilon_\infty
# (\gamma p_f)^{1/T}$. Divide by $Z_T$, integrate against $p_f$, and use
# $\mathcal E_f \le \int p_f \hat p^{(T)} + \int p_f p_r$ (from $\lvert a - b\rvert \le a + b$).
# Then $\int p_f^{1+1/T} \le \lVert p_f\rVert_\infty^{1/T}\int p_f$. The Gaussian value is a
# Gaussian integral. For the lower bound, $p^{1/T} \ge (\gamma p_f)^{1/T}$ and
# $\hat\eta_\kappa \ge \kappa/2$; for $Z_T$, $p^{1/T} \ge ((1-\gamma)p_r)^{1/T}$ and
# $\hat\eta_\kappa \ge \kappa/2$.
# ```
#
# Tempering is not free. Even with the Bayes classifier, $\hat p^{(T)} \ne p_r$ for $T > 1$.
#
# ```{prf:proposition} The tempering bias is a Bregman divergence, increasing in T
# :label: t3-unlearning-prop-bias
#
# Let $\hat f = \eta$, $s = 1 - 1/T$, and $\Lambda(t) = \ln \mathbb{E}_{z\sim p_r}\, p(z)^t$ (the
# cumulant generating function of $X = \ln p(z)$ under $p_r$). Then
#
# $$
# \begin{aligned}
# \mathrm{KL}\bigl(p_r \,\Vert\, \hat p^{(T)}\bigr)
# &= \Lambda(-s) - \Lambda(0) + s\,\Lambda'(0) \\
# &= \tfrac12 s^2\, \mathrm{Var}_{p_r}(\ln p) + O(s^3) .
# \end{aligned}
# $$ (t3-unlearning-eq-bias)
#
# It is $0$ at $T = 1$, has zero derivative in $T$ there, and is strictly increasing in $T$
# whenever $\ln p$ is not constant $p_r$-almost surely.
# ```
#
# ```{prf:proof}
# By {prf:ref}`t3-unlearning-prop-tilt`, $p^{1/T}\eta = (1-\gamma)\,p_r\, p^{-s}$, so
# $\hat p^{(T)} = p_r\, p^{-s} / \mathbb{E}_{p_r} p^{-s}$. Then
# $\mathrm{KL} = \mathbb{E}_{p_r}[\ln p_r - \ln \hat p^{(T)}] = s\,\mathbb{E}_{p_r}\ln p + \ln
# \mathbb{E}_{p_r} p^{-s} = s\Lambda'(0) + \Lambda(-s)$, with $\Lambda(0) = 0$. This is the
# Bregman divergence of the convex function $\Lambda$ between $-s$ and $0$. Its derivative in
# $s$ is $\Lambda'(0) - \Lambda'(-s) \ge 0$, because $\Lambda'$ is nondecreasing. It is strictly
# positive for $s > 0$ when $\Lambda'' = \mathrm{Var}$ under the exponentially tilted law is
# positive, that is, when $\ln p$ is not constant. Taylor expansion at $s = 0$ gives the
# quadratic term. Since $s = 1 - 1/T$ increases strictly with $T$ and $ds/dT = 1$ at $T = 1$,
# the KL increases strictly in $T$ and has zero derivative at $T = 1$.
# ```
#
# ```{prf:corollary} An interior temperature beats guidance
# :label: t3-unlearning-cor-interior
#
# Let $E(T) = \mathrm{KL}(p_r\,\Vert\,\hat p^{(T)}) + \mathcal E_f(\hat p^{(T)})$ for a classifier
# close enough to $\eta$ that the bias behaves as in {prf:ref}`t3-unlearning-prop-bias`. If the forget
# error has a negative right derivative at $T = 1$, then $T = 1$ does not minimise $E$ on
# $[1, T_{\max}]$: some $T > 1$ has a smaller total error.
# ```
#
# ```{prf:proof}
# The bias has zero derivative at $T = 1$ ({prf:ref}`t3-unlearning-prop-bias`). Hence
# $E'(1^+) = \mathcal E_f'(1^+) < 0$, so $E(1 + h) < E(1)$ for small $h > 0$. (For a learned
# classifier the bias term is only approximately the exact-$\eta$ one; this step is a sketch
# in that case.)
# ```
#
# The trade-off is now explicit. Tempering lowers the exponent of the spike term from 1 to
# $1/T$, and its bias grows like $s^2$. For sharp spikes the first effect wins at moderate
# $T$; for blunt ones the coarse grid of temperatures may show guidance ($T = 1$) as best.

# %% tags=["hide-input"]
import time

import matplotlib.pyplot as plt
import numpy as np
import torch
from densratio import densratio
from scipy import integrate, special, stats
from sklearn.calibration import CalibratedClassifierCV
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import log_loss
from sklearn.mixture import GaussianMixture

import icml26
from icml26.generative import unlearning as t3

SEED = 9
rng = icml26.seed_everything(SEED)
icml26.plotting.use_book_style()
DEVICE = icml26.device()
torch.set_num_threads(1)


def fresh_generator(offset: int) -> torch.Generator:
    """One independent CPU stream per experiment."""
    return torch.Generator().manual_seed(SEED + offset)


# %% tags=["parameters", "hide-input"]
GRID_N = icml26.pick(ci=100_001, paper=400_001)  # quadrature points on [-10, 10]
SIGMAS = icml26.pick(
    ci=[0.3, 0.1, 0.03, 0.01], paper=[0.3, 0.1, 0.03, 0.01, 0.003]
)  # σ_f
T_GRID = icml26.pick(ci=[1.0, 1.5, 2.0, 3.0, 5.0], paper=[1.0, 1.5, 2.0, 3.0, 5.0])
T_FINE = icml26.pick(
    ci=np.round(np.arange(1.0, 2.01, 0.05), 2).tolist(),
    paper=np.round(np.arange(1.0, 3.001, 0.02), 2).tolist(),
)
N_TRAIN = icml26.pick(
    ci=[500, 2000, 8000], paper=[500, 2000, 8000, 32000]
)  # learned classifier
SEEDS = icml26.pick(ci=5, paper=20)  # independent training sets per n
N_CENTRES = 50  # RBF centres on [-10, 10], width = spacing
C_REG = 1.0  # LogisticRegression(C=1): the penalty fades with n
LAMBDA_FIXED = 1e-3  # the control of 09.9: C = 1/(λ n), a fixed per-sample penalty
KAPPA = 0.1  # shrinkage κ of the controlled classifier
GAMMA = 0.1  # forget fraction
MU_F = 0.5  # forget spike centre, in the gap of p_r
RETAIN = ([-3.0, 4.0], [1.0, 1.0], [0.5, 0.5])  # p_r: (means, stds, weights)
KS_SAMPLES = icml26.pick(ci=2000, paper=2000)  # generated samples per KS test
KS_REPEATS = icml26.pick(ci=20, paper=100)
FORGET_DRAWS = 500  # forget samples for the log-likelihood histogram
N_TEST = icml26.pick(ci=200_000, paper=2_000_000)  # Monte Carlo test set for log_loss

# %% [markdown]
# The method at a glance: the base model is never retrained. Its density is tempered, then
# reweighted by a small classifier that tells retain from forget examples, and renormalised.

# %% tags=["hide-input"] mystnb={"figure": {"caption": "Temper-then-tilt: the frozen base model $p$ is tempered to $p^{1/T}$ (which flattens memorised spikes), tilted by the retain-vs-forget classifier $\\hat\\eta$ and renormalised; $T = 1$ is plain classifier guidance.", "name": "t3-unlearning-fig-model"}}
fig, ax = plt.subplots(figsize=(7.2, 2.8))
icml26.plotting.diagram(
    ax,
    {
        "p": (0.1, 0.6, "base model\n$p = (1-\\gamma) p_r + \\gamma p_f$"),
        "temper": (0.38, 0.6, "temper\n$p^{1/T}$"),
        "clf": (0.38, 0.15, "classifier $\\hat\\eta$\n(retain vs forget)"),
        "tilt": (0.64, 0.6, "tilt and\nnormalise"),
        "out": (0.9, 0.6, "unlearned\n$\\hat p^{(T)} \\approx p_r$"),
    },
    [
        ("p", "temper", ""),
        ("temper", "tilt", ""),
        ("clf", "tilt", "$\\times\\,\\hat\\eta$"),
        ("tilt", "out", ""),
    ],
    colors={"p": 0, "temper": 1, "clf": 3, "tilt": 2, "out": 0},
)
ax.set_title("Unlearning at generation time: no retraining")
plt.show()


# %% [markdown]
# ## Implementation
#
# The readable reference computes one configuration at a time in NumPy: temper, tilt,
# normalise by the trapezoid rule, then the three metrics. A loop over (spike, classifier,
# temperature) configurations fills the whole error grid.


# %% tags=["reference"]
def t3_reference(z, p, f, T):
    """T3 estimate p^(1/T) f / Z on the grid z (one configuration)."""
    q = p ** (1.0 / T) * f
    return q / np.trapezoid(q, z)


def errors_reference(z, p_r, p_f, gamma, T, eta_hat):
    """(retain KL, forget error, forget excess log-likelihood) of one T3 estimate."""
    p = (1 - gamma) * p_r + gamma * p_f
    q = t3_reference(z, p, eta_hat, T)
    kl = np.trapezoid(p_r * np.log(p_r / q), z)
    fe = np.trapezoid(p_f * np.abs(q - p_r), z)
    on = p_f > 0
    ell = np.trapezoid(np.where(on, p_f * (np.log(q) - np.log(p_r)), 0.0), z)
    return kl, fe, ell


def error_grid_reference(z, p_r, p_f_list, gamma, T_list, eta_hats):
    """Loop over spikes s, classifiers c and temperatures k: arrays (S, C, K)."""
    out = np.zeros((3, len(p_f_list), len(eta_hats), len(T_list)))
    for s, p_f in enumerate(p_f_list):
        for c, eta_hat in enumerate(eta_hats):
            for k, T in enumerate(T_list):
                out[:, s, c, k] = errors_reference(z, p_r, p_f, gamma, T, eta_hat[s])
    return out


# %% [markdown]
# The kernel `icml26.generative.unlearning.sweep.error_grid` computes the same grid without
# repeating the loop's work. In log space the retain KL and the log-likelihood separate into
# integrals that do not depend on the configuration, plus $\ln Z_T$. Per configuration it
# needs only the normaliser $Z_T$ (one power of $p$ per spike and temperature, shared by all
# classifiers) and the forget error on the support of $p_f$. It must agree with the reference.

# %%
z = t3.grid(-10.0, 10.0, GRID_N, device=DEVICE)
zn = z.cpu().numpy()
p_r = t3.mixture_pdf(z, *RETAIN)
sig = torch.tensor(SIGMAS, dtype=torch.float64, device=DEVICE)
p_f = t3.normal_pdf(z, MU_F, sig)  # (S, G)
p = (1 - GAMMA) * p_r + GAMMA * p_f
eta = t3.bayes_posterior(p_r, p_f, GAMMA)  # (S, G)
peak = (1.0 / (sig * np.sqrt(2 * np.pi))).cpu().numpy()  # ‖p_f‖_∞
Ts = torch.tensor(T_GRID, dtype=torch.float64, device=DEVICE)
classifiers = {
    "Bayes η": eta,
    f"controlled, κ = {KAPPA}": t3.shrink(eta, KAPPA),
    "logit shift +0.5": t3.logit_shift(eta, 0.5),
}
eta_hats = torch.stack(list(classifiers.values()))  # (C, S, G)
res = t3.error_grid(z, p_r, p_f, GAMMA, Ts, eta_hats)  # each (S, C, K)

pick_s = [0, len(SIGMAS) - 1]  # the bluntest and the sharpest spike
ref = error_grid_reference(
    zn,
    p_r.cpu().numpy(),
    [p_f[s].cpu().numpy() for s in pick_s],
    GAMMA,
    T_GRID,
    [e[pick_s].cpu().numpy() for e in eta_hats],
)
for i, key in enumerate(["retain_kl", "forget_error", "excess_loglik"]):
    icml26.checks.agree(
        f"kernel vs reference: {key}",
        res[key][pick_s].cpu(),
        ref[i],
        atol=1e-9,
        rtol=1e-7,
    )
print(
    f"kernel = reference on {len(pick_s)} spikes × {len(classifiers)} classifiers × "
    f"{len(T_GRID)} temperatures ({GRID_N} grid points)"
)

# %% [markdown]
# ## Experiments
#
# ### 09.1–09.2 · The exact tilt, and why the class prior matters
#
# *Claim* ({prf:ref}`t3-unlearning-prop-tilt`): with the Bayes classifier and $T = 1$, the
# tilt reproduces $p_r$ to quadrature precision. We test this on
# every spike of the grid and on a forget component that **overlaps** the retain distribution,
# $p_f = \mathcal N(4, 0.3^2)$. The grid truncates the $\mathcal N(4, 1)$ component at $z = 10$,
# six standard deviations out, so $\int p_r = 1 - 4.9\cdot 10^{-10}$ on the grid. The estimate is
# therefore compared with the grid-normalised $p_r$. The KL is computed against the analytic
# $p_r$, which carries that truncation, and so the threshold is $10^{-8}$, not $0$.

# %%
pr_grid = p_r / t3.trapezoid(p_r, z)
exact_dev, exact_kl = [], []
for s in range(len(SIGMAS)):
    q = t3.t3_density(z, p[s], eta[s], 1.0)
    exact_dev.append(float((q - pr_grid).abs().max()))
    exact_kl.append(float(t3.kl_divergence(z, p_r, q)))
pf_over = t3.normal_pdf(z, 4.0, 0.3)  # overlapping forget component
p_over = (1 - GAMMA) * p_r + GAMMA * pf_over
c_bal = t3.train_posterior(p_r, pf_over, 0.5)  # classifier trained on balanced classes
q_corr = t3.t3_density(z, p_over, t3.prior_correct(c_bal, GAMMA, 0.5), 1.0)
q_unc = t3.t3_density(z, p_over, c_bal, 1.0)
exact_dev.append(float((q_corr - pr_grid).abs().max()))
exact_kl.append(float(t3.kl_divergence(z, p_r, q_corr)))
kl_uncorrected = float(t3.kl_divergence(z, p_r, q_unc))
q_nonorm = p * eta  # the tilt without its normaliser (the control of 09.1)
nonorm_err = max(
    float((q_nonorm - pr_grid).abs().max()),
    float(t3.kl_divergence(z, p_r, q_nonorm).abs().max()),
)
kl_gap_uncorrected = float(
    t3.kl_divergence(
        z, p_r, t3.t3_density(z, p[-1], t3.train_posterior(p_r, p_f[-1], 0.5), 1.0)
    )
)
print(
    f"max |p̂ − p_r| over {len(exact_dev)} forget sets: {max(exact_dev):.1e}; "
    f"KL values: {', '.join(f'{k:.1e}' for k in exact_kl)}"
)
print(
    f"balanced classifier, no prior correction: KL = {kl_uncorrected:.3f} (overlapping "
    f"N(4, 0.3²)), {kl_gap_uncorrected:.1e} (spike in the gap, σ_f = {SIGMAS[-1]})"
)

# %% tags=["claim"]
# fails if: the tilt were not normalised (the control), or used another posterior than η
icml26.claim(
    "09.1",
    f"Bayes tilt recovers p_r: max(|p̂ − p_r|, |KL|) over {len(exact_dev)} forget sets",
    max(max(exact_dev), max(abs(k) for k in exact_kl)),
    at_most=1e-8,
    kind="theorem",
    control=nonorm_err,
    control_label="without the normaliser",
)

# %% tags=["claim"]
# fails if: the class prior did not matter — uncorrected as exact as corrected (control)
icml26.claim(
    "09.2",
    "balanced classifier without prior correction: KL(p_r ‖ p̂) on overlap",
    kl_uncorrected,
    at_least=1e-2,
    kind="theorem",
    control=abs(exact_kl[-1]),
    control_label="prior-corrected",
)

# %% [markdown]
# On the spike in the gap of $p_r$ the uncorrected tilt is almost exact (its KL is printed
# above, three orders of magnitude smaller): there $c \approx \eta \in \{0, 1\}$, and the
# prior changes nothing. The correction matters where retain and forget *overlap*, which is
# why the claim is tested there.
#
# ### 09.3–09.5 · Guidance amplifies the spike; tempering tames it
#
# *Claims* ({prf:ref}`t3-unlearning-thm-amplify`, {prf:ref}`t3-unlearning-thm-temper`): with
# the controlled classifier ($\kappa = 0.1$, excess risk $\le 0.069$ for every spike), the
# log–log slope of the forget error against $\lVert p_f\rVert_\infty$ over the four spikes lies
# in $[0.8, 1.2]$ at $T = 1$ (theory: 1) and in $[0.3, 0.7]$ at $T = 2$ (theory: $1/T$). At the
# sharpest spike, T3 with $T = 2$ has at most a third of the forget error of guidance. The
# negative control is a *logit-space* error, $\operatorname{logit}\hat\eta =
# \operatorname{logit}\eta + 0.5$. It multiplies a tiny $\eta$ by a bounded factor, puts no
# floor under the spike, and must show no amplification.
#
# First, what the estimates look like around the sharpest spike.

# %% tags=["hide-input"] mystnb={"figure": {"caption": "Unlearning a sharp forget spike ($\\sigma_f = 0.01$): guidance ($T = 1$) leaves a bump hundreds of times above $p_r$; tempering first ($T = 2, 3$) lowers it several-fold. Right: zoom on the spike.", "name": "t3-unlearning-fig-spike"}}
s_sharp = len(SIGMAS) - 1
eta_ctrl = t3.shrink(eta[s_sharp], KAPPA)
fig, axes = plt.subplots(
    1, 2, figsize=(7.4, 3.2), gridspec_kw={"width_ratios": [1.6, 1]}
)
windows = [(-7.0, 8.0), (MU_F - 5 * SIGMAS[-1], MU_F + 5 * SIGMAS[-1])]
for ax, (lo, hi) in zip(axes, windows, strict=True):
    m = (zn >= lo) & (zn <= hi)
    ax.semilogy(zn[m], p[s_sharp].cpu()[m], color="0.6", lw=2.2, label="base model p")
    ax.semilogy(zn[m], p_r.cpu()[m], color="black", ls="--", lw=1.2, label="target p_r")
    for j, T in enumerate([1.0, 2.0, 3.0]):
        q = t3.t3_density(z, p[s_sharp], eta_ctrl, T).cpu()
        lab = "guidance p̂⁽¹⁾" if T == 1 else f"T3 p̂⁽ᵀ⁾, T = {T:g}"
        ax.semilogy(zn[m], q[m], color=icml26.plotting.color(j), lw=1.3, label=lab)
    ax.set_xlabel("z")
axes[0].set_ylabel("density")
axes[0].set_ylim(1e-4, 3e1)
axes[0].set_title("Unlearning a spike at σ_f = 0.01 (κ = 0.1)")
axes[1].set_title("zoom on the spike")
axes[1].set_ylim(1e-3, 3e1)
axes[0].legend(fontsize=8, loc="upper left")
plt.show()

# %% [markdown]
# The base model (grey) carries a spike of height $\gamma\lVert p_f\rVert_\infty \approx 4$ at
# $z = 0.5$. The target $p_r$ is below $10^{-3}$ there. Guidance (blue) multiplies the spike by
# the classifier's floor $\kappa/2$. Because the spike is thousands of times higher than the
# target, a 5 % floor still leaves a bump a few hundred times above $p_r$. Tempering lowers
# the spike to $p^{1/T}$ before the same tilt: the bump is about 7 times lower at $T = 2$ and
# 13 times lower at $T = 3$. Away from the spike the
# tempered estimates are visibly flatter than $p_r$. That is the tempering bias.

# %%
K1, K2 = T_GRID.index(1.0), T_GRID.index(2.0)
fe_ctrl = res["forget_error"][:, 1, :].cpu().numpy()  # (S, K), controlled classifier
fe_logit = res["forget_error"][:, 2, :].cpu().numpy()
slopes = {T: t3.loglog_slope(peak, fe_ctrl[:, k]) for k, T in enumerate(T_GRID)}
slope_logit = t3.loglog_slope(peak, fe_logit[:, K1])
Zhat = (1 - KAPPA) * (1 - GAMMA) + KAPPA / 2
pf_sq = t3.trapezoid(p_f**2, z).cpu().numpy()
pf_pr = t3.trapezoid(p_f * p_r, z).cpu().numpy()
lower = (
    KAPPA * GAMMA / (2 * Zhat) * pf_sq - pf_pr
)  # lower bound (t3-unlearning-eq-lower)
delta_ctrl = t3.excess_logloss(z, p, eta, t3.shrink(eta, KAPPA)).cpu().numpy()
print("σ_f:                ", "  ".join(f"{s:7g}" for s in SIGMAS))
print("‖p_f‖_∞:            ", "  ".join(f"{v:7.2f}" for v in peak))
print(
    "excess risk δ:      ",
    "  ".join(f"{v:7.4f}" for v in delta_ctrl),
    f"(≤ κ ln 2 = {KAPPA * np.log(2):.4f})",
)
print("forget error T = 1: ", "  ".join(f"{v:7.4f}" for v in fe_ctrl[:, K1]))
print("lower bound (T = 1):", "  ".join(f"{v:7.4f}" for v in lower))
print("forget error T = 2: ", "  ".join(f"{v:7.4f}" for v in fe_ctrl[:, K2]))
print(
    "slopes by T:",
    ", ".join(f"T={T:g}: {v:.3f}" for T, v in slopes.items()),
    f"| logit-space error, T = 1: {slope_logit:.3f}",
)
assert (
    fe_ctrl[:, K1] >= lower - 1e-12
).all()  # the amplification theorem's lower bound
assert (delta_ctrl <= KAPPA * np.log(2)).all()  # the lemma: δ ≤ κ ln 2


def broken_t3(p: torch.Tensor, f: torch.Tensor, T: float, bug: str) -> torch.Tensor:
    """The T3 estimate with a named bug, for the controls of the claims below."""
    if bug == "no normaliser":
        return p ** (1 / T) * f
    q = {"product": (p * f) ** (1 / T), "inverted": p**T * f}[bug]
    return q / t3.trapezoid(q, z)[..., None]


eta_ctrl_all = t3.shrink(eta, KAPPA)
fe_bug = {
    bug: np.array(
        [
            t3.forget_error(z, p_f, broken_t3(p, eta_ctrl_all, T, bug), p_r)
            .cpu()
            .numpy()
            for T in T_GRID
        ]
    ).T  # (S, K)
    for bug in ("product", "inverted")
}
slope_inverted = t3.loglog_slope(peak, fe_bug["inverted"][:, K2])
ratio_product = fe_bug["product"][-1, K2] / fe_bug["product"][-1, K1]
print(
    f"controls: T = 2 applied as p^T: slope {slope_inverted:.2f}; "
    "tempering the product (p·η̂)^(1/T): forget error T = 2 / T = 1 "
    f"at σ_f = {SIGMAS[-1]}: {ratio_product:.3f}"
)
window = {T: t3.t3_density(z, p, eta_ctrl_all, T) for T in (1.0, 2.0)}
leaked = {
    T: t3.leaked_mass(z, q, MU_F, 3 * sig).cpu().numpy() for T, q in window.items()
}
print("leaked mass, T = 1:  ", "  ".join(f"{v:7.4f}" for v in leaked[1.0]))
print("leaked mass, T = 2:  ", "  ".join(f"{v:7.4f}" for v in leaked[2.0]))

# %% tags=["claim"]
# fails if: the classifier's error left no floor under the spike (logit-space: control)
icml26.claim(
    "09.3",
    "guidance (T = 1): slope of forget error vs ‖p_f‖_∞",
    slopes[1.0],
    between=(0.8, 1.2),
    kind="theorem",
    control=slope_logit,
    control_label="logit-space error",
)

# %% tags=["claim"]
# fails if: the exponent were inverted, p^T for p^(1/T) (the control), or not applied
icml26.claim(
    "09.4",
    "T3 at T = 2: slope of forget error vs ‖p_f‖_∞ (theory 1/T)",
    slopes[2.0],
    between=(0.3, 0.7),
    kind="theorem",
    control=slope_inverted,
    control_label="p^T",
)

# %% tags=["claim"]
# fails if: tempering were applied to the product (p·f̂)^(1/T) (control), or not at all
icml26.claim(
    "09.5",
    f"forget error T = 2 / T = 1 at σ_f = {SIGMAS[-1]}",
    fe_ctrl[-1, K2] / fe_ctrl[-1, K1],
    at_most=1 / 3,
    single_seed="exact quadrature, no random draw",
    control=ratio_product,
    control_label="(p·f̂)^(1/T)",
)

# %% tags=["hide-input"] mystnb={"figure": {"caption": "Forget error against the spike height $\\lVert p_f\\rVert_\\infty$ (log-log): slope about 1 for guidance and about $1/T$ after tempering (claims 09.3–09.5); dotted lines have slope $1/T$.", "name": "t3-unlearning-fig-slopes"}}
fig, ax = plt.subplots(figsize=(6.4, 4.0))
for k, T in enumerate(T_GRID[:-1]):
    c = icml26.plotting.color(k)
    ax.loglog(
        peak, fe_ctrl[:, k], "o-", color=c, label=f"T = {T:g}: slope {slopes[T]:.2f}"
    )
    ax.loglog(peak, fe_ctrl[0, k] * (peak / peak[0]) ** (1 / T), ":", color=c, lw=1)
ax.loglog(
    peak,
    fe_logit[:, K1],
    "x--",
    color="0.5",
    label=f"logit-space error, T = 1: slope {slope_logit:.2f}",
)
ax.loglog(
    peak,
    np.maximum(lower, 1e-5),
    "k-",
    lw=0.8,
    alpha=0.6,
    label="lower bound of guidance (T = 1)",
)
ax.xaxis.set_minor_formatter(plt.NullFormatter())
ax.set_xticks(peak, labels=[f"{v:.3g}" for v in peak])
ax.set(
    xlabel="spike height ‖p_f‖∞ (1/unit of z)",
    ylabel="forget error ℰ_f",
    title=r"Forget error grows like $\|p_f\|_\infty^{1/T}$ (dotted: slope $1/T$)",
)
ax.legend(fontsize=8)
plt.show()

# %% [markdown]
# The measured exponents are close to $1/T$ (dotted reference lines). For the bluntest spikes
# the retain term of {eq}`t3-unlearning-eq-temper`, which does not grow with the spike, still matters, so
# the curves bend and the fitted slopes at $T > 1$ fall slightly below $1/T$. The lower bound
# {eq}`t3-unlearning-eq-lower` is almost attained at $T = 1$ for the sharp spikes: the whole forget error
# *is* the floor $\kappa/2$ times the spike.
# The logit-space error gives a flat curve, a well-known pitfall of such toys. A
# perturbation that scales a tiny posterior by a bounded factor leaves $p\hat\eta$ of the
# order of $p_r$, and nothing is amplified.
#
# The controls on the claim lines are the named bugs, run. Inverting the exponent ($p^T$)
# steepens the slope instead of flattening it. Tempering the product $(p\hat f)^{1/T}$ also
# tempers the classifier's floor, $(\kappa/2)^{1/T} > \kappa/2$: the slope still comes out
# near $1/T$ (09.4 would not notice), but most of the gain on the sharpest spike is given back,
# which 09.5 catches.
#
# The leaked *mass* $\hat P(\lvert z - \mu_f\rvert < 3\sigma_f)$, printed above with
# {func}`~icml26.generative.unlearning.metrics.leaked_mass`, tells a different story from the forget
# error. At $T = 1$ it hardly changes once the spike is sharp: a fixed floor $\kappa/2$ on
# the posterior lets through a fixed share of the spike's mass, about
# $\gamma\kappa/(2\hat Z)$, whatever its height (for the bluntest spike the retain mass
# inside the window adds to it). What grows with the height is the *density* the model
# puts on forget samples — what a likelihood-based forget metric sees, and what the forget
# error measures. A leaked-mass metric would miss the amplification entirely.
#
# ### 09.6–09.8 · The tempering bias and the best temperature
#
# *Claims* ({prf:ref}`t3-unlearning-prop-bias`, {prf:ref}`t3-unlearning-cor-interior`): with
# the exact $\eta$ the retain KL is 0 at $T = 1$ and strictly increasing over the temperature
# grid. With the controlled classifier at $\sigma_f = 0.01$ the total error
# $\mathrm{KL} + \mathcal E_f$ is minimised at an interior grid temperature, neither $T = 1$ nor
# $T = 5$. On this coarse grid the interior optimum holds **only for the sharpest
# spike** on the coarse grid. {prf:ref}`t3-unlearning-cor-interior` predicts more: wherever the forget
# error decreases at $T = 1$, a temperature slightly above 1 beats guidance. We check that on a
# fine grid of temperatures for every spike.

# %%
kl_exact = res["retain_kl"][:, 0, :].cpu().numpy()  # (S, K)
var_logp = float(
    t3.trapezoid(p_r * torch.log(p[-1]) ** 2, z)
    - t3.trapezoid(p_r * torch.log(p[-1]), z) ** 2
)
s_vals = 1 - 1 / np.array(T_GRID)
print(
    f"KL(p_r ‖ p̂⁽ᵀ⁾), exact η, σ_f = {SIGMAS[-1]}:",
    ", ".join(
        f"T={T:g}: {abs(v):.4f}" for T, v in zip(T_GRID, kl_exact[-1], strict=False)
    ),
)
print(
    "second-order term s²·Var/2:           ",
    ", ".join(
        f"T={T:g}: {0.5 * s * s * var_logp:.4f}"
        for T, s in zip(T_GRID, s_vals, strict=False)
    ),
)
bias_violations = int(abs(kl_exact[:, 0]).max() > 1e-8) + int(
    (np.diff(kl_exact, axis=1) <= 0).sum()
)
total_ctrl = (res["retain_kl"][:, 1, :] + res["forget_error"][:, 1, :]).cpu().numpy()
argmin_T = [T_GRID[int(i)] for i in total_ctrl.argmin(1)]
print(
    "argmin_T of KL + ℰ_f (controlled classifier) by σ_f:",
    dict(zip(SIGMAS, argmin_T, strict=False)),
)

Tf = torch.tensor(T_FINE, dtype=torch.float64, device=DEVICE)
fine = t3.error_grid(z, p_r, p_f, GAMMA, Tf, t3.shrink(eta, KAPPA)[None])
tot_fine = (fine["retain_kl"] + fine["forget_error"])[:, 0, :].cpu().numpy()
fe_fine = fine["forget_error"][:, 0, :].cpu().numpy()
falls = fe_fine[:, 1] < fe_fine[:, 0]  # forget error decreases at T = 1
argmin_fine = np.array(T_FINE)[tot_fine.argmin(1)]
print(
    "forget error falls at T = 1:",
    dict(zip(SIGMAS, falls.tolist(), strict=False)),
    "| fine-grid argmin T:",
    dict(zip(SIGMAS, argmin_fine.tolist(), strict=False)),
)
cor_violations = int((falls & (argmin_fine <= 1.0)).sum())

# controls: the bias without the normaliser; a retain error with a first-order term (L1)
kl_nonorm = np.stack(
    [
        t3.kl_divergence(z, p_r, broken_t3(p, eta, T, "no normaliser")).cpu().numpy()
        for T in T_GRID
    ],
    1,
)
bias_violations_nonorm = int(abs(kl_nonorm[:, 0]).max() > 1e-8) + int(
    (np.diff(kl_nonorm, axis=1) <= 0).sum()
)
q_fine = t3.t3_density(z, p[:, None], t3.shrink(eta, KAPPA)[:, None], Tf[None, :])
l1_fine = t3.trapezoid((q_fine - p_r).abs(), z).cpu().numpy()  # (S, K)
argmin_l1 = np.array(T_FINE)[(l1_fine + fe_fine).argmin(1)]
cor_violations_l1 = int((falls & (argmin_l1 <= 1.0)).sum())
print(
    f"controls: violations without the normaliser {bias_violations_nonorm}; "
    "with the L1 retain error, fine-grid argmin T: "
    f"{dict(zip(SIGMAS, argmin_l1.tolist(), strict=True))}"
)

# %% tags=["claim"]
# fails if: the normaliser Z_T were forgotten (the control), or T not applied
icml26.claim(
    "09.6",
    "tempering bias: KL 0 at T = 1 and strictly increasing (violations)",
    bias_violations,
    at_most=0,
    kind="theorem",
    control=bias_violations_nonorm,
    control_label="without the normaliser",
)

# %% tags=["claim"]
# fails if: the spike were too blunt for tempering to pay — as at σ_f = 0.3 (control)
icml26.claim(
    "09.7",
    f"argmin_T of KL + forget error at σ_f = {SIGMAS[-1]} (interior of grid)",
    argmin_T[-1],
    between=(1.5, 3.0),
    single_seed="exact quadrature, no random draw",
    control=argmin_T[0],
    control_label=f"σ_f = {SIGMAS[0]}",
)

# %% tags=["claim"]
# fails if: the retain error had a first-order term at T = 1 — as L1 has (control)
assert falls.sum() >= 2  # the corollary's premise holds for several spikes
icml26.claim(
    "09.8",
    "spikes where ℰ_f falls at T = 1 yet fine-grid argmin_T = 1",
    cor_violations,
    at_most=0,
    kind="theorem",
    control=cor_violations_l1,
    control_label="L1 retain error",
)

# %% tags=["hide-input"] mystnb={"figure": {"caption": "The trade-off: tempering bias $\\mathrm{KL}(p_r \\Vert \\hat p^{(T)})$ grows with $T$ while the forget error falls, so their sum is smallest at an interior temperature (claims 09.6–09.8).", "name": "t3-unlearning-fig-tradeoff"}}
fig, ax = plt.subplots(figsize=(6.4, 3.8))
s = len(SIGMAS) - 1
ax.plot(
    T_FINE,
    fine["retain_kl"][s, 0].cpu(),
    color=icml26.plotting.color(0),
    label="retain KL (tempering bias)",
)
ax.plot(T_FINE, fe_fine[s], color=icml26.plotting.color(1), label="forget error ℰ_f")
ax.plot(T_FINE, tot_fine[s], color="black", lw=2, label="total")
ax.plot(
    argmin_fine[s],
    tot_fine[s].min(),
    "k*",
    ms=13,
    label=f"optimum T = {argmin_fine[s]:g}",
)
coarse = [k for k, T in enumerate(T_GRID) if T <= max(T_FINE)]
ax.plot(
    [T_GRID[k] for k in coarse],
    total_ctrl[s, coarse],
    "ks",
    mfc="none",
    label="coarse grid of 09.7",
)
ax.set(
    xlabel="temperature T",
    ylabel="error (nats, density units)",
    xlim=(0.98, max(T_FINE) + 0.02),
    title=f"The bias–amplification trade-off at σ_f = {SIGMAS[-1]}",
)
ax.legend(fontsize=8)
plt.show()

# %% [markdown]
# The exact bias is close to the quadratic approximation of {eq}`t3-unlearning-eq-bias` at
# small $s$ (0.035 against 0.027 at $T = 1.5$) and exceeds it more and more at larger $s$,
# where the higher cumulants of $\ln p$ enter. On the coarse grid the best temperature is
# interior only for $\sigma_f = 0.01$; for blunter spikes $T = 1$ wins against $T = 1.5$. The
# fine grid shows that this is an artefact of the grid. For every spike whose forget error
# falls at $T = 1$, a slightly tempered model is better than guidance, as
# {prf:ref}`t3-unlearning-cor-interior` predicts. The best temperature grows as the spike
# sharpens (printed above), as {ref}`t3-unlearning-ex-bias` derives. For the bluntest spike
# ($\sigma_f = 0.3$) the forget error does not fall at all. There the spike term is no larger
# than the retain term of {eq}`t3-unlearning-eq-temper`, and tempering has nothing to tame —
# the control of 09.7.
#
# The corollary rests on one fact: the KL bias has zero slope at $T = 1$, because every
# family of densities through $p_r$ has. The control of 09.8 swaps the KL for the $L_1$
# distance $\int \lvert \hat p^{(T)} - p_r\rvert$, whose slope at $T = 1$ is not zero; then
# guidance wins on two of the spikes whose forget error falls, and the conclusion fails. The
# control of 09.6 forgets the normaliser $Z_T$: the estimate is then not a density, its "KL"
# is not zero at $T = 1$, and it falls with $T$.
#
# ### 09.9 · A learned classifier: its risk drives the error
#
# *Claim* (with the regularisation made explicit): a logistic regression on 50
# Gaussian RBF features, fitted with `LogisticRegression(C=1)`'s convention (the penalty is on
# the summed loss, so it fades as $n$ grows), on $n$ labelled samples of $p$ at
# $\sigma_f = 0.01$. Averaged over independent training sets, its forget error decreases
# monotonically with $n \in \{500, 2000, 8000\}$ at $T = 1$ and at $T = 2$, and so does its
# excess risk $\hat\delta$, computed exactly by quadrature. Because the training samples come in
# mixture proportions, the prior correction {eq}`t3-unlearning-eq-prior` is the identity with
# $\pi = 1-\gamma$; we apply it with the empirical $\pi$ of each training set.

# %%
centres = torch.linspace(-10.0, 10.0, N_CENTRES, dtype=torch.float64)
width = float(centres[1] - centres[0])
F_grid = t3.rbf_features(z.cpu(), centres, width)  # (G, 50)
eta_s, p_s, pf_s = eta[-1], p[-1], p_f[-1]
gen_fit = fresh_generator(1)


def fit_and_score(x: torch.Tensor, y: torch.Tensor, C: float) -> dict:
    """Fit one logistic-RBF classifier per training set; score it on the σ_f spike."""
    w = t3.fit_logistic(t3.rbf_features(x, centres, width), y, C)
    pi_emp = y.double().mean(1, keepdim=True)
    c_hat = t3.predict_logistic(F_grid, w)  # (SEEDS, G)
    eta_hat = torch.stack(
        [t3.prior_correct(c_hat[b], GAMMA, float(pi_emp[b])) for b in range(SEEDS)]
    ).to(DEVICE)
    grid_n = t3.error_grid(z, p_r, pf_s[None], GAMMA, Ts, eta_hat[:, None, :])
    return {
        "w": w,
        "eta_hat": eta_hat,
        "delta": t3.excess_logloss(z, p_s, eta_s, eta_hat).cpu().numpy(),
        "fe": grid_n["forget_error"][0].cpu().numpy(),  # (SEEDS, K)
        "kl": grid_n["retain_kl"][0].cpu().numpy(),
        "ell": grid_n["excess_loglik"][0].cpu().numpy(),
    }


learned, fixed_penalty = {}, {}  # n -> dict of per-seed arrays
t_fit = time.perf_counter()
for n in icml26.progress(N_TRAIN, desc="learned classifiers"):
    x, y = t3.sample_mixture(
        n, GAMMA, RETAIN, (MU_F, SIGMAS[-1]), batch=SEEDS, generator=gen_fit
    )
    learned[n] = fit_and_score(x, y, C_REG) | {"x": x, "y": y}
    fixed_penalty[n] = fit_and_score(x, y, 1.0 / (LAMBDA_FIXED * n))
t_fit = time.perf_counter() - t_fit
for name, fits in [("C = 1", learned), (f"C = 1/({LAMBDA_FIXED:g} n)", fixed_penalty)]:
    print(name)
    for n, r in fits.items():
        tot = r["kl"] + r["fe"]
        interior = int(
            sum(T_GRID[int(i)] not in (T_GRID[0], T_GRID[-1]) for i in tot.argmin(1))
        )
        print(
            f"  n = {n:5d}: δ̂ = {r['delta'].mean():.4f}   "
            f"ℰ_f(T=1) = {r['fe'][:, K1].mean():.4f}   "
            f"ℰ_f(T=2) = {r['fe'][:, K2].mean():.4f}   "
            f"interior optimum in {interior}/{SEEDS} training sets"
        )


def rising_steps(fits: dict) -> list[int]:
    """Per training set: steps in n where δ̂, ℰ_f(T=1) or ℰ_f(T=2) does not fall."""
    curves = np.stack(
        [np.stack([r["delta"], r["fe"][:, K1], r["fe"][:, K2]]) for r in fits.values()],
        1,
    )  # (3, len(N_TRAIN), SEEDS)
    return (np.diff(curves, axis=1) >= 0).sum(axis=(0, 1)).tolist()


# %% tags=["nbval-ignore-output"]
print(f"{2 * SEEDS * len(N_TRAIN)} classifiers fitted and evaluated in {t_fit:.2f} s")

# %% tags=["claim"]
# fails if: the error were not driven by the classifier's risk (fixed penalty: control)
icml26.claim(
    "09.9",
    "δ̂ and forget error (T = 1, 2) fall with n: rising steps per training set",
    seeds=rising_steps(learned),
    rule="worst",
    at_most=0,
    control=rising_steps(fixed_penalty),
    control_label="fixed per-sample penalty",
    tuned="C = 1, chosen after a fixed per-sample penalty failed",
)

# %% tags=["hide-input"] mystnb={"figure": {"caption": "A learned classifier: forget error against its excess risk as the sample grows; tempering at $T = 2$ stays about six times lower than guidance (claim 09.9).", "name": "t3-unlearning-fig-risk"}}
fig, ax = plt.subplots(figsize=(6.4, 3.8))
for k, T in [(K1, 1.0), (K2, 2.0)]:
    c = icml26.plotting.color(0 if T == 1 else 1)
    for j, (n, r) in enumerate(learned.items()):
        ax.loglog(r["delta"], r["fe"][:, k], "o", color=c, alpha=0.35, ms=4)
        ax.loglog(
            r["delta"].mean(),
            r["fe"][:, k].mean(),
            "o",
            color=c,
            ms=9,
            mec="black",
            label=f"T = {T:g}" if j == 0 else None,
        )
        if T == 1:
            ax.annotate(
                f"n = {n}",
                (r["delta"].mean(), r["fe"][:, k].mean()),
                textcoords="offset points",
                xytext=(6, 6),
                fontsize=8,
            )
ax.set(
    xlabel="excess logistic risk δ̂ (nats)",
    ylabel="forget error ℰ_f",
    title="More data, lower risk, less forget error; T = 2 stays ≈ 6× lower",
)
ax.legend(fontsize=8)
plt.show()

# %% [markdown]
# Small dots are single training sets, large ones the means. The forget error of both
# methods falls roughly in proportion to $\hat\delta$. At every sample size tempering with
# $T = 2$ is about six times better than guidance.
#
# This claim depends on the regularisation convention, and the convention was chosen after
# seeing it fail under the other one (hence the *tuned* mark). With a fixed per-sample
# penalty, $C = 1/(\lambda n)$ with $\lambda = 10^{-3}$ — the control, fitted to the same
# training sets — the estimator converges to a biased limit: the excess risk stalls and the
# forget error is flat in $n$ (second block of the table above), so the claim fails. The
# theory's "error scales with the excess risk" needs an excess risk that actually shrinks
# ({ref}`t3-unlearning-ex-penalty`). The interior optimum of 09.7 survives with the learned
# classifier at the smaller sample sizes; at $n = 8000$ the classifier has nearly learned the
# spike, and guidance is sometimes best.
#
# ### 09.10–09.11 · A forget-quality measure that can discriminate
#
# TOFU's *forget quality* is the p-value of a two-sample Kolmogorov–Smirnov (KS) test between a
# likelihood statistic of the unlearned model and that of a model retrained on the retain data,
# evaluated on the forget set. The natural analogue here is a KS test between
# $\ln\hat p(z)$ and $\ln p_r(z)$ for $z \sim p_f$. This cannot
# discriminate. The two samples are completely separated for every $T$, so the p-value is
# $\approx 10^{-300}$ throughout (printed below). We test instead the quantity such a
# statistic summarises, the **excess forget log-likelihood**
# $\mathbb{E}_{z\sim p_f}[\ln \hat p^{(T)}(z) - \ln p_r(z)]$. It should fall strictly with
# $T$, and at $T = 2$ it should be at most $0.8\times$ its value at $T = 1$, for the
# controlled classifier and for each learned one ($n = 2000$, every training set). The
# controls are the two bugs of 09.4–09.5: the inverted exponent makes forget samples
# *likelier* as $T$ grows, and tempering the product gains a few per cent at most.

# %%
ell_ctrl = res["excess_loglik"][-1, 1, :].cpu().numpy()
ell_learn = learned[2000]["ell"].mean(0)
print("excess forget log-likelihood by T:", ", ".join(f"{T:g}" for T in T_GRID))
print(
    "  controlled:",
    np.round(ell_ctrl, 2),
    "  learned (n = 2000):",
    np.round(ell_learn, 2),
)
# per training set of the learned classifier, together with the controlled classifier
ell_violations = [
    int((np.diff(ell_ctrl) >= 0).sum() + (np.diff(e) >= 0).sum())
    for e in learned[2000]["ell"]
]
ell_ratio = [e[K2] / e[K1] for e in learned[2000]["ell"]]  # learned, per training set
assert ell_ctrl[K2] / ell_ctrl[K1] <= 0.8  # and the controlled classifier
# controls on the controlled classifier: the exponent inverted; the product tempered
ell_bug = {
    bug: np.array(
        [
            float(
                t3.excess_loglik(z, pf_s, broken_t3(p_s, eta_ctrl_all[-1], T, bug), p_r)
            )
            for T in T_GRID
        ]
    )
    for bug in ("inverted", "product")
}
print(
    "  controls: p^T:",
    np.round(ell_bug["inverted"], 2),
    "  (p·η̂)^(1/T):",
    np.round(ell_bug["product"], 2),
)

# TOFU-style KS on log-likelihoods of forget samples: separated for every T
gen_ks = fresh_generator(2)
zf = t3.sample_density(z, pf_s, FORGET_DRAWS, generator=gen_ks).cpu().numpy()
log_pr_f = np.log(np.interp(zf, zn, p_r.cpu().numpy()))
eta_c = t3.shrink(eta_s, KAPPA)
q_T = {T: t3.t3_density(z, p_s, eta_c, T) for T in T_GRID}
log_q_f = {T: np.log(np.interp(zf, zn, q.cpu().numpy())) for T, q in q_T.items()}
ks_loglik = {T: stats.ks_2samp(log_q_f[T], log_pr_f) for T in T_GRID}
print(
    "KS on forget-set log-likelihoods, p-values:",
    ", ".join(f"T={T:g}: {r.pvalue:.0e}" for T, r in ks_loglik.items()),
)

# %% tags=["claim"]
# fails if: the exponent were inverted, p^T (the control): forget samples get likelier
icml26.claim(
    "09.10",
    "excess forget log-lik. falls strictly in T: violations (controlled + learned)",
    seeds=ell_violations,
    rule="worst",
    at_most=0,
    control=int((np.diff(ell_bug["inverted"]) >= 0).sum()),
    control_label="p^T",
)

# %% tags=["claim"]
# fails if: tempering were applied to the product (p·f̂)^(1/T) (control): little gain
icml26.claim(
    "09.11",
    "excess forget log-lik., T = 2 / T = 1, learned classifier (n = 2000)",
    seeds=ell_ratio,
    rule="worst",
    at_most=0.8,
    control=ell_bug["product"][K2] / ell_bug["product"][K1],
    control_label="(p·f̂)^(1/T)",
)

# %% [markdown]
# A KS test on *generated* samples fails in the opposite direction. We draw 2000 samples
# from $\hat p^{(T)}$ and as many from $p_r$, and repeat. The test
# sees the tempering bias, which moves mass everywhere, and not the spike, which holds less
# than 1 % of the mass. Guidance then looks *better* than T3, which is the TOFU caveat: a
# p-value is not a measure of how much was forgotten.

# %%
pr_cpu = p_r
ks_gen = {}
for T in T_GRID:
    pv = []
    for _ in range(KS_REPEATS):
        a = t3.sample_density(z, q_T[T], KS_SAMPLES, generator=gen_ks).cpu().numpy()
        b = t3.sample_density(z, pr_cpu, KS_SAMPLES, generator=gen_ks).cpu().numpy()
        pv.append(stats.ks_2samp(a, b).pvalue)
    ks_gen[T] = np.array(pv)
print(f"KS on generated samples ({KS_SAMPLES} vs {KS_SAMPLES}, {KS_REPEATS} repeats):")
for T, pv in ks_gen.items():
    print(
        f"  T = {T:g}: median p = {np.median(pv):.3g}, "
        f"runs with p < 0.05: {(pv < 0.05).sum()}/{KS_REPEATS}"
    )

# %% tags=["hide-input"] mystnb={"figure": {"caption": "Left: forget samples remain likelier under the unlearned model than under $p_r$, less so as $T$ grows (claims 09.10–09.11). Right: a sample-based KS test penalises the tempering bias instead.", "name": "t3-unlearning-fig-quality"}}
fig, axes = plt.subplots(1, 2, figsize=(7.4, 3.2))
bins = np.linspace(0, 8, 41)
for j, T in enumerate([1.0, 2.0, 3.0]):
    axes[0].hist(
        log_q_f[T] - log_pr_f,
        bins=bins,
        alpha=0.55,
        color=icml26.plotting.color(j),
        label=f"T = {T:g} (KS p = {ks_loglik[T].pvalue:.0e})",
    )
axes[0].set(
    xlabel="ln p̂⁽ᵀ⁾(z) − ln p_r(z), z ~ p_f",
    ylabel="forget samples",
    title="Forget samples stay likelier than under p_r",
)
axes[0].legend(fontsize=7.5)
axes[1].boxplot([ks_gen[T] for T in T_GRID], tick_labels=[f"{T:g}" for T in T_GRID])
axes[1].axhline(0.05, color="red", lw=0.8, ls="--")
axes[1].set_yscale("log")
axes[1].set(
    xlabel="temperature T",
    ylabel="KS p-value (generated samples)",
    title="…but a sample KS test penalises T",
)
plt.show()

# %% [markdown]
# ## Cross-check
#
# 1. **scikit-learn `LogisticRegression(C=1)`** fits the same classifier as the batched Newton
#    solver of `t3.fit_logistic`, and **`log_loss`** on a large Monte Carlo test set reproduces
#    the quadrature excess risk $\hat\delta$.
# 2. **`CalibratedClassifierCV`** (isotonic) recalibrates the classifier. The tilt uses the
#    *probabilities*, so calibration changes the unlearned model.
# 3. **`densratio`** (uLSIF, {cite}`kanamori2009ulsif`) estimates $w = p_r/p$ directly from retain
#    and mixture samples, to compare with the classifier's $\hat\eta/(1-\gamma)$.
# 4. **`GaussianMixture`** plays a base model fitted to data. The theory assumes that the base
#    model equals the mixture, and a misfit adds an error the bounds do not cover.
# 5. **SciPy**: `special.rel_entr` and `integrate.trapezoid` recompute the KL and the
#    normalisers; `stats.ks_2samp` was used above.

# %%
n_x = 2000
r = learned[n_x]
Xs, ys = t3.rbf_features(r["x"][0], centres, width).numpy(), r["y"][0].numpy()
sk = LogisticRegression(C=C_REG, tol=1e-10, max_iter=10_000).fit(Xs, ys)
icml26.checks.agree(
    "fit_logistic vs sklearn LogisticRegression: coefficients",
    r["w"][0].numpy(),
    np.r_[sk.coef_[0], sk.intercept_],
    atol=1e-4,
)
icml26.checks.agree(
    "fit_logistic vs sklearn: posterior on the grid",
    t3.predict_logistic(F_grid, r["w"][:1])[0].numpy(),
    sk.predict_proba(F_grid.numpy())[:, 1],
    atol=1e-5,
)

# δ̂ by Monte Carlo with sklearn's log_loss
x_te, y_te = t3.sample_mixture(
    N_TEST, GAMMA, RETAIN, (MU_F, SIGMAS[-1]), generator=fresh_generator(3)
)
x_te, y_te = x_te[0], y_te[0].numpy()
eta_te = t3.bayes_posterior(
    t3.mixture_pdf(x_te, *RETAIN), t3.normal_pdf(x_te, MU_F, SIGMAS[-1]), GAMMA
).numpy()
eta_hat_te = sk.predict_proba(t3.rbf_features(x_te, centres, width).numpy())[:, 1]
delta_mc = log_loss(y_te, eta_hat_te, labels=[0, 1]) - log_loss(
    y_te, eta_te, labels=[0, 1]
)
eps = 1e-15
per = -(
    y_te * np.log(np.clip(eta_hat_te, eps, 1))
    + (1 - y_te) * np.log(np.clip(1 - eta_hat_te, eps, 1))
)
per -= -(
    y_te * np.log(np.clip(eta_te, eps, 1))
    + (1 - y_te) * np.log(np.clip(1 - eta_te, eps, 1))
)
se = per.std() / np.sqrt(N_TEST)
eta_hat_sk = torch.as_tensor(sk.predict_proba(F_grid.numpy())[:, 1]).to(DEVICE)
delta_q = float(t3.excess_logloss(z, p_s, eta_s, eta_hat_sk))
print(
    f"excess risk: quadrature {delta_q:.5f}, "
    f"log_loss Monte Carlo {delta_mc:.5f} ± {se:.5f}"
)
assert abs(delta_mc - delta_q) < 4 * se

# %%
cal = CalibratedClassifierCV(
    LogisticRegression(C=C_REG, max_iter=5000), method="isotonic", cv=5
)
cal.fit(Xs, ys)
eta_cal = (
    torch.as_tensor(cal.predict_proba(F_grid.numpy())[:, 1]).clamp(1e-12, 1).to(DEVICE)
)
for name, e in [("logistic", eta_hat_sk), ("isotonic-calibrated", eta_cal)]:
    fe = [
        float(t3.forget_error(z, pf_s, t3.t3_density(z, p_s, e, T), p_r))
        for T in (1.0, 2.0)
    ]
    print(
        f"{name:20s}: δ̂ = {float(t3.excess_logloss(z, p_s, eta_s, e)):.4f}, "
        f"ℰ_f(T=1) = {fe[0]:.4f}, ℰ_f(T=2) = {fe[1]:.4f}"
    )

# %% [markdown]
# Isotonic calibration changes the unlearned model a great deal, and here for the better.
# The logistic scores already *rank* the spike correctly (they are lowest there), but their
# probability at the spike is a few per cent. That is exactly the floor of
# {prf:ref}`t3-unlearning-thm-amplify`. Isotonic regression maps the lowest scores, which in the training
# folds belong only to forget samples, to a probability of zero. The floor disappears and
# with it most of the forget error at both temperatures. A monotone recalibration on held-out
# data is a cheap complement to tempering when the classifier ranks well. It helps only where
# the forget examples are densely sampled; the paper's tempering needs no such assumption.

# %%
gen_dr = np.random.default_rng(SEED)
x_mix = r["x"][0].numpy()
x_ret = x_mix[ys == 1]
dr = densratio(
    x_ret,
    x_mix,
    alpha=0.0,
    sigma_range=[0.3, 1.0],
    lambda_range=[1e-3, 1e-2],
    kernel_num=100,
    verbose=False,
)
window = (zn > -6) & (zn < 7)
w_ulsif = dr.compute_density_ratio(zn[window][::10])
w_clf = (eta_hat_sk.cpu().numpy() / (1 - GAMMA))[window][::10]
w_true = (eta_s.cpu().numpy() / (1 - GAMMA))[window][::10]
pw = p_s.cpu().numpy()[window][::10]
l1 = lambda a, b: float(np.sum(pw * np.abs(a - b)) / np.sum(pw))  # noqa: E731
print(
    "density ratio p_r/p on [-6, 7], p-weighted mean |difference|: "
    f"uLSIF vs classifier {l1(w_ulsif, w_clf):.3f}; "
    f"to the truth: uLSIF {l1(w_ulsif, w_true):.3f}, "
    f"classifier {l1(w_clf, w_true):.3f} "
    f"(the ratio is ≈ {1 / (1 - GAMMA):.2f} off the spike)"
)
print(
    "ratio at the spike centre: "
    f"truth {float(eta_s[zn.searchsorted(MU_F)]) / (1 - GAMMA):.2e}, "
    f"uLSIF {float(dr.compute_density_ratio(np.array([MU_F]))[0]):.3f}, "
    f"classifier {float(eta_hat_sk[zn.searchsorted(MU_F)]) / (1 - GAMMA):.3f}"
)
assert l1(w_ulsif, w_clf) < 0.1

# %%
gmm = GaussianMixture(n_components=3, random_state=SEED).fit(
    learned[8000]["x"][0].numpy()[:, None]
)
p_gmm = torch.as_tensor(np.exp(gmm.score_samples(zn[:, None]))).to(DEVICE)
q_gmm = t3.t3_density(z, p_gmm, eta_s, 1.0)
print(
    f"GaussianMixture base model: component std closest to the spike "
    f"{np.sqrt(gmm.covariances_.ravel()).min():.4f} (true {SIGMAS[-1]}); "
    f"KL(p_r ‖ p̂) with the exact η = {float(t3.kl_divergence(z, p_r, q_gmm)):.2e}, "
    f"ℰ_f = {float(t3.forget_error(z, pf_s, q_gmm, p_r)):.2e}"
)

# %%
q1 = t3.t3_density(z, p_s, eta_c, 2.0).cpu().numpy()
kl_scipy = integrate.trapezoid(special.rel_entr(p_r.cpu().numpy(), q1), zn)
icml26.checks.agree(
    "KL: kernel vs scipy rel_entr + trapezoid",
    float(t3.kl_divergence(z, p_r, torch.as_tensor(q1).to(DEVICE))),
    kl_scipy,
    atol=1e-12,
)
icml26.checks.agree(
    "normaliser: torch vs scipy trapezoid",
    float(t3.trapezoid(p_r, z)),
    integrate.trapezoid(p_r.cpu().numpy(), zn),
    atol=1e-14,
)
print(
    "KL and normalisers agree with scipy.special.rel_entr and scipy.integrate.trapezoid"
)

# %% [markdown]
# On the bulk of the distribution, where the ratio is $\approx 1.11$, uLSIF and the classifier
# agree to within $0.07$ ($p$-weighted), and the classifier is ten times closer to the truth.
# Both miss the spike: the true ratio there is $2\cdot 10^{-4}$, and neither a 100-kernel uLSIF with
# bandwidth $\ge 0.3$ nor a 50-centre RBF classifier can resolve a structure of width 0.01.
# This is the finite-sample situation {prf:ref}`t3-unlearning-thm-amplify` describes. Any smooth ratio
# estimator leaves a floor under the spike. The Gaussian mixture fitted to 8000 samples *does*
# find a narrow component at the spike, so the exact tilt nearly removes it. Its retain error
# comes from the misfit of the base model, which the theory assumes away.

# %% tags=["nbval-ignore-output"]
t0 = time.perf_counter()
t3.error_grid(z, p_r, p_f, GAMMA, Ts, eta_hats)
t_kernel = time.perf_counter() - t0
t0 = time.perf_counter()
error_grid_reference(
    zn,
    p_r.cpu().numpy(),
    [pf.cpu().numpy() for pf in p_f],
    GAMMA,
    T_GRID,
    [e.cpu().numpy() for e in eta_hats],
)
t_ref = time.perf_counter() - t0
print(
    f"{len(SIGMAS) * len(classifiers) * len(T_GRID)} configurations × {GRID_N} points: "
    f"kernel {t_kernel:.2f} s, reference loop {t_ref:.2f} s ({t_ref / t_kernel:.1f}×)"
)

# %% [markdown]
# The kernel does not simply batch the loop, and it is only a few times faster than it — the
# book's benchmarks ({doc}`../performance`) measure about 2× on this grid and about 6× on a
# sweep of 672 configurations, below the 20× the book asks of a kernel over its readable
# reference. The reason is the reference itself: each of its configurations is already one
# NumPy computation vectorised over $10^5$ grid points, with SIMD float64 `exp` and `log` at
# under a nanosecond per element, so its loop has almost no Python overhead to remove.
# Batching the configurations makes things *slower*: the batched tensors leave the cache, and
# torch's float64 transcendentals are several times slower than NumPy's on a CPU. So the
# kernel saves work instead. The retain KL and the log-likelihood separate in log space, and
# per configuration it computes only the normaliser $Z_T$ (one power of $p$ per spike and
# temperature, shared by all classifiers) and the forget error on the support of $p_f$. The
# saving grows with the number of classifiers and temperatures.
#
# ## Limits of this reproduction
#
# - **No language model.** The paper's experiments unlearn fictitious authors from a
#   Llama-3.1-8B fine-tuned on TOFU {cite}`maini2024tofu`, with a small classifier head on
#   cached hidden states and decoding with tempered logits plus a classifier correction.
#   Model and data need a model hub and are not used here. The headline result, better forget
#   quality than SimNPO, ULD and the other baselines at high utility, is **not tested**. The
#   paper's tables are not quoted, because we could not verify them.
# - **Per-token tempering is not sequence tempering.** Dividing next-token logits by $T$ tempers
#   each conditional, not the sequence density $p(z)^{1/T}$ of {eq}`t3-unlearning-eq-t3`. The one-dimensional
#   toy models the latter only. How the paper turns a sequence-level classifier into per-token
#   corrections is not known to us.
# - **Reconstructed theorems.** {prf:ref}`t3-unlearning-thm-amplify` and {prf:ref}`t3-unlearning-thm-temper` are our
#   versions, in terms of the sup-norm error $\varepsilon_\infty$ and the controlled
#   classifier. The paper states bounds in terms of the excess risk $\delta$ whose constants we
#   have not seen. The claims 09.3–09.5 test the exponents $1$ and $1/T$, which both versions share.
# - **Choices made after measurement.** Claim 09.2 is tested on a forget component that
#   overlaps the retain distribution, because on the spike in the gap the prior correction
#   changes the KL only at the $10^{-4}$ level (printed in 09.2). Claim 09.1 compares with the
#   grid-normalised $p_r$, at a tolerance of $10^{-8}$ set by the quadrature. Claim 09.9 uses
#   the `C = 1` convention and is marked as tuned; its control is the fixed per-sample
#   penalty, under which it fails. A TOFU-style KS claim ("p ≥ 0.05 for T3, < 0.05 for
#   guidance") cannot be tested: its p-value is $\approx 10^{-300}$ for every $T$, and a KS
#   test on generated samples ranks the methods the other way; 09.10–09.11 test the
#   likelihood it summarises.
# - **The interior optimum is spike-dependent.** On the coarse grid it holds only for the
#   sharpest spike (09.7). The fine-grid check 09.8 shows that guidance is never optimal when
#   the forget error falls at $T = 1$, but the gain at blunt spikes is tiny.
# - **Scale.** `ICML26_SCALE=paper` refines the grid, adds a sharper spike ($\sigma_f =
#   0.003$), a larger training sample ($n = 32\,000$) and more training sets; it is the same
#   one-dimensional toy, enlarged. The paper's setting — unlearning fictitious authors from a
#   Llama-3.1-8B on TOFU — is far from it; a GPU-sized step towards it (a small GPT trained on
#   synthetic TOFU-like facts, unlearned by T3 with a classifier on cached hidden states) is
#   not implemented. The record of the paper-scale run:

# %%
from icml26.pipeline import paper

paper.show("09-t3-unlearning")

# %% [markdown]
# ## Exercises
#
# ````{exercise} Which errors amplify?
# :label: t3-unlearning-ex-logit
#
# Replace the controlled classifier by `t3.logit_shift(eta, a)` for $a \in \{0.5, 2, 5\}$ and
# by an *additive floor* $\hat\eta = \max(\eta, \kappa/2)$. Predict, before computing, the
# log–log slope of the forget error against $\lVert p_f\rVert_\infty$ at $T = 1$ for each, and the
# excess risk. Then measure both with `t3.error_grid` and `t3.excess_logloss`.
# ````
#
# ````{solution} t3-unlearning-ex-logit
# :class: dropdown
#
# A logit shift multiplies the odds by $e^a$. On the spike $\eta \approx (1-\gamma)p_r/(\gamma
# p_f)$ is tiny, so $\hat\eta \le e^a\eta$ and $p\hat\eta \le e^a (1-\gamma)p_r$. The
# tilted density stays below $e^a p_r/\hat Z$, and nothing scales with the spike height: the
# forget error is bounded by $e^a \int p_f p_r/\hat Z$ however sharp the spike. Measured slopes
# are $-0.09$ ($a = 0.5$) and $-0.05$ ($a = 2$). For $a = 5$ the slope is $0.23$ and the
# error is large (0.06 to 0.12), because $e^5\eta$ is no longer small next to the spike on
# this range of $\sigma_f$; it would flatten for still sharper spikes. The floor
# $\max(\eta, \kappa/2)$ behaves like the shrinkage, with slope $1.06$, since {eq}`t3-unlearning-eq-lower`
# uses only $\hat\eta \ge \kappa/2$ on the spike. Its excess risk (0.002 to 0.005) is *ten times
# smaller* than the shrinkage's, and its forget error is about the same at the sharpest spike.
# Excess risk alone does not predict amplification; *where* the error sits does.
# ````
#
# ````{exercise} The bias to second order
# :label: t3-unlearning-ex-bias
#
# (a) Model the total error by its two leading terms: the bias $\tfrac12 s^2 V$ of
# {eq}`t3-unlearning-eq-bias` and the spike term $A\,h^{1/T} = A\,h^{1-s}$ of {eq}`t3-unlearning-eq-temper`, with
# $h = \lVert p_f\rVert_\infty$. Find the stationarity condition of
# $E(s) = \tfrac12 s^2 V + A\,h^{1-s}$. (b) How does the optimal
# $T$ move as the spike sharpens? (c) Check numerically with $V = \mathrm{Var}_{p_r}(\ln p)$ as
# computed in experiment 09.6 and $A$ fitted from the $T = 1$ forget error.
# ````
#
# ````{solution} t3-unlearning-ex-bias
# :class: dropdown
#
# (a) With $1/T = 1 - s$, $E'(s) = sV - A h^{1-s}\ln h = 0$, that is $s V = A h^{1-s}\ln h$,
# or, taking logs, $s = 1 + \ln\bigl(A \ln h / (sV)\bigr)/\ln h$.
# (b) At $s = 0$ the right side is $A h \ln h > 0$ for $h > 1$, so $E'(0) < 0$: guidance is
# never stationary. The fixed-point form shows $s^\star \to 1$ as $h \to \infty$, slowly (the
# correction is of order $\ln\ln h/\ln h$). The best $T$ therefore grows without bound as the
# spike sharpens, but only logarithmically. (c) From experiment 09.6, $V \approx 0.49$ (the
# second-order term is $0.0273$ at $s = 1/3$), and $A h = 0.164$ at $h = 39.9$. The root is
# $s^\star \approx 0.34$, $T^\star \approx 1.5$, against the fine-grid optimum $1.45$ of
# experiment 09.8. The model ignores the retain term of {eq}`t3-unlearning-eq-temper`, the factor
# $(1 + 1/T)^{-1/2}$ of the Gaussian spike, and the higher cumulants of {eq}`t3-unlearning-eq-bias`.
# ````
#
# ````{exercise} Regularisation decides claim 09.9
# :label: t3-unlearning-ex-penalty
#
# Refit the learned classifiers of experiment 09.9 with a *fixed per-sample* penalty,
# `C = 1 / (1e-3 * n)`, and with a nearly unregularised `C = 1000`. Report $\hat\delta$ and the
# forget error at $T = 1, 2$ per $n$. Which of the three conventions makes the error fall
# with $n$, and why?
# ````
#
# ````{solution} t3-unlearning-ex-penalty
# :class: dropdown
#
# With `C = 1/(λn)` the objective is $n\,[\text{mean loss} + \tfrac{\lambda}{2}\lVert w\rVert^2]$,
# and the penalty per sample stays fixed. The estimator converges to a *biased* limit, and
# $\hat\delta$ stalls near $0.012$ for every $n$. The RBF weights near the spike stay shrunk, so
# the floor under the spike and the forget error ($\approx 0.15$ at $T = 1$) do not move. With
# `C = 1` the penalty is $\tfrac12\lVert w\rVert^2$ against a loss that grows like $n$, so the
# bias fades and both $\hat\delta$ and the forget error fall (claim 09.9). With `C = 1000` the
# classifier is almost unregularised and learns the spike from the ~$0.1n$ forget samples.
# The forget errors are then tiny (mostly below $10^{-2}$) and vary from one training set to
# the next more than they change with $n$: estimation noise dominates. The theory's "error
# scales with $\delta$" needs $\delta$ to be the quantity that actually shrinks.
# ````
#
# ````{exercise} A discrete "sequence" model
# :label: t3-unlearning-ex-discrete
#
# Take $2000$ items with a Zipf retain distribution $p_r(i) \propto i^{-1.1}$, and a forget
# distribution uniform on 20 rare items ($i > 1000$) with $\gamma = 0.05$, so that each forget
# item is memorised with mass $\gamma/20$, far above its retain probability. Implement T3 with
# sums instead of integrals and the controlled classifier, and plot the forget error against
# $T$ and the retain KL against $T$. Is there an interior optimum?
# ````
#
# ````{solution} t3-unlearning-ex-discrete
# :class: dropdown
#
# ```python
# i = np.arange(1, 2001); pr = i**-1.1; pr /= pr.sum()
# pf = np.zeros(2000); pf[np.arange(1000, 2000, 50)] = 1 / 20
# g = 0.05; p = (1 - g) * pr + g * pf; eta = (1 - g) * pr / p; eh = 0.9 * eta + 0.05
# for T in [1, 1.5, 2, 3, 5]:
#     q = p ** (1 / T) * eh; q /= q.sum()
#     print(T, (pr * np.log(pr / q)).sum(), (pf * np.abs(q - pr)).sum())
# ```
#
# With these numbers there is **no** useful interior optimum. The retain KL rises from
# $0.001$ at $T = 1$ to $0.028$ at $T = 1.1$ and $0.36$ at $T = 1.5$, while the forget error is
# $1.4\cdot 10^{-4}$ and barely moves. Variants with $\gamma = 0.2$ or with 2 or 5 memorised
# items behave the same way on this grid of temperatures. Two things differ from the
# continuous toy. First, in a discrete space no "spike" is higher than probability 1, so the
# amplification of {prf:ref}`t3-unlearning-thm-amplify` is bounded. Second, the log-probabilities of a
# Zipf law spread over many nats, so the bias $\tfrac12 s^2\,\mathrm{Var}_{p_r}(\ln p)$ of
# {prf:ref}`t3-unlearning-prop-bias` rises steeply. (With the controlled classifier the retain KL also has
# a first-order term at $T = 1$, so {prf:ref}`t3-unlearning-cor-interior` does not apply directly.) This is
# plausibly one reason to temper *per token*, as the paper does for language models: the
# next-token conditionals are far less spread out than the probabilities of whole sequences.
# ````
#
# ## Summary
#
# - Unlearning with a frozen model is a density-ratio tilt: $p_r = p\,\eta/(1-\gamma)$ exactly
#   for the Bayes classifier (09.1). A rebalanced classifier needs the class-prior correction,
#   and without it the error is large where retain and forget overlap (09.2).
# - Classifier guidance amplifies a small floor of classifier error on memorised spikes: the
#   forget error grows linearly in $\lVert p_f\rVert_\infty$ at fixed excess risk (09.3).
# - Tempering first reduces the exponent to $1/T$ (09.4) and, at $T = 2$, the error on the
#   sharpest spike about sixfold (09.5).
# - The price is a tempering bias, a Bregman divergence of the log-density's cumulant
#   generating function that grows like $s^2$ (09.6). The best temperature is therefore above 1
#   (09.7–09.8). A better classifier lowers every error (09.9).
# - Measure forgetting on the forget set's likelihood (09.10–09.11): a KS p-value on generated
#   samples sees the bias and not the spike.
