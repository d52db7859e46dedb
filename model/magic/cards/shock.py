"""Shock: "Shock deals 2 damage to any target." Here: to the opponent's creature.

Damage is marked on the creature (120.3e); lethal damage is a state-based action (704.5g).
"""

from __future__ import annotations

from typing import Any

from turnproof.model.kit.players import next_player
from turnproof.model.packs import KindSpec, Pack


def _resolve(s: Any, x: Any, b: Any, *, me: Any) -> Any:
    """2 damage is marked on the opponent's creature (120.3e)"""
    opponent = next_player(s.res.ctrl, b.players)
    hit = x.get(s.alive, opponent)
    now = x.get(s.dmg, opponent)
    x.within(x.Or(x.Not(hit), now + 2 <= b.damage), "damage")
    return s.replace(dmg=x.set(s.dmg, opponent, x.If(hit, now + 2, now)))


CARD = Pack(
    key="shock",
    name="Shock",
    text="Instant. Shock deals 2 damage to any target (here: the opponent's creature).",
    kinds=(KindSpec("SHOCK", "Shock (an instant: 2 damage to the opponent's creature)"),),
    resolve={"SHOCK": _resolve},
    cast={"SHOCK": None},
    zones=("hand",),
    module=__name__,
)
