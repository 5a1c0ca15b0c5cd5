"""Latencies of UI elements, order statistics, and the Monte Carlo strategy scheduler.

Chapter 12 (agent-jit): stalled lognormal element latencies, their maximum-likelihood fit, the
order-statistic integrals of :prf:ref:`agent-jit-prop-order`, and the vectorised scheduler of
:prf:ref:`agent-jit-def-d3` (serial, parallel, hedge; common random numbers).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from icml26 import checks

__all__ = [
    "STRATEGIES",
    "Schedule",
    "ScheduleTasks",
    "draw_latencies",
    "fit_lognormal",
    "mc_strategy_means",
    "order_statistic_means",
    "random_schedule",
    "strategy_latencies",
]

STRATEGIES = ("serial", "parallel", "hedge")


def _element_laws(
    median: object, sigma: object, p_stall: object
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Validated float64 copies of the per-element law: medians (1-D, positive), log-scales
    (non-negative) and stall probabilities (in [0, 1]), all finite and of one shape."""
    median = checks.as_float64("median", median)
    if median.ndim != 1 or median.size == 0:
        raise ValueError(f"median must be a non-empty 1-D array, got shape {median.shape}")
    checks.finite("median", median)
    if (median <= 0).any():
        raise ValueError("median must be positive")
    sigma = checks.as_float64("sigma", sigma)
    checks.shape("sigma", sigma, median.shape)
    checks.finite("sigma", sigma)
    if (sigma < 0).any():
        raise ValueError("sigma must be non-negative")
    p_stall = checks.as_float64("p_stall", p_stall)
    checks.shape("p_stall", p_stall, median.shape)
    checks.finite("p_stall", p_stall)
    if (p_stall < 0).any() or (p_stall > 1).any():
        raise ValueError("p_stall must lie in [0, 1]")
    return median, sigma, p_stall


def draw_latencies(
    median: np.ndarray,
    sigma: np.ndarray,
    p_stall: np.ndarray,
    size: tuple[int, ...],
    rng: np.random.Generator,
    stall_factor: float = 10.0,
) -> np.ndarray:
    """Draws of shape ``size + median.shape`` from the stalled lognormal of each element:
    ``median · exp(σ Z)``, multiplied by ``stall_factor`` with probability ``p_stall``."""
    median, sigma, p_stall = _element_laws(median, sigma, p_stall)
    stall_factor = checks.real("stall_factor", stall_factor, low=1.0)
    if not isinstance(rng, np.random.Generator):
        raise ValueError("rng must be a numpy Generator")
    size = tuple(checks.integer("size", s, low=1) for s in size)
    z = rng.standard_normal(size + median.shape)
    x = median * np.exp(sigma * z)
    if (p_stall > 0).any():
        x *= np.where(rng.random(size + median.shape) < p_stall, stall_factor, 1.0)
    return x


