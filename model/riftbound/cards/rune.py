"""Rune (abstract): each player's rune. "Exhaust: Add 1 energy." (an Add ability)

The ability goes on the chain as a pending item and resolves the moment it is finalized
(337.1.c, 400.2). Its cost, exhausting the rune, is paid as it is activated (nothing in the model
readies or exhausts a rune between its activation and its finalization). A chain that it opens in a
showdown keeps Focus where it was (346.1). It is Reaction-speed: its controller may use it
whenever they may play a Reaction. The rune readies as its controller's turn starts (315.1).
"""

from __future__ import annotations

from typing import Any

from turnproof.model.packs import Field, KindSpec, Pack
from turnproof.model.riftbound.core import Stage, activate, each, kinds, per_player, prio
from turnproof.model.rules import Kind, rule
from turnproof.model.schema import BoolDomain, Term


@rule(
    "RB 400.2",
    "the player with priority (or who may act) activates their rune's Add ability: it goes on "
    "the chain as a pending item",
    kind=Kind.CHOICE,
    decider=prio,
    when={"stage": (Stage.OPEN, Stage.PRIORITY)},
)
def activate_rune(s: Any, x: Any, b: Any, *, me: Any) -> Any:
    p = s.prio
    x.require(me.controls(p))
    x.require(x.get(s.rune_ready, p))
    t = activate(s, x, b, kinds(b).RUNE_ADD)
    return t.replace(rune_ready=x.set(t.rune_ready, p, False))


def _resolve(s: Any, x: Any, b: Any, *, me: Any) -> Any:
    """1 energy is added to its controller's pool"""
    c = s.res.ctrl
    now = x.get(s.pool, c)
    x.within(now + 1 <= b.energy, "energy")
    return s.replace(pool=x.set(s.pool, c, now + 1))


def _awaken(s: Any, x: Any, b: Any, *, me: Any, p: Term) -> Any:
    if me.controller is not None and me.controller != p:
        return s
    return s.replace(rune_ready=x.set(s.rune_ready, p, True))


CARD = Pack(
    key="rune",
    name="Rune",
    text="Rune. Exhaust: Add 1 energy.",
    abstract=True,
    kinds=(
        KindSpec(
            "RUNE_ADD",
            "a rune's Add ability ('exhaust: add 1 energy')",
            traits=("add", "reaction"),
        ),
    ),
    fields=(
        Field("rune_ready", per_player(BoolDomain()), "each player's rune is ready", each(True)),
    ),
    rules=(activate_rune,),
    resolve={"RUNE_ADD": _resolve},
    hooks={"awaken": _awaken},
    zones=("board",),
    module=__name__,
)
