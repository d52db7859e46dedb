"""State fields more than one game's core declares: per-player arrays, a stack or chain of
items, the waiting triggers, the hands, and per-player counters bounded by a bound.

Each returns a :class:`~turnproof.model.packs.Field` (or a domain or initial value for one), so
a core lists them next to its own fields.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from turnproof.model.errors import BoundsError
from turnproof.model.packs import Field
from turnproof.model.schema import (
    ArrayDomain,
    Domain,
    EnumDomain,
    IntRange,
    Leaf,
    RecordDomain,
    SeqDomain,
)


def per_player(d: Domain) -> Callable[[Any], Domain]:
    """A field domain with one entry per player."""
    return lambda b: ArrayDomain(d, b.players)


def each(value: Any) -> Callable[[Any], Any]:
    """The initial value ``value`` for every player."""
    return lambda b: (value,) * b.players


def const(value: Any) -> Callable[[Any], Any]:
    """The initial value ``value``, whatever the bounds."""
    return lambda b: value


def item_record(cls: type[tuple[Any, ...]], b: Any, **more: Leaf) -> RecordDomain:
    """The domain of an item of a stack or chain, a record ``cls`` whose first fields are its
    controller (``ctrl``, a player) and what it is (``what``, a kind of the composed rule set),
    then ``more``."""
    return RecordDomain(
        cls, {"ctrl": IntRange(0, b.players - 1), "what": EnumDomain(b.setup.kinds), **more}
    )


def items(name: str, item: Callable[[Any], Domain], capacity: str, doc: str) -> Field:
    """A sequence of items (a stack, a chain, the waiting triggers) holding at most the bound
    ``capacity``; empty at first."""

    def domain(b: Any) -> SeqDomain:
        return SeqDomain(item(b), b[capacity])

    return Field(name, domain, doc, lambda b: domain(b).default())


def hands(doc: str) -> Field:
    """``hand``: the cards in each player's hand, 0 to ``hand_cap``; the first player starts
    with ``hand0``, the others with ``hand1``."""
    return Field(
        "hand",
        lambda b: ArrayDomain(IntRange(0, b.hand_cap), b.players),
        doc,
        opening_hands,
    )


def opening_hands(b: Any) -> tuple[int, ...]:
    """Each player's opening hand: ``hand0`` for the first, ``hand1`` for the others. An
    opening hand larger than ``hand_cap`` is a :class:`BoundsError`, not a hand cut down to
    fit: the bounds the report names must be the ones explored."""
    for name in ("hand0", "hand1"):
        if b[name] > b.hand_cap:
            raise BoundsError(
                f"bound {name}={b[name]} does not fit in hand_cap={b.hand_cap}: an opening hand "
                f"holds at most hand_cap cards (lower {name} or raise hand_cap)"
            )
    return tuple(b.hand0 if p == 0 else b.hand1 for p in range(b.players))


def counts(name: str, bound: str, doc: str, ends: str = "") -> Field:
    """A per-player count from 0 to the bound ``bound`` (mana, energy, actions), 0 at first;
    ``ends`` is the duration at whose end it starts afresh."""
    return Field(
        name,
        lambda b: ArrayDomain(IntRange(0, b[bound]), b.players),
        doc,
        each(0),
        ends=ends,
    )
