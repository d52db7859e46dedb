"""Termination of a region under its invariant: a lexicographic ranking over features.

The plain ranking search (:class:`~turnproof.checks.proofs.Ranker`) looks for integer linear
functions of the leaves that decrease on every well-formed region state. When the loop's
progress lies in *which* value an enumerated field holds (the stage of a step, the kind of the
resolving object), or when it needs facts that only reachable states have (in a cleanup step,
players get priority only after something happened in it), there is none. This search widens
both sides:

* **features**: every numeric leaf, a 0/1 feature ``[a == v]`` for every value of every
  enumerated leaf, and ``[a == v and b == w]`` for pairs of enumerated leaves outside sequences
  (the stage together with the resolving object), for the values the region's reached states
  show;
* **states**: only region states that satisfy the region's control invariant (the least fixed
  point of :mod:`turnproof.checks.invariants`, over the control fields and the flags that the
  guards of the rules leaving the region test and that rise and fall inside it, with claims also under the region's own
  context such as ``step == CLEANUP``).

Each component is found by linear programming (HiGHS through SciPy, its answer read as
fractions and checked exactly, with Z3's exact optimiser when the check fails) on the
leaf differences of transitions: the region transitions the explicit engine reaches seed it,
then every candidate is checked by Z3 against *every* region state that satisfies the invariant
and each counterexample transition is added, until the candidate holds. The program maximises
the rule instances a component strictly decreases (the others must not increase it), the
classic construction of lexicographic linear ranking functions. Over a finite state space a
function that strictly decreases cannot cycle, whatever its coefficients; with open bounds, each
value of the bounds gives a finite space and the checks cover them all.

When no component makes progress, the instances left form a cycle of the features: the reason
names them (a lasso search follows in the caller).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from itertools import combinations
from math import gcd, lcm
from typing import Any

import numpy as np
import z3
from turnproof.checks import invariants
from turnproof.checks.bmc import Deadline
from turnproof.checks.symbolic import Encoding
from turnproof.model.ops import ConcreteOps
from turnproof.model.properties import Property

#: Coefficients are searched in [-COEFFICIENT_BOUND, COEFFICIENT_BOUND] (then scaled).
COEFFICIENT_BOUND = 1000
#: Counterexample transitions per component before giving up.
MAX_REFINEMENTS = 1000
#: At most this many contexts (values of one field) for the region's invariant.
MAX_CONTEXTS = 3


@dataclass(frozen=True)
class Feature:
    """A number computed from one state: a leaf (``parts`` one ``(leaf, None)``) or the 0/1
    indicator that every ``(leaf, value)`` of ``parts`` holds."""

    name: str
    parts: tuple[tuple[int, int | None], ...]

    def term(self, leaves: Sequence[Any]) -> Any:
        (i, v), *_ = self.parts
        if v is None:
            leaf = leaves[i]
            return z3.If(leaf, 1, 0) if z3.is_bool(leaf) else leaf
        return z3.If(z3.And(*(leaves[j] == w for j, w in self.parts)), 1, 0)

    def value(self, row: Sequence[int]) -> int:
        (i, v), *_ = self.parts
        if v is None:
            return int(row[i])
        return int(all(int(row[j]) == w for j, w in self.parts))


def features(
    enc: Encoding, rows: Sequence[Sequence[int]], contexts: Sequence[tuple[str, int]] = ()
) -> list[Feature]:
    """The features of the module docstring; pair indicators only for pairs of values seen
    together in ``rows`` (the region's reached states). A field the region ``contexts`` pin
    gets indicators for those values only, and none when it has one value (a constant)."""
    leaves = enc.model.schema.leaves()
    pinned: dict[str, list[int]] = {}
    for c, u in contexts:
        pinned.setdefault(c, []).append(u)
    out: list[Feature] = []
    enums: list[tuple[int, str, Any]] = []
    for i, (p, d) in enumerate(leaves):
        enum = getattr(d, "enum", None)
        if enum is None:
            out.append(Feature(p, ((i, None),)))
            continue
        values = pinned.get(p, range(d.lo, d.hi + 1))
        if len(values) == 1:
            continue
        out.extend(Feature(f"[{p} == {enum(v).name}]", ((i, v),)) for v in values)
        if "[" not in p:
            enums.append((i, p, enum))
    for (i, p, e1), (j, q, e2) in combinations(enums, 2):
        seen = sorted({(int(r[i]), int(r[j])) for r in rows})
        out.extend(
            Feature(f"[{p} == {e1(v).name} and {q} == {e2(w).name}]", ((i, v), (j, w)))
            for v, w in seen
        )
    return out


def region_contexts(enc: Encoding, region0: Any, deadline: Deadline) -> list[tuple[str, int]]:
    """``(field, value)`` contexts for the region's invariant: the values an enumerated field
    the region reads can take inside it, when there are few."""
    out: list[tuple[str, int]] = []
    read = invariants.leaves_of(enc, region0)
    for p in (p for p in enc.paths if p in read):  # schema order
        d = enc.domains[enc.paths.index(p)]
        if getattr(d, "enum", None) is None:
            continue
        values = []
        for v in range(d.lo, d.hi + 1):
            s = z3.Solver()
            deadline.arm(s)
            s.add(enc.well_formed(0), region0, enc.var(p, 0) == v)
            if s.check() != z3.unsat:
                values.append(v)
        if len(values) <= MAX_CONTEXTS:
            out.extend((p, v) for v in values)
    return out


def exit_fields(enc: Encoding, region0: Any, region1: Any, deadline: Deadline) -> list[str]:
    """The invariant's fields: the control fields, and the flags (Boolean leaves) that the
    guards of the rule instances leaving the region test and that can both rise and fall
    inside the region. Whether a loop can end is up to those guards; a flag that only falls
    (a creature dies) is progress a ranking counts by itself, while one that rises and falls
    (this cleanup step did something) needs the invariant to tie it to the control state."""
    enabled = enc.enabled(0)
    leaving = _Checker(enc, z3.And(region0, z3.Not(region1), enc.well_formed(0)), [])
    tested: set[str] = set()
    for a in enc.model.actions:
        if leaving.fires(a.index, deadline) != z3.unsat:
            tested |= invariants.leaves_of(enc, enabled[a.index])
    base = invariants.control_fields(enc, region0)
    inside = z3.And(region0, region1, enc.well_formed(0), enc.well_formed(1), enc.transition(0))
    flags = []
    for p, d in enc.model.schema.leaves():
        if not d.is_bool or p not in tested or p in base:
            continue
        before, after = enc.var(p, 0), enc.var(p, 1)
        both = [
            _satisfiable(z3.And(inside, z3.Not(before), after), deadline),
            _satisfiable(z3.And(inside, before, z3.Not(after)), deadline),
        ]
        if all(both):
            flags.append(p)
    return base + flags


def _satisfiable(formula: Any, deadline: Deadline) -> bool:
    """``formula`` may hold (``unknown`` counts as may)."""
    s = z3.Solver()
    deadline.arm(s)
    s.add(formula)
    return bool(s.check() != z3.unsat)


def reached(
    enc: Encoding, prop: Property
) -> tuple[list[list[int]], list[tuple[int, list[int], list[int]]]]:
    """The region's reached states (leaf rows) and its reached transitions (rule instance and
    the two rows), from the explicit engine at the fixed bounds (at most
    :data:`~turnproof.checks.invariants.MAX_SAMPLES` states)."""
    from turnproof.checks.explicit import Limits, explore

    model = enc.model
    assert prop.pred is not None
    ex = explore(model, prop.monitors, limits=Limits(max_states=invariants.MAX_SAMPLES))
    x, b = ConcreteOps(), model.bounds
    flatten = model.schema.flatten
    rows = {
        i: [int(v) for v in flatten(ex.state(i))]
        for i in range(ex.states)
        if prop.pred(ex.state(i), x, b, ex.monitor_values(i))
    }
    moves = [
        (a, rows[s], rows[t]) for s, t, a in zip(ex.src, ex.dst, ex.act) if s in rows and t in rows
    ]
    return list(rows.values()), moves


def differences(
    feats: Sequence[Feature], moves: Sequence[tuple[int, list[int], list[int]]]
) -> dict[int, set[tuple[int, ...]]]:
    """Per rule instance, the feature differences (before minus after) of ``moves``: each
    feature's values (:meth:`Feature.value`) computed at once over every move's two rows."""
    out: dict[int, set[tuple[int, ...]]] = {}
    if not moves:
        return out
    acts = np.array([a for a, _, _ in moves])
    before = np.array([r for _, r, _ in moves], dtype=np.int64)
    after = np.array([t for _, _, t in moves], dtype=np.int64)
    diffs = np.stack(
        [_feature_values(f, before) - _feature_values(f, after) for f in feats], axis=1
    ) if feats else np.zeros((len(moves), 0), dtype=np.int64)  # fmt: skip
    for a in np.unique(acts).tolist():
        out[a] = {tuple(d) for d in np.unique(diffs[acts == a], axis=0).tolist()}
    return out


def _feature_values(f: Feature, rows: np.ndarray) -> np.ndarray:
    """:meth:`Feature.value` of each row of ``rows``."""
    (i, v), *_ = f.parts
    if v is None:
        return rows[:, i]
    hold = np.ones(len(rows), dtype=bool)
    for j, w in f.parts:
        hold &= rows[:, j] == w
    return hold.astype(np.int64)


@dataclass
class Proof:
    """A ranking found under the region's invariant."""

    components: list[tuple[list[int], list[int]]]  # integer coefficients, instances decreased
    features: list[Feature]
    invariant: invariants.Invariant
    refinements: int
    seeded: int  # reached region transitions that seeded the search


