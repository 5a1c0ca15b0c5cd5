"""α-PFN at toy scale (chapter 06): bar distributions, a 1-D GP prior, grouped Monte-Carlo
entropy search, the α-network and a batched Bayesian-optimisation loop.

The bar (Riemann) distribution implements :prf:ref:`alpha-pfn-def-bar` and its exact entropy
:prf:ref:`alpha-pfn-prop-bar-entropy`; the grouped estimator implements the entropy-search
acquisitions of :prf:ref:`alpha-pfn-def-es` (with the bias of :prf:ref:`alpha-pfn-lem-binning`);
the α-network is trained on the labels of :prf:ref:`alpha-pfn-def-alpha` with the NLL of
:prf:ref:`alpha-pfn-prop-nll`. Everything is batched over datasets and runs on any device.
The paper-scale variant adds a d-dimensional prior on random point sets with MES labels
(``prior_nd``), a d-dimensional α-network (``AlphaNet(dim=d)``) and BO on Branin and
Hartmann-3 (``benchmarks``).
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
from icml26.bayesopt.pfn.benchmarks import (
    BENCHMARKS,
    Benchmark,
    BOResult,
    alpha_policy,
    benchmark,
    bo_benchmark,
    gp_policy,
    random_policy,
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
from icml26.bayesopt.pfn.prior_nd import (
    TasksND,
    ard_rbf_kernel,
    check_context_nd,
    gp_posterior_nd,
    make_tasks_nd,
    mes_labels,
    sample_lengthscales,
    standardize_context,
)

__all__ = [
    "BENCHMARKS",
    "AlphaNet",
    "BOResult",
    "Benchmark",
    "Tasks",
    "TasksND",
    "alpha_policy",
    "ard_rbf_kernel",
    "bar_entropy",
    "bar_log_density",
    "bar_mean",
    "bar_nll",
    "benchmark",
    "bo_benchmark",
    "bo_loop",
    "check_context_nd",
    "equal_borders",
    "expected_improvement",
    "fixed_gp_model",
    "gp_policy",
    "gp_posterior",
    "gp_posterior_nd",
    "grouped_entropy_search",
    "make_tasks",
    "make_tasks_nd",
    "mes_labels",
    "mixture_entropy",
    "quantile_borders",
    "random_policy",
    "rbf_kernel",
    "sample_gp_prior",
    "sample_lengthscales",
    "sample_posterior",
    "standardize_context",
    "train_alpha_net",
    "truncated_gaussian_mes",
    "truncated_normal_entropy",
]
