"""Grim Sentinel (abstract): a unit with a Deathknell. "Might 1. Deathknell — Draw 1." (when I
die, draw 1)

Deathknell abilities trigger in a cleanup, before the lethally damaged units die (323.3); the
trigger goes on the chain as a pending item (320: a cleanup may add pending items, but executes
none), and, opened in a showdown's Open state, its chain keeps Focus (346.1).
"""

from __future__ import annotations

from typing import Any

from turnproof.model.packs import KindSpec, Pack
from turnproof.model.riftbound.core import draw, enters, fire, kinds, slot_of
from turnproof.model.schema import Term


def _dies(s: Any, x: Any, b: Any, *, me: Any, slot: int, cond: Term) -> Any:
    if slot != slot_of(b, kinds(b).GRIM_SENTINEL):
        return s
    return fire(s, x, b, cond, me.controller, kinds(b).T_GRIM)


def _trigger(s: Any, x: Any, b: Any, *, me: Any) -> Any:
    """its controller draws a card"""
    return draw(s, x, b, s.res.ctrl)


CARD = Pack(
    key="grim-sentinel",
    name="Grim Sentinel",
    text="Unit (might 1). Deathknell — Draw 1.",
    abstract=True,
    kinds=(
        KindSpec(
            "GRIM_SENTINEL",
            "Grim Sentinel (a unit)",
            traits=("card", "unit"),
            stats=(("might", 1),),
        ),
        KindSpec("T_GRIM", "Grim Sentinel's Deathknell trigger", traits=("trigger",)),
    ),
    resolve={"GRIM_SENTINEL": enters, "T_GRIM": _trigger},
    cast={"GRIM_SENTINEL": None},
    hooks={"dies": _dies},
    zones=("board", "hand"),
    each=False,
    sources=("RB 323.3",),
    module=__name__,
)
