"""The turn-loop benchmark model (``shared/bench/README.md``) as a turnproof rule set.

A deliberately small model of the Magic turn loop, written identically for SPIN, TLC, NuSMV and
Rumur by the benchmark's generator, so that the explicit engine can be measured against them on
the same state space. It must reach exactly the reference number of distinct states
(``base``: 5,017; ``mid``: 618,397; ...).

Steps: 0 untap (no priority); 1..10 upkeep ... end (priority); 11 cleanup (no priority,
transient); 12 a cleanup step in which players got priority. Two players; the active player is
``turn % 2``. Citations point at the Comprehensive Rules that each benchmark action stands for.
"""

from __future__ import annotations

from typing import Any

from turnproof.model.properties import Expect, no_deadlock, terminates
from turnproof.model.rules import Bounds, BoundSpec, Kind, RuleSet, rule
from turnproof.model.schema import ArrayDomain, IntRange, Schema, SeqDomain, State, Term


class BenchState(State):
    turn: Term
    step: Term
    prio: Term
    passes: Term
    stk: Term
    u: Term
    pend: Term
    cl: Term


def schema(b: Bounds) -> Schema:
    return Schema(
        BenchState,
        {
            "turn": IntRange(0, b.turns),
            "step": IntRange(0, 12),
            "prio": IntRange(0, 1),
            "passes": IntRange(0, 1),
            "stk": SeqDomain(IntRange(0, 1), b.cap),
            "u": ArrayDomain(IntRange(0, b.budget), 2),
            "pend": ArrayDomain(IntRange(0, 1), 2),
            "cl": IntRange(0, b.cmax),
        },
    )


def initial(b: Bounds) -> list[State]:
    sch = schema(b)
    return [
        BenchState.make(
            turn=0,
            step=0,
            prio=0,
            passes=0,
            stk=sch.domains["stk"].default(),
            u=(0, 0),
            pend=(0, 0),
            cl=0,
        )
    ]


def _active(s: BenchState) -> Term:
    return s.turn % 2


def _prio_step(s: BenchState, x: Any) -> Term:
    return x.Or(x.And(s.step >= 1, s.step <= 10), s.step == 12)


def _flush(s: BenchState, x: Any) -> BenchState:
    """Pending triggers go on the stack, the active player's first, as far as capacity allows.
    (Nothing is pending in most states: the concrete engine then skips the work.)"""
    return x.when(x.Or(s.pend[0] == 1, s.pend[1] == 1), lambda t: _flush_pending(t, x), s)


def _flush_pending(s: BenchState, x: Any) -> BenchState:
    a = _active(s)
    stk, pend = s.stk, s.pend
    for p in (a, 1 - a):
        push = x.And(x.get(pend, p) == 1, x.Not(x.seq_is_full(stk)))
        stk = x.when(push, lambda q, p=p: x.seq_push(q, p), stk)
        pend = x.when(push, lambda q, p=p: x.set(q, p, 0), pend)
    return s.replace(stk=stk, pend=pend)


def _prio(s: BenchState, x: Any, b: Bounds, **_: Any) -> Term:
    """the player with priority"""
    return s.prio


@rule(
    "MTG 502.4",
    "the untap step ends; the active player will get priority in upkeep",
    kind=Kind.TURN_BASED,
)
def untap(s: BenchState, x: Any, b: Bounds) -> BenchState:
    x.require(s.step == 0)
    x.require(s.turn < b.turns)
    return s.replace(step=1, prio=_active(s), passes=0)


@rule("MTG 514.3", "cleanup ends without priority, and the next turn begins", kind=Kind.TURN_BASED)
def end_turn(s: BenchState, x: Any, b: Bounds) -> BenchState:
    x.require(s.step == 11)
    x.require(s.turn < b.turns)
    return s.replace(turn=s.turn + 1, step=0, cl=0)


@rule(
    "MTG 514.3a",
    "a cleanup trigger goes on the stack and the active player gets priority",
    kind=Kind.TRIGGER,
)
def cleanup_trigger(s: BenchState, x: Any, b: Bounds) -> BenchState:
    x.require(s.step == 11)
    x.require(x.And(s.turn < b.turns, s.cl < b.cmax))
    a = _active(s)
    return s.replace(step=12, prio=a, passes=0, stk=x.seq_push(x.seq_clear(s.stk), a))


