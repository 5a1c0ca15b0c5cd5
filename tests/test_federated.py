"""Tests of icml26.trust.federated (chapter 17): data, partitions, FedAvg, fine-tuning."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from icml26.pipeline.notebooks import notebook_functions
from icml26.trust import federated as fed
from icml26.trust import watermark as wm

fedavg_round_reference = notebook_functions("17-threshold-watermark", "fedavg_round_reference")[
    "fedavg_round_reference"
]


@pytest.fixture(scope="module")
def data():
    return fed.digits_data(0.2, seed=0)


def test_digits_data_shapes_and_standardisation(data) -> None:
    Xtr, ytr, Xte, _ = data
    assert Xtr.shape == (1437, 64) and Xte.shape == (360, 64)
    assert ytr.dtype == torch.int64 and set(ytr.tolist()) == set(range(10))
    assert float(Xtr.mean(0).abs().max()) < 1e-4


def test_partitions() -> None:
    idx = fed.iid_partition(103, 10, generator=torch.Generator().manual_seed(0))
    assert idx.shape == (10, 10) and len(set(idx.flatten().tolist())) == 100
    y = np.repeat(np.arange(5), 40)
    shards = fed.dirichlet_partition(y, 8, 0.5, np.random.default_rng(0), min_size=3)
    assert sum(len(s) for s in shards) == 200 and min(len(s) for s in shards) >= 3
    assert len(np.unique(np.concatenate(shards))) == 200
    pidx, mask = fed.pad_shards(shards)
    assert pidx.shape == (8, max(len(s) for s in shards))
    assert mask.sum(1).tolist() == [float(len(s)) for s in shards]


def test_fedavg_round_matches_notebook_reference(data) -> None:
    Xtr, ytr, _, _ = data
    X = Xtr[:240].double()
    y = ytr[:240]
    params = wm.init_mlp(generator=torch.Generator().manual_seed(0), dtype=torch.float64)
    key = wm.random_keys(params, generator=torch.Generator().manual_seed(1))
    shards = fed.iid_partition(240, 6, generator=torch.Generator().manual_seed(2))
    got = fed.fedavg(X, y, shards, None, params, rounds=1, lr=3e-3, strength=1.0, key=key)
    want = fedavg_round_reference(params, X, y, list(shards), key, 1.0, 3e-3, 0.01)
    for a, b in zip(got.params, want, strict=True):
        assert torch.allclose(a, b, atol=1e-12)
    assert got.trajectory[0].shape == (2, 64, 128) and got.strengths.shape == (1, 6, 6)


def test_fedavg_equals_large_batch_step_without_watermark(data) -> None:
    """Equal shards, one AdamW step from zero state: FedAvg = mean of per-client steps."""
    Xtr, ytr, _, _ = data
    X, y = Xtr[:120].double(), ytr[:120]
    params = wm.init_mlp(generator=torch.Generator().manual_seed(0), dtype=torch.float64)
    shards = fed.iid_partition(120, 4, generator=torch.Generator().manual_seed(1))
    res = fed.fedavg(X, y, shards, None, params, rounds=1, lr=1e-3)
    singles = [
        fed.fedavg(X, y, shards[k : k + 1], None, params, rounds=1, lr=1e-3).params
        for k in range(4)
    ]
    for i, p in enumerate(res.params):
        assert torch.allclose(p, sum(s[i] for s in singles) / 4, atol=1e-14)


def test_shared_mark_is_detected_and_per_client_marks_dilute(data) -> None:
    Xtr, ytr, _, _ = data
    params = wm.init_mlp(generator=torch.Generator().manual_seed(0))
    key = wm.random_keys(params, generator=torch.Generator().manual_seed(1))
    shards = fed.iid_partition(len(ytr), 16, generator=torch.Generator().manual_seed(2))
    shared = fed.fedavg(Xtr, ytr, shards, None, params, rounds=40, lr=3e-3, strength=1.0, key=key)
    ck = wm.random_keys(params, (16,), generator=torch.Generator().manual_seed(3))
    per = fed.fedavg(Xtr, ytr, shards, None, params, rounds=40, lr=3e-3, strength=1.0, key=ck)
    z_shared = float(wm.sign_z(shared.params, key))
    z_own = float(wm.sign_z(per.params, ck).mean())
    assert z_shared > 4 and z_shared / z_own > 4


def test_finetune_trajectory(data) -> None:
    Xtr, ytr, _, _ = data
    params = wm.init_mlp(generator=torch.Generator().manual_seed(0))
    traj = fed.finetune(
        params, Xtr[:64], ytr[:64], epochs=2, lr=1e-3, generator=torch.Generator().manual_seed(0)
    )
    assert traj[0].shape == (3, 64, 128)
    assert torch.equal(traj[0][0], params[0])
    assert float(wm.accuracy(traj, Xtr[:64], ytr[:64])[-1]) >= float(
        wm.accuracy(params, Xtr[:64], ytr[:64])
    )


def test_bad_data_and_partition_arguments() -> None:
    with pytest.raises(ValueError, match="test_fraction"):
        fed.digits_data(1.0)
    with pytest.raises(ValueError, match="seed"):
        fed.digits_data(0.2, seed=-1)
    with pytest.raises(ValueError, match="n_clients"):
        fed.iid_partition(10, 11)
    with pytest.raises(ValueError, match="n must"):
        fed.iid_partition(0, 1)
    y = np.repeat(np.arange(2), 5)
    with pytest.raises(ValueError, match="alpha"):
        fed.dirichlet_partition(y, 2, 0.0, np.random.default_rng(0))
    with pytest.raises(ValueError, match="labels"):
        fed.dirichlet_partition(np.zeros((2, 2)), 2, 1.0, np.random.default_rng(0))
    with pytest.raises(ValueError, match="rng"):
        fed.dirichlet_partition(y, 2, 1.0, 0)
    with pytest.raises(ValueError, match="min_size"):
        fed.dirichlet_partition(y, 2, 1.0, np.random.default_rng(0), min_size=6)
    with pytest.raises(ValueError, match="no partition"):
        fed.dirichlet_partition(y, 5, 0.01, np.random.default_rng(0), min_size=2, max_tries=2)
    with pytest.raises(ValueError, match="shards"):
        fed.pad_shards([np.array([1]), np.array([], dtype=int)])


def test_bad_training_arguments(data) -> None:
    Xtr, ytr, _, _ = data
    params = wm.init_mlp()
    shards = fed.iid_partition(100, 4)
    with pytest.raises(ValueError, match="key is required"):
        fed.fedavg(Xtr, ytr, shards, None, params, rounds=1, lr=1e-3, strength=1.0)
    with pytest.raises(ValueError, match="rounds"):
        fed.fedavg(Xtr, ytr, shards, None, params, rounds=0, lr=1e-3)
    with pytest.raises(ValueError, match="shards must index"):
        fed.fedavg(Xtr, ytr, shards + 5000, None, params, rounds=1, lr=1e-3)
    with pytest.raises(ValueError, match="mask must leave"):
        fed.fedavg(Xtr, ytr, shards, torch.zeros(shards.shape), params, rounds=1, lr=1e-3)
    with pytest.raises(ValueError, match="leading axes"):
        fed.fedavg(
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
        fed.fedavg(Xtr, ytr, shards, None, params, rounds=1, lr=1e-3, strength=-1.0)
    with pytest.raises(ValueError, match="epochs"):
        fed.finetune(params, Xtr[:4], ytr[:4], epochs=-1, lr=1e-3)
    with pytest.raises(ValueError, match="X must be"):
        fed.finetune(params, Xtr[:4], ytr[:3], epochs=1, lr=1e-3)
    with pytest.raises(ValueError, match="mask must hold only"):
        fed.fedavg(Xtr, ytr, shards, 0.5 * torch.ones(shards.shape), params, rounds=1, lr=1e-3)
    with pytest.raises(ValueError, match="strength must be a number or 2"):
        fed.fedavg(
            Xtr, ytr, torch.stack([shards] * 2), None, params, rounds=1, lr=1e-3, strength=[1.0]
        )
    with pytest.raises(ValueError, match="X"):
        fed.fedavg(Xtr * float("nan"), ytr, shards, None, params, rounds=1, lr=1e-3)
    with pytest.raises(ValueError, match="batch of models"):
        fed.finetune(params, Xtr[:4][None], ytr[:4][None], epochs=1, lr=1e-3)


def test_side_by_side_federations_equal_separate_runs(data) -> None:
    """F federations in one call give each federation's own single-federation result."""
    Xtr, ytr, _, _ = data
    X, y = Xtr[:160].double(), ytr[:160]
    inits = [
        wm.init_mlp(generator=torch.Generator().manual_seed(s), dtype=torch.float64) for s in (0, 1)
    ]
    keys = [
        wm.random_keys(p, generator=torch.Generator().manual_seed(9 + s))
        for s, p in enumerate(inits)
    ]
    shards = [fed.iid_partition(160, 4, generator=torch.Generator().manual_seed(s)) for s in (0, 1)]
    stack = lambda ms: [torch.stack(t) for t in zip(*ms, strict=True)]  # noqa: E731
    kw = {"rounds": 3, "lr": 3e-3}
    both = fed.fedavg(
        X, y, torch.stack(shards), None, stack(inits), strength=[0.0, 1.0], key=stack(keys), **kw
    )
    for f, c in enumerate((0.0, 1.0)):
        one = fed.fedavg(X, y, shards[f], None, inits[f], strength=c, key=keys[f], **kw)
        for a, b in zip(both.params, one.params, strict=True):
            assert torch.allclose(a[f], b, atol=1e-12)


def test_batched_finetune_equals_single(data) -> None:
    Xtr, ytr, _, _ = data
    models = [wm.init_mlp(generator=torch.Generator().manual_seed(s)) for s in (0, 1)]
    Xb, yb = torch.stack([Xtr[:40], Xtr[40:80]]), torch.stack([ytr[:40], ytr[40:80]])
    batch = fed.finetune(
        [torch.stack(t) for t in zip(*models, strict=True)],
        Xb,
        yb,
        epochs=2,
        lr=1e-3,
        generator=torch.Generator().manual_seed(5),
    )
    for b in range(2):
        one = fed.finetune(
            models[b], Xb[b], yb[b], epochs=2, lr=1e-3, generator=torch.Generator().manual_seed(5)
        )
        for a, c in zip(batch, one, strict=True):
            assert torch.allclose(a[:, b], c, atol=1e-6)
