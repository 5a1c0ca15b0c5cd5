"""Independent worker processes: the process model of pyperf, with interleaved sides.

A rerun of ``make bench`` moves a ratio by more than the spread within one run: a fresh
process gets a different memory layout, allocator state and moment of the machine's load. As
in pyperf, the timings are therefore taken by ``k`` independent worker processes, started
one after the other, each with its environment set *before* torch, MKL and NumPy load (the
numeric configuration of :func:`icml26.runtime.numeric_env`, and the vector ISA under test),
and the spread *between* workers is what the stated interval is built from
(:mod:`benchmarks.intervals`).

Unlike pyperf's runner (which times one callable per benchmark, its workers for one
benchmark running back to back), each worker here is a whole run of the suite: it imports the
benchmark modules once and measures every case, kernel and reference interleaved within
each round (:func:`benchmarks.harness.measure`). Worker ``w`` starts at a different case
(the order is rotated by ``w / k`` of the list), so no case always runs first or last.

Run as ``python -m benchmarks.workers`` by :func:`run_workers`; it writes one JSON file.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, fields
from pathlib import Path

__all__ = ["BOOK", "Options", "configurations", "cpu_name", "run_workers"]

ROOT = Path(__file__).resolve().parent.parent
#: The name of the book's numeric configuration (the ATen capability it pins).
BOOK = "avx2"


def cpu_name(cpuinfo: str | None = None) -> str:
    """The processor, as precisely as a baseline needs: its model name and, on x86, its
    family and model numbers (from ``cpuinfo``, by default ``/proc/cpuinfo``; ``platform``
    where there is none).

    The model name alone does not tell processors apart: a cloud machine reports "AMD EPYC"
    for a Zen 3 and a Zen 5 alike, and their ratios differ by more than any interval, so a
    baseline is compared only with a rerun on the same family and model.
    """
    if cpuinfo is None:
        try:
            cpuinfo = Path("/proc/cpuinfo").read_text()
        except OSError:
            cpuinfo = ""
    info: dict[str, str] = {}
    for line in cpuinfo.splitlines():
        key, sep, value = line.partition(":")
        if not sep:
            if info:
                break  # the end of the first processor's block
            continue
        info.setdefault(key.strip(), value.strip())
    if "model name" not in info:
        return platform.processor() or platform.machine()
    if "cpu family" in info and "model" in info:
        return f"{info['model name']} (family {info['cpu family']}, model {info['model']})"
    return info["model name"]


def configurations() -> dict[str, dict[str, str]]:
    """The numeric configurations measured, by name: the book's (``avx2``: every library on
    its AVX2 code path) and the same with ATen's vectorised kernels switched off
    (``default``), plus ATen on AVX-512 where the CPU has it. Only ATen's capability varies:
    MKL, oneDNN and NumPy keep the book's settings. Off x86-64/AVX2 nothing is pinned but the
    threads, and the one configuration is named ``native``."""
    from icml26.runtime import _cpu_flags, numeric_env

    book = numeric_env("book")
    if book.get("ATEN_CPU_CAPABILITY") != BOOK:
        return {"native": book}
    configs = {BOOK: book, "default": book | {"ATEN_CPU_CAPABILITY": "default"}}
    if "avx512f" in _cpu_flags():
        configs["avx512"] = book | {"ATEN_CPU_CAPABILITY": "avx512"}
    return configs


@dataclass
class Options:
    """What each worker measures (the options of ``python -m benchmarks.workers``)."""

    modules: list[str]
    cases: list[str] | None = None
    rounds: int = 3
    min_run_time: float = 0.1
    slowdown: str | None = None
    scaling: bool = False


def _meta() -> dict[str, object]:
    import torch

    from benchmarks.harness import THREADS

    return {
        "cpu": cpu_name(),
        "cores": os.cpu_count(),
        "capability": torch.backends.cpu.get_cpu_capability(),
        "threads": THREADS,
        "python": platform.python_version(),
        "torch": torch.__version__,
        "cuda": torch.cuda.get_device_name() if torch.cuda.is_available() else None,
        "load": os.getloadavg()[0] if hasattr(os, "getloadavg") else None,
        "env": {
            k: os.environ[k]
            for k in ("ATEN_CPU_CAPABILITY", "MKL_CBWR", "ONEDNN_MAX_CPU_ISA", "OMP_NUM_THREADS")
            if k in os.environ
        },
    }


def key(module: str, name: str) -> str:
    """A case's identity across runs: its module and name."""
    return f"{module.rsplit('.', 1)[-1]}: {name}"


