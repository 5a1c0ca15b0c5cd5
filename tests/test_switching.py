"""Tests of icml26.dynamics.switching and icml26.dynamics.motion (chapter 05, CogSDE)."""

from __future__ import annotations

import math

import pytest
import torch
import torchsde
from hypothesis import given, settings
from hypothesis import strategies as st
from torch.nn import functional as F

from icml26.dynamics import animal, motion, sde, switching
from icml26.pipeline.notebooks import notebook_functions

# The chapter's readable reference of the regime-switching drift, loaded from the notebook.
_drift_reference = notebook_functions("05-cogsde", "switching_drift_reference")[
    "switching_drift_reference"
]


def _sde(event: bool = True, d: int = 4) -> switching.RegimeSwitchingSDE:
    torch.manual_seed(0)
    return switching.RegimeSwitchingSDE(d, 3, hidden=8, event=event).double()


def _commands(n: int, seed: int = 1) -> torch.Tensor:
    g = torch.Generator().manual_seed(seed)
    return F.one_hot(torch.randint(0, 3, (n,), generator=g), 3).double()


# ----------------------------------------------------------------------------- the drift
@pytest.mark.parametrize("event", [True, False])
def test_drift_matches_reference(event):
    m = _sde(event)
    g = torch.Generator().manual_seed(2)
    z = torch.randn(20, 4, generator=g, dtype=torch.float64)
    v = switching.command_channels(_commands(20), 0.1)
    with torch.no_grad():
        got = m.drift(z, v)
        want = _drift_reference(m, z, v[:, :3], v[:, 3:])
    assert torch.allclose(got, want, atol=1e-12)


def test_regime_weights_are_a_distribution_and_cached():
    m = _sde()
    z = torch.randn(30, 4, dtype=torch.float64)
    pi = m.regime_weights(z)
    assert pi.shape == (30, 3)
    assert torch.allclose(pi.sum(-1), torch.ones(30, dtype=torch.float64))
    assert (pi > 0).all()
    assert m.regime_weights(z) is pi  # the same tensor: computed once per step
    assert m.regime_weights(z.clone()) is not pi


def test_single_regime_is_linear():
    torch.manual_seed(3)
    m = switching.RegimeSwitchingSDE(3, 2, n_regimes=1).double()
    z = torch.randn(5, 3, dtype=torch.float64)
    v = torch.zeros(5, 4, dtype=torch.float64)
    with torch.no_grad():
        assert torch.allclose(m.drift(z, v), z @ m.A[0, 0].T + m.a[0, 0], atol=1e-12)


def test_event_channel_reacts_only_to_changes():
    m = _sde()
    z = torch.zeros(4, 4, dtype=torch.float64)
    u = torch.eye(3, dtype=torch.float64)[[0, 0, 1, 1]]
    v = switching.command_channels(u, 0.1)
    assert torch.equal(v[:, :3], u)
    assert torch.equal(v[0, 3:], torch.zeros(3, dtype=torch.float64))
    assert torch.equal(v[2, 3:], torch.tensor([-10.0, 10.0, 0.0], dtype=torch.float64))
    with torch.no_grad():
        f = m.drift(z, v)
        level = m.drift(z, torch.cat([u, torch.zeros_like(u)], -1))
    assert torch.allclose(f[[0, 1, 3]], level[[0, 1, 3]])
    assert not torch.allclose(f[2], level[2])


def test_command_channels_clip_and_batch():
    u = torch.zeros(3, 2, 1)
    u[1:, 0] = 5.0
    v = switching.command_channels(u, 0.01, clip=10.0)
    assert v.shape == (3, 2, 2)
    assert v[1, 0, 1].item() == 10.0 and v[2, 0, 1].item() == 0.0


def test_diffusion_is_clamped_and_state_dependent():
    m = _sde()
    with torch.no_grad():
        m.log_sigma.fill_(5.0)
    z = torch.randn(50, 4, dtype=torch.float64)
    assert torch.allclose(m.diffusion(z), torch.full((50, 4), 0.5, dtype=torch.float64))
    m = _sde()
    s = m.diffusion(10 * torch.randn(50, 4, dtype=torch.float64))
    assert (s >= 0.02).all() and (s <= 0.5).all() and s.std() > 0


