"""The proof report: one value, built once from a check, that every format renders.

:func:`build_report` takes a :class:`~turnproof.checks.results.CheckReport` and what the
command line knows about the run (:class:`Run`: turnproof's version, the exact command, the
limits, the wall time and peak memory) and returns a :class:`ProofReport`. The text, Markdown,
HTML, JSON, JUnit and ITF renderers lay that value out; none of them decides anything of its
own. In particular, whether a property passed is :meth:`CheckReport.outcomes
<turnproof.checks.results.CheckReport.outcomes>` and whether a result met its expectation is
``PropertyResult.meets_expectation``: the exit code and JUnit read the same answers.

What a reader of any format gets (the issue's list, in order):

* a header that reproduces the run: turnproof's version, the rule set's name, version and
  content hash, the amendments, the bounds, the reductions used and their caveats, the limits
  and the exact command line;
* one verdict per property and engine, with what it means: PROVED with its method and
  certificate, EXHAUSTIVE with its bounds, VIOLATED or WITNESSED with a trace, UNKNOWN with
  its reason;
* each trace as a story (:class:`Story`): a step a line, citing its rule, saying who decided and
  only what changed, and a replay line;
* rule coverage and the figures: states, edges, depth, time and peak memory.

Text here is content, not layout: sentences and formatted values (``format_value``), so that
every format says the same thing in the same words.

>>> format_value([0, 1])
'[0, 1]'
>>> format_value({"ctrl": 1, "live": True})
'{ctrl: 1, live: true}'
"""

from __future__ import annotations

import importlib.metadata
import re
import resource
import shlex
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from turnproof.checks.results import (
    CheckReport,
    Outcome,
    PropertyResult,
    StateGraph,
    Trace,
    TraceStep,
    TurnStructure,
    Verdict,
)

#: A certificate list longer than this (an invariant's claims) is counted in the human formats
#: and listed in full in the JSON one.
LONG_LIST = 20

#: Up to this many bounds are repeated in each EXHAUSTIVE line; more are only in the header.
INLINE_BOUNDS = 6

_EXPECT_TEXT = {
    "holds": "to hold",
    "violated": "to be violated",
    "witnessed": "to be witnessed",
}


# -- values -----------------------------------------------------------------------------------


def format_value(value: Any) -> str:
    """A described state value as a judge would write it: enum names bare, sequences as lists."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list | tuple):
        return "[" + ", ".join(format_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {format_value(v)}" for k, v in value.items()) + "}"
    return str(value)


def format_seconds(seconds: float) -> str:
    return f"{seconds:.2f} s"


def format_memory(kib: int) -> str:
    return f"{kib / 1024:.1f} MiB"


def format_bounds(bounds: Mapping[str, int]) -> str:
    return ", ".join(f"{k}={v}" for k, v in bounds.items()) or "(none)"


def plural(n: int, word: str, plural_form: str = "") -> str:
    return f"{n:,} {word if n == 1 else (plural_form or word + 's')}"


def diff_lines(path: str, old: Any, new: Any) -> list[str]:
    """``path: old → new``, narrowed to the parts that changed: a record's fields and the
    entries of an array (or sequence) whose length stayed the same are compared one by one
    (``res.what: NONE → SUNDIAL``, ``used[0]: 0 → 1``); a sequence that grew or shrank is shown
    whole (``stack: [] → [1]``).

    >>> diff_lines("res", {"ctrl": 0, "what": "NONE"}, {"ctrl": 0, "what": "SUNDIAL"})
    ['res.what: NONE → SUNDIAL']
    """
    if isinstance(old, dict) and isinstance(new, dict) and old.keys() == new.keys():
        return [
            ln for k in old if old[k] != new[k] for ln in diff_lines(f"{path}.{k}", old[k], new[k])
        ]
    if isinstance(old, list) and isinstance(new, list) and len(old) == len(new):
        return [
            ln
            for i, (a, b) in enumerate(zip(old, new))
            if a != b
            for ln in diff_lines(f"{path}[{i}]", a, b)
        ]
    return [f"{path}: {format_value(old)} → {format_value(new)}"]


def state_changes(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[str]:
    """The lines of :func:`diff_lines` for every field of two described states."""
    return [ln for k in new if old.get(k) != new[k] for ln in diff_lines(k, old.get(k), new[k])]


# -- the run ----------------------------------------------------------------------------------


def turnproof_version() -> str:
    """This installation's version (``importlib.metadata``), or ``unknown``."""
    try:
        return importlib.metadata.version("turnproof")
    except importlib.metadata.PackageNotFoundError:
        return "unknown"


