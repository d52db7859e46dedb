"""Magic: The Gathering turn structure, as a core (``core.py``) and card packs (``cards/``).

:data:`CORE` is the rules of the game whatever the cards; :data:`LIBRARY` the card library;
:func:`compose_magic` the rule set with some cards in play; :data:`MAGIC` the built-in rule set,
with the default cards (:data:`DEFAULT_CARDS`). Read ``core.py``'s docstring first.
"""

from __future__ import annotations

from turnproof.model.magic import core, start
from turnproof.model.magic.cards import LIBRARY
from turnproof.model.magic.core import (
    COMBAT_STEPS,
    CR_VERSION,
    NO_ITEM,
    Item,
    Proc,
    Stage,
    Step,
)
from turnproof.model.magic.mutants import MUTANTS, VARIANTS
from turnproof.model.magic.properties import FOR_ALL, PROPERTIES
from turnproof.model.packs import Composer, Core
from turnproof.model.rules import Alias, RuleSet

ALIASES = (
    Alias("MTG 716", "MTG 724", "2019", "'Ending the Turn' in the 2018-2019 rules"),
    Alias("MTG 722", "MTG 724", "2025-06", "'Ending Turns and Phases' in mid-2025"),
    Alias("MTG 723", "MTG 724", "2025-11", "'Ending Turns and Phases' in late 2025"),
    Alias("MTG 116", "MTG 117", "2019-06", "'Timing and Priority' before July 2019"),
    Alias("MTG 507", "MTG 723", "2008", "controlling another player, pre-2009 numbering"),
    Alias("MTG 721", "MTG 723", "2025-06", "'Controlling Another Player' in mid-2025"),
    Alias("MTG 722", "MTG 723", "2025-11", "'Controlling Another Player' in late 2025"),
)

#: Today's sections that an old number may be confused with (the 2026 numbering; the digest's
#: table of renumberings): under these, a number is today's.
SECTIONS = (
    ("MTG 116", "Special Actions"),
    ("MTG 117", "Timing and Priority"),
    ("MTG 714", "Saga Cards"),
    ("MTG 721", "Station Cards"),
    ("MTG 722", "Preparation Cards"),
    ("MTG 723", "Controlling Another Player"),
    ("MTG 724", "Ending Turns and Phases"),
)

CORE = Core.of(
    core,
    name="magic",
    game="MTG",
    version=CR_VERSION,
    description="Magic: The Gathering turn structure: steps, priority, the stack, triggers, "
    "cleanup and its repetition, ending the turn and the combat phase, durations",
    state_name="MtgState",
    card_rules_after="cast",
    properties=PROPERTIES,
    mutants=MUTANTS,
    variants=VARIANTS,
    aliases=ALIASES,
    sections=SECTIONS,
    zones=("battlefield", "hand"),
    library=lambda: LIBRARY,
    decided_by=core.decided_by,
    optional_rules=core.OPTIONAL_RULES,
    kind_traits=core.TRAITS,
    start=start.START,
    observable=("turn", "step", "stage", "prio", "stack", "pending", "ctrl_now"),
    names={
        "active": ("the active player", lambda s, x, b: core.active(s, b)),
        "controller": (
            "who controls the active player's turn (723), or -1 for nobody",
            lambda s, x, b: s.ctrl_now - 1,
        ),
    },
)

#: The cards in the built-in rule set, and who controls each (``None``: each player has one;
#: instants are in every hand, since hands are only counted). Shock is the second player's
#: answer: it can kill the first player's creature (704.5g) or damage Sarkhan, as a creature
#: (ET-07) or as a planeswalker.
DEFAULT_CARDS = (
    ("pump", None),
    ("shock", 1),
    ("brace", None),
    ("omen", None),
    ("sundial-of-the-infinite", None),
    ("sphinxs-tutelage", 0),
    ("rielle-the-everwise", 0),
    ("end-step-watcher", 0),
    ("sarkhan-the-dragonspeaker", 0),
)


#: The Magic rule set with some cards in play (cards, ``(name, controller)`` pairs, or names
#: for cards each player has); the same cards give the same rule set value.
compose_magic = Composer(CORE)
card = compose_magic.card


MAGIC = compose_magic(DEFAULT_CARDS)


def kinds(ruleset: RuleSet = MAGIC) -> type:
    """The object kinds of a composed Magic rule set (``kinds().PUMP``)."""
    return ruleset.setup.kinds


__all__ = [
    "ALIASES",
    "COMBAT_STEPS",
    "CORE",
    "CR_VERSION",
    "DEFAULT_CARDS",
    "FOR_ALL",
    "LIBRARY",
    "MAGIC",
    "NO_ITEM",
    "Item",
    "Proc",
    "Stage",
    "Step",
    "card",
    "compose_magic",
    "kinds",
]
