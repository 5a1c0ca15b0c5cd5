"""Bayesian optimisation on synthetic benchmarks for chapter 06's paper-scale variant.

The benchmarks are BoTorch's Branin (2-D) and Hartmann (3-D), rescaled to ``[0, 1]^d`` and
negated, so that every policy maximises, as the α-PFN's contract asks. The driver
:func:`bo_benchmark` runs one policy on many independent runs at once (the runs share the
iteration count and so the context size, which keeps the batch rectangular); the policies
score a fresh set of uniform candidates at every iteration and the best-scored one is
evaluated. Policies: the α-network's mean (:prf:ref:`alpha-pfn-prop-nll`), BoTorch's
max-value entropy search and expected improvement on a fitted ``SingleTaskGP``
(:prf:ref:`alpha-pfn-def-es`), and random search.
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass

import torch
from torch import Tensor, nn

from icml26 import checks
from icml26.bayesopt.pfn.bars import bar_mean
from icml26.bayesopt.pfn.prior_nd import standardize_context

__all__ = [
    "BENCHMARKS",
    "BOResult",
    "Benchmark",
    "alpha_policy",
    "benchmark",
    "bo_benchmark",
    "gp_policy",
    "random_policy",
]

#: a policy scores candidates ``(S, C, d)`` given contexts ``(S, n, d)`` and ``y`` ``(S, n)``
Policy = Callable[[Tensor, Tensor, Tensor], Tensor]

BENCHMARKS = ("branin", "hartmann3")


@dataclass(frozen=True)
class Benchmark:
    """A test function on ``[0, 1]^dim`` to maximise, with its known maximum."""

    name: str
    dim: int
    fn: Callable[[Tensor], Tensor]  # (..., dim) in [0, 1]^dim -> (...)
    optimum: float

    def __call__(self, x: Tensor) -> Tensor:
        checks.tensor("x", x, floating=True)
        if x.ndim == 0 or x.shape[-1] != self.dim:
            raise ValueError(f"x must end in dim = {self.dim}, got {tuple(x.shape)}")
        return self.fn(x)


def benchmark(name: str) -> Benchmark:
    """``"branin"`` or ``"hartmann3"`` (``BENCHMARKS``): BoTorch's test function with its
    native bounds mapped to ``[0, 1]^d``, negated; ``optimum`` is minus the known minimum."""
    from botorch.test_functions import Branin, Hartmann

    if name not in BENCHMARKS:
        raise ValueError(f"name must be one of {BENCHMARKS}, got {name!r}")
    problem = Branin() if name == "branin" else Hartmann(dim=3)
    bounds = torch.as_tensor(problem.bounds, dtype=torch.float64)  # (2, d)
    lo, span = bounds[0], bounds[1] - bounds[0]

    def fn(x: Tensor) -> Tensor:
        flat = (lo.to(x) + span.to(x) * x).reshape(-1, problem.dim)
        return -problem.evaluate_true(flat).reshape(x.shape[:-1])

    return Benchmark(name, problem.dim, fn, -float(problem.optimal_value))


@dataclass(frozen=True)
class BOResult:
    """The runs of one policy on one benchmark."""

    x: Tensor  # (S, n_init + n_iter, d) the evaluated points in order
    y: Tensor  # (S, n_init + n_iter) their observations
    regret: Tensor  # (S, n_iter + 1) simple regret after the design and after each step
    seconds: Tensor  # (n_iter,) wall time of the policy's call at each iteration (all runs)


def bo_benchmark(
    bench: Benchmark,
    policy: Policy,
    *,
    runs: int,
    n_init: int,
    n_iter: int,
    candidates: int,
    noise_sd: float = 0.0,
    generator: torch.Generator,
    device: torch.device | str = "cpu",
) -> BOResult:
    """Batched BO: ``runs`` independent runs of ``policy`` on ``bench``.

    Each run starts from ``n_init`` uniform points; at each of ``n_iter`` iterations the
    policy scores ``candidates`` fresh uniform points per run and the best-scored one is
    evaluated (``y = f(x) + noise_sd · ε``). The designs, candidate sets and noise come from
    ``generator`` only, so two policies driven by equally seeded generators see the same
    initial designs and candidates. Simple regret is ``optimum − max_t f(x_t)``, noiseless.
    """
    if not isinstance(bench, Benchmark):
        raise ValueError(f"bench must be a Benchmark, got {type(bench).__name__}")
    if not callable(policy):
        raise ValueError("policy must be callable")
    runs = checks.integer("runs", runs, low=1)
    n_init = checks.integer("n_init", n_init, low=1)
    n_iter = checks.integer("n_iter", n_iter, low=0)
    candidates = checks.integer("candidates", candidates, low=1)
    noise_sd = checks.real("noise_sd", noise_sd, low=0.0)
    d, total = bench.dim, n_init + n_iter
    dt = torch.float64
    x0 = torch.rand(runs, n_init, d, generator=generator, dtype=dt)
    cands = torch.rand(n_iter, runs, candidates, d, generator=generator, dtype=dt)
    eps = torch.randn(runs, total, generator=generator, dtype=dt)
    x0, cands, eps = (t.to(device) for t in (x0, cands, eps))
    x = torch.zeros(runs, total, d, dtype=dt, device=x0.device)
    f = torch.zeros(runs, total, dtype=dt, device=x0.device)
    x[:, :n_init] = x0
    f[:, :n_init] = bench(x0)
    regret = [bench.optimum - f[:, :n_init].max(-1).values]
    seconds = []
    for t in range(n_init, total):
        y = f[:, :t] + noise_sd * eps[:, :t]
        c = cands[t - n_init]
        t0 = time.perf_counter()
        scores = policy(x[:, :t], y, c)
        seconds.append(time.perf_counter() - t0)
        checks.shape("policy output", scores, (runs, candidates))
        if bool(torch.isnan(scores).any()):
            raise ValueError("policy output must not contain NaN")
        best = scores.argmax(-1)
        x[:, t] = c[torch.arange(runs, device=c.device), best]
        f[:, t] = bench(x[:, t])
        regret.append(bench.optimum - f[:, : t + 1].max(-1).values)
    y = f + noise_sd * eps
    return BOResult(x, y, torch.stack(regret, 1), torch.tensor(seconds, dtype=dt))


def alpha_policy(net: nn.Module, borders: Tensor) -> Policy:
    """The α-PFN acquisition: the mean of a d-dimensional α-network's bar distribution over
    the candidates, given the runs' contexts with ``y`` standardised per run."""
    if not isinstance(net, nn.Module) or getattr(net, "dim", None) is None:
        raise ValueError("net must be a d-dimensional AlphaNet (dim set)")
    checks.tensor("borders", borders, ndim=1, floating=True)
    checks.finite("borders", borders)
    dt = next(net.parameters()).dtype

    def score(x_ctx: Tensor, y_ctx: Tensor, cands: Tensor) -> Tensor:
        mask = torch.ones(y_ctx.shape, dtype=torch.bool, device=y_ctx.device)
        ys = standardize_context(y_ctx, mask)
        with torch.no_grad():
            logits = net(x_ctx.to(dt), ys.to(dt), mask, cands.to(dt))
            return bar_mean(borders.to(dt), logits).to(cands.dtype)

    return score


