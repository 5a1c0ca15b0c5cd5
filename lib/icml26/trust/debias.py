"""Chapter 16 (debiasing): perturbation-induced bias, debiasing and certification.

A toy "polarity prompts" task stands in for an LLM's prompts. A prompt is a bag of tokens;
the classifier is an ensemble of ``S`` independent small networks (one per seed, trained in
one batch): embedding, mean pooling, LayerNorm, two ReLU layers and a linear head. The
module provides the meaning-preserving perturbation family Π_neutral (filler insertion,
synonym swaps, unknown tokens) and the negative control Π_interacting (random per-token
rescaling), the per-layer bias/variance split of :prf:ref:`debiasing-lem-split`, bias-only
(BitFit-style) fine-tuning, the ReLU Jensen gap of :prf:ref:`debiasing-lem-jensen`, the Cantelli
bound of :prf:ref:`debiasing-prop-cantelli` and the Clopper–Pearson certificate of
:prf:ref:`debiasing-prop-certify` (chapter 16).

Every tensor that depends on the seed carries a leading seed axis ``S``. Because the model
pools by a mean, a prompt enters the network only through its *bag*: the vector of token
counts (times per-token weights, for Π_interacting) divided by the prompt's length.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import torch

from icml26 import checks

__all__ = [
    "LAYERS",
    "PolarityTask",
    "accuracy",
    "bag",
    "bias_parameter_names",
    "bias_variance",
    "cantelli_flip_bound",
    "clopper_pearson_lower",
    "forward",
    "init_classifier",
    "make_task",
    "perturb_interacting",
    "perturb_neutral",
    "relu_gaussian_gap",
    "sample_prompts",
    "train",
]

#: Representations recorded by :func:`forward`, input side first.
LAYERS: tuple[str, ...] = ("pool", "ln", "relu1", "relu2", "logits")
N_CONTENT, N_SYNONYM, N_FILLER = 40, 10, 12
PROMPT_LEN = 10
_PARAM_NAMES = ("E", "ln_w", "ln_b", "W1", "b1", "W2", "b2", "W3", "b3")


@dataclass(frozen=True)
class PolarityTask:
    """Vocabulary of the polarity-prompts task.

    Token ids: ``0..39`` content words, ``40..49`` synonyms, ``50..61`` fillers, ``62`` the
    unknown token. ``polarity[v]`` is the polarity of token ``v`` (0 for fillers and the
    unknown token), ``synonym_of[v]`` the synonym of content token ``v`` (or ``-1``).
    """

    polarity: torch.Tensor  # (V,) float
    synonym_of: torch.Tensor  # (V,) long, -1 where none
    fillers: torch.Tensor  # (12,) long
    unk: int

    @property
    def vocab(self) -> int:
        return int(self.polarity.numel())


def make_task(generator: torch.Generator) -> PolarityTask:
    """The vocabulary: 8 content words of each polarity in {−2, …, 2}, 10 synonyms of random
    content words (same polarity), 12 zero-polarity fillers and one unknown token."""
    if not isinstance(generator, torch.Generator):
        raise ValueError("generator must be a torch.Generator")
    vocab = N_CONTENT + N_SYNONYM + N_FILLER + 1
    content_pol = torch.arange(-2, 3, dtype=torch.float64).repeat_interleave(N_CONTENT // 5)
    targets = torch.randperm(N_CONTENT, generator=generator)[:N_SYNONYM]
    polarity = torch.zeros(vocab, dtype=torch.float64)
    polarity[:N_CONTENT] = content_pol
    polarity[N_CONTENT : N_CONTENT + N_SYNONYM] = content_pol[targets]
    synonym_of = torch.full((vocab,), -1, dtype=torch.long)
    synonym_of[targets] = torch.arange(N_CONTENT, N_CONTENT + N_SYNONYM)
    fillers = torch.arange(N_CONTENT + N_SYNONYM, N_CONTENT + N_SYNONYM + N_FILLER)
    return PolarityTask(polarity, synonym_of, fillers, vocab - 1)


def sample_prompts(
    task: PolarityTask,
    shape: tuple[int, ...],
    generator: torch.Generator,
    *,
    synonym_rate: float = 0.0,
) -> tuple[torch.Tensor, torch.Tensor]:
    """Prompts of 10 content tokens, label ``1[Σ polarity > 0]``, ties resampled.

    Returns ``tokens`` of shape ``shape + (10,)`` and ``labels`` of shape ``shape``. With
    ``synonym_rate`` each position holding a word that has a synonym shows the synonym with
    that probability (training sees synonyms rarely).
    """
    shape = tuple(checks.integer("shape", s, low=1) for s in shape)
    rate = checks.real("synonym_rate", synonym_rate, low=0.0, high=1.0)
    n = int(np.prod(shape))
    tokens = torch.empty(0, PROMPT_LEN, dtype=torch.long)
    while tokens.shape[0] < n:  # rejection of ties
        t = torch.randint(0, N_CONTENT, (2 * n, PROMPT_LEN), generator=generator)
        tokens = torch.cat([tokens, t[task.polarity[t].sum(-1) != 0]])
    tokens = tokens[:n]
    labels = (task.polarity[tokens].sum(-1) > 0).long()
    if rate > 0:
        syn = task.synonym_of[tokens]
        swap = (syn >= 0) & (torch.rand(tokens.shape, generator=generator) < rate)
        tokens = torch.where(swap, syn, tokens)
    return tokens.reshape(*shape, PROMPT_LEN), labels.reshape(shape)


def bag(tokens: torch.Tensor, vocab: int, weights: torch.Tensor | None = None) -> torch.Tensor:
    """Length-normalised bag of ``tokens`` (``(..., T)``, ``-1`` = absent): ``(..., vocab)``.

    Entry ``v`` is Σ_t w_t 1[token_t = v] / (number of present tokens); with mean pooling,
    ``bag @ E`` is the mean embedding of the prompt.
    """
    checks.tensor("tokens", tokens, dtype=torch.long)
    vocab = checks.integer("vocab", vocab, low=1)
    if tokens.numel() and int(tokens.max()) >= vocab:
        raise ValueError(f"tokens must be < vocab = {vocab}")
    if weights is not None:
        checks.tensor("weights", weights, floating=True)
        if weights.shape != tokens.shape:
            raise ValueError(f"weights must have the shape of tokens, got {tuple(weights.shape)}")
        checks.finite("weights", weights)
    present = tokens >= 0
    w = present.double() if weights is None else weights.double() * present
    out = torch.zeros(*tokens.shape[:-1], vocab, dtype=torch.float64, device=tokens.device)
    out.scatter_add_(-1, tokens.clamp(min=0), w)
    return out / present.sum(-1, keepdim=True).clamp(min=1)


def perturb_neutral(
    task: PolarityTask,
    tokens: torch.Tensor,
    n_perturb: int,
    generator: torch.Generator,
    *,
    max_fillers: int = 4,
    synonym_prob: float = 0.3,
    unk_prob: float = 0.05,
) -> torch.Tensor:
    """Π_neutral: ``n_perturb`` meaning-preserving perturbations of each prompt, as bags.

    Insert 1..``max_fillers`` filler tokens, swap each word that has a synonym for it with
    probability ``synonym_prob``, replace a zero-polarity word by the unknown token with
    probability ``unk_prob``. Polarity sums, hence labels, are unchanged by construction.
    Returns ``tokens.shape[:-1] + (n_perturb, vocab)``. (Insertion positions do not matter
    under mean pooling.)
    """
    checks.tensor("tokens", tokens, dtype=torch.long)
    P = checks.integer("n_perturb", n_perturb, low=1)
    K = checks.integer("max_fillers", max_fillers, low=0)
    ps = checks.real("synonym_prob", synonym_prob, low=0.0, high=1.0)
    pu = checks.real("unk_prob", unk_prob, low=0.0, high=1.0)
    t = tokens.unsqueeze(-2).expand(*tokens.shape[:-1], P, tokens.shape[-1])
    syn = task.synonym_of[t]
    t = torch.where((syn >= 0) & (torch.rand(t.shape, generator=generator) < ps), syn, t)
    neutral = task.polarity[t] == 0
    t = torch.where(neutral & (torch.rand(t.shape, generator=generator) < pu), task.unk, t)
    if K > 0:
        k = torch.randint(1, K + 1, (*t.shape[:-1], 1), generator=generator)
        f = task.fillers[
            torch.randint(0, len(task.fillers), (*t.shape[:-1], K), generator=generator)
        ]
        f = torch.where(torch.arange(K) < k, f, -1)
        t = torch.cat([t, f], -1)
    return bag(t, task.vocab)


def perturb_interacting(
    tokens: torch.Tensor,
    vocab: int,
    n_perturb: int,
    generator: torch.Generator,
    *,
    low: float = 0.3,
    high: float = 1.7,
) -> torch.Tensor:
    """Π_interacting: rescale each token's embedding by an independent factor ~ U[low, high].

    The change of the pooled embedding has mean zero when ``low + high = 2`` and depends on
    the prompt's own tokens. Returns ``tokens.shape[:-1] + (n_perturb, vocab)``.
    """
    checks.tensor("tokens", tokens, dtype=torch.long)
    P = checks.integer("n_perturb", n_perturb, low=1)
    lo = checks.real("low", low, low=0.0)
    hi = checks.real("high", high, low=lo)
    t = tokens.unsqueeze(-2).expand(*tokens.shape[:-1], P, tokens.shape[-1])
    u = lo + (hi - lo) * torch.rand(t.shape, generator=generator, dtype=torch.float64)
    return bag(t, vocab, u)


def init_classifier(
    task: PolarityTask,
    seeds: int,
    generator: torch.Generator,
    *,
    d: int = 32,
    hidden: int = 64,
    filler_offset: float = 4.0,
) -> dict[str, torch.Tensor]:
    """An ensemble of ``seeds`` classifiers (float64 parameters with a leading seed axis).

    Embeddings are N(0, 1) (norm ≈ √d); every filler shares one random offset of norm
    ``filler_offset`` × √d (a direction per seed), and fillers and the unknown token are
    never trained. Linear layers use PyTorch's default uniform initialisation.
    """
    S = checks.integer("seeds", seeds, low=1)
    d = checks.integer("d", d, low=1)
    h = checks.integer("hidden", hidden, low=1)
    off = checks.real("filler_offset", filler_offset, low=0.0)
    g, V = generator, task.vocab

    def lin(n_in: int, n_out: int) -> tuple[torch.Tensor, torch.Tensor]:
        a = 1.0 / np.sqrt(n_in)
        W = (2 * torch.rand(S, n_in, n_out, generator=g, dtype=torch.float64) - 1) * a
        return W, (2 * torch.rand(S, n_out, generator=g, dtype=torch.float64) - 1) * a

    E = torch.randn(S, V, d, generator=g, dtype=torch.float64)
    u = torch.randn(S, 1, d, generator=g, dtype=torch.float64)
    E[:, task.fillers] += off * np.sqrt(d) * u / u.norm(dim=-1, keepdim=True)
    p = {"E": E, "ln_w": torch.ones(S, d, dtype=torch.float64), "ln_b": torch.zeros(S, d)}
    p["ln_b"] = p["ln_b"].double()
    p["W1"], p["b1"] = lin(d, h)
    p["W2"], p["b2"] = lin(h, h)
    p["W3"], p["b3"] = lin(h, 2)
    return p


def bias_parameter_names() -> tuple[str, ...]:
    """The bias parameters (Linear biases and the LayerNorm shift): what BitFit trains."""
    return ("ln_b", "b1", "b2", "b3")


def forward(params: dict[str, torch.Tensor], bags: torch.Tensor) -> dict[str, torch.Tensor]:
    """All representations of :data:`LAYERS` for ``bags`` of shape ``(S, ..., V)``.

    One batched pass: every prompt, perturbation and seed at once. Each output has shape
    ``(S, ..., width)``.
    """
    missing = [k for k in _PARAM_NAMES if k not in params]
    if missing:
        raise ValueError(f"params must hold {_PARAM_NAMES}, missing {missing}")
    checks.tensor("bags", bags, floating=True)
    S, V = params["E"].shape[:2]
    if bags.ndim < 2 or bags.shape[0] != S or bags.shape[-1] != V:
        raise ValueError(f"bags must have shape ({S}, ..., {V}), got {tuple(bags.shape)}")
    checks.finite("bags", bags)
    lead = bags.shape[1:-1]
    x = bags.reshape(S, -1, V).to(params["E"].dtype)
    out = {"pool": x @ params["E"]}
    z = out["pool"]
    mu, var = z.mean(-1, keepdim=True), z.var(-1, unbiased=False, keepdim=True)
    out["ln"] = (z - mu) / torch.sqrt(var + 1e-5) * params["ln_w"][:, None] + params["ln_b"][
        :, None
    ]
    out["relu1"] = torch.relu(out["ln"] @ params["W1"] + params["b1"][:, None])
    out["relu2"] = torch.relu(out["relu1"] @ params["W2"] + params["b2"][:, None])
    out["logits"] = out["relu2"] @ params["W3"] + params["b3"][:, None]
    return {k: v.reshape(S, *lead, v.shape[-1]) for k, v in out.items()}


def accuracy(
    params: dict[str, torch.Tensor], bags: torch.Tensor, labels: torch.Tensor
) -> torch.Tensor:
    """Per-seed accuracy ``(S,)``; ``labels`` broadcast against ``bags.shape[:-1]``."""
    checks.tensor("bags", bags, floating=True)
    checks.tensor("labels", labels, dtype=torch.long)
    if tuple(labels.shape) != tuple(bags.shape[: labels.ndim]):
        raise ValueError(
            f"labels must match the leading axes of bags, got {tuple(labels.shape)} "
            f"for bags {tuple(bags.shape)}"
        )
    with torch.no_grad():
        pred = forward(params, bags)["logits"].argmax(-1)
    lab = labels.reshape(*labels.shape, *([1] * (pred.ndim - labels.ndim)))
    return (pred == lab).double().reshape(pred.shape[0], -1).mean(-1)


def train(
    params: dict[str, torch.Tensor],
    batch: Callable[[int], tuple[torch.Tensor, torch.Tensor]],
    steps: int,
    *,
    lr: float = 3e-3,
    trainable: tuple[str, ...] | None = None,
) -> dict[str, torch.Tensor]:
    """Adam on the cross-entropy of every seed at once; returns new parameters.

    ``batch(step)`` returns ``(bags (S, B, V), labels (S, B))``. Only the parameters named in
    ``trainable`` (default: all) move; fillers and the unknown token never get a gradient
    unless a batch contains them.
    """
    if not callable(batch):
        raise ValueError("batch must be a callable step -> (bags, labels)")
    steps = checks.integer("steps", steps, low=0)
    lr = checks.real("lr", lr, low=0.0, strict=True)
    if not isinstance(params, dict) or any(k not in params for k in _PARAM_NAMES):
        raise ValueError(f"params must be a dict holding {_PARAM_NAMES}")
    for k, v in params.items():
        checks.tensor(f"params[{k!r}]", v, floating=True)
        checks.finite(f"params[{k!r}]", v)
    names = tuple(params) if trainable is None else tuple(trainable)
    unknown = [n for n in names if n not in params]
    if unknown:
        raise ValueError(f"trainable names unknown parameters: {unknown}")
    p = {k: v.detach().clone() for k, v in params.items()}
    for n in names:
        p[n].requires_grad_(True)
    opt = torch.optim.Adam([p[n] for n in names], lr=lr)
    for step in range(steps):
        bags, labels = batch(step)
        logits = forward(p, bags)["logits"]
        loss = torch.nn.functional.cross_entropy(logits.reshape(-1, 2), labels.reshape(-1))
        opt.zero_grad(set_to_none=True)
        (loss * logits.shape[0]).backward()  # the seeds' losses add: independent gradients
        opt.step()
    return {k: v.detach() for k, v in p.items()}


def bias_variance(clean: torch.Tensor, perturbed: torch.Tensor) -> dict[str, torch.Tensor]:
    """The split of :prf:ref:`debiasing-lem-split` from clean ``(S, N, D)`` and perturbed
    ``(S, N, P, D)`` representations; every moment with ddof = 0, per seed ``(S,)``.

    Returns ``b`` (the pooled bias, ``(S, D)``), ``msd`` = mean‖Δ‖², ``bias2`` =
    mean_x‖b(x)‖², ``pooled2`` = ‖b̄‖², ``cov`` = tr Cov_x b, ``fluct`` = mean‖ξ‖², and
    ``rho`` = ‖b̄‖² / mean‖Δ‖² (the share a constant correction can remove).
    """
    checks.tensor("clean", clean, ndim=3, floating=True)
    checks.tensor("perturbed", perturbed, ndim=4, floating=True)
    S, N, D = clean.shape
    checks.shape("perturbed", perturbed, (S, N, None, D))
    checks.finite("clean", clean)
    checks.finite("perturbed", perturbed)
    delta = perturbed - clean[:, :, None]
    bx = delta.mean(2)  # b(x), (S, N, D)
    b = bx.mean(1)
    xi = delta - bx[:, :, None]
    msd = delta.pow(2).sum(-1).mean((1, 2))
    pooled2 = b.pow(2).sum(-1)
    return {
        "b": b,
        "msd": msd,
        "bias2": bx.pow(2).sum(-1).mean(1),
        "pooled2": pooled2,
        "cov": (bx - b[:, None]).pow(2).sum(-1).mean(1),
        "fluct": xi.pow(2).sum(-1).mean((1, 2)),
        "rho": pooled2 / msd.clamp(min=torch.finfo(msd.dtype).tiny),
    }


def relu_gaussian_gap(z: torch.Tensor | np.ndarray, s: float) -> np.ndarray:
    """Jensen gap ``E[ReLU(z + ε)] − ReLU(z)`` for ``ε ~ N(0, s²)``: ``s φ(z/s) − |z| Φ(−|z|/s)``.

    Elementwise over ``z`` of any shape. Implements :prf:ref:`debiasing-lem-jensen`,
    chapter 16.
    """
    from scipy.special import ndtr

    s = checks.real("s", s, low=0.0, strict=True)
    z = checks.as_float64("z", z)
    checks.finite("z", z)
    a = np.abs(z)
    return s * np.exp(-0.5 * (z / s) ** 2) / np.sqrt(2 * np.pi) - a * ndtr(-a / s)


def clopper_pearson_lower(k: object, n: int, alpha: float = 0.05) -> np.ndarray:
    """One-sided Clopper–Pearson lower bound Beta⁻¹(α; k, n − k + 1) (0 where k = 0).

    Implements :prf:ref:`debiasing-prop-certify`, chapter 16.
    """
    from scipy.stats import beta

    n = checks.integer("n", n, low=1)
    alpha = checks.real("alpha", alpha, low=0.0, high=1.0, strict=True)
    k = np.asarray(k.cpu() if isinstance(k, torch.Tensor) else k)
    if not np.issubdtype(k.dtype, np.integer) or (k < 0).any() or (k > n).any():
        raise ValueError(f"k must be integers in [0, n = {n}]")
    safe = np.maximum(k, 1)
    return np.where(k == 0, 0.0, beta.ppf(alpha, safe, n - safe + 1))


def cantelli_flip_bound(margin: object, beta: object, sigma2: object) -> np.ndarray:
    """Cantelli's upper bound σ² / (σ² + (m + β)²) on P[m + w·Δ ≤ 0] where m + β > 0
    (``nan`` elsewhere, where only the lower-tail bound applies). The three arguments
    broadcast against each other (NumPy rules).

    Implements :prf:ref:`debiasing-prop-cantelli`, chapter 16.
    """
    m = checks.as_float64("margin", margin)
    b = checks.as_float64("beta", beta)
    v = checks.as_float64("sigma2", sigma2)
    for name, a in (("margin", m), ("beta", b), ("sigma2", v)):
        checks.finite(name, a)
    if (v < 0).any():
        raise ValueError("sigma2 must be non-negative")
    c = m + b
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(c > 0, v / (v + c**2), np.nan)
