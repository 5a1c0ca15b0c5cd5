"""Read the built book as a reader does: every page in headless Chromium, after MathJax, at
a desktop width (1280 px) and a phone width (390 px).

:func:`serve` serves a built site on 127.0.0.1; :func:`chromium` starts Debian's Chromium
through its ChromeDriver (both from the system, nothing downloaded); :func:`page_problems`
loads one page at one width and returns what a reader would meet:

- MathJax errors (``mjx-merror``) or TeX left in the text (``$$``, ``\\frac``, ``\\mathbb``,
  a MyST role such as ``{ref}`` printed literally);
- an image that did not load, or that is shown at another aspect ratio than its own (more
  than :data:`ASPECT_TOLERANCE`), or whose alternative text is a file name or missing;
- an error in the browser console; a request to any host but the local server;
- a page wider than the window; a ``pre``, ``mjx-container`` or table wider than its
  container or scrolling inside it, unless :data:`ALLOWED_OVERFLOW` says why it may;
- a claim line whose verdict is not visible without scrolling sideways;
- internal ids and process words in the rendered text
  (:func:`icml26.pipeline.mystlint.process_words`), and claim-section headings whose numbers
  do not match the claims under them (:func:`icml26.pipeline.mystlint.heading_problems`);
- any WCAG 2.1 A/AA violation that axe-core (npm, ``package-lock.json``; injected from
  ``node_modules``, nothing fetched) finds, unless :data:`AXE_ALLOWED` says why (colour
  contrast, the same at every width, at the desktop width only: :data:`AXE_DESKTOP_ONLY`).

:func:`read_page` reads one page at each width (loaded once, the window resized between).
:func:`icml26.pipeline.keyboard.keyboard_problems` tabs through a page with the keyboard.
"""

from __future__ import annotations

import contextlib
import fnmatch
import functools
import http.server
import shutil
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "ALLOWED_OVERFLOW",
    "ASPECT_TOLERANCE",
    "AXE_ALLOWED",
    "AXE_DESKTOP_ONLY",
    "AXE_TAGS",
    "WIDTH",
    "WIDTHS",
    "Allowed",
    "available",
    "chromium",
    "page_problems",
    "read_page",
    "screenshot",
    "serve",
]

WIDTH, HEIGHT = 1280, 900
#: The widths every page is read at: a desktop and a phone.
WIDTHS = (1280, 390)
#: A figure may be shown at an aspect ratio this far (relative) from its own.
ASPECT_TOLERANCE = 0.02
CHROMIUM = ("chromium", "chromium-browser", "google-chrome")
TEX_LEFTOVERS = ("$$", "\\frac", "\\mathbb", "\\begin{", "{ref}`", "{prf:ref}`", "{eq}`", "{cite}`")
AXE = Path(__file__).resolve().parents[3] / "node_modules" / "axe-core" / "axe.min.js"
#: The WCAG levels axe-core checks: 2.0 and 2.1, A and AA.
AXE_TAGS = ("wcag2a", "wcag2aa", "wcag21a", "wcag21aa")


@dataclass(frozen=True)
class Allowed:
    """An element that may overflow its container: on pages matching ``page`` (a glob of
    the page's path in the site), at ``width`` (``None``: any), of ``kind`` (``pre``,
    ``math``, ``table``), whose text starts with ``text`` (``""``: any), and why."""

    page: str
    width: int | None
    kind: str
    reason: str
    text: str = ""

    def covers(self, page: str, width: int, kind: str, text: str = "") -> bool:
        return (
            fnmatch.fnmatch(page, self.page)
            and self.width in (None, width)
            and self.kind == kind
            and text.startswith(self.text)
        )


#: Where content may scroll inside its own box instead of fitting its column.
ALLOWED_OVERFLOW: tuple[Allowed, ...] = (
    Allowed(
        "*",
        390,
        "math",
        "a display equation wider than a phone's 340 px column scrolls inside its box: "
        "MathJax 3 cannot break display math, and shrinking it would make it unreadable",
    ),
    Allowed(
        "performance.html",
        390,
        "table",
        "the timing tables have up to nine numeric columns; on a phone they scroll inside "
        "their box, with a shadow at the edge that has more columns",
    ),
    Allowed(
        "*",
        390,
        "table",
        "a two-column table of symbols whose formulas are wider than a phone's column "
        "scrolls inside its box, with a shadow at the edge",
        text="symbol meaning",
    ),
)

#: axe-core rules the book may violate, each with why (an upstream issue of the theme, say).
AXE_ALLOWED: dict[str, str] = {}
#: axe-core rules run at the desktop width only: colour contrast is the same at every width
#: (the book's colours do not change with the viewport) and is by far the slowest rule on a
#: long page, so it runs once per page; every other WCAG 2.1 A/AA rule runs at both widths.
AXE_DESKTOP_ONLY = ("color-contrast",)

