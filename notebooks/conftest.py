"""nbval settings for the chapters: the execution environment and the per-notebook time limit.

Each notebook runs in a kernel that inherits the environment set here (the same as
``make notebooks`` uses). The wall time of every notebook is summed over its cells, written
to ``build/notebook-times.json`` and reported. ``make test`` checks correctness, not speed: the
60 s budget is measured on a quiet machine by ``make bench`` (the Performance page). Only a
runaway, a notebook over ``RUNAWAY_S`` (four times the budget), fails the run here.
"""

from __future__ import annotations

import json
import os
from collections import defaultdict
from pathlib import Path

import pytest

from icml26.pipeline.notebooks import EXEC_ENV

os.environ.update(EXEC_ENV)

BUDGET_S = 60.0  # the chapter standard, on a quiet 2-core machine
RUNAWAY_S = 4 * BUDGET_S  # a busy machine slows a notebook down; this far over, it is a bug
_times: dict[str, float] = defaultdict(float)


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    path = report.nodeid.split("::", 1)[0]
    if path.endswith(".ipynb"):
        _times[Path(path).name] += report.duration


def _over() -> dict[str, float]:
    return {k: v for k, v in _times.items() if v > RUNAWAY_S}


def pytest_terminal_summary(terminalreporter, exitstatus, config) -> None:
    if not _times or hasattr(config, "workerinput"):
        return
    terminalreporter.section("notebook wall times")
    for name, seconds in sorted(_times.items()):
        flag = (
            "  RUNAWAY"
            if seconds > RUNAWAY_S
            else "  (over the 60 s budget here; see make bench on a quiet machine)"
            if seconds > BUDGET_S
            else ""
        )
        terminalreporter.write_line(f"{seconds:7.1f} s  {name}{flag}")
    out = Path(config.rootpath) / "build" / "notebook-times.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps(dict(sorted(_times.items())), indent=1) + "\n")


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    if hasattr(session.config, "workerinput"):
        return
    if _over():
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
        for name, seconds in _over().items():
            print(f"\n{name} ran {seconds:.1f} s, a runaway (over {RUNAWAY_S:.0f} s)")
