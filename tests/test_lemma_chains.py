"""Properties of one encoding that are checked whole go one after another, and each one's Spacer
search is given the invariants that proved those before it (``proofs.Lemma``): every reachable
state satisfies them, so the search may keep to the states that do. The proof found is checked
whole, lemmas included, so a lemma that does not hold proves nothing; a rule mutant still breaks
the property it breaks; the proof cache keeps the whole invariant, which stands alone. The chain
on the default Magic model, through worker processes beside the explicit engine, is in
test_symbolic_workers.py (step-ends-after-all-pass, then resolves-after-all-pass with its
lemma: 1 s, against 31 s alone)."""

from __future__ import annotations

from concurrent.futures import Future
from typing import Any

import pytest
import z3
from turnproof.checks import proofcache, proofs, runner
from turnproof.checks.bmc import Deadline
from turnproof.checks.results import PropertyResult, Verdict
from turnproof.checks.symbolic import SAFETY_KINDS, _staged, chains, check_properties, stageable
from turnproof.model.magic import MAGIC

#: Two safety properties of the default Magic model on the encoding of the ``passed`` monitor,
#: not staged (too few on it to share an invariant): a chain, in this order.
PAIR = ("step-ends-after-all-pass", "resolves-after-all-pass")
#: Two properties on the encoding without monitors that Spacer proves in about a second each.
QUICK = ("creatures-leave-combat-with-it", "nothing-resolves-once-it-has-finished")


def test_the_properties_checked_whole_on_one_encoding_make_a_chain_in_their_order() -> None:
    sel = runner.select(MAGIC)
    props = list(sel.properties)
    index = {p.name: i for i, p in enumerate(props)}
    staged = stageable(props)
    assert chains(props, staged) == [[index[n] for n in PAIR]]
    # A staged property is in no chain (stage two shares an invariant instead), nor is a
    # property alone on its encoding, nor one that is not a safety property.
    in_chains = {i for group in chains(props, staged) for i in group}
    assert not in_chains & staged
    assert index["active-player-gets-priority-first"] not in in_chains
    assert all(props[i].kind in SAFETY_KINDS for i in in_chains)
    # Reversed, the chain follows the properties' order: the answers do not depend on timing.
    backwards = list(reversed(props))
    at = {p.name: i for i, p in enumerate(backwards)}
    assert chains(backwards, stageable(backwards)) == [[at[n] for n in reversed(PAIR)]]


def _answer(name: str, lemma: Any) -> PropertyResult:
    return PropertyResult(
        name, "step", "", Verdict.PROVED, "symbolic", "holds", 0, 0, 0.0, lemma=lemma
    )


def test_the_next_in_a_chain_starts_once_the_one_before_answered_with_its_lemma() -> None:
    sel = runner.select(MAGIC, property_names=[*PAIR, "active-player-gets-priority-first"])
    props = list(sel.properties)
    names = [p.name for p in props]
    first, second = (names.index(n) + 1 for n in PAIR)
    submitted: list[tuple[int, Any]] = []
    pending: dict[int, Future[Any]] = {}

    def submit(k: int, stage: Any) -> Future[Any]:
        submitted.append((k, stage))
        pending[k] = Future()
        return pending[k]

    def no_invariant(k: int, fields: tuple[str, ...]) -> Future[Any]:
        raise AssertionError("nothing is staged here")

    order = [i + 1 for i in range(len(props))]
    finals = _staged(submit, no_invariant, props, order)
    # The first of the chain and the property alone start at once; the second waits.
    assert sorted(k for k, _ in submitted) == sorted(k for k in order if k != second)
    assert all(stage is None for _, stage in submitted)
    lemma = proofs.Lemma(PAIR[0], ("turns",), "(assert true)")
    pending[first].set_result(_answer(PAIR[0], lemma))
    assert submitted[-1] == (second, proofs.Stage(whole=True, lemmas=(lemma,)))
    assert not finals[second].done()
    done = _answer(PAIR[1], None)
    pending[second].set_result(done)
    assert finals[second].result() is done
    # A first that proved nothing (or failed) hands on no lemma; the second still goes.
    submitted.clear()
    finals = _staged(submit, no_invariant, props, order)
    pending[first].set_exception(RuntimeError("lost"))
    assert submitted[-1] == (second, proofs.Stage(whole=True, lemmas=()))


def _quick() -> tuple[Any, Any, Any, Any]:
    sel = runner.select(MAGIC, property_names=list(QUICK))
    a, b = sel.properties
    enc = proofs.property_encoding(sel.model, a)
    assert proofs.property_encoding(sel.model, b) is enc
    return sel, a, b, enc


