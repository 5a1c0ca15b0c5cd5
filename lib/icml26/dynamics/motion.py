"""Command-driven motion forecasting around a latent driver (chapter 05, CogSDE pipeline).

The paper's pipeline at toy scale: a GRU encoder of past poses and commands gives ``z_0``; a
latent driver (the regime-switching SDE, or a baseline) rolls ``z_t`` forward under the
future commands; each future frame of a small trajectory generator is FiLM-modulated by
``z_t``; training minimises the best-of-K loss (:eq:`cogsde-eq-bok`).

- drivers: :class:`SDEDriver` (any model with ``drift``/``diffusion``), :class:`RecurrentDriver`
  (GRU, optionally with Gaussian latent noise: RSSM-like), :class:`ODEDriver` (neural ODE);
- :class:`MotionForecaster` — encoder → driver → FiLM generator, ``K`` samples per agent;
- :func:`motion_windows` — history/future windows of :func:`icml26.dynamics.sde.simulate_animal`
  in the agent's frame at the present;
- :func:`best_of_k_loss`, :func:`trajectory_metrics` (minADE/minFDE@K, ADE/FDE, diversity),
  :func:`response_lag` (the command-timing test).
"""

from __future__ import annotations

import torch
from torch import Tensor, nn

from icml26 import checks
from icml26.dynamics.sde import AnimalData, euler_maruyama, unicycle_positions
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


class SDEDriver(nn.Module):
    """Latent driver: Euler–Maruyama of a controlled SDE (``drift(z, v)``, ``diffusion(z)``).

    A :class:`~icml26.dynamics.switching.RegimeSwitchingSDE` receives the level and event
    channels of the commands (:func:`~icml26.dynamics.switching.command_channels`); any other
    model (e.g. the certified :class:`~icml26.dynamics.sde.CogSDE`) receives the commands.
    """

    def __init__(self, sde: nn.Module) -> None:
        super().__init__()
        self.sde = sde
        self.dim = sde.dim

    def forward(
        self, z0: Tensor, u: Tensor, dt: float, *, generator=None, stochastic: bool = True
    ) -> Tensor:
        """``z0 (N, d)``, commands ``u (T, N, c)`` → latent path ``(T + 1, N, d)``."""
        v = command_channels(u, dt) if isinstance(self.sde, RegimeSwitchingSDE) else u
        diff = self.sde.diffusion if stochastic else None
        return euler_maruyama(self.sde.drift, diff, z0, dt, u=v, generator=generator)


class RecurrentDriver(nn.Module):
    """GRU latent driver ``z_{k+1} = GRU(u_k, z_k) + s(z_k) * eps_k`` (RSSM-like when noisy).

    With ``noisy=False`` it is the deterministic GRU baseline; with ``noisy=True`` each step
    adds Gaussian noise with a learned, state-dependent scale ``s(z) = softplus(W z + b)``.
    """

    def __init__(self, dim: int, command_dim: int, *, noisy: bool = True) -> None:
        super().__init__()
        self.dim = checks.integer("dim", dim, low=1)
        checks.integer("command_dim", command_dim, low=1)
        self.cell = nn.GRUCell(command_dim, dim)
        self.noisy = bool(noisy)
        self.scale = nn.Linear(dim, dim) if noisy else None
        if self.scale is not None:
            nn.init.constant_(self.scale.bias, -2.0)

    def forward(
        self, z0: Tensor, u: Tensor, dt: float, *, generator=None, stochastic: bool = True
    ) -> Tensor:
        """``z0 (N, d)``, commands ``u (T, N, c)`` → latent path ``(T + 1, N, d)``."""
        checks.real("dt", dt, low=0.0, strict=True)
        z, out = z0, [z0]
        for k in range(u.shape[0]):
            uk = u[k].expand(z.shape[0], -1) if u[k].ndim == 1 else u[k]
            nxt = self.cell(uk, z)
            if self.scale is not None and stochastic:
                eps = torch.randn(z.shape, generator=generator, device=z.device, dtype=z.dtype)
                nxt = nxt + nn.functional.softplus(self.scale(z)) * eps
            z = nxt
            out.append(z)
        return torch.stack(out)


