"""Build the book: ``python -m icml26.pipeline.book build`` (what ``make book`` runs).

Jupyter Book 1 renders the committed notebook outputs (no re-execution) with warnings as
errors and nitpicky references, then the path of the site's ``index.html`` is printed.
``pdf`` builds the same book as one PDF through Jupyter Book's LaTeX builder (XeLaTeX from
Debian's TeX Live, see ``make pdf``).

Everything the book shows per chapter comes from the chapter registry
(:mod:`icml26.chapters`), the committed outputs and the paper-scale records: the table of
contents ``book/_toc.yml``, the Library reference's part pages ``book/api/*.md`` and the
README's chapter table are generated from the registry (``sync`` rewrites them; the build
does it first, and a test fails when a committed copy differs), and :func:`claims` reads
the claim lines of every chapter at both scales for the claims page and the chapter pages.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

__all__ = [
    "BOOK",
    "FLAGS",
    "PDF_NAME",
    "ROOT",
    "ChapterClaims",
    "PaperScale",
    "api_pages",
    "build",
    "changes",
    "chapter_title",
    "claims",
    "paper_scale",
    "pdf",
    "pdf_problems",
    "readme_table",
    "sync",
    "toc_yaml",
]

ROOT = Path(__file__).resolve().parents[3]
BOOK = ROOT / "book"
FLAGS = ("-W", "-n", "--keep-going")
#: The PDF edition's file name, in the built site's ``_static`` (the HTML book links it).
PDF_NAME = "icml26-book.pdf"
#: The Library reference's pages beside its index ``book/api.md``: the core, the kernels
#: two parts share, then one page per part of the book (``PARTS``).
CORE_PAGE, SHARED_PAGE = "core", "shared"
README_BEGIN = "<!-- chapters: generated from lib/icml26/chapters.py -->"
README_END = "<!-- end of chapters -->"
GENERATED = "generated from the chapter registry (lib/icml26/chapters.py) by " + (
    "`python -m icml26.pipeline.book sync`; do not edit by hand"
)


# ------------------------------------------------------------------ generated from the registry
def chapter_title(chapter) -> str:
    """The one title a chapter has everywhere: ``03 · Informed asymmetric actor-critic``."""
    return f"{chapter.number} · {chapter.title}"


def api_pages() -> dict[str, str]:
    """Library reference pages: name → title, in reading order (empty parts left out)."""
    from icml26.chapters import CHAPTERS, PARTS

    pages = {CORE_PAGE: "Core: runtime, claims, checks, statistics, plotting, checkpoints"}
    if any(m.count(".") == 1 for c in CHAPTERS for m in c.modules):
        pages[SHARED_PAGE] = "Kernels shared by several parts"
    used = {c.part for c in CHAPTERS}
    pages |= {part: caption for part, caption in PARTS.items() if part in used}
    return pages


def _yaml_str(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)  # a JSON string is a YAML string


def toc_yaml() -> str:
    """``book/_toc.yml``: the front pages, one caption per part with its chapters (titled
    from the registry), the back matter."""
    from icml26.chapters import CHAPTERS, PARTS

    lines = [
        f"# Table of contents, {GENERATED}.",
        "format: jb-book",
        "root: intro",
        "parts:",
        '  - caption: "Reading the book"',
        "    chapters:",
        "      - file: notation",
        "      - file: claims",
        "      - file: performance",
        "      - file: api",
        "        sections:",
    ]
    lines += [f"          - file: api/{name}" for name in api_pages()]
    for part, caption in PARTS.items():
        chapters = [c for c in CHAPTERS if c.part == part]
        if not chapters:
            continue
        lines += [f"  - caption: {_yaml_str(caption)}", "    chapters:"]
        for c in chapters:
            lines += [
                f"      - file: notebooks/{c.stem}",
                f"        title: {_yaml_str(chapter_title(c))}",
            ]
    lines += ['  - caption: "Back matter"', "    chapters:", "      - file: bibliography"]
    return "\n".join(lines) + "\n"


def api_page_text(name: str) -> str:
    """The Markdown of one Library reference page (``book/api/<name>.md``)."""
    title = api_pages()[name]
    return (
        f"<!-- The Library reference of {name!r}, {GENERATED}. -->\n"
        f"# {title}\n\n```{{api-modules}} {name}\n```\n"
    )


def readme_table() -> str:
    """The README's chapter table (between its two marker comments)."""
    from icml26.chapters import CHAPTERS, PARTS

    rows = [
        README_BEGIN,
        "| part | chapter | written from |",
        "|---|---|---|",
    ]
    for c in CHAPTERS:
        rows.append(
            f"| {PARTS[c.part]} | [{chapter_title(c)}](notebooks/{c.stem}.py) | {c.sources} |"
        )
    return "\n".join([*rows, README_END])


