"""A small, safe expression language for the properties that scenario files state.

A property is one Python expression over the fields of a rule set's state. It is parsed with
:func:`ast.parse` (``mode="eval"``), walked with a whitelist, type-checked against the
:class:`~turnproof.model.schema.Schema`, and compiled to a tree of closures that call the
operations object ``x`` (:mod:`turnproof.model.ops`). User text is never given to ``eval``,
``exec`` or ``compile``. Since everything goes through ``x``, the explicit engine (concrete values,
:class:`~turnproof.model.ops.ConcreteOps`) and the symbolic one (Z3 terms) evaluate a compiled
property identically.

Names, looked up in this order:

* schema fields (``turn``, ``hand``, ``stack``); records by attribute (``res.what``), arrays and
  sequences by subscript (``hand[0]``, ``stack[1].ctrl``), a sequence's length as ``stack.len``.
  A constant index is checked against the array's size or the sequence's capacity when the text
  is compiled; an int expression as index (``hand[prio]``, ``stack[i]``) is read totally: a
  sequence slot at or beyond the length is the all-zero empty slot (as ``x.seq_get`` gives it),
  and an index outside an array reads the all-zero element, in both engines alike;
* variables bound by a generator expression (``any(it.ctrl == 1 for it in stack)``);
* the bounds the environment names (read as ``b.<name>`` when the property is evaluated; a
  bound named like a field, such as Magic's ``stack``, is hidden by the field);
* extra names the environment gives, each with a type and a function ``(s, x, b) -> term``;
* enum members of the schema's enums (``CLEANUP``). A member name two enums share (``NONE``) is
  resolved by the other operand of a comparison, or written in full (``Proc.NONE``).

Types: bool, int, enum, record, array, sequence. Operators: ``and``, ``or``, ``not`` (bools);
comparison chains with ``== != < <= > >=`` (ints with ints, an enum with the same enum, ordered
by value; bools, records, arrays and sequences with ``==``/``!=`` only); ``in``/``not in`` against
a tuple of constants; ``+``, ``-``, unary ``-`` and ``*`` (with a constant on one side) on ints;
``a if c else b``. Calls: ``implies(a, b)``; ``any``/``all``/``count`` of one generator with one
``for`` over an array (every element) or a sequence (its live items), with optional ``if``
clauses; the past-time operators ``once(p)``, ``previously(p)``, ``since(p, q)``,
``historically(p)``; and ``fired(citation, kind=..., card=...)``. A generator's variable may
hide an outer generator's, never a field, bound, extra name or enum member.

Anything else is refused with an :class:`ExpressionError` that names the construct and its
column: attributes outside the schema, dunders, other calls, lambdas, displays, comprehensions
other than the above, f-strings, ``:=``, slices, ``is``, division, bitwise operators, strings
outside ``fired``, arithmetic on bools, a non-bool predicate. So is a text nesting more than
:data:`MAX_DEPTH` levels, or costing more than :data:`MAX_COST` evaluations per state (nested
generators multiply), so that no text makes an engine crawl.

The past-time operators and ``fired`` become monitors (history variables,
:class:`~turnproof.model.properties.Monitor`), so both engines check them as plain invariants.
A monitor is named after its operator and a digest of its normalized text (``once_`` and ten hex
digits), so that equal subexpressions share one monitor and different ones do not collide.
:attr:`Compiled.monitors` lists every monitor a property needs, innermost first: give them to the
:class:`~turnproof.model.properties.Property`. An outer monitor reads an inner one at its value in
the new state; ``previously`` reads its operand in the old state.

>>> from enum import IntEnum
>>> from turnproof.model.ops import ConcreteOps
>>> from turnproof.model.schema import ArrayDomain, EnumDomain, IntRange, Schema, State
>>> class Step(IntEnum):
...     MAIN = 0
...     CLEANUP = 1
>>> class S(State):
...     step: Any
...     turn: Any
...     hand: Any
>>> schema = Schema(
...     S, {"step": EnumDomain(Step), "turn": IntRange(0, 3), "hand": ArrayDomain(IntRange(0, 7), 2)}
... )
>>> env = Env.for_schema(schema, bounds=("turns",))
>>> p = compile_predicate("implies(step == CLEANUP, all(n <= 7 for n in hand))", env)
>>> s = S.make(step=Step.CLEANUP, turn=1, hand=(3, 8))
>>> p.fn(s, ConcreteOps(), None, None)
False
>>> sorted(p.reads)
['hand', 'step']
>>> compile_expr("hand[turn % 2]", env)
Traceback (most recent call last):
...
turnproof.model.expr.ExpressionError: column 6: the modulo operator % is not part of the language; expected +, - or * on ints (in 'hand[turn % 2]')
>>> compile_predicate("step == CLEANUP and tunr < 2", env)
Traceback (most recent call last):
...
turnproof.model.expr.ExpressionError: column 21: unknown name 'tunr'; did you mean 'turn' or 'turns'? valid names: fields hand, step, turn; bounds turns; enum members CLEANUP, MAIN (in 'step == CLEANUP and tunr < 2')
>>> from turnproof.model.properties import always
>>> c = compile_predicate("implies(step == CLEANUP, once(previously(step == MAIN)))", env)
>>> [m.name for m in c.monitors]
['previously_f8b5f24c99', 'once_8fcfcb7c3b']
>>> prop = always("cleanup-after-main", c.text, c.fn, monitors=c.monitors)
"""

from __future__ import annotations

import ast
import copy
import difflib
import hashlib
import re
import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import IntEnum
from functools import partial
from operator import getitem
from typing import Any

from turnproof.model.errors import SchemaError, TurnproofError, choices_text
from turnproof.model.properties import Monitor
from turnproof.model.rules import Kind, Model, _under
from turnproof.model.schema import (
    ArrayDomain,
    BoolDomain,
    Domain,
    EnumDomain,
    Leaf,
    RecordDomain,
    Schema,
    SeqDomain,
    Term,
)

#: Deeper expressions are refused: the compiler, ``ast.unparse`` and the evaluator all recurse.
MAX_DEPTH = 100
#: At most this many subexpression evaluations per state (nested generators multiply: each
#: evaluates its element once per item), so that no text makes an engine crawl.
MAX_COST = 20_000


