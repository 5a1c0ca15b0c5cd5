"""Between-run intervals for the ratios of ``make bench``, and the check of a rerun.

Each of ``k`` independent workers (:mod:`benchmarks.workers`) gives one ratio per case and
side: the median over its interleaved rounds. On the log scale these ``k`` values have mean
``m`` and standard deviation ``s``; the stated ratio is ``exp(m)`` (their geometric mean).

**The interval is where a rerun lands.** A rerun with ``k`` fresh workers estimates
``m'``; under a normal model of the log ratios ``(m' - m) / (s * sqrt(2 / k))`` follows
Student's t with ``k - 1`` degrees of freedom. The stated interval is
``exp(m ± t * s * sqrt(2 / k))`` with the quantile ``t`` taken at a *simultaneous* level
(``LEVEL`` = 95 %, Bonferroni over all the ratios of one configuration), so that a rerun of
the whole table is expected to land inside every interval at once, 19 times in 20.

**The check** (:func:`judge`): a rerun passes when its ratio lies inside the baseline's
interval. An interval wider than ×/÷ ``WIDE`` (1.5) cannot tell a 2× regression from noise,
so a case measured that noisily fails the check as ``too noisy`` rather than passing
silently; so does a rerun that noisy. A kernel whose whole interval lies below 1× its
readable reference is ``slower than its reference``.

The spread *within* a run (half the interquartile range over one worker's rounds, the
median over workers) is kept as a second figure: it is what a single process sees, and it is
usually several times narrower than the between-run interval.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from scipy import stats

__all__ = ["LEVEL", "WIDE", "Estimate", "change", "estimate", "judge"]

LEVEL = 0.95
WIDE = 1.5


@dataclass(frozen=True)
class Estimate:
    """A ratio over ``workers`` independent runs, with its rerun interval."""

    center: float
    log_sd: float
    workers: int
    half_width: float  # of the rerun interval, on the log scale
    within: float  # median within-run spread (relative half-IQR over rounds)

    @property
    def lo(self) -> float:
        return self.center * math.exp(-self.half_width)

    @property
    def hi(self) -> float:
        return self.center * math.exp(self.half_width)

    @property
    def wide(self) -> bool:
        """Too wide to tell a 2× regression from noise (wider than ×/÷ ``WIDE``)."""
        return not self.half_width <= math.log(WIDE)

    def text(self) -> str:
        flag = " ⚠" if self.wide else ""
        return f"{_num(self.center)}× ({_num(self.lo)}–{_num(self.hi)}){flag}"


def _num(x: float) -> str:
    """Three significant figures at most, never more than one decimal."""
    if not math.isfinite(x):
        return "∞" if x > 0 else "0"
    return f"{x:.2f}" if x < 1 else f"{x:.1f}" if x < 100 else f"{x:.0f}"


@lru_cache(maxsize=256)
def _quantile(df: float, family: int) -> float:
    alpha = (1 - LEVEL) / max(1, family)
    return float(stats.t.ppf(1 - alpha / 2, df)) if df > 0 else math.inf


def estimate(ratios: Sequence[float], within: Sequence[float], *, family: int) -> Estimate:
    """The estimate from the workers' ``ratios`` (one each) and within-run spreads; its
    interval holds simultaneously for ``family`` ratios."""
    logs = np.log(np.asarray(ratios, dtype=float))
    if logs.size < 1 or not np.isfinite(logs).all():
        raise ValueError(f"ratios must be positive and finite, got {list(ratios)}")
    k = int(logs.size)
    sd = float(logs.std(ddof=1)) if k > 1 else math.inf
    half = _quantile(k - 1, family) * sd * math.sqrt(2 / k) if k > 1 else math.inf
    spread = float(np.median(within)) if len(within) else math.nan
    return Estimate(float(np.exp(logs.mean())), sd, k, half, spread)


def judge(baseline: Estimate, rerun: Estimate, *, side: str = "reference") -> str:
    """``ok``, ``faster``/``slower`` (the rerun left the baseline's interval: the kernel got
    faster/slower relative to the other side), ``too noisy``, or ``slower than its
    reference`` (the rerun's whole interval below 1×, for ``side == "reference"``)."""
    if side == "reference" and rerun.hi < 1:
        return "slower than its reference"
    if baseline.wide or rerun.wide:
        return "too noisy"
    if rerun.center < baseline.lo:
        return "slower"
    if rerun.center > baseline.hi:
        return "faster"
    return "ok"


def change(first: Estimate, second: Estimate, *, family: int) -> tuple[float, float, float]:
    """How ``second`` differs from ``first`` (another configuration): the factor
    second / first and its simultaneous interval (Welch's t on the log ratios)."""
    d = math.log(second.center / first.center)
    if min(first.workers, second.workers) < 2:
        return math.exp(d), 0.0, math.inf
    v1 = first.log_sd**2 / first.workers
    v2 = second.log_sd**2 / second.workers
    if v1 + v2 == 0:
        return math.exp(d), math.exp(d), math.exp(d)
    df = (v1 + v2) ** 2 / (v1**2 / (first.workers - 1) + v2**2 / (second.workers - 1))
    h = _quantile(df, family) * math.sqrt(v1 + v2)
    return math.exp(d), math.exp(d - h), math.exp(d + h)
