"""Magic: The Gathering turn structure, as a rule set (Comprehensive Rules, 2026 numbering).

What is modelled, with the rules each part follows:

* phases and steps (500-514): untap (no priority, 502), upkeep, draw (504.1), the first main
  phase, the five combat steps (506-511, one abstract creature per player), the second main
  phase, the end step (513) and the cleanup step (514);
* priority (117.3a-d): the active player receives priority at the start of each step with
  priority and after each resolution; a player who acts keeps it; passing gives it to the next
  player in turn order; when all players pass in succession the top object resolves, or, on an
  empty stack, the step ends (117.4, 500.2);
* the 117.5 / 704.3 loop before anyone receives priority: state-based actions (all at once),
  then waiting triggers onto the stack, repeated until neither happens;
* the stack (405), last in first out; resolution as two steps, so that a trigger that fires
  while an object resolves is visibly waiting until the object finishes (608.2c, 608.2n);
* triggered abilities (603.2, 603.3): they wait for the next time a player would receive
  priority; they go on the stack in APNAP order (603.3b), each player ordering their own
  (one choice per trigger put on the stack);
* delayed triggers (603.7): "at the beginning of the next end step" (with 513.2: one created
  during the end step waits for the next end step) and "at the beginning of the next cleanup
  step";
* mana empties whenever a step or phase ends (500.4);
* durations: until end of turn and this turn (end at 514.2), until end of combat (500.5),
  indefinite, and "doesn't untap during its controller's next untap step";
* the cleanup step: 514.1 discard, 514.2 damage removal together with the end of "until end
  of turn" and "this turn" effects, 514.3/514.3a (priority only if an SBA or a trigger happened,
  and then another cleanup step);
* ending the turn (724.1a-f), including during cleanup (a new cleanup step), and ending the
  combat phase (724.2).

Abstractions: cards are their abilities and counters; there are no costs (no mana costs, and
Sundial's {T} is folded into the per-turn action budget); each player's hand is a number of
cards; the first modelled turn is a turn in the middle of a game (so the first player's skipped
draw of 103.8a does not apply); there is no first-strike damage step and no extra turn; each player has one creature with toughness 2 (plus one per "until
end of turn" pump); players may take at most ``actions`` non-pass actions per turn (a bound).
The cards in play are chosen with 0/1 setup bounds (``tutelage``, ``rielle`` ...), so a
scenario can name exactly the interaction it asks about.

Cleanup repetitions are not counted in the state: the state space is finite without a counter
(hands and effect counts are bounded), so a cleanup that repeats forever shows up as a cycle,
which is exactly what the termination checks look for.
"""

from __future__ import annotations

from enum import IntEnum
from typing import Any, NamedTuple

from turnproof.model.properties import (
    Monitor,
    Mutant,
    always,
    exclusive_automatic,
    no_deadlock,
    reachable,
    step,
    terminates,
)
from turnproof.model.rules import (
    Alias,
    Bounds,
    BoundSpec,
    Kind,
    Remove,
    Replace,
    RuleSet,
    rule,
)
from turnproof.model.schema import (
    ArrayDomain,
    BoolDomain,
    EnumDomain,
    IntRange,
    RecordDomain,
    Schema,
    SeqDomain,
    State,
    Term,
)

CR_VERSION = "CR 2026-02-27"


class Step(IntEnum):
    UNTAP = 0
    UPKEEP = 1
    DRAW = 2
    MAIN1 = 3
    BEGIN_COMBAT = 4
    ATTACKERS = 5
    BLOCKERS = 6
    DAMAGE = 7
    END_COMBAT = 8
    MAIN2 = 9
    END = 10
    CLEANUP = 11


class Stage(IntEnum):
    """Where the game is within the current step."""

    BEGIN = 0  # the step has just begun: its turn-based actions come first
    DAMAGE_REMOVAL = 1  # cleanup only: 514.2 is next
    CHECK = 2  # a player would receive priority: SBAs and triggers first (117.5)
    PRIORITY = 3  # player ``prio`` has priority
    RESOLVING = 4  # ``res`` is resolving: its instructions are next (608.2c)
    RESOLVED = 5  # ``res`` has followed its instructions and finishes next (608.2n)
    PROC_A = 6  # ending the turn or the combat phase: 724.1a / 724.2a next
    PROC_B = 7  # 724.1b / 724.2b next: exile the stack
    PROC_C = 8  # 724.1c / 724.2c: state-based actions, then 724.1d / 724.2d


class Proc(IntEnum):
    NONE = 0
    END_TURN = 1
    END_COMBAT = 2


class Obj(IntEnum):
    """What an object on the stack (or a waiting trigger) is."""

    NONE = 0
    # instants a player may cast (one card from hand each)
    PUMP = 1  # "target creature you control gets +1/+1 until end of turn"
    SILENCE = 2  # a "this turn" effect
    BRACE = 3  # an "until end of combat" effect (combat only)
    CLAIM = 4  # an indefinite effect (like a control change)
    FREEZE = (
        5  # tap the opponent's creature; it doesn't untap during its controller's next untap step
    )
    OMEN = 6  # "at the beginning of the next end step, draw a card" (a delayed trigger)
    WAYLAY = 7  # tokens, "exile them at the beginning of the next cleanup step"
    UNDOING = 8  # Day's Undoing: each player's hand becomes 7, then end the turn
    MANDATE = 9  # Mandate of Peace: end the combat phase (combat only)
    # activated abilities
    SUNDIAL = 10  # Sundial of the Infinite: end the turn (only during your turn)
    # triggered abilities
    T_TUTELAGE = 11  # Sphinx's Tutelage: whenever you draw a card
    T_RIELLE = 12  # whenever you discard one or more cards (first time each turn): draw that many
    T_END = 13  # at the beginning of your end step
    T_OMEN = 14  # the delayed "next end step" trigger
    T_WAYLAY = 15  # the delayed "next cleanup step" trigger
    T_DIES = 16  # whenever a creature dies
    SARKHAN = 17  # Sarkhan's +1: until end of turn, a 4/4 indestructible haste Dragon creature
    SHOCK = 18  # an instant: 2 damage to the opponent's creature


INSTANTS = (
    Obj.PUMP,
    Obj.SILENCE,
    Obj.BRACE,
    Obj.CLAIM,
    Obj.FREEZE,
    Obj.OMEN,
    Obj.WAYLAY,
    Obj.UNDOING,
    Obj.MANDATE,
    Obj.SHOCK,
)
COMBAT_STEPS = (Step.BEGIN_COMBAT, Step.ATTACKERS, Step.BLOCKERS, Step.DAMAGE, Step.END_COMBAT)

#: The setup bound that puts each card in the game (0 = absent, 1 = present).
CARD_BOUND = {
    Obj.PUMP: "pump",
    Obj.SILENCE: "silence",
    Obj.BRACE: "brace",
    Obj.CLAIM: "claim",
    Obj.FREEZE: "freeze",
    Obj.OMEN: "omen",
    Obj.WAYLAY: "waylay",
    Obj.UNDOING: "undoing",
    Obj.MANDATE: "mandate",
    Obj.SUNDIAL: "sundial",
    Obj.SHOCK: "shock",
}


class Item(NamedTuple):
    """A stack object or a waiting trigger: controller, what it is, a number ("that many"), and
    whether it triggered during an end-the-turn/end-combat process (724.1a keeps only those)."""

    ctrl: Any
    what: Any
    n: Any
    in_proc: Any


class MtgState(State):
    turn: Term
    step: Term
    stage: Term
    proc: Term
    prio: Term
    passes: Term
    cl_prio: Term  # this cleanup step performed an SBA or stacked a trigger (514.3a)
    stack: Term
    pending: Term
    res: Term
    hand: Term
    mana: Term
    used: Term
    pump: Term
    silence: Term
    brace: Term
    claim: Term
    alive: Term
    dmg: Term
    tapped: Term
    frozen: Term
    attacking: Term
    tokens: Term
    omen: Term
    waylay: Term
    discarded: Term
    sark_here: Term  # Sarkhan, the Dragonspeaker is on the battlefield (the first player's)
    sark_loyalty: Term
    sark_anim: Term  # his +1: a 4/4 Dragon creature until end of turn
    sark_dmg: Term  # damage marked on him while he is a creature (120.3e)
    sark_used: Term  # a loyalty ability of his was activated this turn (606.3)


# -- bounds ------------------------------------------------------------------------------------

