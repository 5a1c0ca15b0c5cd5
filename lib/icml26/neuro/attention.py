"""Region-channel-temporal attention: masks, their cost, and two kernels (chapter 19, rector).

The intra-region block mask (:prf:ref:`rector-def-mask`), the masks of the three levels of
one layer and their exact count of scored entries (:prf:ref:`rector-prop-cost`), masked
attention through PyTorch's fused kernel, and the block-sparse kernel that scores only the
blocks (:prf:ref:`rector-prop-exact`). Tokens are time-major: token ``τ·C + c``.
"""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F

from icml26 import checks

__all__ = [
    "attention_cost",
    "block_mask",
    "block_sparse_attention",
    "level_masks",
    "masked_attention",
    "region_ids",
]


def region_ids(name: str, regions: object) -> torch.Tensor:
    """``regions`` as a non-empty ``long`` vector of non-negative integer region ids."""
    a = regions.cpu().numpy() if isinstance(regions, torch.Tensor) else np.asarray(regions)
    if a.dtype == bool or not np.issubdtype(a.dtype, np.integer):
        raise ValueError(f"{name} must hold integer region ids, got dtype {a.dtype}")
    r = torch.as_tensor(a.astype(np.int64))
    checks.shape(name, r, (None,))
    if len(r) == 0 or int(r.min()) < 0:
        raise ValueError(f"{name} must be a non-empty vector of non-negative region ids")
    return r


def _qkv(q: object, k: object, v: object) -> None:
    """Queries, keys and values: floating-point tensors of one shape, finite."""
    ts = {}
    for name, t in (("q", q), ("k", k), ("v", v)):
        ts[name] = t = checks.tensor(name, t, floating=True)
        if t.ndim < 2:
            raise ValueError(f"{name} must have at least 2 dimensions, got {tuple(t.shape)}")
        checks.finite(name, t)
    if not ts["q"].shape == ts["k"].shape == ts["v"].shape:
        got = ", ".join(f"{n} {tuple(t.shape)}" for n, t in ts.items())
        raise ValueError(f"q, k and v must have one shape, got {got}")


def block_mask(regions: object, T: int) -> torch.Tensor:
    """Intra-region mask ``M¹`` on ``C·T`` time-major tokens (:prf:ref:`rector-def-mask`).

    ``True`` = allowed (the convention of ``scaled_dot_product_attention``).
    """
    r = region_ids("regions", regions)
    T = checks.integer("T", T, low=1)
    same = r[:, None] == r[None]
    return torch.block_diag(*[same] * T)


def level_masks(regions: object, T: int) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """The three masks of one RECTOR-SA layer (:prf:ref:`rector-prop-cost`).

    Channel level ``(CT, CT)`` = :func:`block_mask`; region level ``(RT, RT)``: same patch;
    temporal level ``(RT, RT)``: same region. Region tokens are time-major, ``τ·R + r``.
    """
    r = region_ids("regions", regions)
    T = checks.integer("T", T, low=1)
    R = len(torch.unique(r))
    tau = torch.arange(R * T) // R
    reg = torch.arange(R * T) % R
    return block_mask(r, T), tau[:, None] == tau[None], reg[:, None] == reg[None]


def attention_cost(sizes: object, T: int) -> tuple[int, int]:
    """Score entries of RECTOR-SA, ``T Σ n_r² + T R² + R T²``, and of dense ``(C T)²``."""
    n = np.asarray(sizes)
    if n.dtype == bool or not np.issubdtype(n.dtype, np.integer):
        raise ValueError(f"sizes must be integer region sizes, got dtype {n.dtype}")
    if n.ndim != 1 or len(n) == 0 or (n < 1).any():
        raise ValueError(f"sizes must be a vector of positive region sizes, got {sizes!r}")
    T = checks.integer("T", T, low=1)
    n = n.astype(np.int64)
    R, C = len(n), int(n.sum())
    return int(T * (n**2).sum() + T * R * R + R * T * T), (C * T) ** 2


def masked_attention(
    q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, mask: torch.Tensor
) -> torch.Tensor:
    """``softmax(QKᵀ/√d + log M) V`` through SDPA with a boolean ``mask`` (True = allowed).

    ``q, k, v`` are ``(..., n, d)``; ``mask`` is ``(n, n)`` (:prf:ref:`rector-prop-exact`).
    """
    _qkv(q, k, v)
    checks.tensor("mask", mask)
    checks.shape("mask", mask, (q.shape[-2], q.shape[-2]))
    if mask.dtype != torch.bool:
        raise ValueError("mask must be boolean (True = allowed)")
    return F.scaled_dot_product_attention(q, k, v, attn_mask=mask)


def block_sparse_attention(
    q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, regions: object
) -> torch.Tensor:
    """Within-region channel attention computed on the blocks only (the fast kernel).

    ``q, k, v`` are ``(..., T, C, d)``; channels are gathered region by region into a padded
    ``(..., T, R, n_max, d)`` tensor, so the cost is ``T R n_max²`` instead of ``(C T)²``.
    """
    _qkv(q, k, v)
    r = region_ids("regions", regions)
    if len(r) != q.shape[-2]:
        raise ValueError(f"regions must have one entry per channel ({q.shape[-2]}), got {len(r)}")
    ids, r = torch.unique(r, return_inverse=True)
    R = len(ids)
    counts = torch.bincount(r, minlength=R)
    n_max = int(counts.max())
    order = torch.argsort(r, stable=True)
    start = torch.cumsum(counts, 0) - counts
    slot = torch.arange(len(r)) - start[r[order]]
    index = torch.zeros(R, n_max, dtype=torch.long)
    valid = torch.zeros(R, n_max, dtype=torch.bool)
    index[r[order], slot] = order
    valid[r[order], slot] = True
    index, valid = index.to(q.device), valid.to(q.device)
    qb, kb, vb = (t[..., index, :] for t in (q, k, v))  # (..., T, R, n_max, d)
    allowed = valid[:, None, :].expand(R, n_max, n_max)
    out = F.scaled_dot_product_attention(qb, kb, vb, attn_mask=allowed)
    res = torch.empty_like(q)
    res[..., index[valid], :] = out[..., valid, :]
    return res