def _measure_cases(opts: Options, offset: int, of: int) -> list[dict[str, object]]:
    from benchmarks import harness
    from benchmarks.registry import CASES

    cases = [c for c in CASES if c.module in opts.modules]
    if opts.cases is not None:
        cases = [c for c in cases if key(c.module, c.name) in opts.cases]
    if cases:
        start = offset * len(cases) // max(1, of)
        cases = cases[start:] + cases[:start]
    out = []
    for c in cases:
        sides = {s: getattr(c, s) for s in harness.SIDES if getattr(c, s) is not None}
        if opts.slowdown and opts.slowdown in c.name:
            sides["kernel"] = harness.slowed(c.kernel, 2)
        row: dict[str, object] = {"key": key(c.module, c.name), "module": c.module}
        row |= {"name": c.name, "library_name": c.library_name}
        try:
            row["times"] = harness.measure(
                sides, rounds=opts.rounds, min_run_time=opts.min_run_time
            )
        except Exception as err:  # one broken case must not lose the others' timings
            row["error"] = f"{type(err).__name__}: {err}"
        print(f"  {row['key'][:90]}", "failed" if "error" in row else "", file=sys.stderr)
        out.append(row)
    return out


def _measure_scaling(opts: Options) -> list[dict[str, object]]:
    from benchmarks import harness
    from benchmarks.registry import SCALING

    out = []
    for s in (s for s in SCALING if s.module in opts.modules):
        times, low, high = harness.scaling_curve(s.make, s.sizes)
        out.append(
            {"module": s.module, "name": s.name, "sizes": list(s.sizes)}
            | {"size_label": s.size_label, "times": times, "slopes": [low, high]}
        )
        print(f"  scaling {s.module}: {s.name[:60]}", file=sys.stderr)
    return out


def worker(argv: list[str] | None = None) -> int:
    """One worker: import the modules, measure, write the JSON file named by ``--out``."""
    p = argparse.ArgumentParser(prog="python -m benchmarks.workers")
    p.add_argument("--out", required=True)
    p.add_argument("--offset", type=int, default=0)
    p.add_argument("--of", type=int, default=1)
    p.add_argument("--modules", nargs="+", required=True)
    p.add_argument("--cases", nargs="*", default=None)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--min-run-time", type=float, default=0.1)
    p.add_argument("--slowdown", default=None)
    p.add_argument("--scaling", action="store_true")
    args = p.parse_args(argv)
    opts = Options(**{f.name: getattr(args, f.name) for f in fields(Options)})
    import importlib

    import torch

    from benchmarks.harness import THREADS

    torch.set_num_threads(THREADS)
    for m in opts.modules:
        importlib.import_module(m)
    result: dict[str, object] = {"meta": _meta()}
    if opts.scaling:
        result["scaling"] = _measure_scaling(opts)
    else:
        result["cases"] = _measure_cases(opts, args.offset, args.of)
    result["meta"]["load_end"] = os.getloadavg()[0] if hasattr(os, "getloadavg") else None
    Path(args.out).write_text(json.dumps(result))
    return 0


def run_workers(
    opts: Options, *, env: dict[str, str], workers: int, label: str = ""
) -> list[dict[str, object]]:
    """Start ``workers`` worker processes one after the other, each with ``env`` added to
    this process's environment; return what each measured."""
    if workers < 1:
        raise ValueError(f"workers must be >= 1, got {workers}")
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        for w in range(workers):
            out = Path(tmp) / f"worker{w}.json"
            cmd = [sys.executable, "-m", "benchmarks.workers", "--out", str(out)]
            cmd += ["--offset", str(w), "--of", str(workers), "--modules", *opts.modules]
            cmd += ["--rounds", str(opts.rounds), "--min-run-time", str(opts.min_run_time)]
            if opts.cases is not None:
                cmd += ["--cases", *opts.cases]
            if opts.slowdown:
                cmd += ["--slowdown", opts.slowdown]
            if opts.scaling:
                cmd.append("--scaling")
            start = time.monotonic()
            print(f"worker {w + 1}/{workers} {label}".rstrip(), file=sys.stderr)
            subprocess.run(cmd, env=os.environ | env, cwd=ROOT, check=True)
            result = json.loads(out.read_text())
            result["meta"]["seconds"] = time.monotonic() - start
            results.append(result)
    return results


if __name__ == "__main__":
    sys.exit(worker())
