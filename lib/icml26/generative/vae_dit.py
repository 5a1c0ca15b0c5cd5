"""The paper's architecture for chapter 11 (any2any): convolutional VAEs and a DiT backbone.

Each modality gets a ``diffusers.AutoencoderKL`` whose encoder maps its native resolution to
one shared spatial latent grid (``C × L × L``); :func:`train_vaes` trains the five side by
side (Stage I, optionally with the chapter's latent-alignment term). The shared backbone is a
``diffusers.DiTTransformer2DModel`` whose input is the noisy target latent concatenated with
the source latent (``[z_t, z_i]``) and whose AdaLN conditioning is
``e_time(t) + e_src(i) + e_tgt(j)`` (:class:`PairEmbedding` replaces DiT's class embedding);
:func:`train_dit` trains it with the ``x₀`` objective of :prf:ref:`any2any-def-anchored`
over the directions in its pool, and :func:`predict_at_T` reads off the prediction at the
last time, an estimate of ``E[z_j | z_i]`` (:prf:ref:`any2any-thm-conditional-mean`).
DDIM sampling is :func:`icml26.generative.diffusion.ddim_sample` (``prediction="sample"``)
driven by :meth:`DiTBackbone.forward`; scenes, rendering and PSNR are
:mod:`icml26.generative.sceneworld`'s.

``diffusers`` is imported only when a model is built, so importing this module is cheap.
"""

from __future__ import annotations

import math
from typing import Any, cast

import torch
from torch import nn

from icml26 import checks
from icml26.generative.diffusion import add_noise
from icml26.generative.sceneworld import MODALITIES, _generator

__all__ = [
    "DiTBackbone",
    "PairEmbedding",
    "VAESet",
    "modality_vae",
    "predict_at_T",
    "train_dit",
    "train_vaes",
]


