"""Blood Artist: "Whenever Blood Artist or another creature dies, target player loses 1 life
and you gain 1 life." (603.2; 704.5g puts creatures with lethal damage into the graveyard)"""

from __future__ import annotations

from typing import Any

from turnproof.model.magic.core import fire, kinds
from turnproof.model.packs import KindSpec, Pack
from turnproof.model.schema import Term


def _dies(s: Any, x: Any, b: Any, *, me: Any, p: int, cond: Term) -> Any:
    owners = range(b.players) if me.controller is None else (me.controller,)
    t = s
    for c in owners:
        t = fire(t, x, b, cond, c, kinds(b).T_DIES)
    return t


CARD = Pack(
    key="blood-artist",
    name="Blood Artist",
    text="Creature. Whenever Blood Artist or another creature dies, target player loses 1 life "
    "and you gain 1 life.",
    kinds=(KindSpec("T_DIES", "Blood Artist's 'whenever a creature dies' trigger"),),
    hooks={"dies": _dies},
    module=__name__,
)
