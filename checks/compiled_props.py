"""Properties compiled to straight-line Python, and checked in one pass over the explored graph.

The explicit engine used to check each property on its own: a pass over every state (or every
edge) per property, each state decoded again and each predicate interpreted through
:class:`~turnproof.model.ops.ConcreteOps`. Here the predicates are compiled the way the rules
are (``checks/compiled.py``: run once on symbolic states and an operations object that emits
Python source), and every predicate that asks about states (an ``always`` claim, a reachable
target, an antecedent, a region) is answered in one pass over the states, every ``step`` claim
in one pass over the edges, each state decoded once per pass.

A ``step`` predicate is compiled once per rule of the rule set: the rule is a concrete value
when the predicate runs (``r.citation == "MTG 117.3d"`` is folded at compile time), so a claim
about one rule costs nothing on the edges of the others, and the edges of a rule that no claim
constrains are not even decoded. A predicate (or a rule's instance of it) that the tracer cannot
follow is called interpreted, there only; :attr:`Found.fallbacks` says which and why.

The answers are the interpreted ones: the first state (lowest id, so shallowest) that satisfies
a predicate, the first edge (in the order of their sources, so the shallowest) where a step
claim fails. The interpreted functions (``find_state``, ``find_edge``) stay as the oracle; the
tests compare both on every built-in rule set and shipped scenario.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from turnproof.checks.compiled import (
    _CONCRETE,
    EmitOps,
    Emitter,
    NotTraceable,
    Sym,
    _val,
    domain_shape,
    peephole,
    state_typing,
)
from turnproof.model.rules import Model

StatePred = Callable[..., Any]  # pred(s, x, b, m)
StepPred = Callable[..., Any]  # pred(s, t, r, x, b, m)


def _sym_state(em: Emitter, model: Model, shapes: list[Any], prefix: str) -> Any:
    return model.schema.state_cls._make(
        [
            em.structure(f"{prefix}{i}", sh) if sh is not None else Sym(em, f"{prefix}{i}")
            for i, sh in enumerate(shapes)
        ]
    )


def _sym_monitors(em: Emitter, mcls: Any) -> Any:
    if mcls is None:
        return None
    return mcls._make([Sym(em, f"h{i}") for i in range(len(mcls._fields))])


def _unpack(n: int, prefix: str, var: str) -> str:
    return "    " + ", ".join(f"{prefix}{i}" for i in range(n)) + f", = {var}"


@dataclass
class _Module:
    """The source of one generated module, built function by function."""

    consts: dict[str, Any] = field(default_factory=lambda: {"_x": _CONCRETE, "_new": tuple.__new__})
    counter: list[int] = field(default_factory=lambda: [0])
    sources: list[str] = field(default_factory=list)
    fallbacks: list[str] = field(default_factory=list)

    def const(self, name: str, value: Any) -> str:
        self.consts[name] = value
        return name

    def function(self, header: list[str], checks: list[tuple[list[str], Any, int]]) -> bool:
        """Add the function ``header`` begins, which returns the indices whose check is true;
        ``False`` when every check is constantly false (no function is needed). Every check's
        lines are kept, in order: a later check may read a value an earlier one computed (the
        unread ones are dropped)."""
        lines: list[str] = []
        tests: list[str] = []
        for code, value, k in checks:
            lines += code
            if isinstance(value, str):
                lines += [f"    if {value}:", f"        _a({k})"]
                tests.append(value)
            elif value:
                lines.append(f"    _a({k})")
                tests.append("True")
        if not tests:
            return False
        body = header + ["    _r = []", "    _a = _r.append", *lines, "    return _r"]
        self.sources.append("\n".join(peephole(body)))
        return True

    def build(self, label: str) -> dict[str, Any]:
        namespace = dict(self.consts)
        source = "\n\n".join(self.sources) + "\n"
        exec(compile(source, f"<turnproof compiled properties {label}>", "exec"), namespace)  # noqa: S102
        return namespace


class _Tracer:
    """Traces predicates into one function's body: one emitter and one set of symbolic inputs
    for all of them, so that what one predicate computes another reads again for free. After a
    predicate the tracer cannot follow, it starts afresh (what was traced so far stays valid)."""

    def __init__(self, mod: _Module, inputs: Callable[[Emitter], tuple[Any, ...]]) -> None:
        self.mod = mod
        self.inputs = inputs
        self._fresh()

    def _fresh(self) -> None:
        self.em = Emitter(self.mod.consts, self.mod.counter, 1)
        self.args = self.inputs(self.em)
        self.taken = 0

    def trace(self, fn: Callable[..., Any]) -> tuple[list[str], Any]:
        """``fn(em, *inputs)`` traced: the lines it added and its value (a constant, or the
        code of a ``Sym``); :class:`NotTraceable` when the tracer cannot follow it, or it
        guards (a predicate must not: there is no rule instance to disable)."""
        em = self.em
        try:
            v = _val(fn(em, *self.args))
            if isinstance(v, Sym):
                v = em.cond(v)
            new = em.lines[self.taken :]
            if any(ln.strip() == "break" for ln in new):
                raise NotTraceable("a guard inside a predicate")
        except Exception as exc:
            self._fresh()
            if isinstance(exc, NotTraceable):
                raise
            raise NotTraceable(f"{type(exc).__name__}: {exc}") from exc
        self.taken = len(em.lines)
        return new, v


def _edge_tracer(mod: _Module, model: Model, shapes: list[Any], mcls: Any) -> _Tracer:
    """A tracer whose inputs are an edge's two states, the operations and the monitors."""
    return _Tracer(
        mod,
        lambda em: (
            _sym_state(em, model, shapes, "f"),
            _sym_state(em, model, shapes, "g"),
            EmitOps(em),
            _sym_monitors(em, mcls),
        ),
    )


