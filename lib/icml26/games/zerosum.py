"""Zero-sum matrix games for black-box safety alignment (chapter 07, safety-game).

The answering agent (row player, maximiser) mixes over ``m`` candidate answers, the opponent
(column player, minimiser) over ``n`` query intents / evaluators; ``A[i, j]`` is the payoff
of answer ``i`` under intent ``j``. This module holds:

- :func:`maximin_lp` / :func:`minimax_lp` — the row player's LP (:eq:`safety-game-eq-primal`) and
  its dual, the column player's LP (:eq:`safety-game-eq-dual`), solved by HiGHS
  (``scipy.optimize.linprog``);
- :func:`mwu` — multiplicative weights (Hedge) for both players on a *batch* of games at once
  (:eq:`safety-game-eq-hedge`), returning the averaged strategies, value bracket and duality gap;
- :func:`duality_gap`, :func:`worst_case_payoff` — exploitability of a pair
  (:eq:`safety-game-eq-gap`);
- :func:`simulate_benchmark`, :func:`payoff_matrix`, :func:`judge_estimate` — the black-box
  simulator: candidates with latent helpfulness and risk, noisy judges, estimated payoffs
  (:eq:`safety-game-eq-payoff`, :eq:`safety-game-eq-estimate`);
- :func:`max_helpfulness_lp`, :func:`multiplier_game` — the risk-capped form of the intents game
  (an extension) and the bounded-multiplier game of one intent (:eq:`safety-game-eq-game-matrix`);
- :func:`hoeffding_samples`, :func:`mwu_gap_bound` — the sample-size and round-count bounds.

The paper's budgeted game (refusal-relative scores, a risk budget, one LP per prompt) is in
:mod:`icml26.games.budgeted`.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np
import torch
from scipy.optimize import linprog

from icml26 import checks, stats

__all__ = [
    "GameSolution",
    "MWUResult",
    "SafetyBenchmark",
    "duality_gap",
    "hoeffding_samples",
    "judge_estimate",
    "max_helpfulness_lp",
    "maximin_lp",
    "minimax_lp",
    "multiplier_game",
    "mwu",
    "mwu_gap_bound",
    "payoff_matrix",
    "simulate_benchmark",
    "worst_case_payoff",
]


@dataclass(frozen=True)
class GameSolution:
    """An optimal mixed strategy of one player and the value of the game."""

    strategy: np.ndarray
    value: float


@dataclass(frozen=True)
class MWUResult:
    """Averaged Hedge strategies on a batch of games (:eq:`safety-game-eq-hedge`).

    ``lower`` = min_j (x̄ᵀA)_j and ``upper`` = max_i (Aȳ)_i bracket the value of each game;
    ``gap = upper - lower`` is the duality gap (:eq:`safety-game-eq-gap`), ``value`` the bracket's
    midpoint and ``rounds`` the number of rounds run (``T``, or fewer when stopped early by
    ``tol``).
    """

    x: torch.Tensor
    y: torch.Tensor
    lower: torch.Tensor
    upper: torch.Tensor
    gap: torch.Tensor
    value: torch.Tensor
    rounds: int


@dataclass(frozen=True)
class SafetyBenchmark:
    """Latent judge probabilities of a simulated safety benchmark (:eq:`safety-game-eq-payoff`).

    ``helpful[q, i, j]`` is the probability that judge/intent ``j`` rates candidate ``i`` of
    query ``q`` helpful; ``risk[q, i, j]`` the probability that it flags it unsafe.
    """

    helpful: torch.Tensor
    risk: torch.Tensor


def _matrix(name: str, A: object) -> np.ndarray:
    a = checks.as_float64(name, A)
    if a.ndim != 2 or a.shape[0] < 1 or a.shape[1] < 1:
        raise ValueError(f"{name} must be a non-empty 2-D payoff matrix, got shape {a.shape}")
    checks.finite(name, a)
    return a


def _lp(c: np.ndarray, a_ub: np.ndarray, k: int) -> np.ndarray:
    """Solve min cᵀz s.t. a_ub z ≤ 0, Σ z[:k] = 1, z[:k] ≥ 0, z[k] free (HiGHS)."""
    a_eq = np.zeros((1, k + 1))
    a_eq[0, :k] = 1.0
    res = linprog(
        c,
        A_ub=a_ub,
        b_ub=np.zeros(a_ub.shape[0]),
        A_eq=a_eq,
        b_eq=np.ones(1),
        bounds=[(0.0, None)] * k + [(None, None)],
        method="highs",
    )
    if res.status != 0:
        raise RuntimeError(f"linprog (HiGHS) failed: {res.message}")
    return res.x


def maximin_lp(A: object) -> GameSolution:
    """Row player's maximin strategy: max v s.t. Aᵀx ≥ v𝟙, x ∈ Δ_m (:eq:`safety-game-eq-primal`)."""
    a = _matrix("A", A)
    m, n = a.shape
    z = _lp(np.r_[np.zeros(m), -1.0], np.c_[-a.T, np.ones(n)], m)
    x = np.clip(z[:m], 0.0, None)
    return GameSolution(x / x.sum(), float(z[m]))


