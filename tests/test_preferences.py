"""Tests of icml26.games.preferences (chapter 08): decomposition, heads, LP, self-play."""

from __future__ import annotations

import math
import warnings

import choix
import nashpy as nash
import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from icml26.games import preferences as pref
from icml26.games import zerosum
from icml26.pipeline.notebooks import notebook_functions

DT = torch.float64
REF = notebook_functions("08-hrc-dsppo", "decompose_reference", "dsppo_reference")


def _skew(rng: np.random.Generator, n: int, batch: int | None = None) -> torch.Tensor:
    shape = (n, n) if batch is None else (batch, n, n)
    A = torch.tensor(rng.normal(size=shape))
    return A - A.transpose(-1, -2)


def _game(seed: int, batch: int = 4, K: int = 6) -> tuple[torch.Tensor, torch.Tensor]:
    g = torch.Generator().manual_seed(seed)
    return pref.random_tournament(K, batch=batch, reward_scale=0.5, cyclic_scale=2.0, generator=g)


# --- decomposition -----------------------------------------------------------------------------


@settings(max_examples=40, deadline=None)
@given(arrays(np.float64, (7, 7), elements=st.floats(-5, 5)))
def test_decomposition_is_orthogonal_and_has_zero_row_sums(A):
    S = torch.tensor(A - A.T)
    d = pref.decompose(S)
    scale = 1.0 + float((S**2).sum())
    assert float(d.cyclic.sum(-1).abs().max()) < 1e-12 * math.sqrt(scale) + 1e-12
    assert float(d.cyclic.sum(-2).abs().max()) < 1e-12 * math.sqrt(scale) + 1e-12
    assert abs(float((d.transitive * d.cyclic).sum())) < 1e-11 * scale
    total = float((d.transitive**2).sum() + (d.cyclic**2).sum())
    assert abs(float((S**2).sum()) - total) < 1e-11 * scale
    torch.testing.assert_close(d.transitive + d.cyclic, S)


@pytest.mark.parametrize("n", [2, 3, 5, 12])
def test_least_squares_potential_is_the_row_mean(n):
    rng = np.random.default_rng(n)
    for _ in range(5):
        S = _skew(rng, n)
        f = pref.decompose(S).potential.numpy()
        assert np.abs(pref.potential_lstsq(S) - f).max() < 1e-10
        assert np.abs(pref.potential_lstsq(S.numpy()) - f).max() < 1e-10


def test_uniqueness_any_zero_row_sum_split_has_the_same_transitive_part():
    rng = np.random.default_rng(1)
    g = rng.normal(size=6)
    C0 = pref.decompose(_skew(rng, 6)).cyclic  # some zero-row-sum skew matrix
    S = pref.bt_scores(torch.tensor(g)) + C0
    d = pref.decompose(S)
    torch.testing.assert_close(d.cyclic, C0)
    assert np.allclose(d.potential.numpy(), g - g.mean())


def test_batched_decomposition_matches_the_notebook_reference():
    rng = np.random.default_rng(2)
    S = _skew(rng, 9, batch=3)
    d = pref.decompose(S)
    for k in range(3):
        f, T, C = REF["decompose_reference"](S[k].numpy())
        assert np.allclose(d.potential[k].numpy(), f, atol=1e-12)
        assert np.allclose(d.transitive[k].numpy(), T, atol=1e-12)
        assert np.allclose(d.cyclic[k].numpy(), C, atol=1e-12)


def test_cyclic_subspace_dimension():
    n = 6
    basis = []
    for i in range(n):
        for j in range(i + 1, n):
            E = torch.zeros(n, n, dtype=DT)
            E[i, j], E[j, i] = 1.0, -1.0
            basis.append(pref.decompose(E).cyclic.flatten())
    assert torch.linalg.matrix_rank(torch.stack(basis)) == (n - 1) * (n - 2) // 2


# --- heads -------------------------------------------------------------------------------------


def test_rotation_blocks():
    R = pref.rotation(4)
    assert torch.equal(R, -R.T)
    assert R[0, 1] == -1 and R[1, 0] == 1 and R[2, 3] == -1 and R[3, 2] == 1
    assert R[0, 2] == 0 and R[1, 3] == 0


