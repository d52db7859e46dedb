"""The properties of the Riftbound core: what the chain and the turn around it must do whatever
the cards.

Each names the rules it is about and has at least one mutant (``mutants.py``, or a card's pack)
that breaks it. Monitors remember history from the rules that fired and the states they left,
never from a flag that the rule under test writes itself. The properties read what an item is
through its kind's traits (``b.setup.kinds_with``), so they cover every card in play.
"""

from __future__ import annotations

from typing import Any

from turnproof.model.kit.players import active, is_one_of, next_player
from turnproof.model.properties import (
    Monitor,
    always,
    exclusive_automatic,
    no_deadlock,
    step,
    terminates,
)
from turnproof.model.riftbound.core import (
    FINALIZING,
    IMMEDIATE,
    TARGETING,
    Contest,
    Opener,
    Phase,
    RbState,
    Stage,
    Zone,
    any_legal_target,
    closed,
    has_pending,
    is_any,
    is_kind,
    legal_target,
    passes_legality_check,
    pending_index,
    slots,
    target_count,
)
from turnproof.model.rules import Bounds, Kind
from turnproof.model.schema import BoolDomain, IntRange, Term

#: The bounds the Riftbound claims hold for whatever their value: the number of turns, the cards
#: a player may play a turn, the energy a pool holds, the damage marked on a permanent and the
#: 'this turn' effects counted. The symbolic engine leaves them open, so its proofs cover every
#: value (the explicit engine checks the value set). The other bounds shape the state itself
#: (players, chain and waiting capacity, hand capacity, opening hands) and stay fixed.
FOR_ALL = ("turns", "actions", "energy", "damage", "effects")


def resolving(s: RbState, x: Any) -> Term:
    """Something resolves: an item follows its instructions or is finishing (340)."""
    return is_one_of(x, s.stage, Stage.RESOLVING, Stage.RESOLVED)


def _pending_on_top(s: RbState, x: Any, b: Bounds, m: Any) -> Term:
    """No finalized item lies above a pending one: items join the chain at the top, so
    finalizing the oldest pending item first (337.1.b) keeps the pending ones on top."""
    chain = s.chain
    n = len(chain.slots)
    return x.And(
        *(
            x.Not(
                x.And(chain.length > j, x.Not(chain.slots[i].fin), chain.slots[j].fin),
            )
            for i in range(n)
            for j in range(i + 1, n)
        )
    )


def _two_pending(s: RbState, x: Any, b: Bounds, m: Any) -> Term:
    return x.seq_count(s.chain, lambda it: x.Not(it.fin)) >= 2


def _no_resolution_in_tasks(s: RbState, t: RbState, r: Any, x: Any, b: Bounds, m: Any) -> Term:
    """A resolution (340, 337.1.c) or a finalization starts only when nothing else resolves and
    no cleanup is outstanding (320, HOT FEPR); a cleanup runs only when nothing resolves (321)."""
    starts = x.Or(
        x.And(t.stage == Stage.RESOLVING, s.stage != Stage.RESOLVING),
        r.citation in FINALIZING,
    )
    busy = x.Or(resolving(s, x), s.tasks)
    return x.And(
        x.Implies(starts, x.Not(busy)),
        x.Implies(r.citation == "RB 322", x.Not(resolving(s, x))),
    )


def _immediate_never_wait(s: RbState, x: Any, b: Bounds, m: Any) -> Term:
    return x.seq_all(s.chain, lambda it: x.Not(x.And(it.fin, is_any(x, it.what, IMMEDIATE, b))))


def _immediate_pending(s: RbState, x: Any, b: Bounds, m: Any) -> Term:
    return x.seq_any(s.chain, lambda it: is_any(x, it.what, IMMEDIATE, b))


def _new(s: RbState, t: RbState, x: Any, pred: Any) -> Term:
    """More waiting triggers satisfy ``pred`` in ``t`` than in ``s``: one fired."""
    return x.seq_count(t.waiting, pred) > x.seq_count(s.waiting, pred)


