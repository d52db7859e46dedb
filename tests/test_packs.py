"""Composition: a core and card packs make an ordinary rule set, checked at construction."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from turnproof.checks.explicit import explore
from turnproof.model.errors import UnknownNameError
from turnproof.model.magic import CORE, LIBRARY, MAGIC, compose_magic
from turnproof.model.packs import Card, CompositionError, Field, KindSpec, Pack, compose
from turnproof.model.rules import BoundSpec, DeriveHook, Model, rule
from turnproof.model.schema import BoolDomain

SHOCK = LIBRARY["shock"]


def pack(**kw: Any) -> Pack:
    return Pack(key=kw.pop("key", "test-card"), name=kw.pop("name", "Test Card"), text="", **kw)


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (
            pack(fields=(Field("stack", BoolDomain(), "x", lambda b: False),)),
            "field 'stack' is declared by both the core and card 'Test Card'",
        ),
        (
            pack(kinds=(KindSpec("SHOCK", "x"),)),
            "kind 'SHOCK' is declared by both card 'Shock' and card 'Test Card'",
        ),
        (
            pack(bounds=(BoundSpec("turns", 1, 1, 2, "x"),)),
            "bound 'turns' is declared by both the core and card 'Test Card'",
        ),
        (
            pack(hooks={"on_draw": lambda s, x, b, **k: s}),
            "card Test Card: unknown hook 'on_draw'; valid hooks: attacks, cleanup, ",
        ),
        (
            pack(fields=(Field("f", BoolDomain(), "x", lambda b: False, ends="round"),)),
            "field f of Test Card: unknown duration 'round'; valid durations: cleanup, combat, turn",
        ),
        (
            pack(resolve={"NOPE": lambda s, x, b, me: s}),
            "card Test Card: unknown object kind 'NOPE'; valid kinds of it: (none)",
        ),
    ],
)
def test_a_clash_or_an_unknown_name_is_refused_at_composition(extra: Pack, message: str) -> None:
    with pytest.raises((CompositionError, UnknownNameError)) as exc:
        compose(CORE, [Card(SHOCK, 1), Card(extra, 0)])
    assert message in str(exc.value)


def test_a_rule_name_the_core_has_is_refused() -> None:
    @rule("MTG 500.1", "a rule named like the core's")
    def untap(s: Any, x: Any, b: Any, *, me: Any) -> Any:
        return s

    with pytest.raises(CompositionError, match="rule 'untap' is declared by both the core"):
        compose(CORE, [Card(pack(rules=(untap,)), 0)])


def test_a_card_twice_or_without_the_controller_it_needs() -> None:
    with pytest.raises(CompositionError, match="card 'Shock' is in play twice"):
        compose(CORE, [Card(SHOCK, 0), Card(SHOCK, 1)])
    with pytest.raises(CompositionError, match="Sarkhan, the Dragonspeaker' needs a controller"):
        compose(CORE, [Card(LIBRARY["sarkhan-the-dragonspeaker"], None)])
    with pytest.raises(CompositionError, match="cannot be in zone 'battlefield'; valid zones"):
        compose(CORE, [Card(SHOCK, 0, "battlefield")])


def test_composition_does_not_depend_on_the_order_of_the_cards() -> None:
    a = compose(CORE, [Card(SHOCK, 1), Card(LIBRARY["pump"], None)])
    b = compose(CORE, [Card(LIBRARY["pump"], None), Card(SHOCK, 1)])
    assert a.content_hash() == b.content_hash()
    assert [r.name for r in a.rules] == [r.name for r in b.rules]
    assert list(a.setup.kinds.__members__) == list(b.setup.kinds.__members__)


def test_the_cards_in_play_are_part_of_the_content_hash() -> None:
    assert (
        compose_magic([("shock", 1)]).content_hash() != compose_magic([("shock", 0)]).content_hash()
    )
    assert compose_magic([("shock", 1)]) is compose_magic([("shock", 1)])  # one value per pool


def test_a_card_rule_cites_its_card_and_knows_who_controls_it() -> None:
    rule_ = MAGIC.find_rule("activate_sarkhan")
    assert rule_.card == "Sarkhan, the Dragonspeaker" and rule_.citation == "MTG 606.3"
    assert rule_.cited == "MTG 606.3, card: Sarkhan, the Dragonspeaker"
    resolves = MAGIC.find_rule("resolve_shock")
    assert resolves.card == "Shock" and resolves.citation == "MTG 608.2c"


def test_a_card_without_its_fields_leaves_the_state_smaller() -> None:
    with_rielle = Model(compose_magic([("rielle-the-everwise", 0)]), {"turns": 1})
    without = Model(compose_magic([]), {"turns": 1})
    assert "discarded" in with_rielle.schema.fields and "discarded" not in without.schema.fields


def test_a_hook_clause_derives_a_card_mutant() -> None:
    rs = compose_magic([("sarkhan-the-dragonspeaker", 0)])
    derived = rs.amend(
        DeriveHook("sarkhan-the-dragonspeaker", "cleanup", (("simultaneous", False),)), label="m"
    )
    assert derived.content_hash() != rs.content_hash()
    assert derived.amended == ("derive sarkhan-the-dragonspeaker:cleanup(simultaneous=False)",)
    with pytest.raises(UnknownNameError, match="valid hooks: cleanup, planeswalker"):
        rs.amend(DeriveHook("sarkhan-the-dragonspeaker", "nope", ()))


def test_a_derived_rule_is_its_rule_with_one_clause_changed() -> None:
    base = MAGIC.find_rule("pass_end_step")
    mutant = base.derive("MUTANT: no second cleanup", cleanup_repeats=False)
    assert mutant.name == base.name and mutant.citation == base.citation
    assert mutant.clauses == (("cleanup_repeats", False),)
    assert mutant.source_digest() != base.source_digest()
    # the mutant's reachable states differ from the rule's
    rs = MAGIC.amend(replace_rule(mutant))
    assert explore(Model(rs, {"turns": 1})).states != explore(Model(MAGIC, {"turns": 1})).states


def replace_rule(r: Any) -> Any:
    from turnproof.model.rules import Replace

    return Replace(r.name, r)


def test_every_library_card_is_described_and_composes_alone() -> None:
    for key, p in LIBRARY.items():
        assert p.name and p.text and p.module.endswith(key.replace("-", "_")), key
        for f in p.fields:
            assert f.doc, (key, f.name)
        controller = None if p.each else 0
        rs = compose_magic([(key, controller)])
        assert rs.setup.card_names() == [p.name]
        assert replace(p) == p
