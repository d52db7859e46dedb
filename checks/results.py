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

import json
from dataclasses import dataclass, field
from enum import Enum
from typing import Any


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
    # Who made the choice: the decider, or the player who controls them (MTG 723).
    decided_by: int | None = None


@dataclass(frozen=True)
class LoopExit:
    """A way out of a loop: at loop position ``at``, ``decider`` could choose ``name`` instead,
    and after it the game can leave the region (at once, or by later steps)."""

    at: int
    decider: int | None
    rule: str
    name: str
    decided_by: int | None = None  # who actually makes that choice (MTG 723)


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


def trace_states(trace: Trace) -> list[dict[str, Any]]:
    """Every state of ``trace`` in full: the initial one, then each with its step's changes
    applied (the fields a step does not name keep their values)."""
    states = [dict(trace.initial)]
    for step in trace.steps:
        nxt = dict(states[-1])
        nxt.update({k: new for k, (_, new) in step.changed.items()})
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


# -- pictures -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class GraphNode:
    """A state in a drawn graph. ``parent`` is the node whose state this one is described
    against (a picture shows only the fields that changed from it); ``trace_index`` is the
    state's position on the trace the picture follows, if it is on it."""

    id: int
    state: dict[str, Any]  # field -> the described value (enum names, lists, dicts)
    parent: int | None = None
    initial: bool = False
    terminal: bool = False
    trace_index: int | None = None


@dataclass(frozen=True)
class GraphEdge:
    """A transition in a drawn graph: the rule's citation and the rule instance that fired."""

    src: int
    dst: int
    rule: str
    name: str
    on_trace: bool = False


@dataclass(frozen=True)
class StateGraph:
    """Part of a state graph as plain values, for the renderers in ``reports/`` (which never
    run an engine): the whole explored graph, or the neighbourhood of a trace."""

    title: str
    nodes: tuple[GraphNode, ...]
    edges: tuple[GraphEdge, ...]
    caption: str = ""


@dataclass(frozen=True)
class TurnMove:
    """Transitions from one step to another by one rule: ``count`` of them were explored."""

    src: str
    dst: str
    rule: str  # the citation
    name: str  # the rule's name
    count: int


@dataclass(frozen=True)
class TurnStructure:
    """The explored state graph projected on one field (``step``): the steps reached, the
    rules that move from a step to another, and how many transitions stay within each step."""

    field_name: str
    steps: tuple[str, ...]
    moves: tuple[TurnMove, ...]
    within: dict[str, int] = field(default_factory=dict)
    states: int = 0


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
    # A proof of an implication whose antecedent was neither reached nor proved unreachable: it
    # may hold only because nothing meets the antecedent, so it is judged unknown, not passed.
    vacuity_undecided: bool = False
    certificate: dict[str, Any] | None = None
    citations: tuple[str, ...] = ()
    holds_for: str = ""
    # Bounds the symbolic engine left open (name -> the values covered, such as ">= 1"): the
    # verdict holds for all of them, whatever ``bounds`` says.
    for_all: dict[str, str] = field(default_factory=dict)
    # The verdict a scenario pins for this property on this engine (empty: none).
    pinned: str = ""
    # The depth of the search: the explicit engine's deepest BFS level (the longest of the
    # shortest paths to the explored states); None when the engine does not say.
    depth: int | None = None
    #: A symbolic proof by Spacer: the inductive invariant it found, which the engine hands to
    #: the properties it checks after this one on the same encoding (a
    #: :class:`~turnproof.checks.proofs.Lemma`); not part of any report.
    lemma: Any = None

    @property
    def meets_expectation(self) -> bool:
        """True when the verdict is what the property expects (a vacuous pass is not), and the
        one the scenario pins, if it pins one."""
        if self.vacuous or self.vacuity_undecided:
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


class Interrupted(KeyboardInterrupt):
    """Ctrl-C during an engine's run: ``results`` has one result per property asked for, the
    finished ones as they were and the others UNKNOWN with the reason ``interrupted``."""

    def __init__(self, results: list[PropertyResult]) -> None:
        super().__init__("interrupted")
        self.results = results


