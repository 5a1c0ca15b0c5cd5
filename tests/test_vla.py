"""Tests of icml26.agents.vla (chapter 15): self-uncertainty, temperatures, history, ForkReach,
the policy and closed-loop decoding."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import special
from scipy import stats as sstats

from icml26.agents import vla
from icml26.pipeline.notebooks import notebook_functions

_fns = notebook_functions(
    "15-scale",
    "self_uncertainty_reference",
    "scale_decode_reference",
    "tempered_attention_reference",
)
u_ref = _fns["self_uncertainty_reference"]
decode_ref = _fns["scale_decode_reference"]
attn_ref = _fns["tempered_attention_reference"]

CFG = vla.ForkReach()


def _gen(seed=0):
    return torch.Generator().manual_seed(seed)


# --- the mathematics -------------------------------------------------------------------------
def test_uncertainty_matches_reference_and_scipy():
    L = torch.randn(20, 64, generator=_gen(), dtype=torch.float64) * 3
    got = vla.self_uncertainty(L)
    want = [u_ref(row) for row in L.tolist()]
    np.testing.assert_allclose(got.numpy(), want, atol=1e-9)
    p = np.sort(special.softmax(L.numpy(), -1), -1)[:, ::-1]
    q_low = np.r_[1 - 63e-12, np.full(63, 1e-12)]
    sc = [sstats.entropy(r, q_low) - sstats.entropy(r, np.full(64, 1 / 64)) for r in p]
    np.testing.assert_allclose(got.numpy(), sc, atol=1e-9)


@settings(max_examples=40, deadline=None)
@given(
    k=st.integers(2, 300),
    scale=st.floats(0.01, 50.0),
    eps=st.sampled_from([1e-12, 1e-9, 1e-6]),
    seed=st.integers(0, 10_000),
)
def test_closed_form_property(k, scale, eps, seed):
    L = torch.randn(4, k, generator=_gen(seed), dtype=torch.float64) * scale
    p1 = torch.softmax(L, -1).max(-1).values
    got = vla.self_uncertainty(L, eps=eps)
    want = vla.uncertainty_closed_form(p1, k=k, eps=eps)
    assert (got - want).abs().max() < 1e-8
    assert bool((got >= -math.log(k) - 1e-9).all())


def test_uncertainty_known_values():
    for p1, u in [(1.0, -5.545), (0.9, -2.782), (0.7, 2.744), (0.5, 8.270)]:
        got = vla.uncertainty_closed_form(torch.tensor([p1], dtype=torch.float64), k=256)
        assert abs(float(got) - u) < 1e-3


def test_temperature_maps():
    u = torch.tensor([-5.545, 0.0, 30.0], dtype=torch.float64)
    tau = vla.action_temperature(u, t0=2.0)
    np.testing.assert_allclose(tau.numpy(), 2 * special.expit(u.numpy()))
    d = torch.linspace(-27.7, 27.7, 201, dtype=torch.float64)  # the range of Δu
    g = vla.attention_temperature(d)
    assert bool(((g > 0.5) & (g < 2)).all())
    assert float(vla.attention_temperature(torch.zeros(1, dtype=torch.float64))) == 1.0
    assert bool((g[1:] >= g[:-1]).all())


def test_history_order_and_first_steps():
    h = vla.History(1, 2, alpha=0.8)
    assert float(h.delta()) == 0
    u1, u2, u3 = (torch.tensor([[v, v]], dtype=torch.float64) for v in (1.0, 3.0, -2.0))
    h.update(u1)
    assert float(h.delta()) == 0  # gamma = 1 at step 2
    h.update(u2)
    assert abs(float(h.delta()) - (3.0 - 1.0)) < 1e-12
    h.update(u3)
    ema = 0.8 * 1.0 + 0.2 * 3.0
    assert abs(float(h.delta()) - (-2.0 - ema)) < 1e-12


def test_history_inactive_rows_frozen():
    h = vla.History(2, 1)
    h.update(torch.ones(2, 1, dtype=torch.float64), torch.tensor([True, False]))
    assert h.count.tolist() == [1, 0]
    assert float(h.last[1, 0]) == 0.0


def test_sample_tokens_greedy_topk_topp():
    L = torch.tensor([[0.0, 3.0, 1.0, 2.0]] * 500, dtype=torch.float64)
    assert bool((vla.sample_tokens(L, 0.0, _gen()) == 1).all())
    t = vla.sample_tokens(L, 1.0, _gen(), top_k=2)
    assert set(t.tolist()) <= {1, 3}
    t = vla.sample_tokens(L, 1.0, _gen(), top_p=0.5)
    assert set(t.tolist()) == {1}
    freq = np.bincount(vla.sample_tokens(L, 1.0, _gen()).numpy(), minlength=4) / 500
    np.testing.assert_allclose(freq, special.softmax([0, 3, 1, 2]), atol=0.06)


def test_decode_reference_temperatures_agree():
    L = torch.randn(30, 33, generator=_gen(2), dtype=torch.float64)
    r = torch.rand(30, generator=_gen(3), dtype=torch.float64)
    toks, taus = decode_ref(L.tolist(), r.tolist())
    np.testing.assert_allclose(vla.action_temperature(vla.self_uncertainty(L)).numpy(), taus)
    assert all(0 <= t < 33 for t in toks)


def test_attention_reference_and_sdpa():
    q, k, v = torch.randn(3, 1, 2, 6, 4, generator=_gen(4), dtype=torch.float64).unbind(0)
    mine = attn_ref(q[0, 0].numpy(), k[0, 0].numpy(), v[0, 0].numpy(), 1.5)
    sdpa = torch.nn.functional.scaled_dot_product_attention(q, k, v, scale=0.5 / 1.5)
    np.testing.assert_allclose(sdpa[0, 0].numpy(), mine, atol=1e-12)


def test_policy_attention_entropy_increases():
    pol = vla.TinyVLA(CFG)
    st_ = vla.reset(CFG, 8, _gen())
    img = vla.render(CFG, st_)
    ent = [vla.attention_entropy(pol, img, g) for g in (0.5, 1.0, 2.0)]
    assert ent[0] < ent[1] < ent[2]


# --- ForkReach --------------------------------------------------------------------------------
def test_expert_succeeds_and_is_trimodal_at_fork():
    g = _gen(5)
    st_ = vla.reset(CFG, 256, g)
    for _ in range(CFG.horizon):
        st_ = vla.step(CFG, st_, vla.expert_action(CFG, st_, g))
    assert bool(st_["success"].all())
    st2 = vla.reset(CFG, 4000, g)
    st2["pos"] = torch.stack([st2["cx"], torch.full_like(st2["cx"], 0.41)], -1)
    assert bool(vla.fork_mask(CFG, st2).all())
    vx = vla.expert_action(CFG, st2, g)[:, 0]
    frac = [(vx < 0).double().mean(), (vx == 0).double().mean(), (vx > 0).double().mean()]
    np.testing.assert_allclose([float(f) for f in frac], [0.25, 0.5, 0.25], atol=0.03)


def test_blocked_move_leaves_state():
    st_ = vla.reset(CFG, 1, _gen())
    st_["pos"] = torch.tensor([[float(st_["cx"][0]), 0.45]], dtype=torch.float64)
    new = vla.step(CFG, st_, torch.tensor([[0.0, 0.05]], dtype=torch.float64))
    assert torch.equal(new["pos"], st_["pos"])


def test_tokenize_roundtrip():
    a = torch.tensor([[-0.05, 0.0], [0.05, 0.0125]], dtype=torch.float64)
    t = vla.tokenize(CFG, a)
    assert t.tolist() == [[0, 16], [32, 20]]
    np.testing.assert_allclose(vla.detokenize(CFG, t).numpy(), a.numpy(), atol=1e-12)


def test_render_shape_range():
    img = vla.render(CFG, vla.reset(CFG, 3, _gen()), _gen(1))
    assert img.shape == (3, 3, 16, 16)
    assert float(img.min()) >= 0 and float(img.max()) <= 1


def test_render_dtype():
    st = vla.reset(CFG, 3, _gen())
    img32, img64 = vla.render(CFG, st), vla.render(CFG, st, dtype=torch.float64)
    assert img32.dtype == torch.float32 and img64.dtype == torch.float64
    np.testing.assert_allclose(img64.numpy(), img32.double().numpy(), atol=1e-6)
    with pytest.raises(ValueError, match="dtype"):
        vla.render(CFG, st, dtype=torch.int64)


def test_collect_demos_dtype():
    d = vla.collect_demos(CFG.__class__(horizon=3), 4, _gen(), dtype=torch.float64)
    assert d["image"].dtype == torch.float64 and d["proprio"].dtype == torch.float64
    with pytest.raises(ValueError, match="dtype"):
        vla.collect_demos(CFG, 4, _gen(), dtype=torch.float16)


def test_rollout_float64_policy():
    pol = vla.TinyVLA(CFG).double()
    r = vla.rollout(pol, CFG.__class__(horizon=4), "SCALE", episodes=8, seed=0)
    assert r.steps == 4 and r.u.dtype == torch.float64


def test_rollout_counts_and_gamma():
    pol = vla.TinyVLA(CFG)
    r = vla.rollout(pol, CFG.__class__(horizon=6), "SCALE", episodes=8, seed=0)
    assert r.encoder_calls == r.steps and r.decoder_calls == 2 * r.steps
    assert bool((r.gamma[:2] == 1).all())
    b = vla.rollout(pol, CFG.__class__(horizon=4), "best-of-N", episodes=8, seed=0, n_best=3)
    assert b.encoder_calls == 3 * b.steps


def test_policy_dtype_draws_weights_in_it():
    torch.manual_seed(0)
    p64 = vla.TinyVLA(CFG, d=8, depth=1, dtype=torch.float64)
    assert all(p.dtype == torch.float64 for p in p64.parameters())
    assert p64.freq.dtype == torch.float64
    assert torch.get_default_dtype() == torch.float32, "the default dtype is restored"
    torch.manual_seed(0)
    p32 = vla.TinyVLA(CFG, d=8, depth=1)
    assert all(p.dtype == torch.float32 for p in p32.parameters())
    # float64 draws, not float32 draws converted: the positional table is not float32-exact
    assert bool((p64.pos != p64.pos.float().double()).any())
    with pytest.raises(ValueError, match="dtype"):
        vla.TinyVLA(CFG, dtype=torch.float16)


def test_decoding_table():
    assert vla.METHODS == tuple(vla.DECODING)
    assert vla.DECODING["SCALE"].adaptive and vla.DECODING["SCALE"].look
    assert not vla.DECODING["SCALE (action only)"].look
    assert not vla.DECODING["SCALE (looking only)"].adaptive
    assert vla.DECODING["top-k"].top_k == vla.TOP_K
    assert vla.DECODING["top-p"].top_p == vla.TOP_P
    assert vla.DECODING["best-of-N"].best_of
    u = torch.tensor([-3.0, 0.0, 3.0], dtype=torch.float64)
    assert bool((vla.DECODING["greedy"].tau(u, 1.0) == 0).all())
    assert bool((vla.DECODING["T=1"].tau(u, 1.0) == 1).all())
    assert torch.allclose(vla.DECODING["SCALE"].tau(u, 2.0), 2 * torch.sigmoid(u))


def test_rollout_streams_share_initial_states_across_methods():
    pol = vla.TinyVLA(CFG, d=8, depth=1, dtype=torch.float64)
    cfg = CFG.__class__(horizon=3)
    a = vla.rollout(pol, cfg, "greedy", episodes=6, seed=5)
    b = vla.rollout(pol, cfg, "T=1", episodes=6, seed=5)
    c = vla.rollout(pol, cfg, "greedy", episodes=6, seed=6)
    assert torch.equal(a.pos[0], b.pos[0]) and not torch.equal(a.pos[0], c.pos[0])
    again = vla.rollout(pol, cfg, "greedy", episodes=6, seed=5)
    assert torch.equal(a.pos, again.pos) and torch.equal(a.u, again.u)


def test_vla_reexports_its_modules():
    from icml26.agents import decoding, forkreach, tinyvla, uncertainty

    modules = [decoding, forkreach, tinyvla, uncertainty]
    names = [n for m in modules for n in m.__all__]
    assert sorted(names) == sorted(vla.__all__), "vla re-exports exactly the modules' names"
    for m in modules:
        for n in m.__all__:
            assert getattr(vla, n) is getattr(m, n)


def test_short_training_lowers_loss():
    g = _gen(6)
    demos = vla.collect_demos(CFG, 8, g, explore=0.2)
    pol = vla.TinyVLA(CFG, d=8, depth=1)
    losses = vla.train_bc(pol, demos, steps=12, batch=32, lr=1e-2, gen=g)
    assert np.mean(losses[-3:]) < np.mean(losses[:3])


def test_gym_env_checker():
    from gymnasium.utils.env_checker import check_env

    env = vla.make_gym_env(CFG, seed=1)
    check_env(env, skip_render_check=True)


# --- validation ---------------------------------------------------------------------------
def test_validation_uncertainty():
    with pytest.raises(ValueError, match="logits"):
        vla.self_uncertainty([1.0, 2.0])
    with pytest.raises(ValueError, match="logits"):
        vla.self_uncertainty(torch.ones(3, 1))
    with pytest.raises(ValueError, match="eps"):
        vla.self_uncertainty(torch.ones(3, 4), eps=0.5)
    with pytest.raises(ValueError, match="k"):
        vla.self_uncertainty(torch.ones(3, 4), k=9)
    with pytest.raises(ValueError, match="p1"):
        vla.uncertainty_closed_form(torch.tensor([1.5]), k=4)
    with pytest.raises(ValueError, match="k"):
        vla.uncertainty_closed_form(torch.tensor([0.5]), k=1)
    with pytest.raises(ValueError, match="eps"):
        vla.uncertainty_closed_form(torch.tensor([0.5]), k=4, eps=0.0)


def test_validation_temperatures():
    with pytest.raises(ValueError, match="t0"):
        vla.action_temperature(torch.zeros(2), t0=0.0)
    with pytest.raises(ValueError, match="u"):
        vla.action_temperature(torch.zeros(2, dtype=torch.long))
    with pytest.raises(ValueError, match="kappa"):
        vla.attention_temperature(torch.zeros(2), kappa=0.5)
    with pytest.raises(ValueError, match="s"):
        vla.attention_temperature(torch.zeros(2), s=-1.0)
    with pytest.raises(ValueError, match="delta_u"):
        vla.attention_temperature(np.zeros(2))


def test_validation_history_and_sampling():
    with pytest.raises(ValueError, match="episodes"):
        vla.History(0, 2)
    with pytest.raises(ValueError, match="alpha"):
        vla.History(2, 2, alpha=1.5)
    h = vla.History(2, 2)
    with pytest.raises(ValueError, match="u"):
        h.update(torch.zeros(3, 2))
    with pytest.raises(ValueError, match="tau"):
        vla.sample_tokens(torch.zeros(2, 3), -1.0)
    with pytest.raises(ValueError, match="top_k"):
        vla.sample_tokens(torch.zeros(2, 3), 1.0, top_k=5)
    with pytest.raises(ValueError, match="top_p"):
        vla.sample_tokens(torch.zeros(2, 3), 1.0, top_p=0.0)
    with pytest.raises(ValueError, match="logits"):
        vla.sample_tokens(torch.zeros(3), 1.0)


def test_validation_env_and_policy():
    with pytest.raises(ValueError, match="bins"):
        vla.ForkReach(bins=32)
    with pytest.raises(ValueError, match="pause"):
        vla.ForkReach(pause=1.5)
    with pytest.raises(ValueError, match="episodes"):
        vla.reset(CFG, 0, _gen())
    st_ = vla.reset(CFG, 2, _gen())
    with pytest.raises(ValueError, match="action"):
        vla.step(CFG, st_, torch.zeros(3, 2))
    with pytest.raises(ValueError, match="state"):
        vla.fork_mask(CFG, {})
    with pytest.raises(ValueError, match="tokens"):
        vla.detokenize(CFG, torch.tensor([40]))
    with pytest.raises(ValueError, match="heads"):
        vla.TinyVLA(CFG, d=31, heads=2)
    with pytest.raises(ValueError, match="patch"):
        vla.TinyVLA(CFG, patch=5)
    pol = vla.TinyVLA(CFG)
    with pytest.raises(ValueError, match="method"):
        vla.rollout(pol, CFG, "beam", episodes=2, seed=0)
    with pytest.raises(ValueError, match="seed"):
        vla.rollout(pol, CFG, "greedy", episodes=2, seed=-1)
    with pytest.raises(ValueError, match="steps"):
        vla.train_bc(pol, {"tokens": torch.zeros(2, 2)}, steps=0)
    with pytest.raises(ValueError, match="gamma"):
        vla.attention_entropy(pol, torch.zeros(1, 3, 16, 16), 0.0)
    with pytest.raises(ValueError, match="demos"):
        vla.train_bc(pol, {"tokens": torch.zeros(2, 2)}, steps=1)
    bad = {
        "image": torch.full((2, 3, 16, 16), float("nan")),
        "instruction": torch.zeros(2, dtype=torch.long),
        "proprio": torch.zeros(2, 2),
        "tokens": torch.zeros(2, 2, dtype=torch.long),
    }
    with pytest.raises(ValueError, match="image"):
        vla.train_bc(pol, bad, steps=1)
    with pytest.raises(ValueError, match="image"):
        pol.vision(torch.zeros(3, 16, 16))


# --- the notebook's statistics against sklearn and statsmodels --------------------------------
def test_auroc_as_mann_whitney_matches_sklearn():
    from sklearn.metrics import roc_auc_score

    rng = np.random.default_rng(0)
    pos, neg = rng.normal(1, 1, 300).round(1), rng.normal(0, 1, 700).round(1)  # with ties
    mw = sstats.mannwhitneyu(pos, neg).statistic / (300 * 700)
    labels = np.r_[np.ones(300), np.zeros(700)]
    assert abs(mw - roc_auc_score(labels, np.r_[pos, neg])) < 1e-12


def test_wilson_scipy_matches_statsmodels():
    from statsmodels.stats.proportion import proportion_confint

    for k, n in [(0, 10), (231, 512), (512, 512), (57, 256)]:
        ci = sstats.binomtest(k, n).proportion_ci(0.95, "wilson")
        lo, hi = proportion_confint(k, n, alpha=0.05, method="wilson")
        assert abs(ci.low - lo) < 1e-9 and abs(ci.high - hi) < 1e-9
