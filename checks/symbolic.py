"""The symbolic engine: the very same rule functions, run on Z3 terms, give the transition formula.

A rule is a Python function over a state and an operations object (``model/ops.py``). The
explicit engine hands it concrete values and :class:`~turnproof.model.ops.ConcreteOps`; this
module hands it a state whose leaves are Z3 variables and :class:`SymbolicOps`, whose methods
build formulas instead of computing values. What comes back is the successor *as terms*, and the
guards the rule met on the way. No rule is written twice.

Variables are named after the schema's leaf paths and a time step, as in pySMT's model-checking
example: ``step@3``, ``stk.len@3``, ``u[1]@0``; monitors are ``m.<name>@k`` and the rule instance
that fires between step ``k`` and ``k + 1`` is ``act@k`` (the index of ``model.actions``), so a
satisfying assignment says which rule fired and a trace cites it.

Modelling decisions:

* Guards are kept apart: ``x.require`` conjuncts decide whether the rule is enabled,
  ``x.within`` conjuncts are kept with the name of their bound, so that a result can say which
  declared bounds cut a transition. As in the concrete engine, a bound counts as *reached* only
  when every guard met before it held.
* ``x.when(cond, update, value)`` evaluates ``update`` under the path condition ``cond``: a guard
  raised inside it only constrains the states where ``cond`` holds, exactly as the concrete
  engine, which skips ``update`` when ``cond`` is false.
* Every state, current or next, is constrained to the schema's domains (``schema.well_formed``),
  so a rule that writes outside its field's domain without an ``x.within`` guard loses that
  transition here while the explicit engine keeps it; the cross-check reports the difference.

>>> from turnproof.model.bench import BENCH
>>> from turnproof.model.rules import Model
>>> enc = Encoding(Model(BENCH, {"turns": 1, "cap": 2, "budget": 1, "cmax": 1}))
>>> str(enc.leaf_vars(3)[0])
'turn@3'
>>> s = z3.Solver()
>>> s.add(enc.init(0), enc.transition(0), enc.var("step", 1) == 1)
>>> s.check()
sat
>>> enc.model.actions[s.model().eval(enc.act_var(0)).as_long()].rule.citation
'MTG 502.4'
"""

from __future__ import annotations

import dataclasses
import functools
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import CancelledError, Future
from dataclasses import dataclass
from typing import Any
from weakref import WeakKeyDictionary

import z3
from turnproof.checks import workers
from turnproof.checks.results import Interrupted, PropertyResult, Trace, Verdict
from turnproof.checks.traces import step_record
from turnproof.model.errors import BoundsError, ModelError, UnknownNameError
from turnproof.model.ops import BoundReached, ConcreteOps, Disabled
from turnproof.model.properties import Monitor, Property, _monitor_class
from turnproof.model.rules import Action, Bounds, BoundSpec, Model
from turnproof.model.schema import EnumDomain, Leaf, Schema, Seq, State, Term

# -- lifting Python values into Z3 ----------------------------------------------------------------


def is_term(v: Any) -> bool:
    """True for a Z3 expression (as opposed to a plain Python value)."""
    return isinstance(v, z3.ExprRef)


def as_bool(v: Any) -> Any:
    """A Z3 Boolean for a condition: Python truthiness for plain values, ``!= 0`` for an Int."""
    if is_term(v):
        return v if z3.is_bool(v) else v != 0
    return z3.BoolVal(bool(v))


def as_int(v: Any) -> Any:
    """A Z3 Int for a number (a Boolean counts as 0 or 1, as it does in Python)."""
    if is_term(v):
        return z3.If(v, z3.IntVal(1), z3.IntVal(0)) if z3.is_bool(v) else v
    return z3.IntVal(int(v))


def lift_like(v: Any, like: Any) -> Any:
    """``v`` as a Z3 term of the sort of the term ``like``."""
    return as_bool(v) if z3.is_bool(like) else as_int(v)


def lift_pair(a: Any, b: Any) -> tuple[Any, Any]:
    """Two leaves as Z3 terms of one sort: the sort of whichever is a term, Bool when either is a
    Python ``bool`` (the all-zero empty slot writes ``0`` for a Boolean field), Int otherwise."""
    if is_term(a):
        return a, lift_like(b, a)
    if is_term(b):
        return lift_like(a, b), b
    if isinstance(a, bool) or isinstance(b, bool):
        return as_bool(a), as_bool(b)
    return as_int(a), as_int(b)


def const_value(v: Any) -> Any:
    """The Python value of a plain value or of a Z3 literal; ``None`` for any other term."""
    if not is_term(v):
        return v
    if z3.is_true(v):
        return True
    if z3.is_false(v):
        return False
    if z3.is_int_value(v):
        return v.as_long()
    return None


# -- the operations object ---------------------------------------------------------------------


@dataclass(frozen=True)
class Guard:
    """One guard met while running a rule: a ``require`` (bound ``None``) or a ``within``."""

    cond: Any  # a Z3 Boolean (already weakened by the path condition)
    bound: str | None


