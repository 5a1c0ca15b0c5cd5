"""Environments of chapter 03 (informed-critic): an aliased synthetic POMDP and masked CartPole.

Both are batched torch environments: every method takes tensors with any leading batch shape
(models x environments), so that many seeds and environments step at once. They share one
interface, used by the trainer of :mod:`icml26.sequential.a2c`:

- ``reset(u)`` draws initial states from uniforms ``u`` (``reset_uniforms`` per environment);
- ``observe(state)`` is what the actor sees, ``privileged(state)`` the candidate privileged
  features a critic may be given;
- ``step(state, action, u)`` returns ``(next_state, reward, terminated)`` (``step_uniforms``
  uniforms per environment); episodes also end at the time limit ``horizon``.

Each method checks its arguments unless called with ``check=False`` (the trainer checks its
own tensors once and steps thousands of times).

Randomness enters only through the uniforms the caller passes, so that two runs given the
same uniforms take the same trajectories (common random numbers across critics).

:class:`AliasedPOMDP` is our reconstruction of the paper's synthetic benchmark (its Table 1):
Gaussian state features, the paper's reward weights, an observation of the first two
features that several states share. :class:`PositionOnlyCartPole` is gymnasium's CartPole
with the velocities hidden from the actor, as in POPGym's position-only CartPole; the masked
velocities are the privileged signal. See :prf:ref:`informed-critic-def-residual` and
:prf:ref:`informed-critic-thm-unbiased`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property
from typing import cast

import torch

from icml26 import checks

__all__ = [
    "REWARD_WEIGHTS",
    "AliasedPOMDP",
    "PositionOnlyCartPole",
    "aliased_pomdp",
    "history_window",
    "reference_returns",
    "rollout",
]

DT = torch.float64

#: The paper's reward weights on the five state features (as reported for its Table 1).
REWARD_WEIGHTS = (1e-4, 1e-4, -1e-4, -1.0, 1.0)


def _uniforms(name: str, u: object, k: int) -> torch.Tensor:
    u = checks.tensor(name, u, floating=True)
    if u.ndim < 1 or u.shape[-1] != k:
        raise ValueError(f"{name} must have a last axis of size {k}, got shape {tuple(u.shape)}")
    checks.finite(name, u)
    if u.numel() and (float(u.min()) < 0.0 or float(u.max()) > 1.0):
        raise ValueError(f"{name} must lie in [0, 1]")
    return u


def _actions(action: object, batch: tuple[int, ...], n_actions: int) -> torch.Tensor:
    action = checks.tensor("action", action)
    if action.is_floating_point() or action.is_complex() or action.dtype == torch.bool:
        raise ValueError(f"action must be an integer tensor, got {action.dtype}")
    checks.shape("action", action, batch)
    if action.numel() and (int(action.min()) < 0 or int(action.max()) >= n_actions):
        raise ValueError(f"action must lie in [0, {n_actions})")
    return action


@dataclass(frozen=True)
class AliasedPOMDP:
    """``features`` (S, 5) state features, ``T`` (A, S, S) transitions, ``p0`` (S,),
    ``weights`` (5,) reward weights, ``horizon`` the episode length. The observation is
    ``features[:, :2]``, shared by the ``group_size`` states of a group; the reward of step
    ``t`` is ``weights . features[s_t]``. States are ``(..., 1)`` integer tensors."""

    features: torch.Tensor
    T: torch.Tensor
    p0: torch.Tensor
    weights: torch.Tensor
    group_size: int
    horizon: int = 25

    reset_uniforms = 1
    step_uniforms = 1
    obs_dim = 2

    @property
    def n_states(self) -> int:
        return int(self.features.shape[0])

    @property
    def n_actions(self) -> int:
        return int(self.T.shape[0])

    @property
    def privileged_dim(self) -> int:
        return int(self.features.shape[1])

    @cached_property
    def _cdf(self) -> torch.Tensor:
        return self.T.cumsum(-1)

    def _state(self, state: object, check: bool) -> torch.Tensor:
        state = checks.tensor("state", state) if check else cast(torch.Tensor, state)
        if check:
            if state.is_floating_point() or state.ndim < 1 or state.shape[-1] != 1:
                raise ValueError("state must be an integer tensor with a last axis of size 1")
            if state.numel() and (int(state.min()) < 0 or int(state.max()) >= self.n_states):
                raise ValueError(f"state must lie in [0, {self.n_states})")
        return state[..., 0]

    def reset(self, u: torch.Tensor, *, check: bool = True) -> torch.Tensor:
        """Initial states ``(..., 1)`` drawn from ``p0`` by inverse CDF of ``u`` (..., 1)."""
        if check:
            u = _uniforms("u", u, 1)
        cdf = self.p0.cumsum(0).to(u.dtype)
        return (cdf < u).sum(-1, keepdim=True).clamp_max(self.n_states - 1)

    def observe(self, state: torch.Tensor, *, check: bool = True) -> torch.Tensor:
        """The actor's observation ``(phi_1, phi_2)(s)``, shape (..., 2)."""
        return self.features[self._state(state, check), :2]

    def privileged(self, state: torch.Tensor, *, check: bool = True) -> torch.Tensor:
        """All five state features ``phi(s)``, shape (..., 5)."""
        return self.features[self._state(state, check)]

    def step(
        self, state: torch.Tensor, action: torch.Tensor, u: torch.Tensor, *, check: bool = True
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """``(next_state, reward, terminated)``; the next state by inverse CDF of ``u``."""
        s = self._state(state, check)
        if check:
            action = _actions(action, tuple(s.shape), self.n_actions)
            u = _uniforms("u", u, 1)
            checks.shape("u", u, (*s.shape, 1))
        row = self._cdf[action, s]
        nxt = (row < u).sum(-1, keepdim=True).clamp_max(self.n_states - 1)
        reward = self.features[s] @ self.weights
        return nxt, reward, torch.zeros_like(s, dtype=torch.bool)

    def to(self, device: torch.device | str) -> AliasedPOMDP:
        """A copy with every tensor on ``device``."""
        f, T, p0, w = (x.to(device) for x in (self.features, self.T, self.p0, self.weights))
        return AliasedPOMDP(f, T, p0, w, self.group_size, self.horizon)


def aliased_pomdp(
    *,
    n_groups: int = 5,
    group_size: int = 4,
    n_actions: int = 4,
    concentration: float = 1.0,
    horizon: int = 25,
    generator: torch.Generator | None = None,
) -> AliasedPOMDP:
    """The synthetic informed POMDP of the paper's Table 1, aliased (our reconstruction).

    ``n_groups * group_size`` states with Gaussian features in R^5; the states of a group share
    ``(phi_1, phi_2)`` (the observation) and differ in ``(phi_3, phi_4, phi_5)``. Transitions per
    action are Dirichlet(``concentration``) rows (small values make them sparse, so that the
    action matters); reward ``w_r . phi(s)`` with the paper's weights.
    """
    G = checks.integer("n_groups", n_groups, low=1)
    k = checks.integer("group_size", group_size, low=1)
    A = checks.integer("n_actions", n_actions, low=1)
    c = checks.real("concentration", concentration, low=0.0, strict=True)
    H = checks.integer("horizon", horizon, low=1)
    if generator is not None and not isinstance(generator, torch.Generator):
        raise ValueError("generator must be a torch.Generator or None")
    S = G * k
    obs = torch.randn(G, 2, generator=generator, dtype=DT).repeat_interleave(k, 0)
    rest = torch.randn(S, 3, generator=generator, dtype=DT)
    gam = torch._standard_gamma(torch.full((A, S, S), c, dtype=DT), generator=generator)
    gam = gam.clamp_min(1e-300)  # a row of all-zero draws (tiny concentrations) stays a law
    T = gam / gam.sum(-1, keepdim=True)
    return AliasedPOMDP(
        torch.cat([obs, rest], 1),
        T,
        torch.full((S,), 1.0 / S, dtype=DT),
        torch.tensor(REWARD_WEIGHTS, dtype=DT),
        k,
        H,
    )


def reference_returns(env: AliasedPOMDP) -> tuple[float, float]:
    """Expected undiscounted returns over ``env.horizon`` steps from ``p0``: ``(random,
    optimal)`` — of the uniformly random policy, and of the best policy that sees the state
    (dynamic programming on the underlying MDP, an upper bound for any history policy)."""
    if not isinstance(env, AliasedPOMDP):
        raise ValueError(f"env must be an AliasedPOMDP, got {type(env).__name__}")
    r = env.features @ env.weights
    v_rand = torch.zeros_like(r)
    v_opt = torch.zeros_like(r)
    for _ in range(env.horizon):
        v_rand = r + env.T.mean(0) @ v_rand
        v_opt = (r + env.T @ v_opt).max(0).values
    return float(env.p0 @ v_rand), float(env.p0 @ v_opt)


def rollout(
    env: AliasedPOMDP,
    n_episodes: int,
    length: int,
    *,
    obs_noise: float = 0.0,
    generator: torch.Generator | None = None,
) -> dict[str, torch.Tensor]:
    """Episodes of a uniformly random policy, all at once (one batched draw per step).

    Returns ``states`` (E, L), ``actions`` (E, L), ``features`` (E, L, 5) (the privileged
    signal is a subset of these), ``obs`` (E, L, 2) (``features[..., :2]`` plus Gaussian noise of
    standard deviation ``obs_noise``) and ``rewards`` (E, L).
    """
    if not isinstance(env, AliasedPOMDP):
        raise ValueError(f"env must be an AliasedPOMDP, got {type(env).__name__}")
    E = checks.integer("n_episodes", n_episodes, low=1)
    L = checks.integer("length", length, low=1)
    beta = checks.real("obs_noise", obs_noise, low=0.0)
    states = torch.empty(E, L, dtype=torch.long)
    actions = torch.randint(env.n_actions, (E, L), generator=generator)
    s = torch.multinomial(env.p0.expand(E, -1), 1, generator=generator).squeeze(1)
    u = torch.rand(E, L, generator=generator, dtype=DT)
    cdf = env.T.cumsum(-1)
    for t in range(L):
        states[:, t] = s
        row = cdf[actions[:, t], s]  # (E, S)
        s = (row < u[:, t : t + 1]).sum(1).clamp_max(env.n_states - 1)
    feats = env.features[states]
    obs = feats[..., :2] + beta * torch.randn(E, L, 2, generator=generator, dtype=DT)
    return {
        "states": states,
        "actions": actions,
        "features": feats,
        "obs": obs,
        "rewards": feats @ env.weights,
    }


def history_window(
    obs: torch.Tensor,
    actions: torch.Tensor,
    n_actions: int,
    k: int,
    *,
    horizon: int | None = None,
) -> torch.Tensor:
    """History features ``z_t``: the last ``k`` observations and one-hot previous actions.

    ``obs`` (E, L, d), ``actions`` (E, L), episodes starting at step 0. Per lag ``j < k`` the
    block ``[o_{t-j}, onehot(a_{t-j-1}), 1]`` (zeros before the episode start, including the
    last entry, which says the lag exists); with ``horizon``, the time ``t / horizon`` is
    appended. Returns (E, L, k * (d + n_actions + 1) [+ 1]); the current action is not
    included (append it for ``Q(h, a)``). The trainer of :mod:`icml26.sequential.a2c` builds
    the same features online.
    """
    obs = checks.tensor("obs", obs, ndim=3, floating=True)
    checks.finite("obs", obs)
    actions = checks.tensor("actions", actions, ndim=2)
    E, L, _ = obs.shape
    checks.shape("actions", actions, (E, L))
    A = checks.integer("n_actions", n_actions, low=1)
    k = checks.integer("k", k, low=1)
    if actions.is_floating_point() or actions.dtype == torch.bool:
        raise ValueError(f"actions must be an integer tensor, got {actions.dtype}")
    if actions.numel() and (int(actions.min()) < 0 or int(actions.max()) >= A):
        raise ValueError(f"actions must lie in [0, n_actions={A})")
    if horizon is not None:
        horizon = checks.integer("horizon", horizon, low=L)
    onehot = torch.nn.functional.one_hot(actions, A).to(obs.dtype)
    prev_a = torch.cat([torch.zeros(E, 1, A, dtype=obs.dtype), onehot[:, :-1]], 1)
    step = torch.cat([obs, prev_a, torch.ones(E, L, 1, dtype=obs.dtype)], -1)
    lags = []
    for j in range(k):
        pad = torch.zeros(E, j, step.shape[-1], dtype=obs.dtype)
        lags.append(torch.cat([pad, step[:, : L - j]], 1)[:, :L])
    if horizon is not None:
        t = torch.arange(L, dtype=obs.dtype) / horizon
        lags.append(t.expand(E, L)[..., None])
    return torch.cat(lags, -1)


@dataclass(frozen=True)
class PositionOnlyCartPole:
    """gymnasium's ``CartPole-v1`` dynamics, batched, with the velocities hidden from the actor.

    State ``(x, x_dot, theta, theta_dot)`` (..., 4); two actions (push left, push right);
    reward 1 per step, the step that ends the episode included; the episode terminates when
    ``|x| > 2.4`` or ``|theta| > 12 degrees`` and is cut at ``horizon`` steps. The actor sees
    ``(x, theta)``; :meth:`privileged` gives the full state, of which the velocities
    (columns 1 and 3) are the masked part. Euler integration with ``tau = 0.02`` s, as in
    gymnasium's default; initial states uniform on ``[-0.05, 0.05]^4``.
    """

    horizon: int = 200
    gravity: float = 9.8
    masscart: float = 1.0
    masspole: float = 0.1
    length: float = 0.5
    force_mag: float = 10.0
    tau: float = 0.02

    n_actions = 2
    obs_dim = 2
    privileged_dim = 4
    reset_uniforms = 4
    step_uniforms = 0
    x_threshold = 2.4
    theta_threshold = 12 * 2 * math.pi / 360

    def __post_init__(self) -> None:
        checks.integer("horizon", self.horizon, low=1)
        for name in ("gravity", "masscart", "masspole", "length", "force_mag", "tau"):
            checks.real(name, getattr(self, name), low=0.0, strict=True)

    def _state(self, state: object, check: bool) -> torch.Tensor:
        state = checks.tensor("state", state, floating=True) if check else cast(torch.Tensor, state)
        if check:
            if state.ndim < 1 or state.shape[-1] != 4:
                raise ValueError(f"state must have a last axis of size 4, got {state.shape}")
            checks.finite("state", state)
        return state

    def reset(self, u: torch.Tensor, *, check: bool = True) -> torch.Tensor:
        """Initial states uniform on ``[-0.05, 0.05]^4`` from uniforms ``u`` (..., 4)."""
        return -0.05 + 0.1 * (_uniforms("u", u, 4) if check else u)

    def observe(self, state: torch.Tensor, *, check: bool = True) -> torch.Tensor:
        """Cart position and pole angle ``(x, theta)``, shape (..., 2)."""
        return self._state(state, check)[..., ::2]

    def privileged(self, state: torch.Tensor, *, check: bool = True) -> torch.Tensor:
        """The full state ``(x, x_dot, theta, theta_dot)``, shape (..., 4)."""
        return self._state(state, check)

    def step(
        self,
        state: torch.Tensor,
        action: torch.Tensor,
        u: torch.Tensor | None = None,
        *,
        check: bool = True,
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """One Euler step of gymnasium's equations: ``(next_state, reward, terminated)``
        (``u`` is unused: the dynamics are deterministic)."""
        state = self._state(state, check)
        a = _actions(action, tuple(state.shape[:-1]), 2) if check else action
        x, x_dot, th, th_dot = state.unbind(-1)
        force = torch.where(a == 1, self.force_mag, -self.force_mag).to(state.dtype)
        cos, sin = th.cos(), th.sin()
        total = self.masspole + self.masscart
        pml = self.masspole * self.length
        temp = (force + pml * th_dot.square() * sin) / total
        denom = self.length * (4.0 / 3.0 - self.masspole * cos.square() / total)
        th_acc = (self.gravity * sin - cos * temp) / denom
        x_acc = temp - pml * th_acc * cos / total
        nxt = torch.stack(
            [
                x + self.tau * x_dot,
                x_dot + self.tau * x_acc,
                th + self.tau * th_dot,
                th_dot + self.tau * th_acc,
            ],
            -1,
        )
        out = (nxt[..., 0].abs() > self.x_threshold) | (nxt[..., 2].abs() > self.theta_threshold)
        return nxt, torch.ones_like(x), out
