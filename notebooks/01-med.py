# %% [markdown]
# # 01 · med — Minimal Embeddable Dimension: exact and robust top-k retrieval
#
# ## Overview
#
# An embedding retriever stores every document as a vector $x_i \in \mathbb{R}^d$, turns a query
# into a vector $q$, and returns the documents with the largest scores $s(q, x_i)$. How large must
# $d$ be so that *every* answer set of at most $k$ documents out of $m$ is the exact top-$|S|$ set
# of some query? {cite:t}`weller2025limits` argued that the answer grows with $m$: they
# optimised free document and query vectors for all top-2 answer sets, fitted a cubic polynomial
# to the largest number of documents their optimiser could handle in each dimension, and built
# the LIMIT benchmark ("Who likes Apples?"), on which state-of-the-art single-vector models fail.
#
# {cite:t}`wang2026med` answer that the *geometry* is not the obstruction. The Minimal
# Embeddable Dimension (MED) is $\Theta(k)$ and independent of $m$ for inner product, Euclidean
# distance and cosine similarity: points on the moment curve in $\mathbb{R}^{2k}$ already realise
# every answer set of size at most $k$. Requiring a normalised score gap $\varepsilon$ changes the
# picture: the gap can never exceed $\varepsilon_\star(m,k) = m/\sqrt{k(m-1)(m-k)} \to 1/\sqrt{k}$,
# the regular simplex attains it, and random Gaussian points with centroid queries reach a gap of
# order $1/\sqrt{k}$ in $O(k^2 \log m)$ dimensions.
#
# By the end of this chapter you will be able to prove these bounds, construct the witnesses
# (moment curve, trigonometric moment curve, simplex, Gaussian centroids), decide exact
# retrievability of any answer set with a linear programme, reproduce the free-embedding
# experiment and an evaluation on the official LIMIT-small on a CPU, and explain why a failed
# optimiser is evidence about learnability, not about geometric capacity.
#
# ## Setting and notation
#
# We follow the book's notation ({doc}`../notation`). There are $m$ objects (documents) with
# vectors $x_1, \dots, x_m \in \mathbb{R}^d$, the rows of $X \in \mathbb{R}^{m \times d}$; $[m] =
# \{1, \dots, m\}$. An *answer set* is a subset $S \subseteq [m]$ with $1 \le |S| \le k < m$; the
# $k$-subsets are $\binom{[m]}{k}$. A query is a vector $q \in \mathbb{R}^d$ and a score
# $s(q, x)$ is one of
#
# $$
# s_{\mathrm{ip}}(q, x) = \langle q, x \rangle, \qquad
# s_{\ell_2}(q, x) = -\lVert q - x \rVert, \qquad
# s_{\cos}(q, x) = \frac{\langle q, x \rangle}{\lVert q \rVert \lVert x \rVert}.
# $$
#
# The *margin* of $q$ for $S$ is $\operatorname{gap}_S(q) = \min_{i \in S} s(q, x_i) - \max_{j
# \notin S} s(q, x_j)$; $q$ retrieves $S$ exactly when the gap is positive. In the robust setting
# all vectors lie on the unit sphere $\mathbb{S}^{d-1}$ and we ask for $\operatorname{gap}_S(q) \ge
# \varepsilon$. For a subset $S$, $\bar x_S = |S|^{-1} \sum_{i \in S} x_i$ is its centroid and
# $u_S = \bar x_S / \lVert \bar x_S \rVert$ the *normalised centroid query*. The moment curve is
# $x(t) = (t, t^2, \dots, t^d)$. Weller et al. write $n$ for the number of documents; we keep $m$
# except when quoting their "critical $n$".

# %% tags=["hide-input"]
import itertools
import math
import os

os.environ.setdefault(
    "HF_HUB_OFFLINE", "1"
)  # MiniLM is loaded from site-packages, never fetched
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

import matplotlib.pyplot as plt
import numpy as np
import scipy.optimize
import scipy.spatial
import torch
from sklearn.metrics import recall_score

import icml26
from icml26.retrieval import limit, med, retrievers

SEED = 2026
rng = icml26.seed_everything(SEED)
icml26.plotting.use_book_style()
DEVICE = icml26.device()
torch.set_num_threads(
    1
)  # every tensor here is tiny: one thread avoids synchronisation overhead


def fresh_generator(offset: int) -> torch.Generator:
    """One independent stream per experiment.

    Changing one leaves the others as they are.
    """
    return icml26.stats.stream(SEED, offset, device=DEVICE)


gen = fresh_generator(0)
DATA = os.path.join("..", "data", "limit-small")  # the official LIMIT-small (CC-BY 4.0)
DATA_SYNTH = os.path.join("..", "data", "limit-small-synth")  # our generator's version

# %% tags=["parameters", "hide-input"]
TOP2_M = icml26.pick(
    ci=[8, 16, 32, 60], paper=[8, 16, 32, 64, 128, 200]
)  # objects, claims 01.1-01.2
TOP2_DRAWS = icml26.pick(ci=3, paper=10)  # Gaussian configurations at the largest m
EPS_M = icml26.pick(
    ci=list(range(3, 25)), paper=list(range(3, 61))
)  # simplex grid, claim 01.3
EPS_K = icml26.pick(ci=[1, 2, 3, 4], paper=[1, 2, 3, 4])
OPT_CASES = icml26.pick(  # (m, k, d) for max-margin optimisation, claim 01.4
    ci=[(5, 2, 4), (6, 2, 5), (6, 3, 5)],
    paper=[
        (5, 2, 4),
        (6, 2, 5),
        (6, 3, 5),
        (8, 2, 7),
        (8, 3, 7),
        (8, 4, 7),
        (10, 2, 6),
    ],
)
OPT_STEPS = icml26.pick(ci=800, paper=5000)
GAUSS_M = icml26.pick(  # numbers of objects, claim 01.5
    ci=[8, 12, 16, 24, 32, 48, 64, 96, 128],
    paper=[8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256],
)
GAUSS_DRAWS = icml26.pick(ci=32, paper=128)  # independent configurations per m
GAUSS_D_RANGE = (8, 512)  # bisection bracket for the dimension needed
GAUSS_D = [
    16,
    20,
    24,
    28,
    32,
    40,
    48,
    56,
    64,
    80,
    96,
    112,
    128,
    160,
    192,
]  # margin curves
GAUSS_CURVE_M, GAUSS_CURVE_DRAWS = (
    [16, 32, 64, 128],
    4,
)  # which m and draws get full curves
GAUSS_EPS = 0.25  # the fixed target margin of claim 01.5 (eps_star(m, 2) ~ 0.71)
GAUSS_GROUPS = 4  # seeds of claim 01.5: disjoint groups of the draws
FREE_N = icml26.pick(  # dimension -> numbers of documents tried, claims 01.6-01.7
    ci={
        2: range(3, 6),
        3: range(3, 7),
        4: range(5, 12),
        5: range(7, 15),
        6: range(10, 22),
    },
    paper={d: range(3, 4 * d + 6) for d in range(2, 11)},
)
FREE_STEPS = icml26.pick(ci=1500, paper=20000)
FREE_RESTARTS = icml26.pick(ci=3, paper=4)  # also the seeds of claims 01.6-01.7
BOW_D = icml26.pick(
    ci=8, paper=8
)  # dimension of the trained bag-of-words encoder, claim 01.8
BOW_STEPS = icml26.pick(ci=200, paper=1000)
BOW_SEEDS = icml26.pick(ci=3, paper=10)  # training seeds of the encoder (claim 01.8)
FREE_LIMIT_SEEDS = icml26.pick(ci=3, paper=5)  # training seeds (claim 01.9)
FREE_LIMIT_D = icml26.pick(ci=16, paper=16)
FREE_LIMIT_STEPS = icml26.pick(ci=600, paper=3000)
TOKEN_SUM_D = [
    256,
    512,
    1024,
    4096,
]  # random token-sum embedding (Section 5.2 of the MED paper)
TOKEN_SUM_GRID = [
    32,
    64,
    128,
    256,
    512,
    1024,
    2048,
    4096,
]  # the MED paper's grid, claims 01.10-11
TOKEN_SUM_SEEDS = icml26.pick(ci=8, paper=32)  # random draws of the token vectors per d
# recall@2 of the random token-sum control on the official LIMIT-small, quoted from the
# grid in the appendix of Wang et al. (2026), one seed per entry, by tokenizer
PAPER_TOKEN_SUM_R2 = {
    "vanilla": [0.1230, 0.1705, 0.2925, 0.3845, 0.6145, 0.7845, 0.8980, 0.9545],
    "handmade": [0.1715, 0.2670, 0.4005, 0.6215, 0.8780, 0.9940, 1.0000, 1.0000],
    "qwen": [0.1120, 0.1695, 0.2180, 0.3735, 0.5160, 0.6010, 0.7510, 0.8010],
}
LIMIT_DOCS = icml26.pick(
    ci=46, paper=50_000
)  # documents of the LIMIT-sized run (46 = none)
# Promptriever Llama3 8B (d = 4096), recall@2 on the *official* LIMIT-small, reported by
# Weller et al. (2025); quoted from Section 5.2 of Wang et al. (2026)
WELLER_R2_LIMIT_SMALL = 0.543

# %% [markdown]
# The picture to keep in mind, in the plane: objects are unit vectors, a query is a direction,
# and a pair $S$ is retrieved when a direction scores both of its members above every other
# object, with some margin $\varepsilon$ between the worst member and the best outsider.

# %% tags=["hide-input"] mystnb={"figure": {"caption": "Exact top-2 retrieval in the plane: the normalised centroid $u_S$ of a pair of neighbouring unit vectors scores both above every other object; the margin $\\varepsilon$ is the gap between the worst member and the best outsider. A pair of non-neighbours has no such direction.", "name": "01-fig-picture"}}
m_pic = 7
ang = np.linspace(0, 2 * np.pi, m_pic, endpoint=False) + 0.3
pts = np.stack([np.cos(ang), np.sin(ang)], 1)
u = pts[0] + pts[1]
u /= np.linalg.norm(u)
sc = pts @ u
fig, ax = plt.subplots(figsize=(4.2, 4.0))
ax.add_patch(plt.Circle((0, 0), 1, fill=False, color="0.8"))
ax.scatter(
    pts[2:, 0],
    pts[2:, 1],
    color=icml26.plotting.color(0),
    zorder=3,
    label="other objects",
)
ax.scatter(
    pts[:2, 0],
    pts[:2, 1],
    color=icml26.plotting.color(1),
    s=60,
    zorder=3,
    label="pair $S$",
)
ax.annotate("", xy=1.25 * u, xytext=(0, 0), arrowprops={"arrowstyle": "-|>", "lw": 1.6})
ax.text(*(1.3 * u), "$u_S$", fontsize=12)
perp = np.array([-u[1], u[0]])
for level, style in ((sc[:2].min(), "-"), (sc[2:].max(), "--")):
    ax.plot(
        *np.stack([level * u - 1.4 * perp, level * u + 1.4 * perp], 1),
        style,
        color="0.4",
        lw=1,
    )
ax.text(
    *(0.5 * (sc[:2].min() + sc[2:].max()) * u + 1.05 * perp),
    "$\\varepsilon$",
    fontsize=12,
)
ax.set(xlim=(-1.5, 1.5), ylim=(-1.5, 1.5), aspect="equal", xticks=[], yticks=[])
ax.set_title("A query retrieves a pair with a margin")
ax.legend(loc="lower left", fontsize=8)
plt.show()