def _play_triggers_ok(s: RbState, t: RbState, r: Any, x: Any, b: Bounds, m: Any) -> Term:
    """A play trigger fires only in the step that completes a card's act of playing (419.4: the
    end of its resolution; for a permanent, its finalization, 383.4.a), and for the player who
    played it: never for a countered card (425.1.b)."""
    _, i = pending_index(x, s)
    oldest = x.seq_get(s.chain, i)
    finished = x.And(s.stage == Stage.RESOLVED, is_kind(x, s.res.what, "card", b))
    at_once = x.And(r.citation == "RB 337.1.c", is_kind(x, oldest.what, "card", b))
    who = x.If(s.stage == Stage.RESOLVED, s.res.ctrl, oldest.ctrl)
    play_trigger = lambda it: is_kind(x, it.what, "play-trigger", b)  # noqa: E731
    other = lambda it: x.And(play_trigger(it), it.ctrl != who)  # noqa: E731
    return x.Implies(
        _new(s, t, x, play_trigger),
        x.And(x.Or(finished, at_once), x.Not(_new(s, t, x, other))),
    )


def _countering(s: RbState, x: Any, b: Bounds, m: Any) -> Term:
    """A spell that counters resolves while its target is still on the chain."""
    tgt = s.res.tgt
    there = x.Or(
        *(
            x.And(tgt == k + 1, s.chain.length > k, is_kind(x, s.chain.slots[k].what, "spell", b))
            for k in range(len(s.chain.slots))
        )
    )
    return x.And(s.stage == Stage.RESOLVING, is_kind(x, s.res.what, "targets-spell", b), there)


#: A chain existed since the state was last Open (the monitor's value in a state is about the
#: transitions before it): the first step out of a state where it holds and the chain is gone is
#: the one that makes the state Open again (340, 346).
def _undone_whole(t: RbState, r: Any, x: Any) -> Term:
    """The step undid the play that alone made the state Closed (358.4): no chain existed."""
    return x.And(r.citation == "RB 358.4", x.Not(closed(t, x)))


HAD_CHAIN = Monitor(
    "had_chain",
    BoolDomain(),
    init=lambda s, x, b: False,
    update=lambda s, t, r, m, x, b: x.And(
        x.Or(closed(s, x), closed(t, x)), x.Not(_undone_whole(t, r, x))
    ),
)


def _opener_is_ability(s: RbState, t: RbState, x: Any, b: Bounds) -> Term:
    """The item that opens a chain in the step from ``s`` (Open) to ``t`` is an ability."""
    first = x.If(t.chain.length > 0, x.seq_get(t.chain, 0).what, x.seq_get(t.waiting, 0).what)
    return is_any(x, first, ("trigger", "add"), b)


OPENED_BY_ABILITY = Monitor(
    "opened_by_ability",
    BoolDomain(),
    init=lambda s, x, b: False,
    update=lambda s, t, r, m, x, b: x.If(
        x.And(x.Not(closed(s, x)), closed(t, x)),
        _opener_is_ability(s, t, x, b),
        m.opened_by_ability,
    ),
)


def _chain_gone(s: RbState, x: Any, m: Any) -> Term:
    return x.And(m.had_chain, x.Not(closed(s, x)))


def _opener_recorded(s: RbState, x: Any, m: Any) -> Term:
    """The model's record of what opened the chain (``opener``, which 346.1 reads) is what the
    monitors saw: set while a chain exists (priority in a Closed state means there is one) and
    until the state is Open again (which is the next step of HOT FEPR), and an ability exactly
    when an ability opened it."""
    recorded = s.opener != Opener.NONE
    return x.And(
        x.Implies(closed(s, x), recorded),
        x.Implies(x.Not(closed(s, x)), x.Eq(m.had_chain, recorded)),
        x.Implies(x.And(x.Not(closed(s, x)), recorded), s.stage == Stage.TASKS),
        x.Implies(s.stage == Stage.PRIORITY, x.Not(x.seq_is_empty(s.chain))),
        x.Implies(recorded, x.Eq(m.opened_by_ability, s.opener == Opener.ABILITY)),
    )