_TEXT_JS = """
const skip = new Set(['SCRIPT','STYLE','PRE','CODE','TEXTAREA','MJX-CONTAINER','NOSCRIPT']);
const out = [];
const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
for (let n = walker.nextNode(); n; n = walker.nextNode()) {
  let p = n.parentElement, hidden = false;
  while (p) {
    if (skip.has(p.tagName) || p.classList.contains('highlight')) { hidden = true; break; }
    p = p.parentElement;
  }
  if (!hidden && n.textContent.trim()) out.push(n.textContent);
}
return out.join('\\n');
"""

_MATHJAX_JS = """
const done = arguments[arguments.length - 1];
if (!(window.MathJax && MathJax.startup && MathJax.startup.promise)) { done('none'); return; }
MathJax.startup.promise.then(() => done('ok')).catch(e => done('error: ' + e));
"""

# Everything measured on the laid-out page. An element "overflows" when it is wider than the
# content box of its nearest block container, or when its content scrolls inside it.
_LAYOUT_JS = """
const w = document.documentElement.clientWidth;
const bad = [];
for (const v of document.querySelectorAll('.claim-line .claim-verdict')) {
  const r = v.getBoundingClientRect();
  if (r.width === 0 || r.right > w + 1 || r.left < 0)
    bad.push(Array.from(v.closest('.claim-line').innerText).slice(0, 40).join(''));
}
const visible = e => e.getClientRects().length > 0 && e.getBoundingClientRect().width > 0;
const imgs = [...document.images];
const broken = imgs.filter(i => !(i.complete && i.naturalWidth > 0)).map(i => i.src);
const aspect = [], alts = [];
for (const i of imgs) {
  if (!(i.complete && i.naturalWidth > 0) || !visible(i)) continue;
  const r = i.getBoundingClientRect();
  const shown = r.width / r.height, own = i.naturalWidth / i.naturalHeight;
  if (Math.abs(shown / own - 1) > TOLERANCE)
    aspect.push([i.getAttribute('alt') || i.src, Math.round(r.width), Math.round(r.height),
                 i.naturalWidth, i.naturalHeight]);
  const alt = i.getAttribute('alt');
  const decorative = alt === '' &&
    (i.classList.contains('decorative') || i.getAttribute('role') === 'presentation');
  const fileName = /_images\\/|\\.(png|jpe?g|svg|gif|webp)$/i;
  if (alt === null || (alt === '' && !decorative) || fileName.test(alt))
    alts.push(i.src.split('/').pop() + ' alt=' + JSON.stringify(alt));
}
const block = e => {
  let p = e.parentElement;
  while (p && getComputedStyle(p).display.startsWith('inline')) p = p.parentElement;
  return p;
};
const inner = p => { const cs = getComputedStyle(p);
  return p.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight); };
const text = e => (e.innerText || e.textContent || '').trim().replace(/\\s+/g, ' ');
const cut = (t, n) => Array.from(t).slice(0, n).join('');  // never halve a surrogate pair
const label = e => {
  const id = e.closest('[id]');
  return (id ? '#' + id.id + ' ' : '') + JSON.stringify(cut(text(e), 50));
};
const overflow = [];
// a box overflows when it is wider than its container, when its content scrolls inside it,
// or when its content sticks out of the column (glyphs may overhang a box by a pixel or two)
for (const [sel, kind] of [['pre', 'pre'], ['mjx-container', 'math'], ['table', 'table']]) {
  for (const e of document.querySelectorAll(sel)) {
    if (!visible(e) || e.closest('mjx-assistive-mml')) continue;
    const p = block(e), r = e.getBoundingClientRect(), room = p ? inner(p) : w;
    const clips = ['auto', 'scroll', 'hidden'].includes(getComputedStyle(e).overflowX);
    const wider = r.width > room + 1;
    const scrolls = clips ? e.scrollWidth > e.clientWidth + 2
                          : e.scrollWidth > Math.max(room, e.clientWidth) + 2;
    if (wider || scrolls)
      overflow.push([kind, label(e), Math.round(Math.max(r.width, e.scrollWidth)),
                     Math.round(wider ? room : e.clientWidth), cut(text(e), 50), wider]);
  }
}
return JSON.parse(JSON.stringify({  // NaN and infinities become null
  scrollWidth: document.documentElement.scrollWidth, clientWidth: w,
  hiddenVerdicts: bad, brokenImages: broken, aspect: aspect, alts: alts, overflow: overflow,
  merrors: document.querySelectorAll('mjx-merror').length,
  resources: performance.getEntriesByType('resource').map(e => e.name),
}));
""".replace("TOLERANCE", str(ASPECT_TOLERANCE))

