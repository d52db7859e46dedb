"""The core of the Riftbound rule set: the chain and the turn around it, whatever the cards
(Riftbound Core Rules v1.3, 2026-03-30; cited ``RB 337.1.b``).

What the core models, with the rules each part follows:

* the chain (325-340): one chain (330); a card or ability goes on it as a *pending* item (329),
  which closes the state (331); its controller makes its choices, pays its cost and checks its
  legality, and it is *finalized* (337); pending items finalize oldest first (337.1.b), and
  finalizing passes no priority (337.1.a); units, gear and Add abilities resolve the moment they
  are finalized (337.1.c, 400.2); otherwise the controller of the newest item gains priority
  (337, execute: 338); after consecutive passes the newest item resolves (339, 340), then the
  controller of the newest remaining item gains priority;
* HOT FEPR (334-335): outstanding tasks come first, before each finalization, priority and
  resolution: triggers that wait go on the chain (383.3), then the outstanding cleanup runs;
* the three meanings of "play" (the Unleashed FAQ), kept apart: *as a verb*, a card is put on
  the chain (the rules ``play`` and the cards' "play a card" instructions); *in trigger
  conditions*, a card was played when its resolution completed the act of playing (419.4; for a
  permanent, when it was finalized and entered the board, 383.4.a): the ``played`` hook, which
  a countered card never reaches (425.1.b); *in other checks* such as Legion (812.1.c), a card
  was played once it was finalized: the field ``finals``;
* costs: energy from the rune pool, paid at finalization (337, 357) and never refunded when the
  card is countered (425.1.c); the pool empties at 315.4.d and in the expiration step (317.2);
* Open and Closed states (307-310): Closed while a chain exists (an item on it, resolving, or a
  trigger waiting to join it); in a Closed state only Reaction cards and abilities may be played
  (309.1.a), in a Showdown only Action and Reaction (308.1.a), otherwise only on your own turn in
  a Neutral Open state (310.1.a);
* triggers (383, 401): a trigger that fires waits until nothing resolves (401.2, 354.3), then
  goes on the chain as a pending item; simultaneous ones go the turn player's first, then the
  other players' in turn order, each player ordering their own (383.3.d, :mod:`turnproof.model.
  kit.waiting`); a triggered ability with no legal choice is removed as it is finalized, which
  is not countering (402.3, 402.3.a);
* cleanups (318-324): a flag says a cleanup is outstanding (319: after a pending item is added,
  an item is finalized or leaves the chain, an Open/Closed or phase transition, a move); none
  runs while something resolves (321) or before a finalization is done, and nothing resolves or
  is finalized while one is outstanding (320); a cleanup performs Deathknell triggers and kills
  lethally damaged units (323.3) and starts a staged showdown in a Neutral Open state (323.6,
  323.8); cleanups repeat until one changes nothing (322);
* showdowns and Focus (341-348): the turn player contests a battlefield in the main phase
  (344), the next cleanup starts the showdown and the contester gains Focus (345), which grants
  priority in the showdown's Open state (313); when a chain empties the state is Open and Focus
  passes to the next player (346), unless a triggered or an Add ability opened the chain
  (346.1); the showdown ends when all players pass Focus in succession (347, 348);
* the turn, reduced to what the chain and the ending phase need: the start of a turn (315:
  awaken, draw, and once its chain is done the pools empty, 315.4.d), the main phase (316), and the ending phase (317): the ending
  step's "at the end of turn" abilities (317.1), then the expiration step (317.2), whose special
  cleanup heals every unit, ends the "this turn" effects and empties the rune pools; if any item
  went through FEPR during it, the step starts over (317.2.f), the analogue of MTG 514.3a.

Everything a card does is its pack's (``model/riftbound/cards/``): the core calls the cards
through hooks (:data:`HOOKS`) and resets their fields by duration (:data:`DURATIONS`), and reads
what each object kind is from its traits and stats (:data:`TRAITS`, :data:`STATS`).

Abstractions: the permanents the cards put in play are the only objects on the board (no
battlefields to hold, no combat, no scores); a battlefield is contested by a move that the model
does not follow further (the showdown that follows is not a combat: 459's combat chain is not
modelled); each player's hand is a number of cards besides the permanents the model follows one
by one; costs are energy only (runes are channelled by cards; a rune pack's Add ability fills the
pool); a player is offered only the plays that will pass their legality check (a payable cost, a
legal choice), since nothing between playing a card and finalizing it changes them here, so
358.4's undo (a rule of its own, which keeps finalization total) fires only for a card an
instruction puts on the chain; a player plays at most ``actions`` cards a turn (a bound); the first modelled turn begins in its
main phase; when an instruction plays "a unit from your hand", the first such unit (in card order)
is played.

The expiration step's repetitions are not counted: a flag says whether an item went through FEPR
in the current run of the step, so an expiration step that starts over forever is a cycle, which
the termination checks find (as with Magic's cleanup steps).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import IntEnum
from functools import cache
from typing import Any, NamedTuple, Protocol

from turnproof.model.kit.fields import const as _const
from turnproof.model.kit.fields import counts, each, hands, item_record, items, per_player
from turnproof.model.kit.players import active, is_one_of, next_player
from turnproof.model.kit.players import terminal as terminal  # the core's, re-exported
from turnproof.model.kit.stack import lowest_index, newest_controller, push
from turnproof.model.kit.waiting import fire as fire_into
from turnproof.model.kit.waiting import take
from turnproof.model.packs import Card, Field, KindSpec, Pack, hooks, resolution_name
from turnproof.model.packs import kinds as kinds  # what the cards read, re-exported
from turnproof.model.rules import Bounds, BoundSpec, Kind, Rule, rule
from turnproof.model.schema import (
    ArrayDomain,
    BoolDomain,
    EnumDomain,
    IntRange,
    RecordDomain,
    Term,
)

RB_VERSION = "Riftbound Core Rules v1.3 (2026-03-30)"


class Phase(IntEnum):
    START = 0  # the start of a turn (315): awaken, beginning, channel, draw
    MAIN = 1  # the main phase (316)
    END_STEP = 2  # the ending phase's ending step (317.1)
    EXPIRATION = 3  # the ending phase's expiration step (317.2)


class Stage(IntEnum):
    """Where the game is within the phase or step."""

    BEGIN = 0  # the phase or step has just begun: its turn-based actions come first
    TASKS = 1  # HOT FEPR: outstanding tasks, then finalization, then who gains priority
    OPEN = 2  # an Open state in the main phase: ``prio`` (the turn player, or Focus) may act
    PRIORITY = 3  # a Closed state: ``prio`` has priority (338 execute, 339 pass)
    RESOLVING = 4  # ``res`` resolves: its instructions are next (340)
    RESOLVED = 5  # ``res`` has followed its instructions; it finishes next (419.4)


class Opener(IntEnum):
    """What opened the chain that exists now (346.1)."""

    NONE = 0  # no chain since the state was last Open
    CARD = 1  # a card was played
    ABILITY = 2  # a triggered or an Add ability was added


class Zone(IntEnum):
    """Where a permanent card is."""

    HAND = 0
    CHAIN = 1
    BOARD = 2
    TRASH = 3


class Contest(IntEnum):
    """The turn player's contest of a battlefield this turn (344)."""

    NONE = 0
    STAGED = 1  # a showdown is staged; the next cleanup starts it (323.6, 323.8)
    DONE = 2