def _focus_ok(s: RbState, t: RbState, r: Any, x: Any, b: Bounds, m: Any) -> Term:
    """In a showdown, the step after a chain empties passes Focus to the next player (346),
    unless an ability opened that chain (346.1); otherwise only a player passing Focus (348)
    changes who has it. The record 346.1 reads is the monitors' (stated too, which makes the
    claim inductive)."""
    gone = x.And(s.showdown, _chain_gone(s, x, m))
    expected = x.If(m.opened_by_ability, s.focus, next_player(s.focus, b.players))
    others = x.And(s.showdown, t.showdown, x.Not(_chain_gone(s, x, m)), r.citation != "RB 348")
    return x.And(
        _opener_recorded(s, x, m),
        x.Implies(gone, t.focus == expected),
        x.Implies(others, t.focus == s.focus),
    )


def _ability_chain_gone(s: RbState, x: Any, b: Bounds, m: Any) -> Term:
    return x.And(s.showdown, _chain_gone(s, x, m), m.opened_by_ability)


def _acts_with_nothing_pending(s: RbState, x: Any, b: Bounds, m: Any) -> Term:
    return x.Implies(_may_act(s, x, b, m), x.Not(has_pending(s, x)))


def _may_act(s: RbState, x: Any, b: Bounds, m: Any) -> Term:
    return is_one_of(x, s.stage, Stage.OPEN, Stage.PRIORITY)


def _has_priority(s: RbState, x: Any, b: Bounds, m: Any) -> Term:
    """A player has priority in a Closed state."""
    return s.stage == Stage.PRIORITY


def _timing_ok(s: RbState, t: RbState, r: Any, x: Any, b: Bounds, m: Any) -> Term:
    """What a player puts on the chain by their own choice fits the state: in a Closed state a
    Reaction (309.1.a), in a Showdown an Action or a Reaction (308.1.a)."""
    added = x.And(_may_act(s, x, b, m), t.chain.length > s.chain.length)
    what = x.seq_top(t.chain).what
    reaction = is_kind(x, what, "reaction", b)
    fast = x.Or(reaction, is_kind(x, what, "action", b))
    return x.Implies(
        added,
        x.And(x.Implies(s.stage == Stage.PRIORITY, reaction), x.Implies(s.showdown, fast)),
    )


def _triggers(chain: Any, x: Any, b: Bounds) -> Term:
    return x.seq_count(chain, lambda it: is_kind(x, it.what, "trigger", b))


def _targets_chosen_legally(s: RbState, t: RbState, r: Any, x: Any, b: Bounds, m: Any) -> Term:
    """An item finalized with a target (it stays where it is on the chain) chose a legal one,
    as things stood when it chose."""
    if r.citation not in FINALIZING:  # only a finalization finalizes an item
        return True
    out = []
    for k in range(len(s.chain.slots)):
        before, after = s.chain.slots[k], t.chain.slots[k]
        chosen = x.And(
            s.chain.length > k,
            t.chain.length == s.chain.length,
            x.Not(before.fin),
            after.fin,
            after.what == before.what,
            is_any(x, before.what, TARGETING, b),
        )
        legal = x.Or(
            *(
                x.And(after.tgt == n + 1, legal_target(s, x, b, before, n))
                for n in range(target_count(b))
            )
        )
        out.append(x.Implies(chosen, legal))
    return x.And(*out)


def _oldest_pending_trigger(s: RbState, x: Any, b: Bounds) -> tuple[Term, Any]:
    """Whether the oldest pending item is a triggered ability that targets, and that item."""
    found, i = pending_index(x, s)
    it = x.seq_get(s.chain, i)
    trigger = x.And(found, is_any(x, it.what, TARGETING, b), x.Not(is_kind(x, it.what, "card", b)))
    return trigger, it


def _removed_without_a_choice(s: RbState, t: RbState, r: Any, x: Any, b: Bounds, m: Any) -> Term:
    """When finalization reaches a triggered ability that targets (nothing else to do first:
    no cleanup outstanding, nothing waiting), whatever happens next takes it off the chain
    exactly when it has no legal choice (402.3), and finalizes it in place when it has one."""
    trigger, it = _oldest_pending_trigger(s, x, b)
    reached = x.And(s.stage == Stage.TASKS, x.Not(s.tasks), x.seq_is_empty(s.waiting), trigger)
    gone = t.chain.length == s.chain.length - 1
    return x.Implies(reached, x.Eq(gone, x.Not(any_legal_target(s, x, b, it))))


def _targeting_pending(s: RbState, x: Any, b: Bounds, m: Any) -> Term:
    return x.seq_any(s.chain, lambda it: x.And(x.Not(it.fin), is_any(x, it.what, TARGETING, b)))


