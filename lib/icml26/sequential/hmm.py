"""Hidden Markov chains with Gaussian contexts, batched over runs (chapter 02).

Every kernel works on a leading batch axis of ``R`` independent runs and a time axis of
``T`` steps, on any torch device, in the dtype of its inputs (float64 in the chapter):

- :func:`simulate` draws states ``S`` (R, T) and contexts ``X`` (R, T, p) from the chain
  ``S_1 ~ pi``, ``S_{t+1} | S_t ~ P[S_t]``, ``X_t | S_t = s ~ N(mu_s, diag(var_s))``;
- :func:`gaussian_loglik` gives the emission log-densities ``log g_s(X_t)``
  (:eq:`hmm-bandits-eq-emission`);
- :func:`forward_filter` runs the filtering recursion of :eq:`hmm-bandits-eq-filter`,
  ``b_t ∝ diag(g(X_t)) P^T b_{t-1}``, in normalised or in log space, and returns the beliefs
  and the log-likelihood ``log p(X_{1:T})``;
- :func:`baum_welch` fits ``(pi, P, mu, var)`` by EM (forward-backward), one model per run;
- :func:`align_states` finds the state permutation that matches estimated to true means;
- :func:`doubling_epochs` and :func:`epoch_beliefs` re-estimate the HMM at the start of each
  epoch of a doubling schedule (warm-started Baum–Welch on all contexts so far) and filter
  each epoch with the newest estimate: the beliefs of the re-estimating learner of chapter 02;
- :func:`hilbert_distance`, :func:`tv_distance`, :func:`birkhoff_coefficient`,
  :func:`dobrushin_coefficient`, :func:`second_eigenvalue_modulus` and
  :func:`fit_contraction_rate` measure filter forgetting (:prf:ref:`hmm-bandits-thm-forgetting`).

Finite (categorical) contexts and the spectral estimator are in
:mod:`icml26.sequential.categorical`.

Parameters may be shared by all runs (``P`` of shape (N, N), ...) or given per run
(``P`` of shape (R, N, N), ...), as :func:`baum_welch` returns them.
"""

from __future__ import annotations

import itertools
import math

import torch

from icml26 import checks

__all__ = [
    "LOG_2PI",
    "align_states",
    "baum_welch",
    "birkhoff_coefficient",
    "dobrushin_coefficient",
    "doubling_epochs",
    "epoch_beliefs",
    "fit_contraction_rate",
    "forward_backward",
    "forward_filter",
    "gaussian_loglik",
    "hilbert_distance",
    "kmeans_init",
    "permute_hmm",
    "second_eigenvalue_modulus",
    "simulate",
    "tv_distance",
]

LOG_2PI = math.log(2.0 * math.pi)


# ----------------------------------------------------------------------------- validation
def _check_chain(P: torch.Tensor, pi: torch.Tensor) -> int:
    if not isinstance(P, torch.Tensor) or not isinstance(pi, torch.Tensor):
        raise ValueError("P and pi must be torch tensors")
    checks.stochastic_matrix("P", P)
    checks.probability_vector("pi", pi)
    n = P.shape[-1]
    if pi.shape[-1] != n:
        raise ValueError(f"pi must have {n} entries (the number of states of P), got {pi.shape}")
    return n


def _check_emission(means: torch.Tensor, var: torch.Tensor, n: int) -> int:
    if not isinstance(means, torch.Tensor) or not isinstance(var, torch.Tensor):
        raise ValueError("means and var must be torch tensors")
    if means.ndim not in (2, 3) or means.shape[-2] != n:
        raise ValueError(f"means must have shape (N, p) or (R, N, p) with N={n}, got {means.shape}")
    if var.ndim not in (2, 3) or var.shape[-2:] != means.shape[-2:]:
        raise ValueError(f"var must have shape (N, p) or (R, N, p) like means, got {var.shape}")
    checks.finite("means", means)
    checks.finite("var", var)
    if (var <= 0).any():
        raise ValueError("var must be strictly positive")
    return means.shape[-1]


def _batched(x: torch.Tensor, r: int, ndim: int) -> torch.Tensor:
    """Expand a shared parameter to a per-run one (leading axis R)."""
    if x.ndim == ndim:
        return x.unsqueeze(0).expand(r, *x.shape)
    if x.shape[0] != r:
        raise ValueError(f"per-run parameters must have leading size R={r}, got {x.shape[0]}")
    return x


