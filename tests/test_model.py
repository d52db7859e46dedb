"""Schema, operations, bounds, rule sets, amendments and aliases."""

from __future__ import annotations

import pytest
from turnproof.model.bench import BENCH
from turnproof.model.errors import AmendmentError, BoundsError, SchemaError, UnknownNameError
from turnproof.model.magic import MAGIC, Item, kinds
from turnproof.model.ops import BoundReached, ConcreteOps, Disabled
from turnproof.model.rules import Add, Model, Remove, Replace, Variant
from turnproof.model.schema import IntRange, RecordDomain, Seq, SeqDomain, State

x = ConcreteOps()
Obj = kinds(MAGIC)


class Pair(State):
    a: int
    b: int


def test_state_is_an_immutable_value():
    s = Pair.make(a=1, b=2)
    t = s.replace(b=3)
    assert (s.a, s.b, t.b) == (1, 2, 3)
    assert s == Pair.make(a=1, b=2) and hash(s) == hash(Pair.make(a=1, b=2))
    with pytest.raises(AttributeError):
        s.a = 5  # type: ignore[misc]
    with pytest.raises(SchemaError, match="missing fields"):
        Pair.make(a=1)


def test_sequences_keep_canonical_empty_slots():
    dom = SeqDomain(
        RecordDomain(
            Item,
            {
                "ctrl": IntRange(0, 1),
                "what": IntRange(0, 20),
                "n": IntRange(0, 3),
                "in_proc": IntRange(0, 1),
                "copy": IntRange(0, 1),
            },
        ),
        3,
    )
    empty = dom.default()
    one = x.seq_push(empty, Item(1, Obj.PUMP, 0, False, False))
    two = x.seq_push(one, Item(0, Obj.SHOCK, 0, False, False))
    assert x.seq_top(two).what == Obj.SHOCK
    assert x.seq_pop(two) == one
    assert x.seq_remove(two, 0) == dom.make([Item(0, Obj.SHOCK, 0, False, False)])
    assert x.seq_pop(one) == empty
    full = x.seq_push(two, Item(1, Obj.PUMP, 0, False, False))
    assert x.seq_push(full, Item(0, 1, 0, 0, 0)) == full  # total: no push beyond capacity
    assert x.seq_filter(two, lambda it: it.ctrl == 0) == dom.make(
        [Item(0, Obj.SHOCK, 0, False, False)]
    )
    assert dom.well_formed(two, x)
    assert not dom.well_formed(Seq(1, two.slots), x)  # a live item beyond the length


def test_guards_raise_only_through_require_and_within():
    with pytest.raises(Disabled):
        x.require(False)
    with pytest.raises(BoundReached) as exc:
        x.within(False, "stack")
    assert exc.value.bound == "stack"
    assert x.when(False, lambda v: 1 // 0, 7) == 7  # the untaken branch never runs
    assert x.cases(2, {1: lambda: "one", 2: lambda: "two"}, lambda: "other") == "two"


def test_bounds_out_of_range_and_unknown():
    with pytest.raises(BoundsError, match=r"players=9 is out of range; players takes 2\.\.4"):
        Model(MAGIC, {"players": 9})
    with pytest.raises(UnknownNameError, match="valid bounds: .*actions"):
        Model(MAGIC, {"plaers": 2})


def test_rule_lookup_by_name_citation_and_old_number():
    assert MAGIC.find_rule("cleanup_discard").citation == "MTG 514.1"
    assert MAGIC.resolve_citation("716.1a") == "MTG 724.1a"
    # 116 is today's Special Actions: an old 116 names its edition.
    assert MAGIC.resolve_citation("MTG 116.3d") == "MTG 116.3d"
    assert MAGIC.resolve_citation("MTG 116.3d@2019-06") == "MTG 117.3d"
    assert MAGIC.resolve_citation("MTG 723.1a@2025-11") == "MTG 724.1a"
    # Today's 723.1 is controlling another player, not late 2025's ending the turn.
    assert MAGIC.resolve_citation("723.1") == "MTG 723.1"
    assert MAGIC.resolve_citation("MTG 722.1") == "MTG 722.1"  # today's Preparation Cards
    why = MAGIC.explain_citation("MTG 722.1")
    assert "today's MTG 722 (Preparation Cards)" in why
    assert "722.1@2025-06 (today's MTG 724.1)" in why and "722.1@2025-11 (today's MTG 723.1)" in why
    with pytest.raises(UnknownNameError, match="valid editions with old numbers: 2008, 2019"):
        MAGIC.resolve_citation("MTG 716.1@1999")
    assert [r.name for r in MAGIC.find_rules("MTG 716.1")] == [
        "end_turn_a",
        "end_turn_b",
        "end_turn_d",
    ]
    assert MAGIC.find_rule("MTG 722.1b@2025-06").name == "end_turn_b"


def test_amendments_yield_new_rule_sets():
    removed = MAGIC.amend(Remove("activate_sundial"), label="no-sundial")
    assert "activate_sundial" not in removed.rule_names()
    assert "activate_sundial" in MAGIC.rule_names()  # the original is a value, unchanged
    assert removed.version == MAGIC.version + "+no-sundial"
    assert removed.amended == ("remove activate_sundial",)
    swapped = MAGIC.amend(Replace("MTG 716.1a", MAGIC.find_rule("end_turn_a")))
    assert swapped.rule_names() == MAGIC.rule_names()
    added = BENCH.amend(
        Add(
            BENCH.find_rule("untap").__class__(
                name="noop", citation="MTG 500.1", summary="a no-op", fn=lambda s, x, b: s
            ),
            after="untap",
        )
    )
    assert added.rule_names()[1] == "noop"
    variant = MAGIC.amend(Variant("no-second-cleanup"))
    assert variant.find_rule("pass_end_step").summary.startswith("VARIANT")
    with pytest.raises(AmendmentError, match="missing rule 'nonesuch'; rules are: untap"):
        MAGIC.amend(Remove("nonesuch"))
    with pytest.raises(UnknownNameError, match="valid variants"):
        MAGIC.amend(Variant("nonesuch"))


def test_content_hash_is_stable_and_sensitive():
    assert MAGIC.content_hash() == MAGIC.amend().content_hash()
    assert MAGIC.content_hash() != MAGIC.amend(Remove("add_mana")).content_hash()


def test_every_magic_rule_cites_a_rule_number():
    for r in MAGIC.rules:
        assert r.citation.startswith("MTG 5") or r.citation.startswith(("MTG 1", "MTG 6", "MTG 7"))
        assert r.summary and r.summary[0].islower() or r.summary[0].isupper()
        if not r.is_automatic:
            assert r.decider is not None


def test_initial_state_fits_schema():
    m = Model(MAGIC)
    for s in m.initial_states():
        m.schema.check(s, x)
    bad = m.initial_states()[0].replace(turn=99)
    with pytest.raises(SchemaError, match="turn=99"):
        m.schema.check(bad, x)