# %% [markdown]
# ## Theory
#
# ### Exact retrieval and the three scores
#
# ```{prf:definition} Exact top-k retrievability and MED
# :label: med-def-med
#
# A configuration $x_1, \dots, x_m$ *$k$-shatters* $[m]$ for the score $s$ if every answer set
# $S$ with $1 \le |S| \le k$ has a query $q_S$ with $\operatorname{gap}_S(q_S) > 0$, that is,
# $S$ is exactly the top-$|S|$ set of $q_S$ (equivalently, some threshold $b_S$ separates
# $s(q_S, x_i) > b_S > s(q_S, x_j)$ for $i \in S$, $j \notin S$). The *Minimal Embeddable
# Dimension* $\operatorname{MED}(m, k; s)$ is the least $d$ in which some configuration of $m$
# points $k$-shatters $[m]$.
# ```
#
# For inner products, "top-$|S|$ for some $q$" is the same as "strictly separated from the rest by
# an affine hyperplane $\{x : \langle q, x \rangle = b\}$", because a threshold can always be put
# between the two groups of scores. The three scores are linked by two tricks.
#
# ```{prf:proposition} How the three scores relate
# :label: med-prop-scores
#
# For all $m > k \ge 1$:
# (a) $\operatorname{MED}(m,k;s_{\ell_2}) \le \operatorname{MED}(m,k;s_{\mathrm{ip}})$;
# (b) $\operatorname{MED}(m,k;s_{\mathrm{ip}}) \le \operatorname{MED}(m,k;s_{\cos}) \le
# \operatorname{MED}(m,k;s_{\mathrm{ip}}) + 1$;
# (c) on unit vectors all three scores induce the same ranking for any query $q \ne 0$.
# ```
#
# ```{prf:proof}
# (a) Let $q_S$ separate $S$ with gap $\Delta_S > 0$ for inner products and put the Euclidean
# query at $w = R\, q_S$. Then
#
# $$
# \begin{aligned}
# \lVert x_j - w \rVert^2 - \lVert x_i - w \rVert^2
# &= 2R \langle q_S, x_i - x_j \rangle + \lVert x_j \rVert^2 - \lVert x_i \rVert^2 \\
# &\ge 2 R \Delta_S - \max_j \lVert x_j \rVert^2 > 0
# \end{aligned}
# $$
#
# for $R$ large, so every selected point is strictly closer.
# (b) Left: cosine scores only see the directions $x_i / \lVert x_i \rVert$, and a cosine query
# is an inner-product query on these unit vectors. Right (the *homogenising coordinate*): map
# $x \mapsto \phi(x) = (x, 1)/\lVert (x, 1) \rVert \in \mathbb{R}^{d+1}$ and use the query
# $(q_S, -b_S)$; then $\langle (q_S, -b_S), \phi(x) \rangle = (\langle q_S, x \rangle - b_S) /
# \lVert (x, 1) \rVert$ has the sign of $\langle q_S, x \rangle - b_S$, so threshold $0$
# separates $S$ and cosine ranking by this query puts $S$ on top.
# (c) For unit $x$: $s_{\cos}(q, x) = \langle q, x \rangle / \lVert q \rVert$ and $\lVert q - x
# \rVert^2 = \lVert q \rVert^2 + 1 - 2 \langle q, x \rangle$; for a fixed $q$ both are monotone
# in $\langle q, x \rangle$ (increasing, resp. decreasing).
# ```
#
# ### Upper bound: the moment curve
#
# ```{prf:lemma} Squared-polynomial queries on the moment curve
# :label: med-lem-moment
#
# Let $t_1 < \dots < t_m$ and $x_i = (t_i, t_i^2, \dots, t_i^{d})$ with $d \ge 2k$. For $S$ with
# $|S| \le k$ write $P_S(t) = \prod_{i \in S}(t - t_i)$ and $P_S(t)^2 = \sum_{j=0}^{2|S|} c_j
# t^j$. The query $q_S = -(c_1, \dots, c_{2|S|}, 0, \dots, 0)$ satisfies $\langle q_S, x_i \rangle
# = c_0 - P_S(t_i)^2$, which equals $c_0$ for $i \in S$ and is $< c_0$ for $i \notin S$.
# ```
#
# ```{prf:proof}
# $\langle q_S, x(t) \rangle = -\sum_{j \ge 1} c_j t^j = c_0 - P_S(t)^2$ because $d \ge 2|S|$
# captures every coefficient. $P_S(t_i) = 0$ exactly when $i \in S$ (the $t_i$ are distinct),
# and $P_S(t_j)^2 > 0$ otherwise.
# ```
#
# The lemma is the coefficient form of the classical fact that the cyclic polytope
# $\operatorname{conv}\{x(t_1), \dots, x(t_m)\} \subset \mathbb{R}^{d}$ is
# $\lfloor d/2 \rfloor$-neighbourly: every $\lfloor d/2 \rfloor$ vertices span a face
# {cite}`ziegler1995polytopes`. (Gale's evenness condition describes the facets; the polynomial
# argument above is all we need.) For unit vectors, which the robust setting and the
# free-embedding protocol require, there is a spherical version.
#
# ```{prf:proposition} A unit-norm neighbourly curve
# :label: med-prop-trig
#
# Let $x(t) = k^{-1/2}(\cos t, \sin t, \cos 2t, \sin 2t, \dots, \cos kt, \sin kt) \in
# \mathbb{S}^{2k-1}$ and $t_i = 2\pi i/m$. For $|S| \le k$ the non-negative trigonometric
# polynomial $F_S(t) = \prod_{i \in S} (1 - \cos(t - t_i))$ has degree $|S| \le k$, so $F_S(t) =
# a_0 - \langle q_S, x(t) \rangle$ for some $q_S \in \mathbb{R}^{2k}$; it vanishes exactly at the
# $t_i$ of $S$. Hence unit vectors in $\mathbb{R}^{2k}$ $k$-shatter $[m]$ for all three scores.
# ```
#
# ```{prf:proof}
# Each factor $1 - \cos(t - t_i) = 1 - \cos t_i \cos t - \sin t_i \sin t$ is a trigonometric
# polynomial of degree 1, non-negative, and zero only at $t \equiv t_i \pmod{2\pi}$ (the $t_i$
# are distinct modulo $2\pi$). A product of
# $|S|$ of them has degree $|S|$, i.e. it is a linear combination of $1, \cos jt, \sin jt$ for
# $j \le |S|$, which is $a_0$ minus an inner product with $x(t)$. It vanishes exactly on $S$ and
# is positive at the other $t_j$, so $q_S$ ranks $S$ on top; by
# {prf:ref}`med-prop-scores` (c) the same holds for cosine and Euclidean scores.
# ```
#
# ```{prf:theorem} MED is Θ(k), independent of m
# :label: med-thm-med
#
# For $m \ge 2k + 1$:
# $\operatorname{MED}(m, k; s_{\mathrm{ip}}) = \operatorname{MED}(m, k; s_{\cos}) = 2k$ and
# $2k - 1 \le \operatorname{MED}(m, k; s_{\ell_2}) \le 2k$. In particular all three are
# $\Theta(k)$: the inner-product and cosine values do not depend on $m$, and the Euclidean one
# stays in $[2k-1, 2k]$ for every $m \ge 2k+1$.
# ```
#
# ```{prf:proof}
# Upper bounds: {prf:ref}`med-lem-moment` in $d = 2k$ for inner products (and, by
# {prf:ref}`med-prop-scores` (a), for Euclidean scores); {prf:ref}`med-prop-trig` for cosine
# ({cite}`wang2026med` state $2k + 1$ via the homogenising coordinate; the spherical curve saves
# that coordinate).
#
# Lower bound for inner products (Radon's theorem, as in the appendix of {cite}`wang2026med`):
# suppose $d < 2k$ and $d \le m - 2$. Any $d + 2$ of the points split into two non-empty parts
# $A, B$ whose convex hulls intersect (Radon). As $d + 2 \le 2k + 1$, one part, say $A$, has
# $|A| \le k$, so some hyperplane strictly separates $A$ from all other points, in particular from
# $B$ — then the convex hulls of $A$ and $B$ lie in opposite open half-spaces, a contradiction.
# Hence $d \ge \min(2k, m-1) = 2k$.
#
# Lower bounds for the other scores: a Euclidean query $w$ ranks by $\langle 2w, x \rangle -
# \lVert x \rVert^2$, an inner product of the *lifted* points $(x, \lVert x \rVert^2) \in
# \mathbb{R}^{d+1}$ with $(2w, -1)$; so a Euclidean $k$-shattering configuration in $\mathbb{R}^d$
# gives an inner-product one in $\mathbb{R}^{d+1}$, and $d + 1 \ge 2k$. For cosine,
# {prf:ref}`med-prop-scores` (b) gives $d \ge \operatorname{MED}(m,k;s_{\mathrm{ip}}) = 2k$.
# ({cite}`wang2026med` state the lower bound $k - 1$ from the VC dimension, which suffices for
# $\Theta(k)$; the Radon refinement is in their appendix, for inner products only. The cosine
# value $2k$ and the Euclidean bracket $[2k-1, 2k]$ are our sharpening, by the two reductions
# above.)
# ```
#
# The Euclidean bracket is not closed here. At $k = 1$ the lower end is the truth: any $m$
# distinct reals are 1-shattered by distance (query $w = x_i$), so
# $\operatorname{MED}(m, 1; s_{\ell_2}) = 1 = 2k - 1$, while $\operatorname{MED}(m, 1;
# s_{\mathrm{ip}}) = 2$ (on a line a threshold only selects the two extreme points). We do not know
# the exact Euclidean value for $k \ge 2$.
#
# ```{prf:remark} The counting argument
# A weaker lower bound needs no geometry beyond counting: by Cover's function-counting theorem
# {cite}`cover1965counting`, affine half-spaces cut at most $C(m, d+1) = 2\sum_{i=0}^{d}
# \binom{m-1}{i} = O(m^{d})$ different subsets out of $m$ points in $\mathbb{R}^d$, while
# $k$-shattering needs $\binom{m}{k} \ge (m/k)^k$ of them; letting $m \to \infty$ forces $d \ge
# k$. Weller et al.'s sign-rank bound {cite}`weller2025limits` is the same kind of statement
# for a fixed relevance matrix.
# ```
#
# ### Robust MED and the margin ceiling
#
# ```{prf:definition} ε-robust retrieval
# :label: med-def-robust
#
# Unit vectors $x_1, \dots, x_m \in \mathbb{S}^{d-1}$ are *$\varepsilon$-robust for $k$* if every
# $S$ with $1 \le |S| \le k$ has a unit query $u_S$ with $\langle u_S, x_i \rangle \ge \langle
# u_S, x_j \rangle + \varepsilon$ for all $i \in S$, $j \notin S$. $\operatorname{RMED}(m, k,
# \varepsilon)$ is the least such $d$ (inner-product score, as in {cite}`wang2026med`; on unit
# vectors cosine gives the same margins).
# ```
#
# Without normalisation the gap means nothing: doubling $q$ doubles it.
#
# ```{prf:theorem} The margin ceiling
# :label: med-thm-ceiling
#
# Let $1 \le k < m$. If unit vectors are $\varepsilon$-robust for $k$ (any $d$; only the subsets
# with $|S| = k$ are used), then
#
# $$
# \varepsilon \le \varepsilon_\star(m, k) = \frac{m}{\sqrt{k (m-1)(m-k)}},
# \qquad \varepsilon_\star(m, k) \to \frac{1}{\sqrt{k}} \quad (m/k \to \infty).
# $$
# ```
#
# ```{prf:proof}
# Fix $|S| = k$ and average $\langle u_S, x_i - x_j \rangle \ge \varepsilon$ over $i \in S$,
# $j \notin S$: $\langle u_S, \bar x_S - \bar x_{S^c} \rangle \ge \varepsilon$, so $\lVert \bar
# x_S - \bar x_{S^c} \rVert \ge \varepsilon$ as $\lVert u_S \rVert = 1$. With $\bar x$ the mean
# of all $m$ points, $m \bar x = k \bar x_S + (m - k) \bar x_{S^c}$ gives $\bar x_S - \bar
# x_{S^c} = \tfrac{m}{m-k} (\bar x_S - \bar x)$, hence $\lVert \bar x_S - \bar x \rVert \ge
# \tfrac{m-k}{m} \varepsilon$ for *every* $k$-subset.
#
# Now draw $S$ uniformly. With $y_i = x_i - \bar x$ (so $\sum_i y_i = 0$), $\mathbb{P}(i \in S)
# = k/m$ and $\mathbb{P}(i, j \in S) = k(k-1)/(m(m-1))$ for $i \ne j$, and $\sum_{i \ne j}
# \langle y_i, y_j \rangle = \lVert \sum_i y_i \rVert^2 - \sum_i \lVert y_i \rVert^2 = -\sum_i
# \lVert y_i \rVert^2$:
#
# $$
# \mathbb{E} \Big\lVert \sum_{i \in S} y_i \Big\rVert^2
# = \Big(\frac{k}{m} - \frac{k(k-1)}{m(m-1)}\Big) \sum_i \lVert y_i \rVert^2
# = \frac{k (m-k)}{m (m-1)} \sum_i \lVert y_i \rVert^2 .
# $$
# Since $\bar x_S - \bar x = k^{-1} \sum_{i \in S} y_i$ and $\sum_i \lVert y_i \rVert^2 = m(1 -
# \lVert \bar x \rVert^2) \le m$, we get $\mathbb{E} \lVert \bar x_S - \bar x \rVert^2 \le
# \frac{m-k}{k(m-1)}$. Some $S$ is at most the mean, so $\big(\frac{m-k}{m}\big)^2
# \varepsilon^2 \le \frac{m-k}{k(m-1)}$, i.e. $\varepsilon^2 \le \frac{m^2}{k(m-1)(m-k)}$.
# ```
#
# ```{prf:proposition} The regular simplex attains the ceiling
# :label: med-prop-simplex
#
# Let $x_1, \dots, x_m \in \mathbb{R}^{m-1}$ be unit vectors with $\langle x_i, x_j \rangle =
# -1/(m-1)$ for $i \ne j$ (a regular simplex centred at the origin). For every $S$ with $|S| = s$,
# $1 \le s < m$, the normalised centroid query has margin exactly $\varepsilon_\star(m, s)$. Hence
# for $k \le m/2$ the simplex is $\varepsilon_\star(m,k)$-robust for $k$ and attains the ceiling.
# ```
#
# ```{prf:proof}
# *Existence.* The matrix $G = \frac{m}{m-1}(I - \frac{1}{m}\mathbf{1}\mathbf{1}^\top)$ has unit
# diagonal, off-diagonal entries $-1/(m-1)$, and is positive semidefinite of rank $m - 1$ (a
# multiple of the projection onto $\mathbf{1}^\perp$), so it is the Gram matrix of $m$ unit vectors
# in $\mathbb{R}^{m-1}$ (`med.regular_simplex` builds them this way).
# *Margin.* Let $z = \sum_{\ell \in S} x_\ell$. For $i \in S$: $\langle z, x_i \rangle = 1 -
# \frac{s-1}{m-1} = \frac{m-s}{m-1}$; for $j \notin S$: $\langle z, x_j \rangle =
# -\frac{s}{m-1}$. The unnormalised gap is $\frac{m}{m-1}$ and $\lVert z \rVert^2 = s + s(s-1)
# \cdot \frac{-1}{m-1} = \frac{s(m-s)}{m-1}$. Dividing, the gap of $u_S = z / \lVert z \rVert$
# is $\frac{m}{m-1} \sqrt{\frac{m-1}{s(m-s)}} = \frac{m}{\sqrt{s(m-1)(m-s)}} =
# \varepsilon_\star(m, s)$. Finally $s(m - s)$ increases in $s$ for $s \le m/2$, so
# $\varepsilon_\star(m, s) \ge \varepsilon_\star(m, k)$ for $s \le k \le m/2$.
# ```
#
# So {prf:ref}`med-thm-ceiling` is sharp, in dimension $m - 1$: no configuration, in any
# dimension, beats the simplex. (The last display of the paper's simplex proof writes the value
# as $\sqrt{m/(k(m-k)(m-1))}$, a typo for $m/\sqrt{k(m-k)(m-1)}$; its conclusion, that the gap
# equals $\varepsilon_\star$, is right.)
#
# ### The Gaussian centroid construction
#
# ```{prf:theorem} Gaussian centroid witness
# :label: med-thm-gauss
#
# Let $x_1, \dots, x_m$ ($m \ge 2$) be independent uniform points on $\mathbb{S}^{d-1}$
# (normalised Gaussians), $1 \le k < m$, and $\mu_\ast = \max_{i \ne j} |\langle x_i, x_j \rangle|$
# their coherence.
#
# (a) *Coherence.* For $\mu \in (0, 1)$: $\mathbb{P}(\mu_\ast > \mu) < m^2 e^{-d \mu^2 / 2}$.
#
# (b) *Deterministic margin.* If $\mu_\ast \le \mu < \frac{1}{2k-1}$, every $S$ with $1 \le |S|
# \le k$ is retrieved by its normalised centroid query with
#
# $$
# \operatorname{gap}_S(u_S) \ge g_k(\mu) = \frac{1 - (2k - 1)\mu}{\sqrt{k (1 + (k-1)\mu)}} .
# $$
#
# (c) *Dimension for a prescribed margin.* For $0 < \varepsilon < 1/\sqrt{k}$ and $\delta \in (0,
# 1)$, if
#
# $$
# d \ge \frac{18\, k^2 \,\big(2 \ln m + \ln(1/\delta)\big)}{(1 - \varepsilon \sqrt{k})^2},
# $$
# then with probability greater than $1 - \delta$ every $S$ with $1 \le |S| \le k$ has
# $\operatorname{gap}_S(u_S) \ge \varepsilon$. In particular $\operatorname{RMED}(m, k,
# 1/(2\sqrt{k})) \le \lceil 144\, k^2 \ln m \rceil + 1 = O(k^2 \log m)$.
# ```
#
# ```{prf:proof}
# (a) *Concentration.* For a fixed unit $u$ and uniform $x \in \mathbb{S}^{d-1}$, the cap bound
# $\mathbb{P}(\langle u, x \rangle \ge \mu) \le e^{-d\mu^2/2}$ (Lemma 2.2 of
# {cite}`ball1997convex`) and symmetry give $\mathbb{P}(|\langle x_i, x_j \rangle| > \mu) \le 2
# e^{-d \mu^2 / 2}$ (condition on $x_i$). *Union bound* over the $\binom{m}{2} < m^2/2$ pairs:
# $\mathbb{P}(\mu_\ast > \mu) < m^2 e^{-d\mu^2/2}$. No union over the $\binom{m}{k}$ subsets is
# needed, because (b) is deterministic given the coherence.
#
# (b) Fix $S$, $s = |S| \le k$, $z = \sum_{\ell \in S} x_\ell$. For $i \in S$: $\langle z, x_i
# \rangle \ge 1 - (s-1)\mu$; for $j \notin S$: $\langle z, x_j \rangle \le s\mu$; and $0 <
# \lVert z \rVert^2 \le s + s(s-1)\mu$ (positive because $\langle z, x_i \rangle > 0$). Hence the
# gap of $u_S = z/\lVert z \rVert$ is at least $(1 - (2s-1)\mu)/\sqrt{s(1 + (s-1)\mu)} =
# g_s(\mu)$; the numerator decreases and the denominator increases in $s$, so $g_s(\mu) \ge
# g_k(\mu) > 0$.
#
# (c) Put $a = \varepsilon\sqrt{k} \in (0, 1)$ and $\mu = (1 - a)/(3k)$, so $\mu < 1/(2k-1)$,
# $(2k-1)\mu \le \frac{2}{3}(1-a)$ and $(k-1)\mu \le \frac{1}{3}(1-a)$. Then $1 - (2k-1)\mu \ge
# \frac{1 + 2a}{3}$ and $\sqrt{1 + (k-1)\mu} \le \sqrt{(4 - a)/3}$, and
# $(1 + 2a)^2 - 3a^2(4 - a) = (1 - a)(1 + 5a - 3a^2) \ge 0$ on $[0, 1]$. So $1 - (2k-1)\mu \ge a
# \sqrt{1 + (k-1)\mu}$, i.e. $g_k(\mu) \ge a / \sqrt{k} = \varepsilon$. By (a) the failure
# probability is $< m^2 e^{-d\mu^2/2} \le \delta$ as soon as $d \ge 2 \ln(m^2/\delta)/\mu^2$,
# which is the displayed condition. For the last sentence take $\varepsilon = 1/(2\sqrt{k})$ and
# any $\delta < 1$ (a positive probability suffices for existence): $d > 144\, k^2 \ln m$.
# ```
#
# What this proves is a *sufficient* dimension with explicit constants, not the true threshold,
# and the constants are far from tight (the experiment below needs far fewer dimensions). Three
# readings of (c):
# - For a fixed target margin $\varepsilon$ the sufficient $d$ is linear in $\ln m$ — the trend
#   claim 01.5 measures.
# - The factor $(1 - \varepsilon\sqrt{k})^{-2}$ blows up as $\varepsilon$ approaches
#   $1/\sqrt{k}$, consistently with {prf:ref}`med-thm-ceiling` ($\varepsilon_\star \to 1/\sqrt{k}$).
# - The "$d = O(k^2 \log m/\varepsilon^2)$-type" form: for $\varepsilon \le 1/(2\sqrt{k})$ the
#   factor is at most $4$, so $d \ge 72 k^2 (2 \ln m + \ln(1/\delta))$ works for every such
#   $\varepsilon$; as $1/\varepsilon^2 \ge 4k$ there, this is at most $18 k (2\ln m +
#   \ln(1/\delta))/\varepsilon^2$, i.e. $O(k \log m / \varepsilon^2)$, which is inside $O(k^2 \log
#   m / \varepsilon^2)$. We prove no $\varepsilon^{-2}$ bound above $1/(2\sqrt{k})$: there the
#   coherence route gives $(1 - \varepsilon\sqrt{k})^{-2}$ instead.
#
# The paper's own choice $\mu = 1/(4k)$ in (b) gives margin $\ge 1/(2\sqrt{2k})$ (numerator $\ge
# 1/2$, $\lVert z \rVert^2 \le 2k$) once $d > 64 k^2 \ln m$. The matching lower bound $d \ge
# \log\binom{m}{k} / \log(1 + 2/\varepsilon)$ (a packing argument of {cite}`weller2025limits`, as
# restated in {cite}`wang2026med`; not proved here) shows that a positive normalised margin does
# make $m$ reappear, but only logarithmically.

