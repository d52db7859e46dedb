"""Deliberately wrong rules that the Riftbound core's properties must catch.

Each mutant is derived from the rule it alters, with one changed clause (a
:class:`~turnproof.model.rules.Derive` amendment: the rule's own body runs, so a mutant can never
drift from the rule it mutates). The cards' own mutants live in their packs.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from turnproof.model.kit.players import next_player
from turnproof.model.properties import Mutant
from turnproof.model.riftbound import core
from turnproof.model.riftbound.core import Stage
from turnproof.model.rules import Remove, Replace, derive


def _resolve_at_once(s: Any, x: Any, b: Any) -> Any:
    """The newest item resolves as if every player had passed."""
    return core.pass_resolve.fn(s.replace(passes=b.players - 1), x, b)


def _still_resolving(s: Any, x: Any, b: Any) -> Any:
    """The item finishes resolving, and stays the resolving item."""
    return core.finish_resolving.fn(s, x, b).replace(res=s.res)


def _open_to_the_next(s: Any, x: Any, b: Any) -> Any:
    """In an Open state the next player may act, not the one whose turn or Focus it is."""
    t = core.open_priority.fn(s, x, b)
    return t.replace(prio=next_player(t.prio, b.players))


def _focus_stays(s: Any, x: Any, b: Any) -> Any:
    """Passing Focus counts as a pass, but the player keeps Focus and priority."""
    return core.pass_focus.fn(s, x, b).replace(focus=s.focus, prio=s.focus)


def _priority_to_the_next(s: Any, x: Any, b: Any) -> Any:
    """Nothing is pending: the player after the newest item's controller gains priority."""
    t = core.gain_priority.fn(s, x, b)
    return t.replace(prio=next_player(t.prio, b.players))


def _focus_to_the_next(s: Any, x: Any, b: Any) -> Any:
    """A cleanup that starts a showdown gives Focus to the player after the contester."""
    t = core.cleanup.fn(s, x, b)
    starts = x.And(x.Not(s.showdown), t.showdown)
    return t.replace(focus=x.If(starts, next_player(t.focus, b.players), t.focus))


def _contest_without_a_cleanup(s: Any, x: Any, b: Any) -> Any:
    """Contesting a battlefield stages a showdown but makes no cleanup outstanding: the state
    stays Open, and the showdown waits for whatever cleanup comes next."""
    return core.contest.fn(s, x, b).replace(stage=s.stage, tasks=s.tasks)


def _showdown_ends_at_once(s: Any, x: Any, b: Any) -> Any:
    """The player with Focus ends the showdown without the others passing it."""
    return core.showdown_ends.fn(s.replace(passes=b.players - 1), x, b)


def _main_without_a_cleanup(s: Any, x: Any, b: Any) -> Any:
    """The main phase begins with no cleanup outstanding."""
    return core.main_begins.fn(s, x, b).replace(tasks=s.tasks)


def _main_ends_in_a_showdown(s: Any, x: Any, b: Any) -> Any:
    """The turn player ends the main phase even in a showdown."""
    return core.end_main.fn(s.replace(showdown=False), x, b).replace(showdown=s.showdown)


def _pools_kept(s: Any, x: Any, b: Any) -> Any:
    """The expiration step begins without emptying the rune pools."""
    return core.expiration_begins.fn(s, x, b).replace(pool=s.pool)


def _spell_kept_in_hand(s: Any, x: Any, b: Any, card: int, **kw: Any) -> Any:
    """A card played from the count of its player's hand stays counted in it."""
    return core.play.fn(s, x, b, card, **kw).replace(hand=s.hand)


def _trigger_stays(s: Any, x: Any, b: Any) -> Any:
    """A triggered ability with no legal choice is passed over and stays pending."""
    return core.remove_without_choice.fn(s, x, b).replace(chain=s.chain)


def _turn_starts_again(s: Any, x: Any, b: Any) -> Any:
    """The turn's start leaves its beginning as it was: it runs again, and its player draws
    again."""
    return core.start_turn.fn(s, x, b).replace(stage=s.stage)


def _undo_keeps_the_opener(s: Any, x: Any, b: Any) -> Any:
    """358.4 half applied: the card is undone, but the chain it alone opened is not."""
    return core.undo_illegal.fn(s, x, b).replace(opener=s.opener)


def _rewritten(rule: Any, summary: str, fn: Any) -> Replace:
    return Replace(rule.name, replace(rule, fn=fn, summary=f"MUTANT: {summary}"))


