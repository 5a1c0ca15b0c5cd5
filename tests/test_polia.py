"""Tests of icml26.agents.polia (chapter 14): IoU, matching, confidence, advantages, the toy
world, the methods' advantages and training."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
import torch
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from scipy.optimize import linear_sum_assignment

from icml26.agents import grounding, polia
from icml26.grpo import group_advantages
from icml26.pipeline.notebooks import notebook_functions

_fns = notebook_functions("14-polia", "iou_reference", "intrinsic_reference")
iou_reference, intrinsic_reference = _fns["iou_reference"], _fns["intrinsic_reference"]
F64 = torch.float64


def _rand_boxes(gen, *shape):
    x = torch.rand(*shape, 4, generator=gen, dtype=F64)
    return torch.cat([x[..., :2].minimum(x[..., 2:]), x[..., :2].maximum(x[..., 2:])], -1)


def _groups(seed, P=5, N=8, M=4):
    gen = torch.Generator().manual_seed(seed)
    R = torch.rand(P, N, generator=gen, dtype=F64).round(decimals=1)
    base = torch.rand(P, 3, M, generator=gen) < 0.5
    pick = torch.randint(0, 3, (P, N), generator=gen)
    cited = torch.gather(base, 1, pick[..., None].expand(P, N, M))
    keys = (cited.long() * 2 ** torch.arange(M)).sum(-1)
    conf = torch.rand(P, N, M, generator=gen, dtype=F64) * cited
    return R, keys, conf, cited


def _rollout(seed=0, methods=2, S=3, P=4, N=8, M=5, w=(1.0, 0.0, -0.5), b=(0.03, -0.02)):
    gen = torch.Generator().manual_seed(seed)
    scenes = grounding.sample_scenes((S, P), M, gen)
    policy = grounding.Policy.initial(methods, S)
    policy.w[:] = torch.tensor(w, dtype=F64)
    policy.b[:] = torch.tensor(b, dtype=F64)
    return grounding.rollout(policy, scenes, N, gen), scenes


# --- the advantage ----------------------------------------------------------------------------


def test_iou_hand_cases():
    a = torch.tensor([[0.0, 0.0, 1.0, 1.0]], dtype=F64)
    b = torch.tensor([[0.5, 0.0, 1.5, 1.0], [2.0, 2.0, 3.0, 3.0], [0.0, 0.0, 1.0, 1.0]], dtype=F64)
    got = polia.box_iou(a, b)[0]
    assert torch.allclose(got, torch.tensor([1 / 3, 0.0, 1.0], dtype=F64))


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 10_000))
def test_iou_matches_reference(seed):
    gen = torch.Generator().manual_seed(seed)
    a, b = _rand_boxes(gen, 3), _rand_boxes(gen, 5)
    got = polia.box_iou(a, b)
    want = torch.tensor([[iou_reference(x.tolist(), y.tolist()) for y in b] for x in a], dtype=F64)
    assert torch.allclose(got, want, atol=1e-12)
    assert torch.allclose(got, polia.box_iou(b, a).T)


def test_confidence_perfect_and_range():
    gen = torch.Generator().manual_seed(0)
    b = _rand_boxes(gen, 20)
    assert torch.allclose(polia.confidence(b, b), torch.ones(20, dtype=F64))
    s = polia.confidence(b, _rand_boxes(gen, 20))
    assert ((s >= 0) & (s <= 1)).all()


def test_confidence_hand_case():
    """A unit box shifted by half its width: IoU 1/3, L1 centre distance 0.5."""
    a = torch.tensor([0.0, 0.0, 0.5, 0.5], dtype=F64)
    b = torch.tensor([0.25, 0.0, 0.75, 0.5], dtype=F64)
    want = 0.7 / 3 + 0.3 * (1 - 0.25 / 2**0.5)
    assert float(polia.confidence(a[None], b[None])[0]) == pytest.approx(want, abs=1e-15)


def test_greedy_vs_hungarian_without_duplicates():
    iou = torch.tensor([[0.9, 0.1], [0.2, 0.8], [0.1, 0.3]], dtype=F64)
    g = polia.greedy_match(iou)
    assert g.tolist() == [0, 1, -1]
    r, c = linear_sum_assignment(-iou.numpy())
    h = np.full(3, -1)
    ok = iou.numpy()[r, c] > 0.5
    h[r[ok]] = c[ok]
    assert h.tolist() == g.tolist()


def test_greedy_allows_duplicates_and_empty_objects():
    iou = torch.tensor([[0.9, 0.1], [0.7, 0.6]], dtype=F64)
    assert polia.greedy_match(iou).tolist() == [0, 0]
    assert polia.greedy_match(torch.zeros(3, 0, dtype=F64)).tolist() == [-1, -1, -1]


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
        dtype=F64,
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


def test_intrinsic_two_member_group_is_plus_minus_one_over_root_two():
    """Any two-member group gets ±1/√2 (up to eps): the side effect the chapter discusses."""
    R = torch.tensor([[0.5, 1.5]], dtype=F64)
    conf = torch.tensor([[[1.0], [0.8]]], dtype=F64)
    keys = torch.tensor([[1, 1]])
    A = polia.intrinsic_advantages(R, keys, conf, conf > 0, eps=0.0)[0, :, 0]
    assert torch.allclose(A, torch.tensor([-(0.5**0.5), 0.5**0.5], dtype=F64))


def test_intrinsic_singletons_raw_keeps_the_corrected_reward():
    R, keys, conf, cited = _groups(5, N=6)
    keys[0, 0] = 999  # a group of one
    zero = polia.intrinsic_advantages(R, keys, conf, cited)
    raw = polia.intrinsic_advantages(R, keys, conf, cited, singletons="raw")
    alone = ((keys[:, :, None] == keys[:, None, :]).sum(-1) == 1)[..., None] & cited
    assert alone[0, 0].any() and (zero[alone] == 0).all()
    assert torch.allclose(raw[alone], (R[..., None] * conf)[alone])
    assert torch.equal(zero[~alone], raw[~alone])


# --- the toy --------------------------------------------------------------------------------


def test_scenes_always_ask_about_an_object():
    scenes = grounding.sample_scenes((50, 8), 6, torch.Generator().manual_seed(1))
    assert scenes.relevant.any(-1).all()
    assert scenes.boxes.shape == (50, 8, 6, 4)
    assert torch.allclose(
        scenes.boxes[..., 2:] - scenes.boxes[..., :2], torch.tensor(0.2, dtype=F64)
    )


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_rollout_agrees_with_the_public_kernels(seed):
    """The rollout's fast square-box geometry = box_iou, greedy_match, confidence, keys."""
    roll, scenes = _rollout(seed)
    M = scenes.colour.shape[-1]
    pred = torch.cat([roll.centre - 0.1, roll.centre + 0.1], -1)
    gt = torch.where(scenes.relevant[..., None], scenes.boxes, scenes.boxes + 5.0)
    gt = gt[..., None, :, :].expand(*pred.shape[:-2], M, 4)
    iou = polia.box_iou(pred, gt)
    match = torch.where(roll.present, polia.greedy_match(iou), -1)
    assert torch.equal(match, roll.match)
    assert torch.allclose(torch.diagonal(iou[..., :M, :], dim1=-2, dim2=-1), roll.own_iou)
    assert torch.equal(polia.evidence_keys(match, M), roll.keys)
    hit = match >= 0
    idx = match.clamp(min=0)[..., None, None].expand(*match.shape, 1, 4)
    s = polia.confidence(pred, torch.gather(gt, -2, idx[..., 0, :]))
    for o in range(M):
        best = torch.where(hit & (match == o), s, torch.zeros_like(s)).amax(-1)
        assert torch.allclose(roll.conf[..., o], best, atol=1e-12)
    assert torch.equal(roll.cited, (match[..., None] == torch.arange(M)).any(-2))


