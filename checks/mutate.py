"""Generated mutants of a rule set's rules: what ``turnproof mutate TARGET`` computes.

Mutants are made mechanically from each rule's source, the way mutmut or PIT work on code: the
rule's function (and, for a card's resolution, the card's effect it calls) is parsed with
:mod:`ast`, one mutation is applied, the result is compiled in the function's own module globals
(its closure, if it has one, rebuilt around it) and put in place of the rule
(:class:`~turnproof.model.rules.Replace`), with the rule's citation, kind and parameters
unchanged. The operators (:data:`OPERATORS`):

* ``drop-guard``: an ``x.require(...)`` statement removed (a conjunct of the guard);
* ``drop-conjunct``: one operand of an ``x.And(...)`` inside a require removed;
* ``flip-comparison``: one comparison flipped (``==``/``!=``, ``<``/``>=``, ``<=``/``>``);
* ``swap-player``: the player who acts (``s.prio``, ``s.focus``, ``active(s, b)``) replaced by
  the next player in turn order;
* ``keep-field``: one keyword of a ``.replace(...)`` call dropped (the field keeps its value).

The functions the cards give the core's hooks (a Deathknell's ``dies``, a play effect's
``played``) are mutated the same way, one card's hook at a time (``CARD.HOOK``, such as
``grim-sentinel.dies``), each mutant put in place of that card's contribution
(:class:`~turnproof.model.rules.ReplaceHook`). Clause keyword defaults and the decorator (its
``when`` guard) are left alone. Each mutant is
checked by the explicit engine at the given bounds against the property suite (:func:`run`):

* ``equivalent``: its reachable state graph is the base's (the same states, and the same
  edges: source, target and rule instance), so no property can tell them apart; when its rule
  never fires on the base within the bounds, its reason says so (:data:`DORMANT`): it is
  equivalent there only, and larger bounds may tell it apart;
* ``killed``: some property's outcome that passed on the base fails (the kill matrix names
  them), or a rule leaves a field's domain (the engine's own check, ``domain-check``);
* ``survived``: the graph changed and every property still passes: a hole, shown with a trace
  of the changed behaviour (:func:`changed_behaviour`);
* ``invalid``: the mutated source does not compile, or raises a Python error (not a rule's
  ``require``) in a reachable state: it is no rule at all.
"""

from __future__ import annotations

import ast
import copy
import inspect
import textwrap
import time
import tomllib
import types
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from functools import partial
from importlib import resources
from typing import Any

from turnproof.checks import explicit
from turnproof.checks.diff import side_by_side
from turnproof.checks.results import (
    DOMAIN_CHECK,
    DORMANT,
    OPERATORS,
    Changed,
    CheckReport,
    Generated,
    MutantResult,
    MutationReport,
    Outcome,
)
from turnproof.checks.runner import Selection
from turnproof.model.errors import ModelError, TurnproofError
from turnproof.model.rules import Model, Replace, ReplaceHook, Rule, RuleSet

#: The state fields that name the player who acts.
PLAYER_FIELDS = ("prio", "focus")

#: The functions whose value is the player who acts.
PLAYER_CALLS = ("active",)

_FLIP: dict[type[ast.cmpop], type[ast.cmpop]] = {
    ast.Eq: ast.NotEq,
    ast.NotEq: ast.Eq,
    ast.Lt: ast.GtE,
    ast.GtE: ast.Lt,
    ast.LtE: ast.Gt,
    ast.Gt: ast.LtE,
}
_OP_TEXT = {ast.Eq: "==", ast.NotEq: "!=", ast.Lt: "<", ast.GtE: ">=", ast.LtE: "<=", ast.Gt: ">"}


# -- finding the code of a rule ------------------------------------------------------------------


def _unwrap(fn: Any) -> tuple[Any, list[partial[Any]]]:
    """The plain function under ``fn``'s partials, and the partials, outermost first."""
    layers = []
    while isinstance(fn, partial):
        layers.append(fn)
        fn = fn.func
    return fn, layers


def _rewrap(fn: Any, layers: Sequence[partial[Any]]) -> Any:
    for layer in reversed(layers):
        fn = partial(fn, *layer.args, **layer.keywords)
    return fn


def _is_model_function(value: Any) -> bool:
    return isinstance(value, types.FunctionType) and value.__module__.startswith("turnproof.model")


