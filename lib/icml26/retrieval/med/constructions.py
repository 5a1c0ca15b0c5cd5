"""Embeddings of chapter 01 (med) with known retrieval geometry.

The moment curve and its squared-polynomial queries (:prf:ref:`med-lem-moment`), the unit-norm
trigonometric moment curve, the regular simplex with the margin ceiling
``eps_star(m, k) = m / sqrt(k (m-1) (m-k))`` (:prf:ref:`med-thm-ceiling`), random unit vectors,
and every subset of a given size.

Conventions: ``X`` is an ``(m, d)`` tensor of object vectors (rows), ``subsets`` an ``(B, s)``
integer tensor of object indices (one subset per row, all of size ``s``), queries ``(B, d)``.
"""

from __future__ import annotations

import itertools
import math

import torch

from icml26 import checks

Tensor = torch.Tensor

__all__ = [
    "all_subsets",
    "eps_star",
    "gaussian_unit",
    "moment_curve",
    "moment_curve_queries",
    "regular_simplex",
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
    roots = t[subsets.to(t.device)]  # (B, s)
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
