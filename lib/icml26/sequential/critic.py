"""Informed asymmetric critics: exact audits on small POMDPs and informativeness tests (chapter 03).

Two halves.

*Exact enumeration* of a small finite-horizon POMDP with a privileged signal ``i_t ~ I_t(.|s_t)``
(every trajectory, its probability under a tabular softmax history policy, and any conditional
expectation ``E[X | key]`` by grouping trajectories): the exact objective ``J``, its gradient by
autograd, the critics ``Q(h,i,a)``, ``Q(h,a)``, ``Q(s,a)`` and the policy-gradient estimator that
uses one of them. Implements :prf:ref:`critic-lem-tower`, :prf:ref:`critic-thm-unbiased` and
:prf:ref:`critic-prop-variance`, chapter 03.

*Informativeness tests* on the aliased synthetic POMDP (batched rollouts of a random policy):
cross-fitted residuals, an RBF-HSIC with Nystrom features and an **episode-level** permutation
test, batched over permutations (:prf:ref:`critic-def-residual`); and the per-episode prediction
gain of an informed over a symmetric linear critic with its one-sided t-test
(:prf:ref:`critic-def-gain`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import torch

from icml26 import checks

__all__ = [
    "AliasedPOMDP",
    "Enumeration",
    "HSICTest",
    "aliased_pomdp",
    "audit_pomdp",
    "conditional_mean",
    "cross_fit_predict",
    "discounted_returns",
    "enumerate_pomdp",
    "exact_objective",
    "gain_ttest",
    "history_window",
    "hsic_from_features",
    "informed_gradient",
    "median_bandwidth",
    "permutation_hsic",
    "policy_log_probs",
    "prediction_gains",
    "rbf_nystrom_features",
    "rollout",
    "td_fixed_point",
]

DT = torch.float64


# --------------------------------------------------------------------------------------------
# Exact enumeration of a small POMDP
# --------------------------------------------------------------------------------------------


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
    theta = checks.tensor("theta", theta, ndim=1, floating=True)
    checks.shape("theta", theta, (E.n_logits,))
    out, start = [], 0
    for t, n in enumerate(E.n_hist):
        logits = theta[start : start + n * E.n_actions].view(n, E.n_actions)
        start += n * E.n_actions
        out.append(torch.log_softmax(logits, -1)[E.hist[:, t], E.a[:, t]])
    return torch.stack(out, 1)


def discounted_returns(rewards: torch.Tensor, gamma: float) -> torch.Tensor:
    """``G_t = sum_{k >= t} gamma^(k-t) r_k`` along the last axis (reverse cumulative sum)."""
    rewards = checks.tensor("rewards", rewards, floating=True)
    if rewards.ndim < 1:
        raise ValueError("rewards must have at least one dimension")
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
    weights = checks.tensor("weights", weights, ndim=1, floating=True)
    keys = checks.tensor("keys", keys, ndim=1)
    if keys.is_floating_point():
        raise ValueError("keys must be an integer tensor")
    n = values.shape[0]
    checks.shape("weights", weights, (n,))
    checks.shape("keys", keys, (n,))
    if (weights < 0).any():
        raise ValueError("weights must be non-negative")
    K = int(keys.max()) + 1 if n_keys is None else checks.integer("n_keys", n_keys, low=1)
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
    estimator of :prf:ref:`critic-thm-unbiased`, chapter 03.
    """
    gamma = checks.real("gamma", gamma, low=0.0, high=1.0)
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
    (:prf:ref:`critic-prop-td`).
    """
    weights = checks.tensor("weights", weights, ndim=1, floating=True)
    reward = checks.tensor("reward", reward, ndim=2, floating=True)
    keys = checks.tensor("keys", keys, ndim=2)
    checks.shape("reward", reward, (weights.shape[0], None))
    checks.shape("keys", keys, tuple(reward.shape))
    gamma = checks.real("gamma", gamma, low=0.0, high=1.0)
    H = reward.shape[1]
    V = torch.zeros_like(reward)
    nxt = torch.zeros_like(reward[:, 0])
    for t in range(H - 1, -1, -1):
        V[:, t] = conditional_mean(reward[:, t] + gamma * nxt, weights, keys[:, t])
        nxt = V[:, t]
    return V


# --------------------------------------------------------------------------------------------
# The aliased synthetic POMDP (batched rollouts)
# --------------------------------------------------------------------------------------------

#: The paper's reward weights on the five state features (as reported for its Table 1).
REWARD_WEIGHTS = (1e-4, 1e-4, -1e-4, -1.0, 1.0)


@dataclass(frozen=True)
class AliasedPOMDP:
    """``features`` (S, 5) state features, ``T`` (A, S, S) transitions, ``p0`` (S,),
    ``weights`` (5,) reward weights; the observation is ``features[:, :2]``, shared by the
    ``group_size`` states of a group."""

    features: torch.Tensor
    T: torch.Tensor
    p0: torch.Tensor
    weights: torch.Tensor
    group_size: int

    @property
    def n_states(self) -> int:
        return int(self.features.shape[0])

    @property
    def n_actions(self) -> int:
        return int(self.T.shape[0])


def aliased_pomdp(
    *,
    n_groups: int = 5,
    group_size: int = 4,
    n_actions: int = 4,
    concentration: float = 1.0,
    generator: torch.Generator | None = None,
) -> AliasedPOMDP:
    """The synthetic informed POMDP of the paper's Table 1, aliased (our reconstruction).

    ``n_groups * group_size`` states with Gaussian features in R^5; the states of a group share
    ``(phi_1, phi_2)`` (the observation) and differ in ``(phi_3, phi_4, phi_5)``. Transitions per
    action are Dirichlet(``concentration``) rows; reward ``w_r . phi(s)`` with the paper's weights.
    """
    G = checks.integer("n_groups", n_groups, low=1)
    k = checks.integer("group_size", group_size, low=1)
    A = checks.integer("n_actions", n_actions, low=1)
    c = checks.real("concentration", concentration, low=0.0, strict=True)
    S = G * k
    obs = torch.randn(G, 2, generator=generator, dtype=DT).repeat_interleave(k, 0)
    rest = torch.randn(S, 3, generator=generator, dtype=DT)
    gam = torch._standard_gamma(torch.full((A, S, S), c, dtype=DT), generator=generator)
    T = gam / gam.sum(-1, keepdim=True)
    return AliasedPOMDP(
        torch.cat([obs, rest], 1),
        T,
        torch.full((S,), 1.0 / S, dtype=DT),
        torch.tensor(REWARD_WEIGHTS, dtype=DT),
        k,
    )


def rollout(
    env: AliasedPOMDP,
    n_episodes: int,
    length: int,
    *,
    obs_noise: float = 0.0,
    generator: torch.Generator | None = None,
) -> dict[str, torch.Tensor]:
    """Episodes of a uniformly random policy, all at once (one batched draw per step).

    Returns ``states`` (E, L), ``actions`` (E, L), ``features`` (E, L, 5) (the privileged
    signal is a subset of these), ``obs`` (E, L, 2) (``features[..., :2]`` plus Gaussian noise of
    standard deviation ``obs_noise``) and ``rewards`` (E, L).
    """
    E = checks.integer("n_episodes", n_episodes, low=1)
    L = checks.integer("length", length, low=1)
    beta = checks.real("obs_noise", obs_noise, low=0.0)
    states = torch.empty(E, L, dtype=torch.long)
    actions = torch.randint(env.n_actions, (E, L), generator=generator)
    s = torch.multinomial(env.p0.expand(E, -1), 1, generator=generator).squeeze(1)
    u = torch.rand(E, L, generator=generator, dtype=DT)
    cdf = env.T.cumsum(-1)
    for t in range(L):
        states[:, t] = s
        row = cdf[actions[:, t], s]  # (E, S)
        s = (row < u[:, t : t + 1]).sum(1).clamp_max(env.n_states - 1)
    feats = env.features[states]
    obs = feats[..., :2] + beta * torch.randn(E, L, 2, generator=generator, dtype=DT)
    return {
        "states": states,
        "actions": actions,
        "features": feats,
        "obs": obs,
        "rewards": feats @ env.weights,
    }


def history_window(
    obs: torch.Tensor, actions: torch.Tensor, n_actions: int, k: int
) -> torch.Tensor:
    """History features ``z_t``: the last ``k`` observations and one-hot previous actions.

    ``obs`` (E, L, d), ``actions`` (E, L). Entries before the episode start are zero, with one
    indicator per lag saying so. Returns (E, L, k * (d + n_actions + 1)); the current action is
    not included (append it for ``Q(h, a)``).
    """
    obs = checks.tensor("obs", obs, ndim=3, floating=True)
    actions = checks.tensor("actions", actions, ndim=2)
    E, L, _ = obs.shape
    checks.shape("actions", actions, (E, L))
    A = checks.integer("n_actions", n_actions, low=1)
    k = checks.integer("k", k, low=1)
    onehot = torch.nn.functional.one_hot(actions, A).to(obs.dtype)
    prev_a = torch.cat([torch.zeros(E, 1, A, dtype=obs.dtype), onehot[:, :-1]], 1)
    step = torch.cat([obs, prev_a, torch.ones(E, L, 1, dtype=obs.dtype)], -1)
    lags = []
    for j in range(k):
        pad = torch.zeros(E, j, step.shape[-1], dtype=obs.dtype)
        lags.append(torch.cat([pad, step[:, : L - j]], 1))
    return torch.cat(lags, -1)


# --------------------------------------------------------------------------------------------
# Residual (HSIC) test
# --------------------------------------------------------------------------------------------


def cross_fit_predict(
    X: np.ndarray,
    y: np.ndarray,
    groups: np.ndarray,
    *,
    n_folds: int = 5,
    n_trees: int = 100,
    seed: int = 0,
    min_samples_leaf: int = 1,
) -> np.ndarray:
    """Out-of-fold random-forest predictions of ``y`` from ``X``, folds by episode (``groups``).

    Cross-fitting keeps each prediction independent of its own target; in-sample forest
    residuals are nearly zero and would kill the power of the residual test.
    """
    from sklearn.ensemble import RandomForestRegressor
    from sklearn.model_selection import GroupKFold

    X, y, groups = np.asarray(X, float), np.asarray(y, float), np.asarray(groups)
    if X.ndim != 2:
        raise ValueError(f"X must be 2-D, got shape {X.shape}")
    if y.shape[0] != X.shape[0] or y.ndim not in (1, 2):
        raise ValueError(f"y must have {X.shape[0]} rows (1-D or 2-D), got shape {y.shape}")
    checks.shape("groups", groups, (X.shape[0],))
    checks.finite("X", X)
    checks.finite("y", y)
    k = checks.integer("n_folds", n_folds, low=2)
    if len(np.unique(groups)) < k:
        raise ValueError(f"groups must have at least n_folds={k} distinct episodes")
    trees = checks.integer("n_trees", n_trees, low=1)
    leaf = checks.integer("min_samples_leaf", min_samples_leaf, low=1)
    out = np.empty_like(y)
    for fold, (tr, te) in enumerate(GroupKFold(n_splits=k).split(X, y, groups)):
        rf = RandomForestRegressor(
            n_estimators=trees, min_samples_leaf=leaf, random_state=seed + fold, n_jobs=1
        )
        rf.fit(X[tr], y[tr])
        out[te] = rf.predict(X[te]).reshape(out[te].shape)
    return out


def median_bandwidth(x: torch.Tensor, *, max_points: int = 1000, floor: float = 1e-6) -> float:
    """Median heuristic: the median pairwise distance of (at most ``max_points``) rows of ``x``.

    Floored at ``floor``: a residual that is zero up to rounding then gives a constant kernel
    (no dependence) instead of amplifying rounding noise.
    """
    x = checks.tensor("x", x, ndim=2, floating=True)
    if x.shape[0] < 2:
        raise ValueError("x must have at least two rows")
    m = checks.integer("max_points", max_points, low=2)
    floor = checks.real("floor", floor, low=0.0, strict=True)
    sub = x[:: max(1, x.shape[0] // m)][:m]
    d = torch.cdist(sub, sub)
    iu = torch.triu_indices(sub.shape[0], sub.shape[0], 1)
    return max(float(d[iu[0], iu[1]].median()), floor)


def _rbf(x: torch.Tensor, y: torch.Tensor, sigma: float) -> torch.Tensor:
    # entries below 1e-150 are set to 0: subnormal numbers make eigh and GEMM very slow
    K = torch.exp(-torch.cdist(x, y).square() / (2 * sigma**2))
    return torch.where(K < 1e-150, torch.zeros_like(K), K)


def rbf_nystrom_features(
    x: torch.Tensor,
    n_landmarks: int,
    *,
    bandwidth: float | None = None,
    generator: torch.Generator | None = None,
    rel_tol: float = 1e-14,
) -> torch.Tensor:
    """Nystrom features ``Phi`` (n, r) with ``Phi Phi^T ~ K`` for the Gaussian kernel.

    ``K_jk = exp(-|x_j - x_k|^2 / (2 sigma^2))``, ``sigma`` the median heuristic by default.

    Landmarks are ``n_landmarks`` rows drawn without replacement (all rows when
    ``n_landmarks >= n``, which makes ``Phi Phi^T`` the exact Gram matrix). Eigen-directions of
    the landmark Gram below ``rel_tol`` times its largest eigenvalue are dropped, so ``r`` is
    the numerical rank (small for a one-dimensional residual).
    """
    x = checks.tensor("x", x, ndim=2, floating=True)
    checks.finite("x", x)
    m = checks.integer("n_landmarks", n_landmarks, low=1)
    rel_tol = checks.real("rel_tol", rel_tol, low=0.0)
    sigma = median_bandwidth(x) if bandwidth is None else checks.real("bandwidth", bandwidth)
    if sigma <= 0:
        raise ValueError(f"bandwidth must be > 0, got {sigma}")
    n = x.shape[0]
    if m >= n:
        land = x
    else:
        land = x[torch.randperm(n, generator=generator)[:m]]
    K_mm = _rbf(land, land, sigma)
    lam, U = torch.linalg.eigh(K_mm)
    keep = lam > rel_tol * lam.max()
    K_nm = _rbf(x, land, sigma)
    return K_nm @ (U[:, keep] / lam[keep].sqrt())


def hsic_from_features(phi_x: torch.Tensor, phi_y: torch.Tensor) -> float:
    """Biased HSIC ``(1/n^2) tr(K H L H)`` with ``K = Phi_x Phi_x^T``, ``L = Phi_y Phi_y^T``.

    Equal to ``|| Phi_xc^T Phi_yc ||_F^2 / n^2`` for column-centred features.
    """
    phi_x = checks.tensor("phi_x", phi_x, ndim=2, floating=True)
    phi_y = checks.tensor("phi_y", phi_y, ndim=2, floating=True)
    checks.shape("phi_y", phi_y, (phi_x.shape[0], None))
    n = phi_x.shape[0]
    cx, cy = phi_x - phi_x.mean(0), phi_y - phi_y.mean(0)
    return float((cx.T @ cy).square().sum() / n**2)


def _centre(phi: torch.Tensor, zero: float = 1e-12) -> torch.Tensor:
    # centred features; entries below `zero` are rounding (a constant residual) and set to 0
    c = phi - phi.mean(0)
    return torch.where(c.abs() < zero, torch.zeros_like(c), c)


@dataclass(frozen=True)
class HSICTest:
    """Result of a permutation HSIC test: statistic, p-value and the permutation statistics."""

    statistic: float
    p_value: float
    null: torch.Tensor


def permutation_hsic(
    e_x: torch.Tensor,
    e_y: torch.Tensor,
    episode_length: int,
    *,
    n_permutations: int = 200,
    n_landmarks: int = 256,
    generator: torch.Generator | None = None,
    chunk: int = 25,
    permutations: torch.Tensor | None = None,
) -> HSICTest:
    """Episode-level permutation test of ``e_x`` independent of ``e_y`` by RBF-HSIC (Nystrom).

    Rows are ``n_episodes * episode_length`` steps, episode-major. The null distribution
    re-pairs *whole episodes* of ``e_y`` with episodes of ``e_x`` (keeping time order inside an
    episode), ``n_permutations`` at a time in batches of ``chunk`` matrix products, so the
    strong within-episode dependence of returns does not inflate the type-I error. The p-value
    is ``(1 + #{HSIC_b >= HSIC}) / (1 + B)``. ``permutations`` (B, n_episodes), if given,
    replaces the random episode permutations (to reproduce another implementation).
    Implements the test of :prf:ref:`critic-def-residual`, chapter 03.
    """
    e_x = checks.tensor("e_x", e_x, floating=True)
    e_y = checks.tensor("e_y", e_y, floating=True)
    e_x = e_x[:, None] if e_x.ndim == 1 else e_x
    e_y = e_y[:, None] if e_y.ndim == 1 else e_y
    checks.shape("e_x", e_x, (None, None))
    checks.shape("e_y", e_y, (e_x.shape[0], None))
    L = checks.integer("episode_length", episode_length, low=1)
    n = e_x.shape[0]
    if n % L:
        raise ValueError(f"episode_length={L} must divide the number of rows {n}")
    B = checks.integer("n_permutations", n_permutations, low=1)
    chunk = checks.integer("chunk", chunk, low=1)
    E = n // L
    if E < 2:
        raise ValueError("e_x must hold at least two episodes")
    fx = rbf_nystrom_features(e_x, n_landmarks, generator=generator)
    fy = rbf_nystrom_features(e_y, n_landmarks, generator=generator)
    fx, fy = _centre(fx), _centre(fy)
    stat = float((fx.T @ fy).square().sum() / n**2)
    if permutations is None:
        perms = torch.stack([torch.randperm(E, generator=generator) for _ in range(B)])
    else:
        perms = checks.tensor("permutations", permutations, ndim=2)
        checks.shape("permutations", perms, (B, E))
        if not (perms.sort(1).values == torch.arange(E)).all():
            raise ValueError("permutations must hold one permutation of the episodes per row")
    # sum_e X_e^T Y_perm(e) = sum_e X_inv(e)^T Y_e: gather the side of smaller numerical rank
    if fx.shape[1] <= fy.shape[1]:
        small, big, index = fx, fy, perms.argsort(1)
    else:
        small, big, index = fy, fx, perms
    small_ep, r = small.view(E, L, -1), small.shape[1]
    big_t = big.T.contiguous()  # (r_big, n)
    null = torch.empty(B, dtype=fx.dtype)
    for start in range(0, B, chunk):
        p = index[start : start + chunk]
        b = p.shape[0]
        # (n, b * r_small): the gathered episodes of every permutation side by side, one GEMM
        s_p = small_ep[p].reshape(b, n, r).permute(1, 0, 2).reshape(n, b * r)
        null[start : start + chunk] = (big_t @ s_p).view(-1, b, r).square().sum((0, 2)) / n**2
    p_value = (1 + int((null >= stat).sum())) / (1 + B)
    return HSICTest(stat, p_value, null)


# --------------------------------------------------------------------------------------------
# Prediction-gain test
# --------------------------------------------------------------------------------------------


def _lstsq_predict(X_tr: torch.Tensor, y_tr: torch.Tensor, X_te: torch.Tensor) -> torch.Tensor:
    # minimum-norm least squares via SVD: a redundant column changes no prediction
    U, S, Vh = torch.linalg.svd(X_tr, full_matrices=False)
    keep = S > S.max() * 1e-10
    w = Vh[keep].T @ ((U[:, keep].T @ y_tr) / S[keep])
    return X_te @ w


def prediction_gains(
    X_sym: torch.Tensor,
    X_inf: torch.Tensor,
    G: torch.Tensor,
    *,
    n_folds: int = 5,
    generator: torch.Generator | None = None,
) -> torch.Tensor:
    """Per-episode gain ``L^tau = mean_t[(Qs - G)^2 - (Qi - G)^2]`` of cross-fitted linear critics.

    ``X_sym`` (E, L, d) features of ``(h_t, a_t)``, ``X_inf`` (E, L, d') features of
    ``(h_t, i_t, a_t)``, ``G`` (E, L) Monte-Carlo returns. Episodes are split into ``n_folds``
    folds; each fold's critics are least-squares fits on the others. Returns (E,) gains;
    implements :prf:ref:`critic-def-gain`, chapter 03.
    """
    X_sym = checks.tensor("X_sym", X_sym, ndim=3, floating=True)
    X_inf = checks.tensor("X_inf", X_inf, ndim=3, floating=True)
    G = checks.tensor("G", G, ndim=2, floating=True)
    E, L, _ = X_sym.shape
    checks.shape("X_inf", X_inf, (E, L, None))
    checks.shape("G", G, (E, L))
    k = checks.integer("n_folds", n_folds, low=2, high=E)
    fold = torch.randperm(E, generator=generator) % k
    gains = torch.empty(E, dtype=G.dtype)
    for f in range(k):
        tr, te = fold != f, fold == f
        y = G[tr].reshape(-1)
        qs = _lstsq_predict(X_sym[tr].reshape(-1, X_sym.shape[-1]), y, X_sym[te])
        qi = _lstsq_predict(X_inf[tr].reshape(-1, X_inf.shape[-1]), y, X_inf[te])
        gains[te] = ((qs - G[te]).square() - (qi - G[te]).square()).mean(1)
    return gains


def gain_ttest(
    gains: torch.Tensor, epsilon: float = 0.0, *, zero: float = 1e-10
) -> tuple[float, float]:
    """One-sided t-test of ``H0: E[L] <= epsilon``: returns ``(t, p)``.

    Gains within ``zero`` of 0 are rounding (a signal that changes no prediction): if all gains
    are, the test returns ``(0, 1)``.
    """
    gains = checks.tensor("gains", gains, ndim=1, floating=True)
    if gains.shape[0] < 2:
        raise ValueError("gains must hold at least two episodes")
    checks.finite("gains", gains)
    eps = checks.real("epsilon", epsilon)
    zero = checks.real("zero", zero, low=0.0)
    g = torch.where(gains.abs() <= zero, torch.zeros_like(gains), gains)
    sd = float(g.std())
    if sd == 0.0:
        return (0.0, 1.0) if float(g.mean()) <= eps else (math.inf, 0.0)
    from scipy.stats import t as student_t

    n = g.shape[0]
    t_stat = (float(g.mean()) - eps) / (sd / math.sqrt(n))
    return t_stat, float(student_t.sf(t_stat, n - 1))
