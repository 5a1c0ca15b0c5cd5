"""Tests of icml26.neuro (chapter 19, rector): montages, generator, connectivity, masks and
cost, partitions, encoder, pre-training, probes; bad inputs of every public function."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import adjusted_rand_score

from icml26.neuro import (
    attention,
    connectivity,
    eeg,
    encoder,
    montage,
    partition,
    pretrain,
    probe,
    simulate,
)
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


def test_coherence_matches_mne_connectivity() -> None:
    from mne_connectivity import spectral_connectivity_epochs

    rng = np.random.default_rng(1)
    x = rng.standard_normal((30, 5, 128)) + rng.standard_normal((30, 1, 128))
    ours = eeg.coherence(x, 128.0, (8.0, 40.0))
    con = spectral_connectivity_epochs(
        x,
        method="coh",
        mode="fourier",
        sfreq=128.0,
        fmin=8.0,
        fmax=40.0,
        faverage=True,
        verbose=False,
    )
    theirs = con.get_data(output="dense")[..., 0]
    tri = np.tril_indices(5, -1)
    assert np.abs(ours[tri] - theirs[tri]).max() < 1e-10


def test_phase_sums_accumulate_to_the_plv() -> None:
    x = np.random.default_rng(2).standard_normal((20, 4, 64))
    band = (4.0, 40.0)
    total = eeg.phase_sum(x[:7], 128.0, band) + eeg.phase_sum(x[7:], 128.0, band)
    assert np.allclose(np.abs(total / 20).mean(-1), eeg.plv(x, 128.0, band))


def test_mean_abs_correlation_matches_numpy() -> None:
    x = np.random.default_rng(3).standard_normal((6, 5, 40))
    want = np.mean([np.abs(np.corrcoef(w)) for w in x], axis=0)
    assert np.allclose(eeg.mean_abs_correlation(x), want)


@pytest.mark.parametrize(
    "fn", [eeg.plv, eeg.coherence, eeg.phase_sum], ids=["plv", "coherence", "phase_sum"]
)
def test_connectivity_rejects_bad_input(fn) -> None:
    x = np.random.default_rng(0).standard_normal((4, 3, 64))
    bad = x.copy()
    bad[1, 2, 5] = np.nan
    with pytest.raises(ValueError, match="x"):
        fn(bad, 128.0, (4.0, 40.0))
    with pytest.raises(ValueError, match="x"):
        fn(x[0], 128.0, (4.0, 40.0))
    with pytest.raises(ValueError, match="x"):
        fn(np.zeros((0, 3, 64)), 128.0, (4.0, 40.0))
    with pytest.raises(ValueError, match="x"):
        fn(x.astype(int), 128.0, (4.0, 40.0))
    with pytest.raises(ValueError, match="fs"):
        fn(x, float("nan"), (4.0, 40.0))
    with pytest.raises(ValueError, match="band"):
        fn(x, 128.0, (4.0, float("nan")))
    with pytest.raises(ValueError, match="band"):
        fn(x, 128.0, (4.0,))
    with pytest.raises(ValueError, match="band"):
        fn(x, 128.0, (4.1, 4.2))  # no FFT bin inside
    with pytest.raises(ValueError, match="x"):
        eeg.mean_abs_correlation(bad)


# --- generator ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def small(b32):
    _, pos, _ = b32
    ctr = eeg.separated_centres(5, 0.08, np.random.default_rng(1), z_min=pos[:, 2].min())
    return pos, ctr, eeg.simulate_eeg(pos, ctr, 3, 8, seed=2)


def test_simulator_shapes_and_determinism(small) -> None:
    pos, ctr, d = small
    assert d.x.shape == (24, 32, 128) and d.y.shape == d.v.shape == (24,)
    assert sorted(set(d.subject)) == [0, 1, 2]
    assert (np.bincount(d.y) == 12).all() and (np.bincount(d.v) == 12).all()
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


def test_hidden_channel_is_a_removed_channel_for_the_others(b32, small) -> None:
    """With hide_masked, a channel masked at every patch changes no other token: the
    visible tokens equal those of the encoder run without that channel, in float64."""
    _, pos, anat = b32
    _, _, d = small
    torch.manual_seed(0)
    enc = eeg.RectorEncoder(16, 8, layers=2).double().eval()
    x = eeg.patchify(d.x[:3], 16).double()
    p = torch.as_tensor(pos)
    gone = np.array([0, 5, 6, 17])  # 6 is T7, the left temporal region's only channel
    keep = np.setdiff1d(np.arange(32), gone)
    m = torch.zeros(3, 32, 8, dtype=torch.bool)
    m[:, gone] = True
    with torch.no_grad():
        hidden = enc(x, p, anat, masked=m, hide_masked=True)[:, :, keep]
        removed = enc(x[:, keep], p[keep], anat[keep])
        replaced = enc(x, p, anat, masked=m)[:, :, keep]  # the [MASK] tokens are read
    assert torch.allclose(hidden, removed, atol=1e-12)
    assert (replaced - removed).abs().max() > 1e-3


def test_hiding_nothing_changes_nothing_and_hidden_regions_stay_finite(b32, small) -> None:
    _, pos, anat = b32
    _, _, d = small
    torch.manual_seed(1)
    enc = eeg.RectorEncoder(16, 8).double().eval()
    x = eeg.patchify(d.x[:2], 16).double()
    p = torch.as_tensor(pos)
    none = torch.zeros(2, 32, 8, dtype=torch.bool)
    with torch.no_grad():
        plain = enc(x, p, anat, masked=none)
        assert torch.allclose(enc(x, p, anat, masked=none, hide_masked=True), plain)
        every = torch.ones(2, 32, 8, dtype=torch.bool)  # nothing to read but themselves
        assert torch.isfinite(enc(x, p, anat, masked=every, hide_masked=True)).all()
        span = none.clone()
        span[:, :, 2:4] = True  # whole patches hidden: their region tokens are no keys
        h = enc(x, p, anat, masked=span, hide_masked=True)
    assert torch.isfinite(h).all()
    with pytest.raises(ValueError, match="hide_masked"):
        enc(x, p, anat, hide_masked=True)
    with pytest.raises(ValueError, match="hide_masked"):
        enc(x, p, anat, masked=none, hide_masked=1)


def test_hidden_views_pool_what_they_show(b32, small) -> None:
    _, pos, anat = b32
    _, _, d = small
    torch.manual_seed(2)
    enc = eeg.RectorEncoder(16, 8, d=16)
    x = eeg.patchify(d.x[:6], 16)
    gm = torch.Generator().manual_seed(0)
    views = tuple(eeg.structured_mask(6, anat, 8, ("region", "channel", "time"), gm) for _ in "ab")
    heads = torch.nn.ModuleDict(
        {"decoder": torch.nn.Linear(16, 16), "project": torch.nn.Linear(16, 16)}
    )
    p = torch.as_tensor(pos, dtype=torch.float32)
    out = eeg.rector_losses(enc, heads, x, p, anat, views, hide_masked=True)
    base = eeg.rector_losses(enc, heads, x, p, anat, views)
    assert all(torch.isfinite(out[k]) for k in ("total", "mpm", "tsm", "cvc"))
    assert not torch.isclose(out["cvc"], base["cvc"])
    out["total"].backward()
    assert enc.mask_token.grad is not None and enc.mask_token.grad.abs().sum() > 0
    with pytest.raises(ValueError, match="hide_masked"):
        eeg.rector_losses(enc, heads, x, p, anat, views, hide_masked="yes")
    res = eeg.pretrain(
        enc, x, pos, anat, steps=2, batch=4, kinds=("channel",), seed=0, hide_masked=True
    )
    assert np.isfinite(res.history).all()
    with pytest.raises(ValueError, match="hide_masked"):
        eeg.pretrain(enc, x, pos, anat, steps=1, batch=4, kinds=("time",), seed=0, hide_masked=None)
    err, zero = eeg.masked_prediction_error(
        enc, res.heads["decoder"], x, pos, anat, views[0], hide_masked=True
    )
    assert np.isfinite(err) and zero > 0


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
    # one update at step 2 with η = 1; none after the last step, so the encoder is
    # returned with the partition its last two steps trained under
    assert len(res.partitions) == 2 and res.affinity.shape == (32, 32)
    assert np.array_equal(res.regions, res.partitions[-1])
    assert np.allclose(np.diag(res.affinity), 1.0)
    assert set(res.heads) == {"decoder", "project"}
    z = eeg.embed(enc, x, pos, res.regions)
    f1 = eeg.probe_f1(z[:16], d.y[:16], z[16:], d.y[16:])
    assert 0.0 <= f1 <= 1.0
    one = eeg.pretrain(enc, x, pos, anat, steps=1, batch=4, kinds=("time",), seed=0)
    timed = eeg.pretrain(
        enc, x, pos, anat, steps=2, batch=4, kinds=("time",), seed=0, over_time=True
    )
    assert np.isfinite(timed.history).all()
    assert len(one.partitions) == 1 and np.array_equal(one.regions, anat)
    assert np.allclose(np.diag(one.affinity), 1.0)
    with pytest.raises(ValueError, match="batch"):
        eeg.pretrain(enc, x, pos, anat, steps=1, batch=1000, kinds=("time",), seed=0)
    with pytest.raises(ValueError, match="z_test"):
        eeg.probe_f1(z[:16], d.y[:16], z[16:, :3], d.y[16:])
    with pytest.raises(ValueError, match="weights"):
        eeg.rector_losses(
            enc, None, x[:2], torch.zeros(32, 3), anat, (None, None), weights=(1, -1, 0)
        )


def test_masked_prediction_error(b32, small) -> None:
    _, pos, anat = b32
    _, _, d = small
    torch.manual_seed(0)
    enc = eeg.RectorEncoder(16, 8, d=16).eval()
    x = eeg.patchify(d.x, 16)
    m = eeg.structured_mask(len(x), anat, 8, ("channel", "time"), torch.Generator())
    dec = torch.nn.Linear(16, 16)
    err, zero = eeg.masked_prediction_error(enc, dec, x, pos, anat, m, batch=5)
    # the zero predictor's error is the mean square of the masked z-scored patches
    assert np.isclose(zero, float((x**2).mean(-1)[m].mean()), rtol=1e-6)
    # the batch size does not matter
    again = eeg.masked_prediction_error(enc, dec, x, pos, anat, m)
    assert np.allclose(again, (err, zero), rtol=1e-5)
    # a decoder that outputs zero scores exactly the zero predictor
    torch.nn.init.zeros_(dec.weight)
    torch.nn.init.zeros_(dec.bias)
    assert np.isclose(eeg.masked_prediction_error(enc, dec, x, pos, anat, m)[0], zero)
    with pytest.raises(ValueError, match="masked"):
        eeg.masked_prediction_error(enc, dec, x, pos, anat, torch.zeros_like(m))
    with pytest.raises(ValueError, match="masked"):
        eeg.masked_prediction_error(enc, dec, x, pos, anat, m[:, :4])
    with pytest.raises(ValueError, match="decoder"):
        eeg.masked_prediction_error(enc, None, x, pos, anat, m)
    with pytest.raises(ValueError, match="enc"):
        eeg.masked_prediction_error(None, dec, x, pos, anat, m)
    with pytest.raises(ValueError, match="batch"):
        eeg.masked_prediction_error(enc, dec, x, pos, anat, m, batch=0)


# --- the modules and the chapter's API ------------------------------------------------------


def test_the_chapter_api_re_exports_every_module() -> None:
    modules = [attention, connectivity, encoder, montage, partition, pretrain, probe, simulate]
    names = [n for m in modules for n in m.__all__]
    assert sorted(names) == sorted(eeg.__all__), "eeg re-exports exactly the modules' names"
    for m in modules:
        for n in m.__all__:
            assert getattr(eeg, n) is getattr(m, n), n


# --- the coupling label ----------------------------------------------------------------------


def test_valence_is_coupling_not_power(b32) -> None:
    """v = 1 raises the correlation between the 10 Hz source's region and the target region,
    while each channel's band powers stay as they were."""
    _, pos, _ = b32
    ctr = eeg.separated_centres(5, 0.08, np.random.default_rng(1), z_min=pos[:, 2].min())
    d = eeg.simulate_eeg(pos, ctr, 6, 40, seed=3, coupling=1.0, conduction=0.02)
    a = np.linalg.norm(pos - ctr[1], axis=1).argmin()  # nearest the 10 Hz source
    t = np.linalg.norm(pos - ctr[0], axis=1).argmin()  # nearest the target source
    r = np.array([np.corrcoef(w[a], w[t])[0, 1] for w in d.x.astype(np.float64)])
    assert r[d.v == 1].mean() > r[d.v == 0].mean() + 0.1
    bp = eeg.band_power_features(d.x, 128.0).reshape(len(d.x), 32, 5)[:, t]
    gap = np.abs(bp[d.v == 1].mean(0) - bp[d.v == 0].mean(0))
    assert (gap < 3 * bp.std(0) / np.sqrt(len(d.x) / 2)).all()


