"""JSON renderings of check reports and rule sets, for CI jobs and other programs.

One document per call, keys sorted, two-space indent, ending in a newline, so that the same run
gives the same bytes; a check report's timings (``seconds``) are its only values that vary.

The check report's shape is ``CheckReport.to_json()`` (``schema_version`` says which):
``ruleset`` (name, version, content_hash, amended, and the variant or mutant if one was
applied), ``bounds``, ``engines``, ``exit_code`` and ``properties[]``, one per result, each with
name, kind, verdict, expect, meets_expectation, engine, states, transitions, seconds, and, when
there is a trace, ``trace[]`` (rule, name, summary, kind, decider, changed) with
``trace_initial`` and, for a lasso, ``loop_start`` and ``loop_exits``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from turnproof.checks.results import CheckReport
from turnproof.model.rules import Rule, RuleSet, summarize_rules
from turnproof.reports.text import decider_text


def dumps(document: Any) -> str:
    """The canonical JSON text of ``document``."""
    return json.dumps(document, sort_keys=True, indent=2) + "\n"


def render_check_json(report: CheckReport) -> str:
    return dumps(report.to_json())


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
    doc = ruleset_json(ruleset, rules)
    if cited is not None:
        doc["cited"] = dict(cited)
    return dumps(doc)


def render_properties_json(ruleset: RuleSet) -> str:
    return dumps(
        {
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
        [
            {"name": r.name, "game": r.game, "version": r.version, "description": r.description}
            for r in rulesets.values()
        ]
    )


def render_cards_json(ruleset: RuleSet, library: Mapping[str, Any]) -> str:
    from turnproof.reports.text import card_rows

    return dumps(
        {
            "schema_version": 1,
            "command": "cards",
            "ruleset": ruleset.name,
            "cards": card_rows(ruleset, library),
        }
    )
