"""Tests of icml26.agents.beam (chapter 13): environment, weights, beam search, bad input."""

from __future__ import annotations

import dataclasses

import networkx as nx
import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats
from scipy.special import expit

from icml26.agents import beam
from icml26.pipeline.notebooks import notebook_functions


@pytest.fixture(scope="module")
def holes() -> torch.Tensor:
    return torch.from_numpy(beam.random_maps(40, 6, 0.8, seed=3))


@pytest.fixture(scope="module")
def world_b(holes: torch.Tensor) -> beam.World:
    return beam.make_world(holes, crack=0.3, generator=torch.Generator().manual_seed(0))


# --- environment -----------------------------------------------------------------------------


def test_random_maps_match_gymnasium() -> None:
    from gymnasium.envs.toy_text.frozen_lake import generate_random_map

    maps = beam.random_maps(3, 5, 0.7, seed=11)
    for i in range(3):
        desc = generate_random_map(size=5, p=0.7, seed=11 + i)
        assert np.array_equal(maps[i], np.array([[c == "H" for c in row] for row in desc]))


def test_grid_moves_match_frozenlake_env(holes: torch.Tensor) -> None:
    from gymnasium.envs.toy_text.frozen_lake import FrozenLakeEnv

    nxt, wall = beam.grid_moves(6)
    desc = ["".join("H" if h else "F" for h in row) for row in holes[0].numpy()]
    desc[0] = "S" + desc[0][1:]
    desc[-1] = desc[-1][:-1] + "G"
    env = FrozenLakeEnv(desc=desc, is_slippery=False)
    for s in range(35):
        if holes[0].reshape(-1)[s]:
            continue
        for a in range(4):
            env.reset(seed=0)
            env.unwrapped.s = s
            s2 = env.step(a)[0]
            assert s2 == nxt[s, a]
            assert bool(wall[s, a]) == (s2 == s)


def test_goal_distance_matches_networkx(holes: torch.Tensor) -> None:
    dist = beam.goal_distance(holes).numpy()
    for b in range(10):
        g = nx.grid_2d_graph(6, 6)
        g.remove_nodes_from([(r, c) for r in range(6) for c in range(6) if holes[b, r, c]])
        lengths = nx.single_source_shortest_path_length(g, (5, 5))
        for r in range(6):
            for c in range(6):
                want = lengths.get((r, c), np.inf)
                assert dist[b, r * 6 + c] == want


def test_action_values_and_heuristic(holes: torch.Tensor) -> None:
    q = beam.action_values(holes)
    nxt, _ = beam.grid_moves(6)
    assert set(np.unique(q.numpy())) <= {0.0, 0.5, 1.0}
    into = holes.reshape(40, -1)[:, nxt]
    assert (q[into] == 0).all()
    # from every safe, reachable non-goal cell some action shortens the path
    dist = beam.goal_distance(holes)
    reach = torch.isfinite(dist) & (torch.arange(36) < 35)
    assert ((q == 1).any(-1) | ~reach).all()
    h = beam.manhattan_progress(6)
    assert h[0].tolist() == [0.0, 1.0, 1.0, 0.0]  # down and right approach the goal


def test_world_tables(world_b: beam.World, holes: torch.Tensor) -> None:
    w = world_b
    assert w.prior.shape == w.observer.shape == (40, 36, 4)
    assert ((w.prior > 0) & (w.prior < 1)).all()
    assert (w.hidden <= w.hole).all() and not (w.cracked & w.hole).any()
    assert not w.cracked[:, [0, 35]].any()
    # hole or cracked next cell: the observer's fixed hole score
    looks = (w.hole | w.cracked)[:, w.next_state]
    assert torch.allclose(w.observer[looks], torch.sigmoid(torch.tensor(-4.0, dtype=torch.float64)))
    # flat prior exactly where a hidden hole is one move away (informative world)
    assert torch.equal(~w.sharp & ~w.hole, w.near_hidden)
    same = beam.make_world(holes, crack=0.3, generator=torch.Generator().manual_seed(0))
    assert torch.equal(same.prior, w.prior) and torch.equal(same.observer, w.observer)