@dataclass(frozen=True)
class Target:
    """A function a rule runs that mutants are made of: the rule's own, or (``cell``) a
    function its closure holds, such as the card's effect that a resolution rule calls."""

    fn: types.FunctionType
    cell: str = ""  # the closure variable that holds it; empty for the rule's own function

    @property
    def label(self) -> str:
        return self.fn.__qualname__ if not self.cell else f"{self.cell}={self.fn.__qualname__}"


def targets(r: Rule) -> list[Target]:
    base, _ = _unwrap(r.fn)
    if not isinstance(base, types.FunctionType):
        return []
    out = [Target(base)]
    for name, cell in zip(base.__code__.co_freevars, base.__closure__ or ()):
        try:
            value = cell.cell_contents
        except ValueError:
            continue
        if _is_model_function(value):
            out.append(Target(value, name))
    return out


def _source_tree(fn: types.FunctionType) -> tuple[ast.Module, int]:
    """``fn``'s definition parsed, its decorators removed, and the line it starts on."""
    lines, start = inspect.getsourcelines(fn)
    tree = ast.parse(textwrap.dedent("".join(lines)))
    node = tree.body[0]
    if not isinstance(node, ast.FunctionDef):
        raise TurnproofError(f"{fn.__qualname__}: not a function definition")
    node.decorator_list = []
    return tree, start


# -- the mutation sites --------------------------------------------------------------------------


def _is_x_call(node: ast.AST, attr: str) -> bool:
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == attr
        and isinstance(node.func.value, ast.Name)
        and node.func.value.id == "x"
    )


def _body_nodes(tree: ast.Module) -> list[ast.AST]:
    """The nodes of the function's body (not its signature: clause defaults stay), in a fixed
    order (``ast.walk`` of each statement)."""
    fn = tree.body[0]
    assert isinstance(fn, ast.FunctionDef)
    out: list[ast.AST] = []
    for stmt in fn.body:
        out.extend(ast.walk(stmt))
    return out


def _in_requires(tree: ast.Module) -> set[int]:
    """The ids of the nodes inside an ``x.require(...)`` call."""
    found: set[int] = set()
    for node in _body_nodes(tree):
        if _is_x_call(node, "require"):
            found.update(id(n) for n in ast.walk(node))
    return found


@dataclass(frozen=True)
class Site:
    operator: str
    node: int  # the node's index in _body_nodes
    arg: int  # which operand, keyword or comparison operator
    what: str  # the change, as source text
    line: int  # relative to the function's first line (1-based)


def sites(
    tree: ast.Module, arg_names: Sequence[str], players: str | None = "b.players"
) -> list[Site]:
    """Every single mutation of the function in ``tree``, operator by operator. ``players``
    is the source of the number of players (``None``: the player who acts is not swapped)."""
    nodes = _body_nodes(tree)
    guarded = _in_requires(tree)
    state, bounds = (arg_names[0], arg_names[2]) if len(arg_names) >= 3 else ("s", "b")
    players = None if players is None else players.replace("b.", f"{bounds}.", 1)
    out: list[Site] = []

    def add(op: str, i: int, arg: int, what: str) -> None:
        out.append(Site(op, i, arg, what, getattr(nodes[i], "lineno", 0)))

    for i, n in enumerate(nodes):
        if isinstance(n, ast.Expr) and _is_x_call(n.value, "require"):
            add("drop-guard", i, 0, f"removed {ast.unparse(n)}")
    for i, n in enumerate(nodes):
        if _is_x_call(n, "And") and id(n) in guarded and isinstance(n, ast.Call):
            plain = [k for k, a in enumerate(n.args) if not isinstance(a, ast.Starred)]
            if len(n.args) >= 2:
                for k in plain:
                    add("drop-conjunct", i, k, f"removed {ast.unparse(n.args[k])} from x.And")
    for i, n in enumerate(nodes):
        if isinstance(n, ast.Compare):
            for k, op in enumerate(n.ops):
                if type(op) in _FLIP:
                    new = _OP_TEXT[_FLIP[type(op)]]
                    add("flip-comparison", i, k, f"{ast.unparse(n)}: {_OP_TEXT[type(op)]} -> {new}")
    for i, n in enumerate(nodes if players is not None else ()):
        if (
            isinstance(n, ast.Attribute)
            and isinstance(n.ctx, ast.Load)
            and n.attr in PLAYER_FIELDS
            and isinstance(n.value, ast.Name)
            and n.value.id == state
        ):
            add("swap-player", i, 0, f"{ast.unparse(n)} -> ({ast.unparse(n)} + 1) % {players}")
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in PLAYER_CALLS:
            add("swap-player", i, 0, f"{ast.unparse(n)} -> ({ast.unparse(n)} + 1) % {players}")
    for i, n in enumerate(nodes):
        if (
            isinstance(n, ast.Call)
            and isinstance(n.func, ast.Attribute)
            and n.func.attr == "replace"
        ):
            for k, kw in enumerate(n.keywords):
                if kw.arg is not None:
                    add("keep-field", i, k, f"{ast.unparse(n.func)}(...) leaves {kw.arg} alone")
    order = {op: k for k, op in enumerate(OPERATORS)}
    return sorted(out, key=lambda s: (order[s.operator], s.node, s.arg))


