"""How a report's exit code follows from its results (one or two engines per property)."""

from __future__ import annotations

import pytest
from turnproof.checks.results import CheckReport, PropertyResult, Verdict
from turnproof.model.errors import UnknownNameError


def res(verdict: Verdict, engine: str = "explicit", expect: str = "holds", **kw) -> PropertyResult:
    return PropertyResult(
        name=kw.pop("name", "p"),
        kind=kw.pop("kind", "always"),
        description="",
        verdict=verdict,
        engine=engine,
        expect=expect,
        states=1,
        transitions=0,
        seconds=0.0,
        **kw,
    )


def code(*results: PropertyResult) -> int:
    return CheckReport({"name": "t"}, {}, list(results), ["explicit", "symbolic"]).exit_code


E, P, U, V, W = (
    Verdict.EXHAUSTIVE,
    Verdict.PROVED,
    Verdict.UNKNOWN,
    Verdict.VIOLATED,
    Verdict.WITNESSED,
)


@pytest.mark.parametrize(
    ("results", "expected"),
    [
        ((res(E),), 0),
        ((res(E), res(P, "symbolic")), 0),
        ((res(E), res(U, "symbolic")), 0),  # the best justified verdict counts
        ((res(U), res(U, "symbolic")), 3),
        ((res(U),), 3),
        ((res(V),), 1),
        ((res(V), res(U, "symbolic")), 1),
        ((res(E, vacuous=True), res(P, "symbolic")), 1),  # vacuity found by one engine fails
        ((res(P, "symbolic", vacuity_undecided=True),), 3),  # proved, perhaps vacuously
        ((res(E), res(P, "symbolic", vacuity_undecided=True)), 0),  # the explicit engine saw it
        ((res(E), res(V, "symbolic"), res(V, "both", kind="engines-agree")), 1),
        ((res(V, expect="violated"),), 0),
        ((res(W, expect="witnessed"), res(U, "symbolic", expect="witnessed")), 0),
        ((res(E, name="a"), res(U, name="b")), 3),
        ((res(V, name="a"), res(U, name="b")), 1),
    ],
)
def test_exit_code(results, expected):
    assert code(*results) == expected


def test_unknown_name_errors_use_proper_plurals():
    assert "valid properties: a, b" in str(UnknownNameError("property", "c", ["b", "a"]))
    assert "valid bounds:" in str(UnknownNameError("bound", "c", ["x"]))
    assert "valid rule sets:" in str(UnknownNameError("rule set", "c", ["x"]))
