"""Pump (abstract): an instant whose effect lasts until end of turn (514.2).

"Target creature you control gets +1/+1 until end of turn." The +1/+1 adds to the power the
creature deals combat damage with (510.1a) and to the toughness lethal damage is measured
against (704.5g), until the cleanup step ends it.
"""

from __future__ import annotations

from typing import Any

from turnproof.model.magic.core import add_effect, each
from turnproof.model.packs import Field, KindSpec, Pack
from turnproof.model.schema import ArrayDomain, IntRange, Term


def _resolve(s: Any, x: Any, b: Any, *, me: Any) -> Any:
    """its controller's creature gets +1/+1 until end of turn"""
    c = s.res.ctrl
    return s.replace(pump=x.set(s.pump, c, add_effect(x, x.get(s.pump, c), b)))


def _boost(s: Any, x: Any, b: Any, *, me: Any, p: Term) -> Term:
    """+1/+1: as much to power as to toughness."""
    return x.get(s.pump, p)


CARD = Pack(
    key="pump",
    name="Pump",
    text="Instant. Target creature you control gets +1/+1 until end of turn.",
    abstract=True,
    kinds=(KindSpec("PUMP", "Pump (an instant: +1/+1 until end of turn)"),),
    fields=(
        Field(
            "pump",
            lambda b: ArrayDomain(IntRange(0, b.effects), b.players),
            "'+1/+1 until end of turn' effects on each player's creature",
            each(0),
            ends="cleanup",
        ),
    ),
    resolve={"PUMP": _resolve},
    cast={"PUMP": None},
    hooks={"toughness": _boost, "power": _boost},
    zones=("hand",),
    module=__name__,
)
