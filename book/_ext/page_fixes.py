"""Small fixes to what every HTML page loads.

sphinx-thebe adds its inline configuration script each time the environment reads documents,
so a page can carry ``const THEBE_JS_URL = ...`` twice, which the browser rejects ("Identifier
'THEBE_JS_URL' has already been declared"). Scripts are de-duplicated here, keeping the first.
"""

from __future__ import annotations

from sphinx.application import Sphinx


def _dedupe_scripts(app: Sphinx, pagename, templatename, context, doctree) -> None:
    scripts = context.get("script_files")
    if not scripts:
        return
    seen, kept = set(), []
    for js in scripts:
        key = (
            str(js),
            tuple(sorted((k, str(v)) for k, v in getattr(js, "attributes", {}).items())),
        )
        if key not in seen:
            seen.add(key)
            kept.append(js)
    scripts[:] = kept


def setup(app: Sphinx) -> dict[str, object]:
    app.connect("html-page-context", _dedupe_scripts)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