def test_uninformative_world_decouples_sharpness(holes: torch.Tensor) -> None:
    w = beam.make_world(holes, informative=False, generator=torch.Generator().manual_seed(1))
    assert not torch.equal(~w.sharp & ~w.hole, w.near_hidden)


# --- entropy, weight, Kendall ------------------------------------------------------------------


@settings(max_examples=40, deadline=None)
@given(st.lists(st.floats(0.01, 0.99), min_size=4, max_size=4), st.integers(2, 4))
def test_entropy_matches_scipy(p: list[float], m: int) -> None:
    prior = torch.tensor(p, dtype=torch.float64)
    mask = torch.arange(4) < m
    h = float(beam.prior_entropy(prior, mask))
    want = stats.entropy(np.array(p[:m])) / np.log(m)
    assert abs(h - want) < 1e-12 and 0.0 <= h <= 1.0


def test_entropy_single_candidate_and_uniform() -> None:
    prior = torch.tensor([[0.3, 0.9, 0.2, 0.4], [0.5, 0.5, 0.5, 0.5]], dtype=torch.float64)
    mask = torch.tensor([[False, True, False, False], [True, True, True, False]])
    h = beam.prior_entropy(prior, mask)
    assert h[0] == 0.0 and abs(float(h[1]) - 1.0) < 1e-12


@settings(max_examples=40, deadline=None)
@given(st.floats(0.0, 1.0), st.floats(0.1, 10.0), st.floats(0.0, 1.0))
def test_weight_properties(h: float, beta: float, mu: float) -> None:
    w = float(beam.adaptive_weight(h, beta, mu))
    assert abs(w - expit(-beta * (h - mu))) < 1e-12
    assert abs(float(beam.adaptive_weight(mu, beta, mu)) - 0.5) < 1e-12
    x = abs(h - mu)
    pair = beam.adaptive_weight(torch.tensor([mu + x, mu - x], dtype=torch.float64), beta, mu)
    assert abs(float(pair.sum()) - 1.0) < 1e-12
    assert float(beam.adaptive_weight(min(h + 0.01, 1.0), beta, mu)) <= w


def test_weight_values() -> None:
    assert round(float(beam.adaptive_weight(0.0)), 3) == 0.731
    assert round(float(beam.adaptive_weight(1.0)), 3) == 0.269


def test_kendall_matches_scipy() -> None:
    g = torch.Generator().manual_seed(4)
    x = torch.rand(200, 4, generator=g, dtype=torch.float64)
    y = torch.rand(200, 4, generator=g, dtype=torch.float64)
    y[::2, 0] = y[::2, 1]
    mask = torch.rand(200, 4, generator=g) < 0.75
    got = beam.kendall_tau(x, y, mask).numpy()
    for i in range(200):
        m = mask[i].numpy()
        want = (
            stats.kendalltau(x[i].numpy()[m], y[i].numpy()[m]).statistic if m.sum() > 1 else np.nan
        )
        assert (np.isnan(got[i]) and np.isnan(want)) or abs(got[i] - want) < 1e-12


# --- search ------------------------------------------------------------------------------------


def test_kernel_matches_notebook_reference(world_b: beam.World) -> None:
    ref = notebook_functions("13-v-abs", "vabs_reference")["vabs_reference"]
    w = world_b
    for kw in ({"weight": None}, {"weight": 0.3}, {"weight": 1.0}, {"skip_below": 0.8}):
        res = beam.beam_search(w, **kw)
        for b in range(w.n_maps):
            tables = (
                w.prior[b].numpy(),
                w.observer[b].numpy(),
                w.heuristic[b].numpy(),
                w.hole[b].numpy(),
                w.next_state.numpy(),
                w.wall.numpy(),
            )
            ok, fell, calls = ref(*tables, **kw)
            assert (bool(res.success[b]), bool(res.fell[b]), int(res.observer_calls[b])) == (
                ok,
                fell,
                calls,
            )


