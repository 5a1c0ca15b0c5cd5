"""Serve MathJax 3 from the built site, never from a CDN, so the book renders offline.

MathJax is installed from the npm registry (``package.json`` pins it) into ``node_modules``.
This extension points ``mathjax_path`` at ``_static/mathjax/tex-chtml.js`` and, when the HTML
build finishes, copies MathJax's ``es5`` tree there. The tree is deliberately kept out of
``book/_static``: Jupyter Book 1 would add every ``.js`` file under it to every page.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from sphinx.application import Sphinx
from sphinx.errors import ExtensionError

MATHJAX_ENTRY = "mathjax/tex-chtml.js"


def _source(app: Sphinx) -> Path:
    return Path(app.srcdir).resolve().parent / "node_modules" / "mathjax" / "es5"


def _configure(app: Sphinx, config) -> None:
    config.mathjax_path = MATHJAX_ENTRY
    # MathJax 3 reads the configuration from window.MathJax; keep the TeX defaults of Sphinx.
    config.mathjax3_config = {
        "tex": {"inlineMath": [["\\(", "\\)"]], "displayMath": [["\\[", "\\]"]]},
        "options": {"processHtmlClass": "tex2jax_process|mathjax_process|math|output_area"},
    }


def _check(app: Sphinx) -> None:
    if app.builder.format == "html" and not (_source(app) / "tex-chtml.js").exists():
        raise ExtensionError(
            f"MathJax not found under {_source(app)}: run `npm ci` (make book does it)"
        )


def _copy(app: Sphinx, exception: Exception | None) -> None:
    if exception is not None or app.builder.format != "html":
        return
    target = Path(app.outdir) / "_static" / "mathjax"
    shutil.copytree(_source(app), target, dirs_exist_ok=True)


def setup(app: Sphinx) -> dict[str, object]:
    app.connect("config-inited", _configure, priority=900)
    app.connect("builder-inited", _check)
    app.connect("build-finished", _copy)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
