"""Chapter 01 (med): geometry of exact and robust top-k retrieval.

Kernels for the Minimal Embeddable Dimension chapter, one concern per module (every public
name is re-exported here, so ``med.all_subsets`` keeps working):

- :mod:`icml26.retrieval.med.constructions` — the moment curve and its squared-polynomial
  queries (:prf:ref:`med-lem-moment`), the unit-norm trigonometric moment curve, the regular
  simplex and the margin ceiling ``eps_star(m, k) = m / sqrt(k (m-1) (m-k))``
  (:prf:ref:`med-thm-ceiling`);
- :mod:`icml26.retrieval.med.margins` — score margins for batches of subsets, exact
  retrievability as a batched linear programme (HiGHS), and recall@k;
- :mod:`icml26.retrieval.med.optimisation` — gradient-based margin optimisation and the
  free-embedding InfoNCE protocol of Weller et al. (2025).

Conventions: ``X`` is an ``(m, d)`` tensor of object vectors (rows), ``subsets`` an ``(B, s)``
integer tensor of object indices (one subset per row, all of size ``s``), queries ``(B, d)``.
Every kernel accepts tensors on any device and returns tensors on that device, except the LP,
which runs in SciPy on the host by construction.
"""

from __future__ import annotations

from icml26.retrieval.med.constructions import (
    all_subsets,
    eps_star,
    gaussian_unit,
    moment_curve,
    moment_curve_queries,
    regular_simplex,
    trig_moment_curve,
    trig_moment_queries,
)
from icml26.retrieval.med.margins import (
    centroid_margins,
    centroid_queries,
    lp_margins,
    min_pair_centroid_margin,
    recall_at_k,
    subset_margins,
)
from icml26.retrieval.med.optimisation import optimize_margin, train_free_embeddings

__all__ = [
    "all_subsets",
    "centroid_margins",
    "centroid_queries",
    "eps_star",
    "gaussian_unit",
    "lp_margins",
    "min_pair_centroid_margin",
    "moment_curve",
    "moment_curve_queries",
    "optimize_margin",
    "recall_at_k",
    "regular_simplex",
    "subset_margins",
    "train_free_embeddings",
    "trig_moment_curve",
    "trig_moment_queries",
]
