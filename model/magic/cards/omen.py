"""Omen (abstract): "At the beginning of the next end step, draw a card."

A delayed triggered ability (603.7): it triggers once, at the next end step (603.7b). One created
during an end step waits for the next turn's end step: the step doesn't back up (513.2).
"""

from __future__ import annotations

from typing import Any

from turnproof.model.magic.core import Stage, Step, draw, each, fire, kinds, per_player
from turnproof.model.magic.properties import FOR_ALL
from turnproof.model.packs import Field, KindSpec, Pack
from turnproof.model.properties import Mutant, step
from turnproof.model.rules import ReplaceHook
from turnproof.model.schema import BoolDomain, Term


def _resolve_omen(s: Any, x: Any, b: Any, *, me: Any) -> Any:
    """a delayed trigger is created: 'at the beginning of the next end step, draw a card'"""
    return s.replace(omen=x.set(s.omen, s.res.ctrl, True))


def _resolve_trigger(s: Any, x: Any, b: Any, *, me: Any) -> Any:
    """its controller draws a card"""
    return draw(s, x, b, s.res.ctrl)


def _end_step(s: Any, x: Any, b: Any, *, me: Any, step: Step, once: bool = True) -> Any:
    if step != Step.END:
        return s
    t = s
    for p in range(b.players):
        t = fire(t, x, b, s.omen[p], p, kinds(b).T_OMEN)
    # A delayed trigger without a duration triggers once (603.7b).
    return t.replace(omen=(False,) * b.players) if once else t


def _every_end_step(s: Any, x: Any, b: Any, *, me: Any, step: Step) -> Any:
    """A mutant's hook: the delayed trigger stays and triggers at every end step after."""
    return _end_step(s, x, b, me=me, step=step, once=False)


def _fires_once_at_the_next_end_step(s: Any, t: Any, r: Any, x: Any, b: Any, m: Any) -> Term:
    """A player's delayed trigger fires exactly as the next end step begins (its turn-based
    start, which leaves the stage BEGIN), for the player who created it, and is then gone."""
    begins = x.And(s.step == Step.END, s.stage == Stage.BEGIN, t.stage != Stage.BEGIN)
    out = []
    for p in range(b.players):

        def omen_of(it: Any, p: int = p) -> Term:
            return x.And(it.what == kinds(b).T_OMEN, it.ctrl == p)

        fired = x.seq_count(t.pending, omen_of) > x.seq_count(s.pending, omen_of)
        out.append(x.Eq(fired, x.And(begins, s.omen[p])))
        out.append(x.Implies(begins, x.Not(t.omen[p])))
    return x.And(*out)


CARD = Pack(
    key="omen",
    name="Omen",
    text="Instant. At the beginning of the next end step, draw a card.",
    abstract=True,
    kinds=(
        KindSpec("OMEN", "Omen (an instant that creates a delayed trigger)"),
        KindSpec("T_OMEN", "Omen's delayed 'next end step' trigger"),
    ),
    fields=(
        Field(
            "omen",
            per_player(BoolDomain()),
            "a player's 'at the beginning of the next end step' trigger is waiting to trigger",
            each(False),
        ),
    ),
    resolve={"OMEN": _resolve_omen, "T_OMEN": _resolve_trigger},
    cast={"OMEN": None},
    hooks={"step_begins": _end_step},
    properties=(
        step(
            "omen-triggers-once-at-the-next-end-step",
            "Omen's delayed trigger fires at the beginning of the next end step, for the "
            "player who cast Omen, and once: then it is gone (603.7, 603.7b, 513.1)",
            _fires_once_at_the_next_end_step,
            antecedent=lambda s, x, b, m: x.Or(*(s.omen[p] for p in range(b.players))),
            citations=("MTG 603.7", "MTG 603.7b", "MTG 513.1"),
            for_all=FOR_ALL,
        ),
    ),
    mutants=(
        Mutant(
            "omen-triggers-every-end-step",
            "603.7b overlooked: Omen's delayed trigger stays and fires at every end step after",
            (
                ReplaceHook(
                    "omen",
                    "step_begins",
                    _every_end_step,
                    "the delayed trigger stays after it fires",
                ),
            ),
            ("omen-triggers-once-at-the-next-end-step",),
            bounds={"turns": 2},  # the second end step shows it
        ),
    ),
    zones=("hand",),
    module=__name__,
)
