"""The paper's budgeted safety game (chapter 07): refusal-relative scores, a risk budget, one LP.

- :func:`budgeted_lp`, :func:`budgeted_lp_batched`, :func:`safety_game`, :func:`threshold_filter` —
  the paper's budgeted LP (:eq:`safety-game-eq-budget-lp`), by HiGHS and batched over prompts, its
  game (:eq:`safety-game-eq-game-matrix`, :prf:ref:`safety-game-thm-reduction`) and the filter
  baseline;
- :func:`simulate_candidates`, :func:`probe` — a simulated candidate pool and one-probe readings.

The general zero-sum machinery (LPs, Hedge, duality gaps) is in :mod:`icml26.games.zerosum`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
from scipy.optimize import linprog

from icml26 import checks

__all__ = [
    "BudgetedSolution",
    "CandidatePool",
    "budgeted_lp",
    "budgeted_lp_batched",
    "probe",
    "safety_game",
    "simulate_candidates",
    "tensor_2d",
    "threshold_filter",
]


@dataclass(frozen=True)
class BudgetedSolution:
    """Solution of the budgeted LP: strategy, helpfulness value and smallest optimal multiplier."""

    strategy: np.ndarray
    value: float
    multiplier: float


@dataclass(frozen=True)
class CandidatePool:
    """True yes-probabilities of the two probes, ``(Q, K)``; column 0 is the refusal."""

    helpful: torch.Tensor
    risk: torch.Tensor


def _scores(helpful: object, risk: object) -> tuple[np.ndarray, np.ndarray]:
    m = np.asarray(helpful, dtype=np.float64)
    d = np.asarray(risk, dtype=np.float64)
    if m.ndim != 1 or m.shape != d.shape or m.size == 0:
        raise ValueError(f"helpful and risk must be matching 1-D vectors, got {m.shape}, {d.shape}")
    checks.finite("helpful", m)
    checks.finite("risk", d)
    return m, d


def budgeted_lp(helpful: object, risk: object, budget: float) -> BudgetedSolution:
    """max π·M s.t. π·Δ ≤ T, π ∈ Δ_K by HiGHS (:eq:`safety-game-eq-budget-lp`, chapter 07).

    ``helpful`` (M) and ``risk`` (Δ) are refusal-relative scores of the ``K`` candidates. The
    returned ``multiplier`` is the smallest optimal Lagrange multiplier λ* of the budget, the
    threshold of :prf:ref:`safety-game-thm-reduction`. Raises ``ValueError`` when no mixture meets
    T.
    """
    m, d = _scores(helpful, risk)
    t = checks.real("budget", budget)
    K = m.size
    res = linprog(
        -m,
        A_ub=d[None],
        b_ub=[t],
        A_eq=np.ones((1, K)),
        b_eq=[1.0],
        bounds=[(0.0, None)] * K,
        method="highs",
    )
    if res.status == 2:
        raise ValueError(f"budget={t} is below the smallest risk score {d.min()}")
    if res.status != 0:
        raise RuntimeError(f"linprog (HiGHS) failed: {res.message}")
    x = np.clip(res.x, 0.0, None)
    x = x / x.sum()
    value = float(x @ m)
    over = d > t
    lam = max(0.0, float(((m[over] - value) / (d[over] - t)).max())) if over.any() else 0.0
    return BudgetedSolution(x, value, lam)


def budgeted_lp_batched(
    helpful: torch.Tensor, risk: torch.Tensor, budget: float | torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor]:
    """The budgeted LP for a batch ``(Q, K)`` of queries at once, exactly.

    Implements :eq:`safety-game-eq-budget-lp`.

    With one constraint besides the simplex, an optimal vertex mixes at most two candidates:
    one within the budget and one over it, with the budget tight. Enumerating all pairs is a
    handful of vectorised operations on ``(Q, K, K)`` tensors (no solver, any device). Returns
    the values ``(Q,)`` and optimal strategies ``(Q, K)``.
    """
    m = tensor_2d("helpful", helpful)
    d = tensor_2d("risk", risk)
    if m.shape != d.shape:
        raise ValueError(f"helpful and risk must have matching shapes, got {m.shape}, {d.shape}")
    t = torch.as_tensor(budget, dtype=m.dtype, device=m.device).reshape(-1, 1)
    if t.shape[0] not in (1, m.shape[0]) or not torch.isfinite(t).all():
        raise ValueError("budget must be a finite scalar or one value per query")
    ok = d <= t
    if not ok.any(-1).all():
        raise ValueError("budget is below every candidate's risk score for some query")
    neg = torch.tensor(-torch.inf, dtype=m.dtype, device=m.device)
    pure = torch.where(ok, m, neg)  # (Q, K)
    di, dj = d.unsqueeze(2), d.unsqueeze(1)  # i within budget, j over it
    theta = ((t.unsqueeze(2) - di) / (dj - di).clamp_min(1e-300)).clamp(0.0, 1.0)
    pair_ok = ok.unsqueeze(2) & ~ok.unsqueeze(1)
    pair = torch.where(pair_ok, m.unsqueeze(2) + theta * (m.unsqueeze(1) - m.unsqueeze(2)), neg)
    Q, K = m.shape
    best_pure, ip = pure.max(-1)
    best_pair, flat = pair.reshape(Q, K * K).max(-1)
    i, j = flat // K, flat % K
    th = theta.reshape(Q, K * K).gather(1, flat[:, None]).squeeze(1)
    x = torch.zeros_like(m)
    use_pair = best_pair > best_pure
    rows = torch.arange(Q, device=m.device)
    x[rows, ip] = (~use_pair).to(m.dtype)
    x[rows, i] += use_pair.to(m.dtype) * (1 - th)
    x[rows, j] += use_pair.to(m.dtype) * th
    return torch.maximum(best_pure, best_pair), x


def tensor_2d(name: str, a: object) -> torch.Tensor:
    """Validate a floating ``(Q, K)`` tensor of finite scores (chapter 07); returns it."""
    if (
        not isinstance(a, torch.Tensor)
        or a.ndim != 2
        or not a.is_floating_point()
        or a.numel() == 0
    ):
        raise ValueError(f"{name} must be a non-empty floating (Q, K) torch.Tensor")
    checks.finite(name, a)
    return a


def safety_game(helpful: object, risk: object, budget: float, beta: float) -> np.ndarray:
    """The paper's game as a ``(K, 2)`` matrix (:eq:`safety-game-eq-game-matrix`, chapter 07).

    Columns: the benign user (λ = 0) and the adversarial user charging λ = 1 per unit of excess
    risk, weighted by the prior: ``[M, M + β(T − Δ)] / (β + 1)``. Its maximin value is the value
    V of :prf:ref:`safety-game-def-budget-game`.
    """
    m, d = _scores(helpful, risk)
    t = checks.real("budget", budget)
    b = checks.real("beta", beta, low=0.0)
    return np.c_[m, m + b * (t - d)] / (b + 1.0)


def threshold_filter(helpful: torch.Tensor, risk: torch.Tensor, budget: float) -> torch.Tensor:
    """Baseline: drop every candidate with Δ > T, answer the most helpful remaining (one-hot)."""
    m = tensor_2d("helpful", helpful)
    d = tensor_2d("risk", risk)
    t = checks.real("budget", budget)
    score = torch.where(d <= t, m, torch.tensor(-torch.inf, dtype=m.dtype, device=m.device))
    if not torch.isfinite(score.max(-1).values).all():
        raise ValueError("budget is below every candidate's risk score for some query")
    return torch.nn.functional.one_hot(score.argmax(-1), m.shape[1]).to(m.dtype)


def simulate_candidates(
    queries: int, candidates: int, *, generator: torch.Generator, dtype: torch.dtype = torch.float64
) -> CandidatePool:
    """A simulated candidate pool: true yes-probabilities of the helpful and harmful probes.

    Column 0 is the refusal (helpful 0.05, harmful 0.02). Candidate ``i ≥ 1`` has a level of
    detail u ~ U(0, 1) and a quality q ~ U(0.5, 1); a query has a sensitivity s ~ Beta(1, 2)
    (most questions are harmless). helpful = 0.05 + 0.9 q u^0.5, harmful = 0.02 + 0.9 s u^1.5 w
    with w ~ U(0.4, 1.6) clipped to [0, 1]: more detail helps and, on sensitive questions, harms.
    """
    Q = checks.integer("queries", queries, low=1)
    K = checks.integer("candidates", candidates, low=2)
    if not isinstance(generator, torch.Generator):
        raise ValueError("generator must be a torch.Generator")

    def u(*shape: int) -> torch.Tensor:
        return torch.rand(*shape, generator=generator, dtype=dtype)

    detail, quality, spread = u(Q, K), 0.5 + 0.5 * u(Q, K), 0.4 + 1.2 * u(Q, K)
    s = 1.0 - u(Q, 1).sqrt()  # Beta(1, 2)
    helpful = 0.05 + 0.9 * quality * detail.sqrt()
    risk = (0.02 + 0.9 * s * detail**1.5 * spread).clamp(0.0, 1.0)
    helpful[:, 0], risk[:, 0] = 0.05, 0.02
    return CandidatePool(helpful, risk)


def probe(p: torch.Tensor, noise: float, *, generator: torch.Generator) -> torch.Tensor:
    """One probe per candidate: the yes-probability read with logit noise N(0, noise²)."""
    p = tensor_2d("p", p)
    s = checks.real("noise", noise, low=0.0)
    if not isinstance(generator, torch.Generator):
        raise ValueError("generator must be a torch.Generator")
    z = torch.randn(p.shape, generator=generator, dtype=p.dtype)
    return torch.sigmoid(torch.logit(p.clamp(1e-6, 1 - 1e-6)) + s * z)
