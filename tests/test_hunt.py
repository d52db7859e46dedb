"""The edge-case hunter (``turnproof hunt``, ``checks/hunt.py``): real hunts over small pools,
on the real engines (nothing mocked)."""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import pty
import re
import signal
import subprocess
import sys
import threading
import time
import tomllib
from pathlib import Path

import procs
import pytest
from turnproof.checks.hunt import (
    NO_END,
    OUT_OF_TIME,
    SURPRISE,
    ComboResult,
    Progress,
    Settings,
    all_combinations,
    hunt,
)
from turnproof.model.magic import LIBRARY as MAGIC_LIBRARY
from turnproof.model.riftbound import LIBRARY as RIFTBOUND_LIBRARY
from turnproof.reports.document import story_of
from turnproof.reports.hunt import (
    render_hunt_html,
    render_hunt_json,
    render_hunt_markdown,
    render_hunt_text,
)
from turnproof.scenarios import cli
from turnproof.scenarios.pools import find_pool, load_pool

LOOP_MAKERS = load_pool(find_pool("loop-makers"))

#: What the loop-makers pool shows at size 2: (kind, property, minimal cards).
EXPECTED = {
    (NO_END, "cleanup-terminates", ("endless-rielle@0",)),
    (SURPRISE, "priority-in-cleanup-with-empty-stack", ("endless-rielle@0",)),
    (SURPRISE, "priority-in-cleanup-with-empty-stack", ("rielle-the-everwise@0",)),
    (
        SURPRISE,
        "sundial-exiles-a-rielle-trigger",
        ("rielle-the-everwise@0", "sundial-of-the-infinite@0"),
    ),
}


def _found(doc):
    return {(f["kind"], f["property"], tuple(f["cards"])) for f in doc["findings"]}


def _compared(doc) -> str:
    """The document as JSON without the two counts that say where answers came from."""
    data = json.loads(render_hunt_json(doc))
    data["search"].pop("checked")
    data["search"].pop("from_cache")
    return json.dumps(data, sort_keys=True)


@pytest.fixture(scope="module")
def base_doc():
    return hunt(LOOP_MAKERS, Settings(size=2, jobs=1, cache=""))


def test_the_loop_maker_is_found_alone_and_every_finding_at_its_minimal_combination(base_doc):
    doc = base_doc
    assert doc["search"]["mode"] == "exhaustive"
    assert doc["search"]["space"] == doc["search"]["done"] == doc["search"]["checked"] == 10
    assert _found(doc) == EXPECTED
    loop = next(f for f in doc["findings"] if f["kind"] == NO_END)
    # every combination with the loop-maker shows it, reported once at the card alone
    assert loop["minimal"] == [["endless-rielle@0"]]
    assert {frozenset(c) for c in loop["shown_by"]} == {
        frozenset({"endless-rielle@0"}),
        frozenset({"brace", "endless-rielle@0"}),
        frozenset({"endless-rielle@0", "sundial-of-the-infinite@0"}),
    }
    # with the real Rielle too, each discard draws twice: the hand reaches its bound and the
    # loop is cut there, which the report says rather than hiding
    assert {"cards": ["endless-rielle@0", "rielle-the-everwise@0"], "bounds": {"hand_cap": 36}} in (
        doc["bounds_reached"]
    )
    trace = loop["trace"]
    assert trace.loop_start is not None
    assert "MTG 514.1" in loop["decisive"] and "MTG 608.2c [Endless Rielle]" in loop["decisive"]
    # ranked by size, then trace length
    keys = [(f["size"], f["trace_length"]) for f in doc["findings"]]
    assert keys == sorted(keys)
    # every finding was replayed on Z3
    assert all(f["symbolic"].startswith("confirmed") for f in doc["findings"])
    # the surprise that names Rielle's trigger is not checked where Rielle is absent
    assert any("T_RIELLE" in s for s in doc["inapplicable"])


def test_interaction_coverage_says_which_pairs_never_met(base_doc):
    status = {tuple(p["cards"]): p["status"] for p in base_doc["coverage"]["pairs"]}
    # Brace only matters during combat; the Rielles only act in the cleanup step
    assert status[("brace", "endless-rielle@0")] == "never met"
    assert status[("brace", "rielle-the-everwise@0")] == "never met"
    assert status[("rielle-the-everwise@0", "sundial-of-the-infinite@0")] == "met"
    rules = {r["card"]: r for r in base_doc["coverage"]["card_rules"]}
    assert rules["endless-rielle@0"]["met"] and rules["brace"]["met"]
    text = render_hunt_text(base_doc)
    assert "never met (2):" in text and "brace ~ endless-rielle@0" in text


