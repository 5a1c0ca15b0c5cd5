"""The claim line (lib/icml26/claims.py): exact text, failure, parsing, rounding."""

import numpy as np
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

from icml26 import claim, format_value
from icml26.claims import parse_claim_line


def test_claim_prints_the_exact_line(capsys):
    claim("01.1", "all pairs are retrievable", 1.0, threshold=1.0, holds=True)
    assert capsys.readouterr().out == (
        "CLAIM 01.1: all pairs are retrievable — measured 1 (threshold 1) OK\n"
    )


def test_claim_failure_raises_with_the_same_text(capsys):
    with pytest.raises(AssertionError) as err:
        claim("01.2", "gap below ceiling", 0.51234, threshold=0.5, holds=False)
    assert str(err.value) == (
        "CLAIM 01.2: gap below ceiling — measured 0.512 (threshold 0.5) FAILED"
    )
    assert capsys.readouterr().out == ""


def test_claim_accepts_numpy_and_torch_scalars(capsys):
    claim("x.1", "s", np.float64(3.14159), threshold=torch.tensor(2.0), holds=np.bool_(True))
    assert "measured 3.14 (threshold 2) OK" in capsys.readouterr().out


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


@given(st.floats(allow_nan=False, allow_infinity=False), st.floats(allow_nan=False))
def test_claim_lines_parse_back(measured, threshold):
    import contextlib
    import io

    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        claim("07.3", "value error within the bound", measured, threshold=threshold, holds=True)
    parsed = parse_claim_line(buf.getvalue())
    assert parsed is not None
    assert parsed.id == "07.3" and parsed.status == "OK"
    assert parsed.measured == format_value(measured)


@pytest.mark.parametrize("bad_id", ["", "  ", "a:b", 3])
def test_claim_rejects_bad_ids(bad_id):
    with pytest.raises(ValueError, match="id"):
        claim(bad_id, "s", 1, threshold=1, holds=True)


def test_claim_rejects_bad_statements_and_values():
    with pytest.raises(ValueError, match="statement"):
        claim("a", "two\nlines", 1, threshold=1, holds=True)
    with pytest.raises(ValueError, match="cannot format"):
        claim("a", "s", object(), threshold=1, holds=True)
    with pytest.raises(ValueError, match="digits"):
        format_value(1.0, digits=0)


def test_parse_rejects_other_lines():
    assert parse_claim_line("hello") is None