class SymbolicOps:
    """The operations protocol on Z3 terms. Guards are collected, not raised."""

    def __init__(self) -> None:
        self.guards: list[Guard] = []
        self._path: list[Any] = []
        #: A guard that is false whatever the state: the rule is never enabled.
        self.dead = False

    # -- guards ---------------------------------------------------------------------------
    def _guard(self, cond: Term, bound: str | None) -> None:
        c = const_value(cond)
        if c is not None:
            if c:
                return
            if not self._path:
                self.dead = True
        g = as_bool(cond)
        if self._path:
            g = z3.Implies(z3.And(*self._path), g)
        self.guards.append(Guard(g, bound))

    def require(self, cond: Term) -> None:
        self._guard(cond, None)

    def within(self, cond: Term, bound: str) -> None:
        self._guard(cond, bound)

    # -- logic ----------------------------------------------------------------------------
    def If(self, cond: Term, then: Any, else_: Any) -> Any:
        c = const_value(cond)
        if c is not None:
            return then if c else else_
        return self._ite(as_bool(cond), then, else_)

    def _ite(self, c: Any, a: Any, b: Any) -> Any:
        if a is b:
            return a
        if isinstance(a, tuple) or isinstance(b, tuple):
            if not (isinstance(a, tuple) and isinstance(b, tuple)) or len(a) != len(b):
                raise TypeError(f"x.If over values of different shapes: {a!r} and {b!r}")
            return _rebuild(a, [self._ite(c, u, v) for u, v in zip(a, b)])
        if not is_term(a) and not is_term(b) and a == b and type(a) is type(b):
            return a
        ta, tb = lift_pair(a, b)
        if ta.eq(tb):
            return ta
        return z3.If(c, ta, tb)

    def when(self, cond: Term, update: Callable[[Any], Any], value: Any) -> Any:
        c = const_value(cond)
        if c is not None:
            return update(value) if c else value
        cb = as_bool(cond)
        self._path.append(cb)
        try:
            updated = update(value)
        finally:
            self._path.pop()
        return self._ite(cb, updated, value)

    def cases(
        self, key: Term, table: Mapping[int, Callable[[], Any]], default: Callable[[], Any]
    ) -> Any:
        k = const_value(key)
        if k is not None:
            return table.get(k, default)()
        # Each branch is built under its own path condition, so its guards bind only there.
        values = sorted(table)
        branches = [(self.Eq(key, v), table[v]) for v in values]
        branches.append((self.And(*(self.Not(c) for c, _ in branches)), default))
        built = []
        for cond, make in branches:
            self._path.append(as_bool(cond))
            try:
                built.append((cond, make()))
            finally:
                self._path.pop()
        out = built[-1][1]
        for cond, value in reversed(built[:-1]):
            out = self.If(cond, value, out)
        return out

    def And(self, *conds: Term) -> Term:
        terms = []
        for cond in conds:
            c = const_value(cond)
            if c is None:
                terms.append(as_bool(cond))
            elif not c:
                return False
        if not terms:
            return True
        return terms[0] if len(terms) == 1 else z3.And(*terms)

    def Or(self, *conds: Term) -> Term:
        terms = []
        for cond in conds:
            c = const_value(cond)
            if c is None:
                terms.append(as_bool(cond))
            elif c:
                return True
        if not terms:
            return False
        return terms[0] if len(terms) == 1 else z3.Or(*terms)

    def Not(self, cond: Term) -> Term:
        c = const_value(cond)
        if c is not None:
            return not c
        return z3.Not(as_bool(cond))

    def Implies(self, a: Term, b: Term) -> Term:
        return self.Or(self.Not(a), b)

    def Eq(self, a: Any, b: Any) -> Term:
        if isinstance(a, tuple) or isinstance(b, tuple):
            if not (isinstance(a, tuple) and isinstance(b, tuple)) or len(a) != len(b):
                raise TypeError(f"x.Eq over values of different shapes: {a!r} and {b!r}")
            return self.And(*(self.Eq(u, v) for u, v in zip(a, b)))
        if not is_term(a) and not is_term(b):
            return a == b
        ta, tb = lift_pair(a, b)
        return ta == tb

    # -- arithmetic -----------------------------------------------------------------------
    def Sum(self, *terms: Term) -> Term:
        if not any(is_term(t) for t in terms):
            return sum(terms)
        return z3.Sum(*(as_int(t) for t in terms))

    def Min(self, a: Term, b: Term) -> Term:
        if not is_term(a) and not is_term(b):
            return a if a <= b else b
        ta, tb = as_int(a), as_int(b)
        return z3.If(ta <= tb, ta, tb)

    def Max(self, a: Term, b: Term) -> Term:
        if not is_term(a) and not is_term(b):
            return a if a >= b else b
        ta, tb = as_int(a), as_int(b)
        return z3.If(ta >= tb, ta, tb)

    def count(self, conds: Iterable[Term]) -> Term:
        return self.Sum(*(self.If(c, 1, 0) for c in conds))

    # -- arrays ---------------------------------------------------------------------------
    def get(self, arr: Sequence[Any], index: Term) -> Any:
        i = const_value(index)
        if i is not None:
            return arr[i] if 0 <= i < len(arr) else arr[-1]
        # The last entry is the fallback, so an index the guards rule out costs no extra case.
        out = arr[-1]
        for k in range(len(arr) - 2, -1, -1):
            out = self._ite(index == k, arr[k], out)
        return out

    def set(self, arr: Sequence[Any], index: Term, value: Any) -> tuple[Any, ...]:
        i = const_value(index)
        if i is not None:
            out = list(arr)
            if 0 <= i < len(out):
                out[i] = value
            return tuple(out)
        return tuple(self._ite(index == k, value, item) for k, item in enumerate(arr))

    # -- sequences ------------------------------------------------------------------------
    def seq_is_empty(self, seq: Seq) -> Term:
        return self.Eq(seq.length, 0)

    def seq_is_full(self, seq: Seq) -> Term:
        return self.Eq(seq.length, len(seq.slots))

    def seq_top(self, seq: Seq) -> Any:
        return self.seq_get(seq, seq.length - 1)

    def seq_get(self, seq: Seq, index: Term) -> Any:
        empty = empty_slot(seq.slots)
        i = const_value(index)
        if i is not None:
            n = const_value(seq.length)
            if not 0 <= i < len(seq.slots):
                return empty
            if n is not None:
                return seq.slots[i] if i < n else empty
            return self._ite(as_bool(i < seq.length), seq.slots[i], empty)
        out = empty
        for k in range(len(seq.slots) - 1, -1, -1):
            out = self.If(self.And(index == k, self._live(seq, k)), seq.slots[k], out)
        return out

    def seq_push(self, seq: Seq, item: Any) -> Seq:
        cap = len(seq.slots)
        n = const_value(seq.length)
        if n is not None:
            if n >= cap:
                return seq
            return Seq(n + 1, seq.slots[:n] + (item,) + seq.slots[n + 1 :])
        slots = tuple(self._ite(seq.length == k, item, slot) for k, slot in enumerate(seq.slots))
        return self._ite(seq.length >= cap, seq, Seq(seq.length + 1, slots))

    def seq_pop(self, seq: Seq) -> Seq:
        n = const_value(seq.length)
        empty = empty_slot(seq.slots)
        if n is not None:
            if n == 0:
                return seq
            return Seq(n - 1, seq.slots[: n - 1] + (empty,) + seq.slots[n:])
        # On an empty sequence no slot index equals length - 1, so only the length needs a case.
        slots = tuple(
            self._ite(seq.length - 1 == k, empty, slot) for k, slot in enumerate(seq.slots)
        )
        return Seq(self.If(seq.length == 0, 0, seq.length - 1), slots)

    def seq_remove(self, seq: Seq, index: Term) -> Seq:
        empty = empty_slot(seq.slots)
        shifted = Seq(
            seq.length - 1,
            tuple(
                self.If(index <= k, nxt, slot)
                for k, (slot, nxt) in enumerate(zip(seq.slots, seq.slots[1:] + (empty,)))
            ),
        )
        return self.If(self.And(index >= 0, index < seq.length), shifted, seq)

    def seq_clear(self, seq: Seq) -> Seq:
        empty = empty_slot(seq.slots)
        return Seq(0, (empty,) * len(seq.slots))

    def seq_filter(self, seq: Seq, keep: Callable[[Any], Term]) -> Seq:
        # Item k survives when it is live and kept; it lands at the number of survivors before it.
        empty = empty_slot(seq.slots)
        kept = [self.And(self._live(seq, k), keep(slot)) for k, slot in enumerate(seq.slots)]
        position = [self.count(kept[:k]) for k in range(len(kept))]
        slots = []
        for j in range(len(seq.slots)):
            out = empty
            for k in range(len(seq.slots) - 1, j - 1, -1):
                out = self.If(self.And(kept[k], self.Eq(position[k], j)), seq.slots[k], out)
            slots.append(out)
        return Seq(self.count(kept), tuple(slots))

    def _live(self, seq: Seq, k: int) -> Term:
        n = const_value(seq.length)
        return k < n if n is not None else seq.length > k

    def seq_any(self, seq: Seq, pred: Callable[[Any], Term]) -> Term:
        return self.Or(*(self.And(self._live(seq, k), pred(s)) for k, s in enumerate(seq.slots)))

    def seq_all(self, seq: Seq, pred: Callable[[Any], Term]) -> Term:
        return self.And(
            *(self.Implies(self._live(seq, k), pred(s)) for k, s in enumerate(seq.slots))
        )

    def seq_count(self, seq: Seq, pred: Callable[[Any], Term]) -> Term:
        return self.count(self.And(self._live(seq, k), pred(s)) for k, s in enumerate(seq.slots))


def _rebuild(like: Any, items: Iterable[Any]) -> Any:
    """A tuple of the same kind as ``like`` (NamedTuple, ``Seq``, State or plain)."""
    make = getattr(type(like), "_make", None)
    return make(items) if make is not None else tuple(items)


def empty_slot(slots: tuple[Any, ...]) -> Any:
    """The canonical empty slot (all zeros), shaped like the slots of the sequence."""
    sample = slots[-1]
    if isinstance(sample, tuple):
        return _rebuild(sample, (0,) * len(sample))
    return 0


def to_bool(v: Any) -> Any:
    """A property or guard value as a Z3 Boolean (plain Python values included)."""
    return as_bool(v)


# -- the encoding of a model ----------------------------------------------------------------------


@dataclass
class Applied:
    """A rule instance run on a symbolic state: when it is enabled, where bounds cut it, and
    the successor it computes (as terms)."""

    action: Action
    enabled: Any  # every require and within holds
    cuts: dict[str, Any]  # bound name -> the rule would leave that bound here
    successor: State | None  # None when a guard is false whatever the state


class OpenBoundError(BoundsError):
    """A bound cannot be left open: the rules need its value as a Python number."""


class OpenBounds(Mapping[str, Any]):
    """A model's bounds with some left open: an open bound reads as a Z3 term (the variable
    ``bound.<name>@k`` of the step being encoded); the others keep their values. The rules read
    it like any bound (``b.turns``), so the same rule functions give a transition formula that
    holds for every value of the open bounds at once."""

    def __init__(self, bounds: Bounds, terms: Mapping[str, Any]) -> None:
        self._bounds = bounds
        self._terms = dict(terms)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        if name in self._terms:
            return self._terms[name]
        return getattr(self._bounds, name)

    def __getitem__(self, key: str) -> Any:
        return self._terms[key] if key in self._terms else self._bounds[key]

    def __iter__(self) -> Any:
        return iter(self._bounds)

    def __len__(self) -> int:
        return len(self._bounds)

    def specs(self) -> list[BoundSpec]:
        return self._bounds.specs()


class OpenRange(Leaf):
    """The domain of an open bound: whole numbers from the bound's lowest value, no upper end."""

    def __init__(self, lo: int) -> None:
        self.lo = lo
        self.hi = None  # type: ignore[assignment]

    def default(self) -> Any:
        return self.lo

    def well_formed(self, value: Any, x: Any) -> Term:
        return value >= self.lo

    def describe(self, value: Any) -> Any:
        return int(value)

    def __repr__(self) -> str:
        return f"Int[{self.lo}..]"


