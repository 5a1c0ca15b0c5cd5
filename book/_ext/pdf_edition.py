"""The PDF edition: what the LaTeX build needs, and its link in the HTML book.

The ``pdf-edition`` directive links the PDF when it has been built (``make pdf`` writes
``_build/latex/icml26-book.pdf`` beside ``_build/html``), and the HTML build copies it into
the site's ``_static``. Without a built PDF the directive says how to build one, so the site
never links a file it lacks.

For the LaTeX build: SVG figures (the Performance page's scaling plot) are converted to PDF
with ``rsvg-convert`` (Debian's librsvg2-bin, which ``make pdf`` installs), and a stand-in
for the ``bbm`` package that Jupyter Book's LaTeX class loads is copied beside the sources
(``book/_latex/bbm.sty``; the real one comes only with Debian's 500 MB texlive-fonts-extra).
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import ClassVar

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.errors import ExtensionError
from sphinx.transforms.post_transforms.images import ImageConverter
from sphinx.util.docutils import SphinxDirective

from icml26.pipeline.book import PDF_NAME


def built_pdf(app: Sphinx) -> Path:
    """Where ``make pdf`` leaves the PDF, next to this build's HTML output."""
    return Path(app.outdir).parent / "latex" / PDF_NAME


class PdfEdition(SphinxDirective):
    has_content = False

    def run(self) -> list[nodes.Node]:
        pdf = built_pdf(self.env.app)
        self.env.note_dependency(str(pdf))  # re-read this page once the PDF appears
        para = nodes.paragraph(classes=["pdf-edition"])
        if self.env.app.builder.format == "html" and pdf.exists():
            size = pdf.stat().st_size / 2**20
            para += nodes.Text("The whole book is also one ")
            para += nodes.reference(
                "", f"PDF edition ({size:.0f} MB)", refuri=f"_static/{PDF_NAME}"
            )
            para += nodes.Text(", with every chapter, the claims page and the bibliography.")
        else:
            para += nodes.Text("The whole book is also one PDF: ")
            para += nodes.literal(text="make pdf")
            para += nodes.Text(" builds it from the same sources.")
        return [para]


def _copy(app: Sphinx, exception: Exception | None) -> None:
    if exception is None and app.builder.format == "html" and built_pdf(app).exists():
        shutil.copyfile(built_pdf(app), Path(app.outdir) / "_static" / PDF_NAME)


class SvgToPdf(ImageConverter):
    """SVG to PDF for the LaTeX build, with ``rsvg-convert``."""

    default_priority = 10  # before sphinx.ext.imgconverter's ImageMagick (11)
    conversion_rules: ClassVar = [("image/svg+xml", "application/pdf")]

    def is_available(self) -> bool:
        return shutil.which("rsvg-convert") is not None

    def convert(self, _from: str, _to: str) -> bool:
        result = subprocess.run(
            ["rsvg-convert", "--format=pdf", f"--output={_to}", _from],
            capture_output=True,
            text=True,
            check=False,
        )
        if result.returncode != 0:
            raise ExtensionError(f"rsvg-convert failed on {_from}: {result.stderr[-500:]}")
        return True


#: PDF bookmarks cannot hold mathematics: a heading's math is left out of its bookmark
#: (``\pdfstringdef`` fails on unicode-math's symbols otherwise).
BOOKMARKS = r"""
\makeatletter
\def\icmlgobblemath#1\){}
\pdfstringdefDisableCommands{\def\({\icmlgobblemath}}
\makeatother
% Latin Modern Math has no U+29F5, which unicode-math gives \setminus
\AtBeginDocument{\renewcommand{\setminus}{\mathbin{\backslash}}}
"""
#: Free fonts with the glyphs the chapters print (DejaVu Sans Mono has ℰ, ᵀ, ⋆ for code).
FONTS = r"""
\setmainfont{FreeSerif}[Extension=.otf, UprightFont=*, ItalicFont=*Italic,
  BoldFont=*Bold, BoldItalicFont=*BoldItalic]
\setsansfont{FreeSans}[Extension=.otf, UprightFont=*, ItalicFont=*Oblique,
  BoldFont=*Bold, BoldItalicFont=*BoldOblique]
\setmonofont{DejaVu Sans Mono}[Scale=MatchLowercase]
"""


def _latex_config(app: Sphinx, config) -> None:
    stand_in = "_latex/bbm.sty"
    if stand_in not in config.latex_additional_files:
        config.latex_additional_files = [*config.latex_additional_files, stand_in]
    elements = dict(config.latex_elements or {})
    if BOOKMARKS not in elements.get("preamble", ""):
        elements["preamble"] = elements.get("preamble", "") + BOOKMARKS
    elements["fontpkg"] = FONTS
    config.latex_elements = elements


def setup(app: Sphinx) -> dict[str, object]:
    app.add_directive("pdf-edition", PdfEdition)
    app.add_post_transform(SvgToPdf)
    app.connect("config-inited", _latex_config)
    app.connect("build-finished", _copy)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
