"""Unbounded proofs: CHC with Z3's Spacer, k-induction, and ranking functions for termination.

Every proof keeps its certificate, rendered with the model's field names (``stk.len``, not
``stk.len@0``):

* **CHC (Spacer).** Reachability is posed as constrained Horn clauses over one unknown predicate
  ``Inv`` (initial states are in ``Inv``; ``Inv`` is closed under the transition formula; no
  ``Inv`` state is bad). When Spacer solves them, its interpretation of ``Inv`` is an inductive
  invariant; it is checked again with a plain solver (initiation, consecution, safety) before
  the verdict says ``PROVED``.
* **k-induction** with simple-path constraints (all states of the path pairwise distinct), run
  together with bounded model checking: the base case is the bounded search, the step case asks
  whether ``k`` good steps on a simple path can be followed by a bad one. The certificate is the
  property itself and the ``k`` for which it is ``k``-inductive.
* **Ranking functions** (``terminates``): an integer linear function of the leaves that every
  transition inside the region strictly decreases; failing that, a lexicographic tuple of such
  functions (each non-increasing on the rule instances left, strictly decreasing on some).
  Coefficients are synthesised by counterexample-guided search and each component is checked
  symbolically for *every* well-formed state of the region, not only the explored ones; the
  domains are finite, so a decreasing function cannot decrease forever. Failing those, a
  lexicographic ranking over features of the state, checked on the region states that satisfy
  the region's invariant (:mod:`turnproof.checks.ranking`). When no ranking function is found,
  a reachable lasso (a loop inside the region) is searched for instead.

Honesty: ``PROVED`` only for these unbounded proofs; Z3's ``unknown`` (with its
``reason_unknown()``) and spent time budgets become ``UNKNOWN``; a clean bounded search is
reported as such, with the depth it reached.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any
from weakref import WeakKeyDictionary

import z3
from turnproof.checks import invariants
from turnproof.checks import ranking as ranking_module
from turnproof.checks.bmc import (
    BmcOutcome,
    Deadline,
    Target,
    Unrolling,
    find_path,
    finite_solver,
    follow,
    lasso_start,
    lasso_target,
    state_target,
    step_violation_target,
    violation_target,
)
from turnproof.checks.invariants import Invariant
from turnproof.checks.results import LoopExit, PropertyResult, Trace, Verdict
from turnproof.checks.symbolic import (
    BoundsOutcome,
    Encoding,
    concrete_moves,
    result,
    shared_encoding,
)
from turnproof.model.errors import BoundsError
from turnproof.model.ops import ConcreteOps
from turnproof.model.properties import Property
from turnproof.model.rules import Model
from turnproof.model.schema import State, fits_checker

# -- reachability questions -----------------------------------------------------------------------


@dataclass
class Query:
    """'Can a reachable state (or step) be bad?': ``target(k)`` is the bad condition at depth
    ``k``; ``steps`` is 0 for a state condition, 1 for a condition on the step into ``k``."""

    enc: Encoding
    target: Target
    steps: int
    #: Values for the open bounds (``enc.open_bounds``) that the question is asked for; None:
    #: for every value.
    fixed: Mapping[str, int] | None = None

    def init(self) -> Any:
        """The initial states of the question (at step 0)."""
        enc = self.enc
        if self.fixed is None:
            return enc.init(0)
        return z3.And(enc.init(0), enc.params_at(0, self.fixed))

    def at_origin(self) -> Any:
        """The bad condition over steps ``0..steps`` (for the Horn clauses and the checks)."""
        return self.target(self.steps)


@dataclass
class Answer:
    """``safe`` (with a certificate), ``unsafe`` (with the shortest trace, when the bounded
    search could reach it), or ``unknown`` (with the reason)."""

    status: str  # "safe" | "unsafe" | "unknown"
    certificate: dict[str, Any] | None = None
    trace: Trace | None = None
    reason: str = ""
    depth: int = 0  # the deepest bounded search that came back clean
    last: State | None = None  # the bad state at the end of the trace
    formula: Any = None  # a safe answer's inductive invariant, when it is one formula
    #: A proof by Spacer alone (not relative to the control invariant): the inductive
    #: invariant it rests on, lemmas included, as one formula, handed on as a :class:`Lemma`.
    inductive: Any = None


def unsafe(found: BmcOutcome) -> Answer:
    """The answer for a bounded search that reached the bad condition."""
    return Answer("unsafe", trace=found.trace, depth=found.depth, last=found.states[-1][0])


#: Z3's resource count (``rlimit``) that Spacer spends in a second on the machine its shares
#: were set on (z3 5.4.1: 3.4 to 3.5 M a second on the default check's slow properties, from
#: 33 M for step-ends-after-all-pass in 9.3 s to 127 M for attacking-creature-taps in 37 s).
SPACER_UNITS_PER_S = 3_400_000
#: How many times its share, by the clock, Spacer may take to spend its resource count on a
#: slower or loaded machine (and at least :data:`SPACER_MIN_CLOCK_S`: reading the clauses is
#: not counted); past that the clock stops it, as it stops every other method.
SPACER_SLACK = 2.0
SPACER_MIN_CLOCK_S = 10.0


def spacer(
    q: Query,
    deadline: Deadline,
    control: Invariant | None = None,
    params: Mapping[str, bool | int | float | str] | None = None,
    work_s: float | None = None,
    lemmas: Sequence[tuple[str, Any]] = (),
) -> Answer:
    """Solve the Horn clauses of ``q`` with Spacer; check and render the invariant.

    ``control``: a proved inductive invariant (the control invariant,
    :func:`control_invariant`) that every step and the bad condition are restricted to, since
    every reachable state satisfies it: Spacer then looks for an invariant relative to it, and
    the proof is their conjunction (checked whole, as ever). ``lemmas``: the same, for the
    inductive invariants that proved other properties of the encoding (:class:`Lemma`, as
    ``(property, formula)`` pairs from :func:`lemma_formulas`). ``params``: Z3 parameters for the
    Horn solver (``{"spacer.q3": False}``), on top of Z3's defaults, which the engine keeps
    (``benchmarks/spacer_params.py`` measures others).

    ``work_s``: the search's share of a property's budget, in seconds of work on the machine
    the shares were set on (to two significant figures, so that the clock's drift before the
    call changes nothing). It is handed to Z3 as a resource count (:data:`SPACER_UNITS_PER_S`),
    which is the same on every machine and under any load, so that whether Spacer proves a
    property within its share does not depend on the load; the clock stops it only at
    :data:`SPACER_SLACK` times its share, or at ``deadline``. Without it, ``deadline`` alone
    stops the search."""
    enc = q.enc
    v0, v1 = enc.vars(0), enc.vars(1)
    inv = z3.Function("Inv", *(v.sort() for v in v0), z3.BoolSort())
    act = enc.act_var(0)
    known = ([] if control is None else [control.formula(enc, 0)]) + [f for _, f in lemmas]
    clauses = [z3.ForAll(v0, z3.Implies(q.init(), inv(*v0)))]
    clauses.append(
        z3.ForAll(
            v0 + v1 + [act], z3.Implies(z3.And(inv(*v0), *known, enc.transition(0)), inv(*v1))
        )
    )
    body = [inv(*v0), *known, q.at_origin()]
    bound = list(v0)
    if q.steps:
        body.append(enc.transition(0))
        bound += v1 + [act]
    clauses.append(z3.ForAll(bound, z3.Implies(z3.And(*body), z3.BoolVal(False))))
    # Spacer's search depends on the order in which the terms it is given were made, not only
    # on the clauses: the same clauses made after other formulas (the transition renamed from
    # step 0, a fork server's warm-up) took it 30 s on one run and timed it out on another.
    # They are handed over as SMT-LIB text and parsed in a context of their own, the solver
    # made first (as Z3 does when it reads a file), so that the search depends on the clauses
    # alone: the same text, the same search, on every run and in every process.
    text = z3.Solver()
    text.add(*clauses)
    fresh = z3.Context()
    solver = z3.SolverFor("HORN", ctx=fresh)
    solver.set("engine", "spacer")
    clock = deadline
    if work_s is not None:
        work = float(f"{work_s:.2g}")
        solver.set("rlimit", max(1, int(work * SPACER_UNITS_PER_S)))
        clock = Deadline(min(deadline.left(), max(work * SPACER_SLACK, SPACER_MIN_CLOCK_S)))
    for name, value in (params or {}).items():
        solver.set(name, value)
    clock.arm(solver)
    solver.num_scopes()  # makes the solver now, before the clauses' terms
    solver.from_string(text.sexpr())
    answer = solver.check()
    if answer == z3.unsat:
        return Answer("unsafe", reason="Spacer: a bad state is reachable")
    if answer != z3.sat:
        why = solver.reason_unknown()
        if why == "max. resource limit exceeded" and work_s is not None:
            why = f"its share of the work spent (about {work:g} s of it, as Z3 counts it)"
        return Answer("unknown", reason=f"Spacer: {why}")
    zm = solver.model()
    found = [d for d in zm.decls() if d.name() == "Inv"]
    invariant = (
        interpretation(zm, found[0], [v.translate(fresh) for v in v0]).translate(z3.main_ctx())
        if found
        else z3.BoolVal(True)  # the solver left it unconstrained: any value will do
    )
    if lemmas:
        # What the proof rests on: Spacer's invariant and the lemmas, checked and kept (in the
        # proof cache) together, so that it stands without the properties they came from; one
        # flat conjunction, as it reads back from the cache's text.
        invariant = _conjunction([invariant, *(f for _, f in lemmas)])
    problem = check_spacer_invariant(q, invariant, control, deadline)
    if problem:
        return Answer("unknown", reason=f"Spacer's invariant did not check: {problem}")
    return spacer_answer(q, invariant, control, [name for name, _ in lemmas])


def _conjunction(formulas: Sequence[Any]) -> Any:
    """The conjunction of ``formulas``, with the conjuncts of each conjunction among them
    (recursively) in its place."""
    out: list[Any] = []
    todo = list(reversed(formulas))
    while todo:
        f = todo.pop()
        if z3.is_and(f):
            todo.extend(reversed(f.children()))
        else:
            out.append(f)
    return z3.And(*out)


def check_spacer_invariant(
    q: Query, invariant: Any, control: Invariant | None, deadline: Deadline
) -> str:
    """:func:`check_invariant` of Spacer's invariant, in conjunction with ``control`` (the
    control invariant it was found relative to) when given."""
    if control is not None:
        invariant = z3.And(invariant, control.formula(q.enc, 0))
    return check_invariant(q, invariant, deadline)


def spacer_answer(
    q: Query, invariant: Any, control: Invariant | None = None, sources: Sequence[str] = ()
) -> Answer:
    """The proof by an inductive invariant Spacer found (checked by the caller), alone or in
    conjunction with the control invariant ``control``. ``sources``: the properties whose
    invariants Spacer's search was given as lemmas (``invariant`` includes them)."""
    certificate: dict[str, Any] = {"method": "chc-spacer", "invariant": q.enc.render(invariant)}
    if control is not None:
        certificate["method"] = (
            "chc-spacer relative to the control invariant (least fixed point over the control "
            "fields): the proof is the conjunction of the two"
        )
        certificate["fields"] = list(control.fields)
        certificate["claims"] = len(control.conjuncts)
        certificate["rounds"] = control.rounds
        certificate["control invariant"] = [c.render(q.enc) for c in control.conjuncts]
    if sources:
        certificate["lemmas"] = (
            f"the search was given the invariants that proved {', '.join(sources)} (checked "
            "again here): the invariant above includes them"
        )
    return Answer(
        "safe",
        certificate={
            **certificate,
            "checked": ["initiation", "consecution", "safety"],
            "solver": f"z3 {z3.get_version_string()}",
        },
        formula=invariant,
        # Relative to the control invariant, Spacer's invariant is not inductive alone, and
        # with the control invariant's thousands of claims it would be no short lemma.
        inductive=invariant if control is None else None,
    )