def _generated_files() -> dict[Path, str]:
    files = {BOOK / "_toc.yml": toc_yaml()}
    files |= {BOOK / "api" / f"{name}.md": api_page_text(name) for name in api_pages()}
    readme = ROOT / "README.md"
    text = readme.read_text(encoding="utf-8")
    pattern = re.compile(re.escape(README_BEGIN) + r".*?" + re.escape(README_END), re.DOTALL)
    if pattern.search(text):
        files[readme] = pattern.sub(lambda _: readme_table(), text)
    return files


def sync(*, check: bool = False) -> list[Path]:
    """Write the files generated from the registry; return those that differed.

    With ``check=True`` nothing is written (what the tests use).
    """
    stale = []
    for path, text in _generated_files().items():
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            stale.append(path)
            if not check:
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(text, encoding="utf-8")
    if not check:  # part pages of parts that no longer have chapters
        keep = {f"{name}.md" for name in api_pages()}
        for old in (BOOK / "api").glob("*.md"):
            if old.name not in keep:
                old.unlink()
                stale.append(old)
    return stale


# ------------------------------------------------------------------ the claims at both scales
@dataclass(frozen=True)
class PaperScale:
    """A chapter's paper-scale record: ``status`` is ``"run"``, ``"partial"`` (the run stopped
    after printing some of its claims; ``reason`` says why) or ``"not run"``."""

    status: str
    reason: str = ""
    device: str = ""
    claims: dict = field(default_factory=dict)  # claim id -> ClaimLine


@dataclass(frozen=True)
class ChapterClaims:
    """A chapter of the registry, the claim lines its committed outputs print, and its
    paper-scale record."""

    chapter: object
    claims: list
    paper: PaperScale

    def count(self, status: str) -> int:
        return sum(c.status == status for c in self.claims)

    @property
    def shortfall(self) -> str | None:
        """Why the chapter is a draft by the standard's claim rule, or ``None``
        (:func:`icml26.claims.shortfall`)."""
        from icml26.claims import shortfall

        return shortfall([c.status for c in self.claims])


def _stream_lines(cell: dict) -> list[str]:
    out: list[str] = []
    for o in cell.get("outputs", []):
        text = o.get("text", "")
        out += ("".join(text) if isinstance(text, list) else text).splitlines()
    return out


def paper_scale(stem: str, records: Path | None = None) -> PaperScale:
    """The paper-scale record of chapter ``stem`` (``notebooks/paper-scale/NN-slug.json``;
    absent means not run)."""
    from icml26.claims import parse_claim_line

    path = (records or ROOT / "notebooks" / "paper-scale") / f"{stem}.json"
    if not path.exists():
        return PaperScale("not run", "no paper-scale run is recorded")
    record = json.loads(path.read_text(encoding="utf-8"))
    status = record.get("status")
    if status not in ("run", "partial"):
        return PaperScale("not run", str(record.get("reason", "")).strip() or "no reason given")
    parsed = [parse_claim_line(line) for line in record.get("claims", [])]
    return PaperScale(
        status,
        reason=str(record.get("reason", "")).strip(),
        device=str(record.get("device", "")),
        claims={c.id: c for c in parsed if c is not None},
    )


def claims(notebooks: Path | None = None) -> list[ChapterClaims]:
    """Every chapter of the registry, in book order, with its claim lines (from the cells
    tagged ``claim`` of its committed ``.ipynb``) and its paper-scale record."""
    from icml26.chapters import CHAPTERS
    from icml26.claims import parse_claim_line

    notebooks = notebooks or ROOT / "notebooks"
    out = []
    for chapter in CHAPTERS:
        nb = json.loads((notebooks / f"{chapter.stem}.ipynb").read_text(encoding="utf-8"))
        lines = [
            parsed
            for cell in nb["cells"]
            if "claim" in cell.get("metadata", {}).get("tags", [])
            for line in _stream_lines(cell)
            if (parsed := parse_claim_line(line)) is not None
        ]
        out.append(
            ChapterClaims(chapter, lines, paper_scale(chapter.stem, notebooks / "paper-scale"))
        )
    return out


# ------------------------------------------------------------------ building
def _jupyter_book() -> str:
    return str(Path(sys.executable).with_name("jupyter-book"))


