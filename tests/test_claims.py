"""The claim line (lib/icml26/claims.py): threshold as data, verdicts, kinds, parsing."""

import contextlib
import io

import numpy as np
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

from icml26 import checks, claim, format_value
from icml26.claims import TIE, Threshold, parse_claim_line, shortfall


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
    """The verdict is the comparison of the unrounded values, and re-deciding it from the
    printed (rounded) numbers gives the printed verdict whenever rounding does not hide the
    comparison (the two printed numbers differ)."""
    ok, out = _line("07.3", "value error within the bound", measured, **{direction: bound})
    parsed = parse_claim_line(out)
    assert parsed is not None and parsed.holds is ok
    slack = TIE * max(1.0, abs(bound))
    assert ok == (
        measured <= bound + slack if direction == "at_most" else measured >= bound - slack
    )
    shown, limit = float(parsed.measured), float(parsed.threshold.split(" ", 1)[1])
    if shown != limit and abs(measured - bound) > slack:
        assert ok == (shown <= limit if direction == "at_most" else shown >= limit)


def test_a_tie_meets_its_bound_whatever_the_last_bits():
    """An accuracy drop of exactly 40 prompts in 2000 is 2 points; computed as 100 · (a − b)
    it is 2.0000000000000018 or 1.99999999999999 depending on a and b, and must meet "at most
    2" either way (and a real excess must not)."""
    drops = [100 * (k / 2000 - (k - 40) / 2000) for k in (1900, 1950)]
    assert drops[0] < 2 < drops[1]  # both sides of the bound, by round-off alone
    for drop in drops:
        ok, out = _line("16.6", "clean-accuracy drop", drop, at_most=2)
        assert ok and "measured 2 (≤ 2) OK" in out
        ok, _ = _line("x.1", "s", -drop, at_least=-2)
        assert ok
    assert not _line("16.6", "clean-accuracy drop", 2.05, at_most=2)[0]
    assert not _line("x.1", "s", 2 + 1e-6, between=(1, 2))[0]
    assert Threshold("≤", (1e6,)).holds(1e6 * (1 + TIE / 2))


@pytest.mark.parametrize(
    ("measured", "kwargs", "text"),
    [
        (1.016, {"at_most": 1.02}, "measured 1.016 (≤ 1.02) OK"),
        (1.0201, {"at_most": 1.0234}, "measured 1.02 (≤ 1.023) OK"),
        (0.50001, {"at_most": 0.5}, "measured 0.50001 (≤ 0.5) NOT REPRODUCED"),
        (0.3, {"at_least": 0.3}, "measured 0.3 (≥ 0.3) OK"),
        (5 / 6, {"at_most": 5 / 6 + 1e-12}, "measured 0.833 (≤ 0.833) OK"),
    ],
)
def test_a_value_never_prints_as_its_bound_unless_it_ties(measured, kwargs, text):
    """The line shows as many more figures as it takes for a value not to read as equal to a
    bound it does not tie with; a tie, and only a tie, prints equal."""
    assert text in _line("x.1", "s", measured, **kwargs)[1]


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
    assert repr(nr) == "Verdict('NOT REPRODUCED')" and nr.status == "NOT REPRODUCED"


# --- the evidence a claim carries: seeds, rules, controls, tuned settings ---------------------


def test_seeds_decided_by_the_worst_seed_print_their_range():
    ok, out = _line("x.1", "s", seeds=[0.9, 0.85, 0.95], at_least=0.8, no_control="none")
    assert ok
    assert out == (
        "CLAIM x.1 [reproduction]: s — measured 0.85 (≥ 0.8) · 3 seeds: worst, range "
        "0.85–0.95 · no control: none · OK\n"
    )
    ok, _ = _line("x.1", "s", seeds=[0.9, 0.79, 0.95], at_least=0.8)
    assert not ok


def test_every_figure_of_a_seeded_claim_is_printed_to_its_digits():
    """The range, centre and bounds follow ``digits``: a claim printed to two figures does
    not print its per-seed range to three, where another CPU's round-off would show."""
    _, out = _line("x.1", "s", seeds=[0.597, 0.672, 0.65], at_least=0.65, digits=2)
    assert "measured 0.6 (≥ 0.65) · 3 seeds: worst, range 0.6–0.67 ·" in out
    xs = [0.9123, 0.7456, 0.8012, 0.8534, 0.7511]
    _, out = _line("x.1", "s", seeds=xs, rule="mean-ci", at_least=0.7, digits=2)
    assert f"lower 95% bound of the mean, mean {format_value(np.mean(xs), 2)} ·" in out
    _, out = _line("x.1", "s", seeds=xs, rule="median-ci", between=(0.5, 1.0), digits=1)
    assert "95% bounds of the median [0.7, 0.9], median 0.8 ·" in out


def test_mean_ci_uses_the_one_sided_t_bound():
    from scipy import stats

    xs = [0.9, 0.7, 0.8, 0.85, 0.75]
    lower = np.mean(xs) - stats.t.ppf(0.95, 4) * np.std(xs, ddof=1) / np.sqrt(5)
    ok, out = _line("x.1", "s", seeds=xs, rule="mean-ci", at_least=0.7)
    assert ok and f"measured {format_value(lower)} (≥ 0.7)" in out
    ok, _ = _line("x.1", "s", seeds=xs, rule="mean-ci", at_least=lower + 1e-6)
    assert not ok


