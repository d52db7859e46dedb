"""Fiery Temper: "Fiery Temper deals 3 damage to any target. Madness {R} (If you discard this
card, discard it into exile. When you do, cast it for its madness cost or put it into your
graveyard.)" (702.35)

Its holder discards it in the cleanup step when they discard down to their maximum hand size
(514.1; of the cards discarded, the model lets it be one of them whenever they discard), so
the madness trigger is waiting in that cleanup step: players get priority (514.3a), and as the
trigger resolves its controller may cast Fiery Temper from exile; it deals its 3 damage to the
opponent's creature, and another cleanup step follows. It is not cast from the hand here.
"""

from __future__ import annotations

from typing import Any

from turnproof.model.kit.players import next_player
from turnproof.model.magic.core import Item, Stage, fire, kinds
from turnproof.model.packs import Field, KindSpec, Pack
from turnproof.model.rules import Kind, rule
from turnproof.model.schema import BoolDomain, Term


def _discard(s: Any, x: Any, b: Any, *, me: Any, p: int, count: Term, cond: Term) -> Any:
    if me.controller != p:
        return s
    into_exile = x.And(cond, s.temper_held)
    t = fire(s, x, b, into_exile, p, kinds(b).T_MADNESS)
    return t.replace(temper_held=x.If(into_exile, False, s.temper_held))


def _controller(s: Any, x: Any, b: Any, **_: Any) -> Term:
    """the madness trigger's controller"""
    return s.res.ctrl


@rule(
    "MTG 702.35a",
    "Fiery Temper's madness trigger resolves: its controller casts it from exile for its "
    "madness cost, or puts it into their graveyard",
    kind=Kind.CHOICE,
    decider=_controller,
    params={"cast": (0, 1)},
    when={"stage": Stage.RESOLVING},
)
def madness(s: Any, x: Any, b: Any, cast: int, *, me: Any) -> Any:
    x.require(s.res.what == kinds(b).T_MADNESS)
    t = s.replace(stage=Stage.RESOLVED)
    if not cast:
        return t
    x.within(x.Not(x.seq_is_full(s.stack)), "stack")
    spell = Item(s.res.ctrl, kinds(b).FIERY_TEMPER, 0, False, False)
    return t.replace(stack=x.seq_push(s.stack, spell))


def _resolve(s: Any, x: Any, b: Any, *, me: Any) -> Any:
    """3 damage to the opponent's creature"""
    opponent = next_player(s.res.ctrl, b.players)
    hit = x.get(s.alive, opponent)
    now = x.get(s.dmg, opponent)
    x.within(x.Or(x.Not(hit), now + 3 <= b.damage), "damage")
    return s.replace(dmg=x.set(s.dmg, opponent, x.If(hit, now + 3, now)))


CARD = Pack(
    key="fiery-temper",
    name="Fiery Temper",
    text="Instant. Fiery Temper deals 3 damage to any target. Madness {R}",
    kinds=(
        KindSpec("FIERY_TEMPER", "Fiery Temper (cast for its madness cost)"),
        KindSpec("T_MADNESS", "Fiery Temper's madness trigger"),
    ),
    fields=(
        Field(
            "temper_held",
            BoolDomain(),
            "Fiery Temper is in its holder's hand (one of the cards counted there)",
            lambda b: True,
        ),
    ),
    rules=(madness,),
    resolve={"FIERY_TEMPER": _resolve},
    resolves_itself=("T_MADNESS",),
    hooks={"discard": _discard},
    zones=("hand",),
    each=False,
    module=__name__,
)