@dataclass(frozen=True)
class SearchProcesses:
    """How one explicit exploration was shared out: ``workers`` processes were asked for,
    ``worker_processes`` took part (0: it ran in this process alone), and
    ``sequential_because`` says why none did though more than one was asked for."""

    states: int
    workers: int
    worker_processes: int
    sequential_because: str = ""
    lost: tuple[str, ...] = ()  # workers lost on the way (this process did their work)

    def text(self) -> str:
        if self.worker_processes:
            lost = "".join(f"; {w}" for w in self.lost)
            return f"{self.worker_processes} worker processes expanded the states{lost}"
        if self.workers > 1:
            return (
                f"in this process, though {self.workers} were asked for: {self.sequential_because}"
            )
        return "in this process"


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
    # How each explicit exploration was shared among processes, in the order they ran.
    searches: list[SearchProcesses] = field(default_factory=list)

    def rules_never_fired(self) -> list[str]:
        return [name for name, n in self.coverage.items() if n == 0]

    def outcomes(self) -> dict[str, Outcome]:
        """Each property's judgement, by name, in the order of the results: the single source
        of pass and fail (the exit code and every report format, JUnit's too, read it).

        With two engines a property is judged on its best justified verdict: a symbolic UNKNOWN
        does not undo an explicit EXHAUSTIVE (reports still show both rows, with the reason).
        A property fails when the engines disagree (an ``engines-agree`` result), when any engine
        finds it vacuous, when an engine found a violation trace it did not expect (one found
        with other values of bounds left open is no disagreement, but still a failure), when a
        scenario pins another verdict, or when no engine's verdict meets its expectation and some
        engine reached a verdict; it is unknown when every engine said UNKNOWN (or proved it
        with its vacuity undecided).
        """
        by_name: dict[str, list[PropertyResult]] = {}
        for r in self.results:
            by_name.setdefault(r.name, []).append(r)
        return {name: _judge(results) for name, results in by_name.items()}

    @property
    def exit_code(self) -> int:
        """0 every property met its expectation; 1 one did not; 3 one has only UNKNOWN verdicts
        (see :meth:`outcomes`)."""
        judged = set(self.outcomes().values())
        return 1 if Outcome.FAILED in judged else 3 if Outcome.UNKNOWN in judged else 0


class Outcome(Enum):
    """How a property fared, all engines considered (:meth:`CheckReport.outcomes`)."""

    PASSED = "passed"
    FAILED = "failed"
    UNKNOWN = "unknown"


def _judge(results: list[PropertyResult]) -> Outcome:
    if any(r.kind == "engines-agree" or r.vacuous for r in results):
        return Outcome.FAILED
    if any(
        r.verdict is Verdict.VIOLATED and r.trace is not None and not r.meets_expectation
        for r in results
    ):
        return Outcome.FAILED
    if any(r.pinned and r.verdict.value != r.pinned for r in results):
        return Outcome.FAILED
    if any(r.meets_expectation for r in results):
        return Outcome.PASSED
    if all(r.verdict is Verdict.UNKNOWN or r.vacuity_undecided for r in results):
        return Outcome.UNKNOWN
    return Outcome.FAILED


# -- the rule-change report (turnproof diff) ------------------------------------------------------


@dataclass(frozen=True)
class VerdictChange:
    """How one property fared on the base rule set and on the amended one: ``change`` is
    ``worse`` (it met its expectation on the base and no longer does), ``better``, ``same``,
    ``unknown`` (an UNKNOWN on either side, where the other differs), ``only in base`` or ``only in
    amended``. The verdicts are per engine, ``(engine, verdict)``."""

    name: str
    change: str
    base: str  # the outcome: passed, failed, unknown, or "" when the side has no such property
    amended: str
    expect: str
    base_verdicts: tuple[tuple[str, str], ...] = ()
    amended_verdicts: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class ReplayRow:
    """A step of a trace replayed on the other rule set (the one it was not found on):
    ``other`` is ``same`` (the same rule instance leads to the same state there), ``not enabled``
    (``instead`` lists what is), ``different`` (``differences``: field, the trace's value, the
    other side's), or empty after the divergence (not replayed). ``note`` says how the step's
    rule differs between the two rule sets, if it does."""

    number: int
    step: TraceStep
    other: str
    instead: tuple[str, ...] = ()
    differences: tuple[tuple[str, Any, Any], ...] = ()
    note: str = ""

    @property
    def diverges(self) -> bool:
        return self.other in ("not enabled", "different")


