"""The symbolic engine's verdicts on the bench rule set: proofs keep checked certificates,
violations come with shortest traces that cite rules, and both engines agree on the verdicts."""

from __future__ import annotations

from typing import Any

import pytest
import z3
from turnproof.checks import explicit
from turnproof.checks.bmc import Deadline, violation_target
from turnproof.checks.consistency import check_consistency
from turnproof.checks.proofs import Query, spacer
from turnproof.checks.results import Verdict
from turnproof.checks.symbolic import Encoding, check_properties
from turnproof.model.bench import BENCH
from turnproof.model.properties import Expect, Monitor, always, reachable, step, terminates
from turnproof.model.rules import BoundSpec, Model, RuleSet, rule
from turnproof.model.schema import BoolDomain, IntRange, Schema, State

SMALL = {"turns": 1, "cap": 2, "budget": 1, "cmax": 1}


def untap_needs_empty_stack(s: Any, x: Any, b: Any, m: Any) -> Any:
    return x.Implies(x.Or(s.step == 0, s.step == 11), s.stk.length == 0)


def only_end_turn_changes_turn(s: Any, t: Any, r: Any, x: Any, b: Any, m: Any) -> Any:
    return x.Or(t.turn == s.turn, r.name == "end_turn")


PROPS = [
    always(
        "untap-needs-empty-stack",
        "the stack is empty in untap and cleanup",
        untap_needs_empty_stack,
    ),
    step(
        "only-end-turn-changes-turn", "only MTG 514.3 advances the turn", only_end_turn_changes_turn
    ),
    always(
        "no-extra-cleanup",
        "no extra cleanup step happens (false on purpose)",
        lambda s, x, b, m: s.cl < b.cmax,
        expect=Expect.VIOLATED,
    ),
    reachable("extra-cleanup", "an extra cleanup step happens", lambda s, x, b, m: s.cl == b.cmax),
    terminates(
        "upkeep-terminates",
        "no cycle inside the upkeep step... except the self-retriggering stack item",
        lambda s, x, b, m: s.step == 1,
        expect=Expect.VIOLATED,
    ),
    terminates(
        "untap-terminates",
        "no cycle among untap and cleanup-without-priority states",
        lambda s, x, b, m: x.Or(s.step == 0, s.step == 11),
    ),
]


@pytest.fixture(scope="module")
def results() -> dict[str, Any]:
    model = Model(BENCH, SMALL)
    props = [*BENCH.properties, *PROPS]
    sym = check_properties(model, props, timeout_s=20, max_depth=40)
    exp = explicit.check_properties(model, props)
    return {r.name: (r, e) for r, e in zip(sym, exp)}


def test_safety_properties_are_proved_with_a_checked_invariant(results: dict[str, Any]) -> None:
    for name in ("untap-needs-empty-stack", "only-end-turn-changes-turn", "no-deadlock"):
        r, e = results[name]
        assert r.engine == "symbolic"
        assert r.verdict is Verdict.PROVED, (name, r.reason)
        assert e.verdict is Verdict.EXHAUSTIVE
        assert r.certificate is not None
        # A model this small is proved with its reachable states as the invariant, which Z3
        # checks closed under the transition formula.
        assert r.certificate["method"] == "the reachable states as an inductive invariant"
        assert r.certificate["states"] == e.states
        assert r.certificate["checked"] == ["initiation", "consecution", "safety"]
        assert "unbounded" in r.holds_for and "turns=1" in r.holds_for


def test_spacer_proves_with_an_invariant_rendered_with_field_names() -> None:
    enc = Encoding(Model(BENCH, SMALL))
    q = Query(enc, violation_target(enc, untap_needs_empty_stack), 0)
    answer = spacer(q, Deadline(60))
    assert answer.status == "safe" and answer.certificate is not None
    inv = answer.certificate["invariant"]
    assert "@" not in inv and "stk.len" in inv and "step" in inv


def test_violation_has_the_shortest_trace_citing_rules(results: dict[str, Any]) -> None:
    r, e = results["no-extra-cleanup"]
    assert r.verdict is Verdict.VIOLATED and e.verdict is Verdict.VIOLATED
    assert r.meets_expectation
    assert r.trace is not None and e.trace is not None
    assert len(r.trace) == len(e.trace) == 26  # both engines find shortest traces
    first = r.trace.steps[0]
    assert (first.rule, first.name, first.decider) == ("MTG 502.4", "untap", None)
    assert first.changed == {"step": [0, 1]}
    assert r.trace.steps[-1].rule == "MTG 500.2"  # the extra cleanup step ends
    assert r.trace.final is not None and r.trace.final["cl"] == 1
    assert {s.rule for s in r.trace.steps} <= {a.rule.citation for a in Model(BENCH, SMALL).actions}


