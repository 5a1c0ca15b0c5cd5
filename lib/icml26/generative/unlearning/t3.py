"""Temper-then-tilt (chapter 09, t3-unlearning): the posterior, its errors, the T3 density.

The retain-vs-forget posterior and the class-prior correction of
:prf:ref:`t3-unlearning-prop-tilt` (:func:`bayes_posterior`, :func:`train_posterior`,
:func:`prior_correct`), the controlled classifier of :prf:ref:`t3-unlearning-lem-shrink`
(:func:`shrink`, a probability-space floor) and the logit-space error that does *not* amplify
(:func:`logit_shift`), and the T3 estimator ``p^{1/T} f̂ / Z`` of :eq:`t3-unlearning-eq-t3`
(:func:`t3_density`). Densities are tensors on a fixed grid ``z`` (last axis), with any leading
batch axes.
"""

from __future__ import annotations

import math

import torch

from icml26 import checks
from icml26.generative.unlearning.densities import (
    Number,
    _density,
    _grid_arg,
    _prob,
    _scalar_or_tensor,
)

__all__ = [
    "bayes_posterior",
    "logit_shift",
    "prior_correct",
    "shrink",
    "t3_density",
    "train_posterior",
]


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
