"""The book's matplotlib style (lib/icml26/plotting.py)."""

import matplotlib as mpl

from icml26 import plotting


def test_palette_is_distinct_and_applied():
    assert len(set(plotting.PALETTE)) == len(plotting.PALETTE)
    plotting.use_book_style()
    cycle = mpl.rcParams["axes.prop_cycle"].by_key()["color"]
    assert [c.lower() for c in cycle] == [c.lower() for c in plotting.PALETTE]
    assert plotting.color(len(plotting.PALETTE)) == plotting.PALETTE[0]
