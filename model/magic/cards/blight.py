"""Blight (abstract): "Put a -1/-1 counter on target creature an opponent controls."

A -1/-1 counter lowers power and toughness until it is gone (it annihilates with a +1/+1
counter, 704.5q); a creature left with toughness 0 or less dies (704.5f).
"""

from __future__ import annotations

from typing import Any

from turnproof.model.kit.players import next_player
from turnproof.model.packs import KindSpec, Pack


def _resolve(s: Any, x: Any, b: Any, *, me: Any) -> Any:
    """a -1/-1 counter on the opponent's creature"""
    o = next_player(s.res.ctrl, b.players)
    here = x.get(s.alive, o)
    now = x.get(s.minus, o)
    x.within(x.Or(x.Not(here), now + 1 <= b.counters), "counters")
    return s.replace(minus=x.set(s.minus, o, x.If(here, now + 1, now)))


CARD = Pack(
    key="blight",
    name="Blight",
    text="Instant. Put a -1/-1 counter on target creature an opponent controls.",
    abstract=True,
    kinds=(KindSpec("BLIGHT", "Blight"),),
    resolve={"BLIGHT": _resolve},
    cast={"BLIGHT": None},
    zones=("hand",),
    module=__name__,
)
