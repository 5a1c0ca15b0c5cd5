"""Tests of icml26.agents.jit (chapter 12): contracts, checker, planner, cost, scheduler."""

from __future__ import annotations

import itertools
import math

import jsonschema
import networkx as nx
import numpy as np
import pytest
import scipy.stats
from hypothesis import given, settings
from hypothesis import strategies as st

from icml26.agents import jit
from icml26.pipeline.notebooks import notebook_functions

M = jit.shop_manifest()
FLOW = ["login(user='a')", "search(query='q')", "open_store(store='s')"]
for _k in range(3):
    FLOW += [f"open_item(item='i{_k}')", "add_to_cart(qty=1)", "back_to_store()"]
FLOW += ["open_item(item='i3')", "add_to_cart(qty=1)", "go_cart()", "checkout()"]
FLOW += ["set_address(address='x')", "confirm_address()", "place_order()"]
LOOP_PLAN = """login(user='a')
search(query='q')
open_store(store='s')
for item in list_items():
    open_item(item=item)
    price = read_price()
    back_to_store()
best = ai_eval(prompt='p', data='d')
open_item(item=best)
add_to_cart(qty=1)
"""
NO_BACK = LOOP_PLAN.replace("    back_to_store()\n", "")
ADD_ALL = """login(user='a')
search(query='q')
open_store(store='s')
for item in list_items():
    open_item(item=item)
    add_to_cart(qty=1)
go_cart()
"""

REF = notebook_functions("12-agent-jit", "check_reference", "unroll_twice", "d3_reference")


def chain(L: int) -> tuple:
    return jit.parse_plan("\n".join(FLOW[:L]))


# --- plans as programs ------------------------------------------------------------------------


def test_parse_render_round_trip() -> None:
    for src in (LOOP_PLAN, "\n".join(FLOW), ADD_ALL):
        plan = jit.parse_plan(src)
        assert jit.parse_plan(jit.render_plan(plan)) == plan
        assert jit.render_plan(plan) == src.rstrip("\n") + "\n"


def test_parse_structure() -> None:
    plan = jit.parse_plan(LOOP_PLAN)
    loop = plan[3]
    assert isinstance(loop, jit.Loop) and loop.var == "item" and loop.source.name == "list_items"
    assert loop.body[0].kwargs == (("item", jit.Var("item")),)
    assert plan[4].target == "best" and plan[4].line == 8


def test_nesting_depths_and_cost() -> None:
    plan = jit.parse_plan(LOOP_PLAN)
    depths = dict(jit.nesting_depths(plan))
    assert depths["read_price"] == 1 and depths["list_items"] == 0
    # 6 tools at depth 0 + 3 tools at depth 1 + one ai_eval at depth 0
    assert jit.plan_cost(plan, M, 10.0, 1.0, 3.0) == 6 + 30 + 3
    assert jit.plan_cost(plan, M, 1.0, 1.0, 1.0) == 10


@given(st.floats(1.0, 50.0), st.floats(0.0, 5.0), st.floats(0.0, 5.0))
@settings(max_examples=40, deadline=None)
def test_cost_is_executions_when_loops_run_gamma_times(gamma, c_tool, c_eval) -> None:
    """{prf:ref}`agent-jit-prop-cost`: with integer γ trips, C(P) = Σ executions × per-call cost."""
    g = round(gamma)
    plan = jit.parse_plan(LOOP_PLAN)
    counts = jit.run_plan(plan, g).counts
    want = sum((c_eval if n == "ai_eval" else c_tool) * c for n, c in counts.items())
    assert math.isclose(jit.plan_cost(plan, M, g, c_tool, c_eval), want, rel_tol=1e-9, abs_tol=1e-9)


# --- checker and execution --------------------------------------------------------------------


def test_gold_plans_are_valid_and_run() -> None:
    add_all_ok = ADD_ALL.replace("qty=1)\n", "qty=1)\n    back_to_store()\n")
    for src in (LOOP_PLAN, "\n".join(FLOW), add_all_ok):
        plan = jit.parse_plan(src)
        assert jit.check_plan(plan, M) == []
        for trips in (1, 2, 5):
            assert jit.run_plan(plan, trips).ok


