"""One AdamW step, shared by the federated clients of chapter 17 and the recorded training
paths of chapter 18.

The update is ``torch.optim.AdamW``'s (Loshchilov and Hutter's decoupled weight decay): with
gradient ``g`` at step ``s`` (counted from 1),

``m ← β₁ m + (1 − β₁) g``, ``v ← β₂ v + (1 − β₂) g²``,
``θ ← θ (1 − α λ) − α (m / (1 − β₁ˢ)) / (√(v / (1 − β₂ˢ)) + ε)``,

the decay taken at the pre-update ``θ`` and ``ε`` added after the square root. It is the
update of :prf:ref:`threshold-watermark-def-fedavg` (every client's local step, chapter 17)
and of :prf:ref:`explaind-lem-adamw` (chapter 18). A batch of models is a leading axis of
every tensor: the step is elementwise, so one call updates all of them.

Every argument is checked before the state changes: a step that raises leaves ``state``
exactly as it was.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import torch

from icml26 import checks

__all__ = ["AdamWState", "adamw_step"]


@dataclass
class AdamWState:
    """First and second moments (one tensor per parameter tensor) and the step count.

    ``step`` counts the updates taken so far (0 before the first); a batch of models on a
    leading axis shares the count.
    """

    m: list[torch.Tensor]
    v: list[torch.Tensor]
    step: int = 0

    @classmethod
    def zeros_like(cls, params: Sequence[torch.Tensor]) -> AdamWState:
        """Zero moments shaped like ``params`` (a list of tensors), step 0."""
        params = _tensors("params", params)
        return cls([torch.zeros_like(p) for p in params], [torch.zeros_like(p) for p in params])


def _tensors(name: str, xs: object) -> list[torch.Tensor]:
    if not isinstance(xs, list | tuple) or len(xs) == 0:
        raise ValueError(f"{name} must be a non-empty list of tensors")
    return [checks.tensor(f"{name}[{i}]", x, floating=True) for i, x in enumerate(xs)]


def _check_like(name: str, xs: list[torch.Tensor], params: list[torch.Tensor]) -> None:
    if len(xs) != len(params):
        raise ValueError(f"{name} must hold {len(params)} tensors, got {len(xs)}")
    for i, (x, p) in enumerate(zip(xs, params, strict=True)):
        if x.shape != p.shape or x.dtype != p.dtype or x.device != p.device:
            raise ValueError(
                f"{name}[{i}] must match params[{i}] in shape, dtype and device: got "
                f"{tuple(x.shape)} {x.dtype} {x.device}, want {tuple(p.shape)} {p.dtype} "
                f"{p.device}"
            )


def adamw_step(
    params: Sequence[torch.Tensor],
    grads: Sequence[torch.Tensor],
    state: AdamWState,
    *,
    lr: float,
    weight_decay: float = 0.01,
    betas: tuple[float, float] = (0.9, 0.999),
    eps: float = 1e-8,
    check_finite: bool = True,
    inplace: bool = False,
) -> list[torch.Tensor]:
    """One AdamW step on every tensor of ``params``; returns the new parameters.

    ``params`` is not modified (with ``inplace=True`` it is updated in place and returned,
    as ``torch.optim.AdamW`` does; then no parameter may require grad while autograd is
    recording). ``state`` (moments and step count) is advanced in place, and only after
    every argument has been checked: ``lr``, ``weight_decay`` and ``eps`` must be
    finite and non-negative, each of ``betas`` in ``[0, 1)`` (as ``torch.optim.AdamW``
    requires), ``grads`` and the moments must match ``params`` in shape, dtype and device.
    With ``check_finite`` (the default) a NaN or infinite gradient or parameter is rejected;
    training loops that have checked their inputs pass ``False`` to avoid a device-to-host
    synchronisation per step, and then NaN propagates into the result as in torch.
    """
    params, grads = _tensors("params", params), _tensors("grads", grads)
    _check_like("grads", grads, params)
    if not isinstance(state, AdamWState):
        raise ValueError(f"state must be an AdamWState, got {type(state).__name__}")
    _check_like("state.m", _tensors("state.m", state.m), params)
    _check_like("state.v", _tensors("state.v", state.v), params)
    step = checks.integer("state.step", state.step, low=0) + 1
    lr = checks.real("lr", lr, low=0.0)
    wd = checks.real("weight_decay", weight_decay, low=0.0)
    if not isinstance(betas, tuple | list) or len(betas) != 2:
        raise ValueError(f"betas must be a pair (beta1, beta2), got {betas!r}")
    b1 = checks.real("betas[0]", betas[0], low=0.0)
    b2 = checks.real("betas[1]", betas[1], low=0.0)
    if b1 >= 1.0 or b2 >= 1.0:
        raise ValueError(f"betas must lie in [0, 1), got {tuple(betas)}")
    eps = checks.real("eps", eps, low=0.0)
    if not isinstance(check_finite, bool):
        raise ValueError(f"check_finite must be a bool, got {check_finite!r}")
    if not isinstance(inplace, bool):
        raise ValueError(f"inplace must be a bool, got {inplace!r}")
    if inplace and torch.is_grad_enabled() and any(p.requires_grad for p in params):
        raise ValueError("inplace=True needs torch.no_grad() for params that require grad")
    if check_finite:
        for i, (p, g) in enumerate(zip(params, grads, strict=True)):
            checks.finite(f"params[{i}]", p)
            checks.finite(f"grads[{i}]", g)
    c1, c2 = 1 - b1**step, 1 - b2**step
    # Every check has passed: from here on the state changes. The operations and their
    # order are torch.optim.AdamW's multi-tensor path, so that both round alike.
    state.step = step
    if inplace:
        out = list(params)
        torch._foreach_mul_(out, 1 - lr * wd)
    else:
        out = list(torch._foreach_mul(params, 1 - lr * wd))
    torch._foreach_lerp_(state.m, grads, 1 - b1)
    torch._foreach_mul_(state.v, b2)
    torch._foreach_addcmul_(state.v, grads, grads, value=1 - b2)
    denom = torch._foreach_sqrt(state.v)
    torch._foreach_div_(denom, math.sqrt(c2))
    torch._foreach_add_(denom, eps)
    torch._foreach_addcdiv_(out, state.m, denom, value=-lr / c1)
    return out