def _shapes(model: Model) -> list[Any]:
    return [domain_shape(d) for d in model.schema.domains.values()]


def _monitor_header(mcls: Any) -> list[str]:
    if mcls is None:
        return []
    return ["    " + ", ".join(f"h{i}" for i in range(len(mcls._fields))) + ", = m"]


def compile_state_checks(
    model: Model, preds: Sequence[tuple[StatePred, bool]], mcls: Any
) -> tuple[Callable[[Any, Any], list[int]] | None, list[str]]:
    """One function ``hits(s, m)``: the indices ``k`` for which ``preds[k]`` holds of ``s``
    (with ``m`` its monitor values), or fails when its flag ``negate`` is set; ``None`` when no
    predicate can ever hit. Also the sentences saying which predicates stay interpreted."""
    mod = _Module()
    b = mod.const("_b", model.bounds)
    shapes = _shapes(model)
    tracer = _Tracer(
        mod, lambda em: (_sym_state(em, model, shapes, "f"), EmitOps(em), _sym_monitors(em, mcls))
    )
    checks: list[tuple[list[str], Any, int]] = []
    for k, (pred, negate) in enumerate(preds):
        try:
            lines, value = tracer.trace(lambda em, s, x, m, pred=pred: pred(s, x, model.bounds, m))
        except NotTraceable as exc:
            fn = mod.const(f"_p{k}", pred)
            ty = mod.const("_typed", state_typing(model.schema))
            lines, value = [], f"({fn}({ty}(s), _x, {b}, m))"
            mod.fallbacks.append(f"{getattr(pred, '__name__', pred)}: {exc}")
        if isinstance(value, str):
            value = f"not ({value})" if negate else f"({value})"
        else:
            value = (not value) if negate else bool(value)
        checks.append((lines, value, k))
    header = ["def hits(s, m):", _unpack(len(shapes), "f", "s"), *_monitor_header(mcls)]
    if not mod.function(header, checks):
        return None, mod.fallbacks
    return mod.build(model.ruleset.name)["hits"], mod.fallbacks


