"""Scenario files: the format's example loads, every kind of bad input gets one precise error
with its file and line, a fuzzer never gets anything else, and a scenario is plain data that
builds the same rules anywhere."""

from __future__ import annotations

import pickle
import re
import string
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from hypothesis import given, settings
from hypothesis import strategies as st
from turnproof.checks.results import Verdict
from turnproof.checks.runner import run_selection, selection_of
from turnproof.model.errors import ScenarioError
from turnproof.model.scenario import Scenario
from turnproof.scenarios import cli, loader

ROOT = Path(__file__).resolve().parent.parent
FORMAT = (ROOT / "scenarios" / "FORMAT.md").read_text(encoding="utf-8")
EXAMPLE = re.search(r"```toml\n(.*?)```", FORMAT, re.S).group(1)  # type: ignore[union-attr]

BASE = """format = 1
title = "a small case"
game = "magic"

[[card]]
name = "Sundial of the Infinite"
controller = 0

[[card]]
name = "Sarkhan, the Dragonspeaker"
controller = 0

[bounds]
turns = 1

[start]
step = "MAIN1"
stage = "priority"
hands = [8, 7]

[[property]]
name = "hand-bound"
always = "hand[0] <= 8"
"""


def error_of(text: str) -> ScenarioError:
    with pytest.raises(ScenarioError) as exc:
        loader.loads(text, "case.toml")
    return exc.value


def line_of(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if needle in line)


def test_the_format_example_loads_and_builds() -> None:
    sc = loader.loads(EXAMPLE, "FORMAT.md")
    built = sc.build()
    assert built.cards == (
        "Rielle, the Everwise",
        "Sarkhan, the Dragonspeaker",
        "Sundial of the Infinite",
    )
    start = built.model.initial_states()[0]
    kinds = built.ruleset.setup.kinds
    assert start.step.name == "MAIN1" and start.stage.name == "PRIORITY" and start.prio == 0
    assert start.hand == (9, 7) and start.dmg == (1, 0) and start.sark_loyalty == 5
    assert start.stack.length == 1 and start.stack.slots[0].what == kinds.SUNDIAL
    assert [p.name for p in built.properties] == [
        "end-turn-skips-to-cleanup",
        "hand-size-enforced",
        "discard-trigger-survives",
        "cleanup-ends",
    ]
    assert built.verdicts == {
        "hand-size-enforced": {"explicit": "EXHAUSTIVE", "symbolic": "PROVED"}
    }
    assert sc.for_all == ("turns",) and sc.states == 12345


def test_a_scenario_runs_and_compares_with_its_expectations() -> None:
    text = BASE + "\n[expect]\nstates = 1\n"
    built = loader.loads(text, "case.toml").build()
    report = run_selection(selection_of(built), ("explicit",))
    by_name = {r.name: r for r in report.results}
    assert by_name["hand-bound"].verdict is Verdict.EXHAUSTIVE
    count = by_name["state-count"]
    assert count.verdict is Verdict.VIOLATED and "expects 1 states" in count.reason
    assert report.exit_code == 1
    states = count.states
    ok = loader.loads(BASE + f"\n[expect]\nstates = {states}\n", "case.toml").build()
    assert run_selection(selection_of(ok), ("explicit",)).exit_code == 0


def test_a_pinned_verdict_must_be_met() -> None:
    text = BASE + '[property.verdicts]\nexplicit = "VIOLATED"\n'
    built = loader.loads(text, "case.toml").build()
    report = run_selection(selection_of(built), ("explicit",))
    (r,) = [r for r in report.results if r.name == "hand-bound"]
    assert r.pinned == "VIOLATED" and not r.meets_expectation and report.exit_code == 1


def test_a_scenario_is_plain_data_that_builds_the_same_rules() -> None:
    sc = loader.loads(EXAMPLE, "FORMAT.md")
    again = pickle.loads(pickle.dumps(sc))
    assert again == sc and hash(again) == hash(sc)
    assert again.build().ruleset.content_hash() == sc.build().ruleset.content_hash()
    plain = Scenario("magic", "magic")
    assert plain.build().ruleset.content_hash() == plain.build().ruleset.content_hash()


