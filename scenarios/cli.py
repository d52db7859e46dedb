"""The ``turnproof`` command line: check a rule set, list its rules and properties.

This is the only module that writes to the terminal. Everything it shows comes from the
renderers in ``turnproof.reports``; everything it checks goes through
:mod:`turnproof.checks.runner`.

Exit codes (``CheckReport.exit_code``): 0 every property as expected; 1 a property failed its
expectation; 2 bad input (an unknown name, a malformed or out-of-range bound: one line on stderr,
``turnproof: error: …``, nothing on stdout, nothing written); 3 a property has only UNKNOWN
verdicts (each property is judged on its best justified verdict).
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import re
import signal
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, TypeVar

import click
from rich.console import Console
from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn
from turnproof.checks.explicit import PARALLEL_FROM, Limits, explore, find_inconsistencies
from turnproof.checks.explicit import Progress as ProgressCallback
from turnproof.checks.explicit import check_properties as explicit_check
from turnproof.checks.graphs import neighbourhood, state_graph
from turnproof.checks.graphs import turn_structure as turn_structure_of
from turnproof.checks.results import CheckReport, Finding, StateGraph, TurnStructure
from turnproof.checks.runner import (
    ENGINE_CHOICES,
    Selection,
    check_open_bounds,
    engines_for,
    is_symbolic_available,
    load_symbolic,
    parse_bounds,
    run_selection,
    select,
    selection_of,
)
from turnproof.checks.workers import default_jobs, end_workers
from turnproof.model.errors import ScenarioError, TurnproofError, UnknownNameError
from turnproof.model.registry import builtin_rulesets
from turnproof.model.rules import Model, RuleSet
from turnproof.model.scenario import CardSpec, PropertySpec, Scenario, SpecError
from turnproof.reports import dot, html, itf, json_report, junit, markdown, text
from turnproof.reports.document import ProofReport, Run, build_report, shows_trace
from turnproof.scenarios import amend, loader
from turnproof.scenarios.outdir import check_out_dir, check_out_file, write_file, write_report_set

PROG = "turnproof"
FORMATS = ("text", "json")


# -- errors and the group ---------------------------------------------------------------------


def _error(message: str) -> None:
    click.echo(f"{PROG}: error: {message}", err=True)


class TurnproofGroup(click.Group):
    """A click group whose errors are one line, ``turnproof: error: …``, never a traceback."""

    def main(
        self,
        args: Sequence[str] | None = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        **extra: Any,
    ) -> Any:
        argv = list(sys.argv[1:] if args is None else args)
        if not argv:  # bare `turnproof`: a short usage and the commands, not an error
            click.echo(self.short_usage(), nl=False)
            if not standalone_mode:
                return 0
            sys.exit(0)
        try:
            rv = super().main(
                args=argv,
                prog_name=prog_name or PROG,
                complete_var=complete_var,
                standalone_mode=False,
                obj={"argv": tuple(argv)},  # the exact command line, for the report's header
                **extra,
            )
            code = rv if isinstance(rv, int) else 0
        except TurnproofError as exc:
            _error(str(exc))
            code = exc.exit_code
        except click.exceptions.NoSuchCommand as exc:
            _error(f"{exc.format_message()} Commands: {', '.join(sorted(self.commands))}")
            code = exc.exit_code
        except click.ClickException as exc:
            _error(exc.format_message())
            code = exc.exit_code
        except (click.exceptions.Abort, KeyboardInterrupt):
            _error("interrupted")
            code = 130
        if not standalone_mode:
            return code
        sys.exit(code)

    def short_usage(self) -> str:
        """What bare ``turnproof`` prints: the usage line, each command with its one-line
        help, and where to read more."""
        width = max(len(n) for n in self.commands)
        lines = [f"Usage: {PROG} COMMAND [ARGS]...", "", "Commands:"]
        for name in sorted(self.commands):
            lines.append(f"  {name:<{width}}  {self.commands[name].get_short_help_str(70)}")
        lines += [
            "",
            f"`{PROG} COMMAND --help` explains a command; `{PROG} --help` the whole tool; "
            f"`{PROG} --version` says which version this is.",
        ]
        return "\n".join(lines) + "\n"


def _argv() -> tuple[str, ...]:
    """The arguments the command line was given (after the program name)."""
    ctx = click.get_current_context(silent=True)
    obj = ctx.find_root().obj if ctx is not None else None
    return tuple(obj.get("argv", ())) if isinstance(obj, dict) else ()


def _target(name: str | None) -> RuleSet | Scenario:
    """What ``turnproof check NAME`` names: a built-in rule set, a shipped scenario, or a
    scenario file (a path; anything ending in .toml is read as one)."""
    sets = builtin_rulesets()
    if name is None:
        return sets[default_ruleset_name()]
    if not name.strip():
        raise TurnproofError(
            "an empty name: give a rule set, a shipped scenario or a scenario file "
            f"(rule sets: {', '.join(sets)}; `turnproof scenarios` lists the scenarios)"
        )
    if name.endswith(loader.SUFFIX) or os.sep in name or Path(name).is_file():
        return loader.load(name)
    if name in sets:
        return sets[name]
    found = loader.load_shipped(name)
    if found is not None:
        return found
    names = list(sets) + [s.name for s in loader.shipped()]
    raise UnknownNameError("rule set or scenario", name, names, plural="rule sets and scenarios")


def _selection(
    name: str | None,
    property_names: Sequence[str],
    bound_texts: Sequence[str],
    variant: str | None,
    mutant: str | None,
) -> tuple[Selection, Scenario | None]:
    """The selection ``check`` runs, and the scenario it comes from when it names one."""
    target = _target(name)
    if isinstance(target, Scenario):
        given = [
            o
            for o, v in (("--bound", bound_texts), ("--variant", variant), ("--mutant", mutant))
            if v
        ]
        if given:
            raise TurnproofError(
                f"{' and '.join(given)} cannot change scenario {target.name}: a scenario says its "
                "bounds and amendments itself (edit its file, or check the rule set instead)"
            )
        try:
            built = target.with_properties(property_names).build()
        except SpecError as exc:
            raise ScenarioError(target.origin or target.name, None, exc.message) from None
        return selection_of(built), target
    valid_bounds = [s.name for s in target.bound_specs]
    bounds = parse_bounds(bound_texts, valid_bounds)
    selection = select(
        target, property_names=property_names, bounds=bounds, variant=variant, mutant=mutant
    )
    return selection, selection.scenario


def default_ruleset_name() -> str:
    """``magic`` when it is built in, else the first built-in rule set."""
    sets = builtin_rulesets()
    return "magic" if "magic" in sets else next(iter(sets))


def _amendment_set(name: str) -> amend.AmendmentSet:
    """A shipped amendment by name, or an amendment file."""
    if not name.strip():
        raise TurnproofError("an empty amendment name: give a file or a shipped amendment")
    path = amend.shipped_path(name)
    if path is not None:
        return amend.load(path)
    if name.endswith(amend.SUFFIX) or os.sep in name or Path(name).is_file():
        return amend.load(name)
    raise UnknownNameError(
        "amendment", name, [s.name for s in amend.shipped()], plural="shipped amendments"
    )


def _is_amendment(name: str) -> bool:
    if amend.shipped_path(name) is not None:
        return True
    return Path(name).is_file() and amend.is_amendment_file(name)


def _base_selection(
    name: str | None,
    changes: amend.AmendmentSet,
    property_names: Sequence[str],
    bound_texts: Sequence[str],
    variant: str | None = None,
    mutant: str | None = None,
) -> tuple[Selection, Scenario | None]:
    """The selection an amendment file is applied to: the rule set or scenario ``name`` (by
    default the rule set the file names), with the file's cards and bounds (``--bound`` wins)."""
    target = _target(name if name is not None else changes.ruleset)
    if isinstance(target, Scenario):
        if changes.cards or changes.bounds:
            raise TurnproofError(
                f"{changes.origin} gives cards or bounds, and scenario {target.name} gives its "
                "own: apply the file to a rule set, or leave them out of it"
            )
        return _selection(name, property_names, bound_texts, variant, mutant)
    if target.name != changes.ruleset:
        raise TurnproofError(
            f"{changes.origin} amends rule set {changes.ruleset}, not {target.name}"
        )
    bounds = {
        **dict(changes.bounds),
        **parse_bounds(bound_texts, [s.name for s in target.bound_specs]),
    }
    if not changes.cards:
        sel = select(
            target, property_names=property_names, bounds=bounds, variant=variant, mutant=mutant
        )
        return sel, sel.scenario
    sc = Scenario(
        target.name,
        target.name,
        cards=tuple(CardSpec(key, controller) for key, controller in changes.cards),
        bounds=tuple(sorted(bounds.items())),
        variant=variant,
        mutant=mutant,
        properties=tuple(PropertySpec(n) for n in dict.fromkeys(property_names)),
    )
    try:
        sel = selection_of(sc.build())
    except SpecError as exc:
        raise ScenarioError(changes.origin, None, exc.message) from None
    return sel, sc