def test_missing_back_is_flagged_and_fails_from_the_second_iteration() -> None:
    plan = jit.parse_plan(NO_BACK)
    v = jit.check_plan(plan, M)
    assert [x.tool for x in v] == ["open_item", "open_item"]  # in the loop and after it
    assert v[0].missing == ("page=store",)
    bad = jit.run_plan(plan, 2)
    assert not bad.ok and bad.tool == "open_item" and bad.line == 5
    # add-every-item without back: runs with one item (a false positive), fails with two
    add_all = jit.parse_plan(ADD_ALL)
    assert jit.check_plan(add_all, M) and jit.run_plan(add_all, 1).ok
    assert not jit.run_plan(add_all, 2).ok


def test_unknown_tool_is_a_violation() -> None:
    plan = jit.parse_plan("login(user='a')\nfly()\n")
    assert jit.check_plan(plan, M)[0].missing == ("<unknown tool>",)
    assert not jit.run_plan(plan, 1).ok


def test_loosened_manifest_misses_failures() -> None:
    loose = jit.loosen(M, ("open_item",))
    plan = jit.parse_plan(NO_BACK)
    assert jit.check_plan(plan, loose) == [] and not jit.run_plan(plan, 3).ok


def test_single_swaps_break_the_flow_and_exhaustive_sets_for_short_prefixes() -> None:
    """The hypothesis of {prf:ref}`agent-jit-prop-passk` for the order flow."""
    for L in range(2, 12):
        gold = chain(L)
        for mask in range(1, 2 ** (L - 1)):
            errs = frozenset(("swap", (), i) for i in range(L - 1) if mask >> i & 1)
            assert jit.check_plan(jit.Draft(gold, errs).plan(), M)
    rng = np.random.default_rng(0)
    gold = chain(19)
    for _ in range(300):
        errs = frozenset(("swap", (), int(i)) for i in np.flatnonzero(rng.random(18) < 0.3))
        if errs:
            assert jit.check_plan(jit.Draft(gold, errs).plan(), M)


@pytest.mark.parametrize("seed", range(6))
def test_checker_matches_execution_and_reference(seed: int) -> None:
    """{prf:ref}`agent-jit-prop-exact`: exact with trips ≥ 2; the reference unrolls loops twice."""
    rng = np.random.default_rng(seed)
    golds = [jit.parse_plan(LOOP_PLAN), jit.parse_plan(ADD_ALL), chain(15)]
    for i in range(120):
        draft = jit.sample_draft(golds[i % 3], M, rng, 0.15, 0.1)
        plan = draft.plan()
        flagged = bool(jit.check_plan(plan, M))
        assert flagged == (not REF["check_reference"](plan, M))
        assert flagged == (not jit.run_plan(plan, int(rng.integers(2, 5))).ok)
        if not flagged:
            assert jit.run_plan(plan, 1).ok  # soundness with trip count 1


def test_schemas_validate_calls() -> None:
    for node in REF["unroll_twice"](jit.parse_plan(LOOP_PLAN)):
        args = {k: ("x" if isinstance(v, jit.Var) else v) for k, v in node.kwargs}
        jsonschema.validate(args, M[node.name].schema)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"qty": 0}, M["add_to_cart"].schema)


def test_cfg_depth_cross_check_with_networkx() -> None:
    plan = jit.parse_plan(LOOP_PLAN)
    depths = [d for _, d in jit.nesting_depths(plan)]
    g = nx.DiGraph()
    nx.add_path(g, range(7))  # login ... list_items (3) ... back_to_store (6)
    g.add_edge(6, 3)  # back edge to the loop head
    nx.add_path(g, [3, 7, 8, 9])  # loop exit: ai_eval, open_item, add_to_cart
    body = nx.ancestors(g.subgraph(set(g) - {3}), 6) | {6}
    assert [int(v in body) for v in range(10)] == depths


# --- planner, repair, closed forms ------------------------------------------------------------


def test_repair_removes_errors() -> None:
    rng = np.random.default_rng(1)
    d = jit.sample_draft(chain(19), M, rng, 0.5)
    assert d.errors
    assert jit.repair(d, rng, 1.0).errors == frozenset()
    assert jit.repair(d, rng, 0.0).errors == d.errors


def test_valid_probability_closed_forms() -> None:
    assert jit.valid_probability(0.175, 19) == pytest.approx(0.825**18)
    assert jit.valid_probability(0.1, 5, 0.7, 2) == pytest.approx((1 - 0.1 * 0.09) ** 4)
    assert jit.pass_at_k(jit.valid_probability(0.175, 19), 3) == pytest.approx(0.0911, abs=5e-4)
    assert np.allclose(jit.pass_at_k(np.array([0.0, 1.0, 0.5]), 2), [0.0, 1.0, 0.75])


