"""``make bench`` and ``make bench-check``: ratios with an interval that covers a rerun.

    python -m benchmarks.run                  # every section, every configuration (~1 h each)
    python -m benchmarks.run --only kernels   # one section (kernels|rerun|scaling|notebooks)
    python -m benchmarks.run --configs avx2   # only the book's numeric configuration
    python -m benchmarks.run --only rerun     # the book's configuration once more (~40 min)
    python -m benchmarks.run --render         # rewrite results.md, scaling.svg from results.json
    python -m benchmarks.run --check          # rerun the kernels; fail if a ratio left its interval
    python -m benchmarks.run --check --record # ... and add its first pass to the page
    python -m benchmarks.run --check --select centroid --slowdown centroid_margins
                                              # ... of two cases, one kernel made 2x slower

The kernel cases are timed by ``--workers`` independent worker processes per numeric
configuration (:mod:`benchmarks.workers`); each ratio is stated with the interval a rerun
lands in (:mod:`benchmarks.intervals`), whose run-level term comes from the recorded whole
reruns of the book's configuration (``reruns``). Everything measured goes to
``results.json`` (the baseline of ``--check``, on the machine that measured it);
``results.md`` and ``scaling.svg``, which the book's Performance page includes, are
generated from it (:mod:`benchmarks.page`). On a machine with CUDA the files are ``results-cuda.*``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from benchmarks import intervals, page
from benchmarks.harness import SIDES, Ratio
from benchmarks.workers import BOOK, Options, configurations, cpu_name, run_workers

HERE = Path(__file__).resolve().parent
WORKERS, ROUNDS, MIN_RUN_TIME = 8, 2, 0.1


def bench_modules() -> list[str]:
    """The benchmark modules the chapter registry names, in chapter order."""
    from icml26.chapters import CHAPTERS

    return [f"benchmarks.{c.bench}" for c in CHAPTERS if c.bench]


def summarise(results: list[dict]) -> list[dict]:
    """Per case: each worker's ratio (median over its rounds) and within-run spread."""
    from benchmarks.registry import chapter_of

    cases: dict[str, dict] = {}
    for result in results:
        for row in result["cases"]:
            case = cases.setdefault(
                row["key"],
                {k: row[k] for k in ("key", "module", "name", "library_name")}
                | {"chapter": chapter_of(row["module"]), "kernel_s": [], "sides": {}},
            )
            if "error" in row:
                case["error"] = row["error"]
                continue
            times = row["times"]
            case["kernel_s"] += times["kernel"]
            for side in SIDES[1:]:
                if side in times:
                    r = Ratio.between(times[side], times["kernel"])
                    s = case["sides"].setdefault(side, {"ratios": [], "within": [], "s": []})
                    s["ratios"].append(r.median)
                    s["within"].append(r.spread)
                    s["s"] += times[side]
    for case in cases.values():
        case["kernel_s"] = _median(case["kernel_s"])
        for s in case["sides"].values():
            s["seconds"] = _median(s.pop("s"))
    return sorted(cases.values(), key=lambda c: (c["chapter"], c["module"]))