def amended_selection(base: Selection, changes: amend.AmendmentSet, given: str) -> Selection:
    """``base`` with the amendment file applied (same bounds, start and properties); ``given``
    is how the user named the file, for the report's header and replay lines."""
    ruleset = changes.apply(base.model.ruleset)
    model = Model(ruleset, dict(base.model.bounds))
    return Selection(model, base.properties, base.variant, base.mutant, amendment=given, base=base)


def _ruleset(name: str | None) -> RuleSet:
    """The built-in rule set ``name`` (the default one when no name was given; an empty name
    is an error, not the default)."""
    sets = builtin_rulesets()
    if name is None:
        name = default_ruleset_name()
    if not name.strip():
        raise TurnproofError(f"an empty rule-set name: give one of {', '.join(sets)}")
    if name not in sets:
        raise UnknownNameError("rule set", name, sets)
    return sets[name]


@click.group(
    cls=TurnproofGroup,
    context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
)
@click.version_option(package_name="turnproof", prog_name=PROG, message="%(prog)s %(version)s")
def cli() -> None:
    """Formal verification of card-game turn-structure rules.

    Every reachable game state within the bounds is explored; every property gets an honest
    verdict (PROVED, EXHAUSTIVE, VIOLATED, WITNESSED or UNKNOWN) and, when it fails, the
    shortest trace that shows it, step by step, each step citing its rule.

    \b
    Examples:
      turnproof rulesets
      turnproof check bench
      turnproof check bench --property no-deadlock --bound turns=2
      turnproof rules magic --cite 716.1a
      turnproof bounds magic
    """


# -- check ------------------------------------------------------------------------------------


@contextlib.contextmanager
def _progress_bar(
    enabled: bool,
) -> Iterator[tuple[ProgressCallback | None, Callable[[str], None] | None]]:
    """A rich progress display on stderr, fed by the engine's progress callback, and told by
    the runner which engine is at work."""
    if not enabled:
        yield None, None
        return
    console = Console(stderr=True)
    with Progress(
        SpinnerColumn(),
        TextColumn("{task.description}"),
        TimeElapsedColumn(),
        console=console,
        transient=True,
    ) as bar:
        task = bar.add_task("starting", total=None)

        def on_engine(engine: str) -> None:
            what = "exploring" if engine == "explicit" else "solving (no progress reported)"
            bar.update(task, description=f"{engine} engine: {what}")

        def report(expanded: int, discovered: int, transitions: int) -> None:
            bar.update(
                task,
                description=(
                    f"explicit engine: {expanded:,} of {discovered:,} states expanded, "
                    f"{transitions:,} transitions"
                ),
            )

        yield report, on_engine


def report_files(doc: ProofReport, draw: html.Draw | None = None) -> dict[str, str]:
    """What ``--out`` writes: the report in every format, and an ITF file for every trace;
    ``draw`` makes the HTML report's pictures (DOT to SVG)."""
    files = {
        "report.md": markdown.render_markdown(doc),
        "report.html": html.render_html(doc, draw),
        "report.txt": text.render_check(doc),
        "report.json": json_report.render_check_json(doc),
        "junit.xml": junit.render_junit(doc),
    }
    for name, trace in itf.itf_files(doc).items():
        files[name] = json_report.dumps(trace)
    return files


def _trace_pictures(
    model: Model, report: CheckReport
) -> tuple[dict[tuple[str, str], StateGraph], list[str]]:
    """The neighbourhood of every trace the report shows, by (property, engine), and a note for
    each trace that could not be drawn."""
    graphs: dict[tuple[str, str], StateGraph] = {}
    notes = []
    for r in report.results:
        if r.trace is None or not shows_trace(r):
            continue
        title = f"{r.name} [{r.engine}]: the neighbourhood of its trace"
        graph = neighbourhood(model, r.trace, title)
        if graph is None:
            notes.append(
                f"the trace of {r.name} [{r.engine}] is not drawn: it does not replay with the "
                "report's bounds (it was found with other values of bounds left open)"
            )
        else:
            graphs[(r.name, r.engine)] = graph
    return graphs, notes


def _choose_engines(engine: str | None) -> tuple[tuple[str, ...], str]:
    """The engines to run, and a note for the header saying how they were chosen."""
    if engine is None:
        if is_symbolic_available():
            return engines_for("both"), "default: both engines"
        return engines_for("explicit"), "default; the symbolic engine is not available"
    engines = engines_for(engine)
    if "symbolic" in engines:
        load_symbolic()  # fail now, before any exploration, if it is missing
    return engines, ""


F = TypeVar("F", bound=Callable[..., Any])


#: A number as ``--max-seconds`` takes it: ASCII digits, an optional fraction and exponent
#: (``float`` alone would also read ``1_0``, `` 10 ``, ``+1`` and other scripts' digits).
_DECIMAL = re.compile(r"[0-9]+(?:\.[0-9]*)?(?:[eE][+-]?[0-9]+)?|\.[0-9]+(?:[eE][+-]?[0-9]+)?")


class Seconds(click.ParamType):
    """A finite, positive number of seconds, written plainly (``10``, ``2.5``, ``1e3``):
    ``nan``, ``inf`` and ``1e999`` (which ``float`` reads as infinity) are refused, as are zero,
    negative numbers, and anything ``float`` reads that is not ASCII digits."""

    name = "seconds"

    def convert(
        self, value: Any, param: click.Parameter | None, ctx: click.Context | None
    ) -> float:
        if isinstance(value, float):
            number = value
        elif _DECIMAL.fullmatch(str(value)):
            number = float(str(value))
        else:
            self.fail(
                f"{value!r} is not a number of seconds: expected digits 0-9 with an optional "
                "fraction (e.g. 10 or 2.5)",
                param,
                ctx,
            )
        if not math.isfinite(number) or number <= 0:
            self.fail(f"{value!r} is not a finite, positive number of seconds", param, ctx)
        return number


class Count(click.ParamType):
    """A whole number from ``low`` to ``high``, in ASCII digits only (``int`` would also read
    ``+2``, ``2_0``, `` 2`` and other scripts' digits)."""

    def __init__(self, what: str, low: int = 1, high: int | None = None, hint: str = "") -> None:
        self.what = what
        self.low = low
        self.high = high
        self.hint = hint
        self.name = "n"  # the metavar click shows: N

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> int:
        text = str(value)
        number: int | None = None
        if isinstance(value, int) and not isinstance(value, bool):
            number = value
        elif text.isascii() and text.isdigit():
            number = int(text)
        if number is None or number < self.low or (self.high is not None and number > self.high):
            upto = (
                f"of at least {self.low}"
                if self.high is None
                else f"from {self.low} to {self.high}"
            )
            self.fail(
                f"{text!r} is not a number of {self.what}: expected a whole number {upto}, in "
                f"digits 0-9{self.hint}",
                param,
                ctx,
            )
        return number


#: The most worker processes ``--explore-workers`` takes.
MAX_WORKERS = 64


