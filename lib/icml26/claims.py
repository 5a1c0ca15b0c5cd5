"""Claim cells: the one printed line by which a chapter tests a paper's claim.

A claim cell (a code cell tagged ``claim``, with a ``# fails if: ...`` comment) calls
:func:`claim` once. The threshold is data (``at_most=``, ``at_least=`` or ``between=``) and the
verdict is decided here from it, so the printed threshold and the decision can never disagree.
The line carries the claim's evidence: the seeds it was decided over and by which rule, the
value of its control (the broken variant, the ablation or the baseline the paper beats, run
in the same cell), and any setting chosen after seeing results::

    CLAIM 03.2 [theorem]: informed gradient is unbiased — measured 3.1e-13 (≤ 1e-09) OK
    CLAIM 14.2 [reproduction]: POLIA raises IoU over GRPO — measured 0.061 (≥ 0.05) \\
        · 10 seeds: lower 95% bound of the median, median 0.12 · control GRPO 0 · OK

(one line; the fields after the threshold and the `` · `` before the verdict appear only when
the claim has evidence to print).

Three verdicts: ``OK``; ``NOT REPRODUCED`` (the claim fails its threshold); ``NOT
DISCRIMINATING`` (the claim passes, but so does its control, so the pass is no evidence).
Neither of the last two raises: the notebook goes on, and the chapter's Limits section
explains them. Because nbval compares the printed line with the committed one, a claim that
changes verdict fails the test suite. Agreement between two implementations is not a claim:
use :func:`icml26.checks.agree`.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from numbers import Real

import numpy as np

__all__ = [
    "CLAIM_RE",
    "KINDS",
    "MIN_SEEDS",
    "RULES",
    "SEP",
    "STATUSES",
    "TIE",
    "ClaimLine",
    "Threshold",
    "Verdict",
    "claim",
    "decide",
    "format_value",
    "parse_claim_line",
    "printed_verdicts",
    "shortfall",
]

#: ``reproduction``: the paper's empirical statement at toy scale; ``theorem``: a theorem
#: (the paper's, or one the chapter proves) checked numerically.
KINDS = ("reproduction", "theorem")
OK, NOT_REPRODUCED, NOT_DISCRIMINATING = "OK", "NOT REPRODUCED", "NOT DISCRIMINATING"
STATUSES = (OK, NOT_REPRODUCED, NOT_DISCRIMINATING)

# The verdict of every claim :func:`claim` printed in this process, by id.
_PRINTED: dict[str, str] = {}
#: How per-seed values decide a claim: every seed must pass (``worst``), or the one-sided
#: 95 % confidence bound of the mean (Student t) or of the median (order statistics, no
#: distributional assumption) must pass.
RULES = ("worst", "mean-ci", "median-ci")
#: A reproduction is decided over at least this many seeds (or says why it runs on one).
MIN_SEEDS = 3
#: Separates the fields of a claim line after its threshold.
SEP = " · "

CLAIM_RE = re.compile(
    r"^CLAIM (?P<id>[^:\[\]\s]+) \[(?P<kind>[a-z]+)\]: (?P<statement>.*?) — measured "
    r"(?P<measured>\S+) \((?P<threshold>(?:≤|≥|in) [^()]*)\)"
    r"(?P<extras>(?: · .*?)*?)(?: · | )(?P<status>OK|NOT REPRODUCED|NOT DISCRIMINATING)$"
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


#: A value within ``TIE`` of a bound, relative to the bound's size (at least 1), meets it: a
#: value that equals its threshold in exact arithmetic, such as an accuracy drop of exactly
#: 40 prompts in 2000 computed as ``100 * (a - b)`` (2.0000000000000018), is not failed by
#: its last bits, which another CPU may round the other way. No figure a claim line prints
#: can show a difference this small.
TIE = 1e-9


def _slack(bound: float) -> float:
    return TIE * max(1.0, abs(bound))


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
        """Whether ``x`` meets the threshold; a tie within :data:`TIE` meets it."""
        lo, hi = self.bounds[0], self.bounds[-1]
        if self.direction == "≤":
            return x <= hi + _slack(hi)
        if self.direction == "≥":
            return x >= lo - _slack(lo)
        return lo - _slack(lo) <= x <= hi + _slack(hi)

    def digits_for(self, x: float, digits: int) -> int:
        """The significant figures to print ``x`` and the bounds with: ``digits``, or as many
        more (up to 8) as it takes for ``x`` not to print the same as a bound it differs from
        by more than a tie, so a line reads "1.016 (≤ 1.02)", not "1.02 (≤ 1.02)"."""
        for d in range(digits, max(digits, 8) + 1):
            if not any(
                format_value(x, d) == format_value(b, d) and abs(x - b) > _slack(b)
                for b in self.bounds
            ):
                return d
        return digits

    def text(self, digits: int) -> str:
        if self.direction == "in":
            lo, hi = (format_value(b, digits) for b in self.bounds)
            return f"in [{lo}, {hi}]"
        return f"{self.direction} {format_value(self.bounds[0], digits)}"


class Verdict:
    """What :func:`claim` returns: true when the claim holds (``OK``). It displays as nothing
    in a notebook (the printed line is the claim's only output), but ``if claim(...)`` works;
    ``status`` is the printed verdict."""

    __slots__ = ("status",)

    def __init__(self, status: str) -> None:
        if status not in STATUSES:
            raise ValueError(f"status must be one of {STATUSES}, got {status!r}")
        self.status = status

    @property
    def holds(self) -> bool:
        return self.status == OK

    def __bool__(self) -> bool:
        return self.holds

    def __repr__(self) -> str:
        return f"Verdict({self.status!r})"

    def _ipython_display_(self) -> None:  # the claim line was printed already
        return None


def _values(name: str, values: object) -> list[float]:
    """Per-seed values as a list of finite floats (a sequence, array or tensor)."""
    if hasattr(values, "detach"):
        values = values.detach().cpu().numpy()
    if hasattr(values, "tolist") and getattr(values, "ndim", 1) >= 1:
        values = values.tolist()
    if isinstance(values, str) or not hasattr(values, "__iter__"):
        raise ValueError(f"{name} must be a sequence of per-seed values")
    out = [_real(f"{name}[{i}]", v) for i, v in enumerate(values)]
    if any(math.isinf(v) for v in out):
        raise ValueError(f"{name} must be finite")
    return out


def _t_quantile(n: int) -> float:
    from scipy import stats

    return float(stats.t.ppf(0.95, n - 1))


def _median_bounds(xs: list[float]) -> tuple[float, float]:
    """One-sided 95 % bounds of the median from order statistics: the largest k with
    P(Binomial(n, 1/2) < k) ≤ 0.05 gives the k-th smallest (lower) and k-th largest (upper)."""
    from scipy import stats

    n, ordered = len(xs), sorted(xs)
    k = int(stats.binom.ppf(0.05, n, 0.5))
    while k >= 1 and stats.binom.cdf(k - 1, n, 0.5) > 0.05:
        k -= 1
    if k < 1:
        raise ValueError(f"median-ci needs at least 5 seeds, got {n}")
    return ordered[k - 1], ordered[n - k]


def decide(
    values: list[float], threshold: Threshold, rule: str, digits: int = 3
) -> tuple[float, bool, str]:
    """Decide per-seed values by ``rule``: ``(value compared, holds, how it was decided)``.

    ``worst``: the seed with the smallest margin to the threshold (every seed must pass).
    ``mean-ci`` / ``median-ci``: the one-sided 95 % confidence bound of the mean / median on
    the side that could fail the threshold (both bounds for ``between``).

    The range, centre and bounds in the returned text are printed to ``digits`` significant
    figures, the claim's own precision: a claim printed to two figures does not print its
    per-seed range to three, where round-off on another CPU would show.
    """
    if rule not in RULES:
        raise ValueError(f"rule must be one of {RULES}, got {rule!r}")
    n, d = len(values), threshold.direction
    if rule == "worst":
        if d == "≤":
            x = max(values)
        elif d == "≥":
            x = min(values)
        else:
            lo, hi = threshold.bounds
            x = min(values, key=lambda v: min(v - lo, hi - v))  # the smallest margin
        holds = all(threshold.holds(v) for v in values)
        return (
            x,
            holds,
            f"worst, range {format_value(min(values), digits)}–{format_value(max(values), digits)}",
        )
    if n < 2:
        raise ValueError(f"rule {rule!r} needs at least 2 seeds, got {n}")
    if rule == "mean-ci":
        centre = float(np.mean(values))
        half = _t_quantile(n) * float(np.std(values, ddof=1)) / math.sqrt(n)
        lower, upper, what = centre - half, centre + half, "mean"
    else:
        centre = float(np.median(values))
        lower, upper = _median_bounds(values)
        what = "median"
    if d == "≤":
        return (
            upper,
            threshold.holds(upper),
            (f"upper 95% bound of the {what}, {what} {format_value(centre, digits)}"),
        )
    if d == "≥":
        return (
            lower,
            threshold.holds(lower),
            (f"lower 95% bound of the {what}, {what} {format_value(centre, digits)}"),
        )
    lo, hi = threshold.bounds
    x = lower if lower - lo < hi - upper else upper  # the bound with the smaller margin
    holds = threshold.holds(lower) and threshold.holds(upper)
    bounds = f"[{format_value(lower, digits)}, {format_value(upper, digits)}]"
    return x, holds, f"95% bounds of the {what} {bounds}, {what} {format_value(centre, digits)}"


def _text_field(name: str, value: object) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip() or "\n" in value or SEP in value:
        raise ValueError(f"{name} must be a non-empty single-line string without {SEP.strip()!r}")
    return value.strip()


def claim(
    id: str,
    statement: str,
    measured: object = None,
    *,
    at_most: object = None,
    at_least: object = None,
    between: object = None,
    kind: str = "reproduction",
    digits: int = 3,
    seeds: object = None,
    rule: str = "worst",
    control: object = None,
    control_label: str | None = None,
    no_control: str | None = None,
    single_seed: str | None = None,
    tuned: str | None = None,
) -> Verdict:
    """Print a claim line and return its :class:`Verdict`.

    The threshold is exactly one of ``at_most`` (holds when the value is ``<= at_most``),
    ``at_least`` or ``between=(low, high)`` (inclusive; a tie within :data:`TIE` meets a
    bound). The value is ``measured`` (a real number: encode a yes/no outcome as a count,
    e.g. violations with ``at_most=0``) or ``seeds``, the per-seed values of a reproduction,
    decided by ``rule`` (:data:`RULES`, :func:`decide`) and printed with how they were
    decided.

    The evidence a claim carries, printed on its line:

    - ``control``: the same metric for the named control (``control_label``: the broken
      variant, the ablation, the baseline the paper beats), computed in the same cell; a
      number, or per-seed values decided by the same rule. If the claim holds and the
      control satisfies the threshold too, the verdict is ``NOT DISCRIMINATING``. A
      reproduction without a control says why in ``no_control``.
    - ``single_seed``: why a reproduction is decided on one run (give ``measured``);
      otherwise a reproduction gives ``seeds`` (at least :data:`MIN_SEEDS`).
    - ``tuned``: what was chosen after seeing results (a setting or the threshold itself).

    ``kind`` is ``"reproduction"`` or ``"theorem"`` (:data:`KINDS`); a theorem check is
    exact up to round-off, so it needs neither seeds nor a control (its control, where one
    exists, is the broken variant). The verdict is ``OK``, ``NOT REPRODUCED`` or ``NOT
    DISCRIMINATING``; none raises, so a notebook goes on after an honest negative result.
    """
    _check_line(id, statement, kind, rule)
    threshold = Threshold.of(at_most, at_least, between)
    label = _text_field("control_label", control_label)
    reason = _text_field("no_control", no_control)
    single = _text_field("single_seed", single_seed)
    tuned_text = _text_field("tuned", tuned)
    if (measured is None) == (seeds is None):
        raise ValueError("give exactly one of measured= or seeds=")
    if control is not None and reason is not None:
        raise ValueError("give control= or no_control=, not both")
    if label is not None and control is None:
        raise ValueError("control_label needs control=")
    if seeds is not None and single is not None:
        raise ValueError("single_seed is for a claim decided on one run: give measured=")

    x, holds, fields = _measurement(measured, seeds, threshold, rule, single, digits)
    control_holds = False
    if control is not None:
        cx, control_holds = _control(control, threshold, rule)
        fields.append(f"control {label + ' ' if label else ''}{format_value(cx, digits)}")
    elif reason is not None:
        fields.append(f"no control: {reason}")
    if tuned_text is not None:
        fields.append(f"tuned: {tuned_text}")
    if not holds:
        verdict = NOT_REPRODUCED
    elif control_holds:
        verdict = NOT_DISCRIMINATING
    else:
        verdict = OK
    tail = "".join(SEP + f for f in [*fields, verdict]) if fields else f" {verdict}"
    d = threshold.digits_for(x, digits)
    print(
        f"CLAIM {id} [{kind}]: {statement} — measured {format_value(x, d)} "
        f"({threshold.text(d)}){tail}"
    )
    _PRINTED[id] = verdict
    return Verdict(verdict)


def printed_verdicts() -> dict[str, str]:
    """The verdict of every claim :func:`claim` has printed in this process (a notebook's
    kernel), by claim id; a claim printed twice keeps its last verdict."""
    return dict(_PRINTED)


def shortfall(statuses: object) -> str | None:
    """Why a chapter's claims fall short of the book's standard, or ``None`` when they meet
    it: at least two claims, at least half of them ``OK`` and none ``NOT DISCRIMINATING``
    (``shared/CHAPTER.md``; a chapter that falls short is a draft). ``statuses`` are the
    verdicts of the chapter's claims at the default scale."""
    if isinstance(statuses, str) or not hasattr(statuses, "__iter__"):
        raise ValueError("statuses must be a sequence of verdicts")
    statuses = list(statuses)
    unknown = sorted({s for s in statuses if s not in STATUSES}, key=str)
    if unknown:
        raise ValueError(f"statuses must be verdicts among {STATUSES}, got {unknown}")
    n, ok = len(statuses), statuses.count(OK)
    nd = statuses.count(NOT_DISCRIMINATING)
    reasons = []
    if n < 2:
        reasons.append(f"it has {n} claim{'s' if n != 1 else ''}, fewer than two")
    elif 2 * ok < n:
        reasons.append(f"only {ok} of its {n} claims hold, fewer than half")
    if nd:
        reasons.append(f"{nd} of its claims {'is' if nd == 1 else 'are'} not discriminating")
    return "; ".join(reasons) or None


def _check_line(id: object, statement: object, kind: object, rule: object) -> None:
    """The claim's id, statement, kind and rule are printable and known."""
    if not isinstance(id, str) or not id.strip() or any(c in id for c in ":[] \t\n"):
        raise ValueError(
            f"id must be a non-empty string without ':', '[', ']' or spaces, got {id!r}"
        )
    if (
        not isinstance(statement, str)
        or not statement.strip()
        or "\n" in statement
        or " — measured " in statement
    ):
        raise ValueError("statement must be a non-empty single-line string")
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}, got {kind!r}")
    if rule not in RULES:
        raise ValueError(f"rule must be one of {RULES}, got {rule!r}")


