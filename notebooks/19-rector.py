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
# emotion recognition and sEEG task-engagement classification, robustness to missing channels
# and transfer across montages.
#
# Attention organised this way is much cheaper than dense attention over all channel-time
# tokens, and the chapter makes that exact: a block-sparse mask, its cost
# $T \sum_r n_r^2 + T R^2 + R T^2$ against $(CT)^2$, and a kernel that only computes the
# blocks. The masked pre-training on the grid builds on masked autoencoders
# {cite}`he2022mae` and on EEG foundation models such as LaBraM {cite}`jiang2024labram`; the
# adaptive partition is spectral clustering {cite}`ng2001spectral` of phase-locking or
# correlation graphs {cite}`lachaux1999plv`.
#
# By the end of the chapter you will be able to: build the region-channel-temporal attention
# mask on a real montage and count its cost; prove that the masked attention is exactly
# attention run block by block; recover functional regions from connectivity; pre-train a
# small RECTOR encoder with the three objectives on simulated EEG with subject effects; and
# test it, subject-independently, with channels removed and on electrodes it has never seen.
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
# and their cost, the partition rule, the masking distribution, the loss formulas and their
# weights — and the whole experiment: the data are *simulated* EEG on the real biosemi32/64
# electrode positions, not the paper's datasets (which are not named in what we could read),
# and no number of the paper is reproduced.
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
# | $W \in \mathbb{R}^{C \times C}_{\ge 0}$ | a channel affinity (functional connectivity) |
# | $\eta \in [0,1]$ | weight of function against anatomy in the partition |
# | $y \in \{0, 1\}$ | the window's label ("high vs low arousal" in the simulation) |
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
# same-region indicator and $W_{\text{func}}$ a functional affinity (here the mean $|$correlation$|$
# of the windows seen so far, the target of the topology objective). At schedule value
# $\eta_t \in [0, 1]$ (rising from $0$ to $1$ over pre-training) the partition is the anatomical
# one for $\eta_t = 0$, and otherwise the normalised spectral clustering into $k$ groups of
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
# \mathcal{L} = \underbrace{\tfrac{1}{|\mathcal{M}|}\textstyle\sum_{\mathcal{M}}
# \lVert \hat x_{c,\tau} - x_{c,\tau}\rVert^2 / P}_{\text{masked prediction}} +
# \lambda_T \underbrace{\tfrac{1}{C^2}\lVert H H^\top - G \rVert_F^2}_{\text{topology}} +
# \lambda_C \underbrace{\mathrm{InfoNCE}_{0.1}(u^1, u^2)}_{\text{cross-view}},
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
SUBJECTS_TRAIN = icml26.pick(
    ci=30, paper=120
)  # subjects for pre-training and the probe
SUBJECTS_TEST = icml26.pick(ci=10, paper=40)  # held-out subjects (subject-independent)
WINDOWS = icml26.pick(ci=40, paper=200)  # 1 s windows per subject
FS = 128.0  # sampling rate f_s (Hz)
N_SAMPLES = 128  # L, samples per window
PATCH = 16  # P, so T = 8 patches
RHO = 0.03  # source spread ρ (m)
CONDUCTION = 0.02  # volume-conduction width σ_vc (m)
MIN_SEP = 0.08  # minimum distance between source centres (m)
K_FUNCTIONAL = 5  # regions of the adaptive partition (the number of sources)
D_MODEL = icml26.pick(ci=32, paper=64)
LAYERS = icml26.pick(ci=1, paper=2)
STEPS = icml26.pick(ci=60, paper=3000)  # pre-training steps
BATCH = icml26.pick(ci=32, paper=64)  # windows per step (two views each)
LR = icml26.pick(ci=3e-3, paper=1e-3)
AFP_EVERY = icml26.pick(ci=12, paper=100)  # steps between partition updates
DROP_FRACTION = 0.25  # channels removed at test (claim 19.6)
DROP_PATTERNS = icml26.pick(ci=20, paper=20)  # random drop patterns per model
CURVE_FRACTIONS = [0.0, 0.25, 0.5]
CURVE_PATTERNS = icml26.pick(ci=2, paper=20)  # patterns per fraction in the figure
ATTN_D = 16  # head width of the mask-exactness check

