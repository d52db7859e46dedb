"""The turn-loop benchmark: turnproof reaches the reference counts of the shared model, SPIN and
Rumur reach the same counts on the generated peer models, and the table people read carries the
ratios and the TLC-parity note. Everything here runs the real engine and the real peers; a peer
that is not installed skips its tests with the reason."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from bench_peers import missing_for, runnable_peers
from turnproof.model.errors import TurnproofError, UnknownNameError
from turnproof.scenarios import bench
from turnproof.scenarios.bench import (
    GEN_ENV,
    TLC_PARITY_DIVISOR,
    explore_config,
    find_generator,
    format_bench,
    run_bench,
    run_spin,
    run_turnproof,
    run_turnproof_ways,
)

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def base_bench() -> dict[str, Any]:
    """One repeat of the whole benchmark on ``base`` with every peer that can run here."""
    return run_bench(["base"], 1, runnable_peers())


def test_turnproof_explores_base_to_the_reference_counts() -> None:
    r = explore_config("base")
    # The README's 9,133 is SPIN's count, which includes storing the initial state.
    assert (r["states"], r["transitions"]) == (5_017, 9_132)
    assert r["complete"]


def test_turnproof_repeat_runs_in_a_measured_child(base_bench: dict[str, Any]) -> None:
    tp = base_bench["results"]["base"]["turnproof"]
    assert tp["ok"], tp["reason"]
    assert (tp["states"], tp["transitions"], tp["edges"]) == (5_017, 9_132, 9_132)
    assert tp["matches_reference"] and tp["complete"]
    assert len(tp["seconds"]) == 1 and tp["states_per_second"] > 0
    assert tp["cpu_seconds"][0] > 0 and tp["states_per_cpu_second"] > 0
    assert tp["peak_rss_mib"] >= tp["rss_before_search_mib"] > 0
    assert tp["peak_bytes_per_state"] == tp["peak_rss_mib"] * 2**20 / 5_017
    assert tp["search_bytes_per_state"] >= 0
    assert "B/state resident for the search, graph included" in format_bench(base_bench)
    assert base_bench["results"]["base"]["comparison"]["checks"]["turnproof_matches_reference"]


@pytest.mark.skipif(missing_for("spin") is not None, reason=str(missing_for("spin")))
def test_spin_counts_the_same_states_as_turnproof_on_base(base_bench: dict[str, Any]) -> None:
    entry = base_bench["results"]["base"]
    spin, tp = entry["spin"], entry["turnproof"]
    assert spin["ok"], spin["reason"]
    assert spin["states"] == tp["states"] == 5_017
    assert spin["transitions"] == 9_133 and spin["edges"] == tp["edges"]
    assert spin["complete"] and spin["errors"] == 0
    assert entry["comparison"]["checks"]["spin_matches_turnproof"] is True
    assert base_bench["counts_agree"]


@pytest.mark.skipif(missing_for("rumur") is not None, reason=str(missing_for("rumur")))
def test_rumur_counts_the_same_states_as_turnproof_on_base(base_bench: dict[str, Any]) -> None:
    entry = base_bench["results"]["base"]
    rumur = entry["rumur"]
    assert rumur["ok"], rumur["reason"]
    assert (rumur["states"], rumur["transitions"]) == (5_017, 9_132)
    assert entry["comparison"]["checks"]["rumur_matches_turnproof"] is True


def shown(ratio: float) -> str:
    """How the table writes a ratio: two decimals from 1 up, four below (then 1/x follows)."""
    return f"{ratio:.2f}" if ratio >= 1 else f"{ratio:.4f}"


@pytest.mark.skipif(missing_for("spin") is not None, reason=str(missing_for("spin")))
def test_table_shows_the_ratios_and_the_tlc_parity_note(base_bench: dict[str, Any]) -> None:
    text = format_bench(base_bench)
    cmp = base_bench["results"]["base"]["comparison"]
    spin_rate = base_bench["results"]["base"]["spin"]["states_per_second"]
    assert cmp["tlc_parity_states_per_second"] == pytest.approx(spin_rate / TLC_PARITY_DIVISOR)
    assert cmp["turnproof_over_tlc_parity"] == pytest.approx(
        cmp["turnproof_over_spin"] * TLC_PARITY_DIVISOR
    )
    assert f"turnproof/SPIN = {shown(cmp['turnproof_over_spin'])}" in text
    assert f"turnproof/TLC-parity = {shown(cmp['turnproof_over_tlc_parity'])}" in text
    assert "TLC parity (SPIN / 64)" in text
    cpu = cmp["by_cpu_time"]
    assert cpu["tlc_parity"] == pytest.approx(cpu["spin"] / TLC_PARITY_DIVISOR)
    assert f"ratios by CPU time: turnproof/SPIN = {shown(cpu['turnproof_over_spin'])}" in text
    assert "TLC is not installable here" in text and "measured in this same run" in text
    assert "5,017" in text and "counts agree" in text


def test_a_missing_generator_is_reported_not_raised(tmp_path: Path) -> None:
    folder = tmp_path / "nowhere"  # a path without ``.py`` names the generator's folder
    r = run_spin("base", 1, folder)
    assert r["available"] is False and r["ok"] is False
    if shutil.which("spin") and shutil.which("gcc"):
        expected = f"gen_peers.py not found at {folder / 'gen_peers.py'} (the given path)"
        assert r["reason"] == expected


def test_a_run_past_its_time_limit_is_stopped_and_reported() -> None:
    r = run_turnproof("mid", 1, timeout=0.3)
    assert r["available"] is True and r["ok"] is False
    assert r["reason"] == "the exploring child was stopped after the time limit of 0.3 s"


def test_the_ways_of_a_comparison_take_turns_and_each_is_summed_up_alone() -> None:
    """Two ways of exploring ``base``: their repeats alternate (so that a machine slowing down
    midway weighs on both alike), each way has its own figures, and a way that fails is run no
    more while the other goes on."""
    said: list[str] = []
    plain, compact = run_turnproof_ways(
        "base", [{"compact": False}, {"compact": True}], 2, progress=said.append
    )
    assert said == [
        "turnproof base (1 worker, compact=False): repeat 1/2",
        "turnproof base (1 worker, compact=True): repeat 1/2",
        "turnproof base (1 worker, compact=False): repeat 2/2",
        "turnproof base (1 worker, compact=True): repeat 2/2",
    ]
    for r, way in ((plain, False), (compact, True)):
        assert r["ok"] and r["matches_reference"] and r["compact"] is way
        assert (r["states"], r["edges"]) == (5_017, 9_133 - 1)
        assert len(r["seconds"]) == len(r["cpu_seconds"]) == 2
    said.clear()
    broken, fine = run_turnproof_ways("base", [{"workers": 0}, {}], 2, progress=said.append)
    assert not broken["ok"] and "workers must be a whole number of at least 1" in broken["reason"]
    assert fine["ok"] and fine["states"] == 5_017 and len(fine["seconds"]) == 2
    assert said == [
        "turnproof base (0 workers, compact=None): repeat 1/2",
        "turnproof base: repeat 1/2",
        "turnproof base: repeat 2/2",
    ]


def test_generator_is_found_from_the_argument_then_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(GEN_ENV, str(tmp_path))
    assert find_generator() == (tmp_path / "gen_peers.py", f"${GEN_ENV}")
    given = tmp_path / "elsewhere" / "gen_peers.py"
    assert find_generator(given) == (given, "the given path")
    monkeypatch.delenv(GEN_ENV)
    path, source = find_generator()
    project_root = Path(bench.__file__).resolve().parent.parent  # where turnproof is installed from
    assert path == project_root.parent / "shared" / "bench" / "gen_peers.py"
    assert source == "the default ../shared/bench"


def test_bad_names_fail_before_anything_runs() -> None:
    with pytest.raises(UnknownNameError, match="valid benchmark configs: L, XL, base, mid"):
        run_bench(["huge"], 1, [])
    with pytest.raises(UnknownNameError, match="valid peers: rumur, spin"):
        run_bench(["base"], 1, ["tlc"])
    with pytest.raises(TurnproofError, match="repeats"):
        run_bench(["base"], 0, [])


def test_script_prints_json_from_the_project_root() -> None:
    done = subprocess.run(
        [sys.executable, "benchmarks/turn_loop.py", "--configs", "base", "--repeats", "1"]
        + ["--peers", "none", "--json", "--quiet"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["results"]["base"]["turnproof"]["states"] == 5_017
    assert result["counts_agree"] is True


@pytest.mark.slow
@pytest.mark.skipif(not runnable_peers(), reason="neither SPIN nor Rumur can run here")
def test_mid_counts_agree_across_tools() -> None:
    result = run_bench(["mid"], 1, runnable_peers())
    entry = result["results"]["mid"]
    assert entry["turnproof"]["states"] == 618_397
    assert entry["turnproof"]["edges"] == 1_231_668
    for peer in runnable_peers():
        assert entry[peer]["states"] == 618_397, entry[peer]
    assert result["counts_agree"]