def test_a_subject_on_two_montages_has_the_same_labels(b32) -> None:
    _, pos, _ = b32
    _, pos64 = eeg.montage("biosemi64")
    ctr = eeg.separated_centres(5, 0.08, np.random.default_rng(1), z_min=pos[:, 2].min())
    d32 = eeg.simulate_eeg(pos, ctr, 2, 6, seed=4, first_subject=7)
    d64 = eeg.simulate_eeg(pos64, ctr, 2, 6, seed=4, first_subject=7)
    assert np.array_equal(d32.y, d64.y) and np.array_equal(d32.v, d64.v)


# --- bad input, function by function -------------------------------------------------------


def _nan(a: np.ndarray) -> np.ndarray:
    a = np.array(a, dtype=np.float64)
    a.flat[0] = np.nan
    return a


def test_montage_functions_reject_nan_and_bad_shapes(b32) -> None:
    names, pos, anat = b32
    with pytest.raises(ValueError, match="pos"):
        eeg.anatomical_regions(names, _nan(pos))
    with pytest.raises(ValueError, match="names"):
        eeg.anatomical_regions("Cz", np.zeros((1, 3)))
    with pytest.raises(ValueError, match="pos"):
        eeg.functional_regions(_nan(pos), pos[:5])
    with pytest.raises(ValueError, match="centres"):
        eeg.functional_regions(pos, np.zeros((0, 3)))
    with pytest.raises(ValueError, match="pos_new"):
        eeg.assign_by_nearest(_nan(pos[:3]), pos, anat)
    with pytest.raises(ValueError, match="rng"):
        eeg.separated_centres(3, 0.05, 0)
    with pytest.raises(ValueError, match="z_min"):
        eeg.separated_centres(3, 0.05, np.random.default_rng(0), z_min=float("nan"))


