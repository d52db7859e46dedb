"""The built-in properties: each holds on its rule set's rules, and each has a mutant that
breaks it (Magic and Riftbound alike); then the Magic rule set's own checks."""

from __future__ import annotations

import pytest
from turnproof.checks.explicit import check_properties, explore, rule_coverage
from turnproof.checks.results import Verdict
from turnproof.model.magic import DEFAULT_CARDS, MAGIC, compose_magic
from turnproof.model.packs import mutant_ruleset
from turnproof.model.registry import get_ruleset
from turnproof.model.rules import Model, Remove

SMALL = {"turns": 1}

#: The built-in rule sets made of a core and card packs, with the bounds of their fast checks:
#: of their properties, and of their mutants (one card a turn shows every Riftbound mutant).
GAMES = {"magic": SMALL, "riftbound": SMALL}
MUTANT_BOUNDS = {"magic": SMALL, "riftbound": {"turns": 1, "actions": 1}}
#: Each game's citation prefix: every step of a trace cites a rule of the game.
PREFIX = {"magic": "MTG ", "riftbound": "RB "}
MUTANTS = [(g, m.name) for g in GAMES for m in get_ruleset(g).mutants]


@pytest.mark.parametrize("game", GAMES)
def test_every_property_has_a_mutant_that_breaks_it(game: str) -> None:
    rs = get_ruleset(game)
    broken = {name for m in rs.mutants for name in m.breaks}
    assert {p.name for p in rs.properties} <= broken


@pytest.mark.parametrize("game", GAMES)
def test_property_names_are_kebab_case_and_unique(game: str) -> None:
    names = [p.name for p in get_ruleset(game).properties]
    assert len(names) == len(set(names))
    assert all(n == n.lower() and " " not in n and "_" not in n for n in names)


@pytest.mark.parametrize("game", GAMES)
def test_all_properties_meet_expectations_on_one_turn(game: str) -> None:
    rs = get_ruleset(game)
    results = check_properties(Model(rs, GAMES[game]), rs.properties)
    bad = [(r.name, r.verdict.value, r.reason) for r in results if not r.meets_expectation]
    assert bad == []
    for r in results:
        assert r.verdict is not Verdict.PROVED  # the explicit engine never says PROVED
        assert r.states > 10_000
        assert not r.vacuous


@pytest.mark.parametrize(("game", "mutant"), MUTANTS)
def test_mutant_is_caught(game: str, mutant: str) -> None:
    base = get_ruleset(game)
    m = base.mutant(mutant)
    rs = mutant_ruleset(base, m, label=m.name)
    assert rs.version.endswith("+" + m.name)
    assert rs.content_hash() != base.content_hash()
    model = Model(rs, {**MUTANT_BOUNDS[game], **m.bounds})
    results = check_properties(model, [rs.property(n) for n in m.breaks])
    for r in results:
        assert not r.meets_expectation, f"{mutant} should break {r.name}"
        if r.verdict is Verdict.VIOLATED:
            assert r.trace is not None and len(r.trace.steps) > 0
            assert all(step.rule.startswith(PREFIX[game]) for step in r.trace.steps)


def _lasso(rs, bounds):
    (r,) = check_properties(Model(rs, bounds), [rs.property("cleanup-terminates")])
    assert r.verdict is Verdict.VIOLATED and r.trace.loop_start is not None
    return r.trace


def test_a_loop_exit_is_a_move_after_which_the_region_can_be_left():
    """A card that keeps creating triggers, and an instant: casting it in a cleanup window
    leaves the active player with seven cards, so the next cleanup step discards nothing and
    the turn ends. Only such moves are exits (issue 9: the engine listed moves that merely left
    the loop's strongly connected component)."""
    bounds = {"turns": 1, "actions": 1, "hand0": 7, "mana": 0}
    trace = _lasso(compose_magic([("endless-rielle", 0), ("pump", None)]), bounds)
    assert trace.forced is False
    assert {e.name for e in trace.exits} == {"cast(card=PUMP)"}
    assert 0 in {e.decider for e in trace.exits}