BAD = [
    # (what to change in BASE, the line that is wrong, what the message says)
    ("format = 1", "format = 2", "format", "is not one of 1"),
    ('title = "a small case"', 'title = "a small case\n', "title", "not valid TOML"),
    (
        'name = "Sundial of the Infinite"',
        'name = "Sundail of the Infinite"',
        "Sundail",
        "unknown card 'Sundail of the Infinite' (did you mean 'Sundial of the Infinite'?)",
    ),
    (
        'name = "Sundial of the Infinite"',
        'name = "Shock"\nzone = "battlefield"',
        "zone",
        "Shock cannot be in zone 'battlefield'; valid zones for it: hand",
    ),
    (
        'name = "Sarkhan, the Dragonspeaker"\ncontroller = 0',
        'name = "Sarkhan, the Dragonspeaker"\ncontroller = 0\ncounters = { loyalty = 4, lore = 1 }',
        "counters",
        "cannot have 'lore' counters; valid counters for it: loyalty",
    ),
    (
        'name = "Sarkhan, the Dragonspeaker"\ncontroller = 0',
        'name = "Sarkhan, the Dragonspeaker"\ncontroller = 5',
        "controller = 5",
        "player 5 does not exist; players are 0..1",
    ),
    (
        'name = "Sundial of the Infinite"\ncontroller = 0',
        'name = "Sarkhan, the Dragonspeaker"\ncontroller = 0',
        "[[card]]",
        "in play twice",
    ),
    ("turns = 1", "turns = 1\nturnz = 2", "turnz", "unknown bound 'turnz' (did you mean 'turns'?)"),
    ("turns = 1", "turns = 99", "[bounds]", "turns=99 is out of range; turns takes 1..12"),
    ('step = "MAIN1"', 'step = "MAIN"', "step", "unknown step 'MAIN' (did you mean"),
    (
        "hands = [8, 7]",
        "hands = [8, 17]",
        "hands",
        "does not fit: hands hold 0..10 (the bound hand_cap)",
    ),
    ("hands = [8, 7]", "hands = [8]", "hands", "one hand size per player (2)"),
    (
        "hands = [8, 7]",
        'hands = [8, 7]\nstack = [{card="Sundial of the Infinite"}, {card="Sundial of the Infinite"}, '
        '{kind="SARKHAN"}, {kind="SARKHAN"}]',
        "stack",
        "4 objects do not fit: the stack holds at most 3 (the bound stack)",
    ),
    (
        "hands = [8, 7]",
        'hands = [8, 7]\nstack = [{kind="PUMP"}]',
        "stack",
        "unknown object kind 'PUMP'",
    ),
    (
        "hands = [8, 7]",
        "hands = [8, 7]\n[start.fields]\nsark_loyality = 3",
        "sark_loyality",
        "unknown field 'sark_loyality' (did you mean 'sark_loyalty'",
    ),
    (
        "hands = [8, 7]",
        "hands = [8, 7]\n[start.fields]\nsark_loyalty = 30",
        "sark_loyalty",
        "30 is outside 0..5",
    ),
    (
        'always = "hand[0] <= 8"',
        'always = "hand[0] <= 8 and lands > 2"',
        "always",
        "unknown name 'lands'",
    ),
    ('always = "hand[0] <= 8"', 'always = "hand.__class__"', "always", "dunder"),
    (
        'name = "hand-bound"',
        'name = "hand-bound"\nexpect = "hold"',
        "expect",
        "'hold' is not one of 'holds', 'violated' or 'witnessed' (did you mean 'holds'?)",
    ),
    (
        'name = "hand-bound"\nalways = "hand[0] <= 8"',
        'name = "cleanup-terminate"',
        "cleanup-terminate",
        "unknown property 'cleanup-terminate' (did you mean 'cleanup-terminates'",
    ),
    (
        'name = "hand-bound"',
        'name = "hand-bound"\nreachable = "turn == 1"',
        "[[property]]",
        "a property has one kind",
    ),
    (
        'stage = "priority"',
        'stage = "priority"\npriorty = 1',
        "priorty",
        "unknown key 'priorty' (did you mean 'priority'?)",
    ),
    (
        'game = "magic"',
        'game = "magik"',
        "game",
        "unknown rule set 'magik' (did you mean 'magic'?)",
    ),
    (
        'game = "magic"',
        'game = "magic"\nrules = "CR 2019"',
        "rules",
        "this rule set models CR 2026-02-27",
    ),
    (
        'game = "magic"',
        'game = "magic"\nmutant = "napap"',
        "mutant",
        "unknown mutant 'napap' (did you mean 'napap-order'?)",
    ),
    (
        'stage = "priority"',
        'stage = "priority"\nwaiting = [{kind = "SARKHAN"}]',
        "waiting",
        "nothing waits while a player has priority",
    ),
]


