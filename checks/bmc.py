"""Bounded model checking: the shortest path from an initial state to a target, found by Z3.

The path formula is unrolled one step at a time on an incremental solver (``init(0)``,
``transition(0)``, ..., ``transition(k - 1)``) and the target is asked of step ``k`` inside a
solver scope, for ``k = 0, 1, 2, ...``; the first satisfiable depth gives a shortest trace, which
is decoded into the same :class:`~turnproof.checks.results.Trace` the explicit engine returns
(rule citations, deciders, changed fields).

A target is a function of the depth ``k`` that returns a formula over steps ``0..k``: a state
predicate at ``k``, a transition predicate on the step ``k - 1 -> k``, or a *lasso* (step ``k``
equals an earlier step ``j`` and every state from ``j`` on lies in a region), which is how a
termination counterexample is found.

A result found here is a real path; finding none is *bounded* evidence only (no path of at most
``depth`` steps), never a proof.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import z3
from turnproof.checks.results import Trace
from turnproof.checks.symbolic import Encoding
from turnproof.model.rules import Action
from turnproof.model.schema import State

Target = Callable[[int], Any]


@dataclass
class BmcOutcome:
    """``found``: a shortest path (``depth`` steps, ``trace``); ``clear``: no path of at most
    ``depth`` steps; ``unknown``: Z3 or the time budget stopped at ``depth`` (``reason``)."""

    status: str  # "found" | "clear" | "unknown"
    depth: int
    trace: Trace | None = None
    reason: str = ""
    loop_start: int | None = None
    states: list[tuple[State, Any]] = field(default_factory=list)  # (state, monitors) per step
    actions: list[Action] = field(default_factory=list)


class Deadline:
    """A time budget, handed to Z3 as a per-call timeout."""

    def __init__(self, seconds: float) -> None:
        self.end = time.perf_counter() + seconds

    def left(self) -> float:
        return self.end - time.perf_counter()

    def expired(self) -> bool:
        return self.left() <= 0

    def arm(self, solver: Any) -> None:
        solver.set("timeout", max(1, int(self.left() * 1000)))


def finite_solver() -> Any:
    """An incremental solver for formulas whose variables all have finite ranges: Z3's
    finite-domain logic bit-blasts them to its SAT core (on the bench model, eight times faster
    than the default solver at depth 26). It gives up on a comparison of two variables, which
    is why :class:`Unrolling` substitutes values for open bounds."""
    return z3.SolverFor("QF_FD")


def general_solver_needed(solver: Any) -> bool:
    """The finite-domain solver gave up on the fragment (not on time): use the general one."""
    reason = solver.reason_unknown()
    return reason not in ("timeout", "canceled", "max. resource limit exceeded")


class Unrolling:
    """An incremental solver that holds the initial states and the first ``depth`` steps.

    A bounded search looks for traces of one instance of the model: open bounds
    (``enc.open_bounds``) are fixed to ``params`` (by default, the model's values) at every
    step, so that every variable keeps a finite range and the finite-domain solver applies; any
    trace found is a trace of the model with those values."""

    def __init__(self, enc: Encoding, params: Mapping[str, int] | None = None) -> None:
        self.enc = enc
        values = enc.bounds if params is None else params
        self.values = {name: values[name] for name in enc.open_bounds}
        self.solver = finite_solver()
        self.solver.add(*self._step_zero())
        self.depth = 0
        self.general = False

    def fix(self, formula: Any, k: int) -> Any:
        """``formula`` (over steps up to ``k``) with the open bounds replaced by their values:
        the finite-domain solver gives up on a comparison between two variables."""
        if not self.values:
            return formula
        pairs = [
            (v, z3.IntVal(self.values[name]))
            for j in range(k + 1)
            for name, v in zip(self.enc.open_bounds, self.enc.param_vars(j))
        ]
        return z3.substitute(formula, *pairs)

    def _step_zero(self) -> list[Any]:
        # The open bounds' variables keep their values in the model, for decoding.
        return [self.fix(self.enc.init(0), 0), self.enc.params_at(0, self.values)]

    def _step(self, k: int) -> list[Any]:
        return [
            self.fix(self.enc.transition(k), k + 1),
            self.enc.params_at(k + 1, self.values),
        ]

    def extend_to(self, k: int) -> None:
        while self.depth < k:
            self.solver.add(*self._step(self.depth))
            self.depth += 1

    def _use_general_solver(self) -> None:
        self.general = True
        self.solver = z3.Solver()
        self.solver.add(*self._step_zero())
        for k in range(self.depth):
            self.solver.add(*self._step(k))

    def check_at(self, k: int, target: Any, deadline: Deadline) -> tuple[Any, Any]:
        """Is ``target`` satisfiable on paths of exactly ``k`` steps? Returns Z3's answer and,
        when satisfiable, the model. The target lives in a scope closed on return."""
        self.extend_to(k)
        target = self.fix(target, k + 1)
        self.solver.push()
        try:
            self.solver.add(target)
            deadline.arm(self.solver)
            answer = self.solver.check()
            if answer == z3.unknown and not self.general and general_solver_needed(self.solver):
                self.solver.pop()
                self._use_general_solver()
                self.solver.push()
                self.solver.add(target)
                deadline.arm(self.solver)
                answer = self.solver.check()
            return answer, (self.solver.model() if answer == z3.sat else None)
        finally:
            self.solver.pop()


def find_path(
    enc: Encoding,
    target: Target,
    *,
    max_depth: int,
    deadline: Deadline,
    loop_start: Callable[[Any, int], int | None] | None = None,
    unrolling: Unrolling | None = None,
    start: int = 0,
) -> BmcOutcome:
    """The shortest path (from depth ``start`` up to ``max_depth`` steps) whose last step
    satisfies ``target(k)``. ``loop_start(model, k)`` names the loop of a lasso."""
    u = unrolling or Unrolling(enc)
    for k in range(start, max_depth + 1):
        if deadline.expired():
            return BmcOutcome("unknown", k - 1, reason=_time_reason(k - 1))
        answer, zm = u.check_at(k, target(k), deadline)
        if answer == z3.unknown:
            reason = u.solver.reason_unknown()
            if reason in ("timeout", "canceled"):
                reason = _time_reason(k - 1)
            return BmcOutcome("unknown", k - 1, reason=f"Z3 unknown at depth {k}: {reason}")
        if answer == z3.sat:
            return _found(enc, zm, k, loop_start)
    return BmcOutcome("clear", max_depth)


def _found(
    enc: Encoding, zm: Any, k: int, loop_start: Callable[[Any, int], int | None] | None
) -> BmcOutcome:
    """The path of ``k`` steps in the Z3 model ``zm``, decoded."""
    ls = loop_start(zm, k) if loop_start is not None else None
    return BmcOutcome(
        "found",
        k,
        enc.decode_trace(zm, k, ls),
        loop_start=ls,
        states=[enc.decode(zm, i) for i in range(k + 1)],
        actions=[enc.decode_action(zm, i) for i in range(k)],
    )


def follow(
    enc: Encoding,
    labels: Sequence[str],
    target: Target,
    *,
    deadline: Deadline | None = None,
    rlimit: int | None = None,
    loop_start: Callable[[Any, int], int | None] | None = None,
    decode: bool = True,
) -> BmcOutcome:
    """The path that fires the rule instances named ``labels`` (``Action.label``) in that
    order from an initial state, if the transition formula allows it and its last step
    satisfies ``target``: another engine's trace, checked step by step by Z3 (the actions are
    fixed, so even a long path is quick). ``clear`` when the formula refuses it. Without
    ``decode``, a path found has no trace: only whether it exists is asked.

    The work is bounded by ``deadline`` (wall time), by ``rlimit`` (Z3's resource count,
    which is the same on every machine and under any load, so the answer is deterministic),
    or by both."""
    if deadline is None and rlimit is None:
        raise ValueError("follow needs a deadline or a resource limit")
    index = {a.label: a.index for a in enc.model.actions}
    missing = [name for name in labels if name not in index]
    if missing:
        return BmcOutcome("clear", 0, reason=f"no rule instance {missing[0]!r} in this model")
    k = len(labels)
    solver = z3.Solver()
    solver.add(enc.init(0), enc.params_at(0))
    for i, name in enumerate(labels):
        a = index[name]
        solver.add(
            enc.act_var(i) == a,
            enc.step_formula(i, a, alone=True),
            enc.well_formed(i + 1),
            enc.params_at(i + 1),
        )
    solver.add(target(k))
    if deadline is not None:
        deadline.arm(solver)
    if rlimit is not None:
        solver.set("rlimit", rlimit)
    answer = solver.check()
    zm = solver.model() if answer == z3.sat else None
    if answer == z3.unknown:
        return BmcOutcome(
            "unknown", k, reason=f"Z3 unknown following a trace: {solver.reason_unknown()}"
        )
    if answer != z3.sat:
        return BmcOutcome("clear", k, reason="the transition formula does not allow that trace")
    if not decode:
        return BmcOutcome("found", k)
    return _found(enc, zm, k, loop_start)


def _time_reason(depth: int) -> str:
    return f"time budget spent; no path of at most {max(depth, 0)} steps found"


# -- targets --------------------------------------------------------------------------------------


def state_target(enc: Encoding, pred: Callable[..., Any]) -> Target:
    """Step ``k`` satisfies the state predicate ``pred(s, x, b, m)``."""
    return lambda k: enc.state_pred(pred, k)


def violation_target(enc: Encoding, pred: Callable[..., Any]) -> Target:
    """Step ``k`` violates the state predicate ``pred(s, x, b, m)``."""
    return lambda k: z3.Not(enc.state_pred(pred, k))


def step_violation_target(enc: Encoding, pred: Callable[..., Any]) -> Target:
    """The step ``k - 1 -> k`` violates the transition predicate ``pred(s, t, r, x, b, m)``."""
    return lambda k: z3.BoolVal(False) if k == 0 else z3.Not(enc.step_pred(pred, k - 1))


def lasso_target(enc: Encoding, region: Callable[..., Any]) -> Target:
    """Step ``k`` repeats an earlier step ``j`` and every state from ``j`` to ``k`` lies in the
    region: a cycle inside the region, reachable from an initial state."""

    def target(k: int) -> Any:
        inside = [enc.state_pred(region, i) for i in range(k + 1)]
        loops = [z3.And(enc.equal(j, k), *inside[j:]) for j in range(k)]
        return z3.Or(*loops) if loops else z3.BoolVal(False)

    return target


def lasso_start(enc: Encoding) -> Callable[[Any, int], int | None]:
    """Where the loop of a lasso of ``k`` steps begins in a model: the latest repeated step
    (which gives the shortest loop on this path)."""

    def start(zm: Any, k: int) -> int | None:
        last = [zm.eval(v, model_completion=True) for v in enc.vars(k)]
        for j in range(k - 1, -1, -1):
            here = [zm.eval(v, model_completion=True) for v in enc.vars(j)]
            if all(a.eq(b) for a, b in zip(here, last)):
                return j
        return None

    return start