def test_bt_is_purely_transitive_and_centred_gpm_purely_cyclic():
    rng = np.random.default_rng(3)
    r = torch.tensor(rng.normal(size=8))
    assert float(pref.decompose(pref.bt_scores(r)).cyclic.abs().max()) < 1e-13
    V = torch.tensor(rng.normal(size=(8, 4)))
    Vc = V - V.mean(0)
    assert float(pref.decompose(pref.gpm_scores(Vc)).transitive.abs().max()) < 1e-13
    # with mean m the potential is f_i = v_iᵀ W m (Theorem B c)
    m = torch.tensor([0.13, -0.51, 0.2, 0.0], dtype=DT)
    Vs = Vc + m
    f = pref.decompose(pref.gpm_scores(Vs)).potential
    torch.testing.assert_close(f, Vs @ pref.rotation(4) @ m)


def test_gpm_gate_scales_blocks_and_hrc_adds_clipped_reward():
    rng = np.random.default_rng(4)
    V = torch.tensor(rng.normal(size=(5, 4)))
    gate = torch.tensor([2.0, 0.0], dtype=DT)
    torch.testing.assert_close(pref.gpm_scores(V, gate), 4.0 * pref.gpm_scores(V[:, :2]))
    r = torch.tensor([3.0, -3.0, 0.5, 0.0, 0.1], dtype=DT)
    s = pref.hrc_scores(r, V, clip=1.0)
    torch.testing.assert_close(s, pref.bt_scores(r.clamp(-1, 1)) + pref.gpm_scores(V))
    assert float((s + s.T).abs().max()) < 1e-14


def test_bt_is_a_rank_two_gpm():
    r = torch.tensor([0.3, -1.2, 2.0], dtype=DT)
    c = 0.7
    V = torch.stack([r, torch.full_like(r, c)], -1)
    torch.testing.assert_close(pref.gpm_scores(V), -c * pref.bt_scores(r))  # sign of R^≻


def test_preference_loss_matches_bce_with_logits():
    s = torch.linspace(-3, 3, 21, dtype=DT)
    for tau in (0.1, 1.0):
        want = torch.nn.functional.binary_cross_entropy_with_logits(s / tau, torch.ones_like(s))
        torch.testing.assert_close(pref.preference_loss(s, tau), want)


# --- generators --------------------------------------------------------------------------------


def test_random_tournament_parts():
    ST, SC = _game(5, batch=3, K=7)
    assert ST.shape == SC.shape == (3, 7, 7)
    assert float(pref.decompose(ST).cyclic.abs().max()) < 1e-12
    assert float(pref.decompose(SC).transitive.abs().max()) < 1e-12


def test_dominant_cycle_data_labels_are_consistent_with_the_latent_geometry():
    X, pairs = pref.dominant_cycle_data(30, features=10, noise=0.0, generator=torch.Generator())
    assert X.shape == (30, 4, 10) and pairs.shape == (6, 2)
    assert set(map(tuple, pairs.tolist())) == {(1, 2), (2, 3), (3, 1), (0, 1), (0, 2), (0, 3)}
    # the features determine the latent (cos, sin, quality, 1) linearly: rank 4
    assert torch.linalg.matrix_rank(X.reshape(-1, 10).double(), rtol=1e-5) == 4


# --- Theorem C ---------------------------------------------------------------------------------


@pytest.mark.parametrize("d", [1, 2, 3])
def test_fixed_cycle_embedding_admits_no_dominant_response(d):
    th = 2 * np.pi * np.arange(5) / 5
    c = np.tile(np.c_[np.cos(th), np.sin(th)], d)
    assert pref.dominant_margin_lp(c) <= 1e-9
    assert abs(pref.dominant_margin_lp(c, reward=0.7) - 0.7) < 1e-9


def test_re_embedded_cycle_admits_a_dominant_response():
    th = -2 * np.pi * np.arange(3) / 3
    c = np.c_[np.cos(th), np.sin(th), np.ones(3), np.zeros(3)]
    assert pref.dominant_margin_lp(c) >= 1.0 - 1e-9


def test_tabular_gpm2_caps_at_five_sixths_and_hrc_fits_all():
    pairs = pref.dominant_cycle_pairs()
    gpm2 = pref.fit_tabular(pairs, 4, "gpm", 2, restarts=8, steps=300, generator=torch.Generator())
    hrc = pref.fit_tabular(pairs, 4, "hrc", 2, restarts=8, steps=300, generator=torch.Generator())
    assert float(gpm2.accuracy.max()) <= 5 / 6 + 1e-9
    assert float(hrc.accuracy.max()) == 1.0
    assert gpm2.scores.shape == (8, 4, 4)


