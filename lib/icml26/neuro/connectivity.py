"""Functional connectivity between EEG channels (chapter 19, rector).

The affinities a functional partition can be drawn from (:prf:ref:`rector-def-afp`): the
phase-locking value and the coherence in a frequency band, estimated the way
mne-connectivity's ``spectral_connectivity_epochs(mode="fourier")`` does (de-meaned,
Hann-tapered epochs, FFT bins of the band averaged), and the mean absolute correlation of
the windows, the raw-data baseline.
"""

from __future__ import annotations

import numpy as np

from icml26 import checks

__all__ = ["coherence", "mean_abs_correlation", "phase_sum", "plv"]


def _epochs(x: object) -> np.ndarray:
    """``x`` as a finite, non-empty float64 ``(N, C, L)`` array of epochs."""
    x = np.asarray(x)
    checks.shape("x", x, (None, None, None))
    if not np.issubdtype(x.dtype, np.floating):
        raise ValueError(f"x must be floating point, got {x.dtype}")
    if 0 in x.shape or x.shape[-1] < 2:
        raise ValueError(f"x must hold at least one epoch of two samples, got {x.shape}")
    checks.finite("x", x)
    return x.astype(np.float64)


def _band_spectra(x: object, fs: float, band: tuple[float, float]) -> np.ndarray:
    """Hann-tapered FFT coefficients of the bins in ``band``: ``(N, C, F)``."""
    x = _epochs(x)
    fs = checks.real("fs", fs, low=0.0, strict=True)
    if not isinstance(band, tuple | list) or len(band) != 2:
        raise ValueError(f"band must be a pair (low, high), got {band!r}")
    lo = checks.real("band[0]", band[0])
    hi = checks.real("band[1]", band[1])
    if not 0 <= lo < hi <= fs / 2:
        raise ValueError(f"band must satisfy 0 <= low < high <= fs/2, got {band}")
    f = np.fft.rfftfreq(x.shape[-1], 1 / fs)
    keep = (f >= lo) & (f <= hi)
    if not keep.any():
        raise ValueError(f"band {band} holds no frequency bin of a {x.shape[-1]}-sample epoch")
    xw = (x - x.mean(-1, keepdims=True)) * np.hanning(x.shape[-1])
    return np.fft.rfft(xw, axis=-1)[..., keep]


def phase_sum(x: np.ndarray, fs: float, band: tuple[float, float]) -> np.ndarray:
    """Sum over epochs of the unit cross-spectral phasors ``S_c S_d^* / |S_c S_d^*|`` at each
    FFT bin of ``band``: ``(C, C, F)`` complex. Sums of several batches add up, so the
    phase-locking value of a stream of windows can be accumulated batch by batch."""
    S = _band_spectra(x, fs, band)
    u = S / np.maximum(np.abs(S), 1e-300)
    return np.einsum("ncf,ndf->cdf", u, u.conj())


def plv(x: np.ndarray, fs: float, band: tuple[float, float]) -> np.ndarray:
    """Phase-locking value between channels, averaged over the frequencies of ``band``.

    ``x`` is ``(N, C, L)`` epochs; at each FFT bin ``f`` in ``band``,
    ``PLV_cd(f) = |mean_n S_c S_d^* / |S_c S_d^*||``, then the mean over the bins: ``(C, C)``.
    """
    return np.abs(phase_sum(x, fs, band) / len(x)).mean(-1)


def coherence(x: np.ndarray, fs: float, band: tuple[float, float]) -> np.ndarray:
    """Magnitude coherence ``|S_cd| / sqrt(S_cc S_dd)`` averaged over the bins of ``band``.

    Cross- and auto-spectra are averaged over the ``N`` epochs first: ``(C, C)``.
    """
    S = _band_spectra(x, fs, band)
    csd = np.einsum("ncf,ndf->cdf", S, S.conj()) / len(S)
    power = np.real(np.einsum("ccf->cf", csd))
    return (np.abs(csd) / np.sqrt(np.maximum(power[:, None] * power[None], 1e-300))).mean(-1)


def mean_abs_correlation(x: np.ndarray) -> np.ndarray:
    """Mean over windows of the absolute Pearson correlation between channels: ``(C, C)``."""
    x = _epochs(x)
    z = x - x.mean(-1, keepdims=True)
    z /= np.maximum(np.linalg.norm(z, axis=-1, keepdims=True), 1e-300)
    return np.abs(np.einsum("ncl,ndl->ncd", z, z)).mean(0)
