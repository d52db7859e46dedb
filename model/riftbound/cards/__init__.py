"""The Riftbound card library: one module a card, each defining ``CARD``, its pack.

A module added here is in the library: nothing else needs to list it. :data:`LIBRARY` maps each
card's key to its pack, in key order. Most cards here are abstract: each stands for a pattern of
printed cards that the rules digest names (a plain spell, a unit with a play effect, Legion, a
Deathknell, ...), so that no card text is made up.
"""

from __future__ import annotations

from turnproof.model.packs import Pack, discover

LIBRARY: dict[str, Pack] = discover(__name__, __path__)
