"""The benchmark harness: intervals that cover a rerun, and a check that catches a regression.

No assertion here depends on how fast the machine is: the interval logic is tested on
synthetic measurements drawn from a known distribution (seeded), and the one real case runs
actual worker processes but asserts only what holds however busy the machine is — the
worker gets its numeric configuration before torch loads, and a kernel made 2× slower never
passes the check (it leaves its interval, or the run is too noisy to pass). ``make
bench-check`` times every registered case.
"""

import json
import math

import numpy as np
import pytest
from scipy import stats

from benchmarks import harness, intervals, page, run
from benchmarks.registry import CASES, chapter_of, register, register_scaling
from benchmarks.workers import BOOK, configurations

K, N = 8, 75  # workers per run, ratios in the table (the sizes of make bench)


def _table(rng, truth, log_sd=0.05, k=K, run_sd=0.0):
    """One simulated run: k workers' ratios for each true ratio in ``truth``, each ratio
    shifted as a whole by a run-level effect of s.d. ``run_sd`` (all its workers alike)."""
    shift = np.exp(rng.normal(0, run_sd, len(truth))) if run_sd else np.ones(len(truth))
    return [
        list(r * s * np.exp(rng.normal(0, log_sd, k))) for r, s in zip(truth, shift, strict=True)
    ]


def _estimates(table, family=N, run=intervals.NONE):
    return [intervals.estimate(r, [0.01] * len(r), family=family, run=run) for r in table]


def test_interval_is_the_t_interval_for_a_rerun():
    ratios = [10.0, 11.0, 9.5, 10.5]
    e = intervals.estimate(ratios, [0.02, 0.04, 0.03, 0.05], family=3)
    logs = np.log(ratios)
    assert e.center == pytest.approx(math.exp(logs.mean()))
    t = stats.t.ppf(1 - 0.05 / 3 / 2, df=3)
    assert e.half_width == pytest.approx(t * logs.std(ddof=1) * math.sqrt(2 / 4))
    assert e.lo < e.center < e.hi and e.within == pytest.approx(0.035)
    assert intervals.estimate([10.0], [0.0], family=1).wide  # one run says nothing of a rerun
    with pytest.raises(ValueError, match="ratios"):
        intervals.estimate([1.0, float("nan")], [], family=1)


def test_reruns_land_in_their_intervals_all_at_once_nineteen_times_in_twenty():
    rng = np.random.default_rng(0)
    truth = np.exp(rng.uniform(0, 6, N))
    misses = 0
    for _ in range(300):
        base, rerun = _estimates(_table(rng, truth)), _estimates(_table(rng, truth))
        misses += any(intervals.judge(b, r) != "ok" for b, r in zip(base, rerun, strict=True))
    assert misses / 300 <= 0.08  # simultaneous 95 %: about 15 of 300 expected


def test_the_run_level_term_makes_steady_ratios_cover_a_rerun():
    """Workers that all share one run's state: their spread (here 0.5 %) understates a
    rerun's move (a run-level s.d. of 1.5 %). One calibration rerun recovers the run-level
    s.d., and with it whole reruns land inside every interval nineteen times in twenty."""
    rng = np.random.default_rng(5)
    truth = np.exp(rng.uniform(0, 6, N))
    sim = {"truth": truth, "log_sd": 0.005, "run_sd": 0.015}

    def run_table():
        return _table(rng, sim["truth"], log_sd=sim["log_sd"], run_sd=sim["run_sd"])

    taus, misses, misses_without = [], 0, 0
    for _ in range(200):
        table = run_table()
        base, calib, rerun = _estimates(table), _estimates(run_table()), run_table()
        level = intervals.run_level(base, calib)
        taus.append(level.sd)
        assert level.pairs == N and level.df == N - 1
        pairs = list(zip(_estimates(table, run=level), _estimates(rerun, run=level), strict=True))
        misses += any(intervals.judge(b, r) != "ok" for b, r in pairs)
        pairs = list(zip(base, _estimates(rerun), strict=True))
        misses_without += any(intervals.judge(b, r) != "ok" for b, r in pairs)
    assert np.median(taus) == pytest.approx(0.015, rel=0.1)
    assert misses_without / 200 > 0.5  # the workers' spread alone: most reruns miss somewhere
    assert misses / 200 <= 0.08


