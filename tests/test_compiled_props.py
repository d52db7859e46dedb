"""The explicit engine's compiled property checks (``checks/compiled_props.py``) against the
interpreted searches, their oracle: on every built-in rule set and every shipped scenario, the
first state that satisfies (or fails) each predicate and the first edge on which each step
claim fails are the same, on the plain exploration and on the product with the monitors; and
no built-in predicate falls back to the interpreted path."""

from __future__ import annotations

from typing import Any

import pytest
from tiers import tier
from turnproof.checks.compiled_props import compile_step_checks
from turnproof.checks.explicit import Exploration, Searches, explore
from turnproof.model.bench import BENCH
from turnproof.model.magic import MAGIC
from turnproof.model.properties import Property, always, step
from turnproof.model.riftbound import RIFTBOUND
from turnproof.model.rules import Model
from turnproof.scenarios import loader

RULESETS = {"magic": MAGIC, "riftbound": RIFTBOUND, "bench": BENCH}
SMALL = {"magic": {"turns": 1}, "riftbound": {"turns": 1}, "bench": {"turns": 1}}
SHIPPED = [s.name for s in loader.shipped()]


def groups(model: Model, props: list[Property]) -> list[tuple[Exploration, list[Property]]]:
    """The explorations ``check_properties`` makes: plain, and the product with every monitor."""
    with_monitors = [p for p in props if p.monitors]
    monitors = {m.name: m for p in with_monitors for m in p.monitors}
    out = [(explore(model), [p for p in props if not p.monitors])]
    if with_monitors:
        out.append((explore(model, tuple(monitors[n] for n in sorted(monitors))), with_monitors))
    return out


def assert_same_answers(model: Model, props: list[Property]) -> int:
    """Both ways of searching give the same answers; how many answers were compared."""
    compared = 0
    for ex, group in groups(model, props):
        fast, oracle = Searches.compiled(ex, group), Searches(ex)
        assert fast.fallbacks == []
        for p in group:
            asked: list[Any] = []
            if p.kind == "step":
                asked.append((fast.failing_edge(p.pred), oracle.failing_edge(p.pred)))
            elif p.kind in ("always", "reachable"):
                negate = p.kind == "always"
                asked.append((fast.state(p.pred, negate), oracle.state(p.pred, negate)))
            elif p.kind == "terminates":
                asked.append((fast.region(p.pred), oracle.region(p.pred)))
                assert asked[-1][0], f"{p.name}: an empty region compares nothing"
            if p.antecedent is not None:
                asked.append((fast.state(p.antecedent), oracle.state(p.antecedent)))
            for got, want in asked:
                assert got == want, f"{p.name} on {model.ruleset.name}"
                compared += 1
    return compared


@pytest.mark.parametrize("name", sorted(RULESETS))
def test_compiled_and_interpreted_searches_agree_on_each_built_in_rule_set(name: str) -> None:
    rs = RULESETS[name]
    asked = sum(p.kind in ("step", "always", "reachable", "terminates") for p in rs.properties)
    asked += sum(p.antecedent is not None for p in rs.properties)
    assert assert_same_answers(Model(rs, SMALL[name]), list(rs.properties)) == asked


@pytest.mark.parametrize("name", tier(SHIPPED))
def test_compiled_and_interpreted_searches_agree_on_every_shipped_scenario(name: str) -> None:
    built = loader.load_shipped(name).build()  # type: ignore[union-attr]
    assert assert_same_answers(built.model, list(built.properties)) > 0


@pytest.mark.parametrize(
    "mutant",
    [
        "end-turn-restarts",
        pytest.param("bottom-resolves", marks=pytest.mark.slow),
        pytest.param("no-second-cleanup", marks=pytest.mark.slow),
        pytest.param("napap-order", marks=pytest.mark.slow),
    ],
)
def test_compiled_searches_find_the_same_violations_on_mutants(mutant: str) -> None:
    """Where a property fails, the compiled pass finds the same first failure as the oracle
    (the traces, built from it, are then the same)."""
    m = MAGIC.mutant(mutant)
    model = Model(MAGIC.amend(*m.amendments), {**SMALL["magic"], **m.bounds})
    assert assert_same_answers(model, list(MAGIC.properties)) > 0


