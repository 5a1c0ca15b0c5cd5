"""The methods of chapter 14 (polia): how a rollout becomes the advantages of its tokens.

Each method of :data:`METHODS` (a :class:`Method`) turns a rollout into advantages with the kernels
of :mod:`icml26.agents.polia` and :mod:`icml26.grpo` (:func:`advantages`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import torch

from icml26 import checks
from icml26.agents.grounding.policy import (
    Rollout,
)
from icml26.agents.polia import INTRINSIC, _group_sizes, _intrinsic
from icml26.grpo import group_advantages

__all__ = [
    "METHODS",
    "Method",
    "advantages",
]


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
    """:func:`advantages` without the checks (one step of
    :func:`~icml26.agents.grounding.training.train`)."""
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
