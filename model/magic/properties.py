"""The properties of the Magic core: what the turn structure must do whatever the cards.

Each names the rules it is about and has at least one mutant (``mutants.py``) that breaks it.
Monitors remember history from the kinds and citations of the rules that fired, never from a
flag that the rule under test writes itself. A property about the cards' effects reads them
through their declared durations (``b.setup.ending``), so it covers every card in play.
"""

from __future__ import annotations

from typing import Any

from turnproof.model.kit.players import is_one_of, next_player, turn_order_rank
from turnproof.model.magic.core import (
    ATTACKS_PLANESWALKER,
    COMBAT_STEPS,
    NOT_ATTACKING,
    MtgState,
    Proc,
    Stage,
    Step,
    active,
    controls_planeswalker,
    defender,
    lethal,
    power,
)
from turnproof.model.magic.sagas import chapter_pending, is_chapter_of, sagas
from turnproof.model.packs import resolution_name
from turnproof.model.properties import (
    Monitor,
    always,
    exclusive_automatic,
    no_deadlock,
    reachable,
    step,
    terminates,
)
from turnproof.model.rules import Bounds, Kind
from turnproof.model.schema import BoolDomain, IntRange, Term

#: The bounds the Magic claims hold for whatever their value: the number of turns, the maximum
#: hand size, the number of effects of one duration, the actions per turn, the most damage marked
#: and unspent mana, and a planeswalker's starting loyalty (when one is in play). The symbolic
#: engine leaves them open, so its proofs cover every value (the explicit engine checks the value
#: set). The other bounds shape the state itself (players, stack and waiting capacity, hand
#: capacity, opening hands), and stay fixed.
FOR_ALL = ("turns", "hand_max", "effects", "actions", "damage", "mana", "loyalty")


def _all_zero(x: Any, arr: Term) -> Term:
    return x.And(*(v == 0 for v in arr))


def _ended(s: MtgState, x: Any, b: Bounds, duration: str) -> Term:
    """Every card field of ``duration`` is back at its value when the duration ends."""
    return x.And(*(x.Eq(getattr(s, f.name), f.reset_value(b)) for f in b.setup.ending[duration]))


def _in_force(s: MtgState, x: Any, b: Bounds, duration: str) -> Term:
    """Some effect of ``duration`` is in force."""
    return x.Not(_ended(s, x, b, duration))


def _has(duration: str) -> Any:
    """The property applies when some card in play has an effect of ``duration``."""
    return lambda setup: bool(setup.ending[duration])


def turn_starts(s: MtgState, x: Any, b: Bounds, m: Any = None) -> Term:
    return x.And(s.step == Step.UNTAP, s.stage == Stage.BEGIN, s.turn > 0)


def _no_eot_left(s: MtgState, x: Any, b: Bounds, m: Any) -> Term:
    return x.Implies(
        turn_starts(s, x, b),
        x.And(_all_zero(x, s.dmg), x.Not(x.Or(*s.silenced)), _ended(s, x, b, "cleanup")),
    )


def step_begins(t: MtgState) -> Term:
    return t.stage == Stage.BEGIN


ACTED = Monitor(
    "acted",
    BoolDomain(),
    init=lambda s, x, b: False,
    update=lambda s, t, r, m, x, b: x.If(
        step_begins(t), False, x.Or(m.acted, r.kind in (Kind.STATE_BASED, Kind.TRIGGER))
    ),
)

