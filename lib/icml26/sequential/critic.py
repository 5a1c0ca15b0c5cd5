"""Exact audits of informed critics on small POMDPs (chapter 03, informed-critic).

Every trajectory of a small finite-horizon POMDP with a privileged signal ``i_t ~ I_t(.|s_t)``
is enumerated, with its probability under a tabular softmax history policy; any conditional
expectation ``E[X | key]`` is then a weighted group mean. This gives the exact objective
``J``, its gradient by autograd, the critics ``Q(h,i,a)``, ``Q(h,a)``, ``Q(s,a)``, the
policy-gradient estimator that uses one of them, and the fixed point of expected TD(0).
Implements :prf:ref:`informed-critic-lem-tower`, :prf:ref:`informed-critic-thm-unbiased`,
:prf:ref:`informed-critic-prop-variance` and :prf:ref:`informed-critic-prop-td`.

The informativeness tests are in :mod:`icml26.sequential.informativeness`, the synthetic and
CartPole environments in :mod:`icml26.sequential.critic_envs`, the trained actor-critic in
:mod:`icml26.sequential.a2c`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch

from icml26 import checks

__all__ = [
    "Enumeration",
    "audit_pomdp",
    "conditional_mean",
    "discounted_returns",
    "enumerate_pomdp",
    "exact_objective",
    "informed_gradient",
    "policy_log_probs",
    "td_fixed_point",
]

DT = torch.float64


@dataclass(frozen=True)
class Enumeration:
    """Every trajectory of a finite-horizon POMDP with a privileged signal (policy not included).

    Integer tensors of shape ``(N, H)``: ``s`` states, ``o`` observations, ``i`` signals, ``a``
    actions, ``hist`` the index of the history ``h_t = (o_0, a_0, ..., o_t)`` among the
    ``n_hist[t]`` histories of length ``t``. ``log_env`` (N,) is the log-probability of the
    trajectory's states, observations and signals (``-inf`` where impossible); ``reward`` (N, H).
    """

    s: torch.Tensor
    o: torch.Tensor
    i: torch.Tensor
    a: torch.Tensor
    hist: torch.Tensor
    n_hist: tuple[int, ...]
    log_env: torch.Tensor
    reward: torch.Tensor
    n_states: int
    n_obs: int
    n_signal: int
    n_actions: int

    @property
    def horizon(self) -> int:
        return int(self.s.shape[1])

    @property
    def n_logits(self) -> int:
        """Number of policy logits of a tabular softmax history policy."""
        return sum(self.n_hist) * self.n_actions


def _enumeration(E: object) -> Enumeration:
    if not isinstance(E, Enumeration):
        raise ValueError(f"E must be an Enumeration, got {type(E).__name__}")
    return E


def _int_keys(name: str, keys: object, ndim: int) -> torch.Tensor:
    keys = checks.tensor(name, keys, ndim=ndim)
    if keys.is_floating_point() or keys.is_complex() or keys.dtype == torch.bool:
        raise ValueError(f"{name} must be an integer tensor, got {keys.dtype}")
    if keys.numel() and int(keys.min()) < 0:
        raise ValueError(f"{name} must be non-negative")
    return keys


def _weights(weights: object) -> torch.Tensor:
    weights = checks.tensor("weights", weights, ndim=1, floating=True)
    if weights.shape[0] == 0:
        raise ValueError("weights must not be empty")
    checks.finite("weights", weights)
    if (weights < 0).any():
        raise ValueError("weights must be non-negative")
    return weights


def _log(x: torch.Tensor) -> torch.Tensor:
    return torch.where(x > 0, x.clamp_min(1e-300).log(), torch.full_like(x, -math.inf))


def enumerate_pomdp(
    p0: torch.Tensor,
    T: torch.Tensor,
    O: torch.Tensor,
    signal: torch.Tensor,
    reward: torch.Tensor,
    n_actions: int,
) -> Enumeration:
    """Enumerate all trajectories of horizon ``H = signal.shape[0]``.

    ``p0`` (S,) initial law; ``T`` (S, S) action-independent transitions; ``O`` (S, n_obs)
    observation kernel; ``signal`` (H, S, n_signal) the privileged kernels ``I_t(i | s)``;
    ``reward`` (H, S, A) the reward ``r_t(s, a)``. All ``(S * n_obs * n_signal * A) ** H``
    trajectories are listed, so keep them small (the audit POMDP has 4096).
    """
    p0, T, O = (checks.tensor(n, x, floating=True) for n, x in (("p0", p0), ("T", T), ("O", O)))
    signal = checks.tensor("signal", signal, ndim=3, floating=True)
    reward = checks.tensor("reward", reward, ndim=3, floating=True)
    A = checks.integer("n_actions", n_actions, low=1)
    S = int(p0.shape[0]) if p0.ndim == 1 else -1
    checks.shape("p0", p0, (None,))
    checks.probability_vector("p0", p0)
    checks.shape("T", T, (S, S))
    checks.stochastic_matrix("T", T)
    checks.shape("O", O, (S, None))
    checks.probability_vector("O", O)
    H, _, n_sig = signal.shape
    checks.shape("signal", signal, (H, S, None))
    checks.probability_vector("signal", signal)
    for name, law in (("p0", p0), ("T", T), ("O", O), ("signal", signal)):
        # exact audits: a float32 kernel (0.8f + 0.2f != 1) would bias every sum by ~1e-8
        if float((law.sum(-1) - 1).abs().max()) > 1e-12:
            raise ValueError(f"{name} must sum to one to 1e-12 (build it in float64)")
    checks.shape("reward", reward, (H, S, A))
    checks.finite("reward", reward)
    if (S * O.shape[1] * n_sig * A) ** H > 2_000_000:
        raise ValueError("signal: too many trajectories to enumerate (horizon too long)")
    n_obs = int(O.shape[1])
    step = torch.cartesian_prod(
        torch.arange(S), torch.arange(n_obs), torch.arange(n_sig), torch.arange(A)
    )  # (S*O*I*A, 4): one step's (s, o, i, a)
    grids = torch.meshgrid(*[torch.arange(step.shape[0])] * H, indexing="ij")
    idx = torch.stack([g.reshape(-1) for g in grids], 1)  # (N, H)
    s, o, i, a = (step[idx, k] for k in range(4))
    log_env = _log(p0)[s[:, 0]]
    for t in range(H):
        if t > 0:
            log_env = log_env + _log(T)[s[:, t - 1], s[:, t]]
        log_env = log_env + _log(O)[s[:, t], o[:, t]] + _log(signal[t])[s[:, t], i[:, t]]
    hist = torch.empty_like(s)
    n_hist = []
    h = o[:, 0].clone()
    for t in range(H):
        if t > 0:
            h = (h * A + a[:, t - 1]) * n_obs + o[:, t]
        hist[:, t] = h
        n_hist.append(n_obs ** (t + 1) * A**t)
    r = reward[torch.arange(H).expand_as(s), s, a]
    keep = torch.isfinite(log_env)
    return Enumeration(
        s[keep],
        o[keep],
        i[keep],
        a[keep],
        hist[keep],
        tuple(n_hist),
        log_env[keep].to(DT),
        r[keep].to(DT),
        S,
        n_obs,
        n_sig,
        A,
    )


def audit_pomdp(
    *,
    horizon: int = 3,
    flip: float = 0.1,
    accuracy: float = 0.7,
    step_cost: float = 0.05,
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    """The chapter's audit POMDP: ``p0, T, O, reward`` (two hidden sides, two observations).

    The hidden side persists (flips w.p. ``flip``), each observation is correct w.p.
    ``accuracy``, every step but the last costs ``step_cost`` and at the last step the action
    earns +1 if it names the side, -1 otherwise.
    """
    H = checks.integer("horizon", horizon, low=1)
    flip = checks.real("flip", flip, low=0.0, high=1.0)
    acc = checks.real("accuracy", accuracy, low=0.0, high=1.0)
    cost = checks.real("step_cost", step_cost)
    p0 = torch.full((2,), 0.5, dtype=DT)
    T = torch.tensor([[1 - flip, flip], [flip, 1 - flip]], dtype=DT)
    O = torch.tensor([[acc, 1 - acc], [1 - acc, acc]], dtype=DT)
    reward = torch.full((H, 2, 2), -cost, dtype=DT)
    reward[-1] = 2 * torch.eye(2, dtype=DT) - 1
    return p0, T, O, reward


def policy_log_probs(theta: torch.Tensor, E: Enumeration) -> torch.Tensor:
    """``log pi(a_t | h_t)`` (N, H) of the tabular softmax policy with logits ``theta``.

    ``theta`` is a flat vector of ``E.n_logits`` logits: for each ``t``, ``n_hist[t]`` rows of
    ``n_actions``. The policy sees histories only, never the signal.
    """
    E = _enumeration(E)
    theta = checks.tensor("theta", theta, ndim=1, floating=True)
    checks.shape("theta", theta, (E.n_logits,))
    checks.finite("theta", theta)
    out, start = [], 0
    for t, n in enumerate(E.n_hist):
        logits = theta[start : start + n * E.n_actions].view(n, E.n_actions)
        start += n * E.n_actions
        out.append(torch.log_softmax(logits, -1)[E.hist[:, t], E.a[:, t]])
    return torch.stack(out, 1)


def discounted_returns(rewards: torch.Tensor, gamma: float) -> torch.Tensor:
    """``G_t = sum_{k >= t} gamma^(k-t) r_k`` along the last axis (reverse cumulative sum),
    batched over any leading axes."""
    rewards = checks.tensor("rewards", rewards, floating=True)
    if rewards.ndim < 1 or rewards.shape[-1] == 0:
        raise ValueError("rewards must have a non-empty last (time) axis")
    checks.finite("rewards", rewards)
    gamma = checks.real("gamma", gamma, low=0.0, high=1.0)
    G = torch.empty_like(rewards)
    acc = torch.zeros_like(rewards[..., 0])
    for t in range(rewards.shape[-1] - 1, -1, -1):
        acc = rewards[..., t] + gamma * acc
        G[..., t] = acc
    return G


def exact_objective(theta: torch.Tensor, E: Enumeration, gamma: float) -> torch.Tensor:
    """``J(theta) = E[G_0]`` by summing over all trajectories (differentiable in ``theta``)."""
    gamma = checks.real("gamma", gamma, low=0.0, high=1.0)
    E = _enumeration(E)
    logp = E.log_env + policy_log_probs(theta, E).sum(1)
    disc = gamma ** torch.arange(E.horizon, dtype=DT)
    return (logp.exp() * (E.reward * disc).sum(1)).sum()


def conditional_mean(
    values: torch.Tensor, weights: torch.Tensor, keys: torch.Tensor, n_keys: int | None = None
) -> torch.Tensor:
    """``E[values | key]`` under trajectory weights, broadcast back to each trajectory.

    ``values`` (N,), ``weights`` (N,) non-negative, ``keys`` (N,) integer group ids. Groups of
    zero weight get the value 0.
    """
    values = checks.tensor("values", values, ndim=1, floating=True)
    n = values.shape[0]
    if n == 0:
        raise ValueError("values must not be empty")
    checks.finite("values", values)
    weights = _weights(weights)
    checks.shape("weights", weights, (n,))
    keys = _int_keys("keys", keys, 1)
    checks.shape("keys", keys, (n,))
    K = int(keys.max()) + 1
    if n_keys is not None:
        K = checks.integer("n_keys", n_keys, low=K)
    num = torch.zeros(K, dtype=values.dtype).index_add_(0, keys, weights * values)
    den = torch.zeros(K, dtype=values.dtype).index_add_(0, keys, weights)
    mean = torch.where(den > 0, num / den.clamp_min(1e-300), torch.zeros_like(num))
    return mean[keys]


def informed_gradient(
    theta: torch.Tensor, E: Enumeration, critic: torch.Tensor, gamma: float
) -> torch.Tensor:
    """Exact expectation of ``sum_t gamma^t C_t grad log pi(a_t | h_t)`` for a critic ``C`` (N, H).

    ``critic`` is any per-trajectory, per-step value (``Q(h,i,a)``, ``Q(h,a)``, ``Q(s,a)``, an
    advantage ``Q - V``): held fixed, the gradient flows only through the score. Implements the
    estimator of :prf:ref:`informed-critic-thm-unbiased`, chapter 03.
    """
    gamma = checks.real("gamma", gamma, low=0.0, high=1.0)
    E = _enumeration(E)
    theta = checks.tensor("theta", theta, ndim=1, floating=True)
    critic = checks.tensor("critic", critic, ndim=2, floating=True)
    checks.shape("critic", critic, (E.s.shape[0], E.horizon))
    checks.finite("critic", critic)
    theta = theta.detach().clone().requires_grad_(True)
    logpi = policy_log_probs(theta, E)
    w = (E.log_env + logpi.sum(1)).exp().detach()
    disc = gamma ** torch.arange(E.horizon, dtype=DT)
    surrogate = (w[:, None] * disc * critic.detach() * logpi).sum()
    (g,) = torch.autograd.grad(surrogate, theta)
    return g


def td_fixed_point(
    weights: torch.Tensor,
    reward: torch.Tensor,
    keys: torch.Tensor,
    gamma: float,
) -> torch.Tensor:
    """Fixed point of expected tabular TD(0) for ``V(key_t)`` (N, H), computed backwards.

    ``V_TD(k_t) = E[r_t + gamma V_TD(k_{t+1}) | k_t]`` with ``k_t = keys[:, t]`` (e.g. the
    pair ``(h_t, i_t)``) and ``V_TD = E[r_{H-1} | k_{H-1}]`` at the last step: the value a
    bootstrapped critic converges to. Used for the TD caveat of chapter 03
    (:prf:ref:`informed-critic-prop-td`).
    """
    weights = _weights(weights)
    reward = checks.tensor("reward", reward, ndim=2, floating=True)
    keys = _int_keys("keys", keys, 2)
    checks.shape("reward", reward, (weights.shape[0], None))
    if reward.shape[1] == 0:
        raise ValueError("reward must have at least one step")
    checks.finite("reward", reward)
    checks.shape("keys", keys, tuple(reward.shape))
    gamma = checks.real("gamma", gamma, low=0.0, high=1.0)
    H = reward.shape[1]
    V = torch.zeros_like(reward)
    nxt = torch.zeros_like(reward[:, 0])
    for t in range(H - 1, -1, -1):
        V[:, t] = conditional_mean(reward[:, t] + gamma * nxt, weights, keys[:, t])
        nxt = V[:, t]
    return V
