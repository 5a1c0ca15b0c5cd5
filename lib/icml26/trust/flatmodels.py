"""The models of chapter 18 (explaind) as functions of one flat parameter vector.

A :class:`FlatModel` maps ``(theta, x)``, with ``theta`` of shape ``(P,)``, to
log-probabilities of shape ``(N, C)``; its :class:`ParamSpec` names the tensors packed in
``theta`` and their parameter groups (what
:func:`icml26.trust.pathkernel.decomposition.decompose` attributes to). The chapter's models:
a tanh MLP (:func:`mlp_model`), the one-layer modular-addition transformer of the paper
(:func:`modadd_model`, data from :func:`modadd_data`) and its MLP stand-in
(:func:`modadd_mlp_model`).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import torch

from icml26 import checks

__all__ = [
    "FlatModel",
    "ParamSpec",
    "init_params",
    "mlp_model",
    "modadd_data",
    "modadd_mlp_model",
    "modadd_model",
]

Tensor = torch.Tensor


@dataclass(frozen=True)
class ParamSpec:
    """Names, shapes and components (parameter groups) of the tensors in a flat vector."""

    names: tuple[str, ...]
    shapes: tuple[tuple[int, ...], ...]
    groups: tuple[str, ...]

    def __post_init__(self) -> None:
        if not (len(self.names) == len(self.shapes) == len(self.groups)) or not self.names:
            raise ValueError("names, shapes and groups must be non-empty and of equal length")

    @property
    def sizes(self) -> list[int]:
        return [math.prod(s) for s in self.shapes]

    @property
    def numel(self) -> int:
        """P, the number of scalar parameters."""
        return sum(self.sizes)

    @property
    def group_names(self) -> tuple[str, ...]:
        """The components, in order of first appearance."""
        return tuple(dict.fromkeys(self.groups))

    def unflatten(self, theta: Tensor) -> dict[str, Tensor]:
        """Views of ``theta`` (shape ``(P,)``) as the named tensors."""
        parts = torch.split(theta, self.sizes)
        return {n: t.view(s) for n, s, t in zip(self.names, self.shapes, parts, strict=True)}

    def group_matrix(self, dtype: torch.dtype = torch.float64, device=None) -> Tensor:
        """One-hot ``(P, G)`` matrix: entry ``(p, g)`` is 1 when parameter p is in group g."""
        index = {g: i for i, g in enumerate(self.group_names)}
        ids = torch.cat(
            [torch.full((n,), index[g]) for n, g in zip(self.sizes, self.groups, strict=True)]
        )
        return torch.nn.functional.one_hot(ids, len(index)).to(dtype=dtype, device=device)

    def weight_mask(self, device=None) -> Tensor:
        """Boolean ``(P,)``: True on entries of matrices (weights), False on biases."""
        return torch.cat(
            [torch.full((n,), len(s) > 1) for n, s in zip(self.sizes, self.shapes, strict=True)]
        ).to(device)


@dataclass(frozen=True)
class FlatModel:
    """A model as a pure function of a flat parameter vector: ``forward(theta, x)``."""

    spec: ParamSpec
    forward: Callable[[Tensor, Tensor], Tensor]
    num_classes: int

    def __call__(self, theta: Tensor, x: Tensor) -> Tensor:
        return self.forward(theta, x)


def init_params(
    spec: ParamSpec,
    *,
    generator: torch.Generator,
    scale: float = 1.0,
    dtype: torch.dtype = torch.float64,
) -> Tensor:
    """Gaussian initialisation: matrices N(0, scale²/fan_in), biases 0 (a flat ``(P,)`` vector)."""
    scale = checks.real("scale", scale, low=0.0, strict=True)
    parts = []
    for s in spec.shapes:
        if len(s) > 1:
            fan_in = s[-2]
            w = torch.randn(s, generator=generator, dtype=torch.float64) * scale / math.sqrt(fan_in)
        else:
            w = torch.zeros(s, dtype=torch.float64)
        parts.append(w.flatten())
    return torch.cat(parts).to(dtype)


def mlp_model(sizes: Sequence[int]) -> FlatModel:
    """A tanh MLP ``sizes[0] → … → sizes[-1]`` with log-softmax output (chapter 18, part A).

    Components: ``layer1``, ``layer2``, … (weight and bias of each linear map).
    """
    if len(sizes) < 2:
        raise ValueError(f"sizes must list at least an input and an output size, got {sizes}")
    sizes = [checks.integer(f"sizes[{i}]", s, low=1) for i, s in enumerate(sizes)]
    names, shapes, groups = [], [], []
    for i, (a, b) in enumerate(itertools.pairwise(sizes)):
        names += [f"W{i + 1}", f"b{i + 1}"]
        shapes += [(a, b), (b,)]
        groups += [f"layer{i + 1}"] * 2
    spec = ParamSpec(tuple(names), tuple(shapes), tuple(groups))
    depth = len(sizes) - 1

    def forward(theta: Tensor, x: Tensor) -> Tensor:
        p = spec.unflatten(theta)
        h = x
        for i in range(1, depth + 1):
            h = h @ p[f"W{i}"] + p[f"b{i}"]
            if i < depth:
                h = torch.tanh(h)
        return torch.log_softmax(h, dim=-1)

    return FlatModel(spec, forward, sizes[-1])


def modadd_model(p: int, d_model: int, n_heads: int, d_mlp: int) -> FlatModel:
    """The one-layer transformer of the paper's grokking study, as a flat-parameter function.

    Input tokens ``[a, '+', b, '=']`` (vocabulary ``p + 2``), no positional encoding, no
    LayerNorm: embedding, one attention layer whose heads are separate linear maps (the query
    is the last position), a residual ReLU MLP, an unembedding without bias to the ``p``
    residues, log-softmax. Components: ``embed``, ``attn``, ``mlp``, ``unembed``.
    """
    p = checks.integer("p", p, low=2)
    d_model = checks.integer("d_model", d_model, low=1)
    n_heads = checks.integer("n_heads", n_heads, low=1)
    d_mlp = checks.integer("d_mlp", d_mlp, low=1)
    if d_model % n_heads:
        raise ValueError(f"d_model must be divisible by n_heads, got {d_model} and {n_heads}")
    dh = d_model // n_heads
    spec = ParamSpec(
        ("E", "Q", "K", "V", "O", "W1", "b1", "W2", "b2", "U"),
        (
            (p + 2, d_model),
            (n_heads, d_model, dh),
            (n_heads, d_model, dh),
            (n_heads, d_model, dh),
            (d_model, d_model),
            (d_model, d_mlp),
            (d_mlp,),
            (d_mlp, d_model),
            (d_model,),
            (d_model, p),
        ),
        ("embed", "attn", "attn", "attn", "attn", "mlp", "mlp", "mlp", "mlp", "unembed"),
    )

    def forward(theta: Tensor, tokens: Tensor) -> Tensor:
        w = spec.unflatten(theta)
        x = w["E"][tokens]  # (N, 4, d)
        q = torch.einsum("nd,hde->nhe", x[:, -1], w["Q"])
        k = torch.einsum("ntd,hde->nhte", x, w["K"])
        v = torch.einsum("ntd,hde->nhte", x, w["V"])
        att = torch.softmax(torch.einsum("nhe,nhte->nht", q, k) / math.sqrt(dh), dim=-1)
        z = torch.einsum("nht,nhte->nhe", att, v).reshape(tokens.shape[0], d_model)
        h = x[:, -1] + z @ w["O"]
        h = h + torch.relu(h @ w["W1"] + w["b1"]) @ w["W2"] + w["b2"]
        return torch.log_softmax(h @ w["U"], dim=-1)

    return FlatModel(spec, forward, p)


def modadd_mlp_model(p: int, d_embed: int, d_hidden: int) -> FlatModel:
    """The embedding-MLP variant for modular addition (the grokking model of small studies).

    Reads the tokens ``a`` and ``b`` of ``[a, '+', b, '=']``: a shared embedding (vocabulary
    ``p + 2``), concatenated, one ReLU layer, an unembedding without bias, log-softmax.
    Components: ``embed``, ``hidden``, ``unembed``.
    """
    p = checks.integer("p", p, low=2)
    d_embed = checks.integer("d_embed", d_embed, low=1)
    d_hidden = checks.integer("d_hidden", d_hidden, low=1)
    spec = ParamSpec(
        ("E", "W1", "b1", "U"),
        ((p + 2, d_embed), (2 * d_embed, d_hidden), (d_hidden,), (d_hidden, p)),
        ("embed", "hidden", "hidden", "unembed"),
    )

    def forward(theta: Tensor, tokens: Tensor) -> Tensor:
        w = spec.unflatten(theta)
        x = w["E"][tokens[:, [0, 2]]].reshape(tokens.shape[0], 2 * d_embed)
        return torch.log_softmax(torch.relu(x @ w["W1"] + w["b1"]) @ w["U"], dim=-1)

    return FlatModel(spec, forward, p)


def modadd_data(
    p: int, train_fraction: float, *, generator: torch.Generator
) -> tuple[Tensor, Tensor, Tensor, Tensor]:
    """Modular addition ``a + b mod p`` on the pairs ``a ≤ b``, split at random.

    Returns ``(tokens_train, y_train, tokens_val, y_val)``; tokens are ``[a, p, b, p + 1]``
    (``p`` is '+', ``p + 1`` is '='). Without positional encoding ``(a, b)`` and ``(b, a)``
    are the same input, hence ``a ≤ b`` (as in the paper's code).
    """
    p = checks.integer("p", p, low=2)
    train_fraction = checks.real("train_fraction", train_fraction, low=0.0, high=1.0, strict=True)
    a, b = torch.triu_indices(p, p)
    tokens = torch.stack([a, torch.full_like(a, p), b, torch.full_like(a, p + 1)], dim=1)
    y = (a + b) % p
    perm = torch.randperm(a.numel(), generator=generator)
    n_train = round(train_fraction * a.numel())
    if not 0 < n_train < a.numel():
        raise ValueError(f"train_fraction leaves an empty split for p = {p}")
    tr, va = perm[:n_train], perm[n_train:]
    return tokens[tr], y[tr], tokens[va], y[va]
