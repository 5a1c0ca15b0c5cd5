# %% [markdown]
# # 19 · rector — RECTOR: masked region-channel-temporal modeling of EEG
#
# ## Overview
#
# An EEG recording is a grid: a few dozen electrodes on the scalp (or depth contacts in the
# brain, for sEEG), each sampled a few hundred times a second. Models that learn from such
# grids face three facts at once. The channels are not interchangeable: they sit at positions
# on the head and group into anatomical regions, and the groups that *act together* depend on
# the task and the person. Recordings differ in their electrode set (the *montage*), and
# channels go missing. And labels are scarce, so most of the learning has to be
# self-supervised. {cite:t}`liu2026rector` answer with **RECTOR**: an encoder whose attention
# is organised by region, channel and time — channels attend within their region, regions
# attend to each other, and time is attended at the region level — trained by **masking**
# structured blocks of the grid (whole regions, channels, time spans) and asking the model to
# fill them in, to predict the connectivity graph of the window, and to agree with itself
# across two masked views. Regions start from anatomy and are re-drawn from functional
# connectivity as training proceeds. The paper reports state-of-the-art weighted F1 on EEG
# emotion recognition (valence and arousal) and sEEG task-engagement classification,
# robustness to missing channels and transfer across montages.
#
# Attention organised this way is much cheaper than dense attention over all channel-time
# tokens, and the chapter makes that exact: a block-sparse mask, its cost
# $T \sum_r n_r^2 + T R^2 + R T^2$ against $(CT)^2$, and a kernel that only computes the
# blocks. The masked pre-training on the grid builds on masked autoencoders
# {cite}`he2022mae` and on EEG foundation models such as LaBraM {cite}`jiang2024labram`; the
# adaptive partition is spectral clustering {cite}`ng2001spectral` of a phase-locking graph
# {cite}`lachaux1999plv`.
#
# By the end of the chapter you will be able to: build the region-channel-temporal attention
# mask on a real montage and count its cost; prove that the masked attention is exactly
# attention run block by block; recover functional regions from phase-locking; pre-train a
# small RECTOR encoder with the three objectives on simulated EEG; and test the pre-trained
# encoder against the same encoder left at its random initialisation — subject-independently,
# with channels removed and on electrodes it has never seen. Within this chapter's budget
# the pre-training does **not** beat its random initialisation on any downstream test, and
# the chapter shows why; trained until its loss flattens (the paper scale), it comes close
# on one, reading valence from its connectivity graph: a gain of about the margin on
# average, but short of it at two seeds of five.
#
# ```{admonition} What the paper states, and what this chapter reconstructs
# :class: warning
#
# Only the paper's abstract, its first figure's caption and secondary summaries were
# available. **From the paper:** the names and roles of the components (region-channel-temporal
# attention, adaptive functional partitioning that evolves regions from anatomical to
# functional, structured multi-view masking, and three objectives — masked predictive
# modelling, topological structure modelling, cross-view consistency — computed in one forward
# pass), the claim of lower cost than full spatio-temporal attention, and the qualitative
# results (state of the art in weighted F1, robustness to missing channels, cross-montage
# generalisation). **Reconstructed here:** every equation below — the exact attention levels
# and their cost, the partition rule and its connectivity measure, the masking distribution,
# the loss formulas and their weights — and the whole experiment: the data are *simulated*
# EEG on the real biosemi32/64 electrode positions, not the paper's datasets (which are not
# named in what we could read), and no number of the paper is reproduced.
# ```
#
# ## Setting and notation
#
# | symbol | meaning |
# |---|---|
# | $X \in \mathbb{R}^{C \times L}$ | one window: $C$ channels, $L$ samples at rate $f_s$ |
# | $\mathrm{pos}_c \in \mathbb{R}^3$ | position of electrode $c$ (metres, head frame) |
# | $P$, $T = L/P$ | samples per patch, patches per window; tokens $x_{c,\tau} \in \mathbb{R}^P$ |
# | $r: [C] \to [R]$ | a partition of the channels into $R$ regions of sizes $n_1, \dots, n_R$ |
# | $M \in \{0,1\}^{CT \times CT}$ | an attention mask, $1$ = allowed; $\log 0 = -\infty$ |
# | $d$, $h_{c,\tau} \in \mathbb{R}^d$ | model width, channel token; $z_{r,\tau}$ a region token |
# | $H_c \in \mathbb{R}^d$ | time-pooled, unit-norm channel token; $H H^\top$ the model's graph |
# | $W \in \mathbb{R}^{C \times C}_{\ge 0}$ | a channel affinity (functional connectivity) |
# | $\eta \in [0,1]$ | weight of function against anatomy in the partition |
# | $y, v \in \{0, 1\}$ | the window's labels: "arousal" (spectral) and "valence" (coupling) |
# | $\mathrm{ARI}$ | adjusted Rand index between two partitions (1: identical, 0: chance) |
# | $F_1^w$ | weighted $F_1$ score of a classifier (chance: about 0.5 here) |
#
# Tokens are ordered time-major: token $\tau C + c$ is channel $c$ at patch $\tau$.

# %% [markdown]
# ## Theory
#
# ```{prf:definition} Region block mask
# :label: rector-def-mask
#
# For a partition $r$ of the channels, the **intra-region mask** on the $CT$ channel tokens is
#
# $$
# M^{1}_{(c,\tau),(c',\tau')} = \mathbf{1}\left[\tau = \tau' \ \wedge\ r(c) = r(c')\right],
# $$ (rector-eq-mask)
#
# block-diagonal once channels are sorted by region. Masked attention with queries, keys and
# values $Q, K, V \in \mathbb{R}^{CT \times d}$ is
# $\mathrm{Attn}_M(Q,K,V) = \mathrm{softmax}\!\left(QK^\top/\sqrt d + \log M\right) V$, row by row.
# ```
#
# On scalp EEG the anatomical partition comes from the electrode names: Fp/AF prefrontal,
# F frontal, FC/C central, T (left or right by the sign of $x$) temporal, CP/P parietal, PO/O
# occipital. Two-letter prefixes must be matched first, or FC, CP and PO channels land in the
# wrong region.
#
# ```{prf:proposition} The mask is attention run block by block
# :label: rector-prop-exact
#
# If every query may attend to at least one key (true for {eq}`rector-eq-mask`, since
# $M_{ii} = 1$), then for every block $B = \{(c, \tau): r(c) = \rho, \tau = t\}$ the rows of
# $\mathrm{Attn}_{M^1}(Q,K,V)$ indexed by $B$ equal $\mathrm{Attn}(Q_B, K_B, V_B)$, ordinary
# attention on the block alone, and every attention weight between two different blocks is
# exactly $0$.
# ```
#
# ```{prf:proof}
# Fix a query $i \in B$. Its scores are $s_j = q_i^\top k_j/\sqrt d$ for $j \in B$ and
# $-\infty$ otherwise, because $M^1_{ij} = 1$ exactly when $j$ shares $i$'s patch and region,
# i.e. $j \in B$. Since $e^{-\infty} = 0$, the softmax weight of $j \notin B$ is
# $0 / \sum_{j' \in B} e^{s_{j'}}$, and the denominator is positive because $B \ni i$ is not
# empty. The weights on $B$ are $e^{s_j} / \sum_{j' \in B} e^{s_{j'}}$, the softmax of the
# block's own scores, so the output row is the block attention's row. If some row had no
# allowed key, the softmax would be $0/0$: a hand-written softmax returns NaN there, while
# PyTorch's fused kernel returns a row of zeros — which is why the hypothesis is stated.
# ```
#
# ```{prf:definition} Hierarchical region-channel-temporal layer
# :label: rector-def-layer
#
# One layer maps channel tokens $h \in \mathbb{R}^{T \times C \times d}$ to new ones in four
# steps, each with pre-normalisation and a residual connection: (i) **channel attention**
# within each region at each patch, $\mathrm{Attn}_{M^1}$; (ii) **region tokens**
# $z_{\rho,\tau} = \frac{1}{n_\rho}\sum_{r(c)=\rho} h_{c,\tau} + e_{\mathrm{reg}}(\rho)$ attend
# to each other at the same patch; (iii) **temporal attention** of each region token across
# the $T$ patches; (iv) **broadcast**: $h_{c,\tau} \mathrel{+}= z_{r(c),\tau}$, then an MLP.
# The input tokens are $h^0_{c,\tau} = W_p x_{c,\tau} + e_{\mathrm{chan}}(c) +
# e_{\mathrm{time}}(\tau) + e_{\mathrm{reg}}(r(c))$, where $e_{\mathrm{chan}}(c) =
# \mathrm{MLP}(\mathrm{pos}_c)$ is a function of the electrode position.
# ```
#
# ```{prf:proposition} Exact cost
# :label: rector-prop-cost
#
# One layer of {prf:ref}`rector-def-layer` evaluates exactly
#
# $$
# N_{\text{RECTOR}} = T \sum_{\rho=1}^{R} n_\rho^2 + T R^2 + R T^2
# $$ (rector-eq-cost)
#
# query-key scores, against $N_{\text{dense}} = (CT)^2$ for dense attention over all channel-time
# tokens. With equal regions, $n_\rho = C/R$, the ratio is
# $N_{\text{RECTOR}}/N_{\text{dense}} = \frac{1}{RT} + \frac{R^2}{C^2 T} + \frac{R}{C^2 T}$.
# ```
#
# ```{prf:proof}
# Count allowed pairs level by level. Channel level: at each of the $T$ patches, region $\rho$
# is a block of $n_\rho$ queries and $n_\rho$ keys, so $T\sum_\rho n_\rho^2$ scores (the number
# of ones of {eq}`rector-eq-mask`). Region level: at each patch the $R$ region tokens attend to
# all $R$, $T R^2$. Temporal level: each of the $R$ region tokens attends over the $T$ patches,
# $R T^2$. The levels are separate attention operations, so their counts add. For equal regions
# divide each term by $C^2T^2$.
# ```
#
# For biosemi32 the name rule gives region sizes $(4, 5, 7, 1, 1, 9, 5)$, so
# $\sum n_\rho^2 = 198$; with $T = 8$ that is $1584 + 392 + 448 = 2424$ scores against $65\,536$:
# 27 times fewer. The saving grows with the montage: the dominant term falls like $1/(RT)$.
#
# ```{prf:definition} Adaptive functional partition
# :label: rector-def-afp
#
# Let $W_{\text{anat}} = [\,r_{\text{anat}}(c) = r_{\text{anat}}(c')\,]$ be the anatomical
# same-region indicator and $W_{\text{func}}$ a functional affinity: here the phase-locking
# value (PLV) of the windows seen so far, averaged over the FFT bins of the band of the
# rhythms (4–40 Hz),
#
# $$
# W_{\text{func}}(c, c') = \frac{1}{|F|}\sum_{f \in F} \Big| \frac{1}{N} \sum_{n=1}^{N}
# \frac{S_{n,c}(f)\, S_{n,c'}(f)^*}{|S_{n,c}(f)\, S_{n,c'}(f)|} \Big|,
# $$ (rector-eq-plv)
#
# with $S_{n,c}(f)$ the Fourier coefficient of window $n$, channel $c$. At schedule value
# $\eta_t \in [0, 1]$, rising linearly from $0$ to $1$ over pre-training, the partition is the
# anatomical one for $\eta_t = 0$, and otherwise the normalised spectral clustering into $k$
# groups of
#
# $$
# W_t = (1 - \eta_t)\, W_{\text{anat}} + \eta_t\, W_{\text{func}},
# $$ (rector-eq-afp)
#
# relabelled to overlap the previous partition as much as possible (so region embeddings keep
# their meaning). The block mask {eq}`rector-eq-mask` follows the current partition.
# ```
#
# Why spectral clustering finds functional regions: if channels in the same functional region
# are strongly coupled and channels in different regions are not, $W_{\text{func}}$ is close to
# block-diagonal, and the next lemma says the leading eigenvectors of its normalised version
# encode the blocks.
#
# ```{prf:lemma} Spectral clustering of a block-diagonal affinity
# :label: rector-lem-spectral
#
# Let $W = \mathrm{diag}(W_1, \dots, W_k)$ (after sorting channels) with each $W_j$ symmetric,
# entrywise positive, and $D = \mathrm{diag}(W\mathbf{1})$. Then the eigenvalue $1$ of
# $N = D^{-1/2} W D^{-1/2}$ has multiplicity exactly $k$, every other eigenvalue is smaller in
# absolute value, and after normalising the rows of any orthonormal basis $U \in
# \mathbb{R}^{C \times k}$ of its eigenspace, two channels have the same row if and only if
# they are in the same block — so $k$-means on the rows recovers the blocks exactly.
# ```
#
# ```{prf:proof}
# $N$ is block-diagonal with blocks $N_j = D_j^{-1/2} W_j D_j^{-1/2}$. Each $N_j$ is a positive
# matrix similar to the stochastic matrix $D_j^{-1} W_j$, so by Perron–Frobenius its largest
# eigenvalue is $1$, simple, with positive eigenvector $u_j = D_j^{1/2}\mathbf{1}/\lVert
# D_j^{1/2}\mathbf{1} \rVert$, and its other eigenvalues are smaller in modulus. The eigenspace
# of $1$ for $N$ is therefore spanned by the $k$ vectors $u_j$ extended by zeros; any
# orthonormal basis is $U = [u_1, \dots, u_k]\, O$ with $O$ orthogonal. Row $c$ of
# $[u_1, \dots, u_k]$ is $u_j(c)\, e_j^\top$ for the block $j \ni c$, which after normalisation
# is $e_j^\top$; multiplying by $O$ maps the $k$ distinct rows $e_j^\top O$ to $k$ orthonormal,
# hence distinct, points. For a perturbed $W$ the Davis–Kahan theorem bounds how far the
# eigenspace moves by the perturbation over the eigen-gap; we only sketch that step
# {cite}`ng2001spectral`.
# ```
#
# On scalp EEG $W_{\text{func}}$ is not block-diagonal: volume conduction couples
# neighbouring electrodes whatever their function, and electrodes far from every source see
# only noise. The recovery experiment below measures how much of the block structure survives.
#
# The paper names the functional affinity only as connectivity; its reconstructed
# alternative is the encoder's *own* channel similarity, $W_{\text{func}} = |H H^\top|$
# averaged over windows (the graph the topology objective below trains). That choice has a
# trap: the region embedding $e_{\text{reg}}(r(c))$ and the block mask make channels of one
# current region similar *because* they share a region, so the partition drawn from this
# similarity tends to reproduce the partition that shaped it — a fixed point at anatomy. The
# experiments measure it; the chapter's partition uses the PLV, which the encoder cannot
# bend.
#
# ```{prf:definition} Structured multi-view masking and the three objectives
# :label: rector-def-views
#
# A **view** of a window masks a set $\mathcal{M} \subset [C] \times [T]$ of tokens, drawn as
# the union of (a) one random region over a random span of $T/2$ patches, (b) each channel with
# probability $1/4$ over all patches, (c) a span of $T/4$ patches on all channels. Masked
# tokens enter the encoder as a learned $[\mathrm{MASK}]$ vector. Two views per window are
# encoded; with $\hat x_{c,\tau}$ a linear decoding of $h_{c,\tau}$,
# $H_c = \frac1T \sum_\tau h_{c,\tau}/\lVert\cdot\rVert$ the time-pooled channel embedding,
# $G$ the window's channel correlation matrix and $u^1, u^2$ projected pooled embeddings of
# the two views,
#
# $$
# \begin{aligned}
# \mathcal{L} = {}& \underbrace{\tfrac{1}{|\mathcal{M}|}\textstyle\sum_{\mathcal{M}}
# \lVert \hat x_{c,\tau} - x_{c,\tau}\rVert^2 / P}_{\text{masked prediction}} +
# \lambda_T \underbrace{\tfrac{1}{C^2}\lVert H H^\top - G \rVert_F^2}_{\text{topology}} \\
# &+ \lambda_C \underbrace{\mathrm{InfoNCE}_{0.1}(u^1, u^2)}_{\text{cross-view}},
# \end{aligned}
# $$ (rector-eq-loss)
#
# averaged over the two views, with $\lambda_T = \lambda_C = 0.5$. The ablation "without
# channel/region masking" draws only (c), on $T/2$ patches.
# ```
#
# A missing channel is **removed**: its tokens are left out of the grid, its region's mean in
# step (ii) runs over the channels that remain, and nothing else changes — every operation of
# {prf:ref}`rector-def-layer` is defined for any set of channels. Writing zeros instead would
# feed the model a flat signal that never occurs after per-channel z-scoring. The same
# property, together with position-based channel embeddings, lets a trained encoder read a
# montage it has never seen: a new electrode is just a new position.
#
# In these views the masked tokens are *read*: a $[\mathrm{MASK}]$ vector is a key of the
# channel attention and part of its region's mean, like any token. A masked autoencoder
# {cite}`he2022mae` *hides* them instead, so that the encoder sees only the visible tokens.
# The paper's available text does not say which it does. Hidden, a channel masked at every
# patch is, for the rest of the grid, exactly a removed channel, so channel and region
# masking would pre-train the encoder on the inputs of a missing-channel test; the library
# implements both readings, and {ref}`rector-ex-hide` measures what hiding changes.

