"""The timing harness of ``make bench``: ratios you can trust from a noisy machine.

- Every callable is timed with ``torch.utils.benchmark.Timer.blocked_autorange`` (adaptive
  repeat counts, the median of its blocks) on a fixed number of threads (``THREADS``).
- Kernel, reference and library are measured **interleaved**, in rounds (the order rotated
  each round), and a ratio is formed *within* each round, so that a slow-down of the machine
  during the run hits both sides of a ratio and cancels.
- A ratio is reported as the median over rounds with its interquartile range; a row whose
  half-IQR exceeds ``FLAG_SPREAD`` (±25 %) of its median is flagged as unstable.
- :func:`consistent` is the self-check: two runs agree when their interquartile ranges
  overlap or their medians differ by less than ``AGREE_FLOOR`` (10 %).
"""

from __future__ import annotations

import statistics
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from torch.utils import benchmark

__all__ = [
    "AGREE_FLOOR",
    "FLAG_SPREAD",
    "THREADS",
    "Comparison",
    "Ratio",
    "compare",
    "consistent",
    "scaling_curve",
    "seconds",
]

THREADS = 1
FLAG_SPREAD = 0.25
AGREE_FLOOR = 0.10


def seconds(fn: Callable[[], object], *, min_run_time: float = 0.2) -> float:
    """Median seconds per call of ``fn`` by ``blocked_autorange`` on ``THREADS`` threads."""
    timer = benchmark.Timer(stmt="fn()", globals={"fn": fn}, num_threads=THREADS)
    return float(timer.blocked_autorange(min_run_time=min_run_time).median)


@dataclass(frozen=True)
class Ratio:
    """A ratio of times (other / kernel) over rounds: median and interquartile range."""

    median: float
    q25: float
    q75: float

    @classmethod
    def of(cls, values: list[float]) -> Ratio:
        q25, q50, q75 = np.quantile(np.asarray(values, dtype=float), [0.25, 0.5, 0.75])
        return cls(float(q50), float(q25), float(q75))

    @property
    def spread(self) -> float:
        """Half the interquartile range, relative to the median (0.1 = ±10 %)."""
        return (self.q75 - self.q25) / (2 * self.median) if self.median > 0 else float("inf")

    @property
    def flagged(self) -> bool:
        return self.spread > FLAG_SPREAD

    def text(self) -> str:
        flag = " ⚠" if self.flagged else ""
        return f"{self.median:.1f}× ± {100 * self.spread:.0f}%{flag}"


@dataclass(frozen=True)
class Comparison:
    kernel_s: float
    reference_s: float | None
    library_s: float | None
    reference: Ratio | None
    library: Ratio | None


def compare(
    kernel: Callable[[], object],
    reference: Callable[[], object] | None = None,
    library: Callable[[], object] | None = None,
    *,
    rounds: int = 5,
    min_run_time: float = 0.2,
) -> Comparison:
    """Time kernel, reference and library interleaved over ``rounds`` rounds (see the module)."""
    if rounds < 1:
        raise ValueError(f"rounds must be >= 1, got {rounds}")
    variants = [(k, f) for k, f in (("k", kernel), ("r", reference), ("l", library)) if f]
    if len(variants) < 2:
        raise ValueError("compare needs a kernel and a reference or a library")
    for _, f in variants:  # warm-up: caches, allocator, lazy imports
        f()
    times: dict[str, list[float]] = {k: [] for k, _ in variants}
    for r in range(rounds):
        shift = r % len(variants)
        for k, f in variants[shift:] + variants[:shift]:
            times[k].append(seconds(f, min_run_time=min_run_time))

    def ratio(k: str) -> Ratio | None:
        if k not in times:
            return None
        return Ratio.of([o / b for o, b in zip(times[k], times["k"], strict=True)])

    def med(k: str) -> float | None:
        return statistics.median(times[k]) if k in times else None

    return Comparison(med("k"), med("r"), med("l"), ratio("r"), ratio("l"))


def consistent(first: Ratio, second: Ratio) -> bool:
    """Two measurements of one ratio agree: their IQRs overlap, or medians within 10 %."""
    overlap = first.q25 <= second.q75 and second.q25 <= first.q75
    close = abs(second.median - first.median) <= AGREE_FLOOR * first.median
    return overlap or close


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
