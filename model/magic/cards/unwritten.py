"""Unwritten (abstract): "Instant. Remove a lore counter from target Saga."

Removing a lore counter triggers nothing (714.2b counts placements); a chapter whose number the
count falls below triggers again when a later placement crosses it (Kiora's ruling of
2020-01-24). The target is a Saga in play with a lore counter, chosen as it is cast (the Sagas
in key order); if it has none left as Unwritten resolves, nothing happens (608.2b).
"""

from __future__ import annotations

from typing import Any

from turnproof.model.magic.core import Stage, cast_spell, kinds, prio
from turnproof.model.magic.sagas import sagas
from turnproof.model.packs import KindSpec, Pack
from turnproof.model.rules import Kind, rule


def _targets(b: Any) -> range:
    return range(len(sagas(b)))


@rule(
    "MTG 601.2c",
    "a player casts Unwritten, an instant, targeting a Saga with a lore counter; they keep "
    "priority (117.3c)",
    kind=Kind.CHOICE,
    decider=prio,
    params={"target": _targets},
    when={"stage": Stage.PRIORITY},
)
def cast_unwritten(s: Any, x: Any, b: Any, target: int, *, me: Any) -> Any:
    x.require(me.controls(s.prio))
    _, spec = sagas(b)[target]
    x.require(x.And(spec.on(s), spec.lore(s) > 0))
    return cast_spell(s, x, b, kinds(b).UNWRITTEN, target)


def _resolve(s: Any, x: Any, b: Any, *, me: Any) -> Any:
    """a lore counter is removed from the target Saga, if it still has one"""
    t = s
    for i, (_, spec) in enumerate(sagas(b)):
        n = spec.lore(s)
        hit = x.And(s.res.n == i, spec.on(s), n > 0)
        t = t.replace(**{f"{spec.prefix}_lore": x.If(hit, n - 1, n)})
    return t


CARD = Pack(
    key="unwritten",
    name="Unwritten",
    text="Instant. Remove a lore counter from target Saga.",
    abstract=True,
    kinds=(KindSpec("UNWRITTEN", "Unwritten (an instant: remove a lore counter)"),),
    rules=(cast_unwritten,),
    resolve={"UNWRITTEN": _resolve},
    zones=("hand",),
    sources=("Kiora Bests the Sea God rulings (2020-01-24)", "MTG 714.2b"),
    module=__name__,
)
