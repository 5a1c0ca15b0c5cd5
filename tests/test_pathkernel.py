"""Tests of icml26.trust.pathkernel (chapter 18): recorded AdamW, features, exact decomposition."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
import torch.nn.utils.prune as tprune
from hypothesis import given, settings
from hypothesis import strategies as st

from icml26.pipeline.notebooks import notebook_functions
from icml26.trust import flatmodels
from icml26.trust import pathkernel as pk
from icml26.trust.adamw import AdamWState, adamw_step

DT = torch.float64


def _run(steps: int = 8, batch: int = 8, m: int = 24, seed: int = 0, wd: float = 0.1):
    g = torch.Generator().manual_seed(seed)
    model = flatmodels.mlp_model([2, 6, 6, 3])
    x = torch.randn(m, 2, generator=g, dtype=DT)
    y = torch.randint(0, 3, (m,), generator=g)
    theta0 = flatmodels.init_params(model.spec, generator=g)
    batches = [torch.randperm(m, generator=g)[:batch] for _ in range(steps)]
    lrs = torch.linspace(3e-2, 1e-2, steps, dtype=DT)
    traj = pk.train_adamw(model, theta0, x, y, batches, lrs, weight_decay=wd)
    return model, x, y, traj


# --- AdamW ----------------------------------------------------------------------------------


@settings(max_examples=20, deadline=None)
@given(
    lr=st.floats(1e-4, 1e-1),
    b1=st.floats(0.0, 0.99),
    b2=st.floats(0.5, 0.9999),
    wd=st.floats(0.0, 2.0),
    seed=st.integers(0, 1000),
)
def test_adamw_step_matches_torch(lr: float, b1: float, b2: float, wd: float, seed: int) -> None:
    g = torch.Generator().manual_seed(seed)
    theta = torch.randn(7, generator=g, dtype=DT)
    p = torch.nn.Parameter(theta.clone())
    opt = torch.optim.AdamW([p], lr=lr, betas=(b1, b2), eps=1e-8, weight_decay=wd)
    state = AdamWState.zeros_like([theta])
    for _ in range(5):
        grad = torch.randn(7, generator=g, dtype=DT)
        (theta,) = adamw_step(
            [theta], [grad], state, lr=lr, betas=(b1, b2), eps=1e-8, weight_decay=wd
        )
        p.grad = grad.clone()
        opt.step()
        assert (p.detach() - theta).abs().max() < 1e-12


def test_recorded_updates_and_ablations() -> None:
    _, _, _, traj = _run()
    actual = traj.thetas.diff(dim=0)
    assert (pk.adamw_updates(traj) - actual).abs().max() < 1e-15
    for variant in ("no_bias_correction", "coupled_l2", "beta1_zero"):
        assert (pk.adamw_updates(traj, variant) - actual).abs().max() > 1e-4
    assert len(traj.losses) == traj.steps == 8


def test_train_without_record_calls_back() -> None:
    model, x, y, traj = _run()
    seen = []

    def on_step(s, th, th_next, grad_update):
        decay = -float(traj.lrs[s]) * traj.weight_decay * th
        assert torch.allclose(th_next - th, grad_update + decay, atol=1e-15)
        seen.append(s)

    light = pk.train_adamw(
        model,
        traj.thetas[0],
        x,
        y,
        traj.batches,
        traj.lrs,
        weight_decay=traj.weight_decay,
        record=False,
        on_step=on_step,
    )
    assert seen == list(range(traj.steps))
    assert light.thetas.shape[0] == 2 and torch.equal(light.thetas[-1], traj.thetas[-1])


# --- features -------------------------------------------------------------------------------


@settings(max_examples=15, deadline=None)
@given(n=st.integers(1, 8), degree=st.integers(0, 15))
def test_gauss_legendre_exact_for_polynomials(n: int, degree: int) -> None:
    t, w = pk.gauss_legendre(n)
    assert math.isclose(float(w.sum()), 1.0, abs_tol=1e-14)
    exact = 1.0 / (degree + 1)
    err = abs(float((w * t**degree).sum()) - exact)
    if degree <= 2 * n - 1:
        assert err < 1e-13


def test_per_sample_grads_match_loop_and_transformer() -> None:
    model, x, y, traj = _run()
    th = traj.thetas[3]
    vm = pk.per_sample_grads(model, th, x[:5], y[:5])
    for k in range(5):
        p = th.clone().requires_grad_(True)
        (g,) = torch.autograd.grad(model(p, x[k : k + 1])[0, y[k]], p)
        assert (vm[k] - g).abs().max() < 1e-13
    gen = torch.Generator().manual_seed(1)
    tr = flatmodels.modadd_model(7, 8, 2, 16)
    tok, lab, _, _ = flatmodels.modadd_data(7, 0.5, generator=gen)
    th_t = flatmodels.init_params(tr.spec, generator=gen, scale=0.3)
    psg = pk.per_sample_grads(tr, th_t, tok[:4], lab[:4])
    assert psg.shape == (4, tr.spec.numel)
    p = th_t.clone().requires_grad_(True)
    (g0,) = torch.autograd.grad(tr(p, tok[:1])[0, lab[0]], p)
    assert (psg[0] - g0).abs().max() < 1e-12


def test_test_features_step_identity_and_rules() -> None:
    model, x, _, traj = _run()
    a, b = traj.thetas[0], traj.thetas[1]
    exact = model(b, x[:4]) - model(a, x[:4])
    for rule, nodes, tol in (("gauss", 8, 1e-13), ("midpoint", 200, 1e-7)):
        phi = pk.test_features(model, a, b, x[:4], nodes, rule=rule)
        assert phi.shape == (4, 3, model.spec.numel)
        assert (phi @ (b - a) - exact).abs().max() < tol
    left = pk.test_features(model, a, b, x[:1], 1, rule="left")
    jac = torch.autograd.functional.jacobian(lambda p: model(p, x[:1])[0], a)
    assert (left[0] - jac).abs().max() < 1e-14


# --- the decomposition ----------------------------------------------------------------------


@pytest.mark.parametrize("per_sample", [True, False])
def test_decomposition_is_exact(per_sample: bool) -> None:
    model, x, y, traj = _run(steps=10)
    x_test = torch.randn(5, 2, generator=torch.Generator().manual_seed(9), dtype=DT)
    dec = pk.decompose(model, traj, x, y, x_test, nodes=8, per_sample=per_sample, tangent=True)
    scale = (dec.fN - dec.f0).abs().max()
    assert (dec.reconstruction - dec.fN).abs().max() / scale < 1e-12
    assert (dec.grad_steps + dec.decay_steps - dec.actual).abs().max() < 1e-13
    assert (dec.groups.sum(1) - dec.actual).abs().max() < 1e-13
    assert dec.group_names == ("layer1", "layer2", "layer3")
    assert (dec.tangent - dec.fN).abs().max() / scale > 1e-6
    assert dec.scores.shape == (model.spec.numel,) and (dec.scores >= 0).all()
    if per_sample:
        assert dec.data.shape == (5, 3, x.shape[0])
        assert (dec.data.sum(-1) - dec.grad_steps.sum(0)).abs().max() < 1e-13
    else:
        assert dec.data is None


def test_ablation_variants_break_exactness() -> None:
    model, x, y, traj = _run(steps=10)
    variants = {v: pk.adamw_updates(traj, v) for v in ("adamw", "coupled_l2")}
    dec = pk.decompose(model, traj, x, y, x[:4], per_sample=False, variants=variants)
    scale = (dec.fN - dec.f0).abs().max()
    assert ((dec.f0 + dec.variants["adamw"].sum(0)) - dec.fN).abs().max() / scale < 1e-12
    assert ((dec.f0 + dec.variants["coupled_l2"].sum(0)) - dec.fN).abs().max() / scale > 1e-3


def test_decompose_matches_notebook_reference() -> None:
    ref = notebook_functions("18-explaind", "path_kernel_reference")["path_kernel_reference"]
    model, x, y, traj = _run(steps=4)
    dec = pk.decompose(model, traj, x, y, x[:3], nodes=4)
    want = ref(model, traj, x, y, x[:3], 4)
    assert (dec.reconstruction - want).abs().max() < 1e-12


def test_step_influence_sums_to_change() -> None:
    model, x, y, traj = _run()
    a, b = traj.thetas[2], traj.thetas[3]
    decay = -float(traj.lrs[2]) * traj.weight_decay * a
    gi, di = pk.step_influence(model, a, b, b - a - decay, x, y, nodes=8)
    target = lambda th: model(th, x).gather(-1, y[:, None]).mean()  # noqa: E731
    assert abs(float(gi.sum() + di.sum()) - float(target(b) - target(a))) < 1e-13
    assert gi.shape == di.shape == (3,)
    gen = torch.Generator().manual_seed(2)
    tr = flatmodels.modadd_model(7, 8, 2, 16)  # the paper-scale model takes the same path
    tok, lab, _, _ = flatmodels.modadd_data(7, 0.5, generator=gen)
    t0 = flatmodels.init_params(tr.spec, generator=gen, scale=0.3)
    t1 = t0 + 1e-3 * torch.randn(t0.shape, generator=gen, dtype=DT)
    gi, di = pk.step_influence(tr, t0, t1, t1 - t0, tok, lab, nodes=8)
    change = (
        tr(t1, tok).gather(-1, lab[:, None]).mean() - tr(t0, tok).gather(-1, lab[:, None]).mean()
    )
    assert gi.shape == (4,) and di.abs().max() < 1e-15
    # ReLU kinks on the segment: the identity holds, but quadrature converges only slowly
    assert abs(float(gi.sum() - change)) < 1e-2 * abs(float(change))


# --- pruning --------------------------------------------------------------------------------


def test_prune_mask_fraction_and_torch_magnitude() -> None:
    model, x, _, traj = _run()
    theta = traj.thetas[-1]
    prunable = model.spec.weight_mask()
    keep = pk.prune_mask(theta.abs(), prunable, 0.6)
    n_w = int(prunable.sum())
    assert int((~keep).sum()) == round(0.6 * n_w)
    assert keep[~prunable].all()  # biases are kept
    net = torch.nn.Sequential(torch.nn.Linear(2, 6), torch.nn.Linear(6, 6), torch.nn.Linear(6, 3))
    w = model.spec.unflatten(theta)
    with torch.no_grad():
        for i, lin in enumerate(net):
            lin.weight.copy_(w[f"W{i + 1}"].T)
            lin.bias.copy_(w[f"b{i + 1}"])
    tprune.global_unstructured(
        [(lin, "weight") for lin in net], pruning_method=tprune.L1Unstructured, amount=0.6
    )
    torch_keep = torch.cat(
        [torch.cat([lin.weight_mask.T.flatten(), torch.ones_like(lin.bias)]) for lin in net]
    ).bool()
    assert torch.equal(torch_keep, keep)
    scores = pk.explaind_scores(model, traj, x[:6], nodes=2)
    assert scores.shape == theta.shape and (scores >= 0).all()


# --- models and data ------------------------------------------------------------------------


def test_models_and_modadd_data() -> None:
    gen = torch.Generator().manual_seed(0)
    tr, ytr, va, yva = flatmodels.modadd_data(11, 0.6, generator=gen)
    assert len(tr) + len(va) == 11 * 12 // 2 and len(tr) == round(0.6 * 66)
    assert torch.equal(ytr, (tr[:, 0] + tr[:, 2]) % 11)
    assert torch.equal(yva, (va[:, 0] + va[:, 2]) % 11)
    assert (tr[:, 0] <= tr[:, 2]).all() and (tr[:, 1] == 11).all() and (tr[:, 3] == 12).all()
    for model in (flatmodels.modadd_model(11, 8, 2, 16), flatmodels.modadd_mlp_model(11, 8, 16)):
        th = flatmodels.init_params(model.spec, generator=gen, scale=0.5)
        out = model(th, va)
        assert out.shape == (len(va), 11)
        assert torch.allclose(out.exp().sum(-1), torch.ones(len(va), dtype=DT))
    spec = flatmodels.modadd_model(11, 8, 2, 16).spec
    gm = spec.group_matrix()
    assert gm.shape == (spec.numel, 4) and torch.equal(gm.sum(1), torch.ones(spec.numel, dtype=DT))
    assert spec.group_names == ("embed", "attn", "mlp", "unembed")
    assert flatmodels.mlp_model([2, 3]).spec.numel == 9
    th32 = flatmodels.init_params(spec, generator=gen, dtype=torch.float32)
    assert th32.dtype == torch.float32 and th32.shape == (spec.numel,)
    assert np.isclose(
        float(flatmodels.init_params(spec, generator=gen)[-88:].std()), 1 / math.sqrt(8), 0.5
    )


# --- bad input ------------------------------------------------------------------------------


def test_bad_input_models_and_specs() -> None:
    with pytest.raises(ValueError, match="names, shapes and groups"):
        flatmodels.ParamSpec(("a",), ((1,), (2,)), ("g",))
    with pytest.raises(ValueError, match="sizes"):
        flatmodels.mlp_model([3])
    with pytest.raises(ValueError, match=r"sizes\[1\]"):
        flatmodels.mlp_model([2, 0, 3])
    with pytest.raises(ValueError, match="p must be"):
        flatmodels.modadd_model(1, 8, 2, 16)
    with pytest.raises(ValueError, match="d_model must be divisible"):
        flatmodels.modadd_model(5, 9, 2, 16)
    with pytest.raises(ValueError, match="n_heads"):
        flatmodels.modadd_model(5, 8, 0, 16)
    with pytest.raises(ValueError, match="d_mlp"):
        flatmodels.modadd_model(5, 8, 2, 0)
    with pytest.raises(ValueError, match="d_embed"):
        flatmodels.modadd_mlp_model(5, 0, 4)
    with pytest.raises(ValueError, match="d_hidden"):
        flatmodels.modadd_mlp_model(5, 4, 0)
    gen = torch.Generator().manual_seed(0)
    with pytest.raises(ValueError, match="train_fraction"):
        flatmodels.modadd_data(5, 1.0, generator=gen)
    with pytest.raises(ValueError, match="empty split"):
        flatmodels.modadd_data(2, 0.01, generator=gen)
    with pytest.raises(ValueError, match="scale"):
        flatmodels.init_params(flatmodels.mlp_model([2, 3]).spec, generator=gen, scale=0.0)
    with pytest.raises(ValueError, match="n must be"):
        pk.gauss_legendre(0)


def test_bad_input_optimiser() -> None:
    model, x, y, traj = _run(steps=2)
    th0 = traj.thetas[0]
    one = [torch.arange(4)]
    with pytest.raises(ValueError, match="lrs"):
        pk.train_adamw(model, th0, x, y, one, torch.ones(2, dtype=DT))
    with pytest.raises(ValueError, match="lrs"):
        pk.train_adamw(model, th0, x, y, one, [0.1])
    with pytest.raises(ValueError, match="x and y"):
        pk.train_adamw(model, th0, x, y[:-1], one, torch.ones(1, dtype=DT))
    with pytest.raises(ValueError, match="theta0"):
        pk.train_adamw(model, th0[:-1], x, y, one, torch.ones(1, dtype=DT))
    with pytest.raises(ValueError, match="theta0"):
        pk.train_adamw(model, th0.numpy(), x, y, one, torch.ones(1, dtype=DT))
    with pytest.raises(ValueError, match="variant"):
        pk.adamw_updates(traj, "sgd")
    light = pk.train_adamw(model, th0, x, y, one, torch.ones(1, dtype=DT), record=False)
    for fn in (
        lambda: pk.adamw_updates(light),
        lambda: pk.decompose(model, light, x, y, x[:2]),
        lambda: pk.explaind_scores(model, light, x[:2]),
    ):
        with pytest.raises(ValueError, match="traj"):
            fn()


def test_bad_trajectories_models_and_inputs() -> None:
    """A non-finite or mis-shaped trajectory, a foreign model or inputs that do not fit it."""
    import dataclasses

    model, x, y, traj = _run(steps=2)
    nan_grads = dataclasses.replace(traj, grads=traj.grads * float("nan"))
    with pytest.raises(ValueError, match=r"traj\.grads"):
        pk.decompose(model, nan_grads, x, y, x[:2])
    with pytest.raises(ValueError, match=r"traj\.thetas"):
        pk.explaind_scores(flatmodels.mlp_model([2, 5, 3]), traj, x[:2])
    with pytest.raises(ValueError, match=r"traj\.lrs"):
        pk.adamw_updates(dataclasses.replace(traj, lrs=traj.lrs[:1]))
    with pytest.raises(ValueError, match="model must be a FlatModel"):
        pk.per_sample_grads(lambda th, x: x, traj.thetas[0], x, y)
    with pytest.raises(ValueError, match="x does not fit the model"):
        pk.test_features(model, traj.thetas[0], traj.thetas[1], x[:, :1])
    with pytest.raises(ValueError, match="x_test must be a non-empty batch"):
        pk.decompose(model, traj, x, y, x[:0])


def test_bad_input_features_and_decomposition() -> None:
    model, x, y, traj = _run(steps=2)
    a, b = traj.thetas[0], traj.thetas[1]
    with pytest.raises(ValueError, match="theta"):
        pk.per_sample_grads(model, a[None], x, y)
    with pytest.raises(ValueError, match="x and y"):
        pk.per_sample_grads(model, a, x, y[:-1])
    with pytest.raises(ValueError, match="theta_b"):
        pk.test_features(model, a, b[:-1], x)
    with pytest.raises(ValueError, match="nodes"):
        pk.test_features(model, a, b, x, 0)
    with pytest.raises(ValueError, match="rule"):
        pk.test_features(model, a, b, x, 2, rule="simpson")
    with pytest.raises(ValueError, match="nodes must be 1"):
        pk.test_features(model, a, b, x, 2, rule="left")
    with pytest.raises(ValueError, match="x_train and y_train"):
        pk.decompose(model, traj, x, y[:-1], x[:2])
    with pytest.raises(ValueError, match="nodes"):
        pk.decompose(model, traj, x, y, x[:2], nodes=0)
    with pytest.raises(ValueError, match="variants"):
        pk.decompose(model, traj, x, y, x[:2], variants={"bad": torch.zeros(3, 3, dtype=DT)})
    with pytest.raises(ValueError, match="theta_next"):
        pk.step_influence(model, a, b[:-1], a, x, y)
    with pytest.raises(ValueError, match="grad_update"):
        pk.step_influence(model, a, b, a[:-1], x, y)
    with pytest.raises(ValueError, match="nodes"):
        pk.step_influence(model, a, b, a, x, y, nodes=0)
    with pytest.raises(ValueError, match="x and y"):
        pk.step_influence(model, a, b, a, x, y[:-1])
    with pytest.raises(ValueError, match="nodes"):
        pk.explaind_scores(model, traj, x, nodes=0)
    prunable = model.spec.weight_mask()
    with pytest.raises(ValueError, match="prunable must be a boolean"):
        pk.prune_mask(a, prunable.double(), 0.5)
    with pytest.raises(ValueError, match="sparsity"):
        pk.prune_mask(a, prunable, 1.5)
    with pytest.raises(ValueError, match="prunable"):
        pk.prune_mask(a, prunable[:-1], 0.5)
    with pytest.raises(ValueError, match="scores"):
        pk.prune_mask(a[None], prunable, 0.5)


def test_quadrature_matches_scipy_quad_vec() -> None:
    from scipy.integrate import quad_vec

    model, x, _, traj = _run()
    a, b = traj.thetas[0], traj.thetas[1]
    delta = b - a

    def integrand(t: float) -> np.ndarray:
        jac = pk.test_features(model, a + t * delta, a + t * delta, x[:3], 1)
        return (jac @ delta).flatten().numpy()

    want, _ = quad_vec(integrand, 0.0, 1.0, epsabs=1e-14, epsrel=1e-13)
    got = (pk.test_features(model, a, b, x[:3], 8) @ delta).flatten().numpy()
    assert np.abs(got - want).max() < 1e-12
