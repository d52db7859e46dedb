"""Mandate of Peace: "Cast this spell only during combat. Your opponents can't cast spells this
turn. End the combat phase." (724.2)"""

from __future__ import annotations

from typing import Any

from turnproof.model.magic.core import Proc, begin_process, in_combat, silence_opponents
from turnproof.model.packs import KindSpec, Pack


def _resolve(s: Any, x: Any, b: Any, *, me: Any) -> Any:
    """its controller's opponents can't cast spells this turn, and the combat phase ends
    (724.2)"""
    return begin_process(silence_opponents(s, x, b, s.res.ctrl), Proc.END_COMBAT)


CARD = Pack(
    key="mandate-of-peace",
    name="Mandate of Peace",
    text="Instant. Cast this spell only during combat. Your opponents can't cast spells this "
    "turn. End the combat phase.",
    kinds=(KindSpec("MANDATE", "Mandate of Peace"),),
    resolve={"MANDATE": _resolve},
    tags=("ends the combat phase",),
    cast={"MANDATE": in_combat},
    zones=("hand",),
    module=__name__,
)