def Workers() -> Count:  # noqa: N802 - a parameter type, named like the others
    """A number of worker processes, 1 to :data:`MAX_WORKERS`."""
    return Count("workers", 1, MAX_WORKERS, " (1 explores in this process)")


def _workers_option(fn: F) -> F:
    """--explore-workers N: processes for the explicit engine's search."""
    return click.option(
        "--explore-workers",
        "explore_workers",
        type=Workers(),
        default=1,
        show_default=True,
        metavar="N",
        help="Let N worker processes expand the explicit engine's states (past its first "
        f"{PARALLEL_FROM:,} states; a smaller search starts none). This process still numbers every "
        "state in the same order, so states, traces and verdicts are identical whatever N is.",
    )(fn)


def _limit_options(states_help: str, seconds_help: str) -> Callable[[F], F]:
    """--max-states and --max-seconds, shared by the commands that explore."""

    def apply(fn: F) -> F:
        fn = click.option(
            "--max-seconds",
            type=Seconds(),
            default=None,
            metavar="S",
            help=seconds_help,
        )(fn)
        return click.option(
            "--max-states",
            type=Count("states"),
            default=None,
            metavar="N",
            help=states_help,
        )(fn)

    return apply


def _out_option(help_text: str) -> Callable[[F], F]:
    """--out DIR: a folder the command writes all at once (``scenarios/outdir.py``), checked
    before the run."""
    return click.option(
        "--out",
        type=click.Path(file_okay=False, dir_okay=True, path_type=Path),
        default=None,
        metavar="DIR",
        help=help_text,
    )


def _bound_option(fn: F) -> F:
    """--bound NAME=VALUE, repeatable."""
    return click.option(
        "--bound",
        "bound_texts",
        multiple=True,
        metavar="NAME=VALUE",
        help="Set a bound, e.g. --bound turns=2 (repeatable). `turnproof bounds` lists them with their defaults and ranges.",
    )(fn)


def _for_all_option(fn: F) -> F:
    """--for-all: bounds the symbolic engine leaves open."""
    return click.option(
        "--for-all",
        "for_all",
        multiple=True,
        metavar="NAME",
        help="Symbolic engine: leave this bound open, so that a proof holds for every value of "
        "it from its lowest up (repeatable), on top of each property's own. The explicit engine "
        "still checks the value set by --bound. Only bounds that the rules compare with state "
        "fields can be left open (e.g. magic: turns, hand_max, effects, actions).",
    )(fn)


def _amendment_options(fn: F) -> F:
    """--mutant and --variant: which amended rule set to work on."""
    fn = click.option("--variant", metavar="NAME", help="Use this variant of the rule set.")(fn)
    return click.option(
        "--mutant", metavar="NAME", help="Use the rule set amended by this mutant."
    )(fn)


@cli.command("check")
@click.argument("ruleset", required=False, metavar="[TARGET]")
@click.option(
    "--property",
    "property_names",
    multiple=True,
    metavar="NAME",
    help="Check only this property (repeatable). Default: every property of the rule set.",
)
@_bound_option
@_for_all_option
@click.option(
    "--engine",
    type=click.Choice(ENGINE_CHOICES),
    default=None,
    help="Which engine answers. Default: both when the symbolic engine is installed.",
)
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="text", help="Output format.")
@_limit_options(
    "Stop exploring after N states (the verdict is then UNKNOWN unless a trace was found).",
    "Stop exploring after S seconds; for the symbolic engine, the budget of each property "
    "(default 180 for safety properties: Spacer takes a quarter, the control invariant up to "
    "60%, k-induction the rest; 300 for termination: a ranking over the leaves 5% (unless "
    "the reached transitions have none), a ranking "
    "under the region's invariant up to 80%, the lasso search the rest; 60 for reachability).",
)
@_workers_option
@_amendment_options
@_out_option(
    "Also write the report into DIR (created if missing): report.md, report.html, "
    "report.json, report.txt, junit.xml, and traces/PROPERTY-ENGINE.itf.json for every trace. "
    "The set appears at once; files get the mode the umask gives (0644 with umask 022)."
)
@click.option(
    "--amend",
    "amend_file",
    metavar="FILE",
    help="Apply this amendment file (amendments/FORMAT.md) or shipped amendment (`turnproof "
    "amendments`) to the rule set or scenario first; its cards and bounds apply too "
    "(--bound overrides them).",
)
@click.option("--no-progress", is_flag=True, help="Do not show the progress display.")
def check_command(
    ruleset: str | None,
    property_names: tuple[str, ...],
    bound_texts: tuple[str, ...],
    for_all: tuple[str, ...],
    engine: str | None,
    fmt: str,
    max_states: int | None,
    max_seconds: float | None,
    explore_workers: int,
    mutant: str | None,
    variant: str | None,
    out: Path | None,
    amend_file: str | None,
    no_progress: bool,
) -> int:
    """Check the properties of a rule set or a scenario and show every verdict.

    TARGET is a built-in rule set (`turnproof rulesets`; default: magic), a shipped scenario
    by name (`turnproof scenarios`), or a scenario file (a path, e.g. my-case.toml; the format
    is in scenarios/FORMAT.md). A scenario says its cards, bounds, start, amendments,
    properties and expected verdicts and state count; every verdict is compared with them, on
    both engines. --bound, --mutant and --variant apply to rule sets only.

    Prints one row per property (verdict, engine, states explored, time, whether it met its
    expectation), then what each verdict means and, for every violation, witness or unmet
    expectation, its shortest trace.

    Exit codes: 0 all as expected, 1 a property failed its expectation, 2 bad input,
    3 a property has only UNKNOWN verdicts. With both engines each property is judged on
    its best justified verdict: an explicit UNKNOWN (a state limit) under a symbolic PROVED
    is no failure and no 3; both rows are shown.

    \b
    Examples:
      turnproof check sundial-and-sarkhan
      turnproof check my-case.toml --engine explicit
      turnproof check bench
      turnproof check bench --property cleanup-terminates --bound cmax=1
      turnproof check bench --max-states 1000 --format json
      turnproof check bench --engine explicit --out reports/bench
      turnproof check magic --property eot-effects-end-before-next-turn --for-all turns

    A property may quantify over bounds itself (`turnproof properties` lists them as
    "for all"): the symbolic engine proves it for every value of those bounds, and the report
    says for which values each PROVED holds.

    The symbolic engine caches the invariants it infers, and which method proved each
    property (with Spacer's invariant), in the per-user cache folder
    (~/.cache/turnproof/invariants on Linux); everything read back is checked again, so a
    warm run gives a cold run's verdicts and certificates. The environment variable
    TURNPROOF_INVARIANT_CACHE names another folder; TURNPROOF_PROOF_CACHE=0 turns the
    proof cache off.
    """
    started = time.perf_counter()
    if amend_file is not None:
        changes = _amendment_set(amend_file)
        base, scenario = _base_selection(
            ruleset, changes, property_names, bound_texts, variant, mutant
        )
        selection = amended_selection(base, changes, amend_file)
    else:
        selection, scenario = _selection(ruleset, property_names, bound_texts, variant, mutant)
    if engine is None and scenario is not None and scenario.engines:
        engine = (
            "both" if set(scenario.engines) == {"explicit", "symbolic"} else scenario.engines[0]
        )
    engines, note = _choose_engines(engine)
    opened = tuple(dict.fromkeys(tuple(for_all) + (scenario.for_all if scenario else ())))
    if opened:
        check_open_bounds(selection.model, opened, engines)
    if out is not None:
        check_out_dir(out)  # before the run: a folder that cannot be made fails fast
    limits = Limits(max_states=max_states, max_seconds=max_seconds)
    show_progress = not no_progress and fmt == "text" and sys.stderr.isatty()
    turns: list[TurnStructure | None] = []  # the HTML report's diagram, from the exploration
    with _progress_bar(show_progress) as (progress, on_engine):
        report = run_selection(
            selection,
            engines,
            limits,
            progress,
            on_engine=on_engine,
            open_bounds=for_all,
            on_exploration=(lambda ex: turns.append(turn_structure_of(ex))) if out else None,
            workers=explore_workers,
        )
    graphs: dict[tuple[str, str], StateGraph] = {}
    notes: list[str] = []
    stopped = [r.name for r in report.results if r.reason == "interrupted"]
    if stopped:
        click.echo(
            f"{PROG}: interrupted: {len(stopped)} result(s) UNKNOWN (interrupted); the "
            "finished ones are reported",
            err=True,
        )
    if out is not None:
        graphs, notes = _trace_pictures(selection.model, report)
        if turns and turns[0] is None:
            notes.append(
                "no turn-structure diagram: the rule set has no step field to project the "
                "explored state graph on"
            )
    run = Run.measured(
        _argv(),
        started,
        engine_note=note,
        max_states=max_states,
        max_seconds=max_seconds,
    )
    turn = turns[0] if turns else None
    doc = build_report(report, run, graphs=graphs, turn_structure=turn, notes=notes)

    plain = text.render_check(doc)
    as_json = json_report.render_check_json(doc)
    written: list[Path] = []
    if out is not None:
        draw = html.default_draw()
        written = write_report_set(out, report_files(doc, draw))
        if draw is None:
            click.echo(f"{PROG}: note: report.html has no pictures: {dot.INSTALL}", err=True)

    if fmt == "json":
        click.echo(as_json, nl=False)
    elif sys.stdout.isatty():
        console = Console(highlight=False)
        console.print(text.render_header(doc), markup=False, soft_wrap=True)
        console.print()
        console.print(text.check_table_rich(doc))
        console.print()
        console.print(text.render_details(doc), markup=False, soft_wrap=True)
        console.print()
        console.print(text.render_summary(doc), markup=False, soft_wrap=True)
    else:
        click.echo(plain, nl=False)
    for path in written:
        click.echo(f"{PROG}: wrote {path}", err=True)
    return report.exit_code


