"""War Horn (abstract): "Whenever a creature you control attacks, at end of combat, draw a
card." A combat trigger that creates an "at end of combat" delayed trigger.

The attack trigger fires as attackers are declared (508.1m, 603.2) and goes on the stack when the
active player receives priority in that step. Its delayed trigger triggers at the beginning of
the next end of combat step (511.1, 603.7b). When an effect ends the combat phase (Mandate of
Peace), that step is skipped and "at end of combat" abilities don't trigger (724.2e): the
delayed trigger waits for the next end of combat step that happens [derived from 603.7b and
614.10a: what is scheduled for the "next" occurrence waits for one that is not skipped].
"""

from __future__ import annotations

from typing import Any

from turnproof.model.magic.core import Step, draw, fire, kinds
from turnproof.model.packs import Field, KindSpec, Pack
from turnproof.model.schema import BoolDomain, Term


def _step(s: Any, x: Any, b: Any, *, me: Any, step: Step) -> Any:
    c = me.controller
    if step == Step.END_COMBAT:
        t = fire(s, x, b, s.horn, c, kinds(b).T_HORN_END)
        return t.replace(horn=False)  # a delayed trigger without a duration triggers once
    return s


def _declared(s: Any, x: Any, b: Any, *, me: Any, p: Term, attack: Term) -> Any:
    """Whenever a creature its controller controls attacks."""
    return fire(s, x, b, x.And(attack != 0, p == me.controller), me.controller, kinds(b).T_HORN)


def _resolve_attack(s: Any, x: Any, b: Any, *, me: Any) -> Any:
    """a delayed trigger is created: 'at end of combat, draw a card'"""
    return s.replace(horn=True)


def _resolve_end(s: Any, x: Any, b: Any, *, me: Any) -> Any:
    """its controller draws a card"""
    return draw(s, x, b, s.res.ctrl)


CARD = Pack(
    key="war-horn",
    name="War Horn",
    text="Artifact. Whenever a creature you control attacks, at end of combat, draw a card.",
    abstract=True,
    kinds=(
        KindSpec("T_HORN", "War Horn's 'whenever a creature you control attacks' trigger"),
        KindSpec("T_HORN_END", "War Horn's delayed 'at end of combat' trigger"),
    ),
    fields=(
        Field(
            "horn",
            BoolDomain(),
            "War Horn's delayed 'at end of combat' trigger is waiting to trigger",
            lambda b: False,
        ),
    ),
    resolve={"T_HORN": _resolve_attack, "T_HORN_END": _resolve_end},
    hooks={"step_begins": _step, "attacks": _declared},
    each=False,
    module=__name__,
)