class Encoding:
    """Z3 variables for the states of a model (and of its monitors), time step by time step,
    with the initial-state, well-formedness and transition formulas over them.

    ``open_bounds`` names bounds left open (see :class:`OpenBounds`): each is a variable of every
    step (``bound.turns@k``, never changed by a transition, at least the bound's lowest value), so
    the Horn clauses, the induction and the ranking functions treat it like a frozen state
    variable and a proof holds for all of its values."""

    def __init__(
        self,
        model: Model,
        monitors: Sequence[Monitor] = (),
        open_bounds: Sequence[str] = (),
        *,
        check: bool = True,
    ) -> None:
        self.model = model
        self.monitors = tuple(monitors)
        self._vars: dict[int, list[Any]] = {}
        self._applied: dict[int, list[Applied]] = {}
        self._transitions: dict[int, Any] = {}
        self._well_formed: dict[int, Any] = {}
        self._step0: dict[int, Any] = {}
        self._cuts0: dict[str, Any] = {}  # cut(0, bound), renamed for the other steps
        self._leaves0: Any = None  # leaves_domain(0), likewise
        self._shifts: dict[int, list[tuple[Any, Any]]] = {}
        self._schemas: dict[int, Schema] = {}
        self.bounds = self.model.bounds
        self.open_bounds = tuple(dict.fromkeys(open_bounds))
        specs = {sp.name: sp for sp in self.bounds.specs()}
        for name in self.open_bounds:
            if name not in specs:
                raise UnknownNameError("bound", name, specs)
        self.open_specs = [specs[name] for name in self.open_bounds]
        self.schema = self.model.schema
        self.leaves: list[tuple[str, Leaf]] = self.schema.leaves()
        self.monitor_cls = (
            _monitor_class(tuple(m.name for m in self.monitors)) if self.monitors else None
        )
        self.paths: list[str] = (
            [p for p, _ in self.leaves]
            + [f"m.{m.name}" for m in self.monitors]
            + [f"bound.{name}" for name in self.open_bounds]
        )
        self.domains: list[Leaf] = (
            [d for _, d in self.leaves]
            + [m.domain for m in self.monitors]
            + [OpenRange(sp.lo) for sp in self.open_specs]
        )
        self._path_index = {p: i for i, p in enumerate(self.paths)}
        self._mon_end = len(self.leaves) + len(self.monitors)
        if self.open_bounds and check:
            _check_openable(self)

    # -- variables ------------------------------------------------------------------------
    def vars(self, k: int) -> list[Any]:
        """Every variable of step ``k``: the state's leaves, then the monitors."""
        vs = self._vars.get(k)
        if vs is None:
            vs = [self._const(f"{p}@{k}", d) for p, d in zip(self.paths, self.domains)]
            self._vars[k] = vs
        return vs

    def _const(self, name: str, d: Leaf) -> Any:
        return z3.Bool(name) if d.is_bool else z3.Int(name)

    def ops(self) -> SymbolicOps:
        """A fresh operations object."""
        return SymbolicOps()

    def leaf_vars(self, k: int) -> list[Any]:
        return self.vars(k)[: len(self.leaves)]

    def tracked(self) -> list[tuple[str, Leaf]]:
        """The leaves of one step other than the open bounds: the state's, then the monitors'
        (``m.<name>``), in the order of :meth:`vars`."""
        return list(zip(self.paths[: self._mon_end], self.domains[: self._mon_end]))

    def tracked_vars(self, k: int) -> list[Any]:
        """The variables of :meth:`tracked` at step ``k``."""
        return self.vars(k)[: self._mon_end]

    def bounds_at(self, k: int) -> Any:
        """The bounds the rules read at step ``k``: the model's, with the open ones as that
        step's variables."""
        if not self.open_bounds:
            return self.bounds
        terms = dict(zip(self.open_bounds, self.vars(k)[self._mon_end :]))
        return OpenBounds(self.bounds, terms)

    def schema_at(self, k: int) -> Schema:
        """The schema whose ranges hold at step ``k`` (an open bound's range ends at its
        variable)."""
        if not self.open_bounds:
            return self.schema
        sch = self._schemas.get(k)
        if sch is None:
            sch = self._schemas[k] = self.model.ruleset.schema(self.bounds_at(k))
        return sch

    def param_vars(self, k: int) -> list[Any]:
        """The variables of the open bounds at step ``k``."""
        return self.vars(k)[self._mon_end :]

    def params_at(self, k: int, values: Mapping[str, int] | None = None) -> Any:
        """The open bounds have, at step ``k``, the given values (by default, the model's).
        Bounded searches fix them so (:class:`~turnproof.checks.bmc.Unrolling`); proofs never
        do."""
        values = self.bounds if values is None else values
        return z3.And(*(v == values[name] for name, v in zip(self.open_bounds, self.param_vars(k))))

    def decode_params(self, zm: Any, k: int = 0) -> dict[str, int]:
        """The values a Z3 model gives the open bounds."""
        return {
            name: zm.eval(v, model_completion=True).as_long()
            for name, v in zip(self.open_bounds, self.param_vars(k))
        }

    def is_terminal(self, k: int) -> Any:
        """The state of step ``k`` is terminal."""
        b = self.bounds_at(k)
        return to_bool(self.model.ruleset.terminal(self.state(k), self.ops(), b))

    def var(self, path: str, k: int) -> Any:
        """The variable of leaf ``path`` (``stk.len``, ``u[1]``, ``m.seen``) at step ``k``."""
        return self.vars(k)[self._path_index[path]]

    def act_var(self, k: int) -> Any:
        return z3.Int(f"act@{k}")

    def state(self, k: int) -> State:
        return self.schema.build(self.leaf_vars(k))

    def monitor_values(self, k: int) -> Any:
        if self.monitor_cls is None:
            return None
        return self.monitor_cls(*self.vars(k)[len(self.leaves) : self._mon_end])

    # -- formulas -------------------------------------------------------------------------
    def well_formed(self, k: int) -> Any:
        """Every leaf of step ``k`` lies in its domain (and sequences keep empty slots empty).
        Built once, for step 0, and renamed for the others: it is the same term (Z3 shares
        equal terms), without running the schema's Python for every step of an unrolling."""
        got = self._well_formed.get(k)
        if got is None:
            if k == 0:
                got = self.built_well_formed(0)
            else:
                got = z3.substitute(self.well_formed(0), *zip(self.vars(0), self.vars(k)))
            self._well_formed[k] = got
        return got

    def built_well_formed(self, k: int) -> Any:
        """:meth:`well_formed`, built from the schema for step ``k``."""
        x = self.ops()
        parts = [to_bool(self.schema_at(k).well_formed(self.state(k), x))]
        for v, d in zip(self.vars(k)[len(self.leaves) :], self.domains[len(self.leaves) :]):
            if not d.is_bool:
                parts.append(to_bool(d.well_formed(v, x)))
        return z3.And(*parts)

    def equal(self, j: int, k: int) -> Any:
        """States (and monitors) of steps ``j`` and ``k`` are the same."""
        return z3.And(*(a == b for a, b in zip(self.vars(j), self.vars(k))))

    def is_state(self, k: int, state: State, monitors: Any = None) -> Any:
        """Step ``k`` holds the concrete ``state`` (and monitor values)."""
        values = self.schema.flatten(state) + (list(monitors) if monitors is not None else [])
        return z3.And(*(v == lift_like(c, v) for v, c in zip(self.vars(k), values)))

    def init(self, k: int = 0) -> Any:
        """Step ``k`` holds one of the model's initial states (with its initial monitors)."""
        if self.open_bounds:
            # The initial states may depend on an open bound: build them from its term.
            x: Any = self.ops()
            b = self.bounds_at(k)
            states = list(self.model.ruleset.initial(b))
        else:
            x, b = ConcreteOps(), self.bounds
            states = self.model.initial_states()
        options = []
        for s in states:
            m = None
            if self.monitor_cls is not None:
                m = self.monitor_cls(*(mon.init(s, x, b) for mon in self.monitors))
            options.append(self.is_state(k, s, m))
        return z3.And(z3.Or(*options), self.well_formed(k))

    def applied(self, k: int) -> list[Applied]:
        """Every rule instance run on the symbolic state of step ``k`` (cached per step).

        Terminal states are absorbing, as in the explicit engine, which never expands them:
        no rule instance is enabled in one, and no bound cuts one, whatever the rules say (a
        rule set whose rules forget to test for the end of the game gives no successor of a
        terminal state here either)."""
        out = self._applied.get(k)
        if out is None:
            out = [self._apply(k, a) for a in self.model.actions]
            self._applied[k] = out
        return out

    def _apply(self, k: int, a: Action) -> Applied:
        ap = apply_action(a, self.state(k), self.bounds_at(k))
        live = z3.Not(self.is_terminal(k))
        ap.enabled = z3.And(live, ap.enabled)
        ap.cuts = {name: z3.And(live, c) for name, c in ap.cuts.items()}
        return ap

    def step_formula(self, k: int, index: int, *, alone: bool = False) -> Any:
        """Rule instance ``index`` takes step ``k`` to step ``k + 1`` (monitors updated).
        ``alone``: run only that rule instance on step ``k`` (to follow a given path, where
        the other instances are never needed). Built once, for step 0, and renamed for the
        others, as :meth:`well_formed` is."""
        if k == 0:
            got = self._step0.get(index)
            if got is None:
                got = self._step0[index] = self.built_step_formula(0, index, alone=alone)
            return got
        return z3.substitute(self.step_formula(0, index, alone=alone), *self._shift(k))

    def _shift(self, k: int) -> list[tuple[Any, Any]]:
        """Steps 0 and 1 renamed as steps ``k`` and ``k + 1``."""
        got = self._shifts.get(k)
        if got is None:
            got = self._shifts[k] = [
                *zip(self.vars(0), self.vars(k)),
                *zip(self.vars(1), self.vars(k + 1)),
            ]
        return got

    def built_step_formula(self, k: int, index: int, *, alone: bool = False) -> Any:
        """:meth:`step_formula`, built by running the rule instance on step ``k``."""
        if alone and k not in self._applied:
            ap = self._apply(k, self.model.actions[index])
        else:
            ap = self.applied(k)[index]
        if ap.successor is None:
            return z3.BoolVal(False)
        nxt = self.vars(k + 1)
        values = self.schema.flatten(ap.successor)
        parts = [ap.enabled]
        parts.extend(v == lift_like(c, v) for v, c in zip(nxt, values))
        if self.monitors:
            x = self.ops()
            s, t, m = self.state(k), self.state(k + 1), self.monitor_values(k)
            b = self.bounds_at(k)
            for mon, v in zip(self.monitors, nxt[len(self.leaves) : self._mon_end]):
                parts.append(v == lift_like(mon.update(s, t, ap.action.rule, m, x, b), v))
        # An open bound keeps its value along a path.
        parts.extend(a == c for a, c in zip(self.param_vars(k), self.param_vars(k + 1)))
        return z3.And(*parts)

    def transition(self, k: int) -> Any:
        """Some rule instance takes step ``k`` to step ``k + 1``; ``act@k`` names which, and
        step ``k + 1`` is well formed (built once per step: the inference, the proofs and
        their checks ask for the same formula)."""
        got = self._transitions.get(k)
        if got is None:
            act = self.act_var(k)
            n = len(self.model.actions)
            disjuncts = [z3.And(act == i, self.step_formula(k, i)) for i in range(n)]
            got = z3.And(act >= 0, act < n, z3.Or(*disjuncts), self.well_formed(k + 1))
            self._transitions[k] = got
        return got

    def enabled(self, k: int) -> list[Any]:
        """For each rule instance, the formula 'enabled in the state of step ``k``'."""
        return [ap.enabled for ap in self.applied(k)]

    def cut(self, k: int, bound: str) -> Any:
        """Some rule instance would leave ``bound`` in the state of step ``k``. Built once, for
        step 0, and renamed for the others, as :meth:`step_formula` is: the bounded search of
        the bounds question asks for it at every depth, and building the cuts and
        :meth:`leaves_domain` by running every rule again on each step's state took about a
        third of that search's time in one profile (28 of 90 s)."""
        if k:
            return z3.substitute(self.cut(0, bound), *self._shift(k))
        got = self._cuts0.get(bound)
        if got is None:
            got = self._cuts0[bound] = self.built_cut(0, bound)
        return got

    def built_cut(self, k: int, bound: str) -> Any:
        """:meth:`cut`, built by running the rule instances on step ``k``."""
        return z3.Or(*(ap.cuts.get(bound, False) for ap in self.applied(k)))

    def leaves_domain(self, k: int) -> Any:
        """Some rule instance, enabled in the state of step ``k``, computes a successor outside
        the schema's domains: the transition formula (which asks for a well-formed step
        ``k + 1``) would silently drop it, while the explicit engine would keep it. Built for
        step 0 and renamed for the others, as :meth:`cut` is."""
        if k:
            return z3.substitute(self.leaves_domain(0), *self._shift(k))
        if self._leaves0 is None:
            self._leaves0 = self.built_leaves_domain(0)
        return self._leaves0

    def built_leaves_domain(self, k: int) -> Any:
        """:meth:`leaves_domain`, built by running the rule instances on step ``k``."""
        x = self.ops()
        sch = self.schema_at(k)
        parts = []
        for ap in self.applied(k):
            if ap.successor is None:
                continue
            fits = to_bool(sch.well_formed(ap.successor, x))
            if z3.is_true(fits):
                continue
            parts.append(z3.And(ap.enabled, z3.Not(fits)))
        return z3.Or(*parts) if parts else z3.BoolVal(False)

    def bound_names(self) -> list[str]:
        """The bounds some rule guards with ``x.within``, sorted."""
        return sorted({b for ap in self.applied(0) for b in ap.cuts})

    def state_pred(self, pred: Callable[..., Any], k: int) -> Any:
        """A property's state predicate ``pred(s, x, b, m)`` at step ``k``."""
        return to_bool(pred(self.state(k), self.ops(), self.bounds_at(k), self.monitor_values(k)))

    def step_pred(self, pred: Callable[..., Any], k: int) -> Any:
        """A transition predicate ``pred(s, t, r, x, b, m)`` on the step from ``k``: one case per
        rule instance, so that the predicate sees its rule as a Python value."""
        s, t, m = self.state(k), self.state(k + 1), self.monitor_values(k)
        act = self.act_var(k)
        x = self.ops()
        b = self.bounds_at(k)
        return z3.And(
            *(
                z3.Implies(act == a.index, to_bool(pred(s, t, a.rule, x, b, m)))
                for a in self.model.actions
            )
        )

    # -- decoding -------------------------------------------------------------------------
    def decode(self, zm: Any, k: int) -> tuple[State, Any]:
        """The concrete state (and monitor values) of step ``k`` in the Z3 model ``zm``."""
        values = []
        for v, d in zip(self.vars(k), self.domains):
            val = zm.eval(v, model_completion=True)
            if d.is_bool:
                values.append(z3.is_true(val))
            else:
                n = val.as_long()
                values.append(d.enum(n) if isinstance(d, EnumDomain) else n)
        state = self.schema.build(values[: len(self.leaves)])
        mons = None
        if self.monitor_cls is not None:
            mons = self.monitor_cls(*values[len(self.leaves) : self._mon_end])
        return state, mons

    def decode_action(self, zm: Any, k: int) -> Action:
        return self.model.actions[zm.eval(self.act_var(k), model_completion=True).as_long()]

    def decode_trace(self, zm: Any, length: int, loop_start: int | None = None) -> Trace:
        """The trace of ``length`` steps in the Z3 model ``zm``, as the explicit engine gives it."""
        states = [self.decode(zm, k)[0] for k in range(length + 1)]
        steps = tuple(
            trace_step(self.model, self.decode_action(zm, k), states[k], states[k + 1])
            for k in range(length)
        )
        return Trace(
            initial=self.schema.describe_value(states[0]),
            steps=steps,
            loop_start=loop_start,
            final=self.schema.describe_value(states[-1]),
            bounds=self.decode_params(zm),
        )

    # -- rendering ------------------------------------------------------------------------
    def render(self, formula: Any, k: int = 0) -> str:
        """A formula over step ``k`` with the model's field names instead of variable names."""
        pairs = [(v, z3.Const(p, v.sort())) for v, p in zip(self.vars(k), self.paths)]
        return str(z3.substitute(formula, *pairs)) if pairs else str(formula)