# ----------------------------------------------------------------------------- simulation
def simulate(
    P: torch.Tensor,
    pi: torch.Tensor,
    means: torch.Tensor,
    var: torch.Tensor,
    runs: int,
    steps: int,
    *,
    generator: torch.Generator | None = None,
) -> tuple[torch.Tensor, torch.Tensor]:
    """Draw ``runs`` independent state paths and Gaussian contexts of length ``steps``.

    Returns ``S`` (R, T) int64 and ``X`` (R, T, p) in the dtype of ``means``. The state path
    is drawn by inverse-CDF sampling from pre-drawn uniforms (one batched gather and compare
    per step); the contexts are then drawn in one vectorised operation.
    """
    n = _check_chain(P, pi)
    _check_emission(means, var, n)
    r = checks.integer("runs", runs, low=1)
    t_max = checks.integer("steps", steps, low=1)
    dev, dt = P.device, P.dtype
    u = torch.rand(r, t_max, generator=generator, dtype=dt, device="cpu").to(dev)
    z = torch.randn(r, t_max, means.shape[-1], generator=generator, dtype=dt, device="cpu")
    z = z.to(dev)
    cum_p = _batched(P.cumsum(-1), r, 2).clone()  # (R, N, N)
    cum_p[..., -1] = 1.0 + 1e-12  # guard against rounding at the top of each row
    cum_pi = _batched(pi.cumsum(-1), r, 1).clone()
    cum_pi[..., -1] = 1.0 + 1e-12
    states = torch.empty(r, t_max, dtype=torch.long, device=dev)
    s = (u[:, :1] >= cum_pi).sum(-1)
    states[:, 0] = s
    rows = torch.arange(r, device=dev)
    for t in range(1, t_max):
        s = (u[:, t : t + 1] >= cum_p[rows, s]).sum(-1)
        states[:, t] = s
    mu = _batched(means, r, 2)
    sd = _batched(var, r, 2).sqrt()
    idx = states.unsqueeze(-1).expand(-1, -1, means.shape[-1])
    x = torch.gather(mu, 1, idx) + torch.gather(sd, 1, idx) * z
    return states, x


def gaussian_loglik(x: torch.Tensor, means: torch.Tensor, var: torch.Tensor) -> torch.Tensor:
    """``log N(x_t; mu_s, diag(var_s))`` for every state, (R, T, N).

    Implements :eq:`hmm-bandits-eq-emission`.
    """
    if not isinstance(x, torch.Tensor) or x.ndim != 3:
        raise ValueError(f"x must be a tensor of shape (R, T, p), got {getattr(x, 'shape', x)}")
    n = means.shape[-2] if isinstance(means, torch.Tensor) and means.ndim >= 2 else -1
    p = _check_emission(means, var, n)
    checks.finite("x", x)
    if x.shape[-1] != p:
        raise ValueError(f"x must have p={p} features in its last axis, got {x.shape[-1]}")
    r = x.shape[0]
    mu = _batched(means, r, 2).unsqueeze(1)  # (R, 1, N, p)
    v = _batched(var, r, 2).unsqueeze(1)
    d = x.unsqueeze(2) - mu  # (R, T, N, p)
    return -0.5 * ((d * d / v).sum(-1) + v.log().sum(-1) + p * LOG_2PI)


