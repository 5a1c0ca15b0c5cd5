"""The paper's latent SDE: smooth regime switching with level and event command channels.

Kernels of chapter 05 (CogSDE) for the drift and diffusion read off the released code:

- :class:`RegimeSwitchingSDE` — ``f(z, u, u') = sum_i pi_i(z) (A_i z + a_i + B_i^lvl u +
  B_i^evt u')`` with state-dependent regime weights ``pi(z)`` and a clamped, state-dependent
  diagonal diffusion (:prf:ref:`cogsde-def-switching`);
- :func:`command_channels` — the level and event channels ``[u_t, (u_t - u_{t-1}) / dt]`` of a
  command grid, in the layout that :func:`icml26.dynamics.sde.euler_maruyama` passes to a drift;
- :func:`dissipativity_residual`, :func:`dissipativity_penalty`, :func:`penalty_ramp` — the soft
  dissipativity penalty of :prf:ref:`cogsde-def-penalty` and its training schedule.

Tensors are time-major as in :mod:`icml26.dynamics.sde`: command grids ``(T, N, c)`` or
``(T, c)``, latent paths ``(T + 1, N, d)``.
"""

from __future__ import annotations

import math

import torch
from torch import Tensor, nn
from torch.nn import functional as F

from icml26 import checks

__all__ = [
    "RegimeSwitchingSDE",
    "command_channels",
    "dissipativity_penalty",
    "dissipativity_residual",
    "penalty_ramp",
]


def command_channels(u: Tensor, dt: float, *, clip: float = 10.0) -> Tensor:
    """Level and event channels ``[u_t, clip((u_t - u_{t-1}) / dt)]`` of a command grid.

    Implements the two inputs of :prf:ref:`cogsde-def-switching`: ``u`` is ``(T, c)`` or
    ``(T, N, c)`` (time first); the event channel is zero at the first step and clipped to
    ``[-clip, clip]`` as in the released code. Returns ``(..., 2c)``.
    """
    h = checks.real("dt", dt, low=0.0, strict=True)
    lim = checks.real("clip", clip, low=0.0, strict=True)
    checks.tensor("u", u, floating=True)
    if u.ndim not in (2, 3) or u.shape[0] < 1:
        raise ValueError(f"u must have shape (T, c) or (T, N, c), got {tuple(u.shape)}")
    event = torch.zeros_like(u)
    event[1:] = ((u[1:] - u[:-1]) / h).clamp(-lim, lim)
    return torch.cat([u, event], dim=-1)


class RegimeSwitchingSDE(nn.Module):
    """CogSDE's latent dynamics (:prf:ref:`cogsde-def-switching`, chapter 05).

    Drift ``sum_i pi_i(z) [A_i z + a_i + B_i^lvl u + B_i^evt u'] - c z`` with
    ``pi(z) = softmax([phi(z) W, 0] / tau)``, ``phi`` two ``tanh`` layers, ``tau = exp(.)``
    learned; diffusion ``clamp(sum_i pi_i(z) exp(log s_i + g (h(z) * r_i + q_i)), lo, hi)`` with
    ``h`` a two-layer SiLU network. Initialisation as in the released code: ``A_i = 0.1 I +
    0.1 N(0, 1)`` (expanding), ``B^lvl ~ 0.1 N``, ``B^evt ~ 0.05 N``, ``a_i = 0``,
    ``log s_i = log 0.1``, ``r_i = 0.1``. ``event=False`` drops the event channel (the
    ablation). :meth:`drift` takes ``v = [u, u']`` as built by :func:`command_channels`.
    """

    def __init__(
        self,
        dim: int,
        command_dim: int,
        *,
        n_regimes: int = 3,
        hidden: int = 16,
        event: bool = True,
        contraction: float = 0.0,
        sigma_range: tuple[float, float] = (0.02, 0.5),
    ) -> None:
        super().__init__()
        self.dim = checks.integer("dim", dim, low=1)
        self.command_dim = checks.integer("command_dim", command_dim, low=1)
        self.n_regimes = checks.integer("n_regimes", n_regimes, low=1)
        hidden = checks.integer("hidden", hidden, low=1)
        self.contraction = checks.real("contraction", contraction, low=0.0)
        lo = checks.real("sigma_range[0]", sigma_range[0], low=0.0, strict=True)
        hi = checks.real("sigma_range[1]", sigma_range[1], low=lo, strict=True)
        self.sigma_range = (lo, hi)
        self.event = bool(event)
        d, c, s = self.dim, self.command_dim, self.n_regimes
        self.phi = nn.Sequential(
            nn.Linear(d, hidden), nn.Tanh(), nn.Linear(hidden, hidden), nn.Tanh()
        )
        self.logits = nn.Linear(hidden, s - 1) if s > 1 else None
        self.log_tau = nn.Parameter(torch.zeros(()))
        self.A = nn.Parameter(0.1 * torch.eye(d).expand(s, d, d) + 0.1 * torch.randn(s, d, d))
        self.a = nn.Parameter(torch.zeros(s, d))
        self.B_lvl = nn.Parameter(0.1 * torch.randn(s, d, c))
        self.B_evt = nn.Parameter(0.05 * torch.randn(s, d, c)) if self.event else None
        self.noise_net = nn.Sequential(nn.Linear(d, hidden), nn.SiLU(), nn.Linear(hidden, d))
        self.log_sigma = nn.Parameter(torch.full((s, d), math.log(0.1)))
        self.noise_scale = nn.Parameter(torch.full((s, d), 0.1))
        self.noise_shift = nn.Parameter(torch.zeros(s, d))
        self.noise_gain = nn.Parameter(torch.ones(()))
        self._cache: tuple[Tensor, Tensor] | None = None

    def regime_weights(self, z: Tensor) -> Tensor:
        """``pi(z) = softmax([phi(z) W, 0] / tau)``, shape ``(N, S)``.

        The last result is cached by tensor identity, so that the drift and the diffusion of
        one Euler–Maruyama step evaluate ``phi`` once.
        """
        cached = self._cache
        if cached is not None and cached[0] is z:
            return cached[1]
        if self.logits is None:
            pi = z.new_ones(z.shape[0], 1)
        else:
            raw = self.logits(self.phi(z))
            raw = torch.cat([raw, raw.new_zeros(raw.shape[0], 1)], dim=-1)
            pi = F.softmax(raw / self.log_tau.exp(), dim=-1)
        self._cache = (z, pi)
        return pi

    def _inputs(self, z: Tensor, v: Tensor | None) -> Tensor:
        c = self.command_dim
        if v is None:
            v = z.new_zeros(z.shape[0], 2 * c)
        else:
            checks.shape("v", v, (z.shape[0], 2 * c))
        if self.B_evt is None:
            v = v[:, :c]
        return torch.cat([z, v], dim=-1)

    def drift(self, z: Tensor, v: Tensor | None = None) -> Tensor:
        """``f(z, u, u')`` for ``z (N, d)`` and ``v = [u, u'] (N, 2c)`` (``None``: no command)."""
        pi = self.regime_weights(z)  # (N, S)
        mats = [self.A, self.B_lvl] + ([self.B_evt] if self.B_evt is not None else [])
        w = torch.cat(mats, dim=-1).reshape(self.n_regimes * self.dim, -1)  # (S d, d + c')
        per = (self._inputs(z, v) @ w.T).reshape(z.shape[0], self.n_regimes, self.dim) + self.a
        f = (pi.unsqueeze(-1) * per).sum(1)
        return f - self.contraction * z if self.contraction else f

    def diffusion(self, z: Tensor) -> Tensor:
        """Diagonal of ``G(z)``: regime-mixed, state-dependent, clamped to ``sigma_range``."""
        pi = self.regime_weights(z)
        hz = self.noise_net(z).unsqueeze(1)  # (N, 1, d)
        log_s = self.log_sigma + self.noise_gain * (hz * self.noise_scale + self.noise_shift)
        return (pi.unsqueeze(-1) * log_s.exp()).sum(1).clamp(*self.sigma_range)