# The article's text as a reader can reach it (code, outputs and folded content included),
# and the claim-section headings and anchored claim lines in reading order.
_ARTICLE_JS = """
const main = document.querySelector('main') || document.body;
const clone = main.cloneNode(true);
clone.querySelectorAll('script, style, mjx-assistive-mml, .headerlink').forEach(e => e.remove());
const seq = [];
for (const e of main.querySelectorAll('h2, h3, h4, .claim-line a.claim-id')) {
  if (e.matches('a')) { seq.push(['c', e.textContent.trim()]); continue; }
  const h = e.cloneNode(true);
  h.querySelectorAll('.headerlink').forEach(x => x.remove());
  seq.push(['h', Number(e.tagName[1]), h.textContent.trim()]);
}
return {text: clone.textContent, sequence: seq};
"""

_AXE_JS = """
const done = arguments[arguments.length - 1];
const rules = {};
for (const id of arguments[1]) rules[id] = {enabled: false};
axe.run(document, {runOnly: {type: 'tag', values: arguments[0]}, rules: rules,
                   resultTypes: ['violations']})
  .then(r => done(r.violations.map(v => [v.id, v.help, v.nodes.length,
                                         v.nodes.slice(0, 3).map(n => n.target.join(' '))])))
  .catch(e => done([['axe-error', String(e), 0, []]]));
"""


def available() -> str | None:
    """Path of a Chromium binary and ChromeDriver on this machine, or ``None``."""
    browser = next((b for b in map(shutil.which, CHROMIUM) if b), None)
    return browser if browser and shutil.which("chromedriver") else None


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:  # keep the test output clean
        pass


@contextlib.contextmanager
def serve(directory: Path) -> Iterator[str]:
    """Serve ``directory`` on 127.0.0.1 (a free port); yields the base URL."""
    handler = functools.partial(_Quiet, directory=str(directory))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


@contextlib.contextmanager
def chromium() -> Iterator[object]:
    """A headless Chromium driven by the system's ChromeDriver (nothing is downloaded)."""
    import tempfile

    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    browser = available()
    if browser is None:
        raise RuntimeError(
            "chromium and chromedriver are needed (apt-get install chromium chromium-driver)"
        )
    options = webdriver.ChromeOptions()
    options.binary_location = browser
    with tempfile.TemporaryDirectory() as profile:
        for flag in (
            "--headless=new",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-dev-shm-usage",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--disable-extensions",
            "--hide-scrollbars",
            f"--user-data-dir={profile}",
            f"--window-size={WIDTH},{HEIGHT}",
        ):
            options.add_argument(flag)
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        driver = webdriver.Chrome(
            options=options, service=Service(executable_path=shutil.which("chromedriver"))
        )
        driver.set_script_timeout(120)
        driver.set_page_load_timeout(60)
        try:
            yield driver
        finally:
            driver.quit()


def set_width(driver, width: int) -> None:
    """Make the page's layout viewport ``width`` CSS pixels wide (as a phone or a desktop)."""
    driver.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": width, "height": HEIGHT, "deviceScaleFactor": 1, "mobile": width < 600},
    )


def _article_problems(article: dict) -> list[str]:
    """Process words and claim headings in a page's rendered article."""
    import nbformat

    from icml26.pipeline.mystlint import heading_problems, process_words

    problems = [
        f"internal id or process word in the text: {w!r}" for w in process_words(article["text"])
    ]
    cells: list[dict] = []
    ids: list[list[str]] = []
    for item in article["sequence"]:
        if item[0] == "h":
            cells.append({"cell_type": "markdown", "source": "#" * item[1] + " " + item[2]})
            ids.append([])
        else:
            cells.append({"cell_type": "code", "source": ""})
            ids.append([item[1]])
    if any(ids):
        nb = nbformat.from_dict({"cells": cells})  # attribute access, no schema validation
        problems += [f"claim heading: {p}" for p in heading_problems(nb, ids)]
    return problems


def axe_problems(
    driver, allowed: dict[str, str] | None = None, skip: tuple[str, ...] = ()
) -> list[str]:
    """WCAG 2.1 A/AA violations axe-core finds on the loaded page, less ``allowed`` (rules
    in ``skip`` are not run)."""
    allowed = AXE_ALLOWED if allowed is None else allowed
    if not AXE.exists():
        return [f"axe-core is missing ({AXE}): run `npm ci`"]
    if not driver.execute_script("return typeof axe !== 'undefined'"):
        driver.execute_script(AXE.read_text(encoding="utf-8"))
    violations = driver.execute_async_script(_AXE_JS, list(AXE_TAGS), list(skip))
    return [
        f"axe {rule}: {text} ({n} elements, e.g. {'; '.join(targets)})"
        for rule, text, n, targets in violations
        if rule not in allowed
    ]


