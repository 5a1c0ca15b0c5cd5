"""Where chapters register what ``make bench`` times.

A chapter's ``benchmarks/bench_NN_slug.py`` calls :func:`register` once per kernel, with
zero-argument callables that compute *the same thing* three ways: the vectorised ``icml26``
kernel, the notebook's readable reference, and (where one exists) an established library.
Build inputs outside the callables: only the computation is timed.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class Case:
    chapter: str
    name: str
    kernel: Callable[[], object]
    reference: Callable[[], object] | None = None
    library: Callable[[], object] | None = None
    library_name: str = ""
    repeats: int = 5


CASES: list[Case] = []


def register(
    chapter: str,
    name: str,
    *,
    kernel: Callable[[], object],
    reference: Callable[[], object] | None = None,
    library: Callable[[], object] | None = None,
    library_name: str = "",
    repeats: int = 5,
) -> None:
    """Register one benchmark case (see the module docstring)."""
    if reference is None and library is None:
        raise ValueError("a case needs a reference or a library to compare the kernel with")
    if library is not None and not library_name:
        raise ValueError("library_name must name the library that `library` calls")
    if repeats < 1:
        raise ValueError(f"repeats must be >= 1, got {repeats}")
    CASES.append(Case(chapter, name, kernel, reference, library, library_name, repeats))
