"""ExPLAIND: AdamW training as an exact path-kernel machine, and the attributions it yields.

Implements, for chapter 18 (explaind):

- float64 AdamW training that records every step (:func:`train_adamw`, with the book's one
  AdamW step :func:`icml26.trust.adamw.adamw_step`), the update of
  :prf:ref:`explaind-lem-adamw`;
- per-sample gradients with ``torch.func.vmap`` (:func:`per_sample_grads`) and the
  path-integrated test feature map of :prf:ref:`explaind-lem-step` (:func:`test_features`);
- the exact decomposition of :prf:ref:`explaind-thm-kernel` into (step, parameter group,
  training example) contributions plus the weight-decay term (:func:`decompose`), and the
  aggregations of :prf:ref:`explaind-def-influence` (:func:`step_influence`,
  :func:`explaind_scores`, :func:`prune_mask`);

The models are those of :mod:`icml26.trust.flatmodels`: functions of one flat parameter
vector mapping ``(theta, x)`` to log-probabilities of shape ``(N, C)``; the loss is the mean
negative log-probability of the target class.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
import torch
from torch.func import grad, jacrev, vmap

from icml26 import checks
from icml26.trust.adamw import AdamWState, adamw_step
from icml26.trust.flatmodels import FlatModel

__all__ = [
    "Decomposition",
    "Trajectory",
    "adamw_updates",
    "decompose",
    "explaind_scores",
    "gauss_legendre",
    "per_sample_grads",
    "prune_mask",
    "step_influence",
    "test_features",
    "train_adamw",
]

Tensor = torch.Tensor


# --- AdamW, recorded ------------------------------------------------------------------------


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


# --- features -------------------------------------------------------------------------------


def gauss_legendre(n: int, dtype: torch.dtype = torch.float64) -> tuple[Tensor, Tensor]:
    """Gauss–Legendre nodes and weights on [0, 1] (weights sum to one)."""
    n = checks.integer("n", n, low=1)
    t, w = np.polynomial.legendre.leggauss(n)
    return torch.as_tensor((t + 1) / 2, dtype=dtype), torch.as_tensor(w / 2, dtype=dtype)


def _single(model: FlatModel) -> Callable[[Tensor, Tensor], Tensor]:
    return lambda theta, xi: model(theta, xi[None])[0]


def per_sample_grads(model: FlatModel, theta: Tensor, x: Tensor, y: Tensor) -> Tensor:
    """``(M, P)`` gradients of each sample's target log-probability (``torch.func.vmap``)."""
    model = _check_model(model)
    _check_theta("theta", model, theta)
    _check_labels("y", y, _check_inputs("x", model, theta, x))
    return _per_sample_grads(model, theta, x, y)


def _per_sample_grads(model: FlatModel, theta: Tensor, x: Tensor, y: Tensor) -> Tensor:
    """:func:`per_sample_grads` without the checks (the decomposition's per-step kernel)."""
    f = _single(model)
    target = lambda th, xi, yi: f(th, xi).gather(0, yi[None])[0]  # noqa: E731
    return vmap(grad(target), in_dims=(None, 0, 0))(theta, x, y)


def test_features(
    model: FlatModel,
    theta_a: Tensor,
    theta_b: Tensor,
    x: Tensor,
    nodes: int = 8,
    *,
    rule: str = "gauss",
) -> Tensor:
    """Test feature map ``Φ(x) = ∫₀¹ J(x; θ_a + t(θ_b − θ_a)) dt``, shape ``(T, C, P)``.

    Implements :prf:ref:`explaind-lem-step` by quadrature: ``rule="gauss"`` (Gauss–Legendre),
    ``"midpoint"`` (the paper code's rule) or ``"left"`` (``nodes`` must be 1: the tangent,
    NTK-style approximation ``J(x; θ_a)``).
    """
    model = _check_model(model)
    _check_theta("theta_a", model, theta_a)
    checks.tensor("theta_b", theta_b, floating=True)
    _check_theta("theta_b", model, theta_b)
    _check_inputs("x", model, theta_a, x)
    return _test_features(model, theta_a, theta_b, x, nodes, rule=rule)