def peak_memory_kib() -> tuple[int, int]:
    """The peak resident memory of this process and of its largest finished child process
    (the symbolic engine's workers), in KiB (``getrusage``; Linux counts in KiB)."""
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return int(own), int(children)


@dataclass(frozen=True)
class Reduction:
    """A reduction of the state space (symmetric players, interchangeable copies), and the
    caveat that says when its verdicts carry over to the unreduced game."""

    name: str
    caveat: str


@dataclass(frozen=True)
class Run:
    """What the command line knows about a run: what reproduces it and what it cost. The
    measurements (``wall_seconds``, the peak memories) are the values that vary between runs."""

    version: str = ""
    argv: tuple[str, ...] = ()  # the arguments after the program name, as given
    engine_note: str = ""
    max_states: int | None = None
    max_seconds: float | None = None
    wall_seconds: float | None = None
    peak_memory_kib: int | None = None
    peak_worker_memory_kib: int | None = None
    reductions: tuple[Reduction, ...] = ()

    @property
    def command_line(self) -> str:
        """The command as a shell line that runs it again (empty when it is not known)."""
        return "turnproof " + shlex.join(self.argv) if self.argv else ""

    @classmethod
    def measured(
        cls,
        argv: Sequence[str],
        started: float,
        *,
        engine_note: str = "",
        max_states: int | None = None,
        max_seconds: float | None = None,
    ) -> Run:
        """The run that began at ``started`` (``time.perf_counter()``) and ends now."""
        own, children = peak_memory_kib()
        return cls(
            version=turnproof_version(),
            argv=tuple(argv),
            engine_note=engine_note,
            max_states=max_states,
            max_seconds=max_seconds,
            wall_seconds=time.perf_counter() - started,
            peak_memory_kib=own,
            peak_worker_memory_kib=children,
        )

    def limits_text(self) -> str:
        parts = []
        if self.max_states is not None:
            parts.append(f"at most {self.max_states:,} states")
        if self.max_seconds is not None:
            parts.append(f"at most {self.max_seconds:g} s")
        return ", ".join(parts) or "none (the engines' defaults)"


# -- the header -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Header:
    """Everything that identifies the run, as lines of content (``label``, ``text``)."""

    ruleset: str
    version: str
    content_hash: str
    bounds: dict[str, int]
    engines: tuple[str, ...]
    lines: tuple[tuple[str, str], ...]  # (label, text), in the order a reader wants them
    run: Run


