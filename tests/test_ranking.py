"""Termination under the region's invariant: a lexicographic linear ranking over features
(leaves, value indicators, pairs of control values), synthesised by linear programming from
reached transitions and Z3 counterexamples, checked by Z3 on every region state the invariant
allows. It proves that Magic's cleanup ends for every value of the open bounds, and it finds no
ranking for loops that do not end (the bench's cleanup, a card that keeps creating triggers)."""

from __future__ import annotations

from fractions import Fraction

import pytest
from turnproof.checks import ranking
from turnproof.checks.bmc import Deadline
from turnproof.checks.proofs import check_property
from turnproof.checks.results import Verdict
from turnproof.checks.symbolic import Encoding
from turnproof.model.bench import BENCH
from turnproof.model.magic import DEFAULT_CARDS, MAGIC, compose_magic, kinds
from turnproof.model.rules import Model

SMALL = {"turns": 1, "cap": 2, "budget": 1, "cmax": 1}


def test_integral_keeps_the_function_up_to_a_positive_factor() -> None:
    assert ranking.integral([Fraction(1, 2), Fraction(-3, 4), Fraction(0)]) == [2, -3, 0]
    assert ranking.integral([Fraction(6), Fraction(4)]) == [3, 2]


def test_features_pin_the_region_context_and_pair_seen_values() -> None:
    model = Model(MAGIC)
    enc = Encoding(model)
    leaves = [p for p, _ in model.schema.leaves()]
    row = [0] * len(leaves)
    row[leaves.index("step")] = 11  # CLEANUP
    row[leaves.index("stage")] = 4  # RESOLVING
    row[leaves.index("res.what")] = int(kinds(MAGIC).T_RIELLE)
    names = [f.name for f in ranking.features(enc, [row], [("step", 11)])]
    assert "[step == CLEANUP]" not in names and "[step == UNTAP]" not in names  # a constant
    assert "[stage == RESOLVING]" in names and "passes" in names and "cl_prio" in names
    assert "[stage == RESOLVING and res.what == T_RIELLE]" in names
    assert not any(n.startswith("[stage == BEGIN and") for n in names)  # never seen
    feats = ranking.features(enc, [row], [("step", 11)])
    pair = next(f for f in feats if f.name == "[stage == RESOLVING and res.what == T_RIELLE]")
    assert pair.value(row) == 1
    row[leaves.index("res.what")] = 0
    assert pair.value(row) == 0


def test_a_loop_that_does_not_end_has_no_ranking() -> None:
    """The bench's cleanup can repeat for ever (a resolving ability triggers again): there is
    no ranking, and the reason names the rule instances whose transitions cancel out."""
    model = Model(BENCH, SMALL)
    prop = BENCH.property("cleanup-terminates")
    got = ranking.prove(Encoding(model, prop.monitors), prop, Deadline(60))
    assert isinstance(got, str)
    assert "cancel out" in got and "resolve(trig=1)" in got


@pytest.mark.deep  # 3 minutes on 2 cores: the deep tier's (the default check proves it too)
def test_magic_cleanup_terminates_for_every_bound_and_not_for_its_mutant() -> None:
    """Issue 3's example: cleanup terminates for any hand size and any number of 'until end
    of turn' effects (and of turns, actions, damage, mana and loyalty). The plain search over
    the leaves finds no ranking; the search under the region's invariant does, and its
    certificate decreases on every rule instance that can fire in a cleanup step. With
    a card whose trigger comes on every discard, the same search finds none."""
    prop = MAGIC.property("cleanup-terminates")
    r = check_property(Model(MAGIC), prop, timeout_s=600, max_depth=40)
    assert r.verdict is Verdict.PROVED, r.reason
    assert set(r.for_all) == set(prop.for_all)
    cert = r.certificate
    assert cert is not None and cert["method"] == "ranking function under the region's invariant"
    assert "cl_prio" in cert["fields"] and cert["claims"] == len(cert["invariant"])
    assert any(c.startswith("step == CLEANUP: ") for c in cert["invariant"])
    decreased = {d for comp in cert["components"] for d in comp["decreases"]}
    for rule in ("MTG 514.1 cleanup_discard", "MTG 500.2 pass_end_step", "MTG 704.3 sba"):
        assert rule in decreased
    assert all(comp["function"] != "0" for comp in cert["components"])

    endless = compose_magic([*DEFAULT_CARDS, ("endless-rielle", 0)])
    broken = Model(endless)
    got = ranking.prove(Encoding(broken, prop.monitors), prop, Deadline(600))
    assert isinstance(got, str) and "cancel out" in got