class ExpressionError(TurnproofError):
    """An expression that does not parse, uses something outside the language, or does not
    type-check. The message says where (``column``, 1-based; ``line`` when the text has several),
    what was expected, the valid choices and near misses; ``text`` is the whole expression."""

    def __init__(self, text: str, message: str, column: int = 1, line: int = 1) -> None:
        self.text = text
        self.column = column
        self.line = line
        self.detail = message
        where = f"line {line}, column {column}" if "\n" in text.strip() else f"column {column}"
        super().__init__(f"{where}: {message} (in {text!r})")


# -- types --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Type:
    """The type of an expression: ``bool``, ``int``, ``enum`` (with its ``enum`` class),
    ``record`` (its class ``name`` and ``fields``), ``array`` or ``seq`` (``elem`` and ``size``,
    the array's size or the sequence's capacity)."""

    kind: str
    enum: type[IntEnum] | None = None
    name: str = ""
    fields: tuple[tuple[str, Type], ...] = ()
    elem: Type | None = None
    size: int = 0

    def __str__(self) -> str:
        if self.kind == "enum" and self.enum is not None:
            return f"enum {self.enum.__name__}"
        if self.kind == "record":
            return f"record {self.name}"
        if self.kind == "array":
            return f"array of {self.elem} (size {self.size})"
        if self.kind == "seq":
            return f"sequence of {self.elem} (capacity {self.size})"
        return self.kind

    @property
    def is_scalar(self) -> bool:
        return self.kind in ("bool", "int", "enum")


BOOL = Type("bool")
INT = Type("int")


def enum_type(enum: type[IntEnum]) -> Type:
    return Type("enum", enum=enum)


def type_of(domain: Domain) -> Type:
    """The expression type of values of ``domain``."""
    if isinstance(domain, EnumDomain):
        return enum_type(domain.enum)
    if isinstance(domain, Leaf):
        return BOOL if domain.is_bool else INT
    if isinstance(domain, RecordDomain):
        fields = tuple((n, type_of(d)) for n, d in domain.fields.items())
        return Type("record", name=domain.cls.__name__, fields=fields)
    if isinstance(domain, ArrayDomain):
        return Type("array", elem=type_of(domain.elem), size=domain.size)
    if isinstance(domain, SeqDomain):
        return Type("seq", elem=type_of(domain.elem), size=domain.capacity)
    raise SchemaError(f"the expression language has no type for the domain {domain!r}")


def _enums_in(t: Type) -> Iterable[type[IntEnum]]:
    if t.enum is not None:
        yield t.enum
    for _, ft in t.fields:
        yield from _enums_in(ft)
    if t.elem is not None:
        yield from _enums_in(t.elem)


# -- the environment and the result -------------------------------------------------------------

Extra = tuple[Type, Callable[..., Any]]


@dataclass(frozen=True)
class Env:
    """What an expression may name: the schema's fields, the bounds (by name: their values are
    read when the property is evaluated, since an open bound is a term), and extra names, each
    with its type and a function ``(s, x, b) -> term`` (such as a game's active player)."""

    schema: Schema
    bounds: Sequence[str] = ()
    extra: Mapping[str, Extra] = field(default_factory=dict)

    def __post_init__(self) -> None:
        # A bound named like a field (Magic's 'stack': a field and its capacity) is hidden by
        # the field; an extra name is chosen by the caller, so it may hide nothing.
        taken = {*self.schema.fields, *self.bounds}
        for n in self.extra:
            if n in taken:
                raise SchemaError(f"the extra name {n!r} is already a field or a bound")
            if not n.isidentifier() or n.startswith("_"):
                raise SchemaError(f"the extra name {n!r} is not a plain identifier")

    @classmethod
    def for_schema(
        cls,
        schema: Schema,
        bounds: Iterable[str] = (),
        extra: Mapping[str, Extra] | None = None,
    ) -> Env:
        return cls(schema, tuple(bounds), dict(extra or {}))

    @classmethod
    def for_model(cls, model: Model, extra: Mapping[str, Extra] | None = None) -> Env:
        """The schema and bound names of a model."""
        return cls.for_schema(model.schema, tuple(model.bounds), extra)


#: A compiled predicate: ``fn(s, x, b, m)``, the signature both engines call.
Predicate = Callable[[Any, Any, Any, Any], Term]


@dataclass(frozen=True)
class Compiled:
    """A compiled expression: its ``type``, ``fn(s, x, b, m)`` (``m`` holds monitor values),
    the ``monitors`` it reads (innermost first) and the top-level schema fields it ``reads``."""

    text: str
    type: Type
    fn: Predicate = field(repr=False)
    monitors: tuple[Monitor, ...] = ()
    reads: frozenset[str] = frozenset()


def compile_expr(text: str, env: Env) -> Compiled:
    """Compile ``text`` in ``env``; raise :class:`ExpressionError` for anything not in the
    language or badly typed."""
    return _Compiler(text, env).run()


def compile_predicate(text: str, env: Env) -> Compiled:
    """Compile ``text`` as a state predicate: like :func:`compile_expr`, and the type is bool."""
    return _Compiler(text, env).run(want_bool=True)


# -- evaluation ---------------------------------------------------------------------------------

#: A compiled node: ``ev(s, x, b, m, env)``, where ``env`` maps generator variables to values.
Ev = Callable[[Any, Any, Any, Any, Mapping[str, Any]], Any]

_NO_VARS: Mapping[str, Any] = {}


def _zero_like(value: Any) -> Any:
    """The all-zero value shaped like ``value`` (a record, array, sequence or leaf)."""
    if isinstance(value, tuple):
        items = [_zero_like(v) for v in value]
        make = getattr(type(value), "_make", None)
        return make(items) if make is not None else tuple(items)
    return 0


class _View:
    """The monitor values of one state, each computed on demand (and once) by ``compute``: the
    ``init`` of an initial state, or the ``update`` of a transition into a new state. An outer
    monitor evaluates its operand on the new state with such a view, so that inner monitors are
    read at their new values."""

    __slots__ = ("_known", "_compute", "_cache")

    def __init__(self, known: Mapping[str, Monitor], compute: Callable[[Monitor], Any]) -> None:
        self._known = known
        self._compute = compute
        self._cache: dict[str, Any] = {}

    def __getattr__(self, name: str) -> Any:
        cache = self._cache
        if name not in cache:
            mon = self._known.get(name)
            if mon is None:
                raise AttributeError(name)
            cache[name] = self._compute(mon)
        return cache[name]