def test_witness_and_lasso(results: dict[str, Any]) -> None:
    r, e = results["extra-cleanup"]
    assert r.verdict is Verdict.WITNESSED and r.trace is not None and len(r.trace) == 26
    for name in ("cleanup-terminates", "upkeep-terminates"):
        r, e = results[name]
        assert r.verdict is Verdict.VIOLATED is e.verdict, (name, r.reason)
        assert r.trace is not None and r.trace.loop_start is not None
        assert len(r.trace) == len(e.trace)
        assert r.trace.loop_start == e.trace.loop_start
        loop = r.trace.steps[r.trace.loop_start :]
        assert {s.name for s in loop} == {"pass_first", "resolve(trig=1)"}


def test_termination_is_proved_with_a_ranking_function(results: dict[str, Any]) -> None:
    r, e = results["untap-terminates"]
    assert r.verdict is Verdict.PROVED, r.reason
    assert e.verdict is Verdict.EXHAUSTIVE
    cert = r.certificate
    assert cert is not None and cert["method"] == "ranking-function"
    # Inside the region only MTG 514.3 moves (cleanup -> untap), and it counts the turn up.
    assert cert["components"] == [{"function": "-turn", "decreases": ["MTG 514.3 end_turn"]}]
    assert cert["lexicographic"] is False


def test_consistency_findings_name_rules_and_state() -> None:
    findings = check_consistency(Model(BENCH, SMALL), timeout_s=20)
    assert [f.check for f in findings] == ["exclusive-automatic"]
    f = findings[0]
    assert f.status == "violated"
    assert f.rules == ("MTG 514.3 end_turn", "MTG 514.3a cleanup_trigger")
    assert f.state is not None and f.state["step"] == 11
    assert f.trace is not None and f.trace.final == f.state


def test_monitors_are_state_variables() -> None:
    seen = Monitor(
        "resolved",
        BoolDomain(),
        init=lambda s, x, b: False,
        update=lambda s, t, r, m, x, b: x.Or(m.resolved, r.name == "resolve"),
    )
    prop = always(
        "nothing-resolves-in-upkeep",
        "false: something can resolve before the draw step",
        lambda s, x, b, m: x.Implies(m.resolved, s.step > 1),
        monitors=(seen,),
        expect=Expect.VIOLATED,
    )
    model = Model(BENCH, SMALL)
    (r,) = check_properties(model, [prop], timeout_s=20, max_depth=20)
    (e,) = explicit.check_properties(model, [prop])
    assert r.verdict is Verdict.VIOLATED is e.verdict
    assert r.trace is not None and e.trace is not None and len(r.trace) == len(e.trace)
    assert r.trace.steps[-1].name.startswith("resolve")


def test_unknown_is_never_proved() -> None:
    model = Model(BENCH, {"turns": 3, "cap": 3, "budget": 2, "cmax": 2})
    enc = Encoding(model)
    q = Query(enc, violation_target(enc, untap_needs_empty_stack), 0)
    answer = spacer(q, Deadline(0.001))
    assert answer.status == "unknown"
    assert answer.certificate is None and answer.reason.startswith("Spacer:")
    (r,) = check_properties(model, [PROPS[0]], timeout_s=0.01, max_depth=30)
    assert r.verdict is Verdict.UNKNOWN and r.reason and r.certificate is None
    assert z3.get_version_string()


class _Clock(State):
    turn: Any
    step: Any


def _clock_rules() -> RuleSet:
    """A rule set whose first rule forgets to test for the end of the game: only the engines'
    own treatment of terminal states keeps the game over once it is over."""

    @rule("MTG 502.3", "a step begins (no test for the end of the game)")
    def begin(s: Any, x: Any, b: Any) -> Any:
        x.require(s.step == 0)
        return s.replace(step=1)

    @rule("MTG 514.3", "the turn ends")
    def end(s: Any, x: Any, b: Any) -> Any:
        x.require(s.step == 1)
        x.within(s.turn + 1 <= b.turns, "turns")
        return s.replace(turn=s.turn + 1, step=0)

    return RuleSet(
        name="clock",
        game="MTG",
        version="test",
        description="a clock",
        rules=(begin, end),
        bound_specs=(BoundSpec("turns", 1, 1, 3, "turns"),),
        schema=lambda b: Schema(_Clock, {"turn": IntRange(0, b.turns), "step": IntRange(0, 1)}),
        initial=lambda b: [_Clock.make(turn=0, step=0)],
        terminal=lambda s, x, b: s.turn == b.turns,
    )


