"""Day's Undoing: "Each player shuffles their hand and graveyard into their library, then draws
seven cards. If it's your turn, end the turn."

The draws are made during the resolution, so the triggers they cause (Sphinx's Tutelage) are
waiting before the end-the-turn process begins, and cease to exist (724.1a; ruling ET-03).
"""

from __future__ import annotations

from typing import Any

from turnproof.model.magic.core import Proc, active, begin_process, draw
from turnproof.model.packs import KindSpec, Pack


def _resolve(s: Any, x: Any, b: Any, *, me: Any) -> Any:
    """each player's hand becomes seven new cards; on its controller's turn, the turn ends (724.1)"""
    t = s
    for p in range(b.players):
        t = t.replace(hand=x.set(t.hand, p, 0))  # shuffled away, then seven drawn
        t = draw(t, x, b, p, 7, most=7)
    return x.If(s.res.ctrl == active(s, b), begin_process(t, Proc.END_TURN), t)


CARD = Pack(
    key="days-undoing",
    name="Day's Undoing",
    text="Each player shuffles their hand and graveyard into their library, then draws seven "
    "cards. If it's your turn, end the turn.",
    kinds=(KindSpec("UNDOING", "Day's Undoing"),),
    resolve={"UNDOING": _resolve},
    tags=("ends the turn",),
    cast={"UNDOING": None},
    zones=("hand",),
    sources=("shared/examples/rulings.md ET-03", "XMage EndTurnEffectTest.testSpellsAffinity"),
    module=__name__,
)
