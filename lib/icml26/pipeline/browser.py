"""Read the built book as a reader does: every page in headless Chromium, after MathJax.

:func:`serve` serves a built site on 127.0.0.1; :func:`chromium` starts Debian's Chromium
through its ChromeDriver (both from the system, nothing downloaded); :func:`page_problems`
loads one page and returns what a reader would meet:

- MathJax errors (``mjx-merror``) or TeX left in the text (``$$``, ``\\frac``, ``\\mathbb``,
  a MyST role such as ``{ref}`` printed literally);
- an image that did not load;
- an error in the browser console;
- a request to any host but the local server;
- a page wider than the window, or a claim line whose verdict is not visible without
  scrolling sideways.
"""

from __future__ import annotations

import contextlib
import functools
import http.server
import shutil
import threading
from collections.abc import Iterator
from pathlib import Path

__all__ = ["WIDTH", "available", "chromium", "page_problems", "screenshot", "serve"]

WIDTH, HEIGHT = 1280, 900
CHROMIUM = ("chromium", "chromium-browser", "google-chrome")
TEX_LEFTOVERS = ("$$", "\\frac", "\\mathbb", "\\begin{", "{ref}`", "{prf:ref}`", "{eq}`", "{cite}`")

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

_LAYOUT_JS = """
const w = document.documentElement.clientWidth;
const bad = [];
for (const v of document.querySelectorAll('.claim-line .claim-verdict')) {
  const r = v.getBoundingClientRect();
  if (r.width === 0 || r.right > w + 1 || r.left < 0) bad.push(v.closest('.claim-line').id);
}
const imgs = [...document.images].filter(i => !(i.complete && i.naturalWidth > 0)).map(i => i.src);
return {
  scrollWidth: document.documentElement.scrollWidth, clientWidth: w,
  hiddenVerdicts: bad, brokenImages: imgs,
  merrors: document.querySelectorAll('mjx-merror').length,
  resources: performance.getEntriesByType('resource').map(e => e.name),
};
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
            f"--user-data-dir={profile}",
            f"--window-size={WIDTH},{HEIGHT}",
        ):
            options.add_argument(flag)
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        driver = webdriver.Chrome(
            options=options, service=Service(executable_path=shutil.which("chromedriver"))
        )
        driver.set_script_timeout(60)
        driver.set_page_load_timeout(60)
        try:
            yield driver
        finally:
            driver.quit()


def page_problems(driver, url: str, origin: str) -> list[str]:
    """Load ``url`` and return what is wrong with it for a reader (empty when nothing)."""
    driver.get(url)
    driver.get_log("browser")  # drop messages of the previous page
    driver.get(url)
    problems = []
    state = driver.execute_async_script(_MATHJAX_JS)
    if state.startswith("error"):
        problems.append(f"MathJax failed: {state}")
    layout = driver.execute_script(_LAYOUT_JS)
    if layout["merrors"]:
        problems.append(f"{layout['merrors']} MathJax input errors (mjx-merror)")
    text = driver.execute_script(_TEXT_JS)
    for token in TEX_LEFTOVERS:
        if token in text:
            i = text.index(token)
            problems.append(f"TeX or a role left in the text: {text[max(0, i - 40) : i + 40]!r}")
    problems += [f"image did not load: {src}" for src in layout["brokenImages"]]
    for entry in driver.get_log("browser"):
        if entry.get("level") == "SEVERE":
            problems.append(f"console error: {entry.get('message', '')[:200]}")
    for res in layout["resources"]:
        if not res.startswith((origin, "data:", "blob:")):
            problems.append(f"request outside the local server: {res}")
    if layout["scrollWidth"] > layout["clientWidth"] + 1:
        problems.append(
            f"the page scrolls sideways ({layout['scrollWidth']} > {layout['clientWidth']} px)"
        )
    problems += [f"claim verdict not visible: {cid}" for cid in layout["hiddenVerdicts"]]
    return problems


def screenshot(driver, path: Path, *, max_height: int = 16000) -> None:
    """A full-page PNG of the current page (clipped at ``max_height`` pixels)."""
    import base64

    height = min(int(driver.execute_script("return document.body.scrollHeight")), max_height)
    shot = driver.execute_cdp_cmd(
        "Page.captureScreenshot",
        {
            "captureBeyondViewport": True,
            "clip": {"x": 0, "y": 0, "width": WIDTH, "height": height, "scale": 1},
        },
    )
    Path(path).write_bytes(base64.b64decode(shot["data"]))
