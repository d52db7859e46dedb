"""Triggered abilities that wait to be put on the stack or chain, and the order they go in.

A trigger that fires does nothing at once: it waits until a player would next receive priority
(MTG 603.2, 603.3; RB 383.3, 401.2). Waiting items live in a fixed-capacity sequence; a full one
is a declared bound (``x.within``), never a silent loss. They go on the stack (or chain) in turn
order from the active (turn) player, each player ordering their own (MTG 603.3b, RB 383.3.d):
:func:`take` is that choice, for both games.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from turnproof.model.kit.players import turn_order_rank
from turnproof.model.schema import Seq, Term

#: The orders :func:`take` knows: the rules' (turn order from the active player) and the wrong
#: one the mutants use (the other players' triggers first).
ORDERS = ("turn-order", "others-first")


def fire(x: Any, waiting: Seq, cond: Term, item: Any, bound: str = "waiting") -> Seq:
    """``waiting`` with ``item`` appended when ``cond`` holds (a trigger fires); a full sequence
    cuts the transition at ``bound``."""
    x.within(x.Or(x.Not(cond), x.Not(x.seq_is_full(waiting))), bound)
    return x.when(cond, lambda q: x.seq_push(q, item), waiting)


def first_in_turn_order(x: Any, waiting: Seq, first: Term, players: int) -> Term:
    """The first player in turn order from ``first`` (the active player: APNAP, MTG 603.3b;
    the turn player, RB 383.3.d) who has an item waiting; ``first`` when nobody does."""
    out: Term = first
    for k in reversed(range(players)):
        p = (first + k) % players
        has = x.seq_any(waiting, lambda it, p=p: it.ctrl == p)
        out = x.If(has, p, out)
    return out


def goes_first(x: Any, waiting: Seq, i: int, first: Term, players: int) -> Term:
    """Item ``i`` of ``waiting`` belongs to the player whose waiting items go next."""
    return x.seq_get(waiting, i).ctrl == first_in_turn_order(x, waiting, first, players)


def take(x: Any, waiting: Seq, i: int, first: Term, players: int, order: str = "turn-order") -> Any:
    """Waiting item ``i``, which its controller chooses to put on the stack or chain next: it
    must belong to the first player in turn order from ``first`` who has one waiting (each
    player orders their own). ``order="others-first"`` is the wrong order a mutant uses: the
    other players' items before ``first``'s."""
    x.require(i < waiting.length)
    item = x.seq_get(waiting, i)
    if order == "turn-order":
        x.require(goes_first(x, waiting, i, first, players))
    elif order == "others-first":
        others = x.seq_any(waiting, lambda it: it.ctrl != first)
        x.require(x.If(others, item.ctrl != first, item.ctrl == first))
    else:
        raise ValueError(f"unknown order {order!r}; orders are {', '.join(ORDERS)}")
    return item


def all_ranked_after(x: Any, waiting: Seq, rank_of: Callable[[Any], Term], rank: Term) -> Term:
    """Every item still waiting ranks at least ``rank``."""
    return x.seq_all(waiting, lambda it: rank_of(it) >= rank)


def rank_in_turn_order(item: Any, first: Term, players: int) -> Term:
    """Where the controller of ``item`` comes in turn order from ``first``."""
    return turn_order_rank(item.ctrl, first, players)
