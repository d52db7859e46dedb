"""JSON renderings of check reports and rule sets, for CI jobs and other programs.

One document per call, keys sorted, two-space indent, ending in a newline, so that the same run
gives the same bytes; a check report's timings (every ``seconds``) and its peak memories
(``run.peak_memory_kib``, ``run.peak_worker_memory_kib``) are its only values that vary.

The check report's shape (``schema_version`` says which): ``command`` (``"check"``),
``ruleset`` (name, version, content_hash, amended, and the variant or mutant if one was
applied), ``bounds``, ``engines``, ``exit_code``, ``coverage``, ``explicit_searches`` (only
when ``--explore-workers`` asked for more than one process: how each exploration was shared
out), ``run`` (turnproof's version, the arguments, the limits and the wall time, when the
command line ran it) and
``properties[]``, one per result, each with name, kind, verdict, expect, meets_expectation,
engine, states and transitions (the explicit engine's counts; ``null`` for an engine that does
not count them), depth (explicit engine), seconds, and, when there is a trace,
``trace[]`` (rule, name, summary, kind, decider, changed) with ``trace_initial`` and, for a
lasso, ``loop_start`` and ``loop_exits``.

The shape is published as a JSON Schema (draft 2020-12), ``reports/schema/results.schema.json``
(:data:`SCHEMA_FILE`; the tests validate every report against it).

These functions are the only place the result types become JSON (the result types have no
``to_json`` of their own).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from turnproof.checks.results import Finding, LoopExit, PropertyResult, Trace, TraceStep
from turnproof.model.rules import Rule, RuleSet, summarize_rules
from turnproof.reports.document import ProofReport, Run
from turnproof.reports.text import decider_text

#: The JSON Schema of a check report, shipped with the package (``results.schema.json``).
SCHEMA_FILE = Path(__file__).with_name("schema") / "results.schema.json"

SCHEMA_VERSION = 2  # 2: states and transitions null when not counted; listings say command


def dumps(document: Any) -> str:
    """The canonical JSON text of ``document``."""
    return json.dumps(document, sort_keys=True, indent=2) + "\n"


def step_json(step: TraceStep) -> dict[str, Any]:
    out: dict[str, Any] = {
        "rule": step.rule,
        "name": step.name,
        "summary": step.summary,
        "kind": step.kind,
        "decider": step.decider,
        "changed": step.changed,
    }
    if step.card:
        out["card"] = step.card
    if step.decided_by is not None and step.decided_by != step.decider:
        out["decided_by"] = step.decided_by
    return out


def exits_json(exits: tuple[LoopExit, ...] | None) -> list[dict[str, Any]] | None:
    if exits is None:
        return None
    return [
        {"at": e.at, "decider": e.decider, "rule": e.rule, "name": e.name}
        | ({"decided_by": e.decided_by} if e.decided_by not in (None, e.decider) else {})
        for e in exits
    ]


def trace_json(trace: Trace) -> dict[str, Any]:
    out: dict[str, Any] = {
        "initial": trace.initial,
        "steps": [step_json(s) for s in trace.steps],
    }
    if trace.bounds:
        out["bounds"] = dict(trace.bounds)
    if trace.loop_start is not None:
        out["loop_start"] = trace.loop_start
        out["loop_exits"] = exits_json(trace.exits)
        out["loop_forced"] = trace.forced
    return out


def finding_json(finding: Finding) -> dict[str, Any]:
    out: dict[str, Any] = {
        "check": finding.check,
        "status": finding.status,
        "message": finding.message,
        "rules": list(finding.rules),
    }
    if finding.state is not None:
        out["state"] = finding.state
    if finding.trace is not None:
        out["trace"] = trace_json(finding.trace)
    return out


def result_json(r: PropertyResult) -> dict[str, Any]:
    out: dict[str, Any] = {
        "name": r.name,
        "kind": r.kind,
        "description": r.description,
        "verdict": r.verdict.value,
        "expect": r.expect,
        "meets_expectation": r.meets_expectation,
        "engine": r.engine,
        # Only the explicit engine counts states; another engine's 0 means "not counted".
        "states": r.states if r.engine == "explicit" else None,
        "transitions": r.transitions if r.engine == "explicit" else None,
        "seconds": round(r.seconds, 3),
        "citations": list(r.citations),
    }
    if r.depth is not None:
        out["depth"] = r.depth
    if r.reason:
        out["reason"] = r.reason
    if r.vacuous:
        out["vacuous"] = True
    if r.vacuity_undecided:
        out["vacuity_undecided"] = True
    if r.bounds_reached:
        out["bounds_reached"] = dict(r.bounds_reached)
    if r.holds_for:
        out["holds_for"] = r.holds_for
    if r.for_all:
        out["for_all"] = dict(r.for_all)
    if r.pinned:
        out["pinned"] = r.pinned
    if r.certificate is not None:
        out["certificate"] = r.certificate
    if r.trace is not None:
        out["trace"] = [step_json(s) for s in r.trace.steps]
        out["trace_initial"] = r.trace.initial
        if r.trace.bounds:
            out["trace_bounds"] = dict(r.trace.bounds)
        if r.trace.loop_start is not None:
            out["loop_start"] = r.trace.loop_start
            out["loop_exits"] = exits_json(r.trace.exits)
            out["loop_forced"] = r.trace.forced
    return out


def run_json(run: Run) -> dict[str, Any]:
    out: dict[str, Any] = {
        "turnproof_version": run.version,
        "argv": list(run.argv),
        "limits": {"max_states": run.max_states, "max_seconds": run.max_seconds},
    }
    if run.wall_seconds is not None:  # measured: the keys are there, null when not known
        out["seconds"] = round(run.wall_seconds, 3)
        out["peak_memory_kib"] = run.peak_memory_kib
        out["peak_worker_memory_kib"] = run.peak_worker_memory_kib
    return out


def check_json(doc: ProofReport) -> dict[str, Any]:
    report = doc.check
    out: dict[str, Any] = {
        "schema_version": SCHEMA_VERSION,
        "command": "check",
        "ruleset": report.ruleset,
        "bounds": report.bounds,
        "engines": report.engines,
        "properties": [result_json(e.result) for e in doc.entries],
        "coverage": dict(doc.coverage),
        "exit_code": doc.exit_code,
    }
    if any(s.workers > 1 for s in report.searches):
        out["explicit_searches"] = [
            {
                "states": s.states,
                "workers": s.workers,
                "worker_processes": s.worker_processes,
                "sequential_because": s.sequential_because,
                "workers_lost": list(s.lost),
            }
            for s in report.searches
        ]
    if doc.run.version:
        out["run"] = run_json(doc.run)
    return out


def render_check_json(doc: ProofReport) -> str:
    return dumps(check_json(doc))


def _rule_json(rule: Rule, row: Mapping[str, str]) -> dict[str, Any]:
    out: dict[str, Any] = dict(row)
    out["kind"] = rule.kind.value
    out["automatic"] = rule.is_automatic
    out["decided_by"] = None if rule.is_automatic else decider_text(rule)
    return out


def ruleset_json(ruleset: RuleSet, rules: list[Rule] | None = None) -> dict[str, Any]:
    """A rule set's identity, aliases and rules (or only ``rules``)."""
    shown = list(ruleset.rules if rules is None else rules)
    return {
        "name": ruleset.name,
        "game": ruleset.game,
        "version": ruleset.version,
        "description": ruleset.description,
        "content_hash": ruleset.content_hash(),
        "amended": list(ruleset.amended),
        "aliases": [
            {"old": a.old, "new": a.new, "edition": a.edition, "note": a.note}
            for a in ruleset.aliases
        ],
        "rules": [_rule_json(r, row) for r, row in zip(shown, summarize_rules(shown))],
    }


