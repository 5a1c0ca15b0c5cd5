"""``results.md`` and ``scaling.svg`` (included by the book's Performance page), generated from
``results.json`` alone: ``python -m benchmarks.run --render`` rewrites them without timing."""

from __future__ import annotations

import math
from pathlib import Path

from benchmarks import intervals
from benchmarks.harness import THREADS
from benchmarks.workers import BOOK
from icml26.chapters import BOOK_BUDGET_S, BUDGET_S, TARGET_S

__all__ = ["family", "render", "results_path", "run_level", "write"]

#: A load average above the worker's own threads plus this fraction of the cores labels the
#: figures as measured under load (a worker timing on one thread is itself a load of about 1).
LOADED = 0.5


def results_path(here: Path) -> Path:
    """``results.json``, or ``results-cuda.json`` where CUDA is present."""
    import torch

    return here / ("results-cuda.json" if torch.cuda.is_available() else "results.json")


def family(config: dict) -> int:
    """How many ratios one configuration states (the Bonferroni family of its intervals)."""
    return sum(len(c.get("sides", {})) for c in config["cases"])


def _fmt(seconds: float | None) -> str:
    if seconds is None:
        return "—"
    if seconds < 1e-3:
        return f"{seconds * 1e6:.0f} µs"
    return f"{seconds * 1e3:.2f} ms" if seconds < 1 else f"{seconds:.2f} s"


def _estimates(
    config: dict, run: intervals.RunLevel = intervals.NONE, *, n: int | None = None
) -> dict[tuple[str, str], intervals.Estimate]:
    n = n or family(config)
    return {
        (c["key"], side): intervals.estimate(s["ratios"], s["within"], family=n, run=run)
        for c in config["cases"]
        for side, s in c.get("sides", {}).items()
    }


def _runs(results: dict) -> list[dict]:
    """The whole-suite runs of the book's configuration: the baseline, then its reruns."""
    book = results.get("configs", {}).get(BOOK)
    return [book, *results.get("reruns", {}).get(BOOK, [])] if book else []


def run_level(results: dict) -> intervals.RunLevel:
    """The run-level component of the machine, from every pair of recorded whole-suite runs
    of the book's configuration (none recorded: 0, see :mod:`benchmarks.intervals`)."""
    runs = [_estimates(r) for r in _runs(results)]
    first, second = [], []
    for i, a in enumerate(runs):
        for b in runs[i + 1 :]:
            common = [k for k in a if k in b]
            first += [a[k] for k in common]
            second += [b[k] for k in common]
    return intervals.run_level(first, second) if first else intervals.NONE


def _load(config: dict) -> float | None:
    loads = [m[k] for m in config["meta"] for k in ("load", "load_end") if m.get(k) is not None]
    return sum(loads) / len(loads) if loads else None


def _header(results: dict) -> list[str]:
    m, s = results["machine"], results.get("settings", {})
    cuda = f", CUDA {m['cuda']}" if m.get("cuda") else ", CPU only"
    lines = [
        f"Measured on: **{m['cpu']}**, {m['cores']} cores, one torch thread per timing, "
        f"Python {m['python']}, torch {m['torch']}{cuda}."
    ]
    book = results.get("configs", {}).get(BOOK)
    load = _load(book) if book else None
    if load is not None and load - THREADS > LOADED * m["cores"]:
        lines += [
            "",
            f"```{{warning}}\nThese kernel timings were taken on a loaded machine (load average "
            f"{load:.1f} on {m['cores']} cores, the timing worker's own {THREADS} included): "
            "they show the method, not the kernels' speed, "
            "and the next `make bench` on a quiet machine replaces them.\n```",
        ]
    if s:
        lines += [
            "",
            f"Every configuration was timed by {s['workers']} independent worker processes, "
            f"each a whole run of the suite ({s['rounds']} interleaved rounds per case).",
        ]
    return lines


