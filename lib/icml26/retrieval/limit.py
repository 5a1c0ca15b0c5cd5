"""Chapter 01 (med): LIMIT-style data: the generator and the MTEB-format loader.

- :func:`generate_limit` writes a LIMIT-style dataset with the published recipe of Weller et al.
  (2025): ``n_docs`` people (document ids are their names) who like things, one query
  ``"Who likes X?"`` per attribute, and a *dense* qrel pattern: the first ``n_queries`` of the
  ``C(n_docs, k)`` ``k``-subsets of documents in lexicographic order, so that (almost) every pair
  of documents is the answer to some query. The attribute and name vocabularies are our own
  (the published notebook downloads name lists at run time; we ship none and download nothing).
  With ``n_distractors > 0`` it builds the *full* LIMIT shape (the official LIMIT has 50 000
  documents, of which the 46 "core" documents hold every qrel): the extra people like only
  attributes that no query asks about, so the qrels stay complete.
- :func:`load_mteb` reads the MTEB-style ``corpus.jsonl`` / ``queries.jsonl`` / ``qrels.jsonl``
  files that the official LIMIT and LIMIT-small releases use; :func:`parse_mteb` parses the same
  files held in memory (the LIMIT-sized set of the ``paper`` scale is never written to disk).

The retrievers evaluated on these data are in :mod:`icml26.retrieval.retrievers`.
"""

from __future__ import annotations

import json
import math
import os
import random
from dataclasses import dataclass
from itertools import combinations
from pathlib import Path

import torch

from icml26 import checks

__all__ = [
    "LIMIT_SMALL_SEED",
    "OFFICIAL_WORDS_PER_ATTRIBUTE",
    "LimitData",
    "generate_limit",
    "load_mteb",
    "parse_mteb",
    "write_limit",
]

#: The seed with which ``data/limit-small-synth/`` was generated (see ``data/README.md``).
LIMIT_SMALL_SEED = 2026

_COLOURS = (
    "Amber Azure Beige Black Blue Bronze Brown Coral Crimson Cyan Emerald Golden Grey Indigo "
    "Ivory Jade Lavender Lilac Magenta Maroon Mint Navy Ochre Olive Orange Pink Plum Purple Red "
    "Rose Ruby Rust Saffron Scarlet Silver Tan Teal Turquoise Violet White"
).split()
_THINGS = (
    "Backpacks Balloons Bicycles Blankets Boots Bottles Bowls Buttons Candles Canoes Carpets "
    "Chairs Clocks Cushions Diaries Doors Drums Fans Feathers Flags Gloves Hammocks Hats "
    "Helmets Jackets Kites Lamps Lanterns Marbles Mittens Mugs Notebooks Pebbles Pencils "
    "Ribbons Scarves Sneakers Teapots Umbrellas Vases"
).split()
_FIRST = (
    "Ada Alma Ari Bea Cal Cora Dara Eli Elsa Emil Ezra Fern Gia Hana Ida Ines Ivo Jana Jude Kai "
    "Lena Leo Lior Mae Mila Nico Noor Olga Omar Pia Raf Rosa Sami Tara Teo Uma Vera Wren Yara Zoe"
).split()
_LAST = (
    "Abbott Baker Castro Dalton Ellis Farrow Garcia Hale Ingram Jensen Keller Larsen Moreno Nash "
    "Okafor Patel Quinn Reyes Sato Torres Underwood Varga Walsh Xu Young Zimmer Brandt Costa "
    "Duval Eriksen Fischer Gomez Horvat Iqbal Juarez Kowalski Lindqvist Murphy Novak Ortega"
).split()


# Word counts of the distinct attributes of the official LIMIT-small (1068 attributes: 620 of one
# word, 356 of two, 67 of three, 19 of four, 6 of five), its number of attributes that no query asks
# about (68) and its number of distinct attribute words (1295), measured on data/limit-small.
OFFICIAL_WORDS_PER_ATTRIBUTE = {1: 620, 2: 356, 3: 67, 4: 19, 5: 6}
OFFICIAL_SPARE_ATTRIBUTES = 68
OFFICIAL_ATTRIBUTE_WORDS = 1295
_CONSONANTS = "bcdfghklmnprstvz"
_VOWELS = "aeiou"


