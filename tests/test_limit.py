"""Tests for icml26.retrieval.limit (chapter 01): LIMIT-style generator, MTEB loader, retrievers."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from icml26.retrieval import limit, med, retrievers

ROOT = Path(__file__).resolve().parents[1]
SYNTH = ROOT / "data" / "limit-small-synth"


def test_generator_reproduces_shipped_files_byte_for_byte():
    files = limit.generate_limit(seed=limit.LIMIT_SMALL_SEED)
    assert set(files) == {"corpus.jsonl", "queries.jsonl", "qrels.jsonl"}
    for name, text in files.items():
        assert (SYNTH / name).read_bytes() == text.encode("utf-8"), name


def test_readme_lists_the_generated_files():
    readme = (ROOT / "data" / "README.md").read_text()
    rows = dict(
        re.findall(r"^\|\s*`(limit-small-synth/[^`]+)`\s*\|\s*`([0-9a-f]{64})`", readme, re.M)
    )
    assert set(rows) == {
        f"limit-small-synth/{n}" for n in ("corpus.jsonl", "queries.jsonl", "qrels.jsonl")
    }
    for rel, digest in rows.items():
        assert hashlib.sha256((ROOT / "data" / rel).read_bytes()).hexdigest() == digest


def test_write_and_load_roundtrip(tmp_path):
    files = limit.generate_limit(n_docs=10, n_queries=30, min_items=12, seed=3)
    limit.write_limit(tmp_path, files)
    data = limit.load_mteb(tmp_path)
    assert len(data.doc_ids) == 10 and len(data.query_ids) == 30
    assert data.relevance.shape == (30, 10)
    assert bool((data.relevance.sum(dim=1) == 2).all())


def test_limit_small_synth_follows_the_recipe():
    data = limit.load_mteb(SYNTH)
    assert len(data.doc_ids) == 46 and len(set(data.doc_ids)) == 46
    assert len(data.query_ids) == 1000 and int(data.relevance.sum()) == 2000
    assert bool((data.relevance.sum(dim=1) == 2).all())
    pairs = {tuple(r.nonzero().flatten().tolist()) for r in data.relevance}
    assert len(pairs) == 1000  # dense pattern: 1000 distinct pairs out of C(46, 2) = 1035
    for qtext, row in zip(data.query_texts, data.relevance, strict=True):
        item = re.fullmatch(r"Who likes (.+)\?", qtext).group(1)
        for i in row.nonzero().flatten().tolist():
            name = data.doc_ids[i]
            assert item in re.split(r", | and ", data.doc_texts[i][len(name) + 7 : -1])
    for name, text in zip(data.doc_ids, data.doc_texts, strict=True):
        assert text.startswith(f"{name} likes ") and text.endswith(".")
        assert text.count(",") + 2 >= 45  # "a, b, ..., y and z"


def test_loader_accepts_official_layout_with_titles(tmp_path):
    (tmp_path / "corpus.jsonl").write_text(
        json.dumps({"_id": "A B", "title": "T", "text": "A B likes X."})
        + "\n"
        + json.dumps({"_id": "C D", "title": "", "text": "C D likes Y."})
        + "\n"
    )
    (tmp_path / "queries.jsonl").write_text(
        json.dumps({"_id": "q0", "text": "Who likes X?"}) + "\n"
    )
    (tmp_path / "qrels.jsonl").write_text(
        json.dumps({"query-id": "q0", "corpus-id": "A B", "score": 1})
        + "\n"
        + json.dumps({"query-id": "q0", "corpus-id": "C D", "score": 0})
        + "\n"
    )
    data = limit.load_mteb(tmp_path)
    assert data.doc_texts[0] == "T A B likes X."
    assert data.relevance.tolist() == [[True, False]]


def test_loader_errors(tmp_path):
    with pytest.raises(ValueError, match=r"folder must contain corpus\.jsonl"):
        limit.load_mteb(tmp_path)
    limit.write_limit(tmp_path, limit.generate_limit(n_docs=5, n_queries=4, min_items=5, seed=0))
    (tmp_path / "qrels.jsonl").write_text(
        json.dumps({"query-id": "query_0", "corpus-id": "nobody", "score": 1}) + "\n"
    )
    with pytest.raises(ValueError, match=r"unknown (query|corpus) id"):
        limit.load_mteb(tmp_path)


@settings(max_examples=25, deadline=None)
@given(n_docs=st.integers(2, 12), k=st.integers(-2, 14))
def test_generator_validates_k(n_docs, k):
    if 1 <= k < n_docs:
        files = limit.generate_limit(n_docs=n_docs, n_queries=1, k=k, min_items=3, seed=0)
        assert files["qrels.jsonl"].count("\n") == k
    else:
        with pytest.raises(ValueError, match="k"):
            limit.generate_limit(n_docs=n_docs, n_queries=1, k=k, min_items=3, seed=0)


def test_bm25_matches_bm25s():
    data = limit.load_mteb(SYNTH)
    stop = retrievers.bm25s_stopwords()
    ours = retrievers.bm25_scores(
        retrievers.tokenize(data.doc_texts, stop), retrievers.tokenize(data.query_texts[:200], stop)
    )
    ref = retrievers.bm25s_scores(data.doc_texts, data.query_texts[:200])
    assert np.abs(ours - ref).max() < 1e-5


def test_bow_encoder_overfits_small_problem():
    files = limit.generate_limit(n_docs=8, n_queries=28, min_items=10, seed=1)
    docs = [json.loads(s)["text"] for s in files["corpus.jsonl"].splitlines()]
    queries = [json.loads(s)["text"] for s in files["queries.jsonl"].splitlines()]
    ids = [json.loads(s)["_id"] for s in files["corpus.jsonl"].splitlines()]
    rel = torch.zeros(28, 8, dtype=torch.bool)
    for s in files["qrels.jsonl"].splitlines():
        r = json.loads(s)
        rel[int(r["query-id"].split("_")[1]), ids.index(r["corpus-id"])] = True
    g = torch.Generator().manual_seed(0)
    S = retrievers.train_bow_encoder(docs, queries, rel, 8, steps=200, generator=g)
    assert S.shape == (28, 8)
    assert float(med.recall_at_k(torch.as_tensor(S), rel, 2)) > 0.9
    with pytest.raises(ValueError, match="d must be >= 1"):
        retrievers.train_bow_encoder(docs, queries, rel, 0, generator=g)


def test_limit_full_shape_at_reduced_size():
    small = limit.parse_mteb(limit.generate_limit(seed=limit.LIMIT_SMALL_SEED))
    files = limit.generate_limit(seed=limit.LIMIT_SMALL_SEED, n_distractors=2000 - 46)
    data = limit.parse_mteb(files)
    assert len(data.doc_ids) == 2000 and len(set(data.doc_ids)) == 2000
    assert len(data.query_ids) == 1000 and data.relevance.shape == (1000, 2000)
    assert bool((data.relevance.sum(dim=1) == 2).all())
    core = data.relevance.any(dim=0)
    assert int(core.sum()) == 46  # every qrel lies within the 46 core documents
    assert not bool(core[:46].all())  # the corpus order is shuffled
    # the core documents and the qrels are exactly those of LIMIT-small-synth
    assert {data.doc_ids[i]: data.doc_texts[i] for i in core.nonzero().flatten().tolist()} == dict(
        zip(small.doc_ids, small.doc_texts, strict=True)
    )
    pairs = {
        frozenset(data.doc_ids[i] for i in r.nonzero().flatten().tolist()) for r in data.relevance
    }
    assert pairs == {
        frozenset(small.doc_ids[i] for i in r.nonzero().flatten().tolist()) for r in small.relevance
    }
    assert data.query_texts == small.query_texts
    # distractors like no queried attribute, so the qrels are complete
    asked = {re.fullmatch(r"Who likes (.+)\?", q).group(1) for q in data.query_texts}
    for i in (~core).nonzero().flatten().tolist():
        liked = re.fullmatch(r".+? likes (.+)\.", data.doc_texts[i]).group(1)
        assert not asked & set(re.split(r", | and ", liked))


def test_parse_mteb_matches_load_mteb_and_validates():
    data = limit.parse_mteb(
        {n: (SYNTH / n).read_text() for n in ("corpus.jsonl", "queries.jsonl", "qrels.jsonl")}
    )
    ref = limit.load_mteb(SYNTH)
    assert data.doc_ids == ref.doc_ids and data.query_texts == ref.query_texts
    assert bool((data.relevance == ref.relevance).all())
    with pytest.raises(ValueError, match="files"):
        limit.parse_mteb({"corpus.jsonl": ""})
    with pytest.raises(ValueError, match="n_distractors"):
        limit.generate_limit(seed=0, n_distractors=-1)


def _write_mteb(folder, corpus, queries, qrels):
    for name, rows in (
        ("corpus.jsonl", corpus),
        ("queries.jsonl", queries),
        ("qrels.jsonl", qrels),
    ):
        (folder / name).write_text("".join(json.dumps(r) + "\n" for r in rows))


_DOCS = [{"_id": "A", "text": "A likes X."}, {"_id": "B", "text": "B likes Y."}]
_QUERIES = [{"_id": "q0", "text": "Who likes X?"}]
_QRELS = [{"query-id": "q0", "corpus-id": "A", "score": 1}]


def test_loader_rejects_duplicate_corpus_ids(tmp_path):
    _write_mteb(tmp_path, [*_DOCS, {"_id": "A", "text": "A likes Z."}], _QUERIES, _QRELS)
    with pytest.raises(ValueError, match=r"corpus\.jsonl holds the _id 'A' twice"):
        limit.load_mteb(tmp_path)


def test_loader_rejects_duplicate_query_ids(tmp_path):
    _write_mteb(tmp_path, _DOCS, [*_QUERIES, {"_id": "q0", "text": "Who likes Y?"}], _QRELS)
    with pytest.raises(ValueError, match=r"queries\.jsonl holds the _id 'q0' twice"):
        limit.load_mteb(tmp_path)


def test_loader_rejects_qrels_to_unknown_corpus_id(tmp_path):
    _write_mteb(tmp_path, _DOCS, _QUERIES, [*_QRELS, {"query-id": "q0", "corpus-id": "C"}])
    with pytest.raises(ValueError, match="unknown corpus id 'C'"):
        limit.load_mteb(tmp_path)


def test_loader_rejects_qrels_to_unknown_query_id(tmp_path):
    _write_mteb(tmp_path, _DOCS, _QUERIES, [*_QRELS, {"query-id": "q9", "corpus-id": "A"}])
    with pytest.raises(ValueError, match="unknown query id 'q9'"):
        limit.load_mteb(tmp_path)


def _write_raw(folder, **texts):
    """The three files, one of them replaced by raw text (or bytes)."""
    _write_mteb(folder, _DOCS, _QUERIES, _QRELS)
    for key, text in texts.items():
        path = folder / f"{key}.jsonl"
        path.write_bytes(text if isinstance(text, bytes) else text.encode("utf-8"))


_GOOD_DOC = '{"_id": "A", "text": "A likes X."}\n'


@pytest.mark.parametrize(
    ("file", "text", "message"),
    [
        ("corpus", _GOOD_DOC + '{"_id": "B", "text": \n', r"corpus\.jsonl line 2: not valid JSON"),
        ("corpus", _GOOD_DOC + '["B", "text"]\n', r"corpus\.jsonl line 2: .*JSON object"),
        ("corpus", _GOOD_DOC + '{"text": "B likes Y."}\n', r"corpus\.jsonl line 2: .*'_id'"),
        ("corpus", _GOOD_DOC + '{"_id": "B", "text": null}\n', r"line 2: missing or null .*'text'"),
        ("corpus", _GOOD_DOC + '{"_id": "B", "text": "  "}\n', r"line 2: field 'text' .*non-empty"),
        ("corpus", _GOOD_DOC + '{"_id": ["B"], "text": "x"}\n', r"line 2: field '_id' .*non-empty"),
        ("queries", "\n\n", r"queries\.jsonl holds no records"),
        ("queries", "", r"queries\.jsonl holds no records"),
        ("qrels", '{"query-id": "q0"}\n', r"qrels\.jsonl line 1: .*'corpus-id'"),
        ("qrels", '{"query-id": "q0", "corpus-id": "A", "score": "1"}\n', r"line 1: .*number"),
        ("qrels", '{"query-id": "q0", "corpus-id": "A", "score": NaN}\n', r"line 1: .*finite"),
        ("qrels", '{"query-id": "q0", "corpus-id": "A", "score": true}\n', r"line 1: .*number"),
        (
            "corpus",
            _GOOD_DOC.encode() + b'{"_id": "B", "text": "\xff"}\n',
            r"corpus\.jsonl line 2: not UTF-8",
        ),
    ],
)
def test_loader_names_the_file_and_line_of_each_malformed_record(tmp_path, file, text, message):
    _write_raw(tmp_path, **{file: text})
    with pytest.raises(ValueError, match=message):
        limit.load_mteb(tmp_path)
    if isinstance(text, str):  # the in-memory parser applies the same rules
        files = {
            n: (tmp_path / n).read_text() for n in ("corpus.jsonl", "queries.jsonl", "qrels.jsonl")
        }
        with pytest.raises(ValueError, match=message):
            limit.parse_mteb(files)


def test_loader_names_both_lines_of_a_duplicate_and_the_line_of_a_bad_qrel(tmp_path):
    _write_raw(tmp_path, corpus=_GOOD_DOC + "\n" + _GOOD_DOC)
    with pytest.raises(ValueError, match=r"'A' twice \(lines 1 and 3\)"):
        limit.load_mteb(tmp_path)
    _write_raw(
        tmp_path,
        qrels='{"query-id": "q0", "corpus-id": "A"}\n{"query-id": "q0", "corpus-id": "Z"}\n',
    )
    with pytest.raises(ValueError, match=r"qrels\.jsonl line 2 refers to an unknown corpus id 'Z'"):
        limit.load_mteb(tmp_path)


def test_official_limit_small_loads():
    data = limit.load_mteb(ROOT / "data" / "limit-small")
    assert len(data.doc_ids) == 46 and len(data.query_ids) == 1000
    assert int(data.relevance.sum()) == 2000 and bool((data.relevance.sum(dim=1) == 2).all())


def test_token_sum_tends_to_word_matching():
    docs = ["Ann likes Red Kites.", "Bob likes Blue Hats.", "Cy likes Green Mugs."]
    queries = ["Who likes Red Kites?", "Who likes Green Mugs?"]
    g = torch.Generator().manual_seed(0)
    s = retrievers.token_sum_scores(docs, queries, 4096, generator=g, stopwords=frozenset({"who"}))
    assert s.shape == (2, 3) and s.argmax(1).tolist() == [0, 2]
    with pytest.raises(ValueError, match="d"):
        retrievers.token_sum_scores(docs, queries, 0, generator=g)
    with pytest.raises(ValueError, match="generator"):
        retrievers.token_sum_scores(docs, queries, 8, generator=None)
    with pytest.raises(ValueError, match="normalise"):
        retrievers.token_sum_scores(docs, queries, 8, generator=g, normalise="yes")


def test_token_sum_is_the_inner_product_of_summed_token_vectors():
    """The paper's score: <sum of query token vectors, sum of document token vectors>."""
    docs, queries = ["aa bb bb", "cc aa"], ["bb cc", "aa"]  # words of two or more letters
    words = ["aa", "bb", "cc"]
    g = torch.Generator().manual_seed(3)
    s = retrievers.token_sum_scores(docs, queries, 16, generator=g)
    G = torch.randn(3, 16, generator=torch.Generator().manual_seed(3))
    counts_d = torch.tensor([[1.0, 2, 0], [1, 0, 1]])
    counts_q = torch.tensor([[0.0, 1, 1], [1, 0, 0]])
    want = (counts_q @ G) @ (counts_d @ G).T
    np.testing.assert_allclose(s, want.numpy(), rtol=1e-5, atol=1e-5)
    cos = retrievers.token_sum_scores(
        docs, queries, 16, generator=torch.Generator().manual_seed(3), normalise=True
    )
    zq, zd = counts_q @ G, counts_d @ G
    want_cos = (zq / zq.norm(dim=1, keepdim=True)) @ (zd / zd.norm(dim=1, keepdim=True)).T
    np.testing.assert_allclose(cos, want_cos.numpy(), rtol=1e-5, atol=1e-5)
    assert words == sorted(words)