_SHARED: WeakKeyDictionary[Model, dict[tuple[Any, ...], Encoding]] = WeakKeyDictionary()


def shared_encoding(
    model: Model, monitors: Sequence[Monitor] = (), open_bounds: Sequence[str] = ()
) -> Encoding:
    """The :class:`Encoding` of ``model`` with ``monitors`` and ``open_bounds``, made once per
    process: the properties checked in one process share its formulas (built once, then
    cached), as a fork server's children share those it built (see
    :func:`turnproof.checks.workers.warm_up`)."""
    per_model = _SHARED.setdefault(model, {})
    key = (tuple(id(m) for m in monitors), tuple(open_bounds))
    enc = per_model.get(key)
    if enc is None:
        enc = per_model[key] = Encoding(model, monitors, open_bounds)
    return enc


def _check_openable(enc: Encoding) -> None:
    """Refuse open bounds the rules need as numbers (see :func:`why_not_openable`), naming the
    bounds of the rule set that can be left open."""
    problem = why_not_openable(enc)
    if problem:
        if len(enc.open_bounds) > 1:
            for name in enc.open_bounds:  # name the culprit
                Encoding(enc.model, enc.monitors, (name,))
        choices = openable_bounds(enc.model)
        raise OpenBoundError(
            f"bound {', '.join(enc.open_bounds)} cannot be left open: {problem}; bounds that "
            f"can be left open: {', '.join(choices) or '(none)'}"
        )


