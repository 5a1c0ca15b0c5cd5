"""DDPM noise schedules and the DDIM sampler with explicit injected noise.

One sampler serves two chapters: chapter 10 (ASIR) hides message bits in the sign of the
noise the sampler injects, so the noise is an argument rather than a draw inside the step;
chapter 11 (any-to-any translation) samples a target latent with an ``x₀``-predicting backbone.
The update is the DDIM step of Song, Meng and Ermon (2021) with the noise scale

``σ_t = η · sqrt((1 − ᾱ_prev)/(1 − ᾱ_t)) · sqrt(1 − ᾱ_t/ᾱ_prev)``,

written so that it agrees step for step with ``diffusers.DDIMScheduler.step`` (``clip_sample``
off, ``variance_noise`` given); ``tests/test_diffusion.py`` checks that.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import torch

from icml26 import checks

__all__ = [
    "add_noise",
    "alphas_cumprod",
    "ddim_sample",
    "ddim_sigma",
    "ddim_step",
    "ddim_timesteps",
    "diffusers_scheduler",
    "linear_betas",
    "previous_alpha",
]

PREDICTIONS = ("epsilon", "sample")


def linear_betas(
    num_train_timesteps: int = 1000,
    beta_start: float = 1e-4,
    beta_end: float = 0.02,
    *,
    dtype: torch.dtype = torch.float64,
) -> torch.Tensor:
    """The linear ``β`` schedule of DDPM, ``num_train_timesteps`` values from ``beta_start``."""
    n = checks.integer("num_train_timesteps", num_train_timesteps, low=1)
    lo = checks.real("beta_start", beta_start, low=0.0, high=1.0, strict=True)
    hi = checks.real("beta_end", beta_end, low=0.0, high=1.0)
    if hi < lo:
        raise ValueError(f"beta_end must be >= beta_start, got {hi} < {lo}")
    return torch.linspace(lo, hi, n, dtype=dtype)


def diffusers_scheduler(betas: torch.Tensor, num_steps: int, prediction: str = "epsilon"):
    """``diffusers.DDIMScheduler`` configured as this module's sampler, ``num_steps`` set.

    The cross-check of chapters 10 and 11 (and of ``tests/test_diffusion.py``): the training
    schedule ``betas`` given as ``trained_betas`` (diffusers keeps it in float32), no clipping,
    ``ᾱ_prev = 1`` at the last step (``set_alpha_to_one``), ``"leading"`` timestep spacing as
    :func:`ddim_timesteps`, and ``prediction`` ``"epsilon"`` or ``"sample"`` (an ``x₀``-predicting
    model, chapter 11). Its ``step(..., eta=η, variance_noise=noise)`` then agrees with
    :func:`ddim_step` given the same noise.
    """
    from diffusers import DDIMScheduler

    betas = checks.tensor("betas", betas, ndim=1, floating=True)
    checks.finite("betas", betas)
    if betas.numel() == 0 or bool(((betas <= 0) | (betas >= 1)).any()):
        raise ValueError("betas must be a non-empty schedule with values in (0, 1)")
    num_steps = checks.integer("num_steps", num_steps, low=1, high=betas.numel())
    if prediction not in ("epsilon", "sample"):
        raise ValueError(f"prediction must be 'epsilon' or 'sample', got {prediction!r}")
    sched = DDIMScheduler(
        num_train_timesteps=betas.numel(),
        trained_betas=betas.detach().cpu().numpy(),
        clip_sample=False,
        set_alpha_to_one=True,
        timestep_spacing="leading",
        prediction_type=prediction,
    )
    sched.set_timesteps(num_steps)  # type: ignore[attr-defined]  # set by a mixin
    return sched


def alphas_cumprod(betas: torch.Tensor) -> torch.Tensor:
    """``ᾱ_t = ∏_{s ≤ t} (1 − β_s)``: the signal fraction kept after ``t + 1`` noising steps."""
    b = checks.tensor("betas", betas, ndim=1)
    if b.numel() == 0 or not bool(((b > 0) & (b < 1)).all()):
        raise ValueError("betas must be a non-empty vector of values in (0, 1)")
    return torch.cumprod(1.0 - b, dim=0)


def ddim_timesteps(num_train_timesteps: int, num_steps: int) -> np.ndarray:
    """The ``num_steps`` sampling times with leading spacing, descending (``diffusers`` default).

    With 1000 training steps and 50 sampling steps these are 980, 960, ..., 20, 0.
    """
    n_train = checks.integer("num_train_timesteps", num_train_timesteps, low=1)
    n = checks.integer("num_steps", num_steps, low=1, high=n_train)
    ratio = n_train // n
    return (np.arange(n) * ratio)[::-1].astype(np.int64)


def previous_alpha(
    abar: torch.Tensor, t: int, num_steps: int, *, final_alpha_one: bool = True
) -> torch.Tensor:
    """``ᾱ_prev`` for the DDIM step leaving time ``t``: ``ᾱ[t − T/n]``, or the final value.

    ``final_alpha_one`` mirrors ``diffusers``' ``set_alpha_to_one``: the step out of the
    first training time lands at ``ᾱ = 1`` (a clean sample) instead of ``ᾱ_0``.
    """
    a = checks.tensor("abar", abar, ndim=1)
    n = checks.integer("num_steps", num_steps, low=1, high=a.numel())
    tt = checks.integer("t", t, low=0, high=a.numel() - 1)
    prev = tt - a.numel() // n
    if prev >= 0:
        return a[prev]
    return torch.ones((), dtype=a.dtype) if final_alpha_one else a[0]


def ddim_sigma(
    abar_t: torch.Tensor | float, abar_prev: torch.Tensor | float, eta: float
) -> torch.Tensor:
    """The DDIM noise scale ``σ_t`` for one step (zero for ``η = 0``, DDPM's for ``η = 1``)."""
    e = checks.real("eta", eta, low=0.0)
    a_t = torch.as_tensor(abar_t, dtype=torch.float64)
    a_p = torch.as_tensor(abar_prev, dtype=torch.float64)
    if bool(((a_t < 0) | (a_t > 1)).any()):
        raise ValueError("abar_t must lie in [0, 1]")
    if bool(((a_p <= 0) | (a_p > 1)).any()):
        raise ValueError("abar_prev must lie in (0, 1]")
    if bool((a_p < a_t).any()):
        raise ValueError("abar_prev must be >= abar_t (sampling runs towards less noise)")
    var = (1 - a_p) / (1 - a_t).clamp_min(1e-300) * (1 - a_t / a_p)
    return e * var.clamp_min(0.0).sqrt()


def _x0_and_eps(
    sample: torch.Tensor, output: torch.Tensor, abar_t: torch.Tensor, prediction: str
) -> tuple[torch.Tensor, torch.Tensor]:
    if prediction == "epsilon":
        eps = output
        x0 = (sample - (1 - abar_t).sqrt() * eps) / abar_t.sqrt()
    else:
        x0 = output
        eps = (sample - abar_t.sqrt() * x0) / (1 - abar_t).sqrt()
    return x0, eps


def ddim_step(
    sample: torch.Tensor,
    model_output: torch.Tensor,
    abar_t: torch.Tensor | float,
    abar_prev: torch.Tensor | float,
    *,
    eta: float = 0.0,
    noise: torch.Tensor | None = None,
    prediction: str = "epsilon",
) -> tuple[torch.Tensor, torch.Tensor]:
    """One DDIM step ``x_t → x_prev`` with the injected noise given; returns ``(x_prev, x̂₀)``.

    ``x_prev = sqrt(ᾱ_prev) x̂₀ + sqrt(1 − ᾱ_prev − σ²) ε̂ + σ z`` with ``σ`` from
    :func:`ddim_sigma`; ``prediction`` says whether the model predicts the noise ``ε``
    (``"epsilon"``) or the clean sample ``x₀`` (``"sample"``, the anchored regression of
    chapter 11). ``noise`` is the ``z`` injected (chapter 10 hides a bit in its sign); it is
    required when ``eta > 0``.

    A per-step kernel: NaN or inf in ``sample`` or ``model_output`` propagate to the result
    (no host synchronisation at every step); :func:`ddim_sample` checks its starting point.
    """
    x = checks.tensor("sample", sample)
    out = checks.tensor("model_output", model_output)
    if out.shape != x.shape:
        raise ValueError(
            f"model_output must have the shape of sample {tuple(x.shape)}, got {tuple(out.shape)}"
        )
    if prediction not in PREDICTIONS:
        raise ValueError(f"prediction must be one of {PREDICTIONS}, got {prediction!r}")
    if prediction == "epsilon" and bool((torch.as_tensor(abar_t) == 0).any()):
        raise ValueError(
            "abar_t must be > 0 for prediction='epsilon' (x0 = (x - eps)/sqrt(abar_t))"
        )
    sigma = ddim_sigma(abar_t, abar_prev, eta).to(x.dtype)
    a_t = torch.as_tensor(abar_t, dtype=x.dtype)
    a_p = torch.as_tensor(abar_prev, dtype=x.dtype)
    x0, eps = _x0_and_eps(x, out, a_t, prediction)
    direction = (1 - a_p - sigma**2).clamp_min(0.0).sqrt() * eps
    prev = a_p.sqrt() * x0 + direction
    if float(checks.real("eta", eta, low=0.0)) > 0:
        if noise is None:
            raise ValueError("noise must be given when eta > 0 (the sampler injects it explicitly)")
        z = checks.tensor("noise", noise)
        if z.shape != x.shape:
            raise ValueError(
                f"noise must have the shape of sample {tuple(x.shape)}, got {tuple(z.shape)}"
            )
        prev = prev + sigma * z
    return prev, x0


def ddim_sample(
    model: Callable[[torch.Tensor, int], torch.Tensor],
    x_T: torch.Tensor,
    abar: torch.Tensor,
    num_steps: int,
    *,
    eta: float = 0.0,
    noise: torch.Tensor | None = None,
    prediction: str = "epsilon",
    final_alpha_one: bool = True,
    return_trajectory: bool = False,
) -> torch.Tensor | tuple[torch.Tensor, list[torch.Tensor]]:
    """Run ``num_steps`` DDIM steps from ``x_T``; ``model(x, t)`` gives ``ε̂`` or ``x̂₀``.

    ``noise`` stacks the injected noises, shape ``(num_steps, *x_T.shape)``, step ``i`` being
    the ``i``-th step taken (from the noisiest time); it is required when ``eta > 0``. Every
    image in the batch goes through the same schedule, so a batch can hold all images and
    both hypotheses of chapter 10 at once. With ``return_trajectory`` the states after each
    step come back too (``x_T`` first).
    """
    x = checks.tensor("x_T", x_T, floating=True)
    checks.finite("x_T", x)
    a = checks.tensor("abar", abar, ndim=1)
    n = checks.integer("num_steps", num_steps, low=1, high=a.numel())
    e = checks.real("eta", eta, low=0.0)
    if e > 0:
        if noise is None:
            raise ValueError("noise must be given when eta > 0, shape (num_steps, *x_T.shape)")
        z = checks.tensor("noise", noise)
        if tuple(z.shape) != (n, *x.shape):
            raise ValueError(f"noise must have shape {(n, *x.shape)}, got {tuple(z.shape)}")
    trajectory = [x]
    for i, t in enumerate(ddim_timesteps(a.numel(), n)):
        a_t, a_p = a[int(t)], previous_alpha(a, int(t), n, final_alpha_one=final_alpha_one)
        out = model(x, int(t))
        x, _ = ddim_step(
            x, out, a_t, a_p, eta=e, noise=None if e == 0 else z[i], prediction=prediction
        )
        if return_trajectory:
            trajectory.append(x)
    return (x, trajectory) if return_trajectory else x


def add_noise(x0: torch.Tensor, noise: torch.Tensor, abar_t: torch.Tensor | float) -> torch.Tensor:
    """The forward process ``x_t = sqrt(ᾱ_t) x₀ + sqrt(1 − ᾱ_t) ε``.

    Agrees with ``diffusers.DDPMScheduler.add_noise``. Elementwise: NaN or inf in ``x0`` or
    ``noise`` propagate to the result.
    """
    x = checks.tensor("x0", x0)
    z = checks.tensor("noise", noise)
    if z.shape != x.shape:
        raise ValueError(f"noise must have the shape of x0 {tuple(x.shape)}, got {tuple(z.shape)}")
    a = torch.as_tensor(abar_t, dtype=x.dtype)
    if bool(((a < 0) | (a > 1)).any()):
        raise ValueError("abar_t must lie in [0, 1]")
    while a.ndim and a.ndim < x.ndim:
        a = a.reshape(*a.shape, 1)
    return a.sqrt() * x + (1 - a).sqrt() * z
