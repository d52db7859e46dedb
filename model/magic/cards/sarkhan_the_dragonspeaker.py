"""Sarkhan, the Dragonspeaker: "+1: Until end of turn, Sarkhan, the Dragonspeaker becomes a
legendary 4/4 red Dragon creature with flying, indestructible, and haste. (He doesn't lose
loyalty while he's not a planeswalker.)"

The seed situation of this project (with Sundial of the Infinite, ruling ET-07): damage dealt to
him while he is a creature is marked on him (120.3e), and 514.2 removes it in the same instant as
his animation ends, so it never costs loyalty; damage dealt to him as a planeswalker removes
loyalty (120.3c), whether a spell's (Shock) or an attacking creature's (the opponent may attack
him, 506.3). A planeswalker with no loyalty goes to the graveyard (704.5i); an animated Sarkhan
is not a planeswalker, and he is indestructible. Animated, he could attack too, but with flying
no creature here can block him and damage to players is not modelled, so his attack changes
nothing this model looks at and is left out."""

from __future__ import annotations

from typing import Any

from turnproof.model.kit.players import is_one_of
from turnproof.model.magic.core import (
    ATTACKS_PLANESWALKER,
    Stage,
    Step,
    active,
    defender,
    kinds,
    prio,
)
from turnproof.model.magic.core import Item as StackItem
from turnproof.model.magic.properties import FOR_ALL, kind_on_stack, put_on_stack
from turnproof.model.packs import Field, KindSpec, Pack
from turnproof.model.properties import Mutant, step
from turnproof.model.rules import BoundSpec, DeriveHook, Kind, ReplaceHook, derive, rule
from turnproof.model.schema import BoolDomain, IntRange, Term

KEY = "sarkhan-the-dragonspeaker"


@rule(
    "MTG 606.3",
    "Sarkhan's controller activates his +1 loyalty ability (main phase, empty stack, own turn, "
    "once per turn); the loyalty is paid at once (602.2b), and they keep priority",
    kind=Kind.CHOICE,
    decider=prio,
    when={"stage": Stage.PRIORITY},
)
def activate_sarkhan(
    s: Any, x: Any, b: Any, *, me: Any, once_per_turn: bool = True, main_phase: bool = True
) -> Any:
    c = me.controller
    x.require(x.And(s.sark_here, s.prio == c, active(s, b) == c))
    if once_per_turn:
        x.require(x.Not(s.sark_used))
    if main_phase:  # a main phase, with an empty stack
        x.require(x.Or(s.step == Step.MAIN1, s.step == Step.MAIN2))
        x.require(x.seq_is_empty(s.stack))
    x.require(s.used[c] < b.actions)
    # His loyalty grows by one a turn at the most: the domain holds his starting loyalty plus
    # one per turn, and a rule that went beyond would be cut here, not silently lost.
    x.within(s.sark_loyalty + 1 <= b.loyalty + b.turns, "loyalty")
    return s.replace(
        stack=x.seq_push(s.stack, StackItem(c, kinds(b).SARKHAN, 0, False, False)),
        sark_loyalty=s.sark_loyalty + 1,
        sark_used=True,
        used=x.set(s.used, c, s.used[c] + 1),
        stage=Stage.CHECK,
        passes=0,
    )


def _loyalty_ability(s: Any, t: Any, r: Any, x: Any, b: Any, m: Any) -> Term:
    """As 606.3 says: his controller activates it with priority, in a main phase of their
    turn, with an empty stack; its cost puts a loyalty counter on him (606.4)."""
    c = b.setup.card(KEY).controller
    ok = x.And(
        s.sark_here,
        s.stage == Stage.PRIORITY,
        s.prio == c,
        active(s, b) == c,
        x.seq_top(t.stack).ctrl == c,
        is_one_of(x, s.step, Step.MAIN1, Step.MAIN2),
        x.seq_is_empty(s.stack),
        t.sark_loyalty == s.sark_loyalty + 1,
    )
    return x.Implies(put_on_stack(s, t, x, kinds(b).SARKHAN), ok)


def _resolve(s: Any, x: Any, b: Any, *, me: Any) -> Any:
    """Sarkhan becomes a 4/4 Dragon creature until end of turn"""
    return s.replace(sark_anim=s.sark_here)


