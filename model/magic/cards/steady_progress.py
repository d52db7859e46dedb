"""Steady Progress: "Proliferate. Draw a card." (701.34)

As it resolves its controller chooses any of the permanents and players that have counters, and
each gets one more of each kind of counter it already has (701.34a): here the Sagas in play
(one more lore counter, which triggers a chapter it crosses as any placement does, 714.2b) and
the players' creatures (+1/+1 and -1/-1 counters). The choice is one number, a set of those as
bits (the Sagas in key order, then each player's creature); only things that have counters can
be chosen. Players have no counters in the model, and Sarkhan's loyalty is not proliferated.
"""

from __future__ import annotations

from typing import Any

from turnproof.model.magic.core import Stage, draw, kinds, sorcery_timing
from turnproof.model.magic.sagas import put_lore, sagas
from turnproof.model.packs import KindSpec, Pack
from turnproof.model.rules import Kind, rule
from turnproof.model.schema import Term


def _controller(s: Any, x: Any, b: Any, **_: Any) -> Term:
    """the controller of the resolving Steady Progress"""
    return s.res.ctrl


def _choices(b: Any) -> range:
    return range(2 ** (len(sagas(b)) + b.players))


@rule(
    "MTG 701.34a",
    "Steady Progress resolves: its controller chooses any of the Sagas and creatures that have "
    "counters, and each gets one more of each kind it has (a Saga's chapter it crosses "
    "triggers, 714.2b); then they draw a card",
    kind=Kind.CHOICE,
    decider=_controller,
    params={"chosen": _choices},
    when={"stage": Stage.RESOLVING},
)
def proliferate(s: Any, x: Any, b: Any, chosen: int, *, me: Any) -> Any:
    x.require(s.res.what == kinds(b).STEADY_PROGRESS)
    bit = iter(range(64))
    chosen_sagas: dict[str, Term] = {}
    for card, spec in sagas(b):
        if chosen >> next(bit) & 1:
            x.require(x.And(spec.on(s), spec.lore(s) > 0))
            chosen_sagas[card.key] = True
    plus, minus = s.plus, s.minus
    for p in range(b.players):
        if chosen >> next(bit) & 1:
            x.require(x.And(s.alive[p], x.Or(s.plus[p] > 0, s.minus[p] > 0)))
            x.within(x.And(s.plus[p] < b.counters, s.minus[p] < b.counters), "counters")
            plus = x.set(plus, p, x.If(s.plus[p] > 0, s.plus[p] + 1, s.plus[p]))
            minus = x.set(minus, p, x.If(s.minus[p] > 0, s.minus[p] + 1, s.minus[p]))
    t = s.replace(plus=plus, minus=minus, stage=Stage.RESOLVED)
    if chosen_sagas:
        t = put_lore(t, x, b, chosen_sagas)
    return draw(t, x, b, s.res.ctrl)


CARD = Pack(
    key="steady-progress",
    name="Steady Progress",
    text="Sorcery. Proliferate. (Choose any number of permanents and/or players, then give each "
    "another counter of each kind already there.) Draw a card.",
    kinds=(KindSpec("STEADY_PROGRESS", "Steady Progress (a sorcery: proliferate, draw a card)"),),
    rules=(proliferate,),
    resolves_itself=("STEADY_PROGRESS",),
    cast={"STEADY_PROGRESS": sorcery_timing},
    zones=("hand",),
    sources=("MTG 701.34a", "MTG 714.2b"),
    module=__name__,
)
