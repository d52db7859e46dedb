"""Rulings RB-01, 02, 03, 05 and 06 from shared/examples/rulings.md and the seed's three worked
examples (shared/seeds/002), replayed step by step on the Riftbound rule set.

Each test plays one game with a script of choices (everything else: the default policy below)
and checks the outcome the ruling states, by rule citation and by state.
"""

from __future__ import annotations

from typing import Any

from turnproof.checks.explicit import check_properties
from turnproof.checks.results import Verdict
from turnproof.checks.simulate import Replay, enabled, play
from turnproof.model.riftbound import Phase, Stage, Zone, card, compose_riftbound
from turnproof.model.riftbound.core import slot_of
from turnproof.model.rules import Model

#: Whoever decides passes, puts their first waiting trigger on the chain, passes Focus, and
#: ends the main phase: the game moves on unless the script says otherwise.
POLICY = (
    "pass_priority",
    "pass_resolve",
    "stack_trigger(i=0)",
    "pass_focus",
    "showdown_ends",
    "end_main",
)


def riftbound(*cards: tuple[str, int | None], **bounds: int) -> Model:
    """The Riftbound rule set with only ``cards`` in play, and ``bounds``."""
    return Model(compose_riftbound(cards), {"turns": 1, **bounds})


def run(m: Model, script: list[str], start: Any = None) -> Replay:
    return play(m, script, policy=POLICY, start=start)


def kinds(m: Model) -> Any:
    return m.ruleset.setup.kinds


def slot(m: Model, kind: str) -> int:
    """A permanent's slot, which is what a target names (``finalize_choosing(t=...)``)."""
    return slot_of(m.bounds, int(kinds(m)[kind]))


def index_of(r: Replay, name: str, after: int = 0) -> int:
    """The index of the first step at or after ``after`` by the rule named ``name``."""
    return next(i for i, a in enumerate(r.actions) if i >= after and a.rule.name == name)


def items(s: Any) -> list[Any]:
    return list(s.chain.slots[: s.chain.length])


def test_rb01_spell_in_neutral_open() -> None:
    m = riftbound(("strike", None), ("denial", 1), ("rune", None), ("grim-sentinel", 1))
    K = kinds(m)
    grim = slot(m, "GRIM_SENTINEL")
    r = run(m, ["activate_rune", "play(card=STRIKE)", f"finalize_choosing(t={grim})"])
    p = index_of(r, "play")
    played = r.states[p + 1]
    # 1. Strike is a pending item, which closes the state
    assert items(played) == [items(played)[0]] and not items(played)[0].fin
    assert items(played)[0].what == K.STRIKE and played.stage == Stage.TASKS
    # 2. its controller chooses, pays and it is finalized (no priority passes meanwhile)
    f = index_of(r, "finalize_choosing", p)
    assert r.citations()[p + 1 : f] == ["RB 322"]  # the outstanding cleanup, then finalization
    fin = r.states[f + 1]
    assert items(fin)[0].fin and items(fin)[0].tgt == grim + 1 and fin.pool[0] == 0
    # 3. the controller of the newest item (player 0) gains priority
    g = index_of(r, "gain_priority", f)
    assert r.states[g + 1].stage == Stage.PRIORITY and r.states[g + 1].prio == 0
    # 4. player 1 may then play only a Reaction: Denial (with energy), never Strike
    after_pass = r.states[index_of(r, "pass_priority", g) + 1]
    assert after_pass.prio == 1
    with_energy = after_pass.replace(pool=(0, 1))
    plays = {a.label for a, _ in enabled(m, with_energy) if a.rule.name == "play"}
    assert plays == {"play(card=DENIAL)"}
    # 5. after consecutive passes the newest item resolves
    res = index_of(r, "pass_resolve", g)
    assert r.citations()[res - 1 : res + 1] == ["RB 339", "RB 340"]
    assert r.states[res + 1].res.what == K.STRIKE