def test_bt_head_matches_choix_mle():
    rng = np.random.default_rng(6)
    r = rng.normal(size=5)
    data = []
    for _ in range(1500):
        a, b = rng.choice(5, 2, replace=False)
        data.append((a, b) if rng.random() < 1 / (1 + np.exp(r[b] - r[a])) else (b, a))
    want = choix.ilsr_pairwise(5, data, alpha=0.0)
    fit = pref.fit_tabular(
        torch.tensor(data), 5, "bt", 0, restarts=1, steps=800, tau=1.0, generator=torch.Generator()
    )
    got = fit.scores[0].mean(1).numpy()
    assert np.abs(got - (want - want.mean())).max() < 1e-4


def test_fit_encoder_records_accuracies():
    X, pairs = pref.dominant_cycle_data(12, generator=torch.Generator().manual_seed(0))
    fit = pref.fit_encoder(
        X[:8], X[8:], pairs, "hrc", 2, seeds=2, steps=10, eval_every=5, generator=torch.Generator()
    )
    assert fit.steps.tolist() == [0, 5, 10]
    assert fit.test_accuracy.shape == (3, 2) and fit.train_accuracy.shape == (3, 2)
    assert ((fit.test_accuracy >= 0) & (fit.test_accuracy <= 1)).all()


# --- self-play ---------------------------------------------------------------------------------


def test_schedule_matches_the_papers_three_iterations():
    a, b = pref.schedule([1, 2, 3], 1.0)
    assert np.allclose(a.numpy(), [2.0, 1.7071, 1.5774], atol=1e-4)
    assert np.allclose(b.numpy(), [0.0, 0.2929, 0.4226], atol=1e-4)
    a0, b0 = pref.schedule(5, 0.0)
    assert float(a0) == 1.0 == float(b0)


@pytest.mark.parametrize("lam", [0.0, 1.0, 1.5, -1.0])
def test_self_play_matches_the_notebook_reference(lam):
    ST, SC = _game(7, batch=2)
    res = pref.self_play(ST, SC, 250, lam=lam)
    for b in range(2):
        want = REF["dsppo_reference"](ST[b].numpy(), SC[b].numpy(), 250, lam)
        assert np.allclose(res.average[b].numpy(), want, atol=1e-12)


def test_self_play_per_game_lambda_single_game_and_records():
    ST, SC = _game(8, batch=3)
    lam = torch.tensor([0.0, 1.0, 2.0], dtype=DT)
    res = pref.self_play(ST, SC, 64, lam=lam, record=[1, 8, 64])
    for b in range(3):
        one = pref.self_play(ST[b], SC[b], 64, lam=float(lam[b]))
        assert one.average.shape == (6,)
        torch.testing.assert_close(one.average, res.average[b])
    assert res.snapshots.shape == (3, 3, 6) and res.iterates.shape == (3, 3, 6)
    torch.testing.assert_close(res.snapshots[-1], res.average)
    torch.testing.assert_close(res.snapshots[0], torch.full((3, 6), 1 / 6, dtype=DT))


def test_self_play_gap_shrinks_and_lands_on_the_lp_equilibrium():
    ST, SC = _game(9, batch=3)
    P = torch.sigmoid(ST + SC)
    gaps = [pref.preference_gap(P, pref.self_play(ST, SC, T, lam=1.0).average) for T in (64, 4096)]
    assert bool((gaps[1] < gaps[0]).all())
    bound = (1.5 * math.sqrt(math.log(6)) + (ST - SC).abs().amax((-2, -1))) / math.sqrt(4096)
    assert bool((gaps[1] <= bound).all())
    for b in range(3):
        x = pref.preference_equilibrium(P[b])
        assert float(pref.preference_gap(P[b], torch.tensor(x))) < 1e-8


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 10_000), st.integers(2, 6))
def test_preference_gap_is_twice_the_best_excess_and_non_negative(seed, K):
    rng = np.random.default_rng(seed)
    P = torch.sigmoid(_skew(rng, K))
    pi = torch.tensor(rng.dirichlet(np.ones(K)))
    gap = float(pref.preference_gap(P, pi))
    assert abs(gap - 2 * (float((P @ pi).max()) - 0.5)) < 1e-12
    assert gap >= -1e-12
    assert abs(float(pi @ P @ pi) - 0.5) < 1e-12
    assert abs(gap - float(zerosum.duality_gap(P - 0.5, pi, pi))) < 1e-12