def test_rollout_reward_follows_the_answer_model():
    roll, scenes = _rollout(3)
    count = roll.present.sum(-1)
    assert torch.equal(roll.reward, roll.correct.double() + 0.5 * (count > 0).double())
    wrong_count = count != scenes.relevant.sum(-1)[..., None]
    assert not (roll.correct & wrong_count).any()


def test_rollout_log_probabilities_have_gradients_and_the_right_values():
    gen = torch.Generator().manual_seed(4)
    scenes = grounding.sample_scenes((2, 3), 4, gen)
    policy = grounding.Policy.initial(1, 2)
    for p in policy.parameters():
        p.requires_grad_()
    roll = grounding.rollout(policy, scenes, 5, gen)
    s = policy.log_s.exp()[0, :, None, None, None, :]
    mu = scenes.centre[:, :, None] + policy.b[0, :, None, None, None, :]
    z = (roll.centre[0, ..., :4, :] - mu) / s
    want = torch.distributions.Normal(0.0, s).log_prob(z * s).sum(-1) + np.log(2 * np.pi)
    assert torch.allclose(roll.lp_box[0], want, atol=1e-10)
    roll.lp_seq.sum().backward()
    assert all(p.grad is not None and torch.isfinite(p.grad).all() for p in policy.parameters())


