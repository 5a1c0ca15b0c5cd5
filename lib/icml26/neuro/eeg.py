"""Masked region-channel-temporal modelling of EEG (chapter 19, rector): the chapter's API.

One import for the whole chapter; each name lives in the module of its concern:

- :mod:`icml26.neuro.montage` — montages, anatomical and functional partitions;
- :mod:`icml26.neuro.simulate` — the simulated EEG and its patches;
- :mod:`icml26.neuro.connectivity` — phase-locking value, coherence, correlation;
- :mod:`icml26.neuro.attention` — the block masks, their cost, two attention kernels;
- :mod:`icml26.neuro.encoder` — the hierarchical RECTOR encoder;
- :mod:`icml26.neuro.partition` — spectral clustering and the adaptive partition;
- :mod:`icml26.neuro.pretrain` — structured masking, the three objectives, pre-training;
- :mod:`icml26.neuro.probe` — frozen embeddings, probes, channel removal.
"""

from __future__ import annotations

from icml26.neuro.attention import (
    attention_cost,
    block_mask,
    block_sparse_attention,
    level_masks,
    masked_attention,
    region_ids,
)
from icml26.neuro.connectivity import coherence, mean_abs_correlation, phase_sum, plv
from icml26.neuro.encoder import RectorEncoder, channel_graph
from icml26.neuro.montage import (
    HEAD_RADIUS,
    REGION_NAMES,
    anatomical_regions,
    assign_by_nearest,
    functional_regions,
    montage,
    separated_centres,
)
from icml26.neuro.partition import (
    adaptive_partition,
    align_labels,
    learned_affinity,
    spectral_partition,
)
from icml26.neuro.pretrain import (
    MASK_KINDS,
    PretrainResult,
    masked_prediction_error,
    pretrain,
    rector_losses,
    structured_mask,
)
from icml26.neuro.probe import (
    BANDS_HZ,
    band_power_features,
    embed,
    encode,
    graph_features,
    graph_upper,
    pooled,
    probe_f1,
    removal_f1,
)
from icml26.neuro.simulate import PEAKS_HZ, EEGData, patchify, simulate_eeg

__all__ = [
    "BANDS_HZ",
    "HEAD_RADIUS",
    "MASK_KINDS",
    "PEAKS_HZ",
    "REGION_NAMES",
    "EEGData",
    "PretrainResult",
    "RectorEncoder",
    "adaptive_partition",
    "align_labels",
    "anatomical_regions",
    "assign_by_nearest",
    "attention_cost",
    "band_power_features",
    "block_mask",
    "block_sparse_attention",
    "channel_graph",
    "coherence",
    "embed",
    "encode",
    "functional_regions",
    "graph_features",
    "graph_upper",
    "learned_affinity",
    "level_masks",
    "masked_attention",
    "masked_prediction_error",
    "mean_abs_correlation",
    "montage",
    "patchify",
    "phase_sum",
    "plv",
    "pooled",
    "pretrain",
    "probe_f1",
    "rector_losses",
    "region_ids",
    "removal_f1",
    "separated_centres",
    "simulate_eeg",
    "spectral_partition",
    "structured_mask",
]
