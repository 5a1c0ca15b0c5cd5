"""V-ABS search of chapter 13: the entropy-adaptive weight (:prf:ref:`v-abs-def-weight`,
:prf:ref:`v-abs-prop-weight`), batched beam searches (:prf:ref:`v-abs-def-search`), greedy
decoding, the Kendall τ-b of the IAO bias (:prf:ref:`v-abs-def-iao`) and the SFT features.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import torch

from icml26 import checks
from icml26.agents.beam.world import REVERSE, World

__all__ = [
    "BeamResult",
    "adaptive_weight",
    "beam_search",
    "greedy",
    "kendall_tau",
    "prior_entropy",
    "sft_features",
]


def prior_entropy(prior: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Normalised entropy ``H`` of the prior over the candidates (:prf:ref:`v-abs-def-weight`).

    ``prior`` and boolean ``mask`` have shape ``(..., A)``; the Yes-probabilities of the masked
    candidates are normalised to ``p`` and ``H = −Σ p log p / log |A_t| ∈ [0, 1]``. Nodes with one
    candidate or none have ``H = 0``.
    """
    checks.tensor("prior", prior, floating=True)
    checks.tensor("mask", mask, dtype=torch.bool)
    if prior.shape != mask.shape:
        raise ValueError(
            f"mask must have the shape of prior {tuple(prior.shape)}, got {tuple(mask.shape)}"
        )
    if ((prior < 0) & mask).any() or not torch.isfinite(prior[mask]).all():
        raise ValueError("prior must be finite and non-negative on the candidates")
    return _entropy(prior, mask)