def test_rb02_finalization_order() -> None:
    m = riftbound(("strike", 1), ("firebrand", 0), ("rally", 0), ("grim-sentinel", 1), actions=0)
    K = kinds(m)
    first = m.initial_states()[0]
    pending = [(1, K.STRIKE), (0, K.FIREBRAND), (0, K.RALLY)]
    chain = first.chain._replace(
        length=3,
        slots=tuple(first.chain.slots[0]._replace(ctrl=c, what=w) for c, w in pending),
    )
    perm = list(first.perm)
    perm[slot(m, "FIREBRAND")] = perm[slot(m, "FIREBRAND")]._replace(zone=Zone.CHAIN)
    start = first.replace(
        stage=Stage.TASKS, tasks=True, chain=chain, pool=(0, 1), perm=tuple(perm), opener=1
    )
    grim = slot(m, "GRIM_SENTINEL")
    r = run(m, [f"finalize_choosing(t={grim})", f"finalize_choosing(t={grim})"], start=start)
    # X1 (Strike), X2 (Firebrand, which resolves as it is finalized), X3 (Rally), then
    # Firebrand's play effect, which joined the chain after it
    order = [a.rule.name for a in r.actions if a.rule.citation in ("RB 337.1.b", "RB 337.1.c")]
    assert order[:4] == ["finalize_choosing", "resolve_firebrand", "finalize", "finalize_choosing"]
    i = index_of(r, "resolve_firebrand")
    assert r.states[i + 1].perm[slot(m, "FIREBRAND")].zone == Zone.BOARD
    assert [it.what for it in items(r.states[i + 1])] == [K.STRIKE, K.RALLY]
    # the finalized spells then resolve newest first
    resolved = [
        r.states[i + 1].res.what for i, a in enumerate(r.actions) if a.rule.name == "pass_resolve"
    ]
    # (the play effect killed Grim Sentinel, whose Deathknell joined the chain above Rally)
    assert resolved == [K.T_FIREBRAND, K.T_GRIM, K.RALLY, K.STRIKE]


def test_rb03_units_have_no_reaction_window() -> None:
    m = riftbound(("firebrand", 0), ("grim-sentinel", 1), actions=1)
    K = kinds(m)
    grim = slot(m, "GRIM_SENTINEL")
    r = run(m, ["play(card=FIREBRAND)", f"finalize_choosing(t={grim})"])
    # 1. it is finalized and resolves at once: nobody ever has priority over the unit itself
    i = index_of(r, "resolve_firebrand")
    assert r.actions[i].rule.citation == "RB 337.1.c"
    assert not any(
        s.stage == Stage.PRIORITY and any(it.what == K.FIREBRAND for it in items(s))
        for s in r.states
    )
    assert r.states[i + 1].perm[slot(m, "FIREBRAND")].zone == Zone.BOARD
    # 2. its play effect becomes pending (383.4.a), is finalized choosing its target, and
    # player 1 may react to the trigger
    assert [it.what for it in r.states[i + 1].waiting.slots[:1]] == [K.T_FIREBRAND]
    f = index_of(r, "finalize_choosing", i)
    assert r.states[f].chain.slots[0].tgt == 0 and r.states[f + 1].chain.slots[0].tgt == grim + 1
    p1 = next(s for s in r.states[f:] if s.stage == Stage.PRIORITY and s.prio == 1)
    assert [it.what for it in items(p1)] == [K.T_FIREBRAND]
    # the play effect deals its 2 damage; Grim Sentinel dies in the next cleanup
    assert r.final.perm[grim].zone == Zone.TRASH


