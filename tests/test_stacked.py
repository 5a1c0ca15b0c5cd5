"""Tests of icml26.dynamics.stacked (chapter 05): stacked layers against torch.nn, per-member
clipping, AdamW on stacked parameters, early stopping."""

from __future__ import annotations

import copy
import math

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from icml26.dynamics import stacked

F64 = torch.float64


def test_linear_matches_torch_linear_member_by_member():
    layer = stacked.StackedLinear(5, 3, stacked.member_generators([1, 2, 3])).double()
    x = torch.randn(3, 4, 6, 5, dtype=F64)
    y = layer(x)
    assert y.shape == (3, 4, 6, 3)
    for m in range(3):
        want = torch.nn.functional.linear(x[m], layer.weight[m].T, layer.bias[m, 0])
        assert torch.allclose(y[m], want, atol=1e-14)


def test_gru_cell_matches_torch_gru_cell():
    cell = stacked.StackedGRUCell(4, 6, stacked.member_generators([7, 8])).double()
    x, h = torch.randn(2, 5, 4, dtype=F64), torch.randn(2, 5, 6, dtype=F64)
    out = cell(x, h)
    for m in range(2):
        ref = torch.nn.GRUCell(4, 6).double()
        with torch.no_grad():
            ref.weight_ih.copy_(cell.weight_ih[m].T)
            ref.weight_hh.copy_(cell.weight_hh[m].T)
            ref.bias_ih.copy_(cell.bias_ih[m, 0])
            ref.bias_hh.copy_(cell.bias_hh[m, 0])
        assert torch.allclose(out[m], ref(x[m], h[m]), atol=1e-13)


def test_initialisation_law_and_independence_from_other_members():
    """Member m's weights depend on its seed only, and follow torch's U(-1/sqrt(in), 1/sqrt(in))."""
    a = stacked.StackedLinear(400, 50, stacked.member_generators([3, 4]))
    b = stacked.StackedLinear(400, 50, stacked.member_generators([9, 4, 3]))
    assert torch.equal(a.weight[0], b.weight[2]) and torch.equal(a.weight[1], b.weight[1])
    bound = 1 / math.sqrt(400)
    assert a.weight.abs().max() <= bound
    assert a.weight.std().item() == pytest.approx(bound / math.sqrt(3), rel=0.02)
    w = stacked.normal(stacked.member_generators([5]), (20000,), 0.5)
    assert w.shape == (1, 20000) and w.std().item() == pytest.approx(0.5, rel=0.03)


def test_parameter_count_is_per_member():
    layer = stacked.StackedLinear(5, 3, [None, None, None])
    assert stacked.parameter_count(layer) == 5 * 3 + 3
    with pytest.raises(ValueError, match="member axis"):
        stacked.parameter_count(_mismatched())


def test_clip_matches_torch_clip_per_member():
    torch.manual_seed(0)
    params = [torch.randn(3, 4, 5, requires_grad=True), torch.randn(3, 7, requires_grad=True)]
    grads = [torch.randn(3, 4, 5) * 3, torch.randn(3, 7) * torch.tensor([[0.01], [5.0], [1.0]])]
    for p, g in zip(params, grads, strict=True):
        p.grad = g.clone()
    norms = stacked.clip_member_grad_norm_(params, 1.0)
    for m in range(3):
        alone = [torch.zeros_like(p[m], requires_grad=True) for p in params]
        for a, g in zip(alone, grads, strict=True):
            a.grad = g[m].clone()
        want = torch.nn.utils.clip_grad_norm_(alone, 1.0)
        assert norms[m].item() == pytest.approx(want.item(), rel=1e-6)
        for p, a in zip(params, alone, strict=True):
            assert torch.allclose(p.grad[m], a.grad, atol=1e-6)


def test_adamw_on_stacked_parameters_equals_one_adamw_per_member():
    """torch.optim.AdamW acts entry by entry: stacking the members changes nothing."""
    torch.manual_seed(1)
    w = torch.randn(2, 3, 4, dtype=F64)
    stacked_p = torch.nn.Parameter(w.clone())
    singles = [torch.nn.Parameter(w[m].clone()) for m in range(2)]
    opt = torch.optim.AdamW([stacked_p], lr=0.05, weight_decay=0.05)
    opts = [torch.optim.AdamW([p], lr=0.05, weight_decay=0.05) for p in singles]
    for step in range(5):
        grad = torch.randn(2, 3, 4, dtype=F64) * (step + 1)
        stacked_p.grad = grad.clone()
        opt.step()
        for m in range(2):
            singles[m].grad = grad[m].clone()
            opts[m].step()
    for m in range(2):
        assert torch.allclose(stacked_p[m], singles[m], atol=1e-14)


def _mismatched() -> torch.nn.Module:
    """A module whose parameters do not share a leading member axis."""
    return torch.nn.ParameterList(
        [torch.nn.Parameter(torch.zeros(2)), torch.nn.Parameter(torch.zeros(3))]
    )


