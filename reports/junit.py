"""The proof report as JUnit XML, for CI systems that show test results (GitLab, Jenkins, the
GitHub actions that read JUnit).

One ``<testsuite>`` for the run, one ``<testcase>`` per property (``classname`` the rule set or
scenario, ``name`` the property). Whether a test case passed is the property's
:class:`~turnproof.checks.results.Outcome`, the same answer the exit code is made of
(``CheckReport.outcomes``), never a second judgement: a failed property is a ``<failure>``, an
unknown one an ``<error>`` (it is no pass, and JUnit's ``skipped`` would read as one). Each
case's ``<system-out>`` holds the property's results as the text report tells them, traces
included. Written with the standard library's ``xml.etree`` (attribute order as inserted, so
the output is deterministic but for ``time``).
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

from turnproof.checks.results import Outcome
from turnproof.reports.document import Entry, ProofReport, format_bounds
from turnproof.reports.text import render_result


def _seconds(x: float) -> str:
    return f"{x:.3f}"


def _message(entries: list[Entry]) -> str:
    """The verdicts of a property, one per engine: ``VIOLATED [explicit]: …; …``."""
    return "; ".join(f"[{e.engine}] {e.verdict_line}, {e.met}" for e in entries)


def render_junit(doc: ProofReport) -> str:
    h = doc.header
    scenario = doc.check.ruleset.get("scenario") or {}
    suite_name = scenario.get("name") or h.ruleset
    by_name: dict[str, list[Entry]] = {}
    for e in doc.entries:
        by_name.setdefault(e.name, []).append(e)
    failures = sum(1 for o in doc.outcomes.values() if o is Outcome.FAILED)
    errors = sum(1 for o in doc.outcomes.values() if o is Outcome.UNKNOWN)
    total = _seconds(doc.run.wall_seconds or sum(e.result.seconds for e in doc.entries))

    root = ET.Element(
        "testsuites",
        name="turnproof",
        tests=str(len(by_name)),
        failures=str(failures),
        errors=str(errors),
        time=total,
    )
    suite = ET.SubElement(
        root,
        "testsuite",
        name=f"turnproof check {suite_name}",
        tests=str(len(by_name)),
        failures=str(failures),
        errors=str(errors),
        skipped="0",
        time=total,
    )
    props = ET.SubElement(suite, "properties")
    for name, value in (
        ("ruleset", h.ruleset),
        ("version", h.version),
        ("content_hash", h.content_hash),
        ("bounds", format_bounds(h.bounds)),
        ("engines", " ".join(h.engines)),
        ("exit_code", str(doc.exit_code)),
        *((label.replace(" ", "_"), text) for label, text in h.lines if label != "bounds"),
    ):
        ET.SubElement(props, "property", name=name, value=value)
    for name, entries in by_name.items():
        case = ET.SubElement(
            suite,
            "testcase",
            classname=suite_name,
            name=name,
            time=_seconds(sum(e.result.seconds for e in entries)),
        )
        outcome = doc.outcomes[name]
        if outcome is Outcome.FAILED:
            ET.SubElement(case, "failure", message=_message(entries), type="not as expected")
        elif outcome is Outcome.UNKNOWN:
            ET.SubElement(case, "error", message=_message(entries), type="UNKNOWN")
        out = ET.SubElement(case, "system-out")
        out.text = "\n\n".join(render_result(e) for e in entries) + "\n"
    ET.indent(root)
    return ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n"
