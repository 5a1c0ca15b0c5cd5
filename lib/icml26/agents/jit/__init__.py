"""Agent JIT compilation for computer-use agents: plans, contracts, cost model and scheduling.

Chapter 12 (agent-jit). The package holds the toy web application's tool manifest
(:mod:`~icml26.agents.jit.tools`: a page-state machine whose tools carry pre/post contracts),
plan code parsed with ``ast`` and the static contract checker of
:prf:ref:`agent-jit-prop-exact` (:mod:`~icml26.agents.jit.plans`), plan execution and the cost
model of :prf:ref:`agent-jit-prop-cost` (:mod:`~icml26.agents.jit.execution`), the simulated
planner with its error modes and repair of :prf:ref:`agent-jit-prop-passk`
(:mod:`~icml26.agents.jit.planner`), and the Monte Carlo strategy scheduler of
:prf:ref:`agent-jit-def-d3` with the order-statistic integrals of
:prf:ref:`agent-jit-prop-order` (:mod:`~icml26.agents.jit.latency`). Pure numpy (scipy for
quadrature). Everything public is re-exported here: ``from icml26.agents import jit`` and
``jit.check_plan(...)``.
"""

from __future__ import annotations

from icml26.agents.jit.execution import RunResult, ToolError, WebApp, plan_cost, run_plan
from icml26.agents.jit.latency import (
    STRATEGIES,
    Schedule,
    ScheduleTasks,
    draw_latencies,
    fit_lognormal,
    mc_strategy_means,
    order_statistic_means,
    random_schedule,
    strategy_latencies,
)
from icml26.agents.jit.planner import (
    Draft,
    amdahl_bound,
    pass_at_k,
    repair,
    sample_draft,
    valid_probability,
)
from icml26.agents.jit.plans import (
    Call,
    Loop,
    Plan,
    Var,
    Violation,
    check_plan,
    nesting_depths,
    parse_plan,
    render_plan,
)
from icml26.agents.jit.tools import INITIAL_STATE, PAGES, Tool, loosen, shop_manifest

__all__ = [
    "INITIAL_STATE",
    "PAGES",
    "STRATEGIES",
    "Call",
    "Draft",
    "Loop",
    "Plan",
    "RunResult",
    "Schedule",
    "ScheduleTasks",
    "Tool",
    "ToolError",
    "Var",
    "Violation",
    "WebApp",
    "amdahl_bound",
    "check_plan",
    "draw_latencies",
    "fit_lognormal",
    "loosen",
    "mc_strategy_means",
    "nesting_depths",
    "order_statistic_means",
    "parse_plan",
    "pass_at_k",
    "plan_cost",
    "random_schedule",
    "render_plan",
    "repair",
    "run_plan",
    "sample_draft",
    "shop_manifest",
    "strategy_latencies",
    "valid_probability",
]
