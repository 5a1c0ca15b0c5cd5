"""Render every printed claim line as a compact, styled line that wraps to the column.

A claim cell prints ``CLAIM 07.3 [theorem]: statement — measured v (≤ t) · evidence ·
VERDICT`` (see :func:`icml26.claim`). In the HTML book each such line of a cell's output
becomes a block that wraps to the page width, so the verdict is never cut off: the verdict
first (coloured, with a mark, so colour is never the only cue), the id, the kind, a tuned
mark, the statement, the measured value with its threshold, then the evidence (seeds and
spread, control, what was tuned). The anchor ``claim-NN-k`` that the claims page links to
is set before the line by ``chapter_pages``. In the PDF the line becomes a paragraph with
the verdict in bold. The committed outputs (and so nbval's comparison) are untouched: only
the rendering changes.
"""

from __future__ import annotations

import html
import sys
from pathlib import Path

from docutils import nodes
from sphinx.application import Sphinx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from book_data import VERDICT_CLASS, VERDICT_MARK, claim_anchor

from icml26.claims import parse_claim_line


def render(line, *, anchored: bool = False) -> str:
    """The HTML of one parsed claim line (``anchored``: its id links to its anchor)."""
    e = html.escape
    cls = VERDICT_CLASS[line.status]
    status = f"{VERDICT_MARK[line.status]} {e(line.status)}"
    cid = (
        f'<a class="claim-id" href="#{claim_anchor(line.id)}">{e(line.id)}</a>'
        if anchored
        else f'<span class="claim-id">{e(line.id)}</span>'
    )
    fields = []
    if line.seeds:
        fields.append(f'<span class="claim-seeds">{e(line.seeds)}</span>')
    if line.control:
        fields.append(f'<span class="claim-control">control {e(line.control)}</span>')
    if line.no_control:
        fields.append(f'<span class="claim-control">no control: {e(line.no_control)}</span>')
    if line.tuned:
        fields.append(f'<span class="claim-tuned">tuned: {e(line.tuned)}</span>')
    tuned = '<span class="tuned-mark">tuned</span>' if line.tuned else ""
    return (
        f'<div class="claim-line claim-{cls}">'
        f'<span class="claim-verdict verdict verdict-{cls}">{status}</span>'
        f"{cid}"
        f'<span class="claim-kind">{e(line.kind)}</span>{tuned}'
        f'<span class="claim-statement">{e(line.statement)}</span>'
        f'<span class="claim-measured">measured <b>{e(line.measured)}</b> '
        f"({e(line.threshold)})</span>"
        + (f'<span class="claim-evidence">{" · ".join(fields)}</span>' if fields else "")
        + "</div>"
    )


def _latex(line) -> nodes.paragraph:
    para = nodes.paragraph(classes=["claim-line"])
    para += nodes.strong(text=f"{line.status}")
    para += nodes.Text(f" · CLAIM {line.id} [{line.kind}]: {line.statement} — measured ")
    para += nodes.strong(text=line.measured)
    rest = [f" ({line.threshold})"]
    rest += [line.seeds] if line.seeds else []
    rest += [f"control {line.control}"] if line.control else []
    rest += [f"no control: {line.no_control}"] if line.no_control else []
    rest += [f"tuned: {line.tuned}"] if line.tuned else []
    para += nodes.Text(" · ".join(rest))
    return para


def _in_claim_cell(node: nodes.Node) -> bool:
    while node is not None:
        if isinstance(node, nodes.container) and "tag_claim" in node.get("classes", []):
            return True
        node = node.parent
    return False


def _split(block: nodes.literal_block, html_out: bool) -> list[nodes.Node]:
    """The block's claim lines rendered, its other lines kept as literal blocks between.

    In LaTeX a claim's anchor moves from before the block to just before its line (a label
    before a verbatim block is lost there).
    """
    anchored = _in_claim_cell(block)
    parts: list[nodes.Node] = []
    rest: list[str] = []
    for raw in [*block.astext().splitlines(), None]:
        parsed = parse_claim_line(raw) if raw is not None else None
        if raw is not None and parsed is None:
            rest.append(raw)
            continue
        if rest:
            kept = "\n".join(rest)
            parts.append(nodes.literal_block(kept, kept, **block.attributes))
            rest = []
        if parsed is None:
            continue
        if html_out:
            parts.append(nodes.raw("", render(parsed, anchored=anchored), format="html"))
            continue
        if anchored:
            target = _anchor_before(block, claim_anchor(parsed.id))
            if target is not None:
                target.parent.remove(target)
                parts.append(target)
        parts.append(_latex(parsed))
    return parts


def _anchor_before(block: nodes.Node, anchor: str) -> nodes.target | None:
    """The target ``anchor`` set just before ``block`` by ``chapter_pages``."""
    parent = block.parent
    for node in parent.children[: parent.index(block)]:
        if isinstance(node, nodes.target) and anchor in node["ids"]:
            return node
    return None


def _style_claims(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    html_out = app.builder.format == "html"
    for block in list(doctree.findall(nodes.literal_block)):
        if "CLAIM " in block.astext():
            block.replace_self(_split(block, html_out))


def setup(app: Sphinx) -> dict[str, object]:
    app.connect("doctree-resolved", _style_claims)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
