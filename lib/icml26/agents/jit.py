"""Agent JIT compilation for computer-use agents: plans, contracts, cost model and scheduling.

Chapter 12 (agent-jit). The module holds the toy web application (a page-state machine whose tools
carry pre/post contracts), plan code parsed with ``ast``, the static contract checker of
:prf:ref:`agent-jit-prop-exact`, plan execution, the simulated planner with its error modes and
repair (:prf:ref:`agent-jit-prop-passk`), the cost model of :prf:ref:`agent-jit-prop-cost`, the
Monte Carlo strategy scheduler of :prf:ref:`agent-jit-def-d3` (vectorised, common random numbers)
and the order-statistic integrals of :prf:ref:`agent-jit-prop-order`. Pure numpy (scipy for
quadrature).
"""

from __future__ import annotations

import ast
import math
from collections import Counter
from dataclasses import dataclass, field

import numpy as np

from icml26 import checks

__all__ = [
    "INITIAL_STATE",
    "STRATEGIES",
    "Call",
    "Draft",
    "Loop",
    "RunResult",
    "Schedule",
    "ScheduleTasks",
    "Tool",
    "Var",
    "Violation",
    "WebApp",
    "amdahl_bound",
    "check_plan",
    "draw_latencies",
    "fit_lognormal",
    "loosen",
    "mc_strategy_means",
    "nesting_depths",
    "order_statistic_means",
    "parse_plan",
    "pass_at_k",
    "plan_cost",
    "random_schedule",
    "render_plan",
    "repair",
    "run_plan",
    "sample_draft",
    "shop_manifest",
    "strategy_latencies",
    "valid_probability",
]

PAGES = ("home", "search", "store", "item", "cart", "checkout", "done")
STRATEGIES = ("serial", "parallel", "hedge")
INITIAL_STATE = frozenset({"page=home"})


# --- the tool manifest ------------------------------------------------------------------------


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


# --- plans as programs ------------------------------------------------------------------------


@dataclass(frozen=True)
class Var:
    """A reference to a plan variable (a loop variable or an assigned result)."""

    name: str


@dataclass(frozen=True)
class Call:
    """One tool call ``target = name(**kwargs)``; ``line`` is its source line (not compared)."""

    name: str
    kwargs: tuple[tuple[str, object], ...] = ()
    target: str | None = None
    line: int = field(default=0, compare=False)


@dataclass(frozen=True)
class Loop:
    """``for var in source(): body`` — the body runs once per item the source call returns."""

    var: str
    source: Call
    body: tuple
    line: int = field(default=0, compare=False)


def _parse_call(node: ast.AST, target: str | None, where: int) -> Call:
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)) or node.args:
        raise ValueError(f"plan line {where}: expected a tool call with keyword arguments")
    kw = []
    for k in node.keywords:
        if k.arg is None:
            raise ValueError(f"plan line {where}: **kwargs are not allowed")
        v = Var(k.value.id) if isinstance(k.value, ast.Name) else ast.literal_eval(k.value)
        kw.append((k.arg, v))
    return Call(node.func.id, tuple(kw), target, where)


def _parse_block(stmts: list[ast.stmt]) -> tuple:
    out: list = []
    for s in stmts:
        if isinstance(s, ast.Expr):
            out.append(_parse_call(s.value, None, s.lineno))
        elif (
            isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Name)
        ):
            out.append(_parse_call(s.value, s.targets[0].id, s.lineno))
        elif isinstance(s, ast.For) and isinstance(s.target, ast.Name) and not s.orelse:
            src = _parse_call(s.iter, None, s.lineno)
            out.append(Loop(s.target.id, src, _parse_block(s.body), s.lineno))
        else:
            raise ValueError(f"plan line {s.lineno}: unsupported statement {type(s).__name__}")
    return tuple(out)


def parse_plan(source: str) -> tuple:
    """Parse plan code (calls, assignments of calls, ``for`` loops over a call) with ``ast``."""
    if not isinstance(source, str):
        raise ValueError(f"source must be a string, got {type(source).__name__}")
    try:
        tree = ast.parse(source)
    except SyntaxError as e:
        raise ValueError(f"source is not valid Python: {e.msg} (line {e.lineno})") from None
    return _parse_block(tree.body)


def _render_call(c: Call) -> str:
    args = ", ".join(f"{k}={v.name if isinstance(v, Var) else repr(v)}" for k, v in c.kwargs)
    return (f"{c.target} = " if c.target else "") + f"{c.name}({args})"


