"""SCALE decoding for a tiny vision-language-action policy (chapter 15, scale): the chapter's
API.

One import for the whole chapter; each name lives in the module of its concern:

- :mod:`icml26.agents.uncertainty` — the self-uncertainty of :prf:ref:`scale-def-uncertainty`,
  its closed form, the action and attention temperatures, the step history, token sampling;
- :mod:`icml26.agents.forkreach` — the ForkReach task, its demonstrator, rendering and
  demonstrations, and its ``gymnasium`` view;
- :mod:`icml26.agents.tinyvla` — the tiny ViT-style policy, behaviour cloning, attention entropy;
- :mod:`icml26.agents.decoding` — the table of decoding rules and the closed-loop rollout.
"""

from __future__ import annotations

from icml26.agents.decoding import (
    ACT_STREAM,
    DECODING,
    ENV_STREAM,
    GREEDY_BELOW,
    METHODS,
    OBS_STREAM,
    TOP_K,
    TOP_K_TAU,
    TOP_P,
    DecodingRule,
    Rollout,
    rollout,
)
from icml26.agents.forkreach import (
    ForkReach,
    collect_demos,
    detokenize,
    expert_action,
    fork_mask,
    make_gym_env,
    render,
    reset,
    step,
    tokenize,
)
from icml26.agents.tinyvla import TinyVLA, attention_entropy, train_bc
from icml26.agents.uncertainty import (
    History,
    action_temperature,
    attention_temperature,
    sample_tokens,
    self_uncertainty,
    uncertainty_closed_form,
)

__all__ = [
    "ACT_STREAM",
    "DECODING",
    "ENV_STREAM",
    "GREEDY_BELOW",
    "METHODS",
    "OBS_STREAM",
    "TOP_K",
    "TOP_K_TAU",
    "TOP_P",
    "DecodingRule",
    "ForkReach",
    "History",
    "Rollout",
    "TinyVLA",
    "action_temperature",
    "attention_entropy",
    "attention_temperature",
    "collect_demos",
    "detokenize",
    "expert_action",
    "fork_mask",
    "make_gym_env",
    "render",
    "reset",
    "rollout",
    "sample_tokens",
    "self_uncertainty",
    "step",
    "tokenize",
    "train_bc",
    "uncertainty_closed_form",
]
