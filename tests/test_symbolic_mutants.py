"""The symbolic engine never proves what a mutant breaks.

For every mutant of a built-in rule set made of a core and card packs (Magic, Riftbound) and
every property it is meant to break, the symbolic engine must not answer PROVED (or a pass of any
kind): a wrong proof is the worst thing this tool can say. A violation or an honest UNKNOWN are
both acceptable here; the explicit engine's tests show the violation itself.
"""

from __future__ import annotations

import pytest
from turnproof.checks.proofs import check_property
from turnproof.checks.results import Verdict
from turnproof.checks.symbolic import DEFAULT_MAX_DEPTH
from turnproof.model.packs import mutant_ruleset
from turnproof.model.registry import get_ruleset
from turnproof.model.rules import Model

#: The games, each with its bounds for these checks and the prefix of its citations.
GAMES = {"magic": ({"turns": 1}, "MTG "), "riftbound": ({"turns": 1, "actions": 1}, "RB ")}
PAIRS = [(g, m.name, p) for g in GAMES for m in get_ruleset(g).mutants for p in m.breaks]
#: The slow tier checks the first pair of each game and kind of property, and every sixteenth
#: pair; the deep tier checks them all. Most pairs spend their whole budget on proof attempts
#: that end UNKNOWN, so a pair costs its 10 s whatever it finds.
SAMPLED = set(PAIRS[::16]) | {
    next(q for q in PAIRS if (q[0], get_ruleset(q[0]).property(q[2]).kind) == key)
    for key in {(g, get_ruleset(g).property(p).kind) for g, _, p in PAIRS}
}


@pytest.mark.parametrize(
    ("game", "mutant", "prop"),
    [
        pytest.param(*pair, marks=pytest.mark.slow if pair in SAMPLED else pytest.mark.deep)
        for pair in PAIRS
    ],
)
def test_symbolic_engine_never_proves_what_a_mutant_breaks(
    game: str, mutant: str, prop: str
) -> None:
    base = get_ruleset(game)
    bounds, prefix = GAMES[game]
    m = base.mutant(mutant)
    rs = mutant_ruleset(base, m)
    model = Model(rs, {**bounds, **m.bounds})
    # The property's own check (not check_properties, which also asks which bounds cut a
    # transition: a note on the verdict, and a fixed cost per pair that says nothing here).
    r = check_property(model, rs.property(prop), timeout_s=10, max_depth=DEFAULT_MAX_DEPTH)
    # For a reachability query the mutant makes unreachable, PROVED (proved unreachable) is a
    # right answer that misses the expectation; for the others it would be a wrong proof.
    assert not r.meets_expectation, f"{mutant}: the symbolic engine says {prop} {r.verdict.value}"
    if r.verdict is Verdict.VIOLATED and r.trace is not None:
        assert r.trace.steps and all(s.rule.startswith(prefix) for s in r.trace.steps)