def interpretation(zm: Any, func: Any, args: Sequence[Any]) -> Any:
    """The formula a model gives a predicate, applied to ``args`` (``Var(i)`` is argument i)."""
    interp = zm[func]
    if interp is None:
        return z3.BoolVal(True)  # the solver left it unconstrained: any value will do
    if z3.is_expr(interp):
        return z3.substitute_vars(interp, *args)
    out = z3.substitute_vars(interp.else_value(), *args)
    for i in range(interp.num_entries() - 1, -1, -1):
        entry = interp.entry(i)
        point = z3.And(*(a == entry.arg_value(j) for j, a in enumerate(args)))
        out = z3.If(point, entry.value(), out)
    return out


def check_invariant(q: Query, invariant: Any, deadline: Deadline, *, safety: bool = True) -> str:
    """Why ``invariant`` (over step 0) is not an inductive invariant excluding the bad
    condition (or, without ``safety``, not an inductive invariant); empty when it is."""
    enc = q.enc
    answer = solve(z3.And(q.init(), z3.Not(invariant)), deadline)
    if answer != z3.unsat:
        return f"initiation check answered {answer}"
    following = z3.substitute(invariant, *zip(enc.vars(0), enc.vars(1)))
    answer, _ = invariants.step_closed(enc, invariant, following, deadline)
    if answer != z3.unsat:
        return f"consecution check answered {answer}"
    if safety:
        bad = [invariant, q.at_origin(), *([enc.transition(0)] if q.steps else [])]
        answer = solve(z3.And(*bad), deadline)
        if answer != z3.unsat:
            return f"safety check answered {answer}"
    return ""


#: The share of a safety property's budget for :func:`by_domains` (it answers in well under a
#: second when it can answer at all).
DOMAINS_SHARE = 0.05


def by_domains(q: Query, deadline: Deadline) -> Answer | None:
    """The cheapest proof, when the property needs no fact about reachability: the fields'
    domains alone are an inductive invariant that excludes the bad condition (no step from any
    well-formed state breaks it, as for a rule's own effect). With open bounds it holds for every
    value, as the domains range over them. ``None`` when it does not check.

    The safety check is asked of a solver kept per encoding (:func:`domains_allow`), as every
    property of the encoding asks it: the transition formula is taken in once, not once a
    property (on the default Magic model, 0.5 s each time)."""
    if check_invariant(q, q.enc.well_formed(0), deadline, safety=False):
        return None
    if domains_allow(q, deadline) != z3.unsat:
        return None
    return Answer(
        "safe",
        certificate={
            "method": "inductive invariant: the fields' domains (no step from any well-formed "
            "state breaks it)",
            "invariant": "every field in its domain",
            "checked": ["initiation", "consecution", "safety"],
            "solver": f"z3 {z3.get_version_string()}",
        },
    )


_DOMAIN_SOLVERS: WeakKeyDictionary[Encoding, dict[int, Any]] = WeakKeyDictionary()


def domains_allow(q: Query, deadline: Deadline) -> Any:
    """Z3's answer to: is there a well-formed state (with the ``q.steps`` steps that follow
    it) in the bad condition of ``q``. Asked of a solver that holds the well-formedness and the
    steps of ``q.enc`` once for all the queries with as many steps, each bad condition under an
    assumption of its own, so that the answer for one is never an assertion for another. Z3
    keeps what it learnt of the transition formula from one question to the next."""
    enc = q.enc
    by_steps = _DOMAIN_SOLVERS.setdefault(enc, {})
    solver = by_steps.get(q.steps)
    if solver is None:
        solver = z3.Solver()
        solver.add(enc.well_formed(0), *(enc.transition(i) for i in range(q.steps)))
        by_steps[q.steps] = solver
    asked = z3.FreshBool("bad")
    solver.add(z3.Implies(asked, q.at_origin()))
    deadline.arm(solver)
    return solver.check(asked)


def solve(formula: Any, deadline: Deadline) -> Any:
    """Z3's answer for one formula on a fresh solver."""
    s = z3.Solver(ctx=formula.ctx)
    deadline.arm(s)
    s.add(formula)
    return s.check()


def k_induction(q: Query, *, max_depth: int, deadline: Deadline) -> Answer:
    """Bounded search and k-induction in lockstep: depth ``k`` of the base case, then the step
    case for ``k`` (``k`` good steps on a simple path, then a bad one)."""
    enc = q.enc
    base = Unrolling(enc)
    step = finite_solver()
    step.add(enc.well_formed(0))
    for k in range(max_depth + 1):
        found = find_path(enc, q.target, max_depth=k, deadline=deadline, unrolling=base, start=k)
        if found.status == "found":
            return unsafe(found)
        if found.status == "unknown":
            return Answer("unknown", reason=found.reason, depth=max(k - 1, 0))
        # Step case: a simple path of k + 1 states, good up to k - 1, bad at k.
        if k > 0:
            step.add(enc.transition(k - 1))
            step.add(z3.Not(q.target(k - 1)))
            for j in range(k):
                step.add(z3.Not(enc.equal(j, k)))
        if k < q.steps:
            # A condition on the step into state k says nothing before a step exists: at k = 0
            # a step query's target is False by construction, so "unsat" there proves nothing.
            continue
        step.push()
        try:
            step.add(q.target(k))
            deadline.arm(step)
            answer = step.check()
        finally:
            step.pop()
        if answer == z3.unsat:
            return Answer(
                "safe",
                certificate={
                    "method": "k-induction",
                    "k": k,
                    "simple_path": True,
                    "invariant": render_query(q),
                },
                depth=k,
            )
        if answer == z3.unknown:
            return Answer(
                "unknown", reason=f"k-induction step {k}: {step.reason_unknown()}", depth=k
            )
    return Answer(
        "unknown",
        reason=f"no violation within {max_depth} steps; not k-inductive for k <= {max_depth}",
        depth=max_depth,
    )


def render_query(q: Query) -> str:
    """The property that was proved, as the negation of its bad condition (a step condition
    shows the next state's fields primed)."""
    good = z3.simplify(z3.Not(q.at_origin()))
    if q.steps:
        enc = q.enc
        primed = [
            (v, z3.Bool(p + "'") if d.is_bool else z3.Int(p + "'"))
            for v, p, d in zip(enc.vars(1), enc.paths, enc.domains)
        ]
        good = z3.substitute(good, *primed, (enc.act_var(0), z3.Int("rule")))
    return q.enc.render(good)


def decide(q: Query, *, max_depth: int, deadline: Deadline, first: Answer | None = None) -> Answer:
    """Spacer first (half the budget, unless its answer ``first`` is given); when it is unsure,
    k-induction with bounded search. A bad state that Spacer finds reachable is then reached by
    the shortest bounded search.

    With open bounds, only Spacer proves (its Horn clauses range over every value); the bounded
    search fixes them (:class:`Unrolling`), so it can neither serve as k-induction's base case
    nor clear other values; it looks for a trace at the model's values and, when Spacer knows
    a bad state is reachable, at each value of the open bounds from the lowest up."""
    if q.enc.open_bounds:
        return decide_open(q, max_depth=max_depth, deadline=deadline, first=first)
    if first is None:
        first = spacer(q, Deadline(max(deadline.left() / 2, 0.001)))
    if first.status == "safe":
        return first
    if first.status == "unsafe":
        # Spacer knows a bad state is reachable: the bounded search may go as deep as it takes.
        found = find_path(q.enc, q.target, max_depth=10_000, deadline=deadline)
        if found.status == "found":
            return unsafe(found)
        return Answer(
            "unknown",
            reason=f"Spacer found the bad state reachable, but {found.reason}",
            depth=found.depth,
        )
    second = k_induction(q, max_depth=max_depth, deadline=deadline)
    if second.status == "unknown":
        second.reason = f"{first.reason}; {second.reason}"
    return second


def decide_open(
    q: Query, *, max_depth: int, deadline: Deadline, first: Answer | None = None
) -> Answer:
    """:func:`decide` for an encoding with open bounds."""
    enc = q.enc
    if first is None:
        first = spacer(q, Deadline(max(deadline.left() / 2, 0.001)))
    if first.status == "safe":
        return first
    tries: list[dict[str, int]] = [{name: enc.bounds[name] for name in enc.open_bounds}]
    if first.status == "unsafe":
        top = max(sp.hi - sp.lo for sp in enc.open_specs)
        for step in range(top + 1):  # every open bound at its lowest value + step
            values = {sp.name: min(sp.lo + step, sp.hi) for sp in enc.open_specs}
            if values not in tries:
                tries.append(values)
    depth = 10_000 if first.status == "unsafe" else max_depth
    last = BmcOutcome("clear", 0)
    for values in tries:
        if deadline.expired():
            break
        if first.status == "unsafe" and len(tries) > 1:
            # Search only where a bad state is reachable: Spacer, for these values alone.
            here = spacer(Query(enc, q.target, q.steps, values), deadline)
            if here.status == "safe":
                continue
        last = find_path(
            enc, q.target, max_depth=depth, deadline=deadline, unrolling=Unrolling(enc, values)
        )
        if last.status == "found":
            return unsafe(last)
        if first.status != "unsafe":
            break
    shown = ", ".join(f"{k}={v}" for k, v in tries[0].items())
    bounded = (
        f"no violation within {last.depth} steps with {shown}"
        if last.status == "clear"
        else last.reason
    )
    if first.status == "unsafe":
        return Answer(
            "unknown",
            reason=f"Spacer found a bad state reachable for some value of the open bounds, "
            f"but no trace was found in time ({bounded})",
            depth=last.depth,
        )
    return Answer("unknown", reason=f"{first.reason}; {bounded}", depth=last.depth)