def test_same_findings_with_two_workers_and_a_rerun_checks_nothing(base_doc, tmp_path):
    cache = str(tmp_path / "cache")
    two = hunt(LOOP_MAKERS, Settings(size=2, jobs=2, cache=cache))
    assert _compared(two) == _compared(base_doc)
    assert render_hunt_markdown(two) == render_hunt_markdown(base_doc)  # both checked all 10
    again = hunt(LOOP_MAKERS, Settings(size=2, jobs=2, cache=cache))
    assert again["search"]["checked"] == 0 and again["search"]["from_cache"] == 10
    assert _compared(again) == _compared(base_doc)


def test_a_new_card_checks_only_the_new_combinations(tmp_path):
    cache = str(tmp_path / "cache")
    small = LOOP_MAKERS.__class__(**{**LOOP_MAKERS.__dict__, "cards": LOOP_MAKERS.cards[:3]})
    first = hunt(small, Settings(size=2, jobs=1, cache=cache, confirm=False))
    assert first["search"]["checked"] == 6
    more = hunt(LOOP_MAKERS, Settings(size=2, jobs=1, cache=cache, confirm=False))
    assert more["search"]["checked"] == 4 and more["search"]["from_cache"] == 6


def test_sampling_is_deterministic_for_a_seed_and_shrinks_to_the_minimal_combination():
    settings = Settings(size=3, budget=6, seed=7, jobs=1, cache="", confirm=False)
    one = hunt(LOOP_MAKERS, settings)
    assert one["search"]["mode"] == "sampled"
    assert one["search"]["space"] == 14 and one["search"]["planned"] <= 6
    assert _compared(one) == _compared(hunt(LOOP_MAKERS, settings))
    assert (NO_END, "cleanup-terminates", ("endless-rielle@0",)) in _found(one)
    for f in one["findings"]:  # no finding is reported where a checked subset shows it
        for other in one["findings"]:
            if other is not f and (other["kind"], other["property"]) == (f["kind"], f["property"]):
                assert not set(other["cards"]) < set(f["cards"])


def test_the_written_scenario_reproduces_the_finding(tmp_path, monkeypatch):
    monkeypatch.setenv("TURNPROOF_HUNT_CACHE", "off")
    out = tmp_path / "out"
    code = cli.cli.main(
        [
            "hunt",
            "magic",
            "--pool",
            "loop-makers",
            "--size",
            "1",
            "--jobs",
            "1",
            "--no-confirm",
            "--no-progress",
            "--out",
            str(out),
            "--format",
            "json",
        ],
        standalone_mode=False,
    )
    assert code == 1  # findings
    written = json.loads((out / "hunt.json").read_text())
    loop = next(f for f in written["findings"] if f["property"] == "cleanup-terminates")
    path = out / loop["file"]
    data = tomllib.loads(path.read_text())
    assert [c["name"] for c in data["card"]] == ["endless-rielle"]
    assert data["property"] == [{"name": "cleanup-terminates", "expect": "violated"}]
    assert cli.cli.main(["check", str(path), "--format", "json"], standalone_mode=False) == 0
    assert (out / "hunt.md").read_text().startswith("# Hunt: pool loop-makers")
    page = (out / "hunt.html").read_text()
    assert "<title>turnproof hunt: pool loop-makers (magic)</title>" in page
    assert all(f'<section id="{f["name"]}">' in page for f in written["findings"])


def test_the_shipped_pools_hold_the_whole_libraries():
    assert {c.key for c in load_pool(find_pool("magic")).cards} == set(MAGIC_LIBRARY)
    assert {c.key for c in load_pool(find_pool("riftbound")).cards} == set(RIFTBOUND_LIBRARY)


def test_bad_input_is_one_line_and_exit_code_2(tmp_path, capsys):
    assert cli.cli.main(["hunt", "magic", "--pool", "nope"], standalone_mode=False) == 2
    bad = tmp_path / "bad.toml"
    bad.write_text('format = 1\ngame = "magic"\n[[card]]\nname = "Sundail"\n')
    assert cli.cli.main(["hunt", "magic", "--pool", str(bad)], standalone_mode=False) == 2
    err = capsys.readouterr().err
    assert "no shipped pool 'nope'" in err and "card[0].name" in err
    assert cli.cli.main(["hunt", "riftbound", "--pool", "loop-makers"], standalone_mode=False) == 2


@pytest.mark.slow
def test_ray_gives_the_same_findings_as_the_local_backend(base_doc):
    ray = pytest.importorskip("ray")
    try:
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    except Exception as exc:  # no Ray here (a sandbox without shared memory, ...)
        pytest.skip(f"ray cannot start: {exc}")
    try:
        doc = hunt(LOOP_MAKERS, Settings(size=2, jobs=2, backend="ray", cache=""))
    finally:
        ray.shutdown()
    assert _compared(doc) == _compared(base_doc)


