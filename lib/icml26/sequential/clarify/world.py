"""The τ-toy retail world of chapter 04: goals, tasks, the user and the exact Bayesian belief.

Goals, their Zipf prior and tasks (:func:`make_env`, :func:`sample_tasks`, :func:`initial_belief`),
the strict user (:func:`answer`, :func:`likelihood_matrix`), the posterior update and the
information-gain reward (:prf:ref:`clarification-def-ig`) with its expectation in closed form
(:prf:ref:`clarification-thm-eig`).
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from icml26 import checks

__all__ = [
    "RetailEnv",
    "Tasks",
    "action_names",
    "answer",
    "commit",
    "eig",
    "ig_reward",
    "initial_belief",
    "likelihood_matrix",
    "make_env",
    "marginals",
    "mutual_information",
    "sample_tasks",
    "update",
]


@dataclass(frozen=True)
class RetailEnv:
    """The τ-toy retail world: goals, their prior and the user's answer noise.

    Actions are numbered ``0..K-1`` = ``ask(k)``, ``K`` = vague, ``K+1`` = confirm(MAP),
    ``K+2`` = no-ask.
    """

    attrs: torch.Tensor  # (G, K) long: the attribute values of every goal
    onehot: torch.Tensor  # (G, K*V) float: one-hot encoding of attrs
    prior: torch.Tensor  # (G,) float: P(G)
    n_values: int
    eps: float

    @property
    def n_attributes(self) -> int:
        return int(self.attrs.shape[1])

    @property
    def n_goals(self) -> int:
        return int(self.attrs.shape[0])

    @property
    def n_actions(self) -> int:
        return self.n_attributes + 3

    @property
    def vague(self) -> int:
        return self.n_attributes

    @property
    def confirm(self) -> int:
        return self.n_attributes + 1

    @property
    def no_ask(self) -> int:
        return self.n_attributes + 2


def action_names(env: RetailEnv) -> list[str]:
    """Readable names of the actions of ``env``, in action order."""
    _check_env(env)
    return [f"ask({k})" for k in range(env.n_attributes)] + ["vague", "confirm", "no-ask"]


def make_env(
    n_attributes: int = 4,
    n_values: int = 4,
    eps: float = 0.1,
    *,
    zipf: float = 1.0,
    generator: torch.Generator | None = None,
    device: torch.device | str | None = None,
    dtype: torch.dtype = torch.float64,
) -> RetailEnv:
    """Build the world: ``V**K`` goals, prior ``∝ rank**(−zipf)`` over a random ranking."""
    K = checks.integer("n_attributes", n_attributes, low=1, high=8)
    V = checks.integer("n_values", n_values, low=2, high=16)
    if V**K > 2**16:
        raise ValueError(f"n_values**n_attributes must be <= 65536, got {V**K}")
    eps = checks.real("eps", eps, low=0.0, high=1.0, strict=False)
    if eps >= 1.0:
        raise ValueError(f"eps must be < 1, got {eps}")
    zipf = checks.real("zipf", zipf, low=0.0)
    if dtype not in (torch.float32, torch.float64):
        raise ValueError(f"dtype must be torch.float32 or torch.float64, got {dtype}")
    G = V**K
    idx = torch.arange(G)
    attrs = torch.stack([(idx // V**k) % V for k in range(K)], dim=1)
    perm = torch.randperm(G, generator=generator)
    rank = torch.empty(G, dtype=torch.long)
    rank[perm] = torch.arange(1, G + 1)
    prior = rank.to(torch.float64) ** (-zipf)
    prior = (prior / prior.sum()).to(dtype)
    onehot = torch.nn.functional.one_hot(attrs, V).reshape(G, K * V).to(dtype)
    dev = torch.device(device) if device is not None else torch.device("cpu")
    return RetailEnv(attrs.to(dev), onehot.to(dev), prior.to(dev), V, eps)


@dataclass(frozen=True)
class Tasks:
    """A batch of tasks: the hidden goals ``G*`` (n,) and the revealed attributes (n, K)."""

    goal: torch.Tensor
    revealed: torch.Tensor

    def __len__(self) -> int:
        return int(self.goal.shape[0])

    def repeat(self, m: int) -> Tasks:
        """Each task ``m`` times in a row (a GRPO group of ``m`` rollouts per task)."""
        m = checks.integer("m", m, low=1)
        return Tasks(self.goal.repeat_interleave(m), self.revealed.repeat_interleave(m, dim=0))


def _check_env(env: object) -> None:
    if not isinstance(env, RetailEnv):
        raise ValueError(f"env must be a RetailEnv (see make_env), got {type(env).__name__}")


def _check_generator(generator: object) -> None:
    if not isinstance(generator, torch.Generator):
        raise ValueError(f"generator must be a torch.Generator, got {type(generator).__name__}")


def _rand(generator: torch.Generator, shape: tuple[int, ...], like: torch.Tensor) -> torch.Tensor:
    u = torch.rand(shape, generator=generator, device=generator.device, dtype=torch.float64)
    return u.to(like.device)


def _check_tasks(env: RetailEnv, tasks: object) -> int:
    if not isinstance(tasks, Tasks):
        raise ValueError(f"tasks must be a Tasks batch (see sample_tasks), got {type(tasks)}")
    n = len(tasks)
    checks.shape("tasks.goal", tasks.goal, (n,))
    checks.shape("tasks.revealed", tasks.revealed, (n, env.n_attributes))
    if n and (int(tasks.goal.min()) < 0 or int(tasks.goal.max()) >= env.n_goals):
        raise ValueError(f"tasks.goal must index the {env.n_goals} goals")
    return n


def _check_belief(env: RetailEnv, belief: object, name: str = "belief") -> int:
    belief = checks.tensor(name, belief, ndim=2, floating=True)
    checks.shape(name, belief, (None, env.n_goals))
    checks.probability_vector(name, belief)
    return int(belief.shape[0])


def sample_tasks(
    env: RetailEnv,
    n: int,
    *,
    revealed: tuple[int, int] = (0, 4),
    generator: torch.Generator,
) -> Tasks:
    """Draw ``n`` tasks: ``G* ~ P(G)``, and a uniform number in ``revealed`` of its attributes,
    chosen uniformly at random, revealed in the instruction."""
    _check_env(env)
    n = checks.integer("n", n, low=1)
    _check_generator(generator)
    if not isinstance(revealed, tuple | list) or len(revealed) != 2:
        raise ValueError(f"revealed must be a pair (low, high), got {revealed!r}")
    lo = checks.integer("revealed[0]", revealed[0], low=0, high=env.n_attributes)
    hi = checks.integer("revealed[1]", revealed[1], low=lo, high=env.n_attributes)
    prior = env.prior.to(generator.device)
    goal = torch.multinomial(prior, n, replacement=True, generator=generator)
    count = torch.randint(lo, hi + 1, (n, 1), generator=generator, device=generator.device)
    scores = torch.rand(
        (n, env.n_attributes), generator=generator, device=generator.device, dtype=torch.float64
    )
    rank = scores.argsort(dim=1).argsort(dim=1)
    dev = env.prior.device
    return Tasks(goal.to(dev), (rank < count).to(dev))


def initial_belief(env: RetailEnv, tasks: Tasks) -> torch.Tensor:
    """``P(G | x)``: the prior restricted to the goals consistent with the instruction."""
    _check_env(env)
    _check_tasks(env, tasks)
    target = env.attrs[tasks.goal]  # (n, K)
    agree = env.attrs[None, :, :] == target[:, None, :]  # (n, G, K)
    consistent = (agree | ~tasks.revealed[:, None, :]).all(dim=2)
    b = env.prior[None, :] * consistent.to(env.prior.dtype)
    return b / b.sum(dim=1, keepdim=True)


def marginals(env: RetailEnv, belief: torch.Tensor) -> torch.Tensor:
    """Per-attribute marginals of a belief: ``(n, K, V)``."""
    _check_env(env)
    _check_belief(env, belief)
    return _marginals(env, belief)


def _marginals(env: RetailEnv, belief: torch.Tensor) -> torch.Tensor:
    return (belief @ env.onehot).reshape(belief.shape[0], env.n_attributes, env.n_values)


# ------------------------------------------------------------------------- the user and Bayes
def likelihood_matrix(env: RetailEnv, belief: torch.Tensor, action: int) -> torch.Tensor:
    """``P(A = a | G = g, Q)`` for one action, as ``(n, V, G)`` (rows of unused answers are 0).

    ``ask(k)``: the value of attribute ``k``, replaced w.p. ``eps`` by a uniform value;
    ``confirm``: answer 0 = "yes" iff ``g`` is the belief's MAP goal, flipped w.p. ``eps``;
    ``vague`` and ``no-ask``: the single uninformative answer 0.
    """
    _check_env(env)
    n = _check_belief(env, belief)
    a = checks.integer("action", action, low=0, high=env.n_actions - 1)
    V, G, eps = env.n_values, env.n_goals, env.eps
    L = torch.zeros((n, V, G), dtype=belief.dtype, device=belief.device)
    if a < env.n_attributes:
        hit = env.attrs[:, a][None, :] == torch.arange(V, device=belief.device)[:, None]
        L[:] = (1 - eps) * hit.to(belief.dtype) + eps / V
    elif a == env.confirm:
        is_map = torch.nn.functional.one_hot(belief.argmax(dim=1), G).to(belief.dtype)
        L[:, 0] = (1 - eps) * is_map + eps * (1 - is_map)
        L[:, 1] = 1 - L[:, 0]
    else:
        L[:, 0] = 1.0
    return L


def mutual_information(belief: torch.Tensor, likelihood: torch.Tensor) -> torch.Tensor:
    """``I(G; A)`` in nats for ``G ~ belief`` (n, G) and ``A | G ~ likelihood`` (n, A, G)."""
    checks.tensor("belief", belief, ndim=2, floating=True)
    checks.tensor("likelihood", likelihood, ndim=3, floating=True)
    checks.shape("likelihood", likelihood, (belief.shape[0], None, belief.shape[1]))
    checks.probability_vector("belief", belief)
    checks.probability_vector("likelihood (over answers)", likelihood.transpose(1, 2))
    pred = torch.einsum("nag,ng->na", likelihood, belief)
    h_answer = -torch.special.xlogy(pred, pred).sum(dim=1)
    h_cond = -(torch.special.xlogy(likelihood, likelihood).sum(dim=1) * belief).sum(dim=1)
    return h_answer - h_cond


def _entropy(p: torch.Tensor, dim: int = -1) -> torch.Tensor:
    return -torch.special.xlogy(p, p).sum(dim=dim)


def eig(env: RetailEnv, belief: torch.Tensor) -> torch.Tensor:
    """Exact expected information gain ``I(G; A | x, Q)`` of every action: ``(n, K + 3)``.

    Closed forms of :prf:ref:`clarification-thm-eig`: ``ask(k)`` gains ``H(A) − H(A | G)`` with the
    answer's predictive ``(1 − eps) m_k + eps / V`` (``m_k``: the belief's marginal of attribute
    ``k``); ``confirm`` gains ``h(P(yes)) − h(eps)`` with the binary entropy ``h``; ``vague`` and
    ``no-ask`` gain 0.
    """
    _check_env(env)
    _check_belief(env, belief)
    return _eig(env, belief)


def _eig(env: RetailEnv, belief: torch.Tensor) -> torch.Tensor:
    n, V, eps = belief.shape[0], env.n_values, env.eps
    m = _marginals(env, belief)
    pred = (1 - eps) * m + eps / V
    noise = (1 - eps) * torch.eye(V, dtype=belief.dtype, device=belief.device)[0] + eps / V
    ask = (_entropy(pred) - _entropy(noise)).clamp_min(0.0)
    p_map = belief.max(dim=1).values
    p_yes = (1 - eps) * p_map + eps * (1 - p_map)
    two = torch.stack([p_yes, 1 - p_yes], dim=1)
    e = torch.tensor([1 - eps, eps], dtype=belief.dtype, device=belief.device)
    conf = (_entropy(two) - _entropy(e)).clamp_min(0.0)
    zero = torch.zeros(n, 1, dtype=belief.dtype, device=belief.device)
    return torch.cat([ask, zero, conf[:, None], zero], dim=1)


def _check_actions(env: RetailEnv, actions: object, n: int) -> torch.Tensor:
    actions = checks.tensor("actions", actions, ndim=1)
    checks.shape("actions", actions, (n,))
    if n and (int(actions.min()) < 0 or int(actions.max()) >= env.n_actions):
        raise ValueError(f"actions must lie in [0, {env.n_actions - 1}]")
    return actions.long()


def _row_likelihood(
    env: RetailEnv, belief: torch.Tensor, actions: torch.Tensor, answers: torch.Tensor
) -> torch.Tensor:
    """``P(A = answers | G = g, Q = actions)`` for every task: ``(n, G)``."""
    V, eps, K = env.n_values, env.eps, env.n_attributes
    n = belief.shape[0]
    k = actions.clamp(max=K - 1)
    ask = (1 - eps) * (env.attrs.T[k] == answers[:, None]).to(belief.dtype) + eps / V
    is_map = torch.zeros_like(belief)
    is_map[torch.arange(n, device=belief.device), belief.argmax(dim=1)] = 1.0
    yes = (1 - eps) * is_map + eps * (1 - is_map)
    conf = torch.where(answers[:, None] == 0, yes, 1 - yes)
    ones = torch.ones_like(belief)
    out = torch.where((actions < K)[:, None], ask, ones)
    return torch.where((actions == env.confirm)[:, None], conf, out)


def answer(
    env: RetailEnv,
    tasks: Tasks,
    belief: torch.Tensor,
    actions: torch.Tensor,
    *,
    generator: torch.Generator,
) -> torch.Tensor:
    """The strict simulated user's answers (n,) to ``actions`` (n,), given the hidden goals."""
    _check_env(env)
    n = _check_tasks(env, tasks)
    _check_belief(env, belief)
    checks.shape("belief", belief, (n, env.n_goals))
    actions = _check_actions(env, actions, n)
    _check_generator(generator)
    return _answer(env, tasks, belief, actions, generator)


