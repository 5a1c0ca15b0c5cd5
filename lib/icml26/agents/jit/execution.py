"""Plan execution on the concrete shop, and the cost model of a plan's control-flow graph.

Chapter 12 (agent-jit): :class:`WebApp` checks every tool's page itself (the run-time
``pre_check``), independently of the manifest, so the static checker is tested against it;
:func:`plan_cost` is the cost model of :prf:ref:`agent-jit-prop-cost`.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from icml26 import checks
from icml26.agents.jit.plans import Call, Plan, Var, _plan, nesting_depths
from icml26.agents.jit.tools import _TOOL_NAMES, Tool, _manifest

__all__ = ["RunResult", "ToolError", "WebApp", "plan_cost", "run_plan"]


class ToolError(RuntimeError):
    """A tool refused to run in the page's current state (the run-time ``pre_check``)."""


class WebApp:
    """The concrete shop: page state, session, cart. Every store lists ``n_items`` items.

    Its methods check the page themselves (the run-time ``pre_check`` of each tool), written
    independently of the manifest, so that the static checker is tested against it.
    """

    def __init__(self, n_items: int) -> None:
        self.n_items = checks.integer("n_items", n_items, low=1)
        self.page, self.logged_in, self.cart = "home", False, 0
        self.address, self.confirmed, self.orders = False, False, 0
        self.fresh = False  # the item page's "add" button has not been used yet

    def _need(self, ok: bool, why: str) -> None:
        if not ok:
            raise ToolError(why)

    def _goto(self, page: str) -> None:
        self.page, self.fresh = page, page == "item"

    def login(self, user: str) -> None:
        """Log in from the home page; opens the session."""
        self._need(self.page == "home", "login form is on the home page")
        self.logged_in = True

    def search(self, query: str) -> None:
        """Run a search (needs a session); shows the search page."""
        self._need(self.logged_in, "search needs a session")
        self._goto("search")

    def open_store(self, store: str) -> None:
        """Open a store from the search results."""
        self._need(self.page == "search", "stores are opened from search results")
        self._goto("store")

    def list_stores(self) -> list[str]:
        """The stores on the search page (``n_items`` of them)."""
        self._need(self.page == "search", "stores are listed on the search page")
        return [f"store{i}" for i in range(self.n_items)]

    def back_to_search(self) -> None:
        """Go back from a store to the search results."""
        self._need(self.page == "store", "back leads from a store to the search results")
        self._goto("search")

    def list_items(self) -> list[str]:
        """The items of the open store (``n_items`` of them)."""
        self._need(self.page == "store", "items are listed on a store page")
        return [f"item{i}" for i in range(self.n_items)]

    def read_menu(self) -> list[str]:
        """The open store's menu: its items, as :meth:`list_items` returns them."""
        self._need(self.page == "store", "the menu is on a store page")
        return [f"item{i}" for i in range(self.n_items)]

    def open_item(self, item: str) -> None:
        """Open an item from a store page; its add button is fresh."""
        self._need(self.page == "store", "items are opened from a store page")
        self._goto("item")

    def read_price(self) -> float:
        """The price shown on an item page."""
        self._need(self.page == "item", "prices are on item pages")
        return 1.0

    def add_to_cart(self, qty: int) -> None:
        """Add ``qty`` of the open item to the cart (a fresh item page only)."""
        self._need(self.page == "item" and self.fresh, "the add button is on a fresh item page")
        self.cart += qty
        self.fresh = False

    def back_to_store(self) -> None:
        """Go back from an item to its store."""
        self._need(self.page == "item", "back leads from an item to its store")
        self._goto("store")

    def go_cart(self) -> None:
        """Open the cart page (needs a session)."""
        self._need(self.logged_in, "the cart needs a session")
        self._goto("cart")

    def checkout(self) -> None:
        """Go from a non-empty cart to the checkout page."""
        self._need(self.page == "cart" and self.cart > 0, "checkout needs a non-empty cart page")
        self._goto("checkout")

    def set_address(self, address: str) -> None:
        """Fill in the delivery address on the checkout page."""
        self._need(self.page == "checkout", "the address form is on the checkout page")
        self.address = True

    def confirm_address(self) -> None:
        """Confirm the address that was set."""
        self._need(self.page == "checkout" and self.address, "confirm needs an address")
        self.confirmed = True

    def place_order(self) -> None:
        """Place the order (confirmed address); empties the cart, shows the done page."""
        self._need(self.page == "checkout" and self.confirmed, "order needs a confirmed address")
        self.orders += 1
        self.cart, self.address, self.confirmed = 0, False, False
        self._goto("done")

    def ai_eval(self, prompt: str, data: str) -> str:
        """The LLM call inside a plan (``kind="eval"``): here it always picks ``item0``."""
        return "item0"


@dataclass(frozen=True)
class RunResult:
    """Outcome of one execution: success, the failing line and tool, executions per tool."""

    ok: bool
    line: int | None
    tool: str | None
    counts: dict


def run_plan(plan: Plan, n_items: int) -> RunResult:
    """Execute ``plan`` on a fresh :class:`WebApp` whose loops yield ``n_items`` items."""
    _plan(plan)
    app = WebApp(n_items)
    counts: Counter = Counter()
    env: dict[str, object] = {}
    current: list[Call] = []

    def call(c: Call) -> object:
        current[:] = [c]
        counts[c.name] += 1
        f = getattr(app, c.name, None)
        if f is None or c.name.startswith("_") or c.name not in _TOOL_NAMES:
            raise ToolError("unknown tool")
        kw = {k: (str(env.get(v.name, v.name)) if isinstance(v, Var) else v) for k, v in c.kwargs}
        res = f(**kw)
        if c.target:
            env[c.target] = res
        return res

    def block(b: Plan) -> None:
        for n in b:
            if isinstance(n, Call):
                call(n)
            else:
                items = call(n.source)
                if not isinstance(items, list):  # a loop over a tool that lists nothing
                    raise TypeError(f"{n.source.name} returns no items to loop over")
                for item in items:
                    env[n.var] = item
                    block(n.body)

    try:
        block(plan)
    except (ToolError, TypeError):
        return RunResult(False, current[0].line, current[0].name, dict(counts))
    return RunResult(True, None, None, dict(counts))


def plan_cost(
    plan: Plan,
    manifest: dict[str, Tool],
    gamma: float = 10.0,
    c_tool: float = 1.0,
    c_eval: float = 3.0,
) -> float:
    """The CFG cost model (D2): ``Σ_v (C_tool 1[tool] + C_eval 1[ai_eval]) γ^d(v)``.

    Implements :prf:ref:`agent-jit-prop-cost`, chapter 12.
    """
    _plan(plan)
    _manifest(manifest)
    gamma = checks.real("gamma", gamma, low=1.0)
    c_tool = checks.real("c_tool", c_tool, low=0.0)
    c_eval = checks.real("c_eval", c_eval, low=0.0)
    total = 0.0
    for name, d in nesting_depths(plan):
        kind = manifest[name].kind if name in manifest else "tool"
        total += (c_eval if kind == "eval" else c_tool) * gamma**d
    return total
