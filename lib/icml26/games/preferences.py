"""Transitive and cyclic preferences: HRC decomposition and dynamic self-play (chapter 08).

Preference *scores* are logits, ``s(y_i, y_j) = log P(y_i ≻ y_j) / P(y_j ≻ y_i)``, collected in a
skew-symmetric matrix ``S`` (``S = -Sᵀ``). This module holds:

- :func:`decompose`, :func:`potential_lstsq` — the split ``S = T + C`` of a skew matrix into a
  transitive part (potential differences, row means) and a cyclic part (zero row sums),
  :prf:ref:`hrc-dsppo-thm-decomposition` of chapter 08, and the least-squares potential that must
  agree;
- :func:`bt_scores`, :func:`gpm_scores`, :func:`hrc_scores`, :func:`rotation`,
  :func:`preference_loss` — the Bradley–Terry, General Preference Model and Hybrid
  Reward-Cyclic heads (:prf:ref:`hrc-dsppo-def-models`) and their temperature-scaled logistic loss;
- :func:`random_tournament` (generator G1), :func:`dominant_cycle_pairs` and
  :func:`dominant_cycle_data` (G2, tabular and with item features);
- :func:`fit_tabular`, :func:`fit_encoder` — batched training of the heads over restarts/seeds;
- :func:`dominant_margin_lp` — the best margin a dominant candidate can get against a *fixed*
  cycle embedding (:prf:ref:`hrc-dsppo-thm-gpm-limits`, part ii);
- :func:`schedule`, :func:`self_play`, :func:`preference_gap`, :func:`preference_equilibrium` — SPPO
  / DSPPO as batched multiplicative weights over many games (:prf:ref:`hrc-dsppo-thm-dsppo`), the
  duality gap under the true preference and the LP equilibrium. The gap and the LP reuse
  :func:`icml26.games.zerosum.duality_gap` and :func:`icml26.games.zerosum.maximin_lp` (chapter 07):
  a preference game is the symmetric zero-sum game with payoff ``P − 1/2``.
"""

from __future__ import annotations

import contextlib
import math
from dataclasses import dataclass

import numpy as np
import torch
from scipy.optimize import linprog

from icml26 import checks, stats
from icml26.games import zerosum

