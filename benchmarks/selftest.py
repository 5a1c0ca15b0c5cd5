"""The harness's own case: the same pure-Python work at two sizes, ten times apart.

No chapter names this module; ``tests/test_benchmarks.py`` times it through real worker
processes to show that ``make bench-check`` catches a kernel made 2× slower. Both sides are
Python loops, so a busy machine slows them alike (a microsecond-long NumPy call against a
Python loop would measure the machine's noise, not the harness).
"""

from benchmarks.registry import register


def _work(n: int) -> int:
    return sum(range(n))


register(
    "pure-Python sum, 20 000 terms against 200 000",
    kernel=lambda: _work(20_000),
    reference=lambda: _work(200_000),
)
