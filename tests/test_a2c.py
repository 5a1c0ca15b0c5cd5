"""Tests of icml26.sequential.a2c, the batched informed asymmetric actor-critic (chapter 03)."""

from __future__ import annotations

import pytest
import torch

from icml26.pipeline.notebooks import notebook_functions
from icml26.sequential import a2c
from icml26.sequential import critic_envs as envs

DT = torch.float64
GAMMA = 0.99


@pytest.fixture(autouse=True, scope="module")
def _one_thread():
    """Small tensor ops: one thread avoids oversubscription on a shared machine."""
    n = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(n)


SIGNALS = [
    a2c.Signal("none"),
    a2c.Signal("noise", noise=2),
    a2c.Signal("[s3]", (2,)),
    a2c.Signal("[s1,s2,s4,s5]", (0, 1, 3, 4)),
]


def _env(horizon=25):
    return envs.aliased_pomdp(
        concentration=0.2, horizon=horizon, generator=torch.Generator().manual_seed(0)
    )


def _segment(env, signals=SIGNALS, S=2, N=3, T=25, hidden=8, seed=1):
    g = torch.Generator().manual_seed(seed)
    sel, noise = a2c.signal_maps(signals, env.privileged_dim, S, DT)
    dz = 3 * (env.obs_dim + env.n_actions + 1) + 1
    C = len(signals)
    models = a2c.init_models(C, S, dz, sel.shape[-1], env.n_actions, hidden, generator=g)
    draws = a2c.draw_segment(env, T, S, C, N, sel.shape[-1], generator=g)
    u = torch.rand(S, N, env.reset_uniforms, generator=g, dtype=DT).repeat(C, 1, 1)
    ro = a2c.start(env, C * S, N, 3, u)
    seg, ro_next = a2c.collect(env, models, ro, sel, noise, draws)
    return models, sel, noise, draws, ro, seg, ro_next


def test_losses_and_gradients_match_notebook_reference() -> None:
    ref = notebook_functions("03-informed-critic", "reference_a2c_losses")["reference_a2c_losses"]
    env = _env()
    models, sel, noise, draws, ro, seg, _ = _segment(env)
    actor_loss, critic_loss = a2c.a2c_losses(models, seg, GAMMA, 0.02)
    (actor_loss.sum() + critic_loss.sum()).backward()
    grads = [p.grad.clone() for p in models.actor + models.critic]
    for p in models.actor + models.critic:
        p.grad = None
    total = 0.0
    for m in range(len(SIGNALS) * 2):
        a_ref, c_ref = ref(env, models, m, ro.state, draws, sel, noise, GAMMA, 0.02, 3)
        assert abs(a_ref.item() - actor_loss[m].item()) < 1e-12
        assert abs(c_ref.item() - critic_loss[m].item()) < 1e-12
        total = total + a_ref + c_ref
    total.backward()
    for got, p in zip(grads, models.actor + models.critic, strict=True):
        assert torch.allclose(got, p.grad, atol=1e-12, rtol=1e-10)


def test_online_features_equal_the_offline_history_window() -> None:
    env = _env()
    seg = _segment(env)[5]
    M, N, T, _ = seg.z.shape
    obs = seg.z[..., : env.obs_dim].reshape(M * N, T, -1)
    z = envs.history_window(obs, seg.a.reshape(M * N, T), env.n_actions, 3, horizon=25)
    assert torch.equal(seg.z.reshape(M * N, T, -1), z)
    # the critic's signal columns: the chosen privileged features, in order
    feats = seg.i[3 * 2 :, :, :, :4]  # [s1,s2,s4,s5]: models 6 and 7
    assert torch.equal(seg.z[6:, ..., :2], feats[..., :2])
    assert torch.equal(seg.i[:2], torch.zeros_like(seg.i[:2]))  # no signal: zeros


def test_common_random_numbers_and_no_signal_in_the_actor() -> None:
    # before any update, every signal of a seed takes the same actions: the actor never
    # reads the signal, and the seed's random numbers are shared
    env = _env()
    _, _, _, _, _, seg, _ = _segment(env, S=3)
    for c in range(1, len(SIGNALS)):
        assert torch.equal(seg.a[c * 3 : c * 3 + 3], seg.a[:3])
        assert torch.equal(seg.r[c * 3 : c * 3 + 3], seg.r[:3])
    assert not torch.equal(seg.a[0], seg.a[1])  # different seeds differ


def test_losses_touch_only_their_own_head() -> None:
    env = _env()
    models, *_, seg, _ = _segment(env)
    actor_loss, critic_loss = a2c.a2c_losses(models, seg, GAMMA, 0.01)
    g_critic = torch.autograd.grad(critic_loss.sum(), models.actor, allow_unused=True)
    assert all(g is None for g in g_critic)
    g_actor = torch.autograd.grad(actor_loss.sum(), models.critic, allow_unused=True)
    assert all(g is None for g in g_actor)


def test_episodes_restart_with_an_empty_window() -> None:
    cp = envs.PositionOnlyCartPole(horizon=8)  # every episode ends within 8 steps
    sig = [a2c.Signal("none"), a2c.Signal("angular velocity", (3,))]
    _, _, _, _, _, seg, ro = _segment(cp, signals=sig, S=2, N=4, T=20)
    M, N, T, _ = seg.z.shape
    starts = torch.zeros(M, N, T, dtype=torch.bool)
    starts[:, :, 1:] = seg.done[:, :, :-1]
    block = cp.obs_dim + cp.n_actions + 1
    assert seg.done.any() and (seg.z[starts][:, block:-1] == 0).all()
    assert (seg.z[starts][:, -1] == 0).all()  # time restarts at zero
    assert (ro.t < 8).all()
    assert int(seg.ended.sum()) == int(seg.done.sum())


