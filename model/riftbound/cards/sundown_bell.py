"""Sundown Bell (abstract): an "at the end of turn" effect. "At the end of your turn, draw 1."

It triggers as the ending step begins (317.1); its chain is resolved before the expiration step
(317.2) begins.
"""

from __future__ import annotations

from typing import Any

from turnproof.model.packs import KindSpec, Pack
from turnproof.model.riftbound.core import draw, fire, kinds
from turnproof.model.schema import Term


def _end_of_turn(s: Any, x: Any, b: Any, *, me: Any, p: Term) -> Any:
    return fire(s, x, b, p == me.controller, me.controller, kinds(b).T_BELL)


def _trigger(s: Any, x: Any, b: Any, *, me: Any) -> Any:
    """its controller draws a card"""
    return draw(s, x, b, s.res.ctrl)


CARD = Pack(
    key="sundown-bell",
    name="Sundown Bell",
    text="Gear. At the end of your turn, draw 1.",
    abstract=True,
    kinds=(
        KindSpec("T_BELL", "Sundown Bell's 'at the end of your turn' trigger", traits=("trigger",)),
    ),
    resolve={"T_BELL": _trigger},
    hooks={"end_of_turn": _end_of_turn},
    zones=("board",),
    each=False,
    sources=("RB 317.1",),
    module=__name__,
)