# --- the methods ----------------------------------------------------------------------------


def _advantages(names, roll, **kw):
    return grounding.advantages(roll, [grounding.METHODS[n] for n in names], **kw)


def test_grpo_and_polia_advantages():
    roll, _ = _rollout(5)
    a_seq, a_box = _advantages(["GRPO", "POLIA"], roll)
    N, M = roll.reward.shape[-1], roll.cite.shape[-1]
    a_ext = group_advantages(roll.reward.reshape(-1, N)).reshape(roll.reward.shape)
    assert torch.allclose(a_seq, a_ext)
    assert (a_box[0] == 0).all()
    a_int = polia.intrinsic_advantages(
        roll.reward[1].reshape(-1, N),
        roll.keys[1].reshape(-1, N),
        roll.conf[1].reshape(-1, N, M),
        roll.cited[1].reshape(-1, N, M),
    ).reshape(roll.conf[1].shape)
    slot = roll.match[1, ..., :M]
    want = torch.where(slot >= 0, torch.gather(a_int, -1, slot.clamp(min=0)), 0.0)
    assert torch.allclose(a_box[1], want)
    assert a_box[1].abs().sum() > 0


def test_ablations_spread_and_penalties():
    roll, _ = _rollout(6, methods=5)
    names = ["w/o A_ext", "spread", "released simple", "released", "POLIA"]
    a_seq, a_box = _advantages(names, roll, omega=0.5)
    N, M = roll.reward.shape[-1], roll.cite.shape[-1]
    a_ext = group_advantages(roll.reward[0].reshape(-1, N)).reshape(roll.reward[0].shape)
    polia_box = a_box[4] / 0.5
    a_int = polia.intrinsic_advantages(
        roll.reward[0].reshape(-1, N),
        roll.keys[0].reshape(-1, N),
        roll.conf[0].reshape(-1, N, M),
        roll.cited[0].reshape(-1, N, M),
    ).reshape(roll.conf[0].shape)
    assert (a_seq[0] == 0).all() and torch.allclose(a_box[0], a_box[4])
    assert torch.allclose(a_seq[1], a_ext + 0.5 * a_int.sum(-1)) and (a_box[1] == 0).all()
    unmatched = (roll.present & ~roll.hit).sum(-1)[2].double()
    size = (roll.keys[2][..., :, None] == roll.keys[2][..., None, :]).sum(-1)
    want = a_ext + 0.5 * a_int.sum(-1) - unmatched * (size > 1)
    assert torch.allclose(a_seq[2], want)
    assert torch.allclose(a_seq[3], a_ext - unmatched)
    matched = roll.match[3, ..., :M] >= 0
    alone = (size == 1)[..., None].expand_as(matched)
    keep = matched & ~alone
    assert torch.allclose(a_box[3][keep], a_box[4][keep])
    assert unmatched.sum() > 0 and alone.any() and polia_box.abs().sum() > 0


def test_random_confidence_uses_the_noise_not_the_boxes():
    roll, _ = _rollout(7)
    a = _advantages(["random s", "random s"], roll)[1]
    roll.conf.zero_()
    b = _advantages(["random s", "random s"], roll)[1]
    assert torch.equal(a, b)


