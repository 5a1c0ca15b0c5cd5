"""Is a privileged signal worth giving to the critic? The paper's two tests (chapter 03).

Both run on episodes of a fixed policy (even uniformly random) before any training:

- the **residual test** (:prf:ref:`informed-critic-def-residual`): cross-fitted random-forest
  residuals of the return and of the signal given the history, their dependence measured by an
  RBF-HSIC with Nystrom features, and an **episode-level** permutation test, batched over
  permutations (:func:`permutation_hsic`);
- the **prediction-gain test** (:prf:ref:`informed-critic-def-gain`): the per-episode gain
  in squared error of a cross-fitted informed over a symmetric linear critic, and its
  one-sided t-test (:func:`prediction_gains`, :func:`gain_ttest`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import torch

from icml26 import checks

__all__ = [
    "HSICTest",
    "cross_fit_predict",
    "gain_ttest",
    "hsic_from_features",
    "median_bandwidth",
    "permutation_hsic",
    "prediction_gains",
    "rbf_nystrom_features",
]


def cross_fit_predict(
    X: np.ndarray,
    y: np.ndarray,
    groups: np.ndarray,
    *,
    n_folds: int = 5,
    n_trees: int = 100,
    seed: int = 0,
    min_samples_leaf: int = 1,
    max_features: float = 1.0,
    n_jobs: int = -1,
) -> np.ndarray:
    """Out-of-fold random-forest predictions of ``y`` from ``X``, folds by episode (``groups``).

    Cross-fitting keeps each prediction independent of its own target; in-sample forest
    residuals are nearly zero and would kill the power of the residual test. ``y`` may have
    several columns (one multi-output forest). ``max_features`` is the fraction of the
    columns of ``X`` tried at each split (1: all, scikit-learn's default for regression).

    The trees are grown on ``n_jobs`` threads (-1: all cores). The forest does not depend on
    it: every tree's random state is drawn before the threads start. The predictions are
    summed on one thread, since threads would add the trees up in an order, and so round
    them in a way, that depends on timing.

    The targets are rounded to single precision before the trees are grown, as scikit-learn
    does with ``X``. A tree picks the split with the best sum of targets, and features with
    few values (one-hot actions, discrete states) give splits that tie exactly in real
    arithmetic: a change in the last bit of one target, as two CPUs' arithmetic produces,
    then picks another split and moves predictions by up to a fifth of their largest value.
    """
    from sklearn.ensemble import RandomForestRegressor
    from sklearn.model_selection import GroupKFold

    X, y = checks.as_float64("X", X), checks.as_float64("y", y)
    groups = np.asarray(groups)
    column = y.ndim == 2 and y.shape[1] == 1  # one target given as a column: fit it 1-D
    if X.ndim != 2 or X.shape[0] == 0 or X.shape[1] == 0:
        raise ValueError(f"X must be a non-empty 2-D array, got shape {X.shape}")
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
    frac = checks.real("max_features", max_features, low=0.0, high=1.0, strict=False)
    if frac == 0.0:
        raise ValueError("max_features must be > 0")
    seed = checks.integer("seed", seed, low=0)
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, int) or n_jobs == 0 or n_jobs < -1:
        raise ValueError(f"n_jobs must be a positive integer or -1 (all cores), got {n_jobs!r}")
    out = np.empty_like(y)
    y_fit = y.astype(np.float32).astype(np.float64)  # see above: last bits cannot pick splits
    for fold, (tr, te) in enumerate(GroupKFold(n_splits=k).split(X, y, groups)):
        rf = RandomForestRegressor(
            n_estimators=trees,
            min_samples_leaf=leaf,
            max_features=frac,
            random_state=seed + fold,
            n_jobs=n_jobs,
        )
        rf.fit(X[tr], y_fit[tr, 0] if column else y_fit[tr])
        rf.set_params(n_jobs=1)
        out[te] = rf.predict(X[te]).reshape(out[te].shape)
    return out


def median_bandwidth(x: torch.Tensor, *, max_points: int = 1000, floor: float = 1e-6) -> float:
    """Median heuristic: the median pairwise distance of (at most ``max_points``) rows of ``x``.

    Floored at ``floor``: a residual that is zero up to rounding then gives a constant kernel
    (no dependence) instead of amplifying rounding noise.
    """
    x = checks.tensor("x", x, ndim=2, floating=True)
    if x.shape[0] < 2 or x.shape[1] == 0:
        raise ValueError(f"x must have at least two rows and one column, got {tuple(x.shape)}")
    checks.finite("x", x)
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
    if x.shape[0] < 2 or x.shape[1] == 0:
        raise ValueError(f"x must have at least two rows and one column, got {tuple(x.shape)}")
    checks.finite("x", x)
    m = checks.integer("n_landmarks", n_landmarks, low=1)
    rel_tol = checks.real("rel_tol", rel_tol, low=0.0)
    if bandwidth is None:
        sigma = median_bandwidth(x)
    else:
        sigma = checks.real("bandwidth", bandwidth, low=0.0, strict=True)
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
    if phi_x.shape[0] == 0:
        raise ValueError("phi_x must have at least one row")
    checks.shape("phi_y", phi_y, (phi_x.shape[0], None))
    checks.finite("phi_x", phi_x)
    checks.finite("phi_y", phi_y)
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


def _residuals(name: str, e: object) -> torch.Tensor:
    e = checks.tensor(name, e, floating=True)
    e = e[:, None] if e.ndim == 1 else e
    if e.ndim != 2 or e.shape[0] == 0 or e.shape[1] == 0:
        raise ValueError(f"{name} must be a non-empty (n,) or (n, d) tensor")
    checks.finite(name, e)
    return e


def _episode_permutations(
    permutations: object, B: int, E: int, generator: torch.Generator | None
) -> torch.Tensor:
    if permutations is None:
        return torch.stack([torch.randperm(E, generator=generator) for _ in range(B)])
    perms = checks.tensor("permutations", permutations, ndim=2)
    checks.shape("permutations", perms, (B, E))
    if perms.is_floating_point() or not (perms.sort(1).values == torch.arange(E)).all():
        raise ValueError("permutations must hold one permutation of the episodes per row")
    return perms


def _null_statistics(
    fx: torch.Tensor, fy: torch.Tensor, perms: torch.Tensor, L: int, chunk: int
) -> torch.Tensor:
    """``|| sum_e X_e^T Y_perm(e) ||_F^2 / n^2`` for every row ``perm`` of ``perms``."""
    B, E = perms.shape
    n = E * L
    # sum_e X_e^T Y_perm(e) = sum_e X_inv(e)^T Y_e: gather the side of smaller numerical rank
    if fx.shape[1] <= fy.shape[1]:
        small, big, index = fx, fy, perms.argsort(1)
    else:
        small, big, index = fy, fx, perms
    r = small.shape[1]
    # rows (feature k, episode e) of L contiguous steps: a gather copies whole episodes, and
    # the product below needs no transposed copy
    rows = small.T.contiguous().view(r * E, L)
    base = (torch.arange(r) * E)[:, None, None]
    null = torch.empty(B, dtype=fx.dtype)
    for start in range(0, B, chunk):
        p = index[start : start + chunk]
        b = p.shape[0]
        s_p = rows.index_select(0, (base + p[None]).reshape(-1)).view(r * b, n)
        null[start : start + b] = (s_p @ big).view(r, b, -1).square().sum((0, 2)) / n**2
    return null


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
    rel_tol: float = 1e-10,
) -> HSICTest:
    """Episode-level permutation test of ``e_x`` independent of ``e_y`` by RBF-HSIC (Nystrom).

    Rows are ``n_episodes * episode_length`` steps, episode-major. The null distribution
    re-pairs *whole episodes* of ``e_y`` with episodes of ``e_x`` (keeping time order inside an
    episode), ``chunk`` permutations per matrix product, so the strong within-episode
    dependence of returns does not inflate the type-I error. The p-value is
    ``(1 + #{HSIC_b >= HSIC}) / (1 + B)``. ``permutations`` (B, n_episodes), if given,
    replaces the random episode permutations (to reproduce another implementation);
    ``episode_length=1`` permutes single steps. ``rel_tol`` truncates the Nystrom features
    (see :func:`rbf_nystrom_features`): directions that carry less than ``1e-10`` of the
    kernel's largest eigenvalue change no p-value and cost time. Implements the test of
    :prf:ref:`informed-critic-def-residual`, chapter 03.
    """
    e_x, e_y = _residuals("e_x", e_x), _residuals("e_y", e_y)
    checks.shape("e_y", e_y, (e_x.shape[0], None))
    L = checks.integer("episode_length", episode_length, low=1)
    n = e_x.shape[0]
    if n % L:
        raise ValueError(f"episode_length={L} must divide the number of rows {n}")
    B = checks.integer("n_permutations", n_permutations, low=1)
    checks.integer("n_landmarks", n_landmarks, low=1)
    chunk = checks.integer("chunk", chunk, low=1)
    E = n // L
    if E < 2:
        raise ValueError("e_x must hold at least two episodes")
    rel_tol = checks.real("rel_tol", rel_tol, low=0.0)
    perms = _episode_permutations(permutations, B, E, generator)
    fx = rbf_nystrom_features(e_x, n_landmarks, generator=generator, rel_tol=rel_tol)
    fy = rbf_nystrom_features(e_y, n_landmarks, generator=generator, rel_tol=rel_tol)
    fx, fy = _centre(fx), _centre(fy)
    stat = float((fx.T @ fy).square().sum() / n**2)
    null = _null_statistics(fx, fy, perms, L, chunk)
    p_value = (1 + int((null >= stat).sum())) / (1 + B)
    return HSICTest(stat, p_value, null)


def _lstsq_predict(X_tr: torch.Tensor, y_tr: torch.Tensor, X_te: torch.Tensor) -> torch.Tensor:
    # minimum-norm least squares (LAPACK gelsd): a redundant column changes no prediction
    w = torch.linalg.lstsq(X_tr, y_tr[:, None], rcond=1e-10, driver="gelsd").solution
    return X_te @ w[:, 0]


def prediction_gains(
    X_sym: torch.Tensor,
    X_inf: torch.Tensor,
    G: torch.Tensor,
    *,
    n_folds: int = 5,
    generator: torch.Generator | None = None,
    in_sample: bool = False,
) -> torch.Tensor:
    """Per-episode gain ``L^tau = mean_t[(Qs - G)^2 - (Qi - G)^2]`` of cross-fitted linear critics.

    ``X_sym`` (E, L, d) features of ``(h_t, a_t)``, ``X_inf`` (E, L, d') features of
    ``(h_t, i_t, a_t)``, ``G`` (E, L) Monte-Carlo returns. Episodes are split into ``n_folds``
    folds; each fold's critics are least-squares fits on the others. Returns (E,) gains;
    implements :prf:ref:`informed-critic-def-gain`, chapter 03. ``in_sample=True`` fits and
    scores both critics on all episodes instead: the mistake the cross-fitting prevents (any
    extra column then lowers the squared error).
    """
    X_sym = checks.tensor("X_sym", X_sym, ndim=3, floating=True)
    X_inf = checks.tensor("X_inf", X_inf, ndim=3, floating=True)
    G = checks.tensor("G", G, ndim=2, floating=True)
    E, L, _ = X_sym.shape
    checks.shape("X_inf", X_inf, (E, L, None))
    checks.shape("G", G, (E, L))
    if L == 0 or X_sym.shape[-1] == 0 or X_inf.shape[-1] == 0:
        raise ValueError("X_sym, X_inf and G must have at least one step and one feature")
    for name, x in (("X_sym", X_sym), ("X_inf", X_inf), ("G", G)):
        checks.finite(name, x)
    k = checks.integer("n_folds", n_folds, low=2, high=E)
    if not isinstance(in_sample, bool):
        raise ValueError(f"in_sample must be a bool, got {in_sample!r}")
    fold = torch.randperm(E, generator=generator) % k
    gains = torch.empty(E, dtype=G.dtype)
    for f in [None] if in_sample else range(k):
        tr = torch.ones(E, dtype=torch.bool) if f is None else fold != f
        te = tr if f is None else fold == f
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
