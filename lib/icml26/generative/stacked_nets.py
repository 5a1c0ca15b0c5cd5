"""Stacked networks of chapter 11 (any2any): many small models trained side by side.

Per-modality autoencoders into one latent space, and the shared backbone conditioned on
``e(t) + e_src + e_tgt`` that predicts the clean target latent (anchored ``x₀`` regression,
:prf:ref:`any2any-def-anchored`) with target residual adapters
(:prf:ref:`any2any-def-adapter`). Each class holds ``members`` independent copies, so the
unified model, its ablations, the pairwise baseline and the oracles run in one batched call.
"""

from __future__ import annotations

import itertools
import math

import torch
from torch import nn

from icml26 import checks
from icml26.generative.sceneworld import MODALITIES, SHAPES

__all__ = ["FilmBackbone", "StackedAutoencoders", "StackedLinear"]


class StackedLinear(nn.Module):
    """``members`` independent linear maps applied side by side: ``(M, B, i) → (M, B, o)``.

    One ``baddbmm`` trains many small models in one batched loop. ``zero=True`` initialises
    the weights and bias at zero (the last layer of a residual adapter).
    """

    def __init__(self, members: int, d_in: int, d_out: int, *, zero: bool = False) -> None:
        super().__init__()
        m = checks.integer("members", members, low=1)
        i = checks.integer("d_in", d_in, low=1)
        o = checks.integer("d_out", d_out, low=1)
        bound = 0.0 if zero else 1.0 / math.sqrt(i)
        self.weight = nn.Parameter(torch.empty(m, i, o).uniform_(-bound, bound))
        self.bias = nn.Parameter(torch.zeros(m, 1, o))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """``x (M, B, i)`` → ``(M, B, o)``: one affine map per stacked model."""
        return torch.baddbmm(self.bias, x, self.weight)


def _mlp(members: int, sizes: list[int]) -> nn.ModuleList:
    return nn.ModuleList(StackedLinear(members, a, b) for a, b in itertools.pairwise(sizes))


def _run(layers: nn.Module, x: torch.Tensor) -> torch.Tensor:
    assert isinstance(layers, nn.ModuleList)
    for k, layer in enumerate(layers):
        x = layer(x)
        if k < len(layers) - 1:
            x = torch.nn.functional.silu(x)
    return x


class StackedAutoencoders(nn.Module):
    """One autoencoder per modality into a ``latent``-dimensional space, ``members`` copies.

    ``encode(x, m)`` / ``decode(z, m)`` take flattened images ``(M, B, d_m)`` of modality ``m``.
    Each encoder is a linear map of the centred image plus a one-hidden-layer MLP correction,
    ``E_m(x) = L_m (x − μ_m) + MLP_m(x − μ_m)``, and each decoder likewise,
    ``D_m(z) = μ_m + L'_m z + MLP'_m(z)``: the linear paths learn the principal subspace fast,
    the MLPs the nonlinear rest (SAR's logarithm, the clipping). ``μ_m`` is the modality's mean
    image (set by :func:`~icml26.generative.stacked_training.train_autoencoders`). All encoders
    map into the same latent space; whether the latent conventions of different modalities
    agree depends on training (an alignment term, or none as in the paper's Stage I).
    """

    def __init__(
        self,
        members: int,
        latent: int,
        hidden: int = 128,
        *,
        shapes: dict[str, tuple[int, int, int]] | None = None,
    ) -> None:
        super().__init__()
        m = checks.integer("members", members, low=1)
        self.latent = checks.integer("latent", latent, low=1)
        h = checks.integer("hidden", hidden, low=1)
        shapes = SHAPES if shapes is None else shapes
        if set(shapes) != set(MODALITIES):
            raise ValueError(f"shapes must give a shape for each of {MODALITIES}")
        self.shapes = dict(shapes)
        dims = {k: math.prod(v) for k, v in self.shapes.items()}
        self.enc = nn.ModuleDict({k: _mlp(m, [d, h, self.latent]) for k, d in dims.items()})
        self.dec = nn.ModuleDict({k: _mlp(m, [self.latent, h, d]) for k, d in dims.items()})
        self.enc_lin = nn.ModuleDict({k: StackedLinear(m, d, self.latent) for k, d in dims.items()})
        self.dec_lin = nn.ModuleDict({k: StackedLinear(m, self.latent, d) for k, d in dims.items()})
        for k, d in dims.items():
            self.register_buffer(f"mean_{k}", torch.zeros(d))

    def centre(self, modality: str) -> torch.Tensor:
        """The mean image ``μ_m`` of ``modality`` (flattened)."""
        return getattr(self, f"mean_{modality}")

    def encode(self, x: torch.Tensor, modality: str) -> torch.Tensor:
        x = x - self.centre(modality)
        return self.enc_lin[modality](x) + _run(self.enc[modality], x)

    def decode(self, z: torch.Tensor, modality: str, *, clip: bool = True) -> torch.Tensor:
        """The image of latent ``z``; ``clip`` clamps it to ``[0, 1]`` (off in training)."""
        x = self.centre(modality) + self.dec_lin[modality](z) + _run(self.dec[modality], z)
        return x.clamp(0.0, 1.0) if clip else x


