"""The expression language of scenario properties (model/expr.py): every construct on concrete
states, the same predicates on symbolic states (equivalent Z3 formulas), the past-time operators
as monitors in both engines, the errors, and a fuzz test: any text either compiles to a predicate
that evaluates, or raises ExpressionError."""

from __future__ import annotations

import doctest
import string
from collections.abc import Callable
from dataclasses import dataclass
from enum import IntEnum
from typing import Any, NamedTuple

import pytest
import z3
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from turnproof.checks import explicit, symbolic
from turnproof.checks.results import Verdict
from turnproof.checks.symbolic import Encoding, to_bool
from turnproof.model import expr
from turnproof.model.bench import BENCH, BenchState
from turnproof.model.errors import TurnproofError
from turnproof.model.expr import (
    BOOL,
    INT,
    Compiled,
    Env,
    ExpressionError,
    compile_expr,
    compile_predicate,
)
from turnproof.model.ops import ConcreteOps
from turnproof.model.properties import always, monitor_class
from turnproof.model.rules import BoundSpec, Kind, Model, Rule, RuleSet, rule
from turnproof.model.schema import (
    ArrayDomain,
    BoolDomain,
    EnumDomain,
    IntRange,
    RecordDomain,
    Schema,
    SeqDomain,
    State,
    Term,
)

# -- a small schema with every kind of field ------------------------------------------------------


class Step(IntEnum):
    UNTAP = 0
    MAIN1 = 1
    MAIN2 = 2
    CLEANUP = 3


class Proc(IntEnum):
    NONE = 0
    END_TURN = 1


class Obj(IntEnum):
    NONE = 0
    SHOCK = 1
    PUMP = 2


class Item(NamedTuple):
    what: Any
    ctrl: Any
    flag: Any


class T(State):
    step: Term
    proc: Term
    done: Term
    turn: Term
    prio: Term
    hand: Term
    tapped: Term
    res: Term
    stack: Term


ITEM = RecordDomain(Item, {"what": EnumDomain(Obj), "ctrl": IntRange(0, 1), "flag": BoolDomain()})
STACK = SeqDomain(ITEM, 3)
SCHEMA = Schema(
    T,
    {
        "step": EnumDomain(Step),
        "proc": EnumDomain(Proc),
        "done": BoolDomain(),
        "turn": IntRange(0, 3),
        "prio": IntRange(0, 1),
        "hand": ArrayDomain(IntRange(0, 7), 2),
        "tapped": ArrayDomain(BoolDomain(), 2),
        "res": ITEM,
        "stack": STACK,
    },
)


def state(**changes: Any) -> T:
    base = dict(
        step=Step.UNTAP,
        proc=Proc.NONE,
        done=False,
        turn=0,
        prio=0,
        hand=(0, 0),
        tapped=(False, False),
        res=Item(Obj.NONE, 0, False),
        stack=STACK.make([]),
    )
    base.update(changes)
    return T.make(**base)


STATES = [
    state(),
    state(
        step=Step.MAIN1,
        proc=Proc.END_TURN,
        done=True,
        turn=1,
        prio=1,
        hand=(3, 7),
        tapped=(True, False),
        res=Item(Obj.SHOCK, 1, True),
        stack=STACK.make([Item(Obj.SHOCK, 1, False), Item(Obj.PUMP, 0, True)]),
    ),
    state(
        step=Step.CLEANUP,
        turn=3,
        hand=(7, 2),
        tapped=(True, True),
        res=Item(Obj.PUMP, 0, True),
        stack=STACK.make(
            [Item(Obj.PUMP, 0, True), Item(Obj.SHOCK, 1, True), Item(Obj.SHOCK, 1, True)]
        ),
    ),
    state(
        step=Step.MAIN2, turn=2, prio=1, hand=(1, 1), stack=STACK.make([Item(Obj.NONE, 1, False)])
    ),
]


@rule("MTG 500.1", "the next turn begins", kind=Kind.TURN_BASED)
def tick(s: T, x: Any, b: Any) -> T:
    x.require(s.turn < b.turns)
    return s.replace(turn=s.turn + 1)


TEST_RULES = RuleSet(
    name="expr-test",
    game="MTG",
    version="test",
    description="a schema with every kind of field",
    rules=(tick,),
    bound_specs=(BoundSpec("turns", 3, 1, 3, "turns"),),
    schema=lambda b: SCHEMA,
    initial=lambda b: [STATES[0]],
    terminal=lambda s, x, b: False,
)
MODEL = Model(TEST_RULES)
B = MODEL.bounds
X = ConcreteOps()


def active(s: Any, x: Any, b: Any) -> Any:
    return s.turn % 2


ENV = Env.for_schema(SCHEMA, bounds=("turns",), extra={"active": (INT, active)})


def _hand_at(s: T, i: int) -> int:
    return s.hand[i] if 0 <= i < 2 else 0


def _slot(s: T, i: int) -> Item:
    return s.stack.slots[i] if i < s.stack.length else Item(0, 0, 0)


def _live(s: T) -> tuple[Item, ...]:
    return s.stack.slots[: s.stack.length]


