"""Chapter 11 (any2any): one shared backbone serving all 20 directions vs per-direction calls.

- Case 1: 20 directions × 16 samples through the stacked FiLM backbone in one batched call
  (the unified model serving every direction at once) against the notebook's readable
  one-sample reference, called once per sample.
- Case 2: the same 320 predictions from 20 separate single-direction backbones (the pairwise
  design: one model, one call per direction) against the unified model's single call; the
  pairwise models hold 20 times the parameters.
- Scaling: the batched call over a decade of samples per direction.
"""

from __future__ import annotations

import torch

from benchmarks.registry import register, register_scaling
from icml26.generative import sceneworld, stacked_nets
from icml26.pipeline.notebooks import notebook_functions

LATENT, HIDDEN, T = 16, 64, 20
PER_DIRECTION = 16
_ref = notebook_functions("11-any2any", "backbone_reference", "member_parameters")
_backbone_reference, _member_parameters = _ref["backbone_reference"], _ref["member_parameters"]

torch.manual_seed(0)
_seen, _unseen = sceneworld.directions()
_idx = {m: i for i, m in enumerate(sceneworld.MODALITIES)}
_dirs = _seen + _unseen


def _inputs(per_direction: int, members: int = 1):
    g = torch.Generator().manual_seed(per_direction)
    n = per_direction * len(_dirs)
    z_t = torch.randn(members, n, LATENT, generator=g)
    z_src = torch.randn(members, n, LATENT, generator=g)
    t = torch.randint(0, T, (members, n), generator=g)
    src = (
        torch.tensor([_idx[s] for s, _ in _dirs])
        .repeat_interleave(per_direction)
        .expand(members, -1)
    )
    tgt = (
        torch.tensor([_idx[d] for _, d in _dirs])
        .repeat_interleave(per_direction)
        .expand(members, -1)
    )
    return z_t, z_src, t, src.contiguous(), tgt.contiguous()


UNIFIED = stacked_nets.FilmBackbone(1, LATENT, HIDDEN, T).requires_grad_(False)
PAIRWISE = [stacked_nets.FilmBackbone(1, LATENT, HIDDEN, T).requires_grad_(False) for _ in _dirs]
Z_T, Z_SRC, TT, SRC, TGT = _inputs(PER_DIRECTION)
PARAMS = _member_parameters(UNIFIED, 0)
ROWS = list(zip(Z_T[0], Z_SRC[0], TT[0], SRC[0], TGT[0], strict=True))
SLICES = [slice(k * PER_DIRECTION, (k + 1) * PER_DIRECTION) for k in range(len(_dirs))]


def _pairwise_calls():
    return [
        m(Z_T[:, s], Z_SRC[:, s], TT[:, s], SRC[:, s], TGT[:, s])
        for m, s in zip(PAIRWISE, SLICES, strict=True)
    ]


register(
    name=f"20 directions × {PER_DIRECTION} samples: one batched backbone call vs the readable "
    "one-sample reference",
    kernel=lambda: UNIFIED(Z_T, Z_SRC, TT, SRC, TGT),
    reference=lambda: [_backbone_reference(PARAMS, *row) for row in ROWS],
)

register(
    name=f"20 directions × {PER_DIRECTION} samples: unified backbone (one call) vs 20 pairwise "
    "backbones (one call each, 20× the parameters)",
    kernel=lambda: UNIFIED(Z_T, Z_SRC, TT, SRC, TGT),
    reference=_pairwise_calls,
)


def _unified_at(per_direction: int):
    z_t, z_src, t, src, tgt = _inputs(per_direction)
    return lambda: UNIFIED(z_t, z_src, t, src, tgt)


register_scaling(
    "shared backbone, all 20 directions in one call",
    make=_unified_at,
    sizes=(4, 16, 64, 256),
    size_label="samples per direction",
)