# %% [markdown]
# ## Implementation
#
# The readable reference: for each subset, loop over the objects and compute the margin of the
# normalised centroid query; and build the squared-polynomial query of
# {prf:ref}`med-lem-moment` with NumPy's polynomial module.


# %% tags=["reference"]
def reference_centroid_margin(X, subset):
    """gap of u_S = sum_S x / ||sum_S x|| for one subset (plain loops)."""
    z = sum(X[i] for i in subset)
    u = z / np.linalg.norm(z)
    inside = min(float(u @ X[i]) for i in subset)
    outside = max(float(u @ X[j]) for j in range(len(X)) if j not in subset)
    return inside - outside


def reference_moment_query(t, subset, d):
    """q_S = -(c_1, ..., c_d) with P_S(t)^2 = sum_j c_j t^j.

    Coefficients by numpy.polynomial, in ascending order.
    """
    p = np.polynomial.polynomial.polyfromroots([t[i] for i in subset])
    c = np.polynomial.polynomial.polymul(p, p)
    return -np.pad(c[1:], (0, d - len(c) + 1)), c[0]


X_test = med.gaussian_unit(9, 5, generator=gen)
subs = med.all_subsets(9, 3, device=DEVICE)
ref = np.array(
    [reference_centroid_margin(X_test.cpu().numpy(), s) for s in subs.tolist()]
)
fast = med.centroid_margins(X_test, subs).cpu().numpy()
assert np.allclose(ref, fast, atol=1e-12), np.abs(ref - fast).max()

t_test = torch.linspace(-1, 1, 9, dtype=torch.float64)
q_fast, c0_fast = med.moment_curve_queries(t_test, subs, 6)
for s, qf, cf in zip(subs.tolist(), q_fast, c0_fast, strict=True):
    q_ref, c0_ref = reference_moment_query(t_test.numpy(), s, 6)
    assert (
        np.allclose(q_ref, qf.numpy(), atol=1e-12) and abs(c0_ref - float(cf)) < 1e-12
    )
print("reference and kernels agree on", len(subs), "subsets")

# %% [markdown]
# The kernels in `icml26.retrieval.med` compute the same quantities for all subsets at once: the
# centroid
# margins from the $m \times m$ Gram matrix only, the moment-curve queries by batched polynomial
# convolution, and `lp_margins` decides exact retrievability of each subset by the linear
# programme $\max t$ subject to $\langle w, x_i \rangle - b \ge t$ ($i \in S$), $\langle w, x_j
# \rangle - b \le -t$ ($j \notin S$), $\lVert w \rVert_\infty \le 1$, solved by HiGHS
# {cite}`huangfu2018highs` for a whole chunk of subsets as one block-diagonal sparse LP. It returns
# the margin recomputed from the solver's $w$, so a positive value is an explicit certificate.
#
# ## Experiments
#
# ### 01.1–01.2 · Four dimensions retrieve every pair, for any number of objects
#
# *Claim (Theorem 3.3 of {cite}`wang2026med`; our {prf:ref}`med-thm-med`).* Points on the moment
# curve in $\mathbb{R}^{2k}$ make every answer set of size $\le k$ retrievable, however large $m$
# is. For top-2 retrieval ($k = 2$, $d = 4$) we certify every pair with the explicit query of
# {prf:ref}`med-lem-moment` for every $m$, and independently with the LP at the largest $m$.
# Random Gaussian points in the same $\mathbb{R}^4$ are the control.

# %%
gen = fresh_generator(1)
frac_cyclic, frac_gauss, min_poly_margin, missed_cyclic = [], [], [], 0
for m in TOP2_M:
    t = torch.linspace(-1, 1, m, dtype=torch.float64, device=DEVICE)
    X = med.moment_curve(m, 4, t=t)
    pairs = med.all_subsets(m, 2, device=DEVICE)
    q, _ = med.moment_curve_queries(t, pairs, 4)
    gaps = med.subset_margins(X, q, pairs)
    min_poly_margin.append(float(gaps.min()))
    frac_cyclic.append(float((gaps > 0).double().mean()))
    missed_cyclic += int((gaps <= 0).sum())
    Xg = torch.randn(m, 4, generator=gen, dtype=torch.float64, device=DEVICE)
    frac_gauss.append(float((med.lp_margins(Xg, pairs) > 0).mean()))
lp_cyclic = med.lp_margins(
    X, pairs
)  # the largest m, independently of the explicit queries
share_gauss = [frac_gauss[-1]]  # more Gaussian draws at the largest m (claim 01.2)
for _ in range(TOP2_DRAWS - 1):
    Xg = torch.randn(TOP2_M[-1], 4, generator=gen, dtype=torch.float64, device=DEVICE)
    share_gauss.append(float((med.lp_margins(Xg, pairs) > 0).mean()))
print("m:                         ", TOP2_M)
print("cyclic, explicit queries:  ", [f"{f:.3f}" for f in frac_cyclic])
print("Gaussian in ℝ⁴, LP:       ", [f"{f:.3f}" for f in frac_gauss])
print(f"cyclic at m={TOP2_M[-1]}, LP: {np.mean(lp_cyclic > 0):.3f} of pairs certified")
print(
    f"Gaussian at m={TOP2_M[-1]}, {TOP2_DRAWS} draws, LP:",
    [f"{f:.3f}" for f in share_gauss],
)

# %% tags=["hide-input"] mystnb={"figure": {"caption": "Top-2 retrieval in $d = 4$. Points on the moment curve keep every pair retrievable as $m$ grows (claim 01.1), while Gaussian points in the same dimension lose most pairs (claim 01.2).", "name": "01-fig-cyclic"}}
fig, ax = plt.subplots()
ax.plot(
    TOP2_M,
    frac_cyclic,
    "o-",
    color=icml26.plotting.color(0),
    label="moment curve (explicit query)",
)
ax.plot(
    TOP2_M[-1],
    np.mean(lp_cyclic > 0),
    "s",
    ms=9,
    mfc="none",
    color=icml26.plotting.color(0),
    label="moment curve (LP, largest m)",
)
ax.plot(
    TOP2_M,
    frac_gauss,
    "o-",
    color=icml26.plotting.color(1),
    label="Gaussian points (LP)",
)
ax.set_xlabel("number of objects m")
ax.set_ylabel("fraction of the C(m, 2) pairs retrievable")
ax.set_ylim(0, 1.05)
ax.set_title("Top-2 retrieval in d = 4: the cyclic polytope never fails")
ax.legend()
plt.show()

