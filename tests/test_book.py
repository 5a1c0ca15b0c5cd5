"""The book as its readers see it.

Fast checks (run with the unit tests): what is generated from the chapter registry (table of
contents, Library reference pages, README table) is up to date, every chapter names the paper
it teaches, the version is the same everywhere, paper-scale records are read as documented.

Book checks (``-m book``): build the book (warnings as errors) and check the built site: every
chapter page with its figures and generated boxes, no dangling local link, nothing loaded from
the network, math served locally, a claims page organised by chapter that lists every claim;
then read every page in headless Chromium at 1280 px and 390 px (layout, figures, overflow,
rendered text, axe-core), tab through a chapter page, and show that each check fails on a
deliberately broken page. ``-m pdf`` checks the PDF edition that ``make pdf`` built.
"""

import contextlib
import json
import re
import tomllib
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest
import yaml

from icml26.chapters import CHAPTERS, PARTS
from icml26.pipeline.book import (
    BOOK,
    PDF_NAME,
    ROOT,
    api_pages,
    build,
    chapter_title,
    claims,
    paper_scale,
    readme_table,
    sync,
)
from icml26.pipeline.notebooks import chapters

PAGES = ("intro", "notation", "claims", "performance", "api", "bibliography")
book = pytest.mark.book


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


# ------------------------------------------------------------------ generated from the registry
def test_generated_files_match_the_registry():
    stale = [str(p.relative_to(ROOT)) for p in sync(check=True)]
    assert not stale, f"run `python -m icml26.pipeline.book sync` (make book does): {stale}"


def test_toc_titles_and_parts_come_from_the_registry():
    toc = yaml.safe_load((BOOK / "_toc.yml").read_text())
    entries = {
        c["file"]: (part["caption"], c.get("title"))
        for part in toc["parts"]
        for c in part["chapters"]
    }
    for c in CHAPTERS:
        assert entries[f"notebooks/{c.stem}"] == (PARTS[c.part], chapter_title(c)), c.stem
    api = next(c for part in toc["parts"] for c in part["chapters"] if c["file"] == "api")
    assert [s["file"] for s in api["sections"]] == [f"api/{p}" for p in api_pages()]


def test_readme_table_lists_every_chapter_with_its_title_part_and_sources():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert readme_table() in readme
    for c in CHAPTERS:
        row = f"| {PARTS[c.part]} | [{chapter_title(c)}](notebooks/{c.stem}.py) | {c.sources} |"
        assert row in readme, c.stem


def test_every_chapter_names_the_paper_it_teaches():
    import pybtex.database

    bib = pybtex.database.parse_file(str(BOOK / "references.bib"))
    for c in CHAPTERS:
        assert c.bib in bib.entries, f"{c.stem}: bib key {c.bib!r} not in book/references.bib"
        assert bib.entries[c.bib].fields.get("year") == "2026", f"{c.stem}: not an ICML 2026 paper"
    assert len({c.bib for c in CHAPTERS}) == len(CHAPTERS), "two chapters cite the same paper"


def test_version_is_the_same_everywhere():
    import icml26

    version = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    assert icml26.__version__ == version
    cff = yaml.safe_load((ROOT / "CITATION.cff").read_text())
    assert cff["version"] == version
    assert cff["cff-version"] and cff["title"] and cff["authors"]
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    releases = re.findall(
        r"^## \[(\d+\.\d+\.\d+)\] · (\d{4}-\d{2}-\d{2})$", changelog, re.MULTILINE
    )
    assert releases, "CHANGELOG.md has no release heading '## [x.y.z] · YYYY-MM-DD'"
    assert releases[0][0] == version, "the newest CHANGELOG release is not the library's version"
    assert cff["date-released"] == releases[0][1] or str(cff["date-released"]) == releases[0][1]


