"""Shock: "Shock deals 2 damage to any target." Here: the opponent's creature, or any other
target a card in play offers (a planeswalker): ``cast(card=SHOCK)`` is cast at the creature,
``cast(card=SHOCK_AT_SARKHAN)`` at Sarkhan.

Damage is marked on a creature (120.3e); lethal damage is a state-based action (704.5g); damage
to a planeswalker removes loyalty (120.3c).
"""

from __future__ import annotations

from typing import Any

from turnproof.model.kit.players import next_player
from turnproof.model.magic.core import Stage, kinds
from turnproof.model.magic.properties import FOR_ALL
from turnproof.model.packs import KindSpec, Pack
from turnproof.model.properties import Mutant, step
from turnproof.model.rules import derive
from turnproof.model.schema import Term


def _resolve(s: Any, x: Any, b: Any, *, me: Any, amount: int = 2) -> Any:
    """2 damage to its target: marked on the opponent's creature (120.3e), or dealt to the
    planeswalker or other target it was cast at"""

    def at_creature() -> Any:
        opponent = next_player(s.res.ctrl, b.players)
        hit = x.get(s.alive, opponent)
        now = x.get(s.dmg, opponent)
        x.within(x.Or(x.Not(hit), now + amount <= b.damage), "damage")
        return s.replace(dmg=x.set(s.dmg, opponent, x.If(hit, now + amount, now)))

    targets = b.setup.damage_targets
    table = {
        i: (lambda t=t: t.deal(s, x, b, amount=amount)) for i, t in enumerate(targets, start=1)
    }
    return x.cases(s.res.n, table, at_creature)


def _at_the_creature(s: Any, x: Any, b: Any) -> Term:
    """Shock is the resolving object, cast at the opponent's creature."""
    return x.And(s.res.what == kinds(b).SHOCK, s.res.n == 0)


def _deals_two(s: Any, t: Any, r: Any, x: Any, b: Any, m: Any) -> Term:
    """As Shock resolves at the opponent's creature, 2 damage is marked on it, if it is still
    on the battlefield (else Shock does not resolve, 608.2b)."""
    opponent = next_player(s.res.ctrl, b.players)
    now = x.get(s.dmg, opponent)
    dealt = x.get(t.dmg, opponent) == now + x.If(x.get(s.alive, opponent), 2, 0)
    return x.Implies(x.And(s.stage == Stage.RESOLVING, _at_the_creature(s, x, b)), dealt)


def _damage_marked(s: Any, x: Any, b: Any, m: Any) -> Term:
    """Shock has just resolved at the creature, whose damage includes Shock's 2."""
    opponent = next_player(s.res.ctrl, b.players)
    return x.And(s.stage == Stage.RESOLVED, _at_the_creature(s, x, b), x.get(s.dmg, opponent) >= 2)


CARD = Pack(
    key="shock",
    name="Shock",
    text="Instant. Shock deals 2 damage to any target (here: the opponent's creature).",
    kinds=(KindSpec("SHOCK", "Shock (an instant: 2 damage to the opponent's creature)"),),
    resolve={"SHOCK": _resolve},
    cast={"SHOCK": None},
    aims={"SHOCK": "damage"},
    zones=("hand",),
    properties=(
        step(
            "shock-deals-2-damage",
            "Shock resolving at the opponent's creature marks 2 damage on it",
            _deals_two,
            antecedent=_damage_marked,
            citations=("MTG 120.3e", "MTG 608.2c", "MTG 608.2b"),
            for_all=FOR_ALL,
        ),
    ),
    mutants=(
        Mutant(
            "shock-deals-1-damage",
            "Shock deals 1 damage",
            (derive("resolve_shock", "MUTANT: 1 damage", amount=1),),
            ("shock-deals-2-damage",),
        ),
    ),
    module=__name__,
)
