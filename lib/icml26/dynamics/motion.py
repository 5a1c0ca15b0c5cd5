"""Command-driven motion forecasting around a latent driver (chapter 05, CogSDE pipeline).

The paper's pipeline at toy scale (:prf:ref:`cogsde-def-pipeline`): a GRU encoder of past
poses and commands gives ``z_0``; a latent driver (the regime-switching SDE, or a baseline)
rolls ``z_t`` forward under the future commands; each future frame of a small trajectory
generator is FiLM-modulated by ``z_t`` (:eq:`cogsde-eq-film`); training minimises the
best-of-K loss (:eq:`cogsde-eq-bok`). Every network is *stacked*
(:mod:`icml26.dynamics.stacked`): ``M`` independent members — seeds and variants of one
model — are evaluated together, with the member axis first.

- drivers: :class:`SDEDriver` (a stacked SDE such as
  :class:`~icml26.dynamics.switching.RegimeSwitchingSDE`), :class:`RecurrentDriver` (an
  RSSM-like GRU with Gaussian latent noise, or without it), :class:`ODEDriver` (neural ODE);
- :class:`MotionForecaster` — encoder → driver → FiLM generator, ``K`` samples per agent;
- :func:`motion_windows` — history/future windows of :func:`icml26.dynamics.animal.simulate_animal`
  in the agent's frame at the present;
- :func:`best_of_k_loss`, :func:`trajectory_metrics` (minADE/minFDE@K, ADE/FDE, diversity),
  :func:`response_lag` (the command-timing test).
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Sequence
from typing import Any

import torch
from torch import Tensor, nn
from torch.nn import functional as F

from icml26 import checks
from icml26.dynamics.animal import AnimalData, unicycle_positions
from icml26.dynamics.sde import euler_maruyama
from icml26.dynamics.stacked import (
    StackedGRUCell,
    StackedLinear,
    member_flags,
    member_generators,
    normal,
)
from icml26.dynamics.switching import RegimeSwitchingSDE, command_channels

__all__ = [
    "MotionForecaster",
    "ODEDriver",
    "RecurrentDriver",
    "SDEDriver",
    "best_of_k_loss",
    "motion_windows",
    "response_lag",
    "trajectory_metrics",
]


def _driver_inputs(driver: Any, z0: Tensor, u: Tensor, noise: Tensor | None) -> None:
    """Shapes shared by every driver: ``z0 (M, N, d)``, ``u (T, M, N, c)``, ``noise``."""
    checks.tensor("z0", z0, floating=True)
    checks.shape("z0", z0, (driver.members, None, driver.dim))
    checks.tensor("u", u, floating=True)
    checks.shape("u", u, (None, driver.members, z0.shape[1], driver.command_dim))
    if noise is not None:
        checks.tensor("noise", noise, floating=True)
        checks.shape("noise", noise, (u.shape[0], driver.members, z0.shape[1], driver.dim))
        checks.finite("noise", noise)


class SDEDriver(nn.Module):
    """Latent driver: Euler–Maruyama of a stacked controlled SDE (chapter 05).

    ``sde`` has ``members``, ``dim``, ``command_dim`` and ``drift(z, v)``,
    ``diffusion(z)`` on states ``(M, N, d)``. A
    :class:`~icml26.dynamics.switching.RegimeSwitchingSDE` receives the level and event
    channels of the commands (:func:`~icml26.dynamics.switching.command_channels`).
    """

    def __init__(self, sde: Any) -> None:
        super().__init__()
        for attr in ("members", "dim", "command_dim", "drift", "diffusion"):
            if not hasattr(sde, attr):
                raise ValueError(f"sde must have a {attr!r} attribute")
        self.sde = sde
        self.members, self.dim, self.command_dim = sde.members, sde.dim, sde.command_dim

    def forward(
        self,
        z0: Tensor,
        u: Tensor,
        dt: float,
        *,
        noise: Tensor | None = None,
        generator: torch.Generator | None = None,
        stochastic: bool = True,
    ) -> Tensor:
        """``z0 (M, N, d)``, commands ``u (T, M, N, c)`` → latent path ``(T + 1, M, N, d)``.

        ``noise`` (standard normal, ``(T, M, N, d)``) gives the Brownian increments
        ``sqrt(dt) * noise``; otherwise they are drawn from ``generator``.
        """
        h = checks.real("dt", dt, low=0.0, strict=True)
        _driver_inputs(self, z0, u, noise)
        v = command_channels(u, h) if isinstance(self.sde, RegimeSwitchingSDE) else u
        diff = self.sde.diffusion if stochastic else None
        dW = noise * math.sqrt(h) if noise is not None and stochastic else None
        rollout = getattr(self.sde, "rollout", contextlib.nullcontext)
        with rollout():
            return euler_maruyama(self.sde.drift, diff, z0, h, u=v, dW=dW, generator=generator)


class RecurrentDriver(nn.Module):
    """RSSM-like latent driver (chapter 05): a deterministic GRU state and a Gaussian latent.

    ``h_{k+1} = GRU([z_k, u_k], h_k)`` from ``h_0 = 0``, ``z_{k+1} = W h_{k+1} + b +
    s(h_{k+1}) ⊙ ε_k`` with ``s = softplus(W_s h + b_s)`` (bias initialised at ``-2``) and
    ``ε_k ~ N(0, I)`` — the recurrent state-space baseline of the released code, without its
    posterior. A member with ``noisy=False`` drops the noise: the deterministic latent
    autoregressive (GRU) baseline, whose ``s`` weights are then unused
    (:attr:`noise_parameters`).
    """

    def __init__(
        self,
        dim: int,
        command_dim: int,
        hidden: int,
        *,
        seeds: Sequence[int] | None = None,
        noisy: bool | Sequence[bool] = True,
    ) -> None:
        super().__init__()
        self.dim = checks.integer("dim", dim, low=1)
        self.command_dim = checks.integer("command_dim", command_dim, low=1)
        self.hidden = checks.integer("hidden", hidden, low=1)
        gens = [None] if seeds is None else member_generators(seeds)
        self.members = len(gens)
        self.noisy = member_flags("noisy", noisy, self.members)
        self.cell = StackedGRUCell(dim + command_dim, hidden, gens)
        self.mean = StackedLinear(hidden, dim, gens)
        self.scale = StackedLinear(hidden, dim, gens)
        with torch.no_grad():
            self.scale.bias.fill_(-2.0)
        mask = torch.tensor(self.noisy, dtype=torch.get_default_dtype())
        self.register_buffer("noise_mask", mask.view(-1, 1, 1))

    @property
    def noise_parameters(self) -> int:
        """Weights of one member's noise scale (unused by a member with ``noisy=False``)."""
        return (self.hidden + 1) * self.dim

    def forward(
        self,
        z0: Tensor,
        u: Tensor,
        dt: float,
        *,
        noise: Tensor | None = None,
        generator: torch.Generator | None = None,
        stochastic: bool = True,
    ) -> Tensor:
        """``z0 (M, N, d)``, commands ``u (T, M, N, c)`` → latent path ``(T + 1, M, N, d)``."""
        checks.real("dt", dt, low=0.0, strict=True)
        _driver_inputs(self, z0, u, noise)
        x = torch.cat([z0.new_zeros(*u.shape[:-1], self.dim), u], -1).transpose(0, 1)
        gu = self.cell.input_part(x)  # (M, T, N, 3H): the commands' part, for every step
        w_z = self.cell.weight_ih[:, : self.dim]  # the latent's part of the input weights
        h = z0.new_zeros(*z0.shape[:2], self.hidden)
        z, out = z0, [z0]
        for k in range(u.shape[0]):
            h = self.cell.step(gu[:, k] + torch.bmm(z, w_z), h)
            z = self.mean(h)
            if stochastic:
                eps = (
                    noise[k]
                    if noise is not None
                    else torch.randn(z.shape, generator=generator, device=z.device, dtype=z.dtype)
                )
                noise_mask: Tensor = self.noise_mask  # type: ignore[assignment]  # a buffer
                z = z + noise_mask * F.softplus(self.scale(h)) * eps
            out.append(z)
        return torch.stack(out)


