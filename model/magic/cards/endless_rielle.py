"""Endless Rielle (hypothetical): Rielle, the Everwise without "for the first time each turn".

"Whenever you discard one or more cards, draw that many cards." No such card is printed; it is
the pattern of a card that keeps creating triggers. In the cleanup step each discard triggers,
the trigger draws the cards back, and 514.3a begins another cleanup step that discards again:
cleanup never ends (a loop that players can only leave by acting in its priority windows).
"""

from __future__ import annotations

from typing import Any

from turnproof.model.magic.core import draw, fire, kinds
from turnproof.model.packs import KindSpec, Pack
from turnproof.model.schema import Term


def _discard(s: Any, x: Any, b: Any, *, me: Any, p: int, count: Term, cond: Term) -> Any:
    if me.controller is not None and me.controller != p:
        return s
    return fire(s, x, b, cond, p, kinds(b).T_ENDLESS, count)


def _resolve(s: Any, x: Any, b: Any, *, me: Any) -> Any:
    """its controller draws as many cards as they discarded"""
    return draw(s, x, b, s.res.ctrl, s.res.n, most=b.hand_cap)


CARD = Pack(
    key="endless-rielle",
    name="Endless Rielle",
    text="Creature. Whenever you discard one or more cards, draw that many cards.",
    abstract=True,
    kinds=(KindSpec("T_ENDLESS", "Endless Rielle's discard trigger"),),
    hooks={"discard": _discard},
    resolve={"T_ENDLESS": _resolve},
    module=__name__,
)
