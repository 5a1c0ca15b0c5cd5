"""Steganography in the injected noise of a diffusion sampler: antipodal sampling and iterative
recovery (chapter 10, asir).

The sampler is the shared DDIM step of :mod:`icml26.generative.diffusion`; this module adds
what chapter 10 needs around it:

- the exact posterior-mean denoiser of a Gaussian kernel density on scikit-learn's bundled
  digits (:func:`kde_posterior_mean`, :func:`kde_eps_model`): a nonlinear diffusion model that
  needs no training;
- a PCA encoder and a small MLP decoder for the latent variant (:func:`fit_latent_codec`);
- the embedding step (:func:`embedding_point`, :func:`finish`) and its inverse, which reads the
  injected noise back from an image (:func:`invert_finish`), the antipodal and independent
  embedders (:func:`antipodal_noise`, :func:`independent_noise`, :prf:ref:`asir-def-antipodal`),
  the channel (:func:`channel`), nearest-hypothesis decoding (:func:`nearest_hypothesis`) and
  its per-cell margin (:func:`decoding_margin`), and iterative recovery
  (:func:`iterative_recovery`, :prf:ref:`asir-def-ir`);
- the closed-form bit error rates of :prf:ref:`asir-thm-ber` and a steganalyser
  (:func:`steganalyser_auc`).

Everything is batched over images and cells; tensors may live on any device.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import torch

from icml26 import checks
from icml26.generative import diffusion

__all__ = [
    "LatentCodec",
    "antipodal_noise",
    "ber_antipodal",
    "ber_independent",
    "channel",
    "decoding_margin",
    "digits_pm1",
    "embed_batch",
    "embedding_mean",
    "embedding_point",
    "finish",
    "fit_latent_codec",
    "independent_noise",
    "invert_finish",
    "invert_finish_rows",
    "iterative_recovery",
    "kde_eps_model",
    "kde_posterior_mean",
    "median_residual",
    "nearest_hypothesis",
    "quantise",
    "steganalyser_auc",
]


def digits_pm1(*, dtype: torch.dtype = torch.float64) -> torch.Tensor:
    """scikit-learn's bundled 8×8 digits (1,797 images, no download) as rows in ``[-1, 1]``."""
    from sklearn.datasets import load_digits

    x = load_digits().data / 8.0 - 1.0
    return torch.as_tensor(x, dtype=dtype)


def _float_matrix(name: str, x: object, *, finite: bool = True) -> torch.Tensor:
    t = checks.tensor(name, x, ndim=2, floating=True)
    if t.shape[0] == 0 or t.shape[1] == 0:
        raise ValueError(f"{name} must be a non-empty matrix, got shape {tuple(t.shape)}")
    if finite:
        checks.finite(name, t)
    return t


def _finite_tensor(name: str, x: object) -> torch.Tensor:
    t = checks.tensor(name, x, floating=True)
    checks.finite(name, t)
    return t


def _abar(abar: object) -> torch.Tensor:
    a = checks.tensor("abar", abar, ndim=1, floating=True)
    checks.finite("abar", a)
    return a


def kde_posterior_mean(
    x: torch.Tensor, data: torch.Tensor, abar_t: float | torch.Tensor, h: float
) -> torch.Tensor:
    """``E[x₀ | x_t = x]`` for ``p₀ = (1/N) Σ_i N(x_i, h² I)`` and ``x_t = √ᾱ x₀ + √(1 − ᾱ) ε``.

    With ``v = ᾱ h² + 1 − ᾱ`` and softmax weights ``w_i ∝ exp(−‖x − √ᾱ x_i‖² / 2v)``:
    ``E[x₀ | x] = (1 − h² ᾱ / v) Σ_i w_i x_i + (h² √ᾱ / v) x`` (:prf:ref:`asir-def-kde`).
    The distances are one matrix product (the term ``‖x‖²`` cancels in the softmax), so a batch
    of ``B`` images costs ``O(B N d)``.
    """
    xx = _float_matrix("x", x)
    d = _float_matrix("data", data)
    return _posterior_mean(xx, d, abar_t, h)


