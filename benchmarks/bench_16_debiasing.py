"""Chapter 16 (debiasing): per-layer bias/variance split for all perturbations at once.

The kernel evaluates the clean and perturbed representations of every layer of the
polarity-prompts classifier in one batched ``icml26.trust.debias.forward`` pass over bags
``(S, N, P, V)`` and reduces them with ``icml26.trust.debias.bias_variance``. The reference is
the notebook's readable ``bias_variance_reference``: one forward pass per prompt and per
perturbation. Both compute the same five moments and ρ per layer. No established library
computes this quantity.

- Case 1: one seed, 50 prompts × 20 perturbations (1,050 forward passes in the reference).
- Scaling: the kernel at 3 seeds × N prompts × 20 perturbations.
"""

from __future__ import annotations

import torch

from benchmarks.registry import register, register_scaling
from icml26.pipeline.notebooks import notebook_functions
from icml26.trust import debias

_gen = torch.Generator().manual_seed(16)
TASK = debias.make_task(_gen)
V = TASK.vocab
PARAMS = debias.init_classifier(TASK, 1, _gen)  # untrained: the cost does not depend on weights
TOKENS, _ = debias.sample_prompts(TASK, (1, 50), _gen)
CLEAN = debias.bag(TOKENS, V)
PERTURBED = debias.perturb_neutral(TASK, TOKENS, 20, _gen)

_reference = notebook_functions("16-debiasing", "bias_variance_reference")[
    "bias_variance_reference"
]


def _forward_one(bag_row: torch.Tensor) -> dict:
    with torch.no_grad():
        reps = debias.forward(PARAMS, bag_row.reshape(1, 1, V))
    return {layer: reps[layer][0, 0].numpy() for layer in debias.LAYERS}


def _kernel(params: dict, clean: torch.Tensor, perturbed: torch.Tensor) -> dict:
    with torch.no_grad():
        c, p = debias.forward(params, clean), debias.forward(params, perturbed)
        return {layer: debias.bias_variance(c[layer], p[layer]) for layer in debias.LAYERS}


register(
    name="per-layer bias/variance split, 50 prompts × 20 perturbations: one batched forward vs "
    "one forward per input",
    kernel=lambda: _kernel(PARAMS, CLEAN, PERTURBED),
    reference=lambda: _reference(_forward_one, CLEAN[0], PERTURBED[0]),
)


def _split_at(n: int):
    g = torch.Generator().manual_seed(n)
    params = debias.init_classifier(TASK, 3, g)
    tok, _ = debias.sample_prompts(TASK, (3, n), g)
    clean, pert = debias.bag(tok, V), debias.perturb_neutral(TASK, tok, 20, g)
    return lambda: _kernel(params, clean, pert)


register_scaling(
    "per-layer bias/variance split, 3 seeds × 20 perturbations",
    make=_split_at,
    sizes=(10, 30, 100, 300, 1000),
    size_label="prompts",
)