#: Shares of a safety property's budget: Spacer first, then (when Spacer is unsure) the control
#: invariant, then Spacer relative to it; k-induction and the bounded searches get what is
#: left. (A share of 0.1 left step-ends-after-all-pass UNKNOWN in one run of the default check,
#: before Spacer relative to the control invariant: Spacer proves it in about 14 s alone, more
#: with both engines on 2 cores, and the invariant alone does not.) Spacer's shares are work,
#: not time (:func:`spacer`): which method proves a property does not depend on the load.
SPACER_SHARE = 0.25
INVARIANT_SHARE = 0.6
#: The share of the budget, as work, for Spacer relative to the control invariant, when neither
#: alone proved the property; by the clock it may take at most :data:`RELATIVE_SPACER_CLOCK`
#: of what is left (the rest goes to k-induction and the bounded searches).
RELATIVE_SPACER_SHARE = 0.4
RELATIVE_SPACER_CLOCK = 0.75


@dataclass(frozen=True)
class Stage:
    """Where a safety property's check stands when the engine stages it (see
    :func:`turnproof.checks.symbolic.check_properties`).

    * Stage one (``probe``): the cheap methods, then Spacer with :data:`PROBE_WORK_S` of work.
      What they do not decide raises :class:`Unsettled`.
    * Stage two (``probe`` false): the rest, without the methods stage one already ran, and
      with the control invariant over ``shared`` first, when it is given: the fields of every
      property of the same encoding that stage one left unsettled. One least fixed point over
      them serves them all, in place of a Spacer search each.
    * A whole check (``whole``): a property that is not staged, checked after the others of
      its encoding in a chain (:func:`turnproof.checks.symbolic.chains`), with the
      ``lemmas`` their proofs give."""

    probe: bool = False
    shared: tuple[str, ...] = ()
    #: The invariants that proved the properties checked before this one on its encoding
    #: (see :class:`Lemma`), for its Spacer searches.
    lemmas: tuple[Lemma, ...] = ()
    #: A property that is not staged, checked whole (``probe`` false), after the others of its
    #: encoding for their ``lemmas``: no stage one ran before it.
    whole: bool = False


@dataclass(frozen=True)
class Lemma:
    """The inductive invariant that proved ``source`` (a property checked before, on the same
    encoding: its monitors and the open bounds ``open_bounds``), as SMT-LIB text over the
    step-0 variables. Every reachable state satisfies it, so the Spacer search of another
    property of that encoding may be restricted to the states that do; the proof found is
    checked whole with it (:func:`spacer`), so a lemma that does not hold proves nothing.

    On the default Magic model, Spacer proved resolves-after-all-pass in 1 s given
    step-ends-after-all-pass's invariant, against 31 s without it (one run each)."""

    source: str
    open_bounds: tuple[str, ...]
    text: str


def lemma_of(prop: Property, enc: Encoding, answer: Answer) -> Lemma | None:
    """The lemma ``answer``, a proof of ``prop`` on ``enc``, gives the properties after it,
    when it is a proof by Spacer alone (an inductive invariant of a few clauses; the control
    invariant, alone or under Spacer's, has thousands)."""
    from turnproof.checks.proofcache import invariant_text

    if answer.status != "safe" or answer.inductive is None:
        return None
    return Lemma(prop.name, tuple(enc.open_bounds), invariant_text(answer.inductive))


def lemma_formulas(enc: Encoding, lemmas: Sequence[Lemma]) -> list[tuple[str, Any]]:
    """The ``(source, formula)`` pairs of the ``lemmas`` that speak of ``enc``: proved with the
    same bounds left open, and over its variables (a lemma that does not parse over them is
    passed over)."""
    from turnproof.checks.proofcache import parse_invariant

    out = []
    for lemma in lemmas:
        if lemma.open_bounds == tuple(enc.open_bounds):
            formula = parse_invariant(lemma.text, enc)
            if formula is not None:
                out.append((lemma.source, formula))
    return out


class Unsettled(Exception):
    """Stage one did not decide the property: ``fields`` are the control fields its query
    reads (:func:`query_fields`)."""

    def __init__(self, fields: Sequence[str]) -> None:
        super().__init__("stage one left it unsettled")
        self.fields = tuple(fields)


#: Stage one's Spacer search, as work (:func:`spacer`'s ``work_s``). On the default Magic
#: check's staged properties, Spacer proves six with 1 s of work and the seventh
#: (eot-effects-end-before-next-turn) with 3 s (not 2), and proves none of the other five with
#: 5 s: each second of the probe beyond what the quick ones need is spent five times in vain.
PROBE_WORK_S = 3.5


def decide_then_invariant(
    model: Model,
    q: Query,
    *,
    max_depth: int,
    deadline: Deadline,
    invariant_s: float | None = None,
    memo: str | None = None,
    stage: Stage | None = None,
) -> Answer:
    """Spacer; when it is unsure, :func:`by_invariant`, then Spacer relative to the control
    invariant; then the rest of :func:`decide` (k-induction, bounded searches). Any PROVED is a
    proof; an unsure answer gives every reason. ``invariant_s``: the seconds the invariant may
    take, beyond ``deadline`` if need be (default: its share of ``deadline``). ``memo``: the
    proof cache's entry for this query (``checks/proofcache.py``): the method that proved it
    last time is tried first, and re-checked, and a new proof by Spacer, the control invariant
    or both is recorded there. ``stage``: the part of the check to run (:class:`Stage`)."""
    from turnproof.checks import proofcache

    total = deadline.left()
    # Stage two: stage one ran what comes first.
    later = stage is not None and not stage.probe and not stage.whole
    lemmas = lemma_formulas(q.enc, stage.lemmas) if stage is not None else []
    entry = proofcache.load(memo) if memo else None
    stronger = (proofcache.SPACER, proofcache.CONTROL, proofcache.SPACER_CONTROL)
    if not later:
        small = by_reachable_set(q, deadline)
        if small is not None and small.status != "unknown":
            return small
        if entry is None or entry["method"] not in stronger:
            # The fields' domains are tried first, unless a stronger method proved it last
            # time (the domains did not: nothing in the entry's key has changed since).
            local = by_domains(q, Deadline(min(total * DOMAINS_SHARE, deadline.left())))
            if local is not None:
                return local
    budget = min(total * INVARIANT_SHARE, deadline.left()) if invariant_s is None else invariant_s
    # The fields a proof cache entry's control invariant was over (its own, or those shared).
    kept = proofcache.control_fields(entry, q.enc) if entry is not None else None
    control = None  # the control invariant, once inferred (the methods after Spacer share it)
    if entry is not None and entry["method"] in (proofcache.SPACER, proofcache.SPACER_CONTROL):
        invariant = proofcache.spacer_invariant(entry, q.enc)
        if entry["method"] == proofcache.SPACER_CONTROL:
            control = control_invariant(model, q, Deadline(budget), kept)
        if invariant is not None and (control is None or control.ok):
            if not check_spacer_invariant(q, invariant, control, deadline):
                return spacer_answer(q, invariant, control)
    second: Answer | None = None  # the control invariant's answer, once asked
    if entry is not None and entry["method"] == proofcache.CONTROL:
        window = Deadline(budget)
        control = control_invariant(model, q, window, kept)
        second = by_invariant(model, q, window, control, proofcache.control_steps(entry))
        if second.status == "safe":
            kept_entry = _control_entry(control, second)
            if memo and kept_entry != entry:  # an entry from before the steps were kept
                proofcache.store(memo, kept_entry)
            return second
    if later and stage is not None and stage.shared and second is None:
        # The invariant shared by the properties stage one left unsettled: its fields include
        # this property's own, so it is at least as strong as the control invariant over them
        # (every claim over these is a claim over those), which is not inferred as well.
        window = Deadline(min(budget, deadline.left()))
        control = control_invariant(model, q, window, stage.shared)
        second = by_invariant(model, q, window, control)
        if second.status == "safe":
            if memo:
                proofcache.store(memo, _control_entry(control, second))
            return second
    if stage is not None and stage.probe:
        first = spacer(q, deadline, work_s=PROBE_WORK_S)
        if first.status == "unknown":
            raise Unsettled(query_fields(q))
    else:
        first = spacer(q, deadline, work_s=max(total * SPACER_SHARE, 0.001), lemmas=lemmas)
    if first.status == "safe":
        if memo and first.formula is not None:
            proofcache.store(memo, proofcache.spacer_entry(first.formula))
        return first
    reasons = ""
    if first.status == "unknown":
        if second is None:
            # Spacer may have run past its share by the clock (a loaded machine): the
            # invariant's share then ends with the property's budget, not after it.
            window = Deadline(budget if invariant_s is not None else min(budget, deadline.left()))
            if control is None:
                control = control_invariant(model, q, window)
            second = by_invariant(model, q, window, control)
        if second.status == "safe":
            if memo and control is not None:
                proofcache.store(memo, _control_entry(control, second))
            return second
        reasons = f"; {second.reason}"
        if control is not None and control.ok and deadline.left() > 0:
            # Spacer again, on the steps between states of the control invariant only: what the
            # invariant's claims say, Spacer need not find (on the default Magic model, Spacer
            # proved only-an-untapped-creature-attacks in 2 s this way, against 34 to 45 s
            # alone, and resolves-after-all-pass, which it left UNKNOWN alone under load, in
            # 53 s).
            clock = Deadline(deadline.left() * RELATIVE_SPACER_CLOCK)
            third = spacer(q, clock, control, work_s=total * RELATIVE_SPACER_SHARE, lemmas=lemmas)
            if third.status == "safe":
                if memo and third.formula is not None:
                    entry = proofcache.spacer_entry(third.formula, proofcache.SPACER_CONTROL)
                    proofcache.store(memo, {**entry, "fields": list(control.fields)})
                return third
            reasons += f"; relative to the control invariant, {third.reason}"
    rest = decide(q, max_depth=max_depth, deadline=deadline, first=first)
    if rest.status == "unknown":
        rest.reason += reasons
    return rest


def _control_entry(control: Invariant, answer: Answer) -> dict[str, Any]:
    """The proof cache's entry for ``answer``, a proof by the control invariant ``control``."""
    from turnproof.checks import proofcache

    steps = (answer.certificate or {}).get("steps")
    return proofcache.control_entry(control.fields, steps if isinstance(steps, int) else None)


#: A model whose reachable states (with the property's monitors) are at most this many, with no
#: bound left open, is proved with its reachable set as the invariant.
REACHABLE_SET_STATES = 5_000