def _looks_at_the_rule(s: Any, t: Any, r: Any, x: Any, b: Any, m: Any) -> Any:
    return x.Implies(r.name == "pass_first", t.turn == s.turn)


def _python_if(s: Any, x: Any, b: Any, m: Any) -> Any:
    if s.turn > 0:  # a Python condition on a state value: the tracer cannot follow it
        return True
    return s.turn == 0


def _python_if_step(s: Any, t: Any, r: Any, x: Any, b: Any, m: Any) -> Any:
    if t.stk.length > s.stk.length:  # by name, in a Python condition: left interpreted
        return r.name != "activate"  # fails on the first activation
    return True


def test_a_claim_about_one_rule_costs_nothing_on_the_others_and_python_ifs_fall_back() -> None:
    model = Model(BENCH, SMALL["bench"])
    claim = step("one-rule", "only pass_first is constrained", _looks_at_the_rule)
    fns, notes = compile_step_checks(model, [claim.pred], None)
    rules = [a.rule.name for a in model.actions]
    assert [fn is not None for fn in fns] == [n == "pass_first" for n in rules]
    assert notes == []
    odd = always("python-if", "a predicate with a Python if", _python_if)
    (ex, _), *_ = groups(model, [odd])
    fast = Searches.compiled(ex, [odd])
    assert fast.fallbacks and "a Python condition on a state value" in fast.fallbacks[0]
    assert fast.state(odd.pred, negate=True) == Searches(ex).state(odd.pred, negate=True)
    # The bench's search makes plain tuples (its nodes are typed when read): a predicate left
    # interpreted is given typed states, on the states and on the edges.
    assert type(ex.nodes).__name__ == "TypedNodes"
    odd_step = step("python-if-step", "a step claim with a Python if", _python_if_step)
    fast = Searches.compiled(ex, [odd_step])
    assert fast.fallbacks and "a Python condition on a state value" in fast.fallbacks[0]
    found = fast.failing_edge(odd_step.pred)
    assert found is not None and found == Searches(ex).failing_edge(odd_step.pred)


def assert_same_product(model: Model, props: list[Property]) -> int:
    """The product with every monitor, explored with the monitors' updates compiled and
    interpreted: the same nodes (monitor values of the same types), edges and order."""
    from turnproof.checks.compiled_props import compile_monitor_updates
    from turnproof.model.properties import monitor_class

    monitors = {m.name: m for p in props for m in p.monitors}
    mons = tuple(monitors[n] for n in sorted(monitors))
    if not mons:
        return 0
    _, fallbacks = compile_monitor_updates(model, mons, monitor_class(tuple(sorted(monitors))))
    assert fallbacks == []
    fast = explore(model, mons, compiled=True)
    oracle = explore(model, mons, compiled=False)
    assert [repr(n) for n in fast.iter_nodes()] == [repr(n) for n in oracle.iter_nodes()]
    assert (fast.src, fast.dst, fast.act) == (oracle.src, oracle.dst, oracle.act)
    return fast.states


@pytest.mark.parametrize("name", sorted(RULESETS))
def test_compiled_monitor_updates_explore_the_same_product(name: str) -> None:
    rs = RULESETS[name]
    states = assert_same_product(Model(rs, SMALL[name]), list(rs.properties))
    assert states > 0 or not any(p.monitors for p in rs.properties)


@pytest.mark.parametrize("name", tier(SHIPPED))
def test_compiled_monitor_updates_agree_on_every_shipped_scenario(name: str) -> None:
    built = loader.load_shipped(name).build()  # type: ignore[union-attr]
    assert_same_product(built.model, list(built.properties))
