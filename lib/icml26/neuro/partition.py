"""Functional partitions of the channels (chapter 19, rector).

Normalised spectral clustering of an affinity (:prf:ref:`rector-lem-spectral`), the
adaptive functional partition annealed from anatomy to function
(:prf:ref:`rector-def-afp`), the affinity an encoder has learned (its connectivity graph
averaged over windows), and the relabelling that keeps region ids stable across updates.
"""

from __future__ import annotations

import numpy as np
import torch

from icml26 import checks
from icml26.neuro.encoder import RectorEncoder, channel_graph

__all__ = [
    "adaptive_partition",
    "align_labels",
    "learned_affinity",
    "spectral_partition",
]


def _labels(name: str, labels: object, n: int | None = None) -> np.ndarray:
    """``labels`` as a vector of non-negative integers (of length ``n`` when given)."""
    a = np.asarray(labels)
    if a.dtype == bool or not np.issubdtype(a.dtype, np.integer):
        raise ValueError(f"{name} must hold integer labels, got dtype {a.dtype}")
    checks.shape(name, a, (n,))
    if len(a) == 0 or a.min() < 0:
        raise ValueError(f"{name} must be a non-empty vector of non-negative labels")
    return a.astype(np.int64)


def _affinity(name: str, W: object, n: int | None = None) -> np.ndarray:
    """``W`` as a finite, symmetric, non-negative float64 ``(n, n)`` matrix."""
    W = checks.as_float64(name, W)
    checks.shape(name, W, (n, W.shape[0] if W.ndim == 2 else None))
    checks.finite(name, W)
    if len(W) == 0 or (W < 0).any() or not np.allclose(W, W.T):
        raise ValueError(f"{name} must be a non-empty, symmetric, non-negative matrix")
    return W


def align_labels(labels: np.ndarray, reference: np.ndarray) -> np.ndarray:
    """Relabel ``labels`` to maximise overlap with ``reference`` (Hungarian matching)."""
    from scipy.optimize import linear_sum_assignment

    reference = _labels("reference", reference)
    labels = _labels("labels", labels, len(reference))
    k = int(max(labels.max(), reference.max())) + 1
    overlap = np.zeros((k, k))
    np.add.at(overlap, (labels, reference), 1)
    rows, cols = linear_sum_assignment(-overlap)
    mapping = np.empty(k, dtype=np.int64)
    mapping[rows] = cols
    return mapping[labels]


def spectral_partition(W: np.ndarray, k: int, *, seed: int = 0) -> np.ndarray:
    """Normalised spectral clustering of a symmetric affinity ``W >= 0`` into ``k`` groups.

    Ng-Jordan-Weiss (:prf:ref:`rector-lem-spectral`): the top-``k`` eigenvectors of
    ``D^-1/2 W D^-1/2``, rows normalised, then k-means.
    """
    from sklearn.cluster import KMeans

    W = _affinity("W", W)
    k = checks.integer("k", k, low=1, high=W.shape[0])
    checks.integer("seed", seed, low=0)
    d = W.sum(1)
    dinv = 1.0 / np.sqrt(np.maximum(d, 1e-12))
    _, vecs = np.linalg.eigh(dinv[:, None] * W * dinv[None])
    U = vecs[:, -k:]
    U = U / np.maximum(np.linalg.norm(U, axis=1, keepdims=True), 1e-12)
    return KMeans(k, n_init=10, random_state=seed).fit_predict(U)


def adaptive_partition(
    anatomical: np.ndarray, W_func: np.ndarray, eta: float, k: int, *, seed: int = 0
) -> np.ndarray:
    """Adaptive functional partition (:prf:ref:`rector-def-afp`), a hard partition.

    At ``eta = 0`` the anatomical partition; otherwise spectral clustering into ``k`` groups of
    ``(1 - eta) W_anat + eta W_func``, with ``W_anat`` the same-region indicator.
    """
    anatomical = _labels("anatomical", anatomical)
    W_func = _affinity("W_func", W_func, len(anatomical))
    eta = checks.real("eta", eta, low=0.0, high=1.0)
    k = checks.integer("k", k, low=1, high=len(anatomical))
    if eta == 0.0:
        return anatomical.copy()
    W_anat = (anatomical[:, None] == anatomical[None]).astype(np.float64)
    return spectral_partition((1 - eta) * W_anat + eta * W_func, k, seed=seed)


def learned_affinity(
    enc: RectorEncoder,
    x: torch.Tensor,
    pos: object,
    regions: object,
    *,
    batch: int = 256,
) -> np.ndarray:
    """The affinity an encoder has learned: the mean over windows of ``|H Hᵀ|``
    (:func:`~icml26.neuro.encoder.channel_graph`) on unmasked patches ``x`` ``(N, C, T, P)``.
    """
    if not isinstance(enc, RectorEncoder):
        raise ValueError(f"enc must be a RectorEncoder, got {type(enc).__name__}")
    checks.tensor("x", x, ndim=4, floating=True)
    if len(x) == 0:
        raise ValueError("x must hold at least one window")
    batch = checks.integer("batch", batch, low=1)
    pos_t = torch.as_tensor(checks.as_float64("pos", pos), dtype=torch.float32)
    total = torch.zeros(x.shape[1], x.shape[1], dtype=torch.float64)
    was_training = enc.training
    enc.eval()
    with torch.no_grad():
        for i in range(0, len(x), batch):
            g = channel_graph(enc(x[i : i + batch], pos_t, regions))
            total += g.abs().sum(0).double().cpu()
    enc.train(was_training)
    W = (total / len(x)).numpy()
    return (W + W.T) / 2
