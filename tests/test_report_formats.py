"""The report formats that ``turnproof check --out DIR`` writes, on the ``tiny`` rule set.

Every format renders from one proof-report value, so each test here checks a format's own
promise: Markdown and JUnit are pinned by golden files (``pytest --regen-golden``), JUnit's
pass and fail are the exit code's, the ITF traces validate against a JSON Schema written from
the ITF specification and replay the text report's trace, and the folder is written as a set,
readable, and checked before the run.
"""

from __future__ import annotations

import json
import os
import xml.etree.ElementTree as ET
from collections.abc import Callable
from pathlib import Path

import jsonschema
import pytest
from click.testing import CliRunner, Result
from turnproof.checks.results import LoopExit, Outcome, Trace, TraceStep, Verdict, trace_states
from turnproof.reports import itf
from turnproof.reports.document import Run, build_report
from turnproof.scenarios import cli, outdir

Golden = Callable[..., None]
SCHEMA = json.loads((Path(__file__).parent / "itf.schema.json").read_text(encoding="utf-8"))
SET = ["junit.xml", "report.html", "report.json", "report.md", "report.txt", "traces"]
TRACES = [
    "counter-settles-explicit.itf.json",
    "empty-stack-at-two-explicit.itf.json",
    "spinner-can-start-explicit.itf.json",
    "spinner-stops-explicit.itf.json",
]


def invoke(*args: str) -> Result:
    return CliRunner().invoke(cli.cli, list(args))


