"""Group-normalised advantages (GRPO), shared by chapters 04 and 14.

Group Relative Policy Optimisation samples ``M`` completions (the *members*) for each of
``N`` prompts (the *groups*) and replaces a learned critic by the group's own statistics:

    A_ij = (r_ij − mean_j r_ij) / (std_j r_ij + eps)

Implements :prf:ref:`clarification-def-grpo` (chapter 04) and the answer-level advantage
:prf:ref:`polia-def-grpo` (chapter 14): one implementation for both. The default convention
is the one of TRL's ``GRPOTrainer``: the *unbiased* standard deviation over the group
(``ddof=1``, what ``torch.std`` computes) and ``eps = 1e-4``; numpy's ``std`` defaults to
``ddof=0``, so a reimplementation compared with TRL or verl must pass ``ddof=1`` explicitly.
"""

from __future__ import annotations

import torch

from icml26 import checks

__all__ = ["group_advantages"]


def group_advantages(
    rewards: torch.Tensor, *, eps: float = 1e-4, ddof: int = 1, scale: bool = True
) -> torch.Tensor:
    """Group-normalised advantages of a ``(groups, members)`` reward tensor.

    Each row is one group (the rollouts of one prompt or task). With ``scale=False`` only the
    group mean is subtracted (the "Dr. GRPO" variant without the standard-deviation division).
    A group whose rewards are all equal gets advantage zero for every member.
    """
    checks.tensor("rewards", rewards, ndim=2, floating=True)
    checks.finite("rewards", rewards)
    eps = checks.real("eps", eps, low=0.0)
    ddof = checks.integer("ddof", ddof, low=0, high=1)
    if not isinstance(scale, bool):
        raise ValueError(f"scale must be a bool, got {scale!r}")
    if rewards.shape[0] < 1 or rewards.shape[1] < ddof + 1:
        raise ValueError(
            f"rewards must have at least one group and {ddof + 1} members per group "
            f"(ddof={ddof}), got shape {tuple(rewards.shape)}"
        )
    centred = rewards - rewards.mean(dim=1, keepdim=True)
    if not scale:
        return centred
    std = rewards.std(dim=1, keepdim=True, correction=ddof)
    return centred / (std + eps)