def _side(c: dict, side: str, est: dict) -> str:
    s = c.get("sides", {}).get(side)
    if s is None:
        return "—"
    lib = f"{c['library_name']}, " if side == "library" else ""
    return f"{est[(c['key'], side)].text()} ({lib}{_fmt(s['seconds'])})"


def kernel_section(config: dict, run: intervals.RunLevel) -> list[str]:
    est = _estimates(config, run)
    wide = [e.half_width for e in est.values()]
    within = [e.within for e in est.values()]
    lines = [
        "Each ratio is (other / kernel) time: above 1× the kernel is faster. It is the geometric "
        "mean over the independent worker processes, each one's ratio the median of its "
        "interleaved rounds. In brackets, the interval that a rerun of `make bench` on this "
        f"machine lands in, for all {len(est)} ratios at once with {_level()} confidence "
        f"(Student's t, Bonferroni over the ratios): {_run_text(run)} ⚠ marks an interval "
        f"wider than ×/÷ {intervals.WIDE}, too noisy to reveal a 2× change. For comparison, "
        f"the spread *within* one process (half the interquartile range of its rounds) is "
        f"{_pct(within)} for the median ratio, the rerun interval {_pct(wide, log=True)}.",
        "",
        "| ch. | case | kernel | reference / kernel | library / kernel |",
        "|---|---|---|---|---|",
    ]
    for c in config["cases"]:
        if "error" in c:
            lines.append(f"| {c['chapter']} | {c['name']} | failed: {c['error']} | — | — |")
            continue
        ref, lib = _side(c, "reference", est), _side(c, "library", est)
        name = _breakable(c["name"])
        lines.append(f"| {c['chapter']} | {name} | {_fmt(c['kernel_s'])} | {ref} | {lib} |")
    return lines


def _run_text(run: intervals.RunLevel) -> str:
    if not run.pairs:
        return (
            "no rerun of this configuration is recorded, so the interval holds only the "
            "variation between the workers of one run, and understates a rerun's for the "
            "steadiest cases."
        )
    return (
        "it adds to the variation between the workers of one run a run-level component "
        f"shared by all the workers of a run, of s.d. {100 * run.sd:.1f} % on the log scale, "
        f"estimated from {run.pairs} ratios measured in two whole runs (see below)."
    )


