"""How a re-executed notebook's printed output is compared with the committed one.

nbval compares outputs as strings; on another CPU a correct chapter can print ``0.851`` where
the committed output says ``0.852``, because the last bit of a floating-point sum moved and
the printed digit sits on a rounding boundary. The comparison here tolerates exactly that, and
nothing more (``notebooks/conftest.py`` plugs it into nbval):

- **Text** is compared exactly, up to the width of runs of spaces (tables pad their columns
  to the width of the numbers in them). Every number is cut out of the text first, so two
  outputs that differ in a word, a line or a number's place differ.
- **Claim verdicts** (``OK`` / ``NOT REPRODUCED`` / ``NOT DISCRIMINATING`` at the end of a
  ``CLAIM`` line) are compared exactly, and a changed verdict is reported as such.
- **Integers** (a count, a seed, a size, an index) are compared exactly: a count that moves is
  a discrete outcome that moved, which a chapter must fix rather than hide.
- **Decimals** (a number with a decimal point or an exponent) may differ by one unit in their
  last printed digit (of the coarser of the two), with a relative slack of
  :data:`RELATIVE_SLACK` for the binary-to-decimal conversion; two numbers both below
  :data:`ROUNDOFF` in magnitude are floating-point round-off (an agreement error such as
  ``4.4e-16``) and compare equal.

With ``mode="verdicts"`` (the GPU check, ``ICML26_COMPARE=verdicts``) only claim lines are
compared: the same claims in the same order with the same verdicts, measured values within a
relative :data:`GPU_RTOL`.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

__all__ = [
    "GPU_RTOL",
    "MODES",
    "NUMBER_RE",
    "RELATIVE_SLACK",
    "ROUNDOFF",
    "Difference",
    "compare_text",
    "numbers_match",
    "printed_unit",
]

MODES = ("outputs", "verdicts")
#: A number token: optional sign, digits with an optional decimal point, optional exponent.
NUMBER_RE = re.compile(r"(?<![\w.])[-+]?(?:\d+\.\d+|\.\d+|\d+)(?:[eE][-+]?\d+)?(?!\w)")
ROUNDOFF = 1e-9
RELATIVE_SLACK = 1e-12
GPU_RTOL = 0.05
_SPACES = re.compile(r"[ \t]+")
_VERDICT = re.compile(r"^CLAIM (?P<id>\S+) .*?(?P<status>OK|NOT REPRODUCED|NOT DISCRIMINATING)$")


@dataclass(frozen=True)
class Difference:
    """One reason two outputs differ: the line (1-based, of the committed output) and why."""

    line: int
    reason: str

    def __str__(self) -> str:
        return f"line {self.line}: {self.reason}"


def printed_unit(token: str) -> float:
    """One unit in the last printed digit of a number token (``"0.852"`` → 0.001,
    ``"1.8e-04"`` → 1e-05, ``"179"`` → 0: integers are exact)."""
    if not NUMBER_RE.fullmatch(token):
        raise ValueError(f"token must be a number, got {token!r}")
    mantissa, _, exponent = token.lower().partition("e")
    decimals = len(mantissa.split(".", 1)[1]) if "." in mantissa else 0
    if "." not in mantissa and not exponent:
        return 0.0
    return 10.0 ** (int(exponent or 0) - decimals)


def numbers_match(committed: str, fresh: str) -> bool:
    """Whether two printed numbers agree within the tolerance described above."""
    if committed == fresh:
        return True
    a, b = float(committed), float(fresh)
    if math.isnan(a) or math.isnan(b):
        return False
    unit_a, unit_b = printed_unit(committed), printed_unit(fresh)
    if unit_a == 0.0 and unit_b == 0.0:  # two integers
        return a == b
    if abs(a) < ROUNDOFF and abs(b) < ROUNDOFF:
        return True
    slack = RELATIVE_SLACK * max(abs(a), abs(b))
    return abs(a - b) <= max(unit_a, unit_b) * (1 + 1e-9) + slack


def _split(line: str) -> tuple[str, list[str]]:
    """A line's text with every number replaced by a marker, and the numbers in order."""
    numbers = NUMBER_RE.findall(line)
    template = _SPACES.sub(" ", NUMBER_RE.sub("\0", line)).strip()
    return template, numbers


def _verdict(line: str) -> tuple[str, str] | None:
    m = _VERDICT.match(line.strip())
    return (m["id"], m["status"]) if m else None


def _compare_lines(committed: list[str], fresh: list[str]) -> list[Difference]:
    out: list[Difference] = []
    if len(committed) != len(fresh):
        out.append(Difference(1, f"{len(fresh)} lines where {len(committed)} were committed"))
    for i, (ref, new) in enumerate(zip(committed, fresh, strict=False), start=1):
        v_ref, v_new = _verdict(ref), _verdict(new)
        if v_ref and v_new and v_ref != v_new:
            out.append(Difference(i, f"VERDICT CHANGED: claim {v_ref[0]} {v_ref[1]} → {v_new[1]}"))
            continue
        t_ref, n_ref = _split(ref)
        t_new, n_new = _split(new)
        if t_ref != t_new or len(n_ref) != len(n_new):
            out.append(Difference(i, f"text differs: {ref.strip()!r} vs {new.strip()!r}"))
            continue
        bad = [(a, b) for a, b in zip(n_ref, n_new, strict=True) if not numbers_match(a, b)]
        if bad:
            pairs = ", ".join(f"{a} vs {b}" for a, b in bad)
            out.append(Difference(i, f"numbers beyond the last printed digit: {pairs}"))
    return out


def _claim_lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if _verdict(line)]


def _compare_verdicts(committed: str, fresh: str) -> list[Difference]:
    ref, new = _claim_lines(committed), _claim_lines(fresh)
    if [_verdict(x) for x in ref] != [_verdict(x) for x in new]:
        return [
            Difference(
                1, f"VERDICT CHANGED: {[_verdict(x) for x in ref]} vs {[_verdict(x) for x in new]}"
            )
        ]
    out = []
    for i, (a, b) in enumerate(zip(ref, new, strict=True), start=1):
        na, nb = NUMBER_RE.findall(a), NUMBER_RE.findall(b)
        close = len(na) == len(nb) and all(
            x == y or math.isclose(float(x), float(y), rel_tol=GPU_RTOL, abs_tol=ROUNDOFF)
            for x, y in zip(na, nb, strict=True)
        )
        if not close:
            out.append(Difference(i, f"claim values beyond {GPU_RTOL:.0%}: {a!r} vs {b!r}"))
    return out


def compare_text(committed: str, fresh: str, mode: str = "outputs") -> list[Difference]:
    """The differences between a committed and a freshly printed output (empty: they match)."""
    if mode not in MODES:
        raise ValueError(f"mode must be one of {MODES}, got {mode!r}")
    if not isinstance(committed, str) or not isinstance(fresh, str):
        raise ValueError("committed and fresh must be strings")
    if mode == "verdicts":
        return _compare_verdicts(committed, fresh)
    return _compare_lines(committed.splitlines(), fresh.splitlines())
