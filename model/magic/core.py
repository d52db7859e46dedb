"""The core of the Magic rule set: the turn structure whatever the cards (2026 numbering).

What the core models, with the rules each part follows:

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
  priority; they go on the stack in APNAP order (603.3b), each player ordering their own (one
  choice per trigger put on the stack);
* mana empties whenever a step or phase ends (500.4);
* durations: the cards' effects end as their duration says (``until end of turn`` and ``this
  turn`` at 514.2, ``until end of combat`` as the combat phase ends, 500.5), "doesn't untap
  during its controller's next untap step" (502.3), and what counts "this turn" starts afresh
  with each turn;
* the cleanup step: 514.1 discard, 514.2 damage removal together with the end of "until end
  of turn" and "this turn" effects, 514.3/514.3a (priority only if an SBA or a trigger happened,
  and then another cleanup step);
* ending the turn (724.1a-f), including during cleanup (a new cleanup step), and ending the
  combat phase (724.2).

Everything a card does is its pack's (``model/magic/cards/``): the core calls the cards through
hooks (:data:`HOOKS`) and resets their fields by duration (:data:`DURATIONS`).

Abstractions: cards are their abilities and counters; there are no costs (no mana costs, and a
tap symbol is folded into the per-turn action budget); each player's hand is a number of cards;
the first modelled turn is a turn in the middle of a game (so the first player's skipped draw of
103.8a does not apply); there is no first-strike damage step and no extra turn; each player has
one creature with toughness 2 (plus what the cards add); players may take at most ``actions``
non-pass actions per turn (a bound).

Cleanup repetitions are not counted in the state: the state space is finite without a counter
(hands and effect counts are bounded), so a cleanup that repeats forever shows up as a cycle,
which is exactly what the termination checks look for.
"""

from __future__ import annotations

from enum import IntEnum
from typing import Any, NamedTuple, Protocol

from turnproof.model.kit.fields import const as _const
from turnproof.model.kit.fields import counts, each, hands, item_record, items, per_player
from turnproof.model.kit.players import active, is_one_of, live, next_player
from turnproof.model.kit.players import terminal as terminal  # the core's, re-exported
from turnproof.model.kit.stack import push
from turnproof.model.kit.waiting import fire as fire_into
from turnproof.model.kit.waiting import take
from turnproof.model.packs import Field, KindSpec, Pack, hooks, resolution_name
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


COMBAT_STEPS = (Step.BEGIN_COMBAT, Step.ATTACKERS, Step.BLOCKERS, Step.DAMAGE, Step.END_COMBAT)


class Item(NamedTuple):
    """A stack object or a waiting trigger: controller, what it is (a kind of the composed
    rule set), a number ("that many"), and whether it triggered during an end-the-turn or
    end-combat process (724.1a keeps only those)."""

    ctrl: Any
    what: Any
    n: Any
    in_proc: Any


NO_ITEM = Item(0, 0, 0, False)


class MtgState(Protocol):
    """The core's fields, for reading rules (the composed state class also has the cards')."""

    turn: Term
    step: Term
    stage: Term
    proc: Term
    prio: Term
    passes: Term
    cl_prio: Term
    stack: Any
    pending: Any
    res: Any
    hand: Any
    mana: Any
    used: Any
    alive: Any
    dmg: Any
    tapped: Any
    frozen: Any
    attacking: Term

    def replace(self, **changes: Any) -> Any: ...


#: Where the cards come in. Each hook is called with ``(s, x, b)``, the card as ``me`` and the
#: keywords listed, and returns what its doc says.
HOOKS = {
    "draw": "a player drew: keywords p, count, most (at most); returns the state (triggers)",
    "discard": "a player discards: keywords p, count, cond (it happens where cond holds); "
    "returns the state",
    "dies": "a player's creature dies: keywords p, cond; returns the state (triggers)",
    "step_begins": "a step begins, before its turn-based actions: keyword step; returns the "
    "state ('at the beginning of' triggers, 603.2b)",
    "sba_applies": "a state-based action of the card applies: returns a condition (704.3)",
    "sba": "the card's state-based actions, performed with the others: keyword t (the state "
    "being built); returns it",
    "toughness": "what the card adds to the toughness of a player's creature: keyword p; "
    "returns a number",
    "combat_damage": "combat damage (510.2): keywords t, attacker, defender; returns t",
    "cleanup": "514.2, with the end of the card's 'until end of turn' fields: keyword t; returns t",
}

