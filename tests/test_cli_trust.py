"""A command line a CI job can trust (issue 12, item 8): every bad input is one precise line,
exit code 2 and nothing written; what ``--help`` promises is shown; the JSON is stable.

Each test runs the command line through its main function (click's runner) or, where the
process itself matters (signals, hash seeds), as a subprocess.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import jsonschema
import procs
import pytest
from click.testing import CliRunner, Result
from turnproof.checks import runner, workers
from turnproof.model.errors import BoundsError
from turnproof.reports import json_report
from turnproof.scenarios import cli


def invoke(*args: str) -> Result:
    return CliRunner().invoke(cli.cli, list(args))


def assert_bad_input(result: Result, message: str, out: Path | None = None) -> None:
    assert result.exit_code == 2, result.output
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("turnproof: error: "), result.stderr
    assert message in lines[0], lines[0]
    assert "Traceback" not in result.output
    if out is not None:
        assert not out.exists(), "nothing is written on bad input"


# -- input validation ----------------------------------------------------------------------------


@pytest.mark.parametrize("value", ["1_0", "١", "１", "+1", " 1 ", "-1", "1.0", "", "0x1"])
def test_bound_values_are_ascii_digits_only(tmp_path: Path, value: str) -> None:
    out = tmp_path / "reports"
    result = invoke("check", "bench", "--bound", f"turns={value}", "--out", str(out))
    assert_bad_input(result, f"malformed bound 'turns={value}'", out)
    assert "digits 0-9" in result.stderr


def test_parse_bound_accepts_plain_digits_only() -> None:
    assert runner.parse_bound("turns=10") == ("turns", 10)
    assert runner.parse_bound("turns=007") == ("turns", 7)
    for text in ("turns=1_0", "turns=١", " turns=1", "turns =1"):
        with pytest.raises(BoundsError):
            runner.parse_bound(text)


def test_empty_target_is_an_error(tmp_path: Path) -> None:
    out = tmp_path / "reports"
    assert_bad_input(invoke("check", "", "--out", str(out)), "an empty name", out)


def test_repeated_bound_is_an_error(tmp_path: Path) -> None:
    out = tmp_path / "reports"
    result = invoke("check", "bench", "--bound", "turns=1", "--bound", "turns=2", "--out", str(out))
    assert_bad_input(result, "bound turns is given twice (turns=1 and turns=2)", out)


def test_conflicting_bounds_are_an_error_not_a_clamp(tmp_path: Path) -> None:
    out = tmp_path / "reports"
    result = invoke(
        "check", "magic", "--engine", "explicit", "--bound", "hand_cap=1", "--bound", "hand0=8",
        "--out", str(out),
    )  # fmt: skip
    assert_bad_input(result, "bound hand0=8 does not fit in hand_cap=1", out)
    # hand1 keeps its default of 7, which does not fit either
    result = invoke(
        "check", "magic", "--engine", "explicit", "--bound", "hand_cap=1", "--bound", "hand0=1"
    )
    assert_bad_input(result, "bound hand1=7 does not fit in hand_cap=1")


@pytest.mark.parametrize("seconds", ["nan", "inf", "-inf", "1e999", "0", "-1", "soon"])
def test_max_seconds_is_finite_and_positive(tmp_path: Path, seconds: str) -> None:
    out = tmp_path / "reports"
    result = invoke("check", "bench", "--max-seconds", seconds, "--out", str(out))
    assert_bad_input(result, f"Invalid value for '--max-seconds': '{seconds}'", out)


@pytest.mark.parametrize(
    ("option", "value"),
    [
        ("--max-seconds", "1_0"),
        ("--max-seconds", " 10"),
        ("--max-seconds", "+1"),
        ("--max-seconds", "١"),
        ("--max-states", "1_0"),
        ("--max-states", " 10"),
        ("--max-states", "+10"),
        ("--max-states", "１０"),
        ("--max-states", "0"),
    ],
)
def test_limits_are_ascii_numbers_only(tmp_path: Path, option: str, value: str) -> None:
    out = tmp_path / "reports"
    result = invoke("check", "bench", option, value, "--out", str(out))
    assert_bad_input(result, f"Invalid value for '{option}': {value!r}", out)
    assert "digits 0-9" in result.stderr


@pytest.mark.parametrize("command", ["rules", "properties", "bounds", "cards", "consistency"])
def test_an_empty_rule_set_name_is_an_error_everywhere(command: str) -> None:
    assert_bad_input(invoke(command, ""), "an empty rule-set name: give one of magic")


def test_consistency_chooses_its_engines_as_check_does() -> None:
    for command in ("check", "consistency"):
        (engine,) = [p for p in cli.cli.commands[command].params if p.name == "engine"]
        assert engine.default is None, command


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["check", "bench", "--property", "no-dedlock"], "did you mean 'no-deadlock'?"),
        (["check", "magix"], "did you mean 'magic'?"),
        (["rules", "benhc"], "did you mean 'bench'?"),
        (["check", "magic", "--mutant", "napap-ordr"], "did you mean 'napap-order'?"),
        (["check", "magic", "--variant", "no-second-clean"], "did you mean 'no-second-cleanup'?"),
        (["check", "bench", "--bound", "turnz=1"], "did you mean 'turns'?"),
        (["chek"], "Did you mean 'check'?"),
    ],
)
def test_unknown_names_say_did_you_mean(args: list[str], message: str) -> None:
    assert_bad_input(invoke(*args), message)


# -- what the tool says about itself -------------------------------------------------------------


def test_version() -> None:
    from importlib.metadata import version

    result = invoke("--version")
    assert result.exit_code == 0
    assert result.stdout == f"turnproof {version('turnproof')}\n"


def test_bare_turnproof_prints_a_short_usage_and_the_commands() -> None:
    result = invoke()
    assert result.exit_code == 0
    assert result.stderr == ""
    assert result.stdout.startswith("Usage: turnproof COMMAND [ARGS]...\n")
    for name in cli.cli.commands:
        assert f"\n  {name} " in result.stdout
    assert "error" not in result.stdout
    assert "--max-states" not in result.stdout, "not the whole help"
    # A line a command and a few around them: not the whole help, however many commands.
    assert len(result.stdout.splitlines()) < len(cli.cli.commands) + 8


def test_bounds_lists_defaults_ranges_and_variants() -> None:
    result = invoke("bounds", "magic")
    assert result.exit_code == 0, result.output
    assert re.search(r"^hand_cap +10 +1\.\.16 +the most cards a hand can hold", result.stdout, re.M)
    assert "variants of rule set magic" in result.stdout
    assert "no-second-cleanup: replaces pass_end_step" in result.stdout
    doc = json.loads(invoke("bounds", "bench", "--format", "json").stdout)
    assert doc["command"] == "bounds" and doc["schema_version"] == json_report.SCHEMA_VERSION
    assert {"name": "turns", "default": 3, "min": 1, "max": 1000}.items() <= doc["bounds"][
        0
    ].items()
    assert doc["variants"] == []
    assert "`turnproof bounds`" in invoke("check", "--help").stdout


@pytest.mark.parametrize(
    "args",
    [
        ["rules", "bench", "--format", "json"],
        ["rules", "bench", "--cite", "117", "--format", "json"],
        ["properties", "bench", "--format", "json"],
        ["rulesets", "--format", "json"],
        ["bounds", "bench", "--format", "json"],
        ["scenarios", "--format", "json"],
        ["cards", "magic", "--format", "json"],
    ],
)
def test_listing_json_says_its_schema_version_and_command(args: list[str]) -> None:
    result = invoke(*args)
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert doc["schema_version"] == json_report.SCHEMA_VERSION
    assert doc["command"] == args[0]


# -- the JSON: a published schema, null for "not counted", the same bytes under any seed ---------

SMALL_BENCH = (
    "check", "bench", "--engine", "both", "--bound", "turns=1", "--bound", "cap=1",
    "--bound", "budget=0", "--bound", "cmax=0", "--format", "json", "--no-progress",
)  # fmt: skip


def validate(doc: Any) -> None:
    schema = json.loads(json_report.SCHEMA_FILE.read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    jsonschema.Draft202012Validator(schema).validate(doc)


def test_the_schema_ships_with_the_package() -> None:
    from importlib.resources import files

    shipped = files("turnproof.reports") / "schema" / "results.schema.json"
    assert json.loads(shipped.read_text(encoding="utf-8"))["properties"]["schema_version"] == {
        "const": json_report.SCHEMA_VERSION
    }


def test_golden_and_explicit_reports_fit_the_schema() -> None:
    golden = Path(__file__).parent / "golden" / "check_tiny.json"
    validate(json.loads(golden.read_text(encoding="utf-8")))
    result = invoke("check", "bench", "--engine", "explicit", "--format", "json")
    validate(json.loads(result.stdout))
    bad = json.loads(result.stdout)
    bad["properties"][0]["states"] = None  # the explicit engine always counts
    with pytest.raises(jsonschema.ValidationError):
        validate(bad)


def run_json(*args: str, seed: str = "0", env: dict[str, str] | None = None) -> Any:
    done = subprocess.run(
        [sys.executable, "-m", "turnproof.scenarios", *args],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONHASHSEED": seed, **(env or {})},
        timeout=300,
        check=False,
    )
    assert "Traceback" not in done.stderr, done.stderr
    return done


def masked(text: str) -> str:
    """The JSON with every time and peak memory masked: the only values that may vary."""
    text = re.sub(r'"(peak_(?:worker_)?memory_kib)": (?:\d+|null)', r'"\1": 0', text)
    return re.sub(r'"seconds": [0-9.e+-]+', '"seconds": 0', text)


def test_symbolic_results_fit_the_schema_with_null_states_and_same_bytes_under_two_seeds() -> None:
    runs = [run_json(*SMALL_BENCH, seed=seed) for seed in ("0", "12345")]
    for done in runs:
        assert done.returncode == 1, done.stderr  # bench's cleanup loop fails by design
    doc = json.loads(runs[0].stdout)
    validate(doc)
    symbolic = [p for p in doc["properties"] if p["engine"] == "symbolic"]
    assert symbolic and all(p["states"] is None and p["transitions"] is None for p in symbolic)
    assert all(p["seconds"] > 0 for p in symbolic)
    assert masked(runs[0].stdout) == masked(runs[1].stdout)


# -- robustness: failing workers, SIGTERM, Ctrl-C ---------------------------------------------------


def test_a_failing_worker_gives_unknown_with_its_error_and_exit_3(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Every worker fails here: each property is UNKNOWN, with the worker's last line of
    error as its reason, and the run still reports (a lost worker costs its own task only)."""
    fake = tmp_path / "python"
    fake.write_text(
        "#!/bin/sh\necho 'Traceback (most recent call last):' >&2\necho 'RuntimeError: boom' >&2\nexit 1\n"
    )
    fake.chmod(0o755)
    monkeypatch.setattr(workers.sys, "executable", str(fake))
    result = invoke(
        "check", "bench", "--engine", "symbolic", "--bound", "turns=1", "--format", "json"
    )
    assert result.exit_code == 3, result.output
    assert "Traceback" not in result.stderr
    doc = json.loads(result.stdout)
    validate(doc)
    assert doc["properties"] and all(
        p["verdict"] == "UNKNOWN"
        and p["reason"].startswith("its worker process failed: RuntimeError: boom")
        for p in doc["properties"]
    )


