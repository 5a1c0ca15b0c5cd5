"""Tests of the exact audits, environments and informativeness tests of chapter 03.

Modules ``icml26.sequential.critic``, ``critic_envs`` and ``informativeness``; the trained
actor-critic of ``icml26.sequential.a2c`` is tested in ``tests/test_a2c.py``.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from icml26.pipeline.notebooks import notebook_functions
from icml26.sequential import critic
from icml26.sequential import critic_envs as envs
from icml26.sequential import informativeness as info

DT = torch.float64
GAMMA = 0.9


@pytest.fixture(autouse=True, scope="module")
def _one_thread():
    """Tiny tensor ops: one thread avoids oversubscription on a shared machine."""
    n = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(n)


def _audit(signal_rows, horizon=3, **kw):
    p0, T, O, R = critic.audit_pomdp(horizon=horizon, **kw)
    sig = torch.tensor(signal_rows, dtype=DT).expand(horizon, 2, len(signal_rows[0])).clone()
    return critic.enumerate_pomdp(p0, T, O, sig, R, 2)


def _critics(theta, E, gamma=GAMMA):
    w = (E.log_env + critic.policy_log_probs(theta, E).sum(1)).exp()
    G = critic.discounted_returns(E.reward, gamma)
    A, nI = E.n_actions, E.n_signal

    def cm(keys):
        return torch.stack(
            [critic.conditional_mean(G[:, t], w, keys[:, t]) for t in range(E.horizon)], 1
        )

    return (
        w,
        G,
        {
            "Qhia": cm((E.hist * nI + E.i) * A + E.a),
            "Vhi": cm(E.hist * nI + E.i),
            "Qha": cm(E.hist * A + E.a),
            "Qsa": cm(E.s * A + E.a),
        },
    )


def _grad_J(theta, E, gamma=GAMMA):
    th = theta.clone().requires_grad_(True)
    (g,) = torch.autograd.grad(critic.exact_objective(th, E, gamma), th)
    return g


# --- enumeration ------------------------------------------------------------------------------


def test_enumeration_is_a_probability_law() -> None:
    E = _audit([[0.8, 0.2], [0.2, 0.8]])
    theta = torch.randn(E.n_logits, generator=torch.Generator().manual_seed(0), dtype=DT)
    w = (E.log_env + critic.policy_log_probs(theta, E).sum(1)).exp()
    assert abs(float(w.sum()) - 1.0) < 1e-12
    assert E.n_hist == (2, 8, 32) and E.n_logits == 84
    # the number of distinct histories per step matches the mixed-radix count
    for t in range(3):
        assert len(torch.unique(E.hist[:, t])) == E.n_hist[t]


def test_uniform_policy_objective_by_hand() -> None:
    # uniform policy: the last action is right w.p. 1/2, so E[r_2] = 0; J = -c (1 + gamma)
    E = _audit([[1.0, 0.0], [0.0, 1.0]], step_cost=0.05)
    J = critic.exact_objective(torch.zeros(E.n_logits, dtype=DT), E, GAMMA)
    assert abs(float(J) - (-0.05 * (1 + GAMMA))) < 1e-12


def test_autograd_gradient_matches_finite_differences() -> None:
    E = _audit([[1.0, 0.0], [0.0, 1.0]])
    theta = torch.randn(E.n_logits, generator=torch.Generator().manual_seed(1), dtype=DT)
    g = _grad_J(theta, E)
    for j in range(0, E.n_logits, 7):
        e = torch.zeros_like(theta)
        e[j] = 1e-6
        fd = (
            critic.exact_objective(theta + e, E, GAMMA)
            - critic.exact_objective(theta - e, E, GAMMA)
        ) / 2e-6
        assert abs(float(fd) - float(g[j])) < 1e-8


@settings(max_examples=15, deadline=None)
@given(
    q=st.floats(0.0, 1.0),
    flip=st.floats(0.0, 0.5),
    acc=st.floats(0.5, 1.0),
    seed=st.integers(0, 10_000),
)
def test_informed_gradient_unbiased_for_any_state_signal(q, flip, acc, seed) -> None:
    """Theorem informed-critic-thm-unbiased, with and without the baseline, on random
    audit POMDPs."""
    E = _audit([[q, 1 - q], [1 - q, q]], flip=flip, accuracy=acc)
    theta = torch.randn(E.n_logits, generator=torch.Generator().manual_seed(seed), dtype=DT)
    gJ = _grad_J(theta, E)
    _, _, c = _critics(theta, E)
    g = critic.informed_gradient(theta, E, c["Qhia"], GAMMA)
    gb = critic.informed_gradient(theta, E, c["Qhia"] - c["Vhi"], GAMMA)
    assert float((g - gJ).abs().max()) < 1e-10
    assert float((gb - gJ).abs().max()) < 1e-10


def test_state_only_critic_is_biased_and_symmetric_is_not() -> None:
    E = _audit([[1.0, 0.0], [0.0, 1.0]])
    theta = 1.5 * torch.randn(E.n_logits, generator=torch.Generator().manual_seed(2), dtype=DT)
    gJ = _grad_J(theta, E)
    _, _, c = _critics(theta, E)
    g_sym = critic.informed_gradient(theta, E, c["Qha"], GAMMA)
    g_s = critic.informed_gradient(theta, E, c["Qsa"], GAMMA)
    assert float((g_sym - gJ).abs().max()) < 1e-12
    assert float((g_s - gJ).norm() / gJ.norm()) > 0.05


def test_informed_gradient_matches_notebook_reference() -> None:
    fns = notebook_functions("03-informed-critic", "reference_policy_gradient")
    ref = fns["reference_policy_gradient"]
    E = _audit([[0.9, 0.1], [0.1, 0.9]])
    theta = torch.randn(E.n_logits, generator=torch.Generator().manual_seed(3), dtype=DT)
    w, _, c = _critics(theta, E)
    g = critic.informed_gradient(theta, E, c["Qhia"], GAMMA)
    g_ref = ref(
        theta.numpy(),
        E.hist.numpy(),
        E.a.numpy(),
        w.numpy(),
        c["Qhia"].numpy(),
        E.n_hist,
        E.n_actions,
        GAMMA,
    )
    assert np.abs(g.numpy() - g_ref).max() < 1e-12


def test_conditional_mean_matches_notebook_reference() -> None:
    ref = notebook_functions("03-informed-critic", "reference_conditional_mean")[
        "reference_conditional_mean"
    ]
    rng = np.random.default_rng(0)
    v, p, k = rng.normal(size=50), rng.uniform(0.1, 1, 50), rng.integers(0, 7, 50)
    got = critic.conditional_mean(torch.from_numpy(v), torch.from_numpy(p), torch.from_numpy(k))
    assert np.abs(got.numpy() - ref(v, p, k.tolist())).max() < 1e-12


def test_td_fixed_point_exact_for_state_and_biased_for_forgetting_signal() -> None:
    p0, T, O, R = critic.audit_pomdp()
    theta = torch.randn(84, generator=torch.Generator().manual_seed(4), dtype=DT)
    for first, gap_expected in (
        ([[1.0, 0.0], [0.0, 1.0]], False),
        ([[1.0, 0.0], [0.0, 1.0]], True),
    ):
        sig = torch.tensor(first, dtype=DT).expand(3, 2, 2).clone()
        if gap_expected:
            sig[1:] = 0.5
        E = critic.enumerate_pomdp(p0, T, O, sig, R, 2)
        w, _, c = _critics(theta, E)
        V_td = critic.td_fixed_point(w, E.reward, E.hist * 2 + E.i, GAMMA)
        gap = float((V_td - c["Vhi"]).abs().max())
        assert (gap > 1e-3) if gap_expected else (gap < 1e-12)


def test_discounted_returns() -> None:
    r = torch.tensor([[1.0, 2.0, 3.0]], dtype=DT)
    G = critic.discounted_returns(r, 0.5)
    assert torch.allclose(G, torch.tensor([[1 + 1 + 0.75, 2 + 1.5, 3.0]], dtype=DT))


# --- synthetic POMDP ------------------------------------------------------------------------


def test_aliased_pomdp_and_rollout() -> None:
    g = torch.Generator().manual_seed(0)
    env = envs.aliased_pomdp(generator=g)
    assert env.n_states == 20 and env.n_actions == 4
    assert torch.allclose(env.T.sum(-1), torch.ones(4, 20, dtype=DT))
    obs = env.features[:, :2]
    assert len(torch.unique(obs, dim=0)) == 5  # five aliased groups
    assert len(torch.unique(env.features, dim=0)) == 20
    d = envs.rollout(env, 64, 25, generator=g)
    assert d["states"].shape == (64, 25) and d["obs"].shape == (64, 25, 2)
    assert torch.allclose(d["rewards"], env.features[d["states"]] @ env.weights)
    # empirical transition frequencies follow T
    s, a, s1 = d["states"][:, :-1], d["actions"][:, :-1], d["states"][:, 1:]
    counts = torch.zeros(4, 20, 20, dtype=DT).index_put_(
        (a, s, s1), torch.ones_like(s, dtype=DT), accumulate=True
    )
    assert counts.sum() == 64 * 24


def test_history_window_lags() -> None:
    obs = torch.arange(6, dtype=DT).view(1, 3, 2)
    act = torch.tensor([[1, 0, 1]])
    z = envs.history_window(obs, act, 2, 2)
    assert z.shape == (1, 3, 2 * (2 + 2 + 1))
    assert torch.equal(z[0, 2, :2], obs[0, 2]) and torch.equal(z[0, 2, 5:7], obs[0, 1])
    assert torch.equal(z[0, 0, 5:], torch.zeros(5, dtype=DT))  # before the start


# --- HSIC, permutation test ----------------------------------------------------------------


def test_nystrom_with_all_landmarks_is_exact_and_matches_sklearn() -> None:
    from sklearn.kernel_approximation import Nystroem

    x = torch.from_numpy(np.random.default_rng(0).normal(size=(300, 2)))
    s = info.median_bandwidth(x)
    K = torch.exp(-torch.cdist(x, x).square() / (2 * s**2))
    phi = info.rbf_nystrom_features(x, 300, bandwidth=s)
    assert float((phi @ phi.T - K).abs().max()) < 1e-6
    phi_sk = Nystroem(gamma=1 / (2 * s**2), n_components=300, random_state=0).fit_transform(
        x.numpy()
    )
    assert np.abs(phi_sk @ phi_sk.T - K.numpy()).max() < 1e-6


def test_permutation_hsic_matches_notebook_reference() -> None:
    ref = notebook_functions("03-informed-critic", "reference_permutation_hsic")[
        "reference_permutation_hsic"
    ]
    g = torch.Generator().manual_seed(0)
    x = torch.randn(200, 1, generator=g, dtype=DT)
    y = x**2 + torch.randn(200, 2, generator=g, dtype=DT)
    perms = torch.stack([torch.randperm(20, generator=g) for _ in range(30)])
    res = info.permutation_hsic(x, y, 10, n_permutations=30, n_landmarks=200, permutations=perms)
    stat, p = ref(
        x.numpy(),
        y.numpy(),
        10,
        perms.numpy(),
        info.median_bandwidth(x),
        info.median_bandwidth(y),
    )
    assert math.isclose(res.statistic, stat, rel_tol=1e-6)
    assert res.p_value == p
    fx = info.rbf_nystrom_features(x, 200)
    fy = info.rbf_nystrom_features(y, 200)
    assert math.isclose(info.hsic_from_features(fx, fy), stat, rel_tol=1e-6)


def test_permutation_hsic_power_and_level() -> None:
    g = torch.Generator().manual_seed(1)
    x = torch.randn(500, 1, generator=g, dtype=DT)
    dep = info.permutation_hsic(
        x,
        x**2 + 0.3 * torch.randn(500, 1, generator=g, dtype=DT),
        10,
        n_permutations=99,
        generator=g,
    )
    assert dep.p_value == 0.01
    pvals = [
        info.permutation_hsic(
            torch.randn(100, 1, generator=g, dtype=DT),
            torch.randn(100, 1, generator=g, dtype=DT),
            10,
            n_permutations=39,
            n_landmarks=64,
            generator=g,
        ).p_value
        for _ in range(10)
    ]
    assert sum(p < 0.05 for p in pvals) <= 3  # level 0.05: binomial(10, 0.05) ≤ 3 w.p. 0.999
    assert dep.null.shape == (99,) and (dep.null >= 0).all()


def test_hsic_agrees_with_hyppo_and_dcor_verdicts() -> None:
    import warnings

    import dcor
    from hyppo.independence import Hsic

    rng = np.random.default_rng(2)
    x = rng.normal(size=(150, 1))
    for y, dependent in (
        (x**2 + 0.3 * rng.normal(size=(150, 1)), True),
        (rng.normal(size=(150, 1)), False),
    ):
        ours = info.permutation_hsic(
            torch.from_numpy(x),
            torch.from_numpy(y),
            1,
            n_permutations=199,
            n_landmarks=150,
            generator=torch.Generator().manual_seed(0),
        ).p_value
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            p_h = Hsic().test(x, y, reps=199, random_state=0).pvalue
        p_d = dcor.independence.distance_covariance_test(
            x, y, num_resamples=199, random_state=0
        ).pvalue
        assert (ours < 0.05) == (p_h < 0.05) == (p_d < 0.05) == dependent


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(5, 40))
def test_hsic_nonnegative_and_symmetric(seed, n) -> None:
    g = torch.Generator().manual_seed(seed)
    fx = torch.randn(n, 3, generator=g, dtype=DT)
    fy = torch.randn(n, 4, generator=g, dtype=DT)
    h = info.hsic_from_features(fx, fy)
    assert h >= 0 and math.isclose(h, info.hsic_from_features(fy, fx), rel_tol=1e-12, abs_tol=1e-15)


def test_cross_fit_predict_is_out_of_fold() -> None:
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 3))
    y = rng.normal(size=200)  # pure noise: out-of-fold predictions cannot fit it
    groups = np.repeat(np.arange(20), 10)
    pred = info.cross_fit_predict(X, y, groups, n_trees=10)
    assert np.corrcoef(pred, y)[0, 1] < 0.3
    y2 = np.c_[X[:, 0], X[:, 1]]
    pred2 = info.cross_fit_predict(X, y2, groups, n_trees=20)
    assert pred2.shape == (200, 2) and np.corrcoef(pred2[:, 0], y2[:, 0])[0, 1] > 0.8


def test_cross_fit_predict_does_not_depend_on_threads() -> None:
    rng = np.random.default_rng(1)
    X, y = rng.normal(size=(300, 4)), rng.normal(size=(300, 2))
    groups = np.repeat(np.arange(30), 10)
    one = info.cross_fit_predict(X, y, groups, n_trees=12, n_jobs=1)
    assert np.array_equal(one, info.cross_fit_predict(X, y, groups, n_trees=12, n_jobs=2))
    assert np.array_equal(one, info.cross_fit_predict(X, y, groups, n_trees=12))


# --- prediction gain -------------------------------------------------------------------------


def test_prediction_gain_and_ttest_against_scipy() -> None:
    from scipy.stats import ttest_1samp

    g = torch.Generator().manual_seed(0)
    E, L = 300, 10
    X = torch.randn(E, L, 3, generator=g, dtype=DT)
    i = torch.randn(E, L, 1, generator=g, dtype=DT)
    G = (
        X @ torch.tensor([1.0, -1.0, 0.5], dtype=DT)
        + 2 * i[..., 0]
        + 0.1 * torch.randn(E, L, generator=g, dtype=DT)
    )
    gains = info.prediction_gains(X, torch.cat([X, i], -1), G, generator=g)
    t, p = info.gain_ttest(gains)
    ref = ttest_1samp(gains.numpy(), 0.0, alternative="greater")
    assert math.isclose(t, ref.statistic, rel_tol=1e-10) and math.isclose(
        p, ref.pvalue, rel_tol=1e-8, abs_tol=1e-300
    )
    assert p < 1e-10
    # a redundant column changes no prediction: gains are zero, the test does not reject
    red = info.prediction_gains(X, torch.cat([X, X[..., :1]], -1), G, generator=g)
    assert float(red.abs().max()) < 1e-10 and info.gain_ttest(red) == (0.0, 1.0)


# --- argument validation: one test per check ------------------------------------------------

P0, T2, O2, R2 = critic.audit_pomdp()
SIG = torch.eye(2, dtype=DT).expand(3, 2, 2).clone()


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"p0": torch.tensor([0.7, 0.7], dtype=DT)}, "p0"),
        ({"p0": [0.5, 0.5]}, "p0"),
        ({"T": torch.eye(3, dtype=DT)}, "T"),
        ({"T": torch.tensor([[0.5, 0.6], [0.5, 0.5]], dtype=DT)}, "T"),
        ({"O": torch.tensor([[0.5, 0.6], [0.5, 0.5]], dtype=DT)}, "O"),
        ({"signal": torch.eye(2, dtype=DT)}, "signal"),
        ({"signal": torch.tensor([[0.8, 0.2], [0.2, 0.8]]).expand(3, 2, 2).to(DT)}, "signal"),
        ({"reward": torch.zeros(3, 2, 3, dtype=DT)}, "reward"),
        ({"reward": torch.full((3, 2, 2), float("nan"), dtype=DT)}, "reward"),
        ({"n_actions": 0}, "n_actions"),
        ({"signal": torch.full((12, 2, 2), 0.5, dtype=DT)}, "too many"),
    ],
)
def test_enumerate_pomdp_validation(kwargs, match) -> None:
    args = {"p0": P0, "T": T2, "O": O2, "signal": SIG, "reward": R2, "n_actions": 2}
    if "signal" in kwargs and kwargs["signal"].shape[0] == 12:
        args["reward"] = torch.zeros(12, 2, 2, dtype=DT)
    args.update(kwargs)
    with pytest.raises(ValueError, match=match):
        critic.enumerate_pomdp(**args)


def test_audit_pomdp_validation() -> None:
    with pytest.raises(ValueError, match="horizon"):
        critic.audit_pomdp(horizon=0)
    with pytest.raises(ValueError, match="flip"):
        critic.audit_pomdp(flip=1.5)
    with pytest.raises(ValueError, match="accuracy"):
        critic.audit_pomdp(accuracy=-0.1)
    with pytest.raises(ValueError, match="step_cost"):
        critic.audit_pomdp(step_cost=float("inf"))


def test_policy_and_gradient_validation() -> None:
    E = critic.enumerate_pomdp(P0, T2, O2, SIG, R2, 2)
    with pytest.raises(ValueError, match="theta"):
        critic.policy_log_probs(torch.zeros(5, dtype=DT), E)
    with pytest.raises(ValueError, match="theta"):
        critic.policy_log_probs(torch.zeros(84, dtype=torch.long), E)
    th = torch.zeros(84, dtype=DT)
    with pytest.raises(ValueError, match="gamma"):
        critic.exact_objective(th, E, 1.5)
    with pytest.raises(ValueError, match="critic"):
        critic.informed_gradient(th, E, torch.zeros(3, 3, dtype=DT), 0.9)
    with pytest.raises(ValueError, match="critic"):
        critic.informed_gradient(th, E, torch.full((len(E.s), 3), float("nan"), dtype=DT), 0.9)
    with pytest.raises(ValueError, match="gamma"):
        critic.informed_gradient(th, E, torch.zeros(len(E.s), 3, dtype=DT), -0.1)
    with pytest.raises(ValueError, match="gamma"):
        critic.discounted_returns(torch.zeros(2, 3, dtype=DT), 2.0)
    with pytest.raises(ValueError, match="rewards"):
        critic.discounted_returns(torch.tensor(1.0, dtype=DT), 0.5)


def test_conditional_mean_and_td_validation() -> None:
    v, w, k = torch.ones(4, dtype=DT), torch.ones(4, dtype=DT), torch.zeros(4, dtype=torch.long)
    with pytest.raises(ValueError, match="weights"):
        critic.conditional_mean(v, -w, k)
    with pytest.raises(ValueError, match="weights"):
        critic.conditional_mean(v, torch.ones(3, dtype=DT), k)
    with pytest.raises(ValueError, match="keys"):
        critic.conditional_mean(v, w, k.to(DT))
    with pytest.raises(ValueError, match="keys"):
        critic.conditional_mean(v, w, torch.zeros(3, dtype=torch.long))
    with pytest.raises(ValueError, match="n_keys"):
        critic.conditional_mean(v, w, k, n_keys=0)
    with pytest.raises(ValueError, match="reward"):
        critic.td_fixed_point(
            w, torch.ones(3, 2, dtype=DT), torch.zeros(3, 2, dtype=torch.long), 0.9
        )
    with pytest.raises(ValueError, match="keys"):
        critic.td_fixed_point(
            w, torch.ones(4, 2, dtype=DT), torch.zeros(4, 3, dtype=torch.long), 0.9
        )
    with pytest.raises(ValueError, match="gamma"):
        critic.td_fixed_point(
            w, torch.ones(4, 2, dtype=DT), torch.zeros(4, 2, dtype=torch.long), 1.1
        )


def test_synthetic_validation() -> None:
    with pytest.raises(ValueError, match="n_groups"):
        envs.aliased_pomdp(n_groups=0)
    with pytest.raises(ValueError, match="group_size"):
        envs.aliased_pomdp(group_size=0)
    with pytest.raises(ValueError, match="n_actions"):
        envs.aliased_pomdp(n_actions=0)
    with pytest.raises(ValueError, match="concentration"):
        envs.aliased_pomdp(concentration=0.0)
    env = envs.aliased_pomdp(generator=torch.Generator().manual_seed(0))
    with pytest.raises(ValueError, match="n_episodes"):
        envs.rollout(env, 0, 5)
    with pytest.raises(ValueError, match="length"):
        envs.rollout(env, 2, 0)
    with pytest.raises(ValueError, match="obs_noise"):
        envs.rollout(env, 2, 5, obs_noise=-1.0)
    obs, act = torch.zeros(2, 5, 2, dtype=DT), torch.zeros(2, 5, dtype=torch.long)
    with pytest.raises(ValueError, match="obs"):
        envs.history_window(torch.zeros(2, 5, dtype=DT), act, 4, 3)
    with pytest.raises(ValueError, match="actions"):
        envs.history_window(obs, torch.zeros(2, 4, dtype=torch.long), 4, 3)
    with pytest.raises(ValueError, match="n_actions"):
        envs.history_window(obs, act, 0, 3)
    with pytest.raises(ValueError, match="k"):
        envs.history_window(obs, act, 4, 0)


def test_hsic_validation() -> None:
    x = torch.randn(20, 1, dtype=DT)
    with pytest.raises(ValueError, match="x"):
        info.median_bandwidth(torch.zeros(1, 1, dtype=DT))
    with pytest.raises(ValueError, match="max_points"):
        info.median_bandwidth(x, max_points=1)
    with pytest.raises(ValueError, match="floor"):
        info.median_bandwidth(x, floor=0.0)
    with pytest.raises(ValueError, match="n_landmarks"):
        info.rbf_nystrom_features(x, 0)
    with pytest.raises(ValueError, match="bandwidth"):
        info.rbf_nystrom_features(x, 5, bandwidth=-1.0)
    with pytest.raises(ValueError, match="x"):
        info.rbf_nystrom_features(torch.full((4, 1), float("nan"), dtype=DT), 2)
    with pytest.raises(ValueError, match="phi_y"):
        info.hsic_from_features(torch.zeros(5, 2, dtype=DT), torch.zeros(4, 2, dtype=DT))
    with pytest.raises(ValueError, match="e_y"):
        info.permutation_hsic(x, torch.randn(19, 1, dtype=DT), 5)
    with pytest.raises(ValueError, match="episode_length"):
        info.permutation_hsic(x, x, 3)
    with pytest.raises(ValueError, match="episodes"):
        info.permutation_hsic(x, x, 20)
    with pytest.raises(ValueError, match="n_permutations"):
        info.permutation_hsic(x, x, 5, n_permutations=0)
    with pytest.raises(ValueError, match="chunk"):
        info.permutation_hsic(x, x, 5, chunk=0)
    with pytest.raises(ValueError, match="permutations"):
        info.permutation_hsic(
            x, x, 5, n_permutations=2, permutations=torch.zeros(2, 4, dtype=torch.long)
        )


def test_cross_fit_and_gain_validation() -> None:
    X, y, gr = np.zeros((20, 2)), np.zeros(20), np.repeat(np.arange(10), 2)
    with pytest.raises(ValueError, match="X"):
        info.cross_fit_predict(np.zeros(20), y, gr)
    with pytest.raises(ValueError, match="y"):
        info.cross_fit_predict(X, np.zeros(19), gr)
    with pytest.raises(ValueError, match="groups"):
        info.cross_fit_predict(X, y, np.zeros(19))
    with pytest.raises(ValueError, match="groups"):
        info.cross_fit_predict(X, y, np.zeros(20))
    with pytest.raises(ValueError, match="n_folds"):
        info.cross_fit_predict(X, y, gr, n_folds=1)
    with pytest.raises(ValueError, match="n_trees"):
        info.cross_fit_predict(X, y, gr, n_trees=0)
    for bad in (0, -2, 1.5, True):
        with pytest.raises(ValueError, match="n_jobs"):
            info.cross_fit_predict(X, y, gr, n_jobs=bad)
    Xs = torch.zeros(10, 3, 2, dtype=DT)
    with pytest.raises(ValueError, match="X_inf"):
        info.prediction_gains(Xs, torch.zeros(9, 3, 2, dtype=DT), torch.zeros(10, 3, dtype=DT))
    with pytest.raises(ValueError, match="G"):
        info.prediction_gains(Xs, Xs, torch.zeros(10, 4, dtype=DT))
    with pytest.raises(ValueError, match="n_folds"):
        info.prediction_gains(Xs, Xs, torch.zeros(10, 3, dtype=DT), n_folds=11)
    with pytest.raises(ValueError, match="gains"):
        info.gain_ttest(torch.zeros(1, dtype=DT))
    with pytest.raises(ValueError, match="gains"):
        info.gain_ttest(torch.tensor([1.0, float("nan")], dtype=DT))
    with pytest.raises(ValueError, match="epsilon"):
        info.gain_ttest(torch.ones(3, dtype=DT), float("inf"))


# --- environments: the batched interface and gymnasium ----------------------------------------


def test_aliased_pomdp_interface_matches_rollout_semantics() -> None:
    env = envs.aliased_pomdp(concentration=0.1, generator=torch.Generator().manual_seed(1))
    g = torch.Generator().manual_seed(2)
    u = torch.rand(500, 1, generator=g, dtype=DT)
    s = env.reset(u)
    assert s.shape == (500, 1) and s.dtype == torch.long
    assert torch.equal(env.observe(s), env.features[s[:, 0], :2])
    assert torch.equal(env.privileged(s), env.features[s[:, 0]])
    a = torch.randint(4, (500,), generator=g)
    nxt, r, term = env.step(s, a, torch.rand(500, 1, generator=g, dtype=DT))
    assert torch.allclose(r, env.features[s[:, 0]] @ env.weights) and not term.any()
    # the next state has positive probability under T, and the same uniforms give the same
    assert (env.T[a, s[:, 0], nxt[:, 0]] > 0).all()
    u2 = torch.rand(500, 1, generator=g, dtype=DT)
    assert torch.equal(env.step(s, a, u2)[0], env.step(s, a, u2, check=False)[0])


def test_aliased_step_frequencies_follow_transition_law() -> None:
    env = envs.aliased_pomdp(concentration=0.5, generator=torch.Generator().manual_seed(3))
    g = torch.Generator().manual_seed(4)
    n = 40_000
    s = torch.full((n, 1), 7)
    a = torch.full((n,), 2)
    nxt, _, _ = env.step(s, a, torch.rand(n, 1, generator=g, dtype=DT))
    freq = torch.bincount(nxt[:, 0], minlength=env.n_states).to(DT) / n
    assert float((freq - env.T[2, 7]).abs().max()) < 0.015


def test_reference_returns_by_brute_force() -> None:
    # a 2-state, 2-action MDP with horizon 3: random and optimal values by enumeration
    env = envs.aliased_pomdp(
        n_groups=1,
        group_size=2,
        n_actions=2,
        horizon=3,
        concentration=0.7,
        generator=torch.Generator().manual_seed(5),
    )
    r = env.features @ env.weights
    import itertools

    best = -math.inf
    for pol in itertools.product(range(2), repeat=2 * 3):  # a[t, s] for t < 3
        value = torch.zeros(2, dtype=DT)
        for t in reversed(range(3)):
            acts = torch.tensor(pol[2 * t : 2 * t + 2])
            value = r + env.T[acts, torch.arange(2)] @ value
        best = max(best, float(env.p0 @ value))
    rand = torch.zeros(2, dtype=DT)
    for _ in range(3):
        rand = r + env.T.mean(0) @ rand
    got_rand, got_best = envs.reference_returns(env)
    assert math.isclose(got_rand, float(env.p0 @ rand), rel_tol=1e-12)
    assert math.isclose(got_best, best, rel_tol=1e-12, abs_tol=1e-12)


def test_history_window_time_feature() -> None:
    obs = torch.randn(2, 4, 2, dtype=DT)
    act = torch.tensor([[0, 1, 2, 0], [1, 1, 0, 2]])
    z = envs.history_window(obs, act, 3, 2, horizon=8)
    assert z.shape == (2, 4, 2 * (2 + 3 + 1) + 1)
    assert torch.allclose(z[0, :, -1], torch.arange(4, dtype=DT) / 8)
    assert torch.equal(z[..., :-1], envs.history_window(obs, act, 3, 2))


def test_cartpole_matches_gymnasium_step_by_step() -> None:
    import gymnasium

    ours = envs.PositionOnlyCartPole()
    gym_env = gymnasium.make("CartPole-v1").unwrapped
    rng = np.random.default_rng(0)
    steps = ends = 0
    for episode in range(5):
        gym_env.reset(seed=episode)
        state = torch.tensor(gym_env.state, dtype=DT)
        for _ in range(500):
            a = int(rng.integers(2))
            _, reward, terminated, _, _ = gym_env.step(a)
            state, r, ended = ours.step(state, torch.tensor(a))
            assert np.array_equal(state.numpy(), np.asarray(gym_env.state))
            assert bool(ended) == terminated and float(r) == reward
            steps += 1
            if terminated:
                ends += 1
                break
    assert ends == 5 and steps > 50
    assert torch.equal(ours.observe(state), state[[0, 2]])


def test_cartpole_batched_equals_one_at_a_time() -> None:
    cp = envs.PositionOnlyCartPole()
    g = torch.Generator().manual_seed(6)
    s = cp.reset(torch.rand(3, 5, 4, generator=g, dtype=DT))
    a = torch.randint(2, (3, 5), generator=g)
    nxt, r, end = cp.step(s, a)
    for i in range(3):
        for j in range(5):
            one = cp.step(s[i, j], a[i, j])
            assert torch.equal(one[0], nxt[i, j]) and bool(one[2]) == bool(end[i, j])
    assert (s.abs() <= 0.05).all() and torch.equal(r, torch.ones(3, 5, dtype=DT))


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda e, c: e.reset(torch.full((3, 1), 1.5, dtype=DT)), "u"),
        (lambda e, c: e.reset(torch.zeros(3, 2, dtype=DT)), "u"),
        (lambda e, c: e.reset(torch.full((3, 1), float("nan"), dtype=DT)), "u"),
        (lambda e, c: e.observe(torch.zeros(3, 1, dtype=DT)), "state"),
        (lambda e, c: e.observe(torch.full((3, 1), 20)), "state"),
        (lambda e, c: e.privileged(torch.full((3, 1), -1)), "state"),
        (
            lambda e, c: e.step(
                torch.zeros(3, 1, dtype=torch.long),
                torch.zeros(2, dtype=torch.long),
                torch.zeros(3, 1, dtype=DT),
            ),
            "action",
        ),
        (
            lambda e, c: e.step(
                torch.zeros(3, 1, dtype=torch.long),
                torch.full((3,), 4),
                torch.zeros(3, 1, dtype=DT),
            ),
            "action",
        ),
        (
            lambda e, c: e.step(
                torch.zeros(3, 1, dtype=torch.long),
                torch.zeros(3, dtype=torch.long),
                torch.zeros(2, 1, dtype=DT),
            ),
            "u",
        ),
        (lambda e, c: c.reset(torch.zeros(3, 3, dtype=DT)), "u"),
        (lambda e, c: c.observe(torch.zeros(3, 3, dtype=DT)), "state"),
        (
            lambda e, c: c.step(
                torch.full((3, 4), float("inf"), dtype=DT), torch.zeros(3, dtype=torch.long)
            ),
            "state",
        ),
        (lambda e, c: c.step(torch.zeros(3, 4, dtype=DT), torch.full((3,), 2)), "action"),
        (lambda e, c: c.step(torch.zeros(3, 4, dtype=DT), torch.zeros(3, dtype=DT)), "action"),
        (lambda e, c: envs.PositionOnlyCartPole(horizon=0), "horizon"),
        (lambda e, c: envs.PositionOnlyCartPole(tau=0.0), "tau"),
        (lambda e, c: envs.reference_returns(c), "env"),
        (lambda e, c: envs.rollout(c, 2, 3), "env"),
        (lambda e, c: envs.aliased_pomdp(horizon=0), "horizon"),
        (lambda e, c: envs.aliased_pomdp(generator=3), "generator"),
        (
            lambda e, c: envs.history_window(
                torch.full((1, 2, 2), float("nan"), dtype=DT),
                torch.zeros(1, 2, dtype=torch.long),
                2,
                1,
            ),
            "obs",
        ),
        (
            lambda e, c: envs.history_window(
                torch.zeros(1, 2, 2, dtype=DT), torch.full((1, 2), 5), 2, 1
            ),
            "actions",
        ),
        (
            lambda e, c: envs.history_window(
                torch.zeros(1, 4, 2, dtype=DT), torch.zeros(1, 4, dtype=torch.long), 2, 1, horizon=3
            ),
            "horizon",
        ),
    ],
)
def test_environment_validation(call, match) -> None:
    env = envs.aliased_pomdp(generator=torch.Generator().manual_seed(0))
    with pytest.raises(ValueError, match=match):
        call(env, envs.PositionOnlyCartPole())


# --- the informativeness tests: batched null, options, validation ------------------------------


@pytest.mark.parametrize("chunk", [1, 7, 25, 200])
def test_null_statistics_do_not_depend_on_the_batching(chunk) -> None:
    g = torch.Generator().manual_seed(7)
    x = torch.randn(40 * 5, 1, generator=g, dtype=DT)
    y = torch.cat([x, x**2], 1) + torch.randn(200, 2, generator=g, dtype=DT)
    perms = torch.stack([torch.randperm(40, generator=g) for _ in range(60)])
    base = info.permutation_hsic(x, y, 5, n_permutations=60, permutations=perms, chunk=60)
    res = info.permutation_hsic(x, y, 5, n_permutations=60, permutations=perms, chunk=chunk)
    # the same features (all rows are landmarks): the nulls agree to rounding
    assert torch.allclose(res.null, base.null, rtol=1e-10, atol=0)
    # and each null statistic is the HSIC of the re-paired episodes
    fx = info.rbf_nystrom_features(x, 256, rel_tol=1e-10)
    fy = info.rbf_nystrom_features(y, 256, rel_tol=1e-10)
    idx = (perms[3, :, None] * 5 + torch.arange(5)).reshape(-1)
    assert math.isclose(float(res.null[3]), info.hsic_from_features(fx, fy[idx]), rel_tol=1e-8)


def test_step_level_permutations_inflate_the_level() -> None:
    # residuals constant within episodes, independent across: a step shuffle rejects
    g = torch.Generator().manual_seed(8)
    p_ep, p_step = [], []
    for _ in range(6):
        e_x = torch.randn(60, 1, 1, generator=g, dtype=DT).expand(60, 10, 1).reshape(600, 1)
        e_x = e_x + 0.1 * torch.randn(600, 1, generator=g, dtype=DT)
        e_y = torch.randn(60, 1, 1, generator=g, dtype=DT).expand(60, 10, 1).reshape(600, 1)
        p_ep.append(info.permutation_hsic(e_x, e_y, 10, n_permutations=99, generator=g).p_value)
        p_step.append(info.permutation_hsic(e_x, e_y, 1, n_permutations=99, generator=g).p_value)
    assert sum(p < 0.05 for p in p_ep) <= 2
    assert sum(p < 0.05 for p in p_step) >= 4


def test_cross_fit_accepts_a_column_target() -> None:
    rng = np.random.default_rng(1)
    X = rng.normal(size=(100, 3))
    y = X[:, 0] + 0.1 * rng.normal(size=100)
    groups = np.repeat(np.arange(10), 10)
    a = info.cross_fit_predict(X, y, groups, n_trees=5, max_features=0.5)
    b = info.cross_fit_predict(X, y[:, None], groups, n_trees=5, max_features=0.5)
    assert b.shape == (100, 1) and np.array_equal(a, b[:, 0])


def test_in_sample_gains_favour_any_extra_column() -> None:
    g = torch.Generator().manual_seed(9)
    X = torch.randn(200, 5, 3, generator=g, dtype=DT)
    G = X[..., 0] + torch.randn(200, 5, generator=g, dtype=DT)
    noise = torch.randn(200, 5, 4, generator=g, dtype=DT)
    X_i = torch.cat([X, noise], -1)
    inside = info.prediction_gains(X, X_i, G, in_sample=True)
    outside = info.prediction_gains(X, X_i, G, generator=g)
    assert float(inside.mean()) > 0 > float(outside.mean())


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: info.median_bandwidth(torch.full((5, 1), float("inf"), dtype=DT)), "x"),
        (lambda: info.median_bandwidth(torch.zeros(5, 0, dtype=DT)), "x"),
        (lambda: info.rbf_nystrom_features(torch.zeros(1, 2, dtype=DT), 1), "x"),
        (
            lambda: info.rbf_nystrom_features(torch.randn(5, 1, dtype=DT), 2, rel_tol=-1.0),
            "rel_tol",
        ),
        (
            lambda: info.hsic_from_features(
                torch.zeros(0, 2, dtype=DT), torch.zeros(0, 2, dtype=DT)
            ),
            "phi_x",
        ),
        (
            lambda: info.hsic_from_features(
                torch.full((3, 2), float("nan"), dtype=DT), torch.zeros(3, 2, dtype=DT)
            ),
            "phi_x",
        ),
        (
            lambda: info.permutation_hsic(
                torch.full((10, 1), float("nan"), dtype=DT), torch.zeros(10, 1, dtype=DT), 5
            ),
            "e_x",
        ),
        (
            lambda: info.permutation_hsic(
                torch.zeros(0, 1, dtype=DT), torch.zeros(0, 1, dtype=DT), 1
            ),
            "e_x",
        ),
        (
            lambda: info.permutation_hsic(
                torch.randn(10, 1, dtype=DT), torch.randn(10, 1, dtype=DT), 5, n_landmarks=0
            ),
            "n_landmarks",
        ),
        (
            lambda: info.permutation_hsic(
                torch.randn(10, 1, dtype=DT), torch.randn(10, 1, dtype=DT), 5, rel_tol=-1.0
            ),
            "rel_tol",
        ),
        (
            lambda: info.permutation_hsic(
                torch.randn(10, 1, dtype=DT),
                torch.randn(10, 1, dtype=DT),
                5,
                n_permutations=2,
                permutations=torch.tensor([[0.0, 1.0], [1.0, 0.0]]),
            ),
            "permutations",
        ),
        (
            lambda: info.cross_fit_predict(
                np.zeros((20, 2)), np.zeros(20), np.repeat(np.arange(10), 2), max_features=0.0
            ),
            "max_features",
        ),
        (
            lambda: info.cross_fit_predict(
                np.zeros((20, 2)), np.zeros(20), np.repeat(np.arange(10), 2), seed=-1
            ),
            "seed",
        ),
        (
            lambda: info.cross_fit_predict(
                np.full((20, 2), np.nan), np.zeros(20), np.repeat(np.arange(10), 2)
            ),
            "X",
        ),
        (
            lambda: info.prediction_gains(
                torch.full((10, 3, 2), float("nan"), dtype=DT),
                torch.zeros(10, 3, 2, dtype=DT),
                torch.zeros(10, 3, dtype=DT),
            ),
            "X_sym",
        ),
        (
            lambda: info.prediction_gains(
                torch.zeros(10, 0, 2, dtype=DT),
                torch.zeros(10, 0, 2, dtype=DT),
                torch.zeros(10, 0, dtype=DT),
            ),
            "step",
        ),
        (
            lambda: info.prediction_gains(
                torch.zeros(10, 3, 2, dtype=DT),
                torch.zeros(10, 3, 2, dtype=DT),
                torch.zeros(10, 3, dtype=DT),
                in_sample=1,
            ),
            "in_sample",
        ),
    ],
)
def test_informativeness_validation(call, match) -> None:
    with pytest.raises(ValueError, match=match):
        call()


# --- exact audit: more bad inputs -------------------------------------------------------------


def test_exact_audit_rejects_nan_and_empty_inputs() -> None:
    E = critic.enumerate_pomdp(P0, T2, O2, SIG, R2, 2)
    with pytest.raises(ValueError, match="theta"):
        critic.policy_log_probs(torch.full((84,), float("nan"), dtype=DT), E)
    with pytest.raises(ValueError, match="E"):
        critic.policy_log_probs(torch.zeros(84, dtype=DT), "not an enumeration")
    with pytest.raises(ValueError, match="E"):
        critic.exact_objective(torch.zeros(84, dtype=DT), None, 0.9)
    with pytest.raises(ValueError, match="rewards"):
        critic.discounted_returns(torch.zeros(2, 0, dtype=DT), 0.5)
    with pytest.raises(ValueError, match="rewards"):
        critic.discounted_returns(torch.tensor([[1.0, float("nan")]], dtype=DT), 0.5)
    v, w = torch.ones(4, dtype=DT), torch.ones(4, dtype=DT)
    k = torch.zeros(4, dtype=torch.long)
    with pytest.raises(ValueError, match="values"):
        critic.conditional_mean(torch.zeros(0, dtype=DT), w[:0], k[:0])
    with pytest.raises(ValueError, match="values"):
        critic.conditional_mean(torch.full((4,), float("inf"), dtype=DT), w, k)
    with pytest.raises(ValueError, match="weights"):
        critic.conditional_mean(v, torch.full((4,), float("nan"), dtype=DT), k)
    with pytest.raises(ValueError, match="keys"):
        critic.conditional_mean(v, w, -torch.ones(4, dtype=torch.long))
    with pytest.raises(ValueError, match="keys"):
        critic.conditional_mean(v, w, torch.zeros(4, dtype=torch.bool))
    with pytest.raises(ValueError, match="n_keys"):
        critic.conditional_mean(v, w, torch.tensor([0, 1, 2, 3]), n_keys=2)
    with pytest.raises(ValueError, match="reward"):
        critic.td_fixed_point(
            w, torch.full((4, 2), float("nan"), dtype=DT), k.view(4, 1).expand(4, 2), 0.9
        )


def test_cross_fit_predict_does_not_depend_on_the_last_bits_of_the_targets() -> None:
    # the residual test's data: histories and one-hot actions of an aliased POMDP, returns
    env = envs.aliased_pomdp(
        n_groups=5,
        group_size=4,
        n_actions=4,
        concentration=0.3,
        horizon=25,
        generator=torch.Generator().manual_seed(1),
    )
    d = envs.rollout(env, 60, 25, generator=torch.Generator().manual_seed(2))
    z = envs.history_window(d["obs"], d["actions"], 4, 3, horizon=25)
    a = torch.nn.functional.one_hot(d["actions"], 4).to(DT)
    X = torch.cat([z, a], -1).reshape(60 * 25, -1).numpy()
    G = critic.discounted_returns(d["rewards"], 0.99).reshape(-1).numpy()
    groups = np.repeat(np.arange(60), 25)
    ulp = np.spacing(G) * np.where(np.arange(G.size) % 2, 1.0, -1.0)  # another CPU's sums
    kw = dict(n_trees=10, min_samples_leaf=5, max_features=1 / 3)
    pred = info.cross_fit_predict(X, G, groups, **kw)
    # without the rounding of the targets, the forests differ by up to 1.4 here
    assert np.array_equal(pred, info.cross_fit_predict(X, G + ulp, groups, **kw))