# %% tags=["hide-input"]
import time

import matplotlib.pyplot as plt
import numpy as np
import torch
from sklearn.metrics import adjusted_rand_score

import icml26
from icml26.neuro import eeg

SEED = 19
rng = icml26.seed_everything(SEED)
icml26.plotting.use_book_style()
DEVICE = icml26.device()  # the encoders train on a GPU when there is one

# %% tags=["parameters", "hide-input"]
MONTAGE = (
    "biosemi32"  # training montage (DEAP's layout); biosemi64 adds the transfer set
)
SUBJECTS_TRAIN = icml26.pick(ci=30, paper=60)  # subjects for pre-training and the probe
SUBJECTS_TEST = icml26.pick(ci=10, paper=20)  # held-out subjects (subject-independent)
WINDOWS = 40  # 1 s windows per subject
FS = 128.0  # sampling rate f_s (Hz)
N_SAMPLES = 128  # L, samples per window
PATCH = 16  # P, so T = 8 patches
RHO = 0.03  # source spread ρ (m)
CONDUCTION = 0.02  # volume-conduction width σ_vc (m), chosen after a first run
MIN_SEP = 0.08  # minimum distance between source centres (m)
COUPLING = 0.5  # valence: weight of the 10 Hz signal that reaches the target source
K_FUNCTIONAL = 5  # regions of the adaptive partition (the number of sources)
PLV_BAND = (4.0, 40.0)  # band of the phase-locking affinity (the sources' peaks)
D_MODEL = 32
LAYERS = 1
STEPS = icml26.pick(ci=60, paper=4000)  # pre-training steps per encoder
# the conduction width was chosen after a first run; the paper scale's steps after a
# 4000-step run at seed 19 that met the convergence criterion (600 steps did not)
TUNED_ENCODERS = "σ_vc = 2 cm, after a first run; paper-scale steps, after one seed"
BATCH = icml26.pick(ci=16, paper=32)  # windows per step (two views each)
LR = 3e-3
AFP_EVERY = icml26.pick(ci=12, paper=400)  # steps between partition updates
# model seeds: initialisation, batches and masks
SEEDS = icml26.pick(ci=(19, 20, 21), paper=(19, 20, 21, 22, 23))
SEED_LIST = ", ".join(map(str, SEEDS))
COHORTS = (19, 20, 21, 22, 23)  # simulated cohorts (source positions, subjects)
COHORT_SUBJECTS = icml26.pick(ci=10, paper=30)  # subjects per cohort, partition test
DROP_FRACTION = 0.25  # channels removed at test (claim 19.6)
DROP_PATTERNS = icml26.pick(ci=3, paper=20)  # random drop patterns per model
ATTN_D = 16  # head width of the mask-exactness check
# %% [markdown]
# The architecture at a glance: patches become channel tokens, channels attend within their
# region, region tokens attend across regions and across time, and the result is broadcast
# back; pre-training masks structured blocks of the grid.

# %% tags=["hide-input"] mystnb={"figure": {"caption": "One RECTOR layer as reconstructed here: patch tokens with position-based channel embeddings, channel attention inside each region (block mask), region tokens attending across regions and across patches, broadcast back to the channels. Pre-training encodes two structured masked views and combines masked prediction, topology prediction and cross-view consistency; the partition moves from anatomy to function.", "name": "rector-fig-arch"}}
fig, ax = plt.subplots(figsize=(7.4, 3.2))
icml26.plotting.diagram(
    ax,
    {
        "x": (0.08, 0.5, "EEG window\n$C \\times L$\n→ patches"),
        "tok": (0.28, 0.5, "tokens $h_{c,\\tau}$\n$+ e_{chan}(pos_c)$"),
        "ch": (0.5, 0.82, "(i) channels\nwithin region"),
        "rg": (0.5, 0.5, "(ii) regions\nat each $\\tau$"),
        "tm": (0.5, 0.18, "(iii) regions\nacross $\\tau$"),
        "bc": (0.72, 0.5, "(iv) broadcast\n+ MLP"),
        "obj": (0.92, 0.5, "MPM + TSM\n+ CVC"),
    },
    [
        ("x", "tok", ""),
        ("tok", "ch", ""),
        ("ch", "rg", "pool"),
        ("rg", "tm", ""),
        ("tm", "bc", ""),
        ("bc", "obj", "2 views"),
    ],
    colors={"x": 0, "tok": 3, "ch": 2, "rg": 1, "tm": 1, "bc": 2, "obj": 0},
)
ax.set_title("Region → channel → time: three small attentions instead of one dense one")
plt.show()

# %% [markdown]
# ## Implementation
#
# The readable reference computes the channel level of {prf:ref}`rector-def-layer` the slow,
# obvious way: for every patch and every region, gather the block and run ordinary softmax
# attention on it.


# %% tags=["reference"]
def blockwise_attention_reference(q, k, v, regions):
    """Within-region attention, block by block: q, k, v are (T, C, d) tensors."""
    out = torch.zeros_like(q)
    for t in range(q.shape[0]):
        for rho in np.unique(regions):
            idx = np.flatnonzero(regions == rho)
            scores = q[t, idx] @ k[t, idx].T / np.sqrt(q.shape[-1])
            out[t, idx] = torch.softmax(scores, dim=-1) @ v[t, idx]
    return out