@rule(
    "MTG 117.3c",
    "the player with priority activates an ability and keeps priority",
    kind=Kind.CHOICE,
    decider=_prio,
)
def activate(s: BenchState, x: Any, b: Bounds) -> BenchState:
    x.require(x.get(s.u, s.prio) < b.budget)
    x.require(x.Not(x.seq_is_full(s.stk)))
    x.require(x.And(s.turn < b.turns, _prio_step(s, x)))
    t = s.replace(
        stk=x.seq_push(s.stk, s.prio), u=x.set(s.u, s.prio, x.get(s.u, s.prio) + 1), passes=0
    )
    return _flush(t, x)


@rule(
    "MTG 117.3d",
    "the player with priority passes it to the next player",
    kind=Kind.CHOICE,
    decider=_prio,
)
def pass_first(s: BenchState, x: Any, b: Bounds) -> BenchState:
    x.require(s.passes == 0)
    x.require(x.And(s.turn < b.turns, _prio_step(s, x)))
    return _flush(s.replace(prio=1 - s.prio, passes=1), x)


@rule(
    "MTG 117.4",
    "all players passed: the top of the stack resolves (and may trigger)",
    kind=Kind.CHOICE,
    decider=_prio,
    params={"trig": (0, 1)},
)
def resolve(s: BenchState, x: Any, b: Bounds, trig: int) -> BenchState:
    x.require(s.passes == 1)
    x.require(x.Not(x.seq_is_empty(s.stk)))
    x.require(x.And(s.turn < b.turns, _prio_step(s, x)))
    c = x.seq_top(s.stk)
    pend = s.pend if trig == 0 else x.set(s.pend, c, 1)
    t = s.replace(stk=x.seq_pop(s.stk), pend=pend, prio=_active(s), passes=0)
    return _flush(t, x)


@rule(
    "MTG 500.2",
    "all players passed on an empty stack: the step ends",
    kind=Kind.CHOICE,
    decider=_prio,
)
def end_step(s: BenchState, x: Any, b: Bounds) -> BenchState:
    x.require(s.passes == 1)
    x.require(x.seq_is_empty(s.stk))
    x.require(x.And(s.turn < b.turns, _prio_step(s, x)))
    step = x.If(s.step <= 9, s.step + 1, 11)
    prio = x.If(s.step <= 9, _active(s), 0)
    cl = x.If(s.step == 12, s.cl + 1, s.cl)
    return s.replace(step=step, prio=prio, cl=cl, passes=0, u=(0, 0), pend=(0, 0))


def terminal(s: BenchState, x: Any, b: Bounds) -> Term:
    return s.turn == b.turns


BENCH = RuleSet(
    name="bench",
    game="MTG",
    version="turn-loop benchmark 2026-11-29",
    description="the shared turn-loop benchmark model (same state space as SPIN, TLC, NuSMV, Rumur)",
    rules=(untap, end_turn, cleanup_trigger, activate, pass_first, resolve, end_step),
    bound_specs=(
        BoundSpec("turns", 3, 1, 1000, "turns played (turn == turns is terminal)"),
        BoundSpec("cap", 3, 1, 16, "stack capacity"),
        BoundSpec("budget", 2, 0, 16, "abilities each player may activate per step"),
        BoundSpec("cmax", 2, 0, 16, "extra cleanup steps per turn"),
    ),
    schema=schema,
    initial=initial,
    terminal=terminal,
    properties=(
        no_deadlock(),
        # Expected to fail, on purpose: in the benchmark an ability resolving in a cleanup
        # priority window may trigger again, so players can keep a cleanup step going for ever
        # (they can also stop: the lasso lists their ways out).
        terminates(
            "cleanup-terminates",
            "no cycle among cleanup states (steps 11 and 12); the benchmark lets a resolving "
            "ability re-trigger, so this fails by design",
            lambda s, x, b, m: x.Or(s.step == 11, s.step == 12),
            expect=Expect.VIOLATED,
        ),
    ),
)

#: The configurations of the benchmark README, with their reference distinct-state counts.
CONFIGS: dict[str, tuple[dict[str, int], int, int]] = {
    "base": ({"turns": 3, "cap": 3, "budget": 2, "cmax": 2}, 5_017, 9_133),
    "mid": ({"turns": 3, "cap": 8, "budget": 6, "cmax": 2}, 618_397, 1_231_669),
    "L": ({"turns": 20, "cap": 8, "budget": 6, "cmax": 2}, 4_122_641, 8_211_121),
    "XL": ({"turns": 200, "cap": 8, "budget": 6, "cmax": 2}, 41_226_401, 82_111_201),
}
