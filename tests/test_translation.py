"""Tests for icml26.generative.translation (chapter 11, any2any)."""

from __future__ import annotations

import math

import networkx as nx
import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from icml26.generative import diffusion
from icml26.generative import translation as tr
from icml26.pipeline.notebooks import notebook_functions


def gen(seed: int = 0) -> torch.Generator:
    return torch.Generator().manual_seed(seed)


# --------------------------------------------------------------------------- SceneWorld


def test_scene_world_fractions_sum_to_one():
    s = tr.scene_world(4, generator=gen())
    assert s.shape == (4, 3, 16, 16)
    assert torch.allclose(s.sum(1), torch.ones(4, 16, 16, dtype=s.dtype))


def test_render_shapes_and_range():
    s = tr.scene_world(3, generator=gen())
    for m, shape in tr.SHAPES.items():
        x = tr.render(s, m, generator=gen(1))
        assert tuple(x.shape) == (3, *shape)
        assert float(x.min()) >= 0.0 and float(x.max()) <= 1.0


def test_sar_speckle_has_unit_mean():
    # Gamma(L, rate L) speckle: the mean power over many pixels equals the clean power
    s = torch.full((64, 3, 16, 16), 1 / 3, dtype=torch.float64)
    x = tr.render(s, "SAR", generator=gen(2))
    power = 10 ** ((x * 32.0 - 30.0) / 10)
    clean = float((10 ** (torch.tensor([-22.0, -10.0, -2.0]) / 10)).mean())
    assert abs(float(power.mean()) / clean - 1) < 0.05


def test_gaussian_smooth_matches_scipy():
    from scipy.ndimage import gaussian_filter

    x = torch.randn(2, 3, 16, 16, generator=gen(), dtype=torch.float64)
    got = tr.gaussian_smooth(x, 2.0)
    want = np.stack([[gaussian_filter(c, 2.0, mode="mirror") for c in img] for img in x.numpy()])
    np.testing.assert_allclose(got.numpy(), want, atol=1e-10)


def test_directions_match_networkx():
    seen, unseen = tr.directions()
    g = nx.Graph([(a, b) for a, b, _ in tr.EDGES])
    assert nx.is_connected(g)
    want = {(a, b) for a, b in nx.non_edges(g)} | {(b, a) for a, b in nx.non_edges(g)}
    assert set(unseen) == want and len(seen) == 14 and len(unseen) == 6


@given(st.integers(2, 40))
def test_component_counts(n):
    pair, uni = tr.component_counts(n)
    assert pair == n * (n - 1) and uni == 2 * n + 1


# --------------------------------------------------------------------------- metrics


def test_psnr_ssim_match_skimage():
    from skimage.metrics import peak_signal_noise_ratio, structural_similarity

    a = torch.rand(3, 3, 8, 8, generator=gen(), dtype=torch.float64)
    b = (a + 0.1 * torch.randn(a.shape, generator=gen(1), dtype=torch.float64)).clamp(0, 1)
    p, s = tr.psnr(a, b), tr.ssim(a, b)
    for k in range(3):
        assert (
            abs(float(p[k]) - peak_signal_noise_ratio(a[k].numpy(), b[k].numpy(), data_range=1.0))
            < 1e-9
        )
        want = structural_similarity(a[k].numpy(), b[k].numpy(), data_range=1.0, channel_axis=0)
        assert abs(float(s[k]) - want) < 1e-9


def test_psnr_matches_torchmetrics_and_reference():
    from torchmetrics.functional.image import peak_signal_noise_ratio

    a = torch.rand(1, 1, 16, 16, generator=gen(), dtype=torch.float64)
    b = torch.rand(1, 1, 16, 16, generator=gen(1), dtype=torch.float64)
    assert (
        abs(float(tr.psnr(a, b)[0]) - float(peak_signal_noise_ratio(b, a, data_range=1.0))) < 1e-5
    )


# --------------------------------------------------------------------------- networks


