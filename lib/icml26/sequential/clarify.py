"""Goal-oriented clarification with an information-gain reward (chapter 04).

The "τ-toy retail" environment of chapter 04, batched over tasks, on any torch device:

- a goal is a tuple of ``K`` attributes with ``V`` values each (``G = V**K`` goals) with a
  Zipf prior (:func:`make_env`); a task reveals a random subset of the attributes of its hidden
  goal ``G*`` in the instruction ``x`` (:func:`sample_tasks`, :func:`initial_belief`);
- the clarifier's actions are ``ask(k)`` for every attribute, ``vague`` ("anything else?"),
  ``confirm`` (the current most probable goal, yes/no) and ``no-ask``; a strict simulated user
  answers truthfully except with probability ``eps`` (:func:`answer`,
  :func:`likelihood_matrix`);
- the belief is the exact Bayesian posterior over goals (:func:`update`), the reward is the
  paper's information gain ``R = log P(G*|x,Q,A) − log P(G*|x)`` (:func:`ig_reward`,
  :prf:ref:`clarification-def-ig`), and :func:`eig` gives its expectation in closed form for every
  action (:prf:ref:`clarification-thm-eig`), :func:`mutual_information` by enumerating answers;
- agents of different competence commit to a goal by sampling the tempered belief
  (:func:`commit`; temperature 0 is the MAP);
- a linear-softmax clarifier (:func:`features`, :func:`softmax_policy`) is trained with
  group-normalised policy gradients (:prf:ref:`clarification-def-grpo`) on the IG reward or on the
  sparse success reward (:func:`train_clarifier`), and compared with the oracle greedy-EIG
  clarifier (:func:`oracle_policy`) and a random-question one (:func:`random_policy`) by
  :func:`rollout` and :func:`evaluate`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import torch

from icml26 import checks
from icml26.grpo import group_advantages

__all__ = [
    "Policy",
    "RetailEnv",
    "Rollout",
    "Tasks",
    "action_names",
    "answer",
    "commit",
    "eig",
    "evaluate",
    "features",
    "ig_reward",
    "initial_belief",
    "likelihood_matrix",
    "make_env",
    "marginals",
    "mutual_information",
    "n_features",
    "no_ask_policy",
    "oracle_policy",
    "random_policy",
    "rollout",
    "sample_tasks",
    "softmax_policy",
    "train_clarifier",
    "update",
]


# ----------------------------------------------------------------------------- environment
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


# ------------------------------------------------------------------------------- policies
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
        logp = torch.log_softmax(phi @ weights, dim=1)
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


# -------------------------------------------------------------------------------- training
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