def _initial(known: Mapping[str, Monitor], s: Any, x: Any, b: Any) -> _View:
    return _View(known, lambda mon: mon.init(s, x, b))


def _fresh(known: Mapping[str, Monitor], s: Any, t: Any, r: Any, m: Any, x: Any, b: Any) -> _View:
    return _View(known, lambda mon: mon.update(s, t, r, m, x, b))


# -- the compiler -------------------------------------------------------------------------------

_CALLS = ("all", "any", "count", "fired", "historically", "implies", "once", "previously", "since")
_KINDS = tuple(k.value for k in Kind)
_CITATION = re.compile(r"^(?:(?P<game>[A-Za-z]+)\s+)?(?P<num>[0-9][0-9A-Za-z.]*)$")

_BINOPS: dict[type[ast.operator], str] = {
    ast.Div: "the division operator /",
    ast.FloorDiv: "the floor division operator //",
    ast.Mod: "the modulo operator %",
    ast.Pow: "the power operator **",
    ast.MatMult: "the matrix operator @",
    ast.BitAnd: "the bitwise operator &",
    ast.BitOr: "the bitwise operator |",
    ast.BitXor: "the bitwise operator ^",
    ast.LShift: "the shift operator <<",
    ast.RShift: "the shift operator >>",
}
_ARITH: dict[type[ast.operator], str] = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*"}
_CMP_TEXT: dict[type[ast.cmpop], str] = {
    ast.Eq: "==",
    ast.NotEq: "!=",
    ast.Lt: "<",
    ast.LtE: "<=",
    ast.Gt: ">",
    ast.GtE: ">=",
    ast.In: "in",
    ast.NotIn: "not in",
    ast.Is: "is",
    ast.IsNot: "is not",
}
#: The compiler's method for each construct of the language (names and 'if' take a context).
_METHODS: dict[type[ast.AST], str] = {
    ast.BoolOp: "boolop",
    ast.UnaryOp: "unary",
    ast.BinOp: "binop",
    ast.Compare: "compare",
    ast.Constant: "constant",
    ast.Attribute: "attribute",
    ast.Subscript: "subscript",
    ast.Call: "call",
}
#: What to call the constructs that are not part of it.
_CONSTRUCTS: dict[type[ast.AST], str] = {
    ast.Lambda: "a lambda",
    ast.Dict: "a dict display",
    ast.List: "a list display",
    ast.Set: "a set display",
    ast.ListComp: "a list comprehension",
    ast.SetComp: "a set comprehension",
    ast.DictComp: "a dict comprehension",
    ast.GeneratorExp: "a generator expression outside any(), all() or count()",
    ast.JoinedStr: "an f-string",
    ast.FormattedValue: "an f-string",
    ast.NamedExpr: "an assignment expression (:=)",
    ast.Starred: "a starred expression",
    ast.Slice: "a slice",
    ast.Await: "await",
    ast.Yield: "yield",
    ast.YieldFrom: "yield from",
    ast.Tuple: "a tuple display outside 'in (...)'",
}


@dataclass(frozen=True)
class _Node:
    """A compiled subexpression: its type, its evaluator, and its value when it is a constant."""

    type: Type
    ev: Ev
    const: Any = None  # the Python value of a constant (an int, a bool or an enum member)

    @property
    def is_const(self) -> bool:
        return self.const is not None


def _constant(t: Type, value: Any) -> _Node:
    plain = value if isinstance(value, bool) else int(value)
    return _Node(t, lambda s, x, b, m, e: plain, value)


@dataclass(frozen=True)
class _Var:
    type: Type
    hidden: bool = False  # bound outside a temporal operator: it cannot see it


Scope = Mapping[str, _Var]


def _depth(tree: ast.AST) -> int:
    deepest, todo = 0, [(tree, 1)]
    while todo:
        node, d = todo.pop()
        deepest = max(deepest, d)
        todo.extend((child, d + 1) for child in ast.iter_child_nodes(node))
    return deepest


def _near(name: str, valid: Iterable[str]) -> list[str]:
    """Near misses of ``name`` among ``valid``, ignoring case."""
    by_lower: dict[str, str] = {}
    for v in valid:
        by_lower.setdefault(v.lower(), v)
    found = difflib.get_close_matches(name.lower(), list(by_lower), n=3, cutoff=0.6)
    return [by_lower[f] for f in found]


def _choices(name: str, valid: Sequence[str], label: str, listed: str = "") -> str:
    """'; did you mean 'hand'? <label>: <the valid choices>' (the question only for near misses)."""
    near = _near(name, valid)
    ask = f"; did you mean {' or '.join(repr(n) for n in near)}?" if near else ";"
    return f"{ask} {label}: {listed or ', '.join(valid)}"


