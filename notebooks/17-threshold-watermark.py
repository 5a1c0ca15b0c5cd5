# %% [markdown]
# # 17 · threshold-watermark — (t, K)-threshold watermarking in federated learning
#
# ## Overview
#
# A model trained by federated learning belongs to many parties at once: $K$ clients each
# contributed data and compute, and a server averaged their updates. If the model later leaks
# — a client resells it, the server deploys it elsewhere — who may prove that it is theirs?
# White-box watermarking answers the single-owner version of this question: training nudges
# the weights towards a secret direction $\tau$, and whoever knows $\tau$ can later test a
# suspect model's weights for it {cite}`uchida2017embedding`. In federated learning two things
# go wrong with the naive extension. If every client embeds its *own* key, each mark is
# averaged with $K-1$ others and fades as $K$ grows. If all clients share one key, every
# client can verify — and every client can also remove the mark, or frame others.
#
# {cite:t}`bakr2026collaborative` propose **collaborative threshold watermarking**: a single
# watermark key is secret-shared among the clients with Shamir's scheme
# {cite}`shamir1979share`, the watermark is embedded during federated averaging
# {cite}`mcmahan2017communication` without any client learning the key, and a *coalition* of at
# least $t$ clients can verify a suspect model — without ever reconstructing the key — while
# any $t-1$ clients learn nothing about it. The paper reports that the shared mark stays
# detectable ($z \ge 4$) with up to $K = 128$ clients at minimal accuracy cost, on IID and
# non-IID partitions, and survives fine-tuning with up to 20 % of the training data.
#
# By the end of this chapter you will be able to: prove why per-client marks dilute like $1/K$
# while a shared key does not; calibrate the detection $z$-score exactly; implement Shamir
# sharing over the Mersenne prime $2^{61}-1$ with vectorised modular arithmetic and verify a
# watermark from shares alone; and train $K = 128$ federated clients as one batched
# computation on the bundled digits data.
#
# ## Setting and notation
#
# | symbol | meaning |
# |---|---|
# | $K$, $k \in [K]$ | number of clients, a client |
# | $D_k$, $n_k$, $w_k = n_k / \sum_j n_j$ | client $k$'s shard, its size, its FedAvg weight |
# | $\theta = (\theta_1, \dots, \theta_L)$ | parameters: $L$ tensors, $d_\ell$ entries each |
# | $R$, $r$ | federated rounds (the book's horizon), a round |
# | $\tau = (\tau_\ell)_\ell$ | watermark key, $\tau_\ell \in \{\pm d_\ell^{-1/2}\}^{d_\ell}$ |
# | $c$, $\beta$ | watermark strength, EMA factor of the update norms |
# | $\Delta_{k,\ell}$, $a_{k,\ell}$ | client $k$'s update of layer $\ell$, its embedding strength |
# | $S(\theta)$, $\sigma_0$, $z$ | mean layer cosine with $\tau$, its null sd, $z = S/\sigma_0$ |
# | $p$, $\mathbb{F}_p$ | a prime, the field of integers modulo $p$ (here $p = 2^{61}-1$) |
# | $t$ | threshold: the smallest coalition that can verify |
# | $T \subseteq [K]$, $\lambda_i^T$ | a coalition (not a horizon here), its Lagrange weights |
# | $y_i \in \mathbb{F}_p^{d}$ | client $i$'s Shamir share of the encoded key |
# | $f$, $\tilde x = \mathrm{round}(2^f x) \bmod p$ | fixed-point bits, field encoding of $x$ |
#
# Vectors are columns, $\langle u, v \rangle = u^\top v$, and
# $\cos(u, v) = \langle u, v\rangle / (\lVert u \rVert \lVert v \rVert)$.

# %% [markdown]
# ## Theory
#
# ````{admonition} What the paper states and what this chapter reconstructs
# :class: important
#
# The paper's full text (formal game-based definitions, proofs, tables) was not available to
# us; we read its abstract, a public summary and its released code. **From the paper:** the
# $(t, K)$-threshold setting, Shamir-shared keys, verification by a coalition of $\ge t$ clients
# via a reconstruction-free inner product and a calibrated $z$-test with threshold $z \ge 4$,
# and the headline results (detectable up to $K = 128$, IID and non-IID, minimal accuracy loss,
# robust to fine-tuning with 20 % of the data). **From the released code:** the Rademacher key,
# the embedding rule of {prf:ref}`threshold-watermark-def-fedavg` (strength $c\,\bar g_k \lVert \Delta_{k,\ell}
# \rVert$), the layer-mean statistic and its constants $\sigma_0 = 0.01$ (CIFAR-10) and
# $0.0088$ (CIFAR-100). **Our reconstruction:** the exact null moments
# ({prf:ref}`threshold-watermark-prop-null`), the dilution law ({prf:ref}`threshold-watermark-prop-dilution`), the fixed-point
# field encoding, the restriction of the statistic to large tensors, the "adaptive" attacker,
# and the toy model (an MLP on the bundled digits instead of ResNet-18 on CIFAR). The released
# key-generation code works modulo $2^{53}-1$, which is **not prime**
# ($= 6361 \cdot 69431 \cdot 20394401$), draws polynomial coefficients from $[0, 2^8)$ and
# interpolates in floating point; none of that gives Shamir's guarantees, so this chapter uses
# the prime $2^{61}-1$, uniform coefficients and exact modular interpolation.
# ````
#
# ### Federated training with a watermark
#
# ```{prf:definition} FedAvg with watermark embedding
# :label: threshold-watermark-def-fedavg
#
# Starting from $\theta^{(0)}$, each round $r = 1, \dots, R$ the server broadcasts $\theta =
# \theta^{(r-1)}$; every client $k$ takes a local optimiser step (here one full-shard AdamW step,
# its optimiser state kept across rounds) to $\theta_k^{\mathrm{loc}}$ and forms
#
# $$
# \begin{aligned}
# \Delta_{k,\ell} &= \theta^{\mathrm{loc}}_{k,\ell} - \theta_\ell, \\
# \bar g_k &\leftarrow \beta \bar g_k + (1 - \beta)\, \tfrac1L \textstyle\sum_\ell \lVert
# \Delta_{k,\ell} \rVert, \\
# a_{k,\ell} &= c\, \bar g_k\, \lVert \Delta_{k,\ell} \rVert
# \end{aligned}
# $$ (threshold-watermark-eq-strength)
#
# ($\bar g_k = 0$ initially). With a **shared key** $\tau$ the client uploads
# $u_{k,\ell} = \theta^{\mathrm{loc}}_{k,\ell} + a_{k,\ell} \tau_\ell$; with **per-client keys**
# $\tau^{(k)}$ it uploads $\theta^{\mathrm{loc}}_{k,\ell} + a_{k,\ell} \tau^{(k)}_\ell$. The
# server sets $\theta^{(r)}_\ell = \sum_k w_k u_{k,\ell}$. With $c = 0$ this is plain FedAvg.
# ```
#
# With a shared key the round's watermark increment is $\big(\sum_k w_k a_{k,\ell}\big)\tau_\ell$.
# In the paper's *untrusted-server* variant no client knows $\tau$: client $k$ holds an additive
# share $\sigma_k$ with $\sum_k \sigma_k = \tau$, the strengths are summed by secure aggregation
# {cite}`bonawitz2017practical`, $A_\ell = \sum_j a_{j,\ell}$, and client $k$ uploads
# $\theta^{\mathrm{loc}}_{k,\ell} + A_\ell \sigma_{k,\ell}$. With equal weights $w_k = 1/K$
# the average is $\frac1K \sum_k \theta^{\mathrm{loc}}_{k,\ell} + \frac{A_\ell}{K} \tau_\ell$,
# and $A_\ell / K = \sum_k w_k a_{k,\ell}$: **exactly** the trusted result; the Cross-check section
# verifies this identity. A single upload is masked by its share, so this relies on the server
# seeing only the sum.
#
# ### Detection and its null distribution
#
# ```{prf:definition} Detection statistic
# :label: threshold-watermark-def-detect
#
# For a set $\mathcal L$ of layers, $S(\theta) = \frac{1}{\lvert\mathcal L\rvert}
# \sum_{\ell \in \mathcal L} \cos(\theta_\ell, \tau_\ell)$ and $z(\theta) = (S(\theta) -
# \mu_0)/\sigma_0$; the watermark is declared present iff $z \ge 4$. The released code uses
# all layers and empirical constants $(\mu_0, \sigma_0)$. We use $\mu_0 = 0$, the analytic
# $\sigma_0$ of {prf:ref}`threshold-watermark-prop-null`, and $\mathcal L = \{\ell : d_\ell \ge 256\}$. We also
# report the sign statistic $z_{\mathrm{sign}}(\theta) = \langle \operatorname{vec}\theta,
# \operatorname{sign}(\operatorname{vec}\tau)\rangle / \lVert\operatorname{vec}\theta\rVert$.
# ```
#
# ```{prf:proposition} Exact null moments
# :label: threshold-watermark-prop-null
#
# Let $\theta$ be fixed (or independent of $\tau$) with $\theta_\ell \neq 0$, and let
# $\tau_\ell = \varepsilon_\ell / \sqrt{d_\ell}$ with independent Rademacher signs
# $\varepsilon_\ell \in \{\pm1\}^{d_\ell}$, independent across layers. Then
#
# $$
# \begin{aligned}
# \mathbb{E}\cos(\theta_\ell, \tau_\ell) &= 0, \qquad \operatorname{Var}\cos(\theta_\ell,
# \tau_\ell) = \frac{1}{d_\ell}, \\
# \sigma_0 := \sqrt{\operatorname{Var} S} &=
# \frac{\sqrt{\sum_{\ell \in \mathcal L} 1/d_\ell}}{\lvert \mathcal L \rvert},
# \end{aligned}
# $$ (threshold-watermark-eq-sigma0)
#
# so $z = S / \sigma_0$ has mean $0$ and variance $1$ exactly; and $z_{\mathrm{sign}}$ has mean
# $0$ and variance $1$ exactly. For large layers $z$ is approximately $\mathcal N(0,1)$ and the
# false-positive rate of the rule $z \ge 4$ is about $\bar\Phi(4) = 3.2 \cdot 10^{-5}$.
# ```
#
# ```{prf:proof}
# $\cos(\theta_\ell, \tau_\ell) = \sum_i \theta_{\ell i} \varepsilon_{\ell i} / \lVert
# \theta_\ell \rVert$ because $\lVert \tau_\ell \rVert = 1$. The signs have mean $0$, so the
# mean is $0$; they are independent with variance $1$, so $\operatorname{Var} \sum_i
# \theta_{\ell i} \varepsilon_{\ell i} = \sum_i \theta_{\ell i}^2 = \lVert \theta_\ell
# \rVert^2$. Dividing by $\sqrt{d_\ell}\,\lVert \theta_\ell \rVert$ gives
# $\operatorname{Var}\cos(\theta_\ell, \tau_\ell) = 1/d_\ell$, whatever $\theta_\ell \neq 0$
# is. Layers use independent signs, so
# the variances of the $\lvert \mathcal L \rvert$ cosines add and $\operatorname{Var} S =
# \sum_{\ell\in\mathcal L} d_\ell^{-1} / \lvert \mathcal L\rvert^2$. For $z_{\mathrm{sign}}$,
# $\operatorname{sign}(\operatorname{vec}\tau)$ is one Rademacher vector of length $P$, and the
# same computation gives variance $\lVert \operatorname{vec}\theta\rVert^2 / \lVert
# \operatorname{vec}\theta \rVert^2 = 1$. Normality is only asymptotic (Lindeberg's CLT, which
# needs no single coordinate of $\theta_\ell$ to dominate); the exact statements are the first
# two moments.
# ```
#
# The proposition explains the code's constants. A CIFAR ResNet-18 has 62 parameter tensors;
# the BatchNorm vectors (64 to 512 entries) and the 10-entry classifier bias dominate $\sum_\ell
# 1/d_\ell \approx 0.39$, so $\sigma_0 \approx \sqrt{0.39}/62 \approx 0.0101$ — the released
# constant $0.01$ — and a 100-entry bias (CIFAR-100) gives $0.0089$ against the released
# $0.0088$ (experiment 17.7). It also warns: a layer mean is dominated by its *smallest* tensors,
# whose cosines are the noisiest. In our MLP the 10-entry output bias alone makes the
# all-layer $\sigma_0$ four times larger than the one over the three weight matrices, which is
# why we restrict $\mathcal L$ to $d_\ell \ge 256$.
#
# ```{prf:proposition} Dilution of per-client watermarks
# :label: threshold-watermark-prop-dilution
#
# Consider one FedAvg round with equal weights $w_k = 1/K$ and strengths $a_{k,\ell}$. With a
# shared key the watermark component along $\tau_\ell$ grows by $\bar a_\ell = \frac1K \sum_k
# a_{k,\ell}$. With independent per-client keys the component along client $k$'s own key grows
# by
#
# $$
# \begin{aligned}
# \langle \Delta\theta_\ell, \tau_\ell^{(k)} \rangle &= \frac{a_{k,\ell}}{K} + \frac1K \sum_{j
# \neq k} a_{j,\ell} \langle \tau_\ell^{(j)}, \tau_\ell^{(k)} \rangle, \\
# \mathbb{E} &= \frac{a_{k,\ell}}{K}, \quad \operatorname{sd} \le \frac{\max_j a_{j,\ell}}{\sqrt{K d_\ell}}.
# \end{aligned}
# $$
#
# At equal strengths the per-client signal is a factor $K$ smaller than the shared one: since
# $z$ is linear in the inner product, $z_{\mathrm{shared}} / z_{\mathrm{per\text{-}client}} \to
# K$ — per-client $z$-scores shrink like $1/K$ (not $1/\sqrt K$) relative to a shared key.
# ```
#
# ```{prf:proof}
# The averaged increment is $\Delta\theta_\ell = \frac1K \sum_j a_{j,\ell} \tau_\ell^{(j)}$
# (plus the training update, which is the same in both cases and independent of the keys).
# Take the inner product with $\tau_\ell^{(k)}$: the $j = k$ term is $a_{k,\ell}/K$ because
# $\lVert \tau^{(k)}_\ell \rVert = 1$; for $j \neq k$, $\langle \tau_\ell^{(j)},
# \tau_\ell^{(k)}\rangle$ is a sum of $d_\ell$ independent $\pm 1/d_\ell$ terms, mean $0$ and
# variance $1/d_\ell$, and the $K - 1$ cross terms are uncorrelated, so their sum has standard
# deviation at most $\max_j a_{j,\ell} \sqrt{(K-1)/d_\ell}/K$. With a shared key all $K$ terms
# are $a_{j,\ell}\tau_\ell$ and the component is $\bar a_\ell$. Over $R$ rounds the increments
# add coherently along the fixed keys in both cases, so the ratio stays $K \bar a_\ell /
# a_{k,\ell} \approx K$. *What the proof does not cover:* the strengths $a_{k,\ell}$ of
# {eq}`threshold-watermark-eq-strength` depend on $K$ (smaller shards give larger local updates), so the
# *absolute* shared $z$ changes with $K$; the ratio does not depend on that.
# ```
#
# ### Shamir sharing and verification without reconstruction
#
# ```{prf:definition} Shamir secret sharing over a prime field
# :label: threshold-watermark-def-shamir
#
# Fix a prime $p > K$. To share $s \in \mathbb F_p$ with threshold $t$, draw $a_1, \dots,
# a_{t-1}$ uniformly and independently from $\mathbb F_p$, let $f(x) = s + \sum_{j=1}^{t-1} a_j
# x^j$, and give client $i \in [K]$ the share $y_i = f(i)$. A vector is shared coordinate-wise
# with independent polynomials and the same evaluation points. For a coalition $T$,
#
# $$
# \lambda_i^T = \prod_{j \in T,\, j \neq i} \frac{j}{j - i} \bmod p, \qquad
# \operatorname{Rec}_T(y) = \sum_{i \in T} \lambda_i^T y_i \bmod p .
# $$ (threshold-watermark-eq-lagrange)
# ```
#
# ```{prf:theorem} Threshold correctness and perfect secrecy
# :label: threshold-watermark-thm-shamir
#
# (i) For every coalition with $\lvert T \rvert \ge t$, $\operatorname{Rec}_T(y) = s$.
# (ii) For every set $U$ of $t - 1$ clients, the shares $(y_i)_{i \in U}$ are uniformly
# distributed on $\mathbb F_p^{t-1}$ whatever $s$ is: for every value of these shares and
# every candidate secret $s'$ there is exactly one polynomial of degree $< t$ with $f(0) = s'$
# consistent with them. Hence $t-1$ shares carry no information about $s$.
# ```
#
# ```{prf:proof}
# (i) $\lambda^T_i$ is the value at $0$ of the Lagrange basis polynomial $\ell_i(x) =
# \prod_{j \neq i} (x - j)/(i - j)$, which needs the inverses of $i - j \neq 0$: they exist
# because $p$ is prime and the points are distinct modulo $p$. For $\lvert T \rvert \ge t$,
# $\sum_{i \in T} f(i) \ell_i(x)$ is the unique polynomial of degree $< \lvert T\rvert$ through
# the points $(i, f(i))$, so it equals $f$; at $x = 0$ it gives $f(0) = s$. (ii) Fix $U$ and
# $s'$. The map $(a_1, \dots, a_{t-1}) \mapsto (f(i))_{i \in U}$ with $f(0) = s'$ is affine,
# with linear part the $(t-1) \times (t-1)$ matrix $(i^j)_{i \in U, 1 \le j < t} =
# \operatorname{diag}(i)\, V$, $V$ a Vandermonde matrix on distinct non-zero points, hence
# invertible over the field $\mathbb F_p$. So the map is a bijection of $\mathbb F_p^{t-1}$:
# every share vector has exactly one preimage (one polynomial) for every $s'$, and uniform
# coefficients give uniform shares, independent of $s$. Over $\mathbb Z_m$ with $m$ composite,
# $\det$ may be a non-invertible zero divisor and both parts can fail (experiment 17.2).
# ```
#
# ```{prf:lemma} Verification without reconstruction
# :label: threshold-watermark-lem-verify
#
# Let $\tilde\tau \in \mathbb F_p^{d}$ be shared with threshold $t$, $y_i$ the shares, and
# $v \in \mathbb F_p^{d}$ a public vector (the encoded suspect layer $\tilde\theta_\ell$). Each
# member $i$ of a coalition $\lvert T \rvert \ge t$ computes the scalar $r_i = \langle v, y_i
# \rangle \bmod p$; then
#
# $$
# \sum_{i\in T} \lambda_i^T r_i \equiv \langle v, \tilde\tau \rangle \pmod p .
# $$ (threshold-watermark-eq-verify)
#
# If $\lvert \langle v, \tilde\tau\rangle \rvert < p/2$ (as integers, before reduction) the signed
# decoding recovers it exactly, and $\cos(\theta_\ell, \tau_\ell) \approx
# \langle\tilde\theta_\ell, \tilde\tau_\ell\rangle / (2^{2f}\lVert\theta_\ell\rVert)$ follows,
# up to the fixed-point rounding of the two encodings.
# ```
#
# ```{prf:proof}
# Sharing is linear: coordinate $c$ of $y_i$ is $f_c(i)$, so $r_i = \sum_c v_c f_c(i) =
# F(i)$ with $F = \sum_c v_c f_c$, a polynomial of degree $< t$ with $F(0) = \sum_c v_c
# \tilde\tau_c$. Applying (i) of {prf:ref}`threshold-watermark-thm-shamir` to $F$ gives {eq}`threshold-watermark-eq-verify`. The
# bound on the integer inner product makes the representative in $(-p/2, p/2)$ the true value.
# With $f = 20$ bits, parameters of magnitude below $2^{4}$ and $d \le 2^{14}$, $\lvert\langle
# \tilde\theta, \tilde\tau\rangle\rvert < 2^{14} \cdot 2^{24} \cdot 2^{20} = 2^{58} < p/2$.
# ```
#
# *What verification leaks.* If the members publish their scalars $r_i$ rather than feeding
# them to a secure sum, each verification reveals one linear functional of every member's
# share; after about $d_\ell$ verifications against distinct public models a share can be
# solved for (an exercise below). Even a secure sum reveals $\langle\theta,\tau\rangle$ for each
# queried $\theta$, so verifications must be rate-limited or the shares re-randomised.