def _entropy(prior: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    w = torch.where(mask, prior, 0.0)
    total = w.sum(-1, keepdim=True)
    p = torch.where(total > 0, w / total.clamp_min(1e-300), 0.0)
    count = mask.sum(-1)
    h = -torch.special.xlogy(p, p).sum(-1)
    norm = torch.log(count.clamp_min(2).to(prior.dtype))
    return torch.where(count >= 2, h / norm, torch.zeros_like(h)).clamp(0.0, 1.0)


def adaptive_weight(entropy: object, beta: float = 2.0, mu: float = 0.5) -> torch.Tensor:
    """The prior weight ``w_p = 1 / (1 + exp(β (H − μ)))`` (:prf:ref:`v-abs-def-weight`).

    Elementwise over ``entropy`` of any shape.
    """
    beta = checks.real("beta", beta, low=0.0)
    mu = checks.real("mu", mu)
    h = (
        entropy
        if isinstance(entropy, torch.Tensor)
        else torch.as_tensor(checks.as_float64("entropy", entropy))
    )
    if not h.is_floating_point():
        h = h.double()
    checks.finite("entropy", h)
    return torch.sigmoid(-beta * (h - mu))


@dataclass(frozen=True)
class BeamResult:
    """Outcome of :func:`beam_search` or :func:`greedy` on each map (all ``(B,)``).

    ``success``: the returned path ends at the goal; ``fell``: it ends in a hole;
    ``fell_hidden``: in a hole the Thinker did not imagine. ``prior_calls`` and
    ``observer_calls`` count model calls (one per scored candidate). ``trace`` (when asked) is
    one dict per depth with the expanded nodes: ``state``, ``alive`` ``(B, K)``, ``cand``
    ``(B, K, 4)``, ``H``, ``w_p`` ``(B, K)`` and the selected children's ``parent``, ``action``,
    ``child``, ``keep`` ``(B, K)``; ``best`` holds the returned node's ``(depth, slot)``.
    """

    success: torch.Tensor
    fell: torch.Tensor
    fell_hidden: torch.Tensor
    prior_calls: torch.Tensor
    observer_calls: torch.Tensor
    trace: list[dict[str, torch.Tensor]] | None = None
    best: tuple[torch.Tensor, torch.Tensor] | None = None


def _search_args(world: World, width: int, depth: int) -> tuple[int, int]:
    if not isinstance(world, World):
        raise ValueError(f"world must be a World, got {type(world).__name__}")
    return checks.integer("width", width, low=1, high=64), checks.integer("depth", depth, low=1)


def _search_settings(
    weight: float | None,
    beta: float,
    mu: float,
    w_h: float,
    skip_below: float | None,
    shuffle_entropy: torch.Generator | None,
) -> dict:
    """Validated settings of :func:`beam_search`."""
    if shuffle_entropy is not None and not isinstance(shuffle_entropy, torch.Generator):
        raise ValueError("shuffle_entropy must be a torch.Generator or None")
    return {
        "weight": None if weight is None else checks.real("weight", weight, low=0.0, high=1.0),
        "beta": checks.real("beta", beta, low=0.0),
        "mu": checks.real("mu", mu),
        "w_h": checks.real("w_h", w_h, low=0.0),
        "skip_below": (
            None if skip_below is None else checks.real("skip_below", skip_below, low=0.0, high=1.0)
        ),
        "shuffle": shuffle_entropy,
    }


@dataclass
class _Beam:
    """The beam of every map during :func:`beam_search`: ``(B, K)`` tensors and the best
    finished node so far."""

    state: torch.Tensor
    alive: torch.Tensor
    prev: torch.Tensor
    visited: torch.Tensor  # bit s set: cell s visited on the path
    G: torch.Tensor
    best_mean: torch.Tensor
    best_state: torch.Tensor
    best_t: torch.Tensor
    best_slot: torch.Tensor
    prior_calls: torch.Tensor
    obs_calls: torch.Tensor

    @classmethod
    def start(cls, B: int, K: int, dtype: torch.dtype, dev: torch.device) -> _Beam:
        def full(shape, value, dt):
            return torch.full(shape, value, dtype=dt, device=dev)

        alive = full((B, K), False, torch.bool)
        alive[:, 0] = True
        return cls(
            state=full((B, K), 0, torch.long),
            alive=alive,
            prev=full((B, K), -1, torch.long),
            visited=full((B, K), 1, torch.long),
            G=full((B, K), 0.0, dtype),
            best_mean=full((B,), -float("inf"), dtype),
            best_state=full((B,), 0, torch.long),
            best_t=full((B,), 0, torch.long),
            best_slot=full((B,), 0, torch.long),
            prior_calls=full((B,), 0, torch.long),
            obs_calls=full((B,), 0, torch.long),
        )


def _search_tables(world: World) -> dict[str, Any]:
    """The tables the search indexes, on the world's device: F_pri, F_obs, F_heur rows
    addressed by ``map * S + state``, transitions with walls, holes, row offsets."""
    dev, B, S = world.prior.device, world.n_maps, world.size**2
    nxt, wall = world.next_state.to(dev), world.wall.to(dev)
    return {
        "scores": [x.reshape(B * S, 4) for x in (world.prior, world.observer, world.heuristic)],
        "moves": torch.cat([nxt, wall.long()], 1),  # (S, 8)
        "hole": world.hole.reshape(-1),
        "base": torch.arange(B, device=dev)[:, None] * S,
        "reverse": torch.tensor(REVERSE, device=dev),
        "actions": torch.arange(4, device=dev),
        "one": torch.ones((), dtype=torch.long, device=dev),
        "goal": S - 1,
    }


def _expand(beam: _Beam, tab: dict) -> dict[str, torch.Tensor]:
    """Children of every beam node: candidates, their states and visit bits, the three scores."""
    B, K = beam.state.shape
    moves = tab["moves"].index_select(0, beam.state.reshape(-1)).reshape(B, K, 8)
    child, blocked = moves[..., :4], moves[..., 4:]
    bit = torch.bitwise_left_shift(tab["one"], child)
    cand = beam.alive[:, :, None] & (blocked == 0) & ((beam.visited[:, :, None] & bit) == 0)
    undo = torch.where(beam.prev >= 0, tab["reverse"][beam.prev.clamp_min(0)], -1)
    cand &= tab["actions"] != undo[:, :, None]
    row = (tab["base"] + beam.state).reshape(-1)
    fp, fo, fh = (x.index_select(0, row).reshape(B, K, 4) for x in tab["scores"])
    return {"child": child, "bit": bit, "cand": cand, "fp": fp, "fo": fo, "fh": fh}


def _weights(beam: _Beam, kids: dict, opt: dict) -> tuple[torch.Tensor, torch.Tensor]:
    """Entropy ``H`` and prior weight ``w_p`` of every node; counts the model calls."""
    H = _entropy(kids["fp"], kids["cand"])
    if opt["shuffle"] is not None:  # each node gets the entropy of a random expanded node
        pool = H[beam.alive]
        pick = torch.randint(len(pool), beam.alive.shape, generator=opt["shuffle"])
        H = torch.where(beam.alive, pool[pick.to(H.device)], H)
    if opt["weight"] is None:
        wp = torch.sigmoid(-opt["beta"] * (H - opt["mu"]))
    else:
        wp = torch.full_like(H, opt["weight"])
    observed = kids["cand"]
    if opt["skip_below"] is not None:
        skip = H < opt["skip_below"]
        wp = torch.where(skip, 1.0, wp)
        observed = observed & ~skip[:, :, None]
    beam.obs_calls += observed.sum((1, 2))
    beam.prior_calls += kids["cand"].sum((1, 2))
    return H, wp


def _select(beam: _Beam, kids: dict, wp: torch.Tensor, opt: dict, tab: dict, t: int) -> dict:
    """Score the children, keep the top ``K`` over the beam, record finished nodes, advance."""
    B, K = beam.state.shape
    w = wp[..., None]
    step = (w * kids["fp"] + (1 - w) * kids["fo"] + opt["w_h"] * kids["fh"]) / (1 + opt["w_h"])
    score = torch.where(kids["cand"], beam.G[..., None] + step, -float("inf"))
    order, top = _top(score.reshape(B, 4 * K), K)
    keep = torch.isfinite(top)
    parent, action = order // 4, order % 4
    new_state = torch.gather(kids["child"].reshape(B, 4 * K), 1, order)
    new_bits = torch.gather(kids["bit"].reshape(B, 4 * K), 1, order)
    new_visited = torch.gather(beam.visited, 1, parent) | new_bits
    terminal = keep & (tab["hole"][tab["base"] + new_state] | (new_state == tab["goal"]))
    m, slot = torch.where(terminal, top / t, -float("inf")).max(1)
    better = m > beam.best_mean
    beam.best_mean = torch.where(better, m, beam.best_mean)
    chosen = torch.gather(new_state, 1, slot[:, None])[:, 0]
    beam.best_state = torch.where(better, chosen, beam.best_state)
    beam.best_t = torch.where(better, t, beam.best_t)
    beam.best_slot = torch.where(better, slot, beam.best_slot)
    reached = (terminal & (new_state == tab["goal"])).any(1)
    beam.alive = keep & ~terminal & ~reached[:, None]
    beam.state, beam.prev, beam.visited = new_state, action, new_visited
    beam.G = torch.where(keep, top, 0.0)
    return {"parent": parent, "action": action, "child": new_state, "keep": keep}


def beam_search(
    world: World,
    *,
    width: int = 3,
    depth: int = 14,
    weight: float | None = None,
    beta: float = 2.0,
    mu: float = 0.5,
    w_h: float = 0.2,
    skip_below: float | None = None,
    shuffle_entropy: torch.Generator | None = None,
    trace: bool = False,
) -> BeamResult:
    """Batched beam search over all maps (:prf:ref:`v-abs-def-search`, chapter 13).

    ``weight=None`` is V-ABS (``w_p`` from the prior entropy, :prf:ref:`v-abs-def-weight`); a
    number is a fixed prior weight (``1``: prior only, ``0``: observer only). Each child ``a`` of
    a node scores ``S = (w_p F_pri + (1 − w_p) F_obs + w_h F_heur) / (1 + w_h)`` and its path
    accumulates ``G = G_parent + S``; the top ``width`` children over the whole beam survive
    (ties go to the child expanded first). Candidates exclude wall moves, the reverse of the
    last move and visited cells. A child in a hole or at the goal is finished;
    a map stops when its goal is selected; the returned node is the finished node with the
    best mean step score ``G / t``. ``skip_below``: skip the Observer at nodes with
    ``H < skip_below`` and score them with the prior alone. ``shuffle_entropy`` (a generator):
    the negative control of V-ABS, in which every expanded node gets the entropy of a node
    drawn at random among all nodes expanded at that depth (same weights, no information).

    Each depth is three steps: expand every beam node (candidates and their scores), weigh
    them (entropy, ``w_p``, model calls), select the top ``width`` children over the beam.
    """
    K, D = _search_args(world, width, depth)
    opt = _search_settings(weight, beta, mu, w_h, skip_below, shuffle_entropy)
    tab = _search_tables(world)
    beam = _Beam.start(world.n_maps, K, world.prior.dtype, world.prior.device)
    log: list[dict[str, torch.Tensor]] = []
    for t in range(1, D + 1):
        kids = _expand(beam, tab)
        H, wp = _weights(beam, kids, opt)
        before = {"state": beam.state.clone(), "alive": beam.alive.clone()}
        chosen = _select(beam, kids, wp, opt, tab, t)
        if trace:
            w_alive = torch.where(before["alive"], wp, float("nan"))
            log.append({**before, "cand": kids["cand"], "H": H, "w_p": w_alive, **chosen})
        if not beam.alive.any():
            break
    return _result(world, beam, tab, log if trace else None)


def _result(world: World, beam: _Beam, tab: dict, log: list | None) -> BeamResult:
    """The returned node of every map, as a :class:`BeamResult`."""
    found = torch.isfinite(beam.best_mean)
    at = tab["base"][:, 0] + beam.best_state
    fell = found & tab["hole"][at]
    return BeamResult(
        found & (beam.best_state == tab["goal"]),
        fell,
        fell & world.hidden.reshape(-1)[at],
        beam.prior_calls,
        beam.obs_calls,
        log,
        (beam.best_t, beam.best_slot) if log is not None else None,
    )


def _top(score: torch.Tensor, k: int) -> tuple[torch.Tensor, torch.Tensor]:
    """The ``k`` largest entries of each row, ties broken by the lower index (a stable top-k).

    ``k`` passes of ``argmax`` (which returns the first maximum) — cheaper than a stable sort of
    the row. Once a row runs out of finite entries, the remaining picks are ``-inf``.
    """
    s = score.clone()
    order, top = [], []
    for _ in range(k):
        i = s.argmax(1, keepdim=True)
        order.append(i)
        top.append(torch.gather(s, 1, i))
        s.scatter_(1, i, -float("inf"))
    return torch.cat(order, 1), torch.cat(top, 1)


def greedy(world: World, *, depth: int = 14) -> BeamResult:
    """Direct greedy decoding: follow the Thinker's argmax candidate, no search, no Observer.

    Same candidate filter as :func:`beam_search`; stops at the goal, in a hole, without a
    candidate, or after ``depth`` moves.
    """
    _, D = _search_args(world, 1, depth)
    dev, B, S = world.prior.device, world.n_maps, world.size**2
    nxt, wall = world.next_state.to(dev), world.wall.to(dev)
    rows = torch.arange(B, device=dev)
    state = torch.zeros(B, dtype=torch.long, device=dev)
    visited = torch.zeros(B, S, dtype=torch.bool, device=dev)
    visited[:, 0] = True
    alive = torch.ones(B, dtype=torch.bool, device=dev)
    calls = torch.zeros(B, dtype=torch.long, device=dev)
    for _ in range(D):
        child = nxt[state]
        cand = alive[:, None] & ~wall[state] & ~torch.gather(visited, 1, child)
        calls += cand.sum(1)
        score = torch.where(cand, world.prior[rows, state], -float("inf"))
        a = score.argmax(1)
        moved = cand.any(1)
        state = torch.where(moved, child[rows, a], state)
        visited[rows, state] = True
        stop = ~moved | world.hole[rows, state] | (state == S - 1)
        alive &= ~stop
        if not alive.any():
            break
    fell = world.hole[rows, state]
    return BeamResult(
        state == S - 1, fell, fell & world.hidden[rows, state], calls, torch.zeros_like(calls)
    )


def kendall_tau(x: torch.Tensor, y: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Kendall τ-b between ``x`` and ``y`` over the masked entries of each row, ``(N, A) → (N,)``.

    ``NaN`` where it is undefined (fewer than two entries, or all of ``x`` or of ``y`` tied),
    as ``scipy.stats.kendalltau``. ``x`` and ``y`` must be finite on the masked entries (the
    others are ignored).
    """
    checks.tensor("x", x, ndim=2, floating=True)
    checks.tensor("y", y, ndim=2, floating=True)
    checks.tensor("mask", mask, ndim=2, dtype=torch.bool)
    if x.shape != y.shape or x.shape != mask.shape:
        raise ValueError(
            "x, y and mask must share a shape, got "
            f"{tuple(x.shape)}, {tuple(y.shape)}, {tuple(mask.shape)}"
        )
    for name, v in (("x", x), ("y", y)):
        if not bool(torch.isfinite(v[mask]).all()):
            raise ValueError(f"{name} must be finite on the masked entries")
    i, j = torch.triu_indices(x.shape[1], x.shape[1], 1, device=x.device)
    both = mask[:, i] & mask[:, j]
    dx, dy = torch.sign(x[:, i] - x[:, j]), torch.sign(y[:, i] - y[:, j])
    s = (dx * dy * both).sum(1)
    nx = ((dx != 0) & both).sum(1).to(x.dtype)
    ny = ((dy != 0) & both).sum(1).to(x.dtype)
    den = torch.sqrt(nx * ny)
    return torch.where(den > 0, s / den.clamp_min(1e-300), float("nan"))


def sft_features(world: World) -> torch.Tensor:
    """Verification features of the SFT analog, ``(B, S, 4, 4)``: one row per (map, state, action).

    ``[pre-SFT prior logit, next cell is a hole (as the image shows it), holes around the next
    cell / 4, Manhattan progress]``. The pre-SFT Thinker weighs only the first feature.
    """
    if not isinstance(world, World):
        raise ValueError(f"world must be a World, got {type(world).__name__}")
    nxt, wall = world.next_state, world.wall
    hole = world.hole.to(world.prior.dtype)
    into = hole[:, nxt]
    around = (hole[:, nxt] * ~wall).sum(-1) / 4.0  # (B, S): holes next to each state
    return torch.stack([world.prior_logit, into, around[:, nxt], world.heuristic], dim=-1)