class FilmBackbone(nn.Module):
    """The shared ``x₀``-predicting backbone, ``members`` independent copies side by side.

    Input ``[z_t, z_i]`` (noisy target latent and source latent); conditioning
    ``c = e_time(t) + e_src(i) + e_tgt(j)`` modulates each hidden layer (FiLM, the flattened
    counterpart of the paper's AdaLN). Output: the clean target latent ``ẑ_j``
    (:prf:ref:`any2any-def-anchored`). With ``adapters``, each member also holds one zero-
    initialised residual adapter per target, ``A_j(z) = W₂ SiLU(W₁ z)``
    (:prf:ref:`any2any-def-adapter`).
    """

    def __init__(
        self,
        members: int,
        latent: int,
        hidden: int,
        timesteps: int,
        *,
        adapter_hidden: int = 32,
        modalities: int = len(MODALITIES),
    ) -> None:
        super().__init__()
        m = checks.integer("members", members, low=1)
        d = checks.integer("latent", latent, low=1)
        h = checks.integer("hidden", hidden, low=1)
        t = checks.integer("timesteps", timesteps, low=1)
        ha = checks.integer("adapter_hidden", adapter_hidden, low=1)
        k = checks.integer("modalities", modalities, low=2)
        self.members, self.latent, self.hidden, self.k = m, d, h, k
        self.inp = StackedLinear(m, 2 * d, h)
        self.mid = StackedLinear(m, h, h)
        self.out = StackedLinear(m, h, d)
        self.e_time = nn.Parameter(0.1 * torch.randn(m, t, 4 * h))
        self.e_src = nn.Parameter(0.1 * torch.randn(m, k, 4 * h))
        self.e_tgt = nn.Parameter(0.1 * torch.randn(m, k, 4 * h))
        self.a_in = nn.Parameter(
            torch.empty(m, k, d, ha).uniform_(-1 / math.sqrt(d), 1 / math.sqrt(d))
        )
        self.a_out = nn.Parameter(torch.zeros(m, k, ha, d))  # zero-init: A_j ≡ 0 at the start

    def _check(self, z_t, z_src, t, src, tgt) -> None:
        m, d = self.members, self.latent
        for name, z in (("z_t", z_t), ("z_src", z_src)):
            checks.tensor(name, z, ndim=3, floating=True)
            if z.shape[0] != m or z.shape[2] != d:
                raise ValueError(f"{name} must have shape ({m}, B, {d}), got {tuple(z.shape)}")
        if z_src.shape != z_t.shape:
            raise ValueError("z_src must have the shape of z_t")
        for name, v, hi in (
            ("t", t, self.e_time.shape[1]),
            ("src", src, self.k),
            ("tgt", tgt, self.k),
        ):
            checks.tensor(name, v, ndim=2)
            if tuple(v.shape) != tuple(z_t.shape[:2]) or v.is_floating_point():
                raise ValueError(
                    f"{name} must be an integer tensor of shape {tuple(z_t.shape[:2])}"
                )
            if bool(((v < 0) | (v >= hi)).any()):
                raise ValueError(f"{name} must lie in [0, {hi})")

    def _gather(self, table: torch.Tensor, idx: torch.Tensor) -> torch.Tensor:
        return torch.gather(table, 1, idx[..., None].expand(-1, -1, table.shape[-1]))

    def forward(
        self,
        z_t: torch.Tensor,
        z_src: torch.Tensor,
        t: torch.Tensor,
        src: torch.Tensor,
        tgt: torch.Tensor,
    ) -> torch.Tensor:
        """``ẑ_j`` for every member and sample: shapes ``(M, B, d)``, ``(M, B)`` for the ids."""
        self._check(z_t, z_src, t, src, tgt)
        c = (
            self._gather(self.e_time, t)
            + self._gather(self.e_src, src)
            + self._gather(self.e_tgt, tgt)
        )
        g1, b1, g2, b2 = c.chunk(4, dim=-1)
        h = self.inp(torch.cat([z_t, z_src], dim=-1))
        h = torch.nn.functional.silu(_norm(h) * (1 + g1) + b1)
        h = h + torch.nn.functional.silu(_norm(self.mid(h)) * (1 + g2) + b2)
        return self.out(h)

    def adapt(self, z: torch.Tensor, tgt: torch.Tensor) -> torch.Tensor:
        """The adapter's correction ``A_j(z)`` of each sample's target ``j`` (add it to ``z``)."""
        checks.tensor("z", z, ndim=3, floating=True)
        checks.tensor("tgt", tgt, ndim=2)
        if tuple(tgt.shape) != tuple(z.shape[:2]):
            raise ValueError(f"tgt must have shape {tuple(z.shape[:2])}")
        hid = torch.nn.functional.silu(torch.einsum("mbd,mkdh->mbkh", z, self.a_in))
        out = torch.einsum("mbkh,mkhd->mbkd", hid, self.a_out)
        return torch.gather(out, 2, tgt[..., None, None].expand(-1, -1, 1, z.shape[-1]))[:, :, 0]

    def backbone_parameters(self) -> list[nn.Parameter]:
        """Every parameter except the adapters' (the ``θ`` that the calibration must not move)."""
        return [p for n, p in self.named_parameters() if not n.startswith("a_")]


def _norm(h: torch.Tensor) -> torch.Tensor:
    return torch.nn.functional.layer_norm(h, h.shape[-1:])