def compile_step_checks(
    model: Model, preds: Sequence[StepPred], mcls: Any
) -> tuple[list[Callable[[Any, Any, Any], list[int]] | None], list[str]]:
    """For each rule instance of ``model`` (by action index), a function ``fails(s, t, m)``:
    the indices ``k`` for which ``preds[k]`` fails on the edge ``s -> t`` it makes (``m``: the
    monitor values of ``s``), or ``None`` when no predicate can fail on its edges. Compiled once
    per rule (the predicates see the rule, not the instance). Also the sentences saying which
    predicates stay interpreted, and for which rule."""
    mod = _Module()
    b = mod.const("_b", model.bounds)
    shapes = _shapes(model)
    typed = state_typing(model.schema)
    names: list[str | None] = []
    rules = model.ruleset.rules
    for n, rule in enumerate(rules):
        rname = mod.const(f"_rule{n}", rule)
        tracer = _edge_tracer(mod, model, shapes, mcls)
        checks: list[tuple[list[str], Any, int]] = []
        for k, pred in enumerate(preds):
            try:
                lines, value = tracer.trace(
                    lambda em, s, t, x, m, pred=pred, rule=rule: pred(
                        s, t, rule, x, model.bounds, m
                    )
                )
            except NotTraceable as exc:
                fn = mod.const(f"_p{k}", pred)
                ty = mod.const("_typed", typed)
                lines, value = [], f"{fn}({ty}(s), {ty}(t), {rname}, _x, {b}, m)"
                mod.fallbacks.append(f"{getattr(pred, '__name__', pred)} on {rule.name}: {exc}")
            checks.append((lines, f"not ({value})" if isinstance(value, str) else not value, k))
        header = [
            f"def fails{n}(s, t, m):",
            _unpack(len(shapes), "f", "s"),
            _unpack(len(shapes), "g", "t"),
            *_monitor_header(mcls),
        ]
        names.append(f"fails{n}" if mod.function(header, checks) else None)
    namespace = mod.build(model.ruleset.name) if any(names) else {}
    index = {id(r): n for n, r in enumerate(rules)}
    by_rule = [namespace[nm] if nm else None for nm in names]
    return [by_rule[index[id(a.rule)]] for a in model.actions], mod.fallbacks


# -- the passes ------------------------------------------------------------------------------


def first_states(
    ex: Any, preds: Sequence[tuple[StatePred, bool]]
) -> tuple[list[int | None], list[str]]:
    """For each ``(pred, negate)``, the first node whose state satisfies ``pred`` (or fails it,
    when ``negate``), or ``None``: one pass over the states."""
    first = _Firsts(len(preds))
    if not preds:
        return first, []
    mcls = type(ex.monitor_values(0)) if ex.monitors and ex.states else None
    hits, fallbacks = compile_state_checks(ex.model, preds, mcls)
    if hits is None:
        return first, fallbacks
    for i, (s, m) in enumerate(_states_as_made(ex)):
        found = hits(s, m)
        if found and not first.note(found, i):
            break
    return first, fallbacks


def _states_as_made(ex: Any) -> Iterator[tuple[Any, Any]]:
    """Each node's state and monitor values, in id order, as the search made them: the
    compiled checks read states by position, so the plain tuples of a fused search are read
    untyped (:class:`~turnproof.checks.explicit.TypedNodes`; a check left interpreted types
    its state itself)."""
    raw = getattr(ex.nodes, "raw", None)
    if raw is None or ex.monitors:
        return ex.iter_states()
    return ((s, None) for s in raw)


def states_where(ex: Any, pred: StatePred) -> tuple[list[int], list[str]]:
    """Every node whose state satisfies ``pred``, in id order: one pass, the predicate
    compiled (a termination check's region). Also the sentences saying whether it stays
    interpreted."""
    mcls = type(ex.monitor_values(0)) if ex.monitors and ex.states else None
    hits, fallbacks = compile_state_checks(ex.model, [(pred, False)], mcls)
    if hits is None:
        return [], fallbacks
    return [i for i, (s, m) in enumerate(_states_as_made(ex)) if hits(s, m)], fallbacks