PASSED = Monitor(
    "passed",
    IntRange(0, 4),
    init=lambda s, x, b: 0,
    # Passes of priority in succession, counted from the rules that fired (never from the
    # rules' own ``passes`` counter): a pass adds one; any other choice of a player (a play, an
    # ability, a resolution) starts the count again.
    update=lambda s, t, r, m, x, b: (
        x.Min(m.passed + 1, b.players)
        if r.citation == "RB 339"
        else 0
        if r.kind is Kind.CHOICE
        else m.passed
    ),
)


def _resolves_after_passes(s: RbState, t: RbState, r: Any, x: Any, b: Bounds, m: Any) -> Term:
    starts = x.And(s.stage == Stage.PRIORITY, t.stage == Stage.RESOLVING)
    return x.Implies(starts, m.passed == b.players - 1)


def _waits(s: RbState, t: RbState, r: Any, x: Any, b: Bounds, m: Any) -> Term:
    return x.Implies(resolving(s, x), _triggers(t.chain, x, b) <= _triggers(s.chain, x, b))


def _fired_while_resolving(s: RbState, x: Any, b: Bounds, m: Any) -> Term:
    return x.And(s.stage == Stage.RESOLVED, x.Not(x.seq_is_empty(s.waiting)))


def _cleanup_follows(s: RbState, t: RbState, r: Any, x: Any, b: Bounds, m: Any) -> Term:
    """A cleanup is outstanding after the changes 319 lists that the model has: a phase's
    start (a phase transition), an item joining the chain (a pending item added), and a
    showdown's start or end (a status change)."""
    started = x.And(s.stage == Stage.BEGIN, t.stage == Stage.TASKS)
    joined = t.chain.length > s.chain.length
    status = x.Not(x.Eq(s.showdown, t.showdown))
    return x.Implies(x.Or(started, joined, status), t.tasks)


def _phases_in_order(s: RbState, t: RbState, r: Any, x: Any, b: Bounds, m: Any) -> Term:
    """A phase or step ends only for the next one, which begins at its beginning (its
    turn-based actions first); the turn changes only as the expiration step ends (306); and the
    main phase ends only in a Neutral Open state: no chain and no showdown (305)."""
    moved = s.phase != t.phase
    nxt = x.If(s.phase == Phase.EXPIRATION, int(Phase.START), s.phase + 1)
    wraps = x.And(s.phase == Phase.EXPIRATION, t.phase == Phase.START)
    leaves_main = x.And(s.phase == Phase.MAIN, moved)
    return x.And(
        x.Implies(moved, x.And(t.phase == nxt, t.stage == Stage.BEGIN)),
        x.Implies(wraps, t.turn == s.turn + 1),
        x.Implies(t.turn != s.turn, wraps),
        x.Implies(leaves_main, x.And(s.stage == Stage.OPEN, x.Not(s.showdown))),
    )


def _begins_once(s: RbState, t: RbState, r: Any, x: Any, b: Bounds, m: Any) -> Term:
    """A phase or step begins once: its turn-based start runs once and leaves its beginning
    (a turn's awaken and draw, 315), and it begins again only by starting over, as the
    expiration step does when items went through FEPR in it (317.2.f)."""
    again = x.And(t.stage == Stage.BEGIN, t.phase == s.phase, t.turn == s.turn)
    return x.Implies(again, x.And(s.stage != Stage.BEGIN, s.phase == Phase.EXPIRATION))


def _special_cleanup_done(s: RbState, t: RbState, r: Any, x: Any, b: Bounds, m: Any) -> Term:
    """As the expiration step's beginning ends, its special cleanup has been done: every unit
    is healed and every rune pool is empty (317.2)."""
    done = x.And(s.phase == Phase.EXPIRATION, s.stage == Stage.BEGIN, t.stage != Stage.BEGIN)
    healed = [pm.dmg == 0 for pm in t.perm]
    empty = [x.get(t.pool, p) == 0 for p in range(b.players)]
    return x.Implies(done, x.And(*healed, *empty))