class Item(NamedTuple):
    """A chain item or a waiting trigger: its controller, what it is (a kind of the composed
    rule set), whether it is finalized (329: pending until its controller has made its choices,
    paid and checked its legality), and its target (0: none; a permanent's slot + 1, or, for an
    item that targets a spell, the chain position + 1), chosen as it is finalized."""

    ctrl: Any
    what: Any
    fin: Any
    tgt: Any


NO_ITEM = Item(0, 0, False, 0)


class Perm(NamedTuple):
    """A permanent card the model follows: its zone and the damage marked on it."""

    zone: Any
    dmg: Any


class RbState(Protocol):
    """The core's fields, for reading rules (the composed state class also has the cards')."""

    turn: Term
    phase: Term
    stage: Term
    prio: Term
    passes: Term
    showdown: Term
    focus: Term
    opener: Term
    tasks: Term
    contest: Term
    fepr: Term
    chain: Any
    waiting: Any
    res: Any
    hand: Any
    pool: Any
    used: Any
    finals: Any
    perm: Any

    def replace(self, **changes: Any) -> Any: ...


#: The points of the rules where a card's pack is called: ``fn(s, x, b, me=card, **keywords)``
#: with the keywords each doc names.
HOOKS = {
    "awaken": "a turn starts (315.1): keyword p, the turn player; returns the state (what readies)",
    "draw": "a player drew: keywords p, count; returns the state (triggers)",
    "played": "a player finished playing a card (419.4: it resolved; a permanent: it was "
    "finalized and entered the board, 383.4.a): keywords p, what; returns the state (play "
    "triggers)",
    "dies": "a permanent dies in a cleanup (323.3): keywords slot, cond (it dies where cond "
    "holds); returns the state (Deathknell)",
    "end_of_turn": "the ending step begins (317.1): keyword p, the turn player; returns the "
    "state ('at the end of turn' triggers)",
    "expire": "the expiration step's special cleanup (317.2): 'this turn' effects expire; "
    "keyword t (the state being built); returns it (triggers)",
    "might": "what the card adds to a unit's Might: keyword slot; returns a number",
}

#: How long a card's field lasts before the core resets it, and where.
DURATIONS = {
    "expiration": "'this turn' effects: expire in the expiration step's special cleanup (317.2)",
    "turn": "counted this turn: starts afresh as the next turn begins (315)",
}

#: What the core reads about an object kind (its traits).
TRAITS = {
    "card": "a card, not an ability: it counts for Legion when finalized (812.1.c), and its "
    "resolution completes an act of playing (419.4)",
    "spell": "a spell: it stays on the chain when finalized and resolves after the passes (340)",
    "unit": "a unit: a permanent that resolves as it is finalized (337.1.c) and can be damaged",
    "gear": "a gear: a permanent that resolves as it is finalized (337.1.c)",
    "add": "an Add ability: it resolves as it is finalized (337.1.c, 400.2); a chain it opens "
    "keeps Focus (346.1)",
    "trigger": "a triggered ability (383); a chain it opens keeps Focus (346.1)",
    "play-trigger": "a triggered ability whose condition is a play (419.4)",
    "action": "may be played in a Showdown (806)",
    "reaction": "may be played in a Closed state, and in a Showdown (813)",
    "targets-unit": "chooses a unit as it is finalized (355)",
    "targets-enemy-unit": "chooses a unit its controller does not control as it is finalized",
    "targets-spell": "chooses a finalized spell on the chain as it is finalized",
}

#: What the core reads about an object kind (its numbers).
STATS = {
    "cost": "the energy its controller pays as it is finalized (356, 357)",
    "might": "a unit's Might: damage at least its Might is lethal (323.3)",
}

#: The traits of items that resolve the moment they are finalized (337.1.c).
IMMEDIATE = ("unit", "gear", "add")
#: The traits of items that choose a target as they are finalized.
TARGETING = ("targets-unit", "targets-enemy-unit", "targets-spell")

#: The citations of the rules that finalize an item (or remove it as it is finalized).
FINALIZING = ("RB 337.1.b", "RB 337.1.c", "RB 402.3")


# -- the permanents the cards put in play -------------------------------------------------------


@dataclass(frozen=True)
class Slot:
    """A permanent card in play: its kind, its controller, whether it is a unit (gear is not),
    its Might and its card. The core's ``perm`` field holds one entry per slot."""

    kind: int
    ctrl: int
    unit: bool
    might: int
    card: Card


@cache
def _slots(setup: Any) -> tuple[Slot, ...]:
    out = []
    for value in sorted(set(setup.kinds_with("unit")) | set(setup.kinds_with("gear"))):
        card = setup.owners[value]
        if card.controller is None:  # pragma: no cover - packs of permanents set each=False
            raise ValueError(f"{card.name} is a permanent: it needs a controller")
        out.append(
            Slot(
                value,
                card.controller,
                setup.has_trait(value, "unit"),
                setup.stat(value, "might"),
                card,
            )
        )
    return tuple(out)


def slots(b: Bounds) -> tuple[Slot, ...]:
    """The permanents in play, in kind order."""
    return _slots(b.setup)


def slot_of(b: Bounds, kind: int) -> int:
    """The slot of the permanent of kind ``kind``."""
    return next(i for i, sl in enumerate(slots(b)) if sl.kind == kind)


def _slot_count(b: Bounds) -> int:
    return max(1, len(slots(b)))  # an array has an entry; with no permanent it is unused


def _first_zone(card: Card) -> Zone:
    zone = card.zone or card.pack.zones[0]
    return Zone.BOARD if zone == "board" else Zone.HAND


def _initial_perm(b: Bounds) -> tuple[Perm, ...]:
    made = tuple(Perm(_first_zone(sl.card), 0) for sl in slots(b))
    return made or (Perm(Zone.TRASH, 0),)


# -- the core's state ---------------------------------------------------------------------------


def item_domain(b: Bounds) -> RecordDomain:
    return item_record(Item, b, fin=BoolDomain(), tgt=IntRange(0, max(_slot_count(b), b.chain)))


