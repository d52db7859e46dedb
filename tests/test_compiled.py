"""The compiled path of the explicit engine (``checks/compiled.py``) against the interpreted one,
its oracle: in every reachable state (at small bounds) of every built-in rule set and every
shipped scenario, both give the same successors, of the same types, fired by the same rule
instances, in the same order, with the same cuts; and explorations agree state for state."""

from __future__ import annotations

from array import array
from collections import Counter
from typing import Any

import pytest
from tiers import tier
from turnproof.checks import explicit
from turnproof.checks.compiled import NotTraceable, Sym, _filtered, compile_model, fused_search
from turnproof.checks.explicit import (
    Limits,
    TypedNodes,
    _explore,
    compiled_for,
    dispatch_table,
    explore,
    interpreted_expand,
)
from turnproof.model.bench import BENCH
from turnproof.model.magic import MAGIC, compose_magic
from turnproof.model.magic import cards as magic_cards
from turnproof.model.riftbound import RIFTBOUND, compose_riftbound
from turnproof.model.riftbound import cards as rb_cards
from turnproof.model.rules import Model
from turnproof.scenarios import loader

RULESETS = {"magic": MAGIC, "riftbound": RIFTBOUND, "bench": BENCH}
SMALL = {"magic": {"turns": 1}, "riftbound": {"turns": 1}, "bench": {"turns": 1}}
SHIPPED = [s.name for s in loader.shipped()]
FAST_SCENARIOS = SHIPPED[:3]


def assert_same_successors(model: Model, max_states: int | None = None) -> int:
    """Compare both paths in every state the interpreted exploration reaches; the number of
    states compared."""
    field_index, table = dispatch_table(model)
    oracle = interpreted_expand(model, table)
    fast = compiled_for(model).expand
    ex = explore(model, compiled=False, limits=Limits(max_states=max_states))
    for i in range(ex.states):
        s = ex.state(i)
        want = oracle[s[field_index]](s)
        got = fast[s[field_index]](s)
        assert [(a, repr(t)) for a, t in got] == [(a, repr(t)) for a, t in want], (
            f"state {i} of {model.ruleset.name}: {model.schema.describe_value(s)}"
        )
        assert [type(t) for _, t in got] == [type(t) for _, t in want]
    return ex.states


def _same(a: Any, b: Any) -> None:
    assert a.nodes == b.nodes
    # Of the same classes, nested values included (the fused search builds plain tuples and
    # gives them their classes back): a repr names every class.
    assert [repr(n) for n in a.nodes] == [repr(n) for n in b.nodes]
    assert (a.src, a.dst, a.act, a.parent) == (b.src, b.dst, b.act, b.parent)
    assert a.bound_cuts == b.bound_cuts and a.cut_nodes == b.cut_nodes
    assert (a.expanded, a.complete, a.stop_reason) == (b.expanded, b.complete, b.stop_reason)


def assert_same_exploration(model: Model, monitors: tuple[Any, ...] = (), **kw: Any) -> None:
    """The interpreted path, the compiled one (its loop fused with the successor functions),
    and the compiled functions under the plain loop: the same exploration."""
    a = explore(model, monitors, compiled=False, compact=False, **kw)
    b = explore(model, monitors, compiled=True, compact=False, **kw)
    c = _explore(model, monitors, kw.get("limits"), None, True, fused=False)
    assert b.path == "compiled" and a.path == "interpreted"
    _same(a, b)
    _same(a, c)


@pytest.mark.parametrize("name", sorted(RULESETS))
def test_both_paths_give_the_same_successors_on_each_built_in_rule_set(name: str) -> None:
    model = Model(RULESETS[name], SMALL[name])
    assert assert_same_successors(model) > 100
    assert_same_exploration(model)


@pytest.mark.parametrize("name", FAST_SCENARIOS)
def test_both_paths_agree_on_some_shipped_scenarios(name: str) -> None:
    built = loader.load_shipped(name).build()  # type: ignore[union-attr]
    assert_same_successors(built.model, max_states=20_000)