# %% [markdown]
# The architecture at a glance: patches become channel tokens, channels attend within their
# region, region tokens attend across regions and across time, and the result is broadcast
# back; pre-training masks structured blocks of the grid.

# %% tags=["hide-input"] mystnb={"figure": {"caption": "One RECTOR layer as reconstructed here: patch tokens with position-based channel embeddings, channel attention inside each region (block mask), region tokens attending across regions and across patches, broadcast back to the channels. Pre-training encodes two structured masked views and combines masked prediction, topology prediction and cross-view consistency; the partition moves from anatomy to function.", "name": "19-fig-arch"}}
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
# The library has the same operation twice. `icml26.neuro.eeg.masked_attention` is the
# paper's view: one attention over all $CT$ tokens with the boolean mask
# {eq}`rector-eq-mask` (`icml26.neuro.eeg.block_mask`), through PyTorch's
# `scaled_dot_product_attention`, whose boolean `attn_mask` marks **allowed** entries with
# `True`. `icml26.neuro.eeg.block_sparse_attention` is the fast kernel: it gathers each
# region's channels into a padded $(T, R, n_{\max}, d)$ tensor and attends inside the blocks
# only, so its cost is $T R\, n_{\max}^2$ rather than $(CT)^2$.

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
# the confound of scalp EEG: neighbouring electrodes correlate whatever their function. A
# channel's **functional
# region** is its nearest source — different from anatomy by construction. The label "high
# arousal" multiplies the 10 Hz source by 1.6 and the 20 Hz source by 0.7. Subjects differ by
# per-channel gains ($\pm 20\%$) and source positions jittered by 1 cm. Training and test
# subjects are disjoint: every score below is **subject-independent**. The held-out subjects
# are recorded with biosemi64, whose 32 extra electrodes serve the montage-transfer test.

# %%
centres = eeg.separated_centres(5, MIN_SEP, rng, z_min=pos[:, 2].min())
names64, pos64 = eeg.montage("biosemi64")
train = eeg.simulate_eeg(
    pos, centres, SUBJECTS_TRAIN, WINDOWS, seed=SEED, rho=RHO, conduction=CONDUCTION
)
test = eeg.simulate_eeg(
    pos64,
    centres,
    SUBJECTS_TEST,
    WINDOWS,
    seed=SEED,
    rho=RHO,
    first_subject=SUBJECTS_TRAIN,
    conduction=CONDUCTION,
)
assert not set(train.subject) & set(test.subject)  # split by subject, never by window
in32 = np.array(
    [names64.index(n) for n in names]
)  # biosemi32 channels inside biosemi64
new = np.array([i for i, n in enumerate(names64) if n not in names])  # the 32 others
x_train, x_test64 = eeg.patchify(train.x, PATCH), eeg.patchify(test.x, PATCH)
x_test = x_test64[:, in32]
func = train.functional
print(
    f"{len(train.y)} training windows ({SUBJECTS_TRAIN} subjects), {len(test.y)} test windows"
)
print("functional region sizes:", np.bincount(func).tolist())

# %% [markdown]
# ### The mask is exact (claim 19.1, note rector-1)
#
# *Claim* ({prf:ref}`rector-prop-exact`): attention with the region block mask equals attention
# computed separately inside each (region, patch) block, and puts exactly zero weight outside
# the blocks. We compare the masked SDPA with the blockwise reference in float64 on random
# queries, and read the weights off a hand-written masked softmax. The negative control hands
# the same mask to `torch.nn.MultiheadAttention`, whose boolean mask marks **blocked** entries
# with `True`: the two PyTorch conventions are opposite, and the mistake inverts the mask.