#: The durations a card's field can have, and the rule that ends them.
DURATIONS = {
    "cleanup": "until end of turn, this turn, and damage: ends at 514.2 in each cleanup step",
    "combat": "until end of combat: ends as the combat phase ends (500.5, 724.1d, 724.2d)",
    "turn": "counted this turn: starts afresh as the next turn begins",
}


# -- the core's state ---------------------------------------------------------------------------


def item_domain(b: Bounds) -> RecordDomain:
    return item_record(Item, b, n=IntRange(0, b.hand_cap), in_proc=BoolDomain())


FIELDS = (
    Field("turn", lambda b: IntRange(0, b.turns), "turns played so far", _const(0)),
    Field("step", EnumDomain(Step), "the current step", _const(Step.UNTAP)),
    Field("stage", EnumDomain(Stage), "where the game is within the step", _const(Stage.BEGIN)),
    Field("proc", EnumDomain(Proc), "an ending process under way (724)", _const(Proc.NONE)),
    Field("prio", lambda b: IntRange(0, b.players - 1), "who has or would get priority", _const(0)),
    Field(
        "passes",
        lambda b: IntRange(0, b.players - 1),
        "players who passed in succession",
        _const(0),
    ),
    Field(
        "cl_prio",
        BoolDomain(),
        "this cleanup step performed an SBA or stacked a trigger (514.3a)",
        _const(False),
    ),
    items("stack", item_domain, "stack", "the stack, bottom first (405)"),
    items("pending", item_domain, "waiting", "triggers waiting to be put on the stack (603.3)"),
    Field("res", item_domain, "the object resolving (608)", _const(NO_ITEM)),
    hands("cards in each player's hand"),
    counts("mana", "mana", "unspent mana (500.4)"),
    counts("used", "actions", "non-pass actions taken this turn"),
    Field(
        "alive",
        per_player(BoolDomain()),
        "each player's creature is on the battlefield",
        each(True),
    ),
    Field(
        "dmg",
        lambda b: ArrayDomain(IntRange(0, b.damage), b.players),
        "damage marked on each player's creature (120.3e)",
        each(0),
    ),
    Field("tapped", per_player(BoolDomain()), "each player's creature is tapped", each(False)),
    Field(
        "frozen",
        per_player(BoolDomain()),
        "it doesn't untap during its controller's next untap step (502.3)",
        each(False),
    ),
    Field("attacking", BoolDomain(), "the active player's creature attacks", _const(False)),
)

KINDS = (KindSpec("NONE", "no object"),)

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
)


# -- helpers shared by the rules and the cards ---------------------------------------------------


def toughness(s: MtgState, x: Any, b: Bounds, p: int) -> Term:
    """A player's creature's toughness: 2, plus what the cards add."""
    total: Term = 2
    for f in hooks(b, "toughness"):
        total = total + f(s, x, b, p=p)
    return total


def lethal(s: MtgState, x: Any, b: Bounds, p: int) -> Term:
    """704.5g: a creature with damage at least its toughness."""
    return x.And(s.alive[p], s.dmg[p] >= toughness(s, x, b, p))


def any_sba(s: MtgState, x: Any, b: Bounds) -> Term:
    return x.Or(
        *(f(s, x, b) for f in hooks(b, "sba_applies")),
        *(lethal(s, x, b, p) for p in range(b.players)),
    )


def fire(s: MtgState, x: Any, b: Bounds, cond: Term, ctrl: Term, what: int, n: Term = 0) -> Any:
    """A trigger fires: it waits (603.2, 603.3) until a player would receive priority. It
    remembers whether it fired during an end-the-turn or end-combat process (724.1a)."""
    item = Item(ctrl, what, n, s.proc != Proc.NONE)
    return s.replace(pending=fire_into(x, s.pending, cond, item))


def draw(s: MtgState, x: Any, b: Bounds, p: Term, count: Term = 1, most: int = 1) -> Any:
    """Player ``p`` draws ``count`` cards (at most ``most``); the cards that watch draws
    trigger (603.2c: once per card)."""
    x.within(x.get(s.hand, p) + count <= b.hand_cap, "hand_cap")
    t = s.replace(hand=x.set(s.hand, p, x.get(s.hand, p) + count))
    for f in hooks(b, "draw"):
        t = f(t, x, b, p=p, count=count, most=most)
    return t


