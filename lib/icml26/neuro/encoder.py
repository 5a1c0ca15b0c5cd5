"""The hierarchical RECTOR encoder (chapter 19, rector), a reconstruction.

One layer (:prf:ref:`rector-def-layer`): channel attention within each region at each patch
(the block mask of :prf:ref:`rector-def-mask`), region tokens attending across regions at
each patch, temporal attention of the region tokens, and a broadcast back to the channels.
Channel embeddings are a function of the electrode position (any montage) or a lookup by
name (the training montage only).
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from icml26 import checks
from icml26.neuro.attention import region_ids
from icml26.neuro.montage import HEAD_RADIUS

__all__ = ["RectorEncoder", "channel_graph"]


class _Attention(nn.Module):
    def __init__(self, d: int, heads: int) -> None:
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(d, 3 * d)
        self.out = nn.Linear(d, d)

    def forward(self, x: torch.Tensor, mask: torch.Tensor | None = None) -> torch.Tensor:
        *lead, n, d = x.shape
        q, k, v = self.qkv(x).reshape(*lead, n, 3, self.heads, d // self.heads).unbind(-3)
        q, k, v = (t.transpose(-2, -3) for t in (q, k, v))
        o = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
        return self.out(o.transpose(-2, -3).reshape(*lead, n, d))


class _Layer(nn.Module):
    def __init__(self, d: int, heads: int) -> None:
        super().__init__()
        self.chan, self.reg, self.time = (_Attention(d, heads) for _ in range(3))
        self.n1, self.n2, self.n3, self.n4 = (nn.LayerNorm(d) for _ in range(4))
        self.mlp = nn.Sequential(nn.Linear(d, 2 * d), nn.GELU(), nn.Linear(2 * d, d))

    def forward(
        self,
        h: torch.Tensor,
        regions: torch.Tensor,
        R: int,
        reg_emb: torch.Tensor,
        visible: torch.Tensor | None = None,
    ) -> torch.Tensor:
        # h: (B, T, C, d). (i) channels attend within their region, at the same patch
        if visible is not None:
            return self._hidden(h, regions.to(h.device), R, reg_emb, visible)
        regions = regions.to(h.device)
        same = torch.zeros(len(regions), len(regions), dtype=h.dtype, device=h.device)
        same.masked_fill_(regions[:, None] != regions[None], -torch.inf)  # additive log M
        h = h + self.chan(self.n1(h), same)
        # (ii) region tokens: mean of their channels (removed channels simply absent)
        onehot = F.one_hot(regions, R).to(h.dtype)  # (C, R)
        counts = onehot.sum(0)
        present = counts > 0
        z = torch.einsum("btcd,cr->btrd", h, onehot) / counts.clamp(min=1)[:, None] + reg_emb
        bias = torch.zeros(R, dtype=h.dtype, device=h.device).masked_fill(~present, -torch.inf)
        z = z + self.reg(self.n2(z), bias.expand(R, R))
        # (iii) temporal attention of region tokens across patches
        z = z + self.time(self.n3(z.transpose(1, 2))).transpose(1, 2)
        # (iv) broadcast back to the channels of each region, then the MLP
        h = h + z[:, :, regions]
        return h + self.mlp(self.n4(h))

    def _hidden(
        self,
        h: torch.Tensor,
        regions: torch.Tensor,
        R: int,
        reg_emb: torch.Tensor,
        visible: torch.Tensor,
    ) -> torch.Tensor:
        """The same four steps when only the ``visible`` tokens ``(B, T, C)`` may be read:
        a hidden token is no key and no part of its region's mean, a region with no
        visible channel at a patch is no key of the region and temporal attention; every
        token still queries what it may read (and itself)."""
        same = regions[:, None] == regions[None]
        h = h + self.chan(self.n1(h), _readable(same, visible)[:, :, None])
        onehot = F.one_hot(regions, R).to(h.dtype)  # (C, R)
        weight = visible.to(h.dtype)
        counts = torch.einsum("btc,cr->btr", weight, onehot)
        z = torch.einsum("btcd,btc,cr->btrd", h, weight, onehot)
        z = z / counts.clamp(min=1)[..., None] + reg_emb
        present = counts > 0  # (B, T, R): regions with a visible channel
        every = torch.ones(R, R, dtype=torch.bool, device=h.device)
        z = z + self.reg(self.n2(z), _readable(every, present)[:, :, None])
        every_t = torch.ones(h.shape[1], h.shape[1], dtype=torch.bool, device=h.device)
        m_time = _readable(every_t, present.transpose(1, 2))[:, :, None]
        z = z + self.time(self.n3(z.transpose(1, 2)), m_time).transpose(1, 2)
        h = h + z[:, :, regions]
        return h + self.mlp(self.n4(h))


def _readable(allowed: torch.Tensor, keys: torch.Tensor) -> torch.Tensor:
    """Boolean attention mask ``(..., n, n)``: ``allowed`` pairs whose key is in ``keys``
    ``(..., n)``, and every token's own entry, so no query row is ever empty."""
    eye = torch.eye(allowed.shape[-1], dtype=torch.bool, device=allowed.device)
    return allowed & (keys[..., None, :] | eye)