# %%
qd, kd, vd = (
    torch.randn(T, C, ATTN_D, generator=g, dtype=torch.float64) for _ in range(3)
)
M = eeg.block_mask(anat, T)
ref64 = blockwise_attention_reference(qd, kd, vd, anat)
got64 = eeg.masked_attention(*(t.reshape(T * C, -1) for t in (qd, kd, vd)), M).reshape(
    T, C, -1
)
weights = torch.softmax(
    (qd.reshape(T * C, -1) @ kd.reshape(T * C, -1).T / np.sqrt(ATTN_D)).masked_fill(
        ~M, -torch.inf
    ),
    dim=-1,
)
exact_err = max(float((got64 - ref64).abs().max()), float(weights[~M].abs().max()))
mha = torch.nn.MultiheadAttention(
    ATTN_D, 1, bias=False, batch_first=True, dtype=torch.float64
)
with torch.no_grad():
    _, w_wrong = mha(*(t.reshape(1, T * C, -1) for t in (qd, kd, vd)), attn_mask=M)
inside_wrong = float(w_wrong[0][M].sum() / (T * C))
assert inside_wrong < 1e-12  # the inverted convention puts no weight inside the blocks
print(f"max |masked − blockwise| = {float((got64 - ref64).abs().max()):.1e}")
print(
    f"MultiheadAttention with the same mask: weight inside the blocks {inside_wrong:.1f}"
)

# %% tags=["claim"]
# fails if: the mask leaked weight across regions or patches, or blocks were misassembled
icml26.claim(
    "19.1",
    "masked attention = blockwise attention (float64, max error)",
    exact_err,
    at_most=1e-10,
    kind="theorem",
)

# %% [markdown]
# ### The cost (claim 19.2, note rector-2)
#
# *Claim* ({prf:ref}`rector-prop-cost`; the paper: more efficient than full spatio-temporal
# attention): the three masks of one layer allow exactly $T\sum n_\rho^2 + TR^2 + RT^2$
# entries, at least ten times fewer than dense attention on the toy configuration. We count
# the `True` entries of the three masks built from the montage (not the formula).

# %%
m_chan, m_reg, m_time = eeg.level_masks(anat, T)
counted = int(m_chan.sum() + m_reg.sum() + m_time.sum())
formula, dense = eeg.attention_cost(np.bincount(anat), T)
assert counted == formula, (counted, formula)
print(
    f"counted {counted} = formula {formula}; dense {dense}; saving {dense / counted:.1f}×"
)

# %% tags=["claim"]
# fails if: the hierarchy attended across all tokens somewhere (no saving over dense attention)
icml26.claim(
    "19.2",
    "RECTOR-SA score entries / dense (CT)², biosemi32, T = 8",
    counted / dense,
    at_most=0.1,
    kind="theorem",
)

# %% tags=["hide-input"] mystnb={"figure": {"caption": "Which query-key pairs each scheme scores, on biosemi32 with T = 8 (black: scored). Left, dense attention over all 256 channel-time tokens; middle, the region block mask (channels sorted by region: one small block per region and patch); right, the two region-level masks (same patch, then same region across patches) on the 56 region tokens. Titles give the counts.", "name": "19-fig-mask"}}
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
# ### Pre-training
#
# Two encoders of the same architecture ({prf:ref}`rector-def-layer`, width 32, one layer,
# two heads, position-based channel embeddings) are pre-trained on the training subjects'
# windows with the loss {eq}`rector-eq-loss`: one with the structured masking of
# {prf:ref}`rector-def-views` (region, channel and time masks), one with time masks only
# (the ablation of claim 19.6). Both start from anatomical regions and move to the adaptive
# functional partition of {prf:ref}`rector-def-afp`, updated every few steps. A third encoder
# is left at its random initialisation.

# %%
t0 = time.process_time()
enc = {}
pre = {}
for name, kinds in [
    ("masked", ("region", "channel", "time")),
    ("time-only", ("time",)),
]:
    torch.manual_seed(SEED)
    enc[name] = eeg.RectorEncoder(PATCH, T, d=D_MODEL, layers=LAYERS).to(DEVICE)
    pre[name] = eeg.pretrain(
        enc[name],
        x_train,
        pos,
        anat,
        steps=STEPS,
        batch=BATCH,
        kinds=kinds,
        seed=SEED,
        k_functional=K_FUNCTIONAL,
        afp_every=AFP_EVERY,
        lr=LR,
        progress=icml26.progress,
    )