def _measurement(
    measured: object,
    seeds: object,
    threshold: Threshold,
    rule: str,
    single: str | None,
    digits: int = 3,
) -> tuple[float, bool, list[str]]:
    """The claim's value, whether it holds, and the line's first fields (how it was decided)."""
    if seeds is not None:
        values = _values("seeds", seeds)
        if len(values) < MIN_SEEDS:
            raise ValueError(f"seeds must hold at least {MIN_SEEDS} values, got {len(values)}")
        x, holds, how = decide(values, threshold, rule, digits)
        return x, holds, [f"{len(values)} seeds: {how}"]
    x = _real("measured", measured)
    return x, threshold.holds(x), ([f"1 seed: {single}"] if single is not None else [])


def _control(control: object, threshold: Threshold, rule: str) -> tuple[float, bool]:
    """The control's value (one number, or per-seed values decided by ``rule``) and whether it
    satisfies the claim's threshold too."""
    if _is_sequence(control):
        cvals = _values("control", control)
        if len(cvals) < 2:
            raise ValueError("control must be a number or at least 2 per-seed values")
        cx, control_holds, _ = decide(cvals, threshold, rule)
        return cx, control_holds
    cx = _real("control", control)
    return cx, threshold.holds(cx)


def _is_sequence(value: object) -> bool:
    if isinstance(value, str) or getattr(value, "ndim", None) == 0:
        return False
    return hasattr(value, "__iter__")


