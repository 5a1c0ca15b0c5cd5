"""Training the preference heads of chapter 08, batched over restarts and seeds (tabular
embeddings and a shared MLP encoder), and the best margin a dominant candidate can get against a
fixed cycle embedding (:prf:ref:`hrc-dsppo-thm-gpm-limits`, part ii).
"""

from __future__ import annotations

import math

import numpy as np
import torch
from scipy.optimize import linprog

from icml26 import checks
from icml26.games.preferences.heads import (
    HEADS,
    EncoderFit,
    TabularFit,
    _generator,
    bt_scores,
    gpm_scores,
    rotation,
)

__all__ = ["dominant_margin_lp", "fit_encoder", "fit_tabular"]


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
    reward clipped to ``[−clip, clip]`` plus the GPM term). Loss:
    :func:`~icml26.games.preferences.heads.preference_loss` with temperature ``tau``; optimiser:
    full-batch Adam. Accuracy counts pairs with ``s(w, l) > 0``.
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
    net = _encoder_init(seeds, X_train, hidden, max(dim, 2), g)
    W1, b1, wr, Wc, gate = net
    params = [W1, b1, gate] + ([wr] if head != "gpm" else []) + ([Wc] if head != "bt" else [])
    opt = torch.optim.Adam(params, lr=lr)
    w, lo = p[:, 0].to(X_train.device), p[:, 1].to(X_train.device)

    def pair_scores(X: torch.Tensor) -> torch.Tensor:  # (seeds, prompts, pairs)
        return _encoder_scores(head, net, X, clip)[..., w, lo]

    rec_steps, acc_tr, acc_te = [], [], []
    for step in range(steps + 1):
        if step % eval_every == 0 or step == steps:
            rec_steps.append(step)
            with torch.no_grad():
                acc_tr.append(_accuracy(pair_scores(X_train)))
                acc_te.append(_accuracy(pair_scores(X_test)))
        if step == steps:
            break
        opt.zero_grad()
        loss = torch.nn.functional.softplus(-pair_scores(X_train) / tau).mean((-1, -2)).sum()
        loss.backward()
        opt.step()
    return EncoderFit(np.array(rec_steps), np.array(acc_tr), np.array(acc_te))


def _encoder_init(
    seeds: int, X: torch.Tensor, hidden: int, d: int, g: torch.Generator
) -> tuple[torch.Tensor, ...]:
    """``(W₁, b₁, w_r, W_c, gate)`` of :func:`fit_encoder`, one set per seed, on the device and
    in the dtype of ``X`` (the weights drawn in float64 in that order, scaled by ``1/√fan_in``;
    biases and gate zero)."""
    F, dt, dev = X.shape[-1], X.dtype, X.device

    def init(*shape: int, fan_in: int) -> torch.Tensor:
        w = torch.randn(seeds, *shape, generator=g, dtype=torch.float64) / math.sqrt(fan_in)
        return w.to(device=dev, dtype=dt).requires_grad_()

    W1 = init(F, hidden, fan_in=F)
    b1 = torch.zeros(seeds, 1, hidden, dtype=dt, device=dev, requires_grad=True)
    wr, Wc = init(hidden, 1, fan_in=hidden), init(hidden, d, fan_in=hidden)
    gate = torch.zeros(seeds, 1, d // 2, dtype=dt, device=dev, requires_grad=True)
    return W1, b1, wr, Wc, gate


def _encoder_scores(
    head: str, net: tuple[torch.Tensor, ...], X: torch.Tensor, clip: float
) -> torch.Tensor:
    """The head's scores ``(seeds, P, n, n)`` of the items ``X`` ``(P, n, features)`` through
    the encoder ``h = tanh(x W₁ + b₁)``."""
    W1, b1, wr, Wc, gate = net
    seeds, F, d = W1.shape[0], W1.shape[1], Wc.shape[-1]
    P, n, _ = X.shape
    h = torch.tanh(X.reshape(1, P * n, F).expand(seeds, -1, -1) @ W1 + b1)
    r = (h @ wr).reshape(seeds, P, n)
    V = (h @ Wc).reshape(seeds, P, n, d)
    return _head_scores(head, r, V, gate, clip)


def _accuracy(pair_scores: torch.Tensor) -> np.ndarray:
    """Hard-sign pair accuracy per seed, averaged over prompts and pairs."""
    return (pair_scores > 0).double().mean((-1, -2)).cpu().numpy()


# --- the fixed-embedding LP (Theorem C ii) -----------------------------------------------------


def dominant_margin_lp(cycle: object, *, reward: float = 0.0, bound: float = 1.0) -> float:
    """``max_{u ∈ [−bound, bound]^{2d}} min_i [reward + uᵀ R^≻ c_i]`` for a fixed cycle embedding.

    ``cycle`` is the ``(n, 2d)`` matrix of the cycle members' embeddings ``c_i``; ``u`` is the
    dominant candidate's embedding and ``reward`` its HRC reward advantage. A positive optimum means
    some ``u`` beats every member; :prf:ref:`hrc-dsppo-thm-gpm-limits` (ii) says the optimum is 0
    without reward for the evenly spaced embedding repeated in all blocks. Solved by HiGHS.
    """
    c = checks.as_float64("cycle", cycle)
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