def _firing(checker: _Checker, actions: Sequence[int], deadline: Deadline) -> list[int] | None:
    """The instances of ``actions`` that can take a step on the checker's states (``None`` if
    Z3 cannot tell)."""
    out = []
    for a in actions:
        answer = checker.fires(a, deadline)
        if answer == z3.unknown:
            return None
        if answer == z3.sat:
            out.append(a)
    return out


Sampled = tuple[list[list[int]], list[tuple[int, list[int], list[int]]]]


def no_ranking_over_leaves(
    enc: Encoding, prop: Property, sampled: Sampled, deadline: Deadline
) -> str:
    """Why the plain search (:class:`~turnproof.checks.proofs.Ranker`: a lexicographic linear
    ranking over the leaves, on every well-formed region state) cannot succeed, from the
    region transitions the explicit engine reached (``sampled``, from :func:`reached`); ``""``
    when they have such a ranking, or when the program does not answer.

    The reached transitions are transitions the plain search must rank. If at some point no
    linear function of the leaves that none of the instances left increases strictly decreases
    one of them, those instances have no lexicographic ranking on their reached transitions,
    hence none on all of theirs (a ranking of a set of transitions ranks every subset), whatever
    the instances taken out before. The programs are over rationals, which only widens what
    the plain search's integer coefficients can do. A property with monitors is not judged:
    the plain search reads them too, and the samples have none."""
    if prop.monitors:
        return ""
    leaves = enc.model.schema.leaves()
    feats = [Feature(p, ((i, None),)) for i, (p, _) in enumerate(leaves)]
    diffs = differences(feats, sampled[1])
    remaining = sorted(diffs)
    while remaining:
        got = _lp(len(feats), remaining, diffs, deadline)
        if isinstance(got, str):
            return ""
        _, strict = got
        if not strict:
            names = ", ".join(enc.model.actions[a].label for a in remaining)
            return (
                f"no linear or lexicographic linear ranking function over the leaves: the "
                f"reached transitions of {names} cancel out"
            )
        remaining = [a for a in remaining if a not in strict]
    return ""


