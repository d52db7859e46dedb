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
from turnproof.model.magic.properties import FOR_ALL, kind_on_stack, put_on_stack
from turnproof.model.packs import KindSpec, Pack
from turnproof.model.properties import Mutant, step
from turnproof.model.rules import Kind, Remove, derive, rule
from turnproof.model.schema import Term

KEY = "sundial-of-the-infinite"


@rule(
    "MTG 602.5d",
    "the active player activates Sundial of the Infinite ('activate only during your turn'), "
    "and keeps priority (117.3c)",
    kind=Kind.CHOICE,
    decider=prio,
    when={"stage": Stage.PRIORITY},
)
def activate_sundial(s: Any, x: Any, b: Any, *, me: Any, your_turn: bool = True) -> Any:
    p = s.prio
    if your_turn:
        x.require(p == active(s, b))
    x.require(me.controls(p))
    return activate(s, x, b, kinds(b).SUNDIAL)


def _during_your_turn(s: Any, t: Any, r: Any, x: Any, b: Any, m: Any) -> Term:
    """Its ability goes on the stack only as its controller activates it on their turn."""
    who = x.seq_top(t.stack).ctrl
    ok = x.And(who == active(s, b), b.setup.card(KEY).controls(who))
    return x.Implies(put_on_stack(s, t, x, kinds(b).SUNDIAL), ok)


def _resolve(s: Any, x: Any, b: Any, *, me: Any) -> Any:
    """the turn ends (724.1)"""
    return begin_process(s, Proc.END_TURN)


CARD = Pack(
    key=KEY,
    name="Sundial of the Infinite",
    text="Artifact. {1}, {T}: End the turn. Activate only during your turn.",
    kinds=(KindSpec("SUNDIAL", "Sundial of the Infinite's ability"),),
    rules=(activate_sundial,),
    tags=("ends the turn",),
    resolve={"SUNDIAL": _resolve},
    properties=(
        step(
            "sundial-only-during-your-turn",
            "Sundial of the Infinite's ability is activated only by its controller, during "
            "their own turn",
            _during_your_turn,
            antecedent=kind_on_stack("SUNDIAL"),
            citations=("MTG 602.5d", "MTG 602.2"),
            for_all=FOR_ALL,
        ),
    ),
    mutants=(
        Mutant(
            "sundial-on-any-turn",
            "Sundial of the Infinite can be activated on another player's turn",
            (derive("activate_sundial", "MUTANT: any turn", your_turn=False),),
            ("sundial-only-during-your-turn",),
        ),
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