def _pending_cards_legal(s: RbState, x: Any, b: Bounds, m: Any) -> Term:
    """Every pending card on the chain will pass its legality check (358): its controller can
    pay its cost, and one that targets has a legal choice."""
    return x.Not(
        x.seq_any(
            s.chain,
            lambda it: x.And(
                x.Not(it.fin),
                is_kind(x, it.what, "card", b),
                x.Not(passes_legality_check(s, x, b, it)),
            ),
        )
    )


def _played_from_hand(s: RbState, t: RbState, r: Any, x: Any, b: Bounds, m: Any) -> Term:
    """A card joins the chain only as a player plays it (349): the player with priority (or
    who may act), a card they control, moved from their hand (a permanent the model follows
    from its hand zone; another card from the count of their hand)."""
    top = x.seq_top(t.chain)
    joined = x.And(t.chain.length > s.chain.length, is_kind(x, top.what, "card", b))
    followed = {sl.kind: k for k, sl in enumerate(slots(b))}
    ways = []
    for play in b.setup.cast.values():
        if play.kind in followed:
            k = followed[play.kind]
            moved = x.And(s.perm[k].zone == Zone.HAND, t.perm[k].zone == Zone.CHAIN)
        else:
            moved = x.get(t.hand, top.ctrl) == x.get(s.hand, top.ctrl) - 1
        ways.append(x.And(top.what == play.kind, play.card.controls(top.ctrl), moved))
    if not ways:
        return x.Not(joined)
    return x.Implies(joined, x.And(top.ctrl == s.prio, x.Or(*ways)))


def trigger_fires_exactly_when(
    name: str,
    description: str,
    card: str,
    trigger: str,
    event: Any,
    citations: tuple[str, ...],
) -> Any:
    """A card's property: its trigger (the kind named ``trigger``) fires for the card's
    controller in exactly the steps in which ``event(s, t, r, x, b)`` happens: never for
    another event, another player, or not at all."""

    def kind(b: Bounds) -> int:
        return int(getattr(b.setup.kinds, trigger))

    def claim(s: RbState, t: RbState, r: Any, x: Any, b: Bounds, m: Any) -> Term:
        ctrl = b.setup.card(card).controller
        fired = _new(s, t, x, lambda it: x.And(it.what == kind(b), it.ctrl == ctrl))
        return x.Eq(fired, event(s, t, r, x, b))

    return step(
        name,
        description,
        claim,
        antecedent=lambda s, x, b, m: x.seq_any(s.waiting, lambda it: it.what == kind(b)),
        citations=citations,
        for_all=FOR_ALL,
    )


def _newest_controller_gains(s: RbState, t: RbState, r: Any, x: Any, b: Bounds, m: Any) -> Term:
    """Priority in a Closed state begins with the controller of the newest item (337, 338),
    with no passes counted yet; passing it on (339) is the only other way it moves."""
    gains = x.And(s.stage != Stage.PRIORITY, t.stage == Stage.PRIORITY)
    return x.Implies(gains, x.And(t.prio == x.seq_top(t.chain).ctrl, t.passes == 0))


def _staged_until_the_cleanup(s: RbState, x: Any, b: Bounds, m: Any) -> Term:
    """A staged showdown: a cleanup is outstanding in the main phase, in an Open state (no
    chain, none just emptied) outside a showdown, so the next rule to fire is that cleanup,
    which starts it. Nobody may act meanwhile (the stage is TASKS)."""
    return x.Implies(
        s.contest == Contest.STAGED,
        x.And(
            s.stage == Stage.TASKS,
            s.tasks,
            s.phase == Phase.MAIN,
            x.Not(closed(s, x)),
            s.opener == Opener.NONE,
            x.Not(s.showdown),
        ),
    )


FOCUS_PASSED = Monitor(
    "focus_passed",
    IntRange(0, 4),
    init=lambda s, x, b: 0,
    # Passes of Focus in succession in this showdown, counted from the rules that fired (never
    # from the rules' own ``passes`` counter): passing Focus adds one; any other choice of a
    # player (a play, an ability, a pass of priority on a chain) starts the count again, and so
    # does a step outside a showdown.
    update=lambda s, t, r, m, x, b: (
        x.If(s.showdown, x.Min(m.focus_passed + 1, b.players), 0)
        if r.citation == "RB 348"
        else 0
        if r.kind is Kind.CHOICE
        else x.If(s.showdown, m.focus_passed, 0)
    ),
)


