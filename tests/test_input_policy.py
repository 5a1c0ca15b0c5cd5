"""The input policy of the public API (CONTRIBUTING, "Inputs"), tested by generation.

Every public function of every module (its ``__all__``) is given a valid example call in
:data:`EXAMPLES`, or is listed in :data:`NO_ARRAY_INPUT` (it takes no floating array), or its
module is still in :data:`PENDING_MODULES`; a new function that is in none of them fails
:func:`test_every_public_function_is_covered`. From each example the test derives bad calls:
each floating array argument (or the first tensor of a list of them) with a NaN, with an
infinity, with a wrong shape (an extra trailing axis) and with a wrong type (a string); each
must raise ``ValueError`` whose message names the argument. Where a function documents
another behaviour (it propagates NaN, or it is batched over any trailing shape),
:data:`ALLOWED` says so, with the reason.
"""

from __future__ import annotations

import functools
import importlib
import inspect
import pkgutil
import re
from collections.abc import Callable

import numpy as np
import pytest
import torch

import icml26

F64 = torch.float64


def _g(seed: int = 0) -> torch.Generator:
    return torch.Generator().manual_seed(seed)


def _stochastic(n: int = 3) -> torch.Tensor:
    P = torch.rand(n, n, generator=_g(1), dtype=F64) + 0.1
    return P / P.sum(1, keepdim=True)


def _unit(m: int = 5, d: int = 4) -> torch.Tensor:
    X = torch.randn(m, d, generator=_g(2), dtype=F64)
    return X / X.norm(dim=1, keepdim=True)


def _hmm() -> tuple[torch.Tensor, ...]:
    return (
        _stochastic(),
        torch.full((3,), 1 / 3, dtype=F64),
        torch.tensor([-1.0, 0.0, 1.0], dtype=F64),
        torch.full((3,), 0.5, dtype=F64),
    )


def _schedule():
    from icml26.agents.jit import Schedule

    return Schedule(np.array([0, 2, 4]), np.array([0]), 6)  # one task: prefix + 2 sub-tasks


def _subsets() -> torch.Tensor:
    from icml26.retrieval import med

    return med.all_subsets(5, 2)


def _params(seed: int = 3) -> list[torch.Tensor]:
    g = _g(seed)
    return [torch.randn(5, 3, generator=g, dtype=F64), torch.randn(3, generator=g, dtype=F64)]


def _adamw_state():
    from icml26.trust.adamw import AdamWState

    return AdamWState.zeros_like(_params())


def _mlp(seed: int = 0) -> list[torch.Tensor]:
    from icml26.trust.watermark import init_mlp

    return init_mlp((4, 5, 3), generator=_g(seed), dtype=F64)


def _digits(n: int = 8) -> tuple[torch.Tensor, torch.Tensor]:
    return torch.randn(n, 4, generator=_g(4), dtype=F64), torch.arange(n) % 3


def _debias() -> tuple[dict[str, torch.Tensor], torch.Tensor, torch.Tensor]:
    from icml26.trust import debias

    task = debias.make_task(_g())
    params = debias.init_classifier(task, 2, _g(1), d=4, hidden=5)
    tokens, labels = debias.sample_prompts(task, (2, 3), _g(2))
    return params, debias.bag(tokens, task.vocab), labels


@functools.cache
def _pk():
    """An MLP of chapter 18, its initial parameters, data and a two-step trajectory."""
    from icml26.trust import flatmodels
    from icml26.trust import pathkernel as pk

    model = flatmodels.mlp_model([2, 3, 2])
    theta0 = flatmodels.init_params(model.spec, generator=_g())
    x, y = torch.randn(6, 2, generator=_g(1), dtype=F64), torch.arange(6) % 2
    lrs = torch.full((2,), 0.01, dtype=F64)
    traj = pk.train_adamw(model, theta0, x, y, [torch.arange(4)] * 2, lrs)
    return model, theta0, x, y, traj


def _rewards() -> torch.Tensor:
    return torch.rand(2, 5, 4, generator=_g(5), dtype=F64)


def _boxes(n: int, seed: int = 0) -> torch.Tensor:
    lo = torch.rand(n, 2, generator=_g(seed), dtype=F64) * 0.5
    return torch.cat([lo, lo + 0.3], -1)


def _x(*shape: int, seed: int = 0) -> torch.Tensor:
    return torch.randn(*shape, generator=_g(seed), dtype=F64)


def _abar() -> torch.Tensor:
    from icml26.generative import diffusion

    return diffusion.alphas_cumprod(diffusion.linear_betas(20))


def _kde():
    from icml26.generative import stego

    return stego.kde_eps_model(_x(10, 3, seed=1), _abar(), 0.3)


def _z() -> torch.Tensor:
    return torch.linspace(-3.0, 3.0, 31, dtype=F64)


def _pdf(mean: float = 0.0, std: float = 1.0) -> torch.Tensor:
    return torch.exp(-0.5 * ((_z() - mean) / std) ** 2) / (std * (2 * np.pi) ** 0.5)


def _eta() -> torch.Tensor:
    return torch.sigmoid(_z())