def render_plan(plan: tuple, indent: int = 0) -> str:
    """Plan code for ``plan`` (the inverse of :func:`parse_plan`, up to line numbers)."""
    _plan(plan)
    lines = []
    for n in plan:
        pad = "    " * indent
        if isinstance(n, Call):
            lines.append(pad + _render_call(n))
        else:
            lines.append(f"{pad}for {n.var} in {_render_call(n.source)}:")
            lines.append(render_plan(n.body, indent + 1).rstrip("\n"))
    return "\n".join(lines) + "\n"


def _plan(plan: object) -> tuple:
    if not isinstance(plan, tuple) or not all(isinstance(n, Call | Loop) for n in plan):
        raise ValueError("plan must be a tuple of Call and Loop nodes")
    return plan


def nesting_depths(plan: tuple) -> list[tuple[str, int]]:
    """``(tool, d(v))`` for every call node of the CFG, in program order (loop sources first)."""
    _plan(plan)

    def walk(block: tuple, d: int) -> list[tuple[str, int]]:
        out = []
        for n in block:
            if isinstance(n, Call):
                out.append((n.name, d))
            else:
                out.append((n.source.name, d))
                out += walk(n.body, d + 1)
        return out

    return walk(plan, 0)


# --- static checking (D1) ---------------------------------------------------------------------


@dataclass(frozen=True)
class Violation:
    """A precondition the static checker cannot guarantee: the node, the tool, the missing facts."""

    line: int
    tool: str
    missing: tuple[str, ...]


def _check_block(block: tuple, state: frozenset, manifest: dict, out: list | None) -> frozenset:
    for n in block:
        if isinstance(n, Loop):
            state = _check_call(n.source, state, manifest, out)
            entry = state
            while True:  # loop invariant: facts true at every iteration's entry
                nxt = entry & _check_block(n.body, entry, manifest, None)
                if nxt == entry:
                    break
                entry = nxt
            state = _check_block(n.body, entry, manifest, out)  # loops run at least once
        else:
            state = _check_call(n, state, manifest, out)
    return state


def _check_call(c: Call, state: frozenset, manifest: dict, out: list | None) -> frozenset:
    tool = manifest.get(c.name)
    if tool is None:
        if out is not None:
            out.append(Violation(c.line, c.name, ("<unknown tool>",)))
        return state
    missing = tool.pre - state
    if missing and out is not None:
        out.append(Violation(c.line, c.name, tuple(sorted(missing))))
    return tool.apply(state)


def check_plan(
    plan: tuple, manifest: dict[str, Tool], initial: frozenset[str] = INITIAL_STATE
) -> list[Violation]:
    """Every precondition the plan may violate (forward abstract interpretation of its CFG).

    Implements :prf:ref:`agent-jit-def-plan` and is exact by :prf:ref:`agent-jit-prop-exact`
    (chapter 12): a fact holds at a node iff it holds on every path into it; a loop's entry state is
    the fixed point of ``entry ∩ body(entry)``; the checker goes on after a violation as if the call
    had run. The plan is valid iff the list is empty.
    """
    _plan(plan)
    _manifest(manifest)
    if not isinstance(initial, frozenset):
        raise ValueError("initial must be a frozenset of facts")
    out: list[Violation] = []
    _check_block(plan, initial, manifest, out)
    return out


