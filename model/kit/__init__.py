"""Machinery that more than one game's core uses: players in turn order, priority passing, and
the objects that wait to go on a stack or chain.

Magic's stack (MTG 405) and Riftbound's chain (RB 325-340) differ in what an item is and in when
it resolves, but both keep a last-in-first-out sequence of items that each have a controller,
both collect triggered abilities that wait until a player would next receive priority, and both
put simultaneous waiting triggers in turn order starting with the active (turn) player (MTG
603.3b, RB 383.3.d). The functions here work on any fixed-capacity sequence of records with a
``ctrl`` field, written with the operations object like every rule: ``players.py`` (turn
order), ``stack.py`` (pushing within a bound, the newest item and its controller, the oldest item
with a property), ``waiting.py`` (firing a trigger, and which waiting trigger may go next).
"""
