"""Claim (abstract): an instant with an indefinite effect, such as a control change (611.2a:
with no stated duration, it lasts until the end of the game)."""

from __future__ import annotations

from typing import Any

from turnproof.model.magic.core import add_effect
from turnproof.model.packs import Field, KindSpec, Pack
from turnproof.model.schema import IntRange


def _resolve(s: Any, x: Any, b: Any, *, me: Any) -> Any:
    """an indefinite effect begins"""
    return s.replace(claim=add_effect(x, s.claim, b))


CARD = Pack(
    key="claim",
    name="Claim",
    text="Instant. Gain control of target permanent (an effect with no duration).",
    abstract=True,
    kinds=(KindSpec("CLAIM", "Claim (an instant with an indefinite effect)"),),
    fields=(
        Field(
            "claim",
            lambda b: IntRange(0, b.effects),
            "indefinite effects in force",
            lambda b: 0,
        ),
    ),
    resolve={"CLAIM": _resolve},
    cast={"CLAIM": None},
    zones=("hand",),
    module=__name__,
)