def prove(
    enc: Encoding,
    prop: Property,
    deadline: Deadline,
    memo: str | None = None,
    sampled: Sampled | None = None,
) -> Proof | str:
    """A lexicographic ranking of the region's transitions under its invariant, or why not.
    ``memo``: the proof cache's entry (``checks/proofcache.py``): a ranking kept there is
    checked again on every region transition under the invariant (inferred again, from its own
    cache) before the search, and a new one is kept. ``sampled``: :func:`reached`, when the
    caller has it already."""
    assert prop.pred is not None
    region0, region1 = enc.state_pred(prop.pred, 0), enc.state_pred(prop.pred, 1)
    inside = z3.And(region0, region1, enc.well_formed(0), enc.well_formed(1))
    firing = _firing(_Checker(enc, inside, []), [a.index for a in enc.model.actions], deadline)
    if firing is None:
        return "Z3 unknown while listing the region's rules"
    if not firing:
        return Proof([], [], invariants.Invariant([]), 0, 0)
    fields = exit_fields(enc, region0, region1, deadline)
    contexts = region_contexts(enc, region0, deadline)
    inv = invariants.infer(enc.model, enc, deadline, fields, contexts)
    if not inv.ok:
        return inv.reason
    base = z3.And(inside, inv.formula(enc, 0))
    # Instances that fire only in well-formed states the invariant excludes are no part of it.
    firing = _firing(_Checker(enc, base, []), firing, deadline)
    if firing is None:
        return "Z3 unknown while listing the rules that fire under the region's invariant"
    kept = _kept(enc, memo, base, firing, inv, deadline)
    if kept is not None:
        return kept
    rows, moves = sampled if sampled is not None else reached(enc, prop)
    feats = features(enc, rows, contexts)
    found = search(
        enc,
        base,
        feats,
        firing,
        differences(feats, moves),
        deadline,
        lambda a: enc.model.actions[a].label,
    )
    if found.reason:
        return found.reason
    proof = Proof(
        [(integral(c), strict) for c, strict in found.components],
        feats,
        inv,
        found.refinements,
        len(moves),
    )
    if memo:
        from turnproof.checks import proofcache

        proofcache.store(memo, proofcache.ranking_entry(proof))
    return proof


