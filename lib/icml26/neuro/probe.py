"""Frozen features and linear probes (chapter 19, rector).

Window embeddings of a frozen encoder, the classical log band-power features, a
standardised logistic-regression probe scored by weighted F1, and the zero-shot test with
channels removed at test time (their tokens left out, the probe unchanged).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from icml26 import checks
from icml26.neuro.encoder import RectorEncoder, channel_graph

__all__ = [
    "BANDS_HZ",
    "band_power_features",
    "embed",
    "encode",
    "graph_features",
    "graph_upper",
    "pooled",
    "probe_f1",
    "removal_f1",
]

#: The frequency bands (Hz) of :func:`band_power_features`.
BANDS_HZ = ((4, 8), (8, 12), (12, 16), (16, 24), (24, 40))


def _check_encoder_input(enc: object, x: object, batch: int) -> int:
    if not isinstance(enc, RectorEncoder):
        raise ValueError(f"enc must be a RectorEncoder, got {type(enc).__name__}")
    x = checks.tensor("x", x, ndim=4, floating=True)
    if len(x) == 0:
        raise ValueError("x must hold at least one window")
    return checks.integer("batch", batch, low=1)


def encode(
    enc: RectorEncoder,
    x: torch.Tensor,
    pos: object,
    regions: object,
    *,
    names: list[str] | None = None,
    batch: int = 256,
) -> torch.Tensor:
    """Final channel tokens ``(N, T, C, d)`` of a frozen encoder on patches ``x``, on the CPU."""
    batch = _check_encoder_input(enc, x, batch)
    pos_t = torch.as_tensor(checks.as_float64("pos", pos), dtype=torch.float32)
    with torch.inference_mode():
        return torch.cat(
            [
                enc(x[i : i + batch], pos_t, regions, names=names).cpu()
                for i in range(0, len(x), batch)
            ]
        )


def pooled(h: torch.Tensor) -> np.ndarray:
    """Window embeddings from channel tokens ``h`` ``(N, T, C, d)``: the mean and standard
    deviation over channels and patches, ``(N, 2d)``."""
    checks.tensor("h", h, ndim=4, floating=True)
    checks.finite("h", h)
    mean = h.mean((1, 2))
    sd = ((h * h).mean((1, 2)) - mean * mean).clamp(min=0).sqrt()
    return torch.cat([mean, sd], -1).double().numpy()


def graph_upper(h: torch.Tensor, *, over_time: bool = False) -> np.ndarray:
    """The connectivity read-out of channel tokens ``h`` ``(N, T, C, d)``: the upper triangle
    of each window's :func:`~icml26.neuro.encoder.channel_graph` (time-pooled, or of the
    token trajectories with ``over_time=True``), ``(N, C(C-1)/2)``."""
    checks.tensor("h", h, ndim=4, floating=True)
    checks.finite("h", h)
    iu = torch.triu_indices(h.shape[2], h.shape[2], 1)
    return channel_graph(h, over_time=over_time)[:, iu[0], iu[1]].double().numpy()


def embed(
    enc: RectorEncoder,
    x: torch.Tensor,
    pos: object,
    regions: object,
    *,
    names: list[str] | None = None,
    batch: int = 256,
) -> np.ndarray:
    """Frozen window embeddings: :func:`pooled` of :func:`encode`, ``(N, 2d)``."""
    return pooled(encode(enc, x, pos, regions, names=names, batch=batch))


def graph_features(
    enc: RectorEncoder,
    x: torch.Tensor,
    pos: object,
    regions: object,
    *,
    batch: int = 256,
) -> np.ndarray:
    """The encoder's connectivity read-out: :func:`graph_upper` of :func:`encode`."""
    return graph_upper(encode(enc, x, pos, regions, batch=batch))


