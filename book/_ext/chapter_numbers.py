"""Number theorems, figures, exercises and equations per chapter: Theorem 7.2, Figure 7.1.

Sphinx numbers enumerable nodes (sphinx-proof's blocks, sphinx-exercise's exercises,
captioned figures, labelled equations) with one counter per type across the whole book, so
the fourth chapter would open at "Definition 8". After Sphinx assigns its numbers, this
extension renumbers every chapter page ``notebooks/NN-slug`` as ``(NN, k)``, ``k`` counting
in reading order, with ``NN`` the chapter's number in the registry (not its position in the
table of contents, which skips chapters not yet written).
"""

from __future__ import annotations

from sphinx.application import Sphinx
from sphinx.environment import BuildEnvironment


def _renumber(app: Sphinx, env: BuildEnvironment) -> list[str]:
    from icml26.chapters import CHAPTERS

    number = {f"notebooks/{c.stem}": int(c.number) for c in CHAPTERS}
    for docname, figtypes in env.toc_fignumbers.items():
        if docname not in number:
            continue
        for figtype, ids in figtypes.items():
            ordered = sorted(ids, key=lambda i: ids[i])  # reading order within the page
            figtypes[figtype] = {fid: (number[docname], k + 1) for k, fid in enumerate(ordered)}
    return []


def setup(app: Sphinx) -> dict[str, object]:
    app.connect("env-get-updated", _renumber, priority=900)  # after Sphinx's own numbering
    return {"parallel_read_safe": True, "parallel_write_safe": True}
