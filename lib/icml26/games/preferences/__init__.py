"""Transitive and cyclic preferences: HRC decomposition and dynamic self-play (chapter 08).

Preference *scores* are logits, ``s(y_i, y_j) = log P(y_i ≻ y_j) / P(y_j ≻ y_i)``, collected in a
skew-symmetric matrix ``S`` (``S = -Sᵀ``). This module holds:

- :func:`decompose`, :func:`potential_lstsq` — the split ``S = T + C`` of a skew matrix into a
  transitive part (potential differences, row means) and a cyclic part (zero row sums),
  :prf:ref:`hrc-dsppo-thm-decomposition` of chapter 08, and the least-squares potential that must
  agree;
- :func:`bt_scores`, :func:`gpm_scores`, :func:`hrc_scores`, :func:`rotation`,
  :func:`preference_loss` — the Bradley–Terry, General Preference Model and Hybrid
  Reward-Cyclic heads (:prf:ref:`hrc-dsppo-def-models`) and their temperature-scaled logistic loss;
- :func:`random_tournament` (generator G1), :func:`dominant_cycle_pairs` and
  :func:`dominant_cycle_data` (G2, tabular and with item features);
- :func:`fit_tabular`, :func:`fit_encoder` — batched training of the heads over restarts/seeds;
- :func:`dominant_margin_lp` — the best margin a dominant candidate can get against a *fixed*
  cycle embedding (:prf:ref:`hrc-dsppo-thm-gpm-limits`, part ii);
- :func:`schedule`, :func:`self_play`, :func:`preference_gap`, :func:`preference_equilibrium` — SPPO
  / DSPPO as batched multiplicative weights over many games (:prf:ref:`hrc-dsppo-thm-dsppo`), the
  duality gap under the true preference and the LP equilibrium. The gap and the LP reuse
  :func:`icml26.games.zerosum.duality_gap` and :func:`icml26.games.zerosum.maximin_lp` (chapter 07):
  a preference game is the symmetric zero-sum game with payoff ``P − 1/2``.
"""

from __future__ import annotations

from icml26.games.preferences.heads import (
    Decomposition,
    EncoderFit,
    SelfPlayResult,
    TabularFit,
    bt_scores,
    decompose,
    dominant_cycle_data,
    dominant_cycle_pairs,
    gpm_scores,
    hrc_scores,
    potential_lstsq,
    preference_loss,
    random_tournament,
    rotation,
)
from icml26.games.preferences.selfplay import (
    preference_equilibrium,
    preference_gap,
    schedule,
    self_play,
)
from icml26.games.preferences.training import dominant_margin_lp, fit_encoder, fit_tabular

__all__ = [
    "Decomposition",
    "EncoderFit",
    "SelfPlayResult",
    "TabularFit",
    "bt_scores",
    "decompose",
    "dominant_cycle_data",
    "dominant_cycle_pairs",
    "dominant_margin_lp",
    "fit_encoder",
    "fit_tabular",
    "gpm_scores",
    "hrc_scores",
    "potential_lstsq",
    "preference_equilibrium",
    "preference_gap",
    "preference_loss",
    "random_tournament",
    "rotation",
    "schedule",
    "self_play",
]
