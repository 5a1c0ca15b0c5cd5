"""ExPLAIND: AdamW training as an exact path-kernel machine, and the attributions it yields.

Implements, for chapter 18 (explaind), one step of the argument per module (every public name
is re-exported here, so ``pathkernel.decompose`` keeps working):

- :mod:`icml26.trust.pathkernel.trajectory` — float64 AdamW training that records every step,
  the update of :prf:ref:`explaind-lem-adamw`;
- :mod:`icml26.trust.pathkernel.features` — per-sample gradients with ``torch.func.vmap`` and
  the path-integrated test feature map of :prf:ref:`explaind-lem-step`;
- :mod:`icml26.trust.pathkernel.decomposition` — the exact decomposition of
  :prf:ref:`explaind-thm-kernel` into (step, parameter group, training example) contributions
  plus the weight-decay term, and the aggregations of :prf:ref:`explaind-def-influence`.

The models are those of :mod:`icml26.trust.flatmodels`.
"""

from __future__ import annotations

from icml26.trust.pathkernel.decomposition import (
    Decomposition,
    decompose,
    explaind_scores,
    prune_mask,
    step_influence,
)
from icml26.trust.pathkernel.features import gauss_legendre, per_sample_grads, test_features
from icml26.trust.pathkernel.trajectory import Trajectory, adamw_updates, train_adamw

__all__ = [
    "Decomposition",
    "Trajectory",
    "adamw_updates",
    "decompose",
    "explaind_scores",
    "gauss_legendre",
    "per_sample_grads",
    "prune_mask",
    "step_influence",
    "test_features",
    "train_adamw",
]
