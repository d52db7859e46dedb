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
  combat phase (724.2);
* where a Saga is in play, the precombat main phase's turn-based action (714.3b: a lore
  counter on each Saga its controller controls that has chapter abilities); the Sagas
  themselves (their chapters, 714.2b, and their sacrifice, 704.5s) are card packs made by
  ``model/magic/sagas.py``.

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
    rule set), a number (a target, or "that many"), whether it triggered during an
    end-the-turn or end-combat process (724.1a keeps only those), and whether it is a copy of a
    spell (707.10: a copy is no card, and ceases to exist once it leaves the stack, 704.5e)."""

    ctrl: Any
    what: Any
    n: Any
    in_proc: Any
    copy: Any = False


NO_ITEM = Item(0, 0, 0, False, False)


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
    blocking: Term
    silenced: Any
    ctrl_now: Term
    ctrl_next: Any
    conceded: Term
    ghosts: Term
    plus: Any
    minus: Any

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
    "power": "what the card adds to the power of a player's creature: keyword p; returns a number",
    "planeswalker": "the card is a planeswalker player p controls that can be attacked: "
    "keyword p; returns a condition (506.3)",
    "planeswalker_damage": "combat damage to a planeswalker player p controls (120.3c): "
    "keywords t, p, amount, cond; returns t",
    "may_cast": "whether player p may cast spells (a 'can't cast spells' effect): keyword p; "
    "returns a condition",
    "graveyard_shuffled": "player p's graveyard is shuffled into their library: keyword p; "
    "returns the state",
    "attacks": "player p's creature attacks (508.1m): keywords p, attack (what it attacks); "
    "returns the state (triggers)",
    "cleanup": "514.2, with the end of the card's 'until end of turn' fields: keyword t; returns t",
    "turn_begins": "the turn numbered nxt would begin: keyword nxt; returns (state, number of the "
    "turn that actually begins), for a turn that is skipped (500.11)",
    "precombat_main": "player p's precombat main phase begins (714.3b, a turn-based action): "
    "keyword p; returns the state (a Saga's lore counter, its chapters trigger)",
    "lore": "lore counters are put on Sagas (714.2b): keywords chosen (a Saga's key to the "
    "condition under which it gets them), count, entering (as it enters, 714.3a); returns the "
    "state (the chapters whose number the count crosses trigger)",
}

#: The durations a card's field can have, and the rule that ends them.
DURATIONS = {
    "cleanup": "until end of turn, this turn, and damage: ends at 514.2 in each cleanup step",
    "combat": "until end of combat: ends as the combat phase ends (500.5, 724.1d, 724.2d)",
    "turn": "counted this turn: starts afresh as the next turn begins",
}


# -- the core's state ---------------------------------------------------------------------------


def item_domain(b: Bounds) -> RecordDomain:
    return item_record(Item, b, n=IntRange(0, b.hand_cap), in_proc=BoolDomain(), copy=BoolDomain())


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
    Field(
        "attacking",
        IntRange(0, 2),
        "what the active player's creature attacks: 0 nothing, 1 the defending player, 2 a "
        "planeswalker the defending player controls",
        _const(0),
    ),
    Field("blocking", BoolDomain(), "the defending player's creature blocks it", _const(False)),
    Field(
        "silenced",
        per_player(BoolDomain()),
        "a player can't cast spells this turn (an effect that ends at 514.2)",
        each(False),
    ),
    Field(
        "ctrl_now",
        lambda b: IntRange(0, b.players),
        "who controls the active player this turn (723.1): 0 nobody, q + 1 player q",
        _const(0),
    ),
    Field(
        "ctrl_next",
        lambda b: ArrayDomain(IntRange(0, b.players), b.players),
        "who will control each player during that player's next turn actually taken (723.1, "
        "723.1b): 0 nobody, q + 1 player q",
        each(0),
    ),
    Field(
        "conceded",
        lambda b: IntRange(0, b.players),
        "a player conceded, and the game is over (104.3a): 0 nobody, p + 1 player p",
        _const(0),
    ),
    Field(
        "ghosts",
        lambda b: IntRange(0, b.stack + 1),
        "copies of spells exiled from the stack, which cease to exist at the next check of "
        "state-based actions (704.5e)",
        _const(0),
    ),
    Field(
        "plus",
        lambda b: ArrayDomain(IntRange(0, b.counters), b.players),
        "+1/+1 counters on each player's creature",
        each(0),
    ),
    Field(
        "minus",
        lambda b: ArrayDomain(IntRange(0, b.counters), b.players),
        "-1/-1 counters on each player's creature",
        each(0),
    ),
)

KINDS = (KindSpec("NONE", "no object"),)

#: What the core lets a card say about its kinds (``KindSpec.traits``).
TRAITS = {"triggered": "a triggered ability (603), which Stifle can counter (a Saga's chapter)"}

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
    BoundSpec("counters", 1, 1, 4, "the most +1/+1 (or -1/-1) counters on a creature"),
    BoundSpec("mana", 1, 0, 3, "the most unspent mana a player can have"),
)


def terminal(s: MtgState, x: Any, b: Bounds) -> Term:
    """The modelled turns are over, or a player conceded (104.3a)."""
    return x.Or(s.turn == b.turns, s.conceded > 0)


# -- helpers shared by the rules and the cards ---------------------------------------------------


def _stat(s: MtgState, x: Any, b: Bounds, p: Term, base: int, hook: str) -> Term:
    total: Term = base + x.get(s.plus, p) - x.get(s.minus, p)
    for f in hooks(b, hook):
        total = total + f(s, x, b, p=p)
    return total


def toughness(s: MtgState, x: Any, b: Bounds, p: Term) -> Term:
    """A player's creature's toughness: 2, its +1/+1 and -1/-1 counters, and what the cards
    add."""
    return _stat(s, x, b, p, 2, "toughness")


def power(s: MtgState, x: Any, b: Bounds, p: Term) -> Term:
    """A player's creature's power: 1, its counters, and what the cards add."""
    return _stat(s, x, b, p, 1, "power")


def lethal(s: MtgState, x: Any, b: Bounds, p: int) -> Term:
    """704.5f and 704.5g: a creature with toughness 0 or less, or with damage at least its
    toughness, goes to the graveyard (damage is never negative, so one test says both)."""
    return x.And(s.alive[p], s.dmg[p] >= toughness(s, x, b, p))


def silence_opponents(s: MtgState, x: Any, b: Bounds, caster: Term) -> Any:
    """The caster's opponents can't cast spells this turn (Silence, Mandate of Peace)."""
    return s.replace(
        silenced=tuple(x.If(caster != p, True, s.silenced[p]) for p in range(b.players))
    )


def sorcery_timing(s: MtgState, x: Any, b: Bounds, p: Term) -> Term:
    """A cast timing: a sorcery's (307.1): its caster's main phase, with an empty stack."""
    return x.And(
        p == active(s, b), is_one_of(x, s.step, Step.MAIN1, Step.MAIN2), x.seq_is_empty(s.stack)
    )


def annihilate(s: MtgState, x: Any, p: int) -> Term:
    """704.5q: a creature has both +1/+1 and -1/-1 counters."""
    return x.And(s.plus[p] > 0, s.minus[p] > 0)


def any_sba(s: MtgState, x: Any, b: Bounds) -> Term:
    return x.Or(
        *(f(s, x, b) for f in hooks(b, "sba_applies")),
        *(lethal(s, x, b, p) for p in range(b.players)),
        *(annihilate(s, x, p) for p in range(b.players)),
        s.ghosts > 0,
    )


def fire(s: MtgState, x: Any, b: Bounds, cond: Term, ctrl: Term, what: int, n: Term = 0) -> Any:
    """A trigger fires: it waits (603.2, 603.3) until a player would receive priority. It
    remembers whether it fired during an end-the-turn or end-combat process (724.1a)."""
    item = Item(ctrl, what, n, s.proc != Proc.NONE, False)
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
    t = s.replace(
        attacking=x.If(leaving_combat, NOT_ATTACKING, s.attacking),
        blocking=x.If(leaving_combat, False, s.blocking),
    )
    if mana:
        t = t.replace(mana=(0,) * b.players)
    if combat_effects:
        t = b.setup.reset_when(t, x, "combat", b, leaving_combat)
    return t


def next_turn(s: MtgState, x: Any, b: Bounds, *, control_ends: bool = True) -> Any:
    """The turn ends and the next one begins with its untap step; what counted "this turn"
    (actions taken, and the cards' own) starts afresh. A turn that is skipped is not taken
    (500.11): the cards that skip turns say which one begins (the hook ``turn_begins``).

    The control of the turn that ended ends, and whoever the last effect waiting for the turn
    that begins names controls it (723.1, 723.1a); a skipped turn leaves that effect waiting
    for the next turn its player actually takes (723.1b)."""
    nxt: Term = s.turn + 1
    for f in hooks(b, "turn_begins"):
        s, nxt = f(s, x, b, nxt=nxt)
    t = s.replace(turn=nxt, used=(0,) * b.players, proc=Proc.NONE)
    t = b.setup.reset(t, "turn", b)
    if b.setup.tagged("controls turns"):
        a = nxt % b.players
        waiting = x.get(s.ctrl_next, a)
        ctrl_now = waiting if control_ends else x.If(waiting > 0, waiting, s.ctrl_now)
        t = t.replace(ctrl_now=ctrl_now, ctrl_next=x.set(s.ctrl_next, a, 0))
    return begin_step(t, x, b, Step.UNTAP)


def control_next_turn(
    s: MtgState, x: Any, b: Bounds, player: Term, controller: Term, *, latest: bool = True
) -> Any:
    """An effect makes ``controller`` control ``player`` during ``player``'s next turn (723.1).
    The last one created wins over any effect already waiting for that turn (723.1a)."""
    now = x.get(s.ctrl_next, player)
    value = controller + 1 if latest else x.If(now > 0, now, controller + 1)
    return s.replace(ctrl_next=x.set(s.ctrl_next, player, value))


def decided_by(s: MtgState, x: Any, b: Bounds, p: Term) -> Term:
    """Who makes a choice the rules give player ``p``: the player who controls ``p``'s turn,
    during that turn (723.5; a player who controls their own turn decides normally, 723.9);
    otherwise ``p``. A controller keeps making their own choices (723.8)."""
    controlled = x.And(p == active(s, b), s.ctrl_now > 0)
    return x.If(controlled, s.ctrl_now - 1, p)


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
    plain: tuple[Step, ...] = (Step.MAIN1, Step.BEGIN_COMBAT, Step.END_COMBAT, Step.MAIN2)
    if hooks(b, "precombat_main"):  # 714.3b gives the first main phase a turn-based action
        plain = plain[1:]
    x.require(is_one_of(x, s.step, *plain))
    return to_check(one_of_steps_begins(s, x, b, plain), x, b)


@rule(
    "MTG 714.3b",
    "the precombat main phase begins (505.1a: only the first main phase of a turn is "
    "precombat): as a turn-based action, the active player puts a lore counter on each Saga "
    "they control with chapter abilities; the chapters it crosses trigger and wait (603.3)",
    kind=Kind.TURN_BASED,
    when={"stage": Stage.BEGIN},
)
def precombat_main(s: MtgState, x: Any, b: Bounds) -> Any:
    x.require(s.step == Step.MAIN1)
    s = step_begins(s, x, b, Step.MAIN1)
    for f in hooks(b, "precombat_main"):
        s = f(s, x, b, p=active(s, b))
    return to_check(s, x, b)


def _has_sagas(setup: Any) -> bool:
    """Some card in play takes part in the precombat main phase's turn-based action (714.3b)."""
    return bool(setup.hooks["precombat_main"])


def defender(s: MtgState, b: Bounds) -> Term:
    """The defending player: the next player in turn order (506.2)."""
    return next_player(active(s, b), b.players)


def _defending(s: MtgState, x: Any, b: Bounds, **_: Any) -> Term:
    """the defending player"""
    return defender(s, b)


def controls_planeswalker(s: MtgState, x: Any, b: Bounds, p: Term) -> Term:
    """Player ``p`` controls a planeswalker that can be attacked (506.3)."""
    return x.Or(*(f(s, x, b, p=p) for f in hooks(b, "planeswalker")))


#: What the active player's creature attacks (``attacking``).
NOT_ATTACKING, ATTACKS_PLAYER, ATTACKS_PLANESWALKER = 0, 1, 2


@rule(
    "MTG 508.1",
    "declare attackers: the active player chooses whether their creature attacks, and whom: the "
    "defending player or a planeswalker they control (508.1b); attacking taps it (508.1f)",
    kind=Kind.CHOICE,
    decider=ap,
    params={"attack": (NOT_ATTACKING, ATTACKS_PLAYER, ATTACKS_PLANESWALKER)},
    when={"stage": Stage.BEGIN},
)
def declare_attackers(s: MtgState, x: Any, b: Bounds, attack: int) -> Any:
    x.require(s.step == Step.ATTACKERS)
    a = active(s, b)
    s = step_begins(s, x, b, Step.ATTACKERS)
    if attack == NOT_ATTACKING:
        return to_check(s, x, b)
    x.require(x.And(x.get(s.alive, a), x.Not(x.get(s.tapped, a))))
    if attack == ATTACKS_PLANESWALKER:
        x.require(controls_planeswalker(s, x, b, defender(s, b)))
    tapped = x.set(s.tapped, a, True)
    t = s.replace(attacking=attack, tapped=tapped)
    for f in hooks(b, "attacks"):  # "whenever ... attacks" triggers (508.1m)
        t = f(t, x, b, p=a, attack=attack)
    return to_check(t, x, b)


@rule(
    "MTG 509.1",
    "declare blockers: the defending player chooses whether their creature blocks the attacking "
    "creature; a tapped creature can't block (509.1a), and a creature blocks one attacker",
    kind=Kind.CHOICE,
    decider=_defending,
    params={"block": (0, 1)},
    when={"stage": Stage.BEGIN},
)
def declare_blockers(s: MtgState, x: Any, b: Bounds, block: int) -> Any:
    x.require(s.step == Step.BLOCKERS)
    s = step_begins(s, x, b, Step.BLOCKERS)
    if not block:
        return to_check(s, x, b)
    d = defender(s, b)
    x.require(x.And(s.attacking != NOT_ATTACKING, x.get(s.alive, d), x.Not(x.get(s.tapped, d))))
    return to_check(s.replace(blocking=True), x, b)


def _deal(dmg: Any, x: Any, b: Bounds, p: Term, amount: Term, cond: Term) -> Any:
    """``amount`` damage marked on player ``p``'s creature where ``cond`` holds (120.3e)."""
    now = x.get(dmg, p)
    x.within(x.Or(x.Not(cond), now + amount <= b.damage), "damage")
    return x.set(dmg, p, x.If(cond, now + amount, now))


@rule(
    "MTG 510.2",
    "combat damage: each attacking and blocking creature deals damage equal to its power, once "
    "(510.1a): the attacker to its blocker, or, unblocked, to the player or planeswalker it "
    "attacks; the blocker to the attacker",
    kind=Kind.TURN_BASED,
    when={"stage": Stage.BEGIN},
)
def combat_damage(s: MtgState, x: Any, b: Bounds) -> Any:
    x.require(s.step == Step.DAMAGE)
    s = step_begins(s, x, b, Step.DAMAGE)
    a, d = active(s, b), defender(s, b)
    attacks = x.And(s.attacking != NOT_ATTACKING, x.get(s.alive, a))
    blocked = x.And(s.blocking, x.get(s.alive, d))
    hits = x.Max(power(s, x, b, a), 0)
    strikes_back = x.Max(power(s, x, b, d), 0)
    dmg = _deal(s.dmg, x, b, d, hits, x.And(attacks, blocked, hits > 0))
    dmg = _deal(dmg, x, b, a, strikes_back, x.And(attacks, blocked, strikes_back > 0))
    t = s.replace(dmg=dmg)
    # Unblocked, it deals its damage to what it attacks: no life totals are modelled, but a
    # planeswalker loses that much loyalty (120.3c).
    at_walker = x.And(attacks, x.Not(blocked), s.attacking == ATTACKS_PLANESWALKER, hits > 0)
    for f in hooks(b, "planeswalker_damage"):
        t = f(s, x, b, t=t, p=d, amount=hits, cond=at_walker)
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
def cleanup_damage(
    s: MtgState, x: Any, b: Bounds, *, end_effects: bool = True, end_control: bool = False
) -> Any:
    t = s.replace(dmg=(0,) * b.players)
    if end_control:  # as if controlling a turn were an 'until end of turn' effect
        t = t.replace(ctrl_now=0)
    if end_effects:
        t = b.setup.reset(t, "cleanup", b).replace(silenced=(False,) * b.players)
        for f in hooks(b, "cleanup"):
            t = f(s, x, b, t=t)
    return t.replace(stage=Stage.CHECK, prio=active(s, b), passes=0)


# -- state-based actions and triggers (117.5, 704.3) -------------------------------------------


@rule(
    "MTG 704.3",
    "state-based actions, all at once: creatures with lethal damage or no toughness die "
    "(704.5f, 704.5g), +1/+1 and -1/-1 counters annihilate (704.5q), copies out of the stack "
    "cease to exist (704.5e), and the cards' own (704.5i, a Saga's 704.5s, ...)",
    kind=Kind.STATE_BASED,
    when={"stage": (Stage.CHECK, Stage.PROC_C)},
)
def sba(s: MtgState, x: Any, b: Bounds) -> Any:
    x.require(any_sba(s, x, b))
    alive, dmg, plus, minus = s.alive, s.dmg, s.plus, s.minus
    t = s
    for p in range(b.players):
        dies = lethal(s, x, b, p)
        alive = x.set(alive, p, x.If(dies, False, alive[p]))
        dmg = x.set(dmg, p, x.If(dies, 0, dmg[p]))
        # 704.5q: as many of each counter as the fewer of them are removed; a creature that
        # dies takes its counters with it.
        fewer = x.Min(s.plus[p], s.minus[p])
        plus = x.set(plus, p, x.If(dies, 0, s.plus[p] - fewer))
        minus = x.set(minus, p, x.If(dies, 0, s.minus[p] - fewer))
        for f in hooks(b, "dies"):
            t = f(t, x, b, p=p, cond=dies)
    for f in hooks(b, "sba"):
        t = f(s, x, b, t=t)
    in_cleanup = x.And(s.step == Step.CLEANUP, s.stage == Stage.CHECK)
    return t.replace(
        alive=alive,
        dmg=dmg,
        plus=plus,
        minus=minus,
        ghosts=0,  # 704.5e: copies out of the stack cease to exist
        cl_prio=x.Or(s.cl_prio, in_cleanup),
    )


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
    # The cheap guards (which waiting trigger may go next) before the state-based actions.
    item = take(x, s.pending, i, active(s, b), b.players, order)
    x.require(x.Not(any_sba(s, x, b)))
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
def receive_priority(
    s: MtgState,
    x: Any,
    b: Bounds,
    *,
    cleanup_exception: bool = True,
    to_controller: bool = False,
) -> Any:
    x.require(x.seq_is_empty(s.pending))
    x.require(x.Not(any_sba(s, x, b)))
    if cleanup_exception:
        # 514.3a: in cleanup, priority only if this cleanup step performed an SBA or stacked a
        # trigger.
        x.require(x.Or(s.step != Step.CLEANUP, s.cl_prio))
    if to_controller:  # as if the player who controls the turn were the active player
        return s.replace(stage=Stage.PRIORITY, prio=decided_by(s, x, b, s.prio))
    return s.replace(stage=Stage.PRIORITY)


@rule(
    "MTG 514.3",
    "cleanup with no SBA and no trigger: nobody receives priority, the step and the turn end",
    kind=Kind.GAME,
    when={"stage": Stage.CHECK},
)
def cleanup_ends_turn(s: MtgState, x: Any, b: Bounds, *, control_ends: bool = True) -> Any:
    x.require(s.step == Step.CLEANUP)
    x.require(x.Not(s.cl_prio))
    x.require(x.seq_is_empty(s.pending))
    x.require(x.Not(any_sba(s, x, b)))
    t = leave_step(s, x, b, s.step == Step.END_COMBAT)
    return next_turn(t, x, b, control_ends=control_ends)


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
        x.If(
            x.And(s.step == Step.ATTACKERS, s.attacking == NOT_ATTACKING),
            Step.END_COMBAT,
            s.step + 1,
        ),
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
    "the player with priority casts a spell from their hand (an instant whenever they have "
    "priority, a sorcery in their main phase on an empty stack, 307.1), at its target if it "
    "has a choice of targets, unless an effect says they can't; they keep priority (117.3c)",
    kind=Kind.CHOICE,
    decider=prio,
    params={"card": lambda b: b.setup.castable},
    when={"stage": Stage.PRIORITY},
)
def cast(s: MtgState, x: Any, b: Bounds, card: int, *, new_round: bool = True) -> Any:
    play = b.setup.cast[card]
    x.require(play.card.controls(s.prio))
    if play.timing is not None:
        x.require(play.timing(s, x, b, s.prio))
    if play.legal is not None:
        x.require(play.legal(s, x, b, p=s.prio))
    return cast_spell(s, x, b, play.kind, play.target, new_round=new_round)


