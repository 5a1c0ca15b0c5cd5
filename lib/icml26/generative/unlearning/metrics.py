"""The metrics of chapter 09 (t3-unlearning).

Retain KL (:func:`kl_divergence`), forget error (:func:`forget_error`), excess log-likelihood
(:func:`excess_loglik`) and the classifier's excess log-loss (:func:`excess_logloss`);
:func:`leaked_mass` is the forget metric that does *not* see the amplification (the mass near
the spike, not the density on it). Densities are tensors on a fixed grid ``z`` (last axis), with
any leading batch axes.
"""

from __future__ import annotations

import math

import torch

from icml26.generative.unlearning.densities import (
    Number,
    _density,
    _grid_arg,
    _prob,
    _scalar_or_tensor,
)

__all__ = [
    "excess_loglik",
    "excess_logloss",
    "forget_error",
    "kl_divergence",
    "leaked_mass",
]


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
