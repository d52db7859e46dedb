"""Results: verdicts, traces and per-property results, shared by both engines and the reports.

Verdicts are honest (see DESIGN.md):

* ``PROVED``: an unbounded proof (inductive invariant, k-induction, ranking function), with its
  certificate. Only the symbolic engine says it.
* ``EXHAUSTIVE``: every state within the declared bounds was checked. The result names the
  bounds, and which of them were *reached* (a transition was cut because it would leave them).
* ``VIOLATED``: with the shortest trace (a lasso for termination).
* ``WITNESSED``: a reachability query answered with an example trace.
* ``UNKNOWN``: with its reason (state or time limit, solver unknown). Never folded into a pass.
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

SCHEMA_VERSION = 1


class Verdict(Enum):
    PROVED = "PROVED"
    EXHAUSTIVE = "EXHAUSTIVE"
    VIOLATED = "VIOLATED"
    WITNESSED = "WITNESSED"
    UNKNOWN = "UNKNOWN"


@dataclass(frozen=True)
class TraceStep:
    """One transition of a trace: the rule that fired, who decided, and what changed."""

    rule: str  # the citation, e.g. "MTG 514.3a"
    name: str  # the rule instance, e.g. "pass_priority" or "stack_trigger(i=1)"
    summary: str
    kind: str
    decider: int | None
    changed: dict[str, list[Any]]  # field -> [old, new]
    card: str = ""  # the card the rule comes from, if it comes from one

    def to_json(self) -> dict[str, Any]:
        out = {
            "rule": self.rule,
            "name": self.name,
            "summary": self.summary,
            "kind": self.kind,
            "decider": self.decider,
            "changed": self.changed,
        }
        if self.card:
            out["card"] = self.card
        return out


@dataclass(frozen=True)
class LoopExit:
    """A way out of a loop: at loop position ``at``, ``decider`` could choose ``name`` instead,
    and after it the game can leave the region (at once, or by later steps)."""

    at: int
    decider: int | None
    rule: str
    name: str

    def to_json(self) -> dict[str, Any]:
        return {"at": self.at, "decider": self.decider, "rule": self.rule, "name": self.name}


@dataclass(frozen=True)
class Trace:
    """A path from an initial state. For a lasso, ``loop_start`` is the index in ``steps`` where
    the loop begins; the loop returns to the state before that step."""

    initial: dict[str, Any]
    steps: tuple[TraceStep, ...]
    loop_start: int | None = None
    # Ways out of the loop: moves on it after which the region can be left; None when the
    # engine did not compute them (an empty tuple means it did, and found none).
    exits: tuple[LoopExit, ...] | None = ()
    final: dict[str, Any] | None = None
    # The values of the bounds a symbolic search left open, for this trace (the rules ran with
    # them); empty when every bound had its value in the report.
    bounds: dict[str, int] = field(default_factory=dict)
    # For a lasso: True when no player has a choice anywhere on the loop (every state on it has
    # one move), False when some state on it has several, None when not computed.
    forced: bool | None = None

    def __len__(self) -> int:
        return len(self.steps)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "initial": self.initial,
            "steps": [s.to_json() for s in self.steps],
        }
        if self.bounds:
            out["bounds"] = dict(self.bounds)
        if self.loop_start is not None:
            out["loop_start"] = self.loop_start
            out["loop_exits"] = _exits_json(self.exits)
            out["loop_forced"] = self.forced
        return out


def trace_states(trace: Trace) -> list[dict[str, Any]]:
    """The described states along a trace: the initial one, then each step's changes applied."""
    states = [copy.deepcopy(trace.initial)]
    for step in trace.steps:
        nxt = copy.deepcopy(states[-1])
        for path, (_, new) in step.changed.items():
            nxt[path] = new
        states.append(nxt)
    return states


def loop_exits_by_state(trace: Trace) -> tuple[frozenset[str], frozenset[tuple[str, ...]]] | None:
    """For a lasso with computed exits: the loop's states, and each exit as (the state it is
    taken in, rule, rule instance, decider), all as canonical text, so that two engines' loops
    and exits can be compared whatever state the loop was entered at."""

    if trace.loop_start is None or trace.exits is None:
        return None
    states = trace_states(trace)
    loop = states[trace.loop_start : len(states) - 1]
    text = [json.dumps(s, sort_keys=True) for s in loop]
    exits = frozenset(
        (text[e.at], e.rule, e.name, str(e.decider)) for e in trace.exits if e.at < len(text)
    )
    return frozenset(text), exits


def _exits_json(exits: tuple[LoopExit, ...] | None) -> list[dict[str, Any]] | None:
    return None if exits is None else [e.to_json() for e in exits]


@dataclass(frozen=True)
class Finding:
    """A consistency problem: which check, what was found, the rules involved, the state (with
    the shortest trace to it), or why the check could not decide."""

    check: str
    status: str  # "violated" | "unknown"
    message: str
    rules: tuple[str, ...] = ()  # "citation label" of each rule instance involved
    state: dict[str, Any] | None = None
    trace: Trace | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "check": self.check,
            "status": self.status,
            "message": self.message,
            "rules": list(self.rules),
        }
        if self.state is not None:
            out["state"] = self.state
        if self.trace is not None:
            out["trace"] = self.trace.to_json()
        return out


