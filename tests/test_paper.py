"""Paper-scale runs (:mod:`icml26.pipeline.paper`): the parameters cell of every chapter works
at both scales, a chapter runs as a plain script and is recorded, a failed or stopped run
writes no record, and a record's verdicts are compared with the ones a notebook printed."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from icml26 import claims
from icml26.chapters import CHAPTERS
from icml26.pipeline import paper
from icml26.pipeline.notebooks import ROOT

CHAPTER = """\
# %%
import os

import icml26

# %% tags=["parameters"]
N = icml26.pick(ci=2, paper=20)

# %%
{body}
"""


def _chapter(tmp_path: Path, body: str) -> Path:
    py = tmp_path / "99-toy.py"
    py.write_text(CHAPTER.format(body=textwrap.dedent(body)))
    return py


@pytest.fixture
def records(tmp_path, monkeypatch):
    """Records and logs go to ``tmp_path``, not to the repository."""
    monkeypatch.setattr(paper, "OUT", tmp_path / "out")
    monkeypatch.setattr(paper, "record_path", lambda stem: tmp_path / "rec" / f"{stem}.json")
    return tmp_path / "rec"


PARAMETERS_AT_BOTH_SCALES = """
from icml26.chapters import CHAPTERS
from icml26.pipeline import paper
from icml26.pipeline.notebooks import NOTEBOOKS

for chapter in CHAPTERS:
    py = NOTEBOOKS / f"{chapter.stem}.py"
    try:
        ci, big = paper.parameters(py, "ci"), paper.parameters(py, "paper")
    except Exception as err:  # reported, not raised: every chapter is checked
        print(f"{chapter.stem}: {type(err).__name__}: {err}")
        continue
    if not ci or set(ci) != set(big):
        print(f"{chapter.stem}: the two scales define different parameters")
