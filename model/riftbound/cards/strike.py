"""Strike (abstract): a plain spell. "Action. Deal 3 to a unit. Draw 1." (cost 1)

The spell of rulings RB-01 (played in a Neutral Open state, it closes the state, is finalized,
and waits for the passes), RB-05 (a trigger that fires as it draws waits until it has finished)
and RB-06 (countered, it is not played and its cost is not refunded). Its target is chosen as it
is finalized (355); one that has left the board when it resolves is skipped (359.3.e).
"""

from __future__ import annotations

from typing import Any

from turnproof.model.packs import KindSpec, Pack, resolution_name
from turnproof.model.properties import Mutant
from turnproof.model.riftbound.core import Stage, deal, draw
from turnproof.model.rules import derive


def _resolve(s: Any, x: Any, b: Any, *, me: Any, again: bool = False) -> Any:
    """3 damage to its target unit, then its controller draws a card"""
    t = draw(deal(s, x, b, s.res.tgt, 3), x, b, s.res.ctrl)
    # ``again``: a mutant's, whose Strike stays resolving and follows its instructions again.
    return t.replace(stage=Stage.RESOLVING) if again else t


CARD = Pack(
    key="strike",
    name="Strike",
    text="Action spell (cost 1). Deal 3 to a unit. Draw 1.",
    abstract=True,
    kinds=(
        KindSpec(
            "STRIKE",
            "Strike (an Action spell: 3 damage to a unit, then draw 1)",
            traits=("card", "spell", "action", "targets-unit"),
            stats=(("cost", 1),),
        ),
    ),
    resolve={"STRIKE": _resolve},
    cast={"STRIKE": None},
    zones=("hand",),
    mutants=(
        Mutant(
            "strike-resolves-again",
            "340 misread: Strike, having followed its instructions, stays resolving and "
            "follows them again",
            (
                derive(
                    resolution_name("STRIKE"),
                    "MUTANT: Strike stays resolving and resolves again",
                    again=True,
                ),
            ),
            ("an-item-follows-its-instructions-once",),
        ),
    ),
    sources=("shared/examples/rulings.md RB-01, RB-05, RB-06",),
    module=__name__,
)
