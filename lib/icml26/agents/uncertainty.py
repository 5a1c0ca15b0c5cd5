"""SCALE's decoding kernels (chapter 15, scale): the self-uncertainty, its closed form, the two
temperature maps, the step-level history and token sampling.

Implements the self-uncertainty of :prf:ref:`scale-def-uncertainty` and its closed form
(:prf:ref:`scale-prop-closed`), the adaptive action temperature
(:prf:ref:`scale-def-action-temp`), and the step-level uncertainty history and adaptive visual
attention temperature (:prf:ref:`scale-def-attn-temp`), batched over any leading axes.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import torch

from icml26 import checks

__all__ = [
    "History",
    "action_temperature",
    "attention_temperature",
    "sample_tokens",
    "self_uncertainty",
    "uncertainty_closed_form",
]


def self_uncertainty(
    logits: torch.Tensor, *, eps: float = 1e-12, k: int | None = None
) -> torch.Tensor:
    """``u = KL(p || q_low) - KL(p || q_high)`` over the top-``k`` logits of the last axis.

    Implements :prf:ref:`scale-def-uncertainty`: ``p = softmax`` of the ``k`` largest logits
    (all of them when ``k`` is None), ``q_low`` the ``eps``-smoothed one-hot on the arg-max
    (``1 - (k-1)*eps`` on it, ``eps`` elsewhere) and ``q_high`` uniform. Computed literally as
    the difference of the two divergences, in the dtype of ``logits``.

    A per-step kernel of the decoding loop: batched over any leading axes, it propagates
    NaN and inf (no host synchronisation to check them).
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
    """``u = -log K - p1*log(1-(K-1)*eps) + (1-p1)*log(1/eps)`` (:prf:ref:`scale-prop-closed`).

    Elementwise over any shape of ``p1``.
    """
    checks.tensor("p1", p1, floating=True)
    checks.finite("p1", p1)
    K = checks.integer("k", k, low=2)
    checks.real("eps", eps, low=0.0, high=1.0 / K, strict=True)
    if bool(((p1 < 0) | (p1 > 1)).any()):
        raise ValueError("p1 must lie in [0, 1]")
    return -math.log(K) - p1 * math.log1p(-(K - 1) * eps) + (1 - p1) * math.log(1 / eps)


def action_temperature(u: torch.Tensor, *, t0: float = 1.0) -> torch.Tensor:
    """Adaptive action temperature ``tau = T0 * sigmoid(u)`` (:prf:ref:`scale-def-action-temp`).

    A per-step kernel of the decoding loop: elementwise over any shape, it propagates NaN and
    inf (no host synchronisation to check them).
    """
    checks.tensor("u", u, floating=True)
    checks.real("t0", t0, low=0.0, strict=True)
    return t0 * torch.sigmoid(u)


def attention_temperature(
    delta_u: torch.Tensor, *, kappa: float = 2.0, s: float = 0.3
) -> torch.Tensor:
    """Visual attention temperature ``gamma = kappa ** tanh(s * du)``.

    Implements :prf:ref:`scale-def-attn-temp`; ``gamma`` lies in ``(1/kappa, kappa)``.
    A per-step kernel of the decoding loop: elementwise over any shape, it propagates NaN and
    inf (no host synchronisation to check them).
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
    ``top_p`` restrict the support first (the decoding baselines). ``logits`` and ``tau`` must
    be finite (the draw synchronises with the host anyway).
    """
    checks.tensor("logits", logits, ndim=2, floating=True)
    checks.finite("logits", logits)
    if isinstance(tau, torch.Tensor):
        checks.tensor("tau", tau, floating=True)
        if tau.ndim > 1 or (tau.ndim == 1 and tau.shape[0] != logits.shape[0]):
            raise ValueError(
                f"tau must be a number or one per row of logits, got shape {tuple(tau.shape)}"
            )
        checks.finite("tau", tau)
    else:
        checks.real("tau", tau)
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
