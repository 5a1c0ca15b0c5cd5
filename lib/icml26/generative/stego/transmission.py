"""The embedders, the channel and the decoders of chapter 10 (asir).

The antipodal and independent embedders (:func:`antipodal_noise`, :func:`independent_noise`,
:prf:ref:`asir-def-antipodal`), 8-bit rounding and additive noise (:func:`quantise`,
:func:`channel`), nearest-hypothesis decoding (:func:`nearest_hypothesis`) and its per-cell
margin (:func:`decoding_margin`), and the closed-form bit error rates of :prf:ref:`asir-thm-ber`
(:func:`ber_antipodal`, :func:`ber_independent`).
"""

from __future__ import annotations

import numpy as np
import torch

from icml26 import checks
from icml26.generative.stego.kde import _finite_tensor

__all__ = [
    "antipodal_noise",
    "ber_antipodal",
    "ber_independent",
    "channel",
    "decoding_margin",
    "independent_noise",
    "nearest_hypothesis",
    "quantise",
]


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
