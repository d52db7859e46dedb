"""Scholar's Tome (abstract): a draw trigger. "Gear. When you draw, deal 1 to an enemy unit."

Ruling RB-05: a draw made while a spell resolves fires it, and it waits until the spell has
finished (401.2); then it goes on the chain and is finalized, choosing its target. With no enemy
unit on the board it has no legal choice and leaves the chain as it is finalized, which is not
countering (402.3, 402.3.a). The Tome is on the board from the start and nothing in the model
moves it, so it is not followed as a permanent.
"""

from __future__ import annotations

from typing import Any

from turnproof.model.packs import KindSpec, Pack
from turnproof.model.properties import Mutant
from turnproof.model.riftbound.core import deal, fire, kinds
from turnproof.model.riftbound.properties import trigger_fires_exactly_when
from turnproof.model.rules import ReplaceHook
from turnproof.model.schema import Term


def _draw(s: Any, x: Any, b: Any, *, me: Any, p: Term, count: Term) -> Any:
    return fire(s, x, b, x.And(p == me.controller, count >= 1), me.controller, kinds(b).T_TOME)


def _trigger(s: Any, x: Any, b: Any, *, me: Any) -> Any:
    """1 damage to its target enemy unit"""
    return deal(s, x, b, s.res.tgt, 1)


def _any_draw(s: Any, x: Any, b: Any, *, me: Any, p: Term, count: Term) -> Any:
    """A mutant's hook: the Tome triggers whoever draws."""
    return _draw(s, x, b, me=me, p=me.controller, count=count)


def _drew(s: Any, t: Any, r: Any, x: Any, b: Any) -> Term:
    """The Tome's controller drew: their hand grew, and not by a card put back (358.4)."""
    c = b.setup.card("scholars-tome").controller
    return x.And(r.citation != "RB 358.4", x.get(t.hand, c) > x.get(s.hand, c))


CARD = Pack(
    key="scholars-tome",
    name="Scholar's Tome",
    text="Gear. When you draw, deal 1 to an enemy unit.",
    abstract=True,
    kinds=(
        KindSpec(
            "T_TOME",
            "Scholar's Tome's 'when you draw' trigger",
            traits=("trigger", "targets-enemy-unit"),
        ),
    ),
    resolve={"T_TOME": _trigger},
    hooks={"draw": _draw},
    zones=("board",),
    properties=(
        trigger_fires_exactly_when(
            "scholars-tome-triggers-when-you-draw",
            "Scholar's Tome triggers for its controller each time they draw, and at no other "
            "time: not when another player draws, nor when a card is put back into a hand "
            "(358.4)",
            "scholars-tome",
            "T_TOME",
            _drew,
            ("RB 383.1", "RB 401.2"),
        ),
    ),
    mutants=(
        Mutant(
            "tome-on-any-draw",
            "'when you draw' read as 'when a player draws'",
            (ReplaceHook("scholars-tome", "draw", _any_draw, "the Tome triggers on any draw"),),
            ("scholars-tome-triggers-when-you-draw",),
        ),
    ),
    each=False,
    sources=("shared/examples/rulings.md RB-05", "RB 402.3"),
    module=__name__,
)