#: Every construct, with what it means in plain Python.
CASES: list[tuple[str, Callable[[T], Any]]] = [
    ("done", lambda s: s.done),
    ("not done", lambda s: not s.done),
    ("done and turn == 1", lambda s: s.done and s.turn == 1),
    ("done or turn > 2 or prio == 1", lambda s: s.done or s.turn > 2 or s.prio == 1),
    ("turn + 1 == 2", lambda s: s.turn + 1 == 2),
    ("turn - prio >= 1", lambda s: s.turn - s.prio >= 1),
    ("2 * turn == 4", lambda s: 2 * s.turn == 4),
    ("turn * 2 - 1 == 1", lambda s: s.turn * 2 - 1 == 1),
    ("-turn < -1", lambda s: -s.turn < -1),
    ("0 <= prio < 1 <= turn", lambda s: 0 <= s.prio < 1 <= s.turn),
    ("step == CLEANUP", lambda s: s.step == Step.CLEANUP),
    ("step != MAIN1", lambda s: s.step != Step.MAIN1),
    ("step < MAIN2", lambda s: s.step < Step.MAIN2),
    ("CLEANUP > step >= MAIN1", lambda s: Step.CLEANUP > s.step >= Step.MAIN1),
    ("proc == NONE", lambda s: s.proc == Proc.NONE),
    ("NONE != proc", lambda s: s.proc != Proc.NONE),
    ("res.what == NONE", lambda s: s.res.what == Obj.NONE),
    ("Obj.NONE == res.what", lambda s: s.res.what == Obj.NONE),
    ("res.what in (SHOCK, PUMP)", lambda s: s.res.what in (Obj.SHOCK, Obj.PUMP)),
    ("res.what in (NONE,)", lambda s: s.res.what == Obj.NONE),
    ("proc not in (END_TURN,)", lambda s: s.proc != Proc.END_TURN),
    ("step in (MAIN1, MAIN2)", lambda s: s.step in (Step.MAIN1, Step.MAIN2)),
    ("turn in (1, 3)", lambda s: s.turn in (1, 3)),
    ("done in (True,)", lambda s: s.done),
    ("proc == (NONE if done else END_TURN)", lambda s: s.proc == (0 if s.done else 1)),
    ("done == (turn > 0)", lambda s: s.done == (s.turn > 0)),
    ("done != tapped[0]", lambda s: s.done != s.tapped[0]),
    ("res.ctrl == 1", lambda s: s.res.ctrl == 1),
    ("res.flag", lambda s: s.res.flag),
    ("hand[0] + hand[1] >= 7", lambda s: s.hand[0] + s.hand[1] >= 7),
    ("hand[prio] == 7", lambda s: s.hand[s.prio] == 7),
    ("hand[1 - prio] < 3", lambda s: s.hand[1 - s.prio] < 3),
    ("hand[turn] == 0", lambda s: _hand_at(s, s.turn) == 0),
    ("hand[turn - 1] == 7", lambda s: _hand_at(s, s.turn - 1) == 7),
    ("tapped[prio]", lambda s: s.tapped[s.prio]),
    ("stack.len == 2", lambda s: s.stack.length == 2),
    ("stack[0].what == SHOCK", lambda s: _slot(s, 0).what == Obj.SHOCK),
    ("stack[2].ctrl == 0", lambda s: _slot(s, 2).ctrl == 0),
    ("stack[prio].flag", lambda s: bool(_slot(s, s.prio).flag)),
    ("stack[turn].what == NONE", lambda s: _slot(s, s.turn).what == 0),
    ("stack[0] == res", lambda s: _slot(s, 0) == s.res),
    ("stack[0] != stack[1]", lambda s: _slot(s, 0) != _slot(s, 1)),
    ("stack == stack and hand == hand", lambda s: True),
    ("any(it.what == SHOCK for it in stack)", lambda s: any(i.what == Obj.SHOCK for i in _live(s))),
    ("all(it.ctrl == 1 for it in stack)", lambda s: all(i.ctrl == 1 for i in _live(s))),
    ("count(it.flag for it in stack) == 1", lambda s: sum(bool(i.flag) for i in _live(s)) == 1),
    ("any(n == 7 for n in hand)", lambda s: 7 in s.hand),
    ("all(n > 0 for n in hand)", lambda s: all(n > 0 for n in s.hand)),
    ("count(t for t in tapped) == 1", lambda s: sum(s.tapped) == 1),
    (
        "any(it.ctrl == 1 for it in stack if it.what == SHOCK)",
        lambda s: any(i.ctrl == 1 for i in _live(s) if i.what == Obj.SHOCK),
    ),
    (
        "all(it.flag for it in stack if it.what == PUMP)",
        lambda s: all(i.flag for i in _live(s) if i.what == Obj.PUMP),
    ),
    (
        "count(it.ctrl == 0 for it in stack if it.flag if it.what != NONE) == 1",
        lambda s: sum(1 for i in _live(s) if i.flag and i.what != Obj.NONE and i.ctrl == 0) == 1,
    ),
    (
        "count(n >= 3 for n in hand) + stack.len > 2",
        lambda s: sum(n >= 3 for n in s.hand) + s.stack.length > 2,
    ),
    (
        "any(any(n == it.ctrl for n in hand) for it in stack)",
        lambda s: any(i.ctrl in s.hand for i in _live(s)),
    ),
    (
        "any(all(it.flag for it in stack) for it in stack)",  # the inner 'it' hides the outer
        lambda s: bool(_live(s)) and all(i.flag for i in _live(s)),
    ),
    ("implies(done, turn > 0)", lambda s: (not s.done) or s.turn > 0),
    ("(turn if done else prio) == 1", lambda s: (s.turn if s.done else s.prio) == 1),
    (
        "(res if done else stack[0]).ctrl == 1",
        lambda s: (s.res if s.done else _slot(s, 0)).ctrl == 1,
    ),
    ("turn < turns", lambda s: s.turn < 3),
    ("active == prio", lambda s: s.turn % 2 == s.prio),
    ("hand[active] > 0", lambda s: s.hand[s.turn % 2] > 0),
    ("True and not False", lambda s: True),
    ("1 + 2 * 3 == 7", lambda s: True),
]


def evaluate(c: Compiled, s: Any, m: Any = None) -> Any:
    return c.fn(s, X, B, m)


@pytest.mark.parametrize("text,meaning", CASES, ids=[t for t, _ in CASES])
def test_every_construct_on_concrete_states(text: str, meaning: Callable[[T], Any]) -> None:
    c = compile_predicate(text, ENV)
    assert c.type == BOOL and c.monitors == ()
    for s in STATES:
        SCHEMA.check(s, X)
        assert bool(evaluate(c, s)) == bool(meaning(s)), (text, s)


def test_types_and_reads_of_expressions() -> None:
    assert compile_expr("turn + count(n > 0 for n in hand)", ENV).type == INT
    assert str(compile_expr("step", ENV).type) == "enum Step"
    assert str(compile_expr("res", ENV).type) == "record Item"
    assert str(compile_expr("hand", ENV).type) == "array of int (size 2)"
    assert str(compile_expr("stack", ENV).type) == "sequence of record Item (capacity 3)"
    assert compile_expr("stack[1]", ENV).type == compile_expr("res", ENV).type
    c = compile_expr("hand[prio] + stack.len", ENV)
    assert [evaluate(c, s) for s in STATES] == [0, 9, 10, 2]
    assert compile_predicate("once(done) and turn > 0", ENV).reads == {"done", "turn"}
    assert compile_expr("turns + active", ENV).reads == frozenset()


