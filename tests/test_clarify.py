"""Tests of icml26.sequential.clarify and icml26.grpo (chapter 04): the τ-toy retail world,
exact information gain, the IG reward, the GRPO advantage, rollouts and training."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest
import scipy.stats
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from icml26 import grpo
from icml26.pipeline.notebooks import notebook_functions
from icml26.sequential import clarify

_ref = notebook_functions(
    "04-clarification",
    "eig_reference",
    "likelihood_reference",
    "expected_reward_reference",
    "grpo_advantages_reference",
)
eig_ref, lik_ref = _ref["eig_reference"], _ref["likelihood_reference"]
reward_ref, grpo_ref = _ref["expected_reward_reference"], _ref["grpo_advantages_reference"]

DT = torch.float64


@pytest.fixture(scope="module")
def env() -> clarify.RetailEnv:
    return clarify.make_env(4, 4, 0.1, generator=torch.Generator().manual_seed(0))


def _tasks(env, n, seed=1, revealed=(0, 3)):
    return clarify.sample_tasks(
        env, n, revealed=revealed, generator=torch.Generator().manual_seed(seed)
    )


# --- the world ------------------------------------------------------------------------------


def test_make_env_goals_and_prior(env) -> None:
    assert env.n_goals == 256 and env.n_attributes == 4 and env.n_actions == 7
    assert torch.unique(env.attrs, dim=0).shape[0] == 256
    assert math.isclose(float(env.prior.sum()), 1.0, abs_tol=1e-12)
    ranks = torch.argsort(torch.argsort(-env.prior)) + 1
    assert torch.allclose(env.prior * ranks.double(), env.prior[0] * ranks[0].double())  # ∝ 1/rank
    assert clarify.action_names(env) == [
        "ask(0)",
        "ask(1)",
        "ask(2)",
        "ask(3)",
        "vague",
        "confirm",
        "no-ask",
    ]


def test_tasks_and_initial_belief(env) -> None:
    tasks = _tasks(env, 500, revealed=(0, 4))
    counts = tasks.revealed.sum(1)
    assert counts.min() == 0 and counts.max() == 4
    b = clarify.initial_belief(env, tasks)
    assert torch.allclose(b.sum(1), torch.ones(500, dtype=DT))
    rows = torch.arange(500)
    assert (b[rows, tasks.goal] > 0).all()  # the true goal is always consistent
    full = tasks.revealed.all(1)
    assert torch.allclose(b[full].max(1).values, torch.ones(int(full.sum()), dtype=DT))
    none = counts == 0
    assert torch.allclose(b[none], env.prior.expand(int(none.sum()), -1))
    assert len(tasks.repeat(3)) == 1500


# --- exact information gain -----------------------------------------------------------------


def test_eig_matches_the_notebook_reference_and_enumeration(env) -> None:
    b = clarify.initial_belief(env, _tasks(env, 40))
    want = np.array([eig_ref(x, env.attrs.numpy(), env.eps, 4) for x in b.numpy()])
    assert np.allclose(clarify.eig(env, b).numpy(), want, atol=1e-12)
    for a in range(env.n_actions):
        L = clarify.likelihood_matrix(env, b, a)
        assert torch.allclose(L.sum(1), torch.ones_like(b))
        ref = lik_ref(b[0].numpy(), env.attrs.numpy(), 0.1, 4, a)
        assert np.allclose(L[0, : ref.shape[0]].numpy(), ref, atol=1e-15)
        assert (L[0, ref.shape[0] :] == 0).all()
        assert np.allclose(clarify.mutual_information(b, L).numpy(), want[:, a], atol=1e-12)


def test_eig_against_scipy_entropy(env) -> None:
    b = clarify.initial_belief(env, _tasks(env, 5))
    for a in (0, 3, env.confirm):
        L = clarify.likelihood_matrix(env, b, a).numpy()
        for i in range(5):
            pred = L[i] @ b[i].numpy()
            nz = pred > 0
            want = scipy.stats.entropy(pred[nz]) - b[i].numpy() @ scipy.stats.entropy(L[i], axis=0)
            assert math.isclose(float(clarify.eig(env, b)[i, a]), want, abs_tol=1e-12)


def test_expected_reward_is_eig_and_negative_fractions(env) -> None:
    """Implements the theorem and the negative-reward proposition of chapter 04, exactly."""
    tasks = _tasks(env, 10, revealed=(1, 3))
    b = clarify.initial_belief(env, tasks)
    g = clarify.eig(env, b).numpy()
    for i in range(10):
        for a in range(env.n_actions):
            L = clarify.likelihood_matrix(env, b[i : i + 1], a)[0].numpy()
            mean, neg = reward_ref(b[i].numpy(), L)
            assert math.isclose(mean, g[i, a], abs_tol=1e-12)
            if a < 4 and not tasks.revealed[i, a]:
                assert math.isclose(neg, 0.1 * 3 / 4, abs_tol=1e-12)
            elif a == env.confirm:
                assert math.isclose(neg, 0.1, abs_tol=1e-12)
            else:
                assert neg == 0.0


def test_noiseless_reward_is_surprisal(env) -> None:
    env0 = replace(env, eps=0.0)
    b = clarify.initial_belief(env0, _tasks(env0, 6))
    for a in range(env0.n_actions):
        L = clarify.likelihood_matrix(env0, b, a)
        pred = torch.einsum("nag,ng->na", L, b)
        h = -(torch.special.xlogy(pred, pred)).sum(1)
        assert torch.allclose(clarify.eig(env0, b)[:, a], h, atol=1e-12)


@settings(max_examples=30, deadline=None)
@given(
    logits=st.lists(st.floats(-5, 5), min_size=8, max_size=8),
    eps=st.floats(0.0, 0.9),
)
def test_mutual_information_is_nonnegative_and_bounded(logits, eps) -> None:
    b = torch.softmax(torch.tensor([logits], dtype=DT), 1)
    L = torch.full((1, 2, 8), eps / 2, dtype=DT)
    L[0, 0, :4] += 1 - eps
    L[0, 1, 4:] += 1 - eps
    mi = float(clarify.mutual_information(b, L)[0])
    assert -1e-12 <= mi <= math.log(2) + 1e-12


# --- user, Bayes and the reward -------------------------------------------------------------


def test_answers_follow_the_noise_model(env) -> None:
    tasks = _tasks(env, 20000, revealed=(0, 0))
    b = clarify.initial_belief(env, tasks)
    gen = torch.Generator().manual_seed(3)
    a = torch.full((20000,), 2)
    ans = clarify.answer(env, tasks, b, a, generator=gen)
    wrong = (ans != env.attrs[tasks.goal, 2]).double().mean()
    assert abs(float(wrong) - 0.075) < 0.006
    vague = clarify.answer(env, tasks, b, torch.full((20000,), env.vague), generator=gen)
    assert (vague == 0).all()


def test_update_and_reward_telescope(env) -> None:
    tasks = _tasks(env, 50)
    gen = torch.Generator().manual_seed(5)
    b0 = clarify.initial_belief(env, tasks)
    b, total = b0, torch.zeros(50, dtype=DT)
    for a in (0, env.confirm, 2):
        acts = torch.full((50,), a)
        ans = clarify.answer(env, tasks, b, acts, generator=gen)
        new = clarify.update(env, b, acts, ans)
        assert torch.allclose(new.sum(1), torch.ones(50, dtype=DT))
        total += clarify.ig_reward(b, new, tasks.goal)
        b = new
    assert torch.allclose(total, clarify.ig_reward(b0, b, tasks.goal), atol=1e-12)


def test_commit_map_and_temperature(env) -> None:
    b = torch.tensor([[0.1, 0.6, 0.3]], dtype=DT).repeat(4000, 1)
    gen = torch.Generator().manual_seed(0)
    assert (clarify.commit(b, 0.0, generator=gen) == 1).all()
    draws = clarify.commit(b, 1.0, generator=gen)
    freq = torch.bincount(draws, minlength=3).double() / 4000
    assert torch.allclose(freq, b[0], atol=0.03)


# --- GRPO -----------------------------------------------------------------------------------


def test_group_advantages_match_trl_formula() -> None:
    r = torch.randn(6, 8, generator=torch.Generator().manual_seed(0), dtype=DT)
    assert np.allclose(grpo.group_advantages(r).numpy(), grpo_ref(r.numpy()), atol=1e-12)
    assert torch.allclose(
        grpo.group_advantages(torch.ones(2, 4, dtype=DT)), torch.zeros(2, 4, dtype=DT)
    )
    centred = grpo.group_advantages(r, scale=False)
    assert torch.allclose(centred.sum(1), torch.zeros(6, dtype=DT), atol=1e-12)


@settings(max_examples=30, deadline=None)
@given(
    rewards=st.lists(st.floats(-10, 10), min_size=4, max_size=4),
    T=st.floats(1.0, 50.0),
)
def test_token_mean_rewards_give_the_same_advantages(rewards, T) -> None:
    """The token-mean proposition of chapter 04: dividing a group by T moves only eps."""
    r = torch.tensor([rewards], dtype=DT)
    a1 = grpo.group_advantages(r / T, eps=1e-4)
    a2 = grpo.group_advantages(r, eps=T * 1e-4)
    assert torch.allclose(a1, a2, atol=1e-9)


# --- rollouts and training ------------------------------------------------------------------


def test_rollout_bookkeeping_and_policies(env) -> None:
    tasks = _tasks(env, 64, revealed=(0, 4))
    gen = torch.Generator().manual_seed(2)
    ro = clarify.rollout(env, tasks, clarify.oracle_policy(0.05), budget=3, generator=gen)
    assert ro.actions.shape == (64, 3) and ro.logp is None
    full = tasks.revealed.all(1)
    assert (ro.questions[full] == 0).all()  # no EIG above the cost on known goals
    none = clarify.rollout(env, tasks, clarify.no_ask_policy(), budget=2, generator=gen)
    assert (none.questions == 0).all() and torch.allclose(
        none.rewards, torch.zeros(64, 2, dtype=DT)
    )
    rnd = clarify.rollout(env, tasks, clarify.random_policy(), budget=1, generator=gen)
    assert (rnd.questions == 1).all()
    W = torch.zeros(clarify.n_features(env), env.n_actions, dtype=DT, requires_grad=True)
    soft = clarify.rollout(env, tasks, clarify.softmax_policy(W), budget=2, generator=gen)
    assert soft.logp.requires_grad
    assert torch.allclose(soft.logp[:, 0], torch.full((64,), -math.log(7), dtype=DT))
    s, q = clarify.evaluate(
        env, tasks, clarify.no_ask_policy(), [0.0, 1.0], budget=1, generator=gen
    )
    assert s.shape == (2,) and (q == 0).all()


def test_training_learns_to_ask(env) -> None:
    gen = torch.Generator().manual_seed(4)
    W, saved = clarify.train_clarifier(
        env,
        reward="ig",
        budget=1,
        cost=0.05,
        updates=30,
        tasks_per_update=32,
        group_size=4,
        lr=0.05,
        revealed=(0, 4),
        generator=gen,
        checkpoints=[0, 30],
    )
    assert torch.equal(saved[30], W) and torch.equal(saved[0], torch.zeros_like(W))
    tasks = _tasks(env, 1000, seed=9, revealed=(0, 4))
    s_none, _ = clarify.evaluate(
        env, tasks, clarify.no_ask_policy(), [0.0], budget=1, generator=gen
    )
    pol = clarify.softmax_policy(W, greedy=True)
    s_ig, _ = clarify.evaluate(env, tasks, pol, [0.0], budget=1, generator=gen)
    assert float(s_ig[0]) > float(s_none[0]) + 0.05
    _, saved_s = clarify.train_clarifier(
        env,
        reward="success",
        budget=2,
        cost=0.0,
        updates=2,
        tasks_per_update=4,
        group_size=4,
        lr=0.05,
        revealed=(0, 1),
        generator=gen,
        per_step=True,
        checkpoints=[2],
    )
    assert torch.isfinite(saved_s[2]).all()


# --- validation: one test per check ---------------------------------------------------------


def test_validation_errors(env) -> None:
    gen = torch.Generator().manual_seed(0)
    b = clarify.initial_belief(env, _tasks(env, 3))
    tasks = _tasks(env, 3)
    bad = [
        (lambda: clarify.make_env(0), "n_attributes"),
        (lambda: clarify.make_env(4, 1), "n_values"),
        (lambda: clarify.make_env(8, 16), "n_values\\*\\*n_attributes"),
        (lambda: clarify.make_env(eps=1.0), "eps"),
        (lambda: clarify.make_env(eps=-0.1), "eps"),
        (lambda: clarify.make_env(zipf=-1.0), "zipf"),
        (lambda: clarify.make_env(dtype=torch.int64), "dtype"),
        (lambda: clarify.action_names("env"), "env"),
        (lambda: clarify.sample_tasks(env, 0, generator=gen), "n must"),
        (lambda: clarify.sample_tasks(env, 2, generator=None), "generator"),
        (lambda: clarify.sample_tasks(env, 2, revealed=(3, 1), generator=gen), "revealed\\[1\\]"),
        (lambda: clarify.sample_tasks(env, 2, revealed=(0, 5), generator=gen), "revealed\\[1\\]"),
        (lambda: clarify.sample_tasks(env, 2, revealed=3, generator=gen), "revealed must"),
        (lambda: clarify.initial_belief(env, "tasks"), "tasks must"),
        (
            lambda: clarify.initial_belief(
                env, clarify.Tasks(torch.tensor([999]), tasks.revealed[:1])
            ),
            "tasks.goal",
        ),
        (
            lambda: clarify.initial_belief(env, clarify.Tasks(tasks.goal, tasks.revealed[:, :2])),
            "tasks.revealed",
        ),
        (lambda: clarify.marginals(env, b[:, :10]), "belief must have shape"),
        (lambda: clarify.marginals(env, b * 2), "belief must sum"),
        (lambda: clarify.eig(env, b.numpy()), "belief must be a torch.Tensor"),
        (lambda: clarify.likelihood_matrix(env, b, 7), "action"),
        (lambda: clarify.mutual_information(b, torch.ones(3, 2, 5, dtype=DT)), "likelihood"),
        (lambda: clarify.mutual_information(b, torch.ones(3, 2, 256, dtype=DT)), "likelihood"),
        (lambda: clarify.answer(env, tasks, b, torch.tensor([0, 1, 9]), generator=gen), "actions"),
        (lambda: clarify.answer(env, tasks, b, torch.tensor([0, 1]), generator=gen), "actions"),
        (lambda: clarify.update(env, b, torch.tensor([0, 0, 0]), torch.tensor([0, 1])), "answers"),
        (
            lambda: clarify.update(
                replace(env, eps=0.0),
                b[:1] * 0
                + torch.nn.functional.one_hot(
                    torch.tensor([int(env.attrs[:, 0].argmin())]), 256
                ).double(),
                torch.tensor([0]),
                torch.tensor([3]),
            ),
            "positive probability",
        ),
        (lambda: clarify.ig_reward(b, b[:2], tasks.goal), "after"),
        (lambda: clarify.ig_reward(b, b, tasks.goal[:2]), "goal"),
        (lambda: clarify.ig_reward(b * 2, b, tasks.goal), "before must sum"),
        (lambda: clarify.ig_reward(b, b, tasks.goal.double()), "goal must hold integer"),
        (lambda: clarify.ig_reward(b, b, torch.tensor([0, 1, 999])), "goal must index"),
        (
            lambda: clarify.ig_reward(
                torch.nn.functional.one_hot(torch.tensor([0, 0, 0]), 256).double(),
                b,
                torch.tensor([0, 0, 1]),
            ),
            "positive probability",
        ),
        (
            lambda: clarify.answer(env, tasks, b * 2, torch.tensor([0, 1, 2]), generator=gen),
            "belief",
        ),
        (lambda: clarify.commit(b * 2, 0.5, generator=gen), "belief must sum"),
        (lambda: clarify.commit(b, -1.0, generator=gen), "temperature"),
        (lambda: clarify.commit(b, 0.5, generator=1), "generator"),
        (lambda: clarify.features(env, b, torch.zeros(3, 2), 0, 1), "known"),
        (lambda: clarify.features(env, b, torch.zeros(3, 4), 2, 1), "step"),
        (lambda: clarify.features(env, b, torch.zeros(3, 4), 0, 0), "budget"),
        (lambda: clarify.softmax_policy(np.zeros((13, 7))), "weights"),
        (lambda: clarify.softmax_policy(torch.full((13, 7), float("nan"), dtype=DT)), "finite"),
        (lambda: clarify.softmax_policy(torch.zeros(13, 7, dtype=DT), greedy=1), "greedy"),
        (
            lambda: clarify.evaluate(
                env, tasks, clarify.no_ask_policy(), [0.0, -1.0], budget=1, generator=gen
            ),
            "temperatures\\[1\\]",
        ),
        (
            lambda: clarify.evaluate(
                env, tasks, clarify.no_ask_policy(), "0.5", budget=1, generator=gen
            ),
            "temperatures must be a sequence",
        ),
        (lambda: clarify.oracle_policy(-0.1), "cost"),
        (lambda: clarify.rollout(env, tasks, "oracle", budget=1, generator=gen), "policy"),
        (
            lambda: clarify.rollout(env, tasks, clarify.no_ask_policy(), budget=-1, generator=gen),
            "budget",
        ),
        (
            lambda: clarify.rollout(
                env,
                tasks,
                clarify.softmax_policy(torch.zeros(5, 7, dtype=DT)),
                budget=1,
                generator=gen,
            ),
            "weights must have shape",
        ),
        (
            lambda: clarify.evaluate(
                env, tasks, clarify.no_ask_policy(), [], budget=1, generator=gen
            ),
            "temperatures",
        ),
        (
            lambda: clarify.evaluate(
                env, tasks, clarify.no_ask_policy(), [0.0], budget=1, generator=gen, pollution=2.0
            ),
            "pollution",
        ),
        (lambda: clarify.n_features(None), "env"),
        (lambda: tasks.repeat(0), "m must"),
    ]
    for fn, match in bad:
        with pytest.raises(ValueError, match=match):
            fn()


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"reward": "pmi"}, "reward"),
        ({"budget": 0}, "budget"),
        ({"cost": -1.0}, "cost"),
        ({"updates": -1}, "updates"),
        ({"tasks_per_update": 0}, "tasks_per_update"),
        ({"group_size": 1}, "group_size"),
        ({"lr": 0.0}, "lr"),
        ({"generator": None}, "generator"),
        ({"checkpoints": [5]}, "checkpoints"),
        ({"revealed": (3, 1)}, "revealed\\[1\\]"),
        ({"revealed": 2}, "revealed must"),
        ({"per_step": 1}, "per_step"),
        ({"updates": 0, "revealed": (0, 9)}, "revealed\\[1\\]"),
    ],
)
def test_train_clarifier_validation(env, kwargs, match) -> None:
    args = dict(
        reward="ig",
        budget=1,
        cost=0.0,
        updates=2,
        tasks_per_update=2,
        group_size=2,
        lr=0.1,
        revealed=(0, 4),
        generator=torch.Generator().manual_seed(0),
    )
    args.update(kwargs)
    with pytest.raises(ValueError, match=match):
        clarify.train_clarifier(env, **args)


@pytest.mark.parametrize(
    ("rewards", "kwargs", "match"),
    [
        (np.zeros((2, 4)), {}, "rewards must be a torch.Tensor"),
        (torch.zeros(8), {}, "rewards must have 2 dimensions"),
        (torch.zeros(2, 4, dtype=torch.long), {}, "floating"),
        (torch.tensor([[0.0, float("nan")]]), {}, "finite"),
        (torch.zeros(2, 4), {"eps": -1.0}, "eps"),
        (torch.zeros(2, 4), {"ddof": 2}, "ddof"),
        (torch.zeros(2, 4), {"scale": 1}, "scale"),
        (torch.zeros(2, 1), {}, "members"),
        (torch.zeros(0, 4), {}, "at least one group"),
    ],
)
def test_group_advantages_validation(rewards, kwargs, match) -> None:
    with pytest.raises(ValueError, match=match):
        grpo.group_advantages(rewards, **kwargs)
