"""Firebrand (abstract): a unit with a play effect. "Might 2. When you play me, deal 2 to a
unit."

Ruling RB-03: it is finalized and resolves at once (337.1.c), so nobody can react to the unit
itself; its play effect then goes on the chain as a pending item after it has entered the board
(383.4.a), chooses its target as it is finalized, and players may react to that trigger.
"""

from __future__ import annotations

from typing import Any

from turnproof.model.packs import KindSpec, Pack
from turnproof.model.properties import Mutant
from turnproof.model.riftbound.core import Zone, deal, enters, fire, kinds, slot_of
from turnproof.model.riftbound.properties import trigger_fires_exactly_when
from turnproof.model.rules import ReplaceHook
from turnproof.model.schema import Term


def _played(s: Any, x: Any, b: Any, *, me: Any, p: Term, what: Term) -> Any:
    mine = x.And(what == kinds(b).FIREBRAND, p == me.controller)
    return fire(s, x, b, mine, me.controller, kinds(b).T_FIREBRAND)


def _trigger(s: Any, x: Any, b: Any, *, me: Any) -> Any:
    """2 damage to its target unit"""
    return deal(s, x, b, s.res.tgt, 2)


def _any_play(s: Any, x: Any, b: Any, *, me: Any, p: Term, what: Term) -> Any:
    """A mutant's hook: Firebrand's play effect fires for any card its controller plays."""
    return _played(s, x, b, me=me, p=p, what=kinds(b).FIREBRAND)


def _played_me(s: Any, t: Any, r: Any, x: Any, b: Any) -> Term:
    """Firebrand finished being played: it went from the chain to the board (359)."""
    k = slot_of(b, kinds(b).FIREBRAND)
    return x.And(s.perm[k].zone == Zone.CHAIN, t.perm[k].zone == Zone.BOARD)


CARD = Pack(
    key="firebrand",
    name="Firebrand",
    text="Unit (might 2). When you play me, deal 2 to a unit.",
    abstract=True,
    kinds=(
        KindSpec("FIREBRAND", "Firebrand (a unit)", traits=("card", "unit"), stats=(("might", 2),)),
        KindSpec(
            "T_FIREBRAND",
            "Firebrand's play effect ('when you play me, deal 2 to a unit')",
            traits=("trigger", "play-trigger", "targets-unit"),
        ),
    ),
    resolve={"FIREBRAND": enters, "T_FIREBRAND": _trigger},
    cast={"FIREBRAND": None},
    hooks={"played": _played},
    zones=("hand", "board"),
    properties=(
        trigger_fires_exactly_when(
            "firebrand-play-effect-fires-when-it-is-played",
            "Firebrand's play effect fires for its controller when Firebrand's play completes "
            "(it enters the board from the chain: 419.4, 383.4.a), and for no other card",
            "firebrand",
            "T_FIREBRAND",
            _played_me,
            ("RB 383.4.a", "RB 419.4", "RB 359"),
        ),
    ),
    mutants=(
        Mutant(
            "firebrand-on-any-play",
            "'when you play me' read as 'when you play a card'",
            (ReplaceHook("firebrand", "played", _any_play, "the play effect fires for any card"),),
            ("firebrand-play-effect-fires-when-it-is-played",),
        ),
    ),
    each=False,
    sources=("shared/examples/rulings.md RB-03", "RiftJudge #11175, #3002"),
    module=__name__,
)
