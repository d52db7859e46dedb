"""Text renderings of check reports and rule sets, for the terminal and for files.

Traces read like a story (after mypyvy's ``Trace.__str__`` and TLC's ``-difftrace``): ``state 0``
shows the whole initial state, one field per line; every step after it is a line naming the rule
that fired (citation, parameters, summary, who decided), followed by only the fields that
changed, under the number of the state it leads to. A lasso marks where its loop starts, says
which state closes it, and lists who could have broken it.

Every function here returns text (or, for the terminal, a rich renderable) and never prints.
The plain forms are deterministic, without colour or terminal-dependent widths, so that golden
files can pin them; the only values that vary between runs are the timings (``0.12 s``).

>>> format_value([0, 1])
'[0, 1]'
>>> format_value({"ctrl": 1, "live": True})
'{ctrl: 1, live: true}'
"""

from __future__ import annotations

import shlex
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from rich.table import Table as RichTable
from rich.text import Text
from turnproof.checks.results import CheckReport, PropertyResult, Trace, TraceStep, Verdict
from turnproof.model.rules import Kind, Rule, RuleSet, summarize_rules

ARROW = "──►"
RULE_LINE = "──"

_VERDICT_STYLE = {
    Verdict.PROVED: "bold green",
    Verdict.EXHAUSTIVE: "green",
    Verdict.VIOLATED: "bold red",
    Verdict.WITNESSED: "cyan",
    Verdict.UNKNOWN: "bold yellow",
}

_EXPECT_TEXT = {
    "holds": "to hold",
    "violated": "to be violated",
    "witnessed": "to be witnessed",
}


# -- values -----------------------------------------------------------------------------------


#: A certificate list longer than this (an invariant's claims) is counted in the text report and
#: listed in full in the JSON one.
LONG_LIST = 20


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


def format_bounds(bounds: Mapping[str, int]) -> str:
    return ", ".join(f"{k}={v}" for k, v in bounds.items()) or "(none)"


def _plural(n: int, word: str, plural: str = "") -> str:
    return f"{n:,} {word if n == 1 else (plural or word + 's')}"


# -- plain tables -----------------------------------------------------------------------------


@dataclass(frozen=True)
class TextTable:
    """Headers and rows of strings; ``right`` holds the indices of right-aligned columns."""

    headers: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    right: frozenset[int] = frozenset()

    def plain(self, indent: str = "") -> str:
        """Columns as wide as their widest cell, two spaces apart, a dashed rule under the
        headers, no trailing spaces."""
        widths = [len(h) for h in self.headers]
        for row in self.rows:
            widths = [max(w, len(c)) for w, c in zip(widths, row)]

        def line(cells: Sequence[str]) -> str:
            parts = [
                c.rjust(w) if i in self.right else c.ljust(w)
                for i, (c, w) in enumerate(zip(cells, widths))
            ]
            return (indent + "  ".join(parts)).rstrip()

        out = [line(self.headers), line(["-" * w for w in widths])]
        out.extend(line(r) for r in self.rows)
        return "\n".join(out)

    def rich(self, styles: Mapping[tuple[int, int], str] | None = None) -> RichTable:
        """The same table for a terminal; ``styles`` maps (row, column) to a rich style."""
        styles = styles or {}
        table = RichTable(show_edge=False, header_style="bold")
        for i, h in enumerate(self.headers):
            # Every cell but the last column's stays whole: names are never cut.
            table.add_column(
                h,
                justify="right" if i in self.right else "left",
                no_wrap=i < len(self.headers) - 1,
            )
        for r, row in enumerate(self.rows):
            table.add_row(*(Text(c, style=styles.get((r, i), "")) for i, c in enumerate(row)))
        return table


# -- the check report -------------------------------------------------------------------------


def met_text(r: PropertyResult) -> str:
    """The "as expected" cell: ``yes``, or ``NO`` with what was expected."""
    if r.meets_expectation:
        return "yes"
    if r.verdict is Verdict.UNKNOWN:
        return "unknown"
    if r.vacuous:
        return "NO (vacuous)"
    return f"NO (expected {_EXPECT_TEXT.get(r.expect, r.expect)})"


