"""Training loops of chapter 11 (any2any): Stage I autoencoders and Stage II backbones.

:func:`train_autoencoders` trains per-modality autoencoders (with an optional latent
alignment term); :func:`train_backbone` trains every member of a stacked backbone on its own
pool of examples with ``L_z0 + λ L_calib``; :func:`predict_at_T` reads off the ``x₀``
prediction at the last time. DDIM sampling is :mod:`icml26.generative.diffusion`, shared
with chapter 10.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from icml26 import checks
from icml26.generative.sceneworld import MODALITIES, _generator, _shapes_of
from icml26.generative.stacked_nets import FilmBackbone, StackedAutoencoders

__all__ = ["Pool", "predict_at_T", "train_autoencoders", "train_backbone"]


def train_autoencoders(
    pairs: dict[tuple[str, str], tuple[torch.Tensor, torch.Tensor]],
    align: list[float],
    *,
    latent: int,
    hidden: int = 128,
    steps: int = 300,
    batch: int = 64,
    lr: float = 1e-2,
    generator: torch.Generator | None = None,
) -> StackedAutoencoders:
    """Train one autoencoder per modality, ``len(align)`` independent copies side by side.

    ``pairs[(a, b)] = (X_a, X_b)`` holds the flattened images of each edge's training scenes.
    Copy ``m`` minimises, summed over edges, the reconstruction MSE of both images plus
    ``align[m] · ‖E_a x_a − E_b x_b‖²`` (per latent coordinate) on the paired scenes:
    ``align = 0`` is the paper's Stage I (each VAE on its own images); ``align > 0`` is this
    chapter's toy addition that ties the latent conventions of paired modalities together.
    Adam with a one-cycle learning-rate schedule (peak ``lr``, warm-up over the first 10 % of
    the steps, cosine decay to zero): the short runs of a notebook end converged rather than
    oscillating at a constant rate. The images' sizes may be any one scene size (``render``).
    """
    if not pairs:
        raise ValueError("pairs must hold at least one edge")
    w = torch.as_tensor(checks.as_float64("align", align), dtype=torch.float32)
    if w.ndim != 1 or w.numel() == 0 or not bool(torch.isfinite(w).all()) or bool((w < 0).any()):
        raise ValueError("align must be a non-empty list of non-negative weights")
    steps = checks.integer("steps", steps, low=1)
    batch = checks.integer("batch", batch, low=1)
    lr = checks.real("lr", lr, low=0.0, strict=True)
    g = _generator(generator)
    m = w.numel()
    data = []
    for (a, b), (xa, xb) in pairs.items():
        if a not in MODALITIES or b not in MODALITIES:
            raise ValueError(f"pairs must be keyed by modalities, got {(a, b)}")
        for name, x in (("X_a", xa), ("X_b", xb)):
            checks.tensor(name, x, ndim=2, floating=True)
            checks.finite(f"pairs[{(a, b)}] ({name})", x)
        if xa.shape[0] != xb.shape[0]:
            raise ValueError(f"pairs[{(a, b)}] must hold the same number of scenes")
        data.append((a, b, xa.float(), xb.float()))
    shapes = _shapes_of(data)
    ae = StackedAutoencoders(m, latent, hidden, shapes=shapes)
    ae.to(data[0][2].device)
    with torch.no_grad():
        for k in shapes:
            xs = [x for a, b, xa, xb in data for x, mod in ((xa, a), (xb, b)) if mod == k]
            if xs:
                ae.centre(k).copy_(torch.cat(xs).mean(0))
    opt = torch.optim.Adam(ae.parameters(), lr=lr)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=lr, total_steps=steps, pct_start=0.1)
    dev = next(ae.parameters()).device
    for _ in range(steps):
        picks = [
            torch.randint(0, xa.shape[0], (batch,), generator=g, device=g.device).to(xa.device)
            for _, _, xa, _ in data
        ]
        parts: dict[str, list[torch.Tensor]] = {k: [] for k in MODALITIES}
        for (a, b, xa, xb), i in zip(data, picks, strict=True):
            parts[a].append(xa[i])
            parts[b].append(xb[i])
        loss = torch.zeros(m, device=dev)
        latents: dict[str, list[torch.Tensor]] = {}
        for k, xs in parts.items():  # one encoder and one decoder call per modality
            if not xs:
                continue
            x = torch.cat(xs).expand(m, -1, -1)
            z = ae.encode(x, k)
            loss = loss + ((ae.decode(z, k, clip=False) - x) ** 2).mean(2).sum(1) / batch
            latents[k] = list(z.split(batch, dim=1))
        for a, b, _, _ in data:  # alignment of the paired latents, edge by edge
            za, zb = latents[a].pop(0), latents[b].pop(0)
            loss = loss + w.to(dev) * ((za - zb) ** 2).mean((1, 2))
        opt.zero_grad()
        loss.sum().backward()
        opt.step()
        sched.step()
    return ae


@dataclass(frozen=True)
class Pool:
    """Training examples of each backbone member, padded: latents ``(M, P, d)``, ids ``(M, P)``."""

    z_src: torch.Tensor
    z_tgt: torch.Tensor
    src: torch.Tensor
    tgt: torch.Tensor
    size: torch.Tensor

    @staticmethod
    def stack(members: list[list[tuple[torch.Tensor, torch.Tensor, int, int]]]) -> Pool:
        """One pool per member, each a list of ``(Z_src, Z_tgt, src id, tgt id)`` blocks."""
        if not members or any(not blocks for blocks in members):
            raise ValueError("members must be a non-empty list of non-empty block lists")
        cat = []
        for blocks in members:
            zs = torch.cat([b[0] for b in blocks])
            zt = torch.cat([b[1] for b in blocks])
            si = torch.cat([torch.full((b[0].shape[0],), b[2]) for b in blocks])
            ti = torch.cat([torch.full((b[0].shape[0],), b[3]) for b in blocks])
            cat.append((zs, zt, si, ti))
        p = max(c[0].shape[0] for c in cat)

        def pad(x: torch.Tensor) -> torch.Tensor:
            return torch.cat([x, x[: p - x.shape[0]].new_zeros((p - x.shape[0], *x.shape[1:]))])

        return Pool(
            torch.stack([pad(c[0]) for c in cat]).float(),
            torch.stack([pad(c[1]) for c in cat]).float(),
            torch.stack([pad(c[2]) for c in cat]),
            torch.stack([pad(c[3]) for c in cat]),
            torch.tensor([c[0].shape[0] for c in cat]),
        )


def train_backbone(
    model: FilmBackbone,
    pool: Pool,
    abar: torch.Tensor,
    *,
    steps: int,
    batch: int = 64,
    lr: float = 2e-3,
    calib: float = 1.0,
    generator: torch.Generator | None = None,
) -> list[float]:
    """Train every member on its own pool with ``L_z0 + λ L_calib``; returns the loss per step.

    Each step draws, per member, ``batch`` examples of its pool, a time ``t`` and noise ``ε``,
    forms ``z_t = sqrt(ᾱ_t) z_j + sqrt(1 − ᾱ_t) ε`` and regresses ``ẑ_j`` on ``z_j``
    (:prf:ref:`any2any-def-anchored`). The adapters are trained on the *stopped* prediction,
    ``‖sg(ẑ_j) + A_j(sg(ẑ_j)) − z_j‖²``, so the calibration never moves the backbone
    (:prf:ref:`any2any-prop-stopgrad`). Adam with a one-cycle schedule peaking at ``lr``.
    """
    from icml26.generative.diffusion import add_noise

    if not isinstance(model, FilmBackbone) or not isinstance(pool, Pool):
        raise ValueError("model must be a FilmBackbone and pool a Pool")
    if pool.z_src.shape[0] != model.members:
        raise ValueError(f"pool must hold {model.members} members, got {pool.z_src.shape[0]}")
    a = checks.tensor("abar", abar, ndim=1, floating=True)
    if a.numel() != model.e_time.shape[1]:
        raise ValueError(f"abar must have {model.e_time.shape[1]} entries (the model's timesteps)")
    checks.finite("abar", a)
    if bool(((a < 0) | (a > 1)).any()):
        raise ValueError("abar must lie in [0, 1] (a cumulative product of 1 - beta)")
    checks.finite("pool.z_src", pool.z_src)
    checks.finite("pool.z_tgt", pool.z_tgt)
    steps = checks.integer("steps", steps, low=1)
    batch = checks.integer("batch", batch, low=1)
    lr = checks.real("lr", lr, low=0.0, strict=True)
    lam = checks.real("calib", calib, low=0.0)
    g = _generator(generator)
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=lr, total_steps=steps, pct_start=0.1)
    m, d = model.members, model.latent
    dev = pool.z_src.device
    a = a.float().to(dev)
    size = pool.size[:, None].to(g.device)
    losses = []
    for _ in range(steps):
        idx = (torch.rand(m, batch, generator=g, device=g.device) * size).long().to(dev)
        z_src = torch.gather(pool.z_src, 1, idx[..., None].expand(-1, -1, d))
        z_tgt = torch.gather(pool.z_tgt, 1, idx[..., None].expand(-1, -1, d))
        src, tgt = torch.gather(pool.src, 1, idx), torch.gather(pool.tgt, 1, idx)
        t = torch.randint(0, a.numel(), (m, batch), generator=g, device=g.device).to(dev)
        eps = torch.randn(m, batch, d, generator=g, device=g.device).to(dev)
        z_t = add_noise(z_tgt, eps, a[t])
        pred = model(z_t, z_src, t, src, tgt)
        loss = ((pred - z_tgt) ** 2).mean((1, 2)).sum()
        if lam > 0:
            stopped = pred.detach()
            loss = (
                loss + lam * ((stopped + model.adapt(stopped, tgt) - z_tgt) ** 2).mean((1, 2)).sum()
            )
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        losses.append(loss.detach() / m)  # no host sync inside the loop
    return torch.stack(losses).tolist()


@torch.no_grad()
def predict_at_T(
    model: FilmBackbone,
    z_src: torch.Tensor,
    src: torch.Tensor,
    tgt: torch.Tensor,
    *,
    draws: int = 8,
    adapter: bool = True,
    generator: torch.Generator | None = None,
) -> torch.Tensor:
    """The backbone's ``x₀`` prediction at ``t = T`` (pure noise), averaged over ``draws`` noises.

    With ``ᾱ_T ≈ 0`` this estimates ``E[z_j | z_i]`` (:prf:ref:`any2any-thm-conditional-mean`).
    ``adapter`` adds the target's correction ``A_j(ẑ_j)``.
    """
    if not isinstance(model, FilmBackbone):
        raise ValueError(f"model must be a FilmBackbone, got {type(model).__name__}")
    z_src = checks.tensor("z_src", z_src, ndim=3, floating=True)
    checks.shape("z_src", z_src, (model.members, None, model.latent))
    checks.finite("z_src", z_src)
    draws = checks.integer("draws", draws, low=1)
    g = _generator(generator)
    t = torch.full(src.shape, model.e_time.shape[1] - 1, dtype=torch.long, device=src.device)
    out = torch.zeros_like(z_src)
    for _ in range(draws):
        noise = torch.randn(z_src.shape, generator=g, dtype=z_src.dtype, device=g.device)
        noise = noise.to(z_src.device)
        out += model(noise, z_src, t, src, tgt) / draws
    return out + model.adapt(out, tgt) if adapter else out
