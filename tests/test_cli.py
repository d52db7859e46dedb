"""The ``turnproof`` command line and the runner behind it.

Most checks run on ``tiny`` (tests/tiny_ruleset.py: every part of a report shows on it);
``bench`` (always built in) covers the real registry; nothing here depends on ``magic``.

Golden files live in ``tests/golden``; ``pytest --regen-golden`` rewrites them.
"""

from __future__ import annotations

import json
import re
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result
from tiny_ruleset import TINY
from turnproof.checks import runner
from turnproof.checks.explicit import check_properties as explicit_check
from turnproof.checks.results import PropertyResult, Verdict
from turnproof.model.registry import builtin_rulesets
from turnproof.model.rules import Model
from turnproof.reports import json_report
from turnproof.scenarios import cli

Golden = Callable[[str, str], None]


def invoke(*args: str) -> Result:
    return CliRunner().invoke(cli.cli, list(args))


# -- check: exit codes and output --------------------------------------------------------------


def test_check_bench_property_that_holds_exits_0() -> None:
    result = invoke("check", "bench", "--engine", "explicit", "--property", "no-deadlock")
    assert result.exit_code == 0, result.output
    assert "no-deadlock" in result.stdout
    assert "EXHAUSTIVE within turns=3" in result.stdout
    assert result.stderr == ""


def test_state_limit_gives_unknown_and_exit_3() -> None:
    result = invoke(
        "check", "bench", "--engine", "explicit", "--property", "no-deadlock", "--max-states", "100"
    )
    assert result.exit_code == 3
    assert "UNKNOWN: exploration incomplete: state limit of 100 states" in result.stdout


def test_tiny_report_golden(with_tiny: None, golden: Golden) -> None:
    result = invoke("check", "tiny")
    assert result.exit_code == 1  # empty-stack-at-two and counter-settles fail
    assert "engine: explicit (default; the symbolic engine is not available)" in result.stdout
    golden("check_tiny.txt", result.stdout)


def test_tiny_json_golden(with_tiny: None, golden: Golden) -> None:
    result = invoke("check", "tiny", "--format", "json")
    assert result.exit_code == 1
    doc = json.loads(result.stdout)  # the whole of stdout is one JSON document
    assert doc["exit_code"] == 1
    assert result.stdout == json.dumps(doc, sort_keys=True, indent=2) + "\n"
    golden("check_tiny.json", result.stdout)


def test_json_shape() -> None:
    result = invoke("check", "bench", "--engine", "explicit", "--format", "json")
    doc = json.loads(result.stdout)
    assert doc["schema_version"] == json_report.SCHEMA_VERSION
    assert {"name", "version", "content_hash"} <= set(doc["ruleset"])
    assert doc["bounds"] == {"turns": 3, "cap": 3, "budget": 2, "cmax": 2}
    assert doc["properties"], "every property has a result"
    for prop in doc["properties"]:
        assert {"name", "verdict", "engine", "states", "seconds"} <= set(prop)
        assert prop["verdict"] in {v.value for v in Verdict}
        for step in prop.get("trace", []):
            assert {"rule", "summary", "decider", "changed"} <= set(step)
            assert all(len(pair) == 2 for pair in step["changed"].values())
    assert result.exit_code == doc["exit_code"]


def test_mutant_is_caught(with_tiny: None) -> None:
    result = invoke("check", "tiny", "--mutant", "no-start", "--property", "spinner-can-start")
    assert result.exit_code == 1
    assert "mutant: no-start: nobody can start the spinner" in result.stdout
    assert "bounds: cap=2" in result.stdout  # the mutant's own bounds
    assert "the mutant no-start is caught by: spinner-can-start" in result.stdout


def test_variant_and_bound(with_tiny: None) -> None:
    result = invoke(
        "check", "tiny", "--variant", "no-undo", "--bound", "cap=2", "--property", "counter-settles"
    )
    assert result.exit_code == 0, result.stdout
    assert "amended: variant no-undo" in result.stdout
    assert "bound reached: stack capacity" in result.stdout