def test_moves_that_only_delay_a_loop_are_no_exits():
    """The same loop, but only the other player holds the instant: casting it changes nothing
    the discards depend on, so every way on comes back to the loop. Players have choices, and
    the loop is not forced, but nobody can break it."""
    bounds = {"turns": 1, "actions": 1, "hand0": 7, "mana": 0}
    trace = _lasso(compose_magic([("endless-rielle", 0), ("pump", 1)]), bounds)
    assert trace.exits == () and trace.forced is False


def test_a_loop_without_choices_is_forced():
    """Priority in every cleanup step and no way for the step to end without it: the only
    move in each state of the loop is the next one (a mandatory loop, 104.4b)."""
    rs = mutant_ruleset(compose_magic([]), MAGIC.mutant("cleanup-always-priority"))
    rs = rs.amend(Remove("cleanup_ends_turn"))
    trace = _lasso(rs, {"turns": 1, "actions": 0, "mana": 0})
    assert trace.exits == () and trace.forced is True


def test_termination_counterexample_is_a_lasso_with_who_can_break_it():
    # A card that keeps creating triggers: the cleanup step never ends.
    rs = compose_magic([*DEFAULT_CARDS, ("endless-rielle", 0)])
    (r,) = check_properties(Model(rs, SMALL), [rs.property("cleanup-terminates")])
    assert r.verdict is Verdict.VIOLATED
    trace = r.trace
    assert trace.loop_start is not None and trace.loop_start < len(trace.steps)
    loop = [s.rule for s in trace.steps[trace.loop_start :]]
    assert "MTG 514.1" in loop and "MTG 603.3b" in loop  # discard, trigger, draw, discard ...
    # the loop passes through priority windows, so a player could act differently: the exits
    # name who decides; with no actions left, nobody can leave the cleanup loop
    for e in trace.exits:
        assert e.decider in (0, 1, None)


def test_trace_steps_cite_rules_and_show_only_changed_fields():
    rs = MAGIC.amend(*MAGIC.mutant("first-pass-ends-step").amendments)
    (r,) = check_properties(Model(rs, SMALL), [rs.property("step-ends-after-all-pass")])
    last = r.trace.steps[-1]
    assert last.rule == "MTG 500.2"
    assert last.decider == 0
    assert "step" in last.changed and "turn" not in last.changed


def test_every_rule_fires_at_default_bounds_except_for_absent_cards():
    # A rule that never fires is behaviour no verdict covers: at default bounds only the rules
    # of Mandate of Peace (not in the default card pool) stay unused.
    coverage = rule_coverage(explore(Model(MAGIC)))
    assert [name for name, n in coverage.items() if n == 0] == [
        "end_combat_a",
        "end_combat_b",
        "end_combat_d",
    ]
    assert coverage["sba"] > 0
    with_mandate = compose_magic([*DEFAULT_CARDS, ("mandate-of-peace", None)])
    mandate = rule_coverage(explore(Model(with_mandate, {"turns": 1})))
    assert all(n > 0 for n in mandate.values())


# Every property at the default Magic bounds, and the state count: the both-engine check in
# test_symbolic_workers.py. Each mutant at its game's default bounds: Riftbound's in the slow
# tier (a few seconds each), Magic's in the deep tier (the fast tier catches them at turns=1).
@pytest.mark.parametrize(
    ("game", "mutant"),
    [
        pytest.param(g, m, marks=pytest.mark.slow if g == "riftbound" else pytest.mark.deep)
        for g, m in MUTANTS
    ],
)
def test_mutant_is_caught_at_default_bounds(game: str, mutant: str) -> None:
    base = get_ruleset(game)
    m = base.mutant(mutant)
    rs = mutant_ruleset(base, m, label=m.name)
    results = check_properties(Model(rs, m.bounds), [rs.property(n) for n in m.breaks])
    assert all(not r.meets_expectation for r in results)