def test_a_lemma_that_does_not_hold_proves_nothing() -> None:
    sel, a, b, enc = _quick()
    q = proofs.property_query(enc, b)
    found = proofs.spacer(q, Deadline(60))
    lemma = proofs.lemma_of(a, enc, proofs.spacer(proofs.property_query(enc, a), Deadline(60)))
    assert found.status == "safe" and lemma is not None
    # The true lemma: proved, the lemma named, the invariant kept with it checked whole.
    given = proofs.lemma_formulas(enc, [lemma])
    assert [name for name, _ in given] == [a.name]
    helped = proofs.spacer(q, Deadline(60), lemmas=given)
    assert helped.status == "safe", helped.reason
    assert a.name in (helped.certificate or {})["lemmas"]
    assert proofs.check_invariant(q, helped.formula, Deadline(60)) == ""
    assert z3.is_and(helped.formula)
    # Lemmas that do not hold: false everywhere, or true at the start but not kept by a step
    # (the stage leaves MAIN). Spacer's invariant relative to them does not check.
    stage = next(p for p in enc.vars(0) if str(p).startswith("stage@"))
    for text in ("(assert false)", f"(assert (= {stage.sexpr()} 0))"):
        made_up = proofs.lemma_formulas(enc, [proofs.Lemma("made-up", lemma.open_bounds, text)])
        assert len(made_up) == 1
        answer = proofs.spacer(q, Deadline(60), lemmas=made_up)
        assert answer.status == "unknown" and "did not check" in answer.reason, answer.reason
    # A lemma proved with other bounds left open, or over other variables, is passed over.
    other = proofs.Lemma(a.name, (), lemma.text)
    assert enc.open_bounds and proofs.lemma_formulas(enc, [other]) == []
    alien = proofs.Lemma(a.name, lemma.open_bounds, "(assert (> |m.elsewhere@0| 0))")
    assert proofs.lemma_formulas(enc, [alien]) == []


def test_a_chained_proof_is_kept_whole_and_stands_without_its_lemma(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(proofcache.ENV, "1")
    sel, a, b, enc = _quick()
    first = proofs.check_property(sel.model, a, timeout_s=60, max_depth=20)
    assert first.verdict is Verdict.PROVED and first.lemma is not None, first.reason
    stage = proofs.Stage(whole=True, lemmas=(first.lemma,))
    second = proofs.check_property(sel.model, b, timeout_s=60, max_depth=20, stage=stage)
    assert second.verdict is Verdict.PROVED, second.reason
    assert a.name in (second.certificate or {})["lemmas"]
    # Its lemma for the next one includes the one it was given.
    assert second.lemma is not None and len(second.lemma.text) > len(first.lemma.text)
    # The cache keeps Spacer's invariant with the lemma: read back with no lemma given, it
    # checks alone, and proves the property with the same invariant.
    memo = proofs.proof_memo(b, enc)
    entry = proofcache.load(memo) if memo else None
    assert entry is not None and entry["method"] == proofcache.SPACER
    again = proofs.check_property(sel.model, b, timeout_s=60, max_depth=20)
    assert again.verdict is Verdict.PROVED
    assert (again.certificate or {})["invariant"] == (second.certificate or {})["invariant"]


#: About 30 s: the deep tier's.
@pytest.mark.deep
def test_a_mutant_still_breaks_the_second_of_the_chain() -> None:
    """``cast-keeps-passes`` breaks resolves-after-all-pass only: step-ends-after-all-pass is
    proved, and its invariant (in the mutant) is the second's lemma, which is violated all the
    same, with a trace."""
    mutant = runner.select(MAGIC, property_names=list(PAIR), mutant="cast-keeps-passes")
    broken = check_properties(mutant.model, list(mutant.properties), jobs=0, bounds_cut={})
    by_name = {r.name: r for r in broken}
    assert by_name[PAIR[0]].verdict is Verdict.PROVED
    assert by_name[PAIR[0]].lemma is not None
    assert by_name[PAIR[1]].verdict is Verdict.VIOLATED, by_name[PAIR[1]].reason
    assert by_name[PAIR[1]].trace is not None


def test_a_proof_relative_to_the_control_invariant_hands_on_no_lemma() -> None:
    """Spacer's invariant found relative to the control invariant is not inductive alone, and
    with the control invariant it is thousands of claims: no lemma; Spacer's alone is one."""
    from turnproof.checks.invariants import Invariant

    sel, a, _, enc = _quick()
    q = proofs.property_query(enc, a)
    alone = proofs.spacer(q, Deadline(60))
    relative = proofs.spacer(q, Deadline(60), Invariant([]))
    assert alone.status == relative.status == "safe"
    assert "control invariant" in (relative.certificate or {})["method"]
    assert proofs.lemma_of(a, enc, relative) is None
    assert proofs.lemma_of(a, enc, alone) is not None