def _header(report: CheckReport, run: Run) -> Header:
    rs = report.ruleset
    lines: list[tuple[str, str]] = []
    scenario = rs.get("scenario")
    if scenario:
        title = f": {scenario['title']}" if scenario.get("title") else ""
        where = f" ({scenario['origin']})" if scenario.get("origin") else ""
        lines.append(("scenario", f"{scenario['name']}{title}{where}"))
    if rs.get("cards"):
        lines.append(("cards in play", "; ".join(rs["cards"])))
    if rs.get("amendment"):
        lines.append(("amendment file", rs["amendment"]))
    if rs.get("amended"):
        lines.append(("amended", "; ".join(rs["amended"])))
    mutant = rs.get("mutant")
    if mutant:
        lines.append(
            (
                "mutant",
                f"{mutant['name']}: {mutant['description']}; "
                f"it should break: {', '.join(mutant['breaks']) or '(nothing named)'}",
            )
        )
    lines.append(("bounds", format_bounds(report.bounds)))
    opened = sorted({name for r in report.results for name in r.for_all})
    if opened:
        lines.append(
            (
                "left open by the symbolic engine",
                f"{', '.join(opened)} (its PROVED verdicts hold for every value; the explicit "
                "engine checks the values above)",
            )
        )
    engines = " and ".join(report.engines)
    lines.append(("engine", engines + (f" ({run.engine_note})" if run.engine_note else "")))
    if run.version:
        reductions = "; ".join(f"{r.name} ({r.caveat})" for r in run.reductions)
        lines.append(("reductions", reductions or "none: every state is explored as it is"))
        lines.append(("limits", run.limits_text()))
        lines.append(("turnproof version", run.version))
    if run.command_line:
        lines.append(("command", run.command_line))
    return Header(
        ruleset=str(rs.get("name", "?")),
        version=str(rs.get("version", "?")),
        content_hash=str(rs.get("content_hash", "?")),
        bounds=dict(report.bounds),
        engines=tuple(report.engines),
        lines=tuple(lines),
        run=run,
    )


# -- verdicts ---------------------------------------------------------------------------------


def met_text(r: PropertyResult) -> str:
    """The "as expected" cell: ``yes``, or ``NO`` with what was expected."""
    if r.meets_expectation:
        return "yes"
    if r.verdict is Verdict.UNKNOWN:
        return "unknown"
    if r.vacuity_undecided:
        return "unknown (vacuity undecided)"
    if r.vacuous:
        return "NO (vacuous)"
    return f"NO (expected {_EXPECT_TEXT.get(r.expect, r.expect)})"


def expect_text(expect: str) -> str:
    return _EXPECT_TEXT.get(expect, expect)


def shows_trace(r: PropertyResult) -> bool:
    """Traces are shown for every violation and witness, and for every unmet expectation."""
    return r.trace is not None and (
        not r.meets_expectation or r.verdict in (Verdict.VIOLATED, Verdict.WITNESSED)
    )


def verdict_line(r: PropertyResult, report_bounds: Mapping[str, int] | None = None) -> str:
    """What the verdict means, in one line: its bounds, its reason, its certificate."""
    v = r.verdict
    if v is Verdict.EXHAUSTIVE:
        if r.bounds == report_bounds and len(r.bounds) > INLINE_BOUNDS:
            text = f"EXHAUSTIVE within the {len(r.bounds)} bounds above"
        else:
            text = f"EXHAUSTIVE within {format_bounds(r.bounds)}"
        if r.bounds_reached:
            cuts = "; ".join(
                f"bound reached: {name} ({plural(n, 'transition')} cut)"
                for name, n in r.bounds_reached.items()
            )
            text += f"; {cuts}"
        else:
            text += "; no bound was reached"
    elif v is Verdict.PROVED:
        text = "PROVED for " + (r.holds_for or "every bound (an unbounded proof)")
    elif v is Verdict.UNKNOWN:
        text = "UNKNOWN: " + (r.reason or "no reason given")
    elif v is Verdict.WITNESSED:
        n = len(r.trace) if r.trace is not None else 0
        text = f"WITNESSED by a trace of {plural(n, 'step')}"
        if r.trace is not None and r.trace.bounds:
            text += f" with {format_bounds(r.trace.bounds)}"
    else:
        text = "VIOLATED"
        if r.trace is not None:
            t = r.trace
            if t.loop_start is not None:
                loop = len(t) - t.loop_start
                text += f": a loop of {plural(loop, 'step')}, entered after {plural(t.loop_start, 'step')}"
            else:
                text += f": a counterexample of {plural(len(t), 'step')}"
            if t.bounds:
                text += f" with {format_bounds(t.bounds)}"
    if r.reason and v is not Verdict.UNKNOWN:
        text += f" ({r.reason})"
    return text


