"""Collaborative threshold watermarking of a federated model, vectorised clients (chapter 17).

Implements, for chapter 17 (threshold-watermark):

- federated averaging of :prf:ref:`tw-def-fedavg` with all ``K`` clients' parameters held as
  one tensor per layer with a leading client axis, each client running AdamW on its shard;
- the watermark embedding rule of :prf:ref:`tw-def-fedavg` (shared key, or one key per
  client for the dilution baseline of :prf:ref:`tw-prop-dilution`);
- the detection statistic of :prf:ref:`tw-def-detect` and its exact null moments
  (:prf:ref:`tw-prop-null`), plus the sign statistic with exact unit null variance;
- the fine-tuning attack.

The model is the chapter's MLP ``64 → 128 → 64 → 10`` (ReLU), stored as the list
``[W1, b1, W2, b2, W3, b3]`` with ``W`` of shape ``(in, out)``; any leading batch axes
(clients, rounds, keys) broadcast through every function.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch

from icml26 import checks

__all__ = [
    "MLP_SIZES",
    "AdamWState",
    "FedAvgResult",
    "accuracy",
    "adamw_step",
    "client_losses",
    "cosines",
    "detection_z",
    "digits_data",
    "dirichlet_partition",
    "fedavg",
    "finetune",
    "flatten",
    "iid_partition",
    "init_mlp",
    "logits",
    "null_sigma",
    "pad_shards",
    "random_keys",
    "sign_z",
]

#: Layer widths of the chapter's MLP (8×8 digit images in, 10 classes out).
MLP_SIZES: tuple[int, ...] = (64, 128, 64, 10)


def _base_ndim(layer: int) -> int:
    """Weights (even layers) are matrices, biases (odd layers) vectors."""
    return 2 - layer % 2


def _params(name: str, params: object) -> list[torch.Tensor]:
    if not isinstance(params, list | tuple) or len(params) == 0 or len(params) % 2:
        raise ValueError(f"{name} must be a non-empty list [W1, b1, W2, b2, ...]")
    for i, x in enumerate(params):
        checks.tensor(f"{name}[{i}]", x, floating=True)
        if x.ndim < _base_ndim(i):
            raise ValueError(f"{name}[{i}] must have at least {_base_ndim(i)} dimensions")
    return list(params)


def _layer_dims(params: Sequence[torch.Tensor]) -> list[int]:
    return [math.prod(x.shape[x.ndim - _base_ndim(i) :]) for i, x in enumerate(params)]


def flatten(params: Sequence[torch.Tensor]) -> torch.Tensor:
    """All layers concatenated along one last axis (batch axes kept): ``(..., P)``."""
    params = _params("params", params)
    return torch.cat([x.flatten(x.ndim - _base_ndim(i)) for i, x in enumerate(params)], dim=-1)


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
    return tuple(torch.as_tensor(a, dtype=d, device=device) for a, d in zip(out, dt, strict=True))


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


def pad_shards(shards: Sequence[np.ndarray] | torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Index matrix ``(K, m_max)`` (padded with index 0) and a 0/1 float mask of real entries."""
    if isinstance(shards, torch.Tensor):
        checks.tensor("shards", shards, ndim=2, dtype=torch.int64)
        return shards, torch.ones(shards.shape, dtype=torch.float32)
    if len(shards) == 0 or any(len(s) == 0 for s in shards):
        raise ValueError("shards must be a non-empty list of non-empty index arrays")
    m = max(len(s) for s in shards)
    idx = torch.zeros(len(shards), m, dtype=torch.int64)
    mask = torch.zeros(len(shards), m)
    for k, s in enumerate(shards):
        idx[k, : len(s)] = torch.as_tensor(np.asarray(s), dtype=torch.int64)
        mask[k, : len(s)] = 1.0
    return idx, mask


# --- the model -------------------------------------------------------------------------------


def init_mlp(
    sizes: Sequence[int] = MLP_SIZES,
    *,
    generator: torch.Generator | None = None,
    dtype: torch.dtype = torch.float32,
) -> list[torch.Tensor]:
    """PyTorch's default ``nn.Linear`` initialisation: ``U(±1/√fan_in)`` for W and b."""
    if len(sizes) < 2:
        raise ValueError("sizes must list at least an input and an output width")
    sizes = [checks.integer(f"sizes[{i}]", s, low=1) for i, s in enumerate(sizes)]
    out = []
    for fan_in, fan_out in itertools.pairwise(sizes):
        bound = 1.0 / math.sqrt(fan_in)
        for shape in ((fan_in, fan_out), (fan_out,)):
            u = torch.rand(shape, generator=generator, dtype=torch.float64)
            out.append(((2 * u - 1) * bound).to(dtype))
    return out


