"""The Magic card library: one module a card, each defining ``CARD``, its pack.

A module added here is in the library: nothing else needs to list it. :data:`LIBRARY` maps each
card's key to its pack, in key order.
"""

from __future__ import annotations

from turnproof.model.packs import Pack, discover

LIBRARY: dict[str, Pack] = discover(__name__, __path__)