def test_run_level_validates_and_is_zero_without_a_run_effect():
    rng = np.random.default_rng(6)
    truth = np.exp(rng.uniform(0, 6, N))
    a, b = _estimates(_table(rng, truth)), _estimates(_table(rng, truth))
    assert intervals.run_level(a, b).sd < 0.01  # the workers' spread is 5 %, the run's 0
    with pytest.raises(ValueError, match="first and second"):
        intervals.run_level(a, b[:-1])
    with pytest.raises(ValueError, match="at least 2 workers"):
        intervals.run_level(a[:1], _estimates([[10.0]]))
    # the half-width: Student's t at the Welch-Satterthwaite df of the two variance terms
    ratios, level = [10.0, 10.4, 9.8, 10.1], intervals.RunLevel(0.02, 30, 31)
    e = intervals.estimate(ratios, [0.0] * 4, family=3, run=level)
    v1, v2 = 2 * np.log(ratios).var(ddof=1) / 4, 2 * 0.02**2
    df = (v1 + v2) ** 2 / (v1**2 / 3 + v2**2 / 30)
    t = stats.t.ppf(1 - 0.05 / 3 / 2, df=df)
    assert e.half_width == pytest.approx(t * math.sqrt(v1 + v2))


def test_a_2x_slower_kernel_fails_the_check_and_only_that_one():
    rng = np.random.default_rng(1)
    truth = np.exp(rng.uniform(0, 6, N))
    for _ in range(50):
        base = _estimates(_table(rng, truth))
        slow = truth.copy()
        slow[7] /= 2  # the kernel of case 7 takes twice as long
        rerun = _estimates(_table(rng, slow))
        verdicts = [intervals.judge(b, r) for b, r in zip(base, rerun, strict=True)]
        assert verdicts[7] == "slower"
        assert verdicts.count("ok") >= N - 3


def test_noisy_runs_and_slow_kernels_never_pass():
    rng = np.random.default_rng(2)
    noisy = _estimates(_table(rng, [10.0], log_sd=0.4))[0]
    quiet = _estimates(_table(rng, [10.0]))[0]
    assert noisy.wide and intervals.judge(noisy, quiet) == "too noisy"
    assert intervals.judge(quiet, noisy) == "too noisy"
    slower = _estimates(_table(rng, [0.5]))[0]
    assert intervals.judge(quiet, slower) == "slower than its reference"
    assert intervals.judge(quiet, slower, side="library") == "slower"
    faster = _estimates(_table(rng, [20.0]))[0]
    assert intervals.judge(quiet, faster) == "faster"


def test_a_change_between_configurations_agrees_with_welchs_test():
    rng = np.random.default_rng(3)
    for shift in (1.0, 1.03, 1.5):
        a, b = _table(rng, [10.0])[0], _table(rng, [10.0 * shift], log_sd=0.08)[0]
        ea, eb = _estimates([a, b], family=1)
        f, lo, hi = intervals.change(ea, eb, family=1)
        p = stats.ttest_ind(np.log(b), np.log(a), equal_var=False).pvalue
        assert f == pytest.approx(eb.center / ea.center)
        assert (lo > 1 or hi < 1) == (p < 0.05)


def test_within_run_ratio_and_its_spread():
    r = harness.Ratio.of([10.0, 10.0, 10.0, 30.0, 2.0])
    assert r.median == 10.0 and r.spread == 0.0
    wide = harness.Ratio.between([10.0, 20.0, 40.0], [2.0, 2.0, 2.0])
    assert wide.spread == pytest.approx((15.0 - 7.5) / 20.0)


def test_slowed_calls_the_kernel_twice():
    calls = []
    assert harness.slowed(lambda: calls.append(1) or len(calls))() == 2 and len(calls) == 2
    with pytest.raises(ValueError, match="factor"):
        harness.slowed(lambda: None, 0)