torch.manual_seed(SEED)
enc["random init"] = (
    eeg.RectorEncoder(PATCH, T, d=D_MODEL, layers=LAYERS).to(DEVICE).eval()
)
t_pre = time.process_time() - t0
h = pre["masked"].history
print(
    f"masked model, first → last 10 steps: MPM {h[:10, 1].mean():.3f} → {h[-10:, 1].mean():.3f}, "
    f"TSM {h[:10, 2].mean():.3f} → {h[-10:, 2].mean():.3f}, CVC {h[:10, 3].mean():.2f} → {h[-10:, 3].mean():.2f}"
)

# %% tags=["nbval-ignore-output"]
print(f"pre-training both encoders: {t_pre:.1f} s of CPU time")

# %% [markdown]
# ### Functional regions are recovered (claims 19.3 and 19.4, note rector-3)
#
# *Claim* (the paper: the partition "evolves from static anatomical definitions to adaptive
# functional regions"): the final adaptive partition agrees with the true functional regions,
# $\mathrm{ARI} \ge 0.6$, and beats the anatomical partition by at least $0.2$. As a sanity
# reference, spectral clustering of the mean $|$correlation$|$ of ten subjects' windows shows
# how much functional signal the scalp data carry at all; {prf:ref}`rector-lem-spectral` is
# exact only for block-diagonal affinities, and channels far from every source carry none.

# %%
afp = pre["masked"].regions
ari_afp = adjusted_rand_score(func, afp)
ari_anat = adjusted_rand_score(func, anat)
corr_ref = np.mean([np.abs(np.corrcoef(w)) for w in train.x[: 10 * WINDOWS]], axis=0)
sanity = eeg.spectral_partition(corr_ref, K_FUNCTIONAL, seed=SEED)
w_max = np.exp(-((pos[:, None] - centres[None]) ** 2).sum(-1) / (2 * RHO**2)).max(1)
strong = w_max >= 0.3
print(
    f"ARI(anatomical, functional) = {ari_anat:.2f}; ARI(AFP, functional) = {ari_afp:.2f}"
)
print(
    f"sanity: spectral clustering of mean |corr|: ARI {adjusted_rand_score(func, sanity):.2f} "
    f"on all channels, {adjusted_rand_score(func[strong], sanity[strong]):.2f} on the "
    f"{strong.sum()} channels whose largest source weight is ≥ 0.3"
)
print(
    f"AFP on those channels: ARI {adjusted_rand_score(func[strong], afp[strong]):.2f}"
)
print(
    "ARI of the partitions visited:",
    [round(adjusted_rand_score(func, p), 2) for p in pre["masked"].partitions],
)

# %% tags=["claim"]
# fails if: the partition stayed anatomical or clustered noise instead of functional coupling
icml26.claim(
    "19.3", "ARI(adaptive partition, functional regions)", ari_afp, at_least=0.6
)

# %% tags=["claim"]
# fails if: re-drawing regions from connectivity did no better than the anatomical prior
icml26.claim(
    "19.4",
    "ARI gain of the adaptive partition over anatomy",
    ari_afp - ari_anat,
    at_least=0.2,
)


# %% tags=["hide-input"] mystnb={"figure": {"caption": "biosemi32 seen from above (nose up), coloured by region: left, the anatomical partition by electrode name; middle, the simulated functional regions (nearest source; crosses mark the source centres); right, the adaptive partition at the end of pre-training, relabelled to match the functional one. Electrodes far from every source carry no functional signal.", "name": "19-fig-montage"}}
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
    ("adaptive, end", eeg.align_labels(afp, func)),
]
xy = topo(pos)
for a, (title, lab) in zip(axes, panels, strict=True):
    a.add_patch(plt.Circle((0, 0), np.pi / 2 + 0.1, fill=False, color="0.6"))
    a.scatter(
        *xy, c=lab, cmap="tab10", vmin=0, vmax=9, s=60, edgecolors="k", linewidths=0.4
    )
    a.set_title(
        f"{title}\nARI vs truth {adjusted_rand_score(func, lab):.2f}", fontsize=9
    )
    a.set_aspect("equal")
    a.axis("off")
axes[1].scatter(*topo(centres), marker="x", c="k", s=50)
fig.suptitle("Regions on the scalp: anatomy, function, and what the partition learned")
plt.show()

