"""Rulings replayed step by step on the Magic rule set, where the order of the steps is the point.

Each test plays one game with a script of choices (everything else: all players pass) and checks
the outcome the ruling states, by rule citation and by state. The rulings a scenario can state
as properties are shipped scenarios instead (scenarios/data: CU-01, CU-02, CU-04, ET-03, ET-07,
ET-14, SG-12), checked on both engines by tests/test_shipped_scenarios.py.
"""

from __future__ import annotations

from turnproof.checks.simulate import play
from turnproof.model.magic import Stage, Step, compose_magic
from turnproof.model.rules import Model

#: The cards of these tests, by the name each had as a 0/1 bound before cards became packs, with
#: who controls each (None: each player has one).
CARDS = {
    "pump": ("pump", None),
    "brace": ("brace", None),
    "omen": ("omen", None),
    "sundial": ("sundial-of-the-infinite", None),
    "rielle": ("rielle-the-everwise", 0),
    "tutelage": ("sphinxs-tutelage", 0),
    "sarkhan": ("sarkhan-the-dragonspeaker", 0),
    "shock": ("shock", 1),
    "waylay": ("waylay", None),
    "undoing": ("days-undoing", None),
    "freeze": ("freeze", None),
    "mandate": ("mandate-of-peace", None),
}


def magic(*cards: str, **bounds: int) -> Model:
    """The Magic rule set with only ``cards`` in play, no mana, and ``bounds``."""
    return Model(compose_magic([CARDS[c] for c in cards]), {"mana": 0, **bounds})


def kinds(m: Model):
    return m.ruleset.setup.kinds


def cleanup_part(replay):
    """The citations from the first cleanup step to the end of the turn."""
    cites = replay.citations()
    return cites[cites.index("MTG 514.1") :]


def test_ending_the_turn_during_cleanup_starts_a_new_cleanup():
    # A cleanup priority window (from the discard trigger), and Sundial activated in it.
    m = magic("sundial", "rielle", turns=1, actions=1, hand0=9)
    script = ["pass_priority"] * 0
    # Pass through the turn until the cleanup window, then activate Sundial.
    r = play(m)
    window = next(
        i for i, s in enumerate(r.states) if s.step == Step.CLEANUP and s.stage == Stage.PRIORITY
    )
    r2 = play(m, script + ["activate_sundial"], start=r.states[window])
    cites = r2.citations()
    assert cites[:1] == ["MTG 602.5d"]
    d = cites.index("MTG 724.1d")
    assert cites[d + 1] == "MTG 514.1"  # a new cleanup step begins
    assert r2.final.turn == 1


def test_delayed_end_step_trigger_created_in_end_step_waits_513_2():
    # Omen cast in the end step: its delayed trigger waits for the next turn's end step.
    m = magic("omen", turns=2, actions=1)
    r = play(m)
    end_window = next(
        i for i, s in enumerate(r.states) if s.step == Step.END and s.stage == Stage.PRIORITY
    )
    r2 = play(m, ["cast(card=OMEN)"], start=r.states[end_window])
    fired = [
        s
        for s in r2.states
        if any(it.what == kinds(m).T_OMEN for it in s.pending.slots[: s.pending.length])
    ]
    assert fired and all(s.turn == 1 and s.step == Step.END for s in fired)


def test_et07_sarkhan_and_sundial():
    # Sarkhan's +1 in main phase 1 (loyalty 4 -> 5); once he is a Dragon, the opponent's Shock
    # deals him 2 damage, marked on him as a creature (120.3e); Sundial ends the turn in main
    # phase 2: at 514.2 he stops being a creature and loses the damage in the same instant,
    # keeping loyalty 5.
    m = magic("sarkhan", "sundial", "shock", turns=1, actions=2)
    script = ["activate_sarkhan", "pass_priority", "pass_resolve", "pass_priority"]
    r = play(m, [*script, "cast(card=SHOCK_AT_SARKHAN)"])
    main2 = next(
        i for i, s in enumerate(r.states) if s.step == Step.MAIN2 and s.stage == Stage.PRIORITY
    )
    assert r.states[main2].sark_anim and r.states[main2].sark_dmg == 2
    assert r.states[main2].sark_loyalty == 5
    r2 = play(m, ["activate_sundial"], start=r.states[main2])
    cites = r2.citations()
    i = cites.index("MTG 514.2")
    before, after = r2.states[i], r2.states[i + 1]
    assert before.sark_anim and before.sark_dmg == 2
    assert not after.sark_anim and after.sark_dmg == 0 and after.sark_loyalty == 5
    assert r2.final.sark_here and r2.final.sark_loyalty == 5 and not r2.final.sark_anim


def test_shock_at_sarkhan_as_a_planeswalker_costs_loyalty():
    # Not animated, he is a planeswalker: the same 2 damage removes 2 loyalty (120.3c).
    m = magic("sarkhan", "shock", turns=1, actions=1)
    r = play(m, ["pass_priority", "cast(card=SHOCK_AT_SARKHAN)"])
    assert any(s.sark_loyalty == 2 for s in r.states) and r.final.sark_loyalty == 2


def test_724_2_ending_the_combat_phase():
    # An 'until end of combat' effect, then Mandate of Peace: combat ends at once, the effect
    # ends, the game goes on to the second main phase, and no end of combat step happens.
    m = magic("brace", "mandate", turns=1, actions=2, hand0=7)
    # Brace resolves first (player 0 passes, player 1 passes), then player 0 casts Mandate.
    r = play(m, ["cast(card=BRACE)", "pass_priority", "pass_resolve", "cast(card=MANDATE)"])
    cites = r.citations()
    d = cites.index("MTG 724.2d")
    before, after = r.states[d], r.states[d + 1]
    assert before.brace == 1 and before.step == Step.BEGIN_COMBAT
    assert after.brace == 0 and after.step == Step.MAIN2 and after.stage == Stage.BEGIN
    assert not any(s.step == Step.END_COMBAT for s in r.states[d:])
    assert cites[d - 2 : d] == ["MTG 724.2a", "MTG 724.2b"]


def test_724_2b_mandate_in_response_exiles_the_spell_below_it():
    # The caster keeps priority (117.3c): Mandate cast in response resolves first, and ending
    # the combat phase exiles the Brace spell still on the stack, so its effect never begins.
    m = magic("brace", "mandate", turns=1, actions=2, hand0=7)
    r = play(m, ["cast(card=BRACE)", "cast(card=MANDATE)"])
    cites = r.citations()
    b = cites.index("MTG 724.2b")
    assert [it.what for it in r.states[b].stack.slots[: r.states[b].stack.length]] == [
        kinds(m).BRACE
    ]
    assert r.states[b + 1].stack.length == 0
    assert all(s.brace == 0 for s in r.states)
