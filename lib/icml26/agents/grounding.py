"""The count-and-ground toy of chapter 14: scenes, policies, rollouts, methods, training.

A scene holds objects of three colours and asks how many have one colour; a policy cites
objects, may add a stray box, and places a box on each cited object; the answer is the
number of boxes. Every random choice has a log-probability, the "tokens" of the POLIA
objective (:prf:ref:`polia-def-objective`). Each method of :data:`METHODS` turns a rollout
into the advantages of those tokens with the kernels of :mod:`icml26.agents.polia` and
:mod:`icml26.grpo`, and :func:`train` trains methods × learning rates × seeds as one batch,
one Adam optimiser per policy, the same random numbers for every method.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, fields

import torch
import torch.nn.functional as F

from icml26 import checks
from icml26.agents.polia import INTRINSIC, _greedy_match, _group_sizes, _intrinsic
from icml26.grpo import group_advantages
from icml26.runtime import progress as _progress

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
    """:func:`rollout` without the checks (one step of :func:`train`)."""
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


@dataclass(frozen=True)
class Method:
    """How a method turns a rollout into advantages (see :data:`METHODS`).

    ``extrinsic``: GRPO's answer advantage on every token. ``intrinsic``: the intrinsic
    advantage on the coordinate tokens of the matched object (``"tokens"``, the paper's
    objective), summed over the cited objects and added to every token (``"spread"``, the
    released ``POLIAtrainer_simple.py``), or not at all (``"none"``). ``confidence``: ``"box"``
    (the paper's ``s``) or ``"random"`` (uniform, unrelated to the box: a control).
    ``penalty``: minus one per box matching no object, on every token, for every candidate
    (``"all"``), only in groups of two or more (``"groups"``), or never. ``singletons`` and
    ``unmatched``: the released token-level trainer's raw ``r`` for groups of one, and the
    mean of the candidate's intrinsic advantages on the coordinates of an unmatched box.
    """

    extrinsic: bool = True
    intrinsic: str = "none"
    confidence: str = "box"
    penalty: str = "none"
    singletons: str = "zero"
    unmatched: str = "none"

    def __post_init__(self) -> None:
        allowed = {
            "intrinsic": ("none", "tokens", "spread"),
            "confidence": ("box", "random"),
            "penalty": ("none", "all", "groups"),
            "singletons": INTRINSIC,
            "unmatched": ("none", "mean"),
        }
        if not isinstance(self.extrinsic, bool):
            raise ValueError(f"extrinsic must be a bool, got {self.extrinsic!r}")
        for name, values in allowed.items():
            if getattr(self, name) not in values:
                raise ValueError(f"{name} must be one of {values}, got {getattr(self, name)!r}")


#: The methods of the chapter. "w/o A_int" is GRPO itself in this toy.
METHODS = {
    "GRPO": Method(),
    "POLIA": Method(intrinsic="tokens"),
    "w/o A_ext": Method(extrinsic=False, intrinsic="tokens"),
    "random s": Method(intrinsic="tokens", confidence="random"),
    "spread": Method(intrinsic="spread"),
    "released": Method(intrinsic="tokens", penalty="all", singletons="raw", unmatched="mean"),
    "released simple": Method(intrinsic="spread", penalty="groups"),
}


def _flags(methods: Sequence[Method], ndim: int) -> dict[str, torch.Tensor]:
    """One 0/1 column per method property, shaped to broadcast over ``ndim`` trailing dims."""
    spec = {
        "ext": lambda m: m.extrinsic,
        "tokens": lambda m: m.intrinsic == "tokens",
        "spread": lambda m: m.intrinsic == "spread",
        "random": lambda m: m.confidence == "random",
        "pen_all": lambda m: m.penalty == "all",
        "pen_groups": lambda m: m.penalty == "groups",
        "raw": lambda m: m.singletons == "raw",
        "mean": lambda m: m.unmatched == "mean",
    }
    shape = (len(methods),) + (1,) * ndim
    return {
        k: torch.tensor([float(f(m)) for m in methods], dtype=torch.float64).view(shape)
        for k, f in spec.items()
    }


def advantages(
    roll: Rollout, methods: Sequence[Method], *, omega: float = 1.0, penalty: float = 1.0
) -> tuple[torch.Tensor, torch.Tensor]:
    """Advantages of every token: ``(A_seq, A_box)``.

    ``methods`` gives the :class:`Method` of each row of the rollout's first dimension.
    ``A_seq`` ``(..., P, N)`` reaches every decision of a candidate (GRPO's ``A_ext``, the
    penalty, the spread intrinsic term); ``A_box`` ``(..., P, N, M)`` only the coordinates of
    the box in slot ``o`` (``omega`` times the intrinsic advantage of the object it matched).
    """
    if not isinstance(roll, Rollout):
        raise ValueError(f"roll must be a Rollout, got {type(roll).__name__}")
    for name in ("reward", "conf", "noise"):
        checks.tensor(f"roll.{name}", getattr(roll, name), floating=True)
        checks.finite(f"roll.{name}", getattr(roll, name))
    if isinstance(methods, Method) or not all(isinstance(m, Method) for m in methods):
        raise ValueError("methods must be a sequence of Method, one per rollout row")
    if len(methods) != roll.reward.shape[0]:
        raise ValueError(
            f"methods must have one entry per row ({roll.reward.shape[0]}), got {len(methods)}"
        )
    omega = checks.real("omega", omega, low=0.0)
    penalty = checks.real("penalty", penalty, low=0.0)
    return _advantages(roll, methods, omega, penalty)


def _advantages(
    roll: Rollout, methods: Sequence[Method], omega: float, penalty: float
) -> tuple[torch.Tensor, torch.Tensor]:
    """:func:`advantages` without the checks (one step of :func:`train`)."""
    R = roll.reward
    N, M = R.shape[-1], roll.cite.shape[-1]
    flag = _flags(methods, R.ndim - 1)
    cut = lambda x: x[..., None]  # noqa: E731  a flag against (..., P, N, M)
    a_ext = group_advantages(R.reshape(-1, N)).reshape(R.shape)
    conf = torch.lerp(roll.conf, roll.noise * roll.cited, cut(flag["random"]))
    a_int = _intrinsic(
        R.reshape(-1, N),
        roll.keys.reshape(-1, N),
        conf.reshape(-1, N, M),
        roll.cited.reshape(-1, N, M),
    ).reshape(conf.shape)
    size = _group_sizes(roll.keys)
    alone = (size == 1)[..., None] & roll.cited  # the released code keeps r = R * s there
    a_int = a_int + cut(flag["raw"]) * torch.where(alone, R[..., None] * conf, 0.0)
    unmatched = (roll.present & ~roll.hit).sum(-1).to(R.dtype)
    in_group = (size > 1).to(R.dtype)
    a_seq = flag["ext"] * a_ext - penalty * unmatched * (
        flag["pen_all"] + flag["pen_groups"] * in_group
    )
    a_seq = a_seq + omega * flag["spread"] * a_int.sum(-1)
    slot = roll.match[..., :M]
    a_box = torch.gather(a_int, -1, slot.clamp(min=0)) * (slot >= 0)
    n_cited = roll.cited.sum(-1)
    fallback = torch.where(n_cited > 0, a_int.sum(-1) / n_cited.clamp(min=1), a_seq)
    lost = roll.cite & (slot < 0) & (cut(flag["mean"]) > 0)
    a_box = torch.where(lost, fallback[..., None], a_box)
    return a_seq, omega * cut(flag["tokens"]) * a_box


# --- training -------------------------------------------------------------------------------


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
