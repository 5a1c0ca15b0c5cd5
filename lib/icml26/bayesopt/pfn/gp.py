"""The 1-D GP prior on a grid of chapter 06: kernel, prior draws, tasks, exact posterior."""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import Tensor

from icml26 import checks

__all__ = [
    "Tasks",
    "gp_posterior",
    "make_tasks",
    "rbf_kernel",
    "sample_gp_prior",
    "sample_posterior",
]

_PAD_NOISE = 1e12  # noise variance given to padded context points: they carry no information


def rbf_kernel(x1: Tensor, x2: Tensor, lengthscale: float, variance: float) -> Tensor:
    """``variance · exp(-(x1 - x2)² / (2 ℓ²))`` for 1-D inputs, batched: ``(..., n) × (..., m)``."""
    checks.tensor("x1", x1, floating=True)
    checks.tensor("x2", x2, floating=True)
    checks.finite("x1", x1)
    checks.finite("x2", x2)
    lengthscale = checks.real("lengthscale", lengthscale, low=0.0, strict=True)
    variance = checks.real("variance", variance, low=0.0, strict=True)
    d = x1[..., :, None] - x2[..., None, :]
    return variance * torch.exp(-0.5 * (d / lengthscale) ** 2)


def sample_gp_prior(
    grid: Tensor, num: int, lengthscale: float, variance: float, *, generator: torch.Generator
) -> Tensor:
    """``num`` exact GP draws on ``grid`` by Cholesky (jitter 1e-6 · variance): ``(num, G)``."""
    checks.tensor("grid", grid, ndim=1, floating=True)
    checks.finite("grid", grid)
    num = checks.integer("num", num, low=1)
    K = rbf_kernel(grid, grid, lengthscale, variance)
    L = torch.linalg.cholesky(
        K + 1e-6 * variance * torch.eye(len(grid), dtype=grid.dtype, device=grid.device)
    )
    z = torch.randn(num, len(grid), generator=generator, dtype=grid.dtype).to(grid.device)
    return z @ L.T


@dataclass(frozen=True)
class Tasks:
    """Datasets drawn from the prior: functions on the grid and padded noisy contexts."""

    f: Tensor  # (N, G) latent function on the grid
    ctx_idx: Tensor  # (N, n_max) grid indices of the context points (padding: 0)
    x_ctx: Tensor  # (N, n_max)
    y_ctx: Tensor  # (N, n_max) noisy observations (padding: 0)
    mask: Tensor  # (N, n_max) bool, True for real context points

    @property
    def f_star(self) -> Tensor:
        return self.f.max(-1).values

    @property
    def x_star_idx(self) -> Tensor:
        return self.f.argmax(-1)


def make_tasks(
    grid: Tensor,
    num: int,
    n_range: tuple[int, int],
    lengthscale: float,
    variance: float,
    noise_sd: float,
    *,
    generator: torch.Generator,
) -> Tasks:
    """``num`` prior datasets: a GP draw, ``n ~ U{n_lo..n_hi}`` distinct uniform grid points
    and noisy ``y``."""
    checks.tensor("grid", grid, ndim=1, floating=True)
    checks.finite("grid", grid)
    num = checks.integer("num", num, low=1)
    if len(n_range) != 2:
        raise ValueError(f"n_range must be (n_lo, n_hi), got {n_range!r}")
    lo = checks.integer("n_range[0]", n_range[0], low=1)
    hi = checks.integer("n_range[1]", n_range[1], low=lo, high=len(grid))
    noise_sd = checks.real("noise_sd", noise_sd, low=0.0, strict=True)
    f = sample_gp_prior(grid, num, lengthscale, variance, generator=generator)
    n = torch.randint(lo, hi + 1, (num,), generator=generator)
    order = torch.rand(num, len(grid), generator=generator).argsort(-1)[:, :hi]
    mask = torch.arange(hi)[None, :] < n[:, None]
    idx = torch.where(mask, order, torch.zeros_like(order)).to(grid.device)
    mask = mask.to(grid.device)
    eps = torch.randn(num, hi, generator=generator, dtype=grid.dtype).to(grid.device)
    y = torch.where(mask, f.gather(1, idx) + noise_sd * eps, torch.zeros_like(eps))
    return Tasks(f=f, ctx_idx=idx, x_ctx=grid[idx], y_ctx=y, mask=mask)


