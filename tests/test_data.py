"""Every file under data/ is listed in data/README.md with its sha256, and matches it."""

import hashlib
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "data"
ROW = re.compile(r"^\|\s*`([^`]+)`\s*\|\s*`?([0-9a-f]{64})`?\s*\|", re.MULTILINE)


def listed() -> dict[str, str]:
    return dict(ROW.findall((DATA / "README.md").read_text()))


def test_every_listed_file_matches_its_checksum():
    for rel, digest in listed().items():
        path = DATA / rel
        assert path.is_file(), f"data/README.md lists {rel}, which does not exist"
        assert hashlib.sha256(path.read_bytes()).hexdigest() == digest, f"{rel}: sha256 differs"


def test_every_shipped_file_is_listed():
    shipped = {
        p.relative_to(DATA).as_posix()
        for p in DATA.rglob("*")
        if p.is_file() and p.name != "README.md"
    }
    unlisted = shipped - set(listed())
    assert not unlisted, f"data/README.md gives no provenance for {sorted(unlisted)}"


# The official LIMIT-small (google-deepmind/limit@90c5dd3, CC-BY 4.0): pinned here as well as in
# data/README.md, so that neither the files nor the README can drift alone.
OFFICIAL_LIMIT_SMALL = {
    "corpus.jsonl": "ebc38fa10c96fa02e4501e41968edf586efffc6241b6cd10f1c8757c1854dc53",
    "queries.jsonl": "0afedee8bb9aec36053568673bc7b5eb3e5fc416b49d44f187026de930084db8",
    "qrels.jsonl": "f6a0cbf1ac3c405e1cffc96c87bd19a5f77a671d123f547cf946bf17874a27f8",
}


def test_official_limit_small_checksums_and_attribution():
    for name, digest in OFFICIAL_LIMIT_SMALL.items():
        path = DATA / "limit-small" / name
        assert hashlib.sha256(path.read_bytes()).hexdigest() == digest, name
        assert listed()[f"limit-small/{name}"] == digest
    readme = (DATA / "README.md").read_text()
    assert "CC-BY 4.0" in readme and "Google LLC" in readme and "90c5dd3a7c3c0d68" in readme
