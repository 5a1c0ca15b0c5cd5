"""Timing inside one worker process of ``make bench``.

- Every callable is timed with ``torch.utils.benchmark.Timer`` on a fixed number of threads
  (``THREADS``). Its block size (calls per timed block) is calibrated once, in the warm-up, by
  ``blocked_autorange``; a measurement is then the median of blocks of that size until
  ``min_run_time`` seconds have been spent (one block for a callable slower than that).
- Kernel, reference and library are measured **interleaved**, in rounds (the order rotated
  each round), and a ratio is formed *within* each round, so that a slow-down of the machine
  during the run hits both sides of a ratio and cancels (:func:`measure`).
- The median over rounds is the worker's ratio; the spread over rounds (half the
  interquartile range, :class:`Ratio`) is the *within-run* spread. It understates how far a
  rerun moves: the between-run interval is formed over independent worker processes
  (:mod:`benchmarks.workers`, :mod:`benchmarks.intervals`).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from torch.utils import benchmark

__all__ = [
    "SIDES",
    "THREADS",
    "Ratio",
    "Timed",
    "measure",
    "scaling_curve",
    "seconds",
    "slowed",
]

THREADS = 1
#: The sides of a case, in the order they are registered.
SIDES = ("kernel", "reference", "library")


def seconds(fn: Callable[[], object], *, min_run_time: float = 0.2) -> float:
    """Median seconds per call of ``fn`` by ``blocked_autorange`` on ``THREADS`` threads."""
    timer = benchmark.Timer(stmt="fn()", globals={"fn": fn}, num_threads=THREADS)
    return float(timer.blocked_autorange(min_run_time=min_run_time).median)


class Timed:
    """One callable with its block size calibrated (the first call is the warm-up)."""

    def __init__(self, fn: Callable[[], object], *, min_run_time: float) -> None:
        if min_run_time <= 0:
            raise ValueError(f"min_run_time must be > 0, got {min_run_time}")
        self.min_run_time = min_run_time
        self.timer = benchmark.Timer(stmt="fn()", globals={"fn": fn}, num_threads=THREADS)
        start = time.perf_counter()
        fn()  # warm-up: caches, allocator, lazy imports
        if time.perf_counter() - start >= min_run_time:
            self.number = 1
        else:
            auto = self.timer.blocked_autorange(min_run_time=min_run_time)
            self.number = int(auto.number_per_run)

    def __call__(self) -> float:
        """Seconds per call: the median of calibrated blocks over ``min_run_time``."""
        per_call, total = [], 0.0
        while total < self.min_run_time or not per_call:
            m = self.timer.timeit(self.number)
            per_call.append(float(m.median))
            total += float(m.median) * self.number
        return float(np.median(per_call))


def slowed(fn: Callable[[], object], factor: int = 2) -> Callable[[], object]:
    """``fn`` made ``factor`` times slower by calling it ``factor`` times (a regression
    injected on purpose, to show that ``make bench-check`` catches it)."""
    if factor < 1:
        raise ValueError(f"factor must be >= 1, got {factor}")

    def run() -> object:
        for _ in range(factor - 1):
            fn()
        return fn()

    return run


def measure(
    sides: dict[str, Callable[[], object]], *, rounds: int, min_run_time: float
) -> dict[str, list[float]]:
    """Seconds per call of each side, over ``rounds`` interleaved rounds (order rotated)."""
    if rounds < 1:
        raise ValueError(f"rounds must be >= 1, got {rounds}")
    if "kernel" not in sides or len(sides) < 2:
        raise ValueError("sides must hold the kernel and a reference or a library")
    timed = [(k, Timed(f, min_run_time=min_run_time)) for k, f in sides.items()]
    times: dict[str, list[float]] = {k: [] for k in sides}
    for r in range(rounds):
        shift = r % len(timed)
        for k, t in timed[shift:] + timed[:shift]:
            times[k].append(t())
    return times


@dataclass(frozen=True)
class Ratio:
    """A ratio of times (other / kernel) over the rounds of one run: median and quartiles."""

    median: float
    q25: float
    q75: float

    @classmethod
    def of(cls, values: list[float]) -> Ratio:
        q25, q50, q75 = np.quantile(np.asarray(values, dtype=float), [0.25, 0.5, 0.75])
        return cls(float(q50), float(q25), float(q75))

    @classmethod
    def between(cls, other: list[float], kernel: list[float]) -> Ratio:
        return cls.of([o / k for o, k in zip(other, kernel, strict=True)])

    @property
    def spread(self) -> float:
        """Half the interquartile range, relative to the median (0.1 = ±10 %)."""
        return (self.q75 - self.q25) / (2 * self.median) if self.median > 0 else float("inf")


def scaling_curve(
    make: Callable[[int], Callable[[], object]], sizes: tuple[int, ...]
) -> tuple[list[float], float, float]:
    """Seconds per call at each size, and the log-log slopes over the lower and upper halves.

    A slope near 0 means the kernel is overhead-bound (fixed costs dominate); near 1, it is
    bound by the work, linearly.
    """
    from icml26.stats import loglog_fit

    times = []
    for n in sizes:  # no torch.no_grad(): some kernels differentiate (chapter 18)
        fn = make(n)
        fn()
        times.append(seconds(fn, min_run_time=0.1))
    half = max(2, (len(sizes) + 1) // 2)
    low = loglog_fit(sizes[:half], times[:half])[0]
    high = loglog_fit(sizes[-half:], times[-half:])[0]
    return times, low, high