def test_paper_scale_records_are_read_as_documented(tmp_path):
    line = (
        "CLAIM 99.1 [reproduction]: x beats y — measured 0.9 (≥ 0.8) · 5 seeds: worst, "
        "range 0.9–0.95 · control y 0.5 · OK"
    )
    (tmp_path / "99-run.json").write_text(json.dumps({"status": "run", "claims": [line, "noise"]}))
    (tmp_path / "99-not.json").write_text(json.dumps({"status": "not run", "reason": "GPU"}))
    run = paper_scale("99-run", tmp_path)
    assert run.status == "run" and run.claims["99.1"].status == "OK"
    assert run.claims["99.1"].control == "y 0.5" and run.claims["99.1"].n_seeds == 5
    assert paper_scale("99-not", tmp_path) == paper_scale("99-not", tmp_path)
    assert paper_scale("99-not", tmp_path).reason == "GPU"
    absent = paper_scale("99-absent", tmp_path)
    assert absent.status == "not run" and absent.reason
    stopped = {"status": "partial", "reason": "stopped: timed out", "claims": [line]}
    (tmp_path / "99-part.json").write_text(json.dumps(stopped))
    part = paper_scale("99-part", tmp_path)
    assert part.status == "partial" and part.reason == "stopped: timed out"
    assert part.claims["99.1"].status == "OK"


def test_every_chapter_has_claims_on_the_claims_page():
    records = claims()
    assert [r.chapter.stem for r in records] == [c.stem for c in CHAPTERS]
    for r in records:
        assert r.claims, f"{r.chapter.stem}: no claim line in its cells tagged `claim`"


# ------------------------------------------------------------------ the built site
@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    index = build(out=tmp_path_factory.mktemp("book"), quiet=True, sync_first=False)
    return index.parent


def chapter_page(site: Path, stem: str) -> str:
    return (site / "notebooks" / f"{stem}.html").read_text(encoding="utf-8")


@book
def test_pages_and_chapters_exist(site):
    for page in PAGES:
        assert (site / f"{page}.html").is_file(), page
    for name in api_pages():
        assert (site / "api" / f"{name}.html").is_file(), name
    for py in chapters():
        assert (site / "notebooks" / f"{py.stem}.html").is_file(), py.stem


@book
@pytest.mark.parametrize("py", chapters(), ids=[p.stem for p in chapters()])
def test_chapter_figures_resolve_with_alt_text_and_no_fixed_height(site, py):
    page = site / "notebooks" / f"{py.stem}.html"
    imgs = [a for t, a in parse(page) if t == "img" and "_images/" in a.get("src", "")]
    assert len(imgs) >= 2, f"{py.stem}: {len(imgs)} figures on the page"
    for a in imgs:
        assert (page.parent / unquote(urlsplit(a["src"]).path)).is_file(), a["src"]
        assert a.get("alt") and "_images/" not in a["alt"] and not a["alt"].endswith(".png")
        assert "height" not in a.get("style", ""), f"{py.stem}: a fixed height squeezes {a}"


@book
@pytest.mark.parametrize("c", CHAPTERS, ids=[c.stem for c in CHAPTERS])
def test_chapter_pages_carry_title_sources_claims_library_and_citation(site, c):
    html = chapter_page(site, c.stem)
    assert f"<h1>{chapter_title(c)}" in html.replace("&#8212;", "—"), "title not the registry's"
    assert "sources-badge" in html and "#intro-sources" in html
    assert 'id="chapter-end"' in html and "Claims of this chapter" in html
    assert f"claims.html#claims-{c.number}" in html, "no link back to the claims page"
    for m in c.modules:
        assert f"#module-{m}" in html, f"no link to the API entry of {m}"
    assert "How to cite the paper" in html and c.bib in html
    for line in next(r for r in claims() if r.chapter.number == c.number).claims:
        anchor = "claim-" + line.id.replace(".", "-")
        assert f'id="{anchor}"' in html, f"no anchor for claim {line.id}"


@book
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


@book
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


@book
def test_claims_page_is_a_dashboard_of_every_claim(site):
    from icml26.claims import NOT_DISCRIMINATING, NOT_REPRODUCED, OK

    records = claims()
    every = [c for r in records for c in r.claims]
    html = (site / "claims.html").read_text(encoding="utf-8")
    assert f"{len(every)} claims from {len(records)} chapters" in html
    for status in (OK, NOT_REPRODUCED, NOT_DISCRIMINATING):
        n = sum(c.status == status for c in every)
        assert re.search(rf"{status}</span> {n}\b", html), f"the summary does not count {status}"
    drafts = [r for r in records if r.shortfall]
    assert html.count('class="draft-mark"') == 2 * len(drafts)  # overview row and section
    for r in drafts:
        section = html[html.index(f'id="claims-{r.chapter.number}"') :]
        assert r.shortfall[1:] in section[: section.index("</section>")], r.chapter.stem
    for r in records:
        assert f'id="claims-{r.chapter.number}"' in html, f"no section for {r.chapter.stem}"
        for c in r.claims:
            assert f'notebooks/{r.chapter.stem}.html#claim-{c.id.replace(".", "-")}"' in html
    failing = html[html.index('id="claims-failing"') : html.index('id="claims-by-chapter"')]
    for r in records:
        for c in r.claims:
            listed = f'#claim-{c.id.replace(".", "-")}"' in failing
            assert listed == (c.status != OK), f"{c.id} ({c.status}) in the failing view: {listed}"
            if c.status != OK:
                assert f"notebooks/{r.chapter.stem}.html#" in failing


