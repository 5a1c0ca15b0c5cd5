"""Tests of icml26.sequential.bandits (chapter 02): features, batched OFUL, periodic updates."""

from __future__ import annotations

import math

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from icml26.pipeline.notebooks import notebook_functions
from icml26.sequential import bandits

DT = torch.float64


def problem(runs=3, steps=200, m=3, k=3, seed=0, noise=0.3):
    g = torch.Generator().manual_seed(seed)
    z = torch.rand(runs, steps, m, generator=g, dtype=DT)
    theta = torch.randn(k, m, generator=g, dtype=DT)
    mean = torch.einsum("km,rtm->rtk", theta, z)
    rewards = mean + noise * torch.randn(runs, steps, k, generator=g, dtype=DT)
    return z, theta, mean, rewards


# The chapter's readable OFUL, loaded from the notebook (never copied).
reference_oful = notebook_functions("02-hmm-bandits", "reference_oful")["reference_oful"]


def test_block_features_give_per_action_inner_products():
    z = torch.randn(2, 5, 4, dtype=DT)
    theta = torch.randn(3, 4, dtype=DT)
    phi = bandits.block_features(z, 3)  # (2, 5, 3, 12)
    assert phi.shape == (2, 5, 3, 12)
    assert torch.allclose(phi @ theta.reshape(-1), torch.einsum("km,rtm->rtk", theta, z))


def test_natural_features_are_belief_times_context():
    b = torch.softmax(torch.randn(2, 4, 3, dtype=DT), -1)
    x = torch.randn(2, 4, 2, dtype=DT)
    f = bandits.natural_features(b, x)
    assert f.shape == (2, 4, 9)
    assert torch.allclose(
        f[1, 2].view(3, 3), torch.outer(b[1, 2], torch.cat([x[1, 2], torch.ones(1)]))
    )


@pytest.mark.parametrize("period", [1, 7])
def test_batched_oful_matches_the_full_matrix_reference(period):
    z, _, _, rewards = problem(runs=3, steps=150)
    got = bandits.run_linucb(z, rewards, 3, sigma=0.3, bound=2.0, period=period)
    for r in range(3):
        ref = reference_oful(z[r], rewards[r], 3, sigma=0.3, bound=2.0, period=period)
        assert torch.equal(got[r], ref)


def test_mixed_periods_in_one_batch_equal_separate_runs():
    z, _, _, rewards = problem(runs=2, steps=120, seed=1)
    both = bandits.run_linucb(
        z.repeat(2, 1, 1),
        rewards.repeat(2, 1, 1),
        3,
        sigma=0.3,
        bound=2.0,
        period=torch.tensor([1, 1, 10, 10]),
    )
    a1 = bandits.run_linucb(z, rewards, 3, sigma=0.3, bound=2.0, period=1)
    a10 = bandits.run_linucb(z, rewards, 3, sigma=0.3, bound=2.0, period=10)
    assert torch.equal(both[:2], a1) and torch.equal(both[2:], a10)


def test_per_run_sigma_and_bound_equal_separate_runs():
    z, _, _, rewards = problem(runs=2, steps=100, seed=2)
    both = bandits.run_linucb(
        z,
        rewards,
        3,
        sigma=torch.tensor([0.3, 1.0], dtype=DT),
        bound=torch.tensor([2.0, 1.0], dtype=DT),
    )
    a = bandits.run_linucb(z[:1], rewards[:1], 3, sigma=0.3, bound=2.0)
    b = bandits.run_linucb(z[1:], rewards[1:], 3, sigma=1.0, bound=1.0)
    assert torch.equal(both, torch.cat([a, b]))


def test_forced_actions_are_played():
    z, _, _, rewards = problem(runs=2, steps=50)
    forced = torch.full((2, 50), -1, dtype=torch.long)
    forced[:, :20] = 2
    acts = bandits.run_linucb(z, rewards, 3, sigma=0.3, bound=2.0, forced=forced)
    assert (acts[:, :20] == 2).all()


