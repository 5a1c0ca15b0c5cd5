"""Between-run intervals for the ratios of ``make bench``, and the check of a rerun.

Each of ``k`` independent workers (:mod:`benchmarks.workers`) gives one ratio per case and
side: the median over its interleaved rounds. On the log scale these ``k`` values have mean
``m`` and standard deviation ``s``; the stated ratio is ``exp(m)`` (their geometric mean).

**The interval is where a rerun lands.** The log ratio of worker ``j`` in run ``r`` is
modelled as ``mu + a_r + e_rj``: ``e_rj`` (s.d. ``s``) varies between the workers of one run,
and ``a_r`` (s.d. ``tau``, the *run-level* component) is shared by all the workers of a run:
the state of the machine over those minutes (frequency, thermals, what else ran, where the
pages landed). The ``k`` workers of one run estimate ``s`` but cannot see ``tau``. A rerun with
``k`` fresh workers estimates ``m'``, and ``m' - m`` has variance ``2 tau^2 + 2 s^2 / k``;
``tau`` is estimated from whole-suite reruns (:func:`run_level`) and is common to every
ratio of the machine. The stated interval is ``exp(m ± t * sqrt(2 tau^2 + 2 s^2 / k))``, its
quantile ``t`` Student's with the Welch–Satterthwaite degrees of freedom of the two terms,
taken at a *simultaneous* level (``LEVEL`` = 95 %, Bonferroni over all the ratios of one
configuration), so that a rerun of the whole table is expected to land inside every interval
at once, 19 times in 20. Without a recorded rerun ``tau`` is taken as 0 and the interval
covers only the variation between workers, which the steadiest cases (``s`` under about 1 %)
then understate.

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

__all__ = ["LEVEL", "WIDE", "Estimate", "RunLevel", "change", "estimate", "judge", "run_level"]

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


@dataclass(frozen=True)
class RunLevel:
    """The run-level s.d. ``sd`` of the log ratios (shared by the workers of one run), with
    the degrees of freedom ``df`` of its estimate from ``pairs`` run-to-run differences."""

    sd: float = 0.0
    df: float = math.inf
    pairs: int = 0


NONE = RunLevel()


@lru_cache(maxsize=256)
def _quantile(df: float, family: int) -> float:
    alpha = (1 - LEVEL) / max(1, family)
    return float(stats.t.ppf(1 - alpha / 2, df)) if df > 0 else math.inf


def _welch(terms: Sequence[tuple[float, float]]) -> tuple[float, float]:
    """The variance of a sum of independent estimated variances ``(v, df)`` and its
    Welch–Satterthwaite degrees of freedom."""
    v = sum(t for t, _ in terms)
    den = sum(t * t / df for t, df in terms if t > 0 and math.isfinite(df))
    return v, (v * v / den if den > 0 else math.inf)


def estimate(
    ratios: Sequence[float], within: Sequence[float], *, family: int, run: RunLevel = NONE
) -> Estimate:
    """The estimate from the workers' ``ratios`` (one each) and within-run spreads; its
    interval holds simultaneously for ``family`` ratios and adds the ``run``-level term."""
    logs = np.log(np.asarray(ratios, dtype=float))
    if logs.size < 1 or not np.isfinite(logs).all():
        raise ValueError(f"ratios must be positive and finite, got {list(ratios)}")
    k = int(logs.size)
    spread = float(np.median(within)) if len(within) else math.nan
    if k < 2:
        return Estimate(float(np.exp(logs.mean())), math.inf, k, math.inf, spread)
    sd = float(logs.std(ddof=1))
    v, df = _welch([(2 * sd * sd / k, k - 1), (2 * run.sd**2, run.df)])
    return Estimate(float(np.exp(logs.mean())), sd, k, _quantile(df, family) * math.sqrt(v), spread)


def run_level(first: Sequence[Estimate], second: Sequence[Estimate]) -> RunLevel:
    """The run-level s.d. from two whole-suite runs of the same configuration, ratio by
    ratio (``first[i]`` and ``second[i]`` the same ratio): the method-of-moments estimate
    ``tau^2 = max(0, mean(d_i^2 - s1_i^2 / k1 - s2_i^2 / k2) / 2)`` over the differences
    ``d_i`` of the log centres, whose expectation is ``2 tau^2`` plus the workers' share
    (the estimator of random-effects meta-analysis, here with every study a ratio). Several
    reruns: pass the pairs of all of them, concatenated (pairs that share a run are not
    independent, so the stated ``df`` is then somewhat optimistic)."""
    if len(first) != len(second) or not first:
        raise ValueError(
            f"first and second must pair the same ratios, got {len(first)} and {len(second)}"
        )
    terms = []
    for a, b in zip(first, second, strict=True):
        if min(a.workers, b.workers) < 2:
            raise ValueError("first and second need at least 2 workers for every ratio")
        d = math.log(b.center / a.center)
        terms.append(d * d - a.log_sd**2 / a.workers - b.log_sd**2 / b.workers)
    tau2 = max(0.0, float(np.mean(terms)) / 2)
    return RunLevel(math.sqrt(tau2), float(max(1, len(terms) - 1)), len(terms))


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


def change(
    first: Estimate, second: Estimate, *, family: int, run: RunLevel = NONE
) -> tuple[float, float, float]:
    """How ``second`` differs from ``first`` (another configuration, measured in another
    run): the factor second / first and its simultaneous interval (Welch's t on the log
    ratios, plus the ``run``-level term of each run)."""
    d = math.log(second.center / first.center)
    if min(first.workers, second.workers) < 2:
        return math.exp(d), 0.0, math.inf
    v, df = _welch(
        [
            (first.log_sd**2 / first.workers, first.workers - 1),
            (second.log_sd**2 / second.workers, second.workers - 1),
            (2 * run.sd**2, run.df),
        ]
    )
    if v == 0:
        return math.exp(d), math.exp(d), math.exp(d)
    h = _quantile(df, family) * math.sqrt(v)
    return math.exp(d), math.exp(d - h), math.exp(d + h)
