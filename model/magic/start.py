"""Where a Magic scenario starts: the start keys of the Magic core (``[start]`` in a scenario
file, see ``scenarios/FORMAT.md``): the step, the stage (``begin``: its turn-based actions come
first; ``priority``: a player has priority), who has priority, the stack and the triggers
waiting to go on it. The keys every game has (turn, hands, fields) are read by
:mod:`turnproof.model.scenario`."""

from __future__ import annotations

from typing import Any

from turnproof.model import scenario as sc
from turnproof.model.magic.core import NO_ITEM, Item, Stage, Step
from turnproof.model.packs import StartKeys
from turnproof.model.rules import Model

STAGES = ("begin", "priority")

KEYS = {
    "step": "a step (UNTAP, UPKEEP, DRAW, MAIN1, ... CLEANUP)",
    "stage": "'begin' (its turn-based actions first) or 'priority' (a player has priority)",
    "priority": "who has priority (default: the active player)",
    "stack": "the stack, bottom first: objects that name their card or kind, and n",
    "waiting": "triggers waiting to go on the stack (only at 'begin': 117.5)",
    "controls": "control of turns (723): [{player = P, by = Q}] waits for P's next turn; with "
    "now = true, Q controls the turn being played (P must be its active player)",
}
#: The keys of one entry of ``controls``.
CONTROL_KEYS = ("player", "by", "now")
ITEMS = ("stack", "waiting")


def item(what: int, spec: sc.ItemSpec, model: Model) -> Item:
    """A stack object or a waiting trigger (controller 0 unless given; ``n``: "that many")."""
    sc.refuse_item_keys(spec, "Magic", ("finalized", "target"))
    ctrl = 0 if spec.controller is None else spec.controller
    return NO_ITEM._replace(ctrl=ctrl, what=what, n=spec.n or 0)


def start(spec: sc.StartSpec, model: Model, made: dict[str, Any]) -> dict[str, Any]:
    """The field changes of Magic's start keys (see the module docstring)."""
    b = model.bounds
    at = spec.at
    changes: dict[str, Any] = {}
    step_name = spec.get("step")
    stage = spec.get("stage")
    first: Any = model.initial_states()[0]
    if step_name is not None:
        changes["step"] = sc.enum_value(Step, step_name, at + ("step",), "step")
    if stage is not None:
        if stage not in STAGES:
            raise sc.unknown(at + ("stage",), "stage", str(stage), STAGES)
        changes["stage"] = Stage.PRIORITY if stage == "priority" else Stage.BEGIN
        step = Step(int(changes.get("step", first.step)))
        if stage == "priority":
            if step is Step.UNTAP:
                raise sc.SpecError(
                    at + ("stage",),
                    "nobody gets priority in the untap step (502.4); start "
                    "at 'begin' or in another step",
                )
            if step is Step.CLEANUP:
                changes["cl_prio"] = True  # priority in cleanup only after something happened
    priority = spec.get("priority")
    if priority is not None:
        if stage != "priority":
            raise sc.SpecError(
                at + ("priority",), "a player has priority only with stage = 'priority'"
            )
        changes["prio"] = sc.player_value(priority, model, at + ("priority",))
    elif stage == "priority":
        changes["prio"] = made.get("turn", first.turn) % b.players
    stack = spec.get("stack", ())
    waiting = spec.get("waiting", ())
    if stack:
        changes["stack"] = sc.start_items(stack, model, "stack", "stack", "stack", at)
    if waiting:
        changes["pending"] = sc.start_items(waiting, model, "pending", "waiting", "waiting", at)
    if stage == "priority" and waiting:
        raise sc.SpecError(
            at + ("waiting",),
            "nothing waits while a player has priority: waiting triggers go on the stack before "
            "anyone receives priority (117.5); start at stage 'begin', or put them on the stack",
        )
    changes.update(_controls(spec.get("controls", ()), model, at + ("controls",), made, first))
    return changes


def _controls(value: Any, model: Model, at: sc.Path, made: dict[str, Any], first: Any) -> Any:
    """The field changes of ``controls``: who controls a turn now (``ctrl_now``) and the
    effects waiting for players' next turns (``ctrl_next``; of two on one player, the later
    entry is the effect created last and wins, 723.1a)."""
    if not value:
        return {}
    b = model.bounds
    entries = value if isinstance(value, tuple) else (value,)
    ctrl_next = list(first.ctrl_next)
    changes: dict[str, Any] = {}
    for i, entry in enumerate(entries):
        where = at + (i,)
        if not isinstance(entry, tuple) or not all(
            isinstance(kv, tuple) and len(kv) == 2 and isinstance(kv[0], str) for kv in entry
        ):
            raise sc.SpecError(where, f"expected a table {{player = P, by = Q}}, got {entry!r}")
        d = dict(entry)
        for key in d:
            if key not in CONTROL_KEYS:
                raise sc.unknown(where + (key,), "key of a control entry", key, CONTROL_KEYS)
        for key in ("player", "by"):
            if key not in d:
                raise sc.SpecError(where, f"a control entry needs '{key}' (a player number)")
        player = sc.player_value(d["player"], model, where + ("player",))
        by = sc.player_value(d["by"], model, where + ("by",))
        now = d.get("now", False)
        if not isinstance(now, bool):
            raise sc.SpecError(where + ("now",), f"expected true or false, got {now!r}")
        if now:
            active = made.get("turn", first.turn) % b.players
            if player != active:
                raise sc.SpecError(
                    where + ("player",),
                    f"only the turn being played can be controlled now: its active player is "
                    f"{active}, not {player}; without now = true the control waits for player "
                    f"{player}'s next turn",
                )
            if "ctrl_now" in changes:
                raise sc.SpecError(where, "one turn being played has one controller (723.1a)")
            changes["ctrl_now"] = by + 1
        else:
            ctrl_next[player] = by + 1
    if tuple(ctrl_next) != tuple(first.ctrl_next):
        changes["ctrl_next"] = tuple(ctrl_next)
    return changes


#: What a scenario's ``[start]`` may set for this game.
START = StartKeys(KEYS, ITEMS, start, item)
