"""Inductive invariants over the control fields, used to strengthen the unbounded proofs.

The invariant is the least fixed point of the rules in a finite abstract domain, computed on the
symbolic transition formula (so it covers every well-formed state, not only reached ones):

* the *fields* are the leaves that hold the game's control structure (enumerated leaves and
  sequence lengths) and the leaves the property reads; a property's monitor that it reads is a
  field too (``m.<name>``), with the state leaves its initial value is computed from (a history
  variable starts from what it mirrors, and the claims between the two say how it keeps
  mirroring it: ``m.made_0 == 1 -> ctrl_next[0] in {1}``);
* for each field ``a``, each value ``v`` of ``a`` and each other field ``b``, the domain keeps a
  set ``S(a, v, b)``: the claim ``a == v -> b in S`` (an empty set says ``a != v``), and for each
  field a set ``S(a)``: ``a in S``;
* a field whose range ends at an open bound keeps its fixed-bound values, the last standing for
  "that value or more" (``brace >= 2``), so the domain stays finite whatever the bound.

The sets start from the states the explicit engine reaches (``S(a, v, b)`` is the values ``b``
takes when ``a == v``; empty for a value never seen), at the model's bounds and at the low ends
of the open bounds' ranges, with the property's monitors when a field
is one (the product of the rules and the monitors). Each round asks Z3 for a transition from a
state that satisfies every claim to one that breaks a claim, and *widens* the broken claims with
the values of that successor (and of the states reachable from its predecessor) instead of
dropping them, the way an abstract interpreter joins. Every widening adds values to finite sets,
so the iteration ends; when Z3 finds no such transition, the claims that are not trivially true
form an inductive invariant. Starting below the least fixed point (reached states satisfy every
inductive invariant) and widening only with states that satisfy it, the iteration ends exactly at
the least fixed point of the domain: the strongest invariant it can express, the same on every
run. Houdini (Flanagan and Leino, 2001), which drops a broken claim instead of widening it, is
the special case of one fixed set per claim; widening keeps the claims a proof needs even when
the reached states make them too strong at first.

The invariant is re-checked on fresh solvers before use, is memoised per process and cached on
disk, keyed by the rule set's content hash, the bounds, the open bounds, the fields and the
definitions of the monitors among them.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import filelock
import numpy as np
import platformdirs
import z3
from turnproof.checks.bmc import Deadline, finite_solver
from turnproof.checks.cachefiles import write_whole
from turnproof.checks.explicit import dispatch_table, interpreted_expand
from turnproof.checks.symbolic import Encoding
from turnproof.model.errors import BoundsError, SchemaError
from turnproof.model.ops import ConcreteOps
from turnproof.model.properties import Monitor
from turnproof.model.rules import Model
from turnproof.model.schema import State, fits_checker

#: Reachable states sampled to start the sets (the exploration stops there).
MAX_SAMPLES = 100_000
#: Domain version: part of the cache key (the number of rounds a certificate shows depends on
#: the solver's settings, though the fixed point does not).
GENERATOR = 7
#: States explored concretely from each counterexample's first state (200 against 2,000: the
#: attacking-creature-taps invariant in 23.5 s against 47.5 s, in 216 rounds against 191).
FORWARD_STATES = 200


@dataclass(frozen=True, order=True)
class Candidate:
    """One claim over the leaves of a single state: ``a in values`` (``in``) or
    ``a == v -> b in values`` (``imp``), under the context ``c == u`` when ``c`` is set (a
    region of the rules, such as ``step == CLEANUP``). ``a_top``/``b_top``, when not -1, is the
    value of that field that stands for "this value or more" (its range ends at an open
    bound)."""

    kind: str  # "in" | "imp"
    a: str
    v: int = 0
    b: str = ""
    values: tuple[int, ...] = ()
    a_top: int = -1
    b_top: int = -1
    c: str = ""  # the context's field ("" for none); enumerated, so never open-ended
    u: int = 0

    def formula(self, enc: Encoding, k: int, memo: dict[Any, Any] | None = None) -> Any:
        """The claim over the variables of step ``k`` (``memo`` keeps the membership tests
        that many claims share, such as their antecedents)."""

        def member(path: str, values: tuple[int, ...], top: int) -> Any:
            if memo is None:
                return _member(enc.var(path, k), values, top)
            key = (path, k, values, top)
            got = memo.get(key)
            if got is None:
                got = memo[key] = _member(enc.var(path, k), values, top)
            return got

        if self.kind == "in":
            claim = member(self.a, self.values, self.a_top)
        else:
            claim = z3.Implies(
                member(self.a, (self.v,), self.a_top), member(self.b, self.values, self.b_top)
            )
        return z3.Implies(enc.var(self.c, k) == self.u, claim) if self.c else claim

    def holds(self, row: Sequence[int], index: dict[str, int]) -> bool:
        """The claim on a concrete row of leaf values."""
        if self.c and row[index[self.c]] != self.u:
            return True
        a = _cls(row[index[self.a]], self.a_top)
        if self.kind == "in":
            return a in self.values
        return a != self.v or _cls(row[index[self.b]], self.b_top) in self.values

    def render(self, enc: Encoding) -> str:
        """The claim with field names (enum values by name)."""
        context = f"{self.c} == {_show(enc, self.c, (self.u,))[1:-1]}: " if self.c else ""
        if self.kind == "in":
            return f"{context}{self.a} in {_show(enc, self.a, self.values, self.a_top)}"
        left = _show(enc, self.a, (self.v,), self.a_top)[1:-1]
        op = "" if left.startswith(">=") else "== "
        right = _show(enc, self.b, self.values, self.b_top)
        return f"{context}{self.a} {op}{left} -> {self.b} in {right}"

    def as_json(self) -> list[Any]:
        return [
            self.kind, self.a, self.v, self.b, list(self.values), self.a_top, self.b_top,
            self.c, self.u,
        ]  # fmt: skip

    @staticmethod
    def from_json(data: Sequence[Any]) -> Candidate:
        kind, a, v, b, values, a_top, b_top, c, u = data
        return Candidate(
            str(kind),
            str(a),
            int(v),
            str(b),
            tuple(int(x) for x in values),
            int(a_top),
            int(b_top),
            str(c),
            int(u),
        )


def _cls(value: int, top: int) -> int:
    return min(int(value), top) if top >= 0 else int(value)


def _member(v: Any, values: Sequence[int], top: int = -1) -> Any:
    if z3.is_bool(v):
        if len(values) == 1:
            return v if values[0] else z3.Not(v)
        return z3.BoolVal(len(values) > 1)
    parts = [v == c for c in values if c != top]
    if top >= 0 and top in values:
        parts.append(v >= top)
    return z3.Or(*parts) if len(parts) != 1 else parts[0]


def _show(enc: Encoding, path: str, values: Sequence[int], top: int = -1) -> str:
    d = enc.domains[enc.paths.index(path)]
    enum = getattr(d, "enum", None)
    if d.is_bool:
        shown = [str(bool(c)).lower() for c in values]
    elif enum is not None:
        shown = [enum(c).name for c in values]
    else:
        shown = [f">={c}" if c == top else str(c) for c in values]
    return "{" + ", ".join(shown) + "}"


# -- the domain -----------------------------------------------------------------------------------


def control_fields(enc: Encoding, *formulas: Any) -> list[str]:
    """The fields of the domain: enumerated leaves, sequence lengths, and the leaves that
    ``formulas`` (a property's bad condition) read, monitors included, with the state leaves
    that the initial value of each monitor read is computed from; in the order of the
    encoding (the schema's, then the monitors')."""
    read = set().union(*(leaves_of(enc, f) for f in formulas)) if formulas else set()
    read |= mirrored(enc, read)
    return [
        p
        for p, d in enc.tracked()
        if getattr(d, "enum", None) is not None or p.endswith(".len") or p in read
    ]


def mirrored(enc: Encoding, fields: Iterable[str]) -> set[str]:
    """The state leaves from which the initial values of the monitors among ``fields`` are
    computed, in any state (the monitor's ``init`` on the symbolic state of step 0)."""
    wanted = set(fields)
    out: set[str] = set()
    for mon in enc.monitors:
        if f"m.{mon.name}" not in wanted:
            continue
        start = mon.init(enc.state(0), enc.ops(), enc.bounds_at(0))
        if z3.is_expr(start):
            out |= leaves_of(enc, start)
    return out


def monitor_fields(enc: Encoding, fields: Iterable[str]) -> list[str]:
    """The monitors among ``fields``."""
    names = {f"m.{mon.name}" for mon in enc.monitors}
    return [p for p in fields if p in names]


def leaves_of(enc: Encoding, formula: Any) -> set[str]:
    """The leaves (of the state and of the monitors) that ``formula`` reads."""
    names = {p for p, _ in enc.tracked()}
    out: set[str] = set()
    seen: set[int] = set()
    todo = [formula]
    while todo:
        e = todo.pop()
        if e.get_id() in seen:
            continue
        seen.add(e.get_id())
        if z3.is_const(e) and e.decl().kind() == z3.Z3_OP_UNINTERPRETED:
            name = str(e).rsplit("@", 1)[0]
            if name in names:
                out.add(name)
            continue
        todo.extend(e.children())
    return out


def sample_columns(
    model: Model, max_states: int = MAX_SAMPLES, monitors: Sequence[Monitor] = ()
) -> list[bytes]:
    """The leaf values of the states the explicit engine reaches (one column per leaf, one byte
    per state; leaf domains are far below 256 values). With ``monitors``, the states of the
    product of the rules and the monitors, with a column for each monitor after the leaves'."""
    from turnproof.checks.encoding import NotEncodable
    from turnproof.checks.explicit import Limits, codec_for, explore

    ex = explore(model, monitors, limits=Limits(max_states=max_states))
    width = len(model.schema.leaves()) + len(monitors)
    try:
        codec = codec_for(model, tuple(monitors))
    except NotEncodable:
        codec = None
    if codec is not None and ex.states:
        # Each node encoded (a few look-ups), then every leaf's digit read off the codes at
        # once: the leaves in the order of the schema's, then the monitors'.
        encode = codec.encode
        codes = np.array([encode(node) for node in ex.iter_nodes()], dtype=np.uint64)
        digits = codec.digits(codes.reshape(len(codes), codec.words))
        return [digits[:, j].astype(np.uint8).tobytes() for j in range(width)]
    flatten = model.schema.flatten
    if monitors:
        rows = [[*flatten(ex.state(i)), *ex.monitor_values(i)] for i in range(ex.states)]
    else:
        rows = [flatten(ex.state(i)) for i in range(ex.states)]
    return [bytes(int(r[j]) for r in rows) for j in range(width)]


Context = tuple[str, int] | None  # a claim's context ``c == u``, or none


class Lattice:
    """The claims of the domain and their current sets (see the module's docstring), once
    without a context and once under each of ``contexts`` (``c == u``: the claims then speak of
    the states where ``c == u`` only, such as the states of a region). ``columns`` has one
    column per leaf of the state, then one per monitor of ``enc`` when a field is a monitor."""

    def __init__(
        self,
        enc: Encoding,
        fields: Sequence[str],
        columns: Sequence[bytes],
        contexts: Sequence[tuple[str, int]] = (),
    ) -> None:
        self.enc = enc
        leaves = enc.tracked()
        self.index = {p: i for i, (p, _) in enumerate(leaves)}
        if monitor_fields(enc, fields) and len(columns) < len(leaves):
            raise ValueError("a monitor is a field, but the samples have no column for it")
        fixed = dict(leaves)
        opened = {p for p, d in enc.schema_at(0).leaves() if not isinstance(d.hi, int)}
        self.fields = list(fields)
        self.contexts: list[Context] = [None, *contexts]
        self.top = {p: (fixed[p].hi if p in opened else -1) for p in self.fields}
        self.dom = {p: frozenset(range(fixed[p].lo, fixed[p].hi + 1)) for p in self.fields}
        everything = (1 << len(columns[0])) - 1 if columns and columns[0] else 0
        used = dict.fromkeys([*self.fields, *(c for c, _ in contexts)])
        all_masks = {p: _masks(columns[self.index[p]]) for p in used}
        self.ins: dict[tuple[Context, str], set[int]] = {}
        self.imps: dict[tuple[Context, str, int, str], set[int]] = {}
        for ctx in self.contexts:
            inside = everything
            if ctx is not None:
                inside = all_masks[ctx[0]].get(ctx[1], 0)
            masks = {
                p: {w: m & inside for w, m in all_masks[p].items() if m & inside}
                for p in self.fields
            }
            for a in self.fields:
                if len(masks[a]) < len(self.dom[a]):
                    self.ins[(ctx, a)] = set(masks[a])
                for v in sorted(self.dom[a]):
                    ma = masks[a].get(v, 0)
                    for b in self.fields:
                        if b == a:
                            continue
                        got = {w for w, mb in masks[b].items() if ma & mb}
                        if len(got) < len(self.dom[b]):
                            self.imps[(ctx, a, v, b)] = got
        self._made: dict[Any, Candidate] = {}
        #: The rows widened with so far, as the claims see them (each field's class, each
        #: context's field): a row seen before breaks no claim, since the sets only grow.
        self._widened: set[tuple[int, ...]] = set()
        self._context_at = [self.index[c] for c, _ in contexts]
        self.by_value: dict[tuple[Context, str, int], list[str]] = {}
        for ctx, a, v, b in self.imps:
            self.by_value.setdefault((ctx, a, v), []).append(b)

    def claims(self) -> list[Candidate]:
        """The claims that are not trivially true, in a fixed order."""
        return sorted(self.current())

    def current(self) -> list[Candidate]:
        """The claims that are not trivially true, in the tables' order (each built once per
        change of its set)."""
        made = self._made
        out = []
        for key, got in self.ins.items():
            c = made.get(key)
            if c is None:
                ctx, a = key
                c = made[key] = Candidate(
                    "in", a, values=tuple(sorted(got)), a_top=self.top[a], **_ctx(ctx)
                )
            out.append(c)
        for key4, got in self.imps.items():
            c = made.get(key4)
            if c is None:
                ctx, a, v, b = key4
                c = made[key4] = Candidate(
                    "imp", a, v, b, tuple(sorted(got)), self.top[a], self.top[b], **_ctx(ctx)
                )
            out.append(c)
        return out

    def widen(self, row: Sequence[int]) -> None:
        """Widen every claim the concrete row of leaf values breaks, so that it holds."""
        cls = {p: _cls(row[self.index[p]], self.top[p]) for p in self.fields}
        seen = (*cls.values(), *(row[i] for i in self._context_at))
        if seen in self._widened:
            return
        self._widened.add(seen)
        for ctx in self.contexts:
            if ctx is not None and row[self.index[ctx[0]]] != ctx[1]:
                continue
            for key in [k for k in self.ins if k[0] == ctx]:
                a = key[1]
                if cls[a] not in self.ins[key]:
                    self._grow(self.ins, key, cls[a], self.dom[a])
            for a in self.fields:
                bs = self.by_value.get((ctx, a, cls[a]))
                if not bs:
                    continue
                kept = []
                for b in bs:
                    key2 = (ctx, a, cls[a], b)
                    if cls[b] not in self.imps[key2]:
                        self._grow(self.imps, key2, cls[b], self.dom[b])
                    if key2 in self.imps:
                        kept.append(b)
                self.by_value[(ctx, a, cls[a])] = kept

    def _grow(self, table: dict[Any, set[int]], key: Any, value: int, dom: frozenset[int]) -> None:
        self._made.pop(key, None)
        got = table[key]
        if value not in dom:
            del table[key]  # outside the fixed-bound values: the claim cannot say it
            return
        got.add(value)
        if len(got) == len(dom):
            del table[key]  # every value: trivially true


def _ctx(ctx: Context) -> dict[str, Any]:
    return {} if ctx is None else {"c": ctx[0], "u": ctx[1]}


def _masks(column: bytes) -> dict[int, int]:
    """For each value in the column, the states that have it, as the bits of an integer."""
    out = {}
    for v in sorted(set(column)):
        mapping = bytes(1 if c == v else 0 for c in range(256))
        out[v] = int.from_bytes(column.translate(mapping), "big")
    return out


# -- the fixed point ------------------------------------------------------------------------------


@dataclass
class Invariant:
    """A proved inductive invariant: the conjunction of ``conjuncts`` (and well-formedness)."""

    conjuncts: list[Candidate]
    reason: str = ""  # why there is none (``conjuncts`` is then empty and ``ok`` false)
    ok: bool = True
    rounds: int = 0
    fields: tuple[str, ...] = ()
    #: Whether it was checked to be an inductive invariant in this process: false for one read
    #: back from the cache for a caller whose proof checks it whole (``infer(verify=False)``).
    verified: bool = field(default=True, compare=False)
    _formulas: dict[tuple[int, int], tuple[Encoding, Any]] = field(
        default_factory=dict, repr=False, compare=False
    )

    def formula(self, enc: Encoding, k: int = 0) -> Any:
        """The invariant over the variables of step ``k`` (built once per encoding and step:
        a proof asks for it several times)."""
        key = (id(enc), k)
        got = self._formulas.get(key)
        if got is None:
            memo: dict[Any, Any] = {}
            got = z3.And(enc.well_formed(k), *(c.formula(enc, k, memo) for c in self.conjuncts))
            self._formulas[key] = (enc, got)  # the encoding kept alive: its id stays its own
            return got
        return got[1]


class Stopped(Exception):
    """Z3 or the time budget stopped the computation."""


def _check(solver: Any, deadline: Deadline, assumptions: Sequence[Any] = ()) -> Any:
    if deadline.expired():
        raise Stopped("time budget spent")
    deadline.arm(solver)
    if assumptions:
        # Solver.check(*assumptions) without the Python API's per-argument coercion
        # (thousands of Boolean constants in every round).
        array = (z3.Ast * len(assumptions))()
        for i, lit in enumerate(assumptions):
            array[i] = lit.as_ast()
        code = z3.Z3_solver_check_assumptions(
            solver.ctx.ref(), solver.solver, len(assumptions), array
        )
        answer = z3.CheckSatResult(code)
    else:
        answer = solver.check()
    if answer == z3.unknown:
        raise Stopped(f"Z3 unknown: {solver.reason_unknown()}")
    return answer


def _or(literals: Sequence[Any]) -> Any:
    """``z3.Or`` of Boolean constants without the Python API's per-argument coercion (thousands
    of literals in every round)."""
    if not literals:
        return z3.BoolVal(False)
    ctx = literals[0].ctx
    array = (z3.Ast * len(literals))()
    for i, lit in enumerate(literals):
        array[i] = lit.as_ast()
    return z3.BoolRef(z3.Z3_mk_or(ctx.ref(), len(literals), array), ctx)


def _row(enc: Encoding, zm: Any, k: int) -> list[int]:
    """The values of the state's leaves and the monitors at step ``k`` in the Z3 model."""
    out = []
    for v in enc.tracked_vars(k):
        val = zm.eval(v, model_completion=True)
        out.append(int(z3.is_true(val)) if z3.is_bool(v) else val.as_long())
    return out


def fixed_point(lat: Lattice, deadline: Deadline) -> tuple[list[Candidate], int]:
    """Widen ``lat`` until its claims are inductive; the claims and the number of rounds (raises
    :class:`Stopped` when Z3 or the budget gives up)."""
    enc = lat.enc
    init = z3.Solver()
    init.add(enc.init(0))
    while True:
        init.push()
        init.add(z3.Not(z3.And(*(c.formula(enc, 0) for c in lat.claims()))))
        answer = _check(init, deadline)
        zm = init.model() if answer == z3.sat else None
        init.pop()
        if zm is None:
            break
        lat.widen(_row(enc, zm, 0))
    if enc.open_bounds:
        solver = z3.Solver()
        # Every atom handed to the theories at once rather than only those the Boolean search
        # finds relevant: the rounds' queries answered about 30% sooner in all (the invariants of
        # attacking-creature-taps, resolves-after-all-pass and sarkhan-is-attacked: 41.3, 30.5
        # and 41.8 s before; 29.8, 21.4 and 30.8 s after), though the counterexamples differ
        # and so does the number of rounds. The fixed point is the same: it is the least one.
        solver.set("smt.relevancy", 0)
    else:
        solver = finite_solver()
    # Each round with a counterexample reads a model; Z3 compacts a model's function graphs by
    # default, which here is most of the cost of reading it, in a solver holding thousands of
    # claims' literals: end-the-turn-terminates' region invariant read its 251 models in 0.84 s
    # instead of 3.3 s (16.8 s to 14.5 s in all, four paired runs), the same 252 rounds.
    solver.set("compact", False)
    # The transition formula one rule instance at a time, each under an assumption of its own
    # (the disjunction of the instances' steps, with the step after well formed): each round
    # asks the instance that broke a claim last first, then the others, so that a round with a
    # counterexample usually asks once, and only the last round asks every instance.
    solver.add(enc.well_formed(0))
    steps = list(assume_steps(solver, enc))
    literals: dict[Candidate, tuple[Any, Any]] = {}
    memo: dict[Any, Any] = {}

    def literal(c: Candidate) -> tuple[Any, Any]:
        got = literals.get(c)
        if got is None:
            n = len(literals)
            pre, post = z3.Bool(f"pre!{n}"), z3.Bool(f"post!{n}")
            solver.add(z3.Implies(pre, c.formula(enc, 0, memo)))
            solver.add(z3.Implies(post, z3.Not(c.formula(enc, 1, memo))))
            got = literals[c] = (pre, post)
        return got

    forward = _Forward(enc)
    # Each round first asks for a counterexample whose open bounds lie within the ranges the
    # rule set accepts, and only when there is none for one beyond them: the first state of an
    # in-range counterexample is a model the concrete exploration (_Forward) can run, and the
    # states reached from it widen the claims many at a time. Beyond the ranges there is no
    # model to run, and Z3 picks values such as turns=154019 when left free: then each round
    # widened the claims with one state. On the invariants of attacking-creature-taps,
    # sarkhan-is-attacked and resolves-after-all-pass, 469, 461 and 397 rounds became 216, 199
    # and 176, and 29.4, 34.4 and 36.3 s became 23.5, 28.9 and 25.3 s (one run each, this
    # machine). The fixed point is the same: it is the least one.
    in_range = None
    if enc.open_bounds:
        in_range = z3.Bool("in_range!")
        ranges = [
            z3.And(v >= spec.lo, v <= spec.hi) for v, spec in zip(enc.param_vars(0), enc.open_specs)
        ]
        solver.add(z3.Implies(in_range, z3.And(*ranges)))
    rounds = 0
    last = 0  # the rule instance that broke a claim in the last round
    while True:
        rounds += 1
        claims = lat.current()
        lits = [literal(c) for c in claims]
        goal = z3.Bool(f"round!{rounds}")
        solver.add(z3.Implies(goal, _or([post for _, post in lits])))
        pres = [pre for pre, _ in lits]
        answer = z3.unsat
        for extra in ([in_range] if in_range is not None else []) + [None]:
            asked = [goal, *([extra] if extra is not None else []), *pres]
            for n in range(len(steps)):
                i = (last + n) % len(steps)
                answer = _check(solver, deadline, [steps[i], *asked])
                if answer == z3.sat:
                    last = i
                    break
            if answer == z3.sat:
                break
        if answer == z3.unsat:
            return sorted(claims), rounds
        zm = solver.model()
        lat.widen(_row(enc, zm, 1))
        # The first state satisfies every claim, hence the least fixed point: so does every
        # state reachable from it, and widening with them stays below it.
        for row in forward.rows(zm):
            lat.widen(row)


class _Forward:
    """Concrete exploration from a counterexample's first state, with its open bound values
    (and the monitors of the encoding, updated as the explicit engine does). The states met in
    earlier rounds are not met again: the sets only grow, so a state that the claims were
    widened with keeps satisfying them, and a state whose successors were all given needs no
    second visit."""

    def __init__(self, enc: Encoding) -> None:
        self.enc = enc
        self.models: dict[tuple[tuple[str, int], ...], Model | None] = {}
        #: Per value of the open bounds: the states given, and those whose successors were.
        self.given: dict[tuple[tuple[str, int], ...], set[Any]] = {}
        self.expanded: dict[tuple[tuple[str, int], ...], set[Any]] = {}
        self.fits: dict[tuple[tuple[str, int], ...], Callable[[State], bool]] = {}
        #: Per value of the open bounds: the dispatch field and its successor functions.
        self.expand: dict[tuple[tuple[str, int], ...], tuple[int, Any]] = {}

    def model(self, params: tuple[tuple[str, int], ...]) -> Model | None:
        if params not in self.models:
            base = self.enc.model
            try:
                self.models[params] = Model(base.ruleset, {**dict(base.bounds), **dict(params)})
            except BoundsError:
                self.models[params] = None
        return self.models[params]

    def rows(self, zm: Any) -> Iterable[list[int]]:
        params = tuple(sorted(self.enc.decode_params(zm).items()))
        model = self.model(params)
        if model is None:
            return
        given = self.given.setdefault(params, set())
        expanded = self.expanded.setdefault(params, set())
        fits = self.fits.get(params)
        if fits is None:
            fits = self.fits[params] = fits_checker(model.schema)
        got = self.expand.get(params)
        if got is None:
            # The explicit engine's interpreted successors: only the rule instances that can
            # fire at the state's stage are run (not every one, with an exception for each
            # disabled one), and a terminal state has none, as in the transition formula.
            # Compiling the rules instead would cost more than it saves: nearly every
            # counterexample comes with other values of the open bounds.
            field_index, table = dispatch_table(model)
            got = self.expand[params] = (field_index, interpreted_expand(model, table))
        field_index, expand = got
        actions = model.actions
        x, b = ConcreteOps(), model.bounds
        mons, mcls = self.enc.monitors, self.enc.monitor_cls
        start = self.enc.decode(zm, 0)
        queue = [start]
        seen = {start}
        i = new = 0
        while i < len(queue) and new < FORWARD_STATES:
            node = queue[i]
            i += 1
            if node in expanded:
                continue
            s, m = node
            for ai, t in expand[s[field_index]](s):
                if ai < 0:
                    continue  # a bound cuts it
                mt = None
                if mcls is not None:
                    rule = actions[ai].rule
                    mt = mcls(*(mon.update(s, t, rule, m, x, b) for mon in mons))
                succ = (t, mt)
                if succ in seen:
                    continue
                seen.add(succ)
                if succ in given:
                    queue.append(succ)
                    continue
                if not fits(t):
                    continue  # outside the domains: not a successor
                given.add(succ)
                queue.append(succ)
                new += 1
                yield [int(v) for v in [*model.schema.flatten(t), *(mt or ())]]
            expanded.add(node)


def recheck(enc: Encoding, conjuncts: Sequence[Candidate], deadline: Deadline) -> str:
    """Why the conjunction is not an inductive invariant (fresh plain solvers); empty if it is."""
    memo0: dict[Any, Any] = {}
    memo1: dict[Any, Any] = {}
    inv0 = z3.And(enc.well_formed(0), *(c.formula(enc, 0, memo0) for c in conjuncts))
    inv1 = z3.And(*(c.formula(enc, 1, memo1) for c in conjuncts))
    s = z3.Solver()
    deadline.arm(s)
    s.add(z3.And(enc.init(0), z3.Not(inv0)))
    answer = s.check()
    if answer == z3.unknown:
        return f"initiation check undecided ({s.reason_unknown()})"
    if answer != z3.unsat:
        return f"initiation check answered {answer}"
    answer, why = step_closed(enc, inv0, inv1, deadline)
    if answer == z3.unknown:
        return f"consecution check undecided ({why})"
    if answer != z3.unsat:
        return f"consecution check answered {answer}"
    return ""


def step_closed(enc: Encoding, before: Any, after: Any, deadline: Deadline) -> tuple[Any, str]:
    """Z3's answer to the consecution check ``before(0) and transition(0) and not after(1)``
    (``unsat``: no step leaves it), with Z3's reason when ``unknown``. Asked one rule instance
    at a time, each under an assumption of its own, of one fresh solver that holds the rest:
    the transition formula is the disjunction of the instances' steps (with the step after
    well formed), so the answer is the same, and Z3's incremental core, which keeps what it
    learnt about the states from one instance to the next, answers it in half the time or less
    on the default Magic model (1.0 s against 2.8 s for an invariant of 1,548 claims)."""
    s = z3.Solver()
    s.add(before, z3.Not(after))
    for asked in assume_steps(s, enc):
        deadline.arm(s)
        answer = s.check(asked)
        if answer != z3.unsat:
            return answer, s.reason_unknown() if answer == z3.unknown else ""
    return z3.unsat, ""


def assume_steps(solver: Any, enc: Encoding) -> Iterator[Any]:
    """Assert in ``solver`` step 1 well formed, then, as they are asked for, each rule
    instance's step from step 0 to step 1 under an assumption of its own; yields the
    assumptions, by instance. The transition formula is the disjunction of these steps, so
    asking under each assumption in turn answers for the whole formula, one instance at a time
    (the ``act`` variable, which only names the instance, is left out). A check that may stop
    at the first instance adds the others only if it goes on (about 10% sooner for the
    consecution checks than adding them all first)."""
    solver.add(enc.well_formed(1))
    for i in range(len(enc.model.actions)):
        lit = z3.Bool(f"step!{i}")
        solver.add(z3.Implies(lit, enc.step_formula(0, i)))
        yield lit


# -- one invariant per model per process (and on disk) ---------------------------------------------

_MEMO: dict[str, Invariant] = {}
_COLUMNS: dict[str, list[bytes]] = {}


def cache_key(
    model: Model,
    enc: Encoding,
    fields: Sequence[str],
    contexts: Sequence[tuple[str, int]] = (),
) -> str:
    bounds = ",".join(f"{k}={v}" for k, v in sorted(model.bounds.items()))
    text = (
        f"{GENERATOR}|{model.ruleset.name}|{model.ruleset.content_hash()}|{bounds}"
        f"|open={','.join(enc.open_bounds)}|fields={','.join(fields)}"
        f"|contexts={','.join(f'{c}={u}' for c, u in contexts)}"
    )
    watched = set(monitor_fields(enc, fields))
    if watched:
        # The updates of the monitors among the fields are part of the transitions the claims
        # are closed under (the other monitors' are not: the claims do not speak of them, so
        # properties that read the same monitors share the invariant).
        text += "|monitors=" + ",".join(
            f"{m.name}:{_where(m.init)}:{_where(m.update)}"
            for m in enc.monitors
            if f"m.{m.name}" in watched
        )
    return hashlib.sha256(text.encode()).hexdigest()[:24]


def _where(f: Any) -> str:
    """Where a function is defined, to tell apart monitors that share a name."""
    return f"{getattr(f, '__module__', '')}.{getattr(f, '__qualname__', repr(f))}"


#: The environment variable that names the invariant cache's folder.
CACHE_ENV = "TURNPROOF_INVARIANT_CACHE"


def cache_dir() -> str:
    """The invariant cache's folder: ``$TURNPROOF_INVARIANT_CACHE``, else ``invariants`` in
    the per-user cache folder (``platformdirs``: ``~/.cache/turnproof`` on Linux), not a
    shared temporary folder that other users could write into."""
    given = os.environ.get(CACHE_ENV)
    if given:
        return given
    return os.path.join(platformdirs.user_cache_dir("turnproof", appauthor=False), "invariants")


def _load(key: str) -> tuple[list[Candidate], int] | None:
    path = os.path.join(cache_dir(), f"{key}.json")
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
        return [Candidate.from_json(c) for c in data["conjuncts"]], int(data["rounds"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _store(key: str, conjuncts: Iterable[Candidate], rounds: int) -> None:
    # No cache: the invariant is computed again next time.
    data = {"conjuncts": [c.as_json() for c in conjuncts], "rounds": rounds}
    write_whole(cache_dir(), f"{key}.json", lambda f: json.dump(data, f))


def columns(
    model: Model, monitors: Sequence[Monitor] = (), open_bounds: Sequence[str] = ()
) -> list[bytes]:
    """The sampled reached states of ``model`` (of its product with ``monitors``, when given),
    then those of the models at the low ends of ``open_bounds`` (:func:`low_ends`), once per
    process, and kept in the invariant cache for the other processes and runs."""
    key = f"{model.ruleset.name}|{model.ruleset.content_hash()}|{sorted(model.bounds.items())}"
    if monitors:
        key += f"|{','.join(m.name for m in monitors)}"
    key += f"|open={','.join(open_bounds)}"
    got = _COLUMNS.get(key)
    if got is not None:
        return got
    width = len(model.schema.leaves()) + len(monitors)
    stamp = f"{GENERATOR}|{MAX_SAMPLES}|{LOW_END_SAMPLES}|{key}"
    name = "seeds-" + hashlib.sha256(stamp.encode()).hexdigest()[:24]
    # Under the seeds' lock, so that a worker process that needs the same seeds waits and reads
    # them back (sampling them takes seconds: nine explorations on the default Magic model);
    # past SEEDING_WAIT_S, or without a writable cache folder, without it.
    with _cache_lock(name, SEEDING_WAIT_S):
        got = _load_columns(name, width)
        if got is None:
            got = sample_columns(model, monitors=monitors)
            for values in low_ends(model, open_bounds):
                try:
                    other = Model(model.ruleset, {**dict(model.bounds), **values})
                    more = sample_columns(other, LOW_END_SAMPLES, monitors)
                except (BoundsError, SchemaError):
                    # A combination the rule set refuses, or where a scenario's start does not
                    # fit (a pool of 1 with energy at 0): no state to sample there.
                    continue
                got = [a + b for a, b in zip(got, more)]
            _store_columns(name, got)
    _COLUMNS[key] = got
    return got


#: Seconds a process waits for another that samples the same states before it samples them
#: itself.
SEEDING_WAIT_S = 300.0


@contextlib.contextmanager
def _cache_lock(name: str, timeout: float) -> Iterator[bool]:
    """Hold the lock ``name`` of the cache folder (waiting ``timeout`` seconds at most):
    whether it was taken in time. Without a writable cache folder there is no lock to take,
    and nothing to share: ``True``."""
    try:
        os.makedirs(cache_dir(), exist_ok=True)
        lock = filelock.FileLock(os.path.join(cache_dir(), f"{name}.lock"))
        lock.acquire(timeout=timeout)
    except filelock.Timeout:
        yield False
        return
    except OSError:
        yield True
        return
    try:
        yield True
    finally:
        lock.release()


def _load_columns(name: str, width: int) -> list[bytes] | None:
    """The seeds stored as ``name``, when they are there whole (one column per leaf and
    monitor, all of one length); ``None`` otherwise. Seeds only spare rounds of the fixed
    point (it is the least one whatever states seed it), so a stale file costs time, not
    soundness."""
    try:
        with np.load(os.path.join(cache_dir(), f"{name}.npz")) as data:
            table = data["columns"]
    except (OSError, ValueError, KeyError, EOFError):
        return None
    if table.dtype != np.uint8 or table.ndim != 2 or table.shape[0] != width:
        return None
    return [row.tobytes() for row in table]


def _store_columns(name: str, got: Sequence[bytes]) -> None:
    """Keep the seeds (compressed, written whole: a temporary file, then a rename)."""
    if not got or any(len(c) != len(got[0]) for c in got):
        return
    # No cache: the states are sampled again next time.
    table = np.frombuffer(b"".join(got), dtype=np.uint8).reshape(len(got), -1)
    write_whole(
        cache_dir(), f"{name}.npz", lambda f: np.savez_compressed(f, columns=table), binary=True
    )


#: States sampled from each model of :func:`low_ends`.
LOW_END_SAMPLES = 20_000


def low_ends(model: Model, open_bounds: Sequence[str]) -> list[dict[str, int]]:
    """The values of the open bounds, besides the model's own, whose reachable states seed the
    claims too: every open bound at the low end of its range, then each one alone there.

    Counterexamples to induction come from every value of the open bounds, and each one costs
    a round of the fixed point; states reachable at other values satisfy the least fixed point
    just as well, so starting from them only saves rounds (on the default Magic model's control
    properties, about a third of them), and the fixed point reached is the same."""
    specs = {s.name: s for s in model.ruleset.bound_specs}
    low = {n: specs[n].lo for n in open_bounds if n in specs}
    out: list[dict[str, int]] = []
    for values in [low, *({n: v} for n, v in low.items())]:
        if any(model.bounds[n] != v for n, v in values.items()) and values not in out:
            out.append(values)
    return out


def infer(
    model: Model,
    enc: Encoding,
    deadline: Deadline,
    fields: Sequence[str] | None = None,
    contexts: Sequence[tuple[str, int]] = (),
    verify: bool = True,
) -> Invariant:
    """The least fixed point of the domain over ``fields`` (default: the control fields), with
    claims also under each of ``contexts``, on ``enc`` (memoised per process, cached on disk;
    one read back from the disk is re-checked on ``enc``, unless ``verify`` is false: for a
    caller whose proof checks the invariant's initiation and consecution itself, as every
    proof by the control invariant does, on fresh solvers, so that they are not checked twice);
    ``ok`` is false (with ``reason``) when there is none in the budget."""
    fields = tuple(fields if fields is not None else control_fields(enc))
    contexts = tuple(contexts)
    key = cache_key(model, enc, fields, contexts)
    found = _MEMO.get(key)
    if found is not None and (found.verified or not verify):
        return found
    try:
        with _inferring(key, deadline):
            return _infer(model, enc, deadline, key, fields, contexts, verify)
    except Stopped as exc:
        return Invariant([], reason=f"invariant inference: {exc}", ok=False, fields=fields)


@contextlib.contextmanager
def _inferring(key: str, deadline: Deadline) -> Iterator[None]:
    """Hold the cache entry's lock while the invariant is read or inferred, so that a property
    checked in another worker process that needs the same invariant waits for it and reads it
    back instead of inferring it a second time (the fixed point is the same). Without a
    writable cache folder, no lock."""
    with _cache_lock(key, max(deadline.left(), 0.0)) as taken:
        if not taken:
            raise Stopped("time budget spent waiting for another process inferring it")
        yield


def _infer(
    model: Model,
    enc: Encoding,
    deadline: Deadline,
    key: str,
    fields: tuple[str, ...],
    contexts: tuple[tuple[str, int], ...],
    verify: bool = True,
) -> Invariant:
    unverified = _MEMO.get(key)  # read back before, for a caller that did not verify it
    loaded = (unverified.conjuncts, unverified.rounds) if unverified else _load(key)
    conjuncts, rounds = loaded if loaded is not None else (None, 0)
    if conjuncts is None:
        watched = enc.monitors if monitor_fields(enc, fields) else ()
        seeds = columns(model, watched, enc.open_bounds)
        conjuncts, rounds = fixed_point(Lattice(enc, fields, seeds, contexts), deadline)
        problem = ""  # the fixed point's last query was the consecution check
    elif not verify:
        inv = Invariant(conjuncts, rounds=rounds, fields=fields, verified=False)
        _MEMO[key] = inv
        return inv
    else:
        problem = recheck(enc, conjuncts, deadline)  # read back: it may be stale
    if problem:
        _MEMO.pop(key, None)
        return Invariant(
            [], reason=f"the inferred invariant did not check: {problem}", ok=False, fields=fields
        )
    inv = Invariant(conjuncts, rounds=rounds, fields=fields)
    _MEMO[key] = inv
    if loaded is None:
        _store(key, conjuncts, rounds)
    return inv


# -- the part of the invariant a proof needs -------------------------------------------------------


def support(
    enc: Encoding, conjuncts: Sequence[Candidate], q: Any, deadline: Deadline
) -> tuple[list[Candidate], bool] | None:
    """The claims of the invariant ``conjuncts`` that the proof of the query ``q`` (a
    :class:`~turnproof.checks.proofs.Query`) uses, from an unsat core, with ``relative`` true
    when the property is not implied but inductive relative to the invariant; ``None`` when the
    invariant does not prove the property. The claims are part of the invariant, not an
    invariant of their own: the proof rests on the whole conjunction."""
    guards = [z3.Bool(f"h!{i}") for i in range(len(conjuncts))]
    by_guard = {g.get_id(): i for i, g in enumerate(guards)}
    base = [enc.well_formed(0)] + [
        z3.Implies(g, c.formula(enc, 0)) for g, c in zip(guards, conjuncts)
    ]

    def core(*formulas: Any) -> list[Candidate] | None:
        s = z3.Solver()
        s.add(*base, *formulas)
        answer = _check(s, deadline, guards)
        if answer == z3.sat:
            return None
        return [conjuncts[i] for i in sorted(by_guard[g.get_id()] for g in s.unsat_core())]

    bad = q.at_origin()
    step_part = [enc.transition(0)] if q.steps else []
    found = core(bad, *step_part)
    if found is not None:
        return found, False
    if q.steps:
        return None
    found = core(z3.Not(bad), enc.transition(0), q.target(1))
    return None if found is None else (found, True)
