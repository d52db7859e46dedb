"""Firebrand (abstract): a unit with a play effect. "Might 2. When you play me, deal 2 to a
unit."

Ruling RB-03: it is finalized and resolves at once (337.1.c), so nobody can react to the unit
itself; its play effect then goes on the chain as a pending item after it has entered the board
(383.4.a), chooses its target as it is finalized, and players may react to that trigger.
"""

from __future__ import annotations

from typing import Any

from turnproof.model.packs import KindSpec, Pack
from turnproof.model.riftbound.core import deal, enters, fire, kinds
from turnproof.model.schema import Term


def _played(s: Any, x: Any, b: Any, *, me: Any, p: Term, what: Term) -> Any:
    mine = x.And(what == kinds(b).FIREBRAND, p == me.controller)
    return fire(s, x, b, mine, me.controller, kinds(b).T_FIREBRAND)


def _trigger(s: Any, x: Any, b: Any, *, me: Any) -> Any:
    """2 damage to its target unit"""
    return deal(s, x, b, s.res.tgt, 2)


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
    each=False,
    sources=("shared/examples/rulings.md RB-03", "RiftJudge #11175, #3002"),
    module=__name__,
)
