"""Control invariants: the least fixed point of the rules in the control-field domain, computed
on the symbolic transition formula, re-checked by Z3, and true on every state the explicit
engine reaches; it proves a property Spacer alone does not, and never a property a mutant
breaks."""

from __future__ import annotations

from pathlib import Path

import pytest
from turnproof.checks import invariants
from turnproof.checks.bmc import Deadline, step_violation_target, violation_target
from turnproof.checks.explicit import Limits, explore
from turnproof.checks.proofs import INVARIANT_STEPS, Query, by_invariant, spacer
from turnproof.checks.symbolic import Encoding
from turnproof.model.bench import BENCH
from turnproof.model.magic import MAGIC
from turnproof.model.rules import Model

SMALL = {"turns": 1, "cap": 2, "budget": 1, "cmax": 1}


@pytest.fixture(autouse=True)
def _private_cache(
    request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    invariants._MEMO.clear()
    if request.node.get_closest_marker("slow") is None:
        monkeypatch.setenv("TURNPROOF_INVARIANT_CACHE", str(tmp_path))
    # A slow test keeps the session's cache (tests/conftest.py): the later tests on the same
    # model read its invariant back (re-checked) instead of inferring it again.


def _holds_on_reached_states(model: Model, conjuncts: list[invariants.Candidate]) -> None:
    index = {p: i for i, (p, _) in enumerate(model.schema.leaves())}
    ex = explore(model)
    for i in range(ex.states):
        row = [int(v) for v in model.schema.flatten(ex.state(i))]
        assert all(c.holds(row, index) for c in conjuncts)


def test_bench_invariant_is_inductive_and_holds_on_reached_states() -> None:
    model = Model(BENCH, SMALL)
    enc = Encoding(model)
    every = [p for p, _ in model.schema.leaves()]  # bench has no enumerated leaves: take all
    inv = invariants.infer(model, enc, Deadline(60), every)
    assert inv.ok, inv.reason
    assert inv.conjuncts and inv.rounds >= 1
    assert invariants.recheck(Encoding(model), inv.conjuncts, Deadline(60)) == ""
    _holds_on_reached_states(model, inv.conjuncts)


def test_least_fixed_point_does_not_depend_on_the_samples() -> None:
    """Any start below the least fixed point ends at it: a tenth of the reached states as the
    start gives the same invariant as all of them."""
    model = Model(BENCH, SMALL)
    enc = Encoding(model)
    fields = [p for p, _ in model.schema.leaves()]
    full = invariants.sample_columns(model)
    few = invariants.sample_columns(model, max_states=len(full[0]) // 10)
    a, _ = invariants.fixed_point(invariants.Lattice(enc, fields, full), Deadline(60))
    b, _ = invariants.fixed_point(invariants.Lattice(enc, fields, few), Deadline(60))
    assert a == b


@pytest.mark.parametrize("with_monitors", [False, True])
def test_samples_read_off_the_codes_are_the_leaf_values(with_monitors: bool) -> None:
    """The columns read off the states' codes at once are those of each state's leaves (and
    each monitor's value after them), state by state as the explicit engine numbers them."""
    model = Model(MAGIC)
    mons = next(p.monitors for p in MAGIC.properties if p.monitors) if with_monitors else ()
    got = invariants.sample_columns(model, 5_000, mons)
    ex = explore(model, mons, limits=Limits(max_states=5_000))
    rows = [
        [*model.schema.flatten(ex.state(i)), *(ex.monitor_values(i) if mons else ())]
        for i in range(ex.states)
    ]
    assert len(got) == len(model.schema.leaves()) + len(mons) and len(got[0]) == ex.states
    assert got == [bytes(int(r[j]) for r in rows) for j in range(len(got))]


def test_cache_gives_the_same_invariant() -> None:
    model = Model(BENCH, SMALL)
    every = [p for p, _ in model.schema.leaves()]
    first = invariants.infer(model, Encoding(model), Deadline(60), every)
    invariants._MEMO.clear()
    again = invariants.infer(model, Encoding(model), Deadline(60), every)
    assert first.conjuncts and first.conjuncts == again.conjuncts


def test_claims_under_a_context_speak_of_the_context_only() -> None:
    """Claims under ``step == 11`` (the bench's cleanup) hold on the reached cleanup states
    and the invariant with them is inductive. (Magic's cleanup needs them: players get
    priority in a cleanup step only once something happened in it, which is false of other
    steps; see tests/test_ranking.py.)"""
    model = Model(BENCH, SMALL)
    enc = Encoding(model)
    every = [p for p, _ in model.schema.leaves()]
    plain = invariants.infer(model, enc, Deadline(60), every)
    inv = invariants.infer(model, enc, Deadline(60), every, [("step", 11)])
    assert inv.ok, inv.reason
    inside = [c for c in inv.conjuncts if c.c == "step" and c.u == 11]
    assert inside and all(c.render(enc).startswith("step == 11: ") for c in inside)
    assert set(plain.conjuncts) <= set(inv.conjuncts)  # the same claims without a context
    assert invariants.recheck(enc, inv.conjuncts, Deadline(60)) == ""
    _holds_on_reached_states(model, inv.conjuncts)
    assert invariants.Candidate.from_json(inside[0].as_json()) == inside[0]


def test_certificate_for_a_bench_property() -> None:
    model = Model(BENCH, SMALL)
    enc = Encoding(model)

    def untap_needs_empty_stack(s, x, b, m):  # type: ignore[no-untyped-def]
        return x.Implies(x.Or(s.step == 0, s.step == 11), s.stk.length == 0)

    answer = by_invariant(
        model, Query(enc, violation_target(enc, untap_needs_empty_stack), 0), Deadline(60)
    )
    assert answer.status == "safe", answer.reason
    assert answer.certificate is not None
    assert answer.certificate["method"].startswith("control invariant")
    assert answer.certificate["used"]
    assert set(answer.certificate["used"]) <= set(answer.certificate["invariant"])


def test_open_range_keeps_a_top_class() -> None:
    """A field whose range ends at an open bound keeps its fixed-bound values, the last one
    meaning "that or more", so a claim covers every value of the bound."""
    model = Model(MAGIC)
    enc = Encoding(model, (), ("effects",))
    lat = invariants.Lattice(enc, ["step", "brace"], invariants.columns(model))
    assert lat.top == {"step": -1, "brace": model.bounds["effects"]}
    claim = invariants.Candidate("imp", "brace", 2, "step", (4, 5), a_top=2)
    assert claim.render(enc) == "brace >=2 -> step in {BEGIN_COMBAT, ATTACKERS}"
    index = {"brace": 0, "step": 1}
    assert not claim.holds([7, 3], index) and claim.holds([7, 4], index)


@pytest.mark.deep  # 2 minutes on 2 cores: the deep tier's (the default check proves it too)
def test_eoc_effects_proved_for_every_bound_and_not_for_its_mutant() -> None:
    """Spacer alone does not prove that 'until end of combat' effects exist only in combat (it
    needs facts about the stack, the resolving object and the turn-ending process); the
    control invariant does, for every value of the property's open bounds. The mutant whose
    effects outlast combat is not proved: its invariant is computed and does not imply it."""
    prop = MAGIC.property("eoc-effects-end-with-combat")
    model = Model(MAGIC)
    enc = Encoding(model, prop.monitors, tuple(prop.for_all))
    q = Query(enc, violation_target(enc, prop.pred), 0)
    assert spacer(q, Deadline(10)).status != "safe"
    answer = by_invariant(model, q, Deadline(300))
    assert answer.status == "safe", answer.reason
    cert = answer.certificate
    assert cert is not None and "brace" in cert["fields"]
    assert any(line.startswith("brace >=2 -> step in") for line in cert["used"])
    # The mutant at the model's values (a smaller query than with open bounds): the least
    # fixed point of its rules does not prove what they break.
    m = MAGIC.mutant("brace-stays")
    broken = MAGIC.amend(*m.amendments, label=m.name)
    bad = Model(broken, m.bounds)
    benc = Encoding(bad, prop.monitors)
    answer = by_invariant(bad, Query(benc, violation_target(benc, prop.pred), 0), Deadline(300))
    assert answer.status != "safe"
    assert "does not imply" in answer.reason


@pytest.mark.deep  # 2 minutes on 2 cores; the deep tier's whole default check proves it too
def test_a_few_steps_after_the_control_invariant_prove_what_its_pairs_cannot_say() -> None:
    """Declaring attackers taps the attacker (508.1f) needs ``attacking`` to be reset in the
    states where ``step == ATTACKERS`` and ``stage == BEGIN``: three fields, so no claim of the
    domain says it, and the invariant alone does not imply the property. One step more does:
    every state that enters that one comes from the beginning of combat, where the invariant
    says that nothing attacks. The proof holds for every value of the property's open bounds.
    The mutant whose attacker does not tap is not proved, even four steps after."""
    prop = MAGIC.property("attacking-creature-taps")
    model = Model(MAGIC)
    enc = Encoding(model, prop.monitors, tuple(prop.for_all))
    q = Query(enc, step_violation_target(enc, prop.pred), 1)
    inv = invariants.infer(model, enc, Deadline(300), invariants.control_fields(enc, q.target(1)))
    assert inv.ok and "attacking" in inv.fields
    assert invariants.support(enc, inv.conjuncts, q, Deadline(60)) is None
    answer = by_invariant(model, q, Deadline(300))
    assert answer.status == "safe", answer.reason
    cert = answer.certificate
    assert cert is not None and cert["steps"] == 1
    assert cert["method"].startswith("1-induction strengthened by the control invariant")
    assert cert["checked"] == ["initiation", "consecution", "base (1 steps)", "induction (1 steps)"]
    m = MAGIC.mutant("vigilance-for-all")
    bad = Model(MAGIC.amend(*m.amendments, label=m.name), m.bounds)
    benc = Encoding(bad, prop.monitors)
    answer = by_invariant(
        bad, Query(benc, step_violation_target(benc, prop.pred), 1), Deadline(300)
    )
    assert answer.status != "safe"
    assert f"not even {INVARIANT_STEPS} steps after" in answer.reason


@pytest.mark.slow  # 21 s: two fixed points on the default Magic model
def test_seeds_at_the_low_ends_of_the_open_bounds_reach_the_same_fixed_point() -> None:
    """States reached with an open bound at the low end of its range seed the claims too: they
    are states of the encoding, so the least fixed point is the same as from the model's own
    states alone (only the number of rounds changes)."""
    model = Model(MAGIC)
    enc = Encoding(model, (), ("hand_max", "loyalty"))
    assert invariants.low_ends(model, enc.open_bounds) == [
        {"hand_max": 0, "loyalty": 1},
        {"hand_max": 0},
        {"loyalty": 1},
    ]
    own = invariants.sample_columns(model)
    seeded = invariants.columns(model, (), enc.open_bounds)
    assert set(zip(*seeded)) > set(zip(*own))  # the low ends add states of their own
    fields = ["step", "stage", "proc", "stack.len", "res.what"]
    alone, _ = invariants.fixed_point(invariants.Lattice(enc, fields, own), Deadline(120))
    both, _ = invariants.fixed_point(invariants.Lattice(enc, fields, seeded), Deadline(120))
    assert alone == both and alone


@pytest.mark.slow  # 14 s: two fixed points on the default Magic model
def test_states_run_from_in_range_counterexamples_save_rounds_not_claims(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Each round asks first for a counterexample whose open bounds the rule set accepts, so
    that the states reached from its first state widen the claims too: fewer rounds, and the
    same least fixed point as widening with the counterexamples alone (here 78 rounds against
    123; without the in-range question, Z3 left the bounds beyond their ranges and the states
    run added nothing: 126 rounds)."""
    model = Model(MAGIC)
    enc = Encoding(model, (), ("turns", "hand_max", "effects", "actions"))
    seeds = invariants.columns(model, (), enc.open_bounds)
    fields = ["turn", "step", "stage", "proc", "stack.len", "res.what", "tapped[0]", "attacking"]
    run, rounds = invariants.fixed_point(invariants.Lattice(enc, fields, seeds), Deadline(300))
    monkeypatch.setattr(invariants, "FORWARD_STATES", 0)
    alone, more = invariants.fixed_point(invariants.Lattice(enc, fields, seeds), Deadline(300))
    assert run == alone and run
    assert rounds < more


def test_consecution_one_rule_instance_at_a_time_answers_as_the_whole_transition() -> None:
    """``step_closed`` asks the consecution check of each rule instance under an assumption;
    its answer is the whole transition formula's, on claims that are closed under the steps
    and on claims that rule instances break, the last instance alone too."""
    import z3

    model = Model(BENCH, SMALL)
    enc = Encoding(model)
    turn0, turn1 = enc.var("turn", 0), enc.var("turn", 1)
    cl0, cl1 = enc.var("cl", 0), enc.var("cl", 1)
    last = model.actions[-1]
    assert last.rule.name == "end_step"  # the only rule that adds to cl (MTG 500.2 in step 12)
    cases = [
        (enc.well_formed(0), enc.well_formed(1), z3.unsat),
        (turn0 == 0, turn1 == 0, z3.sat),  # end_turn (MTG 514.3) breaks it
        (cl0 == 0, cl1 == 0, z3.sat),
        (z3.And(turn0 == 0, cl0 == 0), z3.And(turn1 == 0, cl1 == 0), z3.sat),
    ]
    for before, after, want in cases:
        whole = z3.Solver()
        whole.add(before, enc.transition(0), z3.Not(after))
        assert whole.check() == want
        answer, why = invariants.step_closed(enc, before, after, Deadline(60))
        assert answer == want and why == ""
    for a in model.actions:  # cl == 0 is broken by the last instance alone
        alone = z3.Solver()
        alone.add(cl0 == 0, enc.step_formula(0, a.index), enc.well_formed(1), cl1 != 0)
        assert alone.check() == (z3.sat if a is last else z3.unsat)


def test_seeds_are_kept_for_other_processes_and_a_damaged_file_is_sampled_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The sampled states that seed the fixed point are kept in the invariant cache: another
    process (here: this one with its memo emptied) reads the same columns back instead of
    exploring the models again; a file that is not whole, or not of the model's width, is
    passed over and the states are sampled again."""
    model = Model(BENCH, SMALL)
    monkeypatch.setattr(invariants, "_COLUMNS", {})
    first = invariants.columns(model, (), ("turns",))
    assert len(first) == len(model.schema.leaves()) and len(first[0]) > 100
    stored = sorted(tmp_path.glob("seeds-*.npz"))
    assert len(stored) == 1

    sampled: list[Model] = []
    real = invariants.sample_columns

    def counting(m: Model, *args: object, **kwargs: object) -> list[bytes]:
        sampled.append(m)
        return real(m, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(invariants, "sample_columns", counting)
    monkeypatch.setattr(invariants, "_COLUMNS", {})
    assert invariants.columns(model, (), ("turns",)) == first and not sampled
    for damage in (b"not a numpy file", None):
        if damage is None:  # whole, but one column short
            import numpy as np

            with open(stored[0], "wb") as f:
                table = np.frombuffer(b"".join(first[1:]), dtype=np.uint8)
                np.savez_compressed(f, columns=table.reshape(len(first) - 1, -1))
        else:
            stored[0].write_bytes(damage)
        monkeypatch.setattr(invariants, "_COLUMNS", {})
        assert invariants.columns(model, (), ("turns",)) == first and sampled
        sampled.clear()


def test_a_process_waits_for_the_one_that_holds_an_entry_and_no_longer_than_its_budget(
    tmp_path: Path,
) -> None:
    """While another holds the lock of an invariant (or of seeds), a process waits: past its
    budget, the inference stops with that reason, and sampling seeds goes ahead unlocked."""
    import filelock

    held = filelock.FileLock(str(tmp_path / "k.lock"))
    held.acquire()
    try:
        with invariants._cache_lock("k", 0.05) as taken:
            assert not taken
        with pytest.raises(invariants.Stopped, match="waiting for another process"):
            with invariants._inferring("k", Deadline(0.05)):
                pass
    finally:
        held.release()
    with invariants._cache_lock("k", 0.05) as taken:
        assert taken


def test_the_solver_parameters_the_fixed_point_sets_are_known_to_z3() -> None:
    """``Solver.set`` takes an unknown name without a word: a parameter renamed by a later Z3
    would silently stop applying (``compact``: reading a model there cost 4 times as much)."""
    import z3

    descrs = z3.Solver().param_descrs()
    names = {descrs.get_name(i) for i in range(descrs.size())}
    assert {"compact", "relevancy"} <= names  # smt.relevancy is the smt module's relevancy