# %% tags=["claim"]
# fails if: the moment-curve construction or the LP certificate is wrong (a pair left
# unretrievable)
icml26.claim(
    "01.1",
    f"moment curve in ℝ⁴: pairs not retrievable, m ≤ {TOP2_M[-1]}",
    missed_cyclic + int(np.sum(lp_cyclic <= 0)),
    at_most=0,
    kind="theorem",
)

# %% tags=["claim"]
# fails if: generic points in ℝ⁴ were as good as the moment curve (no need for its
# construction); the control is the moment curve, certified by the same LP
icml26.claim(
    "01.2",
    f"Gaussian points in ℝ⁴: retrievable share of pairs at m = {TOP2_M[-1]}",
    seeds=share_gauss,
    at_most=0.5,
    control=float(np.mean(lp_cyclic > 0)),
    control_label="moment curve",
)

# %% [markdown]
# The smallest explicit margin at $m = 60$ is tiny (printed below): existence is exact, but the
# witness is badly conditioned — a first hint of why *robust* retrieval is a different question.

# %%
print("smallest explicit-query margin per m:", [f"{g:.1e}" for g in min_poly_margin])

# %% [markdown]
# ### 01.3–01.4 · The margin ceiling $\varepsilon_\star(m,k)$ is exact
#
# *Claim (the feasibility ceiling of {cite}`wang2026med`; our {prf:ref}`med-thm-ceiling` and
# {prf:ref}`med-prop-simplex`).* Normalised-centroid queries on the regular simplex achieve
# exactly $\varepsilon_\star(m, k)$, and no unit configuration does better. We check the first
# part on a grid of $(m, k)$ with $k \le m/2$, and the second by *optimising* unit objects and
# free unit queries with Adam on a soft-min of all gaps (`med.optimize_margin`), in dimension
# $d \le m - 1$.

# %%
gen = fresh_generator(2)
simplex_err, simplex_pts = 0.0, {k: [] for k in EPS_K}
for m in EPS_M:
    Xs = med.regular_simplex(m, device=DEVICE)
    for k in EPS_K:
        if 2 * k <= m:
            g = float(
                med.centroid_margins(Xs, med.all_subsets(m, k, device=DEVICE)).min()
            )
            simplex_err = max(simplex_err, abs(g - med.eps_star(m, k)))
            simplex_pts[k].append((m, g))
opt = []
for m, k, d in OPT_CASES:
    _, _, g = med.optimize_margin(m, k, d, steps=OPT_STEPS, generator=gen)
    opt.append((m, k, d, g, med.eps_star(m, k)))
    print(
        f"m={m} k={k} d={d}: optimised margin {g:.4f}, eps_star "
        f"{med.eps_star(m, k):.4f}"
    )
print(f"max |simplex margin - eps_star| over the grid < 1e-12: {simplex_err < 1e-12}")

# %% tags=["hide-input"] mystnb={"figure": {"caption": "The margin ceiling $\\varepsilon_\\star(m, k)$: the regular simplex attains it exactly and max-margin optimisation reaches it but never exceeds it (claims 01.3 and 01.4).", "name": "01-fig-ceiling"}}
fig, ax = plt.subplots()
mm = np.arange(3, max(EPS_M) + 1)
for k in EPS_K:
    c = icml26.plotting.color(k - 1)
    ok = mm >= 2 * k
    ax.plot(
        mm[ok], [med.eps_star(int(m), k) for m in mm[ok]], color=c, label=f"ε⋆(m, {k})"
    )
    ax.axhline(1 / math.sqrt(k), color=c, ls=":", lw=1)
    pts = np.array(simplex_pts[k])
    ax.plot(pts[:, 0], pts[:, 1], "o", ms=3, color=c)
for m, _k, _d, g, _ in opt:
    ax.plot(m, g, "x", ms=9, mew=2, color="black")
ax.plot([], [], "x", color="black", label="optimised unit configurations")
ax.plot([], [], "o", ms=3, color="grey", label="simplex + centroid queries")
ax.set_xlabel("number of objects m")
ax.set_ylabel("normalised score gap")
ax.set_title("Margin ceiling: simplex on the curve, optimisation never above it")
ax.set_ylim(0.3, 1.6)
ax.legend(ncol=2)
plt.show()

# %% tags=["claim"]
# fails if: the formula for ε⋆(m, k) or the simplex with centroid queries is wrong
icml26.claim(
    "01.3",
    "simplex + centroid queries attain ε⋆(m, k): max abs error",
    round(simplex_err, 12),
    at_most=1e-9,
    kind="theorem",
)

# %% tags=["claim"]
# fails if: ε⋆ is not the optimum: the optimiser exceeds it (bound wrong) or stays below
# it (the simplex is not optimal, or the optimiser does not find it)
excess = max(g - e for *_, g, e in opt)
deviation = max(abs(g - e) for *_, g, e in opt)
print(f"largest excess over ε⋆: {excess:.1e}; largest |margin − ε⋆|: {deviation:.1e}")
icml26.claim(
    "01.4",
    "max-margin optimisation reaches ε⋆ exactly: max |margin − ε⋆|",
    round(deviation, 6),
    at_most=1e-4,
    kind="theorem",
)

# %% [markdown]
# The optimiser reaches the ceiling to four decimals (printed above) when $d = m - 1$, so the
# bound is not only an upper bound for the optimiser but attained by it.
#
# ### 01.5 · Gaussian centroids need only $O(\log m)$ dimensions for a fixed margin
#
# *Claim ({cite}`wang2026med`, Gaussian centroid witness; our {prf:ref}`med-thm-gauss`).* With
# random unit vectors and normalised centroid queries, the smallest margin over *all* pairs
# concentrates, and the dimension needed for a fixed margin grows like $\log m$. For each $m$ and
# each of `GAUSS_DRAWS` independent draws we take one Gaussian matrix $G \in \mathbb{R}^{m \times
# 512}$, use its first $d$ columns (rows normalised) as the configuration in $\mathbb{R}^d$, and
# find by bisection over integer $d$ the smallest $d$ at which the exact minimum margin over all
# $\binom{m}{2}$ pairs reaches $\varepsilon = 0.25$. Nested coordinates make the minimum margin a
# smooth function of $d$ within a draw (one draw, not a fresh one at each $d$), so the estimate is
# an integer per draw rather than an interpolation between noisy grid points; we average these
# over draws and fit $d_{\text{needed}} = a + b \ln m$. The minimum over pairs uses
# `med.min_pair_centroid_margin`, the $k = 2$ fast path of `med.centroid_margins` (checked against
# it below). (Bisection assumes that the margin rises
# with $d$, which holds on average but not at every step; it returns *a* crossing point in
# the bracket $[8, 512]$.) With these settings (9 values of $m$ from 8 to 128, 32 draws each) the
# $R^2$ of the $\ln m$ fit stayed between 0.991 and 0.998 over ten other seeds; with 5 draws, 4
# values of $m$ and grid interpolation it had ranged 0.93–0.997. The claim below does not rest on
# $R^2$, which cannot separate $\ln m$ from a small power of $m$, but on a comparison of models.

# %%
gen = fresh_generator(3)


def min_pair_margin(G, d):
    """Exact centroid margin of the unit rows of G[:, :d].

    The minimum over all C(m, 2) pairs.
    """
    X = G[:, :d] / G[:, :d].norm(dim=1, keepdim=True)
    return float(med.min_pair_centroid_margin(X))


def d_reaching(G, eps, lo, hi):
    """Bisection on nested prefixes: invariant margin(lo) < eps <= margin(hi)."""
    assert min_pair_margin(G, lo) < eps <= min_pair_margin(G, hi), "widen GAUSS_D_RANGE"
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if min_pair_margin(G, mid) >= eps else (mid, hi)
    return hi


X_chk = med.gaussian_unit(
    20, 6, generator=gen
)  # the k = 2 fast path against the general kernel
assert (
    abs(
        float(med.min_pair_centroid_margin(X_chk))
        - float(
            med.centroid_margins(X_chk, med.all_subsets(20, 2, device=DEVICE)).min()
        )
    )
    < 1e-12
)
d_draws = np.zeros((len(GAUSS_M), GAUSS_DRAWS))
curves = {m: [] for m in GAUSS_CURVE_M}
for a, m in enumerate(icml26.progress(GAUSS_M, desc="Gaussian centroids")):
    for r in range(GAUSS_DRAWS):
        G = torch.randn(
            m, GAUSS_D_RANGE[1], generator=gen, dtype=torch.float64, device=DEVICE
        )
        d_draws[a, r] = d_reaching(G, GAUSS_EPS, *GAUSS_D_RANGE)
        if m in curves and r < GAUSS_CURVE_DRAWS:
            curves[m].append([min_pair_margin(G, d) for d in GAUSS_D])
d_need = d_draws.mean(axis=1)
slope, intercept = np.polyfit(np.log(GAUSS_M), d_need, 1)
pred = intercept + slope * np.log(GAUSS_M)
r2 = 1 - np.sum((d_need - pred) ** 2) / np.sum((d_need - d_need.mean()) ** 2)
print("d needed for margin 0.25 (mean of draws):")
print(dict(zip(GAUSS_M, [f"{x:.1f}" for x in d_need], strict=True)))
lin = np.polyval(np.polyfit(GAUSS_M, d_need, 1), GAUSS_M)
r2_lin = 1 - np.sum((d_need - lin) ** 2) / np.sum((d_need - d_need.mean()) ** 2)
print(
    f"fit d = {intercept:.1f} + {slope:.1f} ln m,  R² = {r2:.3f}  (linear in m: "
    f"{r2_lin:.3f})"
)
k_, a_ = 2, GAUSS_EPS * math.sqrt(2)
bound = 18 * k_**2 * (2 * math.log(GAUSS_M[-1]) + math.log(2)) / (1 - a_) ** 2
print(
    f"Theorem (c), k=2, eps=0.25, delta=1/2, m={GAUSS_M[-1]}: d >= {bound:.0f} suffices"
)

# %% tags=["hide-input"] mystnb={"figure": {"caption": "Left: the normalised-centroid margin of Gaussian configurations rises with $d$. Right: the dimension needed for margin 0.25 grows like $\\ln m$ (claim 01.5).", "name": "01-fig-gauss"}}
fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(7.5, 3.3))
for a, m in enumerate(GAUSS_CURVE_M):
    ax1.plot(
        GAUSS_D,
        np.mean(curves[m], axis=0),
        "o-",
        ms=3,
        color=icml26.plotting.color(a),
        label=f"m = {m}",
    )
ax1.axhline(GAUSS_EPS, color="grey", ls="--", lw=1)
ax1.axhline(
    med.eps_star(10**6, 2), color="black", ls=":", lw=1, label="1/sqrt(2) ceiling"
)
ax1.set_xscale("log")
ax1.set_xticks([16, 32, 64, 128], ["16", "32", "64", "128"])
ax1.minorticks_off()
ax1.set_xlabel("dimension d")
ax1.set_ylabel(f"min margin over all pairs (mean of {GAUSS_CURVE_DRAWS} draws)")
ax1.set_title("Centroid margin rises with d")
ax1.legend()
for r in range(GAUSS_DRAWS):
    ax2.plot(np.log(GAUSS_M), d_draws[:, r], ".", ms=3, color="grey", alpha=0.5)
ax2.plot([], [], ".", color="grey", label="single draws")
ax2.plot(
    np.log(GAUSS_M), d_need, "o", color=icml26.plotting.color(0), label="mean of draws"
)
ax2.plot(
    np.log(GAUSS_M),
    pred,
    "-",
    color=icml26.plotting.color(1),
    label=f"{intercept:.0f} + {slope:.0f} ln m",
)
ax2.set_xlabel("ln m  (m = number of objects)")
ax2.set_ylabel("d needed for margin 0.25")
ax2.set_title("...and the d needed grows like log m")
ax2.legend()
plt.show()

# %% [markdown]
# A high $R^2$ alone cannot tell $\ln m$ from a slowly growing power: a straight line in $\sqrt{m}$
# or in $m^{1/4}$ also fits these nine points with $R^2$ above 0.9 (printed below). The claim
# therefore compares two models with the same number of parameters, $d = a + b \ln m$ and
# $d = c\, m^{p}$ with a free exponent $p$, by Akaike's information criterion with Gaussian
# residuals, $\mathrm{AIC} = n \ln(\mathrm{RSS}/n) + 2 \cdot (\text{parameters})$; it holds when
# the power law is worse by $\Delta\mathrm{AIC} \ge 2$, the usual threshold above which the
# worse model has no substantial support {cite}`burnham2002model`. The negative control applies the
# same test to a response that *is* a power of $m$ (with residuals of the same size), which must
# prefer the power law. The claim is decided over 4 seeds, the 32 draws split into 4 disjoint
# groups of 8, each group's mean $d_{\text{needed}}$ tested on its own, by the one-sided 95 %
# confidence bound of the mean $\Delta\mathrm{AIC}$; the control is run on each group's
# residuals.


