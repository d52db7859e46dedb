"""The edge-case hunter (``turnproof hunt``, ``checks/hunt.py``): real hunts over small pools,
on the real engines (nothing mocked)."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest
from turnproof.checks.hunt import (
    NO_END,
    SURPRISE,
    Settings,
    hunt,
)
from turnproof.model.magic import LIBRARY as MAGIC_LIBRARY
from turnproof.model.riftbound import LIBRARY as RIFTBOUND_LIBRARY
from turnproof.reports.hunt import render_hunt_json, render_hunt_markdown, render_hunt_text
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
