"""Run the chosen engines on a model and gather one report: what ``turnproof check`` executes.

The runner picks the properties, instantiates the (possibly amended) rule set with its bounds,
calls each engine, and returns a :class:`~turnproof.checks.results.CheckReport`. Engines return
values and never print; so does the runner. Progress, if wanted, goes through the engine's
``progress(expanded, discovered, transitions)`` callback.

Two engines, one answer (DESIGN.md, "one corpus, every engine"). With ``engines=("explicit",
"symbolic")`` each property gets one result per engine, in that order, and, when the two answers
contradict each other, a third result for the same property:

* ``engine="both"``, ``kind="engines-agree"``, ``verdict=VIOLATED``, ``expect="holds"``, and a
  ``reason`` that starts with ``engines disagree:`` and names both verdicts.

The claim that the engines agree is itself a property expected to hold, so a disagreement always
fails its expectation (exit code 1), even for a property that is expected to be violated. Two
answers contradict each other when one engine says ``VIOLATED`` and the other ``PROVED`` or
``EXHAUSTIVE``, or, for a "can this happen?" query, one says ``WITNESSED`` and the other
``EXHAUSTIVE`` (no such state within the bounds). ``UNKNOWN`` contradicts nothing: it is not an
answer. ``PROVED`` and ``EXHAUSTIVE`` agree (one is unbounded, the other is not, and both hold);
``WITNESSED`` contradicts both (for a "can this happen?" query, PROVED means proved unreachable).
A trace that the symbolic engine found with other values of the bounds it left open (``--for-all``
or a property's ``for_all``) contradicts nothing either: it answers another instance.
"""

from __future__ import annotations

import contextlib
import importlib
import inspect
import re
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from turnproof.checks import explicit
from turnproof.checks.explicit import Limits, Progress
from turnproof.checks.results import (
    CheckReport,
    Interrupted,
    PropertyResult,
    SearchProcesses,
    Verdict,
    loop_exits_by_state,
)
from turnproof.model.errors import BoundsError, TurnproofError, UnknownNameError, choices_text
from turnproof.model.packs import with_cards
from turnproof.model.properties import Mutant, Property
from turnproof.model.registry import builtin_rulesets
from turnproof.model.rules import Bounds, Model, RuleSet, Variant
from turnproof.model.scenario import Built, PropertySpec, Scenario, amendment_labels

ENGINES = ("explicit", "symbolic")
ENGINE_CHOICES = ("explicit", "symbolic", "both")

_HOLDS = (Verdict.PROVED, Verdict.EXHAUSTIVE)


class EngineUnavailableError(TurnproofError):
    """An engine that this installation does not provide (yet)."""


def load_symbolic() -> ModuleType:
    """The symbolic engine's module, or :class:`EngineUnavailableError`."""
    try:
        return importlib.import_module("turnproof.checks.symbolic")
    except ImportError as exc:
        raise EngineUnavailableError(
            f"the symbolic engine is not available ({exc}); use --engine explicit"
        ) from exc


def is_symbolic_available() -> bool:
    """True when the symbolic engine imports cleanly."""
    try:
        load_symbolic()
    except EngineUnavailableError:
        return False
    return True


def engines_for(choice: str) -> tuple[str, ...]:
    """The engines named by a ``--engine`` value: ``explicit``, ``symbolic`` or ``both``."""
    if choice == "both":
        return ENGINES
    if choice in ENGINES:
        return (choice,)
    raise TurnproofError(
        f"unknown engine {choice!r}; valid engines: {choices_text(ENGINE_CHOICES)}"
    )


# -- choosing what to check -------------------------------------------------------------------


_DIGITS = re.compile(r"[0-9]+")


