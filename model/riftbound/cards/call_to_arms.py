"""Call to Arms (abstract): a spell whose resolution plays another card. "Play a unit from your
hand, ignoring its cost. Draw 1." (cost 0)

The seed's second example: the unit goes on the existing chain as a pending item while the spell
still resolves (the verb "play"); the spell draws and finishes; then the outstanding tasks are
handled and the unit is finalized, which resolves it at once (337.1.c), and its own play effect
becomes a pending item of its own. Without a unit in hand the spell just draws.
"""

from __future__ import annotations

from typing import Any

from turnproof.model.packs import KindSpec, Pack
from turnproof.model.riftbound.core import draw, play_from_hand


def _resolve(s: Any, x: Any, b: Any, *, me: Any) -> Any:
    """its controller plays a unit from their hand (it goes on the chain, pending), then draws"""
    c = s.res.ctrl
    return draw(play_from_hand(s, x, b, c, "unit"), x, b, c)


CARD = Pack(
    key="call-to-arms",
    name="Call to Arms",
    text="Spell (cost 0). Play a unit from your hand, ignoring its cost. Draw 1.",
    abstract=True,
    kinds=(KindSpec("CALL", "Call to Arms (a spell that plays a unit)", traits=("card", "spell")),),
    resolve={"CALL": _resolve},
    cast={"CALL": None},
    zones=("hand",),
    sources=("shared/seeds/002 (a unit played during a spell's resolution)",),
    module=__name__,
)