LIBRARIES = {
    "magic": (magic_cards.LIBRARY, compose_magic),
    "riftbound": (rb_cards.LIBRARY, compose_riftbound),
}
LIBRARY_CARDS = [(game, card) for game, (lib, _) in LIBRARIES.items() for card in sorted(lib)]


@pytest.mark.parametrize(("game", "card"), LIBRARY_CARDS)
def test_both_paths_agree_on_every_library_card_alone(game: str, card: str) -> None:
    """A card alone gives the rules shapes no built-in rule set has (a branch whose every line
    is dropped as unread, once left an empty ``if`` block that did not compile)."""
    compose = LIBRARIES[game][1]
    model = Model(compose([(card, 0)]), {"turns": 1})
    assert assert_same_successors(model, max_states=3_000) > 1


@pytest.mark.parametrize("name", tier(SHIPPED))
def test_both_paths_agree_on_every_shipped_scenario(name: str) -> None:
    built = loader.load_shipped(name).build()  # type: ignore[union-attr]
    assert_same_successors(built.model, max_states=200_000)
    assert_same_exploration(built.model)


#: Each built-in rule set's mutants that need no other cards (composed with other cards, the
#: scenarios cover them): the slow tier compares every fourth of each rule set, the deep tier
#: every one.
MUTANTS = [
    (name, m.name) for name in sorted(RULESETS) for m in RULESETS[name].mutants if not m.cards
]


@pytest.mark.parametrize(
    ("name", "mutant"),
    [
        pytest.param(name, mutant, marks=pytest.mark.slow if k % 4 == 0 else pytest.mark.deep)
        for name in sorted(RULESETS)
        for k, mutant in enumerate(m for n, m in MUTANTS if n == name)
    ],
)
def test_both_paths_agree_on_each_mutant(name: str, mutant: str) -> None:
    rs = RULESETS[name]
    m = rs.mutant(mutant)
    model = Model(rs.amend(*m.amendments), {**SMALL[name], **m.bounds})
    assert_same_successors(model, max_states=50_000)


def _monitors(rs: Any) -> tuple[Any, ...]:
    found = {m.name: m for p in rs.properties for m in p.monitors}
    return tuple(found[n] for n in sorted(found))


@pytest.mark.parametrize("name", ["magic", "riftbound"])
def test_the_fused_loop_explores_the_product_with_the_monitors_alike(name: str) -> None:
    rs = RULESETS[name]
    monitors = _monitors(rs)
    assert monitors
    assert_same_exploration(Model(rs, SMALL[name]), monitors)


@pytest.mark.parametrize("cap", [1, 2, 7, 100, 1_000])
def test_the_fused_loop_stops_at_a_state_limit_where_the_plain_loop_does(cap: int) -> None:
    """A limit reached inside a node: its edges up to the successor that would have been one
    state too many are recorded, and that node is not counted as expanded."""
    model = Model(MAGIC, SMALL["magic"])
    assert_same_exploration(model, limits=Limits(max_states=cap))
    ex = explore(model, compact=False, limits=Limits(max_states=cap))
    assert ex.states == cap and not ex.complete and ex.stop_reason.startswith("state limit")
    assert_same_exploration(model, _monitors(MAGIC), limits=Limits(max_states=cap))


def _errors_on_every_path(model: Model) -> list[str]:
    """The error of the fused loop, the interpreted path and the plain compiled loop."""
    from turnproof.model.errors import ModelError

    errors = []
    for run in (
        lambda: explore(model, compact=False),
        lambda: explore(model, compact=False, compiled=False),
        lambda: _explore(model, (), None, None, True, fused=False),
    ):
        with pytest.raises(ModelError) as err:
            run()
        errors.append(str(err.value))
    return errors


def test_the_fused_loop_names_a_rule_that_leaves_its_domain_as_the_plain_loop_does() -> None:
    from test_encoding import _tally

    errors = _errors_on_every_path(Model(_tally(3)))
    assert errors[0] == errors[1] == errors[2] and "gives n=" in errors[0]