@book
def test_pygments_comments_and_captions_meet_aa_contrast(site):
    """Colour contrast of code tokens, checked once from the stylesheets (the same on every
    page and width) rather than by axe-core on thousands of highlighted spans."""

    def luminance(hex_colour: str) -> float:
        rgb = [int(hex_colour[i : i + 2], 16) / 255 for i in (1, 3, 5)]
        lin = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in rgb]
        return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]

    def ratio(a: str, b: str) -> float:
        hi, lo = sorted((luminance(a), luminance(b)), reverse=True)
        return (hi + 0.05) / (lo + 0.05)

    css = (site / "_static" / "pygments.css").read_text() + (
        site / "_static" / "book.css"
    ).read_text()
    light = re.findall(
        # the text colour only (`background-color` is not what the token is drawn in)
        r'html\[data-theme="light"\] \.highlight \.(\w+)\s*\{[^}]*?(?<![-\w])color:'
        r"\s*(#[0-9a-fA-F]{6})",
        css,
    )
    colours = dict(light)  # later rules (book.css) win
    background = re.search(
        r'html\[data-theme="light"\] \.highlight\s*\{[^}]*background:\s*(#[0-9a-fA-F]{6})', css
    )
    bg = background.group(1) if background else "#ffffff"
    low = {tok: f"{ratio(col, bg):.2f}" for tok, col in colours.items() if ratio(col, bg) < 4.5}
    assert not low, f"code tokens below 4.5:1 on {bg}: {low}"


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
    return (
        [site / f"{p}.html" for p in PAGES]
        + [site / "api" / f"{name}.html" for name in api_pages()]
        + [site / "notebooks" / f"{py.stem}.html" for py in chapters()]
    )


#: Pages are read by this many Chromiums side by side (each page's scripts run on one core).
READERS = 2

#: Problems that the chapters' text causes (their editorial tests name them too), reported by
#: their own test so that a layout or accessibility regression is never hidden among them.
EDITORIAL = ("internal id or process word", "claim heading")


@pytest.fixture(scope="module")
def reading(site, browser) -> dict[int, list[str]]:
    """Every page read at each width, axe-core included: width -> problems. The pages are
    shared round-robin between the module's browser and READERS - 1 more."""
    from concurrent.futures import ThreadPoolExecutor

    from icml26.pipeline.browser import WIDTHS, chromium, read_page, serve

    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    pages = _pages(site)

    def read(driver, share: list[Path], origin: str) -> list[tuple[int, str]]:
        out = []
        for page in share:
            rel = page.relative_to(site).as_posix()
            shots = SCREENSHOTS / page.stem if rel.startswith("notebooks/") else None
            for width, problems in read_page(driver, origin + rel, origin, shots=shots).items():
                out += [(width, f"{rel} at {width} px: {p}") for p in problems]
        return out

    with serve(site) as origin, contextlib.ExitStack() as stack:
        drivers = [browser] + [stack.enter_context(chromium()) for _ in range(READERS - 1)]
        with ThreadPoolExecutor(len(drivers)) as pool:
            jobs = [
                pool.submit(read, d, pages[k :: len(drivers)], origin)
                for k, d in enumerate(drivers)
            ]
            results = [line for job in jobs for line in job.result()]
    found: dict[int, list[str]] = {w: [] for w in WIDTHS}
    for width, line in results:
        found[width].append(line)
    return found


@book
@pytest.mark.parametrize("width", [1280, 390])
def test_every_page_reads_cleanly_in_a_browser(reading, width):
    problems = [p for p in reading[width] if not any(e in p for e in EDITORIAL)]
    assert not problems, "\n".join(problems)


@book
def test_rendered_text_has_no_internal_ids_and_headings_number_their_claims(reading):
    problems = [p for p in reading[1280] if any(e in p for e in EDITORIAL)]
    assert not problems, "\n".join(problems)