def perm_domain(b: Bounds) -> RecordDomain:
    return RecordDomain(Perm, {"zone": EnumDomain(Zone), "dmg": IntRange(0, b.damage)})


def _player(b: Bounds) -> IntRange:
    return IntRange(0, b.players - 1)


FIELDS = (
    Field("turn", lambda b: IntRange(0, b.turns), "turns played so far", _const(0)),
    Field("phase", EnumDomain(Phase), "the current phase or step", _const(Phase.MAIN)),
    Field("stage", EnumDomain(Stage), "where the game is within it", _const(Stage.BEGIN)),
    Field("prio", _player, "who has priority (in an Open state: who may act)", _const(0)),
    Field(
        "passes",
        lambda b: IntRange(0, b.players - 1),
        "players who passed priority (or Focus) in succession",
        _const(0),
    ),
    Field("showdown", BoolDomain(), "a Showdown state (307), not Neutral", _const(False)),
    Field("focus", _player, "who has Focus in a showdown (313)", _const(0)),
    Field(
        "opener",
        EnumDomain(Opener),
        "what opened the chain that exists now (346.1)",
        _const(Opener.NONE),
    ),
    Field("tasks", BoolDomain(), "a cleanup is outstanding (319)", _const(False)),
    Field(
        "contest",
        EnumDomain(Contest),
        "the turn player's contest of a battlefield this turn (344)",
        _const(Contest.NONE),
        ends="turn",
    ),
    Field(
        "fepr",
        BoolDomain(),
        "an item went through FEPR since this run of the expiration step began (317.2.f)",
        _const(False),
    ),
    items("chain", item_domain, "chain", "the chain, oldest first (328-331)"),
    items(
        "waiting",
        item_domain,
        "waiting",
        "triggers waiting to go on the chain while something resolves (401.2)",
    ),
    Field("res", item_domain, "the item resolving (340)", _const(NO_ITEM)),
    hands("cards in each player's hand besides the permanents"),
    counts("pool", "energy", "the energy in each player's rune pool (315.4.d, 317.2)"),
    counts(
        "used",
        "actions",
        "cards each player has played this turn (the verb: put on the chain)",
        ends="turn",
    ),
    Field(
        "finals",
        per_player(IntRange(0, 2)),
        "cards each player has had finalized this turn, 2 meaning two or more (812.1.c)",
        each(0),
        ends="turn",
    ),
    Field(
        "perm",
        lambda b: ArrayDomain(perm_domain(b), _slot_count(b)),
        "the permanent cards in play, by slot: zone and damage",
        _initial_perm,
    ),
)

KINDS = (KindSpec("NONE", "no item"),)

BOUNDS = (
    BoundSpec("players", 2, 2, 3, "number of players"),
    BoundSpec("turns", 2, 1, 6, "turns played; the state with turn == turns is terminal"),
    BoundSpec("chain", 3, 1, 6, "chain capacity"),
    BoundSpec("waiting", 2, 1, 6, "capacity for triggers waiting to go on the chain"),
    BoundSpec("hand_cap", 3, 1, 8, "the most cards a hand can hold in the model"),
    BoundSpec("hand0", 1, 0, 8, "cards in the first player's opening hand"),
    BoundSpec("hand1", 1, 0, 8, "cards in the other players' opening hands"),
    BoundSpec("actions", 2, 0, 4, "cards a player may play a turn"),
    BoundSpec("energy", 1, 0, 3, "the most energy a rune pool holds"),
    BoundSpec("damage", 5, 1, 6, "the most damage marked on a permanent"),
    BoundSpec("effects", 2, 1, 3, "the most 'this turn' effects of one card counted at once"),
)


# -- helpers shared by the rules and the cards ---------------------------------------------------


def is_kind(x: Any, what: Term, trait: str, b: Bounds) -> Term:
    """The kind ``what`` has ``trait``."""
    return is_one_of(x, what, *b.setup.kinds_with(trait))


def is_any(x: Any, what: Term, traits: Sequence[str], b: Bounds) -> Term:
    """The kind ``what`` has one of ``traits``."""
    values = sorted({v for t in traits for v in b.setup.kinds_with(t)})
    return is_one_of(x, what, *values)


def stat(x: Any, what: Term, name: str, b: Bounds) -> Term:
    """The stat ``name`` of the kind ``what`` (0 for kinds that give none)."""
    total: Term = 0
    for k, given in sorted(b.setup.stats.items()):
        value = given.get(name, 0)
        if value:
            total = x.If(what == k, value, total)
    return total


def closed(s: RbState, x: Any) -> Term:
    """A Closed state (331): a chain exists: an item on it or resolving, or a trigger waiting
    to join it."""
    return x.Or(
        x.Not(x.seq_is_empty(s.chain)),
        x.Not(x.seq_is_empty(s.waiting)),
        is_one_of(x, s.stage, Stage.RESOLVING, Stage.RESOLVED),
    )


def pending_index(x: Any, s: RbState, order: str = "oldest") -> tuple[Term, Term]:
    """Whether an item is pending, and the index of the one to finalize: the oldest (337.1.b;
    ``order="newest"`` is the wrong order of a mutant)."""
    pending = lambda it: x.Not(it.fin)  # noqa: E731
    if order == "oldest":
        return lowest_index(x, s.chain, pending)
    found, out = x.seq_any(s.chain, pending), len(s.chain.slots)
    for k in range(len(s.chain.slots)):
        out = x.If(x.And(s.chain.length > k, x.Not(s.chain.slots[k].fin)), k, out)
    return found, out


def has_pending(s: RbState, x: Any) -> Term:
    return x.seq_any(s.chain, lambda it: x.Not(it.fin))


def might(s: RbState, x: Any, b: Bounds, k: int) -> Term:
    """The Might of the unit in slot ``k``: its card's, plus what the cards add."""
    total: Term = slots(b)[k].might
    for f in hooks(b, "might"):
        total = total + f(s, x, b, slot=k)
    return total


def on_board(s: RbState, k: int) -> Term:
    return s.perm[k].zone == Zone.BOARD


def lethal(s: RbState, x: Any, b: Bounds, k: int) -> Term:
    """323.3: a unit on the board with damage at least its Might."""
    if not slots(b) or not slots(b)[k].unit:
        return False
    return x.And(on_board(s, k), s.perm[k].dmg >= might(s, x, b, k))