def test_leading_and_trailing_blanks_are_allowed() -> None:
    assert evaluate(compile_predicate("  \n done or True \n", ENV), STATES[0])
    with pytest.raises(ExpressionError) as err:
        compile_predicate("   hnad", ENV)
    assert err.value.column == 4


# -- the same predicates on symbolic states -------------------------------------------------------


def test_symbolic_evaluation_gives_equivalent_formulas() -> None:
    enc = Encoding(MODEL)
    sym, ops, b = enc.state(0), enc.ops(), enc.bounds_at(0)
    solver = z3.Solver()
    for text, _ in CASES:
        formula = to_bool(compile_predicate(text, ENV).fn(sym, ops, b, None))
        for s in STATES:
            concrete = bool(evaluate(compile_predicate(text, ENV), s))
            solver.push()
            solver.add(enc.is_state(0, s), formula)
            assert (solver.check() == z3.sat) == concrete, (text, s)
            solver.pop()


def test_an_open_bound_is_read_when_the_predicate_is_evaluated() -> None:
    model = Model(BENCH, {"turns": 2, "cap": 2, "budget": 1, "cmax": 1})
    enc = Encoding(model, (), ("turns",))
    c = compile_predicate("turn < turns", Env.for_model(model))
    formula = to_bool(c.fn(enc.state(0), enc.ops(), enc.bounds_at(0), None))
    s = model.initial_states()[0].replace(turn=2)
    solver = z3.Solver()
    solver.add(enc.is_state(0, s), formula)
    assert solver.check() == z3.sat  # some value of the open bound exceeds 2
    solver.add(enc.params_at(0))  # the model's value, turns == 2
    assert solver.check() == z3.unsat


# -- past-time operators and fired(...) as monitors ---------------------------------------------


@dataclass(frozen=True)
class CardRule(Rule):
    card: str = ""


def _noop(s: Any, x: Any, b: Any) -> Any:
    return s


RULES = [
    Rule("cleanup_trigger", "MTG 514.3a", "a cleanup trigger", _noop, Kind.TRIGGER),
    Rule("end_turn", "MTG 514.3", "the turn ends", _noop, Kind.TURN_BASED),
    Rule("activate", "MTG 117.3c", "activate", _noop, Kind.CHOICE),
    CardRule(
        "sundial", "MTG 724.1a", "end the turn", _noop, Kind.GAME, card="Sundial of the Infinite"
    ),
    Rule("riftbound", "RB 514.3b", "another game", _noop, Kind.STATE_BASED),
]


def run_trace(c: Compiled, trace: list[tuple[Rule | None, Any]]) -> list[bool]:
    """The predicate's value in each state of ``trace`` (the rule that fired into it, the
    state), with its monitors updated exactly as the explicit engine does."""
    mons = c.monitors
    cls = monitor_class(tuple(sorted(m.name for m in mons))) if mons else None
    by_name = {m.name: m for m in mons}

    def tuple_of(values: dict[str, Any]) -> Any:
        return cls(**values) if cls else None

    s = trace[0][1]
    m = tuple_of({n: mon.init(s, X, B) for n, mon in by_name.items()})
    out = [bool(c.fn(s, X, B, m))]
    for r, t in trace[1:]:
        m = tuple_of({n: mon.update(s, t, r, m, X, B) for n, mon in by_name.items()})
        s = t
        out.append(bool(c.fn(s, X, B, m)))
    return out


def steps(*values: Step) -> list[tuple[Rule | None, Any]]:
    return [(None if i == 0 else RULES[2], state(step=v)) for i, v in enumerate(values)]


def test_monitors_on_a_hand_written_sequence() -> None:
    U, M1, M2, C = Step.UNTAP, Step.MAIN1, Step.MAIN2, Step.CLEANUP
    trace = steps(U, C, M1, M2, M1)
    assert run_trace(compile_predicate("once(step == CLEANUP)", ENV), trace) == [0, 1, 1, 1, 1]
    assert run_trace(compile_predicate("previously(step == CLEANUP)", ENV), trace) == [
        0,
        0,
        1,
        0,
        0,
    ]
    assert run_trace(compile_predicate("historically(step != MAIN2)", ENV), trace) == [
        1,
        1,
        1,
        0,
        0,
    ]
    # since(p, q): q at some point, p in every state after it (q's own state does not need p)
    since = compile_predicate("since(step in (MAIN1, MAIN2), step == CLEANUP)", ENV)
    assert run_trace(since, trace) == [0, 1, 1, 1, 1]
    assert run_trace(since, steps(C, M1, U, M1)) == [1, 1, 0, 0]
    # nested: inner monitors are read at their new values, previously at the old ones
    nested = compile_predicate("once(previously(step == CLEANUP))", ENV)
    assert [m.name.split("_")[0] for m in nested.monitors] == ["previously", "once"]
    assert run_trace(nested, trace) == [0, 0, 1, 1, 1]
    prev_once = compile_predicate("previously(once(step == CLEANUP))", ENV)
    assert run_trace(prev_once, trace) == [0, 0, 1, 1, 1]
    deep = compile_predicate(
        "historically(once(step == UNTAP) and not previously(step == MAIN2))", ENV
    )
    assert run_trace(deep, trace) == [1, 1, 1, 1, 0]


def test_fired_matches_citations_kinds_and_cards() -> None:
    s = STATES[0]

    def fired_by(text: str) -> list[str]:
        c = compile_predicate(text, ENV)
        assert run_trace(c, [(None, s)])[0] == text.startswith("not")  # no rule fired yet
        return [r.name for r in RULES if run_trace(c, [(None, s), (r, s)])[1]]

    assert fired_by("fired('MTG 514.3')") == ["cleanup_trigger", "end_turn"]
    assert fired_by("fired('MTG 514.3a')") == ["cleanup_trigger"]
    assert fired_by("fired('514.3')") == ["cleanup_trigger", "end_turn", "riftbound"]
    assert fired_by("fired('mtg 514')") == ["cleanup_trigger", "end_turn"]
    assert fired_by("fired('MTG 51')") == []  # 514 is not a subrule of 51
    assert fired_by("fired(kind='choice')") == ["activate"]
    assert fired_by("fired(card='Sundial of the Infinite')") == ["sundial"]
    assert fired_by("fired('514.3', kind='state-based action')") == ["riftbound"]
    assert fired_by("not fired(kind='choice')") == [
        "cleanup_trigger",
        "end_turn",
        "sundial",
        "riftbound",
    ]