def why_not_openable(enc: Encoding) -> str:
    """Why the rules need the value of an open bound of ``enc`` as a number: it decides which
    rule instances exist (a parameter's domain), or the schema, the initial states, the
    terminal test or a rule uses it in Python (``range(b.players)``, ``min(b.hand0, ...)``, an
    ``if`` on it). Empty when they do not."""
    model = enc.model
    what = "the schema"
    try:
        b = enc.bounds_at(0)
        for r in model.ruleset.rules:
            for name, domain in r.params:
                if callable(domain):
                    what = f"the rule instances of {r.citation} {r.name} (parameter {name})"
                    values = [int(v) for v in domain(b)]
                    if values != [int(v) for v in domain(model.bounds)]:
                        return f"{what} depend on it"
        what = "the schema"
        enc.schema_at(0)
        what = "the initial states"
        enc.init(0)
        what = "the terminal-state test"
        enc.is_terminal(0)
        for a in model.actions:
            what = f"rule {a.rule.citation} {a.label}"
            apply_action(a, enc.state(0), b)
    except (z3.Z3Exception, TypeError):
        # The solver's or Python's own words (a symbolic value cast to a Boolean, an integer
        # expected) say nothing to the user: where the number is needed does.
        return f"its value is needed as a number by {what}"
    return ""


def openable_bounds(model: Model) -> list[str]:
    """The bounds of ``model`` that the symbolic engine can leave open, in the rule set's order."""
    return [
        sp.name
        for sp in model.bounds.specs()
        if not why_not_openable(Encoding(model, (), (sp.name,), check=False))
    ]


def apply_action(action: Action, state: State, b: Any) -> Applied:
    """Run one rule instance on a symbolic state."""
    x = SymbolicOps()
    try:
        successor = action.apply(state, x, b)
    except Exception:
        # A rule whose guard is false whatever the state may fail past it (a concrete index
        # out of range, say): the concrete engine never gets there, and nor do we.
        if x.dead:
            return Applied(action, z3.BoolVal(False), {}, None)
        raise
    enabled = z3.And(*(g.cond for g in x.guards)) if x.guards else z3.BoolVal(True)
    cuts: dict[str, Any] = {}
    for i, g in enumerate(x.guards):
        if g.bound is None:
            continue
        before = [h.cond for h in x.guards[:i]]
        cut = z3.And(*before, z3.Not(g.cond))
        cuts[g.bound] = z3.Or(cuts[g.bound], cut) if g.bound in cuts else cut
    if x.dead:
        return Applied(action, z3.BoolVal(False), cuts, None)
    return Applied(action, enabled, cuts, successor)


def concrete_moves(model: Model, s: State) -> list[tuple[Action, State | None, str | None]]:
    """Every rule instance that is not disabled in the concrete state ``s``, run with
    ConcreteOps: ``(action, successor, None)`` when enabled, ``(action, None, bound)`` when a
    declared bound cuts it."""
    x, b = ConcreteOps(), model.bounds
    out: list[tuple[Action, State | None, str | None]] = []
    for a in model.actions:
        try:
            out.append((a, a.apply(s, x, b), None))
        except Disabled:
            continue
        except BoundReached as exc:
            out.append((a, None, exc.bound))
    return out


trace_step = step_record  # one way to build a trace step, shared with the explicit engine


# -- entry point ----------------------------------------------------------------------------------

#: Default time budget of one property: safety and step properties may need the control
#: invariant after Spacer (:func:`~turnproof.checks.proofs.decide_then_invariant`), termination
#: may need the region's invariant and a ranking over features (:mod:`~turnproof.checks.
#: ranking`; Magic's cleanup-terminates takes about 200 s on 2 cores); reachability has no use
#: for the extra time.
DEFAULT_TIMEOUT_S = 180.0
DEFAULT_TERMINATION_TIMEOUT_S = 300.0
DEFAULT_OTHER_TIMEOUT_S = 60.0
DEFAULT_MAX_DEPTH = 40
SAFETY_KINDS = ("always", "step", "no-deadlock", "exclusive-automatic")


def default_budget(prop: Property) -> float:
    """A property's time budget when none is given."""
    if prop.kind == "terminates":
        return DEFAULT_TERMINATION_TIMEOUT_S
    return DEFAULT_TIMEOUT_S if prop.kind in SAFETY_KINDS else DEFAULT_OTHER_TIMEOUT_S


def check_properties(
    model: Model,
    properties: Sequence[Property],
    *,
    timeout_s: float | None = None,
    max_depth: int = DEFAULT_MAX_DEPTH,
    antecedents_reached: Iterable[str] = (),
    jobs: int | None = None,
    open_bounds: Sequence[str] = (),
    scenario: Any = None,
    guides: Mapping[str, Sequence[str]] | None = None,
    handover: Any = None,
    bounds_cut: Mapping[str, int] | None = None,
) -> list[PropertyResult]:
    """Check ``properties`` on ``model`` with Z3, in the given order (engine ``"symbolic"``).

    ``timeout_s`` is each property's time budget (default: :func:`default_budget`);
    ``max_depth`` bounds the bounded model checking
    (and the lasso search) that looks for counterexamples and witnesses. ``antecedents_reached``
    names the properties whose antecedent another engine has already found reachable: their
    antecedent is not searched for again. When the model comes from a ``scenario`` (a
    :class:`~turnproof.model.scenario.Scenario` whose build is ``model`` and whose properties
    include ``properties``), each property is checked in a fresh worker process that builds the
    scenario again (:mod:`turnproof.checks.workers`), ``jobs`` of them at a time (default: one
    per core), so the answers do not depend on the number of cores; otherwise, or with
    ``jobs=0``, they are checked here, one after the other.

    ``open_bounds`` are left open for every property, on top of each property's own
    ``for_all`` (:class:`Encoding`): a proof then holds for all their values.

    The safety properties are checked in two stages (:func:`_staged`,
    :class:`~turnproof.checks.proofs.Stage`): Spacer's short probe first, for every one; those
    it leaves unsettled then share one control invariant per encoding, when enough of them do
    (:func:`shared_groups`), before the rest of their check. Each result's time includes both
    stages and its share of that invariant. The safety properties that are not staged are
    checked in chains, one encoding's after another (:func:`chains`), each one's Spacer searches
    given the invariants that proved those before it.

    ``guides`` gives, by property, the rule instances of a trace another engine found: when
    this engine's own search for a counterexample or witness comes back without one, it checks
    that trace against its transition formula (:func:`~turnproof.checks.bmc.follow`), and
    reports it if the formula allows it.

    ``handover`` (a :class:`~turnproof.checks.workers.Handover`), instead of
    ``antecedents_reached``, ``guides`` and ``bounds_cut``: the explicit engine runs beside this
    one and will hand them over. Every task starts at once, and one whose answer depended on
    them is checked again once they come (see :func:`_beside_explicit`); the results are those
    the three arguments would have given.

    Every result also says which declared bounds cut a reachable transition
    (``bounds_reached``: bound name -> the depth at which a cut was first found), or, in its
    ``reason``, which ones could not be decided. That question is asked at the model's bounds:
    ``bounds_cut``, when given, is the answer of a complete explicit search of this model
    (:func:`bounds_from_search`), taken instead of asking it again.
    """
    reached = set(antecedents_reached)
    guide = dict(guides or {})
    open_bounds = tuple(open_bounds)
    if open_bounds:
        Encoding(model, (), open_bounds)  # refuse a bound that cannot be open, before any work
    jobs = workers.default_jobs() if jobs is None else max(0, jobs)
    shipped = scenario if jobs > 0 and _rebuilds(scenario, model, properties) else None
    given = timeout_s

    def budget(p: Property) -> float:
        return default_budget(p) if given is None else given

    once = bounds_budget(DEFAULT_OTHER_TIMEOUT_S if given is None else given)
    searched = None if bounds_cut is None else bounds_from_search(model, bounds_cut)
    if handover is not None and shipped is not None:
        bounds, results = _beside_explicit(
            model, properties, shipped, handover, jobs, once, budget, max_depth, open_bounds
        )
    elif handover is not None:
        handed = handover.wait()
        if handed is None:
            raise Interrupted(_unfinished(model, properties, {}))
        return check_properties(
            model,
            properties,
            timeout_s=timeout_s,
            max_depth=max_depth,
            antecedents_reached=handed.reached,
            jobs=jobs,
            open_bounds=open_bounds,
            scenario=scenario,
            guides=handed.guides,
            bounds_cut=handed.cuts,
        )
    elif shipped is not None:
        # By index: 0 is the bounds question (unless its answer was given), i + 1 property i.
        tasks = {
            i + 1: workers.Task(
                shipped,
                p.name,
                budget(p),
                max_depth,
                p.name in reached,
                open_bounds,
                tuple(guide.get(p.name, ())),
            )
            for i, p in enumerate(properties)
        }
        if searched is None:
            tasks[0] = workers.Task(shipped, "", once, max_depth)
        # The slowest kinds first, so that no worker is left with a long task at the end; then
        # stage one of the staged properties, so that their stage two comes in good time.
        staged = stageable(properties)

        def rank(i: int) -> tuple[bool, bool, int, int]:
            cost = _expected_cost(tasks[i], properties)
            return cost > 0, i - 1 not in staged, cost, i

        order = sorted(tasks, key=rank)
        by_index = _run_staged(model, tasks, order, properties, jobs, shipped, budget)
        if searched is not None:
            by_index[0] = searched
        bounds, results = _gathered(model, properties, by_index)
    else:
        if searched is None:
            searched = bounds_task(model, timeout_s=once, max_depth=max_depth)
        bounds = searched

        def check(i: int, stage: Any) -> Any:
            p = properties[i]
            return property_task(
                model,
                p,
                timeout_s=budget(p),
                max_depth=max_depth,
                antecedent_reached=p.name in reached,
                open_bounds=open_bounds,
                guide=tuple(guide.get(p.name, ())),
                stage=stage,
            )

        def infer(i: int, fields: tuple[str, ...]) -> Any:
            p = properties[i]
            return shared_invariant_task(
                model, p, fields, budget_s=budget(p), open_bounds=open_bounds
            )

        # Here, one after the other: the same stages as in worker processes (see _staged).
        order = [i + 1 for i in range(len(properties))]
        futures = _staged(
            lambda k, stage: _now(check, k - 1, stage),
            lambda k, fields: _now(infer, k - 1, fields),
            properties,
            order,
        )
        results = [futures[i + 1].result() for i in range(len(properties))]
    if bounds.domain_error:
        raise ModelError(bounds.domain_error)
    share = bounds.seconds / len(results) if results else 0.0
    for r in results:
        bounds.apply(r)
        # The question which bounds cut is asked once for every property: each result's time
        # includes its share, so that the time column adds up to the engine's true time.
        r.seconds += share
    return results