class ODEDriver(nn.Module):
    """Neural ODE driver ``dz = MLP([z, u]) dt``, integrated by Euler (deterministic)."""

    def __init__(
        self, dim: int, command_dim: int, hidden: int, *, seeds: Sequence[int] | None = None
    ) -> None:
        super().__init__()
        self.dim = checks.integer("dim", dim, low=1)
        self.command_dim = checks.integer("command_dim", command_dim, low=1)
        hidden = checks.integer("hidden", hidden, low=1)
        gens = [None] if seeds is None else member_generators(seeds)
        self.members = len(gens)
        self.net = nn.Sequential(
            StackedLinear(dim + command_dim, hidden, gens),
            nn.Tanh(),
            StackedLinear(hidden, dim, gens),
        )

    def drift(self, z: Tensor, u: Tensor | None) -> Tensor:
        """``MLP([z, u])`` for ``z (M, N, d)``, ``u (M, N, c)``."""
        if u is None:
            u = z.new_zeros(*z.shape[:-1], self.command_dim)
        return self.net(torch.cat([z, u], dim=-1))

    def forward(
        self,
        z0: Tensor,
        u: Tensor,
        dt: float,
        *,
        noise: Tensor | None = None,
        generator: torch.Generator | None = None,
        stochastic: bool = True,
    ) -> Tensor:
        """Deterministic path ``(T + 1, M, N, d)`` from ``z0 (M, N, d)``, ``u (T, M, N, c)``;
        ``noise`` and ``generator`` are accepted and ignored."""
        h = checks.real("dt", dt, low=0.0, strict=True)
        _driver_inputs(self, z0, u, noise)
        return euler_maruyama(self.drift, None, z0, h, u=u)