# %% tags=["claim"]
def delta_aic(m, y):
    """AIC(d = c m^p) - AIC(d = a + b ln m), both two-parameter least-squares fits."""
    m, y = np.asarray(m, float), np.asarray(y, float)
    rss_log = np.sum((y - np.polyval(np.polyfit(np.log(m), y, 1), np.log(m))) ** 2)
    slope0, icpt0 = np.polyfit(np.log(m), np.log(y), 1)  # start from the log-log fit
    (c, p), _ = scipy.optimize.curve_fit(
        lambda x, c, p: c * x**p, m, y, p0=(np.exp(icpt0), slope0)
    )
    rss_pow = np.sum((y - c * m**p) ** 2)
    return len(m) * np.log(rss_pow / rss_log), p


daic, p_fit = delta_aic(GAUSS_M, d_need)
daic_groups, daic_ctrl_groups = [], []
for grp in np.array_split(np.arange(GAUSS_DRAWS), GAUSS_GROUPS):
    d_g = d_draws[:, grp].mean(axis=1)
    res_g = d_g - np.polyval(np.polyfit(np.log(GAUSS_M), d_g, 1), np.log(GAUSS_M))
    daic_groups.append(delta_aic(GAUSS_M, d_g)[0])
    daic_ctrl_groups.append(delta_aic(GAUSS_M, 12 * np.power(GAUSS_M, 0.45) + res_g)[0])
print(
    f"ΔAIC per group of {GAUSS_DRAWS // GAUSS_GROUPS} draws:",
    [f"{x:.1f}" for x in daic_groups],
    "; control:",
    [f"{x:.1f}" for x in daic_ctrl_groups],
)
for q in (0.5, 0.25):
    fq = np.polyval(np.polyfit(np.power(GAUSS_M, q), d_need, 1), np.power(GAUSS_M, q))
    print(
        f"R² of a line in m^{q}: "
        f"{1 - np.sum((d_need - fq) ** 2) / np.sum((d_need - d_need.mean()) ** 2):.3f}"
    )
print(f"R² of a line in ln m: {r2:.3f}; best power law d = c m^p has p = {p_fit:.2f}")
noise = d_need - pred  # the residuals of the log fit, added to a true power law
control, _ = delta_aic(GAUSS_M, 12 * np.power(GAUSS_M, 0.45) + noise)
print(f"negative control (d = 12 m^0.45 + the same residuals): ΔAIC = {control:.1f}")
assert slope > 0, "the dimension needed must grow with m"
assert control < -2, (
    "the AIC test must prefer the power law when the truth is a power law"
)
# fails if: the dimension needed grew like a power of m (the power law fits as well as
# ln m), as for the control, a true power law with the same residuals
icml26.claim(
    "01.5",
    "d needed for margin 0.25 grows like ln m: ΔAIC(power − log)",
    seeds=daic_groups,
    rule="mean-ci",
    at_least=2.0,
    control=daic_ctrl_groups,
    control_label="d = 12 m^0.45",
)

# %% [markdown]
# Pooled over all 32 draws the power law loses clearly ($\Delta\mathrm{AIC}$ about 19, printed
# above), but a group of 8 draws does not always decide: two of the four groups prefer
# $\ln m$ strongly and two barely or not at all, so the lower confidence bound of the mean is
# negative and the claim is **NOT REPRODUCED** at this number of draws. With 8 draws the mean
# $d_{\text{needed}}$ is too noisy for model selection between $\ln m$ and a power
# $m^{0.36}$ over a factor 16 in $m$; the pooled fit favours $\ln m$, but one experiment is not
# several (see Limits).
#
# ### 01.6–01.7 · The free-embedding "critical n" measures the optimiser, not the geometry
#
# *Claim ({cite}`wang2026med`, Section 5.1, against the free-embedding experiment of
# {cite}`weller2025limits`).* Weller et al. train free unit document and query vectors for all
# $\binom{n}{2}$ top-2 queries with full-batch InfoNCE {cite}`oord2018cpc` (Adam, learning rate
# 0.01, temperature 0.1, unit renormalisation after each step), call the largest $n$ they can
# fit in dimension $d$ the *critical n*, and fit the cubic
# $n(d) = -10.5322 + 4.0309 d + 0.0520 d^2 + 0.0037 d^3$ ($r^2 = 0.999$ in
# {cite}`weller2025limits`; we quote the coefficients as reproduced in secondary summaries of the
# paper; the chapter could not check them against the original table). We rerun the protocol, all $(d, n)$ problems
# batched into one padded tensor (`med.train_free_embeddings`, three random restarts each, far
# fewer steps than their 100 000), and compare with what exact geometry allows for *unit*
# vectors: $n = 3$ in $d = 2$ (a polygon has only adjacent pairs as edges), $n = 4$ in $d = 3$
# (the edge graph of a 3-polytope is planar, and $K_5$ is not), and every $n$ in $d \ge 4$
# ({prf:ref}`med-prop-trig`).

# %%
gen = fresh_generator(4)
problems = [
    (d, n) for d, ns in FREE_N.items() for n in ns for _ in range(FREE_RESTARTS)
]
n_max = max(n for _, n in problems)
rel = torch.zeros(
    len(problems), math.comb(n_max, 2), n_max, dtype=torch.bool, device=DEVICE
)
doc_mask = torch.zeros(len(problems), n_max, dtype=torch.bool, device=DEVICE)
for p, (_d, n) in enumerate(problems):
    for qi, (a, b) in enumerate(itertools.combinations(range(n), 2)):
        rel[p, qi, a] = rel[p, qi, b] = True
    doc_mask[p, :n] = True
dims = torch.tensor([d for d, _ in problems], device=DEVICE)
solved, _, _ = med.train_free_embeddings(
    rel, max(FREE_N), doc_mask=doc_mask, dims=dims, steps=FREE_STEPS, generator=gen
)
restart = [r for ns in FREE_N.values() for _ in ns for r in range(FREE_RESTARTS)]
solved_r = {
    (d, n, r): ok
    for (d, n), r, ok in zip(problems, restart, solved.tolist(), strict=True)
}


def critical_n(fits):
    """Per d, the largest n of the grid such that every n' <= n is fitted."""
    out = {}
    for d, ns in FREE_N.items():
        ok = [n for n in ns if all(fits(d, j) for j in ns if j <= n)]
        out[d] = max(ok) if ok else min(ns) - 1
    return out


def weller_cubic(d):
    return -10.5322 + 4.0309 * d + 0.0520 * d**2 + 0.0037 * d**3


def cubic_deviation(crit):
    """Largest relative deviation of a critical-n curve from the cubic, d >= 4."""
    return max(abs(crit[d] - weller_cubic(d)) / weller_cubic(d) for d in crit if d >= 4)


def trig_fits(n):
    """Does the trigonometric moment curve (d = 4) retrieve all C(n, 2) pairs?"""
    Xn, tn = med.trig_moment_curve(n, 2, device=DEVICE)
    pn = med.all_subsets(n, 2, device=DEVICE)
    gap = med.subset_margins(Xn, med.trig_moment_queries(tn, pn, 2), pn)
    return float(gap.min()) > 0


# the protocol's critical n (best of the restarts), and each restart's on its own
critical = critical_n(lambda d, n: any(solved_r[d, n, r] for r in range(FREE_RESTARTS)))
critical_r = [
    critical_n(lambda d, n, r=r: solved_r[d, n, r]) for r in range(FREE_RESTARTS)
]
geometry = critical_n(lambda d, n: d >= 4 and trig_fits(n))  # exact, d >= 4
print("d:            ", list(critical))
print("critical n:   ", list(critical.values()))
for r, c in enumerate(critical_r):
    print(f"  restart {r}:  ", list(c.values()))
print("Weller cubic: ", [f"{weller_cubic(d):.1f}" for d in critical])

# %% tags=["hide-input"] mystnb={"figure": {"caption": "Free embeddings trained with InfoNCE stall near Weller et al.'s cubic, while unit vectors on the trigonometric moment curve fit every $n$ exactly in $d \\ge 4$ (claims 01.6 and 01.7).", "name": "01-fig-free"}}
Xt, tt = med.trig_moment_curve(60, 2, device=DEVICE)
pairs60 = med.all_subsets(60, 2, device=DEVICE)
trig_gap = med.subset_margins(Xt, med.trig_moment_queries(tt, pairs60, 2), pairs60)
dd = np.array(list(critical), dtype=float)
coef = np.polyfit(dd, list(critical.values()), 3)
grid = np.linspace(dd.min(), dd.max(), 100)
fig, ax = plt.subplots()
ax.plot(
    dd,
    list(critical.values()),
    "o",
    color=icml26.plotting.color(0),
    label="our critical n",
)
ax.plot(
    grid,
    np.polyval(coef, grid),
    "-",
    color=icml26.plotting.color(0),
    lw=1,
    label="our cubic fit",
)
ax.plot(
    grid[grid >= 3],
    weller_cubic(grid[grid >= 3]),
    "--",
    color=icml26.plotting.color(1),
    label="Weller et al. cubic",
)
ax.plot(
    [2, 3],
    [3, 4],
    "s",
    ms=8,
    mfc="none",
    color="black",
    label="exact limit, unit vectors",
)
ax.annotate(
    "unit vectors, d >= 4: every n is exactly\n"
    f"retrievable (n = 60 certified, min gap {float(trig_gap.min()):.0e})",
    xy=(4, critical[4]),
    xytext=(4.2, 0.5),
    arrowprops=dict(arrowstyle="->"),
    fontsize=9,
)
ax.set_xlabel("dimension d")
ax.set_ylabel("largest n with all C(n, 2) pairs fitted")
ax.set_title("Free embeddings stall where geometry does not")
ax.legend(loc="upper left")
plt.show()

# %% tags=["claim"]
# fails if: InfoNCE fitted every n tried in d = 4 (critical n = the largest n tried):
# then the optimiser would not stall below what exact geometry achieves
assert float(trig_gap.min()) > 0, (
    "unit vectors on the trigonometric curve fit n = 60 exactly"
)
icml26.claim(
    "01.6",
    f"d = 4: InfoNCE stalls below n = {max(FREE_N[4])} (geometry fits n = 60)",
    seeds=[c[4] for c in critical_r],
    at_most=max(FREE_N[4]) - 1,
    control=geometry[4],
    control_label="moment curve",
)

# %% tags=["claim"]
# fails if: our protocol does not reproduce Weller et al.'s free-embedding curve (25 %:
# one document at d = 4 is 15 % of the cubic's value, so this allows discretisation, not
# drift), e.g. if it fitted what the geometry allows (the control)
icml26.claim(
    "01.7",
    "critical n for d ≥ 4 follows Weller et al.'s cubic: max rel. deviation",
    seeds=[cubic_deviation(c) for c in critical_r],
    at_most=0.25,
    control=cubic_deviation(geometry),
    control_label="exact geometry",
)

# %% [markdown]
# Both claims are decided restart by restart (each restart is one seed of the protocol, with its
# own critical $n$, every restart must pass); the controls are the trigonometric moment curve,
# which certifies every $n$ tried in $d \ge 4$. 01.6 holds on every restart. 01.7 does not: two
# of the three restarts follow the cubic within 6 % at every $d \ge 4$, but the third fits
# $n = 9$ at $d = 4$, 35 % above the cubic's 6.7 (printed above; the best of the three, drawn in
# the figure, inherits it). The critical $n$ at small $d$ depends on the run, which is the point
# of this section — it measures the optimiser — but it also means that our agreement with the
# published curve holds for most runs, not for every one, and the claim is **NOT REPRODUCED** as
# stated per run.
#
# For $d \le 3$ the protocol reaches the exact geometric limit; from $d = 4$ on, the geometry
# allows every $n$ while the optimiser stalls near Weller et al.'s curve. Their extrapolation
# ("for web-scale search, even the largest embedding dimensions with ideal test-set optimization
# are not enough", {cite}`weller2025limits`) therefore extrapolates the optimiser.
#
# ### 01.8–01.9 · Simple trained retrievers overfit LIMIT-small
#
# *Claim ({cite}`wang2026med`, Section 5.2).* On LIMIT-small, simple single-vector retrievers beat
# the best single-vector LLM embedding baseline reported by Weller et al.
#
# **The number we compare with** is one value from one source: **recall@2 = 0.543 of Promptriever
# Llama3 8B** {cite}`weller2025promptriever` (a single-vector embedding model, $d = 4096$) **on the
# official LIMIT-small**, as reported by {cite:t}`weller2025limits`. It is quoted from
# Section 5.2 of {cite}`wang2026med`, which names it "the strongest comparable single-vector
# embedding result reported by" Weller et al. (0.030 on the full LIMIT); it is not checked here against
# Weller et al.'s own table. We have no certain recall@10 or recall@20 for this model, so the
# comparison is recall@2 only.
#
# **The data are the official LIMIT-small files** (`data/limit-small`, copied unchanged from
# `google-deepmind/limit`, CC-BY 4.0, copyright 2025 Google LLC; provenance and sha256 in
# `data/README.md`): 46 people, 1000 queries "Who likes X?", two relevant people each. Retrievers:
# BM25 {cite}`robertson2009bm25` with `bm25s` {cite}`lu2024bm25s`; all-MiniLM-L6-v2
# {cite}`wang2020minilm,reimers2019sbert` (384-d, shipped with its Python package); the MED
# paper's *label-unaware random token-sum* embedding (every word gets a fixed random Gaussian
# vector $g_w \sim \mathcal{N}(0, I_d)$, a text is the sum $\phi(x) = \sum_{w \in x} g_w$ of its
# words' vectors, documents are ranked by $\langle \phi(q), \phi(c) \rangle$; nothing is learned
# and the qrels are never seen) at $d \in \{256, 512, 1024, 4096\}$; and three
# single-vector retrievers that *use the task's own qrels*: a bag-of-word-n-grams encoder
# ($d = 8$, trained), free embeddings ($d = 16$, trained), and the exact
# trigonometric-moment-curve overfit ($d = 4$, constructed by {prf:ref}`med-prop-trig`).
#
# ```{important}
# The three retrievers trained or constructed *on the test qrels* measure **memorisation
# capacity** — can $d$ dimensions store this relevance matrix? — not retrieval quality: they
# have never seen a query they were not trained on. Claims 01.8 and 01.9 are statements about
# capacity.
# The token-sum embedding is the paper's own evidence; its published recall@2 figures are
# compared with ours in claims 01.10–01.11 below.
# ```

