"""Cruel Entertainment: "Choose target player and another target player. The first player
controls the second player during their next turn, and the second player controls the first
player during their next turn." (723)

A second card that controls turns, and one that creates two control effects at once. It is a
sorcery (307.1), cast with its own rule because it targets two players; the target pair is the
spell's number (``n``: the pair's index among the pairs of players, in order).
"""

from __future__ import annotations

from itertools import combinations
from typing import Any

from turnproof.model.magic.core import (
    Stage,
    cast_spell,
    control_next_turn,
    kinds,
    prio,
    sorcery_timing,
)
from turnproof.model.packs import KindSpec, Pack
from turnproof.model.rules import Kind, rule


def pairs(players: int) -> list[tuple[int, int]]:
    """The pairs of distinct players the spell can target, in the order of its numbers."""
    return list(combinations(range(players), 2))


@rule(
    "MTG 601.2c",
    "a player casts Cruel Entertainment, a sorcery (307.1), targeting two players; they keep "
    "priority (117.3c)",
    kind=Kind.CHOICE,
    decider=prio,
    params={"pair": lambda b: range(len(pairs(b.players)))},
    when={"stage": Stage.PRIORITY},
)
def cast_cruel_entertainment(s: Any, x: Any, b: Any, pair: int, *, me: Any) -> Any:
    x.require(me.controls(s.prio))
    x.require(sorcery_timing(s, x, b, s.prio))
    return cast_spell(s, x, b, kinds(b).CRUEL, pair)


def _resolve(s: Any, x: Any, b: Any, *, me: Any, latest: bool = True) -> Any:
    """each target player will control the other during the other's next turn (723.1)"""
    t = s
    for i, (p, q) in enumerate(pairs(b.players)):
        chosen = s.res.n == i
        both = control_next_turn(
            control_next_turn(t, x, b, q, p, latest=latest), x, b, p, q, latest=latest
        )
        t = x.If(chosen, both, t)
    return t


def _controls(item: Any, x: Any, b: Any) -> tuple[tuple[Any, Any], ...]:
    out: list[tuple[Any, Any]] = []
    for i, (p, q) in enumerate(pairs(b.players)):
        chosen = item.n == i
        out.append((x.If(chosen, q, -1), p))
        out.append((x.If(chosen, p, -1), q))
    return tuple(out)


CARD = Pack(
    key="cruel-entertainment",
    name="Cruel Entertainment",
    text="Sorcery. Choose target player and another target player. The first player controls "
    "the second player during their next turn, and the second player controls the first player "
    "during their next turn.",
    kinds=(KindSpec("CRUEL", "Cruel Entertainment"),),
    rules=(cast_cruel_entertainment,),
    resolve={"CRUEL": _resolve},
    tags=("controls turns",),
    declares={"controls": {"CRUEL": _controls}},
    zones=("hand",),
    sources=("MTG 723.1, 723.1a",),
    module=__name__,
)