def _staged(
    submit: Callable[[int, Any], Future[Any]],
    submit_invariant: Callable[[int, tuple[str, ...]], Future[Any]],
    properties: Sequence[Property],
    order: Sequence[int],
) -> dict[int, Future[Any]]:
    """Every task's answer to come, by task index (0: the bounds question, ``i + 1``: property
    ``i``), the tasks submitted in ``order``, with the safety properties staged
    (:func:`stageable`): stage one of each first; once every stage one has answered, the invariant each group of unsettled
    properties shares (:func:`shared_groups`), then their stage two, whose answer is the
    property's (its time includes its stage one and its share of the invariant's). A chain
    (:func:`chains`) starts with its first property; each next one is submitted once the one
    before has answered, with the lemmas of those before it (``Stage(whole=True, lemmas=...)``).
    ``submit(index, stage)`` submits a task, ``submit_invariant(index, fields)`` the inference
    of a shared invariant on property ``index - 1``'s encoding; either may run it at once."""
    from turnproof.checks.proofs import Stage

    chosen = stageable(properties)
    staged = [k for k in order if k and k - 1 in chosen]
    finals: dict[int, Future[Any]] = {k: Future() for k in staged}
    # The properties checked whole one after another on their encoding (:func:`chains`): each
    # one's successor, submitted once it has answered, with the lemmas of those before.
    after: dict[int, int] = {}
    for members in chains(properties, chosen):
        ks = [i + 1 for i in members]
        after.update(zip(ks, ks[1:]))
        finals.update((k, Future()) for k in ks[1:])
    firsts: dict[int, Future[Any]] = {}
    unsettled: dict[int, Probed] = {}
    waiting = set(staged)
    lock = threading.Lock()

    def settle(k: int, f: Future[Any], seconds: float = 0.0) -> None:
        # The answer of ``f`` becomes property k's, with ``seconds`` spent before it added.
        if f.cancelled():
            finals[k].cancel()
        elif f.exception() is not None:
            finals[k].set_exception(f.exception())
        else:
            answer = f.result()
            r = _unwrapped(answer)
            if isinstance(r, PropertyResult):
                r.seconds += seconds
            finals[k].set_result(answer)

    def guarded(ks: Sequence[int], fn: Callable[[], None]) -> None:
        # A callback's error becomes the answer of the properties it was to answer (Future
        # callbacks swallow errors); a pool shut down (an interrupt) cancels them.
        try:
            fn()
        except RuntimeError as exc:
            for k in ks:
                if not finals[k].done():
                    finals[k].cancel() if "shutdown" in str(exc) else finals[k].set_exception(exc)
        except Exception as exc:
            for k in ks:
                if not finals[k].done():
                    finals[k].set_exception(exc)

    def second(k: int, stage: Any, seconds: float) -> None:
        def go() -> None:
            submit(k, stage).add_done_callback(lambda f: settle(k, f, seconds))

        guarded([k], go)

    def after_invariant(ks: list[int], fields: tuple[str, ...], f: Future[Any]) -> None:
        got = None if f.cancelled() or f.exception() is not None else f.result()
        ok = isinstance(got, SharedInvariant) and got.ok
        share = got.seconds / len(ks) if isinstance(got, SharedInvariant) else 0.0
        for k in ks:
            second(k, Stage(shared=fields if ok else ()), unsettled[k].seconds + share)

    def second_stage() -> None:
        for k in staged:
            f = firsts[k]
            answer = None if f.cancelled() or f.exception() is not None else f.result()
            if isinstance(_unwrapped(answer), Probed):
                unsettled[k] = _unwrapped(answer)
            else:
                settle(k, f)
        by_property = {k - 1: probed for k, probed in unsettled.items()}
        for members, fields in shared_groups(properties, by_property):
            ks = [i + 1 for i in members]
            if not fields:
                for k in ks:
                    second(k, Stage(), unsettled[k].seconds)
                continue

            def go(ks: list[int] = ks, fields: tuple[str, ...] = fields) -> None:
                inv = submit_invariant(ks[0], fields)
                inv.add_done_callback(functools.partial(after_invariant, ks, fields))

            guarded(ks, go)

    def after_first(k: int) -> None:
        with lock:
            waiting.discard(k)
            if waiting:
                return
        guarded(staged, second_stage)

    def chained(k: int, lemmas: tuple[Any, ...], f: Future[Any]) -> None:
        # Property k answered (``f``): the next in its chain goes, with k's lemma if it has one.
        if f.cancelled() or f.exception() is not None:
            got = None
        else:
            got = _unwrapped(f.result())
        lemma = got.lemma if isinstance(got, PropertyResult) else None
        given = lemmas + ((lemma,) if lemma is not None else ())
        nxt = after[k]

        def go() -> None:
            g = submit(nxt, Stage(whole=True, lemmas=given))
            g.add_done_callback(lambda g: settle(nxt, g))
            if nxt in after:
                g.add_done_callback(functools.partial(chained, nxt, given))

        guarded([nxt, *_rest(after, nxt)], go)

    heads = set(after) - set(after.values())
    for k in order:
        if k in staged:
            firsts[k] = submit(k, Stage(probe=True))
        elif k not in finals:
            finals[k] = submit(k, None)
            if k in heads:
                finals[k].add_done_callback(functools.partial(chained, k, ()))
    for k in staged:
        firsts[k].add_done_callback(functools.partial(lambda k, _: after_first(k), k))
    return finals


def _rest(after: Mapping[int, int], k: int) -> list[int]:
    """The tasks that come after ``k`` in its chain (``after``: each one's successor)."""
    out = []
    while k in after:
        k = after[k]
        out.append(k)
    return out


def chains(properties: Sequence[Property], staged: set[int]) -> list[list[int]]:
    """The safety properties (by index) that are not staged (:func:`stageable`), grouped by
    encoding, in groups of two or more in the properties' order: each group is checked one
    after the other, and the Spacer searches of each property are given the invariants that
    proved those before it (:class:`~turnproof.checks.proofs.Lemma`). Spacer's search for one
    property of an encoding often finds what another needs: the lemma then spares it most of
    its search (on the default Magic model, resolves-after-all-pass took 1 s after
    step-ends-after-all-pass, against 31 s alone). The order is fixed, so the answers do not
    depend on the number of worker processes."""
    safety = [i for i, p in enumerate(properties) if p.kind in SAFETY_KINDS and i not in staged]
    return [group for group in _by_encoding(properties, safety) if len(group) > 1]


def _second(stage: Any) -> bool:
    """Whether a task is a stage two (:class:`~turnproof.checks.proofs.Stage`): it is
    submitted ``first`` (:meth:`workers.Pool.submit`), as the shared invariant is, so that the
    chain of stage one, the invariant and stage two does not end the run alone."""
    return stage is not None and not stage.probe


