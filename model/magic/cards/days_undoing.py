"""Day's Undoing: "Each player shuffles their hand and graveyard into their library, then draws
seven cards. If it's your turn, end the turn."

A sorcery (307.1): cast in its controller's main phase, on an empty stack, so the turn it ends
is always its controller's. The draws are made during the resolution, so the triggers they cause
(Sphinx's Tutelage) are waiting before the end-the-turn process begins, and cease to exist
(724.1a; ruling ET-03). The graveyards go too: a creature that counts them (Boneyard Wurm) dies
in the process's state-based actions (724.1c).
"""

from __future__ import annotations

from typing import Any

from turnproof.model.magic.core import Proc, active, begin_process, draw, hooks, sorcery_timing
from turnproof.model.packs import KindSpec, Pack


def _resolve(s: Any, x: Any, b: Any, *, me: Any) -> Any:
    """each player shuffles their hand and graveyard into their library and draws seven; on its
    controller's turn, the turn ends (724.1)"""
    t = s
    for p in range(b.players):
        t = t.replace(hand=x.set(t.hand, p, 0))  # shuffled away, then seven drawn
        for f in hooks(b, "graveyard_shuffled"):
            t = f(t, x, b, p=p)
    for p in range(b.players):
        t = draw(t, x, b, p, 7, most=7)
    return x.If(s.res.ctrl == active(s, b), begin_process(t, Proc.END_TURN), t)


CARD = Pack(
    key="days-undoing",
    name="Day's Undoing",
    text="Sorcery. Each player shuffles their hand and graveyard into their library, then draws "
    "seven cards. If it's your turn, end the turn.",
    kinds=(KindSpec("UNDOING", "Day's Undoing"),),
    resolve={"UNDOING": _resolve},
    tags=("ends the turn",),
    cast={"UNDOING": sorcery_timing},
    zones=("hand",),
    sources=("shared/examples/rulings.md ET-03", "XMage EndTurnEffectTest.testSpellsAffinity"),
    module=__name__,
)
