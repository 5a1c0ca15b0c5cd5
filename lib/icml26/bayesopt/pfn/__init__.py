"""α-PFN at toy scale (chapter 06): bar distributions, a 1-D GP prior, grouped Monte-Carlo
entropy search, the α-network and a batched Bayesian-optimisation loop.

The bar (Riemann) distribution implements :prf:ref:`alpha-pfn-def-bar` and its exact entropy
:prf:ref:`alpha-pfn-prop-bar-entropy`; the grouped estimator implements the entropy-search
acquisitions of :prf:ref:`alpha-pfn-def-es` (with the bias of :prf:ref:`alpha-pfn-lem-binning`);
the α-network is trained on the labels of :prf:ref:`alpha-pfn-def-alpha` with the NLL of
:prf:ref:`alpha-pfn-prop-nll`. Everything is batched over datasets and runs on any device.
"""

from __future__ import annotations

from icml26.bayesopt.pfn.bars import (
    bar_entropy,
    bar_log_density,
    bar_mean,
    bar_nll,
    equal_borders,
    quantile_borders,
)
from icml26.bayesopt.pfn.entropy import (
    expected_improvement,
    grouped_entropy_search,
    mixture_entropy,
    truncated_gaussian_mes,
    truncated_normal_entropy,
)
from icml26.bayesopt.pfn.gp import (
    Tasks,
    gp_posterior,
    make_tasks,
    rbf_kernel,
    sample_gp_prior,
    sample_posterior,
)
from icml26.bayesopt.pfn.network import AlphaNet, bo_loop, fixed_gp_model, train_alpha_net

__all__ = [
    "AlphaNet",
    "Tasks",
    "bar_entropy",
    "bar_log_density",
    "bar_mean",
    "bar_nll",
    "bo_loop",
    "equal_borders",
    "expected_improvement",
    "fixed_gp_model",
    "gp_posterior",
    "grouped_entropy_search",
    "make_tasks",
    "mixture_entropy",
    "quantile_borders",
    "rbf_kernel",
    "sample_gp_prior",
    "sample_posterior",
    "train_alpha_net",
    "truncated_gaussian_mes",
    "truncated_normal_entropy",
]
