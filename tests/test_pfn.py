"""Tests of icml26.bayesopt.pfn (chapter 06): bar distributions, GP prior and posterior, grouped
Monte-Carlo entropy search, the α-network and the BO loop; cross-checks with scipy, BoTorch and
the ``alphapfn`` package."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
import torch
from alphapfn.model.bar_distribution import BarDistribution, FullSupportBarDistribution
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import integrate, stats

from icml26.bayesopt import pfn
from icml26.pipeline.notebooks import notebook_functions

_refs = notebook_functions("06-alpha-pfn", "bar_entropy_reference", "grouped_es_reference")
bar_entropy_reference = _refs["bar_entropy_reference"]
grouped_es_reference = _refs["grouped_es_reference"]

GRID = torch.linspace(0, 1, 32, dtype=torch.float64)
PRIOR = dict(lengthscale=0.15, variance=1.0)


def _gen(seed: int = 0) -> torch.Generator:
    return torch.Generator().manual_seed(seed)


def _tasks(num: int = 4, seed: int = 0) -> pfn.Tasks:
    return pfn.make_tasks(GRID, num, (2, 6), noise_sd=0.1, generator=_gen(seed), **PRIOR)


# --- bar distribution ----------------------------------------------------------------------


@settings(max_examples=15, deadline=None)
@given(st.integers(2, 12), st.integers(0, 10_000), st.booleans())
def test_bar_entropy_matches_quadrature(buckets: int, seed: int, full: bool) -> None:
    g = _gen(seed)
    b = torch.cumsum(torch.rand(buckets + 1, generator=g, dtype=torch.float64) + 0.05, 0)
    z = 3 * torch.randn(buckets, generator=g, dtype=torch.float64)
    want = bar_entropy_reference(b.numpy(), torch.softmax(z, 0).numpy(), full)
    assert abs(float(pfn.bar_entropy(b, z, full_support=full)) - want) < 1e-8


@pytest.mark.parametrize("full", [False, True])
def test_bar_density_integrates_to_one_and_mean_matches(full: bool) -> None:
    g = _gen(1)
    b = torch.sort(torch.rand(7, generator=g, dtype=torch.float64) * 4).values
    z = torch.randn(6, generator=g, dtype=torch.float64)

    def dens(y: float) -> float:
        return float(pfn.bar_log_density(b, z, torch.tensor(y), full_support=full).exp())

    lo, hi = (-np.inf, np.inf) if full else (float(b[0]), float(b[-1]))
    pts = list(b.numpy()[1:-1])
    mass = sum(integrate.quad(dens, a, c)[0] for a, c in _pieces(lo, hi, pts))
    first = sum(integrate.quad(lambda y: y * dens(y), a, c)[0] for a, c in _pieces(lo, hi, pts))
    assert abs(mass - 1) < 1e-8
    assert abs(first - float(pfn.bar_mean(b, z, full_support=full))) < 1e-7


def _pieces(lo: float, hi: float, pts: list[float]) -> list[tuple[float, float]]:
    edges = [lo, *pts, hi]
    return list(itertools.pairwise(edges))


def test_bar_entropy_of_fine_gaussian_bar_approaches_normal_entropy() -> None:
    b = pfn.equal_borders(-6.0, 6.0, 2000)
    logits = torch.diff(torch.special.ndtr(b)).log()
    gap = float(pfn.bar_entropy(b, logits)) - 0.5 * math.log(2 * math.pi * math.e)
    assert 0 <= gap < 1e-5


def test_bar_nll_of_point_in_bucket() -> None:
    b = pfn.equal_borders(0.0, 2.0, 2)
    z = torch.log(torch.tensor([[0.25, 0.75]], dtype=torch.float64))
    assert torch.allclose(
        pfn.bar_nll(b, z, torch.tensor([1.5], dtype=torch.float64)),
        -torch.log(torch.tensor(0.75)).double(),
    )
    out = pfn.bar_log_density(b, z, torch.tensor([3.0], dtype=torch.float64))
    assert torch.isinf(out).all()


def test_quantile_borders_cover_samples() -> None:
    s = torch.randn(500, generator=_gen(2), dtype=torch.float64)
    b = pfn.quantile_borders(s, 16)
    assert b.numel() == 17 and bool((torch.diff(b) > 0).all())
    assert b[0] < s.min() and b[-1] > s.max()


def test_against_alphapfn_bar_distribution() -> None:
    g = _gen(3)
    b = torch.sort(torch.randn(11, generator=g, dtype=torch.float64)).values
    z = torch.randn(5, 10, generator=g, dtype=torch.float64)
    inner, full = BarDistribution(b), FullSupportBarDistribution(b)
    assert torch.allclose(pfn.bar_entropy(b, z), inner.entropy(z), atol=1e-10)
    assert torch.allclose(pfn.bar_entropy(b, z, full_support=True), full.entropy(z), atol=1e-6)
    assert torch.allclose(pfn.bar_mean(b, z), inner.mean(z), atol=1e-10)
    assert torch.allclose(pfn.bar_mean(b, z, full_support=True), full.mean(z), atol=1e-6)
    y = b[0] + (b[-1] - b[0]) * torch.rand(5, generator=g, dtype=torch.float64)
    assert torch.allclose(-pfn.bar_log_density(b, z, y), inner(z, y), atol=1e-10)


def test_empty_bucket_logits_are_allowed() -> None:
    b = pfn.equal_borders(0.0, 3.0, 3)
    z = torch.tensor([[0.0, -math.inf, 0.0]], dtype=torch.float64)
    assert torch.allclose(pfn.bar_mean(b, z), torch.tensor([1.5], dtype=torch.float64))
    assert torch.allclose(pfn.bar_entropy(b, z), torch.tensor([math.log(2.0)], dtype=torch.float64))


# --- GP, entropy search, EI ----------------------------------------------------------------


def test_gp_posterior_matches_botorch_and_ignores_padding() -> None:
    t = _tasks(3)
    mu, cov = pfn.gp_posterior(t.x_ctx, t.y_ctx, t.mask, GRID, noise_sd=0.1, **PRIOR)
    for i in range(3):
        m = t.mask[i]
        model = pfn.fixed_gp_model(t.x_ctx[i][m], t.y_ctx[i][m], noise_sd=0.1, **PRIOR)
        with torch.no_grad():
            post = model.posterior(GRID[:, None])
        assert torch.allclose(post.mean[:, 0], mu[i], atol=1e-6)
        assert torch.allclose(post.variance[:, 0], torch.diagonal(cov[i]), atol=1e-6)
        mu1, cov1 = pfn.gp_posterior(
            t.x_ctx[i : i + 1, m],
            t.y_ctx[i : i + 1, m],
            t.mask[i : i + 1, m],
            GRID,
            noise_sd=0.1,
            **PRIOR,
        )
        assert torch.allclose(mu1[0], mu[i], atol=1e-9) and torch.allclose(
            cov1[0], cov[i], atol=1e-9
        )


@pytest.mark.parametrize("kind", ["mes", "pes"])
def test_grouped_es_matches_reference_and_is_nonnegative(kind: str) -> None:
    t = _tasks(2, seed=4)
    mu, cov = pfn.gp_posterior(t.x_ctx, t.y_ctx, t.mask, GRID, noise_sd=0.1, **PRIOR)
    f = pfn.sample_posterior(mu, cov, 120, generator=_gen(5))
    q = torch.arange(0, 32, 3).expand(2, -1)
    acq, lab = pfn.grouped_entropy_search(f, q, 0.1, kind=kind, bins=8, points=128)
    for i in range(2):
        ra, rl = grouped_es_reference(f[i].numpy(), q[i].numpy(), 0.1, kind, 8)
        assert np.allclose(acq[i].numpy(), ra, atol=1e-5) and np.allclose(
            lab[i].numpy(), rl, atol=1e-5
        )
    assert bool((acq > -1e-6).all())


def test_grouped_es_one_bin_is_zero() -> None:
    f = torch.randn(2, 50, 16, generator=_gen(6), dtype=torch.float64)
    acq, lab = pfn.grouped_entropy_search(f, torch.arange(16).expand(2, -1), 0.1, bins=1)
    assert acq.abs().max() < 1e-10 and lab.abs().max() < 1e-10


def test_mixture_entropy_of_one_gaussian() -> None:
    h = pfn.mixture_entropy(torch.zeros(3, 1, dtype=torch.float64), 0.3)
    assert torch.allclose(
        h,
        torch.full((3,), 0.5 * math.log(2 * math.pi * math.e * 0.09), dtype=torch.float64),
        atol=1e-9,
    )


def test_truncated_normal_entropy_matches_scipy() -> None:
    g = _gen(7)
    mu = torch.randn(20, generator=g, dtype=torch.float64)
    sd = torch.rand(20, generator=g, dtype=torch.float64) + 0.1
    up = mu + sd * (6 * torch.rand(20, generator=g, dtype=torch.float64) - 2)
    want = [
        stats.truncnorm(-30.0, float((u - m) / s), loc=float(m), scale=float(s)).entropy()
        for m, s, u in zip(mu, sd, up, strict=True)
    ]
    assert np.allclose(pfn.truncated_normal_entropy(mu, sd, up).numpy(), want, atol=1e-9)


def test_truncated_gaussian_mes_matches_botorch_qmes() -> None:
    from botorch.acquisition.max_value_entropy_search import qMaxValueEntropy

    t = _tasks(1, seed=11)
    m = t.mask[0]
    model = pfn.fixed_gp_model(t.x_ctx[0][m], t.y_ctx[0][m], noise_sd=0.1, **PRIOR)
    mu, cov = pfn.gp_posterior(t.x_ctx, t.y_ctx, t.mask, GRID, noise_sd=0.1, **PRIOR)
    f_star = pfn.sample_posterior(mu, cov, 16, generator=_gen(12))[0].max(-1).values
    torch.manual_seed(0)
    with torch.no_grad():
        acq = qMaxValueEntropy(
            model, candidate_set=GRID[:, None], num_mv_samples=16, num_y_samples=4096
        )
        acq.posterior_max_values = f_star[:, None]
        want = acq(GRID[:, None, None])
    var = torch.diagonal(cov[0]).clamp_min(1e-12)
    got = pfn.truncated_gaussian_mes(mu[0], var, 0.1, f_star)
    assert float((got - want).abs().max()) < 2e-3
    assert bool((got > -1e-9).all())
    # quadrature converged, f* draws averaged in chunks, and a far-away f* gives no information
    fine = pfn.truncated_gaussian_mes(mu[0], var, 0.1, f_star, points=1601)
    assert torch.allclose(got, fine, atol=1e-8)
    one_by_one = torch.stack([pfn.truncated_gaussian_mes(mu[0], var, 0.1, f[None]) for f in f_star])
    assert torch.allclose(got, one_by_one.mean(0), atol=1e-12)
    far = pfn.truncated_gaussian_mes(mu[0], var, 0.1, torch.full((3,), 50.0, dtype=torch.float64))
    assert float(far.abs().max()) < 1e-8


def test_expected_improvement_matches_botorch() -> None:
    from botorch.acquisition.analytic import ExpectedImprovement

    t = _tasks(1, seed=8)
    m = t.mask[0]
    model = pfn.fixed_gp_model(t.x_ctx[0][m], t.y_ctx[0][m], noise_sd=0.1, **PRIOR)
    best = float(t.y_ctx[0][m].max())
    with torch.no_grad():
        want = ExpectedImprovement(model, best_f=best)(GRID[:, None, None])
    mu, cov = pfn.gp_posterior(t.x_ctx, t.y_ctx, t.mask, GRID, noise_sd=0.1, **PRIOR)
    got = pfn.expected_improvement(
        mu[0], torch.diagonal(cov[0]), torch.tensor(best, dtype=torch.float64)
    )
    assert torch.allclose(got, want, atol=1e-6)


# --- α-network and BO loop -------------------------------------------------------------------


def test_alpha_net_is_permutation_invariant_and_ignores_padding() -> None:
    torch.manual_seed(0)
    net = pfn.AlphaNet(8).double()
    t = _tasks(2, seed=9)
    xq = GRID[:5].expand(2, -1)
    out = net(t.x_ctx, t.y_ctx, t.mask, xq)
    perm = torch.randperm(t.x_ctx.shape[1], generator=_gen(1))
    assert torch.allclose(
        out, net(t.x_ctx[:, perm], t.y_ctx[:, perm], t.mask[:, perm], xq), atol=1e-10
    )
    junk = torch.where(t.mask, t.y_ctx, torch.full_like(t.y_ctx, 99.0))
    assert torch.allclose(out, net(t.x_ctx, junk, t.mask, xq), atol=1e-10)


def test_training_lowers_the_nll() -> None:
    torch.manual_seed(0)
    t = _tasks(16, seed=10)
    xq = GRID[:4].expand(16, -1).float()
    labels = (xq - 0.5) ** 2 + 0.01 * torch.randn(16, 4, generator=_gen(2))
    b = pfn.quantile_borders(labels.reshape(-1).double(), 8)
    net = pfn.AlphaNet(8)
    losses = pfn.train_alpha_net(
        net,
        b,
        t.x_ctx.float(),
        t.y_ctx.float(),
        t.mask,
        xq,
        labels,
        steps=60,
        batch=8,
        generator=_gen(3),
    )
    assert np.mean(losses[-10:]) < np.mean(losses[:10])


def test_bo_loop_with_oracle_acquisition_finds_optimum() -> None:
    f = pfn.sample_gp_prior(GRID, 5, generator=_gen(11), **PRIOR)
    oracle = lambda x, y, m: f  # noqa: E731
    reg = pfn.bo_loop(f, GRID, oracle, n_init=1, n_iter=2, noise_sd=0.1, generator=_gen(12))
    assert reg.shape == (5, 3) and bool((reg[:, 1:] == 0).all())
    assert bool((torch.diff(reg, dim=1) <= 0).all())


# --- argument validation: one test per check -------------------------------------------------

B4 = pfn.equal_borders(0.0, 1.0, 4)
Z4 = torch.zeros(3, 4, dtype=torch.float64)
NAN3 = torch.tensor([0.0, math.nan, 1.0], dtype=torch.float64)


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: pfn.equal_borders(1.0, 0.0, 4), "hi"),
        (lambda: pfn.equal_borders(0.0, 1.0, 0), "buckets"),
        (lambda: pfn.quantile_borders(torch.ones(5, dtype=torch.float64), 4), "samples"),
        (lambda: pfn.quantile_borders(torch.tensor([1.0, 2.0]), 0), "buckets"),
        (lambda: pfn.quantile_borders(torch.tensor([[1.0, 2.0]]), 2), "samples"),
        (
            lambda: pfn.bar_entropy(
                torch.tensor([0.0, 1.0, 0.5], dtype=torch.float64), torch.zeros(2)
            ),
            "borders",
        ),
        (lambda: pfn.bar_entropy(B4, torch.zeros(3, 5)), "logits"),
        (lambda: pfn.bar_mean(B4, [0.0, 0.0, 0.0, 0.0]), "logits"),
        (lambda: pfn.bar_log_density(B4, Z4, torch.zeros(4, dtype=torch.float64)), "y"),
        (lambda: pfn.bar_nll(B4, Z4, torch.zeros(2, dtype=torch.float64)), "y"),
        (lambda: pfn.rbf_kernel(GRID, GRID, -1.0, 1.0), "lengthscale"),
        (lambda: pfn.rbf_kernel(GRID, GRID, 0.1, 0.0), "variance"),
        (lambda: pfn.sample_gp_prior(GRID, 0, 0.1, 1.0, generator=_gen()), "num"),
        (lambda: pfn.make_tasks(GRID, 2, (0, 3), 0.1, 1.0, 0.1, generator=_gen()), "n_range"),
        (lambda: pfn.make_tasks(GRID, 2, (3, 2), 0.1, 1.0, 0.1, generator=_gen()), "n_range"),
        (lambda: pfn.make_tasks(GRID, 2, (1, 3), 0.1, 1.0, 0.0, generator=_gen()), "noise_sd"),
        (
            lambda: pfn.gp_posterior(
                GRID[None, :3],
                GRID[None, :2],
                torch.ones(1, 3, dtype=torch.bool),
                GRID,
                0.1,
                1.0,
                0.1,
            ),
            "x_ctx",
        ),
        (
            lambda: pfn.gp_posterior(
                GRID[None, :3],
                GRID[None, :3],
                torch.zeros(1, 3, dtype=torch.bool),
                GRID,
                0.1,
                1.0,
                0.1,
            ),
            "mask",
        ),
        (
            lambda: pfn.sample_posterior(
                torch.zeros(1, 3), torch.zeros(1, 2, 2), 4, generator=_gen()
            ),
            "cov",
        ),
        (
            lambda: pfn.sample_posterior(
                torch.zeros(1, 2), torch.eye(2)[None], 0, generator=_gen()
            ),
            "num",
        ),
        (lambda: pfn.mixture_entropy(torch.zeros(2, 3), 0.0), "noise_sd"),
        (
            lambda: pfn.grouped_entropy_search(
                torch.zeros(2, 3, 4), torch.zeros(2, 1, dtype=torch.long), 0.1, kind="ei"
            ),
            "kind",
        ),
        (
            lambda: pfn.grouped_entropy_search(torch.zeros(2, 3, 4), torch.full((2, 1), 4), 0.1),
            "query_idx",
        ),
        (
            lambda: pfn.grouped_entropy_search(
                torch.zeros(2, 3, 4), torch.zeros(3, 1, dtype=torch.long), 0.1
            ),
            "query_idx",
        ),
        (
            lambda: pfn.grouped_entropy_search(
                torch.zeros(2, 1, 4), torch.zeros(2, 1, dtype=torch.long), 0.1
            ),
            "f_samples",
        ),
        (
            lambda: pfn.grouped_entropy_search(
                torch.zeros(2, 3, 4), torch.zeros(2, 1, dtype=torch.long), 0.1, bins=0
            ),
            "bins",
        ),
        (
            lambda: pfn.truncated_gaussian_mes(torch.zeros(2), torch.zeros(2), 0.1, torch.zeros(3)),
            "var",
        ),
        (
            lambda: pfn.truncated_gaussian_mes(torch.zeros(2), torch.ones(3), 0.1, torch.zeros(3)),
            "var",
        ),
        (
            lambda: pfn.truncated_gaussian_mes(torch.zeros(2), torch.ones(2), 0.0, torch.zeros(3)),
            "noise_sd",
        ),
        (
            lambda: pfn.truncated_gaussian_mes(
                torch.zeros(2), torch.ones(2), 0.1, torch.zeros(3, 4)
            ),
            "f_star",
        ),
        (
            lambda: pfn.truncated_gaussian_mes(torch.zeros(2), torch.ones(2), 0.1, torch.zeros(0)),
            "f_star",
        ),
        (
            lambda: pfn.truncated_gaussian_mes(
                torch.zeros(2), torch.ones(2), 0.1, torch.full((3,), math.nan)
            ),
            "f_star",
        ),
        (
            lambda: pfn.truncated_gaussian_mes(
                torch.zeros(2), torch.ones(2), 0.1, torch.zeros(3), points=2
            ),
            "points",
        ),
        (
            lambda: pfn.truncated_normal_entropy(torch.zeros(2), -torch.ones(2), torch.zeros(2)),
            "sigma",
        ),
        (lambda: pfn.expected_improvement(torch.zeros(2), -torch.ones(2), torch.zeros(())), "var"),
        (lambda: pfn.expected_improvement(torch.zeros(2), torch.ones(3), torch.zeros(())), "var"),
        (lambda: pfn.AlphaNet(1), "buckets"),
        (
            lambda: pfn.AlphaNet(4)(
                GRID[None, :3].float(),
                GRID[None, :3].float(),
                torch.ones(1, 3, dtype=torch.bool),
                GRID[None, :2].float().expand(2, -1),
            ),
            "x_query",
        ),
        (
            lambda: pfn.bo_loop(
                torch.zeros(2, 5),
                GRID,
                lambda x, y, m: x,
                n_init=1,
                n_iter=1,
                noise_sd=0.1,
                generator=_gen(),
            ),
            "f",
        ),
        (
            lambda: pfn.bo_loop(
                torch.zeros(2, 32, dtype=torch.float64),
                GRID,
                lambda x, y, m: x,
                n_init=0,
                n_iter=1,
                noise_sd=0.1,
                generator=_gen(),
            ),
            "n_init",
        ),
        (
            lambda: pfn.bo_loop(
                torch.zeros(2, 32, dtype=torch.float64),
                GRID,
                lambda x, y, m: x,
                n_init=1,
                n_iter=1,
                noise_sd=0.1,
                generator=_gen(),
            ),
            "acquisition output",
        ),
        (lambda: pfn.fixed_gp_model(GRID[:3], GRID[:2], 0.1, 1.0, 0.1), "y"),
        (lambda: pfn.fixed_gp_model(NAN3, GRID[:3], 0.1, 1.0, 0.1), "x"),
        (lambda: pfn.bar_entropy(B4, torch.full((3, 4), math.nan)), "logits"),
        (lambda: pfn.bar_mean(B4, torch.full((3, 4), math.inf)), "logits"),
        (lambda: pfn.bar_log_density(B4, Z4, torch.full((3,), math.nan)), "y"),
        (lambda: pfn.rbf_kernel(NAN3, GRID, 0.1, 1.0), "x1"),
        (lambda: pfn.sample_gp_prior(NAN3, 2, 0.1, 1.0, generator=_gen()), "grid"),
        (lambda: pfn.make_tasks(NAN3, 2, (1, 2), 0.1, 1.0, 0.1, generator=_gen()), "grid"),
        (
            lambda: pfn.gp_posterior(
                NAN3[None], GRID[None, :3], torch.ones(1, 3, dtype=torch.bool), GRID, 0.1, 1.0, 0.1
            ),
            "x_ctx",
        ),
        (
            lambda: pfn.gp_posterior(
                GRID[None, :3], NAN3[None], torch.ones(1, 3, dtype=torch.bool), GRID, 0.1, 1.0, 0.1
            ),
            "y_ctx",
        ),
        (
            lambda: pfn.gp_posterior(
                torch.zeros(0, 3),
                torch.zeros(0, 3),
                torch.ones(0, 3, dtype=torch.bool),
                GRID,
                0.1,
                1.0,
                0.1,
            ),
            "x_ctx",
        ),
        (
            lambda: pfn.gp_posterior(
                GRID[None, :3],
                GRID[None, :3],
                torch.ones(1, 3, dtype=torch.bool),
                NAN3,
                0.1,
                1.0,
                0.1,
            ),
            "grid",
        ),
        (
            lambda: pfn.sample_posterior(
                torch.full((1, 2), math.nan), torch.eye(2)[None], 2, generator=_gen()
            ),
            "mean",
        ),
        (lambda: pfn.mixture_entropy(torch.full((2, 3), math.nan), 0.1), "centres"),
        (lambda: pfn.mixture_entropy(torch.zeros(2, 0), 0.1), "centres"),
        (
            lambda: pfn.grouped_entropy_search(
                torch.full((2, 3, 4), math.nan), torch.zeros(2, 1, dtype=torch.long), 0.1
            ),
            "f_samples",
        ),
        (
            lambda: pfn.grouped_entropy_search(torch.zeros(2, 3, 4), torch.zeros(2, 1), 0.1),
            "query_idx",
        ),
        (
            lambda: pfn.truncated_normal_entropy(torch.zeros(2), torch.ones(3), torch.zeros(4)),
            "broadcast",
        ),
        (
            lambda: pfn.truncated_normal_entropy(
                torch.full((2,), math.nan), torch.ones(2), torch.zeros(2)
            ),
            "mu",
        ),
        (
            lambda: pfn.expected_improvement(
                torch.zeros(2), torch.ones(2), torch.tensor(math.nan, dtype=torch.float32)
            ),
            "best",
        ),
        (lambda: pfn.expected_improvement(torch.zeros(2), torch.ones(2), 0.0), "best"),
        (
            lambda: pfn.AlphaNet(4)(
                GRID[None, :3].float(),
                GRID[None, :3].float(),
                torch.ones(1, 3, dtype=torch.bool),
                torch.full((1, 2), math.nan),
            ),
            "x_query",
        ),
        (
            lambda: pfn.bo_loop(
                torch.zeros(2, 32, dtype=torch.float64),
                GRID,
                "not a function",
                n_init=1,
                n_iter=1,
                noise_sd=0.1,
                generator=_gen(),
            ),
            "acquisition",
        ),
        (
            lambda: pfn.bo_loop(
                torch.zeros(2, 32, dtype=torch.float64),
                GRID,
                lambda x, y, m: torch.full((2, 32), math.nan, dtype=torch.float64),
                n_init=1,
                n_iter=1,
                noise_sd=0.1,
                generator=_gen(),
            ),
            "acquisition output",
        ),
        (
            lambda: pfn.bo_loop(
                torch.full((2, 32), math.nan, dtype=torch.float64),
                GRID,
                lambda x, y, m: torch.zeros(2, 32, dtype=torch.float64),
                n_init=1,
                n_iter=1,
                noise_sd=0.1,
                generator=_gen(),
            ),
            "f",
        ),
    ],
)
def test_validation(call, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        call()


def test_train_validation() -> None:
    t = _tasks(4)
    xq = GRID[:2].expand(4, -1).float()
    b = pfn.equal_borders(0.0, 1.0, 4)
    net = pfn.AlphaNet(4)
    args = (net, b, t.x_ctx.float(), t.y_ctx.float(), t.mask, xq)
    with pytest.raises(ValueError, match="labels must lie inside"):
        pfn.train_alpha_net(*args, torch.full((4, 2), 2.0), steps=1, batch=2, generator=_gen())
    with pytest.raises(ValueError, match="batch"):
        pfn.train_alpha_net(*args, torch.full((4, 2), 0.5), steps=1, batch=5, generator=_gen())
    with pytest.raises(ValueError, match="steps"):
        pfn.train_alpha_net(*args, torch.full((4, 2), 0.5), steps=0, batch=2, generator=_gen())
    with pytest.raises(ValueError, match="x_query"):
        pfn.train_alpha_net(
            *args[:5], xq[:, :1], torch.full((4, 2), 0.5), steps=1, batch=2, generator=_gen()
        )
    with pytest.raises(ValueError, match="labels"):
        pfn.train_alpha_net(*args, torch.full((4, 2), math.nan), steps=1, batch=2, generator=_gen())
    with pytest.raises(ValueError, match="borders"):
        pfn.train_alpha_net(
            net, b.flip(0), *args[2:], torch.full((4, 2), 0.5), steps=1, batch=2, generator=_gen()
        )
    with pytest.raises(ValueError, match="net"):
        pfn.train_alpha_net(
            "net", *args[1:], torch.full((4, 2), 0.5), steps=1, batch=2, generator=_gen()
        )
    before = [p.detach().clone() for p in net.parameters()]
    with pytest.raises(ValueError):
        pfn.train_alpha_net(*args, torch.full((4, 2), 2.0), steps=1, batch=2, generator=_gen())
    assert all(torch.equal(a, p) for a, p in zip(before, net.parameters(), strict=True))