def add_effect(x: Any, v: Term, b: Bounds) -> Term:
    """One more effect of a duration: at most ``effects`` are counted (a bound)."""
    x.within(v + 1 <= b.effects, "effects")
    return v + 1


def step_begins(s: MtgState, x: Any, b: Bounds, step: Step) -> Any:
    """'At the beginning of' abilities of the cards trigger as ``step`` begins (603.2b)."""
    for f in hooks(b, "step_begins"):
        s = f(s, x, b, step=step)
    return s


def one_of_steps_begins(s: MtgState, x: Any, b: Bounds, steps: tuple[Step, ...]) -> Any:
    """:func:`step_begins` for whichever of ``steps`` the state is in."""
    if not hooks(b, "step_begins"):
        return s
    table = {int(st): (lambda st=st: step_begins(s, x, b, st)) for st in steps}
    return x.cases(s.step, table, lambda: s)


def leave_step(
    s: MtgState,
    x: Any,
    b: Bounds,
    leaving_combat: Term,
    *,
    mana: bool = True,
    combat_effects: bool = True,
) -> Any:
    """What happens as any step ends: mana empties (500.4); as the combat phase ends,
    creatures leave combat and "until end of combat" effects end (500.5, 511.3)."""
    t = s.replace(attacking=x.If(leaving_combat, False, s.attacking))
    if mana:
        t = t.replace(mana=(0,) * b.players)
    if combat_effects:
        t = b.setup.reset_when(t, x, "combat", b, leaving_combat)
    return t


def next_turn(s: MtgState, x: Any, b: Bounds) -> Any:
    """The turn ends and the next one begins with its untap step; what counted "this turn"
    (actions taken, and the cards' own) starts afresh."""
    t = s.replace(turn=s.turn + 1, used=(0,) * b.players, proc=Proc.NONE)
    t = b.setup.reset(t, "turn", b)
    return begin_step(t, x, b, Step.UNTAP)


def begin_step(s: MtgState, x: Any, b: Bounds, step_: Term) -> Any:
    """A new step begins: its turn-based actions come first."""
    return s.replace(step=step_, stage=Stage.BEGIN, passes=0, prio=0, cl_prio=False)


def to_check(s: MtgState, x: Any, b: Bounds) -> Any:
    """The active player would receive priority (117.3a, 117.3b): SBAs and triggers first."""
    return s.replace(stage=Stage.CHECK, prio=active(s, b), passes=0)


def prio(s: MtgState, x: Any, b: Bounds, **_: Any) -> Term:
    """the player with priority"""
    return s.prio


def ap(s: MtgState, x: Any, b: Bounds, **_: Any) -> Term:
    """the active player"""
    return active(s, b)


# -- the beginning of each step ----------------------------------------------------------------


@rule(
    "MTG 502.3",
    "untap step: the active player's permanents untap, except those that don't untap during "
    "their controller's next untap step; nobody gets priority, and the upkeep begins (500.3)",
    kind=Kind.TURN_BASED,
    when={"stage": Stage.BEGIN},
)
def untap(s: MtgState, x: Any, b: Bounds) -> Any:
    x.require(s.step == Step.UNTAP)
    x.require(live(s, b))
    a = active(s, b)
    s = step_begins(s, x, b, Step.UNTAP)
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
def upkeep(s: MtgState, x: Any, b: Bounds) -> Any:
    x.require(s.step == Step.UPKEEP)
    return to_check(step_begins(s, x, b, Step.UPKEEP), x, b)


@rule(
    "MTG 504.1",
    "draw step: the active player draws a card",
    kind=Kind.TURN_BASED,
    when={"stage": Stage.BEGIN},
)
def draw_step(s: MtgState, x: Any, b: Bounds) -> Any:
    x.require(s.step == Step.DRAW)
    s = step_begins(s, x, b, Step.DRAW)
    return to_check(draw(s, x, b, active(s, b)), x, b)


@rule(
    "MTG 500.6",
    "a step with no turn-based action of its own begins; the active player will receive priority",
    kind=Kind.TURN_BASED,
    when={"stage": Stage.BEGIN},
)
def plain_step_begins(s: MtgState, x: Any, b: Bounds) -> Any:
    plain = (Step.MAIN1, Step.BEGIN_COMBAT, Step.BLOCKERS, Step.END_COMBAT, Step.MAIN2)
    x.require(is_one_of(x, s.step, *plain))
    return to_check(one_of_steps_begins(s, x, b, plain), x, b)