def _matched_attributes(rng: random.Random, n: int) -> list[str]:
    """``n`` distinct attributes of pseudo-words with the official word-count statistics."""
    lengths = rng.choices(
        list(OFFICIAL_WORDS_PER_ATTRIBUTE), list(OFFICIAL_WORDS_PER_ATTRIBUTE.values()), k=n
    )
    total = sum(OFFICIAL_WORDS_PER_ATTRIBUTE.values())
    tokens = sum(k * v for k, v in OFFICIAL_WORDS_PER_ATTRIBUTE.items())
    # pool size W with W (1 - exp(-tokens / W)) = distinct words, scaled from 1068 attributes to n
    lo, hi = OFFICIAL_ATTRIBUTE_WORDS, 100 * OFFICIAL_ATTRIBUTE_WORDS
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if mid * (1 - math.exp(-tokens / mid)) < OFFICIAL_ATTRIBUTE_WORDS:
            lo = mid
        else:
            hi = mid
    pool_size = max(1, round(hi * n / total))
    syllables = [c + v for c in _CONSONANTS for v in _VOWELS]
    pool: set[str] = set()
    while len(pool) < pool_size:
        word = "".join(rng.choices(syllables, k=rng.choice((2, 2, 3)))) + rng.choice(("", "s", "n"))
        pool.add(word.capitalize())
    words = sorted(pool)
    seen: set[str] = set()
    out = []
    for k in lengths:
        while True:
            attr = " ".join(rng.choices(words, k=k))
            if attr not in seen:
                seen.add(attr)
                out.append(attr)
                break
    return out


@dataclass(frozen=True)
class LimitData:
    """A retrieval dataset: documents, queries and a boolean ``(Q, n)`` relevance matrix."""

    doc_ids: tuple[str, ...]
    doc_texts: tuple[str, ...]
    query_ids: tuple[str, ...]
    query_texts: tuple[str, ...]
    relevance: torch.Tensor


def generate_limit(
    n_docs: int = 46,
    n_queries: int = 1000,
    k: int = 2,
    min_items: int = 45,
    *,
    seed: int,
    n_distractors: int = 0,
    vocabulary: str = "compositional",
) -> dict[str, str]:
    """The three MTEB-style files of a LIMIT-style dataset, as text (chapter 01).

    Recipe (after Weller et al. 2025, ``code/generate_limit_dataset.ipynb``): shuffle the
    attribute vocabulary; query ``i`` asks ``"Who likes <attribute i>?"`` and is relevant to the
    ``i``-th ``k``-subset of documents in lexicographic order (the dense pattern); each person
    likes the attributes of their queries, topped up to ``min_items`` with attributes used by no
    query; documents read ``"<Name> likes a, b, ... and z."`` with the attributes shuffled.
    Deterministic for a given ``seed`` (Python's ``random.Random``).

    ``n_distractors`` extra people (the full LIMIT: ``n_docs + n_distractors = 50 000``) are drawn
    *after* everything above, so the ``n_docs`` core documents are those of the same call with
    ``n_distractors=0``; each likes ``min_items`` attributes used by no query and has a three-part
    name (the core names have two parts, so ids stay unique). With distractors the corpus order
    is shuffled, so that the core documents are not the first rows.

    ``vocabulary="compositional"`` (the default, which wrote ``data/limit-small-synth``) builds
    1600 two-word attributes from 80 words ("Silver Hats"). ``vocabulary="matched"`` draws
    attributes of capitalised pseudo-words whose statistics match the official LIMIT-small: the
    same distribution of words per attribute (58 % one word), about as many distinct words per
    attribute, and ``max(min_items, 68)`` attributes that no query asks about; documents then
    hold about 73 words, as the official ones do.
    """
    n_docs = checks.integer("n_docs", n_docs, low=2)
    k = checks.integer("k", k, low=1)
    if k >= n_docs:
        raise ValueError(f"k must be < n_docs, got k={k} and n_docs={n_docs}")
    n_queries = checks.integer("n_queries", n_queries, low=1, high=math.comb(n_docs, k))
    min_items = checks.integer("min_items", min_items, low=1)
    seed = checks.integer("seed", seed, low=0)
    n_distractors = checks.integer(
        "n_distractors", n_distractors, low=0, high=len(_FIRST) ** 2 * len(_LAST)
    )
    if vocabulary not in ("compositional", "matched"):
        raise ValueError(f"vocabulary must be 'compositional' or 'matched', got {vocabulary!r}")
    rng = random.Random(seed)
    items = _attributes(rng, vocabulary, n_queries, min_items)
    query_items, spare = items[:n_queries], items[n_queries:]
    answer_sets = list(combinations(range(n_docs), k))[:n_queries]
    likes = _core_likes(rng, query_items, answer_sets, spare, n_docs, min_items)
    names = rng.sample([f"{f} {s}" for f in _FIRST for s in _LAST], n_docs)
    order = list(range(n_docs))
    if n_distractors:  # drawn last: the core documents do not depend on n_distractors
        pool = [f"{f} {g} {s}" for f in _FIRST for g in _FIRST for s in _LAST]
        names += rng.sample(pool, n_distractors)
        likes += [rng.sample(spare, min_items) for _ in range(n_distractors)]
        order = list(range(n_docs + n_distractors))
        rng.shuffle(order)
    return _mteb_files(names, likes, order, query_items, answer_sets)


