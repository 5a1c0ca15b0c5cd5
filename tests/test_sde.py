"""Tests of icml26.dynamics.sde (chapter 05): Euler–Maruyama, certificate, metrics, torchsde."""

from __future__ import annotations

import math

import pytest
import torch
import torchsde
from hypothesis import given, settings
from hypothesis import strategies as st

from icml26.dynamics import animal, sde
from icml26.pipeline.notebooks import notebook_functions


def _model(d: int = 4, c: int = 3) -> sde.CertifiedSDE:
    torch.manual_seed(0)
    return sde.CertifiedSDE(d, c, 8, sigma=0.4).double()


# The chapter's readable reference (a per-path loop), loaded from the notebook itself.
_reference_em = notebook_functions("05-cogsde", "em_reference")["em_reference"]


def test_em_matches_per_path_loop():
    m = _model()
    g = torch.Generator().manual_seed(1)
    n, N, h = 30, 5, 0.05
    u = torch.nn.functional.one_hot(torch.randint(0, 3, (n,), generator=g), 3).double()
    z0 = torch.randn(N, 4, generator=g, dtype=torch.float64)
    dW = math.sqrt(h) * torch.randn(n, N, 4, generator=g, dtype=torch.float64)
    with torch.no_grad():
        fast = sde.euler_maruyama(m.drift, m.diffusion, z0, h, u=u, dW=dW)
        slow = _reference_em(m.drift, m.diffusion, z0, h, u, dW)
    assert torch.allclose(fast, slow, atol=1e-12)


def test_em_matches_torchsde_euler():
    m = _model()
    g = torch.Generator().manual_seed(2)
    n, N, h = 64, 32, 2.0**-6
    u = torch.nn.functional.one_hot(torch.randint(0, 3, (n,), generator=g), 3).double()
    z0 = torch.randn(N, 4, generator=g, dtype=torch.float64)
    dW = math.sqrt(h) * torch.randn(n, N, 4, generator=g, dtype=torch.float64)

    ts = torch.arange(n + 1, dtype=torch.float64) * h
    with torch.no_grad():
        ours = sde.euler_maruyama(m.drift, m.diffusion, z0, h, u=u, dW=dW)
        wrapped, bm = sde.TorchsdeAdapter(m, u, h), sde.FixedIncrements(dW, h)
        ref = torchsde.sdeint(wrapped, z0, ts, bm=bm, method="euler", dt=h)
    assert (ours - ref).abs().max().item() < 1e-6


def test_general_noise_matches_diagonal():
    m = _model()
    g = torch.Generator().manual_seed(3)
    z0 = torch.randn(6, 4, generator=g, dtype=torch.float64)
    dW = 0.1 * torch.randn(10, 6, 4, generator=g, dtype=torch.float64)
    with torch.no_grad():
        a = sde.euler_maruyama(m.drift, m.diffusion, z0, 0.01, dW=dW)
        b = sde.euler_maruyama(
            m.drift, lambda z: torch.diag_embed(m.diffusion(z)), z0, 0.01, dW=dW, noise="general"
        )
    assert torch.allclose(a, b, atol=1e-14)


def test_ou_moments_match_closed_form():
    theta, sigma, x0, h, n, N = 1.5, 0.8, 2.0, 0.01, 200, 20000
    g = torch.Generator().manual_seed(4)
    z0 = torch.full((N, 1), x0, dtype=torch.float64)
    path = sde.euler_maruyama(
        lambda z, u: -theta * z,
        lambda z: torch.full_like(z, sigma),
        z0,
        h,
        n_steps=n,
        generator=g,
    )
    t = n * h
    mean = x0 * math.exp(-theta * t)
    var = sigma**2 / (2 * theta) * (1 - math.exp(-2 * theta * t))
    xt = path[-1, :, 0]
    assert abs(xt.mean().item() - mean) < 4 * math.sqrt(var / N) + 2 * h
    assert abs(xt.var().item() - var) < 4 * var * math.sqrt(2 / N) + 2 * h


