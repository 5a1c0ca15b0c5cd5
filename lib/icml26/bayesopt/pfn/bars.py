"""Bar (Riemann) distributions: borders, log-density, NLL, mean and exact entropy (chapter 06).

Implements :prf:ref:`alpha-pfn-def-bar` and its exact entropy :prf:ref:`alpha-pfn-prop-bar-entropy`.
"""

from __future__ import annotations

import math

import torch
from torch import Tensor

from icml26 import checks

__all__ = [
    "bar_entropy",
    "bar_log_density",
    "bar_mean",
    "bar_nll",
    "equal_borders",
    "quantile_borders",
]


_HALF_NORMAL_MEDIAN = (
    0.6744897501960817  # Φ⁻¹(3/4): a half-normal has half its mass in [0, 0.674 s]
)


def equal_borders(lo: float, hi: float, buckets: int) -> Tensor:
    """``buckets + 1`` equally spaced borders on ``[lo, hi]`` (float64)."""
    lo = checks.real("lo", lo)
    hi = checks.real("hi", hi)
    if hi <= lo:
        raise ValueError(f"hi must be > lo, got lo={lo}, hi={hi}")
    buckets = checks.integer("buckets", buckets, low=1)
    return torch.linspace(lo, hi, buckets + 1, dtype=torch.float64)


def quantile_borders(samples: Tensor, buckets: int, *, margin: float = 1e-3) -> Tensor:
    """Borders at the empirical quantiles of ``samples`` (as the paper fits them to prior ``y``).

    The outer borders are pushed out by ``margin`` times the range so every sample lies inside;
    ties are broken by enforcing a minimal width of 1e-9 of the range.
    """
    checks.tensor("samples", samples, ndim=1, floating=True)
    checks.finite("samples", samples)
    buckets = checks.integer("buckets", buckets, low=1)
    margin = checks.real("margin", margin, low=0.0)
    if samples.numel() < 2:
        raise ValueError("samples must hold at least two values")
    s = samples.detach().to(torch.float64)
    span = float(s.max() - s.min())
    if span <= 0:
        raise ValueError("samples must not all be equal")
    q = torch.quantile(s, torch.linspace(0, 1, buckets + 1, dtype=torch.float64))
    q[0] -= margin * span
    q[-1] += margin * span
    widths = torch.diff(q).clamp_min(1e-9 * span)
    return torch.cat([q[:1], q[0] + torch.cumsum(widths, 0)])


def _check_bar(borders: Tensor, logits: Tensor) -> None:
    checks.tensor("borders", borders, ndim=1, floating=True)
    checks.tensor("logits", logits, floating=True)
    checks.finite("borders", borders)
    if bool(torch.isnan(logits).any() | (logits == math.inf).any()):
        raise ValueError("logits must not be NaN or +inf (-inf marks an empty bucket)")
    if borders.numel() < 2 or not bool((torch.diff(borders) > 0).all()):
        raise ValueError("borders must be strictly increasing with at least two entries")
    if logits.ndim < 1 or logits.shape[-1] != borders.numel() - 1:
        raise ValueError(
            f"logits must have last dimension {borders.numel() - 1} (one per bucket), "
            f"got shape {tuple(logits.shape)}"
        )


def _tail_scales(widths: Tensor) -> tuple[Tensor, Tensor]:
    return widths[0] / _HALF_NORMAL_MEDIAN, widths[-1] / _HALF_NORMAL_MEDIAN


