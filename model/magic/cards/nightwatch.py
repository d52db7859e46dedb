"""Nightwatch (abstract): "Flash. At the beginning of each end step, draw a card."

A permanent that enters the battlefield at instant speed, and a trigger on *each* end step (its
controller's or not, beside the End-Step Watcher's "your end step"). Cast during an end step,
it is on the battlefield too late for that step's trigger: the step doesn't back up, and it
first triggers at the next turn's end step (513.2).
"""

from __future__ import annotations

from typing import Any

from turnproof.model.magic.core import Step, draw, each, fire, kinds, per_player
from turnproof.model.packs import Field, KindSpec, Pack
from turnproof.model.schema import BoolDomain


def _enters(s: Any, x: Any, b: Any, *, me: Any) -> Any:
    """it enters the battlefield under its caster's control"""
    return s.replace(watching=x.set(s.watching, s.res.ctrl, True))


def _draws(s: Any, x: Any, b: Any, *, me: Any) -> Any:
    """its controller draws a card"""
    return draw(s, x, b, s.res.ctrl)


def _end_step(s: Any, x: Any, b: Any, *, me: Any, step: Step) -> Any:
    if step != Step.END:
        return s
    t = s
    for p in range(b.players):
        t = fire(t, x, b, s.watching[p], p, kinds(b).T_NIGHTWATCH)
    return t


CARD = Pack(
    key="nightwatch",
    name="Nightwatch",
    text="Creature. Flash. At the beginning of each end step, draw a card.",
    abstract=True,
    kinds=(
        KindSpec("NIGHTWATCH", "Nightwatch (a creature spell with flash)"),
        KindSpec("T_NIGHTWATCH", "Nightwatch's 'at the beginning of each end step' trigger"),
    ),
    fields=(
        Field(
            "watching",
            per_player(BoolDomain()),
            "a player controls Nightwatch on the battlefield",
            each(False),
        ),
    ),
    resolve={"NIGHTWATCH": _enters, "T_NIGHTWATCH": _draws},
    cast={"NIGHTWATCH": None},
    hooks={"step_begins": _end_step},
    zones=("hand",),
    module=__name__,
)