class _Swap(ast.NodeTransformer):
    """Replaces one node (by identity) with the next player after it."""

    def __init__(self, target: ast.AST, players: str) -> None:
        self.target, self.players = target, players

    def visit(self, node: ast.AST) -> Any:
        if node is self.target:
            players = ast.parse(self.players, mode="eval").body
            assert isinstance(node, ast.expr)
            plus = ast.BinOp(node, ast.Add(), ast.Constant(1))
            return ast.BinOp(plus, ast.Mod(), players)
        return self.generic_visit(node)


class _DropStatement(ast.NodeTransformer):
    def __init__(self, target: ast.AST) -> None:
        self.target = target

    def visit(self, node: ast.AST) -> Any:
        if node is self.target:
            return ast.Pass()
        return self.generic_visit(node)


def apply(
    tree: ast.Module, site: Site, arg_names: Sequence[str], players: str = "b.players"
) -> ast.Module:
    """A copy of ``tree`` with ``site``'s mutation applied."""
    tree = copy.deepcopy(tree)
    node = _body_nodes(tree)[site.node]
    bounds = arg_names[2] if len(arg_names) >= 3 else "b"
    players = players.replace("b.", f"{bounds}.", 1)
    if site.operator == "drop-guard":
        tree = _DropStatement(node).visit(tree)
    elif site.operator == "drop-conjunct":
        assert isinstance(node, ast.Call)
        del node.args[site.arg]
    elif site.operator == "flip-comparison":
        assert isinstance(node, ast.Compare)
        node.ops[site.arg] = _FLIP[type(node.ops[site.arg])]()
    elif site.operator == "swap-player":
        tree = _Swap(node, players).visit(tree)
    elif site.operator == "keep-field":
        assert isinstance(node, ast.Call)
        del node.keywords[site.arg]
    return ast.fix_missing_locations(tree)


def compile_function(tree: ast.Module, original: types.FunctionType) -> types.FunctionType:
    """The function in ``tree`` compiled in ``original``'s module globals, with ``original``'s
    closure values, defaults and keyword defaults."""
    fn_node = tree.body[0]
    assert isinstance(fn_node, ast.FunctionDef)
    name = fn_node.name
    free = original.__code__.co_freevars
    namespace: dict[str, Any] = {}
    if free:  # rebuild the closure: an outer function takes the free variables
        outer = ast.FunctionDef(
            name="__turnproof_mutant_outer",
            args=ast.arguments(
                posonlyargs=[],
                args=[ast.arg(v) for v in free],
                kwonlyargs=[],
                kw_defaults=[],
                defaults=[],
            ),
            body=[fn_node, ast.Return(ast.Name(name, ast.Load()))],
            decorator_list=[],
        )
        module = ast.fix_missing_locations(ast.Module([outer], []))
        code = compile(module, f"<mutant of {original.__qualname__}>", "exec")
        exec(code, original.__globals__, namespace)  # noqa: S102 - the project's own source
        cells = [c.cell_contents for c in original.__closure__ or ()]
        made = namespace["__turnproof_mutant_outer"](*cells)
    else:
        code = compile(tree, f"<mutant of {original.__qualname__}>", "exec")
        exec(code, original.__globals__, namespace)  # noqa: S102 - the project's own source
        made = namespace[name]
    made.__defaults__ = original.__defaults__
    made.__kwdefaults__ = original.__kwdefaults__
    made.__qualname__ = original.__qualname__
    return made


