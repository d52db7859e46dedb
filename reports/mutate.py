"""The generated-mutant report of ``turnproof mutate``: one value (:class:`MutateReport`), built
once from a :class:`~turnproof.checks.mutate.MutationReport`, laid out as text, Markdown and JSON.

What a reader gets, in order: the header (rule set, version, content hash, bounds, the base's
states and edges, the command); the figures (mutants per operator and status, the kill rate:
killed / (killed + survived), equivalents excluded); the kill matrix (each killed mutant against
the properties that kill it); the holes (mutants that change behaviour and survive), each with
the shortest trace of the changed behaviour, replayed on the other rule set; the survivors that
are explained (with the reason, read from a data file); the equivalent and invalid mutants.
Nothing here depends on time except the ``seconds`` fields.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from turnproof.checks.results import (
    DOMAIN_CHECK,
    DORMANT,
    OPERATORS,
    MutantResult,
    MutationReport,
)
from turnproof.reports.document import Run, format_bounds, format_seconds, plural, story_of
from turnproof.reports.json_report import trace_json
from turnproof.reports.markdown import code, table
from turnproof.reports.text import story_lines

SCHEMA_VERSION = 1
STATUSES = ("killed", "survived", "equivalent", "invalid")


@dataclass(frozen=True)
class MutateReport:
    mutation: MutationReport
    run: Run
    header: tuple[tuple[str, str], ...]
    operators: tuple[tuple[str, dict[str, int]], ...]  # operator -> status -> count
    columns: tuple[str, ...]  # the kill matrix's properties (those that kill something)
    summary: tuple[str, ...]

    @property
    def kill_rate_text(self) -> str:
        rate = self.mutation.kill_rate
        return "n/a" if rate is None else f"{100 * rate:.1f}%"


def _where(r: MutantResult) -> str:
    m = r.mutant
    return f"{m.module}:{m.line}"


def build_mutate_report(mr: MutationReport, run: Run) -> MutateReport:
    rs = mr.ruleset
    header = (
        ("rule set", f"{rs['name']}, version {rs['version']}"),
        ("content hash", rs["content_hash"]),
        ("bounds", format_bounds(mr.bounds)),
        ("base graph", f"{mr.base_states:,} states, {mr.base_transitions:,} edges"),
        ("properties", str(len(mr.properties))),
        ("command", run.command_line or "-"),
    )
    operators = tuple(
        (op, {st: mr.count(st, op) for st in STATUSES})
        for op in OPERATORS
        if any(r.mutant.operator == op for r in mr.results)
    )
    killing = {p for r in mr.results for p in r.killed_by}
    columns = tuple(p for p in (*mr.properties, DOMAIN_CHECK) if p in killing)
    k, s = mr.count("killed"), mr.count("survived")
    explained = s - len(mr.holes)
    rate = mr.kill_rate
    summary: tuple[str, ...] = (
        f"{plural(len(mr.results), 'mutant')}: {k} killed, {s} survived ({explained} explained), "
        f"{mr.count('equivalent')} equivalent, {mr.count('invalid')} invalid",
        "kill rate: " + ("n/a" if rate is None else f"{100 * rate:.1f}% ({k} / {k + s})"),
        f"{plural(len(mr.holes), 'hole')} in the properties",
    )
    dormant = sum(1 for r in mr.results if r.status == "equivalent" and r.reason == DORMANT)
    if dormant:
        summary += (
            f"{dormant} of the equivalents are in rules that never fire within these bounds: "
            "equivalent there only (larger bounds may tell them apart)",
        )
    return MutateReport(mr, run, header, operators, columns, summary)


# -- text ---------------------------------------------------------------------------------------


def _changed_lines(r: MutantResult) -> list[str]:
    c = r.changed
    if c is None:
        return ["  (no trace: the graphs differ only where the search stopped)"]
    other = "base" if c.side == "mutant" else "mutant"
    lines = []
    if c.rule:
        lines.append(f"  {c.rule} is enabled on the {c.side} only, after:")
    else:
        lines.append(
            f"  a state reachable on the {c.side} only, in {plural(len(c.trace), 'step')}:"
        )
    lines += ["  " + line for line in story_lines(story_of(c.trace))]
    if c.diverges_at is not None and c.diverges_at > 0:
        row = c.rows[c.diverges_at - 1]
        lines.append(f"  replayed on the {other}: step {c.diverges_at} is {row.other}")
    elif c.diverges_at == 0:
        lines.append(f"  replayed on the {other}: no initial state matches")
    else:
        lines.append(f"  replayed on the {other}: every step is the same")
    return lines


def _mutant_line(r: MutantResult) -> str:
    m = r.mutant
    card = f" (card: {m.card})" if m.card else ""
    return f"{m.id}  {m.citation}{card}  {m.what}  [{_where(r)}]"


def render_text(doc: MutateReport) -> str:
    mr = doc.mutation
    lines = [f"turnproof mutate: {mr.ruleset['name']}", ""]
    lines += [f"{label}: {text}" for label, text in doc.header]
    lines += ["", "mutants by operator:"]
    width = max((len(op) for op, _ in doc.operators), default=8)
    lines.append(f"  {'operator':<{width}}  " + "  ".join(f"{s:>10}" for s in STATUSES))
    for op, counts in doc.operators:
        lines.append(f"  {op:<{width}}  " + "  ".join(f"{counts[s]:>10}" for s in STATUSES))
    lines += ["", "kill matrix (killed mutant: the properties that kill it):"]
    for r in mr.results:
        if r.status == "killed":
            lines.append(f"  {r.mutant.id}: {', '.join(r.killed_by)}")
    holes = mr.holes
    lines += ["", f"holes ({len(holes)}): mutants that change behaviour and survive"]
    for r in holes:
        lines += ["", "- " + _mutant_line(r), *_changed_lines(r)]
    explained = [r for r in mr.results if r.status == "survived" and r.explained]
    if explained:
        lines += ["", f"explained survivors ({len(explained)}):"]
        for r in explained:
            lines += ["- " + _mutant_line(r), f"  why: {r.explained}"]
    for status in ("equivalent", "invalid"):
        found = [r for r in mr.results if r.status == status]
        lines += ["", f"{status} ({len(found)}):"]
        for r in found:
            why = f"  ({r.reason})" if r.reason else ""
            lines.append(f"  {_mutant_line(r)}{why}")
    lines += ["", *doc.summary]
    return "\n".join(lines).rstrip() + "\n"


# -- Markdown -----------------------------------------------------------------------------------


def render_markdown(doc: MutateReport) -> str:
    mr = doc.mutation
    out = [
        f"# turnproof mutate: {mr.ruleset['name']}",
        "",
        f"**kill rate {doc.kill_rate_text}**",
        "",
    ]
    out += [table(("", ""), [(k, code(v) if k == "command" else v) for k, v in doc.header]), ""]
    out += ["## Mutants by operator", ""]
    rows = [(op, *(str(counts[s]) for s in STATUSES)) for op, counts in doc.operators]
    out += [table(("operator", *STATUSES), rows, right=range(1, len(STATUSES) + 1)), ""]
    out += ["## Kill matrix", ""]
    killed = [r for r in mr.results if r.status == "killed"]
    matrix = [
        (code(r.mutant.id), *("x" if p in r.killed_by else "" for p in doc.columns)) for r in killed
    ]
    out.append(table(("mutant", *doc.columns), matrix) if killed else "(no mutant killed)")
    holes = mr.holes
    out += ["", f"## Holes ({len(holes)})", ""]
    for r in holes:
        m = r.mutant
        card = f" (card: {m.card})" if m.card else ""
        out += [f"### {code(m.id)}", "", f"{m.citation}{card}: {code(m.what)} ({code(_where(r))})"]
        out += ["", "```text", *(line[2:] for line in _changed_lines(r)), "```", ""]
    explained = [r for r in mr.results if r.status == "survived" and r.explained]
    if explained:
        out += [f"## Explained survivors ({len(explained)})", ""]
        rows = [(code(r.mutant.id), code(r.mutant.what), r.explained) for r in explained]
        out += [table(("mutant", "change", "why"), rows), ""]
    for status in ("equivalent", "invalid"):
        found = [r for r in mr.results if r.status == status]
        out += [f"## {status.capitalize()} ({len(found)})", ""]
        out += [
            f"- {code(r.mutant.id)}: {code(r.mutant.what)}" + (f" ({r.reason})" if r.reason else "")
            for r in found
        ]
        out.append("")
    out += [f"- {line}" for line in doc.summary]
    return "\n".join(out).rstrip() + "\n"


# -- JSON ---------------------------------------------------------------------------------------


def _result_json(r: MutantResult) -> dict[str, Any]:
    m = r.mutant
    out: dict[str, Any] = {
        "id": m.id,
        "rule": m.rule,
        "citation": m.citation,
        "card": m.card,
        "operator": m.operator,
        "function": m.target,
        "where": _where(r),
        "change": m.what,
        "status": r.status,
        "killed_by": list(r.killed_by),
        "reason": r.reason,
        "explained": r.explained,
        "states": r.states,
        "transitions": r.transitions,
        "seconds": r.seconds,
    }
    c = r.changed
    out["changed"] = (
        None
        if c is None
        else {
            "side": c.side,
            "rule": c.rule,
            "trace": trace_json(c.trace),
            "diverges_at": c.diverges_at,
        }
    )
    return out


def render_json(doc: MutateReport) -> str:
    mr = doc.mutation
    rate = mr.kill_rate
    document = {
        "schema_version": SCHEMA_VERSION,
        "command": "mutate",
        "ruleset": mr.ruleset,
        "bounds": mr.bounds,
        "properties": list(mr.properties),
        "reference": mr.reference,
        "base": {"states": mr.base_states, "transitions": mr.base_transitions},
        "counts": {
            "total": len(mr.results),
            **{s: mr.count(s) for s in STATUSES},
            "holes": len(mr.holes),
            "by_operator": {op: counts for op, counts in doc.operators},
        },
        "kill_rate": rate,
        "mutants": [_result_json(r) for r in mr.results],
        "seconds": mr.seconds,
    }
    return json.dumps(document, sort_keys=True, indent=2) + "\n"


def mutate_files(doc: MutateReport) -> dict[str, str]:
    return {
        "mutate.txt": render_text(doc),
        "mutate.md": render_markdown(doc),
        "mutate.json": render_json(doc),
    }


__all__ = ["MutateReport", "build_mutate_report", "format_seconds", "mutate_files"]
