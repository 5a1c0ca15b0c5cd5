"""Plans as programs: parsing with ``ast``, rendering, nesting depths and the static checker.

Chapter 12 (agent-jit): plan code is calls, assignments of calls and ``for`` loops over a call
(:prf:ref:`agent-jit-def-plan`); :func:`check_plan` is the forward abstract interpretation of
the plan's control-flow graph, exact by :prf:ref:`agent-jit-prop-exact`.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from icml26.agents.jit.tools import INITIAL_STATE, Tool, _manifest

__all__ = [
    "Call",
    "Loop",
    "Plan",
    "Var",
    "Violation",
    "check_plan",
    "nesting_depths",
    "parse_plan",
    "render_plan",
]


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
    body: Plan
    line: int = field(default=0, compare=False)


#: A plan: its top-level statements, each a tool call or a loop over one.
Plan = tuple[Call | Loop, ...]


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


def _parse_block(stmts: list[ast.stmt]) -> Plan:
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


def parse_plan(source: str) -> Plan:
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


def render_plan(plan: Plan, indent: int = 0) -> str:
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


def _plan(plan: object) -> Plan:
    if not isinstance(plan, tuple) or not all(isinstance(n, Call | Loop) for n in plan):
        raise ValueError("plan must be a tuple of Call and Loop nodes")
    return plan


def nesting_depths(plan: Plan) -> list[tuple[str, int]]:
    """``(tool, d(v))`` for every call node of the CFG, in program order (loop sources first)."""
    _plan(plan)

    def walk(block: Plan, d: int) -> list[tuple[str, int]]:
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


def _check_block(block: Plan, state: frozenset, manifest: dict, out: list | None) -> frozenset:
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
    plan: Plan, manifest: dict[str, Tool], initial: frozenset[str] = INITIAL_STATE
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