def test_save_every_and_shapes():
    m = _model()
    z0 = torch.zeros(3, 4, dtype=torch.float64)
    u = torch.zeros(20, 3, 3, dtype=torch.float64)
    g = torch.Generator().manual_seed(5)
    p = sde.euler_maruyama(m.drift, m.diffusion, z0, 0.1, u=u, generator=g, save_every=5)
    assert p.shape == (5, 3, 4)
    ode = sde.euler_maruyama(m.drift, None, z0, 0.1, u=u)
    assert ode.shape == (21, 3, 4)


def test_certificate_inequality_holds_pointwise():
    torch.manual_seed(6)
    for _ in range(5):
        m = sde.CertifiedSDE(5, 3, 8, sigma=0.7, eps=0.2).double()
        with torch.no_grad():
            m.shift.weight.mul_(3)
            m.shift.bias.mul_(3)
        cert = m.certificate()
        assert cert.alpha >= 0.2 - 1e-12
        z = 10 * torch.randn(4000, 5, dtype=torch.float64)
        u = 5 * torch.randn(4000, 3, dtype=torch.float64)
        with torch.no_grad():
            lhs = 2 * (z * m.drift(z, u)).sum(1) + m.diffusion(z).pow(2).sum(1)
            f2 = m.drift(z, u).pow(2).sum(1)
        rhs = -cert.alpha * z.pow(2).sum(1) + cert.beta * (1 + u.pow(2).sum(1))
        assert (lhs <= rhs + 1e-9).all()
        growth = 2 * cert.lipschitz**2 * z.pow(2).sum(1) + cert.growth * (1 + u.pow(2).sum(1))
        assert (f2 <= growth + 1e-9).all()


def test_mean_square_bound_holds_monte_carlo():
    m = _model(4, 3)
    cert = m.certificate()
    g = torch.Generator().manual_seed(7)
    n, N, h = 400, 2000, 0.01
    u = torch.nn.functional.one_hot(torch.randint(0, 3, (n,), generator=g), 3).double()
    z0 = 3 * torch.randn(N, 4, generator=g, dtype=torch.float64)
    with torch.no_grad():
        p = sde.euler_maruyama(m.drift, m.diffusion, z0, h, u=u, generator=g, save_every=20)
    ms = p.pow(2).sum(-1)
    t = torch.arange(p.shape[0], dtype=torch.float64) * 20 * h
    bound = sde.mean_square_bound(t, cert.alpha, cert.beta, ms[0].mean().item(), 1.0)
    se = ms.std(1) / math.sqrt(N)
    assert (ms.mean(1) <= bound + 3 * se + 1e-9).all()
    assert h < cert.alpha / (2 * cert.lipschitz**2)
    em = sde.em_mean_square_bound(t / h, h, cert, ms[0].mean().item(), 1.0)
    assert (ms.mean(1) <= em + 3 * se + 1e-9).all()


def test_simulator_shapes():
    g = torch.Generator().manual_seed(8)
    data = animal.simulate_animal(16, 50, 0.1, generator=g)
    assert data.commands.shape == (16, 50, 3)
    assert data.positions.shape == (16, 51, 2)
    assert data.speed_turn.dtype == torch.float64


def test_em_with_leading_member_axis_matches_member_by_member():
    """A (M, N, d) batch is integrated as M separate (N, d) batches."""
    m = _model()
    g = torch.Generator().manual_seed(9)
    z0 = torch.randn(3, 5, 4, generator=g, dtype=torch.float64)
    u = torch.nn.functional.one_hot(torch.randint(0, 3, (12, 3, 5), generator=g), 3).double()
    dW = 0.1 * torch.randn(12, 3, 5, 4, generator=g, dtype=torch.float64)

    def drift(z, uk):
        return m.drift(z.reshape(-1, 4), uk.reshape(-1, 3)).view(z.shape)

    def diffusion(z):
        return m.diffusion(z.reshape(-1, 4)).view(z.shape)

    with torch.no_grad():
        joint = sde.euler_maruyama(drift, diffusion, z0, 0.05, u=u, dW=dW)
        for k in range(3):
            one = sde.euler_maruyama(m.drift, m.diffusion, z0[k], 0.05, u=u[:, k], dW=dW[:, k])
            assert torch.allclose(joint[:, k], one, atol=1e-14)