def small_exploration(enc: Encoding, *, paths: bool = False) -> Any:
    """The concrete exploration of a small model (with the encoding's monitors), at the
    model's values of the bounds, or ``None``; made once per encoding. With open bounds it
    serves only for ``paths`` (a counterexample or witness at the model's values is one of
    the model), never for proofs (the reachable states of one value say nothing of others)."""
    from turnproof.checks.explicit import Limits, explore

    if enc.open_bounds and not paths:
        return None
    cached = getattr(enc, "_small", False)
    if cached is not False:
        return cached
    ex = explore(enc.model, enc.monitors, Limits(max_states=REACHABLE_SET_STATES + 1))
    small = ex if ex.complete and ex.states <= REACHABLE_SET_STATES else None
    enc._small = small  # type: ignore[attr-defined]
    return small


def path_labels(ex: Any, i: int) -> tuple[str, ...]:
    """The rule instances of the exploration ``ex``'s shortest path to node ``i``, as
    :func:`~turnproof.checks.bmc.follow` takes them."""
    return tuple(ex.model.actions[ex.act[e]].label for e in ex.path_to(i))


def concrete_path(enc: Encoding, pred: Callable[..., Any]) -> tuple[str, ...] | None:
    """In a small model, the rule instances of the shortest concrete path to a state that
    satisfies ``pred``, to be checked against the transition formula with
    :func:`~turnproof.checks.bmc.follow`; ``None`` when there is none (or the model is not
    small)."""
    from turnproof.checks.explicit import find_state

    ex = small_exploration(enc, paths=True)
    if ex is None:
        return None
    hit = find_state(ex, pred)
    if hit is None:
        return None
    return path_labels(ex, hit)


#: The most states the explicit search for an antecedent (:func:`searched_path`) may store.
SEARCH_STATES = 4_000_000
#: The least time that search gets, even when the property's budget is spent.
SEARCH_SECONDS = 30.0


def searched_path(
    enc: Encoding, pred: Callable[..., Any], deadline: Deadline
) -> tuple[str, ...] | None:
    """The rule instances of a shortest concrete path, at the model's values of the bounds, to
    a state that satisfies ``pred``: found by a breadth-first search on the explicit engine
    that stops at the first such state (at most :data:`SEARCH_STATES` states and
    :data:`SEARCH_SECONDS` or what is left of ``deadline``, whichever is longer), to be checked
    against the transition formula with :func:`~turnproof.checks.bmc.follow`; ``None`` when the
    search ends without one."""
    from turnproof.checks.explicit import Limits, explore

    model = enc.model
    x, b, mons = ConcreteOps(), model.bounds, enc.monitors

    def hit(node: Any) -> bool:
        s, m = (node[0], node[1]) if mons else (node, None)
        return bool(pred(s, x, b, m))

    limits = Limits(max_states=SEARCH_STATES, max_seconds=max(deadline.left(), SEARCH_SECONDS))
    ex = explore(model, mons, limits, stop=hit)
    if ex.hit is None:
        return None
    return path_labels(ex, ex.hit)


#: What a trace says when it is a concrete path checked by Z3 step by step.
FOLLOWED = (
    "the trace is the shortest concrete path of this small model, checked step by step against "
    "the symbolic transition formula"
)


def small_counterexample(prop: Property, q: Query, deadline: Deadline) -> Answer | None:
    """In a small model: the shortest concrete path to a state (or step) that breaks the
    ``always`` (or ``step``) property, checked step by step against the transition formula;
    ``None`` when the model is not small or nothing breaks it."""
    from turnproof.checks.explicit import find_edge, find_state

    assert prop.pred is not None
    ex = small_exploration(q.enc, paths=True)
    if ex is None:
        return None
    pred = prop.pred
    if prop.kind == "always":
        bad = find_state(ex, lambda s, x, b, m: not pred(s, x, b, m))
        edges = None if bad is None else ex.path_to(bad)
    else:
        e = find_edge(ex, lambda s, t, r, x, b, m: not pred(s, t, r, x, b, m))
        edges = None if e is None else ex.path_to(ex.src[e]) + [e]
    if edges is None:
        return None
    labels = tuple(ex.model.actions[ex.act[e]].label for e in edges)
    found = _follow_guide(q.enc, labels, q.target, deadline)
    if found is None:
        return None
    out = unsafe(found)
    out.reason = FOLLOWED
    return out


def small_lasso(enc: Encoding, prop: Property) -> tuple[str, ...] | None:
    """In a small model: the rule instances of a concrete lasso inside the region (a stem, then
    a loop back to the stem's last state), found on the concrete state graph."""
    import time

    from turnproof.checks.explicit import check_terminates as explicit_terminates

    ex = small_exploration(enc, paths=True)
    if ex is None:
        return None
    r = explicit_terminates(ex, prop, time.perf_counter())
    if r.trace is None or r.trace.loop_start is None:
        return None
    return tuple(step.name for step in r.trace.steps)


def by_reachable_set(q: Query, deadline: Deadline) -> Answer | None:
    """For a small model with every bound fixed: the set of its reachable states, found by a
    concrete exploration, as the invariant, which Z3 then checks on the symbolic transition
    formula (it contains the initial states, is closed under every rule instance, and has no
    bad state). A concrete exploration that missed a successor makes the closure check fail,
    so the proof does not rest on it. ``None`` when the model is too large or has open bounds
    (then the reachable set of one value says nothing of the others)."""
    enc = q.enc
    ex = small_exploration(enc)
    if ex is None:
        return None
    cubes = [enc.is_state(0, ex.state(i), ex.monitor_values(i)) for i in range(ex.states)]
    invariant = z3.Or(*cubes)
    problem = check_invariant(q, invariant, deadline)
    if problem.startswith("safety"):
        return None  # a bad state is reachable: the searches find its trace
    if problem:
        return Answer("unknown", reason=f"the reachable states are not closed: {problem}")
    return Answer(
        "safe",
        certificate={
            "method": "the reachable states as an inductive invariant",
            "states": ex.states,
            "checked": ["initiation", "consecution", "safety"],
            "solver": f"z3 {z3.get_version_string()}",
        },
    )


#: How many steps after a state of the control invariant :func:`by_invariant_steps` looks.
INVARIANT_STEPS = 4


def by_invariant_steps(
    q: Query, inv: Invariant, deadline: Deadline, least: int = 1
) -> Answer | str:
    """k-induction strengthened by the control invariant ``inv``, for the smallest ``k`` up
    to :data:`INVARIANT_STEPS` that works: no path of ``k`` steps from a state of ``inv`` ends in
    the bad condition, and none from an initial state does within fewer steps. Every reachable
    state satisfies ``inv`` (it is inductive), so every bad condition at depth ``k`` or more
    would end such a path: the property holds. It proves what the invariant's pairs of fields
    cannot say but the rules' last few steps do ("``attacking`` is reset before the attackers
    are declared" takes the step into ``ATTACKERS``). Otherwise, why not: how far it looked.

    ``least``: the smallest ``k`` tried (the one a cached proof used); every base below it is
    still checked. The invariant's initiation and consecution are checked once per process
    (``inv.verified`` says whether they were, by this check or by its inference here)."""
    enc = q.enc
    if not inv.verified:
        problem = check_invariant(q, inv.formula(enc, 0), deadline, safety=False)
        if problem:
            return f"the invariant did not check: {problem}"
        # The memoised object: later proofs in this process rest on this. Only a check from
        # every initial state counts (a question at fixed bound values starts from fewer).
        inv.verified = q.fixed is None
    for k in range(1, INVARIANT_STEPS + 1):
        # The base: no bad condition at depth steps + k - 1 from an initial state (the smaller
        # depths were checked for the smaller k).
        n = q.steps + k - 1
        base = [q.init(), *(enc.transition(i) for i in range(n)), q.target(n)]
        answer = solve(z3.And(*base), deadline)
        if answer != z3.unsat:
            return (
                f"no proof within {k - 1} steps after it; the base at depth {n} answered {answer}"
            )
        if k < least:
            continue
        d = n + 1
        window = [inv.formula(enc, 0), *(enc.transition(i) for i in range(d)), q.target(d)]
        answer = solve(z3.And(*window), deadline)
        if answer != z3.unsat and answer != z3.sat:
            return f"no proof within {k - 1} steps after it; {k} steps answered {answer}"
        if answer == z3.unsat:
            return Answer(
                "safe",
                certificate={
                    "method": f"{k}-induction strengthened by the control invariant (least "
                    "fixed point over the control fields)",
                    "fields": list(inv.fields),
                    "steps": k,
                    "claims": len(inv.conjuncts),
                    "rounds": inv.rounds,
                    "invariant": [c.render(enc) for c in inv.conjuncts],
                    "checked": ["initiation", "consecution", f"base ({k} steps)",
                                f"induction ({k} steps)"],
                    "solver": f"z3 {z3.get_version_string()}",
                },
            )  # fmt: skip
    return f"not even {INVARIANT_STEPS} steps after a state that satisfies it"


def query_fields(q: Query) -> list[str]:
    """The control fields of ``q``: the domain's, and those its bad condition reads
    (:func:`turnproof.checks.invariants.control_fields`)."""
    read = [q.at_origin()] + ([q.target(1)] if q.steps else [])
    return invariants.control_fields(q.enc, *read)


def control_invariant(
    model: Model, q: Query, deadline: Deadline, fields: Sequence[str] | None = None
) -> Invariant:
    """The least inductive invariant of the control-field domain over the fields ``q`` reads
    (:func:`query_fields`), or over ``fields`` when given, in the encoding's order
    (:func:`turnproof.checks.invariants.infer`: memoised, so the methods that use it share
    it); its ``ok`` is false when there is none in the budget.

    One read back from the invariant cache is not checked on its own: every proof that uses it
    checks it whole, on fresh solvers (:func:`by_invariant` and :func:`by_invariant_steps` its
    initiation and consecution, :func:`spacer` its conjunction with Spacer's invariant), so a
    damaged entry proves nothing."""
    enc = q.enc
    wanted = set(query_fields(q) if fields is None else fields)
    chosen = [p for p, _ in enc.tracked() if p in wanted]
    return invariants.infer(model, enc, deadline, chosen, verify=False)