def certificate_lines(r: PropertyResult) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """A PROVED result's certificate as (key, lines of its value), keys sorted; a long list
    is counted (the JSON report lists it)."""
    if r.verdict is not Verdict.PROVED or not r.certificate:
        return ()
    out: list[tuple[str, tuple[str, ...]]] = []
    for k, v in sorted(r.certificate.items()):
        if isinstance(v, list) and len(v) > LONG_LIST:
            out.append((k, (f"{len(v)} entries (listed in the JSON report)",)))
            continue
        # A formula may span lines; its continuation lines stay together.
        lines = format_value(v).splitlines() or [""]
        out.append((k, (lines[0], *(ln.strip() for ln in lines[1:]))))
    return tuple(out)


def replay_command(report: CheckReport, r: PropertyResult) -> str:
    """The command line that checks this one property again, on the same rule set and bounds."""
    rs = report.ruleset
    scenario = rs.get("scenario")
    amendment = ["--amend", shlex.quote(rs["amendment"])] if rs.get("amendment") else []
    if scenario:  # the scenario says everything else
        target = scenario.get("origin") or scenario["name"]
        parts = ["turnproof", "check", shlex.quote(target), *amendment]
        if r.kind != "state-count":
            parts += ["--property", r.name]
        return " ".join(parts + ["--engine", r.engine])
    parts = ["turnproof", "check", str(rs.get("name", "")), *amendment, "--property", r.name]
    parts += ["--engine", r.engine]
    if rs.get("variant"):
        parts += ["--variant", rs["variant"]]
    if rs.get("mutant"):
        parts += ["--mutant", rs["mutant"]["name"]]
    # The bounds that differ from the rule set's defaults when the runner said so; all else.
    for k, v in rs.get("bounds_changed", report.bounds).items():
        parts += ["--bound", f"{k}={v}"]
    return " ".join(parts)


def mutant_verdict(report: CheckReport, name: str, breaks: Sequence[str]) -> str:
    """Whether the properties that should catch the mutant did: a property catches it by
    missing its expectation (a violation, or a witness that disappeared)."""
    checked = {r.name for r in report.results}
    caught = sorted(
        {
            r.name
            for r in report.results
            if r.name in breaks
            and not r.meets_expectation
            and r.verdict is not Verdict.UNKNOWN
            and not r.vacuity_undecided
        }
    )
    if caught:
        return f"the mutant {name} is caught by: {', '.join(caught)}"
    expected = sorted(set(breaks) & checked)
    if not expected:
        return f"the mutant {name} should be caught by {', '.join(breaks) or '(nothing named)'}, which was not checked"
    return (
        f"the mutant {name} is NOT caught: {', '.join(expected)} met its expectation or is unknown"
    )


# -- traces -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class StoryStep:
    """One step of a story: it leads to state ``number``. ``rule`` is the citation (with the
    card it comes from); ``params`` the rule instance's parameters (``[trig=1]``)."""

    number: int
    rule: str
    params: str
    summary: str
    decider: int | None
    changes: tuple[str, ...]  # ``path: old → new``; empty when nothing changed
    closes_loop: bool = False  # this step returns to the state where the loop starts
    loop_starts_after: bool = False
    decided_by: int | None = None

    @property
    def who(self) -> str:
        """``(decided by player 1)``, or, when another player controls the decider (723),
        ``(player 1's choice, decided by player 0 under MTG 723)``; empty for no choice."""
        return who_decides(self.decider, self.decided_by)

    @property
    def line(self) -> str:
        """``MTG 117.4 [trig=1] the top of the stack resolves (decided by player 1)``."""
        parts = [self.rule]
        if self.params:
            parts.append(self.params)
        parts.append(self.summary)
        if self.who:
            parts.append(self.who)
        return " ".join(parts)


