"""The paired-notebook pipeline: execute chapters, check that pairs agree, check outputs.

Each chapter is ``notebooks/NN-slug.py`` (jupytext py:percent, the source of truth) and its
executed twin ``notebooks/NN-slug.ipynb``. This module is what ``make notebooks`` runs and
what the tests call::

    python -m icml26.pipeline.notebooks execute --changed     # re-execute what changed
    python -m icml26.pipeline.notebooks execute notebooks/01-med.py
    python -m icml26.pipeline.notebooks check                 # pair sync + output hygiene
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from icml26.chapters import BUDGET_S

__all__ = [
    "ABSOLUTE_PATH_RE",
    "CHAPTER_GLOB",
    "EXEC_ENV",
    "FIX",
    "KERNELSPEC",
    "LIB",
    "NOTEBOOKS",
    "ROOT",
    "WARNING_RE",
    "InputCell",
    "chapters",
    "exec_env",
    "execute",
    "input_cells",
    "inputs_hash",
    "install_kernel",
    "library_dependencies",
    "needs_execution",
    "notebook_functions",
    "output_problems",
    "read_py",
    "sync_problem",
    "twin",
]

ROOT = Path(__file__).resolve().parents[3]
NOTEBOOKS = ROOT / "notebooks"
CHAPTER_GLOB = "[0-9][0-9]-*.py"
FIX = "make notebooks NB={py}"

#: Environment of every executed notebook (``make notebooks`` and nbval alike) beside the
#: numeric configuration: no progress bars in committed outputs, no model hub.
EXEC_ENV = {
    "ICML26_PROGRESS": "0",
    "PYTHONHASHSEED": "0",
    "HF_HUB_OFFLINE": "1",
    "TRANSFORMERS_OFFLINE": "1",
    "MPLBACKEND": "module://matplotlib_inline.backend_inline",
}


def exec_env(profile: str = "book") -> dict[str, str]:
    """:data:`EXEC_ENV` with the numeric configuration ``profile`` of
    :func:`icml26.runtime.numeric_env` (one BLAS/OpenMP thread and pinned CPU code paths for
    ``book``, so that reductions run in the same order on every machine)."""
    from icml26.runtime import numeric_env

    return {**numeric_env(profile), **EXEC_ENV}


KERNELSPEC = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}

# Machine paths that must never appear in committed outputs.
ABSOLUTE_PATH_RE = re.compile(r"(/work/|/root/|/home/[^/\s]+/|/tmp/|/Users/|/opt/|[A-Z]:\\\\)")
WARNING_RE = re.compile(r"\b\w*(Warning|Error)\b:|Traceback \(most recent call last\)")


def chapters(root: Path = NOTEBOOKS) -> list[Path]:
    """The chapter sources ``notebooks/NN-slug.py``, in chapter order."""
    return sorted(root.glob(CHAPTER_GLOB))


def twin(py: Path) -> Path:
    """The ``.ipynb`` paired with a chapter's ``.py``."""
    return Path(py).with_suffix(".ipynb")


@dataclass(frozen=True)
class InputCell:
    """What pairing compares: a cell's type, source and tags (outputs are not compared)."""

    cell_type: str
    source: str
    tags: tuple[str, ...]
    #: the cell's MyST-NB options (a figure's caption and name), as sorted JSON
    mystnb: str = ""


def input_cells(nb) -> list[InputCell]:
    """The input cells of a notebook object, normalised for comparison."""
    return [
        InputCell(
            c.cell_type,
            c.source.strip(),
            tuple(sorted(c.get("metadata", {}).get("tags", []))),
            json.dumps(c.get("metadata", {}).get("mystnb", {}), sort_keys=True),
        )
        for c in nb.cells
    ]


def read_py(py: Path):
    """Read a chapter's py:percent source as a notebook."""
    import jupytext

    return jupytext.read(py, fmt="py:percent")


def sync_problem(py: Path) -> str | None:
    """``None`` when ``py`` and its ``.ipynb`` have the same input cells, else why not."""
    import nbformat

    py = Path(py)
    ipynb = twin(py)
    if not ipynb.exists():
        return f"{ipynb.name} is missing; run `{FIX.format(py=py.relative_to(ROOT))}`"
    a = input_cells(read_py(py))
    b = input_cells(nbformat.read(ipynb, as_version=4))
    if a == b:
        return None
    for i, (x, y) in enumerate(zip(a, b, strict=False)):
        if x != y:
            where = f"cell {i} ({x.cell_type}: {x.source[:40]!r}...)"
            break
    else:
        where = f"cell count {len(a)} in .py vs {len(b)} in .ipynb"
    rel = py.relative_to(ROOT)
    return f"{rel} and {ipynb.name} differ at {where}; run `{FIX.format(py=rel)}`"


