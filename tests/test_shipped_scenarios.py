"""The shipped scenarios are the project's manifest (as TLA+ Examples' manifest is checked in
CI): each one runs on both engines, and every verdict, pinned verdict and state count must be
what its file says."""

from __future__ import annotations

import pytest
from tiers import SAMPLE_SCENARIOS, tier
from turnproof.checks.results import Verdict
from turnproof.checks.runner import engines_for, run_selection, selection_of
from turnproof.scenarios import loader

SHIPPED = loader.shipped()


def test_the_sampled_scenarios_are_shipped() -> None:
    assert set(SAMPLE_SCENARIOS) <= {s.name for s in SHIPPED}


@pytest.mark.parametrize("name", tier(s.name for s in SHIPPED))
def test_shipped_scenario_meets_its_expectations_on_both_engines(name: str) -> None:
    sc = loader.load_shipped(name)
    assert sc is not None
    built = sc.build()
    engines = sc.engines or engines_for("both")
    report = run_selection(selection_of(built), engines)
    bad = [
        (r.name, r.engine, r.verdict.value, r.pinned, r.reason)
        for r in report.results
        if not r.meets_expectation and r.verdict is not Verdict.UNKNOWN
    ]
    assert bad == []
    unknown = [(r.name, r.engine, r.reason) for r in report.results if r.verdict is Verdict.UNKNOWN]
    assert unknown == []
    assert report.exit_code == 0
    counted = [r for r in report.results if r.name == "state-count"]
    assert len(counted) == 1 and counted[0].states == sc.states