def test_sampled_validity_matches_closed_form() -> None:
    rng = np.random.default_rng(2)
    gold = chain(7)
    n = 1500
    valid = np.mean(
        [not jit.check_plan(jit.sample_draft(gold, M, rng, 0.2).plan(), M) for _ in range(n)]
    )
    p = jit.valid_probability(0.2, 7)
    assert abs(valid - p) < 4 * math.sqrt(p * (1 - p) / n)


def test_amdahl() -> None:
    assert jit.amdahl_bound(0.73) == pytest.approx(3.7037, abs=1e-4)
    assert jit.amdahl_bound(0.0) == 1.0


# --- latencies, fits, order statistics --------------------------------------------------------


def test_fit_lognormal_matches_scipy() -> None:
    rng = np.random.default_rng(3)
    x = rng.lognormal(np.log(0.8), 0.5, 300)
    med, sig = jit.fit_lognormal(x)
    s, loc, scale = scipy.stats.lognorm.fit(x, floc=0)
    assert loc == 0 and sig == pytest.approx(s, abs=1e-6) and med == pytest.approx(scale, rel=1e-6)


def test_draw_latencies_stall_mixture() -> None:
    rng = np.random.default_rng(4)
    x = jit.draw_latencies(
        np.array([1.0, 2.0]), np.array([0.0, 0.0]), np.array([0.0, 0.5]), (4000,), rng
    )
    assert x.shape == (4000, 2) and np.all(x[:, 0] == 1.0)
    assert set(np.unique(x[:, 1])) == {2.0, 20.0}
    assert abs((x[:, 1] == 20.0).mean() - 0.5) < 0.05


@pytest.mark.parametrize(("p", "n"), [(0.0, 1), (0.0, 3), (0.2, 2), (0.3, 5)])
def test_order_statistics_against_monte_carlo(p: float, n: int) -> None:
    rng = np.random.default_rng(5)
    x = jit.draw_latencies(np.ones(n), np.full(n, 0.5), np.full(n, p), (200000,), rng)
    e_min, e_max = jit.order_statistic_means(1.0, 0.5, n, p)
    assert x.min(1).mean() == pytest.approx(e_min, rel=0.02)
    assert x.max(1).mean() == pytest.approx(e_max, rel=0.02)
    if n == 1:
        assert e_min == pytest.approx(np.exp(0.125), rel=1e-6) and e_min == pytest.approx(e_max)


@pytest.mark.parametrize("p", [0.1, 0.3])
def test_order_statistics_of_one_stalled_element_is_its_mean(p: float) -> None:
    """n = 1: both integrals are the mean of the mixture, (1 − p + 10 p) · m · e^(σ²/2)."""
    e_min, e_max = jit.order_statistic_means(2.0, 0.5, 1, p)
    want = (1 - p + 10 * p) * 2.0 * np.exp(0.125)
    assert e_min == pytest.approx(want, rel=1e-6) and e_max == pytest.approx(want, rel=1e-6)


# --- the scheduler ----------------------------------------------------------------------------


def _small_mix(seed: int = 0) -> jit.ScheduleTasks:
    return jit.random_schedule(12, np.random.default_rng(seed))


def test_strategy_latencies_match_reference() -> None:
    mix = _small_mix()
    sched = mix.schedule
    lat = jit.draw_latencies(mix.median, mix.sigma, mix.p_stall, (3, 3), np.random.default_rng(6))
    dp = 3 * np.sqrt(mix.m)
    got = jit.strategy_latencies(lat, sched, dp, 4.0)
    bounds = np.append(sched.segment_start, sched.n_elements)
    seg_len = np.diff(bounds)
    tasks = np.append(sched.task_start, len(sched.segment_start))
    for t in range(sched.n_tasks):
        g0, g1 = tasks[t], tasks[t + 1]
        for i in range(3):
            want = REF["d3_reference"](
                lat[i, :, bounds[g0] : bounds[g1]],
                int(seg_len[g0]),
                list(seg_len[g0 + 1 : g1]),
                dp[t],
                4.0,
            )
            assert np.allclose(got[i, t], want)


def test_strategy_orderings() -> None:
    mix = _small_mix(1)
    lat = jit.draw_latencies(mix.median, mix.sigma, mix.p_stall, (50, 3), np.random.default_rng(7))
    out = jit.strategy_latencies(lat, mix.schedule, np.zeros(mix.schedule.n_tasks), 0.0)
    assert np.all(out[..., 1] <= out[..., 0] + 1e-12)  # parallel without overhead ≤ serial
    assert np.all(out[..., 2] <= out[..., 0] + 1e-12)  # the hedge includes the serial run


