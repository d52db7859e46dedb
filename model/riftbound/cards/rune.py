"""Rune (abstract): each player's rune. "Exhaust: Add 1 energy." (an Add ability)

The ability goes on the chain as a pending item and resolves the moment it is finalized
(337.1.c, 400.2). Its cost, exhausting the rune, is paid as it is activated (nothing in the model
readies or exhausts a rune between its activation and its finalization). A chain that it opens in a
showdown keeps Focus where it was (346.1). It is Reaction-speed: its controller may use it
whenever they may play a Reaction. The rune readies as its controller's turn starts (315.1).
"""

from __future__ import annotations

from typing import Any

from turnproof.model.kit.players import active
from turnproof.model.packs import Field, KindSpec, Pack
from turnproof.model.properties import Mutant, step
from turnproof.model.riftbound.core import Phase, Stage, activate, each, kinds, per_player, prio
from turnproof.model.riftbound.properties import FOR_ALL
from turnproof.model.rules import Kind, ReplaceHook, derive, rule
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
    exhausts their ready rune to activate it (400.2); a rune readies only in the start phase of
    its controller's turn, and it is ready once that turn has started (its awaken, 315.1)."""
    top = x.seq_top(t.chain)
    joined = x.And(t.chain.length > s.chain.length, top.what == kinds(b).RUNE_ADD)
    c = top.ctrl
    spent = x.And(c == s.prio, x.get(s.rune_ready, c), x.Not(x.get(t.rune_ready, c)))
    a = active(s, b)
    readied = [
        x.Implies(
            x.And(x.Not(x.get(s.rune_ready, p)), x.get(t.rune_ready, p)),
            x.And(t.phase == Phase.START, a == p),
        )
        for p in range(b.players)
    ]
    # As a turn starts (its awaken, 315.1), the turn player's rune is ready, if it is theirs.
    starts = x.And(s.phase == Phase.START, s.stage == Stage.BEGIN, t.stage != Stage.BEGIN)
    ctrl = b.setup.card(KEY).controller
    theirs = True if ctrl is None else a == ctrl
    awake = x.Implies(x.And(starts, theirs), x.get(t.rune_ready, a))
    return x.And(x.Implies(joined, spent), awake, *readied)


def _never_readies(s: Any, x: Any, b: Any, *, me: Any, p: Term) -> Any:
    """A mutant's hook: nothing readies the rune as its controller's turn starts."""
    return s


KEY = "rune"

CARD = Pack(
    key=KEY,
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
            "act) exhausts their ready rune to activate it (400.2); it readies again as their "
            "turn starts, and only then (315.1)",
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
        Mutant(
            "rune-never-readies",
            "315.1 overlooked for the rune: an exhausted rune stays exhausted in its controller's "
            "next turn",
            (ReplaceHook(KEY, "awaken", _never_readies, "nothing readies the rune"),),
            ("a-rune-is-exhausted-to-add-energy",),
            bounds={"turns": 2},  # the second turn's start shows it
        ),
    ),
    zones=("board",),
    module=__name__,
)
