"""Foretold Chronicle (abstract): a three-chapter Saga with read ahead (702.155): as it enters
its controller chooses 1, 2 or 3, it enters with that many lore counters, and the chapters
below that number don't trigger (the pattern of The Elder Dragon War)."""

from __future__ import annotations

from turnproof.model.magic.sagas import Chapter, SagaPack

CARD = SagaPack(
    "foretold-chronicle",
    "Foretold Chronicle",
    "Enchantment — Saga. Read ahead (Choose a chapter and start with that many lore counters. "
    "Add one after your draw step. Skipped chapters don't trigger.) I, II, III — (an effect).",
    "foretold",
    (Chapter(1, "an effect"), Chapter(2, "an effect"), Chapter(3, "an effect")),
    read_ahead=True,
    abstract=True,
    sources=("MTG 702.155a", "MTG 714.3a"),
    module=__name__,
)
