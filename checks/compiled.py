"""Rule instances compiled to straight-line Python, for the explicit engine.

The rules are written once, against the operations object ``x`` (``model/ops.py``). The
explicit engine may run them through :class:`~turnproof.model.ops.ConcreteOps` (the
*interpreted* path: one method call per operation, an exception for each disabled rule), or
through the functions this module builds from the very same rule code (the *compiled* path).

How: each rule instance is run once, at compile time, on a state whose fields are symbolic
values (:class:`Sym`) and on an operations object that emits Python source instead of
computing (:class:`EmitOps`). Guards become ``if not c: break``, a bound that is reached
becomes a recorded cut, the lazy branches of ``x.when`` and ``x.cases`` become ``if``
statements, the other operations become inline expressions (or, for the sequence edits, a call
to the concrete operation itself), and the successor becomes one tuple construction. Values
that are known at compile time (bounds, parameters, cards) are folded away.

Each value of the dispatch field (the field the rules' ``when`` names, see
:func:`turnproof.checks.explicit.dispatch_table`) gets one function holding the terminal test and
every rule instance that can fire there, in the rule set's order; the dispatch field is a
constant inside it, so stage tests fold. A function returns the list of ``(instance index,
successor)`` pairs, with ``(-1, bound)`` for a transition cut at a declared bound, exactly what
the interpreted path computes, in the same order.

A rule instance whose code the tracer cannot follow (a Python ``if`` on a state value, an
operation with no emitter, anything that raises while tracing) falls back to the interpreted
path, for that instance only: the generated function calls the interpreted rule there. The
compilation says which instances fell back, and why.

Semantics: every emitted expression is the Python operation the concrete engine would run on
the same values, or the concrete operation itself, so successors are equal, of the same types,
in the same order; tests compare both paths on every built-in rule set and shipped scenario.
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from enum import IntEnum
from types import MethodType
from typing import Any

from turnproof.model.ops import BoundReached, ConcreteOps, Disabled
from turnproof.model.rules import Model
from turnproof.model.schema import (
    ArrayDomain,
    Domain,
    Leaf,
    RecordDomain,
    Seq,
    SeqDomain,
    State,
    _collect_empty,
    _fits,
)

Expand = Callable[[State], Sequence[tuple[int, Any]]]


class NotTraceable(Exception):
    """The tracer cannot follow this code: the rule instance stays interpreted."""


class _Dead(Exception):
    """Every way on from here is disabled or cut (a guard that is false at compile time)."""


_NC = object()  # no known constant
_SIMPLE = re.compile(r"^(?:[A-Za-z_][A-Za-z_0-9]*|-?[0-9]+|True|False|None)$")

#: A shape: ``None`` for a scalar, else ``(type, (shape of each item, ...))``.
Shape = Any


def domain_shape(d: Domain) -> Shape:
    """The shape of the values of a schema domain."""
    if isinstance(d, Leaf):
        return None
    if isinstance(d, RecordDomain):
        return (d.cls, tuple(None for _ in d.fields))
    if isinstance(d, ArrayDomain):
        return (tuple, tuple(domain_shape(d.elem) for _ in range(d.size)))
    if isinstance(d, SeqDomain):
        elem = domain_shape(d.elem)
        return (Seq, (None, (tuple, tuple(elem for _ in range(d.capacity)))))
    raise NotTraceable(f"no shape for domain {d!r}")


def empty_of(shape: Shape) -> Any:
    """What ``_empty_of`` in ``model/ops.py`` gives for slots of this shape."""
    if shape is None:
        return 0
    cls, kids = shape
    make = getattr(cls, "_make", None)
    zeros = (0,) * len(kids)
    return make(zeros) if make is not None else tuple(zeros)


def _typing_code(shape: Shape, var: str, consts: dict[str, Any]) -> str | None:
    """Source that gives the value ``var`` of this shape (plain tuples, or already typed) its
    types back; ``None`` when it has none to give (a scalar, a tuple of scalars)."""
    if shape is None:
        return None
    cls, kids = shape
    parts = [_typing_code(k, f"{var}[{i}]", consts) for i, k in enumerate(kids)]
    if cls is tuple and not any(parts):
        return None
    inner = ", ".join(p or f"{var}[{i}]" for i, p in enumerate(parts))
    if cls is tuple:
        return f"({inner},)"
    name = f"_C{len(consts)}"
    consts[name] = cls
    return f"_new({name}, ({inner},))"


def state_typing(schema: Any) -> Callable[[Any], State]:
    """The function that gives a state made of plain tuples (see :func:`fused_search`) the
    schema's types: its state class, records and sequences, as the interpreted rules make
    them. A typed state is given back equal, of the same types."""
    consts: dict[str, Any] = {"_new": tuple.__new__}
    shapes = [domain_shape(d) for d in schema.domains.values()]
    fields = [_typing_code(sh, f"f{i}", consts) or f"f{i}" for i, sh in enumerate(shapes)]
    consts["_S"] = schema.state_cls
    source = "\n".join(
        [
            "def typed(s):",
            "    " + ", ".join(f"f{i}" for i in range(len(shapes))) + ", = s",
            f"    return _new(_S, ({', '.join(fields)},))",
        ]
    )
    exec(compile(source, "<turnproof state typing>", "exec"), consts)  # noqa: S102
    typed: Callable[[Any], State] = consts["typed"]
    return typed


class _Block:
    """A block of emitted code: values computed in it are usable only while it is live."""

    __slots__ = ("live",)

    def __init__(self) -> None:
        self.live = True


class Sym:
    """A scalar known only when the generated code runs: the Python expression that computes
    it (a name, mostly), whether it is surely a ``bool``, and, for the dispatch field, the
    constant it is known to equal. A structured value (a record, an array, a sequence) is never
    a ``Sym``: it is a real tuple of its type whose scalars are, so that rule code can read its
    fields, take its length and even its type as on a concrete state."""

    __slots__ = ("_em", "_code", "_isbool", "_const", "_block", "_lazy")

    def __init__(
        self,
        em: Emitter,
        code: str,
        isbool: bool = False,
        const: Any = _NC,
        lazy: bool = False,
    ) -> None:
        self._em = em
        self._code = code
        self._isbool = isbool
        self._const = const
        self._block = em.block
        self._lazy = lazy  # a read such as ``f7[1][0]``, bound to a name where first used

    # -- no Python control flow on a value known only at run time ----------------------------
    def __bool__(self) -> bool:
        raise NotTraceable("a Python condition on a state value")

    def __index__(self) -> int:
        raise NotTraceable("a state value used as a Python index")

    __int__ = __index__

    def __hash__(self) -> int:
        raise NotTraceable("a state value used as a key")

    def __len__(self) -> int:
        raise NotTraceable("a scalar used as a tuple")

    def __iter__(self) -> Any:
        raise NotTraceable("a scalar used as a tuple")

    def __getitem__(self, k: Any) -> Any:
        raise NotTraceable("a scalar used as a tuple")


def _val(v: Any) -> Any:
    """The constant a value is known to be, or the value."""
    if isinstance(v, Sym) and v._const is not _NC:
        return v._const
    return v


def _isbool(v: Any) -> bool:
    v = _val(v)
    return v._isbool if isinstance(v, Sym) else type(v) is bool


def _binop(op: str, fn: Callable[[Any, Any], Any], isbool: bool, reflected: bool = False) -> Any:
    def method(self: Sym, other: Any) -> Any:
        a, b = (other, self) if reflected else (self, other)
        av, bv = _val(a), _val(b)
        if not isinstance(av, Sym) and not isinstance(bv, Sym):
            return fn(av, bv)
        em = self._em
        both_bool = op in ("&", "|", "^") and _isbool(av) and _isbool(bv)
        return em.expr(f"({em.operand(av)} {op} {em.operand(bv)})", None, isbool or both_bool)

    return method


def _unop(op: str, fn: Callable[[Any], Any]) -> Any:
    def method(self: Sym) -> Any:
        v = _val(self)
        if not isinstance(v, Sym):
            return fn(v)
        return self._em.expr(f"({op}{self._em.operand(v)})")

    return method


_BINARY: dict[str, tuple[str, Callable[[Any, Any], Any], bool]] = {
    "add": ("+", lambda a, b: a + b, False),
    "sub": ("-", lambda a, b: a - b, False),
    "mul": ("*", lambda a, b: a * b, False),
    "floordiv": ("//", lambda a, b: a // b, False),
    "mod": ("%", lambda a, b: a % b, False),
    "and": ("&", lambda a, b: a & b, False),
    "or": ("|", lambda a, b: a | b, False),
    "xor": ("^", lambda a, b: a ^ b, False),
}
for _name, (_op, _fn, _b) in _BINARY.items():
    setattr(Sym, f"__{_name}__", _binop(_op, _fn, _b))
    setattr(Sym, f"__r{_name}__", _binop(_op, _fn, _b, reflected=True))
_COMPARE: dict[str, tuple[str, Callable[[Any, Any], Any]]] = {
    "eq": ("==", lambda a, b: a == b),
    "ne": ("!=", lambda a, b: a != b),
    "lt": ("<", lambda a, b: a < b),
    "le": ("<=", lambda a, b: a <= b),
    "gt": (">", lambda a, b: a > b),
    "ge": (">=", lambda a, b: a >= b),
}
for _name, (_op, _fn) in _COMPARE.items():
    setattr(Sym, f"__{_name}__", _binop(_op, _fn, True))
for _name, _op, _fn1 in (
    ("neg", "-", lambda a: -a),
    ("pos", "+", lambda a: +a),
    ("invert", "~", lambda a: ~a),
):
    setattr(Sym, f"__{_name}__", _unop(_op, _fn1))


def _has_sym(v: Any) -> bool:
    if isinstance(v, Sym):
        return True
    return isinstance(v, tuple) and any(_has_sym(c) for c in v)


def shape_of(v: Any) -> Shape:
    if isinstance(v, Sym):
        return None
    if isinstance(v, tuple):
        return (type(v), tuple(shape_of(c) for c in v))
    return None


class Emitter:
    """Collects the lines of one generated function; names its temporaries and constants."""

    def __init__(self, consts: dict[str, Any], counter: list[int], indent: int) -> None:
        self.consts = consts  # the generated module's namespace: name -> object
        self._const_names: dict[int, str] = {id(v): k for k, v in consts.items()}
        self.counter = counter  # shared, so names never clash between instances
        self.lines: list[str] = []
        self.indent = indent
        self.memo: list[dict[str, Sym]] = [{}]
        self.block = _Block()
        self.inline = 0
        self.origins: dict[int, tuple[Any, str, _Block]] = {}

    # -- names -----------------------------------------------------------------------------
    def fresh(self, prefix: str = "t") -> str:
        self.counter[0] += 1
        return f"{prefix}{self.counter[0]}"

    def const(self, v: Any) -> str:
        name = self._const_names.get(id(v))
        if name is None or self.consts.get(name) is not v:
            name = self.fresh("_k")
            self.consts[name] = v
            self._const_names[id(v)] = name
        return name

    def line(self, text: str) -> None:
        self.lines.append("    " * self.indent + text)

    # -- values ----------------------------------------------------------------------------
    def expr(self, code: str, shape: Shape = None, isbool: bool = False) -> Any:
        """A value computed by ``code``: bound to a temporary unless trivial (or inline); a
        structured one as its tuple of scalars (see :meth:`structure`)."""
        if self.inline or _SIMPLE.match(code):
            if shape is not None:
                return self.structure(code if _SIMPLE.match(code) else f"({code})", shape)
            return Sym(self, code, isbool)
        for scope in reversed(self.memo):
            hit = scope.get(code)
            if hit is not None:
                return hit
        name = self.fresh()
        self.line(f"{name} = {code}")
        value: Any = Sym(self, name, isbool) if shape is None else self.structure(name, shape)
        self.memo[-1][code] = value
        return value

    def structure(self, code: str, shape: Shape) -> Any:
        """The value that ``code`` gives, of this shape, as a real tuple of its type whose
        parts read ``code[k]``; the tuple remembers ``code``, so that it is emitted as
        ``code`` while the rule has not rebuilt it."""
        if shape is None:
            return Sym(self, code, lazy=not _SIMPLE.match(code))
        cls, kids = shape
        value = _rebuild(cls, [self.structure(f"{code}[{k}]", ks) for k, ks in enumerate(kids)])
        self.origins[id(value)] = (value, code, self.block)
        return value

    def code(self, v: Any) -> str:
        """Python source that gives the value ``v`` itself (same type, same contents)."""
        if isinstance(v, Sym):
            if not v._block.live:
                raise NotTraceable("a value computed in one branch used outside it")
            if v._lazy:
                return self._bind(v._code)
            return v._code
        t = type(v)
        if t is int or t is bool or v is None:
            return repr(v)
        if isinstance(v, tuple) and _has_sym(v):
            origin = self.origins.get(id(v))
            if origin is not None and origin[0] is v:
                if not origin[2].live:
                    raise NotTraceable("a value computed in one branch used outside it")
                return self._bind(origin[1])
            parts = [self.code(c) for c in v]
            inner = ", ".join(parts) + ("," if len(parts) == 1 else "")
            if t is tuple:
                return f"({inner})"
            if issubclass(t, State) and parts == [f"f{i}" for i in range(len(parts))]:
                return "s"
            return f"_new({self.const(t)}, ({inner}))"
        return self.const(v)

    def _bind(self, code: str) -> str:
        if _SIMPLE.match(code):
            return code
        sym = self.expr(code)
        return sym._code if isinstance(sym, Sym) else code

    def origin(self, v: Any) -> str | None:
        """The code a structured value was read from, if the rule has not rebuilt it."""
        origin = self.origins.get(id(v))
        return None if origin is None or origin[0] is not v else self.code(v)

    def operand(self, v: Any) -> str:
        """Source for ``v`` where only its value matters (an operand of arithmetic or of a
        comparison): enum members as plain numbers."""
        v = _val(v)
        if isinstance(v, IntEnum):
            return repr(int(v))
        return self.code(v)

    def cond(self, v: Any) -> str:
        return self.operand(v)

    # -- structure -------------------------------------------------------------------------
    def select(self, c: Any, a: Any, b: Any) -> Any:
        """``a if c else b``, with ``c`` known only at run time."""
        ca, cb = self.code(a), self.code(b)
        if ca == cb:
            return a
        if (
            isinstance(a, tuple)
            and isinstance(b, tuple)
            and type(a) is type(b)
            and len(a) == len(b)
            and _has_sym(a)
            and _has_sym(b)
            and self.origin(a) is None
            and self.origin(b) is None
        ):
            return _rebuild(type(a), [self.select(c, x, y) for x, y in zip(a, b)])
        return self.expr(
            f"({ca} if {self.cond(c)} else {cb})", shape_of(a), _isbool(a) and _isbool(b)
        )

    def exit_line(self, bound: str | None) -> None:
        if bound is not None:
            self.line(f"_a((-1, {bound!r}))")
        self.line("break")

    def guard(self, cond: Any, bound: str | None) -> None:
        c = _val(cond)
        if not isinstance(c, Sym):
            if c:
                return
            if self.inline:
                raise NotTraceable("a guard inside a predicate")
            self.exit_line(bound)
            raise _Dead
        if self.inline:
            raise NotTraceable("a guard inside a predicate")
        self.line(f"if not {self.cond(c)}:")
        self.indent += 1
        self.exit_line(bound)
        self.indent -= 1

    def branches(self, conds: list[str], fns: list[Callable[[], Any]]) -> Any:
        """``if conds[0]: fns[0]() elif ... else: fns[-1]()``: each branch traced in its own
        block; the values they give merged into variables assigned at the end of each."""
        traced: list[tuple[list[str], _Block, Any, bool]] = []
        outer_lines, outer_block = self.lines, self.block
        for fn in fns:
            self.lines, self.block = [], _Block()
            self.memo.append({})
            self.indent += 1
            try:
                value, dead = fn(), False
            except _Dead:
                value, dead = None, True
            self.indent -= 1
            self.memo.pop()
            self.block.live = False
            traced.append((self.lines, self.block, value, dead))
        self.lines, self.block = outer_lines, outer_block
        live = [(lines, blk, v) for lines, blk, v, dead in traced if not dead]
        merged: Any = None
        if live:
            trees = []
            for _, blk, v in live:
                blk.live = True
                trees.append(self._tree(v))
                blk.live = False
            assigns: list[tuple[str, list[str]]] = []
            merged = self._merge(trees, assigns)
            for k, (lines, _, _) in enumerate(live):
                pad = "    " * (self.indent + 1)
                lines.extend(f"{pad}{name} = {codes[k]}" for name, codes in assigns)
        for k, (lines, _, _, _) in enumerate(traced):
            if k < len(conds):
                self.line(f"{'if' if k == 0 else 'elif'} {conds[k]}:")
            else:
                self.line("else:")
            self.lines.extend(lines or ["    " * (self.indent + 1) + "pass"])
        if not live:
            raise _Dead
        return merged

    def _tree(self, v: Any) -> Any:
        if isinstance(v, tuple) and _has_sym(v) and self.origin(v) is None:
            return ("T", type(v), [self._tree(c) for c in v], self.code(v))
        return ("V", self.code(v), shape_of(v), _isbool(v), v)

    def _merge(self, trees: list[Any], assigns: list[tuple[str, list[str]]]) -> Any:
        codes = [t[-1] if t[0] == "T" else t[1] for t in trees]
        if all(c == codes[0] for c in codes):
            t = trees[0]
            if t[0] == "V" and not _has_sym(t[4]):
                return t[4]  # a constant
            return self._revive(t)
        if all(t[0] == "T" for t in trees) and all(
            t[1] is trees[0][1] and len(t[2]) == len(trees[0][2]) for t in trees
        ):
            kids = [self._merge([t[2][k] for t in trees], assigns) for k in range(len(trees[0][2]))]
            return _rebuild(trees[0][1], kids)
        name = self.fresh("m")
        assigns.append((name, codes))
        shape = trees[0][2] if trees[0][0] == "V" else _tree_shape(trees[0])
        isbool = all(t[0] == "V" and t[3] for t in trees)
        return Sym(self, name, isbool) if shape is None else self.structure(name, shape)

    def _revive(self, t: Any) -> Any:
        """A value equal in every branch, as a value of the enclosing block."""
        if t[0] == "T":
            return _rebuild(t[1], [self._revive(k) for k in t[2]])
        if not _has_sym(t[4]):
            return t[4]
        if t[2] is not None:
            return self.structure(t[1], t[2])
        return Sym(self, t[1], t[3])


def _tree_shape(t: Any) -> Shape:
    if t[0] == "T":
        return (t[1], tuple(_tree_shape(k) for k in t[2]))
    return t[2]


def _rebuild(cls: type, items: list[Any]) -> Any:
    if cls is tuple:
        return tuple(items)
    return tuple.__new__(cls, tuple(items))


class EmitOps:
    """The operations protocol, emitting Python source (see the module docstring)."""

    def __init__(self, em: Emitter) -> None:
        self.em = em

    # -- guards ------------------------------------------------------------------------------
    def require(self, cond: Any) -> None:
        self.em.guard(cond, None)

    def within(self, cond: Any, bound: str) -> None:
        if not isinstance(bound, str):
            raise NotTraceable("a bound that is not named by a string")
        self.em.guard(cond, bound)

    # -- logic -------------------------------------------------------------------------------
    def If(self, cond: Any, then: Any, else_: Any) -> Any:
        c = _val(cond)
        if not isinstance(c, Sym):
            return then if c else else_
        return self.em.select(c, then, else_)

    def when(self, cond: Any, update: Callable[[Any], Any], value: Any) -> Any:
        c = _val(cond)
        if not isinstance(c, Sym):
            return update(value) if c else value
        em = self.em
        if em.inline:
            return em.select(c, update(value), value)
        return em.branches([em.cond(c)], [lambda: update(value), lambda: value])

    def cases(
        self, key: Any, table: Mapping[int, Callable[[], Any]], default: Callable[[], Any]
    ) -> Any:
        k = _val(key)
        if not isinstance(k, Sym):
            return table.get(k, default)()
        em = self.em
        keys = list(table)
        if any(type(v) not in (int, bool) and not isinstance(v, IntEnum) for v in keys):
            raise NotTraceable("cases on keys that are not numbers")
        conds = [f"{em.operand(k)} == {int(v)!r}" for v in keys]
        if em.inline:
            out = default()
            for v in reversed(keys):
                out = em.select(k == v, table[v](), out)
            return out
        return em.branches(conds, [table[v] for v in keys] + [default])

    def And(self, *conds: Any) -> Any:
        return self._junction(conds, "and", all)

    def Or(self, *conds: Any) -> Any:
        return self._junction(conds, "or", any)

    def _junction(self, conds: Sequence[Any], op: str, fold: Callable[[Any], bool]) -> Any:
        vals = [_val(c) for c in conds]
        known = [v for v in vals if not isinstance(v, Sym)]
        syms = [v for v in vals if isinstance(v, Sym)]
        if known and fold(known) != (op == "and"):
            return op != "and"  # a false conjunct, a true disjunct: decided
        if not syms:
            return fold(known)
        em = self.em
        if len(syms) == 1 and syms[0]._isbool:
            return syms[0]
        inner = f" {op} ".join(em.cond(v) for v in syms)
        if all(v._isbool for v in syms):
            return em.expr(f"({inner})", None, True)
        return em.expr(f"bool({inner})", None, True)

    def Not(self, cond: Any) -> Any:
        c = _val(cond)
        if not isinstance(c, Sym):
            return not c
        return self.em.expr(f"(not {self.em.cond(c)})", None, True)

    def Implies(self, a: Any, b: Any) -> Any:
        av, bv = _val(a), _val(b)
        if not isinstance(av, Sym):
            if not av:
                return True
            if not isinstance(bv, Sym):
                return bool(bv)
            return bv if bv._isbool else self.em.expr(f"bool({self.em.cond(bv)})", None, True)
        em = self.em
        rhs = em.cond(bv) if _isbool(bv) else f"bool({em.cond(bv)})"
        return em.expr(f"(not {em.cond(av)} or {rhs})", None, True)

    def Eq(self, a: Any, b: Any) -> Any:
        if not _has_sym(a) and not _has_sym(b):
            return a == b
        av, bv = _val(a), _val(b)
        if not _has_sym(av) and not _has_sym(bv):
            return av == bv
        em = self.em
        return em.expr(f"({em.operand(av)} == {em.operand(bv)})", None, True)

    # -- arithmetic --------------------------------------------------------------------------
    def Sum(self, *terms: Any) -> Any:
        vals = [_val(t) for t in terms]
        if not any(isinstance(v, Sym) for v in vals):
            return sum(vals)
        em = self.em
        return em.expr("(0 + " + " + ".join(em.operand(v) for v in vals) + ")")

    def Min(self, a: Any, b: Any) -> Any:
        return self._pick(a, b, "<=")

    def Max(self, a: Any, b: Any) -> Any:
        return self._pick(a, b, ">=")

    def _pick(self, a: Any, b: Any, op: str) -> Any:
        av, bv = _val(a), _val(b)
        if not isinstance(av, Sym) and not isinstance(bv, Sym):
            return a if (av <= bv if op == "<=" else av >= bv) else b
        em = self.em
        ca, cb = em.code(a), em.code(b)
        oa, ob = em.operand(av), em.operand(bv)
        return em.expr(f"({ca} if {oa} {op} {ob} else {cb})", None, _isbool(a) and _isbool(b))

    def count(self, conds: Iterable[Any]) -> Any:
        vals = [_val(c) for c in conds]
        base = sum(1 for v in vals if not isinstance(v, Sym) and v)
        syms = [v for v in vals if isinstance(v, Sym)]
        if not syms:
            return base
        em = self.em
        parts = [f"(1 if {em.cond(v)} else 0)" for v in syms]
        return em.expr(f"({base} + " + " + ".join(parts) + ")")

    # -- arrays ------------------------------------------------------------------------------
    def get(self, arr: Any, index: Any) -> Any:
        i = _val(index)
        n = len(arr)
        if not isinstance(i, Sym):
            return arr[i] if 0 <= i < n else arr[-1]
        em = self.em
        ci = em.operand(i)
        items = list(arr)
        whole = em.origin(arr)
        if whole is not None:
            return em.expr(
                f"({whole}[{ci}] if 0 <= {ci} < {n} else {whole}[{n - 1}])",
                shape_of(items[0]),
                all(_isbool(v) for v in items),
            )
        out = em.code(items[-1])
        for k in reversed(range(n - 1)):
            out = f"({em.code(items[k])} if {ci} == {k} else {out})"
        return em.expr(out, shape_of(items[0]), all(_isbool(v) for v in items))

    def set(self, arr: Any, index: Any, value: Any) -> tuple[Any, ...]:
        i = _val(index)
        out = list(arr)
        if not isinstance(i, Sym):
            if 0 <= i < len(out):
                out[i] = value
            return tuple(out)
        return tuple(self.If(i == k, value, v) for k, v in enumerate(out))

    # -- sequences ---------------------------------------------------------------------------
    def _seq_parts(self, seq: Any) -> tuple[Any, Any, Shape]:
        length, slots = seq[0], seq[1]
        elem = shape_of(slots)[1][0]
        return length, slots, elem

    def seq_is_empty(self, seq: Any) -> Any:
        return self.Eq(seq[0], 0) if isinstance(_val(seq[0]), Sym) else seq[0] == 0

    def seq_is_full(self, seq: Any) -> Any:
        n = len(seq[1])
        return self.Eq(seq[0], n) if isinstance(_val(seq[0]), Sym) else seq[0] == n

    def seq_top(self, seq: Any) -> Any:
        length, slots, elem = self._seq_parts(seq)
        n = _val(length)
        if not isinstance(n, Sym):
            return slots[n - 1] if n else empty_of(elem)
        em = self.em
        cn = em.operand(n)
        return em.expr(f"({em.code(slots)}[{cn} - 1] if {cn} else {em.code(empty_of(elem))})", elem)

    def seq_get(self, seq: Any, index: Any) -> Any:
        length, slots, elem = self._seq_parts(seq)
        n, i = _val(length), _val(index)
        if not isinstance(n, Sym) and not isinstance(i, Sym):
            return slots[i] if 0 <= i < n else empty_of(elem)
        em = self.em
        empty = em.code(empty_of(elem))
        if not isinstance(i, Sym):
            if not 0 <= i < len(slots):
                return empty_of(elem)  # never below the length (which is at most the capacity)
            return em.expr(f"({em.code(slots[i])} if {em.operand(n)} > {i} else {empty})", elem)
        ci = em.operand(i)
        return em.expr(
            f"({em.code(slots)}[{ci}] if 0 <= {ci} < {em.operand(n)} else {empty})", elem
        )

    def _helper(self, name: str, *args: Any, shape: Shape) -> Any:
        if not any(_has_sym(a) for a in args):
            return getattr(_CONCRETE, name)(*args)
        em = self.em
        fn = em.const(getattr(_CONCRETE, name))
        return em.expr(f"{fn}({', '.join(em.code(a) for a in args)})", shape)

    # The edits run the concrete operation itself when the length is known, and otherwise
    # its body as one expression (no call, no namedtuple constructor).
    def _edit(self, seq: Any) -> tuple[str, str, str, str, str] | None:
        length, slots, elem = self._seq_parts(seq)
        n = _val(length)
        if not isinstance(n, Sym):
            return None
        em = self.em
        new = f"_new({em.const(type(seq))}, "
        return em.code(seq), em.code(slots), em.operand(n), em.code(empty_of(elem)), new

    def seq_push(self, seq: Any, item: Any) -> Any:
        parts = self._edit(seq)
        if parts is None:
            return _CONCRETE.seq_push(seq, item)
        q, sl, n, _, new = parts
        cap, it = len(seq[1]), self.em.code(item)
        code = f"({q} if {n} >= {cap} else {new}({n} + 1, {sl}[:{n}] + ({it},) + {sl}[{n} + 1:])))"
        return self.em.expr(code, shape_of(seq))

    def seq_pop(self, seq: Any) -> Any:
        parts = self._edit(seq)
        if parts is None:
            return _CONCRETE.seq_pop(seq)
        q, sl, n, e, new = parts
        code = f"({q} if {n} == 0 else {new}({n} - 1, {sl}[:{n} - 1] + ({e},) + {sl}[{n}:])))"
        return self.em.expr(code, shape_of(seq))

    def seq_remove(self, seq: Any, index: Any) -> Any:
        i = _val(index)
        parts = self._edit(seq)
        if parts is None and not isinstance(i, Sym):
            return _CONCRETE.seq_remove(seq, i)
        if parts is None:
            return self._helper("seq_remove", seq, i, shape=shape_of(seq))
        q, sl, n, e, new = parts
        ci = self.em.operand(i)
        code = (
            f"({q} if not 0 <= {ci} < {n} else "
            f"{new}({n} - 1, {sl}[:{ci}] + {sl}[{ci} + 1:] + ({e},))))"
        )
        return self.em.expr(code, shape_of(seq))

    def seq_clear(self, seq: Any) -> Any:
        _, slots, elem = self._seq_parts(seq)
        return Seq(0, (empty_of(elem),) * len(slots))

    def _pred(self, pred: Callable[[Any], Any], item: Any) -> Any:
        """``pred(item)`` as one inline expression (no guard, no statement)."""
        em = self.em
        outer = em.block
        em.block = _Block()
        em.inline += 1
        try:
            v = _val(pred(item))
            if isinstance(v, Sym):
                v = Sym(em, em.cond(v), v._isbool)
        finally:
            em.inline -= 1
            em.block.live = False
            em.block = outer
        if isinstance(v, Sym):
            v._block = outer
        return v

    def seq_filter(self, seq: Any, keep: Callable[[Any], Any]) -> Any:
        em = self.em
        _, _, elem = self._seq_parts(seq)
        param = em.fresh("_i")
        k = self._pred(keep, em.structure(param, elem))
        body = em.cond(k) if isinstance(k, Sym) else repr(bool(k))
        fn, empty = em.const(_filtered), em.code(empty_of(elem))
        made = f"{fn}({em.code(seq)}, lambda {param}: {body}, {empty})"
        return em.expr(f"_new({em.const(type(seq))}, {made})", shape_of(seq))

    def _unrolled(self, seq: Any, pred: Callable[[Any], Any]) -> tuple[Any, list[Any]]:
        length, slots, _ = self._seq_parts(seq)
        n = _val(length)
        live = range(len(slots)) if isinstance(n, Sym) else range(min(n, len(slots)))
        return n, [self._pred(pred, slots[k]) for k in live]

    def seq_any(self, seq: Any, pred: Callable[[Any], Any]) -> Any:
        return self._quantified(seq, pred, True)

    def seq_all(self, seq: Any, pred: Callable[[Any], Any]) -> Any:
        return self._quantified(seq, pred, False)

    def _quantified(self, seq: Any, pred: Callable[[Any], Any], some: bool) -> Any:
        """Some (``some``) or every live item satisfies ``pred``: unrolled over the slots,
        each test evaluated only for a live item, as ``any``/``all`` over the live items."""
        n, ps = self._unrolled(seq, pred)
        if not isinstance(n, Sym):
            return self.Or(*ps) if some else self.And(*ps)
        em, cn = self.em, self.em.operand(n)
        # some: (n > 0 and (p0 or (n > 1 and (p1 or ...)))); every: (n <= 0 or (p0 and ...))
        live, inner, join = (">", "and", "or") if some else ("<=", "or", "and")
        out = ""
        for k in reversed(range(len(ps))):
            p = em.cond(ps[k])
            rest = f"({p} {join} {out})" if out else p
            out = f"({cn} {live} {k} {inner} {rest})"
        out = out or repr(not some)
        ok = all(_isbool(p) for p in ps)
        return em.expr(out if ok else f"bool({out})", None, True)

    def seq_count(self, seq: Any, pred: Callable[[Any], Any]) -> Any:
        n, ps = self._unrolled(seq, pred)
        if not isinstance(n, Sym):
            return self.count(ps)
        em, cn = self.em, self.em.operand(n)
        parts = [f"(1 if {cn} > {k} and {em.cond(p)} else 0)" for k, p in enumerate(ps)]
        return em.expr("(0 + " + " + ".join(parts) + ")")


_CONCRETE = ConcreteOps()


def _filtered(seq: Any, keep: Callable[[Any], Any], empty: Any) -> tuple[int, tuple[Any, ...]]:
    """``ConcreteOps.seq_filter`` by position, as a plain pair (length, slots): the generated
    code gives it its class (see :func:`_untyped`)."""
    slots = seq[1]
    kept = tuple(item for item in slots[: seq[0]] if keep(item))
    return len(kept), kept + (empty,) * (len(slots) - len(kept))


#: The most values a structured domain may have for a value's membership to be tested in the
#: set of them (one hash and one lookup) rather than slot by slot: a stack of 8 zeros and ones
#: has 511 values, and its slot-by-slot test is some forty comparisons.
SET_TEST_MAX = 4096


def domain_size(dom: Domain) -> int | None:
    """How many values ``dom`` has, ``None`` when they are not all integers of known ranges (a
    boolean leaf lets any value pass ``_fits``, and an open bound has no number)."""
    if isinstance(dom, Leaf):
        if dom.is_bool or not (isinstance(dom.lo, int) and isinstance(dom.hi, int)):
            return None
        return dom.hi - dom.lo + 1
    if isinstance(dom, RecordDomain):
        sizes = [domain_size(d) for d in dom.fields.values()]
        return None if None in sizes else math.prod(sizes)  # type: ignore[arg-type]
    if isinstance(dom, ArrayDomain):
        one = domain_size(dom.elem)
        return None if one is None else one**dom.size
    if isinstance(dom, SeqDomain):
        one = domain_size(dom.elem)
        return None if one is None else sum(one**k for k in range(dom.capacity + 1))
    return None


def domain_values(dom: Domain) -> Iterator[Any]:
    """Every value of ``dom`` (one whose :func:`domain_size` is a number), as the rules make
    them: records of their class, arrays as tuples, sequences as :class:`Seq` with canonical
    empty slots."""
    if isinstance(dom, Leaf):
        yield from range(dom.lo, dom.hi + 1)
    elif isinstance(dom, RecordDomain):
        for vals in itertools.product(*(list(domain_values(d)) for d in dom.fields.values())):
            yield dom.cls(*vals)
    elif isinstance(dom, ArrayDomain):
        yield from itertools.product(list(domain_values(dom.elem)), repeat=dom.size)
    elif isinstance(dom, SeqDomain):
        items = list(domain_values(dom.elem))
        for k in range(dom.capacity + 1):
            pad = (dom.empty_slot,) * (dom.capacity - k)
            for live in itertools.product(items, repeat=k):
                yield Seq(k, live + pad)


def _fits_source(fields: Iterable[tuple[Domain, str]]) -> tuple[str, dict[str, Any]]:
    """A condition that the value at each reference lies in its domain, and the names it uses.
    A structured domain of at most :data:`SET_TEST_MAX` values is tested by membership in the
    set of its values (the same answer as the test slot by slot on hashable values, which
    states are), any other slot by slot."""
    conds: list[str] = []
    names: dict[str, Any] = {}
    for dom, ref in fields:
        size = None if isinstance(dom, Leaf) else domain_size(dom)
        if size is not None and size <= SET_TEST_MAX:
            name = f"_V{id(dom)}"
            names[name] = frozenset(domain_values(dom))
            conds.append(f"{ref} in {name}")
            continue
        _fits(dom, ref, conds)
        _collect_empty(dom, names)
    return " and ".join(conds) or "True", names


def value_fits(dom: Domain, value: Any) -> bool:
    """A constant lies in ``dom`` (the test ``fits_checker`` makes, on one value)."""
    cond, namespace = _fits_source([(dom, "v")])
    return bool(eval(cond, {**namespace, "v": value}))  # noqa: S307 - from the schema only


def fits_fields(schema: Any, fields: set[int]) -> Callable[[State], bool]:
    """``fits_checker`` (``model/schema.py``) for some fields only."""
    doms = list(schema.domains.values())
    cond, namespace = _fits_source((doms[i], f"s[{i}]") for i in sorted(fields))
    exec(f"def fits(s):\n    return {cond}\n", namespace)  # noqa: S102
    fn: Callable[[State], bool] = namespace["fits"]
    return fn


# -- compiling a model -------------------------------------------------------------------------


@dataclass
class Compiled:
    """A model's rule instances compiled, by value of the dispatch field."""

    field_index: int
    expand: Mapping[Any, Expand]
    #: For each rule instance, a test that its successor lies in the schema's domains: only
    #: the fields it may change, since the state it starts from does.
    fits: list[Callable[[State], bool]]
    instances: int
    fallbacks: dict[int, str] = field(default_factory=dict)  # instance index -> why
    source: str = ""
    #: The values of the dispatch field, each with the name of its function in ``source``
    #: (one ``None`` key when every value shares one function).
    functions: list[tuple[Any, str]] = field(default_factory=list)
    #: For each rule instance, the fields whose successor values ``fits`` tests.
    fits_fields: list[set[int]] = field(default_factory=list)
    #: The names the generated code reads (constants, the concrete operations, the bounds).
    namespace: dict[str, Any] = field(default_factory=dict)
    #: The schema's domains, by field index (the domain tests of :func:`fused_search`).
    domains: list[Domain] = field(default_factory=list)
    #: Whether the generated code reads its structured values by position only: no operation
    #: of :class:`~turnproof.model.ops.ConcreteOps` is called on them, which reads a sequence's
    #: fields by name (see :func:`fused_search`).
    by_position: bool = False
    #: The schema's types given back to a state made of plain tuples (:func:`state_typing`).
    typed: Callable[[Any], State] = field(default=lambda s: s, repr=False)
    _searches: dict[bool, Any] = field(default_factory=dict, repr=False)

    def plain(self, monitors: bool) -> bool:
        """Whether :func:`fused_search` makes plain tuples (see there)."""
        return self.by_position and not monitors

    @property
    def fell_back(self) -> int:
        return len(self.fallbacks)


