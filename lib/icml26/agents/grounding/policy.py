"""Scenes, policies and rollouts of the count-and-ground toy of chapter 14 (polia).

A scene holds objects of three colours and asks how many have one colour
(:class:`Scenes`, :func:`sample_scenes`); a policy (:class:`Policy`) cites objects, may add a
stray box, and places a box on each cited object; the answer is the number of boxes. Every
random choice has a log-probability, the "tokens" of the POLIA objective
(:prf:ref:`polia-def-objective`), recorded by :func:`rollout` in a :class:`Rollout`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import torch
import torch.nn.functional as F

from icml26 import checks
from icml26.agents.polia import _greedy_match

__all__ = [
    "BOX",
    "LR",
    "Policy",
    "Rollout",
    "Scenes",
    "rollout",
    "sample_scenes",
]


#: Side of every object box and of every predicted box (the image is the unit square).
BOX = 0.2
#: The library's default Adam step, the middle of the chapter's learning-rate range.
LR = 0.01
_COLOURS = 3
_MISREAD = 0.5  # probability that a box matching no object is misread
_ANY_BOX_BONUS = 0.5  # format reward for answering with at least one box
_INIT_W = (0.5, -0.5, 0.0)  # cite logit weight on "asked colour", cite bias, hallucination logit
_INIT_B = (0.12, -0.08)  # box offset
_INIT_S = 0.08  # box spread


@dataclass(frozen=True)
class Scenes:
    """A batch of scenes ``(..., M)``: object centres, colours and the colour asked about.

    Every object has a ``BOX × BOX`` box; at least one object has the colour asked about.
    """

    centre: torch.Tensor  # (..., M, 2)
    colour: torch.Tensor  # (..., M)
    asked: torch.Tensor  # (..., 1)

    @property
    def relevant(self) -> torch.Tensor:
        """``(..., M)``: the objects of the asked colour (their boxes are the ground truth)."""
        return self.colour == self.asked

    @property
    def boxes(self) -> torch.Tensor:
        """``(..., M, 4)``: the object boxes."""
        return torch.cat([self.centre - BOX / 2, self.centre + BOX / 2], -1)


def sample_scenes(shape: Sequence[int], objects: int, gen: torch.Generator) -> Scenes:
    """``shape`` scenes of ``objects`` objects with centres uniform in ``[0.1, 0.9]²``, colours
    uniform over three, a uniform asked colour (object 0 takes it when no object has it)."""
    if isinstance(shape, int) or not all(isinstance(s, int) and s >= 1 for s in shape):
        raise ValueError(f"shape must be a sequence of positive integers, got {shape!r}")
    M = checks.integer("objects", objects, low=1, high=30)
    if not isinstance(gen, torch.Generator):
        raise ValueError(f"gen must be a torch.Generator, got {type(gen).__name__}")
    shape = tuple(shape)
    f64 = torch.float64
    centre = 0.1 + 0.8 * torch.rand(*shape, M, 2, generator=gen, dtype=f64)
    colour = torch.randint(0, _COLOURS, (*shape, M), generator=gen)
    asked = torch.randint(0, _COLOURS, (*shape, 1), generator=gen)
    none = (colour != asked).all(-1, keepdim=True)
    colour[..., :1] = torch.where(none, asked, colour[..., :1])
    return Scenes(centre, colour, asked)


@dataclass
class Policy:
    """A batch of toy policies (leading dimensions ``(...,)``).

    A candidate cites object ``o`` with probability ``sigmoid(w[0] [o has the asked colour] +
    w[1])``, adds a box at a random place with probability ``sigmoid(w[2])`` (a hallucinated
    box), and centres the box of a cited object at ``N(centre_o + b, s² I)``, ``s = exp(log_s)``.
    """

    w: torch.Tensor  # (..., 3)
    b: torch.Tensor  # (..., 2)
    log_s: torch.Tensor  # (..., 1)

    @classmethod
    def initial(cls, *shape: int) -> Policy:
        """The chapter's starting policy: weak colour preference, offset boxes."""
        f64 = torch.float64
        return cls(
            torch.tensor(_INIT_W, dtype=f64).expand(*shape, 3).clone(),
            torch.tensor(_INIT_B, dtype=f64).expand(*shape, 2).clone(),
            torch.full((*shape, 1), math.log(_INIT_S), dtype=f64),
        )

    def parameters(self) -> list[torch.Tensor]:
        return [self.w, self.b, self.log_s]