def random_policy(generator: torch.Generator) -> Policy:
    """Random search: uniform scores, so a uniformly random candidate is evaluated."""
    if not isinstance(generator, torch.Generator):
        raise ValueError(f"generator must be a torch.Generator, got {type(generator).__name__}")

    def score(x_ctx: Tensor, y_ctx: Tensor, cands: Tensor) -> Tensor:
        return torch.rand(cands.shape[:2], generator=generator, dtype=cands.dtype).to(cands)

    return score


def gp_policy(kind: str, *, mv_samples: int = 10, seed: int = 0) -> Policy:
    """A GP-based acquisition, one run at a time: BoTorch's ``SingleTaskGP`` (its default
    priors and outcome standardisation) fitted by marginal likelihood, then
    ``qMaxValueEntropy`` (``kind="mes"``: ``mv_samples`` Gumbel max-value samples on the
    candidate set) or log expected improvement (``kind="ei"``, over the best observation).
    Each call seeds torch's global generator with ``seed`` plus a call counter, so runs repeat.
    """
    if kind not in ("mes", "ei"):
        raise ValueError(f"kind must be 'mes' or 'ei', got {kind!r}")
    mv_samples = checks.integer("mv_samples", mv_samples, low=1)
    seed = checks.integer("seed", seed, low=0)
    calls = [0]

    def score(x_ctx: Tensor, y_ctx: Tensor, cands: Tensor) -> Tensor:
        from botorch.acquisition import AcquisitionFunction
        from botorch.acquisition.analytic import LogExpectedImprovement
        from botorch.acquisition.max_value_entropy_search import qMaxValueEntropy
        from botorch.fit import fit_gpytorch_mll
        from botorch.models import SingleTaskGP
        from gpytorch.mlls import ExactMarginalLogLikelihood

        out = []
        for s in range(x_ctx.shape[0]):
            torch.manual_seed(seed + calls[0])
            calls[0] += 1
            X, Y = x_ctx[s].double(), y_ctx[s].double()[:, None]
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                model = SingleTaskGP(X, Y)
                fit_gpytorch_mll(ExactMarginalLogLikelihood(model.likelihood, model))
                C = cands[s].double()
                acq: AcquisitionFunction
                if kind == "mes":
                    acq = qMaxValueEntropy(model, C, num_mv_samples=mv_samples)
                else:
                    acq = LogExpectedImprovement(model, best_f=Y.max())
                with torch.no_grad():
                    out.append(acq(C[:, None, :]))
        return torch.stack(out).to(cands)

    return score