# --- the web application and plan execution ---------------------------------------------------


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
        self._need(self.page == "home", "login form is on the home page")
        self.logged_in = True

    def search(self, query: str) -> None:
        self._need(self.logged_in, "search needs a session")
        self._goto("search")

    def open_store(self, store: str) -> None:
        self._need(self.page == "search", "stores are opened from search results")
        self._goto("store")

    def list_stores(self) -> list[str]:
        self._need(self.page == "search", "stores are listed on the search page")
        return [f"store{i}" for i in range(self.n_items)]

    def back_to_search(self) -> None:
        self._need(self.page == "store", "back leads from a store to the search results")
        self._goto("search")

    def list_items(self) -> list[str]:
        self._need(self.page == "store", "items are listed on a store page")
        return [f"item{i}" for i in range(self.n_items)]

    def read_menu(self) -> list[str]:
        self._need(self.page == "store", "the menu is on a store page")
        return [f"item{i}" for i in range(self.n_items)]

    def open_item(self, item: str) -> None:
        self._need(self.page == "store", "items are opened from a store page")
        self._goto("item")

    def read_price(self) -> float:
        self._need(self.page == "item", "prices are on item pages")
        return 1.0

    def add_to_cart(self, qty: int) -> None:
        self._need(self.page == "item" and self.fresh, "the add button is on a fresh item page")
        self.cart += qty
        self.fresh = False

    def back_to_store(self) -> None:
        self._need(self.page == "item", "back leads from an item to its store")
        self._goto("store")

    def go_cart(self) -> None:
        self._need(self.logged_in, "the cart needs a session")
        self._goto("cart")

    def checkout(self) -> None:
        self._need(self.page == "cart" and self.cart > 0, "checkout needs a non-empty cart page")
        self._goto("checkout")

    def set_address(self, address: str) -> None:
        self._need(self.page == "checkout", "the address form is on the checkout page")
        self.address = True

    def confirm_address(self) -> None:
        self._need(self.page == "checkout" and self.address, "confirm needs an address")
        self.confirmed = True

    def place_order(self) -> None:
        self._need(self.page == "checkout" and self.confirmed, "order needs a confirmed address")
        self.orders += 1
        self.cart, self.address, self.confirmed = 0, False, False
        self._goto("done")

    def ai_eval(self, prompt: str, data: str) -> str:
        return "item0"


@dataclass(frozen=True)
class RunResult:
    """Outcome of one execution: success, the failing line and tool, executions per tool."""

    ok: bool
    line: int | None
    tool: str | None
    counts: dict


def run_plan(plan: tuple, n_items: int) -> RunResult:
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

    def block(b: tuple) -> None:
        for n in b:
            if isinstance(n, Call):
                call(n)
            else:
                for item in call(n.source):
                    env[n.var] = item
                    block(n.body)

    try:
        block(plan)
    except (ToolError, TypeError):
        return RunResult(False, current[0].line, current[0].name, dict(counts))
    return RunResult(True, None, None, dict(counts))


