"""Compare two rule sets: what ``turnproof diff BASE AMENDED`` computes.

:func:`compare` runs the properties on both selections (the explicit engine, and the symbolic
one when asked), and returns a :class:`~turnproof.checks.results.RuleChange`:

* each property's outcome on both sides, ``worse`` when it met its expectation on the base and
  no longer does (the exit code 1), ``better``, ``same``;
* each behaviour gained or lost (a property newly violated or witnessed, or no longer): the
  shortest trace, replayed on both rule sets, with the first step where the other side differs:
  its rule instance is not enabled there, or it leads to another state (:func:`side_by_side`);
* the two explorations compared (:class:`~turnproof.checks.results.Reachability`): states
  reachable in one and not the other, over the fields both schemas share, and the rules that
  fire in one only.

:func:`load_bearing` finds the rules the verdicts rest on, by mutation: each rule of the base
removed in turn, and each of its keyword clauses altered to each other value it takes
(:func:`turnproof.model.clauses.clauses_of`), each checked by the explicit engine at small
bounds; a property depends on a rule when its outcome flips. Nothing is cached.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from turnproof.checks import explicit
from turnproof.checks.explicit import Limits, Progress
from turnproof.checks.results import (
    Behaviour,
    CheckReport,
    LoadBearing,
    Mutation,
    Outcome,
    PropertyResult,
    Reachability,
    ReplayRow,
    RuleChange,
    Trace,
    Verdict,
    VerdictChange,
)
from turnproof.checks.runner import Selection, run_selection
from turnproof.checks.simulate import enabled
from turnproof.model.clauses import clauses_of
from turnproof.model.errors import TurnproofError
from turnproof.model.rules import Amendment, Derive, Model, Remove, RuleSet
from turnproof.model.schema import State

_TRACED = (Verdict.VIOLATED, Verdict.WITNESSED)


@dataclass
class _Side:
    selection: Selection
    report: CheckReport | None = None
    states: set[State] | None = None
    complete: bool = True
    exploration: explicit.Exploration | None = None


def _verdicts(report: CheckReport, name: str) -> tuple[tuple[str, str], ...]:
    return tuple(
        (
            r.engine,
            "engines disagree"
            if r.kind == "engines-agree"
            else r.verdict.value
            + (", vacuous" if r.vacuous else "")
            + (", vacuity undecided" if r.vacuity_undecided else ""),
        )
        for r in report.results
        if r.name == name
    )


def verdict_changes(base: CheckReport, amended: CheckReport) -> tuple[VerdictChange, ...]:
    """Each property's outcome on both sides (the properties of the base first)."""
    ob, oa = base.outcomes(), amended.outcomes()
    expect = {r.name: r.expect for r in base.results + amended.results if r.kind != "engines-agree"}
    out = []
    for name in dict.fromkeys(list(ob) + list(oa)):
        b, a = ob.get(name), oa.get(name)
        if b is None or a is None:
            change = "only in base" if a is None else "only in amended"
        elif b is a:
            change = "same"
        elif Outcome.UNKNOWN in (a, b):
            change = "worse" if b is Outcome.PASSED and a is Outcome.FAILED else "unknown"
        elif b is Outcome.PASSED:
            change = "worse"
        else:
            change = "better"
        out.append(
            VerdictChange(
                name=name,
                change=change,
                base=b.value if b is not None else "",
                amended=a.value if a is not None else "",
                expect=expect.get(name, ""),
                base_verdicts=_verdicts(base, name),
                amended_verdicts=_verdicts(amended, name),
            )
        )
    return tuple(out)


# -- states over shared fields ----------------------------------------------------------------


def _projector(
    own: Model, other: Model
) -> tuple[Callable[[State], Any], tuple[str, ...], tuple[str, ...]]:
    """A function from a state of ``own`` to a value comparable with the same function for
    ``other`` (the fields both share), the fields compared, and the fields left out."""
    a, b = own.schema, other.schema
    shared = tuple(f for f in a.fields if f in b.fields)
    ignored = tuple(f for f in a.fields + b.fields if f not in shared)
    same = a.fields == b.fields and all(repr(a.domains[f]) == repr(b.domains[f]) for f in shared)
    if same:
        return (lambda s: s), shared, ignored
    index = [a.fields.index(f) for f in shared]
    domains = [a.domains[f] for f in shared]

    def project(s: State) -> Any:
        return json.dumps([d.describe(s[i]) for i, d in zip(index, domains)])

    return project, shared, ignored


def _described(model: Model, state: State, fields: Sequence[str]) -> dict[str, Any]:
    full = model.schema.describe_value(state)
    return {f: full[f] for f in fields if f in full}


# -- replaying a trace on both sides -------------------------------------------------------------


