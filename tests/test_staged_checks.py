"""A check in two stages: Spacer's short probe settles the quick safety properties; those it
leaves unsettled share one control invariant per encoding (the union of their fields) and are
proved from it, in place of a long Spacer search each. The answers are the same whether the
properties are checked here or by worker processes, and a rule mutant still breaks the one
property it is meant to break."""

from __future__ import annotations

from typing import Any

import pytest
from comparable import comparable
from turnproof.checks import explicit, proofcache, proofs, runner
from turnproof.checks.results import Verdict
from turnproof.checks.symbolic import (
    SAFETY_KINDS,
    SHARED_FIELDS_MAX,
    SHARED_MIN_GROUP,
    Probed,
    check_properties,
    shared_groups,
    stageable,
)
from turnproof.model.magic import MAGIC

#: Three of the default Magic model's safety properties that Spacer takes 30 to 47 s to prove
#: (none in the probe's share), with no monitor, and one it proves in under a second.
SLOW = (
    "attacking-creature-taps",
    "attacks-a-planeswalker-only-if-there-is-one",
    "sarkhan-is-attacked-only-as-the-defenders-planeswalker",
)
QUICK = "creatures-leave-combat-with-it"


def _fields(model: Any, prop: Any) -> list[str]:
    enc = proofs.property_encoding(model, prop)
    return proofs.query_fields(proofs.property_query(enc, prop))


def test_unsettled_properties_share_an_invariant_per_encoding_when_enough_of_them_do() -> None:
    sel = runner.select(MAGIC)
    props = list(sel.properties)
    index = {p.name: i for i, p in enumerate(props)}
    no_monitor = [index[n] for n in SLOW]
    passed = [index["step-ends-after-all-pass"], index["resolves-after-all-pass"]]
    unsettled = {i: Probed((f"f{i}", "step"), 1.0) for i in no_monitor + passed}
    groups = shared_groups(props, unsettled)
    # Grouped by encoding, in the order of their first property: the two that share the
    # ``passed`` monitor are a group too small to share; the three without monitors share the
    # union of their fields, sorted.
    assert len(SLOW) >= SHARED_MIN_GROUP > len(passed)
    assert groups == [
        (sorted(passed), ()),
        (sorted(no_monitor), tuple(sorted({"step", *(f"f{i}" for i in no_monitor)}))),
    ]
    # Only properties with enough others on their encoding are staged at all: the pair is
    # checked whole (a chain: test_lemma_chains.py), and so is a property alone with its monitors.
    staged = stageable(props)
    assert set(no_monitor) <= staged and not set(passed) & staged
    assert index["active-player-gets-priority-first"] not in staged
    assert all(props[i].kind in SAFETY_KINDS and not props[i].monitors for i in staged)
    # A union over the cap is not shared either.
    wide = {
        i: Probed(tuple(f"g{i}.{k}" for k in range(SHARED_FIELDS_MAX)), 1.0) for i in no_monitor
    }
    assert shared_groups(props, wide) == [(sorted(no_monitor), ())]


@pytest.mark.slow
def test_the_slow_properties_are_proved_from_the_invariant_they_share(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The proof cache on (its entries beside this run's invariant cache, which the tests that
    # leave it off do not read): the second run reads what the first stored.
    monkeypatch.setenv(proofcache.ENV, "1")
    sel = runner.select(MAGIC, property_names=[*SLOW, QUICK])
    model, props = sel.model, list(sel.properties)
    # No bounds question (bounds_cut given): it only adds notes, and costs up to 30 s a run.
    here = check_properties(model, props, jobs=0, bounds_cut={})
    by_name = {r.name: r for r in here}
    union: set[str] = set()
    for name in SLOW:
        union |= set(_fields(model, sel.model.ruleset.property(name)))
    enc = proofs.property_encoding(model, props[0])
    shared = [p for p, _ in enc.tracked() if p in union]
    for name in SLOW:
        r = by_name[name]
        assert r.verdict is Verdict.PROVED and r.meets_expectation, r.reason
        cert = r.certificate or {}
        assert "control invariant" in cert["method"], cert["method"]
        # The invariant is the one over the three properties' fields, more than its own.
        assert cert["fields"] == shared
        assert set(_fields(model, sel.model.ruleset.property(name))) < union
        assert set(r.for_all) == set(sel.model.ruleset.property(name).for_all)
        assert r.seconds > 0
        # The proof cache keeps the steps of an induction by the invariant (a run with it warm
        # starts there: the run in worker processes below reads these entries).
        prop = sel.model.ruleset.property(name)
        memo = proofs.proof_memo(prop, proofs.property_encoding(model, prop))
        entry = proofcache.load(memo) if memo else None
        assert entry is not None and entry["fields"] == shared
        assert entry.get("steps") == cert.get("steps")
    quick = by_name[QUICK]
    assert quick.verdict is Verdict.PROVED and (quick.certificate or {})["method"] == "chc-spacer"
    # Worker processes give the same answers from the entries the run here left: the same
    # proofs, checked again.
    there = check_properties(model, props, jobs=2, scenario=sel.scenario, bounds_cut={})
    assert comparable(there) == comparable(here)


#: About two minutes, most of it the broken property's budget spent before it follows the
#: explicit engine's trace: the deep tier's.
@pytest.mark.deep
def test_a_mutant_breaks_only_its_property_when_the_invariant_is_shared() -> None:
    """``vigilance-for-all``: attacking no longer taps. The invariant the three properties would
    share does not prove the one it breaks, which is violated (by the explicit engine's trace,
    checked step by step, as in a check with both engines), and still proves the other two."""
    sel = runner.select(MAGIC, property_names=list(SLOW), mutant="vigilance-for-all")
    props = list(sel.properties)
    guides = runner.explicit_traces(explicit.check_properties(sel.model, props[:1]))
    assert set(guides) == {SLOW[0]}
    results = check_properties(
        sel.model, props, timeout_s=60, jobs=2, scenario=sel.scenario, guides=guides, bounds_cut={}
    )
    by_name = {r.name: r for r in results}
    broken = by_name[SLOW[0]]
    assert broken.verdict is Verdict.VIOLATED and not broken.meets_expectation, broken.reason
    assert broken.trace is not None
    assert tuple(step.name for step in broken.trace.steps) == guides[SLOW[0]]
    for name in SLOW[1:]:
        r = by_name[name]
        assert r.verdict is Verdict.PROVED and r.meets_expectation, r.reason
        assert "control invariant" in (r.certificate or {})["method"]
