"""Entropy-search acquisitions by grouped Monte Carlo, and their closed-form neighbours.

Chapter 06. The grouped estimator implements :prf:ref:`alpha-pfn-def-es` (with the bias of
:prf:ref:`alpha-pfn-lem-binning`); the truncated-Gaussian MES and expected improvement are the
references the α-network is compared with.
"""

from __future__ import annotations

import math

import torch
from torch import Tensor

from icml26 import checks

__all__ = [
    "expected_improvement",
    "grouped_entropy_search",
    "mixture_entropy",
    "truncated_gaussian_mes",
    "truncated_normal_entropy",
]


def mixture_entropy(centres: Tensor, noise_sd: float, *, points: int = 96) -> Tensor:
    """Entropy of the equal-weight mixture ``(1/M) Σ_m N(centres_m, σ²)`` by quadrature.

    ``centres`` has shape ``(..., M)``; the y-grid spans the centres ± 6σ with ``points`` nodes
    (the rectangle rule is spectrally accurate for these smooth, vanishing integrands).
    """
    checks.tensor("centres", centres, floating=True)
    checks.finite("centres", centres)
    if centres.ndim < 1 or centres.shape[-1] == 0:
        raise ValueError("centres must hold at least one centre (last axis)")
    noise_sd = checks.real("noise_sd", noise_sd, low=0.0, strict=True)
    points = checks.integer("points", points, low=8)
    lo = centres.min(-1).values - 6 * noise_sd
    hi = centres.max(-1).values + 6 * noise_sd
    t = torch.linspace(0, 1, points, dtype=centres.dtype, device=centres.device)
    ys = lo[..., None] + (hi - lo)[..., None] * t
    z = (ys[..., None, :] - centres[..., :, None]) / noise_sd
    dens = torch.exp(-0.5 * z**2).mean(-2) / (noise_sd * math.sqrt(2 * math.pi))
    dy = (hi - lo) / (points - 1)
    return -(torch.where(dens > 0, dens * dens.log(), 0.0)).sum(-1) * dy


def _optimum_groups(f: Tensor, kind: str, bins: int) -> Tensor:
    """Group of each sample's optimum: argmax bins (PES) or per-dataset f* quantile bins (MES)."""
    G = f.shape[-1]
    if kind == "pes":
        return f.argmax(-1) * bins // G
    fmax = f.max(-1).values  # (N, M)
    qs = torch.linspace(0, 1, bins + 1, dtype=f.dtype, device=f.device)[1:-1]
    edges = torch.quantile(fmax, qs, dim=-1).T.contiguous()  # (N, bins - 1)
    return torch.searchsorted(edges, fmax.contiguous(), right=True)


