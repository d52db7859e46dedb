"""Guided replay: play one game from an initial state by a script of choices.

Where exactly one automatic rule is enabled, it fires. Where players decide, the next scripted
choice is taken if it is enabled (a rule-instance label such as ``cast(card=PUMP)`` or a rule name
such as ``activate_sundial``); otherwise the default policy applies: everybody passes, the first
waiting trigger is put on the stack first, nobody attacks. The replay stops at a terminal state,
after ``max_steps``, or when the script cannot be followed (an error names the enabled choices).

This is how scenarios reproduce rulings step by step, and how a trace can be replayed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from turnproof.checks.results import TraceStep
from turnproof.checks.traces import step_record
from turnproof.model.errors import TurnproofError
from turnproof.model.ops import BoundReached, ConcreteOps, Disabled
from turnproof.model.rules import Action, Model
from turnproof.model.schema import State

DEFAULT_POLICY = ("pass_priority", "pass_resolve", "pass_end_step", "stack_trigger(i=0)")


class ReplayError(TurnproofError):
    """The script names a choice that is not enabled, or the game is stuck."""


@dataclass
class Replay:
    states: list[State]
    steps: list[TraceStep]
    actions: list[Action]

    @property
    def final(self) -> State:
        return self.states[-1]

    def citations(self) -> list[str]:
        return [s.rule for s in self.steps]


def enabled(model: Model, s: State) -> list[tuple[Action, State]]:
    """Every enabled rule instance with its successor (cut transitions left out)."""
    x, b = ConcreteOps(), model.bounds
    out = []
    for a in model.actions:
        try:
            out.append((a, a.apply(s, x, b)))
        except (Disabled, BoundReached):
            continue
    return out


def _matches(a: Action, choice: str) -> bool:
    return a.label == choice or (a.rule.name == choice and not a.params)


def play(
    model: Model,
    script: Sequence[str] = (),
    *,
    start: State | None = None,
    policy: Sequence[str] = DEFAULT_POLICY + ("declare_attackers(attack=0)",),
    max_steps: int = 2000,
) -> Replay:
    x = ConcreteOps()
    s = start if start is not None else model.initial_states()[0]
    todo = list(script)
    states: list[State] = [s]
    steps: list[TraceStep] = []
    actions: list[Action] = []
    for _ in range(max_steps):
        if model.is_terminal(s, x):
            break
        options = enabled(model, s)
        if not options:
            raise ReplayError(f"the game is stuck after {len(steps)} steps (no rule enabled)")
        auto = [(a, t) for a, t in options if a.rule.is_automatic]
        pick = None
        if auto:
            if len(auto) > 1:
                raise ReplayError(
                    "two automatic rules are enabled together: "
                    + ", ".join(a.label for a, _ in auto)
                )
            pick = auto[0]
        elif todo and any(_matches(a, todo[0]) for a, _ in options):
            want = todo.pop(0)
            pick = next((a, t) for a, t in options if _matches(a, want))
        else:
            for choice in policy:
                found = [(a, t) for a, t in options if _matches(a, choice)]
                if found:
                    pick = found[0]
                    break
        if pick is None:
            raise ReplayError(
                f"after {len(steps)} steps no scripted or default choice is enabled; "
                f"enabled: {', '.join(a.label for a, _ in options)}"
            )
        a, t = pick
        steps.append(step_record(model, a, s, t))
        actions.append(a)
        states.append(t)
        s = t
    if todo:
        raise ReplayError(f"the game ended before the scripted choices {todo} could be made")
    return Replay(states, steps, actions)
