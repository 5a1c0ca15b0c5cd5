"""The re-execution logic of ``make notebooks --changed`` (lib/icml26/pipeline/notebooks.py):
which library sources a chapter depends on, the hash of its inputs, and when it needs
executing again."""

import shutil

import jupytext
import pytest

from icml26.pipeline import notebooks as nbm

SOURCE = """# %%
import numpy as np

from icml26.games import zerosum

print(1)
"""


@pytest.fixture
def chapter(tmp_path_factory):
    """A two-cell chapter inside the project (hashes name files relative to its root)."""
    folder = nbm.ROOT / "build" / "pipeline-test"
    folder.mkdir(parents=True, exist_ok=True)
    py = folder / "99-probe.py"
    py.write_text(SOURCE)
    yield py
    shutil.rmtree(folder)


def _lib(*parts):
    return nbm.LIB.joinpath("icml26", *parts)


def test_dependencies_follow_imports_through_packages(chapter):
    deps = set(nbm.library_dependencies(chapter))
    assert _lib("games", "zerosum.py") in deps
    assert _lib("games", "__init__.py") in deps and _lib("__init__.py") in deps
    assert _lib("checks.py") in deps  # imported by zerosum, not by the chapter
    assert _lib("games", "preferences.py") not in deps
    assert _lib("retrieval", "med.py") not in deps


def test_inputs_hash_changes_with_the_source_and_only_with_it(chapter):
    before = nbm.inputs_hash(chapter)
    assert nbm.inputs_hash(chapter) == before
    chapter.write_text(SOURCE.replace("print(1)", "print(2)"))
    assert nbm.inputs_hash(chapter) != before
    chapter.write_text(SOURCE)
    assert nbm.inputs_hash(chapter) == before


def test_needs_execution(chapter):
    assert nbm.needs_execution(chapter)  # no twin yet
    nb = nbm.read_py(chapter)
    nb.metadata["icml26"] = {"inputs_sha256": nbm.inputs_hash(chapter)}
    jupytext.write(nb, nbm.twin(chapter), fmt="ipynb")
    assert not nbm.needs_execution(chapter)
    chapter.write_text(SOURCE.replace("print(1)", "print(1)  # edited"))
    assert nbm.needs_execution(chapter)  # the input cells differ
    chapter.write_text(SOURCE)
    nb.metadata["icml26"] = {"inputs_sha256": "0" * 64}
    jupytext.write(nb, nbm.twin(chapter), fmt="ipynb")
    assert nbm.needs_execution(chapter)  # executed from another version of its inputs


def test_exec_env_pins_threads_and_keeps_outputs_clean():
    env = nbm.exec_env("book")
    assert env["OMP_NUM_THREADS"] == env["MKL_NUM_THREADS"] == "1"
    assert env["ICML26_PROGRESS"] == "0"
    with pytest.raises(ValueError, match="profile"):
        nbm.exec_env("fast")


def test_a_figure_caption_lost_on_one_side_is_a_sync_problem(chapter):
    """A figure's caption and name live in the cell's ``mystnb`` metadata, in both files: a
    tool that drops it from one of them (a jupytext filter that keeps only tags) is caught."""
    figure = '# %% mystnb={"figure": {"caption": "What to look at.", "name": "99-fig"}}\n'
    chapter.write_text(SOURCE.replace("# %%\n", figure, 1))
    jupytext.write(nbm.read_py(chapter), nbm.twin(chapter), fmt="ipynb")
    assert nbm.sync_problem(chapter) is None
    chapter.write_text(SOURCE)
    assert "differ at cell 0" in nbm.sync_problem(chapter)


def test_consecutive_outputs_to_one_stream_are_joined() -> None:
    import nbformat

    out = nbformat.v4.new_output
    cell = nbformat.v4.new_code_cell("print('a'); print('b')")
    cell.outputs = [
        out("stream", name="stdout", text="line"),
        out("stream", name="stdout", text="\n"),
        out("stream", name="stderr", text="bar\n"),
        out("stream", name="stdout", text="next\n"),
        out("execute_result", data={"text/plain": "1"}, execution_count=1),
        out("stream", name="stdout", text="after\n"),
    ]
    nb = nbformat.v4.new_notebook(cells=[cell, nbformat.v4.new_markdown_cell("text")])
    nbm.coalesce_streams(nb)
    assert [(o.output_type, o.get("name"), o.get("text")) for o in nb.cells[0].outputs] == [
        ("stream", "stdout", "line\n"),
        ("stream", "stderr", "bar\n"),
        ("stream", "stdout", "next\n"),
        ("execute_result", None, None),
        ("stream", "stdout", "after\n"),
    ]
    assert "outputs" not in nb.cells[1]