class _Firsts(list[int | None]):
    """The first hit of each predicate, as hits come in order: :meth:`note` says whether any
    predicate is still without one."""

    def __init__(self, n: int) -> None:
        super().__init__([None] * n)
        self.left = n

    def note(self, found: list[int], at: int) -> bool:
        for k in found:
            if self[k] is None:
                self[k] = at
                self.left -= 1
        return self.left > 0


def first_edges(ex: Any, preds: Sequence[StepPred]) -> tuple[list[int | None], list[str]]:
    """For each step predicate, the first edge (edges are stored in the order of their sources,
    so the one with the shallowest source) where it fails, or ``None``: one pass over the
    edges, each source decoded once, a target only when its rule has a claim to check."""
    first = _Firsts(len(preds))
    if not preds:
        return first, []
    mcls = type(ex.monitor_values(0)) if ex.monitors and ex.states else None
    fns, fallbacks = compile_step_checks(ex.model, preds, mcls)
    if not any(fns):
        return first, fallbacks
    src, dst, act = ex.src, ex.dst, ex.act
    raw = getattr(ex.nodes, "raw", None)
    state = ex.state if raw is None else raw.__getitem__
    sources = _states_as_made(ex)
    at, s, m = -1, None, None
    for e in range(ex.transitions):
        fn = fns[act[e]]
        if fn is None:
            continue
        i = src[e]
        while at < i:
            s, m = next(sources)
            at += 1
        found = fn(s, state(dst[e]), m)
        if found and not first.note(found, e):
            break
    return first, fallbacks


# -- monitors --------------------------------------------------------------------------------


def compile_monitor_updates(
    model: Model, monitors: Sequence[Any], mcls: Any
) -> tuple[list[Callable[[Any, Any, Any], Any]], list[str]]:
    """For each rule instance of ``model`` (by action index), a function ``update(s, t, m)``:
    the monitors' values after the edge ``s -> t`` it makes, from ``m``, their values in ``s``
    (a ``mcls``), as the monitors' ``update`` functions give them; compiled once per rule.
    Also the sentences saying which updates stay interpreted, and for which rule."""
    mod = _Module()
    b = mod.const("_b", model.bounds)
    mk = mod.const("_mk", mcls)
    shapes = _shapes(model)
    names: list[str] = []
    rules = model.ruleset.rules
    for n, rule in enumerate(rules):
        rname = mod.const(f"_rule{n}", rule)
        tracer = _edge_tracer(mod, model, shapes, mcls)
        lines: list[str] = []
        values: list[str] = []
        for k, mon in enumerate(monitors):
            try:
                code, value = tracer.trace(
                    lambda em, s, t, x, m, mon=mon, rule=rule: mon.update(
                        s, t, rule, m, x, model.bounds
                    )
                )
                lines += code
                values.append(value if isinstance(value, str) else tracer.em.code(value))
            except NotTraceable as exc:
                fn = mod.const(f"_u{k}", mon.update)
                values.append(f"{fn}(s, t, {rname}, m, _x, {b})")
                mod.fallbacks.append(f"monitor {mon.name} on {rule.name}: {exc}")
        name = f"update{n}"
        body = [
            f"def {name}(s, t, m):",
            _unpack(len(shapes), "f", "s"),
            _unpack(len(shapes), "g", "t"),
            *_monitor_header(mcls),
            *lines,
            f"    return {mk}({', '.join(values)})",
        ]
        mod.sources.append("\n".join(peephole(body)))
        names.append(name)
    namespace = mod.build(f"{model.ruleset.name} monitors")
    index = {id(r): n for n, r in enumerate(rules)}
    by_rule = [namespace[nm] for nm in names]
    return [by_rule[index[id(a.rule)]] for a in model.actions], mod.fallbacks
