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
from turnproof.model.properties import Mutant, step
from turnproof.model.riftbound.core import Phase, Stage, activate, each, kinds, per_player, prio
from turnproof.model.riftbound.properties import FOR_ALL
from turnproof.model.rules import Kind, derive, rule
from turnproof.model.schema import BoolDomain, Term


@rule(
    "RB 400.2",
    "the player with priority (or who may act) activates their rune's Add ability: it goes on "
    "the chain as a pending item",
    kind=Kind.CHOICE,
    decider=prio,
    when={"stage": (Stage.OPEN, Stage.PRIORITY)},
)
def activate_rune(s: Any, x: Any, b: Any, *, me: Any, exhaust: bool = True) -> Any:
    p = s.prio
    x.require(me.controls(p))
    x.require(x.get(s.rune_ready, p))
    t = activate(s, x, b, kinds(b).RUNE_ADD)
    if not exhaust:  # a mutant's: the rune stays ready
        return t
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


def _exhausted_to_add(s: Any, t: Any, r: Any, x: Any, b: Any, m: Any) -> Term:
    """A rune's Add ability joins the chain only as the player with priority (or who may act)
    exhausts their ready rune to activate it (400.2), and a rune readies only in the start
    phase (its awaken step, 315.1)."""
    top = x.seq_top(t.chain)
    joined = x.And(t.chain.length > s.chain.length, top.what == kinds(b).RUNE_ADD)
    c = top.ctrl
    spent = x.And(c == s.prio, x.get(s.rune_ready, c), x.Not(x.get(t.rune_ready, c)))
    readied = [
        x.Implies(
            x.And(x.Not(x.get(s.rune_ready, p)), x.get(t.rune_ready, p)), t.phase == Phase.START
        )
        for p in range(b.players)
    ]
    return x.And(x.Implies(joined, spent), *readied)


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
    properties=(
        step(
            "a-rune-is-exhausted-to-add-energy",
            "a rune's Add ability joins the chain only as the player with priority (or who may "
            "act) exhausts their ready rune to activate it (400.2); it readies again only as "
            "their turn starts (315.1)",
            _exhausted_to_add,
            antecedent=lambda s, x, b, m: x.get(s.rune_ready, s.prio),
            citations=("RB 400.2", "RB 315.1"),
            for_all=FOR_ALL,
        ),
    ),
    mutants=(
        Mutant(
            "rune-stays-ready",
            "400.2's cost forgotten: the rune's ability is activated and the rune stays ready",
            (derive("activate_rune", "MUTANT: the rune is not exhausted", exhaust=False),),
            ("a-rune-is-exhausted-to-add-energy",),
            bounds={"actions": 1},
        ),
    ),
    zones=("board",),
    module=__name__,
)
