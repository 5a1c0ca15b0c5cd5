"""Whole grids of configurations for chapter 09 (t3-unlearning).

:func:`error_grid` computes the chapter's metrics for a (σ_f × T × classifier) grid in one
vectorised pass, :func:`sample_density` draws from a grid density, and :func:`loglog_slope` fits
the amplification exponent of :prf:ref:`t3-unlearning-thm-amplify` and
:prf:ref:`t3-unlearning-thm-temper`.
"""

from __future__ import annotations

import torch

from icml26 import checks
from icml26.generative.unlearning.densities import (
    _density,
    _grid_arg,
    _prob,
    _scalar_or_tensor,
)

__all__ = [
    "error_grid",
    "loglog_slope",
    "sample_density",
]


def sample_density(
    z: torch.Tensor, q: torch.Tensor, n: int, *, generator: torch.Generator | None = None
) -> torch.Tensor:
    """``n`` draws from the grid density ``q`` by inverting its trapezoid CDF (linear interp.)."""
    z = _grid_arg(z)
    q = _density("q", q, z)
    if q.ndim != 1:
        raise ValueError(f"q must be one density on the grid (1-D), got shape {tuple(q.shape)}")
    n = checks.integer("n", n, low=1)
    seg = 0.5 * (q[1:] + q[:-1]) * (z[1:] - z[:-1])
    cdf = torch.cat([torch.zeros(1, dtype=q.dtype, device=q.device), seg.cumsum(0)])
    if float(cdf[-1]) <= 0:
        raise ValueError("q must have positive mass")
    cdf = cdf / cdf[-1]
    u = torch.rand(n, generator=generator, dtype=q.dtype).to(q.device)
    i = torch.searchsorted(cdf, u).clamp(1, z.numel() - 1)
    c0, c1 = cdf[i - 1], cdf[i]
    frac = (u - c0) / torch.where(c1 > c0, c1 - c0, torch.ones_like(c1))
    return z[i - 1] + frac * (z[i] - z[i - 1])


def _trapezoid_weights(z: torch.Tensor) -> torch.Tensor:
    dz = z[1:] - z[:-1]
    w = torch.zeros_like(z)
    w[:-1] += 0.5 * dz
    w[1:] += 0.5 * dz
    return w


def error_grid(
    z: torch.Tensor,
    p_r: torch.Tensor,
    p_f: torch.Tensor,
    gamma: float,
    T: torch.Tensor,
    eta_hat: torch.Tensor,
) -> dict[str, torch.Tensor]:
    """Retain KL, forget error and excess log-likelihood for a whole grid of configurations.

    ``p_r`` is (G,); ``p_f`` is (S, G) (one forget density per spike width σ_f); ``eta_hat`` is
    (C, S, G) (C classifiers for each spike); ``T`` is (K,). Every metric is returned with shape
    (S, C, K). The retain KL and the log-likelihood are separable in log space,

        KL(p_r ‖ p̂⁽ᵀ⁾) = ∫ p_r ln p_r − (1/T) ∫ p_r ln p − ∫ p_r ln η̂ + ln Z_T,

    (the last term weighted by ∫ p_r on the grid), so only the normalisers
    ``Z_T = ∫ p^{1/T} η̂`` (one power of p per spike and T, shared by all classifiers) and the
    forget error (on the support of ``p_f`` only) need per-configuration work on the grid.
    """
    z = _grid_arg(z)
    p_r = _density("p_r", p_r, z)
    p_f = _density("p_f", p_f, z)
    eta_hat = _prob("eta_hat", eta_hat)
    T = checks.tensor("T", T, ndim=1, floating=True)
    _scalar_or_tensor("T", T, low=1.0, high=None, strict=False)
    gamma = checks.real("gamma", gamma, low=0.0, high=1.0, strict=True)
    if p_r.ndim != 1 or p_f.ndim != 2 or eta_hat.ndim != 3:
        raise ValueError("p_r must be (G,), p_f (S, G) and eta_hat (C, S, G)")
    if eta_hat.shape[1:] != p_f.shape:
        raise ValueError(f"eta_hat must have shape (C, {p_f.shape[0]}, {p_f.shape[1]})")
    w = _trapezoid_weights(z)
    inv_t = 1.0 / T.to(z)  # (K,)
    p = (1.0 - gamma) * p_r + gamma * p_f  # (S, G)
    log_p = torch.log(p)
    xlogy = torch.special.xlogy
    # separable integrals: (S,), (C, S), scalars
    r_logp = xlogy(p_r, p) @ w
    r_logeta = xlogy(p_r, eta_hat) @ w
    r_logr = xlogy(p_r, p_r) @ w
    f_logp = xlogy(p_f, p) @ w
    f_logeta = xlogy(p_f, eta_hat) @ w
    f_logr = xlogy(p_f, p_r) @ w
    f_mass = p_f @ w
    r_mass = p_r @ w
    S, C, K = p_f.shape[0], eta_hat.shape[0], T.shape[0]
    Z = torch.empty(C, S, K, dtype=z.dtype, device=z.device)
    fe = torch.empty(C, S, K, dtype=z.dtype, device=z.device)
    for s in range(S):  # per spike and temperature: (C, G)-sized work that stays in cache
        on = torch.nonzero(p_f[s] > 0).flatten()
        lo, hi = (int(on[0]), int(on[-1]) + 1) if on.numel() else (0, 0)
        e_w = eta_hat[:, s, :] * w  # (C, G)
        e_on = eta_hat[:, s, lo:hi]
        pr_on, fw_on = p_r[lo:hi], p_f[s, lo:hi] * w[lo:hi]
        for k in range(K):
            pw = torch.exp(log_p[s] * inv_t[k])  # p^{1/T}, (G,)
            zk = e_w @ pw  # (C,)
            Z[:, s, k] = zk
            q = e_on * (pw[lo:hi] / zk[:, None])  # (C, G_s)
            fe[:, s, k] = (q.sub_(pr_on)).abs_() @ fw_on
    log_z = torch.log(Z)
    kl = r_logr - inv_t * r_logp[None, :, None] - r_logeta[:, :, None] + r_mass * log_z
    ell = (
        inv_t * f_logp[None, :, None]
        + f_logeta[:, :, None]
        - f_mass[None, :, None] * log_z
        - f_logr[None, :, None]
    )
    return {
        "retain_kl": kl.permute(1, 0, 2),
        "forget_error": fe.permute(1, 0, 2),
        "excess_loglik": ell.permute(1, 0, 2),
    }


def loglog_slope(x: object, y: object) -> float:
    """Least-squares slope of log y against log x (the amplification exponent).

    ``x`` and ``y`` are flattened: any shapes with the same number of entries.
    """
    x = torch.as_tensor(checks.as_float64("x", x)).flatten()
    y = torch.as_tensor(checks.as_float64("y", y)).flatten()
    if x.numel() != y.numel() or x.numel() < 2:
        raise ValueError("x and y must have the same length, at least 2")
    checks.finite("x", x)
    checks.finite("y", y)
    if float(x.max() - x.min()) == 0.0:
        raise ValueError("x must not be constant (the slope is undefined)")
    if bool((x <= 0).any()) or bool((y <= 0).any()):
        raise ValueError("x and y must be positive")
    lx, ly = torch.log(x), torch.log(y)
    lx = lx - lx.mean()
    return float((lx * (ly - ly.mean())).sum() / (lx * lx).sum())