def who_decides(decider: int | None, decided_by: int | None) -> str:
    """Whose choice a step is and who made it (they differ under MTG 723)."""
    if decider is None:
        return ""
    if decided_by is None or decided_by == decider:
        return f"(decided by player {decider})"
    return f"(player {decider}'s choice, decided by player {decided_by} under MTG 723)"


@dataclass(frozen=True)
class Story:
    """A trace told as a story: the whole initial state, then a step a line with only the
    fields that changed; for a lasso, where the loop starts and who could break it."""

    initial: tuple[tuple[str, str], ...]  # (field, formatted value)
    steps: tuple[StoryStep, ...]
    loop_start: int | None = None
    loop_note: tuple[str, ...] = ()
    open_bounds: str = ""  # "turns=2, ..." when the trace needs values of open bounds
    replay: str = ""


def _params_of(step: TraceStep) -> str:
    """``resolve(trig=1)`` → ``[trig=1]``; nothing for a rule without parameters."""
    name = step.name
    if "(" in name and name.endswith(")"):
        return "[" + name[name.index("(") + 1 : -1] + "]"
    return ""


def step_changes(step: TraceStep) -> tuple[str, ...]:
    return tuple(ln for k, (old, new) in step.changed.items() for ln in diff_lines(k, old, new))


def story_of(trace: Trace, exits_known: bool = True, replay: str = "") -> Story:
    """The story of ``trace``. ``exits_known=False`` says that the engine did not look for
    ways out of a loop, so an empty ``trace.exits`` proves nothing."""
    loop = trace.loop_start
    steps = tuple(
        StoryStep(
            number=k,
            rule=f"{s.rule} (card: {s.card})" if s.card else s.rule,
            params=_params_of(s),
            summary=s.summary,
            decider=s.decider,
            decided_by=s.decided_by,
            changes=step_changes(s),
            closes_loop=loop is not None and k == len(trace.steps),
            loop_starts_after=loop is not None and k == loop,
        )
        for k, s in enumerate(trace.steps, start=1)
    )
    return Story(
        initial=tuple((k, format_value(v)) for k, v in trace.initial.items()),
        steps=steps,
        loop_start=loop,
        loop_note=tuple(_loop_exits(trace, exits_known)) if loop is not None else (),
        open_bounds=format_bounds(trace.bounds) if trace.bounds else "",
        replay=replay,
    )


def _loop_exits(trace: Trace, exits_known: bool) -> list[str]:
    assert trace.loop_start is not None
    if not trace.exits and not exits_known:
        return [
            "who could break this loop was not computed by this engine; "
            "the explicit engine (--engine explicit) lists the ways out"
        ]
    if not trace.exits:
        if trace.forced is False:
            return [
                "nobody can break this loop: players have choices on it, but after each of them "
                "the game stays in the region (the choices only delay the loop)"
            ]
        if trace.forced is None:
            return ["nobody can break this loop: no move on it leads out of the region"]
        line = "nobody can break this loop: every step is forced (a mandatory loop"
        if any(s.rule.startswith("MTG ") for s in trace.steps):
            line += "; MTG 104.4b makes the game a draw"
        return [line + ")"]
    lines = ["ways off the loop (after each, the game can leave the region without coming back):"]
    for e in trace.exits:
        step = trace.loop_start + e.at + 1
        where = f"at step {step} (in state {step - 1})"
        choice = f"{e.rule} {e.name}"
        if e.decider is None:
            lines.append(f"  no player decides, but the rules allow leaving {where} by {choice}")
        elif e.decided_by is not None and e.decided_by != e.decider:
            lines.append(
                f"  player {e.decided_by} can leave the loop {where} by choosing {choice} for "
                f"player {e.decider}, whom they control (MTG 723)"
            )
        else:
            lines.append(f"  player {e.decider} can leave the loop {where} by choosing {choice}")
    return lines


# -- the report -------------------------------------------------------------------------------