class ODEDriver(nn.Module):
    """Neural ODE driver ``dz = MLP([z, u]) dt``, integrated by Euler (deterministic)."""

    def __init__(self, dim: int, command_dim: int, hidden: int = 16) -> None:
        super().__init__()
        self.dim = checks.integer("dim", dim, low=1)
        checks.integer("command_dim", command_dim, low=1)
        hidden = checks.integer("hidden", hidden, low=1)
        self.net = nn.Sequential(
            nn.Linear(dim + command_dim, hidden), nn.Tanh(), nn.Linear(hidden, dim)
        )

    def drift(self, z: Tensor, u: Tensor | None) -> Tensor:
        return self.net(torch.cat([z, u], dim=-1))

    def forward(
        self, z0: Tensor, u: Tensor, dt: float, *, generator=None, stochastic: bool = True
    ) -> Tensor:
        """Deterministic path ``(T + 1, N, d)`` from ``z0 (N, d)``, commands ``u (T, N, c)``."""
        return euler_maruyama(self.drift, None, z0, dt, u=u)


class MotionForecaster(nn.Module):
    """GRU encoder → latent driver → FiLM trajectory generator (chapter 05, :eq:`cogsde-eq-film`).

    The encoder reads the past poses and commands ``(B, P, 2 + c)``; its last state gives the
    context ``h`` and ``z_0 = W h``. Each future frame ``t`` has a token ``e_t + V h`` that is
    modulated by ``(gamma_t, beta_t) = F z_t`` (FiLM) and mapped by a small MLP to the frame's
    displacement; positions are the cumulative sum. ``K`` samples share the encoder and differ
    by the driver's noise.
    """

    def __init__(
        self, driver: nn.Module, command_dim: int, horizon: int, *, hidden: int = 32
    ) -> None:
        super().__init__()
        self.driver = driver
        self.command_dim = checks.integer("command_dim", command_dim, low=1)
        self.horizon = checks.integer("horizon", horizon, low=1)
        hidden = checks.integer("hidden", hidden, low=1)
        self.encoder = nn.GRU(2 + command_dim, hidden, batch_first=True)
        self.to_z0 = nn.Linear(hidden, driver.dim)
        self.to_token = nn.Linear(hidden, hidden)
        self.frame = nn.Parameter(0.1 * torch.randn(horizon, hidden))
        self.film = nn.Linear(driver.dim, 2 * hidden)
        self.head = nn.Sequential(nn.Linear(hidden, hidden), nn.Tanh(), nn.Linear(hidden, 2))

    def forward(
        self,
        past: Tensor,
        commands: Tensor,
        dt: float,
        *,
        n_samples: int = 1,
        generator: torch.Generator | None = None,
        stochastic: bool = True,
        return_latent: bool = False,
    ) -> Tensor | tuple[Tensor, Tensor]:
        """``past (B, P, 2+c)``, ``commands (B, T, c)`` → positions ``(K, B, T, 2)``.

        With ``return_latent`` also the latent path ``(T + 1, K * B, d)``.
        """
        checks.shape("past", past, (None, None, 2 + self.command_dim))
        checks.shape("commands", commands, (past.shape[0], self.horizon, self.command_dim))
        k = checks.integer("n_samples", n_samples, low=1)
        b = past.shape[0]
        _, h = self.encoder(past)
        h = h[0]  # (B, H)
        z0 = self.to_z0(h).repeat(k, 1)  # (K*B, d)
        u = commands.transpose(0, 1).repeat(1, k, 1)  # (T, K*B, c)
        path = self.driver(z0, u, dt, generator=generator, stochastic=stochastic)
        gamma, beta = self.film(path[1:]).chunk(2, dim=-1)  # (T, K*B, H)
        token = torch.tanh(self.frame.unsqueeze(1) + self.to_token(h).repeat(k, 1))
        step = self.head(token * (1 + gamma) + beta)  # (T, K*B, 2)
        pos = step.cumsum(0).reshape(self.horizon, k, b, 2).permute(1, 2, 0, 3)
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
    checks.tensor("agents", agents, ndim=1)
    checks.shape("starts", starts, (agents.shape[0],))
    if int(starts.max()) + p + f > data.speed_turn.shape[1] or int(starts.min()) < 0:
        raise ValueError("starts must leave room for past + future frames in the data")
    idx = starts[:, None] + torch.arange(p + f)
    st = data.speed_turn[agents[:, None], idx]  # (B, P+F, 2)
    cmd = data.commands[agents[:, None], idx]
    heading0 = -(st[:, :p, 1] * h).sum(1)  # heading is 0 at the present
    pos = unicycle_positions(st, h, heading0)  # (B, P+F+1, 2)
    pos = pos - pos[:, p : p + 1]
    past_in = torch.cat([pos[:, 1 : p + 1], cmd[:, :p]], dim=-1)
    return past_in, cmd[:, p:], pos[:, p + 1 :]


