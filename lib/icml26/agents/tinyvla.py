"""The tiny vision-language-action policy of chapter 15 (scale): a ViT encoder whose attention
scale can be tempered, an instruction-and-position query, two autoregressive action tokens,
behaviour cloning and the attention entropy of :prf:ref:`scale-prop-attn`.
"""

from __future__ import annotations

import math

import torch
from torch import nn
from torch.nn import functional as F

from icml26 import checks
from icml26.agents.forkreach import ForkReach

__all__ = ["TinyVLA", "attention_entropy", "train_bc"]


class _Block(nn.Module):
    def __init__(self, d: int, heads: int) -> None:
        super().__init__()
        self.heads = heads
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.qkv, self.proj = nn.Linear(d, 3 * d), nn.Linear(d, d)
        self.mlp = nn.Sequential(nn.Linear(d, 2 * d), nn.GELU(), nn.Linear(2 * d, d))

    def attention(self, x: torch.Tensor, gamma: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        B, N, d = x.shape
        h = self.heads
        q, k, v = self.qkv(self.ln1(x)).view(B, N, 3, h, d // h).permute(2, 0, 3, 1, 4)
        scale = (d // h) ** -0.5 / gamma  # explicit attention: the scale SCALE modulates
        att = torch.softmax((q @ k.transpose(-1, -2)) * scale.view(B, 1, 1, 1), -1)
        out = (att @ v).transpose(1, 2).reshape(B, N, d)
        return out, att

    def forward(self, x: torch.Tensor, gamma: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        out, att = self.attention(x, gamma)
        x = x + self.proj(out)
        return x + self.mlp(self.ln2(x)), att


class TinyVLA(nn.Module):
    """A ViT encoder (explicit, temperable attention) + instruction/proprio query + 2 action tokens.

    ``dtype`` is the precision the weights are drawn and kept in (float64 for a closed loop
    that does not depend on the last bits of the arithmetic). ``encode`` is the one vision
    pass of a control step (counted in ``encoder_calls``); ``logits(h, prev)`` emits the next
    action token's logits given the previous token (``prev = None`` for the first), counted
    in ``decoder_calls``.
    """

    def __init__(
        self,
        cfg: ForkReach,
        d: int = 32,
        heads: int = 2,
        depth: int = 2,
        patch: int = 4,
        *,
        dtype: torch.dtype = torch.float32,
    ) -> None:
        super().__init__()
        if dtype not in (torch.float32, torch.float64):
            raise ValueError(f"dtype must be torch.float32 or torch.float64, got {dtype!r}")
        checks.integer("d", d, low=2)
        checks.integer("heads", heads, low=1)
        if d % heads:
            raise ValueError("d must be divisible by heads")
        checks.integer("patch", patch, low=1)
        if cfg.img % patch:
            raise ValueError("patch must divide the image size")
        self.cfg, self.patch = cfg, patch
        n = (cfg.img // patch) ** 2
        # built in ``dtype`` from the start: float32 weights cast to float64 afterwards would
        # carry float32 draws, whose last bits differ between CPUs' vectorised samplers
        previous = torch.get_default_dtype()
        torch.set_default_dtype(dtype)
        try:
            self.embed = nn.Linear(3 * patch * patch, d)
            self.pos = nn.Parameter(0.02 * torch.randn(n, d))
            self.blocks = nn.ModuleList(_Block(d, heads) for _ in range(depth))
            self.instr = nn.Embedding(2, d)
            self.register_buffer("freq", 2 * math.pi * 2.0 ** torch.arange(5.0))
            self.prop = nn.Linear(2 + 4 * 5, d)  # position and its Fourier features
            self.q, self.k, self.v = nn.Linear(d, d), nn.Linear(d, d), nn.Linear(d, d)
            self.fuse = nn.Sequential(
                nn.LayerNorm(2 * d), nn.Linear(2 * d, 2 * d), nn.GELU(), nn.Linear(2 * d, d)
            )
            self.tok = nn.Embedding(cfg.bins + 1, d)  # index bins = "no previous token"
            self.head = nn.ModuleList(
                nn.Sequential(nn.Linear(d, 2 * d), nn.GELU(), nn.Linear(2 * d, cfg.bins))
                for _ in range(2)
            )
        finally:
            torch.set_default_dtype(previous)
        self.encoder_calls = 0
        self.decoder_calls = 0

    def patches(self, image: torch.Tensor) -> torch.Tensor:
        """(B, 3, H, W) → (B, n, 3·p·p) non-overlapping patches."""
        p = self.patch
        B = image.shape[0]
        x = image.unfold(2, p, p).unfold(3, p, p)  # B,3,h,w,p,p
        return x.permute(0, 2, 3, 1, 4, 5).reshape(B, -1, 3 * p * p)

    def vision(
        self, image: torch.Tensor, gamma: torch.Tensor | None = None
    ) -> tuple[torch.Tensor, list]:
        """Visual tokens and the attention maps of every block, at temperature ``gamma``."""
        checks.tensor("image", image, ndim=4, floating=True)
        B = image.shape[0]
        g = (
            torch.ones(B, dtype=image.dtype, device=image.device)
            if gamma is None
            else gamma.to(image)
        )
        checks.shape("gamma", g, (B,))
        x = self.embed(self.patches(image)) + self.pos
        maps = []
        for blk in self.blocks:
            x, att = blk(x, g)
            maps.append(att)
        return x, maps

    def encode(
        self,
        image: torch.Tensor,
        instruction: torch.Tensor,
        proprio: torch.Tensor,
        gamma: torch.Tensor | None = None,
    ) -> torch.Tensor:
        """One vision-and-language pass: the context vector ``h`` (B, d) for the action tokens."""
        self.encoder_calls += 1
        vis, _ = self.vision(image, gamma)
        xy = proprio.to(vis)
        freq: torch.Tensor = self.freq  # type: ignore[assignment]  # a registered buffer
        ang = (xy[:, :, None] * freq).flatten(1)
        query = self.instr(instruction) + self.prop(torch.cat([xy, ang.sin(), ang.cos()], -1))
        a = torch.softmax(
            (self.k(vis) @ self.q(query)[:, :, None])[..., 0] / vis.shape[-1] ** 0.5, -1
        )
        ctx = (a[..., None] * self.v(vis)).sum(1)
        return query + self.fuse(torch.cat([query, ctx], -1))

    def logits(self, h: torch.Tensor, dim: int, prev: torch.Tensor | None) -> torch.Tensor:
        """Logits (B, bins) of action token ``dim`` given the previous token ``prev``."""
        self.decoder_calls += 1
        p = (
            torch.full((h.shape[0],), self.cfg.bins, dtype=torch.long, device=h.device)
            if prev is None
            else prev
        )
        return self.head[dim](h + self.tok(p))


def train_bc(
    policy: TinyVLA,
    demos: dict[str, torch.Tensor],
    *,
    steps: int,
    batch: int = 256,
    lr: float = 3e-3,
    gen: torch.Generator | None = None,
) -> list[float]:
    """Behaviour cloning: cross-entropy of both action tokens (teacher forcing), Adam.

    ``demos`` is what :func:`~icml26.agents.forkreach.collect_demos` returns; its images and
    positions are checked finite once, before training.
    """
    checks.integer("steps", steps, low=1)
    checks.integer("batch", batch, low=1)
    checks.real("lr", lr, low=0.0, strict=True)
    if not isinstance(demos, dict) or any(
        key not in demos for key in ("image", "instruction", "proprio", "tokens")
    ):
        raise ValueError("demos must be a dict made by collect_demos()")
    for key in ("image", "proprio"):
        checks.tensor(f"demos[{key!r}]", demos[key], floating=True)
        checks.finite(f"demos[{key!r}]", demos[key])
    n = demos["tokens"].shape[0]
    opt = torch.optim.Adam(policy.parameters(), lr=lr)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, steps)
    losses = []
    policy.train()
    for _ in range(steps):
        i = torch.randint(0, n, (batch,), generator=gen)
        tok = demos["tokens"][i]
        h = policy.encode(demos["image"][i], demos["instruction"][i], demos["proprio"][i])
        loss = F.cross_entropy(policy.logits(h, 0, None), tok[:, 0]) + F.cross_entropy(
            policy.logits(h, 1, tok[:, 0]), tok[:, 1]
        )
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        losses.append(float(loss.detach()))
    policy.eval()
    policy.encoder_calls = policy.decoder_calls = 0
    return losses


def attention_entropy(policy: TinyVLA, image: torch.Tensor, gamma: float) -> float:
    """Mean entropy (nats) of all attention rows (blocks, heads) at temperature ``gamma``.

    Increasing in ``gamma`` by :prf:ref:`scale-prop-attn`. ``image`` is (B, 3, H, W), finite.
    """
    checks.tensor("image", image, ndim=4, floating=True)
    checks.finite("image", image)
    checks.real("gamma", gamma, low=0.0, strict=True)
    with torch.no_grad():
        _, maps = policy.vision(image, torch.full((image.shape[0],), float(gamma)))
    return float(torch.stack([-(a * a.clamp_min(1e-30).log()).sum(-1).mean() for a in maps]).mean())