def dissipativity_residual(
    model: nn.Module, z: Tensor, v: Tensor | None, *, alpha: float = 0.01, beta: float = 1.0
) -> Tensor:
    """Residual ``2<z, f(z, v)> + ||G(z)||_F^2 + 2 alpha ||z||^2 - beta`` per state.

    The residual of :eq:`cogsde-eq-paper-diss` (chapter 05).
    ``model`` has ``drift(z, v)`` and a diagonal ``diffusion(z)``; ``z (N, d)``. The condition
    of :prf:ref:`cogsde-def-penalty` holds at ``z`` exactly when the residual is ``<= 0``.
    """
    a = checks.real("alpha", alpha, low=0.0)
    b = checks.real("beta", beta, low=0.0)
    checks.tensor("z", z, ndim=2, floating=True)
    f = model.drift(z, v)
    g2 = model.diffusion(z).pow(2).sum(-1)
    sq = z.pow(2).sum(-1)
    return 2 * (z * f).sum(-1) + g2 + 2 * a * sq - b


def dissipativity_penalty(residual: Tensor, *, tau: float = 1.0, late_only: bool = True) -> Tensor:
    """The penalty ``mean_t w_t tau softplus(r_t / tau)`` over a rollout ``(T, N)``.

    Implements :prf:ref:`cogsde-def-penalty` (chapter 05).
    With ``late_only`` the first half of the horizon has weight ``w_t = 0.25`` and the second
    half ``1``, as in the released code; otherwise ``w_t = 1``.
    """
    t = checks.real("tau", tau, low=0.0, strict=True)
    checks.tensor("residual", residual, ndim=2, floating=True)
    n = residual.shape[0]
    w = torch.ones(n, 1, dtype=residual.dtype, device=residual.device)
    if late_only:
        w[: n // 2] = 0.25
    return (w * t * F.softplus(residual / t)).mean()


def penalty_ramp(
    step: int, n_steps: int, *, start: float = 10 / 600, length: float = 20 / 600
) -> float:
    """Weight factor in ``[0, 1]``: 0 until ``start * n_steps``, then linear over ``length``.

    The released code switches the penalty on after 10 of 600 epochs and ramps it over 20; the
    defaults keep those fractions of training.
    """
    k = checks.integer("step", step, low=0)
    n = checks.integer("n_steps", n_steps, low=1)
    s = checks.real("start", start, low=0.0, high=1.0)
    ln = checks.real("length", length, low=0.0, high=1.0, strict=True)
    return float(min(1.0, max(0.0, (k / n - s) / ln)))
