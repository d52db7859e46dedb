"""Twincast: "Copy target instant or sorcery spell. You may choose new targets for the copy."

Here it copies the spell right below it on the stack (the newest other one; abilities are no
spells and cannot be copied), and the copy keeps its targets. The copy is put on the stack
above the spell (707.10) and resolves first. A copy that is exiled from the stack, by an effect
that ends the turn or the combat phase, ceases to exist at the next check of state-based
actions (704.5e): that is what 724.1c and 724.2c perform.
"""

from __future__ import annotations

from typing import Any

from turnproof.model.magic.core import Item
from turnproof.model.packs import KindSpec, Pack
from turnproof.model.schema import Term


def _spells(b: Any) -> set[int]:
    return {play.kind for play in b.setup.cast.values()}


def _a_spell_to_copy(s: Any, x: Any, b: Any, p: Term) -> Term:
    """The top of the stack is a spell (cast from a hand)."""
    top = x.seq_top(s.stack)
    return x.And(x.Not(x.seq_is_empty(s.stack)), x.Or(*(top.what == k for k in _spells(b))))


def _resolve(s: Any, x: Any, b: Any, *, me: Any) -> Any:
    """a copy of the spell below it goes on the stack, controlled by Twincast's controller; if
    that spell is gone, Twincast does nothing (608.2b)"""
    top = x.seq_top(s.stack)
    there = x.And(x.Not(x.seq_is_empty(s.stack)), x.Or(*(top.what == k for k in _spells(b))))
    x.within(x.Or(x.Not(there), x.Not(x.seq_is_full(s.stack))), "stack")
    copy = Item(s.res.ctrl, top.what, top.n, False, True)
    return s.replace(stack=x.when(there, lambda st: x.seq_push(st, copy), s.stack))


CARD = Pack(
    key="twincast",
    name="Twincast",
    text="Instant. Copy target instant or sorcery spell. You may choose new targets for the copy.",
    kinds=(KindSpec("TWINCAST", "Twincast"),),
    resolve={"TWINCAST": _resolve},
    cast={"TWINCAST": _a_spell_to_copy},
    zones=("hand",),
    module=__name__,
)