def _trace_instance(
    fn: Callable[..., Any],
    sym_state: Callable[[Emitter], State],
    b: Any,
    consts: dict[str, Any],
    counter: list[int],
    ai: int,
    domains: Sequence[Domain],
    changed: set[int],
) -> list[str] | None:
    """The lines of one rule instance's body (inside its ``while 1:``), ``[]`` when it can
    never fire here, or raise :class:`NotTraceable`. Adds to ``changed`` the fields whose new
    value may lie outside its domain (neither the old value nor a constant that fits)."""
    em = Emitter(consts, counter, 2)
    try:
        t = fn(sym_state(em), EmitOps(em), b)
        if not isinstance(t, State):
            raise NotTraceable(f"the rule gave a {type(t).__name__}, not a state")
        codes = [em.code(v) for v in t]
        mine = {
            i
            for i, c in enumerate(codes)
            if c != f"f{i}" and (_has_sym(t[i]) or not value_fits(domains[i], t[i]))
        }
        if codes == [f"f{i}" for i in range(len(codes))]:
            new = "s"
        else:
            new = f"_new({em.const(type(t))}, ({', '.join(codes)},))"
        em.line(f"_a(({ai}, {new}))")
        em.line("break")
        changed |= mine
    except _Dead:
        if all(ln.strip() == "break" for ln in em.lines):
            return []  # disabled (or cut) before anything else
    except NotTraceable:
        raise
    except Exception as exc:  # the rule does something the tracer cannot follow
        raise NotTraceable(f"{type(exc).__name__}: {exc}") from exc
    return em.lines


