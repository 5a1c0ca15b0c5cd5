"""Controlled SDEs for command-driven latent dynamics (chapter 05, CogSDE).

Kernels for the controlled Itô SDE ``dz = f(z, u) dt + G(z) dW`` of chapter 05:

- :func:`euler_maruyama` — batched Euler–Maruyama over a batch of paths and a time grid of
  commands, with optional pre-drawn Brownian increments (:eq:`cogsde-eq-em`);
- :class:`CertifiedSDE` — the chapter's *alternative* to the paper's model: a drift with an
  additive and a gated command channel and a state-dependent diffusion that is dissipative
  *by construction*, with :meth:`CertifiedSDE.certificate` returning the certified constants
  of :eq:`cogsde-eq-dissipative` (:prf:ref:`cogsde-prop-param`). The paper's
  regime-switching drift is :class:`icml26.dynamics.switching.RegimeSwitchingSDE`;
- :class:`UnconstrainedSDE` — the same architecture with a free linear part;
- the encoder → SDE → generator pipeline and its baselines are in :mod:`icml26.dynamics.motion`;
- the synthetic 2-D "animal" it is trained on is in :mod:`icml26.dynamics.animal`;
- the ``torchsde`` bridge: ``FixedIncrements``, :class:`TorchsdeAdapter`.

Tensors are time-major: paths are ``(n_steps + 1, N, d)``, commands ``(n_steps, N, c)`` or
``(n_steps, c)`` (shared by every path), increments ``(n_steps, N, m)``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import torch
from torch import Tensor, nn
from torch.nn import functional as F

from icml26 import checks

Drift = Callable[[Tensor, Tensor | None], Tensor]
Diffusion = Callable[[Tensor], Tensor]

__all__ = [
    "Certificate",
    "CertifiedSDE",
    "FixedIncrements",  # noqa: F822 (built lazily by __getattr__, to defer torchsde)
    "TorchsdeAdapter",
    "UnconstrainedSDE",
    "em_mean_square_bound",
    "euler_maruyama",
    "mean_square_bound",
]


def _command_at(u: Tensor | None, k: int, batch: tuple[int, ...]) -> Tensor | None:
    if u is None:
        return None
    uk = u[k]
    return uk.expand(*batch, uk.shape[-1]) if uk.ndim == 1 else uk


def _grid(z0: Tensor, u: Tensor | None, dW: Tensor | None, n_steps: int | None, noise: str) -> int:
    """Validate the inputs of :func:`euler_maruyama` that fix its time grid; the step count."""
    batch, d = tuple(z0.shape[:-1]), z0.shape[-1]
    sizes = {}
    if u is not None:
        checks.tensor("u", u, floating=True)
        if u.ndim != 2 and (u.ndim != z0.ndim + 1 or tuple(u.shape[1:-1]) != batch):
            raise ValueError(
                "u must be a tensor of shape (n_steps, c) or "
                f"(n_steps, {', '.join(map(str, batch))}, c), got {tuple(u.shape)}"
            )
        if u.numel() == 0:
            raise ValueError(f"u must not be empty, got shape {tuple(u.shape)}")
        checks.finite("u", u)
        sizes["u"] = u.shape[0]
    if dW is not None:
        checks.tensor("dW", dW, floating=True)
        if dW.ndim != z0.ndim + 1 or tuple(dW.shape[1:-1]) != batch:
            raise ValueError(
                f"dW must have shape (n_steps, {', '.join(map(str, batch))}, m), "
                f"got {tuple(dW.shape)}"
            )
        if noise == "diagonal" and dW.shape[-1] != d:
            raise ValueError(
                f"dW must have m=d={d} channels for diagonal noise, got {dW.shape[-1]}"
            )
        if dW.dtype != z0.dtype:
            raise ValueError(f"dW must have the dtype of z0 ({z0.dtype}), got {dW.dtype}")
        if dW.numel() == 0:
            raise ValueError(f"dW must not be empty, got shape {tuple(dW.shape)}")
        checks.finite("dW", dW)
        sizes["dW"] = dW.shape[0]
    if n_steps is not None:
        sizes["n_steps"] = checks.integer("n_steps", n_steps, low=1)
    if not sizes:
        raise ValueError("n_steps is needed when neither u nor dW fixes the time grid")
    first, steps = next(iter(sizes.items()))
    for name, value in sizes.items():
        if value != steps:
            raise ValueError(f"{name} has {value} steps, but {first} has {steps} steps")
    return steps


def euler_maruyama(
    drift: Drift,
    diffusion: Diffusion | None,
    z0: Tensor,
    dt: float,
    *,
    u: Tensor | None = None,
    n_steps: int | None = None,
    dW: Tensor | None = None,
    generator: torch.Generator | None = None,
    noise: str = "diagonal",
    save_every: int = 1,
) -> Tensor:
    """Euler–Maruyama for ``dz = f(z, u_k) dt + G(z) dW`` (:eq:`cogsde-eq-em`, chapter 05).

    ``z_{k+1} = z_k + f(z_k, u_k) h + G(z_k) ΔW_k`` with ``ΔW_k ~ N(0, h I)``, for a whole
    batch of paths at once: ``z0`` is ``(N, d)``, or ``(*batch, d)`` with more batch axes
    (e.g. ``(M, N, d)`` for ``M`` stacked models). ``drift(z, u_k)`` maps ``(*batch, d)``
    (and the commands ``(*batch, c)`` or ``None``) to ``(*batch, d)``; ``diffusion(z)``
    returns ``(*batch, d)`` (``noise="diagonal"``: ``G = diag``) or ``(*batch, d, m)``
    (``noise="general"``); ``diffusion=None`` integrates the ODE (Euler). ``u`` is
    ``(n_steps, c)`` (shared by every path) or ``(n_steps, *batch, c)``. ``dW`` are pre-drawn
    increments ``(n_steps, *batch, m)`` (already scaled by ``sqrt(h)``), so two solvers can
    be compared path by path; otherwise they are drawn on ``z0``'s device from
    ``generator``. ``z0``, ``u`` and ``dW`` must be finite (checked before any step).
    Returns every ``save_every``-th state, ``(n_steps // save_every + 1, *batch, d)``.
    """
    h = checks.real("dt", dt, low=0.0, strict=True)
    checks.tensor("z0", z0, floating=True)
    if z0.ndim < 2 or z0.numel() == 0:
        raise ValueError(f"z0 must be a non-empty tensor of shape (N, d), got {tuple(z0.shape)}")
    checks.finite("z0", z0)
    if noise not in ("diagonal", "general"):
        raise ValueError(f"noise must be 'diagonal' or 'general', got {noise!r}")
    if dW is not None and diffusion is None:
        raise ValueError("dW was given but diffusion is None")
    if generator is not None and not isinstance(generator, torch.Generator):
        raise ValueError(f"generator must be a torch.Generator, got {type(generator).__name__}")
    steps = _grid(z0, u, dW, n_steps, noise)
    every = checks.integer("save_every", save_every, low=1)
    if steps % every:
        raise ValueError(f"save_every={every} must divide the number of steps {steps}")
    return _em_loop(drift, diffusion, z0, h, u, dW, generator, noise, steps, every)


def _em_loop(
    drift: Drift,
    diffusion: Diffusion | None,
    z0: Tensor,
    h: float,
    u: Tensor | None,
    dW: Tensor | None,
    generator: torch.Generator | None,
    noise: str,
    steps: int,
    every: int,
) -> Tensor:
    """The Euler–Maruyama recursion of :func:`euler_maruyama`, on validated inputs."""
    batch, d = tuple(z0.shape[:-1]), z0.shape[-1]
    sqrt_h = math.sqrt(h)
    z = z0
    out = [z0]
    for k in range(steps):
        step = drift(z, _command_at(u, k, batch)) * h
        if diffusion is not None:
            g = diffusion(z)
            if dW is not None:
                dw = dW[k]
            else:
                m = d if noise == "diagonal" else g.shape[-1]
                dw = torch.randn((*batch, m), generator=generator, device=z.device, dtype=z.dtype)
                dw = dw * sqrt_h
            step = step + (g * dw if noise == "diagonal" else (g @ dw.unsqueeze(-1)).squeeze(-1))
        z = z + step
        if (k + 1) % every == 0:
            out.append(z)
    return torch.stack(out)


@dataclass(frozen=True)
class Certificate:
    """Certified constants of a dissipative drift/diffusion pair (chapter 05).

    The constants of :eq:`cogsde-eq-dissipative` and of the growth bound of
    :prf:ref:`cogsde-prop-param`:

    ``2<z, f(z,u)> + ||G(z)||_F^2 <= -alpha ||z||^2 + beta (1 + ||u||^2)`` for all ``z, u``;
    ``||f(z,u)||^2 <= 2 lipschitz^2 ||z||^2 + growth (1 + ||u||^2)`` (used by the EM bound).
    """

    alpha: float
    beta: float
    lipschitz: float
    growth: float


def _times(name: str, t: Tensor) -> Tensor:
    checks.tensor(name, t, floating=True)
    if t.numel() == 0:
        raise ValueError(f"{name} must not be empty")
    checks.finite(name, t)
    if (t < 0).any():
        raise ValueError(f"{name} must be non-negative")
    return t


def mean_square_bound(t: Tensor, alpha: float, beta: float, m0: float, u_sup2: float) -> Tensor:
    """:prf:ref:`cogsde-thm-ms`: ``e^{-αt} m0 + (β/α)(1 + sup||u||²)(1 - e^{-αt})``.

    ``t`` is a non-empty tensor of non-negative times, of any shape (elementwise; chapter 05).
    """
    _times("t", t)
    a = checks.real("alpha", alpha, low=0.0, strict=True)
    b = checks.real("beta", beta, low=0.0)
    m0 = checks.real("m0", m0, low=0.0)
    u_sup2 = checks.real("u_sup2", u_sup2, low=0.0)
    decay = torch.exp(-a * t)
    return decay * m0 + (b / a) * (1.0 + u_sup2) * (1.0 - decay)


def em_mean_square_bound(
    n: Tensor, h: float, cert: Certificate, m0: float, u_sup2: float
) -> Tensor:
    """:prf:ref:`cogsde-prop-em`: the mean-square bound of Euler–Maruyama, step ``h``.

    Valid for ``h < alpha / (2 L^2)``: ``rho^n m0 + (beta + h K)(1 + U^2)/(alpha - 2 h L^2)``
    with ``rho = 1 - h alpha + 2 h^2 L^2``; ``n`` is a tensor of step counts, of any shape
    (elementwise; chapter 05).
    """
    _times("n", n)
    h = checks.real("h", h, low=0.0, strict=True)
    if not isinstance(cert, Certificate):
        raise ValueError(f"cert must be a Certificate, got {type(cert).__name__}")
    m0 = checks.real("m0", m0, low=0.0)
    u_sup2 = checks.real("u_sup2", u_sup2, low=0.0)
    gap = cert.alpha - 2.0 * h * cert.lipschitz**2
    if gap <= 0:
        raise ValueError(
            f"h must be < alpha / (2 L^2) = {cert.alpha / (2 * cert.lipschitz**2):.3g}"
        )
    rho = 1.0 - h * gap
    stat = (cert.beta + h * cert.growth) * (1.0 + u_sup2) / gap
    return rho**n * m0 + stat * (1.0 - rho**n)


class _DualChannel(nn.Module):
    """Shared parts: the gated bounded nonlinearity, the additive channel and the diffusion."""

    def __init__(self, dim: int, command_dim: int, hidden: int, sigma: float) -> None:
        super().__init__()
        self.dim = checks.integer("dim", dim, low=1)
        self.command_dim = checks.integer("command_dim", command_dim, low=0)
        hidden = checks.integer("hidden", hidden, low=1)
        checks.real("sigma", sigma, low=0.0)
        self.inner = nn.Linear(dim, hidden)
        self.outer = nn.Linear(hidden, dim)
        self.log_scale = nn.Parameter(torch.zeros(dim))
        c = max(command_dim, 1)
        self.gate = nn.Linear(c, dim)  # multiplicative channel: g(u) = sigmoid(W_g u + b_g)
        self.shift = nn.Linear(c, dim)  # additive channel: B u + b_0
        self.noise = nn.Linear(dim, dim)  # state dependence of the diffusion
        raw = math.log(math.expm1(sigma)) if sigma > 0 else -30.0
        self.raw_sigma = nn.Parameter(torch.full((dim,), raw))

    def _u(self, z: Tensor, u: Tensor | None) -> Tensor:
        if u is None or self.command_dim == 0:
            return z.new_zeros(z.shape[0], max(self.command_dim, 1))
        checks.shape("u", u, (z.shape[0], self.command_dim))
        return u

    def scale(self) -> Tensor:
        return F.softplus(self.log_scale)

    def sigma(self) -> Tensor:
        return F.softplus(self.raw_sigma)

    def nonlinear(self, z: Tensor, u: Tensor) -> Tensor:
        bounded = self.scale() * torch.tanh(self.outer(torch.tanh(self.inner(z))))
        return torch.sigmoid(self.gate(u)) * bounded + self.shift(u)

    def diffusion(self, z: Tensor) -> Tensor:
        """Diagonal of ``G(z) = diag(σ ⊙ sigmoid(W_s z + b_s))``: state-dependent, bounded."""
        checks.shape("z", z, (None, self.dim))
        return self.sigma() * torch.sigmoid(self.noise(z))

    def linear(self) -> Tensor:
        raise NotImplementedError

    def drift(self, z: Tensor, u: Tensor | None = None) -> Tensor:
        """``f(z, u) = A z + sigmoid(W_g u + b_g) ⊙ s ⊙ tanh(...) + B u + b_0``, ``z (N, d)``.

        NaN propagates: this is the inner loop of :func:`euler_maruyama`, which checks its
        inputs once.
        """
        checks.shape("z", z, (None, self.dim))
        return z @ self.linear().T + self.nonlinear(z, self._u(z, u))


class CertifiedSDE(_DualChannel):
    """The chapter's certified alternative (:eq:`cogsde-eq-param`), dissipative by design.

    ``A = -(ε I + M Mᵀ) + (N - Nᵀ)``: its symmetric part is ``≤ -ε I``, the skew part rotates.
    The nonlinear part is gated by the command (multiplicative channel, in ``(0, 1)``) and
    bounded by ``||s||``; the command also shifts the drift (additive channel ``B u + b_0``);
    the diffusion is diagonal and bounded by ``||σ||``. :meth:`certificate` returns (α, β).
    """

    def __init__(
        self, dim: int, command_dim: int, hidden: int = 16, *, eps: float = 0.1, sigma: float = 0.3
    ) -> None:
        super().__init__(dim, command_dim, hidden, sigma)
        self.eps = checks.real("eps", eps, low=0.0, strict=True)
        self.m = nn.Parameter(0.5 * torch.randn(dim, dim) / math.sqrt(dim))
        self.n = nn.Parameter(0.5 * torch.randn(dim, dim) / math.sqrt(2 * dim))

    def linear(self) -> Tensor:
        eye = torch.eye(self.dim, dtype=self.m.dtype, device=self.m.device)
        return -(self.eps * eye + self.m @ self.m.T) + (self.n - self.n.T)

    @torch.no_grad()
    def certificate(self) -> Certificate:
        """(α, β) of :prf:ref:`cogsde-prop-param`, computed from the parameters.

        λ = λ_min(ε I + M Mᵀ) ≥ ε > 0; with a = ||s|| + ||b_0|| and b = ||B||₂ (Young with
        weight λ): α = λ, β = max(2a²/λ + ||σ||², 2b²/λ).
        """
        a_mat = self.linear().double()
        sym = -(a_mat + a_mat.T) / 2
        lam = float(torch.linalg.eigvalsh(sym).min())
        if not lam > 0:  # cannot happen (ε > 0) but we refuse to certify otherwise
            raise ValueError(f"alpha must be > 0, got {lam}")
        a = float(self.scale().double().norm() + self.shift.bias.double().norm())
        b = float(torch.linalg.matrix_norm(self.shift.weight.double(), ord=2))
        if self.command_dim == 0:
            b = 0.0
        s2 = float(self.sigma().double().pow(2).sum())
        beta = max(2 * a * a / lam + s2, 2 * b * b / lam)
        lip = float(torch.linalg.matrix_norm(a_mat, ord=2))
        growth = 4 * max(a * a, b * b)
        return Certificate(alpha=lam, beta=beta, lipschitz=lip, growth=growth)


class UnconstrainedSDE(_DualChannel):
    """The baseline: the same drift and diffusion with a free linear part ``A`` (no certificate).

    With ``stochastic=False`` the diffusion is switched off and the model is a neural ODE.
    """

    def __init__(
        self,
        dim: int,
        command_dim: int,
        hidden: int = 16,
        *,
        sigma: float = 0.3,
        stochastic: bool = True,
        gain: float = 1.0,
    ) -> None:
        super().__init__(dim, command_dim, hidden, sigma if stochastic else 0.0)
        gain = checks.real("gain", gain, low=0.0)
        self.a = nn.Parameter(gain * torch.randn(dim, dim) / math.sqrt(dim))
        self.stochastic = bool(stochastic)
        if not self.stochastic:
            self.raw_sigma.requires_grad_(False)

    def linear(self) -> Tensor:
        return self.a


# --------------------------------------------------------------------------- torchsde bridge
def _fixed_increments_class() -> type:
    """Build :class:`FixedIncrements` on first use, so that torchsde is imported lazily."""
    import torchsde

    class FixedIncrements(torchsde.BaseBrownian):
        """A torchsde Brownian motion that hands out pre-drawn increments (chapter 05, Cross-check).

        ``torchsde.sdeint(..., bm=FixedIncrements(dW, h), method="euler", dt=h)`` then integrates
        the same Brownian path as :func:`euler_maruyama` with ``dW``: the solver asks for the
        increment over each step ``[t_k, t_k + h]``, and gets ``dW[k]`` (shape ``(n, ..., m)``).
        """

        def __init__(self, dW: Tensor, h: float) -> None:
            if not isinstance(dW, Tensor) or dW.ndim < 2 or dW.numel() == 0:
                raise ValueError("dW must be a tensor of increments with shape (n_steps, ...)")
            checks.finite("dW", dW)
            self.dW, self.h = dW, checks.real("h", h, low=0.0, strict=True)

        def __call__(self, ta, tb=None, return_U=False, return_A=False) -> Tensor:
            k = round(float(ta) / self.h)
            if not 0 <= k < self.dW.shape[0]:
                raise ValueError(
                    f"ta={float(ta)} lies outside the grid of {self.dW.shape[0]} steps"
                )
            return self.dW[k]

        def __repr__(self) -> str:
            return f"FixedIncrements(n_steps={self.dW.shape[0]}, h={self.h})"

        dtype = property(lambda self: self.dW.dtype)
        device = property(lambda self: self.dW.device)
        shape = property(lambda self: self.dW.shape[1:])
        levy_area_approximation = property(lambda self: "none")

    return FixedIncrements


def __getattr__(name: str) -> object:
    if name == "FixedIncrements":  # torchsde is heavy: import it only when it is needed
        cls = _fixed_increments_class()
        globals()[name] = cls
        return cls
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class TorchsdeAdapter(nn.Module):
    """A model with ``drift(z, u)`` and ``diffusion(z)`` as a torchsde SDE (diagonal Itô noise).

    The command ``u`` is read from the per-step ``grid`` (shape ``(n_steps, c)``) by the step
    index ``round(t / h)``, exactly as :func:`euler_maruyama` reads it.
    """

    noise_type, sde_type = "diagonal", "ito"

    def __init__(self, model: Any, grid: Tensor, h: float) -> None:
        super().__init__()
        if not callable(getattr(model, "drift", None)) or not callable(
            getattr(model, "diffusion", None)
        ):
            raise ValueError("model must have drift(z, u) and diffusion(z) methods")
        checks.tensor("grid", grid, floating=True)
        checks.shape("grid", grid, (None, None))
        checks.finite("grid", grid)
        self.model, self.grid = model, grid
        self.h = checks.real("h", h, low=0.0, strict=True)

    def f(self, t: Tensor, y: Tensor) -> Tensor:
        k = min(round(float(t) / self.h), self.grid.shape[0] - 1)
        return self.model.drift(y, self.grid[k].expand(y.shape[0], -1))

    def g(self, t: Tensor, y: Tensor) -> Tensor:
        return self.model.diffusion(y)
