"""Preference scores and their heads (chapter 08): the HRC decomposition of a skew matrix
(:prf:ref:`hrc-dsppo-thm-decomposition`), the Bradley–Terry, General Preference Model and
Hybrid Reward-Cyclic heads (:prf:ref:`hrc-dsppo-def-models`) with their loss, and the
generators of tournaments and dominant-cycle data.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import torch

from icml26 import checks

__all__ = [
    "Decomposition",
    "EncoderFit",
    "SelfPlayResult",
    "TabularFit",
    "bt_scores",
    "decompose",
    "dominant_cycle_data",
    "dominant_cycle_pairs",
    "gpm_scores",
    "hrc_scores",
    "potential_lstsq",
    "preference_loss",
    "random_tournament",
    "rotation",
]


HEADS = ("bt", "gpm", "hrc")


@dataclass(frozen=True)
class Decomposition:
    """``S = T + C``: potential ``f`` (row means), transitive ``T_ij = f_i − f_j``, cyclic ``C``."""

    potential: torch.Tensor
    transitive: torch.Tensor
    cyclic: torch.Tensor


@dataclass(frozen=True)
class SelfPlayResult:
    """Self-play by multiplicative weights on a batch of preference games.

    ``average`` is the mixture π̄_T = (1/T) Σ_t π_t (``(B, K)``), ``last`` the last iterate
    π_T, ``snapshots`` the running averages π̄_t and ``iterates`` the iterates π_t at the
    requested ``record`` steps (each ``(len(record), B, K)``) and ``eta`` the step size used.
    """

    average: torch.Tensor
    last: torch.Tensor
    snapshots: torch.Tensor
    iterates: torch.Tensor
    eta: float


@dataclass(frozen=True)
class TabularFit:
    """Free (tabular) embeddings trained on labelled pairs, one run per restart.

    ``accuracy[k]`` is the hard-sign pair accuracy of restart ``k`` after training, ``scores`` the
    final score matrices ``(restarts, n, n)``.
    """

    accuracy: torch.Tensor
    scores: torch.Tensor


@dataclass(frozen=True)
class EncoderFit:
    """A shared MLP encoder with a preference head, one run per seed (batched).

    ``steps`` are the evaluation steps, ``train_accuracy`` / ``test_accuracy`` the pair
    accuracies at those steps, shape ``(len(steps), seeds)``.
    """

    steps: np.ndarray
    train_accuracy: np.ndarray
    test_accuracy: np.ndarray


def _skew(name: str, S: object, *, atol: float = 1e-9) -> torch.Tensor:
    S = checks.tensor(name, S, floating=True)
    if S.ndim < 2 or S.shape[-1] != S.shape[-2] or S.shape[-1] < 1:
        raise ValueError(f"{name} must be square in its last two axes, got {tuple(S.shape)}")
    checks.finite(name, S)
    scale = max(1.0, float(S.abs().amax())) if S.numel() else 1.0
    if S.numel() and float((S + S.transpose(-1, -2)).abs().amax()) > atol * scale:
        raise ValueError(f"{name} must be skew-symmetric (S = −Sᵀ): decompose logits, not P")
    return S


def _preference(name: str, P: object) -> torch.Tensor:
    P = checks.tensor(name, P, floating=True)
    if P.ndim < 2 or P.shape[-1] != P.shape[-2] or P.shape[-1] < 1:
        raise ValueError(f"{name} must be square in its last two axes, got {tuple(P.shape)}")
    checks.finite(name, P)
    if bool(((P < 0) | (P > 1)).any()):
        raise ValueError(f"{name} must hold probabilities in [0, 1]")
    if float((P + P.transpose(-1, -2) - 1).abs().amax()) > 1e-9:
        raise ValueError(f"{name} must satisfy P + Pᵀ = 1 (a preference matrix)")
    return P


def _generator(generator: object) -> torch.Generator:
    if not isinstance(generator, torch.Generator):
        raise ValueError("generator must be a torch.Generator")
    return generator


# --- decomposition -----------------------------------------------------------------------------


def decompose(S: torch.Tensor) -> Decomposition:
    """Split skew scores into transitive and cyclic parts (:prf:ref:`hrc-dsppo-thm-decomposition`).

    ``S`` has shape ``(..., n, n)``. The potential is the mean score against the uniform
    population, ``f_i = (1/n) Σ_j S_ij``; ``T_ij = f_i − f_j`` and ``C = S − T`` (every row and
    column of ``C`` sums to zero, ``⟨T, C⟩_F = 0``).
    """
    S = _skew("S", S)
    f = S.mean(-1)
    T = f.unsqueeze(-1) - f.unsqueeze(-2)
    return Decomposition(f, T, S - T)


def potential_lstsq(S: object) -> np.ndarray:
    """The least-squares potential ``argmin_g Σ_{i<j} (S_ij − g_i + g_j)²``, centred (HodgeRank).

    A plain ``numpy.linalg.lstsq`` over the ``n(n−1)/2`` pairs of one ``(n, n)`` matrix; by
    :prf:ref:`hrc-dsppo-thm-decomposition` it must equal the row-mean potential of
    :func:`decompose`.
    """
    if not isinstance(S, torch.Tensor):
        S = torch.as_tensor(checks.as_float64("S", S))
    S = _skew("S", S)
    if S.ndim != 2 or S.shape[0] < 2:
        raise ValueError(f"S must be one (n, n) matrix with n >= 2, got {tuple(S.shape)}")
    s = S.detach().cpu().double().numpy()
    n = s.shape[0]
    i, j = np.triu_indices(n, 1)
    D = np.zeros((i.size, n))
    D[np.arange(i.size), i] = 1.0
    D[np.arange(i.size), j] = -1.0
    g = np.linalg.lstsq(D, s[i, j], rcond=None)[0]
    return g - g.mean()


# --- preference heads --------------------------------------------------------------------------


def rotation(
    dim: int, *, dtype: torch.dtype = torch.float64, device: torch.device | str = "cpu"
) -> torch.Tensor:
    """The block-diagonal skew matrix ``R^≻ = diag([[0, −1], [1, 0]], ...)`` of size ``dim``."""
    dim = checks.integer("dim", dim, low=2)
    if dim % 2:
        raise ValueError(f"dim must be even (2d), got {dim}")
    R = torch.zeros(dim, dim, dtype=dtype, device=device)
    k = torch.arange(0, dim, 2, device=device)
    R[k, k + 1] = -1.0
    R[k + 1, k] = 1.0
    return R


def bt_scores(r: torch.Tensor) -> torch.Tensor:
    """Bradley–Terry scores ``s_ij = r_i − r_j`` for rewards ``r`` of shape ``(..., n)``."""
    r = checks.tensor("r", r, floating=True)
    if r.ndim < 1:
        raise ValueError("r must have at least one dimension (..., n)")
    checks.finite("r", r)
    return r.unsqueeze(-1) - r.unsqueeze(-2)


def gpm_scores(V: torch.Tensor, gate: torch.Tensor | None = None) -> torch.Tensor:
    """GPM scores ``s_ij = v_iᵀ D R^≻ D v_j`` for embeddings ``V`` of shape ``(..., n, 2d)``.

    ``gate`` (shape ``(..., d)``, non-negative) is the diagonal ``D = diag(λ) ⊗ I₂``; ``None``
    means ``D = I``. The result is skew-symmetric (:prf:ref:`hrc-dsppo-def-models`).
    """
    V = checks.tensor("V", V, floating=True)
    if V.ndim < 2 or V.shape[-1] < 2 or V.shape[-1] % 2:
        raise ValueError(f"V must have shape (..., n, 2d), got {tuple(V.shape)}")
    checks.finite("V", V)
    if gate is not None:
        gate = checks.tensor("gate", gate, floating=True)
        if gate.shape[-1] != V.shape[-1] // 2:
            raise ValueError(f"gate must have last axis d = {V.shape[-1] // 2}")
        checks.finite("gate", gate)
        if bool((gate < 0).any()):
            raise ValueError("gate must be non-negative")
        V = V * gate.repeat_interleave(2, dim=-1).unsqueeze(-2)
    R = rotation(V.shape[-1], dtype=V.dtype, device=V.device)
    return V @ R @ V.transpose(-1, -2)


def hrc_scores(
    r: torch.Tensor,
    V: torch.Tensor,
    gate: torch.Tensor | None = None,
    *,
    clip: float | None = None,
) -> torch.Tensor:
    """HRC scores ``(r_i − r_j) + v_iᵀ D R^≻ D v_j``, the reward clipped to ``[−clip, clip]``."""
    if clip is not None:
        clip = checks.real("clip", clip, low=0.0, strict=True)
        checks.tensor("r", r, floating=True)
        checks.finite("r", r)  # before the clip, which would turn an infinity into ±clip
        r = r.clamp(-clip, clip)
    T = bt_scores(r)
    C = gpm_scores(V, gate)
    if T.shape != C.shape:
        raise ValueError(f"r and V must describe the same items, got {tuple(r.shape)}, {V.shape}")
    return T + C


def preference_loss(s: torch.Tensor, tau: float = 0.1) -> torch.Tensor:
    """The paper's loss ``mean −log σ(s/τ)`` over scores ``s(y_w, y_l)``.

    Implements :eq:`hrc-dsppo-eq-loss`. ``s`` is finite, of any shape (the mean runs over all).
    """
    s = checks.tensor("s", s, floating=True)
    checks.finite("s", s)
    tau = checks.real("tau", tau, low=0.0, strict=True)
    return torch.nn.functional.softplus(-s / tau).mean()


# --- generators --------------------------------------------------------------------------------


def random_tournament(
    n: int,
    *,
    batch: int = 1,
    dim: int = 4,
    reward_scale: float = 1.0,
    cyclic_scale: float = 1.0,
    generator: torch.Generator,
    dtype: torch.dtype = torch.float64,
) -> tuple[torch.Tensor, torch.Tensor]:
    """Generator G1: ``S = S_T + S_C`` with ``S_T = r_i − r_j`` and a zero-mean GPM ``S_C``.

    ``r ~ N(0, reward_scale²)``; ``v_i ~ N(0, I_dim)``, centred over the ``n`` items, and ``S_C =
    cyclic_scale · V R^≻ Vᵀ / √dim`` (purely cyclic by :prf:ref:`hrc-dsppo-thm-instantiation`).
    Returns ``(S_T, S_C)``, each ``(batch, n, n)``, on the CPU generator's device.
    """
    n = checks.integer("n", n, low=2)
    batch = checks.integer("batch", batch, low=1)
    dim = checks.integer("dim", dim, low=2)
    if dim % 2:
        raise ValueError(f"dim must be even, got {dim}")
    reward_scale = checks.real("reward_scale", reward_scale, low=0.0)
    cyclic_scale = checks.real("cyclic_scale", cyclic_scale, low=0.0)
    g = _generator(generator)
    r = reward_scale * torch.randn(batch, n, generator=g, dtype=dtype)
    V = torch.randn(batch, n, dim, generator=g, dtype=dtype)
    V = V - V.mean(-2, keepdim=True)
    return bt_scores(r), cyclic_scale * gpm_scores(V) / math.sqrt(dim)


def dominant_cycle_pairs() -> torch.Tensor:
    """Generator G2 (tabular): items ``0 = A*``, ``1..3 = A₁..A₃``; 6 labelled (winner, loser).

    The cycle ``A₁ ≻ A₂ ≻ A₃ ≻ A₁`` and the dominant ``A* ≻ A_k`` for every ``k``.
    """
    return torch.tensor([[1, 2], [2, 3], [3, 1], [0, 1], [0, 2], [0, 3]])


def dominant_cycle_data(
    prompts: int,
    *,
    features: int = 16,
    noise: float = 0.1,
    generator: torch.Generator,
    dtype: torch.dtype = torch.float32,
) -> tuple[torch.Tensor, torch.Tensor]:
    """Generator G2 with item features: ``prompts`` groups of 4 responses and their labelled pairs.

    In each prompt the cycle members have a hidden "style" angle ``φ + 2πk/3`` (``φ`` random per
    prompt) and quality 0; the dominant response has a random angle and quality 1. A response's
    features are a fixed random linear map (shared by all prompts) of
    ``(cos angle, sin angle, quality, 1)`` plus Gaussian noise of standard deviation ``noise``.
    Returns ``X`` of shape ``(prompts, 4, features)`` (item 0 is the dominant one) and the
    ``(6, 2)`` pairs of :func:`dominant_cycle_pairs`; labels are the same in every prompt.
    """
    prompts = checks.integer("prompts", prompts, low=1)
    features = checks.integer("features", features, low=4)
    noise = checks.real("noise", noise, low=0.0)
    g = _generator(generator)
    phi = 2 * math.pi * torch.rand(prompts, 1, generator=g, dtype=torch.float64)
    k = torch.arange(3, dtype=torch.float64)
    # angles fall by 2π/3 along the cycle: with s_ij = v_iᵀ R v_j = sin(θ_i − θ_j), A_k ≻ A_{k+1}
    cyc = phi - 2 * math.pi * k / 3
    star = 2 * math.pi * torch.rand(prompts, 1, generator=g, dtype=torch.float64)
    angle = torch.cat([star, cyc], 1)  # (P, 4)
    quality = torch.zeros(prompts, 4, dtype=torch.float64)
    quality[:, 0] = 1.0
    latent = torch.stack(
        [angle.cos(), angle.sin(), quality, torch.ones_like(quality)], -1
    )  # (P, 4, 4)
    M = torch.randn(4, features, generator=g, dtype=torch.float64)
    X = latent @ M + noise * torch.randn(prompts, 4, features, generator=g, dtype=torch.float64)
    return X.to(dtype), dominant_cycle_pairs()