def output_problems(ipynb: Path) -> list[str]:
    """Errors, warnings, tracebacks and machine paths in a notebook's committed outputs."""
    import nbformat

    nb = nbformat.read(ipynb, as_version=4)
    problems = []
    for i, cell in enumerate(nb.cells):
        for out in cell.get("outputs", []):
            kind = out.get("output_type")
            if kind == "error":
                problems.append(f"{ipynb.name} cell {i}: error output {out.get('ename')}")
                continue
            texts = [out.get("text", "")] if kind == "stream" else []
            texts += [v for k, v in out.get("data", {}).items() if k.startswith("text/")]
            for text in texts:
                text = "".join(text) if isinstance(text, list) else str(text)
                if WARNING_RE.search(text):
                    problems.append(f"{ipynb.name} cell {i}: warning or traceback in output")
                if ABSOLUTE_PATH_RE.search(text):
                    problems.append(f"{ipynb.name} cell {i}: absolute machine path in output")
    return problems


LIB = ROOT / "lib"


def _module_file(name: str) -> Path | None:
    """The source file of an ``icml26`` module (a package's ``__init__.py``), if it exists."""
    base = LIB / Path(*name.split("."))
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def _icml26_imports(source: str, package: str = "") -> set[str]:
    """Names of the ``icml26`` modules a source imports (``from icml26.x import y`` may name
    a module ``icml26.x.y`` or an attribute of ``icml26.x``: both are returned if they exist)."""
    import ast

    names: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names |= {a.name for a in node.names if a.name.split(".")[0] == "icml26"}
        elif isinstance(node, ast.ImportFrom):
            mod = node.module or ""
            if node.level:  # relative import inside the package
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                mod = ".".join([*parts, *([mod] if mod else [])])
            if mod.split(".")[0] != "icml26":
                continue
            names.add(mod)
            names |= {f"{mod}.{a.name}" for a in node.names}
    out = set()
    for n in names:  # every parent package runs its __init__ too
        parts = n.split(".")
        out |= {".".join(parts[: i + 1]) for i in range(len(parts))}
    return {n for n in out if _module_file(n) is not None}


def library_dependencies(py: Path) -> list[Path]:
    """The ``icml26`` source files a chapter imports, directly or through other modules."""
    todo, seen = list(_icml26_imports(Path(py).read_text())), set()
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        f = _source(name)
        pkg = name if f.name == "__init__.py" else name.rsplit(".", 1)[0]
        todo += [m for m in _icml26_imports(f.read_text(), pkg) if m not in seen]
    return sorted({_source(n) for n in seen})


def _source(name: str) -> Path:
    """The source file of a module :func:`_icml26_imports` found (it exists)."""
    f = _module_file(name)
    if f is None:
        raise ValueError(f"name must be an icml26 module with a source file, got {name!r}")
    return f


def inputs_hash(py: Path) -> str:
    """sha256 of a chapter's source, of every ``icml26`` module it depends on, and of its
    paper-scale record (``notebooks/paper-scale/NN-slug.json``, which its Limits print)."""
    import hashlib

    h = hashlib.sha256()
    record = NOTEBOOKS / "paper-scale" / f"{Path(py).stem}.json"
    for f in [Path(py), *library_dependencies(py), *([record] if record.exists() else [])]:
        h.update(f.relative_to(ROOT).as_posix().encode() + b"\0" + f.read_bytes() + b"\0")
    return h.hexdigest()


def needs_execution(py: Path) -> bool:
    """A chapter needs executing when its twin is missing, differs in input cells, or was
    executed from another version of its source or of an ``icml26`` module it imports."""
    import nbformat

    ipynb = twin(py)
    if not ipynb.exists() or sync_problem(py) is not None:
        return True
    recorded = nbformat.read(ipynb, as_version=4).metadata.get("icml26", {})
    return recorded.get("inputs_sha256") != inputs_hash(py)


def coalesce_streams(nb: Any) -> None:
    """Join each code cell's consecutive outputs to the same stream into one, in place.

    How a kernel splits a cell's printed text into messages depends on timing (a busy
    machine flushes a line and its newline separately); the committed twin should not.
    """
    for cell in nb.cells:
        merged: list[Any] = []
        for out in cell.get("outputs", []):
            prev = merged[-1] if merged else None
            if (
                prev is not None
                and out.get("output_type") == prev.get("output_type") == "stream"
                and out.get("name") == prev.get("name")
            ):
                prev["text"] = prev.get("text", "") + out.get("text", "")
            else:
                merged.append(out)
        if "outputs" in cell:
            cell["outputs"] = merged


def execute(py: Path, *, timeout: int = 600, write: bool = True, profile: str = "book") -> float:
    """Execute a chapter's ``.py`` in a fresh kernel and write its ``.ipynb``; return seconds.

    With ``write=False`` the executed notebook is discarded (``make bench`` times chapters
    this way without touching the committed twins). ``profile`` is the numeric configuration
    (:func:`icml26.runtime.numeric_env`); committed twins are always written under ``book``.
    """
    import jupytext
    from nbclient import NotebookClient

    if write and profile != "book":
        raise ValueError(f"committed twins are written under the book profile, got {profile!r}")
    py = Path(py).resolve()
    nb = read_py(py)
    nb.metadata = {
        "jupytext": {"formats": "ipynb,py:percent"},
        "kernelspec": dict(KERNELSPEC),
        "language_info": {"name": "python"},
    }
    for i, cell in enumerate(nb.cells):
        cell["id"] = f"c{i:03d}"  # stable ids: no churn in the committed twin
    env = exec_env(profile)
    old = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        client = NotebookClient(
            nb,
            timeout=timeout,
            kernel_name="python3",
            resources={"metadata": {"path": str(py.parent)}},
            record_timing=False,
        )
        t0 = time.perf_counter()
        client.execute()
        seconds = time.perf_counter() - t0
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    nb.metadata.pop("widgets", None)
    nb.metadata["language_info"] = {"name": "python"}
    nb.metadata["icml26"] = {"inputs_sha256": inputs_hash(py)}
    coalesce_streams(nb)
    if write:
        jupytext.write(nb, twin(py), fmt="ipynb")
    return seconds


