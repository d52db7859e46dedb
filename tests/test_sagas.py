"""Sagas (MTG 714), read ahead (702.155) and proliferate (701.34): real outcomes of the explicit
engine (verdicts, traces and their citations), each Saga property broken by its mutant, the
rules-change variant, and the scenario file's Saga errors."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner
from turnproof.checks.explicit import check_properties, explore, rule_coverage
from turnproof.checks.results import Verdict
from turnproof.model.errors import ScenarioError
from turnproof.model.magic import card, compose_magic
from turnproof.model.packs import mutant_ruleset
from turnproof.model.rules import Model, Variant
from turnproof.scenarios import cli, loader

SAGA_PROPERTIES = (
    "saga-waits-for-its-chapters",
    "saga-sacrificed-when-done",
    "chapter-triggers-once-per-crossing",
    "saga-without-chapters-never-sacrificed",
)

#: Every Saga card of the library with the cards that act on Sagas: its properties and mutants.
ALL = compose_magic(
    [
        ("kiora-bests-the-sea-god", 0),
        ("chronicle", 0),
        ("foretold-chronicle", 1),
        ("blank-saga", 1),
        ("steady-progress", None),
        ("unwritten", None),
        ("stifle", None),
    ]
)
SAGA_MUTANTS = [m.name for m in ALL.mutants if set(m.breaks) & set(SAGA_PROPERTIES)]


def test_every_saga_property_applies_and_has_a_mutant_that_breaks_it() -> None:
    names = {p.name for p in ALL.properties}
    assert set(SAGA_PROPERTIES) <= names
    broken = {n for m in ALL.mutants for n in m.breaks}
    assert set(SAGA_PROPERTIES) <= broken
    # without a Saga the properties say nothing and are not there
    assert not set(SAGA_PROPERTIES) & {p.name for p in compose_magic([("pump", None)]).properties}


def test_saga_properties_hold_with_every_saga_card() -> None:
    bounds = {"turns": 1, "actions": 1, "mana": 0, "hand0": 7}
    props = [ALL.property(n) for n in SAGA_PROPERTIES]
    results = check_properties(Model(ALL, bounds), props)
    assert [(r.name, r.verdict) for r in results] == [
        (n, Verdict.EXHAUSTIVE) for n in SAGA_PROPERTIES
    ]
    assert all(not r.vacuous for r in results)


@pytest.mark.parametrize("name", SAGA_MUTANTS)
def test_saga_mutant_is_violated_with_a_trace(name: str) -> None:
    m = ALL.mutant(name)
    rs = mutant_ruleset(ALL, m, label=m.name)
    results = check_properties(
        Model(rs, {"turns": 1, **m.bounds}), [rs.property(n) for n in m.breaks]
    )
    for r in results:
        assert r.verdict is Verdict.VIOLATED, (name, r.name)
        assert r.trace is not None and r.trace.steps
        assert all(step.rule.startswith("MTG ") for step in r.trace.steps)


def test_sacrifice_on_trigger_is_caught_by_the_704_5s_sba() -> None:
    m = ALL.mutant("saga-sacrificed-on-trigger")
    rs = mutant_ruleset(ALL, m, label=m.name)
    prop = rs.property("saga-waits-for-its-chapters")
    (r,) = check_properties(Model(rs, {"turns": 1, **m.bounds}), [prop])
    assert r.verdict is Verdict.VIOLATED and "MTG 704.5s" in prop.citations
    last = r.trace.steps[-1]
    assert last.rule == "MTG 704.3" and "704.5s" in last.summary  # the one SBA rule
    assert last.changed["chron_on"] == [True, False]
    # the chapter III trigger was waiting as the Saga went (XMage #5013)
    before = r.trace.steps[-2]
    assert before.rule == "MTG 714.3b" and "pending" in before.changed


def _witness(name: str, prop: str):
    built = loader.load(loader.shipped_path(name)).build()
    (r,) = check_properties(built.model, [p for p in built.properties if p.name == prop])
    assert r.verdict is Verdict.WITNESSED
    return r.trace


def test_kiora_trace_adds_lore_in_the_first_main_phase_and_chapter_two_triggers() -> None:
    trace = _witness("kiora-bests-the-sea-god", "chapter-two-in-the-next-main-phase")
    tba = [s for s in trace.steps if s.rule == "MTG 714.3b" and "kiora_lore" in s.changed]
    last = tba[-1]
    assert last.changed["kiora_lore"] == [1, 2] and last.kind == "turn-based action"
    assert "714.3b" in last.rule and "precombat" in last.summary
    assert "KIORA_CH2" in str(last.changed["pending"][1])
    # chapter I triggered as it entered (714.3a)
    assert any(s.card == "Kiora Bests the Sea God" and "kiora_on" in s.changed for s in trace.steps)


def test_a_saga_without_chapters_gets_no_counters_and_stays() -> None:
    rs = compose_magic([("blank-saga", 0)])
    model = Model(rs, {"turns": 3, "actions": 0, "mana": 0})
    ex = explore(model)
    states = [ex.state(i) for i in range(ex.states)]
    assert {s.blank_lore for s in states} == {1}
    assert {s.blank_on for s in states} == {True}
    (r,) = check_properties(model, [rs.property("saga-without-chapters-never-sacrificed")])
    assert r.verdict is Verdict.EXHAUSTIVE


def test_the_rules_before_2025_sacrificed_a_saga_without_chapters() -> None:
    rs = compose_magic([("blank-saga", 0)]).amend(Variant("sagas-before-2025"), label="old")
    model = Model(rs, {"turns": 1, "actions": 0, "mana": 0})
    (r,) = check_properties(model, [rs.property("saga-without-chapters-never-sacrificed")])
    assert r.verdict is Verdict.VIOLATED
    assert r.trace.steps[-1].rule == "MTG 704.3"
    assert r.trace.steps[-1].changed["blank_on"] == [True, False]


def test_read_ahead_enters_with_the_chosen_count_and_skips_the_chapters_below() -> None:
    rs = compose_magic([card("foretold-chronicle", 0, "hand")])
    model = Model(rs, {"turns": 1, "actions": 1, "mana": 0})
    ex = explore(model)
    k = rs.setup.kinds
    states = [ex.state(i) for i in range(ex.states)]
    entered = [s for s in states if s.stage == 5 and s.res.what == k.FORETOLD]
    by_count = {
        s.foretold_lore: [it.what for it in s.pending.slots[: s.pending.length]] for s in entered
    }
    assert by_count == {1: [k.FORETOLD_CH1], 2: [k.FORETOLD_CH2], 3: [k.FORETOLD_CH3]}
    assert rule_coverage(ex)["enter_foretold"] > 0


def test_removing_a_lore_counter_lets_a_chapter_trigger_again() -> None:
    rs = compose_magic([("chronicle", 0), ("unwritten", 0)])
    model = Model(rs, {"turns": 3, "actions": 1, "mana": 0, "chron_lore": 2})
    prop = loader.loads(
        """format = 1
