"""The input policy of the public API (CONTRIBUTING, "Inputs"), tested by generation.

Every public function of every module (its ``__all__``) is given a valid example call in
:data:`EXAMPLES`, or is listed in :data:`NO_ARRAY_INPUT` (it takes no floating array); a new
function that is in neither fails :func:`test_every_public_function_is_covered`. From each
example the test derives bad calls: each floating array argument (or the first tensor of a
list of them) with a NaN, with an infinity, with a wrong shape (an extra trailing axis) and
with a wrong type (a string); each must raise ``ValueError`` whose message names the
argument. Where a function documents another behaviour (it propagates NaN, or it is batched
over any trailing shape), :data:`ALLOWED` says so, with the reason.
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


def _fork():
    from icml26.agents import forkreach

    cfg = forkreach.ForkReach(img=8, horizon=3)
    return cfg, forkreach.reset(cfg, 2, _g())


@functools.cache
def _tinyvla():
    from icml26.agents import tinyvla

    torch.manual_seed(0)
    return tinyvla.TinyVLA(_fork()[0], d=4, heads=1, depth=1, patch=4, dtype=F64)


def _borders() -> torch.Tensor:
    return torch.linspace(-1.0, 1.0, 5, dtype=F64)


def _ctx() -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    mask = torch.tensor([[True, True, False], [True, False, False]])
    return torch.rand(2, 3, generator=_g(), dtype=F64), _x(2, 3, seed=1), mask


@functools.cache
def _alpha_net():
    from icml26.bayesopt.pfn.network import AlphaNet

    torch.manual_seed(0)
    return AlphaNet(4, pair_width=3, head_width=3).double()


def _ctx_nd() -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    mask = torch.tensor([[True, True, False], [True, False, False]])
    return torch.rand(2, 3, 2, generator=_g(), dtype=F64), _x(2, 3, seed=1), mask


def _ls_nd() -> torch.Tensor:
    return torch.tensor([[0.3, 0.5], [0.4, 0.2]], dtype=F64)


@functools.cache
def _alpha_net_nd():
    from icml26.bayesopt.pfn.network import AlphaNet

    torch.manual_seed(0)
    return AlphaNet(4, pair_width=3, head_width=3, dim=2).double()


def _linear_model():
    """A drift ``-z`` and a constant diagonal diffusion (what dissipativity_residual reads)."""
    from types import SimpleNamespace

    return SimpleNamespace(drift=lambda z, v: -z, diffusion=lambda z: torch.full_like(z, 0.1))


def _skew(n: int = 3, seed: int = 0) -> torch.Tensor:
    A = _x(n, n, seed=seed)
    return A - A.T


def _preference(n: int = 3) -> torch.Tensor:
    return torch.sigmoid(_skew(n))


@functools.cache
def _eeg_data():
    """A 32-channel montage, its anatomical regions, five sources and four windows."""
    from icml26.neuro import eeg

    names, pos = eeg.montage("biosemi32")
    ctr = eeg.separated_centres(5, 0.08, np.random.default_rng(1), z_min=pos[:, 2].min())
    return (
        names,
        pos,
        eeg.anatomical_regions(names, pos),
        ctr,
        eeg.simulate_eeg(pos, ctr, 1, 4, seed=0),
    )


def _eeg():
    """Montage, regions, sources, windows ``(4, 32, 128)``, their patches, a small encoder."""
    from icml26.neuro import eeg

    _, pos, anat, ctr, d = _eeg_data()
    torch.manual_seed(0)
    return (
        pos.copy(),
        anat.copy(),
        ctr.copy(),
        d,
        eeg.patchify(d.x, 16),
        eeg.RectorEncoder(16, 8, d=8),
    )


def _enc_args() -> tuple:
    """An encoder, patches, positions and regions: the arguments of ``encode``."""
    pos, anat, _, _, x, enc = _eeg()
    return enc, x, pos, anat


def _views(B: int = 4) -> tuple[torch.Tensor, torch.Tensor]:
    from icml26.neuro import eeg

    g = _g()
    return tuple(eeg.structured_mask(B, _eeg()[1], 8, ("time",), g) for _ in range(2))


def _heads():
    from torch import nn

    return nn.ModuleDict({"decoder": nn.Linear(8, 16), "project": nn.Linear(8, 8)})


def _qkv4(*shape: int) -> tuple[torch.Tensor, ...]:
    return tuple(_x(*shape, seed=s) for s in range(3))


@functools.cache
def _enumeration():
    """The audit POMDP of chapter 03 at horizon 2, enumerated, and a uniform policy's logits."""
    from icml26.sequential import critic

    p0, T, O, R = critic.audit_pomdp(horizon=2)
    sig = torch.tensor([[0.8, 0.2], [0.2, 0.8]], dtype=F64).expand(2, 2, 2).clone()
    E = critic.enumerate_pomdp(p0, T, O, sig, R, 2)
    return (p0, T, O, sig, R), E, torch.zeros(E.n_logits, dtype=F64)