# %% tags=["hide-input"]
import itertools
import math
import random
import time

import matplotlib.pyplot as plt
import numpy as np
import torch
from scipy import stats

import icml26
from icml26.trust import adamw, federated, shamir, watermark

SEED = 17
rng = icml26.seed_everything(SEED)
icml26.plotting.use_book_style()
DEVICE = icml26.device()
gen = torch.Generator().manual_seed(SEED)  # CPU generator for the chapter's other draws
torch.set_num_threads(1)

# %% tags=["parameters", "hide-input"]
SEEDS = icml26.pick(ci=[0, 1, 2], paper=[0, 1, 2, 3, 4])  # independent federations
K_LIST = icml26.pick(ci=[8, 32, 128], paper=[8, 32, 128])  # clients (IID)
K_CLEAN = icml26.pick(ci=[8, 32], paper=[8, 32, 128])  # clean twins (IID)
K_PER_CLIENT = icml26.pick(ci=[8, 32], paper=[8, 32, 128])  # per-client-key baseline
K_NONIID = icml26.pick(ci=[8], paper=[8, 32, 64])  # clients (Dirichlet non-IID)
ALPHA = icml26.pick(ci=0.5, paper=0.5)  # Dirichlet concentration of the label split
ROUNDS = icml26.pick(ci=150, paper=200)  # federated rounds R (the released code: 200)
LR = icml26.pick(ci=3e-3, paper=3e-3)  # client AdamW learning rate
WD = icml26.pick(ci=0.01, paper=0.01)  # AdamW weight decay
STRENGTH = icml26.pick(ci=1.0, paper=1.0)  # watermark strength c
C_RELEASED = icml26.pick(ci=0.1, paper=0.1)  # c of the released code's trusted run
C_HARMFUL = icml26.pick(ci=30.0, paper=30.0)  # a mark 30 times too strong
CONTROL_K = icml26.pick(ci=8, paper=8)  # where the two strengths above are trained
BETA = icml26.pick(ci=0.9, paper=0.9)  # EMA factor of the update norm
MIN_DIM = icml26.pick(ci=256, paper=256)  # layers with d_ℓ ≥ this enter S
N_NULL_KEYS = icml26.pick(ci=2000, paper=20000)  # random keys for the null calibration
FRAC_BITS = icml26.pick(ci=20, paper=20)  # fixed-point bits f
SMALL_K, SMALL_T = icml26.pick(ci=(6, 3), paper=(6, 3))  # all C(6,3) coalitions
BIG_K, BIG_T = icml26.pick(ci=(128, 32), paper=(128, 32))
BIG_SUBSETS = icml26.pick(ci=50, paper=500)  # random t-subsets at K = 128
VERIFY_K, VERIFY_T = icml26.pick(ci=(8, 4), paper=(32, 8))
SECRECY_P, SECRECY_T = icml26.pick(ci=(13, 3), paper=(31, 3))  # exhaustive small field
ATTACK_FRACS = icml26.pick(ci=[0.05, 0.1, 0.2], paper=[0.05, 0.1, 0.2])
ATTACK_EPOCHS = icml26.pick(ci=30, paper=100)
ATTACK_LR = icml26.pick(ci=1e-3, paper=1e-3)
ADAPTIVE_LR = icml26.pick(ci=1e-2, paper=1e-2)  # the "adaptive" attacker: lr × 10
ATTACK_K = icml26.pick(ci=32, paper=32)  # the attacked models: shared key, K = 32, IID

# %% [markdown]
# The protocol at a glance: a dealer (or a distributed protocol) Shamir-shares the key, the
# clients embed it while FedAvg trains the model, and any $t$ of them verify a suspect model
# from their shares.

# %% tags=["hide-input"] mystnb={"figure": {"caption": "Collaborative threshold watermarking: the key $\\tau$ is Shamir-shared among the $K$ clients; every round each client embeds the mark in its upload and the server averages; a coalition of $t$ clients verifies a suspect model by Lagrange-combining one scalar per member, without reconstructing $\\tau$.", "name": "17-fig-protocol"}}
fig, ax = plt.subplots(figsize=(7.4, 3.2))
boxes = {  # name: (x, y, text, half-width, half-height) in axes units
    "key": (0.09, 0.8, "key $\\tau$\n(dealer/MPC)", 0.085, 0.12),
    "sh": (0.09, 0.13, "Shamir shares\n$y_1, \\dots, y_K$", 0.09, 0.12),
    "cl": (0.4, 0.8, "$K$ clients: local\nstep + mark", 0.095, 0.12),
    "sv": (0.4, 0.42, "server: FedAvg\n(secure sum)", 0.095, 0.12),
    "m": (0.68, 0.56, "model $\\theta$", 0.07, 0.08),
    "v": (0.9, 0.13, "$t$ clients:\n$z \\geq 4$?", 0.075, 0.12),
}
icml26.plotting.diagram(
    ax,
    {k: b[:3] for k, b in boxes.items()},
    [],
    colors={"key": 1, "sh": 1, "cl": 0, "sv": 0, "m": 2, "v": 3},
    fontsize=9.5,
)
for a, b, label in [
    ("key", "sh", "split"),
    ("key", "cl", "embed"),
    ("cl", "sv", "uploads"),
    ("sv", "m", ""),
    ("m", "v", "suspect"),
    ("sh", "v", "one scalar each"),
]:
    (xa, ya, _, wa, ha), (xb, yb, _, wb, hb) = boxes[a], boxes[b]
    dx, dy = xb - xa, yb - ya
    fa = min(wa / abs(dx) if dx else 1, ha / abs(dy) if dy else 1) + 0.02
    fb = min(wb / abs(dx) if dx else 1, hb / abs(dy) if dy else 1) + 0.02
    ax.annotate(
        "",
        xy=(xb - fb * dx, yb - fb * dy),
        xytext=(xa + fa * dx, ya + fa * dy),
        arrowprops={"arrowstyle": "-|>", "color": "0.3", "lw": 1.2},
    )
    if label:
        ax.text(
            xa + dx / 2 + (0.03 if dx == 0 else 0),
            ya + dy / 2 + (0.03 if dy == 0 else 0),
            label,
            ha="left" if dx == 0 else "center",
            fontsize=8,
            color="0.25",
        )
