"""Players in turn order, and passing priority (MTG 117.3d, RB 312); the turn counter both
games keep (turns rotate in order, no extra turns are modelled, and the game the model plays
ends after the bound ``turns``)."""

from __future__ import annotations

from typing import Any

from turnproof.model.schema import Term


def next_player(p: Term, players: int) -> Term:
    """The next player in turn order after ``p``."""
    return (p + 1) % players


def turn_order_rank(p: Term, first: Term, players: int) -> Term:
    """How many places after ``first`` player ``p`` comes in turn order (0 for ``first``)."""
    return (p - first + players) % players


def is_one_of(x: Any, value: Term, *options: int) -> Term:
    """``value`` equals one of ``options``."""
    return x.Or(*(value == o for o in options))


def active(s: Any, b: Any) -> Term:
    """The active player (Magic), the turn player (Riftbound): turns rotate in order."""
    return s.turn % b.players


def terminal(s: Any, x: Any, b: Any) -> Term:
    """The last turn the model plays is over: the state is terminal (and absorbing)."""
    return s.turn == b.turns


def live(s: Any, b: Any) -> Term:
    """A turn is still to be played."""
    return s.turn < b.turns