def render_rules_json(
    ruleset: RuleSet, rules: list[Rule] | None = None, cited: Mapping[str, str] | None = None
) -> str:
    doc = {"schema_version": SCHEMA_VERSION, "command": "rules", **ruleset_json(ruleset, rules)}
    if cited is not None:
        doc["cited"] = dict(cited)
    return dumps(doc)


def render_properties_json(ruleset: RuleSet) -> str:
    return dumps(
        {
            "schema_version": SCHEMA_VERSION,
            "command": "properties",
            "ruleset": {"name": ruleset.name, "version": ruleset.version},
            "properties": [
                {
                    "name": p.name,
                    "kind": p.kind,
                    "expect": p.expect.value,
                    "description": p.description,
                    "citations": list(p.citations),
                    "mutants": [m.name for m in ruleset.mutants if p.name in m.breaks],
                    "for_all": list(p.for_all),
                }
                for p in ruleset.properties
            ],
        }
    )


def render_rulesets_json(rulesets: Mapping[str, RuleSet]) -> str:
    return dumps(
        {
            "schema_version": SCHEMA_VERSION,
            "command": "rulesets",
            "rulesets": [
                {"name": r.name, "game": r.game, "version": r.version, "description": r.description}
                for r in rulesets.values()
            ],
        }
    )


def render_bounds_json(ruleset: RuleSet) -> str:
    from turnproof.reports.text import bound_rows, variant_rows

    return dumps(
        {
            "schema_version": SCHEMA_VERSION,
            "command": "bounds",
            "ruleset": {"name": ruleset.name, "version": ruleset.version},
            "bounds": bound_rows(ruleset),
            "variants": variant_rows(ruleset),
        }
    )


def render_cards_json(ruleset: RuleSet, library: Mapping[str, Any]) -> str:
    from turnproof.reports.text import card_rows

    return dumps(
        {
            "schema_version": SCHEMA_VERSION,
            "command": "cards",
            "ruleset": ruleset.name,
            "cards": card_rows(ruleset, library),
        }
    )