# ----------------------------------------------------------------------------- filtering
def forward_filter(
    log_obs: torch.Tensor,
    P: torch.Tensor,
    pi: torch.Tensor,
    *,
    log_space: bool = False,
) -> tuple[torch.Tensor, torch.Tensor]:
    """Beliefs ``b_t = P(S_t | X_{1:t})`` (R, T, N) and ``log p(X_{1:T})``.

    Implements :eq:`hmm-bandits-eq-filter`.

    ``log_obs`` (R, T, N) holds ``log g_s(X_t)`` (any emission model). ``P`` is (N, N) or
    (R, N, N), ``pi`` (N,) or (R, N). The normalised recursion rescales each step by its
    largest emission likelihood; ``log_space=True`` propagates log-beliefs with ``logsumexp``.
    Both give the same result to rounding.
    """
    if not isinstance(log_obs, torch.Tensor) or log_obs.ndim != 3:
        raise ValueError("log_obs must be a tensor of shape (R, T, N)")
    if bool((log_obs.isnan() | (log_obs == math.inf)).any()):
        raise ValueError("log_obs must not hold NaN or +inf (-inf, a zero likelihood, is allowed)")
    n = _check_chain(P, pi)
    r, t_max, n_obs = log_obs.shape
    if n_obs != n:
        raise ValueError(f"log_obs must have N={n} states in its last axis, got {n_obs}")
    checks.integer("T", t_max, low=1)
    Pb = _batched(P, r, 2)
    pib = _batched(pi, r, 1)
    beliefs = torch.empty_like(log_obs)
    if log_space:
        log_p = Pb.log()
        la = pib.log() + log_obs[:, 0]
        for t in range(t_max):
            if t > 0:
                la = torch.logsumexp(la.unsqueeze(-1) + log_p, dim=1) + log_obs[:, t]
            beliefs[:, t] = la
        loglik = torch.logsumexp(la, dim=-1)
        beliefs = (beliefs - torch.logsumexp(beliefs, dim=-1, keepdim=True)).exp()
        return beliefs, loglik
    shift = log_obs.amax(-1, keepdim=True)
    g = (log_obs - shift).exp()
    loglik = shift.squeeze(-1).sum(-1)
    b = pib
    logc = torch.zeros(r, t_max, dtype=log_obs.dtype, device=log_obs.device)
    for t in range(t_max):
        pred = b if t == 0 else torch.bmm(b.unsqueeze(1), Pb).squeeze(1)
        a = pred * g[:, t]
        c = a.sum(-1, keepdim=True)
        b = a / c
        beliefs[:, t] = b
        logc[:, t] = c.squeeze(-1)
    return beliefs, loglik + logc.log().sum(-1)