def _attributes(rng: random.Random, vocabulary: str, n_queries: int, min_items: int) -> list[str]:
    """The shuffled attribute vocabulary: the first ``n_queries`` are asked about."""
    if vocabulary == "matched":
        items = _matched_attributes(rng, n_queries + max(min_items, OFFICIAL_SPARE_ATTRIBUTES))
    else:
        items = [f"{c} {t}" for c in _COLOURS for t in _THINGS]
        rng.shuffle(items)
    if len(items) < n_queries + min_items:
        raise ValueError(f"n_queries + min_items must be <= {len(items)} attributes")
    return items


def _core_likes(
    rng: random.Random,
    query_items: list[str],
    answer_sets: list[tuple[int, ...]],
    spare: list[str],
    n_docs: int,
    min_items: int,
) -> list[list[str]]:
    """What each core person likes: the attributes of their queries, topped up with spare
    attributes to ``min_items``, shuffled."""
    likes: list[list[str]] = [[] for _ in range(n_docs)]
    for item, docs in zip(query_items, answer_sets, strict=True):
        for p in docs:
            likes[p].append(item)
    for p in range(n_docs):
        extra = rng.sample(spare, max(0, min_items - len(likes[p])))
        likes[p].extend(extra)
        rng.shuffle(likes[p])
    return likes


def _jsonl(rows) -> str:
    return "".join(json.dumps(obj, ensure_ascii=False) + "\n" for obj in rows)


def _mteb_files(
    names: list[str],
    likes: list[list[str]],
    order: list[int],
    query_items: list[str],
    answer_sets: list[tuple[int, ...]],
) -> dict[str, str]:
    """The corpus (in ``order``), queries and qrels as MTEB's three JSONL files."""
    corpus = _jsonl(
        {
            "_id": names[p],
            "title": "",
            "text": f"{names[p]} likes {', '.join(likes[p][:-1])} and {likes[p][-1]}.",
        }
        for p in order
    )
    queries = _jsonl(
        {"_id": f"query_{i}", "text": f"Who likes {item}?"} for i, item in enumerate(query_items)
    )
    qrels = _jsonl(
        {"query-id": f"query_{i}", "corpus-id": names[p], "score": 1}
        for i, docs in enumerate(answer_sets)
        for p in docs
    )
    return {"corpus.jsonl": corpus, "queries.jsonl": queries, "qrels.jsonl": qrels}


