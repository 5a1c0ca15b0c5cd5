"""``make bench``: time every registered case and write ``benchmarks/results.md``.

    python -m benchmarks.run                 # kernels, scaling curves and notebook times
    python -m benchmarks.run --only kernels  # one section (kernels | scaling | notebooks)
    python -m benchmarks.run --check         # run the kernel cases twice; fail if a ratio moved

See :mod:`benchmarks.harness` for how a ratio is measured. The book's Performance page includes
``results.md`` and ``scaling.svg``; results measured on a GPU go to ``results-cuda.md``.
"""

from __future__ import annotations

import argparse
import importlib
import os
import platform
import sys
from pathlib import Path

import torch

from benchmarks import harness
from benchmarks.registry import CASES, SCALING, Case
from icml26.chapters import CHAPTERS

HERE = Path(__file__).resolve().parent
BUDGET_S, TARGET_S, BOOK_BUDGET_S = 60.0, 30.0, 15 * 60.0


def _cpu_name() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _fmt(seconds: float) -> str:
    if seconds < 1e-3:
        return f"{seconds * 1e6:.0f} µs"
    return f"{seconds * 1e3:.2f} ms" if seconds < 1 else f"{seconds:.2f} s"


def machine() -> str:
    dev = f"CUDA {torch.cuda.get_device_name()}" if torch.cuda.is_available() else "CPU only"
    return (
        f"{_cpu_name()}, {os.cpu_count()} cores, {harness.THREADS} torch thread per timing, "
        f"Python {platform.python_version()}, torch {torch.__version__}, {dev}"
    )


def load_cases() -> None:
    for chapter in CHAPTERS:  # the registry names each chapter's benchmark module
        if chapter.bench:
            importlib.import_module(f"benchmarks.{chapter.bench}")


def kernel_rows(cases: list[Case], rounds: int) -> tuple[list[str], list[harness.Comparison]]:
    lines = [
        "| ch. | case | kernel | reference / kernel | library / kernel |",
        "|---|---|---|---|---|",
    ]
    results = []
    for case in cases:
        c = harness.compare(case.kernel, case.reference, case.library, rounds=rounds)
        results.append(c)
        ref = f"{c.reference.text()} ({_fmt(c.reference_s)})" if c.reference else "—"
        lib = f"{c.library.text()} ({case.library_name}, {_fmt(c.library_s)})" if c.library else "—"
        lines.append(f"| {case.chapter} | {case.name} | {_fmt(c.kernel_s)} | {ref} | {lib} |")
        print(lines[-1], file=sys.stderr)
    return lines, results