def test_backbone_matches_notebook_reference():
    ref = notebook_functions("11-any2any", "backbone_reference", "member_parameters")
    model = tr.FilmBackbone(2, 4, 8, 5)
    with torch.no_grad():
        model.e_time.normal_()
        zt, zs = torch.randn(2, 3, 4, generator=gen()), torch.randn(2, 3, 4, generator=gen(1))
        t = torch.randint(0, 5, (2, 3), generator=gen(2))
        s, g = (
            torch.randint(0, 5, (2, 3), generator=gen(3)),
            torch.randint(0, 5, (2, 3), generator=gen(4)),
        )
        got = model(zt, zs, t, s, g)
        for m in range(2):
            p = ref["member_parameters"](model, m)
            for b in range(3):
                want = ref["backbone_reference"](p, zt[m, b], zs[m, b], t[m, b], s[m, b], g[m, b])
                assert torch.allclose(got[m, b], want, atol=1e-5)


def test_members_are_independent():
    model = tr.FilmBackbone(3, 4, 8, 5)
    zt, zs = torch.randn(3, 2, 4), torch.randn(3, 2, 4)
    ids = torch.zeros(3, 2, dtype=torch.long)
    out = model(zt, zs, ids, ids, ids)
    out[1].sum().backward()
    assert float(model.inp.weight.grad[0].abs().max()) == 0.0
    assert float(model.inp.weight.grad[1].abs().max()) > 0.0


def test_adapter_is_zero_at_init_and_selects_target():
    model = tr.FilmBackbone(2, 4, 8, 5)
    z = torch.randn(2, 6, 4)
    tgt = torch.randint(0, 5, (2, 6), generator=gen())
    assert float(model.adapt(z, tgt).detach().abs().max()) == 0.0
    with torch.no_grad():
        model.a_out[:, 3].fill_(1.0)
    out = model.adapt(z, tgt)
    assert bool(((out.abs().sum(-1) > 0) == (tgt == 3)).all())


def test_stop_gradient_on_both_occurrences_leaves_backbone_untouched():
    model = tr.FilmBackbone(1, 4, 8, 5)
    with torch.no_grad():
        model.a_out.normal_()
    zt, zs, target = torch.randn(1, 8, 4), torch.randn(1, 8, 4), torch.randn(1, 8, 4)
    ids = torch.randint(0, 5, (1, 8), generator=gen())
    for stop_both, zero in ((True, True), (False, False)):
        model.zero_grad()
        pred = model(zt, zs, ids, ids, ids)
        first = pred.detach() if stop_both else pred
        ((first + model.adapt(pred.detach(), ids) - target) ** 2).mean().backward()
        g = max(
            float(p.grad.abs().max()) if p.grad is not None else 0.0
            for p in model.backbone_parameters()
        )
        assert (g == 0.0) == zero


def test_training_reduces_loss():
    torch.manual_seed(0)
    zs = torch.randn(200, 4)
    pool = tr.Pool.stack([[(zs, zs.flip(-1), 0, 1)], [(zs, -zs, 1, 0)]])
    abar = diffusion.alphas_cumprod(diffusion.linear_betas(10, 0.01, 0.6))
    model = tr.FilmBackbone(2, 4, 16, 10)
    losses = tr.train_backbone(model, pool, abar, steps=60, batch=32, generator=gen())
    assert np.mean(losses[-20:]) < 0.5 * np.mean(losses[:5])
    pred = tr.predict_at_T(
        model,
        zs[None].expand(2, -1, -1).contiguous()[:, :10],
        torch.tensor([[0] * 10, [1] * 10]),
        torch.tensor([[1] * 10, [0] * 10]),
        generator=gen(),
    )
    assert pred.shape == (2, 10, 4)


