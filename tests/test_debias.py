"""Tests of icml26.trust.debias (chapter 16): the polarity-prompts task, the per-layer
bias/variance split, the ReLU Jensen gap, Cantelli and Clopper–Pearson."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.stats
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from statsmodels.stats.proportion import proportion_confint

from icml26.pipeline.notebooks import notebook_functions
from icml26.trust import debias


@pytest.fixture(scope="module")
def toy():
    g = torch.Generator().manual_seed(0)
    task = debias.make_task(g)
    params = debias.init_classifier(task, 2, g, d=8, hidden=12)
    tokens, labels = debias.sample_prompts(task, (2, 30), g)
    return task, params, tokens, labels, g


# --- the task and its perturbations --------------------------------------------------------


def test_task_vocabulary(toy) -> None:
    task = toy[0]
    assert task.vocab == 63 and task.unk == 62
    assert (task.polarity[task.fillers] == 0).all() and task.polarity[task.unk] == 0
    has = task.synonym_of >= 0
    assert int(has.sum()) == 10
    assert torch.equal(task.polarity[task.synonym_of[has]], task.polarity[has])


def test_prompts_have_no_ties_and_correct_labels(toy) -> None:
    task, _, tokens, labels, _ = toy
    s = task.polarity[tokens].sum(-1)
    assert (s != 0).all() and torch.equal(labels, (s > 0).long())
    assert tokens.shape == (2, 30, 10)


def test_neutral_perturbations_preserve_the_label(toy) -> None:
    task, _, tokens, labels, g = toy
    bags = debias.perturb_neutral(task, tokens, 7, g)
    assert bags.shape == (2, 30, 7, 63)
    assert torch.allclose(bags.sum(-1), torch.ones((), dtype=torch.float64), atol=1e-12)
    fillers = bags[..., task.fillers].sum(-1)  # k / (10 + k) for k = 1..4 fillers
    k = torch.round(10 * fillers / (1 - fillers))
    assert ((k >= 1) & (k <= 4)).all()
    # the polarity sum (bag · polarity × length) is unchanged: the label cannot change
    pol = (bags * task.polarity).sum(-1) * (10 + k)
    want = task.polarity[tokens].sum(-1)[..., None].expand_as(pol)
    assert torch.allclose(pol, want, atol=1e-9) and labels.shape == (2, 30)


def test_interacting_perturbations_are_zero_mean(toy) -> None:
    task, _, tokens, _, g = toy
    bags = debias.perturb_interacting(tokens, task.vocab, 4000, g)
    clean = debias.bag(tokens, task.vocab)
    assert torch.allclose(bags.mean(-2), clean, atol=0.02)


def test_bag_is_the_mean_pooling_matrix() -> None:
    tokens = torch.tensor([[0, 2, 2, -1]])
    b = debias.bag(tokens, 4)
    assert torch.allclose(b, torch.tensor([[1 / 3, 0, 2 / 3, 0]], dtype=torch.float64))
    w = debias.bag(tokens, 4, torch.tensor([[2.0, 1.0, 0.5, 9.0]]))
    assert torch.allclose(w, torch.tensor([[2 / 3, 0, 0.5, 0]], dtype=torch.float64))


# --- the model -----------------------------------------------------------------------------


def test_forward_shapes_and_batch_invariance(toy) -> None:
    task, params, tokens, _, g = toy
    bags = debias.perturb_neutral(task, tokens, 3, g)
    reps = debias.forward(params, bags)
    assert reps["logits"].shape == (2, 30, 3, 2) and reps["ln"].shape == (2, 30, 3, 8)
    one = debias.forward(params, bags[:, 4:5, 1])
    assert torch.allclose(one["logits"][:, 0], reps["logits"][:, 4, 1], atol=1e-12)


def test_bias_only_training_moves_only_biases(toy) -> None:
    task, params, tokens, labels, _ = toy
    bags = debias.bag(tokens, task.vocab)
    out = debias.train(
        params, lambda step: (bags, labels), 5, lr=1e-2, trainable=debias.bias_parameter_names()
    )
    for k in params:
        moved = not torch.equal(out[k], params[k])
        assert moved == (k in debias.bias_parameter_names()), k


def test_training_learns_the_task() -> None:
    g = torch.Generator().manual_seed(1)
    task = debias.make_task(g)
    params = debias.init_classifier(task, 1, g)
    tok, lab = debias.sample_prompts(task, (1, 512), g)
    bags = debias.bag(tok, task.vocab)
    out = debias.train(params, lambda step: (bags, lab), 200, lr=1e-2)
    assert float(debias.accuracy(out, bags, lab)[0]) > 0.95


def test_fillers_share_the_offset() -> None:
    g = torch.Generator().manual_seed(2)
    task = debias.make_task(g)
    p = debias.init_classifier(task, 1, g, d=32, filler_offset=4.0)
    mean = p["E"][0, task.fillers].mean(0)
    assert 4.0 * np.sqrt(32) * 0.8 < float(mean.norm()) < 4.0 * np.sqrt(32) * 1.2


# --- Lemma (bias–variance split) -----------------------------------------------------------


@settings(max_examples=25, deadline=None)
@given(
    st.integers(1, 3),
    st.integers(1, 6),
    st.integers(1, 5),
    st.integers(1, 4),
    st.integers(0, 10_000),
)
def test_split_identities(S: int, N: int, P: int, D: int, seed: int) -> None:
    g = torch.Generator().manual_seed(seed)
    clean = torch.randn(S, N, D, generator=g, dtype=torch.float64)
    moved = clean[:, :, None] + 0.5 + torch.randn(S, N, P, D, generator=g, dtype=torch.float64)
    r = debias.bias_variance(clean, moved)
    assert torch.allclose(r["msd"], r["bias2"] + r["fluct"], rtol=1e-10)
    assert torch.allclose(r["bias2"], r["pooled2"] + r["cov"], rtol=1e-10)
    assert ((0 <= r["rho"]) & (r["rho"] <= 1 + 1e-12)).all()


def test_kernel_matches_the_notebook_reference(toy) -> None:
    task, params, tokens, _, g = toy
    ref = notebook_functions("16-debiasing", "bias_variance_reference")["bias_variance_reference"]
    clean = debias.bag(tokens, task.vocab)[:, :6]
    moved = debias.perturb_neutral(task, tokens[:, :6], 4, g)

    def fwd(b):
        with torch.no_grad():
            r = debias.forward(params, b.expand(2, 1, task.vocab))
        return {k: v[0, 0].numpy() for k, v in r.items()}

    want = ref(fwd, clean[0], moved[0])
    with torch.no_grad():
        c, m = debias.forward(params, clean), debias.forward(params, moved)
    for layer in debias.LAYERS:
        got = debias.bias_variance(c[layer], m[layer])
        for key in ("msd", "pooled2", "bias2", "cov", "fluct", "rho"):
            assert abs(float(got[key][0]) - want[layer][key]) <= 1e-10 + 1e-9 * abs(
                want[layer][key]
            )


# --- Jensen gap, Cantelli, Clopper–Pearson -------------------------------------------------


@pytest.mark.parametrize("s", [0.3, 1.0, 2.5])
def test_relu_gap_against_scipy(s: float) -> None:
    z = np.linspace(-5, 5, 201)
    want = z * scipy.stats.norm.cdf(z / s) + s * scipy.stats.norm.pdf(z / s) - np.maximum(z, 0)
    assert np.allclose(debias.relu_gaussian_gap(z, s), want, atol=1e-14)
    assert (debias.relu_gaussian_gap(z, s) >= 0).all()
    assert np.isclose(debias.relu_gaussian_gap(np.zeros(1), s)[0], s / np.sqrt(2 * np.pi))


@given(st.floats(-4, 4), st.floats(0.1, 3))
def test_relu_gap_is_symmetric_and_below_the_peak(z: float, s: float) -> None:
    g = debias.relu_gaussian_gap(np.array([z, -z]), s)
    assert np.isclose(g[0], g[1], atol=1e-14) and g[0] <= s / np.sqrt(2 * np.pi) + 1e-14


def test_clopper_pearson_against_statsmodels_and_scipy() -> None:
    k = np.arange(0, 51)
    mine = debias.clopper_pearson_lower(k, 50, 0.05)
    sm = np.nan_to_num(proportion_confint(k, 50, alpha=0.10, method="beta")[0])
    sp = [scipy.stats.binomtest(int(i), 50).proportion_ci(0.90, "exact").low for i in k]
    assert np.allclose(mine, sm, atol=1e-12) and np.allclose(mine, sp, atol=1e-12)
    assert np.isclose(debias.clopper_pearson_lower(100, 100), 0.05 ** (1 / 100))


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 10_000))
def test_cantelli_holds_for_the_empirical_distribution(seed: int) -> None:
    rng = np.random.default_rng(seed)
    x = rng.normal(rng.normal(), rng.uniform(0.1, 2), size=(20, 50))
    m = rng.normal(size=20) + 1.0
    bound = debias.cantelli_flip_bound(m, x.mean(1), x.var(1))
    freq = ((m[:, None] + x) <= 0).mean(1)
    ok = ~np.isnan(bound)
    assert (freq[ok] <= bound[ok] + 1e-12).all()


def test_cantelli_nan_where_the_bias_beats_the_margin() -> None:
    assert np.isnan(debias.cantelli_flip_bound(1.0, -2.0, 1.0))
    assert np.isclose(debias.cantelli_flip_bound(1.0, 0.0, 1.0), 0.5)


# --- validation: one test per check --------------------------------------------------------


def test_bad_input(toy) -> None:
    task, params, tokens, _, g = toy
    with pytest.raises(ValueError, match="generator"):
        debias.make_task(0)
    with pytest.raises(ValueError, match="shape"):
        debias.sample_prompts(task, (0,), g)
    with pytest.raises(ValueError, match="synonym_rate"):
        debias.sample_prompts(task, (3,), g, synonym_rate=1.5)
    with pytest.raises(ValueError, match="tokens"):
        debias.bag(tokens.double(), 63)
    with pytest.raises(ValueError, match="vocab"):
        debias.bag(tokens, 0)
    with pytest.raises(ValueError, match="tokens must be <"):
        debias.bag(tokens, 5)
    with pytest.raises(ValueError, match="weights"):
        debias.bag(tokens, 63, torch.ones(3))
    with pytest.raises(ValueError, match="n_perturb"):
        debias.perturb_neutral(task, tokens, 0, g)
    with pytest.raises(ValueError, match="max_fillers"):
        debias.perturb_neutral(task, tokens, 1, g, max_fillers=-1)
    with pytest.raises(ValueError, match="synonym_prob"):
        debias.perturb_neutral(task, tokens, 1, g, synonym_prob=2.0)
    with pytest.raises(ValueError, match="unk_prob"):
        debias.perturb_neutral(task, tokens, 1, g, unk_prob=-0.1)
    with pytest.raises(ValueError, match="n_perturb"):
        debias.perturb_interacting(tokens, 63, 0, g)
    with pytest.raises(ValueError, match="low"):
        debias.perturb_interacting(tokens, 63, 1, g, low=-1.0)
    with pytest.raises(ValueError, match="high"):
        debias.perturb_interacting(tokens, 63, 1, g, low=1.0, high=0.5)
    with pytest.raises(ValueError, match="seeds"):
        debias.init_classifier(task, 0, g)
    with pytest.raises(ValueError, match="d must"):
        debias.init_classifier(task, 1, g, d=0)
    with pytest.raises(ValueError, match="hidden"):
        debias.init_classifier(task, 1, g, hidden=0)
    with pytest.raises(ValueError, match="filler_offset"):
        debias.init_classifier(task, 1, g, filler_offset=-1.0)
    with pytest.raises(ValueError, match="bags"):
        debias.forward(params, torch.zeros(3, 63))
    with pytest.raises(ValueError, match="bags"):
        debias.forward(params, torch.zeros(2, 5, 10, dtype=torch.float64))
    with pytest.raises(ValueError, match="params"):
        debias.forward({"E": params["E"]}, torch.zeros(2, 3, 63, dtype=torch.float64))
    bags = debias.bag(tokens, 63)
    with pytest.raises(ValueError, match="labels"):
        debias.accuracy(params, bags, torch.zeros(2, 30))
    with pytest.raises(ValueError, match="labels"):
        debias.accuracy(params, bags, torch.zeros(2, 29, dtype=torch.long))
    with pytest.raises(ValueError, match="batch"):
        debias.train(params, None, 1)
    with pytest.raises(ValueError, match="steps"):
        debias.train(params, lambda s: None, -1)
    with pytest.raises(ValueError, match="lr"):
        debias.train(params, lambda s: None, 1, lr=0.0)
    with pytest.raises(ValueError, match="trainable"):
        debias.train(params, lambda s: None, 1, trainable=("nope",))
    with pytest.raises(ValueError, match="params"):
        debias.train({**params, "b1": params["b1"] * float("nan")}, lambda s: None, 1)
    with pytest.raises(ValueError, match="params"):
        debias.train({"E": params["E"]}, lambda s: None, 1)
    with pytest.raises(ValueError, match="clean"):
        debias.bias_variance(torch.zeros(2, 3), torch.zeros(2, 3, 4, 5))
    with pytest.raises(ValueError, match="perturbed"):
        debias.bias_variance(torch.zeros(2, 3, 5), torch.zeros(2, 4, 4, 5))
    with pytest.raises(ValueError, match="s must"):
        debias.relu_gaussian_gap(np.zeros(3), 0.0)
    with pytest.raises(ValueError, match="z must"):
        debias.relu_gaussian_gap(np.array([np.nan]), 1.0)
    with pytest.raises(ValueError, match="n must"):
        debias.clopper_pearson_lower(1, 0)
    with pytest.raises(ValueError, match="alpha"):
        debias.clopper_pearson_lower(1, 10, alpha=1.0)
    with pytest.raises(ValueError, match="k must"):
        debias.clopper_pearson_lower(11, 10)
    with pytest.raises(ValueError, match="k must"):
        debias.clopper_pearson_lower(np.array([0.5]), 10)
    with pytest.raises(ValueError, match="sigma2"):
        debias.cantelli_flip_bound(1.0, 0.0, -1.0)
    with pytest.raises(ValueError, match="margin"):
        debias.cantelli_flip_bound(np.inf, 0.0, 1.0)