BOUNDS = (
    BoundSpec("players", 2, 2, 4, "number of players"),
    BoundSpec("turns", 2, 1, 12, "turns played; the state with turn == turns is terminal"),
    BoundSpec("stack", 3, 1, 8, "stack capacity"),
    BoundSpec("waiting", 3, 1, 8, "capacity for triggers waiting to be put on the stack"),
    BoundSpec("hand_max", 7, 0, 10, "maximum hand size (514.1)"),
    BoundSpec("hand_cap", 10, 1, 16, "the most cards a hand can hold in the model"),
    BoundSpec("hand0", 8, 0, 16, "cards in the first player's opening hand"),
    BoundSpec("hand1", 7, 0, 16, "cards in the other players' opening hands"),
    BoundSpec("actions", 1, 0, 4, "non-pass actions (spells, abilities, mana) per player per turn"),
    BoundSpec("effects", 2, 1, 4, "the most effects of one duration counted at once"),
    BoundSpec("damage", 3, 1, 6, "the most damage marked on a creature"),
    BoundSpec("mana", 1, 0, 3, "the most unspent mana a player can have"),
    # the cards in play (0 absent, 1 present)
    BoundSpec("pump", 1, 0, 1, "card: an instant, +1/+1 until end of turn"),
    BoundSpec("shock", 1, 0, 1, "card: an instant, 2 damage to the opponent's creature"),
    BoundSpec("silence", 0, 0, 1, "card: an instant with a 'this turn' effect"),
    BoundSpec("brace", 1, 0, 1, "card: an instant with an 'until end of combat' effect"),
    BoundSpec("claim", 0, 0, 1, "card: an instant with an indefinite effect"),
    BoundSpec(
        "freeze", 0, 0, 1, "card: tap; doesn't untap during its controller's next untap step"
    ),
    BoundSpec("omen", 1, 0, 1, "card: 'at the beginning of the next end step, draw a card'"),
    BoundSpec("waylay", 0, 0, 1, "card: Waylay, tokens exiled at the next cleanup step"),
    BoundSpec("undoing", 0, 0, 1, "card: Day's Undoing (hands become 7, then end the turn)"),
    BoundSpec("mandate", 0, 0, 1, "card: Mandate of Peace (end the combat phase)"),
    BoundSpec("sundial", 1, 0, 1, "card: Sundial of the Infinite (end the turn; your turn only)"),
    BoundSpec("tutelage", 1, 0, 1, "card: the first player's Sphinx's Tutelage (draw trigger)"),
    BoundSpec("rielle", 1, 0, 1, "card: the first player's discard trigger (Rielle pattern)"),
    BoundSpec(
        "end_trigger", 1, 0, 1, "card: the first player's 'at the beginning of your end step'"
    ),
    BoundSpec("artist", 0, 0, 1, "card: the first player's 'whenever a creature dies' trigger"),
    BoundSpec("sarkhan", 1, 0, 1, "card: the first player's Sarkhan, the Dragonspeaker"),
    BoundSpec("loyalty", 4, 1, 7, "Sarkhan's starting loyalty"),
)


def schema(b: Bounds) -> Schema:
    n = b.players
    item = RecordDomain(
        Item,
        {
            "ctrl": IntRange(0, n - 1),
            "what": EnumDomain(Obj),
            "n": IntRange(0, b.hand_cap),
            "in_proc": BoolDomain(),
        },
    )

    def per_player(d: Any) -> ArrayDomain:
        return ArrayDomain(d, n)

    return Schema(
        MtgState,
        {
            "turn": IntRange(0, b.turns),
            "step": EnumDomain(Step),
            "stage": EnumDomain(Stage),
            "proc": EnumDomain(Proc),
            "prio": IntRange(0, n - 1),
            "passes": IntRange(0, n - 1),
            "cl_prio": BoolDomain(),
            "stack": SeqDomain(item, b.stack),
            "pending": SeqDomain(item, b.waiting),
            "res": item,
            "hand": per_player(IntRange(0, b.hand_cap)),
            "mana": per_player(IntRange(0, b.mana)),
            "used": per_player(IntRange(0, b.actions)),
            "pump": per_player(IntRange(0, b.effects)),
            "silence": IntRange(0, b.effects),
            "brace": IntRange(0, b.effects),
            "claim": IntRange(0, b.effects),
            "alive": per_player(BoolDomain()),
            "dmg": per_player(IntRange(0, b.damage)),
            "tapped": per_player(BoolDomain()),
            "frozen": per_player(BoolDomain()),
            "attacking": BoolDomain(),
            "tokens": per_player(BoolDomain()),
            "omen": per_player(BoolDomain()),
            "waylay": per_player(BoolDomain()),
            "discarded": per_player(BoolDomain()),
            "sark_here": BoolDomain(),
            "sark_loyalty": IntRange(0, b.loyalty + b.turns),
            "sark_anim": BoolDomain(),
            "sark_dmg": IntRange(0, b.damage),
            "sark_used": BoolDomain(),
        },
    )


NO_ITEM = Item(0, Obj.NONE, 0, False)


def initial(b: Bounds) -> list[State]:
    """The first turn begins with the untap step of player 0."""
    sch = schema(b)
    n = b.players
    return [
        MtgState.make(
            turn=0,
            step=Step.UNTAP,
            stage=Stage.BEGIN,
            proc=Proc.NONE,
            prio=0,
            passes=0,
            cl_prio=False,
            stack=sch.domains["stack"].default(),
            pending=sch.domains["pending"].default(),
            res=NO_ITEM,
            hand=tuple(min(b.hand0 if p == 0 else b.hand1, b.hand_cap) for p in range(n)),
            mana=(0,) * n,
            used=(0,) * n,
            pump=(0,) * n,
            silence=0,
            brace=0,
            claim=0,
            alive=(True,) * n,
            dmg=(0,) * n,
            tapped=(False,) * n,
            frozen=(False,) * n,
            attacking=False,
            tokens=(False,) * n,
            omen=(False,) * n,
            waylay=(False,) * n,
            discarded=(False,) * n,
            sark_here=bool(b.sarkhan),
            sark_loyalty=b.loyalty if b.sarkhan else 0,
            sark_anim=False,
            sark_dmg=0,
            sark_used=False,
        )
    ]


def terminal(s: MtgState, x: Any, b: Bounds) -> Term:
    return s.turn == b.turns


# -- helpers shared by the rules ---------------------------------------------------------------


def active(s: MtgState, b: Bounds) -> Term:
    """The active player (no extra turns are modelled, so turns rotate in order)."""
    return s.turn % b.players


def _next_player(p: Term, b: Bounds) -> Term:
    return (p + 1) % b.players


def _is(x: Any, v: Term, *options: int) -> Term:
    return x.Or(*(v == o for o in options))


def _lethal(s: MtgState, x: Any, p: int) -> Term:
    """704.5g: a creature with damage at least its toughness (2, plus one per pump)."""
    return x.And(s.alive[p], s.dmg[p] >= 2 + s.pump[p])


def _sarkhan_dies(s: MtgState, x: Any) -> Term:
    """704.5i: a planeswalker with no loyalty goes to the graveyard (not while he is a creature
    only: an animated Sarkhan is not a planeswalker, and he is indestructible)."""
    return x.And(s.sark_here, x.Not(s.sark_anim), s.sark_loyalty == 0)


def _any_sba(s: MtgState, x: Any, b: Bounds) -> Term:
    return x.Or(_sarkhan_dies(s, x), *(_lethal(s, x, p) for p in range(b.players)))


def fire(
    s: MtgState, x: Any, b: Bounds, cond: Term, ctrl: Term, what: Obj, n: Term = 0
) -> MtgState:
    """A trigger fires: it waits (603.2, 603.3) until a player would receive priority. It
    remembers whether it fired during an end-the-turn or end-combat process (724.1a)."""
    x.within(x.Or(x.Not(cond), x.Not(x.seq_is_full(s.pending))), "waiting")
    item = Item(ctrl, what, n, s.proc != Proc.NONE)
    return s.replace(pending=x.when(cond, lambda q: x.seq_push(q, item), s.pending))


def draw(s: MtgState, x: Any, b: Bounds, p: Term, count: Term = 1, most: int = 1) -> MtgState:
    """Player ``p`` draws ``count`` cards (at most ``most``); the first player's Sphinx's Tutelage
    triggers once per card drawn (603.2c)."""
    x.within(x.get(s.hand, p) + count <= b.hand_cap, "hand_cap")
    s = s.replace(hand=x.set(s.hand, p, x.get(s.hand, p) + count))
    if b.tutelage:
        for k in range(1, most + 1):
            s = fire(s, x, b, x.And(p == 0, count >= k), 0, Obj.T_TUTELAGE)
    return s


def end_step_effects(s: MtgState, x: Any, b: Bounds) -> MtgState:
    """What happens as any step ends: mana empties (500.4); as the combat phase ends, "until end
    of combat" effects end and creatures leave combat (500.5, 511.3)."""
    leaving_combat = s.step == Step.END_COMBAT
    return s.replace(
        mana=(0,) * b.players,
        brace=x.If(leaving_combat, 0, s.brace),
        attacking=x.If(leaving_combat, False, s.attacking),
    )


def next_turn(s: MtgState, x: Any, b: Bounds) -> MtgState:
    """The turn ends and the next one begins with its untap step; what counted "this turn"
    (actions taken, the first discard, Sarkhan's loyalty ability) starts afresh."""
    n = b.players
    t = s.replace(
        turn=s.turn + 1,
        used=(0,) * n,
        discarded=(False,) * n,
        sark_used=False,
        proc=Proc.NONE,
    )
    return begin_step(t, x, b, Step.UNTAP)


def begin_step(s: MtgState, x: Any, b: Bounds, step_: Term) -> MtgState:
    """A new step begins: its turn-based actions come first."""
    return s.replace(step=step_, stage=Stage.BEGIN, passes=0, prio=0, cl_prio=False)


