"""Both engines agree on every built-in rule set: same successor sets, same cut bounds, same
number of states within each depth (DESIGN.md, principle 1)."""

from __future__ import annotations

from typing import Any

import pytest
from turnproof.checks.crosscheck import CrosscheckReport, crosscheck
from turnproof.checks.results import Verdict
from turnproof.model.registry import builtin_rulesets
from turnproof.model.rules import Model, RuleSet

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


@pytest.mark.slow
@pytest.mark.parametrize("name", RULESETS)
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
