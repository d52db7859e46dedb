"""`turnproof conformance`: the suite covers every rule that fires and every pair of rules
enabled in one state, each fixture replays through the interpreted rules, follows the published
schema, and catches an engine that gets a rule wrong (a mutant)."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path

import jsonschema
import pytest
from click.testing import CliRunner
from turnproof.checks.conformance import build_suite, replay
from turnproof.checks.explicit import explore, rule_coverage
from turnproof.model.packs import mutant_ruleset
from turnproof.model.registry import get_ruleset
from turnproof.model.rules import Model
from turnproof.reports.conformance import fixture_json, suite_files
from turnproof.scenarios.cli import cli

SMALL = {"magic": {"turns": 1}, "riftbound": {"turns": 1}, "bench": {}}
SCHEMA = json.loads(
    resources.files("turnproof.reports").joinpath("schema/conformance.schema.json").read_text()
)


@pytest.fixture(scope="module", params=sorted(SMALL))
def suite_of(request):  # type: ignore[no-untyped-def]
    model = Model(get_ruleset(request.param), SMALL[request.param])
    return model, build_suite(model)


def test_the_suite_fires_every_rule_and_meets_every_pair(suite_of) -> None:  # type: ignore[no-untyped-def]
    model, suite = suite_of
    ex = explore(model)
    fired = {k for k, n in rule_coverage(ex).items() if n}
    assert {r.split(" ", 2)[2] for r in suite.rules} == fired
    assert set().union(*(set(f.rules) for f in suite.fixtures)) == set(suite.rules)
    assert set().union(*(set(f.pairs) for f in suite.fixtures)) == set(suite.pairs)
    # Every pair is one that is enabled together in some explored state.
    assert suite.pairs and all(a != b for a, b in suite.pairs)
    # The suite is small next to the model: far fewer fixtures than rules plus pairs.
    assert len(suite.fixtures) <= len(suite.rules) + len(suite.pairs)
    assert suite.states == ex.states


def test_every_fixture_replays_through_the_interpreted_rules(suite_of) -> None:  # type: ignore[no-untyped-def]
    model, suite = suite_of
    assert all(replay(model, f) == [] for f in suite.fixtures)


def test_every_fixture_follows_the_published_schema(suite_of) -> None:  # type: ignore[no-untyped-def]
    model, suite = suite_of
    for f in suite.fixtures:
        doc = fixture_json(suite, f)
        jsonschema.validate(doc, SCHEMA)
        assert doc["ruleset"]["version"] == model.ruleset.version
        assert all(c.split(" ")[0] in ("MTG", "RB", "BENCH") or c for c in doc["citations"])


@pytest.mark.parametrize("mutant", ["no-second-cleanup", "bottom-resolves", "end-turn-restarts"])
def test_a_rule_an_engine_gets_wrong_fails_a_fixture(mutant: str) -> None:
    """Replayed on a rule set with a rule wrong (no second cleanup step, the bottom of the stack
    resolving, ending the turn restarting it), some Magic fixture no longer gives the states it
    records: the suite catches an engine with that bug, and says at which step."""
    base = get_ruleset("magic")
    suite = build_suite(Model(base, SMALL["magic"]))
    wrong = Model(mutant_ruleset(base, base.mutant(mutant)), SMALL["magic"])
    problems = [p for f in suite.fixtures for p in replay(wrong, f)]
    assert problems and all(p.startswith("step ") for p in problems)


@pytest.mark.parametrize(
    "mutant",
    [
        "priority-to-the-next-player",
        "priority-between-finalizations",
        "countered-card-is-played",
        "play-triggers-on-finalize",
        "legion-counts-itself",
    ],
)
def test_the_riftbound_suite_catches_the_bugs_open_engines_have(mutant: str) -> None:
    """The bugs found in open Riftbound engines: priority not kept by the newest item's
    controller after a resolution (or given while items are still pending), and a countered
    spell, or a finalized one, firing 'when you play a spell', or Legion counted wrong. The
    suite written under the default bounds (turns=1) fails an engine with any of them."""
    base = get_ruleset("riftbound")
    suite = build_suite(Model(base, SMALL["riftbound"]))
    wrong = Model(mutant_ruleset(base, base.mutant(mutant)), SMALL["riftbound"])
    problems = [p for f in suite.fixtures for p in replay(wrong, f)]
    assert problems and all(p.startswith(("step ", "the start")) for p in problems)


def test_an_engine_that_offers_an_illegal_choice_fails_a_fixture() -> None:
    """Every state a fixture passes through records the rule instances legal there: an engine
    that also lets the newest item's controller take priority while items are pending follows
    every recorded step, and is caught only by what it allows."""
    base = get_ruleset("riftbound")
    suite = build_suite(Model(base, SMALL["riftbound"]))
    wrong = Model(
        mutant_ruleset(base, base.mutant("priority-between-finalizations")), SMALL["riftbound"]
    )
    problems = [p for f in suite.fixtures for p in replay(wrong, f)]
    assert problems and all("also allows gain_priority" in p for p in problems)


def test_the_command_writes_the_suite_at_once_and_the_same_every_time(tmp_path: Path) -> None:
    runner = CliRunner()
    outs = []
    for name in ("a", "b"):
        out = tmp_path / name
        r = runner.invoke(cli, ["conformance", "bench", "--out", str(out)])
        assert r.exit_code == 0, r.output
        assert "fixtures" in r.output
        outs.append({p.relative_to(out): p.read_text() for p in out.rglob("*.json")})
    assert outs[0] == outs[1]
    names = sorted(str(p) for p in outs[0])
    assert "suite.json" in names and "fixtures/001.json" in names
    assert "fixtures/001.itf.json" in names
    itf = json.loads(outs[0][Path("fixtures/001.itf.json")])
    assert itf["#meta"]["format"] == "ITF" and itf["states"][0]["#meta"]["index"] == 0


def test_files_match_the_suite() -> None:
    model = Model(get_ruleset("bench"), {})
    suite = build_suite(model)
    files = suite_files(suite)
    assert len(files) == 1 + 2 * len(suite.fixtures)
    index = json.loads(files["suite.json"])
    assert (index["command"], index["kind"]) == ("conformance", "turnproof-conformance-suite")
    assert [f["name"] for f in index["fixtures"]] == [f.name for f in suite.fixtures]
    assert index["pairs"] == [list(p) for p in suite.pairs]
    assert all(list(p) in index["pairs"] for f in suite.fixtures for p in f.pairs)


def test_a_model_too_large_for_a_suite_is_refused() -> None:
    r = CliRunner().invoke(
        cli, ["conformance", "magic", "--bound", "turns=1", "--max-states", "10"]
    )
    assert r.exit_code == 2
    assert "more than 10 states" in r.output and "smaller bounds" in r.output