def test_equilibrium_matches_nashpy():
    ST, SC = _game(10, batch=3)
    for P in torch.sigmoid(ST + SC):
        x = pref.preference_equilibrium(P)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            x_np, _ = nash.Game(P.numpy() - 0.5).linear_program()
        assert np.abs(x - x_np).max() < 1e-6
    rps = torch.sigmoid(5 * torch.tensor([[0.0, -1, 1], [1, 0, -1], [-1, 1, 0]], dtype=DT))
    assert np.allclose(pref.preference_equilibrium(rps), 1 / 3)


# --- validation: one test per check ------------------------------------------------------------


def test_decompose_validates():
    with pytest.raises(ValueError, match=r"S must be a torch\.Tensor"):
        pref.decompose(np.zeros((3, 3)))
    with pytest.raises(ValueError, match="S must be square"):
        pref.decompose(torch.zeros(3, 4, dtype=DT))
    with pytest.raises(ValueError, match="skew-symmetric"):
        pref.decompose(torch.ones(3, 3, dtype=DT))
    with pytest.raises(ValueError, match="finite"):
        pref.decompose(torch.full((2, 2), math.nan, dtype=DT))
    with pytest.raises(ValueError, match="floating"):
        pref.decompose(torch.zeros(2, 2, dtype=torch.int64))


def test_potential_lstsq_validates():
    with pytest.raises(ValueError, match="one \\(n, n\\) matrix"):
        pref.potential_lstsq(torch.zeros(2, 3, 3, dtype=DT))
    with pytest.raises(ValueError, match="skew"):
        pref.potential_lstsq(np.ones((3, 3)))


def test_rotation_validates():
    with pytest.raises(ValueError, match="dim must be even"):
        pref.rotation(3)
    with pytest.raises(ValueError, match="dim must be >= 2"):
        pref.rotation(0)


def test_heads_validate():
    with pytest.raises(ValueError, match=r"r must be a torch\.Tensor"):
        pref.bt_scores([1.0, 2.0])
    with pytest.raises(ValueError, match="r must have at least one dimension"):
        pref.bt_scores(torch.tensor(1.0, dtype=DT))
    with pytest.raises(ValueError, match="r must contain only finite"):
        pref.bt_scores(torch.tensor([1.0, math.inf], dtype=DT))
    with pytest.raises(ValueError, match="V must have shape"):
        pref.gpm_scores(torch.zeros(3, 3, dtype=DT))
    with pytest.raises(ValueError, match="V must contain only finite"):
        pref.gpm_scores(torch.full((3, 2), math.nan, dtype=DT))
    with pytest.raises(ValueError, match="gate must have last axis"):
        pref.gpm_scores(torch.zeros(3, 4, dtype=DT), torch.ones(3, dtype=DT))
    with pytest.raises(ValueError, match="gate must be non-negative"):
        pref.gpm_scores(torch.zeros(3, 4, dtype=DT), -torch.ones(2, dtype=DT))
    with pytest.raises(ValueError, match="gate must contain only finite"):
        pref.gpm_scores(torch.zeros(3, 4, dtype=DT), torch.full((2,), math.inf, dtype=DT))
    with pytest.raises(ValueError, match="clip must be > 0"):
        pref.hrc_scores(torch.zeros(3, dtype=DT), torch.zeros(3, 2, dtype=DT), clip=0.0)
    with pytest.raises(ValueError, match="same items"):
        pref.hrc_scores(torch.zeros(4, dtype=DT), torch.zeros(3, 2, dtype=DT))
    with pytest.raises(ValueError, match="tau must be > 0"):
        pref.preference_loss(torch.zeros(3, dtype=DT), 0.0)
    with pytest.raises(ValueError, match="s must be a floating"):
        pref.preference_loss(torch.zeros(3, dtype=torch.int64))


