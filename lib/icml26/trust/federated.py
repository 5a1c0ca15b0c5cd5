"""Federated averaging with all clients batched, and the fine-tuning attack (chapter 17).

Implements, for chapter 17 (threshold-watermark), the training side of
:prf:ref:`threshold-watermark-def-fedavg`: the bundled digits data and its IID and
Dirichlet (non-IID) client partitions, federated averaging with every client's local AdamW
step and watermark embedding as one batched computation (several independent federations
side by side), and the attacker's fine-tuning. The model, the keys and the detection
statistic are in :mod:`icml26.trust.watermark`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch

from icml26 import checks
from icml26.trust.adamw import AdamWState, adamw_step
from icml26.trust.watermark import _base_ndim, _params, client_losses

__all__ = [
    "FedAvgResult",
    "digits_data",
    "dirichlet_partition",
    "fedavg",
    "finetune",
    "iid_partition",
    "pad_shards",
]


# --- data and partitions -----------------------------------------------------------------


def digits_data(
    test_fraction: float = 0.2, seed: int = 0, *, device: torch.device | str = "cpu"
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    """scikit-learn's bundled 8×8 digits, split and standardised by the training statistics.

    Returns ``(X_train, y_train, X_test, y_test)`` (float32 features, int64 labels).
    """
    from sklearn.datasets import load_digits
    from sklearn.model_selection import train_test_split

    f = checks.real("test_fraction", test_fraction, low=0.0, high=1.0, strict=True)
    seed = checks.integer("seed", seed, low=0)
    X, y = load_digits(return_X_y=True)
    Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=f, random_state=seed, stratify=y)
    mu, sd = Xtr.mean(0), Xtr.std(0) + 1e-6
    out = [(Xtr - mu) / sd, ytr, (Xte - mu) / sd, yte]
    dt = [torch.float32, torch.int64, torch.float32, torch.int64]
    Xtr_t, ytr_t, Xte_t, yte_t = (
        torch.as_tensor(a, dtype=d, device=device) for a, d in zip(out, dt, strict=True)
    )
    return Xtr_t, ytr_t, Xte_t, yte_t


def iid_partition(n: int, n_clients: int, *, generator: torch.Generator | None = None):
    """Equal IID shards: a random permutation of ``range(n)`` cut into ``(K, n // K)``.

    The ``n mod K`` left-over examples are dropped.
    """
    n = checks.integer("n", n, low=1)
    K = checks.integer("n_clients", n_clients, low=1, high=n)
    m = n // K
    return torch.randperm(n, generator=generator)[: K * m].view(K, m)


def dirichlet_partition(
    labels: np.ndarray | torch.Tensor,
    n_clients: int,
    alpha: float,
    rng: np.random.Generator,
    *,
    min_size: int = 2,
    max_tries: int = 100,
) -> list[np.ndarray]:
    """Non-IID shards: for every class, client proportions drawn from ``Dirichlet(α·1_K)``.

    Redraws (at most ``max_tries`` times) until every shard holds ``min_size`` examples.
    """
    y = np.asarray(labels.cpu() if isinstance(labels, torch.Tensor) else labels)
    if y.ndim != 1 or y.size == 0:
        raise ValueError("labels must be a non-empty vector")
    K = checks.integer("n_clients", n_clients, low=1, high=y.size)
    a = checks.real("alpha", alpha, low=0.0, strict=True)
    m = checks.integer("min_size", min_size, low=1, high=y.size // K)
    checks.integer("max_tries", max_tries, low=1)
    if not isinstance(rng, np.random.Generator):
        raise ValueError("rng must be a numpy Generator")
    for _ in range(max_tries):
        shards: list[list[int]] = [[] for _ in range(K)]
        for c in np.unique(y):
            idx = rng.permutation(np.flatnonzero(y == c))
            cuts = (np.cumsum(rng.dirichlet(np.full(K, a))) * idx.size).astype(int)[:-1]
            for k, part in enumerate(np.split(idx, cuts)):
                shards[k].extend(part.tolist())
        if min(len(s) for s in shards) >= m:
            return [np.sort(np.asarray(s, dtype=np.int64)) for s in shards]
    raise ValueError(f"no partition with min_size={m} found in {max_tries} tries; raise alpha")


def pad_shards(
    shards: Sequence[np.ndarray] | torch.Tensor, width: int | None = None
) -> tuple[torch.Tensor, torch.Tensor]:
    """Index matrix ``(K, m)`` (padded with index 0) and a 0/1 float mask of real entries.

    ``m`` is the largest shard size, or ``width`` when given (to stack the partitions of
    several federations, pad them to a common width).
    """
    if isinstance(shards, torch.Tensor):
        checks.tensor("shards", shards, ndim=2, dtype=torch.int64)
        shards = list(shards)
    if len(shards) == 0 or any(len(s) == 0 for s in shards):
        raise ValueError("shards must be a non-empty list of non-empty index arrays")
    m = max(len(s) for s in shards)
    if width is not None:
        m = checks.integer("width", width, low=m)
    idx = torch.zeros(len(shards), m, dtype=torch.int64)
    mask = torch.zeros(len(shards), m)
    for k, s in enumerate(shards):
        idx[k, : len(s)] = torch.as_tensor(np.asarray(s), dtype=torch.int64)
        mask[k, : len(s)] = 1.0
    return idx, mask


# --- federated training ----------------------------------------------------------------------


@dataclass
class FedAvgResult:
    """The global model(s) after training, recorded rounds and embedding strengths.

    ``params``: one tensor per layer, with a leading federation axis ``F`` when several
    federations were trained side by side. ``trajectory``: per layer, the global model at
    rounds ``0, every, 2·every, …`` stacked on a leading axis. ``strengths``: the
    ``a_{k,ℓ}`` of every round, ``(R, [F,] K, L)``.
    """

    params: list[torch.Tensor]
    trajectory: list[torch.Tensor]
    strengths: torch.Tensor


def _shards_and_mask(
    shards: object, mask: object, n: int
) -> tuple[torch.Tensor, torch.Tensor, bool]:
    """Shards and mask as ``(F, K, m)`` tensors, and whether one federation was given."""
    shards = checks.tensor("shards", shards, dtype=torch.int64)
    if shards.ndim not in (2, 3) or shards.numel() == 0:
        raise ValueError(
            "shards must be a non-empty (K, m) or (F, K, m) index tensor, "
            f"got shape {tuple(shards.shape)}"
        )
    if int(shards.min()) < 0 or int(shards.max()) >= n:
        raise ValueError("shards must index rows of X")
    if mask is None:
        mask = torch.ones(shards.shape)
    mask = checks.tensor("mask", mask, floating=True)
    checks.shape("mask", mask, tuple(shards.shape))
    if not bool(((mask == 0) | (mask == 1)).all()):
        raise ValueError("mask must hold only 0 and 1")
    if (mask.sum(-1) == 0).any():
        raise ValueError("mask must leave every shard at least one example")
    single = shards.ndim == 2
    return (shards[None], mask[None], True) if single else (shards, mask, False)


def _federation_init(init: list[torch.Tensor], F: int, single: bool) -> list[torch.Tensor]:
    """The initial global models, ``(F, *layer)`` per layer."""
    out = []
    for i, p in enumerate(init):
        b = _base_ndim(i)
        if p.ndim == b:
            out.append(p.expand(F, *p.shape).clone())
        elif p.ndim == b + 1 and not single and p.shape[0] == F:
            out.append(p.clone())
        else:
            raise ValueError(
                f"init[{i}] must have the shape of one layer"
                + ("" if single else f" or a leading axis of {F} federations")
                + f", got {tuple(p.shape)}"
            )
    return out


def _federation_keys(
    key: object, init: list[torch.Tensor], F: int, K: int, single: bool
) -> list[torch.Tensor]:
    """Keys as tensors that broadcast against ``(F, K, *layer)``."""
    key = _params("key", key)
    if len(key) != len(init):
        raise ValueError(f"key must have {len(init)} layers, got {len(key)}")
    out = []
    for i, (k, p) in enumerate(zip(key, init, strict=True)):
        b = _base_ndim(i)
        layer = tuple(p.shape[p.ndim - b :])
        checks.finite(f"key[{i}]", k)
        if tuple(k.shape[k.ndim - b :]) != layer:
            raise ValueError(f"key[{i}] must end in the layer shape {layer}, got {tuple(k.shape)}")
        lead = tuple(k.shape[: k.ndim - b])
        if lead == ():
            out.append(k[None, None])  # one key for every client of every federation
        elif single and lead == (K,):
            out.append(k[None])  # one key per client
        elif not single and lead == (F,):
            out.append(k[:, None])  # one shared key per federation
        elif not single and lead == (F, K):
            out.append(k)  # one key per client of every federation
        else:
            allowed = "(), (K,)" if single else "(), (F,), (F, K)"
            raise ValueError(
                f"key[{i}] must have leading axes {allowed} = "
                f"{'(' + str(K) + ',)' if single else (F, K)}, got {lead}"
            )
    return out


def _strengths(strength: object, F: int, single: bool) -> torch.Tensor:
    if isinstance(strength, torch.Tensor | list | tuple):
        if single:
            raise ValueError("strength must be a number for one federation")
        c = torch.as_tensor(strength, dtype=torch.float64)
        if c.shape != (F,):
            raise ValueError(f"strength must be a number or {F} numbers, got {tuple(c.shape)}")
        checks.finite("strength", c)
        if bool((c < 0).any()):
            raise ValueError("strength must be >= 0")
        return c
    return torch.full((F,), checks.real("strength", strength, low=0.0), dtype=torch.float64)


def fedavg(
    X: torch.Tensor,
    y: torch.Tensor,
    shards: torch.Tensor,
    mask: torch.Tensor | None,
    init: Sequence[torch.Tensor],
    *,
    rounds: int,
    lr: float,
    weight_decay: float = 0.01,
    strength: float | Sequence[float] | torch.Tensor = 0.0,
    key: Sequence[torch.Tensor] | None = None,
    beta: float = 0.9,
    record_every: int = 1,
) -> FedAvgResult:
    """Federated averaging with every client's local AdamW step as one batched computation.

    Each round (:prf:ref:`threshold-watermark-def-fedavg`): broadcast ``θ``; every client
    takes one full-shard AdamW step (:func:`icml26.trust.adamw.adamw_step`, optimiser state
    kept per client across rounds), forms ``Δ_k = θ_k − θ``, updates ``ḡ_k ← β ḡ_k +
    (1−β)·mean_ℓ‖Δ_{k,ℓ}‖`` and adds ``a_{k,ℓ} τ_ℓ`` with ``a_{k,ℓ} = c·ḡ_k·‖Δ_{k,ℓ}‖``
    (:eq:`threshold-watermark-eq-strength`); the server averages the uploads weighted by
    shard size. ``strength=0`` is clean FedAvg.

    ``shards`` is ``(K, m)`` (one federation) or ``(F, K, m)``: ``F`` independent
    federations trained side by side (seeds, or clean and marked twins), each with its own
    global model; ``mask`` (same shape, 0/1) marks real examples of padded shards. ``init``
    is one model, or (with ``F`` federations) one per federation. ``strength`` is one ``c``
    or, with ``F`` federations, one per federation. ``key`` (required when a strength is
    positive) has the layer shapes of one model (a key shared by every client), or leading
    axes ``(K,)`` (one key per client) — with ``F`` federations ``(F,)`` (one shared key per
    federation) or ``(F, K)``. ``record_every`` sets which rounds the trajectory keeps.
    """
    X, y = _check_data(X, y)
    shards3, mask3, single = _shards_and_mask(shards, mask, X.shape[0])
    F, K, _ = shards3.shape
    init = _params("init", init)
    for i, p in enumerate(init):
        checks.finite(f"init[{i}]", p)
    theta = [p.to(X.device) for p in _federation_init(init, F, single)]
    R = checks.integer("rounds", rounds, low=1)
    lr = checks.real("lr", lr, low=0.0)
    weight_decay = checks.real("weight_decay", weight_decay, low=0.0)
    beta = checks.real("beta", beta, low=0.0, high=1.0)
    every = checks.integer("record_every", record_every, low=1)
    dev, dt = X.device, theta[0].dtype
    c, keys = _marking(strength, key, init, (F, K), single, theta[0])
    mask3 = mask3.to(dev, X.dtype).flatten(0, 1)
    idx = shards3.to(dev).flatten(0, 1)  # (F·K, m): every client of every federation
    Xs, ys = X[idx], y[idx]
    w = mask3.sum(-1).view(F, K)
    w = (w / w.sum(-1, keepdim=True)).to(dt)
    state = AdamWState.zeros_like([p.new_zeros(F * K, *p.shape[1:]) for p in theta])
    gbar = torch.zeros(F, K, dtype=dt, device=dev)
    traj, strengths = [[p.clone()] for p in theta], []
    # every client's local model, and its update, in buffers reused round after round
    local = [p.new_empty(F * K, *p.shape[1:]).requires_grad_(True) for p in theta]
    fk = [q.view(F, K, *p.shape[1:]) for q, p in zip(local, theta, strict=True)]
    diff = [torch.empty_like(q) for q in fk]
    for r in range(1, R + 1):
        norms = _client_round(local, fk, diff, theta, (Xs, ys, mask3), state, lr, weight_decay)
        with torch.no_grad():
            gbar = beta * gbar + (1 - beta) * norms.mean(-1)
            a = c[:, None, None] * gbar[..., None] * norms
            strengths.append(a)
            theta = _server_average(fk, w, a, keys)
            if r % every == 0:
                for i, p in enumerate(theta):
                    traj[i].append(p)
    out = FedAvgResult(theta, [torch.stack(t) for t in traj], torch.stack(strengths))
    if single:
        out = FedAvgResult(
            [p[0] for p in out.params], [t[:, 0] for t in out.trajectory], out.strengths[:, 0]
        )
    return out


def _marking(
    strength: object,
    key: object,
    init: list[torch.Tensor],
    FK: tuple[int, int],
    single: bool,
    like: torch.Tensor,
) -> tuple[torch.Tensor, list[torch.Tensor]]:
    """The strengths ``c`` ``(F,)`` and, where one is positive, the keys, on the device and
    in the dtype of ``like``."""
    F, K = FK
    c = _strengths(strength, F, single).to(like.device, like.dtype)
    marked = bool((c > 0).any())
    if marked and key is None:
        raise ValueError("key is required when a strength is positive")
    keys = _federation_keys(key, init, F, K, single) if marked else []
    return c, [k.to(like.device, like.dtype) for k in keys]


def _check_data(X: object, y: object) -> tuple[torch.Tensor, torch.Tensor]:
    """``X`` ``(n, d)`` finite and floating, ``y`` ``(n,)`` class indices."""
    X = checks.tensor("X", X, ndim=2, floating=True)
    checks.finite("X", X)
    y = checks.tensor("y", y, ndim=1, dtype=torch.int64)
    if y.shape[0] != X.shape[0]:
        raise ValueError("X and y must have the same number of rows")
    return X, y


def _client_round(
    local: list[torch.Tensor],
    fk: list[torch.Tensor],
    diff: list[torch.Tensor],
    theta: list[torch.Tensor],
    data: tuple[torch.Tensor, torch.Tensor, torch.Tensor],
    state: AdamWState,
    lr: float,
    weight_decay: float,
) -> torch.Tensor:
    """One round on the clients: broadcast the global models ``theta`` into the local buffers
    ``local`` (viewed ``(F, K, *layer)`` as ``fk``), take every client's full-shard AdamW step
    in place, and return the norms ``‖Δ_{k,ℓ}‖`` of the updates, ``(F, K, L)`` (the updates
    are left in ``diff``)."""
    with torch.no_grad():
        for q, p in zip(fk, theta, strict=True):
            q.copy_(p[:, None].expand_as(q))  # broadcast the global models
    loss = client_losses(local, *data).sum()
    grads = torch.autograd.grad(loss, local)
    with torch.no_grad():
        adamw_step(
            local,
            list(grads),
            state,
            lr=lr,
            weight_decay=weight_decay,
            check_finite=False,
            inplace=True,
        )
        return torch.stack(
            [
                torch.sub(q, p[:, None], out=d).flatten(2).norm(dim=2)
                for q, p, d in zip(fk, theta, diff, strict=True)
            ],
            -1,
        )  # (F, K, L)


def _server_average(
    fk: list[torch.Tensor], w: torch.Tensor, a: torch.Tensor, keys: list[torch.Tensor]
) -> list[torch.Tensor]:
    """The server's average of the uploads ``q_k + a_k τ_k`` weighted by ``w`` ``(F, K)``, by
    linearity: the average of the ``q_k`` plus the weighted keys (one key per federation: one
    vector)."""
    F = w.shape[0]
    theta = [torch.einsum("fk,fk...->f...", w, q.detach()) for q in fk]
    for i, k in enumerate(keys):
        wa = w * a[..., i]  # (F, K)
        if k.shape[1] == 1:
            theta[i] += wa.sum(1).view(F, *([1] * (k.ndim - 2))) * k[:, 0]
        else:
            theta[i] += torch.einsum("fk,fk...->f...", wa, k.expand(F, *k.shape[1:]))
    return theta


def finetune(
    params: Sequence[torch.Tensor],
    X: torch.Tensor,
    y: torch.Tensor,
    *,
    epochs: int,
    lr: float,
    weight_decay: float = 0.01,
    batch_size: int = 32,
    generator: torch.Generator | None = None,
) -> list[torch.Tensor]:
    """The fine-tuning attack: minibatch AdamW on ``(X, y)`` from ``params``.

    ``params`` is one model, or a batch of models on a leading axis with ``X`` of shape
    ``(B, n, in)`` and ``y`` of shape ``(B, n)`` (each model fine-tuned on its own data, with
    the same shuffling). Returns the trajectory, ``(epochs + 1, [B,] ...)`` per layer (the
    model after every epoch).
    """
    params = _params("params", params)
    for i, p in enumerate(params):
        checks.finite(f"params[{i}]", p)
    X = checks.tensor("X", X, floating=True)
    checks.finite("X", X)
    y = checks.tensor("y", y, dtype=torch.int64)
    batched = X.ndim == 3
    if X.ndim not in (2, 3) or y.shape != X.shape[:-1] or X.shape[-2] == 0:
        raise ValueError(
            "X must be (n, in) or (B, n, in) with n > 0 and y of shape X.shape[:-1], got "
            f"{tuple(X.shape)} and {tuple(y.shape)}"
        )
    if batched and params[0].ndim != 3:
        raise ValueError("a batch of data sets needs a batch of models (leading axis B)")
    if not batched and params[0].ndim != 2:
        raise ValueError("params must be one model for X of shape (n, in)")
    if batched and any(p.shape[0] != X.shape[0] for p in params):
        raise ValueError(f"params must hold {X.shape[0]} models, one per data set")
    E = checks.integer("epochs", epochs, low=0)
    B = checks.integer("batch_size", batch_size, low=1)
    lr = checks.real("lr", lr, low=0.0)
    weight_decay = checks.real("weight_decay", weight_decay, low=0.0)
    Xb, yb = (X, y) if batched else (X[None], y[None])
    n = Xb.shape[1]
    theta = [p.detach().clone() if batched else p.detach().clone()[None] for p in params]
    state = AdamWState.zeros_like(theta)
    traj = [[p.clone()] for p in theta]
    for _ in range(E):
        perm = torch.randperm(n, generator=generator).to(X.device)
        for s in range(0, n, B):
            b = perm[s : s + B]
            local = [p.requires_grad_(True) for p in theta]
            loss = client_losses(local, Xb[:, b], yb[:, b]).sum()
            grads = torch.autograd.grad(loss, local)
            with torch.no_grad():
                theta = adamw_step(
                    [q.detach() for q in local],
                    list(grads),
                    state,
                    lr=lr,
                    weight_decay=weight_decay,
                    check_finite=False,
                )
        for i, p in enumerate(theta):
            traj[i].append(p.clone())
    return [torch.stack(t) if batched else torch.stack(t)[:, 0] for t in traj]