# %%
data = limit.load_mteb(DATA)
synth = limit.load_mteb(DATA_SYNTH)
R = data.relevance.to(DEVICE)
print(
    f"{len(data.doc_ids)} documents, {len(data.query_ids)} queries, {int(R.sum())} "
    "qrels"
)
print(
    "example:",
    data.query_texts[0],
    "->",
    [data.doc_ids[i] for i in R[0].nonzero().flatten()],
)
stop = retrievers.bm25s_stopwords()
vanilla = retrievers.vanilla_stopwords()  # the token-sum control's word tokenizer


def unlearned_scores(d: limit.LimitData, gen: torch.Generator) -> dict[str, np.ndarray]:
    """BM25, MiniLM and the random token-sum embeddings: none of them sees the qrels."""
    out = {
        "BM25 (bm25s)": retrievers.bm25s_scores(d.doc_texts, d.query_texts),
        "MiniLM-L6 (d=384)": retrievers.minilm_scores(
            d.doc_texts, d.query_texts
        ),  # one thread
    }
    for dim in TOKEN_SUM_D:
        out[f"random token sum (d={dim})"] = retrievers.token_sum_scores(
            d.doc_texts, d.query_texts, dim, generator=gen, stopwords=vanilla
        )
    return out


def recalls(scores: dict[str, np.ndarray], rel: torch.Tensor) -> dict[str, list[float]]:
    return {
        name: [
            float(med.recall_at_k(torch.as_tensor(s, device=DEVICE), rel, k))
            for k in (2, 10, 20)
        ]
        for name, s in scores.items()
    }


gen = fresh_generator(5)
scores = unlearned_scores(data, gen)
scores[f"trained bag of n-grams (d={BOW_D})"] = retrievers.train_bow_encoder(
    data.doc_texts,
    data.query_texts,
    R,
    BOW_D,
    steps=BOW_STEPS,
    generator=gen,
    stopwords=stop,
)
_, Qf, Df = med.train_free_embeddings(
    R[None], FREE_LIMIT_D, steps=FREE_LIMIT_STEPS, generator=gen
)
scores[f"free embeddings (d={FREE_LIMIT_D})"] = (Qf[0] @ Df[0].T).cpu().numpy()
Xc, tc = med.trig_moment_curve(len(data.doc_ids), 2, device=DEVICE)
answer = torch.stack([r.nonzero().flatten() for r in R])
scores["trig. moment curve (d=4)"] = (
    (med.trig_moment_queries(tc, answer, 2) @ Xc.T).cpu().numpy()
)
table = recalls(scores, R)
print(f"\n{'retriever (official LIMIT-small)':34s} recall@2  recall@10  recall@20")
for name, (r2_, r10, r20) in table.items():
    print(f"{name:34s} {r2_:8.3f} {r10:10.3f} {r20:10.3f}")

# %% [markdown]
# **Generated vs official.** Our generator ({func}`~icml26.retrieval.limit.generate_limit`,
# `data/limit-small-synth`) follows the published recipe and reproduces the relevance structure
# (46 documents, 1000 queries, two relevant documents each) but not the wording: its 1600
# attributes are compositional two-word phrases ("Silver Hats") built from 80 words, so every
# attribute shares each of its words with 39 others, while the official attributes are mostly
# distinct words. The retrievers whose scores depend on the wording — all but the free embeddings
# and the moment curve, which see only the relevance matrix — are run on both, with the same
# settings. A third column uses the generator's `vocabulary="matched"` mode, which keeps the
# recipe but draws attributes of pseudo-words with the official statistics (58 % one-word
# attributes, about 1.2 distinct words per attribute, about 73 words per document; MiniLM and the
# trained encoder are not run on it, `nan`):

# %%
gen = fresh_generator(7)
Rs = synth.relevance.to(DEVICE)
synth_scores = unlearned_scores(synth, gen)
synth_scores[f"trained bag of n-grams (d={BOW_D})"] = retrievers.train_bow_encoder(
    synth.doc_texts,
    synth.query_texts,
    Rs,
    BOW_D,
    steps=BOW_STEPS,
    generator=gen,
    stopwords=stop,
)
synth_table = recalls(synth_scores, Rs)
bow_synth_r2 = [synth_table[f"trained bag of n-grams (d={BOW_D})"][0]]
for j in range(1, BOW_SEEDS):
    s_j = retrievers.train_bow_encoder(
        synth.doc_texts,
        synth.query_texts,
        Rs,
        BOW_D,
        steps=BOW_STEPS,
        generator=fresh_generator(70 + j),
        stopwords=stop,
    )
    bow_synth_r2.append(
        float(med.recall_at_k(torch.as_tensor(s_j, device=DEVICE), Rs, 2))
    )
matched = limit.parse_mteb(
    limit.generate_limit(seed=limit.LIMIT_SMALL_SEED, vocabulary="matched")
)
Rm = matched.relevance.to(DEVICE)
matched_scores = {
    "BM25 (bm25s)": retrievers.bm25s_scores(matched.doc_texts, matched.query_texts)
}
for dim in TOKEN_SUM_D:
    matched_scores[f"random token sum (d={dim})"] = retrievers.token_sum_scores(
        matched.doc_texts, matched.query_texts, dim, generator=gen, stopwords=vanilla
    )
matched_table = recalls(matched_scores, Rm)
print(
    f"{'recall@2 / recall@10':34s} {'official':>15s} {'generated':>15s} "
    f"{'matched':>15s}"
)
for name, (g2, g10, _) in synth_table.items():
    o2, o10, _ = table[name]
    m2, m10, _ = matched_table.get(name, (math.nan, math.nan, None))
    print(
        f"{name:34s} {o2:7.3f} / {o10:5.3f} {g2:7.3f} / {g10:5.3f} {m2:7.3f} / "
        f"{m10:5.3f}"
    )
print(
    f"trained bag of n-grams, generated set, recall@2 over {BOW_SEEDS} training seeds: "
    f"mean {np.mean(bow_synth_r2):.3f}, range {min(bow_synth_r2):.3f}–"
    f"{max(bow_synth_r2):.3f}"
)

# %% tags=["hide-input"] mystnb={"figure": {"caption": "Recall@2 on the official LIMIT-small and on our generated versions of it. BM25 and the random token-sum embedding at large $d$ nearly solve the official data and the generated data with matched vocabulary, but fail with the default compositional vocabulary; encoders trained on the test relevance judgements memorise them on both (claims 01.8 and 01.9); the moment curve solves the task exactly, by construction.", "name": "01-fig-limit"}}
fig, ax = plt.subplots(figsize=(7.4, 3.8))
names = list(table)
for j, (tab, label) in enumerate(
    [
        (table, "official"),
        (synth_table, "generated, default vocabulary"),
        (matched_table, "generated, matched vocabulary"),
    ]
):
    idx = [i for i, n in enumerate(names) if n in tab]
    ax.bar(
        np.array(idx) + (j - 1) * 0.27,
        [tab[names[i]][0] for i in idx],
        0.27,
        color=icml26.plotting.color(j),
        label=label,
    )
x = np.arange(len(names))
ax.axhline(
    WELLER_R2_LIMIT_SMALL,
    color="black",
    ls="--",
    lw=1,
    label="Promptriever Llama3 8B on official LIMIT-small [Weller et al.]",
)
ax.set_xticks(
    x, [n.replace(" (", "\n(") for n in names], fontsize=7, rotation=30, ha="right"
)
ax.set_ylabel("recall@2")
ax.set_ylim(0, 1.2)
ax.set_title("Word matching needs distinct attribute words; memorisation needs none")
ax.legend(fontsize=7, ncol=2, loc="upper left")
plt.show()

# %% tags=["claim"]
# fails if: a tiny encoder trained on the test qrels could not memorise them to
# Promptriever's recall@2 (0.543); this measures memorisation capacity, not retrieval
# quality. The control is MiniLM-L6, a single-vector retriever that never saw the qrels
bow_r2 = [table[f"trained bag of n-grams (d={BOW_D})"][0]]  # the table's run: seed 0
for j in range(1, BOW_SEEDS):
    s_j = retrievers.train_bow_encoder(
        data.doc_texts,
        data.query_texts,
        R,
        BOW_D,
        steps=BOW_STEPS,
        generator=fresh_generator(50 + j),
        stopwords=stop,
    )
    bow_r2.append(float(med.recall_at_k(torch.as_tensor(s_j, device=DEVICE), R, 2)))
icml26.claim(
    "01.8",
    f"encoder trained on the qrels (d = {BOW_D}) memorises to recall@2",
    seeds=bow_r2,
    at_least=WELLER_R2_LIMIT_SMALL,
    control=table["MiniLM-L6 (d=384)"][0],
    control_label="MiniLM-L6",
)

# %% [markdown]
# The moment curve's recall@2 of 1 holds by construction ({prf:ref}`med-prop-trig`), so it is
# an assertion, not a claim. What can fail is whether an *optimiser* finds such a
# configuration: free query and document vectors trained on the qrels with InfoNCE (the
# protocol of 01.6–01.7, `FREE_LIMIT_STEPS` steps) in $d = 16$, over three training seeds, with
# the same training in $d = 2$ as the control — there no unit configuration retrieves all
# pairs (a polygon's only edges are adjacent pairs).

# %% tags=["claim"]
# fails if: free embeddings trained on the qrels could not memorise them to
# Promptriever's recall@2 in d = 16 (the control: the same training in d = 2)
assert table["trig. moment curve (d=4)"][0] == 1.0, "the moment curve is exact"
S_F = FREE_LIMIT_SEEDS
_, Qs, Ds = med.train_free_embeddings(
    R[None].expand(2 * S_F, -1, -1).contiguous(),
    FREE_LIMIT_D,
    dims=torch.tensor([FREE_LIMIT_D] * S_F + [2] * S_F, device=DEVICE),
    steps=FREE_LIMIT_STEPS,
    generator=fresh_generator(60),
)
free_r2 = [float(med.recall_at_k(Qs[i] @ Ds[i].T, R, 2)) for i in range(2 * S_F)]
icml26.claim(
    "01.9",
    f"free embeddings trained on the qrels (d = {FREE_LIMIT_D}) memorise to recall@2",
    seeds=free_r2[:S_F],
    at_least=WELLER_R2_LIMIT_SMALL,
    control=free_r2[S_F:],
    control_label="d = 2",
)

# %% [markdown]
# ### 01.10–01.11 · The paper's own evidence, the random token-sum grid
#
# *Claim ({cite}`wang2026med`, Section 5.2 and the appendix grid).* The label-unaware random
# token-sum embedding, with a plain word tokenizer ("vanilla": split on spaces and punctuation,
# stop words removed), beats Promptriever's 0.543 on LIMIT-small **from $d = 512$ on**, and
# reaches recall@2 0.9545 at $d = 4096$. The paper reports recall@2 only, one random draw per
# dimension, for three tokenizers: the vanilla one (its main control), the "handmade" phrase
# tokenizer built from the dataset's own attribute list, and the subword tokenizer of
# Qwen3-0.6B. We quote its grid and rerun the vanilla control, whose tokenizer is the only one we
# can rebuild offline, with several independent draws (`TOKEN_SUM_SEEDS`) of the token vectors per
# $d$, so that the paper's single draw can be placed inside the spread of draws.
#
# ```{admonition} What the paper states and what this chapter reconstructs
# :class: note
#
# The paper states the construction (Gaussian token vectors, summed with repeats, ranked by the
# inner product), the grid of dimensions and the recall@2 values quoted here. It does not list
# the stop words of its vanilla tokenizer. Removing the `bm25s` English stop words *and* the
# template verb "likes", which occurs once in every document and every query, is our choice; it
# is the tokenizer {func}`~icml26.retrieval.retrievers.vanilla_stopwords` names, and it was chosen
# after comparing with the paper's grid, so both claims below are marked *tuned*. Keeping
# "likes" (the `bm25s` list alone) adds a random cross term to every score: we run that
# tokenizer too, with the same draws, and report both. With it the mean recall@2 at $d = 512$
# falls below 0.543 (the `tuned` field of 01.10), so 01.10 would fail, and the paper's grid lies
# more than 3 standard deviations from our draws at some $d$ (the control of 01.11).
# ```