def by_invariant(
    model: Model,
    q: Query,
    deadline: Deadline,
    inv: Invariant | None = None,
    steps: int | None = None,
) -> Answer:
    """The property from the least inductive invariant of the control-field domain
    (:mod:`turnproof.checks.invariants`): ``Inv => not bad``, or else ``not bad`` inductive
    relative to ``Inv``. The certificate is the whole of ``Inv`` (the proof rests on all of it),
    re-checked on fresh solvers together with the property; ``used`` names the claims an unsat
    core picked out, which are not inductive on their own. ``inv``: :func:`control_invariant`
    of ``q``, when the caller already inferred it. ``steps``: the induction that proved it
    last time (the proof cache's entry), tried first."""
    enc = q.enc
    inv = control_invariant(model, q, deadline) if inv is None else inv
    if not inv.ok:
        return Answer("unknown", reason=inv.reason)
    if steps is not None:
        stepped = by_invariant_steps(q, inv, deadline, least=steps)
        if isinstance(stepped, Answer):
            return stepped
    try:
        needed = invariants.support(enc, inv.conjuncts, q, deadline)
    except invariants.Stopped as exc:
        return Answer("unknown", reason=f"control invariant: {exc}")
    if needed is None:
        stepped = by_invariant_steps(q, inv, deadline)
        if isinstance(stepped, Answer):
            return stepped
        return Answer(
            "unknown",
            reason=f"the strongest invariant over {', '.join(inv.fields)} does not imply it "
            f"({stepped})",
        )
    used, relative = needed
    good = z3.Not(q.at_origin())
    formula = inv.formula(enc, 0)
    problem = check_invariant(q, z3.And(formula, good) if relative else formula, deadline)
    if problem:
        return Answer("unknown", reason=f"control invariant certificate did not check: {problem}")
    watched = invariants.monitor_fields(enc, inv.fields)
    method = "control invariant (least fixed point over the control fields"
    method += " and the property's monitors)" if watched else ")"
    certificate: dict[str, Any] = {"method": method, "fields": list(inv.fields)}
    if watched:
        certificate["monitors"] = (
            f"{', '.join(watched)}: the property's history variables, updated by the engine on "
            "every transition (the claims tie them to the state's fields)"
        )
    return Answer(
        "safe",
        certificate={
            **certificate,
            "claims": len(inv.conjuncts),
            "rounds": inv.rounds,
            "used": [c.render(enc) for c in used] + (["the property itself"] if relative else []),
            "invariant": [c.render(enc) for c in inv.conjuncts],
            "checked": ["initiation", "consecution", "safety"],
            "solver": f"z3 {z3.get_version_string()}",
        },
    )


# -- properties -----------------------------------------------------------------------------------


def scope(enc: Encoding, searched: bool = False) -> str:
    """The bound values a symbolic answer covers: every value of each open bound (from its
    lowest) for a proof, and the model's value of every other bound. A bounded search
    (``searched``) fixes the open bounds to the model's values too (:class:`Unrolling`)."""
    if searched or not enc.open_specs:
        return "with " + ", ".join(f"{k}={v}" for k, v in enc.bounds.items())
    fixed = ", ".join(f"{k}={v}" for k, v in enc.bounds.items() if k not in enc.open_bounds)
    opened = " and ".join(f"every {sp.name} >= {sp.lo}" for sp in enc.open_specs)
    return f"for {opened}, with {fixed}"


def for_all(enc: Encoding) -> dict[str, str]:
    """The open bounds and the values a proof covers, for the result."""
    return {sp.name: f">= {sp.lo}" for sp in enc.open_specs}


def holds_for(enc: Encoding, answer: Answer) -> str:
    if answer.status == "safe":
        return f"every reachable state, {scope(enc)} (unbounded in depth)"
    return f"paths of at most {answer.depth} steps, {scope(enc, searched=True)} (bounded)"


def check_property(
    model: Model,
    prop: Property,
    *,
    timeout_s: float,
    max_depth: int,
    enc: Encoding | None = None,
    antecedent_reached: bool = False,
    open_bounds: Sequence[str] = (),
    guide: Sequence[str] = (),
    stage: Stage | None = None,
) -> PropertyResult:
    """One property on the symbolic engine (the caller times it). ``antecedent_reached``: another
    engine already found a reachable state that satisfies the property's antecedent, so it is
    not searched for again. The property's own ``for_all`` bounds and ``open_bounds`` are left
    open (see :class:`~turnproof.checks.symbolic.Encoding`). ``guide``: the rule instances of a
    trace another engine found, checked against the transition formula when this engine's own
    search finds no trace. ``stage``: the part of a safety property's check to run
    (:class:`Stage`; stage one raises :class:`Unsettled` when it does not decide it)."""
    given = enc is not None
    enc = enc or property_encoding(model, prop, open_bounds)
    fixed = None
    if not given and not open_bounds and enc.open_bounds and prop.kind in ("always", "step"):
        if _small_model(model):
            candidate = Encoding(model, prop.monitors, ())
            if small_exploration(candidate) is not None:
                fixed = candidate
    first_s, invariant_s = timeout_s, None
    if fixed is not None:
        # Spacer and the bounded searches get a short share before the fallback; the control
        # invariant keeps its usual share of the whole budget: it is the proof that usually
        # covers every value here, and once inferred it is cached for the other properties.
        first_s, invariant_s = min(timeout_s, OPEN_BOUNDS_SHARE_S), timeout_s * INVARIANT_SHARE
    started = time.monotonic()
    whole = Deadline(timeout_s) if fixed is not None else None
    r = _check(
        model,
        prop,
        enc,
        first_s,
        max_depth,
        antecedent_reached,
        tuple(guide),
        invariant_s,
        whole,
        stage,
    )
    if r.verdict is Verdict.PROVED:
        r.for_all = for_all(enc)
    elif r.verdict is Verdict.UNKNOWN and fixed is not None:
        # A small model: what could not be proved for every value of the property's own open
        # bounds (none the caller asked for) is decided at the model's own values, with its
        # reachable set, and the certificate says so.
        left = max(timeout_s - (time.monotonic() - started), 1.0)
        at_values = _check(model, prop, fixed, left, max_depth, antecedent_reached, tuple(guide))
        if at_values.verdict is not Verdict.UNKNOWN:
            if at_values.certificate is not None:
                at_values.certificate["open bounds"] = (
                    f"not proved for every value of {', '.join(enc.open_bounds)} "
                    f"({r.reason}); proved at the model's values"
                )
            return at_values
    return r


#: When a small model can fall back on its reachable set, the seconds given first to a proof
#: for every value of the open bounds.
OPEN_BOUNDS_SHARE_S = 15.0


def _small_model(model: Model) -> bool:
    """Whether the model (without any property's monitors) has at most
    :data:`REACHABLE_SET_STATES` states: asked once per model, so that a large model pays one
    short exploration for all its properties."""
    cached = getattr(model, "_small_model", None)
    if cached is None:
        from turnproof.checks.explicit import Limits, explore

        ex = explore(model, limits=Limits(max_states=REACHABLE_SET_STATES + 1))
        cached = ex.complete and ex.states <= REACHABLE_SET_STATES
        model._small_model = cached  # type: ignore[attr-defined]
    return bool(cached)


def property_encoding(model: Model, prop: Property, open_bounds: Sequence[str] = ()) -> Encoding:
    """The encoding a property is checked on: with its monitors, its own ``for_all`` bounds
    and ``open_bounds`` left open."""
    return shared_encoding(model, prop.monitors, tuple(prop.for_all) + tuple(open_bounds))


def property_query(enc: Encoding, prop: Property) -> Query:
    """The safety query of a property of one of the kinds
    :data:`~turnproof.checks.symbolic.SAFETY_KINDS`."""
    if prop.kind in ("always", "step"):
        return safety_query(enc, prop)
    from turnproof.checks.consistency import consistency_query

    return consistency_query(enc, prop.kind)


def shared_invariant(
    model: Model,
    prop: Property,
    fields: Sequence[str],
    deadline: Deadline,
    open_bounds: Sequence[str] = (),
) -> Invariant:
    """The control invariant over ``fields`` on ``prop``'s encoding, inferred once for every
    property of that encoding that stage one left unsettled (:class:`Stage`), and left in the
    invariant cache for them."""
    enc = property_encoding(model, prop, open_bounds)
    return control_invariant(model, property_query(enc, prop), deadline, fields)


def safety_query(enc: Encoding, prop: Property) -> Query:
    """The query of an ``always`` or ``step`` property on ``enc``: its bad condition, at one
    state or on one step."""
    assert prop.kind in ("always", "step") and prop.pred is not None
    target = (violation_target if prop.kind == "always" else step_violation_target)(enc, prop.pred)
    return Query(enc, target, 0 if prop.kind == "always" else 1)


def _check(
    model: Model,
    prop: Property,
    enc: Encoding,
    timeout_s: float,
    max_depth: int,
    antecedent_reached: bool,
    guide: tuple[str, ...] = (),
    invariant_s: float | None = None,
    whole: Deadline | None = None,
    stage: Stage | None = None,
) -> PropertyResult:
    """One property on ``enc`` in ``timeout_s`` (and ``invariant_s`` for the control invariant,
    when given). ``whole``: the property's whole budget, of which ``timeout_s`` is a share; the
    vacuity check of a proof may use the rest of it. ``stage``: see :func:`check_property`."""
    deadline = Deadline(timeout_s)
    vacuity = prop.antecedent if not antecedent_reached else None
    if prop.kind in ("always", "step"):
        q = safety_query(enc, prop)
        answer = small_counterexample(prop, q, deadline) or decide_then_invariant(
            model,
            q,
            max_depth=max_depth,
            deadline=deadline,
            invariant_s=invariant_s,
            memo=proof_memo(prop, enc),
            stage=stage,
        )
        answer = _guided(answer, q, guide, deadline)
        return _safety_result(
            model, prop, answer, _then(answer, deadline, whole), enc, max_depth, vacuity
        )
    if prop.kind == "reachable":
        assert prop.pred is not None
        return _reach_result(model, prop, enc, deadline, max_depth, guide)
    if prop.kind == "terminates":
        return check_terminates(model, prop, enc, deadline, max_depth, guide)
    q = property_query(enc, prop)
    answer = decide_then_invariant(
        model,
        q,
        max_depth=max_depth,
        deadline=deadline,
        invariant_s=invariant_s,
        memo=proof_memo(prop, enc),
        stage=stage,
    )
    answer = _guided(answer, q, guide, deadline)
    return _safety_result(
        model, prop, answer, _then(answer, deadline, whole), enc, max_depth, vacuity
    )


def proof_memo(prop: Property, enc: Encoding) -> str | None:
    """The proof cache's entry for ``prop`` on ``enc``, unless ``TURNPROOF_PROOF_CACHE=0``."""
    from turnproof.checks import proofcache

    return proofcache.key(prop, enc)


def _then(answer: Answer, deadline: Deadline, whole: Deadline | None) -> Deadline:
    """The budget of what follows ``answer``: a proof's vacuity check may use the rest of the
    property's ``whole`` budget (there is no fallback left to leave it to)."""
    if answer.status == "safe" and whole is not None and whole.left() > deadline.left():
        return whole
    return deadline


#: The reason of a witness that is the explicit engine's path, followed first.
EXPLICIT_PATH = (
    "the trace is the explicit engine's breadth-first path, checked step by step against the "
    "symbolic transition formula"
)
#: What a trace says when this engine found it by checking another engine's trace.
GUIDED = (
    "the trace is the explicit engine's, checked step by step against the symbolic transition "
    "formula (this engine's own search found none within its depth)"
)


