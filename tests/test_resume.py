"""Checkpoints of long training loops: an interrupted loop, resumed, computes exactly what an
uninterrupted one computes (icml26.resume, icml26.dynamics.stacked.training_state)."""

from __future__ import annotations

import pytest
import torch
from torch.optim.swa_utils import AveragedModel, get_ema_multi_avg_fn

from icml26.dynamics import stacked
from icml26.resume import RESUMED, Checkpoint, fingerprint

F64 = torch.float64


class _Interrupted(Exception):
    pass


def _train(directory, *, interrupt_at=None, steps=120):
    """A stacked training loop shaped like chapter 05's: AdamW, clipping, grid rounding,
    averaged weights, two early-stopping records, one random stream per member."""
    gens = stacked.member_generators([1, 2, 3])
    model = stacked.StackedLinear(4, 2, stacked.member_generators([10, 11, 12])).double()
    opt = torch.optim.AdamW(model.parameters(), lr=3e-2, weight_decay=0.05, fused=True)
    ema = AveragedModel(model, multi_avg_fn=get_ema_multi_avg_fn(0.9), use_buffers=True)
    stoppers = {
        "full": stacked.EarlyStopping(ema.module, 3, min_delta=0.01),
        "short": stacked.EarlyStopping(ema.module, 3, min_delta=0.01),
    }
    parts = {
        "model": model,
        "optimizer": opt,
        "averaged": ema,
        "stoppers": stoppers,
        "generators": gens,
    }
    ckpt = Checkpoint("toy", {"lr": 3e-2}, directory=directory, every_s=0.0)
    start = 0
    if (state := ckpt.load()) is not None:
        start = stacked.load_training_state(state, **parts)
    w_true = torch.linspace(-1, 1, 8, dtype=F64).view(4, 2)
    x_val = torch.linspace(-2, 2, 3 * 16 * 4, dtype=F64).view(3, 16, 4)
    for step in range(start, steps + 1):
        if step % 5 == 0:
            if ckpt.due():
                ckpt.save(stacked.training_state(step, **parts))
            if step == interrupt_at:
                raise _Interrupted
            with torch.no_grad():
                val = ((ema.module(x_val) - x_val @ w_true) ** 2).mean((1, 2))
            if step <= steps // 4:
                stoppers["short"].update(step, val)
            if not stoppers["full"].update(step, val):
                break
        x = torch.stack([torch.randn(8, 4, generator=g, dtype=F64) for g in gens])
        y = x @ w_true + 0.3 * torch.stack(
            [torch.randn(8, 2, generator=g, dtype=F64) for g in gens]
        )
        loss = ((model(x) - y) ** 2).mean((1, 2))
        opt.zero_grad()
        loss.sum().backward()
        stacked.clip_member_grad_norm_(model.parameters(), 1.0)
        opt.step()
        stacked.round_to_grid_(model.parameters(), 20)
        ema.update_parameters(model)
    full = stoppers["full"]
    return [
        *(p.detach().clone() for p in model.parameters()),
        *(p.detach().clone() for p in ema.module.parameters()),
        full.best,
        full.best_step,
        full.stop_step,
        stoppers["short"].best,
        *full.curves(),
    ]


def test_interrupted_training_resumes_exactly(tmp_path):
    straight = _train(None)
    for at in (10, 35):
        with pytest.raises(_Interrupted):
            _train(tmp_path / str(at), interrupt_at=at)
        resumed = _train(tmp_path / str(at))  # the same call again: picks up the save
        assert len(resumed) == len(straight)
        for a, b in zip(straight, resumed, strict=True):
            assert torch.equal(a, b)


def test_a_resumed_loop_really_started_from_the_checkpoint(tmp_path):
    with pytest.raises(_Interrupted):
        _train(tmp_path, interrupt_at=20)
    state = Checkpoint("toy", {"lr": 3e-2}, directory=tmp_path).load()
    assert state is not None and state["step"] == 20
    assert [k for k, _ in state["stoppers"]["full"]["history"]] == [0, 5, 10, 15]