@pytest.fixture
def tiny_out(with_tiny: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The folder ``turnproof check tiny --out out`` wrote (run from ``tmp_path``, so that the
    command line in the reports is the same on every machine)."""
    monkeypatch.chdir(tmp_path)
    result = invoke("check", "tiny", "--out", "out")
    assert result.exit_code == 1, result.output
    return tmp_path / "out"


def test_out_writes_the_whole_set(tiny_out: Path) -> None:
    assert sorted(p.name for p in tiny_out.iterdir()) == sorted([outdir.MANIFEST, *SET])
    manifest = json.loads((tiny_out / outdir.MANIFEST).read_text())
    assert manifest == {"entries": SET}
    assert sorted(p.name for p in (tiny_out / "traces").iterdir()) == TRACES


def test_markdown_and_junit_golden(tiny_out: Path, golden: Golden) -> None:
    golden("out_tiny/report.md", (tiny_out / "report.md").read_text(encoding="utf-8"))
    golden("out_tiny/junit.xml", (tiny_out / "junit.xml").read_text(encoding="utf-8"))
    for name in TRACES:
        golden(f"out_tiny/traces/{name}", (tiny_out / "traces" / name).read_text("utf-8"))


@pytest.mark.parametrize(
    ("umask", "folders", "files"), [(0o022, 0o755, 0o644), (0o077, 0o700, 0o600)]
)
def test_report_files_honour_the_umask(
    with_tiny: None,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    umask: int,
    folders: int,
    files: int,
) -> None:
    """Files and folders get the modes open and mkdir would give them (not the 0600 and 0700
    of the temporary files they are staged as)."""
    monkeypatch.chdir(tmp_path)
    old = os.umask(umask)
    try:
        invoke("check", "tiny", "--out", "deep/er/out")
    finally:
        os.umask(old)
    out = tmp_path / "deep/er/out"
    for path in [out, out / "traces", tmp_path / "deep", tmp_path / "deep/er"]:
        assert path.stat().st_mode & 0o777 == folders, path
    for path in [*out.glob("*.*"), *(out / "traces").iterdir()]:
        assert path.stat().st_mode & 0o777 == files, path
    assert not [p for p in (tmp_path / "deep/er").iterdir() if p.name.startswith(".")]


def test_junit_passes_and_fails_what_the_exit_code_does(tiny_out: Path) -> None:
    doc = json.loads((tiny_out / "report.json").read_text(encoding="utf-8"))
    suite = ET.parse(tiny_out / "junit.xml").getroot().find("testsuite")
    assert suite is not None
    cases = {c.get("name"): c for c in suite.iter("testcase")}
    assert list(cases) == list(dict.fromkeys(p["name"] for p in doc["properties"]))
    failed = {name for name, c in cases.items() if c.find("failure") is not None}
    assert failed == {"empty-stack-at-two", "counter-settles"}
    assert suite.get("failures") == "2" and doc["exit_code"] == 1
    story = cases["empty-stack-at-two"].findtext("system-out") or ""
    assert "── TEST 1.2 player 0 puts a token on the stack (decided by player 0) ──►" in story


def test_an_unknown_verdict_is_a_junit_error(
    with_tiny: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    result = invoke("check", "tiny", "--property", "no-deadlock", "--max-states", "3", "--out", "o")
    assert result.exit_code == 3
    case = ET.parse(tmp_path / "o/junit.xml").getroot().find("testsuite/testcase")
    assert case is not None
    error = case.find("error")
    assert error is not None and error.get("type") == "UNKNOWN"
    assert "state limit of 3 states" in (error.get("message") or "")


def test_itf_traces_follow_the_specification(tiny_out: Path) -> None:
    report = json.loads((tiny_out / "report.json").read_text(encoding="utf-8"))
    by_file = {f"{p['name']}-{p['engine']}.itf.json": p for p in report["properties"]}
    for name in TRACES:
        trace = json.loads((tiny_out / "traces" / name).read_text(encoding="utf-8"))
        check_itf(trace)
        prop = by_file[name]
        assert trace["#meta"]["property"] == prop["name"]
        assert sorted(trace["vars"]) == sorted(prop["trace_initial"])  # the JSON sorts keys
        steps = prop["trace"]
        assert [s["#meta"].get("rule") for s in trace["states"][1:]] == [s["rule"] for s in steps]
        assert [s["#meta"].get("action") for s in trace["states"][1:]] == [s["name"] for s in steps]
        if "loop_start" in prop:
            assert trace["loop"] == prop["loop_start"]


def check_itf(trace: dict) -> None:
    """The ITF shape (the JSON Schema) and what a schema cannot say: every state defines every
    variable, states are indexed in order, and a loop starts at a state (the last one being it
    again)."""
    jsonschema.validate(trace, SCHEMA)
    names = set(trace["vars"])
    for i, state in enumerate(trace["states"]):
        assert set(state) - {"#meta"} == names
        assert state["#meta"]["index"] == i
    if "loop" in trace:
        states = trace["states"]
        assert trace["loop"] < len(states)
        last = {k: v for k, v in states[-1].items() if k != "#meta"}
        assert last == {k: v for k, v in states[trace["loop"]].items() if k != "#meta"}


def test_itf_values_records_sequences_enums_and_numbers() -> None:
    """A trace built by hand, with a record, a sequence that grows, a per-player array, an enum,
    a boolean and a lasso; the schema also refuses what is not ITF."""
    initial = {"step": "END", "stack": [], "passed": [False, False], "res": {"ctrl": 0}}
    steps = (
        TraceStep("MTG 1", "push(p=1)", "push", "choice", 1, {"stack": [[], [{"ctrl": 1}]]}),
        TraceStep("MTG 2", "pop", "pop", "game procedure", None, {"stack": [[{"ctrl": 1}], []]}),
    )
    trace = Trace(initial, steps, loop_start=0, exits=(LoopExit(0, 1, "MTG 3", "leave"),))
    states = trace_states(trace)
    assert states[1]["stack"] == [{"ctrl": 1}] and states[2] == states[0]
    from turnproof.checks.results import CheckReport, PropertyResult

    r = PropertyResult(
        "p", "terminates", "d", Verdict.VIOLATED, "explicit", "holds", 3, 2, 0.1, trace=trace
    )
    doc = build_report(CheckReport({"name": "t", "version": "1"}, {}, [r], ["explicit"]), Run())
    (entry,) = doc.traces()
    out = itf.itf_trace(doc, entry)
    check_itf(out)
    assert out["states"][1]["stack"] == [{"ctrl": {"#bigint": "1"}}]
    assert out["states"][1]["#meta"]["decider"] == 1
    assert out["states"][2]["#meta"]["closes-loop"] == "this state is state 0 again"
    assert doc.outcomes == {"p": Outcome.FAILED}
    for bad in (
        {"vars": ["x"]},
        {"vars": [], "states": [{"#x": 1}]},
        {"vars": [], "states": [], "loop": -1},
    ):
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(bad, SCHEMA)


def test_json_is_the_same_bytes_on_every_run_but_for_timings(
    with_tiny: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from conftest import mask_volatile

    monkeypatch.chdir(tmp_path)
    texts = []
    for _ in range(2):
        invoke("check", "tiny", "--out", "same")
        texts.append(mask_volatile((tmp_path / "same/report.json").read_text("utf-8")))
    assert texts[0] == texts[1]


# -- the folder --------------------------------------------------------------------------------


def test_a_folder_that_cannot_be_made_fails_before_the_run(
    with_tiny: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")

    def no_run(*args: object, **kw: object) -> None:
        raise AssertionError("the check ran although --out cannot be written")

    monkeypatch.setattr(cli, "run_selection", no_run)
    for out in (blocker, blocker / "sub"):
        result = invoke("check", "tiny", "--out", str(out))
        assert result.exit_code == 2, result.output
        assert result.stderr.startswith("turnproof: error: ")
        assert "report folder" in result.stderr or "is a file" in result.stderr
    assert blocker.read_text() == "x"


def test_a_failed_write_leaves_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def fail(src: object, dst: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(outdir.os, "replace", fail)
    with pytest.raises(outdir.OutputError, match="No space left"):
        outdir.write_report_set(tmp_path / "a" / "b", {"report.json": "{}", "traces/t": "x"})
    assert list(tmp_path.iterdir()) == []


def test_an_existing_folder_keeps_the_users_files_and_loses_old_traces(tmp_path: Path) -> None:
    out = tmp_path / "out"
    outdir.write_report_set(out, {"report.md": "old", "traces/old.itf.json": "{}"})
    (out / "notes.txt").write_text("mine")
    outdir.write_report_set(out, {"report.md": "new", "traces/new.itf.json": "{}"})
    assert (out / "notes.txt").read_text() == "mine"
    assert (out / "report.md").read_text() == "new"
    assert [p.name for p in (out / "traces").iterdir()] == ["new.itf.json"]
    assert sorted(p.name for p in out.iterdir()) == [
        outdir.MANIFEST,
        "notes.txt",
        "report.md",
        "traces",
    ]
    assert [p.name for p in tmp_path.iterdir()] == ["out"]  # no temporary folder left
    # A new run without traces: the former run's traces go, the user's notes stay.
    outdir.write_report_set(out, {"report.md": "newer"})
    assert sorted(p.name for p in out.iterdir()) == [outdir.MANIFEST, "notes.txt", "report.md"]


def test_a_folder_holding_only_a_former_set_is_replaced_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No moment shows a mix of the two sets: every rename moves a whole set (the folder),
    never one report file beside another run's."""
    out = tmp_path / "out"
    outdir.write_report_set(out, {"report.md": "old", "report.json": "{}", "traces/a": "x"})
    moved: list[tuple[str, str]] = []
    real = os.replace

    def spy(src: str | Path, dst: str | Path) -> None:
        moved.append((Path(src).name, Path(dst).name))
        real(src, dst)

    monkeypatch.setattr(outdir.os, "replace", spy)
    outdir.write_report_set(out, {"report.md": "new"})
    assert [dst for _, dst in moved] == ["out", "out"]  # the old folder aside, the new in
    assert sorted(p.name for p in out.iterdir()) == [outdir.MANIFEST, "report.md"]
    assert (out / "report.md").read_text() == "new"
    assert [p.name for p in tmp_path.iterdir()] == ["out"]