def write_limit(folder: str | os.PathLike, files: dict[str, str]) -> None:
    """Write the files of :func:`generate_limit` into ``folder`` (UTF-8, ``\\n`` line ends)."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (folder / name).write_bytes(text.encode("utf-8"))


#: The fields every record of each file must carry, each a non-empty string (``score`` is
#: optional in ``qrels.jsonl`` and, when present, a finite number).
_REQUIRED = {
    "corpus.jsonl": ("_id", "text"),
    "queries.jsonl": ("_id", "text"),
    "qrels.jsonl": ("query-id", "corpus-id"),
}
_MTEB_FILES = tuple(_REQUIRED)

#: One parsed record: the line it came from (1-based) and its fields.
_Record = tuple[int, dict]


def _parse_jsonl(name: str, text: str) -> list[_Record]:
    """Records of one MTEB file with their line numbers; every malformed line is a
    ``ValueError`` naming the file and the line."""
    records: list[_Record] = []
    for lineno, raw in enumerate(text.splitlines(), start=1):
        if not raw.strip():
            continue
        where = f"{name} line {lineno}"
        try:
            record = json.loads(raw)
        except json.JSONDecodeError as err:
            raise ValueError(f"{where}: not valid JSON ({err.msg})") from None
        if not isinstance(record, dict):
            raise ValueError(f"{where}: a record must be a JSON object")
        for field in _REQUIRED[name]:
            value = record.get(field)
            if value is None:
                raise ValueError(f"{where}: missing or null field {field!r}")
            if not isinstance(value, str | int) or not str(value).strip():
                raise ValueError(f"{where}: field {field!r} must be a non-empty string")
        if name == "qrels.jsonl" and "score" in record:
            score = record["score"]
            if isinstance(score, bool) or not isinstance(score, int | float):
                raise ValueError(f"{where}: field 'score' must be a number")
            if not math.isfinite(score):
                raise ValueError(f"{where}: field 'score' must be finite")
        records.append((lineno, record))
    if not records:
        raise ValueError(f"{name} holds no records")
    return records


def _read_jsonl(path: Path) -> list[_Record]:
    try:
        text = path.read_bytes().decode("utf-8")
    except UnicodeDecodeError as err:
        line = path.read_bytes()[: err.start].count(b"\n") + 1
        raise ValueError(f"{path.name} line {line}: not UTF-8 ({err.reason})") from None
    return _parse_jsonl(path.name, text)


def load_mteb(folder: str | os.PathLike) -> LimitData:
    """Load an MTEB-style retrieval folder (``corpus.jsonl``, ``queries.jsonl``, ``qrels.jsonl``).

    Works for the official LIMIT / LIMIT-small releases and for :func:`generate_limit` output.
    Documents are indexed in file order; qrels with ``score <= 0`` are ignored. Every malformed
    record raises ``ValueError`` naming the file and the line: invalid JSON or UTF-8, a record
    that is not an object, a missing, null or empty required field (``_id`` and ``text``;
    ``query-id`` and ``corpus-id``), a non-numeric or non-finite score, a duplicate ``_id``
    (a dict would silently keep the last one), a qrel naming an unknown id; so does a file
    with no records.
    """
    folder = Path(folder)
    for name in _MTEB_FILES:
        if not (folder / name).is_file():
            raise ValueError(f"folder must contain {name}")
    return _from_records(*(_read_jsonl(folder / n) for n in _MTEB_FILES))


def parse_mteb(files: dict[str, str]) -> LimitData:
    """:func:`load_mteb` for files held in memory, e.g. the output of :func:`generate_limit`."""
    if not isinstance(files, dict) or any(n not in files for n in _MTEB_FILES):
        raise ValueError(f"files must be a dict with the keys {_MTEB_FILES}")
    return _from_records(*(_parse_jsonl(n, files[n]) for n in _MTEB_FILES))


def _unique_index(records: list[_Record], name: str) -> dict[str, tuple[int, int]]:
    """``_id`` → (position, line); a repeated ``_id`` names both lines."""
    index: dict[str, tuple[int, int]] = {}
    for i, (lineno, r) in enumerate(records):
        key = str(r["_id"])
        if key in index:
            raise ValueError(
                f"{name} holds the _id {key!r} twice (lines {index[key][1]} and {lineno})"
            )
        index[key] = (i, lineno)
    return index


def _from_records(corpus: list[_Record], queries: list[_Record], qrels: list[_Record]) -> LimitData:
    doc_index = _unique_index(corpus, "corpus.jsonl")
    query_index = _unique_index(queries, "queries.jsonl")
    rel = torch.zeros(len(queries), len(corpus), dtype=torch.bool)
    for lineno, r in qrels:
        qid, did = str(r["query-id"]), str(r["corpus-id"])
        if qid not in query_index:
            raise ValueError(f"qrels.jsonl line {lineno} refers to an unknown query id {qid!r}")
        if did not in doc_index:
            raise ValueError(f"qrels.jsonl line {lineno} refers to an unknown corpus id {did!r}")
        if float(r.get("score", 1)) > 0:
            rel[query_index[qid][0], doc_index[did][0]] = True

    def text(d: dict) -> str:
        title = str(d.get("title") or "").strip()
        return f"{title} {d['text']}" if title else str(d["text"])

    return LimitData(
        doc_ids=tuple(str(d["_id"]) for _, d in corpus),
        doc_texts=tuple(text(d) for _, d in corpus),
        query_ids=tuple(str(q["_id"]) for _, q in queries),
        query_texts=tuple(str(q["text"]) for _, q in queries),
        relevance=rel,
    )
