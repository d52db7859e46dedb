"""Conformance suites for engine developers: a small set of shortest traces of a model that
together fire every rule that can fire and meet every pair of rules that can be enabled in the
same state, each as a fixture an engine's own tests can replay without turnproof.

The selection is a value (:class:`Suite`); ``reports/conformance.py`` writes it as plain JSON
(with a published schema) and as ITF. Everything is deterministic: the exploration is
breadth-first in rule order, candidates are ordered by length then by the order of their
targets, and ties keep that order.
"""

from __future__ import annotations

from itertools import combinations
from typing import Any

from turnproof.checks.explicit import Exploration, Limits, explore
from turnproof.checks.results import Fixture, Step, Suite
from turnproof.model.errors import TurnproofError
from turnproof.model.rules import Model

#: The number of suites' fixtures beyond which the selection stops (a model whose rules meet in
#: that many ways wants smaller bounds).
MAX_FIXTURES = 500


class ConformanceError(TurnproofError):
    """A model that cannot give a conformance suite (too large, or nothing fires)."""


def rule_key(model: Model, action_index: int) -> str:
    rule = model.actions[action_index].rule
    return f"{rule.citation} {rule.name}"


def _enabled(ex: Exploration, node: int) -> list[str]:
    """The rules with an instance enabled in ``node``, in rule-set order, once each."""
    keys = dict.fromkeys(rule_key(ex.model, ex.act[e]) for e in ex.out_edges(node))
    return sorted(keys, key=_order(ex.model))


def _legal(ex: Exploration, node: int) -> tuple[str, ...]:
    """The rule instances enabled in ``node`` (every node of a complete exploration is
    expanded), in the model's action order, once each."""
    return tuple(
        dict.fromkeys(
            ex.model.actions[i].label for i in sorted(ex.act[e] for e in ex.out_edges(node))
        )
    )


def legal_in(model: Model, state: Any) -> tuple[str, ...]:
    """The rule instances the interpreted rules enable in ``state``, in the model's action
    order: what :func:`_legal` reads off the explored graph."""
    from turnproof.model.ops import ConcreteOps

    x = ConcreteOps()
    return tuple(a.label for a in model.actions if _apply(a, state, x, model) is not None)


def _order(model: Model) -> Any:
    position = {f"{r.citation} {r.name}": i for i, r in enumerate(model.ruleset.rules)}
    return lambda key: position.get(key, len(position))


def build_suite(model: Model, *, max_states: int = 200_000) -> Suite:
    """The conformance suite of ``model`` (see the module docstring)."""
    ex = explore(model, limits=Limits(max_states=max_states))
    if not ex.complete:
        raise ConformanceError(
            f"the model has more than {max_states:,} states within its bounds ({ex.stop_reason});"
            " a conformance suite wants every reachable state: give smaller bounds"
        )
    order = _order(model)
    # The first (shallowest, in breadth-first order) edge of each rule, and the first node
    # where each pair of rules is enabled together.
    first_edge: dict[str, int] = {}
    for e in range(ex.transitions):
        first_edge.setdefault(rule_key(model, ex.act[e]), e)
    first_pair: dict[tuple[str, str], int] = {}
    for node in range(ex.expanded):
        for pair in combinations(_enabled(ex, node), 2):
            first_pair.setdefault(pair, node)
    candidates: list[tuple[list[int], str]] = []
    for key in sorted(first_edge, key=order):
        e = first_edge[key]
        candidates.append((ex.path_to(ex.src[e]) + [e], key))
    for pair in sorted(first_pair, key=lambda p: (order(p[0]), order(p[1]))):
        node = first_pair[pair]
        # Reach the state where both are enabled, then take the first of them there.
        edge = next(e for e in ex.out_edges(node) if rule_key(model, ex.act[e]) == pair[0])
        candidates.append((ex.path_to(node) + [edge], f"{pair[0]} + {pair[1]}"))
    candidates.sort(key=lambda c: len(c[0]))  # stable: ties keep the targets' order

    def covers(edges: list[int]) -> tuple[set[str], set[tuple[str, str]]]:
        rules = {rule_key(model, ex.act[e]) for e in edges}
        nodes = [ex.src[e] for e in edges] + ([ex.dst[edges[-1]]] if edges else [])
        pairs = {p for n in nodes if n < ex.expanded for p in combinations(_enabled(ex, n), 2)}
        return rules, pairs

    left_rules, left_pairs = set(first_edge), set(first_pair)
    chosen: list[tuple[list[int], list[str]]] = []
    for edges, target in candidates:
        if not left_rules and not left_pairs:
            break
        rules, pairs = covers(edges)
        if not (rules & left_rules or pairs & left_pairs):
            continue
        targets = sorted(rules & left_rules, key=order) + [
            f"{a} + {b}" for a, b in sorted(pairs & left_pairs, key=lambda p: (order(p[0]), p[1]))
        ]
        left_rules -= rules
        left_pairs -= pairs
        chosen.append((edges, targets or [target]))
        if len(chosen) > MAX_FIXTURES:
            raise ConformanceError(
                f"more than {MAX_FIXTURES} fixtures would be needed; give smaller bounds"
            )
    observable = tuple(model.ruleset.setup.core.observable) if model.ruleset.setup else ()
    fixtures = tuple(
        _fixture(ex, f"{i:03d}", edges, targets, observable)
        for i, (edges, targets) in enumerate(chosen, start=1)
    )
    fired = tuple(sorted(first_edge, key=order))
    every = [f"{r.citation} {r.name}" for r in model.ruleset.rules]
    return Suite(
        ruleset=model.describe(),
        bounds=dict(model.bounds),
        observable=observable,
        states=ex.states,
        fixtures=fixtures,
        rules=fired,
        pairs=tuple(sorted(first_pair, key=lambda p: (order(p[0]), order(p[1])))),
        never_fired=tuple(k for k in every if k not in first_edge),
    )