def test_measure_and_register_validate():
    with pytest.raises(ValueError, match="rounds"):
        harness.measure({"kernel": int, "reference": int}, rounds=0, min_run_time=0.01)
    with pytest.raises(ValueError, match="kernel and a reference"):
        harness.measure({"kernel": int}, rounds=1, min_run_time=0.01)
    with pytest.raises(ValueError, match="reference or a library"):
        register("x", kernel=int)
    with pytest.raises(ValueError, match="library_name"):
        register("x", kernel=int, library=int)
    with pytest.raises(ValueError, match="decade"):
        register_scaling("x", make=lambda n: int, sizes=(1, 2, 4), size_label="n")
    with pytest.raises(ValueError, match="increasing"):
        register_scaling("x", make=lambda n: int, sizes=(10, 1, 100), size_label="n")


def test_a_bench_module_takes_its_chapter_from_the_registry():
    from icml26.chapters import CHAPTERS

    assert chapter_of("benchmarks.bench_01_med") == "01"
    assert chapter_of("benchmarks.selftest") == ""
    assert run.bench_modules() == [f"benchmarks.{c.bench}" for c in CHAPTERS if c.bench]
    import benchmarks.selftest  # noqa: F401  (registers its case)

    assert any(c.module == "benchmarks.selftest" and c.chapter == "" for c in CASES)


def test_scaling_curve_slopes():
    times, low, high = harness.scaling_curve(lambda n: lambda: np.ones(n).sum(), (10, 100, 1000))
    assert len(times) == 3 and np.isfinite([low, high]).all()


def test_the_page_is_generated_from_the_json_alone(tmp_path):
    rng = np.random.default_rng(4)

    def config(shift):
        cases = []
        for i, truth in enumerate((5.0, 50.0)):
            ratios = _table(rng, [truth * shift])[0]
            side = {"ratios": ratios, "within": [0.01] * K, "seconds": 0.1}
            cases.append(
                {"key": f"bench_01_med: case {i}", "module": "benchmarks.bench_01_med"}
                | {"name": f"case {i}", "library_name": "", "chapter": "01", "kernel_s": 1e-3}
                | {"sides": {"reference": side}}
            )
        return {"env": {}, "meta": [{"load": 3.0, "load_end": 3.0}], "cases": cases}

    results = {
        "machine": {"cpu": "AMD EPYC", "cores": 2, "python": "3.11", "torch": "2", "cuda": None},
        "settings": {"workers": K, "rounds": 2, "min_run_time": 0.1, "level": 0.95},
        "configs": {BOOK: config(1.0), "default": config(0.5)},
    }
    page.write(json.loads(json.dumps(results)), tmp_path)
    text = (tmp_path / "results.md").read_text()
    assert "**AMD EPYC**" in text and "loaded machine" in text
    assert text.count("| 01 | case") == 4
    assert "Of the 2 ratios, these change beyond their interval: 2 under `default`." in text
    assert "no rerun of this configuration is recorded" in text and "## A rerun" not in text
    # a recorded rerun: the run-level term, and how the rerun landed
    results["reruns"] = {BOOK: [config(1.0)]}
    text = page.render(json.loads(json.dumps(results)))
    assert "estimated from 2 ratios measured in two whole runs" in text
    assert "## A rerun, and what one run cannot see" in text
    assert "\n| rerun 1, in-sample | " in text and "check 1" not in text
    # a saved first pass of bench-check is shown, out-of-sample, and does not enter the term
    results["checks"] = {BOOK: [config(1.0)]}
    again = page.render(json.loads(json.dumps(results)))
    assert "\n| check 1, out-of-sample | " in again
    assert page.run_level(results) == page.run_level(results | {"checks": {}})
    # a long identifier may break after its underscores, so a wide table fits a desktop
    assert page._breakable("min_pair_margin (m=40)") == "min_<wbr>pair_<wbr>margin (m=40)"
    # one configuration: the ISA section says it was not measured; a worker's own load of
    # about one thread is not a loaded machine
    results["configs"] = {BOOK: config(1.0)}
    results["configs"][BOOK]["meta"] = [{"load": 1.4, "load_end": 1.2}]
    text = page.render(json.loads(json.dumps(results)))
    assert "Not measured in this run" in text and "loaded machine" not in text


