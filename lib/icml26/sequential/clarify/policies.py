"""Clarification policies of chapter 04 and their batched rollouts: commitment, features, the
linear-softmax clarifier, the oracle greedy-EIG policy.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import torch

from icml26 import checks
from icml26.sequential.clarify.world import (
    RetailEnv,
    Tasks,
    _answer,
    _check_belief,
    _check_env,
    _check_generator,
    _check_tasks,
    _eig,
    _entropy,
    _marginals,
    _rand,
    _update,
    commit,
    initial_belief,
)

__all__ = [
    "Policy",
    "Rollout",
    "evaluate",
    "features",
    "n_features",
    "no_ask_policy",
    "oracle_policy",
    "random_policy",
    "rollout",
    "softmax_policy",
]


def n_features(env: RetailEnv) -> int:
    """Number of clarifier features: per-attribute marginal entropy / log V (K), known
    attributes (K), the largest of those entropies, p_MAP, entropy of the belief / log G,
    steps used / budget, and a bias."""
    _check_env(env)
    return 2 * env.n_attributes + 5


def features(
    env: RetailEnv, belief: torch.Tensor, known: torch.Tensor, step: int, budget: int
) -> torch.Tensor:
    """State features of the linear-softmax clarifier: ``(n, 2K + 5)``."""
    _check_env(env)
    n = _check_belief(env, belief)
    checks.shape("known", known, (n, env.n_attributes))
    budget = checks.integer("budget", budget, low=1)
    step = checks.integer("step", step, low=0, high=budget)
    return _features(env, belief, known, step, budget)


def _features(
    env: RetailEnv, belief: torch.Tensor, known: torch.Tensor, step: int, budget: int
) -> torch.Tensor:
    n = belief.shape[0]
    m = _marginals(env, belief)
    h_attr = _entropy(m) / torch.log(torch.tensor(float(env.n_values)))
    h_goal = _entropy(belief) / torch.log(torch.tensor(float(env.n_goals)))
    p_map = belief.max(dim=1).values
    const = torch.ones(n, dtype=belief.dtype, device=belief.device)
    return torch.cat(
        [
            h_attr,
            known.to(belief.dtype),
            h_attr.max(dim=1, keepdim=True).values,
            p_map[:, None],
            h_goal[:, None],
            (step / budget) * const[:, None],
            const[:, None],
        ],
        dim=1,
    )


@dataclass(frozen=True)
class Policy:
    """A clarifier: ``choose(env, belief, known, step, budget, generator)`` → (actions, log π).

    ``log π`` is ``None`` for policies without parameters.
    """

    name: str
    choose: Callable[..., tuple[torch.Tensor, torch.Tensor | None]]


def softmax_policy(weights: torch.Tensor, *, greedy: bool = False) -> Policy:
    """The linear-softmax clarifier ``π(a | s) ∝ exp(φ(s)ᵀ W[:, a])``; ``greedy`` takes argmax."""
    checks.tensor("weights", weights, ndim=2, floating=True)
    checks.finite("weights", weights)
    if not isinstance(greedy, bool):
        raise ValueError(f"greedy must be a bool, got {greedy!r}")

    def choose(env, belief, known, step, budget, generator):
        if weights.shape != (2 * env.n_attributes + 5, env.n_actions):
            raise ValueError(
                f"weights must have shape ({2 * env.n_attributes + 5}, {env.n_actions}), "
                f"got {tuple(weights.shape)}"
            )
        phi = _features(env, belief, known, step, budget).to(weights.dtype)
        logp = torch.log_softmax(phi @ weights.to(phi.device), dim=1)
        if greedy:
            a = logp.argmax(dim=1)
        else:
            u = _rand(generator, (belief.shape[0], 1), belief).to(logp.dtype)
            a = (logp.detach().exp().cumsum(dim=1) < u).sum(dim=1).clamp(max=env.n_actions - 1)
        return a, logp.gather(1, a[:, None])[:, 0]

    return Policy("softmax (greedy)" if greedy else "softmax", choose)


def oracle_policy(cost: float = 0.0) -> Policy:
    """Greedy EIG: ask the action of largest exact EIG if it exceeds ``cost``, else no-ask."""
    cost = checks.real("cost", cost, low=0.0)

    def choose(env, belief, known, step, budget, generator):
        g = _eig(env, belief)[:, : env.confirm + 1]
        best = g.max(dim=1)
        a = torch.where(best.values > cost, best.indices, env.no_ask)
        return a, None

    return Policy(f"oracle greedy-EIG (c={cost:g})", choose)


def random_policy() -> Policy:
    """A uniformly random question (never no-ask)."""

    def choose(env, belief, known, step, budget, generator):
        u = _rand(generator, (belief.shape[0],), belief)
        a = (u * (env.confirm + 1)).long().clamp(max=env.confirm)
        return a, None

    return Policy("random question", choose)


def no_ask_policy() -> Policy:
    """Never ask (the no-clarification baseline)."""

    def choose(env, belief, known, step, budget, generator):
        return torch.full((belief.shape[0],), env.no_ask, device=belief.device), None

    return Policy("no clarification", choose)


# -------------------------------------------------------------------------------- rollouts
@dataclass(frozen=True)
class Rollout:
    """One dialogue per task: actions, IG rewards, log-probabilities (n, B), final belief."""

    actions: torch.Tensor  # (n, B) long, −1 after the dialogue ended
    rewards: torch.Tensor  # (n, B) IG reward of each question (0 when none was asked)
    logp: torch.Tensor | None  # (n, B) log π(a_t | s_t), 0 where inactive
    active: torch.Tensor  # (n, B) bool: the clarifier chose at step t
    belief: torch.Tensor  # (n, G) final belief
    questions: torch.Tensor  # (n,) number of questions asked


def rollout(
    env: RetailEnv,
    tasks: Tasks,
    policy: Policy,
    *,
    budget: int,
    generator: torch.Generator,
) -> Rollout:
    """Run the clarifier for at most ``budget`` questions on every task (no-ask ends a dialogue)."""
    _check_env(env)
    n = _check_tasks(env, tasks)
    if not isinstance(policy, Policy):
        raise ValueError(f"policy must be a Policy, got {type(policy).__name__}")
    budget = checks.integer("budget", budget, low=0)
    _check_generator(generator)
    belief = initial_belief(env, tasks)
    known = tasks.revealed.clone()
    alive = torch.ones(n, dtype=torch.bool, device=belief.device)
    acts, rews, logps, actives = [], [], [], []
    for t in range(budget):
        a, lp = policy.choose(env, belief, known, t, budget, generator)
        a = torch.where(alive, a, env.no_ask)
        ans = _answer(env, tasks, belief, a, generator)
        new = _update(env, belief, a, ans)
        rows = torch.arange(n, device=belief.device)
        rews.append(torch.log(new[rows, tasks.goal]) - torch.log(belief[rows, tasks.goal]))
        actives.append(alive.clone())
        acts.append(torch.where(alive, a, -1))
        logps.append(None if lp is None else torch.where(alive, lp, 0.0))
        belief = new
        asked = a < env.n_attributes
        known = known | (
            torch.nn.functional.one_hot(a.clamp(max=env.n_attributes - 1), env.n_attributes).bool()
            & asked[:, None]
        )
        alive = alive & (a != env.no_ask)
    z = torch.zeros(n, 0, dtype=belief.dtype, device=belief.device)
    actions = torch.stack(acts, 1) if acts else z.long()
    active = torch.stack(actives, 1) if actives else z.bool()
    rewards = torch.stack(rews, 1) if rews else z
    kept = [lp for lp in logps if lp is not None]
    logp = torch.stack(kept, 1) if budget > 0 and len(kept) == len(logps) else None
    questions = ((actions >= 0) & (actions != env.no_ask)).sum(dim=1)
    return Rollout(actions, rewards, logp, active, belief, questions)


def evaluate(
    env: RetailEnv,
    tasks: Tasks,
    policy: Policy,
    temperatures: Sequence[float],
    *,
    budget: int,
    generator: torch.Generator,
    pollution: float = 0.0,
) -> tuple[torch.Tensor, torch.Tensor]:
    """Success rate of every agent (temperatures) after the policy's dialogues, and questions.

    With ``pollution > 0`` every question independently spoils the agent's decision with that
    probability (it then commits to a uniformly random goal): the "context pollution" of long
    dialogues, built in for chapter 04's budget figure. Returns ``(success (n_agents,),
    questions per task (n,))``.
    """
    pollution = checks.real("pollution", pollution, low=0.0, high=1.0)
    if isinstance(temperatures, str) or not isinstance(temperatures, Sequence):
        raise ValueError(f"temperatures must be a sequence, got {temperatures!r}")
    if len(temperatures) == 0:
        raise ValueError("temperatures must list at least one agent")
    for i, tau in enumerate(temperatures):
        checks.real(f"temperatures[{i}]", tau, low=0.0)
    ro = rollout(env, tasks, policy, budget=budget, generator=generator)
    n = len(tasks)
    keep = (1 - pollution) ** ro.questions.to(torch.float64)
    out = []
    for tau in temperatures:
        choice = commit(ro.belief, tau, generator=generator)
        if pollution > 0:
            u = _rand(generator, (n, 2), ro.belief)
            spoil = u[:, 0] >= keep.to(u.device)
            rnd = (u[:, 1] * env.n_goals).long().clamp(max=env.n_goals - 1)
            choice = torch.where(spoil, rnd, choice)
        out.append((choice == tasks.goal).to(torch.float64).mean())
    return torch.stack(out), ro.questions
