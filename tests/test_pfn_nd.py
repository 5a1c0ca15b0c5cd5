"""Chapter 06's paper-scale variant: the d-dimensional prior, MES labels on point sets, the
d-dimensional α-network and BO on Branin and Hartmann-3."""

from __future__ import annotations

import math

import pytest
import torch

from icml26.bayesopt import pfn

F64 = torch.float64


def _g(seed: int = 0) -> torch.Generator:
    return torch.Generator().manual_seed(seed)


def test_ard_kernel_reduces_to_the_1d_kernel_and_scales_each_axis():
    x1 = torch.rand(4, 1, generator=_g(), dtype=F64)
    x2 = torch.rand(5, 1, generator=_g(1), dtype=F64)
    ls = torch.tensor([0.3], dtype=F64)
    got = pfn.ard_rbf_kernel(x1, x2, ls, 1.7)
    want = pfn.rbf_kernel(x1[:, 0], x2[:, 0], 0.3, 1.7)
    torch.testing.assert_close(got, want, rtol=0, atol=1e-14)
    # a huge length-scale on one axis makes the kernel ignore that coordinate
    a = torch.rand(3, 2, generator=_g(2), dtype=F64)
    b = a.clone()
    b[:, 1] = torch.rand(3, generator=_g(3), dtype=F64)
    ls2 = torch.tensor([0.2, 1e9], dtype=F64)
    torch.testing.assert_close(
        pfn.ard_rbf_kernel(a, b, ls2, 1.0).diagonal(), torch.ones(3, dtype=F64)
    )


def test_lengthscale_prior_has_the_scenario_7_median():
    ls = pfn.sample_lengthscales(20000, 3, generator=_g())
    assert ls.shape == (20000, 3)
    med = float(ls.log().median())
    assert abs(med - (-0.75 + 0.5 * math.log(3))) < 0.03


def test_tasks_nd_shapes_and_context_among_the_points():
    t = pfn.make_tasks_nd(6, 3, 40, (2, 7), 0.1, generator=_g())
    assert t.x.shape == (6, 40, 3) and t.f.shape == (6, 40) and t.lengthscales.shape == (6, 3)
    assert t.x_ctx.shape == (6, 7, 3) and t.y_ctx.shape == (6, 7) and t.mask.shape == (6, 7)
    assert bool((t.mask.sum(-1) >= 2).all()) and bool((t.mask.sum(-1) <= 7).all())
    gathered = t.x.gather(1, t.ctx_idx[..., None].expand(-1, -1, 3))
    torch.testing.assert_close(t.x_ctx, gathered)
    resid = (t.y_ctx - t.f.gather(1, t.ctx_idx))[t.mask]
    assert float(resid.abs().max()) < 0.6  # noise sd 0.1
    assert bool((t.y_ctx[~t.mask] == 0).all())
    torch.testing.assert_close(t.f_star, t.f.max(-1).values)


def test_standardize_context():
    y = torch.tensor([[1.0, 3.0, 5.0, 9.0], [2.0, 2.0, 0.0, 0.0]], dtype=F64)
    mask = torch.tensor([[True, True, True, False], [True, True, False, False]])
    z = pfn.standardize_context(y, mask)
    torch.testing.assert_close(z[0, :3], torch.tensor([-1.0, 0.0, 1.0], dtype=F64))
    assert float(z[0, 3]) == 0.0
    torch.testing.assert_close(z[1], torch.zeros(4, dtype=F64))  # constant y: shift only


def _tasks_1d_as_nd(tasks: pfn.Tasks, grid: torch.Tensor, ls: float) -> pfn.TasksND:
    N = tasks.f.shape[0]
    return pfn.TasksND(
        x=grid[None, :, None].expand(N, -1, 1),
        f=tasks.f,
        lengthscales=torch.full((N, 1), ls, dtype=F64),
        ctx_idx=tasks.ctx_idx,
        x_ctx=tasks.x_ctx[..., None],
        y_ctx=tasks.y_ctx,
        mask=tasks.mask,
    )