def _median(xs: list[float]) -> float | None:
    return sorted(xs)[len(xs) // 2] if xs else None


def measure_kernels(
    modules: list[str], env: dict[str, str], *, workers: int, label: str = "", **opts
) -> dict:
    """One configuration: ``workers`` workers over ``modules``, summarised."""
    start = time.monotonic()
    results = run_workers(Options(modules, **opts), env=env, workers=workers, label=label)
    return {
        "env": env,
        "meta": [r["meta"] for r in results],
        "seconds": time.monotonic() - start,
        "cases": summarise(results),
    }


def measure_scaling(modules: list[str], env: dict[str, str]) -> list[dict]:
    from benchmarks.registry import chapter_of

    [result] = run_workers(Options(modules, scaling=True), env=env, workers=1, label="scaling")
    return [s | {"chapter": chapter_of(s["module"])} for s in result["scaling"]]


def measure_notebooks() -> list[dict]:
    from icml26.chapters import CHAPTERS
    from icml26.pipeline.notebooks import NOTEBOOKS, execute

    rows = []
    for c in CHAPTERS:
        rows.append({"stem": c.stem, "seconds": execute(NOTEBOOKS / f"{c.stem}.py", write=False)})
        print(f"{c.stem}: {rows[-1]['seconds']:.1f} s", file=sys.stderr)
    return rows


def verdicts(
    baseline: dict, rerun: dict, run: intervals.RunLevel = intervals.NONE
) -> list[tuple[str, str, str, str, str]]:
    """(key, side, status, baseline text, rerun text) for every ratio of ``rerun``, the
    intervals with the ``run``-level term."""
    family = page.family(baseline)
    base = {c["key"]: c for c in baseline["cases"]}
    out = []
    for case in rerun["cases"]:
        if "error" in case:
            out.append((case["key"], "—", "error", "", case["error"]))
            continue
        for side, s in case["sides"].items():
            new = intervals.estimate(s["ratios"], s["within"], family=family, run=run)
            old = base.get(case["key"], {}).get("sides", {}).get(side)
            if old is None:
                out.append((case["key"], side, "new", "—", new.text()))
                continue
            before = intervals.estimate(old["ratios"], old["within"], family=family, run=run)
            status = intervals.judge(before, new, side=side)
            out.append((case["key"], side, status, before.text(), new.text()))
    return out


def check(
    baseline: dict,
    modules: list[str],
    *,
    workers: int,
    slowdown: str | None = None,
    select: str | None = None,
    confirm: bool = True,
    save: Path | None = None,
    record: Path | None = None,
) -> int:
    """Rerun the book configuration's kernels (those whose name contains ``select``, if
    given) and compare with ``baseline``; a ratio outside its interval is measured once more
    by fresh workers and fails only if it is still out. ``save``: write the first pass there
    (a whole rerun, in the form of ``reruns`` in ``results.json``); ``record``: append it to
    the ``checks`` of that baseline file and re-render the page, which shows it as an
    out-of-sample test of the intervals (it does not enter the run-level term).

    Every worker imports all of ``modules``, as the baseline's did, even when it times a few
    cases: the process a case is timed in is part of what is measured. A cold process that
    imports one module has a small heap, and glibc's malloc, whose threshold for serving a
    block by ``mmap`` adapts to what the process has freed so far, may then map and unmap a
    kernel's megabyte-sized temporaries on every call. Chapter 14's intrinsic advantages
    (about 1 ms) read 1.04-1.89 ms per call in such processes, 1.03-1.09 ms in the same
    processes with the thresholds fixed (``MALLOC_MMAP_THRESHOLD_``, ``MALLOC_TRIM_THRESHOLD_``)
    and 1.03-1.11 ms in processes that imported the suite, as against the baseline's 1.11 ms.
    """
    if record is not None and select is not None:
        raise ValueError("record takes a whole check: it cannot be combined with select")
    name = BOOK if BOOK in baseline["configs"] else "native"
    config = baseline["configs"][name]
    settings = baseline["settings"]
    opts = {"rounds": settings["rounds"], "min_run_time": settings["min_run_time"]}
    if select is not None:
        opts["cases"] = [c["key"] for c in config["cases"] if select in c["name"]]
        if not opts["cases"]:
            print(f"no case of the baseline has {select!r} in its name")
            return 2
    rerun = measure_kernels(
        modules,
        config["env"],
        workers=workers,
        slowdown=slowdown,
        label="check",
        **opts,
    )
    if save is not None:
        save.write_text(json.dumps(rerun, indent=1, ensure_ascii=False) + "\n")
    if record is not None:
        baseline.setdefault("checks", {}).setdefault(name, []).append(rerun)
        record.write_text(json.dumps(baseline, indent=1, ensure_ascii=False) + "\n")
        page.write(baseline, record.parent)
    run = page.run_level(baseline)
    found = verdicts(config, rerun, run)
    suspect = sorted({key for key, _, status, *_ in found if status not in ("ok", "new")})
    if suspect and confirm:
        print(f"{len(suspect)} case(s) out of their interval: measured again", file=sys.stderr)
        for key, side, status, before, now in found:  # kept in the log whatever follows
            if key in suspect and status not in ("ok", "new"):
                print(f"FIRST PASS {status.upper()}: {key} ({side}): {before} then {now}")
        again = measure_kernels(
            modules,
            config["env"],
            workers=workers,
            slowdown=slowdown,
            label="confirm",
            **(opts | {"cases": suspect}),
        )
        confirmed = {(k, side): v for k, side, *v in verdicts(config, again, run)}
        found = [(k, side, *confirmed.get((k, side), v)) for k, side, *v in found]
    failed = [v for v in found if v[2] not in ("ok", "new")]
    for key, side, status, before, now in found:
        if status != "ok" or select is not None:  # a selection is read case by case
            print(f"{status.upper()}: {key} ({side}): {before} then {now}")
    if any(v[2] == "too noisy" for v in found):
        print(
            "TOO NOISY: an interval wider than ×/÷ 1.5 cannot reveal a 2× change; measure on "
            "a quieter machine (or with more --workers)"
        )
    n = len(found)
    print(
        f"{n - len(failed)} of {n} ratios inside their interval"
        + ("" if not failed else f"; {len(failed)} failed the check")
    )
    return 1 if failed else 0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m benchmarks.run",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--only", choices=["kernels", "rerun", "scaling", "notebooks"], default=None)
    p.add_argument("--configs", nargs="+", default=None, help="default: all configurations")
    p.add_argument(
        "--workers", type=int, default=None, help=f"default {WORKERS}; the baseline's with --check"
    )
    p.add_argument("--rounds", type=int, default=ROUNDS)
    p.add_argument("--min-run-time", type=float, default=MIN_RUN_TIME)
    p.add_argument("--check", action="store_true")
    p.add_argument("--slowdown", default=None, help="with --check: a 2x slower kernel")
    p.add_argument("--select", default=None, help="with --check: only the cases named so")
    p.add_argument("--baseline", type=Path, default=None)
    p.add_argument("--save", type=Path, default=None, help="with --check: write the rerun")
    p.add_argument("--record", action="store_true", help="with --check: add it to the page")
    p.add_argument("--render", action="store_true")
    args = p.parse_args(argv)
    out = page.results_path(HERE)
    if args.check:
        path = args.baseline or out
        if not path.exists():
            print(f"no baseline {path.name}: run `make bench` on this machine first")
            return 2
        baseline = json.loads(path.read_text())
        if baseline["machine"]["cpu"] != cpu_name():
            print(
                f"{path.name} was measured on {baseline['machine']['cpu']}, this is "
                f"{cpu_name()}: ratios differ between CPUs (see the Performance page), so a "
                "rerun here is not comparable. Record a baseline here with `make bench`."
            )
            return 2
        workers = args.workers or baseline["settings"]["workers"]
        return check(
            baseline,
            bench_modules(),
            workers=workers,
            slowdown=args.slowdown,
            select=args.select,
            save=args.save,
            record=path if args.record else None,
        )
    results = json.loads(out.read_text()) if out.exists() else {}
    if args.render and not results:
        print(f"no {out.name} to render: run `make bench` first")
        return 2
    if not args.render:
        args.workers = args.workers or WORKERS
        results = measure(results, args)
        out.write_text(json.dumps(results, indent=1, ensure_ascii=False) + "\n")
    page.write(results, HERE)
    return 0


