"""The ``claims-table`` directive: every claim cell of every chapter, in one table.

The table is generated at build time from the committed outputs of ``notebooks/*.ipynb``:
each code cell tagged ``claim`` prints one ``CLAIM <id> [kind]: ... OK`` (or ``NOT
REPRODUCED``) line (see :func:`icml26.claim`), which is parsed here. Nothing on the page is
typed by hand; claims that the toy does not reproduce are counted and shown as such.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from docutils import nodes
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.util.docutils import SphinxDirective

from icml26.chapters import CHAPTERS
from icml26.claims import parse_claim_line

sys.path.insert(0, str(Path(__file__).resolve().parent))
from claim_lines import anchor

COLUMNS = ("Chapter", "Claim", "Statement", "Measured", "Threshold", "Verdict")


def collect(notebook_dir: Path) -> list[tuple[str, object]]:
    """``(notebook stem, ClaimLine)`` for every claim line of every chapter, in order."""
    rows = []
    for chapter in CHAPTERS:  # the registry's chapters, in book order
        ipynb = notebook_dir / f"{chapter.stem}.ipynb"
        nb = json.loads(ipynb.read_text())
        for cell in nb["cells"]:
            if "claim" not in cell.get("metadata", {}).get("tags", []):
                continue
            for out in cell.get("outputs", []):
                text = out.get("text", "")
                text = "".join(text) if isinstance(text, list) else text
                for line in text.splitlines():
                    parsed = parse_claim_line(line)
                    if parsed is not None:
                        rows.append((ipynb.stem, parsed))
    return rows


class ClaimsTable(SphinxDirective):
    has_content = False

    def run(self) -> list[nodes.Node]:
        notebook_dir = Path(self.env.srcdir).resolve().parent / "notebooks"
        for ipynb in notebook_dir.glob("[0-9][0-9]-*.ipynb"):
            self.env.note_dependency(str(ipynb))
        rows = collect(notebook_dir)
        held = sum(c.holds for _, c in rows)
        theorems = sum(c.kind == "theorem" for _, c in rows)
        summary = nodes.paragraph(
            text=f"{len(rows)} claims from {len({s for s, _ in rows})} chapters "
            f"({len(rows) - theorems} reproductions of the papers' results, {theorems} theorems "
            f"checked numerically): {held} hold, {len(rows) - held} not reproduced."
        )
        out: list[nodes.Node] = [summary]
        for kind, title in (
            ("reproduction", "The papers' empirical claims, reproduced at toy scale"),
            ("theorem", "Theorems checked numerically"),
        ):
            chosen = [(s, c) for s, c in rows if c.kind == kind]
            if chosen:
                out += [nodes.rubric(text=title), self._table(chosen)]
        return out

    def _table(self, rows: list[tuple[str, object]]) -> nodes.table:
        table = nodes.table(classes=["claims-table"])
        group = nodes.tgroup(cols=len(COLUMNS))
        table += group
        for width in (6, 7, 45, 12, 14, 12):
            group += nodes.colspec(colwidth=width)
        head = nodes.thead()
        head += self._row([nodes.Text(c) for c in COLUMNS])
        group += head
        body = nodes.tbody()
        for stem, c in rows:
            chapter = addnodes.pending_xref(
                "",
                refdomain="std",
                reftype="doc",
                reftarget=f"/notebooks/{stem}",
                refexplicit=True,
                refwarn=True,
            )
            chapter += nodes.inline(text=stem[:2])
            claim = nodes.reference(
                "", "", refuri=f"notebooks/{stem}.html#{anchor(c.id)}", internal=True
            )
            claim += nodes.literal(text=c.id)
            verdict = nodes.Text("✓ OK") if c.holds else nodes.strong(text="✗ " + c.status)
            body += self._row(
                [
                    chapter,
                    claim,
                    nodes.Text(c.statement),
                    nodes.Text(c.measured),
                    nodes.Text(c.threshold),
                    verdict,
                ]
            )
        group += body
        return table

    @staticmethod
    def _row(cells: list[nodes.Node]) -> nodes.row:
        row = nodes.row()
        for cell in cells:
            entry = nodes.entry()
            para = nodes.paragraph()
            para += cell
            entry += para
            row += entry
        return row


def setup(app: Sphinx) -> dict[str, object]:
    app.add_directive("claims-table", ClaimsTable)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