@dataclass(frozen=True)
class Behaviour:
    """A behaviour gained or lost: a property newly violated or witnessed on one side (or no
    longer), with the shortest trace and its replay on the other rule set, step by step."""

    property: str
    engine: str
    what: str  # "newly violated", "newly witnessed", "no longer violated", "no longer witnessed"
    found_in: str  # "base" or "amended": the side whose engine found the trace
    trace: Trace
    rows: tuple[ReplayRow, ...]
    diverges_at: int | None  # the first step where the other side differs (0: the start)


@dataclass(frozen=True)
class Reachability:
    """The two explorations compared: their states, the states reachable in one and not the
    other (compared over the fields both schemas share), and the rules that fire in one only
    (name, citation, transitions)."""

    base_states: int
    amended_states: int
    only_base: int
    only_amended: int
    compared_fields: tuple[str, ...]
    ignored_fields: tuple[str, ...]
    complete: bool
    rules_only_base: tuple[tuple[str, str, int], ...] = ()
    rules_only_amended: tuple[tuple[str, str, int], ...] = ()
    # The shortest traces to the shallowest states that became reachable (found on the amended
    # side) and unreachable (found on the base side), the first few in breadth-first order.
    gained: tuple[Trace, ...] = ()
    lost: tuple[Trace, ...] = ()


@dataclass(frozen=True)
class Mutation:
    """The base rule set with one rule removed or altered (``how``), and the properties whose
    outcome flipped against the base at the same bounds."""

    rule: str
    citation: str
    how: str  # "removed", or "altered: clause=value"
    flipped: tuple[str, ...]
    unknown: tuple[str, ...] = ()
    error: str = ""

    @property
    def removed(self) -> bool:
        return self.how == "removed"


@dataclass(frozen=True)
class LoadBearing:
    """Which properties depend on which rules, by mutation at ``bounds``."""

    bounds: dict[str, int]
    properties: tuple[str, ...]
    mutations: tuple[Mutation, ...]
    seconds: float = 0.0

    def table(self) -> list[tuple[str, str, dict[str, str]]]:
        """One row per rule of the base: (rule, citation, property -> ``R`` (flips when the rule
        is removed), ``A`` (when it is altered), ``RA`` (both), ``?`` (UNKNOWN))."""
        rows: dict[str, tuple[str, dict[str, str]]] = {}
        for m in self.mutations:
            _, marks = rows.setdefault(m.rule, (m.citation, {}))
            mark = "R" if m.removed else "A"
            for p in m.flipped:
                if mark not in marks.get(p, ""):
                    marks[p] = "".join(sorted(marks.get(p, "") + mark, key="RA?".index))
            for p in m.unknown:
                marks.setdefault(p, "?")
        return [(rule, cite, marks) for rule, (cite, marks) in rows.items()]


@dataclass
class RuleChange:
    """Everything one ``turnproof diff BASE AMENDED`` produced."""

    base: CheckReport
    amended: CheckReport
    base_label: str
    amended_label: str
    amendments: tuple[str, ...]
    changes: tuple[VerdictChange, ...]
    behaviours: tuple[Behaviour, ...]
    reach: Reachability | None
    load_bearing: LoadBearing | None = None

    @property
    def worse(self) -> list[str]:
        return [c.name for c in self.changes if c.change == "worse"]

    @property
    def exit_code(self) -> int:
        """1 when some property's verdict got worse; else 3 when a property is unknown on
        either side, judged as ``check`` judges it (:meth:`CheckReport.outcomes`: only UNKNOWN
        verdicts); else 0."""
        if self.worse:
            return 1
        sides = (self.base.outcomes(), self.amended.outcomes())
        return 3 if any(Outcome.UNKNOWN in side.values() for side in sides) else 0


# -- conformance suites (checks/conformance.py builds them) ---------------------------------


