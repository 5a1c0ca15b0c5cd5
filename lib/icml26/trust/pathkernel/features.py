"""The features of the path kernel (chapter 18, explaind).

Per-sample gradients with ``torch.func.vmap`` (:func:`per_sample_grads`) and the path-integrated
test feature map of :prf:ref:`explaind-lem-step` (:func:`test_features`, on the Gauss–Legendre
nodes of :func:`gauss_legendre`).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import torch
from torch.func import grad, jacrev, vmap

from icml26 import checks
from icml26.trust.flatmodels import FlatModel
from icml26.trust.pathkernel.trajectory import (
    _check_inputs,
    _check_labels,
    _check_model,
    _check_theta,
)

Tensor = torch.Tensor

__all__ = [
    "gauss_legendre",
    "per_sample_grads",
    "test_features",
]


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
