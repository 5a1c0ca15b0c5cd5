"""The d-dimensional GP prior of chapter 06's paper-scale variant: an ARD RBF kernel with a
log-normal length-scale hyper-prior, exact draws on random point sets, prior tasks, the
exact posterior, and single-optimum MES labels.

A task lives on its own set of ``G`` uniform points in ``[0, 1]^d``: the function is drawn
jointly on them (exact Cholesky sampling), the context and the candidates are among them,
and ``f* = max f`` over them. The labels are those of :prf:ref:`alpha-pfn-def-alpha` with
``I = f*`` (MES, :prf:ref:`alpha-pfn-def-es`), from the grouped estimator of
:func:`~icml26.bayesopt.pfn.entropy.grouped_entropy_search` (bias:
:prf:ref:`alpha-pfn-lem-binning`) applied to posterior draws on the task's point set, so
nothing relies on a grid.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
from torch import Tensor

from icml26 import checks
from icml26.bayesopt.pfn.entropy import grouped_entropy_search
from icml26.bayesopt.pfn.gp import _PAD_NOISE, _check_context, sample_posterior

__all__ = [
    "TasksND",
    "ard_rbf_kernel",
    "check_context_nd",
    "gp_posterior_nd",
    "make_tasks_nd",
    "mes_labels",
    "sample_lengthscales",
    "standardize_context",
]


def ard_rbf_kernel(x1: Tensor, x2: Tensor, lengthscales: Tensor, variance: float) -> Tensor:
    """``variance · exp(-½ Σ_k (x1_k − x2_k)² / ℓ_k²)``, batched: ``(..., n, d) × (..., m, d)``.

    ``lengthscales`` has shape ``(..., d)`` (one ARD vector per batch entry) or ``(d,)``.
    """
    checks.tensor("x1", x1, floating=True)
    checks.tensor("x2", x2, floating=True)
    checks.tensor("lengthscales", lengthscales, floating=True)
    for name, v in (("x1", x1), ("x2", x2), ("lengthscales", lengthscales)):
        checks.finite(name, v)
    if x1.ndim < 2 or x2.ndim < 2 or x1.shape[-1] != x2.shape[-1]:
        raise ValueError(
            f"x1 and x2 must be (..., n, d) with one d, got {tuple(x1.shape)}, {tuple(x2.shape)}"
        )
    if lengthscales.ndim < 1 or lengthscales.shape[-1] != x1.shape[-1]:
        raise ValueError(f"lengthscales must end in d = {x1.shape[-1]}, got {lengthscales.shape}")
    if bool((lengthscales <= 0).any()):
        raise ValueError("lengthscales must be positive")
    variance = checks.real("variance", variance, low=0.0, strict=True)
    ls = lengthscales[..., None, :]
    d2 = ((x1[..., :, None, :] - x2[..., None, :, :]) / ls[..., None, :]).pow(2).sum(-1)
    return variance * torch.exp(-0.5 * d2)


def sample_lengthscales(
    num: int,
    dim: int,
    *,
    loc: float = -0.75,
    scale: float = 0.75,
    generator: torch.Generator,
    dtype: torch.dtype = torch.float64,
) -> Tensor:
    """``(num, dim)`` ARD length-scales ``ℓ_k ~ LogNormal(loc + ½ log d, scale)``.

    The default ``loc`` and ``scale`` are the α-PFN training prior's ("scenario 7").
    """
    num = checks.integer("num", num, low=1)
    dim = checks.integer("dim", dim, low=1)
    loc = checks.real("loc", loc)
    scale = checks.real("scale", scale, low=0.0)
    z = torch.randn(num, dim, generator=generator, dtype=dtype)
    return torch.exp(loc + 0.5 * math.log(dim) + scale * z)


@dataclass(frozen=True)
class TasksND:
    """Datasets drawn from the d-dimensional prior, each on its own random point set."""

    x: Tensor  # (N, G, d) the task's points in [0, 1]^d
    f: Tensor  # (N, G) latent function at the points
    lengthscales: Tensor  # (N, d) the task's ARD length-scales
    ctx_idx: Tensor  # (N, n_max) point indices of the context (padding: 0)
    x_ctx: Tensor  # (N, n_max, d)
    y_ctx: Tensor  # (N, n_max) noisy observations (padding: 0)
    mask: Tensor  # (N, n_max) bool, True for real context points

    @property
    def f_star(self) -> Tensor:
        return self.f.max(-1).values


def make_tasks_nd(
    num: int,
    dim: int,
    points: int,
    n_range: tuple[int, int],
    noise_sd: float,
    *,
    variance: float = 1.0,
    generator: torch.Generator,
    device: torch.device | str = "cpu",
    dtype: torch.dtype = torch.float64,
) -> TasksND:
    """``num`` prior datasets in ``[0, 1]^dim``: ``points`` uniform points, length-scales from
    :func:`sample_lengthscales`, an exact zero-mean GP draw on the points (jitter 1e-6 ·
    variance), ``n ~ U{n_lo..n_hi}`` distinct context points among them and noisy ``y``."""
    num = checks.integer("num", num, low=1)
    dim = checks.integer("dim", dim, low=1)
    points = checks.integer("points", points, low=2)
    if len(n_range) != 2:
        raise ValueError(f"n_range must be (n_lo, n_hi), got {n_range!r}")
    lo = checks.integer("n_range[0]", n_range[0], low=1)
    hi = checks.integer("n_range[1]", n_range[1], low=lo, high=points)
    noise_sd = checks.real("noise_sd", noise_sd, low=0.0, strict=True)
    variance = checks.real("variance", variance, low=0.0, strict=True)
    x = torch.rand(num, points, dim, generator=generator, dtype=dtype)
    ls = sample_lengthscales(num, dim, generator=generator, dtype=dtype)
    z = torch.randn(num, points, generator=generator, dtype=dtype)
    n = torch.randint(lo, hi + 1, (num,), generator=generator)
    order = torch.rand(num, points, generator=generator).argsort(-1)[:, :hi]
    eps = torch.randn(num, hi, generator=generator, dtype=dtype)
    x, ls, z, eps = (t.to(device) for t in (x, ls, z, eps))
    K = ard_rbf_kernel(x, x, ls, variance)
    eye = torch.eye(points, dtype=dtype, device=x.device)
    L = torch.linalg.cholesky(K + 1e-6 * variance * eye)
    f = (L @ z[..., None])[..., 0]
    mask = (torch.arange(hi)[None, :] < n[:, None]).to(x.device)
    idx = torch.where(mask, order.to(x.device), 0)
    y = torch.where(mask, f.gather(1, idx) + noise_sd * eps, 0.0)
    x_ctx = x.gather(1, idx[..., None].expand(-1, -1, dim))
    return TasksND(x=x, f=f, lengthscales=ls, ctx_idx=idx, x_ctx=x_ctx, y_ctx=y, mask=mask)


def check_context_nd(x_ctx: Tensor, y_ctx: Tensor, mask: Tensor) -> None:
    """Validate a padded batch of d-dimensional contexts ``(N, n, d)``, ``(N, n)``, ``(N, n)``."""
    _check_context(x_ctx, y_ctx, mask, x_ndim=3)


def standardize_context(y_ctx: Tensor, mask: Tensor) -> Tensor:
    """Each dataset's real ``y`` shifted to mean 0 and scaled to standard deviation 1 (the
    unbiased one; 1 when a dataset has one point or constant ``y``); padding stays 0."""
    checks.tensor("y_ctx", y_ctx, ndim=2, floating=True)
    checks.tensor("mask", mask, ndim=2, dtype=torch.bool)
    checks.shape("mask", mask, tuple(y_ctx.shape))
    checks.finite("y_ctx", y_ctx)
    m = mask.to(y_ctx.dtype)
    n = m.sum(-1, keepdim=True).clamp_min(1)
    mean = (y_ctx * m).sum(-1, keepdim=True) / n
    var = (((y_ctx - mean) * m) ** 2).sum(-1, keepdim=True) / (n - 1).clamp_min(1)
    sd = torch.where(var > 1e-24, var.sqrt(), torch.ones_like(var))
    return torch.where(mask, (y_ctx - mean) / sd, 0.0)


def gp_posterior_nd(
    x_ctx: Tensor,
    y_ctx: Tensor,
    mask: Tensor,
    x_eval: Tensor,
    lengthscales: Tensor,
    noise_sd: float,
    *,
    variance: float = 1.0,
) -> tuple[Tensor, Tensor]:
    """Exact zero-mean GP posterior of ``f`` at ``x_eval`` ``(N, G, d)`` for padded contexts.

    Returns mean ``(N, G)`` and covariance ``(N, G, G)``; ``lengthscales`` is ``(N, d)``.
    Padded points get noise variance 1e12 and so carry no information.
    """
    check_context_nd(x_ctx, y_ctx, mask)
    checks.tensor("x_eval", x_eval, ndim=3, floating=True)
    checks.finite("x_eval", x_eval)
    checks.shape("x_eval", x_eval, (x_ctx.shape[0], None, x_ctx.shape[2]))
    checks.tensor("lengthscales", lengthscales, ndim=2, floating=True)
    checks.shape("lengthscales", lengthscales, (x_ctx.shape[0], x_ctx.shape[2]))
    checks.finite("lengthscales", lengthscales)
    noise_sd = checks.real("noise_sd", noise_sd, low=0.0, strict=True)
    noise = torch.where(
        mask, torch.full_like(y_ctx, noise_sd**2), torch.full_like(y_ctx, _PAD_NOISE)
    )
    Knn = ard_rbf_kernel(x_ctx, x_ctx, lengthscales, variance) + torch.diag_embed(noise)
    Kns = ard_rbf_kernel(x_ctx, x_eval, lengthscales, variance)  # (N, n, G)
    L = torch.linalg.cholesky(Knn)
    A = torch.linalg.solve_triangular(L, Kns, upper=False)  # (N, n, G)
    b = torch.linalg.solve_triangular(L, torch.where(mask, y_ctx, 0.0)[..., None], upper=False)
    mean = (A * b).sum(1)
    cov = ard_rbf_kernel(x_eval, x_eval, lengthscales, variance) - A.transpose(1, 2) @ A
    return mean, cov


def mes_labels(
    tasks: TasksND,
    query_idx: Tensor,
    samples: int,
    noise_sd: float,
    *,
    bins: int = 16,
    points: int = 64,
    chunk: int = 64,
    variance: float = 1.0,
    generator: torch.Generator,
) -> tuple[Tensor, Tensor]:
    """MES at the candidates ``query_idx`` ``(N, C)`` (indices into each task's points).

    Draws ``samples`` joint posterior functions on the task's points (with the task's own
    length-scales, :func:`gp_posterior_nd`), puts the task's true ``f`` first, and runs the
    grouped estimator with ``f*`` quantile bins
    (:func:`~icml26.bayesopt.pfn.entropy.grouped_entropy_search`, ``kind="mes"``). Returns
    ``(acquisition, labels)``, both ``(N, C)``: the grouped MES over all draws, and the
    single-optimum labels ``α̃ = H[y | D, x] − H[y | D, x, f* of the true f]`` of
    :prf:ref:`alpha-pfn-def-alpha`. Datasets are processed ``chunk`` at a time.
    """
    if not isinstance(tasks, TasksND):
        raise ValueError(f"tasks must be TasksND, got {type(tasks).__name__}")
    checks.tensor("query_idx", query_idx, ndim=2)
    if query_idx.is_floating_point() or query_idx.dtype == torch.bool:
        raise ValueError(f"query_idx must hold integer point indices, got {query_idx.dtype}")
    checks.shape("query_idx", query_idx, (tasks.f.shape[0], None))
    samples = checks.integer("samples", samples, low=1)
    chunk = checks.integer("chunk", chunk, low=1)
    noise_sd = checks.real("noise_sd", noise_sd, low=0.0, strict=True)
    acq, lab = [], []
    for s in range(0, tasks.f.shape[0], chunk):
        c = slice(s, s + chunk)
        mu, cov = gp_posterior_nd(
            tasks.x_ctx[c],
            tasks.y_ctx[c],
            tasks.mask[c],
            tasks.x[c],
            tasks.lengthscales[c],
            noise_sd,
            variance=variance,
        )
        fs = sample_posterior(mu, cov, samples, generator=generator)
        fs = torch.cat([tasks.f[c, None], fs], 1)
        a, b = grouped_entropy_search(
            fs, query_idx[c].to(fs.device), noise_sd, kind="mes", bins=bins, points=points
        )
        acq.append(a)
        lab.append(b)
    return torch.cat(acq), torch.cat(lab)