def minimax_lp(A: object) -> GameSolution:
    """Column player's minimax strategy: min u s.t. Ay ≤ u𝟙, y ∈ Δ_n (:eq:`safety-game-eq-dual`)."""
    a = _matrix("A", A)
    m, n = a.shape
    z = _lp(np.r_[np.zeros(n), 1.0], np.c_[a, -np.ones(m)], n)
    y = np.clip(z[:n], 0.0, None)
    return GameSolution(y / y.sum(), float(z[n]))


def max_helpfulness_lp(helpful: object, risk: object, cap: float) -> GameSolution:
    """max_x min_j (xᵀH)_j s.t. max_j (xᵀR)_j ≤ cap, x ∈ Δ_K (risk-capped form, chapter 07).

    ``helpful`` and ``risk`` are ``(K, J)`` matrices (candidates × intents); the returned value
    is the guaranteed helpfulness. Raises ``ValueError`` when no mixture meets the cap.
    """
    h = _matrix("helpful", helpful)
    r = _matrix("risk", risk)
    if h.shape != r.shape:
        raise ValueError(f"helpful and risk must have matching shapes, got {h.shape} and {r.shape}")
    cap = checks.real("cap", cap)
    K, J = h.shape
    a_ub = np.r_[np.c_[-h.T, np.ones(J)], np.c_[r.T, np.zeros(J)]]
    b_ub = np.r_[np.zeros(J), np.full(J, cap)]
    a_eq = np.r_[np.ones(K), 0.0][None]
    res = linprog(
        np.r_[np.zeros(K), -1.0],
        A_ub=a_ub,
        b_ub=b_ub,
        A_eq=a_eq,
        b_eq=np.ones(1),
        bounds=[(0.0, None)] * K + [(None, None)],
        method="highs",
    )
    if res.status == 2:
        raise ValueError(f"cap={cap} is below the smallest achievable worst-case risk")
    if res.status != 0:
        raise RuntimeError(f"linprog (HiGHS) failed: {res.message}")
    x = np.clip(res.x[:K], 0.0, None)
    return GameSolution(x / x.sum(), float(res.x[K]))


