"""Tests of icml26.neuro.eeg (chapter 19, rector): masks, cost, partitions, generator, encoder."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import adjusted_rand_score

from icml26.neuro import eeg
from icml26.pipeline.notebooks import notebook_functions

_reference = notebook_functions("19-rector", "blockwise_attention_reference")[
    "blockwise_attention_reference"
]


@pytest.fixture(scope="module")
def b32():
    names, pos = eeg.montage("biosemi32")
    return names, pos, eeg.anatomical_regions(names, pos)


# --- montage and regions ------------------------------------------------------------------


def test_montage_matches_mne(b32) -> None:
    import mne

    names, pos, _ = b32
    ch = mne.channels.make_standard_montage("biosemi32").get_positions()["ch_pos"]
    assert names == list(ch)
    assert np.allclose(pos, np.array([ch[n] for n in names]))
    assert np.allclose(np.linalg.norm(pos, axis=1), 0.095)


def test_biosemi32_region_sizes(b32) -> None:
    _, _, anat = b32
    assert np.bincount(anat).tolist() == [4, 5, 7, 1, 1, 9, 5]


def test_two_letter_prefixes_first() -> None:
    names = ["FC1", "CP2", "PO3", "Fpz", "AFz", "FT7", "TP8", "Iz", "Cz"]
    pos = np.zeros((len(names), 3))
    pos[:, 0] = [-1, 1, -1, 0, 0, -1, 1, 0, 0]
    assert eeg.anatomical_regions(names, pos).tolist() == [2, 5, 6, 0, 0, 3, 4, 6, 2]


def test_biosemi64_has_a_region_for_every_channel() -> None:
    names, pos = eeg.montage("biosemi64")
    assert len(eeg.anatomical_regions(names, pos)) == 64


def test_montage_rejects_unknown() -> None:
    with pytest.raises(ValueError, match="name"):
        eeg.montage("no-such-montage")


def test_anatomical_rejects_bad_input() -> None:
    with pytest.raises(ValueError, match="names"):
        eeg.anatomical_regions(["X1"], np.zeros((1, 3)))
    with pytest.raises(ValueError, match="pos"):
        eeg.anatomical_regions(["Cz"], np.zeros((2, 3)))


def test_separated_centres() -> None:
    c = eeg.separated_centres(5, 0.08, np.random.default_rng(0))
    d = np.linalg.norm(c[:, None] - c[None], axis=-1)
    assert (d[np.triu_indices(5, 1)] >= 0.08).all()
    with pytest.raises(ValueError, match="n"):
        eeg.separated_centres(0, 0.08, np.random.default_rng(0))
    with pytest.raises(ValueError, match="min_sep"):
        eeg.separated_centres(50, 0.15, np.random.default_rng(0), tries=100)


def test_functional_and_nearest() -> None:
    pos = np.array([[0.0, 0, 1], [1.0, 0, 0], [0, 1.0, 0]])
    ctr = np.array([[0.9, 0, 0], [0, 0, 0.9]])
    assert eeg.functional_regions(pos, ctr).tolist() == [1, 0, 0]
    assert eeg.assign_by_nearest(np.array([[0.0, 0, 0.8]]), pos, np.array([5, 6, 7])).tolist() == [
        5
    ]
    with pytest.raises(ValueError, match="centres"):
        eeg.functional_regions(pos, np.zeros((2, 2)))
    with pytest.raises(ValueError, match="labels"):
        eeg.assign_by_nearest(pos, pos, np.zeros(2))


def test_align_labels() -> None:
    ref = np.array([0, 0, 1, 1, 2, 2])
    assert eeg.align_labels(np.array([2, 2, 0, 0, 1, 1]), ref).tolist() == ref.tolist()
    with pytest.raises(ValueError, match="labels"):
        eeg.align_labels(np.zeros(3, dtype=int), ref)


# --- attention and cost ------------------------------------------------------------------


@settings(max_examples=10, deadline=None)
@given(
    st.lists(st.integers(0, 4), min_size=1, max_size=12),
    st.integers(1, 5),
)
def test_mask_counts_equal_the_cost_formula(labels, T) -> None:
    regions = np.asarray(labels)
    sizes = np.bincount(regions)
    sizes = sizes[sizes > 0]
    m1, m2, m3 = eeg.level_masks(regions, T)
    formula, dense = eeg.attention_cost(sizes, T)
    assert int(m1.sum() + m2.sum() + m3.sum()) == formula
    assert int(m1.sum()) == T * int((sizes**2).sum())
    assert dense == (len(regions) * T) ** 2


def test_biosemi32_cost(b32) -> None:
    assert eeg.attention_cost([4, 5, 7, 1, 1, 9, 5], 8) == (2424, 65536)


@settings(max_examples=8, deadline=None)
@given(st.lists(st.integers(0, 3), min_size=2, max_size=10), st.integers(1, 3), st.integers(0, 99))
def test_block_sparse_equals_reference_and_mask(labels, T, seed) -> None:
    regions = np.asarray(labels)
    C = len(regions)
    g = torch.Generator().manual_seed(seed)
    q, k, v = (torch.randn(T, C, 4, generator=g, dtype=torch.float64) for _ in range(3))
    ref = _reference(q, k, v, regions)
    assert torch.allclose(eeg.block_sparse_attention(q, k, v, regions), ref, atol=1e-12)
    flat = eeg.masked_attention(
        *(t.reshape(T * C, -1) for t in (q, k, v)), eeg.block_mask(regions, T)
    )
    assert torch.allclose(flat.reshape(T, C, -1), ref, atol=1e-12)


def test_block_sparse_batched() -> None:
    regions = np.array([0, 1, 0, 2, 1])
    q, k, v = (torch.randn(3, 2, 5, 8, dtype=torch.float64) for _ in range(3))
    out = eeg.block_sparse_attention(q, k, v, regions)
    for b in range(3):
        assert torch.allclose(out[b], _reference(q[b], k[b], v[b], regions), atol=1e-12)


def test_attention_validation() -> None:
    q = torch.randn(6, 4)
    with pytest.raises(ValueError, match="mask"):
        eeg.masked_attention(q, q, q, torch.ones(6, 6))
    with pytest.raises(ValueError, match="mask"):
        eeg.masked_attention(q, q, q, torch.ones(5, 5, dtype=torch.bool))
    with pytest.raises(ValueError, match="k"):
        eeg.masked_attention(q, torch.randn(5, 4), q, torch.ones(6, 6, dtype=torch.bool))
    with pytest.raises(ValueError, match="regions"):
        eeg.block_sparse_attention(
            torch.randn(2, 3, 4), torch.randn(2, 3, 4), torch.randn(2, 3, 4), [0, 1]
        )
    with pytest.raises(ValueError, match="regions"):
        eeg.block_mask([-1, 0], 2)
    with pytest.raises(ValueError, match="T"):
        eeg.block_mask([0, 1], 0)
    with pytest.raises(ValueError, match="sizes"):
        eeg.attention_cost([0, 3], 2)


# --- partitions --------------------------------------------------------------------------


@settings(max_examples=6, deadline=None)
@given(st.lists(st.integers(2, 6), min_size=2, max_size=4), st.integers(0, 99))
def test_spectral_recovers_blocks(sizes, seed) -> None:
    """The block-diagonal lemma: exact recovery, and scikit-learn agrees."""
    from sklearn.cluster import SpectralClustering

    rng = np.random.default_rng(seed)
    truth = np.repeat(np.arange(len(sizes)), sizes)
    A = rng.uniform(0.5, 1.0, (len(truth), len(truth)))
    W = (A + A.T) / 2 * (truth[:, None] == truth[None])
    assert adjusted_rand_score(truth, eeg.spectral_partition(W, len(sizes))) == 1.0
    sk = SpectralClustering(len(sizes), affinity="precomputed", random_state=0).fit_predict(W)
    assert adjusted_rand_score(truth, sk) == 1.0


def test_adaptive_partition_endpoints() -> None:
    anat = np.array([0, 0, 1, 1, 2, 2])
    func = np.array([0, 1, 0, 1, 0, 1])
    W = (func[:, None] == func[None]).astype(float) + 0.01
    assert eeg.adaptive_partition(anat, W, 0.0, 2).tolist() == anat.tolist()
    assert adjusted_rand_score(func, eeg.adaptive_partition(anat, W, 1.0, 2)) == 1.0
    with pytest.raises(ValueError, match="eta"):
        eeg.adaptive_partition(anat, W, 1.5, 2)
    with pytest.raises(ValueError, match="W_func"):
        eeg.adaptive_partition(anat, W[:3, :3], 0.5, 2)


def test_spectral_validation() -> None:
    with pytest.raises(ValueError, match="W"):
        eeg.spectral_partition(-np.ones((3, 3)), 2)
    with pytest.raises(ValueError, match="k"):
        eeg.spectral_partition(np.ones((3, 3)), 4)


def test_plv_matches_mne_connectivity() -> None:
    from mne_connectivity import spectral_connectivity_epochs

    rng = np.random.default_rng(0)
    x = rng.standard_normal((30, 6, 128)) + rng.standard_normal((30, 1, 128))
    ours = eeg.plv(x, 128.0, (8.0, 12.0))
    con = spectral_connectivity_epochs(
        x,
        method="plv",
        mode="fourier",
        sfreq=128.0,
        fmin=8.0,
        fmax=12.0,
        faverage=True,
        verbose=False,
    )
    theirs = con.get_data(output="dense")[..., 0]
    tri = np.tril_indices(6, -1)
    assert np.abs(ours[tri] - theirs[tri]).max() < 1e-10
    assert np.allclose(np.diag(ours), 1.0)
    with pytest.raises(ValueError, match="band"):
        eeg.plv(x, 128.0, (12.0, 8.0))


# --- generator ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def small(b32):
    _, pos, _ = b32
    ctr = eeg.separated_centres(5, 0.08, np.random.default_rng(1), z_min=pos[:, 2].min())
    return pos, ctr, eeg.simulate_eeg(pos, ctr, 3, 8, seed=2)


def test_simulator_shapes_and_determinism(small) -> None:
    pos, ctr, d = small
    assert d.x.shape == (24, 32, 128) and d.y.shape == (24,)
    assert sorted(set(d.subject)) == [0, 1, 2]
    assert (np.bincount(d.y) == 12).all()
    again = eeg.simulate_eeg(pos, ctr, 3, 8, seed=2)
    assert np.array_equal(d.x, again.x)
    other = eeg.simulate_eeg(pos, ctr, 1, 8, seed=2, first_subject=5)
    assert set(other.subject) == {5}


def test_simulator_effect_is_spectral(small) -> None:
    """The 'high arousal' class has more 8-12 Hz power near the 10 Hz source."""
    pos, ctr, d = small
    near = np.linalg.norm(pos - ctr[1], axis=1).argmin()
    bp = eeg.band_power_features(d.x, 128.0).reshape(len(d.x), 32, 5)[:, near, 1]
    assert bp[d.y == 1].mean() > bp[d.y == 0].mean()


def test_simulator_validation(small) -> None:
    pos, ctr, _ = small
    with pytest.raises(ValueError, match="centres"):
        eeg.simulate_eeg(pos, ctr[:3], 1, 4, seed=0)
    with pytest.raises(ValueError, match="n_windows"):
        eeg.simulate_eeg(pos, ctr, 1, 1, seed=0)
    with pytest.raises(ValueError, match="fs"):
        eeg.simulate_eeg(pos, ctr, 1, 4, seed=0, fs=40.0)
    with pytest.raises(ValueError, match="rho"):
        eeg.simulate_eeg(pos, ctr, 1, 4, seed=0, rho=0.0)


def test_patchify(small) -> None:
    _, _, d = small
    p = eeg.patchify(d.x, 16)
    assert p.shape == (24, 32, 8, 16)
    flat = p.reshape(24, 32, -1)
    assert torch.allclose(flat.mean(-1), torch.zeros(24, 32), atol=1e-5)
    with pytest.raises(ValueError, match="patch"):
        eeg.patchify(d.x, 15)
    with pytest.raises(ValueError, match="x"):
        eeg.patchify(d.x[0], 16)


def test_band_power_validation(small) -> None:
    _, _, d = small
    assert eeg.band_power_features(d.x, 128.0).shape == (24, 160)
    with pytest.raises(ValueError, match="fs"):
        eeg.band_power_features(d.x, 0.0)


# --- encoder, masking, losses --------------------------------------------------------------


def test_encoder_is_channel_permutation_equivariant(b32, small) -> None:
    _, pos, anat = b32
    _, _, d = small
    torch.manual_seed(0)
    enc = eeg.RectorEncoder(16, 8).eval()
    x = eeg.patchify(d.x[:4], 16)
    p = torch.as_tensor(pos, dtype=torch.float32)
    perm = torch.randperm(32)
    with torch.no_grad():
        h = enc(x, p, anat)
        hp = enc(x[:, perm], p[perm], anat[perm.numpy()])
    assert torch.allclose(h[:, :, perm], hp, atol=1e-5)


def test_removed_channels_and_new_montage(b32, small) -> None:
    names, pos, anat = b32
    _, _, d = small
    enc = eeg.RectorEncoder(16, 8).eval()
    x = eeg.patchify(d.x[:4], 16)
    keep = np.arange(0, 32, 2)
    z = eeg.embed(enc, x[:, keep], pos[keep], anat[keep])
    assert z.shape == (4, 64) and np.isfinite(z).all()
    idx = eeg.RectorEncoder(16, 8, channel_embedding="index", vocabulary=names)
    assert eeg.embed(idx, x, pos, anat, names=names).shape == (4, 64)
    with pytest.raises(ValueError, match="names"):
        idx(x[:, :2], torch.zeros(2, 3), [0, 1], names=["AF7", "Iz"])


def test_encoder_validation() -> None:
    with pytest.raises(ValueError, match="heads"):
        eeg.RectorEncoder(16, 8, d=32, heads=3)
    with pytest.raises(ValueError, match="channel_embedding"):
        eeg.RectorEncoder(16, 8, channel_embedding="learned")
    with pytest.raises(ValueError, match="vocabulary"):
        eeg.RectorEncoder(16, 8, channel_embedding="index")
    enc = eeg.RectorEncoder(16, 8)
    with pytest.raises(ValueError, match="x"):
        enc(torch.randn(2, 4, 7, 16), torch.zeros(4, 3), [0, 0, 1, 1])
    with pytest.raises(ValueError, match="regions"):
        enc(torch.randn(2, 4, 8, 16), torch.zeros(4, 3), [0, 0, 1, 9])


def test_structured_mask() -> None:
    g = torch.Generator().manual_seed(0)
    regions = np.array([0, 0, 1, 1, 1, 2])
    m = eeg.structured_mask(64, regions, 8, ("time",), g)
    assert m.shape == (64, 6, 8)
    assert (m.sum((1, 2)) == 6 * 4).all()  # T/2 patches on every channel
    m = eeg.structured_mask(64, regions, 8, ("region", "channel", "time"), g)
    assert 0.3 < m.float().mean() < 0.8
    with pytest.raises(ValueError, match="kinds"):
        eeg.structured_mask(4, regions, 8, ("space",), g)
    with pytest.raises(ValueError, match="channel_p"):
        eeg.structured_mask(4, regions, 8, ("channel",), g, channel_p=2.0)


def test_pretrain_and_probe_run(b32, small) -> None:
    _, pos, anat = b32
    _, _, d = small
    enc = eeg.RectorEncoder(16, 8, d=16)
    x = eeg.patchify(d.x, 16)
    res = eeg.pretrain(
        enc,
        x,
        pos,
        anat,
        steps=4,
        batch=4,
        kinds=("region", "channel", "time"),
        seed=0,
        afp_every=2,
    )
    assert res.history.shape == (4, 4) and np.isfinite(res.history).all()
    assert len(res.partitions) == 3 and res.connectivity.shape == (32, 32)
    z = eeg.embed(enc, x, pos, res.regions)
    f1 = eeg.probe_f1(z[:16], d.y[:16], z[16:], d.y[16:])
    assert 0.0 <= f1 <= 1.0
    with pytest.raises(ValueError, match="batch"):
        eeg.pretrain(enc, x, pos, anat, steps=1, batch=1000, kinds=("time",), seed=0)
    with pytest.raises(ValueError, match="z_test"):
        eeg.probe_f1(z[:16], d.y[:16], z[16:, :3], d.y[16:])
    with pytest.raises(ValueError, match="weights"):
        eeg.rector_losses(
            enc, None, x[:2], torch.zeros(32, 3), anat, (None, None), weights=(1, -1, 0)
        )
