"""Time Stop: "End the turn. (Exile all spells and abilities from the stack, including this card.
The player whose turn it is discards down to their maximum hand size. Damage wears off, and
'this turn' and 'until end of turn' effects end.)"

An instant that ends the turn from the stack (724.1), on any player's turn: its own resolution
is exiled with the rest of the stack (724.1b); a copy of it (Twincast) ceases to exist at
724.1c's state-based actions (704.5e).
"""

from __future__ import annotations

from typing import Any

from turnproof.model.magic.core import Proc, begin_process
from turnproof.model.packs import KindSpec, Pack


def _resolve(s: Any, x: Any, b: Any, *, me: Any) -> Any:
    """the turn ends (724.1)"""
    return begin_process(s, Proc.END_TURN)


CARD = Pack(
    key="time-stop",
    name="Time Stop",
    text="Instant. End the turn.",
    kinds=(KindSpec("TIME_STOP", "Time Stop"),),
    resolve={"TIME_STOP": _resolve},
    cast={"TIME_STOP": None},
    tags=("ends the turn",),
    zones=("hand",),
    module=__name__,
)
