"""Linear contextual bandits on hidden-Markov contexts, batched over runs (chapter 02).

The learner of every algorithm in chapter 02 is the same batched LinUCB / OFUL core
(:func:`run_linucb`); the algorithms differ only in the feature map fed to it and in how
often the reward-model parameters are refreshed:

- :func:`block_features` — ``phi(z, a) = e_a ⊗ z`` (one parameter block per action);
- :func:`belief_features` — :eq:`hmm-bandits-eq-simplified`, ``z_t = b_t`` (the simplified model);
- :func:`context_features` — ``z_t = (X_t, 1)``, the context-only baseline;
- :func:`natural_features` — :eq:`hmm-bandits-eq-natural`, ``z_t = b_t ⊗ (X_t, 1)``, the natural
  model;
- :func:`oful_radius` — the confidence radius of Abbasi-Yadkori et al. (2011), Thm. 2;
- :func:`run_linucb` — OFUL with a Sherman–Morrison-updated inverse, batched over runs, with
  a per-run update period (1: every step; ``L``: the periodic-update algorithm);
- :func:`oracle_actions`, :func:`regret`, :func:`loglog_slope` — benchmark and accounting.
"""

from __future__ import annotations

import functools
import math

import torch

from icml26 import checks, stats

__all__ = [
    "belief_features",
    "block_features",
    "context_features",
    "epoch_refresh",
    "loglog_slope",
    "natural_features",
    "oful_radius",
    "oracle_actions",
    "regret",
    "ridge_estimates",
    "run_linucb",
]


# ----------------------------------------------------------------------------- features
def block_features(z: torch.Tensor, n_actions: int) -> torch.Tensor:
    """``phi(z, a) = e_a ⊗ z``: (..., m) -> (..., K, K*m); :eq:`hmm-bandits-eq-simplified`."""
    k = checks.integer("n_actions", n_actions, low=1)
    if not isinstance(z, torch.Tensor) or z.ndim < 1:
        raise ValueError("z must be a tensor with a feature axis")
    checks.finite("z", z)
    eye = torch.eye(k, dtype=z.dtype, device=z.device)
    out = eye.view(*([1] * (z.ndim - 1)), k, k, 1) * z.unsqueeze(-2).unsqueeze(-2)
    return out.reshape(*z.shape[:-1], k, k * z.shape[-1])


def belief_features(beliefs: torch.Tensor) -> torch.Tensor:
    """Simplified-model features ``z_t = b_t`` (identity; validated to lie in the simplex)."""
    checks.probability_vector("beliefs", beliefs)
    return beliefs


def context_features(x: torch.Tensor) -> torch.Tensor:
    """Context-only features ``z_t = (X_t, 1)`` (the baseline that ignores the chain).

    Batched over the leading axes of ``x``; the last is the context's.
    """
    checks.tensor("x", x, floating=True)
    checks.finite("x", x)
    return torch.cat([x, torch.ones_like(x[..., :1])], -1)


