"""Training the linear-softmax clarifier with group-normalised policy gradients
(:prf:ref:`clarification-def-grpo`), chapter 04.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch

from icml26 import checks
from icml26.grpo import group_advantages
from icml26.sequential.clarify.policies import rollout, softmax_policy
from icml26.sequential.clarify.world import (
    RetailEnv,
    _check_env,
    _check_generator,
    commit,
    sample_tasks,
)

__all__ = ["train_clarifier"]


def _reward_to_go(r: torch.Tensor) -> torch.Tensor:
    return r.flip(1).cumsum(1).flip(1)


def train_clarifier(
    env: RetailEnv,
    *,
    reward: str,
    budget: int,
    cost: float,
    updates: int,
    tasks_per_update: int,
    group_size: int,
    lr: float,
    revealed: tuple[int, int],
    generator: torch.Generator,
    per_step: bool = False,
    checkpoints: Sequence[int] = (),
) -> tuple[torch.Tensor, dict[int, torch.Tensor]]:
    """Train the linear-softmax clarifier with group-normalised policy gradients (Adam).

    ``reward="ig"``: each question earns ``R − cost`` (the paper's IG reward);
    ``reward="success"``: the dialogue earns 1 if the MAP agent then commits to ``G*``, minus
    ``cost`` per question. With ``per_step`` the advantage of step ``t`` normalises the reward
    to go from ``t`` over the group (``group_size`` rollouts of one task); otherwise the whole
    dialogue's return is normalised and credited to every step. Returns the final weights and
    a copy of the weights after every update listed in ``checkpoints`` (0 = initial).
    """
    _check_env(env)
    if reward not in ("ig", "success"):
        raise ValueError(f"reward must be 'ig' or 'success', got {reward!r}")
    budget = checks.integer("budget", budget, low=1)
    cost = checks.real("cost", cost, low=0.0)
    updates = checks.integer("updates", updates, low=0)
    n_tasks = checks.integer("tasks_per_update", tasks_per_update, low=1)
    m = checks.integer("group_size", group_size, low=2)
    lr = checks.real("lr", lr, low=0.0, strict=True)
    _check_generator(generator)
    for c in checkpoints:
        checks.integer("checkpoints[i]", c, low=0, high=updates)
    if not isinstance(revealed, tuple | list) or len(revealed) != 2:
        raise ValueError(f"revealed must be a pair (low, high), got {revealed!r}")
    lo = checks.integer("revealed[0]", revealed[0], low=0, high=env.n_attributes)
    checks.integer("revealed[1]", revealed[1], low=lo, high=env.n_attributes)
    if not isinstance(per_step, bool):
        raise ValueError(f"per_step must be a bool, got {per_step!r}")
    dtype, dev = env.prior.dtype, env.prior.device
    W = torch.zeros(2 * env.n_attributes + 5, env.n_actions, dtype=dtype, device=dev)
    W.requires_grad_(True)
    opt = torch.optim.Adam([W], lr=lr)
    saved = {0: W.detach().clone()} if 0 in checkpoints else {}
    policy = softmax_policy(W)
    for u in range(1, updates + 1):
        tasks = sample_tasks(env, n_tasks, revealed=revealed, generator=generator).repeat(m)
        ro = rollout(env, tasks, policy, budget=budget, generator=generator)
        asked = (ro.actions >= 0) & (ro.actions != env.no_ask)
        if reward == "ig":
            step_r = (ro.rewards - cost) * asked.to(dtype)
        else:
            hit = commit(ro.belief, 0.0, generator=generator) == tasks.goal
            step_r = -cost * asked.to(dtype)
            step_r[:, -1] += hit.to(dtype)
        if per_step:
            g = _reward_to_go(step_r)  # (n*m, B)
            g = g.reshape(n_tasks, m, budget).transpose(1, 2).reshape(n_tasks * budget, m)
            adv = group_advantages(g).reshape(n_tasks, budget, m).transpose(1, 2)
            adv = adv.reshape(n_tasks * m, budget)
        else:
            ret = step_r.sum(dim=1).reshape(n_tasks, m)
            adv = group_advantages(ret).reshape(n_tasks * m, 1).expand(-1, budget)
        mask = ro.active.to(dtype)
        assert ro.logp is not None  # a sampled rollout records its log-probabilities
        loss = -(adv.detach() * ro.logp * mask).sum() / mask.sum().clamp_min(1.0)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if u in checkpoints:
            saved[u] = W.detach().clone()
    return W.detach().clone(), saved
