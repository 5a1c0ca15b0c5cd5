"""The latent variant of chapter 10 (asir): an encoder and a decoder.

A PCA encoder and a small MLP decoder (:class:`LatentCodec`, :func:`fit_latent_codec`), the
analogue of a VAE.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch

from icml26 import checks
from icml26.generative.stego.kde import _float_matrix

__all__ = [
    "LatentCodec",
    "fit_latent_codec",
]


@dataclass(frozen=True)
class LatentCodec:
    """PCA encoder and MLP decoder of the latent toy (the analogue of a VAE)."""

    mean: torch.Tensor
    components: torch.Tensor
    scale: float
    weights: tuple[torch.Tensor, ...]

    def encode(self, x: torch.Tensor) -> torch.Tensor:
        """``E(x) = (x − μ) Vᵀ / s``: PCA coordinates divided by their global std ``s``."""
        xx = checks.tensor("x", x, floating=True)
        return (xx - self.mean) @ self.components.T / self.scale

    def decode(self, u: torch.Tensor) -> torch.Tensor:
        """``D(u) = tanh(W₂ tanh(W₁ u + b₁) + b₂)``: differentiable, mixes latent cells."""
        uu = checks.tensor("u", u, floating=True)
        w1, b1, w2, b2 = self.weights
        return torch.tanh(torch.tanh(uu @ w1 + b1) @ w2 + b2)


def fit_latent_codec(
    data: torch.Tensor,
    k: int = 16,
    *,
    hidden: int = 64,
    steps: int = 300,
    lr: float = 0.01,
    generator: torch.Generator | None = None,
) -> LatentCodec:
    """Fit the latent toy: PCA(``k``) scaled to unit global std, and a tanh MLP decoder
    trained with Adam for ``steps`` full-batch steps to reconstruct ``data`` from ``E(data)``."""
    d = _float_matrix("data", data)
    kk = checks.integer("k", k, low=1, high=min(d.shape))
    hh = checks.integer("hidden", hidden, low=1)
    n = checks.integer("steps", steps, low=1)
    rate = checks.real("lr", lr, low=0.0, strict=True)
    mean = d.mean(0)
    _, _, vt = torch.linalg.svd(d - mean, full_matrices=False)
    comps = vt[:kk]
    coords = (d - mean) @ comps.T
    sc = float(coords.std())
    u = coords / sc
    g = generator
    w1 = (torch.randn(kk, hh, generator=g, dtype=d.dtype) / math.sqrt(kk)).requires_grad_(True)
    b1 = torch.zeros(hh, dtype=d.dtype, requires_grad=True)
    w2 = (torch.randn(hh, d.shape[1], generator=g, dtype=d.dtype) / math.sqrt(hh)).requires_grad_(
        True
    )
    b2 = torch.zeros(d.shape[1], dtype=d.dtype, requires_grad=True)
    opt = torch.optim.Adam([w1, b1, w2, b2], lr=rate)
    target = d.clamp(-0.999, 0.999)
    for _ in range(n):
        opt.zero_grad()
        out = torch.tanh(torch.tanh(u @ w1 + b1) @ w2 + b2)
        loss = ((out - target) ** 2).mean()
        loss.backward()
        opt.step()
    weights = tuple(p.detach() for p in (w1, b1, w2, b2))
    return LatentCodec(mean, comps, sc, weights)
