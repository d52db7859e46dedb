"""Lost Turn (abstract): "Instant. Target player skips their next turn." (500.11)

The pattern of the cards that skip turns. Two such effects on one player make them skip two
turns (614.10); the card's bound ``skips`` is the most a player can have waiting. A turn that is
skipped is not taken: the turn after it begins instead, and an effect that controls the player's
next turn keeps waiting for the next turn they actually take (723.1b).
"""

from __future__ import annotations

from typing import Any

from turnproof.model.magic.core import Stage, cast_spell, kinds, prio
from turnproof.model.packs import Field, KindSpec, Pack
from turnproof.model.properties import Mutant
from turnproof.model.rules import BoundSpec, DeriveHook, Kind, rule
from turnproof.model.schema import ArrayDomain, IntRange, Term


@rule(
    "MTG 601.2c",
    "a player casts Lost Turn, an instant, targeting a player; they keep priority (117.3c)",
    kind=Kind.CHOICE,
    decider=prio,
    params={"target": lambda b: range(b.players)},
    when={"stage": Stage.PRIORITY},
)
def cast_lost_turn(s: Any, x: Any, b: Any, target: int, *, me: Any) -> Any:
    x.require(me.controls(s.prio))
    return cast_spell(s, x, b, kinds(b).LOST_TURN, target)


def _resolve(s: Any, x: Any, b: Any, *, me: Any) -> Any:
    """the target player will skip their next turn (one more turn to skip, 614.10)"""
    now = x.get(s.skips, s.res.n)
    x.within(now + 1 <= b.skips, "skips")
    return s.replace(skips=x.set(s.skips, s.res.n, now + 1))


def _turn_begins(
    s: Any, x: Any, b: Any, *, me: Any, nxt: Term, keeps_control: bool = True
) -> tuple[Any, Term]:
    """The turns that are skipped, from ``nxt`` on: each uses up one of its player's skips
    (500.11); the game ends when the turns run out."""
    skips = s.skips
    ctrl_next = s.ctrl_next
    for _ in range(b.players * b.skips):
        who = nxt % b.players
        left = x.get(skips, who)
        skipped = x.And(nxt < b.turns, left > 0)
        skips = x.set(skips, who, x.If(skipped, left - 1, left))
        if not keeps_control:  # as if the skipped turn were the controlled one
            ctrl_next = x.set(ctrl_next, who, x.If(skipped, 0, x.get(ctrl_next, who)))
        nxt = x.If(skipped, nxt + 1, nxt)
    return s.replace(skips=skips, ctrl_next=ctrl_next), nxt


CARD = Pack(
    key="lost-turn",
    name="Lost Turn",
    text="Instant. Target player skips their next turn.",
    abstract=True,
    kinds=(KindSpec("LOST_TURN", "Lost Turn (an instant: target player skips their next turn)"),),
    fields=(
        Field(
            "skips",
            lambda b: ArrayDomain(IntRange(0, b.skips), b.players),
            "turns each player will skip (500.11, 614.10)",
            lambda b: (0,) * b.players,
        ),
    ),
    bounds=(BoundSpec("skips", 1, 1, 3, "the most turns a player can have waiting to be skipped"),),
    rules=(cast_lost_turn,),
    resolve={"LOST_TURN": _resolve},
    hooks={"turn_begins": _turn_begins},
    tags=("skips turns",),
    zones=("hand",),
    mutants=(
        Mutant(
            "skip-consumes-control",
            "a skipped turn uses up the control effect waiting for it, as if it had been taken "
            "(the opposite of 723.1b)",
            (
                DeriveHook(
                    "lost-turn",
                    "turn_begins",
                    (("keeps_control", False),),
                    "MUTANT: a skipped turn ends the control effect waiting for it",
                ),
            ),
            ("skipped-turn-keeps-control",),
            cards=(("lost-turn", None), ("mindslaver", None)),
        ),
    ),
    sources=("MTG 500.11, 614.10, 723.1b", "shared/examples/rulings.md MS-03"),
    module=__name__,
)
