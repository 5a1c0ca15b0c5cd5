"""Tests of icml26.games.zerosum (chapter 07): LP duality, Hedge, the black-box simulator."""

from __future__ import annotations

import math
import warnings

import nashpy as nash
import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from icml26.games import budgeted, zerosum
from icml26.pipeline.notebooks import notebook_functions


def _random_game(rng: np.random.Generator, m: int, n: int) -> np.ndarray:
    return rng.uniform(-1.0, 1.0, (m, n))


# --- LP: primal, dual, known games ---------------------------------------------------------


@pytest.mark.parametrize(("m", "n"), [(1, 1), (1, 4), (4, 1), (2, 2), (3, 5), (7, 4), (8, 8)])
def test_primal_and_dual_values_agree(m: int, n: int) -> None:
    rng = np.random.default_rng(m * 10 + n)
    for _ in range(10):
        A = _random_game(rng, m, n)
        row, col = zerosum.maximin_lp(A), zerosum.minimax_lp(A)
        assert abs(row.value - col.value) < 1e-9
        assert row.strategy.shape == (m,) and col.strategy.shape == (n,)
        assert np.isclose(row.strategy.sum(), 1.0) and (row.strategy >= 0).all()
        assert np.isclose(col.strategy.sum(), 1.0) and (col.strategy >= 0).all()
        # each strategy guarantees the value: the certificate of optimality
        assert (row.strategy @ A).min() >= row.value - 1e-9
        assert (A @ col.strategy).max() <= col.value + 1e-9


def test_known_games() -> None:
    pennies = np.array([[1.0, -1.0], [-1.0, 1.0]])
    sol = zerosum.maximin_lp(pennies)
    assert abs(sol.value) < 1e-12 and np.allclose(sol.strategy, 0.5)
    rps = np.array([[0.0, -1.0, 1.0], [1.0, 0.0, -1.0], [-1.0, 1.0, 0.0]])
    assert np.allclose(zerosum.minimax_lp(rps).strategy, 1 / 3)
    saddle = np.array([[3.0, 1.0, 4.0], [2.0, 0.5, 0.0]])  # saddle point at (0, 1)
    assert math.isclose(zerosum.maximin_lp(saddle).value, 1.0, abs_tol=1e-12)
    assert np.allclose(zerosum.maximin_lp(saddle).strategy, [1.0, 0.0])


def test_shift_and_scale_covariance() -> None:
    rng = np.random.default_rng(3)
    A = _random_game(rng, 4, 5)
    v = zerosum.maximin_lp(A).value
    assert math.isclose(zerosum.maximin_lp(2.5 * A + 1.0).value, 2.5 * v + 1.0, abs_tol=1e-9)
    assert math.isclose(zerosum.maximin_lp(-A.T).value, -v, abs_tol=1e-9)


def test_duality_gap_and_worst_case() -> None:
    rng = np.random.default_rng(4)
    A = _random_game(rng, 5, 3)
    row, col = zerosum.maximin_lp(A), zerosum.minimax_lp(A)
    At = torch.tensor(A)
    x, y = torch.tensor(row.strategy), torch.tensor(col.strategy)
    assert float(zerosum.duality_gap(At, x, y)) < 1e-9
    assert math.isclose(float(zerosum.worst_case_payoff(At, x)), row.value, abs_tol=1e-9)
    u = torch.full((5,), 0.2, dtype=torch.float64)
    w = torch.full((3,), 1 / 3, dtype=torch.float64)
    assert float(zerosum.duality_gap(At, u, w)) >= 0.0


# --- cross-check against nashpy ------------------------------------------------------------


@pytest.mark.parametrize("seed", range(12))
def test_lp_matches_nashpy(seed: int) -> None:
    rng = np.random.default_rng(100 + seed)
    m, n = (int(k) for k in rng.integers(2, 5, size=2))
    A = _random_game(rng, m, n)
    row, col = zerosum.maximin_lp(A), zerosum.minimax_lp(A)
    game = nash.Game(A)
    for x, y in game.lemke_howson_enumeration():
        assert abs(x @ A @ y - row.value) < 1e-9
        assert np.allclose(x, row.strategy, atol=1e-7)  # generic games: unique equilibrium
        assert np.allclose(y, col.strategy, atol=1e-7)
    with warnings.catch_warnings():
        # nashpy warns when its exact non-negativity test drops the equilibrium (roundoff)
        warnings.simplefilter("ignore", RuntimeWarning)
        for x, y in game.support_enumeration(tol=1e-12):
            assert abs(x @ A @ y - row.value) < 1e-9
    x, y = game.linear_program()
    assert abs(x @ A @ y - row.value) < 1e-8