def _kept(
    enc: Encoding,
    memo: str | None,
    base: Any,
    firing: Sequence[int],
    inv: invariants.Invariant,
    deadline: Deadline,
) -> Proof | None:
    """The ranking the proof cache kept, if it still ranks every firing instance: each
    component decreases strictly on the instances it names and never increases on those left
    (every well-formed region state under the invariant, as :func:`search` checks a
    candidate); ``None`` otherwise."""
    from turnproof.checks import proofcache

    entry = proofcache.load(memo) if memo else None
    if entry is None or entry["method"] != proofcache.RANKING:
        return None
    kept = proofcache.ranking_parts(entry)
    if kept is None:
        return None
    feats = [Feature(name, parts) for name, parts in kept["features"]]
    components = kept["components"]
    if sorted(a for _, strict in components for a in strict) != sorted(firing):
        return None
    if any(len(coeffs) != len(feats) for coeffs, _ in components):
        return None
    checker = _Checker(enc, base, feats)
    remaining = list(firing)
    for coeffs, strict in components:
        fractions = [Fraction(c) for c in coeffs]
        for a in remaining:
            if checker.refute(a, fractions, a in strict, deadline) is not None:
                return None
        remaining = [a for a in remaining if a not in strict]
    return Proof(components, feats, inv, kept["refinements"], kept["seeded"])


@dataclass
class Search:
    """The state of one ranking search (see :func:`search`)."""

    components: list[tuple[list[Fraction], list[int]]] = field(default_factory=list)
    reason: str = ""
    refinements: int = 0