def bar_log_density(
    borders: Tensor, logits: Tensor, y: Tensor, *, full_support: bool = False
) -> Tensor:
    """Log-density of the bar distribution at ``y`` (shape ``logits.shape[:-1]``).

    Interior version: the density is ``p_b / w_b`` on bucket ``b`` and zero outside
    ``[borders[0], borders[-1]]`` (log-density ``-inf``). ``full_support``: the two outer buckets
    are half-normal tails anchored at their inner border, scale ``w / 0.6745`` (half of their
    mass inside the bucket), as in the ``alphapfn`` package. Implements
    :prf:ref:`alpha-pfn-def-bar` (chapter 06). Logits may be ``-inf`` (an empty bucket); NaN or
    ``+inf`` logits and non-finite ``y`` raise ``ValueError``.
    """
    _check_bar(borders, logits)
    checks.tensor("y", y, floating=True)
    checks.finite("y", y)
    if tuple(y.shape) != tuple(logits.shape[:-1]):
        raise ValueError(f"y must have shape {tuple(logits.shape[:-1])}, got {tuple(y.shape)}")
    borders = borders.to(logits)
    y = y.to(logits)
    logp = torch.log_softmax(logits, -1)
    widths = torch.diff(borders)
    B = widths.numel()
    idx = (torch.searchsorted(borders, y.contiguous(), right=True) - 1).clamp(0, B - 1)
    lp = logp.gather(-1, idx[..., None])[..., 0]
    if not full_support:
        out = lp - torch.log(widths[idx])
        inside = (y >= borders[0]) & (y <= borders[-1])
        return torch.where(inside, out, torch.full_like(out, -math.inf))
    s_lo, s_hi = _tail_scales(widths)
    inner = lp - torch.log(widths[idx])
    hn = 0.5 * math.log(2 / math.pi)
    left = logp[..., 0] + hn - torch.log(s_lo) - 0.5 * ((borders[1] - y) / s_lo) ** 2
    right = logp[..., -1] + hn - torch.log(s_hi) - 0.5 * ((y - borders[-2]) / s_hi) ** 2
    out = torch.where(y <= borders[1], left, inner)
    return torch.where(y >= borders[-2], right, out) if B > 1 else out


def bar_nll(borders: Tensor, logits: Tensor, y: Tensor, *, full_support: bool = False) -> Tensor:
    """Mean negative log-likelihood of ``y`` under the bar distributions (the PFN training loss)."""
    return -bar_log_density(borders, logits, y, full_support=full_support).mean()


def bar_mean(borders: Tensor, logits: Tensor, *, full_support: bool = False) -> Tensor:
    """Mean of the bar distribution: ``Σ p_b m_b`` with ``m_b`` the bucket's mean.

    This is the α-PFN acquisition value (:prf:ref:`alpha-pfn-prop-nll`); interior buckets have
    their midpoint as mean, half-normal tails ``border ∓ s √(2/π)``.
    """
    _check_bar(borders, logits)
    borders = borders.to(logits)
    p = torch.softmax(logits, -1)
    mids = 0.5 * (borders[1:] + borders[:-1])
    if full_support and mids.numel() > 1:
        s_lo, s_hi = _tail_scales(torch.diff(borders))
        c = math.sqrt(2 / math.pi)
        mids = torch.cat(
            [(borders[1] - c * s_lo)[None], mids[1:-1], (borders[-2] + c * s_hi)[None]]
        )
    return (p * mids).sum(-1)


def bar_entropy(borders: Tensor, logits: Tensor, *, full_support: bool = False) -> Tensor:
    """Exact differential entropy of the bar distribution (:prf:ref:`alpha-pfn-prop-bar-entropy`).

    Interior: ``-Σ p_b (log p_b - log w_b)``. Full support: ``-Σ p_b log p_b + Σ p_b H_b`` with
    ``H_b = log w_b`` inside and ``½ log(π e s²/2)`` for the half-normal tails.
    """
    _check_bar(borders, logits)
    borders = borders.to(logits)
    logp = torch.log_softmax(logits, -1)
    p = logp.exp()
    widths = torch.diff(borders)
    hb = torch.log(widths)
    if full_support and widths.numel() > 1:
        s_lo, s_hi = _tail_scales(widths)
        tail = lambda s: 0.5 * torch.log(math.pi * math.e * s**2 / 2)  # noqa: E731
        hb = torch.cat([tail(s_lo)[None], hb[1:-1], tail(s_hi)[None]])
    plogp = torch.where(p > 0, p * logp, torch.zeros_like(p))
    return -(plogp).sum(-1) + (p * hb).sum(-1)
