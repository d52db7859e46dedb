"""The renderers in ``turnproof.reports``, on reports built by hand (no engine runs here).

Each case stands for a kind of result a judge will read: a proof with its certificate, an
unknown with its reason, a mandatory loop, a loop that only the rules could leave, a step whose
rule takes parameters and changes nothing, an engine disagreement. The rendered text is pinned
by ``tests/golden/report_cases.txt``; ``pytest --regen-golden`` rewrites it.
"""

from __future__ import annotations

import ast
import doctest
import io
import json
from collections.abc import Callable
from pathlib import Path

from rich.console import Console
from turnproof.checks.results import (
    CheckReport,
    LoopExit,
    PropertyResult,
    Trace,
    TraceStep,
    Verdict,
)
from turnproof.reports import document, json_report, text
from turnproof.reports.document import ProofReport, Run, build_report

ROOT = Path(__file__).resolve().parent.parent
BOUNDS = {"turns": 3, "stack": 4}


def step(rule: str, name: str, summary: str, decider: int | None, **changed: list) -> TraceStep:
    kind = "choice" if decider is not None else "turn-based action"
    return TraceStep(rule, name, summary, kind, decider, dict(changed))


def result(name: str, verdict: Verdict, expect: str = "holds", **kw: object) -> PropertyResult:
    base: dict = {
        "kind": "always",
        "description": f"the claim of {name}",
        "engine": "explicit",
        "states": 1234,
        "transitions": 5678,
        "seconds": 0.25,
        "bounds": dict(BOUNDS),
    }
    base.update(kw)
    return PropertyResult(name=name, verdict=verdict, expect=expect, **base)  # type: ignore[arg-type]


INITIAL = {"step": "END", "stack": [], "active": 0, "passed": [False, False], "top": {"ctrl": 0}}

CLEANUP = step("MTG 514.3a", "cleanup_repeats", "cleanup repeats", None, step=["END", "CLEANUP"])
PASS = step(
    "MTG 117.4",
    "resolve(slot=1)",
    "all players passed: the top object resolves",
    1,
    stack=[[1], []],
)
NOTHING = step("MTG 117.3d", "pass_priority(p=0)", "the player passes priority", 0)


def sample_report() -> CheckReport:
    results = [
        result(
            "cleanup-terminates",
            Verdict.PROVED,
            engine="symbolic",
            holds_for="every number of turns and any stack size",
            certificate={
                "ranking": "12 - cleanup_round",
                "method": "CHC (Spacer)",
                "invariant": "And(turn <= 3,\n    cleanup_round <= 12)",
            },
            citations=("MTG 514.3a",),
        ),
        result(
            "no-deadlock",
            Verdict.EXHAUSTIVE,
            bounds_reached={"stack capacity": 12},
        ),
        result(
            "stack-empties",
            Verdict.UNKNOWN,
            reason="exploration incomplete: state limit of 1000 states reached after 1000 states",
        ),
        result(
            "mandatory-loop",
            Verdict.VIOLATED,
            kind="terminates",
            trace=Trace(INITIAL, (CLEANUP, CLEANUP), loop_start=1, forced=True),
        ),
        result(
            "forced-by-rules",
            Verdict.VIOLATED,
            expect="violated",
            kind="terminates",
            trace=Trace(
                INITIAL,
                (NOTHING,),
                loop_start=0,
                exits=(LoopExit(0, None, "MTG 514.3", "end_turn"),),
            ),
        ),
        result(
            "mandatory-loop",
            Verdict.VIOLATED,
            kind="terminates",
            engine="symbolic",
            states=0,
            trace=Trace(INITIAL, (CLEANUP, CLEANUP), loop_start=1, exits=None),
        ),
        result(
            "stack-can-fill",
            Verdict.WITNESSED,
            expect="witnessed",
            kind="reachable",
            trace=Trace(INITIAL, (PASS,)),
        ),
        result(
            "stack-empties",
            Verdict.VIOLATED,
            kind="engines-agree",
            engine="both",
            states=0,
            seconds=0.0,
            reason="engines disagree: explicit says EXHAUSTIVE, symbolic says VIOLATED",
        ),
        result("never-reached", Verdict.EXHAUSTIVE, vacuous=True, reason="vacuous: never reached"),
        result(
            "perhaps-vacuous",
            Verdict.PROVED,
            engine="symbolic",
            states=0,
            vacuity_undecided=True,
            reason="vacuity undecided: the antecedent was not reached within 12 steps and not "
            "proved unreachable (Spacer: timeout)",
        ),
    ]
    ruleset = {
        "name": "sample",
        "version": "2026-11-14+mutant m",
        "content_hash": "0123456789abcdef",
        "amended": ["remove cleanup_repeats"],
        "mutant": {"name": "m", "description": "cleanup never repeats", "breaks": ["no-deadlock"]},
    }
    return CheckReport(ruleset, dict(BOUNDS), results, ["explicit", "symbolic"])


