"""Temper-then-tilt (T3) unlearning on exact densities (chapter 09, t3-unlearning).

The base model is the mixture ``p = (1 - γ) p_r + γ p_f`` of a retain distribution ``p_r`` and
a forget distribution ``p_f``; unlearning targets ``p_r``. Densities are tensors on a fixed
grid ``z`` (last axis), with any leading batch axes, so that whole (σ_f × T × classifier)
grids of configurations are computed in one vectorised pass. One concern per module (every
public name is re-exported here, so ``unlearning.error_grid`` keeps working):

- :mod:`icml26.generative.unlearning.densities` — exact densities and quadrature;
- :mod:`icml26.generative.unlearning.t3` — the retain-vs-forget posterior, the class-prior
  correction of :prf:ref:`t3-unlearning-prop-tilt`, the controlled classifier of
  :prf:ref:`t3-unlearning-lem-shrink` and the T3 estimator of :eq:`t3-unlearning-eq-t3`;
- :mod:`icml26.generative.unlearning.metrics` — the chapter's metrics;
- :mod:`icml26.generative.unlearning.classifier` — the learned logistic-RBF classifier;
- :mod:`icml26.generative.unlearning.sweep` — the metrics over a whole grid of
  configurations, sampling from a grid density, and the amplification exponent of
  :prf:ref:`t3-unlearning-thm-amplify` and :prf:ref:`t3-unlearning-thm-temper`.
"""

from __future__ import annotations

from icml26.generative.unlearning.classifier import (
    fit_logistic,
    predict_logistic,
    rbf_features,
    sample_mixture,
)
from icml26.generative.unlearning.densities import grid, mixture_pdf, normal_pdf, trapezoid
from icml26.generative.unlearning.metrics import (
    excess_loglik,
    excess_logloss,
    forget_error,
    kl_divergence,
    leaked_mass,
)
from icml26.generative.unlearning.sweep import error_grid, loglog_slope, sample_density
from icml26.generative.unlearning.t3 import (
    bayes_posterior,
    logit_shift,
    prior_correct,
    shrink,
    t3_density,
    train_posterior,
)

__all__ = [
    "bayes_posterior",
    "error_grid",
    "excess_loglik",
    "excess_logloss",
    "fit_logistic",
    "forget_error",
    "grid",
    "kl_divergence",
    "leaked_mass",
    "logit_shift",
    "loglog_slope",
    "mixture_pdf",
    "normal_pdf",
    "predict_logistic",
    "prior_correct",
    "rbf_features",
    "sample_density",
    "sample_mixture",
    "shrink",
    "t3_density",
    "train_posterior",
    "trapezoid",
]