# -- bad input -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["check", "nope"],
            "unknown rule set or scenario 'nope'; valid rule sets and scenarios: bench",
        ),
        (["check", "bench", "--property", "x"], "cleanup-terminates, no-deadlock"),
        (["check", "bench", "--bound", "turns"], "expected NAME=INT; bounds are budget, cap"),
        (["check", "bench", "--bound", "turns=two"], "is not a whole number"),
        (["check", "bench", "--bound", "turns=0"], "turns takes 1..1000"),
        (["check", "bench", "--bound", "nope=1"], "valid bounds: budget, cap, cmax, turns"),
        (["check", "tiny", "--mutant", "x"], "valid mutants: no-start"),
        (["check", "tiny", "--variant", "x"], "valid variants: no-undo"),
        (["check", "bench", "--engine", "x"], "'explicit', 'symbolic', 'both'"),
        (["check", "bench", "--max-states", "0"], "--max-states"),
        (["rules", "bench", "--cite", "999"], "valid rule citations: MTG 117.3c"),
        (["properties", "nope"], "valid rule sets: bench"),
        (["frobnicate"], "check, conformance, consistency, diff, explore, hunt, mutate"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(
    with_tiny: None, tmp_path: Path, args: list[str], message: str
) -> None:
    out = tmp_path / "reports"
    if args[0] == "check":
        args = [*args, "--out", str(out)]
    result = invoke(*args)
    assert result.exit_code == 2
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("turnproof: error: "), result.stderr
    assert message in lines[0]
    assert "Traceback" not in result.output
    assert not out.exists(), "nothing is written on bad input"


def test_missing_symbolic_engine_is_bad_input(monkeypatch: pytest.MonkeyPatch) -> None:
    def missing(name: str) -> Any:
        raise ImportError(f"No module named {name!r}")

    monkeypatch.setattr(runner.importlib, "import_module", missing)
    result = invoke("check", "bench", "--engine", "symbolic")
    assert result.exit_code == 2
    assert "the symbolic engine is not available" in result.stderr
    assert not runner.is_symbolic_available()


# -- --out -------------------------------------------------------------------------------------


def test_out_writes_the_reports(with_tiny: None, tmp_path: Path) -> None:
    out = tmp_path / "a" / "b"
    result = invoke("check", "tiny", "--format", "json", "--out", str(out))
    assert {"report.json", "report.txt", "report.md", "junit.xml"} <= {
        p.name for p in out.iterdir()
    }
    assert (out / "report.json").read_text() == result.stdout
    assert "state 0" in (out / "report.txt").read_text()
    assert f"wrote {out / 'report.json'}" in result.stderr


def test_out_on_a_file_is_bad_input(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    result = invoke("check", "bench", "--out", str(blocker))
    assert result.exit_code == 2
    assert result.stderr.startswith("turnproof: error: ")
    assert blocker.read_text() == "x"


# -- listings ----------------------------------------------------------------------------------


def test_rules_and_properties_golden(with_tiny: None, golden: Golden) -> None:
    rules = invoke("rules", "tiny")
    props = invoke("properties", "tiny")
    assert rules.exit_code == props.exit_code == 0
    assert "player's choice (decided by: player 1)" in rules.stdout
    assert f"content hash {TINY.content_hash()}" in rules.stdout
    golden("rules_tiny.txt", rules.stdout + "\n" + props.stdout)


def test_rules_cite_and_json(with_tiny: None) -> None:
    result = invoke("rules", "tiny", "--cite", "1", "--format", "json")
    doc = json.loads(result.stdout)
    assert doc["cited"] == {"asked": "1", "today": "TEST 1"}
    assert [r["name"] for r in doc["rules"]] == ["advance", "push", "undo"]
    assert doc["content_hash"] == TINY.content_hash()


def test_rulesets_lists_bench() -> None:
    result = invoke("rulesets")
    assert result.exit_code == 0
    assert re.search(r"^bench\s+MTG\s+turn-loop benchmark", result.stdout, re.M)
    doc = json.loads(invoke("rulesets", "--format", "json").stdout)
    assert {"name", "game", "version", "description"} <= set(doc["rulesets"][0])


@pytest.mark.parametrize("command", ["check", "rules", "properties", "rulesets"])
def test_help_explains_with_an_example(command: str) -> None:
    result = invoke(command, "--help")
    assert result.exit_code == 0
    assert "Examples:" in result.stdout
    assert f"turnproof {command}" in result.stdout


def test_default_ruleset_prefers_magic() -> None:
    name = cli.default_ruleset_name()
    assert name == ("magic" if "magic" in builtin_rulesets() else next(iter(builtin_rulesets())))


# -- the runner: two engines, one answer ---------------------------------------------------------


def fake_symbolic(flip: dict[str, Verdict]) -> types.SimpleNamespace:
    """A stand-in symbolic engine: the explicit answers, with some verdicts replaced."""

    def check_properties(model: Model, properties: list[Any]) -> list[PropertyResult]:
        results = explicit_check(model, properties)
        for r in results:
            r.engine = "symbolic"
            r.verdict = flip.get(r.name, r.verdict)
        return results

    return types.SimpleNamespace(check_properties=check_properties)


@pytest.mark.parametrize(
    ("flip", "disagree"),
    [
        ({"empty-stack-at-two": Verdict.PROVED}, "explicit says VIOLATED, symbolic says PROVED"),
        ({"spinner-can-start": Verdict.EXHAUSTIVE}, "WITNESSED, symbolic says EXHAUSTIVE"),
        ({"no-deadlock": Verdict.VIOLATED}, "EXHAUSTIVE, symbolic says VIOLATED"),
        ({"no-deadlock": Verdict.PROVED}, None),
        ({"spinner-stops": Verdict.UNKNOWN}, None),
    ],
)
def test_disagreement_is_a_failing_result(
    monkeypatch: pytest.MonkeyPatch, flip: dict[str, Verdict], disagree: str | None
) -> None:
    monkeypatch.setattr(runner, "load_symbolic", lambda: fake_symbolic(flip))
    model = Model(TINY)
    report = runner.run_check(model, TINY.properties, ("explicit", "symbolic"))
    assert report.engines == ["explicit", "symbolic"]
    both = [r for r in report.results if r.engine == "both"]
    assert len(report.results) == 2 * len(TINY.properties) + len(both)
    if disagree is None:
        assert both == []
        return
    (r,) = both
    assert r.name in flip and r.verdict is Verdict.VIOLATED and not r.meets_expectation
    assert r.reason.startswith("engines disagree: ")
    assert disagree in r.reason
    assert report.exit_code == 1
    # The disagreement follows the two results it compares.
    i = report.results.index(r)
    assert [x.engine for x in report.results[i - 2 : i]] == ["explicit", "symbolic"]


def test_parse_bound() -> None:
    assert runner.parse_bound("turns=4") == ("turns", 4)
    with pytest.raises(runner.BoundsError, match="bounds are a, b"):
        runner.parse_bound("=4", ["b", "a"])
