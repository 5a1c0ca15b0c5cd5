"""The imagined-hole FrozenLake world of chapter 13: maps, moves, distances, and the Thinker,
Observer and heuristic tables of one batch of maps (:prf:ref:`v-abs-def-world`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from icml26 import checks

__all__ = [
    "DELTAS",
    "REVERSE",
    "World",
    "action_values",
    "goal_distance",
    "grid_moves",
    "make_world",
    "manhattan_progress",
    "random_maps",
]


#: gymnasium's FrozenLake actions: 0 LEFT, 1 DOWN, 2 RIGHT, 3 UP, as (row, column) steps.
DELTAS = ((0, -1), (1, 0), (0, 1), (-1, 0))
#: the move that undoes each action.
REVERSE = (2, 3, 0, 1)


def random_maps(n_maps: int, size: int, p_frozen: float, seed: int) -> np.ndarray:
    """``(n_maps, size, size)`` boolean hole masks from gymnasium's ``generate_random_map``.

    Map ``i`` is ``generate_random_map(size, p_frozen, seed=seed + i)``; gymnasium guarantees a
    hole-free path from the start (top-left) to the goal (bottom-right).
    """
    from gymnasium.envs.toy_text.frozen_lake import generate_random_map

    n_maps = checks.integer("n_maps", n_maps, low=1)
    size = checks.integer("size", size, low=2, high=8)
    p_frozen = checks.real("p_frozen", p_frozen, low=0.0, high=1.0, strict=True)
    seed = checks.integer("seed", seed, low=0)
    maps = [generate_random_map(size=size, p=p_frozen, seed=seed + i) for i in range(n_maps)]
    return np.array([[[c == "H" for c in row] for row in m] for m in maps], dtype=bool)


def grid_moves(size: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Deterministic FrozenLake transitions: ``next_state`` and ``wall``, both ``(S, 4)``.

    States are ``row * size + col``. A move off the grid leaves the agent in place (as in
    gymnasium) and is flagged in ``wall``.
    """
    size = checks.integer("size", size, low=2, high=8)
    s = torch.arange(size * size)
    r, c = s // size, s % size
    nxt, wall = [], []
    for dr, dc in DELTAS:
        r2, c2 = r + dr, c + dc
        off = (r2 < 0) | (r2 >= size) | (c2 < 0) | (c2 >= size)
        nxt.append(torch.where(off, s, r2.clamp(0, size - 1) * size + c2.clamp(0, size - 1)))
        wall.append(off)
    return torch.stack(nxt, 1), torch.stack(wall, 1)


def _holes(name: str, hole: object) -> torch.Tensor:
    if isinstance(hole, np.ndarray):
        hole = torch.from_numpy(hole)
    hole = checks.tensor(name, hole, ndim=3, dtype=torch.bool)
    if hole.shape[1] != hole.shape[2] or not 2 <= hole.shape[1] <= 8 or hole.shape[0] < 1:
        raise ValueError(
            f"{name} must have shape (B, n, n) with 2 <= n <= 8, got {tuple(hole.shape)}"
        )
    if hole[:, 0, 0].any() or hole[:, -1, -1].any():
        raise ValueError(f"{name} must keep the start and the goal free of holes")
    return hole


def goal_distance(hole: object) -> torch.Tensor:
    """BFS distance (moves) from every safe cell to the goal avoiding holes; ``inf`` elsewhere.

    ``hole`` is a ``(B, n, n)`` boolean tensor (or array); returns ``(B, n*n)`` float64.
    Vectorised Bellman relaxation, ``n*n`` sweeps at most.
    """
    hole = _holes("hole", hole)
    B, n, _ = hole.shape
    nxt, wall = grid_moves(n)
    nxt, wall = nxt.to(hole.device), wall.to(hole.device)
    safe = ~hole.reshape(B, n * n)
    dist = torch.full((B, n * n), float("inf"), dtype=torch.float64, device=hole.device)
    dist[:, -1] = 0.0
    for _ in range(n * n):
        nb = torch.where(wall, float("inf"), dist[:, nxt])  # (B, S, 4)
        new = torch.where(safe, torch.minimum(dist, nb.amin(-1) + 1.0), float("inf"))
        new[:, -1] = 0.0
        if torch.equal(new, dist):
            break
        dist = new
    return dist


