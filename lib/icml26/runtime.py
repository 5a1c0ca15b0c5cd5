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
    "NUMERIC_PROFILES",
    "SCALES",
    "device",
    "numeric_env",
    "pick",
    "progress",
    "scale",
    "seed_everything",
]

SCALES = ("ci", "paper")
T = TypeVar("T")

#: The numeric configurations (see :func:`numeric_env`): ``book`` is the one every chapter's
#: committed outputs are written and checked under; ``other-machine`` deliberately differs
#: from it in every knob, to show that the outputs do not depend on it (``make test-portable``).
NUMERIC_PROFILES = ("book", "other-machine")


def _cpu_flags() -> set[str]:
    """The CPU feature flags of this machine (Linux ``/proc/cpuinfo``; empty elsewhere)."""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("flags"):
                    return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()


def _numpy_dispatch(prefixes: tuple[str, ...]) -> list[str]:
    """The targets this NumPy build dispatches to at run time whose names start with one of
    ``prefixes`` (NumPy rejects names outside its dispatch list)."""
    try:
        from numpy._core._multiarray_umath import __cpu_dispatch__
    except ImportError:  # pragma: no cover - NumPy < 2
        return []
    return [t for t in __cpu_dispatch__ if t.startswith(prefixes)]


def numeric_env(profile: str = "book") -> dict[str, str]:
    """The environment that pins the CPU code paths of torch, MKL, oneDNN and NumPy.

    It must be in place before those libraries load, so it is set in the environment of every
    process that runs a chapter: the kernels of ``make notebooks`` and nbval, the Jupyter
    kernel of ``make lab`` (its kernelspec), and ``make bench``. On x86-64 with AVX2 the
    ``book`` profile asks every library for its AVX2 code path, so that a machine with
    AVX-512 computes what an AVX2 machine does: ATen's CPU capability, MKL's conditional
    numerical reproducibility branch (torch's BLAS), oneDNN's ISA, and NumPy's dispatch
    (its AVX-512 targets disabled). Elsewhere (ARM, no AVX2) nothing is pinned but the
    threads. One thread everywhere, so that reductions run in one order. OpenBLAS (NumPy's
    and SciPy's BLAS) keeps the code path it chooses for the machine (Haswell, SkylakeX,
    Zen, ...): what that changes is absorbed by the tolerant comparison of
    ``icml26.pipeline.compare``.

    ``other-machine`` changes every code-path knob at once (no vectorised ATen kernels, MKL's
    compatible branch, oneDNN limited to SSE4.1, NumPy on its baseline, OpenBLAS on its
    Sandybridge kernels, AVX without FMA): run under it, the committed outputs must still
    compare equal (``make test-portable``). It keeps one thread:
    the book pins the thread count on every machine, so a reader's run never differs in it
    (and two threads per kernel beside two test workers would oversubscribe CI's two cores).
    """
    if profile not in NUMERIC_PROFILES:
        raise ValueError(f"profile must be one of {NUMERIC_PROFILES}, got {profile!r}")
    import platform

    env = {k: "1" for k in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS")}
    if platform.machine().lower() not in ("x86_64", "amd64") or "avx2" not in _cpu_flags():
        return env
    avx512 = _numpy_dispatch(("X86_V4", "AVX512"))
    if profile == "book":
        env |= {
            "ATEN_CPU_CAPABILITY": "avx2",
            "MKL_CBWR": "AVX2",
            "ONEDNN_MAX_CPU_ISA": "AVX2",
        }
        if avx512:
            env["NPY_DISABLE_CPU_FEATURES"] = " ".join(avx512)
    else:
        env |= {
            "ATEN_CPU_CAPABILITY": "default",
            "MKL_CBWR": "COMPATIBLE",
            "ONEDNN_MAX_CPU_ISA": "SSE41",
            "NPY_DISABLE_CPU_FEATURES": " ".join(_numpy_dispatch(("X86_V3",)) + avx512),
            "OPENBLAS_CORETYPE": "Sandybridge",
        }
    return env


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