def test_monitor_names_are_identifiers_shared_by_equal_subexpressions() -> None:
    a = compile_predicate("implies(done, once(step == CLEANUP))", ENV)
    b = compile_predicate("once(step==CLEANUP) or turn > 2", ENV)
    c = compile_predicate("once(step == Step.CLEANUP)", ENV)
    d = compile_predicate("once(step == MAIN1)", ENV)
    assert a.monitors[0].name == b.monitors[0].name == c.monitors[0].name
    assert a.monitors[0].name != d.monitors[0].name
    name = a.monitors[0].name
    assert name.isidentifier() and name.startswith("once_") and len(name) == len("once_") + 10
    # an ambiguous member resolved differently is a different subexpression
    e = compile_predicate("once(proc == NONE)", ENV)
    f = compile_predicate("once(res.what == NONE)", ENV)
    assert e.monitors[0].name != f.monitors[0].name
    k1 = compile_predicate("fired(kind='choice', card='x')", ENV)
    k2 = compile_predicate("fired(card='x', kind='choice')", ENV)
    assert k1.monitors[0].name == k2.monitors[0].name
    # a subexpression used twice is one monitor; every monitor once, innermost first
    g = compile_predicate("once(previously(done)) and previously(done) and once(done)", ENV)
    assert [m.name.split("_")[0] for m in g.monitors] == ["previously", "once", "once"]
    assert len({m.name for m in g.monitors}) == 3


def test_a_predicate_without_its_monitor_values_says_so() -> None:
    c = compile_predicate("once(done)", ENV)
    with pytest.raises(
        ExpressionError, match="give the property the compiled expression's monitors"
    ):
        evaluate(c, STATES[0], None)


# A small temporal logic with its meaning over a trace, to check the monitors against.
Oracle = Callable[[list[tuple[Any, Any]], int], bool]
ATOMS: list[tuple[str, Oracle]] = [
    ("step == CLEANUP", lambda tr, n: tr[n][1].step == Step.CLEANUP),
    ("done", lambda tr, n: bool(tr[n][1].done)),
    ("turn > 1", lambda tr, n: tr[n][1].turn > 1),
    (
        "any(it.what == SHOCK for it in stack)",
        lambda tr, n: any(i.what == 1 for i in _live(tr[n][1])),
    ),
    (
        "fired('514.3')",
        lambda tr, n: n > 0 and tr[n][0].citation.endswith(("514.3", "514.3a", "514.3b")),
    ),
    ("fired(kind='choice')", lambda tr, n: n > 0 and tr[n][0].kind is Kind.CHOICE),
]


def _once(f: Oracle) -> Oracle:
    return lambda tr, n: any(f(tr, i) for i in range(n + 1))


def _previously(f: Oracle) -> Oracle:
    return lambda tr, n: n > 0 and f(tr, n - 1)


def _historically(f: Oracle) -> Oracle:
    return lambda tr, n: all(f(tr, i) for i in range(n + 1))


def _since(f: Oracle, g: Oracle) -> Oracle:
    return lambda tr, n: any(
        g(tr, j) and all(f(tr, i) for i in range(j + 1, n + 1)) for j in range(n + 1)
    )


Formula = tuple[str, Oracle]


def _extend(inner: st.SearchStrategy[Formula]) -> st.SearchStrategy[Formula]:
    return st.one_of(
        inner.map(lambda f: (f"once({f[0]})", _once(f[1]))),
        inner.map(lambda f: (f"previously({f[0]})", _previously(f[1]))),
        inner.map(lambda f: (f"historically({f[0]})", _historically(f[1]))),
        st.tuples(inner, inner).map(
            lambda fg: (f"since({fg[0][0]}, {fg[1][0]})", _since(fg[0][1], fg[1][1]))
        ),
        inner.map(lambda f: (f"not {f[0]}", lambda tr, n, g=f[1]: not g(tr, n))),
        st.tuples(inner, inner).map(
            lambda fg: (
                f"({fg[0][0]} and {fg[1][0]})",
                lambda tr, n, a=fg[0][1], b=fg[1][1]: a(tr, n) and b(tr, n),
            )
        ),
    )


FORMULAS = st.recursive(st.sampled_from(ATOMS), _extend, max_leaves=5)


@st.composite
def states(draw: st.DrawFn) -> T:
    items = st.builds(Item, st.sampled_from(list(Obj)), st.integers(0, 1), st.booleans())
    return state(
        step=draw(st.sampled_from(list(Step))),
        proc=draw(st.sampled_from(list(Proc))),
        done=draw(st.booleans()),
        turn=draw(st.integers(0, 3)),
        prio=draw(st.integers(0, 1)),
        hand=tuple(draw(st.lists(st.integers(0, 7), min_size=2, max_size=2))),
        tapped=tuple(draw(st.lists(st.booleans(), min_size=2, max_size=2))),
        res=draw(items),
        stack=STACK.make(draw(st.lists(items, max_size=3))),
    )


TRACES = st.lists(st.tuples(st.sampled_from(RULES), states()), min_size=1, max_size=6).map(
    lambda steps: [(None, steps[0][1]), *steps[1:]]
)


@settings(max_examples=200, deadline=None)
@given(FORMULAS, TRACES)
def test_monitors_agree_with_the_meaning_of_past_time_operators(
    formula: Formula, trace: list[tuple[Any, Any]]
) -> None:
    text, meaning = formula
    c = compile_predicate(text, ENV)
    assert run_trace(c, trace) == [meaning(trace, n) for n in range(len(trace))], text


# -- properties on the bench model, in both engines ----------------------------------------------

BENCH_MODEL = Model(BENCH, {"turns": 1, "cap": 2, "budget": 1, "cmax": 1})
BENCH_ENV = Env.for_model(BENCH_MODEL)

