"""Paper-scale runs: execute a chapter at ``ICML26_SCALE=paper`` and record its claims.

The committed ``notebooks/NN-slug.ipynb`` is always the ``ci`` scale. A paper-scale run
executes the same ``.py`` into ``build/paper/NN-slug.ipynb`` on whatever device
:func:`icml26.device` picks, and writes a small record, committed beside the chapters in
``notebooks/paper-scale/NN-slug.json``: its claim lines, device, wall time, library versions
and git commit. The claims page shows both scales from these records, and a chapter's Limits
section prints its record with :func:`show`, so that no paper-scale number is typed by hand::

    make paper NB=notebooks/06-alpha-pfn.py     # one chapter (make paper: every chapter)
    python -m icml26.pipeline.paper run --script --jobs 8 --timeout 3600 notebooks/1*.py
    python -m icml26.pipeline.paper run --script --threads 16 notebooks/05-cogsde.py
    python -m icml26.pipeline.paper not-run notebooks/11-any2any.py --reason "needs a GPU"
    python -m icml26.pipeline.paper dry-run notebooks/11-any2any.py --seconds 60
    python -m icml26.pipeline.paper device-check --device cuda --jobs 12 --timeout 120
"""

from __future__ import annotations

import argparse
import concurrent.futures
import datetime
import functools
import json
import os
import platform
import re
import subprocess
import sys
import time
from pathlib import Path

from icml26.pipeline.notebooks import KERNELSPEC, NOTEBOOKS, ROOT, chapters, exec_env, read_py

__all__ = [
    "CHECK_OUT",
    "OUT",
    "RECORDS",
    "device_check",
    "dry_run",
    "load",
    "not_run",
    "parameters",
    "record_path",
    "run",
    "run_many",
    "run_script",
    "show",
    "verdict_changes",
]

RECORDS = NOTEBOOKS / "paper-scale"
OUT = ROOT / "build" / "paper"
CHECK_OUT = ROOT / "build" / "device-check"


def record_path(stem: str) -> Path:
    """Where the paper-scale record of chapter ``NN-slug`` is kept."""
    from icml26.chapters import by_slug

    if not isinstance(stem, str):
        raise ValueError(f"stem must name a chapter (NN-slug), got {stem!r}")
    return RECORDS / f"{by_slug(stem).stem}.json"


def load(stem: str) -> dict | None:
    """The paper-scale record of a chapter, or ``None`` when it has none."""
    path = record_path(stem)
    return json.loads(path.read_text()) if path.exists() else None


