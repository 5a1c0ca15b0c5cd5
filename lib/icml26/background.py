"""Run one library call in a second Python process while the chapter goes on.

The book's machine has two cores and every chapter computes on one thread (the numeric
profile pins it, so that reductions run in one order). Two independent experiments of a
chapter — two trainings that share no random stream — can then run side by side: the
second in a fresh interpreter started with :func:`start`, the first in the kernel. The
child inherits the environment (and with it the numeric profile of
:func:`icml26.runtime.numeric_env`) and the thread count, so it computes bit for bit what
the kernel would have. Chapter 03 trains its CartPole critics this way.

A fresh interpreter rather than ``multiprocessing``: a chapter also runs as a plain
script (``python -m icml26.pipeline.paper run --script``), and ``spawn`` would re-run the
whole script in the child, while ``fork`` after torch has started its threads can deadlock.
"""

from __future__ import annotations

import math
import os
import pickle
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

__all__ = ["Background", "start"]


class Background:
    """A call running in a child process; :meth:`result` waits for it and returns its value.
    After that, ``cpu_seconds`` is the CPU time the call took in the child."""

    def __init__(self, proc: subprocess.Popen, folder: tempfile.TemporaryDirectory, name: str):
        self._proc, self._folder, self._name = proc, folder, name
        self._done = False
        self._value: Any = None
        self.cpu_seconds = math.nan

    def result(self) -> Any:
        """The call's return value; a ``RuntimeError`` with the child's error if it failed."""
        if not self._done:
            _, err = self._proc.communicate()
            out = Path(self._folder.name) / "out.pkl"
            try:
                if self._proc.returncode != 0 or not out.exists():
                    tail = err.decode(errors="replace").strip().splitlines()[-12:]
                    raise RuntimeError(
                        f"{self._name} failed in the background process "
                        f"(exit status {self._proc.returncode}):\n" + "\n".join(tail)
                    )
                with out.open("rb") as fh:
                    self._value, self.cpu_seconds = pickle.load(fh)
            finally:
                self._folder.cleanup()
                self._done = True
        return self._value


def start(fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Background:
    """Start ``fn(*args, **kwargs)`` in a fresh Python process and return at once.

    ``fn`` must be importable by name (a module-level function of a library, not a lambda
    or a function defined in the notebook), and its arguments and result picklable (torch
    tensors and generators are). The child runs with the caller's environment, import
    path and ``torch.get_num_threads()``.
    """
    if not callable(fn):
        raise ValueError(f"fn must be callable, got {type(fn).__name__}")
    module, qualname = getattr(fn, "__module__", None), getattr(fn, "__qualname__", "")
    if not module or module == "__main__" or "<" in qualname:
        raise ValueError(
            f"fn must be a module-level function importable by name, got {qualname or fn!r} "
            f"from {module!r}"
        )
    import torch

    folder = tempfile.TemporaryDirectory(prefix="icml26-bg-")
    job = Path(folder.name) / "job.pkl"
    try:
        with job.open("wb") as fh:
            pickle.dump((fn, args, kwargs, torch.get_num_threads()), fh)
    except (pickle.PicklingError, TypeError, AttributeError) as err:
        folder.cleanup()
        raise ValueError(f"the arguments of {qualname} must be picklable: {err}") from err
    path = [p for p in sys.path if p and Path(p).exists()]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(path)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "icml26.background", folder.name],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    return Background(proc, folder, qualname)


def _child(folder: str) -> None:
    import torch

    with (Path(folder) / "job.pkl").open("rb") as fh:
        fn, args, kwargs, threads = pickle.load(fh)
    torch.set_num_threads(threads)
    t0 = time.process_time()
    value = fn(*args, **kwargs)
    cpu = time.process_time() - t0
    tmp = Path(folder) / "out.tmp"
    with tmp.open("wb") as fh:
        pickle.dump((value, cpu), fh)
    tmp.rename(Path(folder) / "out.pkl")


if __name__ == "__main__":
    _child(sys.argv[1])