def test_posterior_and_mes_labels_agree_with_the_1d_estimator_at_d1():
    grid = torch.linspace(0, 1, 48, dtype=F64)
    tasks = pfn.make_tasks(grid, 5, (2, 6), 0.2, 1.0, 0.1, generator=_g(4))
    nd = _tasks_1d_as_nd(tasks, grid, 0.2)
    m1, c1 = pfn.gp_posterior(tasks.x_ctx, tasks.y_ctx, tasks.mask, grid, 0.2, 1.0, 0.1)
    m2, c2 = pfn.gp_posterior_nd(nd.x_ctx, nd.y_ctx, nd.mask, nd.x, nd.lengthscales, 0.1)
    torch.testing.assert_close(m2, m1, rtol=0, atol=1e-10)
    torch.testing.assert_close(c2, c1, rtol=0, atol=1e-10)
    q = torch.rand(5, 48, generator=_g(5)).argsort(-1)[:, :8]
    acq, lab = pfn.mes_labels(nd, q, 300, 0.1, bins=8, points=32, chunk=2, generator=_g(6))
    fs = pfn.sample_posterior(m1, c1, 300, generator=_g(6))
    fs = torch.cat([tasks.f[:, None], fs], 1)
    # the same draws: the 1-D estimator on the grid gives the same MES and labels
    a1, l1 = pfn.grouped_entropy_search(fs[:2], q[:2], 0.1, kind="mes", bins=8, points=32)
    torch.testing.assert_close(acq[:2], a1, rtol=0, atol=1e-6)
    torch.testing.assert_close(lab[:2], l1, rtol=0, atol=1e-6)
    assert acq.shape == lab.shape == (5, 8) and bool((acq >= -1e-9).all())


def test_mes_labels_average_to_the_grouped_mes():
    # labels are single-optimum draws; over tasks their mean follows the acquisition
    t = pfn.make_tasks_nd(24, 2, 64, (3, 8), 0.1, generator=_g(7))
    q = torch.rand(24, 64, generator=_g(8)).argsort(-1)[:, :16]
    acq, lab = pfn.mes_labels(t, q, 128, 0.1, bins=8, points=32, generator=_g(9))
    assert bool((lab < 0).any())  # single-optimum labels can be negative
    assert abs(float(lab.mean() - acq.mean())) < 0.25 * float(acq.mean()) + 0.02


def test_nd_alpha_net_shapes_and_permutation_invariance():
    torch.manual_seed(0)
    net = pfn.AlphaNet(8, pair_width=5, head_width=6, dim=3).double()
    x = torch.rand(2, 4, 3, generator=_g(), dtype=F64)
    y = torch.randn(2, 4, generator=_g(1), dtype=F64)
    mask = torch.tensor([[True, True, True, False], [True, True, False, False]])
    xq = torch.rand(2, 5, 3, generator=_g(2), dtype=F64)
    out = net(x, y, mask, xq)
    assert out.shape == (2, 5, 8)
    perm = torch.tensor([2, 0, 1, 3])
    out2 = net(x[:, perm], y[:, perm], mask[:, perm], xq)
    torch.testing.assert_close(out2[0], out[0])
    with pytest.raises(ValueError, match="x_query"):
        net(x, y, mask, xq[..., :2])
    with pytest.raises(ValueError, match="dim"):
        pfn.AlphaNet(8, dim=0)


def test_the_1d_alpha_net_keeps_its_layers():
    torch.manual_seed(0)
    net = pfn.AlphaNet(8)
    assert net.dim is None
    assert net.pair[0].in_features == 6 and net.head[0].in_features == 3 + 2 * 32