def test_terminal_states_are_absorbing_in_both_engines() -> None:
    """After the last turn nothing happens: the explicit engine never expands a terminal state,
    and the symbolic transition formula has no successor of one, so a state past the end is
    unreachable for both (without the guard, Z3 would witness it with a trace no replay
    follows)."""
    rs = _clock_rules()
    model = Model(rs)
    past_end = reachable(
        "past-the-end",
        "a step begins after the game is over",
        lambda s, x, b, m: x.And(s.turn == b.turns, s.step == 1),
    )
    (ex,) = explicit.check_properties(model, [past_end])
    assert ex.verdict is Verdict.EXHAUSTIVE and ex.states == 3
    (sym,) = check_properties(model, [past_end], timeout_s=20, jobs=0)
    assert sym.verdict is Verdict.PROVED, sym.reason
    enc = Encoding(model)
    solver = z3.Solver()
    solver.add(enc.var("turn", 0) == 1, enc.var("step", 0) == 0, enc.transition(0))
    assert solver.check() == z3.unsat


def test_the_invariants_forward_search_stops_at_a_terminal_state() -> None:
    """The states run from a counterexample to widen the control invariant's claims are the
    transition formula's successors: none after a terminal state, even where a rule forgets to
    test for the end of the game (else the claims would be widened past the least fixed
    point, with a state no path reaches)."""
    from turnproof.checks import invariants

    model = Model(_clock_rules())
    enc = Encoding(model)
    solver = z3.Solver()
    solver.add(enc.var("turn", 0) == 0, enc.var("step", 0) == 0)
    assert solver.check() == z3.sat
    rows = list(invariants._Forward(enc).rows(solver.model()))
    assert rows == [[0, 1], [1, 0]]  # (1, 0) is terminal: (1, 1) is not a successor


def test_following_a_trace_under_a_resource_limit_is_deterministic():
    """A trace of the explicit engine, followed by Z3 under a resource count instead of a
    time budget: found with room to spare, and given up on (``unknown``, not ``clear``) when
    the count is too small; the same answers on every run, whatever the machine's load."""
    from turnproof.checks.bmc import follow
    from turnproof.checks.proofs import path_labels

    model = Model(BENCH, SMALL)
    ex = explicit.explore(model)
    last = len(ex.nodes) - 1
    labels = path_labels(ex, last)
    assert labels, "the last state is not an initial one"
    enc = Encoding(model)
    anywhere = lambda k: z3.BoolVal(True)  # noqa: E731
    for _ in range(2):
        assert follow(enc, labels, anywhere, rlimit=60_000_000).status == "found"
        starved = follow(enc, labels, anywhere, rlimit=1)
        assert starved.status == "unknown" and "resource limit" in starved.reason
    with pytest.raises(ValueError):
        follow(enc, labels, anywhere)


def test_a_witness_is_the_explicit_engines_path_when_the_formula_allows_it() -> None:
    """A property of the kind ``reachable`` follows the explicit engine's trace first (the
    model is too large for its own reachable set): the witness is that path, checked step by
    step. A path the transition formula refuses, or one that does not end in the property's
    states, is not taken: the bounded search finds its own, as short (both are shortest)."""
    from turnproof.checks import proofs
    from turnproof.checks.runner import explicit_traces

    model = Model(BENCH, {"turns": 3, "cap": 3, "budget": 2, "cmax": 2})  # 5,017 states
    prop = next(p for p in PROPS if p.name == "extra-cleanup")
    guide = explicit_traces(explicit.check_properties(model, [prop]))[prop.name]
    assert len(guide) == 31

    def witness(given: tuple[str, ...]) -> Any:
        proofs.guide_asked = False
        r = proofs.check_property(model, prop, timeout_s=60, max_depth=40, guide=given)
        assert proofs.guide_asked, "a reachable property always asks for the explicit trace"
        assert r.verdict is Verdict.WITNESSED and r.trace is not None, r.reason
        return r

    followed = witness(guide)
    assert followed.reason == proofs.EXPLICIT_PATH
    assert tuple(s.name for s in followed.trace.steps) == guide
    assert followed.trace.final is not None and followed.trace.final["cl"] == 2
    # One step short of the property's states, then with two steps swapped (refused).
    swapped = (*guide[:-2], guide[-1], guide[-2])
    for refused in (guide[:-1], swapped):
        searched = witness(refused)
        assert searched.reason != proofs.EXPLICIT_PATH
        assert len(searched.trace) == len(guide)
