"""Boneyard Wurm: "Boneyard Wurm's power and toughness are each equal to the number of creature
cards in your graveyard."

A second creature of its controller's, counted apart from the one each player has: it lives as
long as its controller's graveyard holds a creature card (704.5f), which the other creature's
death adds. When Day's Undoing shuffles the graveyards away, it is 0/0, and the end-the-turn
process's state-based actions put it into the graveyard (724.1c); a "whenever a creature dies"
trigger (Blood Artist) then fires during the process, is kept (724.1a does not apply to it), and
goes on the stack in the cleanup step, where players get priority (724.1f).
"""

from __future__ import annotations

from typing import Any

from turnproof.model.magic.core import hooks
from turnproof.model.packs import Field, Pack
from turnproof.model.rules import BoundSpec
from turnproof.model.schema import BoolDomain, IntRange, Term

KEY = "boneyard-wurm"


def _dies(s: Any, x: Any) -> Term:
    return x.And(s.wurm_here, s.wurm_gy <= 0)


def _sba_applies(s: Any, x: Any, b: Any, *, me: Any) -> Term:
    return _dies(s, x)


def _sba(s: Any, x: Any, b: Any, *, me: Any, t: Any) -> Any:
    """704.5f: with no creature card in its controller's graveyard, it is 0/0 and dies; and
    going there, it is one (the dies triggers see it)."""
    dies = _dies(s, x)
    t = t.replace(wurm_here=x.If(dies, False, s.wurm_here))
    for f in hooks(b, "dies"):  # a creature dies: the cards that watch deaths trigger
        t = f(t, x, b, p=me.controller, cond=dies)
    return t


def _counts(s: Any, x: Any, b: Any, *, me: Any, p: int, cond: Term) -> Any:
    """Its controller's creature died: one more creature card in their graveyard."""
    if p != me.controller:
        return s
    more = x.And(cond, s.wurm_gy < b.graveyard)
    return s.replace(wurm_gy=x.If(more, s.wurm_gy + 1, s.wurm_gy))


def _shuffled(s: Any, x: Any, b: Any, *, me: Any, p: int) -> Any:
    if p != me.controller:
        return s
    return s.replace(wurm_gy=0)


CARD = Pack(
    key=KEY,
    name="Boneyard Wurm",
    text="Creature (*/*). Boneyard Wurm's power and toughness are each equal to the number of "
    "creature cards in your graveyard.",
    fields=(
        Field("wurm_here", BoolDomain(), "Boneyard Wurm is on the battlefield", lambda b: True),
        Field(
            "wurm_gy",
            lambda b: IntRange(0, b.graveyard),
            "creature cards in its controller's graveyard (its power and toughness)",
            lambda b: b.graveyard,
        ),
    ),
    bounds=(
        BoundSpec("graveyard", 1, 1, 3, "creature cards in Boneyard Wurm's controller's graveyard"),
    ),
    hooks={
        "sba_applies": _sba_applies,
        "sba": _sba,
        "dies": _counts,
        "graveyard_shuffled": _shuffled,
    },
    each=False,
    module=__name__,
)