def legal_target(s: RbState, x: Any, b: Bounds, it: Item, t: int) -> Term:
    """``t`` is a legal choice for the item ``it`` (355): a unit on the board, one its
    controller does not control, or a finalized spell on the chain."""
    options = []
    for k, sl in enumerate(slots(b)):
        if k != t or not sl.unit:
            continue
        here = on_board(s, k)
        options.append(x.And(is_kind(x, it.what, "targets-unit", b), here))
        options.append(
            x.And(is_kind(x, it.what, "targets-enemy-unit", b), here, it.ctrl != sl.ctrl)
        )
    if t < len(s.chain.slots):
        target = s.chain.slots[t]
        options.append(
            x.And(
                is_kind(x, it.what, "targets-spell", b),
                s.chain.length > t,
                target.fin,
                is_kind(x, target.what, "spell", b),
            )
        )
    return x.Or(*options)


def any_legal_target(s: RbState, x: Any, b: Bounds, it: Item) -> Term:
    return x.Or(*(legal_target(s, x, b, it, t) for t in range(target_count(b))))


def target_count(b: Bounds) -> int:
    """The positions a target can name: the permanents' slots, or the chain's."""
    return max(_slot_count(b), b.chain)


def fire(s: RbState, x: Any, b: Bounds, cond: Term, ctrl: Term, what: int) -> Any:
    """A trigger fires: it waits to join the chain (401.2, 383.3). Fired in an Open state, it
    opens a chain (346.1)."""
    opens = x.And(cond, x.Not(closed(s, x)))
    return s.replace(
        waiting=fire_into(x, s.waiting, cond, Item(ctrl, what, False, 0)),
        opener=x.If(opens, Opener.ABILITY, s.opener),
    )


def draw(s: RbState, x: Any, b: Bounds, p: Term, count: Term = 1) -> Any:
    """Player ``p`` draws ``count`` cards; the cards that watch draws trigger."""
    x.within(x.get(s.hand, p) + count <= b.hand_cap, "hand_cap")
    t = s.replace(hand=x.set(s.hand, p, x.get(s.hand, p) + count))
    for f in hooks(b, "draw"):
        t = f(t, x, b, p=p, count=count)
    return t


def deal(s: RbState, x: Any, b: Bounds, tgt: Term, n: int) -> Any:
    """``n`` damage to the unit in slot ``tgt - 1``, if it is still on the board (an illegal
    target's instruction is skipped, 359.3.e)."""
    perm = s.perm
    for k, sl in enumerate(slots(b)):
        if not sl.unit:
            continue
        hit = x.And(tgt == k + 1, on_board(s, k))
        now = perm[k].dmg
        x.within(x.Or(x.Not(hit), now + n <= b.damage), "damage")
        perm = x.set(perm, k, Perm(perm[k].zone, x.If(hit, now + n, now)))
    return s.replace(perm=perm)


def add_effect(x: Any, v: Term, b: Bounds) -> Term:
    """One more 'this turn' effect: at most ``effects`` are counted (a bound)."""
    x.within(v + 1 <= b.effects, "effects")
    return v + 1


def played(s: RbState, x: Any, b: Bounds, p: Term, what: Term) -> Any:
    """Player ``p`` finished playing a card of kind ``what``: the play triggers fire (419.4)."""
    for f in hooks(b, "played"):
        s = f(s, x, b, p=p, what=what)
    return s


def enters(s: RbState, x: Any, b: Bounds, *, me: Any) -> Any:
    """the permanent enters the board (359)"""
    k = next(i for i, sl in enumerate(slots(b)) if sl.card.key == me.key)
    return s.replace(perm=x.set(s.perm, k, Perm(Zone.BOARD, 0)))


def play_from_hand(s: RbState, x: Any, b: Bounds, p: Term, trait: str) -> Any:
    """An instruction plays a card of ``trait`` from player ``p``'s hand (the verb 'play': it
    goes on the chain as a pending item, and waits for the resolution to finish before its
    choices, cost and legality; the permission is the instruction's: its cost is ignored). The
    first such permanent in card order; none: the instruction does nothing."""
    t = s
    done: Term = False
    for k, sl in enumerate(slots(b)):
        if not b.setup.has_trait(sl.kind, trait):
            continue
        here = x.And(x.Not(done), sl.ctrl == p, s.perm[k].zone == Zone.HAND)

        def go(u: Any, k: int = k, sl: Slot = sl) -> Any:
            return u.replace(
                chain=push(x, u.chain, Item(sl.ctrl, sl.kind, False, 0), "chain"),
                perm=x.set(u.perm, k, Perm(Zone.CHAIN, 0)),
            )

        t = x.when(here, go, t)
        done = x.Or(done, here)
    return t


def remove_item(x: Any, b: Bounds, chain: Any, i: Term) -> Any:
    """``chain`` without item ``i``; the items above it move down, and a target that named a
    chain position follows its item (one that named item ``i`` is now illegal)."""
    shifted = x.seq_remove(chain, i)
    slots_ = []
    for it in shifted.slots:
        names_chain = is_kind(x, it.what, "targets-spell", b)
        above = x.And(names_chain, it.tgt > i + 1)
        gone = x.And(names_chain, it.tgt == i + 1)
        tgt = x.If(gone, 0, x.If(above, it.tgt - 1, it.tgt))
        slots_.append(Item(it.ctrl, it.what, it.fin, tgt))
    return type(shifted)(shifted.length, tuple(slots_))


def spend(s: RbState, x: Any, b: Bounds, it: Item) -> Any:
    """Its controller pays the item's cost from their rune pool (356, 357: it must be payable,
    358), and a card counts as played for Legion's sake from now on (812.1.c)."""
    cost = stat(x, it.what, "cost", b)
    have = x.get(s.pool, it.ctrl)
    x.require(have >= cost)
    card = is_kind(x, it.what, "card", b)
    count = x.get(s.finals, it.ctrl)
    return s.replace(
        pool=x.set(s.pool, it.ctrl, have - cost),
        finals=x.set(s.finals, it.ctrl, x.If(card, x.Min(count + 1, 2), count)),
    )


def went_through(s: RbState, x: Any) -> Any:
    """An item went through FEPR: a cleanup is outstanding (319), and in the expiration step
    the step will start over (317.2.f)."""
    return s.replace(tasks=True, fepr=x.Or(s.fepr, s.phase == Phase.EXPIRATION))


def prio(s: RbState, x: Any, b: Bounds, **_: Any) -> Term:
    """the player with priority"""
    return s.prio


def turn_player(s: RbState, x: Any, b: Bounds, **_: Any) -> Term:
    """the turn player"""
    return active(s, b)


def _pending_controller(s: RbState, x: Any, b: Bounds, **_: Any) -> Term:
    """the controller of the oldest pending item"""
    _, i = pending_index(x, s)
    return x.seq_get(s.chain, i).ctrl


def _waiting_controller(s: RbState, x: Any, b: Bounds, i: int) -> Term:
    """the trigger's controller"""
    return x.seq_get(s.waiting, i).ctrl