title = "again"
game = "magic"
[[card]]
name = "Chronicle"
controller = 0
counters = { lore = 2 }
[[card]]
name = "Unwritten"
controller = 0
[bounds]
turns = 3
actions = 1
mana = 0
[[property]]
name = "chapter-two-twice"
reachable = "once(fired(\\"MTG 608.2c\\") and res.what == CHRON_CH2) and pending.len == 1 and pending[0].what == CHRON_CH2"
""",
        "again.toml",
    ).build()
    assert prop.model.bounds == model.bounds
    (r,) = check_properties(prop.model, prop.properties)
    assert r.verdict is Verdict.WITNESSED
    assert any(s.card == "Unwritten" and "chron_lore" in s.changed for s in r.trace.steps)


# -- the scenario file's Saga errors ------------------------------------------------------------

BASE = """format = 1
title = "a Saga"
game = "magic"

[[card]]
name = "Foretold Chronicle"
controller = 0
zone = "hand"

[[card]]
name = "Chronicle"
controller = 1

[bounds]
turns = 1
"""

BAD = [
    (
        'zone = "hand"',
        'zone = "hand"\nread_ahead = 4',
        "read_ahead",
        "Foretold Chronicle: read_ahead 4 is out of range; valid choices: 1, 2, 3",
    ),
    (
        'zone = "hand"',
        'zone = "hand"\nread_ahead = 0',
        "read_ahead",
        "valid choices: 1, 2, 3",
    ),
    (
        "controller = 1",
        "controller = 1\nread_ahead = 2",
        "read_ahead",
        "Chronicle has no read ahead; cards that have it: Foretold Chronicle",
    ),
    (
        "controller = 1",
        "controller = 1\ncounters = { lore = 5 }",
        "counters",
        "Chronicle: lore counters 5 is out of range; valid choices: 0, 1, 2, 3, 4",
    ),
    (
        'name = "Chronicle"\ncontroller = 1',
        'name = "Steady Progress"\ncontroller = 1\ncounters = { lore = 1 }',
        "counters",
        "Steady Progress cannot have 'lore' counters; valid counters for it: (none)",
    ),
]


def _line_of(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if needle in line)


@pytest.mark.parametrize(("old", "new", "needle", "message"), BAD, ids=[b[3][:40] for b in BAD])
def test_saga_bad_input_gets_file_line_and_the_valid_choices(
    old: str, new: str, needle: str, message: str
) -> None:
    assert old in BASE
    text = BASE.replace(old, new, 1)
    with pytest.raises(ScenarioError) as exc:
        loader.loads(text, "case.toml")
    err = exc.value
    assert message in str(err), str(err)
    assert err.line == _line_of(text, needle), (str(err), needle)
    assert str(err).startswith(f"case.toml:{err.line}: ")


def test_a_read_ahead_choice_fixes_the_choice_and_a_bad_one_exits_2(tmp_path: Path) -> None:
    good = loader.loads(BASE.replace('zone = "hand"', 'zone = "hand"\nread_ahead = 2'), "ok.toml")
    built = good.build()
    assert built.model.bounds["foretold_choice"] == 2
    bad = tmp_path / "bad.toml"
    bad.write_text(BASE.replace('zone = "hand"', 'zone = "hand"\nread_ahead = 7'))
    result = CliRunner().invoke(cli.cli, ["check", str(bad)])
    assert result.exit_code == 2 and result.stdout == ""
    assert "bad.toml:9:" in result.stderr and "valid choices: 1, 2, 3" in result.stderr


def test_the_format_saga_example_builds() -> None:
    fmt = (Path(__file__).resolve().parent.parent / "scenarios" / "FORMAT.md").read_text()
    block = re.findall(r"```toml\n(.*?)```", fmt, re.S)[2]
    text = 'format = 1\ntitle = "sagas"\ngame = "magic"\n' + block
    built = loader.loads(text, "FORMAT.md").build()
    assert built.model.bounds["kiora_lore"] == 2 and built.model.bounds["foretold_choice"] == 2
    start = built.model.initial_states()[0]
    assert start.kiora_on and start.kiora_lore == 2
    assert start.foretold_hand and not start.foretold_on
