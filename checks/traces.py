"""Trace steps, built the same way by every engine and by guided replays."""

from __future__ import annotations

from turnproof.checks.results import TraceStep
from turnproof.model.ops import ConcreteOps
from turnproof.model.rules import Action, Model
from turnproof.model.schema import State


def step_record(model: Model, action: Action, s: State, t: State) -> TraceStep:
    """The trace step for ``action`` taking ``s`` to ``t``: the rule's citation and summary,
    whose choice it was and who made it (evaluated concretely on ``s``; they differ when one
    player controls another, MTG 723) and only the fields that changed."""
    x = ConcreteOps()
    decider = action.decider(s, x, model.bounds)
    decided = model.decided_by(action, s, x)
    ds, dt = model.schema.describe_value(s), model.schema.describe_value(t)
    return TraceStep(
        rule=action.rule.citation,
        name=action.label,
        summary=action.rule.summary,
        kind=action.rule.kind.value,
        decider=None if decider is None else int(decider),
        changed={k: [ds[k], dt[k]] for k in ds if ds[k] != dt[k]},
        card=action.rule.card,
        decided_by=None if decided is None else int(decided),
    )