def _levels(height: int, grid: int) -> int:
    """Number of 2× downsamplings from ``height`` to ``grid`` (a power of two ratio)."""
    if height < grid or height % grid or (height // grid) & (height // grid - 1):
        raise ValueError(
            f"grid must divide the image height by a power of two, got {height} -> {grid}"
        )
    return int(math.log2(height // grid))


def modality_vae(shape: tuple[int, int, int], grid: int, *, width: int = 16, latent: int = 4):
    """A small ``diffusers.AutoencoderKL`` from images ``(c, h, h)`` to latents ``latent × grid²``.

    One encoder block per resolution (``width`` channels, doubled once after the first
    downsampling), one ResNet layer per block, a mid-block without attention, GroupNorm with
    8 groups. The number of downsamplings is ``log2(h / grid)``, so every modality lands on
    the same grid: the "geometrically aligned" latents of the per-modality VAEs.
    """
    from diffusers import AutoencoderKL

    if not (isinstance(shape, tuple | list) and len(shape) == 3):
        raise ValueError(f"shape must be (channels, height, width), got {shape!r}")
    c, h, w = (checks.integer("shape", v, low=1) for v in shape)
    if h != w:
        raise ValueError(f"shape must be square, got {h} × {w}")
    grid = checks.integer("grid", grid, low=1)
    width = checks.integer("width", width, low=8)
    if width % 8:
        raise ValueError(f"width must be a multiple of 8 (GroupNorm groups), got {width}")
    latent = checks.integer("latent", latent, low=1)
    n = _levels(h, grid) + 1
    blocks = tuple(width * (1 if k == 0 else 2) for k in range(n))
    return AutoencoderKL(
        in_channels=c,
        out_channels=c,
        down_block_types=("DownEncoderBlock2D",) * n,
        up_block_types=("UpDecoderBlock2D",) * n,
        block_out_channels=blocks,
        layers_per_block=1,
        latent_channels=latent,
        norm_num_groups=8,
        sample_size=h,
        mid_block_add_attention=False,
    )


class VAESet(nn.Module):
    """One :func:`modality_vae` per modality, and the latent scale shared by all of them.

    :meth:`encode` returns the posterior mean divided by ``scale`` (latents of about unit
    standard deviation, as latent-diffusion models scale theirs); :meth:`decode` undoes it.
    """

    def __init__(
        self,
        shapes: dict[str, tuple[int, int, int]],
        grid: int,
        *,
        width: int = 16,
        latent: int = 4,
    ):
        super().__init__()
        if not shapes or any(m not in MODALITIES for m in shapes):
            raise ValueError(f"shapes must map modalities {MODALITIES} to (c, h, w)")
        self.shapes = dict(shapes)
        self.grid, self.latent = grid, latent
        self.vaes = nn.ModuleDict(
            {m: modality_vae(s, grid, width=width, latent=latent) for m, s in shapes.items()}
        )
        self.register_buffer("scale", torch.ones(()))

    scale: torch.Tensor

    def _check(self, m: str) -> None:
        if m not in self.vaes:
            raise ValueError(f"modality must be one of {tuple(self.vaes)}, got {m!r}")

    def _vae(self, m: str) -> Any:
        """The ``AutoencoderKL`` of modality ``m`` (typed loosely: diffusers is untyped)."""
        return self.vaes[m]

    def encode(self, x: torch.Tensor, m: str) -> torch.Tensor:
        """Scaled posterior means ``(n, latent, grid, grid)`` of images ``x`` of modality ``m``."""
        self._check(m)
        x = checks.tensor("x", x, ndim=4, floating=True)
        checks.shape("x", x, (None, *self.shapes[m]))
        return self._vae(m).encode(x).latent_dist.mean / self.scale

    def decode(self, z: torch.Tensor, m: str) -> torch.Tensor:
        """Images of modality ``m`` (clipped to ``[0, 1]``) from scaled latents ``z``."""
        self._check(m)
        z = checks.tensor("z", z, ndim=4, floating=True)
        checks.shape("z", z, (None, self.latent, self.grid, self.grid))
        return self._vae(m).decode(z * self.scale).sample.clamp(0.0, 1.0)


def _image_pairs(pairs: dict) -> list[tuple[str, str, torch.Tensor, torch.Tensor]]:
    if not isinstance(pairs, dict) or not pairs:
        raise ValueError("pairs must be a non-empty dict {(a, b): (X_a, X_b)}")
    data = []
    for key, value in pairs.items():
        if not (isinstance(key, tuple) and len(key) == 2 and set(key) <= set(MODALITIES)):
            raise ValueError(f"pairs must be keyed by (modality, modality), got {key!r}")
        xa, xb = value
        for name, x in (("X_a", xa), ("X_b", xb)):
            checks.tensor(f"pairs[{key}] ({name})", x, ndim=4, floating=True)
            checks.finite(f"pairs[{key}] ({name})", x)
        if xa.shape[0] != xb.shape[0]:
            raise ValueError(f"pairs[{key}] must hold the same number of scenes")
        data.append((key[0], key[1], xa.float(), xb.float()))
    return data


def train_vaes(
    pairs: dict[tuple[str, str], tuple[torch.Tensor, torch.Tensor]],
    *,
    grid: int,
    width: int = 16,
    latent: int = 4,
    steps: int = 500,
    batch: int = 8,
    lr: float = 2e-3,
    kl: float = 1e-4,
    align: float = 1.0,
    generator: torch.Generator | None = None,
) -> tuple[VAESet, list[float]]:
    """Stage I: train the per-modality VAEs on the images of the training pairs.

    ``pairs[(a, b)] = (X_a, X_b)`` holds images ``(n, c, h, w)`` of each edge's scenes. Each
    step draws ``batch`` pairs of every edge, runs each modality's VAE once on all its images
    of the step, and minimises the reconstruction MSE (per pixel) of a posterior sample, plus
    ``kl`` times the KL divergence to ``N(0, I)`` (per latent number), plus ``align`` times
    the mean of ``(μ_a − μ_b)²`` over the posterior means of each pair, relative to their
    variance across the batch (so that neither shrinking the latents nor an
    image-independent pattern can satisfy it) — the chapter's alignment
    term; ``align = 0`` is the paper's Stage I. Adam with a one-cycle schedule.
    Afterwards the latent scale is set to the standard deviation of all training means.
    Returns the set (in evaluation mode, on the device of the images) and the loss per step.
    """
    data = _image_pairs(pairs)
    steps = checks.integer("steps", steps, low=1)
    batch = checks.integer("batch", batch, low=1)
    lr = checks.real("lr", lr, low=0.0, strict=True)
    kl_w = checks.real("kl", kl, low=0.0)
    al_w = checks.real("align", align, low=0.0)
    g = _generator(generator)
    shapes: dict[str, tuple[int, int, int]] = {}
    for a, b, xa, xb in data:
        for m, x in ((a, xa), (b, xb)):
            shape = cast(tuple[int, int, int], tuple(x.shape[1:]))
            if shapes.setdefault(m, shape) != shape:
                raise ValueError(f"pairs must hold images of one shape per modality ({m})")
    dev = data[0][2].device
    vs = VAESet(shapes, grid, width=width, latent=latent).to(dev)
    opt = torch.optim.Adam(vs.parameters(), lr=lr)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=lr, total_steps=steps, pct_start=0.1)
    losses = []
    for _ in range(steps):
        parts: dict[str, list[torch.Tensor]] = {}
        for a, b, xa, xb in data:
            i = torch.randint(0, xa.shape[0], (batch,), generator=g).to(dev)
            parts.setdefault(a, []).append(xa[i])
            parts.setdefault(b, []).append(xb[i])
        loss = torch.zeros((), device=dev)
        means: dict[str, list[torch.Tensor]] = {}
        for m, xs in parts.items():  # one encoder and one decoder call per modality
            x = torch.cat(xs)
            post = vs._vae(m).encode(x).latent_dist
            eps = torch.randn(post.mean.shape, generator=g).to(dev)
            y = vs._vae(m).decode(post.mean + post.std * eps).sample
            loss = loss + ((y - x) ** 2).mean() * len(xs)
            loss = loss + kl_w * post.kl().mean() / post.mean[0].numel() * len(xs)
            means[m] = list(post.mean.split(batch))
        for a, b, _, _ in data:  # alignment of the paired means, edge by edge
            za, zb = means[a].pop(0), means[b].pop(0)
            spread = 0.5 * (za.var(0) + zb.var(0)).mean() + 1e-6
            loss = loss + al_w * ((za - zb) ** 2).mean() / spread
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        losses.append(loss.detach())
    vs.eval().requires_grad_(False)
    with torch.no_grad():
        mu = [vs.encode(x, m) for a, b, xa, xb in data for m, x in ((a, xa), (b, xb))]
        vs.scale.fill_(float(torch.cat(mu).std()))
    return vs, torch.stack(losses).tolist()


class PairEmbedding(nn.Module):
    """``e_src(i) + e_tgt(j)`` for the label ``i · N + j`` of the direction ``i → j``.

    Stands in for DiT's class embedding, so that the AdaLN conditioning is the paper's
    ``e_time(t) + e_src(i) + e_tgt(j)``: a direction never trained still gets a meaningful
    condition from the two embeddings that were (the zero-shot directions).
    """

    def __init__(self, modalities: int, dim: int):
        super().__init__()
        self.n = checks.integer("modalities", modalities, low=2)
        dim = checks.integer("dim", dim, low=1)
        self.src = nn.Embedding(self.n, dim)
        self.tgt = nn.Embedding(self.n, dim)

    def forward(self, labels: torch.Tensor, force_drop_ids=None) -> torch.Tensor:
        """The conditions of the labels ``i · N + j``; ``force_drop_ids`` (DiT's label dropout
        for classifier-free guidance) is ignored: every direction is always conditioned."""
        return self.src(labels // self.n) + self.tgt(labels % self.n)


class DiTBackbone(nn.Module):
    """The shared backbone ``f_θ([z_t, z_i], (t, i, j)) = ẑ_j`` (:prf:ref:`any2any-def-anchored`).

    A ``diffusers.DiTTransformer2DModel`` (random initialisation) on the ``latent × grid²``
    grid: input channels ``2 · latent`` (noisy target and source latent), output ``latent``
    (the predicted clean target latent), patch size ``patch``, ``depth`` blocks of ``width``
    channels and ``heads`` heads, AdaLN-Zero conditioning through :class:`PairEmbedding` in
    every block. The ``timesteps`` training times are mapped to DiT's 0–1000 range.
    """

    def __init__(
        self,
        *,
        latent: int = 4,
        grid: int = 8,
        width: int = 96,
        depth: int = 4,
        heads: int = 4,
        patch: int = 2,
        timesteps: int = 20,
        modalities: int = len(MODALITIES),
    ):
        super().__init__()
        from diffusers import DiTTransformer2DModel

        self.latent = checks.integer("latent", latent, low=1)
        self.grid = checks.integer("grid", grid, low=1)
        width = checks.integer("width", width, low=1)
        heads = checks.integer("heads", heads, low=1)
        if width % heads:
            raise ValueError(f"width must be a multiple of heads, got {width}, {heads}")
        patch = checks.integer("patch", patch, low=1)
        if self.grid % patch:
            raise ValueError(f"patch must divide grid, got {patch}, {self.grid}")
        self.timesteps = checks.integer("timesteps", timesteps, low=1)
        self.n = checks.integer("modalities", modalities, low=2)
        dit: Any = DiTTransformer2DModel(
            num_attention_heads=heads,
            attention_head_dim=width // heads,
            in_channels=2 * self.latent,
            out_channels=self.latent,
            num_layers=checks.integer("depth", depth, low=1),
            sample_size=self.grid,
            patch_size=patch,
            num_embeds_ada_norm=self.n * self.n,
        )
        for block in dit.transformer_blocks:
            block.norm1.emb.class_embedder = PairEmbedding(self.n, width)
        self.dit: Any = dit

    def forward(
        self,
        z_t: torch.Tensor,
        z_src: torch.Tensor,
        t: torch.Tensor,
        src: torch.Tensor,
        tgt: torch.Tensor,
    ) -> torch.Tensor:
        """``ẑ_j`` for a batch: latents ``(n, latent, grid, grid)``, ids and times ``(n,)``."""
        x = torch.cat([z_t, z_src], dim=1)
        step = t * (1000 // self.timesteps)
        return self.dit(x, timestep=step, class_labels=src * self.n + tgt).sample


def _pool(pool: tuple, latent: int, grid: int) -> tuple[torch.Tensor, ...]:
    if not (isinstance(pool, tuple | list) and len(pool) == 4):
        raise ValueError("pool must be (z_src, z_tgt, src, tgt)")
    z_src = checks.tensor("z_src", pool[0], ndim=4, floating=True)
    z_tgt = checks.tensor("z_tgt", pool[1], ndim=4, floating=True)
    for name, z in (("z_src", z_src), ("z_tgt", z_tgt)):
        checks.shape(name, z, (None, latent, grid, grid))
        checks.finite(name, z)
    src, tgt = pool[2], pool[3]
    for name, ids in (("src", src), ("tgt", tgt)):
        checks.tensor(name, ids, ndim=1)
        if ids.is_floating_point() or ids.shape[0] != z_src.shape[0]:
            raise ValueError(f"{name} must be integer ids, one per example")
    if z_tgt.shape[0] != z_src.shape[0] or z_src.shape[0] == 0:
        raise ValueError("z_src and z_tgt must hold the same, non-zero number of examples")
    return z_src, z_tgt, src, tgt


def train_dit(
    model: DiTBackbone,
    pool: tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor],
    abar: torch.Tensor,
    *,
    steps: int,
    batch: int = 64,
    lr: float = 1e-3,
    generator: torch.Generator | None = None,
) -> list[float]:
    """Stage II: train ``model`` with ``L_z0`` on its pool; returns the loss per step.

    ``pool = (z_src, z_tgt, src, tgt)`` holds the training examples of every direction the
    model serves (latents ``(P, latent, grid, grid)``, modality ids ``(P,)``). Each step draws
    ``batch`` examples uniformly, a time ``t`` and noise ``ε``, forms
    ``z_t = sqrt(ᾱ_t) z_j + sqrt(1 − ᾱ_t) ε`` and regresses ``ẑ_j`` on ``z_j``
    (:prf:ref:`any2any-def-anchored`). AdamW (weight decay 0) with a one-cycle schedule.
    """
    if not isinstance(model, DiTBackbone):
        raise ValueError(f"model must be a DiTBackbone, got {type(model).__name__}")
    z_src, z_tgt, src, tgt = _pool(pool, model.latent, model.grid)
    a = checks.tensor("abar", abar, ndim=1, floating=True)
    if a.numel() != model.timesteps:
        raise ValueError(f"abar must have {model.timesteps} entries (the model's timesteps)")
    checks.finite("abar", a)
    if bool(((a < 0) | (a > 1)).any()):
        raise ValueError("abar must lie in [0, 1] (a cumulative product of 1 - beta)")
    steps = checks.integer("steps", steps, low=1)
    batch = checks.integer("batch", batch, low=1)
    lr = checks.real("lr", lr, low=0.0, strict=True)
    g = _generator(generator)
    dev = z_src.device
    a = a.float().to(dev)
    model.train()
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=0.0)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=lr, total_steps=steps, pct_start=0.1)
    losses = []
    for _ in range(steps):
        i = torch.randint(0, z_src.shape[0], (batch,), generator=g).to(dev)
        t = torch.randint(0, a.numel(), (batch,), generator=g).to(dev)
        eps = torch.randn((batch, *z_tgt.shape[1:]), generator=g).to(dev)
        zt = add_noise(z_tgt[i], eps, a[t])
        loss = ((model(zt, z_src[i], t, src[i], tgt[i]) - z_tgt[i]) ** 2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        losses.append(loss.detach())  # no host sync inside the loop
    model.eval()
    return torch.stack(losses).tolist()


@torch.no_grad()
def predict_at_T(
    model: DiTBackbone,
    z_src: torch.Tensor,
    src: torch.Tensor,
    tgt: torch.Tensor,
    *,
    draws: int = 4,
    chunk: int = 512,
    generator: torch.Generator | None = None,
) -> torch.Tensor:
    """The ``x₀`` prediction at ``t = T`` (pure noise), averaged over ``draws`` noises.

    With ``ᾱ_T ≈ 0`` this estimates ``E[z_j | z_i]`` (:prf:ref:`any2any-thm-conditional-mean`).
    Evaluated in chunks of ``chunk`` examples.
    """
    if not isinstance(model, DiTBackbone):
        raise ValueError(f"model must be a DiTBackbone, got {type(model).__name__}")
    z_src, _, src, tgt = _pool((z_src, z_src, src, tgt), model.latent, model.grid)
    draws = checks.integer("draws", draws, low=1)
    chunk = checks.integer("chunk", chunk, low=1)
    g = _generator(generator)
    model.eval()
    out = torch.zeros_like(z_src)
    for _ in range(draws):
        noise = torch.randn(z_src.shape, generator=g, dtype=z_src.dtype).to(z_src.device)
        for s in range(0, z_src.shape[0], chunk):
            sl = slice(s, s + chunk)
            t = torch.full_like(src[sl], model.timesteps - 1)
            out[sl] += model(noise[sl], z_src[sl], t, src[sl], tgt[sl]) / draws
    return out