def test_rb05_trigger_during_resolution_waits() -> None:
    m = Model(
        compose_riftbound(
            [
                card("strike", 0),
                card("scholars-tome", 0),
                card("grim-sentinel", 1),
                card("firebrand", 0, "board"),
                card("rune"),
            ]
        ),
        {"turns": 1, "actions": 1},
    )
    K = kinds(m)
    unit_a = slot(m, "FIREBRAND")
    grim = slot(m, "GRIM_SENTINEL")
    # Strike deals 3 to unit A (here player 0's own Firebrand) and draws; the Tome triggers
    r = run(
        m,
        [
            "activate_rune",
            "play(card=STRIKE)",
            f"finalize_choosing(t={unit_a})",
            f"finalize_choosing(t={grim})",
        ],
    )
    i = index_of(r, "resolve_strike")
    during = r.states[i + 1]
    assert during.stage == Stage.RESOLVED and [it.what for it in during.waiting.slots[:1]] == [
        K.T_TOME
    ]
    assert not any(it.what == K.T_TOME for it in items(during))  # it waits: 401.2
    # Strike finishes first; then the trigger joins the chain, the outstanding cleanup runs
    # (unit A dies), and only then is the trigger finalized, as the newest item
    cites = r.citations()
    done = index_of(r, "finish_resolving", i)
    stack = index_of(r, "stack_trigger", done)
    clean = index_of(r, "cleanup", stack)
    fin = index_of(r, "finalize_choosing", clean)
    assert done < stack < clean < fin and cites[fin] == "RB 337.1.b"
    assert r.states[clean + 1].perm[unit_a].zone == Zone.TRASH
    newest = next(s for s in r.states[fin:] if s.stage == Stage.PRIORITY)
    assert [it.what for it in items(newest)] == [K.T_TOME] and newest.prio == 0


def test_rb05_a_trigger_with_no_legal_choice_is_removed_not_countered() -> None:
    m = riftbound(
        ("strike", 0), ("scholars-tome", 0), ("grim-sentinel", 1), ("rune", None), actions=1
    )
    K = kinds(m)
    grim = slot(m, "GRIM_SENTINEL")
    # Strike kills the only enemy unit: the Tome's trigger has no legal choice (402.3)
    r = run(m, ["activate_rune", "play(card=STRIKE)", f"finalize_choosing(t={grim})"])
    i = index_of(r, "remove_without_choice")
    before, after = r.states[i], r.states[i + 1]
    # (Grim Sentinel's Deathknell joined the chain above it)
    assert [(it.what, it.fin) for it in items(before)] == [(K.T_TOME, False), (K.T_GRIM, False)]
    assert [it.what for it in items(after)] == [K.T_GRIM] and before.perm[grim].zone == Zone.TRASH
    assert "RB 425" not in " ".join(r.citations())  # nothing was countered


def test_rb06_countered_spell() -> None:
    m = riftbound(
        ("strike", 0),
        ("denial", 1),
        ("spellwatcher", 0),
        ("rally", 0),
        ("rune", None),
        ("grim-sentinel", 1),
        actions=2,
        hand0=2,
    )
    K = kinds(m)
    grim = slot(m, "GRIM_SENTINEL")
    r = run(
        m,
        [
            "activate_rune",
            "play(card=STRIKE)",
            f"finalize_choosing(t={grim})",
            "activate_rune",  # player 1's, for Denial's cost
            "play(card=DENIAL)",
            "finalize_choosing(t=0)",  # Denial targets Strike, the item at chain position 0
            "play(card=RALLY)",
        ],
    )
    cites = r.citations()
    paid = r.states[index_of(r, "finalize_choosing") + 1]
    assert paid.pool[0] == 0 and paid.finals[0] == 1  # Strike's cost paid as it is finalized
    c = index_of(r, "resolve_denial")
    assert r.states[c + 1].chain.length == 0  # Strike does nothing and leaves the chain
    # Strike is not considered played: Spellwatcher never triggers for it
    assert "resolve_strike" not in [a.rule.name for a in r.actions]
    assert not any(
        it.what == K.T_SPELLWATCHER
        for s in r.states[: c + 3]
        for it in s.waiting.slots[: s.waiting.length]
    )
    # its cost is not refunded
    assert all(s.pool[0] == 0 for s in r.states[c:])
    # Legion on Rally is met: Strike was finalized this turn, so Rally draws
    i = index_of(r, "resolve_rally")
    assert r.states[i].finals[0] == 2
    assert r.states[i + 1].hand[0] == r.states[i].hand[0] + 1
    # Rally did resolve: Spellwatcher triggers for it (a spell of its controller played)
    assert any(
        it.what == K.T_SPELLWATCHER
        for it in r.states[index_of(r, "finish_resolving", i) + 1].waiting.slots[:1]
    )
    assert cites.count("RB 425.1") == 1  # Denial's resolution: it counters Strike


