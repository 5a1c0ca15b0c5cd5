"""Margins and recall of chapter 01 (med).

Score margins for batches of subsets, normalised centroid queries and their margins, exact
retrievability as a batched linear programme (HiGHS, on the host by construction), and recall@k.

Conventions: ``X`` is an ``(m, d)`` tensor of object vectors (rows), ``subsets`` an ``(B, s)``
integer tensor of object indices (one subset per row, all of size ``s``), queries ``(B, d)``.
Every kernel but the LP accepts tensors on any device and returns tensors on that device.
"""

from __future__ import annotations

import numpy as np
import scipy.optimize
import scipy.sparse
import torch

from icml26 import checks
from icml26.retrieval.med.constructions import _check_points, _check_subsets, _selection_mask

Tensor = torch.Tensor

__all__ = [
    "centroid_margins",
    "centroid_queries",
    "lp_margins",
    "min_pair_centroid_margin",
    "recall_at_k",
    "subset_margins",
]


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