def _posterior_mean(
    xx: torch.Tensor, d: torch.Tensor, abar_t: float | torch.Tensor, h: float
) -> torch.Tensor:
    """:func:`kde_posterior_mean` after the finiteness checks (the sampler's per-step kernel)."""
    if d.shape[1] != xx.shape[1]:
        raise ValueError(f"data must have {xx.shape[1]} columns like x, got {d.shape[1]}")
    if isinstance(abar_t, torch.Tensor) and abar_t.numel() != 1:
        raise ValueError(f"abar_t must be a number, got shape {tuple(abar_t.shape)}")
    a = float(checks.real("abar_t", float(abar_t), low=0.0, high=1.0))
    hh = checks.real("h", h, low=0.0, strict=True)
    d = d.to(xx.dtype)
    v = a * hh**2 + 1.0 - a
    # −‖x − √ᾱ x_i‖²/2v up to the row constant −‖x‖²/2v, which the softmax ignores: one addmm
    bias = (-a / (2 * v)) * (d * d).sum(1)
    w = torch.softmax(torch.addmm(bias, xx, d.T, alpha=math.sqrt(a) / v), dim=1)
    return (1 - hh**2 * a / v) * (w @ d) + (hh**2 * math.sqrt(a) / v) * xx


def kde_eps_model(
    data: torch.Tensor, abar: torch.Tensor, h: float
) -> Callable[[torch.Tensor, int], torch.Tensor]:
    """The noise predictor ``ε̂(x, t) = (x − √ᾱ_t x̂₀) / √(1 − ᾱ_t)`` of the KDE denoiser.

    The returned ``model(x, t)`` (``t`` a training time index) plugs into
    :func:`icml26.generative.diffusion.ddim_step` and ``ddim_sample``. It is called at every
    step of a sampler: it checks the shape of ``x`` but not its finiteness (NaN propagates).
    """
    d = _float_matrix("data", data)
    a = _abar(abar)
    checks.real("h", h, low=0.0, strict=True)

    def model(x: torch.Tensor, t: int) -> torch.Tensor:
        at = float(a[checks.integer("t", t, low=0, high=a.numel() - 1)])
        x0 = _posterior_mean(_float_matrix("x", x, finite=False), d, at, h)
        return (x - math.sqrt(at) * x0) / math.sqrt(1 - at)

    return model


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


def decoding_margin(
    received: torch.Tensor, hyp0: torch.Tensor, hyp1: torch.Tensor, bits: torch.Tensor
) -> torch.Tensor:
    """Per-cell margin of nearest-hypothesis decoding,
    ``(ỹ_c − ŷ^{1−m_c}_c)² − (ỹ_c − ŷ^{m_c}_c)²``: the squared distance to the wrong hypothesis
    minus that to the right one for the sent bits ``m``. Positive where the cell decodes
    correctly; for a correct embedder observed without noise it is the squared hypothesis
    distance of the cell (``4σ²z_c²`` for the antipodal pair, ``σ²(z⁰_c − z¹_c)²`` for the
    independent one at the embedding step)."""
    r = _finite_tensor("received", received)
    for name, h in (("hyp0", hyp0), ("hyp1", hyp1)):
        if checks.tensor(name, h, floating=True).shape != r.shape:
            raise ValueError(f"{name} must have the shape of received {tuple(r.shape)}")
        checks.finite(name, h)
    b = _bits("bits", bits, r, "received")
    right, wrong = torch.where(b, hyp1, hyp0), torch.where(b, hyp0, hyp1)
    return (r - wrong) ** 2 - (r - right) ** 2


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


def _bits(name: str, bits: object, like: torch.Tensor, like_name: str) -> torch.Tensor:
    b = checks.tensor(name, bits)
    if b.shape != like.shape:
        raise ValueError(
            f"{name} must have the shape of {like_name} {tuple(like.shape)}, got {tuple(b.shape)}"
        )
    if b.dtype == torch.bool:
        return b
    if bool(((b != 0) & (b != 1)).any()):
        raise ValueError(f"{name} must hold bits (0/1 or bool)")
    return b != 0


def antipodal_noise(bits: torch.Tensor, z: torch.Tensor) -> torch.Tensor:
    """ASIR's antipodal embedder: bit 0 injects ``+z_c``, bit 1 injects ``−z_c``
    (``s ⊙ z`` with ``s = 1 − 2m``, :prf:ref:`asir-def-antipodal`)."""
    zz = _finite_tensor("z", z)
    b = _bits("bits", bits, zz, "z")
    return torch.where(b, -zz, zz)


