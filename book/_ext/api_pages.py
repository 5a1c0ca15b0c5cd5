"""The Library reference: autodoc of ``icml26``, one page per part of the book, one section
per module, each module linked to the chapters that teach it (the way a textbook's
"Defined in" note does).

``api-modules <page>`` documents the modules of one page (``core``, ``shared`` or a part of
:data:`icml26.chapters.PARTS`), each under its own heading so that the page's contents panel
lists them; ``api-index`` lists every page and its modules with their one-line summaries.
Both read the chapter registry (:mod:`icml26.chapters`), so a new chapter's modules appear
without editing a page. Docstrings cite the chapters' MyST labels (``:prf:ref:`` and
``:eq:``), which the nitpicky build resolves or fails on.
"""

from __future__ import annotations

import importlib

from docutils import nodes
from docutils.statemachine import StringList
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.util.docutils import SphinxDirective

#: The core, documented first: what every chapter calls.
CORE = (
    "icml26.runtime",
    "icml26.claims",
    "icml26.checks",
    "icml26.stats",
    "icml26.background",
    "icml26.plotting",
    "icml26.resume",
    "icml26.chapters",
)


def page_modules() -> dict[str, list[str]]:
    """Library reference page → its modules, in reading order."""
    from icml26.chapters import CHAPTERS
    from icml26.pipeline.book import CORE_PAGE, SHARED_PAGE, api_pages

    shared = sorted({m for c in CHAPTERS for m in c.modules if m.count(".") == 1} - set(CORE))
    out: dict[str, list[str]] = {CORE_PAGE: list(CORE), SHARED_PAGE: shared}
    for c in CHAPTERS:
        for m in c.modules:
            if m not in shared and m not in CORE and m not in out.setdefault(c.part, []):
                out[c.part].append(m)
    return {page: out.get(page, []) for page in api_pages()}


def summary(module: str) -> str:
    """The first sentence of a module's docstring (without the trailing full stop)."""
    doc = (importlib.import_module(module).__doc__ or "").strip()
    first = " ".join(doc.split("\n\n", 1)[0].split())
    return first.split(". ")[0].rstrip(".") if first else module


def teaching_chapters() -> dict[str, list[tuple[str, str]]]:
    """module name -> [(chapter number, notebook stem)] of the chapters that use it."""
    from icml26.chapters import CHAPTERS

    out: dict[str, list[tuple[str, str]]] = {}
    for c in CHAPTERS:
        for m in c.modules:
            out.setdefault(m, []).append((c.number, c.stem))
    return out


class ApiModules(SphinxDirective):
    required_arguments = 1
    has_content = False

    def run(self) -> list[nodes.Node]:
        pages = page_modules()
        page = self.arguments[0]
        if page not in pages:
            raise self.error(f"api-modules: unknown page {page!r} (one of {sorted(pages)})")
        lines: list[str] = []
        for m in pages[page]:  # a section per module: the page's contents panel lists them
            lines += [f"## `{m}`", "", "```{eval-rst}", f".. automodule:: {m}", "   :members:"]
            lines += ["```", ""]
        container = nodes.container()
        self.state.nested_parse(StringList(lines, source="api-modules"), 0, container, True)
        return container.children


class ApiIndex(SphinxDirective):
    """Every page of the Library reference with its modules and their summaries."""

    has_content = False

    def run(self) -> list[nodes.Node]:
        from icml26.pipeline.book import api_pages

        titles = api_pages()
        out = nodes.bullet_list(classes=["api-index"])
        for page, modules in page_modules().items():
            item = nodes.list_item()
            para = nodes.paragraph()
            ref = addnodes.pending_xref(
                "", refdomain="std", reftype="doc", reftarget=f"/api/{page}", refexplicit=True
            )
            ref += nodes.inline(text=titles[page])
            para += ref
            item += para
            sub = nodes.bullet_list()
            for m in modules:
                mod = nodes.paragraph()
                xref = addnodes.pending_xref(
                    "", refdomain="py", reftype="mod", reftarget=m, refexplicit=True
                )
                xref += nodes.literal(text=m)
                mod += xref
                mod += nodes.Text(": " + summary(m).replace("``", ""))
                sub += nodes.list_item("", mod)
            item += sub
            out += item
        return [out]


def _defined_in(app, what, name, obj, options, lines) -> None:
    teaching = teaching_chapters()
    module = name if what == "module" else getattr(obj, "__module__", "")
    if module not in teaching or (what != "module" and name.count(".") > module.count(".") + 1):
        return
    links = ", ".join(f":doc:`chapter {n} </notebooks/{stem}>`" for n, stem in teaching[module])
    lines += ["", f"*Taught in* {links}."]


def _tuples(app: Sphinx, config) -> None:
    """``nitpick_ignore`` from ``_config.yml`` arrives as lists; Sphinx matches tuples."""
    config.nitpick_ignore = {tuple(x) for x in config.nitpick_ignore}


def setup(app: Sphinx) -> dict[str, object]:
    app.connect("config-inited", _tuples)
    app.setup_extension("sphinx.ext.autodoc")
    app.add_directive("api-modules", ApiModules)
    app.add_directive("api-index", ApiIndex)
    app.connect("autodoc-process-docstring", _defined_in)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
