"""Optimised embeddings of chapter 01 (med).

Gradient-based margin optimisation (:func:`optimize_margin`) and the free-embedding InfoNCE
protocol of Weller et al. (2025) (:func:`train_free_embeddings`).
"""

from __future__ import annotations

import torch

from icml26 import checks
from icml26.retrieval.med.constructions import _check_mk, _selection_mask, all_subsets
from icml26.retrieval.med.margins import subset_margins

Tensor = torch.Tensor

__all__ = [
    "optimize_margin",
    "train_free_embeddings",
]


# --------------------------------------------------------------------------- optimisation
def optimize_margin(
    m: int,
    k: int,
    d: int,
    *,
    queries: str = "free",
    steps: int = 2000,
    lr: float = 0.05,
    beta: float = 200.0,
    generator: torch.Generator,
    dtype: torch.dtype = torch.float64,
) -> tuple[Tensor, Tensor, float]:
    """Gradient ascent on the smallest normalised margin over all ``k``-subsets (chapter 01).

    Unit object vectors ``X`` (``m x d``) and, with ``queries="free"``, one unit query per subset
    are parametrised by unconstrained tensors and normalised; with ``queries="centroid"`` the
    query is the normalised centroid (centroid-query optimisation). The smooth objective is the
    soft-min ``-(1/beta) log sum exp(-beta * gap)`` over all selected/unselected pairs, maximised
    with Adam. Returns ``(X, U, margin)`` where ``margin`` is the exact smallest margin.
    """
    m, k = _check_mk(m, k)
    d = checks.integer("d", d, low=1)
    steps = checks.integer("steps", steps, low=1)
    lr = checks.real("lr", lr, low=0.0, strict=True)
    beta = checks.real("beta", beta, low=0.0, strict=True)
    if queries not in ("free", "centroid"):
        raise ValueError(f"queries must be 'free' or 'centroid', got {queries!r}")
    dev = generator.device
    subsets = all_subsets(m, k, device=dev)
    sel = _selection_mask(subsets, m)
    pair_mask = sel[:, :, None] & ~sel[:, None, :]  # (B, m, m): i in S, j notin S
    P = torch.randn(m, d, generator=generator, dtype=dtype, device=dev).requires_grad_(True)
    params = [P]
    if queries == "free":
        Qp = torch.randn(len(subsets), d, generator=generator, dtype=dtype, device=dev)
        Qp = Qp.requires_grad_(True)
        params.append(Qp)
    opt = torch.optim.Adam(params, lr=lr)

    def current() -> tuple[Tensor, Tensor]:
        X = P / P.norm(dim=1, keepdim=True)
        if queries == "free":
            U = Qp / Qp.norm(dim=1, keepdim=True)
        else:
            c = X[subsets].sum(dim=1)
            U = c / c.norm(dim=1, keepdim=True)
        return X, U

    for _ in range(steps):
        X, U = current()
        s = U @ X.T
        gaps = (s[:, :, None] - s[:, None, :])[pair_mask]
        loss = torch.logsumexp(-beta * gaps, dim=0) / beta
        opt.zero_grad()
        loss.backward()
        opt.step()
    with torch.no_grad():
        X, U = current()
        margin = float(subset_margins(X, U, subsets).min())
    return X.detach(), U.detach(), margin


