"""The linear-Gaussian twin of chapter 11 (any2any) and what pairs identify in it.

``s ~ N(0, I_k)``, ``x_m = A_m s + σ ε`` with the modalities' sizes: closed-form Bayes
predictors (:prf:ref:`any2any-thm-gaussian`), a shared-latent linear model fitted by
alternating least squares, and the gauges that leave trained products fixed
(:prf:ref:`any2any-thm-gauge`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch

from icml26 import checks
from icml26.generative.sceneworld import MODALITIES, SHAPES, _generator

__all__ = [
    "LinearTwin",
    "bayes_mse",
    "conditional_mean_matrix",
    "fit_shared_linear",
    "gauge_orbit",
    "linear_twin",
]


@dataclass(frozen=True)
class LinearTwin:
    """``s ~ N(0, I_k)``, ``x_m = A_m s + σ_m ε``: the loadings ``A`` and noise scales ``σ``."""

    loadings: dict[str, torch.Tensor]
    sigma: dict[str, float]

    def sample(
        self,
        n: int,
        generator: torch.Generator | None = None,
        modalities: tuple[str, ...] | None = None,
    ) -> dict[str, torch.Tensor]:
        """``n`` scenes observed in ``modalities`` (default: all; rows are samples)."""
        n = checks.integer("n", n, low=1)
        g = _generator(generator)
        mods = tuple(self.loadings) if modalities is None else tuple(modalities)
        if not mods or any(m not in self.loadings for m in mods):
            raise ValueError(f"modalities must be a non-empty subset of {tuple(self.loadings)}")
        k = next(iter(self.loadings.values())).shape[1]
        s = torch.randn(n, k, generator=g, dtype=torch.float64)
        return {
            m: s @ self.loadings[m].T
            + self.sigma[m]
            * torch.randn(n, self.loadings[m].shape[0], generator=g, dtype=torch.float64)
            for m in mods
        }


def linear_twin(
    k: int = 6, sigma: float = 0.5, *, generator: torch.Generator | None = None
) -> LinearTwin:
    """The linear-Gaussian twin of SceneWorld: ``A_m ~ N(0, 1/k)`` of the modalities' sizes."""
    k = checks.integer("k", k, low=1)
    s = checks.real("sigma", sigma, low=0.0, strict=True)
    g = _generator(generator)
    loadings = {
        m: torch.randn(math.prod(SHAPES[m]), k, generator=g, dtype=torch.float64) / math.sqrt(k)
        for m in MODALITIES
    }
    return LinearTwin(loadings, {m: s for m in MODALITIES})


def conditional_mean_matrix(
    a_src: torch.Tensor, a_tgt: torch.Tensor, sigma_src: float
) -> torch.Tensor:
    """``W`` with ``E[x_j | x_i] = W x_i = A_j A_iᵀ (A_i A_iᵀ + σ_i² I)⁻¹ x_i``.

    Implements :prf:ref:`any2any-thm-gaussian` (``i ≠ j``, independent noises).
    """
    ai = checks.tensor("a_src", a_src, ndim=2, floating=True)
    aj = checks.tensor("a_tgt", a_tgt, ndim=2, floating=True)
    if ai.shape[1] != aj.shape[1]:
        raise ValueError("a_src and a_tgt must share the latent dimension (columns)")
    checks.finite("a_src", ai)
    checks.finite("a_tgt", aj)
    s = checks.real("sigma_src", sigma_src, low=0.0, strict=True)
    cov = ai @ ai.T + s**2 * torch.eye(ai.shape[0], dtype=ai.dtype)
    return torch.linalg.solve(cov, ai @ aj.T).T


def bayes_mse(
    a_src: torch.Tensor, a_tgt: torch.Tensor, sigma_src: float, sigma_tgt: float
) -> float:
    """Per-coordinate MSE of ``E[x_j | x_i]``: ``tr(Σ_jj − Σ_ji Σ_ii⁻¹ Σ_ij) / d_j``."""
    w = conditional_mean_matrix(a_src, a_tgt, sigma_src)
    st = checks.real("sigma_tgt", sigma_tgt, low=0.0)
    aj = a_tgt
    total = torch.trace(aj @ aj.T) + st**2 * aj.shape[0] - torch.trace(w @ a_src @ aj.T)
    return float(total / aj.shape[0])