def test_autoencoders_train():
    s = tr.scene_world(64, generator=gen())
    x = {m: tr.render(s, m, generator=gen(1)).flatten(1).float() for m in ("SAR", "RGB")}
    ae = tr.train_autoencoders(
        {("SAR", "RGB"): (x["SAR"], x["RGB"])},
        [1.0, 0.0],
        latent=4,
        hidden=16,
        steps=5,
        generator=gen(),
    )
    z = ae.encode(x["RGB"][None].expand(2, -1, -1), "RGB")
    assert z.shape == (2, 64, 4) and ae.decode(z, "RGB").shape == (2, 64, 192)


def test_ddim_with_x0_prediction_matches_diffusers():
    betas = diffusion.linear_betas(20, 0.01, 0.6)
    abar = diffusion.alphas_cumprod(betas)
    sched = diffusion.diffusers_scheduler(betas, 10, prediction="sample")
    x = torch.randn(3, 4, generator=gen(), dtype=torch.float64)
    ours = x.clone()
    for t in sched.timesteps:
        x0 = torch.tanh(ours)  # any x0-predictor
        ours, _ = diffusion.ddim_step(
            ours, x0, abar[int(t)], diffusion.previous_alpha(abar, int(t), 10), prediction="sample"
        )
        x = sched.step(torch.tanh(x), int(t), x).prev_sample
    assert torch.allclose(ours, x.double(), atol=1e-6)


# --------------------------------------------------------------------------- linear twin


def test_conditional_mean_matches_reference_and_ols():
    ref = notebook_functions("11-any2any", "conditional_mean_reference")[
        "conditional_mean_reference"
    ]
    twin = tr.linear_twin(4, 0.5, generator=gen())
    w = tr.conditional_mean_matrix(twin.loadings["SAR"], twin.loadings["NIR"], 0.5)
    np.testing.assert_allclose(
        w.numpy(), ref(twin.loadings["SAR"].numpy(), twin.loadings["NIR"].numpy(), 0.5), atol=1e-10
    )
    from sklearn.linear_model import LinearRegression

    big = twin.sample(20000, generator=gen(1), modalities=("SAR", "NIR"))
    ols = LinearRegression(fit_intercept=False).fit(big["SAR"].numpy(), big["NIR"].numpy())
    fresh = twin.sample(2000, generator=gen(2), modalities=("SAR", "NIR"))
    cm = fresh["SAR"] @ w.T
    err = np.linalg.norm(ols.predict(fresh["SAR"].numpy()) - cm.numpy()) / np.linalg.norm(
        cm.numpy()
    )
    assert err < 0.05


def test_bayes_mse_matches_monte_carlo():
    twin = tr.linear_twin(3, 0.7, generator=gen())
    w = tr.conditional_mean_matrix(twin.loadings["NIR"], twin.loadings["SAR"], 0.7)
    x = twin.sample(40000, generator=gen(1), modalities=("NIR", "SAR"))
    mc = float(((x["NIR"] @ w.T - x["SAR"]) ** 2).mean())
    assert abs(mc / tr.bayes_mse(twin.loadings["NIR"], twin.loadings["SAR"], 0.7, 0.7) - 1) < 0.02


@settings(max_examples=10, deadline=None)
@given(st.integers(0, 10_000))
def test_bayes_mse_bounded_by_prior_variance(seed):
    twin = tr.linear_twin(3, 0.5, generator=gen(seed))
    a, b = twin.loadings["MS"], twin.loadings["NIR"]
    mse = tr.bayes_mse(a, b, 0.5, 0.5)
    prior = float((b**2).sum() / b.shape[0]) + 0.25
    assert 0.25 - 1e-9 <= mse <= prior + 1e-9