def band_power_features(x: np.ndarray, fs: float) -> np.ndarray:
    """Log Welch power in the bands :data:`BANDS_HZ` per channel: ``(N, C·5)``."""
    from scipy.signal import welch

    x = np.asarray(x)
    checks.shape("x", x, (None, None, None))
    if not np.issubdtype(x.dtype, np.floating) or 0 in x.shape:
        raise ValueError(f"x must be a non-empty floating-point array, got {x.dtype} {x.shape}")
    checks.finite("x", x)
    fs = checks.real("fs", fs, low=0.0, strict=True)
    if fs / 2 < BANDS_HZ[-1][1]:
        raise ValueError(f"fs must be at least {2 * BANDS_HZ[-1][1]} Hz, got {fs}")
    f, p = welch(x, fs=fs, nperseg=min(64, x.shape[-1]), axis=-1)
    bp = np.stack([p[..., (f >= lo) & (f < hi)].mean(-1) for lo, hi in BANDS_HZ], -1)
    return np.log(bp + 1e-12).reshape(len(x), -1)


def _probe(z_train: np.ndarray, y_train: np.ndarray, C: float) -> Any:
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    clf = make_pipeline(StandardScaler(), LogisticRegression(C=C, max_iter=2000))
    return clf.fit(z_train, y_train)


def _features(name: str, z: object, n: int, d: int | None = None) -> np.ndarray:
    z = checks.as_float64(name, z)
    checks.shape(name, z, (n, d))
    checks.finite(name, z)
    return z


def _targets(name: str, y: object) -> np.ndarray:
    y = np.asarray(y)
    if y.ndim != 1 or len(y) == 0:
        raise ValueError(f"{name} must be a non-empty vector of class labels")
    return y


def probe_f1(
    z_train: np.ndarray,
    y_train: np.ndarray,
    z_test: np.ndarray,
    y_test: np.ndarray,
    *,
    C: float = 1.0,
) -> float:
    """Weighted F1 of a standardised logistic-regression probe (train → test)."""
    from sklearn.metrics import f1_score

    y_train, y_test = _targets("y_train", y_train), _targets("y_test", y_test)
    if len(np.unique(y_train)) < 2:
        raise ValueError("y_train must hold at least two classes")
    z_train = _features("z_train", z_train, len(y_train))
    z_test = _features("z_test", z_test, len(y_test), z_train.shape[1])
    C = checks.real("C", C, low=0.0, strict=True)
    clf = _probe(z_train, y_train, C)
    return float(f1_score(y_test, clf.predict(z_test), average="weighted"))


def removal_f1(
    enc: RectorEncoder,
    z_train: np.ndarray,
    y_train: np.ndarray,
    x_test: torch.Tensor,
    y_test: np.ndarray,
    pos: np.ndarray,
    regions: np.ndarray,
    *,
    fraction: float,
    patterns: int,
    seed: int,
) -> float:
    """Mean weighted F1 with ``fraction`` of the channels removed at test time.

    The probe is fitted once on ``z_train`` (all channels); each of ``patterns`` random
    subsets of channels is then left out of ``x_test``, ``pos`` and ``regions`` (tokens
    removed, not zeroed) and the test windows are embedded again.
    """
    from sklearn.metrics import f1_score

    checks.tensor("x_test", x_test, ndim=4, floating=True)
    checks.finite("x_test", x_test)
    C = x_test.shape[1]
    pos = np.asarray(pos)
    checks.shape("pos", pos, (C, 3))
    regions = np.asarray(regions)
    checks.shape("regions", regions, (C,))
    fraction = checks.real("fraction", fraction, low=0.0, high=1.0)
    if C - round(fraction * C) < 1:
        raise ValueError(f"fraction must leave at least one of the {C} channels")
    patterns = checks.integer("patterns", patterns, low=1)
    y_test = _targets("y_test", y_test)
    checks.shape("x_test", x_test, (len(y_test), C, None, None))
    clf = _probe(_features("z_train", z_train, len(_targets("y_train", y_train))), y_train, 1.0)
    gen = np.random.default_rng(checks.integer("seed", seed, low=0))
    keep_n = C - round(fraction * C)
    scores = []
    for _ in range(patterns if fraction > 0 else 1):
        keep = np.sort(gen.choice(C, keep_n, replace=False))
        z = embed(enc, x_test[:, keep], pos[keep], regions[keep])
        scores.append(f1_score(y_test, clf.predict(z), average="weighted"))
    return float(np.mean(scores))