# --- batched Hedge -------------------------------------------------------------------------


# The chapter's readable reference (one game, a plain loop over rounds), from the notebook.
_hedge_loop = notebook_functions("07-safety-game", "hedge_reference")["hedge_reference"]


def test_mwu_matches_loop_and_bound() -> None:
    gen = torch.Generator().manual_seed(0)
    A = torch.rand(64, 5, 3, generator=gen, dtype=torch.float64) * 2 - 1
    T = 300
    res = zerosum.mwu(A, T)
    x0, y0 = _hedge_loop(A[0].numpy(), T)
    assert np.allclose(res.x[0].numpy(), x0, atol=1e-12)
    assert np.allclose(res.y[0].numpy(), y0, atol=1e-12)
    width = (A.amax((-2, -1)) - A.amin((-2, -1))).numpy()
    bound = np.array([zerosum.mwu_gap_bound(5, 3, T, float(w)) for w in width])
    assert (res.gap.numpy() <= bound + 1e-12).all()
    assert torch.allclose(res.gap, zerosum.duality_gap(A, res.x, res.y))
    v = np.array([zerosum.maximin_lp(a.numpy()).value for a in A])
    assert (res.lower.numpy() <= v + 1e-12).all() and (v <= res.upper.numpy() + 1e-12).all()


def test_mwu_single_game_and_dtype() -> None:
    A = torch.tensor([[1.0, -1.0], [-1.0, 1.0]], dtype=torch.float32)
    res = zerosum.mwu(A, 500, eta=0.05)
    assert res.x.shape == (2,) and res.value.shape == ()
    assert res.x.dtype == torch.float32
    assert abs(float(res.value)) < 0.05


def test_mwu_early_stop_certifies_and_float32_agrees() -> None:
    gen = torch.Generator().manual_seed(7)
    b = zerosum.simulate_benchmark(128, 6, 4, generator=gen)
    A = zerosum.payoff_matrix(b.helpful, b.risk, 0.5)
    full = zerosum.mwu(A, 1024)
    early = zerosum.mwu(A, 1024, tol=2e-2, check_every=16)
    assert full.rounds == 1024 and early.rounds < 1024 and early.rounds % 16 == 0
    assert float(early.gap.max()) <= 2e-2  # the stopping rule is the certificate
    v = np.array([zerosum.maximin_lp(a.numpy()).value for a in A])
    assert (np.abs(early.value.numpy() - v) <= early.gap.numpy() / 2 + 1e-12).all()
    # the truncated run has exactly the iterates of the full run up to its last round
    part = zerosum.mwu(A, 1024, tol=1e9, check_every=early.rounds)
    assert part.rounds == early.rounds and torch.allclose(part.x, early.x, atol=1e-14)
    f32 = zerosum.mwu(A.float(), 1024)
    assert f32.x.dtype == torch.float32
    assert float((f32.x.double() - full.x).abs().max()) < 1e-4
    assert float((f32.value.double() - full.value).abs().max()) < 1e-4


def test_mwu_shift_invariant_without_overflow() -> None:
    gen = torch.Generator().manual_seed(8)
    A = torch.rand(8, 4, 3, generator=gen, dtype=torch.float64)
    base, shifted = zerosum.mwu(A, 2000), zerosum.mwu(A + 1e6, 2000)
    assert torch.isfinite(shifted.x).all() and torch.isfinite(shifted.y).all()
    assert torch.allclose(base.x, shifted.x, atol=1e-9)
    assert torch.allclose(base.value + 1e6, shifted.value, atol=1e-6)


def test_mwu_gap_shrinks_like_inverse_sqrt() -> None:
    gen = torch.Generator().manual_seed(1)
    A = torch.rand(200, 4, 4, generator=gen, dtype=torch.float64) * 2 - 1
    Ts = [128, 512, 2048]
    gaps = [float(zerosum.mwu(A, T).gap.mean()) for T in Ts]
    slope = np.polyfit(np.log(Ts), np.log(gaps), 1)[0]
    assert -0.65 <= slope <= -0.35


