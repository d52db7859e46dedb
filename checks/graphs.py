"""Pictures of the state space, as plain values for the renderers in ``reports/`` (which never
run an engine): the explored state graph, the neighbourhood of a trace, and the turn structure.

* :func:`state_graph`: every explored state and transition (for small models: the caller caps
  the size, see ``turnproof explore --max-nodes``);
* :func:`neighbourhood`: the states of a trace and their successors within one step, the
  trace's own transitions marked. It replays the trace on the model (from the initial state it
  starts in, taking at each step the rule instance it names to the state it describes), so it
  needs no exploration and works for a trace from either engine, as long as the trace was
  found with the model's bounds;
* :func:`turn_structure`: the explored graph projected on one field (``step``): an arrow per
  step change and rule, with how many explored transitions take it; transitions that stay in a
  step are counted per step.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from turnproof.checks.explicit import Exploration
from turnproof.checks.results import (
    GraphEdge,
    GraphNode,
    StateGraph,
    Trace,
    TurnMove,
    TurnStructure,
)
from turnproof.checks.simulate import enabled
from turnproof.model.ops import ConcreteOps
from turnproof.model.rules import Model
from turnproof.model.schema import State


def state_graph(ex: Exploration, title: str) -> StateGraph:
    """Every explored state (described against the state that first reached it) and edge."""
    x = ConcreteOps()
    actions = ex.model.actions
    describe = ex.model.schema.describe_value
    nodes = tuple(
        GraphNode(
            id=i,
            state=describe(ex.state(i)),
            parent=ex.src[ex.parent[i]] if ex.parent[i] >= 0 else None,
            initial=i < ex.n_initial,
            terminal=bool(ex.model.is_terminal(ex.state(i), x)),
        )
        for i in range(ex.states)
    )
    edges = tuple(
        GraphEdge(s, d, actions[a].rule.citation, actions[a].label)
        for s, d, a in zip(ex.src, ex.dst, ex.act)
    )
    caption = f"{ex.states:,} states and {ex.transitions:,} transitions"
    if not ex.complete:
        caption += f"; the exploration stopped early ({ex.stop_reason}): only part is shown"
    return StateGraph(title, nodes, edges, caption)


def replay_trace(model: Model, trace: Trace) -> list[State] | None:
    """The concrete states of ``trace`` on ``model``, or None when it does not replay there (a
    trace found with other values of bounds left open, or from another model)."""
    describe = model.schema.describe_value
    start = [s for s in model.initial_states() if describe(s) == trace.initial]
    if not start:
        return None
    states = [start[0]]
    want: dict[str, Any] = dict(trace.initial)
    for step in trace.steps:
        want = {**want, **{k: new for k, (_, new) in step.changed.items()}}
        found = [
            t for a, t in enabled(model, states[-1]) if a.label == step.name and describe(t) == want
        ]
        if not found:
            return None
        states.append(found[0])
    return states


def neighbourhood(model: Model, trace: Trace, title: str) -> StateGraph | None:
    """The states of ``trace``, their successors within one step and the transitions between
    them, the trace's own marked; None when the trace does not replay on ``model``."""
    path = replay_trace(model, trace)
    if path is None:
        return None
    x = ConcreteOps()
    describe = model.schema.describe_value
    ids: dict[State, int] = {}
    nodes: list[GraphNode] = []

    def node(s: State, parent: int | None, index: int | None) -> int:
        if s not in ids:
            ids[s] = len(nodes)
            terminal = bool(model.is_terminal(s, x))
            nodes.append(
                GraphNode(len(nodes), describe(s), parent, parent is None, terminal, index)
            )
        return ids[s]

    for k, s in enumerate(path):
        node(s, None if k == 0 else ids[path[k - 1]], k)
    on_trace = {(ids[path[k]], ids[path[k + 1]], step.name) for k, step in enumerate(trace.steps)}
    edges: list[GraphEdge] = []
    for s in dict.fromkeys(path):  # each state once (a lasso comes back to one)
        if model.is_terminal(s, x):
            continue
        src = ids[s]
        for a, t in enabled(model, s):
            dst = node(t, src, None)
            edges.append(
                GraphEdge(src, dst, a.rule.citation, a.label, (src, dst, a.label) in on_trace)
            )
    off = len(nodes) - len(set(path))
    caption = (
        f"the {len(set(path))} states of the trace ({len(trace.steps)} steps, in bold) and "
        f"{off} more reached from them in one step"
    )
    return StateGraph(title, tuple(nodes), tuple(edges), caption)


def turn_structure(ex: Exploration, field_name: str = "step") -> TurnStructure | None:
    """The explored graph projected on ``field_name``; None when the rule set has no such
    field."""
    schema = ex.model.schema
    if field_name not in schema.fields:
        return None
    index = schema.fields.index(field_name)
    domain = schema.domains[field_name]
    values = [ex.state(i)[index] for i in range(ex.states)]
    rules = [a.rule for a in ex.model.actions]
    within: Counter[Any] = Counter()
    moves: Counter[tuple[Any, Any, int]] = Counter()
    rule_index = {id(r): i for i, r in enumerate(ex.model.ruleset.rules)}
    for s, d, a in zip(ex.src, ex.dst, ex.act):
        if values[s] == values[d]:
            within[values[s]] += 1
        else:
            moves[(values[s], values[d], rule_index[id(rules[a])])] += 1
    ruleset = ex.model.ruleset.rules
    reached = sorted(set(values), key=int)
    return TurnStructure(
        field_name=field_name,
        steps=tuple(str(domain.describe(v)) for v in reached),
        moves=tuple(
            TurnMove(
                str(domain.describe(s)),
                str(domain.describe(d)),
                ruleset[r].citation,
                ruleset[r].name,
                n,
            )
            for (s, d, r), n in sorted(
                moves.items(), key=lambda kv: (int(kv[0][0]), int(kv[0][1]), kv[0][2])
            )
        ),
        within={str(domain.describe(v)): within[v] for v in reached},
        states=ex.states,
    )
