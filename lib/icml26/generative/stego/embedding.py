"""Embedding a message in a DDIM sampler's injected noise and reading it back (chapter 10, asir).

The embedding step (:func:`embedding_point`, :func:`embedding_mean`, :func:`finish`), a whole
batch in one pass (:func:`embed_batch`), the inversion that reads the injected noise back from
an image (:func:`invert_finish`, :func:`invert_finish_rows`) and iterative recovery
(:func:`iterative_recovery`, :prf:ref:`asir-def-ir`). The sampler is the shared DDIM step of
:mod:`icml26.generative.diffusion`.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import torch

from icml26 import checks
from icml26.generative import diffusion
from icml26.generative.stego.kde import _abar, _finite_tensor
from icml26.generative.stego.transmission import _bits, antipodal_noise

__all__ = [
    "embed_batch",
    "embedding_mean",
    "embedding_point",
    "finish",
    "invert_finish",
    "invert_finish_rows",
    "iterative_recovery",
]


def _step_times(abar: torch.Tensor, num_steps: int, t_star: int) -> tuple[np.ndarray, int]:
    a = checks.tensor("abar", abar, ndim=1, floating=True)
    n = checks.integer("num_steps", num_steps, low=1, high=a.numel())
    ts = checks.integer("t_star", t_star, low=1, high=n)
    return diffusion.ddim_timesteps(a.numel(), n), n - ts


def _one_step(model, x, abar, num_steps, t, eta, noise):
    a_t = abar[int(t)]
    a_p = diffusion.previous_alpha(abar, int(t), num_steps)
    return diffusion.ddim_step(x, model(x, int(t)), a_t, a_p, eta=eta, noise=noise)[0]


def embedding_point(
    model: Callable[[torch.Tensor, int], torch.Tensor],
    x_T: torch.Tensor,
    abar: torch.Tensor,
    num_steps: int,
    t_star: int,
    key_noise: torch.Tensor,
) -> tuple[torch.Tensor, float]:
    """Run the keyed prefix of the sampler and return ``(m⋆, σ_{t⋆})`` of the embedding step.

    Steps are counted from the end: ``t_star = 1`` is the last DDIM step (``σ = 0`` there),
    ``t_star = 2`` the one before. The ``num_steps − t_star`` steps before the embedding step
    inject the key-derived ``key_noise`` (shape ``(num_steps − t_star, *x_T.shape)``, ``η = 1``),
    which sender and receiver both know; ``m⋆`` is the embedding step's mean, so that the
    state after it is ``m⋆ + σ_{t⋆} ζ`` for the injected noise ``ζ``
    (:prf:ref:`asir-def-antipodal`).
    """
    x = _finite_tensor("x_T", x_T)
    times, i_star = _step_times(_abar(abar), num_steps, t_star)
    kn = _finite_tensor("key_noise", key_noise)
    if tuple(kn.shape) != (i_star, *x.shape):
        raise ValueError(
            f"key_noise must have shape (num_steps - t_star, *x_T.shape) = "
            f"{(i_star, *x.shape)}, got {tuple(kn.shape)}"
        )
    for i in range(i_star):
        x = _one_step(model, x, abar, num_steps, times[i], 1.0, kn[i])
    return embedding_mean(model, x, abar, num_steps, t_star)


def embedding_mean(
    model: Callable[[torch.Tensor, int], torch.Tensor],
    x: torch.Tensor,
    abar: torch.Tensor,
    num_steps: int,
    t_star: int,
) -> tuple[torch.Tensor, float]:
    """``(m⋆, σ_{t⋆})`` of the embedding step taken from the state ``x`` just before it: the
    DDIM step :eq:`asir-eq-step` with ``η = 1`` and zero noise, and its noise scale."""
    xx = _finite_tensor("x", x)
    times, i_star = _step_times(_abar(abar), num_steps, t_star)
    t = int(times[i_star])
    a_t, a_p = abar[t], diffusion.previous_alpha(abar, t, num_steps)
    m_star = _one_step(model, xx, abar, num_steps, t, 1.0, torch.zeros_like(xx))
    return m_star, float(diffusion.ddim_sigma(a_t, a_p, 1.0))


def finish(
    model: Callable[[torch.Tensor, int], torch.Tensor],
    x: torch.Tensor,
    abar: torch.Tensor,
    num_steps: int,
    t_star: int,
) -> torch.Tensor:
    """The deterministic rest of the sampler after the embedding step (``η = 0``): ``G`` in
    :prf:ref:`asir-def-ir`. Differentiable in ``x`` (iterative recovery backpropagates here).

    A per-step kernel of iterative recovery: it checks types and shapes but not finiteness
    (which would cost a device-to-host synchronisation per step); NaN and inf propagate.
    """
    xx = checks.tensor("x", x, floating=True)
    times, i_star = _step_times(abar, num_steps, t_star)
    for t in times[i_star + 1 :]:
        xx = _one_step(model, xx, abar, num_steps, t, 0.0, None)
    return xx


def invert_finish_rows(
    model: Callable[[torch.Tensor, int], torch.Tensor],
    y: torch.Tensor,
    abar: torch.Tensor,
    num_steps: int,
    t_star: int,
    *,
    iters: int = 50,
    tol: float = 1e-9,
) -> tuple[torch.Tensor, torch.Tensor]:
    """:func:`invert_finish` row by row, without raising: the states, and a boolean mask of
    the rows (images, the first dimension of ``y``) whose inversion converged at every step.

    A row that does not converge keeps the iteration's last value. That happens where a step
    of the sampler is nearly discontinuous (a kernel-density denoiser at low noise snaps an
    image to its nearest training points, and a state between two of them has no nearby
    fixed point for the iteration to find): a receiver reading such an image reads wrong noise.
    """
    target = _finite_tensor("y", y)
    times, i_star = _step_times(_abar(abar), num_steps, t_star)
    n = checks.integer("iters", iters, low=1)
    eps = checks.real("tol", tol, low=0.0, strict=True)
    converged = torch.ones(target.shape[0] if target.dim() else 1, dtype=torch.bool)
    for t in reversed(times[i_star + 1 :]):
        x = target
        for _ in range(n):
            x = x + (target - _one_step(model, x, abar, num_steps, t, 0.0, None))
        gap = (_one_step(model, x, abar, num_steps, t, 0.0, None) - target).abs()
        residual = gap.reshape(gap.shape[0], -1).amax(1) if gap.dim() > 1 else gap.reshape(-1)
        converged &= (residual <= eps).cpu()
        target = x
    return target, converged


def invert_finish(
    model: Callable[[torch.Tensor, int], torch.Tensor],
    y: torch.Tensor,
    abar: torch.Tensor,
    num_steps: int,
    t_star: int,
    *,
    iters: int = 50,
    tol: float = 1e-9,
) -> torch.Tensor:
    """Invert :func:`finish`: the state right after the embedding step whose deterministic
    completion is the image ``y``.

    Each ``η = 0`` step ``x ↦ F(x)`` is undone, from the last to the first, by the fixed-point
    iteration ``x ← x + (target − F(x))`` started at ``x = target`` (``iters`` times per step;
    exact DDIM inversion, not the one-step approximation). It converges where ``F`` is close
    to the identity, as the late steps of a sampler are; where it does not (the largest
    residual ``|F(x) − target|`` of a step exceeds ``tol``) it raises ``RuntimeError``
    (:func:`invert_finish_rows` reports the rows instead). With ``m⋆`` and ``σ`` of the
    embedding step, ``(x − m⋆)/σ`` is the injected noise read back from the image.
    """
    x, converged = invert_finish_rows(model, y, abar, num_steps, t_star, iters=iters, tol=tol)
    if not bool(converged.all()):
        bad = int((~converged).sum())
        raise RuntimeError(
            f"inversion did not converge for {bad} of {converged.numel()} rows of y "
            f"(residual above tol={tol:g})"
        )
    return x


def embed_batch(
    model: Callable[[torch.Tensor, int], torch.Tensor],
    x_T: torch.Tensor,
    abar: torch.Tensor,
    num_steps: int,
    t_star: int,
    key_noise: torch.Tensor,
    z: torch.Tensor,
    bits: torch.Tensor,
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor, float]:
    """Stego images and both hypotheses for a batch, in one pass of the sampler.

    Runs the keyed prefix once (:func:`embedding_point`), then finishes the stack
    ``[m⋆ + σ s ⊙ z, m⋆ + σ z, m⋆ − σ z]`` (all images, both hypotheses) with :func:`finish`.
    Returns ``(stego, hyp0, hyp1, m_star, sigma)``.
    """
    m_star, sigma = embedding_point(model, x_T, abar, num_steps, t_star, key_noise)
    zz = _finite_tensor("z", z)
    if zz.shape != m_star.shape:
        raise ValueError(
            f"z must have the shape of x_T {tuple(m_star.shape)}, got {tuple(zz.shape)}"
        )
    inj = antipodal_noise(bits, zz)
    out = finish(
        model,
        torch.cat([m_star + sigma * inj, m_star + sigma * zz, m_star - sigma * zz]),
        abar,
        num_steps,
        t_star,
    )
    b = m_star.shape[0]
    return out[:b], out[b : 2 * b], out[2 * b :], m_star, sigma


def iterative_recovery(
    forward: Callable[[torch.Tensor], torch.Tensor],
    received: torch.Tensor,
    m_star: torch.Tensor,
    sigma: float,
    z: torch.Tensor,
    init_bits: torch.Tensor,
    *,
    steps: int = 200,
    lr: float = 0.05,
    init_scale: float = 2.0,
) -> tuple[torch.Tensor, torch.Tensor]:
    """Iterative recovery (:prf:ref:`asir-def-ir`): Adam on ``w`` with ``ŝ = tanh(w)`` minimising
    ``‖G(m⋆ + σ ŝ ⊙ z) − ỹ‖²`` summed over the batch; returns ``(bits, losses)``, the losses
    of every image at every step, shape ``(steps, batch)``.

    ``forward`` is ``G`` (the rest of the sampler, then the decoder), differentiable;
    ``init_bits`` (e.g. the nearest-hypothesis decode) sets ``w = ±init_scale``. The loss is a
    sum of per-image terms and Adam acts coordinate by coordinate, so the images are recovered
    independently in one batch (several channel settings can share a call).
    """
    r = _finite_tensor("received", received)
    m = _finite_tensor("m_star", m_star)
    zz = _finite_tensor("z", z)
    if zz.shape != m.shape:
        raise ValueError(f"z must have the shape of m_star {tuple(m.shape)}, got {tuple(zz.shape)}")
    s = checks.real("sigma", sigma, low=0.0, strict=True)
    n = checks.integer("steps", steps, low=1)
    rate = checks.real("lr", lr, low=0.0, strict=True)
    c = checks.real("init_scale", init_scale, low=0.0)
    b = _bits("init_bits", init_bits, zz, "z")
    w = torch.where(b, -c, c).to(zz.dtype).clone().requires_grad_(True)
    opt = torch.optim.Adam([w], lr=rate)
    losses = []
    for _ in range(n):
        opt.zero_grad()
        out = forward(m + s * torch.tanh(w) * zz)
        if out.shape != r.shape:
            raise ValueError(f"forward must return the shape of received {tuple(r.shape)}")
        per_image = ((out - r) ** 2).reshape(out.shape[0], -1).sum(1)
        per_image.sum().backward()
        opt.step()
        losses.append(per_image.detach())
    return (w.detach() < 0), torch.stack(losses)
