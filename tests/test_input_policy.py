"""The input policy of the public API (CONTRIBUTING, "Inputs"), tested by generation.

Every public function of every module (its ``__all__``) is either given a valid example call
in :data:`EXAMPLES` or listed, with its module, in :data:`PENDING`; a new function that is in
neither fails :func:`test_every_public_function_is_covered`. From each example the test
derives bad calls: each floating array argument with a NaN, with an infinity, with a wrong
shape (an extra trailing axis) and with a wrong type (a string); each must raise
``ValueError`` whose message names the argument. Where a function documents another
behaviour (it propagates NaN, or it is batched over any trailing shape), :data:`ALLOWED`
says so, with the reason.
"""

from __future__ import annotations

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


def _subsets() -> torch.Tensor:
    from icml26.retrieval import med

    return med.all_subsets(5, 2)


#: A valid call of each covered function: ``name -> () -> (args, kwargs)``.
EXAMPLES: dict[str, Callable[[], tuple[tuple, dict]]] = {
    # retrieval.med (chapter 01)
    "icml26.retrieval.med.centroid_margins": lambda: ((_unit(), _subsets()), {}),
    "icml26.retrieval.med.centroid_queries": lambda: ((_unit(), _subsets()), {}),
    "icml26.retrieval.med.min_pair_centroid_margin": lambda: ((_unit(),), {}),
    "icml26.retrieval.med.subset_margins": lambda: (
        (_unit(), _unit(10, 4), _subsets()),
        {},
    ),
    "icml26.retrieval.med.recall_at_k": lambda: (
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
    # grpo (chapters 04, 14)
    "icml26.grpo.group_advantages": lambda: ((torch.rand(3, 4, generator=_g(), dtype=F64),), {}),
    # stats
    "icml26.stats.loglog_fit": lambda: (
        (np.array([1.0, 2.0, 4.0, 8.0]), np.array([1.0, 1.5, 2.2, 3.1])),
        {},
    ),
}

#: Elementwise kernels called at every step of a sampling loop propagate NaN and inf (their
#: docstrings say so) instead of synchronising with the host at each step.
_PROPAGATES = "propagates non-finite values (documented: a per-step kernel)"

#: Documented departures from a probe: ``(function, argument, probe) -> reason``.
ALLOWED: dict[tuple[str, str, str], str] = {
    ("icml26.generative.diffusion.add_noise", "x0", "shape"): "elementwise over any shape",
    ("icml26.generative.diffusion.add_noise", "noise", "shape"): "broadcasts like x0 + noise",
    ("icml26.generative.diffusion.ddim_step", "sample", "shape"): "elementwise over any shape",
    ("icml26.generative.diffusion.ddim_step", "model_output", "shape"): "broadcasts with sample",
    ("icml26.grpo.group_advantages", "rewards", "shape"): "groups along the last axis",
    ("icml26.retrieval.med.recall_at_k", "scores", "shape"): "batched over leading axes",
    ("icml26.games.zerosum.mwu", "A", "shape"): "a (3, 4, 1) payoff is a batch of three games",
    ("icml26.games.zerosum.duality_gap", "A", "shape"): "batched: the strategies' shapes fail",
    ("icml26.games.zerosum.worst_case_payoff", "A", "shape"): "batched: x's shape fails",
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
        "icml26.agents.beam",
        "icml26.agents.grounding",
        "icml26.agents.jit",
        "icml26.agents.polia",
        "icml26.agents.vla",
        "icml26.bayesopt.pfn",
        "icml26.dynamics.motion",
        "icml26.dynamics.sde",
        "icml26.dynamics.stacked",
        "icml26.dynamics.switching",
        "icml26.games.preferences",
        "icml26.generative.gaussian_twin",
        "icml26.generative.sceneworld",
        "icml26.generative.stacked_training",
        "icml26.generative.stego",
        "icml26.generative.unlearning",
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
        "icml26.sequential.bandits",
        "icml26.sequential.clarify",
        "icml26.sequential.critic",
        "icml26.sequential.critic_envs",
        "icml26.sequential.informativeness",
        "icml26.trust.adamw",
        "icml26.trust.debias",
        "icml26.trust.federated",
        "icml26.trust.pathkernel",
        "icml26.trust.shamir",
        "icml26.trust.watermark",
    }
)

