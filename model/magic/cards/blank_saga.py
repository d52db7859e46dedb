"""Blank Saga (abstract): a Saga with no chapter abilities (as Urza's Saga under Blood Moon).
Its final chapter number is 0 (714.2d); since the 2025 rules it gets no lore counter as its
controller's precombat main phase begins (714.3b) and is never sacrificed (714.4, 704.5s: the
Saga must have a chapter ability). Under the earlier rules (the variant ``sagas-before-2025``)
it was sacrificed at once."""

from __future__ import annotations

from turnproof.model.magic.sagas import SagaPack

CARD = SagaPack(
    "blank-saga",
    "Blank Saga",
    "Enchantment — Saga. (It has no chapter abilities.)",
    "blank",
    (),
    abstract=True,
    sources=("MTG 714.2d", "MTG 714.3b", "MTG 714.4", "XMage PR #13728 (Update rules for Sagas)"),
    module=__name__,
)
