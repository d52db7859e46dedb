"""SymbolicOps computes what ConcreteOps computes, operation by operation.

Each case runs an operation twice: on concrete values with ConcreteOps, and on Z3 variables
with SymbolicOps; the Z3 result, evaluated under an assignment of the variables to the same
concrete values, must be the concrete result (leaf by leaf for structured values).
"""

from __future__ import annotations

from typing import Any, NamedTuple

import pytest
import z3
from hypothesis import given, settings
from hypothesis import strategies as st
from turnproof.checks.symbolic import SymbolicOps, const_value
from turnproof.model.ops import ConcreteOps
from turnproof.model.schema import Seq


class Item(NamedTuple):
    ctrl: Any
    live: Any


def evaluate(term: Any, zm: Any) -> Any:
    """A symbolic result (possibly structured) under the Z3 model ``zm``, as Python values."""
    if isinstance(term, tuple):
        return tuple(evaluate(t, zm) for t in term)
    if isinstance(term, z3.ExprRef):
        v = zm.eval(term, model_completion=True)
        return const_value(v)
    return term


def flat(v: Any) -> Any:
    """Python values with booleans as 0/1, as the explicit engine compares them."""
    if isinstance(v, tuple):
        return tuple(flat(u) for u in v)
    return int(v)


CAP = 3
items = st.builds(Item, st.integers(0, 2), st.booleans())


@st.composite
def seqs(draw: Any) -> Seq:
    live = draw(st.lists(items, max_size=CAP))
    return Seq(len(live), tuple(live) + (Item(0, False),) * (CAP - len(live)))


def symbolic_seq(name: str) -> tuple[Seq, list[Any]]:
    length = z3.Int(f"{name}.len")
    slots = tuple(
        Item(z3.Int(f"{name}[{i}].ctrl"), z3.Bool(f"{name}[{i}].live")) for i in range(CAP)
    )
    return Seq(length, slots), [length] + [v for s in slots for v in s]


def assignment(vars_: list[Any], values: list[Any]) -> Any:
    s = z3.Solver()
    for v, c in zip(vars_, values):
        s.add(v == (z3.BoolVal(bool(c)) if z3.is_bool(v) else z3.IntVal(int(c))))
    assert s.check() == z3.sat
    return s.model()


def seq_values(seq: Seq) -> list[Any]:
    return [seq.length] + [v for s in seq.slots for v in s]


SEQ_OPS = {
    "is_empty": lambda x, q, i, it: x.seq_is_empty(q),
    "is_full": lambda x, q, i, it: x.seq_is_full(q),
    "top": lambda x, q, i, it: x.seq_top(q),
    "get": lambda x, q, i, it: x.seq_get(q, i),
    "push": lambda x, q, i, it: x.seq_push(q, it),
    "pop": lambda x, q, i, it: x.seq_pop(q),
    "remove": lambda x, q, i, it: x.seq_remove(q, i),
    "clear": lambda x, q, i, it: x.seq_clear(q),
    "filter": lambda x, q, i, it: x.seq_filter(q, lambda e: x.Or(e.live, e.ctrl == i)),
    "any": lambda x, q, i, it: x.seq_any(q, lambda e: e.ctrl == i),
    "all": lambda x, q, i, it: x.seq_all(q, lambda e: e.live),
    "count": lambda x, q, i, it: x.seq_count(q, lambda e: x.Not(e.live)),
    "when-push": lambda x, q, i, it: x.when(i == 1, lambda r: x.seq_push(r, it), q),
    "cases": lambda x, q, i, it: x.cases(
        i, {0: lambda: x.seq_pop(q), 2: lambda: x.seq_push(q, it)}, lambda: q
    ),
}


@pytest.mark.parametrize("op", sorted(SEQ_OPS))
@settings(max_examples=60, deadline=None)
@given(seq=seqs(), index=st.integers(-1, CAP), item=items)
def test_sequence_operation_agrees_with_concrete(op: str, seq: Seq, index: int, item: Item) -> None:
    fn = SEQ_OPS[op]
    expected = fn(ConcreteOps(), seq, index, item)
    sym, vars_ = symbolic_seq("q")
    i, ctrl, live = z3.Int("i"), z3.Int("it.ctrl"), z3.Bool("it.live")
    got = fn(SymbolicOps(), sym, i, Item(ctrl, live))
    zm = assignment(vars_ + [i, ctrl, live], seq_values(seq) + [index, item.ctrl, item.live])
    assert flat(evaluate(got, zm)) == flat(expected)


@pytest.mark.parametrize("op", sorted(SEQ_OPS))
def test_sequence_operation_with_concrete_arguments_stays_concrete(op: str) -> None:
    seq = Seq(2, (Item(1, True), Item(2, False), Item(0, False)))
    x = SymbolicOps()
    got = SEQ_OPS[op](x, seq, 1, Item(2, True))
    assert flat(got) == flat(SEQ_OPS[op](ConcreteOps(), seq, 1, Item(2, True)))
    assert not x.guards


@settings(max_examples=80, deadline=None)
@given(
    arr=st.tuples(st.integers(0, 3), st.integers(0, 3), st.integers(0, 3)),
    index=st.integers(0, 2),
    value=st.integers(0, 3),
    a=st.integers(-2, 4),
    b=st.integers(-2, 4),
    c=st.booleans(),
)
def test_scalar_and_array_operations_agree(
    arr: tuple[int, ...], index: int, value: int, a: int, b: int, c: bool
) -> None:
    def run(x: Any, arr: Any, index: Any, value: Any, a: Any, b: Any, c: Any) -> Any:
        return (
            x.get(arr, index),
            x.set(arr, index, value),
            x.Min(a, b),
            x.Max(a, b),
            x.Sum(a, b, 1),
            x.count([c, a == b, a < b]),
            x.If(c, (a, b), (b, a)),
            x.Eq((a, c), (b, True)),
            x.Implies(c, a <= b),
            x.Not(x.And(c, x.Or(a == 0, b == 0))),
        )

    expected = run(ConcreteOps(), arr, index, value, a, b, c)
    zarr = tuple(z3.Int(f"arr[{k}]") for k in range(3))
    zi, zv, za, zb, zc = z3.Ints("i v a b") + [z3.Bool("c")]
    got = run(SymbolicOps(), zarr, zi, zv, za, zb, zc)
    zm = assignment(list(zarr) + [zi, zv, za, zb, zc], list(arr) + [index, value, a, b, c])
    assert flat(evaluate(got, zm)) == flat(expected)


def test_guards_are_collected_with_their_bound_and_path_condition() -> None:
    x = SymbolicOps()
    a, b = z3.Ints("a b")
    x.require(a > 0)
    x.within(b < 3, "cap")
    x.when(a == 1, lambda v: (x.require(b == 0), v)[1], 5)
    x.cases(a, {3: lambda: x.require(b == 2)}, lambda: None)
    assert [g.bound for g in x.guards] == [None, "cap", None, None]
    s = z3.Solver()
    s.add(a == 2, b == 1, z3.Not(z3.And(x.guards[2].cond, x.guards[3].cond)))
    assert s.check() == z3.unsat  # guards inside `when` and `cases` bind only on their branch
    assert not x.dead
    x.require(False)
    assert x.dead
