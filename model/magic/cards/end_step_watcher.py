"""End-Step Watcher (abstract): "At the beginning of your end step, ..." (513.1, 603.2b)

A plain beginning-of-end-step trigger: it is skipped when the turn is ended early (724.1e), and
one that would only exist from the end step on waits for the next turn's end step (513.2).
"""

from __future__ import annotations

from typing import Any

from turnproof.model.magic.core import Step, active, fire, kinds
from turnproof.model.packs import KindSpec, Pack


def _end_step(s: Any, x: Any, b: Any, *, me: Any, step: Step) -> Any:
    if step != Step.END:
        return s
    a = active(s, b)
    ctrl = a if me.controller is None else me.controller
    return fire(s, x, b, me.controls(a), ctrl, kinds(b).T_END)


CARD = Pack(
    key="end-step-watcher",
    name="End-Step Watcher",
    text="Enchantment. At the beginning of your end step, you gain 1 life.",
    abstract=True,
    kinds=(KindSpec("T_END", "an 'at the beginning of your end step' trigger"),),
    hooks={"step_begins": _end_step},
    module=__name__,
)
