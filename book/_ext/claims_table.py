"""The claims page as a dashboard, generated at build time from the committed outputs.

Each code cell tagged ``claim`` prints one claim line (see :func:`icml26.claim`), parsed by
:func:`icml26.claims.parse_claim_line`; each chapter's paper-scale record
(``notebooks/paper-scale/NN-slug.json``, :mod:`icml26.pipeline.paper`) gives the same claims
at paper scale. Nothing on the page is typed by hand. The directives:

- ``claims-summary``: the book's counts: each verdict, reproductions and theorems, controls,
  seeds, tuned marks, and the paper scale (also on the landing page);
- ``claims-overview``: one row per chapter: what it was written from and its verdict counts
  at both scales, linking to its section;
- ``claims-failing``: only the claims that did not reproduce or did not discriminate, each
  linking to its claim line and to its chapter's *Limits* section;
- ``claims-by-chapter``: one section per chapter (label ``claims-NN``) with every claim:
  verdict first, id, statement, measured value and threshold, evidence (seeds and spread,
  control, tuned mark), and its verdict at paper scale.

Tables keep their columns on a wide screen and stack each row on a phone (``book.css``).
"""

from __future__ import annotations

import sys
from pathlib import Path

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.util.docutils import SphinxDirective

sys.path.insert(0, str(Path(__file__).resolve().parent))
from book_data import (
    NOTEBOOKS,
    SOURCES_TEXT,
    STATUSES,
    all_claims,
    chapter_label,
    claim_anchor,
    doc_ref,
    evidence,
    limits_label,
    paper_cell,
    ref,
    verdict,
)

from icml26.claims import MIN_SEEDS, NOT_DISCRIMINATING, NOT_REPRODUCED, OK
from icml26.pipeline.book import chapter_title

CLAIM_COLUMNS = ("Verdict", "Claim", "Statement", "Measured (threshold)", "Evidence", "Paper scale")


def _cell(*content: nodes.Node | str) -> list[nodes.Node]:
    return [nodes.Text(c) if isinstance(c, str) else c for c in content]


def table(
    header: tuple[str, ...],
    rows: list[list[list[nodes.Node]]],
    widths: tuple[int, ...],
    classes: list[str],
) -> nodes.table:
    """A docutils table (so the PDF has it too) with classes for the page's CSS."""
    tab = nodes.table(classes=["dashboard-table", "colwidths-given", *classes])
    group = nodes.tgroup(cols=len(header))
    tab += group
    for w in widths:
        group += nodes.colspec(colwidth=w)
    head = nodes.thead()
    head += _row([_cell(h) for h in header])
    group += head
    body = nodes.tbody()
    for r in rows:
        body += _row(r)
    group += body
    return tab


def _row(cells: list[list[nodes.Node]], classes: list[str] | None = None) -> nodes.row:
    row = nodes.row(classes=classes or [])
    for content in cells:
        entry = nodes.entry()
        para = nodes.paragraph()
        para += content
        entry += para
        row += entry
    return row


def _claim_cell(c) -> list[nodes.Node]:
    out = [ref(claim_anchor(c.id), c.id, literal=True), nodes.Text(" ")]
    out += [nodes.inline(text=c.kind, classes=["kind"])]
    if c.tuned:
        out += [nodes.Text(" "), nodes.inline(text="tuned", classes=["tuned-mark"])]
    return out


def _measured(c) -> list[nodes.Node]:
    return [nodes.strong(text=c.measured), nodes.Text(f" ({c.threshold})")]


def _note_sources(directive: SphinxDirective) -> None:
    for ipynb in NOTEBOOKS.glob("[0-9][0-9]-*.ipynb"):
        directive.env.note_dependency(str(ipynb))
    for record in (NOTEBOOKS / "paper-scale").glob("*.json"):
        directive.env.note_dependency(str(record))