def _rule_note(own: RuleSet, other: RuleSet, name: str, found_in: str) -> str:
    """How the rule ``name`` differs between the two rule sets, if it does."""
    sides = {found_in: own, ("amended" if found_in == "base" else "base"): other}
    rules = {side: [r for r in rs.rules if r.name == name] for side, rs in sides.items()}
    missing = [side for side, found in rules.items() if not found]
    if missing:
        return f"the {missing[0]} rule set has no rule {name}"
    b, a = rules["base"][0], rules["amended"][0]
    if b.clauses == a.clauses and b.summary == a.summary:
        return ""

    def shown(r: Any) -> str:
        return ", ".join(f"{k}={v!r}" for k, v in r.clauses) or "as written"

    return f"{name} differs: base {shown(b)} ({b.summary}); amended {shown(a)} ({a.summary})"


def side_by_side(
    trace: Trace, own: Model, other: Model, found_in: str
) -> tuple[tuple[ReplayRow, ...], int | None]:
    """The steps of ``trace`` (found on ``own``, the ``found_in`` side) replayed on ``other``,
    and the first step where ``other`` diverges (0 when no initial state of it is the trace's;
    ``None`` when it follows the whole trace)."""
    _, shared, _ = _projector(own, other)
    want = {k: v for k, v in trace.initial.items() if k in shared}
    starts = [s for s in other.initial_states() if _described(other, s, shared) == want]
    at: int | None = None if starts else 0
    current = starts[0] if starts else None
    rows = []
    full = dict(trace.initial)
    for k, step in enumerate(trace.steps, start=1):
        full = {**full, **{f: new for f, (_, new) in step.changed.items()}}
        goal = {f: v for f, v in full.items() if f in shared}
        if current is None:
            rows.append(ReplayRow(k, step, ""))
            continue
        succ = enabled(other, current)
        same_rule = [t for a, t in succ if a.label == step.name]
        matching = [t for t in same_rule if _described(other, t, shared) == goal]
        if matching:
            current = matching[0]
            rows.append(ReplayRow(k, step, "same"))
            continue
        at, current = k, None
        note = _rule_note(own.ruleset, other.ruleset, step.name.split("(")[0], found_in)
        if not same_rule:
            rows.append(
                ReplayRow(k, step, "not enabled", tuple(a.label for a, _ in succ), note=note)
            )
            continue
        got = _described(other, same_rule[0], shared)
        differences = tuple((f, v, got.get(f)) for f, v in goal.items() if got.get(f) != v)
        rows.append(ReplayRow(k, step, "different", differences=differences, note=note))
    return tuple(rows), at


def _traced(report: CheckReport, name: str) -> PropertyResult | None:
    """The result of ``name`` with a trace (violation or witness), the explicit engine's
    first (its traces are shortest)."""
    found = [
        r
        for r in report.results
        if r.name == name
        and r.kind != "engines-agree"
        and r.trace is not None
        and r.verdict in _TRACED
    ]
    found.sort(key=lambda r: r.engine != "explicit")
    return found[0] if found else None


def behaviours(base: _Side, amended: _Side) -> tuple[Behaviour, ...]:
    assert base.report is not None and amended.report is not None
    names = [n for n in base.report.outcomes() if n in amended.report.outcomes()]
    out = []
    for name in names:
        b, a = _traced(base.report, name), _traced(amended.report, name)
        if (b is None) == (a is None):
            continue
        r, side = (a, "amended") if a is not None else (b, "base")
        assert r is not None and r.trace is not None
        what = "violated" if r.verdict is Verdict.VIOLATED else "witnessed"
        what = ("newly " if side == "amended" else "no longer ") + what
        own, other = (amended, base) if side == "amended" else (base, amended)
        rows, at = side_by_side(r.trace, own.selection.model, other.selection.model, side)
        out.append(Behaviour(name, r.engine, what, side, r.trace, rows, at))
    return tuple(out)


#: How many states that became reachable (and unreachable) the report shows with a trace.
EXAMPLES = 3


def _examples(side: _Side, project: Callable[[State], Any], other: set[Any]) -> tuple[Trace, ...]:
    """The shortest traces to the first :data:`EXAMPLES` states of ``side``'s exploration (in
    breadth-first order: the shallowest) whose projection ``other`` lacks."""
    ex = side.exploration
    if ex is None:
        return ()
    found: list[Trace] = []
    for i, (s, _) in enumerate(ex.iter_states()):
        if project(s) not in other:
            found.append(explicit.trace_to(ex, i))
            if len(found) == EXAMPLES:
                break
    return tuple(found)


