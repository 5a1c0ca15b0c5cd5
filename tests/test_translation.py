"""Tests for chapter 11 (any2any): icml26.generative.sceneworld, stacked_nets,
stacked_training and gaussian_twin."""

from __future__ import annotations

import math

import networkx as nx
import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from icml26.generative import diffusion
from icml26.generative import gaussian_twin as gt
from icml26.generative import sceneworld as sw
from icml26.generative import stacked_nets as nets
from icml26.generative import stacked_training as trn
from icml26.pipeline.notebooks import notebook_functions


def gen(seed: int = 0) -> torch.Generator:
    return torch.Generator().manual_seed(seed)


# --------------------------------------------------------------------------- SceneWorld


def test_scene_world_fractions_sum_to_one():
    s = sw.scene_world(4, generator=gen())
    assert s.shape == (4, 3, 16, 16)
    assert torch.allclose(s.sum(1), torch.ones(4, 16, 16, dtype=s.dtype))


def test_render_shapes_and_range():
    s = sw.scene_world(3, generator=gen())
    for m, shape in sw.SHAPES.items():
        x = sw.render(s, m, generator=gen(1))
        assert tuple(x.shape) == (3, *shape)
        assert float(x.min()) >= 0.0 and float(x.max()) <= 1.0


def test_sar_speckle_has_unit_mean():
    # Gamma(L, rate L) speckle: the mean power over many pixels equals the clean power
    s = torch.full((64, 3, 16, 16), 1 / 3, dtype=torch.float64)
    x = sw.render(s, "SAR", generator=gen(2))
    power = 10 ** ((x * 32.0 - 30.0) / 10)
    clean = float((10 ** (torch.tensor([-22.0, -10.0, -2.0]) / 10)).mean())
    assert abs(float(power.mean()) / clean - 1) < 0.05


def test_gaussian_smooth_matches_scipy():
    from scipy.ndimage import gaussian_filter

    x = torch.randn(2, 3, 16, 16, generator=gen(), dtype=torch.float64)
    got = sw.gaussian_smooth(x, 2.0)
    want = np.stack([[gaussian_filter(c, 2.0, mode="mirror") for c in img] for img in x.numpy()])
    np.testing.assert_allclose(got.numpy(), want, atol=1e-10)


def test_directions_match_networkx():
    seen, unseen = sw.directions()
    g = nx.Graph([(a, b) for a, b, _ in sw.EDGES])
    assert nx.is_connected(g)
    want = {(a, b) for a, b in nx.non_edges(g)} | {(b, a) for a, b in nx.non_edges(g)}
    assert set(unseen) == want and len(seen) == 14 and len(unseen) == 6


@given(st.integers(2, 40))
def test_component_counts(n):
    pair, uni = sw.component_counts(n)
    assert pair == n * (n - 1) and uni == 2 * n + 1


# --------------------------------------------------------------------------- metrics


def test_psnr_ssim_match_skimage():
    from skimage.metrics import peak_signal_noise_ratio, structural_similarity

    a = torch.rand(3, 3, 8, 8, generator=gen(), dtype=torch.float64)
    b = (a + 0.1 * torch.randn(a.shape, generator=gen(1), dtype=torch.float64)).clamp(0, 1)
    p, s = sw.psnr(a, b), sw.ssim(a, b)
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
        abs(float(sw.psnr(a, b)[0]) - float(peak_signal_noise_ratio(b, a, data_range=1.0))) < 1e-5
    )


# --------------------------------------------------------------------------- networks


def test_backbone_matches_notebook_reference():
    ref = notebook_functions("11-any2any", "backbone_reference", "member_parameters")
    model = nets.FilmBackbone(2, 4, 8, 5)
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
    model = nets.FilmBackbone(3, 4, 8, 5)
    zt, zs = torch.randn(3, 2, 4), torch.randn(3, 2, 4)
    ids = torch.zeros(3, 2, dtype=torch.long)
    out = model(zt, zs, ids, ids, ids)
    out[1].sum().backward()
    assert float(model.inp.weight.grad[0].abs().max()) == 0.0
    assert float(model.inp.weight.grad[1].abs().max()) > 0.0


