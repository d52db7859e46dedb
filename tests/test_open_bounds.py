"""Bounds left open: the symbolic engine proves a property for every value of a bound at once
(issue 3, item 7), finds a violation at a value beyond the one the explicit engine checks, and
refuses a bound the rules need as a number, naming those it can leave open."""

from __future__ import annotations

import json

import pytest
import z3
from click.testing import CliRunner
from turnproof.checks.crosscheck import crosscheck
from turnproof.checks.proofs import check_property
from turnproof.checks.results import Verdict
from turnproof.checks.runner import run_check
from turnproof.checks.symbolic import Encoding, OpenBoundError, openable_bounds
from turnproof.model.bench import BENCH
from turnproof.model.errors import UnknownNameError
from turnproof.model.properties import Expect, always, reachable
from turnproof.model.rules import Model
from turnproof.scenarios.cli import cli

SMALL = {"turns": 1, "cap": 2, "budget": 1, "cmax": 1}

#: True at bench's turns = 1 (the turn counter stops at turns), false from turns = 2.
FIRST_TURN_ONLY = always(
    "first-turn-only",
    "the turn counter never passes 1",
    lambda s, x, b, m: s.turn <= 1,
    expect=Expect.HOLDS,
)


def test_proof_for_every_value_of_an_open_bound() -> None:
    model = Model(BENCH, SMALL)
    prop = BENCH.property("no-deadlock")
    r = check_property(model, prop, timeout_s=60, max_depth=10, open_bounds=("turns", "budget"))
    assert r.verdict is Verdict.PROVED
    assert r.for_all == {"turns": ">= 1", "budget": ">= 0"}
    assert "every turns >= 1 and every budget >= 0" in r.holds_for
    assert "turns=1" not in r.holds_for and "cap=2" in r.holds_for
    # No well-formed state is a deadlock, whatever the bounds: the domains prove it alone.
    assert r.certificate["method"].startswith("inductive invariant: the fields' domains")
    # A claim true only of reachable states needs an invariant, which relates the state to the
    # open bound by name.
    last_turn = always(
        "stack-empty-in-the-last-turn",
        "in the last turn the stack is empty",
        lambda s, x, b, m: x.Implies(s.turn == b.turns, x.seq_is_empty(s.stk)),
    )
    r = check_property(model, last_turn, timeout_s=60, max_depth=10, open_bounds=("turns",))
    assert r.verdict is Verdict.PROVED and r.for_all == {"turns": ">= 1"}
    assert r.certificate["method"] == "chc-spacer"
    assert "bound.turns" in r.certificate["invariant"]


def test_open_bound_finds_a_violation_beyond_the_checked_value() -> None:
    """The explicit engine checks turns = 1 (EXHAUSTIVE); the symbolic engine, with turns open,
    finds the violation at turns = 2. The runner does not call another instance a disagreement:
    both rows stay, and the property fails on the symbolic trace. (One search for both claims:
    it takes 20 to 45 s, most of it Spacer's.)"""
    model = Model(BENCH, SMALL)
    closed = check_property(model, FIRST_TURN_ONLY, timeout_s=60, max_depth=10)
    assert closed.verdict is Verdict.PROVED  # at turns = 1 the claim holds
    report = run_check(model, [FIRST_TURN_ONLY], ("explicit", "symbolic"), open_bounds=("turns",))
    kinds = [(r.engine, r.verdict) for r in report.results]
    assert kinds == [("explicit", Verdict.EXHAUSTIVE), ("symbolic", Verdict.VIOLATED)]
    assert report.exit_code == 1
    opened = report.results[1]
    assert opened.trace is not None and opened.trace.bounds == {"turns": 2}
    assert opened.trace.final is not None and opened.trace.final["turn"] == 2
    assert opened.for_all == {}  # a violation holds for the values in its trace, not for all


@pytest.mark.slow
def test_reachability_witness_names_its_bound_values() -> None:
    model = Model(BENCH, SMALL)
    prop = reachable("second-turn", "the second turn begins", lambda s, x, b, m: s.turn == 2)
    r = check_property(model, prop, timeout_s=120, max_depth=10, open_bounds=("turns",))
    assert r.verdict is Verdict.WITNESSED, r.reason
    assert r.trace is not None and r.trace.bounds == {"turns": 2}


def test_a_property_can_declare_its_own_open_bounds() -> None:
    prop = always(
        "turn-within-turns",
        "the turn counter never passes the number of turns, whatever it is",
        lambda s, x, b, m: s.turn <= b.turns,
        for_all=("turns",),
    )
    r = check_property(Model(BENCH, SMALL), prop, timeout_s=60, max_depth=10)
    assert r.verdict is Verdict.PROVED and r.for_all == {"turns": ">= 1"}


def test_open_encoding_at_the_model_values_is_the_same_relation() -> None:
    """The cross-check, with the open bounds set to the model's values: same successors in every
    state the explicit engine reaches, same counts per depth."""
    report = crosscheck(Model(BENCH, SMALL), depth=4, open_bounds=("turns", "budget", "cmax"))
    assert report.agree, report.disagreements[:3]
    assert report.states_checked == 302