def _with_cell(base: types.FunctionType, cell: str, value: Any) -> types.FunctionType:
    """``base`` with its closure variable ``cell`` holding ``value``."""
    free = base.__code__.co_freevars
    cells = tuple(
        types.CellType(value) if n == cell else c
        for n, c in zip(free, base.__closure__ or (), strict=True)
    )
    fn = types.FunctionType(
        base.__code__, base.__globals__, base.__name__, base.__defaults__, cells
    )
    fn.__kwdefaults__ = base.__kwdefaults__
    fn.__qualname__ = base.__qualname__
    return fn


# -- the mutants ---------------------------------------------------------------------------------


def players_source(ruleset: RuleSet) -> str | None:
    """How a mutated rule counts the players: the bound ``players``, or, for a rule set with
    a fixed number of them, the number of values its player field takes at the default bounds;
    ``None`` when it has neither."""
    if any(spec.name == "players" for spec in ruleset.bound_specs):
        return "b.players"
    schema = Model(ruleset).schema
    for f in PLAYER_FIELDS:
        domain = schema.domains.get(f)
        if domain is not None and hasattr(domain, "values"):
            return str(len(list(domain.values())))
    return None


def hook_names(ruleset: RuleSet) -> list[str]:
    """The cards' hooks that mutants are made of, as ``CARD.HOOK`` (the card's key), in card
    order, then in the order the card declares them."""
    if ruleset.setup is None:
        return []
    return [f"{c.key}.{hook}" for c in ruleset.setup.cards for hook in c.pack.hooks]


def _hook_mutants(ruleset: RuleSet, names: Sequence[str], players: str | None) -> list[Generated]:
    """The mutants of the cards' hook functions named (``CARD.HOOK``; every one when ``names``
    is empty): each one mutation of the function, put in place of the card's contribution to
    the hook (:class:`~turnproof.model.rules.ReplaceHook`)."""
    out: list[Generated] = []
    setup = ruleset.setup
    for name in hook_names(ruleset):
        if names and name not in names:
            continue
        key, hook = name.split(".", 1)
        assert setup is not None
        card = setup.card(key)
        fn, _ = _unwrap(card.pack.hooks[hook])
        if not isinstance(fn, types.FunctionType):
            continue
        try:
            tree, start = _source_tree(fn)
        except (OSError, TypeError, SyntaxError, TurnproofError):
            continue
        arg_names = [a.arg for a in tree.body[0].args.args]  # type: ignore[attr-defined]
        counters: dict[str, int] = {}
        for site in sites(tree, arg_names, players):
            n = counters[site.operator] = counters.get(site.operator, 0) + 1
            common: dict[str, Any] = dict(
                id=f"{name}:{site.operator}:{n}",
                rule=name,
                citation=f"{card.name}'s {hook} hook",
                card=card.name,
                operator=site.operator,
                target=fn.__qualname__,
                module=fn.__module__,
                line=start + site.line - 1,
                what=site.what,
            )
            try:
                mutated = compile_function(apply(tree, site, arg_names, players or ""), fn)
            except Exception as exc:  # noqa: BLE001 - any failure makes the mutant invalid
                out.append(Generated(**common, error=f"does not compile: {exc}"))
                continue
            change = ReplaceHook(card.key, hook, mutated, f"MUTANT: {site.what}")
            out.append(Generated(**common, amendment=change))
    return out


def generate(ruleset: RuleSet, rules: Sequence[str] = ()) -> list[Generated]:
    """Every generated mutant of ``ruleset``'s rules and of its cards' hooks (only those named
    in ``rules``, if any: a rule by its name, a hook as ``CARD.HOOK``), in rule order, then
    operator order, then source order; the hooks' after the rules'."""
    out: list[Generated] = []
    chosen = [r for r in ruleset.rules if not rules or r.name in rules]
    players = players_source(ruleset)
    hooks = [n for n in rules if n in hook_names(ruleset)]
    for r in chosen:
        base, layers = _unwrap(r.fn)
        counters: dict[str, int] = {}
        for t in targets(r):
            try:
                tree, start = _source_tree(t.fn)
            except (OSError, TypeError, SyntaxError, TurnproofError):
                continue
            arg_names = [a.arg for a in tree.body[0].args.args]  # type: ignore[attr-defined]
            for site in sites(tree, arg_names, players):
                n = counters[site.operator] = counters.get(site.operator, 0) + 1
                gid = f"{r.name}:{site.operator}:{n}"
                common: dict[str, Any] = dict(
                    id=gid,
                    rule=r.name,
                    citation=r.citation,
                    card=r.card,
                    operator=site.operator,
                    target=t.label,
                    module=t.fn.__module__,
                    line=start + site.line - 1,
                    what=site.what,
                )
                try:
                    fn = compile_function(apply(tree, site, arg_names, players or ""), t.fn)
                except Exception as exc:  # noqa: BLE001 - any failure makes the mutant invalid
                    out.append(Generated(**common, error=f"does not compile: {exc}"))
                    continue
                new_base = fn if not t.cell else _with_cell(base, t.cell, fn)
                mutated = replace(r, fn=_rewrap(new_base, layers), summary=f"MUTANT: {site.what}")
                out.append(Generated(**common, mutated=mutated))
    if not rules or hooks:
        out += _hook_mutants(ruleset, hooks, players)
    return out