@dataclass(frozen=True)
class Step:
    """One step of a fixture: the rule instance that fires, its citation, whose choice it is and
    who makes it (``None`` for an automatic rule), the state after it, and the rule instances
    legal in that state (an engine that offers one more, or one fewer, is wrong there)."""

    action: str
    rule: str
    summary: str
    decider: int | None
    decided_by: int | None
    state: dict[str, Any]
    legal: tuple[str, ...] = ()


@dataclass(frozen=True)
class Fixture:
    """A shortest trace from an initial state, with the rules and pairs of rules it covers."""

    name: str
    start: dict[str, Any]
    steps: tuple[Step, ...]
    start_legal: tuple[str, ...]  # the rule instances legal in the start state
    rules: tuple[str, ...]  # the rules it fires ("MTG 514.3a cleanup_repeats"), in trace order
    pairs: tuple[tuple[str, str], ...]  # the pairs of rules enabled together in one of its states
    targets: tuple[str, ...]  # what it was chosen for (a rule, or "A + B" for a pair)


@dataclass(frozen=True)
class Suite:
    ruleset: dict[str, Any]  # name, version, content hash, amendments
    bounds: dict[str, int]
    observable: tuple[str, ...]  # the fields a fixture's states show (empty: all of them)
    states: int
    fixtures: tuple[Fixture, ...]
    rules: tuple[str, ...]  # every rule that fires within the bounds
    pairs: tuple[tuple[str, str], ...]  # every pair of rules enabled together in some state
    never_fired: tuple[str, ...]  # rules of the rule set that never fire within the bounds


# -- generated mutants (checks/mutate.py) ------------------------------------------------------

OPERATORS = ("drop-guard", "drop-conjunct", "flip-comparison", "swap-player", "keep-field")

DOMAIN_CHECK = "domain-check"

#: The reason an equivalent mutant gives when its rule never fires on the base within the bounds.
DORMANT = (
    "its rule never fires on the base within these bounds, so nothing here can tell it apart: "
    "equivalent within these bounds only"
)


@dataclass(frozen=True)
class Generated:
    """One generated mutant: the rule, the operator, where and what, and the mutated rule
    (``None`` with ``error`` when the mutated source does not compile)."""

    id: str  # rule:operator:n, unique and stable
    rule: str
    citation: str
    card: str
    operator: str
    target: str  # the function mutated
    module: str  # the module it is defined in
    line: int  # the line in the function's file
    what: str
    mutated: Any = field(default=None, compare=False, repr=False)  # the mutated Rule
    error: str = ""
    # For a card's hook (``rule`` is then ``CARD.HOOK``): the amendment that puts the mutated
    # function in its place, instead of a mutated rule.
    amendment: Any = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class Changed:
    """The changed behaviour of a surviving mutant: the shortest trace to a state reachable on
    one side only (``side``: ``base`` or ``mutant``), or to a state where a rule instance is
    enabled on one side only (``rule``); replayed on the other side."""

    side: str
    trace: Trace
    rows: tuple[ReplayRow, ...]
    diverges_at: int | None
    rule: str = ""  # the rule instance enabled on ``side`` only, at the trace's last state


@dataclass(frozen=True)
class MutantResult:
    mutant: Generated
    status: str  # killed, survived, equivalent, invalid
    killed_by: tuple[str, ...] = ()
    reason: str = ""  # why invalid, or what a domain check found
    explained: str = ""  # why a survivor is not a bug (a data file's word)
    changed: Changed | None = None
    states: int = 0
    transitions: int = 0
    seconds: float = 0.0


@dataclass(frozen=True)
class MutationReport:
    ruleset: dict[str, Any]
    bounds: dict[str, int]
    properties: tuple[str, ...]
    reference: dict[str, str]  # each property's outcome on the base
    base_states: int
    base_transitions: int
    results: tuple[MutantResult, ...]
    seconds: float = 0.0

    def count(self, status: str, operator: str | None = None) -> int:
        return sum(
            1
            for r in self.results
            if r.status == status and (operator is None or r.mutant.operator == operator)
        )

    @property
    def kill_rate(self) -> float | None:
        """killed / (killed + survived); ``None`` when there is neither."""
        k, s = self.count("killed"), self.count("survived")
        return k / (k + s) if k + s else None

    @property
    def holes(self) -> tuple[MutantResult, ...]:
        return tuple(r for r in self.results if r.status == "survived" and not r.explained)
