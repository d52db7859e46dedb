"""Controlling another player's turn (MTG 723): who decides, what the traces say, the shipped
scenarios' verdicts on the explicit engine, and every card's mutants across the library (the
control cards' among them) breaking the properties they name."""

from __future__ import annotations

from dataclasses import replace

import pytest
from turnproof.checks.explicit import check_properties
from turnproof.checks.results import Verdict
from turnproof.model.magic import DEFAULT_CARDS, LIBRARY, MAGIC, compose_magic
from turnproof.model.magic.mutants import MUTANTS as CORE_MUTANTS
from turnproof.model.packs import CompositionError, mutant_ruleset
from turnproof.model.properties import Mutant
from turnproof.model.rules import Model, RuleSet
from turnproof.reports.document import who_decides
from turnproof.scenarios import loader


def _explicit(name: str) -> dict[str, object]:
    built = loader.load(loader.shipped_path(name)).build()
    results = check_properties(built.model, built.properties)
    return {r.name: r for r in results}


def _story(result: object) -> list[str]:
    """Each step as the reports tell it: the citation and the instance, then whose choice."""
    return [
        f"{st.rule} {st.name} {who_decides(st.decider, st.decided_by)}".rstrip()
        for st in result.trace.steps  # type: ignore[attr-defined]
    ]


def test_a_controlled_players_choices_name_both_players() -> None:
    """MS-01: in player 1's controlled turn, player 0 makes player 1's choices (723.3); in
    player 0's own turn, and for player 0's own choices in player 1's, nothing changes."""
    r = _explicit("ms-01-mindslaver-basic")["both-triggers-under-control"]
    assert r.verdict is Verdict.WITNESSED
    lines = _story(r)
    controlled = [ln for ln in lines if "under MTG 723" in ln]
    assert controlled, lines
    assert all("(player 1's choice, decided by player 0 under MTG 723)" in ln for ln in controlled)
    # The trigger ordering of the controlled player is the controller's (723.3d), the other
    # player orders their own.
    stacking = [ln for ln in lines if ln.startswith("MTG 603.3b")]
    assert stacking[-2].endswith("(player 1's choice, decided by player 0 under MTG 723)")
    assert stacking[-1].endswith("(decided by player 0)")
    # Player 1 stays the active player: the first trigger on the stack is theirs (APNAP).
    assert r.trace.final["stack"][0]["ctrl"] == 1  # type: ignore[attr-defined]


def test_a_controlled_player_concedes_by_their_own_choice() -> None:
    """The seed: the controller can't make the player concede, and the player still may
    (723.6, 104.3a); the trace's concession is decided by the conceding player."""
    r = _explicit("mindslaver")["controlled-player-concedes"]
    assert r.verdict is Verdict.WITNESSED
    last = _story(r)[-1]
    assert last.startswith("MTG 104.3a concede") and last.endswith("(decided by player 1)")


@pytest.mark.parametrize(
    "name",
    ["mindslaver", "ms-01-mindslaver-basic", "ms-03-skipped-turn", "ms-04-latest-wins"]
    + ["two-controls-meet-skip"],
)
def test_turn_control_scenarios_meet_their_expectations(name: str) -> None:
    results = _explicit(name)
    assert all(r.meets_expectation for r in results.values()), {
        n: r.verdict.value for n, r in results.items() if not r.meets_expectation
    }


def test_the_last_effect_decides_in_the_scenario_and_its_mutant_does_not() -> None:
    """two-controls-meet-skip: C's effect on B, created after A's, decides B's turn 4; with
    the first effect winning instead (the mutant), A decides it and the claims fail."""
    sc = loader.load(loader.shipped_path("two-controls-meet-skip"))
    built = replace(sc, mutant="first-control-wins", states=None).build()
    wanted = ("c-controls-b-in-turn-4", "last-control-effect-wins")
    props = [p for p in built.properties if p.name in wanted]
    verdicts = {r.name: r.verdict for r in check_properties(built.model, props)}
    assert verdicts == {name: Verdict.VIOLATED for name in wanted}


# -- every card's mutants, across the whole library ------------------------------------------