def test_shared_linear_zero_shot_near_bayes():
    twin = tr.linear_twin(4, 0.5, generator=gen())
    pairs = {}
    for a, b, c in tr.EDGES:
        x = twin.sample(int(c * 40), generator=gen(int(c)))
        pairs[(a, b)], pairs[(b, a)] = (x[a], x[b]), (x[b], x[a])
    enc, dec = tr.fit_shared_linear(pairs, 4, iters=5)
    x = twin.sample(3000, generator=gen(9))
    for s, t in tr.directions()[1]:
        mse = float(((x[s] @ enc[s].T @ dec[t].T - x[t]) ** 2).mean())
        assert mse / tr.bayes_mse(twin.loadings[s], twin.loadings[t], 0.5, 0.5) < 1.1


# --------------------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: tr.scene_world(0), "n"),
        (lambda: tr.scene_world(2, size=2), "size"),
        (lambda: tr.scene_world(2, generator=1), "generator"),
        (lambda: tr.gaussian_smooth(torch.zeros(2, 3, 4), 1.0), "x"),
        (lambda: tr.gaussian_smooth(torch.zeros(1, 1, 8, 8), 0.0), "sigma"),
        (lambda: tr.gaussian_smooth(torch.zeros(1, 1, 4, 4), 3.0), "sigma"),
        (lambda: tr.render(torch.zeros(2, 3, 8, 8, dtype=torch.float64), "RGB"), "scenes"),
        (lambda: tr.render(torch.zeros(2, 3, 16, 16, dtype=torch.float64), "LIDAR"), "modality"),
        (
            lambda: tr.render(torch.zeros(2, 3, 16, 16, dtype=torch.float64), "SAR", looks=0),
            "looks",
        ),
        (
            lambda: tr.render(torch.zeros(2, 3, 16, 16, dtype=torch.float64), "RGB", noise=-1.0),
            "noise",
        ),
        (lambda: tr.directions(()), "edges"),
        (lambda: tr.directions((("RGB", "RGB", 1.0),)), "edges"),
        (lambda: tr.directions((("RGB", "SAR", 1.0), ("RGB", "SAR", 2.0))), "edges"),
        (lambda: tr.component_counts(1), "n"),
        (lambda: tr.psnr(torch.zeros(2, 4), torch.zeros(2, 5)), "x and y"),
        (lambda: tr.psnr(torch.zeros(2, 4), torch.zeros(2, 4), data_range=0.0), "data_range"),
        (lambda: tr.psnr([1.0], torch.zeros(2, 4)), "x"),
        (lambda: tr.ssim(torch.zeros(1, 1, 8, 8), torch.zeros(1, 1, 8, 7)), "x and y"),
        (lambda: tr.ssim(torch.zeros(1, 1, 8, 8), torch.zeros(1, 1, 8, 8), win_size=4), "win_size"),
        (lambda: tr.ssim(torch.zeros(1, 1, 4, 4), torch.zeros(1, 1, 4, 4)), "win_size"),
        (
            lambda: tr.ssim(torch.zeros(1, 1, 8, 8), torch.zeros(1, 1, 8, 8), data_range=-1.0),
            "data_range",
        ),
        (lambda: tr.StackedLinear(0, 2, 2), "members"),
        (lambda: tr.StackedAutoencoders(1, 0), "latent"),
        (lambda: tr.FilmBackbone(1, 4, 0, 5), "hidden"),
        (lambda: tr.FilmBackbone(1, 4, 8, 0), "timesteps"),
        (lambda: tr.linear_twin(0), "k"),
        (lambda: tr.linear_twin(3, sigma=0.0), "sigma"),
        (
            lambda: tr.conditional_mean_matrix(
                torch.zeros(4, 2, dtype=torch.float64), torch.zeros(4, 3, dtype=torch.float64), 0.5
            ),
            "a_src and a_tgt",
        ),
        (
            lambda: tr.conditional_mean_matrix(
                torch.zeros(4, 2, dtype=torch.float64), torch.zeros(4, 2, dtype=torch.float64), 0.0
            ),
            "sigma_src",
        ),
        (
            lambda: tr.bayes_mse(
                torch.eye(2, dtype=torch.float64), torch.eye(2, dtype=torch.float64), 0.5, -1.0
            ),
            "sigma_tgt",
        ),
        (lambda: tr.fit_shared_linear({}, 2), "pairs"),
        (
            lambda: tr.fit_shared_linear(
                {("RGB", "RGB"): (torch.zeros(3, 2), torch.zeros(3, 2))}, 2
            ),
            "pairs",
        ),
        (
            lambda: tr.fit_shared_linear(
                {("RGB", "SAR"): (torch.zeros(3, 2), torch.zeros(4, 2))}, 2
            ),
            "pairs",
        ),
        (
            lambda: tr.fit_shared_linear(
                {("RGB", "SAR"): (torch.zeros(3, 2), torch.zeros(3, 2))}, 0
            ),
            "k",
        ),
        (
            lambda: tr.fit_shared_linear(
                {("RGB", "SAR"): (torch.zeros(3, 2), torch.zeros(3, 2))}, 1, ridge=0.0
            ),
            "ridge",
        ),
        (lambda: tr.train_autoencoders({}, [1.0], latent=2), "pairs"),
        (
            lambda: tr.train_autoencoders(
                {("SAR", "RGB"): (torch.zeros(3, 64), torch.zeros(3, 192))}, [-1.0], latent=2
            ),
            "align",
        ),
        (
            lambda: tr.train_autoencoders(
                {("SAR", "RGB"): (torch.zeros(3, 64), torch.zeros(3, 5))}, [1.0], latent=2
            ),
            "pairs",
        ),
        (
            lambda: tr.train_autoencoders(
                {("SAR", "RGB"): (torch.zeros(3, 64), torch.zeros(3, 192))},
                [1.0],
                latent=2,
                steps=0,
            ),
            "steps",
        ),
        (lambda: tr.Pool.stack([]), "members"),
        (
            lambda: tr.predict_at_T(
                tr.FilmBackbone(1, 2, 4, 3),
                torch.zeros(1, 2, 2),
                torch.zeros(1, 2, dtype=torch.long),
                torch.zeros(1, 2, dtype=torch.long),
                draws=0,
            ),
            "draws",
        ),
    ],
)
def test_bad_input(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_backbone_bad_inputs():
    model = tr.FilmBackbone(2, 4, 8, 5)
    z = torch.zeros(2, 3, 4)
    ids = torch.zeros(2, 3, dtype=torch.long)
    with pytest.raises(ValueError, match="z_t"):
        model(torch.zeros(1, 3, 4), z, ids, ids, ids)
    with pytest.raises(ValueError, match="z_src"):
        model(z, torch.zeros(2, 4, 4), ids, ids, ids)
    with pytest.raises(ValueError, match="t must lie"):
        model(z, z, ids + 5, ids, ids)
    with pytest.raises(ValueError, match="src"):
        model(z, z, ids, ids.float(), ids)
    with pytest.raises(ValueError, match="tgt"):
        model(z, z, ids, ids, torch.zeros(2, 2, dtype=torch.long))
    with pytest.raises(ValueError, match="tgt"):
        model.adapt(z, torch.zeros(2, 2, dtype=torch.long))
    pool = tr.Pool.stack([[(torch.zeros(3, 4), torch.zeros(3, 4), 0, 1)]])
    abar = diffusion.alphas_cumprod(diffusion.linear_betas(5, 0.01, 0.5))
    with pytest.raises(ValueError, match="pool"):
        tr.train_backbone(model, pool, abar, steps=1)
    one = tr.FilmBackbone(1, 4, 8, 5)
    with pytest.raises(ValueError, match="abar"):
        tr.train_backbone(one, pool, abar[:3], steps=1)
    with pytest.raises(ValueError, match="calib"):
        tr.train_backbone(one, pool, abar, steps=1, calib=-1.0)
    with pytest.raises(ValueError, match="model"):
        tr.train_backbone("model", pool, abar, steps=1)
    assert math.isfinite(tr.train_backbone(one, pool, abar, steps=1)[0])
