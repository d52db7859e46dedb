"""Freeze (abstract): tap the opponent's creature; it doesn't untap during its controller's
next untap step (502.3; the pattern of Kiora Bests the Sea God's chapter II, ruling SG-12)."""

from __future__ import annotations

from typing import Any

from turnproof.model.kit.players import next_player
from turnproof.model.packs import KindSpec, Pack


def _resolve(s: Any, x: Any, b: Any, *, me: Any) -> Any:
    """the opponent's creature taps, and doesn't untap during its controller's next untap step"""
    opponent = next_player(s.res.ctrl, b.players)
    return s.replace(tapped=x.set(s.tapped, opponent, True), frozen=x.set(s.frozen, opponent, True))


CARD = Pack(
    key="freeze",
    name="Freeze",
    text="Instant. Tap target creature an opponent controls. It doesn't untap during its "
    "controller's next untap step.",
    abstract=True,
    kinds=(KindSpec("FREEZE", "Freeze (an instant: tap; no untap next untap step)"),),
    resolve={"FREEZE": _resolve},
    cast={"FREEZE": None},
    zones=("hand",),
    module=__name__,
)
