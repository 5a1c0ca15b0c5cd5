"""Reproducibility and scale: seeding, device choice and the ``ICML26_SCALE`` knob.

Every notebook calls :func:`seed_everything` once at the top and takes all of its sizes from
one parameters cell built with :func:`pick`, so that ``ICML26_SCALE=paper`` switches the
whole chapter to paper-sized runs.
"""

from __future__ import annotations

import os
import random
from typing import TypeVar

import numpy as np
import torch

__all__ = [
    "SCALES",
    "device",
    "pick",
    "progress",
    "scale",
    "seed_everything",
]

SCALES = ("ci", "paper")
T = TypeVar("T")


def seed_everything(seed: int, *, deterministic: bool = True) -> np.random.Generator:
    """Seed Python, NumPy and torch (CPU and CUDA) and return a fresh NumPy ``Generator``.

    With ``deterministic=True`` torch is asked for deterministic algorithms where they exist
    (``warn_only``: kernels without a deterministic variant still run).
    """
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise ValueError(f"seed must be an integer, got {seed!r}")
    if not 0 <= int(seed) < 2**32:
        raise ValueError(f"seed must lie in [0, 2**32), got {seed}")
    seed = int(seed)
    random.seed(seed)
    np.random.seed(seed)  # noqa: NPY002 (legacy global generator, still used by libraries)
    torch.manual_seed(seed)
    if torch.cuda.is_available():
        torch.cuda.manual_seed_all(seed)
    if deterministic:
        os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
        torch.use_deterministic_algorithms(True, warn_only=True)
        torch.backends.cudnn.benchmark = False
    return np.random.default_rng(seed)


def device() -> torch.device:
    """The compute device: ``ICML26_DEVICE`` if set, else CUDA when present, else the CPU."""
    name = os.environ.get("ICML26_DEVICE", "").strip()
    if name:
        try:
            dev = torch.device(name)
        except RuntimeError as err:
            raise ValueError(f"ICML26_DEVICE={name!r} is not a torch device") from err
        if dev.type == "cuda" and not torch.cuda.is_available():
            raise ValueError(f"ICML26_DEVICE={name!r} but CUDA is not available")
        return dev
    return torch.device("cuda" if torch.cuda.is_available() else "cpu")


def scale() -> str:
    """The run scale from ``ICML26_SCALE``: ``"ci"`` (default, 2 CPU cores) or ``"paper"``."""
    value = os.environ.get("ICML26_SCALE", "ci").strip().lower() or "ci"
    if value not in SCALES:
        raise ValueError(f"ICML26_SCALE must be one of {SCALES}, got {value!r}")
    return value


def pick(ci: T, paper: T) -> T:
    """Return ``ci`` or ``paper`` according to :func:`scale` (for the parameters cell)."""
    return paper if scale() == "paper" else ci


def progress(iterable=None, **kwargs):
    """A ``tqdm.auto`` progress bar; silent when ``ICML26_PROGRESS=0``.

    The committed notebooks are executed with ``ICML26_PROGRESS=0`` (by ``make notebooks`` and
    nbval), so bars show for a reader in JupyterLab but never enter the checked outputs.
    """
    from tqdm.auto import tqdm

    if os.environ.get("ICML26_PROGRESS", "1").strip() == "0":
        kwargs["disable"] = True
    return tqdm(iterable, **kwargs)
