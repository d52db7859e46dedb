"""The two engines checked against each other on the same rule code.

DESIGN.md's first principle asks for a test that the engines agree: for every state the explicit
engine reaches in a small configuration, the set of successors it computes must equal the set of
models of the Z3 transition formula from that state. The models are enumerated with blocking
clauses on the next-state leaves only (two rule instances that lead to the same state give one
model), so the comparison is of successor *sets*, as the explicit engine's interning makes them.

Two more agreements are checked on the way:

* the bounds that cut a transition in each state (``x.within``) are the same in both engines;
* both engines count the same number of states reachable within ``k`` steps, for every ``k`` up
  to a depth (the symbolic count enumerates the last state of paths that may stutter).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import z3
from turnproof.checks.explicit import Exploration, Limits, explore
from turnproof.checks.symbolic import Encoding, concrete_moves
from turnproof.model.rules import Model
from turnproof.model.schema import State


@dataclass(frozen=True)
class Disagreement:
    """A state where the engines differ, with what only one of them says."""

    state: dict[str, Any]
    what: str  # "successors" or "bounds"
    only_explicit: tuple[Any, ...]
    only_symbolic: tuple[Any, ...]


@dataclass
class CrosscheckReport:
    """What the cross-check compared and where the engines differ."""

    bounds: dict[str, int]
    states_checked: int
    successors_checked: int
    explicit_complete: bool
    depth_counts: list[tuple[int, int, int]] = field(default_factory=list)  # k, explicit, Z3
    disagreements: list[Disagreement] = field(default_factory=list)

    @property
    def agree(self) -> bool:
        return not self.disagreements and all(e == s for _, e, s in self.depth_counts)


def iter_models(solver: z3.Solver, block: Sequence[Any]) -> Iterator[Any]:
    """Every model of the solver's assertions, distinct on the terms ``block``; the blocking
    clauses live in a scope that is closed when the iteration ends."""
    solver.push()
    try:
        while True:
            answer = solver.check()
            if answer == z3.unknown:
                raise RuntimeError(f"Z3 returned unknown: {solver.reason_unknown()}")
            if answer != z3.sat:
                return
            zm = solver.model()
            yield zm
            solver.add(z3.Or(*(v != zm.eval(v, model_completion=True) for v in block)))
    finally:
        solver.pop()


def symbolic_successors(enc: Encoding, solver: z3.Solver, state: State) -> set[State]:
    """The successors of ``state``: the models of the transition formula from it. ``solver``
    must hold ``enc.transition(0)``."""
    solver.push()
    try:
        solver.add(enc.is_state(0, state))
        return {enc.decode(zm, 1)[0] for zm in iter_models(solver, enc.vars(1))}
    finally:
        solver.pop()


def explicit_cuts(model: Model, state: State) -> set[str]:
    """The bounds that cut some rule instance in ``state``, computed concretely."""
    return {bound for _, _, bound in concrete_moves(model, state) if bound is not None}


def symbolic_cuts(enc: Encoding, solver: z3.Solver, state: State) -> set[str]:
    """The bounds that cut some rule instance in ``state``, by Z3; ``solver`` must not hold the
    transition formula (a state whose only rule is cut has no successor)."""
    out = set()
    for bound in enc.bound_names():
        solver.push()
        try:
            solver.add(enc.is_state(0, state), enc.cut(0, bound))
            if solver.check() == z3.sat:
                out.add(bound)
        finally:
            solver.pop()
    return out


def count_within(enc: Encoding, depth: int) -> int:
    """How many distinct states are reachable in at most ``depth`` steps, counted with Z3: the
    last states of paths of exactly ``depth`` steps, each of which may also stay put (open
    bounds take the model's values)."""
    solver = z3.Solver()
    solver.add(enc.init(0), enc.params_at(0))
    for k in range(depth):
        solver.add(z3.Or(enc.transition(k), enc.equal(k, k + 1)))
    leaves = enc.leaf_vars(depth)
    return sum(1 for _ in iter_models(solver, leaves))


def explicit_counts(ex: Exploration, depth: int) -> list[int | None]:
    """For each ``k`` up to ``depth``, the number of explored states at BFS depth at most k;
    ``None`` where a state limit stopped the search before every state of depth below k was
    expanded (the count would be short)."""
    depths = [0] * ex.states
    for i in range(ex.n_initial, ex.states):
        depths[i] = depths[ex.src[ex.parent[i]]] + 1
    out: list[int | None] = []
    for k in range(depth + 1):
        shallower = [i for i, d in enumerate(depths) if d < k]
        if shallower and max(shallower) >= ex.expanded:
            out.append(None)
        else:
            out.append(sum(1 for d in depths if d <= k))
    return out


def crosscheck(
    model: Model,
    *,
    depth: int = 4,
    max_states: int | None = 5_000,
    open_bounds: Sequence[str] = (),
) -> CrosscheckReport:
    """Compare the engines on ``model``: successor sets and cut bounds in every state the
    explicit engine reaches (at most ``max_states`` of them), and reachable-state counts for
    every depth up to ``depth``. With ``open_bounds``, the symbolic side is the encoding that
    leaves them open, with each set to the model's value: the open encoding must then be the
    very same transition relation."""
    ex = explore(model, limits=Limits(max_states=max_states))
    enc = Encoding(model, (), open_bounds)
    solver, bare = z3.Solver(), z3.Solver()
    solver.add(enc.transition(0))
    for s in (solver, bare):
        s.add(enc.params_at(0))
    report = CrosscheckReport(
        bounds=dict(model.bounds),
        states_checked=0,
        successors_checked=0,
        explicit_complete=ex.complete,
    )
    describe = model.schema.describe_value
    for i in range(ex.expanded):
        s = ex.state(i)
        expected = {ex.state(ex.dst[e]) for e in ex.out_edges(i)}
        got = symbolic_successors(enc, solver, s)
        report.states_checked += 1
        report.successors_checked += len(expected)
        if got != expected:
            report.disagreements.append(
                Disagreement(
                    describe(s),
                    "successors",
                    tuple(sorted((describe(t) for t in expected - got), key=repr)),
                    tuple(sorted((describe(t) for t in got - expected), key=repr)),
                )
            )
        cuts_e, cuts_s = explicit_cuts(model, s), symbolic_cuts(enc, bare, s)
        if cuts_e != cuts_s:
            report.disagreements.append(
                Disagreement(
                    describe(s),
                    "bounds",
                    tuple(sorted(cuts_e - cuts_s)),
                    tuple(sorted(cuts_s - cuts_e)),
                )
            )
    counts = explicit_counts(ex, depth)
    for k, count in enumerate(counts):
        if count is None:
            break  # the state limit cut the explicit search short of this depth
        report.depth_counts.append((k, count, count_within(enc, k)))
    return report