class MotionForecaster(nn.Module):
    """GRU encoder → latent driver → FiLM trajectory generator (chapter 05, :eq:`cogsde-eq-film`).

    The encoder reads the past poses and commands ``(M, B, P, 2 + c)``; its last state gives
    the context ``h`` and ``z_0 = W h``. Each future frame ``t`` has a token
    ``x_t = tanh(e_t + V h)`` that is modulated by ``(gamma_t, beta_t) = F z_t`` (FiLM) and
    mapped by a small ReLU network to the frame's displacement; positions are the cumulative
    sum. ``K``
    samples share the encoder and differ by the driver's noise. ``seeds`` (one per member,
    as many as the driver has) initialise the encoder and generator; with the same seeds,
    forecasters with different drivers start from the same encoder and generator.
    """

    def __init__(
        self,
        driver: Any,
        command_dim: int,
        horizon: int,
        *,
        hidden: int = 32,
        seeds: Sequence[int] | None = None,
    ) -> None:
        super().__init__()
        for attr in ("members", "dim"):
            if not hasattr(driver, attr):
                raise ValueError(f"driver must have a {attr!r} attribute")
        self.driver = driver
        self.command_dim = c = checks.integer("command_dim", command_dim, low=1)
        self.horizon = checks.integer("horizon", horizon, low=1)
        self.hidden = hidden = checks.integer("hidden", hidden, low=1)
        gens = [None] if seeds is None else member_generators(seeds)
        if len(gens) != driver.members:
            raise ValueError(f"seeds must hold one seed per member ({driver.members})")
        self.members = len(gens)
        self.encoder = StackedGRUCell(2 + c, hidden, gens)
        self.to_z0 = StackedLinear(hidden, driver.dim, gens)
        self.to_token = StackedLinear(hidden, hidden, gens)
        self.frame = nn.Parameter(normal(gens, (horizon, 1, hidden), 0.1))
        self.film = StackedLinear(driver.dim, 2 * hidden, gens)
        self.head = nn.Sequential(
            StackedLinear(hidden, hidden, gens), nn.ReLU(), StackedLinear(hidden, 2, gens)
        )

    def encode(self, past: Tensor) -> Tensor:
        """Context ``h (M, B, H)``: the GRU's last state over ``past (M, B, P, 2 + c)``."""
        gi = self.encoder.input_part(past)  # (M, B, P, 3H), one product for all frames
        h = past.new_zeros(*past.shape[:2], self.hidden)
        for p in range(past.shape[2]):
            h = self.encoder.step(gi[:, :, p], h)
        return h

    def forward(
        self,
        past: Tensor,
        commands: Tensor,
        dt: float,
        *,
        n_samples: int = 1,
        noise: Tensor | None = None,
        generator: torch.Generator | None = None,
        stochastic: bool = True,
        return_latent: bool = False,
    ) -> Tensor | tuple[Tensor, Tensor]:
        """``past (M, B, P, 2+c)``, ``commands (M, B, T, c)`` → positions ``(M, K, B, T, 2)``.

        ``noise`` (standard normal, ``(T, M, K * B, d)``, sample-major) drives the ``K``
        samples; otherwise the driver draws it from ``generator``. With ``return_latent``
        also the latent path ``(T + 1, M, K * B, d)``.
        """
        m, c = self.members, self.command_dim
        checks.tensor("past", past, floating=True)
        checks.shape("past", past, (m, None, None, 2 + c))
        checks.tensor("commands", commands, floating=True)
        checks.shape("commands", commands, (m, past.shape[1], self.horizon, c))
        k = checks.integer("n_samples", n_samples, low=1)
        checks.finite("past", past)
        checks.finite("commands", commands)
        b = past.shape[1]
        h = self.encode(past)
        z0 = self.to_z0(h).repeat(1, k, 1)  # (M, K*B, d)
        u = commands.permute(2, 0, 1, 3).repeat(1, 1, k, 1)  # (T, M, K*B, c)
        path = self.driver(z0, u, dt, noise=noise, generator=generator, stochastic=stochastic)
        gamma, beta = self.film(path[1:].transpose(0, 1)).chunk(2, dim=-1)  # (M, T, K*B, H)
        token = torch.tanh(self.frame + self.to_token(h).unsqueeze(1))  # (M, T, B, H)
        token = token.repeat(1, 1, k, 1)  # the same token for the K samples
        step = self.head(torch.addcmul(beta, token, 1 + gamma))  # (M, T, K*B, 2)
        pos = step.cumsum(1).reshape(m, self.horizon, k, b, 2).permute(0, 2, 3, 1, 4)
        return (pos, path) if return_latent else pos


