"""Spellwatcher (abstract): a unit that watches spells. "Might 1. When you play a spell, give me
+1 Might this turn." (the pattern of Ravenbloom Student and Darius, Trifarian in the FAQ)

In a trigger condition "play" means *resolve* (419.4): it triggers as its controller's spell
finishes resolving, never for a spell that was countered (419.4.b, 425.1.b; ruling RB-06).
"""

from __future__ import annotations

from typing import Any

from turnproof.model.packs import Field, KindSpec, Pack
from turnproof.model.riftbound.core import (
    add_effect,
    enters,
    fire,
    is_kind,
    kinds,
    on_board,
    slot_of,
)
from turnproof.model.schema import IntRange, Term


def _slot(b: Any) -> int:
    return slot_of(b, kinds(b).SPELLWATCHER)


def _played(s: Any, x: Any, b: Any, *, me: Any, p: Term, what: Term) -> Any:
    spell = x.And(is_kind(x, what, "spell", b), p == me.controller, on_board(s, _slot(b)))
    return fire(s, x, b, spell, me.controller, kinds(b).T_SPELLWATCHER)


def _trigger(s: Any, x: Any, b: Any, *, me: Any) -> Any:
    """Spellwatcher gets +1 Might this turn (if it is still on the board)"""
    here = on_board(s, _slot(b))
    return x.when(here, lambda u: u.replace(watcher_might=add_effect(x, u.watcher_might, b)), s)


def _might(s: Any, x: Any, b: Any, *, me: Any, slot: int) -> Term:
    return s.watcher_might if slot == _slot(b) else 0


CARD = Pack(
    key="spellwatcher",
    name="Spellwatcher",
    text="Unit (might 1). When you play a spell, give me +1 Might this turn.",
    abstract=True,
    kinds=(
        KindSpec(
            "SPELLWATCHER", "Spellwatcher (a unit)", traits=("card", "unit"), stats=(("might", 1),)
        ),
        KindSpec(
            "T_SPELLWATCHER",
            "Spellwatcher's 'when you play a spell' trigger",
            traits=("trigger", "play-trigger"),
        ),
    ),
    fields=(
        Field(
            "watcher_might",
            lambda b: IntRange(0, b.effects),
            "'+1 Might this turn' effects on Spellwatcher",
            lambda b: 0,
            ends="expiration",
        ),
    ),
    resolve={"SPELLWATCHER": enters, "T_SPELLWATCHER": _trigger},
    cast={"SPELLWATCHER": None},
    hooks={"played": _played, "might": _might},
    zones=("board", "hand"),
    each=False,
    sources=("shared/examples/rulings.md RB-06", "Unleashed Rules FAQ, 'Legion'"),
    module=__name__,
)
