"""The symbolic engine never proves what a mutant breaks.

For every Magic mutant and every property it is meant to break, the symbolic engine must not
answer PROVED (or a pass of any kind): a wrong proof is the worst thing this tool can say. A
violation or an honest UNKNOWN are both acceptable here; the explicit engine's tests show the
violation itself.
"""

from __future__ import annotations

import pytest
from turnproof.checks import symbolic
from turnproof.checks.results import Verdict
from turnproof.model.magic import MAGIC
from turnproof.model.packs import mutant_ruleset
from turnproof.model.rules import Model

PAIRS = [(m.name, p) for m in MAGIC.mutants for p in m.breaks]


@pytest.mark.slow
@pytest.mark.parametrize(("mutant", "prop"), PAIRS)
def test_symbolic_engine_never_proves_what_a_mutant_breaks(mutant: str, prop: str) -> None:
    m = MAGIC.mutant(mutant)
    rs = mutant_ruleset(MAGIC, m)
    model = Model(rs, {"turns": 1, **m.bounds})
    (r,) = symbolic.check_properties(model, [rs.property(prop)], timeout_s=10, jobs=0)
    # For a reachability query the mutant makes unreachable, PROVED (proved unreachable) is a
    # right answer that misses the expectation; for the others it would be a wrong proof.
    assert not r.meets_expectation, f"{mutant}: the symbolic engine says {prop} {r.verdict.value}"
    if r.verdict is Verdict.VIOLATED and r.trace is not None:
        assert r.trace.steps and all(s.rule.startswith("MTG ") for s in r.trace.steps)
