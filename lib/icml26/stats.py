"""Small statistics and run helpers that several chapters use: log-log fits, thread pinning,
seeded random streams.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable, Iterator
from typing import TypeVar

import numpy as np
import torch

from icml26 import checks

__all__ = ["loglog_fit", "one_thread", "stream"]

F = TypeVar("F", bound=Callable[..., object])


def loglog_fit(x: object, y: object) -> tuple[float, float]:
    """Least-squares line through ``(log x, log y)``: returns ``(slope, intercept)``.

    The slope is the empirical exponent of ``y ∝ x^slope`` (a rate of convergence, the growth
    of regret, the cost of a kernel). ``x`` and ``y`` are 1-D, positive, of equal length ≥ 2,
    and ``x`` has at least two distinct values.
    """
    xs = np.asarray(x.detach().cpu() if isinstance(x, torch.Tensor) else x, dtype=np.float64)
    ys = np.asarray(y.detach().cpu() if isinstance(y, torch.Tensor) else y, dtype=np.float64)
    if xs.ndim != 1 or ys.ndim != 1 or xs.shape != ys.shape or xs.size < 2:
        raise ValueError(
            f"x and y must be 1-D of equal length >= 2, got shapes {xs.shape} and {ys.shape}"
        )
    for name, v in (("x", xs), ("y", ys)):
        checks.finite(name, v)
        if (v <= 0).any():
            raise ValueError(f"{name} must be positive for a log-log fit")
    if np.ptp(xs) == 0:
        raise ValueError("x must take at least two distinct values")
    slope, intercept = np.polyfit(np.log(xs), np.log(ys), 1)
    return float(slope), float(intercept)


@contextlib.contextmanager
def _pinned(n: int) -> Iterator[None]:
    before = torch.get_num_threads()
    torch.set_num_threads(n)
    try:
        yield
    finally:
        torch.set_num_threads(before)


def one_thread(fn: F | None = None, /):
    """Run torch on one intra-op thread: a context manager, or a decorator of ``fn``.

    Timings and reductions then do not depend on the machine's core count.
    """
    if fn is None:
        return _pinned(1)

    @functools.wraps(fn)
    def wrapped(*args, **kwargs):
        with _pinned(1):
            return fn(*args, **kwargs)

    return wrapped


def stream(seed: int, offset: int = 0, *, device: torch.device | str = "cpu") -> torch.Generator:
    """A fresh torch generator for experiment ``offset`` of run ``seed``: one independent,
    reproducible stream per experiment of a chapter, so that adding an experiment never
    shifts another's random numbers.

    The generator's seed is derived from the pair with :class:`numpy.random.SeedSequence`, so
    distinct pairs give independent streams (``stream(3, 1)`` and ``stream(4, 0)`` differ; a
    sum ``seed + offset`` would make them equal and correlate seeds with experiments).
    """
    seed = checks.integer("seed", seed, low=0)
    offset = checks.integer("offset", offset, low=0)
    state = np.random.SeedSequence([seed, offset]).generate_state(1, dtype=np.uint64)[0]
    return torch.Generator(device=device).manual_seed(int(state) % 2**63)