def multiplier_game(helpful: object, risk: object, cap: float, lam_max: float) -> np.ndarray:
    """The multiplier game of a risk cap: columns M and M + λ̄(τ − r).

    Implements :eq:`safety-game-eq-game-matrix`.

    For one intent, helpfulness ``M`` (K,) and risk ``r`` (K,), the Lagrangian
    L(x, λ) = xᵀM + λ(τ − xᵀr) with λ ∈ [0, λ̄] is bilinear, so the multiplier player only needs
    the end points λ ∈ {0, λ̄}: the game is the ``(K, 2)`` matrix returned here.
    """
    m = np.asarray(helpful, dtype=np.float64)
    r = np.asarray(risk, dtype=np.float64)
    if m.ndim != 1 or m.shape != r.shape or m.size == 0:
        raise ValueError(f"helpful and risk must be matching 1-D vectors, got {m.shape}, {r.shape}")
    checks.finite("helpful", m)
    checks.finite("risk", r)
    cap = checks.real("cap", cap)
    lam_max = checks.real("lam_max", lam_max, low=0.0)
    return np.c_[m, m + lam_max * (cap - r)]


def _batched(name: str, A: torch.Tensor) -> torch.Tensor:
    if not isinstance(A, torch.Tensor):
        raise ValueError(f"{name} must be a torch.Tensor, got {type(A).__name__}")
    if A.ndim not in (2, 3) or A.shape[-1] < 1 or A.shape[-2] < 1:
        raise ValueError(f"{name} must have shape (m, n) or (B, m, n), got {tuple(A.shape)}")
    if not A.is_floating_point():
        raise ValueError(f"{name} must be a floating-point tensor, got {A.dtype}")
    checks.finite(name, A)
    return A


