"""Waylay: "Create three 2/2 white Knight creature tokens. At the beginning of the next cleanup
step, exile those tokens."

The delayed trigger is one of the "at the beginning of the next cleanup step" triggers that
514.3a names: it waits, players get priority in the cleanup step, and another cleanup step
follows (ruling CU-04; Forge issue #1240 fired it in the end step).
"""

from __future__ import annotations

from typing import Any

from turnproof.model.magic.core import Step, each, fire, kinds, per_player
from turnproof.model.packs import Field, KindSpec, Pack
from turnproof.model.schema import BoolDomain


def _resolve_waylay(s: Any, x: Any, b: Any, *, me: Any) -> Any:
    """three tokens, and a delayed trigger 'at the beginning of the next cleanup step, exile them'"""
    c = s.res.ctrl
    return s.replace(tokens=x.set(s.tokens, c, True), waylay=x.set(s.waylay, c, True))


def _resolve_trigger(s: Any, x: Any, b: Any, *, me: Any) -> Any:
    """the tokens are exiled"""
    return s.replace(tokens=x.set(s.tokens, s.res.ctrl, False))


def _cleanup_begins(s: Any, x: Any, b: Any, *, me: Any, step: Step) -> Any:
    if step != Step.CLEANUP:
        return s
    t = s
    for p in range(b.players):
        t = fire(t, x, b, s.waylay[p], p, kinds(b).T_WAYLAY)
    return t.replace(waylay=(False,) * b.players)


CARD = Pack(
    key="waylay",
    name="Waylay",
    text="Instant. Create three 2/2 white Knight creature tokens. At the beginning of the next "
    "cleanup step, exile those tokens.",
    kinds=(
        KindSpec("WAYLAY", "Waylay (an instant)"),
        KindSpec("T_WAYLAY", "Waylay's delayed 'next cleanup step' trigger"),
    ),
    fields=(
        Field("tokens", per_player(BoolDomain()), "a player's Waylay tokens exist", each(False)),
        Field(
            "waylay",
            per_player(BoolDomain()),
            "a player's 'at the beginning of the next cleanup step' trigger is waiting to trigger",
            each(False),
        ),
    ),
    resolve={"WAYLAY": _resolve_waylay, "T_WAYLAY": _resolve_trigger},
    cast={"WAYLAY": None},
    hooks={"step_begins": _cleanup_begins},
    zones=("hand",),
    sources=("shared/examples/rulings.md CU-04", "Forge issue #1240"),
    module=__name__,
)