#: A valid call of each covered function: ``name -> () -> (args, kwargs)``.
EXAMPLES: dict[str, Callable[[], tuple[tuple, dict]]] = {
    # retrieval.med (chapter 01)
    "icml26.retrieval.med.margins.centroid_margins": lambda: ((_unit(), _subsets()), {}),
    "icml26.retrieval.med.margins.centroid_queries": lambda: ((_unit(), _subsets()), {}),
    "icml26.retrieval.med.margins.min_pair_centroid_margin": lambda: ((_unit(),), {}),
    "icml26.retrieval.med.margins.subset_margins": lambda: (
        (_unit(), _unit(10, 4), _subsets()),
        {},
    ),
    "icml26.retrieval.med.margins.recall_at_k": lambda: (
        (torch.randn(4, 6, generator=_g(), dtype=F64), torch.rand(4, 6, generator=_g()) > 0.5, 2),
        {},
    ),
    # sequential.hmm (chapter 02)
    "icml26.sequential.hmm.forward_filter": lambda: (
        (torch.randn(2, 7, 3, generator=_g(), dtype=F64), _stochastic(), _hmm()[1]),
        {},
    ),
    "icml26.sequential.hmm.forward_backward": lambda: (
        (torch.randn(2, 7, 3, generator=_g(), dtype=F64), _stochastic(), _hmm()[1]),
        {},
    ),
    "icml26.sequential.hmm.gaussian_loglik": lambda: (
        (torch.randn(2, 7, 1, generator=_g(), dtype=F64), _hmm()[2][:, None], _hmm()[3][:, None]),
        {},
    ),
    "icml26.sequential.hmm.tv_distance": lambda: (
        (_stochastic()[0], _stochastic()[1]),
        {},
    ),
    "icml26.sequential.hmm.hilbert_distance": lambda: (
        (_stochastic()[0], _stochastic()[1]),
        {},
    ),
    "icml26.sequential.hmm.dobrushin_coefficient": lambda: ((_stochastic(),), {}),
    "icml26.sequential.hmm.birkhoff_coefficient": lambda: ((_stochastic(),), {}),
    "icml26.sequential.hmm.second_eigenvalue_modulus": lambda: ((_stochastic(),), {}),
    # games.zerosum (chapters 07, 08)
    "icml26.games.zerosum.minimax_lp": lambda: (
        (torch.randn(3, 4, generator=_g(), dtype=F64),),
        {},
    ),
    "icml26.games.zerosum.maximin_lp": lambda: (
        (torch.randn(3, 4, generator=_g(), dtype=F64),),
        {},
    ),
    "icml26.games.zerosum.mwu": lambda: ((torch.randn(3, 4, generator=_g(), dtype=F64), 50), {}),
    "icml26.games.zerosum.duality_gap": lambda: (
        (
            torch.randn(3, 4, generator=_g(), dtype=F64),
            torch.full((3,), 1 / 3, dtype=F64),
            torch.full((4,), 1 / 4, dtype=F64),
        ),
        {},
    ),
    "icml26.games.zerosum.worst_case_payoff": lambda: (
        (torch.randn(3, 4, generator=_g(), dtype=F64), torch.full((3,), 1 / 3, dtype=F64)),
        {},
    ),
    # generative.diffusion (chapters 10, 11)
    "icml26.generative.diffusion.alphas_cumprod": lambda: (
        (torch.linspace(1e-4, 0.02, 10, dtype=F64),),
        {},
    ),
    "icml26.generative.diffusion.add_noise": lambda: (
        (
            torch.randn(2, 4, generator=_g(), dtype=F64),
            torch.randn(2, 4, generator=_g(1), dtype=F64),
            0.5,
        ),
        {},
    ),
    "icml26.generative.diffusion.ddim_step": lambda: (
        (
            torch.randn(2, 4, generator=_g(), dtype=F64),
            torch.randn(2, 4, generator=_g(1), dtype=F64),
            0.5,
            0.7,
        ),
        {},
    ),
    "icml26.generative.diffusion.diffusers_scheduler": lambda: (
        (torch.linspace(0.01, 0.2, 10, dtype=F64), 5),
        {},
    ),
    # grpo (chapters 04, 14)
    "icml26.grpo.group_advantages": lambda: ((torch.rand(3, 4, generator=_g(), dtype=F64),), {}),
    # agents.jit (chapter 12)
    "icml26.agents.jit.latency.draw_latencies": lambda: (
        (np.array([0.5, 1.0]), np.array([0.3, 0.4]), np.array([0.0, 0.1]), (3,)),
        {"rng": np.random.default_rng(0)},
    ),
    "icml26.agents.jit.latency.fit_lognormal": lambda: ((np.array([0.5, 1.0, 2.0]),), {}),
    "icml26.agents.jit.planner.pass_at_k": lambda: ((np.array([0.1, 0.5]), 3), {}),
    "icml26.agents.jit.latency.strategy_latencies": lambda: (
        (np.ones((2, 3, 6)), _schedule(), np.array([0.1])),
        {"delta_h": 0.2},
    ),
    "icml26.agents.jit.latency.mc_strategy_means": lambda: (
        (np.ones(6), np.full(6, 0.3), np.zeros(6), _schedule(), np.array([0.1])),
        {"delta_h": 0.2, "draws": 4, "rng": np.random.default_rng(0)},
    ),
    # trust.adamw (chapters 17, 18)
    "icml26.trust.adamw.adamw_step": lambda: (
        (_params(), [torch.ones_like(p) for p in _params()], _adamw_state()),
        {"lr": 0.1},
    ),
    # trust.federated (chapter 17)
    "icml26.trust.federated.fedavg": lambda: (
        (*_digits(), torch.arange(8).view(2, 4), torch.ones(2, 4), _mlp()),
        {"rounds": 2, "lr": 0.01, "strength": 0.5, "key": _mlp(1)},
    ),
    "icml26.trust.federated.finetune": lambda: (
        (_mlp(), *_digits()),
        {"epochs": 1, "lr": 0.01, "batch_size": 4, "generator": _g()},
    ),
    # trust.debias (chapter 16)
    "icml26.trust.debias.bag": lambda: (
        (torch.tensor([[0, 3, -1]]), 5, torch.tensor([[0.5, 1.5, 1.0]], dtype=F64)),
        {},
    ),
    "icml26.trust.debias.forward": lambda: (_debias()[:2], {}),
    "icml26.trust.debias.accuracy": lambda: (_debias(), {}),
    "icml26.trust.debias.bias_variance": lambda: (
        (
            torch.randn(2, 3, 4, generator=_g(), dtype=F64),
            torch.randn(2, 3, 5, 4, generator=_g(1), dtype=F64),
        ),
        {},
    ),
    "icml26.trust.debias.relu_gaussian_gap": lambda: ((np.array([-1.0, 0.0, 2.0]), 0.5), {}),
    "icml26.trust.debias.cantelli_flip_bound": lambda: (
        (np.array([1.0, 0.5]), np.array([0.1, -0.2]), np.array([0.3, 0.4])),
        {},
    ),
    # trust.pathkernel (chapter 18)
    "icml26.trust.pathkernel.trajectory.train_adamw": lambda: (
        (*_pk()[:4], [torch.arange(4)] * 2, torch.full((2,), 0.01, dtype=F64)),
        {},
    ),
    "icml26.trust.pathkernel.features.per_sample_grads": lambda: (_pk()[:4], {}),
    "icml26.trust.pathkernel.features.test_features": lambda: (
        (_pk()[0], _pk()[4].thetas[0], _pk()[4].thetas[1], _pk()[2][:2], 2),
        {},
    ),
    "icml26.trust.pathkernel.decomposition.step_influence": lambda: (
        (_pk()[0], _pk()[4].thetas[0], _pk()[4].thetas[1], _pk()[4].grads[0], *_pk()[2:4]),
        {},
    ),
    "icml26.trust.pathkernel.decomposition.decompose": lambda: (
        (_pk()[0], _pk()[4], _pk()[2], _pk()[3], _pk()[2][:2]),
        {"nodes": 2},
    ),
    "icml26.trust.pathkernel.decomposition.explaind_scores": lambda: (
        (_pk()[0], _pk()[4], _pk()[2][:2]),
        {},
    ),
    "icml26.trust.pathkernel.decomposition.prune_mask": lambda: (
        (_pk()[1].abs(), _pk()[0].spec.weight_mask(), 0.5),
        {},
    ),
    # sequential.bandits (chapter 02)
    "icml26.sequential.bandits.block_features": lambda: (
        (torch.randn(2, 3, generator=_g(), dtype=F64), 4),
        {},
    ),
    "icml26.sequential.bandits.belief_features": lambda: ((_stochastic(),), {}),
    "icml26.sequential.bandits.context_features": lambda: (
        (torch.randn(2, 3, generator=_g(), dtype=F64),),
        {},
    ),
    "icml26.sequential.bandits.natural_features": lambda: (
        (_stochastic(), torch.randn(3, 2, generator=_g(), dtype=F64)),
        {},
    ),
    "icml26.sequential.bandits.oful_radius": lambda: (
        (torch.tensor([0.0, 1.5], dtype=F64),),
        {"sigma": 0.5, "lam": 1.0, "bound": 2.0, "delta": 0.05},
    ),
    "icml26.sequential.bandits.run_linucb": lambda: (
        (torch.randn(2, 5, 3, generator=_g(), dtype=F64), _rewards(), 4),
        {"sigma": torch.tensor([0.5, 1.0], dtype=F64), "bound": 2.0},
    ),
    "icml26.sequential.bandits.ridge_estimates": lambda: (
        (torch.randn(2, 5, 3, generator=_g(), dtype=F64), _rewards(), torch.ones(2, 5).long()),
        {},
    ),
    "icml26.sequential.bandits.oracle_actions": lambda: ((_rewards(),), {}),
    "icml26.sequential.bandits.regret": lambda: ((_rewards(), torch.ones(2, 5).long()), {}),
    "icml26.sequential.bandits.loglog_slope": lambda: (
        (torch.arange(1.0, 21.0, dtype=F64).sqrt().expand(3, 20), 2),
        {},
    ),
    # agents.polia (chapter 14)
    "icml26.agents.polia.box_iou": lambda: ((_boxes(3), _boxes(2)), {}),
    "icml26.agents.polia.confidence": lambda: ((_boxes(3), _boxes(3, 1)), {}),
    "icml26.agents.polia.greedy_match": lambda: (
        (torch.rand(2, 3, 4, generator=_g(), dtype=F64),),
        {},
    ),
    "icml26.agents.polia.intrinsic_advantages": lambda: (
        (
            torch.rand(2, 4, generator=_g(), dtype=F64),
            torch.tensor([[1, 1, 2, 0], [3, 3, 3, 1]]),
            torch.rand(2, 4, 2, generator=_g(1), dtype=F64),
            torch.rand(2, 4, 2, generator=_g(2)) > 0.5,
        ),
        {},
    ),
    # agents.beam (chapter 13)
    "icml26.agents.beam.search.prior_entropy": lambda: (
        (torch.rand(3, 4, generator=_g(), dtype=F64), torch.ones(3, 4, dtype=torch.bool)),
        {},
    ),
    "icml26.agents.beam.search.adaptive_weight": lambda: (
        (torch.tensor([0.0, 0.4, 1.0], dtype=F64),),
        {},
    ),
    "icml26.agents.beam.search.kendall_tau": lambda: (
        (
            torch.rand(3, 4, generator=_g(), dtype=F64),
            torch.rand(3, 4, generator=_g(1), dtype=F64),
            torch.ones(3, 4, dtype=torch.bool),
        ),
        {},
    ),
    # generative.stego (chapter 10)
    "icml26.generative.stego.kde.kde_posterior_mean": lambda: (
        (_x(2, 3), _x(10, 3, seed=1), 0.5, 0.3),
        {},
    ),
    "icml26.generative.stego.kde.kde_eps_model": lambda: ((_x(10, 3, seed=1), _abar(), 0.3), {}),
    "icml26.generative.stego.embedding.embedding_point": lambda: (
        (_kde(), _x(2, 3), _abar(), 4, 2, _x(2, 2, 3, seed=2)),
        {},
    ),
    "icml26.generative.stego.embedding.embedding_mean": lambda: (
        (_kde(), _x(2, 3), _abar(), 4, 2),
        {},
    ),
    "icml26.generative.stego.embedding.finish": lambda: ((_kde(), _x(2, 3), _abar(), 4, 2), {}),
    "icml26.generative.stego.embedding.invert_finish": lambda: (
        (_kde(), _x(2, 3), _abar(), 4, 2),
        {"tol": 1e-6},
    ),
    "icml26.generative.stego.embedding.invert_finish_rows": lambda: (
        (_kde(), _x(2, 3), _abar(), 4, 2),
        {"tol": 1e-6},
    ),
    "icml26.generative.stego.transmission.decoding_margin": lambda: (
        (_x(2, 3), _x(2, 3, seed=1), _x(2, 3, seed=2), _x(2, 3, seed=3) > 0),
        {},
    ),
    "icml26.generative.stego.embedding.embed_batch": lambda: (
        (
            _kde(),
            _x(2, 3),
            _abar(),
            4,
            2,
            _x(2, 2, 3, seed=2),
            _x(2, 3, seed=3),
            _x(2, 3, seed=4) > 0,
        ),
        {},
    ),
    "icml26.generative.stego.transmission.antipodal_noise": lambda: (
        (_x(2, 3) > 0, _x(2, 3, seed=1)),
        {},
    ),
    "icml26.generative.stego.transmission.independent_noise": lambda: (
        (_x(2, 3) > 0, _x(2, 3, seed=1), _x(2, 3, seed=2)),
        {},
    ),
    "icml26.generative.stego.transmission.quantise": lambda: ((_x(2, 3),), {}),
    "icml26.generative.stego.transmission.channel": lambda: ((_x(2, 3), 0.1), {"generator": _g()}),
    "icml26.generative.stego.transmission.nearest_hypothesis": lambda: (
        (_x(2, 3), _x(2, 3, seed=1), _x(2, 3, seed=2)),
        {},
    ),
    "icml26.generative.stego.transmission.ber_antipodal": lambda: (
        (np.array([0.0, 0.5, 2.0]),),
        {},
    ),
    "icml26.generative.stego.transmission.ber_independent": lambda: (
        (np.array([0.0, 0.5, 2.0]),),
        {},
    ),
    "icml26.generative.stego.embedding.iterative_recovery": lambda: (
        (torch.tanh, _x(2, 3), _x(2, 3, seed=1), 0.5, _x(2, 3, seed=2), _x(2, 3, seed=3) > 0),
        {"steps": 3},
    ),
    "icml26.generative.stego.codec.fit_latent_codec": lambda: (
        (_x(12, 5), 2),
        {"hidden": 4, "steps": 2, "generator": _g()},
    ),
    "icml26.generative.stego.steganalysis.median_residual": lambda: ((_x(3, 16).tanh(), 4), {}),
    "icml26.generative.stego.steganalysis.steganalyser_auc": lambda: (
        (_x(6, 64).tanh(), _x(6, 64, seed=1).tanh()),
        {"folds": 2},
    ),
    # generative.unlearning (chapter 09)
    "icml26.generative.unlearning.densities.trapezoid": lambda: ((_pdf(), _z()), {}),
    "icml26.generative.unlearning.densities.normal_pdf": lambda: ((_z(), 0.5, 1.0), {}),
    "icml26.generative.unlearning.densities.mixture_pdf": lambda: (
        (_z(), [0.0, 1.0], [1.0, 0.5], [0.3, 0.7]),
        {},
    ),
    "icml26.generative.unlearning.t3.train_posterior": lambda: ((_pdf(), _pdf(1, 0.3), 0.5), {}),
    "icml26.generative.unlearning.t3.bayes_posterior": lambda: ((_pdf(), _pdf(1, 0.3), 0.1), {}),
    "icml26.generative.unlearning.t3.prior_correct": lambda: ((_eta(), 0.1, 0.5), {}),
    "icml26.generative.unlearning.t3.shrink": lambda: ((_eta(), 0.2), {}),
    "icml26.generative.unlearning.t3.logit_shift": lambda: ((_eta(), 0.5), {}),
    "icml26.generative.unlearning.t3.t3_density": lambda: ((_z(), _pdf(), _eta(), 2.0), {}),
    "icml26.generative.unlearning.metrics.kl_divergence": lambda: ((_z(), _pdf(), _pdf(0.2)), {}),
    "icml26.generative.unlearning.metrics.forget_error": lambda: (
        (_z(), _pdf(1, 0.3), _pdf(0.2), _pdf()),
        {},
    ),
    "icml26.generative.unlearning.metrics.leaked_mass": lambda: ((_z(), _pdf(), 1.0, 0.5), {}),
    "icml26.generative.unlearning.metrics.excess_loglik": lambda: (
        (_z(), _pdf(1, 0.3), _pdf(0.2), _pdf()),
        {},
    ),
    "icml26.generative.unlearning.metrics.excess_logloss": lambda: (
        (_z(), _pdf(), _eta(), _eta().sqrt()),
        {},
    ),
    "icml26.generative.unlearning.classifier.rbf_features": lambda: (
        (_z(), torch.tensor([-1.0, 0.0, 1.0], dtype=F64), 0.5),
        {},
    ),
    "icml26.generative.unlearning.classifier.fit_logistic": lambda: (
        (_x(2, 8, 2), torch.arange(16).view(2, 8) % 2),
        {},
    ),
    "icml26.generative.unlearning.classifier.predict_logistic": lambda: (
        (_x(5, 2), _x(3, 3, seed=1)),
        {},
    ),
    "icml26.generative.unlearning.sweep.sample_density": lambda: (
        (_z(), _pdf(), 4),
        {"generator": _g()},
    ),
    "icml26.generative.unlearning.sweep.error_grid": lambda: (
        (
            _z(),
            _pdf(),
            torch.stack([_pdf(1, 0.3), _pdf(1, 0.5)]),
            0.1,
            torch.tensor([1.0, 2.0], dtype=F64),
            _eta().expand(3, 2, -1),
        ),
        {},
    ),
    "icml26.generative.unlearning.sweep.loglog_slope": lambda: (
        (np.array([1.0, 2.0, 4.0]), np.array([1.0, 1.5, 2.5])),
        {},
    ),
    # trust.shamir (chapter 17)
    "icml26.trust.shamir.encode": lambda: ((_x(2, 3), 16), {}),
    # trust.watermark (chapter 17)
    "icml26.trust.watermark.flatten": lambda: ((_mlp(),), {}),
    "icml26.trust.watermark.logits": lambda: ((_mlp(), _digits()[0]), {}),
    "icml26.trust.watermark.client_losses": lambda: (
        (_mlp(), _digits()[0].view(2, 4, 4), _digits()[1].view(2, 4), torch.ones(2, 4)),
        {},
    ),
    "icml26.trust.watermark.accuracy": lambda: ((_mlp(), *_digits()), {}),
    "icml26.trust.watermark.random_keys": lambda: ((_mlp(), (2,)), {"generator": _g()}),
    "icml26.trust.watermark.cosines": lambda: ((_mlp(), _mlp(1)), {}),
    "icml26.trust.watermark.detection_z": lambda: ((_mlp(), _mlp(1)), {"min_dim": 1}),
    "icml26.trust.watermark.sign_z": lambda: ((_mlp(), _mlp(1)), {}),
    # stats
    "icml26.stats.loglog_fit": lambda: (
        (np.array([1.0, 2.0, 4.0, 8.0]), np.array([1.0, 1.5, 2.2, 3.1])),
        {},
    ),
}

