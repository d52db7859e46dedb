"""Generated mutants (``turnproof mutate``): generation from a rule's source, the verdicts
(killed, equivalent, survived, invalid), the kill matrix of the tiny rule set, the reports."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
from turnproof.checks import explicit, mutate
from turnproof.checks.runner import select, selection_of
from turnproof.model.magic import compose_magic
from turnproof.model.registry import builtin_rulesets
from turnproof.model.rules import ReplaceHook
from turnproof.reports import mutate as mutate_report
from turnproof.reports.document import Run
from turnproof.scenarios import loader

from tests.test_cli import invoke
from tests.tiny_ruleset import TINY

#: The Magic core with no card, at one turn: small enough (728 states) for seconds.
CORE = compose_magic(())
ONE_TURN = {"turns": 1}


def _run(ruleset, ids, bounds=ONE_TURN):
    made = {g.id: g for g in mutate.generate(ruleset, sorted({i.split(":")[0] for i in ids}))}
    report = mutate.run(select(ruleset, bounds=bounds), bounds, mutants=[made[i] for i in ids])
    return {r.mutant.id: r for r in report.results}


def test_each_operator_generates_from_the_rule_source() -> None:
    made = {g.id: g for g in mutate.generate(CORE, ["pass_end_step", "pass_priority", "sba"])}
    assert made["pass_end_step:drop-guard:1"].what == (
        "removed x.require(s.passes + 1 == b.players)"
    )
    assert made["pass_end_step:flip-comparison:1"].what.endswith("== -> !=")
    assert made["pass_priority:swap-player:1"].what == "s.prio -> (s.prio + 1) % b.players"
    assert made["pass_priority:keep-field:2"].what == "s.replace(...) leaves prio alone"
    assert made["sba:keep-field:1"].operator == "keep-field"
    # Clause defaults are left alone: no mutant of pass_end_step's keyword clauses.
    assert not any("cleanup_repeats" in g.what for g in made.values())
    assert all(g.mutated is not None and not g.error for g in made.values())
    assert {g.citation for g in made.values() if g.rule == "pass_end_step"} == {"MTG 500.2"}


def test_a_cards_resolution_mutates_the_cards_effect_too() -> None:
    magic = builtin_rulesets()["magic"]
    made = mutate.generate(magic, ["resolve_shock"])
    effects = [g for g in made if g.target == "effect=_resolve"]
    assert effects and all(g.module == "turnproof.model.magic.cards.shock" for g in effects)
    assert any(g.what == "s.replace(...) leaves dmg alone" for g in effects)


def test_a_cards_hooks_are_mutated_too() -> None:
    riftbound = builtin_rulesets()["riftbound"]
    assert "scholars-tome.draw" in mutate.hook_names(riftbound)
    made = {g.id: g for g in mutate.generate(riftbound, ["scholars-tome.draw"])}
    assert sorted(made) == [
        "scholars-tome.draw:flip-comparison:1",
        "scholars-tome.draw:flip-comparison:2",
    ]
    g = made["scholars-tome.draw:flip-comparison:1"]
    assert g.what == "p == me.controller: == -> !=" and g.card == "Scholar's Tome"
    assert g.module == "turnproof.model.riftbound.cards.scholars_tome"
    assert g.citation == "Scholar's Tome's draw hook" and g.mutated is None
    assert isinstance(g.amendment, ReplaceHook) and g.amendment.card == "scholars-tome"
    # Only that card's contribution to that hook changes.
    amended = riftbound.amend(g.amendment)
    before, after = riftbound.setup.hooks, amended.setup.hooks
    assert [f is h for f, h in zip(before["draw"], after["draw"], strict=True)].count(False) == 1
    assert all(before[k] == after[k] for k in before if k != "draw")
    assert amended.content_hash() != riftbound.content_hash()
    # Every mutant of every rule comes first, then the hooks'.
    every = mutate.generate(riftbound)
    assert every[-1].rule in mutate.hook_names(riftbound)


def test_a_hook_mutant_is_checked_like_a_rules() -> None:
    riftbound = builtin_rulesets()["riftbound"]
    mid = "scholars-tome.draw:flip-comparison:2"
    got = _run(riftbound, [mid])[mid]
    assert got.status == "killed" and "triggers-wait-for-resolution" in got.killed_by
    bad = invoke("mutate", "riftbound", "--rule", "scholars-tome.drew", "--no-progress")
    assert bad.exit_code == 2 and "unknown rule or card hook 'scholars-tome.drew'" in bad.stderr
    assert "did you mean 'scholars-tome.draw'?" in bad.stderr


def test_a_dropped_guard_of_pass_end_step_is_killed_by_the_named_property() -> None:
    got = _run(CORE, ["pass_end_step:drop-guard:1", "cleanup_ends_turn:flip-comparison:1"])
    first = got["pass_end_step:drop-guard:1"]
    assert first.status == "killed"
    assert first.killed_by == ("step-ends-after-all-pass",)
    flipped = got["cleanup_ends_turn:flip-comparison:1"]
    assert flipped.status == "killed"
    assert "eot-effects-end-before-next-turn" in flipped.killed_by


def test_an_unchanged_graph_is_equivalent() -> None:
    # With no card, no state-based action or trigger ever happens in cleanup: 514.3's guard
    # "this cleanup step performed none" is always true where it is read.
    got = _run(CORE, ["cleanup_ends_turn:drop-guard:2"])["cleanup_ends_turn:drop-guard:2"]
    assert got.status == "equivalent"
    assert got.killed_by == () and got.changed is None


def test_a_mutant_that_raises_is_invalid() -> None:
    (g,) = [m for m in mutate.generate(TINY, ["spin"]) if m.id == "spin:drop-guard:1"]

    def broken(s, x, b):
        raise TypeError("not a rule")

    bad = replace(g, mutated=replace(g.mutated, fn=broken))
    (r,) = mutate.run(select(TINY), mutants=[bad]).results
    assert r.status == "invalid" and r.reason == "raises TypeError: not a rule"


#: The kill matrix of the tiny rule set (pinned: a change must be deliberate).
TINY_KILLED = {
    "advance:drop-guard:1": ("domain-check",),
    "advance:drop-conjunct:2": ("domain-check",),
    "advance:flip-comparison:1": ("spinner-can-start", "spinner-stops"),
    "advance:flip-comparison:2": ("spinner-can-start", "spinner-stops"),
    "advance:keep-field:1": ("spinner-can-start", "spinner-stops"),
    "start:flip-comparison:1": ("spinner-can-start", "spinner-stops"),
    "start:keep-field:1": ("spinner-can-start", "spinner-stops"),
    "spin:drop-guard:1": ("at-most-one-automatic-rule",),
    "spin:flip-comparison:1": ("no-deadlock", "at-most-one-automatic-rule", "spinner-stops"),
}


def test_tiny_kill_matrix_is_pinned() -> None:
    report = mutate.run(select(TINY))
    killed = {r.mutant.id: r.killed_by for r in report.results if r.status == "killed"}
    assert killed == TINY_KILLED
    assert [r.mutant.id for r in report.results if r.status == "equivalent"] == [
        "advance:drop-conjunct:1"
    ]
    assert (report.count("survived"), report.count("invalid"), len(report.results)) == (15, 0, 25)
    assert report.kill_rate == pytest.approx(9 / 24)
    hole = next(r for r in report.results if r.mutant.id == "push:flip-comparison:1")
    assert hole.changed is not None and hole.changed.side == "base"
    assert hole.changed.diverges_at == 1 and hole.changed.rows[0].other == "not enabled"


def test_reports_render_one_value_deterministically() -> None:
    report = mutate.run(select(TINY))
    doc = mutate_report.build_mutate_report(report, Run())
    files = mutate_report.mutate_files(doc)
    assert set(files) == {"mutate.txt", "mutate.md", "mutate.json"}
    data = json.loads(files["mutate.json"])
    assert data["command"] == "mutate" and data["counts"]["killed"] == 9
    assert data["counts"]["by_operator"]["flip-comparison"]["killed"] == 4
    assert "kill rate: 37.5% (9 / 24)" in files["mutate.txt"]
    assert "| `spin:drop-guard:1` |" in files["mutate.md"]

    def masked(text: str) -> dict:
        d = json.loads(text)
        d["seconds"] = 0
        for m in d["mutants"]:
            m["seconds"] = 0
        return d

    again = mutate_report.mutate_files(
        mutate_report.build_mutate_report(mutate.run(select(TINY)), Run())
    )
    assert masked(again["mutate.json"]) == masked(files["mutate.json"])


def test_explained_survivors_are_read_from_the_data_file() -> None:
    explained = mutate.explained_survivors("magic")
    assert explained and all(why for why in explained.values())
    assert mutate.explained_survivors("no-such-rule-set") == {}


def test_cli_mutate(with_tiny: None) -> None:
    r = invoke("mutate", "tiny", "--rule", "spin", "--format", "json", "--no-progress")
    assert r.exit_code == 1  # spin has surviving mutants
    data = json.loads(r.stdout)
    assert {m["rule"] for m in data["mutants"]} == {"spin"}
    bad = invoke("mutate", "tiny", "--rule", "nope")
    assert bad.exit_code == 2 and "nope" in bad.stderr


@pytest.mark.slow
def test_bench_kill_matrix() -> None:
    bench = builtin_rulesets()["bench"]
    report = mutate.run(select(bench))
    counts = {s: report.count(s) for s in mutate_report.STATUSES}
    assert counts == {"killed": 23, "survived": 39, "equivalent": 14, "invalid": 0}


#: Generated mutants that survived every property of the Magic core before the properties added
#: for them, and the property that kills each now.
CLOSED_HOLES = {
    "pass_priority:swap-player:1": "pass-gives-priority-to-next-player",
    "add_mana:swap-player:1": "mana-goes-to-its-player",
    "draw_step:swap-player:1": "active-player-draws",
    "cleanup_discard:keep-field:1": "cleanup-discards-to-hand-size",
    "declare_attackers:keep-field:2": "attacking-creature-taps",
    "declare_attackers:drop-guard:3": "attacks-a-planeswalker-only-if-there-is-one",
    "declare_blockers:keep-field:1": "a-creature-can-block",
    "combat_damage:keep-field:1": "combat-damage-by-power",
    "pass_resolve:drop-guard:2": "resolves-only-an-object",
    "pass_end_step:flip-comparison:2": "a-creature-can-block",
}


def _assert_closed(ruleset, holes: dict[str, str], bounds=ONE_TURN) -> None:
    """Each mutant named is killed, by the property named with it (among others)."""
    got = _run(ruleset, list(holes), bounds)
    for mid, prop in holes.items():
        assert got[mid].status == "killed", mid
        assert prop in got[mid].killed_by, (mid, got[mid].killed_by)


def test_the_holes_found_in_the_magic_core_are_closed() -> None:
    _assert_closed(CORE, CLOSED_HOLES)


#: Generated mutants of the built-in Magic rule set (its cards in play) that survived every
#: property before the properties added for them, and the property that kills each now: one
#: mutant for each of those properties (the rest of each rule's mutants are in the README's
#: figures).
CLOSED_CARD_HOLES = {
    "activate_sundial:swap-player:1": "sundial-only-during-your-turn",
    "activate_sarkhan:drop-guard:3": "sarkhan-loyalty-ability-as-a-sorcery",
    "resolve_shock:keep-field:2": "shock-deals-2-damage",
    "cast:drop-guard:1": "a-cards-objects-are-its-controllers",
    "receive_priority:drop-guard:1": "waiting-triggers-go-on-the-stack",
    "resolve_brace:keep-field:1": "resolution-follows-its-instructions-once",
    "finish_resolving:keep-field:1": "nothing-resolves-once-it-has-finished",
    "end_turn_d:keep-field:5": "ending-process-is-over-when-its-step-begins",
    "end_turn_d:keep-field:4": "creatures-leave-combat-with-it",
    "end-step-watcher.step_begins:swap-player:1": "end-step-watcher-triggers-at-your-end-step",
    # Magic's hook mutants: 62.5% (5 of 8) killed before these two, 100% (8 of 8) after.
    "omen.step_begins:flip-comparison:1": "omen-triggers-once-at-the-next-end-step",
    "omen.step_begins:keep-field:1": "omen-triggers-once-at-the-next-end-step",
    "sarkhan-the-dragonspeaker.planeswalker:flip-comparison:1": (
        "sarkhan-is-attacked-only-as-the-defenders-planeswalker"
    ),
}


@pytest.mark.deep  # 90 s; the slow tier closes the Magic core's and the Riftbound chain's
def test_the_holes_found_in_the_magic_cards_are_closed() -> None:
    _assert_closed(builtin_rulesets()["magic"], CLOSED_CARD_HOLES)


#: Generated mutants of the Riftbound chain and Focus rules that survived every property before the properties
#: added for them, and the property that kills each now.
CLOSED_CHAIN_HOLES = {
    "pass_resolve:drop-guard:1": "resolves-after-all-pass",
    "finalize_choosing:drop-guard:2": "targets-are-legal-when-chosen",
    "finish_resolving:keep-field:1": "nothing-resolves-once-it-has-finished",
    "pass_focus:swap-player:1": "passing-focus-gives-it-to-the-next-player",
    "open_priority:keep-field:2": "who-may-act-when-open",
    # The showdown and priority holes: 4 rules' mutants went from 60.9% (14 of 23) killed to
    # 91.3% (21 of 23), both survivors explained.
    "gain_priority:keep-field:2": "priority-goes-to-the-newest-items-controller",
    "contest:keep-field:2": "showdown-starts-before-anyone-acts",
    "contest:keep-field:3": "showdown-starts-before-anyone-acts",
    "pass_focus:keep-field:3": "showdown-ends-when-all-pass-focus",
    "showdown_ends:drop-guard:2": "showdown-ends-when-all-pass-focus",
    "showdown_ends:keep-field:1": "showdown-ends-when-all-pass-focus",
    "showdown_ends:keep-field:4": "showdown-ends-when-all-pass-focus",
    # The cards' hooks: their mutants went from 28.6% (2 of 7) killed to 85.7% (6 of 7).
    "firebrand.played:flip-comparison:1": "firebrand-play-effect-fires-when-it-is-played",
    "firebrand.played:flip-comparison:2": "firebrand-play-effect-fires-when-it-is-played",
    "grim-sentinel.dies:flip-comparison:1": "grim-sentinel-deathknell-fires-when-it-dies",
    "scholars-tome.draw:flip-comparison:1": "scholars-tome-triggers-when-you-draw",
    # A resolving item's instructions followed once, and a cleanup after each change (319):
    # the whole rule set's mutants went from 75.3% (137 of 182) killed to 82.5% (156 of 189).
    "resolve_strike:keep-field:1": "an-item-follows-its-instructions-once",
    "main_begins:keep-field:2": "a-cleanup-follows-each-change",
    "play:keep-field:7": "a-cleanup-follows-each-change",
    # With the phases' order, a play from the hand, Spellwatcher's Might and a trigger without
    # a legal choice, the whole rule set's mutants went from 82.5% to 92.6% (175 of 189).
    "remove_without_choice:drop-guard:3": "a-trigger-without-a-legal-choice-leaves-the-chain",
    "remove_without_choice:keep-field:1": "a-trigger-without-a-legal-choice-leaves-the-chain",
}

#: Holes that only a second turn shows, since at one turn no turn starts: the turn's start
#: repeated, the start phase begun again, and the rune not readied as its controller's turn
#: starts.
CLOSED_TURN_START_HOLES = {
    "start_turn:keep-field:1": "each-phase-begins-once",
    "beginning_ends:keep-field:2": "each-phase-begins-once",
    "rune.awaken:keep-field:1": "a-rune-is-exhausted-to-add-energy",
}


def _one_per_property(holes: dict[str, str]) -> tuple[dict[str, str], dict[str, str]]:
    """``holes`` split in two: the first hole each property closes, and the others."""
    first: dict[str, str] = {}
    for mutant, prop in holes.items():
        if prop not in first.values():
            first[mutant] = prop
    return first, {m: p for m, p in holes.items() if m not in first}


@pytest.mark.slow
def test_the_holes_found_in_the_riftbound_chain_are_closed() -> None:
    """Each property that closed a hole still kills the first of its holes (CI's tier); the
    deep tier runs the others."""
    first, _ = _one_per_property(CLOSED_CHAIN_HOLES)
    _assert_closed(builtin_rulesets()["riftbound"], first)
    explained = mutate.explained_survivors("riftbound")
    assert {"pass_resolve:keep-field:4", "pass_resolve:keep-field:5"} <= set(explained)
    assert {"showdown_ends:keep-field:2", "contest:drop-guard:2"} <= set(explained)


@pytest.mark.deep
def test_every_hole_found_in_the_riftbound_chain_is_closed() -> None:
    _, rest = _one_per_property(CLOSED_CHAIN_HOLES)
    _assert_closed(builtin_rulesets()["riftbound"], rest)


@pytest.mark.deep
def test_the_holes_only_a_second_turn_shows_are_closed() -> None:
    _assert_closed(builtin_rulesets()["riftbound"], CLOSED_TURN_START_HOLES, {"turns": 2})


@pytest.mark.slow
def test_magic_core_kill_rate() -> None:
    report = mutate.run(
        select(CORE, bounds=ONE_TURN), ONE_TURN, explained=mutate.explained_survivors("magic")
    )
    counts = {s: report.count(s) for s in mutate_report.STATUSES}
    assert counts == {"killed": 61, "survived": 2, "equivalent": 83, "invalid": 0}
    assert report.holes == ()  # both survivors are explained


@pytest.mark.slow
def test_an_equivalent_whose_rule_never_fires_says_it_is_equivalent_within_the_bounds_only():
    """At one turn no Riftbound turn starts: start_turn's mutants are equivalent there only, and
    the report says so; a rule that fires gives its equivalents no such reason."""
    rs = builtin_rulesets()["riftbound"]
    got = _run(rs, ["start_turn:keep-field:1", "cleanup:keep-field:1"])
    assert got["start_turn:keep-field:1"].status == "equivalent"
    assert got["start_turn:keep-field:1"].reason == mutate.DORMANT
    assert got["cleanup:keep-field:1"].reason == ""
    # Two turns show the first one for what it is: a turn's start that runs again.
    again = _run(rs, ["start_turn:keep-field:1"], {"turns": 2})["start_turn:keep-field:1"]
    assert again.status == "killed" and "each-phase-begins-once" in again.killed_by


#: The rules that never fire on their rule set at one turn (their mutants were counted
#: equivalent there only: Riftbound's, and Magic's ending of combat), and two Riftbound card
#: triggers' resolutions beside them, each with the
#: shipped scenario that makes it fire and every mutant of it there with its outcome (pinned: a
#: change must be deliberate). The equivalents leave the graph unchanged though their rule
#: fires, except ``resolve``'s (DORMANT_EVERYWHERE): a unit's resolution that does not record
#: the unit as resolving while it enters the board (nothing reads that record there); 317.2.f
#: without its phase guard (only the expiration step sets the FEPR record it reads); and 317.2.f
#: without its FEPR guard, which the Echo's loop cannot show, since an item goes through FEPR in
#: each run of its step (at one turn the rule set kills both of those mutants).
DORMANT_RULE_SCENARIOS = {
    "expiration-starts-over-afresh": {
        "expiration_restarts:drop-guard:1": "equivalent",
        "expiration_restarts:drop-guard:2": "equivalent",
        "expiration_restarts:flip-comparison:1": "killed",
        "expiration_restarts:flip-comparison:2": "equivalent",
        "expiration_restarts:keep-field:1": "killed",
        "expiration_restarts:keep-field:2": "killed",
        "resolve:drop-guard:1": "killed",
        "resolve:flip-comparison:1": "killed",
        "resolve:keep-field:1": "equivalent",
        "resolve:keep-field:2": "equivalent",
    },
    "play-undone-at-legality-check": {
        "undo_illegal:drop-guard:1": "equivalent",  # no trigger is pending here: see below
        "undo_illegal:drop-guard:2": "killed",
        "undo_illegal:flip-comparison:1": "killed",
        "undo_illegal:flip-comparison:2": "killed",
        "undo_illegal:keep-field:1": "killed",
        "undo_illegal:keep-field:2": "survived",  # explained in checks/survivors
        "undo_illegal:keep-field:3": "equivalent",  # no permanent is undone: see below
        "undo_illegal:keep-field:4": "killed",
        "undo_illegal:keep-field:5": "killed",
        "undo_illegal:keep-field:6": "killed",
    },
    "mandate-copied": {  # Magic's ending of combat (724.2), which no Magic turn reaches
        "end_combat_a:drop-guard:1": "equivalent",  # nothing ends the turn here
        "end_combat_a:flip-comparison:1": "killed",
        "end_combat_b:drop-guard:1": "equivalent",  # nothing ends the turn here
        "end_combat_b:flip-comparison:1": "killed",
        "end_combat_d:keep-field:1": "equivalent",  # no mana here (mana=0)
        "end_combat_d:keep-field:2": "killed",
        "end_combat_d:keep-field:3": "killed",
        "end_combat_d:keep-field:4": "killed",
    },
    "units-played-from-hand": {
        "resolve_grim_sentinel:drop-guard:1": "killed",
        "resolve_grim_sentinel:flip-comparison:1": "killed",
        "resolve_grim_sentinel:keep-field:1": "equivalent",
        "resolve_grim_sentinel:keep-field:2": "killed",
        "resolve_grim_sentinel:keep-field:3": "killed",
        "resolve_grim_sentinel:flip-comparison:2": "killed",
        "resolve_grim_sentinel:keep-field:4": "killed",
        "resolve_t_grim:drop-guard:1": "killed",
        "resolve_t_grim:flip-comparison:1": "killed",
        "resolve_t_grim:keep-field:1": "killed",
        "resolve_t_grim:keep-field:2": "survived",  # explained in checks/survivors
        "resolve_spellwatcher:drop-guard:1": "killed",
        "resolve_spellwatcher:flip-comparison:1": "killed",
        "resolve_spellwatcher:keep-field:1": "equivalent",
        "resolve_spellwatcher:keep-field:2": "killed",
        "resolve_spellwatcher:keep-field:3": "killed",
        "resolve_spellwatcher:flip-comparison:2": "killed",
        "resolve_spellwatcher:keep-field:4": "killed",
        "resolve_t_spellwatcher:drop-guard:1": "killed",
        "resolve_t_spellwatcher:flip-comparison:1": "killed",
        "resolve_t_spellwatcher:keep-field:1": "killed",
        "resolve_t_spellwatcher:keep-field:2": "survived",  # explained in checks/survivors
        "resolve_t_spellwatcher:keep-field:3": "killed",
    },
}

#: Mutants that the scenarios' own expectations kill, with one expectation that does: the
#: expiration step's FEPR record left set as it starts over, and a unit that never leaves the
#: chain zone (left on the chain, or another slot put on the board instead).
CLOSED_DORMANT_HOLES = {
    "end_combat_d:keep-field:2": "creatures-leave-combat-with-it",
    "end_combat_d:keep-field:3": "creatures-leave-combat-with-it",
    "end_combat_d:keep-field:4": "ending-process-is-over-when-its-step-begins",
    "undo_illegal:keep-field:5": "an-undone-play-is-not-counted",
    "undo_illegal:keep-field:6": "no-chain-emptied-by-an-undo",
    "undo_illegal:drop-guard:2": "at-most-one-automatic-rule",
    "expiration_restarts:keep-field:2": "each-run-starts-afresh",
    "resolve_grim_sentinel:keep-field:2": "a-unit-is-on-the-chain-only-until-finalized",
    "resolve_grim_sentinel:flip-comparison:2": "a-unit-is-on-the-chain-only-until-finalized",
    "resolve_grim_sentinel:keep-field:4": "a-unit-is-on-the-chain-only-until-finalized",
    "resolve_grim_sentinel:keep-field:3": "nothing-resolves-once-it-has-finished",
    "resolve_spellwatcher:keep-field:2": "a-unit-is-on-the-chain-only-until-finalized",
    "resolve_spellwatcher:flip-comparison:2": "a-unit-is-on-the-chain-only-until-finalized",
    "resolve_spellwatcher:keep-field:4": "a-unit-is-on-the-chain-only-until-finalized",
    "resolve_spellwatcher:keep-field:3": "nothing-resolves-once-it-has-finished",
}

#: ``undo_illegal``'s two equivalents on its scenario change what it does to items that the
#: library never undoes: a triggered ability (one without a legal choice leaves the chain by
#: 402.3 instead) and a permanent (units and gear cost nothing and choose nothing, so they
#: always pass the legality check).
#: The generic resolution (``resolve``) is for an item whose card gives no resolution of its
#: own; every kind of the Riftbound library gives one, so it fires in no composition of the
#: library and the mutants that only change what it does stay equivalent within any bounds.
DORMANT_EVERYWHERE = {"resolve:keep-field:1", "resolve:keep-field:2"}


@pytest.mark.parametrize("name", sorted(DORMANT_RULE_SCENARIOS))
def test_rules_dormant_at_one_turn_are_tested_on_their_scenarios(name: str) -> None:
    pinned = DORMANT_RULE_SCENARIOS[name]
    rules = sorted({m.split(":")[0] for m in pinned})
    sc = loader.load_shipped(name)
    assert sc is not None
    selection = selection_of(sc.build())
    fired = explicit.rule_coverage(explicit.explore(selection.model))
    assert [r for r in rules if fired[r] == 0] == (["resolve"] if "resolve" in rules else [])
    explained = mutate.explained_survivors(sc.game)
    report = mutate.run(selection, rules=rules, explained=explained)
    got = {r.mutant.id: r for r in report.results}
    assert {m: r.status for m, r in got.items()} == pinned
    assert report.holes == ()  # every survivor is explained
    dormant = {m for m, r in got.items() if r.reason == mutate.DORMANT}
    assert dormant == DORMANT_EVERYWHERE & set(pinned)
    for mid, prop in CLOSED_DORMANT_HOLES.items():
        if mid in got:
            assert prop in got[mid].killed_by, (mid, got[mid].killed_by)
