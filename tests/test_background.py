"""icml26.background: a library call in a second process computes what the caller would."""

from __future__ import annotations

import pytest
import torch

import icml26
from icml26 import background, checks
from icml26.sequential import a2c
from icml26.sequential import critic_envs as envs


def _train(generator: torch.Generator) -> a2c.A2CRun:
    return a2c.train_a2c(
        envs.PositionOnlyCartPole(horizon=20),
        [a2c.Signal("history only"), a2c.Signal("angular velocity", (3,))],
        n_seeds=2,
        settings=a2c.A2CSettings(n_iterations=3, segment=5),
        generator=generator,
    )


def test_a_background_training_is_bit_for_bit_the_one_in_process() -> None:
    job = background.start(
        a2c.train_a2c,
        envs.PositionOnlyCartPole(horizon=20),
        [a2c.Signal("history only"), a2c.Signal("angular velocity", (3,))],
        n_seeds=2,
        settings=a2c.A2CSettings(n_iterations=3, segment=5),
        generator=icml26.stats.stream(3, 6),
    )
    here = _train(icml26.stats.stream(3, 6))
    there = job.result()
    torch.testing.assert_close(there.returns, here.returns, rtol=0, atol=0, equal_nan=True)
    for p, q in zip(here.models.critic, there.models.critic, strict=True):
        assert torch.equal(p, q)
    assert job.result() is there  # waited once, kept
    assert job.cpu_seconds > 0


def test_an_error_in_the_child_is_raised_with_its_message() -> None:
    job = background.start(checks.integer, "n_seeds", 1.5)
    with pytest.raises(RuntimeError, match="n_seeds"):
        job.result()


def test_only_importable_functions_and_picklable_arguments() -> None:
    with pytest.raises(ValueError, match="importable by name"):
        background.start(lambda: 1)
    with pytest.raises(ValueError, match="fn must be callable"):
        background.start(3)
    with pytest.raises(ValueError, match="picklable"):
        background.start(checks.integer, "n", lambda: 1)