def _clarify():
    """A retail world of four goals (two attributes of two values), tasks and their beliefs."""
    from icml26.sequential.clarify import world

    env = world.make_env(2, 2, 0.1, generator=_g())
    tasks = world.sample_tasks(env, 3, revealed=(0, 1), generator=_g(1))
    return env, tasks, world.initial_belief(env, tasks)


def _a2c() -> dict:
    """Two critics (no signal, one feature) of one seed on a small aliased POMDP: the
    environment, maps, models, a fresh rollout, a segment's draws and an optimizer."""
    from icml26.sequential import a2c, critic_envs

    g = _g()
    env = critic_envs.aliased_pomdp(n_groups=2, group_size=2, n_actions=2, horizon=5, generator=g)
    signals = [a2c.Signal("none"), a2c.Signal("s", (0,))]
    sel, noise = a2c.signal_maps(signals, env.privileged_dim, 1, F64)
    dz = 3 * (env.obs_dim + env.n_actions + 1) + 1
    models = a2c.init_models(2, 1, dz, sel.shape[-1], env.n_actions, 4, generator=g)
    u = torch.rand(2, 3, env.reset_uniforms, generator=g, dtype=F64)
    return {
        "env": env,
        "maps": (sel, noise),
        "models": models,
        "u": u,
        "ro": a2c.start(env, 2, 3, 3, u),
        "draws": a2c.draw_segment(env, 2, 1, 2, 3, sel.shape[-1], generator=g),
        "optimizer": torch.optim.Adam(models.actor + models.critic),
        "x": _x(2, 5, dz),
    }


def _backbone():
    """A two-member stacked backbone of chapter 11, a pool of latents and a schedule."""
    from icml26.generative import stacked_nets, stacked_training

    torch.manual_seed(0)
    zs = _x(6, 4).float()
    pool = stacked_training.Pool.stack([[(zs, zs.flip(-1), 0, 1)], [(zs, -zs, 1, 0)]])
    abar = torch.linspace(0.99, 0.05, 5, dtype=torch.float32)
    return stacked_nets.FilmBackbone(2, 4, 8, 5), pool, abar