__all__ = [
    "Decomposition",
    "EncoderFit",
    "SelfPlayResult",
    "TabularFit",
    "bt_scores",
    "decompose",
    "dominant_cycle_data",
    "dominant_cycle_pairs",
    "dominant_margin_lp",
    "fit_encoder",
    "fit_tabular",
    "gpm_scores",
    "hrc_scores",
    "potential_lstsq",
    "preference_equilibrium",
    "preference_gap",
    "preference_loss",
    "random_tournament",
    "rotation",
    "schedule",
    "self_play",
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


# --- validation helpers ------------------------------------------------------------------------


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
        S = torch.as_tensor(np.asarray(S, dtype=np.float64))
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
        r = checks.tensor("r", r, floating=True).clamp(-clip, clip)
    T = bt_scores(r)
    C = gpm_scores(V, gate)
    if T.shape != C.shape:
        raise ValueError(f"r and V must describe the same items, got {tuple(r.shape)}, {V.shape}")
    return T + C


def preference_loss(s: torch.Tensor, tau: float = 0.1) -> torch.Tensor:
    """The paper's loss ``mean −log σ(s/τ)`` over scores ``s(y_w, y_l)``.

    Implements :eq:`hrc-dsppo-eq-loss`.
    """
    s = checks.tensor("s", s, floating=True)
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


# --- training the heads ------------------------------------------------------------------------


def _check_head(head: str, dim: int) -> tuple[str, int]:
    if head not in HEADS:
        raise ValueError(f"head must be one of {HEADS}, got {head!r}")
    dim = checks.integer("dim", dim, low=0)
    if head == "bt" and dim != 0:
        raise ValueError("dim must be 0 for the Bradley–Terry head")
    if head != "bt" and (dim < 2 or dim % 2):
        raise ValueError(f"dim must be a positive even number (2d) for {head}, got {dim}")
    return head, dim


def _pairs(name: str, pairs: object, n: int) -> torch.Tensor:
    p = checks.tensor(name, pairs)
    if p.ndim != 2 or p.shape[1] != 2 or p.shape[0] < 1 or p.is_floating_point():
        raise ValueError(f"{name} must be an integer tensor of shape (m, 2), got {tuple(p.shape)}")
    if bool(((p < 0) | (p >= n)).any()) or bool((p[:, 0] == p[:, 1]).any()):
        raise ValueError(f"{name} must index distinct items in [0, {n})")
    return p


def _head_scores(
    head: str, r: torch.Tensor, V: torch.Tensor, gate_raw: torch.Tensor, clip: float
) -> torch.Tensor:
    """Score matrices of a head from raw parameters (reward ``r``, unnormalised ``V``)."""
    if head == "bt":
        return bt_scores(r)
    Vn = V / V.norm(dim=-1, keepdim=True).clamp_min(1e-12)
    C = gpm_scores(Vn, torch.nn.functional.softplus(gate_raw))
    if head == "gpm":
        return C
    return bt_scores(r.clamp(-clip, clip)) + C


def fit_tabular(
    pairs: torch.Tensor,
    n_items: int,
    head: str,
    dim: int,
    *,
    restarts: int = 8,
    steps: int = 3000,
    lr: float = 0.05,
    tau: float = 0.1,
    clip: float = 1.0,
    init_scale: float = 1.0,
    generator: torch.Generator,
) -> TabularFit:
    """Train free embeddings of ``n_items`` on labelled pairs; all restarts as one batch.

    Heads (:prf:ref:`hrc-dsppo-def-models`): ``"bt"`` (a scalar reward, ``dim = 0``), ``"gpm"``
    (unit-norm ``v ∈ R^dim`` with a learned non-negative gate per 2-D block) and ``"hrc"`` (a
    reward clipped to ``[−clip, clip]`` plus the GPM term). Loss: :func:`preference_loss` with
    temperature ``tau``; optimiser: full-batch Adam. Accuracy counts pairs with ``s(w, l) > 0``.
    """
    head, dim = _check_head(head, dim)
    n_items = checks.integer("n_items", n_items, low=2)
    p = _pairs("pairs", pairs, n_items)
    restarts = checks.integer("restarts", restarts, low=1)
    steps = checks.integer("steps", steps, low=0)
    lr = checks.real("lr", lr, low=0.0, strict=True)
    tau = checks.real("tau", tau, low=0.0, strict=True)
    clip = checks.real("clip", clip, low=0.0, strict=True)
    init_scale = checks.real("init_scale", init_scale, low=0.0, strict=True)
    g = _generator(generator)
    d = max(dim, 2)
    r = (0.1 * torch.randn(restarts, n_items, generator=g, dtype=torch.float64)).requires_grad_()
    V = init_scale * torch.randn(restarts, n_items, d, generator=g, dtype=torch.float64)
    V.requires_grad_()
    gate = torch.zeros(restarts, d // 2, dtype=torch.float64, requires_grad=True)
    params = [r] if head == "bt" else [V, gate] if head == "gpm" else [r, V, gate]
    opt = torch.optim.Adam(params, lr=lr)
    w, lo = p[:, 0], p[:, 1]
    for _ in range(steps):
        opt.zero_grad()
        S = _head_scores(head, r, V, gate, clip)
        loss = torch.nn.functional.softplus(-S[:, w, lo] / tau).mean(-1).sum()
        loss.backward()
        opt.step()
    with torch.no_grad():
        S = _head_scores(head, r, V, gate, clip)
        acc = (S[:, w, lo] > 0).double().mean(-1)
    return TabularFit(acc, S.detach())


def fit_encoder(
    X_train: torch.Tensor,
    X_test: torch.Tensor,
    pairs: torch.Tensor,
    head: str,
    dim: int,
    *,
    seeds: int = 5,
    steps: int = 600,
    hidden: int = 32,
    lr: float = 0.01,
    tau: float = 0.1,
    clip: float = 1.0,
    eval_every: int = 5,
    generator: torch.Generator,
) -> EncoderFit:
    """Train a shared two-layer MLP encoder + preference head, one run per seed, batched.

    ``X_*`` have shape ``(prompts, items, features)``; ``pairs`` (``(m, 2)``) are the labelled
    (winner, loser) item indices, the same in every prompt. The encoder ``h = tanh(x W₁ + b₁)``
    feeds the head of :func:`fit_tabular` (reward ``w_rᵀh`` clipped, embedding ``W_c h``
    normalised, a learned gate). Every ``eval_every`` steps the hard-sign pair accuracy on the
    training and the held-out prompts is recorded.
    """
    head, dim = _check_head(head, dim)
    for name, X in (("X_train", X_train), ("X_test", X_test)):
        checks.tensor(name, X, ndim=3, floating=True)
        checks.finite(name, X)
    if X_train.shape[1:] != X_test.shape[1:]:
        raise ValueError("X_train and X_test must have the same items and features")
    if X_train.device != X_test.device or X_train.dtype != X_test.dtype:
        raise ValueError("X_train and X_test must share a device and a dtype")
    p = _pairs("pairs", pairs, X_train.shape[1])
    seeds = checks.integer("seeds", seeds, low=1)
    steps = checks.integer("steps", steps, low=1)
    hidden = checks.integer("hidden", hidden, low=1)
    lr = checks.real("lr", lr, low=0.0, strict=True)
    tau = checks.real("tau", tau, low=0.0, strict=True)
    clip = checks.real("clip", clip, low=0.0, strict=True)
    eval_every = checks.integer("eval_every", eval_every, low=1)
    g = _generator(generator)
    F = X_train.shape[-1]
    d = max(dim, 2)
    dt, dev = X_train.dtype, X_train.device

    def init(*shape: int, fan_in: int) -> torch.Tensor:
        w = torch.randn(seeds, *shape, generator=g, dtype=torch.float64) / math.sqrt(fan_in)
        return w.to(device=dev, dtype=dt).requires_grad_()

    W1 = init(F, hidden, fan_in=F)
    b1 = torch.zeros(seeds, 1, hidden, dtype=dt, device=dev, requires_grad=True)
    wr, Wc = init(hidden, 1, fan_in=hidden), init(hidden, d, fan_in=hidden)
    gate = torch.zeros(seeds, 1, d // 2, dtype=dt, device=dev, requires_grad=True)
    params = [W1, b1, gate] + ([wr] if head != "gpm" else []) + ([Wc] if head != "bt" else [])
    opt = torch.optim.Adam(params, lr=lr)
    w, lo = p[:, 0].to(dev), p[:, 1].to(dev)

    def scores(X: torch.Tensor) -> torch.Tensor:
        P, n, _ = X.shape
        h = torch.tanh(X.reshape(1, P * n, F).expand(seeds, -1, -1) @ W1 + b1)
        r = (h @ wr).reshape(seeds, P, n)
        V = (h @ Wc).reshape(seeds, P, n, d)
        return _head_scores(head, r, V, gate, clip)  # (seeds, P, n, n)

    def accuracy(X: torch.Tensor) -> np.ndarray:
        with torch.no_grad():
            return (scores(X)[..., w, lo] > 0).double().mean((-1, -2)).cpu().numpy()

    rec_steps, acc_tr, acc_te = [], [], []
    for step in range(steps + 1):
        if step % eval_every == 0 or step == steps:
            rec_steps.append(step)
            acc_tr.append(accuracy(X_train))
            acc_te.append(accuracy(X_test))
        if step == steps:
            break
        opt.zero_grad()
        s = scores(X_train)[..., w, lo]
        loss = torch.nn.functional.softplus(-s / tau).mean((-1, -2)).sum()
        loss.backward()
        opt.step()
    return EncoderFit(np.array(rec_steps), np.array(acc_tr), np.array(acc_te))


# --- the fixed-embedding LP (Theorem C ii) -----------------------------------------------------


def dominant_margin_lp(cycle: object, *, reward: float = 0.0, bound: float = 1.0) -> float:
    """``max_{u ∈ [−bound, bound]^{2d}} min_i [reward + uᵀ R^≻ c_i]`` for a fixed cycle embedding.

    ``cycle`` is the ``(n, 2d)`` matrix of the cycle members' embeddings ``c_i``; ``u`` is the
    dominant candidate's embedding and ``reward`` its HRC reward advantage. A positive optimum means
    some ``u`` beats every member; :prf:ref:`hrc-dsppo-thm-gpm-limits` (ii) says the optimum is 0
    without reward for the evenly spaced embedding repeated in all blocks. Solved by HiGHS.
    """
    c = np.asarray(cycle.detach().cpu() if isinstance(cycle, torch.Tensor) else cycle, float)
    if c.ndim != 2 or c.shape[0] < 1 or c.shape[1] < 2 or c.shape[1] % 2:
        raise ValueError(f"cycle must have shape (n, 2d), got {c.shape}")
    checks.finite("cycle", c)
    reward = checks.real("reward", reward)
    bound = checks.real("bound", bound, low=0.0, strict=True)
    R = rotation(c.shape[1]).numpy()
    G = (R @ c.T).T  # row i: R c_i, so uᵀ R c_i = G[i] · u
    n, m = G.shape
    # variables (u, z): maximise z s.t. z − G u ≤ reward
    res = linprog(
        np.r_[np.zeros(m), -1.0],
        A_ub=np.c_[-G, np.ones(n)],
        b_ub=np.full(n, reward),
        bounds=[(-bound, bound)] * m + [(None, None)],
        method="highs",
    )
    if res.status != 0:
        raise RuntimeError(f"linprog (HiGHS) failed: {res.message}")
    return float(res.x[-1])


# --- self-play ---------------------------------------------------------------------------------


def schedule(t: object, lam: object) -> tuple[torch.Tensor, torch.Tensor]:
    """DSPPO weights ``(1 ± λ/√t)`` of the two heads, ``t ≥ 1`` (:eq:`hrc-dsppo-eq-schedule`)."""
    t = torch.as_tensor(t, dtype=torch.float64)
    if t.numel() == 0 or not torch.isfinite(t).all() or bool((t < 1).any()):
        raise ValueError("t must be iteration numbers >= 1 (t starts at 1, not 0)")
    lam = torch.as_tensor(lam, dtype=torch.float64)
    checks.finite("lam", lam)
    x = lam / t.sqrt()
    return 1 + x, 1 - x


def self_play(
    S_T: torch.Tensor,
    S_C: torch.Tensor,
    T: int,
    *,
    lam: object = 0.0,
    eta: float | None = None,
    record: list[int] | None = None,
    pi0: torch.Tensor | None = None,
) -> SelfPlayResult:
    """SPPO (``lam = 0``) / DSPPO self-play by batched multiplicative weights (chapter 08).

    Implements :prf:ref:`hrc-dsppo-def-dsppo` (:eq:`hrc-dsppo-eq-schedule`, :eq:`hrc-dsppo-eq-mwu`),
    whose average converges by :prf:ref:`hrc-dsppo-thm-dsppo`.

    ``S_T``, ``S_C``: transitive and cyclic scores, ``(B, K, K)`` (or ``(K, K)``). Round
    ``t = 1..T``: ``P_t = σ(a_t S_T + b_t S_C)`` with ``(a_t, b_t)`` = :func:`schedule` ``(t, lam)``
    (``lam`` a number or one per game, shape ``(B,)``), then
    ``π_{t+1} ∝ π_t · exp(η P_t π_t)`` — the step the paper's squared-loss regression reaches
    under a realizable (tabular) policy. Default ``η = 2 √(ln K / T)``. Returns the average
    π̄_T, the last iterate, and the running averages and iterates at the ``record`` steps
    (1-based).
    Everything stays on ``S_T``'s device.
    """
    S_T, S_C = _skew("S_T", S_T), _skew("S_C", S_C)
    if S_T.shape != S_C.shape:
        raise ValueError(f"S_T and S_C must match, got {tuple(S_T.shape)}, {tuple(S_C.shape)}")
    squeeze = S_T.ndim == 2
    if squeeze:
        S_T, S_C = S_T.unsqueeze(0), S_C.unsqueeze(0)
    if S_T.ndim != 3:
        raise ValueError(f"S_T must have shape (K, K) or (B, K, K), got {tuple(S_T.shape)}")
    B, K, _ = S_T.shape
    T = checks.integer("T", T, low=1)
    eta = (
        2.0 * math.sqrt(math.log(max(K, 2)) / T)
        if eta is None
        else checks.real("eta", eta, low=0.0, strict=True)
    )
    rec = sorted({checks.integer("record", k, low=1, high=T) for k in (record or [])})
    lam_t = torch.as_tensor(lam, dtype=S_T.dtype, device=S_T.device)
    checks.finite("lam", lam_t)
    if lam_t.ndim > 1 or (lam_t.ndim == 1 and lam_t.shape[0] != B):
        raise ValueError(f"lam must be a number or have shape ({B},), got {tuple(lam_t.shape)}")
    lam_t = lam_t.reshape(-1, 1, 1) if lam_t.ndim == 1 else lam_t
    if pi0 is None:
        pi = torch.full((B, K), 1.0 / K, dtype=S_T.dtype, device=S_T.device)
    else:
        checks.shape("pi0", pi0, (B, K) if not squeeze else (K,))
        checks.probability_vector("pi0", pi0)
        pi = pi0.reshape(B, K).to(S_T).clone()
    total = torch.zeros_like(pi)
    snaps: list[torch.Tensor] = []
    iters: list[torch.Tensor] = []
    s_sum = S_T + S_C  # s_t = (S_T + S_C) + (λ/√t)(S_T − S_C)
    drift = (S_T - S_C) * lam_t
    constant = not bool(drift.any())  # SPPO: the judge never moves
    P = torch.sigmoid(s_sum)
    gain = torch.empty(B, K, 1, dtype=S_T.dtype, device=S_T.device)
    device = S_T.device
    with stats.one_thread() if device.type == "cpu" else contextlib.nullcontext():
        for t in range(1, T + 1):
            total += pi
            if rec and t == rec[len(snaps)]:
                snaps.append(total / t)
                iters.append(pi.clone())
                if len(snaps) == len(rec):
                    rec = [*rec, T + 1]  # sentinel: nothing more to record
            if not constant:
                torch.add(s_sum, drift, alpha=1.0 / math.sqrt(t), out=P).sigmoid_()
            torch.bmm(P, pi.unsqueeze(-1), out=gain)  # P_t(y ≻ π_t)
            pi = pi.mul_(gain.squeeze(-1).mul_(eta).exp_())
            pi = pi.div_(pi.sum(-1, keepdim=True))
    avg = total / T
    snapshots = torch.stack(snaps) if snaps else avg.new_zeros((0, B, K))
    iterates = torch.stack(iters) if iters else avg.new_zeros((0, B, K))
    if squeeze:
        avg, pi, snapshots, iterates = avg[0], pi[0], snapshots[:, 0], iterates[:, 0]
    return SelfPlayResult(avg, pi, snapshots, iterates, eta)


def preference_gap(P: torch.Tensor, pi: torch.Tensor) -> torch.Tensor:
    """Duality gap ``2 (max_y P(y ≻ π) − 1/2)`` of a policy in the game ``P``.

    Implements :eq:`hrc-dsppo-eq-gap`.

    It is :func:`icml26.games.zerosum.duality_gap` of the symmetric zero-sum game ``A = P − 1/2``
    at the pair ``(π, π)``; zero exactly at a Nash equilibrium. ``P`` is ``(..., K, K)``, ``pi``
    ``(..., K)``.
    """
    P = _preference("P", P)
    pi = checks.tensor("pi", pi, floating=True)
    checks.shape("pi", pi, P.shape[:-1])
    checks.probability_vector("pi", pi)
    return zerosum.duality_gap(P - 0.5, pi, pi)


def preference_equilibrium(P: object) -> np.ndarray:
    """The Nash equilibrium (maximin strategy) of one preference game ``P`` (``(K, K)``) by LP.

    Reuses :func:`icml26.games.zerosum.maximin_lp` on ``A = P − 1/2``; the value is 0 by symmetry.
    """
    if not isinstance(P, torch.Tensor):
        P = torch.as_tensor(np.asarray(P, dtype=np.float64))
    P = _preference("P", P)
    if P.ndim != 2:
        raise ValueError(f"P must be one (K, K) matrix, got {tuple(P.shape)}")
    return zerosum.maximin_lp((P - 0.5).double().cpu().numpy()).strategy
