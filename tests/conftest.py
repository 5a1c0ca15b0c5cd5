"""Test-suite settings: Hypothesis without per-example deadlines.

Hypothesis's default 200 ms deadline per example turns a loaded CI machine into failures that
say nothing about the code, so no test in ``make test`` depends on wall-clock time.
"""

from hypothesis import settings

settings.register_profile("book", deadline=None, print_blob=True)
settings.load_profile("book")
