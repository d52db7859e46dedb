"""Iron Ward (abstract): a gear. "Your units have +1 Might."

A gear is finalized and resolves at once, like a unit (337.1.c): it never waits on the chain.
"""

from __future__ import annotations

from typing import Any

from turnproof.model.packs import KindSpec, Pack
from turnproof.model.riftbound.core import enters, kinds, on_board, slot_of, slots


def _might(s: Any, x: Any, b: Any, *, me: Any, slot: int) -> Any:
    if slots(b)[slot].ctrl != me.controller:
        return 0
    return x.If(on_board(s, slot_of(b, kinds(b).IRON_WARD)), 1, 0)


CARD = Pack(
    key="iron-ward",
    name="Iron Ward",
    text="Gear. Your units have +1 Might.",
    abstract=True,
    kinds=(KindSpec("IRON_WARD", "Iron Ward (a gear)", traits=("card", "gear")),),
    resolve={"IRON_WARD": enters},
    cast={"IRON_WARD": None},
    hooks={"might": _might},
    zones=("hand", "board"),
    each=False,
    module=__name__,
)
