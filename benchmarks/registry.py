"""Where chapters register what ``make bench`` times.

A chapter's ``benchmarks/bench_NN_slug.py`` (named in the chapter registry,
:mod:`icml26.chapters`) calls

- :func:`register` once per kernel, with zero-argument callables that compute *the same
  thing* three ways: the vectorised ``icml26`` kernel, the notebook's readable reference
  (loaded with ``notebook_functions``, never copied), and (where one exists) an established
  library. Build inputs outside the callables: only the computation is timed.
- :func:`register_scaling` once for its main kernel: a factory ``make(size)`` returning the
  zero-argument kernel call at a problem size, and sizes spanning at least a decade, so that
  the Performance page can show how the cost grows with the work.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

__all__ = ["CASES", "SCALING", "Case", "Scaling", "register", "register_scaling"]


@dataclass(frozen=True)
class Case:
    chapter: str
    name: str
    kernel: Callable[[], object]
    reference: Callable[[], object] | None = None
    library: Callable[[], object] | None = None
    library_name: str = ""


@dataclass(frozen=True)
class Scaling:
    chapter: str
    name: str
    make: Callable[[int], Callable[[], object]]
    sizes: tuple[int, ...]
    size_label: str


CASES: list[Case] = []
SCALING: list[Scaling] = []


def register(
    chapter: str,
    name: str,
    *,
    kernel: Callable[[], object],
    reference: Callable[[], object] | None = None,
    library: Callable[[], object] | None = None,
    library_name: str = "",
    repeats: int | None = None,
) -> None:
    """Register one benchmark case (see the module docstring).

    ``repeats`` is accepted for compatibility and ignored: the harness chooses the number of
    runs itself (``torch.utils.benchmark``'s adaptive ``blocked_autorange``).
    """
    if reference is None and library is None:
        raise ValueError("a case needs a reference or a library to compare the kernel with")
    if library is not None and not library_name:
        raise ValueError("library_name must name the library that `library` calls")
    if repeats is not None and repeats < 1:
        raise ValueError(f"repeats must be >= 1, got {repeats}")
    CASES.append(Case(chapter, name, kernel, reference, library, library_name))


def register_scaling(
    chapter: str,
    name: str,
    *,
    make: Callable[[int], Callable[[], object]],
    sizes: Sequence[int],
    size_label: str,
) -> None:
    """Register how a chapter's main kernel scales: ``make(size)`` for each of ``sizes``."""
    sizes = tuple(int(s) for s in sizes)
    if len(sizes) < 3 or any(s <= 0 for s in sizes) or list(sizes) != sorted(set(sizes)):
        raise ValueError("sizes must be at least three increasing positive integers")
    if sizes[-1] < 10 * sizes[0]:
        raise ValueError(f"sizes must span at least a decade, got {sizes[0]}..{sizes[-1]}")
    if not size_label:
        raise ValueError("size_label must say what the size counts (runs, paths, games, ...)")
    SCALING.append(Scaling(chapter, name, make, sizes, size_label))