def _run_staged(
    model: Model,
    tasks: Mapping[int, workers.Task],
    order: Sequence[int],
    properties: Sequence[Property],
    jobs: int,
    shipped: Any,
    budget: Callable[[Property], float],
) -> dict[int, Any]:
    """Every task's answer by index, the tasks run in ``order`` by ``jobs`` worker processes,
    the safety properties staged (:func:`_staged`). On Ctrl-C, :class:`Interrupted` with the
    answers that had come."""
    from turnproof.checks.proofs import Stage

    pool = workers.Pool(min(jobs, len(tasks)), shipped)

    def submit(k: int, stage: Any) -> Future[Any]:
        return pool.submit(dataclasses.replace(tasks[k], stage=stage), first=_second(stage))

    def submit_invariant(k: int, fields: tuple[str, ...]) -> Future[Any]:
        shared = Stage(shared=fields)
        return pool.submit(dataclasses.replace(tasks[k], invariant=True, stage=shared), first=True)

    futures: dict[int, Future[Any]] = {}
    try:
        futures = _staged(submit, submit_invariant, properties, order)
        return {k: f.result() for k, f in futures.items()}
    except (KeyboardInterrupt, CancelledError):
        pool.interrupt()
        keys = list(futures)
        done = workers.answered([futures[k] for k in keys])
        raise Interrupted(
            _unfinished(model, properties, {keys[j]: a for j, a in done.items()})
        ) from None
    except BaseException:
        pool.interrupt()
        raise
    finally:
        pool.close()


def _unfinished(
    model: Model, properties: Sequence[Property], done: Mapping[int, Any]
) -> list[PropertyResult]:
    """Every property's result after an interrupt: those in ``done`` (by task index: 0 is the
    bounds task, ``i + 1`` the property ``i``) as they came, the others UNKNOWN."""
    return [
        done.get(i + 1) or result(model, p, Verdict.UNKNOWN, reason="interrupted")
        for i, p in enumerate(properties)
    ]


def _gathered(
    model: Model, properties: Sequence[Property], by_index: Mapping[int, Any]
) -> tuple[BoundsOutcome, list[PropertyResult]]:
    """The bounds question's answer and each property's result, from the workers' answers by
    task index (0: the bounds task); a lost task's property is UNKNOWN, saying why."""
    first = by_index[0]
    bounds: BoundsOutcome = (
        _bounds_lost(model, first.reason) if isinstance(first, workers.Lost) else first
    )
    results: list[PropertyResult] = [
        result(model, p, Verdict.UNKNOWN, reason=by_index[i + 1].reason)
        if isinstance(by_index[i + 1], workers.Lost)
        else by_index[i + 1]
        for i, p in enumerate(properties)
    ]
    return bounds, results


def _beside_explicit(
    model: Model,
    properties: Sequence[Property],
    shipped: Any,
    handover: Any,
    jobs: int,
    once: float,
    budget: Callable[[Property], float],
    max_depth: int,
    open_bounds: tuple[str, ...],
) -> tuple[BoundsOutcome, list[PropertyResult]]:
    """The symbolic checks, run while the explicit engine explores, with the answers they would
    have had with its findings given from the start. A task that starts before they are handed
    over starts without them; once they are, such a property is checked again with them when
    its answer depends on them:

    * it asked for the explicit engine's trace, and there is one: a property of the kind
      ``reachable`` always asks (the trace is its witness when the transition formula allows
      it), a safety property when its own search found no counterexample;
    * it was proved, but its own search did not reach its antecedent (vacuous, or vacuity
      undecided), and the explicit engine reached it.

    Otherwise the answer is the one the findings would have given: a guide that was not asked
    for changes nothing, and a reached antecedent only spares the search for it, which comes
    after the proof and found it. So whether a task started before or after the handover
    (which depends on timing) does not change its answer.

    The question which bounds cut is asked only once the findings are handed over, and only
    when they do not answer it (no search of the explicit engine's was complete)."""
    pool = workers.Pool(jobs, shipped)
    pool.limit(jobs - 1)  # the explicit engine has a core until it hands over
    handover.on_interrupt(pool.interrupt)
    futures: dict[int, Any] = {}  # task index (0: bounds) -> its answer to come

    from turnproof.checks.proofs import Stage

    stage_of: dict[int, Any] = {}  # the stage two each property ran, once it has started

    def task(i: int, handed: workers.Findings | None, stage: Any = None) -> Any:
        p = properties[i]
        if handed is None:  # not handed over yet: an early task
            return workers.Task(
                shipped, p.name, budget(p), max_depth, False, open_bounds, (), True, stage
            )
        guide = tuple(handed.guides.get(p.name, ()))
        return workers.Task(
            shipped,
            p.name,
            budget(p),
            max_depth,
            p.name in handed.reached,
            open_bounds,
            guide,
            stage=stage,
        )

    def made_when_started(i: int, stage: Any) -> Any:
        return task(i, handover.now(), stage)

    def submit(k: int, stage: Any) -> Any:
        if _second(stage):
            stage_of[k - 1] = stage
        made = functools.partial(made_when_started, k - 1, stage)
        return pool.submit(made, first=_second(stage))

    def submit_invariant(k: int, fields: tuple[str, ...]) -> Any:
        p = properties[k - 1]
        return pool.submit(
            workers.Task(
                shipped,
                p.name,
                budget(p),
                max_depth,
                open_bounds=open_bounds,
                stage=Stage(shared=fields),
                invariant=True,
            ),
            first=True,
        )

    staged = stageable(properties)

    def cost(i: int) -> tuple[bool, bool, bool, int, int]:
        # Those whose answer cannot depend on the handover first; the others may then start
        # once it has come, and need not be checked twice. In each, the slowest kinds first,
        # then stage one of the staged properties, so that their stage two comes in good time.
        p = properties[i]
        later = p.antecedent is not None or p.kind == "reachable"
        expected = _expected_cost(workers.Task(shipped, p.name, 0.0, 0), properties)
        return later, expected > 0, i not in staged, expected, i

    try:
        # Each task is made when a worker starts it: with the handover, if it has come.
        order = [i + 1 for i in sorted(range(len(properties)), key=cost)]
        futures.update(_staged(submit, submit_invariant, properties, order))
        handed = handover.wait()
        pool.limit(jobs)
        if handed is None:
            raise KeyboardInterrupt
        if handed.cuts is not None:
            futures[0] = _done(bounds_from_search(model, handed.cuts))
        else:
            futures[0] = pool.submit(workers.Task(shipped, "", once, max_depth))
        for i, p in enumerate(properties):
            answer = futures[i + 1].result()
            guide = tuple(handed.guides.get(p.name, ()))
            if not isinstance(answer, workers.Early):
                continue  # made with the handover, or lost
            r = answer.result
            if (answer.guide_asked and guide) or (
                p.name in handed.reached and (r.vacuous or r.vacuity_undecided)
            ):
                # Checked again as it was: in its stage two when it had one; whole when it was
                # not staged or its stage one settled it (Spacer's whole share gives the same
                # answer as its probe, the same search going on no further).
                futures[i + 1] = pool.submit(task(i, handed, stage_of.get(i)))
        answers = {i: _unwrapped(f.result()) for i, f in futures.items()}
        if handover.interrupted:  # the tasks ended by the interrupt are lost, not answered
            raise KeyboardInterrupt
    except (KeyboardInterrupt, CancelledError):
        pool.interrupt()
        done = workers.answered([futures.get(i, _done(None)) for i in range(len(properties) + 1)])
        done = {i: _unwrapped(a) for i, a in done.items() if a is not None and _final(a)}
        raise Interrupted(_unfinished(model, properties, done)) from None
    except BaseException:
        pool.interrupt()
        raise
    finally:
        pool.close()
    return _gathered(model, properties, answers)


def _final(answer: Any) -> bool:
    """Whether a worker's answer stands whatever the explicit engine hands over: an early
    task's only when it asked for no guide and its own search reached the antecedent (if it
    has one), since either could change once the explicit engine's findings are known."""
    if not isinstance(answer, workers.Early):
        return True
    r = answer.result
    return not answer.guide_asked and not (
        isinstance(r, PropertyResult) and (r.vacuous or r.vacuity_undecided)
    )


def _unwrapped(answer: Any) -> Any:
    """A worker's answer, without the note an early task adds (:class:`workers.Early`)."""
    return answer.result if isinstance(answer, workers.Early) else answer


def _now(fn: Callable[..., Any], *args: Any) -> Future[Any]:
    """A future that holds what ``fn(*args)``, called now, returns or raises (an interrupt
    goes through)."""
    f: Future[Any] = Future()
    try:
        f.set_result(fn(*args))
    except Exception as exc:
        f.set_exception(exc)
    return f


def _done(value: Any) -> Any:
    """A future that already holds ``value``."""
    f: Future[Any] = Future()
    f.set_result(value)
    return f


def _bounds_lost(model: Model, reason: str) -> BoundsOutcome:
    """The answer of a bounds task whose worker was lost: nothing decided."""
    names = [b.name for b in model.ruleset.bound_specs]
    return BoundsOutcome({}, [], names, reason=reason, domain_undecided=reason)


def _rebuilds(scenario: Any, model: Model, properties: Sequence[Property]) -> bool:
    """``scenario`` builds ``model`` and every one of ``properties`` (by name)."""
    if scenario is None:
        return False
    built = scenario.build()
    names = {p.name for p in built.properties}
    return built.model.ruleset is model.ruleset and all(p.name in names for p in properties)


