"""Turn control (MTG 723) proved for every value of the open bounds: the invariant inference
ties the property's monitors (who the last control effect created for each player names) to
the state's waiting effects, so "control ends when the next turn begins" and "the last control
effect wins" are proved for any number of turns, hand size, effects, actions, damage and mana,
not only at a scenario's values; and the mutants that break them are not proved."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from turnproof.checks import invariants, runner
from turnproof.checks.bmc import Deadline, step_violation_target
from turnproof.checks.proofs import (
    Query,
    by_invariant,
    by_invariant_steps,
    check_property,
    control_invariant,
    property_encoding,
    property_query,
    spacer,
)
from turnproof.checks.results import Verdict
from turnproof.checks.symbolic import DEFAULT_MAX_DEPTH, Encoding
from turnproof.model.magic import MAGIC
from turnproof.scenarios import loader

#: Meets both properties, two effects on one player's turn and a skipped turn.
SCENARIO = "two-controls-meet-skip"


def _built(name: str, mutant: str | None = None):  # type: ignore[no-untyped-def]
    sc = loader.load(loader.shipped_path(name))
    if mutant is not None:
        sc = replace(sc, mutant=mutant, states=None)
    return sc.build()


def test_the_fields_include_the_monitors_read_and_the_state_they_mirror() -> None:
    """The property reads ``m.made_p``; each starts as ``ctrl_next[p]``, so both are fields."""
    built = _built(SCENARIO)
    prop = built.property("control-ends-when-next-turn-begins")
    enc = Encoding(built.model, prop.monitors, prop.for_all)
    q = Query(enc, step_violation_target(enc, prop.pred), 1)
    fields = invariants.control_fields(enc, q.at_origin())
    players = built.model.bounds["players"]
    for p in range(players):
        assert f"m.made_{p}" in fields and f"ctrl_next[{p}]" in fields
    assert invariants.monitor_fields(enc, fields) == [f"m.made_{p}" for p in range(players)]


@pytest.mark.slow
@pytest.mark.parametrize("name", ["control-ends-when-next-turn-begins", "last-control-effect-wins"])
def test_control_properties_are_proved_for_every_value_of_the_open_bounds(name: str) -> None:
    built = _built(SCENARIO)
    prop = built.property(name)
    # A generous budget: the invariant's share must outlast a loaded machine (the check stops
    # as soon as the proof is done).
    r = check_property(built.model, prop, timeout_s=600, max_depth=DEFAULT_MAX_DEPTH)
    assert r.verdict is Verdict.PROVED, r.reason
    assert r.meets_expectation, r.reason
    # Every bound the property is meant for is open, and the proof is no fallback to the
    # scenario's values.
    assert set(r.for_all) == set(prop.for_all)
    assert {"turns", "hand_max", "effects", "actions"} <= set(r.for_all)
    cert = r.certificate or {}
    assert "open bounds" not in cert
    assert cert["method"].startswith("control invariant") and "monitors" in cert["method"]
    assert "m.made_0" in cert["monitors"]
    # The proof rests on the claims that tie the monitors to the waiting effects.
    tied = [c for c in cert["used"] if c.startswith("m.made_") and "ctrl_next[" in c]
    assert tied, cert["used"]
    assert set(cert["used"]) - {"the property itself"} <= set(cert["invariant"])


@pytest.mark.parametrize(
    ("name", "mutant", "prop"),
    [
        pytest.param(
            "mindslaver",
            "control-outlasts-turn",
            "control-ends-when-next-turn-begins",
            marks=pytest.mark.slow,
        ),
        # About a minute: the deep tier's.
        pytest.param(
            SCENARIO, "first-control-wins", "last-control-effect-wins", marks=pytest.mark.deep
        ),
    ],
)
def test_the_mutants_are_not_proved(name: str, mutant: str, prop: str) -> None:
    """Neither the whole check (which finds the violation) nor the monitor-aware invariant on
    its own proves the property on the mutant that breaks it."""
    built = _built(name, mutant)
    p = built.property(prop)
    r = check_property(built.model, p, timeout_s=60, max_depth=DEFAULT_MAX_DEPTH)
    assert r.verdict in (Verdict.VIOLATED, Verdict.UNKNOWN), r.verdict
    assert not r.meets_expectation
    enc = Encoding(built.model, p.monitors, p.for_all)
    answer = by_invariant(
        built.model, Query(enc, step_violation_target(enc, p.pred), 1), Deadline(120)
    )
    assert answer.status != "safe", answer.certificate


@pytest.mark.slow
def test_the_controlled_player_stays_active_for_every_value_of_the_open_bounds() -> None:
    """Proved for every value of the open bounds, by whichever method finishes within its share
    of the budget (on a loaded machine Spacer's few seconds may run out first); and Spacer on
    its own proves it, with an invariant that ties the first priority of a step to the active
    player, ``turn % players``. The mutant that gives priority to the controller is violated,
    with a trace in which the controller receives it."""
    built = _built("ms-01-mindslaver-basic")
    prop = built.property("controlled-player-stays-active")
    r = check_property(built.model, prop, timeout_s=600, max_depth=DEFAULT_MAX_DEPTH)
    assert r.verdict is Verdict.PROVED and r.meets_expectation, r.reason
    assert set(r.for_all) == set(prop.for_all)
    assert {"turns", "hand_max", "effects", "actions"} <= set(r.for_all)
    cert = r.certificate or {}
    assert "open bounds" not in cert
    assert cert["method"] == "chc-spacer" or (
        "induction strengthened by the control invariant" in cert["method"]
        and cert["checked"][-1] == f"induction ({cert['steps']} steps)"
    ), cert
    enc = Encoding(built.model, prop.monitors, prop.for_all)
    alone = spacer(Query(enc, step_violation_target(enc, prop.pred), 1), Deadline(300))
    assert alone.status == "safe", alone.reason
    assert alone.certificate is not None and "m.fresh" in alone.certificate["invariant"]
    broken = _built("ms-01-mindslaver-basic", "controller-becomes-active")
    bad = check_property(
        broken.model, broken.property(prop.name), timeout_s=120, max_depth=DEFAULT_MAX_DEPTH
    )
    assert bad.verdict is Verdict.VIOLATED and bad.trace is not None
    final = bad.trace.final or {}
    # the last step gives a step's first priority to the controller, not to the active player
    assert final["stage"] == "PRIORITY" and final["ctrl_now"] > 0
    assert final["prio"] == final["ctrl_now"] - 1 != final["turn"] % 2


@pytest.mark.slow
def test_an_invariant_read_back_unchecked_proves_nothing_that_does_not_check(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A control invariant read back from the cache for a proof is not re-checked on its own
    (the proof checks it whole). Planted under the key of a mutant that breaks the property
    (``brace-stays``: the effect outlives combat), the claims that prove it on the rule set
    are read back as they are, and prove nothing there: they are not inductive."""
    monkeypatch.setenv("TURNPROOF_INVARIANT_CACHE", str(tmp_path))
    monkeypatch.setattr(invariants, "_MEMO", {})
    name = "eoc-effects-end-with-combat"

    def query(mutant: str | None) -> tuple[Any, Query]:
        sel = runner.select(MAGIC, property_names=[name], mutant=mutant)
        enc = property_encoding(sel.model, sel.properties[0])
        return sel.model, property_query(enc, sel.properties[0])

    model, q = query(None)
    inv = control_invariant(model, q, Deadline(300))
    assert inv.ok and inv.verified
    assert by_invariant(model, q, Deadline(120), inv).status == "safe"
    broken, bq = query("brace-stays")
    invariants._store(invariants.cache_key(broken, bq.enc, inv.fields), inv.conjuncts, inv.rounds)
    planted = control_invariant(broken, bq, Deadline(60))
    assert planted.conjuncts == inv.conjuncts and not planted.verified
    answer = by_invariant(broken, bq, Deadline(120), planted)
    assert answer.status == "unknown", answer.certificate
    assert "did not check" in answer.reason, answer.reason
    # Induction strengthened by it checks it first, and it stays unchecked for what follows.
    stepped = by_invariant_steps(bq, planted, Deadline(120))
    assert isinstance(stepped, str) and stepped.startswith("the invariant did not check")
    assert not planted.verified
    # Read back on the rule set, the claims are checked by the first proof that rests on them,
    # once in this process: the object says so from then on.
    invariants._MEMO.clear()
    again = control_invariant(model, q, Deadline(60))
    assert again.conjuncts == inv.conjuncts and not again.verified
    # A question at fixed bound values starts from fewer initial states: its check does not
    # stand for every question's.
    fixed = replace(q, fixed=dict(model.bounds))
    by_invariant_steps(fixed, again, Deadline(120))
    assert not again.verified
    by_invariant_steps(q, again, Deadline(120))
    assert again.verified and control_invariant(model, q, Deadline(60)) is again
