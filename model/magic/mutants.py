"""Deliberately wrong rules that the Magic core's properties must catch.

Each mutant is derived from the rule it alters, with one changed clause
(:meth:`~turnproof.model.rules.Rule.derive`): the rule's own body runs, so a mutant can never
drift from the rule it mutates. The cards' own mutants live in their packs.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from turnproof.model.kit.players import next_player
from turnproof.model.magic import core
from turnproof.model.magic.core import NO_ITEM, Stage, Step
from turnproof.model.properties import Mutant
from turnproof.model.rules import Amendment, DeriveHook, Kind, Remove, Replace, Rule, rule


def _derived(rule_name: str, summary: str, **clauses: Any) -> Replace:
    base = next(r for r in core.RULES if r.name == rule_name)
    return Replace(rule_name, base.derive(f"MUTANT: {summary}", **clauses))


def _rewritten(rule: Rule, summary: str, fn: Any = None, **fields: Any) -> Replace:
    """``rule`` with a hand-written wrong body ``fn`` (or other fields), its citation, kind,
    parameters and stage guard kept."""
    if fn is not None:
        fields["fn"] = fn
    return Replace(rule.name, replace(rule, summary=f"MUTANT: {summary}", **fields))


# -- hand-written wrong rules for the properties that the generated mutants asked for ----------


def _pass_keeps_priority(s: Any, x: Any, b: Any) -> Any:
    x.require(s.passes + 1 < b.players)
    return s.replace(stage=Stage.CHECK, passes=s.passes + 1)


def _mana_to_next(s: Any, x: Any, b: Any) -> Any:
    t = core.add_mana.fn(s, x, b)
    p, q = s.prio, next_player(s.prio, b.players)
    x.require(x.get(s.mana, q) < b.mana)
    mana = x.set(t.mana, p, x.get(s.mana, p))
    return t.replace(mana=x.set(mana, q, x.get(s.mana, q) + 1))


def _defender_draws(s: Any, x: Any, b: Any) -> Any:
    x.require(s.step == Step.DRAW)
    s = core.step_begins(s, x, b, Step.DRAW)
    return core.to_check(core.draw(s, x, b, next_player(core.active(s, b), b.players)), x, b)


def _no_discard(s: Any, x: Any, b: Any) -> Any:
    x.require(s.step == Step.CLEANUP)
    x.require(core.live(s, b))
    return core.step_begins(s, x, b, Step.CLEANUP).replace(stage=Stage.DAMAGE_REMOVAL)


def _attack_untapped(s: Any, x: Any, b: Any, attack: int) -> Any:
    t = core.declare_attackers.fn(s, x, b, attack)
    return t.replace(tapped=s.tapped)


def _attack_anyway(s: Any, x: Any, b: Any, attack: int) -> Any:
    x.require(s.step == Step.ATTACKERS)
    a = core.active(s, b)
    s = core.step_begins(s, x, b, Step.ATTACKERS)
    if attack != core.ATTACKS_PLAYER:
        return core.to_check(s, x, b)
    return core.to_check(s.replace(attacking=attack, tapped=x.set(s.tapped, a, True)), x, b)


def _sba_spares(s: Any, x: Any, b: Any) -> Any:
    return core.sba.fn(s, x, b).replace(alive=s.alive)


def _attack_any_planeswalker(s: Any, x: Any, b: Any, attack: int) -> Any:
    x.require(s.step == Step.ATTACKERS)
    a = core.active(s, b)
    s = core.step_begins(s, x, b, Step.ATTACKERS)
    if attack == core.NOT_ATTACKING:
        return core.to_check(s, x, b)
    x.require(x.And(x.get(s.alive, a), x.Not(x.get(s.tapped, a))))
    return core.to_check(s.replace(attacking=attack, tapped=x.set(s.tapped, a, True)), x, b)


def _no_combat_damage(s: Any, x: Any, b: Any) -> Any:
    x.require(s.step == Step.DAMAGE)
    return core.to_check(core.step_begins(s, x, b, Step.DAMAGE), x, b)


def _resolve_anything(s: Any, x: Any, b: Any) -> Any:
    x.require(s.passes + 1 == b.players)
    res, rest = x.seq_top(s.stack), x.seq_pop(s.stack)
    return s.replace(stage=Stage.RESOLVING, res=res, stack=rest, passes=0, prio=0)


def _stay_in_combat(s: Any, x: Any, b: Any) -> Any:
    t = core.pass_end_step.fn(s, x, b)
    return t.replace(attacking=s.attacking, blocking=s.blocking)


def _priority_to_its_controller(s: Any, x: Any, b: Any) -> Any:
    return s.replace(res=NO_ITEM, stage=Stage.CHECK, prio=s.res.ctrl, passes=0)


def _blocker_stays(s: Any, x: Any, b: Any) -> Any:
    return core.pass_end_step.fn(s, x, b).replace(blocking=s.blocking)


def _priority_over_waiting(s: Any, x: Any, b: Any) -> Any:
    unseen = s.replace(pending=x.seq_clear(s.pending))
    return core.receive_priority.fn(unseen, x, b).replace(pending=s.pending)


@rule(
    "MTG 608.2c",
    "MUTANT: Brace's effect begins, and Brace goes on resolving",
    kind=Kind.GAME,
    when={"stage": Stage.RESOLVING},
    name="resolve_brace",
    card="Brace",
)
def _brace_resolves_again(s: Any, x: Any, b: Any) -> Any:
    x.require(s.res.what == b.setup.kind_of("BRACE"))
    return s.replace(brace=core.add_effect(x, s.brace, b))


def _stays_resolving(s: Any, x: Any, b: Any) -> Any:
    return core.to_check(s, x, b)


def _process_lingers(s: Any, x: Any, b: Any) -> Any:
    return core.end_turn_d.fn(s, x, b).replace(proc=s.proc)


def _cast_any_card(s: Any, x: Any, b: Any, card: int) -> Any:
    play = b.setup.cast[card]
    if play.timing is not None:
        x.require(play.timing(s, x, b, s.prio))
    if play.legal is not None:
        x.require(play.legal(s, x, b, p=s.prio))
    return core.cast_spell(s, x, b, play.kind, play.target)


ACT_MUTANTS = (
    Mutant(
        "pass-keeps-priority",
        "a player who passes keeps priority instead of passing it to the next player",
        (
            _rewritten(
                core.pass_priority, "the passing player keeps priority", _pass_keeps_priority
            ),
        ),
        ("pass-gives-priority-to-next-player",),
    ),
    Mutant(
        "mana-to-next-player",
        "a mana ability adds its mana to the next player's pool",
        (_rewritten(core.add_mana, "the mana goes to the next player", _mana_to_next),),
        ("mana-goes-to-its-player",),
    ),
    Mutant(
        "defender-draws",
        "in the draw step the non-active player draws",
        (_rewritten(core.draw_step, "the next player draws", _defender_draws),),
        ("active-player-draws",),
    ),
    Mutant(
        "no-discard",
        "the cleanup step's discard to maximum hand size is skipped",
        (_rewritten(core.cleanup_discard, "nobody discards", _no_discard),),
        ("cleanup-discards-to-hand-size",),
    ),
    Mutant(
        "vigilance-for-all",
        "an attacking creature does not tap",
        (_rewritten(core.declare_attackers, "attacking does not tap", _attack_untapped),),
        ("attacking-creature-taps",),
    ),
    Mutant(
        "tapped-creature-attacks",
        "a tapped creature, or one that has died, can attack",
        (_rewritten(core.declare_attackers, "any creature can attack", _attack_anyway),),
        ("only-an-untapped-creature-attacks",),
    ),
    Mutant(
        "lethal-damage-spares",
        "a creature with lethal damage loses its damage but stays on the battlefield",
        (_rewritten(core.sba, "creatures with lethal damage survive", _sba_spares),),
        ("lethal-damage-destroys",),
    ),
    Mutant(
        "attack-a-missing-planeswalker",
        "a creature can attack a planeswalker the defending player does not control",
        (
            _rewritten(
                core.declare_attackers, "any planeswalker can be attacked", _attack_any_planeswalker
            ),
        ),
        ("attacks-a-planeswalker-only-if-there-is-one",),
    ),
    Mutant(
        "never-block",
        "the defending player can never block",
        (_rewritten(core.declare_blockers, "no creature blocks", params=(("block", (0,)),)),),
        ("a-creature-can-block",),
    ),
    Mutant(
        "no-combat-damage",
        "combat damage is never dealt",
        (_rewritten(core.combat_damage, "no combat damage", _no_combat_damage),),
        ("combat-damage-by-power",),
    ),
    Mutant(
        "resolve-empty-stack",
        "all players passing resolves 'something' even on an empty stack",
        (_rewritten(core.pass_resolve, "resolves on an empty stack", _resolve_anything),),
        ("resolves-only-an-object",),
    ),
    Mutant(
        "stay-in-combat",
        "creatures are not removed from combat as the combat phase ends",
        (_rewritten(core.pass_end_step, "creatures stay in combat", _stay_in_combat),),
        ("creatures-leave-combat-with-it",),
    ),
    Mutant(
        "blocker-stays-in-combat",
        "a blocking creature is not removed from combat as the combat phase ends",
        (_rewritten(core.pass_end_step, "blockers stay in combat", _blocker_stays),),
        ("creatures-leave-combat-with-it",),
    ),
    Mutant(
        "priority-while-triggers-wait",
        "a player receives priority while triggers wait to be put on the stack",
        (
            _rewritten(
                core.receive_priority,
                "priority before the waiting triggers",
                _priority_over_waiting,
            ),
        ),
        ("waiting-triggers-go-on-the-stack",),
    ),
    Mutant(
        "brace-resolves-again",
        "Brace's 'until end of combat' effect begins again and again while Brace is resolving",
        (Replace("resolve_brace", _brace_resolves_again),),
        ("resolution-follows-its-instructions-once",),
        cards=(("brace", None),),
    ),
    Mutant(
        "finished-object-still-resolving",
        "an object that finished resolving stays the resolving object",
        (_rewritten(core.finish_resolving, "the object stays resolving", _stays_resolving),),
        ("nothing-resolves-once-it-has-finished",),
    ),
    Mutant(
        "end-turn-process-lingers",
        "ending the turn is still under way once the cleanup step it skips to begins",
        (_rewritten(core.end_turn_d, "the process is not over", _process_lingers),),
        ("ending-process-is-over-when-its-step-begins",),
        cards=(("sundial-of-the-infinite", None),),
    ),
    Mutant(
        "cast-another-players-card",
        "a player with priority casts a spell from a card another player holds",
        (_rewritten(core.cast, "any player casts any card", _cast_any_card),),
        ("a-cards-objects-are-its-controllers",),
        cards=(("shock", 1),),
    ),
    Mutant(
        "priority-to-resolved-controller",
        "after a resolution the resolved object's controller receives priority, not the active "
        "player",
        (
            _rewritten(
                core.finish_resolving,
                "its controller receives priority",
                _priority_to_its_controller,
            ),
        ),
        ("active-player-gets-priority-first",),
    ),
)


def _every_saga(
    hook_names: tuple[str, ...], summary: str, **clauses: Any
) -> tuple[DeriveHook, ...]:
    """Every Saga's contribution to each of ``hook_names`` with ``clauses`` bound."""
    bound = tuple(clauses.items())
    return tuple(DeriveHook("tag:saga", h, bound, f"MUTANT: {summary}") for h in hook_names)


