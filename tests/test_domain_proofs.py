"""The proof by the fields' domains (``proofs.by_domains``) asks its safety check of a solver kept
per encoding, which holds the well-formedness and the steps once for every property: its answers
are those of a fresh solver on each property alone, one property's bad condition never stands
for another's, and a state's bad condition is asked without a step after it (a terminal state
has none)."""

from __future__ import annotations

from typing import Any

import pytest
from test_symbolic_proofs import _clock_rules
from turnproof.checks import proofs, runner
from turnproof.checks.bmc import Deadline
from turnproof.checks.results import Verdict
from turnproof.model.magic import MAGIC
from turnproof.model.properties import always
from turnproof.model.riftbound import RIFTBOUND
from turnproof.model.rules import Model


def _fresh(q: proofs.Query) -> bool:
    """The domains' proof, every check on a fresh solver."""
    return not proofs.check_invariant(q, q.enc.well_formed(0), Deadline(120))


def _compare(ruleset: Any, most: int | None = None) -> list[bool]:
    sel = runner.select(ruleset)
    props = [p for p in sel.properties if p.kind in ("always", "step")][:most]
    # Each property twice, in order then reversed: what one asked stays out of the next.
    # (A fresh solver's answer does not depend on the order: it is asked once a property.)
    asked = props + props[::-1]
    answers = []
    fresh: dict[str, bool] = {}
    for p in asked:
        q = proofs.property_query(proofs.property_encoding(sel.model, p), p)
        kept = proofs.by_domains(q, Deadline(120))
        if p.name not in fresh:
            fresh[p.name] = _fresh(q)
        assert (kept is not None) == fresh[p.name], p.name
        answers.append(kept is not None)
    return answers


def test_the_kept_solver_answers_as_fresh_ones_on_riftbound() -> None:
    answers = _compare(RIFTBOUND, most=8)
    assert any(answers) and not all(answers)


@pytest.mark.slow  # 13 s: a fresh solver takes in the transition formula for each property
def test_the_kept_solver_answers_as_fresh_ones_on_magic() -> None:
    """The first twelve of Magic's properties (some proved by the domains, some not); the deep
    tier asks all of them (40 s)."""
    answers = _compare(MAGIC, most=12)
    assert any(answers) and not all(answers)


@pytest.mark.deep
def test_the_kept_solver_answers_as_fresh_ones_on_every_magic_property() -> None:
    answers = _compare(MAGIC)
    assert any(answers) and not all(answers)


def test_a_bad_state_without_a_step_after_it_is_not_excluded_by_the_domains() -> None:
    """A bad state that is terminal has no successor in the transition formula: asked with a
    step after it, the domains would seem to exclude it and prove a property that fails."""
    model = Model(_clock_rules())
    prop = always("never-over", "the game never ends", lambda s, x, b, m: s.turn < b.turns)
    enc = proofs.property_encoding(model, prop)
    q = proofs.property_query(enc, prop)
    assert q.steps == 0
    assert proofs.by_domains(q, Deadline(60)) is None
    r = proofs.check_property(model, prop, timeout_s=30, max_depth=10)
    assert r.verdict is Verdict.VIOLATED and r.trace is not None
