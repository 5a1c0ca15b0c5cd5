"""The synthetic 2-D "animal" of chapter 05 (CogSDE): commands, a hidden decision state, paths.

:func:`simulate_animal` draws command sequences (:data:`COMMANDS`), the animal's engagement with
them (a hidden state) and its body-frame speed and turn rate; :func:`unicycle_positions`
integrates those into positions. The data are time-major like the SDE kernels of
:mod:`icml26.dynamics.sde`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
from torch import Tensor
from torch.nn import functional as F

from icml26 import checks

__all__ = ["COMMANDS", "AnimalData", "simulate_animal", "unicycle_positions"]


def unicycle_positions(speed_turn: Tensor, dt: float, heading0: Tensor | None = None) -> Tensor:
    """Integrate body-frame (speed, turn rate) ``(..., T, 2)`` into positions ``(..., T+1, 2)``.

    ``θ_{k+1} = θ_k + ω_k h``, ``p_{k+1} = p_k + v_k (cos θ_k, sin θ_k) h``, from ``p_0 = 0``.
    """
    h = checks.real("dt", dt, low=0.0, strict=True)
    checks.tensor("speed_turn", speed_turn, floating=True)
    if speed_turn.ndim < 2 or speed_turn.shape[-1] != 2 or speed_turn.shape[-2] == 0:
        raise ValueError(f"speed_turn must have shape (..., T, 2), got {tuple(speed_turn.shape)}")
    checks.finite("speed_turn", speed_turn)
    if heading0 is not None:
        checks.tensor("heading0", heading0, floating=True)
        checks.finite("heading0", heading0)
        if tuple(heading0.shape) != tuple(speed_turn.shape[:-2]):
            raise ValueError(
                f"heading0 must have shape {tuple(speed_turn.shape[:-2])}, "
                f"got {tuple(heading0.shape)}"
            )
    v, w = speed_turn[..., 0], speed_turn[..., 1]
    th0 = torch.zeros_like(v[..., :1]) if heading0 is None else heading0.unsqueeze(-1)
    theta = torch.cat([th0, th0 + torch.cumsum(w * h, dim=-1)[..., :-1]], dim=-1)
    step = torch.stack([v * torch.cos(theta), v * torch.sin(theta)], dim=-1) * h
    zero = torch.zeros_like(step[..., :1, :])
    return torch.cat([zero, torch.cumsum(step, dim=-2)], dim=-2)


#: The commands of the animal task, in one-hot order.
COMMANDS: tuple[str, ...] = ("go", "turn", "stop")
#: (speed, turn rate) an engaged agent tends to under each command.
_TARGET = ((1.0, 0.0), (0.6, 1.2), (0.0, 0.0))


@dataclass(frozen=True)
class AnimalData:
    """Output of :func:`simulate_animal` (batch-first: ``(N, T, ...)``)."""

    commands: Tensor  # (N, T, 3) one-hot
    speed_turn: Tensor  # (N, T, 2) body-frame speed and turn rate
    positions: Tensor  # (N, T+1, 2)
    engaged: Tensor  # (N, T) bool: the hidden decision state


def simulate_animal(
    n_agents: int,
    n_steps: int,
    dt: float,
    *,
    generator: torch.Generator | None = None,
    p_command: float = 0.02,
    p_distract: float = 0.02,
    p_engage: float = 0.06,
    noise: float = 0.3,
    commands: Tensor | None = None,
    initial: Tensor | None = None,
) -> AnimalData:
    """The synthetic command-driven 2-D "animal" of chapter 05 (Section "Experiments").

    Commands (go / turn / stop) switch with probability ``p_command`` per step. A hidden
    decision state switches engaged → distracted with ``p_distract`` and back with
    ``p_engage``. Engaged, the speed and turn rate relax (rate 3/s) toward the command's target;
    distracted, toward a slow wander (speed 0.3, turn rate 0) with three times the noise. Speed
    and turn rate are clipped to ``[0, 1.5]`` and ``[-2.5, 2.5]``. ``commands`` (integer ids,
    ``(n_agents, n_steps)``) replaces the random command process and ``initial``
    ``(n_agents, 2)`` the initial (speed, turn rate) — used to probe the agent's response.
    Everything is computed in float64, so that the data do not depend on the machine's
    vectorised ``sin``/``cos`` beyond the last bits.
    """
    n = checks.integer("n_agents", n_agents, low=1)
    t = checks.integer("n_steps", n_steps, low=1)
    h = checks.real("dt", dt, low=0.0, strict=True)
    for name, p in (("p_command", p_command), ("p_distract", p_distract), ("p_engage", p_engage)):
        checks.real(name, p, low=0.0, high=1.0)
    checks.real("noise", noise, low=0.0)
    if commands is not None:
        checks.tensor("commands", commands)
        checks.shape("commands", commands, (n, t))
        if commands.is_floating_point() or commands.dtype == torch.bool:
            raise ValueError(f"commands must hold integer ids, got dtype {commands.dtype}")
        if ((commands < 0) | (commands >= len(COMMANDS))).any():
            raise ValueError(f"commands must lie in [0, {len(COMMANDS)}), got values outside")
    if initial is not None:
        checks.tensor("initial", initial, floating=True)
        checks.shape("initial", initial, (n, 2))
        checks.finite("initial", initial)
    if generator is not None and not isinstance(generator, torch.Generator):
        raise ValueError(f"generator must be a torch.Generator, got {type(generator).__name__}")
    return _simulate(n, t, h, generator, p_command, p_distract, p_engage, noise, commands, initial)


def _simulate(
    n: int,
    t: int,
    h: float,
    g: torch.Generator | None,
    p_command: float,
    p_distract: float,
    p_engage: float,
    noise: float,
    commands: Tensor | None,
    initial: Tensor | None,
) -> AnimalData:
    """The recursion of :func:`simulate_animal`, on validated inputs."""

    def unif(*shape: int) -> Tensor:
        return torch.rand(shape, generator=g)

    cmd = torch.randint(0, 3, (n,), generator=g)
    engaged = torch.ones(n, dtype=torch.bool)
    f64 = torch.float64
    state = torch.zeros(n, 2, dtype=f64) if initial is None else initial.to(f64)
    target = torch.tensor(_TARGET, dtype=f64)
    wander = torch.tensor([0.3, 0.0], dtype=f64)
    cmds, obs, eng = [], [], []
    for k in range(t):
        switch = unif(n) < p_command
        cmd = torch.where(switch, torch.randint(0, 3, (n,), generator=g), cmd)
        if commands is not None:
            cmd = commands[:, k].long()
        flip = torch.where(engaged, unif(n) < p_distract, unif(n) < p_engage)
        engaged = engaged ^ flip
        goal = torch.where(engaged[:, None], target[cmd], wander)
        sd = torch.where(engaged, 1.0, 3.0)[:, None] * noise
        state = (
            state
            + 3.0 * (goal - state) * h
            + sd * math.sqrt(h) * torch.randn(n, 2, generator=g, dtype=f64)
        )
        state = torch.stack([state[:, 0].clamp(0.0, 1.5), state[:, 1].clamp(-2.5, 2.5)], dim=1)
        cmds.append(cmd)
        obs.append(state)
        eng.append(engaged)
    commands = F.one_hot(torch.stack(cmds, 1), 3).to(f64)
    speed_turn = torch.stack(obs, 1)
    return AnimalData(commands, speed_turn, unicycle_positions(speed_turn, h), torch.stack(eng, 1))