def test_mc_means_are_deterministic_and_close_to_truth() -> None:
    mix = _small_mix(2)
    args = (mix.median, mix.sigma, mix.p_stall, mix.schedule, 3 * np.sqrt(mix.m), 4.0)
    a = jit.mc_strategy_means(*args, 500, np.random.default_rng(8), chunk=128)
    b = jit.mc_strategy_means(*args, 500, np.random.default_rng(8), chunk=128)
    assert np.array_equal(a, b) and a.shape == (12, 3)
    # serial mean is a sum of means: Σ median·e^{σ²/2}(1 + 9 p)
    el_mean = mix.median * np.exp(mix.sigma**2 / 2) * (1 + 9 * mix.p_stall)
    serial = np.add.reduceat(el_mean, mix.schedule.segment_start[mix.schedule.task_start])
    assert np.allclose(a[:, 0], serial, rtol=0.08)


def test_random_schedule_layout() -> None:
    mix = _small_mix(3)
    assert np.array_equal(mix.schedule.subtasks, mix.m)
    assert mix.median.shape == (mix.schedule.n_elements,)
    assert set(np.unique(mix.p_st)) <= {0.0, 0.1, 0.3}


# --- argument validation ----------------------------------------------------------------------


def test_bad_inputs() -> None:
    rng = np.random.default_rng(0)
    plan = chain(5)
    with pytest.raises(ValueError, match="source must be a string"):
        jit.parse_plan(3)
    with pytest.raises(ValueError, match="not valid Python"):
        jit.parse_plan("for x in :")
    with pytest.raises(ValueError, match="unsupported statement"):
        jit.parse_plan("import os\n")
    with pytest.raises(ValueError, match="keyword arguments"):
        jit.parse_plan("login('a')\n")
    with pytest.raises(ValueError, match="plan must be a tuple"):
        jit.check_plan([1], M)
    with pytest.raises(ValueError, match="manifest must be"):
        jit.check_plan(plan, {"a": 1})
    with pytest.raises(ValueError, match="initial must be"):
        jit.check_plan(plan, M, {"page=home"})
    with pytest.raises(ValueError, match="names must be tools"):
        jit.loosen(M, ("nope",))
    with pytest.raises(ValueError, match="n_items"):
        jit.run_plan(plan, 0)
    with pytest.raises(ValueError, match="plan must be a tuple"):
        jit.render_plan("x")
    with pytest.raises(ValueError, match="gamma"):
        jit.plan_cost(plan, M, gamma=0.5)
    with pytest.raises(ValueError, match="c_tool"):
        jit.plan_cost(plan, M, c_tool=-1.0)
    with pytest.raises(ValueError, match="c_eval"):
        jit.plan_cost(plan, M, c_eval=float("nan"))
    with pytest.raises(ValueError, match="eps_order"):
        jit.sample_draft(plan, M, rng, 1.5)
    with pytest.raises(ValueError, match="eps_drop"):
        jit.sample_draft(plan, M, rng, 0.1, -0.1)
    with pytest.raises(ValueError, match="rng must be"):
        jit.sample_draft(plan, M, 0, 0.1)
    with pytest.raises(ValueError, match="draft must be"):
        jit.repair(plan, rng)
    with pytest.raises(ValueError, match="fix_prob"):
        jit.repair(jit.Draft(plan, frozenset()), rng, 2.0)
    with pytest.raises(ValueError, match="rng must be"):
        jit.repair(jit.Draft(plan, frozenset()), None)
    with pytest.raises(ValueError, match="length"):
        jit.valid_probability(0.1, 0)
    with pytest.raises(ValueError, match="rounds"):
        jit.valid_probability(0.1, 3, 0.5, -1)
    with pytest.raises(ValueError, match="fix_prob"):
        jit.valid_probability(0.1, 3, 1.5)
    with pytest.raises(ValueError, match="eps_order"):
        jit.valid_probability(-0.1, 3)
    with pytest.raises(ValueError, match="p must lie"):
        jit.pass_at_k(1.5, 3)
    with pytest.raises(ValueError, match="k must be"):
        jit.pass_at_k(0.5, 0)
    with pytest.raises(ValueError, match="share"):
        jit.amdahl_bound(1.0)