def test_an_item_that_leaves_a_set_tested_domain_is_named_alike_on_every_path() -> None:
    """The stack's domain is small enough to be tested by membership in the set of its values
    (``compiled.SET_TEST_MAX``): an item past its range is caught there as it is slot by
    slot, and a stack whose items stay in range is explored alike."""
    from test_encoding import _tally
    from turnproof.checks.compiled import domain_size

    model = Model(_tally(1, item_hi=2))  # the counter goes 2, 3, 4: it pushes 3 onto 0..2
    assert domain_size(model.schema.domains["seen"]) == 1 + 3 + 9
    errors = _errors_on_every_path(model)
    assert errors[0] == errors[1] == errors[2] and "seen" in errors[0]
    fine = explore(Model(_tally(1, item_hi=3)), compact=False)
    assert fine.states == 3 and fine.complete
    assert_same_exploration(Model(_tally(1, item_hi=3)))


def _slot_test(dom: Any, value: Any) -> bool:
    from turnproof.model.schema import _collect_empty, _fits

    conds: list[str] = []
    names: dict[str, Any] = {}
    _fits(dom, "v", conds)
    _collect_empty(dom, names)
    return bool(eval(" and ".join(conds) or "True", {**names, "v": value}))


def _near_misses(dom: Any, value: Any) -> list[Any]:
    """Values one slip away from ``value``: each integer one past either end of its range, a
    sequence one longer (inside, when its next slot holds a value), a dead slot that is not
    the empty one."""
    from turnproof.model.schema import ArrayDomain, Leaf, RecordDomain, Seq, SeqDomain

    if isinstance(dom, Leaf):
        return [dom.lo - 1, dom.hi + 1]
    if isinstance(dom, RecordDomain):
        kids = list(dom.fields.values())
    elif isinstance(dom, ArrayDomain):
        kids = [dom.elem] * dom.size
    else:
        assert isinstance(dom, SeqDomain)
        n, slots = value
        out = [Seq(n + 1, slots)]
        out += [Seq(n, slots[:k] + (v,) + slots[k + 1 :]) for k in range(n, len(slots))
                for v in _near_misses(dom.elem, dom.empty_slot)]  # fmt: skip
        out += [Seq(n, slots[:k] + (v,) + slots[k + 1 :]) for k in range(n)
                for v in _near_misses(dom.elem, slots[k])]  # fmt: skip
        return out
    out = []
    for k, kid in enumerate(kids):
        for v in _near_misses(kid, value[k]):
            bent = value[:k] + (v,) + value[k + 1 :]
            out.append(type(value)(*bent) if hasattr(value, "_fields") else bent)
    return out


def test_the_set_test_of_a_domain_agrees_with_the_slot_by_slot_test() -> None:
    """Every value of each domain passes both tests, and both give the same answer on values
    one slip away from it (most of which are outside)."""
    from typing import NamedTuple

    from turnproof.checks.compiled import _fits_source, domain_size, domain_values
    from turnproof.model.schema import ArrayDomain, IntRange, RecordDomain, SeqDomain

    class Pair(NamedTuple):
        a: Any
        b: Any

    pair = RecordDomain(Pair, {"a": IntRange(0, 2), "b": IntRange(0, 1)})
    domains = [
        SeqDomain(IntRange(0, 1), 3),
        SeqDomain(pair, 2),
        ArrayDomain(IntRange(0, 3), 2),
        ArrayDomain(pair, 2),
        pair,
    ]
    for dom in domains:
        cond, names = _fits_source([(dom, "v")])
        assert " in _V" in cond
        values = list(domain_values(dom))
        outside = 0
        assert len(values) == len(set(values)) == domain_size(dom)
        for value in values:
            assert eval(cond, {**names, "v": value}) and _slot_test(dom, value)
            for miss in _near_misses(dom, value):
                inside = eval(cond, {**names, "v": miss})
                assert inside == _slot_test(dom, miss), (dom, miss)
                outside += not inside
        assert outside > len(values), dom