def bounds_budget(timeout_s: float) -> float:
    """The time given to the question which bounds cut a reachable transition: half a
    property's budget (it is asked once per model, and only adds a note to the results)."""
    return timeout_s / 2


def _expected_cost(task: Any, properties: Sequence[Property]) -> int:
    """A rough rank of a task's running time (lower runs first)."""
    if not task.prop:
        return 1
    prop = next(p for p in properties if p.name == task.prop)
    if prop.kind == "terminates":
        return 0
    if prop.antecedent is not None and not task.antecedent_reached:
        return 1
    if prop.kind == "reachable":
        return 3 if task.guide else 2  # the explicit engine's path is quick to follow
    return 3


def property_task(
    model: Model,
    prop: Property,
    *,
    timeout_s: float,
    max_depth: int,
    antecedent_reached: bool = False,
    open_bounds: Sequence[str] = (),
    guide: Sequence[str] = (),
    stage: Any = None,
) -> PropertyResult | Probed:
    """One property, timed. :data:`turnproof.checks.proofs.guide_asked` says afterwards
    whether it asked for ``guide``. ``stage``: the part of a safety property's check to run
    (a :class:`~turnproof.checks.proofs.Stage`); stage one answers :class:`Probed` when it did
    not decide the property."""
    from turnproof.checks import proofs
    from turnproof.checks.proofs import check_property

    proofs.guide_asked = False
    t0 = time.perf_counter()
    try:
        r = check_property(
            model,
            prop,
            timeout_s=timeout_s,
            max_depth=max_depth,
            antecedent_reached=antecedent_reached,
            open_bounds=open_bounds,
            guide=guide,
            stage=stage,
        )
    except proofs.Unsettled as exc:
        return Probed(exc.fields, time.perf_counter() - t0)
    r.seconds = time.perf_counter() - t0
    return r


@dataclass(frozen=True)
class Probed:
    """Stage one's answer for a safety property it did not decide (see
    :func:`check_properties`): the control fields its query reads, and the seconds it took."""

    fields: tuple[str, ...]
    seconds: float


@dataclass(frozen=True)
class SharedInvariant:
    """Whether the invariant stage two shares was inferred (it is then in the invariant cache),
    why not, and the seconds it took."""

    ok: bool
    reason: str
    seconds: float


def shared_invariant_task(
    model: Model,
    prop: Property,
    fields: Sequence[str],
    *,
    budget_s: float,
    open_bounds: Sequence[str] = (),
) -> SharedInvariant:
    """Infer the control invariant over ``fields`` on ``prop``'s encoding, timed, in the share
    of ``budget_s`` (the property's budget) that the control invariant has
    (:data:`~turnproof.checks.proofs.INVARIANT_SHARE`)."""
    from turnproof.checks import proofs
    from turnproof.checks.bmc import Deadline

    t0 = time.perf_counter()
    window = Deadline(budget_s * proofs.INVARIANT_SHARE)
    inv = proofs.shared_invariant(model, prop, fields, window, open_bounds)
    return SharedInvariant(inv.ok, inv.reason, time.perf_counter() - t0)


#: The most fields an invariant shared in stage two may have: the union of the fields of the
#: properties it serves (on the default Magic model, 21 for its five slowest safety properties:
#: 22 s, where the union over all its safety properties, 63 fields, took more than 600 s).
SHARED_FIELDS_MAX = 24
#: The fewest unsettled properties of one encoding that share an invariant in stage two. It
#: puts the invariant before Spacer's whole share, which pays when its cost is shared: on the
#: default Magic model, the five slow properties without monitors took 84 s against 178 s,
#: but the two that share the ``passed`` monitor took 104 s against 47 s (the invariant proves
#: neither; Spacer does, after it).
SHARED_MIN_GROUP = 3


def shared_groups(
    properties: Sequence[Property], unsettled: Mapping[int, Probed]
) -> list[tuple[list[int], tuple[str, ...]]]:
    """The properties (by index) that stage one left unsettled, grouped by encoding (their
    monitors and the bounds each leaves open), with the fields of the invariant they share:
    the union of their own, sorted; none for a group of fewer than :data:`SHARED_MIN_GROUP`,
    or when the union has more than :data:`SHARED_FIELDS_MAX` fields (each property then goes
    on alone, Spacer first)."""
    out = []
    for members in _by_encoding(properties, sorted(unsettled)):
        fields = tuple(sorted(set().union(*(unsettled[i].fields for i in members))))
        if len(members) < SHARED_MIN_GROUP or len(fields) > SHARED_FIELDS_MAX:
            fields = ()
        out.append((members, fields))
    return out


def _by_encoding(properties: Sequence[Property], indices: Iterable[int]) -> list[list[int]]:
    """The properties ``indices`` name, grouped by the encoding they are checked on (their
    monitors and the bounds each leaves open), in the order of each group's first."""
    from turnproof.checks.invariants import _where

    groups: dict[Any, list[int]] = {}
    for i in indices:
        p = properties[i]
        mons = tuple((m.name, _where(m.init), _where(m.update)) for m in p.monitors)
        groups.setdefault((mons, tuple(p.for_all)), []).append(i)
    return list(groups.values())


def stageable(properties: Sequence[Property]) -> set[int]:
    """The safety properties (by index) that are staged: those with at least
    :data:`SHARED_MIN_GROUP` - 1 others of their kind on the same encoding, which could share
    an invariant in stage two. The others are checked whole at once: stage one would only
    delay them (Spacer's probe is searched again in its whole share)."""
    safety = [i for i, p in enumerate(properties) if p.kind in SAFETY_KINDS]
    groups = _by_encoding(properties, safety)
    return {i for group in groups if len(group) >= SHARED_MIN_GROUP for i in group}


@dataclass
class BoundsOutcome:
    """Which declared bounds cut a reachable transition: ``reached`` (bound -> the depth of the
    shortest path to a state where a rule instance is cut by it), ``unreached`` (proved never
    to cut), ``undecided`` (with ``reason``)."""

    reached: dict[str, int]
    unreached: list[str]
    undecided: list[str]
    reason: str = ""
    #: A reachable transition to a state outside the schema's domains, described (the engines
    #: treat it as a modelling error), or empty.
    domain_error: str = ""
    #: Why it was not decided whether such a transition is reachable; empty when it was.
    domain_undecided: str = ""
    #: The time the question took (set by :func:`bounds_task`).
    seconds: float = 0.0

    def apply(self, r: PropertyResult) -> None:
        """Record the outcome on a property's result."""
        r.bounds_reached = dict(self.reached)
        if self.domain_undecided and r.verdict is Verdict.PROVED:
            note = (
                "proved for the transitions that keep every field in its domain; not decided "
                f"whether a reachable one leaves it ({self.domain_undecided})"
            )
            r.reason = f"{r.reason}; {note}" if r.reason else note
        # A bound the result holds for whatever its value needs no note on where it cuts.
        undecided = [b for b in self.undecided if b not in r.for_all]
        if undecided:
            note = (
                f"not decided whether the bounds {', '.join(undecided)} cut a reachable "
                f"transition ({self.reason})"
            )
            r.reason = f"{r.reason}; {note}" if r.reason else note


def bounds_task(model: Model, *, timeout_s: float, max_depth: int) -> BoundsOutcome:
    """Which declared bounds cut a reachable transition (see :class:`BoundsOutcome`)."""
    from turnproof.checks.proofs import bounds_reached

    t0 = time.perf_counter()
    outcome = bounds_reached(Encoding(model), timeout_s=timeout_s, max_depth=max_depth)
    outcome.seconds = time.perf_counter() - t0
    return outcome


def bounds_from_search(model: Model, cuts: Mapping[str, int]) -> BoundsOutcome:
    """The answer to the bounds question from a complete explicit search of ``model`` (at its
    bounds, as the question is asked): ``cuts`` gives each bound that cut a transition there and
    the depth of the shallowest state where it does (:meth:`~turnproof.checks.explicit.
    Exploration.first_cuts`); every other declared bound never cuts a reachable transition,
    and none leaves a field's domain, since the search stops on such a transition."""
    declared = [b.name for b in model.ruleset.bound_specs]
    unknown = sorted(set(cuts) - set(declared))
    if unknown:
        raise ValueError(f"bounds not declared by {model.ruleset.name}: {', '.join(unknown)}")
    reached = dict(sorted(cuts.items()))
    return BoundsOutcome(reached, [b for b in declared if b not in reached], [])


def result(model: Model, prop: Property, verdict: Verdict, **kw: Any) -> PropertyResult:
    """A symbolic-engine result for ``prop`` (the caller sets the time)."""
    return PropertyResult(
        name=prop.name,
        kind=prop.kind,
        description=prop.description,
        verdict=verdict,
        engine="symbolic",
        expect=prop.expect.value,
        states=0,
        transitions=0,
        seconds=0.0,
        bounds=dict(model.bounds),
        citations=prop.citations,
        **kw,
    )