def _answer(
    env: RetailEnv,
    tasks: Tasks,
    belief: torch.Tensor,
    actions: torch.Tensor,
    generator: torch.Generator,
) -> torch.Tensor:
    n, K, V, eps = belief.shape[0], env.n_attributes, env.n_values, env.eps
    u = _rand(generator, (n, 2), belief)
    truth_attr = env.attrs[tasks.goal, actions.clamp(max=K - 1)]
    noisy = u[:, 0] < eps
    random_value = (u[:, 1] * V).long().clamp(max=V - 1)
    ask = torch.where(noisy, random_value, truth_attr)
    is_map = belief.argmax(dim=1) == tasks.goal
    yes = is_map ^ noisy
    conf = torch.where(yes, 0, 1)
    out = torch.where(actions < K, ask, torch.zeros_like(ask))
    return torch.where(actions == env.confirm, conf, out)


def update(
    env: RetailEnv, belief: torch.Tensor, actions: torch.Tensor, answers: torch.Tensor
) -> torch.Tensor:
    """Bayes: ``P(G | x, Q, A) ∝ P(A | G, Q) P(G | x)`` for every task (n, G)."""
    _check_env(env)
    n = _check_belief(env, belief)
    actions = _check_actions(env, actions, n)
    checks.tensor("answers", answers, ndim=1)
    checks.shape("answers", answers, (n,))
    post = _row_likelihood(env, belief, actions, answers.long()) * belief
    if (post.sum(dim=1) <= 0).any():
        raise ValueError("answers must have positive probability under the belief")
    return _update(env, belief, actions, answers.long())


