"""The book's matplotlib style: readable fonts and a colour-blind-safe palette.

Figures are notebook outputs (no ``savefig``): a chapter calls :func:`use_book_style` once
and draws with the colours in ``PALETTE`` (Okabe & Ito, 2008).

Sizes are chosen for the book's column. At ``figure.dpi`` 96, one inch of figure is 96 CSS
pixels, so a figure at most :data:`MAX_WIDTH_IN` (7.5 in, 720 px) wide is shown at its own
size in the column at 1280 px (730 px) and a point of text is a point on screen: text of at
least :data:`MIN_FONT_PT` (8 pt) stays legible. :func:`legibility_problems` lists what
breaks this in a figure (a chapter can assert it is empty before ``plt.show()``).
"""

from __future__ import annotations

import matplotlib as mpl
from cycler import cycler

__all__ = [
    "DPI",
    "MAX_WIDTH_IN",
    "MIN_FONT_PT",
    "color",
    "diagram",
    "legibility_problems",
    "use_book_style",
]

#: Resolution of figures in CSS pixels per inch: a point of text is a point on screen.
DPI = 96
#: The widest figure the book's column shows at its own size (720 CSS px at :data:`DPI`).
MAX_WIDTH_IN = 7.5
#: The smallest legible text in a figure (legends, ticks, labels, annotations).
MIN_FONT_PT = 8.0

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
    "figure.dpi": DPI,
    "figure.constrained_layout.use": True,
    "font.size": 11,
    "axes.titlesize": 12,
    "axes.labelsize": 11,
    "xtick.labelsize": 10,
    "ytick.labelsize": 10,
    "legend.fontsize": 9.5,
    "legend.title_fontsize": 10,
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
    """Apply the book's style to matplotlib's global ``rcParams``.

    In a notebook, figures are also rendered at twice the resolution (``retina``), so that
    they stay sharp at the book's page width.
    """
    mpl.rcParams.update(STYLE)  # type: ignore[arg-type]  # keys are checked by matplotlib
    try:
        from IPython import get_ipython
        from matplotlib_inline.backend_inline import set_matplotlib_formats
    except ImportError:  # plain Python: nothing to configure
        return
    if get_ipython() is not None:
        set_matplotlib_formats("retina")


def legibility_problems(fig) -> list[str]:
    """What makes ``fig`` hard to read in the book's column: a width over
    :data:`MAX_WIDTH_IN`, or visible text smaller than :data:`MIN_FONT_PT` (tick labels,
    axis labels, titles, legends, annotations). Empty when the figure is fine."""
    from matplotlib.figure import Figure
    from matplotlib.text import Text

    if not isinstance(fig, Figure):
        raise ValueError(f"fig must be a matplotlib Figure, got {type(fig).__name__}")
    problems = []
    width = float(fig.get_figwidth())
    if width > MAX_WIDTH_IN + 1e-9:
        problems.append(f"figure {width:.2f} in wide > {MAX_WIDTH_IN} in")
    fig.canvas.draw()  # tick labels exist only once drawn
    seen = set()
    for text in fig.findobj(Text):
        content = text.get_text().strip()
        if not content or not text.get_visible() or id(text) in seen:
            continue
        seen.add(id(text))
        size = float(text.get_fontsize())
        if size < MIN_FONT_PT - 1e-9:
            problems.append(f"text {content[:30]!r} at {size:g} pt < {MIN_FONT_PT:g} pt")
    return problems


def color(i: int) -> str:
    """The ``i``-th palette colour (cycling)."""
    return PALETTE[int(i) % len(PALETTE)]


def diagram(
    ax,
    boxes: dict[str, tuple[float, float, str]],
    arrows: list[tuple[str, str, str]],
    *,
    colors: dict[str, int] | None = None,
    fontsize: float = 10,
) -> None:
    """Draw a box-and-arrow diagram (a model, a pipeline, a graphical model) on ``ax``.

    ``boxes`` maps a name to ``(x, y, text)`` in axes coordinates (0..1, TeX allowed in the
    text); ``arrows`` lists ``(from, to, label)``; ``colors`` picks a palette colour per box.
    The axes are switched off: a diagram explains, it has no scale.
    """
    if not isinstance(boxes, dict) or not boxes:
        raise ValueError("boxes must be a non-empty dict name -> (x, y, text)")
    for a, b, _ in arrows:
        if a not in boxes or b not in boxes:
            raise ValueError(f"arrows must join known boxes, got {a!r} -> {b!r}")
    colors = colors or {}
    ax.set_axis_off()
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    drawn = {}
    for name, (x, y, text) in boxes.items():
        c = color(colors.get(name, 0))
        drawn[name] = ax.text(
            x,
            y,
            text,
            ha="center",
            va="center",
            fontsize=fontsize,
            bbox={"boxstyle": "round,pad=0.45", "fc": c + "22", "ec": c, "lw": 1.4},
        )
    ax.figure.canvas.draw()  # the boxes need their size before arrows can meet their edges
    for a, b, label in arrows:
        (xa, ya, _), (xb, yb, _) = boxes[a], boxes[b]
        back = xb < xa - 1e-9 and abs(yb - ya) < 0.05  # a return edge: bend it round the row
        ax.annotate(
            "",
            xy=(0.5, 0.5),
            xycoords=drawn[b],
            xytext=(0.5, 0.5),
            textcoords=drawn[a],
            arrowprops={
                "arrowstyle": "-|>",
                "color": "0.3",
                "lw": 1.2,
                "patchA": drawn[a].get_bbox_patch(),
                "patchB": drawn[b].get_bbox_patch(),
                "shrinkA": 2,
                "shrinkB": 2,
                "connectionstyle": "arc3,rad=0.3" if back else "arc3,rad=0.0",
            },
        )
        if label:
            lift = 0.15 if back else 0.04
            ax.text(
                (xa + xb) / 2,
                (ya + yb) / 2 + lift,
                label,
                ha="center",
                va="bottom",
                fontsize=max(fontsize - 1.5, MIN_FONT_PT),
                color="0.25",
            )