def install_kernel(prefix: Path | None = None) -> Path:
    """Write the ``python3`` kernelspec of this environment with the book's numeric
    configuration in its ``env``, so that a notebook opened in JupyterLab (``make lab``, or
    any Jupyter started from this environment) computes as ``make notebooks`` does. Progress
    bars stay on there. JupyterLab is also told to open a ``.py`` chapter as a notebook.
    Returns the path of ``kernel.json``."""
    import json

    env = {k: v for k, v in exec_env("book").items() if k not in ("ICML26_PROGRESS", "MPLBACKEND")}
    spec = {
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": KERNELSPEC["display_name"],
        "language": "python",
        "env": env,
        "metadata": {"debugger": True},
    }
    share = Path(prefix or sys.prefix) / "share" / "jupyter"
    path = share / "kernels" / "python3" / "kernel.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(spec, indent=1) + "\n")
    # JupyterLab opens a chapter's .py as a notebook (jupytext), not as a text file
    lab = share / "lab" / "settings" / "overrides.json"
    lab.parent.mkdir(parents=True, exist_ok=True)
    viewers = {
        "@jupyterlab/docmanager-extension:plugin": {
            "defaultViewers": {"python": "Jupytext Notebook"}
        }
    }
    lab.write_text(json.dumps(viewers, indent=1) + "\n")
    return path


def notebook_functions(py: Path | str, *names: str) -> dict[str, object]:
    """Load top-level functions (or classes) defined in a chapter's ``.py``, by name.

    The notebook's readable reference implementation is the one source of that code:
    benchmarks and tests that compare a kernel with it load it from the chapter instead of
    copying it. The chapter's top-level imports are executed first (nothing else runs), so
    the definitions see the same modules as in the notebook.
    """
    import ast

    py = Path(py)
    if not py.is_absolute():
        py = NOTEBOOKS / py
    if py.suffix != ".py":
        py = py.with_suffix(".py")
    if not py.exists():
        raise ValueError(f"py must name a chapter source, got {py}")
    if not names:
        raise ValueError("names must list at least one function")
    tree = ast.parse(py.read_text(), filename=str(py))
    imports = [n for n in tree.body if isinstance(n, ast.Import | ast.ImportFrom)]
    defs = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef | ast.ClassDef)}
    missing = [n for n in names if n not in defs]
    if missing:
        raise ValueError(f"{py.name} defines no top-level {', '.join(missing)}")
    namespace: dict[str, object] = {"__name__": f"notebook_{py.stem.replace('-', '_')}"}
    module = ast.Module(body=imports + [defs[n] for n in names], type_ignores=[])
    exec(compile(module, str(py), "exec"), namespace)
    return {n: namespace[n] for n in names}


def _main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m icml26.pipeline.notebooks", description=__doc__
    )
    sub = parser.add_subparsers(dest="command", required=True)
    ex = sub.add_parser("execute", help="execute chapters into their .ipynb")
    ex.add_argument("files", nargs="*", type=Path, help="chapter .py files (default: all)")
    ex.add_argument(
        "--changed",
        action="store_true",
        help="only chapters whose source or imported icml26 modules changed since execution",
    )
    sub.add_parser("check", help="pair sync and output hygiene of every chapter")
    sub.add_parser("kernel", help="install the python3 kernelspec with the numeric configuration")
    args = parser.parse_args(argv)

    if args.command == "kernel":
        print(f"kernelspec written to {install_kernel()}")
        return 0
    if args.command == "check":
        problems = [p for py in chapters() if (p := sync_problem(py))]
        problems += [p for py in chapters() if twin(py).exists() for p in output_problems(twin(py))]
        print("\n".join(problems) or f"{len(chapters())} chapters in sync, outputs clean")
        return 1 if problems else 0

    files = [Path(f) for f in args.files] or chapters()
    for f in files:
        if f.suffix != ".py" or not f.exists():
            parser.error(f"not a chapter source: {f}")
    if args.changed:
        files = [f for f in files if needs_execution(f)]
    if not files:
        print("all chapters are up to date")
        return 0
    status = 0
    for f in files:
        seconds = execute(f)
        problems = output_problems(twin(f))
        flag = "" if seconds <= BUDGET_S else f"  (over the {BUDGET_S:.0f} s budget)"
        print(f"{seconds:7.1f} s  {f.name}{flag}")
        for p in problems:
            print(f"          {p}")
            status = 1
    return status


if __name__ == "__main__":
    sys.exit(_main())