def fit_lognormal(samples: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Maximum-likelihood lognormal fit with location 0 along the last axis: ``(median, σ)``.

    The closed form of ``scipy.stats.lognorm.fit(x, floc=0)``: ``exp(mean log x)`` and the
    ``ddof=0`` standard deviation of ``log x``.
    """
    x = checks.as_float64("samples", samples)
    if x.ndim < 1 or x.shape[-1] < 2:
        raise ValueError("samples must have at least 2 entries along the last axis")
    if not np.isfinite(x).all() or (x <= 0).any():
        raise ValueError("samples must be positive and finite")
    lx = np.log(x)
    return np.exp(lx.mean(-1)), lx.std(-1)


def order_statistic_means(
    median: float, sigma: float, n: int, p_stall: float = 0.0, stall_factor: float = 10.0
) -> tuple[float, float]:
    """``(E[min], E[max])`` of ``n`` i.i.d. stalled lognormals by quadrature of
    ``∫ (1 − F)^n`` and ``∫ (1 − F^n)`` (:prf:ref:`agent-jit-prop-order`, chapter 12)."""
    from scipy import integrate, special

    median = checks.real("median", median, low=0.0, strict=True)
    sigma = checks.real("sigma", sigma, low=0.0, strict=True)
    n = checks.integer("n", n, low=1)
    p_stall = checks.real("p_stall", p_stall, low=0.0, high=1.0)
    stall_factor = checks.real("stall_factor", stall_factor, low=1.0)

    def cdf(x: float) -> float:
        if x <= 0.0:
            return 0.0
        a = special.ndtr(math.log(x / median) / sigma)
        b = special.ndtr(math.log(x / (median * stall_factor)) / sigma)
        return (1 - p_stall) * a + p_stall * b

    top = median * stall_factor * np.exp(12 * sigma)
    pts = [median, median * stall_factor]
    e_min = integrate.quad(lambda x: (1 - cdf(x)) ** n, 0, top, points=pts, limit=200)[0]
    e_max = integrate.quad(lambda x: 1 - cdf(x) ** n, 0, top, points=pts, limit=200)[0]
    return e_min, e_max


# --- the Monte Carlo scheduler (D3) -----------------------------------------------------------


@dataclass(frozen=True)
class Schedule:
    """Tasks for the scheduler, flattened: every task is a prefix segment followed by ``m``
    independent sub-task segments of UI elements.

    ``segment_start`` (G,) are the first element of each segment in the element axis (sorted,
    starting at 0); ``task_start`` (T,) the first segment of each task (its prefix);
    ``n_elements`` the length of the element axis.
    """

    segment_start: np.ndarray
    task_start: np.ndarray
    n_elements: int

    def __post_init__(self) -> None:
        s, t = np.asarray(self.segment_start), np.asarray(self.task_start)
        if s.ndim != 1 or s.size == 0 or s[0] != 0 or (np.diff(s) <= 0).any():
            raise ValueError("segment_start must be strictly increasing from 0")
        if s[-1] >= self.n_elements:
            raise ValueError("n_elements must exceed the last segment start")
        if t.ndim != 1 or t.size == 0 or t[0] != 0 or (np.diff(t) < 2).any() or t[-1] > s.size - 2:
            raise ValueError("task_start must start at 0 and leave >= 1 sub-task per task")

    @property
    def n_tasks(self) -> int:
        """Number of tasks, ``T``."""
        return int(np.asarray(self.task_start).size)

    @property
    def subtasks(self) -> np.ndarray:
        """Sub-tasks per task, ``m``."""
        t = np.asarray(self.task_start)
        return np.diff(np.append(t, np.asarray(self.segment_start).size)) - 1


def strategy_latencies(
    lat: np.ndarray, schedule: Schedule, delta_p: np.ndarray, delta_h: float
) -> np.ndarray:
    """D3 for every draw and task: ``(M, T, 3)`` latencies of serial, parallel, hedge.

    ``lat`` is ``(M, n, E)``: ``n`` workers' independent draws of every element. Serial and
    parallel use worker 0 (common random numbers); the hedge is the fastest of the ``n``
    workers running the serial sequence. Implements :prf:ref:`agent-jit-def-d3`, chapter 12.
    """
    lat = checks.as_float64("lat", lat)
    checks.shape("lat", lat, (None, None, schedule.n_elements))
    checks.finite("lat", lat)
    if (lat < 0).any():
        raise ValueError("lat must be non-negative")
    delta_p = _delays(delta_p, schedule)
    delta_h = checks.real("delta_h", delta_h, low=0.0)
    seg = np.add.reduceat(lat, schedule.segment_start, axis=-1)  # (M, n, G)
    ts = np.asarray(schedule.task_start)
    total = np.add.reduceat(seg, ts, axis=-1)  # (M, n, T): prefix + all sub-tasks
    prefix = seg[..., ts]  # (M, n, T)
    sub = seg.copy()
    sub[..., ts] = 0.0  # the prefix is not a sub-task
    longest = np.maximum.reduceat(sub, ts, axis=-1)  # (M, n, T)
    serial = total[:, 0]
    parallel = prefix[:, 0] + longest[:, 0] + delta_p
    hedge = total.min(axis=1) + delta_h
    return np.stack([serial, parallel, hedge], axis=-1)


def _delays(delta_p: object, schedule: Schedule) -> np.ndarray:
    """The per-task fork delays ``delta_p`` (T,), finite and non-negative."""
    delta_p = checks.as_float64("delta_p", delta_p)
    checks.shape("delta_p", delta_p, (schedule.n_tasks,))
    checks.finite("delta_p", delta_p)
    if (delta_p < 0).any():
        raise ValueError("delta_p must be non-negative")
    return delta_p


def mc_strategy_means(
    median: np.ndarray,
    sigma: np.ndarray,
    p_stall: np.ndarray,
    schedule: Schedule,
    delta_p: np.ndarray,
    delta_h: float,
    draws: int,
    rng: np.random.Generator,
    n_hedge: int = 3,
    chunk: int = 250,
) -> np.ndarray:
    """Monte Carlo means ``(T, 3)`` of the three strategies over ``draws`` draws with common
    random numbers across strategies (D3 and :prf:ref:`agent-jit-prop-select`, chapter 12)."""
    draws = checks.integer("draws", draws, low=1)
    n_hedge = checks.integer("n_hedge", n_hedge, low=1)
    chunk = checks.integer("chunk", chunk, low=1)
    checks.shape("median", checks.as_float64("median", median), (schedule.n_elements,))
    median, sigma, p_stall = _element_laws(median, sigma, p_stall)
    delta_p = _delays(delta_p, schedule)
    delta_h = checks.real("delta_h", delta_h, low=0.0)
    if not isinstance(rng, np.random.Generator):
        raise ValueError("rng must be a numpy Generator")
    acc = np.zeros((schedule.n_tasks, 3))
    done = 0
    while done < draws:
        b = min(chunk, draws - done)
        lat = draw_latencies(median, sigma, p_stall, (b, n_hedge), rng)
        acc += strategy_latencies(lat, schedule, delta_p, delta_h).sum(0)
        done += b
    return acc / draws


@dataclass(frozen=True)
class ScheduleTasks:
    """A random task mix for the scheduler: the layout and each element's true distribution."""

    schedule: Schedule
    median: np.ndarray  # (E,) true median latency of each element, s
    sigma: np.ndarray  # (E,) log-scale
    p_stall: np.ndarray  # (E,) stall probability (the task's site condition)
    m: np.ndarray  # (T,) independent sub-tasks per task
    p_st: np.ndarray  # (T,) stall probability per task


def random_schedule(
    n_tasks: int,
    rng: np.random.Generator,
    max_subtasks: int = 6,
    stall_probs: tuple[float, ...] = (0.0, 0.1, 0.3),
    sigma: float = 0.5,
) -> ScheduleTasks:
    """Tasks with a 2–4 element prefix and ``m ∈ {1..max_subtasks}`` sub-tasks of 2–5 elements
    (one cached macro each),
    element medians uniform on [0.3, 1.5] s, one stall probability per task."""
    n_tasks = checks.integer("n_tasks", n_tasks, low=1)
    max_subtasks = checks.integer("max_subtasks", max_subtasks, low=1)
    sigma = checks.real("sigma", sigma, low=0.0)
    if not stall_probs or any(not 0.0 <= float(p) <= 1.0 for p in stall_probs):
        raise ValueError("stall_probs must be a non-empty tuple of probabilities")
    if not isinstance(rng, np.random.Generator):
        raise ValueError("rng must be a numpy Generator")
    m = rng.integers(1, max_subtasks + 1, n_tasks)
    p_st = np.asarray(stall_probs, dtype=float)[rng.integers(0, len(stall_probs), n_tasks)]
    seg_len: list[int] = []
    task_start: list[int] = []
    p_el: list[float] = []
    for t in range(n_tasks):
        task_start.append(len(seg_len))
        lens = [int(rng.integers(2, 5))] + [int(x) for x in rng.integers(2, 6, int(m[t]))]
        seg_len += lens
        p_el += [p_st[t]] * sum(lens)
    seg_start = np.concatenate([[0], np.cumsum(seg_len)[:-1]])
    n_el = int(np.sum(seg_len))
    sched = Schedule(seg_start, np.asarray(task_start), n_el)
    median = rng.uniform(0.3, 1.5, n_el)
    return ScheduleTasks(sched, median, np.full(n_el, sigma), np.asarray(p_el), m, p_st)
