"""Hidden Markov chains with finite contexts, and the spectral estimator (chapter 02).

The finite-context variant of :mod:`icml26.sequential.hmm`, batched over runs in the same way:
:func:`simulate_categorical` draws states and symbols, :func:`categorical_loglik` gives the
emission log-probabilities that :func:`~icml26.sequential.hmm.forward_filter` takes,
:func:`baum_welch_categorical` fits ``(pi, P, B)`` by EM, and the spectral (method-of-moments)
estimator :func:`spectral_moments` / :func:`spectral_from_moments` / :func:`spectral_hmm`
(:prf:ref:`hmm-bandits-alg-spectral`) recovers them from the first three moments.
"""

from __future__ import annotations

import torch

from icml26 import checks
from icml26.sequential.hmm import _batched, _check_chain, forward_backward, simulate

__all__ = [
    "baum_welch_categorical",
    "categorical_loglik",
    "simulate_categorical",
    "spectral_from_moments",
    "spectral_hmm",
    "spectral_moments",
]


def _check_emission_matrix(B: torch.Tensor, n: int) -> int:
    if not isinstance(B, torch.Tensor) or B.ndim not in (2, 3) or B.shape[-2] != n:
        raise ValueError(f"B must have shape (N, d) or (R, N, d) with N={n}")
    checks.probability_vector("B", B)
    return B.shape[-1]


def _check_obs(obs: torch.Tensor, n_symbols: int | None = None) -> None:
    if not isinstance(obs, torch.Tensor) or obs.ndim != 2 or obs.dtype != torch.long:
        raise ValueError("obs must be an int64 tensor of shape (R, T)")
    if obs.numel() and int(obs.min()) < 0:
        raise ValueError("obs must hold symbols >= 0")
    if n_symbols is not None and obs.numel() and int(obs.max()) >= n_symbols:
        raise ValueError(f"obs must hold symbols < n_symbols={n_symbols}")


def simulate_categorical(
    P: torch.Tensor,
    pi: torch.Tensor,
    B: torch.Tensor,
    runs: int,
    steps: int,
    *,
    generator: torch.Generator | None = None,
) -> tuple[torch.Tensor, torch.Tensor]:
    """States ``S`` (R, T) and finite contexts ``obs`` (R, T), ``P(X_t = x | S_t = s) = B[s, x]``.

    The finite-context setting of :prf:ref:`hmm-bandits-alg-spectral` (chapter 02). ``B`` (N, d) is
    the emission matrix (rows are probability vectors), shared by all runs.
    """
    n = _check_chain(P, pi)
    if B.ndim != 2:
        raise ValueError("B must have shape (N, d)")
    _check_emission_matrix(B, n)
    r = checks.integer("runs", runs, low=1)
    t_max = checks.integer("steps", steps, low=1)
    dummy_mu = torch.zeros(n, 1, dtype=P.dtype, device=P.device)
    states, _ = simulate(P, pi, dummy_mu, torch.ones_like(dummy_mu), r, t_max, generator=generator)
    u = torch.rand(r, t_max, 1, generator=generator, dtype=P.dtype, device="cpu").to(P.device)
    cum_b = B.cumsum(-1).clone()
    cum_b[..., -1] = 1.0 + 1e-12
    obs = (u >= cum_b[states]).sum(-1)
    return states, obs


