"""Chapter 03 (informed-critic): the episode-level permutation HSIC test.

The residual test of chapter 03 compares an HSIC statistic with B statistics of data whose
episodes are re-paired. Three ways to compute the same p-value:

- the kernel ``icml26.sequential.critic.permutation_hsic``: Nystrom features (256 landmarks,
  truncated to their numerical rank), B permutations at once in batched matrix products;
- the notebook's readable reference ``reference_permutation_hsic``: exact n x n Gram matrices,
  re-indexed once per permutation (a Python loop over permutations);
- the same kernel with ``chunk=1``: one permutation per matrix product (the per-permutation
  loop over Nystrom features);
- hyppo's ``Hsic().test`` (it permutes rows, not episodes: it is timed on the same data as an
  established implementation of the statistic, not as a test of the same null).

Batching the permutations (case 2) gains only about 2x over one matrix product per permutation
(measured 0.54 s vs 1.03 s of CPU time at n = 6250): each product is already a BLAS call of
n * r_x * r_y flops, so batching saves the per-call overhead and the gathers, not arithmetic. The
large ratio is against the exact-Gram reference (about 28x at n = 2000, growing like n).

Case 1 uses 80 episodes of 25 steps (n = 2000; the reference's Gram matrices are 2000 x 2000)
and B = 200; case 2 the notebook's full size, 250 episodes (n = 6250), B = 200.
"""

from __future__ import annotations

import warnings

import torch

from benchmarks.registry import register, register_scaling
from icml26.pipeline.notebooks import notebook_functions
from icml26.sequential import critic

_reference = notebook_functions("03-informed-critic", "reference_permutation_hsic")[
    "reference_permutation_hsic"
]
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
SX1, SY1 = critic.median_bandwidth(X1), critic.median_bandwidth(Y1)


def _hyppo(x: torch.Tensor, y: torch.Tensor) -> float:
    from hyppo.independence import Hsic

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return float(Hsic().test(x.numpy(), y.numpy(), reps=B, random_state=0).pvalue)


register(
    name=f"episode-level permutation HSIC, n = 2000 (80 episodes), B = {B}: batched Nystrom "
    "kernel vs exact-Gram reference loop vs hyppo (row permutations)",
    kernel=lambda: critic.permutation_hsic(X1, Y1, L, n_permutations=B, permutations=P1).p_value,
    reference=lambda: _reference(X1.numpy(), Y1.numpy(), L, P1.numpy(), SX1, SY1)[1],
    library=lambda: _hyppo(X1, Y1),
    library_name="hyppo.independence.Hsic().test (row permutations)",
)

register(
    name=f"episode-level permutation HSIC, n = 6250 (250 episodes), B = {B}: batched vs "
    "one permutation per matrix product (chunk=1)",
    kernel=lambda: critic.permutation_hsic(X2, Y2, L, n_permutations=B, permutations=P2).p_value,
    reference=lambda: (
        critic.permutation_hsic(X2, Y2, L, n_permutations=B, permutations=P2, chunk=1).p_value
    ),
)


def _test_at(episodes: int):
    x, y, perms = _data(episodes)
    return lambda: critic.permutation_hsic(x, y, L, n_permutations=B, permutations=perms)


register_scaling(
    f"episode-level permutation HSIC, B = {B}, 256 Nystrom landmarks",
    make=_test_at,
    sizes=(20, 80, 320),
    size_label="episodes of 25 steps",
)