def test_partition_functions_reject_bad_input() -> None:
    ref = np.array([0, 0, 1, 1])
    with pytest.raises(ValueError, match="labels"):
        eeg.align_labels(np.array([0.5, 0, 1, 1]), ref)
    with pytest.raises(ValueError, match="labels"):
        eeg.align_labels(np.array([-1, 0, 1, 1]), ref)
    W = np.ones((4, 4))
    with pytest.raises(ValueError, match="W"):
        eeg.spectral_partition(_nan(W), 2)
    with pytest.raises(ValueError, match="W"):
        eeg.spectral_partition(np.triu(W), 2)
    with pytest.raises(ValueError, match="anatomical"):
        eeg.adaptive_partition(np.array([0.0, 0, 1, 1]), W, 0.5, 2)
    with pytest.raises(ValueError, match="W_func"):
        eeg.adaptive_partition(ref, _nan(W), 0.5, 2)
    with pytest.raises(ValueError, match="eta"):
        eeg.adaptive_partition(ref, W, float("nan"), 2)
    with pytest.raises(ValueError, match="k"):
        eeg.adaptive_partition(ref, W, 0.5, 5)


def test_attention_functions_reject_bad_input() -> None:
    q = torch.randn(2, 3, 4)
    bad = q.clone()
    bad[0, 0, 0] = float("nan")
    with pytest.raises(ValueError, match="q"):
        eeg.block_sparse_attention(bad, q, q, [0, 0, 1])
    with pytest.raises(ValueError, match="v"):
        eeg.block_sparse_attention(q, q, bad, [0, 0, 1])
    with pytest.raises(ValueError, match="q"):
        eeg.block_sparse_attention(q.long(), q, q, [0, 0, 1])
    with pytest.raises(ValueError, match="q"):
        eeg.masked_attention(np.zeros((6, 4)), q, q, torch.ones(6, 6, dtype=torch.bool))
    with pytest.raises(ValueError, match="regions"):
        eeg.block_sparse_attention(q, q, q, [0.0, 0.5, 1.0])
    with pytest.raises(ValueError, match="regions"):
        eeg.block_mask([], 2)
    with pytest.raises(ValueError, match="sizes"):
        eeg.attention_cost([2.5, 3], 2)
    with pytest.raises(ValueError, match="sizes"):
        eeg.attention_cost([float("nan")], 2)