def reachability(base: _Side, amended: _Side) -> Reachability | None:
    if base.states is None or amended.states is None:
        return None
    mb, ma = base.selection.model, amended.selection.model
    pb, shared, ignored = _projector(mb, ma)
    pa, _, _ = _projector(ma, mb)
    sb = {pb(s) for s in base.states}
    sa = {pa(s) for s in amended.states}
    cb = base.report.coverage if base.report else {}
    ca = amended.report.coverage if amended.report else {}
    cite_b = {r.name: r.citation for r in mb.ruleset.rules}
    cite_a = {r.name: r.citation for r in ma.ruleset.rules}
    return Reachability(
        gained=_examples(amended, pa, sb),
        lost=_examples(base, pb, sa),
        base_states=len(base.states),
        amended_states=len(amended.states),
        only_base=len(sb - sa),
        only_amended=len(sa - sb),
        compared_fields=shared,
        ignored_fields=ignored,
        complete=base.complete and amended.complete,
        rules_only_base=tuple(
            (n, cite_b.get(n, ""), c) for n, c in cb.items() if c > 0 and ca.get(n, 0) == 0
        ),
        rules_only_amended=tuple(
            (n, cite_a.get(n, ""), c) for n, c in ca.items() if c > 0 and cb.get(n, 0) == 0
        ),
    )


def _label(selection: Selection) -> str:
    d = selection.model.describe()
    return f"{d['name']} {d['version']}"


def compare(
    base: Selection,
    amended: Selection,
    engines: Sequence[str] = ("explicit",),
    limits: Limits | None = None,
    progress: Progress | None = None,
    *,
    amendments: Sequence[str] = (),
    labels: tuple[str, str] | None = None,
    on_side: Callable[[str], None] | None = None,
) -> RuleChange:
    """Run ``engines`` on both selections and compare them (see the module doc)."""
    sides = {"base": _Side(base), "amended": _Side(amended)}
    for name, side in sides.items():
        if on_side is not None:
            on_side(name)

        def keep(ex: explicit.Exploration, side: _Side = side) -> None:
            side.states = {s for s, _ in ex.iter_states()}
            side.complete = ex.complete
            side.exploration = ex

        side.report = run_selection(side.selection, engines, limits, progress, on_exploration=keep)
    b, a = sides["base"], sides["amended"]
    assert b.report is not None and a.report is not None
    shown = labels or (_label(base), _label(amended))
    return RuleChange(
        base=b.report,
        amended=a.report,
        base_label=shown[0],
        amended_label=shown[1],
        amendments=tuple(amendments),
        changes=verdict_changes(b.report, a.report),
        behaviours=behaviours(b, a),
        reach=reachability(b, a),
    )


# -- load-bearing rules ---------------------------------------------------------------------------


def mutations_of(ruleset: RuleSet) -> list[tuple[str, str, str, Amendment]]:
    """(rule, citation, how, amendment) for every rule removed, and every other value of each
    of its keyword clauses."""
    out: list[tuple[str, str, str, Amendment]] = []
    for r in ruleset.rules:
        out.append((r.name, r.citation, "removed", Remove(r.name)))
        for c in clauses_of(r):
            for alt in c.alternatives():
                how = f"altered: {c.name}={alt!r}"
                out.append(
                    (
                        r.name,
                        r.citation,
                        how,
                        Derive(r.name, f"LOAD-BEARING: {how}", ((c.name, alt),)),
                    )
                )
    return out


def load_bearing(
    selection: Selection,
    bounds: dict[str, int] | None = None,
    limits: Limits | None = None,
    on_mutation: Callable[[int, int, str], None] | None = None,
) -> LoadBearing:
    """Which properties of ``selection`` depend on which of its rules, at ``bounds`` (over the
    selection's own), checked by the explicit engine: ``on_mutation(done, total, what)`` is
    called before each mutation is checked."""
    started = time.perf_counter()
    model = selection.model
    values = {**dict(model.bounds), **(bounds or {})}
    props = list(selection.properties)
    ruleset = model.ruleset

    def outcomes(rs: RuleSet) -> dict[str, Outcome]:
        m = Model(rs, values)
        results = explicit.check_properties(m, props, limits)
        return CheckReport(m.describe(), dict(m.bounds), results, ["explicit"]).outcomes()

    reference = outcomes(ruleset)
    found = []
    todo = mutations_of(ruleset)
    for n, (rule, citation, how, amendment) in enumerate(todo):
        if on_mutation is not None:
            on_mutation(n, len(todo), f"{rule} {how}")
        try:
            got = outcomes(ruleset.amend(amendment))
        except TurnproofError as exc:
            found.append(Mutation(rule, citation, how, (), (), str(exc)))
            continue
        flipped = tuple(
            p
            for p, o in got.items()
            if o is not reference[p] and Outcome.UNKNOWN not in (o, reference[p])
        )
        unknown = tuple(p for p, o in got.items() if o is not reference[p] and p not in flipped)
        found.append(Mutation(rule, citation, how, flipped, unknown))
    return LoadBearing(
        bounds=dict(Model(ruleset, values).bounds),
        properties=tuple(p.name for p in props),
        mutations=tuple(found),
        seconds=time.perf_counter() - started,
    )


def with_load_bearing(change: RuleChange, lb: LoadBearing) -> RuleChange:
    return replace(change, load_bearing=lb)
