"""Build the book: ``python -m icml26.pipeline.book build`` (what ``make book`` runs).

Jupyter Book 1 renders the committed notebook outputs (no re-execution) with warnings as
errors and nitpicky references, then the path of the site's ``index.html`` is printed.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

__all__ = [
    "BOOK",
    "FLAGS",
    "ROOT",
    "build",
]

ROOT = Path(__file__).resolve().parents[3]
BOOK = ROOT / "book"
FLAGS = ("-W", "-n", "--keep-going")


def build(*, out: Path | None = None, quiet: bool = False) -> Path:
    """Build the HTML book; return the path of its ``index.html``. Raises on any warning."""
    exe = Path(sys.executable).with_name("jupyter-book")
    cmd = [str(exe), "build", str(BOOK), *FLAGS]
    if out is not None:
        cmd += ["--path-output", str(out)]
    t0 = time.perf_counter()
    result = subprocess.run(cmd, cwd=ROOT, capture_output=quiet, text=True, check=False)
    if result.returncode != 0:
        detail = (result.stdout or "")[-4000:] + (result.stderr or "")[-4000:] if quiet else ""
        raise RuntimeError(f"the book build failed (exit {result.returncode})\n{detail}")
    index = (out or BOOK) / "_build" / "html" / "index.html"
    if not quiet:
        print(f"built in {time.perf_counter() - t0:.0f} s; open {index.resolve()}")
    return index


def _main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m icml26.pipeline.book", description=__doc__)
    parser.add_argument("command", choices=["build"])
    parser.add_argument("--out", type=Path, default=None, help="build into OUT/_build/html")
    args = parser.parse_args(argv)
    try:
        build(out=args.out)
    except RuntimeError as err:
        print(err, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(_main())