# %%
# (tokenizer, d, draw, recall@2/10/20): ours, and the bm25s stop words alone
draws_all = np.zeros((2, len(TOKEN_SUM_GRID), TOKEN_SUM_SEEDS, 3))
cells = [
    (a, i, j)
    for a in range(2)
    for i in range(len(TOKEN_SUM_GRID))
    for j in range(TOKEN_SUM_SEEDS)
]
for a, i, j in icml26.progress(cells, desc="token-sum grid"):
    s_ij = retrievers.token_sum_scores(
        data.doc_texts,
        data.query_texts,
        TOKEN_SUM_GRID[i],
        generator=fresh_generator(1000 + j),
        stopwords=(vanilla, stop)[a],
    )
    s_ij = torch.as_tensor(s_ij, device=DEVICE)
    draws_all[a, i, j] = [float(med.recall_at_k(s_ij, R, k)) for k in (2, 10, 20)]
draws, draws_bm25s = draws_all
mean2, sd2 = draws[:, :, 0].mean(1), draws[:, :, 0].std(1, ddof=1)
paper2 = np.array(PAPER_TOKEN_SUM_R2["vanilla"])
mean2_u, sd2_u = draws_bm25s[:, :, 0].mean(1), draws_bm25s[:, :, 0].std(1, ddof=1)
z_u = (paper2 - mean2_u) / sd2_u
print(
    f"{'d':>5s} {'recall@2 (ours, mean ± sd)':>27s} {'paper':>7s} {'z':>6s} "
    f"{'recall@10':>9s} {'recall@20':>9s}"
)
for i, dim in enumerate(TOKEN_SUM_GRID):
    z = (paper2[i] - mean2[i]) / sd2[i]
    print(
        f"{dim:5d} {mean2[i]:19.3f} ± {sd2[i]:.3f} {paper2[i]:7.4f} {z:6.2f} "
        f"{draws[i, :, 1].mean():9.3f} {draws[i, :, 2].mean():9.3f}"
    )
print("bm25s stop words alone ('likes' kept), recall@2 mean ± sd and z:")
for i, dim in enumerate(TOKEN_SUM_GRID):
    print(
        f"{dim:5d} {mean2_u[i]:19.3f} ± {sd2_u[i]:.3f} {paper2[i]:7.4f} {z_u[i]:6.2f}"
    )

# %% tags=["hide-input"] mystnb={"figure": {"caption": "Recall@2 of the label-unaware random token-sum embedding on the official LIMIT-small against the dimension $d$: our draws of the vanilla control (mean and range over draws) and the paper's single-draw values for its three tokenizers. Every curve crosses the 0.543 of the 4096-dimensional Promptriever embedder; the vanilla one between $d = 256$ and $d = 512$ (claims 01.10–01.11).", "name": "01-fig-token-sum"}}
fig, ax = plt.subplots(figsize=(7.0, 3.6))
lo, hi = draws[:, :, 0].min(1), draws[:, :, 0].max(1)
ax.fill_between(
    TOKEN_SUM_GRID, lo, hi, color=icml26.plotting.color(0), alpha=0.25, lw=0
)
ax.plot(
    TOKEN_SUM_GRID,
    mean2,
    "o-",
    color=icml26.plotting.color(0),
    label=f"vanilla, ours ({TOKEN_SUM_SEEDS} draws: mean, range)",
)
for c, (tok, vals) in enumerate(PAPER_TOKEN_SUM_R2.items()):
    ax.plot(
        TOKEN_SUM_GRID,
        vals,
        "x--",
        color=icml26.plotting.color(c if c else 3),
        label=f"{tok}, paper (one draw)",
    )
ax.axhline(
    WELLER_R2_LIMIT_SMALL,
    color="black",
    ls=":",
    lw=1,
    label="Promptriever Llama3 8B, d = 4096 [Weller et al.]",
)
ax.set_xscale("log", base=2)
ax.set_xlabel("embedding dimension d")
ax.set_ylabel("recall@2 on LIMIT-small")
ax.set_ylim(0, 1.05)
ax.set_title("Random word vectors, summed, beat an 8B embedder from d = 512")
ax.legend(fontsize=7, loc="lower right")
plt.show()

# %% tags=["claim"]
i512, i256 = TOKEN_SUM_GRID.index(512), TOKEN_SUM_GRID.index(256)
TUNED = "stop words = bm25s' list + 'likes', chosen by comparing with the paper's grid"
# fails if: the untrained token-sum control needed more than the paper's d = 512 to beat
# Promptriever's 0.543 on LIMIT-small, as at d = 256 (the control)
icml26.claim(
    "01.10",
    "token sum at d = 512 beats Promptriever's recall@2",
    seeds=draws[i512, :, 0],
    rule="mean-ci",
    at_least=WELLER_R2_LIMIT_SMALL,
    control=draws[i256, :, 0],
    control_label="d = 256",
    tuned=f"{TUNED}; bm25s' list alone: mean {mean2_u[i512]:.3f} at d = 512",
)

# %% tags=["claim"]
worst_z = float(np.max(np.abs((paper2 - mean2) / sd2)))
# fails if: some published value of the grid lay more than 3 standard deviations of a
# single draw away from our draws (a different construction, score or tokenizer, as the
# control: the bm25s stop words alone, which keep 'likes')
icml26.claim(
    "01.11",
    "paper's token-sum grid vs our draws: largest |z| over d",
    worst_z,
    at_most=3.0,
    single_seed=f"the paper's one draw vs {TOKEN_SUM_SEEDS} of ours per d",
    control=float(np.max(np.abs(z_u))),
    control_label="bm25s stop words",
    tuned=TUNED,
)

# %% [markdown]
# **What the official data say.** On the official LIMIT-small, **BM25 does not fail**: its
# recall@2 is 0.991, because each attribute there is a distinct word that occurs in exactly the
# two relevant documents, so exact word matching is nearly enough. The label-unaware random
# token-sum embedding, a random projection of the same word counts, approaches BM25 as $d$ grows
# (recall@2 0.384, 0.555, 0.743, 0.956 at $d$ = 256, 512, 1024, 4096 for the draw in the
# table; 0.416, 0.612, 0.764, 0.950 on average over draws, against the paper's 0.3845, 0.6145,
# 0.7845, 0.9545): a *single-vector* embedding that has never seen a qrel beats the 0.543 of the
# 4096-dimensional LLM embedder from $d = 512$ on, as the paper reports (claims 01.10–01.11). Its
# recall@10 and recall@20, which the paper does not report, are 0.918 and 0.976 at $d = 512$.
# MiniLM, a general-purpose 384-dimensional model, fails (0.162), as the LLM embedders fail on
# the official LIMIT. The encoders trained or constructed on the test qrels reach 0.968–1.000,
# but that measures memorisation capacity (claims 01.8 and 01.9), not retrieval.
#
# **Which conclusions change with the data.** On our generated version every attribute shares its
# words with many others, and the picture is different: BM25 falls to 0.230 and the token-sum
# embedding to 0.239 even at $d = 4096$, so on generated data one would wrongly conclude that
# lexical retrieval fails on LIMIT. With the matched vocabulary the lexical retrievers recover
# most of what they achieve on the official data (BM25 0.936, token sum at $d = 4096$ 0.931): the
# difference lies in the vocabulary, not in the recipe. (The LIMIT-sized run below still uses the
# default compositional vocabulary, so its lexical numbers say nothing about the official LIMIT.)
# The conclusions that do *not* depend on the wording are the
# ones about capacity: the trained bag of n-grams memorises both far above 0.543 (recall@2
# 0.968–0.982 official and 0.939–0.950 generated, over three training seeds), and the free
# embeddings and the moment curve see only the relevance matrix, which the two sets share in
# shape. What separates the retrievers that succeed from those that fail
# on the official data is whether their similarity can express exact word overlap, not how many
# dimensions they have.
#
# ### The LIMIT-sized run (`paper` scale)
#
# The official LIMIT has 50 000 documents; the 46 of LIMIT-small are its "core" and hold every
# qrel, the other 49 954 people like only attributes that no query asks about. At
# `ICML26_SCALE=paper` the next cell builds that shape in memory (nothing is written to `data/`):
# `limit.generate_limit(..., n_distractors=LIMIT_DOCS - 46)` with the same seed draws the
# distractors *after* everything else, so its 46 core documents, 1000 queries and 2000 qrels are
# exactly those of `limit-small-synth`, and the corpus order is shuffled. It runs the same five
# retrievers on it, with the same settings, on the GPU when there is one. At the default scale it does
# nothing, and the claims above are made on the 46-document set at both scales.
#
# One number needs care. The trigonometric curve with $m$ points is exact in real arithmetic for
# every $m$ ({prf:ref}`med-prop-trig`), but the margin of query $S = \{i, j\}$ is
# $\min_{l \notin S} \prod_{r \in S} (1 - \cos(t_l - t_r))$. Each factor is at least
# $1 - \cos(2\pi/m)$, so the margin is at least $(1-\cos(2\pi/m))^2 \approx 6 \cdot 10^{-17}$ at
# $m = 50\,000$, and within a factor 4 of that when $i$ and $j$ are neighbours on the curve: below
# the resolution of float64 scores of size one (about $10^{-16}$). The cell therefore prints the
# recall measured in float64, the smallest margin of the scores, and the exact smallest margin
# (the same product written as $\prod 2\sin^2(\cdot/2)$, which float64 evaluates to full relative
# precision). Exact capacity exists at this size; whether float64 scores can *show* it depends on
# how close the relevant points sit on the curve. This is the robust-MED point of the chapter in
# miniature: exactness costs nothing in $d$, but its margins vanish as $m$ grows.

# %%
if LIMIT_DOCS > len(data.doc_ids):  # paper scale only
    big = limit.parse_mteb(
        limit.generate_limit(seed=limit.LIMIT_SMALL_SEED, n_distractors=LIMIT_DOCS - 46)
    )
    gen = fresh_generator(6)
    Rb = big.relevance.to(DEVICE)
    print(
        f"{len(big.doc_ids)} documents ({int(Rb.any(0).sum())} core), {int(Rb.sum())} "
        "qrels"
    )
    torch.set_num_threads(os.cpu_count() or 1)
    big_scores = {
        "BM25 (bm25s)": retrievers.bm25s_scores(big.doc_texts, big.query_texts),
        "MiniLM-L6 (d=384)": retrievers.minilm_scores(
            big.doc_texts, big.query_texts, device=DEVICE
        ),
        f"trained bag of n-grams (d={BOW_D})": retrievers.train_bow_encoder(
            big.doc_texts,
            big.query_texts,
            Rb,
            BOW_D,
            steps=BOW_STEPS,
            generator=gen,
            stopwords=stop,
        ),
    }
    _, Qb, Db = med.train_free_embeddings(
        Rb[None], FREE_LIMIT_D, steps=FREE_LIMIT_STEPS, generator=gen
    )
    big_scores[f"free embeddings (d={FREE_LIMIT_D})"] = Qb[0] @ Db[0].T
    del Qb, Db
    Xb, tb = med.trig_moment_curve(LIMIT_DOCS, 2, device=DEVICE)
    Sb = (
        med.trig_moment_queries(tb, torch.stack([r.nonzero().flatten() for r in Rb]), 2)
        @ Xb.T
    )
    big_scores["trig. moment curve (d=4)"] = Sb
    print(f"\n{'retriever':34s} recall@2  recall@10  recall@20")
    for name, s in big_scores.items():
        s = torch.as_tensor(s, device=DEVICE)
        r = [float(med.recall_at_k(s, Rb, k)) for k in (2, 10, 20)]
        print(f"{name:34s} {r[0]:8.3f} {r[1]:10.3f} {r[2]:10.3f}")
    seen = (
        Sb.masked_fill(~Rb, math.inf).amin(1) - Sb.masked_fill(Rb, -math.inf).amax(1)
    ).min()
    pos = torch.stack(
        [tb[r.nonzero().flatten()] for r in Rb]
    )  # (Q, 2) curve parameters
    exact = torch.ones_like(Sb)
    for c in range(2):
        exact *= 2 * torch.sin((tb[None, :] - pos[:, c : c + 1]) / 2) ** 2
    exact = exact.masked_fill(Rb, math.inf).amin(1).min()
    print(
        f"trig. curve, m={LIMIT_DOCS}: smallest margin of the float64 scores "
        f"{float(seen):.2e},"
        f" exact smallest margin {float(exact):.2e} (float64 eps "
        f"{torch.finfo(Sb.dtype).eps:.1e})"
    )
    del big_scores, Sb, exact
    torch.set_num_threads(1)
else:
    print(
        f"the LIMIT-sized run ({50_000} documents) runs at ICML26_SCALE=paper, on a GPU"
    )

# %% [markdown]
# ## Cross-check
#
# Exact retrievability from the LP against a brute-force search over query directions (every
# direction on a fine circle in $d = 2$; many random directions in $d = 3$), and against the
# edges of the convex hull from `scipy.spatial.ConvexHull` (Qhull) for random *unit* vectors in
# $\mathbb{R}^4$: points in convex position have a pair retrievable iff it spans a hull edge
# (for points inside the hull this fails — an interior point next to a vertex can be retrieved
# with it).


# %% tags=["reference"]
def brute_force_pairs(X, directions):
    top2 = np.argsort(-(directions @ X.T), axis=1)[:, :2]
    return {tuple(sorted(p)) for p in top2.tolist()}