def test_argument_validation():
    m = _model()
    z0 = torch.zeros(3, 4, dtype=torch.float64)
    with pytest.raises(ValueError, match="dt"):
        sde.euler_maruyama(m.drift, m.diffusion, z0, 0.0, n_steps=3)
    with pytest.raises(ValueError, match="u"):
        sde.euler_maruyama(m.drift, m.diffusion, z0, 0.1, u=torch.zeros(5, 2, 3), n_steps=5)
    with pytest.raises(ValueError, match="u has 5 steps"):
        sde.euler_maruyama(m.drift, m.diffusion, z0, 0.1, u=torch.zeros(5, 3), n_steps=4)
    with pytest.raises(ValueError, match="dW"):
        sde.euler_maruyama(m.drift, m.diffusion, z0, 0.1, dW=torch.zeros(5, 3, 2))
    with pytest.raises(ValueError, match="n_steps"):
        sde.euler_maruyama(m.drift, m.diffusion, z0, 0.1)
    with pytest.raises(ValueError, match="eps"):
        sde.CertifiedSDE(3, 2, eps=0.0)
    with pytest.raises(ValueError, match="alpha"):
        sde.mean_square_bound(torch.zeros(1), 0.0, 1.0, 1.0, 0.0)
    with pytest.raises(ValueError, match="h must be"):
        sde.em_mean_square_bound(torch.zeros(1), 10.0, m.certificate(), 1.0, 0.0)


