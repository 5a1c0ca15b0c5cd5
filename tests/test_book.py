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


# ------------------------------------------------------------------ the site in a browser
SCREENSHOTS = Path(__file__).resolve().parents[1] / "build" / "screenshots"


@pytest.fixture(scope="module")
def browser():
    from icml26.pipeline import browser as b

    if b.available() is None:
        pytest.fail("chromium and chromedriver are required (make test installs them)")
    with b.chromium() as driver:
        yield driver


def _pages(site: Path) -> list[Path]:
    return [site / f"{p}.html" for p in PAGES] + [
        site / "notebooks" / f"{py.stem}.html" for py in chapters()
    ]


def test_every_page_reads_cleanly_in_a_browser(site, browser):
    from icml26.pipeline.browser import page_problems, screenshot, serve

    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    problems = []
    with serve(site) as origin:
        for page in _pages(site):
            rel = page.relative_to(site).as_posix()
            problems += [f"{rel}: {p}" for p in page_problems(browser, origin + rel, origin)]
            if rel.startswith("notebooks/"):
                screenshot(browser, SCREENSHOTS / f"{page.stem}.png")
    assert not problems, "\n".join(problems)


BROKEN_PAGE = """<!doctype html><html><head><meta charset="utf-8"></head><body>
<p>we get $$ x = \\frac{1}{2} $$ and a literal {ref}`label` role</p>
<mjx-merror>Math input error</mjx-merror>
<img src="missing.png">
<div class="claim-line" id="claim-00-1" style="margin-left:3000px">
  <span class="claim-verdict">OK</span></div>
<script>console.error("broken on purpose")</script>
</body></html>"""


def test_the_browser_check_fails_on_a_broken_page(tmp_path, browser):
    from icml26.pipeline.browser import page_problems, serve

    (tmp_path / "broken.html").write_text(BROKEN_PAGE)
    (tmp_path / "good.html").write_text("<!doctype html><html><body><p>fine</p></body></html>")
    with serve(tmp_path) as origin:
        found = "\n".join(page_problems(browser, origin + "broken.html", origin))
        assert page_problems(browser, origin + "good.html", origin) == []
    for expected in (
        "mjx-merror",
        "TeX or a role left",
        "image did not load",
        "console error",
        "scrolls sideways",
        "claim verdict not visible",
    ):
        assert expected in found, f"{expected!r} not reported:\n{found}"