def parse_bound(text: str, valid: Sequence[str] = ()) -> tuple[str, int]:
    """``"turns=3"`` → ``("turns", 3)``; anything else is a :class:`BoundsError`. The value is
    ASCII digits only: no sign, no spaces, no ``_`` and no other script's digits, which
    ``int()`` would all accept (``1_0`` is 10 to it, ``١`` is 1)."""
    name, sep, value = text.partition("=")
    hint = f"; bounds are {choices_text(valid)}" if valid else ""
    if not sep or not name:
        raise BoundsError(f"malformed bound {text!r}: expected NAME=INT{hint}")
    if name != name.strip():
        raise BoundsError(f"malformed bound {text!r}: no spaces around the name {name.strip()!r}")
    if not _DIGITS.fullmatch(value):
        raise BoundsError(
            f"malformed bound {text!r}: {value!r} is not a whole number written in the digits "
            "0-9 (expected NAME=INT)"
        )
    return name, int(value)


def parse_bounds(texts: Sequence[str], valid: Sequence[str] = ()) -> dict[str, int]:
    """Every ``--bound NAME=VALUE`` as a mapping; a bound given twice is a :class:`BoundsError`
    (rather than the last one silently winning)."""
    bounds: dict[str, int] = {}
    for text in texts:
        name, value = parse_bound(text, valid)
        if name in bounds:
            raise BoundsError(
                f"bound {name} is given twice ({name}={bounds[name]} and {name}={value}): "
                "give it once"
            )
        bounds[name] = value
    return bounds


@dataclass(frozen=True)
class Selection:
    """A rule set as the user asked to check it: amended, bounded, with the chosen properties.

    ``labels()`` says how the rule set was chosen (variant, mutant, scenario), for the report.
    ``scenario`` is the plain value every process can rebuild it from (``None`` for a rule set
    that is not built in: a test's own); ``built`` its resolution.
    """

    model: Model
    properties: tuple[Property, ...]
    variant: str | None = None
    mutant: Mutant | None = None
    scenario: Scenario | None = None
    built: Built | None = None
    # An amendment file applied on top of ``base`` (the selection the user named): the text
    # the user gave for it (a shipped amendment's name or a path), which a replay repeats.
    amendment: str | None = None
    base: Selection | None = None

    def labels(self) -> dict[str, Any]:
        """``variant``, ``mutant`` (name, description, breaks) when applied, and
        ``bounds_changed``: the bounds that differ from the rule set's defaults; the
        ``scenario`` it comes from and the ``amendment`` file applied, when there are."""
        if self.base is not None:
            return {**self.base.labels(), "amendment": self.amendment}
        if self.built is not None:
            return self.built.labels()
        return amendment_labels(self.model, self.variant, self.mutant)


def selection_of(built: Built) -> Selection:
    """The selection a built scenario makes."""
    sc = built.scenario
    built.model.initial_states()  # bounds that contradict each other fail now, before any work
    return Selection(built.model, built.properties, sc.variant, built.mutant, sc, built)


def select(
    ruleset: RuleSet,
    *,
    property_names: Sequence[str] = (),
    bounds: Mapping[str, int] | None = None,
    variant: str | None = None,
    mutant: str | None = None,
) -> Selection:
    """Resolve every name the user gave, failing early (a :class:`TurnproofError`) on the first
    one that does not exist. A mutant's own bounds apply unless ``bounds`` overrides them; the
    variant is applied first, then the mutant's amendments. A built-in rule set is selected as
    a :class:`~turnproof.model.scenario.Scenario`, so that worker processes rebuild it."""
    # Validate the user's names before amending anything: the errors then name what the user
    # can choose.
    for n in dict.fromkeys(property_names):
        ruleset.property(n)
    Bounds(ruleset.bound_specs, bounds)
    if mutant is not None:
        ruleset.mutant(mutant)
    if variant is not None and variant not in ruleset.variants:
        raise UnknownNameError("variant", variant, ruleset.variants)
    if builtin_rulesets().get(ruleset.name) is ruleset:
        sc = Scenario(
            ruleset.name,
            ruleset.name,
            bounds=tuple(sorted((bounds or {}).items())),
            variant=variant,
            mutant=mutant,
            properties=tuple(PropertySpec(n) for n in dict.fromkeys(property_names)),
        )
        return selection_of(sc.build())
    props = tuple(ruleset.property(n) for n in dict.fromkeys(property_names))
    if not props:
        props = tuple(ruleset.properties)
    chosen_mutant = ruleset.mutant(mutant) if mutant is not None else None
    amended = ruleset
    if chosen_mutant is not None and chosen_mutant.cards:
        amended = with_cards(ruleset, chosen_mutant.cards)
    if variant is not None:
        amended = amended.amend(Variant(variant), label=f"variant {variant}")
    merged: dict[str, int] = {}
    if chosen_mutant is not None:
        amended = amended.amend(*chosen_mutant.amendments, label=f"mutant {chosen_mutant.name}")
        merged.update(chosen_mutant.bounds)
    merged.update(bounds or {})
    return Selection(Model(amended, merged), props, variant, chosen_mutant)