def activate(s: RbState, x: Any, b: Bounds, what: int) -> Any:
    """The player with priority (or, in an Open state, who may act) activates an ability of a
    card: it goes on the chain as a pending item (338); an Add ability opens a chain that keeps
    Focus (346.1). It is Reaction-speed when its kind says so (``timing_ok``)."""
    p = s.prio
    x.require(timing_ok(s, x, b, what))
    opens = x.Not(closed(s, x))
    return s.replace(
        chain=push(x, s.chain, Item(p, what, False, 0), "chain"),
        opener=x.If(opens, Opener.ABILITY, s.opener),
        stage=Stage.TASKS,
        tasks=True,
        passes=0,
    )


def timing_ok(s: RbState, x: Any, b: Bounds, what: Term, closed_timing: bool = True) -> Term:
    """A card or ability of kind ``what`` may be played now: in a Closed state only a Reaction
    (309.1.a); in a Showdown only an Action or a Reaction (308.1.a); otherwise, in a Neutral
    Open state, by the turn player (310.1.a), who is then the one who may act."""
    reaction = is_kind(x, what, "reaction", b)
    fast = x.Or(reaction, is_kind(x, what, "action", b))
    opened = x.If(s.showdown, fast, True)
    if not closed_timing:  # a mutant: the Closed state is ignored
        return opened
    return x.If(s.stage == Stage.PRIORITY, reaction, opened)


# -- the start of a turn and its phases ---------------------------------------------------------


@rule(
    "RB 315",
    "a turn starts: the turn player's things ready (awaken, 315.1), and they draw a card (315.4); "
    "the phase transitions make a cleanup outstanding",
    kind=Kind.TURN_BASED,
    when={"stage": Stage.BEGIN},
)
def start_turn(s: RbState, x: Any, b: Bounds) -> Any:
    x.require(s.phase == Phase.START)
    x.require(s.turn < b.turns)  # the last turn played has ended: the game is over
    a = active(s, b)
    t = s
    for f in hooks(b, "awaken"):
        t = f(t, x, b, p=a)
    return draw(t, x, b, a).replace(stage=Stage.TASKS, tasks=True)


@rule(
    "RB 315.4.d",
    "the start of the turn is done (its chain resolved, nothing outstanding): the rune pools "
    "empty and the main phase begins",
    kind=Kind.GAME,
    when={"stage": Stage.TASKS},
)
def beginning_ends(s: RbState, x: Any, b: Bounds) -> Any:
    x.require(s.phase == Phase.START)
    _quiet(s, x)
    return s.replace(pool=(0,) * b.players, phase=Phase.MAIN, stage=Stage.BEGIN)


@rule(
    "RB 316",
    "the main phase begins: the phase transition makes a cleanup outstanding (319)",
    kind=Kind.TURN_BASED,
    when={"stage": Stage.BEGIN},
)
def main_begins(s: RbState, x: Any, b: Bounds) -> Any:
    x.require(s.phase == Phase.MAIN)
    return s.replace(stage=Stage.TASKS, tasks=True)


@rule(
    "RB 317.1",
    "the ending step begins: 'at the end of turn' abilities trigger",
    kind=Kind.TURN_BASED,
    when={"stage": Stage.BEGIN},
)
def ending_step_begins(s: RbState, x: Any, b: Bounds) -> Any:
    x.require(s.phase == Phase.END_STEP)
    t = s
    for f in hooks(b, "end_of_turn"):
        t = f(t, x, b, p=active(s, b))
    return t.replace(stage=Stage.TASKS, tasks=True)


@rule(
    "RB 317.2",
    "the expiration step begins with the ending special cleanup: every unit heals, 'this turn' "
    "effects expire together, the rune pools empty; a normal cleanup follows (324.2)",
    kind=Kind.TURN_BASED,
    when={"stage": Stage.BEGIN},
)
def expiration_begins(s: RbState, x: Any, b: Bounds) -> Any:
    x.require(s.phase == Phase.EXPIRATION)
    perm = tuple(Perm(p.zone, 0) for p in s.perm)
    t = s.replace(perm=perm, pool=(0,) * b.players)
    t = b.setup.reset(t, "expiration", b)
    for f in hooks(b, "expire"):
        t = f(s, x, b, t=t)
    return t.replace(stage=Stage.TASKS, tasks=True)


# -- HOT FEPR: what happens before anyone gets priority -----------------------------------------


@rule(
    "RB 383.3.d",
    "a waiting trigger goes on the chain as a pending item: the turn player's first, then the "
    "others' in turn order, each player ordering their own",
    kind=Kind.TRIGGER,
    decider=_waiting_controller,
    params={"i": lambda b: range(b.waiting)},
    when={"stage": Stage.TASKS},
)
def stack_trigger(s: RbState, x: Any, b: Bounds, i: int, *, order: str = "turn-order") -> Any:
    item = take(x, s.waiting, i, active(s, b), b.players, order)
    return s.replace(
        chain=push(x, s.chain, item, "chain"),
        waiting=x.seq_remove(s.waiting, i),
        tasks=True,
    )


def _opening(s: RbState, x: Any) -> Term:
    """The chain has just emptied: the state is Open again (340), before anything else."""
    return x.And(x.Not(closed(s, x)), s.opener != Opener.NONE)


@rule(
    "RB 346",
    "the chain has emptied: the state is Open; in a showdown Focus passes to the next player, "
    "unless a triggered or an Add ability opened the chain (346.1)",
    kind=Kind.GAME,
    when={"stage": Stage.TASKS},
)
def becomes_open(s: RbState, x: Any, b: Bounds, *, focus: str = "346") -> Any:
    x.require(_opening(s, x))
    if focus == "346":
        passes = x.And(s.showdown, s.opener == Opener.CARD)
    else:  # a mutant: 346.1 ignored, Focus always passes
        passes = s.showdown
    return s.replace(
        focus=x.If(passes, next_player(s.focus, b.players), s.focus),
        opener=Opener.NONE,
        tasks=True,
    )


def _ready(s: RbState, x: Any) -> Term:
    """Nothing waits to join the chain and the state is not due to become Open."""
    return x.And(x.seq_is_empty(s.waiting), x.Not(_opening(s, x)))


