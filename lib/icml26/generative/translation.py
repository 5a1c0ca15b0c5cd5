"""Any-to-any modality translation through a shared latent (chapter 11, any2any).

The toy world of the chapter and the pieces of the Any2Any recipe at toy scale:

- *SceneWorld*: a scene of land-cover fractions rendered into five modalities (RGB, SAR with
  multiplicative speckle, NIR, MS, PAN) at their own resolutions, and the RST-1M supervision
  graph with its pair counts (:prf:ref:`any2any-def-graph`);
- per-modality autoencoders into one latent space (flattened MLPs, trained side by side);
- the shared backbone conditioned on ``e(t) + e_src + e_tgt`` that predicts the clean target
  latent (anchored ``x₀`` regression, :prf:ref:`any2any-def-anchored`), with target residual
  adapters (:prf:ref:`any2any-def-adapter`), as a *stack* of independent members trained in one
  batched loop (the unified model, its ablations, the pairwise baseline and the oracles);
- the linear-Gaussian twin with its closed-form Bayes predictors
  (:prf:ref:`any2any-thm-gaussian`), and a shared-latent linear model fitted by alternating
  least squares;
- PSNR and SSIM per image.

DDIM sampling is :mod:`icml26.generative.diffusion`, shared with chapter 10.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import torch
from torch import nn

from icml26 import checks

__all__ = [
    "EDGES",
    "MODALITIES",
    "SHAPES",
    "FilmBackbone",
    "LinearTwin",
    "Pool",
    "StackedAutoencoders",
    "StackedLinear",
    "bayes_mse",
    "component_counts",
    "conditional_mean_matrix",
    "directions",
    "fit_shared_linear",
    "gaussian_smooth",
    "linear_twin",
    "predict_at_T",
    "psnr",
    "render",
    "scene_world",
    "ssim",
    "train_autoencoders",
    "train_backbone",
]

#: The five modalities, in a fixed order (index = the modality's id in embeddings).
MODALITIES: tuple[str, ...] = ("RGB", "SAR", "NIR", "MS", "PAN")
#: ``(channels, height, width)`` of each modality in SceneWorld (the 2:1:½ resolution ladder).
SHAPES: dict[str, tuple[int, int, int]] = {
    "RGB": (3, 8, 8),
    "SAR": (1, 8, 8),
    "NIR": (1, 8, 8),
    "MS": (6, 4, 4),
    "PAN": (1, 16, 16),
}
#: RST-1M's paired modalities and their pair counts (in 10⁴ pairs).
EDGES: tuple[tuple[str, str, float], ...] = (
    ("SAR", "RGB", 25.0),
    ("NIR", "RGB", 20.0),
    ("PAN", "RGB", 10.0),
    ("NIR", "MS", 20.0),
    ("MS", "RGB", 20.0),
    ("SAR", "MS", 12.5),
    ("SAR", "NIR", 12.5),
)

_COLOUR = torch.tensor(  # land cover (water, vegetation, built) -> RGB
    [[0.10, 0.20, 0.45], [0.20, 0.50, 0.15], [0.65, 0.55, 0.50]], dtype=torch.float64
)
_MS_BANDS = torch.tensor(  # land cover -> 6 bands: blue, green, red, red edge, NIR, SWIR
    [
        [0.45, 0.20, 0.10, 0.05, 0.05, 0.02],
        [0.15, 0.50, 0.20, 0.55, 0.85, 0.30],
        [0.40, 0.50, 0.60, 0.55, 0.45, 0.65],
    ],
    dtype=torch.float64,
)
_NIR = torch.tensor([0.05, 0.85, 0.35], dtype=torch.float64)
_SAR_DB = torch.tensor([-22.0, -10.0, -2.0], dtype=torch.float64)  # backscatter in dB
_PAN = torch.tensor([0.15, 0.35, 0.70], dtype=torch.float64)


def _generator(generator: torch.Generator | None) -> torch.Generator:
    if generator is not None and not isinstance(generator, torch.Generator):
        raise ValueError(f"generator must be a torch.Generator, got {type(generator).__name__}")
    return generator if generator is not None else torch.Generator().manual_seed(0)


def gaussian_smooth(x: torch.Tensor, sigma: float) -> torch.Tensor:
    """Smooth each channel of ``x`` (shape ``(n, c, h, w)``) with a Gaussian of width ``sigma``.

    Mirror padding at the borders; agrees with ``scipy.ndimage.gaussian_filter`` (mode
    ``"mirror"``, ``truncate = 4``) per channel.
    """
    x = checks.tensor("x", x, ndim=4, floating=True)
    s = checks.real("sigma", sigma, low=0.0, strict=True)
    r = int(4.0 * s + 0.5)
    if r >= min(x.shape[-2:]):
        raise ValueError(f"sigma={s} is too wide for images of size {tuple(x.shape[-2:])}")
    u = torch.arange(-r, r + 1, dtype=x.dtype, device=x.device)
    k = torch.exp(-0.5 * (u / s) ** 2)
    k = k / k.sum()
    n, c, h, w = x.shape
    y = x.reshape(n * c, 1, h, w)
    y = torch.nn.functional.pad(y, (r, r, 0, 0), mode="reflect")
    y = torch.nn.functional.conv2d(y, k.reshape(1, 1, 1, -1))
    y = torch.nn.functional.pad(y, (0, 0, r, r), mode="reflect")
    y = torch.nn.functional.conv2d(y, k.reshape(1, 1, -1, 1))
    return y.reshape(n, c, h, w)


def scene_world(
    n: int, *, size: int = 16, sigma: float = 2.0, generator: torch.Generator | None = None
) -> torch.Tensor:
    """``n`` scenes: land-cover fractions (water, vegetation, built), shape ``(n, 3, size, size)``.

    Gaussian noise smoothed with width ``sigma``, then a softmax over the three classes (with a
    temperature that makes the classes patchy), so every pixel's fractions sum to one.
    """
    n = checks.integer("n", n, low=1)
    size = checks.integer("size", size, low=4)
    g = _generator(generator)
    z = torch.randn(n, 3, size, size, generator=g, dtype=torch.float64)
    z = gaussian_smooth(z, sigma)
    z = z / z.std(dim=(-2, -1), keepdim=True).clamp_min(1e-12)
    return torch.softmax(2.0 * z, dim=1)


def render(
    scenes: torch.Tensor,
    modality: str,
    *,
    noise: float = 0.02,
    looks: int = 4,
    generator: torch.Generator | None = None,
) -> torch.Tensor:
    """Observe ``scenes`` (``(n, 3, 16, 16)``) in one modality, values in ``[0, 1]``.

    RGB, NIR and SAR at half resolution, MS at a quarter, PAN at full resolution (see
    :data:`SHAPES`); additive Gaussian noise of scale ``noise``, except SAR, whose backscatter
    is multiplied by Gamma speckle with ``looks`` looks (mean one) and then taken in dB.
    """
    s = checks.tensor("scenes", scenes, ndim=4, floating=True)
    if tuple(s.shape[1:]) != (3, 16, 16):
        raise ValueError(f"scenes must have shape (n, 3, 16, 16), got {tuple(s.shape)}")
    if modality not in MODALITIES:
        raise ValueError(f"modality must be one of {MODALITIES}, got {modality!r}")
    sd = checks.real("noise", noise, low=0.0)
    lk = checks.integer("looks", looks, low=1)
    g = _generator(generator)
    s = s.double()
    pool = torch.nn.functional.avg_pool2d
    if modality == "PAN":
        img = torch.einsum("nchw,c->nhw", s, _PAN)[:, None]
    elif modality == "MS":
        img = torch.einsum("nchw,cb->nbhw", pool(s, 4), _MS_BANDS)
    elif modality == "RGB":
        img = torch.einsum("nchw,cb->nbhw", pool(s, 2), _COLOUR)
    elif modality == "NIR":
        img = torch.einsum("nchw,c->nhw", pool(s, 2), _NIR)[:, None]
    else:  # SAR: power = 10^(dB/10) per class, mixed, speckled, back to dB, scaled to [0, 1]
        power = torch.einsum("nchw,c->nhw", pool(s, 2), 10 ** (_SAR_DB / 10))[:, None]
        u = torch.rand((lk, *power.shape), generator=g, dtype=torch.float64)
        speckle = -torch.log1p(-u).mean(0)  # Gamma(L, rate L): mean of L unit exponentials
        db = 10 * torch.log10(power * speckle)
        return ((db + 30.0) / 32.0).clamp(0.0, 1.0).to(s.device)
    img = img + sd * torch.randn(img.shape, generator=g, dtype=torch.float64)
    return img.clamp(0.0, 1.0)


def directions(edges: tuple[tuple[str, str, float], ...] = EDGES) -> tuple[list, list]:
    """Seen and unseen ordered pairs ``(source, target)`` of the supervision graph.

    Implements :prf:ref:`any2any-def-graph`: each undirected edge gives two seen directions;
    every other ordered pair of distinct modalities is unseen.
    """
    if not edges:
        raise ValueError("edges must list at least one pair")
    seen = []
    for e in edges:
        if len(e) != 3 or e[0] not in MODALITIES or e[1] not in MODALITIES or e[0] == e[1]:
            raise ValueError(f"edges must hold (modality, other modality, count), got {e!r}")
        seen += [(e[0], e[1]), (e[1], e[0])]
    if len(set(seen)) != len(seen):
        raise ValueError("edges must not repeat a pair")
    unseen = [(a, b) for a in MODALITIES for b in MODALITIES if a != b and (a, b) not in seen]
    return seen, unseen


def component_counts(n: int) -> tuple[int, int]:
    """``(N(N−1), 2N+1)``: directed pairwise models vs encoders + decoders + one backbone.

    The counting argument of :prf:ref:`any2any-prop-counting` (adapters are folded into
    the decoders' count in the paper's ``2N+1``).
    """
    n = checks.integer("n", n, low=2)
    return n * (n - 1), 2 * n + 1


# --------------------------------------------------------------------------- metrics


def psnr(x: torch.Tensor, y: torch.Tensor, *, data_range: float = 1.0) -> torch.Tensor:
    """Peak signal-to-noise ratio of each image (first axis), in dB: ``10 log10(R² / MSE)``.

    Averaged per image, never computed from the mean MSE (see the chapter's pitfalls).
    """
    x = checks.tensor("x", x, floating=True)
    y = checks.tensor("y", y, floating=True)
    if x.shape != y.shape or x.ndim < 2:
        raise ValueError(
            f"x and y must have one shape (n, ...), got {tuple(x.shape)}, {tuple(y.shape)}"
        )
    r = checks.real("data_range", data_range, low=0.0, strict=True)
    mse = ((x - y) ** 2).flatten(1).mean(1)
    return 10 * torch.log10(r**2 / mse.clamp_min(1e-20))


def ssim(
    x: torch.Tensor, y: torch.Tensor, *, data_range: float = 1.0, win_size: int = 7
) -> torch.Tensor:
    """Structural similarity of each image ``(n, c, h, w)``, uniform window, mean over channels.

    Matches ``skimage.metrics.structural_similarity`` with its defaults (``win_size=7``,
    ``K1=0.01``, ``K2=0.03``, sample covariance) and ``channel_axis`` set.
    """
    x = checks.tensor("x", x, ndim=4, floating=True)
    y = checks.tensor("y", y, ndim=4, floating=True)
    if x.shape != y.shape:
        raise ValueError(f"x and y must have one shape, got {tuple(x.shape)}, {tuple(y.shape)}")
    w = checks.integer("win_size", win_size, low=3)
    if w % 2 == 0 or w > min(x.shape[-2:]):
        raise ValueError(f"win_size must be odd and at most the image size, got {w}")
    r = checks.real("data_range", data_range, low=0.0, strict=True)
    n, c, h, ww = x.shape
    a, b = x.reshape(n * c, 1, h, ww), y.reshape(n * c, 1, h, ww)

    def mean(z: torch.Tensor) -> torch.Tensor:
        return torch.nn.functional.avg_pool2d(z, w, stride=1)

    norm = w * w / (w * w - 1.0)
    ux, uy = mean(a), mean(b)
    vx = norm * (mean(a * a) - ux * ux)
    vy = norm * (mean(b * b) - uy * uy)
    vxy = norm * (mean(a * b) - ux * uy)
    c1, c2 = (0.01 * r) ** 2, (0.03 * r) ** 2
    s = ((2 * ux * uy + c1) * (2 * vxy + c2)) / ((ux**2 + uy**2 + c1) * (vx + vy + c2))
    return s.reshape(n, c, -1).mean(-1).mean(-1)


# --------------------------------------------------------------------------- stacked networks


class StackedLinear(nn.Module):
    """``members`` independent linear maps applied side by side: ``(M, B, i) → (M, B, o)``.

    One ``baddbmm`` trains many small models in one batched loop. ``zero=True`` initialises
    the weights and bias at zero (the last layer of a residual adapter).
    """

    def __init__(self, members: int, d_in: int, d_out: int, *, zero: bool = False) -> None:
        super().__init__()
        m = checks.integer("members", members, low=1)
        i = checks.integer("d_in", d_in, low=1)
        o = checks.integer("d_out", d_out, low=1)
        bound = 0.0 if zero else 1.0 / math.sqrt(i)
        self.weight = nn.Parameter(torch.empty(m, i, o).uniform_(-bound, bound))
        self.bias = nn.Parameter(torch.zeros(m, 1, o))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """``x (M, B, i)`` → ``(M, B, o)``: one affine map per stacked model."""
        return torch.baddbmm(self.bias, x, self.weight)


def _mlp(members: int, sizes: list[int]) -> nn.ModuleList:
    return nn.ModuleList(StackedLinear(members, a, b) for a, b in itertools.pairwise(sizes))


def _run(layers: nn.ModuleList, x: torch.Tensor) -> torch.Tensor:
    for k, layer in enumerate(layers):
        x = layer(x)
        if k < len(layers) - 1:
            x = torch.nn.functional.silu(x)
    return x


class StackedAutoencoders(nn.Module):
    """One MLP autoencoder per modality into a ``latent``-dimensional space, ``members`` copies.

    ``encode(x, m)`` / ``decode(z, m)`` take flattened images ``(M, B, d_m)`` of modality ``m``.
    All encoders map into the same latent space; whether the latent conventions of different
    modalities agree depends on training (an alignment term, or none as in the paper's Stage I).
    """

    def __init__(self, members: int, latent: int, hidden: int = 128) -> None:
        super().__init__()
        m = checks.integer("members", members, low=1)
        self.latent = checks.integer("latent", latent, low=1)
        h = checks.integer("hidden", hidden, low=1)
        dims = {k: math.prod(v) for k, v in SHAPES.items()}
        self.enc = nn.ModuleDict({k: _mlp(m, [d, h, self.latent]) for k, d in dims.items()})
        self.dec = nn.ModuleDict({k: _mlp(m, [self.latent, h, d]) for k, d in dims.items()})

    def encode(self, x: torch.Tensor, modality: str) -> torch.Tensor:
        return _run(self.enc[modality], x)

    def decode(self, z: torch.Tensor, modality: str) -> torch.Tensor:
        return torch.sigmoid(_run(self.dec[modality], z))


class FilmBackbone(nn.Module):
    """The shared ``x₀``-predicting backbone, ``members`` independent copies side by side.

    Input ``[z_t, z_i]`` (noisy target latent and source latent); conditioning
    ``c = e_time(t) + e_src(i) + e_tgt(j)`` modulates each hidden layer (FiLM, the flattened
    counterpart of the paper's AdaLN). Output: the clean target latent ``ẑ_j``
    (:prf:ref:`any2any-def-anchored`). With ``adapters``, each member also holds one zero-
    initialised residual adapter per target, ``A_j(z) = W₂ SiLU(W₁ z)``
    (:prf:ref:`any2any-def-adapter`).
    """

    def __init__(
        self,
        members: int,
        latent: int,
        hidden: int,
        timesteps: int,
        *,
        adapter_hidden: int = 32,
        modalities: int = len(MODALITIES),
    ) -> None:
        super().__init__()
        m = checks.integer("members", members, low=1)
        d = checks.integer("latent", latent, low=1)
        h = checks.integer("hidden", hidden, low=1)
        t = checks.integer("timesteps", timesteps, low=1)
        ha = checks.integer("adapter_hidden", adapter_hidden, low=1)
        k = checks.integer("modalities", modalities, low=2)
        self.members, self.latent, self.hidden, self.k = m, d, h, k
        self.inp = StackedLinear(m, 2 * d, h)
        self.mid = StackedLinear(m, h, h)
        self.out = StackedLinear(m, h, d)
        self.e_time = nn.Parameter(0.1 * torch.randn(m, t, 4 * h))
        self.e_src = nn.Parameter(0.1 * torch.randn(m, k, 4 * h))
        self.e_tgt = nn.Parameter(0.1 * torch.randn(m, k, 4 * h))
        self.a_in = nn.Parameter(
            torch.empty(m, k, d, ha).uniform_(-1 / math.sqrt(d), 1 / math.sqrt(d))
        )
        self.a_out = nn.Parameter(torch.zeros(m, k, ha, d))  # zero-init: A_j ≡ 0 at the start

    def _check(self, z_t, z_src, t, src, tgt) -> None:
        m, d = self.members, self.latent
        for name, z in (("z_t", z_t), ("z_src", z_src)):
            checks.tensor(name, z, ndim=3, floating=True)
            if z.shape[0] != m or z.shape[2] != d:
                raise ValueError(f"{name} must have shape ({m}, B, {d}), got {tuple(z.shape)}")
        if z_src.shape != z_t.shape:
            raise ValueError("z_src must have the shape of z_t")
        for name, v, hi in (
            ("t", t, self.e_time.shape[1]),
            ("src", src, self.k),
            ("tgt", tgt, self.k),
        ):
            checks.tensor(name, v, ndim=2)
            if tuple(v.shape) != tuple(z_t.shape[:2]) or v.is_floating_point():
                raise ValueError(
                    f"{name} must be an integer tensor of shape {tuple(z_t.shape[:2])}"
                )
            if bool(((v < 0) | (v >= hi)).any()):
                raise ValueError(f"{name} must lie in [0, {hi})")

    def _gather(self, table: torch.Tensor, idx: torch.Tensor) -> torch.Tensor:
        return torch.gather(table, 1, idx[..., None].expand(-1, -1, table.shape[-1]))

    def forward(
        self,
        z_t: torch.Tensor,
        z_src: torch.Tensor,
        t: torch.Tensor,
        src: torch.Tensor,
        tgt: torch.Tensor,
    ) -> torch.Tensor:
        """``ẑ_j`` for every member and sample: shapes ``(M, B, d)``, ``(M, B)`` for the ids."""
        self._check(z_t, z_src, t, src, tgt)
        c = (
            self._gather(self.e_time, t)
            + self._gather(self.e_src, src)
            + self._gather(self.e_tgt, tgt)
        )
        g1, b1, g2, b2 = c.chunk(4, dim=-1)
        h = self.inp(torch.cat([z_t, z_src], dim=-1))
        h = torch.nn.functional.silu(_norm(h) * (1 + g1) + b1)
        h = h + torch.nn.functional.silu(_norm(self.mid(h)) * (1 + g2) + b2)
        return self.out(h)

    def adapt(self, z: torch.Tensor, tgt: torch.Tensor) -> torch.Tensor:
        """The adapter's correction ``A_j(z)`` of each sample's target ``j`` (add it to ``z``)."""
        checks.tensor("z", z, ndim=3, floating=True)
        checks.tensor("tgt", tgt, ndim=2)
        if tuple(tgt.shape) != tuple(z.shape[:2]):
            raise ValueError(f"tgt must have shape {tuple(z.shape[:2])}")
        hid = torch.nn.functional.silu(torch.einsum("mbd,mkdh->mbkh", z, self.a_in))
        out = torch.einsum("mbkh,mkhd->mbkd", hid, self.a_out)
        return torch.gather(out, 2, tgt[..., None, None].expand(-1, -1, 1, z.shape[-1]))[:, :, 0]

    def backbone_parameters(self) -> list[nn.Parameter]:
        """Every parameter except the adapters' (the ``θ`` that the calibration must not move)."""
        return [p for n, p in self.named_parameters() if not n.startswith("a_")]


def _norm(h: torch.Tensor) -> torch.Tensor:
    return torch.nn.functional.layer_norm(h, h.shape[-1:])


# --------------------------------------------------------------------------- linear-Gaussian twin


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
    generator: torch.Generator | None = None,
) -> tuple[dict[str, torch.Tensor], dict[str, torch.Tensor]]:
    """Linear encoders ``E_m`` (``k × d_m``) and decoders ``D_m`` (``d_m × k``) through one latent.

    Stage I, per modality: project onto the ``k`` leading principal components of all its
    training images (a linear autoencoder; pairing is not needed). Stage II: minimise
    ``Σ_(i,j) ‖D_j E_i x_i − x_j‖²`` over the seen directions ``pairs[(i, j)] = (X_i, X_j)``
    (rows are paired samples) by alternating least squares with a small ridge on both
    factors. The encoders start from gauges chained along the graph (breadth first from the
    best-connected modality, each a regression onto its parent's latent), the argument of
    :prf:ref:`any2any-thm-gaussian`; random starts can stall in poor optima. Any pair
    ``(i, j)`` is then served by ``D_j E_i``, seen or not.
    """
    if not pairs:
        raise ValueError("pairs must hold at least one direction")
    k = checks.integer("k", k, low=1)
    iters = checks.integer("iters", iters, low=1)
    lam = checks.real("ridge", ridge, low=0.0, strict=True)
    _generator(generator)
    images: dict[str, list[torch.Tensor]] = {}
    for (i, j), (xi, xj) in pairs.items():
        if i not in MODALITIES or j not in MODALITIES or i == j:
            raise ValueError(f"pairs must be keyed by (source, target) modalities, got {(i, j)}")
        checks.tensor("pairs", xi, ndim=2, floating=True)
        checks.tensor("pairs", xj, ndim=2, floating=True)
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
    enc = _chained_gauges(proj, list(images), k, lam)
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


# --------------------------------------------------------------------------- training


def train_autoencoders(
    pairs: dict[tuple[str, str], tuple[torch.Tensor, torch.Tensor]],
    align: list[float],
    *,
    latent: int,
    hidden: int = 128,
    steps: int = 300,
    batch: int = 64,
    lr: float = 3e-3,
    generator: torch.Generator | None = None,
) -> StackedAutoencoders:
    """Train one autoencoder per modality, ``len(align)`` independent copies side by side.

    ``pairs[(a, b)] = (X_a, X_b)`` holds the flattened images of each edge's training scenes.
    Copy ``m`` minimises, summed over edges, the reconstruction MSE of both images plus
    ``align[m] · ‖E_a x_a − E_b x_b‖²`` (per latent coordinate) on the paired scenes:
    ``align = 0`` is the paper's Stage I (each VAE on its own images); ``align > 0`` is this
    chapter's toy addition that ties the latent conventions of paired modalities together.
    """
    if not pairs:
        raise ValueError("pairs must hold at least one edge")
    w = torch.as_tensor(align, dtype=torch.float32)
    if w.ndim != 1 or w.numel() == 0 or bool((w < 0).any()):
        raise ValueError("align must be a non-empty list of non-negative weights")
    steps = checks.integer("steps", steps, low=1)
    batch = checks.integer("batch", batch, low=1)
    lr = checks.real("lr", lr, low=0.0, strict=True)
    g = _generator(generator)
    m = w.numel()
    ae = StackedAutoencoders(m, latent, hidden)
    opt = torch.optim.Adam(ae.parameters(), lr=lr)
    data = []
    for (a, b), (xa, xb) in pairs.items():
        if a not in MODALITIES or b not in MODALITIES:
            raise ValueError(f"pairs must be keyed by modalities, got {(a, b)}")
        for name, x, mod in (("X_a", xa, a), ("X_b", xb, b)):
            checks.tensor(name, x, ndim=2, floating=True)
            if x.shape[1] != math.prod(SHAPES[mod]):
                raise ValueError(f"pairs[{(a, b)}] must hold flattened {mod} images")
        data.append((a, b, xa.float(), xb.float()))
    ae.to(data[0][2].device)  # the images' device; Module.to keeps the optimiser's parameters
    dev = next(ae.parameters()).device
    for _ in range(steps):
        picks = [
            torch.randint(0, xa.shape[0], (batch,), generator=g, device=g.device).to(xa.device)
            for _, _, xa, _ in data
        ]
        parts: dict[str, list[torch.Tensor]] = {k: [] for k in MODALITIES}
        for (a, b, xa, xb), i in zip(data, picks, strict=True):
            parts[a].append(xa[i])
            parts[b].append(xb[i])
        loss = torch.zeros(m, device=dev)
        latents: dict[str, list[torch.Tensor]] = {}
        for k, xs in parts.items():  # one encoder and one decoder call per modality
            if not xs:
                continue
            x = torch.cat(xs).expand(m, -1, -1)
            z = ae.encode(x, k)
            loss = loss + ((ae.decode(z, k) - x) ** 2).mean(2).sum(1) / batch
            latents[k] = list(z.split(batch, dim=1))
        for a, b, _, _ in data:  # alignment of the paired latents, edge by edge
            za, zb = latents[a].pop(0), latents[b].pop(0)
            loss = loss + w.to(dev) * ((za - zb) ** 2).mean((1, 2))
        opt.zero_grad()
        loss.sum().backward()
        opt.step()
    return ae


@dataclass(frozen=True)
class Pool:
    """Training examples of each backbone member, padded: latents ``(M, P, d)``, ids ``(M, P)``."""

    z_src: torch.Tensor
    z_tgt: torch.Tensor
    src: torch.Tensor
    tgt: torch.Tensor
    size: torch.Tensor

    @staticmethod
    def stack(members: list[list[tuple[torch.Tensor, torch.Tensor, int, int]]]) -> Pool:
        """One pool per member, each a list of ``(Z_src, Z_tgt, src id, tgt id)`` blocks."""
        if not members or any(not blocks for blocks in members):
            raise ValueError("members must be a non-empty list of non-empty block lists")
        cat = []
        for blocks in members:
            zs = torch.cat([b[0] for b in blocks])
            zt = torch.cat([b[1] for b in blocks])
            si = torch.cat([torch.full((b[0].shape[0],), b[2]) for b in blocks])
            ti = torch.cat([torch.full((b[0].shape[0],), b[3]) for b in blocks])
            cat.append((zs, zt, si, ti))
        p = max(c[0].shape[0] for c in cat)

        def pad(x: torch.Tensor) -> torch.Tensor:
            return torch.cat([x, x[: p - x.shape[0]].new_zeros((p - x.shape[0], *x.shape[1:]))])

        return Pool(
            torch.stack([pad(c[0]) for c in cat]).float(),
            torch.stack([pad(c[1]) for c in cat]).float(),
            torch.stack([pad(c[2]) for c in cat]),
            torch.stack([pad(c[3]) for c in cat]),
            torch.tensor([c[0].shape[0] for c in cat]),
        )


def train_backbone(
    model: FilmBackbone,
    pool: Pool,
    abar: torch.Tensor,
    *,
    steps: int,
    batch: int = 64,
    lr: float = 2e-3,
    calib: float = 1.0,
    generator: torch.Generator | None = None,
) -> list[float]:
    """Train every member on its own pool with ``L_z0 + λ L_calib``; returns the loss per step.

    Each step draws, per member, ``batch`` examples of its pool, a time ``t`` and noise ``ε``,
    forms ``z_t = sqrt(ᾱ_t) z_j + sqrt(1 − ᾱ_t) ε`` and regresses ``ẑ_j`` on ``z_j``
    (:prf:ref:`any2any-def-anchored`). The adapters are trained on the *stopped* prediction,
    ``‖sg(ẑ_j) + A_j(sg(ẑ_j)) − z_j‖²``, so the calibration never moves the backbone
    (:prf:ref:`any2any-prop-stopgrad`).
    """
    from icml26.generative.diffusion import add_noise

    if not isinstance(model, FilmBackbone) or not isinstance(pool, Pool):
        raise ValueError("model must be a FilmBackbone and pool a Pool")
    if pool.z_src.shape[0] != model.members:
        raise ValueError(f"pool must hold {model.members} members, got {pool.z_src.shape[0]}")
    a = checks.tensor("abar", abar, ndim=1)
    if a.numel() != model.e_time.shape[1]:
        raise ValueError(f"abar must have {model.e_time.shape[1]} entries (the model's timesteps)")
    steps = checks.integer("steps", steps, low=1)
    batch = checks.integer("batch", batch, low=1)
    lr = checks.real("lr", lr, low=0.0, strict=True)
    lam = checks.real("calib", calib, low=0.0)
    g = _generator(generator)
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    m, d = model.members, model.latent
    dev = pool.z_src.device
    a = a.float().to(dev)
    size = pool.size[:, None].to(g.device)
    losses = []
    for _ in range(steps):
        idx = (torch.rand(m, batch, generator=g, device=g.device) * size).long().to(dev)
        z_src = torch.gather(pool.z_src, 1, idx[..., None].expand(-1, -1, d))
        z_tgt = torch.gather(pool.z_tgt, 1, idx[..., None].expand(-1, -1, d))
        src, tgt = torch.gather(pool.src, 1, idx), torch.gather(pool.tgt, 1, idx)
        t = torch.randint(0, a.numel(), (m, batch), generator=g, device=g.device).to(dev)
        eps = torch.randn(m, batch, d, generator=g, device=g.device).to(dev)
        z_t = add_noise(z_tgt, eps, a[t])
        pred = model(z_t, z_src, t, src, tgt)
        loss = ((pred - z_tgt) ** 2).mean((1, 2)).sum()
        if lam > 0:
            stopped = pred.detach()
            loss = (
                loss + lam * ((stopped + model.adapt(stopped, tgt) - z_tgt) ** 2).mean((1, 2)).sum()
            )
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.detach() / m)  # no host sync inside the loop
    return torch.stack(losses).tolist()


@torch.no_grad()
def predict_at_T(
    model: FilmBackbone,
    z_src: torch.Tensor,
    src: torch.Tensor,
    tgt: torch.Tensor,
    *,
    draws: int = 8,
    adapter: bool = True,
    generator: torch.Generator | None = None,
) -> torch.Tensor:
    """The backbone's ``x₀`` prediction at ``t = T`` (pure noise), averaged over ``draws`` noises.

    With ``ᾱ_T ≈ 0`` this estimates ``E[z_j | z_i]`` (:prf:ref:`any2any-thm-conditional-mean`).
    ``adapter`` adds the target's correction ``A_j(ẑ_j)``.
    """
    draws = checks.integer("draws", draws, low=1)
    g = _generator(generator)
    t = torch.full(src.shape, model.e_time.shape[1] - 1, dtype=torch.long, device=src.device)
    out = torch.zeros_like(z_src)
    for _ in range(draws):
        noise = torch.randn(z_src.shape, generator=g, dtype=z_src.dtype, device=g.device)
        noise = noise.to(z_src.device)
        out += model(noise, z_src, t, src, tgt) / draws
    return out + model.adapt(out, tgt) if adapter else out