def observe(model: Model, state: Any, observable: tuple[str, ...]) -> dict[str, Any]:
    """The fields of ``state`` a fixture shows, described as traces describe them."""
    described = model.schema.describe_value(state)
    if not observable:
        return described
    return {k: described[k] for k in observable if k in described}


def _fixture(
    ex: Exploration, name: str, edges: list[int], targets: list[str], observable: tuple[str, ...]
) -> Fixture:
    from turnproof.checks.traces import step_record

    model = ex.model
    steps = []
    for e in edges:
        action = model.actions[ex.act[e]]
        record = step_record(model, action, ex.state(ex.src[e]), ex.state(ex.dst[e]))
        steps.append(
            Step(
                action=action.label,
                rule=action.rule.citation,
                summary=record.summary,
                decider=record.decider,
                decided_by=record.decided_by,
                state=observe(model, ex.state(ex.dst[e]), observable),
                legal=_legal(ex, ex.dst[e]),
            )
        )
    rules = tuple(dict.fromkeys(rule_key(model, ex.act[e]) for e in edges))
    nodes = [ex.src[e] for e in edges] + [ex.dst[edges[-1]]]
    pairs = tuple(
        dict.fromkeys(p for n in nodes if n < ex.expanded for p in combinations(_enabled(ex, n), 2))
    )
    start = model.schema.describe_value(ex.state(ex.src[edges[0]]))
    start_legal = _legal(ex, ex.src[edges[0]])
    return Fixture(name, start, tuple(steps), start_legal, rules, pairs, tuple(targets))


def replay(model: Model, fixture: Fixture) -> list[str]:
    """Replay ``fixture`` through the interpreted rules from its start state; the differences
    found, as sentences (empty: it replays exactly)."""
    from turnproof.model.ops import ConcreteOps

    starts = [s for s in model.initial_states() if model.schema.describe_value(s) == fixture.start]
    if not starts:
        return ["the start state is not an initial state of the model"]
    s = starts[0]
    x = ConcreteOps()
    by_label = {a.label: a for a in model.actions}
    problems = _legal_differs("the start", legal_in(model, s), fixture.start_legal)
    for i, step in enumerate(fixture.steps, start=1):
        action = by_label.get(step.action)
        if action is None:
            return [*problems, f"step {i}: no rule instance {step.action!r} in the model"]
        t = _apply(action, s, x, model)
        if t is None:
            return [*problems, f"step {i}: {step.action} is not enabled"]
        seen = observe(model, t, tuple(step.state))
        if seen != step.state:
            problems.append(f"step {i}: {step.action} gives {seen}, the fixture says {step.state}")
        problems += _legal_differs(f"step {i}", legal_in(model, t), step.legal)
        s = t
    return problems


def _legal_differs(where: str, seen: tuple[str, ...], recorded: tuple[str, ...]) -> list[str]:
    """A sentence when the rule instances legal in a state are not those the fixture records."""
    extra = [a for a in seen if a not in recorded]
    missing = [a for a in recorded if a not in seen]
    if not extra and not missing:
        return []
    said = []
    if extra:
        said.append(f"also allows {', '.join(extra)}")
    if missing:
        said.append(f"does not allow {', '.join(missing)}")
    return [f"{where}: the rules {' and '.join(said)}, unlike the fixture"]


def _apply(action: Any, s: Any, x: Any, model: Model) -> Any:
    """The successor of ``s`` by ``action`` on the interpreted path, or ``None`` when it is not
    enabled there (its guard fails, or a bound cuts it)."""
    from turnproof.model.ops import BoundReached, Disabled

    try:
        return action.apply(s, x, model.bounds)
    except (Disabled, BoundReached):
        return None