def test_a_worker_gets_its_configuration_and_a_2x_slower_kernel_fails_the_check():
    """Real worker processes on the harness's own case (three per run, short timings)."""
    configs = configurations()
    opts = {"workers": 3, "rounds": 2, "min_run_time": 0.01}
    base = run.measure_kernels(["benchmarks.selftest"], configs[next(iter(configs))], **opts)
    other = configs.get("default", configs[next(iter(configs))])
    rerun = run.measure_kernels(["benchmarks.selftest"], other, slowdown="pure-Python", **opts)
    if "default" in configs:  # set before torch loaded in the worker
        assert {m["capability"] for m in base["meta"]} == {"AVX2"}
        assert {m["capability"] for m in rerun["meta"]} == {"DEFAULT"}
    [(_, side, status, *_)] = run.verdicts(base, rerun)
    assert side == "reference" and status in ("slower", "too noisy")


def test_a_recorded_check_is_shown_on_the_page_and_fails_on_a_slowdown(tmp_path):
    """``--check --record``: the first pass goes to the baseline's ``checks`` and the page."""
    configs = configurations()
    name = BOOK if BOOK in configs else next(iter(configs))
    opts = {"rounds": 2, "min_run_time": 0.01}
    base = run.measure_kernels(["benchmarks.selftest"], configs[name], workers=3, **opts)
    baseline = {
        "configs": {name: base},
        "settings": opts | {"workers": 3},
        "machine": run.machine(),
    }
    path = tmp_path / "results.json"
    code = run.check(
        baseline, ["benchmarks.selftest"], workers=3, slowdown="pure-Python", record=path
    )
    assert code == 1
    saved = json.loads(path.read_text())
    assert len(saved["checks"][name]) == 1 and "reruns" not in saved
    if name == BOOK:
        assert "| check 1, out-of-sample | " in (tmp_path / "results.md").read_text()
    with pytest.raises(ValueError, match="select"):
        run.check(baseline, ["benchmarks.selftest"], workers=3, select="pure", record=path)


def test_make_bench_reruns_the_book_configuration_only_when_it_is_timed(monkeypatch):
    """A rerun (for the run-level term) follows a timing of the book's configuration or
    ``--only rerun``; timing another configuration alone does not rerun the book's."""
    import argparse

    labels = []

    def fake(modules, env, *, workers, label="", **opts):
        labels.append(label)
        return {"env": env, "meta": [], "seconds": 0.0, "cases": []}

    monkeypatch.setattr(run, "configurations", lambda: {BOOK: {"X": "1"}, "avx512": {}})
    monkeypatch.setattr(run, "measure_kernels", fake)
    monkeypatch.setattr(run, "measure_scaling", lambda modules, env: [])
    monkeypatch.setattr(run, "measure_notebooks", lambda: [])
    monkeypatch.setattr(run, "machine", lambda: {})

    def bench(results, **kw):
        labels.clear()
        opts = {"configs": None, "only": None, "workers": 2, "rounds": 2, "min_run_time": 0.1}
        return run.measure(results, argparse.Namespace(**(opts | kw)))

    results = bench({})
    assert labels == [BOOK, "avx512", "rerun"] and len(results["reruns"][BOOK]) == 1
    results = bench(results, configs=["avx512"])
    assert labels == ["avx512"] and len(results["reruns"][BOOK]) == 1
    results = bench(results, only="rerun")
    assert labels == ["rerun"] and len(results["reruns"][BOOK]) == 2
    results = bench(results, configs=[BOOK], only="kernels")  # a new baseline: old reruns go
    assert labels == [BOOK] and "reruns" not in results


def test_the_cpu_is_named_with_its_family_and_model():
    """A baseline is compared only on the same processor: "AMD EPYC" alone names a Zen 3 and
    a Zen 5 alike, so the family and model numbers are part of the name."""
    from benchmarks.workers import cpu_name

    block = "processor\t: 0\nvendor_id\t: AuthenticAMD\ncpu family\t: {f}\nmodel\t\t: {m}\n"
    block += "model name\t: AMD EPYC\n\n"
    zen3, zen5 = block.format(f=25, m=1), block.format(f=26, m=2)
    assert cpu_name(zen5 + zen3) == "AMD EPYC (family 26, model 2)"
    assert cpu_name(zen3) != cpu_name(zen5)
    assert cpu_name("processor\t: 0\nmodel name\t: Some ARM core\n") == "Some ARM core"
    assert cpu_name("") == cpu_name("no colon here")  # platform's name, whatever it is