class _Checker:
    """One incremental solver per rule instance: region, invariant and the instance's step."""

    def __init__(self, enc: Encoding, base: Any, feats: Sequence[Feature]) -> None:
        # The solvers work in a Z3 context of their own, into which every formula is
        # translated in the same order on every run: the counterexample Z3 picks depends on the
        # order in which the terms were made, and in the main context that order depends on
        # what the process checked before (a worker's other properties). Two cold runs of the
        # default check gave end-the-turn-terminates two different rankings.
        self.enc = enc
        self.ctx = z3.Context()
        self.base = base.translate(self.ctx)
        lv0, lv1 = enc.leaf_vars(0), enc.leaf_vars(1)
        self.t0 = [f.term(lv0).translate(self.ctx) for f in feats]
        self.t1 = [f.term(lv1).translate(self.ctx) for f in feats]
        # Each feature's difference over a step, made once: a candidate's decrease is a sum of
        # these, and a counterexample's differences are their values.
        self.diff = [u - w for u, w in zip(self.t0, self.t1)]
        self.solvers: dict[int, Any] = {}

    def solver(self, a: int) -> Any:
        s = self.solvers.get(a)
        if s is None:
            s = self.solvers[a] = z3.Solver(ctx=self.ctx)
            s.add(self.base, self.enc.step_formula(0, a).translate(self.ctx))
        return s

    def refute(
        self, a: int, coeffs: Sequence[Fraction], strict: bool, deadline: Deadline
    ) -> tuple[int, ...] | None | str:
        """Feature differences of an ``a`` transition the candidate does not decrease (or
        increases, when not ``strict``); ``None`` when there is none; Z3's reason if unknown."""
        s = self.solver(a)
        ctx = self.ctx
        # Scaled to whole numbers (by a positive factor, which keeps the sign of the decrease):
        # an integer sum is made and solved sooner than one of rationals times integers.
        scale = lcm(*(Fraction(c).denominator for c in coeffs))
        whole = [int(c * scale) for c in coeffs]
        delta = z3.Sum(
            *(z3.IntVal(k, ctx) * d for k, d in zip(whole, self.diff) if k != 0),
            z3.IntVal(0, ctx),
        )
        s.push()
        s.add(delta <= 0 if strict else delta < 0)
        deadline.arm(s)
        answer = s.check()
        got: tuple[int, ...] | None | str = None
        if answer == z3.sat:
            zm = s.model()
            got = tuple(zm.eval(d, model_completion=True).as_long() for d in self.diff)
        elif answer == z3.unknown:
            got = s.reason_unknown()
        s.pop()
        return got

    def fires(self, a: int, deadline: Deadline) -> Any:
        s = self.solver(a)
        deadline.arm(s)
        return s.check()


def _lp(
    n: int, remaining: Sequence[int], diffs: dict[int, set[tuple[int, ...]]], deadline: Deadline
) -> tuple[list[Fraction], list[int]] | str:
    """Coefficients no remaining instance's known difference increases, strictly decreased by
    as many instances as possible (scaled so that those decrease by at least 1).

    HiGHS solves the program in floating point; its answer is read as fractions and checked
    exactly against every known difference. An answer that does not survive the check (a
    rounding that breaks a constraint or loses a strict instance) goes to Z3's exact optimiser.
    Either way the caller checks the candidate against every region state, so the program only
    proposes."""
    got = _highs_lp(n, remaining, diffs, deadline)
    return got if got is not None else _z3_lp(n, remaining, diffs, deadline)


#: Largest denominator when HiGHS's floating answer is read as fractions.
MAX_DENOMINATOR = 10_000
#: A floating epsilon above this counts as a strict decrease in HiGHS's answer.
STRICT_TOLERANCE = 1e-6
#: How far below its best the second phase may hold the first phase's objective.
FEASIBILITY_SLACK = 1e-7