def _dit():
    """A tiny DiT backbone of chapter 11, a pool of latents and a schedule."""
    from icml26.generative import vae_dit

    torch.manual_seed(0)
    zs = _x(6, 2, 4, 4).float()
    pool = (zs, zs.flip(-1), torch.arange(6) % 5, (torch.arange(6) + 1) % 5)
    abar = torch.linspace(0.99, 0.05, 5, dtype=torch.float32)
    model = vae_dit.DiTBackbone(latent=2, grid=4, width=8, depth=1, heads=2, timesteps=5)
    return model, pool, abar


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
    # agents.uncertainty, forkreach, tinyvla (chapter 15)
    "icml26.agents.uncertainty.self_uncertainty": lambda: ((_x(3, 5),), {}),
    "icml26.agents.uncertainty.uncertainty_closed_form": lambda: (
        (torch.tensor([0.2, 0.9], dtype=F64),),
        {"k": 4},
    ),
    "icml26.agents.uncertainty.action_temperature": lambda: ((_x(3, 2),), {}),
    "icml26.agents.uncertainty.attention_temperature": lambda: ((_x(3),), {}),
    "icml26.agents.uncertainty.sample_tokens": lambda: (
        (_x(3, 5), torch.tensor([0.5, 1.0, 0.0], dtype=F64), _g()),
        {},
    ),
    "icml26.agents.forkreach.step": lambda: ((*_fork(), _x(2, 2) * 0.01), {}),
    "icml26.agents.forkreach.tokenize": lambda: ((_fork()[0], _x(2, 2) * 0.01), {}),
    "icml26.agents.tinyvla.attention_entropy": lambda: (
        (_tinyvla(), torch.rand(2, 3, 8, 8, generator=_g(), dtype=F64), 1.5),
        {},
    ),
    # bayesopt.pfn (chapter 06)
    "icml26.bayesopt.pfn.bars.quantile_borders": lambda: ((_x(20), 4), {}),
    "icml26.bayesopt.pfn.bars.bar_log_density": lambda: (
        (_borders(), _x(3, 4), torch.tensor([-0.5, 0.0, 0.9], dtype=F64)),
        {},
    ),
    "icml26.bayesopt.pfn.bars.bar_nll": lambda: (
        (_borders(), _x(3, 4), torch.tensor([-0.5, 0.0, 0.9], dtype=F64)),
        {"full_support": True},
    ),
    "icml26.bayesopt.pfn.bars.bar_mean": lambda: ((_borders(), _x(3, 4)), {}),
    "icml26.bayesopt.pfn.bars.bar_entropy": lambda: ((_borders(), _x(3, 4)), {}),
    "icml26.bayesopt.pfn.gp.rbf_kernel": lambda: ((_x(3), _x(4, seed=1), 0.5, 1.0), {}),
    "icml26.bayesopt.pfn.gp.sample_gp_prior": lambda: (
        (torch.linspace(0, 1, 5, dtype=F64), 2, 0.3, 1.0),
        {"generator": _g()},
    ),
    "icml26.bayesopt.pfn.gp.make_tasks": lambda: (
        (torch.linspace(0, 1, 5, dtype=F64), 2, (1, 3), 0.3, 1.0, 0.1),
        {"generator": _g()},
    ),
    "icml26.bayesopt.pfn.gp.gp_posterior": lambda: (
        (*_ctx(), torch.linspace(0, 1, 5, dtype=F64), 0.3, 1.0, 0.1),
        {},
    ),
    "icml26.bayesopt.pfn.gp.sample_posterior": lambda: (
        (_x(2, 3), torch.eye(3, dtype=F64).expand(2, 3, 3), 4),
        {"generator": _g()},
    ),
    "icml26.bayesopt.pfn.entropy.mixture_entropy": lambda: ((_x(2, 3), 0.2), {}),
    "icml26.bayesopt.pfn.entropy.grouped_entropy_search": lambda: (
        (_x(2, 4, 6), torch.tensor([[0, 3], [1, 5]]), 0.2),
        {"bins": 2, "points": 8},
    ),
    "icml26.bayesopt.pfn.entropy.truncated_normal_entropy": lambda: (
        (_x(3), torch.full((3,), 0.5, dtype=F64), _x(3, seed=1) + 1),
        {},
    ),
    "icml26.bayesopt.pfn.entropy.truncated_gaussian_mes": lambda: (
        (_x(3), torch.full((3,), 0.5, dtype=F64), 0.1, _x(3, 4, seed=1) + 1),
        {"points": 16},
    ),
    "icml26.bayesopt.pfn.entropy.expected_improvement": lambda: (
        (_x(3), torch.full((3,), 0.5, dtype=F64), torch.tensor(0.2, dtype=F64)),
        {},
    ),
    "icml26.bayesopt.pfn.network.train_alpha_net": lambda: (
        (
            _alpha_net(),
            torch.linspace(-1.0, 1.0, 5, dtype=F64),
            *_ctx(),
            torch.rand(2, 2, generator=_g(2), dtype=F64),
            torch.rand(2, 2, generator=_g(3), dtype=F64) - 0.5,
        ),
        {"steps": 1, "batch": 1, "generator": _g()},
    ),
    "icml26.bayesopt.pfn.network.bo_loop": lambda: (
        (_x(2, 5), torch.linspace(0, 1, 5, dtype=F64), lambda x, y, m: _x(2, 5, seed=1)),
        {"n_init": 1, "n_iter": 1, "noise_sd": 0.1, "generator": _g()},
    ),
    "icml26.bayesopt.pfn.network.fixed_gp_model": lambda: (
        (_x(3), _x(3, seed=1), 0.3, 1.0, 0.1),
        {},
    ),
    "icml26.bayesopt.pfn.prior_nd.ard_rbf_kernel": lambda: (
        (_x(3, 2), _x(4, 2, seed=1), torch.tensor([0.3, 0.5], dtype=F64), 1.0),
        {},
    ),
    "icml26.bayesopt.pfn.prior_nd.check_context_nd": lambda: (_ctx_nd()[:3], {}),
    "icml26.bayesopt.pfn.prior_nd.standardize_context": lambda: (_ctx_nd()[1:3], {}),
    "icml26.bayesopt.pfn.prior_nd.gp_posterior_nd": lambda: (
        (*_ctx_nd(), torch.rand(2, 5, 2, generator=_g(4), dtype=F64), _ls_nd(), 0.1),
        {},
    ),
    "icml26.bayesopt.pfn.benchmarks.alpha_policy": lambda: ((_alpha_net_nd(), _borders()), {}),
    # dynamics (chapter 05)
    "icml26.dynamics.animal.unicycle_positions": lambda: (
        (_x(2, 4, 2), 0.1, _x(2, seed=1)),
        {},
    ),
    "icml26.dynamics.animal.simulate_animal": lambda: (
        (2, 3, 0.1),
        {"generator": _g(), "initial": torch.rand(2, 2, generator=_g(1), dtype=F64)},
    ),
    "icml26.dynamics.motion.best_of_k_loss": lambda: ((_x(3, 2, 4, 2), _x(2, 4, 2, seed=1)), {}),
    "icml26.dynamics.motion.trajectory_metrics": lambda: (
        (_x(3, 2, 4, 2), _x(2, 4, 2, seed=1)),
        {},
    ),
    "icml26.dynamics.motion.response_lag": lambda: (
        (torch.tensor([[0.0, 0.0, 0.5, 1.0, 1.0]], dtype=F64), 1),
        {},
    ),
    "icml26.dynamics.sde.euler_maruyama": lambda: (
        (lambda z, u: -z + u, lambda z: torch.full_like(z, 0.1), _x(3, 2), 0.1),
        {"u": _x(4, 2, seed=1), "dW": _x(4, 3, 2, seed=2) * 0.3},
    ),
    "icml26.dynamics.sde.mean_square_bound": lambda: (
        (torch.tensor([0.0, 1.0, 2.0], dtype=F64), 0.5, 1.0, 2.0, 1.0),
        {},
    ),
    "icml26.dynamics.sde.em_mean_square_bound": lambda: (
        (
            torch.tensor([0.0, 1.0, 2.0], dtype=F64),
            0.01,
            __import__("icml26.dynamics.sde").dynamics.sde.Certificate(0.5, 1.0, 1.0, 1.0),
            2.0,
            1.0,
        ),
        {},
    ),
    "icml26.dynamics.stacked.round_to_grid_": lambda: ((_params(), 20), {}),
    "icml26.dynamics.switching.command_channels": lambda: ((_x(4, 2, 3), 0.1), {}),
    "icml26.dynamics.switching.dissipativity_residual": lambda: (
        (_linear_model(), _x(3, 2), _x(3, 1, seed=1)),
        {},
    ),
    "icml26.dynamics.switching.dissipativity_penalty": lambda: ((_x(4, 3),), {}),
    # games.preferences (chapter 08)
    "icml26.games.preferences.heads.decompose": lambda: ((_skew(),), {}),
    "icml26.games.preferences.heads.potential_lstsq": lambda: ((_skew(),), {}),
    "icml26.games.preferences.heads.bt_scores": lambda: ((_x(3),), {}),
    "icml26.games.preferences.heads.gpm_scores": lambda: (
        (_x(3, 4), torch.tensor([0.5, 1.0], dtype=F64)),
        {},
    ),
    "icml26.games.preferences.heads.hrc_scores": lambda: (
        (_x(3), _x(3, 4, seed=1), torch.tensor([0.5, 1.0], dtype=F64)),
        {"clip": 1.0},
    ),
    "icml26.games.preferences.heads.preference_loss": lambda: ((_x(5),), {}),
    "icml26.games.preferences.selfplay.schedule": lambda: (
        (torch.tensor([1.0, 2.0, 4.0], dtype=F64), torch.tensor(0.5, dtype=F64)),
        {},
    ),
    "icml26.games.preferences.selfplay.self_play": lambda: (
        (_skew().expand(2, 3, 3), _skew(seed=1).expand(2, 3, 3), 3),
        {
            "lam": torch.tensor([0.0, 1.0], dtype=F64),
            "pi0": torch.full((2, 3), 1 / 3, dtype=F64),
        },
    ),
    "icml26.games.preferences.selfplay.preference_gap": lambda: (
        (_preference(), torch.full((3,), 1 / 3, dtype=F64)),
        {},
    ),
    "icml26.games.preferences.selfplay.preference_equilibrium": lambda: ((_preference(),), {}),
    "icml26.games.preferences.training.dominant_margin_lp": lambda: ((_x(3, 4),), {}),
    "icml26.games.preferences.training.fit_encoder": lambda: (
        (_x(2, 4, 5), _x(1, 4, 5, seed=1), torch.tensor([[0, 1], [1, 2]]), "hrc", 2),
        {"seeds": 1, "steps": 1, "hidden": 3, "generator": _g()},
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
    # neuro (chapter 19)
    "icml26.neuro.attention.block_sparse_attention": lambda: ((*_qkv4(2, 2, 3, 4), [0, 0, 1]), {}),
    "icml26.neuro.attention.masked_attention": lambda: (
        (*_qkv4(2, 6, 4), torch.ones(6, 6, dtype=torch.bool)),
        {},
    ),
    "icml26.neuro.connectivity.coherence": lambda: ((_eeg()[3].x, 128.0, (8.0, 12.0)), {}),
    "icml26.neuro.connectivity.mean_abs_correlation": lambda: ((_eeg()[3].x,), {}),
    "icml26.neuro.connectivity.phase_sum": lambda: ((_eeg()[3].x, 128.0, (8.0, 12.0)), {}),
    "icml26.neuro.connectivity.plv": lambda: ((_eeg()[3].x, 128.0, (8.0, 12.0)), {}),
    "icml26.neuro.encoder.channel_graph": lambda: ((_x(2, 3, 4, 5),), {}),
    "icml26.neuro.montage.anatomical_regions": lambda: ((_eeg_data()[0], _eeg()[0]), {}),
    "icml26.neuro.montage.assign_by_nearest": lambda: (
        (_eeg()[0][:5] + 0.001, _eeg()[0], _eeg()[1]),
        {},
    ),
    "icml26.neuro.montage.functional_regions": lambda: ((_eeg()[0], _eeg()[2]), {}),
    "icml26.neuro.partition.adaptive_partition": lambda: (
        (_eeg()[1], np.abs(np.corrcoef(_eeg()[3].x[0])), 0.5, 4),
        {},
    ),
    "icml26.neuro.partition.spectral_partition": lambda: (
        (np.abs(np.corrcoef(_eeg()[3].x[0])), 4),
        {},
    ),
    "icml26.neuro.partition.learned_affinity": lambda: (
        _enc_args(),
        {"batch": 2},
    ),
    "icml26.neuro.pretrain.masked_prediction_error": lambda: (
        (_eeg()[5], _heads()["decoder"], _eeg()[4], _eeg()[0], _eeg()[1], _views()[0]),
        {},
    ),
    "icml26.neuro.pretrain.pretrain": lambda: (
        _enc_args(),
        {"steps": 1, "batch": 2, "kinds": ("time",), "seed": 0, "afp_every": 1},
    ),
    "icml26.neuro.pretrain.rector_losses": lambda: (
        (_eeg()[5], _heads(), _eeg()[4], torch.as_tensor(_eeg()[0]), _eeg()[1], _views()),
        {},
    ),
    "icml26.neuro.probe.band_power_features": lambda: ((_eeg()[3].x, 128.0), {}),
    "icml26.neuro.probe.embed": lambda: (_enc_args(), {}),
    "icml26.neuro.probe.encode": lambda: (_enc_args(), {}),
    "icml26.neuro.probe.graph_features": lambda: (
        _enc_args(),
        {},
    ),
    "icml26.neuro.probe.graph_upper": lambda: ((_x(2, 3, 4, 5),), {}),
    "icml26.neuro.probe.pooled": lambda: ((_x(2, 3, 4, 5),), {}),
    "icml26.neuro.probe.probe_f1": lambda: (
        (_x(6, 3).numpy(), np.arange(6) % 2, _x(4, 3, seed=1).numpy(), np.arange(4) % 2),
        {},
    ),
    "icml26.neuro.probe.removal_f1": lambda: (
        (
            _eeg()[5],
            _x(4, 16).numpy(),
            _eeg()[3].y,
            _eeg()[4],
            _eeg()[3].y,
            _eeg()[0],
            _eeg()[1],
        ),
        {"fraction": 0.25, "patterns": 1, "seed": 0},
    ),
    "icml26.neuro.simulate.patchify": lambda: ((_eeg()[3].x, 16), {}),
    "icml26.neuro.simulate.simulate_eeg": lambda: ((_eeg()[0], _eeg()[2], 1, 2), {"seed": 0}),
    # sequential.critic, critic_envs, informativeness (chapter 03)
    "icml26.sequential.critic.conditional_mean": lambda: (
        (_x(6), torch.rand(6, generator=_g(), dtype=F64), torch.arange(6) % 2),
        {},
    ),
    "icml26.sequential.critic.discounted_returns": lambda: ((_x(2, 5), 0.9), {}),
    "icml26.sequential.critic.enumerate_pomdp": lambda: ((*_enumeration()[0], 2), {}),
    "icml26.sequential.critic.exact_objective": lambda: (
        (_enumeration()[2], _enumeration()[1], 0.9),
        {},
    ),
    "icml26.sequential.critic.informed_gradient": lambda: (
        (
            _enumeration()[2],
            _enumeration()[1],
            _enumeration()[1].reward.clone(),
            0.9,
        ),
        {},
    ),
    "icml26.sequential.critic.policy_log_probs": lambda: (
        (_enumeration()[2], _enumeration()[1]),
        {},
    ),
    "icml26.sequential.critic.td_fixed_point": lambda: (
        (
            _enumeration()[1].log_env.exp(),
            _enumeration()[1].reward.clone(),
            _enumeration()[1].hist,
            0.9,
        ),
        {},
    ),
    "icml26.sequential.critic_envs.history_window": lambda: (
        (_x(2, 5, 3), torch.arange(10).view(2, 5) % 2, 2, 2),
        {},
    ),
    "icml26.sequential.informativeness.cross_fit_predict": lambda: (
        (_x(12, 3).numpy(), _x(12, 2, seed=1).numpy(), np.arange(12) // 3),
        {"n_folds": 2, "n_trees": 2},
    ),
    "icml26.sequential.informativeness.gain_ttest": lambda: ((_x(5),), {}),
    "icml26.sequential.informativeness.hsic_from_features": lambda: (
        (_x(6, 2), _x(6, 3, seed=1)),
        {},
    ),
    "icml26.sequential.informativeness.median_bandwidth": lambda: ((_x(6, 2),), {}),
    "icml26.sequential.informativeness.permutation_hsic": lambda: (
        (_x(8, 1), _x(8, 2, seed=1), 2),
        {"n_permutations": 3, "generator": _g()},
    ),
    "icml26.sequential.informativeness.prediction_gains": lambda: (
        (_x(4, 3, 2), _x(4, 3, 3, seed=1), _x(4, 3, seed=2)),
        {"n_folds": 2, "generator": _g()},
    ),
    "icml26.sequential.informativeness.rbf_nystrom_features": lambda: (
        (_x(6, 2), 3),
        {"generator": _g()},
    ),
    # sequential.clarify (chapter 04)
    "icml26.sequential.clarify.world.answer": lambda: (
        (*_clarify(), torch.tensor([0, 1, 3])),
        {"generator": _g()},
    ),
    "icml26.sequential.clarify.world.commit": lambda: ((_clarify()[2], 0.5), {"generator": _g()}),
    "icml26.sequential.clarify.world.eig": lambda: ((_clarify()[0], _clarify()[2]), {}),
    "icml26.sequential.clarify.world.ig_reward": lambda: (
        (_clarify()[2], _stochastic(4)[:3], _clarify()[1].goal),
        {},
    ),
    "icml26.sequential.clarify.world.likelihood_matrix": lambda: (
        (_clarify()[0], _clarify()[2], 0),
        {},
    ),
    "icml26.sequential.clarify.world.marginals": lambda: ((_clarify()[0], _clarify()[2]), {}),
    "icml26.sequential.clarify.world.mutual_information": lambda: (
        (_stochastic(4)[:3], _stochastic(4)[None].expand(3, 4, 4).transpose(1, 2).contiguous()),
        {},
    ),
    "icml26.sequential.clarify.world.update": lambda: (
        (_clarify()[0], _clarify()[2], torch.tensor([0, 1, 3]), torch.tensor([1, 0, 0])),
        {},
    ),
    "icml26.sequential.clarify.policies.features": lambda: (
        (_clarify()[0], _clarify()[2], _clarify()[1].revealed, 1, 3),
        {},
    ),
    "icml26.sequential.clarify.policies.softmax_policy": lambda: ((_x(9, 5),), {}),
    # sequential.a2c (chapter 03)
    "icml26.sequential.a2c.mlp": lambda: ((_a2c()["models"].actor, _a2c()["x"]), {}),
    "icml26.sequential.a2c.start": lambda: ((_a2c()["env"], 2, 3, 3, _a2c()["u"]), {}),
    "icml26.sequential.a2c.collect": lambda: (
        (lambda a: (a["env"], a["models"], a["ro"], *a["maps"], a["draws"]))(_a2c()),
        {},
    ),
    "icml26.sequential.a2c.update": lambda: (
        (lambda a: (a["env"], a["models"], a["optimizer"], a["ro"], a["maps"], a["draws"]))(_a2c()),
        {"gamma": 0.9, "entropy": 0.01},
    ),
    # generative.gaussian_twin, sceneworld, stacked_training (chapter 11)
    "icml26.generative.gaussian_twin.bayes_mse": lambda: (
        (_x(5, 3), _x(4, 3, seed=1), 0.5, 0.5),
        {},
    ),
    "icml26.generative.gaussian_twin.conditional_mean_matrix": lambda: (
        (_x(5, 3), _x(4, 3, seed=1), 0.5),
        {},
    ),
    "icml26.generative.sceneworld.gaussian_smooth": lambda: ((_x(2, 3, 8, 8), 1.0), {}),
    "icml26.generative.sceneworld.psnr": lambda: (
        (_x(2, 3, 4, 4).sigmoid(), _x(2, 3, 4, 4, seed=1).sigmoid()),
        {},
    ),
    "icml26.generative.sceneworld.ssim": lambda: (
        (_x(2, 3, 8, 8).sigmoid(), _x(2, 3, 8, 8, seed=1).sigmoid()),
        {},
    ),
    "icml26.generative.sceneworld.render": lambda: (
        (_x(2, 3, 16, 16).softmax(1), "SAR"),
        {"generator": _g()},
    ),
    "icml26.generative.stacked_training.train_backbone": lambda: (
        _backbone(),
        {"steps": 1, "batch": 2, "generator": _g()},
    ),
    "icml26.generative.stacked_training.predict_at_T": lambda: (
        (
            _backbone()[0],
            _x(2, 3, 4).float(),
            torch.tensor([[0] * 3, [1] * 3]),
            torch.tensor([[1] * 3, [0] * 3]),
        ),
        {"draws": 2, "generator": _g()},
    ),
    # generative.vae_dit (chapter 11, the paper's architecture)
    "icml26.generative.vae_dit.train_dit": lambda: (
        _dit(),
        {"steps": 1, "batch": 2, "generator": _g()},
    ),
    "icml26.generative.vae_dit.predict_at_T": lambda: (
        (_dit()[0], _x(3, 2, 4, 4).float(), torch.tensor([0, 1, 2]), torch.tensor([1, 2, 0])),
        {"draws": 2, "generator": _g()},
    ),
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
        (f"icml26.agents.uncertainty.{f}", arg, probe): _PROPAGATES
        for f, arg in (
            ("self_uncertainty", "logits"),
            ("action_temperature", "u"),
            ("attention_temperature", "delta_u"),
        )
        for probe in ("nan", "inf")
    },
    **{
        (f"icml26.agents.uncertainty.{f}", arg, "shape"): "batched over any leading axes"
        for f, arg in (
            ("self_uncertainty", "logits"),
            ("uncertainty_closed_form", "p1"),
            ("action_temperature", "u"),
            ("attention_temperature", "delta_u"),
        )
    },
    ("icml26.agents.forkreach.tokenize", "action", "shape"): "elementwise over any shape",
    ("icml26.dynamics.sde.mean_square_bound", "t", "shape"): "elementwise over any shape",
    ("icml26.dynamics.sde.em_mean_square_bound", "n", "shape"): "elementwise over any shape",
    ("icml26.dynamics.sde.euler_maruyama", "z0", "shape"): "any batch (*batch, d): the "
    "extra axis is read as d = 1, and u or dW, whose shapes then disagree, are named",
    ("icml26.dynamics.stacked.round_to_grid_", "params", "nan"): _PROPAGATES,
    ("icml26.dynamics.stacked.round_to_grid_", "params", "inf"): _PROPAGATES,
    ("icml26.dynamics.stacked.round_to_grid_", "params", "shape"): "elementwise over any shape",
    ("icml26.dynamics.switching.command_channels", "u", "shape"): "any grid (T, ..., c)",
    ("icml26.dynamics.switching.dissipativity_penalty", "residual", "nan"): _PROPAGATES,
    ("icml26.dynamics.switching.dissipativity_penalty", "residual", "inf"): _PROPAGATES,
    ("icml26.dynamics.switching.dissipativity_penalty", "residual", "shape"): "(T, N) or "
    "(T, M, N): an extra axis reads as M stacked members (documented)",
    ("icml26.dynamics.switching.dissipativity_residual", "z", "shape"): "any batch (..., d) "
    "the model accepts; the model checks the state dimension",
    ("icml26.dynamics.switching.dissipativity_residual", "v", "shape"): "passed to "
    "model.drift, which checks it (documented)",
    ("icml26.games.preferences.heads.bt_scores", "r", "shape"): "batched (..., n)",
    ("icml26.games.preferences.heads.preference_loss", "s", "shape"): "a mean over any shape",
    ("icml26.games.preferences.selfplay.schedule", "t", "shape"): _BROADCASTS,
    ("icml26.games.preferences.selfplay.schedule", "lam", "shape"): _BROADCASTS,
    ("icml26.bayesopt.pfn.gp.rbf_kernel", "x1", "shape"): "batched over leading axes",
    ("icml26.bayesopt.pfn.gp.rbf_kernel", "x2", "shape"): "batched over leading axes",
    ("icml26.bayesopt.pfn.entropy.mixture_entropy", "centres", "shape"): "batched (..., M)",
    ("icml26.bayesopt.pfn.entropy.expected_improvement", "best", "shape"): _BROADCASTS,
    **{
        ("icml26.bayesopt.pfn.entropy.truncated_normal_entropy", arg, "shape"): _BROADCASTS
        for arg in ("mu", "sigma", "upper")
    },
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
    **{
        ("icml26.sequential.a2c.mlp", arg, probe): _PROPAGATES
        for arg in ("params", "x")
        for probe in ("nan", "inf")
    },
    **{
        ("icml26.sequential.a2c.collect", arg, probe): _PROPAGATES
        for arg in ("sel", "noise_mask")
        for probe in ("nan", "inf")
    },
    ("icml26.sequential.a2c.update", "maps", "nan"): _PROPAGATES,
    ("icml26.sequential.a2c.update", "maps", "inf"): _PROPAGATES,
    ("icml26.neuro.encoder.channel_graph", "h", "nan"): _PROPAGATES,
    (
        "icml26.sequential.critic.discounted_returns",
        "rewards",
        "shape",
    ): "batched over leading axes",
    ("icml26.neuro.encoder.channel_graph", "h", "inf"): _PROPAGATES,
    ("icml26.generative.diffusion.add_noise", "x0", "nan"): _PROPAGATES,
    ("icml26.generative.diffusion.add_noise", "x0", "inf"): _PROPAGATES,
    ("icml26.generative.diffusion.add_noise", "noise", "nan"): _PROPAGATES,
    ("icml26.generative.diffusion.add_noise", "noise", "inf"): _PROPAGATES,
    ("icml26.generative.diffusion.ddim_step", "sample", "nan"): _PROPAGATES,
    ("icml26.generative.diffusion.ddim_step", "sample", "inf"): _PROPAGATES,
    ("icml26.generative.diffusion.ddim_step", "model_output", "nan"): _PROPAGATES,
    ("icml26.generative.diffusion.ddim_step", "model_output", "inf"): _PROPAGATES,
}

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
    "icml26.neuro.attention.attention_cost": "integer region sizes (test_eeg)",
    "icml26.neuro.attention.block_mask": "integer region ids (test_eeg)",
    "icml26.neuro.attention.level_masks": "integer region ids (test_eeg)",
    "icml26.neuro.attention.region_ids": "integer region ids (a validator itself)",
    "icml26.neuro.montage.montage": "a montage name",
    "icml26.neuro.montage.separated_centres": "numbers and a generator (test_eeg)",
    "icml26.neuro.partition.align_labels": "integer labels (test_eeg)",
    "icml26.neuro.pretrain.structured_mask": "integer region ids and a generator (test_eeg)",
    "icml26.sequential.critic.audit_pomdp": "numbers (test_critic)",
    "icml26.sequential.critic_envs.aliased_pomdp": "integers, a number and a generator",
    "icml26.sequential.critic_envs.reference_returns": "an AliasedPOMDP (test_critic)",
    "icml26.sequential.critic_envs.rollout": "an AliasedPOMDP, numbers and a generator",
    "icml26.sequential.clarify.policies.evaluate": "a world, tasks, a Policy and numbers",
    "icml26.sequential.clarify.policies.n_features": "a world",
    "icml26.sequential.clarify.policies.no_ask_policy": "nothing",
    "icml26.sequential.clarify.policies.oracle_policy": "a number (test_clarify)",
    "icml26.sequential.clarify.policies.random_policy": "nothing",
    "icml26.sequential.clarify.policies.rollout": "a world, tasks, a Policy and integers",
    "icml26.sequential.clarify.training.train_clarifier": "a world, names and numbers",
    "icml26.sequential.clarify.world.action_names": "a world",
    "icml26.sequential.clarify.world.initial_belief": "a world and integer tasks",
    "icml26.sequential.clarify.world.make_env": "integers, numbers and a generator",
    "icml26.sequential.clarify.world.sample_tasks": "a world, integers and a generator",
    "icml26.sequential.a2c.a2c_losses": "Models and a Segment (test_a2c)",
    "icml26.sequential.a2c.draw_segment": "an environment, integers and a generator",
    "icml26.sequential.a2c.init_models": "integers and a generator (test_a2c)",
    "icml26.sequential.a2c.signal_maps": "Signals and integers (test_a2c)",
    "icml26.sequential.a2c.train_a2c": "an environment, Signals and settings (test_a2c)",
    "icml26.generative.gaussian_twin.fit_shared_linear": "a dict of paired images (their "
    "finiteness: test_translation)",
    "icml26.generative.gaussian_twin.gauge_orbit": "modality pairs, numbers and a generator",
    "icml26.generative.gaussian_twin.linear_twin": "numbers and a generator",
    "icml26.generative.sceneworld.component_counts": "an integer",
    "icml26.generative.sceneworld.directions": "modality pairs and counts (test_translation)",
    "icml26.generative.sceneworld.scene_world": "integers, numbers and a generator",
    "icml26.generative.sceneworld.shapes": "an integer",
    "icml26.generative.stacked_training.train_autoencoders": "a dict of paired images and "
    "weights (their finiteness: test_translation)",
    "icml26.generative.vae_dit.modality_vae": "a shape and integers (test_vae_dit)",
    "icml26.generative.vae_dit.train_vaes": "a dict of paired images and numbers (their "
    "finiteness: test_vae_dit)",
    "icml26.stats.one_thread": "a function (a decorator)",
    "icml26.games.preferences.heads.dominant_cycle_data": "integers, numbers and a generator",
    "icml26.games.preferences.heads.dominant_cycle_pairs": "nothing",
    "icml26.games.preferences.heads.random_tournament": "integers, numbers and a generator",
    "icml26.games.preferences.heads.rotation": "an integer",
    "icml26.games.preferences.training.fit_tabular": "integer pairs and numbers (test_preferences)",
    "icml26.dynamics.motion.motion_windows": "an AnimalData and integer indices (test_sde)",
    "icml26.dynamics.stacked.clip_member_grad_norm_": "parameters, of which it reads only the "
    "gradients (a per-step kernel: non-finite gradients propagate, documented)",
    "icml26.dynamics.stacked.member_flags": "booleans and an integer (test_stacked)",
    "icml26.dynamics.stacked.member_generators": "integer seeds (test_stacked)",
    "icml26.dynamics.stacked.normal": "generators, a shape and a number (test_stacked)",
    "icml26.dynamics.stacked.parameter_count": "a module (test_stacked)",
    "icml26.dynamics.stacked.uniform": "generators, a shape and a number (test_stacked)",
    "icml26.dynamics.stacked.training_state": "a step and training objects (test_resume)",
    "icml26.dynamics.stacked.load_training_state": "a saved dict and training objects "
    "(test_resume)",
    "icml26.resume.fingerprint": "a mapping of settings (test_resume)",
    "icml26.dynamics.switching.penalty_ramp": "integers and numbers (test_switching)",
    "icml26.bayesopt.pfn.bars.equal_borders": "numbers (test_pfn)",
    "icml26.bayesopt.pfn.prior_nd.sample_lengthscales": "integers, numbers and a generator",
    "icml26.bayesopt.pfn.prior_nd.make_tasks_nd": "integers, numbers and a generator",
    "icml26.bayesopt.pfn.prior_nd.mes_labels": "a TasksND and integer indices (test_pfn_nd)",
    "icml26.bayesopt.pfn.benchmarks.benchmark": "a name (test_pfn_nd)",
    "icml26.bayesopt.pfn.benchmarks.bo_benchmark": "a Benchmark, a policy and integers",
    "icml26.bayesopt.pfn.benchmarks.gp_policy": "a name and integers (test_pfn_nd)",
    "icml26.bayesopt.pfn.benchmarks.random_policy": "a generator (test_pfn_nd)",
    "icml26.agents.forkreach.reset": "a configuration, an integer and a generator",
    "icml26.agents.forkreach.fork_mask": "a state made by reset (test_vla)",
    "icml26.agents.forkreach.expert_action": "a state made by reset and a generator",
    "icml26.agents.forkreach.render": "a state made by reset and a generator (test_vla)",
    "icml26.agents.forkreach.detokenize": "integer tokens (test_vla)",
    "icml26.agents.forkreach.collect_demos": "a configuration, numbers and a generator",
    "icml26.agents.forkreach.make_gym_env": "a configuration and a seed",
    "icml26.agents.tinyvla.train_bc": "a policy and a dict of demonstrations, checked finite",
    "icml26.agents.decoding.rollout": "a policy, a configuration, a method name and numbers",
    "icml26.stats.stream": "integers (test_stats)",
    "icml26.background.start": "a library function and its arguments (test_background)",
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
    """A public function is probed, or takes no array (the core modules have their own tests)."""
    missing = [
        f
        for f in public_functions()
        if f not in EXAMPLES and f not in NO_ARRAY_INPUT and _module(f) not in CORE
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
