"""Chapter 14 (polia): batched intrinsic advantages and IoU vs the notebook's loops.

- Case 1: intrinsic advantages (:prf:ref:`polia-def-intrinsic`) of 512 prompts × 16 candidates
  × 6 objects. Kernel: ``polia.intrinsic_advantages`` (group membership as an equality matrix).
  Reference: the notebook's ``intrinsic_reference`` (loops over prompts, groups, objects).
- Case 2: pairwise IoU of 256 × 7 predicted boxes against 6 objects each. Kernel:
  ``polia.box_iou``; reference: the notebook's plain-Python ``iou_reference`` per pair.
  torchvision's ``box_iou`` is not available beside this book's torch build.
"""

from __future__ import annotations

import torch

from benchmarks.registry import register, register_scaling
from icml26.agents import polia
from icml26.pipeline.notebooks import notebook_functions

_fns = notebook_functions("14-polia", "iou_reference", "intrinsic_reference")
_iou_ref, _int_ref = _fns["iou_reference"], _fns["intrinsic_reference"]

_gen = torch.Generator().manual_seed(14)
P, N, M = 512, 16, 6
R = torch.rand(P, N, generator=_gen, dtype=torch.float64).round(decimals=1)
_base = torch.rand(P, 3, M, generator=_gen) < 0.5
CITED = torch.gather(
    _base, 1, torch.randint(0, 3, (P, N), generator=_gen)[..., None].expand(P, N, M)
)
KEYS = (CITED.long() * 2 ** torch.arange(M)).sum(-1)
CONF = torch.rand(P, N, M, generator=_gen, dtype=torch.float64) * CITED
_lists = (R.tolist(), KEYS.tolist(), CONF.tolist(), CITED.tolist())

_x = torch.rand(256, 13, 4, generator=_gen, dtype=torch.float64)
_x = torch.cat([_x[..., :2].minimum(_x[..., 2:]), _x[..., :2].maximum(_x[..., 2:])], -1)
PRED, GT = _x[:, :7], _x[:, 7:]
_pl, _gl = PRED.tolist(), GT.tolist()

register(
    name="intrinsic advantages, 512 prompts × 16 candidates × 6 objects",
    kernel=lambda: polia.intrinsic_advantages(R, KEYS, CONF, CITED),
    reference=lambda: _int_ref(*_lists),
)

register(
    name="pairwise IoU, 256 scenes × 7 boxes × 6 objects",
    kernel=lambda: polia.box_iou(PRED, GT),
    reference=lambda: [
        [[_iou_ref(a, b) for b in g] for a in p] for p, g in zip(_pl, _gl, strict=True)
    ],
)


def _intrinsic_at(n: int):
    r, k, c, m = R[:n], KEYS[:n], CONF[:n], CITED[:n]
    return lambda: polia.intrinsic_advantages(r, k, c, m)


register_scaling(
    "batched intrinsic advantages, 16 candidates × 6 objects",
    make=_intrinsic_at,
    sizes=(32, 128, 512),
    size_label="prompts",
)
