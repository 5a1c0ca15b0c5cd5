"""Chapter 06 (α-PFN): the amortised acquisition against Monte-Carlo entropy search and BoTorch.

- Case 1 (the paper's headline ratio): scoring 1024 candidates once for one dataset — the
  α-network forward pass (untrained float64 weights, as in the chapter: the cost does not
  depend on the weights) against the batched grouped PES with M = 1000 posterior samples
  (posterior and sampling included), and against each of BoTorch's three entropy-search
  acquisitions with fresh optimal samples: ``get_optimal_samples`` (32 optima) +
  ``qJointEntropySearch``; the same + ``qPredictiveEntropySearch``; ``qMaxValueEntropy`` with
  32 Gumbel max-value samples on the candidate set.
- Case 2: the grouped PES kernel against the notebook's readable per-candidate, per-group loop
  (``grouped_es_reference``), 64 candidates and M = 256 samples of one dataset, against
  BoTorch ``qPredictiveEntropySearch`` on the same candidates with 32 of those samples' maximisers
  as its optimal inputs.
- Scaling: the grouped PES kernel over the number of candidates.
"""

from __future__ import annotations

import torch

from benchmarks.registry import register, register_scaling
from icml26.bayesopt import pfn
from icml26.pipeline.notebooks import notebook_functions

_reference = notebook_functions("06-alpha-pfn", "grouped_es_reference")["grouped_es_reference"]

PRIOR = dict(lengthscale=0.15, variance=1.0)
SD = 0.1
N_OPTIMA = 32
_gen = torch.Generator().manual_seed(0)
_grid64 = torch.linspace(0, 1, 64, dtype=torch.float64)
_task = pfn.make_tasks(_grid64, 1, (8, 8), noise_sd=SD, generator=_gen, **PRIOR)
_cand = torch.linspace(0, 1, 1024, dtype=torch.float64)
_bounds = torch.tensor([[0.0], [1.0]], dtype=torch.float64)
torch.manual_seed(0)
_net = pfn.AlphaNet(64).double()
_borders = pfn.equal_borders(-0.5, 2.0, 64)
_m = _task.mask[0]
_model = pfn.fixed_gp_model(_task.x_ctx[0][_m], _task.y_ctx[0][_m], noise_sd=SD, **PRIOR)


@torch.no_grad()
def _alpha(cand: torch.Tensor) -> torch.Tensor:
    return pfn.bar_mean(_borders, _net(_task.x_ctx, _task.y_ctx, _task.mask, cand[None]))


def _pes(cand: torch.Tensor, samples: int) -> torch.Tensor:
    mu, cov = pfn.gp_posterior(_task.x_ctx, _task.y_ctx, _task.mask, cand, noise_sd=SD, **PRIOR)
    f = pfn.sample_posterior(mu, cov, samples, generator=torch.Generator().manual_seed(1)).float()
    idx = torch.arange(len(cand))[None]
    return pfn.grouped_entropy_search(f, idx, SD, kind="pes", bins=16, points=64)[0]


def _botorch(name: str):
    from botorch.acquisition.joint_entropy_search import qJointEntropySearch
    from botorch.acquisition.max_value_entropy_search import qMaxValueEntropy
    from botorch.acquisition.predictive_entropy_search import qPredictiveEntropySearch
    from botorch.acquisition.utils import get_optimal_samples

    def run() -> torch.Tensor:
        if name == "qMES":
            with torch.no_grad():
                acq = qMaxValueEntropy(
                    _model, candidate_set=_cand[:, None], num_mv_samples=N_OPTIMA
                )
                return acq(_cand[:, None, None])
        xs, fs = get_optimal_samples(_model, _bounds, num_optima=N_OPTIMA)
        with torch.no_grad():
            if name == "qJES":
                acq = qJointEntropySearch(_model, optimal_inputs=xs, optimal_outputs=fs)
            else:
                acq = qPredictiveEntropySearch(_model, optimal_inputs=xs)
            return acq(_cand[:, None, None])

    return run


for _name, _label in [
    ("qJES", f"get_optimal_samples ({N_OPTIMA} optima) + qJointEntropySearch"),
    ("qPES", f"get_optimal_samples ({N_OPTIMA} optima) + qPredictiveEntropySearch"),
    ("qMES", f"qMaxValueEntropy ({N_OPTIMA} Gumbel max values on the candidates)"),
]:
    register(
        name=f"score 1024 candidates once: α-network forward vs grouped MC PES (M = 1000), {_name}",
        kernel=lambda: _alpha(_cand),
        reference=lambda: _pes(_cand, 1000),
        library=_botorch(_name),
        library_name=f"BoTorch {_label}",
    )

_mu64, _cov64 = pfn.gp_posterior(
    _task.x_ctx, _task.y_ctx, _task.mask, _grid64, noise_sd=SD, **PRIOR
)
_f64 = pfn.sample_posterior(_mu64, _cov64, 256, generator=torch.Generator().manual_seed(2))
_idx64 = torch.arange(64)[None]
_f64_np, _idx64_np = _f64[0].numpy(), _idx64[0].numpy()
_x_star = _grid64[_f64[0, :N_OPTIMA].argmax(-1)][:, None]


def _qpes64() -> torch.Tensor:
    from botorch.acquisition.predictive_entropy_search import qPredictiveEntropySearch

    with torch.no_grad():
        acq = qPredictiveEntropySearch(_model, optimal_inputs=_x_star)
        return acq(_grid64[:, None, None])


register(
    name="grouped MC PES, 64 candidates, M = 256: batched kernel vs per-candidate loop",
    kernel=lambda: pfn.grouped_entropy_search(_f64, _idx64, SD, kind="pes", bins=16, points=64),
    reference=lambda: _reference(_f64_np, _idx64_np, SD, "pes", 16),
    library=_qpes64,
    library_name=f"BoTorch qPredictiveEntropySearch ({N_OPTIMA} shared optimal inputs)",
)


def _pes_at(candidates: int):
    cand = torch.linspace(0, 1, candidates, dtype=torch.float64)
    mu, cov = pfn.gp_posterior(_task.x_ctx, _task.y_ctx, _task.mask, cand, noise_sd=SD, **PRIOR)
    f = pfn.sample_posterior(mu, cov, 256, generator=torch.Generator().manual_seed(3)).float()
    idx = torch.arange(candidates)[None]
    return lambda: pfn.grouped_entropy_search(f, idx, SD, kind="pes", bins=16, points=64)


register_scaling(
    "grouped MC PES kernel, M = 256, one dataset",
    make=_pes_at,
    sizes=(32, 128, 512, 2048),
    size_label="candidates",
)
