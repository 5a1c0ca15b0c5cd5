"""Property tests of the mathematics the kernels implement (hypothesis), across chapters.

Each property is a fact of the mathematics, not of the code: it holds for every input the
strategies draw, so a kernel that breaks it is wrong whatever its examples say.
"""

import numpy as np
import torch
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from icml26 import stats
from icml26.games import zerosum
from icml26.sequential import hmm

DT = torch.float64
SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _stochastic(raw: np.ndarray) -> torch.Tensor:
    m = torch.tensor(np.abs(raw) + 0.05, dtype=DT)
    return m / m.sum(-1, keepdim=True)


finite = st.floats(-5.0, 5.0, allow_nan=False, allow_infinity=False)


@SETTINGS
@given(
    arrays(np.float64, (3, 3), elements=st.floats(0.0, 1.0)),
    arrays(np.float64, (2, 12, 3), elements=finite),
    st.floats(-50.0, 50.0),
)
def test_filter_beliefs_sum_to_one_and_ignore_a_constant_shift(p_raw, log_obs, shift):
    P, pi = _stochastic(p_raw), torch.full((3,), 1 / 3, dtype=DT)
    obs = torch.tensor(log_obs)
    b, ll = hmm.forward_filter(obs, P, pi)
    assert torch.allclose(b.sum(-1), torch.ones(2, 12, dtype=DT), atol=1e-12)
    b2, ll2 = hmm.forward_filter(obs + shift, P, pi)
    assert torch.allclose(b, b2, atol=1e-10)
    assert torch.allclose(ll2, ll + 12 * shift, atol=1e-8)


@SETTINGS
@given(st.permutations(range(3)), arrays(np.float64, (3, 3), elements=st.floats(0.0, 1.0)))
def test_permuting_an_hmm_and_aligning_it_back_is_the_identity(order, p_raw):
    P, pi = _stochastic(p_raw)[None], torch.tensor([[0.2, 0.3, 0.5]], dtype=DT)
    means = torch.tensor([[[0.0, 0.0], [3.0, 0.0], [0.0, 3.0]]], dtype=DT)
    var = torch.tensor([[[1.0, 1.0], [2.0, 2.0], [3.0, 3.0]]], dtype=DT)
    perm = torch.tensor([order])
    shuffled = hmm.permute_hmm(perm, P, pi, means, var)
    back = hmm.align_states(shuffled[2], means)
    restored = hmm.permute_hmm(back, *shuffled)
    for a, b in zip(restored, (P, pi, means, var), strict=True):
        assert torch.equal(a, b)


games = arrays(np.float64, (3, 4), elements=st.floats(-1.0, 1.0))


@SETTINGS
@given(games)
def test_maximin_equals_minus_minimax_of_the_transposed_negated_game(A):
    assert abs(zerosum.maximin_lp(A).value + zerosum.minimax_lp(-A.T).value) <= 1e-8
    # and the minimax theorem: the row player's maximin is the column player's minimax
    assert abs(zerosum.maximin_lp(A).value - zerosum.minimax_lp(A).value) <= 1e-7


@SETTINGS
@given(games, st.floats(-3.0, 3.0), st.floats(0.1, 10.0))
def test_hedge_strategies_ignore_shifting_and_scaling_the_payoffs(A, shift, scale):
    assume(np.ptp(A) >= 1e-3)  # a constant game has no payoff range to normalise by
    base = zerosum.mwu(torch.tensor(A)[None], 64)
    moved = zerosum.mwu(torch.tensor(scale * A + shift)[None], 64)
    assert torch.allclose(base.x, moved.x, atol=1e-9)
    assert torch.allclose(base.y, moved.y, atol=1e-9)
    assert torch.allclose(moved.gap, scale * base.gap, atol=1e-9)


@SETTINGS
@given(st.floats(-3.0, 3.0), st.floats(0.01, 100.0))
def test_loglog_fit_recovers_a_power_law(exponent, constant):
    x = np.geomspace(1.0, 1e4, 9)
    slope, intercept = stats.loglog_fit(x, constant * x**exponent)
    assert abs(slope - exponent) < 1e-9 and abs(intercept - np.log(constant)) < 1e-8