def test_adapter_is_zero_at_init_and_selects_target():
    model = nets.FilmBackbone(2, 4, 8, 5)
    z = torch.randn(2, 6, 4)
    tgt = torch.randint(0, 5, (2, 6), generator=gen())
    assert float(model.adapt(z, tgt).detach().abs().max()) == 0.0
    with torch.no_grad():
        model.a_out[:, 3].fill_(1.0)
    out = model.adapt(z, tgt)
    assert bool(((out.abs().sum(-1) > 0) == (tgt == 3)).all())


def test_stop_gradient_on_both_occurrences_leaves_backbone_untouched():
    model = nets.FilmBackbone(1, 4, 8, 5)
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
    pool = trn.Pool.stack([[(zs, zs.flip(-1), 0, 1)], [(zs, -zs, 1, 0)]])
    abar = diffusion.alphas_cumprod(diffusion.linear_betas(10, 0.01, 0.6))
    model = nets.FilmBackbone(2, 4, 16, 10)
    losses = trn.train_backbone(model, pool, abar, steps=60, batch=32, generator=gen())
    assert np.mean(losses[-20:]) < 0.5 * np.mean(losses[:5])
    pred = trn.predict_at_T(
        model,
        zs[None].expand(2, -1, -1).contiguous()[:, :10],
        torch.tensor([[0] * 10, [1] * 10]),
        torch.tensor([[1] * 10, [0] * 10]),
        generator=gen(),
    )
    assert pred.shape == (2, 10, 4)


