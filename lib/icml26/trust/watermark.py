"""Watermark keys, the chapter's model and the detection statistic (chapter 17).

Implements, for chapter 17 (threshold-watermark):

- the chapter's MLP as a function of a batch of parameter sets (every client of a
  federation at once), with the watermark key of
  :prf:ref:`threshold-watermark-def-fedavg`: Rademacher signs normalised per layer, one
  shared key or one per client (the dilution baseline of
  :prf:ref:`threshold-watermark-prop-dilution`);
- the detection statistic of :prf:ref:`threshold-watermark-def-detect` and its exact null
  moments (:prf:ref:`threshold-watermark-prop-null`), plus the sign statistic with exact
  unit null variance.

Federated training and the fine-tuning attack are in :mod:`icml26.trust.federated`.

Keys drawn with a seeded ``torch.Generator`` (a Mersenne Twister on the CPU) are reproducible,
which is what a textbook needs, and predictable, which is what a deployment must avoid: an
observer of enough outputs can reconstruct the generator's state and with it every key. A
deployment draws its keys from the operating system's cryptographically secure generator,
``random_keys(..., secure=True)`` (``os.urandom``, as ``secrets`` does).

The model is the chapter's MLP ``64 → 128 → 64 → 10`` (ReLU), stored as the list
``[W1, b1, W2, b2, W3, b3]`` with ``W`` of shape ``(in, out)``; any leading batch axes
(clients, rounds, keys) broadcast through every function.
"""

from __future__ import annotations

import itertools
import math
import os
from collections.abc import Sequence

import numpy as np
import torch

from icml26 import checks

