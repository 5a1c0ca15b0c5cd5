"""The paired notebooks: in sync, clean outputs, claim cells, parameters, table of contents."""

import re
from pathlib import Path

import nbformat
import pytest
import yaml
from nbval.plugin import get_sanitize_patterns

from icml26.claims import parse_claim_line
from icml26.pipeline.notebooks import NOTEBOOKS, ROOT, chapters, output_problems, sync_problem, twin

CHAPTERS = chapters()
IDS = [p.stem for p in CHAPTERS]


def cells_tagged(nb, tag):
    return [c for c in nb.cells if tag in c.get("metadata", {}).get("tags", [])]


def stream_text(cell) -> str:
    return "".join(
        "".join(o["text"]) if isinstance(o["text"], list) else o["text"]
        for o in cell.get("outputs", [])
        if o.get("output_type") == "stream"
    )


@pytest.mark.parametrize("py", CHAPTERS, ids=IDS)
def test_pair_in_sync(py):
    problem = sync_problem(py)
    assert problem is None, problem


@pytest.mark.parametrize("py", CHAPTERS, ids=IDS)
def test_outputs_clean(py):
    assert twin(py).exists(), f"{twin(py).name} missing: run `make notebooks NB={py.name}`"
    problems = output_problems(twin(py))
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("py", CHAPTERS, ids=IDS)
def test_claim_cells(py):
    nb = nbformat.read(twin(py), as_version=4)
    claims = cells_tagged(nb, "claim")
    assert len(claims) >= 2, f"{py.name}: the standard asks for at least two claim cells"
    ids = []
    for cell in claims:
        lines = [ln for ln in stream_text(cell).splitlines() if ln.startswith("CLAIM ")]
        assert len(lines) == 1, f"{py.name}: a claim cell must print one claim line: {lines}"
        parsed = parse_claim_line(lines[0])
        assert parsed is not None, f"{py.name}: malformed claim line {lines[0]!r}"
        assert parsed.status == "OK"
        assert parsed.id.startswith(py.name[:2] + "."), f"{py.name}: claim id {parsed.id}"
        ids.append(parsed.id)
    assert len(set(ids)) == len(ids), f"{py.name}: duplicate claim ids {ids}"


@pytest.mark.parametrize("py", CHAPTERS, ids=IDS)
def test_seeded_and_parameterised(py):
    nb = nbformat.read(twin(py), as_version=4)
    params = cells_tagged(nb, "parameters")
    assert len(params) == 1, f"{py.name}: exactly one cell tagged `parameters`"
    assert "pick(" in params[0].source, f"{py.name}: sizes come from icml26.pick(ci=, paper=)"
    assert re.search(r"seed_everything\(", py.read_text()), f"{py.name}: seed through icml26"
    headings = [
        ln
        for c in nb.cells
        if c.cell_type == "markdown"
        for ln in c.source.splitlines()
        if ln.startswith("# ")
    ]
    assert len(headings) == 1, f"{py.name}: one top-level heading, the chapter title"


def test_sanitizer_never_touches_claim_lines():
    patterns = get_sanitize_patterns((ROOT / "tests" / "nbval_sanitize.cfg").read_text())
    assert patterns, "no sanitize patterns parsed"
    lines = ["CLAIM 00.1: took 3 s to run — measured 12 s (threshold 60 s) OK"]
    for py in CHAPTERS:
        nb = nbformat.read(twin(py), as_version=4)
        lines += [ln for c in cells_tagged(nb, "claim") for ln in stream_text(c).splitlines()]
    for line in lines:
        if not line.startswith("CLAIM "):
            continue
        for regex, replace in patterns:
            assert re.sub(regex, replace, line) == line, f"sanitizer {regex!r} alters {line!r}"


def toc_files() -> list[str]:
    toc = yaml.safe_load((ROOT / "book" / "_toc.yml").read_text())
    return [c["file"] for part in toc["parts"] for c in part["chapters"]]


def test_toc_lists_exactly_the_chapters():
    listed = {f for f in toc_files() if f.startswith("notebooks/")}
    assert listed == {f"notebooks/{p.stem}" for p in CHAPTERS}
    for f in toc_files():
        assert any((ROOT / "book" / f).with_suffix(s).exists() for s in (".md", ".ipynb")), f


def test_notebook_folder_holds_only_pairs():
    stray = [p.name for p in NOTEBOOKS.glob("*.ipynb") if not p.with_suffix(".py").exists()]
    assert not stray, f"notebooks without a .py source: {stray}"
    assert Path(ROOT / "book" / "notebooks").resolve() == NOTEBOOKS


def test_notebook_functions_loads_definitions_with_the_chapter_imports(tmp_path):
    from icml26.pipeline.notebooks import notebook_functions

    py = tmp_path / "98-demo.py"
    py.write_text(
        "# %%\nimport math\nVALUE = 1 / 0  # never executed\n\n"
        "# %%\ndef area(r):\n    return math.pi * r**2\n"
    )
    area = notebook_functions(py, "area")["area"]
    assert area(1.0) == pytest.approx(3.141592653589793)
    with pytest.raises(ValueError, match="defines no top-level missing"):
        notebook_functions(py, "missing")
    with pytest.raises(ValueError, match="py must name a chapter source"):
        notebook_functions(tmp_path / "nope.py", "area")