def test_generators_validate():
    g = torch.Generator()
    with pytest.raises(ValueError, match="n must be >= 2"):
        pref.random_tournament(1, generator=g)
    with pytest.raises(ValueError, match="batch must be >= 1"):
        pref.random_tournament(3, batch=0, generator=g)
    with pytest.raises(ValueError, match="dim must be even"):
        pref.random_tournament(3, dim=3, generator=g)
    with pytest.raises(ValueError, match="reward_scale must be >= 0"):
        pref.random_tournament(3, reward_scale=-1.0, generator=g)
    with pytest.raises(ValueError, match="cyclic_scale must be >= 0"):
        pref.random_tournament(3, cyclic_scale=-1.0, generator=g)
    with pytest.raises(ValueError, match=r"generator must be a torch\.Generator"):
        pref.random_tournament(3, generator=0)
    with pytest.raises(ValueError, match="prompts must be >= 1"):
        pref.dominant_cycle_data(0, generator=g)
    with pytest.raises(ValueError, match="features must be >= 4"):
        pref.dominant_cycle_data(3, features=3, generator=g)
    with pytest.raises(ValueError, match="noise must be >= 0"):
        pref.dominant_cycle_data(3, noise=-0.1, generator=g)


def test_fit_tabular_validates():
    pairs, g = pref.dominant_cycle_pairs(), torch.Generator()
    with pytest.raises(ValueError, match="head must be one of"):
        pref.fit_tabular(pairs, 4, "xyz", 2, generator=g)
    with pytest.raises(ValueError, match="dim must be 0 for the Bradley"):
        pref.fit_tabular(pairs, 4, "bt", 2, generator=g)
    with pytest.raises(ValueError, match="positive even"):
        pref.fit_tabular(pairs, 4, "gpm", 3, generator=g)
    with pytest.raises(ValueError, match="pairs must index distinct items"):
        pref.fit_tabular(torch.tensor([[0, 0]]), 4, "gpm", 2, generator=g)
    with pytest.raises(ValueError, match="pairs must index distinct items"):
        pref.fit_tabular(torch.tensor([[0, 5]]), 4, "gpm", 2, generator=g)
    with pytest.raises(ValueError, match="pairs must be an integer tensor"):
        pref.fit_tabular(torch.zeros(3, 2), 4, "gpm", 2, generator=g)
    with pytest.raises(ValueError, match="n_items must be >= 2"):
        pref.fit_tabular(pairs, 1, "gpm", 2, generator=g)
    with pytest.raises(ValueError, match="restarts must be >= 1"):
        pref.fit_tabular(pairs, 4, "gpm", 2, restarts=0, generator=g)
    with pytest.raises(ValueError, match="steps must be >= 0"):
        pref.fit_tabular(pairs, 4, "gpm", 2, steps=-1, generator=g)
    with pytest.raises(ValueError, match="lr must be > 0"):
        pref.fit_tabular(pairs, 4, "gpm", 2, lr=0.0, generator=g)
    with pytest.raises(ValueError, match="tau must be > 0"):
        pref.fit_tabular(pairs, 4, "gpm", 2, tau=0.0, generator=g)
    with pytest.raises(ValueError, match="clip must be > 0"):
        pref.fit_tabular(pairs, 4, "hrc", 2, clip=0.0, generator=g)
    with pytest.raises(ValueError, match="init_scale must be > 0"):
        pref.fit_tabular(pairs, 4, "gpm", 2, init_scale=0.0, generator=g)
    with pytest.raises(ValueError, match="generator must be"):
        pref.fit_tabular(pairs, 4, "gpm", 2, generator=None)


def test_fit_encoder_validates():
    X, pairs = pref.dominant_cycle_data(4, generator=torch.Generator())
    g = torch.Generator()
    with pytest.raises(ValueError, match="X_train must have 3 dimensions"):
        pref.fit_encoder(X[0], X, pairs, "gpm", 2, generator=g)
    with pytest.raises(ValueError, match="X_test must contain only finite"):
        pref.fit_encoder(X, X * math.nan, pairs, "gpm", 2, generator=g)
    with pytest.raises(ValueError, match="same items and features"):
        pref.fit_encoder(X, X[:, :3], pairs, "gpm", 2, generator=g)
    with pytest.raises(ValueError, match="share a device and a dtype"):
        pref.fit_encoder(X, X.double(), pairs, "gpm", 2, generator=g)
    with pytest.raises(ValueError, match="seeds must be >= 1"):
        pref.fit_encoder(X, X, pairs, "gpm", 2, seeds=0, generator=g)
    with pytest.raises(ValueError, match="steps must be >= 1"):
        pref.fit_encoder(X, X, pairs, "gpm", 2, steps=0, generator=g)
    with pytest.raises(ValueError, match="hidden must be >= 1"):
        pref.fit_encoder(X, X, pairs, "gpm", 2, hidden=0, generator=g)
    with pytest.raises(ValueError, match="lr must be > 0"):
        pref.fit_encoder(X, X, pairs, "gpm", 2, lr=-1.0, generator=g)
    with pytest.raises(ValueError, match="tau must be > 0"):
        pref.fit_encoder(X, X, pairs, "gpm", 2, tau=0.0, generator=g)
    with pytest.raises(ValueError, match="clip must be > 0"):
        pref.fit_encoder(X, X, pairs, "hrc", 2, clip=0.0, generator=g)
    with pytest.raises(ValueError, match="eval_every must be >= 1"):
        pref.fit_encoder(X, X, pairs, "gpm", 2, eval_every=0, generator=g)
    with pytest.raises(ValueError, match="head must be one of"):
        pref.fit_encoder(X, X, pairs, "rank", 2, generator=g)


