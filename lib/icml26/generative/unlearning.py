"""Temper-then-tilt (T3) unlearning on exact densities (chapter 09, t3-unlearning).

The base model is the mixture ``p = (1 - γ) p_r + γ p_f`` of a retain distribution ``p_r`` and
a forget distribution ``p_f``; unlearning targets ``p_r``. Densities are tensors on a fixed
grid ``z`` (last axis), with any leading batch axes, so that whole (σ_f × T × classifier)
grids of configurations are computed in one vectorised pass. This module holds:

- :func:`grid`, :func:`trapezoid`, :func:`normal_pdf`, :func:`mixture_pdf` — exact densities
  and quadrature;
- :func:`bayes_posterior`, :func:`train_posterior`, :func:`prior_correct` — the retain-vs-forget
  posterior and the class-prior correction of :prf:ref:`t3-unlearning-prop-tilt`;
- :func:`shrink`, :func:`logit_shift` — the controlled classifier of
  :prf:ref:`t3-unlearning-lem-shrink` (probability-space floor) and the logit-space error that
  does *not* amplify;
- :func:`rbf_features`, :func:`fit_logistic`, :func:`predict_logistic`, :func:`sample_mixture`
  — the learned logistic-RBF classifier (batched Newton, scikit-learn's ``C`` convention);
- :func:`t3_density` — the T3 estimator ``p^{1/T} f̂ / Z`` of :eq:`t3-unlearning-eq-t3`;
- :func:`kl_divergence`, :func:`forget_error`, :func:`leaked_mass`, :func:`excess_loglik`,
  :func:`excess_logloss` — the chapter's metrics; :func:`error_grid` computes them for a whole
  grid of configurations; :func:`sample_density` draws from a grid density; :func:`loglog_slope`
  fits the amplification exponent of :prf:ref:`t3-unlearning-thm-amplify` and
  :prf:ref:`t3-unlearning-thm-temper`. :func:`leaked_mass` is the forget metric that does *not*
  see the amplification (the mass near the spike, not the density on it).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import torch

from icml26 import checks

__all__ = [
    "bayes_posterior",
    "error_grid",
    "excess_loglik",
    "excess_logloss",
    "fit_logistic",
    "forget_error",
    "grid",
    "kl_divergence",
    "leaked_mass",
    "logit_shift",
    "loglog_slope",
    "mixture_pdf",
    "normal_pdf",
    "predict_logistic",
    "prior_correct",
    "rbf_features",
    "sample_density",
    "sample_mixture",
    "shrink",
    "t3_density",
    "train_posterior",
    "trapezoid",
]

Number = float | torch.Tensor


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


def train_posterior(p_r: torch.Tensor, p_f: torch.Tensor, pi: float) -> torch.Tensor:
    """Bayes posterior P(retain | z) of a classifier trained with retain fraction ``pi``.

    ``c = π p_r / (π p_r + (1 − π) p_f)``; where both densities vanish, ``c = π``. With
    ``pi = 1 − γ`` this is the mixture posterior η of :prf:ref:`t3-unlearning-prop-tilt`; with
    ``pi = 0.5`` it is the balanced classifier that needs the prior correction
    (:func:`prior_correct`). ``p_r`` and ``p_f`` are on the same grid (last axis) and
    broadcast over their leading axes.
    """
    p_r = _density("p_r", p_r)
    p_f = _density("p_f", p_f)
    if p_r.shape[-1] != p_f.shape[-1]:
        raise ValueError(
            f"p_r and p_f must share the grid (last) axis, got {tuple(p_r.shape)} and "
            f"{tuple(p_f.shape)}"
        )
    pi = checks.real("pi", pi, low=0.0, high=1.0, strict=True)
    num = pi * p_r
    den = num + (1.0 - pi) * p_f
    return torch.where(den > 0, num / torch.where(den > 0, den, 1.0), torch.full_like(den, pi))


def bayes_posterior(p_r: torch.Tensor, p_f: torch.Tensor, gamma: float) -> torch.Tensor:
    """η = (1 − γ) p_r / p, the Bayes retain posterior of the mixture
    :eq:`t3-unlearning-eq-mixture` (chapter 09)."""
    gamma = checks.real("gamma", gamma, low=0.0, high=1.0, strict=True)
    return train_posterior(p_r, p_f, 1.0 - gamma)


def prior_correct(c: torch.Tensor, gamma: float, pi: float) -> torch.Tensor:
    """Turn a posterior trained with retain fraction ``pi`` into the mixture posterior η.

    Odds transform of :prf:ref:`t3-unlearning-prop-tilt`:
    ``η/(1−η) = [(1−γ)/γ]·[(1−π)/π]·c/(1−c)``, written so that c ∈ {0, 1} map to η ∈ {0, 1}.
    """
    c = _prob("c", c)
    gamma = checks.real("gamma", gamma, low=0.0, high=1.0, strict=True)
    pi = checks.real("pi", pi, low=0.0, high=1.0, strict=True)
    a = (1.0 - gamma) / pi
    b = gamma / (1.0 - pi)
    return a * c / (a * c + b * (1.0 - c))


def shrink(eta: torch.Tensor, kappa: Number) -> torch.Tensor:
    """Controlled classifier η̂ = (1 − κ) η + κ/2 of :prf:ref:`t3-unlearning-lem-shrink`.

    A probability-space error: it puts a floor κ/2 under η̂ on the forget spike. A tensor
    ``kappa`` of shape (C,) adds a leading axis: ``(C, *eta.shape)``.
    """
    eta = _prob("eta", eta)
    kappa = _scalar_or_tensor("kappa", kappa, low=0.0, high=1.0, strict=False)
    if isinstance(kappa, torch.Tensor):
        kappa = kappa.to(eta).reshape(kappa.shape + (1,) * eta.ndim)
    return (1.0 - kappa) * eta + 0.5 * kappa


def logit_shift(eta: torch.Tensor, shift: float) -> torch.Tensor:
    """η̂ = sigmoid(logit η + shift): a logit-space error (the negative control of 09.3)."""
    eta = _prob("eta", eta)
    shift = checks.real("shift", shift)
    e = eta.clamp(1e-300, 1.0)
    # sigmoid(logit e + s) = e·eˢ / (e·eˢ + 1 − e), exact also where e is tiny
    return e * math.exp(shift) / (e * math.exp(shift) + (1.0 - e))


def t3_density(z: torch.Tensor, p: torch.Tensor, f: torch.Tensor, T: Number) -> torch.Tensor:
    """The T3 estimate ``p^{1/T} f / ∫ p^{1/T} f`` of :eq:`t3-unlearning-eq-t3` (chapter 09).

    ``T = 1`` is classifier guidance.

    ``p`` and ``f`` broadcast against each other; a tensor ``T`` must broadcast against their
    batch shape (the grid axis is added here). Computed in log space, normalised numerically.
    """
    z = _grid_arg(z)
    p = _density("p", p, z)
    f = _density("f", f, z)
    T = _scalar_or_tensor("T", T, low=1.0, high=None, strict=False)
    if isinstance(T, torch.Tensor):
        T = T.to(p).unsqueeze(-1)
    logq = torch.log(p) / T + torch.log(f)
    logq = logq - logq.amax(-1, keepdim=True)
    q = torch.exp(logq)
    return q / torch.trapezoid(q, z, dim=-1).unsqueeze(-1)


def kl_divergence(z: torch.Tensor, p: torch.Tensor, q: torch.Tensor) -> torch.Tensor:
    """KL(p ‖ q) = ∫ p log(p / q) (retain error when p = p_r, q = the estimate).

    Returns ``inf`` when ``q`` vanishes where ``p`` does not.
    """
    z = _grid_arg(z)
    p = _density("p", p, z)
    q = _density("q", q, z)
    return torch.trapezoid(torch.special.xlogy(p, p) - torch.special.xlogy(p, q), z, dim=-1)


def forget_error(z: torch.Tensor, p_f: torch.Tensor, q: torch.Tensor, p_r: torch.Tensor):
    """Forget error ``∫ p_f |q − p_r|`` of :eq:`t3-unlearning-eq-forget`: the excess density the
    estimate ``q`` puts where the forget samples are."""
    z = _grid_arg(z)
    p_f = _density("p_f", p_f, z)
    q = _density("q", q, z)
    p_r = _density("p_r", p_r, z)
    return torch.trapezoid(p_f * (q - p_r).abs(), z, dim=-1)


def leaked_mass(z: torch.Tensor, q: torch.Tensor, centre: Number, halfwidth: Number):
    """Mass that ``q`` puts on the window ``|z − centre| < halfwidth`` (the forget region)."""
    z = _grid_arg(z)
    q = _density("q", q, z)
    halfwidth = _scalar_or_tensor("halfwidth", halfwidth, low=0.0, high=None, strict=True)
    centre = _scalar_or_tensor("centre", centre, low=-math.inf, high=None, strict=False)
    if isinstance(centre, torch.Tensor):
        centre = centre.to(z).unsqueeze(-1)
    if isinstance(halfwidth, torch.Tensor):
        halfwidth = halfwidth.to(z).unsqueeze(-1)
    inside = ((z - centre).abs() < halfwidth).to(q.dtype)
    return torch.trapezoid(q * inside, z, dim=-1)


def excess_loglik(z: torch.Tensor, p_f: torch.Tensor, q: torch.Tensor, p_r: torch.Tensor):
    """E_{z∼p_f}[log q(z) − log p_r(z)]: how much likelier forget samples are than under p_r.

    Returns ``+inf`` or ``-inf`` when ``p_r`` or ``q`` vanish where ``p_f`` does not.
    """
    z = _grid_arg(z)
    p_f = _density("p_f", p_f, z)
    q = _density("q", q, z)
    p_r = _density("p_r", p_r, z)
    diff = torch.log(q) - torch.log(p_r)
    integrand = torch.where(p_f > 0, p_f * diff, torch.zeros_like(diff))
    return torch.trapezoid(integrand, z, dim=-1)


def excess_logloss(z: torch.Tensor, p: torch.Tensor, eta: torch.Tensor, eta_hat: torch.Tensor):
    """δ = E_p[KL(Bern(η) ‖ Bern(η̂))], the excess logistic risk of η̂ over the Bayes η."""
    z = _grid_arg(z)
    p = _density("p", p, z)
    eta = _prob("eta", eta)
    eta_hat = _prob("eta_hat", eta_hat)
    for name, e in (("eta", eta), ("eta_hat", eta_hat)):
        if e.ndim < 1 or e.shape[-1] != z.shape[0]:
            raise ValueError(
                f"{name} must have {z.shape[0]} grid points (last axis), got {tuple(e.shape)}"
            )
    eta_hat = eta_hat.clamp(1e-300, 1.0 - 2.0**-53)  # no 0·log(0) blow-up
    kl = (
        torch.special.xlogy(eta, eta)
        - torch.special.xlogy(eta, eta_hat)
        + torch.special.xlogy(1 - eta, 1 - eta)
        - torch.special.xlogy(1 - eta, 1 - eta_hat)
    )
    return torch.trapezoid(p * kl, z, dim=-1)


def rbf_features(x: torch.Tensor, centres: torch.Tensor, width: float) -> torch.Tensor:
    """Gaussian RBF features ``exp(−(x − c)² / (2 width²))``, shape ``(*x.shape, len(centres))``."""
    x = checks.tensor("x", x, floating=True)
    centres = checks.tensor("centres", centres, ndim=1, floating=True)
    checks.finite("x", x)
    checks.finite("centres", centres)
    if centres.numel() == 0:
        raise ValueError("centres must hold at least one centre")
    width = checks.real("width", width, low=0.0, strict=True)
    d = (x.unsqueeze(-1) - centres.to(x)) / width
    return torch.exp(-0.5 * d * d)


def fit_logistic(
    X: torch.Tensor, y: torch.Tensor, C: float = 1.0, *, iters: int = 50, tol: float = 1e-10
) -> torch.Tensor:
    """L2-regularised logistic regression by Newton's method, batched over the first axis.

    Minimises ``Σ_i logloss_i + ‖w‖² / (2C)`` (scikit-learn's ``LogisticRegression(C=C)``
    convention; the intercept is not penalised). ``X`` is (B, n, d), ``y`` is (B, n) in {0, 1};
    returns (B, d + 1) coefficients, intercept last. Raises ``RuntimeError`` without convergence.
    """
    X = checks.tensor("X", X, ndim=3, floating=True)
    checks.finite("X", X)
    y = checks.tensor("y", y, ndim=2)
    if y.shape[-1] == 0:
        raise ValueError("y must hold at least one sample per batch")
    if y.shape != X.shape[:2]:
        raise ValueError(f"y must have shape {tuple(X.shape[:2])}, got {tuple(y.shape)}")
    if not bool(((y == 0) | (y == 1)).all()):
        raise ValueError("y must hold labels in {0, 1}")
    C = checks.real("C", C, low=0.0, strict=True)
    iters = checks.integer("iters", iters, low=1)
    tol = checks.real("tol", tol, low=0.0, strict=True)
    B, n, d = X.shape
    Xa = torch.cat([X, torch.ones(B, n, 1, dtype=X.dtype, device=X.device)], -1)
    yf = y.to(X.dtype)
    w = torch.zeros(B, d + 1, dtype=X.dtype, device=X.device)
    reg = torch.full((d + 1,), 1.0 / C, dtype=X.dtype, device=X.device)
    reg[-1] = 0.0
    eye = torch.eye(d + 1, dtype=X.dtype, device=X.device)
    for _ in range(iters):
        s = torch.sigmoid(torch.einsum("bnd,bd->bn", Xa, w))
        grad = torch.einsum("bnd,bn->bd", Xa, s - yf) + reg * w
        hess = torch.einsum("bnd,bn,bne->bde", Xa, s * (1 - s), Xa) + torch.diag(reg) + 1e-12 * eye
        step = torch.linalg.solve(hess, grad)
        w = w - step
        if float(step.abs().max()) < tol:
            return w
    raise RuntimeError(f"fit_logistic did not converge in {iters} Newton steps")


def predict_logistic(X: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    """P(y = 1 | x) for features ``X`` (..., d) and coefficients ``w`` (B, d + 1) → (B, ...)."""
    X = checks.tensor("X", X, floating=True)
    w = checks.tensor("w", w, ndim=2, floating=True)
    checks.finite("X", X)
    checks.finite("w", w)
    if X.shape[-1] + 1 != w.shape[-1]:
        raise ValueError(
            f"w must have X.shape[-1] + 1 = {X.shape[-1] + 1} columns, got {w.shape[-1]}"
        )
    logits = torch.einsum("...d,bd->b...", X, w[:, :-1]) + w[:, -1].reshape(
        (-1,) + (1,) * (X.ndim - 1)
    )
    return torch.sigmoid(logits)


def sample_mixture(
    n: int,
    gamma: float,
    retain: tuple[Sequence[float], Sequence[float], Sequence[float]],
    forget: tuple[float, float],
    *,
    batch: int = 1,
    generator: torch.Generator | None = None,
) -> tuple[torch.Tensor, torch.Tensor]:
    """``batch`` independent samples of size ``n`` from p with labels (1 = retain, 0 = forget).

    ``retain`` is ``(means, stds, weights)`` of the Gaussian-mixture p_r, ``forget`` is
    ``(μ_f, σ_f)``. Returns ``x`` and ``y`` of shape (batch, n), float64 / int64, on the CPU.
    """
    n = checks.integer("n", n, low=1)
    batch = checks.integer("batch", batch, low=1)
    gamma = checks.real("gamma", gamma, low=0.0, high=1.0, strict=True)
    means, stds, weights = (torch.as_tensor(list(v), dtype=torch.float64) for v in retain)
    checks.probability_vector("retain weights", weights)
    if not (means.shape == stds.shape == weights.shape) or bool((stds <= 0).any()):
        raise ValueError("retain must be (means, stds, weights) of equal length, stds > 0")
    mu_f = checks.real("forget mean", forget[0])
    sd_f = checks.real("forget std", forget[1], low=0.0, strict=True)
    y = (torch.rand(batch, n, generator=generator, dtype=torch.float64) >= gamma).long()
    comp = torch.multinomial(weights.expand(batch, -1), n, replacement=True, generator=generator)
    eps = torch.randn(batch, n, generator=generator, dtype=torch.float64)
    x_r = means[comp] + stds[comp] * eps
    x_f = mu_f + sd_f * eps
    return torch.where(y == 1, x_r, x_f), y


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