#: Kernels called at every step of a sampling or training loop propagate NaN and inf (their
#: docstrings say so) instead of synchronising with the host at each step.
_PROPAGATES = "propagates non-finite values (documented: a per-step kernel)"

#: Elementwise functions whose arguments broadcast against each other (documented).
_BROADCASTS = "elementwise; the arguments broadcast against each other (documented)"

#: Documented departures from a probe: ``(function, argument, probe) -> reason``.
ALLOWED: dict[tuple[str, str, str], str] = {
    ("icml26.agents.jit.planner.pass_at_k", "p", "shape"): "elementwise over any shape",
    ("icml26.generative.diffusion.add_noise", "x0", "shape"): "elementwise over any shape",
    ("icml26.generative.diffusion.add_noise", "noise", "shape"): "broadcasts like x0 + noise",
    ("icml26.generative.diffusion.ddim_step", "sample", "shape"): "elementwise over any shape",
    ("icml26.generative.diffusion.ddim_step", "model_output", "shape"): "broadcasts with sample",
    ("icml26.grpo.group_advantages", "rewards", "shape"): "groups along the last axis",
    ("icml26.retrieval.med.margins.recall_at_k", "scores", "shape"): "batched over leading axes",
    ("icml26.games.zerosum.mwu", "A", "shape"): "a (3, 4, 1) payoff is a batch of three games",
    ("icml26.games.zerosum.duality_gap", "A", "shape"): "batched: the strategies' shapes fail",
    ("icml26.games.zerosum.worst_case_payoff", "A", "shape"): "batched: x's shape fails",
    ("icml26.trust.debias.relu_gaussian_gap", "z", "shape"): "elementwise over any shape",
    ("icml26.trust.debias.cantelli_flip_bound", "margin", "shape"): _BROADCASTS,
    ("icml26.trust.debias.cantelli_flip_bound", "beta", "shape"): _BROADCASTS,
    ("icml26.trust.debias.cantelli_flip_bound", "sigma2", "shape"): _BROADCASTS,
    **{
        ("icml26.trust.pathkernel.decomposition.step_influence", arg, probe): _PROPAGATES
        for arg in ("theta", "theta_next", "grad_update", "x")
        for probe in ("nan", "inf")
    },
    ("icml26.sequential.bandits.block_features", "z", "shape"): "batched over leading axes",
    ("icml26.sequential.bandits.context_features", "x", "shape"): "batched over leading axes",
    ("icml26.sequential.bandits.oful_radius", "logdet_ratio", "shape"): "elementwise",
    ("icml26.agents.polia.greedy_match", "iou", "shape"): "batched over leading axes",
    ("icml26.agents.beam.search.adaptive_weight", "entropy", "shape"): "elementwise over any shape",
    **{
        ("icml26.generative.stego.embedding.finish", arg, probe): _PROPAGATES
        for arg in ("x", "abar")
        for probe in ("nan", "inf")
    },
    **{
        (f"icml26.generative.stego.embedding.{f}", "y", "shape"): "any shape the model takes; the "
        "model checks it (the KDE model's message names its input x)"
        for f in ("invert_finish", "invert_finish_rows")
    },
    **{
        (f"icml26.generative.unlearning.{f}", arg, "shape"): "elementwise over any shape"
        for f, arg in (
            ("densities.normal_pdf", "z"),
            ("densities.mixture_pdf", "z"),
            ("t3.prior_correct", "c"),
            ("t3.shrink", "eta"),
            ("t3.logit_shift", "eta"),
            ("classifier.rbf_features", "x"),
        )
    },
    ("icml26.generative.unlearning.sweep.loglog_slope", "x", "shape"): "flattened (documented)",
    ("icml26.generative.unlearning.sweep.loglog_slope", "y", "shape"): "flattened (documented)",
    ("icml26.trust.shamir.encode", "x", "shape"): "elementwise over any shape",
    **{
        (f"icml26.trust.watermark.{f}", arg, probe): _PROPAGATES
        for f, args in (("logits", ("params", "X")), ("client_losses", ("params", "X", "mask")))
        for arg in args
        for probe in ("nan", "inf")
    },
    ("icml26.trust.watermark.flatten", "params", "nan"): "a reshape: values pass through",
    ("icml26.trust.watermark.flatten", "params", "inf"): "a reshape: values pass through",
    ("icml26.trust.watermark.random_keys", "params_like", "nan"): "only its shapes are read",
    ("icml26.trust.watermark.random_keys", "params_like", "inf"): "only its shapes are read",
    ("icml26.generative.stego.transmission.quantise", "y", "shape"): "elementwise over any shape",
    ("icml26.generative.stego.transmission.channel", "y", "shape"): "elementwise over any shape",
    (
        "icml26.generative.stego.transmission.ber_antipodal",
        "tau_over_sigma",
        "shape",
    ): "elementwise",
    (
        "icml26.generative.stego.transmission.ber_independent",
        "tau_over_sigma",
        "shape",
    ): "elementwise",
    ("icml26.generative.diffusion.add_noise", "x0", "nan"): _PROPAGATES,
    ("icml26.generative.diffusion.add_noise", "x0", "inf"): _PROPAGATES,
    ("icml26.generative.diffusion.add_noise", "noise", "nan"): _PROPAGATES,
    ("icml26.generative.diffusion.add_noise", "noise", "inf"): _PROPAGATES,
    ("icml26.generative.diffusion.ddim_step", "sample", "nan"): _PROPAGATES,
    ("icml26.generative.diffusion.ddim_step", "sample", "inf"): _PROPAGATES,
    ("icml26.generative.diffusion.ddim_step", "model_output", "nan"): _PROPAGATES,
    ("icml26.generative.diffusion.ddim_step", "model_output", "inf"): _PROPAGATES,
}

