"""The α-network (chapter 06), trained on the labels of :prf:ref:`alpha-pfn-def-alpha` with the NLL
of :prf:ref:`alpha-pfn-prop-nll`, the batched BO loop, and the bridge to BoTorch.
"""

from __future__ import annotations

from collections.abc import Callable

import torch
from torch import Tensor, nn

from icml26 import checks
from icml26.bayesopt.pfn.bars import bar_nll
from icml26.bayesopt.pfn.gp import _check_context
from icml26.bayesopt.pfn.prior_nd import check_context_nd

__all__ = ["AlphaNet", "bo_loop", "fixed_gp_model", "train_alpha_net"]


class AlphaNet(nn.Module):
    """The chapter's α-network ``a_θ(· | x, D)``: a bar distribution over ``α̃``.

    Each (candidate ``x``, context point ``(x_j, y_j)``) pair is embedded by an MLP on
    ``[x, x_j, d, |d|, y_j, y_j − max y]`` (``d = x − x_j``); the embeddings are mean- and
    max-pooled over the context (a permutation-invariant read-out, a cheap stand-in for the
    paper's transformer attention); a head MLP on ``[x, max y, n / n_max, pooled]`` outputs
    the bucket logits. The activations are smooth (SiLU): with ReLU's kinks, a last-bit change
    of a pre-activation can change a gradient by a finite amount, and training would depend on
    the machine's floating-point code paths.

    With ``dim = d`` the network takes ``x ∈ R^d`` (the paper-scale variant): contexts
    ``(N, n, d)`` and queries ``(N, C, d)``; the pair features are the coordinates of ``x``,
    ``x_j``, ``d`` and ``|d|``, the squared distance ``‖d‖²``, ``y_j`` and ``y_j − max y``,
    and the head sees ``[x, max y, log n, pooled]`` (the number of real context points, not
    the padded width, so that unpadded BO contexts read like padded training ones).
    ``dim = None`` (the default) is the 1-D network of the chapter's main experiments, with
    inputs ``(N, n)`` and ``(N, C)``.
    """

    def __init__(
        self,
        buckets: int,
        *,
        pair_width: int = 32,
        head_width: int = 64,
        dim: int | None = None,
    ) -> None:
        super().__init__()
        buckets = checks.integer("buckets", buckets, low=2)
        pair_width = checks.integer("pair_width", pair_width, low=1)
        head_width = checks.integer("head_width", head_width, low=1)
        if dim is not None:
            dim = checks.integer("dim", dim, low=1)
        self.dim = dim
        # 1-D: [x, x_j, d, |d|, y_j, y_j − max y]; d-D: the same per coordinate, plus ‖d‖²
        n_pair, n_glob = (6, 3) if dim is None else (4 * dim + 3, dim + 2)
        self.pair = nn.Sequential(
            nn.Linear(n_pair, pair_width), nn.SiLU(), nn.Linear(pair_width, pair_width), nn.SiLU()
        )
        self.head = nn.Sequential(
            nn.Linear(n_glob + 2 * pair_width, head_width),
            nn.SiLU(),
            nn.Linear(head_width, head_width),
            nn.SiLU(),
            nn.Linear(head_width, buckets),
        )

    def forward(self, x_ctx: Tensor, y_ctx: Tensor, mask: Tensor, x_query: Tensor) -> Tensor:
        """Bucket logits, shape ``(N, C, buckets)``, for queries ``(N, C)`` (``(N, C, d)``)."""
        if self.dim is not None:
            return self._forward_nd(x_ctx, y_ctx, mask, x_query)
        _check_context(x_ctx, y_ctx, mask)
        checks.tensor("x_query", x_query, ndim=2, floating=True)
        checks.finite("x_query", x_query)
        if x_query.shape[0] != x_ctx.shape[0]:
            raise ValueError(f"x_query must have {x_ctx.shape[0]} rows, got {x_query.shape[0]}")
        N, C = x_query.shape
        n = x_ctx.shape[1]
        xq = x_query[:, :, None].expand(N, C, n)
        xc = x_ctx[:, None, :].expand(N, C, n)
        yc = y_ctx[:, None, :].expand(N, C, n)
        ymax = y_ctx.masked_fill(~mask, -1e9).max(-1).values  # (N,)
        d = xq - xc
        feats = [xq, xc, d, d.abs(), yc, yc - ymax[:, None, None]]
        h = self.pair(torch.stack(feats, -1))  # (N, C, n, W)
        m = mask[:, None, :, None]
        mean = (h * m).sum(2) / m.sum(2)
        mx = h.masked_fill(~m, -1e9).max(2).values
        frac = mask.sum(-1, keepdim=True).to(x_query) / mask.shape[1]
        glob = torch.stack([x_query, ymax[:, None].expand(N, C), frac.expand(N, C)], -1)
        return self.head(torch.cat([glob, mean, mx], -1))

    def _forward_nd(self, x_ctx: Tensor, y_ctx: Tensor, mask: Tensor, x_query: Tensor) -> Tensor:
        check_context_nd(x_ctx, y_ctx, mask)
        checks.tensor("x_query", x_query, ndim=3, floating=True)
        checks.finite("x_query", x_query)
        checks.shape("x_ctx", x_ctx, (None, None, self.dim))
        checks.shape("x_query", x_query, (x_ctx.shape[0], None, self.dim))
        N, C, D = x_query.shape
        n = x_ctx.shape[1]
        xq = x_query[:, :, None, :].expand(N, C, n, D)
        xc = x_ctx[:, None, :, :].expand(N, C, n, D)
        yc = y_ctx[:, None, :, None].expand(N, C, n, 1)
        ymax = y_ctx.masked_fill(~mask, -1e9).max(-1).values  # (N,)
        d = xq - xc
        dist = d.pow(2).sum(-1, keepdim=True)
        feats = [xq, xc, d, d.abs(), dist, yc, yc - ymax[:, None, None, None]]
        h = self.pair(torch.cat(feats, -1))  # (N, C, n, W)
        m = mask[:, None, :, None]
        mean = (h * m).sum(2) / m.sum(2)
        mx = h.masked_fill(~m, -1e9).max(2).values
        log_n = mask.sum(-1).to(x_query).log()[:, None, None].expand(N, C, 1)
        glob = torch.cat([x_query, ymax[:, None, None].expand(N, C, 1), log_n], -1)
        return self.head(torch.cat([glob, mean, mx], -1))


