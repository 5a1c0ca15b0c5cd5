"""Tests of icml26.trust.adamw, the AdamW step shared by chapters 17 and 18."""

from __future__ import annotations

import copy

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from icml26.trust.adamw import AdamWState, adamw_step


def _params(seed: int = 0, dtype=torch.float64) -> list[torch.Tensor]:
    g = torch.Generator().manual_seed(seed)
    return [torch.randn(5, 3, generator=g, dtype=dtype), torch.randn(3, generator=g, dtype=dtype)]


@settings(max_examples=25, deadline=None)
@given(
    st.floats(1e-4, 0.1),
    st.floats(0.0, 0.99),
    st.floats(0.5, 0.9999),
    st.floats(0.0, 0.5),
    st.integers(0, 10_000),
)
def test_matches_torch_optim_adamw(lr: float, b1: float, b2: float, wd: float, seed: int) -> None:
    params = _params(seed)
    ref = [p.clone().requires_grad_(True) for p in params]
    opt = torch.optim.AdamW(ref, lr=lr, betas=(b1, b2), weight_decay=wd, eps=1e-8)
    state = AdamWState.zeros_like(params)
    g = torch.Generator().manual_seed(seed + 1)
    cur = params
    for _ in range(4):
        grads = [torch.randn(p.shape, generator=g, dtype=p.dtype) for p in params]
        for r, gr in zip(ref, grads, strict=True):
            r.grad = gr.clone()
        opt.step()
        cur = adamw_step(cur, grads, state, lr=lr, betas=(b1, b2), weight_decay=wd)
    assert state.step == 4
    for a, b in zip(cur, ref, strict=True):
        assert torch.allclose(a, b.detach(), rtol=1e-12, atol=1e-14)


def test_inplace_and_batched_models() -> None:
    """In place equals out of place; a leading batch axis is a batch of independent models."""
    params = [torch.stack([p, 2 * p]) for p in _params()]
    grads = [torch.ones_like(p) for p in params]
    s1, s2 = AdamWState.zeros_like(params), AdamWState.zeros_like(params)
    out = adamw_step(params, grads, s1, lr=0.1)
    inplace = [p.clone() for p in params]
    same = adamw_step(inplace, grads, s2, lr=0.1, inplace=True)
    assert all(a is b for a, b in zip(same, inplace, strict=True))
    for a, b in zip(out, inplace, strict=True):
        assert torch.equal(a, b)
    single = adamw_step(
        [p[1] for p in params],
        [g[1] for g in grads],
        AdamWState.zeros_like([p[1] for p in params]),
        lr=0.1,
    )
    for a, b in zip(out, single, strict=True):
        assert torch.equal(a[1], b)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"lr": -1.0}, "lr"),
        ({"lr": float("nan")}, "lr"),
        ({"lr": 0.1, "betas": (1.0, 0.999)}, "betas"),
        ({"lr": 0.1, "betas": (0.9, 1.0)}, "betas"),
        ({"lr": 0.1, "betas": (0.9,)}, "betas"),
        ({"lr": 0.1, "betas": (-0.1, 0.9)}, "betas"),
        ({"lr": 0.1, "eps": -1.0}, "eps"),
        ({"lr": 0.1, "weight_decay": -0.1}, "weight_decay"),
        ({"lr": 0.1, "check_finite": 1}, "check_finite"),
        ({"lr": 0.1, "inplace": "yes"}, "inplace"),
    ],
)
def test_bad_arguments_leave_the_state_untouched(kwargs: dict, match: str) -> None:
    params = _params()
    grads = [torch.ones_like(p) for p in params]
    state = AdamWState.zeros_like(params)
    adamw_step(params, grads, state, lr=0.1)
    before = copy.deepcopy(state)
    with pytest.raises(ValueError, match=match):
        adamw_step(params, grads, state, **kwargs)
    assert state.step == before.step == 1
    for a, b in zip(state.m + state.v, before.m + before.v, strict=True):
        assert torch.equal(a, b)


def test_bad_tensors_leave_the_state_untouched() -> None:
    params = _params()
    grads = [torch.ones_like(p) for p in params]
    state = AdamWState.zeros_like(params)
    bad_grads = [
        [g.unsqueeze(0) for g in grads],
        grads[:1],
        [g.float() for g in grads],
        [g * float("nan") for g in grads],
        [],
    ]
    for bad in bad_grads:
        with pytest.raises(ValueError, match="grads"):
            adamw_step(params, bad, state, lr=0.1)
    with pytest.raises(ValueError, match="params"):
        adamw_step([p * float("inf") for p in params], grads, state, lr=0.1)
    with pytest.raises(ValueError, match="state must be"):
        adamw_step(params, grads, object(), lr=0.1)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"state\.m"):
        adamw_step(params, grads, AdamWState(state.m[:1], state.v), lr=0.1)
    with pytest.raises(ValueError, match=r"state\.step"):
        adamw_step(params, grads, AdamWState(state.m, state.v, step=-1), lr=0.1)
    live = [p.clone().requires_grad_(True) for p in params]
    with pytest.raises(ValueError, match="no_grad"):
        adamw_step(live, grads, state, lr=0.1, inplace=True)
    assert state.step == 0
    assert all(bool((t == 0).all()) for t in state.m + state.v)
    with pytest.raises(ValueError, match="params"):
        AdamWState.zeros_like([])


def test_nan_propagates_without_the_finiteness_check() -> None:
    params = _params()
    grads = [torch.full_like(p, float("nan")) for p in params]
    out = adamw_step(params, grads, AdamWState.zeros_like(params), lr=0.1, check_finite=False)
    assert bool(torch.isnan(out[0]).all())