def test_pool_format_of_a_user_pool(tmp_path):
    pool = tmp_path / "mine.toml"
    pool.write_text(
        'format = 1\ngame = "magic"\n[bounds]\nturns = 1\n'
        '[[card]]\nname = "Endless Rielle"\ncontroller = 0\n'
        '[[card]]\nname = "Pump"\n'
    )
    loaded = load_pool(Path(pool))
    assert [c.label for c in loaded.cards] == ["endless-rielle@0", "pump"]
    assert loaded.bounds == (("turns", 1),)


# -- the HTML report ---------------------------------------------------------------------------


def test_the_html_report_is_self_contained_and_shows_what_the_text_shows(base_doc):
    page = render_hunt_html(base_doc)
    text = render_hunt_text(base_doc)
    # Nothing is loaded from anywhere: no script, no style sheet, no image, no remote address;
    # links stay within the page or the folder --out writes (the findings' scenario files).
    assert not re.search(r"<script|<link|<img|@import|url\(|src=", page)
    assert not re.search(r'href="(?!#|findings/)', page)
    assert page.startswith("<!DOCTYPE html>") and page.count("<style>") == 1
    assert '<table id="findings"' in page.split("<h2", 1)[0]  # the findings come first
    unescaped = page.replace("&#x27;", "'").replace("&quot;", '"').replace("&amp;", "&")
    assert text.splitlines()[1] in unescaped  # the search line: mode and coverage
    for f in base_doc["findings"]:
        assert f'id="{f["name"]}"' in page and f'href="#{f["name"]}"' in page
        assert f["replay"] in page and f'href="{f["file"]}"' in page
        section = page.split(f'<section id="{f["name"]}">', 1)[1].split("</section>", 1)[0]
        # every step of its trace, citing its rule, as in the text report
        cited = re.findall(r'<span class="cite">([^<]*)</span>', section)
        assert cited == [step.rule for step in story_of(f["trace"]).steps]
        assert [c.split(" (")[0] for c in cited] == [step.rule for step in f["trace"].steps]
    for p in base_doc["coverage"]["pairs"]:
        assert f"<code>{p['cards'][0]}</code></td><td><code>{p['cards'][1]}</code>" in page
    assert render_hunt_html(base_doc) == page  # deterministic


# -- the time budget ---------------------------------------------------------------------------


class Clock:
    """A clock for the time budget that moves ``per_answer`` seconds with each answer."""

    def __init__(self, per_answer: float) -> None:
        self.now = 0.0
        self.per_answer = per_answer

    def __call__(self) -> float:
        return self.now

    def progress(self) -> Progress:
        def advance(r: ComboResult) -> None:
            self.now += self.per_answer

        return Progress(advance=advance)


def test_the_time_budget_stops_the_hunt_and_the_report_says_so(base_doc):
    clock = Clock(10.0)
    settings = Settings(size=2, jobs=1, cache="", time_budget=25.0)
    doc = hunt(LOOP_MAKERS, settings, clock.progress(), clock=clock)
    s = doc["search"]
    # three answers (30 s) pass the budget: the fourth combination never starts
    assert (s["done"], s["planned"], s["space"]) == (3, 10, 10)
    assert s["stopped"] == OUT_OF_TIME and not s["interrupted"] and s["time_budget"] == 25.0
    assert s["mode"] == "exhaustive"  # the plan is the budget's; time only cuts it short
    first = {tuple(c.label for c in [LOOP_MAKERS.cards[i] for i in combo]) for combo in
             all_combinations(4, 2)[:3]}  # fmt: skip
    shown = {tuple(c) for f in doc["findings"] for c in f["shown_by"]}
    assert shown <= first  # the findings are those of the combinations done, nothing else
    full = {(f["kind"], f["property"], tuple(f["cards"])) for f in base_doc["findings"]}
    assert _found(doc) <= full and _found(doc)
    # no confirmation starts after the budget either, and the report says why
    assert {f["symbolic"] for f in doc["findings"]} == {"not run: the time budget ran out"}
    line = render_hunt_text(doc).splitlines()[1]
    assert "3 of 10 combinations done (30.0% of the space)" in line
    assert "STOPPED BY THE TIME BUDGET (25 s) after 3 of the 10 planned combinations" in line
    assert "depends on the machine" in line
    # the same combinations done give the same report
    clock = Clock(10.0)
    again = hunt(LOOP_MAKERS, settings, clock.progress(), clock=clock)
    assert render_hunt_json(again) == render_hunt_json(doc)