def best_of_k_loss(samples: Tensor, target: Tensor) -> Tensor:
    """``mean_b min_k sum_t ||x_{k,b,t} - y_{b,t}||^2`` (:eq:`cogsde-eq-bok`).

    ``samples (K, B, T, 2)``, ``target (B, T, 2)``.
    """
    if samples.ndim != 4 or tuple(samples.shape[1:]) != tuple(target.shape):
        raise ValueError(f"samples must have shape (K, *{tuple(target.shape)})")
    err = (samples - target).pow(2).sum(-1).sum(-1)  # (K, B)
    return err.min(0).values.mean()


def trajectory_metrics(samples: Tensor, target: Tensor) -> dict[str, float]:
    """minADE, minFDE (best of the ``K`` samples), ADE, FDE (average over samples), diversity.

    ``samples (K, B, T, 2)``, ``target (B, T, 2)``; diversity is the mean pairwise distance of
    the samples' end points (0 for ``K = 1``). As in the released evaluation, minADE and
    minFDE choose their best sample independently.
    """
    if samples.ndim != 4 or tuple(samples.shape[1:]) != tuple(target.shape):
        raise ValueError(f"samples must have shape (K, *{tuple(target.shape)})")
    k = samples.shape[0]
    dist = (samples - target).norm(dim=-1)  # (K, B, T)
    ade, fde = dist.mean(-1), dist[..., -1]  # (K, B)
    end = samples[:, :, -1]  # (K, B, 2)
    pair = (end.unsqueeze(0) - end.unsqueeze(1)).norm(dim=-1).sum((0, 1))  # (B,)
    div = pair / (k * (k - 1)) if k > 1 else torch.zeros_like(pair)
    return {
        "minADE": ade.min(0).values.mean().item(),
        "minFDE": fde.min(0).values.mean().item(),
        "ADE": ade.mean().item(),
        "FDE": fde.mean().item(),
        "diversity": div.mean().item(),
    }


def response_lag(response: Tensor, switch: int, *, level: float = 0.5) -> Tensor:
    """Frames from a command switch until ``response`` first reaches ``level`` of its peak.

    ``response (..., T)`` is a non-negative response curve (e.g. the distance between the
    predictions with and without the command change); the crossing is linearly interpolated
    between frames. Curves that never rise give ``nan``. Used by the command-timing test of
    chapter 05.
    """
    s = checks.integer("switch", switch, low=0)
    lv = checks.real("level", level, low=0.0, high=1.0, strict=True)
    checks.tensor("response", response, floating=True)
    if response.shape[-1] <= s:
        raise ValueError(f"switch must be < the length of response ({response.shape[-1]})")
    r = response[..., s:]
    peak = r.max(-1, keepdim=True).values
    thr = lv * peak
    above = r >= thr
    first = above.float().argmax(-1)  # first frame at or above the threshold
    prev = (first - 1).clamp(min=0)
    r1 = r.gather(-1, first.unsqueeze(-1)).squeeze(-1)
    r0 = r.gather(-1, prev.unsqueeze(-1)).squeeze(-1)
    t = thr.squeeze(-1)
    frac = torch.where(first > 0, (t - r0) / (r1 - r0).clamp(min=1e-12), torch.zeros_like(t))
    lag = prev.to(r.dtype) + frac.clamp(0, 1)
    lag = torch.where(first == 0, torch.zeros_like(lag), lag)
    return torch.where(peak.squeeze(-1) > 0, lag, torch.full_like(lag, float("nan")))
