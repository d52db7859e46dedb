"""The Riftbound rule set as a user meets it: its listing and citations (old numbers too), its
pinned state count and rule coverage, its card library, and the Riftbound start the format
documents (the bad input a Riftbound scenario can hold is in test_scenarios.py, with Magic's)."""

from __future__ import annotations

import json
import re
from pathlib import Path

from click.testing import CliRunner, Result
from turnproof.checks.explicit import explore, rule_coverage
from turnproof.model.riftbound import RB_VERSION, RIFTBOUND
from turnproof.model.rules import Model
from turnproof.scenarios import cli, loader

ROOT = Path(__file__).resolve().parent.parent
FORMAT = (ROOT / "scenarios" / "FORMAT.md").read_text(encoding="utf-8")


def invoke(*args: str) -> Result:
    return CliRunner().invoke(cli.cli, list(args))


def test_every_rule_cites_the_pinned_rules_and_says_what_it_does() -> None:
    assert RIFTBOUND.version == RB_VERSION == "Riftbound Core Rules v1.3 (2026-03-30)"
    for r in RIFTBOUND.rules:
        assert re.fullmatch(r"RB \d{3}(\.\d+)?(\.[a-z])?", r.citation), r.citation
        assert r.summary, r.name
        assert r.is_automatic or r.decider is not None
    cards = {r.card for r in RIFTBOUND.rules if r.card}
    assert cards == set(RIFTBOUND.card_names())  # every card in play adds a rule that cites it


def test_rules_lists_every_rule_with_its_citation() -> None:
    result = invoke("rules", "riftbound")
    assert result.exit_code == 0
    out = result.stdout
    assert out.startswith(f"rule set riftbound (RB), version {RB_VERSION}")
    for r in RIFTBOUND.rules:
        assert f"{r.citation}" in out and r.name in out
    assert "RB 738.1.c.1 (edition riftjudge) is today's RB 812.1.c" in out
    doc = json.loads(invoke("rules", "riftbound", "--format", "json").stdout)
    assert len(doc["rules"]) == len(RIFTBOUND.rules)


def test_old_legion_number_resolves_to_todays() -> None:
    assert RIFTBOUND.resolve_citation("738.1.c.1") == "RB 812.1.c"
    result = invoke("rules", "riftbound", "--cite", "RB 738.1.c.1")
    assert result.exit_code == 0
    assert "RB 738.1.c.1 is today's RB 812.1.c" in result.stdout
    assert "resolve_rally" in result.stdout
    assert [r.name for r in RIFTBOUND.find_rules("RB 337.1")] == [
        "finalize",
        "finalize_choosing",
        "resolve_firebrand",
        "resolve_grim_sentinel",
        "resolve_rune_add",
        "resolve_spellwatcher",
    ]


def test_rulesets_and_cards_list_riftbound() -> None:
    sets = invoke("rulesets")
    assert sets.exit_code == 0 and "riftbound" in sets.stdout and RB_VERSION in sets.stdout
    cards = invoke("cards", "riftbound")
    assert cards.exit_code == 0
    assert "Strike (abstract)  [strike]" in cards.stdout
    assert "rule RB 812.1.c resolve_rally" in cards.stdout
    assert "Lingering Echo (abstract)" in cards.stdout


def test_default_state_count_is_pinned_and_every_rule_is_covered() -> None:
    ex = explore(Model(RIFTBOUND))
    assert ex.complete and ex.states == 35_490  # pinned: a change in the model must be deliberate
    assert dict(ex.bound_cuts) == {"chain": 72}
    unused = sorted(name for name, n in rule_coverage(ex).items() if n == 0)
    # The permanents that start on the board are never played; every kind has a resolution of
    # its own (so the generic one never fires); nothing keeps adding to the chain in the
    # expiration step; and a card that would fail its legality check is never offered (358.4's
    # undo is for cards an instruction plays, and the default ones always pass)
    assert unused == [
        "expiration_restarts",
        "resolve",
        "resolve_grim_sentinel",
        "resolve_spellwatcher",
        "undo_illegal",
    ]


def test_the_format_documents_a_riftbound_start_that_loads() -> None:
    block = re.findall(r"```toml\n(.*?)```", FORMAT, re.S)[1]
    cards = '\n[[card]]\nname = "Strike"\n\n[[card]]\nname = "Denial"\ncontroller = 1\n'
    cards += '\n[[card]]\nname = "Grim Sentinel"\ncontroller = 1\n'
    text = 'format = 1\ntitle = "t"\n' + block + cards
    start = loader.loads(text, "FORMAT.md").build().model.initial_states()[0]
    assert start.chain.length == 2 and start.prio == 1 and start.stage.name == "PRIORITY"


def test_an_undone_lone_play_leaves_no_chain_behind() -> None:
    """358.4: everything is undone. A card that alone made the state Closed and fails its
    legality check takes its chain with it: the state is Open as before the play, with no
    record of an opener, so 346 has no emptied chain to pass Focus for. (Plays whose cost
    cannot be paid are offered here, by a mutant of ``play`` only, so that undoing happens.)"""
    from turnproof.model.packs import mutant_ruleset

    m = RIFTBOUND.mutant("unpayable-plays-offered")
    model = Model(mutant_ruleset(RIFTBOUND, m), dict(m.bounds))
    ex = explore(model)
    describe = model.schema.describe_value
    undone = 0
    for e in range(ex.transitions):
        if model.actions[ex.act[e]].rule.name != "undo_illegal":
            continue
        s, t = describe(ex.state(ex.src[e])), describe(ex.state(ex.dst[e]))
        if t["chain"] or t["waiting"]:
            assert t["opener"] == s["opener"]  # another item opened it: still on record
            continue
        undone += 1
        assert (s["opener"], t["opener"], t["focus"]) == ("CARD", "NONE", s["focus"])
        after = {model.actions[ex.act[f]].rule.name for f in ex.out_edges(ex.dst[e])}
        assert "becomes_open" not in after
    assert undone > 100  # in showdowns and out of them