RB_BASE = """format = 1
title = "a small Riftbound case"
game = "riftbound"

[[card]]
name = "Strike"

[[card]]
name = "Denial"
controller = 1

[[card]]
name = "Grim Sentinel"
controller = 1

[start]
stage = "priority"
chain = [
  { card = "Strike", controller = 0, target = 0 },
  { card = "Denial", controller = 1, target = 0 },
]
"""


RB_BAD = [
    # (what to change in RB_BASE, the line that is wrong, what the message says)
    (
        'name = "Strike"',
        'name = "Sundial of the Infinite"',
        "Sundial",
        "unknown card 'Sundial of the Infinite' in the riftbound library (it is a card of rule "
        "set magic); valid cards: Call to Arms, Denial, Firebrand, Grim Sentinel, Iron Ward, "
        "Lingering Echo, Rally, Rune, Scholar's Tome, Spellwatcher, Strike, Sundown Bell, Twin "
        "Insight",
    ),
    ('name = "Strike"', 'name = "Strik"', "Strik", "unknown card 'Strik' (did you mean 'Strike'?)"),
    (
        '{ card = "Denial", controller = 1, target = 0 }',
        '{ card = "Strike", controller = 1, target = 0 }',
        'card = "Strike", controller = 1',
        "Strike is not a Reaction: it lies above the first item, so it was played in a Closed "
        "state, where only Reaction cards may be played (RB 309.1.a)",
    ),
    (
        '{ card = "Denial", controller = 1, target = 0 }',
        '{ card = "Denial", target = 0 }',
        'card = "Denial"',
        "an item on the chain names its controller (controller = 0..1): the player who played "
        "it and makes its choices",
    ),
    (
        '{ card = "Strike", controller = 0, target = 0 }',
        '{ card = "Strike", controller = 0, target = 0, finalized = false }',
        'card = "Denial"',
        "Denial is finalized above a pending item: pending items are finalized oldest first "
        "(RB 337.1.b)",
    ),
    (
        'stage = "priority"',
        'stage = "open"',
        "stage",
        "an Open state (RB 307) has no chain",
    ),
    ('stage = "priority"', 'stage = "prio"', "stage", "unknown stage 'prio' (did you mean"),
    (
        'stage = "priority"',
        'stage = "priority"\nphse = "MAIN"',
        "phse",
        "unknown key 'phse' (did you mean 'phase'?)",
    ),
    (
        '{ card = "Strike", controller = 0, target = 0 }',
        '{ card = "Strike", controller = 0, target = 0, n = 2 }',
        "n = 2",
        "Riftbound objects have no 'n'",
    ),
]

CASES = [(BASE, *b) for b in BAD] + [(RB_BASE, *b) for b in RB_BAD]


@pytest.mark.parametrize(
    ("base", "old", "new", "needle", "message"),
    CASES,
    ids=[f"{'rb' if base is RB_BASE else 'mtg'}: {b[3][:40]}" for base, *b in CASES],
)
def test_bad_input_gets_file_line_and_the_valid_choices(
    base: str, old: str, new: str, needle: str, message: str
) -> None:
    assert old in base
    text = base.replace(old, new, 1)
    err = error_of(text)
    assert err.path == "case.toml"
    assert message in str(err), str(err)
    assert err.line == line_of(text, needle), (str(err), needle)
    assert str(err).startswith(f"case.toml:{err.line}: ")


def test_a_file_that_cannot_be_read_or_decoded(tmp_path: Path) -> None:
    with pytest.raises(ScenarioError, match="cannot read the scenario"):
        loader.load(tmp_path / "missing.toml")
    bad = tmp_path / "latin.toml"
    bad.write_bytes(b'format = 1\ntitle = "caf\xe9"\n')
    with pytest.raises(ScenarioError, match=r"latin\.toml:2: the file is not UTF-8"):
        loader.load(bad)


