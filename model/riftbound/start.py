"""Where a Riftbound scenario starts: the start keys of the Riftbound core (``[start]`` in a
scenario file, see ``scenarios/FORMAT.md``): the phase, the stage, who has priority, the
showdown and Focus, the chain and the triggers waiting to join it. The keys every game has
(turn, hands, fields) are read by :mod:`turnproof.model.scenario`.

A start state must be one the rules could reach, as far as the chain goes: every item names its
controller; a card above the first one on the chain was played in a Closed state, so it is a
Reaction (309.1.a), and in a Showdown the first one is an Action or a Reaction (308.1.a); units,
gear and Add abilities are never finalized on the chain (337.1.c); pending items lie above the
finalized ones (337.1.b); and nobody has priority while an item is pending (337).
"""

from __future__ import annotations

from typing import Any

from turnproof.model import scenario as sc
from turnproof.model.packs import StartKeys
from turnproof.model.riftbound import core as rb
from turnproof.model.rules import Model

STAGES = {
    "begin": rb.Stage.BEGIN,
    "tasks": rb.Stage.TASKS,
    "open": rb.Stage.OPEN,
    "priority": rb.Stage.PRIORITY,
}

KEYS = {
    "phase": "the phase or step (START, MAIN, END_STEP, EXPIRATION)",
    "stage": "'begin' (its turn-based actions first), 'tasks' (HOT FEPR next: outstanding "
    "tasks, then finalization), 'open' (an Open state in the main phase: the turn player, or "
    "Focus, may act) or 'priority' (a Closed state: a player has priority)",
    "priority": "who has priority, or may act (default: the newest item's controller; in an "
    "Open state the turn player, or Focus)",
    "showdown": "true: a Showdown state (default false: Neutral)",
    "focus": "who has Focus in a showdown (default: the turn player)",
    "chain": "the chain, oldest first: items that name their card or kind, their controller, "
    "finalized (default true) and their target (a permanent's slot or a chain position, from 0)",
    "waiting": "triggers waiting to join the chain (not while a player has priority)",
}
ITEMS = ("chain", "waiting")


def item(what: int, spec: sc.ItemSpec, model: Model) -> rb.Item:
    """A chain item or a waiting trigger: its controller is required."""
    sc.refuse_item_keys(spec, "Riftbound", ("n",))
    if spec.controller is None:
        players = model.bounds.players
        raise sc.SpecError(
            spec.at,
            f"an item on the chain names its controller (controller = 0..{players - 1}): "
            "the player who played it and makes its choices",
        )
    tgt = 0
    if spec.target is not None:
        count = rb.target_count(model.bounds)
        if not 0 <= spec.target < count:
            raise sc.SpecError(
                spec.at + ("target",), f"target {spec.target} is outside 0..{count - 1}"
            )
        tgt = spec.target + 1
    fin = True if spec.finalized is None else spec.finalized
    return rb.NO_ITEM._replace(ctrl=spec.controller, what=what, fin=fin, tgt=tgt)


def _item_name(setup: Any, kind: int) -> str:
    """How an error names an item: its card's name, or what the ability is."""
    owner = setup.owners.get(kind)
    if owner is None:
        return str(setup.kinds(kind).name)
    if setup.has_trait(kind, "card"):
        return str(owner.name)
    spec = next(k for k in owner.pack.kinds if k.name == setup.kinds(kind).name)
    return f"{owner.name}'s {spec.name} ({spec.doc})"


def _check_chain(chain: Any, specs: Any, model: Model, showdown: bool, at: Any) -> None:
    setup = model.ruleset.setup
    items = chain.slots[: chain.length]
    for i, it in enumerate(items):
        where = at + ("chain", i)
        name = _item_name(setup, int(it.what))
        immediate = any(setup.has_trait(it.what, t) for t in rb.IMMEDIATE)
        if it.fin and immediate:
            raise sc.SpecError(
                where + ("finalized",),
                f"{name} resolves the moment it is finalized (RB 337.1.c): it is never a "
                "finalized item on the chain; write finalized = false, or leave it out",
            )
        if it.fin and i > 0 and not items[i - 1].fin:
            raise sc.SpecError(
                where,
                f"{name} is finalized above a pending item: pending items are finalized oldest "
                "first (RB 337.1.b)",
            )
        card = setup.has_trait(it.what, "card")
        if card and it.fin and i > 0 and not setup.has_trait(it.what, "reaction"):
            raise sc.SpecError(
                where,
                f"{name} is not a Reaction: it lies above the first item, so it was played in a "
                "Closed state, where only Reaction cards may be played (RB 309.1.a)",
            )
        if card and i == 0 and showdown:
            fast = setup.has_trait(it.what, "reaction") or setup.has_trait(it.what, "action")
            if not fast:
                raise sc.SpecError(
                    where,
                    f"{name} is neither an Action nor a Reaction: in a Showdown only those may "
                    "be played (RB 308.1.a)",
                )