for d, n_dir in ((2, 50_000), (3, 200_000)):
    X = np.random.default_rng(SEED + d).standard_normal((7, d))
    dirs = np.random.default_rng(SEED).standard_normal((n_dir, d))
    pairs = med.all_subsets(7, 2)
    lp_set = {
        tuple(p)
        for p, g in zip(
            pairs.tolist(), med.lp_margins(torch.tensor(X), pairs), strict=True
        )
        if g > 0
    }
    assert lp_set == brute_force_pairs(X, dirs), d
    print(f"d={d}: LP and brute force agree on {len(lp_set)} of 21 retrievable pairs")
Xg = np.random.default_rng(SEED).standard_normal((30, 4))
Xg /= np.linalg.norm(Xg, axis=1, keepdims=True)
hull_edges = {
    tuple(sorted(e))
    for f in scipy.spatial.ConvexHull(Xg).simplices
    for e in itertools.combinations(f.tolist(), 2)
}
pairs = med.all_subsets(30, 2)
lp_set = {
    tuple(p)
    for p, g in zip(
        pairs.tolist(), med.lp_margins(torch.tensor(Xg), pairs), strict=True
    )
    if g > 0
}
assert lp_set == hull_edges
print(f"unit vectors m=30 in ℝ⁴: LP and Qhull agree on {len(lp_set)} of 435 pairs")

# %% [markdown]
# recall@k against scikit-learn (`recall_score` of the top-$k$ indicator, per query), and our
# vectorised BM25 against `bm25s`'s own scoring on the same tokens.

# %%
S_np = scores["MiniLM-L6 (d=384)"]
R_np = data.relevance.numpy()
for j, k in enumerate((2, 10, 20)):
    top = np.argsort(-S_np, axis=1, kind="stable")[:, :k]
    pred = np.zeros_like(R_np)
    np.put_along_axis(pred, top, True, axis=1)
    # documents as samples, queries as labels: macro recall = mean per-query recall
    sk = recall_score(R_np.T, pred.T, average="macro", zero_division=0)
    assert abs(sk - table["MiniLM-L6 (d=384)"][j]) < 1e-12
print("recall@k: icml26 == scikit-learn for k = 2, 10, 20")
own = retrievers.bm25_scores(
    retrievers.tokenize(data.doc_texts, stop),
    retrievers.tokenize(data.query_texts, stop),
)
err = np.abs(own - scores["BM25 (bm25s)"]).max()
assert err < 1e-5
print(f"BM25: ours and bm25s agree to < 1e-5 on all {own.size} scores")

# %% [markdown]
# ## Limits of this reproduction
#
# - **Scale.** The synthetic top-2 check stops at $m = 60$ on CPU (the explicit certificate works
#   for any $m$ in exact arithmetic, but its margin shrinks like $m^{-4}$, see above); the paper
#   and Weller et al. go much larger. The Gaussian-centroid fit uses $m \le 128$ and $k = 2$
#   only; the `paper` scale extends both. The fitted $d_{\text{needed}}$ is that of one witness
#   family (normalised centroid queries), not $\operatorname{RMED}$ itself, and the
#   "$\log m$" trend is a fit over a factor 16 in $m$, not a proof of the rate.
# - **Seeds.** Claim 01.5 is NOT REPRODUCED when decided over 4 groups of 8 draws: the model
#   selection between $\ln m$ and $m^{p}$ that the 32 draws pooled make clearly (ΔAIC about
#   19) is not made by every group of 8, and more draws per group (the `paper` scale has 128
#   draws) would be needed to decide it per seed. Claim 01.7 is NOT REPRODUCED per restart: two
#   of three restarts follow Weller et al.'s cubic within 6 %, the third fits $n = 9$ at
#   $d = 4$, 35 % above it; the critical $n$ at small $d$ varies from run to run.
# - **Tuned tokenizer.** The stop words of the token-sum control (`bm25s`' list plus "likes")
#   were chosen after comparing with the paper's grid; with `bm25s`' list alone 01.10 fails at
#   $d = 512$ and the paper's grid is more than 3 standard deviations from our draws (both
#   printed on the claim lines).
# - **Free embeddings.** We train 1500 full-batch steps with three restarts instead of up to 100 000
#   steps with early stopping and a galloping/binary search over $n$; our critical $n$ is therefore
#   a lower bound for the published protocol at each $d$, and we cover only $d \le 6$ at `ci`
#   scale (Weller et al. go to several dozen). We compare with their fitted cubic, whose
#   coefficients we quote from secondary sources. The agreement of claim 01.7 is with their curve,
#   not with their raw data.
# - **LIMIT data.** The retrieval claims run on the official LIMIT-small (shipped in `data/`,
#   CC-BY 4.0). Our generator's default vocabulary (80 words combined into two-word attributes)
#   reproduces the relevance structure but not the wording, and lexical retrievers behave very
#   differently on it (BM25 recall@2 0.991 official, 0.230 generated); its `matched` mode
#   (pseudo-words with the official statistics) brings BM25 back to 0.936 but is still not the
#   official text. The LIMIT-sized `paper`-scale run uses the default vocabulary and inherits
#   that difference. The 0.543
#   baseline is quoted, not re-run. The paper's token-sum grid is quoted for three tokenizers;
#   only the vanilla one is rerun (the handmade phrase list and the Qwen3 tokenizer are not
#   shipped offline), and its stop-word list is our reconstruction (see the admonition above
#   claims 01.10–01.11). The paper reports recall@2 only; recall@10 and @20 are ours.
# - **LIMIT size.** The committed notebook runs the 46-document set only. The LIMIT-sized run
#   (50 000 generated documents, not the official files) is coded for the `paper` scale, was
#   run on CPU with 2000 documents only, and enters no claim; the official full LIMIT is not
#   loaded.
# - **Not tested.** The
#   Radon-sharpened constants beyond $k = 2$, Euclidean robust margins, and the packing lower bound
#   are not exercised numerically; the exact Euclidean MED for $k \ge 2$ (between $2k-1$ and $2k$)
#   is left open.
#
# **Paper scale.** `ICML26_SCALE=paper` runs every experiment larger: the top-2 and Gaussian
# sweeps to $m = 200$ and $256$ with four times the draws, the free-embedding optimisation for
# 20 000 steps on every $(k, n)$ case up to $n = 60$, ten encoder seeds, and the LIMIT-sized
# retrieval on 50 000 generated documents. Its record says where and when it last ran, or
# why it has not:

# %%
from icml26.pipeline import paper

paper.show("01-med")

# %% [markdown]
# ## Exercises
#
# ````{exercise} Predict the spherical control
# :label: med-ex-gauss
# In claim 01.2 the Gaussian control loses pairs as $m$ grows. Replace it by *unit* vectors
# (`med.gaussian_unit(m, 4, generator=gen)`). Predict how the retrievable fraction scales with $m$
# before running it, using the fact that for points in convex position a pair is retrievable iff it
# spans an edge of their convex hull (the Cross-check section tests this).
# ````
#
# ````{solution} med-ex-gauss
# :class: dropdown
# Unit vectors are all vertices of their hull, and the vertices on the positive side of a
# hyperplane induce a connected subgraph of the hull's graph, so "separable pair" = "edge". For
# random points on $\mathbb{S}^3$ the expected number of facets, hence of edges, grows only linearly
# in $m$, so the fraction of the $\binom{m}{2}$ pairs decays like $c/m$. (For non-normalised
# Gaussians, interior points near a vertex can still be retrieved together with it, so there the
# retrievable pairs are *not* just the hull edges.) The cyclic polytope is the extreme opposite:
# its graph is complete — it is 2-neighbourly.
# ````
#
# ````{exercise} The ceiling at the extremes
# :label: med-ex-ceiling
# Evaluate $\varepsilon_\star(m, 1)$ and $\varepsilon_\star(2k, k)$. Show that for $k = 1$ the
# regular simplex with query $u = x_i$ attains the ceiling, and explain why the gap can exceed $1$.
# ````
#
# ````{solution} med-ex-ceiling
# :class: dropdown
# $\varepsilon_\star(m, 1) = m/(m-1)$ and $\varepsilon_\star(2k, k) = 2k/\sqrt{k(2k-1)k} =
# 2/\sqrt{2k-1}$. For $k = 1$, $u = x_i$ scores $1$ on $x_i$ and $-1/(m-1)$ on all others: gap
# $1 + 1/(m-1) = m/(m-1)$. Scores range over $[-1, 1]$, so a gap up to $2$ is possible in
# principle; the simplex pushes the others below zero.
# ````
#
# ````{exercise} Why three dimensions are not enough for unit vectors
# :label: med-ex-planar
# Prove that no five unit vectors in $\mathbb{R}^3$ make all ten pairs top-2 retrievable (by any
# unit query), and check that `med.train_free_embeddings` indeed stops at $n = 4$ for $d = 3$.
# ````
#
# ````{solution} med-ex-planar
# :class: dropdown
# Points on a sphere are all vertices of their convex hull $P$. A pair is the top-2 set of some
# query iff a plane cuts off exactly those two vertices, iff they span an edge of $P$. The edge
# graph of a 3-polytope is planar (Steinitz), and $K_5$ is not planar (Euler: a simple planar graph
# has at most $3 \cdot 5 - 6 = 9 < 10$ edges). In the experiment the critical $n$ for $d = 3$ is 4.
# ````
#
# ````{exercise} Implement and test the k = 3 spherical construction
# :label: med-ex-trig
# Build $m = 40$ unit vectors in $\mathbb{R}^6$ with `med.trig_moment_curve(40, 3)` and verify
# that every triple is retrieved by `med.trig_moment_queries`. How does the smallest margin scale
# when you double $m$? What does this say about finite precision?
# ````
#
# ````{solution} med-ex-trig
# :class: dropdown
# `X, t = med.trig_moment_curve(40, 3); S = med.all_subsets(40, 3); q = med.trig_moment_queries(t,
# S, 3); med.subset_margins(X, q, S).min()` is positive. Near a triple of adjacent points the
# competitor $t_j$ is one step $\delta = 2\pi/m$ away and $F_S(t_j) \approx \prod (1 - \cos
# (\cdot)) \sim \delta^2 (2\delta)^2 (3\delta)^2 / 8$, so the margin shrinks like $m^{-6}$ (in
# general $m^{-2k}$): in float32 ($\approx 10^{-7}$ relative precision) the exact witness breaks
# down for modest $m$. Exact capacity and usable (robust) capacity are different things.
# ````
#
# ````{exercise} Change the temperature
# :label: med-ex-temp
# Rerun the experiment of claims 01.6–01.7 with `temperature=0.05` and `0.5` (an argument of `med.train_free_embeddings`).
# Predict the direction of the change in critical $n$ before running, and explain what it implies
# about reading the critical $n$ as a geometric quantity.
# ````
#
# ````{solution} med-ex-temp
# :class: dropdown
# The critical $n$ moves with the temperature (and with the learning rate and the step budget),
# while the geometric capacity of $\mathbb{R}^4$ (every $n$) does not: any quantity that depends on
# optimiser settings is a property of the protocol. Very high temperatures flatten the softmax and
# weaken the push between near-tied documents; very low ones give sharp but poorly conditioned
# gradients — both typically lower the critical $n$.
# ````
#
# ## Summary
#
# - Exact top-$k$ retrieval needs only $2k$ dimensions for inner products and Euclidean distance
#   and, with the unit-norm trigonometric moment curve, $2k$ for cosine too — independent of $m$
#   (claim 01.1, and the moment curve on LIMIT-small; random points in the same dimension fail,
#   01.2).
# - A normalised margin is capped at $\varepsilon_\star(m,k) = m/\sqrt{k(m-1)(m-k)} \to
#   1/\sqrt{k}$; the simplex attains it and optimisation never beats it (01.3, 01.4).
# - Random Gaussian centroids reach margin $\varepsilon < 1/\sqrt{k}$ in $18k^2(2\ln m +
#   \ln(1/\delta))/(1-\varepsilon\sqrt{k})^2$ dimensions, so $O(k^2 \log m)$ at $\varepsilon =
#   1/(2\sqrt{k})$; empirically the dimension for a fixed margin grows like $\log m$ over all
#   draws pooled, but groups of 8 draws do not all tell $\ln m$ from a small power (01.5).
# - The free-embedding critical $n$ stalls where exact unit-norm solutions exist (01.6); most
#   restarts follow Weller et al.'s curve, but not every one (01.7). On the official
#   LIMIT-small, BM25 (recall@2 0.991) and the untrained random token-sum embedding at
#   $d = 4096$ (0.950 over draws; the paper: 0.9545) nearly solve the task, far above the 0.543
#   that Weller et al. report for a 4096-dimensional LLM embedder, and the token sum crosses
#   that line at $d = 512$ as the paper reports (01.10, 01.11, with a stop-word list tuned
#   to the paper's grid); an 8-dimensional encoder and 16-dimensional free embeddings
#   trained on the test qrels memorise them (01.8, 01.9: capacity, not retrieval quality).
#   On our generated data, whose attributes share words, BM25 fails (0.230).
# - Hence the paper's thesis: **lack of exact geometric capacity is not the obstruction.** Every
#   exact witness we asked for exists in $d = 2k = 4$ (01.1, 01.6); every failure we saw —
#   random points, InfoNCE free embeddings, MiniLM — belongs to a particular configuration or
#   learner. What limits embedding retrieval is robustness, conditioning and what the encoder
#   can learn.
