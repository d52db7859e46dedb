"""Denial (abstract): a Reaction counterspell. "Reaction. Counter a spell." (cost 1)

Ruling RB-06: the countered spell does nothing and leaves the chain; it was not played, so no
"when you play" ability triggers for it (425.1.b, 419.4.b), and its cost is not refunded
(425.1.c). It was finalized, though, so it counts for Legion (812.1.c).
"""

from __future__ import annotations

from typing import Any

from turnproof.model.packs import KindSpec, Pack
from turnproof.model.properties import Mutant
from turnproof.model.riftbound.core import cites, counter
from turnproof.model.rules import derive


@cites("RB 425.1")
def _resolve(s: Any, x: Any, b: Any, *, me: Any, counted: bool = False) -> Any:
    """its target spell is countered: it leaves the chain, not played, its cost not refunded"""
    return counter(s, x, b, counted=counted)


CARD = Pack(
    key="denial",
    name="Denial",
    text="Reaction spell (cost 1). Counter a spell.",
    abstract=True,
    kinds=(
        KindSpec(
            "DENIAL",
            "Denial (a Reaction spell: counter a spell)",
            traits=("card", "spell", "reaction", "targets-spell"),
            stats=(("cost", 1),),
        ),
    ),
    resolve={"DENIAL": _resolve},
    cast={"DENIAL": None},
    zones=("hand",),
    mutants=(
        Mutant(
            "countered-card-is-played",
            "425.1.b ignored: a countered card counts as played, so its play triggers fire",
            (
                derive(
                    "resolve_denial",
                    "MUTANT: the countered spell counts as played (its play triggers fire)",
                    counted=True,
                ),
            ),
            ("countered-card-fires-no-play-trigger",),
        ),
    ),
    sources=("shared/examples/rulings.md RB-06", "RB 425.1"),
    module=__name__,
)
