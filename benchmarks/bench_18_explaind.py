"""Chapter 18 (explaind): the exact AdamW path-kernel decomposition, vectorised vs loops.

- Case 1: the full per-example decomposition of 4 AdamW steps of the chapter's part-A MLP
  (2 → 32 → 32 → 3, P = 1251; 256 training examples, mini-batches of 64; the chapter's 64 test
  inputs, 8 Gauss–Legendre nodes): ``pk.decompose`` (``vmap`` per-example gradients, an
  (M, P) momentum buffer, ``vmap(vmap(jacrev))`` test features, one ``einsum`` per step)
  against the notebook's readable reference (a loop over examples, test inputs and nodes with
  ``torch.autograd``).
- Case 2: the per-example gradients of 1024 examples alone: ``torch.func.vmap(grad)``
  against a loop of ``torch.autograd.grad`` calls.

Measured while writing the chapter, on the shared 2-core CPU (ratios moved with the load of
the machine): case 1 19–21×, case 2 12–48×. Case 1 is close to the 20× floor because the model
is tiny: the vectorised kernel is bound by materialising the per-step Jacobian tensor of shape
(64 inputs × 8 nodes, 3, 1251) — 15 MB, about 50 ms per step, roughly 100 µs per Jacobian —
and by the per-operation overhead of many small batched products, while the loop pays about
1.2 ms per Jacobian. Alternatives measured for the test features (one flat ``vmap`` over
inputs × nodes, a Python loop over nodes with ``vmap`` over inputs, replicated parameters with
one backward per output) were no faster (45–65 ms). The ratio grows with the number of test
inputs (12× with 16 inputs).
"""

from __future__ import annotations

import math

import torch

from benchmarks.registry import register, register_scaling
from icml26.pipeline.notebooks import notebook_functions
from icml26.trust import flatmodels
from icml26.trust import pathkernel as pk

_g = torch.Generator().manual_seed(0)
_model = flatmodels.mlp_model([2, 32, 32, 3])
_x = torch.randn(256, 2, generator=_g, dtype=torch.float64)
_y = torch.randint(0, 3, (256,), generator=_g)
_x_test = torch.randn(64, 2, generator=_g, dtype=torch.float64)
_theta0 = flatmodels.init_params(_model.spec, generator=_g)
_batches = [torch.randperm(256, generator=_g)[:64] for _ in range(4)]
_lrs = torch.tensor([1e-2 * 0.5 * (1 + math.cos(math.pi * s / 4)) for s in range(4)])
_traj = pk.train_adamw(_model, _theta0, _x, _y, _batches, _lrs.double(), weight_decay=0.1)

_x_big = torch.randn(1024, 2, generator=_g, dtype=torch.float64)
_y_big = torch.randint(0, 3, (1024,), generator=_g)

_reference = notebook_functions("18-explaind", "path_kernel_reference")["path_kernel_reference"]


def _loop_grads() -> torch.Tensor:
    out = []
    for k in range(1024):
        p = _theta0.clone().requires_grad_(True)
        out.append(torch.autograd.grad(_model(p, _x_big[k : k + 1])[0, _y_big[k]], p)[0])
    return torch.stack(out)


register(
    name="exact AdamW path-kernel decomposition, 4 steps × 256 examples × 64 test inputs "
    "(P = 1251, 8 nodes): vectorised kernel vs the notebook's loops",
    kernel=lambda: pk.decompose(_model, _traj, _x, _y, _x_test, nodes=8).reconstruction,
    reference=lambda: _reference(_model, _traj, _x, _y, _x_test, 8),
)

register(
    name="per-example gradients of 1024 examples (P = 1251): torch.func.vmap(grad) vs a loop "
    "of torch.autograd.grad",
    kernel=lambda: pk.per_sample_grads(_model, _theta0, _x_big, _y_big),
    reference=_loop_grads,
)


def _decompose_at(n_test: int):
    x_test = torch.randn(n_test, 2, generator=torch.Generator().manual_seed(1), dtype=torch.float64)
    return lambda: pk.decompose(_model, _traj, _x, _y, x_test, nodes=8).reconstruction


register_scaling(
    name="exact AdamW path-kernel decomposition (4 steps, 256 examples, 8 nodes)",
    make=_decompose_at,
    sizes=(4, 16, 64, 256),
    size_label="test inputs",
)