ax.set_title("One shared key, embedded by all K clients, verified by any t of them")
plt.show()

# %% [markdown]
# ## Implementation
#
# Readable references first, one object at a time and with plain Python or per-client loops:
# Shamir sharing on Python integers (any prime), the detection $z$ of {prf:ref}`threshold-watermark-def-detect`
# layer by layer, and one FedAvg round of {prf:ref}`threshold-watermark-def-fedavg` as a loop over clients with
# `torch.optim.AdamW`.


# %% tags=["reference"]
def shamir_split_reference(
    secret: int, n: int, t: int, p: int, rnd: random.Random
) -> list[int]:
    """Shares f(1), ..., f(n) of one field element (random polynomial, degree t − 1)."""
    coeffs = [secret] + [rnd.randrange(p) for _ in range(t - 1)]
    return [
        sum(a * pow(x, j, p) for j, a in enumerate(coeffs)) % p for x in range(1, n + 1)
    ]


def shamir_combine_reference(points: list[tuple[int, int]], p: int) -> int:
    """Lagrange interpolation at 0 from (x_i, y_i) pairs, modulo the prime p."""
    secret = 0
    for i, (xi, yi) in enumerate(points):
        lam = 1
        for j, (xj, _) in enumerate(points):
            if j != i:
                lam = lam * xj * pow(xj - xi, -1, p) % p
        secret = (secret + lam * yi) % p
    return secret


def detection_z_reference(params: list, key: list, min_dim: int = 256) -> float:
    """z = (mean cosine over layers with d_ℓ ≥ min_dim) / σ₀, one layer at a time."""
    cos, inv_d = [], []
    for theta_l, tau_l in zip(params, key, strict=True):
        if theta_l.numel() >= min_dim:
            a, b = theta_l.flatten().double(), tau_l.flatten().double()
            cos.append(float(a @ b / (a.norm() * b.norm())))
            inv_d.append(1.0 / theta_l.numel())
    sigma0 = math.sqrt(sum(inv_d)) / len(cos)
    return sum(cos) / len(cos) / sigma0


def fedavg_round_reference(theta, X, y, shards, key, c, lr, wd, beta=0.9):
    """One FedAvg round with a shared watermark and fresh client optimisers (a loop)."""
    uploads = []
    for idx in shards:
        local = [p.detach().clone().requires_grad_(True) for p in theta]
        opt = torch.optim.AdamW(local, lr=lr, weight_decay=wd)
        h = X[idx]
        for j in range(0, len(local), 2):  # the MLP: affine layers, ReLU between them
            h = h @ local[j] + local[j + 1]
            if j < len(local) - 2:
                h = torch.relu(h)
        loss = torch.nn.functional.cross_entropy(h, y[idx])
        opt.zero_grad()
        loss.backward()
        opt.step()
        with torch.no_grad():
            norms = [float((q - p).norm()) for q, p in zip(local, theta, strict=True)]
            gbar = (1 - beta) * sum(norms) / len(norms)  # the EMA starts at 0
            uploads.append(
                [
                    q + c * gbar * n * tau
                    for q, n, tau in zip(local, norms, key, strict=True)
                ]
            )
    weights = [len(idx) for idx in shards]
    return [
        sum(w * u[i] for w, u in zip(weights, uploads, strict=True)) / sum(weights)
        for i in range(len(theta))
    ]


# %% [markdown]
# The kernels live in {mod}`icml26.trust.shamir`, {mod}`icml26.trust.watermark` and
# {mod}`icml26.trust.federated`. Field elements are int64 tensors; a product of two elements
# of $\mathbb F_{2^{61}-1}$ needs 122 bits, so {func}`~icml26.trust.shamir.mulmod` splits
# each factor into 31-bit halves and folds with $2^{61} \equiv 1$ — every intermediate stays
# below $2^{63}$, and sharing costs one vectorised Horner sweep per polynomial coefficient
# over all shares and coordinates. {func}`~icml26.trust.federated.fedavg` holds the $K$
# clients' parameters as one tensor per layer with a leading client axis: a round is one
# batched forward/backward pass (`(K, m, 64) @ (K, 64, 128)`, ...), one AdamW update of all
# clients ({func}`~icml26.trust.adamw.adamw_step`, the same step chapter
# {doc}`18-explaind` records), the strengths {eq}`threshold-watermark-eq-strength` and a
# weighted mean. Several independent federations (seeds, or a clean and a marked twin) train
# side by side on a further leading axis. The kernels must agree with the references on
# random cases.
#
# ```{warning}
# Every random draw in this chapter — the keys $\tau$, the Shamir coefficients — comes from
# a seeded `torch.Generator`, so that the book's numbers can be checked. A seeded generator
# (torch's CPU generator is a Mersenne Twister) is *predictable*: whoever sees enough of its
# outputs can compute the rest, including the key and every share. Never copy this pattern
# into a deployment: draw keys and coefficients from the operating system's
# cryptographically secure generator (`os.urandom`, or Python's `secrets`), as
# `watermark.random_keys(..., secure=True)` and `shamir.split(..., secure=True)` do.
# ```

# %%
Xtr, ytr, Xte, yte = federated.digits_data(0.2, seed=0, device=DEVICE)
init = watermark.init_mlp(generator=gen)
key = watermark.random_keys(init, generator=gen)  # a key for the checks below
dims = [p.numel() for p in init]
print(
    f"digits: {len(ytr)} train / {len(yte)} test images (8×8); "
    f"MLP {watermark.MLP_SIZES}"
)
print(f"layer sizes d_ℓ = {dims}, P = {sum(dims)} parameters")

# Shamir: the kernel reconstructs the reference's shares, and vice versa
rnd = random.Random(SEED)
secrets_ = [rnd.randrange(shamir.PRIME) for _ in range(32)]
ref_shares = [shamir_split_reference(s, 7, 4, shamir.PRIME, rnd) for s in secrets_]
Y_ref = torch.tensor(ref_shares, dtype=torch.int64).T  # (7 shares, 32 secrets)
assert shamir.combine(Y_ref[[0, 2, 5, 6]], [1, 3, 6, 7]).tolist() == secrets_
Y_ker = shamir.split(torch.tensor(secrets_), 7, 4, generator=gen)
assert [
    shamir_combine_reference(
        [(x, int(Y_ker[x - 1, c])) for x in (2, 3, 4, 7)], shamir.PRIME
    )
    for c in range(32)
] == secrets_
# the deployment path: coefficients from the operating system's secure generator
Y_sec = shamir.split(torch.tensor(secrets_), 7, 4, secure=True)
assert shamir.combine(Y_sec[[1, 3, 4, 6]], [2, 4, 5, 7]).tolist() == secrets_

# detection statistic: kernel vs the layer loop
trial = [p + 0.3 * k for p, k in zip(init, key, strict=True)]
icml26.checks.agree(
    "detection z",
    watermark.detection_z(trial, key, min_dim=MIN_DIM),
    detection_z_reference(trial, key, MIN_DIM),
    atol=1e-5,
)

# one FedAvg round: batched clients vs a client loop with torch.optim.AdamW (float64)
X64, y64, init64 = Xtr.double().cpu(), ytr.cpu(), [p.double() for p in init]
key64 = [k.double().cpu() for k in key]
shards16 = federated.iid_partition(len(ytr), 16, generator=gen)
fed_args = {"rounds": 1, "lr": LR, "weight_decay": WD}
got = federated.fedavg(
    X64, y64, shards16, None, init64, strength=STRENGTH, key=key64, **fed_args
).params
want = fedavg_round_reference(init64, X64, y64, list(shards16), key64, STRENGTH, LR, WD)
for i, (a, b) in enumerate(zip(got, want, strict=True)):
    icml26.checks.agree(f"FedAvg round, layer {i}", a, b, atol=1e-12)
# two federations side by side (a clean and a marked twin) = two separate runs
fed_args["rounds"] = 3
both = federated.fedavg(
    X64, y64, shards16.expand(2, -1, -1), None, init64,
    strength=[0.0, STRENGTH], key=key64, **fed_args,
).params  # fmt: skip
for j, c in enumerate((0.0, STRENGTH)):
    alone = federated.fedavg(
        X64, y64, shards16, None, init64, strength=c, key=key64, **fed_args
    ).params
    for i, (a, b) in enumerate(zip(both, alone, strict=True)):
        icml26.checks.agree(f"federation {j}, layer {i}", a[j], b, atol=1e-12)
print("Shamir, detection z and FedAvg: kernels = readable references")

# %% [markdown]
# ## Experiments
#
# ### 17.1 · Any $t$ shares reconstruct the key
#
# *Claim* ({prf:ref}`threshold-watermark-thm-shamir` (i)): every coalition of $t$ clients
# recovers the encoded key $\tilde\tau$ exactly. We share a whole key (all $P$
# coordinates, fixed point with $f = 20$ bits) among $K = 6$ clients with $t = 3$ and try
# all $\binom{6}{3} = 20$ coalitions; then the 640-entry last weight matrix among
# $K = 128$ clients with $t = 32$, and 50 random coalitions. The control is the bug the
# int64 kernel is built to avoid: Lagrange weights times shares multiplied as plain int64
# products, which overflow (a product of two elements of $\mathbb F_{2^{61}-1}$ needs 122
# bits) and wrap around silently. Dropping one member ($t - 1$ shares) must give garbage.

# %%
tau_enc = shamir.encode(watermark.flatten(key).cpu(), FRAC_BITS)
shares_small = shamir.split(tau_enc, SMALL_K, SMALL_T, generator=gen)


def naive_combine(shares: torch.Tensor, xs: list[int]) -> torch.Tensor:
    """The broken variant: Σ λ_i y_i with plain int64 products (they overflow)."""
    lam = shamir.lagrange_at_zero(xs).view(-1, *([1] * (shares.ndim - 1)))
    return (lam * shares % shamir.PRIME).sum(0) % shamir.PRIME


fails_small, fails_naive = 0, 0
for T in itertools.combinations(range(SMALL_K), SMALL_T):
    xs = [i + 1 for i in T]
    fails_small += not torch.equal(shamir.combine(shares_small[list(T)], xs), tau_enc)
    fails_naive += not torch.equal(naive_combine(shares_small[list(T)], xs), tau_enc)
w3_enc = shamir.encode(key[4].flatten().cpu(), FRAC_BITS)  # the 64 × 10 output weights
shares_big = shamir.split(w3_enc, BIG_K, BIG_T, generator=gen)
fails_big, below_hits = 0, 0
for _ in range(BIG_SUBSETS):
    T = sorted(rng.choice(BIG_K, BIG_T, replace=False).tolist())
    xs = [i + 1 for i in T]
    fails_big += not torch.equal(shamir.combine(shares_big[T], xs), w3_enc)
    fails_naive += not torch.equal(naive_combine(shares_big[T], xs), w3_enc)
    U = T[:-1]  # the same coalition without its last member: t − 1 shares
    recovered = shamir.combine(shares_big[U], [i + 1 for i in U])
    below_hits += int((recovered == w3_enc).sum())
assert below_hits <= 2, "t − 1 shares must not reconstruct the key"
n_subsets = math.comb(SMALL_K, SMALL_T) + BIG_SUBSETS
print(
    f"{n_subsets} coalitions of size t tried; with t − 1 shares, {below_hits} of "
    f"{BIG_SUBSETS * w3_enc.numel()} coordinates came out right "
    f"(chance: {1 / shamir.PRIME:.1e} each)"
)

# %% tags=["claim"]
# fails if: a modular product overflows (plain int64 products: the control) or a
# Lagrange weight is wrong
icml26.claim(
    "17.1",
    "t-coalitions that fail to reconstruct τ̃ exactly",
    fails_small + fails_big,
    at_most=0,
    kind="theorem",
    control=fails_naive,
    control_label="int64 products",
)

# %% [markdown]
# ### 17.2 · $t - 1$ shares reveal nothing
#
# *Claim* ({prf:ref}`threshold-watermark-thm-shamir` (ii)): over $\mathbb F_{13}$ with $t = 3$, for **every**
# pair of clients $U \subset \{1, \dots, 12\}$, every pair of share values and every candidate
# secret there is exactly one consistent polynomial. We enumerate all $13^3$ polynomials
# $(s, a_1, a_2)$ with the field kernel and count. The control is the composite modulus $12$
# (the released code's $2^{53} - 1$ is composite too), counted the same way over its points
# $1, 2$; a second broken variant draws the coefficients from $\{0, \dots, 3\}$ only (the
# code draws them from $[0, 2^8)$ in a ring of size $\approx 2^{53}$).


