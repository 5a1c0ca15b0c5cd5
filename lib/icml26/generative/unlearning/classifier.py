"""The learned classifier of chapter 09 (t3-unlearning).

Logistic regression on Gaussian RBF features (:func:`rbf_features`, :func:`fit_logistic`,
:func:`predict_logistic`; batched Newton, scikit-learn's ``C`` convention), trained on samples
of the mixture (:func:`sample_mixture`).
"""

from __future__ import annotations

from collections.abc import Sequence

import torch

from icml26 import checks

__all__ = [
    "fit_logistic",
    "predict_logistic",
    "rbf_features",
    "sample_mixture",
]


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