def _to_check(s: MtgState, x: Any, b: Bounds) -> MtgState:
    """The active player would receive priority (117.3a, 117.3b): SBAs and triggers first."""
    return s.replace(stage=Stage.CHECK, prio=active(s, b), passes=0)


def _prio(s: MtgState, x: Any, b: Bounds, **_: Any) -> Term:
    """the player with priority"""
    return s.prio


def _ap(s: MtgState, x: Any, b: Bounds, **_: Any) -> Term:
    """the active player"""
    return active(s, b)


def _live(s: MtgState, b: Bounds) -> Term:
    return s.turn < b.turns


# -- the beginning of each step ----------------------------------------------------------------


@rule(
    "MTG 502.3",
    "untap step: the active player's permanents untap, except those that don't untap during "
    "their controller's next untap step; nobody gets priority, and the upkeep begins (500.3)",
    kind=Kind.TURN_BASED,
    when={"stage": Stage.BEGIN},
)
def untap(s: MtgState, x: Any, b: Bounds) -> MtgState:
    x.require(s.step == Step.UNTAP)
    x.require(_live(s, b))
    a = active(s, b)
    tapped, frozen = s.tapped, s.frozen
    for p in range(b.players):
        mine = a == p
        tapped = x.set(tapped, p, x.If(x.And(mine, x.Not(s.frozen[p])), False, tapped[p]))
        # The restriction lasts for exactly one of its controller's untap steps.
        frozen = x.set(frozen, p, x.If(mine, False, frozen[p]))
    t = s.replace(tapped=tapped, frozen=frozen)
    return begin_step(t, x, b, Step.UPKEEP)


@rule(
    "MTG 503.1",
    "upkeep begins: no turn-based action; the active player will receive priority",
    kind=Kind.TURN_BASED,
    when={"stage": Stage.BEGIN},
)
def upkeep(s: MtgState, x: Any, b: Bounds) -> MtgState:
    x.require(s.step == Step.UPKEEP)
    return _to_check(s, x, b)


@rule(
    "MTG 504.1",
    "draw step: the active player draws a card",
    kind=Kind.TURN_BASED,
    when={"stage": Stage.BEGIN},
)
def draw_step(s: MtgState, x: Any, b: Bounds) -> MtgState:
    x.require(s.step == Step.DRAW)
    return _to_check(draw(s, x, b, active(s, b)), x, b)


@rule(
    "MTG 500.6",
    "a step with no turn-based action of its own begins; the active player will receive priority",
    kind=Kind.TURN_BASED,
    when={"stage": Stage.BEGIN},
)
def plain_step_begins(s: MtgState, x: Any, b: Bounds) -> MtgState:
    x.require(
        _is(x, s.step, Step.MAIN1, Step.BEGIN_COMBAT, Step.BLOCKERS, Step.END_COMBAT, Step.MAIN2)
    )
    return _to_check(s, x, b)


@rule(
    "MTG 508.1",
    "declare attackers: the active player chooses whether their creature attacks (attacking taps it)",
    kind=Kind.CHOICE,
    decider=_ap,
    params={"attack": (0, 1)},
    when={"stage": Stage.BEGIN},
)
def declare_attackers(s: MtgState, x: Any, b: Bounds, attack: int) -> MtgState:
    x.require(s.step == Step.ATTACKERS)
    a = active(s, b)
    can = x.Or(*(x.And(a == p, s.alive[p], x.Not(s.tapped[p])) for p in range(b.players)))
    if attack:
        x.require(can)
        tapped = s.tapped
        for p in range(b.players):
            tapped = x.set(tapped, p, x.If(a == p, True, tapped[p]))
        return _to_check(s.replace(attacking=True, tapped=tapped), x, b)
    return _to_check(s, x, b)


@rule(
    "MTG 510.2",
    "combat damage: the attacking creature and the defending player's creature deal 1 damage "
    "to each other",
    kind=Kind.TURN_BASED,
    when={"stage": Stage.BEGIN},
)
def combat_damage(s: MtgState, x: Any, b: Bounds) -> MtgState:
    x.require(s.step == Step.DAMAGE)
    a = active(s, b)
    d = _next_player(a, b)  # the defending player (the next player in turn order)
    dmg = s.dmg
    for p in range(b.players):
        fight = x.And(s.attacking, s.alive[p], x.Or(a == p, d == p))
        other_alive = x.Or(
            *(x.And(s.alive[q], x.Or(a == q, d == q)) for q in range(b.players) if q != p)
        )
        hit = x.And(fight, other_alive)
        x.within(x.Or(x.Not(hit), dmg[p] + 1 <= b.damage), "damage")
        dmg = x.set(dmg, p, x.If(hit, dmg[p] + 1, dmg[p]))
    t = s.replace(dmg=dmg)
    if b.sarkhan:
        # On his controller's turn an animated Sarkhan attacks too (he has haste); damage dealt
        # to him as a creature is marked on him (120.3e). On the opponent's turn their attacker
        # attacks him as a planeswalker, and that damage removes loyalty (120.3c).
        defender_alive = x.Or(*(x.And(d == q, s.alive[q]) for q in range(b.players)))
        marked = x.And(s.attacking, a == 0, s.sark_here, s.sark_anim, defender_alive)
        x.within(x.Or(x.Not(marked), s.sark_dmg + 1 <= b.damage), "damage")
        loses = x.And(s.attacking, a != 0, s.sark_here, x.Not(s.sark_anim), s.sark_loyalty > 0)
        t = t.replace(
            sark_dmg=x.If(marked, s.sark_dmg + 1, s.sark_dmg),
            sark_loyalty=x.If(loses, s.sark_loyalty - 1, s.sark_loyalty),
        )
    return _to_check(t, x, b)


@rule(
    "MTG 513.1",
    "end step begins: 'at the beginning of the (next) end step' abilities trigger (603.2b, 603.7)",
    kind=Kind.TURN_BASED,
    when={"stage": Stage.BEGIN},
)
def end_step_begins(s: MtgState, x: Any, b: Bounds) -> MtgState:
    x.require(s.step == Step.END)
    a = active(s, b)
    t = fire(s, x, b, bool(b.end_trigger) and (a == 0), 0, Obj.T_END) if b.end_trigger else s
    omen = t.omen
    for p in range(b.players):
        t = fire(t, x, b, s.omen[p], p, Obj.T_OMEN)
        omen = x.set(omen, p, False)  # a delayed trigger without a duration triggers once (603.7b)
    return _to_check(t.replace(omen=omen), x, b)


@rule(
    "MTG 514.1",
    "cleanup begins: 'next cleanup step' delayed triggers trigger; the active player discards "
    "down to maximum hand size",
    kind=Kind.TURN_BASED,
    when={"stage": Stage.BEGIN},
)
def cleanup_discard(s: MtgState, x: Any, b: Bounds) -> MtgState:
    x.require(s.step == Step.CLEANUP)
    x.require(_live(s, b))
    a = active(s, b)
    t = s
    waylay = s.waylay
    for p in range(b.players):
        t = fire(t, x, b, s.waylay[p], p, Obj.T_WAYLAY)
        waylay = x.set(waylay, p, False)
    t = t.replace(waylay=waylay)
    hand, discarded = t.hand, t.discarded
    for p in range(b.players):
        excess = x.Max(hand[p] - b.hand_max, 0)
        mine = x.And(a == p, excess > 0)
        if p == 0 and b.rielle:
            # "Whenever you discard one or more cards for the first time each turn, draw that many."
            t = fire(t, x, b, x.And(mine, x.Not(discarded[0])), 0, Obj.T_RIELLE, excess)
        hand = x.set(hand, p, x.If(mine, b.hand_max, hand[p]))
        discarded = x.set(discarded, p, x.If(mine, True, discarded[p]))
    return t.replace(hand=hand, discarded=discarded, stage=Stage.DAMAGE_REMOVAL)


@rule(
    "MTG 514.2",
    "cleanup: all damage is removed and 'until end of turn' and 'this turn' effects end, "
    "simultaneously",
    kind=Kind.TURN_BASED,
    when={"stage": Stage.DAMAGE_REMOVAL},
)
def cleanup_damage(s: MtgState, x: Any, b: Bounds) -> MtgState:
    n = b.players
    # Sarkhan stops being a creature and loses his marked damage in the same instant, so the
    # damage never counts against his loyalty (ET-07).
    t = s.replace(dmg=(0,) * n, pump=(0,) * n, silence=0, sark_anim=False, sark_dmg=0)
    return t.replace(stage=Stage.CHECK, prio=active(s, b), passes=0)


# -- state-based actions and triggers (117.5, 704.3) -------------------------------------------


@rule(
    "MTG 704.3",
    "state-based actions, all at once: creatures with lethal damage are destroyed (704.5g), "
    "a planeswalker with no loyalty goes to the graveyard (704.5i)",
    kind=Kind.STATE_BASED,
    when={"stage": (Stage.CHECK, Stage.PROC_C)},
)
def sba(s: MtgState, x: Any, b: Bounds) -> MtgState:
    x.require(_any_sba(s, x, b))
    alive, dmg = s.alive, s.dmg
    t = s
    for p in range(b.players):
        dies = _lethal(s, x, p)
        alive = x.set(alive, p, x.If(dies, False, alive[p]))
        dmg = x.set(dmg, p, x.If(dies, 0, dmg[p]))
        if b.artist:
            t = fire(t, x, b, dies, 0, Obj.T_DIES)
    in_cleanup = x.And(s.step == Step.CLEANUP, s.stage == Stage.CHECK)
    here = x.If(_sarkhan_dies(s, x), False, s.sark_here)
    return t.replace(alive=alive, dmg=dmg, sark_here=here, cl_prio=x.Or(s.cl_prio, in_cleanup))