def independent_noise(bits: torch.Tensor, z0: torch.Tensor, z1: torch.Tensor) -> torch.Tensor:
    """The two-key baseline (Pulsar, PSyDUCK): cell ``c`` injects ``z^{m_c}_c``."""
    a = _finite_tensor("z0", z0)
    b1 = _finite_tensor("z1", z1)
    if a.shape != b1.shape:
        raise ValueError(f"z1 must have the shape of z0 {tuple(a.shape)}, got {tuple(b1.shape)}")
    return torch.where(_bits("bits", bits, a, "z0"), b1, a)


def quantise(y: torch.Tensor) -> torch.Tensor:
    """Save as an 8-bit image: clamp to ``[-1, 1]`` and round to the 256 levels ``2k/255 − 1``.

    Elementwise over ``y`` of any shape.
    """
    yy = _finite_tensor("y", y)
    return torch.round((yy.clamp(-1, 1) + 1) * 127.5) / 127.5 - 1


def channel(
    y: torch.Tensor,
    tau: float,
    *,
    generator: torch.Generator | None = None,
    rounding: bool = True,
) -> torch.Tensor:
    """The transmission channel: 8-bit rounding (optional), then additive ``N(0, τ²)`` noise.

    Elementwise over ``y`` of any shape.
    """
    yy = _finite_tensor("y", y)
    s = checks.real("tau", tau, low=0.0)
    out = quantise(yy) if rounding else yy
    if s > 0:
        noise = torch.randn(out.shape, generator=generator, dtype=out.dtype, device=out.device)
        out = out + s * noise
    return out


def nearest_hypothesis(
    received: torch.Tensor, hyp0: torch.Tensor, hyp1: torch.Tensor
) -> torch.Tensor:
    """Per-cell nearest-hypothesis decoding: bit 1 where ``|ỹ_c − ŷ¹_c| < |ỹ_c − ŷ⁰_c|``.

    All three arrays are in the space where cells are compared (pixels, or re-encoded
    latents); the result is a boolean tensor of the same shape.
    """
    r = _finite_tensor("received", received)
    for name, h in (("hyp0", hyp0), ("hyp1", hyp1)):
        if checks.tensor(name, h, floating=True).shape != r.shape:
            raise ValueError(f"{name} must have the shape of received {tuple(r.shape)}")
        checks.finite(name, h)
    return (r - hyp1).abs() < (r - hyp0).abs()


def _ratio(name: str, r: object) -> np.ndarray:
    a = checks.as_float64(name, r)
    if not np.all(np.isfinite(a)) or np.any(a < 0):
        raise ValueError(f"{name} must be finite and >= 0")
    return a


def ber_antipodal(tau_over_sigma: float | np.ndarray) -> np.ndarray:
    """Bit error rate ``arctan(τ/σ)/π`` of the antipodal pair (:prf:ref:`asir-thm-ber`).

    Elementwise over any shape.
    """
    return np.arctan(_ratio("tau_over_sigma", tau_over_sigma)) / np.pi


def ber_independent(tau_over_sigma: float | np.ndarray) -> np.ndarray:
    """Bit error rate ``arctan(√2 τ/σ)/π`` of the independent pair (:prf:ref:`asir-thm-ber`).

    Elementwise over any shape.
    """
    return np.arctan(np.sqrt(2.0) * _ratio("tau_over_sigma", tau_over_sigma)) / np.pi


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


@dataclass(frozen=True)
class LatentCodec:
    """PCA encoder and MLP decoder of the latent toy (the analogue of a VAE)."""

    mean: torch.Tensor
    components: torch.Tensor
    scale: float
    weights: tuple[torch.Tensor, ...]

    def encode(self, x: torch.Tensor) -> torch.Tensor:
        """``E(x) = (x − μ) Vᵀ / s``: PCA coordinates divided by their global std ``s``."""
        xx = checks.tensor("x", x, floating=True)
        return (xx - self.mean) @ self.components.T / self.scale

    def decode(self, u: torch.Tensor) -> torch.Tensor:
        """``D(u) = tanh(W₂ tanh(W₁ u + b₁) + b₂)``: differentiable, mixes latent cells."""
        uu = checks.tensor("u", u, floating=True)
        w1, b1, w2, b2 = self.weights
        return torch.tanh(torch.tanh(uu @ w1 + b1) @ w2 + b2)