@rule(
    "MTG 508.1",
    "declare attackers: the active player chooses whether their creature attacks (attacking taps it)",
    kind=Kind.CHOICE,
    decider=ap,
    params={"attack": (0, 1)},
    when={"stage": Stage.BEGIN},
)
def declare_attackers(s: MtgState, x: Any, b: Bounds, attack: int) -> Any:
    x.require(s.step == Step.ATTACKERS)
    a = active(s, b)
    can = x.Or(*(x.And(a == p, s.alive[p], x.Not(s.tapped[p])) for p in range(b.players)))
    s = step_begins(s, x, b, Step.ATTACKERS)
    if attack:
        x.require(can)
        tapped = s.tapped
        for p in range(b.players):
            tapped = x.set(tapped, p, x.If(a == p, True, tapped[p]))
        return to_check(s.replace(attacking=True, tapped=tapped), x, b)
    return to_check(s, x, b)


@rule(
    "MTG 510.2",
    "combat damage: the attacking creature and the defending player's creature deal 1 damage "
    "to each other",
    kind=Kind.TURN_BASED,
    when={"stage": Stage.BEGIN},
)
def combat_damage(s: MtgState, x: Any, b: Bounds) -> Any:
    x.require(s.step == Step.DAMAGE)
    s = step_begins(s, x, b, Step.DAMAGE)
    a = active(s, b)
    d = next_player(a, b.players)  # the defending player (the next player in turn order)
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
    for f in hooks(b, "combat_damage"):
        t = f(s, x, b, t=t, attacker=a, defender=d)
    return to_check(t, x, b)


@rule(
    "MTG 513.1",
    "end step begins: 'at the beginning of the (next) end step' abilities trigger (603.2b, 603.7)",
    kind=Kind.TURN_BASED,
    when={"stage": Stage.BEGIN},
)
def end_step_begins(s: MtgState, x: Any, b: Bounds) -> Any:
    x.require(s.step == Step.END)
    return to_check(step_begins(s, x, b, Step.END), x, b)


@rule(
    "MTG 514.1",
    "cleanup begins: 'next cleanup step' delayed triggers trigger; the active player discards "
    "down to maximum hand size",
    kind=Kind.TURN_BASED,
    when={"stage": Stage.BEGIN},
)
def cleanup_discard(s: MtgState, x: Any, b: Bounds) -> Any:
    x.require(s.step == Step.CLEANUP)
    x.require(live(s, b))
    a = active(s, b)
    t = step_begins(s, x, b, Step.CLEANUP)
    for p in range(b.players):
        excess = x.Max(t.hand[p] - b.hand_max, 0)
        mine = x.And(a == p, excess > 0)
        for f in hooks(b, "discard"):
            t = f(t, x, b, p=p, count=excess, cond=mine)
        t = t.replace(hand=x.set(t.hand, p, x.If(mine, b.hand_max, t.hand[p])))
    return t.replace(stage=Stage.DAMAGE_REMOVAL)


@rule(
    "MTG 514.2",
    "cleanup: all damage is removed and 'until end of turn' and 'this turn' effects end, "
    "simultaneously",
    kind=Kind.TURN_BASED,
    when={"stage": Stage.DAMAGE_REMOVAL},
)
def cleanup_damage(s: MtgState, x: Any, b: Bounds, *, end_effects: bool = True) -> Any:
    t = s.replace(dmg=(0,) * b.players)
    if end_effects:
        t = b.setup.reset(t, "cleanup", b)
        for f in hooks(b, "cleanup"):
            t = f(s, x, b, t=t)
    return t.replace(stage=Stage.CHECK, prio=active(s, b), passes=0)


# -- state-based actions and triggers (117.5, 704.3) -------------------------------------------