# --- simulator, estimation, bounds ---------------------------------------------------------


def test_simulator_shapes_and_structure() -> None:
    b1 = zerosum.simulate_benchmark(10, 5, 3, generator=torch.Generator().manual_seed(5))
    b2 = zerosum.simulate_benchmark(10, 5, 3, generator=torch.Generator().manual_seed(5))
    assert b1.helpful.shape == b1.risk.shape == (10, 5, 3)
    assert torch.equal(b1.helpful, b2.helpful) and torch.equal(b1.risk, b2.risk)
    for p in (b1.helpful, b1.risk):
        assert float(p.min()) >= 0.0 and float(p.max()) <= 1.0
    assert float(b1.helpful[:, 0].abs().max()) == 0.0  # the refusal is never helpful ...
    assert float(b1.risk[:, 0].abs().max()) == 0.0  # ... and never unsafe
    # more detail: more helpful and riskier on average
    assert (b1.helpful.mean((0, 2)).diff() > 0).all() and (b1.risk.mean((0, 2)).diff() > 0).all()


def test_value_error_bounded_by_estimation_error() -> None:
    gen = torch.Generator().manual_seed(2)
    b = zerosum.simulate_benchmark(20, 6, 4, generator=gen)
    A = zerosum.payoff_matrix(b.helpful, b.risk, 0.4).numpy()
    est = zerosum.judge_estimate(b.helpful, b.risk, 0.4, [8, 64, 512], generator=gen).numpy()
    assert est.shape == (3, 20, 6, 4)
    for q in range(20):
        v = zerosum.maximin_lp(A[q]).value
        for k in range(3):
            err = abs(zerosum.maximin_lp(est[k, q]).value - v)
            assert err <= np.abs(est[k, q] - A[q]).max() + 1e-12


def test_judge_estimate_unbiased_and_nested() -> None:
    h = torch.full((2000,), 0.3, dtype=torch.float64)
    r = torch.full((2000,), 0.1, dtype=torch.float64)
    gen = torch.Generator().manual_seed(3)
    est = zerosum.judge_estimate(h, r, 0.5, [1, 400], generator=gen)
    assert abs(float(est[1].mean()) - 0.1) < 0.005  # 0.5·0.3 − 0.5·0.1
    # nested: the one-call estimate takes two values only, and n=400 keeps refining it
    assert set(np.round(est[0].numpy(), 6)) <= {-0.5, 0.0, 0.5}
    one = zerosum.judge_estimate(h, r, 0.5, 16, generator=gen)
    assert one.shape == h.shape


def test_hoeffding_samples() -> None:
    n = zerosum.hoeffding_samples(0.05, 0.05, 24)
    assert n == math.ceil(math.log(2 * 24 / 0.05) / (2 * 0.05**2))
    assert zerosum.hoeffding_samples(0.025, 0.05, 24) > 3.9 * n  # ∝ 1/δ²
    gen = torch.Generator().manual_seed(4)
    b = zerosum.simulate_benchmark(200, 6, 4, generator=gen)
    A = zerosum.payoff_matrix(b.helpful, b.risk, 0.5)
    est = zerosum.judge_estimate(b.helpful, b.risk, 0.5, n, generator=gen)
    within = ((est - A).abs().amax((-2, -1)) <= 0.05).double().mean()
    assert float(within) >= 0.95


def test_multiplier_game_equals_risk_capped_lp() -> None:
    rng = np.random.default_rng(6)
    M = np.r_[0.0, np.sort(rng.uniform(0, 1, 5))]
    r = np.r_[0.0, np.sort(rng.uniform(0, 1, 5))]
    for cap in (0.05, 0.2, 0.5, 2.0):
        capped = zerosum.max_helpfulness_lp(M[:, None], r[:, None], cap)
        game = zerosum.maximin_lp(zerosum.multiplier_game(M, r, cap, lam_max=100.0))
        assert math.isclose(capped.value, game.value, abs_tol=1e-9)
    with pytest.raises(ValueError, match="cap"):
        zerosum.max_helpfulness_lp(M[1:, None], r[1:, None], -1.0)