def test_regret_accounting_and_slope():
    _, _, mean, _ = problem(runs=4, steps=300)
    assert torch.equal(
        bandits.regret(mean, bandits.oracle_actions(mean)), torch.zeros(4, 300, dtype=DT)
    )
    worst = bandits.regret(mean, mean.argmin(-1))
    assert (worst.diff(dim=1) >= 0).all() and (worst[:, -1] > 0).all()
    t = torch.arange(1, 5001, dtype=DT)
    assert math.isclose(bandits.loglog_slope((3 * t**0.5).expand(2, -1), 10), 0.5, rel_tol=1e-6)


def test_oful_learns_a_well_specified_problem():
    z, _, mean, rewards = problem(runs=16, steps=3000, seed=3, noise=0.5)
    acts = bandits.run_linucb(z, rewards, 3, sigma=0.5, bound=4.0)
    reg = bandits.regret(mean, acts)
    rand = bandits.regret(
        mean, torch.randint(0, 3, (16, 3000), generator=torch.Generator().manual_seed(0))
    )
    assert bandits.loglog_slope(reg, 100) < 0.8
    assert reg[:, -1].mean() < 0.3 * rand[:, -1].mean()


def test_validation_messages_name_the_argument():
    z, _, _, rewards = problem(runs=2, steps=10)
    with pytest.raises(ValueError, match="rewards"):
        bandits.run_linucb(z, rewards[:, :5], 3, sigma=0.3, bound=1.0)
    with pytest.raises(ValueError, match="period"):
        bandits.run_linucb(z, rewards, 3, sigma=0.3, bound=1.0, period=0)
    with pytest.raises(ValueError, match="sigma"):
        bandits.run_linucb(z, rewards, 3, sigma=-1.0, bound=1.0)
    with pytest.raises(ValueError, match="forced"):
        bandits.run_linucb(
            z, rewards, 3, sigma=0.3, bound=1.0, forced=torch.full((2, 10), 5, dtype=torch.long)
        )
    with pytest.raises(ValueError, match="delta"):
        bandits.run_linucb(z, rewards, 3, sigma=0.3, bound=1.0, delta=1.5)
    with pytest.raises(ValueError, match="beliefs"):
        bandits.belief_features(torch.ones(2, 3, dtype=DT))


@settings(max_examples=30, deadline=None)
@given(st.one_of(st.integers(-5, 0), st.floats(0.5, 3.5), st.booleans()))
def test_bad_numbers_of_actions_are_rejected(k):
    with pytest.raises(ValueError, match="n_actions"):
        bandits.block_features(torch.ones(2, 3, dtype=DT), k)


# ----------------------------------------------------------------------------- growing epochs
def test_refresh_mask_equals_a_fixed_period():
    z, _, _, rewards = problem(runs=3, steps=150)
    mask = torch.arange(1, 151) % 7 == 0
    a_mask = bandits.run_linucb(z, rewards, 3, sigma=0.3, bound=2.0, refresh=mask)
    a_per = bandits.run_linucb(z, rewards, 3, sigma=0.3, bound=2.0, period=7)
    assert torch.equal(a_mask, a_per)
    for r in range(3):  # and the notebook's full-matrix reference with the same period
        assert torch.equal(a_mask[r], reference_oful(z[r], rewards[r], 3, 0.3, 2.0, period=7))


def test_per_run_refresh_masks_equal_separate_runs():
    z, _, _, rewards = problem(runs=2, steps=120)
    masks = torch.stack([torch.ones(120, dtype=torch.bool), bandits.epoch_refresh(120, 5)])
    both = bandits.run_linucb(z, rewards, 3, sigma=0.3, bound=2.0, refresh=masks)
    for r in range(2):
        one = bandits.run_linucb(
            z[r : r + 1], rewards[r : r + 1], 3, sigma=0.3, bound=2.0, refresh=masks[r]
        )
        assert torch.equal(both[r], one[0])