def _dies(s: Any, x: Any) -> Term:
    """704.5i: no loyalty, and a planeswalker (not while he is a creature only)."""
    return x.And(s.sark_here, x.Not(s.sark_anim), s.sark_loyalty == 0)


def _sba_applies(s: Any, x: Any, b: Any, *, me: Any) -> Term:
    return _dies(s, x)


def _sba(s: Any, x: Any, b: Any, *, me: Any, t: Any) -> Any:
    return t.replace(sark_here=x.If(_dies(s, x), False, s.sark_here))


def _planeswalker(s: Any, x: Any, b: Any, *, me: Any, p: Term) -> Term:
    """He can be attacked as a planeswalker of his controller's (not while he is a creature:
    then he is no planeswalker)."""
    return x.And(p == me.controller, s.sark_here, x.Not(s.sark_anim))


def _anyones(s: Any, x: Any, b: Any, *, me: Any, p: Term) -> Term:
    """A mutant's hook: he counts as a planeswalker of every player's, his controller's
    opponents' too."""
    return x.And(s.sark_here, x.Not(s.sark_anim))


def _attacked_as_the_defenders(s: Any, t: Any, r: Any, x: Any, b: Any, m: Any) -> Term:
    """A creature is declared attacking a planeswalker (Sarkhan, the one planeswalker of the
    model) only when he is on the battlefield, no creature, and controlled by the defending
    player (506.3, 508.1b)."""
    declares = x.And(s.step == Step.ATTACKERS, s.stage == Stage.BEGIN, t.stage != Stage.BEGIN)
    ctrl = b.setup.card(KEY).controller
    theirs = True if ctrl is None else defender(s, b) == ctrl
    at_him = x.And(declares, t.attacking == ATTACKS_PLANESWALKER)
    return x.Implies(at_him, x.And(theirs, s.sark_here, x.Not(s.sark_anim)))


def _attacked(s: Any, x: Any, b: Any, *, me: Any, t: Any, p: Term, amount: Term, cond: Term) -> Any:
    """Combat damage dealt to him as a planeswalker removes that much loyalty (120.3c)."""
    hit = x.And(cond, p == me.controller, s.sark_here, x.Not(s.sark_anim))
    return t.replace(sark_loyalty=x.If(hit, x.Max(s.sark_loyalty - amount, 0), s.sark_loyalty))


def _targetable(s: Any, x: Any, b: Any, *, me: Any, p: Term) -> Term:
    return s.sark_here


def _damaged(s: Any, x: Any, b: Any, *, me: Any, amount: int) -> Any:
    """Damage dealt to him: marked, while he is a creature (120.3e); else it removes loyalty
    (120.3c)."""
    x.within(x.Or(x.Not(s.sark_anim), s.sark_dmg + amount <= b.damage), "damage")
    return s.replace(
        sark_dmg=x.If(s.sark_anim, s.sark_dmg + amount, s.sark_dmg),
        sark_loyalty=x.If(s.sark_anim, s.sark_loyalty, x.Max(s.sark_loyalty - amount, 0)),
    )


def _cleanup(s: Any, x: Any, b: Any, *, me: Any, t: Any, simultaneous: bool = True) -> Any:
    """514.2: his animation ends and his marked damage is removed in the same instant, so the
    damage never counts against his loyalty. Not simultaneously (a wrong engine), the damage
    would meet a planeswalker and remove loyalty (120.3c)."""
    if simultaneous:
        return t
    return t.replace(sark_loyalty=x.Max(s.sark_loyalty - s.sark_dmg, 0))


