"""Where chapters register what ``make bench`` times.

A chapter's benchmark module ``benchmarks/bench_NN_slug.py`` is named by the ``bench=`` field
of its entry in the chapter registry (:mod:`icml26.chapters`), which is also where its chapter
number comes from: the module declares only its cases. It calls

- :func:`register` once per kernel, with zero-argument callables that compute *the same
  thing* two or three ways: the vectorised ``icml26`` kernel, the notebook's readable
  reference (loaded with ``notebook_functions``, never copied), and (where one exists) an
  established library. Build inputs outside the callables: only the computation is timed.
- :func:`register_scaling` once for its main kernel: a factory ``make(size)`` returning the
  zero-argument kernel call at a problem size, and sizes spanning at least a decade, so that
  the Performance page can show how the cost grows with the work.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass

__all__ = [
    "CASES",
    "SCALING",
    "Case",
    "Scaling",
    "chapter_of",
    "register",
    "register_scaling",
]


def chapter_of(module: str) -> str:
    """The chapter number whose registry entry names ``module`` as its benchmark, or ``""``
    for a module no chapter names (the harness's own self-test)."""
    from icml26.chapters import CHAPTERS

    name = module.rsplit(".", 1)[-1]
    return next((c.number for c in CHAPTERS if c.bench == name), "")


@dataclass(frozen=True)
class Case:
    module: str
    name: str
    kernel: Callable[[], object]
    reference: Callable[[], object] | None = None
    library: Callable[[], object] | None = None
    library_name: str = ""

    @property
    def chapter(self) -> str:
        return chapter_of(self.module)


@dataclass(frozen=True)
class Scaling:
    module: str
    name: str
    make: Callable[[int], Callable[[], object]]
    sizes: tuple[int, ...]
    size_label: str

    @property
    def chapter(self) -> str:
        return chapter_of(self.module)


CASES: list[Case] = []
SCALING: list[Scaling] = []


def _caller_module() -> str:
    """The module that called ``register``/``register_scaling`` (two frames up)."""
    return str(sys._getframe(2).f_globals.get("__name__", ""))


def register(
    name: str,
    *,
    kernel: Callable[[], object],
    reference: Callable[[], object] | None = None,
    library: Callable[[], object] | None = None,
    library_name: str = "",
) -> None:
    """Register one benchmark case of the calling module (see the module docstring)."""
    if not name:
        raise ValueError("name must describe the case (sizes, what is compared)")
    if reference is None and library is None:
        raise ValueError("a case needs a reference or a library to compare the kernel with")
    if library is not None and not library_name:
        raise ValueError("library_name must name the library that `library` calls")
    module = _caller_module()
    if any(c.module == module and c.name == name for c in CASES):
        raise ValueError(f"name {name!r} is registered twice by {module}")
    CASES.append(Case(module, name, kernel, reference, library, library_name))


def register_scaling(
    name: str,
    *,
    make: Callable[[int], Callable[[], object]],
    sizes: Sequence[int],
    size_label: str,
) -> None:
    """Register how the calling module's main kernel scales: ``make(size)`` for each size."""
    sizes = tuple(int(s) for s in sizes)
    if len(sizes) < 3 or any(s <= 0 for s in sizes) or list(sizes) != sorted(set(sizes)):
        raise ValueError("sizes must be at least three increasing positive integers")
    if sizes[-1] < 10 * sizes[0]:
        raise ValueError(f"sizes must span at least a decade, got {sizes[0]}..{sizes[-1]}")
    if not size_label:
        raise ValueError("size_label must say what the size counts (runs, paths, games, ...)")
    SCALING.append(Scaling(_caller_module(), name, make, sizes, size_label))