#: Modules whose public functions have no example yet: the probes do not reach them.
PENDING_MODULES = frozenset(
    {
        "icml26.agents.vla",
        "icml26.agents.uncertainty",
        "icml26.agents.forkreach",
        "icml26.agents.tinyvla",
        "icml26.agents.decoding",
        "icml26.bayesopt.pfn.bars",
        "icml26.bayesopt.pfn.entropy",
        "icml26.bayesopt.pfn.gp",
        "icml26.bayesopt.pfn.network",
        "icml26.dynamics.animal",
        "icml26.dynamics.motion",
        "icml26.dynamics.sde",
        "icml26.dynamics.stacked",
        "icml26.dynamics.switching",
        "icml26.games.preferences.heads",
        "icml26.games.preferences.selfplay",
        "icml26.games.preferences.training",
        "icml26.generative.gaussian_twin",
        "icml26.generative.sceneworld",
        "icml26.generative.stacked_training",
        "icml26.neuro.attention",
        "icml26.neuro.connectivity",
        "icml26.neuro.eeg",
        "icml26.neuro.encoder",
        "icml26.neuro.montage",
        "icml26.neuro.partition",
        "icml26.neuro.pretrain",
        "icml26.neuro.probe",
        "icml26.neuro.simulate",
        "icml26.sequential.a2c",
        "icml26.sequential.clarify.policies",
        "icml26.sequential.clarify.training",
        "icml26.sequential.clarify.world",
        "icml26.sequential.critic",
        "icml26.sequential.critic_envs",
        "icml26.sequential.informativeness",
    }
)