def motion_windows(
    data: AnimalData, agents: Tensor, starts: Tensor, past: int, future: int, dt: float
) -> tuple[Tensor, Tensor, Tensor]:
    """History/future windows in the agent's frame at the present (chapter 05).

    For agent ``agents[i]`` and first frame ``starts[i]``: ``past`` frames of poses and commands,
    then ``future`` frames. Poses are rotated and translated so that the present pose is the
    origin heading along ``+x``. Returns ``past_input (B, P, 2 + c)`` (positions and the commands
    that produced them), ``future_commands (B, F, c)`` and ``future_positions (B, F, 2)``.
    """
    p = checks.integer("past", past, low=1)
    f = checks.integer("future", future, low=1)
    h = checks.real("dt", dt, low=0.0, strict=True)
    if not isinstance(data, AnimalData):
        raise ValueError(f"data must be an AnimalData, got {type(data).__name__}")
    checks.tensor("agents", agents, ndim=1)
    checks.shape("starts", starts, (agents.shape[0],))
    for name, ids in (("agents", agents), ("starts", starts)):
        if ids.is_floating_point() or ids.dtype == torch.bool:
            raise ValueError(f"{name} must hold integer indices, got dtype {ids.dtype}")
    if agents.numel() == 0:
        raise ValueError("agents must not be empty")
    n_agents, length = data.speed_turn.shape[:2]
    if int(agents.min()) < 0 or int(agents.max()) >= n_agents:
        raise ValueError(f"agents must lie in [0, {n_agents})")
    if int(starts.max()) + p + f > length or int(starts.min()) < 0:
        raise ValueError("starts must leave room for past + future frames in the data")
    idx = starts[:, None] + torch.arange(p + f)
    st = data.speed_turn[agents[:, None], idx]  # (B, P+F, 2)
    cmd = data.commands[agents[:, None], idx]
    heading0 = -(st[:, :p, 1] * h).sum(1)  # heading is 0 at the present
    pos = unicycle_positions(st, h, heading0)  # (B, P+F+1, 2)
    pos = pos - pos[:, p : p + 1]
    past_in = torch.cat([pos[:, 1 : p + 1], cmd[:, :p]], dim=-1)
    return past_in, cmd[:, p:], pos[:, p + 1 :]


def _samples(samples: Tensor, target: Tensor) -> None:
    checks.tensor("samples", samples, floating=True)
    checks.tensor("target", target, floating=True)
    if samples.ndim < 4 or target.ndim < 3 or samples.shape[-1] != 2:
        raise ValueError(
            f"samples must have shape (..., K, B, T, 2) and target (..., B, T, 2), got "
            f"{tuple(samples.shape)} and {tuple(target.shape)}"
        )
    if tuple(samples.shape[-3:]) != tuple(target.shape[-3:]):
        raise ValueError(
            f"samples (..., K, B, T, 2) and target (..., B, T, 2) must agree in B, T: "
            f"{tuple(samples.shape)} vs {tuple(target.shape)}"
        )
    if samples.numel() == 0:
        raise ValueError("samples must not be empty")
    checks.finite("samples", samples)
    checks.finite("target", target)


