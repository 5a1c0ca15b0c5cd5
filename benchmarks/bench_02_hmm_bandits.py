"""Chapter 02: the batched HMM simulator + forward filter, and OFUL, against per-run loops.

Inputs are built once here; the registered callables only compute.
"""

from __future__ import annotations

import numpy as np
import torch
from hmmlearn.hmm import CategoricalHMM, GaussianHMM

from benchmarks.registry import register, register_scaling
from icml26.pipeline.notebooks import notebook_functions
from icml26.sequential import bandits, categorical, hmm
from icml26.stats import one_thread

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
# The chapter's readable reference (Eq. (2), one run, one step at a time), from the notebook.
_refs = notebook_functions(
    "02-hmm-bandits", "reference_filter", "reference_oful", "reference_spectral"
)
reference_filter, reference_oful = _refs["reference_filter"], _refs["reference_oful"]
reference_spectral = _refs["reference_spectral"]


@one_thread
def batched_simulate_and_filter():
    g = torch.Generator().manual_seed(1)
    _, x = hmm.simulate(P, PI, MU, VAR, RUNS, STEPS, generator=g)
    return hmm.forward_filter(hmm.gaussian_loglik(x, MU, VAR), P, PI)


def per_run_simulate_and_filter():
    """The notebook's readable reference: one run at a time, one step at a time (numpy)."""
    cum_p, cum_pi = P_NP.cumsum(1), PI_NP.cumsum()
    out = []
    for r in range(RUNS):
        states = [int(np.searchsorted(cum_pi, U_NP[r, 0]))]
        for t in range(1, STEPS):
            states.append(int(np.searchsorted(cum_p[states[-1]], U_NP[r, t])))
        x = MU_NP[states] + np.sqrt(VAR_NP[states]) * Z_NP[r]
        out.append(reference_filter(x, P_NP, PI_NP, MU_NP, VAR_NP)[1])
    return out


@one_thread
def batched_filter():
    return hmm.forward_filter(hmm.gaussian_loglik(X, MU, VAR), P, PI)


def per_run_filter():
    return [reference_filter(X_NP[r], P_NP, PI_NP, MU_NP, VAR_NP)[1] for r in range(RUNS)]


REF = GaussianHMM(n_components=N, covariance_type="diag", init_params="")
REF.startprob_, REF.transmat_, REF.means_, REF.covars_ = PI_NP, P_NP, MU_NP, VAR_NP


def hmmlearn_filter():
    """hmmlearn's compiled forward pass, one run at a time (score + posteriors)."""
    return [(REF.score(X_NP[r]), REF.predict_proba(X_NP[r])[-1]) for r in range(RUNS)]


register(
    name=f"HMM simulate + forward filter, {RUNS} runs x {STEPS} steps",
    kernel=batched_simulate_and_filter,
    reference=per_run_simulate_and_filter,
)
register(
    name=f"HMM forward filter (log-likelihood + beliefs), {RUNS} runs x {STEPS} steps",
    kernel=batched_filter,
    reference=per_run_filter,
    library=hmmlearn_filter,
    library_name="hmmlearn GaussianHMM (score + predict_proba, per run)",
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
    """The notebook's readable OFUL: one run at a time, the full design matrix inverted."""
    return [
        reference_oful(BELIEFS[r], REWARDS[r], K, sigma=0.7, bound=3**0.5) for r in range(B_RUNS)
    ]


register(
    name=f"belief OFUL (Sherman-Morrison), {B_RUNS} runs x {B_STEPS} steps",
    kernel=batched_oful,
    reference=per_run_oful,
)


# Finite contexts: the spectral (method-of-moments) estimator and categorical Baum–Welch.
B_CAT = torch.tensor([[0.6, 0.2, 0.1, 0.1], [0.1, 0.6, 0.2, 0.1], [0.1, 0.1, 0.2, 0.6]], dtype=DT)
P_CAT = torch.full((N, N), 0.05, dtype=DT).fill_diagonal_(0.9)
S_RUNS, S_STEPS, D = 128, 2_000, 4
_, OBS = categorical.simulate_categorical(
    P_CAT, PI, B_CAT, S_RUNS, S_STEPS, generator=torch.Generator().manual_seed(3)
)
OBS_NP = OBS.numpy()
ETA = torch.randn(D, generator=torch.Generator().manual_seed(0), dtype=DT).numpy()


@one_thread
def batched_spectral():
    return categorical.spectral_hmm(OBS, N, D)


def per_run_spectral():
    """The notebook's readable spectral estimator, one sequence at a time (numpy)."""
    return [reference_spectral(OBS_NP[r], N, D, ETA) for r in range(S_RUNS)]


register(
    name=f"spectral HMM estimator, {S_RUNS} runs x {S_STEPS} contexts",
    kernel=batched_spectral,
    reference=per_run_spectral,
)

BW_RUNS, BW_STEPS, BW_ITERS = 128, 400, 10
B0_CAT = torch.full((N, D), 0.25, dtype=DT) + 0.05 * torch.tensor(
    [[1, -1, 0, 0], [0, 1, -1, 0], [0, 0, -1, 1]], dtype=DT
)
P0_CAT = torch.full((N, N), 0.15, dtype=DT).fill_diagonal_(0.7)


@one_thread
def batched_categorical_bw():
    return categorical.baum_welch_categorical(
        OBS[:BW_RUNS, :BW_STEPS], P0_CAT, PI, B0_CAT, n_iter=BW_ITERS
    )


def hmmlearn_categorical_bw():
    """hmmlearn's compiled Baum–Welch, one sequence at a time, same start and iterations."""
    out = []
    for r in range(BW_RUNS):
        m = CategoricalHMM(
            n_components=N, n_features=D, init_params="", n_iter=BW_ITERS, tol=-np.inf
        )
        m.startprob_, m.transmat_, m.emissionprob_ = PI_NP, P0_CAT.numpy(), B0_CAT.numpy()
        out.append(m.fit(OBS_NP[r, :BW_STEPS, None]).transmat_)
    return out


register(
    name=f"categorical Baum-Welch, {BW_RUNS} runs x {BW_STEPS} contexts x {BW_ITERS} iterations",
    kernel=batched_categorical_bw,
    library=hmmlearn_categorical_bw,
    library_name="hmmlearn CategoricalHMM.fit (per run)",
)


def _filter_at(runs: int):
    _, x = hmm.simulate(P, PI, MU, VAR, runs, STEPS, generator=torch.Generator().manual_seed(1))
    log_obs = hmm.gaussian_loglik(x, MU, VAR)
    return one_thread(lambda: hmm.forward_filter(log_obs, P, PI))


register_scaling(
    f"forward filter, {STEPS} steps",
    make=_filter_at,
    sizes=(4, 16, 64, 256, 1024),
    size_label="runs",
)