#: Functions of covered modules that take no floating array, with what they take instead
#: (their integer, range and type checks have their own tests in the module's test file).
NO_ARRAY_INPUT = {
    "icml26.retrieval.med.constructions.all_subsets": "integers",
    "icml26.retrieval.med.constructions.eps_star": "integers",
    "icml26.retrieval.med.constructions.gaussian_unit": "integers and a generator",
    "icml26.retrieval.med.margins.lp_margins": "embeddings, probed through centroid_margins",
    "icml26.retrieval.med.constructions.moment_curve": "integers, optional parameters",
    "icml26.retrieval.med.constructions.moment_curve_queries": "curve parameters (test_med)",
    "icml26.retrieval.med.optimisation.optimize_margin": "integers and a generator",
    "icml26.retrieval.med.constructions.regular_simplex": "an integer",
    "icml26.retrieval.med.optimisation.train_free_embeddings": "a boolean relevance matrix",
    "icml26.retrieval.med.constructions.trig_moment_curve": "integers",
    "icml26.retrieval.med.constructions.trig_moment_queries": "curve parameters (test_med)",
    "icml26.retrieval.retrievers.bm25_scores": "token lists",
    "icml26.retrieval.retrievers.bm25s_scores": "texts",
    "icml26.retrieval.retrievers.bm25s_stopwords": "nothing",
    "icml26.retrieval.limit.generate_limit": "integers and a seed",
    "icml26.retrieval.limit.load_mteb": "a folder (test_limit: file and line of each bad record)",
    "icml26.retrieval.retrievers.minilm_scores": "texts",
    "icml26.retrieval.limit.parse_mteb": "file texts (test_limit)",
    "icml26.retrieval.retrievers.token_sum_scores": "texts",
    "icml26.retrieval.retrievers.tokenize": "texts",
    "icml26.retrieval.retrievers.train_bow_encoder": "texts and a boolean relevance matrix",
    "icml26.retrieval.retrievers.vanilla_stopwords": "nothing",
    "icml26.retrieval.limit.write_limit": "a folder and texts",
    "icml26.sequential.hmm.align_states": "state means, probed through gaussian_loglik",
    "icml26.sequential.hmm.baum_welch": "observations and a start (test_hmm)",
    "icml26.sequential.categorical.baum_welch_categorical": "integer symbols",
    "icml26.sequential.categorical.categorical_loglik": "integer symbols",
    "icml26.sequential.hmm.doubling_epochs": "integers",
    "icml26.sequential.hmm.epoch_beliefs": "observations and a start (test_hmm)",
    "icml26.sequential.hmm.fit_contraction_rate": "distances (test_hmm)",
    "icml26.sequential.hmm.kmeans_init": "observations (test_hmm)",
    "icml26.sequential.hmm.permute_hmm": "a permutation",
    "icml26.sequential.hmm.simulate": "parameters, integers and a generator (test_hmm)",
    "icml26.sequential.categorical.simulate_categorical": "parameters, integers and a generator",
    "icml26.sequential.categorical.spectral_from_moments": "moments (test_hmm)",
    "icml26.sequential.categorical.spectral_hmm": "integer symbols",
    "icml26.sequential.categorical.spectral_moments": "integer symbols",
    "icml26.games.budgeted.budgeted_lp": "payoffs (test_zerosum)",
    "icml26.games.budgeted.budgeted_lp_batched": "payoffs (test_zerosum)",
    "icml26.games.zerosum.hoeffding_samples": "numbers",
    "icml26.games.zerosum.judge_estimate": "payoffs and a generator (test_zerosum)",
    "icml26.games.zerosum.max_helpfulness_lp": "payoffs (test_zerosum)",
    "icml26.games.zerosum.multiplier_game": "payoffs (test_zerosum)",
    "icml26.games.zerosum.mwu_gap_bound": "integers",
    "icml26.games.zerosum.payoff_matrix": "payoffs (test_zerosum)",
    "icml26.games.budgeted.probe": "a strategy and a generator",
    "icml26.games.budgeted.safety_game": "payoffs (test_zerosum)",
    "icml26.games.zerosum.simulate_benchmark": "integers and a generator",
    "icml26.games.budgeted.simulate_candidates": "integers and a generator",
    "icml26.games.budgeted.tensor_2d": "a validator itself",
    "icml26.games.budgeted.threshold_filter": "payoffs (test_zerosum)",
    "icml26.generative.diffusion.ddim_sample": "a model callable (test_diffusion)",
    "icml26.generative.diffusion.ddim_sigma": "schedule values (test_diffusion)",
    "icml26.generative.diffusion.ddim_timesteps": "integers",
    "icml26.generative.diffusion.linear_betas": "numbers",
    "icml26.generative.diffusion.previous_alpha": "a schedule and integers",
    "icml26.agents.jit.tools.shop_manifest": "nothing",
    "icml26.agents.jit.tools.loosen": "a manifest and tool names (test_jit)",
    "icml26.agents.jit.plans.parse_plan": "plan source code (test_jit)",
    "icml26.agents.jit.plans.render_plan": "a plan (test_jit)",
    "icml26.agents.jit.plans.nesting_depths": "a plan (test_jit)",
    "icml26.agents.jit.plans.check_plan": "a plan, a manifest and facts (test_jit)",
    "icml26.agents.jit.execution.run_plan": "a plan and an integer (test_jit)",
    "icml26.agents.jit.execution.plan_cost": "a plan, a manifest and numbers (test_jit)",
    "icml26.agents.jit.planner.sample_draft": "a plan, numbers and a generator (test_jit)",
    "icml26.agents.jit.planner.repair": "a draft, a number and a generator (test_jit)",
    "icml26.agents.jit.planner.valid_probability": "numbers (test_jit)",
    "icml26.agents.jit.planner.amdahl_bound": "a number (test_jit)",
    "icml26.agents.jit.latency.order_statistic_means": "numbers (test_jit)",
    "icml26.agents.jit.latency.random_schedule": "integers, numbers and a generator (test_jit)",
    "icml26.trust.federated.digits_data": "numbers (test_federated)",
    "icml26.trust.federated.dirichlet_partition": "integer labels and a generator",
    "icml26.trust.federated.iid_partition": "integers and a generator",
    "icml26.trust.federated.pad_shards": "index arrays (test_federated)",
    "icml26.trust.debias.bias_parameter_names": "nothing",
    "icml26.trust.debias.clopper_pearson_lower": "integer counts (test_debias)",
    "icml26.trust.debias.init_classifier": "a task, integers and a generator (test_debias)",
    "icml26.trust.debias.make_task": "a generator (test_debias)",
    "icml26.trust.debias.perturb_interacting": "integer tokens (test_debias)",
    "icml26.trust.debias.perturb_neutral": "integer tokens (test_debias)",
    "icml26.trust.debias.sample_prompts": "a task, a shape and a generator (test_debias)",
    "icml26.trust.debias.train": "a parameter dict and a batch callable (test_debias)",
    "icml26.trust.pathkernel.trajectory.adamw_updates": "a recorded trajectory (test_pathkernel)",
    "icml26.trust.pathkernel.features.gauss_legendre": "an integer",
    "icml26.trust.flatmodels.init_params": "a parameter spec and a generator",
    "icml26.trust.flatmodels.mlp_model": "integers (test_pathkernel)",
    "icml26.trust.flatmodels.modadd_data": "integers and a generator (test_pathkernel)",
    "icml26.trust.flatmodels.modadd_mlp_model": "integers (test_pathkernel)",
    "icml26.trust.flatmodels.modadd_model": "integers (test_pathkernel)",
    "icml26.sequential.bandits.epoch_refresh": "integers and a growth ratio (test_bandits)",
    "icml26.agents.grounding.methods.advantages": "a Rollout and methods (test_polia)",
    "icml26.agents.grounding.policy.rollout": "a Policy, Scenes and a generator (test_polia)",
    "icml26.agents.grounding.policy.sample_scenes": "a shape, an integer and a generator",
    "icml26.agents.grounding.training.train": "names and numbers (test_polia)",
    "icml26.agents.polia.evidence_keys": "integer matches (test_polia)",
    "icml26.agents.beam.world.action_values": "boolean hole maps (test_beam)",
    "icml26.agents.beam.search.beam_search": "a World, built checked by make_world (test_beam)",
    "icml26.agents.beam.world.goal_distance": "boolean hole maps (test_beam)",
    "icml26.agents.beam.search.greedy": "a World, built checked by make_world (test_beam)",
    "icml26.agents.beam.world.grid_moves": "an integer",
    "icml26.agents.beam.world.make_world": "boolean hole maps and numbers (test_beam)",
    "icml26.agents.beam.world.manhattan_progress": "an integer",
    "icml26.agents.beam.world.random_maps": "integers and numbers (test_beam)",
    "icml26.agents.beam.search.sft_features": "a World (test_beam)",
    "icml26.generative.stego.kde.digits_pm1": "a dtype",
    "icml26.generative.unlearning.densities.grid": "numbers (test_unlearning)",
    "icml26.generative.unlearning.classifier.sample_mixture": "integers, a generator",
    "icml26.trust.shamir.addmod": "int64 field elements (test_shamir)",
    "icml26.trust.shamir.combine": "int64 field elements and integer points (test_shamir)",
    "icml26.trust.shamir.decode": "int64 field elements (test_shamir)",
    "icml26.trust.shamir.inner_products": "int64 field elements (test_shamir)",
    "icml26.trust.shamir.is_prime": "an integer",
    "icml26.trust.shamir.lagrange_at_zero": "integer points (test_shamir)",
    "icml26.trust.shamir.mulmod": "int64 field elements (test_shamir)",
    "icml26.trust.shamir.random_elements": "a shape and a generator (test_shamir)",
    "icml26.trust.shamir.split": "int64 field elements and integers (test_shamir)",
    "icml26.trust.shamir.summod": "int64 field elements (test_shamir)",
    "icml26.trust.watermark.init_mlp": "integers and a generator (test_watermark)",
    "icml26.trust.watermark.null_sigma": "integers (test_watermark)",
    "icml26.stats.one_thread": "a function (a decorator)",
    "icml26.stats.stream": "integers (test_stats)",
}