def test_vanilla_stopwords_drop_the_template_verb():
    stop = retrievers.vanilla_stopwords()
    assert "likes" in stop and retrievers.bm25s_stopwords() < stop
    assert retrievers.tokenize(["Who likes Quokkas?"], stop) == [["who", "quokkas"]]


def _attribute_stats(data):
    attrs = set()
    for name, text in zip(data.doc_ids, data.doc_texts, strict=True):
        attrs |= set(re.split(r", | and ", text[len(name) + 7 : -1]))
    one_word = sum(len(a.split()) == 1 for a in attrs) / len(attrs)
    words_per_doc = sum(len(t.split()) for t in data.doc_texts) / len(data.doc_texts)
    distinct_words = len({w for a in attrs for w in a.split()})
    return len(attrs), one_word, words_per_doc, distinct_words


def test_matched_generator_has_the_official_vocabulary_statistics():
    official = _attribute_stats(limit.load_mteb(ROOT / "data" / "limit-small"))
    assert official[0] == sum(limit.OFFICIAL_WORDS_PER_ATTRIBUTE.values())
    for seed in (0, 2026):
        files = limit.generate_limit(seed=seed, vocabulary="matched")
        data = limit.parse_mteb(files)
        assert bool((data.relevance.sum(dim=1) == 2).all()) and len(data.query_ids) == 1000
        n_attr, one_word, words_per_doc, distinct = _attribute_stats(data)
        assert abs(n_attr - official[0]) / official[0] < 0.05
        assert abs(one_word - official[1]) < 0.04  # 58 % one-word attributes
        assert abs(words_per_doc - official[2]) < 3  # about 73 words per document
        assert abs(distinct - official[3]) / official[3] < 0.1
    compositional = _attribute_stats(limit.load_mteb(SYNTH))
    assert compositional[1] == 0.0 and compositional[3] == 80  # the default is not matched
    with pytest.raises(ValueError, match="vocabulary"):
        limit.generate_limit(seed=0, vocabulary="english")