PACK_MUTANTS = [(key, m.name) for key, pack in sorted(LIBRARY.items()) for m in pack.mutants]


def _alone(key: str) -> RuleSet:
    """The core with one card: for each player, or for player 0 when it needs a controller."""
    try:
        return compose_magic([(key, None)])
    except CompositionError:
        return compose_magic([(key, 0)])


def _with_mutant(key: str, m: Mutant) -> RuleSet:
    """The rule set a card's mutant is checked on: its own cards, or else the built-in set when
    the card is one of it (its properties may need the others), or else the card alone."""
    if m.cards:
        return compose_magic(list(m.cards))
    if key in dict(DEFAULT_CARDS):
        return MAGIC
    return _alone(key)


def test_every_property_of_every_card_has_a_mutant() -> None:
    """Each property a card brings, and each core property that only applies with some cards
    (the turn-control ones), is named by a mutant of the core or of a card."""
    broken = {n for m in CORE_MUTANTS for n in m.breaks}
    broken |= {n for pack in LIBRARY.values() for m in pack.mutants for n in m.breaks}
    names: set[str] = set()
    for key in LIBRARY:
        names |= {p.name for p in _alone(key).properties}
    assert names - broken == set()


@pytest.mark.parametrize(("card", "mutant"), PACK_MUTANTS)
def test_every_card_mutant_is_caught(card: str, mutant: str) -> None:
    m = next(x for x in LIBRARY[card].mutants if x.name == mutant)
    base = _with_mutant(card, m)
    rs = mutant_ruleset(base, base.mutant(mutant))
    model = Model(rs, {"turns": 2, **m.bounds})
    for r in check_properties(model, [rs.property(n) for n in m.breaks]):
        assert not r.meets_expectation, f"{mutant} should break {r.name}"
        if r.kind == "reachable":  # what the rules allowed can no longer happen
            assert r.verdict is Verdict.EXHAUSTIVE and r.trace is None
        else:
            assert r.verdict is Verdict.VIOLATED
            assert r.trace is not None and all(s.rule.startswith("MTG ") for s in r.trace.steps)


# -- the start key `controls` ------------------------------------------------------------------

CONTROLLED = """format = 1
title = "controlled"
game = "magic"
sources = ["test"]
players = 2

[[card]]
name = "Mindslaver"
controller = 0

[bounds]
turns = 2
actions = 0

[start]
turn = 1
step = "MAIN1"
stage = "priority"
controls = [{CONTROLS}]

[start.fields]
mindslaver = [false, false]

[[property]]
name = "controlled-now"
description = "player 0 controls player 1's turn from the start"
always = "controller == 0"
when = "turn == 1"
"""


def _write(tmp_path, controls: str):  # type: ignore[no-untyped-def]
    path = tmp_path / "controlled.toml"
    path.write_text(CONTROLLED.replace("{CONTROLS}", controls))
    return path


def test_a_scenario_starts_in_a_controlled_turn(tmp_path) -> None:  # type: ignore[no-untyped-def]
    built = loader.load(_write(tmp_path, "{player = 1, by = 0, now = true}")).build()
    (start,) = built.model.initial_states()
    assert start.ctrl_now == 1
    (r,) = check_properties(built.model, list(built.properties))
    assert r.verdict is Verdict.EXHAUSTIVE and not r.vacuous


@pytest.mark.parametrize(
    ("controls", "message"),
    [
        ("{player = 2, by = 0}", "controlled.toml:19: player 2 does not exist; players are 0..1"),
        ("{player = 0, by = 1, now = true}", "only the turn being played can be controlled now"),
        (
            "{player = 1, by = 0, who = 1}",
            "unknown key of a control entry 'who'; valid choices: by, now, player",
        ),
        ("{player = 1}", "a control entry needs 'by'"),
    ],
)
def test_a_control_entry_that_cannot_be_is_refused(tmp_path, controls: str, message: str) -> None:  # type: ignore[no-untyped-def]
    from turnproof.model.errors import ScenarioError

    with pytest.raises(ScenarioError) as info:
        loader.load(_write(tmp_path, controls)).build()
    assert message in str(info.value)
