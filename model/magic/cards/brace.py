"""Brace (abstract): an instant, cast only during combat, with an "until end of combat" effect.

The effect ends as the combat phase ends (500.5, 511.3), or when an effect ends the turn during
combat (724.1d) or ends the combat phase (724.2d).
"""

from __future__ import annotations

from typing import Any

from turnproof.model.magic.core import add_effect, in_combat
from turnproof.model.packs import Field, KindSpec, Pack
from turnproof.model.schema import IntRange


def _resolve(s: Any, x: Any, b: Any, *, me: Any) -> Any:
    """an 'until end of combat' effect begins"""
    return s.replace(brace=add_effect(x, s.brace, b))


CARD = Pack(
    key="brace",
    name="Brace",
    text="Instant. Cast this spell only during combat. Target creature gets +0/+1 until end of "
    "combat.",
    abstract=True,
    kinds=(KindSpec("BRACE", "Brace (an instant with an 'until end of combat' effect)"),),
    fields=(
        Field(
            "brace",
            lambda b: IntRange(0, b.effects),
            "'until end of combat' effects in force",
            lambda b: 0,
            ends="combat",
        ),
    ),
    resolve={"BRACE": _resolve},
    cast={"BRACE": in_combat},
    zones=("hand",),
    module=__name__,
)