def _apnap_first(s: MtgState, x: Any, b: Bounds) -> Term:
    """The first player in APNAP order (603.3b) who has a trigger waiting."""
    a = active(s, b)
    first: Term = a  # unused when nobody waits
    for k in reversed(range(b.players)):
        p = (a + k) % b.players
        has = x.seq_any(s.pending, lambda it, p=p: it.ctrl == p)
        first = x.If(has, p, first)
    return first


def _stacker(s: MtgState, x: Any, b: Bounds, i: int) -> Term:
    """the trigger's controller"""
    return x.seq_get(s.pending, i).ctrl


@rule(
    "MTG 603.3b",
    "a waiting trigger goes on the stack: players in APNAP order, each choosing the order of their own",
    kind=Kind.TRIGGER,
    decider=_stacker,
    params={"i": lambda b: range(b.waiting)},
    when={"stage": Stage.CHECK},
)
def stack_trigger(s: MtgState, x: Any, b: Bounds, i: int) -> MtgState:
    x.require(i < s.pending.length)
    x.require(x.Not(_any_sba(s, x, b)))
    item = x.seq_get(s.pending, i)
    x.require(item.ctrl == _apnap_first(s, x, b))
    x.within(x.Not(x.seq_is_full(s.stack)), "stack")
    return s.replace(
        stack=x.seq_push(s.stack, item),
        pending=x.seq_remove(s.pending, i),
        cl_prio=x.Or(s.cl_prio, s.step == Step.CLEANUP),
    )


@rule(
    "MTG 117.5",
    "no state-based action applies and no trigger waits: the player receives priority",
    kind=Kind.GAME,
    when={"stage": Stage.CHECK},
)
def receive_priority(s: MtgState, x: Any, b: Bounds) -> MtgState:
    x.require(x.seq_is_empty(s.pending))
    x.require(x.Not(_any_sba(s, x, b)))
    # 514.3a: in cleanup, priority only if this cleanup step performed an SBA or stacked a trigger.
    x.require(x.Or(s.step != Step.CLEANUP, s.cl_prio))
    return s.replace(stage=Stage.PRIORITY)


@rule(
    "MTG 514.3",
    "cleanup with no SBA and no trigger: nobody receives priority, the step and the turn end",
    kind=Kind.GAME,
    when={"stage": Stage.CHECK},
)
def cleanup_ends_turn(s: MtgState, x: Any, b: Bounds) -> MtgState:
    x.require(s.step == Step.CLEANUP)
    x.require(x.Not(s.cl_prio))
    x.require(x.seq_is_empty(s.pending))
    x.require(x.Not(_any_sba(s, x, b)))
    return next_turn(end_step_effects(s, x, b), x, b)


# -- priority: the choices of the player who has it --------------------------------------------


@rule(
    "MTG 117.3d",
    "the player with priority passes; the next player in turn order would receive priority",
    kind=Kind.CHOICE,
    decider=_prio,
    when={"stage": Stage.PRIORITY},
)
def pass_priority(s: MtgState, x: Any, b: Bounds) -> MtgState:
    x.require(s.passes + 1 < b.players)
    return s.replace(stage=Stage.CHECK, prio=_next_player(s.prio, b), passes=s.passes + 1)


@rule(
    "MTG 117.4",
    "all players passed in succession: the top object of the stack resolves (405.5, 608.1)",
    kind=Kind.CHOICE,
    decider=_prio,
    when={"stage": Stage.PRIORITY},
)
def pass_resolve(s: MtgState, x: Any, b: Bounds) -> MtgState:
    x.require(s.passes + 1 == b.players)
    x.require(x.Not(x.seq_is_empty(s.stack)))
    return s.replace(
        stage=Stage.RESOLVING, res=x.seq_top(s.stack), stack=x.seq_pop(s.stack), passes=0, prio=0
    )


def _next_step(s: MtgState, x: Any) -> Term:
    """The step after this one. After a cleanup step with priority, another cleanup step
    follows (514.3a); without attackers, declare blockers and combat damage are skipped (508.8)."""
    return x.If(
        s.step == Step.CLEANUP,
        Step.CLEANUP,
        x.If(x.And(s.step == Step.ATTACKERS, x.Not(s.attacking)), Step.END_COMBAT, s.step + 1),
    )


@rule(
    "MTG 500.2",
    "all players passed in succession with an empty stack: the step ends (mana empties, 500.4)",
    kind=Kind.CHOICE,
    decider=_prio,
    when={"stage": Stage.PRIORITY},
)
def pass_end_step(s: MtgState, x: Any, b: Bounds) -> MtgState:
    x.require(s.passes + 1 == b.players)
    x.require(x.seq_is_empty(s.stack))
    return begin_step(end_step_effects(s, x, b), x, b, _next_step(s, x))


def _may_cast(s: MtgState, x: Any, b: Bounds, what: Obj) -> None:
    p = s.prio
    x.require(x.get(s.used, p) < b.actions)
    x.require(x.get(s.hand, p) > 0)
    if what in (Obj.BRACE, Obj.MANDATE):
        x.require(_is(x, s.step, *COMBAT_STEPS))
    x.within(x.Not(x.seq_is_full(s.stack)), "stack")


@rule(
    "MTG 117.1a",
    "the player with priority casts an instant from their hand, and keeps priority (117.3c)",
    kind=Kind.CHOICE,
    decider=_prio,
    params={"card": lambda b: [c for c in INSTANTS if b[CARD_BOUND[c]]]},
    when={"stage": Stage.PRIORITY},
)
def cast(s: MtgState, x: Any, b: Bounds, card: int) -> MtgState:
    _may_cast(s, x, b, Obj(card))
    p = s.prio
    return s.replace(
        stack=x.seq_push(s.stack, Item(p, card, 0, False)),
        hand=x.set(s.hand, p, x.get(s.hand, p) - 1),
        used=x.set(s.used, p, x.get(s.used, p) + 1),
        stage=Stage.CHECK,
        passes=0,
    )


@rule(
    "MTG 602.5d",
    "the active player activates Sundial of the Infinite ('activate only during your turn'), "
    "and keeps priority (117.3c)",
    kind=Kind.CHOICE,
    decider=_prio,
    when={"stage": Stage.PRIORITY},
)
def activate_sundial(s: MtgState, x: Any, b: Bounds) -> MtgState:
    x.require(bool(b.sundial))
    p = s.prio
    x.require(p == active(s, b))
    x.require(x.get(s.used, p) < b.actions)
    x.within(x.Not(x.seq_is_full(s.stack)), "stack")
    return s.replace(
        stack=x.seq_push(s.stack, Item(p, Obj.SUNDIAL, 0, False)),
        used=x.set(s.used, p, x.get(s.used, p) + 1),
        stage=Stage.CHECK,
        passes=0,
    )


@rule(
    "MTG 606.3",
    "the first player activates Sarkhan's +1 loyalty ability (main phase, empty stack, own "
    "turn, once per turn); the loyalty is paid at once (602.2b), and they keep priority",
    kind=Kind.CHOICE,
    decider=_prio,
    when={"stage": Stage.PRIORITY},
)
def activate_sarkhan(s: MtgState, x: Any, b: Bounds) -> MtgState:
    x.require(bool(b.sarkhan))
    x.require(x.And(s.sark_here, x.Not(s.sark_used), s.prio == 0, active(s, b) == 0))
    x.require(_is(x, s.step, Step.MAIN1, Step.MAIN2))
    x.require(x.seq_is_empty(s.stack))
    x.require(s.used[0] < b.actions)
    return s.replace(
        stack=x.seq_push(s.stack, Item(0, Obj.SARKHAN, 0, False)),
        sark_loyalty=s.sark_loyalty + 1,
        sark_used=True,
        used=x.set(s.used, 0, s.used[0] + 1),
        stage=Stage.CHECK,
        passes=0,
    )


@rule(
    "MTG 605.3a",
    "the player with priority activates a mana ability: it doesn't use the stack, and they keep priority",
    kind=Kind.CHOICE,
    decider=_prio,
    when={"stage": Stage.PRIORITY},
)
def add_mana(s: MtgState, x: Any, b: Bounds) -> MtgState:
    x.require(b.mana > 0)
    p = s.prio
    x.require(x.get(s.used, p) < b.actions)
    x.require(x.get(s.mana, p) < b.mana)
    return s.replace(
        mana=x.set(s.mana, p, x.get(s.mana, p) + 1),
        used=x.set(s.used, p, x.get(s.used, p) + 1),
        passes=0,
    )


# -- resolution (608) --------------------------------------------------------------------------


def _bump(x: Any, v: Term, cap: int) -> Term:
    x.within(v + 1 <= cap, "effects")
    return v + 1


def _begin_process(s: MtgState, proc: Proc) -> MtgState:
    return s.replace(stage=Stage.PROC_A, proc=proc)


