"""Chapter 03 (informed-critic): the permutation HSIC test and the batched actor-critic.

The residual test of chapter 03 compares an HSIC statistic with B statistics of data whose
episodes are re-paired:

- the kernel ``icml26.sequential.informativeness.permutation_hsic``: Nystrom features (256
  landmarks, truncated to their numerical rank), ``chunk`` permutations per matrix product;
- the notebook's readable reference ``reference_permutation_hsic``: exact n x n Gram
  matrices, re-indexed once per permutation (a Python loop over permutations);
- the same kernel with ``chunk=1``: one permutation per matrix product;
- hyppo's ``Hsic().test`` (it permutes rows, not episodes: it is timed on the same data as an
  established implementation of the statistic, not as a test of the same null).

Batching the permutations gains about 2-3x over one matrix product per permutation: each
product is already a BLAS call of n * r_x * r_y flops, so batching saves the per-call overhead
and the gathers, not arithmetic. The gather copies whole episodes (rows of L contiguous
numbers of the transposed features), so the batched product needs no strided copy; the
earlier layout, which transposed the gathered block, was slower than the per-permutation loop
on one AVX-512 machine. The large ratio is against the exact-Gram reference (growing like n).

The actor-critic case times one training update of every model: collecting a segment of 25
steps in 4 environments per model and one Adam step on the summed losses, for 5 critics x 2
seeds at once (``icml26.sequential.a2c.update``), against the notebook's readable reference
``reference_a2c_losses`` (one model, one episode, one step at a time, then the same backward
pass and Adam step).
"""

from __future__ import annotations

import warnings

import torch

from benchmarks.registry import register, register_scaling
from icml26.pipeline.notebooks import notebook_functions
from icml26.sequential import a2c
from icml26.sequential import critic_envs as envs
from icml26.sequential import informativeness as info

_refs = notebook_functions(
    "03-informed-critic", "reference_permutation_hsic", "reference_a2c_losses"
)
_gen = torch.Generator().manual_seed(0)
L, B = 25, 200


def _data(n_episodes: int) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    x = torch.randn(n_episodes * L, 1, generator=_gen, dtype=torch.float64)
    y = torch.cat([x.repeat(1, 2), x**2], 1) * 0.3 + torch.randn(
        n_episodes * L, 3, generator=_gen, dtype=torch.float64
    )
    perms = torch.stack([torch.randperm(n_episodes, generator=_gen) for _ in range(B)])
    return x, y, perms


X1, Y1, P1 = _data(80)
X2, Y2, P2 = _data(250)
SX1, SY1 = info.median_bandwidth(X1), info.median_bandwidth(Y1)


def _hyppo(x: torch.Tensor, y: torch.Tensor) -> float:
    from hyppo.independence import Hsic

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return float(Hsic().test(x.numpy(), y.numpy(), reps=B, random_state=0).pvalue)


register(
    name=f"episode-level permutation HSIC, n = 2000 (80 episodes), B = {B}: batched Nystrom "
    "kernel vs exact-Gram reference loop vs hyppo (row permutations)",
    kernel=lambda: info.permutation_hsic(X1, Y1, L, n_permutations=B, permutations=P1).p_value,
    reference=lambda: _refs["reference_permutation_hsic"](
        X1.numpy(), Y1.numpy(), L, P1.numpy(), SX1, SY1
    )[1],
    library=lambda: _hyppo(X1, Y1),
    library_name="hyppo.independence.Hsic().test (row permutations)",
)

register(
    name=f"episode-level permutation HSIC, n = 6250 (250 episodes), B = {B}: batched vs "
    "one permutation per matrix product (chunk=1)",
    kernel=lambda: info.permutation_hsic(X2, Y2, L, n_permutations=B, permutations=P2).p_value,
    reference=lambda: (
        info.permutation_hsic(X2, Y2, L, n_permutations=B, permutations=P2, chunk=1).p_value
    ),
)


# --- one training update of the informed actor-critic ------------------------------------------

_ENV = envs.aliased_pomdp(concentration=0.1, horizon=L, generator=torch.Generator().manual_seed(1))
_SIGNALS = [
    a2c.Signal("history only"),
    a2c.Signal("noise", noise=2),
    a2c.Signal("[s3]", (2,)),
    a2c.Signal("[s1,s2,s4,s5]", (0, 1, 3, 4)),
    a2c.Signal("full state", (0, 1, 2, 3, 4)),
]
_S, _N, _C = 2, 4, len(_SIGNALS)
_SEL, _NOISE = a2c.signal_maps(_SIGNALS, _ENV.privileged_dim, _S, torch.float64)
_DZ = 3 * (_ENV.obs_dim + _ENV.n_actions + 1) + 1
_MODELS = a2c.init_models(_C, _S, _DZ, _SEL.shape[-1], _ENV.n_actions, 16, generator=_gen)
_OPT = torch.optim.Adam(_MODELS.actor + _MODELS.critic, lr=1e-3)
_DRAWS = a2c.draw_segment(_ENV, L, _S, _C, _N, _SEL.shape[-1], generator=_gen)
_U0 = torch.rand(_S, _N, 1, generator=_gen, dtype=torch.float64).repeat(_C, 1, 1)
_RO = a2c.start(_ENV, _C * _S, _N, 3, _U0)


def _kernel_update() -> None:
    a2c.update(_ENV, _MODELS, _OPT, _RO, (_SEL, _NOISE), _DRAWS, 0.99, 0.01)


def _reference_update() -> None:
    ref = _refs["reference_a2c_losses"]
    _OPT.zero_grad()
    for m in range(_C * _S):
        actor, critic = ref(_ENV, _MODELS, m, _RO.state, _DRAWS, _SEL, _NOISE, 0.99, 0.01, 3)
        (actor + critic).backward()
    _OPT.step()


register(
    name=f"informed actor-critic, one update of {_C} critics x {_S} seeds ({_N} episodes "
    f"of {L} steps each): batched kernel vs one model, one episode, one step at a time",
    kernel=_kernel_update,
    reference=_reference_update,
)


def _test_at(episodes: int):
    x, y, perms = _data(episodes)
    return lambda: info.permutation_hsic(x, y, L, n_permutations=B, permutations=perms)


register_scaling(
    f"episode-level permutation HSIC, B = {B}, 256 Nystrom landmarks",
    make=_test_at,
    sizes=(20, 80, 320),
    size_label="episodes of 25 steps",
)
