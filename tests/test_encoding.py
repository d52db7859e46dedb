"""The compact state codes (``checks/encoding.py``) and the explicit engine on them: every
reachable state of the built-in rule sets round-trips through its code, and the compact
exploration gives the very ids, edges, parents, cuts and traces of the tuple-keyed one, with
monitors, at state limits and on out-of-domain rules alike."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from turnproof.checks.encoding import Codec, CodeTable
from turnproof.checks.explicit import (
    EncodedNodes,
    Limits,
    check_properties,
    codec_for,
    explore,
    trace_to,
)
from turnproof.model.bench import BENCH, CONFIGS
from turnproof.model.errors import ModelError
from turnproof.model.magic import MAGIC
from turnproof.model.riftbound import RIFTBOUND
from turnproof.model.rules import BoundSpec, Model, RuleSet, rule
from turnproof.model.schema import IntRange, Schema, SeqDomain, State
from turnproof.scenarios import loader

RULESETS = {"magic": MAGIC, "riftbound": RIFTBOUND, "bench": BENCH}
SMALL = {"magic": {"turns": 1}, "riftbound": {"turns": 1}, "bench": {"turns": 1}}


def assert_same(model: Model, monitors: tuple[Any, ...] = (), **kw: Any) -> tuple[Any, Any]:
    a = explore(model, monitors, compact=False, **kw)
    b = explore(model, monitors, compact=True, **kw)
    assert isinstance(b.nodes, EncodedNodes) and not isinstance(a.nodes, EncodedNodes)
    assert b.states == a.states
    assert list(b.nodes) == list(a.nodes) and b.nodes == a.nodes
    assert (b.src, b.dst, b.act, b.parent) == (a.src, a.dst, a.act, a.parent)
    assert (b.bound_cuts, b.cut_nodes) == (a.bound_cuts, a.cut_nodes)
    assert (b.n_initial, b.expanded, b.complete, b.stop_reason) == (
        a.n_initial,
        a.expanded,
        a.complete,
        a.stop_reason,
    )
    return a, b


@pytest.mark.parametrize("name", sorted(RULESETS))
def test_every_reachable_state_round_trips_through_its_code(name: str) -> None:
    model = Model(RULESETS[name], SMALL[name])
    ex = explore(model, compact=False)
    codec = codec_for(model)
    codes = np.array([codec.encode(s) for s in ex.nodes], dtype=np.uint64)
    assert len({c.tobytes() for c in codes}) == ex.states  # distinct states, distinct codes
    back = codec.decode_many(codes)
    assert back == list(ex.nodes)
    assert [type(s) for s in back] == [type(s) for s in ex.nodes]
    for i in range(0, ex.states, 97):
        assert codec.decode(codes[i].tolist()) == ex.nodes[i]
        assert model.schema.describe_value(back[i]) == model.schema.describe_value(ex.nodes[i])


@pytest.mark.parametrize("name", sorted(RULESETS))
def test_compact_exploration_gives_the_same_ids_and_edges(name: str) -> None:
    a, b = assert_same(Model(RULESETS[name], SMALL[name]))
    assert a.states > 1000
    last = b.states - 1
    assert trace_to(b, last) == trace_to(a, last)


def test_compact_exploration_of_the_bench_base_config() -> None:
    a, b = assert_same(Model(BENCH, CONFIGS["base"][0]))
    assert (b.states, b.transitions) == (5_017, 9_132)


@pytest.mark.parametrize("cap", [1, 2, 100, 4096, 4097, 5000])
def test_state_limits_stop_both_paths_at_the_same_edge(cap: int) -> None:
    a, b = assert_same(Model(BENCH, CONFIGS["base"][0]), limits=Limits(max_states=cap))
    assert b.states == cap and not b.complete


def test_product_nodes_keep_their_monitor_values() -> None:
    model = Model(MAGIC, {"turns": 1})
    monitors = tuple({m.name: m for p in model.ruleset.properties for m in p.monitors}.values())
    assert monitors
    a, b = assert_same(model, monitors)
    for i in range(0, b.states, 53):
        assert b.state(i) == a.state(i) and b.monitor_values(i) == a.monitor_values(i)
        assert type(b.monitor_values(i)) is type(a.monitor_values(i))


def test_verdicts_and_traces_are_the_same_on_both_paths(monkeypatch: pytest.MonkeyPatch) -> None:
    model = Model(BENCH, CONFIGS["base"][0])
    props = list(model.ruleset.properties)
    import turnproof.checks.explicit as explicit

    plain = explicit.explore
    monkeypatch.setattr(explicit, "explore", lambda *a, **k: plain(*a, **k, compact=True))
    compact = check_properties(model, props)
    monkeypatch.setattr(explicit, "explore", lambda *a, **k: plain(*a, **k, compact=False))
    tuples = check_properties(model, props)
    assert [(r.name, r.verdict, r.trace) for r in compact] == [
        (r.name, r.verdict, r.trace) for r in tuples
    ]
    assert any(r.trace is not None for r in compact)


def test_by_default_a_model_past_the_threshold_is_explored_again_compactly(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import turnproof.checks.explicit as explicit

    model = Model(BENCH, CONFIGS["base"][0])  # 5,017 states
    tuples = explore(model, compact=False)
    assert not isinstance(explore(model).nodes, EncodedNodes)  # under the threshold: tuples
    monkeypatch.setattr(explicit, "AUTO_COMPACT_STATES", 1_000)
    auto = explore(model)
    assert isinstance(auto.nodes, EncodedNodes) and auto.complete
    assert list(auto.nodes) == list(tuples.nodes)
    assert (auto.src, auto.dst, auto.act, auto.parent) == (
        tuples.src,
        tuples.dst,
        tuples.act,
        tuples.parent,
    )
    # A state limit under the threshold stops the tuple search, as it would have stopped anyway.
    small = explore(model, limits=explicit.Limits(max_states=500))
    assert not isinstance(small.nodes, EncodedNodes) and small.states == 500
    # One over it stops the compact search at the same place as the tuple search.
    over = explore(model, limits=explicit.Limits(max_states=2_000))
    plain = explore(model, compact=False, limits=explicit.Limits(max_states=2_000))
    assert isinstance(over.nodes, EncodedNodes)
    assert (over.states, over.stop_reason) == (plain.states, plain.stop_reason)


def test_a_shipped_scenario_explores_alike() -> None:
    built = loader.load_shipped(loader.shipped()[0].name).build()  # type: ignore[union-attr]
    assert_same(built.model, limits=Limits(max_states=20_000))


class _Tally(State):
    n: Any
    seen: Any


def _tally(step: int, item_hi: int = 4) -> RuleSet:
    """A counter with a domain of 0..4 whose rule adds ``step`` (no x.within), and a stack of
    the values it passed, whose items range over 0..``item_hi``."""
    stack = SeqDomain(IntRange(0, item_hi), 2)

    @rule("T 1", "count")
    def count(s: Any, x: Any, b: Any) -> Any:
        x.require(x.And(s.n > -2, s.n < 4))
        seen = x.seq_push(x.seq_clear(s.seen), x.If(s.n < 0, 0, s.n))
        return s.replace(n=s.n + step, seen=seen)

    return RuleSet(
        name="tally",
        game="T",
        version="1",
        description="a tally",
        rules=(count,),
        bound_specs=(BoundSpec("top", 4, 4, 4, "the top"),),
        schema=lambda b: Schema(_Tally, {"n": IntRange(0, 4), "seen": stack}),
        initial=lambda b: [_Tally.make(n=2, seen=stack.default())],
        terminal=lambda s, x, b: s.n == 4,
    )


def test_a_lone_field_that_leaves_its_domain_is_named_alike_on_both_paths() -> None:
    """A state of one scalar field (the symbolic cross-check's counter): its code is that
    field's look-up alone."""
    from test_symbolic_crosscheck import _tally as counter

    with pytest.raises(ModelError) as plain:
        explore(Model(counter(3)), compact=False)
    with pytest.raises(ModelError) as compact:
        explore(Model(counter(3)))
    assert str(compact.value) == str(plain.value)
    assert "gives n=6" in str(compact.value)


@pytest.mark.parametrize("step", [3, -2, -1])
def test_a_rule_that_leaves_its_domain_is_named_alike_on_both_paths(step: int) -> None:
    """Above the range (an index past the table), and below it (a negative index, which must
    not wrap around to a valid value)."""
    model = Model(_tally(step))
    with pytest.raises(ModelError) as plain:
        explore(model, compact=False)
    with pytest.raises(ModelError) as compact:
        explore(model)
    assert str(compact.value) == str(plain.value)
    assert "gives n=" in str(compact.value)


def test_a_rule_within_its_domain_explores_alike() -> None:
    a, b = assert_same(Model(_tally(1)))
    assert b.states == 3 and b.complete


def test_codes_pack_whole_fields_into_64_bit_words() -> None:
    small = codec_for(Model(BENCH, CONFIGS["XL"][0]))
    assert small.words == 1
    wide = codec_for(Model(MAGIC, {}))
    assert wide.words > 1
    for codec in (small, wide):
        for w in range(codec.words):
            size = 1
            for k, r in enumerate(codec.radix):
                if codec.word_of[k] == w:
                    size *= r
            assert size <= 2**64


def test_the_code_table_gives_ids_in_order_and_finds_them_after_growing() -> None:
    rng = np.random.default_rng(7)
    keys = np.unique(rng.integers(0, 2**63, size=(20_000, 2), dtype=np.uint64), axis=0)
    keys = keys[rng.permutation(len(keys))]
    table = CodeTable(2, capacity=16)
    for lo in range(0, len(keys), 3000):
        block = keys[lo : lo + 3000]
        assert (table.lookup(block) == -1).all()
        table.add(block)
    assert len(table) == len(keys)
    assert (table.lookup(keys) == np.arange(len(keys))).all()
    other = keys.copy()
    other[:, 1] ^= np.uint64(1)
    assert (table.lookup(other[:500]) == -1).all()


def test_a_codec_for_a_product_numbers_the_monitors_last() -> None:
    model = Model(MAGIC, {"turns": 1})
    mons = tuple({m.name: m for p in model.ruleset.properties for m in p.monitors}.values())
    plain, product = Codec(model.schema), codec_for(model, mons)
    assert product.width == plain.width + len(mons)
