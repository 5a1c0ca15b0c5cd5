"""Self-supervised pre-training of the RECTOR encoder (chapter 19, rector), a reconstruction.

Structured multi-view masking and the three objectives — masked prediction, topology
(connectivity) prediction, cross-view consistency — of :prf:ref:`rector-def-views`, and the
pre-training loop that moves the partition from anatomy to the functional regions the
windows' phase-locking shows (:prf:ref:`rector-def-afp`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from icml26 import checks
from icml26.neuro.attention import region_ids
from icml26.neuro.connectivity import phase_sum
from icml26.neuro.encoder import RectorEncoder, channel_graph
from icml26.neuro.partition import adaptive_partition, align_labels

__all__ = [
    "MASK_KINDS",
    "PretrainResult",
    "masked_prediction_error",
    "pretrain",
    "rector_losses",
    "structured_mask",
]

#: The structured masks a view can combine.
MASK_KINDS = ("region", "channel", "time")


def _kinds(kinds: object) -> tuple[str, ...]:
    if isinstance(kinds, str) or not isinstance(kinds, tuple | list):
        raise ValueError(f"kinds must be a tuple of mask kinds, got {kinds!r}")
    if not kinds or any(k not in MASK_KINDS for k in kinds):
        raise ValueError(f"kinds must be a non-empty subset of {MASK_KINDS}, got {kinds!r}")
    return tuple(kinds)


def structured_mask(
    B: int,
    regions: object,
    T: int,
    kinds: tuple[str, ...],
    generator: torch.Generator,
    *,
    channel_p: float = 0.25,
) -> torch.Tensor:
    """One masked view ``(B, C, T)`` (:prf:ref:`rector-def-views`), ``True`` = masked.

    ``"region"``: one random region over a random span of ``T/2`` patches; ``"channel"``: each
    channel with probability ``channel_p`` over all patches; ``"time"``: a contiguous span of
    ``T/4`` patches on all channels (``T/2`` when it is the only kind).
    """
    B = checks.integer("B", B, low=1)
    r = region_ids("regions", regions)
    T = checks.integer("T", T, low=1)
    kinds = _kinds(kinds)
    checks.real("channel_p", channel_p, low=0.0, high=1.0)
    if not isinstance(generator, torch.Generator):
        raise ValueError(f"generator must be a torch.Generator, got {type(generator).__name__}")
    C = len(r)
    ids = torch.unique(r)
    t = torch.arange(T)
    m = torch.zeros(B, C, T, dtype=torch.bool)
    if "region" in kinds:
        span = max(T // 2, 1)
        pick = ids[torch.randint(len(ids), (B,), generator=generator)]
        s = torch.randint(T - span + 1, (B, 1), generator=generator)
        m |= (r[None] == pick[:, None])[:, :, None] & ((t >= s) & (t < s + span))[:, None]
    if "channel" in kinds:
        m |= (torch.rand(B, C, generator=generator) < channel_p)[:, :, None]
    if "time" in kinds:
        span = max(T // 2 if kinds == ("time",) else T // 4, 1)
        s = torch.randint(T - span + 1, (B, 1), generator=generator)
        m |= ((t >= s) & (t < s + span))[:, None]
    return m


def _window_correlation(x: torch.Tensor) -> torch.Tensor:
    """Per-window channel correlation ``(B, C, C)`` of patches ``(B, C, T, P)``."""
    flat = x.reshape(*x.shape[:2], -1)
    flat = flat - flat.mean(-1, keepdim=True)
    flat = flat / flat.norm(dim=-1, keepdim=True).clamp(min=1e-12)
    return flat @ flat.transpose(1, 2)


def rector_losses(
    enc: RectorEncoder,
    heads: nn.ModuleDict,
    x: torch.Tensor,
    pos: torch.Tensor,
    regions: object,
    views: tuple[torch.Tensor, torch.Tensor],
    *,
    weights: tuple[float, float, float] = (1.0, 0.5, 0.5),
    temperature: float = 0.1,
    over_time: bool = False,
    hide_masked: bool = False,
) -> dict[str, torch.Tensor]:
    """The three objectives (:prf:ref:`rector-def-views`) on two masked views of ``x``.

    MPM: MSE of the decoded masked patches; TSM: ``|H Hᵀ - G|²_F / C²`` with ``G`` the
    window's channel correlation (:func:`~icml26.neuro.encoder.channel_graph`, of the
    time-pooled tokens or, with ``over_time=True``, of the token trajectories); CVC: InfoNCE
    between the pooled views. ``heads`` holds ``"decoder"`` (d→P) and ``"project"`` (d→d).
    With ``hide_masked=True`` the encoder cannot read the masked tokens
    (:class:`~icml26.neuro.encoder.RectorEncoder`) and each view is pooled over its visible
    tokens only, so cross-view consistency asks two different channel subsets for the same
    embedding. Also returned, detached: ``"G"`` and the encoder's ``"graph"`` (mean of the
    two views).
    """
    if not isinstance(enc, RectorEncoder):
        raise ValueError(f"enc must be a RectorEncoder, got {type(enc).__name__}")
    checks.tensor("x", x, ndim=4, floating=True)
    checks.real("temperature", temperature, low=0.0, strict=True)
    if len(weights) != 3 or any(not np.isfinite(w) or w < 0 for w in weights):
        raise ValueError(f"weights must be three non-negative numbers, got {weights!r}")
    for flag, value in (("over_time", over_time), ("hide_masked", hide_masked)):
        if not isinstance(value, bool):
            raise ValueError(f"{flag} must be True or False, got {value!r}")
    if len(views) != 2:
        raise ValueError(f"views must be a pair of masks, got {len(views)}")
    x = x.to(enc.time_emb.device, enc.time_emb.dtype)
    B = x.shape[0]
    G = _window_correlation(x)
    m = torch.cat([v.to(x.device) for v in views])  # both views in one forward pass
    x2 = torch.cat([x, x])
    h = enc(x2, pos, regions, masked=m, hide_masked=hide_masked)  # (2B, T, C, d)
    rec = heads["decoder"](h).transpose(1, 2)  # (2B, C, T, P)
    mpm = ((rec - x2) ** 2).mean(-1)[m].mean()
    graph = channel_graph(h, over_time=over_time)
    tsm = ((graph - torch.cat([G, G])) ** 2).mean()
    if hide_masked:  # each view's embedding: the mean of the tokens it shows
        seen = (~m).transpose(1, 2)[..., None].to(h.dtype)  # (2B, T, C, 1)
        u = (h * seen).sum((1, 2)) / seen.sum((1, 2)).clamp(min=1)
    else:
        u = h.mean((1, 2))
    u = F.normalize(heads["project"](u), dim=-1)
    logits = u[:B] @ u[B:].T / temperature
    cvc = F.cross_entropy(logits, torch.arange(B, device=x.device))
    total = weights[0] * mpm + weights[1] * tsm + weights[2] * cvc
    pair = graph.detach().reshape(2, B, *graph.shape[1:]).mean(0)
    return {"total": total, "mpm": mpm, "tsm": tsm, "cvc": cvc, "G": G.detach(), "graph": pair}


def masked_prediction_error(
    enc: RectorEncoder,
    decoder: nn.Module,
    x: torch.Tensor,
    pos: object,
    regions: object,
    masked: torch.Tensor,
    *,
    batch: int = 256,
    hide_masked: bool = False,
) -> tuple[float, float]:
    """The masked-prediction error of a frozen encoder and decoder on windows ``x``.

    ``x`` ``(N, C, T, P)`` are per-channel z-scored patches and ``masked`` ``(N, C, T)`` the
    tokens replaced by [MASK] (:prf:ref:`rector-def-views`). Returns the mean squared error
    of the decoded masked patches and, on the same tokens, that of predicting zero (the
    patch's expected value after z-scoring; about 1): an encoder that learned nothing from
    the unmasked tokens scores no better than the second number. ``hide_masked`` must be
    what the encoder was pre-trained with (:func:`pretrain`).
    """
    if not isinstance(enc, RectorEncoder):
        raise ValueError(f"enc must be a RectorEncoder, got {type(enc).__name__}")
    if not isinstance(decoder, nn.Module):
        raise ValueError(f"decoder must be a torch module, got {type(decoder).__name__}")
    checks.tensor("x", x, ndim=4, floating=True)
    checks.finite("x", x)
    checks.tensor("masked", masked, dtype=torch.bool)
    checks.shape("masked", masked, tuple(x.shape[:3]))
    if not bool(masked.any()):
        raise ValueError("masked must mask at least one token")
    batch = checks.integer("batch", batch, low=1)
    pos_t = torch.as_tensor(checks.as_float64("pos", pos), dtype=torch.float32)
    dev, dtype = enc.time_emb.device, enc.time_emb.dtype
    err = zero = 0.0
    with torch.inference_mode():
        for i in range(0, len(x), batch):
            xb = x[i : i + batch].to(dev, dtype)
            mb = masked[i : i + batch].to(dev)
            h = enc(xb, pos_t, regions, masked=mb, hide_masked=hide_masked)
            rec = decoder(h).transpose(1, 2)
            err += float(((rec - xb) ** 2).mean(-1)[mb].double().sum())
            zero += float((xb**2).mean(-1)[mb].double().sum())
    n = int(masked.sum())
    return err / n, zero / n


@dataclass
class PretrainResult:
    """Loss history ``(steps, 4)`` (total, MPM, TSM, CVC), the partitions visited (the
    anatomical one first), the final partition, the phase-locking affinity of the windows
    seen, from which the last partition was drawn, and the trained heads: ``"decoder"``
    (d→P, the masked prediction) and ``"project"`` (d→d, the cross-view projection)."""

    history: np.ndarray
    partitions: list[np.ndarray]
    regions: np.ndarray
    affinity: np.ndarray
    heads: nn.ModuleDict


def _check_pretrain(enc: object, x: object, pos: object, anatomical: object, n: dict) -> None:
    if not isinstance(enc, RectorEncoder):
        raise ValueError(f"enc must be a RectorEncoder, got {type(enc).__name__}")
    x = checks.tensor("x", x, ndim=4, floating=True)
    checks.shape("pos", np.asarray(pos), (x.shape[1], 3))
    region_ids("anatomical", anatomical)
    checks.shape("anatomical", np.asarray(anatomical), (x.shape[1],))
    checks.integer("steps", n["steps"], low=1)
    checks.integer("batch", n["batch"], low=2, high=len(x))
    checks.integer("afp_every", n["afp_every"], low=1)
    checks.integer("k_functional", n["k_functional"], low=1, high=x.shape[1])
    checks.integer("seed", n["seed"], low=0)
    checks.real("lr", n["lr"], low=0.0, strict=True)
    checks.real("fs", n["fs"], low=0.0, strict=True)
    phase_sum(x[:1].reshape(1, x.shape[1], -1).cpu().numpy(), n["fs"], n["band"])  # the band
    _kinds(n["kinds"])
    for flag in ("over_time", "hide_masked"):
        if not isinstance(n[flag], bool):
            raise ValueError(f"{flag} must be True or False, got {n[flag]!r}")


def _train_step(
    enc: RectorEncoder,
    heads: nn.ModuleDict,
    opt: torch.optim.Optimizer,
    xb: torch.Tensor,
    pos: torch.Tensor,
    regions: np.ndarray,
    kinds: tuple[str, ...],
    gen: torch.Generator,
    weights: tuple[float, float, float],
    flags: dict[str, bool],
) -> list[float]:
    """One AdamW step on two structured views of the batch ``xb``; the four losses."""
    views = (
        structured_mask(len(xb), regions, enc.T, kinds, gen),
        structured_mask(len(xb), regions, enc.T, kinds, gen),
    )
    losses = rector_losses(enc, heads, xb, pos, regions, views, weights=weights, **flags)
    opt.zero_grad()
    losses["total"].backward()
    opt.step()
    return [float(losses[k].detach()) for k in ("total", "mpm", "tsm", "cvc")]


def pretrain(
    enc: RectorEncoder,
    x: torch.Tensor,
    pos: np.ndarray,
    anatomical: np.ndarray,
    *,
    steps: int,
    batch: int,
    kinds: tuple[str, ...],
    seed: int,
    k_functional: int = 5,
    afp_every: int = 25,
    lr: float = 1e-3,
    fs: float = 128.0,
    band: tuple[float, float] = (4.0, 40.0),
    weights: tuple[float, float, float] = (1.0, 0.5, 0.5),
    over_time: bool = False,
    hide_masked: bool = False,
    progress: Callable[[Iterable[int]], Iterable[int]] | None = None,
) -> PretrainResult:
    """Pre-train ``enc`` on patches ``x`` ``(N, C, T, P)`` (:prf:ref:`rector-def-afp`).

    Every ``afp_every`` steps the partition is recomputed with
    :func:`~icml26.neuro.partition.adaptive_partition` from the phase-locking value in
    ``band`` of all the windows seen so far (sampled at ``fs``), with ``η`` rising linearly
    from 0 to 1 over the first ``steps - afp_every`` steps, and aligned to the previous
    partition; the block mask follows it. No update follows the last step: the encoder
    is returned with the partition its last ``afp_every`` steps trained under (``η = 1``
    when ``steps > afp_every``; with fewer steps the partition stays anatomical).
    ``over_time`` picks the topology objective's graph and ``hide_masked`` whether the
    encoder may read the masked tokens (:func:`rector_losses`).
    """
    _check_pretrain(enc, x, pos, anatomical, locals())
    gen = torch.Generator().manual_seed(seed)
    dev, dtype = enc.time_emb.device, enc.time_emb.dtype
    heads = nn.ModuleDict(
        {"decoder": nn.Linear(enc.d, enc.patch), "project": nn.Linear(enc.d, enc.d)}
    ).to(dev, dtype)
    opt = torch.optim.AdamW([*enc.parameters(), *heads.parameters()], lr=lr, weight_decay=0.01)
    pos_t = torch.as_tensor(np.asarray(pos), dtype=torch.float32)
    anatomical = np.asarray(anatomical)
    regions, seen = anatomical.copy(), 0
    phases: float | np.ndarray = 0.0
    partitions, hist = [regions.copy()], []
    ramp = max(steps - afp_every, 1)  # η reaches 1 here, a full interval before the end
    affinity = None
    flags = {"over_time": over_time, "hide_masked": hide_masked}
    enc.train()
    for step in progress(range(steps)) if progress is not None else range(steps):
        xb = x[torch.randint(len(x), (batch,), generator=gen)]
        hist.append(_train_step(enc, heads, opt, xb, pos_t, regions, kinds, gen, weights, flags))
        phases = phases + phase_sum(xb.reshape(batch, x.shape[1], -1).cpu().numpy(), fs, band)
        seen += batch
        if ((step + 1) % afp_every == 0 and step + 1 < steps) or step + 1 == ramp < steps:
            affinity = np.abs(phases / seen).mean(-1)
            eta = min((step + 1) / ramp, 1.0)
            new = adaptive_partition(anatomical, affinity, eta, k_functional, seed=seed)
            regions = align_labels(new, regions)
            partitions.append(regions.copy())
    if affinity is None:  # no update: the affinity of all the windows seen
        affinity = np.abs(phases / seen).mean(-1)
    enc.eval()
    heads.eval()
    return PretrainResult(np.array(hist), partitions, regions, affinity, heads)
