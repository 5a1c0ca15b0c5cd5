"""``make bench``: time every registered case and write ``benchmarks/results.md``.

Each callable runs once to warm up, then ``repeats`` times; the median wall time is reported,
with the reference's and the library's time as multiples of the kernel's. The book's
Performance page includes the table, with the machine it was measured on.
"""

from __future__ import annotations

import importlib
import os
import platform
import statistics
import sys
import time
from pathlib import Path

import torch

from benchmarks.registry import CASES
from icml26.chapters import CHAPTERS

HERE = Path(__file__).resolve().parent


def median_seconds(fn, repeats: int) -> float:
    fn()
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def _cpu_name() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _fmt(seconds: float) -> str:
    return f"{seconds * 1e3:.2f} ms" if seconds < 1 else f"{seconds:.2f} s"


def main() -> int:
    for chapter in CHAPTERS:  # the registry names each chapter's benchmark module
        if chapter.bench:
            importlib.import_module(f"benchmarks.{chapter.bench}")
    if not CASES:
        print("no benchmark cases registered")
        return 0
    rows = []
    for case in CASES:
        k = median_seconds(case.kernel, case.repeats)
        r = median_seconds(case.reference, case.repeats) if case.reference else None
        lib = median_seconds(case.library, case.repeats) if case.library else None
        rows.append((case, k, r, lib))
        print(f"{case.chapter} {case.name}: kernel {_fmt(k)}", file=sys.stderr)
    machine = (
        f"{_cpu_name()}, {os.cpu_count()} cores, "
        f"Python {platform.python_version()}, torch {torch.__version__}, "
        f"{'CUDA ' + torch.cuda.get_device_name() if torch.cuda.is_available() else 'CPU only'}"
    )
    lines = [
        f"Measured on: {machine}. Median of repeated runs after one warm-up.",
        "",
        "| chapter | kernel | icml26 kernel | reference | reference / kernel "
        "| library | library / kernel |",
        "|---|---|---|---|---|---|---|",
    ]
    for case, k, r, lib in rows:
        ref = (_fmt(r), f"{r / k:.1f}×") if r is not None else ("—", "—")
        li = (f"{case.library_name}: {_fmt(lib)}", f"{lib / k:.1f}×") if lib else ("—", "—")
        lines.append(
            f"| {case.chapter} | {case.name} | {_fmt(k)} | {ref[0]} | {ref[1]} "
            f"| {li[0]} | {li[1]} |"
        )
    (HERE / "results.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