def _known_diffs_hold(
    coeffs: list[Fraction], strict: list[int], diffs: dict[int, set[tuple[int, ...]]]
) -> bool:
    for a, ds in diffs.items():
        for d in ds:
            drop = sum((c * x for c, x in zip(coeffs, d)), Fraction(0))
            if drop < (1 if a in strict else 0):
                return False
    return True


def test_the_linear_program_agrees_with_z3s_exact_optimiser() -> None:
    """HiGHS proposes the same strictly decreased instances as Z3's optimiser, and its
    fractions meet every known difference exactly (a decrease of at least 1 where strict)."""
    import random

    rng = random.Random(7)
    compared = 0
    for _ in range(40):
        n = rng.randint(2, 6)
        remaining = list(range(rng.randint(1, 5)))
        diffs = {
            a: {tuple(rng.randint(-2, 2) for _ in range(n)) for _ in range(rng.randint(0, 4))}
            for a in remaining
        }
        exact = ranking._z3_lp(n, remaining, diffs, Deadline(30))
        floating = ranking._highs_lp(n, remaining, diffs, Deadline(30))
        assert not isinstance(exact, str)
        if floating is None:  # rounding failed: _lp takes Z3's answer, nothing to compare
            continue
        compared += 1
        assert sorted(floating[1]) == sorted(exact[1])
        assert _known_diffs_hold(floating[0], floating[1], diffs)
        assert _known_diffs_hold(exact[0], exact[1], diffs)
    assert compared >= 35


def test_an_inconsistent_program_strictly_decreases_nothing() -> None:
    """Two instances whose known differences cancel out: no coefficients decrease either."""
    diffs = {0: {(1, -1)}, 1: {(-1, 1)}}
    coeffs, strict = ranking._lp(2, [0, 1], diffs, Deadline(30))  # type: ignore[misc]
    assert strict == []
    assert _known_diffs_hold(coeffs, strict, diffs)


def test_the_plain_search_runs_only_when_the_reached_transitions_leave_it_a_chance() -> None:
    """The plain search over the leaves is skipped only when the reached region transitions
    have no lexicographic ranking over the leaves: on the bench's untap step they have one
    (the plain search proves it with ``-turn``), on its endless cleanup they cancel out, and
    the plain search finds nothing there either."""
    from turnproof.checks.proofs import Ranker
    from turnproof.model.properties import terminates

    model = Model(BENCH, SMALL)
    untap = terminates(
        "untap-terminates",
        "no cycle among untap and cleanup-without-priority states",
        lambda s, x, b, m: x.Or(s.step == 0, s.step == 11),
    )
    enc = Encoding(model, untap.monitors)
    sampled = ranking.reached(enc, untap)
    assert sampled[1]  # the untap step's transitions were reached
    assert ranking.no_ranking_over_leaves(enc, untap, sampled, Deadline(20)) == ""

    cleanup = BENCH.property("cleanup-terminates")
    enc = Encoding(model, cleanup.monitors)
    why = ranking.no_ranking_over_leaves(enc, cleanup, ranking.reached(enc, cleanup), Deadline(20))
    assert "over the leaves" in why and "cancel out" in why and "resolve(trig=1)" in why
    assert cleanup.pred is not None
    plain = Ranker(enc, cleanup.pred, Deadline(20))
    assert plain.synthesise() is None and not plain.unknown