def test_training_is_deterministic_and_learns() -> None:
    env = _env()
    sig = [a2c.Signal("none"), a2c.Signal("full", (0, 1, 2, 3, 4))]
    cfg = a2c.A2CSettings(n_iterations=80, n_envs=8)
    runs = [
        a2c.train_a2c(env, sig, n_seeds=2, settings=cfg, generator=torch.Generator().manual_seed(3))
        for _ in range(2)
    ]
    assert torch.equal(runs[0].returns, runs[1].returns)
    R = runs[0].returns
    assert R.shape == (80, 2, 2) and torch.isfinite(R).all()
    assert float(R[-20:].mean()) > float(R[:20].mean())  # the actors improve


def test_returns_are_nan_until_an_episode_ends() -> None:
    cp = envs.PositionOnlyCartPole(horizon=200)
    cfg = a2c.A2CSettings(n_iterations=3, n_envs=2, segment=2)
    run = a2c.train_a2c(cp, [a2c.Signal("none")], n_seeds=1, settings=cfg)
    assert torch.isnan(run.returns[0]).all()  # no CartPole episode ends within 2 steps


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: a2c.Signal(""), "name"),
        (lambda: a2c.Signal("x", (-1,)), "features"),
        (lambda: a2c.Signal("x", (1, 1)), "features"),
        (lambda: a2c.Signal("x", noise=-1), "noise"),
        (lambda: a2c.A2CSettings(n_iterations=0), "n_iterations"),
        (lambda: a2c.A2CSettings(lr_actor=0.0), "lr_actor"),
        (lambda: a2c.A2CSettings(gamma=1.5), "gamma"),
        (lambda: a2c.A2CSettings(entropy=float("nan")), "entropy"),
        (lambda: a2c.A2CSettings(target_every=0), "target_every"),
        (lambda: a2c.signal_maps([a2c.Signal("x", (5,))], 5, 2, DT), "feature"),
        (lambda: a2c.signal_maps([], 5, 2, DT), "signals"),
        (lambda: a2c.signal_maps([a2c.Signal("x"), a2c.Signal("x")], 5, 2, DT), "distinct"),
        (lambda: a2c.signal_maps(["x"], 5, 2, DT), "Signal"),
        (lambda: a2c.signal_maps([a2c.Signal("x")], 5, 0, DT), "n_seeds"),
        (lambda: a2c.init_models(0, 2, 3, 1, 2, 4), "n_signals"),
        (lambda: a2c.init_models(1, 2, 3, 1, 2, 0), "hidden"),
        (lambda: a2c.init_models(1, 2, 3, 1, 2, 4, dtype=torch.long), "dtype"),
        (lambda: a2c.start(_env(), 2, 3, 3, torch.rand(2, 3, 2, dtype=DT)), "u"),
        (lambda: a2c.start(_env(), 2, 3, 0, torch.rand(2, 3, 1, dtype=DT)), "window"),
        (lambda: a2c.start(object(), 2, 3, 3, torch.rand(2, 3, 1, dtype=DT)), "env"),
        (lambda: a2c.draw_segment(_env(), 0, 1, 1, 1, 1), "n_steps"),
        (lambda: a2c.draw_segment(_env(), 2, 1, 1, 1, 0), "d_signal"),
        (lambda: a2c.train_a2c(_env(), [a2c.Signal("x")], n_seeds=0), "n_seeds"),
        (lambda: a2c.train_a2c(_env(), [a2c.Signal("x")], n_seeds=1, settings={}), "settings"),
        (lambda: a2c.train_a2c(_env(), [a2c.Signal("x")], n_seeds=1, generator=1), "generator"),
        (lambda: a2c.train_a2c(_env(), [a2c.Signal("x")], n_seeds=1, dtype=torch.int64), "dtype"),
        (lambda: a2c.train_a2c(_env(), a2c.Signal("x"), n_seeds=1), "signals"),
    ],
)
def test_validation(call, match) -> None:
    with pytest.raises(ValueError, match=match):
        call()


def test_loss_validation() -> None:
    env = _env()
    models, *_, seg, _ = _segment(env)
    with pytest.raises(ValueError, match="gamma"):
        a2c.a2c_losses(models, seg, 1.5, 0.01)
    with pytest.raises(ValueError, match="entropy"):
        a2c.a2c_losses(models, seg, 0.9, -0.1)


def test_collect_needs_a_step() -> None:
    env = _env()
    models, sel, noise, draws, ro, *_ = _segment(env)
    empty = {k: v[:0] for k, v in draws.items()}
    with pytest.raises(ValueError, match="draws"):
        a2c.collect(env, models, ro, sel, noise, empty)


def test_segment_views_follow_the_feature_major_inputs() -> None:
    env = _env()
    seg = _segment(env)[5]
    M, N, T, dz = seg.z.shape
    assert seg.x.shape == (M, dz + seg.i.shape[-1], T + 1, N)
    assert torch.equal(seg.z[:, 2, 3], seg.x[:, :dz, 3, 2])
    assert torch.equal(seg.i_last, seg.x[:, dz:, T].mT)
