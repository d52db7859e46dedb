"""Chronicle (abstract): a three-chapter Saga whose chapters change nothing the turn structure
looks at (the pattern of most Sagas: I, II, III, then it is sacrificed, 714.4)."""

from __future__ import annotations

from turnproof.model.magic.sagas import Chapter, SagaPack

CARD = SagaPack(
    "chronicle",
    "Chronicle",
    "Enchantment — Saga. I — (an effect). II — (an effect). III — (an effect).",
    "chron",
    (Chapter(1, "an effect"), Chapter(2, "an effect"), Chapter(3, "an effect")),
    abstract=True,
    sources=("MTG 714.2b", "MTG 714.3", "MTG 714.4", "shared/examples/rulings.md SG-01"),
    module=__name__,
)
