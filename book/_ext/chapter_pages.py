"""What every chapter page carries besides the chapter itself, generated from the registry
(:mod:`icml26.chapters`), the committed claim lines, the paper-scale records and
``book/references.bib``:

- its one title, ``NN · Title`` from the registry (the sidebar and the landing page use the
  same), whatever the notebook's first heading says;
- under the title, a badge saying what the chapter was written from (``sources``) and its
  claims' verdicts, linking to its section of the claims page;
- anchors: ``claim-NN-k`` on each claim line of a cell tagged ``claim``, ``limits-NN`` on
  its *Limits* section (the claims page links both);
- at its end, a section with three boxes: *Claims of this chapter* (each verdict at both
  scales, linking to the claim line and back to the claims page), *Library code* (the API
  entries of the modules it uses) and *How to cite the paper*.

All of it is plain docutils, so the PDF edition carries it too.
"""

from __future__ import annotations

import sys
from pathlib import Path

from docutils import nodes
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.transforms import SphinxTransform

sys.path.insert(0, str(Path(__file__).resolve().parent))
from book_data import (
    STATUSES,
    chapter_claims,
    chapter_label,
    citation_text,
    claim_anchor,
    limits_label,
    paper_cell,
    ref,
    sources_badge,
    verdict,
)

from icml26.claims import parse_claim_line
from icml26.pipeline.book import chapter_title

#: Title of the generated end section of every chapter page.
END_SECTION = "Claims, library code and citation"


def _chapter(docname: str):
    from icml26.chapters import CHAPTERS

    return next((c for c in CHAPTERS if f"notebooks/{c.stem}" == docname), None)


def _verdict_counts(record) -> list[nodes.Node]:
    out: list[nodes.Node] = []
    for status in STATUSES:
        n = record.count(status)
        if n:
            out += [verdict(status), nodes.Text(f" {n}  ")]
    return out


def _badges(chapter, record) -> nodes.paragraph:
    para = nodes.paragraph(classes=["chapter-badges"])
    para += sources_badge(chapter)
    claims = nodes.inline(classes=["claims-badge"])
    claims += ref(chapter_label(chapter.number), f"{len(record.claims)} claims:")
    claims += nodes.Text(" ")
    claims += _verdict_counts(record)
    para += nodes.Text(" ")
    para += claims
    return para


def _box(title: str, classes: list[str]) -> nodes.admonition:
    box = nodes.admonition(classes=["chapter-box", *classes])
    box += nodes.title(text=title)
    return box


def _claims_box(chapter, record) -> nodes.admonition:
    box = _box("Claims of this chapter", ["claims-box"])
    intro = nodes.paragraph()
    intro += nodes.Text("Verdicts at the default scale, then at paper scale; ")
    intro += ref(chapter_label(chapter.number), f"chapter {chapter.number} on the claims page")
    intro += nodes.Text(" shows their evidence beside every other chapter's.")
    box += intro
    items = nodes.bullet_list(classes=["claims-box-list"])
    for c in record.claims:
        para = nodes.paragraph()
        para += verdict(c.status)
        para += nodes.Text(" ")
        para += ref(claim_anchor(c.id), c.id, literal=True)
        para += nodes.Text(f" {c.statement} — measured {c.measured} ({c.threshold}). ")
        para += nodes.inline(text="Paper scale: ", classes=["paper-label"])
        para += paper_cell(record, c.id)
        items += nodes.list_item("", para)
    box += items
    if record.paper.status == "partial":
        box += nodes.paragraph(text=f"Paper scale, partial run: {record.paper.reason}.")
    elif record.paper.status != "run":
        box += nodes.paragraph(text=f"Paper scale not run: {record.paper.reason}.")
    return box


def _library_box(chapter) -> nodes.admonition:
    box = _box("Library code", ["library-box"])
    box += nodes.paragraph(text="The kernels this chapter calls, in the Library reference:")
    items = nodes.bullet_list()
    for m in chapter.modules:
        para = nodes.paragraph()
        xref = addnodes.pending_xref(
            "", refdomain="py", reftype="mod", reftarget=m, refexplicit=True, refwarn=True
        )
        xref += nodes.literal(text=m)
        para += xref
        items += nodes.list_item("", para)
    box += items
    return box


def _cite_box(chapter) -> nodes.admonition:
    from book_data import bibtex_entry

    box = _box("How to cite the paper", ["cite-box"])
    box += nodes.paragraph(text=citation_text(chapter.bib))
    entry = bibtex_entry(chapter.bib)
    box += nodes.literal_block(entry, entry, language="bibtex")
    box += nodes.paragraph(
        text="To cite this book, see CITATION.cff in its repository; cite the paper for "
        "its results, and this chapter for its reproduction."
    )
    return box


def _end_section(document, chapter, record) -> nodes.section:
    section = nodes.section(ids=["chapter-end"])
    section += nodes.title(text=END_SECTION)
    section += _claims_box(chapter, record)
    section += _library_box(chapter)
    if chapter.bib:
        section += _cite_box(chapter)
    _label(document, section, f"chapter-end-{chapter.number}")
    return section


def _label(document, node: nodes.Element, label: str) -> None:
    """Make ``label`` an explicit label of ``node`` (what the standard domain collects)."""
    if not node["ids"]:
        node["ids"].append(label)
    document.ids.setdefault(node["ids"][0], node)
    node["names"].append(label)
    document.nameids[label] = node["ids"][0]
    document.nametypes[label] = True


def _claim_targets(document) -> None:
    """A target ``claim-NN-k`` before each claim line of a cell tagged ``claim``."""
    for cell in list(document.findall(nodes.container)):
        if cell.get("nb_element") != "cell_code" or "tag_claim" not in cell["classes"]:
            continue
        for block in list(cell.findall(nodes.literal_block)):
            for line in block.astext().splitlines():
                parsed = parse_claim_line(line)
                if parsed is None:
                    continue
                target = nodes.target("", "", ids=[claim_anchor(parsed.id)])
                _label(document, target, claim_anchor(parsed.id))
                block.parent.insert(block.parent.index(block), target)


class ChapterPage(SphinxTransform):
    default_priority = 700  # before doctree-read (880): titles and labels are collected then

    def apply(self, **kwargs) -> None:
        chapter = _chapter(self.env.docname)
        if chapter is None:
            return
        top = next(iter(self.document.findall(nodes.section)), None)
        if top is None:
            return
        record = chapter_claims(chapter.number)
        top[0].clear()
        top[0] += nodes.Text(chapter_title(chapter))
        # sphinx-proof finds a block's chapter by the title among its section's names
        top["names"].append(nodes.fully_normalize_name(chapter_title(chapter)))
        top.insert(1, _badges(chapter, record))
        sections = [s for s in top.findall(nodes.section) if s is not top]
        limits = [s for s in sections if s[0].astext().lower().startswith("limits")]
        _label(self.document, limits[0] if limits else top, limits_label(chapter.number))
        _claim_targets(self.document)
        top += _end_section(self.document, chapter, record)


def setup(app: Sphinx) -> dict[str, object]:
    app.add_transform(ChapterPage)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