def page_problems(
    driver,
    url: str,
    origin: str,
    *,
    width: int = WIDTH,
    axe: bool = True,
    allowed_overflow: tuple[Allowed, ...] = ALLOWED_OVERFLOW,
) -> list[str]:
    """Load ``url`` at ``width`` px and return what is wrong with it for a reader (empty
    when nothing)."""
    return read_page(
        driver, url, origin, widths=(width,), axe=axe, allowed_overflow=allowed_overflow
    )[width]


_SETTLE_JS = """
const done = arguments[arguments.length - 1];
requestAnimationFrame(() => requestAnimationFrame(() => done(true)));
"""


def read_page(
    driver,
    url: str,
    origin: str,
    *,
    widths: tuple[int, ...] = WIDTHS,
    axe: bool = True,
    allowed_overflow: tuple[Allowed, ...] = ALLOWED_OVERFLOW,
    shots: Path | None = None,
) -> dict[int, list[str]]:
    """Load ``url`` once and read it at each of ``widths`` (the window resized between):
    width -> what is wrong with the page for a reader there. What does not depend on the
    width (console, requests, TeX left over, the rendered text) is reported at the first.
    With ``shots``, a screenshot at each width is written to ``{shots}-{width}.png``."""
    driver.get_log("browser")  # drop messages of the previous page
    set_width(driver, widths[0])
    driver.get(url)
    state = driver.execute_async_script(_MATHJAX_JS)
    found: dict[int, list[str]] = {}
    for k, width in enumerate(widths):
        if k:
            set_width(driver, width)
            driver.execute_script("window.dispatchEvent(new Event('resize'));")
            driver.execute_async_script(_SETTLE_JS)
        layout = driver.execute_script(_LAYOUT_JS)
        problems = _layout_problems(layout, url.removeprefix(origin), width, allowed_overflow)
        if k == 0:
            problems = _page_once(driver, state, layout, origin) + problems
            problems += _article_problems(driver.execute_script(_ARTICLE_JS))
        if axe:
            problems += axe_problems(driver, skip=() if width >= WIDTH else AXE_DESKTOP_ONLY)
        if shots is not None:
            screenshot(driver, Path(f"{shots}-{width}.png"))
        found[width] = problems
    return found


def _page_once(driver, state: str, layout: dict, origin: str) -> list[str]:
    """What a page shows the same at every width: MathJax, TeX, console, requests."""
    problems = [f"MathJax failed: {state}"] if state.startswith("error") else []
    if layout["merrors"]:
        problems.append(f"{layout['merrors']} MathJax input errors (mjx-merror)")
    text = driver.execute_script(_TEXT_JS)
    for token in TEX_LEFTOVERS:
        if token in text:
            i = text.index(token)
            problems.append(f"TeX or a role left in the text: {text[max(0, i - 40) : i + 40]!r}")
    problems += [f"image did not load: {src}" for src in layout["brokenImages"]]
    problems += [f"image without meaningful alternative text: {a}" for a in layout["alts"]]
    for entry in driver.get_log("browser"):
        if entry.get("level") == "SEVERE":
            problems.append(f"console error: {entry.get('message', '')[:200]}")
    for res in layout["resources"]:
        if not res.startswith((origin, "data:", "blob:")):
            problems.append(f"request outside the local server: {res}")
    return problems


def _layout_problems(
    layout: dict, page: str, width: int, allowed_overflow: tuple[Allowed, ...]
) -> list[str]:
    """What depends on the width: squeezed figures, sideways scrolling, overflow, verdicts."""
    problems = [
        f"figure squeezed: {alt[:60]!r} shown {w}×{h}, its own {nw}×{nh}"
        for alt, w, h, nw, nh in layout["aspect"]
    ]
    if layout["scrollWidth"] > layout["clientWidth"] + 1:
        problems.append(
            f"the page scrolls sideways ({layout['scrollWidth']} > {layout['clientWidth']} px)"
        )
    for kind, where, wide, room, text, wider in layout["overflow"]:
        if not any(a.covers(page, width, kind, text) for a in allowed_overflow):
            how = "wider than its column" if wider else "scrolls inside its box"
            problems.append(f"{kind} {how} ({wide} > {room} px): {where}")
    problems += [f"claim verdict not visible: {cid}" for cid in layout["hiddenVerdicts"]]
    return problems


def screenshot(driver, path: Path, *, max_height: int = 16000) -> None:
    """A full-page PNG of the current page (clipped at ``max_height`` pixels)."""
    import base64

    width = int(driver.execute_script("return document.documentElement.clientWidth"))
    height = min(int(driver.execute_script("return document.body.scrollHeight")), max_height)
    shot = driver.execute_cdp_cmd(
        "Page.captureScreenshot",
        {
            "captureBeyondViewport": True,
            "clip": {"x": 0, "y": 0, "width": width, "height": height, "scale": 1},
        },
    )
    Path(path).write_bytes(base64.b64decode(shot["data"]))