def test_bounds_the_rules_need_as_numbers_are_refused() -> None:
    model = Model(BENCH, SMALL)
    assert openable_bounds(model) == ["turns", "budget", "cmax"]
    with pytest.raises(
        OpenBoundError,
        match=r"cap cannot be left open: its value is needed as a number by the schema;"
        r" .*turns, budget, cmax",
    ):
        Encoding(model, (), ("turns", "cap"))
    with pytest.raises(UnknownNameError, match="nope"):
        Encoding(model, (), ("nope",))


@pytest.mark.parametrize("game", ["magic", "riftbound"])
def test_game_open_bounds(game: str) -> None:
    from turnproof.model.registry import get_ruleset

    rs = get_ruleset(game)
    model = Model(rs)
    opened = set(openable_bounds(model))
    # every bound a property quantifies over can be left open
    assert {n for p in rs.properties for n in p.for_all} <= opened
    assert "turns" in opened and "actions" in opened
    with pytest.raises(OpenBoundError, match="rule instances"):
        Encoding(model, (), ("waiting",))  # stack_trigger(i) has one instance per slot
    with pytest.raises(OpenBoundError, match="initial states"):
        Encoding(model, (), ("hand0",))


@pytest.mark.slow
def test_cli_for_all(tmp_path: object) -> None:
    runner = CliRunner()
    ok = runner.invoke(
        cli,
        [
            "check",
            "bench",
            "--property",
            "no-deadlock",
            "--engine",
            "symbolic",
            "--for-all",
            "turns",
            "--format",
            "json",
        ],
    )
    assert ok.exit_code == 0, ok.output
    data = json.loads(ok.output)
    (row,) = data["properties"]
    assert row["verdict"] == "PROVED" and row["for_all"] == {"turns": ">= 1"}
    bad = runner.invoke(cli, ["check", "bench", "--for-all", "cap", "--engine", "symbolic"])
    assert bad.exit_code == 2
    assert "cap cannot be left open" in bad.output and "turns, budget, cmax" in bad.output
    explicit_only = runner.invoke(
        cli, ["check", "bench", "--for-all", "turns", "--engine", "explicit"]
    )
    assert explicit_only.exit_code == 2 and "only the symbolic engine" in explicit_only.output


def test_open_bound_variable_is_frozen_along_a_path() -> None:
    enc = Encoding(Model(BENCH, SMALL), (), ("turns",))
    s = z3.Solver()
    s.add(enc.init(0), enc.transition(0), enc.var("bound.turns", 1) != enc.var("bound.turns", 0))
    assert s.check() == z3.unsat


def test_consistency_with_open_bounds() -> None:
    """The consistency checks leave bounds open too: the deadlock check is proved for every
    number of turns, and bench's known clash of automatic rules comes with its bound values."""
    runner = CliRunner()
    out = runner.invoke(
        cli,
        ["consistency", "bench", "--engine", "symbolic", "--for-all", "turns", "--format", "json"],
    )
    assert out.exit_code == 1, out.output
    data = json.loads(out.output)
    (finding,) = data["findings"]
    assert finding["check"] == "exclusive-automatic" and finding["status"] == "violated"
    assert finding["trace"]["bounds"] == {"turns": 3}
    text_out = runner.invoke(
        cli, ["consistency", "bench", "--engine", "symbolic", "--for-all", "turns"]
    )
    assert "with turns=3 (bounds the symbolic engine left open)" in text_out.output
    refused = runner.invoke(
        cli, ["consistency", "bench", "--engine", "explicit", "--for-all", "turns"]
    )
    assert refused.exit_code == 2 and "only the symbolic engine" in refused.output


@pytest.mark.parametrize("game", ["magic", "riftbound", "bench"])
def test_formulas_renamed_from_step_zero_are_those_built_for_the_step(game: str) -> None:
    """Well-formedness, each rule instance's step formula, the bounds' cuts and leaving the
    domains are built for step 0 and renamed for the others: the very terms that building them
    for that step gives, open bounds and monitors included."""
    from turnproof.checks.runner import select
    from turnproof.model.registry import builtin_rulesets

    sel = select(builtin_rulesets()[game])
    watched = next((p.monitors for p in sel.properties if p.monitors), ())
    for monitors in ((), watched):
        for opened in ((), tuple(openable_bounds(sel.model))):
            enc = Encoding(sel.model, monitors, opened)
            for k in (1, 3):
                assert enc.well_formed(k).eq(enc.built_well_formed(k))
                assert enc.leaves_domain(k).eq(enc.built_leaves_domain(k))
                for bound in enc.bound_names():
                    assert enc.cut(k, bound).eq(enc.built_cut(k, bound))
                for i in range(len(sel.model.actions)):
                    assert enc.step_formula(k, i).eq(enc.built_step_formula(k, i))
                    assert enc.step_formula(k, i, alone=True).eq(
                        enc.built_step_formula(k, i, alone=True)
                    )