def _follow_guide(
    enc: Encoding,
    guide: tuple[str, ...],
    target: Target,
    deadline: Deadline,
    loop_start: Callable[[Any, int], int | None] | None = None,
    *,
    decode: bool = True,
) -> BmcOutcome | None:
    """Another engine's trace ``guide``, if the transition formula allows it and it ends in
    ``target`` (it gets at least a second, even when the budget is spent); without
    ``decode``, whether it does, with no trace."""
    if not guide:
        return None
    found = follow(
        enc,
        guide,
        target,
        deadline=Deadline(max(deadline.left(), 1.0)),
        loop_start=loop_start,
        decode=decode,
    )
    return found if found.status == "found" else None


#: Whether the property being checked asked for another engine's trace (its ``guide``): set
#: by :func:`_follow_given`, cleared by :func:`~turnproof.checks.symbolic.property_task`. A
#: result that never asked is the same whatever the guide.
guide_asked = False


def _follow_given(
    enc: Encoding,
    guide: tuple[str, ...],
    target: Target,
    deadline: Deadline,
    loop_start: Callable[[Any, int], int | None] | None = None,
) -> BmcOutcome | None:
    """:func:`_follow_guide` on the trace another engine gave, noting that it was asked for."""
    global guide_asked
    guide_asked = True
    return _follow_guide(enc, guide, target, deadline, loop_start)


def _guided(answer: Answer, q: Query, guide: tuple[str, ...], deadline: Deadline) -> Answer:
    """``answer``, or, when it has no counterexample and another engine's trace ``guide`` is
    allowed by the transition formula and ends in the bad condition, that trace."""
    if answer.status == "safe" or answer.trace is not None:
        return answer
    found = _follow_given(q.enc, guide, q.target, deadline)
    if found is None:
        return answer
    out = unsafe(found)
    out.reason = GUIDED
    return out


def _safety_result(
    model: Model,
    prop: Property,
    answer: Answer,
    deadline: Deadline,
    enc: Encoding,
    max_depth: int,
    antecedent: Callable[..., Any] | None,
) -> PropertyResult:
    if answer.status == "unsafe":
        if answer.trace is None:
            return result(model, prop, Verdict.UNKNOWN, reason=answer.reason)
        why = answer.reason if answer.reason in (GUIDED, FOLLOWED) else ""
        return result(model, prop, Verdict.VIOLATED, trace=answer.trace, holds_for="", reason=why)
    if answer.status == "unknown":
        return result(
            model,
            prop,
            Verdict.UNKNOWN,
            reason=answer.reason,
            holds_for=holds_for(enc, answer),
        )
    r = result(
        model,
        prop,
        Verdict.PROVED,
        certificate=answer.certificate,
        holds_for=holds_for(enc, answer),
    )
    r.lemma = lemma_of(prop, enc, answer)
    if antecedent is not None:
        from turnproof.checks import proofcache

        memo = proofcache.key(prop, enc, "antecedent")
        _mark_vacuity(r, enc, antecedent, deadline, max_depth, memo)
    return r


def _mark_vacuity(
    r: PropertyResult,
    enc: Encoding,
    antecedent: Callable[..., Any],
    deadline: Deadline,
    max_depth: int,
    memo: str | None = None,
) -> None:
    """The antecedent of an implication must be reachable, or the property holds vacuously.
    ``memo``: the proof cache's entry for the path that reached it last time, followed again
    first."""
    from turnproof.checks import proofcache

    target = state_target(enc, antecedent)
    entry = proofcache.load(memo) if memo else None
    if entry is not None and entry["method"] == proofcache.WITNESS:
        if _follow_guide(enc, proofcache.witness_labels(entry), target, deadline, decode=False):
            return
    # A small model's shortest path, else the explicit engine's first path to the antecedent:
    # either counts only once Z3 has checked it step by step against the transition formula.
    path = concrete_path(enc, antecedent)
    if path is None and small_exploration(enc, paths=True) is None:
        path = searched_path(enc, antecedent, deadline)
    if path is not None and _follow_guide(enc, path, target, deadline, decode=False):
        if memo:
            proofcache.store(memo, proofcache.path_entry(path))
        return
    found = find_path(enc, target, max_depth=max_depth, deadline=deadline)
    if found.status == "found":
        if memo and found.trace is not None:
            proofcache.store(memo, proofcache.witness_entry(found.trace))
        return
    q = Query(enc, target, 0)
    unreachable = by_reachable_set(q, deadline) or spacer(q, deadline)
    if unreachable.status == "safe":
        r.vacuous = True
        r.reason = "vacuous: no reachable state satisfies the property's antecedent (proved)"
    else:
        # Proved, but perhaps only because nothing ever meets the antecedent: not a pass.
        r.vacuity_undecided = True
        r.reason = (
            f"vacuity undecided: the antecedent was not reached within {found.depth} steps and "
            f"not proved unreachable ({unreachable.reason or found.reason})"
        )


def _reach_result(
    model: Model,
    prop: Property,
    enc: Encoding,
    deadline: Deadline,
    max_depth: int,
    guide: tuple[str, ...] = (),
) -> PropertyResult:
    from turnproof.checks import proofcache

    assert prop.pred is not None
    target = state_target(enc, prop.pred)
    path = concrete_path(enc, prop.pred)  # a small model's shortest path, checked by Z3
    followed = _follow_guide(enc, path or (), target, deadline)
    if followed is not None:
        return result(model, prop, Verdict.WITNESSED, trace=followed.trace, reason=FOLLOWED)
    # The explicit engine's trace (its breadth-first search's path: a shortest one at the
    # model's bounds, as the bounded search below would find), checked step by step: about a
    # second, where the search took 5 to 12 s on the default Magic model. The search runs when
    # the formula refuses it, or when there is none (this engine alone).
    followed = _follow_given(enc, guide, target, deadline)
    if followed is not None:
        return result(model, prop, Verdict.WITNESSED, trace=followed.trace, reason=EXPLICIT_PATH)
    memo = proof_memo(prop, enc)
    entry = proofcache.load(memo) if memo else None
    if entry is not None and entry["method"] == proofcache.WITNESS:
        # The shortest path the bounded search found last time, followed again through the
        # transition formula to a state in the target: the same witness, without the search.
        kept = _follow_guide(enc, proofcache.witness_labels(entry), target, deadline)
        if kept is not None:
            return result(model, prop, Verdict.WITNESSED, trace=kept.trace)
    found = find_path(enc, target, max_depth=max_depth, deadline=deadline)
    if found.status == "found":
        if memo and found.trace is not None:
            proofcache.store(memo, proofcache.witness_entry(found.trace))
        return result(model, prop, Verdict.WITNESSED, trace=found.trace)
    small = by_reachable_set(Query(enc, target, 0), deadline)
    if small is not None and small.status == "safe":
        answer = small
    else:
        answer = decide(Query(enc, target, 0), max_depth=max_depth, deadline=deadline)
    if answer.status == "unsafe" and answer.trace is not None:
        return result(model, prop, Verdict.WITNESSED, trace=answer.trace)
    if answer.status == "safe":
        return result(
            model,
            prop,
            Verdict.PROVED,
            certificate=answer.certificate,
            reason="proved unreachable: no reachable state satisfies it",
            holds_for=holds_for(enc, answer),
        )
    return result(model, prop, Verdict.UNKNOWN, reason=answer.reason or found.reason)


# -- termination ----------------------------------------------------------------------------------

COEFFICIENT_RANGE = 4  # ranking coefficients are searched among -4..4
#: Shares of a termination property's budget: the plain ranking search over the leaves (when
#: the reached region transitions leave it a chance: :func:`ranking.no_ranking_over_leaves`), then
#: (when it finds none) the search over features under the region's invariant; the lasso search
#: gets what is left.
PLAIN_RANKING_SHARE = 0.05
#: ... and at most this many seconds: where it finds a ranking it does so at once (0.06 s on
#: the bench's untap-terminates, at both of the bench's sizes measured), while on the shipped
#: rule sets it finds none in 30 s (Magic's two termination properties, Riftbound's two), and
#: end-the-turn-terminates spent its whole 15 s share there before the ranking under the
#: region's invariant proved it.
PLAIN_RANKING_MAX_S = 3.0
RANKING_SHARE = 0.8
MAX_ROUNDS = 300  # counterexamples per component before giving up


@dataclass
class Ranking:
    """A lexicographic ranking function: ``components[i]`` with the rule instances it strictly
    decreases (every earlier component does not increase on them)."""

    components: list[tuple[list[int], list[int]]] = field(default_factory=list)  # coeffs, actions


