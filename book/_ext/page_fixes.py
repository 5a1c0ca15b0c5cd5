"""Small fixes to what every HTML page loads and says, each for a reader the page failed.

- sphinx-thebe adds its inline configuration script each time the environment reads
  documents, so a page can carry ``const THEBE_JS_URL = ...`` twice, which the browser
  rejects ("Identifier 'THEBE_JS_URL' has already been declared"). Scripts are de-duplicated
  here, keeping the first.
- The theme's sidebar folds (``<summary>`` around a chevron icon) have no accessible name
  (WCAG 4.1.2, axe-core rule ``summary-name``): each gets one naming the entry it folds.
- docutils marks a bibliography entry with the ARIA role ``doc-biblioentry``, deprecated in
  DPUB-ARIA 1.1, inside a ``role="list"`` that then has no list items (axe-core rules
  ``aria-deprecated-role``, ``aria-required-children``): entries become ``listitem``.

(Two theme components, the search field and the colour-mode button, are overridden in
``book/_templates`` so that their accessible names contain their visible text.)
"""

from __future__ import annotations

import re

from sphinx.application import Sphinx

_SUMMARY = re.compile(
    r'(<a class="reference internal" href="[^"]*">([^<]*)</a>\s*)'
    r"(<details[^>]*>\s*)<summary>"
)


def _dedupe_scripts(app: Sphinx, pagename, templatename, context, doctree) -> None:
    scripts = context.get("script_files")
    if not scripts:
        return
    seen, kept = set(), []
    for js in scripts:
        body = str(getattr(js, "attributes", {}).get("body", ""))
        key = (getattr(js, "filename", None) or "", body)  # the same file or inline body
        if key not in seen:
            seen.add(key)
            kept.append(js)
    scripts[:] = kept


def name_sidebar_folds(html: str) -> str:
    """Give each sidebar fold's ``<summary>`` the name of the entry it folds."""

    def named(m: re.Match) -> str:
        title = m.group(2).strip().replace('"', "&quot;")
        return f'{m.group(1)}{m.group(3)}<summary aria-label="Pages under {title}">'

    return _SUMMARY.sub(named, html).replace(
        "<summary>", '<summary aria-label="Show or hide the pages under this entry">'
    )


def _accessible_toctree(app: Sphinx, pagename, templatename, context, doctree) -> None:
    make = context.get("generate_toctree_html")
    if make is not None and not getattr(make, "_named_folds", False):

        def wrapped(*args, **kwargs):
            from markupsafe import Markup

            return Markup(name_sidebar_folds(str(make(*args, **kwargs))))

        wrapped._named_folds = True
        context["generate_toctree_html"] = wrapped
    if "body" in context and "doc-biblioentry" in context["body"]:
        context["body"] = context["body"].replace('role="doc-biblioentry"', 'role="listitem"')


def setup(app: Sphinx) -> dict[str, object]:
    app.connect("html-page-context", _dedupe_scripts, priority=900)  # after the others
    app.connect("html-page-context", _accessible_toctree, priority=900)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