def fit_shared_linear(
    pairs: dict[tuple[str, str], tuple[torch.Tensor, torch.Tensor]],
    k: int,
    *,
    iters: int = 30,
    ridge: float = 1.0,
    init: str = "chain",
    generator: torch.Generator | None = None,
) -> tuple[dict[str, torch.Tensor], dict[str, torch.Tensor]]:
    """Linear encoders ``E_m`` (``k × d_m``) and decoders ``D_m`` (``d_m × k``) through one latent.

    Stage I, per modality: project onto the ``k`` leading principal components of all its
    training images (a linear autoencoder; pairing is not needed). Stage II: minimise
    ``Σ_(i,j) ‖D_j E_i x_i − x_j‖²`` over the seen directions ``pairs[(i, j)] = (X_i, X_j)``
    (rows are paired samples) by alternating least squares with a small ridge on both
    factors. The encoders start from gauges chained along the graph (breadth first from the
    best-connected modality, each a regression onto its parent's latent), the argument of
    :prf:ref:`any2any-thm-gaussian`; random starts can stall in poor optima. ``init="random"``
    starts the encoders from random ``k × k`` gauges instead, which shows what the data alone
    identify (:prf:ref:`any2any-thm-gauge`). Any pair ``(i, j)`` is then served by ``D_j E_i``,
    seen or not.
    """
    if not pairs:
        raise ValueError("pairs must hold at least one direction")
    k = checks.integer("k", k, low=1)
    iters = checks.integer("iters", iters, low=1)
    lam = checks.real("ridge", ridge, low=0.0, strict=True)
    if init not in ("chain", "random"):
        raise ValueError(f"init must be 'chain' or 'random', got {init!r}")
    g = _generator(generator)
    images: dict[str, list[torch.Tensor]] = {}
    for (i, j), (xi, xj) in pairs.items():
        if i not in MODALITIES or j not in MODALITIES or i == j:
            raise ValueError(f"pairs must be keyed by (source, target) modalities, got {(i, j)}")
        checks.tensor("pairs", xi, ndim=2, floating=True)
        checks.tensor("pairs", xj, ndim=2, floating=True)
        checks.finite(f"pairs[{(i, j)}]", xi)
        checks.finite(f"pairs[{(i, j)}]", xj)
        if xi.shape[0] != xj.shape[0]:
            raise ValueError(f"pairs[{(i, j)}] must hold the same number of rows")
        images.setdefault(i, []).append(xi)
        images.setdefault(j, []).append(xj)
    basis = {}
    for m, xs in images.items():  # Stage I: the k leading principal directions (d_m × k)
        x = torch.cat(xs).double()
        if x.shape[1] < k:
            raise ValueError(f"k must be at most the dimension of {m} ({x.shape[1]})")
        basis[m] = torch.linalg.svd(x, full_matrices=False).Vh[:k].T
    proj = {
        d: (xi.double() @ basis[d[0]], xj.double() @ basis[d[1]]) for d, (xi, xj) in pairs.items()
    }
    if init == "chain":
        enc = _chained_gauges(proj, list(images), k, lam)
    else:
        enc = {m: torch.randn(k, k, generator=g, dtype=torch.float64) for m in images}
    dec: dict[str, torch.Tensor] = {}
    eye = torch.eye(k, dtype=torch.float64)

    def decoders() -> None:
        for j in images:  # D_j: ridge regression of (projected) X_j on the latents of its sources
            into = [(i, xi, xj) for (i, jj), (xi, xj) in proj.items() if jj == j]
            if into:
                zz = sum(enc[i] @ xi.T @ xi @ enc[i].T for i, xi, _ in into)
                xz = sum(xj.T @ xi @ enc[i].T for i, xi, xj in into)
                dec[j] = torch.linalg.solve(zz + lam * eye, xz.T).T

    for _ in range(iters):
        decoders()
        for i in images:  # E_i: Σ_j D_jᵀD_j E C_ij = Σ_j D_jᵀ X_jᵀ X_i  (C_ij = X_iᵀX_i)
            out = [(j, xi, xj) for (ii, j), (xi, xj) in proj.items() if ii == i and j in dec]
            if out:
                lhs = sum(torch.kron(dec[j].T @ dec[j], xi.T @ xi) for j, xi, _ in out)
                rhs = sum(dec[j].T @ xj.T @ xi for j, xi, xj in out)
                lhs = lhs + lam * torch.eye(k * k, dtype=torch.float64)
                enc[i] = torch.linalg.solve(lhs, rhs.reshape(-1)).reshape(k, k)
    decoders()
    return (
        {m: e @ basis[m].T for m, e in enc.items()},
        {m: basis[m] @ dd for m, dd in dec.items()},
    )