def worst_case_payoff(A: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
    """min_j (xᵀA)_j: what strategy ``x`` guarantees against a best-responding opponent."""
    A = _batched("A", A)
    checks.shape("x", x, (*A.shape[:-2], A.shape[-2]))
    checks.probability_vector("x", x)
    return (x.unsqueeze(-1) * A).sum(-2).amin(-1)


def duality_gap(A: torch.Tensor, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """max_i (Ay)_i − min_j (xᵀA)_j ≥ 0, zero exactly at an equilibrium.

    Implements :eq:`safety-game-eq-gap`.
    """
    A = _batched("A", A)
    checks.shape("y", y, (*A.shape[:-2], A.shape[-1]))
    checks.probability_vector("y", y)
    upper = (A * y.unsqueeze(-2)).sum(-1).amax(-1)
    return upper - worst_case_payoff(A, x)


@contextmanager
def _single_thread(device: torch.device) -> Iterator[None]:
    """Run tiny per-round CPU ops on one thread (intra-op threads only stall on them)."""
    if device.type != "cpu":
        yield
        return
    with stats.one_thread():
        yield


def mwu(
    A: torch.Tensor,
    T: int,
    eta: float | None = None,
    *,
    tol: float | None = None,
    check_every: int = 32,
) -> MWUResult:
    """Both players run Hedge for ``T`` rounds on every game of the batch.

    Implements :eq:`safety-game-eq-hedge`.

    ``A`` has shape ``(B, m, n)`` (or ``(m, n)``). Round ``t``: x_t ∝ exp(η Σ_{s<t} A y_s),
    y_t ∝ exp(−η' Σ_{s<t} Aᵀ x_s). Default step sizes are the horizon-tuned
    η = √(8 ln m / T) / L, η' = √(8 ln n / T) / L with L the payoff range of each game, for
    which the duality gap of the averaged strategies is at most :func:`mwu_gap_bound`. A given
    ``eta`` is used for both players, scaled by 1 / L.

    With ``tol`` the run stops early, after the first multiple of ``check_every`` rounds at
    which *every* game's duality gap (computed exactly from the averages, a certificate) is
    ``≤ tol``; the step sizes stay those of horizon ``T``, so ``MWUResult.rounds`` ≤ ``T``.
    Each check is the only host synchronisation of the loop.

    Implementation: the update is applied multiplicatively, x_{t+1} ∝ x_t ⊙ exp(η A y_t), on the
    payoff centred per game (A − (max A + min A)/2, which changes no iterate: Hedge is
    shift-invariant), so every factor lies in [e^{−ηL/2}, e^{ηL/2}] and nothing overflows. The
    batch is stored last, ``(m, n, B)``, so that every per-round op is a vectorised sweep over
    the games instead of ``B`` tiny matrix products. Everything stays on ``A``'s device and in
    ``A``'s dtype (float32 halves the work; its roundoff, ~1e-6 on payoffs of order one, is far
    below the gaps Hedge reaches). On CPU the rounds run on one thread, since each round's
    tensors are small and intra-op threads only add synchronisation.
    """
    A = _batched("A", A)
    T = checks.integer("T", T, low=1)
    if eta is not None:
        eta = checks.real("eta", eta, low=0.0, strict=True)
    if tol is not None:
        tol = checks.real("tol", tol, low=0.0, strict=True)
    check_every = checks.integer("check_every", check_every, low=1)
    squeeze = A.ndim == 2
    if squeeze:
        A = A.unsqueeze(0)
    Gx, Gy = _hedge_gains(A, T, eta)
    Ab = A.permute(1, 2, 0).contiguous()  # (m, n, B), for the certificate
    with _single_thread(A.device):
        xs, ys, rounds = _hedge_rounds(Gx, Gy, Ab, T, tol, check_every)
    xb, yb = xs / rounds, ys / rounds
    lower, upper = _bracket(Ab, xb, yb)
    xb, yb = xb.T, yb.T
    parts = [xb, yb, lower, upper, upper - lower, 0.5 * (lower + upper)]
    if squeeze:
        parts = [p.squeeze(0) for p in parts]
    x, y, lower, upper, gap, value = parts
    return MWUResult(x, y, lower, upper, gap, value, rounds=rounds)


def _hedge_gains(A: torch.Tensor, T: int, eta: float | None) -> tuple[torch.Tensor, torch.Tensor]:
    """``(η A, −η' A)`` of every game, on the payoff centred per game, batch last ``(m, n, B)``:
    the exponents of the two players' multiplicative updates in :func:`mwu`."""
    B, m, n = A.shape
    hi, lo = A.amax((-2, -1)), A.amin((-2, -1))
    width = (hi - lo).clamp_min(1e-12)
    if eta is None:
        eta_x = math.sqrt(8.0 * math.log(max(m, 2)) / T) / width
        eta_y = math.sqrt(8.0 * math.log(max(n, 2)) / T) / width
    else:
        eta_x = eta_y = eta / width
    centred = A - (0.5 * (hi + lo)).view(B, 1, 1)
    Gx = (centred * eta_x.view(B, 1, 1)).permute(1, 2, 0).contiguous()  # (m, n, B): η A
    Gy = (centred * -eta_y.view(B, 1, 1)).permute(1, 2, 0).contiguous()  # (m, n, B): −η' A
    return Gx, Gy


def _bracket(
    Ab: torch.Tensor, xb: torch.Tensor, yb: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor]:
    """``(min_j (x̄ᵀA)_j, max_i (Aȳ)_i)`` of every game: the value lies between them."""
    lower = (Ab * xb.unsqueeze(1)).sum(0).amin(0)
    upper = (Ab * yb.unsqueeze(0)).sum(1).amax(0)
    return lower, upper


def _hedge_rounds(
    Gx: torch.Tensor,
    Gy: torch.Tensor,
    Ab: torch.Tensor,
    T: int,
    tol: float | None,
    check_every: int,
) -> tuple[torch.Tensor, torch.Tensor, int]:
    """Up to ``T`` Hedge rounds of both players from uniform strategies: the sums of the
    iterates ``(m, B)``, ``(n, B)`` and the rounds run (fewer when every gap is ``≤ tol``)."""
    m, n, B = Ab.shape
    x = torch.full((m, B), 1.0 / m, dtype=Ab.dtype, device=Ab.device)
    y = torch.full((n, B), 1.0 / n, dtype=Ab.dtype, device=Ab.device)
    xs, ys = torch.zeros_like(x), torch.zeros_like(y)
    bx, by = torch.empty_like(Gx), torch.empty_like(Gy)
    rounds = 0
    for t in range(1, T + 1):
        xs += x
        ys += y
        fx = torch.mul(Gx, y.unsqueeze(0), out=bx).sum(1).exp_()  # e^{η (A y_t)_i}
        fy = torch.mul(Gy, x.unsqueeze(1), out=by).sum(0).exp_()  # e^{−η' (Aᵀx_t)_j}
        x = x.mul_(fx)
        x = x.div_(x.sum(0))
        y = y.mul_(fy)
        y = y.div_(y.sum(0))
        rounds = t
        if tol is not None and t % check_every == 0 and t < T:
            lower, upper = _bracket(Ab, xs / t, ys / t)
            if bool(((upper - lower) <= tol).all()):
                break
    return xs, ys, rounds


def mwu_gap_bound(m: int, n: int, T: int, width: float = 1.0) -> float:
    """L(√(ln m / 2T) + √(ln n / 2T)): the gap guarantee of :func:`mwu`.

    Implements :prf:ref:`safety-game-thm-mwu`.
    """
    m = checks.integer("m", m, low=1)
    n = checks.integer("n", n, low=1)
    T = checks.integer("T", T, low=1)
    width = checks.real("width", width, low=0.0, strict=True)
    return width * (
        math.sqrt(math.log(max(m, 2)) / (2 * T)) + math.sqrt(math.log(max(n, 2)) / (2 * T))
    )


def hoeffding_samples(delta: float, beta: float, entries: int, width: float = 1.0) -> int:
    """Judge calls per entry so that ‖Â − A‖_max ≤ δ w.p. ≥ 1 − β.

    Implements :prf:ref:`safety-game-prop-hoeffding`.

    Each of ``entries`` payoff entries is the mean of ``n`` i.i.d. scores in an interval of
    length ``width``; Hoeffding plus a union bound give n = ⌈width² ln(2·entries/β) / (2δ²)⌉.
    """
    delta = checks.real("delta", delta, low=0.0, strict=True)
    beta = checks.real("beta", beta, low=0.0, high=1.0, strict=True)
    entries = checks.integer("entries", entries, low=1)
    width = checks.real("width", width, low=0.0, strict=True)
    ratio = width / delta
    n = ratio * ratio * (math.log(2 * entries) - math.log(beta)) / 2  # inf, never OverflowError
    if not math.isfinite(n):
        raise ValueError(f"delta={delta} is too small relative to width={width}")
    return max(1, math.ceil(n))


def simulate_benchmark(
    queries: int,
    candidates: int,
    intents: int,
    *,
    generator: torch.Generator,
    device: torch.device | str = "cpu",
    dtype: torch.dtype = torch.float64,
) -> SafetyBenchmark:
    """A synthetic safety benchmark with latent helpfulness and risk (:eq:`safety-game-eq-payoff`).

    Candidate ``i`` of a query has informativeness t_i = i / (K − 1): candidate 0 is a refusal
    (never helpful, never unsafe), the last the most detailed answer. A query has a sensitivity
    s ~ U(0, 1); intent/judge ``j`` has an appreciation a_j ∈ [0.6, 1] of helpful detail and a
    harm amplification b_j ∈ [0.2, 1] (the last intent is fully malicious, b = 1). Then
    helpful = clip(a_j t_i^0.6 (0.8 + 0.4 u_i)(0.75 + 0.5 u_ij) + ε) — intents value the same
    answer differently — and risk = clip(s b_j t_i^1.5 (0.6 + 0.8 u'_ij)), with u, u' ~ U(0, 1)
    independent per query and ε ~ N(0, 0.05²).
    """
    Q = checks.integer("queries", queries, low=1)
    K = checks.integer("candidates", candidates, low=2)
    J = checks.integer("intents", intents, low=1)
    if not isinstance(generator, torch.Generator):
        raise ValueError("generator must be a torch.Generator")

    def u(*shape: int) -> torch.Tensor:
        return torch.rand(*shape, generator=generator, dtype=dtype).to(device)

    t = torch.linspace(0.0, 1.0, K, dtype=dtype, device=device).view(1, K, 1)
    a = 0.6 + 0.4 * u(1, 1, J)
    b = 0.2 + 0.8 * u(1, 1, J)
    b[..., -1] = 1.0
    s = u(Q, 1, 1)
    noise = 0.05 * torch.randn(Q, K, J, generator=generator, dtype=dtype).to(device)
    appeal = (0.8 + 0.4 * u(Q, K, 1)) * (0.75 + 0.5 * u(Q, K, J))
    helpful = (a * t**0.6 * appeal + noise * (t > 0)).clamp(0.0, 1.0)
    risk = (s * b * t**1.5 * (0.6 + 0.8 * u(Q, K, J))).clamp(0.0, 1.0)
    return SafetyBenchmark(helpful, risk)


def _probabilities(helpful: torch.Tensor, risk: torch.Tensor) -> None:
    for name, p in (("helpful", helpful), ("risk", risk)):
        if not isinstance(p, torch.Tensor) or not p.is_floating_point():
            raise ValueError(f"{name} must be a floating-point torch.Tensor")
        checks.finite(name, p)
        if bool(((p < 0) | (p > 1)).any()):
            raise ValueError(f"{name} must hold probabilities in [0, 1]")
    if helpful.shape != risk.shape:
        raise ValueError(
            f"helpful and risk must have matching shapes, got {tuple(helpful.shape)} "
            f"and {tuple(risk.shape)}"
        )


def payoff_matrix(helpful: torch.Tensor, risk: torch.Tensor, w: float) -> torch.Tensor:
    """A = (1 − w)·helpful − w·risk, the payoff of the safety game (:eq:`safety-game-eq-payoff`)."""
    _probabilities(helpful, risk)
    w = checks.real("w", w, low=0.0, high=1.0)
    return (1.0 - w) * helpful - w * risk


def judge_estimate(
    helpful: torch.Tensor,
    risk: torch.Tensor,
    w: float,
    samples: int | list[int],
    *,
    generator: torch.Generator,
) -> torch.Tensor:
    """Â from noisy judge calls (:eq:`safety-game-eq-estimate`).

    Each call returns a helpful flag ~ Bernoulli(helpful) and an unsafe flag ~ Bernoulli(risk);
    the call's score (1 − w)·flag_h − w·flag_r lies in an interval of length 1, and Â is the
    mean score over the calls. With an increasing list ``samples = [n_1 < n_2 < ...]`` the
    estimates are *nested* (the first n_1 calls are shared by every n_k, as when one keeps
    querying the judges) and stacked along a new leading axis. Counts are drawn as binomials
    on ``generator``'s device, then moved to the inputs' device.
    """
    _probabilities(helpful, risk)
    w = checks.real("w", w, low=0.0, high=1.0)
    single = not isinstance(samples, (list, tuple))
    ns = list(samples) if isinstance(samples, (list, tuple)) else [samples]
    if not ns:
        raise ValueError("samples must be a positive integer or a non-empty list of them")
    ns = [checks.integer("samples", n, low=1) for n in ns]
    if any(b <= a for a, b in itertools.pairwise(ns)):
        raise ValueError(f"samples must be strictly increasing, got {ns}")
    if not isinstance(generator, torch.Generator):
        raise ValueError("generator must be a torch.Generator")
    gdev = generator.device
    ph, pr = helpful.to(gdev), risk.to(gdev)
    h = torch.zeros_like(ph)
    r = torch.zeros_like(pr)
    out, done = [], 0
    for n in ns:
        extra = torch.full_like(ph, float(n - done))
        h += torch.binomial(extra, ph, generator=generator)
        r += torch.binomial(extra, pr, generator=generator)
        done = n
        out.append(((1.0 - w) * h - w * r) / n)
    est = torch.stack(out).to(helpful.device)
    return est[0] if single else est