# -- running ----------------------------------------------------------------------------------


def _call_engine(
    fn: Callable[..., list[PropertyResult]],
    model: Model,
    properties: Sequence[Property],
    limits: Limits | None,
    progress: Progress | None,
    antecedents_reached: set[str] | None = None,
    coverage: dict[str, int] | None = None,
    open_bounds: Sequence[str] = (),
    scenario: Scenario | None = None,
    guides: Mapping[str, tuple[str, ...]] | None = None,
    on_exploration: Callable[[explicit.Exploration], None] | None = None,
    workers: int = 1,
    handover: Any = None,
    bounds_cut: Mapping[str, int] | None = None,
) -> list[PropertyResult]:
    """Call an engine's ``check_properties``, passing ``limits``/``progress`` only if it takes
    them; the symbolic engine takes ``--max-seconds`` as its per-property ``timeout_s``, and
    the names of the properties whose antecedent another engine already reached."""
    params = inspect.signature(fn).parameters
    kwargs: dict[str, Any] = {}
    if antecedents_reached is not None and "antecedents_reached" in params:
        kwargs["antecedents_reached"] = antecedents_reached
    if "limits" in params:
        kwargs["limits"] = limits
    elif "timeout_s" in params and limits is not None and limits.max_seconds is not None:
        kwargs["timeout_s"] = limits.max_seconds  # the symbolic engine's per-property budget
    if "progress" in params:
        kwargs["progress"] = progress
    if coverage is not None and "coverage" in params:
        kwargs["coverage"] = coverage
    if open_bounds and "open_bounds" in params:
        kwargs["open_bounds"] = tuple(open_bounds)
    if scenario is not None and "scenario" in params:
        kwargs["scenario"] = scenario
    if guides and "guides" in params:
        kwargs["guides"] = dict(guides)
    if handover is not None:
        kwargs["handover"] = handover
    if bounds_cut is not None and "bounds_cut" in params:
        kwargs["bounds_cut"] = dict(bounds_cut)
    if on_exploration is not None and "on_exploration" in params:
        kwargs["on_exploration"] = on_exploration
    if workers != 1 and "workers" in params:
        kwargs["workers"] = workers
    return list(fn(model, list(properties), **kwargs))


def check_open_bounds(model: Model, names: Sequence[str], engines: Sequence[str]) -> None:
    """Refuse ``--for-all`` bounds before any work: the symbolic engine must run, and each name
    must be a bound of the rule set that the rules only compare with state fields."""
    if "symbolic" not in engines:
        raise BoundsError(
            f"--for-all {' '.join(names)}: only the symbolic engine leaves bounds open; "
            "use --engine symbolic or --engine both"
        )
    load_symbolic().Encoding(model, (), tuple(names))


def antecedents_reached(
    properties: Sequence[Property], results: Sequence[PropertyResult]
) -> set[str]:
    """The properties with an antecedent that the explicit engine found reachable (it checks
    antecedents of the properties it does not find violated, with ``find_state``): the
    symbolic engine need not search for those antecedents again."""
    has_antecedent = {p.name for p in properties if p.antecedent is not None}
    return {
        r.name
        for r in results
        if r.name in has_antecedent
        and not r.vacuous
        and r.verdict in (Verdict.EXHAUSTIVE, Verdict.VIOLATED)
    }