def _showdown_ends_after_passes(s: RbState, t: RbState, r: Any, x: Any, b: Bounds, m: Any) -> Term:
    """The showdown ends exactly when all players have passed Focus in succession: only then
    (347), Focus is not passed round again instead (348), and once it has ended it is over,
    with a cleanup outstanding for the change of state (319)."""
    ends = x.And(s.showdown, x.Not(t.showdown))
    all_passed = m.focus_passed == b.players - 1
    return x.And(
        x.Implies(ends, x.And(r.citation == "RB 347", all_passed)),
        x.Implies(r.citation == "RB 348", m.focus_passed + 1 < b.players),
        x.Implies(r.citation == "RB 347", x.And(x.Not(t.showdown), t.tasks)),
    )


PROPERTIES = (
    terminates(
        "expiration-terminates",
        "the expiration step ends: it starts over only after items went through FEPR in it "
        "(317.2.f), and with no card that keeps adding to the chain it does not start over "
        "forever: no cycle among its states",
        lambda s, x, b, m: s.phase == Phase.EXPIRATION,
        citations=("RB 317.2", "RB 317.2.f", "RB 322"),
        for_all=FOR_ALL,
    ),
    terminates(
        "cleanups-terminate",
        "cleanups repeat only until one changes nothing (322): no cycle among the states where "
        "a cleanup is outstanding",
        lambda s, x, b, m: s.tasks,
        citations=("RB 319", "RB 322", "RB 323"),
        for_all=FOR_ALL,
    ),
    always(
        "pending-finalize-oldest-first",
        "pending items are finalized oldest first (337.1.b): as items join the chain at the top, "
        "no finalized item ever lies above a pending one",
        _pending_on_top,
        antecedent=_two_pending,
        citations=("RB 337.1.b", "RB 329"),
        for_all=FOR_ALL,
    ),
    step(
        "no-resolution-during-resolution-or-cleanup",
        "nothing resolves or is finalized while something else resolves or a cleanup is "
        "outstanding (320, HOT FEPR), and no cleanup runs while something resolves (321)",
        _no_resolution_in_tasks,
        citations=("RB 320", "RB 321", "RB 334", "RB 335"),
        for_all=FOR_ALL,
    ),
    always(
        "immediate-items-never-wait",
        "units, gear and Add abilities never wait on the chain: they resolve the moment they "
        "are finalized (337.1.c, 400.2)",
        _immediate_never_wait,
        antecedent=_immediate_pending,
        citations=("RB 337.1.c", "RB 400.2"),
        for_all=FOR_ALL,
    ),
    step(
        "countered-card-fires-no-play-trigger",
        "a play trigger fires only when a card's act of playing completes (419.4), for the "
        "player who played it: a countered card was not played and fires none (425.1.b)",
        _play_triggers_ok,
        antecedent=_countering,
        citations=("RB 419.4", "RB 419.4.b", "RB 425.1.b", "RB 383.4.a"),
        for_all=FOR_ALL,
    ),
    step(
        "focus-follows-346",
        "in a showdown, Focus passes to the next player when a chain empties (346), except when "
        "a triggered or an Add ability opened it (346.1), as the rules' record of the chain's "
        "opener says; otherwise only passing Focus moves it",
        _focus_ok,
        antecedent=_ability_chain_gone,
        monitors=(HAD_CHAIN, OPENED_BY_ABILITY),
        citations=("RB 346", "RB 346.1", "RB 348"),
        for_all=FOR_ALL,
    ),
    always(
        "no-response-while-pending",
        "nobody acts in the middle of another player's choices and payment: a player has "
        "priority (or may act in an Open state) only when no item is pending (337, 337.1.a)",
        _acts_with_nothing_pending,
        antecedent=_has_priority,
        citations=("RB 337", "RB 337.1.a", "RB 338"),
        for_all=FOR_ALL,
    ),
    step(
        "play-timing",
        "in a Closed state only Reaction cards and abilities are played (309.1.a); in a "
        "Showdown only Action and Reaction ones (308.1.a)",
        _timing_ok,
        antecedent=_has_priority,
        citations=("RB 308.1.a", "RB 309.1.a", "RB 310.1.a"),
        for_all=FOR_ALL,
    ),
    step(
        "triggers-wait-for-resolution",
        "a trigger that fires while an item resolves joins the chain only after that item has "
        "finished resolving (401.2, 354.3)",
        _waits,
        antecedent=_fired_while_resolving,
        citations=("RB 401.2", "RB 354.3"),
        for_all=FOR_ALL,
    ),
    step(
        "resolves-after-all-pass",
        "the newest item resolves only after all players pass priority in succession without "
        "adding anything (the passes are counted from the rules that fired)",
        _resolves_after_passes,
        antecedent=lambda s, x, b, m: s.stage == Stage.RESOLVING,
        monitors=(PASSED,),
        citations=("RB 339", "RB 340"),
        for_all=FOR_ALL,
    ),
    step(
        "targets-are-legal-when-chosen",
        "an item that targets is finalized only with a legal target: a unit on the board (one "
        "its controller does not control, if it says so) or a finalized spell on the chain",
        _targets_chosen_legally,
        antecedent=_targeting_pending,
        citations=("RB 355", "RB 358", "RB 337.1.b"),
        for_all=FOR_ALL,
    ),
    step(
        "a-trigger-without-a-legal-choice-leaves-the-chain",
        "when finalization reaches a triggered ability that targets, it leaves the chain, not "
        "countered, exactly when it has no legal choice (402.3, 402.3.a); with one, it is "
        "finalized with its target and stays",
        _removed_without_a_choice,
        antecedent=lambda s, x, b, m: _oldest_pending_trigger(s, x, b)[0],
        citations=("RB 402.3", "RB 402.3.a", "RB 337.1.b"),
        for_all=FOR_ALL,
    ),
    always(
        "nothing-resolves-once-it-has-finished",
        "an item is resolving only from the moment the passes let it until it finishes "
        "resolving: nobody has priority, and no cleanup runs, while something resolves",
        lambda s, x, b, m: x.Implies(
            s.res.what != 0, is_one_of(x, s.stage, Stage.RESOLVING, Stage.RESOLVED)
        ),
        antecedent=lambda s, x, b, m: s.stage == Stage.RESOLVED,
        citations=("RB 340", "RB 321", "RB 312"),
        for_all=FOR_ALL,
    ),
    always(
        "who-may-act-when-open",
        "in an Open state the turn player may act (310.1.a), and in a showdown the player with "
        "Focus, which grants priority (313)",
        lambda s, x, b, m: x.Implies(
            s.stage == Stage.OPEN, s.prio == x.If(s.showdown, s.focus, active(s, b))
        ),
        antecedent=lambda s, x, b, m: x.And(s.stage == Stage.OPEN, s.showdown),
        citations=("RB 310.1.a", "RB 312", "RB 313"),
        for_all=FOR_ALL,
    ),
    step(
        "passing-focus-gives-it-to-the-next-player",
        "a player who passes Focus passes it to the next player in turn order (348)",
        lambda s, t, r, x, b, m: x.Implies(
            r.citation == "RB 348", t.focus == next_player(s.focus, b.players)
        ),
        antecedent=lambda s, x, b, m: x.And(s.stage == Stage.OPEN, s.showdown),
        citations=("RB 348", "RB 313"),
        for_all=FOR_ALL,
    ),
    step(
        "priority-goes-to-the-newest-items-controller",
        "when nothing is pending any more, the controller of the newest item on the chain gains "
        "priority (337, 338), with no passes counted yet",
        _newest_controller_gains,
        antecedent=_has_priority,
        citations=("RB 337", "RB 338", "RB 339"),
        for_all=FOR_ALL,
    ),
    step(
        "the-contester-gains-focus",
        "when a showdown starts, the player who contested the battlefield, the turn player, "
        "gains Focus (345)",
        lambda s, t, r, x, b, m: x.Implies(
            x.And(x.Not(s.showdown), t.showdown), t.focus == active(s, b)
        ),
        antecedent=lambda s, x, b, m: s.showdown,
        citations=("RB 344", "RB 345"),
        for_all=FOR_ALL,
    ),
    always(
        "showdown-starts-before-anyone-acts",
        "a contested battlefield's showdown starts at the cleanup that the move makes "
        "outstanding (323.8, 345): until then the state stays in the main phase with that "
        "cleanup outstanding, no chain and no showdown, and nobody may act",
        _staged_until_the_cleanup,
        antecedent=lambda s, x, b, m: s.contest == Contest.STAGED,
        citations=("RB 323.8", "RB 344", "RB 345"),
        for_all=FOR_ALL,
    ),
    step(
        "showdown-ends-when-all-pass-focus",
        "a showdown ends when, and only when, all players have passed Focus in succession "
        "(347, 348; the passes are counted from the rules that fired), and a cleanup follows "
        "its end (319)",
        _showdown_ends_after_passes,
        antecedent=lambda s, x, b, m: s.showdown,
        monitors=(FOCUS_PASSED,),
        citations=("RB 347", "RB 348", "RB 319"),
        for_all=FOR_ALL,
    ),
    step(
        "an-item-follows-its-instructions-once",
        "a resolving item follows its instructions once and is then resolved, waiting only "
        "to finish (340, 419.4): no step leaves it resolving",
        lambda s, t, r, x, b, m: x.Implies(s.stage == Stage.RESOLVING, t.stage == Stage.RESOLVED),
        antecedent=lambda s, x, b, m: s.stage == Stage.RESOLVING,
        citations=("RB 340", "RB 419.4"),
        for_all=FOR_ALL,
    ),
    step(
        "a-cleanup-follows-each-change",
        "a cleanup becomes an outstanding task after a phase transition, a pending item being "
        "added to the chain, and a showdown starting or ending (319)",
        _cleanup_follows,
        antecedent=lambda s, x, b, m: s.tasks,
        citations=("RB 319", "RB 322"),
        for_all=FOR_ALL,
    ),
    step(
        "phases-follow-in-order",
        "a phase or step ends only for the next one (start, main, ending step, expiration "
        "step), which begins with its turn-based actions; the turn changes only as the "
        "expiration step ends (306); the main phase ends only in a Neutral Open state (305)",
        _phases_in_order,
        antecedent=lambda s, x, b, m: s.phase == Phase.EXPIRATION,
        citations=("RB 305", "RB 306", "RB 314", "RB 317"),
        for_all=FOR_ALL,
    ),
    step(
        "each-phase-begins-once",
        "a phase or step begins once in a turn: its turn-based start (a turn's awaken and "
        "draw, 315) runs once and leaves its beginning; only the expiration step starts over, "
        "when items went through FEPR in it (317.2.f)",
        _begins_once,
        antecedent=lambda s, x, b, m: s.stage == Stage.BEGIN,
        citations=("RB 315", "RB 315.4", "RB 317.2.f"),
        for_all=FOR_ALL,
    ),
    step(
        "the-expiration-step-begins-with-its-special-cleanup",
        "the expiration step begins with the ending special cleanup: every unit is healed and "
        "every rune pool empties (317.2)",
        _special_cleanup_done,
        antecedent=lambda s, x, b, m: x.And(s.phase == Phase.EXPIRATION, s.stage == Stage.BEGIN),
        citations=("RB 317.2", "RB 324.2"),
        for_all=FOR_ALL,
    ),
    always(
        "a-played-card-passes-its-legality-check",
        "a player is offered only the plays that pass their legality check (358): while a card "
        "is pending its controller can pay its cost (356, 357) and, if it targets, it has a "
        "legal choice (355), so no play is undone (358.4)",
        _pending_cards_legal,
        antecedent=lambda s, x, b, m: x.seq_any(
            s.chain, lambda it: x.And(x.Not(it.fin), is_kind(x, it.what, "card", b))
        ),
        citations=("RB 358", "RB 358.4", "RB 356", "RB 355"),
        for_all=FOR_ALL,
    ),
    step(
        "a-card-is-played-from-its-controllers-hand",
        "a card joins the chain only as the player with priority (or who may act) plays it, a "
        "card they control, from their hand (349)",
        _played_from_hand,
        antecedent=_may_act,
        citations=("RB 349", "RB 310.1.a", "RB 338"),
        for_all=FOR_ALL,
    ),
    no_deadlock(citations=("RB 305", "RB 337", "RB 339"), for_all=FOR_ALL),
    exclusive_automatic(citations=("RB 334", "RB 335", "RB 322"), for_all=FOR_ALL),
)