@dataclass(frozen=True)
class ClaimLine:
    """One parsed claim line (used by the book's claims page and the tests).

    ``seeds`` is the seeds field (``"5 seeds: worst, range 0.8–0.9"`` or ``"1 seed: why"``),
    ``control`` the control field without its word (``"EI 0.774"``), ``no_control`` the
    reason there is none, ``tuned`` what was tuned; each ``""`` when absent.
    """

    id: str
    kind: str
    statement: str
    measured: str
    threshold: str
    status: str
    seeds: str = ""
    control: str = ""
    no_control: str = ""
    tuned: str = ""

    @property
    def holds(self) -> bool:
        return self.status == OK

    @property
    def n_seeds(self) -> int:
        """How many seeds decided the claim (0 when the line does not say)."""
        m = re.match(r"(\d+) seeds?:", self.seeds)
        return int(m[1]) if m else 0


_FIELDS = (
    ("seeds", re.compile(r"^\d+ seeds?: ")),
    ("control", "control "),
    ("no_control", "no control: "),
    ("tuned", "tuned: "),
)


def parse_claim_line(line: str) -> ClaimLine | None:
    """Parse a printed claim line; ``None`` when ``line`` is not one."""
    m = CLAIM_RE.match(line.rstrip("\n"))
    if m is None:
        return None
    parts = m.groupdict()
    extras = parts.pop("extras")
    fields: dict[str, str] = {}
    for field in extras.split(SEP)[1:] if extras else []:
        for name, prefix in _FIELDS:
            if isinstance(prefix, str) and field.startswith(prefix):
                fields[name] = field[len(prefix) :]
                break
            if not isinstance(prefix, str) and prefix.match(field):
                fields[name] = field
                break
        else:
            return None
    return ClaimLine(**parts, **fields)
