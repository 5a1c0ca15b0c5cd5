"""Simulated EEG on a real montage, and its patches (chapter 19, rector).

Five latent AR(2) sources on the scalp sphere reach the electrodes with Gaussian weights;
every channel adds a pink background; volume conduction smooths the scalp signal over
neighbouring electrodes; sensors add white noise. Two binary labels per window: ``y``
("arousal") scales the 10 Hz source up and the 20 Hz source down, a change of per-channel
spectra; ``v`` ("valence") makes a copy of the 10 Hz source that reaches a second source's
region either phase-locked to the original (``v = 1``) or independent of it (``v = 0``), a
change of cross-channel coupling that leaves every channel's spectrum as it was.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from icml26 import checks
from icml26.neuro.montage import _positions, functional_regions

__all__ = ["PEAKS_HZ", "EEGData", "patchify", "simulate_eeg"]

#: Resonance frequencies (Hz) of the latent sources; source ``j`` peaks at ``PEAKS_HZ[j]``.
PEAKS_HZ = (6.0, 10.0, 13.0, 20.0, 30.0)
_ALPHA, _BETA = PEAKS_HZ.index(10.0), PEAKS_HZ.index(20.0)
_BURN = 256  # samples discarded while the resonators settle


@dataclass(frozen=True)
class EEGData:
    """Simulated windows ``x`` ``(N, C, L)``; labels ``y`` (arousal) and ``v`` (valence);
    ``subject`` ids; ``functional`` the true functional region of each channel."""

    x: np.ndarray
    y: np.ndarray
    v: np.ndarray
    subject: np.ndarray
    functional: np.ndarray
    fs: float


def _ar2(peak: float, fs: float, radius: float) -> tuple[np.ndarray, float]:
    """AR(2) resonator at ``peak`` Hz: denominator and the impulse response's norm."""
    from scipy.signal import lfilter

    a = np.array([1.0, -2 * radius * np.cos(2 * np.pi * peak / fs), radius**2])
    h = lfilter([1.0], a, np.r_[1.0, np.zeros(4095)])
    return a, float(np.sqrt((h**2).sum()))


def _resonate(white: np.ndarray, peak: float, fs: float, radius: float) -> np.ndarray:
    """Unit-variance AR(2) process at ``peak`` Hz driven by ``white`` ``(..., burn + L)``."""
    from scipy.signal import lfilter

    a, g = _ar2(peak, fs, radius)
    return lfilter([1.0], a, white, axis=-1)[..., _BURN:] / g


