"""Mindslaver: "{4}, {T}, Sacrifice Mindslaver: You control target player's next turn.
Activate only as a sorcery." (723)

The seed situation on controlling another player (its questions quote the old rule 507, today's
723). The ability targets any player, its activator included (723.9: a player who controls their
own turn decides as usual). It resolves into an effect that waits for that player's next turn
actually taken (723.1b) and replaces any effect already waiting for it (723.1a); the core makes
it apply from that turn's untap step to its last cleanup step, and ends it as the next turn
begins (723.1).
"""

from __future__ import annotations

from typing import Any

from turnproof.model.magic.core import (
    Stage,
    activate,
    control_next_turn,
    kinds,
    prio,
    sorcery_timing,
)
from turnproof.model.packs import Field, KindSpec, Pack
from turnproof.model.properties import Mutant
from turnproof.model.rules import Derive, Kind, rule
from turnproof.model.schema import ArrayDomain, BoolDomain


def _ready(b: Any) -> tuple[bool, ...]:
    me = b.setup.card("mindslaver")
    return tuple(bool(me.controls(p)) for p in range(b.players))


@rule(
    "MTG 602.2",
    "a player activates Mindslaver ({T}, sacrifice it: 'you control target player's next "
    "turn') as a sorcery (307.1), targeting a player; they keep priority (117.3c)",
    kind=Kind.CHOICE,
    decider=prio,
    params={"target": lambda b: range(b.players)},
    when={"stage": Stage.PRIORITY},
)
def activate_mindslaver(s: Any, x: Any, b: Any, target: int, *, me: Any) -> Any:
    p = s.prio
    x.require(x.get(s.mindslaver, p))
    x.require(sorcery_timing(s, x, b, p))
    t = s.replace(mindslaver=x.set(s.mindslaver, p, False))  # sacrificed as a cost
    return activate(t, x, b, kinds(b).MINDSLAVER, target)


def _resolve(s: Any, x: Any, b: Any, *, me: Any, latest: bool = True) -> Any:
    """its controller will control the target player's next turn (723.1)"""
    return control_next_turn(s, x, b, s.res.n, s.res.ctrl, latest=latest)


def _controls(item: Any, x: Any, b: Any) -> tuple[tuple[Any, Any], ...]:
    return ((item.n, item.ctrl),)


CARD = Pack(
    key="mindslaver",
    name="Mindslaver",
    text="Legendary Artifact. {4}, {T}, Sacrifice Mindslaver: You control target player's next "
    "turn. Activate only as a sorcery.",
    kinds=(KindSpec("MINDSLAVER", "Mindslaver's ability"),),
    fields=(
        Field(
            "mindslaver",
            lambda b: ArrayDomain(BoolDomain(), b.players),
            "a player has Mindslaver on the battlefield, not yet sacrificed",
            _ready,
        ),
    ),
    rules=(activate_mindslaver,),
    resolve={"MINDSLAVER": _resolve},
    tags=("controls turns",),
    declares={"controls": {"MINDSLAVER": _controls}},
    mutants=(
        Mutant(
            "first-control-wins",
            "a control effect does not replace one already waiting for the same turn: the "
            "first one created wins (the opposite of 723.1a)",
            (
                Derive(
                    "resolve_mindslaver",
                    "MUTANT: Mindslaver's effect leaves an effect already waiting in place",
                    (("latest", False),),
                ),
                Derive(
                    "resolve_cruel",
                    "MUTANT: Cruel Entertainment's effects leave effects already waiting in place",
                    (("latest", False),),
                ),
            ),
            ("last-control-effect-wins",),
            bounds={"actions": 2},
            cards=(("mindslaver", 0), ("cruel-entertainment", None)),
        ),
    ),
    sources=(
        "shared/seeds (Mindslaver's questions and the old rule 507)",
        "shared/examples/rulings.md MS-01, MS-03, MS-04",
    ),
    module=__name__,
)