#: The core's infrastructure: validators, configuration, claims, plotting.
CORE = ("icml26.checks", "icml26.runtime", "icml26.claims", "icml26.plotting", "icml26.chapters")


def public_functions() -> dict[str, Callable]:
    """Every function named in a public module's ``__all__`` and defined there."""
    out = {}
    for info in pkgutil.walk_packages(icml26.__path__, "icml26."):
        if info.name.startswith("icml26.pipeline"):
            continue
        module = importlib.import_module(info.name)
        for name in getattr(module, "__all__", []):
            obj = getattr(module, name, None)
            if inspect.isfunction(obj) and obj.__module__ == info.name:
                out[f"{info.name}.{name}"] = obj
    return out


def _module(qualname: str) -> str:
    return qualname.rsplit(".", 1)[0]


def test_every_public_function_is_covered():
    """A public function is probed, or takes no array, or sits in a module still pending."""
    missing = [
        f
        for f in public_functions()
        if f not in EXAMPLES
        and f not in NO_ARRAY_INPUT
        and _module(f) not in PENDING_MODULES
        and _module(f) not in CORE
    ]
    assert not missing, f"public functions without an input-policy example: {missing}"
    stale = [f for f in [*EXAMPLES, *NO_ARRAY_INPUT] if f not in public_functions()]
    assert not stale, f"examples for functions that no longer exist: {stale}"


