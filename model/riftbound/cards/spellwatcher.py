"""Spellwatcher (abstract): a unit that watches spells. "Might 1. When you play a spell, give me
+1 Might this turn." (the pattern of Ravenbloom Student and Darius, Trifarian in the FAQ)

In a trigger condition "play" means *resolve* (419.4): it triggers as its controller's spell
finishes resolving, never for a spell that was countered (419.4.b, 425.1.b; ruling RB-06).
"""

from __future__ import annotations

from typing import Any

from turnproof.model.packs import Field, KindSpec, Pack, resolution_name
from turnproof.model.properties import Mutant, always, step
from turnproof.model.riftbound.core import (
    Stage,
    add_effect,
    enters,
    fire,
    is_kind,
    kinds,
    might,
    on_board,
    slot_of,
    slots,
)
from turnproof.model.riftbound.properties import FOR_ALL
from turnproof.model.rules import ReplaceHook, derive
from turnproof.model.schema import IntRange, Term


def _slot(b: Any) -> int:
    return slot_of(b, kinds(b).SPELLWATCHER)


def _played(s: Any, x: Any, b: Any, *, me: Any, p: Term, what: Term) -> Any:
    spell = x.And(is_kind(x, what, "spell", b), p == me.controller, on_board(s, _slot(b)))
    return fire(s, x, b, spell, me.controller, kinds(b).T_SPELLWATCHER)


def _trigger(s: Any, x: Any, b: Any, *, me: Any, grows: bool = True) -> Any:
    """Spellwatcher gets +1 Might this turn (if it is still on the board)"""
    if not grows:  # a mutant's: the trigger resolves and gives nothing
        return s
    here = on_board(s, _slot(b))
    return x.when(here, lambda u: u.replace(watcher_might=add_effect(x, u.watcher_might, b)), s)


def _might(s: Any, x: Any, b: Any, *, me: Any, slot: int) -> Term:
    return s.watcher_might if slot == _slot(b) else 0


def _lent(s: Any, x: Any, b: Any, *, me: Any, slot: int) -> Term:
    """A mutant's hook: Spellwatcher's bonus goes to the other units instead."""
    return s.watcher_might if slot != _slot(b) else 0


def _grows(s: Any, t: Any, r: Any, x: Any, b: Any, m: Any) -> Term:
    """As its trigger resolves, Spellwatcher (on the board) gets one more '+1 Might this turn'
    effect; off the board it gets none."""
    resolves = x.And(
        s.stage == Stage.RESOLVING,
        s.res.what == kinds(b).T_SPELLWATCHER,
        t.stage == Stage.RESOLVED,
    )
    more = t.watcher_might == s.watcher_might + x.If(on_board(s, _slot(b)), 1, 0)
    return x.Implies(resolves, more)


def _its_own(s: Any, x: Any, b: Any, m: Any) -> Term:
    """Its effects add to Spellwatcher's Might, one each, and to no other unit's: every unit's
    Might computed with and without them."""
    base = s.replace(watcher_might=0)
    own = _slot(b)
    return x.And(
        *(
            might(s, x, b, k) == might(base, x, b, k) + (s.watcher_might if k == own else 0)
            for k in range(len(slots(b)))
            if slots(b)[k].unit
        )
    )


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
    properties=(
        step(
            "spellwatcher-grows-as-its-trigger-resolves",
            "as Spellwatcher's 'when you play a spell' trigger resolves, Spellwatcher gets +1 "
            "Might this turn if it is still on the board, and nothing otherwise",
            _grows,
            antecedent=lambda s, x, b, m: s.res.what == kinds(b).T_SPELLWATCHER,
            citations=("RB 340", "RB 419.4"),
            for_all=FOR_ALL,
        ),
        always(
            "spellwatcher-might-is-its-own",
            "Spellwatcher's '+1 Might this turn' effects add to its own Might, one each, and "
            "to no other unit's",
            _its_own,
            antecedent=lambda s, x, b, m: s.watcher_might > 0,
            citations=("RB 323.3",),
            for_all=FOR_ALL,
        ),
    ),
    mutants=(
        Mutant(
            "spellwatcher-trigger-gives-nothing",
            "Spellwatcher's trigger resolves without giving it +1 Might",
            (
                derive(
                    resolution_name("T_SPELLWATCHER"),
                    "MUTANT: the trigger gives no Might",
                    grows=False,
                ),
            ),
            ("spellwatcher-grows-as-its-trigger-resolves",),
        ),
        Mutant(
            "spellwatcher-lends-its-might",
            "'give me +1 Might' read as 'give your other units +1 Might'",
            (ReplaceHook("spellwatcher", "might", _lent, "the bonus goes to the other units"),),
            ("spellwatcher-might-is-its-own",),
        ),
    ),
    zones=("board", "hand"),
    each=False,
    sources=("shared/examples/rulings.md RB-06", "Unleashed Rules FAQ, 'Legion'"),
    module=__name__,
)
