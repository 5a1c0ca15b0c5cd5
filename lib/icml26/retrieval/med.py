"""Chapter 01 (med): geometry of exact and robust top-k retrieval.

Kernels for the Minimal Embeddable Dimension chapter: the moment curve and its squared-polynomial
queries (:prf:ref:`med-lem-moment`), the unit-norm trigonometric moment curve,
the regular simplex with normalised centroid queries and the margin ceiling
``eps_star(m, k) = m / sqrt(k (m-1) (m-k))`` (:prf:ref:`med-thm-ceiling`), score
margins for batches of subsets, exact retrievability as a batched linear programme (HiGHS),
gradient-based margin optimisation, the free-embedding InfoNCE protocol of Weller et al. (2025)
and recall@k.

Conventions: ``X`` is an ``(m, d)`` tensor of object vectors (rows), ``subsets`` an ``(B, s)``
integer tensor of object indices (one subset per row, all of size ``s``), queries ``(B, d)``.
Every kernel accepts tensors on any device and returns tensors on that device, except the LP,
which runs in SciPy on the host by construction.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import scipy.optimize
import scipy.sparse
import torch

from icml26 import checks

Tensor = torch.Tensor

__all__ = [
    "all_subsets",
    "centroid_margins",
    "centroid_queries",
    "eps_star",
    "gaussian_unit",
    "lp_margins",
    "min_pair_centroid_margin",
    "moment_curve",
    "moment_curve_queries",
    "optimize_margin",
    "recall_at_k",
    "regular_simplex",
    "subset_margins",
    "train_free_embeddings",
    "trig_moment_curve",
    "trig_moment_queries",
]


# --------------------------------------------------------------------------- validation helpers
def _check_mk(m: object, k: object) -> tuple[int, int]:
    m = checks.integer("m", m, low=2)
    k = checks.integer("k", k, low=1)
    if k >= m:
        raise ValueError(f"k must be < m, got k={k} and m={m}")
    return m, k


def _check_points(X: object) -> Tensor:
    if not isinstance(X, torch.Tensor):
        raise ValueError(f"X must be a torch tensor, got {type(X).__name__}")
    checks.shape("X", X, (None, None))
    if X.shape[0] < 2 or X.shape[1] < 1:
        raise ValueError(f"X must hold at least 2 points of dimension d >= 1, got {tuple(X.shape)}")
    checks.finite("X", X)
    return X


def _check_subsets(subsets: object, m: int) -> Tensor:
    if not isinstance(subsets, torch.Tensor) or subsets.dtype not in (torch.int32, torch.int64):
        raise ValueError("subsets must be an integer torch tensor of shape (B, s)")
    checks.shape("subsets", subsets, (None, None))
    s = subsets.shape[1]
    if s < 1:
        raise ValueError("subsets must have at least one column (k >= 1)")
    if s >= m:
        raise ValueError(f"subsets must have size k < m, got k={s} and m={m}")
    if subsets.numel() and (int(subsets.min()) < 0 or int(subsets.max()) >= m):
        raise ValueError(f"subsets must hold indices in [0, {m})")
    srt = subsets.sort(dim=1).values
    if s > 1 and bool((srt[:, 1:] == srt[:, :-1]).any()):
        raise ValueError("subsets must not repeat an index within a row")
    return subsets.long()


def _selection_mask(subsets: Tensor, m: int) -> Tensor:
    mask = torch.zeros(subsets.shape[0], m, dtype=torch.bool, device=subsets.device)
    return mask.scatter_(1, subsets, True)


# --------------------------------------------------------------------------- constructions
def all_subsets(m: int, k: int, *, device: torch.device | str | None = None) -> Tensor:
    """All ``C(m, k)`` subsets of ``[m]`` of size ``k`` as a ``(C(m,k), k)`` long tensor."""
    m, k = _check_mk(m, k)
    rows = list(itertools.combinations(range(m), k))
    return torch.tensor(rows, dtype=torch.long, device=device)


def moment_curve(
    m: int,
    d: int,
    *,
    t: Tensor | None = None,
    dtype: torch.dtype = torch.float64,
    device: torch.device | str | None = None,
) -> Tensor:
    """Points ``x(t_i) = (t_i, t_i^2, ..., t_i^d)`` on the moment curve (:prf:ref:`med-lem-moment`).

    The parameters default to ``m`` equispaced values in ``[-1, 1]``. Their convex hull is the
    cyclic polytope ``C(m, d)``, which is ``floor(d/2)``-neighbourly.
    """
    m = checks.integer("m", m, low=2)
    d = checks.integer("d", d, low=1)
    if t is None:
        t = torch.linspace(-1.0, 1.0, m, dtype=dtype, device=device)
    else:
        checks.shape("t", t, (m,))
        checks.finite("t", t)
        if torch.unique(t).numel() != m:
            raise ValueError("t must hold m distinct parameters")
    powers = torch.arange(1, d + 1, dtype=t.dtype, device=t.device)
    return t[:, None] ** powers[None, :]


def moment_curve_queries(t: Tensor, subsets: Tensor, d: int) -> tuple[Tensor, Tensor]:
    """Squared-polynomial queries for points on the moment curve (:prf:ref:`med-lem-moment`).

    For a subset ``S`` let ``P_S(t) = prod_{i in S} (t - t_i)`` and ``P_S(t)^2 = sum_j c_j t^j``.
    The query ``q_S = -(c_1, ..., c_d)`` gives ``<q_S, x(t)> = c_0 - P_S(t)^2``: exactly ``c_0`` on
    ``S`` and strictly less elsewhere, provided ``d >= 2|S|``. Returns ``(q, c_0)``.
    """
    d = checks.integer("d", d, low=1)
    if not isinstance(t, torch.Tensor) or t.ndim != 1:
        raise ValueError("t must be a 1-d torch tensor of curve parameters")
    subsets = _check_subsets(subsets, t.shape[0])
    s = subsets.shape[1]
    if d < 2 * s:
        raise ValueError(f"d must be >= 2k for the squared-polynomial query, got d={d}, k={s}")
    roots = t[subsets]  # (B, s)
    coef = torch.ones(subsets.shape[0], 1, dtype=t.dtype, device=t.device)  # ascending powers
    for r in range(s):  # multiply by (t - t_r): coefficients convolve with (-t_r, 1)
        shifted = torch.nn.functional.pad(coef, (1, 0))
        coef = shifted - roots[:, r : r + 1] * torch.nn.functional.pad(coef, (0, 1))
    sq = torch.zeros(subsets.shape[0], 2 * s + 1, dtype=t.dtype, device=t.device)
    for j in range(s + 1):  # square: sq = coef * coef (polynomial product)
        sq[:, j : j + s + 1] += coef[:, j : j + 1] * coef
    q = torch.zeros(subsets.shape[0], d, dtype=t.dtype, device=t.device)
    q[:, : 2 * s] = -sq[:, 1:]
    return q, sq[:, 0]


def trig_moment_curve(
    m: int, k: int, *, dtype: torch.dtype = torch.float64, device: torch.device | str | None = None
) -> tuple[Tensor, Tensor]:
    """Unit vectors on the trigonometric moment curve in ``R^{2k}`` (chapter 01).

    ``x(t) = (cos t, sin t, ..., cos kt, sin kt) / sqrt(k)`` at ``t_i = 2 pi i / m``.
    Returns ``(X, t)``; every row of ``X`` has norm one.
    """
    m = checks.integer("m", m, low=2)
    k = checks.integer("k", k, low=1)
    t = 2 * math.pi * torch.arange(m, dtype=dtype, device=device) / m
    j = torch.arange(1, k + 1, dtype=dtype, device=device)
    ang = t[:, None] * j[None, :]
    X = torch.stack([torch.cos(ang), torch.sin(ang)], dim=-1).reshape(m, 2 * k) / math.sqrt(k)
    return X, t


def trig_moment_queries(t: Tensor, subsets: Tensor, k: int) -> Tensor:
    """Queries for the trigonometric moment curve.

    ``<q_S, x(t)> = a_0 - prod_{i in S} (1 - cos(t - t_i))``.

    The product is a non-negative trigonometric polynomial of degree ``|S| <= k`` vanishing exactly
    at the ``t_i`` of ``S`` (:prf:ref:`med-prop-trig`).
    """
    k = checks.integer("k", k, low=1)
    if not isinstance(t, torch.Tensor) or t.ndim != 1:
        raise ValueError("t must be a 1-d torch tensor of curve parameters")
    subsets = _check_subsets(subsets, t.shape[0])
    s = subsets.shape[1]
    if s > k:
        raise ValueError(f"subsets must have size <= k={k}, got {s}")
    cdt = torch.complex128 if t.dtype == torch.float64 else torch.complex64
    z = torch.exp(1j * t[subsets].to(cdt))  # (B, s)
    # Laurent coefficients of prod (1 - (e^{i(t-ti)} + e^{-i(t-ti)})/2), powers -s..s
    coef = torch.ones(subsets.shape[0], 1, dtype=cdt, device=t.device)
    for r in range(s):
        zr = z[:, r : r + 1]
        lo = torch.nn.functional.pad(coef, (0, 2)) * (-0.5 * zr)  # multiplies e^{-it}
        mid = torch.nn.functional.pad(coef, (1, 1))
        hi = torch.nn.functional.pad(coef, (2, 0)) * (-0.5 / zr)  # multiplies e^{+it}
        coef = lo + mid + hi
    pos = coef[:, s + 1 :]  # c_j for j = 1..s, coefficient of e^{ijt}
    q = torch.zeros(subsets.shape[0], k, 2, dtype=t.dtype, device=t.device)
    q[:, :s, 0] = -2 * pos.real  # f(t) = c_0 + sum_j 2 Re(c_j) cos jt - 2 Im(c_j) sin jt
    q[:, :s, 1] = 2 * pos.imag
    return q.reshape(subsets.shape[0], 2 * k) * math.sqrt(k)


def regular_simplex(
    m: int, *, dtype: torch.dtype = torch.float64, device: torch.device | str | None = None
) -> Tensor:
    """The regular simplex: ``m`` unit vectors in ``R^{m-1}``, inner products ``-1/(m-1)``.

    The configuration of :prf:ref:`med-prop-simplex`.
    """
    m = checks.integer("m", m, low=2)
    centred = torch.eye(m, dtype=dtype, device=device) - 1.0 / m
    # orthonormal basis of the hyperplane 1^T x = 0: the first m-1 left singular vectors
    u, _, _ = torch.linalg.svd(centred)
    X = centred @ u[:, : m - 1]
    return X / X.norm(dim=1, keepdim=True)


def gaussian_unit(
    m: int, d: int, *, generator: torch.Generator, dtype: torch.dtype = torch.float64
) -> Tensor:
    """``m`` independent uniform points on the sphere ``S^{d-1}`` (normalised Gaussians)."""
    m = checks.integer("m", m, low=1)
    d = checks.integer("d", d, low=1)
    g = torch.randn(m, d, generator=generator, dtype=dtype, device=generator.device)
    return g / g.norm(dim=1, keepdim=True)


def eps_star(m: int, k: int) -> float:
    """The margin ceiling ``eps_star(m, k) = m / sqrt(k (m-1) (m-k))``.

    The bound of :prf:ref:`med-thm-ceiling`.
    """
    m, k = _check_mk(m, k)
    return m / math.sqrt(k * (m - 1) * (m - k))


# --------------------------------------------------------------------------- margins
def subset_margins(X: Tensor, queries: Tensor, subsets: Tensor) -> Tensor:
    """Inner-product margin ``min_{i in S} <q_S, x_i> - max_{j notin S} <q_S, x_j>`` per subset.

    A positive entry certifies that ``q_S`` retrieves ``S`` exactly as its top-``|S|`` set.
    """
    X = _check_points(X)
    subsets = _check_subsets(subsets, X.shape[0])
    checks.shape("queries", queries, (subsets.shape[0], X.shape[1]))
    checks.finite("queries", queries)
    scores = queries.to(X.dtype) @ X.T  # (B, m)
    sel = _selection_mask(subsets, X.shape[0])
    inf = torch.tensor(float("inf"), dtype=scores.dtype, device=scores.device)
    worst_in = torch.where(sel, scores, inf).amin(dim=1)
    best_out = torch.where(sel, -inf, scores).amax(dim=1)
    return worst_in - best_out


def centroid_queries(X: Tensor, subsets: Tensor, *, normalize: bool = True) -> Tensor:
    """Centroid queries ``c_S = |S|^{-1} sum_{i in S} x_i`` (normalised by default)."""
    X = _check_points(X)
    subsets = _check_subsets(subsets, X.shape[0])
    c = X[subsets].mean(dim=1)
    return c / c.norm(dim=1, keepdim=True) if normalize else c


def centroid_margins(X: Tensor, subsets: Tensor, *, atol: float = 1e-6) -> Tensor:
    """Margins of normalised centroid queries on unit vectors, computed from the Gram matrix.

    Entry ``b`` is ``min_{i in S} <u_S, x_i> - max_{j notin S} <u_S, x_j>`` with
    ``u_S = sum_{i in S} x_i / ||sum_{i in S} x_i||`` (:prf:ref:`med-prop-simplex`).
    Cost ``O(m^2 d + B m k)``: only the ``m x m`` Gram matrix is formed.
    """
    X = _check_points(X)
    checks.unit_rows("X", X, atol=atol)
    subsets = _check_subsets(subsets, X.shape[0])
    G = X @ X.T
    raw = torch.zeros(subsets.shape[0], X.shape[0], dtype=G.dtype, device=G.device)
    for c in range(subsets.shape[1]):  # (B, m): <sum_S x, x_l>, accumulated column by column
        raw += G[subsets[:, c]]
    norm2 = raw.gather(1, subsets).sum(dim=1)
    scores = raw / norm2.clamp_min(torch.finfo(G.dtype).tiny).sqrt()[:, None]
    sel = _selection_mask(subsets, X.shape[0])
    inf = torch.tensor(float("inf"), dtype=scores.dtype, device=scores.device)
    return torch.where(sel, scores, inf).amin(dim=1) - torch.where(sel, -inf, scores).amax(dim=1)


def min_pair_centroid_margin(X: Tensor, *, atol: float = 1e-6, block: int = 2**21) -> Tensor:
    """Smallest normalised-centroid margin over all pairs (:prf:ref:`med-thm-gauss`).

    Equals ``centroid_margins(X, all_subsets(m, 2)).min()`` without listing the pairs: for
    ``S = {a, b}`` both members score ``<z, x_a> = <z, x_b> = 1 + G_ab`` with ``z = x_a + x_b``,
    an outsider ``j`` scores ``G_aj + G_bj``, and ``||z||^2 = 2 + 2 G_ab``, so the margin is
    ``(1 + G_ab - max_{j != a, b} (G_aj + G_bj)) / sqrt(2 + 2 G_ab)``. The inner maximum is taken
    for blocks of rows ``a`` at once (at most ``block`` entries of an ``(a, b, j)`` tensor).
    Cost ``O(m^3)`` time, ``O(m^2 + block)`` memory; returns a 0-d tensor on ``X``'s device.
    """
    X = _check_points(X)
    checks.unit_rows("X", X, atol=atol)
    block = checks.integer("block", block, low=1)
    m = X.shape[0]
    if m < 3:
        raise ValueError(f"X must hold at least 3 points (a pair and an outsider), got m={m}")
    G = X @ X.T
    off = G.clone()
    off.fill_diagonal_(float("-inf"))  # j = a or j = b then scores -inf and is never the max
    best_out = torch.empty_like(G)
    rows = max(1, block // (m * m))
    for a0 in range(0, m, rows):
        best_out[a0 : a0 + rows] = (off[a0 : a0 + rows, None, :] + off[None, :, :]).amax(dim=2)
    norm = (2 + 2 * G).clamp_min(torch.finfo(G.dtype).tiny).sqrt()
    margins = (1 + G - best_out) / norm
    iu = torch.triu_indices(m, m, offset=1, device=G.device)
    return margins[iu[0], iu[1]].min()


def lp_margins(X: Tensor, subsets: Tensor, *, chunk: int = 512) -> np.ndarray:
    """Exact top-``|S|`` retrievability of each subset as an LP (:prf:ref:`med-def-med`).

    For each ``S`` solve ``max t`` over ``(w, b, t)`` with ``<w, x_i> - b >= t`` (``i in S``),
    ``<w, x_j> - b <= -t`` (``j notin S``), ``-1 <= w <= 1``, ``t <= 1``. Subsets are solved
    together as one block-diagonal sparse LP per chunk (HiGHS). Returns, per subset, the margin
    ``min_{i in S} <w*, x_i> - max_{j notin S} <w*, x_j>``, recomputed in float64 from the
    solver's ``w*``: a positive value is an explicit certificate of retrievability; a value
    ``<= 0`` means the LP optimum is (up to solver tolerance) non-positive, i.e. no query
    retrieves ``S``.
    """
    X = _check_points(X)
    subsets = _check_subsets(subsets, X.shape[0])
    chunk = checks.integer("chunk", chunk, low=1)
    Xn = X.detach().to("cpu", torch.float64).numpy()
    S_all = subsets.detach().cpu().numpy()
    m, d = Xn.shape
    nv = d + 2  # (w, b, t) per subset
    out = np.empty(len(S_all))
    for start in range(0, len(S_all), chunk):
        S = S_all[start : start + chunk]
        B = len(S)
        sign = np.ones((B, m))  # +1 for unselected rows (<w,x> - b + t <= 0)
        sign[np.arange(B)[:, None], S] = -1.0  # -1 for selected rows (-<w,x> + b + t <= 0)
        rows = np.arange(B * m).reshape(B, m)
        cols0 = (np.arange(B) * nv)[:, None]
        r_w = np.repeat(rows[:, :, None], d, axis=2).ravel()
        c_w = (cols0[:, :, None] + np.arange(d)[None, None, :]).repeat(m, axis=1).ravel()
        v_w = (sign[:, :, None] * Xn[None, :, :]).ravel()
        r_b = rows.ravel()
        c_b = np.repeat(cols0 + d, m, axis=1).ravel()
        v_b = (-sign).ravel()
        c_t = np.repeat(cols0 + d + 1, m, axis=1).ravel()
        v_t = np.ones(B * m)
        A = scipy.sparse.csr_matrix(
            (
                np.concatenate([v_w, v_b, v_t]),
                (np.concatenate([r_w, r_b, r_b]), np.concatenate([c_w, c_b, c_t])),
            ),
            shape=(B * m, B * nv),
        )
        cost = np.zeros(B * nv)
        cost[d + 1 :: nv] = -1.0
        bounds = np.tile([(-1.0, 1.0)] * d + [(None, None), (None, 1.0)], (B, 1))
        res = scipy.optimize.linprog(
            cost, A_ub=A, b_ub=np.zeros(B * m), bounds=bounds, method="highs"
        )
        if res.status != 0:
            raise RuntimeError(f"linprog failed: {res.message}")
        w = res.x.reshape(B, nv)[:, :d]
        scores = w @ Xn.T
        sel = sign < 0
        out[start : start + B] = np.where(sel, scores, np.inf).min(1) - np.where(
            sel, -np.inf, scores
        ).max(1)
    return out


# --------------------------------------------------------------------------- optimisation
def optimize_margin(
    m: int,
    k: int,
    d: int,
    *,
    queries: str = "free",
    steps: int = 2000,
    lr: float = 0.05,
    beta: float = 200.0,
    generator: torch.Generator,
    dtype: torch.dtype = torch.float64,
) -> tuple[Tensor, Tensor, float]:
    """Gradient ascent on the smallest normalised margin over all ``k``-subsets (chapter 01).

    Unit object vectors ``X`` (``m x d``) and, with ``queries="free"``, one unit query per subset
    are parametrised by unconstrained tensors and normalised; with ``queries="centroid"`` the
    query is the normalised centroid (centroid-query optimisation). The smooth objective is the
    soft-min ``-(1/beta) log sum exp(-beta * gap)`` over all selected/unselected pairs, maximised
    with Adam. Returns ``(X, U, margin)`` where ``margin`` is the exact smallest margin.
    """
    m, k = _check_mk(m, k)
    d = checks.integer("d", d, low=1)
    steps = checks.integer("steps", steps, low=1)
    lr = checks.real("lr", lr, low=0.0, strict=True)
    beta = checks.real("beta", beta, low=0.0, strict=True)
    if queries not in ("free", "centroid"):
        raise ValueError(f"queries must be 'free' or 'centroid', got {queries!r}")
    dev = generator.device
    subsets = all_subsets(m, k, device=dev)
    sel = _selection_mask(subsets, m)
    pair_mask = sel[:, :, None] & ~sel[:, None, :]  # (B, m, m): i in S, j notin S
    P = torch.randn(m, d, generator=generator, dtype=dtype, device=dev).requires_grad_(True)
    params = [P]
    if queries == "free":
        Qp = torch.randn(len(subsets), d, generator=generator, dtype=dtype, device=dev)
        Qp = Qp.requires_grad_(True)
        params.append(Qp)
    opt = torch.optim.Adam(params, lr=lr)

    def current() -> tuple[Tensor, Tensor]:
        X = P / P.norm(dim=1, keepdim=True)
        if queries == "free":
            U = Qp / Qp.norm(dim=1, keepdim=True)
        else:
            c = X[subsets].sum(dim=1)
            U = c / c.norm(dim=1, keepdim=True)
        return X, U

    for _ in range(steps):
        X, U = current()
        s = U @ X.T
        gaps = (s[:, :, None] - s[:, None, :])[pair_mask]
        loss = torch.logsumexp(-beta * gaps, dim=0) / beta
        opt.zero_grad()
        loss.backward()
        opt.step()
    with torch.no_grad():
        X, U = current()
        margin = float(subset_margins(X, U, subsets).min())
    return X.detach(), U.detach(), margin


def train_free_embeddings(
    relevance: Tensor,
    d: int,
    *,
    doc_mask: Tensor | None = None,
    query_mask: Tensor | None = None,
    dims: Tensor | None = None,
    steps: int = 2000,
    lr: float = 0.01,
    temperature: float = 0.1,
    check_every: int = 50,
    generator: torch.Generator,
) -> tuple[Tensor, Tensor, Tensor]:
    """Free-embedding optimisation of Weller et al. (2025), batched over problems (chapter 01).

    ``relevance`` is a boolean ``(P, Q, n)`` tensor (``P`` problems, padded to ``Q`` queries and
    ``n`` documents; ``doc_mask`` ``(P, n)`` / ``query_mask`` ``(P, Q)`` mark the real ones;
    ``dims`` ``(P,)`` gives each problem its own dimension ``<= d``: the extra coordinates start
    at zero and, having zero gradient, stay zero, so padded problems are solved exactly). Query
    and document vectors in ``R^d`` are trained directly with full-batch InfoNCE (temperature
    ``temperature``, all documents as negatives), Adam, and renormalised to unit length after
    every step, as in the published protocol. Every ``check_every`` steps the top-``k`` accuracy
    (``k`` = number of relevant documents) is evaluated on the device.

    Returns ``(solved, Qe, De)``: ``solved[p]`` is true when problem ``p`` reached 100 % top-k
    accuracy at some check, and the final unit embeddings.
    """
    if not isinstance(relevance, torch.Tensor) or relevance.dtype != torch.bool:
        raise ValueError("relevance must be a boolean torch tensor of shape (P, Q, n)")
    checks.shape("relevance", relevance, (None, None, None))
    d = checks.integer("d", d, low=1)
    steps = checks.integer("steps", steps, low=1)
    check_every = checks.integer("check_every", check_every, low=1)
    lr = checks.real("lr", lr, low=0.0, strict=True)
    temperature = checks.real("temperature", temperature, low=0.0, strict=True)
    P_, Q_, n_ = relevance.shape
    dev = relevance.device
    doc_mask = torch.ones(P_, n_, dtype=torch.bool, device=dev) if doc_mask is None else doc_mask
    if query_mask is None:
        query_mask = relevance.any(dim=2)
    checks.shape("doc_mask", doc_mask, (P_, n_))
    checks.shape("query_mask", query_mask, (P_, Q_))
    qe = torch.randn(P_, Q_, d, generator=generator, device=dev)
    de = torch.randn(P_, n_, d, generator=generator, device=dev)
    if dims is not None:
        checks.shape("dims", dims, (P_,))
        if int(dims.min()) < 1 or int(dims.max()) > d:
            raise ValueError(f"dims must lie in [1, d={d}]")
        keep = (torch.arange(d, device=dev)[None, :] < dims.to(dev)[:, None]).float()
        qe, de = qe * keep[:, None, :], de * keep[:, None, :]
    qe = (qe / qe.norm(dim=-1, keepdim=True)).requires_grad_(True)
    de = (de / de.norm(dim=-1, keepdim=True)).requires_grad_(True)
    opt = torch.optim.Adam([qe, de], lr=lr)
    rel = relevance & query_mask[:, :, None] & doc_mask[:, None, :]
    relf = rel.float() / rel.sum(dim=(1, 2), keepdim=True).clamp_min(1).float()
    # padded documents get a large negative logit (finite, so that 0 * logp stays 0)
    pad = torch.where(doc_mask, 0.0, -1e4)[:, None, :]
    kq = rel.sum(dim=2)  # relevant documents per query
    kmax = max(int(kq.max()), 1)
    rank_ok = torch.arange(kmax, device=dev)[None, None, :] < kq[:, :, None]
    solved = torch.zeros(P_, dtype=torch.bool, device=dev)

    def accuracy_ok() -> Tensor:
        with torch.no_grad():
            top = (torch.bmm(qe, de.transpose(1, 2)) + pad).topk(kmax, dim=2).indices
            hit = rel.gather(2, top) & rank_ok
            good = (hit.sum(dim=2) == kq) | ~query_mask
            return good.all(dim=1)

    inv_t = 1.0 / temperature
    for step in range(steps):
        logits = torch.baddbmm(pad, qe, de.transpose(1, 2), alpha=inv_t)
        loss = -(torch.log_softmax(logits, dim=2) * relf).sum()
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        with torch.no_grad():
            qe.div_(qe.norm(dim=-1, keepdim=True))
            de.div_(de.norm(dim=-1, keepdim=True))
        if (step + 1) % check_every == 0 or step == steps - 1:
            solved |= accuracy_ok()
    return solved, qe.detach(), de.detach()


# --------------------------------------------------------------------------- evaluation
def recall_at_k(scores: Tensor, relevant: Tensor, k: int) -> Tensor:
    """Mean recall@k: ``|top-k(scores_q) ∩ R_q| / |R_q|`` averaged over queries with ``R_q ≠ ∅``.

    ``scores`` is ``(Q, n)``; ``relevant`` a boolean ``(Q, n)`` mask; ties are broken by
    ``torch.topk``. Returns a 0-d tensor on the input's device.
    """
    if not isinstance(scores, torch.Tensor) or not isinstance(relevant, torch.Tensor):
        raise ValueError("scores and relevant must be torch tensors")
    checks.shape("scores", scores, (None, None))
    checks.shape("relevant", relevant, tuple(scores.shape))
    if relevant.dtype != torch.bool:
        raise ValueError("relevant must be a boolean tensor")
    checks.finite("scores", scores)  # topk would rank NaN first
    k = checks.integer("k", k, low=1, high=scores.shape[1])
    top = scores.topk(k, dim=1).indices
    hits = relevant.gather(1, top).sum(dim=1).to(torch.float64)
    nrel = relevant.sum(dim=1).to(torch.float64)
    keep = nrel > 0
    if not bool(keep.any()):
        raise ValueError("relevant must mark at least one relevant document")
    return (hits[keep] / nrel[keep]).mean()
