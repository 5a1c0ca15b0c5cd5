"""SPPO and DSPPO as batched multiplicative weights over many preference games
(:prf:ref:`hrc-dsppo-thm-dsppo`, chapter 08), with the duality gap under the true preference and
the LP equilibrium (through :mod:`icml26.games.zerosum`: a preference game is the symmetric
zero-sum game with payoff ``P − 1/2``).
"""

from __future__ import annotations

import contextlib
import math

import numpy as np
import torch

from icml26 import checks, stats
from icml26.games import zerosum
from icml26.games.preferences.heads import SelfPlayResult, _preference, _skew

__all__ = ["preference_equilibrium", "preference_gap", "schedule", "self_play"]


def _float64(name: str, x: object) -> torch.Tensor:
    """``x`` (a number, array or tensor) as a float64 tensor, on its device if a tensor."""
    if isinstance(x, torch.Tensor):
        return x.to(torch.float64)
    return torch.as_tensor(checks.as_float64(name, x))


def schedule(t: object, lam: object) -> tuple[torch.Tensor, torch.Tensor]:
    """DSPPO weights ``(1 ± λ/√t)`` of the two heads, ``t ≥ 1`` (:eq:`hrc-dsppo-eq-schedule`).

    Elementwise: ``t`` and ``lam`` (numbers or arrays) broadcast against each other.
    """
    t = _float64("t", t)
    if t.numel() == 0 or not torch.isfinite(t).all() or bool((t < 1).any()):
        raise ValueError("t must be iteration numbers >= 1 (t starts at 1, not 0)")
    lam = _float64("lam", lam)
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
    lam_t = _float64("lam", lam).to(dtype=S_T.dtype, device=S_T.device)
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
        P = torch.as_tensor(checks.as_float64("P", P))
    P = _preference("P", P)
    if P.ndim != 2:
        raise ValueError(f"P must be one (K, K) matrix, got {tuple(P.shape)}")
    return zerosum.maximin_lp((P - 0.5).double().cpu().numpy()).strategy