def natural_features(beliefs: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
    """Natural-model features ``z_t = b_t ⊗ (X_t, 1) = E[psi(S_t, X_t) | X_{1:t}]``.

    The features of :eq:`hmm-bandits-eq-natural`.
    """
    checks.probability_vector("beliefs", beliefs)
    checks.tensor("x", x, floating=True)
    if beliefs.shape[:-1] != x.shape[:-1]:
        raise ValueError(f"beliefs {tuple(beliefs.shape)} and x {tuple(x.shape)} must match")
    c = context_features(x)
    return (beliefs.unsqueeze(-1) * c.unsqueeze(-2)).flatten(-2)


# ----------------------------------------------------------------------------- OFUL
def _per_run(name: str, value: float | torch.Tensor, r: int, like: torch.Tensor) -> torch.Tensor:
    """A non-negative scalar or (R,) tensor as an (R,) tensor on the device of ``like``."""
    if isinstance(value, torch.Tensor):
        if value.ndim == 0:
            value = value.expand(r)
        checks.shape(name, value, (r,))
        checks.finite(name, value)
        if (value < 0).any():
            raise ValueError(f"{name} must be non-negative")
        return value.to(like.device, like.dtype)
    v = checks.real(name, value, low=0.0)
    return torch.full((r,), v, dtype=like.dtype, device=like.device)


def oful_radius(
    logdet_ratio: torch.Tensor,
    *,
    sigma: float | torch.Tensor,
    lam: float,
    bound: float | torch.Tensor,
    delta: float,
) -> torch.Tensor:
    """Thm. 2 of Abbasi-Yadkori, Pál & Szepesvári (2011): the radius ``beta_t`` of the ellipsoid.

    ``beta_t = sigma * sqrt(log det(V_t)/det(lam I) + 2 log(1/delta)) + sqrt(lam) * bound``,
    with ``logdet_ratio = log det V_t - d log lam`` (tracked by the matrix determinant lemma).
    ``sigma`` and ``bound`` are scalars or tensors broadcastable against ``logdet_ratio``
    (elementwise, any shape).
    """
    checks.tensor("logdet_ratio", logdet_ratio, floating=True)
    checks.finite("logdet_ratio", logdet_ratio)
    for name, v in (("sigma", sigma), ("bound", bound)):
        if isinstance(v, torch.Tensor):
            checks.finite(name, v)
        else:
            checks.real(name, v, low=0.0)
    return _oful_radius(logdet_ratio, sigma=sigma, lam=lam, bound=bound, delta=delta)


def _oful_radius(
    logdet_ratio: torch.Tensor,
    *,
    sigma: float | torch.Tensor,
    lam: float,
    bound: float | torch.Tensor,
    delta: float,
) -> torch.Tensor:
    """:func:`oful_radius` without the tensor checks (the per-step kernel of run_linucb)."""
    la = checks.real("lam", lam, low=0.0, strict=True)
    de = checks.real("delta", delta, low=0.0, high=1.0, strict=True)
    return sigma * (logdet_ratio + 2.0 * math.log(1.0 / de)).sqrt() + math.sqrt(la) * bound


def run_linucb(
    z: torch.Tensor,
    rewards: torch.Tensor,
    n_actions: int,
    *,
    sigma: float | torch.Tensor,
    bound: float | torch.Tensor,
    lam: float = 1.0,
    delta: float = 0.05,
    period: int | torch.Tensor = 1,
    forced: torch.Tensor | None = None,
    refresh: torch.Tensor | None = None,
) -> torch.Tensor:
    """OFUL / LinUCB on block features ``e_a ⊗ z_t``, batched over runs; returns actions (R, T).

    ``z`` (R, T, m) are the per-step features; ``rewards`` (R, T, K) the reward each action
    *would* pay (the learner only sees the chosen one). Each step: UCB
    ``<theta_hat, phi> + beta_t |phi|_{V^-1}`` (:func:`oful_radius`), pick the argmax, update
    ``V^{-1}`` by Sherman–Morrison, ``log det V`` by the determinant lemma. ``period`` is how
    often the *acting* parameters ``(theta_hat, V^{-1}, beta)`` are refreshed from the running
    statistics: 1 is plain OFUL, ``L > 1`` :prf:ref:`hmm-bandits-alg-periodic`.
    ``sigma`` (noise level), ``bound`` (``S >= |theta|``) and ``period`` may be scalars or (R,)
    tensors, so that different learners run in one batch. ``forced`` (R, T) with entries
    ``>= 0`` overrides the choice (warm-up rounds; statistics are still updated), ``-1`` lets
    OFUL choose. ``refresh`` (T,) or (R, T) bool, when given, replaces ``period``: the acting
    parameters are refreshed after step ``t`` where ``refresh[..., t]`` is true (growing
    epochs, e.g. :func:`epoch_refresh`).
    """
    if not isinstance(z, torch.Tensor) or z.ndim != 3:
        raise ValueError("z must be a tensor of shape (R, T, m)")
    r, t_max, m = z.shape
    checks.integer("T", t_max, low=1)
    k = checks.integer("n_actions", n_actions, low=1)
    checks.shape("rewards", rewards, (r, t_max, k))
    checks.finite("z", z)
    checks.finite("rewards", rewards)
    sig = _per_run("sigma", sigma, r, z)
    bnd = _per_run("bound", bound, r, z)
    _oful_radius(torch.zeros(()), sigma=1.0, lam=lam, bound=1.0, delta=delta)  # validates
    dev, dt = z.device, z.dtype
    refresh_all, any_refresh, per_int = _refresh_schedule(period, refresh, r, t_max, dev)
    if forced is not None:
        checks.shape("forced", forced, (r, t_max))
        if (forced >= k).any() or (forced < -1).any():
            raise ValueError(f"forced must hold -1 or an action in [0, {k})")
    # With phi(z, a) = e_a ⊗ z the Gram matrix V is block diagonal, V = diag(V_1, ..., V_K):
    # we keep the K blocks (m x m) instead of the d x d matrix (d = K m). Same algorithm.
    vinv = (torch.eye(m, dtype=dt, device=dev) / lam).expand(r, k, m, m).clone()
    bvec = torch.zeros(r, k, m, dtype=dt, device=dev)
    theta = torch.zeros(r, k, m, dtype=dt, device=dev)
    logdet = torch.zeros(r, dtype=dt, device=dev)  # log det V_t - d log lam
    radius = functools.partial(_oful_radius, sigma=sig, lam=lam, bound=bnd, delta=delta)
    acting = (theta.clone(), vinv.clone(), radius(logdet))  # (theta_hat, V^-1, beta)
    actions = torch.empty(r, t_max, dtype=torch.long, device=dev)
    rows = torch.arange(r, device=dev)
    for t in range(t_max):
        x = z[:, t]  # (R, m)
        a = _ucb_argmax(*acting, x)
        if forced is not None:
            a = torch.where(forced[:, t] >= 0, forced[:, t], a)
        actions[:, t] = a
        logdet = logdet + _observe(vinv, bvec, theta, rows, a, x, rewards[rows, t, a])
        if per_int is not None:
            if (t + 1) % per_int == 0:  # refresh the acting parameters (every step if per == 1)
                acting = (
                    theta if per_int == 1 else theta.clone(),
                    vinv if per_int == 1 else vinv.clone(),
                    radius(logdet),
                )
        elif any_refresh[t]:
            acting = _refresh_where(refresh_all[t], acting, theta, vinv, radius(logdet))
    return actions


def _observe(
    vinv: torch.Tensor,
    bvec: torch.Tensor,
    theta: torch.Tensor,
    rows: torch.Tensor,
    a: torch.Tensor,
    x: torch.Tensor,
    reward: torch.Tensor,
) -> torch.Tensor:
    """One observation ``(x, reward)`` of action ``a`` (R,): Sherman–Morrison on the chosen
    block of ``vinv`` (R, K, m, m), and its ``bvec`` and ``theta`` (R, K, m), all in place;
    returns ``log(1 + |x|²_{V_a^-1})`` (R,), the determinant lemma's increment of
    ``log det V``."""
    va = vinv[rows, a]  # (R, m, m)
    u = torch.bmm(va, x.unsqueeze(-1)).squeeze(-1)
    q = (x * u).sum(-1)
    va = va - u.unsqueeze(-1) * u.unsqueeze(-2) / (1.0 + q).view(-1, 1, 1)
    vinv[rows, a] = va
    ba = bvec[rows, a] + reward.unsqueeze(-1) * x
    bvec[rows, a] = ba
    theta[rows, a] = torch.bmm(va, ba.unsqueeze(-1)).squeeze(-1)
    return torch.log1p(q)


def _refresh_where(
    rf: torch.Tensor,
    acting: tuple[torch.Tensor, torch.Tensor, torch.Tensor],
    theta: torch.Tensor,
    vinv: torch.Tensor,
    beta: torch.Tensor,
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """The acting ``(theta_hat, V^-1, beta)``, refreshed from the running statistics in the
    runs where ``rf`` (R,) is true."""
    act_theta, act_vinv, act_beta = acting
    r = rf.shape[0]
    return (
        torch.where(rf.view(r, 1, 1), theta, act_theta),
        torch.where(rf.view(r, 1, 1, 1), vinv, act_vinv),
        torch.where(rf, beta, act_beta),
    )


def _ucb_argmax(
    theta: torch.Tensor, vinv: torch.Tensor, beta: torch.Tensor, x: torch.Tensor
) -> torch.Tensor:
    """The action of largest upper confidence bound ``<theta_a, x> + beta |x|_{V_a^-1}``
    (R,), from the acting parameters ``theta`` (R, K, m), ``vinv`` (R, K, m, m)."""
    r, k, m = theta.shape
    mean = torch.bmm(theta, x.unsqueeze(-1)).squeeze(-1)  # (R, K)
    xk = x.unsqueeze(1).expand(r, k, m)
    quad = torch.bmm(vinv.view(r * k, m, m), xk.reshape(r * k, m, 1)).view(r, k, m)
    width = (quad * xk).sum(-1).clamp_min(0).sqrt()
    return (mean + beta.unsqueeze(-1) * width).argmax(-1)


def _refresh_schedule(
    period: int | torch.Tensor,
    refresh: torch.Tensor | None,
    r: int,
    t_max: int,
    dev: torch.device,
) -> tuple[torch.Tensor, list[bool], int | None]:
    """When each run refreshes its acting parameters: the mask ``(T, R)`` (after step t),
    whether any run refreshes at each step (host-side), and the common period when every
    run shares one (``None`` when periods differ or ``refresh`` is given)."""
    if isinstance(period, torch.Tensor):
        checks.shape("period", period, (r,))
        per = period.to("cpu", torch.long)
        if (per < 1).any():
            raise ValueError("period must be >= 1")
        uniform = bool((per == per[0]).all())
        per_int = int(per[0])
    else:
        per_int, uniform = checks.integer("period", period, low=1), True
        per = torch.full((r,), per_int, dtype=torch.long)
    # host-side schedule, built once: which runs refresh after step t
    refresh_all = (torch.arange(1, t_max + 1).unsqueeze(1) % per.unsqueeze(0) == 0).to(dev)
    if refresh is not None:
        if not isinstance(refresh, torch.Tensor) or refresh.dtype != torch.bool:
            raise ValueError("refresh must be a bool tensor of shape (T,) or (R, T)")
        if refresh.shape not in ((t_max,), (r, t_max)):
            raise ValueError(f"refresh must have shape ({t_max},) or ({r}, {t_max})")
        refresh_all = refresh.to(dev).expand(r, t_max).T.contiguous()
        uniform = False
    any_refresh = refresh_all.any(1).tolist()  # skip the steps where no run refreshes
    return refresh_all, any_refresh, per_int if uniform else None


def epoch_refresh(t_max: int, first: int, *, growth: float = 2.0) -> torch.Tensor:
    """Refresh mask (T,) for growing epochs: ends ``first, first*g, first*g^2, ... < T``.

    The schedule of :prf:ref:`hmm-bandits-alg-periodic` with epochs that grow geometrically (ratio
    ``growth``), as an algorithm that does not know the horizon uses them (chapter 02). Entry
    ``t`` is true when the acting parameters are refreshed after step ``t`` (0-based), i.e.
    before round ``t + 2`` in 1-based time.
    """
    t_max = checks.integer("t_max", t_max, low=1)
    first = checks.integer("first", first, low=1)
    g = checks.real("growth", growth, low=1.0, strict=True)
    mask = torch.zeros(t_max, dtype=torch.bool)
    end = float(first)
    while round(end) <= t_max:
        mask[round(end) - 1] = True
        end *= g
    return mask


def ridge_estimates(
    z: torch.Tensor, rewards: torch.Tensor, actions: torch.Tensor, *, lam: float = 1.0
) -> torch.Tensor:
    """Per-action ridge estimates ``theta_hat_a`` (R, K, m) from the played rounds.

    ``theta_hat_a = (lam I + sum_{A_t = a} z_t z_t^T)^{-1} sum_{A_t = a} r_t z_t``: the
    estimate :func:`run_linucb` holds after the last step (chapter 02, the bias of
    :prf:ref:`hmm-bandits-alg-periodic`).
    """
    if not isinstance(z, torch.Tensor) or z.ndim != 3:
        raise ValueError("z must be a tensor of shape (R, T, m)")
    r, t_max, m = z.shape
    checks.shape("actions", actions, (r, t_max))
    k = rewards.shape[-1] if isinstance(rewards, torch.Tensor) else 0
    checks.shape("rewards", rewards, (r, t_max, k))
    lam = checks.real("lam", lam, low=0.0, strict=True)
    checks.finite("z", z)
    checks.finite("rewards", rewards)
    one = torch.nn.functional.one_hot(actions, k).to(z.dtype)  # (R, T, K)
    got = rewards.gather(-1, actions.unsqueeze(-1)).squeeze(-1)  # (R, T)
    gram = torch.einsum("rtk,rti,rtj->rkij", one, z, z)
    gram = gram + lam * torch.eye(m, dtype=z.dtype, device=z.device)
    rhs = torch.einsum("rtk,rt,rti->rki", one, got, z)
    return torch.linalg.solve(gram, rhs.unsqueeze(-1)).squeeze(-1)


# ----------------------------------------------------------------------------- accounting
def _mean_rewards(mean_rewards: object) -> None:
    mu = checks.tensor("mean_rewards", mean_rewards, floating=True)
    if mu.ndim != 3:
        raise ValueError("mean_rewards must have shape (R, T, K)")
    checks.finite("mean_rewards", mu)


def oracle_actions(mean_rewards: torch.Tensor) -> torch.Tensor:
    """The benchmark policy ``argmax_a mu_t(a)`` (R, T) for mean rewards ``mu`` (R, T, K)."""
    _mean_rewards(mean_rewards)
    return mean_rewards.argmax(-1)


def regret(mean_rewards: torch.Tensor, actions: torch.Tensor) -> torch.Tensor:
    """Cumulative regret ``R_t = sum_{s<=t} max_a mu_s(a) - mu_s(A_s)``, (R, T).

    The pseudo-regret of :eq:`hmm-bandits-eq-regret`.
    """
    _mean_rewards(mean_rewards)
    checks.shape("actions", actions, mean_rewards.shape[:2])
    chosen = torch.gather(mean_rewards, -1, actions.unsqueeze(-1)).squeeze(-1)
    return (mean_rewards.amax(-1) - chosen).cumsum(-1)


def loglog_slope(cum_regret: torch.Tensor, t_min: int, t_max: int | None = None) -> float:
    """Least-squares slope of ``log mean_runs R_t`` against ``log t`` on ``t_min <= t <= t_max``.

    Points are log-spaced (50 of them) so that every decade weighs the same.
    """
    checks.tensor("cum_regret", cum_regret, ndim=2)
    checks.finite("cum_regret", cum_regret)
    n_steps = cum_regret.shape[1]
    t_hi = n_steps if t_max is None else checks.integer("t_max", t_max, low=2, high=n_steps)
    t_lo = checks.integer("t_min", t_min, low=1, high=t_hi - 1)
    mean = cum_regret.mean(0).to(torch.float64).cpu()
    ts = torch.unique(torch.logspace(math.log10(t_lo), math.log10(t_hi), 50).round().long())
    return stats.loglog_fit(ts, mean[ts - 1].clamp_min(1e-300))[0]
