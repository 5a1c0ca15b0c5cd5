"""Chapter 02: the batched HMM simulator + forward filter, and OFUL, against per-run loops.

Inputs are built once here; the registered callables only compute.
"""

from __future__ import annotations

import numpy as np
import torch
from hmmlearn.hmm import GaussianHMM

from benchmarks.registry import register
from icml26 import bandits, hmm

DT = torch.float64
RUNS, STEPS = 128, 400
N = 3
P = torch.full((N, N), 0.01, dtype=DT).fill_diagonal_(0.98)
PI = torch.full((N,), 1 / N, dtype=DT)
ANG = torch.tensor([90.0, -30.0, 210.0], dtype=DT).deg2rad()
MU = torch.stack([ANG.cos(), ANG.sin()], -1)
VAR = torch.full((N, 2), 2.25, dtype=DT)
_, X = hmm.simulate(P, PI, MU, VAR, RUNS, STEPS, generator=torch.Generator().manual_seed(0))
X_NP = X.numpy()
P_NP, PI_NP, MU_NP, VAR_NP = (a.numpy() for a in (P, PI, MU, VAR))
RNG = np.random.default_rng(0)
U_NP = RNG.random((RUNS, STEPS))
Z_NP = RNG.standard_normal((RUNS, STEPS, 2))


def one_thread(fn):
    """Run ``fn`` on one intra-op thread (tiny per-step tensors), restoring the setting after."""

    def wrapped():
        n = torch.get_num_threads()
        torch.set_num_threads(1)
        try:
            return fn()
        finally:
            torch.set_num_threads(n)

    wrapped.__name__ = fn.__name__
    return wrapped


@one_thread
def batched_simulate_and_filter():
    g = torch.Generator().manual_seed(1)
    _, x = hmm.simulate(P, PI, MU, VAR, RUNS, STEPS, generator=g)
    return hmm.forward_filter(hmm.gaussian_loglik(x, MU, VAR), P, PI)


def per_run_simulate_and_filter():
    """The notebook's readable reference: one run at a time, one step at a time (numpy)."""
    out = []
    cum_p, cum_pi = P_NP.cumsum(1), PI_NP.cumsum()
    for r in range(RUNS):
        s = int(np.searchsorted(cum_pi, U_NP[r, 0]))
        b, loglik = PI_NP, 0.0
        for t in range(STEPS):
            if t > 0:
                s = int(np.searchsorted(cum_p[s], U_NP[r, t]))
            x = MU_NP[s] + np.sqrt(VAR_NP[s]) * Z_NP[r, t]
            log_g = -0.5 * (((x - MU_NP) ** 2 / VAR_NP).sum(1) + np.log(2 * np.pi * VAR_NP).sum(1))
            a = (b if t == 0 else P_NP.T @ b) * np.exp(log_g - log_g.max())
            loglik += np.log(a.sum()) + log_g.max()
            b = a / a.sum()
        out.append(loglik)
    return out


@one_thread
def batched_filter():
    return hmm.forward_filter(hmm.gaussian_loglik(X, MU, VAR), P, PI)


def per_run_filter():
    out = []
    for r in range(RUNS):
        b, loglik = PI_NP, 0.0
        for t in range(STEPS):
            x = X_NP[r, t]
            log_g = -0.5 * (((x - MU_NP) ** 2 / VAR_NP).sum(1) + np.log(2 * np.pi * VAR_NP).sum(1))
            a = (b if t == 0 else P_NP.T @ b) * np.exp(log_g - log_g.max())
            loglik += np.log(a.sum()) + log_g.max()
            b = a / a.sum()
        out.append(loglik)
    return out


REF = GaussianHMM(n_components=N, covariance_type="diag", init_params="")
REF.startprob_, REF.transmat_, REF.means_, REF.covars_ = PI_NP, P_NP, MU_NP, VAR_NP


def hmmlearn_filter():
    """hmmlearn's compiled forward pass, one run at a time (score + posteriors)."""
    return [(REF.score(X_NP[r]), REF.predict_proba(X_NP[r])[-1]) for r in range(RUNS)]


register(
    chapter="02",
    name=f"HMM simulate + forward filter, {RUNS} runs x {STEPS} steps",
    kernel=batched_simulate_and_filter,
    reference=per_run_simulate_and_filter,
    repeats=3,
)
register(
    chapter="02",
    name=f"HMM forward filter (log-likelihood + beliefs), {RUNS} runs x {STEPS} steps",
    kernel=batched_filter,
    reference=per_run_filter,
    library=hmmlearn_filter,
    library_name="hmmlearn GaussianHMM (score + predict_proba, per run)",
    repeats=3,
)

B_RUNS, B_STEPS, K = 32, 200, 3
BELIEFS, _ = hmm.forward_filter(hmm.gaussian_loglik(X[:B_RUNS, :B_STEPS], MU, VAR), P, PI)
REWARDS = BELIEFS + 0.7 * torch.randn(
    B_RUNS, B_STEPS, K, generator=torch.Generator().manual_seed(2), dtype=DT
)


@one_thread
def batched_oful():
    return bandits.run_linucb(BELIEFS, REWARDS, K, sigma=0.7, bound=3**0.5)


@one_thread
def per_run_oful():
    """OFUL one run at a time, with the same Sherman–Morrison kernel on a batch of one."""
    return [
        bandits.run_linucb(BELIEFS[r : r + 1], REWARDS[r : r + 1], K, sigma=0.7, bound=3**0.5)
        for r in range(B_RUNS)
    ]


register(
    chapter="02",
    name=f"belief OFUL (Sherman-Morrison), {B_RUNS} runs x {B_STEPS} steps",
    kernel=batched_oful,
    reference=per_run_oful,
    repeats=3,
)