# %% [markdown]
# The library has the same operation twice. {func}`~icml26.neuro.attention.masked_attention`
# is the paper's view: one attention over all $CT$ tokens with the boolean mask
# {eq}`rector-eq-mask` ({func}`~icml26.neuro.attention.block_mask`), through PyTorch's
# `scaled_dot_product_attention`, whose boolean `attn_mask` marks **allowed** entries with
# `True`. {func}`~icml26.neuro.attention.block_sparse_attention` is the fast kernel: it
# gathers each region's channels into a padded $(T, R, n_{\max}, d)$ tensor and attends
# inside the blocks only, so its cost is $T R\, n_{\max}^2$ rather than $(CT)^2$. The
# chapter imports everything through `icml26.neuro.eeg`, which re-exports the modules of
# the neural-signals part: montages, the simulator, connectivity, attention, the encoder,
# partitions, pre-training and probes.

# %%
names, pos = eeg.montage(MONTAGE)
anat = eeg.anatomical_regions(names, pos)
C, T = len(names), N_SAMPLES // PATCH
g = torch.Generator().manual_seed(SEED)
q, k, v = (torch.randn(T, C, 16, generator=g) for _ in range(3))
ref = blockwise_attention_reference(q, k, v, anat)
icml26.checks.agree(
    "block-sparse kernel vs reference",
    eeg.block_sparse_attention(q, k, v, anat),
    ref,
    atol=1e-5,
)
flat = eeg.masked_attention(
    *(t.reshape(T * C, -1) for t in (q, k, v)), eeg.block_mask(anat, T)
)
icml26.checks.agree("masked SDPA vs reference", flat.reshape(T, C, -1), ref, atol=1e-5)
print(
    "biosemi32 region sizes:",
    dict(zip(eeg.REGION_NAMES, np.bincount(anat).tolist(), strict=True)),
)

# %% [markdown]
# ## Experiments
#
# ### The simulated EEG
#
# The paper's datasets cannot be used here, so the chapter simulates EEG on the real
# biosemi32 electrode positions (MNE's built-in montage). Five latent sources sit on the scalp
# sphere at least 8 cm apart; each is an AR(2) resonator with a peak at 6, 10, 13, 20 or 30 Hz
# (pole radius 0.96, unit standard deviation) and reaches electrode $c$ with weight
# $\exp(-\lVert \mathrm{pos}_c - \mathrm{ctr}_j\rVert^2 / 2\rho^2)$, $\rho = 3$ cm. Every channel
# adds its own pink background (std 0.5); **volume conduction** then smooths the scalp signal
# (sources and background) over neighbouring electrodes with a Gaussian kernel of width
# $\sigma_{vc} = 2$ cm, and every electrode adds sensor noise (std 0.2). Volume conduction is
# the confound of scalp EEG: neighbouring electrodes correlate whatever their function. Its
# width was chosen after a first run without it (every claim that uses the simulated data
# says so on its line; the Limits section reports the run at $\sigma_{vc} = 0$). A
# channel's **functional region** is its nearest source — different from anatomy by
# construction.
#
# Two labels per window, drawn independently. **Arousal** $y$ is spectral: $y = 1$
# multiplies the 10 Hz source by 1.6 and the 20 Hz source by 0.7. **Valence** $v$ is carried
# by coupling alone: the 6 Hz source's region also receives $0.5\times$ a 10 Hz signal, which
# is the 10 Hz source itself when $v = 1$ and an independent copy with the same spectrum when
# $v = 0$ — every channel's spectrum is the same in both classes, only the phase relation
# between two regions differs, a task where the structure of the grid matters. Subjects
# differ by per-channel gains ($\pm 20\%$) and source positions jittered by 1 cm. Training and
# test subjects are disjoint: every score below is **subject-independent**. The held-out
# subjects are recorded with biosemi64, whose 32 extra electrodes serve the montage test.

# %%
centres = eeg.separated_centres(5, MIN_SEP, rng, z_min=pos[:, 2].min())
names64, pos64 = eeg.montage("biosemi64")
sim = {"rho": RHO, "conduction": CONDUCTION, "coupling": COUPLING, "seed": SEED}
train = eeg.simulate_eeg(pos, centres, SUBJECTS_TRAIN, WINDOWS, **sim)
test = eeg.simulate_eeg(
    pos64, centres, SUBJECTS_TEST, WINDOWS, first_subject=SUBJECTS_TRAIN, **sim
)
assert not set(train.subject) & set(test.subject)  # split by subject, never by window
in32 = np.array([names64.index(n) for n in names])  # biosemi32 inside biosemi64
new = np.array([i for i, n in enumerate(names64) if n not in names])  # the 32 others
x_train, x_test64 = eeg.patchify(train.x, PATCH), eeg.patchify(test.x, PATCH)
x_test = x_test64[:, in32]
func = train.functional
print(
    f"{len(train.y)} training windows ({SUBJECTS_TRAIN} subjects), {len(test.y)} test"
)
print("functional region sizes:", np.bincount(func).tolist())

# %% [markdown]
# ### 19.1 · The mask is exact
#
# *Claim* ({prf:ref}`rector-prop-exact`): attention with the region block mask equals attention
# computed separately inside each (region, patch) block, and puts exactly zero weight outside
# the blocks. We compare the masked SDPA with the blockwise reference in float64 on random
# queries, and read the weights off a hand-written masked softmax. The control hands the
# same mask to `torch.nn.MultiheadAttention`, whose boolean mask marks **blocked** entries
# with `True`: the two PyTorch conventions are opposite, and the mistake inverts the mask.