def test_a_counterexample_does_not_depend_on_what_the_process_made_before() -> None:
    """The counterexamples that refine a ranking candidate, and so the ranking a report shows,
    come from solvers in a Z3 context of their own: the same after the process has made other
    terms (a worker process checks other properties first). In the main context, two cold runs
    of the default check gave end-the-turn-terminates two different rankings."""
    import z3

    model = Model(MAGIC)
    prop = MAGIC.property("end-the-turn-terminates")
    assert prop.pred is not None
    enc = Encoding(model, prop.monitors)
    region0, region1 = enc.state_pred(prop.pred, 0), enc.state_pred(prop.pred, 1)
    base = z3.And(region0, region1, enc.well_formed(0), enc.well_formed(1))
    rows, _ = ranking.reached(enc, prop)
    feats = ranking.features(enc, rows, [])
    zero = [Fraction(0)] * len(feats)

    def counterexamples() -> list[object]:
        checker = ranking._Checker(enc, base, feats)
        return [checker.refute(a.index, zero, True, Deadline(60)) for a in model.actions]

    first = counterexamples()
    assert sum(isinstance(d, tuple) for d in first) >= 4  # several instances fire in the region
    _make_other_terms()
    assert counterexamples() == first


def test_the_plain_searchs_counterexample_does_not_depend_on_what_was_made_before() -> None:
    """The same for the plain search over the leaves (``proofs.Ranker``)."""
    from turnproof.checks.proofs import Ranker

    model = Model(MAGIC)
    prop = MAGIC.property("end-the-turn-terminates")
    assert prop.pred is not None
    enc = Encoding(model, prop.monitors)
    actions = [a.index for a in model.actions]

    def counterexamples() -> list[object]:
        plain = Ranker(enc, prop.pred, Deadline(60))
        zero = [0] * len(plain.x0)
        found = []
        for a in actions:
            got = plain._refute(zero, [a], {a})
            found.append(None if got is None else tuple(got[1]))
        return found

    first = counterexamples()
    assert sum(d is not None for d in first) >= 4
    _make_other_terms()
    assert counterexamples() == first


def _make_other_terms() -> None:
    """Terms made in the main Z3 context, as a worker process makes them for the properties it
    checks before another: another model's transitions, and unrelated constants."""
    import z3

    assert Encoding(Model(BENCH, SMALL)).transition(0) is not None
    assert [z3.Int(f"other{i}") - z3.Int(f"other{i + 1}") > i for i in range(2000)]


def test_the_differences_of_the_reached_moves_are_each_features_values_before_minus_after() -> None:
    """``differences`` computes the features over every move at once; its sets are those of
    :meth:`Feature.value` on each move's two rows, with Python integers."""
    model = Model(MAGIC, {"turns": 1})
    prop = MAGIC.property("cleanup-terminates")
    enc = Encoding(model, prop.monitors)
    rows, moves = ranking.reached(enc, prop)
    region = enc.state_pred(prop.pred, 0)
    feats = ranking.features(enc, rows, ranking.region_contexts(enc, region, Deadline(60)))
    assert len(moves) > 100 and any(len(f.parts) == 2 for f in feats)
    want: dict[int, set[tuple[int, ...]]] = {}
    for a, r, t in moves:
        want.setdefault(a, set()).add(tuple(f.value(r) - f.value(t) for f in feats))
    got = ranking.differences(feats, moves)
    assert got == want
    assert all(type(x) is int for diffs in got.values() for d in diffs for x in d)
    assert ranking.differences(feats, []) == {}


def test_the_margins_of_a_candidate_are_exact_in_whole_numbers_or_large_ones() -> None:
    """The least ``c.d`` of each instance's known differences, read off HiGHS's answer: in
    64-bit integers over the common denominator, or in Python's when a sum could overflow
    them; either way what the fractions give (1 for an instance with no difference known)."""
    from turnproof.checks.ranking import _margins

    three = {0: {(1, -2, 0), (0, 3, -1)}, 1: {(-1, 0, 5)}, 2: set()}
    # Denominators whose common multiple overflows 64 bits: the large-number path.
    large = [Fraction(1, 9_973), Fraction(-1, 9_967), Fraction(1, 9_949 * 9_941 * 9_931 * 9_929)]
    cases = [
        ([Fraction(1, 3), Fraction(-2, 7), Fraction(5)], three),
        (large, three),
        ([], {0: {()}, 1: set()}),
    ]
    for coeffs, diffs in cases:
        exact = {
            a: min(
                (sum((c * x for c, x in zip(coeffs, d)), Fraction(0)) for d in ds),
                default=Fraction(1),
            )
            for a, ds in diffs.items()
        }
        assert _margins(coeffs, list(diffs), diffs) == exact
