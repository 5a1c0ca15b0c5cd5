"""nbval settings for the chapters: the execution environment, the comparison of outputs and
the per-notebook time limit.

Each notebook runs in a kernel that inherits the environment set here (the same as
``make notebooks`` uses, with the numeric configuration of :func:`icml26.runtime.numeric_env`;
``ICML26_NUMERICS=other-machine`` runs them under a deliberately different one). Outputs are
compared by :func:`icml26.pipeline.compare.compare_text` instead of nbval's exact string
comparison: text and claim verdicts exactly, integers exactly, decimals to one unit in their
last printed digit (``ICML26_COMPARE=verdicts``: claim verdicts only, for a GPU). The wall time of every notebook is summed over its cells, written
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
from nbval import plugin as nbval_plugin

from icml26.chapters import BUDGET_S, CHAPTERS
from icml26.pipeline.compare import MODES, compare_text
from icml26.pipeline.notebooks import exec_env

os.environ.update(exec_env(os.environ.get("ICML26_NUMERICS", "book")))
MODE = os.environ.get("ICML26_COMPARE", "outputs")
if MODE not in MODES:
    raise pytest.UsageError(f"ICML26_COMPARE must be one of {MODES}, got {MODE!r}")
OTHER_NUMERICS = os.environ.get("ICML26_NUMERICS", "book") != "book"
#: Chapters whose figures follow the last bits of a training run (``Chapter.figures_vary``):
#: under another numeric configuration only their verdicts are compared.
VERDICTS_ONLY = (
    {c.stem for c in CHAPTERS if c.figures_vary} if OTHER_NUMERICS else set()
)

# a busy machine slows a notebook down; this far over the budget, it is a bug
RUNAWAY_S = 4 * BUDGET_S
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
            else f"  (over the {BUDGET_S:.0f} s budget here; see make bench on a quiet machine)"
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


def _flatten(cell, outputs, skip) -> dict[str, list]:
    """nbval's view of a cell's outputs: MIME type or stream name → sanitized values."""
    flat: dict[str, list] = defaultdict(list)
    for out in nbval_plugin.transform_streams_for_comparison(outputs):
        for key, value in out.items():
            if key in skip:
                continue
            if key == "data":
                for mime, data in value.items():
                    if mime not in skip:
                        flat[mime].append(cell.sanitize(data))
            else:
                flat[key].append(cell.sanitize(value))
    return flat


def _text(value):
    return "".join(value) if isinstance(value, list) else value


def compare_outputs(self, test, ref, skip_compare=None) -> bool:
    """nbval's ``IPyNbCell.compare_outputs`` with :func:`compare_text` for text values."""
    skip = skip_compare or self.parent.skip_compare
    new, old = _flatten(self, test, skip), _flatten(self, ref, skip)
    self.comparison_traceback = []
    verdicts_only = Path(str(self.parent.fspath)).stem in VERDICTS_ONLY
    if (
        MODE == "verdicts" or verdicts_only
    ):  # claim lines only, wherever they were printed
        a, b = (
            "\n".join(_text(v) for vs in d.values() for v in vs) for d in (old, new)
        )
        self.comparison_traceback = [str(d) for d in compare_text(a, b, "verdicts")]
        return not self.comparison_traceback
    for key in sorted(set(old) | set(new)):
        if len(old.get(key, [])) != len(new.get(key, [])):
            self.comparison_traceback.append(
                f"{len(new.get(key, []))} outputs of kind {key!r} where "
                f"{len(old.get(key, []))} were committed"
            )
            return False
        for a, b in zip(old[key], new[key], strict=True):
            a, b = _text(a), _text(b)
            if isinstance(a, str) and isinstance(b, str):
                problems = [str(d) for d in compare_text(a, b, MODE)]
            else:
                problems = [] if a == b else [f"{key} differs"]
            if problems:
                self.comparison_traceback += [f"output {key!r}:", *problems]
                self.comparison_traceback += ["committed:", a, "now:", b]
                return False
    return True


nbval_plugin.IPyNbCell.compare_outputs = compare_outputs