def test_seed_two_reflexive_draws() -> None:
    m = riftbound(("twin-insight", 0), ("spellwatcher", 1), actions=1)
    K = kinds(m)
    r = run(m, ["play(card=INSIGHT)"])
    i = index_of(r, "resolve_insight")
    # both are added, in order, while the spell continues; they wait for it to finish
    during = r.states[i + 1]
    assert during.stage == Stage.RESOLVED
    assert [it.what for it in during.waiting.slots[: during.waiting.length]] == [K.T_INSIGHT] * 2
    # after its instructions they are finalized oldest first, and players may respond
    window = next(s for s in r.states[i:] if s.stage == Stage.PRIORITY)
    assert [(it.what, it.fin) for it in items(window)] == [(K.T_INSIGHT, True)] * 2
    # the last added resolves first, then the older one: two draws
    res = [a for a in r.actions if a.rule.name == "resolve_t_insight"]
    assert len(res) == 2 and r.final.hand[0] == r.states[i].hand[0] + 2


def test_seed_unit_played_during_a_spells_resolution() -> None:
    m = riftbound(("call-to-arms", 0), ("firebrand", 0), ("grim-sentinel", 1), actions=1)
    K = kinds(m)
    grim = slot(m, "GRIM_SENTINEL")
    r = run(m, ["play(card=CALL)", f"finalize_choosing(t={grim})"])
    i = index_of(r, "resolve_call")
    during = r.states[i + 1]
    # the unit is put on the existing chain as a pending item; the spell still resolves and
    # draws; its other steps wait
    assert during.stage == Stage.RESOLVED and during.res.what == K.CALL
    assert [(it.what, it.fin) for it in items(during)] == [(K.FIREBRAND, False)]
    assert during.hand[0] == r.states[i].hand[0] + 1
    # the spell finishes, the tasks are handled, then the unit is finalized and resolves at once
    done = index_of(r, "finish_resolving", i)
    unit = index_of(r, "resolve_firebrand", done)
    assert "RB 322" in r.citations()[done:unit]
    assert r.states[unit + 1].perm[slot(m, "FIREBRAND")].zone == Zone.BOARD
    # its play effect is a separate pending ability, with its own response window
    assert [it.what for it in r.states[unit + 1].waiting.slots[:1]] == [K.T_FIREBRAND]
    window = next(s for s in r.states[unit:] if s.stage == Stage.PRIORITY)
    assert [it.what for it in items(window)] == [K.T_FIREBRAND]


def test_seed_all_targets_illegal_still_played() -> None:
    # A spell whose every target became illegal still finishes resolving, so it was played
    # (359.3.e.10): unlike a countered spell, it fires "when you play a spell". Start with
    # Strike finalized on the chain, its target (Grim Sentinel) already gone to the trash.
    m = riftbound(("strike", 0), ("spellwatcher", 0), ("grim-sentinel", 1), actions=1)
    K = kinds(m)
    grim = slot(m, "GRIM_SENTINEL")
    first = m.initial_states()[0]
    strike = first.chain.slots[0]._replace(ctrl=0, what=K.STRIKE, fin=True, tgt=grim + 1)
    perm = list(first.perm)
    perm[grim] = perm[grim]._replace(zone=Zone.TRASH)
    start = first.replace(
        stage=Stage.PRIORITY,
        chain=first.chain._replace(length=1, slots=(strike,) + first.chain.slots[1:]),
        perm=tuple(perm),
        opener=1,
    )
    r = run(m, [], start=start)
    i = index_of(r, "resolve_strike")
    assert r.states[i + 1].perm == r.states[i].perm  # its damage is skipped (359.3.e)
    assert r.states[i + 1].hand[0] == r.states[i].hand[0] + 1  # the rest still happens
    after = r.states[index_of(r, "finish_resolving", i) + 1]
    assert [it.what for it in after.waiting.slots[: after.waiting.length]] == [K.T_SPELLWATCHER]