def check_table(report: CheckReport) -> TextTable:
    """One row per result: property, engine, verdict, states explored, time, as expected."""
    rows = tuple(
        (
            r.name,
            r.engine,
            r.verdict.value,
            f"{r.states:,}" if r.states else "-",  # an engine that counts no states
            format_seconds(r.seconds) if r.engine != "both" else "-",
            met_text(r),
        )
        for r in report.results
    )
    headers = ("property", "engine", "verdict", "states", "time", "as expected")
    return TextTable(headers, rows, right=frozenset({3, 4}))


def check_table_rich(report: CheckReport) -> RichTable:
    """:func:`check_table` for a terminal: verdicts and failures in colour."""
    styles: dict[tuple[int, int], str] = {}
    for i, r in enumerate(report.results):
        styles[(i, 2)] = _VERDICT_STYLE[r.verdict]
        if r.meets_expectation:
            styles[(i, 5)] = "green"
        else:
            styles[(i, 5)] = "yellow" if r.verdict is Verdict.UNKNOWN else "bold red"
    return check_table(report).rich(styles)


def render_header(report: CheckReport, engine_note: str = "") -> str:
    rs = report.ruleset
    lines = [
        f"turnproof check: rule set {rs.get('name', '?')}, version {rs.get('version', '?')}, "
        f"content hash {rs.get('content_hash', '?')}"
    ]
    scenario = rs.get("scenario")
    if scenario:
        title = f": {scenario['title']}" if scenario.get("title") else ""
        where = f" ({scenario['origin']})" if scenario.get("origin") else ""
        lines.append(f"scenario {scenario['name']}{title}{where}")
    if rs.get("cards"):
        lines.append("cards in play: " + "; ".join(rs["cards"]))
    if rs.get("amended"):
        lines.append("amended: " + "; ".join(rs["amended"]))
    mutant = rs.get("mutant")
    if mutant:
        lines.append(
            f"mutant: {mutant['name']}: {mutant['description']}; "
            f"it should break: {', '.join(mutant['breaks']) or '(nothing named)'}"
        )
    lines.append(f"bounds: {format_bounds(report.bounds)}")
    opened = sorted({name for r in report.results for name in r.for_all})
    if opened:
        lines.append(
            f"left open by the symbolic engine: {', '.join(opened)} (its PROVED verdicts hold for "
            "every value; the explicit engine checks the values above)"
        )
    engines = " and ".join(report.engines)
    lines.append(f"engine: {engines}" + (f" ({engine_note})" if engine_note else ""))
    return "\n".join(lines)


def shows_trace(r: PropertyResult) -> bool:
    """Traces are shown for every violation and witness, and for every unmet expectation."""
    return r.trace is not None and (
        not r.meets_expectation or r.verdict in (Verdict.VIOLATED, Verdict.WITNESSED)
    )


#: Up to this many bounds are repeated in each EXHAUSTIVE line; more are only in the header.
INLINE_BOUNDS = 6


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
                f"bound reached: {name} ({_plural(n, 'transition')} cut)"
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
        text = f"WITNESSED by a trace of {_plural(n, 'step')}"
        if r.trace is not None and r.trace.bounds:
            text += f" with {format_bounds(r.trace.bounds)}"
    else:
        text = "VIOLATED"
        if r.trace is not None:
            t = r.trace
            if t.loop_start is not None:
                loop = len(t) - t.loop_start
                text += f": a loop of {_plural(loop, 'step')}, entered after {_plural(t.loop_start, 'step')}"
            else:
                text += f": a counterexample of {_plural(len(t), 'step')}"
            if t.bounds:
                text += f" with {format_bounds(t.bounds)}"
    if r.reason and v is not Verdict.UNKNOWN:
        text += f" ({r.reason})"
    return text


