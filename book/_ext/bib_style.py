"""Author–year labels in the bibliography, to match the author–year citations in the text.

sphinxcontrib-bibtex cites in author–year form (``bibtex_reference_style: author_year``), but
pybtex's ``plain`` style labels the list ``[1]``, ``[2]``, ... This registers the formatting
style ``authoryear``: ``plain`` with labels ``Wang et al., 2026`` (``a``, ``b`` appended when
two entries would share a label), so that a citation and its entry read the same.
"""

from __future__ import annotations

from collections import Counter

from pybtex.plugin import register_plugin
from pybtex.style.formatting.plain import Style as Plain
from pybtex.style.labels import BaseLabelStyle
from sphinx.application import Sphinx


def _last(person) -> str:
    return " ".join(person.last_names).replace("{", "").replace("}", "")


def _label(entry) -> str:
    people = entry.persons.get("author") or entry.persons.get("editor") or []
    if not people:
        name = entry.fields.get("organization") or entry.fields.get("title", "Anon.").split()[0]
    elif len(people) == 1:
        name = _last(people[0])
    elif len(people) == 2:
        name = f"{_last(people[0])} and {_last(people[1])}"
    else:
        name = f"{_last(people[0])} et al."
    return f"{name}, {entry.fields.get('year', 'n.d.')}"


class AuthorYearLabels(BaseLabelStyle):
    def format_labels(self, sorted_entries):
        entries = list(sorted_entries)
        labels = [_label(e) for e in entries]
        counts, seen = Counter(labels), Counter()
        for label in labels:
            if counts[label] > 1:
                seen[label] += 1
                label += "abcdefghijklmnopqrstuvwxyz"[seen[label] - 1]
            yield label


class AuthorYear(Plain):
    default_label_style = AuthorYearLabels


def setup(app: Sphinx) -> dict[str, object]:
    register_plugin("pybtex.style.formatting", "authoryear", AuthorYear)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