def test_focus_passes_when_a_chain_empties_except_after_an_ability() -> None:
    m = riftbound(("strike", None), ("rune", None), ("grim-sentinel", 1), actions=1)
    grim = slot(m, "GRIM_SENTINEL")
    r = run(m, ["contest", "activate_rune", "play(card=STRIKE)", f"finalize_choosing(t={grim})"])
    starts = index_of(r, "cleanup", index_of(r, "contest"))
    assert r.states[starts + 1].showdown and r.states[starts + 1].focus == 0  # 345
    opens = [i for i, a in enumerate(r.actions) if a.rule.name == "becomes_open"]
    # the rune's Add ability opened the first chain: Focus stays (346.1); Strike opened the
    # second: Focus passes to player 1 (346)
    assert [(r.states[i].opener, r.states[i + 1].focus) for i in opens[:2]] == [(2, 0), (1, 1)]
    ends = index_of(r, "showdown_ends")
    assert not r.states[ends + 1].showdown and r.actions[ends].rule.citation == "RB 347"


def test_cleanups_repeat_until_one_changes_nothing() -> None:
    m = riftbound(("strike", 0), ("grim-sentinel", 1), ("rune", None), actions=1)
    grim = slot(m, "GRIM_SENTINEL")
    r = run(m, ["activate_rune", "play(card=STRIKE)", f"finalize_choosing(t={grim})"])
    i = next(
        i
        for i, a in enumerate(r.actions)
        if a.rule.name == "cleanup"
        and r.states[i].perm[grim].zone == Zone.BOARD
        and r.states[i + 1].perm[grim].zone == Zone.TRASH
    )
    killed = r.states[i + 1]
    assert killed.tasks  # it changed something: another cleanup is outstanding (322)
    assert [it.what for it in killed.waiting.slots[:1]] == [kinds(m).T_GRIM]  # Deathknell


def test_expiration_step_starts_over_forever_with_a_card_that_keeps_adding() -> None:
    m = riftbound(("lingering-echo", 0), actions=0)
    (res,) = check_properties(m, [m.ruleset.property("expiration-terminates")])
    assert res.verdict is Verdict.VIOLATED
    trace = res.trace
    assert trace is not None and trace.loop_start is not None
    loop = [s.rule for s in trace.steps[trace.loop_start :]]
    assert "RB 317.2.f" in loop and "RB 317.2" in loop and "RB 337.1.b" in loop
    decided = {s.rule for s in trace.steps[trace.loop_start :] if s.decider is not None}
    assert decided <= {"RB 339", "RB 340", "RB 383.3.d"}
    # nobody can leave it: its only choices are passes, and every way on stays in the step
    assert all(e.rule in ("RB 339", "RB 340", "RB 400.2") for e in trace.exits or ())


def test_expiration_step_ends_with_the_default_cards() -> None:
    m = riftbound(("sundown-bell", 0), ("scholars-tome", 0), ("grim-sentinel", 1))
    r = run(m, [f"finalize_choosing(t={slot(m, 'GRIM_SENTINEL')})"])
    assert "RB 317.1" in r.citations() and "RB 317.2.f" not in r.citations()
    end = index_of(r, "turn_ends")
    assert r.states[end].phase == Phase.EXPIRATION and r.final.turn == 1