def grouped_entropy_search(
    f_samples: Tensor,
    query_idx: Tensor,
    noise_sd: float,
    *,
    kind: str = "mes",
    bins: int = 16,
    points: int = 96,
    chunk: int | None = None,
) -> tuple[Tensor, Tensor]:
    """Grouped Monte-Carlo entropy search.

    Implements :prf:ref:`alpha-pfn-def-es` with the estimator of :prf:ref:`alpha-pfn-lem-binning`.

    ``f_samples`` ``(N, M, G)`` are joint posterior draws on the grid, ``query_idx`` ``(N, C)``
    grid indices of the candidates. Samples are grouped by the bin of their optimum (``kind``
    ``"pes"``: argmax in ``bins`` equal grid bins; ``"mes"``: ``f*`` in ``bins`` quantile bins);
    ``y = f(x) + ε`` at each candidate is a Gaussian mixture over the samples, and

    ``α(x) = H[mix of all] − Σ_g (n_g / M) H[mix of group g]``

    is the mutual information between ``y`` and the bin of the optimum under the empirical
    measure (≥ 0). Also returns the single-optimum labels ``α̃ = H[all] − H[group of sample 0]``:
    put the task's true function first to get the α-PFN training labels of
    :prf:ref:`alpha-pfn-def-alpha`. Both have shape ``(N, C)``.
    """
    checks.tensor("f_samples", f_samples, ndim=3, floating=True)
    checks.finite("f_samples", f_samples)
    checks.tensor("query_idx", query_idx, ndim=2)
    if query_idx.is_floating_point() or query_idx.dtype == torch.bool:
        raise ValueError(f"query_idx must hold integer grid indices, got {query_idx.dtype}")
    if query_idx.shape[0] != f_samples.shape[0]:
        raise ValueError(f"query_idx must have {f_samples.shape[0]} rows, got {query_idx.shape[0]}")
    if query_idx.numel() and (
        int(query_idx.min()) < 0 or int(query_idx.max()) >= f_samples.shape[2]
    ):
        raise ValueError(f"query_idx must index the grid of size {f_samples.shape[2]}")
    if kind not in ("pes", "mes"):
        raise ValueError(f"kind must be 'pes' or 'mes', got {kind!r}")
    bins = checks.integer("bins", bins, low=1)
    points = checks.integer("points", points, low=8)
    if chunk is None:  # keep the (chunk, M, C, points) block near 2M entries (cache-friendly)
        chunk = max(1, 2_000_000 // (f_samples.shape[1] * query_idx.shape[1] * points))
    chunk = checks.integer("chunk", chunk, low=1)
    noise_sd = checks.real("noise_sd", noise_sd, low=0.0, strict=True)
    if f_samples.shape[1] < 2:
        raise ValueError("f_samples must hold at least two draws per dataset")
    acq, lab = [], []
    for s in range(0, f_samples.shape[0], chunk):
        a, b = _grouped_chunk(
            f_samples[s : s + chunk], query_idx[s : s + chunk], noise_sd, kind, bins, points
        )
        acq.append(a)
        lab.append(b)
    return torch.cat(acq), torch.cat(lab)


def _grouped_chunk(f: Tensor, qidx: Tensor, sd: float, kind: str, bins: int, points: int):
    N, M, _ = f.shape
    C = qidx.shape[1]
    groups = _optimum_groups(f, kind, bins)  # (N, M)
    fq = f.gather(2, qidx[:, None, :].expand(N, M, C).to(f.device))  # (N, M, C)
    lo = fq.min(1).values - 6 * sd
    hi = fq.max(1).values + 6 * sd  # (N, C)
    t = torch.linspace(0, 1, points, dtype=f.dtype, device=f.device)
    ys = lo[..., None] + (hi - lo)[..., None] * t  # (N, C, P)
    phi = torch.exp(-0.5 * ((ys[:, None] - fq[..., None]) / sd) ** 2) / (
        sd * math.sqrt(2 * math.pi)
    )
    flat = (groups + bins * torch.arange(N, device=f.device)[:, None]).reshape(-1)
    sums = torch.zeros(N * bins, C, points, dtype=f.dtype, device=f.device)
    sums.index_add_(0, flat, phi.reshape(N * M, C, points))
    sums = sums.reshape(N, bins, C, points)
    counts = torch.zeros(N * bins, dtype=f.dtype, device=f.device)
    counts.index_add_(0, flat, torch.ones_like(flat, dtype=f.dtype))
    counts = counts.reshape(N, bins)
    dy = ((hi - lo) / (points - 1))[:, None]  # (N, 1, C)

    def entropy(dens: Tensor) -> Tensor:
        return -(torch.where(dens > 0, dens * dens.log(), 0.0)).sum(-1) * dy

    h_all = entropy(sums.sum(1, keepdim=True) / M)[:, 0]  # (N, C)
    h_g = entropy(sums / counts.clamp_min(1)[..., None, None])  # (N, bins, C)
    w = counts / M
    acq = h_all - (w[..., None] * h_g).sum(1)
    first = groups[:, 0]
    label = h_all - h_g.gather(1, first[:, None, None].expand(N, 1, C))[:, 0]
    return acq, label


def truncated_normal_entropy(mu: Tensor, sigma: Tensor, upper: Tensor) -> Tensor:
    """Entropy of ``N(μ, σ²)`` truncated to ``(-∞, upper]``: the noiseless MES conditional term.

    ``H = log(√(2πe) σ Φ(γ)) − γ φ(γ) / (2 Φ(γ))`` with ``γ = (upper − μ) / σ``; elementwise,
    the three arguments broadcast against each other.
    """
    for name, v in (("mu", mu), ("sigma", sigma), ("upper", upper)):
        checks.tensor(name, v, floating=True)
        checks.finite(name, v)
    try:
        torch.broadcast_shapes(mu.shape, sigma.shape, upper.shape)
    except RuntimeError as err:
        raise ValueError(f"mu, sigma and upper must broadcast together: {err}") from None
    if bool((sigma <= 0).any()):
        raise ValueError("sigma must be positive")
    normal = torch.distributions.Normal(
        torch.zeros((), dtype=mu.dtype), torch.ones((), dtype=mu.dtype)
    )
    g = (upper - mu) / sigma
    logcdf = torch.special.log_ndtr(g)
    ratio = torch.exp(normal.log_prob(g) - logcdf)  # φ/Φ, stable
    return 0.5 * math.log(2 * math.pi * math.e) + torch.log(sigma) + logcdf - 0.5 * g * ratio


def truncated_gaussian_mes(
    mean: Tensor, var: Tensor, noise_sd: float, f_star: Tensor, *, points: int = 401
) -> Tensor:
    """MES of a noisy observation under the truncated-Gaussian approximation, by quadrature.

    The approximation of max-value entropy search (Wang & Jegelka; for noisy ``y`` Takeno et
    al., as in BoTorch's ``qMaxValueEntropy``): given ``f*``, the latent ``f(x)`` is
    ``N(μ, σ²)`` truncated to ``f(x) ≤ f*``, so ``y = f(x) + ε`` has density
    ``N(y; μ, σ² + σ_n²) Φ((f* − m(y)) / s) / Φ((f* − μ) / σ)`` with ``m(y)`` and ``s²`` the
    mean and variance of ``f(x) | y``. Returns ``H[y] − mean over f* of H[y | f*]`` in nats,
    the ``f*`` draws (last axis of ``f_star``, broadcasting with ``mean[..., None]``) shared
    by every candidate. ``mean`` and ``var`` are the latent posterior moments, shape ``(...)``.
    """
    checks.tensor("mean", mean, floating=True)
    checks.tensor("var", var, floating=True)
    checks.tensor("f_star", f_star, floating=True)
    for name, v in (("mean", mean), ("var", var), ("f_star", f_star)):
        checks.finite(name, v)
    if mean.shape != var.shape:
        raise ValueError(
            f"var must have the shape of mean {tuple(mean.shape)}, got {tuple(var.shape)}"
        )
    if bool((var <= 0).any()):
        raise ValueError("var must be positive")
    if f_star.ndim < 1 or f_star.shape[-1] == 0:
        raise ValueError("f_star must hold at least one draw (last axis)")
    try:
        torch.broadcast_shapes((*mean.shape, 1), f_star.shape)
    except RuntimeError as err:
        raise ValueError(f"f_star must broadcast with mean[..., None]: {err}") from None
    noise_sd = checks.real("noise_sd", noise_sd, low=0.0, strict=True)
    points = checks.integer("points", points, low=8)
    mu, v = mean[..., None, None], var[..., None, None]  # (..., 1, 1)
    tot = v + noise_sd**2
    t = torch.linspace(-10, 10, points, dtype=mean.dtype, device=mean.device)
    ys = mu + tot.sqrt() * t  # (..., 1, P)
    log_py = -0.5 * t**2 - 0.5 * torch.log(2 * math.pi * tot)
    m_y = mu + v / tot * (ys - mu)
    s_y = (v * noise_sd**2 / tot).sqrt()
    dy = tot[..., 0].sqrt() * (t[1] - t[0])  # (..., 1)
    S = f_star.shape[-1]
    step = max(1, 2_000_000 // max(1, mean.numel() * points))  # bounds the (…, S, P) block
    h_sum = torch.zeros_like(mean)
    for k in range(0, S, step):
        fs = f_star[..., k : k + step, None]  # (..., s, 1)
        log_p = (
            log_py
            + torch.special.log_ndtr((fs - m_y) / s_y)
            - torch.special.log_ndtr((fs - mu) / v.sqrt())
        )  # (..., s, P)
        h_sum = h_sum + (-(log_p.exp() * log_p).sum(-1) * dy).sum(-1)
    h_y = 0.5 * torch.log(2 * math.pi * math.e * tot[..., 0, 0])
    return h_y - h_sum / S


def expected_improvement(mean: Tensor, var: Tensor, best: Tensor) -> Tensor:
    """Closed-form EI of ``f`` over ``best`` (maximisation); ``best`` broadcasts with ``mean``."""
    checks.tensor("mean", mean, floating=True)
    checks.tensor("var", var, floating=True)
    checks.tensor("best", best, floating=True)
    for name, v in (("mean", mean), ("var", var), ("best", best)):
        checks.finite(name, v)
    if mean.shape != var.shape:
        raise ValueError(
            f"var must have the shape of mean {tuple(mean.shape)}, got {tuple(var.shape)}"
        )
    if bool((var < 0).any()):
        raise ValueError("var must be non-negative")
    sd = var.clamp_min(1e-12).sqrt()
    z = (mean - best) / sd
    normal = torch.distributions.Normal(
        torch.zeros((), dtype=mean.dtype), torch.ones((), dtype=mean.dtype)
    )
    return sd * (normal.log_prob(z).exp() + z * torch.special.ndtr(z))