def _chained_gauges(
    proj: dict[tuple[str, str], tuple[torch.Tensor, torch.Tensor]],
    modalities: list[str],
    k: int,
    lam: float,
) -> dict[str, torch.Tensor]:
    degree = {m: sum(m in d for d in proj) for m in modalities}
    root = max(modalities, key=lambda m: (degree[m], -modalities.index(m)))
    enc = {root: torch.eye(k, dtype=torch.float64)}
    frontier = [root]
    while frontier:
        parent = frontier.pop(0)
        for (i, j), (xi, xj) in proj.items():
            if j == parent and i not in enc:  # E_i x_i ≈ E_parent x_parent on the pairs
                target = xj @ enc[parent].T
                w = torch.linalg.solve(
                    xi.T @ xi + lam * torch.eye(k, dtype=torch.float64), xi.T @ target
                )
                enc[i] = w.T
                frontier.append(i)
    for m in modalities:  # another connected component: its own, unrelated gauge
        enc.setdefault(m, torch.eye(k, dtype=torch.float64))
    return enc


def gauge_orbit(
    directions: list[tuple[str, str]],
    k: int,
    *,
    scale: float = 0.5,
    generator: torch.Generator | None = None,
) -> dict[str, tuple[torch.Tensor, torch.Tensor]]:
    """A random gauge ``(G_m, H_m)`` per modality that keeps every trained product fixed.

    Replacing ``E_m → G_m E_m`` and ``D_m → D_m H_m`` leaves ``D_j E_i`` unchanged for every
    trained direction ``(i, j)`` in ``directions`` (``(i, i)`` is a reconstruction) iff
    ``H_j G_i = I``. Writing ``G_m = exp(g_m)``, ``H_m = exp(h_m)``, the linear constraints
    ``h_j + g_i = 0`` are solved exactly: a random element of their null space (entries of
    standard deviation ``scale``) gives gauges with ``H_j G_i = exp(−g_i) exp(g_i) = I``. By
    :prf:ref:`any2any-thm-gauge` the null space leaves every product fixed when the graph of
    ``directions`` is connected and has an odd cycle (a reconstruction counts as a loop), and
    moves the products between modalities at even distance when it is bipartite.
    """
    if not directions:
        raise ValueError("directions must list at least one (source, target) pair")
    k = checks.integer("k", k, low=1)
    sd = checks.real("scale", scale, low=0.0, strict=True)
    g = _generator(generator)
    mods = sorted({m for d in directions for m in d}, key=MODALITIES.index)
    if any(m not in MODALITIES for m in mods):
        raise ValueError(f"directions must name modalities in {MODALITIES}")
    col = {m: r for r, m in enumerate(mods)}
    n = len(mods)
    c = torch.zeros(len(directions), 2 * n, dtype=torch.float64)
    for r, (i, j) in enumerate(directions):  # h_j + g_i = 0; g in columns :n, h in n:
        c[r, col[i]] += 1.0
        c[r, n + col[j]] += 1.0
    _, sv, vh = torch.linalg.svd(c, full_matrices=True)
    rank = int((sv > 1e-10 * sv.max()).sum())
    null = vh[rank:]  # (nullity, 2n)
    coef = sd * torch.randn(null.shape[0], k * k, generator=g, dtype=torch.float64)
    x = (null.T @ coef).reshape(2 * n, k, k)
    return {
        m: (torch.linalg.matrix_exp(x[col[m]]), torch.linalg.matrix_exp(x[n + col[m]]))
        for m in mods
    }