def test_dominant_margin_lp_validates():
    with pytest.raises(ValueError, match="cycle must have shape"):
        pref.dominant_margin_lp(np.zeros((3, 3)))
    with pytest.raises(ValueError, match="cycle must contain only finite"):
        pref.dominant_margin_lp(np.full((3, 2), np.nan))
    with pytest.raises(ValueError, match="reward must be finite"):
        pref.dominant_margin_lp(np.ones((3, 2)), reward=math.inf)
    with pytest.raises(ValueError, match="bound must be > 0"):
        pref.dominant_margin_lp(np.ones((3, 2)), bound=0.0)


def test_schedule_validates():
    with pytest.raises(ValueError, match="t must be iteration numbers >= 1"):
        pref.schedule(0, 1.0)
    with pytest.raises(ValueError, match="lam must contain only finite"):
        pref.schedule(1, math.nan)


def test_self_play_validates():
    ST, SC = _game(11, batch=2)
    with pytest.raises(ValueError, match="S_T and S_C must match"):
        pref.self_play(ST, SC[:1], 10)
    with pytest.raises(ValueError, match="S_C must be skew"):
        pref.self_play(ST, SC + 1.0, 10)
    with pytest.raises(ValueError, match=r"S_T must have shape \(K, K\) or \(B, K, K\)"):
        pref.self_play(ST[None], SC[None], 10)
    with pytest.raises(ValueError, match="T must be >= 1"):
        pref.self_play(ST, SC, 0)
    with pytest.raises(ValueError, match="eta must be > 0"):
        pref.self_play(ST, SC, 10, eta=0.0)
    with pytest.raises(ValueError, match="record must be <= 10"):
        pref.self_play(ST, SC, 10, record=[11])
    with pytest.raises(ValueError, match="lam must be a number or have shape"):
        pref.self_play(ST, SC, 10, lam=torch.zeros(3, dtype=DT))
    with pytest.raises(ValueError, match="lam must contain only finite"):
        pref.self_play(ST, SC, 10, lam=math.inf)
    with pytest.raises(ValueError, match="pi0 must have shape"):
        pref.self_play(ST, SC, 10, pi0=torch.full((6,), 1 / 6, dtype=DT))
    with pytest.raises(ValueError, match="pi0 must sum to one"):
        pref.self_play(ST, SC, 10, pi0=torch.full((2, 6), 0.5, dtype=DT))


def test_preference_gap_and_equilibrium_validate():
    P = torch.full((3, 3), 0.5, dtype=DT)
    with pytest.raises(ValueError, match="P must hold probabilities"):
        pref.preference_gap(P + 1.0, torch.full((3,), 1 / 3, dtype=DT))
    with pytest.raises(ValueError, match="P must satisfy P"):
        pref.preference_gap(torch.full((3, 3), 0.2, dtype=DT), torch.full((3,), 1 / 3, dtype=DT))
    with pytest.raises(ValueError, match="P must be square"):
        pref.preference_gap(torch.full((3, 2), 0.5, dtype=DT), torch.full((3,), 1 / 3, dtype=DT))
    with pytest.raises(ValueError, match=r"pi must be a torch\.Tensor"):
        pref.preference_gap(P, [1 / 3] * 3)
    with pytest.raises(ValueError, match="pi must sum to one"):
        pref.preference_gap(P, torch.full((3,), 0.5, dtype=DT))
    with pytest.raises(ValueError, match="P must be one \\(K, K\\) matrix"):
        pref.preference_equilibrium(torch.full((2, 3, 3), 0.5, dtype=DT))
    with pytest.raises(ValueError, match="P must hold probabilities"):
        pref.preference_equilibrium(np.full((3, 3), 2.0))
