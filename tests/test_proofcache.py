"""The proof cache (``checks/proofcache.py``): a property Spacer proved is proved next time by
its invariant, re-checked, without Spacer's search, with the same certificate; an entry that
does not check is passed over and the methods run as on a cold run; the method remembered for
a property only the control invariant proved is tried first."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import z3
from turnproof.checks import proofcache, proofs
from turnproof.checks.bmc import Deadline, violation_target
from turnproof.checks.proofs import Answer, Query, decide_then_invariant
from turnproof.checks.symbolic import Encoding
from turnproof.model.bench import BENCH
from turnproof.model.properties import always
from turnproof.model.rules import Model


def untap_needs_empty_stack(s: Any, x: Any, b: Any, m: Any) -> Any:
    return x.Implies(x.Or(s.step == 0, s.step == 11), s.stk.length == 0)


PROP = always("untap-needs-empty-stack", "the stack is empty in untap", untap_needs_empty_stack)


@pytest.fixture
def setting(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Model, Query, str]:
    monkeypatch.setenv("TURNPROOF_INVARIANT_CACHE", str(tmp_path))
    monkeypatch.setenv(proofcache.ENV, "1")
    model = Model(BENCH)  # 5,017 states: beyond the reachable-set proof, so Spacer answers
    enc = Encoding(model)
    q = Query(enc, violation_target(enc, untap_needs_empty_stack), 0)
    memo = proofs.proof_memo(PROP, enc)
    assert memo is not None
    return model, q, memo


def solve(model: Model, q: Query, memo: str) -> Answer:
    return decide_then_invariant(model, q, max_depth=20, deadline=Deadline(60), memo=memo)


def test_a_spacer_proof_is_rechecked_not_searched_again(
    setting: tuple[Model, Query, str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    model, q, memo = setting
    cold = solve(model, q, memo)
    assert cold.status == "safe" and cold.certificate is not None
    assert cold.certificate["method"] == "chc-spacer"
    entry = json.loads((tmp_path / f"{memo}.json").read_text())
    assert entry["method"] == proofcache.SPACER and entry["invariant"].startswith("(assert ")

    def no_search(*args: Any, **kwargs: Any) -> Answer:
        raise AssertionError("Spacer searched again")

    monkeypatch.setattr(proofs, "spacer", no_search)
    warm = solve(model, q, memo)
    assert warm.status == "safe" and warm.certificate == cold.certificate


def test_an_entry_that_does_not_check_is_passed_over(
    setting: tuple[Model, Query, str], tmp_path: Path
) -> None:
    """A cached invariant that is not inductive for the query as it is now (here: ``true``,
    which does not exclude the bad states) proves nothing: Spacer runs as on a cold run, and
    its proof replaces the entry."""
    model, q, memo = setting
    (tmp_path / f"{memo}.json").write_text(
        json.dumps({"method": proofcache.SPACER, "invariant": "(assert true)"})
    )
    again = solve(model, q, memo)
    assert again.status == "safe" and again.certificate is not None
    assert again.certificate["method"] == "chc-spacer"
    assert json.loads((tmp_path / f"{memo}.json").read_text())["invariant"] != "(assert true)"
    for junk in ("not json", json.dumps({"method": "guess"}), json.dumps({"method": "chc-spacer"})):
        (tmp_path / f"{memo}.json").write_text(junk)
        answer = solve(model, q, memo)
        assert answer.certificate is not None and answer.certificate["method"] == "chc-spacer"


def test_the_control_invariant_is_tried_first_when_it_proved_last_time(
    setting: tuple[Model, Query, str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    model, q, memo = setting
    (tmp_path / f"{memo}.json").write_text(json.dumps({"method": proofcache.CONTROL}))
    order: list[str] = []
    real_spacer = proofs.spacer

    def by_invariant(*args: Any, **kwargs: Any) -> Answer:
        order.append("control invariant")
        return Answer("unknown", reason="not this time")

    def spacer(*args: Any, **kwargs: Any) -> Answer:
        order.append("spacer")
        return real_spacer(*args, **kwargs)

    monkeypatch.setattr(proofs, "by_invariant", by_invariant)
    monkeypatch.setattr(proofs, "spacer", spacer)
    assert solve(model, q, memo).status == "safe"
    assert order == ["control invariant", "spacer"]


def test_the_steps_of_an_induction_by_the_control_invariant_are_tried_first(
    setting: tuple[Model, Query, str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """An entry whose proof was induction strengthened by the control invariant keeps its
    steps, and the proof next time starts there; steps that are not a whole number from 1 are
    ignored (the search starts from one step, as without them)."""
    model, q, memo = setting
    asked: list[Any] = []

    def by_invariant(*args: Any, **kwargs: Any) -> Answer:
        asked.append(args[4] if len(args) > 4 else kwargs.get("steps"))
        return Answer("unknown", reason="not this time")

    monkeypatch.setattr(proofs, "by_invariant", by_invariant)
    for steps, read in [(2, 2), (1, 1), (0, None), (-1, None), (True, None), ("1", None)]:
        entry = {"method": proofcache.CONTROL, "fields": ["step"], "steps": steps}
        (tmp_path / f"{memo}.json").write_text(json.dumps(entry))
        assert proofcache.control_steps(proofcache.load(memo) or {}) == read
        solve(model, q, memo)
        assert asked.pop(0) == read
    assert proofcache.control_entry(["step"], 3) == {
        "method": proofcache.CONTROL,
        "fields": ["step"],
        "steps": 3,
    }
    assert "steps" not in proofcache.control_entry(["step"])


def test_spacer_relative_to_the_control_invariant_proves_the_conjunction(
    setting: tuple[Model, Query, str],
) -> None:
    """Spacer on the steps between states of the control invariant: its invariant and the
    control invariant together are inductive and exclude the bad states (checked whole); the
    certificate shows both. A false claim (the stack is never used) is still found reachable."""
    model, q, _ = setting
    control = proofs.control_invariant(model, q, Deadline(60))
    assert control.ok
    proved = proofs.spacer(q, Deadline(60), control)
    assert proved.status == "safe" and proved.certificate is not None
    assert proved.certificate["method"].startswith("chc-spacer relative to the control invariant")
    assert len(proved.certificate["control invariant"]) == proved.certificate["claims"] > 0
    assert proofs.check_spacer_invariant(q, proved.formula, control, Deadline(60)) == ""
    problem = proofs.check_spacer_invariant(q, z3.BoolVal(False), control, Deadline(60))
    assert problem == "initiation check answered sat"
    enc = q.enc
    never = Query(enc, violation_target(enc, lambda s, x, b, m: s.stk.length == 0), 0)
    assert (
        proofs.spacer(
            never, Deadline(60), proofs.control_invariant(model, never, Deadline(60))
        ).status
        == "unsafe"
    )


def test_spacer_relative_to_the_control_invariant_comes_after_both_alone_and_is_kept(
    setting: tuple[Model, Query, str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """When neither Spacer alone nor the control invariant proves a property, Spacer relative
    to the control invariant does; the next run re-checks the kept invariant with the control
    invariant, without a search, and gives the same certificate. A kept invariant that does
    not check is passed over (``false``: no initial state satisfies it)."""
    model, q, memo = setting
    real_spacer = proofs.spacer
    calls: list[str] = []

    def spacer(q: Query, deadline: Deadline, control: Any = None, **kw: Any) -> Answer:
        calls.append("alone" if control is None else "relative")
        if control is None:
            return Answer("unknown", reason="Spacer: timeout")
        return real_spacer(q, deadline, control, **kw)

    def by_invariant(*args: Any, **kwargs: Any) -> Answer:
        calls.append("control invariant")
        return Answer("unknown", reason="not implied")

    monkeypatch.setattr(proofs, "spacer", spacer)
    monkeypatch.setattr(proofs, "by_invariant", by_invariant)
    monkeypatch.setattr(proofs, "by_domains", lambda q, deadline: None)
    cold = solve(model, q, memo)
    assert calls == ["alone", "control invariant", "relative"]
    assert cold.status == "safe" and cold.certificate is not None
    entry = json.loads((tmp_path / f"{memo}.json").read_text())
    assert entry["method"] == proofcache.SPACER_CONTROL
    calls.clear()
    warm = solve(model, q, memo)
    assert calls == [] and warm.certificate == cold.certificate
    (tmp_path / f"{memo}.json").write_text(
        json.dumps({"method": proofcache.SPACER_CONTROL, "invariant": "(assert false)"})
    )
    again = solve(model, q, memo)
    assert again.certificate == cold.certificate
    assert calls == ["alone", "control invariant", "relative"]


def test_the_cache_can_be_turned_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(proofcache.ENV, "0")
    model = Model(BENCH)
    assert proofs.proof_memo(PROP, Encoding(model)) is None


@pytest.mark.slow
def test_which_bounds_cut_is_answered_from_the_cache_each_answer_checked_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A bound proved never to cut has its invariant re-checked, the fields' domains too; what
    was left undecided is not asked again with the same budget; an entry whose proof does not
    check is passed over."""
    monkeypatch.setenv("TURNPROOF_INVARIANT_CACHE", str(tmp_path))
    monkeypatch.setenv(proofcache.ENV, "1")
    from turnproof.model.riftbound import RIFTBOUND

    enc = Encoding(Model(RIFTBOUND, {"turns": 1}))
    # Within this budget Spacer leaves some bounds undecided (all six on this machine; with
    # 20 s, `waiting` is sometimes proved never to cut, when the machine is not busy). The
    # entry's proofs are checked again below by one written into it.
    cold = proofs.bounds_reached(enc, timeout_s=8, max_depth=40)
    assert cold.undecided
    (entry,) = tmp_path.glob("bounds-*.json")
    real = proofs._bounds_reached

    def no_search(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("asked again")

    monkeypatch.setattr(proofs, "_bounds_reached", no_search)
    warm = proofs.bounds_reached(enc, timeout_s=8, max_depth=40)
    shown = ("reached", "unreached", "undecided", "reason", "domain_undecided")
    assert [getattr(warm, f) for f in shown] == [getattr(cold, f) for f in shown]
    data = json.loads(entry.read_text())
    data["unreached"].append("chain")  # a claim with no proof kept for it
    data["invariants"]["chain"] = "(assert true)"  # which proves nothing
    entry.write_text(json.dumps(data))
    searched: list[bool] = []

    def search(*args: Any, **kwargs: Any) -> Any:
        searched.append(True)
        return real(*args, **kwargs)

    monkeypatch.setattr(proofs, "_bounds_reached", search)
    again = proofs.bounds_reached(enc, timeout_s=8, max_depth=40)
    assert searched and "chain" not in again.unreached


def test_a_witness_is_followed_again_not_searched_for(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The bounded search's shortest witness is kept as its rule instances; the next run follows
    them through the transition formula and gets the same trace; kept instances that lead
    nowhere are passed over, and the search runs again."""
    from turnproof.checks.symbolic import property_task
    from turnproof.model.properties import reachable

    monkeypatch.setenv("TURNPROOF_INVARIANT_CACHE", str(tmp_path))
    monkeypatch.setenv(proofcache.ENV, "1")
    model = Model(BENCH)  # beyond the small-model path: the bounded search finds the witness
    prop = reachable("extra-cleanup", "an extra cleanup step", lambda s, x, b, m: s.cl == b.cmax)
    cold = property_task(model, prop, timeout_s=60, max_depth=40)
    assert cold.verdict.value == "WITNESSED" and cold.trace is not None
    (entry,) = tmp_path.glob("proof-*.json")
    assert json.loads(entry.read_text())["labels"] == [s.name for s in cold.trace.steps]
    real = proofs.find_path

    def no_search(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("searched again")

    monkeypatch.setattr(proofs, "find_path", no_search)
    warm = property_task(model, prop, timeout_s=60, max_depth=40)
    assert (warm.verdict, warm.trace, warm.reason) == (cold.verdict, cold.trace, cold.reason)
    entry.write_text(json.dumps({"method": proofcache.WITNESS, "labels": ["no_such_step"]}))
    searched: list[bool] = []

    def search(*args: Any, **kwargs: Any) -> Any:
        searched.append(True)
        return real(*args, **kwargs)

    monkeypatch.setattr(proofs, "find_path", search)
    again = property_task(model, prop, timeout_s=60, max_depth=40)
    assert searched and again.trace == cold.trace


@pytest.mark.slow
def test_a_ranking_is_checked_again_not_searched_for(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A ranking under the region's invariant is kept as its features and components; the
    next run checks it on every region transition under the invariant, without the reached
    states and the search; a kept ranking that does not decrease is passed over."""
    from turnproof.checks import ranking
    from turnproof.model.riftbound import RIFTBOUND

    monkeypatch.setenv("TURNPROOF_INVARIANT_CACHE", str(tmp_path))
    monkeypatch.setenv(proofcache.ENV, "1")
    prop = RIFTBOUND.property("cleanups-terminate")
    model = Model(RIFTBOUND, {"turns": 1})

    def prove() -> Any:
        enc = Encoding(model, prop.monitors, tuple(prop.for_all))
        return ranking.prove(enc, prop, Deadline(300), memo=proofs.proof_memo(prop, enc))

    cold = prove()
    assert isinstance(cold, ranking.Proof) and cold.components
    (entry,) = (p for p in tmp_path.glob("proof-*.json") if "ranking" in p.read_text())
    real = ranking.reached

    def no_search(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("searched again")

    monkeypatch.setattr(ranking, "reached", no_search)
    warm = prove()
    assert isinstance(warm, ranking.Proof)
    assert (warm.components, warm.seeded, warm.refinements) == (
        cold.components,
        cold.seeded,
        cold.refinements,
    )
    assert [f.parts for f in warm.features] == [f.parts for f in cold.features]
    data = json.loads(entry.read_text())
    data["components"] = [[[0] * len(c), s] for c, s in data["components"]]  # decreases nothing
    entry.write_text(json.dumps(data))
    monkeypatch.setattr(ranking, "reached", real)
    again = prove()  # a search again (in one process, it may find another ranking)
    assert isinstance(again, ranking.Proof) and again.components
    assert all(any(c != 0 for c in coeffs) for coeffs, _ in again.components)


def test_a_cache_file_is_written_whole_or_not_at_all(tmp_path: Any) -> None:
    """The helper every cache writes with: a write that fails midway leaves neither the file
    nor its temporary one (a full disk is an ``OSError``: answered ``False``; another error is
    raised), and a folder that cannot be made is answered ``False``."""
    import os

    from turnproof.checks.cachefiles import write_whole

    folder = str(tmp_path / "cache")
    assert write_whole(folder, "a.json", lambda f: json.dump({"x": 1}, f))
    assert json.loads((tmp_path / "cache" / "a.json").read_text()) == {"x": 1}
    assert write_whole(folder, "b.npz", lambda f: f.write(b"\x00\x01"), binary=True)
    assert (tmp_path / "cache" / "b.npz").read_bytes() == b"\x00\x01"

    def full_disk(f: Any) -> None:
        f.write("{half")
        raise OSError(28, "No space left on device")

    def broken(f: Any) -> None:
        f.write("{half")
        raise TypeError("not serialisable")

    assert not write_whole(folder, "c.json", full_disk)
    with pytest.raises(TypeError):
        write_whole(folder, "d.json", broken)
    assert sorted(os.listdir(folder)) == ["a.json", "b.npz"]
    blocked = tmp_path / "a-file"
    blocked.write_text("")
    assert not write_whole(str(blocked / "sub"), "e.json", lambda f: f.write("{}"))