def _highs_lp(
    n: int, remaining: Sequence[int], diffs: dict[int, set[tuple[int, ...]]], deadline: Deadline
) -> tuple[list[Fraction], list[int]] | None:
    """:func:`_lp` by HiGHS in two phases (most strict instances, then the smallest L1 norm);
    ``None`` when HiGHS fails or its answer is not exact once rounded."""
    m = len(remaining)
    # Variables: c (n), eps (m), t (n: |c| bounds for the L1 norm). One row per known
    # difference d of each instance a: eps_a - c.d <= 0 (made a block per instance: the
    # cleanup step's search asks some ninety programs of thousands of rows).
    width = 2 * n + m
    blocks = [np.zeros((0, width))]
    for j, a in enumerate(remaining):
        known = sorted(diffs.get(a, ()))
        if known:
            block = np.zeros((len(known), width))
            block[:, :n] = -np.array(known, dtype=float).reshape(len(known), n)
            block[:, n + j] = 1.0
            blocks.append(block)
    bounds = [(-COEFFICIENT_BOUND, COEFFICIENT_BOUND)] * n + [(0, 1)] * m + [(0, None)] * n
    a_ub = np.vstack(blocks)
    b_ub = np.zeros(len(a_ub))
    first = np.zeros(width)
    first[n : n + m] = -1.0  # maximise the sum of eps (t plays no part yet)
    if deadline.expired():
        return None
    # Imported here: scipy.optimize takes half a second to import, and most symbolic tasks
    # (one fresh process each) never search for a ranking.
    from scipy.optimize import linprog

    one = linprog(
        first,
        A_ub=a_ub,
        b_ub=b_ub,
        bounds=bounds,
        method="highs",
        options={"time_limit": max(0.1, deadline.left())},
    )
    if one.status != 0:
        return None
    best = -float(one.fun)
    # Phase two: the same program, the sum of eps held at its best, the smallest |c|.
    norm = np.zeros((2 * n, width))
    for i in range(n):
        norm[2 * i, i], norm[2 * i, n + m + i] = 1.0, -1.0  # c - t <= 0
        norm[2 * i + 1, i], norm[2 * i + 1, n + m + i] = -1.0, -1.0  # -c - t <= 0
    keep = np.zeros((1, width))
    keep[0, n : n + m] = -1.0  # -sum eps <= -(best - tolerance)
    second = np.zeros(width)
    second[n + m :] = 1.0
    two = linprog(
        second,
        A_ub=np.vstack([a_ub, norm, keep]),
        b_ub=np.concatenate([b_ub, np.zeros(2 * n), [-(best - FEASIBILITY_SLACK)]]),
        bounds=bounds,
        method="highs",
        options={"time_limit": max(0.1, deadline.left())},
    )
    if two.status != 0:
        return None
    coeffs = [Fraction(float(v)).limit_denominator(MAX_DENOMINATOR) for v in two.x[:n]]
    floating = {a: float(two.x[n + j]) for j, a in enumerate(remaining)}
    margins = _margins(coeffs, remaining, diffs)
    if any(v < 0 for v in margins.values()):
        return None
    strict = [a for a in remaining if margins[a] > 0]
    if set(strict) != {a for a in remaining if floating[a] > STRICT_TOLERANCE}:
        return None
    scale = min((min(margins[a], Fraction(1)) for a in strict), default=Fraction(1))
    return [c / scale for c in coeffs], strict


def _margins(
    coeffs: Sequence[Fraction], remaining: Sequence[int], diffs: dict[int, set[tuple[int, ...]]]
) -> dict[int, Fraction]:
    """For each instance, the least ``c.d`` over its known differences ``d`` (1 with none),
    exactly: the coefficients over their common denominator, then whole numbers, added in
    64-bit integers when no sum can overflow them (else in Python's)."""
    den = lcm(*(c.denominator for c in coeffs)) if coeffs else 1
    ints = [int(c * den) for c in coeffs]
    top = max((abs(v) for v in ints), default=0)
    out: dict[int, Fraction] = {}
    for a in remaining:
        known = list(diffs.get(a, ()))
        if not known:
            out[a] = Fraction(1)
            continue
        table = np.array(known, dtype=np.int64).reshape(len(known), len(ints))
        widest = int(np.abs(table).max()) if table.size else 0
        if top * widest * max(len(ints), 1) < 2**62:
            least = int((table @ np.array(ints, dtype=np.int64)).min()) if ints else 0
        else:
            least = min(sum(c * x for c, x in zip(ints, d)) for d in known)
        out[a] = Fraction(least, den)
    return out


