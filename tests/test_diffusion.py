"""The shared DDIM sampler (chapters 10 and 11) against diffusers, step for step."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from icml26.generative import diffusion as d


def _scheduler(prediction: str, n_train: int, n_steps: int, betas: torch.Tensor):
    assert betas.numel() == n_train
    return d.diffusers_scheduler(betas, n_steps, prediction)


def _toy_model(x: torch.Tensor, t: int) -> torch.Tensor:
    return torch.tanh(0.7 * x + 0.001 * t)


@pytest.mark.parametrize(
    ("prediction", "eta"), [("epsilon", 1.0), ("epsilon", 0.0), ("sample", 1.0), ("sample", 0.3)]
)
def test_ddim_matches_diffusers_step_for_step(prediction: str, eta: float) -> None:
    n_train, n_steps = 1000, 25
    betas = d.linear_betas(n_train)
    abar = d.alphas_cumprod(betas.float()).double()
    sched = _scheduler(prediction, n_train, n_steps, betas)
    assert np.array_equal(sched.timesteps.numpy(), d.ddim_timesteps(n_train, n_steps))
    g = torch.Generator().manual_seed(0)
    x = torch.randn(3, 8, generator=g, dtype=torch.float64)
    noise = torch.randn(n_steps, 3, 8, generator=g, dtype=torch.float64)
    ours, traj = d.ddim_sample(
        _toy_model,
        x,
        abar,
        n_steps,
        eta=eta,
        noise=noise,
        prediction=prediction,
        return_trajectory=True,
    )
    ref = x.clone()
    for i, t in enumerate(sched.timesteps):
        out = _toy_model(ref, int(t))
        ref = sched.step(out, t, ref, eta=eta, variance_noise=noise[i]).prev_sample
        # diffusers keeps ᾱ in float32 and takes its square roots there: agreement to ~1e-7
        assert torch.allclose(traj[i + 1], ref.to(torch.float64), atol=1e-6)
    assert torch.allclose(ours, ref.to(torch.float64), atol=1e-6)


def test_sigma_matches_diffusers_variance() -> None:
    betas = d.linear_betas(1000)
    abar = d.alphas_cumprod(betas)
    sched = _scheduler("epsilon", 1000, 50, betas)
    for t in sched.timesteps[::7]:
        t = int(t)
        prev = t - 20
        want = sched._get_variance(t, prev) ** 0.5
        got = d.ddim_sigma(abar[t], d.previous_alpha(abar, t, 50), 1.0)
        assert float(got) == pytest.approx(float(want), rel=1e-6)


def test_last_step_injects_no_noise() -> None:
    abar = d.alphas_cumprod(d.linear_betas(1000))
    assert float(d.ddim_sigma(abar[0], d.previous_alpha(abar, 0, 50), 1.0)) == 0.0
    assert float(d.ddim_sigma(abar[20], d.previous_alpha(abar, 20, 50), 1.0)) > 0.0


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"betas": torch.zeros(0)}, "betas"),
        ({"betas": torch.full((10,), 1.5)}, "betas"),
        ({"betas": torch.tensor([0.1, float("nan")])}, "betas"),
        ({"num_steps": 11}, "num_steps"),
        ({"prediction": "v_prediction"}, "prediction"),
    ],
)
def test_diffusers_scheduler_rejects_bad_input(kwargs, match) -> None:
    args = {"betas": d.linear_betas(10, 0.01, 0.2), "num_steps": 5} | kwargs
    with pytest.raises(ValueError, match=match):
        d.diffusers_scheduler(**args)


def test_add_noise_matches_ddpm_scheduler() -> None:
    import diffusers  # pinned: a broken install fails here rather than skipping

    betas = d.linear_betas(1000)
    s = diffusers.DDPMScheduler(num_train_timesteps=1000, trained_betas=betas.numpy())
    g = torch.Generator().manual_seed(1)
    x0, z = torch.randn(4, 5, generator=g), torch.randn(4, 5, generator=g)
    t = torch.tensor([0, 10, 500, 999])
    want = s.add_noise(x0, z, t)
    got = d.add_noise(x0, z, d.alphas_cumprod(betas)[t].float())
    assert torch.allclose(got, want, atol=1e-6)


def test_sample_prediction_at_zero_terminal_snr() -> None:
    x = torch.ones(2, 3, dtype=torch.float64)
    prev, x0 = d.ddim_step(x, torch.zeros_like(x), 0.0, 0.5, prediction="sample")
    assert torch.equal(x0, torch.zeros_like(x))
    assert torch.allclose(prev, np.sqrt(0.5) * x)


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: d.linear_betas(0), "num_train_timesteps"),
        (lambda: d.linear_betas(10, 0.0), "beta_start"),
        (lambda: d.linear_betas(10, 0.1, 0.01), "beta_end"),
        (lambda: d.alphas_cumprod(torch.tensor([0.5, 1.0])), "betas"),
        (lambda: d.ddim_timesteps(10, 11), "num_steps"),
        (lambda: d.previous_alpha(torch.tensor([0.9, 0.8]), 2, 1), "t"),
        (lambda: d.ddim_sigma(0.5, 0.9, -1.0), "eta"),
        (lambda: d.ddim_sigma(1.5, 0.9, 1.0), "abar_t"),
        (lambda: d.ddim_sigma(0.5, 0.0, 1.0), "abar_prev"),
        (lambda: d.ddim_sigma(0.9, 0.5, 1.0), "abar_prev"),
        (lambda: d.ddim_step(torch.zeros(2), torch.zeros(3), 0.5, 0.9), "model_output"),
        (
            lambda: d.ddim_step(torch.zeros(2), torch.zeros(2), 0.5, 0.9, prediction="v"),
            "prediction",
        ),
        (lambda: d.ddim_step(torch.zeros(2), torch.zeros(2), 0.0, 0.9), "abar_t"),
        (lambda: d.ddim_step(torch.zeros(2), torch.zeros(2), 0.5, 0.9, eta=1.0), "noise"),
        (
            lambda: d.ddim_step(
                torch.zeros(2), torch.zeros(2), 0.5, 0.9, eta=1.0, noise=torch.zeros(3)
            ),
            "noise",
        ),
        (
            lambda: d.ddim_sample(_toy_model, torch.zeros(2), torch.tensor([0.9, 0.8]), 3),
            "num_steps",
        ),
        (
            lambda: d.ddim_sample(_toy_model, torch.zeros(2), torch.tensor([0.9, 0.8]), 2, eta=1.0),
            "noise",
        ),
        (
            lambda: d.ddim_sample(
                _toy_model,
                torch.zeros(2),
                torch.tensor([0.9, 0.8]),
                2,
                eta=1.0,
                noise=torch.zeros(2, 3),
            ),
            "noise",
        ),
        (lambda: d.add_noise(torch.zeros(2), torch.zeros(3), 0.5), "noise"),
        (lambda: d.add_noise(torch.zeros(2), torch.zeros(2), 1.5), "abar_t"),
        (lambda: d.add_noise([0.0], torch.zeros(1), 0.5), "x0"),
    ],
)
def test_bad_input_names_the_argument(call, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        call()