def action_values(hole: object) -> torch.Tensor:
    """True action values ``q(v, a)``, ``(B, S, 4)``: 0 into a hole, 1 if the BFS distance to the
    goal decreases, 0.5 otherwise (moves into a wall: 0.5)."""
    hole = _holes("hole", hole)
    B, n, _ = hole.shape
    nxt, _ = grid_moves(n)
    nxt = nxt.to(hole.device)
    dist = goal_distance(hole)
    into_hole = hole.reshape(B, n * n)[:, nxt]
    closer = dist[:, nxt] < dist[:, :, None]
    q = torch.full(into_hole.shape, 0.5, dtype=torch.float64, device=hole.device)
    q = torch.where(closer, 1.0, q)
    return torch.where(into_hole, 0.0, q)


def manhattan_progress(size: int) -> torch.Tensor:
    """The heuristic ``F_heur(v, a)``, ``(S, 4)``: 1 if the move shortens the Manhattan distance to
    the goal, else 0."""
    size = checks.integer("size", size, low=2, high=8)
    nxt, _ = grid_moves(size)
    s = torch.arange(size * size)
    md = (size - 1 - s // size) + (size - 1 - s % size)
    return (md[nxt] < md[:, None]).double()


@dataclass(frozen=True)
class World:
    """All tables of one batch of maps (:func:`make_world`); ``S = n*n`` states, 4 actions.

    ``prior``, ``observer``, ``heuristic``: ``F_pri``, ``F_obs``, ``F_heur`` in ``[0, 1]``,
    ``(B, S, 4)``. ``hole`` and ``hidden`` (holes the Thinker does not imagine) are ``(B, S)``;
    ``near_hidden[b, s]``: a hidden hole is one move from ``s``; ``sharp[b, s]``: the Thinker's
    prior at ``s`` is sharp (``κ_sharp``). ``q`` true and ``q_imagined`` action values.
    """

    size: int
    hole: torch.Tensor
    hidden: torch.Tensor
    cracked: torch.Tensor
    near_hidden: torch.Tensor
    sharp: torch.Tensor
    q: torch.Tensor
    q_imagined: torch.Tensor
    prior_logit: torch.Tensor
    prior: torch.Tensor
    observer: torch.Tensor
    heuristic: torch.Tensor
    next_state: torch.Tensor
    wall: torch.Tensor

    @property
    def n_maps(self) -> int:
        return int(self.hole.shape[0])

    def with_prior(self, prior: torch.Tensor) -> World:
        """The same world with another Thinker (e.g. after the SFT analog)."""
        checks.tensor("prior", prior, ndim=3, floating=True)
        checks.shape("prior", prior, tuple(self.prior.shape))
        checks.finite("prior", prior)
        if (prior < 0).any() or (prior > 1).any():
            raise ValueError("prior must lie in [0, 1]")
        logit = torch.logit(prior.clamp(1e-12, 1 - 1e-12))
        return World(**{**self.__dict__, "prior": prior, "prior_logit": logit})

    def with_observer(self, observer: torch.Tensor) -> World:
        """The same world with another Observer (e.g. one that carries no information)."""
        checks.tensor("observer", observer, ndim=3, floating=True)
        checks.shape("observer", observer, tuple(self.observer.shape))
        checks.finite("observer", observer)
        if (observer < 0).any() or (observer > 1).any():
            raise ValueError("observer must lie in [0, 1]")
        return World(**{**self.__dict__, "observer": observer})


def _check_world_args(p: dict) -> None:
    """Validate the settings of :func:`make_world` (``p`` maps names to values)."""
    for name in ("hide", "crack"):
        checks.real(name, p[name], low=0.0, high=1.0)
    for name in ("kappa_sharp", "kappa_flat", "prior_noise", "observer_scale", "observer_noise"):
        checks.real(name, p[name], low=0.0)
    checks.real("observer_hole_logit", p["observer_hole_logit"])
    if not isinstance(p["informative"], bool):
        raise ValueError(f"informative must be a bool, got {p['informative']!r}")
    if p["generator"] is not None and not isinstance(p["generator"], torch.Generator):
        raise ValueError("generator must be a torch.Generator")


def _thinker(
    hole: torch.Tensor, draw, normal, p: dict
) -> tuple[dict[str, torch.Tensor], torch.Tensor]:
    """The Thinker's tables: hidden holes, node types, imagined values and the prior logit.

    Returns the tables and the true action values ``q`` (the Observer needs them too).
    """
    B, n, _ = hole.shape
    S = n * n
    nxt, wall = grid_moves(n)
    flat_hole = hole.reshape(B, S)
    hidden = flat_hole & (draw(B, S) < p["hide"])
    q, q_im = action_values(hole), action_values((flat_hole & ~hidden).reshape(B, n, n))
    near = (hidden[:, nxt] & ~wall).any(-1)
    if p["informative"]:
        flat_state = near
    else:  # flat states at random, with the frequency of the informative world
        freq = near[~flat_hole].double().mean().item() if (~flat_hole).any() else 0.0
        flat_state = draw(B, S) < freq
    kappa = torch.where(flat_state, p["kappa_flat"], p["kappa_sharp"])
    logit = kappa[:, :, None] * (q_im - 0.5) + p["prior_noise"] * normal(B, S, 4)
    tables = {
        "hole": flat_hole,
        "hidden": hidden,
        "near_hidden": near & ~flat_hole,
        "sharp": ~flat_state,
        "q": q,
        "q_imagined": q_im,
        "prior_logit": logit,
        "prior": torch.sigmoid(logit),
    }
    return tables, q


def _observer(
    flat_hole: torch.Tensor, q: torch.Tensor, n: int, draw, normal, p: dict
) -> dict[str, torch.Tensor]:
    """The Observer's tables: cracked (false-hole) cells and the posterior Yes-probability."""
    B, S = flat_hole.shape
    nxt, _ = grid_moves(n)
    edge = torch.zeros(S, dtype=torch.bool)
    edge[0] = edge[-1] = True
    cracked = ~flat_hole & ~edge & (draw(B, S) < p["crack"])
    looks_hole = (flat_hole | cracked)[:, nxt]
    logit = p["observer_scale"] * (q - 0.5) + p["observer_noise"] * normal(B, S, 4)
    logit = torch.where(looks_hole, p["observer_hole_logit"], logit)
    return {"cracked": cracked, "observer": torch.sigmoid(logit)}


def make_world(
    hole: object,
    *,
    hide: float = 0.5,
    kappa_sharp: float = 6.0,
    kappa_flat: float = 1.0,
    prior_noise: float = 0.5,
    observer_hole_logit: float = -4.0,
    observer_scale: float = 4.0,
    observer_noise: float = 1.0,
    crack: float = 0.0,
    informative: bool = True,
    generator: torch.Generator | None = None,
) -> World:
    """Simulated Thinker, Observer and heuristic for a batch of maps (:prf:ref:`v-abs-def-world`).

    Thinker: each hole is invisible with probability ``hide``; on the imagined map the prior
    logit is ``κ(v) (q̃(v, a) − ½) + N(0, prior_noise²)`` with ``κ = kappa_flat`` where a
    hidden hole is one move away and ``kappa_sharp`` elsewhere (``informative=False``: the flat
    states are drawn at random with the same frequency, independent of hidden holes).
    Observer: a hole, or a *cracked* safe cell (probability ``crack``, a perception error),
    has logit ``observer_hole_logit``; any other cell ``observer_scale (q − ½) + N(0,
    observer_noise²)``. Noise is drawn once per ``(map, state, action)``, so every method
    sees the same Thinker and Observer. Draws use ``generator`` on the CPU, in a fixed order
    (hidden holes, flat states when uninformative, prior noise, cracks, observer noise), so
    two worlds built from one seed share every draw their settings do not change.
    """
    hole = _holes("hole", hole)
    p = {
        "hide": hide,
        "kappa_sharp": kappa_sharp,
        "kappa_flat": kappa_flat,
        "prior_noise": prior_noise,
        "observer_hole_logit": observer_hole_logit,
        "observer_scale": observer_scale,
        "observer_noise": observer_noise,
        "crack": crack,
        "informative": informative,
        "generator": generator,
    }
    _check_world_args(p)
    dev, hole = hole.device, hole.cpu()
    n = hole.shape[1]

    def draw(*shape: int) -> torch.Tensor:
        return torch.rand(*shape, generator=generator, dtype=torch.float64)

    def normal(*shape: int) -> torch.Tensor:
        return torch.randn(*shape, generator=generator, dtype=torch.float64)

    tables, q = _thinker(hole, draw, normal, p)
    tables |= _observer(tables["hole"], q, n, draw, normal, p)
    nxt, wall = grid_moves(n)
    heur = manhattan_progress(n).expand(hole.shape[0], n * n, 4).contiguous()
    tables |= {"heuristic": heur, "next_state": nxt, "wall": wall}
    return World(size=n, **{k: v.to(dev) for k, v in tables.items()})