TOKENS = [
    "format = 1\n",
    'title = "t"\n',
    'game = "magic"\n',
    "[[card]]\n",
    'name = "Shock"\n',
    "controller = 1\n",
    "[bounds]\n",
    "turns = 1\n",
    "[start]\n",
    'step = "END"\n',
    "hands = [1, 2]\n",
    "[[property]]\n",
    'name = "p"\n',
    'always = "turn >= 0"\n',
    'reachable = "step == CLEANUP"\n',
    "[expect]\n",
    "states = 3\n",
    "= = \n",
    "[\n",
    '"\n',
    'stack = [{kind = "SHOCK", controller = 0}]\n',
    "[start.fields]\n",
    "dmg = [1, 0]\n",
    'stage = "priority"\n',
    "x = 1\n",
    "counters = {loyalty = 9}\n",
    'zone = "hand"\n',
]


@settings(max_examples=150, deadline=None)
@given(
    st.lists(st.sampled_from(TOKENS), max_size=14)
    | st.text(alphabet=string.printable, max_size=80).map(lambda t: [t])
)
def test_the_loader_never_fails_but_with_a_scenario_error(parts: list[str]) -> None:
    text = "".join(parts)
    try:
        loader.loads(text, "fuzz.toml")
    except ScenarioError as exc:
        assert str(exc).startswith("fuzz.toml")


# -- the command line ---------------------------------------------------------------------------


def invoke(*args: str) -> Result:
    return CliRunner().invoke(cli.cli, list(args))


def test_scenarios_lists_the_shipped_ones_with_their_titles() -> None:
    result = invoke("scenarios")
    assert result.exit_code == 0
    shipped = loader.shipped()
    assert shipped and all(s.title for s in shipped)
    for s in shipped:
        assert f"{s.name}  " in result.stdout and s.title in result.stdout


def test_cards_lists_the_library_with_text_and_rules() -> None:
    result = invoke("cards", "magic")
    assert result.exit_code == 0
    out = result.stdout
    assert "Sundial of the Infinite  [sundial-of-the-infinite]" in out
    assert "End the turn. Activate only during your turn." in out
    assert "rule MTG 602.5d activate_sundial" in out
    assert "Pump (abstract)" in out and "counters: loyalty (sets bound loyalty)" in out
    assert invoke("cards", "bench").exit_code == 2


def test_check_a_file_with_bad_input_is_one_line_exit_2_and_writes_nothing(tmp_path: Path) -> None:
    case = tmp_path / "my-case.toml"
    case.write_text(BASE.replace('step = "MAIN1"', 'step = "MAIN3"'), encoding="utf-8")
    out = tmp_path / "out"
    result = invoke("check", str(case), "--out", str(out))
    assert result.exit_code == 2 and result.stdout == ""
    line = line_of(BASE, 'step = "MAIN1"')
    assert result.stderr.startswith(f"turnproof: error: {case}:{line}: unknown step 'MAIN3'")
    assert len(result.stderr.splitlines()) == 1 and not out.exists()


def test_check_a_file_runs_its_properties(tmp_path: Path) -> None:
    case = tmp_path / "my-case.toml"
    case.write_text(BASE, encoding="utf-8")
    result = invoke("check", str(case), "--engine", "explicit", "--no-progress")
    assert result.exit_code == 0, result.output
    assert f"scenario my-case: a small case ({case})" in result.stdout
    assert "hand-bound" in result.stdout and "EXHAUSTIVE" in result.stdout


def test_a_scenario_says_its_own_bounds() -> None:
    name = loader.shipped()[0].name
    result = invoke("check", name, "--bound", "turns=2")
    assert result.exit_code == 2
    assert "--bound cannot change scenario" in result.stderr


def test_check_a_riftbound_file_with_bad_input_is_one_line_exit_2(tmp_path: Path) -> None:
    case = tmp_path / "case.toml"
    case.write_text(RB_BASE.replace("controller = 1, target", "target", 1), encoding="utf-8")
    result = invoke("check", str(case))
    assert result.exit_code == 2 and result.stdout == ""
    assert "an item on the chain names its controller" in result.stderr
    assert len(result.stderr.splitlines()) == 1
