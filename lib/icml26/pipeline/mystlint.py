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

__all__ = ["markdown_problems", "math_problems"]

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
