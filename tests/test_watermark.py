"""Tests of icml26.trust.watermark (chapter 17): model, keys, detection, FedAvg, bad input."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from icml26.pipeline.notebooks import notebook_functions
from icml26.trust import watermark as wm

_REF = notebook_functions(
    "17-threshold-watermark", "detection_z_reference", "fedavg_round_reference"
)
detection_z_reference = _REF["detection_z_reference"]
fedavg_round_reference = _REF["fedavg_round_reference"]


@pytest.fixture(scope="module")
def data():
    return wm.digits_data(0.2, seed=0)


def small_mlp(seed: int = 0, dtype=torch.float64):
    return wm.init_mlp((6, 5, 4, 3), generator=torch.Generator().manual_seed(seed), dtype=dtype)


# --- data, partitions, model ---------------------------------------------------------------


def test_digits_data_shapes_and_standardisation(data) -> None:
    Xtr, ytr, Xte, _ = data
    assert Xtr.shape == (1437, 64) and Xte.shape == (360, 64)
    assert ytr.dtype == torch.int64 and set(ytr.tolist()) == set(range(10))
    assert float(Xtr.mean(0).abs().max()) < 1e-4


def test_partitions() -> None:
    idx = wm.iid_partition(103, 10, generator=torch.Generator().manual_seed(0))
    assert idx.shape == (10, 10) and len(set(idx.flatten().tolist())) == 100
    y = np.repeat(np.arange(5), 40)
    shards = wm.dirichlet_partition(y, 8, 0.5, np.random.default_rng(0), min_size=3)
    assert sum(len(s) for s in shards) == 200 and min(len(s) for s in shards) >= 3
    assert len(np.unique(np.concatenate(shards))) == 200
    pidx, mask = wm.pad_shards(shards)
    assert pidx.shape == (8, max(len(s) for s in shards))
    assert mask.sum(1).tolist() == [float(len(s)) for s in shards]


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


# --- training ------------------------------------------------------------------------------


def test_adamw_matches_torch() -> None:
    params = small_mlp()
    grads = [torch.randn_like(p) for p in params]
    ref = [p.clone().requires_grad_(True) for p in params]
    opt = torch.optim.AdamW(ref, lr=0.01, weight_decay=0.1)
    state = wm.AdamWState.zeros_like(params)
    cur = params
    for _ in range(3):
        for r, g in zip(ref, grads, strict=True):
            r.grad = g.clone()
        opt.step()
        cur = wm.adamw_step(cur, grads, state, lr=0.01, weight_decay=0.1)
    for a, b in zip(cur, ref, strict=True):
        assert torch.allclose(a, b.detach(), atol=1e-14)


def test_fedavg_round_matches_notebook_reference(data) -> None:
    Xtr, ytr, _, _ = data
    X = Xtr[:240].double()
    y = ytr[:240]
    params = wm.init_mlp(generator=torch.Generator().manual_seed(0), dtype=torch.float64)
    key = wm.random_keys(params, generator=torch.Generator().manual_seed(1))
    shards = wm.iid_partition(240, 6, generator=torch.Generator().manual_seed(2))
    got = wm.fedavg(X, y, shards, None, params, rounds=1, lr=3e-3, strength=1.0, key=key)
    want = fedavg_round_reference(params, X, y, list(shards), key, 1.0, 3e-3, 0.01)
    for a, b in zip(got.params, want, strict=True):
        assert torch.allclose(a, b, atol=1e-12)
    assert got.trajectory[0].shape == (2, 64, 128) and got.strengths.shape == (1, 6, 6)


def test_fedavg_equals_large_batch_step_without_watermark(data) -> None:
    """Equal shards, one AdamW step from zero state: FedAvg = mean of per-client steps."""
    Xtr, ytr, _, _ = data
    X, y = Xtr[:120].double(), ytr[:120]
    params = wm.init_mlp(generator=torch.Generator().manual_seed(0), dtype=torch.float64)
    shards = wm.iid_partition(120, 4, generator=torch.Generator().manual_seed(1))
    res = wm.fedavg(X, y, shards, None, params, rounds=1, lr=1e-3)
    singles = [
        wm.fedavg(X, y, shards[k : k + 1], None, params, rounds=1, lr=1e-3).params for k in range(4)
    ]
    for i, p in enumerate(res.params):
        assert torch.allclose(p, sum(s[i] for s in singles) / 4, atol=1e-14)


def test_shared_mark_is_detected_and_per_client_marks_dilute(data) -> None:
    Xtr, ytr, _, _ = data
    params = wm.init_mlp(generator=torch.Generator().manual_seed(0))
    key = wm.random_keys(params, generator=torch.Generator().manual_seed(1))
    shards = wm.iid_partition(len(ytr), 16, generator=torch.Generator().manual_seed(2))
    shared = wm.fedavg(Xtr, ytr, shards, None, params, rounds=40, lr=3e-3, strength=1.0, key=key)
    ck = wm.random_keys(params, (16,), generator=torch.Generator().manual_seed(3))
    per = wm.fedavg(Xtr, ytr, shards, None, params, rounds=40, lr=3e-3, strength=1.0, key=ck)
    z_shared = float(wm.sign_z(shared.params, key))
    z_own = float(wm.sign_z(per.params, ck).mean())
    assert z_shared > 4 and z_shared / z_own > 4


def test_finetune_trajectory(data) -> None:
    Xtr, ytr, _, _ = data
    params = wm.init_mlp(generator=torch.Generator().manual_seed(0))
    traj = wm.finetune(
        params, Xtr[:64], ytr[:64], epochs=2, lr=1e-3, generator=torch.Generator().manual_seed(0)
    )
    assert traj[0].shape == (3, 64, 128)
    assert torch.equal(traj[0][0], params[0])
    assert float(wm.accuracy(traj, Xtr[:64], ytr[:64])[-1]) >= float(
        wm.accuracy(params, Xtr[:64], ytr[:64])
    )


@settings(max_examples=20, deadline=None)
@given(st.integers(1, 6), st.floats(0.1, 5.0))
def test_cosines_are_scale_invariant(batch: int, scale: float) -> None:
    params = [p.expand(batch, *p.shape) for p in small_mlp()]
    key = wm.random_keys(small_mlp(), generator=torch.Generator().manual_seed(0))
    a = wm.cosines(params, key)
    b = wm.cosines([scale * p for p in params], key)
    assert a.shape == (batch, 6) and torch.allclose(a, b, atol=1e-12)


# --- bad input -----------------------------------------------------------------------------


def test_bad_data_and_partition_arguments() -> None:
    with pytest.raises(ValueError, match="test_fraction"):
        wm.digits_data(1.0)
    with pytest.raises(ValueError, match="seed"):
        wm.digits_data(0.2, seed=-1)
    with pytest.raises(ValueError, match="n_clients"):
        wm.iid_partition(10, 11)
    with pytest.raises(ValueError, match="n must"):
        wm.iid_partition(0, 1)
    y = np.repeat(np.arange(2), 5)
    with pytest.raises(ValueError, match="alpha"):
        wm.dirichlet_partition(y, 2, 0.0, np.random.default_rng(0))
    with pytest.raises(ValueError, match="labels"):
        wm.dirichlet_partition(np.zeros((2, 2)), 2, 1.0, np.random.default_rng(0))
    with pytest.raises(ValueError, match="rng"):
        wm.dirichlet_partition(y, 2, 1.0, 0)
    with pytest.raises(ValueError, match="min_size"):
        wm.dirichlet_partition(y, 2, 1.0, np.random.default_rng(0), min_size=6)
    with pytest.raises(ValueError, match="no partition"):
        wm.dirichlet_partition(y, 5, 0.01, np.random.default_rng(0), min_size=2, max_tries=2)
    with pytest.raises(ValueError, match="shards"):
        wm.pad_shards([np.array([1]), np.array([], dtype=int)])


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


def test_bad_training_arguments(data) -> None:
    Xtr, ytr, _, _ = data
    params = wm.init_mlp()
    shards = wm.iid_partition(100, 4)
    with pytest.raises(ValueError, match="key is required"):
        wm.fedavg(Xtr, ytr, shards, None, params, rounds=1, lr=1e-3, strength=1.0)
    with pytest.raises(ValueError, match="rounds"):
        wm.fedavg(Xtr, ytr, shards, None, params, rounds=0, lr=1e-3)
    with pytest.raises(ValueError, match="shards must index"):
        wm.fedavg(Xtr, ytr, shards + 5000, None, params, rounds=1, lr=1e-3)
    with pytest.raises(ValueError, match="mask must leave"):
        wm.fedavg(Xtr, ytr, shards, torch.zeros(shards.shape), params, rounds=1, lr=1e-3)
    with pytest.raises(ValueError, match="per-client key"):
        wm.fedavg(
            Xtr,
            ytr,
            shards,
            None,
            params,
            rounds=1,
            lr=1e-3,
            strength=1.0,
            key=wm.random_keys(params, (3,)),
        )
    with pytest.raises(ValueError, match="strength"):
        wm.fedavg(Xtr, ytr, shards, None, params, rounds=1, lr=1e-3, strength=-1.0)
    state = wm.AdamWState.zeros_like(params)
    with pytest.raises(ValueError, match="lr"):
        wm.adamw_step(params, params, state, lr=0.0)
    with pytest.raises(ValueError, match="grads must have"):
        wm.adamw_step(params, [p.unsqueeze(0) for p in params], state, lr=1e-3)
    with pytest.raises(ValueError, match="epochs"):
        wm.finetune(params, Xtr[:4], ytr[:4], epochs=-1, lr=1e-3)
    with pytest.raises(ValueError, match="X and y"):
        wm.finetune(params, Xtr[:4], ytr[:3], epochs=1, lr=1e-3)