def best_of_k_loss(samples: Tensor, target: Tensor) -> Tensor:
    """``mean_b min_k sum_t ||x_{k,b,t} - y_{b,t}||^2`` (:eq:`cogsde-eq-bok`, chapter 05).

    ``samples (..., K, B, T, 2)``, ``target (..., B, T, 2)`` (leading axes broadcast, e.g.
    the member axis of stacked models); returns the loss per leading index, ``(...)``.
    """
    _samples(samples, target)
    err = (samples - target.unsqueeze(-4)).pow(2).sum((-1, -2))  # (..., K, B)
    return err.min(-2).values.mean(-1)


def trajectory_metrics(samples: Tensor, target: Tensor) -> dict[str, Tensor]:
    """minADE, minFDE (best of the ``K`` samples), ADE, FDE (average over samples), diversity.

    ``samples (..., K, B, T, 2)``, ``target (..., B, T, 2)``; each metric is a tensor over
    the leading axes (a 0-d tensor for ``(K, B, T, 2)``). Diversity is the mean pairwise
    distance of the samples' end points (0 for ``K = 1``). As in the released evaluation,
    minADE and minFDE choose their best sample independently (chapter 05).
    """
    _samples(samples, target)
    k = samples.shape[-4]
    dist = (samples - target.unsqueeze(-4)).norm(dim=-1)  # (..., K, B, T)
    ade, fde = dist.mean(-1), dist[..., -1]  # (..., K, B)
    end = samples[..., -1, :]  # (..., K, B, 2)
    pair = (end.unsqueeze(-3) - end.unsqueeze(-4)).norm(dim=-1).sum((-3, -2))  # (..., B)
    div = pair / (k * (k - 1)) if k > 1 else torch.zeros_like(pair)
    return {
        "minADE": ade.min(-2).values.mean(-1),
        "minFDE": fde.min(-2).values.mean(-1),
        "ADE": ade.mean((-2, -1)),
        "FDE": fde.mean((-2, -1)),
        "diversity": div.mean(-1),
    }


def response_lag(response: Tensor, switch: int, *, level: float = 0.5) -> Tensor:
    """Frames from a command change until ``response`` first reaches ``level`` of its peak.

    ``response (..., T)`` is a non-negative, finite response curve (e.g. the distance between
    the predictions with and without the command change) and ``switch`` the first frame
    computed under the new command. The change takes effect during the interval that ends at
    frame ``switch``; at its start the response is zero. The lag is the time from that start
    to the first crossing of the threshold, linearly interpolated between frames, so a response
    complete within one frame has a lag in ``(0, 1]`` (chapter 05, command-timing test).
    Curves that never rise give ``nan``.
    """
    s = checks.integer("switch", switch, low=0)
    lv = checks.real("level", level, low=0.0, high=1.0, strict=True)
    checks.tensor("response", response, floating=True)
    if response.ndim < 1 or response.shape[-1] <= s:
        raise ValueError(f"switch must be < the length of response {tuple(response.shape)}")
    checks.finite("response", response)
    if (response < 0).any():
        raise ValueError("response must be non-negative")
    after = response[..., s:]
    r = torch.cat([torch.zeros_like(after[..., :1]), after], dim=-1)  # 0 at the change
    peak = r.max(-1, keepdim=True).values
    thr = lv * peak
    first = (r >= thr).float()[..., 1:].argmax(-1) + 1  # first frame at or above it
    r1 = r.gather(-1, first.unsqueeze(-1)).squeeze(-1)
    r0 = r.gather(-1, (first - 1).unsqueeze(-1)).squeeze(-1)
    t = thr.squeeze(-1)
    frac = ((t - r0) / (r1 - r0).clamp(min=1e-12)).clamp(0, 1)
    lag = (first - 1).to(r.dtype) + frac
    return torch.where(peak.squeeze(-1) > 0, lag, torch.full_like(lag, float("nan")))