def _z3_lp(
    n: int, remaining: Sequence[int], diffs: dict[int, set[tuple[int, ...]]], deadline: Deadline
) -> tuple[list[Fraction], list[int]] | str:
    """:func:`_lp` by Z3's optimiser over the rationals (exact, and slower by an order of
    magnitude on the cleanup step's programs)."""
    opt = z3.Optimize()
    cs = [z3.Real(f"c{i}") for i in range(n)]
    eps = {a: z3.Real(f"e{a}") for a in remaining}
    for c in cs:
        opt.add(c >= -COEFFICIENT_BOUND, c <= COEFFICIENT_BOUND)
    for a in remaining:
        opt.add(eps[a] >= 0, eps[a] <= 1)
        for d in diffs.get(a, ()):
            terms = [c * x for c, x in zip(cs, d) if x]
            opt.add(z3.Sum(*terms, z3.RealVal(0)) >= eps[a])
    opt.maximize(z3.Sum(*eps.values()))
    # Then the smallest coefficients (L1 norm): a readable certificate, no idle feature.
    size = [z3.Real(f"t{i}") for i in range(n)]
    for t, c in zip(size, cs):
        opt.add(t >= c, t >= -c)
    opt.minimize(z3.Sum(*size))
    opt.set("timeout", max(1, int(deadline.left() * 1000)))
    answer = opt.check()
    if answer != z3.sat:
        return f"linear program: {opt.reason_unknown() if answer == z3.unknown else answer}"
    zm = opt.model()
    values = {a: _fraction(zm.eval(e, model_completion=True)) for a, e in eps.items()}
    strict = [a for a in remaining if values[a] > 0]
    scale = min((values[a] for a in strict), default=Fraction(1))
    return [_fraction(zm.eval(c, model_completion=True)) / scale for c in cs], strict


def _fraction(v: Any) -> Fraction:
    f = v.as_fraction()
    return Fraction(f.numerator, f.denominator)


def search(
    enc: Encoding,
    base: Any,
    feats: Sequence[Feature],
    firing: Sequence[int],
    seeds: dict[int, set[tuple[int, ...]]],
    deadline: Deadline,
    label: Callable[[int], str],
) -> Search:
    """A lexicographic ranking over ``feats`` for the ``firing`` instances on the states of
    ``base`` (region and invariant on both sides of a step); ``reason`` says why not."""
    checker = _Checker(enc, base, feats)
    diffs = {a: set(seeds.get(a, ())) for a in firing}
    out = Search()
    remaining = list(firing)
    while remaining:
        for _ in range(MAX_REFINEMENTS):
            if deadline.expired():
                out.reason = "time budget spent while synthesising a ranking function"
                return out
            got = _lp(len(feats), remaining, diffs, deadline)
            if isinstance(got, str):
                out.reason = got
                return out
            coeffs, strict = got
            if not strict:
                names = ", ".join(label(a) for a in remaining)
                out.reason = (
                    f"no linear ranking over the features decreases any of {names}: "
                    "their transitions cancel out"
                )
                return out
            bad = None
            for a in remaining:
                found = checker.refute(a, coeffs, a in strict, deadline)
                if isinstance(found, str):
                    out.reason = f"checking a ranking candidate: Z3 {found}"
                    return out
                if found is not None:
                    bad = (a, found)
                    break
            if bad is None:
                break
            diffs[bad[0]].add(bad[1])
            out.refinements += 1
        else:
            out.reason = f"no ranking function after {MAX_REFINEMENTS} counterexamples"
            return out
        out.components.append((coeffs, strict))
        remaining = [a for a in remaining if a not in strict]
    return out


def integral(coeffs: Sequence[Fraction]) -> list[int]:
    """The same function up to a positive factor, with coprime integer coefficients."""
    m = lcm(*(c.denominator for c in coeffs)) if coeffs else 1
    ints = [int(c * m) for c in coeffs]
    g = gcd(*ints) or 1
    return [v // g for v in ints]


def render(coeffs: Sequence[int], feats: Sequence[Feature]) -> str:
    terms = []
    for c, f in zip(coeffs, feats):
        if c == 0:
            continue
        terms.append(f"{c}*{f.name}" if c not in (1, -1) else ("" if c == 1 else "-") + f.name)
    return " + ".join(terms).replace("+ -", "- ") or "0"
