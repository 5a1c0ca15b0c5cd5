"""Tests for chapter 11's paper architecture: icml26.generative.vae_dit (conv VAEs, a DiT)."""

from __future__ import annotations

import pytest
import torch

from icml26.generative import diffusion
from icml26.generative import sceneworld as sw
from icml26.generative import vae_dit as vd


def gen(seed: int = 0) -> torch.Generator:
    return torch.Generator().manual_seed(seed)


def tiny_dit(**kw) -> vd.DiTBackbone:
    torch.manual_seed(0)
    args = {"latent": 2, "grid": 4, "width": 16, "depth": 1, "heads": 2, "patch": 2}
    return vd.DiTBackbone(**{**args, **kw}, timesteps=5)


def tiny_pool(n: int = 12):
    z = torch.randn(n, 2, 4, 4, generator=gen(1))
    src = torch.arange(n) % 5
    tgt = (src + 1) % 5
    return z, z.flip(-1) + 0.5, src, tgt


def test_every_modality_lands_on_the_shared_grid():
    shapes = sw.shapes(32)  # RGB 16², PAN 32², MS 8² × 6
    torch.manual_seed(0)
    vs = vd.VAESet(shapes, 8, width=8, latent=4).eval()
    with torch.no_grad():
        for m, (c, h, w) in shapes.items():
            z = vs.encode(torch.rand(2, c, h, w, generator=gen()), m)
            assert tuple(z.shape) == (2, 4, 8, 8)
            x = vs.decode(z, m)
            assert tuple(x.shape) == (2, c, h, w) and float(x.min()) >= 0 and float(x.max()) <= 1


def test_pair_embedding_is_the_sum_of_source_and_target_embeddings():
    torch.manual_seed(0)
    e = vd.PairEmbedding(5, 6)
    src, tgt = torch.tensor([0, 3, 4, 2]), torch.tensor([1, 0, 4, 3])
    want = e.src.weight[src] + e.tgt.weight[tgt]
    torch.testing.assert_close(e(src * 5 + tgt), want)


def test_backbone_is_diffusers_dit_with_pair_labels():
    """Cross-check: the stock DiT with class embedding table e_src[l // N] + e_tgt[l % N]
    gives the backbone's output."""
    from diffusers import DiTTransformer2DModel

    model = tiny_dit().eval()
    stock = DiTTransformer2DModel(**model.dit.config).eval()
    state = {k: v for k, v in model.dit.state_dict().items() if "class_embedder" not in k}
    stock.load_state_dict(state, strict=False)
    labels = torch.arange(25)
    for b, sb in zip(model.dit.transformer_blocks, stock.transformer_blocks, strict=True):
        with torch.no_grad():
            sb.norm1.emb.class_embedder.embedding_table.weight[:25] = b.norm1.emb.class_embedder(
                labels
            )
    z_t, z_s, src, tgt = tiny_pool(6)
    t = torch.tensor([0, 1, 2, 3, 4, 4])
    with torch.no_grad():
        got = model(z_t, z_s, t, src, tgt)
        want = stock(torch.cat([z_t, z_s], 1), timestep=t * 200, class_labels=src * 5 + tgt).sample
    assert tuple(got.shape) == (6, 2, 4, 4)
    torch.testing.assert_close(got, want)


def test_training_steps_decrease_the_x0_loss():
    model = tiny_dit()
    abar = diffusion.alphas_cumprod(diffusion.linear_betas(5, 0.05, 0.5)).float()
    losses = vd.train_dit(model, tiny_pool(), abar, steps=60, batch=12, lr=3e-3, generator=gen())
    assert len(losses) == 60
    assert sum(losses[-10:]) < 0.7 * sum(losses[:10])


def test_vae_training_decreases_its_loss_and_scales_latents():
    shapes = sw.shapes(8)  # RGB 4², PAN 8², MS 2² × 6
    scenes = sw.scene_world(16, size=8, sigma=1.0, generator=gen())
    img = {m: sw.render(scenes, m, generator=gen(1)).float() for m in shapes}
    pairs = {("PAN", "RGB"): (img["PAN"], img["RGB"]), ("MS", "RGB"): (img["MS"], img["RGB"])}
    torch.manual_seed(0)
    vs, losses = vd.train_vaes(pairs, grid=2, width=8, steps=30, batch=4, lr=3e-3, generator=gen())
    assert sum(losses[-5:]) < sum(losses[:5])
    with torch.no_grad():
        z = torch.cat([vs.encode(img[m], m) for m in ("PAN", "RGB", "MS")])
    assert abs(float(z.std()) - 1.0) < 0.2  # scaled to about unit spread
    assert not any(p.requires_grad for p in vs.parameters())


def test_prediction_at_T_averages_draws_and_drives_ddim():
    model = tiny_dit().eval()
    z, _, src, tgt = tiny_pool(7)
    one = vd.predict_at_T(model, z, src, tgt, draws=1, chunk=3, generator=gen(4))
    t = torch.full((7,), 4)
    with torch.no_grad():
        want = model(torch.randn(z.shape, generator=gen(4)), z, t, src, tgt)
    torch.testing.assert_close(one, want)
    abar = diffusion.alphas_cumprod(diffusion.linear_betas(5, 0.05, 0.5)).float()
    with torch.no_grad():
        out = diffusion.ddim_sample(
            lambda x, tt: model(x, z, torch.full((7,), tt), src, tgt),
            torch.randn(z.shape, generator=gen(5)),
            abar,
            5,
            prediction="sample",
        )
    assert out.shape == z.shape and bool(torch.isfinite(out).all())


def test_inputs_are_validated_by_name():
    with pytest.raises(ValueError, match="grid"):
        vd.modality_vae((3, 12, 12), 8)
    with pytest.raises(ValueError, match="width"):
        vd.modality_vae((3, 16, 16), 8, width=12)
    with pytest.raises(ValueError, match="shape"):
        vd.modality_vae((3, 16), 8)
    with pytest.raises(ValueError, match="width must be a multiple of heads"):
        vd.DiTBackbone(width=10, heads=4)
    with pytest.raises(ValueError, match="patch"):
        vd.DiTBackbone(grid=6, patch=4)
    model = tiny_dit()
    abar = torch.linspace(0.9, 0.1, 4)
    with pytest.raises(ValueError, match="abar"):
        vd.train_dit(model, tiny_pool(), abar, steps=1)
    z, zt, src, tgt = tiny_pool()
    with pytest.raises(ValueError, match="z_tgt"):
        vd.train_dit(model, (z, zt[:3], src, tgt), torch.linspace(0.9, 0.1, 5), steps=1)
    with pytest.raises(ValueError, match="src"):
        vd.predict_at_T(model, z, src.float(), tgt)
    with pytest.raises(ValueError, match="pairs"):
        vd.train_vaes({}, grid=2)
    with pytest.raises(ValueError, match="modality"):
        vd.VAESet(sw.shapes(8), 2, width=8).encode(torch.rand(1, 3, 4, 4), "LIDAR")
    bad = torch.rand(2, 3, 4, 4)
    bad[0, 0, 0, 0] = float("nan")
    with pytest.raises(ValueError, match="pairs"):
        vd.train_vaes({("RGB", "MS"): (bad, torch.rand(2, 6, 2, 2))}, grid=2)
