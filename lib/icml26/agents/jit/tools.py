"""The toy shop's tool manifest: seventeen tools with STRIPS-style contracts.

Chapter 12 (agent-jit): the contracts of :prf:ref:`agent-jit-def-plan`. Each tool declares the
facts it needs (``pre``), adds and deletes; ``ai_eval`` is the LLM call a plan may contain.
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["INITIAL_STATE", "PAGES", "Tool", "loosen", "shop_manifest"]

PAGES = ("home", "search", "store", "item", "cart", "checkout", "done")
INITIAL_STATE = frozenset({"page=home"})


@dataclass(frozen=True)
class Tool:
    """A tool of the manifest: a STRIPS-style contract ``pre`` / ``add`` / ``delete`` (facts).

    ``kind`` is ``"tool"`` (a cached UI macro) or ``"eval"`` (an LLM call inside the plan);
    ``elements`` is the number of atomic UI actions the macro stands for (what a step-by-step
    agent loop has to perform one LLM call at a time); ``schema`` the JSON schema of its inputs.
    """

    name: str
    pre: frozenset[str]
    add: frozenset[str] = frozenset()
    delete: frozenset[str] = frozenset()
    kind: str = "tool"
    elements: int = 1
    schema: dict = field(default_factory=dict, compare=False, hash=False)

    def apply(self, state: frozenset[str]) -> frozenset[str]:
        """The state after the tool ran: ``(state − delete) ∪ add``."""
        return (state - self.delete) | self.add


def _nav(target: str) -> tuple[frozenset[str], frozenset[str]]:
    # every page change closes the item page (its "add" button is fresh only when just opened)
    gone = frozenset(f"page={p}" for p in PAGES if p != target) | {"item_fresh"}
    return frozenset({f"page={target}"}), gone


def _schema(props: dict[str, str], required: tuple[str, ...] = ()) -> dict:
    types = {
        "str": {"type": "string", "minLength": 1},
        "qty": {"type": "integer", "minimum": 1, "maximum": 20},
    }
    return {
        "type": "object",
        "properties": {k: types[v] for k, v in props.items()},
        "required": list(required or props),
        "additionalProperties": False,
    }


def shop_manifest() -> dict[str, Tool]:
    """The manifest of the toy shop: seventeen tools from home to a placed order.

    Implements the tool contracts of :prf:ref:`agent-jit-def-plan`, chapter 12.
    """
    p = lambda *f: frozenset(f"page={x}" for x in f)  # noqa: E731
    tools = [
        Tool("login", p("home"), frozenset({"logged_in"}), elements=4,
             schema=_schema({"user": "str"})),
        Tool("search", frozenset({"logged_in"}), *_nav("search"), elements=3,
             schema=_schema({"query": "str"})),
        Tool("list_stores", p("search"), elements=1, schema=_schema({})),
        Tool("open_store", p("search"), *_nav("store"), elements=3,
             schema=_schema({"store": "str"})),
        Tool("back_to_search", p("store"), *_nav("search"), elements=2, schema=_schema({})),
        Tool("list_items", p("store"), elements=1, schema=_schema({})),
        Tool("read_menu", p("store"), elements=3, schema=_schema({})),
        Tool("open_item", p("store"), p("item") | {"item_fresh"}, _nav("item")[1] - {"item_fresh"},
             elements=3, schema=_schema({"item": "str"})),
        Tool("read_price", p("item"), elements=1, schema=_schema({})),
        Tool("add_to_cart", p("item") | {"item_fresh"}, frozenset({"cart_nonempty"}),
             frozenset({"item_fresh"}), elements=3,
             schema=_schema({"qty": "qty"})),
        Tool("back_to_store", p("item"), *_nav("store"), elements=2, schema=_schema({})),
        Tool("go_cart", frozenset({"logged_in"}), *_nav("cart"), elements=2, schema=_schema({})),
        Tool("checkout", p("cart") | {"cart_nonempty"}, *_nav("checkout"), elements=3,
             schema=_schema({})),
        Tool("set_address", p("checkout"), frozenset({"address_set"}), elements=5,
             schema=_schema({"address": "str"})),
        Tool("confirm_address", p("checkout") | {"address_set"}, frozenset({"address_confirmed"}),
             elements=2, schema=_schema({})),
        Tool("place_order", p("checkout") | {"address_confirmed"}, frozenset({"page=done"}),
             frozenset({"cart_nonempty", "address_set", "address_confirmed"})
             | _nav("done")[1], elements=3, schema=_schema({})),
        Tool("ai_eval", frozenset(), kind="eval", elements=0,
             schema=_schema({"prompt": "str", "data": "str"})),
    ]  # fmt: skip
    return {t.name: t for t in tools}


_TOOL_NAMES = frozenset(shop_manifest())


def loosen(manifest: dict[str, Tool], names: tuple[str, ...]) -> dict[str, Tool]:
    """A copy of ``manifest`` in which the tools ``names`` declare no precondition at all."""
    _manifest(manifest)
    for n in names:
        if n not in manifest:
            raise ValueError(f"names must be tools of the manifest, got {n!r}")
    return {k: (Tool(t.name, frozenset(), t.add, t.delete, t.kind, t.elements, t.schema)
                if k in names else t) for k, t in manifest.items()}  # fmt: skip


def _manifest(manifest: object) -> dict[str, Tool]:
    if not isinstance(manifest, dict) or not all(isinstance(t, Tool) for t in manifest.values()):
        raise ValueError("manifest must be a dict of Tool")
    return manifest
