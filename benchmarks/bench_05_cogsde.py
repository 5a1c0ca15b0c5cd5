"""Chapter 05 (CogSDE): batched Euler–Maruyama (certified and regime-switching drifts) vs a
per-path loop and torchsde's Euler; a stacked forecaster training step vs one model at a
time."""

from __future__ import annotations

import math

import torch
import torchsde
from torch.nn import functional as F

from benchmarks.registry import register, register_scaling
from icml26.dynamics import motion, sde, switching
from icml26.pipeline.notebooks import notebook_functions

# The chapter's readable references (Euler–Maruyama path by path; the regime-switching drift
# state by state), from the notebook.
_refs = notebook_functions("05-cogsde", "em_reference", "switching_drift_reference")
_reference = _refs["em_reference"]
_drift_reference = _refs["switching_drift_reference"]


def _case(n_paths: int, n_steps: int, with_reference: bool) -> None:
    torch.manual_seed(0)
    model = sde.CertifiedSDE(6, 3, 16)
    h = 2.0**-6
    g = torch.Generator().manual_seed(1)
    u = F.one_hot(torch.randint(0, 3, (n_steps,), generator=g), 3).float()
    z0 = torch.randn(n_paths, 6, generator=g)
    dW = math.sqrt(h) * torch.randn(n_steps, n_paths, 6, generator=g)
    ts = torch.arange(n_steps + 1, dtype=torch.float32) * h
    wrapped, bm = sde.TorchsdeAdapter(model, u, h), sde.FixedIncrements(dW, h)

    @torch.no_grad()
    def kernel():
        return sde.euler_maruyama(model.drift, model.diffusion, z0, h, u=u, dW=dW)

    @torch.no_grad()
    def reference():
        return _reference(model.drift, model.diffusion, z0, h, u, dW)

    @torch.no_grad()
    def library():
        return torchsde.sdeint(wrapped, z0, ts, bm=bm, method="euler", dt=h)

    register(
        name=f"Euler–Maruyama, certified SDE d=6, {n_paths} paths x {n_steps} steps",
        kernel=kernel,
        reference=reference if with_reference else None,
        library=library,
        library_name="torchsde.sdeint(method='euler')",
    )


_case(32, 200, with_reference=True)
_case(4096, 500, with_reference=False)


def _switching_case(n_paths: int, n_steps: int, with_reference: bool) -> None:
    """The paper's drift: 3 regimes, level and event channels, state-dependent diffusion."""
    torch.manual_seed(0)
    model = switching.RegimeSwitchingSDE(8, 3, hidden=16)
    h = 0.1
    g = torch.Generator().manual_seed(1)
    u = F.one_hot(torch.randint(0, 3, (n_steps,), generator=g), 3).float()
    v = switching.command_channels(u, h)
    z0 = torch.randn(n_paths, 8, generator=g)
    dW = math.sqrt(h) * torch.randn(n_steps, n_paths, 8, generator=g)
    ts = torch.arange(n_steps + 1, dtype=torch.float32) * h
    wrapped, bm = sde.TorchsdeAdapter(model, v, h), sde.FixedIncrements(dW, h)

    def slow_drift(z, vk):
        return _drift_reference(model, z, vk[:, :3], vk[:, 3:])

    @torch.no_grad()
    def kernel():
        return sde.euler_maruyama(model.drift, model.diffusion, z0, h, u=v, dW=dW)

    @torch.no_grad()
    def reference():
        return _reference(slow_drift, model.diffusion, z0, h, v, dW)

    @torch.no_grad()
    def library():
        return torchsde.sdeint(wrapped, z0, ts, bm=bm, method="euler", dt=h)

    register(
        name=f"Euler–Maruyama, regime-switching SDE d=8, {n_paths} paths x {n_steps} steps",
        kernel=kernel,
        reference=reference if with_reference else None,
        library=library,
        library_name="torchsde.sdeint(method='euler')",
    )


_switching_case(16, 20, with_reference=True)
_switching_case(1280, 20, with_reference=False)


def _training_case(members: int) -> None:
    """One training step (forward, backward, AdamW) of `members` CogSDE forecasters: stacked
    into one model, against the same members as separate one-member models."""
    steps, batch, k = 10, 32, 4

    def forecaster(seeds):
        rs = switching.RegimeSwitchingSDE(8, 3, hidden=8, seeds=[1000 + s for s in seeds])
        driver = motion.SDEDriver(rs)
        return motion.MotionForecaster(driver, 3, steps, hidden=16, seeds=seeds).double()

    g = torch.Generator().manual_seed(2)
    past = torch.randn(members, batch, 5, 5, generator=g, dtype=torch.float64)
    cmd = F.one_hot(torch.randint(0, 3, (members, batch, steps), generator=g), 3).double()
    fut = torch.randn(members, batch, steps, 2, generator=g, dtype=torch.float64)
    noise = torch.randn(steps, members, k * batch, 8, generator=g, dtype=torch.float64)
    together = forecaster(list(range(members)))
    alone = [forecaster([s]) for s in range(members)]
    opt = torch.optim.AdamW(together.parameters(), lr=1e-3)
    opts = [torch.optim.AdamW(m.parameters(), lr=1e-3) for m in alone]

    def step(model, opt, sl):
        pos = model(past[sl], cmd[sl], 0.2, n_samples=k, noise=noise[:, sl])
        loss = motion.best_of_k_loss(pos, fut[sl]).sum()
        opt.zero_grad()
        loss.backward()
        opt.step()

    register(
        name=f"forecaster training step, {members} CogSDE members: stacked vs one at a time",
        kernel=lambda: step(together, opt, slice(None)),
        reference=lambda: [
            step(m, o, slice(i, i + 1)) for i, (m, o) in enumerate(zip(alone, opts, strict=True))
        ],
    )


_training_case(20)


def _em_at(n_paths: int):
    torch.manual_seed(0)
    model, h, n_steps = sde.CertifiedSDE(6, 3, 16), 2.0**-6, 100
    g = torch.Generator().manual_seed(1)
    u = F.one_hot(torch.randint(0, 3, (n_steps,), generator=g), 3).float()
    z0 = torch.randn(n_paths, 6, generator=g)
    dW = math.sqrt(h) * torch.randn(n_steps, n_paths, 6, generator=g)
    return lambda: sde.euler_maruyama(model.drift, model.diffusion, z0, h, u=u, dW=dW)


register_scaling(
    "Euler–Maruyama, certified SDE d = 6, 100 steps",
    make=_em_at,
    sizes=(16, 64, 256, 1024, 4096),
    size_label="paths",
)