def _git_commit() -> str:
    try:
        sha = subprocess.run(
            ["git", "rev-parse", "--short=12", "HEAD"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        # the records themselves do not make the run's code differ from the commit
        dirty = subprocess.run(
            [
                "git",
                "status",
                "--porcelain",
                "--untracked-files=no",
                "--",
                ".",
                f":!{RECORDS.relative_to(ROOT)}",
            ],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return sha + ("+changes" if dirty else "")


def _device_name(override: str | None = None) -> str:
    import torch

    from icml26.runtime import device

    dev = torch.device(override) if override else device()
    if dev.type == "cuda":
        return f"CUDA {torch.cuda.get_device_name(dev)}"
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"CPU {cpu}, {os.cpu_count()} cores"


def _versions() -> dict[str, str]:
    import numpy
    import scipy
    import torch

    import icml26

    return {
        "python": platform.python_version(),
        "torch": torch.__version__,
        "numpy": numpy.__version__,
        "scipy": scipy.__version__,
        "icml26": icml26.__version__,
    }


def _claim_lines(nb) -> list[str]:
    from icml26.claims import parse_claim_line

    lines = []
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            text = out.get("text", "") if out.get("output_type") == "stream" else ""
            lines += [ln for ln in text.splitlines() if parse_claim_line(ln) is not None]
    return lines


def _write(stem: str, record: dict) -> Path:
    path = record_path(stem)
    path.parent.mkdir(exist_ok=True)
    path.write_text(json.dumps(record, indent=1, ensure_ascii=False) + "\n")
    return path


def _execute(py: Path, *, timeout: int | None, env: dict[str, str], progress: bool):
    """Execute ``py`` with ``env`` added to the environment; the executed notebook."""
    from nbclient import NotebookClient

    from icml26.runtime import progress as bar

    nb = read_py(py)
    nb.metadata = {"kernelspec": dict(KERNELSPEC), "language_info": {"name": "python"}}
    old = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    cells = bar(total=len(nb.cells), desc=py.stem, unit="cell", disable=not progress)
    try:
        client = NotebookClient(
            nb,
            timeout=timeout,
            kernel_name="python3",
            resources={"metadata": {"path": str(py.parent)}},
            on_cell_executed=lambda **_: cells.update(1),
        )
        client.execute()
    finally:
        cells.close()
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    return nb


def run(py: Path, *, progress: bool = True) -> Path:
    """Execute chapter ``py`` at paper scale into :data:`OUT` and write its record."""
    import jupytext

    py = Path(py).resolve()
    previous = load(py.stem)
    if progress and previous and previous.get("wall_s"):
        print(
            f"{py.stem}: the last paper-scale run took {previous['wall_s'] / 60:.1f} min "
            f"on {previous['device']}"
        )
    env = {**exec_env("book"), "ICML26_SCALE": "paper", "ICML26_PROGRESS": "0"}
    t0 = time.perf_counter()
    nb = _execute(py, timeout=None, env=env, progress=progress)
    wall = time.perf_counter() - t0
    OUT.mkdir(parents=True, exist_ok=True)
    jupytext.write(nb, OUT / f"{py.stem}.ipynb", fmt="ipynb")
    record = _record(
        py.stem, wall=wall, claims=_claim_lines(nb), device=_device_name(), mode="notebook"
    )
    return _write(py.stem, record)


def _record(stem: str, *, wall: float, claims: list[str], device: str, mode: str) -> dict:
    return {
        "chapter": stem,
        "scale": "paper",
        "status": "run",
        "mode": mode,
        "device": device,
        "wall_s": round(wall, 1),
        "date": datetime.date.today().isoformat(),
        "commit": _git_commit(),
        "versions": _versions(),
        "claims": claims,
    }


def _threads(threads: int | None) -> dict[str, str]:
    """The thread-count variables for ``threads`` BLAS/OpenMP threads (none when ``None``:
    the book's one thread stands)."""
    if threads is None:
        return {}
    if isinstance(threads, bool) or not isinstance(threads, int) or threads < 1:
        raise ValueError(f"threads must be a positive integer, got {threads!r}")
    return {k: str(threads) for k in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS")}


def _script(
    py: Path,
    scale: str,
    device: str | None,
    timeout: float | None,
    log: Path,
    threads: int | None = None,
    checkpoints: Path | None = None,
) -> tuple[int | None, float, str]:
    """Run chapter ``py`` as a plain script at ``scale``, output to ``log``: ``(exit status
    or None if it passed timeout seconds, wall seconds, output)``. ``threads`` replaces the
    book's one BLAS/OpenMP thread (a paper-scale run on a many-core machine); ``checkpoints``
    is the directory its training loops save to and resume from (:mod:`icml26.resume`)."""
    if timeout is not None and not timeout > 0:
        raise ValueError(f"timeout must be a positive number of seconds, got {timeout!r}")
    env = {
        **os.environ,
        **exec_env("book"),
        **_threads(threads),
        "ICML26_SCALE": scale,
        "ICML26_PROGRESS": "0",
        "MPLBACKEND": "Agg",
        "PYTHONUNBUFFERED": "1",
    }
    env["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(ROOT / "lib"), os.environ.get("PYTHONPATH", "")) if p
    )
    if device:
        env["ICML26_DEVICE"] = device
    if checkpoints is not None:
        env["ICML26_CHECKPOINTS"] = str(Path(checkpoints).resolve())
    log.parent.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    with log.open("w") as fh:
        proc = subprocess.Popen(
            [sys.executable, "-u", py.name], cwd=py.parent, env=env, stdout=fh, stderr=fh
        )
        try:
            code: int | None = proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
            code = None
    return code, time.perf_counter() - t0, log.read_text(errors="replace")


def device_check(
    files: list[Path], *, device: str, jobs: int = 1, timeout: float | None = None
) -> dict[str, str]:
    """Run chapters at ``ci`` scale as plain scripts on ``device`` and report, per chapter,
    ``"ok"`` or the error that stopped it (its last line of output).

    The quick check for a GPU machine: the library is meant to be device-agnostic, and a
    tensor left on the CPU shows up as the first error of the chapter that computes with it.
    Logs go to :data:`CHECK_OUT` as ``NN-slug.log``. No record is written.
    """
    if not isinstance(jobs, int) or jobs < 1:
        raise ValueError(f"jobs must be a positive integer, got {jobs!r}")
    out = CHECK_OUT

    def one(py: Path) -> str:
        py = Path(py).resolve()
        code, wall, text = _script(py, "ci", device, timeout, out / f"{py.stem}.log")
        lines = text.strip().splitlines()
        if code == 0:
            return f"ok ({wall:.0f} s)"
        why = "timed out" if code is None else f"exit status {code}"
        return f"{why} after {wall:.0f} s: {lines[-1] if lines else 'no output'}"

    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        results = dict(zip((Path(f).stem for f in files), pool.map(one, files), strict=True))
    return results


def run_script(
    py: Path,
    *,
    timeout: float | None = None,
    device: str | None = None,
    threads: int | None = None,
    checkpoints: Path | None = None,
) -> Path:
    """Execute chapter ``py`` at paper scale as a plain Python script and write its record.

    A chapter's ``.py`` is a valid script: its cells run in order in one namespace, as in a
    kernel, so its claim lines are the same; figures go to matplotlib's ``Agg`` backend and
    are discarded. This needs no Jupyter installation (a bare GPU machine) and runs chapters
    side by side with ``--jobs``. The printed output is kept in :data:`OUT` as
    ``NN-slug.log``. ``device`` (``"cpu"``, ``"cuda"``) overrides :func:`icml26.device`;
    ``threads`` sets the BLAS/OpenMP threads (one by default, as in the book) and is recorded.
    A run that fails or passes ``timeout`` seconds raises ``RuntimeError`` with the end of
    its output; if it printed claim lines before it stopped, they are recorded with the
    status ``"partial"`` and the reason it stopped (:func:`show` prints them as such).

    With ``checkpoints`` (a directory) a chapter whose training loops use
    :class:`icml26.resume.Checkpoint` saves them as it goes; the same call after an
    interruption resumes them. The record then counts the loops resumed (``"resumed"``) and
    adds the wall time of the interrupted runs it continues (``"wall_before_s"``, taken from
    their partial record). :func:`show` prints it as the time of the runs that wrote the
    checkpoints, which also fits a loop trained ahead by another process (whose time is then
    entered in the record by hand).
    """
    from icml26.claims import parse_claim_line
    from icml26.resume import RESUMED

    py = Path(py).resolve()
    previous = load(py.stem)
    log = OUT / f"{py.stem}.log"
    code, wall, text = _script(py, "paper", device, timeout, log, threads, checkpoints)
    claims = [ln for ln in text.splitlines() if parse_claim_line(ln) is not None]
    record = _record(py.stem, wall=wall, claims=claims, device=_device_name(device), mode="script")
    if threads is not None:
        record["threads"] = threads
    resumed = sum(ln.startswith(RESUMED) for ln in text.splitlines())
    if resumed:
        record["resumed"] = resumed
        if previous and previous.get("status") == "partial":
            before = previous.get("wall_s", 0.0) + previous.get("wall_before_s", 0.0)
            record["wall_before_s"] = round(before, 1)
    if code != 0:
        why = f"timed out after {wall / 60:.1f} min" if code is None else f"exit status {code}"
        if claims:
            last = text.strip().splitlines()[-1].strip() if text.strip() else ""
            # "ValueError: x" would read as a traceback in the chapter that prints the record
            last = re.sub(r"^(\w+(?:Error|Warning|Exception)): ", r"\1 — ", last)
            _write(py.stem, record | {"status": "partial", "reason": f"stopped: {why}; {last}"})
        raise RuntimeError(f"{py.stem}: {why}; the end of its output:\n{text[-2000:]}")
    return _write(py.stem, record)


def run_many(
    files: list[Path],
    *,
    jobs: int = 1,
    timeout: float | None = None,
    device: str | None = None,
    threads: int | None = None,
    checkpoints: Path | None = None,
) -> dict[str, str]:
    """:func:`run_script` for each of ``files``, ``jobs`` at a time: what became of each
    chapter (``recorded`` or the error). ``checkpoints`` gets one subdirectory per chapter."""
    if not isinstance(jobs, int) or jobs < 1:
        raise ValueError(f"jobs must be a positive integer, got {jobs!r}")
    _threads(threads)
    results: dict[str, str] = {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        one = functools.partial(run_script, timeout=timeout, device=device, threads=threads)
        futures = {
            pool.submit(
                one, f, checkpoints=None if checkpoints is None else checkpoints / Path(f).stem
            ): Path(f).stem
            for f in files
        }
        for fut in concurrent.futures.as_completed(futures):
            stem = futures[fut]
            try:
                fut.result()
                results[stem] = "recorded"
            except RuntimeError as err:
                results[stem] = str(err)
            print(f"{stem}: {results[stem].splitlines()[0]}", flush=True)
    return results


def not_run(py: Path, reason: str) -> Path:
    """Record that chapter ``py``'s paper scale has not been run, and why."""
    if not isinstance(reason, str) or not reason.strip():
        raise ValueError("reason must say why the paper scale was not run")
    py = Path(py)
    return _write(
        py.stem,
        {
            "chapter": py.stem,
            "scale": "paper",
            "status": "not run",
            "reason": reason.strip(),
            "claims": [],
        },
    )


def parameters(py: Path, scale: str = "paper") -> dict[str, object]:
    """The parameters of chapter ``py`` at ``scale``: the names its cell tagged
    ``parameters`` defines, with their values, after the cells before it (its imports) ran.

    This runs no experiment: it is the quick check that a scale's parameters cell works,
    and the table of what ``ICML26_SCALE=paper`` changes (``python -m icml26.pipeline.paper
    parameters notebooks/NN-slug.py``).
    """
    from icml26.runtime import SCALES

    if scale not in SCALES:
        raise ValueError(f"scale must be one of {SCALES}, got {scale!r}")
    py = Path(py).resolve()
    cells = [c for c in read_py(py).cells if c.cell_type == "code"]
    at = [i for i, c in enumerate(cells) if "parameters" in c.metadata.get("tags", [])]
    if len(at) != 1:
        raise ValueError(f"{py.name} must have exactly one cell tagged parameters")
    old, cwd = os.environ.get("ICML26_SCALE"), os.getcwd()
    os.environ["ICML26_SCALE"] = scale
    namespace: dict[str, object] = {"__name__": "__main__"}
    try:
        os.chdir(py.parent)
        for cell in cells[: at[0]]:
            exec(compile(cell.source, f"{py.name} (imports)", "exec"), namespace)
        before = set(namespace)
        exec(compile(cells[at[0]].source, f"{py.name} (parameters)", "exec"), namespace)
    finally:
        os.chdir(cwd)
        if old is None:
            os.environ.pop("ICML26_SCALE", None)
        else:
            os.environ["ICML26_SCALE"] = old
    return {k: v for k, v in namespace.items() if k not in before and not k.startswith("_")}


def dry_run(py: Path, seconds: int = 60) -> str:
    """Run chapter ``py`` at paper scale on the CPU for at most ``seconds``: ``"completed"``
    or ``"timed out"``; any error in the cells run so far raises."""
    from nbclient.exceptions import CellTimeoutError

    env = {**exec_env("book"), "ICML26_SCALE": "paper", "ICML26_DEVICE": "cpu"}
    deadline = time.monotonic() + seconds

    class _Stop(Exception):
        pass

    def check(**_):
        if time.monotonic() > deadline:
            raise _Stop

    from nbclient import NotebookClient

    nb = read_py(Path(py).resolve())
    nb.metadata = {"kernelspec": dict(KERNELSPEC), "language_info": {"name": "python"}}
    old = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        client = NotebookClient(
            nb,
            timeout=seconds,
            kernel_name="python3",
            resources={"metadata": {"path": str(Path(py).resolve().parent)}},
            on_cell_start=check,
        )
        client.execute()
        return "completed"
    except (_Stop, CellTimeoutError):
        return "timed out"
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def show(stem: str) -> None:
    """Print a chapter's paper-scale record: where and when it ran, and its claim lines.

    A chapter calls this in its Limits section, so that its paper-scale numbers come from
    the record rather than from typed text.
    """
    record = load(stem)
    if record is None or record.get("status") not in ("run", "partial"):
        reason = record.get("reason", "") if record else "no paper-scale run is recorded"
        print(f"Paper scale: not run ({reason}).")
        return
    status = record["status"]
    where = (
        f"{record['device']} in {record['wall_s'] / 60:.0f} min"
        if record.get("wall_s")
        else record["device"]
    )
    when = f"{record['date']}, commit {record['commit']}, torch {record['versions']['torch']}"
    if record.get("resumed"):
        before = record.get("wall_before_s")
        where += f", resuming {record['resumed']} training loop(s) from checkpoints" + (
            f" written in {before / 60:.0f} min of other runs" if before else ""
        )
    if status == "run":
        print(f"Paper scale: run on {where} ({when}).")
    else:
        print(f"Paper scale: partial run on {where} ({when}); {record['reason']}")
    # Indented, so that the record's lines are not read back as this chapter's own claim
    # lines (by the claims page, the heading test, or the next paper-scale run's record).
    for line in record["claims"]:
        print(f"  {line}")
    changes = verdict_changes(record)
    if changes is not None:
        from icml26.runtime import scale

        here = f"this run ({scale()} scale)"
        print(
            f"Verdicts that differ between {here} and the record: "
            + ("; ".join(changes) if changes else "none")
            + "."
        )


def verdict_changes(record: dict) -> list[str] | None:
    """The claims whose verdict in ``record`` differs from the one this process printed
    (:func:`icml26.claims.printed_verdicts`), as ``"08.10: OK here, NOT REPRODUCED in the
    record"``; ``None`` when this process printed none of the record's claims."""
    from icml26.claims import parse_claim_line, printed_verdicts

    here = printed_verdicts()
    there = {c.id: c.status for c in map(parse_claim_line, record.get("claims", [])) if c}
    shared = [k for k in there if k in here]
    if not shared:
        return None
    return [f"{k}: {here[k]} here, {there[k]} in the record" for k in shared if here[k] != there[k]]


def _main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m icml26.pipeline.paper",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = parser.add_subparsers(dest="command", required=True)
    r = sub.add_parser("run", help="run chapters at paper scale and record them")
    r.add_argument("files", nargs="*", type=Path, help="chapter .py files (default: all)")
    r.add_argument("--script", action="store_true", help="run as plain scripts (no Jupyter)")
    r.add_argument("--jobs", type=int, default=1, help="chapters at a time (with --script)")
    r.add_argument("--timeout", type=float, default=None, help="seconds per chapter (--script)")
    r.add_argument("--device", default=None, help="torch device, overriding icml26.device()")
    r.add_argument(
        "--threads", type=int, default=None, help="BLAS/OpenMP threads per chapter (--script)"
    )
    r.add_argument(
        "--checkpoints",
        type=Path,
        default=None,
        help="directory to save training loops to and resume them from (--script)",
    )
    n = sub.add_parser("not-run", help="record why a chapter's paper scale was not run")
    n.add_argument("file", type=Path)
    n.add_argument("--reason", required=True)
    p = sub.add_parser("parameters", help="what the paper scale changes in a chapter")
    p.add_argument("file", type=Path)
    c = sub.add_parser("device-check", help="chapters at ci scale on a device, first errors")
    c.add_argument("files", nargs="*", type=Path, help="chapter .py files (default: all)")
    c.add_argument("--device", default="cuda")
    c.add_argument("--jobs", type=int, default=1)
    c.add_argument("--timeout", type=float, default=None, help="seconds per chapter")
    d = sub.add_parser("dry-run", help="the first SECONDS of a paper-scale run, on the CPU")
    d.add_argument("files", nargs="+", type=Path)
    d.add_argument("--seconds", type=int, default=60)
    args = parser.parse_args(argv)
    if args.command == "not-run":
        print(not_run(args.file, args.reason).relative_to(ROOT))
        return 0
    if args.command == "parameters":
        ci, big = parameters(args.file, "ci"), parameters(args.file, "paper")
        for k in big:
            mark = "" if repr(ci.get(k)) == repr(big[k]) else "   <- paper scale"
            print(f"{k} = {big[k]!r}{mark}")
        return 0
    files = getattr(args, "files", None) or chapters()
    for f in files:
        if f.suffix != ".py" or not f.exists():
            parser.error(f"not a chapter source: {f}")
    if args.command == "device-check":
        checked = device_check(files, device=args.device, jobs=args.jobs, timeout=args.timeout)
        for stem, result in checked.items():
            print(f"{stem}: {result}")
        return 0 if all(r.startswith("ok") for r in checked.values()) else 1
    if args.command == "run" and args.script:
        results = run_many(
            files,
            jobs=args.jobs,
            timeout=args.timeout,
            device=args.device,
            threads=args.threads,
            checkpoints=args.checkpoints,
        )
        return 0 if all(v == "recorded" for v in results.values()) else 1
    for f in files:
        if args.command == "dry-run":
            print(f"{f.name}: {dry_run(f, args.seconds)} without error")
        else:
            path = run(f)
            print(f"{f.name}: recorded in {path.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(_main())
