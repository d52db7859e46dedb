"""Shock: "Shock deals 2 damage to any target." Here: the opponent's creature, or any other
target a card in play offers (a planeswalker): ``cast(card=SHOCK)`` is cast at the creature,
``cast(card=SHOCK_AT_SARKHAN)`` at Sarkhan.

Damage is marked on a creature (120.3e); lethal damage is a state-based action (704.5g); damage
to a planeswalker removes loyalty (120.3c).
"""

from __future__ import annotations

from typing import Any

from turnproof.model.kit.players import next_player
from turnproof.model.packs import KindSpec, Pack


def _resolve(s: Any, x: Any, b: Any, *, me: Any) -> Any:
    """2 damage to its target: marked on the opponent's creature (120.3e), or dealt to the
    planeswalker or other target it was cast at"""

    def at_creature() -> Any:
        opponent = next_player(s.res.ctrl, b.players)
        hit = x.get(s.alive, opponent)
        now = x.get(s.dmg, opponent)
        x.within(x.Or(x.Not(hit), now + 2 <= b.damage), "damage")
        return s.replace(dmg=x.set(s.dmg, opponent, x.If(hit, now + 2, now)))

    targets = b.setup.damage_targets
    table = {i: (lambda t=t: t.deal(s, x, b, amount=2)) for i, t in enumerate(targets, start=1)}
    return x.cases(s.res.n, table, at_creature)


CARD = Pack(
    key="shock",
    name="Shock",
    text="Instant. Shock deals 2 damage to any target (here: the opponent's creature).",
    kinds=(KindSpec("SHOCK", "Shock (an instant: 2 damage to the opponent's creature)"),),
    resolve={"SHOCK": _resolve},
    cast={"SHOCK": None},
    aims={"SHOCK": "damage"},
    zones=("hand",),
    module=__name__,
)
