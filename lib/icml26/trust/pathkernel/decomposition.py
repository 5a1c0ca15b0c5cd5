"""The exact path-kernel decomposition of chapter 18 (explaind) and the attributions it yields.

The decomposition of :prf:ref:`explaind-thm-kernel` into (step, parameter group, training
example) contributions plus the weight-decay term (:func:`decompose`), and the aggregations
of :prf:ref:`explaind-def-influence` (:func:`step_influence`, :func:`explaind_scores`,
:func:`prune_mask`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
from torch.func import grad, vmap

from icml26 import checks
from icml26.trust.flatmodels import FlatModel
from icml26.trust.pathkernel.features import _per_sample_grads, _test_features, gauss_legendre
from icml26.trust.pathkernel.trajectory import (
    Trajectory,
    _check_inputs,
    _check_labels,
    _check_model,
    _check_theta,
    _check_traj,
)

Tensor = torch.Tensor

__all__ = [
    "Decomposition",
    "decompose",
    "explaind_scores",
    "prune_mask",
    "step_influence",
]


@dataclass
class Decomposition:
    """The path-kernel decomposition of a model's outputs on ``T`` test inputs.

    ``f0``, ``fN``: ``(T, C)`` outputs at the first and last iterate. ``actual``: ``(N, T, C)``
    true per-step changes. ``grad_steps``, ``decay_steps``: ``(N, T, C)`` the kernel (gradient)
    and weight-decay parts of each step. ``groups``: ``(N, G, T, C)`` step × component
    contributions (both parts). ``data``: ``(T, C, M)`` per-training-example contributions
    summed over steps (``None`` unless asked). ``variants``: ``(N, T, C)`` per-step changes
    predicted under other update formulas (their reconstructions are ``f0 + cumsum``);
    ``tangent``: the reconstruction with the left-endpoint Jacobian.
    ``scores``: ``(P,)`` absolute parameter-wise influence summed over steps, inputs, outputs.
    """

    f0: Tensor
    fN: Tensor
    actual: Tensor
    grad_steps: Tensor
    decay_steps: Tensor
    groups: Tensor
    group_names: tuple[str, ...]
    data: Tensor | None
    variants: dict[str, Tensor]
    tangent: Tensor | None
    scores: Tensor

    @property
    def reconstruction(self) -> Tensor:
        """``f(x; θ_0) + Σ_s (kernel part + decay part)``, which :prf:ref:`explaind-thm-kernel`
        says equals ``fN``."""
        return self.f0 + self.grad_steps.sum(0) + self.decay_steps.sum(0)


def decompose(
    model: FlatModel,
    traj: Trajectory,
    x_train: Tensor,
    y_train: Tensor,
    x_test: Tensor,
    *,
    nodes: int = 8,
    per_sample: bool = True,
    variants: dict[str, Tensor] | None = None,
    tangent: bool = False,
) -> Decomposition:
    """Decompose ``f(x_test; θ_N)`` exactly along the recorded AdamW path.

    Implements :prf:ref:`explaind-thm-kernel`: per step, the test features
    (:func:`~icml26.trust.pathkernel.features.test_features`, Gauss–Legendre with ``nodes``
    nodes) meet the train features
    ``ψ_s(x_k) = α_s u_{k,s} / ((1 − β₁^{s+1})(√v̂_s + ε))`` built from a per-sample momentum
    buffer ``u`` of shape ``(M, P)`` (every sample decays by β₁ each step; batch members add
    ``(1 − β₁)∇ℓ_k / |B_s|``), plus the decay term ``−α_s λ Φ_s θ_s``. With
    ``per_sample=False`` the buffer is skipped and the kernel part uses the aggregated update
    (``data`` is then ``None``). ``variants`` maps names to ``(N, P)`` alternative updates
    (e.g. from :func:`~icml26.trust.pathkernel.trajectory.adamw_updates`) whose per-step
    predicted changes are returned.
    """
    model = _check_model(model)
    traj = _check_traj(traj, model.spec.numel)
    x_train = _check_inputs("x_train", model, traj.thetas[0], x_train)
    _check_labels("y_train", y_train, x_train, "x_train")
    _check_inputs("x_test", model, traj.thetas[0], x_test)
    nodes = checks.integer("nodes", nodes, low=1)
    variants = _check_variants(variants, traj)
    gm = model.spec.group_matrix(traj.thetas.dtype, traj.thetas.device)
    M, P = x_train.shape[0], traj.thetas.shape[1]
    u = traj.thetas.new_zeros((M, P)) if per_sample else None
    f = [model(traj.thetas[0], x_test).detach()]
    grad_steps, decay_steps, groups = [], [], []
    data = None
    var_steps: dict[str, list[Tensor]] = {k: [] for k in variants}
    tan_acc = torch.zeros_like(f[0]) if tangent else None
    scores = torch.zeros(P, dtype=traj.thetas.dtype, device=traj.thetas.device)
    lrs = traj.lrs.tolist()  # one host transfer, not one per step
    for s in range(traj.steps):
        th, th_next, lr = traj.thetas[s], traj.thetas[s + 1], lrs[s]
        phi = _test_features(model, th, th_next, x_test, nodes)  # (T, C, P)
        f.append(model(th_next, x_test).detach())
        decay_upd = -lr * traj.weight_decay * th
        grad_upd, grad_step, contrib, train_abs = _kernel_part(
            model, traj, s, lr, phi, u, x_train, y_train, decay_upd
        )
        if contrib is not None:
            data = contrib if data is None else data + contrib
        grad_steps.append(grad_step)
        decay_steps.append(torch.einsum("tcp,p->tc", phi, decay_upd))
        groups.append(torch.einsum("tcp,p,pg->gtc", phi, grad_upd + decay_upd, gm))
        scores += phi.abs().sum((0, 1)) * (train_abs + decay_upd.abs())
        for k, upd in variants.items():
            var_steps[k].append(torch.einsum("tcp,p->tc", phi, upd[s]))
        if tan_acc is not None:
            jac0 = _test_features(model, th, th_next, x_test, 1, rule="left")
            tan_acc += torch.einsum("tcp,p->tc", jac0, th_next - th)
    fs = torch.stack(f)
    return Decomposition(
        f0=fs[0],
        fN=fs[-1],
        actual=fs[1:] - fs[:-1],
        grad_steps=torch.stack(grad_steps),
        decay_steps=torch.stack(decay_steps),
        groups=torch.stack(groups),
        group_names=model.spec.group_names,
        data=data,
        variants={k: torch.stack(a) for k, a in var_steps.items()},
        tangent=None if tan_acc is None else fs[0] + tan_acc,
        scores=scores,
    )


def _kernel_part(
    model: FlatModel,
    traj: Trajectory,
    s: int,
    lr: float,
    phi: Tensor,
    u: Tensor | None,
    x_train: Tensor,
    y_train: Tensor,
    decay_upd: Tensor,
) -> tuple[Tensor, Tensor, Tensor | None, Tensor]:
    """Step ``s``'s kernel part: its update, the predicted change ``(T, C)`` it causes, the
    per-example contributions ``(T, C, M)`` (``None`` without the buffer ``u``, which this
    advances by one momentum step) and the update's magnitude per parameter."""
    th, th_next = traj.thetas[s], traj.thetas[s + 1]
    if u is None:
        grad_upd = th_next - th - decay_upd
        return grad_upd, torch.einsum("tcp,p->tc", phi, grad_upd), None, grad_upd.abs()
    b1, b2 = traj.betas
    bc1, bc2 = 1 - b1 ** (s + 1), 1 - b2 ** (s + 1)
    denom = traj.exp_avg_sq[s].sqrt() / math.sqrt(bc2) + traj.eps
    _momentum_step(u, model, th, x_train, y_train, traj.batches[s], b1)
    psi = (lr / bc1) * u / denom  # (M, P)
    contrib = -torch.einsum("tcp,kp->tck", phi, psi)
    return -psi.sum(0), contrib.sum(-1), contrib, psi.abs().sum(0)