def train_alpha_net(
    net: AlphaNet,
    borders: Tensor,
    x_ctx: Tensor,
    y_ctx: Tensor,
    mask: Tensor,
    x_query: Tensor,
    labels: Tensor,
    *,
    steps: int,
    batch: int,
    lr: float = 3e-3,
    generator: torch.Generator,
) -> list[float]:
    """Train ``net`` by the bar-distribution NLL of the labels (:prf:ref:`alpha-pfn-prop-nll`).

    Minibatches are ``batch`` datasets with all their ``C`` candidates; Adam with a cosine
    learning-rate decay. Returns the loss per step. For a d-dimensional ``net``
    (``AlphaNet(dim=d)``) the inputs are ``(N, n, d)`` contexts and ``(N, C, d)`` queries.
    """
    if not isinstance(net, nn.Module):
        raise ValueError(f"net must be a torch module, got {type(net).__name__}")
    nd = getattr(net, "dim", None) is not None
    if nd:
        check_context_nd(x_ctx, y_ctx, mask)
    else:
        _check_context(x_ctx, y_ctx, mask)
    checks.tensor("borders", borders, ndim=1, floating=True)
    checks.finite("borders", borders)
    if borders.numel() < 2 or not bool((torch.diff(borders) > 0).all()):
        raise ValueError("borders must be strictly increasing with at least two entries")
    checks.tensor("labels", labels, ndim=2, floating=True)
    checks.finite("labels", labels)
    checks.tensor("x_query", x_query, ndim=3 if nd else 2, floating=True)
    checks.finite("x_query", x_query)
    checks.shape("x_query", x_query, (*labels.shape, net.dim) if nd else labels.shape)
    if labels.shape[0] != x_ctx.shape[0]:
        raise ValueError(f"labels must have {x_ctx.shape[0]} rows, got {labels.shape[0]}")
    if bool((labels < borders[0]).any() | (labels > borders[-1]).any()):
        raise ValueError("labels must lie inside the borders")
    steps = checks.integer("steps", steps, low=1)
    batch = checks.integer("batch", batch, low=1, high=x_ctx.shape[0])
    lr = checks.real("lr", lr, low=0.0, strict=True)
    dt = next(net.parameters()).dtype
    cast = [t.to(dt) for t in (x_ctx, y_ctx, x_query, labels)]
    opt = torch.optim.Adam(net.parameters(), lr=lr)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, steps)
    b = borders.to(dt)
    losses = []
    for _ in range(steps):
        i = torch.randint(0, x_ctx.shape[0], (batch,), generator=generator)
        logits = net(cast[0][i], cast[1][i], mask[i], cast[2][i])
        loss = bar_nll(b, logits, cast[3][i])
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        losses.append(loss.item())
    return losses