# %%
qd, kd, vd = (
    torch.randn(T, C, ATTN_D, generator=g, dtype=torch.float64) for _ in range(3)
)
M = eeg.block_mask(anat, T)
flat64 = [t.reshape(T * C, -1) for t in (qd, kd, vd)]
ref64 = blockwise_attention_reference(qd, kd, vd, anat)
got64 = eeg.masked_attention(*flat64, M).reshape(T, C, -1)
scores = flat64[0] @ flat64[1].T / np.sqrt(ATTN_D)
weights = torch.softmax(scores.masked_fill(~M, -torch.inf), dim=-1)
mha = torch.nn.MultiheadAttention(
    ATTN_D, 1, bias=False, batch_first=True, dtype=torch.float64
)
with torch.no_grad():
    # the same q, k, v through MultiheadAttention's own (identity) projections
    for w in (mha.in_proj_weight, mha.out_proj.weight):
        w.copy_(torch.eye(ATTN_D).repeat(w.shape[0] // ATTN_D, 1))
    wrong, w_wrong = mha(*(t[None] for t in flat64), attn_mask=M)
inside_wrong = float(w_wrong[0][M].sum() / (T * C))
print(f"max |masked − blockwise| = {float((got64 - ref64).abs().max()):.0e}")
print(f"MultiheadAttention, same mask: weight inside the blocks {inside_wrong:.1f}")

# %% tags=["claim"]
# fails if: the mask leaked weight across regions or patches, or misassembled blocks
exact_err = max(float((got64 - ref64).abs().max()), float(weights[~M].abs().max()))
wrong_err = float((wrong[0].reshape(T, C, -1) - ref64).abs().max())
icml26.claim(
    "19.1",
    "masked attention = blockwise attention (float64, max error)",
    exact_err,
    at_most=1e-10,
    kind="theorem",
    control=wrong_err,
    control_label="MultiheadAttention with the same mask",
    digits=1,
)

# %% [markdown]
# ### 19.2 · Spectral clustering recovers blocks exactly
#
# *Claim* ({prf:ref}`rector-lem-spectral`, the step the adaptive partition rests on): on an
# affinity that is exactly block-diagonal with positive blocks, normalised spectral
# clustering recovers the blocks — every time, whatever the blocks' sizes and strengths.
# We draw 50 such affinities (5 blocks of 2 to 11 channels, each block's weights scaled by
# its own strength in $[0.05, 1]$, like regions near and far from a source) and count those
# not recovered exactly. The control drops the degree normalisation $D^{-1/2} \cdot D^{-1/2}$:
# then a strong block's second eigenvalue can exceed a weak block's first, the top $k$
# eigenvectors no longer hold one per block, and recovery fails — the hypothesis the proof
# uses (every block's leading eigenvalue is exactly 1) is what the normalisation buys.


# %% tags=["claim"]
# fails if: the clustering skipped the degree normalisation, or misassembled the blocks
def unnormalised_partition(W, k, seed=SEED):
    """The broken variant: top-k eigenvectors of W itself, rows normalised, k-means."""
    from sklearn.cluster import KMeans

    U = np.linalg.eigh(W)[1][:, -k:]
    U /= np.maximum(np.linalg.norm(U, axis=1, keepdims=True), 1e-12)
    return KMeans(k, n_init=10, random_state=seed).fit_predict(U)


gen = np.random.default_rng(SEED)
missed = {"normalised": 0, "unnormalised": 0}
for _ in range(50):
    truth = np.repeat(np.arange(5), gen.integers(2, 12, 5))
    A = gen.uniform(0.5, 1.0, (len(truth), len(truth)))
    W = (A + A.T) / 2 * gen.uniform(0.05, 1.0, 5)[truth][:, None]
    W = (W + W.T) / 2 * (truth[:, None] == truth[None])
    for name, fn in [
        ("normalised", eeg.spectral_partition),
        ("unnormalised", unnormalised_partition),
    ]:
        missed[name] += adjusted_rand_score(truth, fn(W, 5)) < 1
icml26.claim(
    "19.2",
    "block-diagonal affinities not recovered exactly, of 50",
    missed["normalised"],
    at_most=0,
    kind="theorem",
    control=missed["unnormalised"],
    control_label="without the degree normalisation",
)

# %% [markdown]
# ### The cost
#
# {prf:ref}`rector-prop-cost` counts the scores of one layer: $T\sum n_\rho^2 + TR^2 + RT^2$.
# The three masks the library builds from the montage allow exactly that many entries — an
# identity any correct construction satisfies, so it is checked as an assertion — and on
# biosemi32 with $T = 8$ that is 27 times fewer than dense attention. The paper's efficiency
# claim is this saving; the figure shows where it comes from.

# %%
m_chan, m_reg, m_time = eeg.level_masks(anat, T)
counted = int(m_chan.sum() + m_reg.sum() + m_time.sum())
formula, dense = eeg.attention_cost(np.bincount(anat), T)
assert counted == formula, (counted, formula)
print(
    f"counted {counted} = formula {formula}; dense {dense}; {dense / counted:.1f}× less"
)
# %% tags=["hide-input"] mystnb={"figure": {"caption": "Which query-key pairs each scheme scores, on biosemi32 with T = 8 (black: scored). Left, dense attention over all 256 channel-time tokens; middle, the region block mask (channels sorted by region: one small block per region and patch); right, the two region-level masks (same patch, then same region across patches) on the 56 region tokens. Titles give the counts.", "name": "rector-fig-mask"}}
order = np.argsort(anat, kind="stable")
perm = (torch.arange(T)[:, None] * C + torch.as_tensor(order)[None]).reshape(-1)
fig, axes = plt.subplots(1, 3, figsize=(7.4, 2.7))
axes[0].imshow(np.ones((T * C, T * C)), cmap="Greys", vmin=0, vmax=1)
axes[0].set_title(f"dense: {dense:,}")
axes[1].imshow(m_chan[perm][:, perm].numpy(), cmap="Greys", interpolation="nearest")
axes[1].set_title(f"channel level: {int(m_chan.sum()):,}")
axes[2].imshow((m_reg | m_time).numpy(), cmap="Greys", interpolation="nearest")
axes[2].set_title(f"region + time: {int(m_reg.sum() + m_time.sum()):,}")
for a, lab in zip(
    axes, ["channel-time token", "channel-time token", "region-time token"], strict=True
):
    a.set_xlabel(f"key ({lab})")
    a.set_xticks([])
    a.set_yticks([])
axes[0].set_ylabel("query")
fig.suptitle(
    f"RECTOR-SA scores {counted:,} entries, {dense / counted:.0f}× fewer than dense"
)
plt.show()

# %% [markdown]
# ### Pre-training, and the encoders it is compared with
#
# For each of three seeds (five at the paper scale), two encoders of the same
# architecture ({prf:ref}`rector-def-layer`, width 32, one layer, two heads, position-based
# channel embeddings) are pre-trained on the training subjects' windows with the loss
# {eq}`rector-eq-loss`: one with the structured masking of {prf:ref}`rector-def-views`
# (region, channel and time masks), one with time masks only (the ablation of claim 19.6).
# Both start from anatomical regions and move to the adaptive partition of
# {prf:ref}`rector-def-afp`, updated every 12 steps with $\eta$ rising linearly to 1 at the
# last update, 12 steps before the end: the encoder is tested through the partition its
# last steps were trained with, never through one drawn after its last gradient step. The
# **control of every downstream claim** is the same encoder at its random initialisation —
# the starting point of the pre-trained one, with the anatomical partition.

# %%
MASKS = {"masked": ("region", "channel", "time"), "time-only": ("time",)}


def new_encoder(seed):
    torch.manual_seed(seed)
    return eeg.RectorEncoder(PATCH, T, d=D_MODEL, layers=LAYERS).to(DEVICE)


t0 = time.process_time()
models = {}  # seed -> {name: (encoder, regions)}
pre = {}  # seed -> {name: PretrainResult}
for seed in icml26.progress(SEEDS, desc="seeds"):
    models[seed] = {"random init": (new_encoder(seed).eval(), anat)}
    pre[seed] = {}
    for name, kinds in MASKS.items():
        enc = new_encoder(seed)
        pre[seed][name] = eeg.pretrain(
            enc,
            x_train,
            pos,
            anat,
            steps=STEPS,
            batch=BATCH,
            kinds=kinds,
            seed=seed,
            k_functional=K_FUNCTIONAL,
            afp_every=AFP_EVERY,
            lr=LR,
            fs=FS,
            band=PLV_BAND,
        )
        models[seed][name] = (enc, pre[seed][name].regions)
t_pre = time.process_time() - t0
h = np.mean([pre[s]["masked"].history for s in SEEDS], axis=0)  # mean over seeds
first, last = h[:10].mean(0), h[-10:].mean(0)
print(f"structured masks, mean of {len(SEEDS)} seeds, first → last 10 steps:")
print(f"  masked prediction {first[1]:.2f} → {last[1]:.2f}")
print(f"  topology {first[2]:.2f} → {last[2]:.2f}")
print(f"  cross-view {first[3]:.1f} → {last[3]:.1f}")
fifth = STEPS // 5
late, before = h[-fifth:, 0], h[-2 * fifth : -fifth, 0]
change = late.mean() / before.mean() - 1
# twice the standard error of that move, from the step-to-step scatter of the loss; the
# criterion was set after seeing both scales
noise = 2 * np.hypot(late.std(ddof=1), before.std(ddof=1)) / np.sqrt(fifth)
noise /= before.mean()
state = "flattened" if abs(change) + noise < 0.02 else "not flattened"
print(f"  total loss, last fifth of the steps vs the fifth before: {change:+.0%}")
print(f"  (± {noise:.0%}: {state}; flattened is a move under 2 %, noise included)")

# %% tags=["nbval-ignore-output"]
print(f"pre-training {2 * len(SEEDS)} encoders: {t_pre:.0f} s of CPU time")

# %% tags=["hide-input"] mystnb={"figure": {"caption": "The three pre-training objectives (mean of three seeds, moving averages over 10 steps) for structured masks (solid) and time masks only (dashed): masked prediction (MSE of z-scored patches; 1 is predicting zero), topology (squared error of the predicted correlation graph) and cross-view InfoNCE (dotted: chance level log B). Grey lines mark partition updates. None of the curves has flattened: at this scale the encoders are trained for a few seconds, not to convergence.", "name": "rector-fig-losses"}}
fig, axes = plt.subplots(1, 3, figsize=(7.4, 2.6))
kern = np.ones(10) / 10
for a, col, title in zip(
    axes, [1, 2, 3], ["masked prediction", "topology", "cross-view"], strict=True
):
    for n, style in [("masked", "-"), ("time-only", "--")]:
        curve = np.mean([pre[s][n].history[:, col] for s in SEEDS], axis=0)
        a.plot(np.convolve(curve, kern, mode="valid"), style, label=n)
    a.set_title(title, fontsize=9)
    a.set_xlabel("step")
    for s in range(AFP_EVERY, STEPS + 1, AFP_EVERY):
        a.axvline(s, c="0.85", lw=0.6)
axes[0].set_ylabel("loss")
axes[2].axhline(np.log(BATCH), ls=":", c="0.5")
axes[0].legend(fontsize=8)
fig.suptitle("Pre-training losses (structured masks vs time masks)")
plt.show()
# %% [markdown]
# ### 19.3–19.4 · Functional regions from phase-locking
#
# *Claim* (the paper: the partition "evolves from static anatomical definitions to adaptive
# functional regions"): the adaptive partition at the end of pre-training ($\eta = 1$:
# spectral clustering of the phase-locking graph {eq}`rector-eq-plv` of the windows seen)
# agrees with the true functional regions, $\mathrm{ARI} \ge 0.6$ (19.3), and beats the
# anatomical partition by at least $0.2$ (19.4). The phase-locking graph is a property of
# the data, so the claims are decided over five simulated **cohorts** (source positions and
# subjects drawn anew), ten subjects each, by the one-sided 95 % bound of the mean. Their
# control is the baseline the paper's measure must beat: the same spectral clustering of the
# raw windows' mean $|$correlation$|$. Where it passes too, phase-locking is no better
# evidence of RECTOR's partition than clustering the raw data.


# %%
def cohort_scores(cohort, conduction):
    """ARI against the functional regions: anatomy, the PLV partition, raw |corr|."""
    gen = np.random.default_rng(cohort)
    ctr = eeg.separated_centres(5, MIN_SEP, gen, z_min=pos[:, 2].min())
    sim_c = {**sim, "seed": cohort, "conduction": conduction}
    d = eeg.simulate_eeg(pos, ctr, COHORT_SUBJECTS, WINDOWS, **sim_c)
    afp = eeg.adaptive_partition(
        anat, eeg.plv(d.x, FS, PLV_BAND), 1.0, K_FUNCTIONAL, seed=cohort
    )
    raw = eeg.spectral_partition(
        eeg.mean_abs_correlation(d.x), K_FUNCTIONAL, seed=cohort
    )
    return [adjusted_rand_score(d.functional, p) for p in (anat, afp, raw)]


ari = np.array([cohort_scores(c, CONDUCTION) for c in COHORTS])  # (cohort, method)
ari_vc0 = np.array([cohort_scores(c, 0.0) for c in COHORTS])
print("ARI with the functional regions, by cohort:")
for label, col in [("anatomical", 0), ("phase-locking (PLV)", 1), ("raw |corr|", 2)]:
    print(f"  {label:>20}: " + " ".join(f"{a:.2f}" for a in ari[:, col]))
print("without volume conduction (σ_vc = 0):")
for label, col in [("phase-locking (PLV)", 1), ("raw |corr|", 2)]:
    print(f"  {label:>20}: " + " ".join(f"{a:.2f}" for a in ari_vc0[:, col]))

# %% tags=["claim"]
# fails if: the partition stayed anatomical or clustered noise instead of phase-locking
icml26.claim(
    "19.3",
    "ARI(adaptive PLV partition, functional regions)",
    seeds=ari[:, 1],
    rule="mean-ci",
    at_least=0.6,
    control=ari[:, 2],
    control_label="raw |corr| clustering",
    tuned="σ_vc = 2 cm, after a first run",
)

# %% tags=["claim"]
# fails if: regions re-drawn from phase-locking did no better than the anatomical prior
icml26.claim(
    "19.4",
    "ARI gain of the adaptive PLV partition over anatomy",
    seeds=ari[:, 1] - ari[:, 0],
    rule="mean-ci",
    at_least=0.2,
    control=ari[:, 2] - ari[:, 0],
    control_label="raw |corr| clustering",
    tuned="σ_vc = 2 cm, after a first run",
)

# %% [markdown]
# How much does the choice of connectivity matter, and does the encoder's own similarity do
# better? The pre-training cohort (the first above, with all its training subjects) shows the
# partitions visited during pre-training, and the partition drawn from the pre-trained
# encoder's graph $|HH^\top|$ ({func}`~icml26.neuro.partition.learned_affinity`) — once with
# the encoder reading its final partition, once with all channels in one region, so that the
# partition cannot shape the similarity — against the same for the random initialisation.


# %%
def learned_partition_ari(enc, regions):
    """ARIs of the partition drawn from the encoder's |HHᵀ|: with the truth and with the
    partition the encoder read; and the truth ARI when it reads one single region."""
    out = []
    for r in (regions, np.zeros(C, dtype=np.int64)):
        W = eeg.learned_affinity(enc, x_train[::8], pos, r)
        out.append(eeg.spectral_partition(W, K_FUNCTIONAL, seed=SEED))
    own, flat = out
    return [
        adjusted_rand_score(func, own),
        adjusted_rand_score(regions, own),
        adjusted_rand_score(func, flat),
    ]


visited = [adjusted_rand_score(func, p) for p in pre[SEED]["masked"].partitions]
print("ARI of the partitions visited (seed 19):", " ".join(f"{a:.2f}" for a in visited))
print(f"partition from the encoder's |HHᵀ| (mean of {len(SEEDS)} seeds), ARI with:")
print("              truth  own partition  truth, one region")
for name in ("masked", "random init"):
    a = np.mean([learned_partition_ari(*models[s][name]) for s in SEEDS], axis=0)
    print(f"{name:>12}  {a[0]:.2f}   {a[1]:.2f}           {a[2]:.2f}")


# %% [markdown]
# Two readings of the table. The partition drawn from the encoder's similarity, with the
# encoder reading its current partition, reproduces that partition wholly (pre-trained) or
# largely (random, reading anatomy) rather than the functional regions: the fixed point of
# the learned variant of {prf:ref}`rector-def-afp`. With the partition taken away (one region), the pre-trained encoder's similarity
# recovers the functional regions no better than the random one's: at this scale the
# encoder's channel similarity is a smoothed copy of the data's correlation, which random
# filters of correlated signals already give.


# %% tags=["hide-input"] mystnb={"figure": {"caption": "biosemi32 seen from above (nose up), coloured by region: left, the anatomical partition by electrode name; middle, the simulated functional regions (nearest source; crosses mark the source centres); right, the adaptive partition at the end of pre-training (seed 19), spectral clustering of the phase-locking graph, relabelled to match the functional one. Electrodes far from every source carry little functional signal and are the ones it misplaces.", "name": "rector-fig-montage"}}
def topo(p):
    """Azimuthal projection of head positions onto the plane (nose up)."""
    u = p / np.linalg.norm(p, axis=1, keepdims=True)
    theta = np.arccos(np.clip(u[:, 2], -1, 1))
    phi = np.arctan2(u[:, 1], u[:, 0])
    return theta * np.cos(phi), theta * np.sin(phi)


fig, axes = plt.subplots(1, 3, figsize=(7.4, 2.8))
panels = [
    ("anatomical", anat),
    ("functional (truth)", func),
    ("adaptive, end", eeg.align_labels(pre[SEED]["masked"].regions, func)),
]
xy = topo(pos)
for a, (title, lab) in zip(axes, panels, strict=True):
    a.add_patch(plt.Circle((0, 0), np.pi / 2 + 0.1, fill=False, color="0.6"))
    a.scatter(
        *xy, c=lab, cmap="tab10", vmin=0, vmax=9, s=60, edgecolors="k", linewidths=0.4
    )
    ari_t = adjusted_rand_score(func, lab)
    a.set_title(f"{title}\nARI vs truth {ari_t:.2f}", fontsize=9)
    a.set_aspect("equal")
    a.axis("off")
axes[1].scatter(*topo(centres), marker="x", c="k", s=50)
fig.suptitle("Regions on the scalp: anatomy, function, and the adaptive partition")
plt.show()

# %% [markdown]
# ### 19.5 · Pre-training and a subject-independent probe
#
# *Claim* (the paper: state-of-the-art weighted F1 in the subject-independent setting, with
# self-supervised pre-training as the engine): a logistic-regression probe on frozen
# embeddings (mean and standard deviation of the final channel tokens) of the pre-trained
# encoder reaches a weighted $F_1$ for arousal at least $0.10$ above the same probe on the
# same encoder at its random initialisation, at every seed. The margin was fixed before any
# run. The control is the ablation: the gain of the encoder pre-trained with time masks only.
# The classical baseline — log band powers per channel, logistic regression — is reported
# beside it, without a claim to beat it.


# %%
def scores(seed):
    """Per model: arousal F1 (mean/std read-out), the F1 lost with DROP_FRACTION of the
    channels removed, the training embeddings and the graph read-outs (for 19.8)."""
    out = {}
    for name, (enc, regions) in models[seed].items():
        h_tr, h_te = (eeg.encode(enc, x, pos, regions) for x in (x_train, x_test))
        z_tr = eeg.pooled(h_tr)
        f1 = eeg.probe_f1(z_tr, train.y, eeg.pooled(h_te), test.y)
        kw = {"fraction": DROP_FRACTION, "patterns": DROP_PATTERNS, "seed": seed}
        dropped = eeg.removal_f1(enc, z_tr, train.y, x_test, test.y, pos, regions, **kw)
        graphs = [eeg.graph_upper(h) for h in (h_tr, h_te)]
        out[name] = {
            "graphs_t": [eeg.graph_upper(h, over_time=True) for h in (h_tr, h_te)]
        }
        z_reg = [region_pooled(h) for h in (h_tr, h_te)]
        f1_reg = eeg.probe_f1(z_reg[0], train.y, z_reg[1], test.y, C=0.1)
        out[name] |= {"f1": f1, "drop": f1 - dropped, "z_train": z_tr, "graphs": graphs}
        out[name]["f1_region"] = f1_reg
    return out


def region_pooled(h):
    """A finer read-out: mean and std of the tokens of each anatomical region."""
    parts = [h[:, :, anat == r] for r in range(anat.max() + 1)]
    return np.concatenate([eeg.pooled(p) for p in parts], 1)


res = {s: scores(s) for s in icml26.progress(SEEDS, desc="probes")}
NAMES = ("masked", "time-only", "random init")
f1 = {n: np.array([res[s][n]["f1"] for s in SEEDS]) for n in NAMES}
bp = [
    eeg.band_power_features(x.reshape(len(x), C, -1).numpy(), FS)
    for x in (x_train, x_test)
]
f1_bp = eeg.probe_f1(bp[0], train.y, bp[1], test.y, C=0.1)
print(f"arousal, weighted F1 on held-out subjects (seeds {SEED_LIST}):")
for n in NAMES:
    print(f"  {n:>12}: " + " ".join(f"{v:.2f}" for v in f1[n]))
print(f"  {'band power':>12}: {f1_bp:.3f} (z-scored windows, as the encoders see them)")

# %% tags=["claim"]
# fails if: pre-training taught the encoder nothing its random initialisation lacks
icml26.claim(
    "19.5",
    "arousal probe F1: pre-trained − random-init encoder",
    seeds=np.round(f1["masked"] - f1["random init"], 2),  # printed range portable
    at_least=0.10,
    control=np.round(f1["time-only"] - f1["random init"], 2),
    control_label="time-mask ablation",
    tuned=TUNED_ENCODERS,
    digits=2,
)

# %% [markdown]
# ### 19.6 · Missing channels, zero-shot
#
# *Claim* (the paper: strong robustness to missing channels): removing 25 % of the channels
# at test time — their tokens left out, the probe unchanged — costs the structurally-masked
# encoder at most half the $F_1$ it costs the same architecture pre-trained with time masks
# only (averaged over random drop patterns, three per seed at this scale; decided at the
# worst seed). The claim is tested as written, $\Delta_{\text{masked}} - \tfrac12
# \Delta_{\text{time}} \le 0$, not as the ratio $\Delta_{\text{masked}} /
# \Delta_{\text{time}} \le \tfrac12$: the two agree while the ablation loses $F_1$, but the
# ratio turns an ablation that loses nothing — or, by the noise of a few drop patterns, a
# little less than nothing — into a pass. The control is the random initialisation in
# place of the structurally-masked encoder: one no more robust than an untrained encoder
# has learned nothing about missing channels.

# %%
drop = {n: np.array([res[s][n]["drop"] for s in SEEDS]) for n in NAMES}
print(f"F1 lost with 25 % of the channels removed (seeds {SEED_LIST}):")
for n in NAMES:
    print(f"  {n:>12}: " + " ".join(f"{v:+.2f}" for v in drop[n]))

# %% tags=["claim"]
# fails if: structured masking gave no extra robustness to removed channels
icml26.claim(
    "19.6",
    "F1 drop with 25% removed: structured − half the time-mask one",
    seeds=np.round(drop["masked"] - drop["time-only"] / 2, 2),  # printed range portable
    at_most=0.0,
    control=np.round(drop["random init"] - drop["time-only"] / 2, 2),
    control_label="random init",
    tuned=TUNED_ENCODERS,
    digits=2,
)

# %% [markdown]
# ### 19.7 · A montage the model has never seen
#
# *Claim* (the paper: cross-montage generalisation): the encoder pre-trained on biosemi32,
# with the probe trained on biosemi32 embeddings, classifies held-out subjects recorded
# **only** on the 32 biosemi64 electrodes that biosemi32 lacks (AF7, Fpz, FT7, TP8, Iz, …; no
# name in common, positions in between) with weighted $F_1 \ge 0.65$ at every seed. The new
# channels' regions are those of their nearest training electrode. The classic 19 channels
# of the 10–20 system would not do: all of them are biosemi32 electrodes, so that would be a
# channel-drop test. An encoder with an **index** channel embedding cannot even be applied to
# the new set — shown first. The control is the random initialisation, which has position
# embeddings too.

# %%
idx_enc = eeg.RectorEncoder(
    PATCH, T, d=D_MODEL, channel_embedding="index", vocabulary=names
)
try:
    idx_enc(
        x_test64[:2, new],
        torch.as_tensor(pos64[new], dtype=torch.float32),
        anat[: len(new)],
        names=[names64[i] for i in new],
    )
    applicable = True
except ValueError as err:
    applicable = False
    print("index embedding:", err)
assert not applicable


def new_montage_f1(seed, name):
    enc, regions = models[seed][name]
    r_new = eeg.assign_by_nearest(pos64[new], pos, regions)
    z_new = eeg.embed(enc, x_test64[:, new], pos64[new], r_new)
    return eeg.probe_f1(res[seed][name]["z_train"], train.y, z_new, test.y)


MONTAGE_NAMES = ("masked", "random init")
f1_new = {n: np.array([new_montage_f1(s, n) for s in SEEDS]) for n in MONTAGE_NAMES}
print(f"weighted F1 on the 32 unseen electrodes (seeds {SEED_LIST}):")
for n in MONTAGE_NAMES:
    print(f"  {n:>12}: " + " ".join(f"{v:.2f}" for v in f1_new[n]))

# %% tags=["claim"]
# fails if: position embeddings did not generalise to electrodes outside the montage
icml26.claim(
    "19.7",
    "weighted F1 on 32 unseen biosemi64 electrodes",
    seeds=f1_new["masked"],
    at_least=0.65,
    control=f1_new["random init"],
    control_label="random init",
    tuned=TUNED_ENCODERS,
    digits=2,
)
# %% [markdown]
# ### 19.8 · A task where the structure matters
#
# Arousal changes each channel's spectrum, which a random network's patch projections (a
# bank of random filters) already expose to a linear probe. Valence changes only the phase
# relation between two regions: band powers are blind to it, and what should read it is the
# encoder's connectivity graph $HH^\top$ — exactly what the topology objective trains.
# *Claim* (the paper's premise that the pre-training objectives capture structure a probe can
# use): a logistic-regression probe on the upper triangle of the pre-trained encoder's graph
# ({func}`~icml26.neuro.probe.graph_features`) decodes valence with a weighted $F_1$ at least
# $0.10$ above the same probe on the random initialisation, at every seed; control: the
# time-mask ablation. The raw windows' correlation graph, a property of the data, is the
# reference of what can be read.


# %%
def raw_graph(x):
    """Upper triangle of each window's channel correlation."""
    iu = np.triu_indices(C, 1)
    return np.array([np.corrcoef(w)[iu] for w in x.reshape(len(x), C, -1).numpy()])


def valence_f1(seed, name, graph="graphs"):
    """Valence F1 of a probe on an encoder's graph read-out ("graphs": time-pooled)."""
    g_tr, g_te = res[seed][name][graph]
    return eeg.probe_f1(g_tr, train.v, g_te, test.v, C=0.1)


f1_v = {n: np.array([valence_f1(s, n) for s in SEEDS]) for n in NAMES}
g_raw = [raw_graph(x) for x in (x_train, x_test)]
f1_v_raw = eeg.probe_f1(g_raw[0], train.v, g_raw[1], test.v, C=0.1)
f1_v_bp = eeg.probe_f1(bp[0], train.v, bp[1], test.v, C=0.1)
print(f"valence, weighted F1 of the graph read-out (seeds {SEED_LIST}):")
for n in NAMES:
    print(f"  {n:>12}: " + " ".join(f"{v:.2f}" for v in f1_v[n]))
print(f"  raw correlation graph {f1_v_raw:.3f}; band power {f1_v_bp:.3f}")

# %% tags=["claim"]
# fails if: the topology objective left no trace of the window's coupling in the encoder
icml26.claim(
    "19.8",
    "valence graph-probe F1: pre-trained − random-init encoder",
    seeds=np.round(f1_v["masked"] - f1_v["random init"], 2),  # printed range portable
    at_least=0.10,
    control=np.round(f1_v["time-only"] - f1_v["random init"], 2),
    control_label="time-mask ablation",
    tuned=TUNED_ENCODERS,
    digits=2,
)

# %% tags=["hide-input"] mystnb={"figure": {"caption": "Weighted F1 on held-out subjects for the three downstream tests, one dot per seed: the encoder pre-trained with structured masks, with time masks only, and the same encoder at its random initialisation. Grey lines: band powers for arousal, the raw correlation graph for valence, chance at 0.5. No pre-trained encoder rises more than a few hundredths above its random initialisation.", "name": "rector-fig-downstream"}}
tests = [
    ("arousal\n(mean/std probe)", f1, f1_bp),
    ("valence\n(graph probe)", f1_v, f1_v_raw),
    ("arousal, 32 unseen\nelectrodes", f1_new, None),
]
fig, ax = plt.subplots(figsize=(6.4, 3.2))
for i, (_, vals, ref_line) in enumerate(tests):
    for j, n in enumerate(NAMES):
        if n not in vals:
            continue
        xs = np.full(len(SEEDS), i + (j - 1) * 0.22)
        label_n = n if i == 0 else None
        ax.scatter(xs, vals[n], color=icml26.plotting.color(j), s=30, label=label_n)
    if ref_line is not None:
        ax.hlines(ref_line, i - 0.4, i + 0.4, colors="0.5", linestyles="--")
ax.axhline(0.5, ls=":", c="0.6")
ax.set_xticks(range(len(tests)), [t[0] for t in tests])
ax.set_ylabel("weighted $F_1$ (held-out subjects)")
ax.set_title("Pre-trained encoders against their random initialisation")
ax.legend(fontsize=8, loc="upper right")
plt.show()

# %% [markdown]
# ### Why pre-training does not help here
#
# Before concluding anything about the paper, five measurements of the experiment itself.
#
# **Were the encoders trained?** Not at this scale: the total loss has not flattened when
# pre-training stops (the criterion printed under the loss curves). The `paper` scale
# trains the same encoders on twice the subjects until the loss has flattened, and its
# record (under Limits) answers the question this section must ask first. Trained, the
# structurally-masked encoders come close on 19.8 — the valence probe of their
# connectivity graph gains 0.08 to 0.15 over the random initialisation across five seeds
# (about 0.11 on average), while the time-mask ablation gains at most 0.05 — so most of the
# distance to 19.8 here is a matter of budget, but not all of it: two seeds stay just
# under the margin. They still fail 19.5–19.7. Is the encoder too small? The paper's are
# deep transformers. Two layers of width 64 (seven times the parameters), trained as long,
# move 19.8 alone: the valence gain becomes 0.18, 0.098 and 0.14 at three seeds, at the
# margin at the worst, not clearly past it, while arousal and the unseen montage stay at or
# below the random initialisation ({ref}`rector-ex-capacity`). The four measurements that
# follow are made on this scale's encoders; the text says where the trained ones differ.
#
# **What did masked prediction learn?** The next cell scores each structurally-masked
# encoder's own decoder on the held-out windows, one mask kind at a time
# ({func}`~icml26.neuro.pretrain.masked_prediction_error`). Two references frame it. The
# trivial one predicts zero, the mean of a z-scored patch (error about 1). The other is the
# best *linear* prediction from what the architecture lets reach a masked token at the same
# instant, fitted on the training subjects: a channel masked over all patches is seen by the
# other channels of its region (the channel attention); a masked region is seen by nothing
# in its own block, only through the means of the other regions (the region tokens); a
# span masked on every channel leaves nothing at that instant, and the channel's own
# previous patch is all there is. The second reference tests a worry about the design —
# that within-region attention leaves a masked region nothing to predict from.


# %%
def linear_floor(x_fit, x_eval, regions):
    """Error (1 − R², mean over channels) on x_eval of the least-squares prediction of
    each z-scored channel at the same instant: from the other channels of its region,
    from the means of the other regions, and from every channel outside its region."""
    a, b = (
        x.reshape(len(x), C, -1).double().numpy().transpose(0, 2, 1).reshape(-1, C)
        for x in (x_fit, x_eval)
    )
    onehot = np.eye(regions.max() + 1)[regions][:, np.bincount(regions) > 0]
    ma, mb = (f @ onehot / onehot.sum(0) for f in (a, b))

    def error(src, c):
        if len(src) == 0:
            return 1.0
        w = np.linalg.lstsq(src[0], a[:, c], rcond=None)[0]
        return ((src[1] @ w - b[:, c]) ** 2).mean() / b[:, c].var()

    out = []
    for c in range(C):
        same = (regions == regions[c]) & (np.arange(C) != c)
        other = onehot[c] == 0  # the other regions
        outside = regions != regions[c]
        out.append(
            [
                error([a[:, same], b[:, same]] if same.any() else [], c),
                error([ma[:, other], mb[:, other]], c),
                error([a[:, outside], b[:, outside]], c),
            ]
        )
    return np.mean(out, 0)


def previous_patch_error(x_fit, x_eval):
    """Error of the least-squares prediction of a patch from its previous one."""
    pa, pb = (x.double().numpy().reshape(-1, T, PATCH) for x in (x_fit, x_eval))
    w = np.linalg.lstsq(
        pa[:, :-1].reshape(-1, PATCH), pa[:, 1:].reshape(-1, PATCH), rcond=None
    )[0]
    nxt, prev = pb[:, 1:].reshape(-1, PATCH), pb[:, :-1].reshape(-1, PATCH)
    return float(((prev @ w - nxt) ** 2).mean() / nxt.var())


KINDS = ("channel", "region", "time")
mpm_err = {k: [] for k in KINDS}
mpm_zero = {k: [] for k in KINDS}
floor = []
for s in SEEDS:
    enc, regions = models[s]["masked"]
    gm = torch.Generator().manual_seed(s)
    for k in KINDS:
        m = eeg.structured_mask(len(x_test), regions, T, (k,), gm)
        e, z = eeg.masked_prediction_error(
            enc, pre[s]["masked"].heads["decoder"], x_test, pos, regions, m
        )
        mpm_err[k].append(e)
        mpm_zero[k].append(z)
    floor.append(linear_floor(x_train[::8], x_test, regions))
floor = np.mean(floor, 0)
best = {
    "channel": f"{floor[0]:.2f} (its region's channels)",
    "region": f"{floor[1]:.2f} (other regions' means; their channels {floor[2]:.2f})",
    "time": f"{previous_patch_error(x_train[::8], x_test):.2f} (its previous patch)",
}
print(
    "masked-prediction error, held-out windows (structured masks, mean of "
    f"{len(SEEDS)} seeds):"
)
print("  mask kind  predict 0  encoder  best linear predictor, same instant")
for k in KINDS:
    print(
        f"  {k:>9}  {np.mean(mpm_zero[k]):9.2f}  {np.mean(mpm_err[k]):7.2f}  {best[k]}"
    )

# %% [markdown]
# Three different stories. On the channel masks the encoders have learned a little, far
# from what a linear map of the channel's own region achieves: the information is there
# and the channel attention can reach it, so the training budget is what is short. On the
# region masks nothing is learned, and there is almost nothing to learn. A masked region's
# channels attend only to one another, all masked, and what reaches them from outside is
# the *mean* of each other region, which predicts them barely better than zero; but even
# the other regions' individual channels would do little better, because regions that
# follow the sources share little with the rest of the scalp at the same instant. So the
# within-region attention is not what starves a masked region — the data leave it little
# to be predicted from. The time masks, about half of the masked tokens of a view, are
# unpredictable by construction. Most of the masked-prediction loss is therefore noise that
# no encoder can reduce, and what is left is learned slowly. Run longer, masked prediction
# alone does learn the channel masks — and its features then read arousal *worse* than
# random ones, because filling in a waveform from its neighbours is not what the label
# depends on ({ref}`rector-ex-longer`).
#
# **Does the topology objective read the window?** The topology loss falls, but the next
# check compares the encoder's graph on held-out windows with the crudest predictor there
# is — the training windows' mean correlation graph, the same for every window. An encoder
# that cannot beat it has learned at most the average connectivity of the montage (a
# function of electrode position) and nothing of the window in front of it, which is what
# the valence label needs. The graph is built from *time-pooled* tokens, and a window's
# correlation is a sum over time of products: an average over time of each channel's
# token cannot represent it by a linear map, so the mean graph is what this objective can
# be expected to learn ({ref}`rector-ex-longer`). The trained encoders of the paper scale
# show the limit of that argument: their graph's error stays above the mean graph's, yet
# their graphs read valence 0.08 to 0.15 better than the random initialisation's, about the
# margin of 19.8. A graph need not match each window's
# correlation entry by entry to carry the coupling of two regions.

# %%
mean_graph = g_raw[0].mean(0)  # the training windows' mean correlation graph
err_mean = float(((g_raw[1] - mean_graph) ** 2).mean())


def graph_error(name, graph="graphs"):
    """Held-out squared error of the graph against each window's correlation."""
    return np.mean([((res[s][name][graph][1] - g_raw[1]) ** 2).mean() for s in SEEDS])


err = {n: graph_error(n) for n in NAMES}
print("squared error of the predicted correlation graph, held-out windows:")
print(f"  {'mean graph':>12}: {err_mean:.3f} (the same prediction for every window)")
for n in NAMES:
    print(f"  {n:>12}: {err[n]:.3f}")

# %% [markdown]
# Would a graph that keeps time do better? Represent each channel by its whole token
# trajectory, centred over the patches, and correlate those
# ({func}`~icml26.neuro.encoder.channel_graph` with `over_time=True`): a sum over patches of
# products of tokens, which can follow a window's correlation. The same frozen encoders,
# read out through it:


# %%
f1_v_t = {n: np.array([valence_f1(s, n, "graphs_t") for s in SEEDS]) for n in NAMES}
err_t = {n: graph_error(n, "graphs_t") for n in NAMES}
print(
    f"graph of token trajectories: valence F1 (seeds {SEED_LIST}); error vs the window"
)
for n in NAMES:
    f1s = " ".join(f"{v:.2f}" for v in f1_v_t[n])
    print(f"  {n:>12}: {f1s}   {err_t[n]:.3f}")
room = f1_v_raw - f1_v_t["random init"]
print(f"raw correlation graph − random init: {room.min():.2f} to {room.max():.2f}")

# %% [markdown]
# Through the trajectory graph every encoder reads valence far better than through the
# time-pooled one — the random initialisation included, within a few hundredths of the raw
# correlation graph (printed under 19.8). Its tokens are random filters of the patches, and
# random filters of two coupled signals stay coupled. So a gain of the size 19.8 asks for
# cannot come from this graph: the room left above the random initialisation is smaller
# than the margin, and pre-training with the trajectory graph as the topology objective's
# prediction does not use what room there is ({ref}`rector-ex-longer`). It can only come
# from the time-pooled graph, which starts far below: at this budget it stays there, and
# trained until the loss flattens (the paper scale) it climbs to about the margin, not
# past it at every seed.

# %% [markdown]
# **How high can the probe's read-out reach?** The probe of 19.5 reads the mean and
# standard deviation over *all* channels and patches, so it cannot tell one electrode from
# another, while arousal changes the rhythm only near two sources. The next cell measures
# the ceiling of such channel-pooled read-outs on the data themselves: band powers averaged
# over the channels (an ideal spectral summary that, like the probe, ignores where), and
# 32 random linear filters of the patches pooled exactly like the probe — a stand-in for a
# random network's patch projection. Then the same frozen tokens read region by region
# (mean and standard deviation per anatomical region, seven times the features).

# %%
bp_pooled = [b.reshape(len(b), C, -1).mean(1) for b in bp]
f1_bp_pooled = eeg.probe_f1(bp_pooled[0], train.y, bp_pooled[1], test.y, C=0.1)
f1_filters = []
for s in SEEDS:
    W = np.random.default_rng(s).standard_normal((PATCH, D_MODEL)) / np.sqrt(PATCH)
    feats = []
    for x in (x_train, x_test):
        u = x.double().numpy() @ W  # (N, C, T, d): random filters of every patch
        feats.append(np.concatenate([u.mean((1, 2)), u.std((1, 2))], 1))
    f1_filters.append(eeg.probe_f1(feats[0], train.y, feats[1], test.y))
print("arousal, weighted F1 of read-outs that pool all channels:")
print(f"  band power, mean over channels: {f1_bp_pooled:.2f} (per channel {f1_bp:.2f})")
print("  32 random patch filters: " + " ".join(f"{v:.2f}" for v in f1_filters))
print("  random-init encoder: " + " ".join(f"{v:.2f}" for v in f1["random init"]))
print(
    "  bar of 19.5 (random init + 0.10): "
    + " ".join(f"{v + 0.10:.2f}" for v in f1["random init"])
)
print(f"arousal F1, per-region read-out (seeds {SEED_LIST}):")
for n in NAMES:
    print(f"  {n:>12}: " + " ".join(f"{res[s][n]['f1_region']:.2f}" for s in SEEDS))

# %% [markdown]
# This is the decisive measurement for 19.5. A random network's patch projection is a
# bank of random filters, and pooled over the scalp such filters read arousal about as
# well as the band powers themselves averaged over the channels — the ideal spectral
# summary that, like the probe, ignores where. At this scale that ideal reaches less than
# the bar the claim sets above the random initialisation (with the paper scale's twice as
# many training subjects it reaches about the bar, and the pre-trained encoders still do
# not). An encoder whose pooled tokens carry the local spectrum — all that masked
# prediction, topology and view consistency ask of it here — can be expected to gain less
# than the margin; only features that depend on *where* a rhythm changes could clear the
# bar, and the band powers per channel show they would. Reading the tokens region by
# region lifts every encoder by a few hundredths, and no pre-trained one gains the margin:
# anatomical regions are not where the sources are. Is the information there at all?
# Yes: band powers per channel read arousal, the raw correlation graph reads valence
# (numbers above).
#
# In short: pre-training does not help here because (i) most masked tokens cannot be
# predicted from anything the encoder sees (the time spans, and regions that share little
# with the rest of the scalp), and the predictable ones, the masked channels, are learned
# only a little at this budget — and learning them does not help the labels; (ii) the
# topology objective, built on time-pooled tokens, does not get past the montage's mean
# graph at this budget (trained to convergence it carries nearly enough of the window's
# coupling for 19.8), and a graph of token trajectories, which can follow the window,
# already reads valence at the random initialisation; (iii) on arousal, random features are
# already near the ceiling of the channel-pooled read-out, so the 19.5 margin is out of
# reach for features that do not locate the rhythm. None of the three is evidence about
# the paper's encoder.

# %% [markdown]
# ## Cross-check
#
# The established libraries compute several of the pieces: MNE's montage (used throughout),
# mne-connectivity's phase-locking value and coherence (FFT with a Hann taper, averaged over
# the band's bins — the same estimators as {func}`~icml26.neuro.connectivity.plv` and
# {func}`~icml26.neuro.connectivity.coherence`), scikit-learn's spectral clustering, and
# pyriemann's tangent-space classifier {cite}`barachant2012multiclass`, a strong classical
# baseline that reads both labels from the channel covariance.

# %%
from mne_connectivity import spectral_connectivity_epochs
from sklearn.cluster import SpectralClustering

xs = train.x[:40, :8].astype(np.float64)
tri = np.tril_indices(8, -1)
for method, ours_fn, band in [
    ("plv", eeg.plv, (8.0, 12.0)),
    ("coh", eeg.coherence, (8.0, 40.0)),
]:
    con = spectral_connectivity_epochs(
        xs,
        method=method,
        mode="fourier",
        sfreq=FS,
        fmin=band[0],
        fmax=band[1],
        faverage=True,
        verbose=False,
    )
    theirs = con.get_data(output="dense")[..., 0][tri]
    ours = ours_fn(xs, FS, band)[tri]
    icml26.checks.agree(f"{method}, ours vs mne-connectivity", ours, theirs, atol=1e-10)
    print(
        f"{method} {band[0]:.0f}–{band[1]:.0f} Hz, 8 channels: ours = mne-connectivity"
    )
W_plv = pre[SEED]["masked"].affinity
ours_sc = eeg.spectral_partition(W_plv, K_FUNCTIONAL, seed=SEED)
sk = SpectralClustering(
    K_FUNCTIONAL, affinity="precomputed", random_state=SEED
).fit_predict(W_plv)
print(
    "spectral clustering of the pre-training PLV graph, ARI vs truth: "
    f"ours {adjusted_rand_score(func, ours_sc):.2f}, scikit-learn "
    f"{adjusted_rand_score(func, sk):.2f} (with each other "
    f"{adjusted_rand_score(ours_sc, sk):.2f})"
)

# %%
from pyriemann.estimation import Covariances
from pyriemann.tangentspace import TangentSpace
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import f1_score
from sklearn.pipeline import make_pipeline

tangent = make_pipeline(Covariances("oas"), TangentSpace())
t_train = tangent.fit_transform(train.x.astype(np.float64))
t_test = tangent.transform(test.x[:, in32].astype(np.float64))
for task, label in [("arousal", "y"), ("valence", "v")]:
    clf = LogisticRegression(C=0.1, max_iter=2000).fit(t_train, getattr(train, label))
    f1_ts = f1_score(getattr(test, label), clf.predict(t_test), average="weighted")
    print(f"pyriemann tangent space + logistic regression, {task}: F1 {f1_ts:.3f}")

# %% [markdown]
# (rector-limits)=
# ## Limits of this reproduction
#
# - **No real EEG.** The paper's emotion (valence/arousal, subject-dependent and
#   subject-independent) and sEEG task-engagement benchmarks are not reproduced, and none of
#   its numbers is. The data are simulated; arousal is a spectral effect (alpha up, beta
#   down) that band powers capture, valence a coupling between two regions that the
#   covariance captures.
# - **What holds, and what does not.** The theory holds exactly: the block mask (19.1),
#   the spectral lemma behind the partition (19.2) and the cost (an identity). The
#   partition drawn from phase-locking beats anatomy in every cohort, but spectral
#   clustering of the raw correlation does as well or better (19.3 not reproduced:
#   recovery depends strongly on where the sources sit, 0.44 to 0.93 over cohorts; 19.4
#   not discriminating). Every claim about the pre-trained encoder fails against its own
#   random initialisation at this budget (19.5–19.8), where the encoders are still
#   training; trained until the loss flattens (the paper scale below), they come within a
#   few hundredths of the valence test of their connectivity graph at every seed and pass
#   it at three of five (19.8 not reproduced, at the worst seed), and fail the other
#   three. The
#   measurements above say why: most masked tokens are unpredictable from what the encoder
#   sees (time spans, and regions that share little with the rest of the scalp), and the
#   predictable masked channels are learned only a little at this budget; the topology
#   objective, a graph of time-pooled tokens, does not beat the montage's mean graph at
#   this budget, while a graph of token trajectories, which can learn each window's
#   coupling, reads valence at the random initialisation within 0.1 of the raw correlation
#   graph; and on arousal, random patch filters pooled over the scalp already reach about
#   what channel-averaged band powers reach, below the bar of 19.5. Longer training of one
#   objective at a time does not change the picture ({ref}`rector-ex-longer`); training
#   all three until the loss flattens changes it for 19.8 alone, and not quite enough. A
#   reader should take these verdicts as statements about this toy, its objectives'
#   read-outs and this budget, not about the paper.
# - **Scale.** The paper's encoders are deep transformers pre-trained on large EEG corpora;
#   here one layer of width 32 is pre-trained for 60 steps of 16 windows, and its loss has
#   not flattened when it stops. The `paper` scale (`ICML26_SCALE=paper`) pre-trains on
#   twice the subjects for 4000 steps of 32 windows, until the loss has flattened by the
#   criterion under the loss curves, with five model seeds and thirty subjects per
#   partition cohort — trained, but still a toy. The criterion's 2 % was set after seeing
#   both scales' moves (−3 % here, −1 % there); it counts the step-to-step noise of the
#   two fifths it compares, which here, over fifths of 12 steps, is as large as the move
#   itself. The other signs agree (here the topology loss halves over the run). The
#   number of steps was chosen after a run at seed 19 that met the criterion (and whose
#   valence probe we saw), so the encoder claims are marked tuned; at the paper scale's
#   earlier 600 steps the loss had not flattened and 19.8 fell short (a gain of 0.06 at
#   the worst seed). Its record follows. Trained, the encoders come
#   close on one claim: the valence graph probe gains about 0.10, 0.15 and 0.13 at the
#   first three seeds and 0.08 and 0.09 at the two added later (19.8 not reproduced at the
#   worst seed; with the first three seeds alone it sits exactly at the bar), while the
#   time-mask ablation gains at most 0.05. Arousal still gains nothing over random
#   features (19.5); the structurally-masked encoder loses more $F_1$ to missing channels
#   than the time-mask one (19.6); and on the unseen electrodes the pre-trained encoders do
#   no better than the random initialisation (19.7). A larger encoder, two layers of
#   width 64, moves 19.8 alone, to the margin at its worst seed ({ref}`rector-ex-capacity`).

# %%
from icml26.pipeline import paper

paper.show("19-rector")

# %% [markdown]
# - **A setting chosen after a first run.** The volume-conduction width $\sigma_{vc} = 2$ cm
#   was chosen after a run without conduction, so every claim on simulated data is marked
#   *tuned*. Without it, the partition test gives the ARIs printed above under "σ_vc = 0".
#   Rerunning this notebook with `CONDUCTION = 0` leaves every verdict as it is: 19.3 not
#   reproduced (mean ARI 0.56 over the cohorts), 19.4 not discriminating, 19.5–19.8 not
#   reproduced (on the unseen montage the pre-trained encoders reach F1 0.51–0.65).
# - **The end of the partition schedule.** The last partition update comes 12 steps before
#   the end of pre-training, so that every test reads an encoder through the partition it
#   was trained with. With the update at the last step instead — the encoder then never
#   trains under the partition it is tested with — the verdicts of 19.5–19.8 are the same
#   (not reproduced) and the pre-trained encoders' F1 scores move by at most 0.05.
# - **Precision.** Pre-training in float32 is not bit-reproducible across CPUs: on another
#   numeric configuration the F1 scores move by up to 0.005, with no verdict changing, so
#   these claims print every figure, their per-seed ranges included, to two significant
#   digits, and the differences of 19.5, 19.6 and 19.8 are rounded to the hundredth first.
# - **Reconstruction.** The attention levels, the partition rule and its connectivity
#   measure, the masking distribution and the losses are this chapter's instantiation of the
#   paper's component names, not its equations. The encoder's own similarity is not a usable
#   partition here (it stays at the partition it was given, a fixed point); whether the
#   paper's partition avoids that trap cannot be read from what is available.

# %% [markdown]
# ## Exercises
#
# ````{exercise} When does the hierarchy stop paying?
# :label: rector-ex-cost
#
# Using {prf:ref}`rector-prop-cost` with equal regions, find the number of regions $R$ that
# minimises $N_{\text{RECTOR}}$ for $C = 128$, $T = 8$, and the resulting saving. Check your
# answer with {func}`~icml26.neuro.attention.attention_cost`.
# ````
#
# ````{solution} rector-ex-cost
# :class: dropdown
#
# With $n = C/R$: $N(R) = T C^2/R + T R^2 + R T^2$. Treating $R$ as continuous,
# $N'(R) = -TC^2/R^2 + 2TR + T^2 = 0$, i.e. $2R^3 + T R^2 = C^2$; for $C = 128$, $T = 8$ this
# gives $R \approx 19.8$; among the divisors of 128, $R = 16$ gives
# $N = 8\cdot 128^2/16 + 8 \cdot 256 + 16 \cdot 64 = 8192 + 2048 + 1024 = 11\,264$ against
# $(1024)^2 = 1\,048\,576$, a saving of 93× ($R = 32$ gives $4096 + 8192 + 2048 = 14\,336$).
# Too few regions make the channel blocks large; too many make the region level dense.
# ````
#
# ````{exercise} The empty block
# :label: rector-ex-empty
#
# Build a mask in which one query row has no allowed key (e.g. remove the diagonal of one
# singleton region). Compare `torch.nn.functional.scaled_dot_product_attention` with a
# hand-written `softmax(scores.masked_fill(~M, -inf)) @ V` on that row. Which hypothesis of
# {prf:ref}`rector-prop-exact` fails, and how does the layer of {prf:ref}`rector-def-layer`
# avoid the situation when channels are removed?
# ````
#
# ````{solution} rector-ex-empty
# :class: dropdown
#
# The hand-written softmax returns NaN on that row ($0/0$); PyTorch's SDPA (2.x) returns
# zeros. The failing hypothesis is "every query may attend to at least one key". In the layer,
# the channel mask always contains the diagonal, a removed channel is removed as a *query* as
# well as a key, and region tokens of regions with no channel left are excluded as keys
# (their own rows still see the present regions), so no row is ever empty.
# ````
#
# ````{exercise} Zeroing is not removing
# :label: rector-ex-zero
#
# Instead of removing 25 % of the channels, replace them by zeros (after z-scoring) and feed
# all 32 to the pre-trained encoder. Predict the effect on the probe's $F_1$ before running
# it, then compare with removal. Why does the region mean of {prf:ref}`rector-def-layer`
# matter?
# ````
#
# ````{solution} rector-ex-zero
# :class: dropdown
#
# Zeros are a flat signal that no training window contains: their tokens are $W_p 0 +
# e_{\text{chan}} + \dots$, constant over time, and they pull the region means and the pooled
# embedding toward a point the probe has never seen, so $F_1$ typically falls further than with
# removal. Removal keeps every statistic an average over real channels: the region mean is
# renormalised by the number of channels present, so the pooled embedding moves only as much
# as the remaining channels differ.
# ````
#
# ````{exercise} Anatomy or function?
# :label: rector-ex-rho
#
# Regenerate the cohorts of claims 19.3–19.4 with $\rho = 4.5$ cm and with $\rho = 2$ cm
# (the `rho` argument of {func}`~icml26.neuro.simulate.simulate_eeg`) and rerun the partition
# test. Predict how the ARI of the phase-locking partition moves, using
# {prf:ref}`rector-lem-spectral`, before you run it.
# ````
#
# ````{solution} rector-ex-rho
# :class: dropdown
#
# A larger $\rho$ lets every electrode see some source, so the affinity is closer to
# block-diagonal *with* every channel in a block and the ARI tends to rise; but neighbouring
# sources overlap more, which blurs the boundaries between blocks. A smaller $\rho$ leaves
# most electrodes with only background and noise: their rows of the affinity are nearly
# uniform (the lemma's blocks are no longer positive), their cluster labels are arbitrary,
# and the ARI over all channels falls, while the channels close to a source stay correctly
# grouped. The spread over cohorts stays large in both cases: it is set by where the
# sources sit relative to the electrodes.
# ````
#
# ````{exercise} Longer pre-training, one objective at a time
# :label: rector-ex-longer
#
# Pre-train one encoder (seed 19, the chapter's data and settings) for 1000 steps with
# masked prediction alone — `weights=(1.0, 0.0, 0.0)` in
# {func}`~icml26.neuro.pretrain.pretrain` — and another with the topology objective alone,
# `weights=(0.0, 1.0, 0.0)` (about a minute each on one core). For the first, measure the
# held-out error per mask kind with {func}`~icml26.neuro.pretrain.masked_prediction_error`
# (the decoder is `result.heads["decoder"]`) and the arousal probe of 19.5; for the second,
# the held-out error of its graph against the mean graph's, and the valence probe of 19.8.
# Predict first, from the table of linear predictors above: which mask kinds can improve,
# and will a better masked prediction give a better arousal probe? Then pre-train a third
# encoder with the topology objective alone on the graph of token trajectories
# (`over_time=True`) and read valence through that graph
# (`eeg.graph_upper(h, over_time=True)`): does an objective that can learn each window's
# coupling give the margin of 19.8?
# ````
#
# ````{solution} rector-ex-longer
# :class: dropdown
#
# In our run, masked prediction alone brings the held-out error on the channel masks from
# 0.99 (predicting zero) to 0.69, on the region masks only to 0.93, and leaves the time
# masks at 1.00 — the order the linear predictors give. Its arousal probe falls to 0.64,
# below its random initialisation (0.68): interpolating waveforms is not what arousal
# depends on, and the pooled statistics of the interpolating features separate the
# classes less well than random filters do. The topology objective alone brings its
# training loss to 0.025, yet on held-out windows its graph's error is 0.040, about twice
# that of the training windows' mean graph (0.021): a graph of time-pooled tokens learns
# the montage's average connectivity, not the window's. Its valence probe reaches 0.67
# (random initialisation 0.64), and its arousal probe 0.75, about the ceiling of the
# channel-pooled read-out — still short of the bar of 19.5. The three objectives together
# for 1000 steps give arousal 0.70 and valence 0.65: gains of 0.02 and 0.01 over the
# random initialisation. On the graph of token trajectories the topology objective alone
# does learn the window: its held-out error falls to 0.002, a tenth of the mean graph's.
# Yet its valence probe reaches 0.87, against 0.86 for the random initialisation read the
# same way and 0.90 for the raw correlation graph — a gain of a hundredth, because the
# random filters already carried the coupling. (The three objectives together on this
# graph: valence 0.85, arousal 0.56.)
# ````
#
# ````{exercise} Hide the masked tokens
# :label: rector-ex-hide
#
# Pre-train the two encoders of seed 19 at the paper scale (`ICML26_SCALE=paper`: 4000
# steps of 32 windows, about five minutes each on one core) with `hide_masked=True` in
# {func}`~icml26.neuro.pretrain.pretrain`, so that the masked tokens are hidden from the
# encoder as in a masked autoencoder, and rerun the tests of 19.5–19.8 on them. Predict
# first: which claim should hiding help, given that a channel hidden at every patch is a
# removed channel? And what becomes of the time-mask ablation, whose masks now take whole
# patches out of every attention?
# ````
#
# ````{solution} rector-ex-hide
# :class: dropdown
#
# We ran it for the five seeds of the paper scale (19–23). Hiding does what it promises
# for removed channels: with a quarter of the channels removed, the structurally-masked
# encoder loses 0.02 to 0.05 of $F_1$, against 0.07 to 0.14 for its random initialisation.
# Yet 19.6 still fails, for a new reason: the time-mask ablation, hidden, loses nothing
# (−0.01 to +0.02), because it has nothing left to lose — its arousal probe falls to
# 0.54–0.59, near chance: with whole patches hidden, its pooled features no longer
# separate the arousal classes. Valence moves up: the graph probe gains 0.16, 0.17,
# 0.14, 0.11 and 0.09 over the random initialisation (0.13 on average, against about 0.11
# with the masked tokens read), but the worst seed is still under the margin of 19.8.
# Arousal (0.62–0.68 against 0.63–0.70 at random initialisation) and the unseen montage
# (0.62–0.70 against 0.69–0.71) do not move. And the loss has not flattened at 4000 steps:
# the last fifth is 3 % below the fifth before (± 0.3 %), in the masked-prediction and
# cross-view terms alike. So hiding changes the mechanism in the direction the
# paper's robustness claim needs, and no verdict.
# ````
#
# ````{exercise} A larger encoder
# :label: rector-ex-capacity
#
# The paper's encoders are deep transformers; this chapter's has one layer of width 32 at
# both scales. Pre-train encoders of two layers, width 64 and four heads
# (`eeg.RectorEncoder(PATCH, T, d=64, layers=2, heads=4)`, about 141 000 parameters against
# 19 000) at the paper scale (4000 steps of 32 windows on the 60 training subjects, about
# twenty minutes each on one core), for seeds 19, 20 and 21, with structured masks and with
# time masks only, and rerun the tests of 19.5–19.8 on them. Predict first, from the
# diagnosis above: which claims can capacity help, and which need something the
# objectives do not ask for?
# ````
#
# ````{solution} rector-ex-capacity
# :class: dropdown
#
# We ran it, with five drop patterns per model for the missing-channel test. Capacity
# helps where the chapter's diagnosis says learning was short, the connectivity graph: the
# valence graph probe of the structurally-masked encoder reaches 0.81, 0.74 and 0.78
# against 0.62, 0.64 and 0.64 for its random initialisation, gains of 0.18, 0.098 and
# 0.14. The worst seed is at the margin of 19.8, not clearly past it: rounded to the
# hundredth it counts as 0.10, so the verdict would rest on the third digit. Arousal does
# not rise (0.64, 0.69, 0.60 against 0.69, 0.68, 0.68), and on the unseen electrodes the
# pre-trained encoders do worse than their random initialisation (0.61, 0.56, 0.67
# against 0.74, 0.72, 0.72): random filters pooled over the scalp were the ceiling of
# these read-outs, and a larger network does not lift it. Removing a quarter of the
# channels costs the pre-trained encoders −0.02, 0.20 and −0.03 of $F_1$ (random
# initialisation 0.13, 0.13, 0.06), so 19.6 fails at seed 20 unless the ablation lost
# 0.39, more than any encoder here stands above chance; the ablation itself, which we
# trained at seed 19 only, collapses as it does with hidden tokens (arousal 0.54, valence
# 0.50). By the chapter's criterion only the second seed's
# loss had flattened (−1 % over the last fifth, ± 0.5 %); the others were still falling,
# by 2 % and 5 % per fifth.
# ````
#
# ## Summary
#
# - RECTOR organises attention by region, channel and time; the region block mask is exactly
#   attention within blocks (19.1) and cuts the scored entries 27× on biosemi32, a saving
#   that grows like $RT$; normalised spectral clustering recovers block-diagonal regions
#   exactly (19.2).
# - Regions re-drawn from phase-locking by annealed spectral clustering beat the anatomical
#   partition, but no better than clustering the raw correlation (19.3–19.4); a partition
#   drawn from the encoder's own similarity stays where it started.
# - At this scale, still training, the pre-trained encoder beats its random initialisation
#   on no downstream test (19.5–19.8); trained until its loss flattens (paper scale), it
#   comes close on one, valence read through its connectivity graph (19.8): about the
#   margin on average over five seeds, just under it at two. Position embeddings make the
#   unseen montage readable at all.
# - Why, measured: masked tokens are learnable only on the channel masks (region masks
#   share little with the rest of the scalp, time masks nothing); the time-pooled
#   topology graph learns at most the montage's mean connectivity, and a graph of token
#   trajectories, which learns each window's, is read as well at the random initialisation;
#   and random patch filters pooled over the scalp already read arousal about as well as
#   channel-averaged band powers, leaving no room for the 19.5 margin.