def _pink(rng: np.random.Generator, shape: tuple[int, ...], n: int) -> np.ndarray:
    """Unit-variance 1/f noise of length ``n`` for every index of ``shape``."""
    spec = rng.standard_normal((*shape, n // 2 + 1)) + 1j * rng.standard_normal(
        (*shape, n // 2 + 1)
    )
    f = np.arange(n // 2 + 1, dtype=np.float64)
    f[0] = 1.0
    x = np.fft.irfft(spec / np.sqrt(f), n=n, axis=-1)
    return x / x.std(axis=-1, keepdims=True)


def _conduction(pos: np.ndarray, width: float) -> np.ndarray:
    """Row-normalised Gaussian smoothing over the electrodes (the identity at width 0)."""
    if width == 0:
        return np.eye(len(pos))
    K = np.exp(-((pos[:, None] - pos[None]) ** 2).sum(-1) / (2 * width**2))
    return K / K.sum(1, keepdims=True)


def _sources(
    r: np.random.Generator, n_windows: int, n_samples: int, fs: float, p: dict
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One subject's labels ``y``, ``v`` and source signals ``(n_windows, S, L)``.

    Drawn before anything that depends on the montage, so that a subject recorded on two
    montages has the same labels and sources.
    """
    S = len(PEAKS_HZ)
    y = r.permutation(np.arange(n_windows) % 2)
    v = r.permutation(np.arange(n_windows) % 2)
    white = r.standard_normal((n_windows, S + 1, n_samples + _BURN))
    src = np.stack([_resonate(white[:, j], PEAKS_HZ[j], fs, p["radius"]) for j in range(S)], 1)
    spare = _resonate(white[:, S], PEAKS_HZ[_ALPHA], fs, p["radius"])  # an independent alpha
    amp = np.ones((n_windows, S))
    amp[y == 1, _ALPHA] = p["alpha_gain"]
    amp[y == 1, _BETA] = p["beta_gain"]
    src = amp[:, :, None] * src
    alpha_copy = np.where(v[:, None] == 1, src[:, _ALPHA], amp[:, _ALPHA, None] * spare)
    src[:, p["target"]] += p["coupling"] * alpha_copy
    return y, v, src


def _check_simulation(pos: np.ndarray, centres: object, p: dict) -> np.ndarray:
    """Validate the generator's settings ``p``; return ``centres`` as an array."""
    centres = _positions("centres", centres, len(PEAKS_HZ))
    checks.real("fs", p["fs"], low=0.0, strict=True)
    checks.integer("n_samples", p["n_samples"], low=8)
    checks.real("rho", p["rho"], low=0.0, strict=True)
    checks.real("radius", p["radius"], low=0.0, high=1.0, strict=True)
    for name in ("pink_std", "noise_std", "alpha_gain", "beta_gain", "conduction", "coupling"):
        checks.real(name, p[name], low=0.0)
    checks.integer("target", p["target"], low=0, high=len(PEAKS_HZ) - 1)
    if p["target"] == _ALPHA:
        raise ValueError("target must differ from the 10 Hz source it is coupled to")
    checks.integer("first_subject", p["first_subject"], low=0)
    if max(PEAKS_HZ) >= p["fs"] / 2:
        raise ValueError(f"fs must exceed twice the highest peak {max(PEAKS_HZ)} Hz")
    return centres


def simulate_eeg(
    pos: np.ndarray,
    centres: np.ndarray,
    n_subjects: int,
    n_windows: int,
    *,
    seed: int,
    fs: float = 128.0,
    n_samples: int = 128,
    rho: float = 0.03,
    radius: float = 0.96,
    pink_std: float = 0.5,
    noise_std: float = 0.2,
    alpha_gain: float = 1.6,
    beta_gain: float = 0.7,
    coupling: float = 0.5,
    target: int = 0,
    first_subject: int = 0,
    conduction: float = 0.0,
) -> EEGData:
    """Synthetic EEG on a montage: AR(2) sources at :data:`PEAKS_HZ`, Gaussian mixing.

    ``x_c = g_c (K (Σ_j w_cj s_j + pink))_c + noise`` with ``w_cj = exp(-|pos_c - ctr_j|²/2ρ²)``
    and ``K`` the volume-conduction kernel of width ``conduction`` (metres; the identity at
    0). Per subject, channel gains ``g_c ~ U(0.8, 1.2)`` and centres jittered by 1 cm.
    ``y = 1`` multiplies the 10 Hz source by ``alpha_gain`` and the 20 Hz source by
    ``beta_gain``; source ``target`` receives ``coupling`` times a 10 Hz signal that is the
    10 Hz source itself when ``v = 1`` and an independent copy of it when ``v = 0``.
    Subjects are seeded by ``(seed, first_subject + s)``; labels and sources are drawn before
    anything montage-dependent, so the same subject can be recorded on two montages.
    """
    pos = _positions("pos", pos)
    n_subjects = checks.integer("n_subjects", n_subjects, low=1)
    n_windows = checks.integer("n_windows", n_windows, low=2)
    checks.integer("seed", seed, low=0)
    p = {
        "fs": fs,
        "n_samples": n_samples,
        "rho": rho,
        "radius": radius,
        "pink_std": pink_std,
        "noise_std": noise_std,
        "alpha_gain": alpha_gain,
        "beta_gain": beta_gain,
        "coupling": coupling,
        "target": target,
        "first_subject": first_subject,
        "conduction": conduction,
    }
    centres = _check_simulation(pos, centres, p)
    K, S = _conduction(pos, float(conduction)), len(PEAKS_HZ)
    xs, ys, vs, subj = [], [], [], []
    for s in range(n_subjects):
        sid = first_subject + s
        r = np.random.default_rng([seed, sid])
        ctr = centres + 0.01 * r.standard_normal((S, 3))
        y, v, src = _sources(r, n_windows, n_samples, fs, p)
        w = np.exp(-((pos[:, None] - ctr[None]) ** 2).sum(-1) / (2 * rho**2))  # (C, S)
        gain = r.uniform(0.8, 1.2, len(pos))
        scalp = np.einsum("cs,nsl->ncl", w, src) + pink_std * _pink(
            r, (n_windows, len(pos)), n_samples
        )
        noise = noise_std * r.standard_normal(scalp.shape)
        xs.append(gain[None, :, None] * np.einsum("cd,ndl->ncl", K, scalp) + noise)
        ys.append(y)
        vs.append(v)
        subj.append(np.full(n_windows, sid))
    return EEGData(
        x=np.concatenate(xs).astype(np.float32),
        y=np.concatenate(ys),
        v=np.concatenate(vs),
        subject=np.concatenate(subj),
        functional=functional_regions(pos, centres),
        fs=float(fs),
    )


def patchify(x: np.ndarray | torch.Tensor, patch: int) -> torch.Tensor:
    """Per-window, per-channel z-score, then cut into patches: ``(N, C, L) → (N, C, T, P)``."""
    if not isinstance(x, torch.Tensor):
        a = np.asarray(x)
        if not np.issubdtype(a.dtype, np.number):
            raise ValueError(f"x must be an array of numbers, got {type(x).__name__}")
        x = torch.as_tensor(a)
    checks.shape("x", x, (None, None, None))
    if not x.is_floating_point():
        raise ValueError(f"x must be floating point, got {x.dtype}")
    if x.numel() == 0:
        raise ValueError("x must not be empty")
    checks.finite("x", x)
    patch = checks.integer("patch", patch, low=1)
    if x.shape[-1] % patch:
        raise ValueError(f"patch must divide the window length {x.shape[-1]}, got {patch}")
    z = (x - x.mean(-1, keepdim=True)) / (x.std(-1, keepdim=True) + 1e-6)
    return z.reshape(*x.shape[:2], x.shape[-1] // patch, patch)
