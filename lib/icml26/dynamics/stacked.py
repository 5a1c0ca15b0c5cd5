"""Stacked networks: several independent small models trained as one (chapter 05).

Chapter 05 compares five latent drivers, each trained from five seeds and in several
variants, until their validation losses stop improving. Each model is small, so a training
step costs little arithmetic and many operator calls; training the models one after the
other would spend the budget on call overhead. A *stacked* layer holds the parameters of
``M`` independent **members** along a leading axis and evaluates all of them with one
batched matrix product (``torch.baddbmm``), so that ``M`` models cost a few calls:

- :class:`StackedLinear`, :class:`StackedGRUCell` — ``torch.nn.Linear`` and
  ``torch.nn.GRUCell`` with a member axis (same initialisation law, same equations);
- :func:`member_generators` — one random stream per member, so that a member's initial
  weights depend on its seed only (two variants with the same seed start from the same
  weights, which pairs their comparison);
- :func:`clip_member_grad_norm_` — gradient clipping member by member;
- :class:`EarlyStopping` — per-member early stopping on a validation loss, keeping each
  member's best checkpoint;
- :func:`round_to_grid_` — parameters rounded to a fixed grid after each step, so that a
  training run does not amplify the last bits of floating point;
- :func:`training_state`, :func:`load_training_state` — the whole state of a training loop,
  for a paper-scale run that must resume after an interruption (:mod:`icml26.resume`).

AdamW acts entry by entry, so one optimiser over stacked parameters updates every member
exactly as its own optimiser would. Every parameter of a stacked module has the member axis
first; inputs are ``(M, ..., features)``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Any

import torch
from torch import Tensor, nn

from icml26 import checks

__all__ = [
    "EarlyStopping",
    "StackedGRUCell",
    "StackedLinear",
    "clip_member_grad_norm_",
    "load_training_state",
    "member_flags",
    "member_generators",
    "normal",
    "parameter_count",
    "round_to_grid_",
    "training_state",
    "uniform",
]

Generators = Sequence[torch.Generator | None]
_STOPPER_KEYS = ("best_state", "best", "best_step", "stop_step", "wait", "history")


def member_generators(seeds: Sequence[int]) -> list[torch.Generator]:
    """One CPU generator per member, seeded with ``seeds[m]`` (non-negative integers)."""
    if isinstance(seeds, str | bytes) or not isinstance(seeds, Sequence) or not seeds:
        raise ValueError(f"seeds must be a non-empty sequence of integers, got {seeds!r}")
    return [
        torch.Generator().manual_seed(checks.integer(f"seeds[{i}]", s, low=0))
        for i, s in enumerate(seeds)
    ]


def member_flags(name: str, value: bool | Sequence[bool], members: int) -> list[bool]:
    """A per-member switch: one bool for every member, or a sequence of one per member."""
    m = checks.integer("members", members, low=1)
    if isinstance(value, bool):
        return [value] * m
    if isinstance(value, str) or not isinstance(value, Sequence) or len(value) != m:
        raise ValueError(f"{name} must be a bool or a sequence of {m} bools, got {value!r}")
    if not all(isinstance(v, bool) for v in value):
        raise ValueError(f"{name} must hold bools, got {value!r}")
    return list(value)


def _generators(generators: Generators) -> list[torch.Generator | None]:
    if isinstance(generators, torch.Generator) or not isinstance(generators, Sequence):
        raise ValueError("generators must be a sequence with one generator (or None) per member")
    if not generators:
        raise ValueError("generators must not be empty")
    for i, g in enumerate(generators):
        if g is not None and not isinstance(g, torch.Generator):
            raise ValueError(f"generators[{i}] must be a torch.Generator or None")
    return list(generators)


def uniform(generators: Generators, shape: Sequence[int], bound: float) -> Tensor:
    """``U(-bound, bound)`` draws of ``shape`` per member, stacked: ``(M, *shape)``.

    Member ``m`` draws from ``generators[m]`` (``None``: torch's global generator), so its
    values do not depend on the other members. The draws are made in float64 and rounded to
    the default dtype, so that they do not depend on the machine's vectorised ``log`` and
    ``cos`` (which a float32 normal draw uses) beyond the last bits of float64.
    """
    gens = _generators(generators)
    b = checks.real("bound", bound, low=0.0)
    f64 = torch.float64
    draws = [(2 * torch.rand(tuple(shape), generator=g, dtype=f64) - 1) * b for g in gens]
    return torch.stack(draws).to(torch.get_default_dtype())


def normal(generators: Generators, shape: Sequence[int], std: float) -> Tensor:
    """``N(0, std²)`` draws of ``shape`` per member, stacked: ``(M, *shape)``.

    Member ``m`` draws from ``generators[m]``, as in :func:`uniform`.
    """
    gens = _generators(generators)
    s = checks.real("std", std, low=0.0)
    draws = [torch.randn(tuple(shape), generator=g, dtype=torch.float64) * s for g in gens]
    return torch.stack(draws).to(torch.get_default_dtype())


def parameter_count(module: nn.Module) -> int:
    """Parameters of one member of a stacked ``module`` (every parameter has the member axis
    first, of the same length)."""
    params = list(module.parameters())
    if not params:
        raise ValueError("module must have parameters")
    members = params[0].shape[0] if params[0].ndim else 0
    if members < 1 or any(p.ndim < 1 or p.shape[0] != members for p in params):
        raise ValueError("every parameter of module must have the same member axis first")
    return sum(p.numel() for p in params) // members


class StackedLinear(nn.Module):
    """``M`` independent ``torch.nn.Linear`` layers: ``x (M, ..., in) → (M, ..., out)``.

    Initialised like ``nn.Linear`` (weight and bias ``U(-1/√in, 1/√in)``), member ``m`` from
    ``generators[m]``. ``weight`` is stored ``(M, in, out)``, so ``y = x @ weight + bias``.
    """

    def __init__(self, in_features: int, out_features: int, generators: Generators) -> None:
        super().__init__()
        gens = _generators(generators)
        self.in_features = checks.integer("in_features", in_features, low=1)
        self.out_features = checks.integer("out_features", out_features, low=1)
        self.members = len(gens)
        bound = 1.0 / math.sqrt(self.in_features)
        self.weight = nn.Parameter(uniform(gens, (in_features, out_features), bound))
        self.bias = nn.Parameter(uniform(gens, (1, out_features), bound))

    def forward(self, x: Tensor) -> Tensor:
        """Each member's affine map: ``x (M, ..., in)`` → ``(M, ..., out)``."""
        if x.ndim < 2 or x.shape[0] != self.members or x.shape[-1] != self.in_features:
            raise ValueError(
                f"x must have shape ({self.members}, ..., {self.in_features}), got {tuple(x.shape)}"
            )
        flat = x.reshape(self.members, -1, self.in_features)
        out = torch.baddbmm(self.bias, flat, self.weight)
        return out.reshape(*x.shape[:-1], self.out_features)


class StackedGRUCell(nn.Module):
    """``M`` independent ``torch.nn.GRUCell`` s: ``(x (M, N, in), h (M, N, H)) → (M, N, H)``.

    The equations of ``torch.nn.GRUCell`` (gates in the order reset, update, new)::

        r = σ(x W_ir + b_ir + h W_hr + b_hr),  u = σ(x W_iu + b_iu + h W_hu + b_hu),
        n = tanh(x W_in + b_in + r ⊙ (h W_hn + b_hn)),  h' = (1 - u) ⊙ n + u ⊙ h,

    with its initialisation ``U(-1/√H, 1/√H)``. :meth:`input_part` computes the input's
    contribution for many steps at once (an encoder's whole sequence in one product).
    """

    def __init__(self, input_size: int, hidden_size: int, generators: Generators) -> None:
        super().__init__()
        gens = _generators(generators)
        self.input_size = checks.integer("input_size", input_size, low=1)
        self.hidden_size = h = checks.integer("hidden_size", hidden_size, low=1)
        self.members = len(gens)
        bound = 1.0 / math.sqrt(h)
        self.weight_ih = nn.Parameter(uniform(gens, (input_size, 3 * h), bound))
        self.weight_hh = nn.Parameter(uniform(gens, (h, 3 * h), bound))
        self.bias_ih = nn.Parameter(uniform(gens, (1, 3 * h), bound))
        self.bias_hh = nn.Parameter(uniform(gens, (1, 3 * h), bound))

    def input_part(self, x: Tensor) -> Tensor:
        """``x W_i + b_i`` for ``x (M, ..., in)`` → ``(M, ..., 3H)``."""
        if x.ndim < 2 or x.shape[0] != self.members or x.shape[-1] != self.input_size:
            raise ValueError(
                f"x must have shape ({self.members}, ..., {self.input_size}), got {tuple(x.shape)}"
            )
        flat = x.reshape(self.members, -1, self.input_size)
        return torch.baddbmm(self.bias_ih, flat, self.weight_ih).reshape(
            *x.shape[:-1], 3 * self.hidden_size
        )

    def step(self, gi: Tensor, h: Tensor) -> Tensor:
        """One update from a precomputed input part ``gi (M, N, 3H)`` and ``h (M, N, H)``."""
        gh = torch.baddbmm(self.bias_hh, h, self.weight_hh)
        ir, iu, i_n = gi.chunk(3, dim=-1)
        hr, hu, h_n = gh.chunk(3, dim=-1)
        r = torch.sigmoid(ir + hr)
        u = torch.sigmoid(iu + hu)
        n = torch.tanh(i_n + r * h_n)
        return n + u * (h - n)

    def forward(self, x: Tensor, h: Tensor) -> Tensor:
        """One step: ``x (M, N, in)``, ``h (M, N, H)`` → ``h' (M, N, H)``."""
        gi = self.input_part(x)
        checks.shape("h", h, (*gi.shape[:-1], self.hidden_size))
        return self.step(gi, h)


def clip_member_grad_norm_(params: Iterable[Tensor], max_norm: float) -> Tensor:
    """Clip the gradient of each member to Euclidean norm ``max_norm``; return the norms.

    ``torch.nn.utils.clip_grad_norm_`` applied member by member: the norm of member ``m``
    is taken over ``p.grad[m]`` of every parameter ``p`` (member axis first). A per-step
    kernel of the training loop: non-finite gradients propagate (no host synchronisation).
    """
    limit = checks.real("max_norm", max_norm, low=0.0, strict=True)
    params = list(params)
    if not all(isinstance(p, Tensor) for p in params):
        raise ValueError("params must be tensors")
    grads = [p.grad for p in params if p.grad is not None]
    if not grads:
        raise ValueError("params must hold at least one parameter with a gradient")
    members = grads[0].shape[0]
    if any(g.ndim < 1 or g.shape[0] != members for g in grads):
        raise ValueError("every gradient must have the same member axis first")
    sq = torch.stack([g.pow(2).reshape(members, -1).sum(1) for g in grads]).sum(0)
    norm = sq.sqrt()
    scale = (limit / (norm + 1e-6)).clamp(max=1.0)
    for g in grads:
        g.mul_(scale.view(members, *([1] * (g.ndim - 1))))
    return norm


@torch.no_grad()
def round_to_grid_(params: Iterable[Tensor], bits: int) -> None:
    """Round every parameter to the nearest multiple of ``2**-bits``, in place.

    Training a network is chaotic: two runs whose arithmetic differs in the last bit (another
    CPU's vectorised ``exp`` or summation order) drift apart exponentially and end at other
    weights. Rounding the iterates to a grid after every optimiser step puts both runs back
    on the same point unless a value lies within their difference (about ``1e-16``
    relative) of a rounding boundary, which happens with probability about
    ``1e-16 * 2**bits`` per value and step. The rounding itself is exact in floating point
    (a scaling by a power of two and ``round``), so it computes the same on every machine.
    ``bits`` is an integer in ``[1, 50]``; the grid must be fine compared with the
    optimiser's steps (``2**-bits`` far below the learning rate). A per-step kernel of the
    training loop: elementwise, NaN and inf pass through unchanged (no host synchronisation).
    """
    b = checks.integer("bits", bits, low=1, high=50)
    params = list(params)
    if not all(isinstance(p, Tensor) and p.is_floating_point() for p in params):
        raise ValueError("params must be floating-point tensors")
    scale = float(2**b)
    for p in params:
        p.mul_(scale).round_().div_(scale)


class EarlyStopping:
    """Per-member early stopping with patience, for a stacked module.

    After each evaluation, :meth:`update` receives the validation loss of every member. A
    member *improves* when its loss falls below ``(1 - min_delta)`` times its best so far;
    its parameters are then copied into its checkpoint. A member that has not improved for
    ``patience`` consecutive evaluations *stops*: its checkpoint is final, whatever later
    steps do. :meth:`restore` loads every member's checkpoint into the module. The module
    may go on training stopped members alongside the others (their updates are discarded):
    the result is exactly that of stopping each one separately.
    """

    def __init__(self, module: nn.Module, patience: int, *, min_delta: float = 1e-3) -> None:
        self.patience = checks.integer("patience", patience, low=1)
        self.min_delta = checks.real("min_delta", min_delta, low=0.0, high=1.0)
        self.params = dict(module.named_parameters())
        if not self.params:
            raise ValueError("module must have parameters")
        sizes = {p.shape[0] if p.ndim else 0 for p in self.params.values()}
        if len(sizes) != 1 or 0 in sizes:
            raise ValueError("every parameter of module must have the same member axis first")
        self.members = sizes.pop()
        self.best_state = {k: p.detach().clone() for k, p in self.params.items()}
        self.best = torch.full((self.members,), math.inf, dtype=torch.float64)
        self.best_step = torch.zeros(self.members, dtype=torch.long)
        self.stop_step = torch.full((self.members,), -1, dtype=torch.long)
        self.wait = torch.zeros(self.members, dtype=torch.long)
        self.history: list[tuple[int, Tensor]] = []

    @property
    def active(self) -> Tensor:
        """Members still training, ``(M,)`` bool."""
        return self.stop_step < 0

    def update(self, step: int, losses: Tensor) -> bool:
        """Record the validation ``losses (M,)`` at ``step``; ``True`` while a member is active."""
        k = checks.integer("step", step, low=0)
        checks.shape("losses", losses, (self.members,))
        checks.finite("losses", losses)
        loss = losses.detach().to("cpu", torch.float64)
        self.history.append((k, loss))
        active = self.active
        better = active & (loss < (1.0 - self.min_delta) * self.best)
        if better.any():
            for name, p in self.params.items():
                self.best_state[name][better] = p.detach()[better]
        self.best = torch.where(better, loss, self.best)
        self.best_step = torch.where(better, torch.tensor(k), self.best_step)
        self.wait = torch.where(better, 0, self.wait + active.long())
        newly = active & (self.wait >= self.patience)
        self.stop_step = torch.where(newly, torch.tensor(k), self.stop_step)
        return bool(self.active.any())

    @torch.no_grad()
    def restore(self) -> None:
        """Load every member's best checkpoint into the module's parameters."""
        for name, p in self.params.items():
            p.copy_(self.best_state[name])

    def state_dict(self) -> dict[str, Any]:
        """Everything :meth:`update` has accumulated (copies): with :meth:`load_state_dict`,
        an interrupted run resumes exactly where it stopped."""
        return {
            "best_state": {k: v.clone() for k, v in self.best_state.items()},
            "best": self.best.clone(),
            "best_step": self.best_step.clone(),
            "stop_step": self.stop_step.clone(),
            "wait": self.wait.clone(),
            "history": [(k, v.clone()) for k, v in self.history],
        }

    def load_state_dict(self, state: dict[str, Any]) -> None:
        """Restore what :meth:`state_dict` returned, for a module of the same shapes."""
        if not isinstance(state, dict) or set(state) != set(_STOPPER_KEYS):
            raise ValueError("state must be a dict returned by EarlyStopping.state_dict()")
        best_state = state["best_state"]
        if not isinstance(best_state, dict) or set(best_state) != set(self.params):
            raise ValueError("state['best_state'] must name the module's parameters")
        for k, v in best_state.items():
            checks.shape(f"state['best_state'][{k!r}]", v, tuple(self.params[k].shape))
        for k in ("best", "best_step", "stop_step", "wait"):
            checks.shape(f"state[{k!r}]", state[k], (self.members,))
        self.best_state = {k: v.clone() for k, v in best_state.items()}
        self.best = state["best"].clone()
        self.best_step = state["best_step"].clone()
        self.stop_step = state["stop_step"].clone()
        self.wait = state["wait"].clone()
        self.history = [(int(k), v.clone()) for k, v in state["history"]]

    def curves(self) -> tuple[Tensor, Tensor]:
        """The recorded evaluations: steps ``(E,)`` and validation losses ``(E, M)``."""
        if not self.history:
            raise ValueError("no evaluation recorded yet: call update() first")
        steps = torch.tensor([s for s, _ in self.history])
        return steps, torch.stack([v for _, v in self.history])


def training_state(
    step: int,
    *,
    model: nn.Module,
    optimizer: torch.optim.Optimizer,
    averaged: nn.Module,
    stoppers: dict[str, EarlyStopping],
    generators: Sequence[torch.Generator],
) -> dict[str, Any]:
    """Everything a stacked training loop carries from one step to the next, before ``step``:
    the weights, the optimiser's moments, the averaged weights, the early-stopping records
    and the members' random streams (for :class:`icml26.resume.Checkpoint`)."""
    return {
        "step": checks.integer("step", step, low=0),
        "model": model.state_dict(),
        "optimizer": optimizer.state_dict(),
        "averaged": averaged.state_dict(),
        "stoppers": {k: s.state_dict() for k, s in stoppers.items()},
        "generators": [g.get_state() for g in generators],
    }


def load_training_state(
    state: dict[str, Any],
    *,
    model: nn.Module,
    optimizer: torch.optim.Optimizer,
    averaged: nn.Module,
    stoppers: dict[str, EarlyStopping],
    generators: Sequence[torch.Generator],
) -> int:
    """Restore what :func:`training_state` saved into freshly built objects of the same
    shapes; returns the step the loop resumes at."""
    need = {"step", "model", "optimizer", "averaged", "stoppers", "generators"}
    if not isinstance(state, dict) or set(state) != need:
        raise ValueError("state must be a dict returned by training_state()")
    if set(state["stoppers"]) != set(stoppers):
        raise ValueError(
            f"state holds stoppers {sorted(state['stoppers'])}, not {sorted(stoppers)}"
        )
    if len(state["generators"]) != len(generators):
        raise ValueError(
            f"state holds {len(state['generators'])} generators, not {len(generators)}"
        )
    model.load_state_dict(state["model"])
    optimizer.load_state_dict(state["optimizer"])
    averaged.load_state_dict(state["averaged"])
    for k, s in stoppers.items():
        s.load_state_dict(state["stoppers"][k])
    for g, g_state in zip(generators, state["generators"], strict=True):
        g.set_state(g_state)
    return int(state["step"])
