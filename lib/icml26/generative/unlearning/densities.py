"""Exact densities and quadrature of chapter 09 (t3-unlearning).

The grid (:func:`grid`), the trapezoid rule (:func:`trapezoid`), Gaussian and mixture densities
(:func:`normal_pdf`, :func:`mixture_pdf`). Densities are tensors on a fixed grid ``z`` (last
axis), with any leading batch axes.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import torch

from icml26 import checks

Number = float | torch.Tensor

__all__ = [
    "grid",
    "mixture_pdf",
    "normal_pdf",
    "trapezoid",
]


def _grid_arg(z: object) -> torch.Tensor:
    z = checks.tensor("z", z, ndim=1, floating=True)
    checks.finite("z", z)
    if z.numel() < 2:
        raise ValueError(f"z must hold at least two grid points, got {z.numel()}")
    if not bool((z[1:] > z[:-1]).all()):
        raise ValueError("z must be strictly increasing")
    return z


def _density(name: str, p: object, z: torch.Tensor | None = None) -> torch.Tensor:
    p = checks.tensor(name, p, floating=True)
    if p.ndim < 1:
        raise ValueError(f"{name} must have a grid axis (last), got a scalar")
    if z is not None and p.shape[-1] != z.shape[0]:
        raise ValueError(
            f"{name} must have {z.shape[0]} grid points (last axis), got {p.shape[-1]}"
        )
    checks.finite(name, p)
    if bool((p < 0).any()):
        raise ValueError(f"{name} must be non-negative")
    return p


def _prob(name: str, x: object) -> torch.Tensor:
    x = checks.tensor(name, x, floating=True)
    checks.finite(name, x)
    if bool(((x < 0) | (x > 1)).any()):
        raise ValueError(f"{name} must lie in [0, 1]")
    return x


def _scalar_or_tensor(name: str, x: Number, *, low: float, high: float | None, strict: bool):
    if isinstance(x, torch.Tensor):
        checks.finite(name, x)
        bad = (x <= low) if strict else (x < low)
        if high is not None:
            bad = bad | ((x >= high) if strict else (x > high))
        if bool(bad.any()):
            raise ValueError(f"{name} must lie in {'(' if strict else '['}{low}, {high}]")
        return x
    return checks.real(name, x, low=low, high=high, strict=strict)


def grid(lo: float, hi: float, n: int, *, device: torch.device | str | None = None) -> torch.Tensor:
    """``n`` equally spaced float64 points on ``[lo, hi]`` (the quadrature grid)."""
    lo = checks.real("lo", lo)
    hi = checks.real("hi", hi)
    if hi <= lo:
        raise ValueError(f"hi must exceed lo, got lo={lo}, hi={hi}")
    n = checks.integer("n", n, low=2)
    return torch.linspace(lo, hi, n, dtype=torch.float64, device=device)


def trapezoid(y: torch.Tensor, z: torch.Tensor) -> torch.Tensor:
    """∫ y dz along the last axis by the trapezoid rule (batched over leading axes)."""
    z = _grid_arg(z)
    y = checks.tensor("y", y, floating=True)
    if y.ndim < 1 or y.shape[-1] != z.shape[0]:
        raise ValueError(f"y must have {z.shape[0]} grid points (last axis), got {tuple(y.shape)}")
    checks.finite("y", y)
    return torch.trapezoid(y, z, dim=-1)


def normal_pdf(z: torch.Tensor, mean: Number, std: Number) -> torch.Tensor:
    """Density of N(mean, std²) at ``z``; tensor ``mean``/``std`` of shape (B,) give (B, G)."""
    z = checks.tensor("z", z, floating=True)
    checks.finite("z", z)
    std = _scalar_or_tensor("std", std, low=0.0, high=None, strict=True)
    mean = _scalar_or_tensor("mean", mean, low=-math.inf, high=None, strict=False)
    if isinstance(mean, torch.Tensor):
        mean = mean.to(z).unsqueeze(-1)
    if isinstance(std, torch.Tensor):
        std = std.to(z).unsqueeze(-1)
    u = (z - mean) / std
    return torch.exp(-0.5 * u * u) / (std * math.sqrt(2 * math.pi))


def mixture_pdf(
    z: torch.Tensor, means: Sequence[float], stds: Sequence[float], weights: Sequence[float]
) -> torch.Tensor:
    """Density of the Gaussian mixture Σ_k w_k N(means_k, stds_k²) at ``z``."""
    z = checks.tensor("z", z, floating=True)
    checks.finite("z", z)
    if not (len(means) == len(stds) == len(weights)) or len(means) == 0:
        raise ValueError("means, stds and weights must be non-empty and of equal length")
    w = torch.as_tensor(list(weights), dtype=torch.float64)
    checks.probability_vector("weights", w)
    for k, (m, sd) in enumerate(zip(means, stds, strict=True)):
        checks.real(f"means[{k}]", m)
        checks.real(f"stds[{k}]", sd, low=0.0, strict=True)
    out = torch.zeros_like(z)
    for m, s, wk in zip(means, stds, weights, strict=True):
        out = out + float(wk) * normal_pdf(z, float(m), float(s))
    return out