class _Compiler:
    def __init__(self, text: str, env: Env) -> None:
        self.text = text
        self.schema = env.schema
        self.field_index = {n: i for i, n in enumerate(self.schema.fields)}
        self.field_types = {n: type_of(d) for n, d in self.schema.domains.items()}
        self.bounds = tuple(n for n in env.bounds if n not in self.field_index)
        self.extra = dict(env.extra)
        enums: dict[str, type[IntEnum]] = {}
        for t in [*self.field_types.values(), *(t for t, _ in self.extra.values())]:
            for e in _enums_in(t):
                enums.setdefault(e.__name__, e)
        self.enums = enums
        self.members: dict[str, list[type[IntEnum]]] = {}
        for e in enums.values():
            for member in e:
                self.members.setdefault(member.name, []).append(e)
        self.monitors: dict[str, Monitor] = {}
        self.reads: set[str] = set()
        self.resolved: dict[int, str] = {}  # id of a member's Name node -> 'Enum.MEMBER'
        self.sizes: dict[int, int] = {}  # id of a generator -> items it runs over
        self.lead_lines = 0
        self.lead_cols = 0

    # -- errors ---------------------------------------------------------------------------
    def error(self, node: ast.AST | None, message: str) -> ExpressionError:
        line = getattr(node, "lineno", None)
        if line is None:
            return ExpressionError(self.text, message, 1 + self.lead_cols, 1 + self.lead_lines)
        lines = self.text.strip().split("\n")
        raw = lines[line - 1] if 0 < line <= len(lines) else ""
        # ast counts columns in UTF-8 bytes; the message counts characters.
        offset = getattr(node, "col_offset", 0)
        column = len(raw.encode()[:offset].decode(errors="ignore")) + 1
        if line == 1:
            column += self.lead_cols
        return ExpressionError(self.text, message, column, line + self.lead_lines)

    def show(self, node: ast.AST) -> str:
        return ast.unparse(node)

    # -- entry ----------------------------------------------------------------------------
    def run(self, want_bool: bool = False) -> Compiled:
        text = self.text
        if not isinstance(text, str):
            raise ExpressionError(repr(text), "expected the expression as a string")
        body = text.strip()
        lead = text[: len(text) - len(text.lstrip())]
        self.lead_lines = lead.count("\n")
        self.lead_cols = len(lead) - (lead.rfind("\n") + 1)
        if not body:
            raise self.error(None, "expected an expression, got empty text")
        if "\x00" in text:
            column = len(text[: text.index("\x00")].rsplit("\n", 1)[-1]) + 1
            raise ExpressionError(
                text,
                "a NUL character is not part of the language",
                column,
                1 + text.count("\n", 0, text.index("\x00")),
            )
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                tree = ast.parse(body, mode="eval")
        except SyntaxError as exc:
            line = exc.lineno or 1
            msg = f"syntax error: {exc.msg or 'invalid syntax'}"
            column = exc.offset if exc.offset is not None else 1
            if column < 1:  # Python points nowhere when the text ends too early
                lines = body.split("\n")
                column = len(lines[min(line, len(lines)) - 1]) + 1
                msg += " at the end of the expression"
            if line == 1:
                column += self.lead_cols
            raise ExpressionError(text, msg, column, line + self.lead_lines) from None
        except ValueError as exc:
            raise self.error(None, f"expected a Python expression: {exc}") from None
        except (RecursionError, MemoryError):
            tree = None
        if tree is None or _depth(tree) > MAX_DEPTH:
            raise self.error(None, f"the expression nests more than {MAX_DEPTH} levels deep")
        for sub in ast.walk(tree):  # the one guard against dunders, wherever they are
            dunder = getattr(sub, "id", None) or getattr(sub, "attr", None) or ""
            if isinstance(dunder, str) and dunder.startswith("__"):
                raise self.error(
                    sub, f"dunder names such as {dunder!r} are not part of the language"
                )
        node = self.expr(tree.body, {})
        cost = self.cost(tree.body)
        if cost > MAX_COST:
            raise self.error(
                tree.body,
                f"the expression takes about {cost} evaluations per state, more than the "
                f"{MAX_COST} allowed; nested generators multiply (each evaluates its element "
                "once per item)",
            )
        if want_bool and node.type != BOOL:
            raise self.error(
                tree.body, f"a predicate must be a bool expression; this is {node.type}"
            )
        ev = node.ev

        def fn(s: Any, x: Any, b: Any, m: Any) -> Term:
            return ev(s, x, b, m, _NO_VARS)

        return Compiled(
            text=text,
            type=node.type,
            fn=fn,
            monitors=tuple(self.monitors.values()),
            reads=frozenset(self.reads),
        )

    def cost(self, node: ast.AST) -> int:
        """How many subexpressions evaluating ``node`` takes (a monitor's operand counts once:
        its update evaluates it once per transition)."""
        size = self.sizes.get(id(node))
        if size is None:
            return 1 + sum(self.cost(c) for c in ast.iter_child_nodes(node))
        assert isinstance(node, ast.GeneratorExp)
        comp = node.generators[0]
        each = self.cost(node.elt) + sum(self.cost(c) for c in comp.ifs)
        return 1 + self.cost(comp.iter) + size * each

    # -- expressions ----------------------------------------------------------------------
    def expr(self, node: ast.expr, scope: Scope, expect: Type | None = None) -> _Node:
        """Compile ``node``; ``expect`` is the type its context wants (it resolves an enum
        member name that several enums share)."""
        if isinstance(node, ast.Name):
            return self.name(node, scope, expect)
        if isinstance(node, ast.IfExp):
            return self.ifexp(node, scope, expect)
        method = _METHODS.get(type(node))
        if method is None:
            what = _CONSTRUCTS.get(type(node), f"a {type(node).__name__} expression")
            raise self.error(node, f"{what} is not part of the language")
        out: _Node = getattr(self, method)(node, scope)
        return out

    def want(self, node: ast.expr, scope: Scope, t: Type, role: str) -> _Node:
        out = self.expr(node, scope, t)
        if out.type != t:
            raise self.error(node, f"{role} must be {t}; {self.show(node)} is {out.type}")
        return out

    def boolop(self, node: ast.BoolOp, scope: Scope) -> _Node:
        op = "and" if isinstance(node.op, ast.And) else "or"
        parts = [self.want(v, scope, BOOL, f"an operand of '{op}'").ev for v in node.values]
        if op == "and":
            return _Node(BOOL, lambda s, x, b, m, e: x.And(*(p(s, x, b, m, e) for p in parts)))
        return _Node(BOOL, lambda s, x, b, m, e: x.Or(*(p(s, x, b, m, e) for p in parts)))

    def unary(self, node: ast.UnaryOp, scope: Scope) -> _Node:
        if isinstance(node.op, ast.Not):
            inner = self.want(node.operand, scope, BOOL, "the operand of 'not'").ev
            return _Node(BOOL, lambda s, x, b, m, e: x.Not(inner(s, x, b, m, e)))
        if isinstance(node.op, ast.USub):
            operand = self.want(node.operand, scope, INT, "the operand of unary -")
            if operand.is_const:
                return _constant(INT, -operand.const)
            ev = operand.ev
            return _Node(INT, lambda s, x, b, m, e: -ev(s, x, b, m, e))
        what = "unary +" if isinstance(node.op, ast.UAdd) else "the bitwise operator ~"
        raise self.error(node, f"{what} is not part of the language; expected 'not' or unary -")

    def binop(self, node: ast.BinOp, scope: Scope) -> _Node:
        if type(node.op) in _BINOPS:
            raise self.error(
                node,
                f"{_BINOPS[type(node.op)]} is not part of the language; expected +, - or * on ints",
            )
        sign = _ARITH[type(node.op)]
        left = self.want(node.left, scope, INT, f"an operand of {sign}")
        right = self.want(node.right, scope, INT, f"an operand of {sign}")
        if sign == "*" and not (left.is_const or right.is_const):
            raise self.error(
                node,
                "* needs a constant on one side (the symbolic engine works in linear "
                f"arithmetic); got {self.show(node)}",
            )
        if left.is_const and right.is_const:
            a, c = left.const, right.const
            return _constant(INT, a + c if sign == "+" else a - c if sign == "-" else a * c)
        lf, rf = left.ev, right.ev
        if sign == "+":
            return _Node(INT, lambda s, x, b, m, e: lf(s, x, b, m, e) + rf(s, x, b, m, e))
        if sign == "-":
            return _Node(INT, lambda s, x, b, m, e: lf(s, x, b, m, e) - rf(s, x, b, m, e))
        return _Node(INT, lambda s, x, b, m, e: lf(s, x, b, m, e) * rf(s, x, b, m, e))

    def constant(self, node: ast.Constant, scope: Scope) -> _Node:
        v = node.value
        if isinstance(v, bool):
            return _constant(BOOL, v)
        if isinstance(v, int):
            return _constant(INT, v)
        if isinstance(v, str):
            raise self.error(
                node, f"the string constant {v!r} is allowed only as an argument of fired(...)"
            )
        what = "None is" if v is None else f"{type(v).__name__} constants are"
        raise self.error(node, f"{what} not part of the language; expected an int or a bool")

    # -- names ----------------------------------------------------------------------------
    def needs_context(self, node: ast.expr, scope: Scope) -> bool:
        """An enum member name shared by several enums: its type comes from its context."""
        if isinstance(node, ast.IfExp):
            return self.needs_context(node.body, scope) and self.needs_context(node.orelse, scope)
        return (
            isinstance(node, ast.Name)
            and len(self.members.get(node.id, ())) > 1
            and node.id not in scope
            and node.id not in self.value_names(scope)
        )

    def valid_names(self, scope: Scope) -> list[str]:
        """Every name an expression may use here (enum classes only as ``Enum.MEMBER``)."""
        return [*self.value_names(scope), *self.members, *self.enums]

    def value_names(self, scope: Scope) -> list[str]:
        """Fields, visible generator variables, bounds and extra names: they hide enum names."""
        visible = [n for n, v in scope.items() if not v.hidden]
        return [*self.field_index, *visible, *self.bounds, *self.extra]

    def name(self, node: ast.Name, scope: Scope, expect: Type | None = None) -> _Node:
        n = node.id
        if n in self.field_index:
            i = self.field_index[n]
            self.reads.add(n)
            return _Node(self.field_types[n], lambda s, x, b, m, e: s[i])
        if n in scope:
            var = scope[n]
            if var.hidden:
                raise self.error(
                    node,
                    f"the generator variable {n!r} is bound outside this past-time operator, "
                    "which is evaluated on other states; expected a name of the schema",
                )
            return _Node(var.type, lambda s, x, b, m, e: e[n])
        if n in self.bounds:
            return _Node(INT, lambda s, x, b, m, e: getattr(b, n))
        if n in self.extra:
            t, f = self.extra[n]
            return _Node(t, lambda s, x, b, m, e: f(s, x, b))
        if n in self.members:
            return self.member(node, self.members[n], expect)
        if n in self.enums:
            raise self.error(
                node,
                f"{n} is an enum; expected one of its members, such as "
                f"{n}.{next(iter(self.enums[n])).name}",
            )
        groups = [
            ("fields", list(self.field_index)),
            ("generator variables", [v for v, var in scope.items() if not var.hidden]),
            ("bounds", list(self.bounds)),
            ("extra names", list(self.extra)),
            ("enum members", list(self.members)),
        ]
        listed = "; ".join(f"{what} {choices_text(names)}" for what, names in groups if names)
        valid = self.valid_names(scope)
        raise self.error(node, f"unknown name {n!r}{_choices(n, valid, 'valid names', listed)}")

    def member(self, node: ast.Name, enums: list[type[IntEnum]], expect: Type | None) -> _Node:
        n = node.id
        names = [e.__name__ for e in enums]
        if len(enums) == 1:
            chosen = enums[0]
        elif expect is not None and expect.enum in enums:
            chosen = expect.enum
        elif expect is not None and expect.enum is not None:
            wanted = expect.enum.__name__
            raise self.error(
                node,
                f"{n!r} is a member of {' and '.join(names)}, not of {wanted}; expected a "
                f"member of {wanted}: {', '.join(expect.enum.__members__)}",
            )
        else:
            raise self.error(
                node,
                f"ambiguous name {n!r}: a member of {' and '.join(names)}; compare it with a "
                f"value of one of these enums, or write {' or '.join(f'{e}.{n}' for e in names)}",
            )
        self.resolved[id(node)] = f"{chosen.__name__}.{n}"
        return _constant(enum_type(chosen), chosen[n])

    def attribute(self, node: ast.Attribute, scope: Scope) -> _Node:
        a = node.attr
        v = node.value
        if isinstance(v, ast.Name) and v.id in self.enums and v.id not in self.value_names(scope):
            enum = self.enums[v.id]
            if a not in enum.__members__:
                members = list(enum.__members__)
                raise self.error(
                    node, f"{v.id} has no member {a!r}{_choices(a, members, f'{v.id} members')}"
                )
            return _constant(enum_type(enum), enum[a])
        base = self.expr(v, scope)
        t = base.type
        ev = base.ev
        if t.kind == "record":
            names = [f for f, _ in t.fields]
            if a not in names:
                raise self.error(
                    node, f"record {t.name} has no field {a!r}{_choices(a, names, 'its fields')}"
                )
            j = names.index(a)
            ft = t.fields[j][1]
            return _Node(ft, lambda s, x, b, m, e: ev(s, x, b, m, e)[j])
        if t.kind == "seq":
            if a != "len":
                raise self.error(
                    node,
                    f"a sequence has no attribute {a!r}"
                    + _choices(a, ["len"], "expected", f"{self.show(v)}.len (its length)"),
                )
            return _Node(INT, lambda s, x, b, m, e: ev(s, x, b, m, e).length)
        raise self.error(
            node,
            f"attribute access outside the schema: {self.show(v)} is {t}, which has no "
            "attributes (records have fields, sequences have .len)",
        )

    def subscript(self, node: ast.Subscript, scope: Scope) -> _Node:
        base = self.expr(node.value, scope)
        t = base.type
        if t.kind not in ("array", "seq"):
            raise self.error(
                node, f"only arrays and sequences take an index; {self.show(node.value)} is {t}"
            )
        if isinstance(node.slice, ast.Slice):
            raise self.error(node.slice, "a slice is not part of the language; expected an index")
        index = self.want(node.slice, scope, INT, "an index")
        assert t.elem is not None
        elem, size, ev, iv = t.elem, t.size, base.ev, index.ev
        if index.is_const:
            i = index.const
            if not 0 <= i < size:
                what = "size" if t.kind == "array" else "capacity"
                raise self.error(
                    node.slice,
                    f"index {i} is out of range: {self.show(node.value)} has {what} {size}; "
                    f"expected 0..{size - 1}",
                )
            if t.kind == "array":
                return _Node(elem, lambda s, x, b, m, e: ev(s, x, b, m, e)[i])
            return _Node(elem, lambda s, x, b, m, e: x.seq_get(ev(s, x, b, m, e), i))
        if t.kind == "seq":
            return _Node(
                elem, lambda s, x, b, m, e: x.seq_get(ev(s, x, b, m, e), iv(s, x, b, m, e))
            )

        def read(s: Any, x: Any, b: Any, m: Any, e: Mapping[str, Any]) -> Any:
            # Total in both engines: an index outside the array reads the all-zero element.
            arr = ev(s, x, b, m, e)
            table = {k: partial(getitem, arr, k) for k in range(size)}
            return x.cases(iv(s, x, b, m, e), table, partial(_zero_like, arr[0]))

        return _Node(elem, read)

    def ifexp(self, node: ast.IfExp, scope: Scope, expect: Type | None) -> _Node:
        cond = self.want(node.test, scope, BOOL, "the condition of 'if ... else'").ev
        arms = [node.body, node.orelse]
        later = [a for a in arms if self.needs_context(a, scope)]
        done = {id(a): self.expr(a, scope, expect) for a in arms if a not in later}
        context = next(iter(done.values())).type if done else expect
        for a in later:
            done[id(a)] = self.expr(a, scope, context)
        then, other = done[id(node.body)], done[id(node.orelse)]
        if then.type != other.type:
            raise self.error(
                node,
                f"both arms of 'if ... else' must have one type; {self.show(node.body)} is "
                f"{then.type}, {self.show(node.orelse)} is {other.type}",
            )
        tv, ov = then.ev, other.ev
        return _Node(
            then.type,
            lambda s, x, b, m, e: x.If(cond(s, x, b, m, e), tv(s, x, b, m, e), ov(s, x, b, m, e)),
        )

    # -- comparisons ----------------------------------------------------------------------
    def compare(self, node: ast.Compare, scope: Scope) -> _Node:
        operands = [node.left, *node.comparators]
        last = len(operands) - 1
        for i, op in enumerate(node.ops):
            if isinstance(op, (ast.Is, ast.IsNot)):
                raise self.error(
                    node, f"'{_CMP_TEXT[type(op)]}' is not part of the language; expected == or !="
                )
            if isinstance(op, (ast.In, ast.NotIn)) and (
                i + 1 != last or not isinstance(operands[i + 1], ast.Tuple)
            ):
                raise self.error(
                    operands[i + 1],
                    f"'{_CMP_TEXT[type(op)]}' needs a tuple of constants on its right, as the "
                    f"last operand, such as (A, B); got {self.show(operands[i + 1])}",
                )
        # The tuple right of 'in' is compiled once the left side is known (its members take
        # the left side's enum). A member name that several enums share takes the type of a
        # neighbour, so the others go first.
        tup = operands[last] if isinstance(node.ops[-1], (ast.In, ast.NotIn)) else None
        values = operands[:last] if tup is not None else operands
        compiled: dict[int, _Node] = {}
        later = [i for i, o in enumerate(values) if self.needs_context(o, scope)]
        for i, o in enumerate(values):
            if i not in later:
                compiled[i] = self.expr(o, scope)
        for i in later:
            near = [compiled[j].type for j in (i - 1, i + 1) if j in compiled]
            if not near and tup is not None and i == len(values) - 1:
                near = [
                    self.expr(el, scope).type
                    for el in tup.elts  # type: ignore[attr-defined]
                    if not self.needs_context(el, scope)
                ][:1]
            compiled[i] = self.expr(values[i], scope, near[0] if near else None)
        parts: list[Ev] = []
        for i, op in enumerate(node.ops):
            if i + 1 == last and tup is not None:
                parts.append(self.membership(compiled[i], op, tup, scope, operands[i]))  # type: ignore[arg-type]
            else:
                parts.append(
                    self.pair(compiled[i], op, compiled[i + 1], operands[i], operands[i + 1])
                )
        if len(parts) == 1:
            return _Node(BOOL, parts[0])
        return _Node(BOOL, lambda s, x, b, m, e: x.And(*(p(s, x, b, m, e) for p in parts)))

    def mismatch(self, a: _Node, a_node: ast.expr, b: _Node, b_node: ast.expr, op: str) -> str:
        msg = f"cannot compare {self.show(a_node)} ({a.type}) {op} {self.show(b_node)} ({b.type})"
        for t in (a.type, b.type):
            if t.enum is not None:
                return f"{msg}; expected a member of {t.enum.__name__}: " + ", ".join(
                    t.enum.__members__
                )
        return f"{msg}; expected two values of one type"

    def pair(
        self, left: _Node, op: ast.cmpop, right: _Node, left_node: ast.expr, right_node: ast.expr
    ) -> Ev:
        text = _CMP_TEXT[type(op)]
        if left.type != right.type:
            raise self.error(left_node, self.mismatch(left, left_node, right, right_node, text))
        lf, rf = left.ev, right.ev
        if isinstance(op, ast.Eq):
            return lambda s, x, b, m, e: x.Eq(lf(s, x, b, m, e), rf(s, x, b, m, e))
        if isinstance(op, ast.NotEq):
            return lambda s, x, b, m, e: x.Not(x.Eq(lf(s, x, b, m, e), rf(s, x, b, m, e)))
        if left.type.kind not in ("int", "enum"):
            raise self.error(
                left_node,
                f"'{text}' orders ints and enums; {self.show(left_node)} is {left.type}, "
                "expected == or !=",
            )
        if isinstance(op, ast.Lt):
            return lambda s, x, b, m, e: lf(s, x, b, m, e) < rf(s, x, b, m, e)
        if isinstance(op, ast.LtE):
            return lambda s, x, b, m, e: lf(s, x, b, m, e) <= rf(s, x, b, m, e)
        if isinstance(op, ast.Gt):
            return lambda s, x, b, m, e: lf(s, x, b, m, e) > rf(s, x, b, m, e)
        return lambda s, x, b, m, e: lf(s, x, b, m, e) >= rf(s, x, b, m, e)

    def membership(
        self, left: _Node, op: ast.cmpop, tup: ast.Tuple, scope: Scope, node: ast.expr
    ) -> Ev:
        if not left.type.is_scalar:
            raise self.error(node, f"'in' tests a bool, int or enum; the left side is {left.type}")
        values = []
        for el in tup.elts:
            c = self.expr(el, scope, left.type)
            if not c.is_const:
                raise self.error(
                    el, f"expected a constant in the tuple right of 'in'; got {self.show(el)}"
                )
            if c.type != left.type:
                raise self.error(el, self.mismatch(left, node, c, el, _CMP_TEXT[type(op)]))
            values.append(c.const if isinstance(c.const, bool) else int(c.const))
        lf = left.ev

        def member(s: Any, x: Any, b: Any, m: Any, e: Mapping[str, Any]) -> Term:
            value = lf(s, x, b, m, e)
            return x.Or(*(x.Eq(value, v) for v in values))

        if isinstance(op, ast.In):
            return member
        return lambda s, x, b, m, e: x.Not(member(s, x, b, m, e))

    # -- calls ----------------------------------------------------------------------------
    def call(self, node: ast.Call, scope: Scope) -> _Node:
        f = node.func
        if not isinstance(f, ast.Name):
            raise self.error(
                node,
                f"only calls of {', '.join(_CALLS)} are allowed; got a call of {self.show(f)}",
            )
        if f.id not in _CALLS:
            hint = " (for a sequence's length write seq.len)" if f.id == "len" else ""
            raise self.error(
                f, f"call of {f.id!r} is not allowed{_choices(f.id, _CALLS, 'allowed calls')}{hint}"
            )
        for a in node.args:
            if isinstance(a, ast.Starred):
                raise self.error(a, f"a starred argument is not allowed in {f.id}(...)")
        for k in node.keywords:
            if k.arg is None:
                raise self.error(k.value, f"keyword unpacking (**) is not allowed in {f.id}(...)")
            if f.id != "fired":
                raise self.error(k.value, f"{f.id}(...) takes no keyword arguments; got {k.arg}=")
        if f.id == "fired":
            return self.fired(node)
        if f.id in ("any", "all", "count"):
            return self.quantifier(node, f.id, scope)
        arity = 2 if f.id in ("implies", "since") else 1
        if len(node.args) != arity:
            raise self.error(
                node,
                f"{f.id}(...) takes {arity} argument{'s' if arity > 1 else ''}; "
                f"got {len(node.args)}",
            )
        if f.id == "implies":
            if_, then = (self.want(v, scope, BOOL, "an argument of implies").ev for v in node.args)
            return _Node(
                BOOL, lambda s, x, b, m, e: x.Implies(if_(s, x, b, m, e), then(s, x, b, m, e))
            )
        return self.temporal(node, f.id, scope)

    def quantifier(self, node: ast.Call, fname: str, scope: Scope) -> _Node:
        gen = node.args[0] if len(node.args) == 1 else None
        if not isinstance(gen, ast.GeneratorExp):
            raise self.error(
                node,
                f"{fname}(...) takes one generator expression, such as {fname}(v.x == 1 "
                "for v in seq)",
            )
        if len(gen.generators) != 1:
            raise self.error(
                gen.generators[1].target, f"{fname}(...) takes a generator with exactly one 'for'"
            )
        comp = gen.generators[0]
        if comp.is_async:
            raise self.error(gen, "'async for' is not part of the language")
        if not isinstance(comp.target, ast.Name):
            raise self.error(
                comp.target, f"expected one variable name after 'for'; got {self.show(comp.target)}"
            )
        var = comp.target.id
        if var in self.valid_names({}):  # an outer generator's variable may be hidden
            raise self.error(
                comp.target,
                f"the generator variable {var!r} would hide a name of the schema or the "
                "environment; expected a fresh name",
            )
        coll = self.expr(comp.iter, scope)
        if coll.type.kind not in ("array", "seq"):
            raise self.error(
                comp.iter,
                f"{fname}(...) runs over an array or a sequence; {self.show(comp.iter)} is "
                f"{coll.type}",
            )
        assert coll.type.elem is not None
        self.sizes[id(gen)] = coll.type.size
        inner = {**scope, var: _Var(coll.type.elem)}
        body = self.want(gen.elt, inner, BOOL, f"the element of {fname}(...)").ev
        conds = [self.want(c, inner, BOOL, "an 'if' clause").ev for c in comp.ifs]

        def item(s: Any, x: Any, b: Any, m: Any, e: Mapping[str, Any], v: Any) -> Term:
            e2 = {**e, var: v}
            if not conds:
                return body(s, x, b, m, e2)
            cond = x.And(*(c(s, x, b, m, e2) for c in conds))
            if fname == "all":
                return x.Implies(cond, body(s, x, b, m, e2))
            return x.And(cond, body(s, x, b, m, e2))

        cv = coll.ev
        if coll.type.kind == "seq":
            seq_op = {"any": "seq_any", "all": "seq_all", "count": "seq_count"}[fname]

            def over_seq(s: Any, x: Any, b: Any, m: Any, e: Mapping[str, Any]) -> Term:
                return getattr(x, seq_op)(cv(s, x, b, m, e), lambda v: item(s, x, b, m, e, v))

            return _Node(INT if fname == "count" else BOOL, over_seq)

        def over_array(s: Any, x: Any, b: Any, m: Any, e: Mapping[str, Any]) -> Term:
            terms = [item(s, x, b, m, e, v) for v in cv(s, x, b, m, e)]
            if fname == "count":
                return x.count(terms)
            return x.Or(*terms) if fname == "any" else x.And(*terms)

        return _Node(INT if fname == "count" else BOOL, over_array)

    # -- monitors -------------------------------------------------------------------------
    def monitor_name(self, op: str, node: ast.expr) -> str:
        """``op`` and a digest of the text of ``node`` with enum members written in full and
        fired's keywords sorted: equal for equal subexpressions, in every run."""
        clone = copy.deepcopy(node)
        for orig, new in zip(ast.walk(node), ast.walk(clone)):
            if isinstance(new, ast.Name) and id(orig) in self.resolved:
                new.id = self.resolved[id(orig)]
            if isinstance(new, ast.Call):
                new.keywords.sort(key=lambda k: k.arg or "")
        return f"{op}_{hashlib.sha256(ast.unparse(clone).encode()).hexdigest()[:10]}"

    def monitor(self, name: str, init: Callable[..., Term], update: Callable[..., Term]) -> _Node:
        """Register the monitor ``name`` (once) and read its value."""
        self.monitors.setdefault(name, Monitor(name, BoolDomain(), init, update))
        text = self.text

        def read(s: Any, x: Any, b: Any, m: Any, e: Mapping[str, Any]) -> Term:
            try:
                return getattr(m, name)
            except AttributeError:
                raise ExpressionError(
                    text,
                    f"the monitor {name} is missing from the monitor values; give the property "
                    "the compiled expression's monitors",
                ) from None

        return _Node(BOOL, read)

    def temporal(self, node: ast.Call, op: str, scope: Scope) -> _Node:
        hidden = {n: _Var(v.type, hidden=True) for n, v in scope.items()}
        roles = (
            ("the first argument", "the second argument") if op == "since" else ("the argument",)
        )
        parts = [
            self.want(a, hidden, BOOL, f"{role} of {op}(...)").ev
            for a, role in zip(node.args, roles)
        ]
        name = self.monitor_name(op, node)
        known = self.monitors  # complete once compiling ends, read only when evaluating
        p = parts[-1]  # the operand (of since: q, whose holding starts the interval)

        def init(s: Any, x: Any, b: Any) -> Term:
            if op == "previously":
                return False  # an initial state has no previous state
            return x.And(p(s, x, b, _initial(known, s, x, b), _NO_VARS))

        def update(s: Any, t: Any, r: Any, m: Any, x: Any, b: Any) -> Term:
            if op == "previously":
                return x.And(p(s, x, b, m, _NO_VARS))
            view = _fresh(known, s, t, r, m, x, b)
            now = p(t, x, b, view, _NO_VARS)
            if op == "once":
                return x.Or(getattr(m, name), now)
            if op == "historically":
                return x.And(getattr(m, name), now)
            # since(p, q): q holds now, or p holds now and since(p, q) held before
            return x.Or(now, x.And(parts[0](t, x, b, view, _NO_VARS), getattr(m, name)))

        return self.monitor(name, init, update)

    def fired(self, node: ast.Call) -> _Node:
        if len(node.args) > 1:
            raise self.error(node, "fired(...) takes at most one citation, such as 'MTG 514.3a'")
        tests: list[Callable[[Any], bool]] = []
        for a in node.args:
            if not isinstance(a, ast.Constant) or not isinstance(a.value, str):
                raise self.error(a, "expected a rule citation as a string, such as 'MTG 514.3a'")
            tests.append(self.citation_test(a))
        seen: set[str] = set()
        for k in node.keywords:
            assert k.arg is not None
            if k.arg not in ("kind", "card"):
                raise self.error(
                    k.value,
                    f"fired(...) has no keyword {k.arg!r}"
                    + _choices(k.arg, ["kind", "card"], "expected", "kind= or card="),
                )
            if k.arg in seen:
                raise self.error(k.value, f"fired(...) got {k.arg}= twice")
            seen.add(k.arg)
            v = k.value
            if not isinstance(v, ast.Constant) or not isinstance(v.value, str) or not v.value:
                raise self.error(v, f"expected {k.arg}= to be a non-empty string")
            wanted = v.value
            if k.arg == "kind":
                if wanted not in _KINDS:
                    raise self.error(
                        v, f"unknown rule kind {wanted!r}{_choices(wanted, _KINDS, 'valid kinds')}"
                    )
                tests.append(partial(_kind_is, wanted))
            else:
                tests.append(partial(_card_is, wanted))
        if not tests:
            raise self.error(
                node, "fired(...) needs a citation, kind= or card=, such as fired('MTG 514.3a')"
            )

        def init(s: Any, x: Any, b: Any) -> Term:
            return False  # no rule fired into an initial state

        def update(s: Any, t: Any, r: Any, m: Any, x: Any, b: Any) -> Term:
            return all(test(r) for test in tests)

        return self.monitor(self.monitor_name("fired", node), init, update)

    def citation_test(self, node: ast.Constant) -> Callable[[Any], bool]:
        cited = str(node.value).strip()
        match = _CITATION.match(cited)
        if not match:
            raise self.error(
                node,
                f"expected a rule citation such as 'MTG 514.3a' or '514.3a'; got {cited!r}",
            )
        num = match.group("num")
        if match.group("game"):
            return partial(_cited, f"{match.group('game').upper()} {num}")
        return partial(_cited_number, num)


# What fired(...) tests on the rule that fired (a Rule: a Python value in both engines).


def _kind_is(kind: str, r: Any) -> bool:
    return bool(r.kind.value == kind)


def _card_is(card: str, r: Any) -> bool:
    return bool(getattr(r, "card", "") == card)


def _cited(citation: str, r: Any) -> bool:
    """``r`` is the rule ``citation`` ('MTG 514.3') or one of its subrules."""
    return _under(r.citation, citation)


def _cited_number(number: str, r: Any) -> bool:
    """Like :func:`_cited` for a bare number ('514.3'), whatever the game's prefix."""
    return _under(r.citation.rsplit(" ", 1)[-1], number)