@dataclass
class Rollout:
    """``N`` candidates per scene, sampled from a batch of policies (leading ``(..., P, N)``).

    Slots ``0..M-1`` are the boxes of the cited objects, slot ``M`` the hallucinated box.
    ``lp_*`` are log-probabilities with gradients to the policy: of the cite decisions and of
    the hallucination decision (per candidate), and of each box's coordinates (per slot).
    """

    cite: torch.Tensor  # (..., P, N, M) bool
    present: torch.Tensor  # (..., P, N, M+1) bool: the boxes the candidate wrote
    centre: torch.Tensor  # (..., P, N, M+1, 2) box centres
    match: torch.Tensor  # (..., P, N, M+1) matched object or -1
    own_iou: torch.Tensor  # (..., P, N, M) IoU of object o's box with object o
    reward: torch.Tensor  # (..., P, N) extrinsic reward R
    correct: torch.Tensor  # (..., P, N) bool
    conf: torch.Tensor  # (..., P, N, M) confidence s of the best box matched to o
    cited: torch.Tensor  # (..., P, N, M) bool: o in S_i
    keys: torch.Tensor  # (..., P, N) evidence sets
    noise: torch.Tensor  # (..., P, N, M) uniform draws: the random-confidence control
    lp_seq: torch.Tensor  # (..., P, N) log-probability of all decisions and coordinates
    lp_box: torch.Tensor  # (..., P, N, M) log-probability of each cited box's coordinates

    @property
    def hit(self) -> torch.Tensor:
        return self.match >= 0


def _decisions(policy: Policy, scenes: Scenes, members: int, gen: torch.Generator):
    """Sample who cites what and where: cite (..., P, N, M), hallucinate, box centres."""
    lead = scenes.colour.shape[:-1]
    M = scenes.colour.shape[-1]
    f64 = torch.float64
    w = policy.w[..., None, None, None, :]  # (..., 1, 1, 1, 3) against (S, P, N, M)
    rel = scenes.relevant[..., None, :]
    logit = w[..., 0] * rel + w[..., 1]
    u = torch.rand(*lead, members, M, generator=gen, dtype=f64)
    cite = u < torch.sigmoid(logit).detach()
    lp_cite = torch.where(cite, F.logsigmoid(logit), F.logsigmoid(-logit)).sum(-1)
    h = w[..., 0, 2]  # (..., 1, 1)
    hall = torch.rand(*lead, members, generator=gen, dtype=f64) < torch.sigmoid(h).detach()
    lp_hall = torch.where(hall, F.logsigmoid(h), F.logsigmoid(-h))
    s = policy.log_s.exp()[..., None, None, None, :]
    mu = scenes.centre[..., None, :, :] + policy.b[..., None, None, None, :]
    z = torch.randn(*lead, members, M, 2, generator=gen, dtype=f64)
    ctr = (mu + s * z).detach()
    lp_box = (-((ctr - mu) ** 2) / (2 * s**2) - torch.log(s)).sum(-1)
    lost = 0.1 + 0.8 * torch.rand(*lead, members, 1, 2, generator=gen, dtype=f64)
    centre = torch.cat([ctr, lost.expand(*ctr.shape[:-2], 1, 2)], -2)
    present = torch.cat([cite, hall[..., None]], -1)
    return cite, present, centre, lp_cite + lp_hall, lp_box


def _square_iou(centre: torch.Tensor, objects: torch.Tensor) -> torch.Tensor:
    """IoU of ``BOX × BOX`` squares centred at ``centre`` ``(..., n, 2)`` with those centred at
    ``objects`` ``(batch..., m, 2)``: ``(..., n, m)``. In place where it can: the tensors
    are the largest of a training step."""
    over = []
    for k in (0, 1):  # overlap along x, then y: max(0, BOX - |distance|)
        c, o = centre[..., k].contiguous(), objects[..., k].contiguous()
        gap = c[..., :, None] - o[..., None, None, :]
        over.append(gap.abs_().neg_().add_(BOX).clamp_(min=0))
    inter = over[0].mul_(over[1])
    return inter.div_(over[1].copy_(inter).neg_().add_(2 * BOX**2))


def rollout(policy: Policy, scenes: Scenes, members: int, gen: torch.Generator) -> Rollout:
    """Sample ``members`` candidates per scene and score them.

    ``scenes`` has dimensions ``(*batch, P, M)`` (``P`` prompts of ``M`` objects) and
    ``policy`` ``(..., *batch)``: the policies that share a batch index see the same scenes
    and the same random numbers. Boxes are matched to the objects of the asked colour by
    :func:`~icml26.agents.polia.greedy_match`; the count is the number of boxes; the answer
    is correct when it equals the number of asked-colour objects and no box that matches no
    object is misread (probability 1/2 each);
    ``R = [correct] + 0.5 [at least one box]``.
    """
    _check_policy(policy)
    _check_scenes(scenes)
    if not isinstance(gen, torch.Generator):
        raise ValueError(f"gen must be a torch.Generator, got {type(gen).__name__}")
    members = checks.integer("members", members, low=2)
    batch, shape = tuple(scenes.colour.shape[:-2]), tuple(policy.b.shape[:-1])
    if scenes.colour.ndim < 2 or shape[len(shape) - len(batch) :] != batch:
        raise ValueError(
            "scenes must be (..., P, M) and policy (..., *batch) with the scenes' batch "
            f"dimensions last, got {tuple(scenes.colour.shape)} and {shape}"
        )
    return _rollout(policy, scenes, members, gen)


