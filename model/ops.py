"""The operations protocol that rules are written against, and its concrete implementation.

A rule never uses Python's ``if``/``and``/``or`` on state values: it goes through the operations
object ``x`` it receives (``x.require``, ``x.If``, ``x.And`` ...). Given concrete values,
:class:`ConcreteOps` computes the successor directly; given Z3 terms, the symbolic engine's
implementation (in ``checks/``) builds the transition formula from the very same rule code.

Guards come in two flavours:

* ``x.require(cond)``: the rule is not enabled unless ``cond`` holds;
* ``x.within(cond, bound)``: the rule would take the state beyond a declared bound (a full stack,
  a hand at its cap). The transition is cut, and the engines report the bound as *reached*, so a
  verdict never hides that the bound mattered.

Structured values (records, sequences, arrays, whole states) are tuples; ``x.If`` and ``x.Eq``
work on them leaf by leaf.

Both branches of ``x.If`` are evaluated (a Z3 term has no short circuit), so every operation other
than ``require`` and ``within`` is total: pushing onto a full sequence returns it unchanged, the top
of an empty one is the empty slot, and so on. A rule that means "push" guards it with ``within``. ``x.when(cond, update, value)`` is the
lazy form of ``x.If(cond, update(value), value)``: the concrete engine skips the update when
``cond`` is false, the symbolic one builds both sides.

``x.cases(key, {value: branch, ...}, default)`` selects one of several lazily built values by
``key`` (a zero-argument function per value).

Guards inside a lazy branch (the update of ``x.when``, a branch of ``x.cases``) apply only when
that branch is taken: the concrete engine never runs the other branches, and the symbolic engine
conjoins each such guard with its branch condition (a path condition).

Several ``x.require`` calls in a row mean their conjunction; the concrete engine stops at the
first false one, so rules put their most selective guard first.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Protocol

from turnproof.model.schema import Seq, Term


class Disabled(Exception):
    """Raised by the concrete ``require``: the rule is not enabled in this state."""


class BoundReached(Exception):
    """Raised by the concrete ``within``: the rule would leave the declared bounds."""

    def __init__(self, bound: str) -> None:
        super().__init__(bound)
        self.bound = bound


class Ops(Protocol):
    """What a rule may use. Both engines implement every method."""

    def require(self, cond: Term) -> None: ...
    def within(self, cond: Term, bound: str) -> None: ...
    def If(self, cond: Term, then: Any, else_: Any) -> Any: ...
    def when(self, cond: Term, update: Callable[[Any], Any], value: Any) -> Any: ...
    def cases(
        self, key: Term, table: Mapping[int, Callable[[], Any]], default: Callable[[], Any]
    ) -> Any: ...
    def And(self, *conds: Term) -> Term: ...
    def Or(self, *conds: Term) -> Term: ...
    def Not(self, cond: Term) -> Term: ...
    def Implies(self, a: Term, b: Term) -> Term: ...
    def Eq(self, a: Any, b: Any) -> Term: ...
    def Sum(self, *terms: Term) -> Term: ...
    def Min(self, a: Term, b: Term) -> Term: ...
    def Max(self, a: Term, b: Term) -> Term: ...
    def count(self, conds: Iterable[Term]) -> Term: ...
    def get(self, arr: Sequence[Any], index: Term) -> Any: ...
    def set(self, arr: Sequence[Any], index: Term, value: Any) -> tuple[Any, ...]: ...
    def seq_is_empty(self, seq: Seq) -> Term: ...
    def seq_is_full(self, seq: Seq) -> Term: ...
    def seq_top(self, seq: Seq) -> Any: ...
    def seq_get(self, seq: Seq, index: Term) -> Any: ...
    def seq_push(self, seq: Seq, item: Any) -> Seq: ...
    def seq_pop(self, seq: Seq) -> Seq: ...
    def seq_remove(self, seq: Seq, index: Term) -> Seq: ...
    def seq_clear(self, seq: Seq) -> Seq: ...
    def seq_filter(self, seq: Seq, keep: Callable[[Any], Term]) -> Seq: ...
    def seq_any(self, seq: Seq, pred: Callable[[Any], Term]) -> Term: ...
    def seq_all(self, seq: Seq, pred: Callable[[Any], Term]) -> Term: ...
    def seq_count(self, seq: Seq, pred: Callable[[Any], Term]) -> Term: ...


def _rebuild(like: Any, items: Iterable[Any]) -> Any:
    """A tuple of the same kind as ``like`` (NamedTuple, State or plain) holding ``items``."""
    make = getattr(type(like), "_make", None)
    return make(items) if make is not None else tuple(items)


class ConcreteOps:
    """Plain Python semantics: guards raise, values are computed directly."""

    __slots__ = ()

    # -- guards ---------------------------------------------------------------------------
    def require(self, cond: Term) -> None:
        if not cond:
            raise Disabled

    def within(self, cond: Term, bound: str) -> None:
        if not cond:
            raise BoundReached(bound)

    # -- logic ----------------------------------------------------------------------------
    def If(self, cond: Term, then: Any, else_: Any) -> Any:
        return then if cond else else_

    def when(self, cond: Term, update: Callable[[Any], Any], value: Any) -> Any:
        return update(value) if cond else value

    def cases(
        self, key: Term, table: Mapping[int, Callable[[], Any]], default: Callable[[], Any]
    ) -> Any:
        return table.get(key, default)()

    def And(self, *conds: Term) -> Term:
        return all(conds)

    def Or(self, *conds: Term) -> Term:
        return any(conds)

    def Not(self, cond: Term) -> Term:
        return not cond

    def Implies(self, a: Term, b: Term) -> Term:
        return (not a) or bool(b)

    def Eq(self, a: Any, b: Any) -> Term:
        return a == b

    # -- arithmetic -----------------------------------------------------------------------
    def Sum(self, *terms: Term) -> Term:
        return sum(terms)

    def Min(self, a: Term, b: Term) -> Term:
        return a if a <= b else b

    def Max(self, a: Term, b: Term) -> Term:
        return a if a >= b else b

    def count(self, conds: Iterable[Term]) -> Term:
        return sum(1 for c in conds if c)

    # -- arrays ---------------------------------------------------------------------------
    # An index outside the array (which only a state no rule reaches can hold, such as one the
    # invariant inference proposes) reads the last entry and writes nothing, as the symbolic
    # operations do, so that both engines give every well-formed state the same successors.
    # (Indices are never negative: every index field's domain starts at 0.)
    def get(self, arr: Sequence[Any], index: Term) -> Any:
        try:
            return arr[index]
        except IndexError:
            return arr[-1]

    def set(self, arr: Sequence[Any], index: Term, value: Any) -> tuple[Any, ...]:
        out = list(arr)
        try:
            out[index] = value
        except IndexError:
            pass
        return tuple(out)

    # -- sequences: slots at or beyond the length always hold the all-zero empty slot -----
    def seq_is_empty(self, seq: Seq) -> Term:
        return seq.length == 0

    def seq_is_full(self, seq: Seq) -> Term:
        return seq.length == len(seq.slots)

    def seq_top(self, seq: Seq) -> Any:
        return seq.slots[seq.length - 1] if seq.length else _empty_of(seq.slots)

    def seq_get(self, seq: Seq, index: Term) -> Any:
        return seq.slots[index] if 0 <= index < seq.length else _empty_of(seq.slots)

    def seq_push(self, seq: Seq, item: Any) -> Seq:
        n = seq.length
        if n >= len(seq.slots):
            return seq
        slots = seq.slots
        return Seq(n + 1, slots[:n] + (item,) + slots[n + 1 :])

    def seq_pop(self, seq: Seq) -> Seq:
        n = seq.length
        if n == 0:
            return seq
        slots = seq.slots
        return Seq(n - 1, slots[: n - 1] + (_empty_of(slots),) + slots[n:])

    def seq_remove(self, seq: Seq, index: Term) -> Seq:
        n = seq.length
        if not 0 <= index < n:
            return seq
        slots = seq.slots
        return Seq(n - 1, slots[:index] + slots[index + 1 :] + (_empty_of(slots),))

    def seq_clear(self, seq: Seq) -> Seq:
        empty = _empty_of(seq.slots)
        return Seq(0, (empty,) * len(seq.slots))

    def seq_filter(self, seq: Seq, keep: Callable[[Any], Term]) -> Seq:
        kept = tuple(item for item in seq.slots[: seq.length] if keep(item))
        empty = _empty_of(seq.slots)
        return Seq(len(kept), kept + (empty,) * (len(seq.slots) - len(kept)))

    def seq_any(self, seq: Seq, pred: Callable[[Any], Term]) -> Term:
        return any(pred(item) for item in seq.slots[: seq.length])

    def seq_all(self, seq: Seq, pred: Callable[[Any], Term]) -> Term:
        return all(pred(item) for item in seq.slots[: seq.length])

    def seq_count(self, seq: Seq, pred: Callable[[Any], Term]) -> Term:
        return sum(1 for item in seq.slots[: seq.length] if pred(item))


def _empty_of(slots: tuple[Any, ...]) -> Any:
    """The canonical empty slot: all zeros (``SeqDomain`` insists that its default is)."""
    sample = slots[-1]
    if isinstance(sample, tuple):
        return _rebuild(sample, (0,) * len(sample))
    return 0
