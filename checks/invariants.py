"""Houdini-style inference of inductive invariants, used to strengthen the unbounded proofs.

Candidates come from templates over the schema's leaves (their domains are small):

* ``in``: a leaf takes only some of its domain's values (``stage in {2, 3}``);
* ``imp``: ``a == v`` implies ``b in S`` (``S``: the values ``b`` takes when ``a == v``);
* ``eq`` and ``le``: one leaf equals, or is at most, another.

They are *filtered* on the states the explicit engine reaches in the same model (a candidate
false in one of them cannot be an invariant), which is a sound filter but no evidence at all
that a candidate holds. Then Houdini (Flanagan and Leino, 2001) finds the largest subset ``C``
with ``Init => C`` and ``C and T => C'`` on the symbolic transition formula ``T`` (every rule
instance, guards included): one query ``C and T and not(C')`` per round, every candidate false
in its model dropped, until the query is unsatisfiable. What is left is an inductive invariant;
it is re-checked once on a fresh plain solver before anything uses it.

The result depends only on the candidate set (Houdini's answer is the unique largest inductive
subset), and the candidates are generated in a sorted order from an exploration bounded by a
state count, not by time: the same model gives the same invariant, computed or read back from
the on-disk cache (keyed by the rule set's content hash and the bounds), and an invariant read
from the cache is checked again before it is used.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import z3
from turnproof.checks.bmc import Deadline, finite_solver, general_solver_needed
from turnproof.checks.symbolic import Encoding, lift_like
from turnproof.model.rules import Model

#: Reachable states sampled to filter candidates (the exploration stops there).
MAX_SAMPLES = 600_000
#: Candidate-generator version: part of the cache key.
GENERATOR = 1


@dataclass(frozen=True, order=True)
class Candidate:
    """One candidate invariant over the leaves of a single state."""

    kind: str  # "in" | "imp" | "eq" | "le"
    a: str
    v: int = 0
    b: str = ""
    values: tuple[int, ...] = ()

    def formula(self, enc: Encoding, k: int) -> Any:
        """The candidate over the variables of step ``k``."""
        va = enc.var(self.a, k)
        if self.kind == "in":
            return _member(va, self.values)
        if self.kind == "imp":
            vb = enc.var(self.b, k)
            return z3.Implies(va == lift_like(self.v, va), _member(vb, self.values))
        vb = enc.var(self.b, k)
        if self.kind == "eq":
            return va == vb
        return va <= vb

    def render(self, enc: Encoding) -> str:
        """The candidate with field names (enum values by name)."""
        if self.kind == "in":
            return f"{self.a} in {_show(enc, self.a, self.values)}"
        if self.kind == "imp":
            return (
                f"{self.a} == {_show(enc, self.a, (self.v,))[1:-1]} -> "
                f"{self.b} in {_show(enc, self.b, self.values)}"
            )
        return f"{self.a} {'==' if self.kind == 'eq' else '<='} {self.b}"

    def as_json(self) -> list[Any]:
        return [self.kind, self.a, self.v, self.b, list(self.values)]

    @staticmethod
    def from_json(data: Sequence[Any]) -> Candidate:
        kind, a, v, b, values = data
        return Candidate(str(kind), str(a), int(v), str(b), tuple(int(x) for x in values))


def _member(v: Any, values: Sequence[int]) -> Any:
    if z3.is_bool(v):
        if len(values) == 1:
            return v if values[0] else z3.Not(v)
        return z3.BoolVal(len(values) > 1)
    if not values:
        return z3.BoolVal(False)
    lo, hi = values[0], values[-1]
    if list(values) == list(range(lo, hi + 1)):
        return v == lo if lo == hi else z3.And(v >= lo, v <= hi)
    return z3.Or(*(v == c for c in values))


def _show(enc: Encoding, path: str, values: Sequence[int]) -> str:
    d = enc.domains[enc.paths.index(path)]
    enum = getattr(d, "enum", None)
    if d.is_bool:
        shown = [str(bool(c)).lower() for c in values]
    elif enum is not None:
        shown = [enum(c).name for c in values]
    else:
        shown = [str(c) for c in values]
    return "{" + ", ".join(shown) + "}"


# -- candidates -----------------------------------------------------------------------------------


def sample_columns(model: Model, max_states: int = MAX_SAMPLES) -> list[bytes]:
    """The leaf values of the states the explicit engine reaches (one column per leaf, one byte
    per state; leaf domains are far below 256 values)."""
    from turnproof.checks.explicit import Limits, explore

    ex = explore(model, limits=Limits(max_states=max_states))
    flatten = model.schema.flatten
    rows = [flatten(ex.state(i)) for i in range(ex.states)]
    return [bytes(int(r[j]) for r in rows) for j in range(len(model.schema.leaves()))]


def candidates(model: Model, columns: Sequence[bytes]) -> list[Candidate]:
    """Every template instance true on all the sampled states, sorted."""
    leaves = model.schema.leaves()
    n = len(leaves)
    seen = [sorted(set(col)) for col in columns]
    out: list[Candidate] = []
    # one byte-per-state mask (as an int) for every leaf value that occurs
    masks: list[dict[int, int]] = []
    for j in range(n):
        table = {}
        for v in seen[j]:
            mapping = bytes(1 if c == v else 0 for c in range(256))
            table[v] = int.from_bytes(columns[j].translate(mapping), "big")
        masks.append(table)
    for j, (path, d) in enumerate(leaves):
        if len(seen[j]) < d.hi - d.lo + 1:
            out.append(Candidate("in", path, values=tuple(seen[j])))
    for i, (pa, _) in enumerate(leaves):
        if len(seen[i]) < 2:
            continue  # a constant leaf: its "in" candidate says everything
        for v in seen[i]:
            mi = masks[i][v]
            for j, (pb, _) in enumerate(leaves):
                if j == i or len(seen[j]) < 2:
                    continue
                with_v = tuple(w for w in seen[j] if mi & masks[j][w])
                if len(with_v) < len(seen[j]):
                    out.append(Candidate("imp", pa, v, pb, with_v))
    for i, (pa, da) in enumerate(leaves):
        for j in range(i + 1, n):
            pb, db = leaves[j]
            if da.is_bool != db.is_bool or len(seen[i]) < 2 or len(seen[j]) < 2:
                continue
            if columns[i] == columns[j]:
                out.append(Candidate("eq", pa, b=pb))
            elif not da.is_bool:
                if all(x <= y for x, y in zip(columns[i], columns[j])):
                    out.append(Candidate("le", pa, b=pb))
                elif all(y <= x for x, y in zip(columns[i], columns[j])):
                    out.append(Candidate("le", pb, b=pa))
    return sorted(set(out))


# -- Houdini --------------------------------------------------------------------------------------


@dataclass
class Invariant:
    """A proved inductive invariant: the conjunction of ``conjuncts`` (and well-formedness)."""

    conjuncts: list[Candidate]
    reason: str = ""  # why there is none (``conjuncts`` is then empty and ``ok`` false)
    ok: bool = True
    candidates: int = 0

    def formula(self, enc: Encoding, k: int = 0) -> Any:
        return z3.And(enc.well_formed(k), *(c.formula(enc, k) for c in self.conjuncts))


class Stopped(Exception):
    """Z3 or the time budget stopped the computation."""


def _check(solver: Any, deadline: Deadline, assumptions: Sequence[Any] = ()) -> Any:
    if deadline.expired():
        raise Stopped("time budget spent")
    deadline.arm(solver)
    answer = solver.check(*assumptions)
    if answer == z3.unknown:
        raise Stopped(f"Z3 unknown: {solver.reason_unknown()}")
    return answer


def houdini(enc: Encoding, cands: Sequence[Candidate], deadline: Deadline) -> list[Candidate]:
    """The largest subset of ``cands`` that holds initially and is closed under the transition
    formula (raises :class:`Stopped` when Z3 or the budget gives up)."""
    keep = list(cands)
    # initiation: drop every candidate some initial state violates
    init = z3.Solver()
    init.add(enc.init(0))
    while keep:
        init.push()
        init.add(z3.Not(z3.And(*(c.formula(enc, 0) for c in keep))))
        answer = _check(init, deadline)
        if answer == z3.unsat:
            init.pop()
            break
        zm = init.model()
        init.pop()
        keep = [c for c in keep if z3.is_true(zm.eval(c.formula(enc, 0), model_completion=True))]
    try:
        return _consecution(enc, keep, deadline, finite_solver())
    except _Fragment:
        return _consecution(enc, keep, deadline, z3.Solver())


class _Fragment(Exception):
    """The finite-domain solver gave up on the formula (not on time)."""


def _consecution(
    enc: Encoding, keep: list[Candidate], deadline: Deadline, solver: Any
) -> list[Candidate]:
    guards = {c: z3.Bool(f"h!{i}") for i, c in enumerate(keep)}
    solver.add(enc.well_formed(0), enc.transition(0))
    for c, g in guards.items():
        solver.add(z3.Implies(g, c.formula(enc, 0)))
    while keep:
        solver.push()
        solver.add(z3.Not(z3.And(*(c.formula(enc, 1) for c in keep))))
        if deadline.expired():
            raise Stopped("time budget spent")
        deadline.arm(solver)
        answer = solver.check(*(guards[c] for c in keep))
        if answer == z3.unknown:
            reason = solver.reason_unknown()
            solver.pop()
            if general_solver_needed(solver) and "timeout" not in reason:
                raise _Fragment(reason)
            raise Stopped(f"Z3 unknown: {reason}")
        if answer == z3.unsat:
            solver.pop()
            break
        zm = solver.model()
        solver.pop()
        keep = [c for c in keep if z3.is_true(zm.eval(c.formula(enc, 1), model_completion=True))]
        # Every state reachable from the counterexample's first state satisfies the largest
        # inductive subset (that state satisfies all of it), so candidates false on any of them
        # go too: many rounds saved. Only the final, unsatisfiable query makes the answer.
        keep = _forward_filter(enc, zm, keep)
    return keep


#: States explored concretely from each Houdini counterexample.
FORWARD_STATES = 400


def _forward_filter(enc: Encoding, zm: Any, keep: list[Candidate]) -> list[Candidate]:
    from turnproof.checks.symbolic import concrete_moves
    from turnproof.model.ops import ConcreteOps

    model = enc.model
    x = ConcreteOps()
    start, _ = enc.decode(zm, 0)
    seen = {start}
    queue = [start]
    index = {p: i for i, p in enumerate(enc.paths[: len(enc.leaves)])}
    compiled = [_compile(c, index) for c in keep]
    alive = list(range(len(keep)))
    i = 0
    while i < len(queue) and len(seen) < FORWARD_STATES and alive:
        s = queue[i]
        i += 1
        for _, t, _ in concrete_moves(model, s):
            if t is None or t in seen:
                continue
            try:
                model.schema.check(t, x)
            except Exception:  # noqa: BLE001 - outside the domains: not a T-successor
                continue
            seen.add(t)
            queue.append(t)
            row = model.schema.flatten(t)
            alive = [k for k in alive if compiled[k](row)]
    return [keep[k] for k in alive]


def _compile(c: Candidate, index: dict[str, int]) -> Any:
    ia = index[c.a]
    if c.kind == "in":
        vs = frozenset(c.values)
        return lambda r: r[ia] in vs
    ib = index[c.b]
    if c.kind == "imp":
        v, vs = c.v, frozenset(c.values)
        return lambda r: r[ia] != v or r[ib] in vs
    if c.kind == "eq":
        return lambda r: r[ia] == r[ib]
    return lambda r: r[ia] <= r[ib]


def recheck(enc: Encoding, conjuncts: Sequence[Candidate], deadline: Deadline) -> str:
    """Why the conjunction is not an inductive invariant (fresh plain solvers); empty if it is."""
    inv0 = z3.And(enc.well_formed(0), *(c.formula(enc, 0) for c in conjuncts))
    inv1 = z3.And(*(c.formula(enc, 1) for c in conjuncts))
    checks = [
        ("initiation", z3.And(enc.init(0), z3.Not(inv0))),
        ("consecution", z3.And(inv0, enc.transition(0), z3.Not(inv1))),
    ]
    for name, formula in checks:
        s = z3.Solver()
        deadline.arm(s)
        s.add(formula)
        answer = s.check()
        if answer != z3.unsat:
            return f"{name} check answered {answer}"
    return ""


# -- one invariant per model per process (and on disk) ---------------------------------------------

_MEMO: dict[str, Invariant] = {}


def cache_key(model: Model) -> str:
    bounds = ",".join(f"{k}={v}" for k, v in sorted(model.bounds.items()))
    text = f"{GENERATOR}|{model.ruleset.name}|{model.ruleset.content_hash()}|{bounds}"
    return hashlib.sha256(text.encode()).hexdigest()[:24]


def cache_dir() -> str:
    return os.environ.get(
        "TURNPROOF_INVARIANT_CACHE", os.path.join(tempfile.gettempdir(), "turnproof-invariants")
    )


def _load(key: str) -> list[Candidate] | None:
    path = os.path.join(cache_dir(), f"{key}.json")
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
        return [Candidate.from_json(c) for c in data["conjuncts"]]
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _store(key: str, conjuncts: Iterable[Candidate]) -> None:
    folder = cache_dir()
    try:
        os.makedirs(folder, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=folder, suffix=".tmp")
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump({"conjuncts": [c.as_json() for c in conjuncts]}, f)
        os.replace(tmp, os.path.join(folder, f"{key}.json"))
    except OSError:
        pass  # no cache: the invariant is computed again next time


def infer(model: Model, enc: Encoding, deadline: Deadline) -> Invariant:
    """The model's inductive invariant (memoised per process, cached on disk), always
    re-checked on ``enc`` before it is returned; ``ok`` is false (with ``reason``) when there
    is none in the budget."""
    key = cache_key(model)
    found = _MEMO.get(key)
    conjuncts: list[Candidate] | None = None if found is None else found.conjuncts
    count = 0 if found is None else found.candidates
    if conjuncts is None:
        conjuncts = _load(key)
    fresh = conjuncts is None
    try:
        if conjuncts is None:
            cands = candidates(model, sample_columns(model))
            count = len(cands)
            conjuncts = houdini(enc, cands, deadline)
        problem = recheck(enc, conjuncts, deadline)
    except Stopped as exc:
        return Invariant([], reason=f"invariant inference: {exc}", ok=False)
    if problem:
        return Invariant([], reason=f"the inferred invariant did not check: {problem}", ok=False)
    inv = Invariant(conjuncts, candidates=count)
    _MEMO[key] = inv
    if fresh:
        _store(key, conjuncts)
    return inv


# -- the part of the invariant a proof needs -------------------------------------------------------


def support(
    enc: Encoding, conjuncts: Sequence[Candidate], q: Any, deadline: Deadline
) -> tuple[list[Candidate], bool] | None:
    """A subset of the invariant ``conjuncts`` that excludes the bad condition of the query
    ``q`` (a :class:`~turnproof.checks.proofs.Query`) and is inductive on its own, with
    ``relative`` true when it needs the property as an extra conjunct (the property is then
    inductive relative to it); ``None`` when the invariant does not prove the property. The
    subset comes from unsat cores, closed under the conjuncts each one's consecution needs."""
    guards = [z3.Bool(f"h!{i}") for i in range(len(conjuncts))]
    by_guard = {g.get_id(): i for i, g in enumerate(guards)}
    base = [enc.well_formed(0)] + [
        z3.Implies(g, c.formula(enc, 0)) for g, c in zip(guards, conjuncts)
    ]

    def core(*formulas: Any) -> set[int] | None:
        s = z3.Solver()
        s.add(*base, *formulas)
        answer = _check(s, deadline, guards)
        if answer == z3.sat:
            return None
        return {by_guard[g.get_id()] for g in s.unsat_core()}

    bad = q.at_origin()
    step_part = [enc.transition(0)] if q.steps else []
    relative = False
    found = core(bad, *step_part)
    good: list[Any] = []
    if found is None:
        if q.steps:
            return None
        relative = True
        good = [z3.Not(bad)]
        found = core(good[0], enc.transition(0), q.target(1))
        if found is None:
            return None
    chosen = set(found)
    while True:
        after = [conjuncts[i].formula(enc, 1) for i in sorted(chosen)]
        if relative:
            after.append(z3.Not(q.target(1)))
        more = core(*good, enc.transition(0), z3.Not(z3.And(*after)))
        if more is None:
            return None  # cannot happen for an inductive invariant; reported as not proved
        if more <= chosen:
            break
        chosen |= more
    return [conjuncts[i] for i in sorted(chosen)], relative