def render_result(
    r: PropertyResult, replay: str = "", report_bounds: Mapping[str, int] | None = None
) -> str:
    """The detail block of one result: what it claims, what the verdict means, and its trace."""
    title = f"{r.name} [{r.engine}]: {r.verdict.value}"
    if not r.meets_expectation and r.verdict is not Verdict.UNKNOWN:
        title += f", {met_text(r)}"
    lines = [f"{RULE_LINE} {title} {RULE_LINE}", f"  claim: {r.description}"]
    if r.citations:
        lines.append(f"  rules: {', '.join(r.citations)}")
    lines.append(f"  {verdict_line(r, report_bounds)}")
    if r.verdict is Verdict.PROVED and r.certificate:
        lines.append("  certificate:")
        for k, v in sorted(r.certificate.items()):
            if isinstance(v, list) and len(v) > LONG_LIST:
                lines.append(f"    {k}: {len(v)} entries (listed in the JSON report)")
                continue
            # A formula may span lines; its continuation lines stay under its key.
            first, *rest = format_value(v).splitlines() or [""]
            lines.append(f"    {k}: {first}")
            lines.extend(f"      {ln.strip()}" for ln in rest)
    if shows_trace(r):
        assert r.trace is not None
        lines.append("")
        # Only the explicit engine records a loop's ways out (results.Trace cannot yet say
        # "not computed"), so an empty list from another engine is not a mandatory loop.
        exits_known = r.trace.exits is not None
        story = render_trace(r.trace, exits_known)
        lines.extend("  " + ln if ln else "" for ln in story.splitlines())
        if replay:
            lines.append("")
            lines.append(f"  replay: {replay}")
    return "\n".join(lines)


def replay_command(report: CheckReport, r: PropertyResult) -> str:
    """The command line that checks this one property again, on the same rule set and bounds."""
    rs = report.ruleset
    scenario = rs.get("scenario")
    if scenario:  # the scenario says everything else
        target = scenario.get("origin") or scenario["name"]
        parts = ["turnproof", "check", _quoted(target)]
        if r.kind != "state-count":
            parts += ["--property", r.name]
        return " ".join(parts + ["--engine", r.engine])
    parts = ["turnproof", "check", str(rs.get("name", "")), "--property", r.name]
    engine = r.engine if r.engine != "both" else "both"
    parts += ["--engine", engine]
    if rs.get("variant"):
        parts += ["--variant", rs["variant"]]
    if rs.get("mutant"):
        parts += ["--mutant", rs["mutant"]["name"]]
    # The bounds that differ from the rule set's defaults when the runner said so; all else.
    for k, v in rs.get("bounds_changed", report.bounds).items():
        parts += ["--bound", f"{k}={v}"]
    return " ".join(parts)


def _quoted(word: str) -> str:
    """A shell word for ``word`` (quoted when it holds anything but plain path characters)."""
    return shlex.quote(word)


def render_summary(report: CheckReport) -> str:
    results = report.results
    met = sum(1 for r in results if r.meets_expectation)
    unknown = sum(1 for r in results if r.verdict is Verdict.UNKNOWN)
    failed = len(results) - met - unknown
    parts = [f"{_plural(len(results), 'result')}: {met} as expected"]
    if failed:
        parts.append(f"{failed} not as expected")
    if unknown:
        parts.append(f"{unknown} unknown")
    lines = [", ".join(parts) + f" (exit code {report.exit_code})"]
    if report.coverage:
        never = report.rules_never_fired()
        fired = len(report.coverage) - len(never)
        line = f"rule coverage: {fired} of {len(report.coverage)} rules fired within these bounds"
        if never:
            line += "; never fired (no verdict covers them): " + ", ".join(never)
        lines.append(line)
    mutant = report.ruleset.get("mutant")
    if mutant:
        lines.append(mutant_verdict(report, mutant["name"], mutant["breaks"]))
    return "\n".join(lines)