class Ranker:
    """Synthesises a ranking function for the transitions inside a region."""

    def __init__(self, enc: Encoding, region: Callable[..., Any], deadline: Deadline) -> None:
        # A Z3 context of its own, as for the ranking under the region's invariant
        # (``ranking._Checker``): the same counterexamples, and so the same ranking, whatever
        # the process checked before.
        self.enc = enc
        self.deadline = deadline
        self.ctx = z3.Context()
        self.x0 = [_numeric(v).translate(self.ctx) for v in enc.vars(0)]
        self.x1 = [_numeric(v).translate(self.ctx) for v in enc.vars(1)]
        self.inside = z3.And(
            enc.state_pred(region, 0),
            enc.state_pred(region, 1),
            enc.well_formed(0),
            enc.well_formed(1),
        ).translate(self.ctx)
        self.unknown = ""
        self._moves: dict[int, Any] = {}

    def moves(self, index: int) -> Any:
        """Rule instance ``index`` takes a region state to a region state (translated once:
        :meth:`single_leaf` asks for it twice per instance for every leaf it tries)."""
        got = self._moves.get(index)
        if got is None:
            step = self.enc.step_formula(0, index).translate(self.ctx)
            got = self._moves[index] = z3.And(self.inside, step)
        return got

    def firing(self) -> list[int]:
        """The rule instances that can fire inside the region."""
        out = []
        for a in self.enc.model.actions:
            answer = solve(self.moves(a.index), self.deadline)
            if answer == z3.unknown:
                self.unknown = "Z3 unknown while listing the region's rules"
                return []
            if answer == z3.sat:
                out.append(a.index)
        return out

    def delta(self, coeffs: Sequence[Any]) -> Any:
        """How much a step lowers the sum of ``coeffs`` times the features. A coefficient that
        is the number 0 adds no term (a candidate of one leaf would otherwise make hundreds)."""
        terms = [
            c * (a - b)
            for c, a, b in zip(coeffs, self.x0, self.x1)
            if not (isinstance(c, int) and c == 0)
        ]
        return z3.Sum(*terms) if terms else z3.IntVal(0, self.ctx)

    def component(self, actions: list[int], all_strict: bool) -> tuple[list[int], list[int]] | None:
        """Coefficients that no action increases and some (or, with ``all_strict``, all)
        strictly decrease, checked for every region state; ``None`` if there are none."""
        n = len(self.x0)
        cs = [z3.Int(f"c{i}", self.ctx) for i in range(n)]
        strict = {a: z3.Bool(f"strict{a}", self.ctx) for a in actions}
        synth = z3.Optimize(ctx=self.ctx)
        for c in cs:
            synth.add(c >= -COEFFICIENT_RANGE, c <= COEFFICIENT_RANGE)
        synth.add(z3.And(*strict.values()) if all_strict else z3.Or(*strict.values()))
        for a in actions:
            synth.add_soft(strict[a])
        for c in cs:  # prefer small coefficients: a readable certificate
            synth.add_soft(c == 0, weight=1)
        for _ in range(MAX_ROUNDS):
            if self.deadline.expired():
                self.unknown = "time budget spent while synthesising a ranking function"
                return None
            deadline_ms = max(1, int(self.deadline.left() * 1000))
            synth.set("timeout", deadline_ms)
            answer = synth.check()
            if answer == z3.unsat:
                return None
            if answer != z3.sat:
                self.unknown = f"ranking synthesis: {synth.reason_unknown()}"
                return None
            zm = synth.model()
            coeffs = [zm.eval(c, model_completion=True).as_long() for c in cs]
            chosen = [a for a in actions if z3.is_true(zm.eval(strict[a], model_completion=True))]
            counterexample = self._refute(coeffs, actions, set(chosen))
            if counterexample is None:
                return coeffs, chosen
            a, diffs = counterexample
            gain = z3.Sum(*(c * d for c, d in zip(cs, diffs)))
            synth.add(gain >= z3.If(strict[a], 1, 0))
        self.unknown = f"no ranking function after {MAX_ROUNDS} counterexamples"
        return None

    def _refute(
        self, coeffs: list[int], actions: list[int], strict: set[int]
    ) -> tuple[int, list[int]] | None:
        """A transition that breaks the candidate: rule instance and leaf differences."""
        for a in actions:
            need = 1 if a in strict else 0
            s = z3.Solver(ctx=self.ctx)
            self.deadline.arm(s)
            s.add(self.moves(a), self.delta(coeffs) < need)
            answer = s.check()
            if answer == z3.sat:
                zm = s.model()
                diffs = [
                    zm.eval(u - w, model_completion=True).as_long()
                    for u, w in zip(self.x0, self.x1)
                ]
                return a, diffs
            if answer != z3.unsat:
                self.unknown = f"checking a ranking candidate: {s.reason_unknown()}"
                return a, []  # never accepted: the candidate is not checked
        return None

    def single_leaf(
        self, actions: list[int], all_strict: bool
    ) -> tuple[list[int], list[int]] | None:
        """The first ``leaf`` or ``-leaf``, in schema order, that works as a component: tried
        before the general search so that simple certificates are found the same way on
        every run."""
        n = len(self.x0)
        for i, sign in ((i, sign) for i in range(n) for sign in (1, -1)):
            coeffs = [sign if j == i else 0 for j in range(n)]
            strict = []
            for a in actions:
                if solve(z3.And(self.moves(a), self.delta(coeffs) < 0), self.deadline) != z3.unsat:
                    break  # increases (or undecided): not a component
                if solve(z3.And(self.moves(a), self.delta(coeffs) < 1), self.deadline) == z3.unsat:
                    strict.append(a)
                elif all_strict:
                    break
            else:
                if strict:
                    return coeffs, strict
        return None

    def synthesise(self) -> Ranking | None:
        """A linear ranking function if there is one, else a lexicographic one."""
        remaining = self.firing()
        if self.unknown:
            return None
        if not remaining:
            return Ranking()
        linear = self.single_leaf(remaining, all_strict=True) or self.component(
            remaining, all_strict=True
        )
        if linear is not None:
            return Ranking([linear])
        if self.unknown:
            return None
        ranking = Ranking()
        while remaining:
            comp = self.single_leaf(remaining, all_strict=False) or self.component(
                remaining, all_strict=False
            )
            if comp is None:
                return None
            ranking.components.append(comp)
            remaining = [a for a in remaining if a not in comp[1]]
        return ranking

    def render(self, coeffs: Sequence[int]) -> str:
        terms = []
        for c, p, d in zip(coeffs, self.enc.paths, self.enc.domains):
            if c == 0:
                continue
            name = f"[{p}]" if d.is_bool else p
            terms.append(f"{c}*{name}" if c not in (1, -1) else ("" if c == 1 else "-") + name)
        text = " + ".join(terms).replace("+ -", "- ")
        return text or "0"


def _numeric(v: Any) -> Any:
    return z3.If(v, z3.IntVal(1), z3.IntVal(0)) if z3.is_bool(v) else v


def check_terminates(
    model: Model,
    prop: Property,
    enc: Encoding,
    deadline: Deadline,
    max_depth: int,
    guide: tuple[str, ...] = (),
) -> PropertyResult:
    """A ranking function for the region's transitions (``PROVED``), else a reachable lasso
    inside the region (``VIOLATED``), else ``UNKNOWN``."""
    from turnproof.checks import proofcache

    assert prop.pred is not None
    # In a small model a concrete loop, if there is one, settles it at once (no ranking exists).
    labels = small_lasso(enc, prop)
    if labels is not None:
        target = lasso_target(enc, prop.pred)
        followed = _follow_guide(enc, labels, target, deadline, lasso_start(enc))
        if followed is not None:
            return _lasso_result(model, prop, enc, followed, FOLLOWED)
    total = deadline.left()
    memo = proof_memo(prop, enc)
    if proofcache.holds(memo, proofcache.RANKING):
        # Last time only the ranking under the region's invariant proved it: that one first
        # (checked again before it is used), not the plain search that failed.
        kept = ranking_module.prove(
            enc, prop, Deadline(min(total * RANKING_SHARE, deadline.left())), memo=memo
        )
        if isinstance(kept, ranking_module.Proof):
            return _ranked_under_invariant(model, prop, enc, kept)
    plain = min(total * PLAIN_RANKING_SHARE, PLAIN_RANKING_MAX_S)
    ranker = Ranker(enc, prop.pred, Deadline(max(plain, 0.001)))
    # The plain search gets its share only when the reached transitions leave it a chance.
    sampled = ranking_module.reached(enc, prop)
    hopeless = ranking_module.no_ranking_over_leaves(enc, prop, sampled, ranker.deadline)
    ranking = None if hopeless else ranker.synthesise()
    if ranking is not None:
        actions = model.actions
        certificate = {
            "method": "ranking-function",
            "lexicographic": len(ranking.components) > 1,
            "components": [
                {
                    "function": ranker.render(coeffs),
                    "decreases": [f"{actions[a].rule.citation} {actions[a].label}" for a in strict],
                }
                for coeffs, strict in ranking.components
            ],
            "checked": "every well-formed region state (not only reachable ones)",
        }
        return result(
            model,
            prop,
            Verdict.PROVED,
            certificate=certificate,
            holds_for=f"every well-formed state, {scope(enc)} (unbounded in depth)",
        )
    why = (
        hopeless
        or ranker.unknown
        or "no linear or lexicographic linear ranking function over the leaves"
    )
    second = ranking_module.prove(
        enc,
        prop,
        Deadline(min(total * RANKING_SHARE, deadline.left())),
        memo=memo,
        sampled=sampled,
    )
    if isinstance(second, ranking_module.Proof):
        return _ranked_under_invariant(model, prop, enc, second)
    why = f"{why}; under the region's invariant: {second}"
    found = find_path(
        enc,
        lasso_target(enc, prop.pred),
        max_depth=max_depth,
        deadline=deadline,
        loop_start=lasso_start(enc),
    )
    if found.status != "found":
        followed = _follow_given(
            enc, guide, lasso_target(enc, prop.pred), deadline, lasso_start(enc)
        )
        if followed is not None:
            return _lasso_result(model, prop, enc, followed, GUIDED)
    if found.status == "found" and found.trace is not None and found.loop_start is not None:
        return _lasso_result(model, prop, enc, found, "")
    return result(
        model,
        prop,
        Verdict.UNKNOWN,
        reason=f"{why}; {found.reason or f'no reachable loop inside the region within {found.depth} steps'}",
        holds_for=f"lassos of at most {found.depth} steps, {scope(enc, searched=True)} (bounded)",
    )


def _lasso_result(
    model: Model, prop: Property, enc: Encoding, found: BmcOutcome, reason: str
) -> PropertyResult:
    """VIOLATED with the lasso ``found``, and who could break its loop."""
    assert prop.pred is not None and found.trace is not None and found.loop_start is not None
    trace = found.trace
    computed = loop_exits(enc, found, prop.pred, trace.bounds)
    trace = Trace(
        trace.initial,
        trace.steps,
        found.loop_start,
        None if computed is None else tuple(computed[0]),
        trace.final,
        trace.bounds,
        forced=None if computed is None else computed[1],
    )
    return result(model, prop, Verdict.VIOLATED, trace=trace, reason=reason)


def _ranked_under_invariant(
    model: Model, prop: Property, enc: Encoding, proof: ranking_module.Proof
) -> PropertyResult:
    actions = model.actions
    inv = proof.invariant
    certificate = {
        "method": "ranking function under the region's invariant",
        "lexicographic": len(proof.components) > 1,
        "components": [
            {
                "function": ranking_module.render(coeffs, proof.features),
                "decreases": [f"{actions[a].rule.citation} {actions[a].label}" for a in strict],
            }
            for coeffs, strict in proof.components
        ],
        "features": len(proof.features),
        "fields": list(inv.fields),
        "claims": len(inv.conjuncts),
        "invariant": [c.render(enc) for c in inv.conjuncts],
        "seeded": proof.seeded,
        "refinements": proof.refinements,
        "checked": "every well-formed region state that satisfies the invariant, which is "
        "inductive (initiation, consecution)",
        "solver": f"z3 {z3.get_version_string()}",
    }
    return result(
        model,
        prop,
        Verdict.PROVED,
        certificate=certificate,
        holds_for=f"every reachable state, {scope(enc)} (unbounded in depth)",
    )


#: States a concrete search from a move on a lasso visits at most, to decide whether the
#: region can be left after it; beyond, the move is listed as an exit that was not decided.
EXIT_SEARCH_STATES = 50_000