def plan_cost(
    plan: tuple,
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


# --- the simulated planner and repair ---------------------------------------------------------


@dataclass(frozen=True)
class Draft:
    """A sampled plan: the gold plan plus its errors, each ``(kind, block, index)``.

    ``kind`` is ``"swap"`` (statements ``index`` and ``index+1`` of the block emitted in the
    wrong order) or ``"drop"`` (statement ``index`` left out); ``block`` is the path of loop
    indices from the top level (``()`` for the top level).
    """

    gold: tuple
    errors: frozenset

    def plan(self) -> tuple:
        """The plan the planner emitted: drops first, then swaps from right to left per block."""
        return _apply(self.gold, (), self.errors)


def _apply(block: tuple, path: tuple, errors: frozenset) -> tuple:
    items = [
        Loop(n.var, n.source, _apply(n.body, (*path, i), errors), n.line)
        if isinstance(n, Loop)
        else n
        for i, n in enumerate(block)
    ]
    keep = [i for i in range(len(items)) if ("drop", path, i) not in errors]
    seq = [items[i] for i in keep]
    for i in sorted((e[2] for e in errors if e[0] == "swap" and e[1] == path), reverse=True):
        if i + 1 < len(seq):
            seq[i], seq[i + 1] = seq[i + 1], seq[i]
    return tuple(seq)


def _blocks(block: tuple, path: tuple = ()) -> list[tuple[tuple, tuple]]:
    out = [(path, block)]
    for i, n in enumerate(block):
        if isinstance(n, Loop):
            out += _blocks(n.body, (*path, i))
    return out


def sample_draft(
    gold: tuple,
    manifest: dict[str, Tool],
    rng: np.random.Generator,
    eps_order: float,
    eps_drop: float = 0.0,
) -> Draft:
    """One plan from the simulated LLM planner (:prf:ref:`agent-jit-prop-passk`, chapter 12).

    Each adjacent pair of a block is swapped with probability ``eps_order`` (an ordering
    error); each navigation call (one that changes the page) is dropped with ``eps_drop``.
    """
    _plan(gold)
    _manifest(manifest)
    eps_order = checks.real("eps_order", eps_order, low=0.0, high=1.0)
    eps_drop = checks.real("eps_drop", eps_drop, low=0.0, high=1.0)
    if not isinstance(rng, np.random.Generator):
        raise ValueError("rng must be a numpy Generator")
    errors = set()
    for path, block in _blocks(gold):
        for i in np.flatnonzero(rng.random(max(len(block) - 1, 0)) < eps_order):
            errors.add(("swap", path, int(i)))
        if eps_drop > 0:
            nav = [i for i, n in enumerate(block) if isinstance(n, Call) and _is_nav(n, manifest)]
            for i in np.array(nav, dtype=int)[rng.random(len(nav)) < eps_drop]:
                errors.add(("drop", path, int(i)))
    return Draft(gold, frozenset(errors))


def _is_nav(c: Call, manifest: dict[str, Tool]) -> bool:
    t = manifest.get(c.name)
    return t is not None and any(f.startswith("page=") for f in t.add)


def repair(draft: Draft, rng: np.random.Generator, fix_prob: float = 0.7) -> Draft:
    """One repair round after the checker reported the violations: each error is fixed with
    probability ``fix_prob``, independently (:prf:ref:`agent-jit-prop-passk`, chapter 12)."""
    if not isinstance(draft, Draft):
        raise ValueError("draft must be a Draft")
    fix_prob = checks.real("fix_prob", fix_prob, low=0.0, high=1.0)
    if not isinstance(rng, np.random.Generator):
        raise ValueError("rng must be a numpy Generator")
    errs = sorted(draft.errors)
    keep = rng.random(len(errs)) >= fix_prob
    return Draft(draft.gold, frozenset(e for e, k in zip(errs, keep, strict=True) if k))


def valid_probability(
    eps_order: float, length: int, fix_prob: float = 0.0, rounds: int = 0
) -> float:
    """``(1 − ε_o (1 − r)^R)^(L − 1)``: a chain plan of ``length`` calls is valid after
    ``rounds`` repair rounds (:prf:ref:`agent-jit-prop-passk`, chapter 12)."""
    eps_order = checks.real("eps_order", eps_order, low=0.0, high=1.0)
    length = checks.integer("length", length, low=1)
    fix_prob = checks.real("fix_prob", fix_prob, low=0.0, high=1.0)
    rounds = checks.integer("rounds", rounds, low=0)
    return float((1.0 - eps_order * (1.0 - fix_prob) ** rounds) ** (length - 1))


def pass_at_k(p: float | np.ndarray, k: int) -> float | np.ndarray:
    """``1 − (1 − p)^k``: at least one of ``k`` i.i.d. candidates is valid."""
    a = np.asarray(p, dtype=float)
    if not np.isfinite(a).all() or (a < 0).any() or (a > 1).any():
        raise ValueError("p must lie in [0, 1]")
    k = checks.integer("k", k, low=1)
    out = 1.0 - (1.0 - a) ** k
    return float(out) if out.ndim == 0 else out


def amdahl_bound(share: float) -> float:
    """``1 / (1 − s)``: the speed-up from removing a fraction ``s`` of the latency entirely."""
    share = checks.real("share", share, low=0.0, high=1.0)
    if share == 1.0:
        raise ValueError("share must be < 1.0, got 1.0")
    return 1.0 / (1.0 - share)


# --- latencies, fits, order statistics --------------------------------------------------------


def draw_latencies(
    median: np.ndarray,
    sigma: np.ndarray,
    p_stall: np.ndarray,
    size: tuple[int, ...],
    rng: np.random.Generator,
    stall_factor: float = 10.0,
) -> np.ndarray:
    """Draws of shape ``size + median.shape`` from the stalled lognormal of each element:
    ``median · exp(σ Z)``, multiplied by ``stall_factor`` with probability ``p_stall``."""
    median, sigma, p_stall = (np.asarray(a, dtype=float) for a in (median, sigma, p_stall))
    checks.shape("sigma", sigma, median.shape)
    checks.shape("p_stall", p_stall, median.shape)
    if median.ndim != 1 or (median <= 0).any() or not np.isfinite(median).all():
        raise ValueError("median must be a 1-D array of positive numbers")
    if (sigma < 0).any() or not np.isfinite(sigma).all():
        raise ValueError("sigma must be non-negative and finite")
    if (p_stall < 0).any() or (p_stall > 1).any():
        raise ValueError("p_stall must lie in [0, 1]")
    stall_factor = checks.real("stall_factor", stall_factor, low=1.0)
    if not isinstance(rng, np.random.Generator):
        raise ValueError("rng must be a numpy Generator")
    size = tuple(checks.integer("size", s, low=1) for s in size)
    z = rng.standard_normal(size + median.shape)
    x = median * np.exp(sigma * z)
    if (p_stall > 0).any():
        x *= np.where(rng.random(size + median.shape) < p_stall, stall_factor, 1.0)
    return x


def fit_lognormal(samples: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Maximum-likelihood lognormal fit with location 0 along the last axis: ``(median, σ)``.

    The closed form of ``scipy.stats.lognorm.fit(x, floc=0)``: ``exp(mean log x)`` and the
    ``ddof=0`` standard deviation of ``log x``.
    """
    x = np.asarray(samples, dtype=float)
    if x.ndim < 1 or x.shape[-1] < 2:
        raise ValueError("samples must have at least 2 entries along the last axis")
    if not np.isfinite(x).all() or (x <= 0).any():
        raise ValueError("samples must be positive and finite")
    lx = np.log(x)
    return np.exp(lx.mean(-1)), lx.std(-1)


def order_statistic_means(
    median: float, sigma: float, n: int, p_stall: float = 0.0, stall_factor: float = 10.0
) -> tuple[float, float]:
    """``(E[min], E[max])`` of ``n`` i.i.d. stalled lognormals by quadrature of
    ``∫ (1 − F)^n`` and ``∫ (1 − F^n)`` (:prf:ref:`agent-jit-prop-order`, chapter 12)."""
    from scipy import integrate, special

    median = checks.real("median", median, low=0.0, strict=True)
    sigma = checks.real("sigma", sigma, low=0.0, strict=True)
    n = checks.integer("n", n, low=1)
    p_stall = checks.real("p_stall", p_stall, low=0.0, high=1.0)
    stall_factor = checks.real("stall_factor", stall_factor, low=1.0)

    def cdf(x: float) -> float:
        if x <= 0.0:
            return 0.0
        a = special.ndtr(math.log(x / median) / sigma)
        b = special.ndtr(math.log(x / (median * stall_factor)) / sigma)
        return (1 - p_stall) * a + p_stall * b

    top = median * stall_factor * np.exp(12 * sigma)
    pts = [median, median * stall_factor]
    e_min = integrate.quad(lambda x: (1 - cdf(x)) ** n, 0, top, points=pts, limit=200)[0]
    e_max = integrate.quad(lambda x: 1 - cdf(x) ** n, 0, top, points=pts, limit=200)[0]
    return e_min, e_max


# --- the Monte Carlo scheduler (D3) -----------------------------------------------------------


@dataclass(frozen=True)
class Schedule:
    """Tasks for the scheduler, flattened: every task is a prefix segment followed by ``m``
    independent sub-task segments of UI elements.

    ``segment_start`` (G,) are the first element of each segment in the element axis (sorted,
    starting at 0); ``task_start`` (T,) the first segment of each task (its prefix);
    ``n_elements`` the length of the element axis.
    """

    segment_start: np.ndarray
    task_start: np.ndarray
    n_elements: int

    def __post_init__(self) -> None:
        s, t = np.asarray(self.segment_start), np.asarray(self.task_start)
        if s.ndim != 1 or s.size == 0 or s[0] != 0 or (np.diff(s) <= 0).any():
            raise ValueError("segment_start must be strictly increasing from 0")
        if s[-1] >= self.n_elements:
            raise ValueError("n_elements must exceed the last segment start")
        if t.ndim != 1 or t.size == 0 or t[0] != 0 or (np.diff(t) < 2).any() or t[-1] > s.size - 2:
            raise ValueError("task_start must start at 0 and leave >= 1 sub-task per task")

    @property
    def n_tasks(self) -> int:
        return int(np.asarray(self.task_start).size)

    @property
    def subtasks(self) -> np.ndarray:
        """Sub-tasks per task, ``m``."""
        t = np.asarray(self.task_start)
        return np.diff(np.append(t, np.asarray(self.segment_start).size)) - 1


def strategy_latencies(
    lat: np.ndarray, schedule: Schedule, delta_p: np.ndarray, delta_h: float
) -> np.ndarray:
    """D3 for every draw and task: ``(M, T, 3)`` latencies of serial, parallel, hedge.

    ``lat`` is ``(M, n, E)``: ``n`` workers' independent draws of every element. Serial and
    parallel use worker 0 (common random numbers); the hedge is the fastest of the ``n``
    workers running the serial sequence. Implements :prf:ref:`agent-jit-def-d3`, chapter 12.
    """
    lat = np.asarray(lat, dtype=float)
    checks.shape("lat", lat, (None, None, schedule.n_elements))
    if (lat < 0).any() or not np.isfinite(lat).all():
        raise ValueError("lat must be non-negative and finite")
    delta_p = np.asarray(delta_p, dtype=float)
    checks.shape("delta_p", delta_p, (schedule.n_tasks,))
    delta_h = checks.real("delta_h", delta_h, low=0.0)
    seg = np.add.reduceat(lat, schedule.segment_start, axis=-1)  # (M, n, G)
    ts = np.asarray(schedule.task_start)
    total = np.add.reduceat(seg, ts, axis=-1)  # (M, n, T): prefix + all sub-tasks
    prefix = seg[..., ts]  # (M, n, T)
    sub = seg.copy()
    sub[..., ts] = 0.0  # the prefix is not a sub-task
    longest = np.maximum.reduceat(sub, ts, axis=-1)  # (M, n, T)
    serial = total[:, 0]
    parallel = prefix[:, 0] + longest[:, 0] + delta_p
    hedge = total.min(axis=1) + delta_h
    return np.stack([serial, parallel, hedge], axis=-1)


def mc_strategy_means(
    median: np.ndarray,
    sigma: np.ndarray,
    p_stall: np.ndarray,
    schedule: Schedule,
    delta_p: np.ndarray,
    delta_h: float,
    draws: int,
    rng: np.random.Generator,
    n_hedge: int = 3,
    chunk: int = 250,
) -> np.ndarray:
    """Monte Carlo means ``(T, 3)`` of the three strategies over ``draws`` draws with common
    random numbers across strategies (D3 and :prf:ref:`agent-jit-prop-select`, chapter 12)."""
    draws = checks.integer("draws", draws, low=1)
    n_hedge = checks.integer("n_hedge", n_hedge, low=1)
    chunk = checks.integer("chunk", chunk, low=1)
    median = np.asarray(median, dtype=float)
    checks.shape("median", median, (schedule.n_elements,))
    acc = np.zeros((schedule.n_tasks, 3))
    done = 0
    while done < draws:
        b = min(chunk, draws - done)
        lat = draw_latencies(median, sigma, p_stall, (b, n_hedge), rng)
        acc += strategy_latencies(lat, schedule, delta_p, delta_h).sum(0)
        done += b
    return acc / draws


@dataclass(frozen=True)
class ScheduleTasks:
    """A random task mix for the scheduler: the layout and each element's true distribution."""

    schedule: Schedule
    median: np.ndarray  # (E,) true median latency of each element, s
    sigma: np.ndarray  # (E,) log-scale
    p_stall: np.ndarray  # (E,) stall probability (the task's site condition)
    m: np.ndarray  # (T,) independent sub-tasks per task
    p_st: np.ndarray  # (T,) stall probability per task


def random_schedule(
    n_tasks: int,
    rng: np.random.Generator,
    max_subtasks: int = 6,
    stall_probs: tuple[float, ...] = (0.0, 0.1, 0.3),
    sigma: float = 0.5,
) -> ScheduleTasks:
    """Tasks with a 2–4 element prefix and ``m ∈ {1..max_subtasks}`` sub-tasks of 2–5 elements
    (one cached macro each),
    element medians uniform on [0.3, 1.5] s, one stall probability per task."""
    n_tasks = checks.integer("n_tasks", n_tasks, low=1)
    max_subtasks = checks.integer("max_subtasks", max_subtasks, low=1)
    sigma = checks.real("sigma", sigma, low=0.0)
    if not stall_probs or any(not 0.0 <= float(p) <= 1.0 for p in stall_probs):
        raise ValueError("stall_probs must be a non-empty tuple of probabilities")
    if not isinstance(rng, np.random.Generator):
        raise ValueError("rng must be a numpy Generator")
    m = rng.integers(1, max_subtasks + 1, n_tasks)
    p_st = np.asarray(stall_probs, dtype=float)[rng.integers(0, len(stall_probs), n_tasks)]
    seg_len, task_start, p_el = [], [], []
    for t in range(n_tasks):
        task_start.append(len(seg_len))
        lens = [int(rng.integers(2, 5))] + [int(x) for x in rng.integers(2, 6, int(m[t]))]
        seg_len += lens
        p_el += [p_st[t]] * sum(lens)
    seg_start = np.concatenate([[0], np.cumsum(seg_len)[:-1]])
    n_el = int(np.sum(seg_len))
    sched = Schedule(seg_start, np.asarray(task_start), n_el)
    median = rng.uniform(0.3, 1.5, n_el)
    return ScheduleTasks(sched, median, np.full(n_el, sigma), np.asarray(p_el), m, p_st)