# --- argument validation -------------------------------------------------------------------


def test_validation_messages() -> None:
    A = torch.zeros(3, 2, 2, dtype=torch.float64)
    with pytest.raises(ValueError, match="A must have shape"):
        zerosum.mwu(torch.zeros(2, 2, 2, 2), 10)
    with pytest.raises(ValueError, match="floating-point"):
        zerosum.mwu(torch.zeros(2, 2, dtype=torch.int64), 10)
    with pytest.raises(ValueError, match="T must be"):
        zerosum.mwu(A, 0)
    with pytest.raises(ValueError, match="tol"):
        zerosum.mwu(A, 10, tol=0.0)
    with pytest.raises(ValueError, match="check_every"):
        zerosum.mwu(A, 10, tol=0.1, check_every=0)
    with pytest.raises(ValueError, match="finite"):
        zerosum.maximin_lp(np.array([[1.0, np.inf]]))
    with pytest.raises(ValueError, match="2-D"):
        zerosum.minimax_lp(np.zeros(3))
    with pytest.raises(ValueError, match="y must have shape"):
        zerosum.duality_gap(A, torch.full((3, 2), 0.5), torch.full((3, 3), 1 / 3))
    with pytest.raises(ValueError, match="x must"):
        zerosum.worst_case_payoff(A, torch.ones(3, 2))
    h = torch.full((2, 2), 0.5)
    with pytest.raises(ValueError, match="matching shapes"):
        zerosum.payoff_matrix(h, torch.full((2, 3), 0.5), 0.5)
    with pytest.raises(ValueError, match="probabilities"):
        zerosum.payoff_matrix(h, torch.full((2, 2), 1.5), 0.5)
    with pytest.raises(ValueError, match="w must be"):
        zerosum.payoff_matrix(h, h, 1.5)
    with pytest.raises(ValueError, match="increasing"):
        zerosum.judge_estimate(h, h, 0.5, [10, 5], generator=torch.Generator())
    with pytest.raises(ValueError, match="generator"):
        zerosum.simulate_benchmark(2, 2, 2, generator=None)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="lam_max"):
        zerosum.multiplier_game(np.ones(2), np.ones(2), 0.5, -1.0)


@settings(max_examples=40, deadline=None)
@given(eta=st.floats(max_value=0.0, allow_nan=False, allow_infinity=False))
def test_non_positive_learning_rate_rejected(eta: float) -> None:
    with pytest.raises(ValueError, match="eta"):
        zerosum.mwu(torch.zeros(2, 2, dtype=torch.float64), 5, eta=eta)


@settings(max_examples=40, deadline=None)
@given(
    bad=st.sampled_from([np.nan, np.inf, -np.inf]),
    i=st.integers(0, 2),
    j=st.integers(0, 3),
)
def test_non_finite_payoffs_rejected(bad: float, i: int, j: int) -> None:
    A = np.zeros((3, 4))
    A[i, j] = bad
    for solve in (zerosum.maximin_lp, zerosum.minimax_lp):
        with pytest.raises(ValueError, match="finite"):
            solve(A)
    with pytest.raises(ValueError, match="finite"):
        zerosum.mwu(torch.tensor(A), 3)


@settings(max_examples=40, deadline=None)
@given(
    delta=st.floats(allow_nan=False, allow_infinity=False),
    beta=st.floats(allow_nan=False, allow_infinity=False),
)
def test_hoeffding_validation(delta: float, beta: float) -> None:
    if delta >= 1e-100 and 0 < beta < 1:
        assert zerosum.hoeffding_samples(delta, beta, 10) >= 1
    elif delta > 0 and 0 < beta < 1:  # tiny delta: a huge n, or refused when n overflows
        try:
            assert zerosum.hoeffding_samples(delta, beta, 10) >= 1
        except ValueError as err:
            assert "too small" in str(err)
    else:
        with pytest.raises(ValueError, match=r"delta|beta"):
            zerosum.hoeffding_samples(delta, beta, 10)


# --- the paper's budgeted game --------------------------------------------------------------


def _pool(q: int = 64, k: int = 8, seed: int = 0):
    g = torch.Generator().manual_seed(seed)
    pool = budgeted.simulate_candidates(q, k, generator=g)
    return pool.helpful - pool.helpful[:, :1], pool.risk - pool.risk[:, :1]