@rule(
    "RB 322",
    "a cleanup runs: Deathknells trigger and lethal units die (323.3), a staged showdown starts "
    "(323.8, 345); if it changed anything, another is outstanding",
    kind=Kind.GAME,
    when={"stage": Stage.TASKS},
)
def cleanup(s: RbState, x: Any, b: Bounds, *, repeat: str = "on-change") -> Any:
    x.require(s.tasks)
    x.require(_ready(s, x))
    t = s
    perm = s.perm
    died: list[Term] = []
    for k in range(len(slots(b))):
        dies = lethal(s, x, b, k)
        for f in hooks(b, "dies"):
            t = f(t, x, b, slot=k, cond=dies)
        perm = x.set(perm, k, x.If(dies, Perm(Zone.TRASH, 0), perm[k]))
        died.append(dies)
    starts = x.And(
        s.contest == Contest.STAGED,
        x.Not(s.showdown),
        x.Not(closed(s, x)),
        s.phase == Phase.MAIN,
    )
    changed = x.Or(starts, *died)
    return t.replace(
        perm=perm,
        showdown=x.Or(s.showdown, starts),
        focus=x.If(starts, active(s, b), s.focus),
        contest=x.If(starts, Contest.DONE, s.contest),
        tasks=changed if repeat == "on-change" else True,
    )


def _finalizable(s: RbState, x: Any, order: str = "oldest", after_tasks: bool = True) -> Any:
    """HOT FEPR has reached finalization: the item to finalize, and its index."""
    if after_tasks:
        x.require(x.Not(s.tasks))
    x.require(_ready(s, x))
    found, i = pending_index(x, s, order)
    x.require(found)
    return i, x.seq_get(s.chain, i)


@rule(
    "RB 337.1.b",
    "the oldest pending item, which has no choice to make, is finalized: its controller pays its "
    "cost (357) and it is legal (358); a spell or ability stays on the chain; finalizing passes "
    "no priority (337.1.a)",
    kind=Kind.GAME,
    when={"stage": Stage.TASKS},
)
def finalize(
    s: RbState,
    x: Any,
    b: Bounds,
    *,
    order: str = "oldest",
    after_tasks: bool = True,
    immediate: bool = True,
    played_at: str = "resolution",
) -> Any:
    i, it = _finalizable(s, x, order, after_tasks)
    x.require(x.Not(is_any(x, it.what, TARGETING, b)))
    if immediate:
        x.require(x.Not(is_any(x, it.what, IMMEDIATE, b)))
    t = spend(s, x, b, it)
    t = t.replace(chain=_finalized(x, t.chain, i, it, 0))
    if played_at == "finalization":  # a mutant: a trigger condition reads 'play' as finalize
        t = x.when(is_kind(x, it.what, "spell", b), lambda u: played(u, x, b, it.ctrl, it.what), t)
    return went_through(t, x)


def _finalized(x: Any, chain: Any, i: Term, it: Item, tgt: Term) -> Any:
    """``chain`` with item ``i`` finalized, with its target."""
    done = Item(it.ctrl, it.what, True, tgt)
    slots_ = tuple(x.If(i == k, done, slot) for k, slot in enumerate(chain.slots))
    return type(chain)(chain.length, slots_)


@rule(
    "RB 337.1.b",
    "the oldest pending item's controller makes its choice (355: its target), pays its cost "
    "(357), and it is finalized",
    kind=Kind.CHOICE,
    decider=_pending_controller,
    params={"t": lambda b: range(target_count(b))},
    when={"stage": Stage.TASKS},
)
def finalize_choosing(s: RbState, x: Any, b: Bounds, t: int, *, legal: bool = True) -> Any:
    i, it = _finalizable(s, x)
    x.require(is_any(x, it.what, TARGETING, b))
    if legal:  # a mutant: any target at all
        x.require(legal_target(s, x, b, it, t))
    u = spend(s, x, b, it)
    return went_through(u.replace(chain=_finalized(x, u.chain, i, it, t + 1)), x)


@rule(
    "RB 402.3",
    "the oldest pending item is a triggered ability with no legal choice: it leaves the chain as "
    "it is finalized, which is not countering (402.3.a)",
    kind=Kind.GAME,
    when={"stage": Stage.TASKS},
)
def remove_without_choice(s: RbState, x: Any, b: Bounds, *, checked: bool = True) -> Any:
    i, it = _finalizable(s, x)
    x.require(is_any(x, it.what, TARGETING, b))
    x.require(x.Not(is_kind(x, it.what, "card", b)))
    if checked:  # a mutant's: removed whether or not it has a legal choice
        x.require(x.Not(any_legal_target(s, x, b, it)))
    return went_through(s.replace(chain=remove_item(x, b, s.chain, i)), x)


def passes_legality_check(s: RbState, x: Any, b: Bounds, it: Item) -> Term:
    """The item passes its legality check (358): its cost can be paid, and one that targets has
    a legal choice."""
    payable = x.get(s.pool, it.ctrl) >= stat(x, it.what, "cost", b)
    chooses = is_any(x, it.what, TARGETING, b)
    return x.And(payable, x.Implies(chooses, any_legal_target(s, x, b, it)))


@rule(
    "RB 358.4",
    "the oldest pending item is a card that fails its legality check (its cost cannot be paid, "
    "or it has no legal choice): everything is undone, and it returns to its owner's hand",
    kind=Kind.GAME,
    when={"stage": Stage.TASKS},
)
def undo_illegal(s: RbState, x: Any, b: Bounds) -> Any:
    i, it = _finalizable(s, x)
    x.require(is_kind(x, it.what, "card", b))
    x.require(x.Not(passes_legality_check(s, x, b, it)))
    t = s.replace(chain=remove_item(x, b, s.chain, i), tasks=True)
    perm, hand = t.perm, t.hand
    permanent: Term = False
    for k, sl in enumerate(slots(b)):
        mine = it.what == sl.kind
        permanent = x.Or(permanent, mine)
        perm = x.set(perm, k, x.If(mine, Perm(Zone.HAND, 0), perm[k]))
    back = x.get(hand, it.ctrl)
    x.within(x.Or(permanent, back + 1 <= b.hand_cap), "hand_cap")
    hand = x.set(hand, it.ctrl, x.If(permanent, back, back + 1))
    used = x.get(t.used, it.ctrl)
    # Undoing the card that alone made the state Closed undoes the chain it opened too: the
    # state is Open as before the play, and no chain emptied (346 does not pass Focus).
    opener = x.If(closed(t, x), s.opener, Opener.NONE)
    return t.replace(
        perm=perm, hand=hand, used=x.set(t.used, it.ctrl, x.Max(used - 1, 0)), opener=opener
    )


@rule(
    "RB 337",
    "nothing is pending: the controller of the newest item gains priority (338 execute)",
    kind=Kind.GAME,
    when={"stage": Stage.TASKS},
)
def gain_priority(s: RbState, x: Any, b: Bounds, *, after_finalizing: bool = True) -> Any:
    x.require(x.Not(s.tasks))
    x.require(_ready(s, x))
    x.require(x.Not(x.seq_is_empty(s.chain)))
    if after_finalizing:
        x.require(x.Not(has_pending(s, x)))
    return s.replace(stage=Stage.PRIORITY, prio=newest_controller(x, s.chain), passes=0)