# --- training --------------------------------------------------------------------------------


def test_adam_matches_torch():
    gen = torch.Generator().manual_seed(0)
    x0 = torch.randn(3, 4, generator=gen, dtype=F64)
    x, y = x0.clone().requires_grad_(), x0.clone().requires_grad_()
    opt = torch.optim.Adam([y], lr=0.05)
    state = [(torch.zeros_like(x), torch.zeros_like(x))]
    for t in range(1, 20):
        (x**4).sum().backward()
        grounding._adam([x], state, torch.tensor(0.05, dtype=F64), t)
        opt.zero_grad()
        (y**4).sum().backward()
        opt.step()
    assert torch.allclose(x, y, atol=1e-12)


def test_train_shapes_determinism_and_common_random_numbers():
    kw = {"seeds": 2, "iters": 6, "prompts": 2, "members": 4, "objects": 3, "seed": 3}
    r1 = grounding.train(["GRPO", "POLIA"], lrs=(0.01, 0.02), **kw)
    r2 = grounding.train(["POLIA", "random s"], lrs=(0.01, 0.02), **kw)
    assert r1.reward.shape == (6, 2, 2, 2) and r1.offset.shape == (6, 2, 2, 2, 2)
    assert r1.final("iou", last=3).shape == (2, 2, 2)
    assert torch.equal(r1.iou[:, 1], r2.iou[:, 0])  # the other methods change nothing
    assert ((r1.unmatched >= 0) & (r1.unmatched <= 1)).all()
    assert r1.of("POLIA") == 1
    assert r1.policy.w.shape == (2, 2, 2, 3)


def test_training_moves_the_boxes_onto_their_objects():
    run = grounding.train(["POLIA"], seeds=3, iters=150, seed=1)
    assert run.iou[-20:].mean() > run.iou[:20].mean() + 0.1


# --- bad input ----------------------------------------------------------------------------------

B = torch.tensor([[0.0, 0.0, 1.0, 1.0]], dtype=F64)
GEN = torch.Generator().manual_seed(0)


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
        lambda: polia.greedy_match(torch.ones(3, dtype=F64)),
        lambda: polia.greedy_match(torch.ones(2, 2, dtype=F64), threshold=2.0),
        lambda: polia.greedy_match(torch.ones(2, 2, dtype=torch.long)),
        lambda: polia.greedy_match(torch.full((2, 2), float("inf"), dtype=F64)),
        lambda: polia.evidence_keys(torch.tensor([0, 5]), 3),
        lambda: polia.evidence_keys(torch.tensor([0.0]), 3),
        lambda: polia.evidence_keys(torch.tensor([0]), 0),
        lambda: polia.evidence_keys(torch.tensor(0), 3),
        lambda: grounding.sample_scenes((0, 2), 3, GEN),
        lambda: grounding.sample_scenes(4, 3, GEN),
        lambda: grounding.sample_scenes((2,), 0, GEN),
        lambda: grounding.sample_scenes((2,), 3, None),
        lambda: grounding.Method(intrinsic="all"),
        lambda: grounding.Method(extrinsic=1),
        lambda: grounding.Method(penalty="some"),
        lambda: grounding.train("GRPO"),
        lambda: grounding.train(["PPO"]),
        lambda: grounding.train(["GRPO", "GRPO"]),
        lambda: grounding.train([]),
        lambda: grounding.train(lrs=()),
        lambda: grounding.train(lrs=(0.01, 0.0)),
        lambda: grounding.train(lrs=(float("nan"),)),
        lambda: grounding.train(lrs=0.01),
        lambda: grounding.train(seeds=0),
        lambda: grounding.train(iters=0),
        lambda: grounding.train(members=1),
        lambda: grounding.train(objects=0),
        lambda: grounding.train(omega=-1.0),
        lambda: grounding.train(penalty=float("inf")),
        lambda: grounding.train(seed=-1),
    ],
)
def test_bad_input(call):
    with pytest.raises(ValueError):
        call()