def _test_features(
    model: FlatModel,
    theta_a: Tensor,
    theta_b: Tensor,
    x: Tensor,
    nodes: int = 8,
    *,
    rule: str = "gauss",
) -> Tensor:
    """:func:`test_features` without the tensor checks (the per-step kernel)."""
    nodes = checks.integer("nodes", nodes, low=1)
    if rule == "gauss":
        t, w = gauss_legendre(nodes, theta_a.dtype)
    elif rule == "midpoint":
        t = (torch.arange(nodes, dtype=theta_a.dtype) + 0.5) / nodes
        w = torch.full((nodes,), 1.0 / nodes, dtype=theta_a.dtype)
    elif rule == "left":
        if nodes != 1:
            raise ValueError(f"nodes must be 1 for the left-endpoint rule, got {nodes}")
        t, w = torch.zeros(1, dtype=theta_a.dtype), torch.ones(1, dtype=theta_a.dtype)
    else:
        raise ValueError(f"rule must be 'gauss', 'midpoint' or 'left', got {rule!r}")
    t, w = t.to(theta_a.device), w.to(theta_a.device)
    points = theta_a[None] + t[:, None] * (theta_b - theta_a)[None]
    jac = vmap(vmap(jacrev(_single(model)), in_dims=(None, 0)), in_dims=(0, None))(points, x)
    return torch.einsum("n,ntcp->tcp", w, jac)


# --- the decomposition ----------------------------------------------------------------------


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
    (:func:`test_features`, Gauss–Legendre with ``nodes`` nodes) meet the train features
    ``ψ_s(x_k) = α_s u_{k,s} / ((1 − β₁^{s+1})(√v̂_s + ε))`` built from a per-sample momentum
    buffer ``u`` of shape ``(M, P)`` (every sample decays by β₁ each step; batch members add
    ``(1 − β₁)∇ℓ_k / |B_s|``), plus the decay term ``−α_s λ Φ_s θ_s``. With
    ``per_sample=False`` the buffer is skipped and the kernel part uses the aggregated update
    (``data`` is then ``None``). ``variants`` maps names to ``(N, P)`` alternative updates
    (e.g. from :func:`adamw_updates`) whose per-step predicted changes are returned.
    """
    model = _check_model(model)
    traj = _check_traj(traj, model.spec.numel)
    x_train = _check_inputs("x_train", model, traj.thetas[0], x_train)
    _check_labels("y_train", y_train, x_train, "x_train")
    _check_inputs("x_test", model, traj.thetas[0], x_test)
    nodes = checks.integer("nodes", nodes, low=1)
    variants = _check_variants(variants, traj)
    b1, b2 = traj.betas
    lam, eps = traj.weight_decay, traj.eps
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
        bc1, bc2 = 1 - b1 ** (s + 1), 1 - b2 ** (s + 1)
        denom = traj.exp_avg_sq[s].sqrt() / math.sqrt(bc2) + eps
        decay_upd = -lr * lam * th
        if u is not None:
            _momentum_step(u, model, th, x_train, y_train, traj.batches[s], b1)
            psi = (lr / bc1) * u / denom  # (M, P)
            contrib = -torch.einsum("tcp,kp->tck", phi, psi)
            data = contrib if data is None else data + contrib
            grad_upd = -psi.sum(0)
            grad_steps.append(contrib.sum(-1))
        else:
            grad_upd = th_next - th - decay_upd
            grad_steps.append(torch.einsum("tcp,p->tc", phi, grad_upd))
        decay_steps.append(torch.einsum("tcp,p->tc", phi, decay_upd))
        total_upd = grad_upd + decay_upd
        groups.append(torch.einsum("tcp,p,pg->gtc", phi, total_upd, gm))
        train_abs = psi.abs().sum(0) if u is not None else grad_upd.abs()
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
    idx = torch.nonzero(prunable).squeeze(1)
    k = round(sparsity * idx.numel())
    keep = torch.ones_like(prunable)
    if k:
        drop = idx[torch.argsort(scores[idx], stable=True)[:k]]
        keep[drop] = False
    return keep
