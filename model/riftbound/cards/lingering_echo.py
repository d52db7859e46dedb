"""Lingering Echo (hypothetical): a card that keeps adding to the chain in the expiration step.
"When 'this turn' effects expire, give me a 'this turn' effect."

No such card is printed; it is the pattern of a card whose trigger fires each time the
expiration step's special cleanup ends the 'this turn' effects (317.2). Its item goes through
FEPR, so the step starts over (317.2.f), which ends its effect again, which triggers it again:
the expiration step never ends (the Riftbound analogue of a cleanup step that repeats forever).
"""

from __future__ import annotations

from typing import Any

from turnproof.model.packs import Field, KindSpec, Pack
from turnproof.model.riftbound.core import fire, kinds
from turnproof.model.schema import BoolDomain


def _expire(s: Any, x: Any, b: Any, *, me: Any, t: Any) -> Any:
    return fire(t, x, b, True, me.controller, kinds(b).T_ECHO)


def _trigger(s: Any, x: Any, b: Any, *, me: Any) -> Any:
    """a 'this turn' effect begins"""
    return s.replace(echo=True)


CARD = Pack(
    key="lingering-echo",
    name="Lingering Echo",
    text="Gear. When 'this turn' effects expire, give me a 'this turn' effect.",
    abstract=True,
    kinds=(
        KindSpec(
            "T_ECHO",
            "Lingering Echo's 'when this turn effects expire' trigger",
            traits=("trigger",),
        ),
    ),
    fields=(
        Field(
            "echo",
            BoolDomain(),
            "Lingering Echo's 'this turn' effect",
            lambda b: False,
            ends="expiration",
        ),
    ),
    resolve={"T_ECHO": _trigger},
    hooks={"expire": _expire},
    zones=("board",),
    each=False,
    module=__name__,
)