_FILE: dict[str, Any] = {"type": click.Path(dir_okay=False, path_type=Path), "metavar": "FILE"}


@cli.command("explore")
@click.argument("target", required=False, metavar="[TARGET]")
@_bound_option
@_amendment_options
@click.option(
    "--trace",
    "trace_property",
    metavar="PROPERTY",
    help="Draw the neighbourhood of this property's trace (the explicit engine's): its states, "
    "their successors within one step, the trace in bold.",
)
@click.option(
    "--turn-structure",
    is_flag=True,
    help="Draw the turn structure: the explored graph projected on the step field, an arrow "
    "per step change and the rules that make it.",
)
@click.option("--dot", "dot_file", help="Write the picture as Graphviz DOT.", **_FILE)
@click.option("--svg", "svg_file", help="Write the picture as SVG (needs Graphviz's dot).", **_FILE)
@click.option(
    "--max-nodes",
    type=Count("nodes"),
    default=2000,
    show_default=True,
    metavar="N",
    help="Refuse to draw a whole state graph of more states than this (Graphviz lays out a "
    "few thousand at most); draw a trace's neighbourhood or the turn structure instead.",
)
@_limit_options("Stop exploring after N states.", "Stop exploring after S seconds.")
@_workers_option
def explore_command(
    target: str | None,
    bound_texts: tuple[str, ...],
    mutant: str | None,
    variant: str | None,
    trace_property: str | None,
    turn_structure: bool,
    dot_file: Path | None,
    svg_file: Path | None,
    max_nodes: int,
    max_states: int | None,
    max_seconds: float | None,
    explore_workers: int,
) -> int:
    """Draw the state graph of a rule set or scenario, the neighbourhood of a trace, or the
    turn structure, as DOT (--dot FILE) or SVG (--svg FILE, through Graphviz).

    TARGET is what `turnproof check` takes. The whole state graph is drawn only when it has at
    most --max-nodes states; the Magic rule set has hundreds of thousands, so draw the
    neighbourhood of a trace (--trace PROPERTY) or the turn structure (--turn-structure).

    \b
    Examples:
      turnproof explore bench --turn-structure --svg turn.svg
      turnproof explore magic --trace second-cleanup-step --svg trace.svg
      turnproof explore my-case.toml --bound turns=1 --dot states.dot
    """
    if dot_file is None and svg_file is None:
        raise TurnproofError("nothing to write: give --dot FILE or --svg FILE (or both)")
    if trace_property and turn_structure:
        raise TurnproofError("--trace and --turn-structure draw different pictures: give one")
    if svg_file is not None and not dot.is_graphviz_available():
        raise dot.GraphvizMissingError()
    for path in (dot_file, svg_file):
        if path is not None:
            check_out_file(path)  # before the exploration, which may take minutes
    names = (trace_property,) if trace_property else ()
    selection, _ = _selection(target, names, bound_texts, variant, mutant)
    model = selection.model
    limits = Limits(max_states=max_states, max_seconds=max_seconds)
    what = model.describe()["name"]
    if trace_property:
        (result,) = explicit_check(
            model, list(selection.properties[:1]), limits, workers=explore_workers
        )
        if result.trace is None:
            raise TurnproofError(
                f"{result.name} has no trace to draw: its verdict is {result.verdict.value} "
                "(only violations and witnesses have traces)"
            )
        graph = neighbourhood(model, result.trace, f"{what}: {result.name}, its trace")
        assert graph is not None, "the explicit engine's own trace replays on its model"
        source, summary = dot.state_graph_dot(graph), graph.caption
    else:
        ex = explore(model, limits=limits, workers=explore_workers)
        if turn_structure:
            structure = turn_structure_of(ex)
            if structure is None:
                raise TurnproofError(
                    f"rule set {what} has no step field: the turn structure is the explored "
                    "graph projected on it; draw the state graph instead (no --turn-structure)"
                )
            source = dot.turn_structure_dot(structure)
            summary = f"{len(structure.steps)} steps, {len(structure.moves)} moves between them"
        else:
            if ex.states > max_nodes:
                raise TurnproofError(
                    f"the state graph of {what} has {ex.states:,} states, more than --max-nodes "
                    f"{max_nodes:,}: draw the neighbourhood of a trace (--trace PROPERTY) or the "
                    "turn structure (--turn-structure), or raise --max-nodes"
                )
            graph = state_graph(ex, f"{what}: the state graph")
            source, summary = dot.state_graph_dot(graph), graph.caption
    files: list[tuple[Path, str]] = []
    if dot_file is not None:
        files.append((dot_file, source))
    if svg_file is not None:
        files.append((svg_file, dot.to_svg(source)))
    for path, content in files:
        write_file(path, content)
    click.echo(summary)
    for path, _ in files:
        click.echo(f"{PROG}: wrote {path}", err=True)
    return 0


@cli.command("conformance")
@click.argument("target", required=False, metavar="[TARGET]")
@_bound_option
@_amendment_options
@_out_option(
    "Write the suite into DIR, all at once: suite.json, and fixtures/NNN.json (plain JSON, "
    "reports/schema/conformance.schema.json) and fixtures/NNN.itf.json (ITF) for each fixture."
)
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="text", help="Output format.")
@click.option(
    "--max-states",
    type=Count("states"),
    default=200_000,
    show_default=True,
    help="Refuse a model with more reachable states than this (a suite covers them all).",
)
def conformance_command(
    target: str | None,
    bound_texts: tuple[str, ...],
    mutant: str | None,
    variant: str | None,
    out: Path | None,
    fmt: str,
    max_states: int,
) -> int:
    """Write a conformance suite for engine developers: a small set of shortest traces that
    together fire every rule that can fire within the bounds and meet every pair of rules
    enabled in one state, each a fixture an engine's tests replay without turnproof: the start
    state, then each step's rule instance, citation, whose choice it is and who makes it, and
    the observable state after it (who has priority, the step or phase, the stack or chain
    with each item's pending or finalized flag). Each fixture is tagged with the rules version
    and the citations it exercises.

    TARGET is a built-in rule set or a scenario, as for check (default: magic at turns=1).

    Exit codes: 0 written, 2 bad input (or a model too large for a suite).

    \b
    Examples:
      turnproof conformance riftbound --bound turns=1 --out conformance/riftbound
      turnproof conformance magic --bound turns=1 --format json
      turnproof conformance riftbound-chain --out conformance/chain
    """
    from turnproof.checks.conformance import ConformanceError, build_suite
    from turnproof.reports import conformance as conformance_report

    if target is None and not bound_texts:
        bound_texts = ("turns=1",)
    selection, _ = _selection(target, (), bound_texts, variant, mutant)
    if out is not None:
        check_out_dir(out)
    try:
        suite = build_suite(selection.model, max_states=max_states)
    except ConformanceError as exc:
        raise TurnproofError(str(exc)) from None
    files = conformance_report.suite_files(suite)
    if fmt == "json":
        click.echo(files["suite.json"], nl=False)
    else:
        click.echo(conformance_report.suite_text(suite))
    if out is not None:
        written = write_report_set(out, files)
        click.echo(f"{PROG}: wrote {len(written)} files into {out}", err=True)
    return 0