def categorical_loglik(obs: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
    """``log B[s, X_t]`` for every state, (R, T, N).

    The emission term of :eq:`hmm-bandits-eq-filter`.

    ``B`` is (N, d) or per run (R, N, d); zero entries give ``-inf``-like ``log 1e-300``.
    """
    n = B.shape[-2] if isinstance(B, torch.Tensor) and B.ndim in (2, 3) else -1
    if n < 1:
        raise ValueError("B must have shape (N, d) or (R, N, d)")
    d = _check_emission_matrix(B, n)
    _check_obs(obs, d)
    log_b = B.clamp_min(1e-300).log()
    if log_b.ndim == 2:
        return log_b.T[obs]  # (R, T, N)
    idx = obs.unsqueeze(1).expand(-1, n, -1)  # (R, N, T)
    return torch.gather(log_b, 2, idx).transpose(1, 2)


def baum_welch_categorical(
    obs: torch.Tensor,
    P0: torch.Tensor,
    pi0: torch.Tensor,
    B0: torch.Tensor,
    *,
    n_iter: int = 20,
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    """Baum–Welch (EM) for a categorical HMM, one model per run (chapter 02).

    Returns per-run ``(P, pi, B)`` and the log-likelihood trace (R, n_iter) of the parameters
    entering each iteration (non-decreasing). Maximum-likelihood M-step, as hmmlearn's
    ``CategoricalHMM`` without priors.
    """
    n = _check_chain(P0, pi0)
    d = _check_emission_matrix(B0, n)
    _check_obs(obs, d)
    k = checks.integer("n_iter", n_iter, low=1)
    r = obs.shape[0]
    P = _batched(P0, r, 2).clone()
    pi = _batched(pi0, r, 1).clone()
    B = _batched(B0, r, 2).clone()
    one = torch.nn.functional.one_hot(obs, d).to(P.dtype)  # (R, T, d)
    trace = torch.empty(r, k, dtype=P.dtype, device=P.device)
    for it in range(k):
        gamma, xi, ll = forward_backward(categorical_loglik(obs, B), P, pi)
        trace[:, it] = ll
        pi = gamma[:, 0]
        P = xi / xi.sum(-1, keepdim=True)
        B = gamma.transpose(1, 2) @ one
        B = B / B.sum(-1, keepdim=True)
    return P, pi, B, trace


def spectral_moments(
    obs: torch.Tensor, n_symbols: int
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Empirical moments of three consecutive contexts, per run (:eq:`hmm-bandits-eq-moments`).

    Returns ``P12`` (R, d, d) with ``P12[x, y] ≈ P(X_t = x, X_{t+1} = y)``, ``P13``
    (R, d, d) with ``P13[x, z] ≈ P(X_{t-1} = x, X_{t+1} = z)`` and ``P132`` (R, d, d, d) with
    ``P132[x, z, y] ≈ P(X_{t-1} = x, X_{t+1} = z, X_t = y)``, averaged over the sequence.
    """
    d = checks.integer("n_symbols", n_symbols, low=1)
    _check_obs(obs, d)
    if obs.shape[1] < 3:
        raise ValueError("obs must have at least 3 steps")
    r, t_max = obs.shape
    run = torch.arange(r, device=obs.device).unsqueeze(-1)

    def counts(idx: torch.Tensor, k: int) -> torch.Tensor:
        """Histogram of the flat indices ``idx`` (R, ·) in ``d^k`` bins per run (bincount)."""
        flat = (idx + run * d**k).reshape(-1)
        return torch.bincount(flat, minlength=r * d**k).to(torch.float64).view(r, *([d] * k))

    prev, mid, nxt = obs[:, :-2], obs[:, 1:-1], obs[:, 2:]
    p12 = counts(obs[:, :-1] * d + obs[:, 1:], 2) / (t_max - 1)
    p13 = counts(prev * d + nxt, 2) / (t_max - 2)
    p132 = counts((prev * d + nxt) * d + mid, 3) / (t_max - 2)  # index order (x, z, y)
    return p12, p13, p132


def spectral_from_moments(
    p12: torch.Tensor,
    p13: torch.Tensor,
    p132: torch.Tensor,
    n_states: int,
    *,
    eta: torch.Tensor | None = None,
    floor: float = 1e-4,
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Method-of-moments HMM parameters ``(P, pi, B)`` from :func:`spectral_moments`.

    Implements :prf:ref:`hmm-bandits-alg-spectral` (chapter 02), in the style of Anandkumar, Hsu and
    Kakade (2012). With ``U1, U3`` the top-``N`` singular vectors of ``P13``, the matrices
    ``M(y) = (U1^T P132[:, :, y] U3) (U1^T P13 U3)^{-1}`` share the eigenvectors
    ``U1^T M1`` and have eigenvalues ``B[:, y]``; one eigen-decomposition of a random
    combination ``sum_y eta_y M(y)`` diagonalises all of them. Then the joint law of
    ``(S_t, S_{t+1})`` is ``J = B^{+T} P12 B^{+}`` (pseudo-inverse of ``B^T``), ``P`` its
    row-normalisation and ``pi`` its row sums (the stationary law). Entries are floored at
    ``floor`` and renormalised, so that the estimates are valid HMM parameters.
    """
    n = checks.integer("n_states", n_states, low=1)
    if not isinstance(p13, torch.Tensor) or p13.ndim != 3 or p13.shape[-1] != p13.shape[-2]:
        raise ValueError("p13 must have shape (R, d, d)")
    r, d, _ = p13.shape
    if n > d:
        raise ValueError(f"n_states={n} must not exceed the number of symbols d={d}")
    checks.shape("p12", p12, (r, d, d))
    checks.shape("p132", p132, (r, d, d, d))
    fl = checks.real("floor", floor, low=0.0, high=0.1)
    if eta is None:
        eta = torch.randn(d, generator=torch.Generator().manual_seed(0), dtype=p13.dtype)
    checks.shape("eta", eta, (d,))
    u, _, vh = torch.linalg.svd(p13)
    u1, u3 = u[..., :n], vh[..., :n, :].transpose(-1, -2)  # (R, d, N)
    u1t = u1.transpose(-1, -2)
    denom_inv = torch.linalg.inv(u1t @ p13 @ u3)  # (R, N, N)
    m_y = torch.einsum("rax,rxzy,rzb->ryab", u1t, p132, u3) @ denom_inv.unsqueeze(1)
    mix = torch.einsum("y,ryab->rab", eta.to(device=p13.device, dtype=p13.dtype), m_y)
    _, vec = torch.linalg.eig(mix)  # complex when sampling noise pairs two eigenvalues
    vinv = torch.linalg.inv(vec)
    m_c = m_y.to(vec.dtype)
    diag = torch.diagonal(vinv.unsqueeze(1) @ m_c @ vec.unsqueeze(1), dim1=-2, dim2=-1).real
    B = diag.transpose(1, 2).clamp_min(fl)  # (R, N, d): B[s, y]
    B = B / B.sum(-1, keepdim=True)
    bt_pinv = torch.linalg.pinv(B.transpose(1, 2))  # (R, N, d)
    joint = (bt_pinv @ p12 @ bt_pinv.transpose(1, 2)).clamp_min(fl * fl)
    P = joint / joint.sum(-1, keepdim=True)
    P = P.clamp_min(fl)
    P = P / P.sum(-1, keepdim=True)
    pi = joint.sum(-1)
    pi = pi / pi.sum(-1, keepdim=True)
    return P, pi, B


def spectral_hmm(
    obs: torch.Tensor, n_states: int, n_symbols: int, *, floor: float = 1e-4
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Spectral (method-of-moments) estimate ``(P, pi, B)`` per run from contexts (R, T).

    :func:`spectral_moments` then :func:`spectral_from_moments`; no iterations, no
    initialisation, consistent when ``B`` has full row rank ``N`` and ``P`` is invertible
    (:prf:ref:`hmm-bandits-alg-spectral`, chapter 02).
    """
    return spectral_from_moments(*spectral_moments(obs, n_symbols), n_states, floor=floor)