def _probes(qualname: str) -> list[tuple[str, str, tuple, dict]]:
    """(argument, probe, args, kwargs) for every floating array argument of the example."""
    fn = public_functions()[qualname]
    args, kwargs = EXAMPLES[qualname]()
    bound = inspect.signature(fn).bind(*args, **kwargs)
    out = []
    for name, value in bound.arguments.items():
        if _floating(value):
            variants = {
                "nan": _with(value, float("nan")),
                "inf": _with(value, float("inf")),
                "shape": value[..., None],
                "type": "not an array",
            }
        elif isinstance(value, list | tuple) and value and all(map(_floating, value)):
            # A list of tensors (a model's parameters): its first tensor is probed.
            variants = {
                "nan": [_with(value[0], float("nan")), *value[1:]],
                "inf": [_with(value[0], float("inf")), *value[1:]],
                "shape": [value[0][..., None], *value[1:]],
                "type": "not an array",
            }
        else:
            continue
        for probe, bad in variants.items():
            b = inspect.signature(fn).bind(*args, **kwargs)
            b.arguments[name] = bad
            out.append((name, probe, b.args, b.kwargs))
    return out


def _floating(value) -> bool:
    return (isinstance(value, torch.Tensor) and value.is_floating_point()) or (
        isinstance(value, np.ndarray) and np.issubdtype(value.dtype, np.floating)
    )