@cli.command("consistency")
@click.argument("ruleset", required=False, metavar="[RULESET]")
@_bound_option
@_for_all_option
@click.option(
    "--engine",
    type=click.Choice(ENGINE_CHOICES),
    default=None,
    help="explicit: every inconsistency within the bounds; symbolic: Z3 on the transition "
    "relation (at most one finding per check); both. Default, as for check: both when the "
    "symbolic engine is installed.",
)
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="text", help="Output format.")
@_limit_options(
    "Stop exploring after N states (then nothing is claimed about the rest).",
    "Time budget: for the exploration, and for each symbolic check.",
)
@_amendment_options
@_out_option(
    "Also write the findings into DIR, all at once: consistency.txt and consistency.json "
    "(DIR is checked before the run)."
)
@click.option("--no-progress", is_flag=True, help="Do not show the progress display.")
def consistency_command(
    ruleset: str | None,
    bound_texts: tuple[str, ...],
    for_all: tuple[str, ...],
    engine: str | None,
    fmt: str,
    max_states: int | None,
    max_seconds: float | None,
    mutant: str | None,
    variant: str | None,
    out: Path | None,
    no_progress: bool,
) -> int:
    """List every inconsistency of a rule set: reachable states where no rule applies (a
    deadlock) and states where two automatic rules claim the next step, each with the rules
    involved, a concrete state and the shortest trace to it.

    Exit codes: 0 none found (everything explored), 1 inconsistencies found, 2 bad input,
    3 undecided (a limit stopped the search, or the solver could not decide).

    \b
    Examples:
      turnproof consistency magic
      turnproof consistency magic --mutant cleanup-always-priority
      turnproof consistency magic --engine both --bound turns=1
      turnproof consistency bench --engine symbolic --for-all turns --for-all budget
    """
    rs = _ruleset(ruleset)
    valid_bounds = [s.name for s in rs.bound_specs]
    bounds = parse_bounds(bound_texts, valid_bounds)
    selection = select(rs, bounds=bounds, variant=variant, mutant=mutant)
    engines, _ = _choose_engines(engine)
    model = selection.model
    if for_all:
        check_open_bounds(model, for_all, engines)
    if out is not None:
        check_out_dir(out)  # before the run: a folder that cannot be made fails fast
    findings: list[Finding] = []
    complete = True
    notes: list[str] = []
    show_progress = not no_progress and fmt == "text" and sys.stderr.isatty()
    with _progress_bar(show_progress) as (progress, on_engine):
        if "explicit" in engines:
            if on_engine is not None:
                on_engine("explicit")
            limits = Limits(max_states=max_states, max_seconds=max_seconds)
            ex = explore(model, limits=limits, progress=progress)
            findings.extend(find_inconsistencies(ex))
            complete = ex.complete
            notes.append(
                f"explicit: {ex.states:,} states"
                + ("" if ex.complete else f", incomplete ({ex.stop_reason})")
            )
        if "symbolic" in engines:
            from turnproof.checks.consistency import check_consistency

            if on_engine is not None:
                on_engine("symbolic")
            found = check_consistency(model, timeout_s=max_seconds or 60.0, open_bounds=for_all)
            findings.extend(found)
            scope = f" for every value of {', '.join(for_all)}" if for_all else ""
            notes.append(
                "symbolic: "
                + (f"{len(found)} finding(s)" if found else f"both checks proved{scope}")
            )
    violated = [f for f in findings if f.status == "violated"]
    code = 1 if violated else 3 if (findings or not complete) else 0
    doc = {
        "schema_version": json_report.SCHEMA_VERSION,
        "command": "consistency",
        "ruleset": {**model.describe(), **selection.labels()},
        "bounds": dict(model.bounds),
        "engines": list(engines),
        "complete": complete,
        "findings": [json_report.finding_json(f) for f in findings],
        "exit_code": code,
    }
    head = model.describe()
    lines = [f"{PROG} consistency: rule set {head['name']}, version {head['version']}"]
    lines.append("; ".join(notes))
    if not findings:
        lines.append("no inconsistency found" + ("" if complete else " in the explored part"))
    for n, f in enumerate(findings, 1):
        lines.append(f"\n{n}. {f.check}: {f.status}: {f.message}")
        lines.extend(f"   rule: {r}" for r in f.rules)
        if f.trace is not None:
            lines.append(text.render_trace(f.trace))
    as_json = json.dumps(doc, indent=2, sort_keys=True)
    as_text = "\n".join(lines)
    click.echo(as_json if fmt == "json" else as_text)
    if out is not None:
        written = write_report_set(
            out, {"consistency.txt": as_text + "\n", "consistency.json": as_json + "\n"}
        )
        for path in written:
            click.echo(f"{PROG}: wrote {path}", err=True)
    return code


def _report_out_options(stem: str) -> Callable[[F], F]:
    """--out DIR (the report as STEM.txt, STEM.md and STEM.json) and --no-progress."""

    def wrap(fn: F) -> F:
        fn = click.option("--no-progress", is_flag=True, help="Do not show progress on stderr.")(fn)
        return _out_option(
            f"Also write the report into DIR as {stem}.txt, {stem}.md and {stem}.json, all at once."
        )(fn)

    return wrap


def _emit_report_set(files: dict[str, str], stem: str, fmt: str, out: Path | None) -> None:
    """Write ``files`` into ``out`` (all at once) and print the one in format ``fmt``."""
    written = write_report_set(out, files) if out is not None else []
    ext = {"text": "txt", "json": "json", "markdown": "md"}[fmt]
    click.echo(files[f"{stem}.{ext}"], nl=False)
    for path in written:
        click.echo(f"{PROG}: wrote {path}", err=True)


# -- diff -------------------------------------------------------------------------------------

DIFF_FORMATS = ("text", "json", "markdown")


def _diff_sides(
    base_name: str,
    amended_name: str,
    property_names: Sequence[str],
    bound_texts: Sequence[str],
) -> tuple[Selection, Selection, tuple[str, ...], tuple[str, str]]:
    """The two selections ``diff`` compares, the amendments applied, and the two labels."""
    if _is_amendment(amended_name):
        changes = _amendment_set(amended_name)
        base, _ = _base_selection(base_name, changes, property_names, bound_texts)
        amended = amended_selection(base, changes, amended_name)
        what = f"{changes.name}: {changes.title}"
        label = base.model.ruleset.name
        return base, amended, (what,), (label, f"{label} amended by {changes.name}")
    base, _ = _selection(base_name, property_names, bound_texts, None, None)
    amended, _ = _selection(amended_name, property_names, bound_texts, None, None)
    return base, amended, (), (base_name, amended_name)


