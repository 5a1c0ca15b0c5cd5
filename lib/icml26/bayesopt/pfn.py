"""α-PFN at toy scale (chapter 06): bar distributions, a 1-D GP prior, grouped Monte-Carlo
entropy search, the α-network and a batched Bayesian-optimisation loop.

The bar (Riemann) distribution implements :prf:ref:`alpha-pfn-def-bar` and its exact entropy
:prf:ref:`alpha-pfn-prop-bar-entropy`; the grouped estimator implements the entropy-search
acquisitions of :prf:ref:`alpha-pfn-def-es` (with the bias of :prf:ref:`alpha-pfn-lem-binning`);
the α-network is trained on the labels of :prf:ref:`alpha-pfn-def-alpha` with the NLL of
:prf:ref:`alpha-pfn-prop-nll`. Everything is batched over datasets and runs on any device.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import torch
from torch import Tensor, nn

from icml26 import checks

__all__ = [
    "AlphaNet",
    "Tasks",
    "bar_entropy",
    "bar_log_density",
    "bar_mean",
    "bar_nll",
    "bo_loop",
    "equal_borders",
    "expected_improvement",
    "fixed_gp_model",
    "gp_posterior",
    "grouped_entropy_search",
    "make_tasks",
    "mixture_entropy",
    "quantile_borders",
    "rbf_kernel",
    "sample_gp_prior",
    "sample_posterior",
    "train_alpha_net",
    "truncated_gaussian_mes",
    "truncated_normal_entropy",
]

_HALF_NORMAL_MEDIAN = (
    0.6744897501960817  # Φ⁻¹(3/4): a half-normal has half its mass in [0, 0.674 s]
)
_PAD_NOISE = 1e12  # noise variance given to padded context points: they carry no information


# --------------------------------------------------------------------------- bar distribution
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


# --------------------------------------------------------------------------- GP prior on a grid
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


def _check_context(x_ctx: Tensor, y_ctx: Tensor, mask: Tensor) -> None:
    checks.tensor("x_ctx", x_ctx, ndim=2, floating=True)
    checks.tensor("y_ctx", y_ctx, ndim=2, floating=True)
    checks.tensor("mask", mask, ndim=2, dtype=torch.bool)
    if y_ctx.shape != x_ctx.shape or mask.shape != x_ctx.shape:
        raise ValueError(
            f"x_ctx, y_ctx and mask must share one shape, got {tuple(x_ctx.shape)}, "
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


# --------------------------------------------------------------------------- entropy search
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

    ``H = log(√(2πe) σ Φ(γ)) − γ φ(γ) / (2 Φ(γ))`` with ``γ = (upper − μ) / σ``.
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


# --------------------------------------------------------------------------- the α-network
class AlphaNet(nn.Module):
    """The chapter's α-network ``a_θ(· | x, D)``: a bar distribution over ``α̃``.

    Each (candidate ``x``, context point ``(x_j, y_j)``) pair is embedded by an MLP on
    ``[x, x_j, d, |d|, y_j, y_j − max y]`` (``d = x − x_j``); the embeddings are mean- and
    max-pooled over the context (a permutation-invariant read-out, a cheap stand-in for the
    paper's transformer attention); a head MLP on ``[x, max y, n / n_max, pooled]`` outputs
    the bucket logits. The activations are smooth (SiLU): with ReLU's kinks, a last-bit change
    of a pre-activation can change a gradient by a finite amount, and training would depend on
    the machine's floating-point code paths.
    """

    def __init__(self, buckets: int, *, pair_width: int = 32, head_width: int = 64) -> None:
        super().__init__()
        buckets = checks.integer("buckets", buckets, low=2)
        pair_width = checks.integer("pair_width", pair_width, low=1)
        head_width = checks.integer("head_width", head_width, low=1)
        self.pair = nn.Sequential(
            nn.Linear(6, pair_width), nn.SiLU(), nn.Linear(pair_width, pair_width), nn.SiLU()
        )
        self.head = nn.Sequential(
            nn.Linear(3 + 2 * pair_width, head_width),
            nn.SiLU(),
            nn.Linear(head_width, head_width),
            nn.SiLU(),
            nn.Linear(head_width, buckets),
        )

    def forward(self, x_ctx: Tensor, y_ctx: Tensor, mask: Tensor, x_query: Tensor) -> Tensor:
        """Bucket logits, shape ``(N, C, buckets)``, for queries ``(N, C)``."""
        _check_context(x_ctx, y_ctx, mask)
        checks.tensor("x_query", x_query, ndim=2, floating=True)
        checks.finite("x_query", x_query)
        if x_query.shape[0] != x_ctx.shape[0]:
            raise ValueError(f"x_query must have {x_ctx.shape[0]} rows, got {x_query.shape[0]}")
        N, C = x_query.shape
        n = x_ctx.shape[1]
        xq = x_query[:, :, None].expand(N, C, n)
        xc = x_ctx[:, None, :].expand(N, C, n)
        yc = y_ctx[:, None, :].expand(N, C, n)
        ymax = y_ctx.masked_fill(~mask, -1e9).max(-1).values  # (N,)
        d = xq - xc
        feats = [xq, xc, d, d.abs(), yc, yc - ymax[:, None, None]]
        h = self.pair(torch.stack(feats, -1))  # (N, C, n, W)
        m = mask[:, None, :, None]
        mean = (h * m).sum(2) / m.sum(2)
        mx = h.masked_fill(~m, -1e9).max(2).values
        n = mask.sum(-1, keepdim=True).to(x_query) / mask.shape[1]
        glob = torch.stack([x_query, ymax[:, None].expand(N, C), n.expand(N, C)], -1)
        return self.head(torch.cat([glob, mean, mx], -1))


def train_alpha_net(
    net: AlphaNet,
    borders: Tensor,
    x_ctx: Tensor,
    y_ctx: Tensor,
    mask: Tensor,
    x_query: Tensor,
    labels: Tensor,
    *,
    steps: int,
    batch: int,
    lr: float = 3e-3,
    generator: torch.Generator,
) -> list[float]:
    """Train ``net`` by the bar-distribution NLL of the labels (:prf:ref:`alpha-pfn-prop-nll`).

    Minibatches are ``batch`` datasets with all their ``C`` candidates; Adam with a cosine
    learning-rate decay. Returns the loss per step.
    """
    if not isinstance(net, nn.Module):
        raise ValueError(f"net must be a torch module, got {type(net).__name__}")
    _check_context(x_ctx, y_ctx, mask)
    checks.tensor("borders", borders, ndim=1, floating=True)
    checks.finite("borders", borders)
    if borders.numel() < 2 or not bool((torch.diff(borders) > 0).all()):
        raise ValueError("borders must be strictly increasing with at least two entries")
    checks.tensor("labels", labels, ndim=2, floating=True)
    checks.finite("labels", labels)
    checks.tensor("x_query", x_query, ndim=2, floating=True)
    checks.finite("x_query", x_query)
    checks.shape("x_query", x_query, labels.shape)
    if labels.shape[0] != x_ctx.shape[0]:
        raise ValueError(f"labels must have {x_ctx.shape[0]} rows, got {labels.shape[0]}")
    if bool((labels < borders[0]).any() | (labels > borders[-1]).any()):
        raise ValueError("labels must lie inside the borders")
    steps = checks.integer("steps", steps, low=1)
    batch = checks.integer("batch", batch, low=1, high=x_ctx.shape[0])
    lr = checks.real("lr", lr, low=0.0, strict=True)
    dt = next(net.parameters()).dtype
    cast = [t.to(dt) for t in (x_ctx, y_ctx, x_query, labels)]
    opt = torch.optim.Adam(net.parameters(), lr=lr)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, steps)
    b = borders.to(dt)
    losses = []
    for _ in range(steps):
        i = torch.randint(0, x_ctx.shape[0], (batch,), generator=generator)
        logits = net(cast[0][i], cast[1][i], mask[i], cast[2][i])
        loss = bar_nll(b, logits, cast[3][i])
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        losses.append(loss.item())
    return losses


# --------------------------------------------------------------------------- BO loop
def bo_loop(
    f: Tensor,
    grid: Tensor,
    acquisition: Callable[[Tensor, Tensor, Tensor], Tensor],
    *,
    n_init: int,
    n_iter: int,
    noise_sd: float,
    generator: torch.Generator,
) -> Tensor:
    """Batched Bayesian optimisation on a grid: one run per row of ``f`` ``(S, G)``.

    ``acquisition(x_ctx, y_ctx, mask)`` returns scores ``(S, G)``; the argmax is evaluated with
    noise and appended. Returns the simple regret ``f* − max_{queried} f`` after the initial
    design and after each iteration, shape ``(S, n_iter + 1)``.
    """
    checks.tensor("f", f, ndim=2, floating=True)
    checks.tensor("grid", grid, ndim=1, floating=True)
    checks.shape("f", f, (None, len(grid)))
    checks.finite("f", f)
    checks.finite("grid", grid)
    if not callable(acquisition):
        raise ValueError("acquisition must be callable")
    n_init = checks.integer("n_init", n_init, low=1, high=len(grid))
    n_iter = checks.integer("n_iter", n_iter, low=0)
    noise_sd = checks.real("noise_sd", noise_sd, low=0.0, strict=True)
    S, G = f.shape
    total = n_init + n_iter
    idx = torch.zeros(S, total, dtype=torch.long, device=f.device)
    idx[:, :n_init] = torch.rand(S, G, generator=generator).argsort(-1)[:, :n_init].to(f.device)
    eps = torch.randn(S, total, generator=generator, dtype=f.dtype).to(f.device)
    mask = torch.zeros(S, total, dtype=torch.bool, device=f.device)
    mask[:, :n_init] = True
    fstar = f.max(-1).values
    regret = [fstar - f.gather(1, idx[:, :n_init]).max(-1).values]
    for t in range(n_init, total):
        y = torch.where(mask, f.gather(1, idx) + noise_sd * eps, 0.0)
        scores = acquisition(grid[idx], y, mask)
        checks.shape("acquisition output", scores, (S, G))
        if bool(torch.isnan(scores).any()):
            raise ValueError("acquisition output must not contain NaN")
        idx[:, t] = scores.argmax(-1)
        mask[:, t] = True
        regret.append(fstar - f.gather(1, idx[:, : t + 1]).max(-1).values)
    return torch.stack(regret, 1)


# --------------------------------------------------------------------------- BoTorch bridge
def fixed_gp_model(x: Tensor, y: Tensor, lengthscale: float, variance: float, noise_sd: float):
    """A BoTorch ``SingleTaskGP`` with the toy prior's fixed hyper-parameters (zero mean, RBF).

    ``x`` and ``y`` are 1-D (one dataset); no fitting, no input or outcome transforms.
    """
    from botorch.models import SingleTaskGP
    from gpytorch.kernels import RBFKernel, ScaleKernel
    from gpytorch.likelihoods import GaussianLikelihood
    from gpytorch.means import ZeroMean

    checks.tensor("x", x, ndim=1, floating=True)
    checks.tensor("y", y, ndim=1, floating=True)
    checks.shape("y", y, (len(x),))
    checks.finite("x", x)
    checks.finite("y", y)
    lengthscale = checks.real("lengthscale", lengthscale, low=0.0, strict=True)
    variance = checks.real("variance", variance, low=0.0, strict=True)
    noise_sd = checks.real("noise_sd", noise_sd, low=0.0, strict=True)
    X, Y = x.to(torch.float64)[:, None], y.to(torch.float64)[:, None]
    lik = GaussianLikelihood().to(torch.float64)
    lik.noise = noise_sd**2
    kern = ScaleKernel(RBFKernel()).to(torch.float64)
    kern.base_kernel.lengthscale = lengthscale
    kern.outputscale = variance
    model = SingleTaskGP(
        X, Y, likelihood=lik, covar_module=kern, mean_module=ZeroMean(), outcome_transform=None
    )
    return model.eval()