def explicit_traces(results: Sequence[PropertyResult]) -> dict[str, tuple[str, ...]]:
    """The rule instances of each trace the explicit engine found (a violation or a witness),
    by property: the symbolic engine checks such a trace against its own transition formula,
    first for a witness, and for a violation when its own search does not reach that deep."""
    return {
        r.name: tuple(step.name for step in r.trace.steps)
        for r in results
        if r.trace is not None and r.verdict in (Verdict.VIOLATED, Verdict.WITNESSED)
    }


def find_disagreement(a: PropertyResult, b: PropertyResult) -> str | None:
    """Why the two results contradict each other, or None when they do not (see module doc)."""
    pair = {a.verdict, b.verdict}
    # A violation against a pass; a witness against "no such state" (EXHAUSTIVE within the
    # bounds, or PROVED unreachable).
    contradiction = (Verdict.VIOLATED in pair and bool(pair & set(_HOLDS))) or (
        Verdict.WITNESSED in pair and bool(pair & set(_HOLDS))
    )
    if not contradiction:
        return None
    for r in (a, b):
        if r.trace is not None and any(r.bounds.get(k) != v for k, v in r.trace.bounds.items()):
            # A trace found with other values of the bounds left open: no contradiction with
            # an answer about the values in the report (the trace still fails the property).
            return None
    return f"engines disagree: {a.engine} says {a.verdict.value}, {b.engine} says {b.verdict.value}"


def find_exit_disagreement(a: PropertyResult, b: PropertyResult) -> str | None:
    """Both engines found a loop and listed who could break it: when it is the same loop, the
    exits must be the same moves."""
    if a.trace is None or b.trace is None:
        return None
    la, lb = loop_exits_by_state(a.trace), loop_exits_by_state(b.trace)
    if la is None or lb is None or la[0] != lb[0]:
        return None  # not the same loop: each engine's exits answer about its own
    if la[1] == lb[1] and a.trace.forced == b.trace.forced:
        return None

    def shown(exits: frozenset[tuple[str, ...]]) -> str:
        return ", ".join(sorted(f"{rule} {name}" for _, rule, name, _ in exits)) or "none"

    return (
        f"engines disagree on who can break the same loop: {a.engine} lists {shown(la[1])}, "
        f"{b.engine} lists {shown(lb[1])}"
    )


def disagreement_result(a: PropertyResult, b: PropertyResult, reason: str) -> PropertyResult:
    """The failing result that records a contradiction between two engines on one property."""
    return PropertyResult(
        name=a.name,
        kind="engines-agree",
        description=f"the {a.engine} and {b.engine} engines give the same answer",
        verdict=Verdict.VIOLATED,
        engine="both",
        expect="holds",
        states=0,
        transitions=0,
        seconds=0.0,
        reason=reason,
        bounds=dict(a.bounds),
        citations=a.citations,
    )


def _interrupted(prop: Property, engine: str, model: Model) -> PropertyResult:
    """The result of a property that an interrupt (Ctrl-C, SIGTERM) left unchecked."""
    return PropertyResult(
        name=prop.name,
        kind=prop.kind,
        description=prop.description,
        verdict=Verdict.UNKNOWN,
        engine=engine,
        expect=prop.expect.value,
        states=0,
        transitions=0,
        seconds=0.0,
        reason="interrupted",
        bounds=dict(model.bounds),
        citations=prop.citations,
    )


