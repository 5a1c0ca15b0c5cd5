"""The count-and-ground toy of chapter 14: scenes, policies, rollouts, methods, training.

A scene holds objects of three colours and asks how many have one colour; a policy cites
objects, may add a stray box, and places a box on each cited object; the answer is the
number of boxes. One concern per module (every public name is re-exported here, so
``grounding.train`` keeps working):

- :mod:`icml26.agents.grounding.policy` — scenes, policies and rollouts; every random choice
  has a log-probability, the "tokens" of the POLIA objective (:prf:ref:`polia-def-objective`);
- :mod:`icml26.agents.grounding.methods` — each method turns a rollout into the advantages of
  those tokens with the kernels of :mod:`icml26.agents.polia` and :mod:`icml26.grpo`;
- :mod:`icml26.agents.grounding.training` — methods × learning rates × seeds trained as one
  batch, one Adam optimiser per policy, the same random numbers for every method.
"""

from __future__ import annotations

from icml26.agents.grounding.methods import METHODS, Method, advantages
from icml26.agents.grounding.policy import BOX, LR, Policy, Rollout, Scenes, rollout, sample_scenes
from icml26.agents.grounding.policy import _square_iou as _square_iou
from icml26.agents.grounding.training import Run, train
from icml26.agents.grounding.training import _adam as _adam

__all__ = [
    "BOX",
    "LR",
    "METHODS",
    "Method",
    "Policy",
    "Rollout",
    "Run",
    "Scenes",
    "advantages",
    "rollout",
    "sample_scenes",
    "train",
]