def measure(results: dict, args: argparse.Namespace) -> dict:
    """Measure the sections asked for; keep the others from ``results``."""
    configs = configurations()
    names = args.configs or list(configs)
    unknown = set(names) - set(configs)
    if unknown:
        raise SystemExit(f"--configs: unknown {sorted(unknown)}; this machine has {list(configs)}")
    modules = bench_modules()
    if args.only in (None, "kernels"):
        settings = {"workers": args.workers, "rounds": args.rounds}
        settings |= {"min_run_time": args.min_run_time, "level": intervals.LEVEL}
        measured = {
            name: measure_kernels(
                modules,
                configs[name],
                workers=args.workers,
                rounds=args.rounds,
                min_run_time=args.min_run_time,
                label=name,
            )
            for name in names
        }
        keep = results.get("configs", {}) if results.get("settings") == settings else {}
        results["configs"] = keep | measured
        results["settings"] = settings
        if BOOK in measured or BOOK not in results["configs"]:  # of an old baseline
            results.pop("reruns", None)
            results.pop("checks", None)
    rerun = args.only == "rerun" or (args.only is None and BOOK in names)
    if rerun and BOOK in configs and BOOK in results.get("configs", {}):
        s = results["settings"]
        again = measure_kernels(
            modules,
            configs[BOOK],
            workers=s["workers"],
            rounds=s["rounds"],
            min_run_time=s["min_run_time"],
            label="rerun",
        )
        results.setdefault("reruns", {}).setdefault(BOOK, []).append(again)
    book = configs.get(BOOK, next(iter(configs.values())))
    if args.only in (None, "scaling"):
        results["scaling"] = measure_scaling(modules, book)
    if args.only in (None, "notebooks"):
        results["notebooks"] = measure_notebooks()
    results["machine"] = machine()
    return results


def machine() -> dict:
    import os
    import platform

    import torch

    cuda = torch.cuda.get_device_name() if torch.cuda.is_available() else None
    return {
        "cpu": cpu_name(),
        "cores": os.cpu_count(),
        "python": platform.python_version(),
        "torch": torch.__version__,
        "cuda": cuda,
    }


if __name__ == "__main__":
    sys.exit(main())