def _check_policy(policy: object) -> None:
    """A Policy of floating tensors ``w (..., 3)``, ``b (..., 2)``, ``log_s (..., 1)``, finite."""
    if not isinstance(policy, Policy):
        raise ValueError(f"policy must be a Policy, got {type(policy).__name__}")
    lead = None
    for name, width in (("w", 3), ("b", 2), ("log_s", 1)):
        x = checks.tensor(f"policy.{name}", getattr(policy, name), floating=True)
        if x.ndim < 1 or x.shape[-1] != width or (lead is not None and x.shape[:-1] != lead):
            raise ValueError(
                f"policy.{name} must have shape (..., {width}) with the leading dimensions of "
                f"policy.w, got {tuple(x.shape)}"
            )
        lead = x.shape[:-1]
        checks.finite(f"policy.{name}", x)


def _check_scenes(scenes: object) -> None:
    """Scenes with finite ``centre (..., M, 2)``, ``colour (..., M)``, ``asked (..., 1)``."""
    if not isinstance(scenes, Scenes):
        raise ValueError(f"scenes must be Scenes, got {type(scenes).__name__}")
    colour = checks.tensor("scenes.colour", scenes.colour, dtype=torch.long)
    if colour.ndim < 1:
        raise ValueError("scenes.colour must have shape (..., M)")
    centre = checks.tensor("scenes.centre", scenes.centre, floating=True)
    checks.shape("scenes.centre", centre, (*colour.shape, 2))
    checks.finite("scenes.centre", centre)
    checks.tensor("scenes.asked", scenes.asked, dtype=torch.long)
    checks.shape("scenes.asked", scenes.asked, (*colour.shape[:-1], 1))


def _rollout(policy: Policy, scenes: Scenes, members: int, gen: torch.Generator) -> Rollout:
    """:func:`rollout` without the checks (one step of
    :func:`~icml26.agents.grounding.training.train`)."""
    M = scenes.colour.shape[-1]
    cite, present, centre, lp_dec, lp_box = _decisions(policy, scenes, members, gen)
    f64 = torch.float64
    far = torch.where(scenes.relevant[..., None], scenes.centre, scenes.centre + 5.0)
    iou = _square_iou(centre, far)  # (..., M+1, M): every box against every object
    match = torch.where(present, _greedy_match(iou), -1)
    hit = match >= 0
    misread = present & ~hit
    lead = (*scenes.colour.shape[:-1], members)
    misread &= torch.rand(*lead, M + 1, generator=gen, dtype=f64) < _MISREAD
    count = present.sum(-1)
    correct = (count == scenes.relevant.sum(-1)[..., None]) & ~misread.any(-1)
    reward = correct.to(f64) + _ANY_BOX_BONUS * (count > 0).to(f64)
    at = match.clamp(min=0)[..., None]
    gt = far[..., None, :, :].expand(*centre.shape[:-2], M, 2)
    l1 = (centre - torch.gather(gt, -2, at.expand(*at.shape[:-1], 2))).abs().sum(-1)
    s_box = 0.7 * torch.gather(iou, -1, at)[..., 0] + 0.3 * (1 - l1 / math.sqrt(2.0))
    conf_box = torch.where(hit, s_box.clamp(0, 1), 0.0)
    per_object = lambda x: torch.zeros_like(cite, dtype=f64).scatter_reduce(  # noqa: E731
        -1, at[..., 0], x, "amax"
    )  # the best box matched to each object
    cited = per_object(hit.to(f64)) > 0
    noise = torch.rand(*lead, M, generator=gen, dtype=f64).expand(cite.shape)
    return Rollout(
        cite=cite,
        present=present,
        centre=centre,
        match=match,
        own_iou=torch.diagonal(iou[..., :M, :], dim1=-2, dim2=-1),
        reward=reward,
        correct=correct,
        conf=per_object(conf_box),
        cited=cited,
        keys=cited.long().mul(2 ** torch.arange(M)).sum(-1),
        noise=noise,
        lp_seq=lp_dec + (lp_box * cite).sum(-1),
        lp_box=lp_box,
    )