@rule(
    "MTG 608.2c",
    "the resolving object follows its instructions; anything that triggers meanwhile waits",
    kind=Kind.GAME,
    when={"stage": Stage.RESOLVING},
)
def resolve(s: MtgState, x: Any, b: Bounds) -> MtgState:
    c = s.res.ctrl
    done = s.replace(stage=Stage.RESOLVED)
    opponent = _next_player(c, b)

    def freeze() -> MtgState:
        # Kiora's chapter II pattern: tap; it doesn't untap during its controller's next untap step.
        return done.replace(
            tapped=x.set(s.tapped, opponent, True), frozen=x.set(s.frozen, opponent, True)
        )

    def shock() -> MtgState:
        # Damage is marked on the creature (120.3e); lethal damage is an SBA (704.5g).
        hit = x.get(s.alive, opponent)
        now = x.get(s.dmg, opponent)
        x.within(x.Or(x.Not(hit), now + 2 <= b.damage), "damage")
        return done.replace(dmg=x.set(s.dmg, opponent, x.If(hit, now + 2, now)))

    def undoing() -> MtgState:
        # Day's Undoing: each player's hand becomes seven cards (drawing triggers Tutelage for
        # each card drawn), then, on the caster's turn, the turn ends (724.1).
        t = done
        for p in range(b.players):
            t = t.replace(hand=x.set(t.hand, p, 0))  # shuffled away, then seven drawn
            t = draw(t, x, b, p, 7, most=7)
        return x.If(c == active(s, b), _begin_process(t, Proc.END_TURN), t)

    table = {
        Obj.PUMP: lambda: done.replace(
            pump=x.set(s.pump, c, _bump(x, x.get(s.pump, c), b.effects))
        ),
        Obj.SILENCE: lambda: done.replace(silence=_bump(x, s.silence, b.effects)),
        Obj.BRACE: lambda: done.replace(brace=_bump(x, s.brace, b.effects)),
        Obj.CLAIM: lambda: done.replace(claim=_bump(x, s.claim, b.effects)),
        Obj.FREEZE: freeze,
        Obj.SHOCK: shock,
        Obj.OMEN: lambda: done.replace(omen=x.set(s.omen, c, True)),
        Obj.WAYLAY: lambda: done.replace(
            tokens=x.set(s.tokens, c, True), waylay=x.set(s.waylay, c, True)
        ),
        Obj.UNDOING: undoing,
        Obj.MANDATE: lambda: _begin_process(done, Proc.END_COMBAT),
        Obj.SUNDIAL: lambda: _begin_process(done, Proc.END_TURN),
        Obj.T_RIELLE: lambda: draw(done, x, b, c, s.res.n, most=b.hand_cap),
        Obj.T_OMEN: lambda: draw(done, x, b, c),
        Obj.T_WAYLAY: lambda: done.replace(tokens=x.set(s.tokens, c, False)),
        Obj.SARKHAN: lambda: done.replace(sark_anim=s.sark_here),
    }
    # Tutelage's mill, the end-step trigger's and the dies trigger's effects change nothing the
    # turn structure looks at.
    return x.cases(s.res.what, table, lambda: done)


@rule(
    "MTG 608.2n",
    "the resolving object finishes resolving (to the graveyard, or it ceases to exist); the "
    "active player will receive priority (117.3b)",
    kind=Kind.GAME,
    when={"stage": Stage.RESOLVED},
)
def finish_resolving(s: MtgState, x: Any, b: Bounds) -> MtgState:
    return _to_check(s.replace(res=NO_ITEM), x, b)


# -- ending the turn (724.1) and the combat phase (724.2) ---------------------------------------


def _forget_waiting(s: MtgState, x: Any) -> MtgState:
    # Triggers that triggered before the process began cease to exist.
    return s.replace(pending=x.seq_filter(s.pending, lambda it: it.in_proc), stage=Stage.PROC_B)


def _exile_stack(s: MtgState, x: Any) -> MtgState:
    # Exile every object on the stack, the resolving one included.
    return s.replace(stack=x.seq_clear(s.stack), res=NO_ITEM, stage=Stage.PROC_C)


@rule(
    "MTG 724.1a",
    "ending the turn: triggers waiting from before the process cease to exist",
    kind=Kind.GAME,
    when={"stage": Stage.PROC_A},
)
def end_turn_a(s: MtgState, x: Any, b: Bounds) -> MtgState:
    x.require(s.proc == Proc.END_TURN)
    return _forget_waiting(s, x)


@rule(
    "MTG 724.1b",
    "ending the turn: every object on the stack is exiled, the resolving one too",
    kind=Kind.GAME,
    when={"stage": Stage.PROC_B},
)
def end_turn_b(s: MtgState, x: Any, b: Bounds) -> MtgState:
    x.require(s.proc == Proc.END_TURN)
    return _exile_stack(s, x)


def _process_may_end(s: MtgState, x: Any, b: Bounds, proc: Proc) -> None:
    """The last step of an ending process applies: that process, after its state-based
    actions (724.1c, 724.2c)."""
    x.require(s.proc == proc)
    x.require(x.Not(_any_sba(s, x, b)))


@rule(
    "MTG 724.1d",
    "ending the turn: after state-based actions (724.1c; nobody gets priority), the current step "
    "ends and the game skips to the cleanup step (a new one if it was the cleanup step); the end "
    "step and its triggers are skipped (724.1e)",
    kind=Kind.GAME,
    when={"stage": Stage.PROC_C},
)
def end_turn_d(s: MtgState, x: Any, b: Bounds) -> MtgState:
    _process_may_end(s, x, b, Proc.END_TURN)
    in_combat = _is(x, s.step, *COMBAT_STEPS)
    t = s.replace(
        mana=(0,) * b.players,
        brace=x.If(in_combat, 0, s.brace),
        attacking=False,
        proc=Proc.NONE,
    )
    return begin_step(t, x, b, Step.CLEANUP)


@rule(
    "MTG 724.2a",
    "ending combat: triggers waiting from before the process cease to exist",
    kind=Kind.GAME,
    when={"stage": Stage.PROC_A},
)
def end_combat_a(s: MtgState, x: Any, b: Bounds) -> MtgState:
    x.require(s.proc == Proc.END_COMBAT)
    return _forget_waiting(s, x)


@rule(
    "MTG 724.2b",
    "ending combat: every object on the stack is exiled, the resolving one too",
    kind=Kind.GAME,
    when={"stage": Stage.PROC_B},
)
def end_combat_b(s: MtgState, x: Any, b: Bounds) -> MtgState:
    x.require(s.proc == Proc.END_COMBAT)
    return _exile_stack(s, x)


@rule(
    "MTG 724.2d",
    "ending combat: after state-based actions (724.2c), combat ends, creatures leave combat, "
    "'until end of combat' effects end, and the next main phase begins; 'at end of combat' "
    "abilities don't trigger (724.2e)",
    kind=Kind.GAME,
    when={"stage": Stage.PROC_C},
)
def end_combat_d(s: MtgState, x: Any, b: Bounds) -> MtgState:
    _process_may_end(s, x, b, Proc.END_COMBAT)
    t = s.replace(mana=(0,) * b.players, brace=0, attacking=False, proc=Proc.NONE)
    return begin_step(t, x, b, Step.MAIN2)


RULES = (
    untap,
    upkeep,
    draw_step,
    plain_step_begins,
    declare_attackers,
    combat_damage,
    end_step_begins,
    cleanup_discard,
    cleanup_damage,
    sba,
    stack_trigger,
    receive_priority,
    cleanup_ends_turn,
    pass_priority,
    pass_resolve,
    pass_end_step,
    cast,
    activate_sundial,
    activate_sarkhan,
    add_mana,
    resolve,
    finish_resolving,
    end_turn_a,
    end_turn_b,
    end_turn_d,
    end_combat_a,
    end_combat_b,
    end_combat_d,
)


# -- properties ---------------------------------------------------------------------------------
# Each names the rules it is about and has at least one mutant below that breaks it. Monitors
# remember history from the kinds and citations of the rules that fired, never from a flag that
# the rule under test writes itself.


def _all_zero(x: Any, arr: Term) -> Term:
    return x.And(*(v == 0 for v in arr))


def _turn_starts(s: MtgState, x: Any, b: Bounds, m: Any = None) -> Term:
    return x.And(s.step == Step.UNTAP, s.stage == Stage.BEGIN, s.turn > 0)


def _no_eot_left(s: MtgState, x: Any, b: Bounds, m: Any) -> Term:
    return x.Implies(
        _turn_starts(s, x, b),
        x.And(
            _all_zero(x, s.pump),
            s.silence == 0,
            _all_zero(x, s.dmg),
            x.Not(s.sark_anim),
            s.sark_dmg == 0,
        ),
    )


def _step_begins(t: MtgState) -> Term:
    return t.stage == Stage.BEGIN


ACTED = Monitor(
    "acted",
    BoolDomain(),
    init=lambda s, x, b: False,
    update=lambda s, t, r, m, x, b: x.If(
        _step_begins(t), False, x.Or(m.acted, r.kind in (Kind.STATE_BASED, Kind.TRIGGER))
    ),
)

