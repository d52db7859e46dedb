"""The rule-change report of ``turnproof diff``: one value (:class:`DiffReport`), built once
from a :class:`~turnproof.checks.results.RuleChange`, laid out as text, Markdown and JSON.

What a reader gets, in order: a header (both rule sets with version and content hash, the
amendments, the bounds, the engines, the command); the properties whose outcome changed, worse
first, with both verdicts; for each behaviour gained or lost, its shortest trace replayed on both
rule sets side by side, the first step where they diverge marked; the states and rules that
became reachable or unreachable; with ``--load-bearing``, the table of rules against the
properties that depend on them; and the conclusion with the exit code.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from turnproof.checks.results import (
    Behaviour,
    CheckReport,
    ReplayRow,
    RuleChange,
    Trace,
    VerdictChange,
)
from turnproof.reports.document import (
    Run,
    diff_lines,
    format_bounds,
    format_seconds,
    format_value,
    plural,
)

SCHEMA_VERSION = 1
_ORDER = ("worse", "unknown", "better", "only in base", "only in amended", "same")
DIVERGES = "◄ diverges"


@dataclass(frozen=True)
class Row:
    """A step of a behaviour, as both columns say it."""

    number: int
    rule: str
    name: str
    summary: str
    base: str
    amended: str
    diverges: bool


@dataclass(frozen=True)
class BehaviourView:
    behaviour: Behaviour
    title: str
    divergence: str
    rows: tuple[Row, ...]


@dataclass(frozen=True)
class DiffReport:
    change: RuleChange
    run: Run
    header: tuple[tuple[str, str], ...]
    changes: tuple[VerdictChange, ...]  # worse first
    behaviours: tuple[BehaviourView, ...]
    reach: tuple[str, ...]
    load_bearing: tuple[tuple[str, ...], tuple[tuple[str, ...], ...]] | None
    load_bearing_notes: tuple[str, ...]
    summary: tuple[str, ...]
    exit_code: int

    @property
    def changed(self) -> tuple[VerdictChange, ...]:
        return tuple(c for c in self.changes if c.change != "same")


def verdicts_text(verdicts: Sequence[tuple[str, str]]) -> str:
    return ", ".join(f"{v} ({e})" for e, v in verdicts) or "-"


def _header(rc: RuleChange, run: Run) -> tuple[tuple[str, str], ...]:
    def side(report: CheckReport) -> str:
        rs = report.ruleset
        return (
            f"{rs.get('name')}, version {rs.get('version')}, content hash {rs.get('content_hash')}"
        )

    lines = [("base", side(rc.base)), ("amended", side(rc.amended))]
    if rc.amendments:
        lines.append(("amendments", "; ".join(rc.amendments)))
    amended = rc.amended.ruleset.get("amended") or []
    if amended:
        lines.append(("amended rules", "; ".join(amended)))
    lines.append(("bounds (base)", format_bounds(rc.base.bounds)))
    if rc.amended.bounds != rc.base.bounds:
        lines.append(("bounds (amended)", format_bounds(rc.amended.bounds)))
    lines.append(("engine", " and ".join(rc.base.engines)))
    if run.version:
        lines.append(("turnproof version", run.version))
    if run.command_line:
        lines.append(("command", run.command_line))
    return tuple(lines)


def _row_text(r: ReplayRow) -> str:
    if r.other == "same":
        return "the same"
    if r.other == "not enabled":
        instead = ", ".join(r.instead[:6]) + (" ..." if len(r.instead) > 6 else "")
        text = f"not enabled here; enabled instead: {instead or 'nothing (a deadlock)'}"
    elif r.other == "different":
        parts = [
            f"{f}: {format_value(got)} instead of {format_value(want)}"
            for f, want, got in r.differences
        ]
        text = "leads to a different state: " + "; ".join(parts)
    else:
        return ""
    return text + (f" ({r.note})" if r.note else "")


def _behaviour(b: Behaviour) -> BehaviourView:
    rows = []
    for r in b.rows:
        own = "; ".join(
            line for k, (old, new) in r.step.changed.items() for line in diff_lines(k, old, new)
        )
        other = {"not enabled": "not enabled here", "different": "a different state"}.get(
            r.other, "the same" if r.other == "same" else ""
        )
        rule = f"{r.step.rule} (card: {r.step.card})" if r.step.card else r.step.rule
        base, amended = (own, other) if b.found_in == "base" else (other, own)
        rows.append(Row(r.number, rule, r.step.name, r.step.summary, base, amended, r.diverges))
    n = len(b.trace)
    other = "amended" if b.found_in == "base" else "base"
    title = f"{b.property}: {b.what} in the {b.found_in} rule set ({b.engine} engine, {plural(n, 'step')})"
    if b.diverges_at is None:
        divergence = f"the {other} rule set follows the whole trace"
    elif b.diverges_at == 0:
        divergence = f"the {other} rule set has no initial state like the trace's"
    else:
        r = b.rows[b.diverges_at - 1]
        divergence = (
            f"diverges at step {b.diverges_at}: {r.step.rule} {r.step.name} ({r.step.summary}): "
            f"in the {other} rule set it {_row_text(r)}".replace(
                " it not enabled", " it is not enabled"
            )
        )
    return BehaviourView(b, title, divergence, tuple(rows))


def _reach(rc: RuleChange) -> tuple[str, ...]:
    r = rc.reach
    if r is None:
        return ("the explicit engine did not explore both rule sets",)
    lines = [
        f"states: {r.base_states:,} in the base, {r.amended_states:,} in the amended rule set"
        + ("" if r.complete else " (an exploration stopped early: the counts are partial)"),
        f"{plural(r.only_amended, 'state')} became reachable, {plural(r.only_base, 'state')} "
        "became unreachable"
        + (
            f" (compared over the {len(r.compared_fields)} fields both share; left out: "
            f"{', '.join(r.ignored_fields)})"
            if r.ignored_fields
            else ""
        ),
    ]

    def rules(found: Sequence[tuple[str, str, int]]) -> str:
        return ", ".join(f"{c} {n} ({t:,})" for n, c, t in found) or "none"

    lines.append(f"rules that fire only in the amended rule set: {rules(r.rules_only_amended)}")
    lines.append(f"rules that no longer fire: {rules(r.rules_only_base)}")
    for what, side, traces in (
        ("became reachable", "amended", r.gained),
        ("became unreachable", "base", r.lost),
    ):
        for t in traces:
            lines.append(f"a state that {what} (in the {side} rule set): {_path_line(t)}")
    return tuple(lines)


#: The last steps of a path that the line to a state shows (the earlier ones are counted).
PATH_TAIL = 6


def _path_line(t: Trace) -> str:
    """``after 12 steps: … (8 earlier) → MTG 514.3a cleanup_repeats → …; the last step makes
    step: CLEANUP → CLEANUP, …`` (the initial state when the path is empty)."""
    if not t.steps:
        return "an initial state: " + ", ".join(
            f"{k}={format_value(v)}" for k, v in t.initial.items()
        )
    names = [f"{s.rule} {s.name}" for s in t.steps[-PATH_TAIL:]]
    if len(t.steps) > PATH_TAIL:
        names.insert(0, f"… ({len(t.steps) - PATH_TAIL} earlier)")
    last = t.steps[-1]
    changed = "; ".join(
        f"{f}: {format_value(old)} → {format_value(new)}" for f, (old, new) in last.changed.items()
    )
    return (
        f"after {plural(len(t.steps), 'step')}: {' → '.join(names)}; the last step "
        f"({last.summary}) changes {changed or 'nothing'}"
    )


def _load_bearing(
    rc: RuleChange,
) -> tuple[tuple[tuple[str, ...], tuple[tuple[str, ...], ...]] | None, tuple[str, ...]]:
    lb = rc.load_bearing
    if lb is None:
        return None, ()
    table = lb.table()
    used = [p for p in lb.properties if any(p in marks for _, _, marks in table)]
    headers = ("rule", "citation", *used)
    rows = tuple(
        (rule, cite, *(marks.get(p, "") for p in used)) for rule, cite, marks in table if marks
    )
    idle = [rule for rule, _, marks in table if not marks]
    notes = [
        f"at {format_bounds(lb.bounds)}: {len(lb.mutations)} mutations of "
        f"{plural(len(table), 'rule')} ({format_seconds(lb.seconds)}); R: the property's outcome "
        "flips when the rule is removed, A: when one of its clauses is altered, ?: it becomes "
        "UNKNOWN"
    ]
    if idle:
        notes.append("no property depends on: " + ", ".join(idle))
    never = [p for p in lb.properties if p not in used]
    if never:
        notes.append("properties no mutation flips: " + ", ".join(never))
    errors = [m for m in lb.mutations if m.error]
    for m in errors:
        notes.append(f"{m.rule} {m.how}: not checked: {m.error}")
    return (headers, rows), tuple(notes)


def build_diff_report(rc: RuleChange, run: Run | None = None) -> DiffReport:
    run = run or Run()
    changes = tuple(sorted(rc.changes, key=lambda c: _ORDER.index(c.change)))
    counts = {k: sum(1 for c in rc.changes if c.change == k) for k in _ORDER}
    summary = [
        f"{plural(len(rc.changes), 'property', 'properties')}: "
        + ", ".join(f"{counts[k]} {k}" for k in _ORDER if counts[k])
    ]
    if rc.worse:
        summary.append(f"worse: {', '.join(rc.worse)} (exit code 1)")
    else:
        summary.append(f"no property got worse (exit code {rc.exit_code})")
    lb, notes = _load_bearing(rc)
    return DiffReport(
        change=rc,
        run=run,
        header=_header(rc, run),
        changes=changes,
        behaviours=tuple(_behaviour(b) for b in rc.behaviours),
        reach=_reach(rc),
        load_bearing=lb,
        load_bearing_notes=notes,
        summary=tuple(summary),
        exit_code=rc.exit_code,
    )


# -- text ---------------------------------------------------------------------------------------


def _plain_table(headers: Sequence[str], rows: Sequence[Sequence[str]], indent: str = "") -> str:
    from turnproof.reports.text import TextTable

    return TextTable(tuple(headers), tuple(tuple(r) for r in rows)).plain(indent)


def _change_rows(doc: DiffReport) -> list[tuple[str, ...]]:
    return [
        (c.name, c.change, verdicts_text(c.base_verdicts), verdicts_text(c.amended_verdicts))
        for c in doc.changed
    ]


def render_diff_text(doc: DiffReport) -> str:
    out = [f"turnproof diff: {doc.change.base_label} → {doc.change.amended_label}"]
    out += [f"{label}: {text}" for label, text in doc.header]
    out.append("")
    if doc.changed:
        out.append("properties whose outcome changed:")
        out.append(_plain_table(("property", "change", "base", "amended"), _change_rows(doc), "  "))
    else:
        out.append("no property's outcome changed")
    for v in doc.behaviours:
        out += ["", v.title, f"  {v.divergence}"]
        rows = [
            (
                str(r.number),
                r.rule,
                r.name,
                r.base or "-",
                r.amended or "-",
                DIVERGES if r.diverges else "",
            )
            for r in v.rows
        ]
        out.append(_plain_table(("#", "rule", "instance", "base", "amended", ""), rows, "  "))
    out += ["", "reachable states and rules:"] + [f"  {line}" for line in doc.reach]
    if doc.load_bearing is not None:
        lb_headers, lb_rows = doc.load_bearing
        out += ["", "load-bearing rules (by mutation):"]
        out += [f"  {n}" for n in doc.load_bearing_notes]
        out.append(_plain_table(lb_headers, lb_rows, "  "))
    out += [""] + list(doc.summary)
    if doc.run.wall_seconds is not None:
        out.append(f"wall time: {format_seconds(doc.run.wall_seconds)}")
    return "\n".join(out) + "\n"


# -- Markdown -------------------------------------------------------------------------------------


def render_diff_markdown(doc: DiffReport) -> str:
    from turnproof.reports.markdown import code, table

    out = [f"# Rule change: {doc.change.base_label} → {doc.change.amended_label}", ""]
    out += [
        f"- **{label}**: {code(text) if label == 'command' else text}" for label, text in doc.header
    ]
    out += ["", "## Properties whose outcome changed", ""]
    if doc.changed:
        out.append(table(("property", "change", "base", "amended"), _change_rows(doc)))
    else:
        out.append("No property's outcome changed.")
    if doc.behaviours:
        out += ["", "## Behaviours gained or lost"]
    for v in doc.behaviours:
        out += ["", f"### {v.title}", "", v.divergence, ""]
        rows = [
            (
                f"**{r.number}**" if r.diverges else str(r.number),
                f"{r.rule} {code(r.name)}",
                r.base or "-",
                r.amended or "-",
                DIVERGES if r.diverges else "",
            )
            for r in v.rows
        ]
        out.append(table(("#", "rule", "base", "amended", ""), rows))
    out += ["", "## Reachable states and rules", ""] + [f"- {line}" for line in doc.reach]
    if doc.load_bearing is not None:
        lb_headers, lb_rows = doc.load_bearing
        out += ["", "## Load-bearing rules", ""] + [f"- {n}" for n in doc.load_bearing_notes]
        out += ["", table(lb_headers, lb_rows)]
    out += ["", "## Conclusion", ""] + [f"- {line}" for line in doc.summary]
    if doc.run.wall_seconds is not None:
        out.append(f"- wall time: {format_seconds(doc.run.wall_seconds)}")
    return "\n".join(out) + "\n"


# -- JSON -----------------------------------------------------------------------------------------


def diff_json(doc: DiffReport) -> dict[str, Any]:
    from turnproof.reports.json_report import result_json, run_json, trace_json

    rc = doc.change

    def side(report: CheckReport) -> dict[str, Any]:
        return {
            "ruleset": report.ruleset,
            "bounds": report.bounds,
            "properties": [result_json(r) for r in report.results],
            "coverage": dict(report.coverage),
            "exit_code": report.exit_code,
        }

    out: dict[str, Any] = {
        "schema_version": SCHEMA_VERSION,
        "command": "diff",
        "base": side(rc.base),
        "amended": side(rc.amended),
        "amendments": list(rc.amendments),
        "engines": list(rc.base.engines),
        "changes": [
            {
                "name": c.name,
                "change": c.change,
                "expect": c.expect,
                "base": {"outcome": c.base, "verdicts": dict(c.base_verdicts)},
                "amended": {"outcome": c.amended, "verdicts": dict(c.amended_verdicts)},
            }
            for c in doc.changes
        ],
        "behaviours": [
            {
                "property": v.behaviour.property,
                "engine": v.behaviour.engine,
                "what": v.behaviour.what,
                "found_in": v.behaviour.found_in,
                "diverges_at": v.behaviour.diverges_at,
                "divergence": v.divergence,
                "trace": trace_json(v.behaviour.trace),
                "replay": [
                    {
                        "step": r.number,
                        "rule": r.rule,
                        "name": r.name,
                        "base": r.base,
                        "amended": r.amended,
                        "diverges": r.diverges,
                    }
                    for r in v.rows
                ],
            }
            for v in doc.behaviours
        ],
        "exit_code": doc.exit_code,
    }
    if rc.reach is not None:
        r = rc.reach
        out["reachability"] = {
            "base_states": r.base_states,
            "amended_states": r.amended_states,
            "became_reachable": r.only_amended,
            "became_unreachable": r.only_base,
            "compared_fields": list(r.compared_fields),
            "ignored_fields": list(r.ignored_fields),
            "complete": r.complete,
            "rules_only_base": [
                {"rule": n, "citation": c, "transitions": t} for n, c, t in r.rules_only_base
            ],
            "rules_only_amended": [
                {"rule": n, "citation": c, "transitions": t} for n, c, t in r.rules_only_amended
            ],
            "reachable_examples": [trace_json(t) for t in r.gained],
            "unreachable_examples": [trace_json(t) for t in r.lost],
        }
    if rc.load_bearing is not None:
        lb = rc.load_bearing
        out["load_bearing"] = {
            "bounds": lb.bounds,
            "properties": list(lb.properties),
            "seconds": round(lb.seconds, 3),
            "mutations": [
                {
                    "rule": m.rule,
                    "citation": m.citation,
                    "how": m.how,
                    "flipped": list(m.flipped),
                    "unknown": list(m.unknown),
                }
                | ({"error": m.error} if m.error else {})
                for m in lb.mutations
            ],
        }
    if doc.run.version:
        out["run"] = run_json(doc.run)
    return out


def render_diff_json(doc: DiffReport) -> str:
    return json.dumps(diff_json(doc), sort_keys=True, indent=2) + "\n"


def diff_files(doc: DiffReport) -> dict[str, str]:
    """What ``turnproof diff --out DIR`` writes."""
    return {
        "diff.txt": render_diff_text(doc),
        "diff.md": render_diff_markdown(doc),
        "diff.json": render_diff_json(doc),
    }
