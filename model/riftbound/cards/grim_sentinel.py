"""Grim Sentinel (abstract): a unit with a Deathknell. "Might 1. Deathknell — Draw 1." (when I
die, draw 1)

Deathknell abilities trigger in a cleanup, before the lethally damaged units die (323.3); the
trigger goes on the chain as a pending item (320: a cleanup may add pending items, but executes
none), and, opened in a showdown's Open state, its chain keeps Focus (346.1).
"""

from __future__ import annotations

from typing import Any

from turnproof.model.packs import KindSpec, Pack
from turnproof.model.properties import Mutant
from turnproof.model.riftbound.core import Zone, draw, enters, fire, kinds, slot_of
from turnproof.model.riftbound.properties import trigger_fires_exactly_when
from turnproof.model.rules import ReplaceHook
from turnproof.model.schema import Term


def _dies(s: Any, x: Any, b: Any, *, me: Any, slot: int, cond: Term) -> Any:
    if slot != slot_of(b, kinds(b).GRIM_SENTINEL):
        return s
    return fire(s, x, b, cond, me.controller, kinds(b).T_GRIM)


def _trigger(s: Any, x: Any, b: Any, *, me: Any) -> Any:
    """its controller draws a card"""
    return draw(s, x, b, s.res.ctrl)


def _any_death(s: Any, x: Any, b: Any, *, me: Any, slot: int, cond: Term) -> Any:
    """A mutant's hook: the Deathknell fires when any unit dies."""
    return _dies(s, x, b, me=me, slot=slot_of(b, kinds(b).GRIM_SENTINEL), cond=cond)


def _i_died(s: Any, t: Any, r: Any, x: Any, b: Any) -> Term:
    """Grim Sentinel died: it went from the board to the trash (323.3)."""
    k = slot_of(b, kinds(b).GRIM_SENTINEL)
    return x.And(s.perm[k].zone == Zone.BOARD, t.perm[k].zone == Zone.TRASH)


CARD = Pack(
    key="grim-sentinel",
    name="Grim Sentinel",
    text="Unit (might 1). Deathknell — Draw 1.",
    abstract=True,
    kinds=(
        KindSpec(
            "GRIM_SENTINEL",
            "Grim Sentinel (a unit)",
            traits=("card", "unit"),
            stats=(("might", 1),),
        ),
        KindSpec("T_GRIM", "Grim Sentinel's Deathknell trigger", traits=("trigger",)),
    ),
    resolve={"GRIM_SENTINEL": enters, "T_GRIM": _trigger},
    cast={"GRIM_SENTINEL": None},
    hooks={"dies": _dies},
    zones=("board", "hand"),
    properties=(
        trigger_fires_exactly_when(
            "grim-sentinel-deathknell-fires-when-it-dies",
            "Grim Sentinel's Deathknell fires for its controller when Grim Sentinel dies "
            "(323.3), and when no other unit does",
            "grim-sentinel",
            "T_GRIM",
            _i_died,
            ("RB 323.3",),
        ),
    ),
    mutants=(
        Mutant(
            "deathknell-on-any-death",
            "a Deathknell ('when I die') read as 'when a unit dies'",
            (
                ReplaceHook(
                    "grim-sentinel", "dies", _any_death, "the Deathknell fires on any death"
                ),
            ),
            ("grim-sentinel-deathknell-fires-when-it-dies",),
        ),
    ),
    each=False,
    sources=("RB 323.3",),
    module=__name__,
)
