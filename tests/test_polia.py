"""Tests of icml26.agents.polia (chapter 14): IoU, matching, confidence, advantages, training."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import linear_sum_assignment

from icml26.agents import polia
from icml26.pipeline.notebooks import notebook_functions

_fns = notebook_functions("14-polia", "iou_reference", "intrinsic_reference")
iou_reference, intrinsic_reference = _fns["iou_reference"], _fns["intrinsic_reference"]


def _rand_boxes(gen, *shape):
    x = torch.rand(*shape, 4, generator=gen, dtype=torch.float64)
    return torch.cat([x[..., :2].minimum(x[..., 2:]), x[..., :2].maximum(x[..., 2:])], -1)


def _groups(seed, P=5, N=8, M=4):
    gen = torch.Generator().manual_seed(seed)
    R = torch.rand(P, N, generator=gen, dtype=torch.float64).round(decimals=1)
    base = torch.rand(P, 3, M, generator=gen) < 0.5
    pick = torch.randint(0, 3, (P, N), generator=gen)
    cited = torch.gather(base, 1, pick[..., None].expand(P, N, M))
    keys = (cited.long() * 2 ** torch.arange(M)).sum(-1)
    conf = torch.rand(P, N, M, generator=gen, dtype=torch.float64) * cited
    return R, keys, conf, cited


def test_iou_hand_cases():
    a = torch.tensor([[0.0, 0.0, 1.0, 1.0]], dtype=torch.float64)
    b = torch.tensor(
        [[0.5, 0.0, 1.5, 1.0], [2.0, 2.0, 3.0, 3.0], [0.0, 0.0, 1.0, 1.0]], dtype=torch.float64
    )
    got = polia.box_iou(a, b)[0]
    assert torch.allclose(got, torch.tensor([1 / 3, 0.0, 1.0], dtype=torch.float64))


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 10_000))
def test_iou_matches_reference(seed):
    gen = torch.Generator().manual_seed(seed)
    a, b = _rand_boxes(gen, 3), _rand_boxes(gen, 5)
    got = polia.box_iou(a, b)
    want = torch.tensor(
        [[iou_reference(x.tolist(), y.tolist()) for y in b] for x in a], dtype=torch.float64
    )
    assert torch.allclose(got, want, atol=1e-12)
    assert torch.allclose(got, polia.box_iou(b, a).T)


def test_confidence_perfect_and_range():
    gen = torch.Generator().manual_seed(0)
    b = _rand_boxes(gen, 20)
    assert torch.allclose(polia.confidence(b, b), torch.ones(20, dtype=torch.float64))
    s = polia.confidence(b, _rand_boxes(gen, 20))
    assert ((s >= 0) & (s <= 1)).all()


def test_greedy_vs_hungarian_without_duplicates():
    iou = torch.tensor([[0.9, 0.1], [0.2, 0.8], [0.1, 0.3]], dtype=torch.float64)
    g = polia.greedy_match(iou)
    assert g.tolist() == [0, 1, -1]
    r, c = linear_sum_assignment(-iou.numpy())
    h = np.full(3, -1)
    ok = iou.numpy()[r, c] > 0.5
    h[r[ok]] = c[ok]
    assert h.tolist() == g.tolist()


def test_greedy_allows_duplicates():
    iou = torch.tensor([[0.9, 0.1], [0.7, 0.6]], dtype=torch.float64)
    assert polia.greedy_match(iou).tolist() == [0, 0]


def test_evidence_keys():
    m = torch.tensor([[0, 0, -1, 2]])
    assert polia.evidence_keys(m, 3).tolist() == [5]


@settings(max_examples=20, deadline=None)
@given(st.integers(0, 10_000))
def test_intrinsic_matches_reference_and_centred(seed):
    R, keys, conf, cited = _groups(seed)
    A = polia.intrinsic_advantages(R, keys, conf, cited)
    ref = torch.tensor(
        intrinsic_reference(R.tolist(), keys.tolist(), conf.tolist(), cited.tolist()),
        dtype=torch.float64,
    )
    assert torch.allclose(A, ref, atol=1e-9)
    same = (keys[:, :, None] == keys[:, None, :]).double()
    assert torch.einsum("pij,pjm->pim", same, A).abs().max() < 1e-9
    assert (A[~cited] == 0).all()


def test_intrinsic_scale_invariance_and_zero_reward():
    R, keys, conf, cited = _groups(3)
    a = polia.intrinsic_advantages(R, keys, conf, cited, eps=0.0)
    b = polia.intrinsic_advantages(2.5 * R, keys, conf, cited, eps=0.0)
    assert torch.allclose(a, b, atol=1e-9)
    z = polia.intrinsic_advantages(torch.zeros_like(R), keys, conf, cited)
    assert (z == 0).all()


def test_train_shapes_and_determinism():
    r1 = polia.train("POLIA", seeds=2, iters=5, prompts=2, members=4, objects=3)
    r2 = polia.train("POLIA", seeds=2, iters=5, prompts=2, members=4, objects=3)
    assert r1.reward.shape == (5, 2) and r1.offset.shape == (5, 2, 2)
    assert torch.equal(r1.iou, r2.iou)
    assert ((r1.unmatched >= 0) & (r1.unmatched <= 1)).all()


# --- bad input ---------------------------------------------------------------------------------

B = torch.tensor([[0.0, 0.0, 1.0, 1.0]], dtype=torch.float64)


@pytest.mark.parametrize(
    "call",
    [
        lambda: polia.box_iou([[0, 0, 1, 1]], B),
        lambda: polia.box_iou(B[:, :3], B),
        lambda: polia.box_iou(torch.tensor([[1.0, 0.0, 0.0, 1.0]]), B),
        lambda: polia.box_iou(B * float("nan"), B),
        lambda: polia.box_iou(B[None], B),
        lambda: polia.confidence(B, B.repeat(2, 1)),
        lambda: polia.confidence(B, B, w_iou=-1.0),
        lambda: polia.confidence(B, B, w_l1=-1.0),
        lambda: polia.greedy_match(torch.ones(3, dtype=torch.float64)),
        lambda: polia.greedy_match(torch.ones(2, 2, dtype=torch.float64), threshold=2.0),
        lambda: polia.greedy_match(torch.ones(2, 2, dtype=torch.long)),
        lambda: polia.evidence_keys(torch.tensor([0, 5]), 3),
        lambda: polia.evidence_keys(torch.tensor([0.0]), 3),
        lambda: polia.evidence_keys(torch.tensor([0]), 0),
        lambda: polia.train("PPO"),
        lambda: polia.train("POLIA", seeds=0),
        lambda: polia.train("POLIA", members=1),
        lambda: polia.train("POLIA", lr=0.0),
        lambda: polia.train("POLIA", omega=-1.0),
        lambda: polia.train("POLIA", objects=0),
    ],
)
def test_bad_input(call):
    with pytest.raises(ValueError):
        call()


@pytest.mark.parametrize("which", ["rewards", "keys", "conf", "cited", "eps"])
def test_intrinsic_bad_input(which):
    R, keys, conf, cited = _groups(0)
    kw = {"rewards": R, "keys": keys, "conf": conf, "cited": cited}
    bad = {
        "rewards": R[0],
        "keys": keys.double(),
        "conf": conf[:, :3],
        "cited": cited.long(),
    }
    if which == "eps":
        with pytest.raises(ValueError, match="eps"):
            polia.intrinsic_advantages(**kw, eps=-1.0)
        return
    kw[which] = bad[which]
    with pytest.raises(ValueError, match=which):
        polia.intrinsic_advantages(**kw)
