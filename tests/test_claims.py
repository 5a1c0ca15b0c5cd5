"""The claim line (lib/icml26/claims.py): threshold as data, verdicts, kinds, parsing."""

import contextlib
import io

import numpy as np
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

from icml26 import checks, claim, format_value
from icml26.claims import Threshold, parse_claim_line


def _line(*args, **kwargs) -> tuple[bool, str]:
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        verdict = claim(*args, **kwargs)
    return bool(verdict), buf.getvalue()


def test_claim_prints_the_exact_line():
    ok, out = _line("01.1", "all pairs are retrievable", 1.0, at_least=1.0, kind="theorem")
    assert ok is True
    assert out == "CLAIM 01.1 [theorem]: all pairs are retrievable — measured 1 (≥ 1) OK\n"


def test_a_claim_that_does_not_hold_prints_not_reproduced_and_does_not_raise():
    ok, out = _line("05.4", "CogSDE beats the GRU", 1.08, at_most=1.0)
    assert ok is False
    assert out == (
        "CLAIM 05.4 [reproduction]: CogSDE beats the GRU — measured 1.08 (≤ 1) NOT REPRODUCED\n"
    )


@pytest.mark.parametrize(
    ("kwargs", "measured", "holds", "text"),
    [
        ({"at_most": 0.5}, 0.5, True, "≤ 0.5"),
        ({"at_most": 0.5}, 0.50001, False, "≤ 0.5"),
        ({"at_least": 0.9}, 0.9, True, "≥ 0.9"),
        ({"at_least": 0.9}, 0.89, False, "≥ 0.9"),
        ({"between": (-0.65, -0.35)}, -0.5, True, "in [-0.65, -0.35]"),
        ({"between": (-0.65, -0.35)}, -0.3, False, "in [-0.65, -0.35]"),
        ({"between": [0.35, 0.65]}, 0.35, True, "in [0.35, 0.65]"),
    ],
)
def test_the_verdict_is_decided_by_the_printed_threshold(kwargs, measured, holds, text):
    ok, out = _line("x.1", "s", measured, **kwargs)
    assert ok is holds
    parsed = parse_claim_line(out)
    assert parsed is not None and parsed.threshold == text and parsed.holds is holds


@given(
    st.floats(allow_nan=False, allow_infinity=False, width=32),
    st.floats(allow_nan=False, allow_infinity=False, width=32),
    st.sampled_from(["at_most", "at_least"]),
)
def test_printed_threshold_and_verdict_never_disagree(measured, bound, direction):
    """Re-deciding the verdict from the printed (rounded) line gives the printed verdict
    whenever the rounding does not hide the comparison."""
    ok, out = _line("07.3", "value error within the bound", measured, **{direction: bound})
    parsed = parse_claim_line(out)
    assert parsed is not None and parsed.holds is ok
    assert ok == (measured <= bound if direction == "at_most" else measured >= bound)


def test_claim_accepts_numpy_and_torch_scalars():
    ok, out = _line("x.1", "s", np.float64(3.14159), at_least=torch.tensor(2.0))
    assert ok and "measured 3.14 (≥ 2) OK" in out


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (0.0, "0"),
        (1e-12, "1e-12"),
        (123456.0, "1.23e+05"),
        (7, "7"),
        (True, "True"),
        (float("nan"), "nan"),
        ("≤ 1e-9", "≤ 1e-9"),
        (-0.00012345, "-0.000123"),
    ],
)
def test_format_value(value, text):
    assert format_value(value) == text


@pytest.mark.parametrize("bad_id", ["", "  ", "a:b", "a[1]", 3])
def test_claim_rejects_bad_ids(bad_id):
    with pytest.raises(ValueError, match="id"):
        claim(bad_id, "s", 1, at_most=1)


@pytest.mark.parametrize(
    "kwargs",
    [{}, {"at_most": 1, "at_least": 0}, {"at_most": 1, "between": (0, 1)}],
)
def test_claim_needs_exactly_one_threshold(kwargs):
    with pytest.raises(ValueError, match="exactly one"):
        claim("a", "s", 1, **kwargs)


def test_claim_rejects_bad_statements_values_kinds_and_bounds():
    with pytest.raises(ValueError, match="statement"):
        claim("a", "two\nlines", 1, at_most=1)
    with pytest.raises(ValueError, match="measured"):
        claim("a", "s", "0.5", at_most=1)
    with pytest.raises(ValueError, match="measured"):
        claim("a", "s", float("nan"), at_most=1)
    with pytest.raises(ValueError, match="kind"):
        claim("a", "s", 1, at_most=1, kind="agreement")
    with pytest.raises(ValueError, match="between"):
        claim("a", "s", 1, between=(2, 1))
    with pytest.raises(ValueError, match="between"):
        claim("a", "s", 1, between=0.5)
    with pytest.raises(ValueError, match="at_most"):
        claim("a", "s", 1, at_most="1")
    with pytest.raises(ValueError, match="digits"):
        format_value(1.0, digits=0)


def test_threshold_text():
    assert Threshold.of(None, None, (0, 1)).text(3) == "in [0, 1]"
    assert Threshold.of(1e-9, None, None).text(3) == "≤ 1e-09"


def test_parse_rejects_other_lines_and_the_old_format():
    assert parse_claim_line("hello") is None
    assert parse_claim_line("CLAIM 01.1: s — measured 1 (threshold 1) OK") is None


def test_agree_returns_the_largest_difference_and_names_the_mismatch():
    assert checks.agree("x", np.array([1.0, 2.0]), torch.tensor([1.0, 2.0 + 1e-12])) < 1e-11
    with pytest.raises(AssertionError, match=r"kernel vs reference: .* at \(1,\)"):
        checks.agree("kernel vs reference", np.array([1.0, 2.0]), np.array([1.0, 2.1]))
    with pytest.raises(AssertionError, match="shapes differ"):
        checks.agree("x", np.zeros(2), np.zeros(3))


def test_the_verdict_is_truthy_and_displays_as_nothing():
    import contextlib
    import io

    with contextlib.redirect_stdout(io.StringIO()):
        ok, nr = claim("x.1", "s", 1, at_most=2), claim("x.2", "s", 3, at_most=2)
    assert ok and not nr and ok._ipython_display_() is None
    assert repr(nr) == "Verdict('NOT REPRODUCED')"