@cli.command("diff")
@click.argument("base", metavar="BASE")
@click.argument("amended", metavar="AMENDED")
@click.option(
    "--property",
    "property_names",
    multiple=True,
    metavar="NAME",
    help="Compare only this property (repeatable). Default: every property.",
)
@_bound_option
@click.option(
    "--engine",
    type=click.Choice(("explicit", "both")),
    default="explicit",
    show_default=True,
    help="explicit: every state within the bounds; both: the symbolic engine too.",
)
@click.option(
    "--format", "fmt", type=click.Choice(DIFF_FORMATS), default="text", help="Output format."
)
@_limit_options(
    "Stop each exploration after N states (its verdicts are then UNKNOWN).",
    "Time budget of each exploration (and each symbolic property).",
)
@click.option(
    "--load-bearing",
    is_flag=True,
    help="Also find the rules the base's verdicts rest on: remove each rule, and alter each of "
    "its clauses, in turn, and see which outcomes flip (explicit engine, at "
    "--load-bearing-bound; slow: progress on stderr).",
)
@click.option(
    "--load-bearing-bound",
    "lb_bound_texts",
    multiple=True,
    metavar="NAME=VALUE",
    help="A bound for the load-bearing mutations (repeatable; default: turns=1 where the rule "
    "set has turns, over the bounds of the comparison).",
)
@_report_out_options("diff")
def diff_command(
    base: str,
    amended: str,
    property_names: tuple[str, ...],
    bound_texts: tuple[str, ...],
    engine: str,
    fmt: str,
    max_states: int | None,
    max_seconds: float | None,
    load_bearing: bool,
    lb_bound_texts: tuple[str, ...],
    out: Path | None,
    no_progress: bool,
) -> int:
    """Compare two rule sets and write a rule-change report.

    BASE is a rule set or scenario (what `turnproof check` takes). AMENDED is an amendment
    file or a shipped amendment (`turnproof amendments`), applied to BASE; or another rule set
    or scenario. Both are checked (the explicit engine by default) at the same bounds.

    The report gives the properties whose outcome changed (worse, better), both verdicts; for
    each behaviour gained or lost (a property newly violated or witnessed, or no longer) the
    shortest trace, replayed on both rule sets side by side, the first step where they diverge
    marked; the states that became reachable or unreachable and the rules that fire in one
    only; and with --load-bearing, which properties depend on which rules, by mutation.

    Exit codes: 0 no property got worse, 1 a property that met its expectation in BASE no
    longer does in AMENDED, 2 bad input, 3 a property has only UNKNOWN verdicts on a side.

    \b
    Examples:
      turnproof amendments
      turnproof diff magic no-cleanup-repeat --bound turns=1
      turnproof diff magic my-change.toml --format markdown
      turnproof diff riftbound play-triggers-on-finalize --out reports/diff
      turnproof diff magic no-cleanup-repeat --bound turns=1 --load-bearing
    """
    from turnproof.checks.diff import compare
    from turnproof.checks.diff import load_bearing as find_load_bearing
    from turnproof.checks.explicit import Limits as _Limits
    from turnproof.reports import diff as diff_report

    started = time.perf_counter()
    base_sel, amended_sel, amendments, labels = _diff_sides(
        base, amended, property_names, bound_texts
    )
    lb_bounds = parse_bounds(lb_bound_texts, [s.name for s in base_sel.model.ruleset.bound_specs])
    if load_bearing and not lb_bound_texts and "turns" in base_sel.model.bounds:
        lb_bounds = {"turns": 1}
    if lb_bounds:
        Model(base_sel.model.ruleset, {**dict(base_sel.model.bounds), **lb_bounds})
    if out is not None:
        check_out_dir(out)
    engines = engines_for(engine)
    if "symbolic" in engines:
        load_symbolic()
    limits = _Limits(max_states=max_states, max_seconds=max_seconds)
    show = not no_progress

    def on_side(side: str) -> None:
        if show:
            click.echo(f"{PROG}: checking the {side} rule set", err=True)

    change = compare(
        base_sel,
        amended_sel,
        engines,
        limits,
        amendments=amendments,
        labels=labels,
        on_side=on_side,
    )
    if load_bearing:

        def on_mutation(done: int, total: int, what: str) -> None:
            if show:
                click.echo(f"{PROG}: load-bearing {done + 1}/{total}: {what}", err=True)

        lb = find_load_bearing(base_sel, lb_bounds, limits, on_mutation)
        change.load_bearing = lb
    run = Run.measured(_argv(), started, max_states=max_states, max_seconds=max_seconds)
    doc = diff_report.build_diff_report(change, run)
    _emit_report_set(diff_report.diff_files(doc), "diff", fmt, out)
    return doc.exit_code


@cli.command("mutate")
@click.argument("target", required=False, metavar="[TARGET]")
@_bound_option
@click.option(
    "--rule",
    "rule_names",
    multiple=True,
    metavar="NAME",
    help="Mutate only this rule, or this card's hook as CARD.HOOK (repeatable; `turnproof "
    "cards` lists the cards). Default: every rule and every hook, the cards' too.",
)
@click.option(
    "--format", "fmt", type=click.Choice(DIFF_FORMATS), default="text", help="Output format."
)
@_report_out_options("mutate")
def mutate_command(
    target: str | None,
    bound_texts: tuple[str, ...],
    rule_names: tuple[str, ...],
    fmt: str,
    out: Path | None,
    no_progress: bool,
) -> int:
    """Generate mutants of each rule from its source and run the properties against them.

    For each rule (the core's and the cards') and each function a card gives one of the
    core's hooks (CARD.HOOK, such as a Deathknell's dies hook), one mutation at a time: a
    guard's conjunct
    dropped (an x.require, or an operand of its x.And), a comparison flipped, the player who
    acts swapped for the next one, or a field the rule resets left alone. Each mutant is
    checked by the explicit engine (default bounds: turns=1 where the rule set has turns):
    killed when a property that passes on the rule set fails; equivalent when its reachable
    state graph is unchanged (the report says when its rule never fires within the bounds:
    equivalent there only, so raise the bounds, e.g. --bound turns=2, to test it); otherwise it
    survived, a hole in the properties, shown with the shortest trace of the changed behaviour.
    Survivors that a rule set's data file explains (checks/survivors/NAME.toml) are listed
    apart, with the reason.

    Exit codes: 0 no unexplained survivor, 1 some mutant survived unexplained, 2 bad input.

    \b
    Examples:
      turnproof mutate magic --bound turns=1
      turnproof mutate magic --rule pass_end_step --format markdown
      turnproof mutate riftbound --out reports/mutate
    """
    from turnproof.checks import mutate as mutation
    from turnproof.reports import mutate as mutate_report

    started = time.perf_counter()
    rs = _target(target)
    if (
        isinstance(rs, RuleSet)
        and not bound_texts
        and any(s.name == "turns" for s in rs.bound_specs)
    ):
        bound_texts = ("turns=1",)
    selection, _ = _selection(target, (), bound_texts, None, None)
    ruleset = selection.model.ruleset
    choices = [*ruleset.rule_names(), *mutation.hook_names(ruleset)]
    for name in rule_names:
        if name not in choices:
            raise UnknownNameError("rule or card hook", name, choices)
    if out is not None:
        check_out_dir(out)
    show = not no_progress

    def on_mutant(done: int, total: int, what: str) -> None:
        if show:
            click.echo(f"{PROG}: mutant {done + 1}/{total}: {what}", err=True)

    report = mutation.run(
        selection,
        rules=rule_names,
        explained=mutation.explained_survivors(ruleset.name),
        on_mutant=on_mutant,
    )
    run = Run.measured(_argv(), started)
    doc = mutate_report.build_mutate_report(report, run)
    _emit_report_set(mutate_report.mutate_files(doc), "mutate", fmt, out)
    return 1 if report.holes else 0


@cli.command("amendments")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="text", help="Output format.")
def amendments_command(fmt: str) -> int:
    """List the shipped amendments (rule changes that real ones resemble), each with its rule
    set and title.

    Compare one with its rule set by `turnproof diff RULESET NAME`; apply it to a check with
    `turnproof check RULESET --amend NAME`; copy its file (the last column) to write your own
    (the format: amendments/FORMAT.md).

    \b
    Examples:
      turnproof amendments
      turnproof diff magic no-cleanup-repeat --bound turns=1
    """
    found = amend.shipped()
    if fmt == "json":
        doc = {
            "schema_version": json_report.SCHEMA_VERSION,
            "command": "amendments",
            "amendments": [
                {"name": s.name, "ruleset": s.ruleset, "title": s.title, "file": str(s.path)}
                for s in found
            ],
        }
        click.echo(json_report.dumps(doc), nl=False)
        return 0
    width = max((len(s.name) for s in found), default=4)
    for s in found:
        click.echo(f"{s.name:<{width}}  {s.ruleset:<9}  {s.title}  ({s.path})")
    return 0