"""


def test_every_parameters_cell_runs_at_both_scales() -> None:
    # in a process of its own: a chapter's import cell may change global state (torch's
    # default dtype, seeds, threads) that the other tests of this worker rely on
    out = subprocess.run(
        [sys.executable, "-c", PARAMETERS_AT_BOTH_SCALES],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT / "lib"), "MPLBACKEND": "Agg"},
        timeout=600,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout == "", out.stdout
    assert len(CHAPTERS) == 19


def test_parameters_reads_the_scale_and_rejects_a_bad_one(tmp_path) -> None:
    py = _chapter(tmp_path, "print(N)")
    assert paper.parameters(py, "ci") == {"N": 2}
    assert paper.parameters(py, "paper") == {"N": 20}
    with pytest.raises(ValueError, match="scale"):
        paper.parameters(py, "huge")


def test_a_chapter_runs_as_a_script_at_paper_scale_and_is_recorded(tmp_path, records) -> None:
    py = _chapter(
        tmp_path,
        """
        assert os.environ["ICML26_SCALE"] == "paper" and N == 20
        icml26.claim("99.1", "toy", N, at_least=10, kind="theorem")
        print("  CLAIM 99.2 [theorem]: indented lines are not this chapter's — measured 1 (≤ 0) OK")
        """,
    )
    path = paper.run_script(py, device="cpu")
    record = json.loads(path.read_text())
    assert record["status"] == "run" and record["mode"] == "script"
    assert record["device"].startswith("CPU")
    assert record["claims"] == ["CLAIM 99.1 [theorem]: toy — measured 20 (≥ 10) OK"]
    assert (paper.OUT / "99-toy.log").exists()


def test_threads_replace_the_books_single_thread_and_are_recorded(tmp_path, records) -> None:
    py = _chapter(
        tmp_path,
        """
        assert os.environ["OMP_NUM_THREADS"] == os.environ["MKL_NUM_THREADS"] == "3"
        icml26.claim("99.1", "toy", N, at_least=10, kind="theorem")
        """,
    )
    record = json.loads(paper.run_script(py, device="cpu", threads=3).read_text())
    assert record["status"] == "run" and record["threads"] == 3
    one = _chapter(tmp_path, 'assert os.environ["OMP_NUM_THREADS"] == "1"')
    assert "threads" not in json.loads(paper.run_script(one, device="cpu").read_text())
    for bad in (0, 2.0, True):
        with pytest.raises(ValueError, match="threads"):
            paper.run_script(py, threads=bad)
        with pytest.raises(ValueError, match="threads"):
            paper.run_many([py], threads=bad)


def test_a_checkpointed_run_resumes_after_an_interruption(tmp_path, records, capsys) -> None:
    # the loop saves every step; the first run stalls at step 2 and is stopped by its timeout
    py = _chapter(
        tmp_path,
        """
        import time

        from icml26.resume import Checkpoint

        ck = Checkpoint("loop", {"n": N}, every_s=0.0)
        state = ck.load() or {"i": 0, "first": True}
        for i in range(state["i"], 5):
            ck.save({"i": i, "first": False})
            if i == 2 and state["first"] and ck.enabled:
                time.sleep(120)
        icml26.claim("99.1", "resumed where it stopped", state["i"], at_least=2, kind="theorem")
        """,
    )
    with pytest.raises(RuntimeError, match="timed out"):
        paper.run_script(py, device="cpu", timeout=20, checkpoints=tmp_path / "ck")
    assert [p.suffix for p in (tmp_path / "ck").iterdir()] == [".pt"]
    record = json.loads(paper.run_script(py, device="cpu", checkpoints=tmp_path / "ck").read_text())
    assert record["status"] == "run" and record["resumed"] == 1
    assert record["claims"][0].endswith("measured 2 (≥ 2) OK")
    # the run it continues wrote no record (no claim line before it stopped): nothing to add
    assert "wall_before_s" not in record
    partial = {"status": "partial", "wall_s": 30.0, "wall_before_s": 12.0}
    records.joinpath("99-toy.json").write_text(json.dumps(partial))
    record = json.loads(paper.run_script(py, device="cpu", checkpoints=tmp_path / "ck").read_text())
    assert record["resumed"] == 1 and record["wall_before_s"] == 42.0
    paper.show("99-toy")
    assert (
        ", resuming 1 training loop(s) from checkpoints written in 1 min of other runs ("
        in (capsys.readouterr().out.splitlines()[0])
    )
    plain = json.loads(paper.run_script(py, device="cpu").read_text())
    assert "resumed" not in plain and "wall_before_s" not in plain


def test_a_failed_or_stopped_run_writes_no_record(tmp_path, records) -> None:
    py = _chapter(tmp_path, "raise SystemExit('broken at paper scale')")
    with pytest.raises(RuntimeError, match="broken at paper scale"):
        paper.run_script(py)
    slow = _chapter(tmp_path, "import time\ntime.sleep(30)")
    with pytest.raises(RuntimeError, match="timed out"):
        paper.run_script(slow, timeout=2)
    assert not records.exists()


def test_a_run_that_stops_after_some_claims_records_them_as_partial(
    tmp_path, records, capsys
) -> None:
    py = _chapter(
        tmp_path,
        """
        icml26.claim("99.1", "toy", N, at_least=10, kind="theorem")
        raise ValueError("measured must not be NaN")
        """,
    )
    with pytest.raises(RuntimeError, match="exit status 1"):
        paper.run_script(py, device="cpu")
    record = json.loads((records / "99-toy.json").read_text())
    assert record["status"] == "partial"
    assert record["claims"] == ["CLAIM 99.1 [theorem]: toy — measured 20 (≥ 10) OK"]
    assert record["reason"] == "stopped: exit status 1; ValueError — measured must not be NaN"
    paper.show("99-toy")
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("Paper scale: partial run on CPU")
    assert out[0].endswith("; stopped: exit status 1; ValueError — measured must not be NaN")
    assert out[1] == "  " + record["claims"][0]
    with pytest.raises(ValueError, match="timeout"):
        paper.run_script(py, timeout=0)
    with pytest.raises(ValueError, match="jobs"):
        paper.run_many([py], jobs=0)


def test_device_check_reports_each_chapter_ok_or_its_first_error(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(paper, "CHECK_OUT", tmp_path / "check")
    good = _chapter(tmp_path, "assert os.environ['ICML26_SCALE'] == 'ci' and N == 2")
    bad = tmp_path / "98-bad.py"
    bad.write_text(CHAPTER.format(body="raise RuntimeError('tensor on the wrong device')"))
    results = paper.device_check([good, bad], device="cpu", jobs=2)
    assert results["99-toy"].startswith("ok")
    assert results["98-bad"].startswith("exit status 1")
    assert results["98-bad"].endswith("RuntimeError: tensor on the wrong device")
    assert (tmp_path / "check" / "98-bad.log").exists()
    with pytest.raises(ValueError, match="jobs"):
        paper.device_check([good], device="cpu", jobs=0)


def test_run_many_reports_each_chapter(tmp_path, records) -> None:
    good = _chapter(tmp_path, "print('fine')")
    results = paper.run_many([good], jobs=2, device="cpu")
    assert results == {"99-toy": "recorded"}


def test_verdicts_that_changed_with_scale_are_named(monkeypatch, capsys, records) -> None:
    record = {
        "status": "run",
        "device": "CPU test",
        "wall_s": 60.0,
        "date": "2026-12-04",
        "commit": "abc",
        "versions": {"torch": "2.13.0"},
        "claims": [
            "CLAIM 99.1 [theorem]: a — measured 1 (≤ 2) OK",
            "CLAIM 99.2 [reproduction]: b — measured 3 (≤ 2) · 5 seeds: worst, range 1–3 · "
            "control c 9 · NOT REPRODUCED",
        ],
    }
    monkeypatch.setattr(claims, "_PRINTED", {})
    assert paper.verdict_changes(record) is None  # this process printed none of them
    monkeypatch.setattr(claims, "_PRINTED", {"99.1": "OK", "99.2": "OK"})
    assert paper.verdict_changes(record) == ["99.2: OK here, NOT REPRODUCED in the record"]
    records.mkdir()
    (records / "99-toy.json").write_text(json.dumps(record))
    paper.show("99-toy")
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("Paper scale: run on CPU test in 1 min")
    assert out[1] == "  " + record["claims"][0]
    assert out[-1] == (
        "Verdicts that differ between this run (ci scale) and the record: "
        "99.2: OK here, NOT REPRODUCED in the record."
    )


def test_claim_keeps_the_verdicts_it_printed(monkeypatch, capsys) -> None:
    monkeypatch.setattr(claims, "_PRINTED", {})
    claims.claim("99.3", "x", 1.0, at_most=0.5, kind="theorem")
    assert claims.printed_verdicts() == {"99.3": "NOT REPRODUCED"}


@pytest.mark.parametrize("chapter", CHAPTERS, ids=lambda c: c.stem)
def test_each_chapter_prints_its_current_record(chapter) -> None:
    """The committed output of a chapter's ``paper.show`` cell is its record as it is now:
    a record changed after the chapter was executed would otherwise go unnoticed until
    nbval."""
    nb = json.loads((ROOT / "notebooks" / f"{chapter.stem}.ipynb").read_text())
    shown = [
        "".join("".join(o.get("text", "")) for o in cell.get("outputs", []))
        for cell in nb["cells"]
        if cell["cell_type"] == "code"
        and f'paper.show("{chapter.stem}")' in "".join(cell["source"])
    ]
    assert len(shown) == 1, "the Limits section prints the paper-scale record once"
    record = paper.load(chapter.stem)
    assert record is not None, "every chapter has a record (run or not run, with the reason)"
    if record["status"] in ("run", "partial"):
        assert f"commit {record['commit']}," in shown[0]
        assert all(f"  {line}\n" in shown[0] for line in record["claims"])
    else:
        assert record["reason"] in shown[0]
