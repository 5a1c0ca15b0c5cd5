"""POLIA: object-level intrinsic advantage in group-based RL (chapter 14).

Boxes are ``[x_min, y_min, x_max, y_max]`` in image coordinates normalised to ``[0, 1]``.
The answer-level advantage is the group-normalised one of :mod:`icml26.grpo` (shared with
chapter 04). This module adds the box IoU, the paper's greedy matching rule, the object
confidence (:prf:ref:`polia-def-confidence`), evidence sets and the intrinsic advantage
within visual-object groups (:prf:ref:`polia-def-intrinsic`). The chapter's toy world, its
methods and their training are in :mod:`icml26.agents.grounding.policy`,
:mod:`icml26.agents.grounding.methods` and :mod:`icml26.agents.grounding.training`.
"""

from __future__ import annotations

import math

import torch

from icml26 import checks

__all__ = [
    "INTRINSIC",
    "box_iou",
    "confidence",
    "evidence_keys",
    "greedy_match",
    "intrinsic_advantages",
]


def _boxes(name: str, b: torch.Tensor) -> torch.Tensor:
    checks.tensor(name, b, floating=True)
    if b.ndim < 2 or b.shape[-1] != 4:
        raise ValueError(f"{name} must have shape (..., n, 4), got {tuple(b.shape)}")
    checks.finite(name, b)
    if (b[..., 2] < b[..., 0]).any() or (b[..., 3] < b[..., 1]).any():
        raise ValueError(f"{name} must have x_max >= x_min and y_max >= y_min")
    return b