def _check_variants(variants: dict[str, Tensor] | None, traj: Trajectory) -> dict[str, Tensor]:
    """``variants``: named ``(N, P)`` alternative updates, finite, one per recorded step."""
    variants = variants or {}
    for name, upd in variants.items():
        checks.shape(f"variants[{name!r}]", upd, tuple(traj.grads.shape))
        checks.finite(f"variants[{name!r}]", upd)
    return variants


def _momentum_step(
    u: Tensor,
    model: FlatModel,
    theta: Tensor,
    x_train: Tensor,
    y_train: Tensor,
    batch: Tensor,
    b1: float,
) -> None:
    """One step of the per-sample momentum buffer ``u`` (M, P), in place: every sample decays
    by β₁, the batch's members add ``(1 − β₁)∇ℓ_k / |B|``."""
    idx = batch.to(u.device)
    g_k = -_per_sample_grads(model, theta, x_train[idx], y_train[idx])  # ∇ℓ_k
    u.mul_(b1)
    u.index_add_(0, idx, (1 - b1) * g_k / idx.numel())


def step_influence(
    model: FlatModel,
    theta: Tensor,
    theta_next: Tensor,
    grad_update: Tensor,
    x: Tensor,
    y: Tensor,
    *,
    nodes: int = 2,
) -> tuple[Tensor, Tensor]:
    """Step-wise influence of one step on the mean target log-probability, per component.

    Returns ``(gradient part, decay part)``, each ``(G,)``: ``Φ̄_G · Δθ_G`` with ``Φ̄`` the
    path-integrated gradient of ``mean_x log p(y | x)`` (:prf:ref:`explaind-def-influence`
    aggregated over data), the update split into ``grad_update`` and the decay
    ``(theta_next − theta) − grad_update``. Summed over components and parts it equals the
    change of the mean target log-probability up to quadrature error.

    A per-step kernel (it attributes each step of a training loop): it checks shapes and
    types but not finiteness, which would cost a device-to-host synchronisation per step;
    NaN and inf in its arguments propagate into the result.
    """
    model = _check_model(model)
    _check_theta("theta", model, theta, finite=False)
    for name, v in (("theta_next", theta_next), ("grad_update", grad_update)):
        checks.tensor(name, v, floating=True)
        checks.shape(name, v, tuple(theta.shape))
    nodes = checks.integer("nodes", nodes, low=1)
    _check_labels("y", y, _check_inputs("x", model, theta, x, finite=False))
    t, w = gauss_legendre(nodes, theta.dtype)
    t, w = t.to(theta.device), w.to(theta.device)
    delta = theta_next - theta

    def target(th: Tensor) -> Tensor:
        return model(th, x).gather(-1, y[:, None]).mean()

    points = theta[None] + t[:, None] * delta[None]
    phi = w @ vmap(grad(target))(points)
    gm = model.spec.group_matrix(theta.dtype, theta.device)
    return (phi * grad_update) @ gm, (phi * (delta - grad_update)) @ gm