def test_encoder_rejects_nan_and_bad_masks(b32) -> None:
    _, pos, anat = b32
    enc = eeg.RectorEncoder(16, 8)
    x = torch.randn(2, 32, 8, 16)
    bad = x.clone()
    bad[0, 0, 0, 0] = float("nan")
    with pytest.raises(ValueError, match="x"):
        enc(bad, torch.as_tensor(pos), anat)
    with pytest.raises(ValueError, match="pos"):
        enc(x, torch.as_tensor(_nan(pos)), anat)
    with pytest.raises(ValueError, match="masked"):
        enc(x, torch.as_tensor(pos), anat, masked=torch.zeros(2, 32, 8))
    with pytest.raises(ValueError, match="h"):
        eeg.channel_graph(torch.zeros(2, 3, 4))


def test_channel_graph_and_learned_affinity(b32, small) -> None:
    _, pos, anat = b32
    _, _, d = small
    enc = eeg.RectorEncoder(16, 8)
    x = eeg.patchify(d.x[:6], 16)
    with torch.no_grad():
        g = eeg.channel_graph(enc(x, torch.as_tensor(pos), anat))
    assert g.shape == (6, 32, 32)
    assert torch.allclose(torch.diagonal(g, dim1=1, dim2=2), torch.ones(6, 32), atol=1e-5)
    W = eeg.learned_affinity(enc, x, pos, anat, batch=4)
    assert W.shape == (32, 32) and np.allclose(W, W.T) and (W >= 0).all()
    assert enc.training, "learned_affinity leaves the encoder's mode as it was"
    with pytest.raises(ValueError, match="enc"):
        eeg.learned_affinity(None, x, pos, anat)
    with pytest.raises(ValueError, match="x"):
        eeg.learned_affinity(enc, x[:0], pos, anat)