def test_em_with_switching_drift_matches_torchsde():
    m = _sde()
    g = torch.Generator().manual_seed(4)
    n, N, h = 40, 16, 2.0**-5
    v = switching.command_channels(_commands(n), h)
    z0 = torch.randn(N, 4, generator=g, dtype=torch.float64)
    dW = math.sqrt(h) * torch.randn(n, N, 4, generator=g, dtype=torch.float64)
    ts = torch.arange(n + 1, dtype=torch.float64) * h
    with torch.no_grad():
        ours = sde.euler_maruyama(m.drift, m.diffusion, z0, h, u=v, dW=dW)
        ref = torchsde.sdeint(
            sde.TorchsdeAdapter(m, v, h),
            z0,
            ts,
            bm=sde.FixedIncrements(dW, h),
            method="euler",
            dt=h,
        )
    assert (ours - ref).abs().max().item() < 1e-9


# ----------------------------------------------------------------- dissipativity penalty
def test_residual_of_ou_is_exact():
    """For f = -l z, G = s I: r = (-2l + 2a)||z||^2 + d s^2 - b exactly."""

    class OU:
        def drift(self, z, v):
            return -0.7 * z

        def diffusion(self, z):
            return torch.full_like(z, 0.3)

    z = torch.randn(10, 3, dtype=torch.float64)
    r = switching.dissipativity_residual(OU(), z, None, alpha=0.01, beta=1.0)
    want = (-1.4 + 0.02) * z.pow(2).sum(-1) + 3 * 0.09 - 1.0
    assert torch.allclose(r, want)


def test_penalty_weights_and_ramp():
    r = torch.zeros(4, 3)
    per_member = switching.dissipativity_penalty(torch.stack([r, r + 50.0], 1), late_only=False)
    assert per_member.shape == (2,)
    assert per_member[0].item() == pytest.approx(math.log(2.0))
    assert per_member[1].item() == pytest.approx(50.0, rel=1e-6)
    late = switching.dissipativity_penalty(r)
    flat = switching.dissipativity_penalty(r, late_only=False)
    assert math.isclose(flat.item(), math.log(2.0), rel_tol=1e-6)
    assert math.isclose(late.item(), math.log(2.0) * (0.25 + 1) / 2, rel_tol=1e-6)
    big = switching.dissipativity_penalty(torch.full((2, 2), 50.0), late_only=False)
    assert math.isclose(big.item(), 50.0, rel_tol=1e-6)  # softplus(x) ~ x for large x
    assert switching.penalty_ramp(0, 600) == 0.0
    assert switching.penalty_ramp(20, 600) == pytest.approx(0.5)
    assert switching.penalty_ramp(599, 600) == 1.0


def test_far_limit_of_the_residual():
    """cogsde-prop-far: r(rho e) / rho^2 -> 2 sum_i pi_i e'A_i e + 2 alpha."""
    m = _sde()
    e = F.normalize(torch.randn(64, 4, dtype=torch.float64), dim=-1)
    rho = 1e4
    v = torch.zeros(64, 6, dtype=torch.float64)
    with torch.no_grad():
        r = switching.dissipativity_residual(m, rho * e, v) / rho**2
        pi = m.regime_weights(rho * e)
        quad = torch.einsum("ni,sij,nj->ns", e, m.A[0], e)
    assert torch.allclose(r, 2 * (pi * quad).sum(-1) + 0.02, atol=1e-3)


# ------------------------------------------------------------------------ the pipeline
def _data():
    g = torch.Generator().manual_seed(5)
    return animal.simulate_animal(6, 40, 0.1, generator=g, p_command=0.1)


def test_motion_windows_frame():
    data = _data()
    agents, starts = torch.arange(6), torch.tensor([0, 3, 5, 7, 9, 10])
    past, cmd, fut = motion.motion_windows(data, agents, starts, 8, 12, 0.1)
    assert past.shape == (6, 8, 5) and cmd.shape == (6, 12, 3) and fut.shape == (6, 12, 2)
    assert torch.allclose(past[:, -1, :2], torch.zeros(6, 2, dtype=torch.float64), atol=1e-6)
    assert torch.equal(cmd, data.commands[agents[:, None], starts[:, None] + 8 + torch.arange(12)])
    # heading along +x at the present: the first future step has no y-component
    assert torch.allclose(fut[:, 0, 1], torch.zeros(6, dtype=torch.float64), atol=1e-6)
    assert (fut[:, 0, 0] >= 0).all()
    with pytest.raises(ValueError, match="starts"):
        motion.motion_windows(data, agents, starts + 30, 8, 12, 0.1)


