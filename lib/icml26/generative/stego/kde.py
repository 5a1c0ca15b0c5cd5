"""The data and the model of chapter 10 (asir): digits and a denoiser that needs no training.

Scikit-learn's bundled digits and the exact posterior-mean denoiser of a Gaussian kernel density
on them (:func:`kde_posterior_mean`, :func:`kde_eps_model`, :prf:ref:`asir-def-kde`): a
nonlinear diffusion model that needs no training.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import torch

from icml26 import checks

__all__ = [
    "digits_pm1",
    "kde_eps_model",
    "kde_posterior_mean",
]


def digits_pm1(*, dtype: torch.dtype = torch.float64) -> torch.Tensor:
    """scikit-learn's bundled 8×8 digits (1,797 images, no download) as rows in ``[-1, 1]``."""
    from sklearn.datasets import load_digits

    x = load_digits().data / 8.0 - 1.0
    return torch.as_tensor(x, dtype=dtype)


def _float_matrix(name: str, x: object, *, finite: bool = True) -> torch.Tensor:
    t = checks.tensor(name, x, ndim=2, floating=True)
    if t.shape[0] == 0 or t.shape[1] == 0:
        raise ValueError(f"{name} must be a non-empty matrix, got shape {tuple(t.shape)}")
    if finite:
        checks.finite(name, t)
    return t


def _finite_tensor(name: str, x: object) -> torch.Tensor:
    t = checks.tensor(name, x, floating=True)
    checks.finite(name, t)
    return t


def _abar(abar: object) -> torch.Tensor:
    a = checks.tensor("abar", abar, ndim=1, floating=True)
    checks.finite("abar", a)
    return a


def kde_posterior_mean(
    x: torch.Tensor, data: torch.Tensor, abar_t: float | torch.Tensor, h: float
) -> torch.Tensor:
    """``E[x₀ | x_t = x]`` for ``p₀ = (1/N) Σ_i N(x_i, h² I)`` and ``x_t = √ᾱ x₀ + √(1 − ᾱ) ε``.

    With ``v = ᾱ h² + 1 − ᾱ`` and softmax weights ``w_i ∝ exp(−‖x − √ᾱ x_i‖² / 2v)``:
    ``E[x₀ | x] = (1 − h² ᾱ / v) Σ_i w_i x_i + (h² √ᾱ / v) x`` (:prf:ref:`asir-def-kde`).
    The distances are one matrix product (the term ``‖x‖²`` cancels in the softmax), so a batch
    of ``B`` images costs ``O(B N d)``.
    """
    xx = _float_matrix("x", x)
    d = _float_matrix("data", data)
    return _posterior_mean(xx, d, abar_t, h)


def _posterior_mean(
    xx: torch.Tensor, d: torch.Tensor, abar_t: float | torch.Tensor, h: float
) -> torch.Tensor:
    """:func:`kde_posterior_mean` after the finiteness checks (the sampler's per-step kernel)."""
    if d.shape[1] != xx.shape[1]:
        raise ValueError(f"data must have {xx.shape[1]} columns like x, got {d.shape[1]}")
    if isinstance(abar_t, torch.Tensor) and abar_t.numel() != 1:
        raise ValueError(f"abar_t must be a number, got shape {tuple(abar_t.shape)}")
    a = float(checks.real("abar_t", float(abar_t), low=0.0, high=1.0))
    hh = checks.real("h", h, low=0.0, strict=True)
    d = d.to(xx.dtype)
    v = a * hh**2 + 1.0 - a
    # −‖x − √ᾱ x_i‖²/2v up to the row constant −‖x‖²/2v, which the softmax ignores: one addmm
    bias = (-a / (2 * v)) * (d * d).sum(1)
    w = torch.softmax(torch.addmm(bias, xx, d.T, alpha=math.sqrt(a) / v), dim=1)
    return (1 - hh**2 * a / v) * (w @ d) + (hh**2 * math.sqrt(a) / v) * xx


def kde_eps_model(
    data: torch.Tensor, abar: torch.Tensor, h: float
) -> Callable[[torch.Tensor, int], torch.Tensor]:
    """The noise predictor ``ε̂(x, t) = (x − √ᾱ_t x̂₀) / √(1 − ᾱ_t)`` of the KDE denoiser.

    The returned ``model(x, t)`` (``t`` a training time index) plugs into
    :func:`icml26.generative.diffusion.ddim_step` and ``ddim_sample``. It is called at every
    step of a sampler: it checks the shape of ``x`` but not its finiteness (NaN propagates).
    """
    d = _float_matrix("data", data)
    a = _abar(abar)
    checks.real("h", h, low=0.0, strict=True)

    def model(x: torch.Tensor, t: int) -> torch.Tensor:
        at = float(a[checks.integer("t", t, low=0, high=a.numel() - 1)])
        x0 = _posterior_mean(_float_matrix("x", x, finite=False), d, at, h)
        return (x - math.sqrt(at) * x0) / math.sqrt(1 - at)

    return model