HAD_PRIORITY = Monitor(
    "had_priority",
    BoolDomain(),
    init=lambda s, x, b: False,
    update=lambda s, t, r, m, x, b: x.If(
        _step_begins(t),
        False,
        x.Or(m.had_priority, x.And(t.step == Step.CLEANUP, t.stage == Stage.PRIORITY)),
    ),
)

ENDING = Monitor(
    "ending",
    BoolDomain(),
    init=lambda s, x, b: False,
    # Set when a rule of the end-the-turn process fires; cleared once a step begins (the check
    # below is made on that very transition).
    update=lambda s, t, r, m, x, b: x.If(
        _step_begins(t), False, x.Or(m.ending, r.citation.startswith("MTG 724.1"))
    ),
)


REPEATED = Monitor(
    "repeated",
    BoolDomain(),
    init=lambda s, x, b: False,
    # True exactly in a state entered by a cleanup step with priority ending into a new one.
    update=lambda s, t, r, m, x, b: x.And(
        s.step == Step.CLEANUP,
        s.stage == Stage.PRIORITY,
        t.step == Step.CLEANUP,
        t.stage == Stage.BEGIN,
    ),
)


def _apnap_rank(p: Term, a: Term, b: Bounds) -> Term:
    return (p - a + b.players) % b.players


def _apnap_ok(s: MtgState, t: MtgState, r: Any, x: Any, b: Bounds, m: Any) -> Term:
    """A trigger put on the stack from the waiting ones belongs to the first player in APNAP
    order who still has one waiting."""
    moved = x.And(t.stack.length == s.stack.length + 1, t.pending.length == s.pending.length - 1)
    a = active(s, b)
    rank = _apnap_rank(x.seq_top(t.stack).ctrl, a, b)
    return x.Implies(moved, x.seq_all(t.pending, lambda it: _apnap_rank(it.ctrl, a, b) >= rank))


def _two_players_waiting(s: MtgState, x: Any, b: Bounds, m: Any) -> Term:
    return x.Or(
        *(
            x.And(
                x.seq_any(s.pending, lambda it, p=p: it.ctrl == p),
                x.seq_any(s.pending, lambda it, q=q: it.ctrl == q),
            )
            for p in range(b.players)
            for q in range(b.players)
            if p < q
        )
    )


def _lifo(s: MtgState, t: MtgState, r: Any, x: Any, b: Bounds, m: Any) -> Term:
    starts = x.And(s.stage == Stage.PRIORITY, t.stage == Stage.RESOLVING)
    return x.Implies(
        starts, x.And(x.Eq(t.res, x.seq_top(s.stack)), x.Eq(t.stack, x.seq_pop(s.stack)))
    )


def _waits_for_resolution(s: MtgState, t: MtgState, r: Any, x: Any, b: Bounds, m: Any) -> Term:
    resolving = _is(x, s.stage, Stage.RESOLVING, Stage.RESOLVED)
    return x.Implies(resolving, t.stack.length <= s.stack.length)


def _fired_while_resolving(s: MtgState, x: Any, b: Bounds, m: Any) -> Term:
    return x.And(s.stage == Stage.RESOLVED, x.Not(x.seq_is_empty(s.pending)))


def _end_turn_ok(s: MtgState, t: MtgState, r: Any, x: Any, b: Bounds, m: Any) -> Term:
    """Once the turn is being ended, the next step to begin is a cleanup step of the same turn;
    it begins with an empty stack, nothing resolving, and only triggers from the process waiting."""
    ending = x.Or(m.ending, r.citation.startswith("MTG 724.1"))
    return x.Implies(
        x.And(ending, _step_begins(t)),
        x.And(
            t.turn == s.turn,
            t.step == Step.CLEANUP,
            x.seq_is_empty(t.stack),
            t.res.what == Obj.NONE,
            x.seq_all(t.pending, lambda it: it.in_proc),
        ),
    )


def _step_end_ok(s: MtgState, t: MtgState, r: Any, x: Any, b: Bounds, m: Any) -> Term:
    ends = x.And(s.stage == Stage.PRIORITY, _step_begins(t))
    return x.Implies(ends, x.And(s.passes == b.players - 1, x.seq_is_empty(s.stack)))


def _mana_empty(s: MtgState, x: Any, b: Bounds, m: Any) -> Term:
    return x.Implies(_step_begins(s), _all_zero(x, s.mana))


def _someone_has_mana(s: MtgState, x: Any, b: Bounds, m: Any) -> Term:
    return x.Or(*(v > 0 for v in s.mana))


def _cleanup_priority(s: MtgState, x: Any, b: Bounds, m: Any) -> Term:
    return x.And(s.step == Step.CLEANUP, s.stage == Stage.PRIORITY)


def _brace_in_combat(s: MtgState, x: Any, b: Bounds, m: Any) -> Term:
    return x.Implies(s.brace > 0, _is(x, s.step, *COMBAT_STEPS))


#: The bounds the Magic claims hold for whatever their value: the number of turns, the maximum
#: hand size, the number of effects of one duration, the actions per turn, the most damage marked
#: and unspent mana, and Sarkhan's starting loyalty. The symbolic engine leaves them open, so its
#: proofs cover every value (the explicit engine checks the value set). The other bounds shape
#: the state itself (players, stack and waiting capacity, hand capacity, opening hands) or put a
#: card in the game, and stay fixed.
FOR_ALL = ("turns", "hand_max", "effects", "actions", "damage", "mana", "loyalty")

PROPERTIES = (
    terminates(
        "end-the-turn-terminates",
        "the end-the-turn process ends: no cycle among its states (724.1a-d: waiting triggers "
        "cease to exist, the stack is exiled, state-based actions, then the cleanup step)",
        lambda s, x, b, m: s.proc == Proc.END_TURN,
        citations=("MTG 724.1a", "MTG 724.1b", "MTG 724.1d", "MTG 704.3"),
        for_all=FOR_ALL,
    ),
    terminates(
        "cleanup-terminates",
        "every run of cleanup steps ends: no cycle among cleanup-step states (with no card "
        "that keeps creating triggers)",
        lambda s, x, b, m: s.step == Step.CLEANUP,
        citations=("MTG 514.3a", "MTG 704.3"),
        for_all=FOR_ALL,
    ),
    always(
        "eot-effects-end-before-next-turn",
        "no 'until end of turn' or 'this turn' effect and no damage survives into the next "
        "turn, including when the turn was ended early",
        _no_eot_left,
        antecedent=_turn_starts,
        citations=("MTG 514.2", "MTG 724.1d"),
        for_all=FOR_ALL,
    ),
    step(
        "triggers-wait-for-resolving-object",
        "a trigger that fires while an object resolves is not put on the stack before that "
        "object finishes resolving",
        _waits_for_resolution,
        antecedent=_fired_while_resolving,
        citations=("MTG 603.3", "MTG 608.2n", "MTG 117.5"),
        for_all=FOR_ALL,
    ),
    step(
        "apnap-order",
        "waiting triggers go on the stack in APNAP order: the active player's first (lowest), "
        "then each other player's in turn order",
        _apnap_ok,
        antecedent=_two_players_waiting,
        citations=("MTG 603.3b", "MTG 405.3"),
        for_all=FOR_ALL,
    ),
    step(
        "lifo-resolution",
        "the object that resolves is the top of the stack, and only it leaves the stack",
        _lifo,
        antecedent=lambda s, x, b, m: s.stack.length >= 2,
        citations=("MTG 405.2", "MTG 405.5", "MTG 608.1"),
        for_all=FOR_ALL,
    ),
    always(
        "cleanup-priority-needs-sba-or-trigger",
        "nobody gets priority in a cleanup step unless a state-based action was performed or "
        "a trigger put on the stack during that cleanup step",
        lambda s, x, b, m: x.Implies(_cleanup_priority(s, x, b, m), m.acted),
        antecedent=_cleanup_priority,
        monitors=(ACTED,),
        citations=("MTG 514.3", "MTG 514.3a"),
        for_all=FOR_ALL,
    ),
    step(
        "cleanup-with-priority-repeats",
        "a cleanup step in which players got priority is followed by another cleanup step: the "
        "turn ends only after a cleanup step without priority",
        lambda s, t, r, x, b, m: x.Implies(t.turn != s.turn, x.Not(m.had_priority)),
        antecedent=_cleanup_priority,
        monitors=(HAD_PRIORITY,),
        citations=("MTG 514.3a",),
        for_all=FOR_ALL,
    ),
    step(
        "end-turn-skips-to-cleanup",
        "ending the turn skips the end step and its 'at the beginning of the end step' "
        "triggers, empties the stack, and the triggers waiting before it cease to exist",
        _end_turn_ok,
        antecedent=lambda s, x, b, m: s.stage == Stage.PROC_A,
        monitors=(ENDING,),
        citations=("MTG 724.1a", "MTG 724.1b", "MTG 724.1d", "MTG 724.1e"),
        for_all=FOR_ALL,
    ),
    step(
        "step-ends-after-all-pass",
        "a step with priority ends only after all players pass in succession with an empty stack",
        _step_end_ok,
        citations=("MTG 117.4", "MTG 500.2"),
        for_all=FOR_ALL,
    ),
    always(
        "mana-empties-between-steps",
        "every step begins with all mana pools empty",
        _mana_empty,
        antecedent=_someone_has_mana,
        citations=("MTG 500.4",),
        for_all=FOR_ALL,
    ),
    always(
        "eoc-effects-end-with-combat",
        "'until end of combat' effects exist only during the combat phase",
        _brace_in_combat,
        antecedent=lambda s, x, b, m: s.brace > 0,
        citations=("MTG 500.5", "MTG 724.2d"),
        for_all=FOR_ALL,
    ),
    step(
        "creature-damage-never-costs-loyalty",
        "Sarkhan loses loyalty only to combat damage dealt to him as a planeswalker; damage "
        "marked on him as a creature ends with his animation at 514.2 (ET-07)",
        lambda s, t, r, x, b, m: x.Implies(
            t.sark_loyalty < s.sark_loyalty, x.And(s.step == Step.DAMAGE, x.Not(s.sark_anim))
        ),
        antecedent=lambda s, x, b, m: x.And(s.sark_anim, s.sark_dmg > 0),
        citations=("MTG 514.2", "MTG 120.3c", "MTG 120.3e"),
        for_all=FOR_ALL,
    ),
    no_deadlock(citations=("MTG 500.1", "MTG 117.4"), for_all=FOR_ALL),
    exclusive_automatic(citations=("MTG 117.5", "MTG 704.3", "MTG 514.3a"), for_all=FOR_ALL),
    reachable(
        "second-cleanup-step",
        "can a cleanup step with priority be followed by another cleanup step? (514.3a)",
        lambda s, x, b, m: m.repeated,
        monitors=(REPEATED,),
        citations=("MTG 514.3a",),
    ),
    reachable(
        "turn-ended-with-eot-effect",
        "can the turn be ended while an 'until end of turn' effect is in force? (the case "
        "eot-effects-end-before-next-turn must cover)",
        lambda s, x, b, m: x.And(s.proc == Proc.END_TURN, x.Or(*(v > 0 for v in s.pump))),
        citations=("MTG 724.1", "MTG 514.2"),
    ),
)


