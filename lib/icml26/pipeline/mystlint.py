"""Checks of a chapter's Markdown for the ways MyST silently breaks mathematics.

A ``$$`` display that does not start a paragraph is read as inline math, and every ``$`` after
it flips between math and prose; a line of math that starts with ``+``, ``-`` or ``1.`` is read
as a list item and ends the formula; a role inside math is typeset as literal text; a control
character (a ``\\a`` typed in a Python string) is a TeX input error. Each problem is reported
with the cell and line, so that ``make test`` fails before a reader meets it.
"""

from __future__ import annotations

import re
from pathlib import Path

__all__ = [
    "CODE_LINE",
    "HEADING_RE",
    "PROCESS_WORDS_RE",
    "code_line_problems",
    "heading_problems",
    "markdown_problems",
    "math_problems",
    "process_words",
]

#: Longest line of a notebook's code cell: what the book's column shows without scrolling
#: at 1280 px (``notebooks/ruff.toml`` formats to it).
CODE_LINE = 88
#: Words and identifiers of the book's making that a reader must never see: planning ids of
#: the research behind a chapter (``critic-1``, ``note id asir-security``), and process words.
PROCESS_WORDS_RE = re.compile(
    r"\(note:[^)]*\)|\(design\b[^)]*\)|\bnote id\b|\bresearch[- ]note|\bthe note's\b|\bprototype|"
    r"\bpilot (?:study|run)|\boriginal plan|\bplanned (?:threshold|value|target)s?\b|"
    r"\bfirst plan\b|\bthe issue\b|\bthe review(?:er)?\b|"
    r"\b(?:critic|hrc|asir|vabs|t3|clarify|debias|rector|any2any|scale|polia|med|jit|cogsde|"
    r"pfn|sg|tw|hmmb|explaind|watermark|limit|safety|grpo|eeg)-(?:\d+|security|[a-z]+-\d+)\b",
    re.IGNORECASE,
)
#: The heading of a claim section: ``NN.k · Title`` or ``NN.k–NN.m · Title`` (one or more
#: ids or ranges separated by commas).
HEADING_RE = re.compile(
    r"^#{2,4} (?P<ids>\d\d\.\d+(?:[–-]\d\d\.\d+)?(?:, \d\d\.\d+(?:[–-]\d\d\.\d+)?)*)"
    r" · \S"
)

_LIST_ITEM = re.compile(r"^([-+*]|\d+[.)])\s")
_ROLE = re.compile(r"\{(ref|prf:ref|eq|cite|doc|numref)\}`")
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f]")


def _scan_inline(line: str, open_: bool) -> tuple[bool, bool]:
    """Walk one line of prose: the inline-math state at its end, and whether a role occurs
    while inline math is open. ``\\$`` is a literal dollar, ``$$`` is not an inline delimiter."""
    role_in_math = False
    k = 0
    while k < len(line):
        if line.startswith("\\$", k):
            k += 2
            continue
        if line.startswith("$$", k):
            k += 2
            continue
        if line[k] == "$":
            open_ = not open_
        elif open_ and _ROLE.match(line, k):
            role_in_math = True
        k += 1
    return open_, role_in_math