@dataclass
class PropertyResult:
    name: str
    kind: str
    description: str
    verdict: Verdict
    engine: str
    expect: str
    states: int
    transitions: int
    seconds: float
    trace: Trace | None = None
    reason: str = ""
    bounds: dict[str, int] = field(default_factory=dict)
    bounds_reached: dict[str, int] = field(default_factory=dict)
    vacuous: bool = False
    certificate: dict[str, Any] | None = None
    citations: tuple[str, ...] = ()
    holds_for: str = ""
    # Bounds the symbolic engine left open (name -> the values covered, such as ">= 1"): the
    # verdict holds for all of them, whatever ``bounds`` says.
    for_all: dict[str, str] = field(default_factory=dict)
    # The verdict a scenario pins for this property on this engine (empty: none).
    pinned: str = ""

    @property
    def meets_expectation(self) -> bool:
        """True when the verdict is what the property expects (a vacuous pass is not), and the
        one the scenario pins, if it pins one."""
        if self.vacuous:
            return False
        if self.pinned and self.verdict.value != self.pinned:
            return False
        if self.expect == "holds":
            return self.verdict in (Verdict.PROVED, Verdict.EXHAUSTIVE)
        if self.expect == "violated":
            return self.verdict is Verdict.VIOLATED
        if self.expect == "witnessed":
            return self.verdict is Verdict.WITNESSED
        return False

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "name": self.name,
            "kind": self.kind,
            "description": self.description,
            "verdict": self.verdict.value,
            "expect": self.expect,
            "meets_expectation": self.meets_expectation,
            "engine": self.engine,
            "states": self.states,
            "transitions": self.transitions,
            "seconds": round(self.seconds, 3),
            "citations": list(self.citations),
        }
        if self.reason:
            out["reason"] = self.reason
        if self.vacuous:
            out["vacuous"] = True
        if self.bounds_reached:
            out["bounds_reached"] = dict(self.bounds_reached)
        if self.holds_for:
            out["holds_for"] = self.holds_for
        if self.for_all:
            out["for_all"] = dict(self.for_all)
        if self.pinned:
            out["pinned"] = self.pinned
        if self.certificate is not None:
            out["certificate"] = self.certificate
        if self.trace is not None:
            out["trace"] = [s.to_json() for s in self.trace.steps]
            out["trace_initial"] = self.trace.initial
            if self.trace.bounds:
                out["trace_bounds"] = dict(self.trace.bounds)
            if self.trace.loop_start is not None:
                out["loop_start"] = self.trace.loop_start
                out["loop_exits"] = _exits_json(self.trace.exits)
                out["loop_forced"] = self.trace.forced
        return out


@dataclass
class CheckReport:
    """Everything one ``turnproof check`` run produced."""

    ruleset: dict[str, Any]
    bounds: dict[str, int]
    results: list[PropertyResult]
    engines: list[str]
    # Transitions per rule in the explicit exploration (rule name -> count); empty when the
    # explicit engine did not run. A rule at 0 never applied within the bounds.
    coverage: dict[str, int] = field(default_factory=dict)

    def rules_never_fired(self) -> list[str]:
        return [name for name, n in self.coverage.items() if n == 0]

    @property
    def exit_code(self) -> int:
        """0 every property met its expectation; 1 one did not; 3 one has only UNKNOWN verdicts.

        With two engines a property is judged on its best justified verdict: a symbolic UNKNOWN
        does not undo an explicit EXHAUSTIVE (the table still shows both rows, with the reason).
        A property fails when the engines disagree (an ``engines-agree`` result), when any engine
        finds it vacuous, when an engine found a violation trace it did not expect (one found
        with other values of bounds left open is no disagreement, but still a failure), or when
        no engine's verdict meets its expectation and some engine reached a verdict; it is
        unknown when every engine said UNKNOWN.
        """
        by_name: dict[str, list[PropertyResult]] = {}
        for r in self.results:
            by_name.setdefault(r.name, []).append(r)
        failed = unknown = False
        for results in by_name.values():
            if any(r.kind == "engines-agree" or r.vacuous for r in results):
                failed = True
            elif any(
                r.verdict is Verdict.VIOLATED and r.trace is not None and not r.meets_expectation
                for r in results
            ):
                failed = True
            elif any(r.pinned and r.verdict.value != r.pinned for r in results):
                failed = True
            elif any(r.meets_expectation for r in results):
                continue
            elif all(r.verdict is Verdict.UNKNOWN for r in results):
                unknown = True
            else:
                failed = True
        return 1 if failed else 3 if unknown else 0

    def to_json(self) -> dict[str, Any]:
        return {
            "schema_version": SCHEMA_VERSION,
            "ruleset": self.ruleset,
            "bounds": self.bounds,
            "engines": self.engines,
            "properties": [r.to_json() for r in self.results],
            "coverage": dict(self.coverage),
            "exit_code": self.exit_code,
        }