#: Functions of covered modules that take no floating array, with what they take instead
#: (their integer, range and type checks have their own tests in the module's test file).
NO_ARRAY_INPUT = {
    "icml26.retrieval.med.all_subsets": "integers",
    "icml26.retrieval.med.eps_star": "integers",
    "icml26.retrieval.med.gaussian_unit": "integers and a generator",
    "icml26.retrieval.med.lp_margins": "embeddings, probed through centroid_margins",
    "icml26.retrieval.med.moment_curve": "integers, optional parameters",
    "icml26.retrieval.med.moment_curve_queries": "curve parameters, tested in test_med",
    "icml26.retrieval.med.optimize_margin": "integers and a generator",
    "icml26.retrieval.med.regular_simplex": "an integer",
    "icml26.retrieval.med.train_free_embeddings": "a boolean relevance matrix",
    "icml26.retrieval.med.trig_moment_curve": "integers",
    "icml26.retrieval.med.trig_moment_queries": "curve parameters, tested in test_med",
    "icml26.retrieval.limit.bm25_scores": "token lists",
    "icml26.retrieval.limit.bm25s_scores": "texts",
    "icml26.retrieval.limit.bm25s_stopwords": "nothing",
    "icml26.retrieval.limit.generate_limit": "integers and a seed",
    "icml26.retrieval.limit.load_mteb": "a folder (test_limit: file and line of each bad record)",
    "icml26.retrieval.limit.minilm_scores": "texts",
    "icml26.retrieval.limit.parse_mteb": "file texts (test_limit)",
    "icml26.retrieval.limit.token_sum_scores": "texts",
    "icml26.retrieval.limit.tokenize": "texts",
    "icml26.retrieval.limit.train_bow_encoder": "texts and a boolean relevance matrix",
    "icml26.retrieval.limit.vanilla_stopwords": "nothing",
    "icml26.retrieval.limit.write_limit": "a folder and texts",
    "icml26.sequential.hmm.align_states": "state means, probed through gaussian_loglik",
    "icml26.sequential.hmm.baum_welch": "observations and a start (test_hmm)",
    "icml26.sequential.hmm.baum_welch_categorical": "integer symbols",
    "icml26.sequential.hmm.categorical_loglik": "integer symbols",
    "icml26.sequential.hmm.doubling_epochs": "integers",
    "icml26.sequential.hmm.epoch_beliefs": "observations and a start (test_hmm)",
    "icml26.sequential.hmm.fit_contraction_rate": "distances (test_hmm)",
    "icml26.sequential.hmm.kmeans_init": "observations (test_hmm)",
    "icml26.sequential.hmm.permute_hmm": "a permutation",
    "icml26.sequential.hmm.simulate": "parameters, integers and a generator (test_hmm)",
    "icml26.sequential.hmm.simulate_categorical": "parameters, integers and a generator",
    "icml26.sequential.hmm.spectral_from_moments": "moments (test_hmm)",
    "icml26.sequential.hmm.spectral_hmm": "integer symbols",
    "icml26.sequential.hmm.spectral_moments": "integer symbols",
    "icml26.games.zerosum.budgeted_lp": "payoffs (test_zerosum)",
    "icml26.games.zerosum.budgeted_lp_batched": "payoffs (test_zerosum)",
    "icml26.games.zerosum.hoeffding_samples": "numbers",
    "icml26.games.zerosum.judge_estimate": "payoffs and a generator (test_zerosum)",
    "icml26.games.zerosum.max_helpfulness_lp": "payoffs (test_zerosum)",
    "icml26.games.zerosum.multiplier_game": "payoffs (test_zerosum)",
    "icml26.games.zerosum.mwu_gap_bound": "integers",
    "icml26.games.zerosum.payoff_matrix": "payoffs (test_zerosum)",
    "icml26.games.zerosum.probe": "a strategy and a generator",
    "icml26.games.zerosum.safety_game": "payoffs (test_zerosum)",
    "icml26.games.zerosum.simulate_benchmark": "integers and a generator",
    "icml26.games.zerosum.simulate_candidates": "integers and a generator",
    "icml26.games.zerosum.tensor_2d": "a validator itself",
    "icml26.games.zerosum.threshold_filter": "payoffs (test_zerosum)",
    "icml26.generative.diffusion.ddim_sample": "a model callable (test_diffusion)",
    "icml26.generative.diffusion.ddim_sigma": "schedule values (test_diffusion)",
    "icml26.generative.diffusion.ddim_timesteps": "integers",
    "icml26.generative.diffusion.linear_betas": "numbers",
    "icml26.generative.diffusion.previous_alpha": "a schedule and integers",
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
        floating = (isinstance(value, torch.Tensor) and value.is_floating_point()) or (
            isinstance(value, np.ndarray) and np.issubdtype(value.dtype, np.floating)
        )
        if not floating:
            continue
        variants = {
            "nan": _with(value, float("nan")),
            "inf": _with(value, float("inf")),
            "shape": value[..., None],
            "type": "not an array",
        }
        for probe, bad in variants.items():
            b = inspect.signature(fn).bind(*args, **kwargs)
            b.arguments[name] = bad
            out.append((name, probe, b.args, b.kwargs))
    return out


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