def trace_file_name(r: PropertyResult) -> str:
    """``traces/<property>-<engine>.itf.json``, in characters every file system takes."""
    safe = re.sub(r"[^A-Za-z0-9._-]", "_", f"{r.name}-{r.engine}")
    return f"traces/{safe}.itf.json"


@dataclass(frozen=True)
class Entry:
    """One result (a property on one engine) with everything a format shows of it."""

    result: PropertyResult
    outcome: Outcome  # the property's, all engines considered
    met: str
    verdict_line: str
    method: str  # how a PROVED was proved (the certificate's method)
    certificate: tuple[tuple[str, tuple[str, ...]], ...]
    story: Story | None  # for every violation, witness or unmet expectation with a trace
    replay: str
    trace_file: str  # where --out writes the trace in ITF; empty without a trace
    graph: StateGraph | None = None  # the neighbourhood of the trace, when drawn

    @property
    def name(self) -> str:
        return self.result.name

    @property
    def engine(self) -> str:
        return self.result.engine

    @property
    def verdict(self) -> Verdict:
        return self.result.verdict

    @property
    def title(self) -> str:
        r = self.result
        title = f"{r.name} [{r.engine}]: {r.verdict.value}"
        if not r.meets_expectation and r.verdict is not Verdict.UNKNOWN:
            title += f", {self.met}"
        return title


@dataclass(frozen=True)
class ProofReport:
    """The value every format renders. ``check`` is the run's results as the engines gave
    them (the JSON and ITF renderings read their raw values); everything else is derived from
    it once, here."""

    check: CheckReport
    run: Run
    header: Header
    entries: tuple[Entry, ...]
    outcomes: dict[str, Outcome]
    exit_code: int
    summary: tuple[str, ...]
    coverage: tuple[tuple[str, int], ...]
    figures: tuple[tuple[str, str], ...]  # (label, text): explorations, time, peak memory
    turn_structure: TurnStructure | None = None
    notes: tuple[str, ...] = field(default=())  # what could not be drawn, and why

    @property
    def never_fired(self) -> tuple[str, ...]:
        return tuple(self.check.rules_never_fired())

    @property
    def coverage_text(self) -> str:
        """The rule-coverage line of the summary (empty when the explicit engine did not run)."""
        return coverage_line(self.check) if self.coverage else ""

    @property
    def conclusions(self) -> tuple[str, ...]:
        """The summary but for its coverage line: the results counted, the mutant's fate."""
        return tuple(line for line in self.summary if line != self.coverage_text)

    @property
    def overall(self) -> Outcome:
        """Failed when a property failed, else unknown when one is, else passed."""
        judged = set(self.outcomes.values())
        for o in (Outcome.FAILED, Outcome.UNKNOWN):
            if o in judged:
                return o
        return Outcome.PASSED

    @property
    def headline(self) -> str:
        """``6 properties: 4 passed, 2 failed``."""
        counts = {o: sum(1 for v in self.outcomes.values() if v is o) for o in Outcome}
        text = f"{plural(len(self.outcomes), 'property', 'properties')}: "
        text += f"{counts[Outcome.PASSED]} passed"
        for o in (Outcome.FAILED, Outcome.UNKNOWN):
            if counts[o]:
                text += f", {counts[o]} {o.value}"
        return text

    def traces(self) -> list[Entry]:
        """The entries with a trace (violations and witnesses): one ITF file each."""
        return [e for e in self.entries if e.trace_file]


def _summary(report: CheckReport, exit_code: int) -> tuple[str, ...]:
    results = report.results
    met = sum(1 for r in results if r.meets_expectation)
    unknown = sum(1 for r in results if r.verdict is Verdict.UNKNOWN or r.vacuity_undecided)
    failed = len(results) - met - unknown
    parts = [f"{plural(len(results), 'result')}: {met} as expected"]
    if failed:
        parts.append(f"{failed} not as expected")
    if unknown:
        parts.append(f"{unknown} unknown")
    judged = list(report.outcomes().values())
    by_property = ", ".join(
        f"{sum(1 for o in judged if o is outcome)} {outcome.value}"
        for outcome in Outcome
        if outcome is Outcome.PASSED or outcome in judged
    )
    lines = [
        ", ".join(parts)
        + f"; by property (the best justified verdict of each): {by_property}"
        + f" (exit code {exit_code})"
    ]
    if report.coverage:
        lines.append(coverage_line(report))
    mutant = report.ruleset.get("mutant")
    if mutant:
        lines.append(mutant_verdict(report, mutant["name"], mutant["breaks"]))
    return tuple(lines)


