"""What the book's generated pages share: the claims of every chapter at both scales, the
paper each chapter teaches (from ``book/references.bib``), and the nodes that show a verdict,
a chapter's sources and a link to a claim, so that the chapter pages, the claims page and
the landing page say the same thing the same way.

Nothing here is typed by hand: claims come from the committed outputs
(:func:`icml26.pipeline.book.claims`), sources and titles from the chapter registry.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

from docutils import nodes
from sphinx import addnodes

from icml26.claims import NOT_DISCRIMINATING, NOT_REPRODUCED, OK

BOOK = Path(__file__).resolve().parents[1]
NOTEBOOKS = BOOK.parent / "notebooks"
STATUSES = (OK, NOT_REPRODUCED, NOT_DISCRIMINATING)
#: CSS class of each verdict (``verdict-ok``, ...), shared by the claim lines and the pages.
VERDICT_CLASS = {OK: "ok", NOT_REPRODUCED: "nr", NOT_DISCRIMINATING: "nd"}
VERDICT_MARK = {OK: "✓", NOT_REPRODUCED: "✗", NOT_DISCRIMINATING: "≈"}
#: How a chapter's ``sources`` (``icml26.chapters.SOURCES``) reads under its title.
SOURCES_TEXT = {
    "full paper": "Written from the full paper",
    "abstract and released code": "Written from the abstract and the released code",
    "abstract and secondary summaries": "Written from the abstract and secondary summaries",
    "abstract only": "Written from the abstract only",
}


def claim_anchor(claim_id: str) -> str:
    """The HTML id and label of a claim line: ``07.3`` → ``claim-07-3``."""
    return "claim-" + claim_id.replace(".", "-")


def chapter_label(number: str) -> str:
    """The label of a chapter's section on the claims page."""
    return f"claims-{number}"


def limits_label(number: str) -> str:
    """The label of a chapter's Limits section (set on the chapter page)."""
    return f"limits-{number}"


@functools.cache
def all_claims() -> tuple:
    """Every chapter's claims at both scales (read once per build)."""
    from icml26.pipeline.book import claims

    return tuple(claims(NOTEBOOKS))


def chapter_claims(number: str):
    return next(c for c in all_claims() if c.chapter.number == number)


def verdict(status: str, *, mark: bool = True) -> nodes.inline:
    """A coloured verdict; its text says the verdict (colour is never the only cue)."""
    text = f"{VERDICT_MARK[status]} {status}" if mark else status
    return nodes.inline(text=text, classes=["verdict", f"verdict-{VERDICT_CLASS[status]}"])


def ref(label: str, text: str, *, literal: bool = False) -> addnodes.pending_xref:
    """A link to a label anywhere in the book (resolved, or a nitpicky build fails)."""
    node = addnodes.pending_xref(
        "", refdomain="std", reftype="ref", reftarget=label, refexplicit=True, refwarn=True
    )
    node += nodes.literal(text=text) if literal else nodes.inline(text=text)
    return node


def doc_ref(docname: str, text: str) -> addnodes.pending_xref:
    node = addnodes.pending_xref(
        "", refdomain="std", reftype="doc", reftarget=f"/{docname}", refexplicit=True
    )
    node += nodes.inline(text=text)
    return node


def sources_badge(chapter) -> nodes.inline:
    """What the chapter was written from, as a badge linking to the landing page's key."""
    badge = nodes.inline(classes=["sources-badge", f"sources-{chapter.sources.split()[0]}"])
    badge += ref("intro-sources", SOURCES_TEXT[chapter.sources])
    return badge


def evidence(c) -> str:
    """A claim's evidence in one line: seeds and spread, control, tuned mark."""
    parts = [c.seeds] if c.seeds else []
    if c.control:
        parts.append(f"control {c.control}")
    elif c.no_control:
        parts.append(f"no control: {c.no_control}")
    if c.tuned:
        parts.append(f"tuned: {c.tuned}")
    return " · ".join(parts)


def paper_cell(chapter_record, claim_id: str) -> list[nodes.Node]:
    """What the paper scale says of one claim: its verdict and value, or why not run."""
    paper = chapter_record.paper
    if paper.status not in ("run", "partial"):
        return [nodes.inline(text="not run", classes=["paper-not-run"])]
    line = paper.claims.get(claim_id)
    if line is None:
        missing = "not reached: the run stopped" if paper.status == "partial" else "not printed"
        return [nodes.inline(text=f"{missing} at paper scale", classes=["paper-not-run"])]
    return [verdict(line.status), nodes.Text(f" {line.measured} ({line.threshold})")]


# ------------------------------------------------------------------ the papers, from the .bib
@functools.cache
def _bib_text() -> str:
    return (BOOK / "references.bib").read_text(encoding="utf-8")


def bibtex_entry(key: str) -> str:
    """The entry ``key`` of ``book/references.bib``, as it is written there."""
    text = _bib_text()
    m = re.search(r"^@\w+\{" + re.escape(key) + r",.*?^\}", text, re.MULTILINE | re.DOTALL)
    if m is None:
        raise ValueError(f"no entry {key!r} in book/references.bib")
    return m.group(0)


def _field(entry: str, name: str) -> str:
    m = re.search(r"^\s*" + name + r"\s*=\s*\{(.*)\},?\s*$", entry, re.MULTILINE)
    return re.sub(r"[{}]", "", m.group(1)).strip() if m else ""


def citation_text(key: str) -> str:
    """One reference line: ``Authors (year). Title. Venue.`` (the authors as the .bib has
    them, ``and`` between them)."""
    entry = bibtex_entry(key)
    authors = _field(entry, "author").replace(" and ", "; ") or "Authors not identified"
    venue = _field(entry, "booktitle") or _field(entry, "journal") or _field(entry, "howpublished")
    year, title = _field(entry, "year"), _field(entry, "title")
    return f"{authors} ({year}). {title}." + (f" {venue}." if venue else "")