def explaind_scores(model: FlatModel, traj: Trajectory, x: Tensor, *, nodes: int = 2) -> Tensor:
    """Parameter-wise ExPLAIND pruning scores ``Σ_s Σ_{x,c} |Φ_s(x)_{c,p} Δθ_{s,p}|``, ``(P,)``.

    The absolute parameter-wise influence of :prf:ref:`explaind-def-influence`, summed over
    steps, the inputs ``x`` and all output classes (the paper code's score; its normalisation
    in the paper is not confirmed).
    """
    model = _check_model(model)
    traj = _check_traj(traj, model.spec.numel)
    _check_inputs("x", model, traj.thetas[0], x)
    nodes = checks.integer("nodes", nodes, low=1)
    scores = torch.zeros_like(traj.thetas[0])
    for s in range(traj.steps):
        th, th_next = traj.thetas[s], traj.thetas[s + 1]
        phi = _test_features(model, th, th_next, x, nodes)
        scores += phi.abs().sum((0, 1)) * (th_next - th).abs()
    return scores


def prune_mask(scores: Tensor, prunable: Tensor, sparsity: float) -> Tensor:
    """Global unstructured pruning: keep-mask ``(P,)`` that zeroes the lowest-scored fraction
    ``sparsity`` of the ``prunable`` entries (the others are always kept)."""
    checks.tensor("scores", scores, ndim=1)
    checks.finite("scores", scores)
    checks.shape("prunable", prunable, tuple(scores.shape))
    if prunable.dtype != torch.bool:
        raise ValueError(f"prunable must be a boolean tensor, got {prunable.dtype}")
    sparsity = checks.real("sparsity", sparsity, low=0.0, high=1.0)
    prunable = prunable.to(scores.device)
    idx = torch.nonzero(prunable).squeeze(1)
    k = round(sparsity * idx.numel())
    keep = torch.ones_like(prunable)
    if k:
        drop = idx[torch.argsort(scores[idx], stable=True)[:k]]
        keep[drop] = False
    return keep