def build(*, out: Path | None = None, quiet: bool = False, sync_first: bool = True) -> Path:
    """Build the HTML book; return the path of its ``index.html``. Raises on any warning.

    The files generated from the registry are rewritten first (``sync_first``; the tests
    check them instead).
    """
    if sync_first:
        sync()
    cmd = [_jupyter_book(), "build", str(BOOK), *FLAGS]
    if out is not None:
        cmd += ["--path-output", str(out)]
    t0 = time.perf_counter()
    result = subprocess.run(cmd, cwd=ROOT, capture_output=quiet, text=True, check=False)
    if result.returncode != 0:
        detail = (result.stdout or "")[-4000:] + (result.stderr or "")[-4000:] if quiet else ""
        raise RuntimeError(f"the book build failed (exit {result.returncode})\n{detail}")
    index = (out or BOOK) / "_build" / "html" / "index.html"
    if not quiet:
        print(f"built in {time.perf_counter() - t0:.0f} s; open {index.resolve()}")
    return index


def pdf(*, out: Path | None = None, quiet: bool = False, sync_first: bool = True) -> Path:
    """Build the PDF edition with XeLaTeX; return its path. Raises on any warning.

    The PDF is also copied into the HTML site's ``_static`` when that site exists, so that
    its download link works.
    """
    import shutil

    if sync_first:
        sync()
    cmd = [_jupyter_book(), "build", str(BOOK), "--builder", "pdflatex", *FLAGS]
    if out is not None:
        cmd += ["--path-output", str(out)]
    t0 = time.perf_counter()
    result = subprocess.run(cmd, cwd=ROOT, capture_output=quiet, text=True, check=False)
    build_dir = (out or BOOK) / "_build"
    made = build_dir / "latex" / "icml26.pdf"
    if result.returncode != 0 or not made.exists():
        detail = (result.stdout or "")[-6000:] + (result.stderr or "")[-4000:] if quiet else ""
        raise RuntimeError(f"the PDF build failed (exit {result.returncode})\n{detail}")
    target = build_dir / "latex" / PDF_NAME
    shutil.copyfile(made, target)
    site = build_dir / "html" / "_static"
    if site.is_dir():
        shutil.copyfile(made, site / PDF_NAME)
    if not quiet:
        print(f"built in {time.perf_counter() - t0:.0f} s; open {target.resolve()}")
    return target


#: A sane length for the whole book: at least ten pages a chapter, and not a runaway.
PDF_PAGES = (10 * 19, 4000)


def _squash(text: str) -> str:
    """Text without whitespace or soft hyphens, so that line breaks never hide a match."""
    return re.sub(r"[\s\u00ad]+", "", text)


def _figures_in_notebooks(notebooks: Path) -> int:
    n = 0
    for chapter in _registry():
        nb = json.loads((notebooks / f"{chapter.stem}.ipynb").read_text(encoding="utf-8"))
        for cell in nb["cells"]:
            n += sum("image/png" in o.get("data", {}) for o in cell.get("outputs", []))
    return n


def _registry():
    from icml26.chapters import CHAPTERS

    return CHAPTERS


def pdf_problems(pdf: Path, *, notebooks: Path | None = None) -> list[str]:
    """What is missing from the PDF edition at ``pdf`` (empty when it is complete).

    Uses poppler's ``pdftotext``, ``pdfinfo`` and ``pdfimages`` (Debian's poppler-utils,
    which ``make pdf`` installs) and the LaTeX log beside the PDF: every chapter's title, its
    claim lines with their verdicts, the claims page, numbered theorems and the bibliography
    are in the text; no reference is unresolved (``??`` in the text, "undefined" in the log);
    every figure of the chapters is included; the page count is sane.
    """
    from icml26.claims import STATUSES

    pdf = Path(pdf)
    notebooks = notebooks or ROOT / "notebooks"
    run = lambda *cmd: subprocess.run(cmd, capture_output=True, text=True, check=True).stdout  # noqa: E731
    text = run("pdftotext", "-enc", "UTF-8", str(pdf), "-")
    flat = _squash(text)
    problems = []
    for record in claims(notebooks):
        c = record.chapter
        if _squash(chapter_title(c)) not in flat:
            problems.append(f"chapter title missing: {chapter_title(c)}")
        for line in record.claims:
            if _squash(f"CLAIM {line.id} [{line.kind}]") not in flat:
                problems.append(f"claim line missing: {line.id}")
    if not any(_squash(s) in flat for s in STATUSES):
        problems.append("no verdict printed")
    for needed in ("Claims by chapter", "What did not reproduce", "Bibliography"):
        if _squash(needed) not in flat:
            problems.append(f"missing from the text: {needed!r}")
    if not re.search(r"Theorem\s*\d+\.\d+", text):
        problems.append("no numbered theorem (Theorem N.k) in the text")
    if "??" in text:
        i = text.index("??")
        problems.append(f"unresolved reference: {text[max(0, i - 60) : i + 10]!r}")
    log = pdf.with_name("icml26.log")
    if log.exists():
        for line in log.read_text(encoding="utf-8", errors="replace").splitlines():
            if re.search(r"(Reference|Citation) .* undefined|File `[^']*' not found", line):
                problems.append(f"LaTeX: {line.strip()}")
    found = re.search(r"^Pages:\s+(\d+)", run("pdfinfo", str(pdf)), re.MULTILINE)
    if found is None:
        raise RuntimeError(f"pdfinfo reports no page count for {pdf}")
    pages = int(found[1])
    if not PDF_PAGES[0] <= pages <= PDF_PAGES[1]:
        problems.append(f"{pages} pages, outside {PDF_PAGES}")
    images = [ln for ln in run("pdfimages", "-list", str(pdf)).splitlines()[2:] if " image " in ln]
    figures = _figures_in_notebooks(notebooks)
    if len(images) < figures:
        problems.append(f"{len(images)} images in the PDF, {figures} figures in the chapters")
    return problems


