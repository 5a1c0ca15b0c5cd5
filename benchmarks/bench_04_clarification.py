"""Chapter 04 (clarification): exact expected information gain of every question, batched.

- Case 1: EIG of the 7 actions of τ-toy retail for 512 tasks (0–3 revealed attributes, 256
  goals): the closed-form kernel ``clarify.eig`` (one matrix product for all attribute
  marginals) against the notebook's readable reference, a loop over tasks, questions and
  answers that computes each gain as an expected KL divergence from prior to posterior.
- Case 2: the same gains from the generic kernel ``clarify.mutual_information`` (any answer
  matrix, one call per action for the whole batch) against the same reference loop, and
  against ``scipy.stats.entropy`` called per task and action.
- Case 3: GRPO advantages of 4096 groups of 8 rewards: ``icml26.grpo.group_advantages``
  against the notebook's per-group loop with TRL's formula.
"""

from __future__ import annotations

import numpy as np
import scipy.stats
import torch

from benchmarks.registry import register
from icml26 import grpo
from icml26.pipeline.notebooks import notebook_functions
from icml26.sequential import clarify

_ref = notebook_functions(
    "04-clarification", "eig_reference", "likelihood_reference", "grpo_advantages_reference"
)
eig_reference = _ref["eig_reference"]
grpo_advantages_reference = _ref["grpo_advantages_reference"]

_gen = torch.Generator().manual_seed(0)
ENV = clarify.make_env(4, 4, 0.1, generator=_gen)
BELIEF = clarify.initial_belief(
    ENV, clarify.sample_tasks(ENV, 512, revealed=(0, 3), generator=_gen)
)
BELIEF_NP = list(BELIEF.numpy())
ATTRS = ENV.attrs.numpy()
REWARDS = torch.randn(4096, 8, generator=_gen, dtype=torch.float64)
REWARDS_NP = REWARDS.numpy()
LIKELIHOODS = [clarify.likelihood_matrix(ENV, BELIEF, a) for a in range(ENV.n_actions)]
LIK_NP = [L.numpy() for L in LIKELIHOODS]


def _reference_loop() -> list[np.ndarray]:
    return [eig_reference(b, ATTRS, ENV.eps, ENV.n_values) for b in BELIEF_NP]


def _scipy_loop() -> list[float]:
    out = []
    for L in LIK_NP:
        for b, Lb in zip(BELIEF_NP, L, strict=True):
            out.append(scipy.stats.entropy(Lb @ b) - b @ scipy.stats.entropy(Lb, axis=0))
    return out


register(
    name="exact EIG of 7 questions for 512 tasks (256 goals): closed form vs per-task loop",
    kernel=lambda: clarify.eig(ENV, BELIEF),
    reference=_reference_loop,
)

register(
    name="exact EIG of 7 questions for 512 tasks: generic mutual_information vs loops",
    kernel=lambda: [clarify.mutual_information(BELIEF, L) for L in LIKELIHOODS],
    reference=_reference_loop,
    library=_scipy_loop,
    library_name="scipy.stats.entropy, one call per task and question",
)

register(
    name="GRPO advantages, 4096 groups of 8: group_advantages vs per-group loop (TRL formula)",
    kernel=lambda: grpo.group_advantages(REWARDS),
    reference=lambda: grpo_advantages_reference(REWARDS_NP),
)
