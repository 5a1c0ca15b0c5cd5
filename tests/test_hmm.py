"""Tests of icml26.sequential.hmm (chapter 02): simulator, filter, Baum–Welch, hmmlearn."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from hmmlearn.hmm import CategoricalHMM, GaussianHMM
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from icml26.pipeline.notebooks import notebook_functions
from icml26.sequential import categorical, hmm

DT = torch.float64


def chain(stay: float = 0.9, n: int = 3) -> tuple[torch.Tensor, torch.Tensor]:
    P = torch.full((n, n), (1 - stay) / (n - 1), dtype=DT)
    P.fill_diagonal_(stay)
    return P, torch.full((n,), 1.0 / n, dtype=DT)


MU = torch.tensor([[0.0, 1.0], [0.87, -0.5], [-0.87, -0.5]], dtype=DT)
VAR = torch.tensor([[1.0, 0.5], [0.8, 1.2], [1.5, 1.0]], dtype=DT)


def data(runs: int = 2, steps: int = 300, seed: int = 0, var: torch.Tensor = VAR):
    P, pi = chain()
    g = torch.Generator().manual_seed(seed)
    S, X = hmm.simulate(P, pi, MU, var, runs, steps, generator=g)
    return P, pi, S, X


# The chapter's readable forward filter, loaded from the notebook (never copied).
reference_filter = notebook_functions("02-hmm-bandits", "reference_filter")["reference_filter"]


def gaussian_ref(P, pi, means, var, **kw) -> GaussianHMM:
    m = GaussianHMM(n_components=P.shape[0], covariance_type="diag", init_params="", **kw)
    m.startprob_, m.transmat_ = pi.numpy(), P.numpy()
    m.means_, m.covars_ = means.numpy(), var.numpy()
    return m


# ----------------------------------------------------------------------------- simulator
def test_simulate_shapes_and_transition_frequencies():
    P, pi = chain(0.8)
    g = torch.Generator().manual_seed(1)
    S, X = hmm.simulate(P, pi, MU, VAR, 8, 4000, generator=g)
    assert S.shape == (8, 4000) and X.shape == (8, 4000, 2) and S.dtype == torch.long
    counts = torch.zeros(3, 3, dtype=DT)
    counts.index_put_(
        (S[:, :-1].reshape(-1), S[:, 1:].reshape(-1)), torch.ones(1, dtype=DT), accumulate=True
    )
    est = counts / counts.sum(1, keepdim=True)
    assert torch.allclose(est, P, atol=0.02)
    # emissions: mean of the contexts of state 0
    assert torch.allclose(X[S == 0].mean(0), MU[0], atol=0.05)


def test_simulate_is_reproducible_and_accepts_per_run_parameters():
    P, pi = chain()
    a = hmm.simulate(P, pi, MU, VAR, 3, 50, generator=torch.Generator().manual_seed(5))
    b = hmm.simulate(
        P.expand(3, 3, 3),
        pi.expand(3, 3),
        MU.expand(3, 3, 2),
        VAR,
        3,
        50,
        generator=torch.Generator().manual_seed(5),
    )
    assert torch.equal(a[0], b[0]) and torch.allclose(a[1], b[1])


# ----------------------------------------------------------------------------- filter
def test_filter_matches_reference_and_log_space():
    P, pi, _, X = data()
    lo = hmm.gaussian_loglik(X, MU, VAR)
    b, ll = hmm.forward_filter(lo, P, pi)
    b2, ll2 = hmm.forward_filter(lo, P, pi, log_space=True)
    ref_b, ref_ll = reference_filter(X[1].numpy(), P.numpy(), pi.numpy(), MU.numpy(), VAR.numpy())
    assert np.abs(b[1].numpy() - ref_b).max() < 1e-12
    assert abs(float(ll[1]) - ref_ll) < 1e-9
    assert torch.allclose(b, b2, atol=1e-12) and torch.allclose(ll, ll2, atol=1e-8)
    assert torch.allclose(b.sum(-1), torch.ones(b.shape[:2], dtype=DT))


def test_filter_matches_hmmlearn_gaussian():
    P, pi, _, X = data(runs=2, steps=1500, seed=3)
    b, ll = hmm.forward_filter(hmm.gaussian_loglik(X, MU, VAR), P, pi)
    ref = gaussian_ref(P, pi, MU, VAR)
    for r in range(2):
        x = X[r].numpy()
        assert abs(float(ll[r]) - ref.score(x)) < 1e-6
        assert np.abs(ref.predict_proba(x)[-1] - b[r, -1].numpy()).max() < 1e-6


def test_filter_matches_hmmlearn_categorical():
    P, pi = chain(0.85)
    B = torch.tensor([[0.7, 0.2, 0.1, 0.0], [0.1, 0.6, 0.2, 0.1], [0.05, 0.05, 0.3, 0.6]], dtype=DT)
    rng = np.random.default_rng(0)
    obs = rng.integers(0, 4, size=800)
    log_obs = B.clamp_min(1e-300).log()[:, torch.as_tensor(obs)].T.unsqueeze(0)  # (1, T, N)
    b, ll = hmm.forward_filter(log_obs, P, pi)
    ref = CategoricalHMM(n_components=3, n_features=4, init_params="")
    ref.startprob_, ref.transmat_, ref.emissionprob_ = pi.numpy(), P.numpy(), B.numpy()
    assert abs(float(ll[0]) - ref.score(obs[:, None])) < 1e-6
    assert np.abs(ref.predict_proba(obs[:, None])[-1] - b[0, -1].numpy()).max() < 1e-6


def test_forward_backward_matches_hmmlearn_smoother():
    P, pi, _, X = data(runs=1, steps=600, seed=4)
    gamma, xi, _ = hmm.forward_backward(hmm.gaussian_loglik(X, MU, VAR), P, pi)
    ref = gaussian_ref(P, pi, MU, VAR)
    assert np.abs(ref.predict_proba(X[0].numpy()) - gamma[0].numpy()).max() < 1e-8
    assert abs(float(xi.sum()) - 599) < 1e-8  # T - 1 transitions


# ----------------------------------------------------------------------------- Baum–Welch
def test_baum_welch_matches_hmmlearn_from_same_start():
    _, pi, _, X = data(runs=1, steps=800, seed=6)
    P0, _ = chain(0.7)
    mu0 = hmm.kmeans_init(X, 3)[0]
    var0 = torch.ones(3, 2, dtype=DT)
    Pe, pie, mue, ve, trace = hmm.baum_welch(X, P0, pi, mu0, var0, n_iter=8)
    ref = gaussian_ref(P0, pi, mu0, var0, params="stmc", n_iter=8, tol=-np.inf, covars_prior=0.0)
    ref.fit(X[0].numpy())
    assert np.abs(Pe[0].numpy() - ref.transmat_).max() < 1e-6
    assert np.abs(pie[0].numpy() - ref.startprob_).max() < 1e-6
    assert np.abs(mue[0].numpy() - ref.means_).max() < 1e-6
    assert np.abs(ve[0].numpy() - np.diagonal(ref.covars_, axis1=1, axis2=2)).max() < 1e-6
    assert (trace.diff(dim=1) > -1e-9).all()  # EM never decreases the likelihood


def test_baum_welch_agrees_with_independent_hmmlearn_fit_up_to_permutation():
    _, pi, _, X = data(runs=1, steps=600, seed=7)
    P0, _ = chain(0.6)
    _, _, mue, _, trace = hmm.baum_welch(
        X, P0, pi, hmm.kmeans_init(X, 3), torch.ones(3, 2, dtype=DT), n_iter=40
    )
    # hmmlearn initialises the emissions itself (sklearn k-means, covariance of the data);
    # from a uniform transition matrix it can stop in a worse optimum, so it starts from P0
    ref = GaussianHMM(
        n_components=3,
        covariance_type="diag",
        n_iter=300,
        tol=1e-10,
        random_state=0,
        covars_prior=0.0,
        init_params="mc",
    )
    ref.startprob_, ref.transmat_ = pi.numpy(), P0.numpy()
    ref.fit(X[0].numpy())
    perm = hmm.align_states(torch.as_tensor(ref.means_).unsqueeze(0), mue)[0].numpy()
    assert np.abs(ref.means_[perm] - mue[0].numpy()).max() < 1e-3
    assert abs(ref.score(X[0].numpy()) - float(trace[0, -1])) < 1e-3


def test_align_and_permute_recover_a_relabelling():
    P, pi = chain(0.9)
    P = P + torch.tensor([[0.0, 0.02, -0.02], [0.0, 0.0, 0.0], [0.01, -0.01, 0.0]], dtype=DT)
    perm = torch.tensor([[2, 0, 1]])
    Pp, pip, mup, vp = hmm.permute_hmm(
        perm, P.unsqueeze(0), pi.unsqueeze(0), MU.unsqueeze(0), VAR.unsqueeze(0)
    )
    assert torch.allclose(mup[0], MU[[2, 0, 1]]) and torch.allclose(Pp[0, 0, 1], P[2, 0])
    back = hmm.align_states(mup, MU)
    P2, _, mu2, v2 = hmm.permute_hmm(back, Pp, pip, mup, vp)
    assert torch.allclose(mu2[0], MU) and torch.allclose(P2[0], P) and torch.allclose(v2[0], VAR)


# ----------------------------------------------------------------------------- forgetting
def test_birkhoff_contraction_holds_pathwise():
    P, _, _, X = data(runs=16, steps=40, seed=8)
    lo = hmm.gaussian_loglik(X, MU, VAR)
    a = torch.tensor([0.9, 0.05, 0.05], dtype=DT)
    b = torch.tensor([0.05, 0.05, 0.9], dtype=DT)
    d = hmm.hilbert_distance(hmm.forward_filter(lo, P, a)[0], hmm.forward_filter(lo, P, b)[0])
    tau = hmm.birkhoff_coefficient(P)
    steps = torch.arange(40, dtype=DT)
    assert (d <= d[:, :1] * tau**steps + 1e-12).all()
    tv = hmm.tv_distance(hmm.forward_filter(lo, P, a)[0], hmm.forward_filter(lo, P, b)[0])
    assert (tv <= 1 - torch.exp(-d) + 1e-12).all()


def test_rates_of_a_known_chain():
    P, _ = chain(0.9)
    assert math.isclose(hmm.second_eigenvalue_modulus(P), 0.85, rel_tol=1e-9)
    assert math.isclose(hmm.dobrushin_coefficient(P), 0.85, rel_tol=1e-9)
    assert math.isclose(hmm.birkhoff_coefficient(P), math.tanh(math.log(0.81 / 0.0025) / 4))
    d = 3.0 * 0.7 ** torch.arange(30, dtype=DT).expand(4, 30)
    assert math.isclose(hmm.fit_contraction_rate(d), 0.7, rel_tol=1e-9)


# ----------------------------------------------------------------------------- re-estimation
def test_doubling_epochs():
    assert hmm.doubling_epochs(1000, 10_000) == [1000, 2000, 4000, 8000]
    assert hmm.doubling_epochs(3, 7) == [3, 6]
    with pytest.raises(ValueError, match="t_max"):
        hmm.doubling_epochs(10, 10)
    with pytest.raises(ValueError, match="t_first"):
        hmm.doubling_epochs(0, 10)


def test_epoch_beliefs_fixed_estimate_and_continuation():
    P, pi, _, X = data(runs=3, steps=200)
    lo = hmm.gaussian_loglik(X, MU, VAR)
    # one epoch, given estimate: exactly the filter over the whole horizon
    b1, fits = hmm.epoch_beliefs(X, [50], P, pi, MU, VAR, n_iter_first=0)
    assert len(fits) == 1
    torch.testing.assert_close(b1, hmm.forward_filter(lo, P, pi)[0], rtol=0, atol=1e-12)
    # two epochs: the first piece is the first estimate's filter, the second continues from
    # b_hat_{t_2 - 1} with the refitted parameters (aligned to the first labelling)
    b2, fits = hmm.epoch_beliefs(X, [50, 120], P, pi, MU, VAR, n_iter_first=0, n_iter=2)
    torch.testing.assert_close(b2[:, :120], b1[:, :120], rtol=0, atol=1e-12)
    P2, _, mu2, var2 = fits[1]
    pred = torch.bmm(b1[:, 119:120], P2).squeeze(1)
    ref, _ = hmm.forward_filter(hmm.gaussian_loglik(X[:, 120:], mu2, var2), P2, pred)
    torch.testing.assert_close(b2[:, 120:], ref, rtol=0, atol=1e-12)
    # the refit is warm-started Baum-Welch on the first 120 contexts, then relabelled
    direct = hmm.baum_welch(X[:, :120], P, pi, MU, VAR, n_iter=2)
    perm = hmm.align_states(direct[2], MU.expand(3, -1, -1))
    torch.testing.assert_close(mu2, hmm.permute_hmm(perm, *direct[:4])[2])


def test_epoch_beliefs_are_causal_and_recover_a_relabelled_start():
    P, pi, _, X = data(runs=2, steps=300)
    b, _ = hmm.epoch_beliefs(X, [100, 200], P, pi, MU, VAR, n_iter_first=3, n_iter=2)
    X2 = X.clone()
    X2[:, 250:] += 5.0  # change the future: beliefs up to round 249 must not move
    b2, _ = hmm.epoch_beliefs(X2, [100, 200], P, pi, MU, VAR, n_iter_first=3, n_iter=2)
    torch.testing.assert_close(b[:, :250], b2[:, :250], rtol=0, atol=0)
    assert torch.allclose(b.sum(-1), torch.ones(2, 300, dtype=DT))


def test_epoch_beliefs_validation():
    P, pi, _, X = data(runs=1, steps=50)
    with pytest.raises(ValueError, match="starts"):
        hmm.epoch_beliefs(X, [20, 10], P, pi, MU, VAR)
    with pytest.raises(ValueError, match="starts"):
        hmm.epoch_beliefs(X, [50], P, pi, MU, VAR)
    with pytest.raises(ValueError, match="starts"):
        hmm.epoch_beliefs(X, [], P, pi, MU, VAR)
    with pytest.raises(ValueError, match="n_iter"):
        hmm.epoch_beliefs(X, [10], P, pi, MU, VAR, n_iter=0)
    with pytest.raises(ValueError, match="x"):
        hmm.epoch_beliefs(X[0], [10], P, pi, MU, VAR)


# ----------------------------------------------------------------------------- validation
def test_validation_messages_name_the_argument():
    P, pi = chain()
    with pytest.raises(ValueError, match="steps"):
        hmm.simulate(P, pi, MU, VAR, 2, 0)
    with pytest.raises(ValueError, match="runs"):
        hmm.simulate(P, pi, MU, VAR, 0, 5)
    with pytest.raises(ValueError, match="pi"):
        hmm.simulate(P, torch.tensor([0.5, 0.5], dtype=DT), MU, VAR, 2, 5)
    with pytest.raises(ValueError, match="var"):
        hmm.simulate(P, pi, MU, -VAR, 2, 5)
    with pytest.raises(ValueError, match="log_obs"):
        hmm.forward_filter(torch.zeros(2, 5, 4, dtype=DT), P, pi)
    with pytest.raises(ValueError, match="P"):
        hmm.birkhoff_coefficient(torch.tensor([[1.0, 0.0], [0.5, 0.5]], dtype=DT))
    with pytest.raises(ValueError, match="n_iter"):
        hmm.baum_welch(torch.zeros(1, 5, 2, dtype=DT), P, pi, MU, VAR, n_iter=0)


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.floats(-1.0, 2.0, allow_nan=False), min_size=9, max_size=9),
)
def test_non_stochastic_transition_matrices_are_rejected(entries):
    P = torch.tensor(entries, dtype=DT).view(3, 3)
    pi = torch.full((3,), 1 / 3, dtype=DT)
    stochastic = bool((P >= 0).all()) and torch.allclose(P.sum(1), torch.ones(3, dtype=DT))
    lo = torch.zeros(1, 4, 3, dtype=DT)
    if stochastic:
        hmm.forward_filter(lo, P, pi)
    else:
        with pytest.raises(ValueError, match="P"):
            hmm.forward_filter(lo, P, pi)


# ----------------------------------------------------------------------------- finite contexts
B4 = torch.tensor([[0.6, 0.2, 0.1, 0.1], [0.1, 0.6, 0.2, 0.1], [0.1, 0.1, 0.2, 0.6]], dtype=DT)


def population_moments(P, pi, B):
    """Exact moments of (X_{t-1}, X_t, X_{t+1}) of a stationary chain.

    Equation hmm-bandits-eq-moments of chapter 02.
    """
    j3 = torch.einsum("i,ij,jk->ijk", pi, P, P)
    p12 = torch.einsum("i,ij,ix,jy->xy", pi, P, B, B)[None]
    p13 = torch.einsum("ijk,ix,kz->xz", j3, B, B)[None]
    p132 = torch.einsum("ijk,ix,kz,jy->xzy", j3, B, B, B)[None]
    return p12, p13, p132


def aligned(P_e, pi_e, B_e, B_true):
    perm = hmm.align_states(B_e, B_true)
    P_a, pi_a, B_a, _ = hmm.permute_hmm(perm, P_e, pi_e, B_e, B_e)
    return P_a, pi_a, B_a


def test_simulate_categorical_frequencies():
    P, pi = chain(0.8)
    S, obs = categorical.simulate_categorical(
        P, pi, B4, 4, 20_000, generator=torch.Generator().manual_seed(0)
    )
    assert obs.shape == (4, 20_000) and obs.dtype == torch.long
    for s in range(3):
        freq = torch.bincount(obs[S == s], minlength=4).double() / int((S == s).sum())
        assert (freq - B4[s]).abs().max() < 0.02


def test_categorical_loglik_shared_and_per_run_agree():
    P, pi = chain()
    _, obs = categorical.simulate_categorical(
        P, pi, B4, 3, 50, generator=torch.Generator().manual_seed(1)
    )
    shared = categorical.categorical_loglik(obs, B4)
    per_run = categorical.categorical_loglik(obs, B4.expand(3, -1, -1))
    assert shared.shape == (3, 50, 3)
    assert torch.equal(shared, per_run)
    assert torch.allclose(shared[1, 7], B4[:, obs[1, 7]].log())


def test_categorical_baum_welch_matches_hmmlearn_from_same_start():
    P, pi = chain(0.85)
    _, obs = categorical.simulate_categorical(
        P, pi, B4, 1, 800, generator=torch.Generator().manual_seed(2)
    )
    P0, _ = chain(0.7)
    B0 = torch.full((3, 4), 0.25, dtype=DT) + 0.05 * torch.tensor(
        [[1, -1, 0, 0], [0, 1, -1, 0], [0, 0, -1, 1]], dtype=DT
    )
    P_f, pi_f, B_f, trace = categorical.baum_welch_categorical(obs, P0, pi, B0, n_iter=15)
    assert bool((trace.diff(dim=1) > -1e-8).all())
    ref = CategoricalHMM(
        n_components=3, n_features=4, init_params="", params="ste", n_iter=15, tol=-np.inf
    )
    ref.startprob_, ref.transmat_, ref.emissionprob_ = pi.numpy(), P0.numpy(), B0.numpy()
    ref.fit(obs[0].numpy()[:, None])
    assert np.abs(P_f[0].numpy() - ref.transmat_).max() < 1e-8
    assert np.abs(B_f[0].numpy() - ref.emissionprob_).max() < 1e-8
    assert np.abs(pi_f[0].numpy() - ref.startprob_).max() < 1e-8


def test_spectral_is_exact_on_population_moments():
    P, pi = chain(0.9)
    P_e, pi_e, B_e = aligned(
        *categorical.spectral_from_moments(*population_moments(P, pi, B4), 3, floor=0.0), B4
    )
    assert (P_e[0] - P).abs().max() < 1e-10
    assert (B_e[0] - B4).abs().max() < 1e-10
    assert (pi_e[0] - pi).abs().max() < 1e-10


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10_000))
def test_spectral_recovers_random_identifiable_hmms(seed):
    g = torch.Generator().manual_seed(seed)
    n, d = 3, 5
    P = torch.rand(n, n, generator=g, dtype=DT) + 2.0 * torch.eye(n, dtype=DT)
    P = P / P.sum(1, keepdim=True)
    B = torch.rand(n, d, generator=g, dtype=DT) ** 3 + 0.02
    B = B / B.sum(1, keepdim=True)
    # the stationary law of P (left eigenvector for eigenvalue 1)
    evals, evecs = torch.linalg.eig(P.T)
    w = evecs[:, evals.real.argmax()].real
    w = w / w.sum()
    sv = torch.linalg.svdvals(B)
    eta = torch.randn(d, generator=torch.Generator().manual_seed(0), dtype=DT)  # the default
    gaps = torch.pdist((B @ eta).view(n, 1))  # eigenvalues of the random combination
    # nearly unidentifiable HMMs are not examples (the method needs rank and eigen-gaps)
    assume(float(sv.min()) >= 0.05 and float(gaps.min()) >= 0.02)
    P_e, w_e, B_e = aligned(
        *categorical.spectral_from_moments(*population_moments(P, w, B), n, floor=0.0), B
    )
    assert (B_e[0] - B).abs().max() < 1e-7
    assert (P_e[0] - P).abs().max() < 1e-7
    assert (w_e[0] - w).abs().max() < 1e-7


def test_spectral_likelihood_against_hmmlearn():
    """The spectral estimate from a long sequence scores almost as well as the truth (hmmlearn)."""
    P, pi = chain(0.9)
    g = torch.Generator().manual_seed(3)
    _, obs = categorical.simulate_categorical(P, pi, B4, 1, 40_000, generator=g)
    _, test = categorical.simulate_categorical(P, pi, B4, 1, 5_000, generator=g)
    P_e, pi_e, B_e = categorical.spectral_hmm(obs, 3, 4)
    est = CategoricalHMM(n_components=3, n_features=4, init_params="")
    est.startprob_, est.transmat_, est.emissionprob_ = (
        pi_e[0].numpy(),
        P_e[0].numpy(),
        B_e[0].numpy(),
    )
    true = CategoricalHMM(n_components=3, n_features=4, init_params="")
    true.startprob_, true.transmat_, true.emissionprob_ = pi.numpy(), P.numpy(), B4.numpy()
    x = test[0].numpy()[:, None]
    ll_est, ll_true = est.score(x) / 5_000, true.score(x) / 5_000
    uniform = math.log(1 / 4)
    assert ll_est > uniform + 0.5 * (ll_true - uniform)  # far better than knowing nothing
    assert abs(ll_est - ll_true) < 0.02  # nats per context
    _, ll_ours = hmm.forward_filter(categorical.categorical_loglik(test, B_e), P_e, pi_e)
    assert abs(float(ll_ours[0]) - est.score(x)) < 1e-6


def test_spectral_error_shrinks_with_the_sample():
    P, pi = chain(0.9)
    _, obs = categorical.simulate_categorical(
        P, pi, B4, 16, 16_000, generator=torch.Generator().manual_seed(4)
    )
    errs = []
    for n in (1_000, 16_000):
        _, _, B_e = aligned(*categorical.spectral_hmm(obs[:, :n], 3, 4), B4)
        errs.append(float((B_e - B4).abs().amax((1, 2)).median()))
    assert errs[1] < 0.5 * errs[0]  # 16x the data: about 4x smaller error


def test_finite_context_validation():
    P, pi = chain()
    obs = torch.zeros(2, 10, dtype=torch.long)
    with pytest.raises(ValueError, match="B"):
        categorical.simulate_categorical(P, pi, B4[:2], 2, 5)
    with pytest.raises(ValueError, match="B"):
        categorical.categorical_loglik(obs, B4 * 2)
    with pytest.raises(ValueError, match="obs"):
        categorical.categorical_loglik(obs.double(), B4)
    with pytest.raises(ValueError, match="obs"):
        categorical.categorical_loglik(obs + 4, B4)
    with pytest.raises(ValueError, match="n_iter"):
        categorical.baum_welch_categorical(obs, P, pi, B4, n_iter=0)
    with pytest.raises(ValueError, match="n_symbols"):
        categorical.spectral_moments(obs, 0)
    with pytest.raises(ValueError, match="obs"):
        categorical.spectral_moments(obs[:, :2], 4)
    with pytest.raises(ValueError, match="n_states"):
        categorical.spectral_hmm(obs, 5, 4)
    p12, p13, p132 = categorical.spectral_moments(obs, 4)
    with pytest.raises(ValueError, match="p132"):
        categorical.spectral_from_moments(p12, p13, p132[..., :2], 3)
    with pytest.raises(ValueError, match="floor"):
        categorical.spectral_from_moments(p12, p13, p132, 3, floor=-1.0)
    with pytest.raises(ValueError, match="eta"):
        categorical.spectral_from_moments(p12, p13, p132, 3, eta=torch.ones(3, dtype=DT))