@rule(
    "MTG 704.3",
    "state-based actions, all at once: creatures with lethal damage are destroyed (704.5g), "
    "and the cards' own (704.5i, ...)",
    kind=Kind.STATE_BASED,
    when={"stage": (Stage.CHECK, Stage.PROC_C)},
)
def sba(s: MtgState, x: Any, b: Bounds) -> Any:
    x.require(any_sba(s, x, b))
    alive, dmg = s.alive, s.dmg
    t = s
    for p in range(b.players):
        dies = lethal(s, x, b, p)
        alive = x.set(alive, p, x.If(dies, False, alive[p]))
        dmg = x.set(dmg, p, x.If(dies, 0, dmg[p]))
        for f in hooks(b, "dies"):
            t = f(t, x, b, p=p, cond=dies)
    for f in hooks(b, "sba"):
        t = f(s, x, b, t=t)
    in_cleanup = x.And(s.step == Step.CLEANUP, s.stage == Stage.CHECK)
    return t.replace(alive=alive, dmg=dmg, cl_prio=x.Or(s.cl_prio, in_cleanup))


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
def stack_trigger(s: MtgState, x: Any, b: Bounds, i: int, *, order: str = "turn-order") -> Any:
    x.require(x.Not(any_sba(s, x, b)))
    item = take(x, s.pending, i, active(s, b), b.players, order)
    return s.replace(
        stack=push(x, s.stack, item, "stack"),
        pending=x.seq_remove(s.pending, i),
        cl_prio=x.Or(s.cl_prio, s.step == Step.CLEANUP),
    )


@rule(
    "MTG 117.5",
    "no state-based action applies and no trigger waits: the player receives priority",
    kind=Kind.GAME,
    when={"stage": Stage.CHECK},
)
def receive_priority(s: MtgState, x: Any, b: Bounds, *, cleanup_exception: bool = True) -> Any:
    x.require(x.seq_is_empty(s.pending))
    x.require(x.Not(any_sba(s, x, b)))
    if cleanup_exception:
        # 514.3a: in cleanup, priority only if this cleanup step performed an SBA or stacked a
        # trigger.
        x.require(x.Or(s.step != Step.CLEANUP, s.cl_prio))
    return s.replace(stage=Stage.PRIORITY)


@rule(
    "MTG 514.3",
    "cleanup with no SBA and no trigger: nobody receives priority, the step and the turn end",
    kind=Kind.GAME,
    when={"stage": Stage.CHECK},
)
def cleanup_ends_turn(s: MtgState, x: Any, b: Bounds) -> Any:
    x.require(s.step == Step.CLEANUP)
    x.require(x.Not(s.cl_prio))
    x.require(x.seq_is_empty(s.pending))
    x.require(x.Not(any_sba(s, x, b)))
    return next_turn(leave_step(s, x, b, s.step == Step.END_COMBAT), x, b)


# -- priority: the choices of the player who has it --------------------------------------------


@rule(
    "MTG 117.3d",
    "the player with priority passes; the next player in turn order would receive priority",
    kind=Kind.CHOICE,
    decider=prio,
    when={"stage": Stage.PRIORITY},
)
def pass_priority(s: MtgState, x: Any, b: Bounds) -> Any:
    x.require(s.passes + 1 < b.players)
    return s.replace(stage=Stage.CHECK, prio=next_player(s.prio, b.players), passes=s.passes + 1)


@rule(
    "MTG 117.4",
    "all players passed in succession: the top object of the stack resolves (405.5, 608.1)",
    kind=Kind.CHOICE,
    decider=prio,
    when={"stage": Stage.PRIORITY},
)
def pass_resolve(s: MtgState, x: Any, b: Bounds, *, top: bool = True) -> Any:
    x.require(s.passes + 1 == b.players)
    x.require(x.Not(x.seq_is_empty(s.stack)))
    if top:
        res, rest = x.seq_top(s.stack), x.seq_pop(s.stack)
    else:  # the bottom object resolves
        res, rest = x.seq_get(s.stack, 0), x.seq_remove(s.stack, 0)
    return s.replace(stage=Stage.RESOLVING, res=res, stack=rest, passes=0, prio=0)


def next_step(s: MtgState, x: Any) -> Term:
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
    decider=prio,
    when={"stage": Stage.PRIORITY},
)
def pass_end_step(
    s: MtgState,
    x: Any,
    b: Bounds,
    *,
    all_pass: bool = True,
    cleanup_repeats: bool = True,
    mana_empties: bool = True,
    combat_effects_end: bool = True,
) -> Any:
    if all_pass:
        x.require(s.passes + 1 == b.players)
    x.require(x.seq_is_empty(s.stack))
    t = leave_step(
        s,
        x,
        b,
        s.step == Step.END_COMBAT,
        mana=mana_empties,
        combat_effects=combat_effects_end,
    )
    if cleanup_repeats:
        return begin_step(t, x, b, next_step(s, x))
    return x.If(s.step == Step.CLEANUP, next_turn(t, x, b), begin_step(t, x, b, next_step(s, x)))


