"""Rielle, the Everwise: "Whenever you discard one or more cards for the first time each turn,
draw that many cards."

In the cleanup step it makes 514.3a happen: the trigger waits, players get priority, and another
cleanup step discards again without a new trigger (ruling CU-02; XMage RielleTheEverwiseTest).
"""

from __future__ import annotations

from typing import Any

from turnproof.model.magic.core import draw, each, fire, kinds, per_player
from turnproof.model.packs import Field, KindSpec, Pack
from turnproof.model.schema import BoolDomain, Term


def _discard(s: Any, x: Any, b: Any, *, me: Any, p: int, count: Term, cond: Term) -> Any:
    t = s
    if me.controller is None or me.controller == p:
        first = x.And(cond, x.Not(s.discarded[p]))
        t = fire(t, x, b, first, p, kinds(b).T_RIELLE, count)
    return t.replace(discarded=x.set(t.discarded, p, x.If(cond, True, t.discarded[p])))


def _resolve(s: Any, x: Any, b: Any, *, me: Any) -> Any:
    """its controller draws as many cards as they discarded"""
    return draw(s, x, b, s.res.ctrl, s.res.n, most=b.hand_cap)


CARD = Pack(
    key="rielle-the-everwise",
    name="Rielle, the Everwise",
    text="Creature. Whenever you discard one or more cards for the first time each turn, draw "
    "that many cards.",
    kinds=(KindSpec("T_RIELLE", "Rielle's discard trigger"),),
    fields=(
        Field(
            "discarded",
            per_player(BoolDomain()),
            "a player has discarded this turn",
            each(False),
            ends="turn",
        ),
    ),
    hooks={"discard": _discard},
    resolve={"T_RIELLE": _resolve},
    sources=("shared/examples/rulings.md CU-02", "XMage RielleTheEverwiseTest, #12090"),
    module=__name__,
)
