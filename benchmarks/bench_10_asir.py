"""Chapter 10 (asir): stego images and both hypothesis images for a batch, in one sampler pass.

The kernel ``icml26.generative.stego.embed_batch`` runs the keyed DDIM prefix once for the whole
batch and finishes the stack of all stego images and both hypotheses (``m⋆ + σ s ⊙ z``,
``m⋆ ± σ z``) together, with the kernel-density denoiser of the chapter (500 digits, h = 0.1,
50 DDIM steps, embedding at t⋆ = 4). It is compared with

- the notebook's readable reference ``stego_images_reference``: the shared DDIM step, one image
  and one hypothesis at a time (three full passes of the sampler per image);
- ``diffusers.DDIMScheduler.step`` with ``variance_noise`` given, in the same per-image,
  per-hypothesis Python loop (the established library's sampler; the model calls are ours).

- Case 1: 64 images × 3 trajectories (the chapter's demonstration size is 6).
- Scaling: 16 … 1024 images.
"""

from __future__ import annotations

import torch

from benchmarks.registry import register, register_scaling
from icml26.generative import diffusion as dm
from icml26.generative import stego
from icml26.pipeline.notebooks import notebook_functions

NUM_STEPS, T_STAR, B = 50, 4, 64
_g = torch.Generator().manual_seed(10)
_digits = stego.digits_pm1()
_train = _digits[torch.randperm(_digits.shape[0], generator=_g)[:500]]
ABAR = dm.alphas_cumprod(dm.linear_betas(1000))
MODEL = stego.kde_eps_model(_train, ABAR, 0.1)


def _inputs(b: int, seed: int):
    g = torch.Generator().manual_seed(seed)
    x_t = torch.randn(b, 64, generator=g, dtype=torch.float64)
    key = torch.randn(NUM_STEPS - T_STAR, b, 64, generator=g, dtype=torch.float64)
    z = torch.randn(b, 64, generator=g, dtype=torch.float64)
    bits = torch.rand(b, 64, generator=g) < 0.5
    return x_t, key, z, bits


X_T, KEY, Z, BITS = _inputs(B, 0)

_reference = notebook_functions("10-asir", "stego_images_reference")["stego_images_reference"]


def _diffusers_loop():
    sched = dm.diffusers_scheduler(dm.linear_betas(1000, 1e-4, 0.02), NUM_STEPS)
    i_star = NUM_STEPS - T_STAR
    out = []
    for j in range(B):
        signs = 1.0 - 2.0 * BITS[j].double()
        for injected in (signs * Z[j], Z[j], -Z[j]):
            x = X_T[j : j + 1]
            for i, t in enumerate(sched.timesteps):
                noise = KEY[i, j : j + 1] if i < i_star else injected[None]
                eta = 1.0 if i <= i_star else 0.0
                x = sched.step(MODEL(x, int(t)), t, x, eta=eta, variance_noise=noise).prev_sample
            out.append(x)
    return out


register(
    name=f"{B} images, stego + both hypotheses (50 DDIM steps, KDE on 500 digits): "
    "one batched pass vs per-image loops",
    kernel=lambda: stego.embed_batch(MODEL, X_T, ABAR, NUM_STEPS, T_STAR, KEY, Z, BITS),
    reference=lambda: _reference(MODEL, X_T, KEY, Z, BITS, ABAR, NUM_STEPS, T_STAR),
    library=_diffusers_loop,
    library_name="diffusers DDIMScheduler.step, per image and hypothesis",
)


def _embed_at(images: int):
    x_t, key, z, bits = _inputs(images, images)
    return lambda: stego.embed_batch(MODEL, x_t, ABAR, NUM_STEPS, T_STAR, key, z, bits)


register_scaling(
    "batched stego + hypotheses, 50 DDIM steps, KDE on 500 digits",
    make=_embed_at,
    sizes=(16, 64, 256, 1024),
    size_label="images",
)
