"""Masked region-channel-temporal modelling of EEG (chapter 19, rector).

A reconstruction, faithful in spirit, of RECTOR: a synthetic EEG generator on real montage
geometry, the hierarchical block-sparse attention (within-region channel attention, region
attention, temporal attention), adaptive functional partitioning, structured multi-view
masking, the three pre-training losses, linear probes, channel removal and montage transfer.

Implements :prf:ref:`rector-def-mask`, :prf:ref:`rector-prop-cost`,
:prf:ref:`rector-def-afp`, :prf:ref:`rector-def-views` and :prf:ref:`rector-def-views`
of chapter 19. Token layout everywhere: a window is ``(C, T, P)`` (channels, patches, samples
per patch); flattened tokens are time-major, token ``τ·C + c``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from icml26 import checks

__all__ = [
    "PEAKS_HZ",
    "REGION_NAMES",
    "EEGData",
    "RectorEncoder",
    "adaptive_partition",
    "align_labels",
    "anatomical_regions",
    "assign_by_nearest",
    "attention_cost",
    "band_power_features",
    "block_mask",
    "block_sparse_attention",
    "embed",
    "functional_regions",
    "level_masks",
    "masked_attention",
    "montage",
    "patchify",
    "plv",
    "pretrain",
    "probe_f1",
    "rector_losses",
    "separated_centres",
    "simulate_eeg",
    "spectral_partition",
    "structured_mask",
]

HEAD_RADIUS = 0.095  # metres, the sphere MNE's standard montages sit on
PEAKS_HZ = (6.0, 10.0, 13.0, 20.0, 30.0)  # resonance of the latent sources
REGION_NAMES = (
    "prefrontal",
    "frontal",
    "central",
    "left temporal",
    "right temporal",
    "parietal",
    "occipital",
)
_PREFIX = {"Fp": 0, "AF": 0, "F": 1, "FC": 2, "C": 2, "CP": 5, "P": 5, "PO": 6, "O": 6, "I": 6}
_TEMPORAL = ("T", "FT", "TP")


# --- montage and partitions --------------------------------------------------------------


def montage(name: str) -> tuple[list[str], np.ndarray]:
    """Channel names and 3-D positions (metres, head frame) of an MNE standard montage."""
    import mne

    if not isinstance(name, str) or name not in mne.channels.get_builtin_montages():
        raise ValueError(f"name must be an MNE built-in montage, got {name!r}")
    ch = mne.channels.make_standard_montage(name).get_positions()["ch_pos"]
    names = list(ch)
    return names, np.array([ch[n] for n in names], dtype=np.float64)


def _prefix(name: str) -> str:
    letters = "".join(ch for ch in name if ch.isalpha())
    return letters[:-1] if letters.endswith("z") and len(letters) > 1 else letters


def anatomical_regions(names: list[str], pos: np.ndarray) -> np.ndarray:
    """Anatomical region of each channel by its 10-20 name prefix (:prf:ref:`rector-def-mask`).

    Two-letter prefixes are matched first (``Fp``, ``AF``, ``FC``, ``CP``, ``PO``); ``T``,
    ``FT`` and ``TP`` are temporal, split left/right by the sign of ``x``. Indices follow
    ``REGION_NAMES``.
    """
    pos = np.asarray(pos, dtype=np.float64)
    checks.shape("pos", pos, (len(names), 3))
    out = np.empty(len(names), dtype=np.int64)
    for i, n in enumerate(names):
        p = _prefix(n)
        if p in _TEMPORAL:
            out[i] = 3 if pos[i, 0] < 0 else 4
        elif p in _PREFIX:
            out[i] = _PREFIX[p]
        else:
            raise ValueError(f"names: no anatomical region for channel {n!r}")
    return out


def separated_centres(
    n: int, min_sep: float, rng: np.random.Generator, *, z_min: float = 0.0, tries: int = 10000
) -> np.ndarray:
    """``n`` points on the head sphere with ``z >= z_min`` and pairwise distance ``>= min_sep``.

    Rejection sampling, the generator fix of the chapter's functional ground truth.
    """
    n = checks.integer("n", n, low=1)
    min_sep = checks.real("min_sep", min_sep, low=0.0)
    out: list[np.ndarray] = []
    for _ in range(checks.integer("tries", tries, low=1)):
        v = rng.standard_normal(3)
        p = HEAD_RADIUS * v / np.linalg.norm(v)
        if p[2] < z_min:
            continue
        if all(np.linalg.norm(p - q) >= min_sep for q in out):
            out.append(p)
            if len(out) == n:
                return np.array(out)
    raise ValueError(f"min_sep: could not place {n} centres {min_sep} m apart in {tries} tries")


def functional_regions(pos: np.ndarray, centres: np.ndarray) -> np.ndarray:
    """Ground-truth functional region: index of the nearest source centre."""
    checks.shape("pos", pos, (None, 3))
    checks.shape("centres", centres, (None, 3))
    d = np.linalg.norm(np.asarray(pos)[:, None] - np.asarray(centres)[None], axis=-1)
    return d.argmin(1)


def assign_by_nearest(pos_new: np.ndarray, pos: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """Region of each new channel = region of the nearest known channel (montage transfer)."""
    checks.shape("pos_new", pos_new, (None, 3))
    checks.shape("pos", pos, (None, 3))
    checks.shape("labels", labels, (len(pos),))
    d = np.linalg.norm(np.asarray(pos_new)[:, None] - np.asarray(pos)[None], axis=-1)
    return np.asarray(labels)[d.argmin(1)]


def align_labels(labels: np.ndarray, reference: np.ndarray) -> np.ndarray:
    """Relabel ``labels`` to maximise overlap with ``reference`` (Hungarian matching)."""
    from scipy.optimize import linear_sum_assignment

    labels, reference = np.asarray(labels), np.asarray(reference)
    checks.shape("labels", labels, (len(reference),))
    k = int(max(labels.max(), reference.max())) + 1
    overlap = np.zeros((k, k))
    np.add.at(overlap, (labels, reference), 1)
    rows, cols = linear_sum_assignment(-overlap)
    mapping = np.empty(k, dtype=np.int64)
    mapping[rows] = cols
    return mapping[labels]


def spectral_partition(W: np.ndarray, k: int, *, seed: int = 0) -> np.ndarray:
    """Normalised spectral clustering of a symmetric affinity ``W >= 0`` into ``k`` groups.

    Ng-Jordan-Weiss: top-``k`` eigenvectors of ``D^-1/2 W D^-1/2``, rows normalised, k-means.
    """
    from sklearn.cluster import KMeans

    W = np.asarray(W, dtype=np.float64)
    checks.shape("W", W, (None, W.shape[0]))
    checks.finite("W", W)
    if (W < 0).any() or not np.allclose(W, W.T):
        raise ValueError("W must be symmetric and non-negative")
    k = checks.integer("k", k, low=1, high=W.shape[0])
    d = W.sum(1)
    dinv = 1.0 / np.sqrt(np.maximum(d, 1e-12))
    _, vecs = np.linalg.eigh(dinv[:, None] * W * dinv[None])
    U = vecs[:, -k:]
    U = U / np.maximum(np.linalg.norm(U, axis=1, keepdims=True), 1e-12)
    return KMeans(k, n_init=10, random_state=seed).fit_predict(U)


def adaptive_partition(
    anatomical: np.ndarray, W_func: np.ndarray, eta: float, k: int, *, seed: int = 0
) -> np.ndarray:
    """Adaptive functional partition (:prf:ref:`rector-def-afp`), a hard partition.

    At ``eta = 0`` the anatomical partition; otherwise spectral clustering into ``k`` groups of
    ``(1 - eta) W_anat + eta W_func``, with ``W_anat`` the same-region indicator.
    """
    anatomical = np.asarray(anatomical)
    checks.shape("W_func", W_func, (len(anatomical), len(anatomical)))
    eta = checks.real("eta", eta, low=0.0, high=1.0)
    if eta == 0.0:
        return anatomical.copy()
    W_anat = (anatomical[:, None] == anatomical[None]).astype(np.float64)
    return spectral_partition((1 - eta) * W_anat + eta * np.asarray(W_func), k, seed=seed)


# --- the generator -----------------------------------------------------------------------


@dataclass(frozen=True)
class EEGData:
    """Simulated windows: ``x`` (N, C, L), labels ``y``, ``subject`` ids, truth per channel."""

    x: np.ndarray
    y: np.ndarray
    subject: np.ndarray
    functional: np.ndarray
    fs: float


def _ar2(peak: float, fs: float, radius: float) -> tuple[np.ndarray, float]:
    a = np.array([1.0, -2 * radius * np.cos(2 * np.pi * peak / fs), radius**2])
    from scipy.signal import lfilter

    h = lfilter([1.0], a, np.r_[1.0, np.zeros(4095)])
    return a, float(np.sqrt((h**2).sum()))


def _pink(rng: np.random.Generator, shape: tuple[int, ...], n: int) -> np.ndarray:
    spec = rng.standard_normal((*shape, n // 2 + 1)) + 1j * rng.standard_normal(
        (*shape, n // 2 + 1)
    )
    f = np.arange(n // 2 + 1, dtype=np.float64)
    f[0] = 1.0
    x = np.fft.irfft(spec / np.sqrt(f), n=n, axis=-1)
    return x / x.std(axis=-1, keepdims=True)


def simulate_eeg(
    pos: np.ndarray,
    centres: np.ndarray,
    n_subjects: int,
    n_windows: int,
    *,
    seed: int,
    fs: float = 128.0,
    n_samples: int = 128,
    rho: float = 0.03,
    radius: float = 0.96,
    pink_std: float = 0.5,
    noise_std: float = 0.2,
    alpha_gain: float = 1.6,
    beta_gain: float = 0.7,
    first_subject: int = 0,
    conduction: float = 0.0,
) -> EEGData:
    """Synthetic EEG on a montage: AR(2) sources at ``PEAKS_HZ``, Gaussian mixing.

    ``x_c = g_c (Σ_j w_cj s_j + pink_c) + noise`` with ``w_cj = exp(-|pos_c - ctr_j|²/2ρ²)``;
    per subject, channel gains ``g_c ~ U(0.8, 1.2)`` and centres jittered by 1 cm. Class
    ``y = 1`` multiplies the 10 Hz source by ``alpha_gain`` and the 20 Hz source by
    ``beta_gain``. Subjects are seeded by ``(seed, first_subject + s)``, so the same subject
    can be recorded on two montages. ``conduction > 0`` adds volume conduction: the scalp
    signal (sources and background, not the sensor noise) is smoothed over the electrodes
    with a row-normalised Gaussian kernel of that width (metres).
    """
    from scipy.signal import lfilter

    pos = np.asarray(pos, dtype=np.float64)
    checks.shape("pos", pos, (None, 3))
    checks.shape("centres", centres, (len(PEAKS_HZ), 3))
    n_subjects = checks.integer("n_subjects", n_subjects, low=1)
    n_windows = checks.integer("n_windows", n_windows, low=2)
    n_samples = checks.integer("n_samples", n_samples, low=8)
    fs = checks.real("fs", fs, low=0.0, strict=True)
    rho = checks.real("rho", rho, low=0.0, strict=True)
    radius = checks.real("radius", radius, low=0.0, high=1.0, strict=True)
    checks.real("pink_std", pink_std, low=0.0)
    checks.real("noise_std", noise_std, low=0.0)
    checks.real("alpha_gain", alpha_gain, low=0.0)
    checks.real("beta_gain", beta_gain, low=0.0)
    conduction = checks.real("conduction", conduction, low=0.0)
    if max(PEAKS_HZ) >= fs / 2:
        raise ValueError(f"fs must exceed twice the highest peak {max(PEAKS_HZ)} Hz, got {fs}")
    C, S, burn = len(pos), len(PEAKS_HZ), 256
    if conduction > 0:
        K = np.exp(-((pos[:, None] - pos[None]) ** 2).sum(-1) / (2 * conduction**2))
        K /= K.sum(1, keepdims=True)
    else:
        K = np.eye(C)
    xs, ys, subj = [], [], []
    for s in range(n_subjects):
        sid = first_subject + s
        r = np.random.default_rng([seed, sid])
        ctr = np.asarray(centres) + 0.01 * r.standard_normal((S, 3))
        gain_c = r.uniform(0.8, 1.2, C)  # drawn per montage position (order = pos)
        w = np.exp(-((pos[:, None] - ctr[None]) ** 2).sum(-1) / (2 * rho**2))  # (C, S)
        y = r.permutation(np.arange(n_windows) % 2)
        src = np.empty((n_windows, S, n_samples))
        white = r.standard_normal((n_windows, S, n_samples + burn))
        for j, peak in enumerate(PEAKS_HZ):
            a, g = _ar2(peak, fs, radius)
            src[:, j] = lfilter([1.0], a, white[:, j], axis=-1)[:, burn:] / g
        amp = np.ones((n_windows, S))
        amp[y == 1, PEAKS_HZ.index(10.0)] = alpha_gain
        amp[y == 1, PEAKS_HZ.index(20.0)] = beta_gain
        mixed = np.einsum("cs,nsl->ncl", w, amp[:, :, None] * src)
        bg = pink_std * _pink(r, (n_windows, C), n_samples)
        scalp = np.einsum("cd,ndl->ncl", K, mixed + bg)
        x = gain_c[None, :, None] * scalp + noise_std * r.standard_normal(mixed.shape)
        xs.append(x)
        ys.append(y)
        subj.append(np.full(n_windows, sid))
    return EEGData(
        x=np.concatenate(xs).astype(np.float32),
        y=np.concatenate(ys),
        subject=np.concatenate(subj),
        functional=functional_regions(pos, centres),
        fs=fs,
    )


def patchify(x: np.ndarray | torch.Tensor, patch: int) -> torch.Tensor:
    """Per-window, per-channel z-score, then cut into patches: ``(N, C, L) → (N, C, T, P)``."""
    x = torch.as_tensor(x)
    checks.shape("x", x, (None, None, None))
    patch = checks.integer("patch", patch, low=1)
    if x.shape[-1] % patch:
        raise ValueError(f"patch must divide the window length {x.shape[-1]}, got {patch}")
    z = (x - x.mean(-1, keepdim=True)) / (x.std(-1, keepdim=True) + 1e-6)
    return z.reshape(*x.shape[:2], x.shape[-1] // patch, patch)


def band_power_features(x: np.ndarray, fs: float) -> np.ndarray:
    """Log Welch power in 4-8, 8-12, 12-16, 16-24, 24-40 Hz per channel: ``(N, C·5)``."""
    from scipy.signal import welch

    checks.shape("x", x, (None, None, None))
    fs = checks.real("fs", fs, low=0.0, strict=True)
    f, p = welch(x, fs=fs, nperseg=min(64, x.shape[-1]), axis=-1)
    bands = [(4, 8), (8, 12), (12, 16), (16, 24), (24, 40)]
    bp = np.stack([p[..., (f >= lo) & (f < hi)].mean(-1) for lo, hi in bands], -1)
    return np.log(bp + 1e-12).reshape(len(x), -1)


def plv(x: np.ndarray, fs: float, band: tuple[float, float]) -> np.ndarray:
    """Phase-locking value between channels, averaged over the frequencies of ``band``.

    ``x`` is ``(N, C, L)`` epochs, de-meaned and Hann-tapered; at each FFT bin ``f`` in ``band``,
    ``PLV_cd(f) = |mean_n S_c S_d^* / |S_c S_d^*||``, then the mean over the bins: ``(C, C)``.
    """
    checks.shape("x", x, (None, None, None))
    fs = checks.real("fs", fs, low=0.0, strict=True)
    lo, hi = band
    if not 0 <= lo < hi <= fs / 2:
        raise ValueError(f"band must satisfy 0 <= low < high <= fs/2, got {band}")
    f = np.fft.rfftfreq(x.shape[-1], 1 / fs)
    xw = (x - x.mean(-1, keepdims=True)) * np.hanning(x.shape[-1])
    S = np.fft.rfft(xw, axis=-1)[..., (f >= lo) & (f <= hi)]  # (N, C, F)
    u = S / np.maximum(np.abs(S), 1e-300)
    return np.abs(np.einsum("ncf,ndf->cdf", u, u.conj()) / len(x)).mean(-1)


# --- attention ---------------------------------------------------------------------------


def _regions(name: str, regions: object) -> torch.Tensor:
    r = torch.as_tensor(np.asarray(regions), dtype=torch.long)
    checks.shape(name, r, (None,))
    if len(r) == 0 or int(r.min()) < 0:
        raise ValueError(f"{name} must be a non-empty vector of non-negative region ids")
    return r


def block_mask(regions: object, T: int) -> torch.Tensor:
    """Intra-region mask ``M¹`` on ``C·T`` time-major tokens (:prf:ref:`rector-def-mask`).

    ``True`` = allowed (the convention of ``scaled_dot_product_attention``).
    """
    r = _regions("regions", regions)
    T = checks.integer("T", T, low=1)
    same = r[:, None] == r[None]
    return torch.block_diag(*[same] * T)


def level_masks(regions: object, T: int) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """The three masks of one RECTOR-SA layer (:prf:ref:`rector-prop-cost`).

    Channel level ``(CT, CT)`` = :func:`block_mask`; region level ``(RT, RT)``: same patch;
    temporal level ``(RT, RT)``: same region. Region tokens are time-major, ``τ·R + r``.
    """
    r = _regions("regions", regions)
    T = checks.integer("T", T, low=1)
    R = len(torch.unique(r))
    tau = torch.arange(R * T) // R
    reg = torch.arange(R * T) % R
    return block_mask(r, T), tau[:, None] == tau[None], reg[:, None] == reg[None]


def attention_cost(sizes: object, T: int) -> tuple[int, int]:
    """Score entries of RECTOR-SA, ``T Σ n_r² + T R² + R T²``, and of dense ``(C T)²``."""
    n = np.asarray(sizes, dtype=np.int64)
    if n.ndim != 1 or len(n) == 0 or (n < 1).any():
        raise ValueError(f"sizes must be a vector of positive region sizes, got {sizes!r}")
    T = checks.integer("T", T, low=1)
    R, C = len(n), int(n.sum())
    return int(T * (n**2).sum() + T * R * R + R * T * T), (C * T) ** 2


def masked_attention(
    q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, mask: torch.Tensor
) -> torch.Tensor:
    """``softmax(QKᵀ/√d + log M) V`` through SDPA with a boolean ``mask`` (True = allowed)."""
    checks.shape("k", k, q.shape)
    checks.shape("v", v, q.shape)
    checks.shape("mask", mask, (q.shape[-2], q.shape[-2]))
    if mask.dtype != torch.bool:
        raise ValueError("mask must be boolean (True = allowed)")
    return F.scaled_dot_product_attention(q, k, v, attn_mask=mask)


def block_sparse_attention(
    q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, regions: object
) -> torch.Tensor:
    """Within-region channel attention computed on the blocks only (the fast kernel).

    ``q, k, v`` are ``(..., T, C, d)``; channels are gathered region by region into a padded
    ``(..., T, R, n_max, d)`` tensor, so the cost is ``T R n_max²`` instead of ``(C T)²``.
    """
    checks.shape("q", q, (*q.shape[:-2], None, None))
    checks.shape("k", k, q.shape)
    checks.shape("v", v, q.shape)
    r = _regions("regions", regions)
    if len(r) != q.shape[-2]:
        raise ValueError(f"regions must have one entry per channel ({q.shape[-2]}), got {len(r)}")
    ids, r = torch.unique(r, return_inverse=True)
    R = len(ids)
    counts = torch.bincount(r, minlength=R)
    n_max = int(counts.max())
    order = torch.argsort(r, stable=True)
    start = torch.cumsum(counts, 0) - counts
    slot = torch.arange(len(r)) - start[r[order]]
    index = torch.zeros(R, n_max, dtype=torch.long)
    valid = torch.zeros(R, n_max, dtype=torch.bool)
    index[r[order], slot] = order
    valid[r[order], slot] = True
    qb, kb, vb = (t[..., index, :] for t in (q, k, v))  # (..., T, R, n_max, d)
    allowed = valid[:, None, :].expand(R, n_max, n_max)
    out = F.scaled_dot_product_attention(qb, kb, vb, attn_mask=allowed)
    res = torch.empty_like(q)
    res[..., index[valid], :] = out[..., valid, :]
    return res


class _Attention(nn.Module):
    def __init__(self, d: int, heads: int) -> None:
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(d, 3 * d)
        self.out = nn.Linear(d, d)

    def forward(self, x: torch.Tensor, mask: torch.Tensor | None = None) -> torch.Tensor:
        *lead, n, d = x.shape
        q, k, v = self.qkv(x).reshape(*lead, n, 3, self.heads, d // self.heads).unbind(-3)
        q, k, v = (t.transpose(-2, -3) for t in (q, k, v))
        o = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
        return self.out(o.transpose(-2, -3).reshape(*lead, n, d))


class _Layer(nn.Module):
    def __init__(self, d: int, heads: int) -> None:
        super().__init__()
        self.chan, self.reg, self.time = (_Attention(d, heads) for _ in range(3))
        self.n1, self.n2, self.n3, self.n4 = (nn.LayerNorm(d) for _ in range(4))
        self.mlp = nn.Sequential(nn.Linear(d, 2 * d), nn.GELU(), nn.Linear(2 * d, d))

    def forward(
        self, h: torch.Tensor, regions: torch.Tensor, R: int, reg_emb: torch.Tensor
    ) -> torch.Tensor:
        # h: (B, T, C, d). (i) channels attend within their region, at the same patch
        same = torch.zeros(len(regions), len(regions), dtype=h.dtype)
        same.masked_fill_(regions[:, None] != regions[None], -torch.inf)  # additive log M
        h = h + self.chan(self.n1(h), same.to(h.device))
        # (ii) region tokens: mean of their channels (removed channels simply absent)
        onehot = F.one_hot(regions, R).to(h.dtype)  # (C, R)
        counts = onehot.sum(0)
        present = counts > 0
        z = torch.einsum("btcd,cr->btrd", h, onehot) / counts.clamp(min=1)[:, None] + reg_emb
        bias = torch.zeros(R, dtype=h.dtype, device=h.device).masked_fill(~present, -torch.inf)
        z = z + self.reg(self.n2(z), bias.expand(R, R))
        # (iii) temporal attention of region tokens across patches
        z = z + self.time(self.n3(z.transpose(1, 2))).transpose(1, 2)
        # (iv) broadcast back to the channels of each region, then the MLP
        h = h + z[:, :, regions]
        return h + self.mlp(self.n4(h))


class RectorEncoder(nn.Module):
    """Hierarchical RECTOR-SA encoder (:prf:ref:`rector-def-layer`), a reconstruction.

    Tokens ``h⁰ = W_p x + e_chan + e_time + e_reg``. ``channel_embedding="position"`` makes
    ``e_chan`` an MLP of the electrode position (any montage can be embedded);
    ``"index"`` makes it a lookup over the names of ``vocabulary`` (the training montage).
    """

    def __init__(
        self,
        patch: int,
        T: int,
        *,
        d: int = 32,
        heads: int = 2,
        layers: int = 1,
        max_regions: int = 8,
        channel_embedding: str = "position",
        vocabulary: list[str] | None = None,
    ) -> None:
        super().__init__()
        self.patch = checks.integer("patch", patch, low=1)
        self.T = checks.integer("T", T, low=1)
        d = checks.integer("d", d, low=2)
        heads = checks.integer("heads", heads, low=1)
        if d % heads:
            raise ValueError(f"heads must divide d = {d}, got {heads}")
        checks.integer("layers", layers, low=1)
        self.max_regions = checks.integer("max_regions", max_regions, low=1)
        if channel_embedding not in ("position", "index"):
            raise ValueError(
                f"channel_embedding must be 'position' or 'index', got {channel_embedding!r}"
            )
        if channel_embedding == "index" and not vocabulary:
            raise ValueError("vocabulary must list the channel names of an index embedding")
        self.kind = channel_embedding
        self.vocabulary = {n: i for i, n in enumerate(vocabulary or [])}
        self.proj = nn.Linear(patch, d)
        self.mask_token = nn.Parameter(0.02 * torch.randn(d))
        self.time_emb = nn.Parameter(0.02 * torch.randn(T, d))
        self.reg_emb = nn.Parameter(0.02 * torch.randn(max_regions, d))
        if channel_embedding == "position":
            self.chan = nn.Sequential(nn.Linear(3, d), nn.GELU(), nn.Linear(d, d))
        else:
            self.chan = nn.Embedding(len(self.vocabulary), d)
        self.layers = nn.ModuleList(_Layer(d, heads) for _ in range(layers))
        self.norm = nn.LayerNorm(d)
        self.d = d

    def channel_embedding(self, pos: torch.Tensor, names: list[str] | None) -> torch.Tensor:
        """``e_chan`` for the channels given by position (metres) or by name."""
        if self.kind == "position":
            return self.chan(pos.to(self.time_emb.dtype) / HEAD_RADIUS)
        if names is None:
            raise ValueError("names are required by an index channel embedding")
        unknown = [n for n in names if n not in self.vocabulary]
        if unknown:
            raise ValueError(f"names: {unknown[:3]} not in the index vocabulary of the encoder")
        return self.chan(torch.tensor([self.vocabulary[n] for n in names], device=pos.device))

    def forward(
        self,
        x: torch.Tensor,
        pos: torch.Tensor,
        regions: object,
        *,
        names: list[str] | None = None,
        masked: torch.Tensor | None = None,
    ) -> torch.Tensor:
        """Channel tokens ``(B, T, C, d)`` of patches ``x`` ``(B, C, T, P)``.

        ``masked`` ``(B, C, T)`` replaces those tokens' content by the [MASK] embedding.
        Missing channels are handled by leaving them out of ``x``, ``pos`` and ``regions``.
        """
        checks.shape("x", x, (None, None, self.T, self.patch))
        C = x.shape[1]
        checks.shape("pos", pos, (C, 3))
        r = _regions("regions", regions)
        if len(r) != C or int(r.max()) >= self.max_regions:
            raise ValueError(f"regions must be {C} ids below {self.max_regions}")
        dev = self.time_emb.device
        r = r.to(dev)
        tok = self.proj(x.to(dev, self.time_emb.dtype)).transpose(1, 2)  # (B, T, C, d)
        if masked is not None:
            checks.shape("masked", masked, (x.shape[0], C, self.T))
            tok = torch.where(masked.to(dev).transpose(1, 2)[..., None], self.mask_token, tok)
        e = self.channel_embedding(torch.as_tensor(pos).to(dev), names)
        h = tok + e[None, None] + self.time_emb[None, :, None] + self.reg_emb[r][None, None]
        for layer in self.layers:
            h = layer(h, r, self.max_regions, self.reg_emb)
        return self.norm(h)


# --- pre-training ------------------------------------------------------------------------


def structured_mask(
    B: int,
    regions: object,
    T: int,
    kinds: tuple[str, ...],
    generator: torch.Generator,
    *,
    channel_p: float = 0.25,
) -> torch.Tensor:
    """One masked view ``(B, C, T)`` (:prf:ref:`rector-def-views`), ``True`` = masked.

    ``"region"``: one random region over a random span of ``T/2`` patches; ``"channel"``: each
    channel with probability ``channel_p`` over all patches; ``"time"``: a contiguous span of
    ``T/4`` patches on all channels (``T/2`` when it is the only kind).
    """
    B = checks.integer("B", B, low=1)
    r = _regions("regions", regions)
    T = checks.integer("T", T, low=1)
    checks.real("channel_p", channel_p, low=0.0, high=1.0)
    if not kinds or any(k not in ("region", "channel", "time") for k in kinds):
        raise ValueError(f"kinds must be a non-empty subset of region/channel/time, got {kinds!r}")
    C = len(r)
    ids = torch.unique(r)
    t = torch.arange(T)
    m = torch.zeros(B, C, T, dtype=torch.bool)
    if "region" in kinds:
        span = max(T // 2, 1)
        pick = ids[torch.randint(len(ids), (B,), generator=generator)]
        s = torch.randint(T - span + 1, (B, 1), generator=generator)
        m |= (r[None] == pick[:, None])[:, :, None] & ((t >= s) & (t < s + span))[:, None]
    if "channel" in kinds:
        m |= (torch.rand(B, C, generator=generator) < channel_p)[:, :, None]
    if "time" in kinds:
        span = max(T // 2 if kinds == ("time",) else T // 4, 1)
        s = torch.randint(T - span + 1, (B, 1), generator=generator)
        m |= ((t >= s) & (t < s + span))[:, None]
    return m


def rector_losses(
    enc: RectorEncoder,
    heads: nn.ModuleDict,
    x: torch.Tensor,
    pos: torch.Tensor,
    regions: object,
    views: tuple[torch.Tensor, torch.Tensor],
    *,
    weights: tuple[float, float, float] = (1.0, 0.5, 0.5),
    temperature: float = 0.1,
) -> dict[str, torch.Tensor]:
    """The three objectives (:prf:ref:`rector-def-views`) on two masked views of ``x``.

    MPM: MSE of the decoded masked patches; TSM: ``|cos(H, H) - G|²_F / C²`` with ``G`` the
    window's channel correlation; CVC: InfoNCE between the pooled views. ``heads`` holds
    ``"decoder"`` (d→P) and ``"project"`` (d→d).
    """
    checks.real("temperature", temperature, low=0.0, strict=True)
    if len(weights) != 3 or any(w < 0 for w in weights):
        raise ValueError(f"weights must be three non-negative numbers, got {weights!r}")
    x = x.to(enc.time_emb.device)
    views = tuple(v.to(x.device) for v in views)
    B, C, T, P = x.shape
    flat = x.reshape(B, C, T * P)
    flat = flat - flat.mean(-1, keepdim=True)
    flat = flat / flat.norm(dim=-1, keepdim=True).clamp(min=1e-12)
    G = flat @ flat.transpose(1, 2)  # (B, C, C) per-window correlation
    m = torch.cat(views)  # both views in one forward pass
    x2 = torch.cat([x, x])
    h = enc(x2, pos, regions, masked=m)  # (2B, T, C, d)
    rec = heads["decoder"](h).transpose(1, 2)  # (2B, C, T, P)
    mpm = ((rec - x2) ** 2).mean(-1)[m].mean()
    H = F.normalize(h.mean(1), dim=-1)  # (2B, C, d)
    tsm = ((H @ H.transpose(1, 2) - torch.cat([G, G])) ** 2).mean()
    u = F.normalize(heads["project"](h.mean((1, 2))), dim=-1)
    logits = u[:B] @ u[B:].T / temperature
    cvc = F.cross_entropy(logits, torch.arange(B, device=x.device))
    total = weights[0] * mpm + weights[1] * tsm + weights[2] * cvc
    return {"total": total, "mpm": mpm, "tsm": tsm, "cvc": cvc, "G": G.detach()}


def embed(
    enc: RectorEncoder,
    x: torch.Tensor,
    pos: object,
    regions: object,
    *,
    names: list[str] | None = None,
    batch: int = 256,
) -> np.ndarray:
    """Frozen window embeddings: mean and std of the final channel tokens, ``(N, 2d)``."""
    batch = checks.integer("batch", batch, low=1)
    pos_t = torch.as_tensor(np.asarray(pos), dtype=torch.float32)
    out = []
    with torch.no_grad():
        for i in range(0, len(x), batch):
            h = enc(x[i : i + batch], pos_t, regions, names=names)
            mean = h.mean((1, 2))
            sd = ((h * h).mean((1, 2)) - mean * mean).clamp(min=0).sqrt()
            out.append(torch.cat([mean, sd], -1).cpu())
    return torch.cat(out).numpy()


@dataclass
class PretrainResult:
    """Loss history ``(steps, 4)`` (total, MPM, TSM, CVC) and the partitions visited."""

    history: np.ndarray
    partitions: list[np.ndarray]
    regions: np.ndarray
    connectivity: np.ndarray


__all__.append("PretrainResult")


def pretrain(
    enc: RectorEncoder,
    x: torch.Tensor,
    pos: np.ndarray,
    anatomical: np.ndarray,
    *,
    steps: int,
    batch: int,
    kinds: tuple[str, ...],
    seed: int,
    k_functional: int = 5,
    afp_every: int = 25,
    lr: float = 1e-3,
    weights: tuple[float, float, float] = (1.0, 0.5, 0.5),
    progress: object = None,
) -> PretrainResult:
    """Pre-train ``enc`` on patches ``x`` ``(N, C, T, P)`` (:prf:ref:`rector-def-afp`).

    Every ``afp_every`` steps the partition is recomputed with :func:`adaptive_partition` on
    the functional connectivity seen so far (the running mean of the windows' ``|corr|``, the
    TSM target), with ``η`` ramping linearly from 0 to 1, and aligned to the previous
    partition; the block mask follows it.
    """
    steps = checks.integer("steps", steps, low=1)
    batch = checks.integer("batch", batch, low=2, high=len(x))
    afp_every = checks.integer("afp_every", afp_every, low=1)
    lr = checks.real("lr", lr, low=0.0, strict=True)
    gen = torch.Generator().manual_seed(seed)
    heads = nn.ModuleDict(
        {"decoder": nn.Linear(enc.d, enc.patch), "project": nn.Linear(enc.d, enc.d)}
    ).to(enc.time_emb.device)
    params = list(enc.parameters()) + list(heads.parameters())
    opt = torch.optim.AdamW(params, lr=lr, weight_decay=0.01)
    pos_t = torch.as_tensor(pos, dtype=torch.float32)
    regions = np.asarray(anatomical).copy()
    partitions, hist = [regions.copy()], []
    fc = np.zeros((len(regions), len(regions)))
    enc.train()
    for step in progress(range(steps)) if progress is not None else range(steps):
        idx = torch.randint(len(x), (batch,), generator=gen)
        xb = x[idx]
        views = tuple(structured_mask(batch, regions, enc.T, kinds, gen) for _ in range(2))
        losses = rector_losses(enc, heads, xb, pos_t, regions, views, weights=weights)
        opt.zero_grad()
        losses["total"].backward()
        opt.step()
        hist.append([float(losses[k].detach()) for k in ("total", "mpm", "tsm", "cvc")])
        fc += losses["G"].abs().mean(0).double().cpu().numpy()
        if (step + 1) % afp_every == 0:
            eta = (step + 1) / steps
            W = fc / (step + 1)
            new = adaptive_partition(anatomical, (W + W.T) / 2, eta, k_functional, seed=seed)
            regions = align_labels(new, regions)
            partitions.append(regions.copy())
    enc.eval()
    return PretrainResult(np.array(hist), partitions, regions, fc / steps)


def probe_f1(
    z_train: np.ndarray,
    y_train: np.ndarray,
    z_test: np.ndarray,
    y_test: np.ndarray,
    *,
    C: float = 1.0,
) -> float:
    """Weighted F1 of a standardised logistic-regression probe (train → test)."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.metrics import f1_score
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    checks.shape("z_train", z_train, (len(y_train), None))
    checks.shape("z_test", z_test, (len(y_test), z_train.shape[1]))
    C = checks.real("C", C, low=0.0, strict=True)
    clf = make_pipeline(StandardScaler(), LogisticRegression(C=C, max_iter=2000))
    clf.fit(z_train, y_train)
    return float(f1_score(y_test, clf.predict(z_test), average="weighted"))