def summary_paragraphs() -> list[nodes.paragraph]:
    """The book's counts, in words."""
    records = all_claims()
    claims = [c for r in records for c in r.claims]
    n = len(claims)
    by = {s: sum(c.status == s for c in claims) for s in STATUSES}
    repro = [c for c in claims if c.kind == "reproduction"]
    first = nodes.paragraph(classes=["claims-summary"])
    first += nodes.Text(
        f"{n} claims from {sum(bool(r.claims) for r in records)} chapters "
        f"({len(repro)} reproductions of the papers' results, {n - len(repro)} theorems "
        "checked numerically): "
    )
    for i, s in enumerate(STATUSES):
        first += [verdict(s), nodes.Text(f" {by[s]}")]
        first += nodes.Text(", " if i < len(STATUSES) - 1 else ".")
    drafts = [r for r in records if r.claims and r.shortfall]
    with_claims = sum(bool(r.claims) for r in records)
    first += nodes.Text(
        f" {with_claims - len(drafts)} of these chapters meet the standard that at least half "
        "of a chapter's claims hold and none fails to discriminate"
        + (
            "; "
            + ("chapter " if len(drafts) == 1 else "chapters ")
            + _and([r.chapter.number for r in drafts])
            + (" does not, and is" if len(drafts) == 1 else " do not, and are")
            + " marked draft."
            if drafts
            else "."
        )
    )
    controls = sum(bool(c.control) for c in repro)
    reasons = sum(bool(c.no_control) for c in repro)
    seeded = sum(c.n_seeds >= MIN_SEEDS for c in repro)
    single = sum(c.seeds.startswith("1 seed") for c in repro)
    tuned = sum(bool(c.tuned) for c in claims)
    second = nodes.paragraph(
        text=f"Of the {len(repro)} reproductions, {controls} run a control in the same cell "
        f"and {reasons} say why none exists; {seeded} are decided over {MIN_SEEDS} or more "
        f"seeds and {single} on one run, with the reason. {tuned} claims carry a tuned mark: "
        "a setting or threshold chosen after seeing results."
    )
    ran = [r for r in records if r.paper.status == "run"]
    part = [r for r in records if r.paper.status == "partial"]
    at_paper = [c for r in ran + part for c in r.paper.claims.values()]
    third = nodes.paragraph()
    third += nodes.Text(
        f"Paper scale: {len(ran)} of {len(records)} chapters run"
        + (f" and {len(part)} run until they stopped" if part else "")
        + f", {len(at_paper)} claims"
        + (": " if at_paper else "; the others are marked not run, with the reason.")
    )
    if at_paper:
        for i, s in enumerate(STATUSES):
            third += [verdict(s), nodes.Text(f" {sum(c.status == s for c in at_paper)}")]
            third += nodes.Text(", " if i < len(STATUSES) - 1 else ".")
    return [first, second, third]


class ClaimsSummary(SphinxDirective):
    has_content = False

    def run(self) -> list[nodes.Node]:
        _note_sources(self)
        return summary_paragraphs()


class ClaimsOverview(SphinxDirective):
    has_content = False

    def run(self) -> list[nodes.Node]:
        _note_sources(self)
        rows = []
        for r in all_claims():
            ch = r.chapter
            paper = (
                "not run"
                if r.paper.status not in ("run", "partial")
                else " ".join(
                    f"{s} {sum(c.status == s for c in r.paper.claims.values())}" for s in STATUSES
                )
                + (" (stopped early)" if r.paper.status == "partial" else "")
            )
            rows.append(
                [
                    [ref(chapter_label(ch.number), chapter_title(ch)), *draft_mark(r.shortfall)],
                    _cell(SOURCES_TEXT[ch.sources].removeprefix("Written from the ")),
                    _counted(r.count(OK), OK),
                    _counted(r.count(NOT_REPRODUCED), NOT_REPRODUCED),
                    _counted(r.count(NOT_DISCRIMINATING), NOT_DISCRIMINATING),
                    _cell(paper),
                ]
            )
        header = ("Chapter", "Written from", "OK", "Not reproduced", "Not discriminating")
        return [
            table(
                (*header, "Paper scale"),
                rows,
                (40, 18, 7, 10, 12, 13),
                ["claims-overview"],
            )
        ]