@rule(
    "MTG 117.1a",
    "the player with priority casts an instant from their hand, and keeps priority (117.3c)",
    kind=Kind.CHOICE,
    decider=prio,
    params={"card": lambda b: b.setup.castable},
    when={"stage": Stage.PRIORITY},
)
def cast(s: MtgState, x: Any, b: Bounds, card: int) -> Any:
    p = s.prio
    timing, owner = b.setup.cast[card]
    x.require(x.get(s.used, p) < b.actions)
    x.require(x.get(s.hand, p) > 0)
    x.require(owner.controls(p))
    if timing is not None:
        x.require(timing(s, x, b, p))
    return s.replace(
        stack=push(x, s.stack, Item(p, card, 0, False), "stack"),
        hand=x.set(s.hand, p, x.get(s.hand, p) - 1),
        used=x.set(s.used, p, x.get(s.used, p) + 1),
        stage=Stage.CHECK,
        passes=0,
    )


def in_combat(s: MtgState, x: Any, b: Bounds, p: Term) -> Term:
    """A cast timing: only during combat."""
    return is_one_of(x, s.step, *COMBAT_STEPS)


def activate(s: MtgState, x: Any, b: Bounds, what: int) -> Any:
    """The player with priority activates an ability of a card that uses the stack: one of
    their actions this turn; they keep priority (117.3c)."""
    p = s.prio
    x.require(x.get(s.used, p) < b.actions)
    return s.replace(
        stack=push(x, s.stack, Item(p, what, 0, False), "stack"),
        used=x.set(s.used, p, x.get(s.used, p) + 1),
        stage=Stage.CHECK,
        passes=0,
    )


@rule(
    "MTG 605.3a",
    "the player with priority activates a mana ability: it doesn't use the stack, and they keep priority",
    kind=Kind.CHOICE,
    decider=prio,
    when={"stage": Stage.PRIORITY},
)
def add_mana(s: MtgState, x: Any, b: Bounds) -> Any:
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


def begin_process(s: MtgState, proc: Proc) -> Any:
    """An effect ends the turn (724.1) or the combat phase (724.2): the process begins."""
    return s.replace(stage=Stage.PROC_A, proc=proc)


def _with_effect(b: Bounds) -> tuple[int, ...]:
    return b.setup.resolving_kinds


@rule(
    "MTG 608.2c",
    "the resolving object follows its instructions, which change nothing the turn structure "
    "looks at; anything that triggers meanwhile waits",
    kind=Kind.GAME,
    when={"stage": Stage.RESOLVING},
)
def resolve(s: MtgState, x: Any, b: Bounds) -> Any:
    what = s.res.what
    x.require(x.And(*(what != k for k in _with_effect(b))))
    return s.replace(stage=Stage.RESOLVED)


def resolution(pack: Pack, spec: KindSpec, effect: Any, value: int) -> Rule:
    """The rule by which an object of a card's kind resolves: it follows its instructions
    (608.2c), which the card's pack gives as ``effect``; anything that triggers meanwhile
    waits."""

    told = (effect.__doc__ or "it follows its instructions").strip().splitlines()[0]

    @rule(
        "MTG 608.2c",
        f"{spec.doc} resolves: {told}; anything that triggers meanwhile waits",
        kind=Kind.GAME,
        when={"stage": Stage.RESOLVING},
        name=resolution_name(spec.name),
    )
    def resolves(s: MtgState, x: Any, b: Bounds, *, me: Any) -> Any:
        x.require(s.res.what == value)
        return effect(s.replace(stage=Stage.RESOLVED), x, b, me=me)

    return resolves


@rule(
    "MTG 608.2n",
    "the resolving object finishes resolving (to the graveyard, or it ceases to exist); the "
    "active player will receive priority (117.3b)",
    kind=Kind.GAME,
    when={"stage": Stage.RESOLVED},
)
def finish_resolving(s: MtgState, x: Any, b: Bounds) -> Any:
    return to_check(s.replace(res=NO_ITEM), x, b)