# %% [markdown]
# ### Self-supervision helps a subject-independent probe (claim 19.5, note rector-4)
#
# *Claim* (the paper: state-of-the-art weighted F1 in the subject-independent setting, with
# pre-training as the engine): a logistic-regression probe on frozen embeddings (mean and
# standard deviation of the final channel tokens) of the pre-trained encoder reaches a
# weighted $F_1$ at least $0.10$ above the same probe on the random-initialised encoder.
# The classical baseline — log band powers per channel, logistic regression — is reported
# beside it, without a claim to beat it.


# %%
def embed(name, x, p, r, names=None):
    return eeg.embed(enc[name], x, p, r, names=names)


reg_of = {n: (pre[n].regions if n in pre else anat) for n in enc}
z_train = {n: embed(n, x_train, pos, reg_of[n]) for n in enc}
f1 = {
    n: eeg.probe_f1(z_train[n], train.y, embed(n, x_test, pos, reg_of[n]), test.y)
    for n in enc
}
bp_train = eeg.band_power_features(x_train.reshape(len(x_train), C, -1).numpy(), FS)
bp_test = eeg.band_power_features(x_test.reshape(len(x_test), C, -1).numpy(), FS)
f1_bp = eeg.probe_f1(bp_train, train.y, bp_test, test.y, C=0.1)
for n, v in f1.items():
    print(f"{n:>12}: weighted F1 {v:.3f}")
print(
    f"{'band power':>12}: weighted F1 {f1_bp:.3f} (z-scored windows, as the encoders see them)"
)

# %% tags=["claim"]
# fails if: pre-training taught the encoder nothing a random network's features do not have
icml26.claim(
    "19.5",
    "probe F1: pre-trained − random-init encoder",
    f1["masked"] - f1["random init"],
    at_least=0.10,
)

# %% [markdown]
# ### Missing channels, zero-shot (claim 19.6, note rector-5)
#
# *Claim* (the paper: strong robustness to missing channels): removing 25 % of the channels at
# test time — their tokens left out, the probe unchanged — costs the structurally-masked model
# at most half the $F_1$ that it costs the same architecture pre-trained with time masks only,
# averaged over 20 random drop patterns. A ratio of two small noisy differences means little,
# so the denominator is floored at $0.05$: when the ablation loses less than that, the claim
# asks the masked model to lose at most $0.025$ — stricter than the plain ratio, never looser.