# -- running them --------------------------------------------------------------------------------


def _edges(ex: explicit.Exploration) -> set[tuple[Any, Any, int]]:
    return {(ex.state(s), ex.state(d), a) for s, d, a in zip(ex.src, ex.dst, ex.act)}


def changed_behaviour(base: explicit.Exploration, mut: explicit.Exploration) -> Changed | None:
    """The shortest evidence that the two graphs differ (see :class:`Changed`)."""
    candidates: list[
        tuple[int, int, str, explicit.Exploration, explicit.Exploration, int, str]
    ] = []
    for side, own, other in (("mutant", mut, base), ("base", base, mut)):
        theirs = {s for s, _ in other.iter_states()}
        for i, (s, _) in enumerate(own.iter_states()):  # ids grow with depth: shallowest first
            if s not in theirs:
                candidates.append((own.depth(i), 0, side, own, other, i, ""))
                break
    if not candidates:
        eb, em = _edges(base), _edges(mut)
        for side, own, other, have, lack in (
            ("mutant", mut, base, em, eb),
            ("base", base, mut, eb, em),
        ):
            diff = have - lack
            if not diff:
                continue
            index = {s: k for k, (s, _) in enumerate(own.iter_states())}
            best = None
            for s, _, a in diff:
                i = index[s]
                key = (own.depth(i), a, i)
                if best is None or key < best:
                    best = key
            assert best is not None
            depth, a, i = best
            candidates.append((depth, 1, side, own, other, i, own.model.actions[a].label))
    if not candidates:
        return None
    _, _, side, own, other, i, rule = min(candidates, key=lambda c: (c[0], c[1], c[2] != "mutant"))
    trace = explicit.trace_to(own, i)
    # The diff's sides are base and amended: the mutant is the amended rule set.
    rows, at = side_by_side(trace, own.model, other.model, "amended" if side == "mutant" else side)
    return Changed(side, trace, rows, at, rule)


def _check(
    model: Model,
    props: Sequence[Any],
    plain: explicit.Exploration,
    limits: explicit.Limits | None,
) -> dict[str, Outcome]:
    """The properties' outcomes on ``model``, reusing its plain exploration ``plain`` for the
    properties without monitors (as :func:`explicit.check_properties` groups them)."""
    by_name: dict[str, Any] = {}
    for p in props:
        for mon in p.monitors:
            by_name.setdefault(mon.name, mon)
    product = tuple(by_name[n] for n in sorted(by_name))
    without = [p for p in props if not p.monitors]
    results = {r.name: r for r in explicit.check_all(plain, without)}
    with_monitors = [p for p in props if p.monitors]
    if with_monitors:
        ex = explicit.explore(model, product, limits)
        results.update((r.name, r) for r in explicit.check_all(ex, with_monitors))
    ordered = [results[p.name] for p in props]
    return CheckReport(model.describe(), dict(model.bounds), ordered, ["explicit"]).outcomes()