# -- ending the turn (724.1) and the combat phase (724.2) ---------------------------------------


def _forget_waiting(s: MtgState, x: Any, forget: bool) -> Any:
    # Triggers that triggered before the process began cease to exist.
    if not forget:
        return s.replace(stage=Stage.PROC_B)
    return s.replace(pending=x.seq_filter(s.pending, lambda it: it.in_proc), stage=Stage.PROC_B)


def _exile_stack(s: MtgState, x: Any, whole: bool) -> Any:
    # Exile every object on the stack, the resolving one included.
    if not whole:  # only the resolving object
        return s.replace(res=NO_ITEM, stage=Stage.PROC_C)
    return s.replace(stack=x.seq_clear(s.stack), res=NO_ITEM, stage=Stage.PROC_C)


@rule(
    "MTG 724.1a",
    "ending the turn: triggers waiting from before the process cease to exist",
    kind=Kind.GAME,
    when={"stage": Stage.PROC_A},
)
def end_turn_a(s: MtgState, x: Any, b: Bounds, *, forget: bool = True) -> Any:
    x.require(s.proc == Proc.END_TURN)
    return _forget_waiting(s, x, forget)


@rule(
    "MTG 724.1b",
    "ending the turn: every object on the stack is exiled, the resolving one too",
    kind=Kind.GAME,
    when={"stage": Stage.PROC_B},
)
def end_turn_b(s: MtgState, x: Any, b: Bounds, *, whole_stack: bool = True) -> Any:
    x.require(s.proc == Proc.END_TURN)
    return _exile_stack(s, x, whole_stack)


def _process_may_end(s: MtgState, x: Any, b: Bounds, proc: Proc) -> None:
    """The last step of an ending process applies: that process, after its state-based
    actions (724.1c, 724.2c)."""
    x.require(s.proc == proc)
    x.require(x.Not(any_sba(s, x, b)))


@rule(
    "MTG 724.1d",
    "ending the turn: after state-based actions (724.1c; nobody gets priority), the current step "
    "ends and the game skips to the cleanup step (a new one if it was the cleanup step); the end "
    "step and its triggers are skipped (724.1e)",
    kind=Kind.GAME,
    when={"stage": Stage.PROC_C},
)
def end_turn_d(s: MtgState, x: Any, b: Bounds, *, then: str = "cleanup") -> Any:
    _process_may_end(s, x, b, Proc.END_TURN)
    if then == "restart":  # the process starts over
        return s.replace(stage=Stage.PROC_A)
    fighting = is_one_of(x, s.step, *COMBAT_STEPS)
    t = b.setup.reset_when(s, x, "combat", b, fighting)
    t = t.replace(mana=(0,) * b.players, attacking=False, proc=Proc.NONE)
    if then == "next turn":  # the cleanup step is skipped too
        return next_turn(t, x, b)
    return begin_step(t, x, b, Step.END if then == "end step" else Step.CLEANUP)


@rule(
    "MTG 724.2a",
    "ending combat: triggers waiting from before the process cease to exist",
    kind=Kind.GAME,
    when={"stage": Stage.PROC_A},
)
def end_combat_a(s: MtgState, x: Any, b: Bounds) -> Any:
    x.require(s.proc == Proc.END_COMBAT)
    return _forget_waiting(s, x, True)


@rule(
    "MTG 724.2b",
    "ending combat: every object on the stack is exiled, the resolving one too",
    kind=Kind.GAME,
    when={"stage": Stage.PROC_B},
)
def end_combat_b(s: MtgState, x: Any, b: Bounds) -> Any:
    x.require(s.proc == Proc.END_COMBAT)
    return _exile_stack(s, x, True)


@rule(
    "MTG 724.2d",
    "ending combat: after state-based actions (724.2c), combat ends, creatures leave combat, "
    "'until end of combat' effects end, and the next main phase begins; 'at end of combat' "
    "abilities don't trigger (724.2e)",
    kind=Kind.GAME,
    when={"stage": Stage.PROC_C},
)
def end_combat_d(s: MtgState, x: Any, b: Bounds) -> Any:
    _process_may_end(s, x, b, Proc.END_COMBAT)
    t = b.setup.reset(s, "combat", b)
    t = t.replace(mana=(0,) * b.players, attacking=False, proc=Proc.NONE)
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