# -- listings ---------------------------------------------------------------------------------


def _show(fmt: str, as_json: Callable[[], str], as_text: Callable[[], str]) -> int:
    """Print a listing in the format asked for; a listing always exits 0."""
    click.echo(as_json() if fmt == "json" else as_text(), nl=False)
    return 0


@cli.command("rules")
@click.argument("ruleset", required=False, metavar="[RULESET]")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="text", help="Output format.")
@click.option(
    "--cite",
    metavar="NUMBER",
    help="Show only the rules under this number; old numbers resolve to today's.",
)
def rules_command(ruleset: str | None, fmt: str, cite: str | None) -> int:
    """List the rules of a rule set, each with its citation, kind and summary.

    Also shows the rule set's version, content hash and its old rule numbers (aliases). A
    player's choice names who decides. With --cite, an old rule number (the 2018 CR's 716, the
    pre-2009 507) is resolved to today's, and the rules under it are listed.

    \b
    Examples:
      turnproof rules bench
      turnproof rules bench --cite 117
      turnproof rules magic --cite 716.1a
      turnproof rules bench --format json
    """
    rs = _ruleset(ruleset)
    if cite is None:
        if fmt == "json":
            click.echo(json_report.render_rules_json(rs), nl=False)
        else:
            click.echo(text.render_rules(rs), nl=False)
        return 0
    today = rs.resolve_citation(cite)
    found = rs.find_rules(today)
    if not found:
        why = rs.explain_citation(cite)
        if not why:
            raise UnknownNameError("rule citation", cite, [r.citation for r in rs.rules])
        raise TurnproofError(
            f"no rule of {rs.name} answers to {cite!r}: {why}; rules cite "
            f"{', '.join(sorted({r.citation for r in rs.rules}))}"
        )
    if fmt == "json":
        cited = {"asked": cite, "today": today}
        click.echo(json_report.render_rules_json(rs, found, cited), nl=False)
    else:
        renumbered = today.split()[-1] != cite.split("@")[0].split()[-1]
        line = f"{cite} is today's {today}" if renumbered else f"rules under {today}"
        click.echo(text.render_rules(rs, found, cited=line + ":"), nl=False)
    return 0


@cli.command("properties")
@click.argument("ruleset", required=False, metavar="[RULESET]")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="text", help="Output format.")
def properties_command(ruleset: str | None, fmt: str) -> int:
    """List the properties of a rule set: kind, expectation, claim, cited rules and the
    mutants that break each one (the evidence that it is not vacuous).

    \b
    Examples:
      turnproof properties bench
      turnproof properties bench --format json
    """
    rs = _ruleset(ruleset)
    return _show(
        fmt, lambda: json_report.render_properties_json(rs), lambda: text.render_properties(rs)
    )


@cli.command("scenarios")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="text", help="Output format.")
def scenarios_command(fmt: str) -> int:
    """List the shipped scenarios, each with its one-line title.

    Run one with `turnproof check NAME`; copy its file (the last column) to start a scenario of
    your own.

    \b
    Examples:
      turnproof scenarios
      turnproof check sundial-and-sarkhan
    """
    found = loader.shipped()
    if fmt == "json":
        doc = {
            "schema_version": json_report.SCHEMA_VERSION,
            "command": "scenarios",
            "scenarios": [{"name": s.name, "title": s.title, "file": str(s.path)} for s in found],
        }
        click.echo(json_report.dumps(doc), nl=False)
        return 0
    width = max((len(s.name) for s in found), default=4)
    for s in found:
        click.echo(f"{s.name:<{width}}  {s.title}")
    return 0


@cli.command("cards")
@click.argument("ruleset", required=False, metavar="[RULESET]")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="text", help="Output format.")
def cards_command(ruleset: str | None, fmt: str) -> int:
    """List a game's card library: each card's name, text, the zones it can be in, the counters
    a scenario may put on it, and the rules it adds (citations and the card's hooks).

    A scenario names cards by these names (`[[card]] name = "Shock"`). Cards marked
    "abstract" stand for a pattern of real cards rather than a printed card.

    \b
    Examples:
      turnproof cards magic
      turnproof cards magic --format json
    """
    rs = _ruleset(ruleset)
    if rs.setup is None:
        raise TurnproofError(f"rule set {rs.name} has no card library")
    library = rs.setup.core.library()
    return _show(
        fmt,
        lambda: json_report.render_cards_json(rs, library),
        lambda: text.render_cards(rs, library),
    )


@cli.command("bounds")
@click.argument("ruleset", required=False, metavar="[RULESET]")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="text", help="Output format.")
def bounds_command(ruleset: str | None, fmt: str) -> int:
    """List the bounds of a rule set, each with its default, its range and what it bounds,
    and the rule set's variants with what each changes.

    Set a bound with `--bound NAME=VALUE`, choose a variant with `--variant NAME`
    (`turnproof check`, `explore`, `consistency`).

    \b
    Examples:
      turnproof bounds magic
      turnproof bounds bench --format json
    """
    rs = _ruleset(ruleset)
    return _show(fmt, lambda: json_report.render_bounds_json(rs), lambda: text.render_bounds(rs))


@cli.command("rulesets")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="text", help="Output format.")
def rulesets_command(fmt: str) -> int:
    """List the built-in rule sets with their name, game, version and description.

    \b
    Examples:
      turnproof rulesets
      turnproof rulesets --format json
    """
    sets = builtin_rulesets()
    return _show(
        fmt, lambda: json_report.render_rulesets_json(sets), lambda: text.render_rulesets(sets)
    )


