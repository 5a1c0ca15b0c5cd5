"""Claim cells: the one printed line by which a chapter asserts a paper's claim.

A claim cell (a code cell tagged ``claim``) calls :func:`claim` once. The line it prints is
compared by nbval on every run and collected by the book's claims page, so values are
rounded to a few significant digits to be stable across machines.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from numbers import Real

CLAIM_RE = re.compile(
    r"^CLAIM (?P<id>[^:]+): (?P<statement>.*) — measured (?P<measured>.*) "
    r"\(threshold (?P<threshold>.*)\) (?P<status>OK|FAILED)$"
)


def format_value(value: object, digits: int = 3) -> str:
    """Render a measured value or threshold for a claim line (``digits`` significant figures)."""
    if isinstance(digits, bool) or not isinstance(digits, int) or digits < 1:
        raise ValueError(f"digits must be a positive integer, got {digits!r}")
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, Real):
        x = float(value)
        if math.isnan(x) or math.isinf(x):
            return str(x)
        if x == 0.0:
            return "0"
        text = f"{x:.{digits}g}"
        return "0" if float(text) == 0.0 else text
    if hasattr(value, "item") and getattr(value, "ndim", 1) == 0:  # numpy / torch scalars
        return format_value(value.item(), digits)
    if isinstance(value, str):
        return value
    raise ValueError(f"cannot format a claim value of type {type(value).__name__}")


def claim(
    id: str,
    statement: str,
    measured: object,
    *,
    threshold: object,
    holds: bool,
    digits: int = 3,
) -> None:
    """Print ``CLAIM <id>: <statement> — measured <value> (threshold <t>) OK``.

    ``holds`` is the verdict the caller computed from the measured value; when it is false the
    same line ends in ``FAILED`` and an ``AssertionError`` carrying it is raised, so the
    notebook (and therefore nbval and CI) fails.
    """
    if not isinstance(id, str) or not id.strip() or ":" in id:
        raise ValueError(f"id must be a non-empty string without ':', got {id!r}")
    if not isinstance(statement, str) or not statement.strip() or "\n" in statement:
        raise ValueError("statement must be a non-empty single-line string")
    if not isinstance(holds, bool):
        holds = bool(holds)  # numpy / torch booleans
    line = (
        f"CLAIM {id}: {statement} — measured {format_value(measured, digits)} "
        f"(threshold {format_value(threshold, digits)}) "
    )
    if not holds:
        raise AssertionError(line + "FAILED")
    print(line + "OK")


@dataclass(frozen=True)
class ClaimLine:
    """One parsed claim line (used by the book's claims page and the tests)."""

    id: str
    statement: str
    measured: str
    threshold: str
    status: str


def parse_claim_line(line: str) -> ClaimLine | None:
    """Parse a printed claim line; ``None`` when ``line`` is not one."""
    m = CLAIM_RE.match(line.rstrip("\n"))
    if m is None:
        return None
    return ClaimLine(**m.groupdict())
