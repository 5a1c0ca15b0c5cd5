"""Argument validation helpers (lib/icml26/checks.py)."""

import numpy as np
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

from icml26 import checks


@given(st.integers(min_value=-100, max_value=0))
def test_integer_below_low(v):
    with pytest.raises(ValueError, match="k must be >= 1"):
        checks.integer("k", v, low=1)


@pytest.mark.parametrize("v", [1.0, "3", True, None])
def test_integer_type(v):
    with pytest.raises(ValueError, match="m must be an integer"):
        checks.integer("m", v)


def test_integer_accepts_numpy_and_bounds():
    assert checks.integer("d", np.int64(4), low=1, high=4) == 4
    with pytest.raises(ValueError, match="d must be <= 3"):
        checks.integer("d", 4, high=3)


def test_real():
    assert checks.real("eps", np.float32(0.5), low=0, high=1) == 0.5
    assert checks.real("eps", torch.tensor(0.25), low=0) == 0.25
    with pytest.raises(ValueError, match="eps must be > 0"):
        checks.real("eps", 0.0, low=0.0, strict=True)
    with pytest.raises(ValueError, match="eps must be finite"):
        checks.real("eps", float("inf"))
    with pytest.raises(ValueError, match="lr must be a real number"):
        checks.real("lr", "0.1")


def test_shape_and_finite():
    checks.shape("X", torch.zeros(3, 4), (3, None))
    with pytest.raises(ValueError, match=r"X must have shape \(3, 5\), got \(3, 4\)"):
        checks.shape("X", np.zeros((3, 4)), (3, 5))
    with pytest.raises(ValueError, match="A must contain only finite"):
        checks.finite("A", torch.tensor([1.0, float("nan")]))


@given(st.integers(min_value=2, max_value=6), st.integers(min_value=0, max_value=2**16))
def test_stochastic_matrix_accepts_random_stochastic(n, seed):
    P = np.random.default_rng(seed).dirichlet(np.ones(n), size=n)
    checks.stochastic_matrix("P", P)
    checks.stochastic_matrix("P", torch.as_tensor(P))


def test_stochastic_matrix_rejections():
    with pytest.raises(ValueError, match="P must be a square matrix"):
        checks.stochastic_matrix("P", np.ones((2, 3)) / 3)
    with pytest.raises(ValueError, match="P must sum to one"):
        checks.stochastic_matrix("P", np.eye(2) * 0.5)
    with pytest.raises(ValueError, match="P must have non-negative"):
        checks.stochastic_matrix("P", np.array([[1.5, -0.5], [0.5, 0.5]]))
    with pytest.raises(ValueError, match="p must be a non-empty"):
        checks.probability_vector("p", np.array([]))


def test_unit_rows():
    X = np.random.default_rng(0).normal(size=(5, 3))
    checks.unit_rows("X", X / np.linalg.norm(X, axis=1, keepdims=True))
    with pytest.raises(ValueError, match="X must have unit-norm rows"):
        checks.unit_rows("X", X)