def rerun_section(results: dict, run: intervals.RunLevel) -> list[str]:
    """How the recorded reruns (in-sample: they estimate the run-level term) and the saved
    first passes of ``make bench-check`` (out-of-sample) land in the baseline's intervals,
    with the run-level term and without it."""
    runs = _runs(results)
    checks = results.get("checks", {}).get(BOOK, [])
    if len(runs) < 2 and not checks:
        return []
    n = family(runs[0])
    with_run, without = _estimates(runs[0], run), _estimates(runs[0])
    lines = [
        "A whole rerun of the book's configuration (the same workers, rounds and machine, "
        "started anew) moves every ratio a little, and by more than the workers of one run "
        "differ from each other: they share the machine's state over those minutes. Each "
        "run below is compared with the baseline ratio by ratio. The reruns estimate the "
        f"run-level s.d. ({100 * run.sd:.1f} %, method of moments, as in random-effects "
        "meta-analysis), so they test the interval only in-sample; the first passes of "
        "`make bench-check` that followed, which the estimate did not see, test it "
        "out-of-sample.",
        "",
        "| run | median move | inside, workers only | inside, with run term "
        "| largest move ÷ half-width |",
        "|---|---|---|---|---|",
    ]
    labels = [f"rerun {i}, in-sample" for i in range(1, len(runs))]
    labels += [f"check {i}, out-of-sample" for i in range(1, len(checks) + 1)]
    for label, r in zip(labels, runs[1:] + checks, strict=True):
        new = _estimates(r, n=n)
        moves = {
            k: abs(math.log(e.center / with_run[k].center)) for k, e in new.items() if k in with_run
        }
        inside = [sum(m <= e[k].half_width for k, m in moves.items()) for e in (without, with_run)]
        worst = max(m / with_run[k].half_width for k, m in moves.items())
        mid = sorted(moves.values())[len(moves) // 2]
        lines.append(
            f"| {label} | {100 * mid:.1f} % | {inside[0]} of {len(moves)} "
            f"| {inside[1]} of {len(moves)} | {worst:.2f} |"
        )
    return lines


def _breakable(name: str) -> str:
    """A case name whose long identifiers (``min_pair_centroid_margin``) may break after an
    underscore, so that a table of many columns fits a desktop column without scrolling."""
    return name.replace("_", "_<wbr>")


def _level() -> str:
    return f"{100 * intervals.LEVEL:.0f} %"


def _pct(values: list[float], *, log: bool = False) -> str:
    """The median of relative spreads (``log``: half-widths on the log scale) as text."""
    finite = sorted(v for v in values if math.isfinite(v))
    if not finite:
        return "—"
    mid = finite[len(finite) // 2]
    factor = math.exp(mid) if log else 1 + mid
    if factor >= 1.5:
        return f"×/÷ {factor:.1f}"
    pct = 100 * (factor - 1)
    return f"±{pct:.1f} %" if pct < 1 else f"±{pct:.0f} %"  # not "±0 %" for a real spread


def isa_section(configs: dict, run: intervals.RunLevel) -> list[str]:
    """Every ratio under the book's configuration beside the others, with the change."""
    others = [n for n in configs if n != BOOK]
    if BOOK not in configs or not others:
        return []
    book = _estimates(configs[BOOK], run)
    alt = {n: _estimates(configs[n], run) for n in others}
    n = family(configs[BOOK])
    env = " / ".join(f"`ATEN_CPU_CAPABILITY={o}`" for o in others)
    head = " | ".join(f"{o} | {o} / {BOOK}" for o in others)
    lines = [
        f"The same ratios with ATen's vectorised kernels on AVX2 (`{BOOK}`, the book's "
        f"configuration) and under {env}; MKL, oneDNN and NumPy keep the book's settings. "
        f"Each column `… / {BOOK}` is the factor by which the ratio changes, with its "
        f"{_level()} simultaneous interval (each configuration was a run of its own, so the "
        "run-level term enters twice); **bold** where the interval excludes 1 (the ratio "
        "depends on the vector ISA of the element-wise kernels).",
        "",
        f"| ch. | case | side | {BOOK} | {head} |",
        "|---|---|---|---|" + "---|---|" * len(others),
    ]
    moved = dict.fromkeys(others, 0)
    chapters = {c["key"]: c["chapter"] for c in configs[BOOK]["cases"]}
    for key, side in book:
        cells = []
        for o in others:
            if (key, side) not in alt[o]:
                cells += ["—", "—"]
                continue
            pair = book[(key, side)], alt[o][(key, side)]
            f, lo, hi = intervals.change(*pair, family=n, run=run)
            text = f"{f:.2f}× ({lo:.2f}–{hi:.2f})"
            if hi < 1 or lo > 1:
                moved[o] += 1
                text = f"**{text}**"
            cells += [alt[o][(key, side)].text(), text]
        name = _breakable(key.split(": ", 1)[1])
        lines.append(
            f"| {chapters[key]} | {name} | {side} | {book[(key, side)].text()} | "
            + " | ".join(cells)
            + " |"
        )
    counts = "; ".join(f"{moved[o]} under `{o}`" for o in others)
    lines += ["", f"Of the {len(book)} ratios, these change beyond their interval: {counts}."]
    return lines


def scaling_section(rows: list[dict]) -> list[str]:
    lines = [
        "Seconds per call of each chapter's main kernel against the problem size, with the "
        "log-log slope over the lower and the upper half of the sizes: near 0 the kernel is "
        "overhead-bound (fixed per-call costs dominate), near 1 it does work in proportion "
        "to the size (the figure `scaling.svg` shows the curves).",
        "",
        "| ch. | kernel | sizes | time at the smallest / largest | slope, lower half "
        "| slope, upper half |",
        "|---|---|---|---|---|---|",
    ]
    for s in rows:
        t, (low, high) = s["times"], s["slopes"]
        lines.append(
            f"| {s['chapter']} | {s['name']} | {s['sizes'][0]}–{s['sizes'][-1]} "
            f"{s['size_label']} | {_fmt(t[0])} / {_fmt(t[-1])} | {low:.2f} | {high:.2f} |"
        )
    return lines


def notebook_section(rows: list[dict]) -> list[str]:
    lines = [
        "Each chapter executed end to end at the default scale, one after the other, on the "
        "machine above.",
        "",
        f"| chapter | wall time | against the {BUDGET_S:.0f} s budget |",
        "|---|---|---|",
    ]
    for r in rows:
        s = r["seconds"]
        verdict = (
            "within the 30 s target"
            if s <= TARGET_S
            else "within budget"
            if s <= BUDGET_S
            else "**over budget**"
        )
        lines.append(f"| {r['stem']} | {s:.1f} s | {verdict} |")
    total = sum(r["seconds"] for r in rows)
    ok = "within" if total <= BOOK_BUDGET_S else "**over**"
    lines.append(f"| whole book | {total / 60:.1f} min | {ok} the 15-minute budget |")
    return lines


def render(results: dict) -> str:
    """The results page (Markdown, included by ``book/performance.md``)."""
    parts = [*_header(results), ""]
    configs = results.get("configs", {})
    main = configs.get(BOOK) or next(iter(configs.values()), None)
    run = run_level(results)
    sections = [
        ("Kernels against their references and libraries", main and kernel_section(main, run)),
        ("A rerun, and what one run cannot see", rerun_section(results, run)),
        ("The vector ISA: which ratios depend on it", isa_section(configs, run)),
        (
            "How cost grows with work",
            results.get("scaling") and scaling_section(results["scaling"]),
        ),
        (
            "Notebook execution times",
            results.get("notebooks") and notebook_section(results["notebooks"]),
        ),
    ]
    if len(configs) == 1:
        sections.insert(
            1,
            (
                "The vector ISA: which ratios depend on it",
                [
                    f"Not measured in this run: it timed one configuration, `{next(iter(configs))}`"
                    ". `make bench` without `--configs` times every configuration of the "
                    "machine and compares them here."
                ],
            ),
        )
    for title, body in sections:
        if body:
            parts += [f"## {title}", "", *body, ""]
    return "\n".join(parts)


def scaling_svg(rows: list[dict], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from icml26 import plotting

    plotting.use_book_style()
    cols = min(4, max(1, len(rows)))
    nrows = -(-max(1, len(rows)) // cols)
    fig, grid = plt.subplots(nrows, cols, figsize=(7.5, 2.1 * nrows), squeeze=False)
    axes = list(grid.flat)
    for ax in axes[len(rows) :]:
        ax.set_axis_off()
    for ax, s in zip(axes, rows, strict=False):
        sizes, times = s["sizes"], s["times"]
        ax.loglog(sizes, times, "o-", ms=3)
        ax.loglog(
            sizes,
            [times[-1] * n / sizes[-1] for n in sizes],
            ":",
            color="grey",
            lw=1,
            label="∝ size",
        )
        ax.set_title(f"ch. {s['chapter']}", fontsize=9)
        ax.set_xlabel(s["size_label"].split(" (")[0], fontsize=8)
        ax.tick_params(labelsize=8)
        ax.legend(fontsize=8)
    for row in grid:
        row[0].set_ylabel("seconds per call", fontsize=8)
    fig.tight_layout()
    fig.savefig(path, metadata={"Date": None})  # no timestamp: no churn on a re-render
    plt.close(fig)


def write(results: dict, here: Path) -> None:
    """Write ``results.md`` (and ``scaling.svg`` when scaling was measured) beside ``here``."""
    cuda = results.get("machine", {}).get("cuda")
    (here / ("results-cuda.md" if cuda else "results.md")).write_text(render(results))
    if results.get("scaling") and not cuda:
        scaling_svg(results["scaling"], here / "scaling.svg")