# %%
def drop_curve(name, fraction, patterns, seed):
    """Mean probe F1 with `fraction` of the channels removed, over random drop patterns."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.metrics import f1_score
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    clf = make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000))
    clf.fit(z_train[name], train.y)
    gen = np.random.default_rng(seed)
    n_keep = C - round(fraction * C)
    scores = []
    for _ in range(patterns if fraction > 0 else 1):
        keep = np.sort(gen.choice(C, n_keep, replace=False))
        z = embed(name, x_test[:, keep], pos[keep], reg_of[name][keep])
        scores.append(f1_score(test.y, clf.predict(z), average="weighted"))
    return float(np.mean(scores))


drop = {
    n: f1[n] - drop_curve(n, DROP_FRACTION, DROP_PATTERNS, SEED)
    for n in ("masked", "time-only")
}
ratio = drop["masked"] / max(drop["time-only"], 0.05)
print(
    f"F1 drop at 25 % removed: masked {drop['masked']:.3f}, time-only {drop['time-only']:.3f}"
)
if drop["time-only"] < 0.05:
    print("the ablation loses < 0.05: the masked model must then lose at most 0.025")

# %% tags=["claim"]
# fails if: structured masking gave no extra robustness to removed channels (or the test is void)
icml26.claim(
    "19.6", "F1 drop, 25% removed: masked / max(time-only, 0.05)", ratio, at_most=0.5
)


# %% tags=["hide-input"] mystnb={"figure": {"caption": "Subject-independent weighted F1 against the fraction of channels removed at test time (tokens left out, probe unchanged), for the encoder pre-trained with structured masks and the time-mask ablation; horizontal lines: the random-initialised encoder and the band-power baseline, both with all channels. Points average random drop patterns: 20 at 25 %, only 2 at 50 % (noisy).", "name": "19-fig-missing"}}
def curve_point(n, fr):
    if fr == 0:
        return f1[n]
    if fr == DROP_FRACTION:
        return f1[n] - drop[n]
    return drop_curve(n, fr, CURVE_PATTERNS, SEED + 1)


curves = {
    n: [curve_point(n, fr) for fr in CURVE_FRACTIONS] for n in ("masked", "time-only")
}
fig, ax = plt.subplots(figsize=(6.0, 3.2))
for n, ys in curves.items():
    ax.plot(100 * np.array(CURVE_FRACTIONS), ys, marker="o", label=n)
ax.axhline(f1["random init"], ls="-.", c="0.5", label="random init (all channels)")
ax.axhline(f1_bp, ls="--", c="0.4", label="band power (all channels)")
ax.axhline(0.5, ls=":", c="0.6", label="chance")
ax.set_xlabel("channels removed at test (%)")
ax.set_ylabel("weighted $F_1$ (held-out subjects)")
ax.set_title("F1 with channels removed (tokens left out, probe unchanged)")
ax.legend(fontsize=8, loc="center right")
plt.show()

# %% [markdown]
# ### A montage the model has never seen (claim 19.7, note rector-6)
#
# *Claim* (the paper: cross-montage generalisation): the encoder pre-trained on biosemi32,
# with the probe trained on biosemi32 embeddings, classifies held-out subjects recorded **only**
# on the 32 biosemi64 electrodes that biosemi32 lacks (AF7, Fpz, FT7, TP8, Iz, …; no name in
# common, positions in between) with weighted $F_1 \ge 0.65$. The new channels' regions are
# those of their nearest training electrode. The classic 19 channels of the 10–20 system would
# not do: all of them are biosemi32 electrodes, so that would be a channel-drop test. An encoder
# with an **index** channel embedding cannot even be applied to the new set — shown first.

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
r_new = eeg.assign_by_nearest(pos64[new], pos, reg_of["masked"])
f1_new = eeg.probe_f1(
    z_train["masked"],
    train.y,
    embed("masked", x_test64[:, new], pos64[new], r_new),
    test.y,
)
print(
    f"position embedding, new montage: weighted F1 {f1_new:.3f} (same subjects on biosemi32: {f1['masked']:.3f})"
)

# %% tags=["claim"]
# fails if: position embeddings did not generalise to electrodes outside the training montage
icml26.claim(
    "19.7", "weighted F1 on 32 unseen biosemi64 electrodes", f1_new, at_least=0.65
)

# %% [markdown]
# ### Pre-training curves

# %% tags=["hide-input"] mystnb={"figure": {"caption": "The three pre-training objectives of the structurally-masked encoder (moving averages over 10 steps): masked prediction (MSE of z-scored patches; 1 is predicting zero), topology (squared error of the predicted correlation graph) and cross-view InfoNCE (chance level log B). Vertical lines mark partition updates.", "name": "19-fig-losses"}}
fig, axes = plt.subplots(1, 3, figsize=(7.4, 2.6))
kern = np.ones(10) / 10
for a, col, title in zip(
    axes, [1, 2, 3], ["masked prediction", "topology", "cross-view"], strict=True
):
    for n, style in [("masked", "-"), ("time-only", "--")]:
        a.plot(np.convolve(pre[n].history[:, col], kern, mode="valid"), style, label=n)
    a.set_title(title, fontsize=9)
    a.set_xlabel("step")
    for s in range(AFP_EVERY, STEPS + 1, AFP_EVERY):
        a.axvline(s, c="0.85", lw=0.6)
axes[0].set_ylabel("loss")
axes[2].axhline(np.log(BATCH), ls=":", c="0.5")
axes[0].legend(fontsize=7)
fig.suptitle("Pre-training losses (structured masks vs time masks)")
plt.show()

# %% [markdown]
# ## Cross-check
#
# The established libraries compute several of the pieces: MNE's montage (used throughout),
# mne-connectivity's phase-locking value (FFT with a Hann taper, averaged over the band's
# bins — the same estimator as `icml26.neuro.eeg.plv`), scikit-learn's spectral clustering,
# and pyriemann's tangent-space classifier {cite}`barachant2012multiclass` as a strong
# classical baseline.

# %%
from mne_connectivity import spectral_connectivity_epochs
from sklearn.cluster import SpectralClustering

band = (8.0, 12.0)
xs = train.x[:40, :8].astype(np.float64)
ours = eeg.plv(xs, FS, band)
con = spectral_connectivity_epochs(
    xs,
    method="plv",
    mode="fourier",
    sfreq=FS,
    fmin=band[0],
    fmax=band[1],
    faverage=True,
    verbose=False,
)
theirs = con.get_data(output="dense")[..., 0]
tri = np.tril_indices(8, -1)
icml26.checks.agree("PLV, ours vs mne-connectivity", ours[tri], theirs[tri], atol=1e-10)
print(
    f"PLV 8–12 Hz of 8 channels: ours = mne-connectivity to {np.abs(ours[tri] - theirs[tri]).max():.0e}"
)
sk = SpectralClustering(
    K_FUNCTIONAL, affinity="precomputed", random_state=SEED
).fit_predict(corr_ref)
print(
    f"spectral clustering of mean |corr|, ARI vs truth: ours {adjusted_rand_score(func, sanity):.2f}, "
    f"scikit-learn {adjusted_rand_score(func, sk):.2f} (they agree with each other at ARI "
    f"{adjusted_rand_score(sanity, sk):.2f}; on an exactly block-diagonal affinity both are exact)"
)

# %%
from pyriemann.estimation import Covariances
from pyriemann.tangentspace import TangentSpace
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import f1_score
from sklearn.pipeline import make_pipeline

ts = make_pipeline(
    Covariances("oas"), TangentSpace(), LogisticRegression(C=0.1, max_iter=2000)
)
ts.fit(train.x.astype(np.float64), train.y)
f1_ts = f1_score(
    test.y, ts.predict(test.x[:, in32].astype(np.float64)), average="weighted"
)
print(
    f"pyriemann tangent space + logistic regression (raw windows): weighted F1 {f1_ts:.3f}"
)

# %% [markdown]
# ## Limits of this reproduction
#
# - **No real EEG.** The paper's emotion (valence/arousal, subject-dependent and
#   subject-independent) and sEEG task-engagement benchmarks are not reproduced, and none of
#   its numbers is. The data are simulated; the effect is a spectral one (alpha up, beta down)
#   that classical band-power features capture well.
# - **Scale.** The paper's encoders are deep transformers pre-trained on large EEG corpora;
#   here one layer of width 32 is pre-trained for 60 steps of 32 windows (a few seconds of
#   CPU). The `paper` scale (`ICML26_SCALE=paper`) runs 3000 steps of a two-layer, width-64
#   encoder on four times the subjects (sized for one GPU; not run for this page).
# - **Why 19.5 fails here, measured.** Pre-training does not beat the random encoder's probe
#   by the $0.10$ the claim asks (measured $+0.006$), and longer pre-training did not change
#   this in our runs: without volume conduction in the generator, 600 steps (ten times the
#   default) gave $F_1 = 0.63$ against $0.66$ for the random encoder. The masked-prediction loss
#   stays at the level of predicting zero (about 1.0 for z-scored patches): most of a
#   channel's variance is its own background and sensor noise, so a masked patch is nearly
#   unpredictable from the rest, and the objectives have little shared structure to learn
#   that bears on the label. The label itself is a spectral ratio, which the random encoder's
#   patch projections (a bank of random FIR filters) already expose to the probe, and which
#   log band powers ($F_1 = 0.80$) and pyriemann's tangent space ($0.78$) capture far better.
#   A richer simulator (sources reaching many electrodes, labels carried by cross-channel
#   coupling) or real recordings are needed to test this claim fairly.
# - **The generator decides 19.3, 19.6 and 19.7.** The research plan's generator had no volume
#   conduction; with it left out, many electrodes carry no source at all, and in our runs the
#   adaptive partition reached ARI $0.59$ (19.3 just fails), 25 % channel removal cost the
#   masked model more $F_1$ than the ablation (19.6 fails, ratio $1.4$) and the new montage
#   scored $0.41$–$0.46$, below chance (19.7 fails). Volume conduction — which the plan lists
#   as the confound a scalp generator must contain — makes neighbouring electrodes share
#   signal, so removed or new electrodes can be read from their neighbours; at
#   $\sigma_{vc} = 2$ cm (our choice) the three claims hold, and at $3.5$ cm a shorter run gave
#   ARI $0.70$, a drop of $0.02$ and $0.66$ on the new montage. 19.6 is tested in its strict
#   form: the ablation lost less than $0.05$, so the masked model had to lose at most $0.025$.
# - **The sanity reference of the plan** (spectral clustering of the mean $|$correlation$|$,
#   ARI $\ge 0.7$ on all channels) reaches $0.65$ on ten subjects here and $1.0$ on the
#   strongly-driven electrodes; the adaptive partition, which averages the connectivity of all
#   windows seen in pre-training, reaches $0.90$.
# - **Reconstruction.** The attention levels, partition rule, masking distribution and losses
#   are this chapter's instantiation of the paper's component names, not its equations.
# - **What the claims test.** 19.1–19.2 are properties of the block-sparse design and hold
#   exactly. 19.3–19.7 test the paper's empirical statements on simulated data, with our
#   reconstruction of the method; they say that the mechanisms can work, not how well the
#   paper's model works on real EEG.

# %% [markdown]
# ## Exercises
#
# ````{exercise} When does the hierarchy stop paying?
# :label: rector-ex-cost
#
# Using {prf:ref}`rector-prop-cost` with equal regions, find the number of regions $R$ that
# minimises $N_{\text{RECTOR}}$ for $C = 128$, $T = 8$, and the resulting saving. Check your
# answer with `icml26.neuro.eeg.attention_cost`.
# ````
#
# ````{solution} rector-ex-cost
# :class: dropdown
#
# With $n = C/R$: $N(R) = T C^2/R + T R^2 + R T^2$. Treating $R$ as continuous,
# $N'(R) = -TC^2/R^2 + 2TR + T^2 = 0$, i.e. $2R^3 + T R^2 = C^2$; for $C = 128$, $T = 8$ this
# gives $R \approx 19.8$; among the divisors of 128, $R = 16$ gives
# $N = 8\cdot 128^2/16 + 8 \cdot 256 + 16 \cdot 64 = 8192 + 2048 + 1024 = 11\,264$ against
# $(1024)^2 = 1\,048\,576$, a saving of 93× ($R = 32$ gives $4096 + 8192 + 2048 = 14\,336$). Too few regions make the channel blocks large; too many make the region level dense.
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
# Regenerate the data with $\rho = 4.5$ cm and with $\rho = 2$ cm and rerun the partition
# experiment. Predict how the sanity ARI and the adaptive partition's ARI move, using
# {prf:ref}`rector-lem-spectral`.
# ````
#
# ````{solution} rector-ex-rho
# :class: dropdown
#
# A larger $\rho$ lets every electrode see some source, so the affinity is closer to
# block-diagonal *with* every channel in a block and the ARI rises (in our runs, without
# volume conduction, 0.6–1.0 over centre seeds at 4.5 cm against 0.25–0.7 at 3 cm); but
# neighbouring sources overlap more, which blurs the boundaries. A smaller $\rho$ leaves most electrodes with only noise: their rows of the
# affinity are nearly uniform and their cluster labels are arbitrary, so the ARI over all
# channels falls while the ARI on the strongly-driven channels stays high.
# ````
#
# ## Summary
#
# - RECTOR organises attention by region, channel and time; the region block mask is exactly
#   attention within blocks (19.1) and cuts the scored entries by 27× on biosemi32 (19.2),
#   a saving that grows like $RT$.
# - Regions re-drawn from functional connectivity by annealed spectral clustering recover the
#   simulated functional regions (ARI 0.90, against 0.13 for anatomy; 19.3–19.4).
# - With channels removed (not zeroed) the structurally-masked encoder loses little (19.6),
#   and position-based channel embeddings read 32 electrodes never seen in training
#   (19.7) — an index embedding cannot even be applied. Both depend on volume conduction in
#   the simulated data.
# - Pre-training did not improve the subject-independent linear probe over a random encoder
#   at this scale (19.5, not reproduced); band powers remain the stronger features here.
