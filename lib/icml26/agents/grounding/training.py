"""Training the count-and-ground toy of chapter 14 (polia).

:func:`train` trains methods × learning rates × seeds as one batch, one Adam optimiser per
policy, the same random numbers for every method, and returns the curves and final policies
(:class:`Run`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields

import torch

from icml26 import checks
from icml26.agents.grounding.methods import METHODS, _advantages
from icml26.agents.grounding.policy import (
    LR,
    Policy,
    Rollout,
    Scenes,
    _rollout,
    sample_scenes,
)
from icml26.agents.polia import _group_sizes
from icml26.runtime import progress as _progress

__all__ = [
    "Run",
    "train",
]


@dataclass
class Run:
    """Training curves, ``(iterations, methods, learning rates, seeds)``, and final policies.

    ``reward``: mean extrinsic reward; ``accuracy``: share of correct answers; ``iou``: mean
    IoU of the boxes of cited asked-colour objects; ``grounded``: share of candidates with a
    correct answer whose evidence set is exactly the asked-colour objects; ``groups``:
    distinct evidence sets per prompt; ``unmatched``: share of written boxes that match no
    object; ``offset``: the box offset ``b`` (a trailing dimension of 2); ``spread``: the box
    spread ``s``; ``policy``: the final parameters, ``(methods, learning rates, seeds, ...)``.
    """

    methods: tuple[str, ...]
    lrs: tuple[float, ...]
    reward: torch.Tensor
    accuracy: torch.Tensor
    iou: torch.Tensor
    grounded: torch.Tensor
    groups: torch.Tensor
    unmatched: torch.Tensor
    offset: torch.Tensor
    spread: torch.Tensor
    policy: Policy

    def final(self, metric: str, last: int = 50) -> torch.Tensor:
        """Mean of ``metric`` over the last ``last`` iterations: ``(methods, lrs, seeds)``."""
        if metric not in {f.name for f in fields(self)} - {"methods", "lrs", "policy"}:
            raise ValueError(f"metric must name a curve of Run, got {metric!r}")
        curve = getattr(self, metric)
        last = checks.integer("last", last, low=1, high=curve.shape[0])
        return curve[-last:].mean(0)

    def of(self, method: str) -> int:
        """Index of ``method`` in ``methods``."""
        if method not in self.methods:
            raise ValueError(f"method must be one of {self.methods}, got {method!r}")
        return self.methods.index(method)


def _metrics(roll: Rollout, scenes: Scenes) -> dict[str, torch.Tensor]:
    """Per-policy summaries of one rollout (means over prompts and candidates)."""
    rel = scenes.relevant[..., None, :]
    rel_cited = roll.cite & rel
    n_written = roll.present.sum((-3, -2, -1)).clamp(min=1)
    grounded = roll.correct & (roll.cited == rel).all(-1)
    return {
        "reward": roll.reward.mean((-2, -1)),
        "accuracy": roll.correct.double().mean((-2, -1)),
        "iou": (roll.own_iou * rel_cited).sum((-3, -2, -1))
        / rel_cited.sum((-3, -2, -1)).clamp(min=1),
        "grounded": grounded.double().mean((-2, -1)),
        "groups": (1 / _group_sizes(roll.keys)).sum(-1).mean(-1),
        "unmatched": (roll.present & ~roll.hit).sum((-3, -2, -1)) / n_written,
    }


def _adam(
    params: list[torch.Tensor], state: list, lr: torch.Tensor, t: int, betas=(0.9, 0.999)
) -> None:
    """One Adam step (``eps = 1e-8``, as ``torch.optim.Adam``) with a step size per policy."""
    b1, b2 = betas
    for p, (m, v) in zip(params, state, strict=True):
        m.mul_(b1).add_(p.grad, alpha=1 - b1)
        v.mul_(b2).addcmul_(p.grad, p.grad, value=1 - b2)
        step = (m / (1 - b1**t)) / ((v / (1 - b2**t)).sqrt() + 1e-8)
        p.data.sub_(lr * step)
        p.grad = None


def _validate_train(methods, lrs) -> tuple[tuple[str, ...], tuple[float, ...]]:
    if isinstance(methods, str) or not isinstance(methods, Sequence) or not methods:
        raise ValueError(f"methods must be a non-empty sequence of names, got {methods!r}")
    unknown = [m for m in methods if m not in METHODS]
    if unknown or len(set(methods)) != len(methods):
        raise ValueError(f"methods must be distinct names of {sorted(METHODS)}, got {methods}")
    if isinstance(lrs, str) or not isinstance(lrs, Sequence) or not lrs:
        raise ValueError(f"lrs must be a non-empty sequence of step sizes, got {lrs!r}")
    lrs = tuple(checks.real(f"lrs[{i}]", x, low=0.0, strict=True) for i, x in enumerate(lrs))
    return tuple(methods), lrs


def train(
    methods: Sequence[str] = ("GRPO", "POLIA"),
    *,
    lrs: Sequence[float] = (LR,),
    seeds: int = 10,
    iters: int = 300,
    prompts: int = 8,
    members: int = 16,
    objects: int = 6,
    omega: float = 1.0,
    penalty: float = 1.0,
    seed: int = 0,
    progress: bool = False,
) -> Run:
    """Train the toy policy with every method of ``methods`` at every step size of ``lrs``.

    Implements :prf:ref:`polia-def-objective`, chapter 14, with ``rho = 1`` (one update per
    batch, so clipping and the KL term are inactive): the loss is minus the mean over
    candidates of ``A_seq * log p(all decisions) + sum_o A_box[o] * log p(box o)``. The
    ``methods × lrs × seeds`` policies train together; policy ``(m, l, s)`` is updated by its
    own Adam with step ``lrs[l]``. The methods at one ``(l, s)`` see the same scenes and
    random numbers (common random numbers, so that differences between methods are paired);
    different ``(l, s)`` see independent ones.
    """
    methods, lrs = _validate_train(methods, lrs)
    S = checks.integer("seeds", seeds, low=1)
    T = checks.integer("iters", iters, low=1)
    P = checks.integer("prompts", prompts, low=1)
    N = checks.integer("members", members, low=2)
    M = checks.integer("objects", objects, low=1, high=30)
    omega = checks.real("omega", omega, low=0.0)
    penalty = checks.real("penalty", penalty, low=0.0)
    gen = torch.Generator().manual_seed(checks.integer("seed", seed, low=0))
    nm, nl = len(methods), len(lrs)
    policy = Policy.initial(nm, nl, S)
    params = policy.parameters()
    for p in params:
        p.requires_grad_()
    state = [(torch.zeros_like(p), torch.zeros_like(p)) for p in params]
    lr = torch.tensor(lrs, dtype=torch.float64)[:, None, None]
    curves: dict[str, list[torch.Tensor]] = {}
    steps = _progress(range(T), desc="iterations") if progress else range(T)
    for t in steps:
        scenes = sample_scenes((nl, S, P), M, gen)
        roll = _rollout(policy, scenes, N, gen)
        a_seq, a_box = _advantages(roll, [METHODS[m] for m in methods], omega, penalty)
        surrogate = a_seq * roll.lp_seq + (a_box * roll.lp_box * roll.cite).sum(-1)
        (-surrogate.mean((-2, -1)).sum()).backward()
        _adam(params, state, lr, t + 1)
        with torch.no_grad():
            summary = _metrics(roll, scenes)
            summary["offset"] = policy.b.detach().clone()
            summary["spread"] = policy.log_s.detach()[..., 0].exp()
        for k, v in summary.items():
            curves.setdefault(k, []).append(v)
    final = Policy(*(p.detach() for p in params))
    return Run(methods, lrs, **{k: torch.stack(v) for k, v in curves.items()}, policy=final)