def sample_document() -> ProofReport:
    return build_report(sample_report(), Run(engine_note="chosen by hand"))


def test_report_cases_golden(golden: Callable[..., None]) -> None:
    golden("report_cases.txt", text.render_check(sample_document()), mask=False)


def test_trace_tells_the_story() -> None:
    story = text.render_trace(Trace(INITIAL, (CLEANUP, PASS)))
    assert story.splitlines()[:6] == [
        "state 0",
        "  step = END",
        "  stack = []",
        "  active = 0",
        "  passed = [false, false]",
        "  top = {ctrl: 0}",
    ]
    assert "── MTG 514.3a cleanup repeats ──►\nstate 1\n  step: END → CLEANUP" in story
    assert "── MTG 117.4 [slot=1] all players passed: the top object resolves" in story
    assert "(decided by player 1) ──►\nstate 2\n  stack: [1] → []" in story


def test_mandatory_magic_loop_cites_the_draw_rule() -> None:
    story = text.render_trace(Trace(INITIAL, (CLEANUP, CLEANUP), loop_start=1, forced=True))
    assert "── loop starts here ──" in story
    assert "state 2 = state 1: the loop closes" in story
    assert story.endswith(
        "nobody can break this loop: every step is forced "
        "(a mandatory loop; MTG 104.4b makes the game a draw)"
    )


def test_a_loop_with_choices_that_only_delay_it_says_so() -> None:
    story = text.render_trace(Trace(INITIAL, (CLEANUP, CLEANUP), loop_start=1, forced=False))
    assert story.endswith(
        "nobody can break this loop: players have choices on it, but after each of them the "
        "game stays in the region (the choices only delay the loop)"
    )


def test_plain_table_has_fixed_layout() -> None:
    table = text.check_table(sample_document()).plain()
    lines = table.splitlines()
    assert lines[0].split() == ["property", "engine", "verdict", "states", "time", "as", "expected"]
    assert all(line == line.rstrip() for line in lines)
    assert "\x1b" not in table  # no colour codes


def test_rich_table_renders() -> None:
    buf = io.StringIO()
    Console(file=buf, width=120, color_system=None).print(text.check_table_rich(sample_document()))
    assert "cleanup-terminates" in buf.getvalue() and "PROVED" in buf.getvalue()


def test_json_is_canonical() -> None:
    report = sample_document()
    first = json_report.render_check_json(report)
    assert first == json_report.render_check_json(sample_document())
    doc = json.loads(first)
    assert first == json.dumps(doc, sort_keys=True, indent=2) + "\n"
    assert doc["properties"][0]["certificate"]["method"] == "CHC (Spacer)"
    assert doc["properties"][3]["trace"][0] == {
        "changed": {"step": ["END", "CLEANUP"]},
        "decider": None,
        "kind": "turn-based action",
        "name": "cleanup_repeats",
        "rule": "MTG 514.3a",
        "summary": "cleanup repeats",
    }


def test_mutant_verdict() -> None:
    report = sample_report()
    assert "the mutant m is NOT caught: no-deadlock" in text.render_summary(build_report(report))
    report.results[1].verdict = Verdict.VIOLATED
    assert "the mutant m is caught by: no-deadlock" in text.render_summary(build_report(report))


def test_doctests() -> None:
    assert doctest.testmod(document).failed == 0


def test_reports_import_no_engine() -> None:
    """reports/ renders results; it may import turnproof.model and turnproof.checks.results,
    never an engine (checks.explicit, checks.symbolic, the runner) nor the CLI."""
    allowed = ("turnproof.model", "turnproof.checks.results", "turnproof.reports")
    for path in sorted((ROOT / "reports").glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            else:
                continue
            ours = [n for n in names if n.split(".")[0] == "turnproof"]
            if ours:
                assert ours[0].startswith(allowed), f"{path.name} imports {ours[0]}"


def test_changes_narrow_to_the_parts_that_changed() -> None:
    assert document.diff_lines("used", [0, 0], [1, 0]) == ["used[0]: 0 → 1"]
    assert document.diff_lines("stack", [], [{"ctrl": 1}]) == ["stack: [] → [{ctrl: 1}]"]
    assert document.diff_lines("stack", [{"ctrl": 0, "n": 1}], [{"ctrl": 1, "n": 2}]) == [
        "stack[0].ctrl: 0 → 1",
        "stack[0].n: 1 → 2",
    ]


def test_many_bounds_are_named_once() -> None:
    many = {f"b{i}": i for i in range(document.INLINE_BOUNDS + 1)}
    r = result("p", Verdict.EXHAUSTIVE, bounds=many)
    assert document.verdict_line(r, many).startswith(
        f"EXHAUSTIVE within the {len(many)} bounds above"
    )
    assert document.verdict_line(r).startswith("EXHAUSTIVE within b0=0, b1=1")