MUTANTS = (
    Mutant(
        "open-to-the-next-player",
        "in an Open state the next player in turn order may act instead of the turn player (or "
        "the player with Focus)",
        (_rewritten(core.open_priority, "the next player may act", _open_to_the_next),),
        ("who-may-act-when-open",),
    ),
    Mutant(
        "focus-stays",
        "a player who passes Focus keeps it",
        (_rewritten(core.pass_focus, "Focus stays with the player who passes it", _focus_stays),),
        ("passing-focus-gives-it-to-the-next-player",),
    ),
    Mutant(
        "any-target",
        "an item that targets may be finalized with a target that is not legal",
        (derive("finalize_choosing", "MUTANT: any target, legal or not", legal=False),),
        ("targets-are-legal-when-chosen",),
    ),
    Mutant(
        "finished-item-still-resolving",
        "an item that finished resolving stays the resolving item",
        (_rewritten(core.finish_resolving, "the item stays resolving", _still_resolving),),
        ("nothing-resolves-once-it-has-finished",),
    ),
    Mutant(
        "resolve-without-passing",
        "the player with priority resolves the newest item without the other players passing",
        (
            _rewritten(
                core.pass_resolve,
                "the newest item resolves without all players passing",
                _resolve_at_once,
            ),
        ),
        ("resolves-after-all-pass",),
    ),
    Mutant(
        "expiration-always-restarts",
        "317.2.f misread: the expiration step starts over whether or not anything went "
        "through FEPR in it",
        (
            derive(
                "expiration_restarts",
                "MUTANT: the expiration step starts over even when nothing went through FEPR",
                restart="always",
            ),
        ),
        ("expiration-terminates", "at-most-one-automatic-rule"),
    ),
    Mutant(
        "cleanup-always-repeats",
        "322 misread: every cleanup makes another outstanding, changed or not",
        (derive("cleanup", "MUTANT: a cleanup always makes another outstanding", repeat="always"),),
        ("cleanups-terminate",),
    ),
    Mutant(
        "newest-pending-first",
        "pending items are finalized newest first",
        (derive("finalize", "MUTANT: the newest pending item is finalized first", order="newest"),),
        ("pending-finalize-oldest-first",),
    ),
    Mutant(
        "finalize-before-cleanup",
        "HOT FEPR misread: an item is finalized while a cleanup is still outstanding",
        (
            derive(
                "finalize",
                "MUTANT: finalization does not wait for the outstanding cleanup",
                after_tasks=False,
            ),
        ),
        ("no-resolution-during-resolution-or-cleanup", "at-most-one-automatic-rule"),
    ),
    Mutant(
        "cleanup-during-resolution",
        "321 ignored: a queued cleanup runs before the resolving item has finished",
        (
            derive(
                "cleanup",
                "MUTANT: a cleanup runs while an item is still resolving",
                when={"stage": (Stage.TASKS, Stage.RESOLVED)},
            ),
        ),
        ("no-resolution-during-resolution-or-cleanup",),
    ),
    Mutant(
        "units-wait-on-the-chain",
        "337.1.c ignored: units, gear and Add abilities are finalized like spells and wait for "
        "the passes",
        (
            derive(
                "finalize",
                "MUTANT: units, gear and Add abilities stay on the chain when finalized",
                immediate=False,
            ),
        ),
        ("immediate-items-never-wait",),
        bounds={"actions": 1},  # one card a turn shows it; two make 164,660 states
    ),
    Mutant(
        "play-triggers-on-finalize",
        "a trigger condition reads 'play' as finalize (the meaning of Legion's check, not of "
        "419.4): 'when you play a spell' fires as the spell is finalized",
        (
            derive(
                "finalize",
                "MUTANT: play triggers fire as a spell is finalized",
                played_at="finalization",
            ),
        ),
        ("countered-card-fires-no-play-trigger",),
    ),
    Mutant(
        "focus-ignores-346-1",
        "346.1 ignored: Focus passes even when a triggered or an Add ability opened the chain",
        (
            derive(
                "becomes_open", "MUTANT: Focus always passes when a chain empties", focus="always"
            ),
        ),
        ("focus-follows-346",),
    ),
    Mutant(
        "priority-between-finalizations",
        "337.1.a ignored: the newest item's controller gains priority while items are still "
        "pending",
        (
            derive(
                "gain_priority",
                "MUTANT: priority is given before every pending item is finalized",
                after_finalizing=False,
            ),
        ),
        ("no-response-while-pending",),
        # one card a turn and no energy show it (57,042 states); two cards make 1,079,802
        bounds={"actions": 1, "energy": 0},
    ),
    Mutant(
        "no-closed-timing",
        "309.1.a ignored: in a Closed state any card may be played, as in an Open one",
        (
            derive(
                "play", "MUTANT: a Closed state allows what an Open one does", closed_timing=False
            ),
        ),
        ("play-timing",),
        bounds={"actions": 1},  # one card a turn shows it; two make 245,980 states
    ),
    Mutant(
        "triggers-join-mid-resolution",
        "401.2 ignored: a trigger joins the chain before the item whose resolution fired it has "
        "finished",
        (
            derive(
                "stack_trigger",
                "MUTANT: waiting triggers join the chain while an item is still resolving",
                when={"stage": (Stage.TASKS, Stage.RESOLVED)},
            ),
        ),
        ("triggers-wait-for-resolution",),
    ),
    Mutant(
        "priority-to-the-next-player",
        "337 misread: when nothing is pending, the player after the newest item's controller "
        "gains priority",
        (
            _rewritten(
                core.gain_priority,
                "the player after the newest item's controller gains priority",
                _priority_to_the_next,
            ),
        ),
        ("priority-goes-to-the-newest-items-controller",),
    ),
    Mutant(
        "focus-to-the-opponent",
        "345 misread: when a showdown starts, the player after the contester gains Focus",
        (_rewritten(core.cleanup, "the contester's opponent gains Focus", _focus_to_the_next),),
        ("the-contester-gains-focus",),
    ),
    Mutant(
        "contest-without-a-cleanup",
        "323.8 ignored: contesting a battlefield is not a move that makes a cleanup "
        "outstanding, so its showdown waits while the players go on acting",
        (
            _rewritten(
                core.contest,
                "contesting makes no cleanup outstanding",
                _contest_without_a_cleanup,
            ),
        ),
        ("showdown-starts-before-anyone-acts",),
    ),
    Mutant(
        "showdown-ends-at-once",
        "347 misread: the player with Focus ends the showdown without every player passing",
        (
            _rewritten(
                core.showdown_ends,
                "the showdown ends without all players passing Focus",
                _showdown_ends_at_once,
            ),
        ),
        ("showdown-ends-when-all-pass-focus",),
    ),
    Mutant(
        "main-phase-without-a-cleanup",
        "319 overlooked for a phase transition: the main phase begins with no cleanup outstanding",
        (
            _rewritten(
                core.main_begins, "no cleanup as the main phase begins", _main_without_a_cleanup
            ),
        ),
        ("a-cleanup-follows-each-change",),
    ),
    Mutant(
        "main-phase-ends-in-a-showdown",
        "305 misread: the turn player ends the main phase in the middle of a showdown",
        (
            _rewritten(
                core.end_main, "the main phase ends even in a showdown", _main_ends_in_a_showdown
            ),
        ),
        ("phases-follow-in-order",),
    ),
    Mutant(
        "pools-survive-the-turn",
        "317.2 half applied: the ending special cleanup heals the units but leaves the rune "
        "pools as they are",
        (_rewritten(core.expiration_begins, "the rune pools are not emptied", _pools_kept),),
        ("the-expiration-step-begins-with-its-special-cleanup",),
    ),
    Mutant(
        "played-spell-stays-in-hand",
        "349 half applied: a spell goes on the chain, and its card stays in its player's hand",
        (_rewritten(core.play, "the card stays in hand", _spell_kept_in_hand),),
        ("a-card-is-played-from-its-controllers-hand",),
        bounds={"actions": 1},
    ),
    Mutant(
        "unpayable-plays-offered",
        "358 left to undo: a player may begin playing a card whose cost they cannot pay, and "
        "the failed legality check undoes it",
        (derive("play", "MUTANT: plays are offered whatever their cost", unpayable=True),),
        ("a-played-card-passes-its-legality-check",),
        bounds={"actions": 1},
    ),
    Mutant(
        "undone-play-leaves-a-chain",
        "358.4 half applied: a play that fails its legality check is undone, but the chain it "
        "alone opened stays on record, so the state becomes Open as after a chain and Focus "
        "passes in a showdown (346), though nothing was played",
        (
            derive("play", "MUTANT: plays are offered whatever their cost", unpayable=True),
            _rewritten(
                core.undo_illegal, "the chain an undone play opened stays", _undo_keeps_the_opener
            ),
        ),
        ("focus-follows-346",),
        bounds={"actions": 1},
    ),
    Mutant(
        "trigger-without-a-choice-stays",
        "402.3 half applied: a triggered ability with no legal choice is not taken off the "
        "chain, and finalization comes back to it",
        (
            _rewritten(
                core.remove_without_choice,
                "the trigger without a legal choice stays pending",
                _trigger_stays,
            ),
        ),
        ("a-trigger-without-a-legal-choice-leaves-the-chain",),
        bounds={"actions": 1},
    ),
    Mutant(
        "trigger-removed-despite-a-legal-choice",
        "402.3 misread: a triggered ability that targets may leave the chain unfinalized even "
        "when it has a legal choice",
        (
            derive(
                "remove_without_choice",
                "MUTANT: removed whether or not it has a legal choice",
                checked=False,
            ),
        ),
        ("a-trigger-without-a-legal-choice-leaves-the-chain",),
        bounds={"actions": 1},
    ),
    Mutant(
        "turn-start-repeats",
        "315 misread: the turn's start runs again and again, its player drawing each time, "
        "until the hand is full",
        (_rewritten(core.start_turn, "the turn's start runs again", _turn_starts_again),),
        ("each-phase-begins-once",),
        bounds={"turns": 2},  # the second turn's start shows it
    ),
    Mutant(
        "no-main-phase-end",
        "the rule that ends the main phase is missing",
        (Remove("end_main"),),
        ("no-deadlock",),
    ),
)