def test_epoch_refresh_grows_geometrically():
    mask = bandits.epoch_refresh(1000, 10, growth=2.0)
    ends = (torch.nonzero(mask).squeeze(-1) + 1).tolist()
    assert ends == [10, 20, 40, 80, 160, 320, 640]
    lengths = torch.diff(
        torch.tensor(
            [0, *bandits.epoch_refresh(5000, 50, growth=1.3).nonzero().squeeze(-1).tolist()]
        )
    )
    # epoch k ends at 50 * 1.3^k: after the first, lengths 0.3 * (elapsed time) grow
    assert bool((lengths[2:] >= lengths[1:-1]).all())


def test_ridge_estimates_match_a_per_action_solve():
    z, theta, _, rewards = problem(runs=2, steps=300)
    actions = torch.randint(0, 3, (2, 300), generator=torch.Generator().manual_seed(5))
    est = bandits.ridge_estimates(z, rewards, actions, lam=0.5)
    for r in range(2):
        for a in range(3):
            sel = actions[r] == a
            zs, ys = z[r][sel], rewards[r][sel, a]
            want = torch.linalg.solve(0.5 * torch.eye(3, dtype=DT) + zs.T @ zs, zs.T @ ys)
            assert torch.allclose(est[r, a], want, atol=1e-10)
    assert (est - theta).abs().max() < 0.2  # uniform actions: the estimate is consistent


def test_growing_epoch_validation():
    z, _, _, rewards = problem(runs=2, steps=10)
    with pytest.raises(ValueError, match="refresh"):
        bandits.run_linucb(
            z, rewards, 3, sigma=0.3, bound=1.0, refresh=torch.ones(9, dtype=torch.bool)
        )
    with pytest.raises(ValueError, match="refresh"):
        bandits.run_linucb(z, rewards, 3, sigma=0.3, bound=1.0, refresh=torch.ones(10))
    with pytest.raises(ValueError, match="growth"):
        bandits.epoch_refresh(10, 2, growth=1.0)
    with pytest.raises(ValueError, match="first"):
        bandits.epoch_refresh(10, 0)
    with pytest.raises(ValueError, match="actions"):
        bandits.ridge_estimates(z, rewards, torch.zeros(2, 9, dtype=torch.long))
    with pytest.raises(ValueError, match="lam"):
        bandits.ridge_estimates(z, rewards, torch.zeros(2, 10, dtype=torch.long), lam=0.0)


def test_oful_radius_against_the_theorem():
    """beta = sigma sqrt(logdet + 2 log(1/delta)) + sqrt(lam) S, at hand-computed points."""
    ld = torch.tensor([0.0, 2.0], dtype=DT)
    delta = math.exp(-0.5)  # 2 log(1/delta) = 1
    got = bandits.oful_radius(ld, sigma=2.0, lam=4.0, bound=0.5, delta=delta)
    assert torch.allclose(got, torch.tensor([2.0 + 1.0, 2.0 * math.sqrt(3.0) + 1.0], dtype=DT))
    per_run = bandits.oful_radius(
        ld,
        sigma=torch.tensor([1.0, 0.0], dtype=DT),
        lam=1.0,
        bound=torch.tensor([0.0, 3.0], dtype=DT),
        delta=delta,
    )
    assert torch.allclose(per_run, torch.tensor([1.0, 3.0], dtype=DT))
    with pytest.raises(ValueError, match="logdet_ratio"):
        bandits.oful_radius(torch.tensor([float("nan")]), sigma=1.0, lam=1.0, bound=1.0, delta=0.1)
    with pytest.raises(ValueError, match="sigma"):
        bandits.oful_radius(ld, sigma=-1.0, lam=1.0, bound=1.0, delta=0.1)
    with pytest.raises(ValueError, match="delta"):
        bandits.oful_radius(ld, sigma=1.0, lam=1.0, bound=1.0, delta=1.0)


def test_context_features_append_a_constant():
    x = torch.tensor([[[0.5, -1.0]], [[2.0, 3.0]]], dtype=DT)
    z = bandits.context_features(x)
    assert z.shape == (2, 1, 3)
    assert torch.equal(z[..., :2], x) and torch.equal(z[..., 2], torch.ones(2, 1, dtype=DT))
    with pytest.raises(ValueError, match="x"):
        bandits.context_features(torch.tensor([[float("inf"), 0.0]]))
