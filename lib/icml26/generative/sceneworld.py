"""SceneWorld: the synthetic world of chapter 11 (any2any), its supervision graph and metrics.

A scene of land-cover fractions rendered into five modalities (RGB, SAR with multiplicative
speckle, NIR, MS, PAN) at their own resolutions, the RST-1M supervision graph with its pair
counts (:prf:ref:`any2any-def-graph`), the counting argument, and PSNR and SSIM per image.
"""

from __future__ import annotations

import math

import torch

from icml26 import checks

__all__ = [
    "EDGES",
    "MODALITIES",
    "SHAPES",
    "component_counts",
    "directions",
    "gaussian_smooth",
    "psnr",
    "render",
    "scene_world",
    "shapes",
    "ssim",
]

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
    checks.finite("x", x)
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
    n: int,
    *,
    size: int = 16,
    sigma: float = 2.0,
    sharpness: float = 2.0,
    generator: torch.Generator | None = None,
) -> torch.Tensor:
    """``n`` scenes: land-cover fractions (water, vegetation, built), shape ``(n, 3, size, size)``.

    Gaussian noise smoothed with width ``sigma`` and scaled to unit standard deviation, then a
    softmax over the three classes with inverse temperature ``sharpness`` (larger: purer
    pixels, patchier classes), so every pixel's fractions sum to one.
    """
    n = checks.integer("n", n, low=1)
    size = checks.integer("size", size, low=4)
    beta = checks.real("sharpness", sharpness, low=0.0, strict=True)
    g = _generator(generator)
    z = torch.randn(n, 3, size, size, generator=g, dtype=torch.float64)
    z = gaussian_smooth(z, sigma)
    z = z / z.std(dim=(-2, -1), keepdim=True).clamp_min(1e-12)
    return torch.softmax(beta * z, dim=1)


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
    if s.shape[1] != 3 or s.shape[2] != s.shape[3] or s.shape[2] % 4 or s.shape[2] < 4:
        raise ValueError(
            f"scenes must have shape (n, 3, S, S) with S a multiple of 4, got {tuple(s.shape)}"
        )
    checks.finite("scenes", s)
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


# ---------------------------------------------------------------- metrics


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
    checks.finite("x", x)
    checks.finite("y", y)
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
    checks.finite("x", x)
    checks.finite("y", y)
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


def shapes(size: int = 16) -> dict[str, tuple[int, int, int]]:
    """``(channels, height, width)`` of each modality for scenes of ``size × size`` cells."""
    size = checks.integer("size", size, low=4)
    if size % 4:
        raise ValueError(f"size must be a multiple of 4, got {size}")
    return {m: (c, h * size // 16, w * size // 16) for m, (c, h, w) in SHAPES.items()}


def _shapes_of(data: list) -> dict[str, tuple[int, int, int]]:
    """The scene size whose flattened modality sizes match the images in ``data``."""
    for size in range(4, 129, 4):
        sh = shapes(size)
        if all(
            x.shape[1] == math.prod(sh[mod])
            for a, b, xa, xb in data
            for x, mod in ((xa, a), (xb, b))
        ):
            return sh
    raise ValueError("pairs must hold flattened images of one scene size (see render)")
