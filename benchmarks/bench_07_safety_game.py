"""Chapter 07 (safety-game): batched multiplicative weights vs a loop of LP calls vs nashpy.

Case 1 solves 1024 simulated safety games (6 candidates × 4 intents, w = 0.5) with the batched
Hedge kernel ``icml26.games.mwu`` at T = 1024 rounds — certified accuracy: every game's duality
gap is below 2e-2, so its midpoint is within 1e-2 of the value, and in practice within ~1e-3 —
and with a loop of ``scipy.optimize.linprog`` (HiGHS) calls, exact, hence at least as accurate.
Case 2 adds the notebook's readable one-game Hedge loop (same T, same iterates) on 64 of the
games, so that all three stay under ~2 s. Case 3 compares the LP with nashpy's support
enumeration on 32 small random 3×3 games (both exact).
"""

from __future__ import annotations

import warnings

import nashpy as nash
import numpy as np
import torch

from benchmarks.registry import register
from icml26 import games

T_BENCH = 1024
_gen = torch.Generator().manual_seed(0)
_bench = games.simulate_benchmark(1024, 6, 4, generator=_gen)
A_BATCH = games.payoff_matrix(_bench.helpful, _bench.risk, 0.5)
A_LIST = list(A_BATCH.numpy())
A_SMALL = list(np.random.default_rng(0).uniform(-1.0, 1.0, (32, 3, 3)))


def _hedge_reference(A: np.ndarray, T: int) -> tuple[np.ndarray, np.ndarray]:
    """The notebook's reference: one game, a plain loop over rounds."""
    K, J = A.shape
    L = A.max() - A.min()
    eta_x, eta_y = np.sqrt(8 * np.log(K) / T) / L, np.sqrt(8 * np.log(J) / T) / L
    gain_x, loss_y = np.zeros(K), np.zeros(J)
    sum_x, sum_y = np.zeros(K), np.zeros(J)
    for _ in range(T):
        x = np.exp(eta_x * (gain_x - gain_x.max()))
        y = np.exp(-eta_y * (loss_y - loss_y.min()))
        x, y = x / x.sum(), y / y.sum()
        sum_x, sum_y = sum_x + x, sum_y + y
        gain_x, loss_y = gain_x + A @ y, loss_y + x @ A
    return sum_x / T, sum_y / T


def _support_enumeration_values() -> list[float]:
    out = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        for A in A_SMALL:
            x, y = next(iter(nash.Game(A).support_enumeration(tol=1e-12)), (None, None))
            out.append(float(x @ A @ y) if x is not None else float("nan"))
    return out


register(
    chapter="07",
    name=f"1024 safety games: batched Hedge (T={T_BENCH}) vs a loop of LP calls",
    kernel=lambda: games.mwu(A_BATCH, T_BENCH).value,
    library=lambda: [games.maximin_lp(A).value for A in A_LIST],
    library_name="scipy linprog (HiGHS), one call per game",
    repeats=3,
)

register(
    chapter="07",
    name=f"64 safety games: batched Hedge (T={T_BENCH}) vs per-game Hedge loop vs LP loop",
    kernel=lambda: games.mwu(A_BATCH[:64], T_BENCH).value,
    reference=lambda: [_hedge_reference(A, T_BENCH) for A in A_LIST[:64]],
    library=lambda: [games.maximin_lp(A).value for A in A_LIST[:64]],
    library_name="scipy linprog (HiGHS), one call per game",
    repeats=3,
)

register(
    chapter="07",
    name="32 small 3x3 games: LP vs nashpy support enumeration",
    kernel=lambda: [games.maximin_lp(A).value for A in A_SMALL],
    library=_support_enumeration_values,
    library_name="nashpy support_enumeration",
)