def forward_backward(
    log_obs: torch.Tensor, P: torch.Tensor, pi: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Smoothed marginals ``gamma`` (R, T, N), summed pair marginals ``xi`` (R, N, N), loglik.

    The E-step of Baum–Welch (chapter 02, Implementation), in the forward-filter /
    backward-smoother form: ``P(S_t=i | S_{t+1}=j, X_{1:T}) = b_t(i) P_ij / (b_t^T P)_j``, so
    ``gamma_t = b_t * (P @ (gamma_{t+1} / pred_{t+1}))`` and
    ``xi = P * sum_t b_t^T (gamma_{t+1} / pred_{t+1})`` (one batched product after the loop).
    """
    filt, loglik = forward_filter(log_obs, P, pi)
    r, t_max = log_obs.shape[:2]
    Pb = _batched(P, r, 2)
    pred = torch.bmm(filt[:, :-1], Pb)  # pred[:, t] = P(S_{t+2} | X_{1:t+1}), (R, T-1, N)
    ratio = torch.zeros_like(filt)  # ratio[:, t] = gamma_t / pred_t for t >= 1
    gamma = torch.empty_like(filt)
    gamma[:, -1] = filt[:, -1]
    for t in range(t_max - 2, -1, -1):
        rt = gamma[:, t + 1] / pred[:, t].clamp_min(1e-300)
        ratio[:, t + 1] = rt
        gamma[:, t] = filt[:, t] * torch.bmm(Pb, rt.unsqueeze(-1)).squeeze(-1)
    xi = Pb * torch.bmm(filt[:, :-1].transpose(1, 2), ratio[:, 1:])
    return gamma, xi, loglik


# ----------------------------------------------------------------------------- Baum–Welch
def kmeans_init(x: torch.Tensor, n_states: int, *, iters: int = 10) -> torch.Tensor:
    """Batched Lloyd iterations started from evenly spaced quantiles of the first coordinate.

    A deterministic initialisation of the Gaussian means for :func:`baum_welch`, (R, N, p).
    """
    checks.tensor("x", x, ndim=3, floating=True)
    t_max, p = x.shape[1:]
    n = checks.integer("n_states", n_states, low=1, high=t_max)
    checks.integer("iters", iters, low=0)
    order = x[..., 0].argsort(dim=1)
    pos = ((torch.arange(n, device=x.device) + 0.5) * t_max / n).long()
    idx = order[:, pos]  # (R, N)
    mu = torch.gather(x, 1, idx.unsqueeze(-1).expand(-1, -1, p))
    for _ in range(iters):
        lab = torch.cdist(x, mu).argmin(-1)  # (R, T)
        one = torch.nn.functional.one_hot(lab, n).to(x.dtype)  # (R, T, N)
        cnt = one.sum(1).unsqueeze(-1)
        mu = torch.where(cnt > 0, one.transpose(1, 2) @ x / cnt.clamp_min(1.0), mu)
    return mu


def baum_welch(
    x: torch.Tensor,
    P0: torch.Tensor,
    pi0: torch.Tensor,
    means0: torch.Tensor,
    var0: torch.Tensor,
    *,
    n_iter: int = 20,
    var_floor: float = 0.0,
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    """Baum–Welch (EM) for a Gaussian (diagonal) HMM, one model per run (chapter 02).

    Starts from ``(P0, pi0, means0, var0)`` (shared or per run), runs ``n_iter`` E/M steps
    and returns per-run ``(P, pi, means, var)`` and the log-likelihood trace (R, n_iter) of
    the parameters *entering* each iteration (non-decreasing, the EM property). The M-step is
    the maximum-likelihood one (no priors); ``var_floor`` floors the variances.
    """
    if not isinstance(x, torch.Tensor) or x.ndim != 3:
        raise ValueError("x must be a tensor of shape (R, T, p)")
    n = _check_chain(P0, pi0)
    p = _check_emission(means0, var0, n)
    if x.shape[-1] != p:
        raise ValueError(f"x must have p={p} features, got {x.shape[-1]}")
    k = checks.integer("n_iter", n_iter, low=1)
    floor = checks.real("var_floor", var_floor, low=0.0)
    r = x.shape[0]
    P = _batched(P0, r, 2).clone()
    pi = _batched(pi0, r, 1).clone()
    mu = _batched(means0, r, 2).clone()
    v = _batched(var0, r, 2).clone()
    trace = torch.empty(r, k, dtype=x.dtype, device=x.device)
    for it in range(k):
        gamma, xi, ll = forward_backward(gaussian_loglik(x, mu, v), P, pi)
        trace[:, it] = ll
        pi = gamma[:, 0]
        P = xi / xi.sum(-1, keepdim=True)
        w = gamma.sum(1).unsqueeze(-1)  # (R, N, 1)
        mu = gamma.transpose(1, 2) @ x / w
        ex2 = gamma.transpose(1, 2) @ (x * x) / w
        v = (ex2 - mu * mu).clamp_min(floor if floor > 0 else 1e-12)
    return P, pi, mu, v, trace


def align_states(est_means: torch.Tensor, true_means: torch.Tensor) -> torch.Tensor:
    """The permutation ``perm`` (R, N) minimising ``sum_s |est[perm[s]] - true[s]|^2`` per run.

    Brute force over the ``N!`` permutations (the chapter uses N ≤ 5). Apply it with
    :func:`permute_hmm`.
    """
    if est_means.ndim == 2:
        est_means = est_means.unsqueeze(0)
    n = est_means.shape[-2]
    checks.integer("number of states", n, low=1, high=7)
    true = _batched(true_means, est_means.shape[0], 2)
    perms = torch.tensor(list(itertools.permutations(range(n))), device=est_means.device)
    cost = torch.stack([((est_means[:, q] - true) ** 2).sum((-1, -2)) for q in perms], -1)
    return perms[cost.argmin(-1)]


def permute_hmm(
    perm: torch.Tensor, P: torch.Tensor, pi: torch.Tensor, means: torch.Tensor, var: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    """Relabel per-run parameters so that new state ``s`` is old state ``perm[:, s]``."""
    rows = torch.arange(perm.shape[0], device=perm.device).unsqueeze(-1)
    P2 = P[rows.unsqueeze(-1), perm.unsqueeze(-1), perm.unsqueeze(1)]
    return P2, pi[rows, perm], means[rows, perm], var[rows, perm]


# ----------------------------------------------------------------------------- re-estimation
def doubling_epochs(t_first: int, t_max: int) -> list[int]:
    """Epoch starts ``t_first, 2 t_first, 4 t_first, ... < t_max`` (a doubling schedule)."""
    t0 = checks.integer("t_first", t_first, low=1)
    t1 = checks.integer("t_max", t_max, low=t0 + 1)
    starts = [t0]
    while 2 * starts[-1] < t1:
        starts.append(2 * starts[-1])
    return starts


def epoch_beliefs(
    x: torch.Tensor,
    starts: list[int],
    P0: torch.Tensor,
    pi0: torch.Tensor,
    means0: torch.Tensor,
    var0: torch.Tensor,
    *,
    n_iter_first: int = 10,
    n_iter: int = 3,
    var_floor: float = 0.0,
) -> tuple[torch.Tensor, list[tuple[torch.Tensor, ...]]]:
    """Beliefs (R, T, N) of a learner that re-estimates the HMM at each epoch start (chapter 02).

    ``starts = [t_1 < t_2 < ...]`` (0-based round indices, e.g. :func:`doubling_epochs`). At
    ``t_k`` Baum–Welch is run on all contexts seen so far, ``x[:, :t_k]`` (contexts do not
    depend on the actions, so the estimate does not depend on the policy): the first fit from
    ``(P0, pi0, means0, var0)`` with ``n_iter_first`` iterations (``0``: take them as the first
    estimate, already fitted on ``x[:, :t_1]``), every later one warm-started
    from the previous estimate with ``n_iter`` iterations. Each new estimate is relabelled to
    match the previous one (:func:`align_states` on the means), so that belief coordinates keep
    their meaning for the learner. Rounds ``t < t_1`` get the beliefs of the first estimate
    (computed retroactively at ``t_1``, as for a warm-up); on ``[t_k, t_{k+1})`` the filter
    *continues* from ``b_hat_{t_k - 1}`` with the new parameters (its first prediction is
    ``b_hat_{t_k - 1}^T P_hat_k``) instead of re-running over the past: by filter forgetting the
    two differ only for a few rounds, and the total cost is one pass over ``T``.
    Round ``t`` only uses contexts up to ``t`` (causal). Returns the beliefs and the list of
    per-run estimates ``(P, pi, means, var)`` of every epoch.
    """
    if not isinstance(x, torch.Tensor) or x.ndim != 3:
        raise ValueError("x must be a tensor of shape (R, T, p)")
    t_max = x.shape[1]
    if not isinstance(starts, (list, tuple)) or len(starts) == 0:
        raise ValueError("starts must be a non-empty list of epoch starts")
    st = [checks.integer("starts", s, low=1, high=t_max - 1) for s in starts]
    if any(b <= a for a, b in itertools.pairwise(st)):
        raise ValueError(f"starts must be strictly increasing, got {list(starts)}")
    k_first = checks.integer("n_iter_first", n_iter_first, low=0)
    k_next = checks.integer("n_iter", n_iter, low=1)
    r = x.shape[0]
    params: tuple[torch.Tensor, ...]
    if k_first == 0:
        n = _check_chain(P0, pi0)
        _check_emission(means0, var0, n)
        params = (_batched(P0, r, 2), _batched(pi0, r, 1), _batched(means0, r, 2))
        params = (*params, _batched(var0, r, 2))
    else:
        fit = baum_welch(x[:, : st[0]], P0, pi0, means0, var0, n_iter=k_first, var_floor=var_floor)
        params = fit[:4]
    ends = [*st[1:], t_max]
    b, _ = forward_filter(gaussian_loglik(x[:, : ends[0]], params[2], params[3]), *params[:2])
    pieces = [b]
    fits: list[tuple[torch.Tensor, ...]] = [params]
    new: tuple[torch.Tensor, ...]
    for t_k, t_next in zip(st[1:], ends[1:], strict=True):
        P, pi, mu, v = params[:4]
        new = baum_welch(x[:, :t_k], P, pi, mu, v, n_iter=k_next, var_floor=var_floor)[:4]
        new = permute_hmm(align_states(new[2], params[2]), *new)
        P, _, mu, v = new
        pred = torch.bmm(pieces[-1][:, -1:], P).squeeze(1)  # b_hat_{t_k - 1}^T P_hat_k
        pred = pred / pred.sum(-1, keepdim=True)
        b, _ = forward_filter(gaussian_loglik(x[:, t_k:t_next], mu, v), P, pred)
        pieces.append(b)
        fits.append(new)
        params = new
    return torch.cat(pieces, 1), fits


# ----------------------------------------------------------------------------- forgetting
def tv_distance(p: torch.Tensor, q: torch.Tensor) -> torch.Tensor:
    """Total-variation distance ``0.5 * sum |p - q|`` along the last axis.

    ``p`` and ``q`` are finite floating tensors of one shape (each a distribution, or a batch
    of them along the leading axes).
    """
    checks.tensor("p", p, floating=True)
    checks.tensor("q", q, floating=True)
    if p.shape != q.shape or p.ndim == 0 or p.shape[-1] == 0:
        raise ValueError(f"p and q must have one non-empty shape, got {p.shape}, {q.shape}")
    checks.finite("p", p)
    checks.finite("q", q)
    return 0.5 * (p - q).abs().sum(-1)


def hilbert_distance(p: torch.Tensor, q: torch.Tensor) -> torch.Tensor:
    """Hilbert projective distance ``log max_i (p_i/q_i) - log min_i (p_i/q_i)`` (chapter 02)."""
    checks.tensor("p", p, floating=True)
    checks.tensor("q", q, floating=True)
    if p.shape[-1] != q.shape[-1] or p.shape[-1] == 0:
        raise ValueError(
            f"p and q must have the same non-empty last axis, got {p.shape}, {q.shape}"
        )
    for name, v in (("p", p), ("q", q)):
        if not (torch.isfinite(v).all() and (v > 0).all()):
            raise ValueError(f"{name} must have strictly positive finite entries")
    lr = p.log() - q.log()
    return lr.amax(-1) - lr.amin(-1)


def birkhoff_coefficient(P: torch.Tensor) -> float:
    """Birkhoff's coefficient ``tanh(Delta(P)/4)`` of a positive matrix.

    The contraction rate of :prf:ref:`hmm-bandits-thm-forgetting`.

    ``Delta(P) = max_{i,j,k,l} log(P_ik P_jl / (P_jk P_il))``; requires every entry > 0.
    """
    checks.stochastic_matrix("P", P)
    if (P <= 0).any():
        raise ValueError("P must have strictly positive entries for a finite Birkhoff coefficient")
    lp = P.log()
    # log P_ik + log P_jl - log P_jk - log P_il over all i, j, k, l
    d = lp[:, None, :, None] + lp[None, :, None, :] - lp[None, :, :, None] - lp[:, None, None, :]
    return math.tanh(float(d.max()) / 4.0)


def dobrushin_coefficient(P: torch.Tensor) -> float:
    """Dobrushin's ergodicity coefficient ``0.5 * max_{i,j} |P_i. - P_j.|_1`` (TV contraction)."""
    checks.stochastic_matrix("P", P)
    return float(0.5 * (P[:, None, :] - P[None, :, :]).abs().sum(-1).max())


def second_eigenvalue_modulus(P: torch.Tensor) -> float:
    """``|lambda_2(P)|``: the asymptotic mixing rate of the chain alone (no observations)."""
    checks.stochastic_matrix("P", P)
    ev = torch.linalg.eigvals(P.to(torch.float64)).abs().sort(descending=True).values
    return float(ev[1]) if ev.numel() > 1 else 0.0


def fit_contraction_rate(dist: torch.Tensor, t_min: int = 1, t_max: int | None = None) -> float:
    """Geometric rate ``rho`` from a least-squares fit of ``mean_runs log dist_t ≈ c + t log rho``.

    ``dist`` is (R, T) (e.g. Hilbert distances between two filters); steps ``t_min..t_max-1``.
    """
    checks.tensor("dist", dist, ndim=2, floating=True)
    t_hi = dist.shape[1] if t_max is None else checks.integer("t_max", t_max, low=2)
    t_lo = checks.integer("t_min", t_min, low=0, high=t_hi - 2)
    y = dist[:, t_lo:t_hi].clamp_min(1e-300).log().mean(0).to(torch.float64)
    t = torch.arange(t_lo, t_hi, dtype=torch.float64, device=y.device)
    tc = t - t.mean()
    slope = float((tc * (y - y.mean())).sum() / (tc * tc).sum())
    return math.exp(slope)