class RectorEncoder(nn.Module):
    """Hierarchical RECTOR-SA encoder (:prf:ref:`rector-def-layer`), a reconstruction.

    Tokens ``h⁰ = W_p x + e_chan + e_time + e_reg``. ``channel_embedding="position"`` makes
    ``e_chan`` an MLP of the electrode position (any montage can be embedded);
    ``"index"`` makes it a lookup over the names of ``vocabulary`` (the training montage).
    """

    def __init__(
        self,
        patch: int,
        T: int,
        *,
        d: int = 32,
        heads: int = 2,
        layers: int = 1,
        max_regions: int = 8,
        channel_embedding: str = "position",
        vocabulary: list[str] | None = None,
    ) -> None:
        super().__init__()
        self.patch = checks.integer("patch", patch, low=1)
        self.T = checks.integer("T", T, low=1)
        d = checks.integer("d", d, low=2)
        heads = checks.integer("heads", heads, low=1)
        if d % heads:
            raise ValueError(f"heads must divide d = {d}, got {heads}")
        checks.integer("layers", layers, low=1)
        self.max_regions = checks.integer("max_regions", max_regions, low=1)
        if channel_embedding not in ("position", "index"):
            raise ValueError(
                f"channel_embedding must be 'position' or 'index', got {channel_embedding!r}"
            )
        if channel_embedding == "index" and not vocabulary:
            raise ValueError("vocabulary must list the channel names of an index embedding")
        self.kind = channel_embedding
        self.vocabulary = {n: i for i, n in enumerate(vocabulary or [])}
        self.proj = nn.Linear(patch, d)
        self.mask_token = nn.Parameter(0.02 * torch.randn(d))
        self.time_emb = nn.Parameter(0.02 * torch.randn(T, d))
        self.reg_emb = nn.Parameter(0.02 * torch.randn(max_regions, d))
        self.chan: nn.Module
        if channel_embedding == "position":
            self.chan = nn.Sequential(nn.Linear(3, d), nn.GELU(), nn.Linear(d, d))
        else:
            self.chan = nn.Embedding(len(self.vocabulary), d)
        self.layers = nn.ModuleList(_Layer(d, heads) for _ in range(layers))
        self.norm = nn.LayerNorm(d)
        self.d = d

    def channel_embedding(self, pos: torch.Tensor, names: list[str] | None) -> torch.Tensor:
        """``e_chan`` for the channels given by position (metres) or by name."""
        if self.kind == "position":
            return self.chan(pos.to(self.time_emb.dtype) / HEAD_RADIUS)
        if names is None:
            raise ValueError("names are required by an index channel embedding")
        unknown = [n for n in names if n not in self.vocabulary]
        if unknown:
            raise ValueError(f"names: {unknown[:3]} not in the index vocabulary of the encoder")
        return self.chan(torch.tensor([self.vocabulary[n] for n in names], device=pos.device))

    def forward(
        self,
        x: torch.Tensor,
        pos: torch.Tensor,
        regions: object,
        *,
        names: list[str] | None = None,
        masked: torch.Tensor | None = None,
        hide_masked: bool = False,
    ) -> torch.Tensor:
        """Channel tokens ``(B, T, C, d)`` of patches ``x`` ``(B, C, T, P)``.

        ``masked`` ``(B, C, T)`` replaces those tokens' content by the [MASK] embedding.
        With ``hide_masked=True`` the other tokens cannot read them either, as in a masked
        autoencoder: a masked token is no key of any attention and no part of its region's
        mean, and it reads the visible tokens (and itself) only to be decoded. A channel
        masked at every patch is then, for the other tokens, exactly a removed channel.
        Missing channels are handled by leaving them out of ``x``, ``pos`` and ``regions``.
        """
        checks.tensor("x", x, floating=True)
        checks.shape("x", x, (None, None, self.T, self.patch))
        checks.finite("x", x)
        C = x.shape[1]
        if not isinstance(pos, torch.Tensor):
            pos = torch.as_tensor(checks.as_float64("pos", pos))
        checks.shape("pos", pos, (C, 3))
        checks.finite("pos", pos)
        r = region_ids("regions", regions)
        if len(r) != C or int(r.max()) >= self.max_regions:
            raise ValueError(f"regions must be {C} ids below {self.max_regions}")
        dev = self.time_emb.device
        r = r.to(dev)
        tok = self.proj(x.to(dev, self.time_emb.dtype)).transpose(1, 2)  # (B, T, C, d)
        if not isinstance(hide_masked, bool):
            raise ValueError(f"hide_masked must be True or False, got {hide_masked!r}")
        if hide_masked and masked is None:
            raise ValueError("hide_masked needs the masked tokens, got masked=None")
        visible = None
        if masked is not None:
            checks.tensor("masked", masked, dtype=torch.bool)
            checks.shape("masked", masked, (x.shape[0], C, self.T))
            m = masked.to(dev).transpose(1, 2)  # (B, T, C)
            tok = torch.where(m[..., None], self.mask_token, tok)
            visible = ~m if hide_masked else None
        e = self.channel_embedding(pos.to(dev), names)
        h = tok + e[None, None] + self.time_emb[None, :, None] + self.reg_emb[r][None, None]
        for layer in self.layers:
            h = layer(h, r, self.max_regions, self.reg_emb, visible)
        return self.norm(h)


