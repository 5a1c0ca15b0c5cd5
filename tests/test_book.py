"""Build the book (warnings as errors) and check the built site: every chapter page with its
figures, no dangling local link, nothing loaded from the network, math served locally, and a
claims page that lists every claim cell."""

from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

from icml26.pipeline.book import build
from icml26.pipeline.notebooks import chapters

pytestmark = pytest.mark.book

PAGES = ("intro", "notation", "claims", "performance", "api", "bibliography")


class Tags(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags: list[tuple[str, dict[str, str]]] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, {k: v or "" for k, v in attrs}))


def parse(path: Path) -> list[tuple[str, dict[str, str]]]:
    p = Tags()
    p.feed(path.read_text(encoding="utf-8"))
    return p.tags


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    index = build(out=tmp_path_factory.mktemp("book"), quiet=True)
    return index.parent


def test_pages_and_chapters_exist(site):
    for page in PAGES:
        assert (site / f"{page}.html").is_file(), page
    for py in chapters():
        assert (site / "notebooks" / f"{py.stem}.html").is_file(), py.stem


@pytest.mark.parametrize("py", chapters(), ids=[p.stem for p in chapters()])
def test_chapter_figures_resolve(site, py):
    page = site / "notebooks" / f"{py.stem}.html"
    imgs = [a["src"] for t, a in parse(page) if t == "img" and "src" in a]
    figures = [s for s in imgs if "_images/" in s]
    assert len(figures) >= 2, f"{py.stem}: {len(figures)} figures on the page"
    for src in figures:
        assert (page.parent / unquote(urlsplit(src).path)).is_file(), src


def test_no_dangling_local_links_and_nothing_remote(site):
    problems = []
    for page in site.rglob("*.html"):
        if "_static" in page.relative_to(site).parts:  # theme templates, not pages
            continue
        for tag, attrs in parse(page):
            for key in ("href", "src"):
                url = attrs.get(key)
                if not url:
                    continue
                parts = urlsplit(url)
                remote = parts.scheme in ("http", "https") or url.startswith("//")
                loads = tag in ("script", "img", "iframe") or (
                    tag == "link" and attrs.get("rel", "") in ("stylesheet", "preload", "icon")
                )
                if remote and loads:
                    problems.append(f"{page.name}: <{tag}> loads {url}")
                if remote or parts.scheme in ("mailto", "data", "javascript") or not parts.path:
                    continue
                target = (page.parent / unquote(parts.path)).resolve()
                if not target.exists():
                    problems.append(f"{page.relative_to(site)}: {url} -> missing")
    assert not problems, "\n".join(sorted(set(problems))[:40])


def test_math_is_served_from_the_site(site):
    pages_with_math = [
        p for p in site.rglob("*.html") if "math notranslate" in p.read_text(encoding="utf-8")
    ]
    assert pages_with_math, "no page with math was found"
    for page in pages_with_math:
        srcs = [a.get("src", "") for t, a in parse(page) if t == "script"]
        local = [s for s in srcs if s.split("?")[0].endswith("_static/mathjax/tex-chtml.js")]
        assert local, f"{page.name}: MathJax is not loaded from _static/mathjax"
        assert (page.parent / local[0].split("?")[0]).is_file()
    fonts = site / "_static" / "mathjax" / "output" / "chtml" / "fonts" / "woff-v2"
    assert any(fonts.glob("*.woff")), "MathJax fonts are missing from the site"


def test_claims_page_lists_every_claim(site):
    import nbformat

    from icml26.claims import parse_claim_line

    expected = []
    for py in chapters():
        nb = nbformat.read(py.with_suffix(".ipynb"), as_version=4)
        for cell in nb.cells:
            if "claim" in cell.get("metadata", {}).get("tags", []):
                for out in cell.get("outputs", []):
                    for line in "".join(out.get("text", "")).splitlines():
                        if (c := parse_claim_line(line)) is not None:
                            expected.append(c)
    html = (site / "claims.html").read_text(encoding="utf-8")
    assert f"{len(expected)} claims from" in html
    for c in expected:
        assert f">{c.id}<" in html, c.id
