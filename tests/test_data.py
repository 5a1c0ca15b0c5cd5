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
