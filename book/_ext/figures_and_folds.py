"""Figures at their natural aspect ratio with meaningful alternative text, and folds for the
code a reader skims.

**Figures.** A notebook's image output carries its CSS size (``width``, ``height``) in its
metadata, which myst-nb writes into the ``<img>``'s inline style; the theme then narrows the
image to the column but keeps the height, squeezing it sideways. The height is dropped here,
so the browser scales it with the width (``book.css``: ``max-width: 100%; height: auto``).
The alternative text is the figure's caption (or the ``alt`` a cell sets in its
``mystnb.image`` metadata), never the file name: an image without either is described by
the section it sits in and listed by the browser test. An image with the class
``decorative`` gets an empty ``alt``.

**Folds.** A claim cell keeps its ``# fails if:`` comment and its printed claim line in view
and folds the code between them; a reference implementation longer than
:data:`FOLD_LINES` lines folds behind a one-line summary naming what it defines. Both reuse
myst-nb's folding (a ``<details>`` element, reachable and operable by keyboard), whose
summary is named here by its visible prompt.
"""

from __future__ import annotations

import re
from html import escape

from docutils import nodes
from myst_nb.sphinx_ import HideCodeCellNode, depart_HideCellInput
from sphinx.application import Sphinx
from sphinx.transforms.post_transforms import SphinxPostTransform

#: A reference implementation longer than this folds behind its summary.
FOLD_LINES = 24
_DEFINES = re.compile(r"^(?:def|class) (\w+)", re.MULTILINE)


# ------------------------------------------------------------------ figures
def _section_title(node: nodes.Node) -> str:
    while node is not None and not isinstance(node, nodes.section):
        node = node.parent
    return node[0].astext() if node is not None else ""


def _alt_text(image: nodes.image) -> str:
    parent = image.parent
    while parent is not None and not isinstance(parent, nodes.figure):
        parent = parent.parent
    if parent is not None:
        caption = next(iter(parent.findall(nodes.caption)), None)
        if caption is not None and caption.astext().strip():
            return " ".join(caption.astext().split())
    alt = image.get("alt", "")
    if alt and alt != image.get("uri") and "_images/" not in alt and not alt.endswith(".png"):
        return alt
    image["classes"].append("uncaptioned")
    return f"Figure without a caption in the section “{_section_title(image)}”"


def _figures(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    for image in doctree.findall(nodes.image):
        if "decorative" in image["classes"]:
            image["alt"] = ""
            continue
        image["alt"] = _alt_text(image)
        if "width" in image and "height" in image:
            del image["height"]  # the browser keeps the aspect ratio from the width alone


# ------------------------------------------------------------------ folds
def _tags(cell: nodes.Element) -> list[str]:
    return list(cell.get("cell_metadata", {}).get("tags", []))


def _fold(prompt_show: str, prompt_hide: str, child: nodes.Element, cls: str) -> HideCodeCellNode:
    fold = HideCodeCellNode(prompt_show=prompt_show, prompt_hide=prompt_hide)
    fold["classes"] += ["above-input", cls]
    fold += child
    return fold


def _code(source: nodes.Element, text: str) -> nodes.Element:
    """A copy of a cell's input container holding ``text``."""
    block = next(iter(source.findall(nodes.literal_block)))
    copy = source.copy()
    copy += nodes.literal_block(text, text, **block.attributes)
    return copy


class FoldSkimmedCode(SphinxPostTransform):
    default_priority = 200  # after myst-nb's own folds (199)
    formats = ("html",)

    def run(self, **kwargs) -> None:
        for cell in list(self.document.findall(nodes.container)):
            if cell.get("nb_element") != "cell_code" or cell.get("hide_mode"):
                continue
            source = next(
                (c for c in cell.children if c.get("nb_element") == "cell_code_source"), None
            )
            if source is None:
                continue
            tags = _tags(cell)
            if "claim" in tags:
                self._fold_claim(source)
            elif "reference" in tags:
                self._fold_reference(source)

    @staticmethod
    def _fold_claim(source: nodes.Element) -> None:
        lines = source.astext().splitlines()
        if not lines or not lines[0].startswith("# fails if:"):
            return
        k = 1
        while k < len(lines) and lines[k].lstrip().startswith("#"):
            k += 1
        rest = "\n".join(lines[k:]).strip("\n")
        if not rest:
            return
        shown = _code(source, "\n".join(lines[:k]))
        shown["classes"].append("claim-fails-if")
        fold = _fold(
            "Show the claim's code", "Hide the claim's code", _code(source, rest), "claim-code"
        )
        source.replace_self([shown, fold])

    @staticmethod
    def _fold_reference(source: nodes.Element) -> None:
        text = source.astext()
        n = len(text.splitlines())
        if n <= FOLD_LINES:
            return
        names = _DEFINES.findall(text)
        what = ", ".join(names[:4]) + (", …" if len(names) > 4 else "")
        summary = f"Show the reference implementation{': ' + what if what else ''} ({n} lines)"
        fold = _fold(
            summary, "Hide the reference implementation", source.deepcopy(), "reference-code"
        )
        source.replace_self(fold)


def visit_fold(self, node: HideCodeCellNode) -> None:
    """myst-nb's fold, named by its visible prompt: its ``aria-label`` ("Toggle hidden
    content") did not contain the visible text (WCAG 2.5.3, axe-core rule
    ``label-content-name-mismatch``)."""
    classes = " ".join(node["classes"])
    self.body.append(f'<details class="admonition hide {classes}">\n<summary>\n')
    self.body.append(f'<p class="collapsed admonition-title">{escape(node["prompt_show"])}</p>\n')
    self.body.append(f'<p class="expanded admonition-title">{escape(node["prompt_hide"])}</p>\n')
    self.body.append("</summary>\n")


def setup(app: Sphinx) -> dict[str, object]:
    app.add_node(HideCodeCellNode, override=True, html=(visit_fold, depart_HideCellInput))
    app.connect("doctree-resolved", _figures)
    app.add_post_transform(FoldSkimmedCode)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
