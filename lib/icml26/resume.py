"""Checkpoints for long paper-scale runs: an interrupted run resumes where it stopped.

A chapter's ``ci`` scale runs in seconds and never checkpoints. Its ``paper`` scale may train
for hours, longer than the machine at hand can be held (a lent GPU for minutes at a time, a
CPU between other work). ``python -m icml26.pipeline.paper run --script --checkpoints DIR``
sets ``ICML26_CHECKPOINTS=DIR``; a training loop that uses :class:`Checkpoint` then saves its
whole state there every ``ICML26_CHECKPOINT_EVERY`` seconds (600 by default) and once more
when it finishes. Run the same command again and the loop restarts from its last save. The
state includes the random streams, so the resumed run computes exactly what an
uninterrupted one computes (``tests/test_resume.py``); finished loops are not run again.

A checkpoint's file name carries a fingerprint of the settings it was written under, so a
run with other settings never picks it up. The fingerprint cannot see the code: delete the
directory after changing a chapter's training code.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import torch

from icml26 import checks

__all__ = ["DEFAULT_EVERY_S", "RESUMED", "Checkpoint", "fingerprint"]

#: Seconds between two saves unless ``ICML26_CHECKPOINT_EVERY`` says otherwise.
DEFAULT_EVERY_S = 600.0
#: How a line of output that announces a resumed loop starts (a paper-scale record counts them).
RESUMED = "resumed from checkpoint:"


def fingerprint(settings: Mapping[str, object]) -> str:
    """A short, stable hash of ``settings`` (their ``repr`` where JSON has no form)."""
    if not isinstance(settings, Mapping):
        raise ValueError(f"settings must be a mapping, got {type(settings).__name__}")
    text = json.dumps(dict(settings), sort_keys=True, default=repr)
    return hashlib.sha256(text.encode()).hexdigest()[:12]


class Checkpoint:
    """The saved state of one training loop, ``name``, under ``settings``.

    ``directory`` defaults to ``ICML26_CHECKPOINTS``; without either the checkpoint is
    disabled (:attr:`enabled` is false, :meth:`load` returns ``None``, :meth:`due` is false
    and :meth:`save` does nothing), which is how every ``ci`` run uses it. ``every_s``
    defaults to ``ICML26_CHECKPOINT_EVERY``, then :data:`DEFAULT_EVERY_S`.
    """

    def __init__(
        self,
        name: str,
        settings: Mapping[str, object],
        *,
        directory: str | Path | None = None,
        every_s: float | None = None,
    ) -> None:
        if not isinstance(name, str) or not name or not name.replace("-", "").isalnum():
            raise ValueError(f"name must be letters, digits and '-', got {name!r}")
        self.name = name
        self.fingerprint = fingerprint(settings)
        where = directory if directory is not None else os.environ.get("ICML26_CHECKPOINTS")
        self.directory = Path(where) if where else None
        if every_s is None:
            text = os.environ.get("ICML26_CHECKPOINT_EVERY", str(DEFAULT_EVERY_S))
            try:
                every_s = float(text)
            except ValueError:
                raise ValueError(
                    f"ICML26_CHECKPOINT_EVERY must be a number of seconds, got {text!r}"
                ) from None
        self.every_s = checks.real("every_s", every_s, low=0.0)
        self._last = time.monotonic()

    @property
    def enabled(self) -> bool:
        """Whether a directory was given."""
        return self.directory is not None

    @property
    def path(self) -> Path | None:
        """The file of this loop under these settings (``None`` when disabled)."""
        if self.directory is None:
            return None
        return self.directory / f"{self.name}-{self.fingerprint}.pt"

    def load(self) -> dict[str, Any] | None:
        """The last saved state, or ``None`` (disabled, or nothing saved yet); a loaded state
        is announced on a line starting with :data:`RESUMED`."""
        path = self.path
        if path is None or not path.exists():
            return None
        state = torch.load(path, weights_only=True)
        if not isinstance(state, dict):
            raise ValueError(f"{path} does not hold a checkpoint dict")
        print(f"{RESUMED} {self.name} ({path.name})", flush=True)
        self._last = time.monotonic()
        return state

    def due(self) -> bool:
        """Whether ``every_s`` seconds have passed since the last save (or load)."""
        return self.enabled and time.monotonic() - self._last >= self.every_s

    def save(self, state: Mapping[str, Any]) -> None:
        """Write ``state`` atomically (a half-written file never replaces a good one)."""
        path = self.path
        if path is None:
            return
        if not isinstance(state, Mapping):
            raise ValueError(f"state must be a mapping, got {type(state).__name__}")
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        torch.save(dict(state), tmp)
        os.replace(tmp, path)
        self._last = time.monotonic()
