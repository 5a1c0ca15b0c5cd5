"""The ``chapter-list`` directive: the book's nineteen papers by part, each either linked to
its chapter (with the one title the registry gives it, and what the chapter was written from)
or marked forthcoming, from the chapter registry (:mod:`icml26.chapters`)."""

from __future__ import annotations

import sys
from pathlib import Path

from docutils import nodes
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.util.docutils import SphinxDirective

sys.path.insert(0, str(Path(__file__).resolve().parent))
from book_data import sources_badge


class ChapterList(SphinxDirective):
    has_content = False

    def run(self) -> list[nodes.Node]:
        from icml26.chapters import CHAPTERS, FORTHCOMING, PARTS

        written = {c.number: c for c in CHAPTERS}
        entries = {c.number: (c.part, c.title) for c in CHAPTERS} | FORTHCOMING
        out: list[nodes.Node] = []
        for part, caption in PARTS.items():
            numbers = sorted(n for n, (p, _) in entries.items() if p == part)
            if not numbers:
                continue
            out.append(nodes.rubric(text=caption))
            items = nodes.bullet_list()
            for n in numbers:
                para = nodes.paragraph()
                title = entries[n][1]
                if n in written:
                    ref = addnodes.pending_xref(
                        "",
                        refdomain="std",
                        reftype="doc",
                        reftarget=f"/notebooks/{written[n].stem}",
                        refexplicit=True,
                        refwarn=True,
                    )
                    ref += nodes.inline(text=f"{n} · {title}")
                    para += ref
                    para += nodes.Text(" ")
                    para += sources_badge(written[n])
                else:
                    para += nodes.Text(f"{n} · {title} ")
                    para += nodes.emphasis(text="(forthcoming)")
                items += nodes.list_item("", para)
            out.append(items)
        return out


def setup(app: Sphinx) -> dict[str, object]:
    app.add_directive("chapter-list", ChapterList)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
