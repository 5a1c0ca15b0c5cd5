"""Electrode montages and the partitions defined on them (chapter 19, rector).

Channel names and positions of MNE's built-in montages, the anatomical partition by 10-20
name prefix (:prf:ref:`rector-def-mask`), the simulated functional ground truth (nearest
source), and the transfer of a partition to electrodes of another montage.
"""

from __future__ import annotations

import numpy as np

from icml26 import checks

__all__ = [
    "HEAD_RADIUS",
    "REGION_NAMES",
    "anatomical_regions",
    "assign_by_nearest",
    "functional_regions",
    "montage",
    "separated_centres",
]

#: Radius (metres) of the sphere MNE's standard montages sit on.
HEAD_RADIUS = 0.095
#: The anatomical regions, in the order of :func:`anatomical_regions`' indices.
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


def _positions(name: str, pos: object, n: int | None = None) -> np.ndarray:
    """``pos`` as a finite float64 ``(n, 3)`` array (any number of rows when ``n`` is None)."""
    pos = checks.as_float64(name, pos)
    checks.shape(name, pos, (n, 3))
    checks.finite(name, pos)
    return pos


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
    :data:`REGION_NAMES`.
    """
    if isinstance(names, str) or not all(isinstance(n, str) for n in names):
        raise ValueError("names must be a list of channel names")
    pos = _positions("pos", pos, len(names))
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
    n: int,
    min_sep: float,
    rng: np.random.Generator,
    *,
    z_min: float = 0.0,
    tries: int = 10000,
) -> np.ndarray:
    """``n`` points on the head sphere with ``z >= z_min`` and pairwise distance ``>= min_sep``.

    Rejection sampling: the sources of the simulated EEG are kept apart, so that each owns a
    functional region of several electrodes.
    """
    n = checks.integer("n", n, low=1)
    min_sep = checks.real("min_sep", min_sep, low=0.0)
    z_min = checks.real("z_min", z_min, low=-HEAD_RADIUS, high=HEAD_RADIUS)
    tries = checks.integer("tries", tries, low=1)
    if not isinstance(rng, np.random.Generator):
        raise ValueError(f"rng must be a numpy Generator, got {type(rng).__name__}")
    out: list[np.ndarray] = []
    for _ in range(tries):
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
    """Ground-truth functional region of each channel: the index of its nearest source."""
    pos = _positions("pos", pos)
    centres = _positions("centres", centres)
    if len(centres) == 0:
        raise ValueError("centres must hold at least one source")
    d = np.linalg.norm(pos[:, None] - centres[None], axis=-1)
    return d.argmin(1)


def assign_by_nearest(pos_new: np.ndarray, pos: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """Region of each new channel = region of the nearest known channel (montage transfer)."""
    pos_new = _positions("pos_new", pos_new)
    pos = _positions("pos", pos)
    if len(pos) == 0:
        raise ValueError("pos must hold at least one known channel")
    labels = np.asarray(labels)
    checks.shape("labels", labels, (len(pos),))
    d = np.linalg.norm(pos_new[:, None] - pos[None], axis=-1)
    return labels[d.argmin(1)]