#: Steps: 0 untap, 1..10 with priority, 11 cleanup, 12 a cleanup step with priority; one turn.
BENCH_PROPERTIES: list[tuple[str, Verdict]] = [
    # step 12 is entered only by the cleanup trigger, from step 11, and left only to 11
    ("implies(step == 12, once(step == 11))", Verdict.EXHAUSTIVE),
    ("implies(step == 12, previously(step == 11) or previously(step == 12))", Verdict.EXHAUSTIVE),
    ("implies(step == 12, once(previously(step == 11)))", Verdict.EXHAUSTIVE),
    ("historically(implies(step == 12, previously(step in (11, 12))))", Verdict.EXHAUSTIVE),
    ("implies(step == 12, once(fired('514.3a')))", Verdict.EXHAUSTIVE),
    # the untap step ends by 502.4 into step 1; the cleanup trigger leaves one object on the stack
    ("implies(fired('MTG 502.4'), previously(step == 0) and step == 1)", Verdict.EXHAUSTIVE),
    ("implies(fired(kind='trigger bookkeeping'), step == 12 and stk.len == 1)", Verdict.EXHAUSTIVE),
    ("not fired(card='Sundial of the Infinite')", Verdict.EXHAUSTIVE),
    # the only turn ends from the cleanup step (its terminal state has turn == 1)
    ("implies(turn == 1, once(previously(step == 11)))", Verdict.EXHAUSTIVE),
    # before the cleanup, no cleanup with priority since the untap step; after it, there was one
    ("implies(step <= 10, since(step != 12, step == 0))", Verdict.EXHAUSTIVE),
    ("implies(step == 11, since(step != 12, step == 0))", Verdict.VIOLATED),
    # a player passing priority stays in step 1: it is not always entered from the untap step
    ("implies(step == 1, previously(step == 0))", Verdict.VIOLATED),
    ("implies(step == 1, once(previously(step == 11)))", Verdict.VIOLATED),
    ("not once(step == 12)", Verdict.VIOLATED),  # cmax = 1: one cleanup step with priority
    ("historically(turn == 0)", Verdict.VIOLATED),
]


def bench_property(i: int, text: str) -> Any:
    c = compile_predicate(text, BENCH_ENV)
    return always(f"p{i}", text, c.fn, monitors=c.monitors)


def test_temporal_properties_on_the_bench_model_explicit_engine() -> None:
    props = [bench_property(i, t) for i, (t, _) in enumerate(BENCH_PROPERTIES)]
    results = explicit.check_properties(BENCH_MODEL, props)
    assert [r.verdict for r in results] == [v for _, v in BENCH_PROPERTIES]
    by_text = {t: r for (t, _), r in zip(BENCH_PROPERTIES, results)}
    # the shortest way to a cleanup step with priority: untap, ten steps, the trigger
    trace = by_text["not once(step == 12)"].trace
    assert trace is not None and trace.steps[-1].rule == "MTG 514.3a"
    trace = by_text["historically(turn == 0)"].trace
    assert trace is not None and trace.steps[-1].rule == "MTG 514.3"


@pytest.mark.parametrize("index", [0, 2, 5, 12])
def test_temporal_properties_on_the_bench_model_symbolic_engine(index: int) -> None:
    text, verdict = BENCH_PROPERTIES[index]
    (r,) = symbolic.check_properties(
        BENCH_MODEL, [bench_property(index, text)], jobs=0, timeout_s=30
    )
    expected = Verdict.PROVED if verdict is Verdict.EXHAUSTIVE else verdict
    assert r.verdict is expected, (text, r.reason)


def test_the_bench_schema_compiles_with_arrays_and_its_sequence() -> None:
    s = BenchState.make(
        turn=0,
        step=12,
        prio=1,
        passes=0,
        stk=BENCH_MODEL.schema.domains["stk"].make([1, 0]),
        u=(0, 1),
        pend=(0, 0),
        cl=0,
    )
    c = compile_predicate(
        "stk[prio - 1] == 1 and u[prio] == 1 and count(p == 0 for p in pend) == 2", BENCH_ENV
    )
    assert evaluate(c, s)


# -- errors ---------------------------------------------------------------------------------------

