"""Tests of icml26.generative.unlearning (chapter 09): the exact tilt, the T3 estimator, the
metrics, the batched error grid, the learned classifier, and argument validation."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import integrate, special
from sklearn.linear_model import LogisticRegression

from icml26.generative import unlearning as t3
from icml26.pipeline.notebooks import notebook_functions

RETAIN = ([-3.0, 4.0], [1.0, 1.0], [0.5, 0.5])
GAMMA = 0.1
Z = t3.grid(-10.0, 10.0, 20_001)
P_R = t3.mixture_pdf(Z, *RETAIN)
SIG = torch.tensor([0.3, 0.1, 0.03], dtype=torch.float64)
P_F = t3.normal_pdf(Z, 0.5, SIG)
P = (1 - GAMMA) * P_R + GAMMA * P_F
ETA = t3.bayes_posterior(P_R, P_F, GAMMA)


def _gauss(mu: float, sd: float) -> torch.Tensor:
    return t3.normal_pdf(Z, mu, sd)


# --- the exact tilt and the prior correction ------------------------------------------------


def test_bayes_tilt_recovers_retain_density() -> None:
    pr_grid = P_R / t3.trapezoid(P_R, Z)
    for s in range(len(SIG)):
        q = t3.t3_density(Z, P[s], ETA[s], 1.0)
        assert float((q - pr_grid).abs().max()) < 1e-12
        assert abs(float(t3.trapezoid(P[s] * ETA[s], Z)) - (1 - GAMMA)) < 1e-8


@settings(max_examples=40, deadline=None)
@given(
    gamma=st.floats(0.01, 0.99),
    pi=st.floats(0.01, 0.99),
    mu=st.floats(-4.0, 5.0),
    sd=st.floats(0.2, 2.0),
)
def test_prior_correction_recovers_mixture_posterior(gamma, pi, mu, sd) -> None:
    p_f = _gauss(mu, sd)
    c = t3.train_posterior(P_R, p_f, pi)
    eta = t3.bayes_posterior(P_R, p_f, gamma)
    assert torch.allclose(t3.prior_correct(c, gamma, pi), eta, atol=1e-12)


def test_uncorrected_balanced_tilt_is_biased_on_overlap() -> None:
    p_f = _gauss(4.0, 0.3)
    p = (1 - GAMMA) * P_R + GAMMA * p_f
    c = t3.train_posterior(P_R, p_f, 0.5)
    assert float(t3.kl_divergence(Z, P_R, t3.t3_density(Z, p, c, 1.0))) > 1e-2
    fixed = t3.t3_density(Z, p, t3.prior_correct(c, GAMMA, 0.5), 1.0)
    assert abs(float(t3.kl_divergence(Z, P_R, fixed))) < 1e-8


def test_prior_correct_endpoints() -> None:
    c = torch.tensor([0.0, 0.5, 1.0], dtype=torch.float64)
    out = t3.prior_correct(c, 0.1, 0.5)
    assert out[0] == 0.0 and out[2] == 1.0 and math.isclose(float(out[1]), 0.9)


# --- controlled classifier, amplification, tempering -----------------------------------------


@settings(max_examples=25, deadline=None)
@given(kappa=st.floats(0.0, 1.0), s=st.integers(0, 2))
def test_shrinkage_excess_risk_at_most_kappa_ln2(kappa, s) -> None:
    delta = float(t3.excess_logloss(Z, P[s], ETA[s], t3.shrink(ETA[s], kappa)))
    assert -1e-12 <= delta <= kappa * math.log(2) + 1e-12


def test_shrink_and_logit_shift_shapes_and_values() -> None:
    k = torch.tensor([0.0, 0.1, 1.0], dtype=torch.float64)
    out = t3.shrink(ETA, k)
    assert out.shape == (3, *ETA.shape)
    assert torch.equal(out[0], ETA) and torch.allclose(out[2], torch.full_like(ETA, 0.5))
    assert float(t3.shrink(ETA, 0.1).min()) >= 0.05
    e = torch.tensor([1e-200, 0.5, 1.0], dtype=torch.float64)
    ls = t3.logit_shift(e, math.log(3.0))
    assert math.isclose(float(ls[1]), 0.75) and float(ls[0]) == pytest.approx(3e-200, rel=1e-9)


def test_guidance_lower_bound_and_slopes() -> None:
    kappa = 0.1
    eta_hat = t3.shrink(ETA, kappa)[None]
    T = torch.tensor([1.0, 2.0], dtype=torch.float64)
    res = t3.error_grid(Z, P_R, P_F, GAMMA, T, eta_hat)
    fe = res["forget_error"][:, 0, :]
    zhat = (1 - kappa) * (1 - GAMMA) + kappa / 2
    lower = kappa * GAMMA / (2 * zhat) * t3.trapezoid(P_F**2, Z) - t3.trapezoid(P_F * P_R, Z)
    assert bool((fe[:, 0] >= lower - 1e-12).all())
    peak = 1 / (SIG * math.sqrt(2 * math.pi))
    assert 0.8 <= t3.loglog_slope(peak, fe[:, 0]) <= 1.2
    assert t3.loglog_slope(peak[1:], fe[1:, 1]) < 0.75


def test_tempering_bias_is_the_bregman_formula_and_increasing() -> None:
    T = torch.tensor([1.0, 1.5, 2.0, 3.0, 5.0], dtype=torch.float64)
    kl = t3.error_grid(Z, P_R, P_F[-1:], GAMMA, T, ETA[-1:][None])["retain_kl"][0, 0]
    assert abs(float(kl[0])) < 1e-8 and bool((kl.diff() > 0).all())
    # KL = Λ(−s) + s Λ'(0) with Λ(t) = ln E_{p_r} p^t
    log_p = torch.log(P[-1])
    mass = t3.trapezoid(P_R, Z)
    for Tk, klk in zip(T.tolist(), kl.tolist(), strict=True):
        s = 1 - 1 / Tk
        lam = torch.log(t3.trapezoid(P_R * torch.exp(-s * log_p), Z) / mass)
        dlam = t3.trapezoid(P_R * log_p, Z) / mass
        assert klk == pytest.approx(float(lam + s * dlam), abs=1e-8)


def test_t3_density_is_normalised_and_broadcasts() -> None:
    T = torch.tensor([[1.0], [2.0], [4.0]], dtype=torch.float64)
    q = t3.t3_density(Z, P, ETA, T)
    assert q.shape == (3, 3, Z.numel())
    assert torch.allclose(t3.trapezoid(q, Z), torch.ones(3, 3, dtype=torch.float64), atol=1e-12)
    # tempering the product instead is a different estimate
    wrong = (P[0] * ETA[0]) ** 0.5
    wrong = wrong / t3.trapezoid(wrong, Z)
    assert float((wrong - t3.t3_density(Z, P[0], ETA[0], 2.0)).abs().max()) > 1e-2


# --- the error grid against direct computation and the notebook reference -------------------


def test_error_grid_matches_direct_metrics() -> None:
    T = torch.tensor([1.0, 1.7, 3.0], dtype=torch.float64)
    eh = torch.stack([t3.shrink(ETA, 0.2), t3.logit_shift(ETA, 1.0)])
    res = t3.error_grid(Z, P_R, P_F, GAMMA, T, eh)
    for s in range(len(SIG)):
        for c in range(2):
            for k, Tk in enumerate(T.tolist()):
                q = t3.t3_density(Z, P[s], eh[c, s], Tk)
                assert float(res["retain_kl"][s, c, k]) == pytest.approx(
                    float(t3.kl_divergence(Z, P_R, q)), abs=1e-10
                )
                assert float(res["forget_error"][s, c, k]) == pytest.approx(
                    float(t3.forget_error(Z, P_F[s], q, P_R)), abs=1e-10
                )
                assert float(res["excess_loglik"][s, c, k]) == pytest.approx(
                    float(t3.excess_loglik(Z, P_F[s], q, P_R)), abs=1e-9
                )


def test_error_grid_matches_notebook_reference() -> None:
    ref = notebook_functions(
        "09-t3-unlearning", "t3_reference", "errors_reference", "error_grid_reference"
    )["error_grid_reference"]
    T = [1.0, 2.0]
    eh = torch.stack([ETA, t3.shrink(ETA, 0.1)])
    res = t3.error_grid(Z, P_R, P_F, GAMMA, torch.tensor(T, dtype=torch.float64), eh)
    want = ref(Z.numpy(), P_R.numpy(), [p.numpy() for p in P_F], GAMMA, T, [e.numpy() for e in eh])
    for i, key in enumerate(["retain_kl", "forget_error", "excess_loglik"]):
        np.testing.assert_allclose(res[key].numpy(), want[i], atol=1e-9, rtol=1e-7)


def test_metrics_against_scipy() -> None:
    q = t3.t3_density(Z, P[1], t3.shrink(ETA[1], 0.1), 2.0)
    kl_sp = integrate.trapezoid(special.rel_entr(P_R.numpy(), q.numpy()), Z.numpy())
    assert float(t3.kl_divergence(Z, P_R, q)) == pytest.approx(kl_sp, abs=1e-13)
    assert float(t3.trapezoid(P_R, Z)) == pytest.approx(integrate.trapezoid(P_R.numpy(), Z.numpy()))
    assert float(t3.leaked_mass(Z, P_F[0], 0.5, 3 * 0.3)) == pytest.approx(0.9973, abs=1e-3)


# --- the learned classifier, sampling, slopes -----------------------------------------------


def test_fit_logistic_matches_sklearn() -> None:
    gen = torch.Generator().manual_seed(0)
    x, y = t3.sample_mixture(800, GAMMA, RETAIN, (0.5, 0.05), batch=2, generator=gen)
    centres = torch.linspace(-10, 10, 20, dtype=torch.float64)
    X = t3.rbf_features(x, centres, 1.0)
    w = t3.fit_logistic(X, y, 1.0)
    for b in range(2):
        sk = LogisticRegression(C=1.0, tol=1e-12, max_iter=10_000).fit(X[b].numpy(), y[b].numpy())
        np.testing.assert_allclose(w[b].numpy(), np.r_[sk.coef_[0], sk.intercept_], atol=1e-4)
    prob = t3.predict_logistic(t3.rbf_features(Z[:50], centres, 1.0), w)
    assert prob.shape == (2, 50) and bool(((prob > 0) & (prob < 1)).all())


def test_sampling() -> None:
    gen = torch.Generator().manual_seed(1)
    x, y = t3.sample_mixture(20_000, GAMMA, RETAIN, (0.5, 0.01), generator=gen)
    assert x.shape == y.shape == (1, 20_000)
    assert abs(float(1 - y.double().mean()) - GAMMA) < 0.01
    assert float((x[y == 0] - 0.5).abs().max()) < 0.06
    draws = t3.sample_density(Z, P_R, 20_000, generator=gen)
    assert (
        abs(float(draws.mean()) - 0.5) < 0.05 and abs(float(draws.std()) - math.sqrt(13.25)) < 0.05
    )


def test_loglog_slope_exact_for_power_law() -> None:
    x = np.array([1.0, 2.0, 5.0, 10.0])
    assert t3.loglog_slope(x, 3.0 * x**0.5) == pytest.approx(0.5)


# --- argument validation: one test per check --------------------------------------------------

G3 = torch.linspace(0.0, 1.0, 3, dtype=torch.float64)
D3 = torch.ones(3, dtype=torch.float64)


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: t3.grid(1.0, 0.0, 10), "hi"),
        (lambda: t3.grid(0.0, 1.0, 1), "n"),
        (lambda: t3.grid(float("nan"), 1.0, 10), "lo"),
        (lambda: t3.trapezoid(torch.ones(4, dtype=torch.float64), G3), "y"),
        (lambda: t3.trapezoid(D3, torch.tensor([0.0, 2.0, 1.0], dtype=torch.float64)), "z"),
        (lambda: t3.trapezoid(D3, torch.zeros(1, dtype=torch.float64)), "z"),
        (lambda: t3.trapezoid(D3, [0.0, 1.0, 2.0]), "z"),
        (lambda: t3.normal_pdf(G3, 0.0, 0.0), "std"),
        (lambda: t3.normal_pdf(G3, float("inf"), 1.0), "mean"),
        (lambda: t3.mixture_pdf(G3, [0.0], [1.0, 2.0], [1.0]), "means"),
        (lambda: t3.mixture_pdf(G3, [0.0, 1.0], [1.0, 1.0], [0.7, 0.7]), "weights"),
        (lambda: t3.train_posterior(D3, D3, 1.0), "pi"),
        (lambda: t3.train_posterior(-D3, D3, 0.5), "p_r"),
        (lambda: t3.train_posterior(D3, D3 * float("nan"), 0.5), "p_f"),
        (lambda: t3.bayes_posterior(D3, D3, 0.0), "gamma"),
        (lambda: t3.prior_correct(D3 * 1.5, 0.1, 0.5), "c"),
        (lambda: t3.prior_correct(D3 * 0.5, 0.1, 0.0), "pi"),
        (lambda: t3.shrink(D3 * 0.5, 1.5), "kappa"),
        (lambda: t3.shrink(D3 * 0.5, torch.tensor([0.1, -0.1])), "kappa"),
        (lambda: t3.logit_shift(D3 * 0.5, float("inf")), "shift"),
        (lambda: t3.t3_density(G3, D3, D3, 0.5), "T"),
        (lambda: t3.t3_density(G3, torch.ones(4, dtype=torch.float64), D3, 1.0), "p"),
        (lambda: t3.t3_density(G3, D3, -D3, 1.0), "f"),
        (lambda: t3.kl_divergence(G3, D3, torch.ones(3, dtype=torch.int64)), "q"),
        (lambda: t3.forget_error(G3, D3, D3, torch.ones(2, dtype=torch.float64)), "p_r"),
        (lambda: t3.leaked_mass(G3, D3, 0.5, 0.0), "halfwidth"),
        (lambda: t3.excess_loglik(G3, -D3, D3, D3), "p_f"),
        (lambda: t3.excess_logloss(G3, D3, D3 * 2, D3 * 0.5), "eta"),
        (lambda: t3.excess_logloss(G3, D3, D3 * 0.5, -D3), "eta_hat"),
        (lambda: t3.rbf_features(G3, G3, 0.0), "width"),
        (lambda: t3.rbf_features(G3, G3[None], 1.0), "centres"),
        (lambda: t3.fit_logistic(torch.ones(2, 3, dtype=torch.float64), torch.ones(2, 3)), "X"),
        (
            lambda: t3.fit_logistic(torch.ones(1, 3, 2, dtype=torch.float64), torch.ones(1, 4)),
            "y",
        ),
        (
            lambda: t3.fit_logistic(torch.ones(1, 3, 2, dtype=torch.float64), 2 * torch.ones(1, 3)),
            "y",
        ),
        (
            lambda: t3.fit_logistic(
                torch.ones(1, 3, 2, dtype=torch.float64), torch.ones(1, 3), C=0.0
            ),
            "C",
        ),
        (
            lambda: t3.predict_logistic(
                torch.ones(3, 2, dtype=torch.float64), torch.ones(1, 2, dtype=torch.float64)
            ),
            "w",
        ),
        (lambda: t3.sample_mixture(0, 0.1, RETAIN, (0.0, 1.0)), "n"),
        (lambda: t3.sample_mixture(10, 1.0, RETAIN, (0.0, 1.0)), "gamma"),
        (lambda: t3.sample_mixture(10, 0.1, RETAIN, (0.0, -1.0)), "forget std"),
        (lambda: t3.sample_mixture(10, 0.1, ([0.0], [1.0], [0.5]), (0.0, 1.0)), "retain weights"),
        (lambda: t3.sample_mixture(10, 0.1, RETAIN, (0.0, 1.0), batch=0), "batch"),
        (lambda: t3.sample_density(G3, torch.ones(2, 3, dtype=torch.float64), 5), "q"),
        (lambda: t3.sample_density(G3, torch.zeros(3, dtype=torch.float64), 5), "q"),
        (lambda: t3.sample_density(G3, D3, 0), "n"),
        (
            lambda: t3.error_grid(
                G3, D3, D3[None], 0.1, torch.ones(1, dtype=torch.float64), D3[None]
            ),
            "eta_hat",
        ),
        (
            lambda: t3.error_grid(
                G3,
                D3,
                D3[None],
                0.1,
                torch.ones(1, dtype=torch.float64),
                torch.ones(1, 2, 3, dtype=torch.float64) * 0.5,
            ),
            "eta_hat",
        ),
        (
            lambda: t3.error_grid(
                G3,
                D3,
                D3[None],
                0.1,
                torch.full((1,), 0.5, dtype=torch.float64),
                (D3 * 0.5)[None, None],
            ),
            "T",
        ),
        (lambda: t3.loglog_slope([1.0, 2.0], [1.0, -1.0]), "positive"),
        (lambda: t3.loglog_slope([1.0], [1.0]), "length"),
        (lambda: t3.loglog_slope([1.0, float("inf")], [1.0, 2.0]), "x"),
        (lambda: t3.loglog_slope([2.0, 2.0], [1.0, 2.0]), "constant"),
        (lambda: t3.trapezoid(D3 * float("nan"), G3), "y"),
        (lambda: t3.trapezoid(D3, torch.tensor([0.0, float("nan"), 1.0])), "z"),
        (lambda: t3.normal_pdf(G3 * float("nan"), 0.0, 1.0), "z"),
        (lambda: t3.mixture_pdf(G3 * float("nan"), [0.0], [1.0], [1.0]), "z"),
        (lambda: t3.mixture_pdf(G3, [0.0], [-1.0], [1.0]), "stds"),
        (lambda: t3.mixture_pdf(G3, [float("nan")], [1.0], [1.0]), "means"),
        (lambda: t3.leaked_mass(G3, D3, float("nan"), 0.1), "centre"),
        (lambda: t3.rbf_features(G3 * float("nan"), G3, 1.0), "x"),
        (lambda: t3.rbf_features(G3, G3[:0], 1.0), "centres"),
        (
            lambda: t3.fit_logistic(
                torch.full((1, 3, 2), float("nan"), dtype=torch.float64), torch.ones(1, 3)
            ),
            "X",
        ),
        (
            lambda: t3.fit_logistic(torch.ones(1, 0, 2, dtype=torch.float64), torch.ones(1, 0)),
            "y",
        ),
        (
            lambda: t3.predict_logistic(
                torch.full((3, 2), float("nan"), dtype=torch.float64),
                torch.ones(1, 3, dtype=torch.float64),
            ),
            "X",
        ),
        (
            lambda: t3.error_grid(
                G3,
                D3,
                D3[None],
                0.1,
                torch.full((1,), float("nan"), dtype=torch.float64),
                (D3 * 0.5)[None, None],
            ),
            "T",
        ),
    ],
)
def test_bad_input_raises_value_error(call, match) -> None:
    with pytest.raises(ValueError, match=match):
        call()


def test_leaked_mass_of_a_uniform_density() -> None:
    z = t3.grid(0.0, 1.0, 1001)
    q = torch.ones_like(z)
    assert float(t3.leaked_mass(z, q, 0.5, 0.1)) == pytest.approx(0.2, abs=2e-3)
    widths = torch.tensor([0.1, 0.2], dtype=torch.float64)
    assert t3.leaked_mass(z, q, 0.5, widths).numpy() == pytest.approx([0.2, 0.4], abs=2e-3)


def test_fit_logistic_reports_non_convergence() -> None:
    X = torch.randn(1, 50, 3, dtype=torch.float64, generator=torch.Generator().manual_seed(0))
    y = (X[..., 0] > 0).long()
    with pytest.raises(RuntimeError, match="converge"):
        t3.fit_logistic(X, y, 1.0, iters=1, tol=1e-30)