def _run_engine(
    engine: str,
    model: Model,
    properties: Sequence[Property],
    limits: Limits | None,
    progress: Progress | None,
    per_engine: Mapping[str, list[PropertyResult]],
    coverage: dict[str, int],
    *,
    on_engine: Callable[[str], None] | None,
    open_bounds: Sequence[str],
    scenario: Scenario | None,
    on_exploration: Callable[[explicit.Exploration], None] | None,
    workers: int = 1,
    handover: Any = None,
    cuts: Mapping[str, int] | None = None,
) -> list[PropertyResult]:
    """One engine's results (see :func:`run_check`); ``handover``: the symbolic engine runs
    beside the explicit one, which will hand its findings over there; ``cuts``: which bounds
    cut where, from a complete search of the explicit engine (see :func:`run_check`)."""
    if on_engine is not None:
        on_engine(engine)
    if engine == "explicit":
        return _call_engine(
            explicit.check_properties,
            model,
            properties,
            limits,
            progress,
            coverage=coverage,
            on_exploration=on_exploration,
            workers=workers,
        )
    fn = load_symbolic().check_properties
    reached = None
    guides: dict[str, tuple[str, ...]] = {}
    if handover is None and "explicit" in per_engine:  # else handed over later, through it
        reached = antecedents_reached(properties, per_engine["explicit"])
        guides = explicit_traces(per_engine["explicit"])
    try:
        return _call_engine(
            fn,
            model,
            properties,
            limits,
            progress,
            reached,
            open_bounds=open_bounds,
            scenario=scenario,
            guides=guides,
            handover=handover,
            bounds_cut=cuts if handover is None else None,
        )
    except ImportError as exc:  # a part of the engine (a solver back end) is missing
        raise EngineUnavailableError(
            f"the symbolic engine is not available ({exc}); use --engine explicit"
        ) from exc


def run_check(
    model: Model,
    properties: Sequence[Property],
    engines: Sequence[str] = ("explicit",),
    limits: Limits | None = None,
    progress: Progress | None = None,
    *,
    labels: Mapping[str, Any] | None = None,
    on_engine: Callable[[str], None] | None = None,
    open_bounds: Sequence[str] = (),
    scenario: Scenario | None = None,
    on_exploration: Callable[[explicit.Exploration], None] | None = None,
    workers: int = 1,
) -> CheckReport:
    """Check ``properties`` on ``model`` with each engine in ``engines`` (``explicit``,
    ``symbolic``), and return the report. ``labels`` (from :meth:`Selection.labels`) are added to
    the report's rule-set description; ``on_engine(name)`` is called as each engine starts (for
    a progress display: the symbolic engine reports no progress of its own); ``open_bounds``
    are left open by the symbolic engine (see :func:`check_open_bounds`); ``scenario`` is the
    plain value the symbolic engine's worker processes rebuild the model from;
    ``on_exploration`` is given the explicit engine's first exploration (for pictures);
    ``workers`` is how many processes the explicit engine's search may use (the same results
    whatever it is, see :func:`turnproof.checks.explicit.explore`). Raises
    :class:`EngineUnavailableError` when the symbolic engine is asked for but not installed.

    With both engines, the symbolic engine takes from the explicit one, besides the antecedents
    it reached and its traces, which bounds cut a reachable transition and how deep: the first
    of its searches that was complete answers that question exactly at the model's bounds
    (:meth:`~turnproof.checks.explicit.Exploration.first_cuts`), where the symbolic engine's own
    search for it is bounded in depth and time.

    Ctrl-C (a ``KeyboardInterrupt``; the command line turns SIGTERM into one) does not lose
    the work done: the properties that had finished keep their results, the others are UNKNOWN
    with the reason ``interrupted``, the engines after it do not start, and the report is
    returned as usual (its exit code is then 3, or 1 when a finished property failed)."""
    unknown = [e for e in engines if e not in ENGINES]
    if unknown:
        raise TurnproofError(
            f"unknown engine {unknown[0]!r}; valid engines: {choices_text(ENGINES)}"
        )
    order = [e for e in ENGINES if e in engines]
    per_engine: dict[str, list[PropertyResult]] = {}
    coverage: dict[str, int] = {}
    searches: list[SearchProcesses] = []
    cuts: list[dict[str, int]] = []  # from the first complete search, once there is one

    def observe(ex: explicit.Exploration) -> None:
        if ex.complete and not cuts and "symbolic" in order:  # only the symbolic engine asks
            cuts.append(ex.first_cuts())
        if on_exploration is not None and not searches:
            on_exploration(ex)
        searches.append(
            SearchProcesses(
                ex.states, workers, ex.worker_processes, ex.sequential_because, ex.workers_lost
            )
        )

    def run(engine: str, handover: Any = None) -> list[PropertyResult]:
        return _run_engine(
            engine,
            model,
            properties,
            limits,
            progress,
            per_engine,
            coverage,
            on_engine=on_engine if handover is None else None,
            open_bounds=open_bounds,
            scenario=scenario,
            on_exploration=observe,
            workers=workers,
            handover=handover,
            cuts=cuts[0] if cuts else None,
        )

    if order == list(ENGINES) and _takes_handover():
        _both_at_once(run, per_engine, model, properties, on_engine, cuts)
    else:
        interrupted = False
        for engine in order:
            if interrupted:  # the engines after an interrupt do not start
                per_engine[engine] = [_interrupted(p, engine, model) for p in properties]
                continue
            try:
                per_engine[engine] = run(engine)
            except Interrupted as exc:  # the engine kept what had finished
                per_engine[engine], interrupted = exc.results, True
            except KeyboardInterrupt:
                per_engine[engine] = [_interrupted(p, engine, model) for p in properties]
                interrupted = True

    by_name = {e: {r.name: r for r in per_engine[e]} for e in order}
    results: list[PropertyResult] = []
    for prop in properties:
        missing = [e for e in order if prop.name not in by_name[e]]
        if missing:
            raise RuntimeError(f"the {missing[0]} engine returned no result for {prop.name}")
        row = [by_name[e][prop.name] for e in order]
        results.extend(row)
        if len(row) == 2:
            reason = find_disagreement(row[0], row[1]) or find_exit_disagreement(row[0], row[1])
            if reason is not None:
                results.append(disagreement_result(row[0], row[1], reason))

    ruleset = model.describe()
    ruleset.update(labels or {})
    return CheckReport(
        ruleset=ruleset,
        bounds=dict(model.bounds),
        results=results,
        engines=list(order),
        coverage=coverage,
        searches=searches,
    )