def test_ctrl_c_keeps_the_finished_results(monkeypatch: pytest.MonkeyPatch) -> None:
    """Ctrl-C (in the main thread, as the kernel delivers it) once the explicit engine has
    handed over and the symbolic engine, started beside it, has finished one property: that
    property keeps its result, the others are interrupted."""
    ran: list[str] = []
    finished, stopped = threading.Event(), threading.Event()
    real_give, real_interrupt = workers.Handover.give, workers.Pool.interrupt

    def give(self: Any, *args: Any) -> None:
        real_give(self, *args)
        assert finished.wait(60)
        raise KeyboardInterrupt

    def interrupt(self: Any) -> None:
        stopped.set()
        real_interrupt(self)

    def submit(self: Any, task: Any, *, first: bool = False) -> Any:
        def run() -> Any:
            made = task if isinstance(task, workers.Task) else task()
            if made.prop and not ran:  # one property finishes
                ran.append(made.prop)
                answer = workers.run_task(made)
                finished.set()
                return answer
            stopped.wait(60)  # the others are still running when Ctrl-C comes
            return workers.Lost("ended")

        return self._threads.submit(run)

    monkeypatch.setattr(workers.Handover, "give", give)
    monkeypatch.setattr(workers.Pool, "interrupt", interrupt)
    monkeypatch.setattr(workers.Pool, "submit", submit)
    result = invoke("check", "bench", "--engine", "both", "--bound", "turns=1", "--format", "json")
    # Each property is judged on its best verdict: the explicit engine had finished them all.
    assert result.exit_code == json.loads(result.stdout)["exit_code"] == 0, result.output
    assert "turnproof: interrupted: " in result.stderr
    doc = json.loads(result.stdout)
    validate(doc)
    explicit = [p for p in doc["properties"] if p["engine"] == "explicit"]
    symbolic = [p for p in doc["properties"] if p["engine"] == "symbolic"]
    assert all(p["verdict"] != "UNKNOWN" for p in explicit)  # finished before the interrupt
    assert [p.get("reason") == "interrupted" for p in symbolic].count(False) == 1
    assert [p.get("reason") == "interrupted" for p in symbolic].count(True) == len(symbolic) - 1


