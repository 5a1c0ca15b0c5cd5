"""The book's matplotlib style: readable fonts and a colour-blind-safe palette.

Figures are notebook outputs (no ``savefig``): a chapter calls :func:`use_book_style` once
and draws with the colours in :data:`PALETTE` (Okabe & Ito, 2008).
"""

from __future__ import annotations

import matplotlib as mpl
from cycler import cycler

__all__ = [
    "color",
    "use_book_style",
]

#: Okabe–Ito colour-blind-safe palette, in the order the book uses it.
PALETTE: tuple[str, ...] = (
    "#0072B2",  # blue
    "#D55E00",  # vermillion
    "#009E73",  # bluish green
    "#CC79A7",  # reddish purple
    "#E69F00",  # orange
    "#56B4E9",  # sky blue
    "#F0E442",  # yellow
    "#000000",  # black
)

STYLE: dict[str, object] = {
    "figure.figsize": (6.4, 4.0),
    "figure.dpi": 110,
    "figure.constrained_layout.use": True,
    "font.size": 11,
    "axes.titlesize": 12,
    "axes.labelsize": 11,
    "legend.fontsize": 9.5,
    "legend.frameon": False,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "grid.linewidth": 0.6,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.prop_cycle": cycler(color=list(PALETTE)),
    "lines.linewidth": 1.8,
    "lines.markersize": 5,
    "image.cmap": "viridis",
    "svg.hashsalt": "icml26",
}


def use_book_style() -> None:
    """Apply the book's style to matplotlib's global ``rcParams``."""
    mpl.rcParams.update(STYLE)


def color(i: int) -> str:
    """The ``i``-th palette colour (cycling)."""
    return PALETTE[int(i) % len(PALETTE)]