def run(
    selection: Selection,
    bounds: dict[str, int] | None = None,
    *,
    rules: Sequence[str] = (),
    limits: explicit.Limits | None = None,
    explained: dict[str, str] | None = None,
    on_mutant: Callable[[int, int, str], None] | None = None,
    mutants: Sequence[Generated] | None = None,
    on_result: Callable[[MutantResult], None] | None = None,
) -> MutationReport:
    """Generate the mutants of ``selection``'s rule set and check each one (the module doc)."""
    started = time.perf_counter()
    base_model = selection.model
    values = {**dict(base_model.bounds), **(bounds or {})}
    ruleset = base_model.ruleset
    model = Model(ruleset, values)
    props = list(selection.properties)
    base_ex = explicit.explore(model, (), limits)
    reference = _check(model, props, base_ex, limits)
    base_states = {s for s, _ in base_ex.iter_states()}
    base_edges = _edges(base_ex)
    dormant = frozenset(n for n, k in explicit.rule_coverage(base_ex).items() if k == 0)
    todo = list(mutants) if mutants is not None else generate(ruleset, rules)
    notes = explained or {}
    out: list[MutantResult] = []
    for n, g in enumerate(todo):
        if on_mutant is not None:
            on_mutant(n, len(todo), g.id)
        result = _one(
            g,
            ruleset,
            values,
            props,
            limits,
            reference,
            base_ex,
            base_states,
            base_edges,
            notes,
            dormant,
        )
        out.append(result)
        if on_result is not None:
            on_result(result)
    return MutationReport(
        ruleset=model.describe(),
        bounds=dict(model.bounds),
        properties=tuple(p.name for p in props),
        reference={k: v.value for k, v in reference.items()},
        base_states=base_ex.states,
        base_transitions=base_ex.transitions,
        results=tuple(out),
        seconds=time.perf_counter() - started,
    )


def _one(
    g: Generated,
    ruleset: RuleSet,
    values: dict[str, int],
    props: Sequence[Any],
    limits: explicit.Limits | None,
    reference: dict[str, Outcome],
    base_ex: explicit.Exploration,
    base_states: set[Any],
    base_edges: set[tuple[Any, Any, int]],
    notes: dict[str, str],
    dormant: frozenset[str],
) -> MutantResult:
    t0 = time.perf_counter()

    def done(status: str, **kw: Any) -> MutantResult:
        return MutantResult(g, status, seconds=time.perf_counter() - t0, **kw)

    if g.mutated is None and g.amendment is None:
        return done("invalid", reason=g.error)
    change = g.amendment if g.amendment is not None else Replace(g.rule, g.mutated)
    model = Model(ruleset.amend(change), values)
    try:
        ex = explicit.explore(model, (), limits)
    except ModelError as exc:
        return done("killed", killed_by=(DOMAIN_CHECK,), reason=str(exc))
    except TurnproofError as exc:
        return done("invalid", reason=str(exc))
    except Exception as exc:  # noqa: BLE001 - a mutant that raises is no rule at all
        return done("invalid", reason=f"raises {type(exc).__name__}: {exc}")
    size = {"states": ex.states, "transitions": ex.transitions}
    same = (
        ex.complete
        and base_ex.complete
        and ex.states == base_ex.states
        and ex.transitions == base_ex.transitions
        and {s for s, _ in ex.iter_states()} == base_states
        and _edges(ex) == base_edges
    )
    if same:
        return done("equivalent", reason=DORMANT if g.rule in dormant else "", **size)
    try:
        got = _check(model, props, ex, limits)
    except ModelError as exc:
        return done("killed", killed_by=(DOMAIN_CHECK,), reason=str(exc), **size)
    except Exception as exc:  # noqa: BLE001
        return done("invalid", reason=f"raises {type(exc).__name__}: {exc}", **size)
    killed = tuple(
        p for p, o in got.items() if reference.get(p) is Outcome.PASSED and o is not Outcome.PASSED
    )
    if killed:
        return done("killed", killed_by=killed, **size)
    return done(
        "survived",
        changed=changed_behaviour(base_ex, ex),
        explained=notes.get(g.id, ""),
        **size,
    )


def explained_survivors(ruleset_name: str) -> dict[str, str]:
    """The survivors of ``ruleset_name`` that are no bug, each with why (mutant id -> reason),
    from ``checks/survivors/NAME.toml`` (``[[survivor]]`` tables: ``id``, ``why``); empty when
    the rule set has no such file."""
    path = resources.files("turnproof.checks") / "survivors" / f"{ruleset_name}.toml"
    if not path.is_file():
        return {}
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    return {str(e["id"]): " ".join(str(e["why"]).split()) for e in data.get("survivor", [])}


def iter_matrix(report: MutationReport) -> Iterator[tuple[MutantResult, dict[str, bool]]]:
    """Each killed mutant with the properties that kill it (the kill matrix's rows)."""
    columns = (*report.properties, DOMAIN_CHECK)
    for r in report.results:
        if r.status == "killed":
            yield r, {p: p in r.killed_by for p in columns}
