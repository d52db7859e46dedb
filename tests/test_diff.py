"""Amendment files, ``turnproof diff`` and the shipped amendments: real runs of the explicit
engine, at small bounds, with the outcomes pinned (verdict changes, exit codes, divergence
steps, state counts)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from turnproof.checks.diff import load_bearing
from turnproof.checks.runner import select
from turnproof.model.registry import get_ruleset
from turnproof.scenarios import amend, cli
from turnproof.scenarios.outdir import MANIFEST

DATA = Path(__file__).parent / "data" / "amendments"


def invoke(*args: str) -> Result:
    return CliRunner().invoke(cli.cli, list(args))


def diff_json(*args: str) -> tuple[int, dict]:
    result = invoke("diff", *args, "--format", "json", "--no-progress")
    assert result.exit_code in (0, 1, 3), result.output
    return result.exit_code, json.loads(result.stdout)


def changed(doc: dict) -> dict[str, str]:
    return {c["name"]: c["change"] for c in doc["changes"] if c["change"] != "same"}


# -- the shipped amendments, each with its expected report -----------------------------------------


def test_the_shipped_amendments_are_listed() -> None:
    result = invoke("amendments")
    assert result.exit_code == 0
    names = [line.split()[0] for line in result.stdout.splitlines()]
    assert names == [
        "end-turn-keeps-waiting-triggers",
        "end-turn-skips-cleanup",
        "no-cleanup-repeat",
        "play-triggers-on-finalize",
        "saga-sacrifice-on-trigger",
    ]


def test_no_cleanup_repeat_gets_worse_and_diverges_at_514_3a() -> None:
    code, doc = diff_json("magic", "no-cleanup-repeat", "--bound", "turns=1")
    assert code == 1
    assert changed(doc) == {
        "eot-effects-end-before-next-turn": "worse",
        "cleanup-with-priority-repeats": "worse",
        "second-cleanup-step": "worse",
    }
    by_name = {b["property"]: b for b in doc["behaviours"]}
    repeats = by_name["cleanup-with-priority-repeats"]
    assert repeats["what"] == "newly violated" and repeats["found_in"] == "amended"
    step = repeats["replay"][repeats["diverges_at"] - 1]
    assert step["diverges"] and step["name"] == "pass_end_step"
    assert "514.3a" in repeats["divergence"]
    assert "step: CLEANUP instead of UNTAP" in repeats["divergence"]
    # every step before the divergence is the same in the base rule set
    assert all(r["base"] == "the same" for r in repeats["replay"][: repeats["diverges_at"] - 1])
    witness = by_name["second-cleanup-step"]
    assert witness["what"] == "no longer witnessed" and witness["found_in"] == "base"
    reach = doc["reachability"]
    assert (reach["base_states"], reach["amended_states"]) == (30819, 30676)
    assert (reach["became_reachable"], reach["became_unreachable"]) == (68, 211)
    # The report shows the shallowest of them, each with its shortest trace: the amended rule
    # set moves from a cleanup step with priority straight to the next turn's untap step; the
    # base ends that step into a new cleanup step, a state the amended set never reaches.
    gained, lost = reach["reachable_examples"], reach["unreachable_examples"]
    assert len(gained) == len(lost) == 3
    assert [len(t["steps"]) for t in gained] == [32, 38, 42]
    first = gained[0]["steps"][-1]
    assert first["name"] == "pass_end_step" and first["changed"]["step"] == ["CLEANUP", "UNTAP"]
    assert lost[0]["steps"][-1]["changed"]["stage"] == ["PRIORITY", "BEGIN"]
    assert "step" not in lost[0]["steps"][-1]["changed"]


def test_end_turn_skips_cleanup() -> None:
    code, doc = diff_json("magic", "end-turn-skips-cleanup", "--bound", "turns=1")
    assert code == 1
    assert changed(doc) == {
        "eot-effects-end-before-next-turn": "worse",
        "cleanup-with-priority-repeats": "worse",
        "end-turn-skips-to-cleanup": "worse",
    }
    skips = {b["property"]: b for b in doc["behaviours"]}["end-turn-skips-to-cleanup"]
    assert skips["replay"][skips["diverges_at"] - 1]["rule"] == "MTG 724.1d"


def test_waiting_triggers_survive_the_end_of_the_turn_with_the_files_cards() -> None:
    code, doc = diff_json("magic", "end-turn-keeps-waiting-triggers", "--bound", "turns=1")
    assert code == 1
    assert changed(doc)["end-turn-skips-to-cleanup"] == "worse"
    assert doc["base"]["bounds"]["waiting"] == 8  # the file's bounds
    assert "Day's Undoing" in " ".join(doc["base"]["ruleset"]["cards"])
    b = {b["property"]: b for b in doc["behaviours"]}["end-turn-skips-to-cleanup"]
    assert b["replay"][b["diverges_at"] - 1]["rule"] == "MTG 724.1a"


def test_play_triggers_fire_on_finalization() -> None:
    code, doc = diff_json("riftbound", "play-triggers-on-finalize", "--bound", "turns=1")
    assert code == 1
    assert changed(doc) == {"countered-card-fires-no-play-trigger": "worse"}
    b = doc["behaviours"][0]
    assert b["replay"][b["diverges_at"] - 1]["name"] == "finalize"
    assert b["replay"][b["diverges_at"] - 1]["rule"] == "RB 337.1.b"


def test_the_old_saga_sacrifice_timing_gets_worse_at_704_5s() -> None:
    """Sacrificed as soon as the final chapter triggers: the chapter ability is still waiting
    when the amended sba rule (704.3, with a Saga's 704.5s) fires, where the base puts the
    trigger on the stack instead."""
    code, doc = diff_json("magic", "saga-sacrifice-on-trigger", "--bound", "turns=1")
    assert code == 1
    assert changed(doc) == {
        "saga-waits-for-its-chapters": "worse",
        "saga-sacrificed-when-done": "worse",
    }
    b = next(b for b in doc["behaviours"] if b["property"] == "saga-waits-for-its-chapters")
    step = b["replay"][b["diverges_at"] - 1]
    assert step["rule"] == "MTG 704.3" and step["name"] == "sba"


def test_a_rule_set_against_itself_changes_nothing() -> None:
    code, doc = diff_json("bench", "bench")
    assert code == 0
    assert changed(doc) == {} and doc["behaviours"] == []
    assert doc["reachability"]["became_reachable"] == doc["reachability"]["became_unreachable"] == 0


# -- amendment files ------------------------------------------------------------------------------


def test_a_python_add_and_a_citation_remove_are_applied() -> None:
    code, doc = diff_json("bench", str(DATA / "bench-no-cleanup-trigger.toml"))
    assert doc["amended"]["ruleset"]["amended"] == ["remove cleanup_trigger", "add skip_untap"]
    # cleanup-terminates was expected to be violated (the cleanup loop): no longer
    assert code == 1 and changed(doc) == {"cleanup-terminates": "worse"}
    reach = doc["reachability"]
    assert [r["rule"] for r in reach["rules_only_amended"]] == ["skip_untap"]
    assert [r["rule"] for r in reach["rules_only_base"]] == ["cleanup_trigger"]
    lost = doc["behaviours"][0]
    assert lost["what"] == "no longer violated"
    step = lost["replay"][lost["diverges_at"] - 1]
    assert step["rule"] == "MTG 514.3a" and step["amended"] == "not enabled here"


def test_check_amend_lists_the_amendments_in_the_header() -> None:
    result = invoke(
        "check",
        "bench",
        "--engine",
        "explicit",
        "--amend",
        str(DATA / "bench-no-cleanup-trigger.toml"),
    )
    assert result.exit_code == 1, result.output
    assert "amended: remove cleanup_trigger; add skip_untap" in result.stdout


def _write(tmp_path: Path, body: str) -> str:
    path = tmp_path / "change.toml"
    path.write_text('format = 1\ntitle = "t"\nruleset = "magic"\n\n' + body)
    return str(path)


@pytest.mark.parametrize(
    ("body", "line", "message"),
    [
        ('[[remove]]\nrule = "MTG 514.3b"\n', 6, "did you mean 'MTG 514.3' or 'MTG 514.2'"),
        ('[[remove]]\nrule = "end_turn_dd"\n', 6, "did you mean 'end_turn_d'"),
        (
            '[[derive]]\nrule = "pass_end_step"\nclauses = {cleanup_repeat = false}\n',
            7,
            "no clause 'cleanup_repeat' (did you mean 'cleanup_repeats'?); its clauses: all_pass",
        ),
        (
            '[[derive]]\nrule = "end_turn_d"\nclauses = {then = "nxt turn"}\n',
            7,
            "is one of 'cleanup', 'end step', 'next turn', 'restart', not 'nxt turn'",
        ),
        ('[[variant]]\nname = "no-second-clean"\n', 6, "did you mean 'no-second-cleanup'"),
        ('[[remove]]\nrul = "untap"\n', 6, "unknown key 'rul' (did you mean 'rule'?)"),
        ('[[add]]\npython = "nowhere.py:r"\n', 6, "no file"),
    ],
)
def test_amendment_file_errors_name_file_line_and_choices(
    tmp_path: Path, body: str, line: int, message: str
) -> None:
    path = _write(tmp_path, body)
    out = tmp_path / "out"
    result = invoke("diff", "magic", path, "--out", str(out))
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr.startswith(f"turnproof: error: {path}:{line}: "), result.stderr
    assert message in result.stderr
    assert not out.exists()


def test_a_python_name_that_is_not_a_rule_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "extra_rules.py").write_text((DATA / "extra_rules.py").read_text())
    path = tmp_path / "change.toml"
    path.write_text(
        'format = 1\ntitle = "t"\nruleset = "bench"\n[[add]]\npython = "extra_rules.py:NOT_A_RULE"\n'
    )
    with pytest.raises(
        amend.AmendmentFileError, match=r"change.toml:5: .*NOT_A_RULE is a int, not a rule"
    ):
        amend.load(path)


def test_diff_out_writes_every_format(tmp_path: Path) -> None:
    out = tmp_path / "diff"
    result = invoke("diff", "bench", "bench", "--out", str(out), "--no-progress")
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in out.iterdir()) == [MANIFEST, "diff.json", "diff.md", "diff.txt"]
    assert (out / "diff.md").read_text().startswith("# Rule change: bench → bench")
    assert json.loads((out / "diff.json").read_text())["command"] == "diff"


def test_the_text_report_marks_the_divergence() -> None:
    path = str(DATA / "bench-no-cleanup-trigger.toml")
    result = invoke("diff", "bench", path, "--no-progress")
    assert result.exit_code == 1
    text = result.stdout
    assert "cleanup-terminates  worse" in re.sub(r" +", "  ", text)
    assert "◄ diverges" in text and "diverges at step" in text


# -- load-bearing rules ---------------------------------------------------------------------------


def test_load_bearing_rules_of_the_bench() -> None:
    lb = load_bearing(select(get_ruleset("bench")))
    table = {rule: marks for rule, _, marks in lb.table()}
    # without its cleanup trigger the bench's cleanup loop is gone; without the end of the
    # turn it deadlocks; activating an ability is load-bearing for neither property
    assert table["cleanup_trigger"] == {"cleanup-terminates": "R"}
    assert table["end_turn"] == {"no-deadlock": "R"}
    assert table["activate"] == {}
    assert len(lb.mutations) == len(get_ruleset("bench").rules)  # no keyword clauses