def _drivers():
    seeds = [3, 4]
    return {
        "sde": lambda: motion.SDEDriver(
            switching.RegimeSwitchingSDE(6, 3, hidden=8, event=[True, False], seeds=seeds)
        ),
        "rssm": lambda: motion.RecurrentDriver(6, 3, 5, noisy=[True, False], seeds=seeds),
        "ode": lambda: motion.ODEDriver(6, 3, 8, seeds=seeds),
    }


@pytest.mark.parametrize("kind", ["sde", "rssm", "ode"])
def test_forecaster_shapes_gradients_and_causality(kind):
    model = motion.MotionForecaster(_drivers()[kind](), 3, 12, hidden=16, seeds=[3, 4]).double()
    g = torch.Generator().manual_seed(6)
    past = torch.randn(2, 5, 8, 5, generator=g, dtype=torch.float64)
    cmd = F.one_hot(torch.randint(0, 3, (2, 5, 12), generator=g), 3).double()
    noise = torch.randn(12, 2, 15, 6, generator=g, dtype=torch.float64)
    pos, path = model(past, cmd, 0.1, n_samples=3, noise=noise, return_latent=True)
    assert pos.shape == (2, 3, 5, 12, 2) and path.shape == (13, 2, 15, 6)
    motion.best_of_k_loss(pos, torch.randn(2, 5, 12, 2, dtype=torch.float64)).sum().backward()
    assert all(p.grad is not None for p in model.encoder.parameters())
    # causality: changing the commands from frame 6 on leaves frames 0..5 unchanged
    cmd2 = cmd.clone()
    cmd2[:, :, 6:] = torch.roll(cmd2[:, :, 6:], 1, dims=-1)
    with torch.no_grad():
        a = model(past, cmd, 0.1, n_samples=3, noise=noise)
        b = model(past, cmd2, 0.1, n_samples=3, noise=noise)
    assert torch.allclose(a[..., :6, :], b[..., :6, :], atol=1e-12)
    assert not torch.allclose(a[..., 7:, :], b[..., 7:, :])


@pytest.mark.parametrize("kind", ["sde", "rssm", "ode"])
def test_members_are_independent(kind):
    """Member 0's forecast and gradient do not depend on member 1's weights or inputs."""
    model = motion.MotionForecaster(_drivers()[kind](), 3, 6, hidden=8, seeds=[3, 4]).double()
    g = torch.Generator().manual_seed(7)
    past = torch.randn(2, 4, 5, 5, generator=g, dtype=torch.float64)
    cmd = F.one_hot(torch.randint(0, 3, (2, 4, 6), generator=g), 3).double()
    noise = torch.randn(6, 2, 8, 6, generator=g, dtype=torch.float64)
    pos = model(past, cmd, 0.1, n_samples=2, noise=noise)
    pos[0].pow(2).sum().backward()
    for p in model.parameters():
        if p.grad is not None:
            assert p.grad[1].abs().max() == 0
    with torch.no_grad():
        for p in model.parameters():
            p[1].add_(0.3)
        past[1].mul_(2.0)
        again = model(past, cmd, 0.1, n_samples=2, noise=noise)
    assert torch.equal(again[0], pos[0].detach())


def test_stacked_sde_equals_its_members_built_alone():
    """A member's weights depend on its seed only: the stacked drift and diffusion agree with
    one-member models built from the same seeds."""
    pair = switching.RegimeSwitchingSDE(4, 3, hidden=8, seeds=[5, 9]).double()
    g = torch.Generator().manual_seed(8)
    z = torch.randn(2, 7, 4, generator=g, dtype=torch.float64)
    v = torch.randn(2, 7, 6, generator=g, dtype=torch.float64)
    with torch.no_grad():
        f, s = pair.drift(z, v), pair.diffusion(z)
        for m, seed in enumerate((5, 9)):
            one = switching.RegimeSwitchingSDE(4, 3, hidden=8, seeds=[seed]).double()
            assert torch.allclose(one.drift(z[m], v[m]), f[m], atol=1e-13)
            assert torch.allclose(one.diffusion(z[m]), s[m], atol=1e-13)
            want = _drift_reference(pair, z[m], v[m, :, :3], v[m, :, 3:], m)
            assert torch.allclose(f[m], want, atol=1e-12)