def test_budgeted_lp_batched_matches_highs_and_reference() -> None:
    M, D = _pool()
    ref = notebook_functions("07-safety-game", "budgeted_lp_reference")["budgeted_lp_reference"]
    for T in (0.0, 0.05, 0.2, 1.0):
        v, x = budgeted.budgeted_lp_batched(M, D, T)
        assert torch.allclose(x.sum(1), torch.ones(len(x), dtype=x.dtype))
        assert ((x * D).sum(1) <= T + 1e-12).all()
        assert torch.allclose((x * M).sum(1), v, atol=1e-12)
        for q in range(0, 64, 7):
            s = budgeted.budgeted_lp(M[q].numpy(), D[q].numpy(), T)
            assert abs(s.value - float(v[q])) < 1e-9
            assert abs(ref(M[q].numpy(), D[q].numpy(), T)[0] - float(v[q])) < 1e-12


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10_000), st.floats(0.0, 0.5))
def test_game_equals_lp_above_multiplier_and_overspends_below(seed: int, T: float) -> None:
    M, D = _pool(1, 6, seed)
    m, d = M[0].numpy(), D[0].numpy()
    s = budgeted.budgeted_lp(m, d, T)
    for beta in (1.5 * s.multiplier + 0.1, 5 * s.multiplier + 1):
        g = zerosum.maximin_lp(budgeted.safety_game(m, d, T, beta))
        # two HiGHS solves agree to its feasibility tolerance (1e-7), scaled by beta + 1
        assert abs((beta + 1) * g.value - s.value) < 1e-7 * (beta + 1)
        assert g.strategy @ d <= T + 1e-7
    if s.multiplier > 1e-6:
        g = zerosum.maximin_lp(budgeted.safety_game(m, d, T, 0.5 * s.multiplier))
        assert g.strategy @ d > T + 1e-12


def test_robust_budget_and_filter() -> None:
    M, D = _pool(256)
    g = torch.Generator().manual_seed(1)
    eps = 0.02
    noise = (torch.rand(D.shape, generator=g, dtype=D.dtype) * 2 - 1) * eps
    D_read = D + noise - noise[:, :1]
    _, x = budgeted.budgeted_lp_batched(M, D_read, 0.1 - 2 * eps)
    assert ((x * D).sum(1) <= 0.1 + 1e-12).all()
    f = budgeted.threshold_filter(M, D, 0.1)
    v, _ = budgeted.budgeted_lp_batched(M, D, 0.1)
    assert ((f * D).sum(1) <= 0.1).all() and ((f * M).sum(1) <= v + 1e-12).all()
    p = budgeted.probe(torch.full((4, 3), 0.3, dtype=torch.float64), 0.0, generator=g)
    assert torch.allclose(p, torch.full((4, 3), 0.3, dtype=torch.float64))


def test_budgeted_validation() -> None:
    M, D = _pool(4)
    with pytest.raises(ValueError, match="budget"):
        budgeted.budgeted_lp([0.0, 1.0], [0.1, 0.2], -1.0)
    with pytest.raises(ValueError, match="helpful and risk"):
        budgeted.budgeted_lp([0.0, 1.0], [0.1], 0.1)
    with pytest.raises(ValueError, match="helpful and risk"):
        budgeted.budgeted_lp_batched(M, D[:, :3], 0.1)
    with pytest.raises(ValueError, match="budget"):
        budgeted.budgeted_lp_batched(M, D + 1.0, 0.1)
    with pytest.raises(ValueError, match="helpful"):
        budgeted.budgeted_lp_batched(M.numpy(), D, 0.1)
    with pytest.raises(ValueError, match="beta"):
        budgeted.safety_game([0.0, 1.0], [0.0, 0.2], 0.1, -1.0)
    with pytest.raises(ValueError, match="budget"):
        budgeted.threshold_filter(M, D + 1.0, 0.1)
    with pytest.raises(ValueError, match="queries"):
        budgeted.simulate_candidates(0, 4, generator=torch.Generator())
    with pytest.raises(ValueError, match="generator"):
        budgeted.simulate_candidates(2, 4, generator=None)
    with pytest.raises(ValueError, match="noise"):
        budgeted.probe(M.abs() / 2, -1.0, generator=torch.Generator())