def logits(params: Sequence[torch.Tensor], X: torch.Tensor) -> torch.Tensor:
    """MLP logits for a batch of models: ``X`` is ``(..., m, in)``, weights ``(..., in, out)``."""
    params = _params("params", params)
    h = checks.tensor("X", X, floating=True)
    n_layers = len(params) // 2
    for j in range(n_layers):
        W, b = params[2 * j], params[2 * j + 1]
        if h.shape[-1] != W.shape[-2]:
            raise ValueError(f"X has width {h.shape[-1]} but layer {j} expects {W.shape[-2]}")
        h = h @ W + b.unsqueeze(-2)
        if j < n_layers - 1:
            h = torch.relu(h)
    return h


def client_losses(
    params: Sequence[torch.Tensor],
    X: torch.Tensor,
    y: torch.Tensor,
    mask: torch.Tensor | None = None,
) -> torch.Tensor:
    """Mean cross-entropy of each model on its own examples: ``(K,)`` for ``X`` of ``(K, m, in)``.

    ``mask`` (``(K, m)``, 0/1) marks real examples of padded shards.
    """
    X = checks.tensor("X", X, floating=True)
    y = checks.tensor("y", y, dtype=torch.int64)
    if y.shape != X.shape[:-1]:
        raise ValueError(f"y must have shape {tuple(X.shape[:-1])}, got {tuple(y.shape)}")
    out = logits(params, X)
    ce = torch.nn.functional.cross_entropy(out.flatten(0, -2), y.flatten(), reduction="none")
    ce = ce.view(y.shape)
    if mask is None:
        return ce.mean(-1)
    checks.shape("mask", mask, tuple(y.shape))
    return (ce * mask).sum(-1) / mask.sum(-1)


