"""`turnproof consistency`: every inconsistency of a rule set, with rules, state and trace."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from turnproof.checks.explicit import explore, find_inconsistencies
from turnproof.model.magic import MAGIC
from turnproof.model.rules import Model
from turnproof.scenarios.cli import cli
from turnproof.scenarios.outdir import MANIFEST


def run(*args: str):
    return CliRunner().invoke(cli, list(args))


@pytest.mark.parametrize("game", ["magic", "riftbound"])
def test_rules_are_consistent_within_one_turn(game: str) -> None:
    r = run("consistency", game, "--bound", "turns=1", "--engine", "explicit")
    assert r.exit_code == 0, r.output
    assert "no inconsistency found" in r.output


def test_two_automatic_rules_at_once_are_found_with_their_rules_and_a_trace():
    r = run(
        "consistency",
        "magic",
        "--mutant",
        "cleanup-always-priority",
        "--bound",
        "turns=1",
        "--engine",
        "explicit",
        "--format",
        "json",
    )
    assert r.exit_code == 1
    doc = json.loads(r.output)
    (finding,) = doc["findings"]
    assert finding["check"] == "exclusive-automatic"
    assert finding["rules"] == ["MTG 117.5 receive_priority", "MTG 514.3 cleanup_ends_turn"]
    assert finding["state"]["step"] == "CLEANUP" and finding["state"]["stage"] == "CHECK"
    assert finding["trace"]["steps"][-1]["rule"] == "MTG 514.2"


def test_every_deadlock_group_is_listed():
    rs = MAGIC.amend(*MAGIC.mutant("no-step-end").amendments)
    findings = find_inconsistencies(explore(Model(rs, {"turns": 1})), most=5)
    assert len(findings) == 5 and {f.check for f in findings} == {"no-deadlock"}
    assert all(f.trace is not None and f.trace.steps for f in findings)


def test_bad_input_is_rejected_with_the_valid_choices():
    r = run("consistency", "magic", "--bound", "turn=1")
    assert r.exit_code == 2
    assert "valid bounds" in r.output


def test_both_engines_by_default_and_the_findings_written_into_a_folder(tmp_path):
    """As check does: both engines unless told otherwise, and --out writes the text and the
    JSON at once (the JSON the same document as --format json)."""
    out = tmp_path / "cons"
    r = run("consistency", "bench", "--out", str(out), "--format", "json")
    assert r.exit_code == 1, r.output
    doc = json.loads((out / "consistency.json").read_text())
    assert doc["engines"] == ["explicit", "symbolic"] and doc["command"] == "consistency"
    assert {f["check"] for f in doc["findings"]} == {"exclusive-automatic"}
    assert "exclusive-automatic: violated" in (out / "consistency.txt").read_text()
    assert sorted(p.name for p in out.iterdir()) == [
        MANIFEST,
        "consistency.json",
        "consistency.txt",
    ]


def test_a_folder_that_cannot_be_made_fails_before_the_run(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    r = run("consistency", "bench", "--out", str(blocker / "sub"))
    assert r.exit_code == 2 and "explicit:" not in r.output
