"""Chapter 05 (CogSDE): batched Euler–Maruyama vs a per-path loop and torchsde's Euler."""

from __future__ import annotations

import math

import torch
import torchsde
from torch.nn import functional as F

from benchmarks.registry import register
from icml26 import sde


class _Increments(torchsde.BaseBrownian):
    """Pre-drawn increments for torchsde, so all three solvers integrate the same path."""

    def __init__(self, dW: torch.Tensor, h: float) -> None:
        self.dW, self.h = dW, h

    def __call__(self, ta, tb=None, return_U=False, return_A=False):
        return self.dW[round(float(ta) / self.h)]

    def __repr__(self) -> str:
        return "_Increments"

    dtype = property(lambda self: self.dW.dtype)
    device = property(lambda self: self.dW.device)
    shape = property(lambda self: self.dW.shape[1:])
    levy_area_approximation = property(lambda self: "none")


class _Wrapped(torch.nn.Module):
    noise_type, sde_type = "diagonal", "ito"

    def __init__(self, model: sde.CogSDE, grid: torch.Tensor, h: float) -> None:
        super().__init__()
        self.model, self.grid, self.h = model, grid, h

    def f(self, t, y):
        k = min(round(float(t) / self.h), self.grid.shape[0] - 1)
        return self.model.drift(y, self.grid[k].expand(y.shape[0], -1))

    def g(self, t, y):
        return self.model.diffusion(y)


def _reference(drift, diffusion, z0, h, u, dW):
    """The notebook's readable reference: Eq. (4) of chapter 05, path by path."""
    out = torch.empty(dW.shape[0] + 1, *z0.shape, dtype=z0.dtype)
    for i in range(z0.shape[0]):
        z = z0[i : i + 1]
        out[0, i] = z[0]
        for k in range(dW.shape[0]):
            z = z + drift(z, u[k : k + 1]) * h + diffusion(z) * dW[k, i : i + 1]
            out[k + 1, i] = z[0]
    return out


def _case(n_paths: int, n_steps: int, with_reference: bool) -> None:
    torch.manual_seed(0)
    model = sde.CogSDE(6, 3, 16)
    h = 2.0**-6
    g = torch.Generator().manual_seed(1)
    u = F.one_hot(torch.randint(0, 3, (n_steps,), generator=g), 3).float()
    z0 = torch.randn(n_paths, 6, generator=g)
    dW = math.sqrt(h) * torch.randn(n_steps, n_paths, 6, generator=g)
    ts = torch.arange(n_steps + 1, dtype=torch.float32) * h
    wrapped, bm = _Wrapped(model, u, h), _Increments(dW, h)

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
        chapter="05",
        name=f"Euler–Maruyama, CogSDE d=6, {n_paths} paths x {n_steps} steps",
        kernel=kernel,
        reference=reference if with_reference else None,
        library=library,
        library_name="torchsde.sdeint(method='euler')",
        repeats=3,
    )


_case(32, 200, with_reference=True)
_case(4096, 500, with_reference=False)
