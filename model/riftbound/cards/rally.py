"""Rally (abstract): a card with Legion. "Legion — Draw 1." (cost 0)

Legion (812) asks whether its controller has played another card this turn, and there "play"
means *finalized* (812.1.c; the Unleashed FAQ's second meaning): a card that was finalized and
then countered still counts (ruling RB-06, the seed's third example). The core keeps that count
(``finals``: Rally itself is one of the cards finalized, so Legion needs two).
"""

from __future__ import annotations

from typing import Any

from turnproof.model.packs import KindSpec, Pack, resolution_name
from turnproof.model.properties import Monitor, Mutant, step
from turnproof.model.riftbound.core import (
    FINALIZING,
    Stage,
    cites,
    draw,
    is_kind,
    kinds,
    pending_index,
)
from turnproof.model.riftbound.properties import FOR_ALL
from turnproof.model.rules import derive
from turnproof.model.schema import IntRange

KEY = "rally"


@cites("RB 812.1.c")
def _resolve(s: Any, x: Any, b: Any, *, me: Any, others: bool = True) -> Any:
    """Legion: if its controller had another card finalized this turn, they draw a card"""
    c = s.res.ctrl
    need = 2 if others else 1  # a mutant: Rally's own finalization satisfies Legion
    return x.when(x.get(s.finals, c) >= need, lambda u: draw(u, x, b, c), s)


def _controller(b: Any) -> int:
    return int(b.setup.card(KEY).controller)


def _finalized_mine(s: Any, r: Any, x: Any, b: Any) -> Any:
    """The step from ``s`` by rule ``r`` finalizes a card of Rally's controller."""
    if r.citation not in FINALIZING:
        return False
    _, i = pending_index(x, s)
    it = x.seq_get(s.chain, i)
    return x.And(is_kind(x, it.what, "card", b), it.ctrl == _controller(b))


#: The cards Rally's controller has had finalized this turn (2: two or more), counted from the
#: finalizations that happened, not from the core's own count.
FINALIZED = Monitor(
    "finalized_cards",
    IntRange(0, 2),
    # What happened before a scenario's start is the start state's to say.
    init=lambda s, x, b: x.get(s.finals, _controller(b)),
    update=lambda s, t, r, m, x, b: x.If(
        t.turn != s.turn,
        0,
        x.If(_finalized_mine(s, r, x, b), x.Min(m.finalized_cards + 1, 2), m.finalized_cards),
    ),
)


def _legion_ok(s: Any, t: Any, r: Any, x: Any, b: Any, m: Any) -> Any:
    """The count Legion reads (``finals``) is the number of cards its controller had finalized
    this turn, and at Rally's resolution Legion is met exactly when it is two or more (Rally
    itself is one)."""
    c = _controller(b)
    counted = x.Eq(x.get(s.finals, c), m.finalized_cards)
    if r.name != resolution_name("RALLY"):
        return counted
    drew = x.get(t.hand, c) == x.get(s.hand, c) + 1
    return x.And(counted, x.Implies(s.res.ctrl == c, x.Eq(drew, m.finalized_cards >= 2)))


def _legion_met(s: Any, x: Any, b: Any, m: Any) -> Any:
    return x.And(s.stage == Stage.RESOLVING, s.res.what == kinds(b).RALLY, m.finalized_cards >= 2)


CARD = Pack(
    key=KEY,
    name="Rally",
    text="Spell (cost 0). Legion — Draw 1. (Legion: if you have played another card this turn.)",
    abstract=True,
    kinds=(KindSpec("RALLY", "Rally (a spell with Legion)", traits=("card", "spell")),),
    resolve={"RALLY": _resolve},
    cast={"RALLY": None},
    zones=("hand",),
    each=False,
    properties=(
        step(
            "legion-counts-finalized-cards",
            "Legion is met exactly when its controller had another card finalized this turn "
            "(812.1.c): the count it reads is the number of cards finalized this turn (a card "
            "finalized and then countered counts), and Legion's own card does not suffice",
            _legion_ok,
            antecedent=_legion_met,
            monitors=(FINALIZED,),
            citations=("RB 812.1.c", "RB 812.2", "RB 425.1.b"),
            for_all=FOR_ALL,
        ),
    ),
    mutants=(
        Mutant(
            "legion-counts-itself",
            "812.1.c misread: Legion's own card, once finalized, satisfies it",
            (
                derive(
                    resolution_name("RALLY"),
                    "MUTANT: Rally's own card satisfies Legion",
                    others=False,
                ),
            ),
            ("legion-counts-finalized-cards",),
        ),
    ),
    sources=(
        "shared/examples/rulings.md RB-06",
        "shared/seeds/002 (the countered spell and Legion)",
    ),
    module=__name__,
)
