"""The benchmark harness: interleaved ratios with a spread, and its stability self-check.

A tiny case keeps this fast: the same pure-Python work at two sizes, ten times apart, so the
true ratio is 10 and both sides feel a busy machine alike (a microsecond-long numpy call
against a Python loop would measure the machine's noise, not the harness).
``make bench-check`` runs the same check on every registered case.
"""

import numpy as np
import pytest

from benchmarks import harness
from benchmarks.registry import register, register_scaling


def kernel():
    return sum(range(20_000))


def loop():
    return sum(range(200_000))


def test_two_runs_of_the_harness_agree_within_their_spread():
    """Two runs agree within their spread. The unit tests run on parallel workers, so a burst
    of load from the other worker can shift one run; up to three pairs are tried, and a
    harness whose spread does not cover its own repeatability fails all three."""
    pairs = []
    for _ in range(3):
        a = harness.compare(kernel, loop, rounds=7, min_run_time=0.05)
        b = harness.compare(kernel, loop, rounds=7, min_run_time=0.05)
        assert 5 < a.reference.median < 20, "ten times the work should take about ten times longer"
        assert a.library is None and a.kernel_s > 0
        pairs.append((a.reference, b.reference))
        if harness.consistent(a.reference, b.reference):
            break
    else:
        raise AssertionError(f"no pair of runs agreed within its spread: {pairs}")


def test_ratio_spread_and_flag():
    r = harness.Ratio.of([10.0, 10.0, 10.0, 30.0, 2.0])
    assert r.median == 10.0 and r.flagged is False
    wide = harness.Ratio.of([5.0, 10.0, 20.0])
    assert wide.spread == pytest.approx((15.0 - 7.5) / 20.0) and wide.flagged
    assert harness.consistent(harness.Ratio(10, 9, 11), harness.Ratio(10.5, 10, 12))
    assert not harness.consistent(harness.Ratio(10, 9.5, 10.5), harness.Ratio(20, 19, 21))


def test_compare_and_register_validate():
    with pytest.raises(ValueError, match="rounds"):
        harness.compare(kernel, loop, rounds=0)
    with pytest.raises(ValueError, match="reference or a library"):
        harness.compare(kernel)
    with pytest.raises(ValueError, match="reference or a library"):
        register("00", "x", kernel=kernel)
    with pytest.raises(ValueError, match="library_name"):
        register("00", "x", kernel=kernel, library=loop)
    with pytest.raises(ValueError, match="decade"):
        register_scaling("00", "x", make=lambda n: kernel, sizes=(1, 2, 4), size_label="n")
    with pytest.raises(ValueError, match="increasing"):
        register_scaling("00", "x", make=lambda n: kernel, sizes=(10, 1, 100), size_label="n")


def test_scaling_curve_slopes():
    times, low, high = harness.scaling_curve(lambda n: lambda: np.ones(n).sum(), (10, 100, 1000))
    assert len(times) == 3 and np.isfinite([low, high]).all()