ERRORS: list[tuple[str, int, list[str]]] = [
    # text, column, what the message must say
    ("hnad[0] == 1", 1, ["unknown name 'hnad'", "did you mean 'hand'?", "fields done, hand"]),
    ("step == CLEANIP", 9, ["unknown name 'CLEANIP'", "did you mean 'CLEANUP'?"]),
    ("step == cleanup", 9, ["did you mean 'CLEANUP'?"]),
    ("step == Step.CLEANIP", 9, ["Step has no member 'CLEANIP'", "did you mean 'CLEANUP'?"]),
    (
        "proc == SHOCK",
        1,
        ["cannot compare proc (enum Proc) == SHOCK (enum Obj)", "a member of Proc: NONE, END_TURN"],
    ),
    ("step == 3", 1, ["(enum Step)", "(int)", "a member of Step: UNTAP, MAIN1, MAIN2, CLEANUP"]),
    ("turn == CLEANUP", 1, ["cannot compare turn (int) == CLEANUP (enum Step)"]),
    ("res.what in (SHOCK, END_TURN)", 21, ["a member of Obj: NONE, SHOCK, PUMP"]),
    (
        "implies(done, NONE == NONE)",
        15,
        ["ambiguous name 'NONE'", "a member of Proc and Obj", "Proc.NONE or Obj.NONE"],
    ),
    ("NONE in (NONE,)", 1, ["ambiguous name 'NONE'"]),
    (
        "step == NONE",
        9,
        ["'NONE' is a member of Proc and Obj, not of Step", "a member of Step: UNTAP, MAIN1"],
    ),
    ("done.__class__", 1, ["dunder", "'__class__'"]),
    ("__class__ == 1", 1, ["dunder", "'__class__'"]),
    ("__import__('os').system('ls')", 1, ["dunder", "'__import__'"]),
    ("len(stack) == 0", 1, ["call of 'len' is not allowed", "allowed calls: all, any", "seq.len"]),
    ("eval('1') == 1", 1, ["call of 'eval' is not allowed"]),
    ("ony(done)", 1, ["call of 'ony'", "did you mean 'any'?"]),
    ("stack.pop() == 1", 1, ["only calls of"]),
    ("turn.real == 1", 1, ["attribute access outside the schema", "turn is int"]),
    ("hand.len == 2", 1, ["attribute access outside the schema", "array of int"]),
    ("stack.length == 2", 1, ["no attribute 'length'", "did you mean 'len'?", "stack.len"]),
    ("res.who == 1", 1, ["record Item has no field 'who'", "its fields: what, ctrl, flag"]),
    ("hand[2] == 0", 6, ["index 2 is out of range", "hand has size 2", "expected 0..1"]),
    ("hand[-1] == 0", 6, ["index -1 is out of range"]),
    ("stack[3].ctrl == 0", 7, ["index 3 is out of range", "stack has capacity 3"]),
    ("turn[0] == 0", 1, ["only arrays and sequences take an index", "turn is int"]),
    ("hand[done] == 0", 6, ["an index must be int", "done is bool"]),
    ("done + 1 == 1", 1, ["an operand of + must be int", "done is bool"]),
    ("True * 2 == 2", 1, ["an operand of * must be int", "True is bool"]),
    ("step + 1 == MAIN1", 1, ["an operand of + must be int", "step is enum Step"]),
    ("turn + 1", 1, ["a predicate must be a bool expression", "this is int"]),
    ("stack", 1, ["a predicate must be a bool expression", "sequence"]),
    ("step == 'CLEANUP'", 9, ["string constant 'CLEANUP'", "only as an argument of fired"]),
    ("lambda: True", 1, ["a lambda is not part of the language"]),
    ("(lambda: True)()", 1, ["only calls of"]),
    ("turn / 2 == 1", 1, ["division operator /", "expected +, - or * on ints"]),
    ("turn // 2 == 1", 1, ["floor division"]),
    ("turn % 2 == 1", 1, ["modulo operator %"]),
    ("turn ** 2 == 1", 1, ["power operator"]),
    ("turn & 1 == 1", 1, ["bitwise operator &"]),
    ("~turn == 1", 1, ["bitwise operator ~"]),
    ("+turn == 1", 1, ["unary +"]),
    ("turn * prio == 0", 1, ["* needs a constant on one side"]),
    ("done is True", 1, ["'is' is not part of the language", "expected == or !="]),
    ("done < True", 1, ["'<' orders ints and enums", "done is bool"]),
    ("res < res", 1, ["'<' orders ints and enums"]),
    ("turn in hand", 9, ["needs a tuple of constants"]),
    ("turn in (prio, 1)", 10, ["expected a constant in the tuple"]),
    ("turn in (1, 2) == done", 9, ["as the last operand"]),
    ("[t for t in tapped] == tapped", 1, ["a list comprehension is not part of the language"]),
    ("{turn: 1} == 1", 1, ["a dict display"]),
    ("[turn] == 1", 1, ["a list display"]),
    ("{turn} == 1", 1, ["a set display"]),
    ("(turn, prio) == 1", 1, ["a tuple display"]),
    ("f'{turn}' == 1", 1, ["an f-string"]),
    ("(y := turn) == 1", 2, ["an assignment expression (:=)"]),
    ("hand[0:1] == hand", 6, ["a slice is not part of the language"]),
    ("any(*tapped)", 5, ["a starred argument"]),
    ("once(p=done)", 8, ["once(...) takes no keyword arguments"]),
    ("implies(**{})", 11, ["keyword unpacking"]),
    ("any(n == 1 for n in hand for m in hand)", 30, ["exactly one 'for'"]),
    ("any(n == 1 for n, m in hand)", 16, ["expected one variable name after 'for'"]),
    ("any(turn > 0 for turn in hand)", 18, ["'turn' would hide a name of the schema"]),
    ("any(n for n in turn)", 16, ["runs over an array or a sequence", "turn is int"]),
    ("any(n + 1 for n in hand)", 5, ["the element of any(...) must be bool"]),
    ("any(hand)", 1, ["takes one generator expression"]),
    ("(n > 0 for n in hand)", 1, ["generator expression outside any(), all() or count()"]),
    ("any(once(it.flag) for it in stack)", 10, ["generator variable 'it' is bound outside"]),
    ("once(turn)", 6, ["the argument of once(...) must be bool", "turn is int"]),
    ("since(done)", 1, ["since(...) takes 2 arguments; got 1"]),
    ("implies(done)", 1, ["implies(...) takes 2 arguments"]),
    (
        "fired(kind='state based action')",
        12,
        ["unknown rule kind", "did you mean 'state-based action'", "valid kinds: choice"],
    ),
    ("fired('hello world')", 7, ["expected a rule citation such as 'MTG 514.3a'"]),
    ("fired(514)", 7, ["expected a rule citation as a string"]),
    ("fired()", 1, ["fired(...) needs a citation, kind= or card="]),
    ("fired(kin='choice')", 11, ["no keyword 'kin'", "did you mean 'kind'?"]),
    ("fired(card='')", 12, ["non-empty string"]),
    ("fired('514', '515')", 1, ["at most one citation"]),
    ("(1 if done else True) == 1", 2, ["both arms of 'if ... else' must have one type"]),
    ("(1 if turn else 2) == 1", 7, ["the condition of 'if ... else' must be bool"]),
    ("done == None", 9, ["None is not part of the language"]),
    ("turn == 1.5", 9, ["float constants are not part of the language"]),
    ("Step == 1", 1, ["Step is an enum", "Step.UNTAP"]),
    ("turn ==", 8, ["syntax error: invalid syntax at the end of the expression"]),
    ("done and", 9, ["syntax error"]),
    ("done done", 6, ["syntax error: invalid syntax"]),
    ("(done", 1, ["syntax error: '(' was never closed"]),
    ("", 1, ["expected an expression"]),
    ("done\x00", 5, ["a NUL character"]),
    ("not " * 120 + "done", 1, ["nests more than 100 levels"]),
    ("+".join(["1"] * 3000) + " == 1", 1, ["nests more than 100 levels"]),
    ("done and hnad == 1", 10, ["unknown name 'hnad'"]),
]


@pytest.mark.parametrize("text,column,parts", ERRORS, ids=[e[0][:40] for e in ERRORS])
def test_errors_are_clean_and_say_what_was_expected(
    text: str, column: int, parts: list[str]
) -> None:
    with pytest.raises(ExpressionError) as err:
        compile_predicate(text, ENV)
    e = err.value
    assert isinstance(e, TurnproofError) and e.text == text
    message = str(e)
    for part in parts:
        assert part in message, (part, message)
    assert e.column == column, message
    assert "\n" not in message.replace(repr(text), "")  # one line (but for the quoted text)