HAD_PRIORITY = Monitor(
    "had_priority",
    BoolDomain(),
    init=lambda s, x, b: False,
    update=lambda s, t, r, m, x, b: x.If(
        step_begins(t),
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
        step_begins(t), False, x.Or(m.ending, r.citation.startswith("MTG 724.1"))
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


#: The rules by which the player with priority passes (117.3d), or passes as the last of all
#: (117.4: the top object resolves; 500.2: the step ends).
PASSES = ("MTG 117.3d", "MTG 117.4", "MTG 500.2")

PASSED = Monitor(
    "passed",
    IntRange(0, 4),
    init=lambda s, x, b: 0,
    # Passes in succession, counted from the rules that fired (never from the rules' own
    # ``passes`` counter, which a wrong rule could fail to reset): a pass adds one; any other
    # player's action, a resolution or a new step starts the count again.
    update=lambda s, t, r, m, x, b: (
        x.If(step_begins(t), 0, x.Min(m.passed + 1, b.players))
        if r.citation == "MTG 117.3d"
        else 0
        if r.kind is Kind.CHOICE or r.citation in PASSES
        else m.passed
    ),
)


def _apnap_ok(s: MtgState, t: MtgState, r: Any, x: Any, b: Bounds, m: Any) -> Term:
    """A trigger put on the stack from the waiting ones belongs to the first player in APNAP
    order who still has one waiting."""
    moved = x.And(t.stack.length == s.stack.length + 1, t.pending.length == s.pending.length - 1)
    a = active(s, b)
    rank = turn_order_rank(x.seq_top(t.stack).ctrl, a, b.players)
    return x.Implies(
        moved, x.seq_all(t.pending, lambda it: turn_order_rank(it.ctrl, a, b.players) >= rank)
    )


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
    """While an object resolves, no waiting trigger goes on the stack (a spell the resolution
    casts, 608.2g, or a copy it makes, 707.10, does)."""
    resolving = is_one_of(x, s.stage, Stage.RESOLVING, Stage.RESOLVED)
    return x.Implies(resolving, t.pending.length >= s.pending.length)


def _fired_while_resolving(s: MtgState, x: Any, b: Bounds, m: Any) -> Term:
    return x.And(s.stage == Stage.RESOLVED, x.Not(x.seq_is_empty(s.pending)))


def _end_turn_ok(s: MtgState, t: MtgState, r: Any, x: Any, b: Bounds, m: Any) -> Term:
    """Once the turn is being ended, the next step to begin is a cleanup step of the same turn;
    it begins with an empty stack, nothing resolving, and only triggers from the process waiting."""
    ending = x.Or(m.ending, r.citation.startswith("MTG 724.1"))
    return x.Implies(
        x.And(ending, step_begins(t)),
        x.And(
            t.turn == s.turn,
            t.step == Step.CLEANUP,
            x.seq_is_empty(t.stack),
            t.res.what == 0,
            x.seq_all(t.pending, lambda it: it.in_proc),
        ),
    )


def _step_end_ok(s: MtgState, t: MtgState, r: Any, x: Any, b: Bounds, m: Any) -> Term:
    ends = x.And(s.stage == Stage.PRIORITY, step_begins(t))
    return x.Implies(ends, x.And(m.passed == b.players - 1, x.seq_is_empty(s.stack)))


def _resolves_ok(s: MtgState, t: MtgState, r: Any, x: Any, b: Bounds, m: Any) -> Term:
    starts = x.And(s.stage == Stage.PRIORITY, t.stage == Stage.RESOLVING)
    return x.Implies(starts, m.passed == b.players - 1)


def _mana_empty(s: MtgState, x: Any, b: Bounds, m: Any) -> Term:
    return x.Implies(step_begins(s), _all_zero(x, s.mana))


def _someone_has_mana(s: MtgState, x: Any, b: Bounds, m: Any) -> Term:
    return x.Or(*(v > 0 for v in s.mana))


def cleanup_priority(s: MtgState, x: Any, b: Bounds, m: Any) -> Term:
    return x.And(s.step == Step.CLEANUP, s.stage == Stage.PRIORITY)


def _eoc_in_combat(s: MtgState, x: Any, b: Bounds, m: Any) -> Term:
    return x.Implies(_in_force(s, x, b, "combat"), is_one_of(x, s.step, *COMBAT_STEPS))


def _ends_turn(setup: Any) -> bool:
    """Some card in play can end the turn (it begins the end-the-turn process)."""
    return bool(setup.tagged("ends the turn"))


# -- controlling another player's turn (723) ---------------------------------------------------

#: The most players a game can have (the bound ``players``): one monitor per player.
MAX_PLAYERS = 4


def _control_effects(r: Any, s: MtgState, x: Any, b: Bounds) -> tuple[tuple[Any, Any], ...] | None:
    """The control effects a transition by rule ``r`` creates, as the cards declare them
    (``Pack.declares["controls"]``): ``None`` when ``r`` is no resolution of such an object."""
    for c in b.setup.cards:
        for kind, effects in c.pack.declares.get("controls", {}).items():
            if r.name == resolution_name(kind) and r.card == c.name:
                return tuple(effects(s.res, x, b))
    return None


def _made(p: int) -> Monitor:
    """Who the last control effect created for player ``p``'s next turn names (q + 1; 0:
    none), from the resolutions of the objects that create them (and, at the start, the effect
    waiting there); it is used up when ``p``'s turn actually begins."""

    def update(s: MtgState, t: MtgState, r: Any, m: Any, x: Any, b: Bounds) -> Term:
        now = getattr(m, f"made_{p}")
        if p >= b.players:
            return 0
        effects = _control_effects(r, s, x, b)
        if effects is not None:
            for who, by in effects:
                now = x.If(who == p, by + 1, now)
            return now
        return x.If(x.And(t.turn != s.turn, active(t, b) == p), 0, now)

    def init(s: MtgState, x: Any, b: Bounds) -> Term:
        # An effect waiting in the start state (a scenario's) was created before it.
        return x.get(s.ctrl_next, p) if p < b.players else 0

    return Monitor(f"made_{p}", IntRange(0, MAX_PLAYERS), init, update)


MADE = tuple(_made(p) for p in range(MAX_PLAYERS))


def _made_for(m: Any, x: Any, b: Bounds, p: Term) -> Term:
    return x.get(tuple(getattr(m, f"made_{q}") for q in range(b.players)), p)


def _twice_update(s: MtgState, t: MtgState, r: Any, m: Any, x: Any, b: Bounds) -> Term:
    effects = _control_effects(r, s, x, b)
    if effects is None:
        return m.twice
    again = [
        x.And(who == p, getattr(m, f"made_{p}") > 0) for who, _ in effects for p in range(b.players)
    ]
    return x.Or(m.twice, *again)


TWICE = Monitor("twice", BoolDomain(), lambda s, x, b: False, _twice_update)

FRESH = Monitor(
    "fresh",
    BoolDomain(),
    init=lambda s, x, b: s.stage == Stage.BEGIN,
    # True from the start of a step until a player first receives priority in it.
    update=lambda s, t, r, m, x, b: x.If(
        step_begins(t), True, x.And(m.fresh, t.stage != Stage.PRIORITY)
    ),
)

SKIPPED_WAITING = Monitor(
    "skipped_waiting",
    BoolDomain(),
    init=lambda s, x, b: False,
    # True in a state entered by a turn change that skipped a turn of a player for whom a
    # control effect was waiting.
    update=lambda s, t, r, m, x, b: x.And(
        t.turn >= s.turn + 2, x.get(s.ctrl_next, (s.turn + 1) % b.players) > 0
    ),
)


def _turn_changes(s: MtgState, t: MtgState) -> Term:
    return t.turn != s.turn


def _controlled(s: MtgState, x: Any, b: Bounds, m: Any) -> Term:
    return s.ctrl_now > 0


def _controlled_by_another(s: MtgState, x: Any, b: Bounds, m: Any) -> Term:
    return x.And(s.ctrl_now > 0, s.ctrl_now - 1 != active(s, b))


def _control_ends(s: MtgState, t: MtgState, r: Any, x: Any, b: Bounds, m: Any) -> Term:
    nothing_waits = _made_for(m, x, b, active(t, b)) == 0
    return x.Implies(x.And(_turn_changes(s, t), nothing_waits), t.ctrl_now == 0)


def _last_wins(s: MtgState, t: MtgState, r: Any, x: Any, b: Bounds, m: Any) -> Term:
    made = _made_for(m, x, b, active(t, b))
    return x.Implies(x.And(_turn_changes(s, t), made > 0), t.ctrl_now == made)


def _skip_keeps(s: MtgState, t: MtgState, r: Any, x: Any, b: Bounds, m: Any) -> Term:
    a = active(t, b)
    unchanged = [
        x.Implies(a != q, x.get(t.ctrl_next, q) == x.get(s.ctrl_next, q)) for q in range(b.players)
    ]
    return x.Implies(_turn_changes(s, t), x.And(*unchanged))


def _stays_active(s: MtgState, t: MtgState, r: Any, x: Any, b: Bounds, m: Any) -> Term:
    return x.Implies(x.And(m.fresh, t.stage == Stage.PRIORITY), t.prio == active(t, b))


def _controls_turns(setup: Any) -> bool:
    return bool(setup.tagged("controls turns"))


def _controls_and_skips(setup: Any) -> bool:
    return _controls_turns(setup) and bool(setup.tagged("skips turns"))


CONTROL_PROPERTIES = (
    step(
        "control-covers-the-whole-turn",
        "a player who controls another's turn controls all of it: control does not change "
        "during the turn, through every cleanup step and its priority windows (514.3a)",
        lambda s, t, r, x, b, m: x.Implies(t.turn == s.turn, t.ctrl_now == s.ctrl_now),
        antecedent=_controlled,
        citations=("MTG 723.1",),
        for_all=FOR_ALL,
        applies_to=_controls_turns,
    ),
    step(
        "control-ends-when-next-turn-begins",
        "the control of a turn ends as the next turn begins: a turn for which no control effect "
        "was created is nobody's to control (the effects are counted from the resolutions of "
        "the objects that create them)",
        _control_ends,
        monitors=MADE,
        antecedent=_controlled,
        citations=("MTG 723.1",),
        for_all=FOR_ALL,
        applies_to=_controls_turns,
    ),
    step(
        "last-control-effect-wins",
        "of several control effects waiting for a player's next turn, the last one created "
        "decides who controls it",
        _last_wins,
        monitors=(*MADE, TWICE),
        antecedent=lambda s, x, b, m: m.twice,
        citations=("MTG 723.1a",),
        for_all=FOR_ALL,
        applies_to=_controls_turns,
    ),
    step(
        "skipped-turn-keeps-control",
        "a skipped turn leaves the control effect waiting for its player in place: it applies "
        "to the next turn that player actually takes",
        _skip_keeps,
        monitors=(SKIPPED_WAITING,),
        antecedent=lambda s, x, b, m: m.skipped_waiting,
        citations=("MTG 723.1b", "MTG 500.11"),
        for_all=FOR_ALL,
        applies_to=_controls_and_skips,
    ),
    step(
        "controlled-player-stays-active",
        "a player whose turn another player controls is still the active player: each step's "
        "first priority goes to them (117.3a, 117.3b), not to their controller",
        _stays_active,
        monitors=(FRESH,),
        antecedent=_controlled_by_another,
        citations=("MTG 723.3", "MTG 117.3a"),
        for_all=FOR_ALL,
        applies_to=_controls_turns,
    ),
)


# -- Sagas (714) --------------------------------------------------------------------------------


def _with_chapters(b: Bounds) -> list[Any]:
    return [spec for _, spec in sagas(b) if spec.chapters]


def _sba_check(s: MtgState, x: Any) -> Term:
    """State-based actions are checked next: a player would receive priority (117.5, 704.3),
    or an ending process performs them (724.1c, 724.2c)."""
    return is_one_of(x, s.stage, Stage.CHECK, Stage.PROC_C)


def _waits_and_done(s: MtgState, x: Any, b: Bounds, m: Any) -> Term:
    return x.Or(
        *(
            x.And(spec.on(s), spec.lore(s) >= spec.final, chapter_pending(s, x, b, spec))
            for spec in _with_chapters(b)
        )
    )


def _saga_waits(s: MtgState, t: MtgState, r: Any, x: Any, b: Bounds, m: Any) -> Term:
    return x.And(
        *(
            x.Implies(x.And(spec.on(s), x.Not(spec.on(t))), x.Not(chapter_pending(s, x, b, spec)))
            for spec in _with_chapters(b)
        )
    )


def _saga_finished(s: MtgState, x: Any, b: Bounds, spec: Any) -> Term:
    return x.And(
        _sba_check(s, x),
        spec.on(s),
        spec.lore(s) >= spec.final,
        x.Not(chapter_pending(s, x, b, spec)),
    )


def _some_saga_finished(s: MtgState, x: Any, b: Bounds, m: Any) -> Term:
    return x.Or(*(_saga_finished(s, x, b, spec) for spec in _with_chapters(b)))


def _saga_goes(s: MtgState, t: MtgState, r: Any, x: Any, b: Bounds, m: Any) -> Term:
    return x.And(
        *(x.Implies(_saga_finished(s, x, b, spec), x.Not(spec.on(t))) for spec in _with_chapters(b))
    )


def _once_per_crossing(s: MtgState, t: MtgState, r: Any, x: Any, b: Bounds, m: Any) -> Term:
    """A transition adds a trigger of chapter n of a Saga only if it takes the Saga's lore count
    from below n to at least n (a Saga off the battlefield has none), and adds one at most."""
    claims = []
    for _, spec in sagas(b):
        for ch, kind in zip(spec.chapters, spec.chapter_kinds(b), strict=True):
            ks = (kind,)
            added = x.seq_count(
                t.pending, lambda it, ks=ks: is_chapter_of(x, it, ks)
            ) - x.seq_count(s.pending, lambda it, ks=ks: is_chapter_of(x, it, ks))
            crossed = x.And(spec.lore(s) < ch.n, spec.lore(t) >= ch.n)
            claims.append(x.Implies(added > 0, x.And(added == 1, crossed)))
    return x.And(*claims)


def _chapter_placed(s: MtgState, x: Any, b: Bounds, m: Any) -> Term:
    """Some Saga with chapters is on the battlefield with a lore counter (placements follow)."""
    return x.Or(*(x.And(spec.on(s), spec.lore(s) > 0) for spec in _with_chapters(b)))


def _without_chapters(b: Bounds) -> list[Any]:
    return [spec for _, spec in sagas(b) if not spec.chapters]


def _abilityless_on(s: MtgState, x: Any, b: Bounds, m: Any) -> Term:
    return x.Or(*(spec.on(s) for spec in _without_chapters(b)))


def _abilityless_stays(s: MtgState, t: MtgState, r: Any, x: Any, b: Bounds, m: Any) -> Term:
    return x.And(*(x.Implies(spec.on(s), spec.on(t)) for spec in _without_chapters(b)))


def _sagas_with_chapters(setup: Any) -> bool:
    return any(c.pack.declares["saga"].chapters for c in setup.tagged("saga"))


def _sagas_without_chapters(setup: Any) -> bool:
    return any(not c.pack.declares["saga"].chapters for c in setup.tagged("saga"))


SAGA_PROPERTIES = (
    step(
        "saga-waits-for-its-chapters",
        "a Saga is never sacrificed while one of its chapter abilities has triggered and not "
        "yet left the stack: waiting to be put on the stack, on it, or resolving",
        _saga_waits,
        antecedent=_waits_and_done,
        citations=("MTG 714.4", "MTG 704.5s"),
        for_all=FOR_ALL,
        applies_to=_sagas_with_chapters,
    ),
    step(
        "saga-sacrificed-when-done",
        "a Saga with lore counters at least its final chapter number and no chapter ability "
        "of it pending is sacrificed as state-based actions are next checked: when a player "
        "would receive priority (117.5) or an ending process checks them (724.1c), the next "
        "transition removes it",
        _saga_goes,
        antecedent=_some_saga_finished,
        citations=("MTG 714.4", "MTG 704.5s", "MTG 704.3"),
        for_all=FOR_ALL,
        applies_to=_sagas_with_chapters,
    ),
    step(
        "chapter-triggers-once-per-crossing",
        "a chapter ability triggers only on a placement of lore counters that takes the count "
        "from below its number to at least it, and once per such crossing (a read-ahead Saga's "
        "skipped chapters don't trigger at all)",
        _once_per_crossing,
        antecedent=_chapter_placed,
        citations=("MTG 714.2b", "MTG 702.155a"),
        for_all=FOR_ALL,
        applies_to=_sagas_with_chapters,
    ),
    step(
        "saga-without-chapters-never-sacrificed",
        "a Saga with no chapter abilities is never sacrificed (the 2025 rules: 714.4 needs a "
        "chapter ability)",
        _abilityless_stays,
        antecedent=_abilityless_on,
        citations=("MTG 714.4", "MTG 704.5s", "MTG 714.3b"),
        for_all=FOR_ALL,
        applies_to=_sagas_without_chapters,
    ),
)


# -- who does what: the properties the generated mutants asked for (checks/mutate.py) ----------


def _passes(s: MtgState, t: MtgState, r: Any, x: Any, b: Bounds, m: Any) -> Term:
    """A pass that does not end anything gives priority to the next player in turn order, who
    would receive it: state-based actions and triggers first."""
    passed = t.prio == next_player(s.prio, b.players)
    return x.Implies(r.citation == "MTG 117.3d", x.And(passed, t.stage == Stage.CHECK))


def _own_mana(s: MtgState, t: MtgState, r: Any, x: Any, b: Bounds, m: Any) -> Term:
    """Mana is added only to the pool of the player who has priority (who activated the
    ability)."""
    return x.And(*(x.Implies(t.mana[p] > s.mana[p], s.prio == p) for p in range(b.players)))


def _draws(s: MtgState, t: MtgState, r: Any, x: Any, b: Bounds, m: Any) -> Term:
    a = active(s, b)
    hands = [
        x.If(a == p, t.hand[p] == s.hand[p] + 1, t.hand[p] == s.hand[p]) for p in range(b.players)
    ]
    return x.Implies(
        x.And(s.step == Step.DRAW, s.stage == Stage.BEGIN, t.stage != Stage.BEGIN), x.And(*hands)
    )


def _discards(s: MtgState, t: MtgState, r: Any, x: Any, b: Bounds, m: Any) -> Term:
    a = active(s, b)
    hands = [
        x.If(a == p, t.hand[p] == x.Min(s.hand[p], b.hand_max), t.hand[p] == s.hand[p])
        for p in range(b.players)
    ]
    begins = x.And(s.step == Step.CLEANUP, s.stage == Stage.BEGIN, t.stage == Stage.DAMAGE_REMOVAL)
    return x.Implies(begins, x.And(*hands))


def _declares(s: MtgState, t: MtgState, x: Any) -> Term:
    return x.And(s.step == Step.ATTACKERS, s.stage == Stage.BEGIN, t.stage != Stage.BEGIN)


def _attacker_taps(s: MtgState, t: MtgState, r: Any, x: Any, b: Bounds, m: Any) -> Term:
    """Declaring attackers taps the active player's creature when it attacks, and changes no
    other creature's tapped state."""
    a = active(s, b)
    taps = [
        x.If(
            a == p,
            t.tapped[p] == x.Or(s.tapped[p], t.attacking != NOT_ATTACKING),
            t.tapped[p] == s.tapped[p],
        )
        for p in range(b.players)
    ]
    return x.Implies(_declares(s, t, x), x.And(*taps))


def _attacker_can_attack(s: MtgState, t: MtgState, r: Any, x: Any, b: Bounds, m: Any) -> Term:
    a = active(s, b)
    able = x.And(x.get(s.alive, a), x.Not(x.get(s.tapped, a)))
    return x.Implies(x.And(_declares(s, t, x), t.attacking != NOT_ATTACKING), able)


def _lethal_dies(s: MtgState, t: MtgState, r: Any, x: Any, b: Bounds, m: Any) -> Term:
    dies = [x.Implies(lethal(s, x, b, p), x.Not(t.alive[p])) for p in range(b.players)]
    return x.Implies(r.citation == "MTG 704.3", x.And(*dies))


def put_on_stack(s: MtgState, t: MtgState, x: Any, kind: int) -> Term:
    """An object of ``kind`` has just been put on the stack by a player's action (it is the
    new top object, and it did not come from the waiting triggers)."""
    return x.And(
        t.stack.length == s.stack.length + 1,
        t.pending.length == s.pending.length,
        x.seq_top(t.stack).what == kind,
    )


def kind_on_stack(name: str) -> Any:
    """A state predicate: an object of the kind named ``name`` is on the stack."""
    return lambda s, x, b, m: x.seq_any(s.stack, lambda it: it.what == b.setup.kind_of(name))


def _waiting_goes_first(s: MtgState, t: MtgState, r: Any, x: Any, b: Bounds, m: Any) -> Term:
    """Where a player would receive priority and a trigger waits, the next thing to happen is
    a state-based action or a waiting trigger going on the stack."""
    waits = x.And(s.stage == Stage.CHECK, x.Not(x.seq_is_empty(s.pending)))
    return x.Implies(waits, r.kind in (Kind.STATE_BASED, Kind.TRIGGER))


def _waiting_at_check(s: MtgState, x: Any, b: Bounds, m: Any) -> Term:
    return x.And(s.stage == Stage.CHECK, x.Not(x.seq_is_empty(s.pending)))


#: The stages of an ending process (724.1a-d, 724.2a-d).
PROCESS_STAGES = (Stage.PROC_A, Stage.PROC_B, Stage.PROC_C)


def _card_controllers(b: Bounds) -> tuple[tuple[int, int], ...]:
    """Each object kind that comes from a card with one controller, and that controller."""
    return tuple(
        (k, c.controller) for k, c in sorted(b.setup.owners.items()) if c.controller is not None
    )


def _from_a_card(x: Any, b: Bounds, it: Any) -> Term:
    return x.And(x.Not(it.copy), x.Or(*(it.what == k for k, _ in _card_controllers(b))))


def _controlled_by_its_card(x: Any, b: Bounds, it: Any) -> Term:
    """``it`` is a copy, or controlled by the controller of the card it comes from."""
    mine = [x.Implies(it.what == k, it.ctrl == c) for k, c in _card_controllers(b)]
    return x.Or(it.copy, x.And(*mine))


def _card_objects_controlled(s: MtgState, x: Any, b: Bounds, m: Any) -> Term:
    return x.And(
        x.seq_all(s.stack, lambda it: _controlled_by_its_card(x, b, it)),
        x.seq_all(s.pending, lambda it: _controlled_by_its_card(x, b, it)),
    )


def _card_object_exists(s: MtgState, x: Any, b: Bounds, m: Any) -> Term:
    return x.Or(
        x.seq_any(s.stack, lambda it: _from_a_card(x, b, it)),
        x.seq_any(s.pending, lambda it: _from_a_card(x, b, it)),
    )


def _has_controlled_cards(setup: Any) -> bool:
    """Some card in play that puts objects on the stack has one controller."""
    return any(c.controller is not None for c in setup.owners.values())


def _attacks_what_exists(s: MtgState, t: MtgState, r: Any, x: Any, b: Bounds, m: Any) -> Term:
    at_walker = t.attacking == ATTACKS_PLANESWALKER
    return x.Implies(
        x.And(_declares(s, t, x), at_walker), controls_planeswalker(s, x, b, defender(s, b))
    )


def _damage_is_power(s: MtgState, t: MtgState, r: Any, x: Any, b: Bounds, m: Any) -> Term:
    """Combat damage between an attacking creature and its blocker: each deals damage equal to
    its power (none if its power is 0 or less) to the other; an unblocked attacker or no
    attacker marks no damage on a creature."""
    a, d = active(s, b), defender(s, b)
    attacks = x.And(s.attacking != NOT_ATTACKING, x.get(s.alive, a))
    blocked = x.And(attacks, s.blocking, x.get(s.alive, d))
    to_d = x.Max(power(s, x, b, a), 0)
    to_a = x.Max(power(s, x, b, d), 0)
    dealt = x.And(
        x.get(t.dmg, d) == x.get(s.dmg, d) + x.If(blocked, to_d, 0),
        x.get(t.dmg, a) == x.get(s.dmg, a) + x.If(blocked, to_a, 0),
    )
    deals = x.And(s.step == Step.DAMAGE, s.stage == Stage.BEGIN, t.stage != Stage.BEGIN)
    return x.Implies(deals, dealt)


def _blocked_attack(s: MtgState, x: Any, b: Bounds, m: Any) -> Term:
    return x.And(s.step == Step.DAMAGE, s.stage == Stage.BEGIN, s.blocking, s.attacking > 0)


FIRST = Monitor(
    "first",
    BoolDomain(),
    init=lambda s, x, b: s.stage == Stage.BEGIN,
    # True from the start of a step, or from the end of a resolution, until a player next
    # receives priority.
    update=lambda s, t, r, m, x, b: x.If(
        x.Or(step_begins(t), r.citation == "MTG 608.2n"),
        True,
        x.And(m.first, t.stage != Stage.PRIORITY),
    ),
)


ACT_PROPERTIES = (
    step(
        "active-player-gets-priority-first",
        "the active player is the first to receive priority in each step with priority and "
        "after each resolution",
        lambda s, t, r, x, b, m: x.Implies(
            x.And(m.first, t.stage == Stage.PRIORITY), t.prio == active(t, b)
        ),
        monitors=(FIRST,),
        antecedent=lambda s, x, b, m: s.stage == Stage.RESOLVED,
        citations=("MTG 117.3a", "MTG 117.3b"),
        for_all=FOR_ALL,
    ),
    step(
        "pass-gives-priority-to-next-player",
        "a player who passes (without ending the step or resolving anything) passes priority to "
        "the next player in turn order, who would receive it: state-based actions and triggers "
        "first",
        _passes,
        citations=("MTG 117.3d", "MTG 117.5"),
        for_all=FOR_ALL,
    ),
    step(
        "mana-goes-to-its-player",
        "mana is added only to the mana pool of the player who activated the mana ability (the "
        "player with priority)",
        _own_mana,
        antecedent=_someone_has_mana,
        citations=("MTG 605.3a", "MTG 106.4"),
        for_all=FOR_ALL,
    ),
    step(
        "active-player-draws",
        "the draw step's turn-based action: the active player draws one card, and no other "
        "player's hand changes",
        _draws,
        antecedent=lambda s, x, b, m: x.And(s.step == Step.DRAW, s.stage == Stage.BEGIN),
        citations=("MTG 504.1",),
        for_all=FOR_ALL,
    ),
    step(
        "cleanup-discards-to-hand-size",
        "as the cleanup step begins, the active player discards down to the maximum hand size, "
        "and only they: a hand within the maximum and every other player's hand keep their cards",
        _discards,
        antecedent=lambda s, x, b, m: x.And(
            s.step == Step.CLEANUP, s.stage == Stage.BEGIN, x.get(s.hand, active(s, b)) > b.hand_max
        ),
        citations=("MTG 514.1",),
        for_all=FOR_ALL,
    ),
    step(
        "attacking-creature-taps",
        "declaring attackers taps the active player's creature if it attacks (it has no "
        "vigilance), and no other creature's tapped state changes",
        _attacker_taps,
        antecedent=lambda s, x, b, m: s.attacking != NOT_ATTACKING,
        citations=("MTG 508.1f", "MTG 508.1a"),
        for_all=FOR_ALL,
    ),
    step(
        "only-an-untapped-creature-attacks",
        "the creature declared as an attacker is on the battlefield and untapped",
        _attacker_can_attack,
        antecedent=lambda s, x, b, m: s.attacking != NOT_ATTACKING,
        citations=("MTG 508.1a",),
        for_all=FOR_ALL,
    ),
    step(
        "lethal-damage-destroys",
        "when state-based actions are performed, a creature with damage at least its "
        "toughness (or toughness 0 or less) is put into its owner's graveyard",
        _lethal_dies,
        antecedent=lambda s, x, b, m: x.Or(*(lethal(s, x, b, p) for p in range(b.players))),
        citations=("MTG 704.5f", "MTG 704.5g", "MTG 704.3"),
        for_all=FOR_ALL,
    ),
    step(
        "attacks-a-planeswalker-only-if-there-is-one",
        "a creature is declared attacking a planeswalker only when the defending player controls "
        "one that can be attacked",
        _attacks_what_exists,
        # Checked at each declaration of attackers (with no planeswalker to attack, none is
        # ever attacked, so "attacking a planeswalker" is no antecedent that must be reached).
        antecedent=lambda s, x, b, m: x.And(s.step == Step.ATTACKERS, s.stage == Stage.BEGIN),
        citations=("MTG 508.1b", "MTG 506.3"),
        for_all=FOR_ALL,
    ),
    reachable(
        "a-creature-can-block",
        "can the defending player's creature block the attacking creature? (the case "
        "combat-damage-by-power must cover)",
        lambda s, x, b, m: s.blocking,
        citations=("MTG 509.1",),
    ),
    step(
        "combat-damage-by-power",
        "combat damage: an attacking creature and its blocker each deal damage equal to their "
        "power to the other, once; no creature is dealt combat damage otherwise",
        _damage_is_power,
        antecedent=_blocked_attack,
        citations=("MTG 510.1a", "MTG 510.2"),
        for_all=FOR_ALL,
    ),
    step(
        "resolves-only-an-object",
        "something resolves only when all players pass with an object on the stack",
        lambda s, t, r, x, b, m: x.Implies(
            x.And(s.stage == Stage.PRIORITY, t.stage == Stage.RESOLVING), s.stack.length > 0
        ),
        citations=("MTG 117.4", "MTG 405.5"),
        for_all=FOR_ALL,
    ),
    always(
        "creatures-leave-combat-with-it",
        "a creature is attacking or blocking only during the combat phase: creatures are "
        "removed from combat as it ends, or as an effect ends the turn during it",
        lambda s, x, b, m: x.Implies(
            x.Or(s.attacking != NOT_ATTACKING, s.blocking), is_one_of(x, s.step, *COMBAT_STEPS)
        ),
        antecedent=lambda s, x, b, m: x.Or(s.attacking != NOT_ATTACKING, s.blocking),
        citations=("MTG 511.3", "MTG 506.4", "MTG 724.1d"),
        for_all=FOR_ALL,
    ),
    step(
        "waiting-triggers-go-on-the-stack",
        "when a player would receive priority, the triggers waiting are put on the stack (after "
        "state-based actions) before anything else happens: no player receives priority and no "
        "cleanup step ends while one waits",
        _waiting_goes_first,
        antecedent=_waiting_at_check,
        citations=("MTG 603.3", "MTG 117.5", "MTG 514.3a"),
        for_all=FOR_ALL,
    ),
    step(
        "resolution-follows-its-instructions-once",
        "a resolving object follows its instructions once and then finishes resolving (or the "
        "effect it created ends the turn or the combat phase)",
        lambda s, t, r, x, b, m: x.Implies(
            s.stage == Stage.RESOLVING, is_one_of(x, t.stage, Stage.RESOLVED, Stage.PROC_A)
        ),
        antecedent=lambda s, x, b, m: s.stage == Stage.RESOLVING,
        citations=("MTG 608.2c", "MTG 608.2n"),
        for_all=FOR_ALL,
    ),
    always(
        "nothing-resolves-once-it-has-finished",
        "an object is resolving only from the moment all players pass until it finishes "
        "resolving or an ending process exiles it: nobody has priority while something resolves",
        lambda s, x, b, m: x.Implies(
            s.res.what != 0,
            is_one_of(x, s.stage, Stage.RESOLVING, Stage.RESOLVED, Stage.PROC_A, Stage.PROC_B),
        ),
        antecedent=lambda s, x, b, m: s.stage == Stage.RESOLVED,
        citations=("MTG 608.2n", "MTG 117.2e", "MTG 724.1b"),
        for_all=FOR_ALL,
    ),
    always(
        "ending-process-is-over-when-its-step-begins",
        "an effect's ending of the turn or of the combat phase is under way only until the step "
        "it skips to begins: nobody gets priority during it, and a trigger that fires afterwards "
        "is no trigger of the process",
        lambda s, x, b, m: x.Implies(s.proc != Proc.NONE, is_one_of(x, s.stage, *PROCESS_STAGES)),
        antecedent=lambda s, x, b, m: s.proc != Proc.NONE,
        citations=("MTG 724.1c", "MTG 724.1d", "MTG 724.1f", "MTG 724.2d"),
        for_all=FOR_ALL,
        applies_to=lambda setup: _ends_turn(setup) or bool(setup.tagged("ends the combat phase")),
    ),
    always(
        "a-cards-objects-are-its-controllers",
        "a spell or ability from a card a player controls (or holds) is controlled by that "
        "player, whether on the stack or waiting: only they cast it from their hand or activate "
        "it, and a trigger is controlled by its source's controller (a copy is its caster's)",
        _card_objects_controlled,
        antecedent=_card_object_exists,
        citations=("MTG 405.4", "MTG 117.1a", "MTG 603.3a"),
        for_all=FOR_ALL,
        applies_to=_has_controlled_cards,
    ),
)


PROPERTIES = (
    terminates(
        "end-the-turn-terminates",
        "the end-the-turn process ends: no cycle among its states (724.1a-d: waiting triggers "
        "cease to exist, the stack is exiled, state-based actions, then the cleanup step)",
        lambda s, x, b, m: s.proc == Proc.END_TURN,
        citations=("MTG 724.1a", "MTG 724.1b", "MTG 724.1d", "MTG 704.3"),
        for_all=FOR_ALL,
        applies_to=_ends_turn,
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
        antecedent=turn_starts,
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
        lambda s, x, b, m: x.Implies(cleanup_priority(s, x, b, m), m.acted),
        antecedent=cleanup_priority,
        monitors=(ACTED,),
        citations=("MTG 514.3", "MTG 514.3a"),
        for_all=FOR_ALL,
    ),
    step(
        "cleanup-with-priority-repeats",
        "a cleanup step in which players got priority is followed by another cleanup step: the "
        "turn ends only after a cleanup step without priority",
        lambda s, t, r, x, b, m: x.Implies(t.turn != s.turn, x.Not(m.had_priority)),
        antecedent=cleanup_priority,
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
        applies_to=_ends_turn,
    ),
    step(
        "step-ends-after-all-pass",
        "a step with priority ends only after all players pass in succession with an empty stack "
        "(the passes are counted from the rules that fired)",
        _step_end_ok,
        monitors=(PASSED,),
        citations=("MTG 117.4", "MTG 500.2"),
        for_all=FOR_ALL,
    ),
    step(
        "resolves-after-all-pass",
        "the top object resolves only after all players pass in succession: after any action, "
        "every other player gets priority back before anything resolves (the passes are "
        "counted from the rules that fired)",
        _resolves_ok,
        monitors=(PASSED,),
        antecedent=lambda s, x, b, m: x.And(s.stage == Stage.PRIORITY, s.stack.length > 0),
        citations=("MTG 117.4", "MTG 117.3c", "MTG 117.3d"),
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
        _eoc_in_combat,
        antecedent=lambda s, x, b, m: _in_force(s, x, b, "combat"),
        citations=("MTG 500.5", "MTG 724.2d"),
        for_all=FOR_ALL,
        applies_to=_has("combat"),
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
        lambda s, x, b, m: x.And(s.proc == Proc.END_TURN, _in_force(s, x, b, "cleanup")),
        citations=("MTG 724.1", "MTG 514.2"),
        applies_to=lambda setup: _ends_turn(setup) and bool(setup.ending["cleanup"]),
    ),
    *CONTROL_PROPERTIES,
    *SAGA_PROPERTIES,
    *ACT_PROPERTIES,
)