def test_median_ci_from_order_statistics_matches_the_binomial():
    """With 10 seeds P(Bin(10, ½) ≤ 1) = 0.011 ≤ 0.05 < P(≤ 2) = 0.055: the 2nd smallest value
    is the lower 95 % bound of the median."""
    xs = [5.0, 1.0, 9.0, 2.0, 8.0, 3.0, 7.0, 4.0, 6.0, 10.0]
    ok, out = _line("x.1", "s", seeds=xs, rule="median-ci", at_least=2.0)
    assert ok and "measured 2 (≥ 2)" in out and "median 5.5" in out
    ok, _ = _line("x.1", "s", seeds=xs, rule="median-ci", at_least=2.5)
    assert not ok
    with pytest.raises(ValueError, match="at least 5 seeds"):
        claim("x.1", "s", seeds=[1, 2, 3, 4], rule="median-ci", at_least=0)


@pytest.mark.parametrize(
    ("control", "status"),
    [
        (0.5, "OK"),
        (0.95, "NOT DISCRIMINATING"),
        ([0.5, 0.6, 0.99], "OK"),
        ([0.9, 0.95], "NOT DISCRIMINATING"),
    ],
)
def test_a_control_that_passes_too_makes_the_claim_not_discriminating(control, status):
    ok, out = _line(
        "x.1", "s", seeds=[0.9, 0.92, 0.91], at_least=0.8, control=control, control_label="EI"
    )
    parsed = parse_claim_line(out)
    assert parsed.status == status and ok is (status == "OK")
    assert parsed.control.startswith("EI ")


def test_a_failing_claim_is_not_reproduced_whatever_its_control():
    _, out = _line("x.1", "s", 0.5, at_least=0.8, control=0.9, single_seed="why")
    assert out.endswith(" · NOT REPRODUCED\n")


@given(
    st.lists(st.floats(-1e3, 1e3, allow_nan=False), min_size=5, max_size=12),
    st.floats(-1e3, 1e3, allow_nan=False),
    st.sampled_from(["worst", "mean-ci", "median-ci"]),
    st.sampled_from(["at_most", "at_least"]),
)
def test_the_printed_line_round_trips_and_the_verdict_matches_the_rule(xs, bound, rule, side):
    ok, out = _line("x.1", "s", seeds=xs, rule=rule, tuned="the bound", **{side: bound})
    parsed = parse_claim_line(out)
    assert parsed is not None and parsed.holds is ok
    assert parsed.n_seeds == len(xs) and parsed.tuned == "the bound"
    if rule == "worst":
        slack = TIE * max(1.0, abs(bound))
        assert ok == all(
            x <= bound + slack if side == "at_most" else x >= bound - slack for x in xs
        )


def test_tuned_and_single_seed_fields_parse_back():
    _, out = _line("x.1", "a | b · c", 1.0, at_most=2, single_seed="deterministic", tuned="lr")
    parsed = parse_claim_line(out)
    assert parsed.statement == "a | b · c"
    assert (parsed.seeds, parsed.tuned, parsed.n_seeds) == ("1 seed: deterministic", "lr", 1)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"measured": 1, "seeds": [1, 2, 3]}, "exactly one of measured"),
        ({}, "exactly one of measured"),
        ({"seeds": [1, 2]}, "at least 3"),
        ({"seeds": [1, float("nan"), 2]}, "NaN"),
        ({"seeds": [1, float("inf"), 2]}, "finite"),
        ({"seeds": "123"}, "sequence"),
        ({"measured": 1, "rule": "best"}, "rule"),
        ({"measured": 1, "control": 1, "no_control": "why"}, "not both"),
        ({"measured": 1, "control_label": "EI"}, "control_label needs"),
        ({"seeds": [1, 2, 3], "single_seed": "why"}, "single_seed"),
        ({"measured": 1, "tuned": "a · b"}, "tuned"),
        ({"measured": 1, "no_control": ""}, "no_control"),
        ({"measured": 1, "control": "0.5"}, "control"),
        ({"measured": 1, "control": [0.5]}, "control"),
    ],
)
def test_claim_rejects_inconsistent_evidence(kwargs, match):
    with pytest.raises(ValueError, match=match):
        claim("x.1", "s", at_most=2, **kwargs)


def test_decide_rejects_unknown_rules():
    from icml26.claims import decide

    with pytest.raises(ValueError, match="rule"):
        decide([1.0, 2.0], Threshold.of(1, None, None), "best")


@pytest.mark.parametrize(
    ("statuses", "reason"),
    [
        (["OK", "OK"], None),
        (["OK", "NOT REPRODUCED"], None),
        (["OK", "OK", "NOT REPRODUCED", "NOT REPRODUCED"], None),
        (
            ["OK", "NOT REPRODUCED", "NOT REPRODUCED"],
            "only 1 of its 3 claims hold, fewer than half",
        ),
        (["OK"], "it has 1 claim, fewer than two"),
        ([], "it has 0 claims, fewer than two"),
        (["OK", "OK", "OK", "NOT DISCRIMINATING"], "1 of its claims is not discriminating"),
        (
            ["OK", "OK"] + ["NOT REPRODUCED"] * 5 + ["NOT DISCRIMINATING"],
            "only 2 of its 8 claims hold, fewer than half; 1 of its claims is not discriminating",
        ),
    ],
)
def test_shortfall_is_the_standards_rule(statuses, reason):
    assert shortfall(statuses) == reason


def test_shortfall_rejects_what_is_not_a_list_of_verdicts():
    with pytest.raises(ValueError, match="statuses must be a sequence"):
        shortfall("OK")
    with pytest.raises(ValueError, match="statuses must be verdicts"):
        shortfall(["OK", "FINE"])
