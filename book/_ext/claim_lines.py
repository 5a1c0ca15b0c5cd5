"""Render every printed claim line as a compact, styled, anchored line.

A claim cell prints ``CLAIM 07.3 [theorem]: statement — measured v (≤ t) OK`` (see
:func:`icml26.claim`). In the HTML book each such line of a cell's output becomes a block
that wraps to the page width, so the verdict is never cut off: a verdict mark, the id, the
kind, the statement, the measured value, the threshold with its direction, and the verdict.
Each carries the anchor ``claim-NN-k`` that the claims page links to. The committed outputs
(and so nbval's comparison) are untouched: only the rendering changes.
"""

from __future__ import annotations

import html

from docutils import nodes
from sphinx.application import Sphinx

from icml26.claims import parse_claim_line


def anchor(claim_id: str) -> str:
    """The HTML id of a claim line: ``07.3`` → ``claim-07-3``."""
    return "claim-" + claim_id.replace(".", "-")


def render(line) -> str:
    ok = line.holds
    cls = "claim-ok" if ok else "claim-nr"
    mark = "✓" if ok else "✗"
    e = html.escape
    return (
        f'<div class="claim-line {cls}" id="{anchor(line.id)}">'
        f'<span class="claim-mark" aria-hidden="true">{mark}</span>'
        f'<a class="claim-id" href="#{anchor(line.id)}">{e(line.id)}</a>'
        f'<span class="claim-kind">{e(line.kind)}</span>'
        f'<span class="claim-statement">{e(line.statement)}</span>'
        f'<span class="claim-measured">measured <b>{e(line.measured)}</b></span>'
        f'<span class="claim-threshold">threshold {e(line.threshold)}</span>'
        f'<span class="claim-verdict">{e(line.status)}</span></div>'
    )


def _style_claims(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    if app.builder.format != "html":
        return
    for block in list(doctree.findall(nodes.literal_block)):
        text = block.astext()
        if "CLAIM " not in text:
            continue
        parts: list[nodes.Node] = []
        rest: list[str] = []

        def keep(lines: list[str], attributes: dict = block.attributes) -> nodes.literal_block:
            kept = "\n".join(lines)
            return nodes.literal_block(kept, kept, **attributes)

        for raw in text.splitlines():
            parsed = parse_claim_line(raw)
            if parsed is None:
                rest.append(raw)
                continue
            if rest:
                parts.append(
                    nodes.literal_block("\n".join(rest), "\n".join(rest), **block.attributes)
                )
                rest = []
            parts.append(nodes.raw("", render(parsed), format="html"))
        if rest:
            parts.append(keep(rest))
        block.replace_self(parts)


def setup(app: Sphinx) -> dict[str, object]:
    app.connect("doctree-resolved", _style_claims)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