# %%
def consistency_counts(
    p: int, pts: tuple[int, int], coef_high: int, field: bool
) -> np.ndarray:
    """counts[s, y1, y2]: polynomials s + a1 x + a2 x² with f(pts) = (y1, y2)."""
    s, a1, a2 = (
        g.flatten()
        for g in torch.meshgrid(
            torch.arange(p),
            torch.arange(coef_high),
            torch.arange(coef_high),
            indexing="ij",
        )
    )
    ys = []
    for x in pts:
        if field:  # the kernel's modular arithmetic (prime p)
            xs = torch.full_like(s, x)
            f = shamir.addmod(
                s,
                shamir.addmod(
                    shamir.mulmod(a1, xs, p),
                    shamir.mulmod(a2, shamir.mulmod(xs, xs, p), p),
                    p,
                ),
                p,
            )
        else:  # plain integers modulo a composite number
            f = (s + a1 * x + a2 * x * x) % p
        ys.append(f.numpy())
    counts = np.zeros((p, p, p), dtype=np.int64)
    np.add.at(counts, (s.numpy(), ys[0], ys[1]), 1)
    return counts


P_S = SECRECY_P
secrecy_violations = sum(
    int((consistency_counts(P_S, U, P_S, True) != 1).sum())
    for U in itertools.combinations(range(1, P_S), SECRECY_T - 1)
)
composite = consistency_counts(12, (1, 2), 12, False)
restricted = consistency_counts(P_S, (1, 2), 4, True)
# leak of the restricted scheme: total variation between share laws of secrets 0 and 1
tv = (
    0.5
    * np.abs(
        restricted[0] / restricted[0].sum() - restricted[1] / restricted[1].sum()
    ).sum()
)
assert (composite != 1).any() and tv > 0.1
print(
    f"F_{P_S}: {math.comb(P_S - 1, SECRECY_T - 1)} client pairs × {P_S**3} polynomials "
    f"enumerated; Z_12: {int((composite != 1).sum())} of {12**3} cells ≠ 1; "
    f"coefficients in {{0..3}}: TV(shares | s=0, shares | s=1) = {tv:.2f}"
)

# %% tags=["claim"]
# fails if: the modulus is not prime (Z_12: the control) or the coefficients are not
# uniform (the released code's two bugs)
icml26.claim(
    "17.2",
    "(pair, shares, secret) cells not consistent with exactly 1 poly",
    secrecy_violations,
    at_most=0,
    kind="theorem",
    control=int((composite != 1).sum()),
    control_label="Z_12",
)

# %% [markdown]
# Over $\mathbb Z_{12}$ the evaluation matrix of the points $1, 2$ has determinant $2$, a zero
# divisor: some share pairs are consistent with several polynomials per secret, others with
# none, so the shares *do* restrict the secret. With coefficients from a small range the
# shares of different secrets have visibly different distributions (total variation above):
# an observer of $t - 1$ shares learns about $s$. The picture below is the intuition of
# {prf:ref}`threshold-watermark-thm-shamir`, drawn over the reals.

# %% tags=["hide-input"] mystnb={"figure": {"caption": "Shamir's threshold, drawn over the reals: $t = 3$ shares fix the quadratic and its value $f(0)$ at zero (left); through $t - 1 = 2$ shares passes one quadratic for every candidate secret (right), which is why they reveal nothing.", "name": "17-fig-shamir"}}
xs_plot = np.linspace(0, 6.3, 300)
fig, axes = plt.subplots(1, 2, figsize=(7.5, 3.2), sharey=True)
true_coef = np.array(
    [2.0, 1.5, -0.3]
)  # f(x) = 2 + 1.5 x − 0.3 x²: the secret is f(0) = 2
f_true = np.polyval(true_coef[::-1], xs_plot)
pts = np.arange(1, 7)
axes[0].plot(xs_plot, f_true, color=icml26.plotting.color(0))
axes[0].scatter(
    pts[:3],
    np.polyval(true_coef[::-1], pts[:3]),
    color=icml26.plotting.color(1),
    zorder=3,
    label="t = 3 shares held",
)
axes[0].scatter(
    pts[3:],
    np.polyval(true_coef[::-1], pts[3:]),
    color="grey",
    zorder=3,
    label="other clients' shares",
)
axes[0].scatter(
    [0], [2.0], marker="*", s=160, color="black", zorder=4, label="secret f(0)"
)
axes[0].set(
    xlabel="evaluation point x (client index)",
    ylabel="f(x)",
    title="t shares fix the polynomial",
)
axes[0].legend(fontsize=8, loc="lower left")
y1, y2 = np.polyval(true_coef[::-1], [1, 2])
for j, s_alt in enumerate([-1.0, 0.5, 2.0, 3.5, 5.0]):
    # the unique quadratic through (0, s_alt), (1, y1), (2, y2)
    c = np.linalg.solve(np.vander([0, 1, 2], 3, increasing=True), [s_alt, y1, y2])
    axes[1].plot(
        xs_plot, np.polyval(c[::-1], xs_plot), color=icml26.plotting.color(j), lw=1.3
    )
    axes[1].scatter(
        [0], [s_alt], marker="*", s=90, color=icml26.plotting.color(j), zorder=4
    )
axes[1].scatter([1, 2], [y1, y2], color=icml26.plotting.color(1), zorder=5, s=40)
axes[1].set(
    xlabel="evaluation point x (client index)",
    ylim=(-6, 9),
    title="t − 1 shares fit every secret",
)
plt.show()

# %% [markdown]
# ### Training the federations
#
# The toy federation: the bundled digits (1437 training images), IID shards for $K \in \{8,
# 32, 128\}$ and Dirichlet($\alpha = 0.5$) label splits for $K = 8$
# {cite}`hsu2019measuring`, the MLP $64 \to 128 \to 64 \to 10$ ($P = 17\,226$), $R = 150$
# rounds of one full-shard AdamW step per client (learning rate $3 \cdot 10^{-3}$, weight
# decay $0.01$), watermark strength $c = 1$ and $\beta = 0.9$ — the code's rule
# {eq}`threshold-watermark-eq-strength`. The strength was **tuned**: $c = 1$ is the smallest
# of $\{0.1, 0.3, 1, 3\}$ that gave $z \ge 7$ at every $K$ in an earlier run of this toy,
# after the released code's values ($c = 0.1$ for its trusted-server run, $0.025$ for the
# untrusted one) left the mark below $z = 4$ at $K = 8$. Every claim that depends on $c$
# says so on its line, and we also train at $c = 0.1$ to show what the untuned value gives.
#
# Each of three seeds draws its own initial model, shared key $\tau$, per-client keys and
# partitions. For every partition and seed we train a federation with the **shared** key
# $\tau$ and, from the same initial model on the same shards (except IID at $K = 128$,
# to keep the chapter within its time budget), a **clean** twin ($c = 0$); for
# $K \in \{8, 32\}$ (IID) also one with **per-client** keys $\tau^{(k)}$, the baseline the
# paper improves on. On the first seed at $K = 8$ we add the untuned $c = 0.1$ and a
# harmful $c = 30$. The clean twin is the reference for accuracy, and — because it never
# saw any key — its score against a key is a draw from the null of
# {prf:ref}`threshold-watermark-prop-null` that the marked twin shares up to the mark.


# %%
setups = {}
for s in SEEDS:
    g = icml26.stats.stream(s, 1)  # one stream per seed for its federations' draws
    init_s = watermark.init_mlp(generator=g)
    setups[s] = {
        "init": init_s,
        "key": watermark.random_keys(init_s, generator=g),  # the shared key τ
        "gen": g,
        "rng": np.random.default_rng([SEED, s]),
    }
client_keys = {
    (K, s): watermark.random_keys(setups[s]["init"], (K,), generator=setups[s]["gen"])
    for K in K_PER_CLIENT
    for s in SEEDS
}
shards, masks = {}, {}
for K in K_LIST:
    for s in SEEDS:
        shards["iid", K, s] = federated.iid_partition(
            len(ytr), K, generator=setups[s]["gen"]
        )
        masks["iid", K, s] = torch.ones(shards["iid", K, s].shape)
for K in K_NONIID:
    parts = {
        s: federated.dirichlet_partition(ytr, K, ALPHA, setups[s]["rng"], min_size=5)
        for s in SEEDS
    }
    width = max(len(p) for s in SEEDS for p in parts[s])  # a common width to stack
    for s in SEEDS:
        shards["non-iid", K, s], masks["non-iid", K, s] = federated.pad_shards(
            parts[s], width
        )


def stack(models: list) -> list:
    """Models (lists of layers) stacked on a leading axis, layer by layer."""
    return [torch.stack(layers) for layers in zip(*models, strict=True)]


def summarise(params, traj, s: int, keys=None) -> dict:
    """Accuracy and detection scores of a trained model against its seed's shared key"""
    tau = setups[s]["key"]
    out = {
        "params": params,
        "acc": float(watermark.accuracy(params, Xte, yte)),
        "z": float(watermark.detection_z(params, tau, min_dim=MIN_DIM)),
        "z_sign": float(watermark.sign_z(params, tau)),
        "z_traj": watermark.detection_z(traj, tau, min_dim=MIN_DIM).cpu().numpy(),
        "z_sign_traj": watermark.sign_z(traj, tau).cpu().numpy(),
    }
    if keys is not None:  # per-client keys: each client's score against its own key
        out["z_own"] = (
            watermark.detection_z(params, keys, min_dim=MIN_DIM).cpu().numpy()
        )
        out["z_own_sign"] = watermark.sign_z(params, keys).cpu().numpy()
        own_traj = watermark.sign_z([t.unsqueeze(1) for t in traj], keys)
        out["z_own_traj"] = own_traj.mean(1).cpu().numpy()
    return out


