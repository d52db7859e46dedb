"""Kiora Bests the Sea God: "(As this Saga enters and after your draw step, add a lore counter.
Sacrifice after III.) I — Create an 8/8 blue Kraken creature token with hexproof. II — Tap all
nonland permanents target opponent controls. They don't untap during their controller's next
untap step. III — Gain control of target permanent an opponent controls. Untap it." (714)

The seed situation on Sagas (``shared/seeds/004_…``, its rulings of 2020-01-24). Chapter II
uses the core's "doesn't untap during its controller's next untap step" (502.3, as Freeze
does): the restriction is the opponent's creature's, so it persists if the Saga leaves the
battlefield (ruling SG-12); it targets the player, not the permanents, so hexproof doesn't
stop it. Chapter III's control change has no duration (611.2a): it survives every cleanup
step and the Saga's sacrifice (ruling SG-13). The model records it (``kiora_stolen``) and
untaps the creature; the creature keeps its slot, so which untap step later untaps it is not
modelled. With two players the target opponent is the other player.
"""

from __future__ import annotations

from typing import Any

from turnproof.model.kit.players import next_player
from turnproof.model.magic.sagas import Chapter, SagaPack
from turnproof.model.packs import Field
from turnproof.model.schema import BoolDomain


def _kraken(s: Any, x: Any, b: Any, *, me: Any) -> Any:
    """its controller creates an 8/8 Kraken token with hexproof"""
    return s.replace(kiora_kraken=True)


def _tap_all(s: Any, x: Any, b: Any, *, me: Any) -> Any:
    """the opponent's nonland permanents tap, and don't untap during their controller's next
    untap step (tapped ones too)"""
    opponent = next_player(s.res.ctrl, b.players)
    return s.replace(tapped=x.set(s.tapped, opponent, True), frozen=x.set(s.frozen, opponent, True))


def _steal(s: Any, x: Any, b: Any, *, me: Any) -> Any:
    """its controller gains control of the opponent's creature, indefinitely (611.2a), and
    untaps it"""
    opponent = next_player(s.res.ctrl, b.players)
    there = x.get(s.alive, opponent)
    return s.replace(
        kiora_stolen=x.Or(s.kiora_stolen, there),
        tapped=x.set(s.tapped, opponent, x.If(there, False, x.get(s.tapped, opponent))),
    )


CARD = SagaPack(
    "kiora-bests-the-sea-god",
    "Kiora Bests the Sea God",
    "Enchantment — Saga. I — Create an 8/8 blue Kraken creature token with hexproof. II — Tap "
    "all nonland permanents target opponent controls. They don't untap during their "
    "controller's next untap step. III — Gain control of target permanent an opponent "
    "controls. Untap it.",
    "kiora",
    (
        Chapter(1, "create an 8/8 Kraken token with hexproof", _kraken),
        Chapter(2, "tap the opponent's nonland permanents; they don't untap next time", _tap_all),
        Chapter(3, "gain control of the opponent's creature, untap it", _steal),
    ),
    fields=(
        Field(
            "kiora_kraken", BoolDomain(), "the 8/8 Kraken token (hexproof) exists", lambda b: False
        ),
        Field(
            "kiora_stolen",
            BoolDomain(),
            "Kiora's controller controls the opponent's creature (chapter III: no duration, "
            "611.2a)",
            lambda b: False,
        ),
    ),
    sources=(
        "shared/seeds/004 (Kiora Bests the Sea God rulings, 2020-01-24)",
        "shared/examples/rulings.md SG-12, SG-13",
    ),
    module=__name__,
)