def test_rollout_and_advantages_bad_input():
    gen = torch.Generator().manual_seed(0)
    scenes = grounding.sample_scenes((2, 3), 4, gen)
    policy = grounding.Policy.initial(1, 2)
    with pytest.raises(ValueError, match="members"):
        grounding.rollout(policy, scenes, 1, gen)
    with pytest.raises(ValueError, match="scenes"):
        grounding.rollout(grounding.Policy.initial(1, 3), scenes, 4, gen)
    with pytest.raises(ValueError, match="policy"):
        grounding.rollout("policy", scenes, 4, gen)
    with pytest.raises(ValueError, match="gen"):
        grounding.rollout(policy, scenes, 4, 0)
    roll = grounding.rollout(policy, scenes, 4, gen)
    with pytest.raises(ValueError, match="methods"):
        grounding.advantages(roll, [grounding.METHODS["GRPO"]] * 2)
    with pytest.raises(ValueError, match="methods"):
        grounding.advantages(roll, grounding.METHODS["GRPO"])
    with pytest.raises(ValueError, match="omega"):
        grounding.advantages(roll, [grounding.METHODS["GRPO"]], omega=-1.0)
    with pytest.raises(ValueError, match="penalty"):
        grounding.advantages(roll, [grounding.METHODS["GRPO"]], penalty=float("nan"))
    with pytest.raises(ValueError, match="roll"):
        grounding.advantages("roll", [grounding.METHODS["GRPO"]])
    with pytest.raises(ValueError, match=r"roll\.reward"):
        grounding.advantages(
            dataclasses.replace(roll, reward=roll.reward * float("nan")),
            [grounding.METHODS["GRPO"]],
        )
    nan = torch.tensor(float("nan"), dtype=F64)
    for field, bad in (
        ("w", policy.w * nan),
        ("b", policy.b[..., :1]),
        ("log_s", "log_s"),
    ):
        with pytest.raises(ValueError, match=rf"policy\.{field}"):
            grounding.rollout(dataclasses.replace(policy, **{field: bad}), scenes, 4, gen)
    for field, bad in (
        ("centre", scenes.centre + float("inf")),
        ("colour", scenes.colour.double()),
        ("asked", scenes.asked[..., 0]),
    ):
        with pytest.raises(ValueError, match=rf"scenes\.{field}"):
            grounding.rollout(policy, dataclasses.replace(scenes, **{field: bad}), 4, gen)


def test_run_bad_input():
    run = grounding.train(["GRPO"], seeds=1, iters=2, prompts=1, members=2, objects=2)
    with pytest.raises(ValueError, match="metric"):
        run.final("policy")
    with pytest.raises(ValueError, match="last"):
        run.final("iou", last=3)
    with pytest.raises(ValueError, match="method"):
        run.of("POLIA")


@pytest.mark.parametrize("which", ["rewards", "keys", "conf", "cited", "eps", "singletons"])
def test_intrinsic_bad_input(which):
    R, keys, conf, cited = _groups(0)
    kw = {"rewards": R, "keys": keys, "conf": conf, "cited": cited}
    bad = {
        "rewards": R[0],
        "keys": keys.double(),
        "conf": conf[:, :3],
        "cited": cited.long(),
    }
    if which in ("eps", "singletons"):
        with pytest.raises(ValueError, match=which):
            polia.intrinsic_advantages(**kw, **{which: -1.0 if which == "eps" else "keep"})
        return
    kw[which] = bad[which]
    with pytest.raises(ValueError, match=which):
        polia.intrinsic_advantages(**kw)


@settings(max_examples=25, deadline=None)
@given(st.floats(-1.0, 1.0), st.floats(-1.0, 1.0))
def test_square_iou_is_box_iou(dx, dy):
    assume(abs(dx) + abs(dy) > 0)
    a = torch.tensor([[0.4, 0.4, 0.6, 0.6]], dtype=F64)
    b = a + torch.tensor([dx, dy, dx, dy], dtype=F64)
    centre = torch.tensor([[0.5, 0.5]], dtype=F64)
    got = grounding._square_iou(centre, centre + torch.tensor([dx, dy], dtype=F64))
    assert float(got) == pytest.approx(float(polia.box_iou(a, b)), abs=1e-12)