def box_iou(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """Pairwise IoU of ``a`` (``(..., n, 4)``) and ``b`` (``(..., m, 4)``): ``(..., n, m)``.

    Empty unions (two degenerate boxes) give IoU 0.
    """
    _boxes("a", a)
    _boxes("b", b)
    if a.shape[:-2] != b.shape[:-2]:
        raise ValueError(
            f"a and b must share batch dimensions, got {tuple(a.shape)} and {tuple(b.shape)}"
        )
    a, b = a[..., :, None, :], b[..., None, :, :]
    lo, hi = torch.maximum(a[..., :2], b[..., :2]), torch.minimum(a[..., 2:], b[..., 2:])
    inter = (hi - lo).clamp(min=0).prod(-1)
    union = (a[..., 2:] - a[..., :2]).prod(-1) + (b[..., 2:] - b[..., :2]).prod(-1) - inter
    return torch.where(union > 0, inter / union.clamp(min=1e-300), torch.zeros_like(inter))


def confidence(
    pred: torch.Tensor, gt: torch.Tensor, *, w_iou: float = 0.7, w_l1: float = 0.3
) -> torch.Tensor:
    """Object confidence ``s = clip(w_iou * IoU + w_l1 * (1 - L1 centre distance / diag))``.

    Implements :prf:ref:`polia-def-confidence`, chapter 14, for boxes ``pred`` and ``gt`` of
    the same shape ``(..., 4)`` (elementwise, not pairwise); the image is the unit square,
    whose diagonal is ``sqrt(2)``.
    """
    _boxes("pred", pred)
    _boxes("gt", gt)
    if pred.shape != gt.shape:
        raise ValueError(
            f"pred and gt must have the same shape, got {tuple(pred.shape)} and {tuple(gt.shape)}"
        )
    w_iou = checks.real("w_iou", w_iou, low=0.0)
    w_l1 = checks.real("w_l1", w_l1, low=0.0)
    iou = box_iou(pred[..., None, :], gt[..., None, :])[..., 0, 0]
    cp = (pred[..., :2] + pred[..., 2:]) / 2
    cg = (gt[..., :2] + gt[..., 2:]) / 2
    l1 = (cp - cg).abs().sum(-1) / math.sqrt(2.0)
    return (w_iou * iou + w_l1 * (1 - l1)).clamp(0.0, 1.0)


def greedy_match(iou: torch.Tensor, *, threshold: float = 0.5) -> torch.Tensor:
    """The paper's rule: each predicted box (row) goes to its best-IoU object if IoU > threshold.

    ``iou`` is ``(..., n_pred, n_gt)``; returns the matched object index per predicted box, or
    ``-1``. Two predicted boxes may match the same object (no one-to-one constraint).
    """
    checks.tensor("iou", iou, floating=True)
    if iou.ndim < 2:
        raise ValueError(f"iou must have shape (..., n_pred, n_gt), got {tuple(iou.shape)}")
    checks.finite("iou", iou)
    threshold = checks.real("threshold", threshold, low=0.0, high=1.0)
    if iou.shape[-1] == 0:
        return torch.full(iou.shape[:-1], -1, dtype=torch.long)
    return _greedy_match(iou, threshold)


def _greedy_match(iou: torch.Tensor, threshold: float = 0.5) -> torch.Tensor:
    best, idx = iou.max(-1)
    return torch.where(best > threshold, idx, -1)


def evidence_keys(match: torch.Tensor, n_objects: int) -> torch.Tensor:
    """The evidence set ``S_i`` of every candidate as a bitmask over objects.

    ``match`` is ``(..., n_pred)`` from :func:`greedy_match`; the key sums ``2**o`` over the
    distinct matched objects ``o`` (so equal keys mean equal sets).
    """
    checks.tensor("match", match, dtype=torch.long)
    if match.ndim < 1:
        raise ValueError("match must have at least one dimension (the predicted boxes)")
    n_objects = checks.integer("n_objects", n_objects, low=1, high=62)
    if (match < -1).any() or (match >= n_objects).any():
        raise ValueError("match must hold object indices in [-1, n_objects)")
    return _cited_objects(match, n_objects).long().mul(2 ** torch.arange(n_objects)).sum(-1)


def _cited_objects(match: torch.Tensor, n_objects: int) -> torch.Tensor:
    """Boolean ``(..., n_objects)``: which objects a candidate's boxes matched."""
    return (match[..., None] == torch.arange(n_objects)).any(-2)


def _group_sizes(keys: torch.Tensor) -> torch.Tensor:
    """``|G_S|`` of every candidate: how many candidates of its prompt share its key."""
    return (keys[..., :, None] == keys[..., None, :]).sum(-1)


#: What a singleton group ``|G_S| = 1`` gets: 0 (this chapter; the formula is undefined
#: there) or the raw corrected reward ``r`` (the released token-level trainer).
INTRINSIC = ("zero", "raw")


def intrinsic_advantages(
    rewards: torch.Tensor,
    keys: torch.Tensor,
    conf: torch.Tensor,
    cited: torch.Tensor,
    *,
    eps: float = 1e-4,
    singletons: str = "zero",
) -> torch.Tensor:
    """Object-level intrinsic advantages ``A_int[p, i, o]`` within visual-object groups.

    Implements :prf:ref:`polia-def-intrinsic`, chapter 14. ``rewards`` ``(P, N)`` are the
    extrinsic rewards ``R(c_i)`` of ``N`` candidates of ``P`` prompts, ``keys`` ``(P, N)``
    their evidence sets (:func:`evidence_keys`), ``conf`` ``(P, N, M)`` the confidences
    ``s_{i,o}`` and ``cited`` ``(P, N, M)`` whether ``o`` is in ``S_i``. The corrected reward
    ``r = R * s`` is standardised (unbiased std, ``+ eps``) over the candidates with the same
    evidence set. Entries with ``o`` not in ``S_i`` get 0; singleton groups get 0 or, with
    ``singletons="raw"`` (the released code), the raw ``r``.
    """
    checks.tensor("rewards", rewards, ndim=2, floating=True)
    checks.finite("rewards", rewards)
    P, N = rewards.shape
    checks.tensor("keys", keys, dtype=torch.long)
    checks.shape("keys", keys, (P, N))
    checks.tensor("conf", conf, ndim=3, floating=True)
    checks.shape("conf", conf, (P, N, None))
    checks.finite("conf", conf)
    checks.tensor("cited", cited, dtype=torch.bool)
    checks.shape("cited", cited, tuple(conf.shape))
    eps = checks.real("eps", eps, low=0.0)
    if singletons not in INTRINSIC:
        raise ValueError(f"singletons must be one of {INTRINSIC}, got {singletons!r}")
    return _intrinsic(rewards, keys, conf, cited, eps, singletons)


def _intrinsic(rewards, keys, conf, cited, eps=1e-4, singletons="zero") -> torch.Tensor:
    same = (keys[:, :, None] == keys[:, None, :]).to(rewards.dtype)  # (P, N, N)
    size = same.sum(-1, keepdim=True)  # (P, N, 1)
    r = rewards[:, :, None] * conf  # (P, N, M)
    mean = torch.einsum("pij,pjm->pim", same, r) / size
    sumsq = torch.einsum("pij,pjm->pim", same, (r - mean) ** 2)
    std = (sumsq / (size - 1).clamp(min=1)).sqrt()
    adv = torch.where(size > 1, (r - mean) / (std + eps), r if singletons == "raw" else 0 * r)
    return torch.where(cited, adv, torch.zeros_like(adv))
