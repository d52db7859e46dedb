"""Stifle: "Counter target activated or triggered ability. (Mana abilities can't be targeted.)"

Modelled as countering the newest object on the stack when it is a triggered ability (a kind
with the trait ``triggered``: the Sagas' chapter abilities); that is the object right below
Stifle, the only one it can target with the stack as the model builds it. A countered chapter
ability has left the stack, so its Saga may be sacrificed (714.4, 704.5s). If the target is gone
as Stifle resolves, nothing happens (608.2b).
"""

from __future__ import annotations

from typing import Any

from turnproof.model.packs import KindSpec, Pack
from turnproof.model.schema import Term


def _triggered_on_top(s: Any, x: Any, b: Any) -> Term:
    top = x.seq_top(s.stack)
    return x.And(
        x.Not(x.seq_is_empty(s.stack)),
        x.Or(*(top.what == k for k in b.setup.kinds_with("triggered"))),
    )


def _castable(s: Any, x: Any, b: Any, p: Term) -> Term:
    """The newest object on the stack is a triggered ability."""
    return _triggered_on_top(s, x, b)


def _resolve(s: Any, x: Any, b: Any, *, me: Any) -> Any:
    """the triggered ability it targets is countered: it leaves the stack"""
    return s.replace(stack=x.when(_triggered_on_top(s, x, b), lambda st: x.seq_pop(st), s.stack))


CARD = Pack(
    key="stifle",
    name="Stifle",
    text="Instant. Counter target activated or triggered ability. (Mana abilities can't be "
    "targeted.)",
    kinds=(KindSpec("STIFLE", "Stifle (an instant: counter target triggered ability)"),),
    resolve={"STIFLE": _resolve},
    cast={"STIFLE": _castable},
    zones=("hand",),
    sources=("MTG 701.6", "MTG 714.4"),
    module=__name__,
)
