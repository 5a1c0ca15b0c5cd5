"""Chapter 19 (rector): within-region channel attention, block-sparse vs dense vs reference.

The channel level of a RECTOR-SA layer on a batch of 16 windows, T = 8 patches, head width 16:

- Cases 1-2: biosemi64 (R = 7 anatomical regions) and biosemi128 (R = 8 equal regions):
  ``icml26.neuro.attention.block_sparse_attention`` (regions gathered into a padded
  ``(T, R, n_max)`` tensor, only the blocks are scored) against the notebook's readable
  reference (a Python loop over patches and regions) and against dense
  ``scaled_dot_product_attention`` over all ``C·T`` tokens with the boolean block mask
  (PyTorch's masked attention: the same result, but every one of the ``(CT)²`` scores is
  computed and then discarded).
- Scaling: the block-sparse kernel for 32 to 512 channels in regions of 8.

Score entries per window: dense ``(CT)²`` against ``T Σ n_r²`` (64 channels: 262,144 against
6,112 for biosemi64's regions; 128 channels: 1,048,576 against 16,384).
"""

from __future__ import annotations

import numpy as np
import torch

from benchmarks.registry import register, register_scaling
from icml26.neuro import eeg
from icml26.pipeline.notebooks import notebook_functions

_reference = notebook_functions("19-rector", "blockwise_attention_reference")[
    "blockwise_attention_reference"
]
T, D, B = 8, 16, 16


def _case(regions: np.ndarray):
    C = len(regions)
    g = torch.Generator().manual_seed(C)
    q, k, v = (torch.randn(B, T, C, D, generator=g) for _ in range(3))
    mask = eeg.block_mask(regions, T)
    flat = [t.reshape(B, T * C, D) for t in (q, k, v)]
    return q, k, v, mask, flat


_names64, _pos64 = eeg.montage("biosemi64")
R64 = eeg.anatomical_regions(_names64, _pos64)
R128 = np.repeat(np.arange(8), 16)

for label, regions in [("biosemi64, 7 anatomical regions", R64), ("128 channels, 8 regions", R128)]:
    q, k, v, mask, flat = _case(regions)
    register(
        name=f"within-region attention, {label}, 16 windows × T = 8: block-sparse vs dense "
        "masked SDPA",
        kernel=lambda q=q, k=k, v=v, r=regions: eeg.block_sparse_attention(q, k, v, r),
        reference=lambda q=q, k=k, v=v, r=regions: [
            _reference(q[b], k[b], v[b], r) for b in range(B)
        ],
        library=lambda f=flat, m=mask: eeg.masked_attention(*f, m),
        library_name="torch scaled_dot_product_attention, dense with boolean mask",
    )


def _block_sparse_at(C: int):
    regions = np.repeat(np.arange(C // 8), 8)
    g = torch.Generator().manual_seed(C)
    q, k, v = (torch.randn(B, T, C, D, generator=g) for _ in range(3))
    return lambda: eeg.block_sparse_attention(q, k, v, regions)


register_scaling(
    "block-sparse within-region attention, regions of 8, 16 windows × T = 8",
    make=_block_sparse_at,
    sizes=(32, 64, 128, 256, 512),
    size_label="channels",
)
