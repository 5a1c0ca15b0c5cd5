"""Chapter 13 (v-abs): batched V-ABS beam search over all maps vs the notebook's per-map loop.

Both compute the same thing — V-ABS (K = 3, D = 14, β = 2, μ = 0.5, w_h = 0.2) on every map of
world B (6×6 imagined-hole FrozenLake with cracked ice), returning each map's success — and the
chapter asserts that they agree map by map. No established library implements this search.

- Case 1: 4000 maps, kernel against the reference loop.
- Case 2: 1000 maps, the notebook's default scale.

Why the ratio is modest: the reference is lean Python — a search stops at the goal after
about 11 depths with at most 3 nodes, about 0.2 ms per map — while the kernel does about 60
elementwise operations on (maps, K, 4) float64 tensors per depth. Its time is a fixed cost
(about 3 ms: the dispatch of some 800 tensor operations, whatever the batch) plus about 9 µs
per map, so the ratio is bounded by about 20-25× and is just below 20× at 1000 maps (see
``benchmarks/explanations.md``). The batched kernel is written for a GPU, where the per-map
cost falls further; that case was not measured.
"""

from __future__ import annotations

import torch

from benchmarks.registry import register, register_scaling
from icml26.agents import beam
from icml26.pipeline.notebooks import notebook_functions

_vabs_reference = notebook_functions("13-v-abs", "vabs_reference")["vabs_reference"]

_HOLES = torch.from_numpy(beam.random_maps(4000, 6, 0.8, seed=13))
WORLD = beam.make_world(_HOLES, hide=0.5, crack=0.3, generator=torch.Generator().manual_seed(13))
TABLES = [
    (
        WORLD.prior[b].numpy(),
        WORLD.observer[b].numpy(),
        WORLD.heuristic[b].numpy(),
        WORLD.hole[b].numpy(),
        WORLD.next_state.numpy(),
        WORLD.wall.numpy(),
    )
    for b in range(WORLD.n_maps)
]
SMALL = beam.make_world(
    _HOLES[:1000], hide=0.5, crack=0.3, generator=torch.Generator().manual_seed(13)
)
SMALL_TABLES = [
    (
        SMALL.prior[b].numpy(),
        SMALL.observer[b].numpy(),
        SMALL.heuristic[b].numpy(),
        SMALL.hole[b].numpy(),
        SMALL.next_state.numpy(),
        SMALL.wall.numpy(),
    )
    for b in range(SMALL.n_maps)
]

register(
    name="V-ABS beam search (K=3, D=14) on 4000 maps: batched kernel vs per-map loop",
    kernel=lambda: beam.beam_search(WORLD).success,
    reference=lambda: [_vabs_reference(*t) for t in TABLES],
)

register(
    name="V-ABS beam search (K=3, D=14) on 1000 maps: batched kernel vs per-map loop",
    kernel=lambda: beam.beam_search(SMALL).success,
    reference=lambda: [_vabs_reference(*t) for t in SMALL_TABLES],
)


def _vabs_at(n_maps: int):
    world = beam.make_world(
        _HOLES[:n_maps], hide=0.5, crack=0.3, generator=torch.Generator().manual_seed(13)
    )
    return lambda: beam.beam_search(world).success


register_scaling(
    "batched V-ABS beam search, 6 × 6 maps, K = 3, D = 14",
    make=_vabs_at,
    sizes=(125, 500, 1000, 4000),
    size_label="maps",
)