_DEF = re.compile(r"^(\s*)(t[0-9]+) = (.*)$")
_TEMP = re.compile(r"\bt[0-9]+\b")
_MAX_INLINE = 200  # characters: keeps the expressions far below the parser's nesting limit


def peephole(lines: list[str]) -> list[str]:
    """Drop temporaries that nothing reads, and write those read once where they are read.

    Sound because every temporary is assigned once and computed by a pure expression (the
    emitted operations have no side effect and raise nothing that the concrete ones would not
    raise on the same values): evaluating one later, or not at all, changes no result."""
    out: list[str | None] = list(lines)
    defs: dict[str, int] = {}
    uses: dict[str, list[int]] = {}
    for n, ln in enumerate(lines):
        m = _DEF.match(ln)
        body = ln
        if m:
            defs[m.group(2)] = n
            body = m.group(3)
        for tok in _TEMP.findall(body):
            uses.setdefault(tok, []).append(n)
    dead = [t for t in defs if not uses.get(t)]
    while dead:  # each removal may leave the temporaries it read unread
        t = dead.pop()
        n = defs.pop(t)
        m = _DEF.match(out[n] or "")
        out[n] = None
        if m is None:
            continue
        for tok in _TEMP.findall(m.group(3)):
            left = uses.get(tok, [])
            if n in left:
                left.remove(n)
            if not left and tok in defs:
                dead.append(tok)
    for t, n in sorted(defs.items(), key=lambda kv: kv[1]):
        where = uses.get(t, [])
        text = out[n]
        if len(where) != 1 or text is None:
            continue
        m = _DEF.match(text)
        target = out[where[0]]
        if m is None or target is None or len(m.group(3)) > _MAX_INLINE:
            continue
        expr = m.group(3)
        value = expr if _SIMPLE.match(expr) else f"({expr})"
        out[where[0]] = re.sub(rf"\b{t}\b", value.replace("\\", "\\\\"), target)
        out[n] = None
        for tok in _TEMP.findall(expr):  # what it read is now read where it went
            uses[tok] = [where[0] if k == n else k for k in uses.get(tok, [])]
    return _fill_empty_blocks([ln for ln in out if ln is not None])


