"""``tiny``: a rule set small enough to read whole, for the command-line and report tests.

A counter that a player can push back (a loop players can break), a spinner that never stops
once started (a loop nobody can break), and a stack with a capacity bound. It has properties
that hold, one that is violated against its expectation, one that is violated on purpose, and
a witness, so every part of a report shows. The ``with_tiny`` fixture (conftest.py) makes it a
built-in rule set for the command line.
"""

from __future__ import annotations

from enum import IntEnum
from typing import Any

from turnproof.model.properties import (
    Expect,
    Mutant,
    exclusive_automatic,
    no_deadlock,
    reachable,
    terminates,
)
from turnproof.model.properties import always as always_prop
from turnproof.model.rules import Bounds, BoundSpec, Kind, Remove, RuleSet, rule
from turnproof.model.schema import EnumDomain, IntRange, Schema, SeqDomain, State, Term


class Mode(IntEnum):
    MAIN = 0
    SPIN_A = 1
    SPIN_B = 2


class TinyState(State):
    n: Term
    mode: Term
    stk: Term


def tiny_schema(b: Bounds) -> Schema:
    return Schema(
        TinyState,
        {"n": IntRange(0, 2), "mode": EnumDomain(Mode), "stk": SeqDomain(IntRange(0, 1), b.cap)},
    )


def tiny_initial(b: Bounds) -> list[State]:
    stk = tiny_schema(b).domains["stk"].default()
    return [TinyState.make(n=0, mode=Mode.MAIN, stk=stk)]


def first_player(s: TinyState, x: Any, b: Bounds) -> Term:
    """player 0"""
    return 0


def second_player(s: TinyState, x: Any, b: Bounds) -> Term:
    """player 1"""
    return 1


@rule("TEST 1.1", "the counter advances", kind=Kind.TURN_BASED)
def advance(s: TinyState, x: Any, b: Bounds) -> TinyState:
    x.require(x.And(s.mode == Mode.MAIN, s.n < 2))
    return s.replace(n=s.n + 1)


@rule("TEST 1.2", "player 0 puts a token on the stack", kind=Kind.CHOICE, decider=first_player)
def push(s: TinyState, x: Any, b: Bounds) -> TinyState:
    x.require(s.mode == Mode.MAIN)
    x.within(x.Not(x.seq_is_full(s.stk)), "stack capacity")
    return s.replace(stk=x.seq_push(s.stk, 1))


@rule("TEST 1.3", "player 0 takes the counter back", kind=Kind.CHOICE, decider=first_player)
def undo(s: TinyState, x: Any, b: Bounds) -> TinyState:
    x.require(x.And(s.mode == Mode.MAIN, s.n == 2))
    return s.replace(n=1)


@rule("TEST 2.1", "player 1 starts the spinner", kind=Kind.CHOICE, decider=second_player)
def start(s: TinyState, x: Any, b: Bounds) -> TinyState:
    x.require(x.And(s.mode == Mode.MAIN, s.n == 2))
    return s.replace(mode=Mode.SPIN_A)


@rule("TEST 2.2", "the spinner turns", kind=Kind.GAME)
def spin(s: TinyState, x: Any, b: Bounds) -> TinyState:
    x.require(x.Not(s.mode == Mode.MAIN))
    return s.replace(mode=x.If(s.mode == Mode.SPIN_A, Mode.SPIN_B, Mode.SPIN_A))


TINY = RuleSet(
    name="tiny",
    game="TEST",
    version="test 1",
    description="a counter, a spinner and a stack, for the CLI tests",
    rules=(advance, push, undo, start, spin),
    bound_specs=(BoundSpec("cap", 1, 1, 3, "stack capacity"),),
    schema=tiny_schema,
    initial=tiny_initial,
    terminal=lambda s, x, b: False,
    properties=(
        no_deadlock(),
        exclusive_automatic(),
        always_prop(
            "empty-stack-at-two",
            "the stack is empty whenever the counter is at 2",
            lambda s, x, b, m: x.Implies(s.n == 2, x.seq_is_empty(s.stk)),
            antecedent=lambda s, x, b, m: s.n == 2,
            citations=("TEST 1.2",),
        ),
        reachable(
            "spinner-can-start", "the spinner can start", lambda s, x, b, m: s.mode != Mode.MAIN
        ),
        terminates(
            "counter-settles",
            "no cycle while the spinner is off",
            lambda s, x, b, m: s.mode == Mode.MAIN,
        ),
        terminates(
            "spinner-stops",
            "the spinner stops (it does not, on purpose)",
            lambda s, x, b, m: s.mode != Mode.MAIN,
            expect=Expect.VIOLATED,
        ),
    ),
    mutants=(
        Mutant(
            "no-start",
            "nobody can start the spinner",
            (Remove("start"),),
            breaks=("spinner-can-start",),
            bounds={"cap": 2},
        ),
    ),
    variants={"no-undo": (Remove("undo"),)},
)
