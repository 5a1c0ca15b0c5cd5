"""ForkReach (chapter 15, scale): a 2-D reaching task with a wall, a fork and hesitant
demonstrations, vectorised over episodes.

The geometry, reset and step, the demonstrator (bimodal and hesitant at the fork), action
tokenization, rendering to small RGB images, the collection of demonstrations for behaviour
cloning, and a single-episode ``gymnasium.Env`` view.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import torch

from icml26 import checks

__all__ = [
    "ForkReach",
    "collect_demos",
    "detokenize",
    "expert_action",
    "fork_mask",
    "make_gym_env",
    "render",
    "reset",
    "step",
    "tokenize",
]


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
    checks.finite("action", action)
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
    """Uniform bins on ``[-speed, speed]``: the nearest of ``bins`` centres, per dimension.

    Elementwise over any shape of ``action`` (finite).
    """
    checks.tensor("action", action, floating=True)
    checks.finite("action", action)
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


def make_gym_env(cfg: ForkReach | None = None, seed: int = 0):
    """A single-episode ``gymnasium.Env`` view of ForkReach (image, instruction, position)."""
    import gymnasium as gym
    import numpy as np
    from gymnasium import spaces

    env_cfg: ForkReach = ForkReach() if cfg is None else cfg

    class ForkReachEnv(gym.Env):
        metadata: ClassVar[dict] = {"render_modes": []}  # type: ignore[misc]

        def __init__(self) -> None:
            self.observation_space = spaces.Dict(
                {
                    "image": spaces.Box(0.0, 1.0, (3, env_cfg.img, env_cfg.img), dtype=np.float32),
                    "instruction": spaces.Discrete(2),
                    "proprio": spaces.Box(0.0, 1.0, (2,), dtype=np.float32),
                }
            )
            self.action_space = spaces.Box(-env_cfg.speed, env_cfg.speed, (2,), dtype=np.float32)
            self._gen = torch.Generator().manual_seed(seed)
            self._st: dict | None = None

        def _obs(self) -> dict:
            st = self._st
            assert st is not None, "reset() first"
            return {
                "image": render(env_cfg, st, self._gen)[0].numpy(),
                "instruction": int(st["colour"][0]),
                "proprio": st["pos"][0].float().numpy(),
            }

        def reset(self, *, seed: int | None = None, options: dict | None = None):
            super().reset(seed=seed)
            if seed is not None:
                self._gen = torch.Generator().manual_seed(int(seed))
            self._st = reset(env_cfg, 1, self._gen)
            return self._obs(), {}

        def step(self, action):
            a = torch.as_tensor(np.asarray(action, dtype=np.float64)).reshape(1, 2)
            self._st = step(env_cfg, self._st, a)
            ok = bool(self._st["success"][0])
            trunc = bool(self._st["done"][0]) and not ok
            return self._obs(), float(ok), ok, trunc, {}

    return ForkReachEnv()