def test_perfect_observer_and_prior_solve_every_map(holes: torch.Tensor) -> None:
    w = beam.make_world(holes, hide=0.0, generator=torch.Generator().manual_seed(2))
    q = w.q
    exact = dataclasses.replace(w, prior=q.clone(), observer=q.clone())
    assert beam.beam_search(exact, depth=20).success.all()
    assert beam.greedy(exact, depth=20).success.all()


def test_observer_calls_counts_and_skip(world_b: beam.World) -> None:
    full = beam.beam_search(world_b)
    assert torch.equal(full.prior_calls, full.observer_calls)
    assert (full.prior_calls <= 14 * 3 * 3).all()
    skip = beam.beam_search(world_b, skip_below=1.0)
    assert (skip.observer_calls <= full.prior_calls).all()
    none = beam.beam_search(world_b, skip_below=0.0)
    assert torch.equal(none.success, full.success)


def test_trace_and_shuffle(world_b: beam.World) -> None:
    res = beam.beam_search(world_b, trace=True)
    assert res.trace is not None and res.best is not None
    for step in res.trace:
        w = step["w_p"][step["alive"]]
        assert ((w >= expit(-1) - 1e-12) & (w <= expit(1) + 1e-12)).all()
    sh = beam.beam_search(world_b, shuffle_entropy=torch.Generator().manual_seed(0))
    assert sh.success.shape == (world_b.n_maps,)


def test_sft_features(world_b: beam.World) -> None:
    f = beam.sft_features(world_b)
    assert f.shape == (40, 36, 4, 4)
    assert torch.equal(f[..., 0], world_b.prior_logit)
    assert torch.equal(f[..., 1].bool(), world_b.hole[:, world_b.next_state])
    w2 = world_b.with_prior(torch.sigmoid(f[..., 0]))
    assert torch.allclose(w2.prior, world_b.prior)


# --- bad input ---------------------------------------------------------------------------------


def test_bad_maps_arguments() -> None:
    with pytest.raises(ValueError, match="n_maps"):
        beam.random_maps(0, 6, 0.8, 0)
    with pytest.raises(ValueError, match="size"):
        beam.random_maps(2, 1, 0.8, 0)
    with pytest.raises(ValueError, match="p_frozen"):
        beam.random_maps(2, 6, 1.0, 0)
    with pytest.raises(ValueError, match="seed"):
        beam.random_maps(2, 6, 0.8, -1)
    with pytest.raises(ValueError, match="size"):
        beam.grid_moves(17)
    with pytest.raises(ValueError, match="size"):
        beam.manhattan_progress(1)


def test_bad_holes() -> None:
    with pytest.raises(ValueError, match="hole"):
        beam.goal_distance(torch.zeros(2, 4, 4))  # not boolean
    with pytest.raises(ValueError, match="hole"):
        beam.action_values(torch.zeros(2, 4, 5, dtype=torch.bool))
    bad = torch.zeros(1, 4, 4, dtype=torch.bool)
    bad[0, 0, 0] = True
    with pytest.raises(ValueError, match="start and the goal"):
        beam.make_world(bad)


@pytest.mark.parametrize(
    ("kw", "name"),
    [
        ({"hide": 1.5}, "hide"),
        ({"kappa_sharp": -1.0}, "kappa_sharp"),
        ({"kappa_flat": -1.0}, "kappa_flat"),
        ({"prior_noise": -0.1}, "prior_noise"),
        ({"observer_hole_logit": float("nan")}, "observer_hole_logit"),
        ({"observer_scale": -1.0}, "observer_scale"),
        ({"observer_noise": -1.0}, "observer_noise"),
        ({"crack": 2.0}, "crack"),
        ({"informative": 1}, "informative"),
        ({"generator": 3}, "generator"),
    ],
)
def test_bad_world_arguments(holes: torch.Tensor, kw: dict, name: str) -> None:
    with pytest.raises(ValueError, match=name):
        beam.make_world(holes, **kw)


