"""Seeding, device choice and the scale knob (lib/icml26/runtime.py)."""

import random

import numpy as np
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

import icml26


def draws() -> tuple[float, float, float]:
    """One draw from each global generator that seed_everything seeds."""
    legacy = float(np.random.rand())  # noqa: NPY002 (the legacy global generator is seeded too)
    return random.random(), legacy, float(torch.rand(()))


def test_seed_everything_reproduces_every_generator():
    g1 = icml26.seed_everything(123)
    a = (*draws(), float(g1.random()))
    g2 = icml26.seed_everything(123)
    b = (*draws(), float(g2.random()))
    assert len(a) == 4 and a == b
    icml26.seed_everything(124)
    c = draws()
    for i in range(3):  # each generator, separately, moves with the seed
        assert c[i] != a[i], f"generator {i} ignores the seed"


@given(st.one_of(st.integers(max_value=-1), st.integers(min_value=2**32)))
def test_seed_out_of_range_is_rejected(seed):
    with pytest.raises(ValueError, match="seed"):
        icml26.seed_everything(seed)


@pytest.mark.parametrize("seed", [1.5, "7", None, True])
def test_seed_must_be_an_integer(seed):
    with pytest.raises(ValueError, match="seed must be an integer"):
        icml26.seed_everything(seed)


def test_device_defaults_and_override(monkeypatch):
    monkeypatch.delenv("ICML26_DEVICE", raising=False)
    expected = "cuda" if torch.cuda.is_available() else "cpu"
    assert icml26.device().type == expected
    monkeypatch.setenv("ICML26_DEVICE", "cpu")
    assert icml26.device() == torch.device("cpu")
    monkeypatch.setenv("ICML26_DEVICE", "not-a-device")
    with pytest.raises(ValueError, match="ICML26_DEVICE"):
        icml26.device()


@pytest.mark.skipif(torch.cuda.is_available(), reason="needs a machine without CUDA")
def test_device_cuda_requested_without_cuda(monkeypatch):
    monkeypatch.setenv("ICML26_DEVICE", "cuda")
    with pytest.raises(ValueError, match="CUDA is not available"):
        icml26.device()


def test_scale_and_pick(monkeypatch):
    monkeypatch.delenv("ICML26_SCALE", raising=False)
    assert icml26.scale() == "ci"
    assert icml26.pick(ci=1, paper=2) == 1
    monkeypatch.setenv("ICML26_SCALE", "PAPER")
    assert icml26.scale() == "paper"
    assert icml26.pick(ci=1, paper=2) == 2


@given(st.text(min_size=1).filter(lambda s: s.strip().lower() not in ("", "ci", "paper")))
def test_scale_rejects_unknown_values(value):
    mp = pytest.MonkeyPatch()
    try:
        mp.setenv("ICML26_SCALE", value.replace("\x00", "x"))
        with pytest.raises(ValueError, match="ICML26_SCALE must be one of"):
            icml26.scale()
    finally:
        mp.undo()


def test_progress_is_silent_when_disabled(monkeypatch, capsys):
    monkeypatch.setenv("ICML26_PROGRESS", "0")
    assert sum(icml26.progress(range(5), desc="x")) == 10
    assert capsys.readouterr().err == ""


def _x86_avx2(monkeypatch):
    import platform

    from icml26 import runtime

    monkeypatch.setattr(platform, "machine", lambda: "x86_64")
    monkeypatch.setattr(runtime, "_cpu_flags", lambda: {"avx", "avx2", "fma"})


def test_numeric_profiles_differ_in_every_code_path_knob(monkeypatch):
    from icml26.runtime import numeric_env

    _x86_avx2(monkeypatch)
    book, other = numeric_env("book"), numeric_env("other-machine")
    threads = {"OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"}
    assert all(book[k] == other[k] == "1" for k in threads)
    for knob in ("ATEN_CPU_CAPABILITY", "MKL_CBWR", "ONEDNN_MAX_CPU_ISA"):
        assert book[knob] != other[knob], knob
    # OpenBLAS keeps its own choice in the book and is moved off it on the other machine
    assert "OPENBLAS_CORETYPE" not in book
    assert other["OPENBLAS_CORETYPE"] == "Sandybridge"


def test_numeric_profiles_pin_only_threads_without_avx2(monkeypatch):
    import platform

    from icml26.runtime import numeric_env

    monkeypatch.setattr(platform, "machine", lambda: "aarch64")
    for profile in ("book", "other-machine"):
        assert set(numeric_env(profile)) == {
            "OMP_NUM_THREADS",
            "MKL_NUM_THREADS",
            "OPENBLAS_NUM_THREADS",
        }


def test_numeric_env_rejects_an_unknown_profile():
    from icml26.runtime import numeric_env

    with pytest.raises(ValueError, match="profile"):
        numeric_env("fast")
