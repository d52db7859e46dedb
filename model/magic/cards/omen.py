"""Omen (abstract): "At the beginning of the next end step, draw a card."

A delayed triggered ability (603.7): it triggers once, at the next end step (603.7b). One created
during an end step waits for the next turn's end step: the step doesn't back up (513.2).
"""

from __future__ import annotations

from typing import Any

from turnproof.model.magic.core import Step, draw, each, fire, kinds, per_player
from turnproof.model.packs import Field, KindSpec, Pack
from turnproof.model.schema import BoolDomain


def _resolve_omen(s: Any, x: Any, b: Any, *, me: Any) -> Any:
    """a delayed trigger is created: 'at the beginning of the next end step, draw a card'"""
    return s.replace(omen=x.set(s.omen, s.res.ctrl, True))


def _resolve_trigger(s: Any, x: Any, b: Any, *, me: Any) -> Any:
    """its controller draws a card"""
    return draw(s, x, b, s.res.ctrl)


def _end_step(s: Any, x: Any, b: Any, *, me: Any, step: Step) -> Any:
    if step != Step.END:
        return s
    t = s
    for p in range(b.players):
        t = fire(t, x, b, s.omen[p], p, kinds(b).T_OMEN)
    # A delayed trigger without a duration triggers once (603.7b).
    return t.replace(omen=(False,) * b.players)


CARD = Pack(
    key="omen",
    name="Omen",
    text="Instant. At the beginning of the next end step, draw a card.",
    abstract=True,
    kinds=(
        KindSpec("OMEN", "Omen (an instant that creates a delayed trigger)"),
        KindSpec("T_OMEN", "Omen's delayed 'next end step' trigger"),
    ),
    fields=(
        Field(
            "omen",
            per_player(BoolDomain()),
            "a player's 'at the beginning of the next end step' trigger is waiting to trigger",
            each(False),
        ),
    ),
    resolve={"OMEN": _resolve_omen, "T_OMEN": _resolve_trigger},
    cast={"OMEN": None},
    hooks={"step_begins": _end_step},
    zones=("hand",),
    module=__name__,
)
