"""Houdini invariants: inferred from templates, filtered on reachable states, proved inductive
by Z3; the inferred invariant holds on every state the explicit engine reaches."""

from __future__ import annotations

from pathlib import Path

import pytest
from turnproof.checks import invariants
from turnproof.checks.bmc import Deadline, violation_target
from turnproof.checks.explicit import explore
from turnproof.checks.proofs import Query, by_invariant
from turnproof.checks.symbolic import Encoding
from turnproof.model.bench import BENCH
from turnproof.model.rules import Model

SMALL = {"turns": 1, "cap": 2, "budget": 1, "cmax": 1}


@pytest.fixture(autouse=True)
def _private_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TURNPROOF_INVARIANT_CACHE", str(tmp_path))
    invariants._MEMO.clear()


def test_bench_invariant_is_inductive_and_holds_on_reached_states() -> None:
    model = Model(BENCH, SMALL)
    enc = Encoding(model)
    inv = invariants.infer(model, enc, Deadline(60))
    assert inv.ok, inv.reason
    assert inv.conjuncts
    assert invariants.recheck(Encoding(model), inv.conjuncts, Deadline(60)) == ""
    index = {p: i for i, (p, _) in enumerate(model.schema.leaves())}
    checks = [invariants._compile(c, index) for c in inv.conjuncts]
    ex = explore(model)
    for i in range(ex.states):
        row = model.schema.flatten(ex.state(i))
        assert all(check(row) for check in checks)


def test_cache_gives_the_same_invariant() -> None:
    model = Model(BENCH, SMALL)
    first = invariants.infer(model, Encoding(model), Deadline(60))
    invariants._MEMO.clear()
    again = invariants.infer(model, Encoding(model), Deadline(60))
    assert first.conjuncts == again.conjuncts


def test_houdini_certificate_for_a_bench_property() -> None:
    model = Model(BENCH, SMALL)
    enc = Encoding(model)

    def untap_needs_empty_stack(s, x, b, m):  # type: ignore[no-untyped-def]
        return x.Implies(x.Or(s.step == 0, s.step == 11), s.stk.length == 0)

    answer = by_invariant(
        model, Query(enc, violation_target(enc, untap_needs_empty_stack), 0), Deadline(60)
    )
    assert answer.status == "safe", answer.reason
    assert answer.certificate is not None
    assert answer.certificate["method"] == "houdini invariant"
    assert "step == 0 -> stk.len in {0}" in answer.certificate["invariant"]