def _indent_of(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _fill_empty_blocks(lines: list[str]) -> list[str]:
    """``pass`` in every block that dropping temporaries left empty (a branch whose only lines
    computed values nothing read): Python wants a statement there."""
    out: list[str] = []
    for n, ln in enumerate(lines):
        out.append(ln)
        if not ln.rstrip().endswith(":"):
            continue
        nxt = lines[n + 1] if n + 1 < len(lines) else ""
        if not nxt.strip() or _indent_of(nxt) <= _indent_of(ln):
            out.append(" " * (_indent_of(ln) + 4) + "pass")
    return out


def compile_model(model: Model, table: Mapping[Any, Sequence[Any]], field_index: int) -> Compiled:
    """Compile every entry of the dispatch table (see ``dispatch_table``): one function per
    value of the dispatch field."""
    from turnproof.checks.explicit import _AnyKey  # the table's kind, without a cycle

    schema = model.schema
    b = model.bounds
    shapes = [domain_shape(d) for d in schema.domains.values()]
    cls = schema.state_cls
    nf = len(shapes)
    consts: dict[str, Any] = {
        "_new": tuple.__new__,
        "_Disabled": Disabled,
        "_BoundReached": BoundReached,
        "_x": _CONCRETE,
        "_b": b,
        "_term": model.ruleset.terminal,
    }
    counter = [0]
    fallbacks: dict[int, str] = {}
    domains = list(schema.domains.values())
    changed: dict[int, set[int]] = {}
    keyed = not isinstance(table, _AnyKey)
    keys = list(table) if keyed else [None]
    sources: list[str] = []
    names: dict[Any, str] = {}
    for n, key in enumerate(keys):
        entries = table[key] if keyed else table.acts  # type: ignore[attr-defined]

        def sym_state(em: Emitter, key: Any = key) -> State:
            fields = [
                em.structure(f"f{i}", shapes[i])
                if shapes[i] is not None
                else Sym(em, f"f{i}", const=key if keyed and i == field_index else _NC)
                for i in range(nf)
            ]
            return cls._make(fields)

        body: list[str] = [
            f"def expand{n}(s):",
            "    " + ", ".join(f"f{i}" for i in range(nf)) + ", = s",
        ]
        term_em = Emitter(consts, counter, 1)
        try:
            tc = _val(model.ruleset.terminal(sym_state(term_em), EmitOps(term_em), b))
            body += term_em.lines
            if not isinstance(tc, Sym):
                if tc:
                    body.append("    return ()")
            else:
                body.append(f"    if {term_em.cond(tc)}:")
                body.append("        return ()")
        except Exception:
            body.append("    if _term(s, _x, _b):")
            body.append("        return ()")
        body += ["    _r = []", "    _a = _r.append"]
        for ai, _rule, fn in entries:
            fname = f"_fn{ai}_{n}"
            try:
                lines = _trace_instance(
                    fn, sym_state, b, consts, counter, ai, domains, changed.setdefault(ai, set())
                )
            except NotTraceable as exc:
                fallbacks.setdefault(ai, str(exc))
                lines = None
            if lines is None:
                consts[fname] = fn
                body += [
                    "    try:",
                    f"        _t = {fname}(s, _x, _b)",
                    "    except _Disabled:",
                    "        pass",
                    "    except _BoundReached as _e:",
                    "        _a((-1, _e.bound))",
                    "    else:",
                    f"        _a(({ai}, _t))",
                ]
            elif lines:
                body.append("    while 1:")
                body += lines
                if lines[-1].strip() != "break":
                    body.append("        break")
        body.append("    return _r")
        sources.append("\n".join(peephole(body)))
        names[key] = f"expand{n}"
    source = "\n\n".join(sources) + "\n"
    namespace = dict(consts)
    exec(compile(source, f"<turnproof compiled {model.ruleset.name}>", "exec"), namespace)  # noqa: S102
    fns = {key: namespace[name] for key, name in names.items()}
    expand: Mapping[Any, Expand]
    if keyed:
        expand = fns
    else:
        expand = EveryKey(fns[None])
    by_position = not any(
        isinstance(v, MethodType) and v.__self__ is _CONCRETE for v in consts.values()
    )
    everything = set(range(nf))
    tested = [
        everything if a.index in fallbacks else changed.get(a.index, set()) for a in model.actions
    ]
    return Compiled(
        field_index=field_index,
        expand=expand,
        fits=[fits_fields(schema, f) for f in tested],
        instances=len(model.actions),
        fallbacks=fallbacks,
        source=source,
        functions=[(key, names[key]) for key in keys],
        fits_fields=tested,
        namespace=consts,
        domains=domains,
        by_position=by_position,
        typed=state_typing(schema),
    )


class EveryKey(dict[Any, Any]):
    """One function for every value of the (unused) dispatch field."""

    def __init__(self, fn: Any) -> None:
        super().__init__()
        self.fn = fn

    def __missing__(self, key: Any) -> Any:
        return self.fn


# -- the search loop fused with the successors -------------------------------------------------

#: A line of an expand function that hands on a successor, ``_a((index, expression))``, or a
#: cut, ``_a((-1, bound))``: the only lines that call ``_a`` (see :func:`_trace_instance`,
#: :meth:`Emitter.exit_line` and the fallback in :func:`compile_model`).
_YIELD = re.compile(r"^(\s*)_a\(\((-?[0-9]+), (.*)\)\)$")


class Halted(Exception):
    """The fused search stopped inside node ``i``: its successor ``t``, made by rule instance
    ``ai``, lies outside the schema's domains, or (``ai`` negative) the state limit is
    reached. The node's edges before that one are recorded, the successor is not."""

    def __init__(self, i: int, ai: int, t: Any) -> None:
        super().__init__(i, ai, t)
        self.i, self.ai, self.t = i, ai, t


_FALLBACK_CALL = re.compile(r"\b(_fn[0-9]+_[0-9]+|_term)\(s, _x, _b\)")


def _untyped(line: str) -> str:
    """``line`` with every ``_new(_kN, x)`` (a tuple of a class: state, record, sequence) made
    the plain tuple ``x`` (a tuple display, or a call that gives a plain tuple)."""
    out: list[str] = []
    at = 0
    while (start := line.find("_new(", at)) >= 0:
        out.append(line[at:start])
        inner = line.index(", ", start) + 2
        depth, end = 1, start + len("_new(")
        while depth:
            depth += {"(": 1, ")": -1}.get(line[end], 0)
            end += 1
        out.append(_untyped(line[inner : end - 1]))
        at = end
    out.append(line[at:])
    return "".join(out)


def _fused_lines(comp: Compiled, monitors: bool) -> tuple[list[str], dict[str, Any]]:
    """The expand functions of ``comp.source`` rewritten to intern their successors where
    they make them: each takes ``(s, m, i, _n)`` (``m``: the monitor values, only with
    ``monitors``), records the edges of node ``i`` and the states it discovers, and returns the
    number of states known after it. The domain tests are inlined; their constants are
    returned beside the lines."""
    names: dict[str, Any] = {}
    lines: list[str] = []
    node = "_t0" if monitors else "_t"
    plain = comp.plain(monitors)
    for ln in comp.source.splitlines():
        if plain:
            ln = _FALLBACK_CALL.sub(r"\1(_typed(s), _x, _b)", _untyped(ln))
        head = ln.strip()
        if ln.startswith("def expand"):
            lines.append(ln.replace("(s):", "(s, m, i, _n):" if monitors else "(s, i, _n):"))
        elif head in ("_r = []", "_a = _r.append"):
            continue
        elif head in ("return _r", "return ()"):
            lines.append(ln[: len(ln) - len(head)] + "return _n")
        elif (found := _YIELD.match(ln)) is not None:
            ind, ai_text, expr = found.groups()
            ai = int(ai_text)
            if ai < 0:
                lines += [f"{ind}_cuts[{expr}] += 1", f"{ind}_cut_nodes.add(i)"]
                continue
            cond, empties = _fits_source(
                (comp.domains[k], f"{node}[{k}]") for k in sorted(comp.fits_fields[ai])
            )
            names.update(empties)
            if monitors:
                lines += [f"{ind}_t0 = {expr}", f"{ind}_t = (_t0, _upd[{ai}](s, _t0, m))"]
            else:
                lines.append(f"{ind}_t = {expr}")
            lines += [f"{ind}_j = _setd(_t, _n)", f"{ind}if _j == _n:"]
            if cond != "True":
                lines += [
                    f"{ind}    if not ({cond}):",
                    f"{ind}        del _index[_t]",
                    f"{ind}        raise _Halted(i, {ai}, {node})",
                ]
            lines += [
                f"{ind}    if _n >= _cap:",
                f"{ind}        del _index[_t]",
                f"{ind}        raise _Halted(i, -1, None)",
                f"{ind}    _n += 1",
                f"{ind}    _add_node(_t)",
                f"{ind}    _add_parent(len(_src))",
                f"{ind}_add_src(i)",
                f"{ind}_add_dst(_j)",
                f"{ind}_add_act({ai})",
            ]
        else:
            lines.append(ln)
    return lines, names


def fused_search(comp: Compiled, monitors: bool) -> Callable[..., Callable[[int, int], int]]:
    """The explicit engine's inner loop generated with the successors (built once per model
    and kind): ``make(nodes, index, src, dst, act, parent, cuts, cut_nodes, cap, updates)``
    gives ``run(i, end)``, which expands nodes ``i`` up to ``end`` (or to the last known),
    interning each successor as the expand function makes it, and returns where it stopped.
    This is the tuple way of :func:`turnproof.checks.explicit.explore` with no call, list or
    pair a successor: the same states, ids, edges, parents and cuts, in the same order
    (``updates``: the monitors' compiled updates by rule instance, with ``monitors``; a node is
    then a ``(state, monitor values)`` pair). It raises :class:`Halted` where that loop stops
    inside a node: a successor out of the domains, or the state limit ``cap``.

    Without monitors, where the generated code reads structured values by position only
    (:meth:`Compiled.plain`), the successors are plain tuples, records and sequences too: a
    state class's tuple costs a second allocation and a call for each successor, most of them
    states already known. They hash and compare as the typed states do, so the ids are the
    same; an instance left interpreted is given its state typed (``comp.typed``), and the
    exploration gives the nodes their types back when they are read."""
    made = comp._searches.get(monitors)
    if made is not None:
        return made
    lines, names = _fused_lines(comp, monitors)
    keys = [key for key, _ in comp.functions]
    fns = ", ".join(name for _, name in comp.functions)
    if monitors:
        take = ["            node = _nodes[i]", "            s = node[0]"]
        call = "_fn(s, node[1], i, n)" if keys == [None] else "_fns[s[_fi]](s, node[1], i, n)"
    else:
        take = ["            s = _nodes[i]"]
        call = "_fn(s, i, n)" if keys == [None] else "_fns[s[_fi]](s, i, n)"
    source = "\n".join(
        [
            "def make(_nodes, _index, _src, _dst, _act, _parent, _cuts, _cut_nodes, _cap, _upd):",
            "    _setd = _index.setdefault",
            "    _add_node, _add_parent = _nodes.append, _parent.append",
            "    _add_src, _add_dst, _add_act = _src.append, _dst.append, _act.append",
            *("    " + ln for ln in lines),
            f"    _fn = {comp.functions[0][1]}",
            f"    _fns = dict(zip(_keys, ({fns},)))",
            "    def run(i, end):",
            "        n = len(_nodes)",
            "        while i < end and i < n:",
            *take,
            f"            n = {call}",
            "            i += 1",
            "        return i",
            "    return run",
        ]
    )
    namespace = {**comp.namespace, **names, "_Halted": Halted, "_keys": keys,
                 "_fi": comp.field_index, "_typed": comp.typed}  # fmt: skip
    exec(compile(source, "<turnproof compiled search>", "exec"), namespace)  # noqa: S102
    made = namespace["make"]
    comp._searches[monitors] = made
    return made