@pytest.mark.parametrize(
    ("kw", "name"),
    [
        ({"width": 0}, "width"),
        ({"depth": 0}, "depth"),
        ({"weight": 1.5}, "weight"),
        ({"beta": -1.0}, "beta"),
        ({"mu": float("inf")}, "mu"),
        ({"w_h": -0.2}, "w_h"),
        ({"skip_below": 2.0}, "skip_below"),
        ({"shuffle_entropy": 5}, "shuffle_entropy"),
    ],
)
def test_bad_search_arguments(world_b: beam.World, kw: dict, name: str) -> None:
    with pytest.raises(ValueError, match=name):
        beam.beam_search(world_b, **kw)


def test_bad_world_object() -> None:
    with pytest.raises(ValueError, match="world"):
        beam.beam_search("lake")
    with pytest.raises(ValueError, match="world"):
        beam.greedy(None)
    with pytest.raises(ValueError, match="world"):
        beam.sft_features(3)


def test_bad_greedy_depth(world_b: beam.World) -> None:
    with pytest.raises(ValueError, match="depth"):
        beam.greedy(world_b, depth=0)


def test_bad_entropy_weight_kendall() -> None:
    p = torch.rand(3, 4, dtype=torch.float64)
    m = torch.ones(3, 4, dtype=torch.bool)
    with pytest.raises(ValueError, match="prior"):
        beam.prior_entropy(p.numpy(), m)
    with pytest.raises(ValueError, match="mask"):
        beam.prior_entropy(p, m.float())
    with pytest.raises(ValueError, match="mask"):
        beam.prior_entropy(p, m[:, :3])
    with pytest.raises(ValueError, match="prior"):
        beam.prior_entropy(-p, m)
    with pytest.raises(ValueError, match="beta"):
        beam.adaptive_weight(0.5, beta=-1.0)
    with pytest.raises(ValueError, match="mu"):
        beam.adaptive_weight(0.5, mu=float("nan"))
    with pytest.raises(ValueError, match="entropy"):
        beam.adaptive_weight(float("inf"))
    with pytest.raises(ValueError, match="x"):
        beam.kendall_tau(p[0], p, m)
    with pytest.raises(ValueError, match="y"):
        beam.kendall_tau(p, p.long(), m)
    with pytest.raises(ValueError, match="mask"):
        beam.kendall_tau(p, p, m.float())
    with pytest.raises(ValueError, match="share a shape"):
        beam.kendall_tau(p, p[:2], m)


def test_bad_with_prior(world_b: beam.World) -> None:
    with pytest.raises(ValueError, match="prior"):
        world_b.with_prior(world_b.prior[:2])
    with pytest.raises(ValueError, match="prior"):
        world_b.with_prior(world_b.prior + 1.0)


def test_with_observer(world_b: beam.World) -> None:
    flat = torch.full_like(world_b.observer, 0.5)
    w = world_b.with_observer(flat)
    assert torch.equal(w.observer, flat) and torch.equal(w.prior, world_b.prior)
    with pytest.raises(ValueError, match="observer"):
        world_b.with_observer(flat[:1])
    with pytest.raises(ValueError, match="observer"):
        world_b.with_observer(flat + 1.0)
    bad = flat.clone()
    bad[0, 0, 0] = float("nan")
    with pytest.raises(ValueError, match="observer"):
        world_b.with_observer(bad)
    with pytest.raises(ValueError, match="prior"):
        world_b.with_prior(bad)


def test_worlds_from_one_seed_share_their_draws(holes: torch.Tensor) -> None:
    """make_world draws in a fixed order: without hidden holes, the same seed gives the same
    Observer (its draws come after the Thinker's, which do not depend on hide)."""
    a = beam.make_world(holes, hide=0.5, generator=torch.Generator().manual_seed(3))
    b = beam.make_world(holes, hide=0.0, generator=torch.Generator().manual_seed(3))
    assert not b.hidden.any()
    assert torch.equal(a.observer, b.observer)
