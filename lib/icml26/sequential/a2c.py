"""The informed asymmetric actor-critic, trained: many critics and seeds at once (chapter 03).

The paper's informed-asym-A2C: an actor ``pi(a | h)`` that reads only the history, and a
separate critic ``V(h, i)`` that also reads a chosen privileged signal ``i_t`` (never given
to the actor). The critic is trained by TD(0) towards ``r_t + gamma V_target(h_{t+1},
i_{t+1})`` with a frozen target critic refreshed every ``target_every`` updates; the actor
follows the advantage ``r_t + gamma V(h_{t+1}, i_{t+1}) - V(h_t, i_t)`` with an entropy bonus
that decays linearly to ``entropy_final``. By :prf:ref:`informed-critic-thm-unbiased` the
signal may be any function of the state (and independent noise); the baselines are the
same algorithm with no signal (the symmetric A2C), the full state, or pure noise.

At toy scale the GRU history encoders of the paper are replaced by a window of the last
``window`` observations and actions with the normalised time (the features of
:func:`icml26.sequential.critic_envs.history_window`), and both heads are one-hidden-layer
MLPs. Every model (``len(signals)`` critics times ``n_seeds`` seeds) is trained at once:
the parameters carry a leading model axis and every product is a batched matrix product.
Seed ``s`` starts every critic from the same actor and draws the same random numbers for
actions and transitions (common random numbers), so critics are compared in pairs.

A readable one-model, one-episode-at-a-time version of :func:`collect` and
:func:`a2c_losses` is the reference of chapter 03 (``reference_a2c_losses``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import torch

from icml26 import checks

__all__ = [
    "A2CRun",
    "A2CSettings",
    "Models",
    "Rollout",
    "Segment",
    "Signal",
    "a2c_losses",
    "collect",
    "draw_segment",
    "init_models",
    "mlp",
    "signal_maps",
    "start",
    "train_a2c",
    "update",
]


@dataclass(frozen=True)
class Signal:
    """What a critic reads besides the history: the privileged features ``features`` (column
    indices of the environment's ``privileged(state)``) and ``noise`` extra columns of
    independent standard normal noise. ``Signal("none")`` is the symmetric critic."""

    name: str
    features: tuple[int, ...] = ()
    noise: int = 0

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name:
            raise ValueError("name must be a non-empty string")
        feats = tuple(self.features)
        for j in feats:
            checks.integer("features", j, low=0)
        if len(set(feats)) != len(feats):
            raise ValueError(f"features must not repeat, got {feats}")
        object.__setattr__(self, "features", feats)
        checks.integer("noise", self.noise, low=0)

    @property
    def width(self) -> int:
        return len(self.features) + self.noise


@dataclass(frozen=True)
class A2CSettings:
    """Sizes and step sizes of one training run (every field validated)."""

    n_iterations: int = 600  # updates
    n_envs: int = 16  # environments per model
    segment: int = 25  # steps per environment per update
    window: int = 3  # observations and actions in the history encoding
    hidden: int = 16  # hidden units of each head
    lr_actor: float = 3e-3
    lr_critic: float = 1e-2
    gamma: float = 0.99
    entropy: float = 0.01  # entropy bonus at the first update ...
    entropy_final: float = 0.001  # ... decayed linearly to this at the last
    target_every: int = 10  # updates between refreshes of the target critic

    def __post_init__(self) -> None:
        for name in ("n_iterations", "n_envs", "segment", "window", "hidden", "target_every"):
            checks.integer(name, getattr(self, name), low=1)
        for name in ("lr_actor", "lr_critic"):
            checks.real(name, getattr(self, name), low=0.0, strict=True)
        checks.real("gamma", self.gamma, low=0.0, high=1.0)
        checks.real("entropy", self.entropy, low=0.0)
        checks.real("entropy_final", self.entropy_final, low=0.0)


@dataclass
class Models:
    """Batched parameters, leading axis = model (config-major: model ``c * n_seeds + s``).
    Each head is ``[W1 (M, d_in, H), b1 (M, 1, H), W2 (M, H, d_out), b2 (M, 1, d_out)]``."""

    actor: list[torch.Tensor]
    critic: list[torch.Tensor]
    target: list[torch.Tensor]


@dataclass
class Rollout:
    """Where the environments are between updates: ``state`` (M, N, ...), the step in the
    episode ``t`` (M, N), the history window (M, N, window, d_step), the one-hot previous
    action (M, N, A) (zero at an episode's start) and the running episode's return (M, N)."""

    state: torch.Tensor
    t: torch.Tensor
    window: torch.Tensor
    prev_action: torch.Tensor
    episode_return: torch.Tensor


@dataclass
class Segment:
    """One update's data. ``x`` (M, d_z + d_i, T + 1, N) holds the critic's inputs
    feature-major: history features then signal, for each of the ``T`` steps and the step
    after the last, and each environment (in this layout the heads' matrix products run about
    twice as fast on a CPU as batch-major ones). Actions ``a``, rewards ``r`` and episode
    ends ``done`` are (M, N, T); per model, the summed return and count of the episodes that
    ended in the segment. The history features ``z``, signal ``i`` (M, N, T, d) and those
    after the last step ``z_last``, ``i_last`` (M, N, d) are views of ``x``."""

    x: torch.Tensor
    d_history: int
    a: torch.Tensor
    r: torch.Tensor
    done: torch.Tensor
    ended_return: torch.Tensor
    ended: torch.Tensor

    @property
    def z(self) -> torch.Tensor:
        return self.x[:, : self.d_history, :-1].permute(0, 3, 2, 1)

    @property
    def i(self) -> torch.Tensor:
        return self.x[:, self.d_history :, :-1].permute(0, 3, 2, 1)

    @property
    def z_last(self) -> torch.Tensor:
        return self.x[:, : self.d_history, -1].transpose(1, 2)

    @property
    def i_last(self) -> torch.Tensor:
        return self.x[:, self.d_history :, -1].transpose(1, 2)


@dataclass
class A2CRun:
    """A training run: ``returns`` (n_iterations, n_signals, n_seeds) — the mean return of the
    episodes that ended during each update (carried forward when none did) — and the models."""

    signals: tuple[Signal, ...]
    settings: A2CSettings
    returns: torch.Tensor
    models: Models = field(repr=False)


def _check_env(env: object) -> None:
    for name in ("n_actions", "obs_dim", "privileged_dim", "horizon"):
        if not hasattr(env, name):
            raise ValueError(f"env must have the attribute {name!r}")
        checks.integer(f"env.{name}", getattr(env, name), low=1)
    for name in ("reset_uniforms", "step_uniforms"):
        checks.integer(f"env.{name}", getattr(env, name, None), low=0)
    for name in ("reset", "observe", "privileged", "step"):
        if not callable(getattr(env, name, None)):
            raise ValueError(f"env must have a method {name!r}")


def _check_signals(signals: object, privileged_dim: int) -> tuple[Signal, ...]:
    if isinstance(signals, Signal) or not isinstance(signals, Sequence) or not signals:
        raise ValueError("signals must be a non-empty sequence of Signal")
    out = tuple(signals)
    for s in out:
        if not isinstance(s, Signal):
            raise ValueError(f"signals must hold Signal objects, got {type(s).__name__}")
        if any(j >= privileged_dim for j in s.features):
            raise ValueError(f"signal {s.name!r} reads a feature >= {privileged_dim}")
    if len({s.name for s in out}) != len(out):
        raise ValueError("signals must have distinct names")
    return out


def signal_maps(
    signals: Sequence[Signal], privileged_dim: int, n_seeds: int, dtype: torch.dtype
) -> tuple[torch.Tensor, torch.Tensor]:
    """Per model, the map from privileged features to the critic's signal columns
    (M, privileged_dim, d_i) and the mask of its noise columns (M, 1, d_i)."""
    signals = _check_signals(signals, checks.integer("privileged_dim", privileged_dim, low=1))
    S = checks.integer("n_seeds", n_seeds, low=1)
    d_i = max(1, max(s.width for s in signals))
    sel = torch.zeros(len(signals), privileged_dim, d_i, dtype=dtype)
    noise = torch.zeros(len(signals), 1, d_i, dtype=dtype)
    for c, s in enumerate(signals):
        for col, j in enumerate(s.features):
            sel[c, j, col] = 1.0
        noise[c, 0, len(s.features) : s.width] = 1.0
    return sel.repeat_interleave(S, 0), noise.repeat_interleave(S, 0)


def _check_head(name: str, params: object) -> tuple[int, int, int]:
    """``params`` is ``[W1, b1, W2, b2]`` of one batched head; its ``(M, d_in, d_out)``.

    Shapes and types only: the heads are read at every step of the training loop, and a
    finiteness check would synchronise the device each time (NaN propagates instead).
    """
    if isinstance(params, str) or not isinstance(params, Sequence) or len(params) != 4:
        raise ValueError(f"{name} must be a list [W1, b1, W2, b2], got {type(params).__name__}")
    W1, b1, W2, b2 = (
        checks.tensor(f"{name}[{j}]", p, ndim=3, floating=True) for j, p in enumerate(params)
    )
    M, d_in, H = W1.shape
    checks.shape(f"{name}[1]", b1, (M, 1, H))
    checks.shape(f"{name}[2]", W2, (M, H, None))
    checks.shape(f"{name}[3]", b2, (M, 1, W2.shape[2]))
    return M, d_in, int(W2.shape[2])


def mlp(params: Sequence[torch.Tensor], x: torch.Tensor) -> torch.Tensor:
    """One-hidden-layer ReLU MLP per model: ``x`` (M, B, d_in) -> (M, B, d_out).

    A per-step kernel of the training loop: shapes and types are checked, but NaN and inf
    in ``params`` or ``x`` propagate to the output (checking them would synchronise the
    device at every step).
    """
    M, d_in, _ = _check_head("params", params)
    x = checks.tensor("x", x, ndim=3, floating=True)
    checks.shape("x", x, (M, None, d_in))
    return _mlp(params, x)


def _mlp(params: Sequence[torch.Tensor], x: torch.Tensor) -> torch.Tensor:
    W1, b1, W2, b2 = params
    return torch.baddbmm(b2, torch.baddbmm(b1, x, W1).relu(), W2)


def _mlp_t(params: Sequence[torch.Tensor], x: torch.Tensor) -> torch.Tensor:
    """:func:`_mlp` feature-major: ``x`` (M, d_in, B) -> (M, d_out, B), the same numbers
    up to rounding (products of the transposed weights)."""
    W1, b1, W2, b2 = (p.transpose(1, 2) for p in params)
    return torch.baddbmm(b2, W2, torch.baddbmm(b1, W1, x).relu_())


def _head(S, C, d_in, d_out, hidden, gen, out_scale, dtype, device) -> list[torch.Tensor]:
    W1 = torch.randn(S, d_in, hidden, generator=gen, dtype=dtype) * math.sqrt(2.0 / d_in)
    W2 = torch.randn(S, hidden, d_out, generator=gen, dtype=dtype) * out_scale
    W2 = W2 / math.sqrt(hidden)
    zeros = [torch.zeros(S, 1, hidden, dtype=dtype), torch.zeros(S, 1, d_out, dtype=dtype)]
    return [p.repeat(C, 1, 1).to(device).requires_grad_(True) for p in (W1, zeros[0], W2, zeros[1])]


def init_models(
    n_signals: int,
    n_seeds: int,
    d_history: int,
    d_signal: int,
    n_actions: int,
    hidden: int,
    *,
    generator: torch.Generator | None = None,
    dtype: torch.dtype = torch.float64,
    device: torch.device | str = "cpu",
) -> Models:
    """Actor ``(d_history -> n_actions)``, critic ``(d_history + d_signal -> 1)`` and its
    target copy for ``n_signals * n_seeds`` models; seed ``s`` has the same initial weights
    for every signal (the critic's columns beyond a signal's width only ever see zeros)."""
    C = checks.integer("n_signals", n_signals, low=1)
    S = checks.integer("n_seeds", n_seeds, low=1)
    dz = checks.integer("d_history", d_history, low=1)
    di = checks.integer("d_signal", d_signal, low=1)
    A = checks.integer("n_actions", n_actions, low=1)
    H = checks.integer("hidden", hidden, low=1)
    if not dtype.is_floating_point:
        raise ValueError(f"dtype must be a floating-point dtype, got {dtype}")
    actor = _head(S, C, dz, A, H, generator, 0.01, dtype, device)  # near-uniform policy
    critic = _head(S, C, dz + di, 1, H, generator, 1.0, dtype, device)
    return Models(actor, critic, [p.detach().clone() for p in critic])


def start(
    env, n_models: int, n_envs: int, window: int, u: torch.Tensor, dtype=torch.float64
) -> Rollout:
    """Fresh episodes in every environment, initial states from uniforms ``u`` (M, N, k)."""
    _check_env(env)
    M = checks.integer("n_models", n_models, low=1)
    N = checks.integer("n_envs", n_envs, low=1)
    k = checks.integer("window", window, low=1)
    u = checks.tensor("u", u, floating=True)
    checks.shape("u", u, (M, N, env.reset_uniforms))
    checks.finite("u", u)
    dev = u.device
    d_step = env.obs_dim + env.n_actions + 1
    return Rollout(
        env.reset(u),
        torch.zeros(M, N, dtype=torch.long, device=dev),
        torch.zeros(M, N, k, d_step, dtype=dtype, device=dev),
        torch.zeros(M, N, env.n_actions, dtype=dtype, device=dev),
        torch.zeros(M, N, dtype=dtype, device=dev),
    )


def _push(env, ro: Rollout, x, t, sel, noise_mask, eps) -> None:
    """Column ``t`` of the segment's inputs ``x`` (M, d_in, T + 1, N): the current step's
    observation, previous action and constant pushed in front of the window (whose older rows
    are already in place), the time, and the critic's signal."""
    obs = env.observe(ro.state, check=False).to(x.dtype)
    step = torch.cat([obs, ro.prev_action, torch.ones_like(obs[..., :1])], -1)
    k, d_step = ro.window.shape[2:]
    x[:, :d_step, t] = step.transpose(1, 2)
    x[:, k * d_step, t] = ro.t.to(x.dtype) / env.horizon
    i = torch.bmm(env.privileged(ro.state, check=False).to(x.dtype).flatten(1, -2), sel)
    x[:, k * d_step + 1 :, t] = (i.view(*ro.t.shape, -1) + eps * noise_mask).transpose(1, 2)


def _step(env, ro: Rollout, a, draws, t) -> tuple[Rollout, torch.Tensor, torch.Tensor]:
    """Step the environments; restart the episodes that end. ``(rollout, reward, done)``; the
    rollout's window is left as it was (:func:`collect` keeps the windows in its segment)."""
    nxt, r, term = env.step(ro.state, a, draws["step"][t], check=False)
    r = r.to(ro.episode_return.dtype)
    t_next = ro.t + 1
    done = term | (t_next >= env.horizon)
    keep = ~done
    fresh = env.reset(draws["reset"][t], check=False)
    state = torch.where(done.view(*done.shape, *[1] * (nxt.ndim - 2)), fresh, nxt)
    prev = torch.nn.functional.one_hot(a, env.n_actions).to(r.dtype)
    ro_next = Rollout(
        state, t_next * keep, ro.window, prev * keep[..., None], (ro.episode_return + r) * keep
    )
    return ro_next, r, done


def _check_step_inputs(
    env, models: object, ro: object, maps: tuple[object, object], names: tuple[str, str]
) -> None:
    """Types and shapes of the inputs of one training step (no finiteness check: a per-step
    kernel must not synchronise the device; NaN and inf propagate)."""
    _check_env(env)
    if not isinstance(models, Models):
        raise ValueError(f"models must be Models (see init_models), got {type(models).__name__}")
    if not isinstance(ro, Rollout):
        raise ValueError(f"ro must be a Rollout (see start), got {type(ro).__name__}")
    M, dz, _ = _check_head("models.actor", models.actor)
    _, d_in, _ = _check_head("models.critic", models.critic)
    sel = checks.tensor(names[0], maps[0], ndim=3, floating=True)
    checks.shape(names[0], sel, (M, env.privileged_dim, d_in - dz))
    noise_mask = checks.tensor(names[1], maps[1], ndim=3, floating=True)
    checks.shape(names[1], noise_mask, (M, 1, d_in - dz))


def collect(
    env,
    models: Models,
    ro: Rollout,
    sel: torch.Tensor,
    noise_mask: torch.Tensor,
    draws: dict[str, torch.Tensor],
) -> tuple[Segment, Rollout]:
    """Run every model's environments for ``T`` steps with its current actor (no gradient).

    ``draws`` holds the randomness of the segment: ``gumbel`` (T, M, N, A) standard Gumbel
    noise for the actions (Gumbel-max sampling: ``argmax(logits + g)``), ``step`` (T, M, N, k) and
    ``reset`` (T, M, N, k') uniforms for the environment, ``noise`` (T + 1, M, N, d_i) normal
    draws for the noise columns of the signals. Episodes that end restart at once. The
    segment's inputs are written in place, column by column, into one feature-major tensor
    (:class:`Segment`): each step's window is the previous column's, shifted by one step.
    A per-step kernel of the training loop: the inputs' types and shapes are checked, but NaN
    and inf propagate (a finiteness check would synchronise the device at every update).
    """
    _check_step_inputs(env, models, ro, (sel, noise_mask), ("sel", "noise_mask"))
    T = draws["gumbel"].shape[0]
    if T < 1:
        raise ValueError("draws['gumbel'] must hold at least one step")
    M, N, k, d_step = ro.window.shape
    dz, d_in = models.actor[0].shape[1], models.critic[0].shape[1]
    x = ro.window.new_empty(M, d_in, T + 1, N)
    win = x[:, : k * d_step]  # each column's window of steps, the newest first
    win[:, d_step:, 0] = ro.window[:, :, :-1].flatten(2).transpose(1, 2)
    As: list[torch.Tensor] = []
    R: list[torch.Tensor] = []
    D: list[torch.Tensor] = []
    ended_ret = torch.zeros_like(ro.episode_return[:, 0])
    ended = torch.zeros_like(ended_ret)
    with torch.no_grad():
        for t in range(T + 1):
            _push(env, ro, x, t, sel, noise_mask, draws["noise"][t])
            if t == T:
                break
            a = (_mlp(models.actor, x[:, :dz, t].mT) + draws["gumbel"][t]).argmax(-1)
            ret = ro.episode_return
            ro, r, done = _step(env, ro, a, draws, t)
            keep = (~done).to(x.dtype)[:, None]
            torch.mul(win[:, :-d_step, t], keep, out=win[:, d_step:, t + 1])
            ended_ret += ((ret + r) * done).sum(1)
            ended += done.sum(1)
            for acc, v in zip((As, R, D), (a, r, done), strict=True):
                acc.append(v)
        # the window after the last step, emptied where an episode ended
        window = (win[:, :, T - 1] * keep).view(M, k, d_step, N).permute(0, 3, 1, 2)
    ro = Rollout(ro.state, ro.t, window.contiguous(), ro.prev_action, ro.episode_return)
    a_all, r_all, d_all = (torch.stack(v, 2) for v in (As, R, D))
    return Segment(x, dz, a_all, r_all, d_all, ended_ret, ended), ro


def a2c_losses(
    models: Models, seg: Segment, gamma: float, entropy: float
) -> tuple[torch.Tensor, torch.Tensor]:
    """Per-model actor and critic losses (M,) of one segment.

    Critic: mean of ``(V(h_t, i_t) - r_t - gamma (1 - d_t) V_target(h_{t+1}, i_{t+1}))^2``.
    Actor: ``-mean(A_t log pi(a_t | h_t)) - entropy * mean(H(pi(. | h_t)))`` with the TD(0)
    advantage ``A_t = r_t + gamma (1 - d_t) V(h_{t+1}, i_{t+1}) - V(h_t, i_t)`` (no gradient).
    """
    gamma = checks.real("gamma", gamma, low=0.0, high=1.0)
    entropy = checks.real("entropy", entropy, low=0.0)
    M, d_in, T1, N = seg.x.shape
    T, dz = T1 - 1, seg.d_history
    x_all = seg.x.view(M, d_in, T1 * N)
    v_all = _mlp_t(models.critic, x_all).view(M, T1, N).transpose(1, 2)
    cont = gamma * (~seg.done).to(x_all.dtype)
    with torch.no_grad():
        v_tgt = _mlp_t(models.target, x_all).view(M, T1, N).transpose(1, 2)[..., 1:]
        adv = seg.r + cont * v_all[..., 1:] - v_all[..., :T]
    v = v_all[..., :T]
    critic_loss = (v - (seg.r + cont * v_tgt)).square().mean((1, 2))
    # the actor on every column (the step after the last is dropped): no copy of x's rows
    logits = _mlp_t(models.actor, x_all[:, :dz]).view(M, -1, T1, N)[:, :, :T].transpose(2, 3)
    logp = logits.log_softmax(1)
    logp_a = logp.gather(1, seg.a[:, None]).squeeze(1)
    ent = -(logp.exp() * logp).sum(1)
    actor_loss = -(adv * logp_a).mean((1, 2)) - entropy * ent.mean((1, 2))
    return actor_loss, critic_loss


def draw_segment(
    env,
    n_steps: int,
    n_seeds: int,
    n_signals: int,
    n_envs: int,
    d_signal: int,
    *,
    generator: torch.Generator | None = None,
    dtype: torch.dtype = torch.float64,
    device: torch.device | str = "cpu",
) -> dict[str, torch.Tensor]:
    """One segment's random numbers for :func:`collect`, drawn per seed and shared by the
    ``n_signals`` models of a seed (common random numbers), models config-major."""
    _check_env(env)
    T = checks.integer("n_steps", n_steps, low=1)
    S = checks.integer("n_seeds", n_seeds, low=1)
    C = checks.integer("n_signals", n_signals, low=1)
    N = checks.integer("n_envs", n_envs, low=1)
    d_i = checks.integer("d_signal", d_signal, low=1)

    def u(*shape):
        x = torch.rand(*shape, generator=generator, dtype=torch.float64)
        return x.repeat(1, C, *[1] * (len(shape) - 2)).to(device)

    gumbel = -(-u(T, S, N, env.n_actions).clamp_min(1e-300).log()).log()
    noise = torch.randn(T + 1, S * C, N, d_i, generator=generator, dtype=torch.float64)
    return {
        "gumbel": gumbel.to(dtype),
        "step": u(T, S, N, env.step_uniforms),
        "reset": u(T, S, N, env.reset_uniforms),
        "noise": noise.to(device, dtype),
    }


def update(
    env,
    models: Models,
    optimizer: torch.optim.Optimizer,
    ro: Rollout,
    maps: tuple[torch.Tensor, torch.Tensor],
    draws: dict[str, torch.Tensor],
    gamma: float,
    entropy: float,
) -> tuple[Segment, Rollout]:
    """One training step of every model: collect a segment, one optimizer step on the sum of
    the models' actor and critic losses (the models share no parameter). ``maps`` is the
    pair ``(sel, noise_mask)`` of :func:`signal_maps`. A per-step kernel: types and shapes
    are checked before the step, NaN and inf propagate (as in :func:`collect`)."""
    if isinstance(maps, str) or not isinstance(maps, Sequence) or len(maps) != 2:
        raise ValueError(f"maps must be a pair (sel, noise_mask), got {type(maps).__name__}")
    _check_step_inputs(env, models, ro, (maps[0], maps[1]), ("maps[0]", "maps[1]"))
    gamma = checks.real("gamma", gamma, low=0.0, high=1.0)
    entropy = checks.real("entropy", entropy, low=0.0)
    if not isinstance(optimizer, torch.optim.Optimizer):
        raise ValueError(f"optimizer must be a torch.optim.Optimizer, got {type(optimizer)}")
    seg, ro = collect(env, models, ro, *maps, draws)
    actor_loss, critic_loss = a2c_losses(models, seg, gamma, entropy)
    optimizer.zero_grad()
    (actor_loss.sum() + critic_loss.sum()).backward()
    optimizer.step()
    return seg, ro


def _setup(env, signals, S, cfg, gen, dtype, device):
    C, N = len(signals), cfg.n_envs
    maps = tuple(m.to(device) for m in signal_maps(signals, env.privileged_dim, S, dtype))
    dz = cfg.window * (env.obs_dim + env.n_actions + 1) + 1
    models = init_models(
        C, S, dz, maps[0].shape[-1], env.n_actions, cfg.hidden,
        generator=gen, dtype=dtype, device=device,
    )  # fmt: skip
    optimizer = torch.optim.Adam(
        [
            {"params": models.actor, "lr": cfg.lr_actor},
            {"params": models.critic, "lr": cfg.lr_critic},
        ]
    )
    u0 = torch.rand(S, N, env.reset_uniforms, generator=gen, dtype=torch.float64)
    ro = start(env, C * S, N, cfg.window, u0.repeat(C, 1, 1).to(device), dtype)
    return maps, models, optimizer, ro


def train_a2c(
    env,
    signals: Sequence[Signal],
    *,
    n_seeds: int,
    settings: A2CSettings | None = None,
    generator: torch.Generator | None = None,
    dtype: torch.dtype = torch.float64,
    device: torch.device | str = "cpu",
    progress=None,
) -> A2CRun:
    """Train ``len(signals) * n_seeds`` informed asymmetric actor-critics at once.

    Seed ``s`` of every signal starts from the same weights and draws the same random numbers
    (from ``generator``); the critics differ only in the signal they read. Float64 (the
    default) keeps every sampled action identical across CPUs and numeric libraries: in
    float32 a last-bit difference flips an action within a few dozen updates and the runs
    diverge. ``progress`` (e.g. ``icml26.progress``) wraps the loop over updates. Implements
    :prf:ref:`informed-critic-alg-a2c`, chapter 03.
    """
    _check_env(env)
    signals = _check_signals(signals, env.privileged_dim)
    S = checks.integer("n_seeds", n_seeds, low=1)
    cfg = A2CSettings() if settings is None else settings
    if not isinstance(cfg, A2CSettings):
        raise ValueError(f"settings must be A2CSettings, got {type(settings).__name__}")
    if generator is not None and not isinstance(generator, torch.Generator):
        raise ValueError("generator must be a torch.Generator or None")
    if not isinstance(dtype, torch.dtype) or not dtype.is_floating_point:
        raise ValueError(f"dtype must be a floating-point dtype, got {dtype}")
    gen = torch.Generator().manual_seed(0) if generator is None else generator
    maps, models, optimizer, ro = _setup(env, signals, S, cfg, gen, dtype, device)
    C, K = len(signals), cfg.n_iterations
    returns = torch.full((K, C * S), math.nan, dtype=torch.float64)
    last = returns[0].clone()
    steps = range(K) if progress is None else progress(range(K), desc="A2C updates")
    for k in steps:
        draws = draw_segment(
            env, cfg.segment, S, C, cfg.n_envs, maps[0].shape[-1],
            generator=gen, dtype=dtype, device=device,
        )  # fmt: skip
        lam = cfg.entropy + (cfg.entropy_final - cfg.entropy) * k / max(K - 1, 1)
        seg, ro = update(env, models, optimizer, ro, maps, draws, cfg.gamma, lam)
        if (k + 1) % cfg.target_every == 0:
            models.target = [p.detach().clone() for p in models.critic]
        ended = seg.ended.cpu()
        mean = seg.ended_return.cpu().double() / ended.clamp_min(1)
        last = torch.where(ended > 0, mean, last)
        returns[k] = last
    return A2CRun(signals, cfg, returns.view(K, C, S), models)