def start(spec: sc.StartSpec, model: Model, made: dict[str, Any]) -> dict[str, Any]:
    """The field changes of Riftbound's start keys (see the module docstring)."""
    b = model.bounds
    at = spec.at
    first: Any = model.initial_states()[0]
    changes: dict[str, Any] = {}
    phase = first.phase
    if spec.get("phase") is not None:
        phase = changes["phase"] = sc.enum_value(
            rb.Phase, spec.get("phase"), at + ("phase",), "phase"
        )
    stage = first.stage
    name = spec.get("stage")
    if name is not None:
        if name not in STAGES:
            raise sc.unknown(at + ("stage",), "stage", str(name), list(STAGES))
        stage = changes["stage"] = STAGES[name]
    showdown = spec.get("showdown", False)
    if not isinstance(showdown, bool):
        raise sc.SpecError(at + ("showdown",), f"expected true or false, got {showdown!r}")
    turn = made.get("turn", first.turn)
    focus = rb.active(first.replace(turn=turn), b)
    if spec.get("focus") is not None:
        if not showdown:
            raise sc.SpecError(
                at + ("focus",), "Focus exists only in a showdown (RB 313): add showdown = true"
            )
        focus = sc.player_value(spec.get("focus"), model, at + ("focus",))
    if showdown:
        if phase != rb.Phase.MAIN:
            raise sc.SpecError(
                at + ("showdown",), "a showdown happens in the main phase (RB 316, 344)"
            )
        changes.update(showdown=True, focus=focus)
    chain_specs = spec.get("chain", ())
    waiting = spec.get("waiting", ())
    chain = first.chain
    if chain_specs:
        chain = changes["chain"] = sc.start_items(chain_specs, model, "chain", "chain", "chain", at)
        _check_chain(chain, chain_specs, model, showdown, at)
        perm = list(first.perm)
        for i, it in enumerate(chain.slots[: chain.length]):
            for k, sl in enumerate(rb.slots(b)):
                if sl.kind != int(it.what):
                    continue
                if perm[k].zone == rb.Zone.CHAIN:
                    raise sc.SpecError(at + ("chain", i), f"{sl.card.name} is on the chain twice")
                perm[k] = rb.Perm(rb.Zone.CHAIN, 0)
        changes["perm"] = tuple(perm)
        bottom = chain.slots[0]
        card = model.ruleset.setup.has_trait(bottom.what, "card")
        changes["opener"] = rb.Opener.CARD if card else rb.Opener.ABILITY
    if waiting:
        changes["waiting"] = sc.start_items(waiting, model, "waiting", "waiting", "waiting", at)
        if not chain_specs:
            changes["opener"] = rb.Opener.ABILITY
    pending = any(not it.fin for it in chain.slots[: chain.length])
    if stage == rb.Stage.PRIORITY:
        if not chain_specs:
            raise sc.SpecError(
                at + ("stage",),
                "priority in a Closed state needs a chain; with none, start at 'open' (an Open "
                "state)",
            )
        if pending:
            raise sc.SpecError(
                at + ("chain",),
                "nobody has priority while an item is pending: it is finalized first (RB 337)",
            )
        if waiting:
            raise sc.SpecError(
                at + ("waiting",),
                "nothing waits while a player has priority: waiting triggers join the chain "
                "before anyone gains priority (RB 383.3); start at 'tasks', or put them on the "
                "chain",
            )
    if stage == rb.Stage.OPEN and (chain_specs or waiting or phase != rb.Phase.MAIN):
        raise sc.SpecError(
            at + ("stage",),
            "an Open state (RB 307) has no chain and is in the main phase; start at 'tasks' or "
            "'priority'",
        )
    if stage == rb.Stage.TASKS:
        changes["tasks"] = True  # what the start changed makes a cleanup outstanding (319)
    who = spec.get("priority")
    if who is not None:
        if stage not in (rb.Stage.OPEN, rb.Stage.PRIORITY):
            raise sc.SpecError(
                at + ("priority",), "a player has priority only with stage 'open' or 'priority'"
            )
        changes["prio"] = sc.player_value(who, model, at + ("priority",))
    elif stage == rb.Stage.PRIORITY:
        changes["prio"] = int(chain.slots[chain.length - 1].ctrl)
    elif stage == rb.Stage.OPEN:
        changes["prio"] = focus if showdown else rb.active(first.replace(turn=turn), b)
    return changes


#: What a scenario's ``[start]`` may set for this game.
START = StartKeys(KEYS, ITEMS, start, item)
