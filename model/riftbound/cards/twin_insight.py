"""Twin Insight (abstract): a spell with two reflexive triggers. "Do this: draw 1. Do this: draw
1." (cost 0; 386-388)

The seed's first example: each "Do this:" creates a separate draw ability while the spell
resolves; both are added, in the order written, and wait until the spell has finished (401.2);
then they are finalized oldest first (337.1.b), players may respond to them, and the newest
resolves first (340).
"""

from __future__ import annotations

from typing import Any

from turnproof.model.packs import KindSpec, Pack
from turnproof.model.riftbound.core import draw, fire, kinds


def _resolve(s: Any, x: Any, b: Any, *, me: Any) -> Any:
    """two reflexive draw abilities, in order"""
    c = s.res.ctrl
    t = fire(s, x, b, True, c, kinds(b).T_INSIGHT)
    return fire(t, x, b, True, c, kinds(b).T_INSIGHT)


def _trigger(s: Any, x: Any, b: Any, *, me: Any) -> Any:
    """its controller draws a card"""
    return draw(s, x, b, s.res.ctrl)


CARD = Pack(
    key="twin-insight",
    name="Twin Insight",
    text="Spell (cost 0). Do this: draw 1. Do this: draw 1.",
    abstract=True,
    kinds=(
        KindSpec(
            "INSIGHT", "Twin Insight (a spell with two reflexive draws)", traits=("card", "spell")
        ),
        KindSpec("T_INSIGHT", "a reflexive 'draw 1' of Twin Insight", traits=("trigger",)),
    ),
    resolve={"INSIGHT": _resolve, "T_INSIGHT": _trigger},
    cast={"INSIGHT": None},
    zones=("hand",),
    sources=("shared/seeds/002 (the two reflexive draws)", "RB 386-388"),
    module=__name__,
)
