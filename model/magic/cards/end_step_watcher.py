"""End-Step Watcher (abstract): "At the beginning of your end step, ..." (513.1, 603.2b)

A plain beginning-of-end-step trigger: it is skipped when the turn is ended early (724.1e), and
one that would only exist from the end step on waits for the next turn's end step (513.2).
"""

from __future__ import annotations

from typing import Any

from turnproof.model.magic.core import Stage, Step, active, fire, kinds
from turnproof.model.magic.properties import FOR_ALL
from turnproof.model.packs import KindSpec, Pack
from turnproof.model.properties import Mutant, step
from turnproof.model.rules import ReplaceHook
from turnproof.model.schema import Term


def _end_step(s: Any, x: Any, b: Any, *, me: Any, step: Step) -> Any:
    if step != Step.END:
        return s
    a = active(s, b)
    ctrl = a if me.controller is None else me.controller
    return fire(s, x, b, me.controls(a), ctrl, kinds(b).T_END)


def _any_end_step(s: Any, x: Any, b: Any, *, me: Any, step: Step) -> Any:
    """A mutant's hook: the watcher triggers at the beginning of every player's end step."""
    if step != Step.END:
        return s
    return fire(s, x, b, True, active(s, b) if me.controller is None else me.controller,
                kinds(b).T_END)  # fmt: skip


def _fires_at_your_end_step(s: Any, t: Any, r: Any, x: Any, b: Any, m: Any) -> Term:
    """A watcher's trigger fires, for the player whose turn it is, exactly as an end step
    begins, and only for a watcher that player controls."""
    a = active(s, b)
    # The end step's "at the beginning of" moment: its turn-based start, which leaves the
    # stage BEGIN (the step itself was entered by the step before it ending).
    begins = x.And(s.step == Step.END, s.stage == Stage.BEGIN, t.stage != Stage.BEGIN)
    watcher = b.setup.card("end-step-watcher")
    ours = True if watcher.controller is None else a == watcher.controller

    def fired(pred: Any) -> Term:
        return x.seq_count(t.pending, pred) > x.seq_count(s.pending, pred)

    mine = fired(lambda it: x.And(it.what == kinds(b).T_END, it.ctrl == a))
    other = fired(lambda it: x.And(it.what == kinds(b).T_END, it.ctrl != a))
    return x.And(x.Eq(mine, x.And(begins, ours)), x.Not(other))


CARD = Pack(
    key="end-step-watcher",
    name="End-Step Watcher",
    text="Enchantment. At the beginning of your end step, you gain 1 life.",
    abstract=True,
    kinds=(KindSpec("T_END", "an 'at the beginning of your end step' trigger"),),
    hooks={"step_begins": _end_step},
    properties=(
        step(
            "end-step-watcher-triggers-at-your-end-step",
            "End-Step Watcher triggers at the beginning of its controller's end step, for them "
            "(513.1, 603.2b), and at no other step or turn",
            _fires_at_your_end_step,
            antecedent=lambda s, x, b, m: x.seq_any(
                s.pending, lambda it: it.what == kinds(b).T_END
            ),
            citations=("MTG 513.1", "MTG 603.2b"),
            for_all=FOR_ALL,
        ),
    ),
    mutants=(
        Mutant(
            "watcher-at-every-end-step",
            "'your end step' read as 'each end step': the watcher triggers in its "
            "controller's opponents' turns too",
            (
                ReplaceHook(
                    "end-step-watcher",
                    "step_begins",
                    _any_end_step,
                    "the watcher triggers at every end step",
                ),
            ),
            ("end-step-watcher-triggers-at-your-end-step",),
            bounds={"turns": 2},  # the opponent's turn shows it
        ),
    ),
    module=__name__,
)
