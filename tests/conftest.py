"""Test-session settings shared by every test module, and the shared fixtures: the golden
files (``pytest --regen-golden`` rewrites them all) and the ``tiny`` rule set on the command
line."""

from __future__ import annotations

import difflib
import os
import re
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from tiny_ruleset import TINY
from turnproof.model.registry import builtin_rulesets
from turnproof.scenarios import cli

GOLDEN = Path(__file__).parent / "golden"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--regen-golden",
        action="store_true",
        help="rewrite tests/golden/* from the current output (then review the diff)",
    )


#: The longest tests of CI's tiers, with the seconds each took in a whole CI run on 2 cores
#: (``--durations``): they start first, longest first, so that no long test starts last and
#: runs alone while the other worker has nothing left.
LONGEST_FIRST = {
    "test_the_slow_properties_are_proved_from_the_invariant_they_share": 68,
    "test_magic_core_kill_rate": 50,
    "test_the_holes_found_in_the_riftbound_chain_are_closed": 38,
    "test_an_invariant_read_back_unchecked_proves_nothing_that_does_not_check": 37,
    "test_mypy_is_clean_on_model_and_checks": 30,
    "test_reachability_witness_names_its_bound_values": 29,
    "test_bounds_reached_are_reported_with_their_depth": 28,
    "test_a_ranking_is_checked_again_not_searched_for": 28,
    "test_ray_gives_the_same_findings_as_the_local_backend": 26,
    "test_open_bound_finds_a_violation_beyond_the_checked_value": 25,
    "test_magic_at_default_bounds_with_both_engines": 24,
    "test_shipped_scenario_meets_its_expectations_on_both_engines[ms-03-skipped-turn]": 24,
    "test_control_properties_are_proved_for_every_value_of_the_open_bounds": 23,
    "test_engines_agree_on_larger_bounds[riftbound]": 22,
}


def _expected_seconds(item: pytest.Item) -> float:
    name = getattr(item, "name", "")
    for key, seconds in LONGEST_FIRST.items():
        if key in (name, getattr(item, "originalname", None)):
            return seconds
    return 0.0


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The longest tests first (:data:`LONGEST_FIRST`), then the other slow ones (stable order
    otherwise): pytest-xdist hands out tests in this order, so the long ones
    start while the short ones fill the other worker, instead of one long test running alone
    at the end."""
    items.sort(key=lambda item: (-_expected_seconds(item), item.get_closest_marker("slow") is None))


def mask_volatile(text: str) -> str:
    """Mask what varies from run to run (timings, peak memory) and the content hash (it
    changes with the rule code and with the hashing scheme; test_cli pins it)."""
    text = re.sub(r" *\b\d+\.\d\d s\b", " <time>", text)
    text = re.sub(r'"seconds": [0-9.e-]+', '"seconds": 0', text)
    text = re.sub(r'"(peak_(?:worker_)?memory_kib)": (?:\d+|null)', r'"\1": 0', text)
    text = re.sub(r'\btime="[0-9.]+"', 'time="0"', text)
    text = re.sub(r"\b\d+\.\d MiB\b", "<memory>", text)
    return re.sub(r"(hash.{0,40}?)\b[0-9a-f]{16}\b", r"\1<hash>", text)


@pytest.fixture
def golden(request: pytest.FixtureRequest) -> Callable[..., None]:
    """``golden(name, actual)``: ``actual`` (its volatile parts masked, unless ``mask=False``)
    must equal ``tests/golden/<name>``; with ``--regen-golden`` (or ``TURNPROOF_UPDATE_GOLDEN=1``) the
    file is rewritten instead. A difference fails with the first lines of a unified diff."""
    regen = bool(request.config.getoption("--regen-golden")) or (
        os.environ.get("TURNPROOF_UPDATE_GOLDEN") == "1"
    )

    def check(name: str, actual: str, mask: bool = True) -> None:
        path = GOLDEN / name
        masked = mask_volatile(actual) if mask else actual
        if regen:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(masked, encoding="utf-8")
            return
        assert path.exists(), f"{path} is missing: pytest --regen-golden writes it"
        expected = path.read_text(encoding="utf-8")
        if masked != expected:
            diff = difflib.unified_diff(
                expected.splitlines(), masked.splitlines(), str(path), "actual", lineterm=""
            )
            shown = list(diff)[:40]
            pytest.fail(
                f"{path} differs (pytest --regen-golden rewrites it):\n" + "\n".join(shown),
                pytrace=False,
            )

    return check


@pytest.fixture
def with_tiny(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make ``tiny`` a built-in rule set, next to the real ones, for the CLI."""
    sets = {**builtin_rulesets(), "tiny": TINY}
    monkeypatch.setattr(cli, "builtin_rulesets", lambda: sets)
    monkeypatch.setattr(cli, "is_symbolic_available", lambda: False)


@pytest.fixture(scope="session", autouse=True)
def _session_invariant_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """One invariant cache per test run: an invariant a slow test infers is read back (and
    re-checked) by the later tests on the same model instead of being inferred again, and no
    run reads what an earlier run left in the machine's cache. Under pytest-xdist (``-n``)
    the workers share it (writes are atomic)."""
    key = "TURNPROOF_INVARIANT_CACHE"
    old = os.environ.get(key)
    # The proof cache would let a test's proof method depend on what an earlier test proved
    # (a cached Spacer invariant answers before the method under test): off, but where a test
    # turns it on in a folder of its own (test_symbolic_proofs.py).
    os.environ["TURNPROOF_PROOF_CACHE"] = "0"
    base = tmp_path_factory.getbasetemp()
    shared = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    folder = shared / "invariants"
    folder.mkdir(exist_ok=True)
    os.environ[key] = str(folder)
    yield
    if old is None:
        os.environ.pop(key, None)
    else:
        os.environ[key] = old