@cli.command("hunt")
@click.argument("game", metavar="GAME")
@click.option(
    "--size",
    type=Count("cards"),
    default=2,
    show_default=True,
    help="Combinations of 1 to N cards.",
)
@click.option(
    "--pool",
    "pool_name",
    metavar="FILE",
    help="A pool file, or the name of a shipped pool (default: the shipped pool named GAME).",
)
@_bound_option
@click.option(
    "--budget",
    type=Count("combinations"),
    default=1000,
    show_default=True,
    help="The most combinations to check: more than that in the space, and the hunt samples.",
)
@click.option(
    "--time-budget",
    type=Seconds(),
    default=None,
    metavar="S",
    help="Seconds for the whole hunt: after S seconds no combination (nor confirmation) starts, "
    "those in progress finish (each bounded by --max-states), and the report says how many of "
    "the planned combinations were done. How far such a hunt gets depends on the machine.",
)
@click.option(
    "--seed", type=Count("seed", 0), default=0, show_default=True, help="The sampling seed."
)
@click.option(
    "--max-states",
    type=Count("states"),
    default=20_000,
    show_default=True,
    metavar="N",
    help="Stop exploring one combination after N states (its unanswered properties are listed).",
)
@click.option(
    "--jobs",
    type=Count("jobs"),
    default=None,
    help="Worker processes (or Ray CPUs of a local Ray); default: the cores this process may use.",
)
@click.option("--backend", type=click.Choice(("local", "ray")), default="local", show_default=True)
@click.option("--address", metavar="ADDR", help="The Ray cluster to use (--backend ray).")
@click.option(
    "--format", "fmt", type=click.Choice(("text", "json", "markdown", "html")), default="text"
)
@_out_option(
    "Write hunt.txt, hunt.json, hunt.md, hunt.html and findings/NAME.toml (one scenario a "
    "finding), all at once."
)
@click.option("--no-confirm", is_flag=True, help="Do not replay the findings on Z3.")
@click.option("--no-cache", is_flag=True, help="Check every combination again.")
@click.option("--no-progress", is_flag=True, help="Do not show the progress bar.")
def hunt_command(
    game: str,
    size: int,
    pool_name: str | None,
    bound_texts: tuple[str, ...],
    budget: int,
    time_budget: float | None,
    seed: int,
    max_states: int,
    jobs: int | None,
    backend: str,
    address: str | None,
    fmt: str,
    out: Path | None,
    no_confirm: bool,
    no_cache: bool,
    no_progress: bool,
) -> int:
    """Search combinations of a pool's cards for findings: broken properties, a turn that
    can't end, deadlocks, clashing automatic rules and surprising states, each at its
    smallest combination, with its trace and a scenario file that reproduces it.
    Exit code 0: no finding; 1: findings (so far, when --time-budget stopped the hunt);
    2: bad input; 130: interrupted by Ctrl-C or SIGTERM (the findings so far are reported,
    and written with --out)."""
    from turnproof.checks import hunt as hunting
    from turnproof.reports import hunt as hunt_report
    from turnproof.scenarios import pools

    sets = builtin_rulesets()
    if game not in sets:
        raise UnknownNameError("rule set", game, list(sets))
    pool = pools.load_pool(pools.find_pool(pool_name or game))
    if pool.game != game:
        raise TurnproofError(f"pool {pool.name} is a pool of {pool.game} cards, not {game}")
    valid = [sp.name for sp in sets[game].bound_specs]
    pool = pool.with_bounds(parse_bounds(bound_texts, valid))
    if address and backend != "ray":
        raise TurnproofError("--address goes with --backend ray")
    if out is not None:
        check_out_dir(out)
    settings = hunting.Settings(
        size=size,
        budget=budget,
        seed=seed,
        max_states=max_states,
        jobs=jobs or default_jobs(),
        backend=backend,
        address=address,
        confirm=not no_confirm,
        cache="" if no_cache else None,
        time_budget=time_budget,
    )
    with _hunt_progress(not no_progress and sys.stderr.isatty()) as progress:
        doc = hunting.hunt(pool, settings, progress)
    written: list[Path] = []
    if out is not None:
        written = write_report_set(out, hunt_report.hunt_files(doc))
    click.echo(hunt_report.RENDERERS[fmt](doc), nl=False)
    for path in written:
        click.echo(f"{PROG}: wrote {path}", err=True)
    search = doc["search"]
    if search["interrupted"]:
        click.echo(f"{PROG}: interrupted: the findings so far are reported", err=True)
        return 130
    if search["stopped"]:
        click.echo(
            f"{PROG}: the time budget ran out after {search['done']} of the {search['planned']} "
            "planned combinations: the findings so far are reported",
            err=True,
        )
    return 1 if doc["findings"] else 0


@contextlib.contextmanager
def _hunt_progress(enabled: bool) -> Iterator[Any]:
    """A rich progress bar on stderr counting the hunt's combinations, phase by phase."""
    from turnproof.checks.hunt import Progress as HuntProgress

    if not enabled:
        yield HuntProgress()
        return
    from rich.progress import BarColumn, MofNCompleteColumn

    console = Console(stderr=True)
    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console,
        transient=True,
    ) as bar:
        current: list[Any] = []

        def start(phase: str, total: int) -> None:
            current[:] = [bar.add_task(phase, total=total)]

        def advance(result: Any) -> None:
            if current:
                bar.advance(current[0])

        yield HuntProgress(start, advance)


@cli.command("bench")
@click.option(
    "--only",
    "only",
    metavar="TARGETS",
    default=None,
    help="Comma-separated targets to measure, of speed, magic, memory, cores, xl, symbolic "
    "(default: all; xl runs only when asked for, by --xl or by naming it here).",
)
@click.option("--xl", is_flag=True, help="Also explore XL (41 M states; many minutes).")
@click.option(
    "--repeats",
    type=Count("repeats"),
    default=3,
    show_default=True,
    metavar="N",
    help="Runs of each explicit figure, each in a fresh interpreter (medians). XL runs once, "
    "the symbolic check once cold and once warm.",
)
@click.option(
    "--peers",
    default="spin,rumur",
    show_default=True,
    metavar="NAMES",
    help="The model checkers the speed target compares with, of spin, rumur, or 'none'. One "
    "that is not installed is reported as unavailable.",
)
@click.option(
    "--gen",
    "gen_path",
    metavar="PATH",
    default=None,
    help="The benchmark's gen_peers.py or its folder (default: $TURNPROOF_BENCH_DIR, else "
    "../shared/bench next to the project).",
)
@click.option(
    "--timeout",
    type=Seconds(),
    default=None,
    metavar="S",
    help="Stop any single measured run after S seconds (it is then reported as failed).",
)
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="text", help="Output format.")
@click.option("--json", "as_json", is_flag=True, help="The same as --format json.")
@click.option("--quiet", is_flag=True, help="No progress lines on stderr.")
def bench_command(
    only: str | None,
    xl: bool,
    repeats: int,
    peers: str,
    gen_path: str | None,
    timeout: float | None,
    fmt: str,
    as_json: bool,
    quiet: bool,
) -> int:
    """Measure the performance targets and print each beside its figure before the
    work: a table (target, today, now, met?), then how each was measured.

    \b
    speed     the explicit engine's states/s on the benchmark's mid over SPIN's (>= 1/10),
              SPIN and Rumur run in the same run (turnproof.scenarios.bench)
    magic     the default Magic model compiled against the interpreted path (>= 3x)
    memory    bytes a state on L, the state graph included (<= 120)
    cores     the compact search of L with two worker processes against one process
              (>= 1.7x by wall time; --explore-workers of check and explore)
    xl        XL (41 M states) completes: only with --xl, or when named in --only
    symbolic  `turnproof check` (both engines, Magic) from an empty invariant cache (<= 60 s)
              and from the one it filled (<= 30 s); every verdict of both runs judged: each
              property expected to hold PROVED for every value of its open bounds
    CI within 12 minutes is measured by .ci/run, not here.

    Each explicit run explores in a fresh interpreter; the state counts are compared with the
    reference counts. The explicit targets take about 4 minutes on 2 cores; the symbolic one
    runs the default check twice (measured: 32 minutes for the whole run at load 4, 28 of them
    the two checks); --xl adds about 10 times L's time. Progress goes to stderr. An unmet
    target is reported, and is no failure.

    Exit codes: 0 measured, every count and verdict as it should be; 1 a state count
    disagrees, a measurement failed, or a symbolic verdict is not as it should be; 2 bad
    input.

    \b
    Examples:
      turnproof bench
      turnproof bench --only speed,memory --repeats 1
      turnproof bench --only speed --peers spin --format json
      turnproof bench --only symbolic
      turnproof bench --only xl --quiet
    """
    from turnproof.scenarios import targets as bench_targets
    from turnproof.scenarios.bench import split_names

    if only is None:
        chosen = bench_targets.TARGETS
    else:
        chosen = bench_targets.choose_targets(split_names(only))
    if xl:
        chosen = bench_targets.choose_targets([*chosen, "xl"])
    asked_xl = xl or (only is not None and "xl" in chosen)

    def progress(message: str) -> None:
        click.echo(f"{PROG}: bench: {message}", err=True)

    result = bench_targets.run_targets(
        chosen,
        repeats,
        split_names(peers),
        gen_path,
        timeout=timeout,
        xl=asked_xl,
        progress=None if quiet else progress,
    )
    if fmt == "json" or as_json:
        doc = {"schema_version": json_report.SCHEMA_VERSION, "command": "bench", **result}
        click.echo(json.dumps(doc, indent=2, sort_keys=True))
    else:
        click.echo(bench_targets.format_targets(result), nl=False)
    return int(result["exit_code"])


def _terminate(signum: int, frame: Any) -> None:
    """SIGTERM: stop as Ctrl-C does (the finished properties are kept and reported, the worker
    processes ended); ignored from then on, so that the report can be written."""
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    raise KeyboardInterrupt


def main(argv: Sequence[str] | None = None) -> None:
    """The console script's entry point."""
    signal.signal(signal.SIGTERM, _terminate)
    try:
        cli.main(args=argv, prog_name=PROG)
    finally:
        end_workers()  # no worker process outlives the command, whatever happened
