"""The book's matplotlib style (lib/icml26/plotting.py)."""

import matplotlib as mpl

from icml26 import plotting


def test_palette_is_distinct_and_applied():
    assert len(set(plotting.PALETTE)) == len(plotting.PALETTE)
    plotting.use_book_style()
    cycle = mpl.rcParams["axes.prop_cycle"].by_key()["color"]
    assert [c.lower() for c in cycle] == [c.lower() for c in plotting.PALETTE]
    assert plotting.color(len(plotting.PALETTE)) == plotting.PALETTE[0]


def test_diagram_draws_boxes_and_arrows_and_validates():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import pytest

    fig, ax = plt.subplots()
    plotting.diagram(
        ax, {"a": (0.2, 0.5, "$S_t$"), "b": (0.8, 0.5, "$X_t$")}, [("a", "b", "emits")]
    )
    assert len(ax.texts) == 4 and not ax.axison  # two boxes, one arrow, one label
    with pytest.raises(ValueError, match="arrows must join known boxes"):
        plotting.diagram(ax, {"a": (0.2, 0.5, "a")}, [("a", "z", "")])
    with pytest.raises(ValueError, match="boxes"):
        plotting.diagram(ax, {}, [])
    plt.close(fig)
