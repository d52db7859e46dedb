"""The explicit engine on small models with known answers."""

from __future__ import annotations

from typing import Any

from turnproof.checks.explicit import Limits, check_properties, explore
from turnproof.checks.results import Verdict
from turnproof.model.bench import BENCH, CONFIGS
from turnproof.model.properties import always, no_deadlock, reachable, terminates
from turnproof.model.rules import BoundSpec, Kind, Model, RuleSet, rule
from turnproof.model.schema import IntRange, Schema, State


class Counter(State):
    n: Any
    who: Any


def _who(s: Counter, x: Any, b: Any) -> Any:
    return s.who


@rule("T 1", "count up", kind=Kind.GAME)
def up(s: Counter, x: Any, b: Any) -> Counter:
    x.require(s.n < b.top)
    return s.replace(n=s.n + 1)


@rule("T 2", "player 1 may reset from the top", kind=Kind.CHOICE, decider=_who)
def reset(s: Counter, x: Any, b: Any) -> Counter:
    x.require(s.n == b.top)
    return s.replace(n=0, who=1)


@rule("T 3", "player 1 may stop at the top", kind=Kind.CHOICE, decider=_who)
def stop(s: Counter, x: Any, b: Any) -> Counter:
    x.require(s.n == b.top)
    return s.replace(who=2)


def counter_rules(*rules: Any) -> RuleSet:
    return RuleSet(
        name="counter",
        game="T",
        version="1",
        description="a counter",
        rules=rules,
        bound_specs=(BoundSpec("top", 3, 1, 9, "the top"),),
        schema=lambda b: Schema(Counter, {"n": IntRange(0, b.top), "who": IntRange(0, 2)}),
        initial=lambda b: [Counter.make(n=0, who=0)],
        terminal=lambda s, x, b: s.who == 2,
        properties=(
            terminates("loop-ends", "the counter does not cycle", lambda s, x, b, m: s.n >= 0),
            always("below-top", "n stays below the top", lambda s, x, b, m: s.n < b.top),
            reachable("top", "the top is reached", lambda s, x, b, m: s.n == b.top),
            no_deadlock(),
        ),
    )


def test_counts_and_shortest_trace():
    rs = counter_rules(up, reset, stop)
    m = Model(rs)
    ex = explore(m)
    assert (ex.states, ex.transitions, ex.complete) == (9, 10, True)
    res = {r.name: r for r in check_properties(m, rs.properties)}
    assert res["below-top"].verdict is Verdict.VIOLATED
    assert [s.rule for s in res["below-top"].trace.steps] == ["T 1", "T 1", "T 1"]
    assert res["below-top"].trace.steps[0].changed == {"n": [0, 1]}
    assert res["top"].verdict is Verdict.WITNESSED
    assert res["no-deadlock"].verdict is Verdict.EXHAUSTIVE


def test_lasso_names_who_could_break_the_loop():
    rs = counter_rules(up, reset, stop)
    (r,) = check_properties(Model(rs), [rs.property("loop-ends")])
    assert r.verdict is Verdict.VIOLATED
    t = r.trace
    # stem: up to the top and the first reset (by player 0); the loop then runs with who=1
    assert t.loop_start == 4
    assert [s.rule for s in t.steps] == ["T 1", "T 1", "T 1", "T 2"] * 2
    assert t.steps[3].decider == 0 and t.steps[7].decider == 1
    # at the top of the loop, player 1 could stop instead of resetting
    assert [(e.at, e.decider, e.rule) for e in t.exits] == [(3, 1, "T 3")]


def test_a_forced_loop_has_no_exit():
    rs = counter_rules(up, reset)
    (r,) = check_properties(Model(rs), [rs.property("loop-ends")])
    assert r.verdict is Verdict.VIOLATED
    assert r.trace.exits == ()


def test_deadlock_is_found():
    rs = counter_rules(up)  # nothing happens at the top, and it is not terminal
    (r,) = check_properties(Model(rs), [rs.property("no-deadlock")])
    assert r.verdict is Verdict.VIOLATED
    assert len(r.trace.steps) == 3


def test_state_limit_gives_unknown_never_a_pass():
    m = Model(BENCH, CONFIGS["base"][0])
    res = check_properties(m, BENCH.properties, Limits(max_states=500))
    assert all(r.verdict is Verdict.UNKNOWN for r in res)
    assert all("state limit of 500" in r.reason for r in res)
    assert not any(r.meets_expectation for r in res)


def test_bench_base_matches_the_reference_count():
    cfg, states, _ = CONFIGS["base"]
    ex = explore(Model(BENCH, cfg))
    assert ex.states == states == 5_017
    assert ex.transitions == 9_132  # SPIN prints 9,133: it counts storing the initial state


def test_progress_is_reported_and_exploration_is_deterministic():
    calls: list[tuple[int, int, int]] = []
    m = Model(BENCH, CONFIGS["base"][0])
    a = explore(m, progress=lambda *c: calls.append(c))
    b = explore(m)
    assert calls and calls[-1] == (a.states, a.states, a.transitions)
    assert a.nodes == b.nodes and list(a.src) == list(b.src) and list(a.act) == list(b.act)


def test_the_collector_resumes_after_an_exploration_and_still_collects_its_cycles() -> None:
    """What the paused block leaves alive goes to the oldest generation unexamined
    (``gc.freeze`` then ``gc.unfreeze``): nothing stays frozen, and a cycle made in the block
    is collected once it is garbage."""
    import gc
    import weakref

    from turnproof.checks.explicit import collector_paused

    class Node:
        pass

    assert gc.isenabled()
    with collector_paused():
        assert not gc.isenabled()
        a, b = Node(), Node()
        a.other, b.other = b, a  # type: ignore[attr-defined]
        gone = weakref.ref(a)
        ex = explore(Model(BENCH, CONFIGS["base"][0]), compact=False)
    assert gc.isenabled() and gc.get_freeze_count() == 0
    assert ex.states == CONFIGS["base"][1]
    del a, b
    assert gone() is not None  # a cycle: reference counting alone does not free it
    gc.collect()
    assert gone() is None