def cast_spell(
    s: MtgState, x: Any, b: Bounds, what: int, n: Term = 0, *, new_round: bool = True
) -> Any:
    """The player with priority casts a spell from their hand, unless an effect says they
    can't: it goes on the stack with its target ``n``, it is one of their actions this turn,
    and they keep priority (117.3c). A card whose spell has targets of its own (players) casts
    it with its own rule, through this."""
    p = s.prio
    x.require(x.get(s.used, p) < b.actions)
    x.require(x.get(s.hand, p) > 0)
    x.require(x.Not(x.get(s.silenced, p)))
    for allowed in hooks(b, "may_cast"):
        x.require(allowed(s, x, b, p=p))
    return s.replace(
        stack=push(x, s.stack, Item(p, what, n, False, False), "stack"),
        hand=x.set(s.hand, p, x.get(s.hand, p) - 1),
        used=x.set(s.used, p, x.get(s.used, p) + 1),
        stage=Stage.CHECK,
        # After an action the passes start again: every other player gets priority back.
        passes=0 if new_round else s.passes,
    )


def in_combat(s: MtgState, x: Any, b: Bounds, p: Term) -> Term:
    """A cast timing: only during combat."""
    return is_one_of(x, s.step, *COMBAT_STEPS)


def activate(s: MtgState, x: Any, b: Bounds, what: int, n: Term = 0) -> Any:
    """The player with priority activates an ability of a card that uses the stack, with its
    target ``n``: one of their actions this turn; they keep priority (117.3c)."""
    p = s.prio
    x.require(x.get(s.used, p) < b.actions)
    return s.replace(
        stack=push(x, s.stack, Item(p, what, n, False, False), "stack"),
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


def _conceder(s: MtgState, x: Any, b: Bounds, p: int) -> Term:
    """the player who concedes"""
    return p


@rule(
    "MTG 104.3a",
    "a player concedes: they leave the game, which ends in a two-player game (104.3a, 800.4a); "
    "a player whose turn another player controls may still concede, and their controller "
    "can't make them (723.6)",
    kind=Kind.CHOICE,
    decider=_conceder,
    params={"p": lambda b: range(b.players)},
    when={"stage": Stage.PRIORITY},
    own_choice=True,
)
def concede(s: MtgState, x: Any, b: Bounds, p: int) -> Any:
    # A player may concede at any time; the model offers it whenever a player holds priority.
    # Leaving a game of more than two players (800.4a) is not modelled.
    x.require(b.players == 2)
    return s.replace(conceded=p + 1)


def _controls_turns(setup: Any) -> bool:
    """Some card in play makes a player control another's turn (723)."""
    return bool(setup.tagged("controls turns"))


#: Core rules that only apply with some cards in play: conceding is offered where a player can
#: control another's turn (where 723.6 says something); the precombat main phase has a
#: turn-based action of its own where a Saga is in play (714.3b).
OPTIONAL_RULES = {"concede": _controls_turns, "precombat_main": _has_sagas}


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

    doc = (effect.__doc__ or "it follows its instructions").strip()
    told = " ".join(line.strip() for line in doc.split("\n\n")[0].splitlines())

    @rule(
        "MTG 608.2c",
        f"{spec.doc} resolves: {told}; anything that triggers meanwhile waits",
        kind=Kind.GAME,
        when={"stage": Stage.RESOLVING},
        name=resolution_name(spec.name),
    )
    def resolves(s: MtgState, x: Any, b: Bounds, *, me: Any, **clauses: Any) -> Any:
        x.require(s.res.what == value)
        return effect(s.replace(stage=Stage.RESOLVED), x, b, me=me, **clauses)

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
    # Exile every object on the stack, the resolving one included; the copies among them
    # cease to exist at the next check of state-based actions (724.1c, 724.2c).
    copies = x.If(x.And(s.res.what != 0, s.res.copy), 1, 0)
    if not whole:  # only the resolving object
        return s.replace(res=NO_ITEM, ghosts=s.ghosts + copies, stage=Stage.PROC_C)
    copies = x.Sum(copies, x.seq_count(s.stack, lambda it: it.copy))
    return s.replace(
        stack=x.seq_clear(s.stack), res=NO_ITEM, ghosts=s.ghosts + copies, stage=Stage.PROC_C
    )


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
    t = t.replace(mana=(0,) * b.players, attacking=NOT_ATTACKING, blocking=False, proc=Proc.NONE)
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
    t = t.replace(mana=(0,) * b.players, attacking=NOT_ATTACKING, blocking=False, proc=Proc.NONE)
    return begin_step(t, x, b, Step.MAIN2)


RULES = (
    untap,
    upkeep,
    draw_step,
    plain_step_begins,
    precombat_main,
    declare_attackers,
    declare_blockers,
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
    concede,
    resolve,
    finish_resolving,
    end_turn_a,
    end_turn_b,
    end_turn_d,
    end_combat_a,
    end_combat_b,
    end_combat_d,
)