def train(part: str, K: int, jobs: list, per_client: bool = False) -> None:
    """Train the federations `jobs` = [(seed, name, c), ...] side by side, in chunks of
    at most 384 clients, and keep each one's summary in `runs`."""
    step = max(1, 384 // K)
    for lo in range(0, len(jobs), step):
        chunk = jobs[lo : lo + step]
        keys = [
            client_keys[K, s] if per_client else setups[s]["key"] for s, *_ in chunk
        ]
        res = federated.fedavg(
            Xtr,
            ytr,
            torch.stack([shards[part, K, s] for s, *_ in chunk]),
            torch.stack([masks[part, K, s] for s, *_ in chunk]),
            stack([setups[s]["init"] for s, *_ in chunk]),
            rounds=ROUNDS,
            lr=LR,
            weight_decay=WD,
            strength=[c for *_, c in chunk],
            key=stack(keys),
            beta=BETA,
            record_every=5,
        )
        for f, (s, name, _) in enumerate(chunk):
            params = [p[f] for p in res.params]
            traj = [t[:, f] for t in res.trajectory]
            keys_f = client_keys[K, s] if per_client else None
            runs[part, K, s, name] = summarise(params, traj, s, keys_f)


t0 = time.process_time()
runs = {}
for K in icml26.progress(K_LIST, desc="IID federations"):
    modes = [("clean", 0.0)] * (K in K_CLEAN) + [("shared", STRENGTH)]
    jobs = [(s, m, c) for s in SEEDS for m, c in modes]
    if K == CONTROL_K:  # the released code's strength and a harmful one, first seed
        jobs += [(SEEDS[0], "c = 0.1", C_RELEASED), (SEEDS[0], "c = 30", C_HARMFUL)]
    train("iid", K, jobs)
    if K in K_PER_CLIENT:
        train("iid", K, [(s, "per-client", STRENGTH) for s in SEEDS], per_client=True)
for K in icml26.progress(K_NONIID, desc="non-IID federations"):
    jobs = [(s, m, c) for s in SEEDS for m, c in (("clean", 0.0), ("shared", STRENGTH))]
    train("non-iid", K, jobs)
train_cpu = time.process_time() - t0


def over_seeds(part: str, K: int, mode: str, field: str) -> np.ndarray:
    return np.array([runs[part, K, s, mode][field] for s in SEEDS])


print(f"mean over {len(SEEDS)} seeds:")
for part, ks in (("iid", K_LIST), ("non-iid", K_NONIID)):
    for K in ks:
        acc_s = 100 * over_seeds(part, K, "shared", "acc").mean()
        z_s = over_seeds(part, K, "shared", "z").mean()
        text = f"{part:7s} K = {K:3d}: accuracy shared {acc_s:.1f} %"
        if (part, K, SEEDS[0], "clean") in runs:
            acc_c = 100 * over_seeds(part, K, "clean", "acc").mean()
            z_c = over_seeds(part, K, "clean", "z").mean()
            text += f", clean {acc_c:.1f} %; z shared {z_s:4.1f}, clean {z_c:4.1f}"
        else:
            text += f" (no clean twin); z shared {z_s:4.1f}"
        print(text)

# %% tags=["nbval-ignore-output"]
print(f"{len(runs)} federations trained in {train_cpu:.1f} CPU-seconds")

# %% [markdown]
# ### 17.3 · A coalition verifies from its shares alone
#
# *Claim* ({prf:ref}`threshold-watermark-lem-verify`): $t$ clients holding shares of
# $\tilde\tau$ compute the suspect model's per-layer inner products with the key from one
# scalar each, combine them with Lagrange weights, and obtain **the same integers** as the
# clear-text $\langle\tilde\theta_\ell, \tilde\tau_\ell\rangle$; the resulting $z$ matches
# the floating-point $z$ up to the fixed-point rounding ($\lvert\Delta z\rvert < 10^{-3}$).
# We share the first seed's key among $K = 8$ clients with $t = 4$ and verify its shared-key
# model ($K = 32$, IID) and the clean twin. The control decodes the combined integer with
# $f$ instead of $2f$ fractional bits — forgetting that a product of two fixed-point numbers
# carries the fractional bits of both.

# %%
S0 = SEEDS[0]
tau0 = setups[S0]["key"]
tau0_enc = shamir.encode(watermark.flatten(tau0).cpu(), FRAC_BITS)
shares_v = shamir.split(tau0_enc, VERIFY_K, VERIFY_T, generator=gen)
coalition = sorted(rng.choice(VERIFY_K, VERIFY_T, replace=False).tolist())
bounds = np.cumsum([0, *dims])
big = [i for i, d in enumerate(dims) if d >= MIN_DIM]
sigma0 = watermark.null_sigma([dims[i] for i in big])


def coalition_z(params, members, frac_out=2 * FRAC_BITS):
    """z from the members' share statistics (one scalar per member and layer), the
    number of layers whose combined integer differs from the clear inner product,
    and the per-layer cosines."""
    theta_enc = shamir.encode(watermark.flatten(params).cpu(), FRAC_BITS)
    cos, mismatches = [], 0
    for i in big:
        sl = slice(bounds[i], bounds[i + 1])
        r = shamir.inner_products(theta_enc[sl], shares_v[members, sl])  # one each
        combined = shamir.combine(r, [j + 1 for j in members])
        clear = shamir.inner_products(theta_enc[sl], tau0_enc[sl])
        mismatches += int(combined != clear)
        norm = float(params[i].double().norm())
        cos.append(float(shamir.decode(combined, frac_out)) / norm)
    return float(np.mean(cos)) / sigma0, mismatches, cos


model_wm = runs["iid", ATTACK_K, S0, "shared"]
model_clean = runs["iid", ATTACK_K, S0, "clean"]
dz, dz_bug, bad_ints, valid_below = [], [], 0, 0
for name, m in (("watermarked", model_wm), ("clean", model_clean)):
    z_share, mism, _ = coalition_z(m["params"], coalition)
    dz.append(abs(z_share - m["z"]))
    dz_bug.append(abs(coalition_z(m["params"], coalition, FRAC_BITS)[0] - m["z"]))
    bad_ints += mism
    for j in range(VERIFY_T):  # every coalition of t − 1 of its members
        below = coalition[:j] + coalition[j + 1 :]
        valid_below += sum(abs(c) <= 1 for c in coalition_z(m["params"], below)[2])
    print(f"{name:11s}: z from shares {z_share:6.2f}, floating point {m['z']:6.2f}")
assert bad_ints == 0, "combined share statistics must equal the clear inner products"
print(
    f"coalition {[j + 1 for j in coalition]}; its {VERIFY_T} sub-coalitions of t − 1 "
    f"members: {valid_below} of {2 * VERIFY_T * len(big)} layer cosines in [−1, 1]"
)

# %% tags=["claim"]
# fails if: share statistics are not linear in the shares, or the fixed-point decoding
# is wrong (f instead of 2f fractional bits: the control)
icml26.claim(
    "17.3",
    "max |z from shares − z in floating point| (exact integers)",
    max(dz),
    at_most=1e-3,
    kind="theorem",
    digits=1,
    control=max(dz_bug),
    control_label="decoded with f bits",
)

# %% [markdown]
# ### 17.4–17.6 · The null distribution of $z$
#
# *Claim* ({prf:ref}`threshold-watermark-prop-null`): against keys independent of the
# model, $z$ has mean $0$ and standard deviation $1$, and $z \ge 4$ is a rare event
# ($\approx 3 \cdot 10^{-5}$). We test the first seed's clean $K = 32$ model against 2000
# fresh keys. The thresholds allow for sampling error only: the mean of 2000 standard
# draws has standard error $0.022$ (threshold $\pm 0.1$), their standard deviation about
# $0.016$ (threshold $[0.9, 1.1]$), and $P(\ge 3 \text{ of } 2000 \text{ keys with } z \ge 4)
# \approx 4 \cdot 10^{-5}$ (threshold $\le 2$). The same keys are scored by two broken
# variants that a reader's own implementation could contain: keys drawn as $\{0, 1\}$
# instead of $\pm 1$ (a forgotten $2b - 1$), which are not centred, and $\sigma_0 =
# 1/\sqrt P$, the null scale of *one* cosine over all $P$ parameters, mistaken for that of
# the mean of $\lvert\mathcal L\rvert$ layer cosines. (Gaussian keys would be no control:
# their normalised directions are uniform on each layer's sphere, and the cosine then has
# mean $0$ and variance $1/d_\ell$ exactly as for Rademacher keys.)

# %%
P_big = sum(dims[i] for i in big)
z_null, z_null_01, z_null_sign, z_null_all = [], [], [], []
null_gen = icml26.stats.stream(SEED, 2)  # the null keys' own stream
for _ in range(0, N_NULL_KEYS, 250):  # 250 fresh keys at a time
    null_keys = watermark.random_keys(init, (250,), generator=null_gen)
    clean = model_clean["params"]
    z_null.append(watermark.detection_z(clean, null_keys, min_dim=MIN_DIM))
    keys01 = [(k > 0).to(k.dtype) for k in null_keys]  # the {0, 1} bug
    z_null_01.append(watermark.detection_z(clean, keys01, min_dim=MIN_DIM))
    z_null_sign.append(watermark.sign_z(clean, null_keys))
    z_null_all.append(watermark.detection_z(clean, null_keys, min_dim=1))
z_null, z_null_01, z_null_sign, z_null_all = (
    torch.cat(z).cpu().numpy() for z in (z_null, z_null_01, z_null_sign, z_null_all)
)
z_null_glob = z_null * sigma0 * math.sqrt(P_big)  # the same S over σ₀ = 1/√P
print(
    f"z (d_ℓ ≥ {MIN_DIM}): mean {z_null.mean():+.3f}, sd {z_null.std():.3f}, "
    f"#(z ≥ 4) = {(z_null >= 4).sum()}"
)
print(
    f"  {{0, 1}} keys:  mean {z_null_01.mean():+.2f}, sd {z_null_01.std():.2f}; "
    f"σ₀ = 1/√P: sd {z_null_glob.std():.2f}, #(z ≥ 4) = {(z_null_glob >= 4).sum()}"
)
print(f"z_sign:          mean {z_null_sign.mean():+.3f}, sd {z_null_sign.std():.3f}")
z_all_wm = float(watermark.detection_z(model_wm["params"], tau0, min_dim=1))
print(
    f"σ₀ over all 6 layers {watermark.null_sigma(dims):.4f} vs over the {len(big)} "
    f"large ones {sigma0:.4f}; all-layer z: null sd {z_null_all.std():.3f}, "
    f"watermarked model {z_all_wm:.1f} (vs {model_wm['z']:.1f})"
)

# %% tags=["claim"]
# fails if: the keys are not centred ({0, 1} instead of ±1: the control) or correlate
# with θ
icml26.claim(
    "17.4",
    f"|mean z| of a clean model over {N_NULL_KEYS} random keys",
    abs(z_null.mean()),
    at_most=0.1,
    kind="theorem",
    digits=1,
    control=abs(z_null_01.mean()),
    control_label="{0, 1} keys",
)

# %% tags=["claim"]
# fails if: σ₀ is mis-derived, e.g. 1/√P, the scale of one global cosine (the control)
icml26.claim(
    "17.5",
    f"sd of z of a clean model over {N_NULL_KEYS} random keys",
    z_null.std(),
    between=(0.9, 1.1),
    kind="theorem",
    control=z_null_glob.std(),
    control_label="σ₀ = 1/√P",
)

# %% tags=["claim"]
# fails if: σ₀ is too small (1/√P: the control) or the null has heavy tails, so that
# z ≥ 4 is not rare
icml26.claim(
    "17.6",
    f"random keys with z ≥ 4 of {N_NULL_KEYS} "
    f"(expected {N_NULL_KEYS * stats.norm.sf(4):.2f})",
    int((z_null >= 4).sum()),
    at_most=2,
    kind="theorem",
    control=int((z_null_glob >= 4).sum()),
    control_label="σ₀ = 1/√P",
)

# %% tags=["hide-input"] mystnb={"figure": {"caption": "Null calibration (claims 17.4–17.6): $z$ of a clean model against 2000 random keys follows $\\mathcal N(0, 1)$ with the analytic $\\sigma_0$; the watermarked model scores far beyond the threshold $z = 4$.", "name": "17-fig-null"}}
fig, ax = plt.subplots(figsize=(6.4, 3.6))
grid = np.linspace(-4.5, 4.5, 300)
ax.hist(
    z_null,
    bins=50,
    density=True,
    alpha=0.55,
    color=icml26.plotting.color(0),
    label=f"clean model, {N_NULL_KEYS} random keys",
)
ax.plot(grid, stats.norm.pdf(grid), color="black", lw=1.5, label="N(0, 1)")
ax.axvline(4, ls="--", color=icml26.plotting.color(1), label="threshold z = 4")
ax.annotate(
    f"watermarked model\nz = {model_wm['z']:.1f} →",
    xy=(3.85, 0.25),
    ha="right",
    fontsize=9,
    color=icml26.plotting.color(2),
)
ax.set(
    xlabel="detection score z (layers with d_ℓ ≥ 256)",
    ylabel="density",
    xlim=(-4.6, 4.6),
    title="The analytic σ₀ calibrates the z-test: the null is N(0, 1)",
)
ax.legend(loc="upper left", fontsize=8.5)
plt.show()

# %% [markdown]
# ### 17.7 · The analytic $\sigma_0$ explains the released constants
#
# The same proposition explains the constants of the released code. We list the 62
# parameter tensors of the CIFAR ResNet-18 (a $3\times3$ stem convolution, four stages of
# two basic blocks with 1×1 shortcut convolutions in stages 2–4, BatchNorm weight and bias
# vectors, a linear classifier) and evaluate {eq}`threshold-watermark-eq-sigma0` over all of
# them, as the code's statistic does.
#
# *Claim:* the analytic $\sigma_0$ reproduces the code's empirically calibrated constants
# $0.01$ (CIFAR-10) and $0.0088$ (CIFAR-100) to within $5\,\%$ — the rounding interval of a
# one-significant-digit constant $0.01$. The control is the other natural guess for such a
# constant, $1/\sqrt P$, the null scale of a single cosine over all $P$ parameters.


# %%
def resnet18_dims(classes: int) -> list[int]:
    """Entry counts of the 62 parameter tensors of the CIFAR ResNet-18."""
    d = [3 * 9 * 64, 64, 64]  # stem conv, BatchNorm weight and bias
    c_in = 64
    for c_out, stride in ((64, 1), (128, 2), (256, 2), (512, 2)):
        for block in range(2):
            cin = c_in if block == 0 else c_out
            d += [cin * 9 * c_out, c_out, c_out, c_out * 9 * c_out, c_out, c_out]
            if block == 0 and (stride != 1 or cin != c_out):
                d += [cin * c_out, c_out, c_out]  # 1×1 shortcut and its BatchNorm
        c_in = c_out
    return [*d, 512 * classes, classes]


released = {10: 0.01, 100: 0.0088}
rel_dev, rel_dev_glob = [], []
for classes, const in released.items():
    dd = resnet18_dims(classes)
    s0 = watermark.null_sigma(dd)
    rel_dev.append(abs(s0 / const - 1))
    rel_dev_glob.append(abs(1 / math.sqrt(sum(dd)) / const - 1))
    print(
        f"ResNet-18, {classes:3d} classes: {len(dd)} tensors, Σ 1/d_ℓ = "
        f"{sum(1 / d for d in dd):.3f}, σ₀ = {s0:.5f} (released {const}); "
        f"1/√P = {1 / math.sqrt(sum(dd)):.1e}"
    )

# %% tags=["claim"]
# fails if: the released σ₀ were not the null sd of the layer-mean cosine (e.g. the
# scale 1/√P of one global cosine: the control, or a constant tuned by hand)
icml26.claim(
    "17.7",
    "max relative gap, analytic σ₀ vs the code's CIFAR constants",
    max(rel_dev),
    at_most=0.05,
    kind="reproduction",
    single_seed="no randomness: σ₀ is a function of the tensor sizes",
    control=max(rel_dev_glob),
    control_label="1/√P",
)

# %% [markdown]
# ### 17.8–17.10 · Detectable up to $K = 128$ at no accuracy cost
#
# *Claim* (the paper's abstract): the shared watermark is detected ($z \ge 4$) for every $K$
# up to 128, with IID and non-IID partitions, and test accuracy stays within 2 points of
# unwatermarked FedAvg trained from the same initialisation on the same shards (the clean
# twins: IID at $K = 8, 32$ and non-IID at $K = 8$; at $K = 128$ the clean twin is trained
# only in the paper-scale run, to keep this chapter within its time budget). Each claim is
# decided on its worst seed. The controls: per-client keys, the baseline the paper
# improves on (17.8, each client's score against its own key); the clean twin's score
# against $\tau$ (17.9, the same federation without the mark); and a mark thirty times too
# strong, $c = 30$ (17.10, first seed, $K = 8$).

# %% tags=["hide-input"] mystnb={"figure": {"caption": "The detection score over the federated rounds for $K = 8, 32, 128$ IID clients (first seed): the shared mark rises above $z = 4$ within a few dozen rounds; the clients' own marks under per-client keys (left, dashed, mean over clients) and the clean models (right, dotted) stay near zero.", "name": "17-fig-rounds"}}
fig, axes = plt.subplots(1, 2, figsize=(7.5, 3.6), sharey=True)
rounds_axis = np.arange(0, ROUNDS + 1, 5)
for j, K in enumerate(K_LIST):
    shared = runs["iid", K, S0, "shared"]
    col = icml26.plotting.color(j)
    axes[0].plot(rounds_axis, shared["z_sign_traj"], color=col, label=f"K = {K}")
    if K in K_PER_CLIENT:
        own = runs["iid", K, S0, "per-client"]["z_own_traj"]
        axes[0].plot(rounds_axis, own, color=col, ls="--")
    axes[1].plot(rounds_axis, shared["z_traj"], color=col, label=f"K = {K}")
    if K in K_CLEAN:
        clean = runs["iid", K, S0, "clean"]["z_traj"]
        axes[1].plot(rounds_axis, clean, color=col, ls=":")
for ax in axes:
    ax.axhline(4, color="black", lw=1, ls="--")
    ax.set_xlabel("federated round r")
axes[0].set(ylabel="detection score", title="z_sign: shared key (—), own keys (- -)")
axes[1].set(title="z, d_ℓ ≥ 256: shared (—), clean (⋯)")
fig.suptitle("The shared mark builds up over the rounds; per-client marks stay near 0")
axes[0].legend(fontsize=8.5)
plt.show()

# %%
partitions = [("iid", K) for K in K_LIST] + [("non-iid", K) for K in K_NONIID]
twins = [("iid", K) for K in K_CLEAN] + [("non-iid", K) for K in K_NONIID]
z_iid = np.array([over_seeds("iid", K, "shared", "z") for K in K_LIST]).min(0)
z_own = np.array(
    [
        [runs["iid", K, s, "per-client"]["z_own"].mean() for s in SEEDS]
        for K in K_PER_CLIENT
    ]
).max(0)  # the per-client baseline at its best K
z_noniid = np.array([over_seeds("non-iid", K, "shared", "z") for K in K_NONIID]).min(0)
z_noniid_clean = np.array(
    [over_seeds("non-iid", K, "clean", "z") for K in K_NONIID]
).min(0)
acc_loss = np.array(
    [over_seeds(*pk, "clean", "acc") - over_seeds(*pk, "shared", "acc") for pk in twins]
)  # (partition, seed)
twin = runs["iid", CONTROL_K, S0, "clean"]["acc"]
loss_harmful = twin - runs["iid", CONTROL_K, S0, "c = 30"]["acc"]
for part, K in partitions:
    zs = ", ".join(f"{z:.1f}" for z in over_seeds(part, K, "shared", "z"))
    print(f"z of the shared mark, {part:7s} K = {K:3d}, by seed: {zs}")
print(
    "accuracy clean − watermarked (points), worst seed, "
    + ", ".join(
        f"{p} K = {K}: {100 * a:.1f}"
        for (p, K), a in zip(twins, acc_loss.max(1), strict=True)
    )
)
untuned = runs["iid", CONTROL_K, S0, "c = 0.1"]
print(
    f"K = {CONTROL_K}, first seed: the released code's c = {C_RELEASED} gives "
    f"z = {untuned['z']:.1f}; c = {C_HARMFUL:.0f} costs "
    f"{100 * loss_harmful:.0f} points of accuracy"
)
TUNED_C = "c = 1, the smallest of {0.1, 0.3, 1, 3} with z ≥ 7 in an earlier run"

# %% tags=["claim"]
# fails if: FedAvg averages the mark away or training undoes it (z < 4 at some K ≤ 128),
# as it does for per-client keys (the control)
icml26.claim(
    "17.8",
    f"min z of the shared mark over K = {', '.join(map(str, K_LIST))} (IID)",
    seeds=z_iid,
    at_least=4,
    control=z_own,
    control_label="own keys",
    tuned=TUNED_C,
)

# %% tags=["claim"]
# fails if: heterogeneous shards (Dirichlet α = 0.5) make the embedding strengths
# cancel, leaving the model no closer to τ than its clean twin (the control)
icml26.claim(
    "17.9",
    f"min z of the shared mark, non-IID, K = {', '.join(map(str, K_NONIID))}",
    seeds=z_noniid,
    at_least=4,
    control=z_noniid_clean,
    control_label="clean twin",
    tuned=TUNED_C,
)

# %% tags=["claim"]
# fails if: the mark is strong enough to hurt the task (as c = 30 does: the control)
icml26.claim(
    "17.10",
    "max accuracy loss vs clean FedAvg, " + ", ".join(f"{p} K = {K}" for p, K in twins),
    seeds=acc_loss.max(0),
    at_most=0.02,
    control=loss_harmful,
    control_label="c = 30",
    tuned=TUNED_C,
    digits=2,
)

# %% [markdown]
# The absolute $z$ of the shared mark *grows* with $K$: with smaller shards each client's
# local step is larger, and the strength {eq}`threshold-watermark-eq-strength` is quadratic
# in the update norm. At the released code's $c = 0.1$ the mark stays below $z = 4$ at
# $K = 8$ on this model (printed above): with that untuned value 17.8 would not be
# reproduced. The
# strength is a free parameter of the method, and what value reaches $z \ge 4$ depends on
# the model and the number of rounds; the paper reports the ResNet-18 values.
#
# ### 17.11–17.12 · Per-client marks dilute like $1/K$
#
# *Claim* ({prf:ref}`threshold-watermark-prop-dilution`, the paper's motivation): with one
# key per client at the same strength, each client's own mark is $K$ times weaker than the
# shared mark. Because the shared $z$ itself changes with $K$ (above), a log-log slope of
# the per-client $z$ against $K$ is confounded; we test the ratio the proposition predicts,
# $r_K \in [K/2, 2K]$, of the shared mark's signal to the mean own-key signal.
#
# A client's score against its own key is signal plus a null draw of standard deviation 1,
# and at $K = 32$ the signal is a fraction of that. So we measure each mark against the
# clean twin, trained from the same initial model on the same shards, which never saw any
# key: its score against a key is the null draw the key would give without the mark, and
# the difference
#
# $$
# \Delta z(\tau') = z_{\mathrm{sign}}(\theta_{\mathrm{marked}}; \tau') -
# z_{\mathrm{sign}}(\theta_{\mathrm{clean}}; \tau')
# $$
#
# keeps the signal and cancels most of the draw. $r_K = \Delta z(\tau) / \operatorname{mean}_k
# \Delta z(\tau^{(k)})$, the shared federation scored against $\tau$ and the per-client one
# against each client's own key. The control gives every client the same key: the
# per-client federation is then the shared one, and nothing dilutes ($r_K = 1$).
# The claim counts, on each seed, the $K$ whose ratio falls outside $[K/2, 2K]$; the
# ratios themselves are printed above it.
#
# *Claim* (17.12, the paper's observation that per-client marks fall below $z = 4$ from
# $K = 16$ on): no client detects its own mark, i.e. no client's $z$ against its own key
# reaches 4. The claim is therefore about the *largest* of $K$ scores: without any mark it
# would reach 4 with probability $1 - (1 - \bar\Phi(4))^{K} \approx 10^{-3}$ at $K = 32$
# (printed below), and the diluted signal raises that only slightly. The control is the
# shared key, which every client detects.

# %%
ratio, ratio_unpaired, signal = {}, {}, {}
for K in K_PER_CLIENT:
    for s in SEEDS:
        clean, shared = runs["iid", K, s, "clean"], runs["iid", K, s, "shared"]
        per = runs["iid", K, s, "per-client"]
        own_null = watermark.sign_z(clean["params"], client_keys[K, s]).cpu().numpy()
        dz_own = (per["z_own_sign"] - own_null).mean()
        dz_shared = shared["z_sign"] - clean["z_sign"]
        ratio[K, s] = dz_shared / dz_own
        signal[K, s] = (dz_shared, dz_own)
        ratio_unpaired[K, s] = shared["z_sign"] / per["z_own_sign"].mean()
    print(
        f"K = {K:3d}: r_K / K by seed "
        + ", ".join(f"{ratio[K, s] / K:.2f}" for s in SEEDS)
        + "  (without the clean twin: "
        + ", ".join(f"{ratio_unpaired[K, s] / K:.1f}" for s in SEEDS)
        + ")"
    )
shared_signal = {K: np.mean([signal[K, s][0] for s in SEEDS]) for K in K_PER_CLIENT}
print(
    "shared signal Δz(τ), mean over seeds: "
    + ", ".join(f"{v:.0f} at K = {K}" for K, v in shared_signal.items())
)
# per seed: how many K have r_K outside [K/2, 2K], i.e. |log2(r_K / K)| > 1
outside = [
    sum(abs(math.log2(ratio[K, s] / K)) > 1 for K in K_PER_CLIENT) for s in SEEDS
]
# identical keys make the per-client federation the shared one: r_K = 1 at every K
outside_same = sum(abs(math.log2(1 / K)) > 1 for K in K_PER_CLIENT)
K_PC = K_PER_CLIENT[-1]
detected_own = [
    int((runs["iid", K_PC, s, "per-client"]["z_own"] >= 4).sum()) for s in SEEDS
]
detected_shared = [K_PC * int(runs["iid", K_PC, s, "shared"]["z"] >= 4) for s in SEEDS]
p_null_max = -math.expm1(K_PC * math.log1p(-stats.norm.sf(4.0)))
print(
    f"K = {K_PC}: largest own-key z by seed "
    + ", ".join(
        f"{runs['iid', K_PC, s, 'per-client']['z_own'].max():.1f}" for s in SEEDS
    )
    + f"; without any mark, P(largest of {K_PC} ≥ 4) = {p_null_max:.1e}"
)

# %% tags=["claim"]
# fails if: per-client marks do not dilute (identical keys: the control, ratio 1), or
# dilute like 1/√K
icml26.claim(
    "17.11",
    f"K in {{{', '.join(map(str, K_PER_CLIENT))}}} with r_K outside [K/2, 2K]",
    seeds=outside,
    at_most=0,
    control=outside_same,
    control_label="identical keys",
)

# %% tags=["claim"]
# fails if: a per-client mark survives averaging over K clients, as the shared mark does
# (the control)
icml26.claim(
    "17.12",
    f"clients (of {K_PC}) whose z against their own key reaches 4",
    seeds=detected_own,
    at_most=0,
    control=detected_shared,
    control_label="shared key",
)

# %% tags=["hide-input"] mystnb={"figure": {"caption": "Left: the signal of the shared mark and the mean signal of each client's own mark (both measured against the clean twin, mean over seeds): the own mark is the shared one divided by $K$ (claim 17.11). Right: test accuracy with and without the shared mark, IID and non-IID, mean over seeds (claim 17.10).", "name": "17-fig-dilution"}}
fig, axes = plt.subplots(1, 2, figsize=(7.5, 3.3))
Ks = np.array(K_PER_CLIENT)
sig_sh, sig_own = (
    np.array([np.mean([signal[K, s][j] for s in SEEDS]) for K in K_PER_CLIENT])
    for j in (0, 1)
)
axes[0].loglog(Ks, sig_sh, "o-", label="shared key")
axes[0].loglog(Ks, sig_own, "s--", label="own key (mean over clients)")
axes[0].loglog(Ks, sig_sh / Ks, ":", color="black", label="shared / K")
axes[0].set(
    xlabel="clients K",
    ylabel="signal Δz_sign",
    title="Per-client marks dilute like 1/K",
)
axes[0].set_xticks(Ks, [str(k) for k in Ks])
axes[0].legend(fontsize=8)
for j, (part, ks) in enumerate((("iid", K_LIST), ("non-iid", K_NONIID))):
    for mode, style in (("clean", "o:"), ("shared", "s-")):
        ks = [K for K in ks if (part, K, S0, mode) in runs]
        acc = [100 * over_seeds(part, K, mode, "acc").mean() for K in ks]
        label = f"{part}, {'clean' if mode == 'clean' else 'shared key'}"
        axes[1].plot(ks, acc, style, color=icml26.plotting.color(j), label=label)
axes[1].set_xscale("log")
axes[1].set_xticks(K_LIST, [str(k) for k in K_LIST])
axes[1].set_ylim(90, 100)
axes[1].set(
    xlabel="clients K",
    ylabel="test accuracy (%)",
    title="Accuracy: the mark costs nothing",
)
axes[1].legend(fontsize=8)
plt.show()

# %% [markdown]
# ### 17.13–17.14 · The mark survives fine-tuning on 20 % of the data
#
# *Claim* (the paper's abstract): an attacker holding the final model and 20 % of the
# training data fine-tunes it (AdamW, learning rate $10^{-3}$, 30 epochs, batch 32, the same
# weight decay); the watermark stays detectable ($z \ge 4$, 17.13) while the model stays as
# useful as before (accuracy moves by at most 2 points, 17.14). We attack the three seeds'
# shared-key models ($K = 32$, IID), each with its own random 20 %. The figure adds
# attackers with 5 % and 10 % of the data and an "adaptive" attacker with ten times the
# learning rate (our stand-in: the paper's adaptive attack is not known to us).
#
# Two projection attacks serve as controls. A participant who saw every global model can
# estimate the direction of the mark: it is added with the same sign every round, so it
# shows in the sign pattern of the accumulated update $\theta^{(R)}_\ell -
# \theta^{(0)}_\ell$; projecting the normalised sign vector $\hat\tau_\ell$ out of every
# layer, $\theta_\ell \leftarrow \theta_\ell - \langle\theta_\ell, \hat\tau_\ell\rangle
# \hat\tau_\ell$, is the *crude* projection attack (the direction whose cosine with $\tau$
# the released code tracks as its "attack cosine"). An *informed* attacker holds the clean
# twin — a model trained from the same start on the same data without the mark — and takes
# the sign of the difference instead. The informed attack is the control of 17.13 (it
# removes the mark), the crude one that of 17.14 (it destroys the model).

# %%
models_wm = [runs["iid", ATTACK_K, s, "shared"]["params"] for s in SEEDS]
wm_batch = stack(models_wm)
attack_gens = [icml26.stats.stream(s, 3) for s in SEEDS]
n_train = len(ytr)
attacks = {}
ADAPTIVE = "20% data, lr × 10"
for name, frac, lr_att in [
    *((f"{f:.0%} data", f, ATTACK_LR) for f in ATTACK_FRACS),
    (ADAPTIVE, 0.2, ADAPTIVE_LR),
]:
    subs = [
        torch.randperm(n_train, generator=g)[: int(frac * n_train)] for g in attack_gens
    ]
    subs = torch.stack(subs).to(DEVICE)
    attacks[name] = federated.finetune(
        wm_batch,
        Xtr[subs],
        ytr[subs],
        epochs=ATTACK_EPOCHS,
        lr=lr_att,
        weight_decay=WD,
        generator=attack_gens[0],
    )
curves = {}  # name: (z, accuracy), (epoch + 1, seed)
for name, tr in attacks.items():
    z_att = [
        watermark.detection_z([t[:, f] for t in tr], setups[s]["key"], min_dim=MIN_DIM)
        for f, s in enumerate(SEEDS)
    ]
    acc_att = [
        watermark.accuracy([t[:, f] for t in tr], Xte, yte) for f in range(len(SEEDS))
    ]
    curves[name] = (
        torch.stack(z_att, 1).cpu().numpy(),
        torch.stack(acc_att, 1).cpu().numpy(),
    )


def project_out_estimate(params: list, start: list) -> list:
    """Remove from every layer its component along the sign of the accumulated update"""
    out = []
    for p, p0 in zip(params, start, strict=True):
        e = torch.sign(p - p0)
        e = e / e.norm()
        out.append(p - (p * e).sum() * e)
    return out


z_proj, acc_proj, z_informed, acc_informed = [], [], [], []
for f, s in enumerate(SEEDS):
    tau_s, clean_s = setups[s]["key"], runs["iid", ATTACK_K, s, "clean"]["params"]
    for start, zs, accs in (
        (setups[s]["init"], z_proj, acc_proj),  # crude: the accumulated update
        (clean_s, z_informed, acc_informed),  # informed: the clean twin
    ):
        removed = project_out_estimate(models_wm[f], start)
        zs.append(float(watermark.detection_z(removed, tau_s, min_dim=MIN_DIM)))
        accs.append(float(watermark.accuracy(removed, Xte, yte)))
acc_before = np.array([runs["iid", ATTACK_K, s, "shared"]["acc"] for s in SEEDS])
z_before = np.array([runs["iid", ATTACK_K, s, "shared"]["z"] for s in SEEDS])


def attack_row(name, z0, z1, acc0, acc1):
    """One line of the table: mean z and accuracy over the seeds, before → after."""
    return (
        f"{name:18s}: z {np.mean(z0):4.1f} → {np.mean(z1):4.1f}, "
        f"accuracy {100 * np.mean(acc0):.0f} % → {100 * np.mean(acc1):.0f} %"
    )


print(f"mean over {len(SEEDS)} seeds:")
for name, (zc, ac) in curves.items():
    if name != ADAPTIVE:
        print(attack_row(name, zc[0], zc[-1], ac[0], ac[-1]))
for name, zs, accs in (
    ("crude projection", z_proj, acc_proj),
    ("informed projection", z_informed, acc_informed),
):
    print(attack_row(name, z_before, zs, acc_before, accs))
z_ft, acc_ft = curves["20% data"]

# %% tags=["nbval-ignore-output"]
# At ten times the learning rate the attack is chaotic: where it ends moves with
# the last bits of the arithmetic (between two CPUs, z by about half a unit), so
# this line is shown but not compared when the book is tested.
zc, ac = curves[ADAPTIVE]
print(attack_row(ADAPTIVE, zc[0], zc[-1], ac[0], ac[-1]))

# %% tags=["claim"]
# fails if: fine-tuning moves the weights far enough from τ to push z below 4, as the
# informed projection attack does (the control)
icml26.claim(
    "17.13",
    f"z after fine-tuning on 20% of the data ({ATTACK_EPOCHS} epochs)",
    seeds=z_ft[-1],
    at_least=4,
    control=z_informed,
    control_label="informed projection",
    tuned=TUNED_C,
    digits=2,
)

# %% tags=["claim"]
# fails if: the attack or the mark changes the model's function noticeably, as the
# crude projection attack does (the control)
icml26.claim(
    "17.14",
    "|accuracy change| under that fine-tuning attack",
    seeds=np.abs(acc_ft[-1] - acc_ft[0]),
    at_most=0.02,
    control=np.abs(np.array(acc_proj) - acc_before),
    control_label="crude projection",
)

# %% tags=["hide-input"] mystnb={"figure": {"caption": "The fine-tuning attack (claims 17.13–17.14), mean over three seeds: $z$ and test accuracy over the attacker's epochs, with 5, 10 and 20 % of the training data and with ten times the learning rate. The crude projection (star) lowers $z$ only by destroying the model; the informed one (plus), which knows the clean twin, removes the mark at no cost.", "name": "17-fig-finetune"}}
fig, axes = plt.subplots(1, 2, figsize=(7.5, 3.3))
for j, (name, (zc, ac)) in enumerate(curves.items()):
    epochs = np.arange(len(zc))
    col = icml26.plotting.color(j)
    axes[0].plot(epochs, zc.mean(1), color=col, label=name)
    axes[1].plot(epochs, 100 * ac.mean(1), color=col, label=name)
for zs, accs, mk, label in (
    (z_proj, acc_proj, "*", "crude projection"),
    (z_informed, acc_informed, "P", "informed projection"),
):
    style = {"marker": mk, "s": 110, "color": "black", "zorder": 4}
    axes[0].scatter([ATTACK_EPOCHS], [np.mean(zs)], label=label, **style)
    axes[1].scatter([ATTACK_EPOCHS], [100 * np.mean(accs)], **style)
axes[0].axhline(4, color="black", ls="--", lw=1)
axes[0].set(
    xlabel="attacker's fine-tuning epoch",
    ylabel="z (d_ℓ ≥ 256)",
    ylim=(0, None),
    title="Fine-tuning barely moves z",
)
axes[1].set(
    xlabel="attacker's fine-tuning epoch",
    ylabel="test accuracy (%)",
    ylim=(0, 100),
    title="…and accuracy",
)
axes[0].legend(fontsize=8)
plt.show()

# %% [markdown]
# Fine-tuning changes the weights by a small fraction of their norm, and cosines are
# scale-invariant, so weight decay does not help the attacker either. The larger learning
# rate costs $z$ a part of its value and still leaves it far above 4. The crude projection
# attack lowers $z$ much further, but the estimated direction is dominated by the learned
# update itself, and removing it destroys the model — without even pushing $z$ below 4.
# The informed attacker removes the mark completely at no cost: the difference between the
# marked model and its clean twin *is* the mark. No participant holds that twin, which needs
# every client's data; but the threshold guarantee protects the key, not the direction the
# mark leaves in the weights (exercise {ref}`threshold-watermark-ex-projection`).
#
# ## Cross-check
#
# 1. **pycryptodome** {cite}`pycryptodome` shares 16-byte secrets over $\mathrm{GF}(2^{128})$,
#    a different field, so share values are not comparable. We compare behaviour on secrets:
#    the 128-bit seed that generates a key is shared with pycryptodome and, separately, the key
#    itself with our prime-field kernel; the same coalition reconstructs both, and the key
#    regenerated from the seed equals the key decoded from our shares. $t - 1$ pycryptodome
#    shares must not return the seed.
# 2. **shamirs** (prime-field integer sharing) reconstructs our shares, and we reconstruct its.
# 3. **scipy**: $\bar\Phi(4)$ and a Kolmogorov–Smirnov test of the null $z$ of 17.4–17.6.
# 4. **FedAvg = large-batch gradient descent** for one local SGD step on equal shards, and the
#    untrusted-server additive-share embedding = the trusted one.

# %%
import shamirs
from Crypto.Protocol.SecretSharing import Shamir as PyCryptoShamir

seed_bytes = bytes(rnd.getrandbits(8) for _ in range(16))
seed_int = int.from_bytes(seed_bytes, "big")


def key_from_seed(seed: int) -> torch.Tensor:
    """A Rademacher key (the MLP's first layer, normalised) from a 128-bit seed."""
    signs = np.random.default_rng(seed).integers(0, 2, dims[0]) * 2 - 1
    return torch.tensor(signs / math.sqrt(dims[0]))


tau_seed = key_from_seed(seed_int)
py_shares = PyCryptoShamir.split(3, 5, seed_bytes)
our_shares = shamir.split(shamir.encode(tau_seed, FRAC_BITS), 5, 3, generator=gen)
T = [0, 2, 4]
seed_back = PyCryptoShamir.combine([py_shares[i] for i in T])
tau_back = shamir.decode(shamir.combine(our_shares[T], [i + 1 for i in T]), FRAC_BITS)
assert seed_back == seed_bytes
icml26.checks.agree(
    "key from pycryptodome seed vs from our shares",
    key_from_seed(int.from_bytes(seed_back, "big")),
    tau_back,
    atol=2.0**-FRAC_BITS,
)
assert PyCryptoShamir.combine([py_shares[i] for i in T[:2]]) != seed_bytes

field_secrets = torch.randint(0, shamir.PRIME, (20,), generator=gen)
ours = shamir.split(field_secrets, 9, 5, generator=gen)
for c in range(20):
    lib = shamirs.shares(int(field_secrets[c]), 9, modulus=shamir.PRIME, threshold=5)
    lib_vals = torch.tensor([s.value for s in lib[2:7]])
    assert int(shamir.combine(lib_vals, [s.index for s in lib[2:7]])) == int(
        field_secrets[c]
    )
    mine = [
        shamirs.share(i + 1, int(ours[i, c]), shamir.PRIME) for i in (0, 3, 4, 6, 8)
    ]
    assert shamirs.interpolate(mine) == int(field_secrets[c])
ks = stats.kstest(z_null, "norm")
print(
    "pycryptodome seed and prime-field key reconstructed by coalition "
    f"{[i + 1 for i in T]}: "
    "same key; shamirs agrees on 20 secrets both ways"
)
print(
    f"Φ̄(4) = {stats.norm.sf(4):.2e}; Kolmogorov–Smirnov test of the null z "
    f"against N(0,1): p = {ks.pvalue:.1f}"
)

# %%
# FedAvg with one local SGD step on equal shards = one full-batch gradient step
theta64 = [p.clone().requires_grad_(True) for p in init64]
shards8 = federated.iid_partition(len(ytr), 8, generator=gen)
local = [p.detach().expand(8, *p.shape).clone().requires_grad_(True) for p in init64]
Xs, ys = X64[shards8], ytr.cpu()[shards8]
g_clients = torch.autograd.grad(watermark.client_losses(local, Xs, ys).sum(), local)
fedavg_step = [
    p.detach() - 0.1 * g.mean(0) for p, g in zip(init64, g_clients, strict=True)
]
used = shards8.flatten()
g_full = torch.autograd.grad(
    watermark.client_losses(theta64, X64[used][None], ytr.cpu()[used][None]).sum(),
    theta64,
)
for i, (a, p, g) in enumerate(zip(fedavg_step, init64, g_full, strict=True)):
    icml26.checks.agree(
        f"FedAvg = large-batch GD, layer {i}", a, p - 0.1 * g, atol=1e-13
    )

# untrusted server: additive shares σ_k (Σσ_k = τ) give the trusted average exactly
state = adamw.AdamWState.zeros_like(local)
loc = adamw.adamw_step(
    [q.detach() for q in local], g_clients, state, lr=LR, weight_decay=WD
)
norms = torch.stack(
    [(q - p).flatten(1).norm(dim=1) for q, p in zip(loc, init64, strict=True)], 1
)
a = STRENGTH * (1 - BETA) * norms.mean(1, keepdim=True) * norms  # (K, L), first round
trusted, untrusted = [], []
for i, (q, tau) in enumerate(zip(loc, key64, strict=True)):
    sig = torch.randn(8, *tau.shape, generator=gen, dtype=torch.float64)
    sig[-1] = tau - sig[:-1].sum(0)  # additive shares of τ_ℓ
    A = a[:, i].sum()
    shape = (8, *([1] * tau.ndim))
    trusted.append((q + a[:, i].view(shape) * tau).mean(0))
    untrusted.append((q + A * sig).mean(0))
    icml26.checks.agree(
        f"untrusted = trusted embedding, layer {i}",
        untrusted[i],
        trusted[i],
        atol=1e-12,
    )
print(
    "FedAvg(one SGD step) = full-batch GD; additive-share embedding = trusted embedding"
)

# %% tags=["nbval-ignore-output"]
# timing: one round of 128 clients, batched kernel vs the client loop (the benchmark)
sh128 = federated.iid_partition(len(ytr), 128, generator=gen)
t0 = time.perf_counter()
federated.fedavg(
    X64, ytr.cpu(), sh128, None, init64, rounds=1, lr=LR, strength=1.0, key=key64
)
t_kernel = time.perf_counter() - t0
t0 = time.perf_counter()
fedavg_round_reference(init64, X64, ytr.cpu(), list(sh128), key64, 1.0, LR, WD)
t_ref = time.perf_counter() - t0
print(
    f"one round, K = 128: batched {1e3 * t_kernel:.1f} ms, "
    f"client loop {1e3 * t_ref:.1f} ms "
    f"({t_ref / t_kernel:.0f}×)"
)

# %% [markdown]
# ## Limits of this reproduction
#
# - **Scale and model.** The paper trains ResNet-18 on CIFAR-10/100 and Tiny ImageNet for 200
#   rounds (global batch 2048, AutoAugment) and fine-tunes a language model; here an MLP with
#   $17\,226$ parameters learns the bundled 8×8 digits in 150 rounds. Accuracy numbers, the
#   LM setting, pruning, quantisation and the distillation attack (which the paper reports as
#   the one effective but costly remover) are **not tested**.
# - **Reconstructed pieces.** The embedding rule and the layer-mean statistic come from the
#   released code, not the paper's text; the null calibration, the dilution law and the
#   restriction of $S$ to layers with $d_\ell \ge 256$ are ours. With all six tensors the
#   10-entry output bias dominates $\sigma_0$ and the watermarked model's $z$ drops to about
#   a fifth (printed in 17.4–17.6): the paper-style statistic needs its small tensors
#   down-weighted on small models. The paper's "adaptive" fine-tuning attack is not known to
#   us; ten times the learning rate is a stand-in.
# - **A tuned strength.** $c = 1$ was chosen on an earlier run of this toy, as the smallest of
#   $\{0.1, 0.3, 1, 3\}$ giving $z \ge 7$ at every $K$; the claims that depend on it
#   (17.8–17.10, 17.13) say so on their lines. At the released code's $c = 0.1$ the mark stays
#   below $z = 4$ at $K = 8$ (printed under 17.10): there 17.8 would not be reproduced. How
#   large $c$ must be depends on the model and the number of rounds.
# - **The dilution test.** A log-log slope of the per-client $z$ against $K$ would be
#   confounded here, because the shared strength itself grows with $K$ (a slope near $-0.5$);
#   17.11 tests the ratio that {prf:ref}`threshold-watermark-prop-dilution` predicts, against
#   the clean twin. Without the twin the ratio is dominated by the null draws of the
#   per-client scores (printed in parentheses under 17.11) and could land outside
#   $[K/2, 2K]$ at $K = 128$ even when the law holds. The per-client baseline, and the clean
#   twins of 17.10, are trained at $K = 8$ and $32$ only, to keep the chapter within its time
#   budget; the paper-scale run adds $K = 128$ for both.
# - **Cryptography is simulated.** Secure aggregation and the secure sum of the coalition's
#   scalars are plain sums here; the distributed (dealer-free) key generation of the released
#   code, built on multi-party computation, is not reproduced. Only the mathematics of the
#   sharing (17.1, 17.2) and of the verification (17.3) is checked. Keys and shares are drawn
#   from a seeded generator so that the book's numbers can be checked; a deployment must draw
#   them from a cryptographically secure one (the warning under Implementation).
# - **Non-IID** uses Dirichlet($0.5$) label splits with $K = 8$ (the paper-scale run adds
#   $K = 32$ and $64$); the paper's non-IID parameters are not known to us.
# - **The 20 % fine-tuning attack** is weak against this model: it barely changes the weights.
#   A $z$ far above 4 after the attack says the mark is not *accidentally* removed; it says
#   nothing about an attacker who estimates $\tau$ well (the projection attack of 17.13–17.14
#   estimates it badly).
# - **Paper scale.** `ICML26_SCALE=paper` enlarges the same toy (the paper's 200 rounds, five
#   seeds, clean twins and the per-client baseline up to $K = 128$, non-IID at
#   $K = 8, 32, 64$, ten times more null keys, more coalitions, a larger field for the
#   exhaustive secrecy check); it does not switch to a ResNet-18 on image data, so the
#   paper's architecture-level numbers stay out of reach at both scales. Its record follows;
#   its last line names the verdicts that change. Claims decided by their worst seed are
#   stricter there (five seeds instead of three, and 200 rounds): where the fine-tuning
#   attack's accuracy change (17.14) fails, it is one seed's change above the 2-point bar.

# %%
from icml26.pipeline import paper

paper.show("17-threshold-watermark")

# %% [markdown]
# ## Exercises
#
# ````{exercise} Per-client marks at K = 128
# :label: threshold-watermark-ex-dilution
#
# The chapter trains the per-client baseline at $K = 8$ and $32$ only. Using
# {prf:ref}`threshold-watermark-prop-dilution` and the shared signals printed under 17.11,
# predict the mean own-key signal $\operatorname{mean}_k \Delta z(\tau^{(k)})$ at
# $K = 128$, and the mean own-key $z_{\mathrm{sign}}$ *without* the clean twin, with its
# standard error over the 128 clients. Would the unpaired ratio reliably land in
# $[K/2, 2K]$? Then draw `client_keys[128, s]` for every seed with
# `watermark.random_keys(setups[s]["init"], (128,), generator=...)`, run
# `train("iid", 128, [(s, "per-client", STRENGTH) for s in SEEDS], per_client=True)` and
# compare.
# ````
#
# ````{solution} threshold-watermark-ex-dilution
# :class: dropdown
#
# The own-key signal is the shared signal at $K = 128$ divided by $128$: a few tenths of a
# standard deviation. Without the twin each client's score adds a null draw of standard
# deviation 1, so the mean over 128 clients has standard error $1/\sqrt{128} \approx 0.09$
# — a third or so of the signal. The unpaired ratio then scatters by a factor of about
# $1.5$ around $K$ and leaves $[K/2, 2K]$ in a few per cent of the seeds or more, while the
# paired ratio, whose noise is only the tiny difference between the two trajectories, stays
# close to $K$. The proposition is about the component along each key, which is what the
# pairing isolates.
# ````
#
# ````{exercise} Why the modulus must be prime
# :label: threshold-watermark-ex-composite
#
# (a) Show that $2^{53} - 1 = 6361 \cdot 69431 \cdot 20394401$ and that Lagrange weights
# modulo it do not exist for the evaluation points $1$ and $6362$. (b) Take $m = 15$, $t = 2$
# and the points $x = 1, \dots, 5$. For which single share $(x, y)$ is the secret *determined*
# modulo 3 or 5? (c) Why does `icml26.trust.shamir` refuse a composite `p`?
# ````
#
# ````{solution} threshold-watermark-ex-composite
# :class: dropdown
#
# (a) Multiply out (or use `shamir.is_prime` and trial division). The weight for the pair
# $\{1, 6362\}$ needs $(6362 - 1)^{-1} = 6361^{-1}$, which does not exist modulo a multiple of
# $6361$. (b) With $t = 2$, $y = s + a x \bmod 15$. For $x = 3$, $a x \bmod 3 = 0$, so $y
# \equiv s \pmod 3$: the share reveals $s \bmod 3$; for $x = 5$ it reveals $s \bmod 5$. Only
# $x$ coprime to $15$ ($1, 2, 4$) give uniform shares. (c) Both parts of
# {prf:ref}`threshold-watermark-thm-shamir` rest on the invertibility of the Vandermonde matrix, which holds
# for distinct points only over a field; with zero divisors the secret can leak (b) or fail
# to be reconstructed (a), as 17.2 shows for $\mathbb Z_{12}$.
# ````
#
# ````{exercise} Recovering a share from published verification scalars
# :label: threshold-watermark-ex-leak
#
# Suppose coalition member $i$ publishes $r_i(\theta^{(q)}) = \langle\tilde\theta^{(q)}_\ell,
# y_{i,\ell}\rangle \bmod p$ for suspect models $q = 1, 2, \dots$ instead of feeding it to a
# secure sum. Implement the recovery of $y_{i,\ell}$ for the 10-entry output bias ($d_\ell =
# 10$) from 10 published scalars: solve the linear system modulo $p$ (Gaussian elimination
# with `pow(x, -1, p)`). How does this change the threshold guarantee?
# ````
#
# ````{solution} threshold-watermark-ex-leak
# :class: dropdown
#
# Stack the encoded suspect layers as the rows of $M \in \mathbb F_p^{10 \times 10}$; then
# $M y_{i,\ell} = r$, and for random suspects $M$ is invertible with probability $\approx 1 -
# 1/p$. Gaussian elimination over $\mathbb F_p$ (pivot, multiply by the modular inverse,
# eliminate) returns $y_{i,\ell}$ exactly. After $d_\ell$ verifications member $i$'s share is
# public, so the threshold drops by one for every member who published; $t$ such members
# expose $\tau$. Remedies: combine $\lambda_i^T r_i$ inside a secure sum, limit the number of
# verifications, or re-randomise the shares between verifications by adding fresh shares of
# zero (a random polynomial with $f(0) = 0$), which leaves the secret unchanged.
# ````
#
# ````{exercise} Removing the mark by projection
# :label: threshold-watermark-ex-projection
#
# (a) An attacker who knew $\tau$ could remove its component exactly:
# $\theta_\ell \leftarrow \theta_\ell - \langle\theta_\ell, \tau_\ell\rangle\tau_\ell$.
# Predict $z$ and the test accuracy of the first seed's watermarked model
# (`model_wm["params"]`, key `tau0`) after it, then compute them. (b) The informed attack of
# 17.13 needs the clean twin, which needs every client's data. A single client can only
# train a clean reference on its own shard, from the same initial model:
# `federated.fedavg(Xtr, ytr, shards["iid", 32, S0][:1], None, setups[S0]["init"],
# rounds=ROUNDS, lr=LR)`. Project out the sign of the difference between the marked model
# and this reference with `project_out_estimate`. What happens to $z$ and to the accuracy,
# and what does this say about the threshold guarantee?
# ````
#
# ````{solution} threshold-watermark-ex-projection
# :class: dropdown
#
# (a) After the exact projection every cosine with $\tau_\ell$ is $0$, so $z = 0$, while
# the accuracy barely moves: the mark is a tiny part of the weights (17.10). (b) The
# single-shard reference differs from the clean twin by everything the other clients'
# data taught the model, so the estimate mixes mark and learned update, as the crude
# estimate does, if less. How far $z$ falls, and how much accuracy the projection costs,
# depends on how well one shard's reference stands in for the twin: run it and compare
# with the crude and the informed attacks printed under 17.13–17.14. The lesson is the one
# the released code tracks with its "attack cosine": secrecy of the *shares* does not make
# the embedded *direction* secret. Training exposes it to every participant who sees the
# global models, in proportion to how well the participant can tell what the model would
# have been without the mark.
# ````
#
# ## Summary
#
# - A watermark is a secret direction $\tau$ in weight space; with Rademacher keys the null
#   of the layer-mean cosine is known exactly ($\operatorname{Var}\cos = 1/d_\ell$), which
#   calibrates the $z \ge 4$ test (17.4–17.6) and explains the released constants (17.7).
# - Per-client keys dilute like $1/K$ under averaging (17.11–17.12); one shared key does not,
#   and stays detectable from $K = 8$ to $128$, IID and non-IID, at no accuracy cost, and
#   through fine-tuning on 20 % of the data (17.8–17.10, 17.13–17.14).
# - Shamir sharing over a genuine prime gives the threshold: any $t$ clients reconstruct, any
#   $t - 1$ learn nothing (17.1, 17.2); a composite modulus or non-uniform coefficients break it.
# - Linearity lets a coalition verify from one scalar per member and layer, without ever
#   reconstructing $\tau$ (17.3) — but published scalars and the training trajectory leak.
# - All $K$ clients train as one batched computation; ResNet-scale results, the LM setting
#   and the distillation attack are not reproduced, and the strength $c$ was tuned to this
#   toy. Keys and shares in a deployment come from a cryptographically secure generator.