def test_ablated_member_ignores_the_event_channel():
    pair = switching.RegimeSwitchingSDE(4, 3, hidden=8, event=[True, False], seeds=[1, 1])
    pair = pair.double()
    z = torch.randn(2, 5, 4, dtype=torch.float64)
    level = torch.randn(2, 5, 3, dtype=torch.float64)
    with torch.no_grad():
        a = pair.drift(z, torch.cat([level, torch.zeros_like(level)], -1))
        b = pair.drift(z, torch.cat([level, 10 * torch.ones_like(level)], -1))
    assert torch.allclose(a[1], b[1]) and not torch.allclose(a[0], b[0])
    assert pair.event_parameters == 3 * 4 * 3


def test_rollout_context_gives_the_same_path():
    m = switching.RegimeSwitchingSDE(4, 3, hidden=8, seeds=[2, 3]).double()
    g = torch.Generator().manual_seed(9)
    z0 = torch.randn(2, 6, 4, generator=g, dtype=torch.float64)
    v = switching.command_channels(_commands(10).expand(2, 6, 10, 3).permute(2, 0, 1, 3), 0.1)
    dW = 0.3 * torch.randn(10, 2, 6, 4, generator=g, dtype=torch.float64)
    with torch.no_grad():
        plain = sde.euler_maruyama(m.drift, m.diffusion, z0, 0.1, u=v, dW=dW)
        with m.rollout():
            fast = sde.euler_maruyama(m.drift, m.diffusion, z0, 0.1, u=v, dW=dW)
    assert torch.equal(plain, fast)
    assert m._fixed is None  # the constants are released after the rollout


def test_forecaster_validation():
    model = motion.MotionForecaster(motion.ODEDriver(4, 3, 8), 3, 10)
    with pytest.raises(ValueError, match="past"):
        model(torch.randn(1, 2, 5, 4), torch.zeros(1, 2, 10, 3), 0.1)
    with pytest.raises(ValueError, match="commands"):
        model(torch.randn(1, 2, 5, 5), torch.zeros(1, 2, 9, 3), 0.1)
    with pytest.raises(ValueError, match="n_samples"):
        model(torch.randn(1, 2, 5, 5), torch.zeros(1, 2, 10, 3), 0.1, n_samples=0)
    with pytest.raises(ValueError, match="past must contain only finite"):
        model(torch.full((1, 2, 5, 5), float("nan")), torch.zeros(1, 2, 10, 3), 0.1)
    with pytest.raises(ValueError, match="noise must have shape"):
        motion.MotionForecaster(motion.RecurrentDriver(4, 3, 5), 3, 10)(
            torch.randn(1, 2, 5, 5), torch.zeros(1, 2, 10, 3), 0.1, noise=torch.zeros(10, 1, 3, 4)
        )
    with pytest.raises(ValueError, match="horizon"):
        motion.MotionForecaster(motion.ODEDriver(4, 3, 8), 3, 0)
    with pytest.raises(ValueError, match="seeds must hold one seed per member"):
        motion.MotionForecaster(motion.ODEDriver(4, 3, 8, seeds=[1, 2]), 3, 5, seeds=[1])
    with pytest.raises(ValueError, match="driver must have"):
        motion.MotionForecaster(torch.nn.Linear(2, 2), 3, 5)