def _and(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def draft_mark(reason: str | None) -> list[nodes.Node]:
    """The mark of a chapter that falls short of the standard's claim rule (none if it
    meets it)."""
    if not reason:
        return []
    return [nodes.Text(" "), nodes.inline(text="draft", classes=["draft-mark"])]


def _counted(n: int, status: str) -> list[nodes.Node]:
    """A verdict count, coloured as its verdict when it is not zero."""
    if n == 0:
        return [nodes.inline(text="0", classes=["count-zero"])]
    return [nodes.inline(text=str(n), classes=verdict(status)["classes"])]


class ClaimsFailing(SphinxDirective):
    has_content = False

    def run(self) -> list[nodes.Node]:
        _note_sources(self)
        rows = []
        for r in all_claims():
            for c in r.claims:
                if c.status == OK:
                    continue
                limits = ref(limits_label(r.chapter.number), f"Limits of chapter {c.id[:2]}")
                rows.append(
                    [
                        [verdict(c.status)],
                        _claim_cell(c),
                        _cell(c.statement),
                        _measured(c),
                        [limits],
                    ]
                )
        if not rows:
            return [nodes.paragraph(text="Every claim of the book holds at the default scale.")]
        return [
            table(
                ("Verdict", "Claim", "Statement", "Measured (threshold)", "Explained in"),
                rows,
                (14, 10, 46, 16, 14),
                ["claims-table", "claims-failing"],
            )
        ]


class ClaimsByChapter(SphinxDirective):
    has_content = False

    def run(self) -> list[nodes.Node]:
        _note_sources(self)
        out: list[nodes.Node] = []
        for r in all_claims():
            ch = r.chapter
            label = chapter_label(ch.number)
            section = nodes.section(ids=[label], names=[label])
            section += nodes.title(text=chapter_title(ch))
            self.state.document.note_explicit_target(section, section)
            head = nodes.paragraph(classes=["chapter-counts"])
            head += doc_ref(f"notebooks/{ch.stem}", "Read the chapter")
            head += nodes.Text(f" · {SOURCES_TEXT[ch.sources]} · ")
            for s in STATUSES:
                head += [verdict(s), nodes.Text(f" {r.count(s)}  ")]
            head += nodes.Text("· ")
            head += ref(limits_label(ch.number), "its Limits section")
            section += head
            if r.claims and r.shortfall:
                note = nodes.paragraph(classes=["paper-note"])
                note += nodes.inline(text="draft", classes=["draft-mark"])
                note += nodes.Text(
                    f" {r.shortfall[0].upper()}{r.shortfall[1:]}. The chapter falls short of "
                    "the standard; its Limits section says why."
                )
                section += note
            if r.paper.status == "partial":
                section += nodes.paragraph(
                    text=f"Paper scale, partial run: {r.paper.reason}.", classes=["paper-note"]
                )
            elif r.paper.status != "run":
                section += nodes.paragraph(
                    text=f"Paper scale not run: {r.paper.reason}.", classes=["paper-note"]
                )
            rows = [
                [
                    [verdict(c.status)],
                    _claim_cell(c),
                    _cell(c.statement),
                    _measured(c),
                    _cell(evidence(c)),
                    paper_cell(r, c.id),
                ]
                for c in r.claims
            ]
            if rows:
                section += table(CLAIM_COLUMNS, rows, (12, 10, 30, 14, 22, 12), ["claims-table"])
            out.append(section)
        return out


def verdict_role(name, rawtext, text, lineno, inliner, options=None, content=None):
    """``{verdict}`NOT REPRODUCED``: a verdict as the claim lines show it."""
    if text not in STATUSES:
        msg = inliner.reporter.error(f"verdict must be one of {STATUSES}, got {text!r}")
        return [inliner.problematic(rawtext, rawtext, msg)], [msg]
    return [verdict(text)], []


def setup(app: Sphinx) -> dict[str, object]:
    app.add_role("verdict", verdict_role)
    app.add_directive("claims-summary", ClaimsSummary)
    app.add_directive("claims-overview", ClaimsOverview)
    app.add_directive("claims-failing", ClaimsFailing)
    app.add_directive("claims-by-chapter", ClaimsByChapter)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
