"""icml26: the shared, tested kernels of *ICML 2026 in Code*.

Every chapter of the book imports from here. The core helpers are re-exported:

- :func:`seed_everything`, :func:`device`, :func:`scale`, :func:`pick` — reproducible runs
  that switch between the CPU-sized ``ci`` scale and the ``paper`` scale;
- :func:`claim` — the one-line, nbval-checked assertion of a paper's claim;
- :mod:`icml26.plotting` — the book's matplotlib style;
- :mod:`icml26.checks` — argument validation with clear ``ValueError`` messages, and
  :func:`icml26.checks.agree` for two implementations that must agree;
- :mod:`icml26.stats` — log-log fits, thread pinning, seeded streams.

Chapter kernels live in one subpackage per part of the book, one module per topic
(``icml26.retrieval.med`` for chapter 01, ...); :mod:`icml26.chapters` is the registry.
"""

from icml26 import checks, plotting, stats
from icml26.claims import claim, format_value
from icml26.runtime import device, pick, progress, scale, seed_everything

__all__ = [
    "checks",
    "claim",
    "device",
    "format_value",
    "pick",
    "plotting",
    "progress",
    "scale",
    "seed_everything",
    "stats",
]
__version__ = "0.1.0"