def mutant_verdict(report: CheckReport, name: str, breaks: Sequence[str]) -> str:
    """Whether the properties that should catch the mutant did: a property catches it by
    missing its expectation (a violation, or a witness that disappeared)."""
    checked = {r.name for r in report.results}
    caught = sorted(
        {
            r.name
            for r in report.results
            if r.name in breaks and not r.meets_expectation and r.verdict is not Verdict.UNKNOWN
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


def render_details(report: CheckReport) -> str:
    return "\n\n".join(
        render_result(r, replay_command(report, r), report.bounds) for r in report.results
    )


def render_check(report: CheckReport, engine_note: str = "") -> str:
    """The whole report as plain text: header, table, one detail block per result, summary."""
    return (
        "\n\n".join(
            [
                render_header(report, engine_note),
                check_table(report).plain(),
                render_details(report),
                render_summary(report),
            ]
        )
        + "\n"
    )


# -- traces -----------------------------------------------------------------------------------


def _params_of(step: TraceStep) -> str:
    """``resolve(trig=1)`` → ``[trig=1]``; nothing for a rule without parameters."""
    name = step.name
    if "(" in name and name.endswith(")"):
        return "[" + name[name.index("(") + 1 : -1] + "]"
    return ""


def step_line(step: TraceStep) -> str:
    """``── MTG 117.4 [trig=1] the top of the stack resolves (decided by player 1) ──►``."""
    parts = [f"{step.rule} (card: {step.card})" if step.card else step.rule]
    params = _params_of(step)
    if params:
        parts.append(params)
    parts.append(step.summary)
    if step.decider is not None:
        parts.append(f"(decided by player {step.decider})")
    return f"{RULE_LINE} {' '.join(parts)} {ARROW}"


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


def _changes(step: TraceStep) -> list[str]:
    if not step.changed:
        return ["  (nothing changed)"]
    return ["  " + ln for k, (old, new) in step.changed.items() for ln in diff_lines(k, old, new)]


def render_trace(trace: Trace, exits_known: bool = True) -> str:
    """A trace as a story; see the module docstring. States are numbered from 0; step ``k``
    leads from state ``k-1`` to state ``k``. ``exits_known=False`` says that the engine did not
    look for ways out of a loop, so an empty ``trace.exits`` proves nothing."""
    lines = []
    if trace.bounds:
        lines.append(f"with {format_bounds(trace.bounds)} (bounds the symbolic engine left open)")
    lines.append("state 0")
    lines.extend(f"  {k} = {format_value(v)}" for k, v in trace.initial.items())
    loop = trace.loop_start
    if loop == 0:
        lines.append(f"{RULE_LINE} loop starts here {RULE_LINE}")
    for k, step in enumerate(trace.steps, start=1):
        lines.append(step_line(step))
        if loop is not None and k == len(trace.steps):
            lines.append(f"state {k} = state {loop}: the loop closes")
        else:
            lines.append(f"state {k}")
        lines.extend(_changes(step))
        if loop is not None and k == loop:
            lines.append(f"{RULE_LINE} loop starts here {RULE_LINE}")
    if loop is not None:
        lines.append("")
        lines.extend(_loop_exits(trace, exits_known))
    return "\n".join(lines)


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
        else:
            lines.append(f"  player {e.decider} can leave the loop {where} by choosing {choice}")
    return lines


# -- rule sets ----------------------------------------------------------------------------------


def decider_text(rule: Rule) -> str:
    """Who decides a player's choice: the decider's docstring, or its name."""
    fn = rule.decider
    if fn is None:
        return ""
    doc = (fn.__doc__ or "").strip().splitlines()
    if doc:
        return doc[0].rstrip(".")
    return getattr(fn, "__name__", "a player").strip("_").replace("_", " ")


def kind_text(rule: Rule) -> str:
    """``turn-based action``; ``player's choice (decided by: the player with priority)``;
    ``trigger bookkeeping, player's choice (decided by: …)``."""
    if rule.is_automatic:
        return rule.kind.value
    choice = f"player's choice (decided by: {decider_text(rule)})"
    return choice if rule.kind is Kind.CHOICE else f"{rule.kind.value}, {choice}"


def rules_table(rules: Iterable[Rule]) -> TextTable:
    rules = list(rules)
    rows = [
        (row["citation"], row["name"], kind_text(r), row["summary"])
        for row, r in zip(summarize_rules(rules), rules)
    ]
    return TextTable(("citation", "rule", "kind", "summary"), tuple(rows))


def render_rules(ruleset: RuleSet, rules: Sequence[Rule] | None = None, cited: str = "") -> str:
    """A rule set's identity, its aliases and its rules (or only ``rules``, those that ``cited``
    resolved to)."""
    lines = [
        f"rule set {ruleset.name} ({ruleset.game}), version {ruleset.version}, "
        f"content hash {ruleset.content_hash()}",
        ruleset.description,
    ]
    if ruleset.amended:
        lines.append("amended: " + "; ".join(ruleset.amended))
    if ruleset.aliases:
        lines.append("")
        lines.append("old rule numbers:")
        for a in ruleset.aliases:
            note = f" ({a.note})" if a.note else ""
            lines.append(f"  {a.old} (edition {a.edition}) is today's {a.new}{note}")
    lines.append("")
    if cited:
        lines.append(cited)
    shown = list(ruleset.rules if rules is None else rules)
    lines.append(rules_table(shown).plain())
    return "\n".join(lines) + "\n"


def render_properties(ruleset: RuleSet) -> str:
    """Every property: kind, expectation, claim, cited rules, and the mutants it catches."""
    blocks = [f"properties of rule set {ruleset.name}, version {ruleset.version}"]
    for p in ruleset.properties:
        mutants = [m.name for m in ruleset.mutants if p.name in m.breaks]
        lines = [
            f"{p.name} ({p.kind}, expected {_EXPECT_TEXT.get(p.expect.value, p.expect.value)})",
            f"  claim: {p.description}",
            f"  rules: {', '.join(p.citations) or '(none cited)'}",
            f"  caught mutants: {', '.join(mutants) or '(none yet)'}",
        ]
        if p.for_all:
            lines.append(f"  for all: {', '.join(p.for_all)} (proved for every value)")
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks) + "\n"


def render_rulesets(rulesets: Mapping[str, RuleSet]) -> str:
    rows = tuple((rs.name, rs.game, rs.version, rs.description) for rs in rulesets.values())
    return TextTable(("name", "game", "version", "description"), rows).plain() + "\n"


# -- the card library -------------------------------------------------------------------------


def card_rows(ruleset: RuleSet, library: Mapping[str, Any]) -> list[dict[str, Any]]:
    """One row per card of a library: what ``turnproof cards`` shows (and its JSON)."""
    in_play = set(ruleset.setup.cards and [c.key for c in ruleset.setup.cards])
    rows = []
    for key, pack in library.items():
        rules = [f"{r.citation} {r.name}: {r.summary}" for r in pack.rules]
        core = ruleset.setup.core
        rules += [
            f"{made.citation} {made.name}: {made.summary}"
            for spec in pack.kinds
            if spec.name in pack.resolve
            for made in [core.resolution(pack, spec, pack.resolve[spec.name], 0)]
        ]
        rows.append(
            {
                "name": pack.name,
                "key": key,
                "abstract": pack.abstract,
                "text": pack.text,
                "zones": list(pack.zones),
                "counters": dict(pack.counters),
                "kinds": [{"name": k.name, "doc": k.doc} for k in pack.kinds],
                "fields": [
                    {"name": f.name, "doc": f.doc, "ends": f.ends or None} for f in pack.fields
                ],
                "bounds": [b.name for b in pack.bounds],
                "rules": rules,
                "hooks": sorted(pack.hooks),
                "castable": sorted(pack.cast),
                "in_builtin_ruleset": key in in_play,
                "sources": list(pack.sources),
            }
        )
    return rows


def render_cards(ruleset: RuleSet, library: Mapping[str, Any]) -> str:
    """The card library as text: a block per card."""
    lines = [f"card library of {ruleset.name} ({len(library)} cards); * = in the built-in rule set"]
    for row in card_rows(ruleset, library):
        mark = "*" if row["in_builtin_ruleset"] else " "
        tag = " (abstract)" if row["abstract"] else ""
        lines.append("")
        lines.append(f"{mark} {row['name']}{tag}  [{row['key']}]")
        lines.append(f"    {row['text']}")
        lines.append(f"    zones: {', '.join(row['zones'])}")
        if row["counters"]:
            shown = ", ".join(f"{c} (sets bound {b})" for c, b in row["counters"].items())
            lines.append(f"    counters: {shown}")
        for f in row["fields"]:
            ends = f" (ends: {f['ends']})" if f["ends"] else ""
            lines.append(f"    field {f['name']}: {f['doc']}{ends}")
        for r in row["rules"]:
            lines.append(f"    rule {r}")
        if row["hooks"]:
            lines.append(f"    hooks: {', '.join(row['hooks'])}")
    return "\n".join(lines) + "\n"
