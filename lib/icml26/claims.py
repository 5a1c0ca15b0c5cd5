"""Claim cells: the one printed line by which a chapter tests a paper's claim.

A claim cell (a code cell tagged ``claim``, with a ``# fails if: ...`` comment) calls
:func:`claim` once. The threshold is data (``at_most=``, ``at_least=`` or ``between=``) and the
verdict is decided here from it, so the printed threshold and the decision can never disagree:

    CLAIM 03.2 [theorem]: informed gradient is unbiased — measured 3.1e-13 (≤ 1e-09) OK
    CLAIM 05.4 [reproduction]: CogSDE beats the GRU — measured 1.08 (≤ 1) NOT REPRODUCED

A claim that the toy does not reproduce prints ``NOT REPRODUCED`` and lets the notebook go
on: that is an honest result, shown as such on the book's claims page. Because nbval compares
the printed line with the committed one, a claim that flips verdict still fails the test
suite. Agreement between two implementations is not a claim: use :func:`icml26.checks.agree`.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from numbers import Real

__all__ = [
    "CLAIM_RE",
    "KINDS",
    "ClaimLine",
    "Threshold",
    "Verdict",
    "claim",
    "format_value",
    "parse_claim_line",
]

#: ``reproduction``: the paper's empirical statement at toy scale; ``theorem``: a theorem
#: (the paper's, or one the chapter proves) checked numerically.
KINDS = ("reproduction", "theorem")
OK, NOT_REPRODUCED = "OK", "NOT REPRODUCED"

CLAIM_RE = re.compile(
    r"^CLAIM (?P<id>[^:\[\]]+?) \[(?P<kind>[a-z]+)\]: (?P<statement>.*) — measured "
    r"(?P<measured>.*) \((?P<threshold>(?:≤|≥|in) .*)\) (?P<status>OK|NOT REPRODUCED)$"
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


def _real(name: str, value: object) -> float:
    """A finite-or-infinite real number from a Python, numpy or torch scalar."""
    if hasattr(value, "item") and getattr(value, "ndim", 1) == 0:
        value = value.item()
    if isinstance(value, bool) or not isinstance(value, Real):
        raise ValueError(f"{name} must be a real number, got {type(value).__name__}")
    x = float(value)
    if math.isnan(x):
        raise ValueError(f"{name} must not be NaN")
    return x


@dataclass(frozen=True)
class Threshold:
    """A claim's threshold: a direction (``≤``, ``≥`` or ``in``) and its bound(s)."""

    direction: str
    bounds: tuple[float, ...]

    @classmethod
    def of(cls, at_most: object, at_least: object, between: object) -> Threshold:
        given = [k for k, v in (("at_most", at_most), ("at_least", at_least)) if v is not None]
        given += ["between"] if between is not None else []
        if len(given) != 1:
            raise ValueError(
                "give exactly one of at_most=, at_least=, between= "
                f"(got {', '.join(given) or 'none'})"
            )
        if at_most is not None:
            return cls("≤", (_real("at_most", at_most),))
        if at_least is not None:
            return cls("≥", (_real("at_least", at_least),))
        if not isinstance(between, tuple | list) or len(between) != 2:
            raise ValueError("between must be a pair (low, high)")
        lo, hi = _real("between[0]", between[0]), _real("between[1]", between[1])
        if lo > hi:
            raise ValueError(f"between must have low <= high, got ({lo}, {hi})")
        return cls("in", (lo, hi))

    def holds(self, x: float) -> bool:
        if self.direction == "≤":
            return x <= self.bounds[0]
        if self.direction == "≥":
            return x >= self.bounds[0]
        return self.bounds[0] <= x <= self.bounds[1]

    def text(self, digits: int) -> str:
        if self.direction == "in":
            lo, hi = (format_value(b, digits) for b in self.bounds)
            return f"in [{lo}, {hi}]"
        return f"{self.direction} {format_value(self.bounds[0], digits)}"


class Verdict:
    """What :func:`claim` returns: true when the claim holds. It displays as nothing in a
    notebook (the printed line is the claim's only output), but ``if claim(...)`` works."""

    __slots__ = ("holds",)

    def __init__(self, holds: bool) -> None:
        self.holds = bool(holds)

    def __bool__(self) -> bool:
        return self.holds

    def __repr__(self) -> str:
        return f"Verdict({OK if self.holds else NOT_REPRODUCED!r})"

    def _ipython_display_(self) -> None:  # the claim line was printed already
        return None


def claim(
    id: str,
    statement: str,
    measured: object,
    *,
    at_most: object = None,
    at_least: object = None,
    between: object = None,
    kind: str = "reproduction",
    digits: int = 3,
) -> Verdict:
    """Print a claim line and return whether the claim holds (a :class:`Verdict`).

    Exactly one of ``at_most`` (holds when ``measured <= at_most``), ``at_least``
    (``measured >= at_least``) or ``between=(low, high)`` (inclusive) is the threshold. The
    verdict is ``OK`` or ``NOT REPRODUCED``; neither raises, so a notebook goes on after an
    honest negative result. ``kind`` is ``"reproduction"`` or ``"theorem"`` (see
    :data:`KINDS`). ``measured`` must be a real number: encode a yes/no outcome as a count
    (e.g. the number of violations, ``at_most=0``).
    """
    if not isinstance(id, str) or not id.strip() or any(c in id for c in ":[]"):
        raise ValueError(f"id must be a non-empty string without ':', '[' or ']', got {id!r}")
    if not isinstance(statement, str) or not statement.strip() or "\n" in statement:
        raise ValueError("statement must be a non-empty single-line string")
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}, got {kind!r}")
    threshold = Threshold.of(at_most, at_least, between)
    x = _real("measured", measured)
    verdict = OK if threshold.holds(x) else NOT_REPRODUCED
    print(
        f"CLAIM {id} [{kind}]: {statement} — measured {format_value(x, digits)} "
        f"({threshold.text(digits)}) {verdict}"
    )
    return Verdict(verdict == OK)


@dataclass(frozen=True)
class ClaimLine:
    """One parsed claim line (used by the book's claims page and the tests)."""

    id: str
    kind: str
    statement: str
    measured: str
    threshold: str
    status: str

    @property
    def holds(self) -> bool:
        return self.status == OK


def parse_claim_line(line: str) -> ClaimLine | None:
    """Parse a printed claim line; ``None`` when ``line`` is not one."""
    m = CLAIM_RE.match(line.rstrip("\n"))
    if m is None:
        return None
    return ClaimLine(**m.groupdict())