def test_bad_latency_inputs() -> None:
    rng = np.random.default_rng(0)
    one = np.ones(2)
    with pytest.raises(ValueError, match="sigma must have shape"):
        jit.draw_latencies(one, np.ones(3), one, (2,), rng)
    with pytest.raises(ValueError, match="p_stall must have shape"):
        jit.draw_latencies(one, one, np.ones(3), (2,), rng)
    with pytest.raises(ValueError, match="median must be"):
        jit.draw_latencies(-one, one, one * 0, (2,), rng)
    with pytest.raises(ValueError, match="sigma must be non-negative"):
        jit.draw_latencies(one, -one, one * 0, (2,), rng)
    with pytest.raises(ValueError, match="p_stall must lie"):
        jit.draw_latencies(one, one, one * 2, (2,), rng)
    with pytest.raises(ValueError, match="stall_factor"):
        jit.draw_latencies(one, one, one * 0, (2,), rng, stall_factor=0.5)
    with pytest.raises(ValueError, match="rng must be"):
        jit.draw_latencies(one, one, one * 0, (2,), 1)
    with pytest.raises(ValueError, match="size"):
        jit.draw_latencies(one, one, one * 0, (0,), rng)
    with pytest.raises(ValueError, match="at least 2"):
        jit.fit_lognormal(np.ones(1))
    with pytest.raises(ValueError, match="positive and finite"):
        jit.fit_lognormal(np.array([1.0, -1.0]))
    with pytest.raises(ValueError, match="median"):
        jit.order_statistic_means(0.0, 0.5, 2)
    with pytest.raises(ValueError, match="sigma"):
        jit.order_statistic_means(1.0, 0.0, 2)
    with pytest.raises(ValueError, match="n must be"):
        jit.order_statistic_means(1.0, 0.5, 0)
    with pytest.raises(ValueError, match="p_stall"):
        jit.order_statistic_means(1.0, 0.5, 2, 1.5)
    with pytest.raises(ValueError, match="stall_factor"):
        jit.order_statistic_means(1.0, 0.5, 2, 0.1, 0.5)


def test_bad_schedule_inputs() -> None:
    rng = np.random.default_rng(0)
    mix = _small_mix()
    sched = mix.schedule
    with pytest.raises(ValueError, match="segment_start"):
        jit.Schedule(np.array([1, 3]), np.array([0]), 5)
    with pytest.raises(ValueError, match="n_elements"):
        jit.Schedule(np.array([0, 3]), np.array([0]), 3)
    with pytest.raises(ValueError, match="task_start"):
        jit.Schedule(np.array([0, 3]), np.array([0, 1]), 6)
    lat = np.ones((2, 3, sched.n_elements))
    dp = np.zeros(sched.n_tasks)
    with pytest.raises(ValueError, match="lat must have shape"):
        jit.strategy_latencies(lat[..., :-1], sched, dp, 1.0)
    with pytest.raises(ValueError, match="lat must be non-negative"):
        jit.strategy_latencies(-lat, sched, dp, 1.0)
    with pytest.raises(ValueError, match="delta_p must have shape"):
        jit.strategy_latencies(lat, sched, dp[:-1], 1.0)
    with pytest.raises(ValueError, match="delta_h"):
        jit.strategy_latencies(lat, sched, dp, -1.0)
    args = (mix.median, mix.sigma, mix.p_stall, sched, dp, 1.0)
    with pytest.raises(ValueError, match="draws"):
        jit.mc_strategy_means(*args, 0, rng)
    with pytest.raises(ValueError, match="n_hedge"):
        jit.mc_strategy_means(*args, 10, rng, n_hedge=0)
    with pytest.raises(ValueError, match="chunk"):
        jit.mc_strategy_means(*args, 10, rng, chunk=0)
    with pytest.raises(ValueError, match="median must have shape"):
        jit.mc_strategy_means(mix.median[:-1], *args[1:], 10, rng)
    with pytest.raises(ValueError, match="n_tasks"):
        jit.random_schedule(0, rng)
    with pytest.raises(ValueError, match="max_subtasks"):
        jit.random_schedule(3, rng, max_subtasks=0)
    with pytest.raises(ValueError, match="stall_probs"):
        jit.random_schedule(3, rng, stall_probs=(1.5,))
    with pytest.raises(ValueError, match="sigma"):
        jit.random_schedule(3, rng, sigma=-1.0)
    with pytest.raises(ValueError, match="rng must be"):
        jit.random_schedule(3, "x")


def test_exhaustive_small_subsets_helper() -> None:
    # itertools import used: every 2-subset of swaps at L = 8 breaks the plan
    gold = chain(8)
    for a, b in itertools.combinations(range(7), 2):
        assert jit.check_plan(
            jit.Draft(gold, frozenset({("swap", (), a), ("swap", (), b)})).plan(), M
        )