def test_channel_graph_over_time_is_a_trajectory_correlation() -> None:
    """The time-resolved graph is the Pearson correlation of the channels' flattened token
    trajectories, centred over patches; a constant per-channel token (an embedding) leaves it
    unchanged, while it dominates the time-pooled graph."""
    gen = torch.Generator().manual_seed(0)
    h = torch.randn(3, 8, 5, 4, generator=gen, dtype=torch.float64)
    g = eeg.channel_graph(h, over_time=True)
    for b in range(3):
        z = (h[b] - h[b].mean(0)).transpose(0, 1).reshape(5, -1).numpy()
        ref = (z @ z.T) / np.outer(np.linalg.norm(z, axis=1), np.linalg.norm(z, axis=1))
        assert np.allclose(g[b].numpy(), ref, atol=1e-12)
    shift = 10 * torch.randn(1, 1, 5, 4, generator=gen, dtype=torch.float64)
    assert torch.allclose(eeg.channel_graph(h + shift, over_time=True), g, atol=1e-12)
    pooled = eeg.channel_graph(h + shift)
    assert (pooled - eeg.channel_graph(shift.expand_as(h))).abs().max() < 0.1
    up = eeg.graph_upper(h.float(), over_time=True)
    assert up.shape == (3, 10) and np.allclose(up, g.numpy()[:, *np.triu_indices(5, 1)], atol=1e-6)
    with pytest.raises(ValueError, match="over_time"):
        eeg.channel_graph(h, over_time="yes")


