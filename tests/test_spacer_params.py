"""The Spacer parameter benchmark (``benchmarks/spacer_params.py``): a configuration reaches
Z3 (a level cap leaves Spacer undecided where its defaults prove the property), the table
carries every run's answer and the sums, and bad input exits 2 before anything runs."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from turnproof.checks.bmc import Deadline
from turnproof.checks.proofs import safety_query, spacer
from turnproof.checks.symbolic import shared_encoding
from turnproof.model.registry import get_ruleset
from turnproof.model.rules import Model

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ["benchmarks/spacer_params.py"]
QUICK = "cleanup-with-priority-repeats"  # Spacer proves it in about 2 s


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *SCRIPT, *args], cwd=ROOT, capture_output=True, text=True, timeout=240
    )


def test_parameters_reach_spacer() -> None:
    rs = get_ruleset("magic")
    prop = rs.property(QUICK)
    q = safety_query(shared_encoding(Model(rs), prop.monitors, prop.for_all), prop)
    assert spacer(q, Deadline(60)).status == "safe"
    capped = spacer(q, Deadline(60), params={"spacer.max_level": 1})
    assert capped.status == "unknown"
    assert "Spacer" in capped.reason


def test_spacers_share_is_work_not_time() -> None:
    # Z3's resource count stops Spacer long before the clock does, and says so: the same share
    # gives the same answer on an idle machine and a loaded one. Spacer proves this property
    # with about 1.4 M of the count (0.4 s of work on the machine the shares were set on).
    rs = get_ruleset("magic")
    prop = rs.property(QUICK)
    q = safety_query(shared_encoding(Model(rs), prop.monitors, prop.for_all), prop)
    short = spacer(q, Deadline(600), work_s=0.05)
    assert short.status == "unknown"
    assert (
        short.reason == "Spacer: its share of the work spent (about 0.05 s of it, as Z3 counts it)"
    )
    # To two significant figures: the same share however long the caller took to ask.
    assert spacer(q, Deadline(600), work_s=0.0504).reason == short.reason
    assert spacer(q, Deadline(600), work_s=3).status == "safe"
    # A caller's own resource count wins over the share's.
    assert spacer(q, Deadline(600), params={"rlimit": 100_000}, work_s=3).status == "unknown"


def test_table_shows_each_configuration_and_the_sums() -> None:
    done = run("--property", QUICK, "--config", "spacer.max_level=1", "--timeout", "60")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert "[0] Z3 defaults" in lines[1] and "[1] spacer.max_level=1" in lines[2]
    row = next(line for line in lines if line.startswith(QUICK)).split()
    assert row[3] == "safe" and row[6] == "unknown"
    total = lines[-1].split()
    # The undecided run counts at the timeout in its configuration's sum.
    assert total[-7:-4] == ["s", "0", "unk"] and float(total[-8]) < 60.0
    assert total[-3:] == ["s", "1", "unk"] and float(total[-4]) == pytest.approx(60.0)


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--config", "spacer.q4=false"], "did you mean spacer.q3"),
        (["--config", "spacer.q3=3"], "expected true or false"),
        (["--config", "spacer.q3"], "expected NAME=VALUE"),
        (["--property", "no-such-property"], "valid properties:"),
        (["--property", "cleanup-terminates"], "not safety properties: cleanup-terminates"),
        (["--timeout", "0"], "--timeout must be > 0"),
    ],
)
def test_bad_input_exits_2_naming_the_problem(args: list[str], said: str) -> None:
    done = run(*args)
    assert done.returncode == 2
    assert said in done.stderr
    assert done.stdout == ""
