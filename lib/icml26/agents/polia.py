"""POLIA: object-level intrinsic advantage in group-based RL (chapter 14).

Boxes are ``[x_min, y_min, x_max, y_max]`` in image coordinates normalised to ``[0, 1]``.
The answer-level advantage is the group-normalised one of :mod:`icml26.grpo` (shared with
chapter 04); this module adds the box IoU, the greedy matching rule, the object confidence
(:prf:ref:`polia-def-confidence`), the intrinsic advantage within visual-object groups
(:prf:ref:`polia-def-intrinsic`) and the toy "count-and-ground" training loop of the chapter.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch

from icml26 import checks
from icml26.grpo import group_advantages

__all__ = [
    "METHODS",
    "Run",
    "box_iou",
    "confidence",
    "evidence_keys",
    "greedy_match",
    "intrinsic_advantages",
    "train",
]

#: Methods of the chapter: (uses A_ext, uses A_int, unmatched-box penalty).
METHODS = {
    "GRPO": (True, False, False),
    "POLIA": (True, True, False),
    "w/o A_ext": (False, True, False),
    "POLIA-code": (True, True, True),
}


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
        raise ValueError(f"a and b must share batch dimensions, got {a.shape} and {b.shape}")
    a, b = a[..., :, None, :], b[..., None, :, :]
    w = (torch.minimum(a[..., 2], b[..., 2]) - torch.maximum(a[..., 0], b[..., 0])).clamp(min=0)
    h = (torch.minimum(a[..., 3], b[..., 3]) - torch.maximum(a[..., 1], b[..., 1])).clamp(min=0)
    inter = w * h
    area = lambda x: (x[..., 2] - x[..., 0]) * (x[..., 3] - x[..., 1])  # noqa: E731
    union = area(a) + area(b) - inter
    return torch.where(union > 0, inter / union.clamp(min=1e-300), torch.zeros_like(inter))


def confidence(
    pred: torch.Tensor, gt: torch.Tensor, *, w_iou: float = 0.7, w_l1: float = 0.3
) -> torch.Tensor:
    """Object confidence ``s = clip(w_iou * IoU + w_l1 * (1 - L1 centre distance / diag))``.

    Implements :prf:ref:`polia-def-confidence`, chapter 14, for boxes ``pred`` and ``gt`` of the
    same shape ``(..., 4)`` (elementwise, not pairwise); the image is the unit square, whose
    diagonal is ``sqrt(2)``.
    """
    _boxes("pred", pred)
    _boxes("gt", gt)
    if pred.shape != gt.shape:
        raise ValueError(f"pred and gt must have the same shape, got {pred.shape} and {gt.shape}")
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
    best, idx = iou.max(-1)
    return torch.where(best > threshold, idx, torch.full_like(idx, -1))


def evidence_keys(match: torch.Tensor, n_objects: int) -> torch.Tensor:
    """The evidence set ``S_i`` of every candidate as a bitmask over objects.

    ``match`` is ``(..., n_pred)`` from :func:`greedy_match`; the key sums ``2**o`` over the
    distinct matched objects ``o`` (so equal keys mean equal sets).
    """
    checks.tensor("match", match, dtype=torch.long)
    n_objects = checks.integer("n_objects", n_objects, low=1, high=62)
    if (match < -1).any() or (match >= n_objects).any():
        raise ValueError("match must hold object indices in [-1, n_objects)")
    return _cited_objects(match, n_objects).long().mul(2 ** torch.arange(n_objects)).sum(-1)


def _cited_objects(match: torch.Tensor, n_objects: int) -> torch.Tensor:
    """Boolean ``(..., n_objects)``: which objects a candidate's boxes matched."""
    onehot = torch.nn.functional.one_hot(match.clamp(min=0), n_objects).bool()
    return (onehot & (match >= 0)[..., None]).any(-2)