CARD = Pack(
    key=KEY,
    name="Sarkhan, the Dragonspeaker",
    text="Legendary Planeswalker (loyalty 4). +1: Until end of turn, Sarkhan, the Dragonspeaker "
    "becomes a legendary 4/4 red Dragon creature with flying, indestructible, and haste. (He "
    "doesn't lose loyalty while he's not a planeswalker.)",
    kinds=(KindSpec("SARKHAN", "Sarkhan's +1 ability"),),
    fields=(
        Field("sark_here", BoolDomain(), "Sarkhan is on the battlefield", lambda b: True),
        Field(
            "sark_loyalty",
            lambda b: IntRange(0, b.loyalty + b.turns),
            "Sarkhan's loyalty counters",
            lambda b: b.loyalty,
        ),
        Field(
            "sark_anim",
            BoolDomain(),
            "his +1: a 4/4 Dragon creature until end of turn",
            lambda b: False,
            ends="cleanup",
        ),
        Field(
            "sark_dmg",
            lambda b: IntRange(0, b.damage),
            "damage marked on him while he is a creature (120.3e)",
            lambda b: 0,
            ends="cleanup",
        ),
        Field(
            "sark_used",
            BoolDomain(),
            "a loyalty ability of his was activated this turn (606.3)",
            lambda b: False,
            ends="turn",
        ),
    ),
    bounds=(BoundSpec("loyalty", 4, 1, 7, "Sarkhan's starting loyalty"),),
    counters={"loyalty": "loyalty"},
    rules=(activate_sarkhan,),
    resolve={"SARKHAN": _resolve},
    hooks={
        "sba_applies": _sba_applies,
        "sba": _sba,
        "planeswalker": _planeswalker,
        "planeswalker_damage": _attacked,
        "cleanup": _cleanup,
    },
    targets={"SARKHAN": ("Sarkhan, the Dragonspeaker", _targetable, _damaged)},
    properties=(
        step(
            "creature-damage-never-costs-loyalty",
            "Sarkhan loses loyalty only to damage dealt to him while he is a planeswalker; "
            "damage marked on him as a creature ends with his animation at 514.2 (ET-07)",
            lambda s, t, r, x, b, m: x.Implies(t.sark_loyalty < s.sark_loyalty, x.Not(s.sark_anim)),
            antecedent=lambda s, x, b, m: x.And(s.sark_anim, s.sark_dmg > 0),
            citations=("MTG 514.2", "MTG 120.3c", "MTG 120.3e"),
            for_all=FOR_ALL,
        ),
        step(
            "sarkhan-loyalty-ability-as-a-sorcery",
            "Sarkhan's +1 is activated only by his controller, with priority in a main phase of "
            "their turn and an empty stack, and its cost puts a loyalty counter on him",
            _loyalty_ability,
            antecedent=kind_on_stack("SARKHAN"),
            citations=("MTG 606.3", "MTG 606.4", "MTG 602.2"),
            for_all=FOR_ALL,
        ),
        step(
            "sarkhan-is-attacked-only-as-the-defenders-planeswalker",
            "a creature attacks Sarkhan only as a planeswalker the defending player controls: "
            "his controller's opponent's creature, while he is on the battlefield and not a "
            "creature (506.3, 508.1b)",
            _attacked_as_the_defenders,
            antecedent=lambda s, x, b, m: x.And(s.step == Step.ATTACKERS, s.stage == Stage.BEGIN),
            citations=("MTG 506.3", "MTG 508.1b"),
            for_all=FOR_ALL,
        ),
    ),
    mutants=(
        Mutant(
            "sarkhan-attackable-by-his-controller",
            "'a planeswalker the defending player controls' misread: Sarkhan can be attacked "
            "by his own controller's creature",
            (ReplaceHook(KEY, "planeswalker", _anyones, "he is every player's planeswalker"),),
            ("sarkhan-is-attacked-only-as-the-defenders-planeswalker",),
        ),
        Mutant(
            "damage-after-animation",
            "514.2 not simultaneous: Sarkhan's marked damage outlives his animation and costs "
            "loyalty",
            (DeriveHook(KEY, "cleanup", (("simultaneous", False),)),),
            ("creature-damage-never-costs-loyalty",),
        ),
        Mutant(
            "loyalty-at-instant-speed",
            "Sarkhan's +1 can be activated whenever his controller has priority on their turn, "
            "in any step and in response",
            (derive("activate_sarkhan", "MUTANT: any step, any stack", main_phase=False),),
            ("sarkhan-loyalty-ability-as-a-sorcery",),
        ),
    ),
    each=False,
    sources=("shared/seeds (Sarkhan and Sundial)", "shared/examples/rulings.md ET-07"),
    module=__name__,
)
