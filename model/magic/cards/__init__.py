"""The Magic card library: one module a card, each defining ``CARD``, its pack.

A module added here is in the library: nothing else needs to list it. :data:`LIBRARY` maps each
card's key to its pack, in key order.
"""

from __future__ import annotations

import importlib
import pkgutil

from turnproof.model.packs import Pack, card_table


def _discover() -> list[Pack]:
    packs = []
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        module = importlib.import_module(f"{__name__}.{info.name}")
        card = getattr(module, "CARD", None)
        if isinstance(card, Pack):
            packs.append(card)
    return packs


LIBRARY: dict[str, Pack] = card_table(_discover())
