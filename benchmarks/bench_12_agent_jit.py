"""Chapter 12 (agent-jit): the vectorised Monte Carlo scheduler vs a per-task loop vs simpy.

All three compute the latencies of the serial, parallel and hedged strategies
({prf:ref}`agent-jit-def-d3`) for every task and every draw of the same pre-drawn element
latencies (common random numbers), so the outputs are identical:

- Case 1: 200 tasks (the chapter's task mix) × 20 draws × 3 hedged workers. Kernel:
  ``strategy_latencies`` (segment sums with ``np.add.reduceat`` / ``np.maximum.reduceat`` over
  all draws and tasks at once). Reference: the notebook's readable ``d3_reference``, one call
  per task and draw. Library: the notebook's ``simpy_makespans``, a discrete-event simulation
  of the same schedules (three simpy environments per task and draw).
- Case 2: the selection step of JIT-Scheduler, sampling included: ``mc_strategy_means`` on
  200 draws (the chapter uses 2000; both sides scale linearly) against sampling the same draws
  with the same vectorised sampler and averaging ``d3_reference`` over them. Sampling costs the
  same on both sides, so this ratio is smaller than case 1's.
"""

from __future__ import annotations

import numpy as np

from benchmarks.registry import register
from icml26.agents import jit
from icml26.pipeline.notebooks import notebook_functions

_fns = notebook_functions("12-agent-jit", "d3_reference", "simpy_makespans")
_d3_reference, _simpy_makespans = _fns["d3_reference"], _fns["simpy_makespans"]

MIX = jit.random_schedule(200, np.random.default_rng(13))
SCHED = MIX.schedule
DELTA_P = 3.0 * np.sqrt(MIX.m)
DELTA_H = 4.0
LAT = jit.draw_latencies(MIX.median, MIX.sigma, MIX.p_stall, (20, 3), np.random.default_rng(0))
_bounds = np.append(SCHED.segment_start, SCHED.n_elements)
_seg_len = np.diff(_bounds)
_tasks = np.append(SCHED.task_start, len(SCHED.segment_start))
TASKS = [
    (
        _bounds[_tasks[t]],
        _bounds[_tasks[t + 1]],
        int(_seg_len[_tasks[t]]),
        [int(x) for x in _seg_len[_tasks[t] + 1 : _tasks[t + 1]]],
        float(DELTA_P[t]),
    )
    for t in range(SCHED.n_tasks)
]


def _loop(fn, lat: np.ndarray) -> np.ndarray:
    out = np.empty((lat.shape[0], SCHED.n_tasks, 3))
    for i in range(lat.shape[0]):
        for t, (lo, hi, pre, subs, dp) in enumerate(TASKS):
            out[i, t] = fn(lat[i, :, lo:hi], pre, subs, dp, DELTA_H)
    return out


register(
    name="D3 latencies of 3 strategies, 200 tasks × 20 draws × 3 workers (same draws)",
    kernel=lambda: jit.strategy_latencies(LAT, SCHED, DELTA_P, DELTA_H),
    reference=lambda: _loop(_d3_reference, LAT),
    library=lambda: _loop(_simpy_makespans, LAT),
    library_name="simpy discrete-event simulation, per task and draw",
)

register(
    name="MC strategy means incl. sampling, 200 tasks × 3 strategies × 200 draws × 3 workers",
    kernel=lambda: jit.mc_strategy_means(
        MIX.median, MIX.sigma, MIX.p_stall, SCHED, DELTA_P, DELTA_H, 200, np.random.default_rng(1)
    ),
    reference=lambda: _loop(
        _d3_reference,
        jit.draw_latencies(MIX.median, MIX.sigma, MIX.p_stall, (200, 3), np.random.default_rng(1)),
    ).mean(0),
)