#: The Saga's sacrifice (714.4, 704.5s): the condition and the action, changed together.
SACRIFICE = ("sba_applies", "sba")

#: The 2025 rules change on Sagas without chapter abilities, undone: they get a lore counter as
#: their controller's precombat main phase begins and are sacrificed (final chapter 0).
BEFORE_2025 = tuple(
    DeriveHook(
        "tag:saga",
        h,
        (("edition", "before-2025"),),
        "VARIANT: a Saga without chapter abilities is sacrificed and gets lore counters",
    )
    for h in (*SACRIFICE, "precombat_main")
)

NO_SECOND_CLEANUP = core.pass_end_step.derive(
    "VARIANT: after a cleanup step with priority the turn ends at once (514.3a removed)",
    cleanup_repeats=False,
)

MUTANTS = (
    Mutant(
        "end-turn-restarts",
        "after its state-based actions the end-the-turn process starts over instead of "
        "moving to the cleanup step",
        (
            _derived(
                "end_turn_d", "after state-based actions the process starts over", then="restart"
            ),
        ),
        ("end-the-turn-terminates",),
    ),
    Mutant(
        "keep-eot-effects",
        "514.2 removes damage but leaves 'until end of turn' effects",
        (_derived("cleanup_damage", "'until end of turn' effects do not end", end_effects=False),),
        ("eot-effects-end-before-next-turn",),
    ),
    Mutant(
        "end-turn-skips-cleanup",
        "ending the turn goes straight to the next turn",
        (_derived("end_turn_d", "the cleanup step is skipped too", then="next turn"),),
        ("eot-effects-end-before-next-turn", "end-turn-skips-to-cleanup"),
    ),
    Mutant(
        "end-turn-to-end-step",
        "ending the turn goes to the end step, which then triggers",
        (_derived("end_turn_d", "the game goes to the end step", then="end step"),),
        ("end-turn-skips-to-cleanup",),
    ),
    Mutant(
        "end-turn-keeps-stack",
        "ending the turn exiles only the resolving object",
        (_derived("end_turn_b", "only the resolving object is exiled", whole_stack=False),),
        ("end-turn-skips-to-cleanup",),
    ),
    Mutant(
        "end-turn-keeps-waiting-triggers",
        "triggers waiting before the process survive it",
        (_derived("end_turn_a", "waiting triggers survive the process", forget=False),),
        ("end-turn-skips-to-cleanup",),
        bounds={"waiting": 8, "hand_cap": 10},
        cards=(("days-undoing", None), ("sphinxs-tutelage", 0)),
    ),
    Mutant(
        "stack-while-resolving",
        "triggers go on the stack while an object still resolves",
        (
            Replace(
                "stack_trigger",
                core.stack_trigger.derive(
                    "MUTANT: a waiting trigger goes on the stack as soon as it fires, even "
                    "while an object resolves",
                    when={"stage": (Stage.CHECK, Stage.RESOLVED)},
                ),
            ),
        ),
        ("triggers-wait-for-resolving-object",),
    ),
    Mutant(
        "napap-order",
        "the non-active players' triggers go on the stack first",
        (
            _derived(
                "stack_trigger", "the non-active players' triggers go first", order="others-first"
            ),
        ),
        ("apnap-order",),
    ),
    Mutant(
        "bottom-resolves",
        "the bottom of the stack resolves first",
        (_derived("pass_resolve", "the bottom object of the stack resolves", top=False),),
        ("lifo-resolution",),
    ),
    Mutant(
        "cleanup-always-priority",
        "514.3a ignored: players always get priority in cleanup, so every cleanup step is "
        "followed by another",
        (
            _derived(
                "receive_priority",
                "the active player always receives priority in cleanup",
                cleanup_exception=False,
            ),
        ),
        (
            "cleanup-priority-needs-sba-or-trigger",
            "at-most-one-automatic-rule",
            "cleanup-terminates",
        ),
    ),
    Mutant(
        "no-second-cleanup",
        "after a cleanup step with priority the turn just ends",
        (Replace("pass_end_step", NO_SECOND_CLEANUP),),
        ("cleanup-with-priority-repeats", "second-cleanup-step"),
    ),
    Mutant(
        "first-pass-ends-step",
        "a step ends as soon as one player passes on an empty stack",
        (_derived("pass_end_step", "the step ends when one player passes", all_pass=False),),
        ("step-ends-after-all-pass",),
    ),
    Mutant(
        "cast-keeps-passes",
        "a cast does not start the passes again, so a spell can resolve without every other "
        "player getting priority back after it (117.4)",
        (_derived("cast", "the passes are not counted again after a cast", new_round=False),),
        ("resolves-after-all-pass",),
    ),
    Mutant(
        "mana-stays",
        "mana pools do not empty between steps",
        (_derived("pass_end_step", "mana does not empty when a step ends", mana_empties=False),),
        ("mana-empties-between-steps",),
    ),
    Mutant(
        "brace-stays",
        "'until end of combat' effects outlast the combat phase",
        (
            _derived(
                "pass_end_step",
                "'until end of combat' effects last until end of turn",
                combat_effects_end=False,
            ),
        ),
        ("eoc-effects-end-with-combat",),
    ),
    Mutant(
        "no-step-end",
        "the rule that ends a step when all pass on an empty stack is missing",
        (Remove("pass_end_step"),),
        ("no-deadlock",),
    ),
    Mutant(
        "control-ends-at-cleanup",
        "controlling a turn ends at 514.2 like an 'until end of turn' effect, so a later "
        "cleanup step's priority window is the controlled player's own",
        (_derived("cleanup_damage", "control of the turn ends at 514.2", end_control=True),),
        ("control-covers-the-whole-turn",),
        cards=(("mindslaver", None),),
    ),
    Mutant(
        "control-outlasts-turn",
        "the control of a turn does not end as the next turn begins when no other effect "
        "waits for that turn",
        (_derived("cleanup_ends_turn", "control outlasts the turn", control_ends=False),),
        ("control-ends-when-next-turn-begins",),
        cards=(("mindslaver", None),),
    ),
    Mutant(
        "controller-becomes-active",
        "the player who controls the turn receives priority in the controlled player's place, "
        "as if they were the active player",
        (
            _derived(
                "receive_priority",
                "priority goes to the player who controls the turn",
                to_controller=True,
            ),
        ),
        ("controlled-player-stays-active",),
        cards=(("mindslaver", None),),
    ),
    Mutant(
        "saga-sacrificed-on-trigger",
        "a Saga is sacrificed as soon as its lore reaches its final chapter, even while that "
        "chapter ability waits or is on the stack (XMage issue #5013)",
        _every_saga(SACRIFICE, "the sacrifice does not wait for the chapters", waits=False),
        ("saga-waits-for-its-chapters",),
        bounds={"chron_lore": 2},
        cards=(("chronicle", 0),),
    ),
    Mutant(
        "saga-sacrificed-above-final",
        "a Saga is sacrificed only once its lore is above its final chapter number, not at it",
        _every_saga(SACRIFICE, "lore must exceed the final chapter number", at_least=False),
        ("saga-sacrificed-when-done",),
        bounds={"chron_lore": 2},
        cards=(("chronicle", 0),),
    ),
    Mutant(
        "chapter-at-every-placement",
        "a chapter ability triggers at every placement of lore counters once the count is at "
        "least its number, not only when the count crosses it",
        _every_saga(("lore",), "chapters trigger at every placement past them", every=True),
        ("chapter-triggers-once-per-crossing",),
        cards=(("chronicle", 0),),
    ),
    Mutant(
        "abilityless-saga-sacrificed",
        "a Saga with no chapter abilities is sacrificed, its final chapter number being 0 (the "
        "rule before 2025, where the 2025 rules apply)",
        BEFORE_2025[:2],
        ("saga-without-chapters-never-sacrificed",),
        cards=(("blank-saga", 0),),
    ),
    *ACT_MUTANTS,
)

VARIANTS: dict[str, tuple[Amendment, ...]] = {
    "no-second-cleanup": (Replace("pass_end_step", NO_SECOND_CLEANUP),),
    # The Saga rules before the mid-2025 update (XMage PR #13728): a Saga with no chapter
    # abilities gets lore counters (714.3b) and is sacrificed (714.4); only with a Saga in play.
    "sagas-before-2025": BEFORE_2025,
    # The sacrifice as soon as the final chapter triggers, without waiting for its ability to
    # leave the stack (the timing some engines had, XMage issue #5013): what a rule change to
    # the sacrifice would be compared with; only with a Saga in play.
    "saga-sacrifice-on-trigger": tuple(
        DeriveHook("tag:saga", h, (("waits", False),), "AMENDED: the sacrifice does not wait")
        for h in SACRIFICE
    ),
}
