"""nbval settings for the chapters: the execution environment and the per-notebook time limit.

Each notebook runs in a kernel that inherits the environment set here (the same as
``make notebooks`` uses). The wall time of every notebook is summed over its cells, written
to ``build/notebook-times.json`` and reported; a notebook over ``NOTEBOOK_LIMIT_S`` fails the run.
"""

from __future__ import annotations

import json
import os
from collections import defaultdict
from pathlib import Path

import pytest

from icml26.pipeline.notebooks import EXEC_ENV

os.environ.update(EXEC_ENV)

NOTEBOOK_LIMIT_S = 90.0  # the standard is 60 s; the margin is for noisy machines
_times: dict[str, float] = defaultdict(float)


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    path = report.nodeid.split("::", 1)[0]
    if path.endswith(".ipynb"):
        _times[Path(path).name] += report.duration


def _over() -> dict[str, float]:
    return {k: v for k, v in _times.items() if v > NOTEBOOK_LIMIT_S}


def pytest_terminal_summary(terminalreporter, exitstatus, config) -> None:
    if not _times or hasattr(config, "workerinput"):
        return
    terminalreporter.section("notebook wall times")
    for name, seconds in sorted(_times.items()):
        flag = "  OVER THE LIMIT" if seconds > NOTEBOOK_LIMIT_S else ""
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
            print(f"\n{name} ran {seconds:.1f} s, over the {NOTEBOOK_LIMIT_S:.0f} s limit")
