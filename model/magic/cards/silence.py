"""Silence: "Your opponents can't cast spells this turn." (a "this turn" effect, 611.2a, that
ends at 514.2: in a cleanup step's priority window after it, they can cast again)"""

from __future__ import annotations

from typing import Any

from turnproof.model.magic.core import silence_opponents
from turnproof.model.packs import KindSpec, Pack


def _resolve(s: Any, x: Any, b: Any, *, me: Any) -> Any:
    """its controller's opponents can't cast spells this turn"""
    return silence_opponents(s, x, b, s.res.ctrl)


CARD = Pack(
    key="silence",
    name="Silence",
    text="Instant. Your opponents can't cast spells this turn.",
    kinds=(KindSpec("SILENCE", "Silence"),),
    resolve={"SILENCE": _resolve},
    cast={"SILENCE": None},
    zones=("hand",),
    module=__name__,
)