def test_nd_training_lowers_the_nll():
    t = pfn.make_tasks_nd(32, 2, 48, (2, 6), 0.1, generator=_g(10))
    q = torch.rand(32, 48, generator=_g(11)).argsort(-1)[:, :8]
    xq = t.x.gather(1, q[..., None].expand(-1, -1, 2))
    lab = 2 * xq[..., 0] - 1  # a label the network can learn in a few steps
    borders = pfn.equal_borders(-1.01, 1.01, 8)
    torch.manual_seed(1)
    net = pfn.AlphaNet(8, pair_width=8, head_width=16, dim=2).double()
    ys = pfn.standardize_context(t.y_ctx, t.mask)

    def nll() -> float:
        with torch.no_grad():
            return float(pfn.bar_nll(borders, net(t.x_ctx, ys, t.mask, xq), lab))

    before = nll()
    losses = pfn.train_alpha_net(
        net, borders, t.x_ctx, ys, t.mask, xq, lab, steps=60, batch=8, lr=1e-2, generator=_g(13)
    )
    assert len(losses) == 60 and nll() < before - 0.3
    with pytest.raises(ValueError, match="x_query"):
        pfn.train_alpha_net(
            net, borders, t.x_ctx, ys, t.mask, xq[..., :1], lab, steps=1, batch=1, generator=_g()
        )


def test_benchmarks_attain_their_optimum():
    br = pfn.benchmark("branin")
    x = torch.tensor([[(5 - math.pi) / 15, 12.275 / 15], [(5 + math.pi) / 15, 2.275 / 15]])
    torch.testing.assert_close(
        br(x.double()), torch.full((2,), br.optimum, dtype=F64), rtol=0, atol=1e-5
    )
    h3 = pfn.benchmark("hartmann3")
    xs = torch.tensor([0.114614, 0.555649, 0.852547], dtype=F64)
    assert abs(float(h3(xs)) - h3.optimum) < 1e-4
    assert float(h3(torch.rand(100, 3, generator=_g(), dtype=F64)).max()) < h3.optimum
    with pytest.raises(ValueError, match="name"):
        pfn.benchmark("ackley")
    with pytest.raises(ValueError, match="x"):
        br(torch.rand(3, 3, dtype=F64))


def test_bo_driver_is_shared_across_policies_and_regret_decreases():
    bench = pfn.benchmark("branin")
    kw = dict(runs=3, n_init=3, n_iter=4, candidates=64)
    r1 = pfn.bo_benchmark(bench, pfn.random_policy(_g(1)), generator=_g(20), **kw)
    torch.manual_seed(0)
    net = pfn.AlphaNet(4, pair_width=3, head_width=3, dim=2).double()
    pol = pfn.alpha_policy(net, torch.linspace(-1, 1, 5, dtype=F64))
    r2 = pfn.bo_benchmark(bench, pol, generator=_g(20), **kw)
    torch.testing.assert_close(r1.x[:, :3], r2.x[:, :3])  # the same initial designs
    for r in (r1, r2):
        assert r.regret.shape == (3, 5) and r.x.shape == (3, 7, 2) and r.seconds.shape == (4,)
        assert bool((r.regret >= -1e-9).all())
        assert bool((r.regret.diff(dim=1) <= 1e-12).all())
    with pytest.raises(ValueError, match="bench"):
        pfn.bo_benchmark("branin", pol, generator=_g(), **kw)
    with pytest.raises(ValueError, match="net"):
        pfn.alpha_policy(pfn.AlphaNet(4), torch.linspace(-1, 1, 5, dtype=F64))


def test_gp_policies_score_candidates():
    bench = pfn.benchmark("hartmann3")
    for kind in ("ei", "mes"):
        r = pfn.bo_benchmark(
            bench,
            pfn.gp_policy(kind, mv_samples=4),
            runs=1,
            n_init=4,
            n_iter=1,
            candidates=32,
            generator=_g(30),
        )
        assert r.regret.shape == (1, 2) and bool(torch.isfinite(r.regret).all())
    with pytest.raises(ValueError, match="kind"):
        pfn.gp_policy("pes")
