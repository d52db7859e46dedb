"""Silence: an instant with a "this turn" effect, which ends at 514.2 (611.2a, 514.2).

Only its duration is modelled here: the count of its effects in force.
"""

from __future__ import annotations

from typing import Any

from turnproof.model.magic.core import add_effect
from turnproof.model.packs import Field, KindSpec, Pack
from turnproof.model.schema import IntRange


def _resolve(s: Any, x: Any, b: Any, *, me: Any) -> Any:
    """a 'this turn' effect begins"""
    return s.replace(silence=add_effect(x, s.silence, b))


CARD = Pack(
    key="silence",
    name="Silence",
    text="Instant. Your opponents can't cast spells this turn.",
    kinds=(KindSpec("SILENCE", "Silence (an instant with a 'this turn' effect)"),),
    fields=(
        Field(
            "silence",
            lambda b: IntRange(0, b.effects),
            "'this turn' effects in force",
            lambda b: 0,
            ends="cleanup",
        ),
    ),
    resolve={"SILENCE": _resolve},
    cast={"SILENCE": None},
    zones=("hand",),
    module=__name__,
)