def coverage_line(report: CheckReport) -> str:
    never = report.rules_never_fired()
    fired = len(report.coverage) - len(never)
    line = f"rule coverage: {fired} of {len(report.coverage)} rules fired within these bounds"
    if never:
        line += "; never fired (no verdict covers them): " + ", ".join(never)
    return line


def _figures(report: CheckReport, run: Run) -> tuple[tuple[str, str], ...]:
    """The explicit explorations (states, edges, depth: one per distinct exploration, the
    product with monitors being another), the wall time and the peak memory (of the worker
    processes too when the symbolic engine ran: only it starts any)."""
    seen: dict[tuple[int, int, int], None] = {}
    for r in report.results:
        if r.engine == "explicit" and r.depth is not None and r.kind != "state-count":
            seen.setdefault((r.states, r.transitions, r.depth), None)
    out = [
        (
            "explored",
            f"{plural(states, 'state')}, {plural(edges, 'edge')}, depth {depth:,}",
        )
        for states, edges, depth in seen
    ]
    if any(s.workers > 1 for s in report.searches):
        texts = list(dict.fromkeys(s.text() for s in report.searches))
        out.append(("explicit search", "; ".join(texts)))
    if run.wall_seconds is not None:
        out.append(("wall time", format_seconds(run.wall_seconds)))
    if run.peak_memory_kib is not None:
        memory = f"{format_memory(run.peak_memory_kib)} (this process)"
        if run.peak_worker_memory_kib and "symbolic" in report.engines:
            memory += f", {format_memory(run.peak_worker_memory_kib)} (largest worker process)"
        out.append(("peak memory", memory))
    return tuple(out)


def build_report(
    report: CheckReport,
    run: Run | None = None,
    *,
    graphs: Mapping[tuple[str, str], StateGraph] | None = None,
    turn_structure: TurnStructure | None = None,
    notes: Sequence[str] = (),
) -> ProofReport:
    """The proof report of ``report``. ``graphs`` maps (property, engine) to the drawn
    neighbourhood of that result's trace; ``notes`` say what could not be drawn."""
    run = run or Run()
    graphs = graphs or {}
    outcomes = report.outcomes()
    entries = []
    for r in report.results:
        replay = replay_command(report, r)
        story = None
        if shows_trace(r):
            assert r.trace is not None
            # Only the explicit engine records a loop's ways out (results.Trace cannot yet say
            # "not computed"), so an empty list from another engine is not a mandatory loop.
            story = story_of(r.trace, r.trace.exits is not None, replay)
        entries.append(
            Entry(
                result=r,
                outcome=outcomes[r.name],
                met=met_text(r),
                verdict_line=verdict_line(r, report.bounds),
                method=str((r.certificate or {}).get("method", ""))
                if r.verdict is Verdict.PROVED
                else "",
                certificate=certificate_lines(r),
                story=story,
                replay=replay,
                trace_file=trace_file_name(r) if r.trace is not None else "",
                graph=graphs.get((r.name, r.engine)),
            )
        )
    exit_code = report.exit_code
    return ProofReport(
        check=report,
        run=run,
        header=_header(report, run),
        entries=tuple(entries),
        outcomes=outcomes,
        exit_code=exit_code,
        summary=_summary(report, exit_code),
        coverage=tuple(report.coverage.items()),
        figures=_figures(report, run),
        turn_structure=turn_structure,
        notes=tuple(notes),
    )