@pytest.mark.skipif(not procs.HAS_PROC, reason="needs Linux's /proc")
def test_sigterm_ends_the_workers_and_writes_the_report(tmp_path: Path) -> None:
    out = tmp_path / "reports"
    proc = subprocess.Popen(
        [sys.executable, "-m", "turnproof.scenarios", "check", "magic", "--engine", "symbolic",
         "--format", "json", "--no-progress", "--out", str(out)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    deadline = time.monotonic() + 60
    kids: set[int] = set()
    while not kids and time.monotonic() < deadline:
        time.sleep(0.2)
        kids = procs.children(proc.pid)
    assert kids, "the workers started"
    time.sleep(1)
    proc.send_signal(signal.SIGTERM)
    stdout, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 3, stderr
    assert "Traceback" not in stderr
    doc = json.loads(stdout)
    validate(doc)
    assert all(
        p["verdict"] == "UNKNOWN" for p in doc["properties"] if p.get("reason") == "interrupted"
    )
    assert (out / "report.json").exists() and (out / "junit.xml").exists()
    for kid in kids:
        assert not procs.alive(kid), "no worker outlives the command"


def test_invariant_cache_is_per_user_and_overridable(monkeypatch: pytest.MonkeyPatch) -> None:
    import platformdirs
    from turnproof.checks import invariants

    monkeypatch.delenv(invariants.CACHE_ENV, raising=False)
    assert invariants.cache_dir() == os.path.join(
        platformdirs.user_cache_dir("turnproof", appauthor=False), "invariants"
    )
    monkeypatch.setenv(invariants.CACHE_ENV, "/somewhere/else")
    assert invariants.cache_dir() == "/somewhere/else"
    assert "TURNPROOF_INVARIANT_CACHE" in invoke("check", "--help").stdout


@pytest.mark.parametrize(
    ("bound", "where"),
    [
        ("players", "its value is needed as a number by the schema"),
        ("hand0", "its value is needed as a number by the initial states"),
        (
            "waiting",
            "its value is needed as a number by the rule instances of MTG 603.3b stack_trigger "
            "(parameter i)",
        ),
    ],
)
def test_a_bound_that_cannot_be_open_says_where_not_what_the_solver_said(
    bound: str, where: str
) -> None:
    result = invoke("check", "magic", "--engine", "symbolic", "--for-all", bound)
    assert_bad_input(result, f"bound {bound} cannot be left open: {where}; bounds that can be")
    assert "Symbolic expressions" not in result.stderr and "ArithRef" not in result.stderr


@pytest.mark.skipif(not procs.HAS_PROC, reason="needs Linux's /proc")
def test_no_worker_outlives_a_command_killed_by_sigkill() -> None:
    """SIGKILL runs none of the command's own clean-up: the workers die with it all the same
    (they ask the kernel to kill them when their parent dies)."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "turnproof.scenarios", "check", "magic", "--engine", "symbolic",
         "--property", "cleanup-terminates", "--property", "end-the-turn-terminates",
         "--format", "json", "--no-progress"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 60
        kids: set[int] = set()
        while len(kids) < 2 and time.monotonic() < deadline:
            time.sleep(0.2)
            kids = procs.children(proc.pid)
        assert len(kids) == 2, "both workers started"
        proc.kill()
        proc.wait(timeout=30)
        deadline = time.monotonic() + 30
        while any(procs.alive(k) for k in kids) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not [k for k in kids if procs.alive(k)], "no worker outlives the command"
    finally:
        if proc.poll() is None:
            proc.kill()


def test_the_replay_line_of_an_amended_run_reproduces_its_verdict(tmp_path: Path) -> None:
    """The replay line repeats --amend (and the ITF trace says the command it came from): run
    on the unamended rule set, the property would hold, and the replay would contradict the
    report it is printed in."""
    args = (
        "check",
        "magic",
        "--engine",
        "explicit",
        "--amend",
        "end-turn-keeps-waiting-triggers",
        "--bound",
        "turns=1",
        "--property",
        "end-turn-skips-to-cleanup",
        "--out",
        str(tmp_path / "out"),
    )
    first = invoke(*args)
    assert first.exit_code == 1, first.output
    (line,) = [ln.strip() for ln in first.stdout.splitlines() if ln.strip().startswith("replay:")]
    replay = shlex.split(line.removeprefix("replay:"))
    assert replay[:2] == ["turnproof", "check"] and "--amend" in replay
    again = invoke(*replay[1:], "--format", "json")
    assert again.exit_code == 1, again.output
    (row,) = json.loads(again.stdout)["properties"]
    assert (row["name"], row["verdict"]) == ("end-turn-skips-to-cleanup", "VIOLATED")
    report = json.loads((tmp_path / "out" / "report.json").read_text())
    assert report["ruleset"]["amendment"] == "end-turn-keeps-waiting-triggers"
    (itf,) = (tmp_path / "out" / "traces").iterdir()
    meta = json.loads(itf.read_text())["#meta"]
    assert "--amend end-turn-keeps-waiting-triggers" in meta["replay"]


def test_explore_checks_where_it_writes_before_exploring(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocker = tmp_path / "blocker"
    blocker.write_text("x")

    def no_run(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("explored before checking the output path")

    monkeypatch.setattr(cli, "explore", no_run)
    result = invoke("explore", "bench", "--turn-structure", "--dot", str(blocker / "a.dot"))
    assert_bad_input(result, f"{blocker} is not a folder")
    assert blocker.read_text() == "x"
