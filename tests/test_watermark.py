"""Tests of icml26.trust.watermark (chapter 17): model, keys, detection, bad input."""

from __future__ import annotations

import math

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from icml26.pipeline.notebooks import notebook_functions
from icml26.trust import watermark as wm

detection_z_reference = notebook_functions("17-threshold-watermark", "detection_z_reference")[
    "detection_z_reference"
]


def small_mlp(seed: int = 0, dtype=torch.float64):
    return wm.init_mlp((6, 5, 4, 3), generator=torch.Generator().manual_seed(seed), dtype=dtype)


# --- model ---------------------------------------------------------------------------------


def test_init_and_logits_match_nn_linear_shapes() -> None:
    params = wm.init_mlp(generator=torch.Generator().manual_seed(0))
    assert [tuple(p.shape) for p in params] == [
        (64, 128),
        (128,),
        (128, 64),
        (64,),
        (64, 10),
        (10,),
    ]
    assert sum(p.numel() for p in params) == 17226
    assert float(params[0].abs().max()) <= 1 / 8
    batched = [p.expand(3, *p.shape) for p in params]
    X = torch.randn(3, 7, 64)
    assert torch.allclose(wm.logits(batched, X)[1], wm.logits(params, X[1]), atol=1e-6)


# --- keys and detection --------------------------------------------------------------------


def test_keys_are_unit_rademacher() -> None:
    params = small_mlp()
    keys = wm.random_keys(params, (4,), generator=torch.Generator().manual_seed(1))
    for p, k in zip(params, keys, strict=True):
        assert k.shape == (4, *p.shape)
        assert torch.allclose(k.flatten(1).norm(dim=1), torch.ones(4, dtype=k.dtype))
        assert set(torch.unique(torch.round(k * math.sqrt(p.numel()))).tolist()) <= {-1.0, 1.0}


def test_null_moments_exact_by_enumeration() -> None:
    """Var cos(θ, τ) = 1/d exactly: enumerate all 2^d sign vectors for d = 8."""
    theta = torch.tensor([0.3, -1.2, 2.0, 0.1, 0.0, -0.7, 0.5, 1.1], dtype=torch.float64)
    signs = torch.tensor(
        [[1 if (m >> i) & 1 else -1 for i in range(8)] for m in range(256)], dtype=torch.float64
    )
    cos = (signs @ theta) / (math.sqrt(8) * theta.norm())
    assert abs(float(cos.mean())) < 1e-15
    assert abs(float((cos**2).mean()) - 1 / 8) < 1e-15
    assert math.isclose(wm.null_sigma([8192, 8192, 640]), 0.014168, rel_tol=1e-4)


def test_detection_z_matches_reference_and_broadcasts() -> None:
    params = wm.init_mlp(generator=torch.Generator().manual_seed(0), dtype=torch.float64)
    key = wm.random_keys(params, generator=torch.Generator().manual_seed(1))
    marked = [p + 0.2 * k for p, k in zip(params, key, strict=True)]
    for mind in (1, 256):
        assert math.isclose(
            float(wm.detection_z(marked, key, min_dim=mind)),
            detection_z_reference(marked, key, mind),
            rel_tol=1e-10,
        )
    keys = wm.random_keys(params, (5,), generator=torch.Generator().manual_seed(2))
    z = wm.detection_z(params, keys)
    assert z.shape == (5,)
    one = [k[3] for k in keys]
    assert math.isclose(float(z[3]), float(wm.detection_z(params, one)), rel_tol=1e-10)
    traj = [torch.stack([p, 2 * p]) for p in params]  # rescaling does not change a cosine
    zz = wm.detection_z(traj, key)
    assert zz.shape == (2,) and math.isclose(float(zz[0]), float(zz[1]), rel_tol=1e-10)


def test_sign_z_null_variance_one() -> None:
    params = small_mlp()
    keys = wm.random_keys(params, (4000,), generator=torch.Generator().manual_seed(3))
    z = wm.sign_z(params, keys)
    assert abs(float(z.mean())) < 0.06 and abs(float(z.std()) - 1) < 0.05