def loop_exits(
    enc: Encoding,
    found: BmcOutcome,
    region: Callable[..., Any],
    opened: Mapping[str, int] | None = None,
) -> tuple[list[LoopExit], bool] | None:
    """The moves on the loop after which the game can leave the region without coming back to
    the loop (computed concretely from the decoded states, with the lasso's values of the open
    bounds): who could break the loop, and how; and whether the loop is forced (no state on it
    has more than one move). ``None`` when the rules cannot run with those values (one lies
    outside the range the rule set supports)."""
    assert found.loop_start is not None
    model = enc.model
    if opened:
        try:
            model = Model(model.ruleset, {**dict(model.bounds), **opened})
        except BoundsError:
            return None
    x, b = ConcreteOps(), model.bounds
    loop = found.states[found.loop_start : -1]
    on_loop = set(loop)

    def moves(node: tuple[State, Any]) -> list[tuple[Any, tuple[State, Any]]]:
        s, m = node
        out = []
        for a, t, _ in concrete_moves(model, s):
            if t is None:
                continue
            mt = None
            if enc.monitor_cls is not None:
                mt = enc.monitor_cls(*(mon.update(s, t, a.rule, m, x, b) for mon in enc.monitors))
            out.append((a, (t, mt)))
        return out

    def inside(node: tuple[State, Any]) -> bool:
        """In the region, and the game is not over there."""
        return bool(region(node[0], x, b, node[1])) and not model.is_terminal(node[0], x)

    def can_leave(start: tuple[State, Any]) -> bool:
        if not inside(start):
            return True
        seen, queue = {start}, [start]
        while queue:
            if len(seen) > EXIT_SEARCH_STATES:
                return True  # not decided: listed, so that no way out is hidden
            node = queue.pop()
            for _, nxt in moves(node):
                if not inside(nxt):
                    return True
                if nxt not in seen and nxt not in on_loop:
                    seen.add(nxt)
                    queue.append(nxt)
        return False

    exits = []
    forced = True
    for pos, node in enumerate(loop):
        here = moves(node)
        if len(here) > 1:
            forced = False
        following = loop[(pos + 1) % len(loop)]
        took = found.actions[found.loop_start + pos]
        for a, nxt in here:
            if (a.index == took.index and nxt == following) or nxt in on_loop:
                continue
            if not can_leave(nxt):
                continue
            who = a.decider(node[0], x, b)
            by = model.decided_by(a, node[0], x)
            exits.append(
                LoopExit(
                    pos,
                    None if who is None else int(who),
                    a.rule.citation,
                    a.label,
                    None if by is None else int(by),
                )
            )
    return exits, forced


# -- bounds ---------------------------------------------------------------------------------------


def bounds_reached(enc: Encoding, *, timeout_s: float, max_depth: int) -> BoundsOutcome:
    """Which declared bounds (``x.within`` guards) cut a transition from a reachable state that
    is not terminal: a bounded search finds the shallowest such state for each bound (one
    unrolling for all of them), and Spacer is asked to prove the others never cut."""

    from turnproof.checks import proofcache

    deadline = Deadline(timeout_s)
    small = _small_bounds(enc, deadline)
    if small is not None:
        return small
    memo = proofcache.bounds_key(enc, timeout_s, max_depth)
    if memo is not None:
        kept = _bounds_from_cache(enc, memo, deadline)
        if kept is not None:
            return kept
    outcome, proofs_of = _bounds_reached(enc, deadline, max_depth)
    if memo is not None and not outcome.domain_error:
        proofcache.store(memo, proofcache.bounds_entry(outcome, proofs_of))
    return outcome


def _cut_target(enc: Encoding, bound: str) -> Target:
    """The bad condition "a live state where ``bound`` cuts a transition" (or, for
    :data:`DOMAIN`, "a step leaves the fields' domains")."""

    def target(k: int) -> Any:
        if bound == DOMAIN:
            return enc.leaves_domain(k)
        return z3.And(z3.Not(enc.is_terminal(k)), enc.cut(k, bound))

    return target


def _bounds_from_cache(enc: Encoding, memo: str, deadline: Deadline) -> BoundsOutcome | None:
    """The outcome the proof cache kept, each answer checked again: a bound reached at depth
    ``k`` is cut at depth ``k`` and at no shallower one (the bounded search up to the deepest
    such ``k``, which is all of the cold search that found them), a bound proved never to cut
    has its Spacer invariant re-checked; what was left undecided stays so (no claim rests on
    it). ``None`` when there is no entry, or anything in it does not check."""
    from turnproof.checks import proofcache

    entry = proofcache.load_bounds(memo)
    if entry is None:
        return None
    outcome, kept = entry
    unrolling = Unrolling(enc)
    deepest = max(outcome.reached.values(), default=-1)
    for k in range(deepest + 1):
        due = [b for b, at in outcome.reached.items() if at == k]
        later = [b for b, at in outcome.reached.items() if at > k]
        for bound in due:
            answer, _ = unrolling.check_at(k, _cut_target(enc, bound)(k), deadline)
            if answer != z3.sat:
                return None
        if later:
            answer, _ = unrolling.check_at(
                k, z3.Or(*(_cut_target(enc, b)(k) for b in later)), deadline
            )
            if answer != z3.unsat:
                return None
    proved = list(outcome.unreached)
    if not outcome.domain_undecided and not _no_step_leaves_domains(enc, deadline):
        proved.append(DOMAIN)  # the fields' domains were proved never left: prove it again
    for bound in proved:
        inv = proofcache.spacer_invariant({"invariant": kept.get(bound)}, enc)
        if inv is None or check_invariant(Query(enc, _cut_target(enc, bound), 0), inv, deadline):
            return None
    return outcome


def _bounds_reached(
    enc: Encoding, deadline: Deadline, max_depth: int
) -> tuple[BoundsOutcome, dict[str, Any]]:
    """:func:`bounds_reached` without the cache; also the Spacer invariant of each bound
    proved never to cut."""
    timeout_s = deadline.left()

    def cut(bound: str) -> Target:
        return _cut_target(enc, bound)

    remaining = enc.bound_names()
    domain_error = ""
    # First the one-step question: does any rule, from any well-formed state (whatever the
    # open bounds), leave a field's domain? Usually not, since such rules declare their bounds
    # with x.within; then no reachable transition does either. Otherwise: reachability.
    if not _no_step_leaves_domains(enc, Deadline(timeout_s / 4)):
        remaining.append(DOMAIN)
    reached: dict[str, int] = {}
    unrolling = Unrolling(enc)
    reasons: list[str] = []
    search = Deadline(timeout_s / 2)  # the other half is Spacer's
    k = 0
    while remaining and k <= max_depth:
        if search.expired():
            # How deep the search got depends on the machine and its load: the reason says
            # only that time ran out, so that a report is the same bytes on every run.
            reasons.append("no cut by them found before the search's time ran out")
            break
        answer, zm = unrolling.check_at(k, z3.Or(*(cut(b)(k) for b in remaining)), search)
        if answer == z3.sat:
            hit = [b for b in remaining if z3.is_true(zm.eval(cut(b)(k), model_completion=True))]
            if DOMAIN in hit:
                domain_error = _domain_error(enc, zm, k)
                hit.remove(DOMAIN)
                remaining.remove(DOMAIN)
            reached.update((b, k) for b in hit)
            remaining = [b for b in remaining if b not in hit]
            continue
        if answer != z3.unsat:
            reasons.append("no cut by them found before the solver gave up")
            break
        k += 1
    else:
        if remaining:
            reasons.append(f"no cut by them within {max_depth} steps")
    unreached: list[str] = []
    undecided: list[str] = []
    proofs_of: dict[str, Any] = {}
    spacer_reasons: dict[str, list[str]] = {}
    for i, bound in enumerate(remaining):
        share = Deadline(max(deadline.left() / (len(remaining) - i), 0.001))
        answer = spacer(Query(enc, cut(bound), 0), share)
        if answer.status == "safe":
            unreached.append(bound)
            proofs_of[bound] = answer.formula
        else:
            undecided.append(bound)
            spacer_reasons.setdefault(answer.reason, []).append(bound)
    domain_undecided = ""
    if DOMAIN in undecided:
        undecided.remove(DOMAIN)
        unsure = [r for r, which in spacer_reasons.items() if DOMAIN in which]
        domain_undecided = "; ".join(unsure) or "not proved"
        for which in spacer_reasons.values():
            if DOMAIN in which:
                which.remove(DOMAIN)
    if DOMAIN in unreached:
        unreached.remove(DOMAIN)
    for why, which in spacer_reasons.items():
        if not which:
            continue
        reasons.append(why if len(which) == len(undecided) else f"{why} ({', '.join(which)})")
    outcome = BoundsOutcome(
        reached,
        unreached,
        undecided,
        "; ".join(reasons),
        domain_error=domain_error,
        domain_undecided=domain_undecided,
    )
    return outcome, proofs_of


def _no_step_leaves_domains(enc: Encoding, deadline: Deadline) -> bool:
    """No rule, from any well-formed state (whatever the open bounds), leaves a field's
    domain: then no reachable transition does either."""
    return solve(z3.And(enc.well_formed(0), enc.leaves_domain(0)), deadline) == z3.unsat


def _small_bounds(enc: Encoding, deadline: Deadline) -> BoundsOutcome | None:
    """:func:`bounds_reached` for a small model with every bound fixed: its reachable states,
    checked by Z3 to be closed under the transition formula, decide every bound at once; the
    depth of a cut is that of the shallowest concrete state where it happens, whose path Z3
    checks step by step. ``None`` when the model is not small or the check does not succeed."""
    ex = small_exploration(enc)
    if ex is None:
        return None
    cubes = z3.Or(*(enc.is_state(0, ex.state(i)) for i in range(ex.states)))
    following = z3.substitute(cubes, *zip(enc.vars(0), enc.vars(1)))
    for formula in (
        z3.And(enc.init(0), z3.Not(cubes)),
        z3.And(cubes, enc.transition(0), z3.Not(following)),
    ):
        if solve(formula, deadline) != z3.unsat:
            return None
    if solve(z3.And(cubes, enc.leaves_domain(0)), deadline) != z3.unsat:
        return None  # a reachable rule leaves a domain: the full search names it
    reached: dict[str, int] = {}
    unreached: list[str] = []
    model = enc.model
    for bound in enc.bound_names():
        where = z3.And(cubes, z3.Not(enc.is_terminal(0)), enc.cut(0, bound))
        answer = solve(where, deadline)
        if answer == z3.unsat:
            unreached.append(bound)
            continue
        if answer != z3.sat:
            return None
        for i in range(ex.expanded):  # breadth-first: the first is the shallowest
            if any(b == bound for _, _, b in concrete_moves(model, ex.state(i))):
                reached[bound] = ex.depth(i)
                break
    return BoundsOutcome(dict(sorted(reached.items())), unreached, [], "")


#: The name under which :func:`bounds_reached` asks whether a rule leaves a field's domain.
DOMAIN = "(domain)"


def _domain_error(enc: Encoding, zm: Any, k: int) -> str:
    """The modelling error for a state of step ``k`` (in the Z3 model ``zm``) from which a rule
    instance leaves the schema's domains: the same words as the explicit engine's."""
    from turnproof.checks.explicit import domain_error

    state, _ = enc.decode(zm, k)
    model = enc.model
    fits = fits_checker(model.schema)
    for a, t, _ in concrete_moves(model, state):
        if t is not None and not fits(t):
            return str(domain_error(model, a, t, k))
    return f"a rule leaves a field's domain from a state reached in {k} steps"