def accuracy(params: Sequence[torch.Tensor], X: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """Test accuracy of each model of a batch (``X`` of ``(m, in)`` is shared)."""
    X = checks.tensor("X", X, ndim=2, floating=True)
    y = checks.tensor("y", y, ndim=1, dtype=torch.int64)
    if y.shape[0] != X.shape[0]:
        raise ValueError("X and y must have the same number of rows")
    with torch.no_grad():
        return (logits(params, X).argmax(-1) == y).float().mean(-1)


# --- keys and detection --------------------------------------------------------------------


def random_keys(
    params_like: Sequence[torch.Tensor],
    batch: Sequence[int] = (),
    *,
    generator: torch.Generator | None = None,
) -> list[torch.Tensor]:
    """Rademacher keys normalised per layer: ``τ_ℓ ∈ {±1/√d_ℓ}^{d_ℓ}`` (shapes of one model).

    ``batch`` prepends independent-key axes (e.g. ``(K,)`` for one key per client).
    """
    params_like = _params("params_like", params_like)
    batch = tuple(checks.integer("batch", b, low=1) for b in batch)
    keys = []
    for i, x in enumerate(params_like):
        shape = x.shape[x.ndim - _base_ndim(i) :]
        d = math.prod(shape)
        signs = torch.randint(0, 2, (*batch, *shape), generator=generator).to(x.dtype) * 2 - 1
        keys.append((signs / math.sqrt(d)).to(x.device))
    return keys


def cosines(params: Sequence[torch.Tensor], key: Sequence[torch.Tensor]) -> torch.Tensor:
    """Per-layer cosines ``cos(θ_ℓ, τ_ℓ)``, broadcasting batch axes: ``(..., L)``."""
    params, key = _params("params", params), _params("key", key)
    if len(params) != len(key):
        raise ValueError(f"key must have {len(params)} layers, got {len(key)}")
    cols = []
    for i, (x, k) in enumerate(zip(params, key, strict=True)):
        nd = _base_ndim(i)
        if x.shape[x.ndim - nd :] != k.shape[k.ndim - nd :]:
            raise ValueError(f"key[{i}] has layer shape {tuple(k.shape)}, params {tuple(x.shape)}")
        xf, kf = x.flatten(x.ndim - nd), k.flatten(k.ndim - nd)
        while xf.ndim < kf.ndim:  # align batch axes on the right
            xf = xf.unsqueeze(0)
        while kf.ndim < xf.ndim:
            kf = kf.unsqueeze(0)
        dot = (xf * kf).sum(-1)
        cols.append(dot / (xf.norm(dim=-1) * kf.norm(dim=-1)).clamp_min(1e-30))
    return torch.stack(cols, dim=-1)


def null_sigma(dims: Sequence[int]) -> float:
    """Null standard deviation of the layer-mean cosine: ``σ₀ = √(Σ_ℓ 1/d_ℓ) / L``.

    :eq:`tw-eq-sigma0` of :prf:ref:`tw-prop-null`.
    """
    if len(dims) == 0:
        raise ValueError("dims must list at least one layer size")
    ds = [checks.integer(f"dims[{i}]", d, low=1) for i, d in enumerate(dims)]
    return math.sqrt(sum(1.0 / d for d in ds)) / len(ds)


def detection_z(
    params: Sequence[torch.Tensor], key: Sequence[torch.Tensor], *, min_dim: int = 256
) -> torch.Tensor:
    """``z = S / σ₀`` with ``S`` the mean cosine over layers with ``d_ℓ ≥ min_dim``.

    :prf:ref:`tw-def-detect`, with the analytic ``σ₀`` of :prf:ref:`tw-prop-null` (μ₀ = 0).
    ``min_dim=1`` gives the all-layer statistic.
    """
    params = _params("params", params)
    min_dim = checks.integer("min_dim", min_dim, low=1)
    dims = _layer_dims(params)
    use = [i for i, d in enumerate(dims) if d >= min_dim]
    if not use:
        raise ValueError(f"min_dim={min_dim} excludes every layer (sizes {dims})")
    cos = cosines(params, key)[..., use]
    return cos.mean(-1) / null_sigma([dims[i] for i in use])


def sign_z(params: Sequence[torch.Tensor], key: Sequence[torch.Tensor]) -> torch.Tensor:
    """Global sign statistic ``⟨vec θ, sign(vec τ)⟩ / ‖vec θ‖`` (null: mean 0, variance 1)."""
    theta, tau = flatten(params), flatten(_params("key", key))
    while theta.ndim < tau.ndim:
        theta = theta.unsqueeze(0)
    while tau.ndim < theta.ndim:
        tau = tau.unsqueeze(0)
    return (theta * torch.sign(tau)).sum(-1) / theta.norm(dim=-1)


# --- optimisation ----------------------------------------------------------------------------


@dataclass
class AdamWState:
    """Per-parameter first and second moments and the step count (shared by the batch)."""

    m: list[torch.Tensor]
    v: list[torch.Tensor]
    step: int = 0

    @classmethod
    def zeros_like(cls, params: Sequence[torch.Tensor]) -> AdamWState:
        return cls([torch.zeros_like(p) for p in params], [torch.zeros_like(p) for p in params])


def adamw_step(
    params: Sequence[torch.Tensor],
    grads: Sequence[torch.Tensor],
    state: AdamWState,
    *,
    lr: float,
    weight_decay: float = 0.01,
    betas: tuple[float, float] = (0.9, 0.999),
    eps: float = 1e-8,
) -> list[torch.Tensor]:
    """One AdamW step (``torch.optim.AdamW``'s formula) on every tensor of a batch of models."""
    params, grads = _params("params", params), _params("grads", grads)
    if [p.shape for p in params] != [g.shape for g in grads]:
        raise ValueError("grads must have the shapes of params")
    lr = checks.real("lr", lr, low=0.0, strict=True)
    wd = checks.real("weight_decay", weight_decay, low=0.0)
    b1 = checks.real("betas[0]", betas[0], low=0.0, high=1.0)
    b2 = checks.real("betas[1]", betas[1], low=0.0, high=1.0)
    eps = checks.real("eps", eps, low=0.0, strict=True)
    state.step += 1
    c1, c2 = 1 - b1**state.step, 1 - b2**state.step
    grads = list(grads)
    torch._foreach_mul_(state.m, b1)  # multi-tensor ops: one sweep per step over all layers
    torch._foreach_add_(state.m, grads, alpha=1 - b1)
    torch._foreach_mul_(state.v, b2)
    torch._foreach_addcmul_(state.v, grads, grads, value=1 - b2)
    denom = torch._foreach_sqrt(state.v)
    torch._foreach_div_(denom, math.sqrt(c2))
    torch._foreach_add_(denom, eps)
    out = torch._foreach_mul(params, 1 - lr * wd)
    torch._foreach_addcdiv_(out, state.m, denom, value=-lr / c1)
    return out


@dataclass
class FedAvgResult:
    """Global model after training and its trajectory (``(R+1, ...)`` per layer)."""

    params: list[torch.Tensor]
    trajectory: list[torch.Tensor]
    strengths: torch.Tensor  # (R, K, L): the embedding strengths a_{k,ℓ} of every round


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
    strength: float = 0.0,
    key: Sequence[torch.Tensor] | None = None,
    beta: float = 0.9,
) -> FedAvgResult:
    """Federated averaging with every client's local AdamW step as one batched computation.

    Each round: broadcast ``θ``; every client takes one full-shard AdamW step (optimiser state
    kept per client across rounds), forms ``Δ_k = θ_k − θ``, updates ``ḡ_k ← β ḡ_k +
    (1−β)·mean_ℓ‖Δ_{k,ℓ}‖``, adds ``a_{k,ℓ} τ_ℓ`` with ``a_{k,ℓ} = c·ḡ_k·‖Δ_{k,ℓ}‖``; the server
    averages the uploads weighted by shard size (strengths of :eq:`tw-eq-strength`). ``key``
    is one key (shared watermark, layer shapes of one model) or a batch of ``K`` keys (one per
    client); ``strength=0`` is clean FedAvg.
    """
    X = checks.tensor("X", X, ndim=2, floating=True)
    y = checks.tensor("y", y, ndim=1, dtype=torch.int64)
    shards = checks.tensor("shards", shards, ndim=2, dtype=torch.int64)
    K = shards.shape[0]
    if int(shards.min()) < 0 or int(shards.max()) >= X.shape[0]:
        raise ValueError("shards must index rows of X")
    if mask is None:
        mask = torch.ones(shards.shape)
    checks.shape("mask", mask, tuple(shards.shape))
    if (mask.sum(1) == 0).any():
        raise ValueError("mask must leave every shard at least one example")
    init = _params("init", init)
    R = checks.integer("rounds", rounds, low=1)
    c = checks.real("strength", strength, low=0.0)
    beta = checks.real("beta", beta, low=0.0, high=1.0)
    if c > 0 and key is None:
        raise ValueError("key is required when strength > 0")
    dev, dt = X.device, init[0].dtype
    mask = mask.to(dev, X.dtype)
    Xs, ys = X[shards.to(dev)], y[shards.to(dev)]
    w = (mask.sum(1) / mask.sum()).to(dt)
    theta = [p.to(dev) for p in init]
    per_client = key is not None and key[0].ndim == init[0].ndim + 1
    if per_client and key[0].shape[0] != K:
        raise ValueError(f"a per-client key must have {K} keys, got {key[0].shape[0]}")
    state = AdamWState.zeros_like([p.expand(K, *p.shape) for p in theta])
    gbar = torch.zeros(K, dtype=dt, device=dev)
    traj, strengths = [[p.clone()] for p in theta], []
    for _ in range(R):
        local = [p.expand(K, *p.shape).clone().requires_grad_(True) for p in theta]
        loss = client_losses(local, Xs, ys, mask).sum()
        grads = torch.autograd.grad(loss, local)
        with torch.no_grad():
            local = adamw_step(
                [q.detach() for q in local], grads, state, lr=lr, weight_decay=weight_decay
            )
            norms = torch.stack(
                [(q - p).flatten(1).norm(dim=1) for q, p in zip(local, theta, strict=True)], 1
            )
            gbar = beta * gbar + (1 - beta) * norms.mean(1)
            a = c * gbar[:, None] * norms  # (K, L)
            strengths.append(a)
            if c > 0:
                for i, q in enumerate(local):
                    tau = key[i] if per_client else key[i].unsqueeze(0)
                    q += a[:, i].view(K, *([1] * (q.ndim - 1))) * tau
            theta = [torch.einsum("k,k...->...", w, q) for q in local]
            for i, p in enumerate(theta):
                traj[i].append(p)
    return FedAvgResult(theta, [torch.stack(t) for t in traj], torch.stack(strengths))


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
    """The fine-tuning attack: minibatch AdamW on ``(X, y)`` from ``params`` (one model).

    Returns the trajectory, ``(epochs + 1, ...)`` per layer (the model after every epoch).
    """
    params = _params("params", params)
    X = checks.tensor("X", X, ndim=2, floating=True)
    y = checks.tensor("y", y, ndim=1, dtype=torch.int64)
    if X.shape[0] != y.shape[0] or X.shape[0] == 0:
        raise ValueError("X and y must have the same, non-zero number of rows")
    E = checks.integer("epochs", epochs, low=0)
    B = checks.integer("batch_size", batch_size, low=1)
    n = X.shape[0]
    theta = [p.detach().clone().unsqueeze(0) for p in params]
    state = AdamWState.zeros_like(theta)
    traj = [[p[0].clone()] for p in theta]
    for _ in range(E):
        perm = torch.randperm(n, generator=generator).to(X.device)
        for s in range(0, n, B):
            b = perm[s : s + B]
            local = [p.requires_grad_(True) for p in theta]
            loss = client_losses(local, X[b][None], y[b][None]).sum()
            grads = torch.autograd.grad(loss, local)
            with torch.no_grad():
                theta = adamw_step(
                    [q.detach() for q in local], grads, state, lr=lr, weight_decay=weight_decay
                )
        for i, p in enumerate(theta):
            traj[i].append(p[0].detach().clone())
    return [torch.stack(t) for t in traj]
