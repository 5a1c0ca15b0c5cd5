"""The simulated LLM planner, its repair rounds, and the closed forms they are checked against.

Chapter 12 (agent-jit): a draft is the gold plan plus ordering and dropped-navigation errors;
repair fixes each reported error with a fixed probability (:prf:ref:`agent-jit-prop-passk`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from icml26 import checks
from icml26.agents.jit.plans import Call, Loop, Plan, _plan
from icml26.agents.jit.tools import Tool, _manifest

__all__ = ["Draft", "amdahl_bound", "pass_at_k", "repair", "sample_draft", "valid_probability"]


@dataclass(frozen=True)
class Draft:
    """A sampled plan: the gold plan plus its errors, each ``(kind, block, index)``.

    ``kind`` is ``"swap"`` (statements ``index`` and ``index+1`` of the block emitted in the
    wrong order) or ``"drop"`` (statement ``index`` left out); ``block`` is the path of loop
    indices from the top level (``()`` for the top level).
    """

    gold: Plan
    errors: frozenset

    def plan(self) -> tuple:
        """The plan the planner emitted: drops first, then swaps from right to left per block."""
        return _apply(self.gold, (), self.errors)


def _apply(block: Plan, path: tuple, errors: frozenset) -> Plan:
    items = [
        Loop(n.var, n.source, _apply(n.body, (*path, i), errors), n.line)
        if isinstance(n, Loop)
        else n
        for i, n in enumerate(block)
    ]
    keep = [i for i in range(len(items)) if ("drop", path, i) not in errors]
    seq = [items[i] for i in keep]
    for i in sorted((e[2] for e in errors if e[0] == "swap" and e[1] == path), reverse=True):
        if i + 1 < len(seq):
            seq[i], seq[i + 1] = seq[i + 1], seq[i]
    return tuple(seq)


def _blocks(block: Plan, path: tuple = ()) -> list[tuple[tuple, Plan]]:
    out = [(path, block)]
    for i, n in enumerate(block):
        if isinstance(n, Loop):
            out += _blocks(n.body, (*path, i))
    return out


def sample_draft(
    gold: Plan,
    manifest: dict[str, Tool],
    rng: np.random.Generator,
    eps_order: float,
    eps_drop: float = 0.0,
) -> Draft:
    """One plan from the simulated LLM planner (:prf:ref:`agent-jit-prop-passk`, chapter 12).

    Each adjacent pair of a block is swapped with probability ``eps_order`` (an ordering
    error); each navigation call (one that changes the page) is dropped with ``eps_drop``.
    """
    _plan(gold)
    _manifest(manifest)
    eps_order = checks.real("eps_order", eps_order, low=0.0, high=1.0)
    eps_drop = checks.real("eps_drop", eps_drop, low=0.0, high=1.0)
    if not isinstance(rng, np.random.Generator):
        raise ValueError("rng must be a numpy Generator")
    errors = set()
    for path, block in _blocks(gold):
        for i in np.flatnonzero(rng.random(max(len(block) - 1, 0)) < eps_order):
            errors.add(("swap", path, int(i)))
        if eps_drop > 0:
            nav = [i for i, n in enumerate(block) if isinstance(n, Call) and _is_nav(n, manifest)]
            for i in np.array(nav, dtype=int)[rng.random(len(nav)) < eps_drop]:
                errors.add(("drop", path, int(i)))
    return Draft(gold, frozenset(errors))


def _is_nav(c: Call, manifest: dict[str, Tool]) -> bool:
    t = manifest.get(c.name)
    return t is not None and any(f.startswith("page=") for f in t.add)


def repair(draft: Draft, rng: np.random.Generator, fix_prob: float = 0.7) -> Draft:
    """One repair round after the checker reported the violations: each error is fixed with
    probability ``fix_prob``, independently (:prf:ref:`agent-jit-prop-passk`, chapter 12)."""
    if not isinstance(draft, Draft):
        raise ValueError("draft must be a Draft")
    fix_prob = checks.real("fix_prob", fix_prob, low=0.0, high=1.0)
    if not isinstance(rng, np.random.Generator):
        raise ValueError("rng must be a numpy Generator")
    errs = sorted(draft.errors)
    keep = rng.random(len(errs)) >= fix_prob
    return Draft(draft.gold, frozenset(e for e, k in zip(errs, keep, strict=True) if k))


def valid_probability(
    eps_order: float, length: int, fix_prob: float = 0.0, rounds: int = 0
) -> float:
    """``(1 − ε_o (1 − r)^R)^(L − 1)``: a chain plan of ``length`` calls is valid after
    ``rounds`` repair rounds (:prf:ref:`agent-jit-prop-passk`, chapter 12)."""
    eps_order = checks.real("eps_order", eps_order, low=0.0, high=1.0)
    length = checks.integer("length", length, low=1)
    fix_prob = checks.real("fix_prob", fix_prob, low=0.0, high=1.0)
    rounds = checks.integer("rounds", rounds, low=0)
    return float((1.0 - eps_order * (1.0 - fix_prob) ** rounds) ** (length - 1))


def pass_at_k(p: float | np.ndarray, k: int) -> float | np.ndarray:
    """``1 − (1 − p)^k``: at least one of ``k`` i.i.d. candidates is valid (elementwise in
    ``p``, of any shape)."""
    a = checks.as_float64("p", p)
    checks.finite("p", a)
    if (a < 0).any() or (a > 1).any():
        raise ValueError("p must lie in [0, 1]")
    k = checks.integer("k", k, low=1)
    out = 1.0 - (1.0 - a) ** k
    return float(out) if out.ndim == 0 else out


def amdahl_bound(share: float) -> float:
    """``1 / (1 − s)``: the speed-up from removing a fraction ``s`` of the latency entirely."""
    share = checks.real("share", share, low=0.0, high=1.0)
    if share == 1.0:
        raise ValueError("share must be < 1.0, got 1.0")
    return 1.0 / (1.0 - share)