def test_autoencoders_train():
    s = sw.scene_world(64, generator=gen())
    x = {m: sw.render(s, m, generator=gen(1)).flatten(1).float() for m in ("SAR", "RGB")}
    ae = trn.train_autoencoders(
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
    twin = gt.linear_twin(4, 0.5, generator=gen())
    w = gt.conditional_mean_matrix(twin.loadings["SAR"], twin.loadings["NIR"], 0.5)
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
    twin = gt.linear_twin(3, 0.7, generator=gen())
    w = gt.conditional_mean_matrix(twin.loadings["NIR"], twin.loadings["SAR"], 0.7)
    x = twin.sample(40000, generator=gen(1), modalities=("NIR", "SAR"))
    mc = float(((x["NIR"] @ w.T - x["SAR"]) ** 2).mean())
    assert abs(mc / gt.bayes_mse(twin.loadings["NIR"], twin.loadings["SAR"], 0.7, 0.7) - 1) < 0.02


@settings(max_examples=10, deadline=None)
@given(st.integers(0, 10_000))
def test_bayes_mse_bounded_by_prior_variance(seed):
    twin = gt.linear_twin(3, 0.5, generator=gen(seed))
    a, b = twin.loadings["MS"], twin.loadings["NIR"]
    mse = gt.bayes_mse(a, b, 0.5, 0.5)
    prior = float((b**2).sum() / b.shape[0]) + 0.25
    assert 0.25 - 1e-9 <= mse <= prior + 1e-9


def test_shared_linear_zero_shot_near_bayes():
    twin = gt.linear_twin(4, 0.5, generator=gen())
    pairs = {}
    for a, b, c in sw.EDGES:
        x = twin.sample(int(c * 40), generator=gen(int(c)))
        pairs[(a, b)], pairs[(b, a)] = (x[a], x[b]), (x[b], x[a])
    enc, dec = gt.fit_shared_linear(pairs, 4, iters=5)
    x = twin.sample(3000, generator=gen(9))
    for s, t in sw.directions()[1]:
        mse = float(((x[s] @ enc[s].T @ dec[t].T - x[t]) ** 2).mean())
        assert mse / gt.bayes_mse(twin.loadings[s], twin.loadings[t], 0.5, 0.5) < 1.1


# --------------------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: sw.scene_world(0), "n"),
        (lambda: sw.scene_world(2, size=2), "size"),
        (lambda: sw.scene_world(2, generator=1), "generator"),
        (lambda: sw.gaussian_smooth(torch.zeros(2, 3, 4), 1.0), "x"),
        (lambda: sw.gaussian_smooth(torch.zeros(1, 1, 8, 8), 0.0), "sigma"),
        (lambda: sw.gaussian_smooth(torch.zeros(1, 1, 4, 4), 3.0), "sigma"),
        (lambda: sw.render(torch.zeros(2, 3, 6, 6, dtype=torch.float64), "RGB"), "scenes"),
        (lambda: sw.render(torch.zeros(2, 3, 8, 4, dtype=torch.float64), "RGB"), "scenes"),
        (lambda: sw.scene_world(2, sharpness=0.0), "sharpness"),
        (lambda: sw.shapes(6), "size"),
        (lambda: sw.shapes(2), "size"),
        (lambda: gt.gauge_orbit([], 2), "directions"),
        (lambda: gt.gauge_orbit([("RGB", "SAR")], 0), "k"),
        (lambda: gt.gauge_orbit([("RGB", "SAR")], 2, scale=0.0), "scale"),
        (
            lambda: gt.fit_shared_linear(
                {("RGB", "SAR"): (torch.zeros(4, 192), torch.zeros(4, 64))}, 2, init="pca"
            ),
            "init",
        ),
        (lambda: nets.StackedAutoencoders(1, 2, shapes={"RGB": (3, 8, 8)}), "shapes"),
        (lambda: sw.render(torch.zeros(2, 3, 16, 16, dtype=torch.float64), "LIDAR"), "modality"),
        (
            lambda: sw.render(torch.zeros(2, 3, 16, 16, dtype=torch.float64), "SAR", looks=0),
            "looks",
        ),
        (
            lambda: sw.render(torch.zeros(2, 3, 16, 16, dtype=torch.float64), "RGB", noise=-1.0),
            "noise",
        ),
        (lambda: sw.directions(()), "edges"),
        (lambda: sw.directions((("RGB", "RGB", 1.0),)), "edges"),
        (lambda: sw.directions((("RGB", "SAR", 1.0), ("RGB", "SAR", 2.0))), "edges"),
        (lambda: sw.component_counts(1), "n"),
        (lambda: sw.psnr(torch.zeros(2, 4), torch.zeros(2, 5)), "x and y"),
        (lambda: sw.psnr(torch.zeros(2, 4), torch.zeros(2, 4), data_range=0.0), "data_range"),
        (lambda: sw.psnr([1.0], torch.zeros(2, 4)), "x"),
        (lambda: sw.ssim(torch.zeros(1, 1, 8, 8), torch.zeros(1, 1, 8, 7)), "x and y"),
        (lambda: sw.ssim(torch.zeros(1, 1, 8, 8), torch.zeros(1, 1, 8, 8), win_size=4), "win_size"),
        (lambda: sw.ssim(torch.zeros(1, 1, 4, 4), torch.zeros(1, 1, 4, 4)), "win_size"),
        (
            lambda: sw.ssim(torch.zeros(1, 1, 8, 8), torch.zeros(1, 1, 8, 8), data_range=-1.0),
            "data_range",
        ),
        (lambda: nets.StackedLinear(0, 2, 2), "members"),
        (lambda: nets.StackedAutoencoders(1, 0), "latent"),
        (lambda: nets.FilmBackbone(1, 4, 0, 5), "hidden"),
        (lambda: nets.FilmBackbone(1, 4, 8, 0), "timesteps"),
        (lambda: gt.linear_twin(0), "k"),
        (lambda: gt.linear_twin(3, sigma=0.0), "sigma"),
        (
            lambda: gt.conditional_mean_matrix(
                torch.zeros(4, 2, dtype=torch.float64), torch.zeros(4, 3, dtype=torch.float64), 0.5
            ),
            "a_src and a_tgt",
        ),
        (
            lambda: gt.conditional_mean_matrix(
                torch.zeros(4, 2, dtype=torch.float64), torch.zeros(4, 2, dtype=torch.float64), 0.0
            ),
            "sigma_src",
        ),
        (
            lambda: gt.bayes_mse(
                torch.eye(2, dtype=torch.float64), torch.eye(2, dtype=torch.float64), 0.5, -1.0
            ),
            "sigma_tgt",
        ),
        (lambda: gt.fit_shared_linear({}, 2), "pairs"),
        (
            lambda: gt.fit_shared_linear(
                {("RGB", "RGB"): (torch.zeros(3, 2), torch.zeros(3, 2))}, 2
            ),
            "pairs",
        ),
        (
            lambda: gt.fit_shared_linear(
                {("RGB", "SAR"): (torch.zeros(3, 2), torch.zeros(4, 2))}, 2
            ),
            "pairs",
        ),
        (
            lambda: gt.fit_shared_linear(
                {("RGB", "SAR"): (torch.zeros(3, 2), torch.zeros(3, 2))}, 0
            ),
            "k",
        ),
        (
            lambda: gt.fit_shared_linear(
                {("RGB", "SAR"): (torch.zeros(3, 2), torch.zeros(3, 2))}, 1, ridge=0.0
            ),
            "ridge",
        ),
        (lambda: trn.train_autoencoders({}, [1.0], latent=2), "pairs"),
        (
            lambda: trn.train_autoencoders(
                {("SAR", "RGB"): (torch.zeros(3, 64), torch.zeros(3, 192))}, [-1.0], latent=2
            ),
            "align",
        ),
        (
            lambda: trn.train_autoencoders(
                {("SAR", "RGB"): (torch.zeros(3, 64), torch.zeros(3, 5))}, [1.0], latent=2
            ),
            "pairs",
        ),
        (
            lambda: trn.train_autoencoders(
                {("SAR", "RGB"): (torch.zeros(3, 64), torch.zeros(3, 192))},
                [1.0],
                latent=2,
                steps=0,
            ),
            "steps",
        ),
        (lambda: trn.Pool.stack([]), "members"),
        (
            lambda: trn.predict_at_T(
                nets.FilmBackbone(1, 2, 4, 3),
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
    model = nets.FilmBackbone(2, 4, 8, 5)
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
    pool = trn.Pool.stack([[(torch.zeros(3, 4), torch.zeros(3, 4), 0, 1)]])
    abar = diffusion.alphas_cumprod(diffusion.linear_betas(5, 0.01, 0.5))
    with pytest.raises(ValueError, match="pool"):
        trn.train_backbone(model, pool, abar, steps=1)
    one = nets.FilmBackbone(1, 4, 8, 5)
    with pytest.raises(ValueError, match="abar"):
        trn.train_backbone(one, pool, abar[:3], steps=1)
    with pytest.raises(ValueError, match="calib"):
        trn.train_backbone(one, pool, abar, steps=1, calib=-1.0)
    with pytest.raises(ValueError, match="model"):
        trn.train_backbone("model", pool, abar, steps=1)
    assert math.isfinite(trn.train_backbone(one, pool, abar, steps=1)[0])


def test_render_other_scene_sizes_follow_shapes():
    s = sw.scene_world(3, size=8, sigma=1.0, generator=gen())
    for m, shape in sw.shapes(8).items():
        assert sw.render(s, m, generator=gen()).shape == (3, *shape)
    assert sw.shapes(16) == sw.SHAPES


def test_sharper_scenes_have_purer_pixels():
    soft = sw.scene_world(50, sharpness=1.0, generator=gen())
    sharp = sw.scene_world(50, sharpness=6.0, generator=gen())
    assert sharp.max(1).values.mean() > soft.max(1).values.mean() + 0.1
    assert float((sharp.sum(1) - 1).abs().max()) < 1e-12


def test_autoencoders_centre_on_the_mean_image_and_reconstruct():
    s = sw.scene_world(256, sigma=3.0, generator=gen())
    x = {m: sw.render(s, m, generator=gen(1)).flatten(1).float() for m in ("SAR", "RGB")}
    ae = trn.train_autoencoders(
        {("SAR", "RGB"): (x["SAR"], x["RGB"])},
        [0.0],
        latent=8,
        hidden=32,
        steps=150,
        generator=gen(),
    )
    assert torch.allclose(ae.centre("RGB"), x["RGB"].mean(0))
    with torch.no_grad():
        rec = ae.decode(ae.encode(x["RGB"][None], "RGB"), "RGB")[0]
    mean_only = sw.psnr(x["RGB"].mean(0).expand_as(x["RGB"]), x["RGB"]).mean()
    assert sw.psnr(rec, x["RGB"]).mean() > mean_only + 5
    assert float(rec.min()) >= 0.0 and float(rec.max()) <= 1.0


def _bayes_factors(twin, k, sigma):
    eye = torch.eye(k, dtype=torch.float64)
    return {m: gt.conditional_mean_matrix(a, eye, sigma) for m, a in twin.loadings.items()}


@pytest.mark.parametrize(
    ("trained", "free"),
    [
        ([("SAR", "RGB"), ("RGB", "SAR"), ("PAN", "RGB"), ("RGB", "PAN")], True),
        (
            [("SAR", "RGB"), ("RGB", "SAR"), ("PAN", "RGB"), ("RGB", "PAN"), ("SAR", "SAR")],
            False,
        ),
        (
            [
                *[("SAR", "RGB"), ("RGB", "SAR"), ("MS", "RGB"), ("RGB", "MS")],
                *[("SAR", "MS"), ("MS", "SAR"), ("PAN", "RGB"), ("RGB", "PAN")],
            ],
            False,
        ),
    ],
)
def test_gauge_orbit_keeps_trained_products_and_frees_even_distances(trained, free):
    """Theorem any2any-thm-gauge: a bipartite path leaves SAR→PAN free; a loop or an odd
    cycle fixes it."""
    twin = gt.linear_twin(4, 0.5, generator=gen())
    enc = _bayes_factors(twin, 4, 0.5)
    gauge = gt.gauge_orbit(trained, 4, generator=gen(2))

    def change(i, k):
        base = twin.loadings[k] @ enc[i]
        moved = twin.loadings[k] @ gauge[k][1] @ gauge[i][0] @ enc[i]
        return float(torch.linalg.norm(moved - base) / torch.linalg.norm(base))

    assert max(change(i, j) for i, j in trained) < 1e-10
    assert (change("SAR", "PAN") > 1e-3) == free


def test_random_init_leaves_path_zero_shot_unidentified():
    twin = gt.linear_twin(4, 0.5, generator=gen())
    g = gen(3)
    pairs = {}
    for a, b in (("SAR", "RGB"), ("PAN", "RGB")):
        x = twin.sample(600, generator=g, modalities=(a, b))
        pairs[(a, b)], pairs[(b, a)] = (x[a], x[b]), (x[b], x[a])
    test = twin.sample(2000, generator=g, modalities=("SAR", "PAN"))
    bayes = gt.bayes_mse(twin.loadings["SAR"], twin.loadings["PAN"], 0.5, 0.5)
    ratio = {}
    for init in ("chain", "random"):
        enc, dec = gt.fit_shared_linear(pairs, 4, iters=10, init=init, generator=gen(4))
        mse = float(((test["SAR"] @ enc["SAR"].T @ dec["PAN"].T - test["PAN"]) ** 2).mean())
        ratio[init] = mse / bayes
    assert ratio["chain"] < 1.1 < 2 < ratio["random"]


@pytest.mark.parametrize("bad", [float("nan"), float("inf")])
def test_paired_images_must_be_finite(bad):
    """The dict arguments the generated input-policy probes do not reach."""
    xa, xb = torch.zeros(3, 64), torch.zeros(3, 192)
    xa[0, 0] = bad
    with pytest.raises(ValueError, match="pairs"):
        gt.fit_shared_linear({("SAR", "RGB"): (xa.double(), xb.double())}, 2)
    with pytest.raises(ValueError, match="pairs"):
        trn.train_autoencoders({("SAR", "RGB"): (xa, xb)}, [1.0], latent=2, steps=1)
    with pytest.raises(ValueError, match="align"):
        trn.train_autoencoders({("SAR", "RGB"): (xb[:, :64], xb)}, [bad], latent=2, steps=1)
    with pytest.raises(ValueError, match="align"):
        trn.train_autoencoders({("SAR", "RGB"): (xb[:, :64], xb)}, "one", latent=2, steps=1)
