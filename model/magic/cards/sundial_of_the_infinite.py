"""Sundial of the Infinite: "{1}, {T}: End the turn. Activate only during your turn." (724.1)

The seed situation of this project: Sundial activated while Sarkhan, the Dragonspeaker is a
Dragon (ruling ET-07), and with more cards in hand than the maximum (ET-14).
"""

from __future__ import annotations

from typing import Any

from turnproof.model.magic.core import (
    Proc,
    Stage,
    activate,
    active,
    begin_process,
    kinds,
    prio,
)
from turnproof.model.packs import KindSpec, Pack
from turnproof.model.properties import Mutant
from turnproof.model.rules import Kind, Remove, rule


@rule(
    "MTG 602.5d",
    "the active player activates Sundial of the Infinite ('activate only during your turn'), "
    "and keeps priority (117.3c)",
    kind=Kind.CHOICE,
    decider=prio,
    when={"stage": Stage.PRIORITY},
)
def activate_sundial(s: Any, x: Any, b: Any, *, me: Any) -> Any:
    p = s.prio
    x.require(p == active(s, b))
    x.require(me.controls(p))
    return activate(s, x, b, kinds(b).SUNDIAL)


def _resolve(s: Any, x: Any, b: Any, *, me: Any) -> Any:
    """the turn ends (724.1)"""
    return begin_process(s, Proc.END_TURN)


CARD = Pack(
    key="sundial-of-the-infinite",
    name="Sundial of the Infinite",
    text="Artifact. {1}, {T}: End the turn. Activate only during your turn.",
    kinds=(KindSpec("SUNDIAL", "Sundial of the Infinite's ability"),),
    rules=(activate_sundial,),
    tags=("ends the turn",),
    resolve={"SUNDIAL": _resolve},
    mutants=(
        Mutant(
            "no-sundial",
            "the rule that lets the active player activate Sundial is missing",
            (Remove("activate_sundial"),),
            ("turn-ended-with-eot-effect",),
        ),
    ),
    sources=("shared/seeds (Sarkhan and Sundial)", "shared/examples/rulings.md ET-07, ET-14"),
    module=__name__,
)