# --------------------------------------------------------------------------- BO loop
def bo_loop(
    f: Tensor,
    grid: Tensor,
    acquisition: Callable[[Tensor, Tensor, Tensor], Tensor],
    *,
    n_init: int,
    n_iter: int,
    noise_sd: float,
    generator: torch.Generator,
) -> Tensor:
    """Batched Bayesian optimisation on a grid: one run per row of ``f`` ``(S, G)``.

    ``acquisition(x_ctx, y_ctx, mask)`` returns scores ``(S, G)``; the argmax is evaluated with
    noise and appended. Returns the simple regret ``f* − max_{queried} f`` after the initial
    design and after each iteration, shape ``(S, n_iter + 1)``.
    """
    checks.tensor("f", f, ndim=2, floating=True)
    checks.tensor("grid", grid, ndim=1, floating=True)
    checks.shape("f", f, (None, len(grid)))
    checks.finite("f", f)
    checks.finite("grid", grid)
    if not callable(acquisition):
        raise ValueError("acquisition must be callable")
    n_init = checks.integer("n_init", n_init, low=1, high=len(grid))
    n_iter = checks.integer("n_iter", n_iter, low=0)
    noise_sd = checks.real("noise_sd", noise_sd, low=0.0, strict=True)
    S, G = f.shape
    total = n_init + n_iter
    idx = torch.zeros(S, total, dtype=torch.long, device=f.device)
    idx[:, :n_init] = torch.rand(S, G, generator=generator).argsort(-1)[:, :n_init].to(f.device)
    eps = torch.randn(S, total, generator=generator, dtype=f.dtype).to(f.device)
    mask = torch.zeros(S, total, dtype=torch.bool, device=f.device)
    mask[:, :n_init] = True
    fstar = f.max(-1).values
    regret = [fstar - f.gather(1, idx[:, :n_init]).max(-1).values]
    for t in range(n_init, total):
        y = torch.where(mask, f.gather(1, idx) + noise_sd * eps, 0.0)
        scores = acquisition(grid[idx], y, mask)
        checks.shape("acquisition output", scores, (S, G))
        if bool(torch.isnan(scores).any()):
            raise ValueError("acquisition output must not contain NaN")
        idx[:, t] = scores.argmax(-1)
        mask[:, t] = True
        regret.append(fstar - f.gather(1, idx[:, : t + 1]).max(-1).values)
    return torch.stack(regret, 1)


# --------------------------------------------------------------------------- BoTorch bridge
def fixed_gp_model(x: Tensor, y: Tensor, lengthscale: float, variance: float, noise_sd: float):
    """A BoTorch ``SingleTaskGP`` with the toy prior's fixed hyper-parameters (zero mean, RBF).

    ``x`` and ``y`` are 1-D (one dataset); no fitting, no input or outcome transforms.
    """
    from botorch.models import SingleTaskGP
    from gpytorch.kernels import RBFKernel, ScaleKernel
    from gpytorch.likelihoods import GaussianLikelihood
    from gpytorch.means import ZeroMean

    checks.tensor("x", x, ndim=1, floating=True)
    checks.tensor("y", y, ndim=1, floating=True)
    checks.shape("y", y, (len(x),))
    checks.finite("x", x)
    checks.finite("y", y)
    lengthscale = checks.real("lengthscale", lengthscale, low=0.0, strict=True)
    variance = checks.real("variance", variance, low=0.0, strict=True)
    noise_sd = checks.real("noise_sd", noise_sd, low=0.0, strict=True)
    X, Y = x.to(torch.float64)[:, None], y.to(torch.float64)[:, None]
    lik = GaussianLikelihood().to(torch.float64)
    lik.noise = noise_sd**2
    kern = ScaleKernel(RBFKernel()).to(torch.float64)
    kern.base_kernel.lengthscale = lengthscale
    kern.outputscale = variance
    model = SingleTaskGP(
        X, Y, likelihood=lik, covar_module=kern, mean_module=ZeroMean(), outcome_transform=None
    )
    return model.eval()