# ------------------------------------------------------------------------- the metrics
def test_best_of_k_and_metrics_brute_force():
    g = torch.Generator().manual_seed(7)
    x, y = torch.randn(4, 3, 6, 2, generator=g), torch.randn(3, 6, 2, generator=g)
    loss = motion.best_of_k_loss(x, y)
    brute = sum(min(((x[k, b] - y[b]) ** 2).sum().item() for k in range(4)) for b in range(3)) / 3
    assert math.isclose(loss.item(), brute, rel_tol=1e-6)
    m = {k: v.item() for k, v in motion.trajectory_metrics(x, y).items()}
    d = (x - y).norm(dim=-1)
    assert math.isclose(m["minADE"], d.mean(-1).min(0).values.mean().item(), rel_tol=1e-6)
    assert math.isclose(m["FDE"], d[..., -1].mean().item(), rel_tol=1e-6)
    assert m["minADE"] <= m["ADE"] and m["minFDE"] <= m["FDE"]
    ends = x[:, 1, -1]
    pairs = [(ends[i] - ends[j]).norm().item() for i in range(4) for j in range(4) if i != j]
    one = motion.trajectory_metrics(x[:, 1:2], y[1:2])["diversity"].item()
    assert math.isclose(one, sum(pairs) / 12, rel_tol=1e-6)
    single = motion.trajectory_metrics(x[:1], y)
    assert single["minADE"] == pytest.approx(single["ADE"]) and single["diversity"] == 0.0
    # a leading member axis: one value per member, as if each were evaluated alone
    both = motion.trajectory_metrics(torch.stack([x, x.flip(0) + 1]), y)
    assert both["minADE"].shape == (2,)
    assert both["minADE"][0].item() == pytest.approx(m["minADE"])
    assert motion.best_of_k_loss(torch.stack([x, x]), y).shape == (2,)
    with pytest.raises(ValueError, match="samples"):
        motion.trajectory_metrics(x, y[:2])
    with pytest.raises(ValueError, match="samples"):
        motion.best_of_k_loss(x[0], y)
    with pytest.raises(ValueError, match="samples must contain only finite"):
        motion.best_of_k_loss(torch.full_like(x, float("nan")), y)


def test_response_lag_interpolates():
    curve = torch.tensor([0.0, 0.0, 0.0, 0.2, 0.6, 1.0, 1.0])
    # switch at 2: 0 at the change, then 0, .2, .6, 1 -> half of the peak crossed between
    # the 2nd and 3rd frame after the change
    assert motion.response_lag(curve, 2).item() == pytest.approx(2 + 0.3 / 0.4)
    # a full response within the switch frame: half of it is reached half-way
    assert motion.response_lag(torch.tensor([0.0, 1.0, 1.0]), 1).item() == pytest.approx(0.5)
    assert motion.response_lag(torch.tensor([0.0, 0.8, 1.0]), 1).item() == pytest.approx(0.625)
    assert math.isnan(motion.response_lag(torch.zeros(5), 1).item())
    batch = torch.stack([curve, torch.roll(curve, 1)])
    lag = motion.response_lag(batch, 2)
    assert lag[1].item() == pytest.approx(lag[0].item() + 1)
    with pytest.raises(ValueError, match="switch"):
        motion.response_lag(curve, 7)
    with pytest.raises(ValueError, match="response must be non-negative"):
        motion.response_lag(-curve - 1, 2)
    with pytest.raises(ValueError, match="response must contain only finite"):
        motion.response_lag(curve * float("nan"), 2)


@settings(max_examples=30, deadline=None)
@given(shift=st.integers(0, 5), tau=st.floats(0.5, 4.0))
def test_response_lag_shifts_with_the_switch(shift, tau):
    """Delaying an exponential response by `shift` frames leaves its lag unchanged."""
    t = torch.arange(120, dtype=torch.float64)
    base = torch.where(t >= 3, 1 - torch.exp(-(t - 3 + 1) / tau), torch.zeros_like(t))
    moved = torch.where(t >= 3 + shift, 1 - torch.exp(-(t - 3 - shift + 1) / tau), 0 * t)
    a = motion.response_lag(base, 3).item()
    b = motion.response_lag(moved, 3 + shift).item()
    assert b == pytest.approx(a, abs=1e-6)


def test_simulator_follows_given_commands():
    ids = torch.zeros(3, 30, dtype=torch.long)
    ids[:, 10:] = 2
    g = torch.Generator().manual_seed(8)
    agent = animal.simulate_animal(
        3,
        30,
        0.1,
        generator=g,
        commands=ids,
        initial=torch.tensor([[1.0, 0.0]] * 3),
        p_distract=0.0,
        noise=0.0,
    )
    assert torch.equal(agent.commands.argmax(-1), ids)
    speed = agent.speed_turn[..., 0]
    assert torch.allclose(speed[:, 9], torch.ones(3, dtype=torch.float64))
    assert speed[:, -1].max() < 0.01
    with pytest.raises(ValueError, match="commands"):
        animal.simulate_animal(3, 30, 0.1, commands=ids[:, :5])