def _check_context(x_ctx: Tensor, y_ctx: Tensor, mask: Tensor, x_ndim: int = 2) -> None:
    """Validate a padded batch of contexts: ``x_ctx`` ``(N, n)`` (``x_ndim = 2``, 1-D inputs)
    or ``(N, n, d)`` (``x_ndim = 3``), ``y_ctx`` and ``mask`` ``(N, n)``."""
    checks.tensor("x_ctx", x_ctx, ndim=x_ndim, floating=True)
    checks.tensor("y_ctx", y_ctx, ndim=2, floating=True)
    checks.tensor("mask", mask, ndim=2, dtype=torch.bool)
    if y_ctx.shape != x_ctx.shape[:2] or mask.shape != y_ctx.shape:
        x_shape = "x_ctx (N, n)" if x_ndim == 2 else "x_ctx (N, n, d)"
        raise ValueError(
            f"{x_shape}, y_ctx and mask (N, n) must agree, got {tuple(x_ctx.shape)}, "
            f"{tuple(y_ctx.shape)}, {tuple(mask.shape)}"
        )
    if x_ctx.shape[0] == 0:
        raise ValueError("x_ctx must hold at least one dataset")
    if not bool(mask.any(-1).all()):
        raise ValueError("mask must keep at least one context point per dataset")
    checks.finite("x_ctx", x_ctx)
    checks.finite("y_ctx", y_ctx)


def gp_posterior(
    x_ctx: Tensor,
    y_ctx: Tensor,
    mask: Tensor,
    grid: Tensor,
    lengthscale: float,
    variance: float,
    noise_sd: float,
) -> tuple[Tensor, Tensor]:
    """Exact zero-mean GP posterior of ``f`` on ``grid`` for a batch of padded contexts.

    Returns mean ``(N, G)`` and covariance ``(N, G, G)``. Padded points get noise variance 1e12
    and so carry no information. The predictive of ``y`` adds ``noise_sd²`` to the variance.
    """
    _check_context(x_ctx, y_ctx, mask)
    checks.tensor("grid", grid, ndim=1, floating=True)
    checks.finite("grid", grid)
    noise_sd = checks.real("noise_sd", noise_sd, low=0.0, strict=True)
    noise = torch.where(
        mask, torch.full_like(y_ctx, noise_sd**2), torch.full_like(y_ctx, _PAD_NOISE)
    )
    Knn = rbf_kernel(x_ctx, x_ctx, lengthscale, variance) + torch.diag_embed(noise)
    Ksn = rbf_kernel(grid.expand(len(x_ctx), -1), x_ctx, lengthscale, variance)  # (N, G, n)
    L = torch.linalg.cholesky(Knn)
    A = torch.linalg.solve_triangular(L, Ksn.transpose(1, 2), upper=False)  # (N, n, G)
    b = torch.linalg.solve_triangular(L, torch.where(mask, y_ctx, 0.0)[..., None], upper=False)
    mean = (A * b).sum(1)
    cov = rbf_kernel(grid, grid, lengthscale, variance) - A.transpose(1, 2) @ A
    return mean, cov


def sample_posterior(mean: Tensor, cov: Tensor, num: int, *, generator: torch.Generator) -> Tensor:
    """``num`` joint posterior draws on the grid per dataset: shape ``(N, num, G)``."""
    checks.tensor("mean", mean, ndim=2, floating=True)
    checks.tensor("cov", cov, ndim=3, floating=True)
    checks.shape("cov", cov, (mean.shape[0], mean.shape[1], mean.shape[1]))
    checks.finite("mean", mean)
    checks.finite("cov", cov)
    num = checks.integer("num", num, low=1)
    G = mean.shape[1]
    jitter = 1e-8 * torch.eye(G, dtype=cov.dtype, device=cov.device)
    L, info = torch.linalg.cholesky_ex(cov + jitter)
    if bool((info != 0).any()):
        L = torch.linalg.cholesky(cov + 1e3 * jitter)
    z = torch.randn(mean.shape[0], num, G, generator=generator, dtype=mean.dtype).to(mean.device)
    return mean[:, None, :] + z @ L.transpose(1, 2)
