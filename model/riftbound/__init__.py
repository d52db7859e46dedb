"""Riftbound's chain and the turn around it, as a core (``core.py``) and card packs
(``cards/``), pinned to the Riftbound Core Rules v1.3 (2026-03-30).

:data:`CORE` is the rules of the game whatever the cards; :data:`LIBRARY` the card library;
:func:`compose_riftbound` the rule set with some cards in play; :data:`RIFTBOUND` the built-in
rule set, with the default cards (:data:`DEFAULT_CARDS`). Read ``core.py``'s docstring first.
"""

from __future__ import annotations

from turnproof.model.packs import Composer, Core
from turnproof.model.riftbound import core, start
from turnproof.model.riftbound.cards import LIBRARY
from turnproof.model.riftbound.core import (
    NO_ITEM,
    RB_VERSION,
    Contest,
    Item,
    Opener,
    Perm,
    Phase,
    Stage,
    Zone,
)
from turnproof.model.riftbound.mutants import MUTANTS
from turnproof.model.riftbound.properties import FOR_ALL, PROPERTIES
from turnproof.model.rules import Alias

#: Old rule numbers the digest names: some RiftJudge answers number Legion's "finalized" check
#: 738.1.c.1 (today's 812.1.c). The digest gives no other renumbering (v1.2 numbers the chain
#: and showdowns as v1.3 does).
ALIASES = (
    Alias(
        "RB 738.1.c.1",
        "RB 812.1.c",
        "riftjudge",
        "Legion's 'finalized' check, as some RiftJudge answers number it",
    ),
)

CORE = Core.of(
    core,
    name="riftbound",
    game="RB",
    version=RB_VERSION,
    description="Riftbound's chain: pending and finalized items, HOT FEPR, play triggers, "
    "Legion, cleanups, showdowns and Focus, the ending phase and its expiration loop",
    state_name="RbState",
    card_rules_after="play",
    properties=PROPERTIES,
    mutants=MUTANTS,
    aliases=ALIASES,
    zones=("board", "hand"),
    kind_enum="RbObj",
    library=lambda: LIBRARY,
    kind_traits=core.TRAITS,
    kind_stats=core.STATS,
    start=start.START,
    observable=("turn", "phase", "stage", "prio", "showdown", "focus", "chain", "waiting"),
    names={"active": ("the turn player", lambda s, x, b: core.active(s, b))},
)

#: The cards in the built-in rule set, and who controls each (``None``: each player has one).
#: Player 0 has the spells that play, watch and count (Call to Arms, Rally, Spellwatcher), the
#: unit to play (Firebrand) and the draw trigger (Scholar's Tome); player 1 has the counterspell
#: and the Deathknell. The gear (Iron Ward) and the "at the end of turn" effect (Sundown Bell)
#: are in the library and in the scenarios about them (rb-03, expiration-loop): each card adds
#: object kinds and rule instances that every symbolic proof pays for, and these two add no
#: behaviour of the chain that the others do not show.
DEFAULT_CARDS = (
    ("strike", None),
    ("rune", None),
    ("denial", 1),
    ("rally", 0),
    ("call-to-arms", 0),
    ("firebrand", 0),
    ("spellwatcher", 0),
    ("grim-sentinel", 1),
    ("scholars-tome", 0),
)


#: Compose the Riftbound core with cards (``compose_riftbound([("strike", None), ...])``);
#: a :class:`~turnproof.model.packs.Card` keeps its zone, where a permanent starts.
compose_riftbound = Composer(CORE)
card = compose_riftbound.card
RIFTBOUND = compose_riftbound(DEFAULT_CARDS)

__all__ = [
    "ALIASES",
    "CORE",
    "DEFAULT_CARDS",
    "FOR_ALL",
    "LIBRARY",
    "NO_ITEM",
    "RB_VERSION",
    "RIFTBOUND",
    "Contest",
    "Item",
    "Opener",
    "Perm",
    "Phase",
    "Stage",
    "Zone",
    "card",
    "compose_riftbound",
]