def _quiet(s: RbState, x: Any) -> None:
    """No chain, no trigger waiting, no cleanup outstanding: the Open state's next step."""
    x.require(x.Not(s.tasks))
    x.require(x.Not(closed(s, x)))
    x.require(s.opener == Opener.NONE)


@rule(
    "RB 312",
    "an Open state in the main phase: the turn player may act (310.1.a), or in a showdown the "
    "player with Focus (313)",
    kind=Kind.GAME,
    when={"stage": Stage.TASKS},
)
def open_priority(s: RbState, x: Any, b: Bounds) -> Any:
    x.require(s.phase == Phase.MAIN)
    _quiet(s, x)
    return s.replace(stage=Stage.OPEN, prio=x.If(s.showdown, s.focus, active(s, b)), passes=0)


@rule(
    "RB 305",
    "the ending step ends when its chain is done and nothing is outstanding; the expiration "
    "step begins",
    kind=Kind.GAME,
    when={"stage": Stage.TASKS},
)
def end_step_ends(s: RbState, x: Any, b: Bounds) -> Any:
    x.require(s.phase == Phase.END_STEP)
    _quiet(s, x)
    return s.replace(phase=Phase.EXPIRATION, stage=Stage.BEGIN)


@rule(
    "RB 317.2.f",
    "items went through FEPR in this expiration step: it starts over",
    kind=Kind.GAME,
    when={"stage": Stage.TASKS},
)
def expiration_restarts(s: RbState, x: Any, b: Bounds, *, restart: str = "after-fepr") -> Any:
    x.require(s.phase == Phase.EXPIRATION)
    _quiet(s, x)
    if restart == "after-fepr":
        x.require(s.fepr)
    return s.replace(stage=Stage.BEGIN, fepr=False)


@rule(
    "RB 306",
    "nothing went through FEPR in the expiration step: the turn ends, and the next player's "
    "turn starts",
    kind=Kind.GAME,
    when={"stage": Stage.TASKS},
)
def turn_ends(s: RbState, x: Any, b: Bounds) -> Any:
    x.require(s.phase == Phase.EXPIRATION)
    _quiet(s, x)
    x.require(x.Not(s.fepr))
    t = s.replace(turn=s.turn + 1, phase=Phase.START, stage=Stage.BEGIN, passes=0)
    t = b.setup.reset(t, "turn", b)
    return t.replace(prio=active(t, b))


# -- the Open state: what the player who may act chooses ----------------------------------------


@rule(
    "RB 344",
    "the turn player contests a battlefield in a Neutral Open state (a move: a cleanup is "
    "outstanding, and it stages a showdown)",
    kind=Kind.CHOICE,
    decider=turn_player,
    when={"stage": Stage.OPEN},
)
def contest(s: RbState, x: Any, b: Bounds) -> Any:
    x.require(x.Not(s.showdown))
    x.require(s.contest == Contest.NONE)
    return s.replace(contest=Contest.STAGED, stage=Stage.TASKS, tasks=True)


@rule(
    "RB 348",
    "the player with Focus passes it; the next player in turn order gains Focus, and priority",
    kind=Kind.CHOICE,
    decider=prio,
    when={"stage": Stage.OPEN},
)
def pass_focus(s: RbState, x: Any, b: Bounds) -> Any:
    x.require(s.showdown)
    x.require(s.passes + 1 < b.players)
    nxt = next_player(s.focus, b.players)
    return s.replace(focus=nxt, prio=nxt, passes=s.passes + 1)


@rule(
    "RB 347",
    "all players passed Focus in succession: the showdown ends (a non-combat one: control and "
    "conquest, not modelled); the state is Neutral again",
    kind=Kind.CHOICE,
    decider=prio,
    when={"stage": Stage.OPEN},
)
def showdown_ends(s: RbState, x: Any, b: Bounds) -> Any:
    x.require(s.showdown)
    x.require(s.passes + 1 == b.players)
    return s.replace(showdown=False, passes=0, stage=Stage.TASKS, tasks=True)


@rule(
    "RB 305",
    "the turn player takes no more discretionary actions in a Neutral Open state: the main "
    "phase ends and the ending phase begins with its ending step",
    kind=Kind.CHOICE,
    decider=turn_player,
    when={"stage": Stage.OPEN},
)
def end_main(s: RbState, x: Any, b: Bounds) -> Any:
    x.require(x.Not(s.showdown))
    return s.replace(phase=Phase.END_STEP, stage=Stage.BEGIN)


@rule(
    "RB 349",
    "the player with priority (or who may act) plays a card: it goes on the chain as a pending "
    "item, which closes the state (331), if its timing allows it (310.1.a, 308.1.a, 309.1.a) and "
    "its cost can be paid",
    kind=Kind.CHOICE,
    decider=prio,
    params={"card": lambda b: b.setup.castable},
    when={"stage": (Stage.OPEN, Stage.PRIORITY)},
)
def play(
    s: RbState, x: Any, b: Bounds, card: int, *, closed_timing: bool = True, unpayable: bool = False
) -> Any:
    p = s.prio
    chosen = b.setup.cast[card]
    card, timing, owner = chosen.kind, chosen.timing, chosen.card
    x.require(x.get(s.used, p) < b.actions)
    x.require(owner.controls(p))
    x.require(timing_ok(s, x, b, card, closed_timing))
    if not unpayable:  # ``unpayable``: a mutant's, offering plays whose cost cannot be paid
        x.require(x.get(s.pool, p) >= b.setup.stat(card, "cost"))
    if timing is not None:
        x.require(timing(s, x, b, p))
    if any(b.setup.has_trait(card, tr) for tr in TARGETING):
        x.require(any_legal_target(s, x, b, Item(p, card, False, 0)))
    permanent = any(sl.kind == card for sl in slots(b))
    t = s
    if permanent:
        k = slot_of(b, card)
        x.require(s.perm[k].zone == Zone.HAND)
        t = t.replace(perm=x.set(t.perm, k, Perm(Zone.CHAIN, 0)))
    else:
        x.require(x.get(s.hand, p) > 0)
        t = t.replace(hand=x.set(t.hand, p, x.get(t.hand, p) - 1))
    opens = x.Not(closed(s, x))
    return t.replace(
        chain=push(x, t.chain, Item(p, card, False, 0), "chain"),
        used=x.set(t.used, p, x.get(t.used, p) + 1),
        opener=x.If(opens, Opener.CARD, s.opener),
        stage=Stage.TASKS,
        tasks=True,
        passes=0,
    )


# -- the Closed state: priority (338, 339) ------------------------------------------------------