def _nested_any(depth: int) -> str:
    text = "it0.flag"
    for k in range(depth):
        text = f"any({text} for it{k} in stack)"
    return text


def test_nested_generators_are_refused_beyond_the_cost_limit() -> None:
    assert evaluate(compile_predicate(_nested_any(5), ENV), STATES[2])  # 3**5 evaluations
    with pytest.raises(ExpressionError, match="more than the 20000 allowed; nested generators"):
        compile_predicate(_nested_any(10), ENV)  # 3**10


def test_a_multi_line_expression_reports_line_and_column() -> None:
    with pytest.raises(ExpressionError) as err:
        compile_predicate("(done and\n  hnad == 1)", ENV)
    assert (err.value.line, err.value.column) == (2, 3)
    assert str(err.value).startswith("line 2, column 3: unknown name 'hnad'")


def test_a_field_hides_a_bound_of_the_same_name_and_extra_names_hide_nothing() -> None:
    env = Env.for_schema(SCHEMA, bounds=("turn", "turns"))  # Magic has a bound 'stack'
    assert compile_expr("turn", env).reads == {"turn"}
    with pytest.raises(ExpressionError) as err:
        compile_predicate("tur == 1", env)
    assert "bounds turns;" in str(err.value)
    for name in ("turn", "turns", "not-a-name"):
        with pytest.raises(TurnproofError, match="extra name"):
            Env.for_schema(SCHEMA, bounds=("turns",), extra={name: (INT, active)})


def test_the_module_docstring_examples_hold() -> None:
    assert doctest.testmod(expr).failed == 0


# -- fuzzing --------------------------------------------------------------------------------------

TOKENS = [
    *SCHEMA.fields,
    "res.what",
    "res.ctrl",
    "stack.len",
    "stack[0]",
    "stack[1].flag",
    "hand[prio]",
    "hand[0]",
    "tapped[1]",
    "turns",
    "active",
    "it",
    "it.ctrl",
    "it.what",
    "n",
    "and",
    "or",
    "not",
    "==",
    "!=",
    "<",
    "<=",
    ">",
    ">=",
    "in",
    "not in",
    "is",
    "+",
    "-",
    "*",
    "/",
    "%",
    "if",
    "else",
    "for",
    "(",
    ")",
    ",",
    "[",
    "]",
    ".",
    ":",
    ":=",
    "**",
    "lambda",
    "*",
    "0",
    "1",
    "2",
    "3",
    "-1",
    "10",
    "True",
    "False",
    "None",
    "'MTG 514.3a'",
    "'x'",
    "CLEANUP",
    "MAIN1",
    "NONE",
    "SHOCK",
    "END_TURN",
    "Proc.NONE",
    "Obj",
    "Step.UNTAP",
    "any(",
    "all(",
    "count(",
    "implies(",
    "once(",
    "previously(",
    "since(",
    "historically(",
    "fired(",
    "len(",
    "kind='choice'",
    "card='x'",
    "for it in stack",
    "for n in hand",
    "__import__",
    "__class__",
    "x",
    "s",
    "b",
    "m",
]


def _evaluates(c: Compiled, s: T, t: T) -> None:
    """Evaluate a compiled predicate on ``s`` and its monitors on a transition to ``t``."""
    names = tuple(m.name for m in c.monitors)
    cls = monitor_class(names) if names else None
    m = cls(*(mon.init(s, X, B) for mon in c.monitors)) if cls else None
    c.fn(s, X, B, m)
    if cls:
        m = cls(*(mon.update(s, t, RULES[0], m, X, B) for mon in c.monitors))
        c.fn(t, X, B, m)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(st.text(), st.text(alphabet=string.printable, max_size=40)))
def test_fuzz_arbitrary_text_compiles_or_raises_expression_error(text: str) -> None:
    try:
        c = compile_predicate(text, ENV)
    except ExpressionError:
        return
    _evaluates(c, STATES[1], STATES[2])


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(TOKENS), min_size=1, max_size=14))
def test_fuzz_token_soup_compiles_or_raises_expression_error(tokens: list[str]) -> None:
    try:
        c = compile_predicate(" ".join(tokens), ENV)
    except ExpressionError:
        return
    _evaluates(c, STATES[1], STATES[2])


# Well-formed Python of every type, most of it ill-typed: what the type checker must sort out.
LEAVES = [
    *SCHEMA.fields,
    "res.what",
    "res.flag",
    "stack.len",
    "stack[1]",
    "stack[prio].ctrl",
    "hand[turn]",
    "hand[1]",
    "tapped[prio]",
    "turns",
    "active",
    "0",
    "1",
    "3",
    "-2",
    "True",
    "CLEANUP",
    "MAIN1",
    "NONE",
    "SHOCK",
    "Proc.NONE",
    "END_TURN",
    "fired('514.3')",
    "fired(kind='choice')",
]


