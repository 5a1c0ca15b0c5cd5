"""AdamW, recorded: the training run that chapter 18 (explaind) decomposes.

Float64 AdamW training that records every step (:func:`train_adamw`, with the book's one
AdamW step :func:`icml26.trust.adamw.adamw_step`), the update of :prf:ref:`explaind-lem-adamw`,
and the per-step updates of the optimiser and its ablations (:func:`adamw_updates`). The
models are those of :mod:`icml26.trust.flatmodels`: functions of one flat parameter vector
mapping ``(theta, x)`` to log-probabilities of shape ``(N, C)``; the loss is the mean negative
log-probability of the target class.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import torch

from icml26 import checks
from icml26.trust.adamw import AdamWState, adamw_step
from icml26.trust.flatmodels import FlatModel

Tensor = torch.Tensor

__all__ = [
    "Trajectory",
    "adamw_updates",
    "train_adamw",
]


@dataclass
class Trajectory:
    """Everything the decomposition needs from a training run (all on one device).

    ``thetas``: ``(N + 1, P)`` iterates; ``grads``: ``(N, P)`` batch gradients of the loss;
    ``exp_avg_sq``: ``(N, P)`` second moments after each update; ``lrs``: ``(N,)``;
    ``batches``: N index tensors.
    """

    thetas: Tensor
    grads: Tensor
    exp_avg_sq: Tensor
    lrs: Tensor
    batches: list[Tensor]
    betas: tuple[float, float]
    eps: float
    weight_decay: float
    losses: list[float] = field(default_factory=list)

    @property
    def steps(self) -> int:
        return self.grads.shape[0]


def _loss_fn(model: FlatModel) -> Callable[[Tensor, Tensor, Tensor], Tensor]:
    def loss(theta: Tensor, x: Tensor, y: Tensor) -> Tensor:
        lp = model(theta, x)
        return -lp.gather(-1, y[:, None]).mean()

    return loss


def _check_model(model: object) -> FlatModel:
    if not isinstance(model, FlatModel):
        raise ValueError(f"model must be a FlatModel, got {type(model).__name__}")
    return model


def _check_theta(name: str, model: FlatModel, theta: object, *, finite: bool = True) -> Tensor:
    """A finite ``(P,)`` parameter vector of ``model``."""
    theta = checks.tensor(name, theta, ndim=1, floating=True)
    checks.shape(name, theta, (model.spec.numel,))
    if finite:
        checks.finite(name, theta)
    return theta


def _check_inputs(
    name: str, model: FlatModel, theta: Tensor, x: object, *, finite: bool = True
) -> Tensor:
    """A non-empty batch of inputs that ``model`` accepts (tried on its first row)."""
    x = checks.tensor(name, x)
    if x.ndim == 0 or x.shape[0] == 0:
        raise ValueError(f"{name} must be a non-empty batch of inputs, got {tuple(x.shape)}")
    if finite and x.is_floating_point():
        checks.finite(name, x)
    try:
        with torch.no_grad():
            out = model(theta.detach(), x[:1])
    except (RuntimeError, IndexError) as e:
        raise ValueError(f"{name} does not fit the model: {e}") from None
    if tuple(out.shape) != (1, model.num_classes):
        raise ValueError(
            f"{name} does not fit the model: one input gives outputs of shape "
            f"{tuple(out.shape)}, not (1, {model.num_classes})"
        )
    return x


def _check_labels(name: str, y: object, x: Tensor, x_name: str = "x") -> Tensor:
    y = checks.tensor(name, y, ndim=1)
    if x.shape[0] != y.shape[0]:
        raise ValueError(
            f"{x_name} and {name} must have the same length, got {x.shape[0]} and {y.shape[0]}"
        )
    return y


def _check_traj(traj: object, P: int) -> Trajectory:
    """A recorded trajectory of a ``P``-parameter model with finite entries."""
    if not isinstance(traj, Trajectory):
        raise ValueError(f"traj must be a Trajectory, got {type(traj).__name__}")
    if traj.steps == 0:
        raise ValueError("traj must be a recorded trajectory (train_adamw(record=True))")
    N = traj.steps
    for name, shape in (
        ("thetas", (N + 1, P)),
        ("grads", (N, P)),
        ("exp_avg_sq", (N, P)),
        ("lrs", (N,)),
    ):
        checks.shape(f"traj.{name}", getattr(traj, name), shape)
        checks.finite(f"traj.{name}", getattr(traj, name))
    if len(traj.batches) != N:
        raise ValueError(f"traj.batches must hold {N} index tensors, got {len(traj.batches)}")
    return traj


def train_adamw(
    model: FlatModel,
    theta0: Tensor,
    x: Tensor,
    y: Tensor,
    batches: Sequence[Tensor],
    lrs: Tensor,
    *,
    betas: tuple[float, float] = (0.9, 0.999),
    eps: float = 1e-8,
    weight_decay: float = 0.0,
    record: bool = True,
    on_step: Callable[[int, Tensor, Tensor, Tensor], None] | None = None,
) -> Trajectory:
    """Train with AdamW on the mini-batches ``x[batches[s]]``, recording each step.

    Each step is :func:`icml26.trust.adamw.adamw_step`, the book's one AdamW.

    ``lrs[s]`` is the learning rate applied at step ``s``. With ``record=False`` only the
    final iterate is kept (``thetas`` has two rows) and ``on_step(s, theta_s, theta_next,
    grad_update)`` lets the caller attribute each step on the fly, where ``grad_update`` is the
    non-decay part ``−α_s m̂_s ⊘ (√v̂_s + ε)`` of the update.
    """
    model = _check_model(model)
    checks.tensor("theta0", theta0, ndim=1, floating=True)
    checks.tensor("lrs", lrs, ndim=1, floating=True)
    if len(batches) != lrs.shape[0] or not batches:
        raise ValueError(
            f"lrs must have one entry per batch, got {lrs.shape[0]} and {len(batches)}"
        )
    checks.finite("lrs", lrs)
    _check_theta("theta0", model, theta0)
    _check_labels("y", y, _check_inputs("x", model, theta0, x))
    loss_grad = torch.func.grad_and_value(_loss_fn(model))
    theta = theta0.detach().clone()
    state = AdamWState.zeros_like([theta])
    thetas, grads, vs, losses = [theta], [], [], []
    lr_list = [float(a) for a in lrs.tolist()]
    for s, idx in enumerate(batches):
        g, loss = loss_grad(theta, x[idx], y[idx])
        (theta_next,) = adamw_step(
            [theta], [g], state, lr=lr_list[s], betas=betas, eps=eps, weight_decay=weight_decay
        )
        losses.append(loss.detach())
        if on_step is not None:
            decay = -lr_list[s] * weight_decay * theta
            on_step(s, theta, theta_next, theta_next - theta - decay)
        if record:
            thetas.append(theta_next)
            grads.append(g)
            vs.append(state.v[0].clone())
        theta = theta_next
    if not record:
        thetas = [theta0.detach(), theta]
    empty = theta.new_zeros((0, theta.numel()))
    return Trajectory(
        thetas=torch.stack(thetas),
        grads=torch.stack(grads) if grads else empty,
        exp_avg_sq=torch.stack(vs) if vs else empty,
        lrs=lrs.to(theta),
        batches=[torch.as_tensor(b) for b in batches],
        betas=betas,
        eps=eps,
        weight_decay=weight_decay,
        losses=[float(t) for t in torch.stack(losses).tolist()],
    )


def adamw_updates(traj: Trajectory, variant: str = "adamw") -> Tensor:
    """The ``(N, P)`` updates that a given optimiser formula makes from the recorded gradients.

    ``"adamw"`` is :prf:ref:`explaind-lem-adamw` (it must equal ``diff(thetas)``); the
    ablations of chapter 18 are ``"no_bias_correction"`` (raw moments), ``"coupled_l2"``
    (``λθ`` added to the gradient inside Adam, no decoupled decay) and ``"beta1_zero"`` (no
    momentum: ``D_s g_s``, the recorded ``v̂_s`` kept).
    """
    variants = ("adamw", "no_bias_correction", "coupled_l2", "beta1_zero")
    if variant not in variants:
        raise ValueError(f"variant must be one of {variants}, got {variant!r}")
    if not isinstance(traj, Trajectory):
        raise ValueError(f"traj must be a Trajectory, got {type(traj).__name__}")
    _check_traj(traj, traj.thetas.shape[-1])
    b1, b2 = traj.betas
    lam, eps = traj.weight_decay, traj.eps
    out = torch.empty_like(traj.grads)
    m = torch.zeros_like(traj.grads[0])
    v = torch.zeros_like(m)
    lrs = traj.lrs.tolist()  # one host transfer, not one per step
    for s in range(traj.steps):
        theta, g, lr = traj.thetas[s], traj.grads[s], lrs[s]
        if variant == "coupled_l2":
            g = g + lam * theta
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g * g
        bc1, bc2 = 1 - b1 ** (s + 1), 1 - b2 ** (s + 1)
        if variant == "no_bias_correction":
            bc1 = bc2 = 1.0
        if variant == "beta1_zero":
            step = g / (traj.exp_avg_sq[s].sqrt() / math.sqrt(bc2) + eps)
        else:
            step = (m / bc1) / (v.sqrt() / math.sqrt(bc2) + eps)
        decay = 0.0 if variant == "coupled_l2" else lam * theta
        out[s] = -lr * decay - lr * step
    return out