def test_the_compiler_says_which_instances_fall_back() -> None:
    model = Model(BENCH, {"turns": 1})
    field_index, table = dispatch_table(model)
    a = model.actions[0]

    def branchy(s: Any, x: Any, b: Any) -> Any:
        if s.step == 0:  # a Python condition on a state value: not traceable
            return s
        return s.replace(step=1)

    patched = {k: [(a.index, a.rule, branchy)] + acts[1:] for k, acts in table.items()}
    comp = compile_model(model, patched, field_index)
    assert comp.fell_back == 1 and "Python condition" in comp.fallbacks[a.index]
    # ... and the fallback runs the interpreted rule
    s = model.initial_states()[0]
    assert comp.expand[s[field_index]](s)[0] == (a.index, s)
    # ... in the fused loop too: node 0 expanded there makes the same edges
    nodes, index = [s], {s: 0}
    src, dst, act, parent = (array("i") for _ in range(4))
    cuts: Counter[str] = Counter()
    run = fused_search(comp, False)(nodes, index, src, dst, act, parent, cuts, set(), 10, None)
    assert run(0, 1) == 1
    want = comp.expand[s[field_index]](s)
    assert [(ai, nodes[j]) for ai, j in zip(act, dst)] == [p for p in want if p[0] >= 0]
    assert list(src) == [0] * len(want) and dst[0] == 0  # the fallback's successor is s


def test_plain_successors_are_typed_where_an_interpreted_rule_reads_them() -> None:
    """On a model whose generated code reads structured values by position (the bench), the
    fused search makes plain tuples; an instance left interpreted still gets its state typed
    (it reads fields by name), and the nodes are read typed: the interpreted path's
    exploration, classes included."""
    model = Model(BENCH, {"turns": 1})
    field_index, table = dispatch_table(model)
    comp0 = compile_model(model, table, field_index)
    assert comp0.by_position and comp0.plain(False) and not comp0.plain(True)
    a = next(a for a in model.actions if a.rule.name == "resolve")
    _, rule, fn = next(e for e in table[next(iter(table))] if e[0] == a.index)

    def by_name(s: Any, x: Any, b: Any) -> Any:
        if s.stk.length >= 0:  # a Python condition on a state value: not traceable
            return fn(s, x, b)
        raise AssertionError("unreachable")

    patched = {
        k: [(ai, r, by_name if ai == a.index else f) for ai, r, f in acts]
        for k, acts in table.items()
    }
    comp = compile_model(model, patched, field_index)
    assert a.index in comp.fallbacks and comp.plain(False)
    explicit._COMPILED[model] = comp
    try:
        got = explore(model, compact=False)
    finally:
        del explicit._COMPILED[model]
    assert isinstance(got.nodes, TypedNodes) and got.states > 100
    assert got.act.count(a.index) > 0  # the interpreted instance fired on plain nodes
    _same(explore(model, compiled=False, compact=False), got)
    # Read in any way, the nodes have the schema's types.
    raw = got.nodes.raw  # type: ignore[attr-defined]
    assert any(type(s) is tuple for s in raw)
    assert [repr(s) for s in got.iter_nodes(3)] == [repr(s) for s in got.nodes[3:]]
    assert type(got.state(7)) is type(raw[0]) and got.nodes == raw


def test_no_built_in_rule_instance_falls_back() -> None:
    for name, rs in RULESETS.items():
        comp = compiled_for(Model(rs, SMALL[name]))
        assert comp.fallbacks == {}, name
        # ... and the code reads structured values by position only (Magic's filtered
        # sequences included): the fused loop builds plain tuples for every built-in rule set.
        assert comp.by_position, name
        if name == "magic":
            assert any(v is _filtered for v in comp.namespace.values())


def test_a_symbolic_value_refuses_python_control_flow() -> None:
    model = Model(BENCH, {"turns": 1})
    comp = compiled_for(model)
    assert comp.source.startswith("def expand")
    with pytest.raises(NotTraceable):
        bool(Sym.__new__(Sym))
