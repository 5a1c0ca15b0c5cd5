"""Argument validation shared by every chapter's kernels.

Each helper raises ``ValueError`` with a message that names the offending argument, so that
bad input fails early and readably instead of deep inside a kernel.
"""

from __future__ import annotations

from collections.abc import Sequence
from numbers import Integral, Real
from typing import SupportsFloat, cast

import numpy as np
import torch

__all__ = [
    "agree",
    "as_float64",
    "finite",
    "integer",
    "probability_vector",
    "real",
    "shape",
    "stochastic_matrix",
    "tensor",
    "unit_rows",
]

ArrayLike = np.ndarray | torch.Tensor


def integer(name: str, value: object, *, low: int | None = None, high: int | None = None) -> int:
    """``value`` as an ``int`` with ``low <= value <= high``."""
    if isinstance(value, bool) or not isinstance(value, Integral):
        raise ValueError(f"{name} must be an integer, got {value!r}")
    v = int(value)
    if low is not None and v < low:
        raise ValueError(f"{name} must be >= {low}, got {v}")
    if high is not None and v > high:
        raise ValueError(f"{name} must be <= {high}, got {v}")
    return v


def real(
    name: str,
    value: object,
    *,
    low: float | None = None,
    high: float | None = None,
    strict: bool = False,
) -> float:
    """``value`` as a finite ``float`` in ``[low, high]`` (open interval with ``strict``)."""
    if isinstance(value, bool) or not isinstance(value, Real):
        if hasattr(value, "item") and getattr(value, "ndim", 1) == 0:
            value = value.item()
        else:
            raise ValueError(f"{name} must be a real number, got {value!r}")
    v = float(cast(SupportsFloat, value))
    if not np.isfinite(v):
        raise ValueError(f"{name} must be finite, got {v}")
    if low is not None and (v <= low if strict else v < low):
        raise ValueError(f"{name} must be {'>' if strict else '>='} {low}, got {v}")
    if high is not None and (v >= high if strict else v > high):
        raise ValueError(f"{name} must be {'<' if strict else '<='} {high}, got {v}")
    return v


def shape(name: str, x: ArrayLike, expected: Sequence[int | None]) -> None:
    """``x`` has ``len(expected)`` dimensions, each equal to the expected size (``None``: any)."""
    if not hasattr(x, "shape"):
        raise ValueError(f"{name} must be an array or tensor, got {type(x).__name__}")
    got = tuple(x.shape)
    if len(got) != len(expected) or any(
        e is not None and g != e for g, e in zip(got, expected, strict=True)
    ):
        want = "(" + ", ".join("*" if e is None else str(e) for e in expected) + ")"
        raise ValueError(f"{name} must have shape {want}, got {got}")


def finite(name: str, x: ArrayLike) -> None:
    """Every entry of ``x`` is finite."""
    if isinstance(x, torch.Tensor):
        ok = bool(torch.isfinite(x).all().item())
    else:
        ok = bool(np.isfinite(as_float64(name, x)).all())
    if not ok:
        raise ValueError(f"{name} must contain only finite values")


def as_float64(name: str, x: object) -> np.ndarray:
    """``x`` (a tensor, array or nested sequence of numbers) as a float64 NumPy array."""
    if isinstance(x, torch.Tensor):
        return x.detach().to("cpu", torch.float64).numpy()
    try:
        return np.asarray(x, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be an array of numbers, got {type(x).__name__}") from None


def probability_vector(name: str, p: ArrayLike, *, atol: float = 1e-6) -> None:
    """``p`` (last axis) is non-negative and sums to one."""
    a = as_float64(name, p)
    if a.ndim < 1 or a.shape[-1] == 0:
        raise ValueError(f"{name} must be a non-empty probability vector, got shape {a.shape}")
    if not np.isfinite(a).all() or (a < -atol).any():
        raise ValueError(f"{name} must have non-negative finite entries")
    if not np.allclose(a.sum(axis=-1), 1.0, atol=atol):
        raise ValueError(f"{name} must sum to one along its last axis")


def stochastic_matrix(name: str, P: ArrayLike, *, atol: float = 1e-6) -> None:
    """``P`` is square (in its last two axes), non-negative, with rows summing to one."""
    a = as_float64(name, P)
    if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
        raise ValueError(f"{name} must be a square matrix, got shape {a.shape}")
    probability_vector(name, a, atol=atol)


def unit_rows(name: str, X: ArrayLike, *, atol: float = 1e-6) -> None:
    """Every row of ``X`` (last axis) has Euclidean norm one."""
    a = as_float64(name, X)
    norms = np.linalg.norm(a, axis=-1)
    if not np.allclose(norms, 1.0, atol=atol):
        worst = float(np.max(np.abs(norms - 1.0)))
        raise ValueError(f"{name} must have unit-norm rows (largest deviation {worst:.3g})")


def tensor(
    name: str,
    x: object,
    *,
    ndim: int | None = None,
    dtype: torch.dtype | None = None,
    floating: bool = False,
) -> torch.Tensor:
    """``x`` is a ``torch.Tensor`` (with ``ndim`` dimensions, of ``dtype``, or floating point)."""
    if not isinstance(x, torch.Tensor):
        raise ValueError(f"{name} must be a torch.Tensor, got {type(x).__name__}")
    if ndim is not None and x.ndim != ndim:
        raise ValueError(f"{name} must have {ndim} dimensions, got shape {tuple(x.shape)}")
    if dtype is not None and x.dtype != dtype:
        raise ValueError(f"{name} must have dtype {dtype}, got {x.dtype}")
    if floating and not x.is_floating_point():
        raise ValueError(f"{name} must be a floating-point tensor, got {x.dtype}")
    return x


def agree(name: str, got: object, want: object, *, atol: float = 1e-8, rtol: float = 1e-6) -> float:
    """Assert that two implementations agree; return the largest absolute difference.

    This is the assertion of an Implementation or Cross-check section (a kernel against the
    notebook's readable reference, or against an established library); it is never a claim.
    Raises ``AssertionError`` naming ``name`` and the worst entry when they differ.
    """
    a, b = as_float64("got", got), as_float64("want", want)
    if a.shape != b.shape:
        raise AssertionError(f"{name}: shapes differ, {a.shape} vs {b.shape}")
    if a.size == 0:
        return 0.0
    diff = np.abs(a - b)
    bad = ~(diff <= atol + rtol * np.abs(b))
    if bad.any():
        i = np.unravel_index(int(np.argmax(np.where(bad, diff, -1.0))), a.shape)
        raise AssertionError(
            f"{name}: implementations disagree at {tuple(int(j) for j in i)}: "
            f"{a[i]!r} vs {b[i]!r} (atol {atol}, rtol {rtol})"
        )
    return float(diff.max())