def _with(value, x: float):
    bad = value.clone() if isinstance(value, torch.Tensor) else value.copy()
    bad.reshape(-1)[0] = x
    return bad


CASES = [
    (f, arg, probe, a, k)
    for f in sorted(EXAMPLES)
    for arg, probe, a, k in _probes(f)
    if (f, arg, probe) not in ALLOWED
]


def test_examples_are_valid_calls():
    """Each example runs: the probes below change one argument of a call that works."""
    for qualname, example in EXAMPLES.items():
        args, kwargs = example()
        public_functions()[qualname](*args, **kwargs)


@pytest.mark.parametrize(
    ("qualname", "arg", "probe", "args", "kwargs"),
    CASES,
    ids=[f"{f.removeprefix('icml26.')}-{arg}-{probe}" for f, arg, probe, _, _ in CASES],
)
def test_bad_input_raises_a_value_error_naming_the_argument(qualname, arg, probe, args, kwargs):
    fn = public_functions()[qualname]
    with pytest.raises(ValueError, match=rf"\b{re.escape(arg)}\b"):
        fn(*args, **kwargs)


def test_allowed_departures_are_real():
    """Each allowed departure names an argument the example really passes."""
    for (qualname, arg, probe), reason in ALLOWED.items():
        assert reason and probe in {"nan", "inf", "shape", "type"}
        assert arg in {a for a, *_ in _probes(qualname)}, (qualname, arg)