__all__ = [
    "MLP_SIZES",
    "accuracy",
    "client_losses",
    "cosines",
    "detection_z",
    "flatten",
    "init_mlp",
    "logits",
    "null_sigma",
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
    for j in range(0, len(params), 2):  # W_j is (..., in, out), b_j (..., out)
        W, b = params[j], params[j + 1]
        if b.shape[-1] != W.shape[-1]:
            raise ValueError(
                f"{name}[{j + 1}] must have the width {W.shape[-1]} of {name}[{j}] "
                f"(weights (..., in, out), biases (..., out)), got {tuple(b.shape)}"
            )
        if j and W.shape[-2] != params[j - 2].shape[-1]:
            raise ValueError(
                f"{name}[{j}] must take the width {params[j - 2].shape[-1]} of "
                f"{name}[{j - 2}] as input, got {tuple(W.shape)}"
            )
    return list(params)


def _layer_dims(params: Sequence[torch.Tensor]) -> list[int]:
    return [math.prod(x.shape[x.ndim - _base_ndim(i) :]) for i, x in enumerate(params)]


def flatten(params: Sequence[torch.Tensor]) -> torch.Tensor:
    """All layers concatenated along one last axis (batch axes kept): ``(..., P)``.

    A reshape: the values, finite or not, pass through unchanged.
    """
    params = _params("params", params)
    return torch.cat([x.flatten(x.ndim - _base_ndim(i)) for i, x in enumerate(params)], dim=-1)


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
    """MLP logits for a batch of models: ``X`` is ``(..., m, in)``, weights ``(..., in, out)``.

    The forward pass of every training step (:func:`icml26.trust.federated.fedavg`, which
    checks finiteness once, at its entry): shapes and types are checked here, but NaN and inf
    propagate, as in torch, without a device-to-host synchronisation per step.
    """
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

    ``mask`` (``(K, m)``, 0/1) marks real examples of padded shards. Like :func:`logits`, a
    per-step kernel: NaN and inf propagate.
    """
    X = checks.tensor("X", X, floating=True)
    y = checks.tensor("y", y, dtype=torch.int64)
    if y.shape != X.shape[:-1]:
        raise ValueError(
            f"y must have shape X.shape[:-1] = {tuple(X.shape[:-1])}, got {tuple(y.shape)}"
        )
    out = logits(params, X)
    ce = torch.nn.functional.cross_entropy(out.flatten(0, -2), y.flatten(), reduction="none")
    ce = ce.view(y.shape)
    if mask is None:
        return ce.mean(-1)
    checks.shape("mask", mask, tuple(y.shape))
    return (ce * mask).sum(-1) / mask.sum(-1)


def accuracy(params: Sequence[torch.Tensor], X: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """Test accuracy of each model of a batch (``X`` of ``(m, in)`` is shared)."""
    params = _params("params", params)
    for i, p in enumerate(params):
        checks.finite(f"params[{i}]", p)
    X = checks.tensor("X", X, ndim=2, floating=True)
    checks.finite("X", X)
    y = checks.tensor("y", y, ndim=1, dtype=torch.int64)
    if y.shape[0] != X.shape[0]:
        raise ValueError("X and y must have the same number of rows")
    with torch.no_grad():
        return (logits(params, X).argmax(-1) == y).float().mean(-1)


# --- keys and detection --------------------------------------------------------------------


def _secure_signs(shape: tuple[int, ...]) -> torch.Tensor:
    """Uniform ±1 signs from the operating system's CSPRNG (one random bit each)."""
    n = math.prod(shape)
    bits = np.unpackbits(np.frombuffer(os.urandom((n + 7) // 8), dtype=np.uint8))[:n]
    return torch.as_tensor(bits.astype(np.int64) * 2 - 1).view(shape)


def random_keys(
    params_like: Sequence[torch.Tensor],
    batch: Sequence[int] = (),
    *,
    generator: torch.Generator | None = None,
    secure: bool = False,
) -> list[torch.Tensor]:
    """Rademacher keys normalised per layer: ``τ_ℓ ∈ {±1/√d_ℓ}^{d_ℓ}`` (shapes of one model).

    ``batch`` prepends independent-key axes (e.g. ``(K,)`` for one key per client). Only the
    shapes, dtype and device of ``params_like`` are read, not its values. The signs
    come from ``generator`` (reproducible, and therefore predictable: for experiments only)
    or, with ``secure=True``, from ``os.urandom``, the operating system's
    cryptographically secure generator that a deployment must use.
    """
    params_like = _params("params_like", params_like)
    batch = tuple(checks.integer("batch", b, low=1) for b in batch)
    if not isinstance(secure, bool):
        raise ValueError(f"secure must be a bool, got {secure!r}")
    if secure and generator is not None:
        raise ValueError("give a generator or secure=True, not both")
    keys = []
    for i, x in enumerate(params_like):
        shape = x.shape[x.ndim - _base_ndim(i) :]
        d = math.prod(shape)
        if secure:
            signs = _secure_signs((*batch, *shape)).to(x.dtype)
        else:
            draw = torch.randint(0, 2, (*batch, *shape), generator=generator)
            signs = draw.to(x.dtype) * 2 - 1
        keys.append((signs / math.sqrt(d)).to(x.device))
    return keys


def cosines(params: Sequence[torch.Tensor], key: Sequence[torch.Tensor]) -> torch.Tensor:
    """Per-layer cosines ``cos(θ_ℓ, τ_ℓ)``, broadcasting batch axes: ``(..., L)``."""
    params, key = _params("params", params), _params("key", key)
    if len(params) != len(key):
        raise ValueError(f"key must have {len(params)} layers, got {len(key)}")
    for name, xs in (("params", params), ("key", key)):
        for i, x in enumerate(xs):
            checks.finite(f"{name}[{i}]", x)
    cols = []
    for i, (x, k) in enumerate(zip(params, key, strict=True)):
        nd = _base_ndim(i)
        if x.shape[x.ndim - nd :] != k.shape[k.ndim - nd :]:
            raise ValueError(f"key[{i}] has layer shape {tuple(k.shape)}, params {tuple(x.shape)}")
        xf, kf = x.flatten(x.ndim - nd), k.flatten(k.ndim - nd).to(x.device)
        while xf.ndim < kf.ndim:  # align batch axes on the right
            xf = xf.unsqueeze(0)
        while kf.ndim < xf.ndim:
            kf = kf.unsqueeze(0)
        dot = (xf * kf).sum(-1)
        cols.append(dot / (xf.norm(dim=-1) * kf.norm(dim=-1)).clamp_min(1e-30))
    return torch.stack(cols, dim=-1)


def null_sigma(dims: Sequence[int]) -> float:
    """Null standard deviation of the layer-mean cosine: ``σ₀ = √(Σ_ℓ 1/d_ℓ) / L``.

    :eq:`threshold-watermark-eq-sigma0` of :prf:ref:`threshold-watermark-prop-null`.
    """
    if len(dims) == 0:
        raise ValueError("dims must list at least one layer size")
    ds = [checks.integer(f"dims[{i}]", d, low=1) for i, d in enumerate(dims)]
    return math.sqrt(sum(1.0 / d for d in ds)) / len(ds)


def detection_z(
    params: Sequence[torch.Tensor], key: Sequence[torch.Tensor], *, min_dim: int = 256
) -> torch.Tensor:
    """``z = S / σ₀`` with ``S`` the mean cosine over layers with ``d_ℓ ≥ min_dim``.

    :prf:ref:`threshold-watermark-def-detect`, with the analytic ``σ₀`` of
    :prf:ref:`threshold-watermark-prop-null` (μ₀ = 0).
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
    checks.finite("params", theta)
    checks.finite("key", tau)
    if theta.shape[-1] != tau.shape[-1]:
        raise ValueError(f"key must have {theta.shape[-1]} entries in all, got {tau.shape[-1]}")
    while theta.ndim < tau.ndim:
        theta = theta.unsqueeze(0)
    while tau.ndim < theta.ndim:
        tau = tau.unsqueeze(0)
    return (theta * torch.sign(tau)).sum(-1) / theta.norm(dim=-1)