def test_motion_windows_validates():
    data = _data()
    ids = torch.arange(3)
    with pytest.raises(ValueError, match="agents must hold integer"):
        motion.motion_windows(data, ids.double(), ids, 4, 4, 0.1)
    with pytest.raises(ValueError, match="agents must lie"):
        motion.motion_windows(data, ids + 5, ids, 4, 4, 0.1)
    with pytest.raises(ValueError, match="agents must not be empty"):
        motion.motion_windows(data, ids[:0], ids[:0], 4, 4, 0.1)
    with pytest.raises(ValueError, match="data must be"):
        motion.motion_windows(None, ids, ids, 4, 4, 0.1)


# ------------------------------------------------------------------------- validation
def test_validation():
    with pytest.raises(ValueError, match="dim"):
        switching.RegimeSwitchingSDE(0, 3)
    with pytest.raises(ValueError, match="command_dim"):
        switching.RegimeSwitchingSDE(3, 0)
    with pytest.raises(ValueError, match="n_regimes"):
        switching.RegimeSwitchingSDE(3, 2, n_regimes=0)
    with pytest.raises(ValueError, match="contraction"):
        switching.RegimeSwitchingSDE(3, 2, contraction=-1.0)
    with pytest.raises(ValueError, match="sigma_range"):
        switching.RegimeSwitchingSDE(3, 2, sigma_range=(0.5, 0.1))
    m = _sde()
    with pytest.raises(ValueError, match="v must have shape"):
        m.drift(torch.zeros(2, 4, dtype=torch.float64), torch.zeros(2, 3, dtype=torch.float64))
    with pytest.raises(ValueError, match="dt"):
        switching.command_channels(torch.zeros(3, 2), 0.0)
    with pytest.raises(ValueError, match="clip"):
        switching.command_channels(torch.zeros(3, 2), 0.1, clip=0.0)
    with pytest.raises(ValueError, match="u must"):
        switching.command_channels(torch.zeros(3), 0.1)
    with pytest.raises(ValueError, match="alpha"):
        switching.dissipativity_residual(m, torch.zeros(2, 4), None, alpha=-1.0)
    with pytest.raises(ValueError, match="beta"):
        switching.dissipativity_residual(m, torch.zeros(2, 4), None, beta=-1.0)
    with pytest.raises(ValueError, match="z must"):
        switching.dissipativity_residual(m, torch.zeros(4), None)
    with pytest.raises(ValueError, match="tau"):
        switching.dissipativity_penalty(torch.zeros(2, 2), tau=0.0)
    with pytest.raises(ValueError, match="residual"):
        switching.dissipativity_penalty(torch.zeros(2))
    with pytest.raises(ValueError, match="n_steps"):
        switching.penalty_ramp(1, 0)
    with pytest.raises(ValueError, match="level"):
        motion.response_lag(torch.ones(4), 0, level=0.0)
    with pytest.raises(ValueError, match="dim"):
        motion.RecurrentDriver(0, 3, 4)
    with pytest.raises(ValueError, match="hidden"):
        motion.ODEDriver(2, 3, hidden=0)
    with pytest.raises(ValueError, match="dt"):
        motion.RecurrentDriver(2, 3, 4)(torch.zeros(1, 1, 2), torch.zeros(3, 1, 1, 3), 0.0)
    with pytest.raises(ValueError, match="noisy must be a bool or a sequence of 2"):
        motion.RecurrentDriver(2, 3, 4, seeds=[1, 2], noisy=[True])
    with pytest.raises(ValueError, match="event must be a bool or a sequence of 2"):
        switching.RegimeSwitchingSDE(2, 3, seeds=[1, 2], event="yes")
    with pytest.raises(ValueError, match=r"seeds\[1\] must be >= 0"):
        switching.RegimeSwitchingSDE(2, 3, seeds=[1, -2])
    with pytest.raises(ValueError, match="z must have shape"):
        m.drift(torch.zeros(2, 5, dtype=torch.float64))
    with pytest.raises(ValueError, match="u must contain only finite"):
        switching.command_channels(torch.full((3, 2), float("inf")), 0.1)
    with pytest.raises(ValueError, match="z must contain only finite"):
        switching.dissipativity_residual(m, torch.full((2, 4), float("nan")), None)
    with pytest.raises(ValueError, match="sde must have"):
        motion.SDEDriver(torch.nn.Linear(2, 2))