def fit_latent_codec(
    data: torch.Tensor,
    k: int = 16,
    *,
    hidden: int = 64,
    steps: int = 300,
    lr: float = 0.01,
    generator: torch.Generator | None = None,
) -> LatentCodec:
    """Fit the latent toy: PCA(``k``) scaled to unit global std, and a tanh MLP decoder
    trained with Adam for ``steps`` full-batch steps to reconstruct ``data`` from ``E(data)``."""
    d = _float_matrix("data", data)
    kk = checks.integer("k", k, low=1, high=min(d.shape))
    hh = checks.integer("hidden", hidden, low=1)
    n = checks.integer("steps", steps, low=1)
    rate = checks.real("lr", lr, low=0.0, strict=True)
    mean = d.mean(0)
    _, _, vt = torch.linalg.svd(d - mean, full_matrices=False)
    comps = vt[:kk]
    coords = (d - mean) @ comps.T
    sc = float(coords.std())
    u = coords / sc
    g = generator
    w1 = (torch.randn(kk, hh, generator=g, dtype=d.dtype) / math.sqrt(kk)).requires_grad_(True)
    b1 = torch.zeros(hh, dtype=d.dtype, requires_grad=True)
    w2 = (torch.randn(hh, d.shape[1], generator=g, dtype=d.dtype) / math.sqrt(hh)).requires_grad_(
        True
    )
    b2 = torch.zeros(d.shape[1], dtype=d.dtype, requires_grad=True)
    opt = torch.optim.Adam([w1, b1, w2, b2], lr=rate)
    target = d.clamp(-0.999, 0.999)
    for _ in range(n):
        opt.zero_grad()
        out = torch.tanh(torch.tanh(u @ w1 + b1) @ w2 + b2)
        loss = ((out - target) ** 2).mean()
        loss.backward()
        opt.step()
    weights = tuple(p.detach() for p in (w1, b1, w2, b2))
    return LatentCodec(mean, comps, sc, weights)


def median_residual(images: torch.Tensor, side: int = 8) -> torch.Tensor:
    """The denoising residual of a steganalyser: each image minus its 3×3 median filter
    (edges replicated); ``images`` has one flattened ``side × side`` image per row."""
    x = _float_matrix("images", images)
    s = checks.integer("side", side, low=1)
    if x.shape[1] != s * s:
        raise ValueError(f"images must have side**2 = {s * s} columns, got {x.shape[1]}")
    img = x.reshape(-1, 1, s, s)
    pad = torch.nn.functional.pad(img, (1, 1, 1, 1), mode="replicate")
    patches = torch.nn.functional.unfold(pad, 3)  # (B, 9, s*s)
    return x - patches.median(dim=1).values


def steganalyser_auc(
    cover: torch.Tensor,
    stego: torch.Tensor,
    *,
    folds: int = 5,
    C: float = 0.1,
    squared: bool = False,
    seed: int = 0,
) -> float:
    """Cross-validated ROC AUC of a logistic-regression steganalyser (standardised features:
    pixels and the 3×3-median residual, optionally its square), cover = 0, stego = 1."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.metrics import roc_auc_score
    from sklearn.model_selection import StratifiedKFold, cross_val_predict
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    c = _float_matrix("cover", cover)
    s = _float_matrix("stego", stego)
    if c.shape[1] != s.shape[1]:
        raise ValueError("stego must have as many columns as cover")
    k = checks.integer("folds", folds, low=2, high=min(c.shape[0], s.shape[0]))
    cc = checks.real("C", C, low=0.0, strict=True)
    x = torch.cat([c, s]).to(torch.float64)
    res = median_residual(x)
    feats = [x, res] + ([res**2] if squared else [])
    X = torch.cat(feats, 1).cpu().numpy()
    y = np.r_[np.zeros(c.shape[0]), np.ones(s.shape[0])]
    clf = make_pipeline(StandardScaler(), LogisticRegression(C=cc, max_iter=2000))
    cv = StratifiedKFold(k, shuffle=True, random_state=checks.integer("seed", seed, low=0))
    p = cross_val_predict(clf, X, y, cv=cv, method="predict_proba")[:, 1]
    return float(roc_auc_score(y, p))