# -- mutants: deliberately wrong rules that the properties must catch --------------------------


@rule(
    "MTG 514.2",
    "MUTANT: damage is removed but 'until end of turn' effects do not end",
    kind=Kind.TURN_BASED,
    name="cleanup_damage",
    when={"stage": Stage.DAMAGE_REMOVAL},
)
def _m_keep_eot(s: MtgState, x: Any, b: Bounds) -> MtgState:
    return s.replace(dmg=(0,) * b.players, stage=Stage.CHECK, prio=active(s, b), passes=0)


@rule(
    "MTG 724.1d",
    "MUTANT: ending the turn skips the cleanup step and goes to the next turn",
    kind=Kind.GAME,
    name="end_turn_d",
    when={"stage": Stage.PROC_C},
)
def _m_end_turn_no_cleanup(s: MtgState, x: Any, b: Bounds) -> MtgState:
    _process_may_end(s, x, b, Proc.END_TURN)
    t = s.replace(mana=(0,) * b.players, brace=0, attacking=False)
    return next_turn(t, x, b)


@rule(
    "MTG 724.1d",
    "MUTANT: ending the turn goes to the end step instead of the cleanup step",
    kind=Kind.GAME,
    name="end_turn_d",
    when={"stage": Stage.PROC_C},
)
def _m_end_turn_to_end_step(s: MtgState, x: Any, b: Bounds) -> MtgState:
    _process_may_end(s, x, b, Proc.END_TURN)
    t = s.replace(mana=(0,) * b.players, attacking=False, proc=Proc.NONE)
    return begin_step(t, x, b, Step.END)


@rule(
    "MTG 724.1d",
    "MUTANT: after state-based actions the end-the-turn process starts over",
    kind=Kind.GAME,
    name="end_turn_d",
    when={"stage": Stage.PROC_C},
)
def _m_end_turn_restarts(s: MtgState, x: Any, b: Bounds) -> MtgState:
    _process_may_end(s, x, b, Proc.END_TURN)
    return s.replace(stage=Stage.PROC_A)


@rule(
    "MTG 724.1a",
    "MUTANT: waiting triggers survive the end-the-turn process",
    kind=Kind.GAME,
    name="end_turn_a",
    when={"stage": Stage.PROC_A},
)
def _m_keep_waiting(s: MtgState, x: Any, b: Bounds) -> MtgState:
    x.require(s.proc == Proc.END_TURN)
    return s.replace(stage=Stage.PROC_B)


@rule(
    "MTG 724.1b",
    "MUTANT: only the resolving object is exiled; the stack stays",
    kind=Kind.GAME,
    name="end_turn_b",
    when={"stage": Stage.PROC_B},
)
def _m_keep_stack(s: MtgState, x: Any, b: Bounds) -> MtgState:
    x.require(s.proc == Proc.END_TURN)
    return s.replace(res=NO_ITEM, stage=Stage.PROC_C)


@rule(
    "MTG 603.3b",
    "MUTANT: a waiting trigger goes on the stack as soon as it fires, even "
    "while an object resolves",
    kind=Kind.TRIGGER,
    decider=_stacker,
    params={"i": lambda b: range(b.waiting)},
    name="stack_trigger",
    when={"stage": (Stage.CHECK, Stage.RESOLVED)},
)
def _m_stack_while_resolving(s: MtgState, x: Any, b: Bounds, i: int) -> MtgState:
    x.require(i < s.pending.length)
    x.require(x.Not(_any_sba(s, x, b)))
    item = x.seq_get(s.pending, i)
    x.require(item.ctrl == _apnap_first(s, x, b))
    x.within(x.Not(x.seq_is_full(s.stack)), "stack")
    return s.replace(
        stack=x.seq_push(s.stack, item),
        pending=x.seq_remove(s.pending, i),
        cl_prio=x.Or(s.cl_prio, s.step == Step.CLEANUP),
    )


@rule(
    "MTG 603.3b",
    "MUTANT: the non-active players' triggers go on the stack first",
    kind=Kind.TRIGGER,
    decider=_stacker,
    params={"i": lambda b: range(b.waiting)},
    name="stack_trigger",
    when={"stage": Stage.CHECK},
)
def _m_napap(s: MtgState, x: Any, b: Bounds, i: int) -> MtgState:
    x.require(i < s.pending.length)
    x.require(x.Not(_any_sba(s, x, b)))
    item = x.seq_get(s.pending, i)
    a = active(s, b)
    others = x.seq_any(s.pending, lambda it: it.ctrl != a)
    x.require(x.If(others, item.ctrl != a, item.ctrl == a))
    x.within(x.Not(x.seq_is_full(s.stack)), "stack")
    return s.replace(
        stack=x.seq_push(s.stack, item),
        pending=x.seq_remove(s.pending, i),
        cl_prio=x.Or(s.cl_prio, s.step == Step.CLEANUP),
    )


@rule(
    "MTG 117.4",
    "MUTANT: the bottom object of the stack resolves",
    kind=Kind.CHOICE,
    decider=_prio,
    name="pass_resolve",
    when={"stage": Stage.PRIORITY},
)
def _m_bottom_resolves(s: MtgState, x: Any, b: Bounds) -> MtgState:
    x.require(s.passes + 1 == b.players)
    x.require(x.Not(x.seq_is_empty(s.stack)))
    return s.replace(
        stage=Stage.RESOLVING,
        res=x.seq_get(s.stack, 0),
        stack=x.seq_remove(s.stack, 0),
        passes=0,
        prio=0,
    )


@rule(
    "MTG 117.5",
    "MUTANT: the active player always receives priority in cleanup",
    kind=Kind.GAME,
    name="receive_priority",
    when={"stage": Stage.CHECK},
)
def _m_cleanup_always_priority(s: MtgState, x: Any, b: Bounds) -> MtgState:
    x.require(x.seq_is_empty(s.pending))
    x.require(x.Not(_any_sba(s, x, b)))
    return s.replace(stage=Stage.PRIORITY)


@rule(
    "MTG 500.2",
    "MUTANT: after a cleanup step with priority the turn ends at once",
    kind=Kind.CHOICE,
    decider=_prio,
    name="pass_end_step",
    when={"stage": Stage.PRIORITY},
)
def _m_no_second_cleanup(s: MtgState, x: Any, b: Bounds) -> MtgState:
    x.require(s.passes + 1 == b.players)
    x.require(x.seq_is_empty(s.stack))
    t = end_step_effects(s, x, b)
    return x.If(s.step == Step.CLEANUP, next_turn(t, x, b), begin_step(t, x, b, _next_step(s, x)))


@rule(
    "MTG 500.2",
    "MUTANT: the step ends when one player passes on an empty stack",
    kind=Kind.CHOICE,
    decider=_prio,
    name="pass_end_step",
    when={"stage": Stage.PRIORITY},
)
def _m_first_pass_ends_step(s: MtgState, x: Any, b: Bounds) -> MtgState:
    x.require(x.seq_is_empty(s.stack))
    t = end_step_effects(s, x, b)
    return begin_step(t, x, b, _next_step(s, x))