def _grow(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    two = st.tuples(inner, inner)
    return st.one_of(
        st.tuples(
            inner, st.sampled_from(["and", "or", "==", "!=", "<", ">=", "+", "-"]), inner
        ).map(lambda t: f"({t[0]} {t[1]} {t[2]})"),
        inner.map(lambda a: f"(not {a})"),
        inner.map(lambda a: f"(2 * {a})"),
        inner.map(lambda a: f"(-{a})"),
        st.tuples(inner, inner, inner).map(lambda t: f"({t[0]} if {t[1]} else {t[2]})"),
        st.tuples(inner, st.sampled_from(["in", "not in"]), two).map(
            lambda t: f"({t[0]} {t[1]} ({t[2][0]}, {t[2][1]}))"
        ),
        st.tuples(st.sampled_from(["once", "previously", "historically"]), inner).map(
            lambda t: f"{t[0]}({t[1]})"
        ),
        two.map(lambda t: f"since({t[0]}, {t[1]})"),
        two.map(lambda t: f"implies({t[0]}, {t[1]})"),
        st.tuples(
            st.sampled_from(["any", "all", "count"]),
            inner,
            st.sampled_from(["it in stack", "it in hand", "it in tapped"]),
            st.sampled_from(["", " if it.flag", " if it == 1"]),
        ).map(lambda t: f"{t[0]}({t[1].replace('res', 'it')} for {t[2]}{t[3]})"),
        inner.map(lambda a: f"hand[{a}]"),
        inner.map(lambda a: f"stack[{a}].what"),
    )


UNTYPED = st.recursive(st.sampled_from(LEAVES), _grow, max_leaves=8)


# Well-typed expressions (most compile), built type by type; records are 'res' (or 'it' inside
# a generator over the stack, where every 'res.' becomes 'it.').
def _typed() -> dict[str, st.SearchStrategy[str]]:
    leaves = {
        "int": [
            "turn",
            "prio",
            "stack.len",
            "hand[0]",
            "hand[1]",
            "res.ctrl",
            "stack[1].ctrl",
            "turns",
            "active",
            "0",
            "1",
            "3",
            "-2",
        ],
        "bool": [
            "done",
            "res.flag",
            "tapped[0]",
            "tapped[prio]",
            "True",
            "stack[0].flag",
            "fired('514.3')",
            "fired(kind='choice')",
        ],
        "Step": ["step", "CLEANUP", "MAIN1", "Step.UNTAP"],
        "Obj": ["res.what", "stack[0].what", "SHOCK", "NONE", "Obj.NONE"],
        "Proc": ["proc", "NONE", "END_TURN", "Proc.NONE"],
    }
    out: dict[str, st.SearchStrategy[str]] = {}
    i = st.deferred(lambda: out["int"])
    b = st.deferred(lambda: out["bool"])
    enums = {e: st.deferred(lambda e=e: out[e]) for e in ("Step", "Obj", "Proc")}

    def grow(t: str, more: list[st.SearchStrategy[str]]) -> st.SearchStrategy[str]:
        same = st.deferred(lambda: out[t])
        ite = st.tuples(same, b, same).map(lambda a: f"({a[0]} if {a[1]} else {a[2]})")
        base = st.sampled_from(leaves[t])
        return st.one_of(base, base, base, ite, *more)

    out["int"] = grow(
        "int",
        [
            st.tuples(i, st.sampled_from("+-"), i).map(lambda a: f"({a[0]} {a[1]} {a[2]})"),
            i.map(lambda a: f"(3 * {a})"),
            i.map(lambda a: f"(-{a})"),
            i.map(lambda a: f"hand[{a}]"),
            i.map(lambda a: f"stack[{a}].ctrl"),
            b.map(lambda a: f"count({a.replace('res.', 'it.')} for it in stack)"),
            i.map(lambda a: f"count(n == {a} for n in hand)"),
        ],
    )
    comparisons = [
        st.tuples(i, st.sampled_from(["==", "!=", "<", "<=", ">", ">="]), i).map(" ".join),
        st.tuples(i, st.sampled_from(["<", "<="]), i, st.sampled_from(["<", "=="]), i).map(
            " ".join
        ),
        st.tuples(b, st.sampled_from(["==", "!="]), b).map(lambda a: f"({a[0]}) {a[1]} ({a[2]})"),
        i.map(lambda a: f"{a} in (1, 2)"),
        st.just("res == stack[prio]"),
        st.just("stack[0] != stack[1]"),
    ]
    for e, strat in enums.items():
        comparisons.append(
            st.tuples(strat, st.sampled_from(["==", "!=", "<", ">="]), strat).map(" ".join)
        )
        comparisons.append(strat.map(lambda a, e=e: f"{a} not in ({leaves[e][-1]},)"))
    out["bool"] = grow(
        "bool",
        [
            *(c.map(lambda a: f"({a})") for c in comparisons),
            st.tuples(b, st.sampled_from(["and", "or"]), b).map(
                lambda a: f"({a[0]} {a[1]} {a[2]})"
            ),
            b.map(lambda a: f"(not {a})"),
            st.tuples(b, b).map(lambda a: f"implies({a[0]}, {a[1]})"),
            st.tuples(st.sampled_from(["once", "previously", "historically"]), b).map(
                lambda a: f"{a[0]}({a[1]})"
            ),
            st.tuples(b, b).map(lambda a: f"since({a[0]}, {a[1]})"),
            st.tuples(st.sampled_from(["any", "all"]), b, st.sampled_from(["", " if it.flag"])).map(
                lambda a: f"{a[0]}({a[1].replace('res.', 'it.')} for it in stack{a[2]})"
            ),
            st.tuples(st.sampled_from(["any", "all"]), i).map(
                lambda a: f"{a[0]}(n > {a[1]} for n in hand)"
            ),
            b.map(lambda a: f"any(t == ({a}) for t in tapped)"),
        ],
    )
    for e in enums:
        out[e] = grow(e, [i.map(lambda a: f"stack[{a}].what")] if e == "Obj" else [])
    return out


TYPED = _typed()
EXPRESSIONS = st.one_of(TYPED["bool"], TYPED["int"], TYPED["Obj"], UNTYPED)
ENC = Encoding(MODEL)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(EXPRESSIONS, states(), states())
def test_fuzz_well_formed_expressions_agree_in_both_engines(text: str, s: T, t: T) -> None:
    """Whatever compiles evaluates in both engines, to the same value: the predicate on ``s``
    (with its monitors' initial values), and each monitor's update on the transition to ``t``."""
    try:
        c = compile_expr(text, ENV)
    except ExpressionError:
        return
    names = tuple(m.name for m in c.monitors)
    cls = monitor_class(names) if names else None
    m = cls(*(mon.init(s, X, B) for mon in c.monitors)) if cls else None
    concrete = c.fn(s, X, B, m)
    sym = c.fn(ENC.state(0), ENC.ops(), ENC.bounds_at(0), m)
    if c.type.is_scalar:
        solver = z3.Solver()
        solver.add(ENC.is_state(0, s))
        lifted = to_bool(sym) if c.type == BOOL else symbolic.as_int(sym)
        value = bool(concrete) if c.type == BOOL else int(concrete)
        assert solver.check(lifted != symbolic.lift_like(value, lifted)) == z3.unsat, text
    for mon in c.monitors:
        old = m
        new = mon.update(s, t, RULES[1], old, X, B)
        sym_new = mon.update(ENC.state(0), ENC.state(1), RULES[1], old, ENC.ops(), ENC.bounds_at(0))
        solver = z3.Solver()
        solver.add(ENC.is_state(0, s), ENC.is_state(1, t))
        assert solver.check(to_bool(sym_new) != bool(new)) == z3.unsat, (text, mon.name)