@settings(max_examples=40, deadline=None)
@given(
    dt=st.floats(allow_nan=True, allow_infinity=True),
    steps_u=st.integers(1, 6),
    steps=st.integers(1, 6),
)
def test_validation_property(dt, steps_u, steps):
    """Non-positive / non-finite steps and command grids of the wrong length are refused."""
    m = _model()
    z0 = torch.zeros(2, 4, dtype=torch.float64)
    u = torch.zeros(steps_u, 3, dtype=torch.float64)
    bad_dt = not (math.isfinite(dt) and dt > 0)
    if bad_dt or steps_u != steps:
        with pytest.raises(ValueError, match=r"dt|u has"):
            sde.euler_maruyama(m.drift, m.diffusion, z0, dt, u=u, n_steps=steps)
    else:
        with torch.no_grad():
            p = sde.euler_maruyama(m.drift, None, z0, dt, u=u, n_steps=steps)
        assert p.shape == (steps + 1, 2, 4)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"z0": torch.full((3, 4), float("nan"), dtype=torch.float64)}, "z0 must contain only"),
        ({"z0": torch.full((3, 4), float("inf"), dtype=torch.float64)}, "z0 must contain only"),
        ({"z0": torch.zeros(0, 4, dtype=torch.float64)}, "z0 must be a non-empty"),
        ({"z0": torch.zeros(4, dtype=torch.float64)}, "z0 must be a non-empty"),
        ({"z0": torch.zeros(3, 4, dtype=torch.long)}, "z0 must be a floating-point"),
        ({"z0": [[0.0] * 4] * 3}, "z0 must be a torch.Tensor"),
        ({"u": torch.full((5, 3), float("nan"), dtype=torch.float64)}, "u must contain only"),
        ({"u": torch.zeros(5, 3, dtype=torch.long)}, "u must be a floating-point"),
        ({"u": torch.zeros(0, 3, dtype=torch.float64)}, "u must not be empty"),
        ({"dW": torch.full((5, 3, 4), float("nan"), dtype=torch.float64)}, "dW must contain"),
        ({"dW": torch.zeros(5, 3, 4, dtype=torch.float32)}, "dW must have the dtype"),
        ({"dW": torch.zeros(5, 2, 4, dtype=torch.float64)}, "dW must have shape"),
        ({"generator": 3}, "generator must be a torch.Generator"),
        ({"noise": "full"}, "noise must be"),
        ({"save_every": 2}, "save_every=2 must divide"),
        ({"save_every": 0}, "save_every must be >= 1"),
    ],
)
def test_em_rejects_bad_inputs_before_stepping(kwargs, match):
    """Every input is checked before the first step: the drift is never called."""
    calls = []

    def drift(z, u):
        calls.append(1)
        return -z

    args = {"z0": torch.zeros(3, 4, dtype=torch.float64), "n_steps": 5}
    args |= kwargs
    if "u" in kwargs or "dW" in kwargs:
        args.pop("n_steps")
    z0 = args.pop("z0")
    with pytest.raises(ValueError, match=match):
        sde.euler_maruyama(drift, lambda z: torch.ones_like(z), z0, 0.1, **args)
    assert not calls


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: sde.mean_square_bound(torch.tensor([float("nan")]), 1.0, 1.0, 1.0, 0.0), "t must"),
        (lambda: sde.mean_square_bound(torch.tensor([-1.0]), 1.0, 1.0, 1.0, 0.0), "t must"),
        (lambda: sde.mean_square_bound(torch.zeros(0), 1.0, 1.0, 1.0, 0.0), "t must"),
        (lambda: sde.mean_square_bound(torch.zeros(2), 1.0, 1.0, float("nan"), 0.0), "m0"),
        (lambda: sde.em_mean_square_bound(torch.zeros(2), 0.01, (1, 1, 1, 1), 1.0, 0.0), "cert"),
        (lambda: animal.unicycle_positions(torch.full((2, 3, 2), float("nan")), 0.1), "speed_turn"),
        (lambda: animal.unicycle_positions(torch.zeros(2, 0, 2), 0.1), "speed_turn"),
        (
            lambda: animal.simulate_animal(2, 3, 0.1, commands=torch.zeros(2, 3)),
            "commands must hold integer",
        ),
        (
            lambda: animal.simulate_animal(2, 3, 0.1, commands=torch.full((2, 3), 3)),
            r"commands must lie in \[0, 3\)",
        ),
        (
            lambda: animal.simulate_animal(2, 3, 0.1, initial=torch.full((2, 2), float("inf"))),
            "initial must contain only",
        ),
        (lambda: animal.simulate_animal(2, 3, 0.1, generator=1), "generator"),
        (lambda: _model().drift(torch.zeros(3, 5, dtype=torch.float64)), "z must have shape"),
        (lambda: sde.TorchsdeAdapter(object(), torch.zeros(3, 2), 0.1), "model must have"),
        (
            lambda: sde.TorchsdeAdapter(_model(), torch.full((3, 3), float("nan")), 0.1),
            "grid must contain only",
        ),
        (lambda: sde.FixedIncrements(torch.full((3, 2), float("nan")), 0.1), "dW must contain"),
    ],
)
def test_public_functions_name_their_bad_argument(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_torchsde_bridge_validates():
    with pytest.raises(ValueError, match="dW must be"):
        sde.FixedIncrements(torch.zeros(3), 0.1)
    with pytest.raises(ValueError, match="h must be > 0"):
        sde.FixedIncrements(torch.zeros(3, 2), 0.0)
    with pytest.raises(ValueError, match="outside the grid"):
        sde.FixedIncrements(torch.zeros(3, 2), 0.1)(torch.tensor(0.5))
    with pytest.raises(ValueError, match="grid must have shape"):
        sde.TorchsdeAdapter(_model(), torch.zeros(3), 0.1)
