"""SCALE decoding for a tiny vision-language-action policy (chapter 15).

Implements the self-uncertainty of :prf:ref:`scale-def-uncertainty` and its closed form
(:prf:ref:`scale-prop-closed`), the adaptive action temperature
(:prf:ref:`scale-def-action-temp`), the step-level uncertainty history and adaptive visual
attention temperature (:prf:ref:`scale-def-attn-temp`), the "ForkReach" environment
(vectorised over episodes), a tiny ViT-style policy whose attention scale can be tempered, its
behaviour cloning, and greedy / sampling / top-k / top-p / best-of-N / SCALE decoding.
Chapter 15 (``scale``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import ClassVar

import torch
from torch import nn
from torch.nn import functional as F

from icml26 import checks
from icml26.stats import stream

__all__ = [
    "ACT_STREAM",
    "DECODING",
    "ENV_STREAM",
    "GREEDY_BELOW",
    "METHODS",
    "OBS_STREAM",
    "TOP_K",
    "TOP_K_TAU",
    "TOP_P",
    "DecodingRule",
    "ForkReach",
    "History",
    "Rollout",
    "TinyVLA",
    "action_temperature",
    "attention_entropy",
    "attention_temperature",
    "collect_demos",
    "detokenize",
    "expert_action",
    "fork_mask",
    "make_gym_env",
    "render",
    "reset",
    "rollout",
    "sample_tokens",
    "self_uncertainty",
    "step",
    "tokenize",
    "train_bc",
    "uncertainty_closed_form",
]


# ---------------------------------------------------------------------------------------------
# Self-uncertainty and the two temperature maps
# ---------------------------------------------------------------------------------------------
def self_uncertainty(
    logits: torch.Tensor, *, eps: float = 1e-12, k: int | None = None
) -> torch.Tensor:
    """``u = KL(p || q_low) - KL(p || q_high)`` over the top-``k`` logits of the last axis.

    Implements :prf:ref:`scale-def-uncertainty`: ``p = softmax`` of the ``k`` largest logits
    (all of them when ``k`` is None), ``q_low`` the ``eps``-smoothed one-hot on the arg-max
    (``1 - (k-1)*eps`` on it, ``eps`` elsewhere) and ``q_high`` uniform. Computed literally as
    the difference of the two divergences, in the dtype of ``logits``.
    """
    checks.tensor("logits", logits, floating=True)
    if logits.ndim < 1 or logits.shape[-1] < 2:
        raise ValueError(
            f"logits must have at least 2 entries on the last axis, got {tuple(logits.shape)}"
        )
    checks.real("eps", eps, low=0.0, high=1.0 / logits.shape[-1], strict=True)
    K = logits.shape[-1] if k is None else checks.integer("k", k, low=2, high=logits.shape[-1])
    top = torch.topk(logits, K, dim=-1).values  # sorted, top-1 first
    logp = torch.log_softmax(top, dim=-1)
    p = logp.exp()
    log_qlow = torch.full_like(p, math.log(eps))
    log_qlow[..., 0] = math.log1p(-(K - 1) * eps)
    kl_low = (p * (logp - log_qlow)).sum(-1)
    kl_high = (p * (logp + math.log(K))).sum(-1)
    return kl_low - kl_high


def uncertainty_closed_form(p1: torch.Tensor, *, k: int, eps: float = 1e-12) -> torch.Tensor:
    """``u = -log K - p1*log(1-(K-1)*eps) + (1-p1)*log(1/eps)`` (:prf:ref:`scale-prop-closed`)."""
    checks.tensor("p1", p1, floating=True)
    K = checks.integer("k", k, low=2)
    checks.real("eps", eps, low=0.0, high=1.0 / K, strict=True)
    if bool(((p1 < 0) | (p1 > 1)).any()):
        raise ValueError("p1 must lie in [0, 1]")
    return -math.log(K) - p1 * math.log1p(-(K - 1) * eps) + (1 - p1) * math.log(1 / eps)


def action_temperature(u: torch.Tensor, *, t0: float = 1.0) -> torch.Tensor:
    """Adaptive action temperature ``tau = T0 * sigmoid(u)`` (:prf:ref:`scale-def-action-temp`)."""
    checks.tensor("u", u, floating=True)
    checks.real("t0", t0, low=0.0, strict=True)
    return t0 * torch.sigmoid(u)


def attention_temperature(
    delta_u: torch.Tensor, *, kappa: float = 2.0, s: float = 0.3
) -> torch.Tensor:
    """Visual attention temperature ``gamma = kappa ** tanh(s * du)``.

    Implements :prf:ref:`scale-def-attn-temp`; ``gamma`` lies in ``(1/kappa, kappa)``.
    """
    checks.tensor("delta_u", delta_u, floating=True)
    checks.real("kappa", kappa, low=1.0)
    checks.real("s", s, low=0.0)
    return kappa ** torch.tanh(s * delta_u)


@dataclass
class History:
    """Per-episode, per-dimension uncertainty history of :prf:ref:`scale-def-attn-temp`.

    ``last`` holds the latest ``u`` per action dimension, ``ema`` its exponential moving
    average; on the first update ``ema <- u``, afterwards ``ema <- alpha*ema + (1-alpha)*last``
    *before* ``last <- u`` (the released code's order). ``delta()`` is
    ``mean_k(last - ema)``, 0 before any update, so ``gamma = 1`` on the first two steps.
    """

    episodes: int
    dims: int
    alpha: float = 0.8
    device: torch.device | str = "cpu"
    last: torch.Tensor = field(init=False)
    ema: torch.Tensor = field(init=False)
    count: torch.Tensor = field(init=False)

    def __post_init__(self) -> None:
        checks.integer("episodes", self.episodes, low=1)
        checks.integer("dims", self.dims, low=1)
        checks.real("alpha", self.alpha, low=0.0, high=1.0)
        self.last = torch.zeros(self.episodes, self.dims, dtype=torch.float64, device=self.device)
        self.ema = torch.zeros_like(self.last)
        self.count = torch.zeros(self.episodes, dtype=torch.long, device=self.device)

    def delta(self) -> torch.Tensor:
        """``mean_k(last - ema)`` per episode (0 where there is no history yet)."""
        d = (self.last - self.ema).mean(-1)
        return torch.where(self.count > 0, d, torch.zeros_like(d))

    def update(self, u: torch.Tensor, active: torch.Tensor | None = None) -> None:
        """Absorb this step's uncertainties ``u`` (episodes, dims) where ``active``."""
        checks.tensor("u", u, ndim=2, floating=True)
        checks.shape("u", u, (self.episodes, self.dims))
        u = u.to(self.last)
        act = torch.ones_like(self.count, dtype=torch.bool) if active is None else active
        first = (self.count == 0)[:, None]
        new_ema = torch.where(first, u, self.alpha * self.ema + (1 - self.alpha) * self.last)
        self.ema = torch.where(act[:, None], new_ema, self.ema)
        self.last = torch.where(act[:, None], u, self.last)
        self.count = self.count + act.long()


def sample_tokens(
    logits: torch.Tensor,
    tau: torch.Tensor | float,
    gen: torch.Generator | None = None,
    *,
    top_k: int | None = None,
    top_p: float | None = None,
    greedy_below: float = 1e-3,
) -> torch.Tensor:
    """One token per row of ``logits`` from ``softmax(logits / tau)``.

    The arg-max is taken where ``tau < greedy_below`` (:prf:ref:`scale-def-action-temp`).

    ``tau`` is a float or one temperature per row (SCALE's per-token ``tau``); ``top_k`` and
    ``top_p`` restrict the support first (the decoding baselines).
    """
    checks.tensor("logits", logits, ndim=2, floating=True)
    tau = torch.as_tensor(tau, dtype=logits.dtype, device=logits.device).expand(logits.shape[0])
    if bool((tau < 0).any()):
        raise ValueError("tau must be non-negative")
    z = logits / tau.clamp_min(greedy_below)[:, None]
    if top_k is not None:
        kk = checks.integer("top_k", top_k, low=1, high=logits.shape[1])
        kth = torch.topk(z, kk, dim=-1).values[:, -1:]
        z = z.masked_fill(z < kth, -torch.inf)
    if top_p is not None:
        checks.real("top_p", top_p, low=0.0, high=1.0, strict=True)
        zs, idx = torch.sort(z, dim=-1, descending=True)
        cum = torch.softmax(zs, -1).cumsum(-1)
        drop = (cum - torch.softmax(zs, -1)) >= top_p  # keep the smallest prefix reaching top_p
        z = z.scatter(1, idx, zs.masked_fill(drop, -torch.inf))
    draw = torch.multinomial(torch.softmax(z, -1), 1, generator=gen)[:, 0]
    return torch.where(tau < greedy_below, logits.argmax(-1), draw)


# ---------------------------------------------------------------------------------------------
# ForkReach: a 2-D reaching task with a wall, a fork and hesitant demonstrations
# ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class ForkReach:
    """Geometry and sizes of ForkReach (all lengths in arena units, arena ``[0, 1]^2``).

    A wall ``|x - cx| <= half``, ``|y - wall_y| <= thick/2`` stands between the start (below)
    and two coloured blobs (above); the instruction names the colour of the target. A move
    that would enter the wall is blocked (the agent stays). Success: within ``radius`` of the
    target. The expert climbs straight up, at the *fork* (just below the wall centre) pauses
    with probability ``pause`` or steps left/right with ``(1-pause)/2`` each, then walks along
    the wall and on to the target.
    """

    img: int = 16
    horizon: int = 40
    speed: float = 0.05
    bins: int = 33
    half: float = 0.16
    wall_y: float = 0.5
    thick: float = 0.06
    radius: float = 0.05
    fork_halfwidth: float = 0.025
    fork_y: float = 0.38
    pause: float = 0.5
    sigma_obs: float = 0.02
    distractor: bool = True

    def __post_init__(self) -> None:
        checks.integer("img", self.img, low=4)
        checks.integer("horizon", self.horizon, low=1)
        checks.integer("bins", self.bins, low=3)
        if self.bins % 2 == 0:
            raise ValueError("bins must be odd, so that 0 (a pause) is a bin centre")
        checks.real("pause", self.pause, low=0.0, high=1.0)
        checks.real("sigma_obs", self.sigma_obs, low=0.0)
        checks.real("speed", self.speed, low=0.0, strict=True)


def _check_state(state: dict[str, torch.Tensor]) -> int:
    if not isinstance(state, dict) or "pos" not in state:
        raise ValueError("state must be a dict made by reset()")
    return state["pos"].shape[0]


def reset(cfg: ForkReach, episodes: int, gen: torch.Generator) -> dict[str, torch.Tensor]:
    """``episodes`` fresh episodes: wall centre, start, target and distractor, instruction."""
    E = checks.integer("episodes", episodes, low=1)
    u = torch.rand(E, 5, generator=gen, dtype=torch.float64)
    cx = 0.4 + 0.2 * u[:, 0]
    start = torch.stack([cx + 0.03 * (u[:, 1] - 0.5), 0.08 + 0.04 * u[:, 2]], -1)
    off = (0.06 + 0.08 * u[:, 3]) * torch.where(u[:, 4] < 0.5, -1.0, 1.0).double()
    colour = torch.randint(0, 2, (E,), generator=gen)
    target = torch.stack([cx + off, torch.full_like(cx, 0.85)], -1)
    other = torch.stack([cx - off, torch.full_like(cx, 0.85)], -1)
    return {
        "cx": cx,
        "pos": start,
        "target": target,
        "distractor": other,
        "colour": colour,
        "done": torch.zeros(E, dtype=torch.bool),
        "success": torch.zeros(E, dtype=torch.bool),
        "t": torch.zeros(E, dtype=torch.long),
    }


def _in_wall(cfg: ForkReach, p: torch.Tensor, cx: torch.Tensor) -> torch.Tensor:
    return ((p[..., 0] - cx).abs() <= cfg.half) & ((p[..., 1] - cfg.wall_y).abs() <= cfg.thick / 2)


def step(
    cfg: ForkReach, state: dict[str, torch.Tensor], action: torch.Tensor
) -> dict[str, torch.Tensor]:
    """Apply ``action`` (episodes, 2), clipped to the speed box; blocked moves leave ``pos``."""
    E = _check_state(state)
    checks.tensor("action", action, ndim=2, floating=True)
    checks.shape("action", action, (E, 2))
    a = action.to(state["pos"]).clamp(-cfg.speed, cfg.speed)
    new = (state["pos"] + a).clamp(0.0, 1.0)
    frac = torch.linspace(0.25, 1.0, 4, dtype=new.dtype)
    path = state["pos"][:, None] + frac[None, :, None] * (new - state["pos"])[:, None]
    blocked = _in_wall(cfg, path, state["cx"][:, None]).any(1)
    moving = ~state["done"] & ~blocked
    pos = torch.where(moving[:, None], new, state["pos"])
    hit = (pos - state["target"]).norm(dim=-1) < cfg.radius
    t = state["t"] + (~state["done"]).long()
    success = state["success"] | (hit & ~state["done"])
    done = state["done"] | success | (t >= cfg.horizon)
    return {**state, "pos": pos, "t": t, "success": success, "done": done}


def fork_mask(cfg: ForkReach, state: dict[str, torch.Tensor]) -> torch.Tensor:
    """The states where the expert is multimodal (the fork): below the wall centre."""
    _check_state(state)
    x, y = state["pos"][:, 0], state["pos"][:, 1]
    below = (y >= cfg.fork_y) & (y < cfg.wall_y - cfg.thick / 2)
    return below & ((x - state["cx"]).abs() < cfg.fork_halfwidth)


def expert_action(
    cfg: ForkReach, state: dict[str, torch.Tensor], gen: torch.Generator
) -> torch.Tensor:
    """The demonstrator's action (episodes, 2): bimodal and hesitant at the fork, else Markov."""
    _check_state(state)
    pos, cx = state["pos"], state["cx"]
    x, y = pos[:, 0], pos[:, 1]
    v = cfg.speed
    dx = x - cx
    below = y < cfg.wall_y - cfg.thick / 2
    beside = dx.abs() < cfg.half + 0.05
    to_t = state["target"] - pos
    act = torch.sign(to_t) * (to_t.abs() > v / 2) * v  # king moves towards the target
    climb = below & beside & (y < cfg.fork_y)
    walk = below & beside & (y >= cfg.fork_y) & (dx.abs() >= cfg.fork_halfwidth)
    rise = ~beside & (y < cfg.wall_y + cfg.thick / 2 + 0.02) & (y >= cfg.fork_y)
    fork = fork_mask(cfg, state)
    r = torch.rand(pos.shape[0], generator=gen, dtype=pos.dtype)
    side = torch.where(r < (1 + cfg.pause) / 2, -1.0, 1.0).to(pos)
    side = torch.where(r < cfg.pause, torch.zeros_like(side), side)
    zero = torch.zeros_like(x)
    up = torch.stack([zero, zero + v], -1)
    act = torch.where((climb | rise)[:, None], up, act)
    act = torch.where(walk[:, None], torch.stack([torch.sign(dx) * v, zero], -1), act)
    act = torch.where(fork[:, None], torch.stack([side * v, zero], -1), act)
    return act


def tokenize(cfg: ForkReach, action: torch.Tensor) -> torch.Tensor:
    """Uniform bins on ``[-speed, speed]``: the nearest of ``bins`` centres, per dimension."""
    checks.tensor("action", action, floating=True)
    z = (action.clamp(-cfg.speed, cfg.speed) + cfg.speed) / (2 * cfg.speed) * (cfg.bins - 1)
    return z.round().long()


def detokenize(cfg: ForkReach, tokens: torch.Tensor) -> torch.Tensor:
    """Bin centres of ``tokens``."""
    checks.tensor("tokens", tokens)
    if tokens.is_floating_point() or bool(((tokens < 0) | (tokens >= cfg.bins)).any()):
        raise ValueError(f"tokens must be integers in [0, {cfg.bins})")
    return tokens.double() / (cfg.bins - 1) * 2 * cfg.speed - cfg.speed


def render(
    cfg: ForkReach,
    state: dict[str, torch.Tensor],
    gen: torch.Generator | None = None,
    *,
    dtype: torch.dtype = torch.float32,
) -> torch.Tensor:
    """Images (episodes, 3, img, img) in [0, 1]: red and blue blobs, grey wall, green agent.

    Blobs are Gaussians (sub-pixel positions stay visible), the wall is anti-aliased; pixel
    noise of standard deviation ``sigma_obs`` is added when ``gen`` is given. ``dtype``
    (``torch.float32`` or ``torch.float64``) is the precision of the image and its noise.
    """
    _check_state(state)
    if dtype not in (torch.float32, torch.float64):
        raise ValueError(f"dtype must be torch.float32 or torch.float64, got {dtype!r}")
    n = cfg.img
    c = (torch.arange(n, dtype=dtype) + 0.5) / n  # pixel centres; row 0 is y = 1

    def blob(p: torch.Tensor, s: float) -> torch.Tensor:  # separable Gaussian, (E, n, n)
        p = p.to(dtype)
        ex = torch.exp(-((c - p[:, :1]) ** 2) / (2 * s * s))
        ey = torch.exp(-((c.flip(0) - p[:, 1:]) ** 2) / (2 * s * s))
        return ey[:, :, None] * ex[:, None, :]

    first = (state["colour"] == 0)[:, None, None]
    other = state["distractor"] if cfg.distractor else torch.full_like(state["distractor"], 9.0)
    tgt, dis = blob(state["target"], 0.05), blob(other, 0.05)
    red, blue = torch.where(first, tgt, dis), torch.where(first, dis, tgt)
    wx = torch.sigmoid((cfg.half - (c - state["cx"][:, None].to(dtype)).abs()) / 0.01)
    wy = torch.sigmoid((cfg.thick / 2 - (c.flip(0) - cfg.wall_y).abs()) / 0.01)
    wall = 0.6 * wy[None, :, None] * wx[:, None, :]
    img = torch.stack([red + wall, blob(state["pos"], 0.04) + wall, blue + wall], 1)
    if gen is not None and cfg.sigma_obs > 0:
        img = img + cfg.sigma_obs * torch.randn(img.shape, generator=gen, dtype=dtype)
    return img.clamp(0.0, 1.0)


def collect_demos(
    cfg: ForkReach,
    episodes: int,
    gen: torch.Generator,
    *,
    explore: float = 0.0,
    dtype: torch.dtype = torch.float32,
) -> dict[str, torch.Tensor]:
    """Roll out the expert in ``episodes`` parallel episodes; return all (obs, token) pairs.

    With ``explore > 0`` the executed action is replaced, with that probability, by a random
    8-direction move while the label stays the expert's (noise injection in the spirit of
    DART), so that the demonstrations also cover states off the expert's path. ``dtype`` is
    the precision of the images and positions (that of the policy to be trained).
    """
    checks.real("explore", explore, low=0.0, high=1.0)
    if dtype not in (torch.float32, torch.float64):
        raise ValueError(f"dtype must be torch.float32 or torch.float64, got {dtype!r}")
    st = reset(cfg, episodes, gen)
    imgs, instr, prop, toks = [], [], [], []
    for _ in range(cfg.horizon):
        live = ~st["done"]
        if not bool(live.any()):
            break
        a = expert_action(cfg, st, gen)
        imgs.append(render(cfg, st, gen, dtype=dtype)[live])
        instr.append(st["colour"][live])
        prop.append(st["pos"][live].to(dtype))
        toks.append(tokenize(cfg, a)[live])
        # executed action: the expert's, or with probability `explore` a random 8-direction move
        rand = cfg.speed * torch.randint(-1, 2, a.shape, generator=gen).to(a)
        swap = torch.rand(a.shape[0], generator=gen, dtype=a.dtype) < explore
        st = step(cfg, st, torch.where(swap[:, None], rand, a))
    return {
        "image": torch.cat(imgs),
        "instruction": torch.cat(instr),
        "proprio": torch.cat(prop),
        "tokens": torch.cat(toks),
        "success": st["success"].double().mean(),
    }


# ---------------------------------------------------------------------------------------------
# The tiny VLA
# ---------------------------------------------------------------------------------------------
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
        ang = (xy[:, :, None] * self.freq).flatten(1)
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
    """Behaviour cloning: cross-entropy of both action tokens (teacher forcing), Adam."""
    checks.integer("steps", steps, low=1)
    checks.integer("batch", batch, low=1)
    checks.real("lr", lr, low=0.0, strict=True)
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

    Increasing in ``gamma`` by :prf:ref:`scale-prop-attn`.
    """
    checks.real("gamma", gamma, low=0.0, strict=True)
    with torch.no_grad():
        _, maps = policy.vision(image, torch.full((image.shape[0],), float(gamma)))
    return float(torch.stack([-(a * a.clamp_min(1e-30).log()).sum(-1).mean() for a in maps]).mean())


# ---------------------------------------------------------------------------------------------
# Closed-loop decoding
# ---------------------------------------------------------------------------------------------
#: Action temperature below which the arg-max is taken (the released code's threshold).
GREEDY_BELOW = 1e-3
#: The top-k baseline: the ``TOP_K`` most probable bins, sampled at temperature ``TOP_K_TAU``.
TOP_K, TOP_K_TAU = 5, 0.7
#: The top-p (nucleus) baseline: the smallest prefix of mass ``TOP_P``, at temperature 1.
TOP_P = 0.9
#: Offsets of a rollout seed's three random streams (:func:`icml26.stats.stream`): initial
#: states, observation noise and sampling noise, independent of each other and of the seed.
ENV_STREAM, OBS_STREAM, ACT_STREAM = 0, 1, 2


@dataclass(frozen=True)
class DecodingRule:
    """How one decoding method turns token logits into tokens.

    ``adaptive``: SCALE's per-token temperature ``T0*sigmoid(u)``; otherwise the constant
    ``temperature`` (0: the arg-max). ``top_k`` / ``top_p`` restrict the support first.
    ``look``: the vision encoder's attention is tempered by ``gamma_t`` from the uncertainty
    history. ``best_of``: ``n_best`` chunks, each from its own forward pass, the most likely
    one under the policy kept.
    """

    adaptive: bool = False
    temperature: float = 1.0
    top_k: int | None = None
    top_p: float | None = None
    look: bool = False
    best_of: bool = False

    def tau(self, u: torch.Tensor, t0: float) -> torch.Tensor:
        """The action temperature of every token whose self-uncertainty is ``u``."""
        if self.adaptive:
            return action_temperature(u, t0=t0)
        return torch.full_like(u, self.temperature)


#: The decoding methods :func:`rollout` understands, and their rules.
DECODING: dict[str, DecodingRule] = {
    "greedy": DecodingRule(temperature=0.0),
    "T=1": DecodingRule(),
    "top-k": DecodingRule(temperature=TOP_K_TAU, top_k=TOP_K),
    "top-p": DecodingRule(top_p=TOP_P),
    "SCALE": DecodingRule(adaptive=True, look=True),
    "SCALE (action only)": DecodingRule(adaptive=True),
    "SCALE (looking only)": DecodingRule(temperature=0.0, look=True),
    "best-of-N": DecodingRule(best_of=True),
}
#: Decoding methods understood by :func:`rollout`.
METHODS = tuple(DECODING)


@dataclass
class Rollout:
    """What :func:`rollout` records: success per episode, per-step traces, forward calls."""

    success: torch.Tensor
    pos: torch.Tensor  # (T+1, E, 2)
    u: torch.Tensor  # (T, E, 2) self-uncertainty per action token
    tau: torch.Tensor  # (T, E, 2) action temperature used (0 = arg-max)
    gamma: torch.Tensor  # (T, E)
    fork: torch.Tensor  # (T, E) the agent was at the fork
    active: torch.Tensor  # (T, E) the episode was still running
    encoder_calls: int
    decoder_calls: int
    steps: int
    states: dict = field(repr=False, default_factory=dict)


def _decode_chunk(
    policy: TinyVLA,
    rule: DecodingRule,
    h: torch.Tensor,
    gen: torch.Generator,
    *,
    t0: float,
    eps: float,
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    """One action chunk from the context ``h``: tokens, log-likelihood, ``u`` and ``tau``."""
    prev, toks, us, taus, ll = None, [], [], [], 0.0
    for k in range(2):
        lg = policy.logits(h, k, prev).double()
        u = self_uncertainty(lg, eps=eps)
        tau = rule.tau(u, t0)
        tok = sample_tokens(
            lg, tau, gen, top_k=rule.top_k, top_p=rule.top_p, greedy_below=GREEDY_BELOW
        )
        ll = ll + torch.log_softmax(lg, -1).gather(1, tok[:, None])[:, 0]
        toks.append(tok)
        us.append(u)
        taus.append(torch.where(tau < GREEDY_BELOW, torch.zeros_like(tau), tau))
        prev = tok
    return torch.stack(toks, -1), ll, torch.stack(us, -1), torch.stack(taus, -1)


def _decode_step(
    policy: TinyVLA,
    rule: DecodingRule,
    img: torch.Tensor,
    sub: dict[str, torch.Tensor],
    gamma: torch.Tensor,
    gen: torch.Generator,
    *,
    t0: float,
    eps: float,
    n_best: int,
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Tokens, ``u`` and ``tau`` of the running episodes ``sub`` at one control step.

    One encoder pass (``n_best`` for best-of-N, keeping the most likely chunk); ``u`` and
    ``tau`` are those of the first chunk.
    """
    dt = img.dtype
    cand, score, first = [], [], None
    for _ in range(n_best if rule.best_of else 1):
        h = policy.encode(img, sub["colour"], sub["pos"].to(dt), gamma.to(dt))
        toks, ll, u, tau = _decode_chunk(policy, rule, h, gen, t0=t0, eps=eps)
        cand.append(toks)
        score.append(ll)
        first = (u, tau) if first is None else first
    best = torch.stack(score).argmax(0)
    return torch.stack(cand)[best, torch.arange(best.numel())], *first


def rollout(
    policy: TinyVLA,
    cfg: ForkReach,
    method: str,
    *,
    episodes: int,
    seed: int,
    t0: float = 1.0,
    kappa: float = 2.0,
    s: float = 0.3,
    alpha: float = 0.8,
    eps: float = 1e-12,
    n_best: int = 4,
) -> Rollout:
    """Closed-loop evaluation of one decoding ``method`` (a key of :data:`DECODING`).

    The episodes, observation noise and sampling noise come from three independent streams of
    ``seed`` (:data:`ENV_STREAM`, :data:`OBS_STREAM`, :data:`ACT_STREAM`), so the initial
    states are identical across methods. Images and inputs take the policy's precision (a
    float64 policy makes the closed loop independent of the last bits of its arithmetic).
    SCALE computes ``gamma_t`` from the history *before* the step's single encoder pass,
    then per token ``u``, ``tau = T0*sigmoid(u)`` and a draw at ``tau``. Best-of-N draws
    ``n_best`` chunks at ``T = 1``, each from its own forward pass, and keeps the one of
    highest log-likelihood under the policy.
    """
    if method not in DECODING:
        raise ValueError(f"method must be one of {METHODS}, got {method!r}")
    rule = DECODING[method]
    checks.integer("n_best", n_best, low=1)
    seed = checks.integer("seed", seed, low=0)
    gen_env, gen_obs, gen_act = (
        stream(seed, offset) for offset in (ENV_STREAM, OBS_STREAM, ACT_STREAM)
    )
    st = reset(cfg, episodes, gen_env)
    hist = History(episodes, 2, alpha)
    e0, d0 = policy.encoder_calls, policy.decoder_calls
    dt = next(policy.parameters()).dtype
    P, U, TAU, G, FK, ACT = [st["pos"]], [], [], [], [], []
    steps = 0
    with torch.no_grad():
        for _ in range(cfg.horizon):
            live = ~st["done"]
            if not bool(live.any()):
                break
            steps += 1
            idx = live.nonzero()[:, 0]  # decode only the episodes still running
            sub = {key: val[idx] for key, val in st.items()}
            img = render(cfg, sub, gen_obs, dtype=dt)
            gamma = torch.ones(episodes, dtype=torch.float64)
            if rule.look:
                gamma = attention_temperature(hist.delta(), kappa=kappa, s=s)
            tok_l, u_l, tau_l = _decode_step(
                policy, rule, img, sub, gamma[idx], gen_act, t0=t0, eps=eps, n_best=n_best
            )
            tokens = torch.full((episodes, 2), cfg.bins // 2, dtype=torch.long)
            us = torch.zeros(episodes, 2, dtype=torch.float64)
            taus = torch.zeros(episodes, 2, dtype=torch.float64)
            tokens[idx], us[idx], taus[idx] = tok_l, u_l, tau_l
            U.append(us)
            TAU.append(taus)
            G.append(gamma)
            FK.append(fork_mask(cfg, st) & live)
            ACT.append(live)
            hist.update(us, live)
            st = step(cfg, st, detokenize(cfg, tokens))
            P.append(st["pos"])
    return Rollout(
        success=st["success"],
        pos=torch.stack(P),
        u=torch.stack(U),
        tau=torch.stack(TAU),
        gamma=torch.stack(G),
        fork=torch.stack(FK),
        active=torch.stack(ACT),
        encoder_calls=policy.encoder_calls - e0,
        decoder_calls=policy.decoder_calls - d0,
        steps=steps,
        states=st,
    )


def make_gym_env(cfg: ForkReach | None = None, seed: int = 0):
    """A single-episode ``gymnasium.Env`` view of ForkReach (image, instruction, position)."""
    import gymnasium as gym
    import numpy as np
    from gymnasium import spaces

    cfg = ForkReach() if cfg is None else cfg

    class ForkReachEnv(gym.Env):
        metadata: ClassVar[dict] = {"render_modes": []}

        def __init__(self) -> None:
            self.observation_space = spaces.Dict(
                {
                    "image": spaces.Box(0.0, 1.0, (3, cfg.img, cfg.img), dtype=np.float32),
                    "instruction": spaces.Discrete(2),
                    "proprio": spaces.Box(0.0, 1.0, (2,), dtype=np.float32),
                }
            )
            self.action_space = spaces.Box(-cfg.speed, cfg.speed, (2,), dtype=np.float32)
            self._gen = torch.Generator().manual_seed(seed)
            self._st: dict | None = None

        def _obs(self) -> dict:
            st = self._st
            return {
                "image": render(cfg, st, self._gen)[0].numpy(),
                "instruction": int(st["colour"][0]),
                "proprio": st["pos"][0].float().numpy(),
            }

        def reset(self, *, seed: int | None = None, options: dict | None = None):
            super().reset(seed=seed)
            if seed is not None:
                self._gen = torch.Generator().manual_seed(int(seed))
            self._st = reset(cfg, 1, self._gen)
            return self._obs(), {}

        def step(self, action):
            a = torch.as_tensor(np.asarray(action, dtype=np.float64)).reshape(1, 2)
            self._st = step(cfg, self._st, a)
            ok = bool(self._st["success"][0])
            trunc = bool(self._st["done"][0]) and not ok
            return self._obs(), float(ok), ok, trunc, {}

    return ForkReachEnv()