def test_simulator_rejects_bad_settings(small) -> None:
    pos, ctr, _ = small
    with pytest.raises(ValueError, match="pos"):
        eeg.simulate_eeg(_nan(pos), ctr, 1, 4, seed=0)
    with pytest.raises(ValueError, match="centres"):
        eeg.simulate_eeg(pos, _nan(ctr), 1, 4, seed=0)
    with pytest.raises(ValueError, match="target"):
        eeg.simulate_eeg(pos, ctr, 1, 4, seed=0, target=1)
    with pytest.raises(ValueError, match="coupling"):
        eeg.simulate_eeg(pos, ctr, 1, 4, seed=0, coupling=-1.0)
    with pytest.raises(ValueError, match="conduction"):
        eeg.simulate_eeg(pos, ctr, 1, 4, seed=0, conduction=float("inf"))
    with pytest.raises(ValueError, match="seed"):
        eeg.simulate_eeg(pos, ctr, 1, 4, seed=-1)
    with pytest.raises(ValueError, match="x"):
        eeg.patchify(_nan(np.zeros((2, 3, 32))), 16)
    with pytest.raises(ValueError, match="x"):
        eeg.patchify(np.zeros((2, 3, 32), dtype=int), 16)


def test_probe_functions_reject_bad_input(b32, small) -> None:
    _, pos, anat = b32
    _, _, d = small
    z = np.random.default_rng(0).standard_normal((24, 4))
    with pytest.raises(ValueError, match="z_train"):
        eeg.probe_f1(_nan(z[:12]), d.y[:12], z[12:], d.y[12:])
    with pytest.raises(ValueError, match="y_train"):
        eeg.probe_f1(z[:12], np.zeros(12, int), z[12:], d.y[12:])
    with pytest.raises(ValueError, match="x"):
        eeg.band_power_features(_nan(d.x), 128.0)
    with pytest.raises(ValueError, match="fs"):
        eeg.band_power_features(d.x, 60.0)
    enc = eeg.RectorEncoder(16, 8)
    x = eeg.patchify(d.x, 16)
    with pytest.raises(ValueError, match="enc"):
        eeg.embed("encoder", x, pos, anat)
    zt = eeg.embed(enc, x, pos, anat)
    kw = {"fraction": 0.25, "patterns": 2, "seed": 0}
    assert 0 <= eeg.removal_f1(enc, zt, d.y, x, d.y, pos, anat, **kw) <= 1
    with pytest.raises(ValueError, match="fraction"):
        eeg.removal_f1(enc, zt, d.y, x, d.y, pos, anat, fraction=1.0, patterns=1, seed=0)
    with pytest.raises(ValueError, match="regions"):
        eeg.removal_f1(enc, zt, d.y, x, d.y, pos, anat[:5], **kw)


def test_pretrain_rejects_bad_input(b32, small) -> None:
    _, pos, anat = b32
    _, _, d = small
    enc = eeg.RectorEncoder(16, 8, d=16)
    x = eeg.patchify(d.x, 16)
    kw = {"steps": 1, "batch": 4, "kinds": ("time",), "seed": 0}
    with pytest.raises(ValueError, match="kinds"):
        eeg.pretrain(enc, x, pos, anat, **{**kw, "kinds": "time"})
    with pytest.raises(ValueError, match="band"):
        eeg.pretrain(enc, x, pos, anat, band=(40.0, 4.0), **kw)
    with pytest.raises(ValueError, match="anatomical"):
        eeg.pretrain(enc, x, pos, anat[:4], **kw)
    with pytest.raises(ValueError, match="enc"):
        eeg.pretrain(None, x, pos, anat, **kw)
    with pytest.raises(ValueError, match="over_time"):
        eeg.pretrain(enc, x, pos, anat, over_time=1, **kw)
    with pytest.raises(ValueError, match="generator"):
        eeg.structured_mask(4, anat, 8, ("time",), 0)