# ------------------------------------------------------------------ what changed in a release
def _outputs(nb: dict) -> list[str]:
    """A notebook's outputs as text (images by their hash), cell by cell."""
    import hashlib

    out = []
    for cell in nb.get("cells", []):
        for o in cell.get("outputs", []):
            text = o.get("text", "")
            out.append("".join(text) if isinstance(text, list) else text)
            for mime, data in sorted(o.get("data", {}).items()):
                blob = "".join(data) if isinstance(data, list) else json.dumps(data)
                out.append(f"{mime}:{hashlib.sha256(blob.encode()).hexdigest()[:16]}")
    return out


def _claim_map(nb: dict) -> dict:
    from icml26.claims import parse_claim_line

    found = {}
    for cell in nb.get("cells", []):
        if "claim" in cell.get("metadata", {}).get("tags", []):
            for line in _stream_lines(cell):
                if (c := parse_claim_line(line)) is not None:
                    found[c.id] = c
    return found


def changes(since: str) -> list[str]:
    """The CHANGELOG lines for what changed in the chapters since git revision ``since``:
    per chapter, whether its outputs changed, and every claim whose verdict changed, that
    appeared or that went."""
    from icml26.chapters import CHAPTERS

    lines = []
    for c in CHAPTERS:
        path = f"notebooks/{c.stem}.ipynb"
        old_text = subprocess.run(
            ["git", "show", f"{since}:{path}"], cwd=ROOT, capture_output=True, text=True
        )
        new = json.loads((ROOT / path).read_text(encoding="utf-8"))
        if old_text.returncode != 0:
            lines.append(f"- {chapter_title(c)}: new chapter, {len(_claim_map(new))} claims.")
            continue
        old = json.loads(old_text.stdout)
        if _outputs(old) == _outputs(new):
            continue
        before, after = _claim_map(old), _claim_map(new)
        notes = [
            f"{i} {before[i].status} → {after[i].status}"
            for i in before
            if i in after and before[i].status != after[i].status
        ]
        notes += [f"{i} new ({after[i].status})" for i in after if i not in before]
        notes += [f"{i} removed" for i in before if i not in after]
        verdicts = "; verdicts: " + ", ".join(notes) if notes else "; no verdict changed"
        lines.append(f"- {chapter_title(c)}: outputs changed{verdicts}.")
    return lines or ["- No chapter's outputs changed."]


def _main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m icml26.pipeline.book", description=__doc__)
    parser.add_argument("command", choices=["build", "pdf", "sync", "changes"])
    parser.add_argument("--out", type=Path, default=None, help="build into OUT/_build/")
    parser.add_argument("--check", action="store_true", help="sync: only report stale files")
    parser.add_argument("--since", default=None, help="changes: the previous release's tag")
    args = parser.parse_args(argv)
    if args.command == "changes":
        if not args.since:
            parser.error("changes needs --since REVISION (the previous release's tag)")
        print("\n".join(changes(args.since)))
        return 0
    if args.command == "sync":
        stale = sync(check=args.check)
        for path in stale:
            print(f"{'stale' if args.check else 'wrote'} {path.relative_to(ROOT)}")
        return 1 if args.check and stale else 0
    try:
        (build if args.command == "build" else pdf)(out=args.out)
    except RuntimeError as err:
        print(err, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(_main())
