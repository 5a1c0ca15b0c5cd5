"""The API page: autodoc of ``icml26``, part by part, each module linked to the chapter that
teaches it (the way a textbook's "Defined in" note does).

The ``api-modules`` directive reads the chapter registry (:mod:`icml26.chapters`), so a new
chapter's modules appear here without editing the page. Docstrings cite the chapters' MyST
labels (``:prf:ref:`` and ``:eq:``), which the nitpicky build resolves or fails on.
"""

from __future__ import annotations

from docutils import nodes
from docutils.statemachine import StringList
from sphinx.application import Sphinx
from sphinx.util.docutils import SphinxDirective

CORE = (
    "icml26.runtime",
    "icml26.claims",
    "icml26.checks",
    "icml26.stats",
    "icml26.plotting",
    "icml26.chapters",
)


def _teaching_chapters() -> dict[str, list[tuple[str, str]]]:
    """module name -> [(chapter number, notebook stem)] of the chapters that use it."""
    from icml26.chapters import CHAPTERS

    out: dict[str, list[tuple[str, str]]] = {}
    for c in CHAPTERS:
        for m in c.modules:
            out.setdefault(m, []).append((c.number, c.stem))
    return out


class ApiModules(SphinxDirective):
    has_content = False

    def run(self) -> list[nodes.Node]:
        from icml26.chapters import CHAPTERS, PARTS

        lines = [".. rubric:: Core", ""]
        for m in CORE:
            lines += [f".. automodule:: {m}", "   :members:", ""]
        # a kernel that two parts share sits at the top level: documented once, here
        shared = sorted({m for c in CHAPTERS for m in c.modules if m.count(".") == 1} - set(CORE))
        if shared:
            lines += [".. rubric:: Shared by several parts", ""]
            for m in shared:
                lines += [f".. automodule:: {m}", "   :members:", ""]
        for part, caption in PARTS.items():
            modules = []
            for c in CHAPTERS:
                modules += [
                    m for m in c.modules if c.part == part and m not in modules and m not in shared
                ]
            if not modules:
                continue
            lines += [f".. rubric:: {caption}", ""]
            for m in modules:
                lines += [f".. automodule:: {m}", "   :members:", ""]
        # the page is MyST: hand the generated reStructuredText to its eval-rst directive
        lines = ["```{eval-rst}", *lines, "```"]
        container = nodes.container()
        self.state.nested_parse(StringList(lines, source="api-modules"), 0, container)
        return container.children


def _defined_in(app, what, name, obj, options, lines) -> None:
    teaching = _teaching_chapters()
    module = name if what == "module" else getattr(obj, "__module__", "")
    if module not in teaching or (what != "module" and name.count(".") > module.count(".") + 1):
        return
    links = ", ".join(f":doc:`chapter {n} </notebooks/{stem}>`" for n, stem in teaching[module])
    lines += ["", f"*Taught in* {links}."]


def setup(app: Sphinx) -> dict[str, object]:
    app.setup_extension("sphinx.ext.autodoc")
    app.add_directive("api-modules", ApiModules)
    app.connect("autodoc-process-docstring", _defined_in)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
