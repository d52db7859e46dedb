"""Text renderings of check reports and rule sets, for the terminal and for files.

Traces read like a story (after mypyvy's ``Trace.__str__`` and TLC's ``-difftrace``): ``state 0``
shows the whole initial state, one field per line; every step after it is a line naming the rule
that fired (citation, parameters, summary, who decided), followed by only the fields that
changed, under the number of the state it leads to. A lasso marks where its loop starts, says
which state closes it, and lists who could have broken it.

Every function here returns text (or, for the terminal, a rich renderable) and never prints.
The check report is rendered from the proof report value
(:class:`~turnproof.reports.document.ProofReport`), which says what every format says; this
module only lays it out. The plain forms are deterministic, without colour or
terminal-dependent widths, so that golden files can pin them; the only values that vary between
runs are the measurements (``0.12 s``, ``52.3 MiB``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from rich.table import Table as RichTable
from rich.text import Text
from turnproof.checks.results import Trace, Verdict
from turnproof.model.rules import (
    Add,
    Amendment,
    Derive,
    Kind,
    Remove,
    Replace,
    Rule,
    RuleSet,
    Variant,
    summarize_rules,
)
from turnproof.reports.document import (
    Entry,
    ProofReport,
    Story,
    StoryStep,
    expect_text,
    format_seconds,
    story_of,
)

ARROW = "──►"
RULE_LINE = "──"

_VERDICT_STYLE = {
    Verdict.PROVED: "bold green",
    Verdict.EXHAUSTIVE: "green",
    Verdict.VIOLATED: "bold red",
    Verdict.WITNESSED: "cyan",
    Verdict.UNKNOWN: "bold yellow",
}

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


def check_table(doc: ProofReport) -> TextTable:
    """One row per result: property, engine, verdict, states explored, time, as expected."""
    rows = tuple(
        (
            e.name,
            e.engine,
            e.verdict.value,
            f"{e.result.states:,}" if e.result.states else "-",  # an engine that counts no states
            format_seconds(e.result.seconds) if e.engine != "both" else "-",
            e.met,
        )
        for e in doc.entries
    )
    headers = ("property", "engine", "verdict", "states", "time", "as expected")
    return TextTable(headers, rows, right=frozenset({3, 4}))


def check_table_rich(doc: ProofReport) -> RichTable:
    """:func:`check_table` for a terminal: verdicts and failures in colour."""
    styles: dict[tuple[int, int], str] = {}
    for i, e in enumerate(doc.entries):
        styles[(i, 2)] = _VERDICT_STYLE[e.verdict]
        if e.result.meets_expectation:
            styles[(i, 5)] = "green"
        else:
            styles[(i, 5)] = "yellow" if e.verdict is Verdict.UNKNOWN else "bold red"
    return check_table(doc).rich(styles)


def render_header(doc: ProofReport) -> str:
    h = doc.header
    lines = [
        f"turnproof check: rule set {h.ruleset}, version {h.version}, content hash {h.content_hash}"
    ]
    # "scenario NAME: its title (its file)" reads better without a colon after the label.
    lines.extend(
        f"{label} {text}" if label == "scenario" else f"{label}: {text}" for label, text in h.lines
    )
    return "\n".join(lines)


def render_result(e: Entry) -> str:
    """The detail block of one result: what it claims, what the verdict means, and its trace."""
    r = e.result
    lines = [f"{RULE_LINE} {e.title} {RULE_LINE}", f"  claim: {r.description}"]
    if r.citations:
        lines.append(f"  rules: {', '.join(r.citations)}")
    lines.append(f"  {e.verdict_line}")
    if e.certificate:
        lines.append("  certificate:")
        for key, (first, *rest) in e.certificate:
            lines.append(f"    {key}: {first}")
            lines.extend(f"      {ln}" for ln in rest)
    if e.story is not None:
        lines.append("")
        lines.extend("  " + ln if ln else "" for ln in story_lines(e.story))
        if e.story.replay:
            lines.append("")
            lines.append(f"  replay: {e.story.replay}")
    return "\n".join(lines)


def render_details(doc: ProofReport) -> str:
    return "\n\n".join(render_result(e) for e in doc.entries)


def render_summary(doc: ProofReport) -> str:
    lines = list(doc.summary)
    lines.extend(f"{label}: {text}" for label, text in doc.figures)
    return "\n".join(lines)


def render_check(doc: ProofReport) -> str:
    """The whole report as plain text: header, table, one detail block per result, summary."""
    return (
        "\n\n".join(
            [
                render_header(doc),
                check_table(doc).plain(),
                render_details(doc),
                render_summary(doc),
            ]
        )
        + "\n"
    )


# -- traces -----------------------------------------------------------------------------------


def step_line(step: StoryStep) -> str:
    """``── MTG 117.4 [trig=1] the top of the stack resolves (decided by player 1) ──►``."""
    return f"{RULE_LINE} {step.line} {ARROW}"


def story_lines(story: Story) -> list[str]:
    """A story as lines; see the module docstring. States are numbered from 0; step ``k``
    leads from state ``k-1`` to state ``k``."""
    lines = []
    if story.open_bounds:
        lines.append(f"with {story.open_bounds} (bounds the symbolic engine left open)")
    lines.append("state 0")
    lines.extend(f"  {k} = {v}" for k, v in story.initial)
    if story.loop_start == 0:
        lines.append(f"{RULE_LINE} loop starts here {RULE_LINE}")
    for step in story.steps:
        lines.append(step_line(step))
        if step.closes_loop:
            lines.append(f"state {step.number} = state {story.loop_start}: the loop closes")
        else:
            lines.append(f"state {step.number}")
        lines.extend("  " + ln for ln in step.changes or ("(nothing changed)",))
        if step.loop_starts_after:
            lines.append(f"{RULE_LINE} loop starts here {RULE_LINE}")
    if story.loop_start is not None:
        lines.append("")
        lines.extend(story.loop_note)
    return lines


def render_trace(trace: Trace, exits_known: bool = True) -> str:
    """A trace as a story (:func:`turnproof.reports.document.story_of`), as text."""
    return "\n".join(story_lines(story_of(trace, exits_known)))


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
            f"{p.name} ({p.kind}, expected {expect_text(p.expect.value)})",
            f"  claim: {p.description}",
            f"  rules: {', '.join(p.citations) or '(none cited)'}",
            f"  caught mutants: {', '.join(mutants) or '(none yet)'}",
        ]
        if p.for_all:
            lines.append(f"  for all: {', '.join(p.for_all)} (proved for every value)")
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks) + "\n"


def amendment_text(a: Amendment) -> str:
    """What one amendment does, in a few words."""
    if isinstance(a, Replace):
        return f"replaces {a.target}: {a.rule.summary}"
    if isinstance(a, Remove):
        return f"removes {a.target}"
    if isinstance(a, Add):
        return f"adds {a.rule.citation} {a.rule.name}: {a.rule.summary}"
    if isinstance(a, Variant):
        return f"variant {a.name}"
    if isinstance(a, Derive):
        return f"changes {a.target}: {a.summary}"
    return f"changes the {a.hook} hook of {a.card}" + (f": {a.summary}" if a.summary else "")


def bound_rows(ruleset: RuleSet) -> list[dict[str, Any]]:
    """One row per bound of a rule set: what ``turnproof bounds`` shows (and its JSON)."""
    return [
        {"name": s.name, "default": s.default, "min": s.lo, "max": s.hi, "doc": s.doc}
        for s in ruleset.bound_specs
    ]


def variant_rows(ruleset: RuleSet) -> list[dict[str, Any]]:
    """One row per variant of a rule set: its name and what its amendments change."""
    return [
        {"name": name, "changes": [amendment_text(a) for a in amendments]}
        for name, amendments in ruleset.variants.items()
    ]


def render_bounds(ruleset: RuleSet) -> str:
    """A rule set's bounds (default, range, meaning) and its variants."""
    rows = tuple(
        (r["name"], str(r["default"]), f"{r['min']}..{r['max']}", r["doc"])
        for r in bound_rows(ruleset)
    )
    lines = [
        f"bounds of rule set {ruleset.name} (set one with --bound NAME=VALUE):",
        TextTable(("bound", "default", "range", "meaning"), rows, frozenset({1})).plain(),
        "",
    ]
    variants = variant_rows(ruleset)
    if not variants:
        lines.append(f"rule set {ruleset.name} has no variants")
    else:
        lines.append(f"variants of rule set {ruleset.name} (choose one with --variant NAME):")
        for v in variants:
            lines.append(f"  {v['name']}: {'; '.join(v['changes'])}")
    return "\n".join(lines) + "\n"


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