def test_checkpoint_disabled_without_a_directory(monkeypatch, tmp_path):
    monkeypatch.delenv("ICML26_CHECKPOINTS", raising=False)
    ck = Checkpoint("a", {})
    assert not ck.enabled and ck.path is None and ck.load() is None and not ck.due()
    ck.save({"x": 1})  # nothing happens
    assert not list(tmp_path.iterdir())
    monkeypatch.setenv("ICML26_CHECKPOINTS", str(tmp_path))
    monkeypatch.setenv("ICML26_CHECKPOINT_EVERY", "0")
    ck = Checkpoint("a", {})
    assert ck.enabled and ck.due() and ck.every_s == 0.0
    monkeypatch.setenv("ICML26_CHECKPOINT_EVERY", "ten minutes")
    with pytest.raises(ValueError, match="ICML26_CHECKPOINT_EVERY must be a number"):
        Checkpoint("a", {})


def test_checkpoint_roundtrip_and_settings(tmp_path, capsys):
    ck = Checkpoint("fam-1", {"steps": 10, "seeds": (0, 1)}, directory=tmp_path)
    assert ck.path == tmp_path / f"fam-1-{fingerprint({'seeds': (0, 1), 'steps': 10})}.pt"
    assert ck.load() is None
    g = torch.Generator().manual_seed(3)
    ck.save({"step": 4, "rng": g.get_state(), "w": torch.arange(3.0, dtype=F64)})
    assert not ck.due()  # just saved, default interval
    got = ck.load()
    assert capsys.readouterr().out == f"{RESUMED} fam-1 ({ck.path.name})\n"
    assert got["step"] == 4 and torch.equal(got["w"], torch.arange(3.0, dtype=F64))
    assert torch.equal(got["rng"], g.get_state())
    assert not list(tmp_path.glob("*.tmp"))
    # other settings, another file: never the wrong run's state
    assert Checkpoint("fam-1", {"steps": 11, "seeds": (0, 1)}, directory=tmp_path).load() is None
    assert fingerprint({"a": 1, "b": 2}) == fingerprint({"b": 2, "a": 1})


def test_validation(tmp_path):
    with pytest.raises(ValueError, match="name must be"):
        Checkpoint("a/b", {})
    with pytest.raises(ValueError, match="name must be"):
        Checkpoint("", {})
    with pytest.raises(ValueError, match="settings must be a mapping"):
        Checkpoint("a", [1, 2])
    with pytest.raises(ValueError, match="every_s must be >= 0"):
        Checkpoint("a", {}, every_s=-1.0)
    with pytest.raises(ValueError, match="state must be a mapping"):
        Checkpoint("a", {}, directory=tmp_path).save([1])
    toy = stacked.StackedLinear(2, 1, stacked.member_generators([0, 1])).double()
    es = stacked.EarlyStopping(toy, 2)
    with pytest.raises(ValueError, match="state must be a dict returned by EarlyStopping"):
        es.load_state_dict({"best": torch.zeros(2)})
    bad = es.state_dict() | {"best": torch.zeros(3)}
    with pytest.raises(ValueError, match=r"state\['best'\] must have shape \(2\)"):
        es.load_state_dict(bad)
    opt = torch.optim.AdamW(toy.parameters())
    parts = {
        "model": toy,
        "optimizer": opt,
        "averaged": toy,
        "stoppers": {"full": es},
        "generators": [torch.Generator()],
    }
    state = stacked.training_state(0, **parts)
    with pytest.raises(ValueError, match="state must be a dict returned by training_state"):
        stacked.load_training_state({"step": 0}, **parts)
    with pytest.raises(ValueError, match="stoppers"):
        stacked.load_training_state(state, **(parts | {"stoppers": {}}))
    with pytest.raises(ValueError, match="generators"):
        stacked.load_training_state(state, **(parts | {"generators": []}))
    with pytest.raises(ValueError, match="step must be >= 0"):
        stacked.training_state(-1, **parts)
