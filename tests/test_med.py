"""Tests of icml26.retrieval.med (chapter 01): constructions, margins, LP, training."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
import scipy.spatial
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import recall_score

from icml26.pipeline.notebooks import notebook_functions
from icml26.retrieval import med


def gen(seed: int = 0) -> torch.Generator:
    return torch.Generator().manual_seed(seed)


# --------------------------------------------------------------------------- constructions
@pytest.mark.parametrize("m,k", [(7, 1), (12, 2), (9, 3), (11, 4)])
def test_moment_curve_queries_retrieve_every_subset(m, k):
    t = torch.linspace(-1, 1, m, dtype=torch.float64)
    X = med.moment_curve(m, 2 * k, t=t)
    S = med.all_subsets(m, k)
    q, c0 = med.moment_curve_queries(t, S, 2 * k)
    scores = q @ X.T
    sel = torch.zeros_like(scores, dtype=torch.bool).scatter_(1, S, True)
    assert torch.allclose(scores[sel].reshape(len(S), k), c0[:, None].expand(-1, k), atol=1e-10)
    assert bool((med.subset_margins(X, q, S) > 0).all())


def test_moment_curve_queries_match_numpy_polynomials():
    t = torch.tensor([-0.7, -0.1, 0.3, 0.9, 1.4], dtype=torch.float64)
    S = torch.tensor([[0, 3], [1, 4]])
    q, c0 = med.moment_curve_queries(t, S, 5)
    for row, qq, cc in zip(S.tolist(), q, c0, strict=True):
        p = np.polynomial.polynomial.polyfromroots(t[row].numpy())
        c = np.polynomial.polynomial.polymul(p, p)
        assert np.allclose(qq[:4].numpy(), -c[1:]) and np.allclose(qq[4:].numpy(), 0)
        assert math.isclose(float(cc), c[0], abs_tol=1e-14)


@pytest.mark.parametrize("m,k", [(10, 1), (30, 2), (14, 3)])
def test_trig_moment_curve_is_unit_and_shatters(m, k):
    X, t = med.trig_moment_curve(m, k)
    assert torch.allclose(X.norm(dim=1), torch.ones(m, dtype=X.dtype))
    for s in range(1, k + 1):
        S = med.all_subsets(m, s)
        assert bool((med.subset_margins(X, med.trig_moment_queries(t, S, k), S) > 0).all())


@pytest.mark.parametrize("m", [2, 3, 7, 20])
def test_regular_simplex_gram(m):
    X = med.regular_simplex(m)
    assert X.shape == (m, m - 1)
    G = X @ X.T
    expected = torch.full((m, m), -1.0 / (m - 1), dtype=G.dtype)
    expected.fill_diagonal_(1.0)
    assert torch.allclose(G, expected, atol=1e-12)


@pytest.mark.parametrize("m,k", [(4, 2), (9, 3), (12, 4), (13, 1)])
def test_simplex_centroid_margin_equals_eps_star(m, k):
    X = med.regular_simplex(m)
    g = med.centroid_margins(X, med.all_subsets(m, k))
    assert torch.allclose(g, torch.full_like(g, med.eps_star(m, k)), atol=1e-12)


def test_eps_star_values_and_limit():
    assert math.isclose(med.eps_star(10, 1), 10 / 9)
    assert math.isclose(med.eps_star(4, 2), 4 / math.sqrt(2 * 3 * 2))
    assert abs(med.eps_star(10**7, 3) - 1 / math.sqrt(3)) < 1e-6


@pytest.mark.parametrize("m,d,block", [(3, 2, 2**21), (17, 5, 2**21), (40, 12, 100)])
def test_min_pair_centroid_margin_matches_centroid_margins(m, d, block):
    X = med.gaussian_unit(m, d, generator=gen(m))
    fast = med.min_pair_centroid_margin(X, block=block)
    slow = med.centroid_margins(X, med.all_subsets(m, 2)).min()
    assert abs(float(fast) - float(slow)) < 1e-12


def test_min_pair_centroid_margin_validates():
    with pytest.raises(ValueError, match="X"):
        med.min_pair_centroid_margin(med.gaussian_unit(2, 3, generator=gen()))
    with pytest.raises(ValueError, match="X"):
        med.min_pair_centroid_margin(2 * med.gaussian_unit(5, 3, generator=gen()))
    with pytest.raises(ValueError, match="block"):
        med.min_pair_centroid_margin(med.gaussian_unit(5, 3, generator=gen()), block=0)


def test_centroid_margins_match_direct_computation():
    X = med.gaussian_unit(11, 6, generator=gen(3))
    S = med.all_subsets(11, 3)
    u = med.centroid_queries(X, S)
    assert torch.allclose(med.centroid_margins(X, S), med.subset_margins(X, u, S), atol=1e-12)


def test_gaussian_theorem_margin_bound_holds_when_coherence_small():
    k, m = 2, 12
    X = med.gaussian_unit(m, 4000, generator=gen(1))
    G = X @ X.T
    mu = float((G - torch.eye(m, dtype=G.dtype)).abs().max())
    assert mu < 1 / (2 * k - 1)
    bound = (1 - (2 * k - 1) * mu) / math.sqrt(k * (1 + (k - 1) * mu))
    for s in (1, 2):
        assert float(med.centroid_margins(X, med.all_subsets(m, s)).min()) >= bound - 1e-12


# --------------------------------------------------------------------------- LP
# The chapter's brute-force query search, loaded from the notebook (never copied).
brute_force_pairs = notebook_functions("01-med", "brute_force_pairs")["brute_force_pairs"]


@pytest.mark.parametrize("d,seed", [(2, 0), (2, 1), (3, 2)])
def test_lp_matches_brute_force_query_search(d, seed):
    X = np.random.default_rng(seed).standard_normal((6, d))
    S = med.all_subsets(6, 2)
    lp = med.lp_margins(torch.tensor(X), S)
    lp_set = {tuple(p) for p, g in zip(S.tolist(), lp, strict=True) if g > 0}
    assert lp_set == brute_force_pairs(X, np.random.default_rng(seed).standard_normal((100_000, d)))
    assert np.all(lp[lp > 0] > 1e-6)  # certified subsets are well separated in these instances


def test_lp_matches_qhull_edges_for_unit_vectors():
    X = np.random.default_rng(5).standard_normal((16, 4))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    edges = {
        tuple(sorted(e))
        for f in scipy.spatial.ConvexHull(X).simplices
        for e in itertools.combinations(f.tolist(), 2)
    }
    S = med.all_subsets(16, 2)
    lp = med.lp_margins(torch.tensor(X), S, chunk=7)  # chunking must not matter
    assert {tuple(p) for p, g in zip(S.tolist(), lp, strict=True) if g > 0} == edges


def test_lp_certifies_moment_curve():
    X = med.moment_curve(14, 4)
    assert np.all(med.lp_margins(X, med.all_subsets(14, 2)) > 0)


# --------------------------------------------------------------------------- optimisation
def test_optimize_margin_reaches_but_never_beats_eps_star():
    _, _, g = med.optimize_margin(5, 2, 4, steps=600, generator=gen(0))
    assert g <= med.eps_star(5, 2) + 1e-9
    assert g >= 0.99 * med.eps_star(5, 2)
    _, _, gc = med.optimize_margin(6, 2, 5, queries="centroid", steps=300, generator=gen(0))
    assert gc <= med.eps_star(6, 2) + 1e-9


def _pair_problem(n: int) -> torch.Tensor:
    rel = torch.zeros(1, math.comb(n, 2), n, dtype=torch.bool)
    for qi, (a, b) in enumerate(itertools.combinations(range(n), 2)):
        rel[0, qi, a] = rel[0, qi, b] = True
    return rel


def test_free_embeddings_solve_small_and_respect_geometry():
    rel = torch.cat([_pair_problem(4)] * 2)  # n = 4: feasible in d = 3 (tetrahedron)
    solved, _, D = med.train_free_embeddings(rel, 3, steps=800, generator=gen(0))
    assert bool(solved.any())
    assert torch.allclose(D.norm(dim=-1), torch.ones(2, 4), atol=1e-5)
    rel5 = torch.cat([_pair_problem(5)] * 2)  # n = 5: impossible on the sphere in d = 3
    solved5, _, _ = med.train_free_embeddings(rel5, 3, steps=800, generator=gen(0))
    assert not bool(solved5.any())


def test_free_embeddings_padding_is_exact():
    rel = _pair_problem(5)
    _, Qb, Db = med.train_free_embeddings(
        rel, 6, dims=torch.tensor([4]), steps=50, generator=gen(7)
    )
    assert bool((Qb[..., 4:] == 0).all()) and bool((Db[..., 4:] == 0).all())


# --------------------------------------------------------------------------- recall
def test_recall_at_k_matches_numpy_and_sklearn():
    g = torch.Generator().manual_seed(4)
    S = torch.randn(50, 30, generator=g, dtype=torch.float64)
    R = torch.rand(50, 30, generator=g) < 0.1
    R[:, 0] |= ~R.any(dim=1)
    for k in (1, 2, 5, 30):
        top = np.argsort(-S.numpy(), axis=1)[:, :k]
        hits = np.take_along_axis(R.numpy(), top, axis=1).sum(1)
        ref = np.mean(hits / R.numpy().sum(1))
        pred = np.zeros(R.shape, dtype=bool)
        np.put_along_axis(pred, top, True, axis=1)
        sk = recall_score(R.numpy().T, pred.T, average="macro", zero_division=0)
        got = float(med.recall_at_k(S, R, k))
        assert math.isclose(got, ref, abs_tol=1e-12) and math.isclose(got, sk, abs_tol=1e-12)


# --------------------------------------------------------------------------- validation
@settings(max_examples=40, deadline=None)
@given(m=st.integers(2, 30), k=st.integers(-3, 40))
def test_eps_star_validates_k(m, k):
    if 1 <= k < m:
        assert med.eps_star(m, k) > 0
    else:
        with pytest.raises(ValueError, match="k"):
            med.eps_star(m, k)


@settings(max_examples=30, deadline=None)
@given(d=st.integers(-5, 0))
def test_dimension_must_be_positive(d):
    with pytest.raises(ValueError, match="d"):
        med.moment_curve(5, d)
    with pytest.raises(ValueError, match="d"):
        med.gaussian_unit(5, d, generator=gen())
    with pytest.raises(ValueError, match="d"):
        med.optimize_margin(5, 2, d, generator=gen())


@settings(max_examples=30, deadline=None)
@given(scale=st.floats(0.1, 10.0).filter(lambda s: abs(s - 1.0) > 1e-3))
def test_unit_vectors_required(scale):
    X = med.gaussian_unit(6, 3, generator=gen()) * scale
    with pytest.raises(ValueError, match="X must have unit-norm rows"):
        med.centroid_margins(X, med.all_subsets(6, 2))


def test_argument_errors_name_the_argument():
    with pytest.raises(ValueError, match="k must be < m"):
        med.all_subsets(4, 4)
    with pytest.raises(ValueError, match="k must be >= 1"):
        med.all_subsets(4, 0)
    with pytest.raises(ValueError, match="subsets"):
        med.subset_margins(torch.eye(3), torch.eye(3), torch.tensor([[0, 1, 2]]))
    with pytest.raises(ValueError, match="subsets"):
        med.centroid_queries(torch.eye(3), torch.tensor([[0, 0]]))
    with pytest.raises(ValueError, match="d must be >= 2k"):
        t = torch.linspace(0, 1, 6, dtype=torch.float64)
        med.moment_curve_queries(t, med.all_subsets(6, 3), 4)
    with pytest.raises(ValueError, match="k must be <= "):
        med.recall_at_k(torch.zeros(2, 3), torch.ones(2, 3, dtype=torch.bool), 4)
    with pytest.raises(ValueError, match="k must be >= 1"):
        med.recall_at_k(torch.zeros(2, 3), torch.ones(2, 3, dtype=torch.bool), 0)
    with pytest.raises(ValueError, match="relevance"):
        med.train_free_embeddings(torch.zeros(1, 2, 3), 2, generator=gen())
    with pytest.raises(ValueError, match="queries"):
        med.optimize_margin(5, 2, 3, queries="nope", generator=gen())
    with pytest.raises(ValueError, match="X"):
        med.lp_margins(torch.tensor([[float("nan")], [0.0]]), torch.tensor([[0]]))