def _update(
    env: RetailEnv, belief: torch.Tensor, actions: torch.Tensor, answers: torch.Tensor
) -> torch.Tensor:
    post = _row_likelihood(env, belief, actions, answers) * belief
    return post / post.sum(dim=1, keepdim=True)


def ig_reward(before: torch.Tensor, after: torch.Tensor, goal: torch.Tensor) -> torch.Tensor:
    """The paper's reward ``log P(G* | x, Q, A) − log P(G* | x)`` (n,).

    Implements :prf:ref:`clarification-def-ig`, chapter 04. ``before`` and ``after`` are
    beliefs ``(n, G)``; the goal must have positive probability under ``before`` (the reward
    is ``-inf`` when an answer rules the goal out, which a correct user model never does).
    """
    checks.tensor("before", before, ndim=2, floating=True)
    checks.tensor("after", after, ndim=2, floating=True)
    checks.shape("after", after, tuple(before.shape))
    checks.probability_vector("before", before)
    checks.probability_vector("after", after)
    checks.tensor("goal", goal, ndim=1)
    checks.shape("goal", goal, (before.shape[0],))
    if goal.is_floating_point() or goal.dtype == torch.bool:
        raise ValueError(f"goal must hold integer goal indices, got {goal.dtype}")
    if goal.numel() and (int(goal.min()) < 0 or int(goal.max()) >= before.shape[1]):
        raise ValueError(f"goal must index the {before.shape[1]} goals")
    rows = torch.arange(before.shape[0], device=before.device)
    g = goal.long()
    if (before[rows, g] <= 0).any():
        raise ValueError("goal must have positive probability under before")
    return torch.log(after[rows, g]) - torch.log(before[rows, g])


def commit(belief: torch.Tensor, temperature: float, *, generator: torch.Generator) -> torch.Tensor:
    """An agent's committed goal (n,): a sample of ``belief**(1/τ)``; ``τ = 0`` is the MAP."""
    checks.tensor("belief", belief, ndim=2, floating=True)
    checks.probability_vector("belief", belief)
    tau = checks.real("temperature", temperature, low=0.0)
    _check_generator(generator)
    if tau == 0.0:
        return belief.argmax(dim=1)
    logits = torch.log(belief) / tau
    p = torch.softmax(logits, dim=1)
    u = _rand(generator, (belief.shape[0], 1), belief)
    idx = (p.cumsum(dim=1) < u.to(p.dtype)).sum(dim=1)
    return idx.clamp(max=belief.shape[1] - 1)