def _takes_handover() -> bool:
    """Whether the symbolic engine can start beside the explicit one (it takes a handover)."""
    try:
        fn = load_symbolic().check_properties
    except EngineUnavailableError:
        return False  # said when its turn comes, as ever
    return "handover" in inspect.signature(fn).parameters


def _both_at_once(
    run: Callable[..., list[PropertyResult]],
    per_engine: dict[str, list[PropertyResult]],
    model: Model,
    properties: Sequence[Property],
    on_engine: Callable[[str], None] | None,
    cuts: Sequence[Mapping[str, int]],
) -> None:
    """Both engines, the symbolic one started beside the explicit one (its worker processes
    take the cores the explicit engine leaves): the explicit engine's findings (with ``cuts``,
    which bounds its first complete search found cutting, once it has ended) are handed over
    when it ends, and the symbolic engine checks again the properties whose answers depended on
    them (:func:`turnproof.checks.symbolic.check_properties`), so the results are those of
    running one after the other. Ctrl-C during the explicit engine ends the symbolic one's workers, and
    its results are all ``interrupted``, as if it had not started; during the symbolic engine,
    the properties it had finished keep their results."""
    from turnproof.checks import workers as worker_processes

    handover = worker_processes.Handover()
    beside = ThreadPoolExecutor(max_workers=1, thread_name_prefix="symbolic")
    symbolic = beside.submit(run, "symbolic", handover)
    try:
        try:
            per_engine["explicit"] = run("explicit")
        except Interrupted as exc:
            per_engine["explicit"] = exc.results
            raise KeyboardInterrupt from None
        except KeyboardInterrupt:
            per_engine["explicit"] = [_interrupted(p, "explicit", model) for p in properties]
            raise
    except KeyboardInterrupt:
        handover.interrupt()
        with contextlib.suppress(BaseException):
            symbolic.result()
        per_engine["symbolic"] = [_interrupted(p, "symbolic", model) for p in properties]
        beside.shutdown(wait=True)
        return
    except BaseException:
        handover.interrupt()
        beside.shutdown(wait=True)
        raise
    try:
        try:
            handover.give(
                antecedents_reached(properties, per_engine["explicit"]),
                explicit_traces(per_engine["explicit"]),
                cuts[0] if cuts else None,
            )
            if on_engine is not None:
                on_engine("symbolic")  # what is left to wait for (no progress of its own)
            per_engine["symbolic"] = symbolic.result()
        except KeyboardInterrupt:  # here, not in the engine's thread: end its workers
            handover.interrupt()
            per_engine["symbolic"] = symbolic.result()  # what had finished (Interrupted)
    except Interrupted as exc:
        per_engine["symbolic"] = exc.results
    finally:
        beside.shutdown(wait=True)


