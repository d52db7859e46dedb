"""Both engines agree on every built-in rule set: same successor sets, same cut bounds, same
number of states within each depth (DESIGN.md, principle 1)."""

from __future__ import annotations

import re
from typing import Any

import pytest
from turnproof.checks.crosscheck import CrosscheckReport, crosscheck
from turnproof.checks.results import Verdict
from turnproof.model.registry import builtin_rulesets
from turnproof.model.rules import BoundSpec, Model, RuleSet, rule
from turnproof.model.schema import IntRange, Schema, State

#: Bounds for rule sets that do not declare ``small_bounds`` themselves.
SMALL: dict[str, dict[str, int]] = {"bench": {"turns": 1, "cap": 2, "budget": 1, "cmax": 1}}


def small_bounds(rs: RuleSet) -> dict[str, int]:
    """The rule set's own ``small_bounds``, else the table above, else every bound at its
    lowest value (the smallest configuration the rule set supports)."""
    declared: Any = getattr(rs, "small_bounds", None)
    if isinstance(declared, dict):
        return dict(declared)
    if rs.name in SMALL:
        return SMALL[rs.name]
    return {s.name: s.lo for s in rs.bound_specs}


def larger_bounds(rs: RuleSet) -> dict[str, int]:
    """Every bound at 1 where the rule set allows it (cards and counters switched on)."""
    return {s.name: min(s.default, max(s.lo, 1)) for s in rs.bound_specs}


RULESETS = sorted(builtin_rulesets())


def assert_agree(model: Model, depth: int, max_states: int) -> CrosscheckReport:
    report = crosscheck(model, depth=depth, max_states=max_states)
    assert report.states_checked > 0
    assert not report.disagreements, report.disagreements[:3]
    assert report.depth_counts, "no depth was compared"
    for k, explicit, symbolic in report.depth_counts:
        assert explicit == symbolic, f"depth {k}: explicit {explicit}, Z3 {symbolic}"
    assert report.agree
    return report


@pytest.mark.parametrize("name", RULESETS)
def test_engines_agree_on_small_bounds(name: str) -> None:
    rs = builtin_rulesets()[name]
    report = assert_agree(Model(rs, small_bounds(rs)), depth=6, max_states=400)
    if name == "bench":  # the whole state space, and the counts by depth, are known
        assert report.explicit_complete and report.states_checked == 302
        assert [e for _, e, _ in report.depth_counts] == [1, 2, 4, 7, 12, 20, 31]


@pytest.mark.parametrize(
    "name",
    # Magic's takes a minute: the deep tier's; the others are the slow tier's.
    [
        pytest.param(n, marks=pytest.mark.deep if n == "magic" else pytest.mark.slow)
        for n in RULESETS
    ],
)
def test_engines_agree_on_larger_bounds(name: str) -> None:
    rs = builtin_rulesets()[name]
    assert_agree(Model(rs, larger_bounds(rs)), depth=6, max_states=3_000)


LASSOS = {
    "exits": ([("endless-rielle", 0), ("pump", None)], {"hand0": 7}),
    "delays": ([("endless-rielle", 0), ("pump", 1)], {"hand0": 7}),
}


@pytest.mark.slow
@pytest.mark.parametrize("case", sorted(LASSOS))
def test_both_engines_list_the_same_loop_exits(case: str) -> None:
    """The runner compares the engines' loop exits like their verdicts: on the same loop they
    must name the same moves, and agree whether the loop is forced."""
    from turnproof.checks.runner import run_check
    from turnproof.model.magic import compose_magic

    cards, bounds = LASSOS[case]
    rs = compose_magic(cards)
    model = Model(rs, {"turns": 1, "actions": 1, "mana": 0, **bounds})
    report = run_check(model, [rs.property("cleanup-terminates")], ("explicit", "symbolic"))
    explicit, symbolic = report.results[:2]
    assert [r.kind for r in report.results] == ["terminates", "terminates"]  # no disagreement
    assert explicit.verdict is symbolic.verdict is Verdict.VIOLATED
    assert {e.name for e in explicit.trace.exits} == {e.name for e in symbolic.trace.exits}
    assert explicit.trace.forced is symbolic.trace.forced is False


class _Tally(State):
    n: Any


def _tally(step: int) -> RuleSet:
    """A counter whose rule adds ``step`` up to 4 with a domain of 0..4 and no x.within: with
    step 3 it leaves the domain at the second step."""

    @rule("T 1", "count up")
    def up(s: Any, x: Any, b: Any) -> Any:
        x.require(s.n < 4)
        return s.replace(n=s.n + step)

    return RuleSet(
        name="tally",
        game="T",
        version="1",
        description="a tally",
        rules=(up,),
        bound_specs=(BoundSpec("top", 4, 4, 4, "the top"),),
        schema=lambda b: Schema(_Tally, {"n": IntRange(0, 4)}),
        initial=lambda b: [_Tally.make(n=0)],
        terminal=lambda s, x, b: s.n == 4,
    )


def test_a_rule_that_leaves_a_fields_domain_is_a_modelling_error_in_both_engines() -> None:
    """Issue 9's soundness gap: a rule that writes outside its field's domain without
    x.within was kept by the explicit engine (which checked only initial states) and dropped by
    the symbolic one (whose transition asks for well-formed successors), so 'can this happen?'
    got WITNESSED from one and PROVED unreachable from the other. Both now stop with the same
    modelling error, naming the rule, the field and the value."""
    from turnproof.checks import explicit, symbolic
    from turnproof.model.errors import ModelError
    from turnproof.model.properties import reachable

    model = Model(_tally(3))
    high = reachable("six", "n reaches 6", lambda s, x, b, m: s.n >= 6)
    want = "rule T 1 up gives n=6 does not fit Int[0..4], in a state reached in 1 step:"
    with pytest.raises(ModelError, match=re.escape(want)):
        explicit.check_properties(model, [high])
    with pytest.raises(ModelError, match=re.escape(want)):
        symbolic.check_properties(model, [high], timeout_s=30, jobs=0)
    ok = Model(_tally(1))
    assert explicit.check_properties(ok, [high])[0].verdict.value == "EXHAUSTIVE"
    assert symbolic.check_properties(ok, [high], timeout_s=30, jobs=0)[0].verdict.value == "PROVED"


def test_a_rule_that_would_leave_a_domain_declares_its_bound() -> None:
    """Sarkhan's +1 activated twice a turn would reach loyalty 6, above the 0..5 his field
    holds: the rule says so with x.within, so both engines cut that transition and report the
    bound it reached, and agree that loyalty 6 is not reached within the bounds."""
    from turnproof.checks.runner import run_check
    from turnproof.model.magic import compose_magic
    from turnproof.model.properties import reachable
    from turnproof.model.rules import Replace

    rs = compose_magic([("sarkhan-the-dragonspeaker", 0)])
    twice = rs.find_rule("activate_sarkhan").derive("MUTANT: twice a turn", once_per_turn=False)
    rs = rs.amend(Replace("activate_sarkhan", twice), label="twice")
    model = Model(rs, {"turns": 1, "actions": 2, "mana": 0})
    high = reachable("loyalty-6", "loyalty 6", lambda s, x, b, m: s.sark_loyalty >= 6)
    report = run_check(model, [high], ("explicit", "symbolic"))
    explicit_r, symbolic_r = report.results
    assert len(report.results) == 2  # no disagreement
    assert explicit_r.verdict is Verdict.EXHAUSTIVE and "loyalty" in explicit_r.bounds_reached
    assert symbolic_r.verdict in (Verdict.PROVED, Verdict.UNKNOWN)
