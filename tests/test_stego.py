"""Tests of icml26.generative.stego (chapter 10): the kernel-density denoiser, the embedding
step on the shared DDIM sampler, the embedders, channel and decoders, the closed-form error
rates, iterative recovery, the latent codec, the steganalyser, and argument validation."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as hs
from scipy import integrate, stats

from icml26.generative import diffusion as dm
from icml26.generative import stego as st
from icml26.pipeline.notebooks import notebook_functions

DIGITS = st.digits_pm1()
TRAIN = DIGITS[:120]
ABAR = dm.alphas_cumprod(dm.linear_betas(1000))
MODEL = st.kde_eps_model(TRAIN, ABAR, 0.1)
N_STEPS = 20


def _gen(seed: int) -> torch.Generator:
    return torch.Generator().manual_seed(seed)


def _randn(*shape: int, seed: int = 0) -> torch.Tensor:
    return torch.randn(*shape, generator=_gen(seed), dtype=torch.float64)


# --- the kernel-density model ----------------------------------------------------------------


def test_digits_are_bundled_and_scaled() -> None:
    assert DIGITS.shape == (1797, 64)
    assert float(DIGITS.min()) == -1.0 and float(DIGITS.max()) == 1.0


def test_kde_matches_notebook_reference() -> None:
    ref = notebook_functions("10-asir", "kde_posterior_mean_reference")[
        "kde_posterior_mean_reference"
    ]
    x = _randn(4, 64, seed=1)
    for t in (10, 300, 950):
        got = st.kde_posterior_mean(x, TRAIN, ABAR[t], 0.1)
        want = np.array([ref(xi.numpy(), TRAIN.numpy(), ABAR[t], 0.1) for xi in x])
        assert np.allclose(got.numpy(), want, atol=1e-10)


def test_kde_limits() -> None:
    x = _randn(3, 64, seed=2)
    # ᾱ = 0: x_t carries no information, the posterior mean is the data mean
    assert torch.allclose(st.kde_posterior_mean(x, TRAIN, 0.0, 0.1), TRAIN.mean(0).expand(3, -1))
    # ᾱ = 1 with a tiny kernel at a training point: the point itself
    got = st.kde_posterior_mean(TRAIN[:2], TRAIN, 1.0, 1e-3)
    assert torch.allclose(got, TRAIN[:2], atol=1e-6)


def test_kde_posterior_mean_by_quadrature_in_one_dimension() -> None:
    data = torch.tensor([[-1.0], [0.5], [2.0]], dtype=torch.float64)
    a, h, x = 0.6, 0.3, 0.4
    v = a * h**2 + 1 - a

    def joint(x0: float) -> float:
        prior = sum(stats.norm.pdf(x0, float(c), h) for c in data[:, 0])
        return prior * stats.norm.pdf(x, math.sqrt(a) * x0, math.sqrt(1 - a))

    num = integrate.quad(lambda u: u * joint(u), -10, 10, limit=200)[0]
    den = integrate.quad(joint, -10, 10, limit=200)[0]
    got = st.kde_posterior_mean(torch.tensor([[x]], dtype=torch.float64), data, a, h)
    assert abs(float(got) - num / den) < 1e-8
    assert v > 0


def test_eps_model_inverts_forward_process_at_training_points() -> None:
    # with a tiny kernel and one training point, x0 is known, so ε̂ is the true noise
    data = TRAIN[:1]
    model = st.kde_eps_model(data, ABAR, 1e-4)
    eps = _randn(1, 64, seed=3)
    t = 50
    xt = dm.add_noise(data, eps, ABAR[t])
    assert torch.allclose(model(xt, t), eps, atol=1e-6)


# --- embedding on the shared sampler ---------------------------------------------------------


def test_embed_batch_matches_notebook_reference() -> None:
    ref = notebook_functions("10-asir", "stego_images_reference")["stego_images_reference"]
    b, ts = 3, 3
    x_t = _randn(b, 64, seed=4)
    key = _randn(N_STEPS - ts, b, 64, seed=5)
    z = _randn(b, 64, seed=6)
    bits = torch.rand(b, 64, generator=_gen(7)) < 0.5
    want = ref(MODEL, x_t, key, z, bits, ABAR, N_STEPS, ts)
    got = st.embed_batch(MODEL, x_t, ABAR, N_STEPS, ts, key, z, bits)
    for g, w in zip(got[:3], want, strict=True):
        assert torch.allclose(g, w, atol=1e-10)


def test_embed_batch_replays_the_ddim_trajectory_for_all_zero_bits() -> None:
    # all bits 0 inject +z: the stego image is the ordinary η = 1 … η = 0 trajectory
    b, ts = 2, 4
    x_t = _randn(b, 64, seed=8)
    key = _randn(N_STEPS - ts, b, 64, seed=9)
    z = _randn(b, 64, seed=10)
    stego, h0, h1, m, sigma = st.embed_batch(
        MODEL, x_t, ABAR, N_STEPS, ts, key, z, torch.zeros(b, 64, dtype=torch.bool)
    )
    assert torch.equal(stego, h0)
    noise = torch.cat([key, z[None]])
    # the prefix and the embedding step, replayed with the shared DDIM step
    times = dm.ddim_timesteps(1000, N_STEPS)
    x = x_t
    for i, t in enumerate(times[: N_STEPS - ts + 1]):
        a_p = dm.previous_alpha(ABAR, int(t), N_STEPS)
        x, _ = dm.ddim_step(x, MODEL(x, int(t)), ABAR[int(t)], a_p, eta=1.0, noise=noise[i])
    assert torch.allclose(x, m + sigma * z, atol=1e-12)
    assert not torch.allclose(h0, h1)


def test_embedding_point_branches_off_the_keyed_ddim_trajectory() -> None:
    x_t = _randn(2, 64, seed=14)
    key = _randn(N_STEPS, 2, 64, seed=15)
    _, traj = dm.ddim_sample(MODEL, x_t, ABAR, N_STEPS, eta=1.0, noise=key, return_trajectory=True)
    for ts in (2, 5):
        m, s = st.embedding_point(MODEL, x_t, ABAR, N_STEPS, ts, key[: N_STEPS - ts])
        m2, s2 = st.embedding_mean(MODEL, traj[N_STEPS - ts], ABAR, N_STEPS, ts)
        assert torch.allclose(m, m2, atol=1e-12) and s == s2
        # the step with noise z lands at m* + σ z, as ddim_sample's next state
        assert torch.allclose(m + s * key[N_STEPS - ts], traj[N_STEPS - ts + 1], atol=1e-12)


def test_sigma_is_zero_at_the_last_step() -> None:
    m, sigma = st.embedding_point(MODEL, _randn(2, 64), ABAR, N_STEPS, 1, _randn(19, 2, 64))
    assert sigma == 0.0 and m.shape == (2, 64)


def test_finish_is_identity_after_the_last_step_and_differentiable() -> None:
    x = _randn(2, 64, seed=11)
    assert torch.equal(st.finish(MODEL, x, ABAR, N_STEPS, 1), x)
    xg = x.clone().requires_grad_(True)
    st.finish(MODEL, xg, ABAR, N_STEPS, 3).sum().backward()
    assert xg.grad is not None and torch.isfinite(xg.grad).all()


# --- embedders, channel, decoding --------------------------------------------------------------


@settings(max_examples=30, deadline=None)
@given(seed=hs.integers(0, 10_000))
def test_antipodal_and_independent_embedders(seed: int) -> None:
    z, z1 = _randn(2, 5, 7, seed=seed)
    bits = torch.rand(5, 7, generator=_gen(seed + 1)) < 0.5
    anti = st.antipodal_noise(bits, z)
    assert torch.equal(anti.abs(), z.abs())
    assert torch.equal(anti, (1 - 2 * bits.double()) * z)
    ind = st.independent_noise(bits, z, z1)
    assert torch.equal(ind[bits], z1[bits]) and torch.equal(ind[~bits], z[~bits])
    # nearest hypothesis without noise recovers every bit
    assert torch.equal(st.nearest_hypothesis(anti, z, -z), bits | (z == 0))


def test_antipodal_noise_is_standard_gaussian() -> None:
    z = _randn(50_000, seed=12)
    bits = torch.rand(50_000, generator=_gen(13)) < 0.3  # any message distribution
    assert stats.kstest(st.antipodal_noise(bits, z).numpy(), "norm").pvalue > 1e-3


def test_quantise_and_channel() -> None:
    y = torch.linspace(-1.2, 1.2, 101, dtype=torch.float64)
    q = st.quantise(y)
    levels = (q + 1) * 127.5
    assert torch.allclose(levels, levels.round(), atol=1e-9)
    assert float(q.min()) == -1.0 and float(q.max()) == 1.0
    assert float((q - y.clamp(-1, 1)).abs().max()) <= 1 / 255 + 1e-12
    assert torch.equal(st.channel(y, 0.0), q)
    assert torch.equal(st.channel(y, 0.0, rounding=False), y)
    noisy = st.channel(torch.zeros(20_000, dtype=torch.float64), 0.1, generator=_gen(0))
    assert abs(float(noisy.std()) - 0.1) < 0.003


def test_closed_form_error_rates_by_quadrature_and_monte_carlo() -> None:
    for r in (0.25, 1.0, 3.0):
        a = 1 / r  # antipodal: error Q(|Z| σ/τ)
        val = integrate.quad(lambda u, a=a: stats.norm.sf(a * abs(u)) * stats.norm.pdf(u), -30, 30)
        assert abs(val[0] - float(st.ber_antipodal(r))) < 1e-9
        b = 1 / (math.sqrt(2) * r)
        val = integrate.quad(lambda u, b=b: stats.norm.sf(b * abs(u)) * stats.norm.pdf(u), -30, 30)
        assert abs(val[0] - float(st.ber_independent(r))) < 1e-9
    assert np.all(st.ber_antipodal([0.1, 1, 10]) < st.ber_independent([0.1, 1, 10]))
    assert float(st.ber_antipodal(0.0)) == 0.0


# --- iterative recovery ----------------------------------------------------------------------


def test_iterative_recovery_solves_a_mixing_linear_channel() -> None:
    # G(x) = A x mixes cells: per-cell decoding errs, joint recovery does not (zero forcing)
    d, b = 8, 50
    g = _gen(20)
    A = torch.eye(d, dtype=torch.float64) + 0.4 * torch.randn(
        d, d, generator=g, dtype=torch.float64
    )
    forward = lambda x: x @ A.T  # noqa: E731
    m = torch.zeros(b, d, dtype=torch.float64)
    z = torch.randn(b, d, generator=g, dtype=torch.float64)
    bits = torch.rand(b, d, generator=g) < 0.5
    y = forward(m + st.antipodal_noise(bits, z))
    base = st.nearest_hypothesis(y, forward(m + z), forward(m - z))
    ir, losses = st.iterative_recovery(forward, y, m, 1.0, z, base, steps=1000, lr=0.1)
    assert float((base == bits).double().mean()) < 0.95
    assert float((ir == bits).double().mean()) > 0.99
    assert losses.shape == (1000, b) and bool((losses[-1] < losses[0]).all())


# --- latent codec and steganalyser --------------------------------------------------------------


def test_latent_codec_round_trip_and_scale() -> None:
    codec = st.fit_latent_codec(TRAIN, 8, steps=150, generator=_gen(0))
    u = codec.encode(TRAIN)
    assert u.shape == (120, 8) and abs(float(u.std()) - 1.0) < 1e-9
    err = float(((codec.decode(u) - TRAIN) ** 2).mean())
    assert err < float(((TRAIN - TRAIN.mean(0)) ** 2).mean())


def test_median_residual_kills_flat_images_and_sees_spikes() -> None:
    flat = torch.full((1, 64), 0.3, dtype=torch.float64)
    assert torch.allclose(st.median_residual(flat), torch.zeros(1, 64, dtype=torch.float64))
    spike = flat.clone()
    spike[0, 27] = 1.0
    r = st.median_residual(spike)
    assert abs(float(r[0, 27]) - 0.7) < 1e-12 and float(r.abs().sum()) == pytest.approx(0.7)


def test_steganalyser_detects_variance_and_not_relabelling() -> None:
    x = _randn(400, 64, seed=30) * 0.3
    y = _randn(400, 64, seed=31) * 0.3
    assert abs(st.steganalyser_auc(x[:200], x[200:], squared=True) - 0.5) < 0.1
    assert st.steganalyser_auc(x, 2 * y, squared=True) > 0.9


# --- validation: one test per check ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("call", "name"),
    [
        (lambda: st.kde_posterior_mean([[0.0]], TRAIN, 0.5, 0.1), "x"),
        (lambda: st.kde_posterior_mean(TRAIN[:2, :3], TRAIN, 0.5, 0.1), "data"),
        (lambda: st.kde_posterior_mean(TRAIN[:2], TRAIN, 1.5, 0.1), "abar_t"),
        (lambda: st.kde_posterior_mean(TRAIN[:2], TRAIN, 0.5, 0.0), "h"),
        (lambda: st.kde_posterior_mean(torch.zeros(0, 64), TRAIN, 0.5, 0.1), "x"),
        (lambda: st.kde_eps_model(TRAIN, ABAR[None], 0.1), "abar"),
        (lambda: st.kde_eps_model(TRAIN, ABAR, 0.1)(TRAIN[:1], 1000), "t"),
        (lambda: st.embedding_point(MODEL, TRAIN[:2], ABAR, 20, 0, _randn(20, 2, 64)), "t_star"),
        (lambda: st.embedding_point(MODEL, TRAIN[:2], ABAR, 20, 3, _randn(3, 2, 64)), "key_noise"),
        (
            lambda: st.embedding_point(MODEL, TRAIN[:2], ABAR, 2000, 3, _randn(3, 2, 64)),
            "num_steps",
        ),
        (lambda: st.finish(MODEL, [0.0], ABAR, 20, 3), "x"),
        (lambda: st.embedding_mean(MODEL, [0.0], ABAR, 20, 3), "x"),
        (lambda: st.embedding_mean(MODEL, TRAIN[:2], ABAR, 20, 21), "t_star"),
        (
            lambda: st.embed_batch(
                MODEL, TRAIN[:2], ABAR, 20, 3, _randn(17, 2, 64), _randn(2, 8), TRAIN[:2] > 0
            ),
            "z",
        ),
        (lambda: st.antipodal_noise(torch.full((3,), 2.0), _randn(3)), "bits"),
        (lambda: st.antipodal_noise(torch.ones(4, dtype=torch.bool), _randn(3)), "bits"),
        (
            lambda: st.antipodal_noise(
                torch.ones(3, dtype=torch.bool), torch.ones(3, dtype=torch.long)
            ),
            "z",
        ),
        (
            lambda: st.independent_noise(torch.zeros(3, dtype=torch.bool), _randn(3), _randn(4)),
            "z1",
        ),
        (lambda: st.quantise([0.0]), "y"),
        (lambda: st.channel(_randn(3), -0.1), "tau"),
        (lambda: st.nearest_hypothesis(_randn(3), _randn(4), _randn(3)), "hyp0"),
        (lambda: st.nearest_hypothesis(_randn(3), _randn(3), _randn(2)), "hyp1"),
        (lambda: st.ber_antipodal(-1.0), "tau_over_sigma"),
        (lambda: st.ber_independent(float("nan")), "tau_over_sigma"),
        (
            lambda: st.iterative_recovery(
                lambda x: x, _randn(2, 3), _randn(2, 3), 0.0, _randn(2, 3), _randn(2, 3) > 0
            ),
            "sigma",
        ),
        (
            lambda: st.iterative_recovery(
                lambda x: x, _randn(2, 3), _randn(2, 3), 1.0, _randn(2, 4), _randn(2, 3) > 0
            ),
            "z",
        ),
        (
            lambda: st.iterative_recovery(
                lambda x: x,
                _randn(2, 3),
                _randn(2, 3),
                1.0,
                _randn(2, 3),
                _randn(2, 3) > 0,
                steps=0,
            ),
            "steps",
        ),
        (
            lambda: st.iterative_recovery(
                lambda x: x, _randn(2, 3), _randn(2, 3), 1.0, _randn(2, 3), _randn(2, 3) > 0, lr=0.0
            ),
            "lr",
        ),
        (
            lambda: st.iterative_recovery(
                lambda x: x,
                _randn(2, 3),
                _randn(2, 3),
                1.0,
                _randn(2, 3),
                _randn(2, 3) > 0,
                init_scale=-1.0,
            ),
            "init_scale",
        ),
        (
            lambda: st.iterative_recovery(
                lambda x: x[:, :2], _randn(2, 3), _randn(2, 3), 1.0, _randn(2, 3), _randn(2, 3) > 0
            ),
            "forward",
        ),
        (lambda: st.fit_latent_codec(TRAIN, 0), "k"),
        (lambda: st.fit_latent_codec(TRAIN, 4, hidden=0), "hidden"),
        (lambda: st.fit_latent_codec(TRAIN, 4, steps=0), "steps"),
        (lambda: st.fit_latent_codec(TRAIN, 4, lr=-1.0), "lr"),
        (lambda: st.median_residual(_randn(2, 63)), "images"),
        (lambda: st.median_residual(_randn(2, 64), side=0), "side"),
        (lambda: st.steganalyser_auc(_randn(20, 64), _randn(20, 63)), "stego"),
        (lambda: st.steganalyser_auc(_randn(20, 64), _randn(20, 64), folds=1), "folds"),
        (lambda: st.steganalyser_auc(_randn(20, 64), _randn(20, 64), C=0.0), "C"),
        (lambda: st.steganalyser_auc(_randn(20, 64), _randn(20, 64), seed=-1), "seed"),
    ],
)
def test_validation(call, name: str) -> None:
    with pytest.raises(ValueError, match=name):
        call()


# --- reading the noise back from an image, and the decoding margin ----------------------------


def test_invert_finish_reads_the_injected_noise_back_from_the_image() -> None:
    t_star = 3
    key = _randn(N_STEPS - t_star, 6, 64, seed=30)
    m, sigma = st.embedding_point(MODEL, _randn(6, 64, seed=31), ABAR, N_STEPS, t_star, key)
    zeta = _randn(6, 64, seed=32)
    y = st.finish(MODEL, m + sigma * zeta, ABAR, N_STEPS, t_star)
    x = st.invert_finish(MODEL, y, ABAR, N_STEPS, t_star, iters=100)
    assert torch.allclose((x - m) / sigma, zeta, atol=1e-8)
    assert torch.allclose(st.finish(MODEL, x, ABAR, N_STEPS, t_star), y, atol=1e-12)
    # a wrong scale at the embedding step is read back as a wrong scale
    y15 = st.finish(MODEL, m + 1.5 * sigma * zeta, ABAR, N_STEPS, t_star)
    x15 = st.invert_finish(MODEL, y15, ABAR, N_STEPS, t_star, iters=100)
    assert torch.allclose((x15 - m) / sigma, 1.5 * zeta, atol=1e-8)
    # after the last step there is nothing to invert
    assert torch.equal(st.invert_finish(MODEL, y, ABAR, N_STEPS, 1), y)
    # far from the identity (coarse steps, many of them) the iteration says it failed
    with pytest.raises(RuntimeError, match="converge"):
        st.invert_finish(MODEL, y, ABAR, N_STEPS, 8, iters=2)


def test_invert_finish_rows_marks_the_rows_that_did_not_converge() -> None:
    t_star = 3
    key = _randn(N_STEPS - t_star, 6, 64, seed=30)
    m, sigma = st.embedding_point(MODEL, _randn(6, 64, seed=31), ABAR, N_STEPS, t_star, key)
    y = st.finish(MODEL, m + sigma * _randn(6, 64, seed=32), ABAR, N_STEPS, t_star)
    x, ok = st.invert_finish_rows(MODEL, y, ABAR, N_STEPS, t_star, iters=100)
    assert ok.shape == (6,) and bool(ok.all())
    assert torch.equal(x, st.invert_finish(MODEL, y, ABAR, N_STEPS, t_star, iters=100))
    # the failing case of invert_finish: reported row by row instead of raised
    x8, ok8 = st.invert_finish_rows(MODEL, y, ABAR, N_STEPS, 8, iters=2)
    assert x8.shape == y.shape and not bool(ok8.all())
    with pytest.raises(ValueError, match="iters"):
        st.invert_finish_rows(MODEL, y, ABAR, N_STEPS, 3, iters=0)


def test_decoding_margin_is_the_squared_hypothesis_distance() -> None:
    z0, z1 = _randn(2, 5, 8, seed=40)
    bits = _randn(5, 8, seed=41) > 0
    anti = st.antipodal_noise(bits, z0)
    assert torch.allclose(st.decoding_margin(anti, z0, -z0, bits), 4 * z0**2)
    ind = st.independent_noise(bits, z0, z1)
    assert torch.allclose(st.decoding_margin(ind, z0, z1, bits), (z0 - z1) ** 2)
    # a flipped sign convention at the sender makes every margin negative
    assert torch.allclose(st.decoding_margin(-anti, z0, -z0, bits), -4 * z0**2)
    # positive margin <=> nearest-hypothesis decodes the bit
    r = anti + 0.7 * _randn(5, 8, seed=42)
    ok = st.nearest_hypothesis(r, z0, -z0) == bits
    margin = st.decoding_margin(r, z0, -z0, bits)
    assert torch.equal(ok, margin > 0)


@pytest.mark.parametrize(
    ("call", "name"),
    [
        (lambda: st.invert_finish(MODEL, [0.0], ABAR, 20, 3), "y"),
        (lambda: st.invert_finish(MODEL, TRAIN[:2], ABAR, 20, 0), "t_star"),
        (lambda: st.invert_finish(MODEL, TRAIN[:2], ABAR, 20, 3, iters=0), "iters"),
        (lambda: st.invert_finish(MODEL, TRAIN[:2], ABAR, 20, 3, tol=0.0), "tol"),
        (lambda: st.decoding_margin(_randn(3), _randn(4), _randn(3), _randn(3) > 0), "hyp0"),
        (lambda: st.decoding_margin(_randn(3), _randn(3), _randn(2), _randn(3) > 0), "hyp1"),
        (lambda: st.decoding_margin(_randn(3), _randn(3), _randn(3), _randn(2) > 0), "bits"),
    ],
)
def test_new_validation(call, name: str) -> None:
    with pytest.raises(ValueError, match=name):
        call()