@rule(
    "MTG 500.4",
    "MUTANT: mana does not empty when a step ends",
    kind=Kind.CHOICE,
    decider=_prio,
    name="pass_end_step",
    when={"stage": Stage.PRIORITY},
)
def _m_mana_stays(s: MtgState, x: Any, b: Bounds) -> MtgState:
    x.require(s.passes + 1 == b.players)
    x.require(x.seq_is_empty(s.stack))
    leaving = s.step == Step.END_COMBAT
    t = s.replace(brace=x.If(leaving, 0, s.brace), attacking=x.If(leaving, False, s.attacking))
    return begin_step(t, x, b, _next_step(s, x))


@rule(
    "MTG 500.5",
    "MUTANT: 'until end of combat' effects last until end of turn",
    kind=Kind.CHOICE,
    decider=_prio,
    name="pass_end_step",
    when={"stage": Stage.PRIORITY},
)
def _m_brace_stays(s: MtgState, x: Any, b: Bounds) -> MtgState:
    x.require(s.passes + 1 == b.players)
    x.require(x.seq_is_empty(s.stack))
    t = s.replace(
        mana=(0,) * b.players, attacking=x.If(s.step == Step.END_COMBAT, False, s.attacking)
    )
    return begin_step(t, x, b, _next_step(s, x))


@rule(
    "MTG 514.1",
    "VARIANT: the discard trigger fires every time, not only the first time "
    "each turn (a card that keeps creating triggers)",
    kind=Kind.TURN_BASED,
    name="cleanup_discard",
    when={"stage": Stage.BEGIN},
)
def _v_rielle_every_time(s: MtgState, x: Any, b: Bounds) -> MtgState:
    x.require(s.step == Step.CLEANUP)
    x.require(_live(s, b))
    a = active(s, b)
    t = s
    waylay = s.waylay
    for p in range(b.players):
        t = fire(t, x, b, s.waylay[p], p, Obj.T_WAYLAY)
        waylay = x.set(waylay, p, False)
    t = t.replace(waylay=waylay)
    hand, discarded = t.hand, t.discarded
    for p in range(b.players):
        excess = x.Max(hand[p] - b.hand_max, 0)
        mine = x.And(a == p, excess > 0)
        if p == 0 and b.rielle:
            t = fire(t, x, b, mine, 0, Obj.T_RIELLE, excess)
        hand = x.set(hand, p, x.If(mine, b.hand_max, hand[p]))
        discarded = x.set(discarded, p, x.If(mine, True, discarded[p]))
    return t.replace(hand=hand, discarded=discarded, stage=Stage.DAMAGE_REMOVAL)


@rule(
    "MTG 514.2",
    "MUTANT: 'until end of turn' effects end first; then damage is removed, and damage on a "
    "planeswalker removes loyalty",
    kind=Kind.TURN_BASED,
    name="cleanup_damage",
    when={"stage": Stage.DAMAGE_REMOVAL},
)
def _m_damage_after_animation(s: MtgState, x: Any, b: Bounds) -> MtgState:
    n = b.players
    left = x.Max(s.sark_loyalty - s.sark_dmg, 0)
    t = s.replace(dmg=(0,) * n, pump=(0,) * n, silence=0, sark_anim=False, sark_dmg=0)
    return t.replace(sark_loyalty=left, stage=Stage.CHECK, prio=active(s, b), passes=0)


MUTANTS = (
    Mutant(
        "end-turn-restarts",
        "after its state-based actions the end-the-turn process starts over instead of "
        "moving to the cleanup step",
        (Replace("end_turn_d", _m_end_turn_restarts),),
        ("end-the-turn-terminates",),
    ),
    Mutant(
        "keep-eot-effects",
        "514.2 removes damage but leaves 'until end of turn' effects",
        (Replace("cleanup_damage", _m_keep_eot),),
        ("eot-effects-end-before-next-turn",),
    ),
    Mutant(
        "end-turn-skips-cleanup",
        "ending the turn goes straight to the next turn",
        (Replace("end_turn_d", _m_end_turn_no_cleanup),),
        ("eot-effects-end-before-next-turn", "end-turn-skips-to-cleanup"),
    ),
    Mutant(
        "end-turn-to-end-step",
        "ending the turn goes to the end step, which then triggers",
        (Replace("end_turn_d", _m_end_turn_to_end_step),),
        ("end-turn-skips-to-cleanup",),
    ),
    Mutant(
        "end-turn-keeps-stack",
        "ending the turn exiles only the resolving object",
        (Replace("end_turn_b", _m_keep_stack),),
        ("end-turn-skips-to-cleanup",),
    ),
    Mutant(
        "end-turn-keeps-waiting-triggers",
        "triggers waiting before the process survive it",
        (Replace("end_turn_a", _m_keep_waiting),),
        ("end-turn-skips-to-cleanup",),
        bounds={
            "undoing": 1,
            "tutelage": 1,
            "waiting": 8,
            "hand_cap": 10,
            "sundial": 0,
            "pump": 0,
            "brace": 0,
            "omen": 0,
            "rielle": 0,
            "end_trigger": 0,
        },
    ),
    Mutant(
        "stack-while-resolving",
        "triggers go on the stack while an object still resolves",
        (Replace("stack_trigger", _m_stack_while_resolving),),
        ("triggers-wait-for-resolving-object",),
    ),
    Mutant(
        "napap-order",
        "the non-active players' triggers go on the stack first",
        (Replace("stack_trigger", _m_napap),),
        ("apnap-order",),
    ),
    Mutant(
        "bottom-resolves",
        "the bottom of the stack resolves first",
        (Replace("pass_resolve", _m_bottom_resolves),),
        ("lifo-resolution",),
    ),
    Mutant(
        "cleanup-always-priority",
        "514.3a ignored: players always get priority in cleanup",
        (Replace("receive_priority", _m_cleanup_always_priority),),
        ("cleanup-priority-needs-sba-or-trigger", "at-most-one-automatic-rule"),
    ),
    Mutant(
        "no-second-cleanup",
        "after a cleanup step with priority the turn just ends",
        (Replace("pass_end_step", _m_no_second_cleanup),),
        ("cleanup-with-priority-repeats",),
    ),
    Mutant(
        "first-pass-ends-step",
        "a step ends as soon as one player passes on an empty stack",
        (Replace("pass_end_step", _m_first_pass_ends_step),),
        ("step-ends-after-all-pass",),
    ),
    Mutant(
        "mana-stays",
        "mana pools do not empty between steps",
        (Replace("pass_end_step", _m_mana_stays),),
        ("mana-empties-between-steps",),
    ),
    Mutant(
        "brace-stays",
        "'until end of combat' effects outlast the combat phase",
        (Replace("pass_end_step", _m_brace_stays),),
        ("eoc-effects-end-with-combat",),
    ),
    Mutant(
        "no-step-end",
        "the rule that ends a step when all pass on an empty stack is missing",
        (Remove("pass_end_step"),),
        ("no-deadlock",),
    ),
    Mutant(
        "rielle-every-time",
        "a discard trigger without 'for the first time each turn'",
        (Replace("cleanup_discard", _v_rielle_every_time),),
        ("cleanup-terminates",),
    ),
    Mutant(
        "no-cleanup-repeat",
        "after a cleanup step with priority the turn just ends",
        (Replace("pass_end_step", _m_no_second_cleanup),),
        ("second-cleanup-step",),
    ),
    Mutant(
        "damage-after-animation",
        "514.2 not simultaneous: Sarkhan's marked damage outlives his animation and costs loyalty",
        (Replace("cleanup_damage", _m_damage_after_animation),),
        ("creature-damage-never-costs-loyalty",),
    ),
    Mutant(
        "no-sundial",
        "the rule that lets the active player activate Sundial is missing",
        (Remove("activate_sundial"),),
        ("turn-ended-with-eot-effect",),
    ),
)

VARIANTS = {
    "rielle-every-time": (Replace("cleanup_discard", _v_rielle_every_time),),
    "no-second-cleanup": (Replace("pass_end_step", _m_no_second_cleanup),),
}

ALIASES = (
    Alias("MTG 716", "MTG 724", "2019", "'Ending the Turn' in the 2018-2019 rules"),
    Alias("MTG 722", "MTG 724", "2025-06", "'Ending Turns and Phases' in mid-2025"),
    Alias("MTG 723", "MTG 724", "2025-11", "'Ending Turns and Phases' in late 2025"),
    Alias("MTG 116", "MTG 117", "2019-06", "'Timing and Priority' before July 2019"),
    Alias("MTG 507", "MTG 723", "2008", "controlling another player, pre-2009 numbering"),
    Alias("MTG 721", "MTG 723", "2025-06", "'Controlling Another Player' in mid-2025"),
    Alias("MTG 722", "MTG 723", "2025-11", "'Controlling Another Player' in late 2025"),
)

MAGIC = RuleSet(
    name="magic",
    game="MTG",
    version=CR_VERSION,
    description="Magic: The Gathering turn structure: steps, priority, the stack, triggers, "
    "cleanup and its repetition, ending the turn and the combat phase, durations",
    rules=RULES,
    bound_specs=BOUNDS,
    schema=schema,
    initial=initial,
    terminal=terminal,
    properties=PROPERTIES,
    mutants=MUTANTS,
    variants=VARIANTS,
    aliases=ALIASES,
)