def test_combinations_in_progress_finish_when_the_time_budget_runs_out_on_workers():
    ticks = itertools.count()  # a clock that moves one second each time it is read

    def clock() -> float:
        return float(next(ticks))

    settings = Settings(size=2, jobs=2, cache="", confirm=False, time_budget=2.5)
    doc = hunt(LOOP_MAKERS, settings, clock=clock)
    s = doc["search"]
    # read at 0 (the start), 1 (before the phase), 2 (a worker starts the first combination)
    # and 3 (the other worker: the budget is spent, so it starts none); the first combination
    # finishes after the budget ran out, and its answer is kept
    assert (s["stopped"], s["done"], s["checked"]) == (OUT_OF_TIME, 1, 1)
    assert [f["cards"] for f in doc["findings"]] == [["endless-rielle@0"]] * 2


def test_the_time_budget_on_the_command_line(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("TURNPROOF_HUNT_CACHE", "off")
    out = tmp_path / "out"
    args = ["hunt", "magic", "--pool", "loop-makers", "--jobs", "1", "--no-progress"]
    code = cli.cli.main(
        [*args, "--time-budget", "1e-9", "--out", str(out), "--format", "json"],
        standalone_mode=False,
    )
    assert code == 0  # no finding in no combination: not an error, and said so
    captured = capsys.readouterr()
    doc = json.loads(captured.out)
    assert doc["search"]["stopped"] == "time budget" and doc["search"]["done"] == 0
    assert "the time budget ran out after 0 of the 10 planned combinations" in captured.err
    assert json.loads((out / "hunt.json").read_text()) == doc
    assert "STOPPED BY THE TIME BUDGET" in (out / "hunt.html").read_text()
    for bad in ("0", "-1", "nan", "inf", "soon"):
        nowhere = tmp_path / f"no-{bad}"
        code = cli.cli.main(
            [*args, "--time-budget", bad, "--out", str(nowhere)], standalone_mode=False
        )
        assert code == 2 and not nowhere.exists()
        err = capsys.readouterr().err
        assert "--time-budget" in err and "number of seconds" in err
    assert cli.cli.main(["hunt", "--help"], standalone_mode=False) in (0, None)
    assert "--time-budget S" in capsys.readouterr().out


# -- Ctrl-C ------------------------------------------------------------------------------------


@pytest.mark.skipif(not procs.HAS_PROC, reason="needs Linux's /proc")
def test_ctrl_c_writes_the_findings_so_far_and_leaves_no_worker(tmp_path):
    """A real hunt on two worker processes, its progress bar on a terminal; Ctrl-C (SIGINT to
    the whole process group, as a terminal sends it) once it shows some combinations done."""
    out = tmp_path / "out"
    env = dict(os.environ, TURNPROOF_HUNT_CACHE="off", COLUMNS="120", TERM="xterm")
    master, terminal = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "turnproof.scenarios", "hunt", "magic", "--size", "2",
         "--jobs", "2", "--no-confirm", "--format", "json", "--out", str(out)],
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=terminal, env=env,
        start_new_session=True,
    )  # fmt: skip
    os.close(terminal)
    screen = bytearray()  # all the terminal shows, read by a thread so that it never blocks

    def read_terminal() -> None:
        with contextlib.suppress(OSError):  # the terminal's other end closed
            while chunk := os.read(master, 65536):
                screen.extend(chunk)

    reader = threading.Thread(target=read_terminal, daemon=True)
    reader.start()
    shown, workers = 0, set()
    try:
        deadline = time.monotonic() + 240  # generous: a loaded two-core machine
        while shown < 2 and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.2)  # polling what the terminal shows, not waiting on time
            done = re.findall(rb"(\d+)/630", bytes(screen[-4000:]))
            shown = int(done[-1]) if done else 0
            workers |= procs.descendants(proc.pid)
        assert shown >= 2, f"the progress bar showed no two combinations: {bytes(screen[-500:])!r}"
        workers |= procs.descendants(proc.pid)
        os.killpg(proc.pid, signal.SIGINT)
        stdout, _ = proc.communicate(timeout=180)
        reader.join(timeout=30)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
        os.close(master)
    tail = bytes(screen)
    err = tail.decode(errors="replace")
    assert proc.returncode == 130, err
    assert "turnproof: interrupted: the findings so far are reported" in err
    assert "Traceback" not in err
    doc = json.loads(stdout)
    s = doc["search"]
    assert s["interrupted"] and s["stopped"] == "interrupted"
    assert shown <= s["done"] < s["planned"] == 630  # every answer shown is kept
    assert json.loads((out / "hunt.json").read_text()) == doc
    for name in ("hunt.txt", "hunt.md", "hunt.html"):
        assert "INTERRUPTED: the findings so far" in (out / name).read_text(), name
    assert workers, "the hunt started worker processes"
    assert not [w for w in workers if procs.alive(w)], "no worker outlives the command"