@book
def test_a_chapter_page_works_from_the_keyboard(site, browser):
    from icml26.pipeline.browser import serve
    from icml26.pipeline.keyboard import keyboard_problems

    with serve(site) as origin:
        problems = keyboard_problems(browser, origin + f"notebooks/{CHAPTERS[0].stem}.html")
    assert not problems, "\n".join(problems)


BROKEN_PAGE = (
    """<!doctype html><html><head><meta charset="utf-8"><title>broken</title></head>
<body><main>
<p>we get $$ x = \\frac{1}{2} $$ and a literal {ref}`label` role</p>
<mjx-merror>Math input error</mjx-merror>
<img src="missing.png">
<img src="wide.png" alt="wide.png" style="width: 300px; height: 300px">
<p style="color: #bbbbbb">text too light to read</p>
<p>as the research note says (note: hrc-3), a prototype</p>
<h3>01.1 · A claim</h3>
<div class="claim-line" style="margin-left:3000px"><a class="claim-id" href="#x">01.2</a>
  <span class="claim-verdict">OK</span></div>
<div style="width: 300px"><pre>"""
    + "x" * 200
    + """</pre>
<table><tr><td>"""
    + "y" * 200
    + """</td></tr></table>
<mjx-container display="true" style="display: block; width: 900px">z</mjx-container></div>
<script>console.error("broken on purpose")</script>
</main></body></html>"""
)

KEYBOARD_BROKEN = """<!doctype html><html lang="en"><head><meta charset="utf-8"><title>k</title>
</head><body><main><a href="#a">reachable</a>
<a href="#b" tabindex="-1">not reachable by the keyboard</a>
<details><summary onkeydown="event.preventDefault()">a fold that ignores Enter</summary>
<p>folded</p></details></main></body></html>"""

GOOD_PAGE = """<!doctype html><html lang="en"><head><meta charset="utf-8"><title>fine</title>
</head><body><main><h1>Fine</h1><p>fine</p></main></body></html>"""


@book
def test_the_browser_checks_fail_on_a_broken_page(tmp_path, browser):
    import base64

    from icml26.pipeline.browser import page_problems, serve
    from icml26.pipeline.keyboard import keyboard_problems

    png = base64.b64decode(  # a 4 × 2 white PNG: squeezed to a square by the page
        "iVBORw0KGgoAAAANSUhEUgAAAAQAAAACCAIAAADwyuo0AAAAEklEQVR4nGP8//8/AwwwMSABAEgGAwG0Rz8L"
        "AAAAAElFTkSuQmCC"
    )
    (tmp_path / "wide.png").write_bytes(png)
    (tmp_path / "broken.html").write_text(BROKEN_PAGE)
    (tmp_path / "keyboard.html").write_text(KEYBOARD_BROKEN)
    (tmp_path / "good.html").write_text(GOOD_PAGE)
    with serve(tmp_path) as origin:
        found = "\n".join(page_problems(browser, origin + "broken.html", origin))
        for width in (1280, 390):
            assert page_problems(browser, origin + "good.html", origin, width=width) == []
        keys = "\n".join(keyboard_problems(browser, origin + "keyboard.html"))
    for expected in (
        "mjx-merror",
        "TeX or a role left",
        "image did not load",
        "figure squeezed",
        "image without meaningful alternative text",
        "console error",
        "scrolls sideways",
        "claim verdict not visible",
        "pre scrolls inside its box",
        "table wider than its column",
        "math wider than its column",
        "internal id or process word in the text: '(note: hrc-3)'",
        "internal id or process word in the text: 'prototype'",
        "claim heading: claim 01.2",
        "axe image-alt",
        "axe color-contrast",
    ):
        assert expected in found, f"{expected!r} not reported:\n{found}"
    assert "not reachable by Tab: <a> 'not reachable by the keyboard'" in keys, keys
    assert "a fold (summary) does not open with Enter" in keys, keys


# ------------------------------------------------------------------ the PDF edition
@pytest.mark.pdf
def test_the_pdf_edition_is_complete():
    from icml26.pipeline.book import pdf_problems

    pdf = BOOK / "_build" / "latex" / PDF_NAME
    if not pdf.exists():
        pytest.fail("no PDF edition: run `make pdf`")
    problems = pdf_problems(pdf)
    assert not problems, "\n".join(problems)