def scaling_section() -> list[str]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from icml26 import plotting

    plotting.use_book_style()
    lines = [
        "| ch. | kernel | sizes | time at the smallest / largest | slope, lower half "
        "| slope, upper half |",
        "|---|---|---|---|---|---|",
    ]
    cols = min(4, max(1, len(SCALING)))
    rows = -(-max(1, len(SCALING)) // cols)
    fig, grid = plt.subplots(rows, cols, figsize=(7.5, 2.1 * rows), squeeze=False)
    axes = list(grid.flat)
    for ax in axes[len(SCALING) :]:
        ax.set_axis_off()
    for ax, s in zip(axes, SCALING, strict=False):
        times, low, high = harness.scaling_curve(s.make, s.sizes)
        lines.append(
            f"| {s.chapter} | {s.name} | {s.sizes[0]}–{s.sizes[-1]} {s.size_label} "
            f"| {_fmt(times[0])} / {_fmt(times[-1])} | {low:.2f} | {high:.2f} |"
        )
        print(lines[-1], file=sys.stderr)
        ax.loglog(s.sizes, times, "o-", ms=3)
        ref = [times[-1] * n / s.sizes[-1] for n in s.sizes]
        ax.loglog(s.sizes, ref, ":", color="grey", lw=1, label="∝ size")
        ax.set_title(f"ch. {s.chapter}", fontsize=9)
        ax.set_xlabel(s.size_label.split(" (")[0], fontsize=8)
        ax.tick_params(labelsize=7)
        ax.legend(fontsize=6)
    for row in grid:
        row[0].set_ylabel("seconds per call", fontsize=8)
    fig.tight_layout()
    fig.savefig(HERE / "scaling.svg")
    plt.close(fig)
    return lines


def notebook_section() -> list[str]:
    from icml26.pipeline.notebooks import NOTEBOOKS, execute

    lines = ["| chapter | wall time | against the 60 s budget |", "|---|---|---|"]
    total = 0.0
    for c in CHAPTERS:
        seconds = execute(NOTEBOOKS / f"{c.stem}.py", write=False)
        total += seconds
        verdict = (
            "within the 30 s target"
            if seconds <= TARGET_S
            else "within budget"
            if seconds <= BUDGET_S
            else "**over budget**"
        )
        lines.append(f"| {c.stem} | {seconds:.1f} s | {verdict} |")
        print(lines[-1], file=sys.stderr)
    ok = "within" if total <= BOOK_BUDGET_S else "**over**"
    lines.append(f"| whole book | {total / 60:.1f} min | {ok} the 15-minute budget |")
    return lines


def check(rounds: int) -> int:
    """Run every kernel case twice; report the ratios that moved beyond their spread."""
    _, first = kernel_rows(CASES, rounds)
    _, second = kernel_rows(CASES, rounds)
    moved = []
    for case, a, b in zip(CASES, first, second, strict=True):
        for name in ("reference", "library"):
            ra, rb = getattr(a, name), getattr(b, name)
            if ra and rb and not harness.consistent(ra, rb):
                moved.append(f"{case.chapter} {case.name} ({name}): {ra.text()} then {rb.text()}")
    print("\n".join(moved) or "every ratio reproduced within its spread")
    return 1 if moved else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.run", description=__doc__)
    parser.add_argument("--only", choices=["kernels", "scaling", "notebooks"], default=None)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args(argv)
    torch.set_num_threads(harness.THREADS)
    load_cases()
    if args.check:
        return check(args.rounds)
    cuda = torch.cuda.is_available()
    out = HERE / ("results-cuda.md" if cuda else "results.md")
    old = out.read_text() if out.exists() else ""
    sections = {}
    if args.only in (None, "kernels"):
        lines, _ = kernel_rows(CASES, args.rounds)
        sections["kernels"] = lines
    if args.only in (None, "scaling"):
        sections["scaling"] = scaling_section()
    if args.only in (None, "notebooks") and not cuda:
        sections["notebooks"] = notebook_section()
    text = render(sections, old)
    out.write_text(text)
    print(text)
    return 0


TITLES = {
    "kernels": "Kernels against their references and libraries",
    "scaling": "How cost grows with work",
    "notebooks": "Notebook execution times",
}
INTRO = {
    "kernels": (
        "Each ratio is the median over interleaved rounds of (other / kernel) time, ± half its "
        "interquartile range; ⚠ marks a spread wider than ±25 %. Above 1× the kernel is faster."
    ),
    "scaling": (
        "Seconds per call of each chapter's main kernel against the problem size, with the "
        "log-log slope over the lower and the upper half of the sizes: near 0 the kernel is "
        "overhead-bound (fixed per-call costs dominate), near 1 it does work in proportion "
        "to the size (the figure `scaling.svg` shows the curves)."
    ),
    "notebooks": (
        "Each chapter executed end to end at the default scale, one after the other, on the "
        "machine above."
    ),
}


def render(sections: dict[str, list[str]], old: str) -> str:
    """The results page; sections not re-measured this time are kept from ``old``."""
    kept = {}
    for key, title in TITLES.items():
        head = f"## {title}\n"
        if key not in sections and head in old:
            body = old.split(head, 1)[1].split("\n## ", 1)[0]
            kept[key] = head + body.rstrip("\n")
    parts = [f"Measured on: {machine()}.", ""]
    for key, title in TITLES.items():
        if key in sections:
            parts += [f"## {title}", "", INTRO[key], "", *sections[key], ""]
        elif key in kept:
            parts += [kept[key], ""]
    return "\n".join(parts)


if __name__ == "__main__":
    sys.exit(main())
