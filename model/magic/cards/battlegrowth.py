"""Battlegrowth: "Put a +1/+1 counter on target creature." Here: its caster's creature."""

from __future__ import annotations

from typing import Any

from turnproof.model.packs import KindSpec, Pack


def _resolve(s: Any, x: Any, b: Any, *, me: Any) -> Any:
    """a +1/+1 counter on its caster's creature"""
    c = s.res.ctrl
    here = x.get(s.alive, c)
    now = x.get(s.plus, c)
    x.within(x.Or(x.Not(here), now + 1 <= b.counters), "counters")
    return s.replace(plus=x.set(s.plus, c, x.If(here, now + 1, now)))


CARD = Pack(
    key="battlegrowth",
    name="Battlegrowth",
    text="Instant. Put a +1/+1 counter on target creature.",
    kinds=(KindSpec("BATTLEGROWTH", "Battlegrowth"),),
    resolve={"BATTLEGROWTH": _resolve},
    cast={"BATTLEGROWTH": None},
    zones=("hand",),
    module=__name__,
)