def train_free_embeddings(
    relevance: Tensor,
    d: int,
    *,
    doc_mask: Tensor | None = None,
    query_mask: Tensor | None = None,
    dims: Tensor | None = None,
    steps: int = 2000,
    lr: float = 0.01,
    temperature: float = 0.1,
    check_every: int = 50,
    generator: torch.Generator,
) -> tuple[Tensor, Tensor, Tensor]:
    """Free-embedding optimisation of Weller et al. (2025), batched over problems (chapter 01).

    ``relevance`` is a boolean ``(P, Q, n)`` tensor (``P`` problems, padded to ``Q`` queries and
    ``n`` documents; ``doc_mask`` ``(P, n)`` / ``query_mask`` ``(P, Q)`` mark the real ones;
    ``dims`` ``(P,)`` gives each problem its own dimension ``<= d``: the extra coordinates start
    at zero and, having zero gradient, stay zero, so padded problems are solved exactly). Query
    and document vectors in ``R^d`` are trained directly with full-batch InfoNCE (temperature
    ``temperature``, all documents as negatives), Adam, and renormalised to unit length after
    every step, as in the published protocol. Every ``check_every`` steps the top-``k`` accuracy
    (``k`` = number of relevant documents) is evaluated on the device.

    Returns ``(solved, Qe, De)``: ``solved[p]`` is true when problem ``p`` reached 100 % top-k
    accuracy at some check, and the final unit embeddings.
    """
    if not isinstance(relevance, torch.Tensor) or relevance.dtype != torch.bool:
        raise ValueError("relevance must be a boolean torch tensor of shape (P, Q, n)")
    checks.shape("relevance", relevance, (None, None, None))
    d = checks.integer("d", d, low=1)
    steps = checks.integer("steps", steps, low=1)
    check_every = checks.integer("check_every", check_every, low=1)
    lr = checks.real("lr", lr, low=0.0, strict=True)
    temperature = checks.real("temperature", temperature, low=0.0, strict=True)
    P_, Q_, n_ = relevance.shape
    doc_mask, query_mask = _masks(relevance, doc_mask, query_mask)
    qe, de = _initial_embeddings(P_, Q_, n_, d, dims, generator, relevance.device)
    opt = torch.optim.Adam([qe, de], lr=lr)
    rel = relevance & query_mask[:, :, None] & doc_mask[:, None, :]
    relf = rel.float() / rel.sum(dim=(1, 2), keepdim=True).clamp_min(1).float()
    # padded documents get a large negative logit (finite, so that 0 * logp stays 0)
    pad = torch.where(doc_mask, 0.0, -1e4)[:, None, :]
    solved = torch.zeros(P_, dtype=torch.bool, device=relevance.device)
    inv_t = 1.0 / temperature
    for step in range(steps):
        logits = torch.baddbmm(pad, qe, de.transpose(1, 2), alpha=inv_t)
        loss = -(torch.log_softmax(logits, dim=2) * relf).sum()
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        with torch.no_grad():
            qe.div_(qe.norm(dim=-1, keepdim=True))
            de.div_(de.norm(dim=-1, keepdim=True))
        if (step + 1) % check_every == 0 or step == steps - 1:
            solved |= _top_k_solved(qe, de, pad, rel, query_mask)
    return solved, qe.detach(), de.detach()


def _masks(
    relevance: Tensor, doc_mask: Tensor | None, query_mask: Tensor | None
) -> tuple[Tensor, Tensor]:
    """The real documents ``(P, n)`` (all by default) and queries ``(P, Q)`` (by default those
    with a relevant document) of :func:`train_free_embeddings`."""
    P_, Q_, n_ = relevance.shape
    if doc_mask is None:
        doc_mask = torch.ones(P_, n_, dtype=torch.bool, device=relevance.device)
    if query_mask is None:
        query_mask = relevance.any(dim=2)
    checks.shape("doc_mask", doc_mask, (P_, n_))
    checks.shape("query_mask", query_mask, (P_, Q_))
    return doc_mask, query_mask


def _initial_embeddings(
    P_: int,
    Q_: int,
    n_: int,
    d: int,
    dims: Tensor | None,
    generator: torch.Generator,
    dev: torch.device,
) -> tuple[Tensor, Tensor]:
    """Random unit query ``(P, Q, d)`` and document ``(P, n, d)`` vectors, zero beyond each
    problem's dimension ``dims[p]``, ready for Adam."""
    qe = torch.randn(P_, Q_, d, generator=generator, device=dev)
    de = torch.randn(P_, n_, d, generator=generator, device=dev)
    if dims is not None:
        checks.shape("dims", dims, (P_,))
        if int(dims.min()) < 1 or int(dims.max()) > d:
            raise ValueError(f"dims must lie in [1, d={d}]")
        keep = (torch.arange(d, device=dev)[None, :] < dims.to(dev)[:, None]).float()
        qe, de = qe * keep[:, None, :], de * keep[:, None, :]
    qe = (qe / qe.norm(dim=-1, keepdim=True)).requires_grad_(True)
    de = (de / de.norm(dim=-1, keepdim=True)).requires_grad_(True)
    return qe, de


def _top_k_solved(qe: Tensor, de: Tensor, pad: Tensor, rel: Tensor, query_mask: Tensor) -> Tensor:
    """``(P,)``: every real query of problem ``p`` ranks exactly its ``k`` relevant documents
    first (``k`` = their number), computed on the device."""
    kq = rel.sum(dim=2)  # relevant documents per query
    kmax = max(int(kq.max()), 1)
    rank_ok = torch.arange(kmax, device=rel.device)[None, None, :] < kq[:, :, None]
    with torch.no_grad():
        top = (torch.bmm(qe, de.transpose(1, 2)) + pad).topk(kmax, dim=2).indices
        hit = rel.gather(2, top) & rank_ok
        good = (hit.sum(dim=2) == kq) | ~query_mask
        return good.all(dim=1)
