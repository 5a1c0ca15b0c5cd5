"""The paper's latent SDE: smooth regime switching with level and event command channels.

Kernels of chapter 05 (CogSDE) for the drift and diffusion read off the released code:

- :class:`RegimeSwitchingSDE` — ``f(z, u, u') = sum_i pi_i(z) (A_i z + a_i + B_i^lvl u +
  B_i^evt u')`` with state-dependent regime weights ``pi(z)`` and a clamped, state-dependent
  diagonal diffusion (:prf:ref:`cogsde-def-switching`), for ``M`` independent members at once
  (:mod:`icml26.dynamics.stacked`);
- :func:`command_channels` — the level and event channels ``[u_t, (u_t - u_{t-1}) / dt]`` of a
  command grid, in the layout that :func:`icml26.dynamics.sde.euler_maruyama` passes to a drift;
- :func:`dissipativity_residual`, :func:`dissipativity_penalty`, :func:`penalty_ramp` — the soft
  dissipativity penalty of :prf:ref:`cogsde-def-penalty` and its training schedule.

Tensors are time-major as in :mod:`icml26.dynamics.sde`: command grids ``(T, ..., c)``,
latent paths ``(T + 1, ..., d)``; a stacked model takes states ``(M, N, d)``.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Iterator, Sequence
from typing import Any

import torch
from torch import Tensor, nn
from torch.nn import functional as F

from icml26 import checks
from icml26.dynamics.stacked import StackedLinear, member_flags, member_generators, normal

__all__ = [
    "RegimeSwitchingSDE",
    "command_channels",
    "dissipativity_penalty",
    "dissipativity_residual",
    "penalty_ramp",
]


def command_channels(u: Tensor, dt: float, *, clip: float = 10.0) -> Tensor:
    """Level and event channels ``[u_t, clip((u_t - u_{t-1}) / dt)]`` of a command grid.

    Implements the two inputs of :prf:ref:`cogsde-def-switching` (chapter 05): ``u`` is
    ``(T, ..., c)`` (time first, at least 2-D, finite); the event channel is zero at the
    first step and clipped to ``[-clip, clip]`` as in the released code. Returns
    ``(T, ..., 2c)``.
    """
    h = checks.real("dt", dt, low=0.0, strict=True)
    lim = checks.real("clip", clip, low=0.0, strict=True)
    checks.tensor("u", u, floating=True)
    if u.ndim < 2 or u.numel() == 0:
        raise ValueError(f"u must be a non-empty grid of shape (T, ..., c), got {tuple(u.shape)}")
    checks.finite("u", u)
    event = torch.zeros_like(u)
    event[1:] = ((u[1:] - u[:-1]) / h).clamp(-lim, lim)
    return torch.cat([u, event], dim=-1)


class RegimeSwitchingSDE(nn.Module):
    """CogSDE's latent dynamics (:prf:ref:`cogsde-def-switching`, chapter 05), ``M`` members.

    Drift ``sum_i pi_i(z) [A_i z + a_i + B_i^lvl u + B_i^evt u'] - c z`` with
    ``pi(z) = softmax([phi(z) W, 0] / tau)``, ``phi`` two ``tanh`` layers, ``tau = exp(.)``
    learned; diffusion ``clamp(sum_i pi_i(z) exp(log s_i + g (h(z) * r_i + q_i)), lo, hi)``
    with ``h`` a two-layer SiLU network. Initialisation as in the released code: ``A_i =
    0.1 I + 0.1 N(0, 1)`` (expanding), ``B^lvl ~ 0.1 N``, ``B^evt ~ 0.05 N``, ``a_i = 0``,
    ``log s_i = log 0.1``, ``r_i = 0.1``.

    ``seeds`` holds one seed per member (``None``: one member, drawn from torch's global
    generator); member ``m``'s initial weights depend on ``seeds[m]`` only. ``event`` (one
    bool, or one per member) keeps the event channel; ``False`` is the ablation, whose
    ``B^evt`` is held at zero (:attr:`event_parameters` of them are then unused).
    :meth:`drift` takes states ``z (M, N, d)`` (or ``(N, d)`` when ``M = 1``) and
    ``v = [u, u'] (…, 2c)`` as built by :func:`command_channels`.
    """

    def __init__(
        self,
        dim: int,
        command_dim: int,
        *,
        n_regimes: int = 3,
        hidden: int = 16,
        event: bool | Sequence[bool] = True,
        contraction: float = 0.0,
        sigma_range: tuple[float, float] = (0.02, 0.5),
        seeds: Sequence[int] | None = None,
    ) -> None:
        super().__init__()
        self.dim = d = checks.integer("dim", dim, low=1)
        self.command_dim = c = checks.integer("command_dim", command_dim, low=1)
        self.n_regimes = s = checks.integer("n_regimes", n_regimes, low=1)
        hidden = checks.integer("hidden", hidden, low=1)
        self.contraction = checks.real("contraction", contraction, low=0.0)
        if not isinstance(sigma_range, tuple | list) or len(sigma_range) != 2:
            raise ValueError(f"sigma_range must be a pair (low, high), got {sigma_range!r}")
        lo = checks.real("sigma_range[0]", sigma_range[0], low=0.0, strict=True)
        hi = checks.real("sigma_range[1]", sigma_range[1], low=lo, strict=True)
        self.sigma_range = (lo, hi)
        gens = [None] if seeds is None else member_generators(seeds)
        self.members = m = len(gens)
        self.event = member_flags("event", event, m)
        self.phi = nn.Sequential(
            StackedLinear(d, hidden, gens),
            nn.Tanh(),
            StackedLinear(hidden, hidden, gens),
            nn.Tanh(),
        )
        self.logits = StackedLinear(hidden, s - 1, gens) if s > 1 else None
        self.log_tau = nn.Parameter(torch.zeros(m, 1, 1))
        eye = torch.eye(d).expand(s, d, d)
        self.A = nn.Parameter(0.1 * eye + normal(gens, (s, d, d), 0.1))
        self.a = nn.Parameter(torch.zeros(m, s, d))
        self.B_lvl = nn.Parameter(normal(gens, (s, d, c), 0.1))
        self.B_evt = nn.Parameter(normal(gens, (s, d, c), 0.05)) if any(self.event) else None
        mask = torch.tensor(self.event, dtype=torch.get_default_dtype())
        self.register_buffer("event_mask", mask.view(m, 1, 1, 1))
        self.noise_net = nn.Sequential(
            StackedLinear(d, hidden, gens), nn.SiLU(), StackedLinear(hidden, d, gens)
        )
        self.log_sigma = nn.Parameter(torch.full((m, s, d), math.log(0.1)))
        self.noise_scale = nn.Parameter(torch.full((m, s, d), 0.1))
        self.noise_shift = nn.Parameter(torch.zeros(m, s, d))
        self.noise_gain = nn.Parameter(torch.ones(m, 1, 1))
        self._cache: tuple[Tensor, Tensor] | None = None
        self._fixed: tuple[Tensor, Tensor, Tensor] | None = None

    @property
    def event_parameters(self) -> int:
        """Weights of one member's event channel (unused by an ablated member)."""
        return self.n_regimes * self.dim * self.command_dim

    def _stacked(self, name: str, z: Tensor) -> Tensor:
        """``z`` as ``(M, N, d)``: a 2-D ``(N, d)`` input is allowed for a single member."""
        if z.ndim == 2 and self.members == 1:
            z = z.unsqueeze(0)
        if z.ndim != 3 or z.shape[0] != self.members or z.shape[-1] != self.dim:
            raise ValueError(
                f"{name} must have shape ({self.members}, N, {self.dim})"
                + (f" or (N, {self.dim})" if self.members == 1 else "")
                + f", got {tuple(z.shape)}"
            )
        return z

    def regime_weights(self, z: Tensor) -> Tensor:
        """``pi(z) = softmax([phi(z) W, 0] / tau)``: ``(M, N, S)`` (``(N, S)`` for 2-D ``z``).

        The last result is cached by tensor identity, so that the drift and the diffusion of
        one Euler–Maruyama step evaluate ``phi`` once.
        """
        cached = self._cache
        if cached is not None and cached[0] is z:
            return cached[1]
        zs = self._stacked("z", z)
        if self.logits is None:
            pi = zs.new_ones(*zs.shape[:2], 1)
        else:
            raw = self.logits(self.phi(zs))
            raw = torch.cat([raw, raw.new_zeros(*raw.shape[:2], 1)], dim=-1)
            pi = F.softmax(raw / self.log_tau.exp(), dim=-1)
        pi = pi.squeeze(0) if z.ndim == 2 else pi
        self._cache = (z, pi)
        return pi

    def _constants(self) -> tuple[Tensor, Tensor, Tensor]:
        """What every step shares: ``[A_i, B_i^lvl, B_i^evt]`` of all regimes as one
        ``(M, d + c', S d)`` matrix, and the diffusion's ``log s_i + g q_i`` and ``g r_i``."""
        if self._fixed is not None:
            return self._fixed
        mats: list[Tensor] = [self.A, self.B_lvl]
        if self.B_evt is not None:
            event_mask: Tensor = self.event_mask  # type: ignore[assignment]  # a buffer
            mats.append(self.B_evt * event_mask)
        w = torch.cat(mats, dim=-1)  # (M, S, d, d + c')
        w = w.reshape(self.members, self.n_regimes * self.dim, -1).transpose(1, 2)
        log_s = (self.log_sigma + self.noise_gain * self.noise_shift).unsqueeze(1)
        gain = (self.noise_gain * self.noise_scale).unsqueeze(1)
        return w, log_s, gain

    @contextlib.contextmanager
    def rollout(self) -> Iterator[RegimeSwitchingSDE]:
        """Assemble the per-step constants once for a whole rollout (they enter the autograd
        graph once); :class:`~icml26.dynamics.motion.SDEDriver` integrates inside it."""
        self._fixed = None
        self._fixed = self._constants()
        try:
            yield self
        finally:
            self._fixed = None

    def drift(self, z: Tensor, v: Tensor | None = None) -> Tensor:
        """``f(z, u, u')`` for ``z (M, N, d)`` and ``v = [u, u'] (M, N, 2c)`` (``None``: no
        command). NaN propagates: this is the inner loop of Euler–Maruyama, which checks its
        inputs once."""
        pi = self.regime_weights(z)
        zs = self._stacked("z", z)
        c = self.command_dim
        if v is None:
            v = zs.new_zeros(*zs.shape[:2], 2 * c)
        elif v.shape[-1] != 2 * c or v.numel() != zs.shape[0] * zs.shape[1] * 2 * c:
            raise ValueError(f"v must have shape {(*zs.shape[:2], 2 * c)}, got {tuple(v.shape)}")
        v = v.reshape(*zs.shape[:2], 2 * c)
        if self.B_evt is None:
            v = v[..., :c]
        per = torch.bmm(torch.cat([zs, v], dim=-1), self._constants()[0])
        per = per.view(*zs.shape[:2], self.n_regimes, self.dim) + self.a.unsqueeze(1)
        f = (pi.view(*zs.shape[:2], -1).unsqueeze(-1) * per).sum(2)
        f = f - self.contraction * zs if self.contraction else f
        return f.squeeze(0) if z.ndim == 2 else f

    def diffusion(self, z: Tensor) -> Tensor:
        """Diagonal of ``G(z)``: regime-mixed, state-dependent, clamped to ``sigma_range``."""
        pi = self.regime_weights(z)
        zs = self._stacked("z", z)
        _, log_s0, gain = self._constants()
        hz = self.noise_net(zs).unsqueeze(2)  # (M, N, 1, d)
        log_s = torch.addcmul(log_s0, hz, gain)  # log s_i + g (h(z) r_i + q_i)
        pi = pi.view(*zs.shape[:2], -1).unsqueeze(-1)
        g = (pi * log_s.exp()).sum(2).clamp(*self.sigma_range)
        return g.squeeze(0) if z.ndim == 2 else g


def dissipativity_residual(
    model: Any, z: Tensor, v: Tensor | None, *, alpha: float = 0.01, beta: float = 1.0
) -> Tensor:
    """Residual ``2<z, f(z, v)> + ||G(z)||_F^2 + 2 alpha ||z||^2 - beta`` per state.

    The residual of :eq:`cogsde-eq-paper-diss` (chapter 05). ``model`` has ``drift(z, v)``
    and a diagonal ``diffusion(z)``; ``z (..., d)`` is what they accept (``(N, d)``, or
    ``(M, N, d)`` for a stacked model), finite. The condition of
    :prf:ref:`cogsde-def-penalty` holds at ``z`` exactly when the residual is ``<= 0``.
    ``v`` (finite) goes to ``model.drift`` as it is; the model checks its shape.
    Returns ``z.shape[:-1]``.
    """
    a = checks.real("alpha", alpha, low=0.0)
    b = checks.real("beta", beta, low=0.0)
    checks.tensor("z", z, floating=True)
    if z.ndim < 2 or z.numel() == 0:
        raise ValueError(f"z must be a non-empty batch of states (..., d), got {tuple(z.shape)}")
    checks.finite("z", z)
    if v is not None:
        checks.tensor("v", v, floating=True)
        checks.finite("v", v)
    f = model.drift(z, v)
    g2 = model.diffusion(z).pow(2).sum(-1)
    sq = z.pow(2).sum(-1)
    return 2 * (z * f).sum(-1) + g2 + 2 * a * sq - b


def dissipativity_penalty(residual: Tensor, *, tau: float = 1.0, late_only: bool = True) -> Tensor:
    """The penalty ``mean_t w_t tau softplus(r_t / tau)`` over a rollout.

    Implements :prf:ref:`cogsde-def-penalty` (chapter 05). ``residual`` is ``(T, N)`` (a
    scalar is returned) or ``(T, M, N)`` for ``M`` stacked members (one penalty per member,
    ``(M,)``): the mean runs over time and the last axis. With ``late_only`` the first half
    of the horizon has weight ``w_t = 0.25`` and the second half ``1``, as in the released
    code; otherwise ``w_t = 1``. A loss term computed at every training step: NaN and inf in
    ``residual`` propagate to the penalty (no host synchronisation).
    """
    t = checks.real("tau", tau, low=0.0, strict=True)
    checks.tensor("residual", residual, floating=True)
    if residual.ndim not in (2, 3) or residual.numel() == 0:
        raise ValueError(
            f"residual must be a non-empty (T, N) or (T, M, N), got {tuple(residual.shape)}"
        )
    n = residual.shape[0]
    w = torch.ones(n, dtype=residual.dtype, device=residual.device)
    if late_only:
        w[: n // 2] = 0.25
    w = w.view(n, *([1] * (residual.ndim - 1)))
    per = w * t * F.softplus(residual / t)
    return per.mean((0, -1))


def penalty_ramp(
    step: int, n_steps: int, *, start: float = 10 / 600, length: float = 20 / 600
) -> float:
    """Weight factor in ``[0, 1]``: 0 until ``start * n_steps``, then linear over ``length``.

    The released code switches the penalty on after 10 of 600 epochs and ramps it over 20; the
    defaults keep those fractions of training (:prf:ref:`cogsde-def-penalty`, chapter 05).
    """
    k = checks.integer("step", step, low=0)
    n = checks.integer("n_steps", n_steps, low=1)
    s = checks.real("start", start, low=0.0, high=1.0)
    ln = checks.real("length", length, low=0.0, high=1.0, strict=True)
    return float(min(1.0, max(0.0, (k / n - s) / ln)))
