"""A conformance suite (:class:`~turnproof.checks.conformance.Suite`) as files: one plain JSON
fixture and one ITF trace per fixture, and an index of the suite. The plain JSON follows
``reports/schema/conformance.schema.json``; the ITF follows the Informal Trace Format, with the
fixture's observable fields as its variables."""

from __future__ import annotations

from typing import Any

from turnproof.checks.results import Fixture, Suite
from turnproof.reports.itf import SPEC, itf_value
from turnproof.reports.json_report import dumps

SCHEMA_VERSION = 1


def fixture_json(suite: Suite, f: Fixture) -> dict[str, Any]:
    """The plain JSON of one fixture: what an engine's test replays, without turnproof."""
    return {
        "schema_version": SCHEMA_VERSION,
        "kind": "turnproof-conformance-fixture",
        "name": f.name,
        "ruleset": suite.ruleset,
        "bounds": suite.bounds,
        "citations": sorted({r.split(" ", 2)[0] + " " + r.split(" ", 2)[1] for r in f.rules}),
        "rules": list(f.rules),
        "pairs": [list(p) for p in f.pairs],
        "targets": list(f.targets),
        "observable": list(suite.observable) or sorted(f.start),
        "start": f.start,
        "start_legal": list(f.start_legal),
        "steps": [
            {
                "action": s.action,
                "rule": s.rule,
                "summary": s.summary,
                "decider": s.decider,
                "decided_by": s.decided_by,
                "state": s.state,
                "legal": list(s.legal),
            }
            for s in f.steps
        ],
    }


def fixture_itf(suite: Suite, f: Fixture) -> dict[str, Any]:
    """The ITF trace of one fixture: the observable fields of its start, then of each step."""
    names = list(suite.observable) or sorted(f.start)
    first = {k: f.start[k] for k in names if k in f.start}
    states = [{"#meta": {"index": 0}, **{k: itf_value(v) for k, v in first.items()}}]
    for i, s in enumerate(f.steps, start=1):
        meta: dict[str, Any] = {"index": i, "action": s.action, "rule": s.rule}
        if s.decider is not None:
            meta["decider"] = s.decider
            meta["decided_by"] = s.decided_by
        states.append({"#meta": meta, **{k: itf_value(v) for k, v in s.state.items()}})
    meta = {
        "format": "ITF",
        "format-description": SPEC,
        "source": "turnproof conformance",
        "description": f"conformance fixture {f.name}: {', '.join(f.targets)}",
        "ruleset": suite.ruleset,
        "bounds": suite.bounds,
        "rules": list(f.rules),
    }
    return {"#meta": meta, "vars": names, "states": states}


def suite_json(suite: Suite) -> dict[str, Any]:
    """The index of the suite: what it covers, and what nothing within the bounds reaches."""
    return {
        "schema_version": SCHEMA_VERSION,
        "command": "conformance",
        "kind": "turnproof-conformance-suite",
        "ruleset": suite.ruleset,
        "bounds": suite.bounds,
        "states": suite.states,
        "observable": list(suite.observable),
        "fixtures": [
            {"name": f.name, "steps": len(f.steps), "targets": list(f.targets)}
            for f in suite.fixtures
        ],
        "rules": list(suite.rules),
        "pairs": [list(p) for p in suite.pairs],
        "never_fired": list(suite.never_fired),
    }


def suite_files(suite: Suite) -> dict[str, str]:
    """Every file of the suite, by its path inside the output folder."""
    files = {"suite.json": dumps(suite_json(suite))}
    for f in suite.fixtures:
        files[f"fixtures/{f.name}.json"] = dumps(fixture_json(suite, f))
        files[f"fixtures/{f.name}.itf.json"] = dumps(fixture_itf(suite, f))
    return files


def suite_text(suite: Suite) -> str:
    """The suite as the terminal shows it."""
    r = suite.ruleset
    lines = [
        f"conformance suite of {r['name']} {r['version']} (content hash {r['content_hash']})",
        "bounds: " + ", ".join(f"{k}={v}" for k, v in suite.bounds.items()),
        f"{len(suite.fixtures)} fixtures, {sum(len(f.steps) for f in suite.fixtures):,} steps, "
        f"from {suite.states:,} states: every one of the {len(suite.rules)} rules that fire, and "
        f"every one of the {len(suite.pairs)} pairs of rules enabled in one state",
    ]
    if suite.never_fired:
        lines.append(
            "never fired within these bounds (no fixture covers them): "
            + ", ".join(suite.never_fired)
        )
    for f in suite.fixtures:
        lines.append(f"  {f.name}: {len(f.steps):3d} steps  {'; '.join(f.targets)}")
    return "\n".join(lines)