def run_selection(
    selection: Selection,
    engines: Sequence[str] = ("explicit",),
    limits: Limits | None = None,
    progress: Progress | None = None,
    *,
    on_engine: Callable[[str], None] | None = None,
    open_bounds: Sequence[str] = (),
    on_exploration: Callable[[explicit.Exploration], None] | None = None,
    workers: int = 1,
) -> CheckReport:
    """:func:`run_check` on a selection, and, for a scenario, its pinned expectations: the
    verdict a property must have on an engine, and the number of states (checked by the
    explicit engine, as a result of its own, ``state-count``)."""
    built = selection.built
    scenario = selection.scenario
    opened = tuple(dict.fromkeys(tuple(open_bounds) + (scenario.for_all if scenario else ())))
    report = run_check(
        selection.model,
        selection.properties,
        engines,
        limits,
        progress,
        labels=selection.labels(),
        on_engine=on_engine,
        open_bounds=opened,
        scenario=scenario,
        on_exploration=on_exploration,
        workers=workers,
    )
    if built is None or scenario is None:
        return report
    for r in report.results:
        pinned = built.verdicts.get(r.name, {}).get(r.engine)
        if pinned is not None:
            r.pinned = pinned
    stopped = any(r.reason == "interrupted" for r in report.results)
    if scenario.states is not None and "explicit" in report.engines and not stopped:
        report.results.append(
            state_count_result(selection, scenario.states, report, limits, workers)
        )
    return report


def state_count_result(
    selection: Selection,
    expected: int,
    report: CheckReport,
    limits: Limits | None,
    workers: int = 1,
) -> PropertyResult:
    """The result that compares the explored states with the number the scenario pins: taken
    from a property checked without monitors, or from an exploration of its own."""
    plain = {p.name for p in selection.properties if not p.monitors}
    found = next(
        (
            r
            for r in report.results
            if r.engine == "explicit" and r.name in plain and r.verdict is not Verdict.UNKNOWN
        ),
        None,
    )
    if found is not None:
        states, transitions, seconds = found.states, found.transitions, 0.0
        depth, complete = found.depth, True
    else:
        ex = explicit.explore(selection.model, limits=limits, workers=workers)
        states, transitions, seconds, complete = ex.states, ex.transitions, ex.seconds, ex.complete
        depth = ex.depth(ex.states - 1) if ex.states else 0
    if not complete:
        verdict, reason = Verdict.UNKNOWN, "the exploration stopped before every state was found"
    elif states == expected:
        verdict, reason = Verdict.EXHAUSTIVE, f"{states:,} states, as the scenario says"
    else:
        verdict = Verdict.VIOLATED
        reason = (
            f"the scenario expects {expected:,} states; the explicit engine explored {states:,}"
        )
    return PropertyResult(
        name="state-count",
        kind="state-count",
        description="the number of reachable states is the one the scenario pins",
        verdict=verdict,
        engine="explicit",
        expect="holds",
        states=states,
        transitions=transitions,
        seconds=seconds,
        reason=reason,
        bounds=dict(selection.model.bounds),
        depth=depth,
    )
