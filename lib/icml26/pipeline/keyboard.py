"""Tab through a page of the built book as a keyboard user does.

:func:`keyboard_problems` presses Tab in headless Chromium (a driver from
:func:`icml26.pipeline.browser.chromium`): every visible link, button, fold and field must be
reached, and a fold, a dropdown and the search must open from the keyboard.
"""

from __future__ import annotations

from icml26.pipeline.browser import WIDTH, set_width

__all__ = ["keyboard_problems"]

_FOCUSABLE_JS = """
const sel = 'a[href], button:not([disabled]), input:not([disabled]):not([type=hidden]), ' +
            'select, textarea, summary, [tabindex]:not([tabindex="-1"])';
const shown = e => {
  if (!(e.getClientRects().length > 0)) return false;
  const cs = getComputedStyle(e);
  if (cs.visibility === 'hidden' || cs.display === 'none') return false;
  const d = e.parentElement && e.parentElement.closest('details:not([open])');
  if (d && !(e.matches('summary') && e.parentElement === d)) return false;
  return !e.closest('[aria-hidden="true"], [inert], dialog:not([open])');
};
const all = [...document.querySelectorAll(sel)].filter(shown);
all.forEach((e, i) => e.setAttribute('data-kbd', i));
const name = e =>
  (e.getAttribute('aria-label') || e.textContent || '').trim().replace(/\\s+/g, ' ');
return all.map(e => [e.tagName.toLowerCase(), Array.from(name(e)).slice(0, 40).join('')]);
"""

_ACTIVE_JS = """
const a = document.activeElement;
return a && a.hasAttribute('data-kbd') ? Number(a.getAttribute('data-kbd')) : -1;
"""


def _press(driver, key: str, code: int, *, shift: bool = False) -> None:
    for kind in ("rawKeyDown", "keyUp"):
        driver.execute_cdp_cmd(
            "Input.dispatchKeyEvent",
            {
                "type": kind,
                "key": key,
                "code": key,
                "windowsVirtualKeyCode": code,
                "nativeVirtualKeyCode": code,
                "modifiers": 8 if shift else 0,
                **({"text": "\r"} if key == "Enter" and kind == "rawKeyDown" else {}),
            },
        )
        if key == "Enter" and kind == "rawKeyDown":
            driver.execute_cdp_cmd("Input.dispatchKeyEvent", {"type": "char", "text": "\r"})


def keyboard_problems(driver, url: str, *, width: int = WIDTH) -> list[str]:
    """Tab through the page at ``url``: every visible interactive element must receive the
    focus, and a fold (``summary``), a dropdown (``aria-expanded``) and the search button
    must respond to Enter."""
    set_width(driver, width)
    driver.get(url)
    targets = driver.execute_script(_FOCUSABLE_JS)
    reached: set[int] = set()
    driver.execute_script("document.activeElement && document.activeElement.blur();")
    for _ in range(len(targets) + 40):
        _press(driver, "Tab", 9)
        k = driver.execute_script(_ACTIVE_JS)
        if k >= 0:
            reached.add(k)
        if len(reached) == len(targets):
            break
    problems = [
        f"not reachable by Tab: <{tag}> {text!r}"
        for k, (tag, text) in enumerate(targets)
        if k not in reached
    ]
    return problems + _operable_problems(driver, targets)


_TOGGLES_JS = """
const pick = s => [...document.querySelectorAll('[data-kbd]')].find(e => e.matches(s));
const s = pick('main summary') || pick('summary'), d = pick('[aria-expanded="false"]');
const q = pick('.search-button__button, .search-button');
return [s ? s.getAttribute('data-kbd') : null, d ? d.getAttribute('data-kbd') : null,
        q ? q.getAttribute('data-kbd') : null];
"""


def _focus(driver, k: str) -> None:
    driver.execute_script(f"document.querySelector('[data-kbd=\"{k}\"]').focus();")


def _operable_problems(driver, targets) -> list[str]:
    fold, dropdown, search = driver.execute_script(_TOGGLES_JS)
    problems = []
    if fold is not None:
        _focus(driver, fold)
        _press(driver, "Enter", 13)
        opened = driver.execute_script(
            f"return document.querySelector('[data-kbd=\"{fold}\"]').parentElement.open;"
        )
        if not opened:
            problems.append("a fold (summary) does not open with Enter")
    if dropdown is not None:
        _focus(driver, dropdown)
        _press(driver, "Enter", 13)
        state = driver.execute_script(
            f"return document.querySelector('[data-kbd=\"{dropdown}\"]')"
            ".getAttribute('aria-expanded');"
        )
        if state != "true":
            problems.append("a dropdown (aria-expanded) does not open with Enter")
        _press(driver, "Escape", 27)
    if search is not None:
        _focus(driver, search)
        _press(driver, "Enter", 13)
        typed = driver.execute_script(
            "const a = document.activeElement; return !!a && a.matches('input');"
        )
        if not typed:
            problems.append("the search button does not move the focus to a search field")
    return problems
