"""The tolerant comparison of notebook outputs (lib/icml26/pipeline/compare.py)."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from icml26.pipeline.compare import compare_text, numbers_match, printed_unit


@pytest.mark.parametrize(
    ("token", "unit"),
    [
        ("0.852", 1e-3),
        ("1.8e-04", 1e-5),
        ("-1.000", 1e-3),
        ("179", 0.0),
        ("2e+05", 1e5),
        (".5", 0.1),
        ("3.33e-16", 1e-18),
    ],
)
def test_printed_unit(token, unit):
    assert printed_unit(token) == pytest.approx(unit, rel=1e-12)


@pytest.mark.parametrize(
    ("a", "b", "same"),
    [
        ("0.852", "0.851", True),  # one unit in the last printed digit
        ("0.852", "0.850", False),  # two units
        ("0.000179", "0.00018", True),  # %.3g drops a trailing zero: the coarser unit counts
        ("-0.999", "-1.000", True),
        ("-0.999", "-1", True),  # an integer-looking print of a decimal: 0.999's unit decides
        ("4.44e-16", "3.33e-16", True),  # round-off: both below 1e-9
        ("4.44e-16", "2e-08", False),
        ("36", "37", False),  # integers are counts: exact
        ("179", "169", False),
        ("24", "26.5", False),
        ("1.3", "3.32", False),
        ("0.192", "0.159", False),
    ],
)
def test_numbers_match(a, b, same):
    assert numbers_match(a, b) is same
    assert numbers_match(b, a) is same


def test_text_must_match_exactly_up_to_space_runs():
    assert compare_text("a  0.852 b", "a 0.851 b") == []
    assert compare_text("a 0.852 b", "a 0.852 c")
    assert compare_text("one\ntwo", "one\ntwo\nthree")
    assert compare_text("mean 0.85", "median 0.85")


def test_a_changed_verdict_is_reported_as_such():
    old = "CLAIM 15.4 [reproduction]: s — measured 24 (≥ 20) OK"
    new = "CLAIM 15.4 [reproduction]: s — measured 19 (≥ 20) NOT REPRODUCED"
    (diff,) = compare_text(old, new)
    assert "VERDICT CHANGED" in str(diff) and "15.4" in str(diff)
    nd = old.replace(" OK", " · control x 21 · NOT DISCRIMINATING")
    assert "VERDICT CHANGED" in str(compare_text(old.replace(" OK", " · control x 21 · OK"), nd)[0])


def test_a_claim_value_within_its_last_digit_passes():
    old = (
        "CLAIM 05.3 [reproduction]: s — measured 0.913 (≤ 1) · 5 seeds: worst, range 0.8–0.913 · OK"
    )
    assert compare_text(old, old.replace("0.913", "0.914")) == []
    assert compare_text(old, old.replace("0.913", "0.918"))


def test_verdict_mode_compares_claims_only():
    old = "x 1\nCLAIM 01.1 [theorem]: s — measured 0.5 (≤ 1) OK\ntail"
    new = "x 2\nCLAIM 01.1 [theorem]: s — measured 0.52 (≤ 1) OK\nother"
    assert compare_text(old, new, "verdicts") == []
    assert compare_text(old, new.replace("0.52", "0.7"), "verdicts")
    assert compare_text(old, new.replace(" OK", " NOT REPRODUCED"), "verdicts")
    with pytest.raises(ValueError, match="mode"):
        compare_text(old, new, "loose")


@given(st.floats(-1e6, 1e6, allow_nan=False), st.integers(1, 6))
def test_a_value_printed_twice_after_a_last_bit_change_always_matches(x, digits):
    y = x * (1 + 2**-52)
    gx, gy = f"{x:.{digits}g}", f"{y:.{digits}g}"
    if any(c in gx + gy for c in ".e"):  # an integer-looking token is compared exactly
        assert compare_text(f"v = {gx}", f"v = {gy}") == []
    assert compare_text(f"v = {x:.{digits}f}", f"v = {y:.{digits}f}") == []