def intrinsic_advantages(
    rewards: torch.Tensor,
    keys: torch.Tensor,
    conf: torch.Tensor,
    cited: torch.Tensor,
    *,
    eps: float = 1e-4,
) -> torch.Tensor:
    """Object-level intrinsic advantages ``A_int[p, i, o]`` within visual-object groups.

    Implements :prf:ref:`polia-def-intrinsic`, chapter 14. ``rewards`` ``(P, N)`` are the
    extrinsic rewards ``R(c_i)`` of ``N`` candidates of ``P`` prompts, ``keys`` ``(P, N)`` their
    evidence sets (:func:`evidence_keys`), ``conf`` ``(P, N, M)`` the confidences ``s_{i,o}`` and
    ``cited`` ``(P, N, M)`` whether ``o`` is in ``S_i``. The corrected reward ``r = R * s`` is
    standardised (unbiased std, ``+ eps``) over the candidates with the same evidence set.
    Entries with ``o`` not in ``S_i``, and singleton groups, get 0 (the paper's formula is
    undefined there; the released code keeps the raw ``r``).
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
    same = (keys[:, :, None] == keys[:, None, :]).to(rewards.dtype)  # (P, N, N)
    size = same.sum(-1, keepdim=True)  # (P, N, 1)
    r = rewards[:, :, None] * conf  # (P, N, M)
    mean = torch.einsum("pij,pjm->pim", same, r) / size
    sumsq = torch.einsum("pij,pjm->pim", same, r * r)
    var = (sumsq - size * mean * mean).clamp(min=0) / (size - 1).clamp(min=1)
    std = var.sqrt()
    adv = (r - mean) / (std + eps)
    keep = cited & (size > 1)
    return torch.where(keep, adv, torch.zeros_like(adv))


@dataclass
class Run:
    """Curves of one method over iterations (rows) and seeds (columns)."""

    reward: torch.Tensor
    iou: torch.Tensor
    grounded: torch.Tensor
    groups: torch.Tensor
    unmatched: torch.Tensor
    offset: torch.Tensor


def _scenes(gen: torch.Generator, K: int, P: int, M: int):
    centre = 0.1 + 0.8 * torch.rand(K, P, M, 2, generator=gen, dtype=torch.float64)
    colour = torch.randint(0, 3, (K, P, M), generator=gen)
    asked = torch.randint(0, 3, (K, P, 1), generator=gen)
    relevant = colour == asked
    # at least one relevant object: make object 0 relevant when none is
    relevant[..., 0] |= ~relevant.any(-1)
    boxes = torch.cat([centre - 0.1, centre + 0.1], -1)
    return boxes, relevant


def train(
    method: str,
    *,
    seeds: int = 10,
    iters: int = 300,
    prompts: int = 8,
    members: int = 16,
    objects: int = 6,
    lr: float = 0.05,
    omega: float = 1.0,
    penalty: float = 1.0,
    seed: int = 0,
) -> Run:
    """Train the toy count-and-ground policy with ``method`` (a key of :data:`METHODS`).

    Implements :prf:ref:`polia-def-objective` with ``rho = 1`` (one update per batch), batched
    over ``seeds`` independent policies. Each candidate cites every object with probability
    ``sigmoid(w1 * [colour asked] + w0)``, adds a hallucinated box with probability
    ``sigmoid(h)``, and places a cited box at ``N(centre + b, s**2 I)``; the count is the number of
    boxes, and the answer is correct when it equals the number of relevant objects and no box
    that matches no object (IoU <= 0.5) is misread (probability 1/2 each).
    """
    if method not in METHODS:
        raise ValueError(f"method must be one of {sorted(METHODS)}, got {method!r}")
    K = checks.integer("seeds", seeds, low=1)
    T = checks.integer("iters", iters, low=1)
    P = checks.integer("prompts", prompts, low=1)
    N = checks.integer("members", members, low=2)
    M = checks.integer("objects", objects, low=1, high=30)
    lr = checks.real("lr", lr, low=0.0, strict=True)
    omega = checks.real("omega", omega, low=0.0)
    penalty = checks.real("penalty", penalty, low=0.0)
    use_ext, use_int, use_pen = METHODS[method]
    gen = torch.Generator().manual_seed(checks.integer("seed", seed, low=0))
    f64 = torch.float64
    w = torch.tensor([0.5, -0.5, 0.0], dtype=f64).repeat(K, 1).requires_grad_()
    b = torch.tensor([0.12, -0.08], dtype=f64).repeat(K, 1).requires_grad_()
    log_s = torch.full((K, 1), math.log(0.08), dtype=f64, requires_grad=True)
    opt = torch.optim.Adam([w, b, log_s], lr=lr)
    curves = {k: torch.zeros(T, K, dtype=f64) for k in Run.__dataclass_fields__}
    curves["offset"] = torch.zeros(T, K, 2, dtype=f64)
    for t in range(T):
        gt, rel = _scenes(gen, K, P, M)  # (K,P,M,4), (K,P,M)
        gtx = gt[:, :, None].expand(K, P, N, M, 4)
        relx = rel[:, :, None].expand(K, P, N, M)
        logit = w[:, None, None, None, 0] * relx + w[:, None, None, None, 1]
        cite = torch.rand(K, P, N, M, generator=gen, dtype=f64) < torch.sigmoid(logit).detach()
        lp_cite = -torch.nn.functional.binary_cross_entropy_with_logits(
            logit, cite.to(f64), reduction="none"
        ).sum(-1)
        h_logit = w[:, 2, None, None].expand(K, P, N)
        hall = torch.rand(K, P, N, generator=gen, dtype=f64) < torch.sigmoid(h_logit).detach()
        lp_hall = -torch.nn.functional.binary_cross_entropy_with_logits(
            h_logit, hall.to(f64), reduction="none"
        )
        s = log_s.exp()[:, None, None, None]
        z = torch.randn(K, P, N, M, 2, generator=gen, dtype=f64)
        mu = (gtx[..., :2] + gtx[..., 2:]) / 2 + b[:, None, None, None, :]
        ctr = (mu + s * z).detach()
        lp_box = (-((ctr - mu) ** 2) / (2 * s**2) - torch.log(s)).sum(-1)  # (K,P,N,M)
        pred = torch.cat([ctr - 0.1, ctr + 0.1], -1)
        hc = 0.1 + 0.8 * torch.rand(K, P, N, 1, 2, generator=gen, dtype=f64)
        pred = torch.cat([pred, torch.cat([hc - 0.1, hc + 0.1], -1)], 3)  # M+1 slots
        present = torch.cat([cite, hall[..., None]], -1)
        gt_rel = torch.where(relx[..., None], gtx, torch.full_like(gtx, 5.0))  # far if irrelevant
        iou = box_iou(pred.reshape(-1, M + 1, 4), gt_rel.reshape(-1, M, 4))
        iou = iou.reshape(K, P, N, M + 1, M) * present[..., None]
        match = torch.where(
            present, greedy_match(iou), torch.full_like(present, -1, dtype=torch.long)
        )
        hit = match >= 0
        own_iou = torch.diagonal(iou[..., :M, :], dim1=-2, dim2=-1)  # cited object vs itself
        misread = (present & ~hit) & (torch.rand(K, P, N, M + 1, generator=gen, dtype=f64) < 0.5)
        count = present.sum(-1)
        correct = (count == rel.sum(-1)[:, :, None]) & ~misread.any(-1)
        R = correct.to(f64) + 0.5 * (count > 0).to(f64)
        A_ext = group_advantages(R.reshape(K * P, N)).reshape(K, P, N)
        if use_pen:
            A_ext = A_ext - penalty * (present & ~hit).sum(-1)
        A_ext = A_ext if use_ext else torch.zeros_like(A_ext)
        # confidence of the box matched to each object (max over duplicates), per object o
        gt_of = torch.gather(
            gtx[..., None, :, :].expand(K, P, N, M + 1, M, 4),
            4,
            match.clamp(min=0)[..., None, None].expand(K, P, N, M + 1, 1, 4),
        )[..., 0, :]
        conf_box = torch.where(hit, confidence(pred, gt_of), torch.zeros_like(own_iou[..., :1]))
        onehot = torch.nn.functional.one_hot(match.clamp(min=0), M).bool() & hit[..., None]
        conf = (conf_box[..., None] * onehot).amax(-2)  # (K,P,N,M)
        cited = onehot.any(-2)
        keys = evidence_keys(match, M)
        A_int = intrinsic_advantages(
            R.reshape(K * P, N),
            keys.reshape(K * P, N),
            conf.reshape(K * P, N, M),
            cited.reshape(K * P, N, M),
        ).reshape(K, P, N, M)
        # coordinate tokens of object-slot box o carry A_int of the object it matched
        A_box = torch.gather(A_int, 3, match[..., :M].clamp(min=0)) * hit[..., :M]
        A_box = omega * A_box if use_int else torch.zeros_like(A_box)
        seq_lp = lp_cite + lp_hall + (lp_box * cite).sum(-1)
        surrogate = A_ext * seq_lp + (A_box * lp_box * cite).sum(-1)
        loss = -surrogate.mean((1, 2)).sum()
        opt.zero_grad()
        loss.backward()
        opt.step()
        with torch.no_grad():
            rel_cited = relx & cite
            n_rc = rel_cited.sum((1, 2, 3)).clamp(min=1)
            curves["reward"][t] = R.mean((1, 2))
            curves["iou"][t] = (own_iou * rel_cited).sum((1, 2, 3)) / n_rc
            full = cited.eq(relx).all(-1)
            curves["grounded"][t] = (correct & full).to(f64).mean((1, 2))
            nd = (keys[..., :, None] == keys[..., None, :]).to(f64).sum(-1)
            curves["groups"][t] = (1 / nd).sum(-1).mean(-1)
            curves["unmatched"][t] = (present & ~hit).sum((1, 2, 3)) / present.sum((1, 2, 3)).clamp(
                min=1
            )
            curves["offset"][t] = b.detach()
    return Run(**curves)