class _Toy(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.w = torch.nn.Parameter(torch.zeros(3, 2))


def test_early_stopping_keeps_best_checkpoint_and_freezes_stopped_members():
    toy = _Toy()
    es = stacked.EarlyStopping(toy, patience=2, min_delta=0.1)
    history = [(1.0, 1.0, 1.0), (0.5, 0.95, 1.2), (0.49, 0.94, 1.3), (0.48, 0.93, 0.1), (0.1,) * 3]
    active = []
    for step, losses in enumerate(history):
        with torch.no_grad():
            toy.w.fill_(float(step))
        active.append(es.update(step, torch.tensor(losses, dtype=F64)))
    # member 0 improves at 0 and 1 (by > 10 %) and stops after 2 flat evaluations (step 3),
    # so its later improvement is ignored; members 1 and 2 never improve by 10 %
    assert es.best_step.tolist() == [1, 0, 0]
    assert es.stop_step.tolist() == [3, 2, 2]
    assert active == [True, True, True, False, False]
    es.restore()
    assert toy.w[:, 0].tolist() == [1.0, 0.0, 0.0]
    steps, losses = es.curves()
    assert steps.tolist() == [0, 1, 2, 3, 4] and losses.shape == (5, 3)


@settings(max_examples=30, deadline=None)
@given(
    losses=st.lists(st.floats(0.01, 10.0), min_size=3, max_size=12),
    patience=st.integers(1, 4),
)
def test_early_stopping_matches_a_plain_loop(losses, patience):
    """One member, compared with the textbook early-stopping loop."""
    toy = torch.nn.Module()
    toy.w = torch.nn.Parameter(torch.zeros(1))
    es = stacked.EarlyStopping(toy, patience, min_delta=0.0)
    for k, v in enumerate(losses):
        es.update(k, torch.tensor([v], dtype=F64))
    best, best_k, wait, stop = math.inf, 0, 0, -1
    for k, v in enumerate(losses):
        if stop >= 0:
            break
        if v < best:
            best, best_k, wait = v, k, 0
        else:
            wait += 1
            if wait >= patience:
                stop = k
    assert es.best_step.item() == best_k and es.stop_step.item() == stop


def test_round_to_grid_is_exact_and_absorbs_last_bit_differences():
    g = torch.Generator().manual_seed(0)
    x = torch.randn(4, 50, generator=g, dtype=F64)
    y = x * (1 + 1e-15 * torch.randn(4, 50, generator=g, dtype=F64))  # last bits differ
    a, b = x.clone(), y.clone()
    stacked.round_to_grid_([a], 20)
    stacked.round_to_grid_([b], 20)
    assert torch.equal(a, b)
    assert torch.equal(a * 2**20, (a * 2**20).round())  # on the grid
    assert (a - x).abs().max() <= 2.0**-21
    c = a.clone()
    stacked.round_to_grid_([c], 20)  # idempotent
    assert torch.equal(c, a)


def test_validation():
    with pytest.raises(ValueError, match="bits must be >= 1"):
        stacked.round_to_grid_([torch.zeros(2, dtype=F64)], 0)
    with pytest.raises(ValueError, match="params must be floating-point"):
        stacked.round_to_grid_([torch.zeros(2, dtype=torch.long)], 10)
    with pytest.raises(ValueError, match="seeds must be a non-empty sequence"):
        stacked.member_generators([])
    with pytest.raises(ValueError, match="seeds must be a non-empty sequence"):
        stacked.member_generators(3)
    with pytest.raises(ValueError, match=r"seeds\[0\] must be >= 0"):
        stacked.member_generators([-1])
    with pytest.raises(ValueError, match=r"generators\[1\] must be a torch.Generator"):
        stacked.StackedLinear(2, 3, [None, 5])
    with pytest.raises(ValueError, match="generators must be a sequence"):
        stacked.StackedLinear(2, 3, torch.Generator())
    with pytest.raises(ValueError, match="in_features"):
        stacked.StackedLinear(0, 3, [None])
    with pytest.raises(ValueError, match="bound"):
        stacked.uniform([None], (2,), float("nan"))
    layer = stacked.StackedLinear(2, 3, [None, None])
    with pytest.raises(ValueError, match=r"x must have shape \(2, \.\.\., 2\)"):
        layer(torch.zeros(3, 4, 2))
    cell = stacked.StackedGRUCell(2, 3, [None])
    with pytest.raises(ValueError, match="h must have shape"):
        cell(torch.zeros(1, 4, 2), torch.zeros(1, 5, 3))
    with pytest.raises(ValueError, match="max_norm"):
        stacked.clip_member_grad_norm_(layer.parameters(), 0.0)
    with pytest.raises(ValueError, match="at least one parameter with a gradient"):
        stacked.clip_member_grad_norm_(layer.parameters(), 1.0)
    with pytest.raises(ValueError, match="patience"):
        stacked.EarlyStopping(layer, 0)
    with pytest.raises(ValueError, match="member axis"):
        stacked.EarlyStopping(_mismatched(), 2)
    es = stacked.EarlyStopping(copy.deepcopy(layer), 2)
    with pytest.raises(ValueError, match="losses must have shape"):
        es.update(0, torch.zeros(3))
    with pytest.raises(ValueError, match="losses must contain only finite"):
        es.update(0, torch.tensor([1.0, float("nan")]))
    with pytest.raises(ValueError, match="no evaluation recorded"):
        es.curves()
    with pytest.raises(ValueError, match="members must be >= 1"):
        stacked.member_flags("x", True, 0)