@settings(max_examples=20, deadline=None)
@given(st.integers(1, 6), st.floats(0.1, 5.0))
def test_cosines_are_scale_invariant(batch: int, scale: float) -> None:
    params = [p.expand(batch, *p.shape) for p in small_mlp()]
    key = wm.random_keys(small_mlp(), generator=torch.Generator().manual_seed(0))
    a = wm.cosines(params, key)
    b = wm.cosines([scale * p for p in params], key)
    assert a.shape == (batch, 6) and torch.allclose(a, b, atol=1e-12)


# --- bad input -----------------------------------------------------------------------------


def test_bad_model_arguments() -> None:
    params = small_mlp()
    with pytest.raises(ValueError, match="sizes"):
        wm.init_mlp((4,))
    with pytest.raises(ValueError, match="params must"):
        wm.logits(params[:3], torch.randn(2, 6, dtype=torch.float64))
    with pytest.raises(ValueError, match="X has width"):
        wm.logits(params, torch.randn(2, 7, dtype=torch.float64))
    with pytest.raises(ValueError, match="y must have shape"):
        wm.client_losses(params, torch.randn(2, 6, dtype=torch.float64), torch.zeros(3).long())
    with pytest.raises(ValueError, match="mask"):
        wm.client_losses(
            params,
            torch.randn(1, 2, 6, dtype=torch.float64),
            torch.zeros(1, 2).long(),
            torch.ones(1, 3),
        )
    with pytest.raises(ValueError, match="X and y"):
        wm.accuracy(params, torch.randn(2, 6, dtype=torch.float64), torch.zeros(3).long())
    with pytest.raises(ValueError, match=r"params\[1\] must have the width"):
        wm.logits([params[0], params[1][:-1], *params[2:]], torch.randn(2, 6, dtype=torch.float64))
    with pytest.raises(ValueError, match=r"params\[2\] must take the width"):
        wm.logits(
            [*params[:2], params[2][:-1], *params[3:]], torch.randn(2, 6, dtype=torch.float64)
        )


def test_bad_detection_arguments() -> None:
    params = small_mlp()
    key = wm.random_keys(params)
    with pytest.raises(ValueError, match="key must have"):
        wm.cosines(params, key[:4])
    with pytest.raises(ValueError, match="key\\[0\\] has layer shape"):
        wm.cosines(params, [torch.ones(7, 5, dtype=torch.float64), *key[1:]])
    with pytest.raises(ValueError, match="min_dim"):
        wm.detection_z(params, key, min_dim=10_000)
    with pytest.raises(ValueError, match="dims"):
        wm.null_sigma([])
    with pytest.raises(ValueError, match="dims\\[1\\]"):
        wm.null_sigma([3, 0])
    with pytest.raises(ValueError, match="batch"):
        wm.random_keys(params, (0,))


def test_secure_keys_are_unit_rademacher_and_fresh() -> None:
    """The CSPRNG path: same shapes and norms as the seeded keys, a new key every call."""
    params = small_mlp()
    a = wm.random_keys(params, (3,), secure=True)
    b = wm.random_keys(params, (3,), secure=True)
    for x, k in zip(params, a, strict=True):
        d = x.numel()
        assert k.shape == (3, *x.shape) and k.dtype == x.dtype
        assert torch.allclose(k.abs(), torch.full_like(k, 1 / math.sqrt(d)))
    assert any(not torch.equal(x, y) for x, y in zip(a, b, strict=True))
    big = [torch.zeros(80, 50), torch.zeros(50)]
    signs = torch.cat([k.flatten() for k in wm.random_keys(big, secure=True)])
    assert abs(float((signs > 0).double().mean()) - 0.5) < 0.05  # 6 sd of a fair coin
    with pytest.raises(ValueError, match="not both"):
        wm.random_keys(params, secure=True, generator=torch.Generator())
    with pytest.raises(ValueError, match="secure"):
        wm.random_keys(params, secure=1)


def test_detection_rejects_nan() -> None:
    params = small_mlp()
    key = wm.random_keys(params, generator=torch.Generator().manual_seed(0))
    bad = [params[0] * float("nan"), *params[1:]]
    with pytest.raises(ValueError, match="params"):
        wm.detection_z(bad, key, min_dim=1)
    with pytest.raises(ValueError, match="params"):
        wm.sign_z(bad, key)
    with pytest.raises(ValueError, match="key"):
        wm.cosines(params, [key[0] * float("inf"), *key[1:]])