def channel_graph(h: torch.Tensor, *, over_time: bool = False) -> torch.Tensor:
    """The encoder's connectivity graph of each window, ``(B, C, C)`` from tokens ``h``
    ``(B, T, C, d)``: ``H Hᵀ`` with ``H`` the unit-norm time-pooled channel tokens.

    With ``over_time=True`` each channel is instead represented by its whole token
    trajectory, centred over the patches and flattened to ``T·d`` numbers: the graph is then
    a correlation of token trajectories, which can follow a window's coupling, where the
    time-pooled graph can only follow the tokens' average over the window.

    The topology objective of :prf:ref:`rector-def-views` trains it to match the window's
    correlation matrix; averaged over windows it is the learned functional affinity of
    :prf:ref:`rector-def-afp`. A per-step kernel of the training loss, it propagates NaN and
    inf (no finiteness check: that would synchronise the device at every step).
    """
    checks.tensor("h", h, ndim=4, floating=True)
    if not isinstance(over_time, bool):
        raise ValueError(f"over_time must be True or False, got {over_time!r}")
    if over_time:
        z = (h - h.mean(1, keepdim=True)).transpose(1, 2).flatten(2)  # (B, C, T·d)
        H = F.normalize(z, dim=-1)
    else:
        H = F.normalize(h.mean(1), dim=-1)
    return H @ H.transpose(1, 2)
