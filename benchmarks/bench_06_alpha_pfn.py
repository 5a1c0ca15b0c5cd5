"""Chapter 06 (α-PFN): the amortised acquisition against Monte-Carlo entropy search and BoTorch.

- Case 1 (the paper's headline ratio): scoring 1024 candidates once for one dataset — the
  α-network forward pass (untrained weights: the cost does not depend on them) against the
  batched grouped MES with M = 1000 posterior samples (posterior and sampling included) and
  against BoTorch ``get_optimal_samples`` (32 optima) + ``qJointEntropySearch``.
- Case 2: the grouped MES kernel against the notebook's readable per-candidate, per-group loop
  (``grouped_es_reference``), 64 candidates and M = 256 samples of one dataset, against BoTorch
  ``qMaxValueEntropy`` on the same candidates.
- Scaling: the grouped MES kernel over the number of candidates.
"""

from __future__ import annotations

import torch

from benchmarks.registry import register, register_scaling
from icml26.bayesopt import pfn
from icml26.pipeline.notebooks import notebook_functions

_reference = notebook_functions("06-alpha-pfn", "grouped_es_reference")["grouped_es_reference"]

PRIOR = dict(lengthscale=0.15, variance=1.0)
SD = 0.1
_gen = torch.Generator().manual_seed(0)
_grid64 = torch.linspace(0, 1, 64, dtype=torch.float64)
_task = pfn.make_tasks(_grid64, 1, (8, 8), noise_sd=SD, generator=_gen, **PRIOR)
_cand = torch.linspace(0, 1, 1024, dtype=torch.float64)
torch.manual_seed(0)
_net = pfn.AlphaNet(64)
_borders = pfn.equal_borders(-0.5, 2.0, 64)
_m = _task.mask[0]
_model = pfn.fixed_gp_model(_task.x_ctx[0][_m], _task.y_ctx[0][_m], noise_sd=SD, **PRIOR)


@torch.no_grad()
def _alpha(cand: torch.Tensor) -> torch.Tensor:
    logits = _net(_task.x_ctx.float(), _task.y_ctx.float(), _task.mask, cand[None].float())
    return pfn.bar_mean(_borders.float(), logits)


def _mes(cand: torch.Tensor, samples: int) -> torch.Tensor:
    mu, cov = pfn.gp_posterior(_task.x_ctx, _task.y_ctx, _task.mask, cand, noise_sd=SD, **PRIOR)
    f = pfn.sample_posterior(mu, cov, samples, generator=torch.Generator().manual_seed(1)).float()
    idx = torch.arange(len(cand))[None]
    return pfn.grouped_entropy_search(f, idx, SD, bins=16, points=64)[0]


def _qjes() -> torch.Tensor:
    from botorch.acquisition.joint_entropy_search import qJointEntropySearch
    from botorch.acquisition.utils import get_optimal_samples

    bounds = torch.tensor([[0.0], [1.0]], dtype=torch.float64)
    xs, fs = get_optimal_samples(_model, bounds, num_optima=32)
    with torch.no_grad():
        return qJointEntropySearch(_model, optimal_inputs=xs, optimal_outputs=fs)(
            _cand[:, None, None]
        )


register(
    name="score 1024 candidates once: α-network forward vs grouped MC MES (M = 1000)",
    kernel=lambda: _alpha(_cand),
    reference=lambda: _mes(_cand, 1000),
    library=_qjes,
    library_name="BoTorch get_optimal_samples (32 optima) + qJointEntropySearch",
)

_mu64, _cov64 = pfn.gp_posterior(
    _task.x_ctx, _task.y_ctx, _task.mask, _grid64, noise_sd=SD, **PRIOR
)
_f64 = pfn.sample_posterior(_mu64, _cov64, 256, generator=torch.Generator().manual_seed(2))
_idx64 = torch.arange(64)[None]
_f64_np, _idx64_np = _f64[0].numpy(), _idx64[0].numpy()


def _qmes() -> torch.Tensor:
    from botorch.acquisition.max_value_entropy_search import qMaxValueEntropy

    with torch.no_grad():
        acq = qMaxValueEntropy(_model, candidate_set=_grid64[:, None], num_mv_samples=64)
        return acq(_grid64[:, None, None])


register(
    name="grouped MC MES, 64 candidates, M = 256: batched kernel vs per-candidate loop",
    kernel=lambda: pfn.grouped_entropy_search(_f64, _idx64, SD, bins=16, points=64),
    reference=lambda: _reference(_f64_np, _idx64_np, SD, "mes", 16),
    library=_qmes,
    library_name="BoTorch qMaxValueEntropy (64 max-value samples)",
)


def _mes_at(candidates: int):
    cand = torch.linspace(0, 1, candidates, dtype=torch.float64)
    mu, cov = pfn.gp_posterior(_task.x_ctx, _task.y_ctx, _task.mask, cand, noise_sd=SD, **PRIOR)
    f = pfn.sample_posterior(mu, cov, 256, generator=torch.Generator().manual_seed(3)).float()
    idx = torch.arange(candidates)[None]
    return lambda: pfn.grouped_entropy_search(f, idx, SD, bins=16, points=64)


register_scaling(
    "grouped MC MES kernel, M = 256, one dataset",
    make=_mes_at,
    sizes=(32, 128, 512, 2048),
    size_label="candidates",
)