def math_problems(markdown: str) -> list[str]:
    """Problems in one Markdown cell: ``'line N: what'`` (1-based lines of the cell)."""
    problems: list[str] = []
    lines = markdown.split("\n")
    in_display = inline_open = in_code = False
    directives = 0
    for i, raw in enumerate(lines, start=1):
        line = raw.strip()
        if _CONTROL.search(raw):
            problems.append(f"line {i}: control character (a '\\a' or '\\b' typed in a string?)")
        if not in_display and line.startswith(("```", "~~~", ":::")):
            if in_code:
                in_code = line.rstrip("`~") != ""
            elif line.lstrip("`~:").startswith("{"):
                directives += 1  # a directive: its content is Markdown and is checked
            elif directives and line.strip("`~:") == "":
                directives -= 1
            else:
                in_code = True  # a code block: not Markdown
            inline_open = False
            continue
        if in_code:
            continue
        if (in_display or inline_open) and _LIST_ITEM.match(line):
            problems.append(f"line {i}: a line of math starts with {line.split()[0]!r} (list item)")
        if line.startswith("$$"):
            if in_display:
                in_display = False
            else:
                prev = lines[i - 2].strip() if i > 1 else ""
                if prev and not prev.startswith((":::", "```", ":")):
                    problems.append(f"line {i}: a $$ display without a blank line before it")
                in_display = "$$" not in line[2:]  # '$$ x $$' opens and closes on one line
            continue
        if in_display:
            if _ROLE.search(line):
                problems.append(f"line {i}: a role inside math is typeset literally")
            continue
        if "$$" in line:
            problems.append(f"line {i}: $$ in the middle of a line (write the display on its own)")
        if not line:
            if inline_open:
                problems.append(f"line {i}: a paragraph ends inside inline math ($ unclosed)")
            inline_open = False
            continue
        inline_open, role = _scan_inline(line, inline_open)
        if role:
            problems.append(f"line {i}: a role inside math is typeset literally")
    if in_display:
        problems.append("end of cell: a $$ display is never closed")
    return problems


def markdown_problems(py: Path) -> list[str]:
    """Problems in every Markdown cell of a chapter's py:percent source."""
    from icml26.pipeline.notebooks import read_py

    out = []
    for k, cell in enumerate(read_py(Path(py)).cells):
        if cell.cell_type == "markdown":
            out += [f"{Path(py).name} cell {k} {p}" for p in math_problems(cell.source)]
    return out


def process_words(text: str) -> list[str]:
    """The internal ids and process words in ``text`` (see :data:`PROCESS_WORDS_RE`)."""
    return [m.group(0) for m in PROCESS_WORDS_RE.finditer(text)]


def code_line_problems(nb) -> list[str]:
    """Lines of code cells longer than :data:`CODE_LINE` characters."""
    out = []
    for i, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        for j, line in enumerate(cell.source.splitlines(), start=1):
            if len(line) > CODE_LINE:
                out.append(f"cell {i} line {j}: {len(line)} characters > {CODE_LINE}")
    return out


def _expand(ids: str) -> list[str]:
    """``"05.3–05.5, 05.8"`` → ``["05.3", "05.4", "05.5", "05.8"]``."""
    out = []
    for part in ids.split(", "):
        lo, _, hi = part.replace("–", "-").partition("-")
        if not hi:
            out.append(lo)
            continue
        chapter, a = lo.split(".")
        out += [f"{chapter}.{k}" for k in range(int(a), int(hi.split(".")[1]) + 1)]
    return out


def heading_problems(nb, claim_ids: list[list[str]]) -> list[str]:
    """Claim-section headings whose numbers do not match the claims below them.

    ``claim_ids[i]`` lists the claim ids printed by cell ``i`` (empty for other cells). Each
    claim cell must sit under a heading of the form :data:`HEADING_RE` that names its id, and
    every id a heading names must be printed under it.
    """
    out: list[str] = []
    current: str | None = None
    named: list[str] = []
    seen: list[str] = []
    current_level = 0

    def close() -> None:
        missing = [i for i in named if i not in seen]
        if current is not None and missing:
            out.append(f"heading {current!r} names {', '.join(missing)}, not claimed below it")

    for i, cell in enumerate(nb.cells):
        if cell.cell_type == "markdown":
            for line in cell.source.splitlines():
                if not re.match(r"^#{1,4} ", line):
                    continue
                level = len(line) - len(line.lstrip("#"))
                m = HEADING_RE.match(line)
                if m or (current is not None and level <= current_level):
                    close()
                    current, named, seen = (line, _expand(m["ids"]), []) if m else (None, [], [])
                    current_level = level if m else 0
        for cid in claim_ids[i]:
            if current is None or cid not in named:
                out.append(f"claim {cid} (cell {i}) is not under a heading that names it")
            seen.append(cid)
    close()
    return out