@rule(
    "RB 339",
    "the player with priority passes; the next player in turn order gains priority (312)",
    kind=Kind.CHOICE,
    decider=prio,
    when={"stage": Stage.PRIORITY},
)
def pass_priority(s: RbState, x: Any, b: Bounds) -> Any:
    x.require(s.passes + 1 < b.players)
    return s.replace(prio=next_player(s.prio, b.players), passes=s.passes + 1)


@rule(
    "RB 340",
    "all players passed in succession without adding anything (339): the newest item resolves",
    kind=Kind.CHOICE,
    decider=prio,
    when={"stage": Stage.PRIORITY},
)
def pass_resolve(s: RbState, x: Any, b: Bounds, *, newest: bool = True) -> Any:
    x.require(s.passes + 1 == b.players)
    if newest:
        res, rest = x.seq_top(s.chain), x.seq_pop(s.chain)
    else:  # a mutant: the oldest item resolves
        res, rest = x.seq_get(s.chain, 0), remove_item(x, b, s.chain, 0)
    return s.replace(stage=Stage.RESOLVING, res=res, chain=rest, passes=0, prio=0)


# -- resolution (340) ---------------------------------------------------------------------------


def _with_effect(b: Bounds) -> tuple[int, ...]:
    """The kinds whose pack gives their resolution as a rule of the RESOLVING stage (not the
    units, gear and Add abilities, which resolve as they are finalized)."""
    return tuple(k for k in b.setup.resolving_kinds if not is_immediate_kind(b, k))


def is_immediate_kind(b: Bounds, kind: int) -> bool:
    """Kind ``kind`` resolves the moment it is finalized (337.1.c)."""
    return any(b.setup.has_trait(kind, t) for t in IMMEDIATE)


@rule(
    "RB 340",
    "the resolving item follows its instructions, which change nothing the turn structure looks "
    "at; anything that triggers meanwhile waits (401.2), and the cleanup it makes outstanding "
    "is queued (321)",
    kind=Kind.GAME,
    when={"stage": Stage.RESOLVING},
)
def resolve(s: RbState, x: Any, b: Bounds) -> Any:
    what = s.res.what
    x.require(x.And(*(what != k for k in _with_effect(b))))
    return s.replace(stage=Stage.RESOLVED, tasks=True)


def cites(citation: str) -> Any:
    """Give a card's resolution the rule it follows (``@cites("RB 812.1.c")``: Legion's check),
    which its rule then cites instead of the plain 340 (not for the items that resolve as they
    are finalized, whose rules cite 337.1.c: the properties know a finalization by it)."""

    def mark(fn: Any) -> Any:
        fn.citation = citation
        return fn

    return mark


def resolution(pack: Pack, spec: KindSpec, effect: Any, value: int) -> Rule:
    """The rule by which an item of a card's kind resolves, which the card's pack gives as
    ``effect`` (``fn(s, x, b, *, me, **clauses)``, reading the item as ``s.res``): a unit, a
    gear or an Add ability as it is finalized (337.1.c), anything else when the passes let it
    (340). Clauses bound into the rule (a mutant's) go to ``effect``."""

    told = (effect.__doc__ or "it follows its instructions").strip().splitlines()[0]
    own = getattr(effect, "citation", None)
    if any(t in spec.traits for t in IMMEDIATE):
        card = "card" in spec.traits

        @rule(
            "RB 337.1.c",  # what the properties and monitors know a finalization by
            f"{spec.doc} is finalized and resolves at once: {told}",
            kind=Kind.GAME,
            when={"stage": Stage.TASKS},
            name=resolution_name(spec.name),
        )
        def at_once(s: RbState, x: Any, b: Bounds, *, me: Any, **clauses: Any) -> Any:
            i, it = _finalizable(s, x)
            x.require(it.what == value)
            t = spend(s, x, b, it).replace(res=Item(it.ctrl, value, True, 0))
            t = effect(t, x, b, me=me, **clauses)
            if card:  # the act of playing is complete: its play effects trigger (383.4.a)
                t = played(t, x, b, it.ctrl, value)
            # Only now does it leave the chain: what it triggered joins the same chain.
            t = t.replace(chain=remove_item(x, b, t.chain, i), res=NO_ITEM)
            return went_through(t, x)

        return at_once

    @rule(
        own or "RB 340",
        f"{spec.doc} resolves: {told}; anything that triggers meanwhile waits (401.2), and the "
        "cleanup it makes outstanding is queued (321)",
        kind=Kind.GAME,
        when={"stage": Stage.RESOLVING},
        name=resolution_name(spec.name),
    )
    def resolves(s: RbState, x: Any, b: Bounds, *, me: Any, **clauses: Any) -> Any:
        x.require(s.res.what == value)
        return effect(s.replace(stage=Stage.RESOLVED, tasks=True), x, b, me=me, **clauses)

    return resolves


@rule(
    "RB 419.4",
    "the resolving item finishes and leaves the chain; for a card, the act of playing is "
    "complete and its play triggers fire",
    kind=Kind.GAME,
    when={"stage": Stage.RESOLVED},
)
def finish_resolving(s: RbState, x: Any, b: Bounds) -> Any:
    res = s.res
    t = x.when(is_kind(x, res.what, "card", b), lambda u: played(u, x, b, res.ctrl, res.what), s)
    return t.replace(res=NO_ITEM, stage=Stage.TASKS, tasks=True)


def counter(s: RbState, x: Any, b: Bounds, *, counted: bool = False) -> Any:
    """The resolving item counters its target, a spell on the chain: it leaves the chain and
    does nothing; it is not considered played (425.1.b: no play trigger fires), and its costs
    are not refunded (425.1.c). ``counted=True`` is a mutant's reading of 'play': the countered
    card fires its play triggers."""
    tgt = s.res.tgt
    chain = s.chain
    hit: list[Term] = []
    for k in range(len(chain.slots)):
        target = chain.slots[k]
        here = x.And(tgt == k + 1, chain.length > k, is_kind(x, target.what, "spell", b))
        hit.append(here)
    t = s
    if counted:
        for k, here in enumerate(hit):
            target = chain.slots[k]
            t = x.when(here, lambda u, target=target: played(u, x, b, target.ctrl, target.what), t)
    gone = x.Or(*hit)
    return t.replace(chain=x.If(gone, remove_item(x, b, chain, tgt - 1), chain))


RULES = (
    start_turn,
    main_begins,
    ending_step_begins,
    expiration_begins,
    stack_trigger,
    becomes_open,
    cleanup,
    finalize,
    finalize_choosing,
    remove_without_choice,
    undo_illegal,
    gain_priority,
    beginning_ends,
    open_priority,
    end_step_ends,
    expiration_restarts,
    turn_ends,
    contest,
    pass_focus,
    showdown_ends,
    end_main,
    play,
    pass_priority,
    pass_resolve,
    resolve,
    finish_resolving,
)
