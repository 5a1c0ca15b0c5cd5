"""Action-observer driven beam search (V-ABS) on an "imagined-hole" FrozenLake (chapter 13, v-abs).

The environment is gymnasium's FrozenLake (deterministic moves): an ``n × n`` grid, start at
the top-left cell, goal at the bottom-right, holes elsewhere. A simulated **Thinker** scores
each candidate action *before* it is executed, from an imagined map in which some holes are
invisible; a simulated **Observer** scores the state reached *after* the Actor executed it.
Everything the search needs is a table over ``(map, state, action)``, so the search itself is
pure indexing and runs on a whole batch of maps and beams at once, on any device. Grids are at
most ``8 × 8``: a path's visited cells are one 64-bit mask.

- :func:`random_maps`, :func:`grid_moves`, :func:`goal_distance`, :func:`action_values` — the
  maps (gymnasium's generator), deterministic transitions, BFS distances and true action values;
- :func:`make_world` — Thinker, Observer and heuristic tables of one batch of maps
  (:prf:ref:`v-abs-def-world`);
- :func:`prior_entropy`, :func:`adaptive_weight` — the normalised prior entropy and the
  entropy-adaptive weight (:prf:ref:`v-abs-def-weight`, :prf:ref:`v-abs-prop-weight`);
- :func:`beam_search` — batched V-ABS, fixed-weight and one-sided beam searches, with optional
  observer skipping (:prf:ref:`v-abs-def-search`); :func:`greedy` — direct greedy decoding;
- :func:`kendall_tau` — batched Kendall τ-b between prior and observer scores (IAO bias,
  :prf:ref:`v-abs-def-iao`);
- :func:`sft_features` — the verification features of the SFT analog.
"""

from __future__ import annotations

from icml26.agents.beam.search import (
    BeamResult,
    adaptive_weight,
    beam_search,
    greedy,
    kendall_tau,
    prior_entropy,
    sft_features,
)
from icml26.agents.beam.world import (
    DELTAS,
    REVERSE,
    World,
    action_values,
    goal_distance,
    grid_moves,
    make_world,
    manhattan_progress,
    random_maps,
)

__all__ = [
    "DELTAS",
    "REVERSE",
    "BeamResult",
    "World",
    "action_values",
    "adaptive_weight",
    "beam_search",
    "goal_distance",
    "greedy",
    "grid_moves",
    "kendall_tau",
    "make_world",
    "manhattan_progress",
    "prior_entropy",
    "random_maps",
    "sft_features",
]
