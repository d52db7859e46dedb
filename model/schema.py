"""State schemas: finite domains, and the immutable state values built from them.

A rule set declares its state once, as a subclass of :class:`State` with one annotation per
field, and gives each field a finite :class:`Domain` for the chosen bounds. The same declaration
serves both engines:

* the explicit engine stores states as these values (hashable, compared by value);
* the symbolic engine builds the very same class with Z3 terms in the leaves, and asks each
  domain for its leaves and its well-formedness constraint (ranges, canonical empty slots).

Modelling decision: :class:`State` is a ``tuple`` subclass with ``__slots__ = ()`` and generated
read-only properties, not a ``@dataclass(frozen=True, slots=True)``. It is just as immutable and
slotted, but it hashes 2.5x and copies-with-changes 3x faster on this machine, which is most of
the explicit engine's time (measured while choosing the representation; see ARCHITECTURE.md).

Sequences have a fixed capacity and canonical empty slots: a :class:`Seq` holds its length and
exactly ``capacity`` slots, and every slot at or beyond the length holds the element domain's
default. Two sequences with the same items are therefore the same value, in both engines.

>>> from enum import IntEnum
>>> class Light(IntEnum):
...     RED = 0
...     GREEN = 1
>>> class S(State):
...     light: Term
...     count: Term
>>> schema = Schema(S, {"light": EnumDomain(Light), "count": IntRange(0, 3)})
>>> s = S.make(light=Light.RED, count=0)
>>> s.replace(count=2)
S(light=0, count=2)
>>> schema.describe_value(s.replace(count=2))["light"]
'RED'
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Mapping, Sequence
from enum import IntEnum
from operator import itemgetter
from typing import Any, ClassVar, NamedTuple, Self, TypeAlias

from turnproof.model.errors import SchemaError

#: A field value: a concrete Python value in the explicit engine, a Z3 term in the symbolic one.
Term: TypeAlias = Any


class Seq(NamedTuple):
    """A fixed-capacity sequence value: ``length`` live items in ``slots[:length]``."""

    length: Term
    slots: tuple[Any, ...]


_MISSING = object()


class State(tuple):
    """Base of every rule set's state: an immutable tuple with named, typed-by-schema fields.

    Subclasses declare their fields as annotations, in order. ``make`` builds a value from
    keyword arguments; ``replace`` returns a copy with some fields changed.
    """

    __slots__ = ()
    _fields: ClassVar[tuple[str, ...]] = ()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        annotations = cls.__dict__.get("__annotations__", {})
        fields = tuple(
            name
            for name, ann in annotations.items()
            if not str(ann).startswith(("ClassVar", "typing.ClassVar"))
        )
        if not fields:
            raise SchemaError(f"state class {cls.__name__} declares no fields")
        cls._fields = fields
        for index, name in enumerate(fields):
            setattr(cls, name, property(itemgetter(index), doc=f"field {name}"))
        # A generated replace: one keyword per field, no dict building, no loop.
        params = ", ".join(f"{n}=_M" for n in fields)
        items = ", ".join(f"self[{i}] if {n} is _M else {n}" for i, n in enumerate(fields))
        src = f"def replace(self, *, {params}):\n    return _new(_cls, ({items},))\n"
        namespace: dict[str, Any] = {"_M": _MISSING, "_new": tuple.__new__, "_cls": cls}
        exec(src, namespace)  # noqa: S102 - generated from the declared field names only
        replace = namespace["replace"]
        replace.__doc__ = f"A copy of this {cls.__name__} with the given fields changed."
        cls.replace = replace  # type: ignore[method-assign]

    @classmethod
    def make(cls, **values: Any) -> Self:
        """Build a state from one keyword per field (all fields required)."""
        missing = [n for n in cls._fields if n not in values]
        extra = [n for n in values if n not in cls._fields]
        if missing or extra:
            raise SchemaError(
                f"{cls.__name__}: missing fields {missing}, unknown fields {extra}; "
                f"fields are {', '.join(cls._fields)}"
            )
        return tuple.__new__(cls, tuple(values[n] for n in cls._fields))

    @classmethod
    def _make(cls, items: Sequence[Any]) -> Self:
        return tuple.__new__(cls, tuple(items))

    def replace(self, **changes: Any) -> Self:  # replaced per subclass in __init_subclass__
        raise NotImplementedError

    def as_dict(self) -> dict[str, Any]:
        return dict(zip(self._fields, self))

    def __repr__(self) -> str:
        inner = ", ".join(f"{n}={v!r}" for n, v in zip(self._fields, self))
        return f"{type(self).__name__}({inner})"


class Domain(ABC):
    """A finite set of values for one field (or one part of a field)."""

    @abstractmethod
    def default(self) -> Any:
        """The canonical value (used for empty slots and fresh records)."""

    @abstractmethod
    def leaves(self, name: str) -> list[tuple[str, Leaf]]:
        """The scalar leaves of this domain, each with its dotted path name."""

    @abstractmethod
    def flatten(self, value: Any) -> list[Any]:
        """The leaf values of ``value``, in the order of :meth:`leaves`."""

    @abstractmethod
    def build(self, leaves: Iterator[Any]) -> Any:
        """The inverse of :meth:`flatten`: consume leaf values and build a value."""

    @abstractmethod
    def well_formed(self, value: Any, x: Any) -> Term:
        """A formula (through the operations object ``x``) that ``value`` lies in the domain."""

    @abstractmethod
    def describe(self, value: Any) -> Any:
        """A JSON-friendly rendering of a concrete value (enum names, lists, dicts)."""


class Leaf(Domain):
    """A scalar domain: a boolean, or an integer between ``lo`` and ``hi``."""

    lo: int
    hi: int
    is_bool: bool = False

    def leaves(self, name: str) -> list[tuple[str, Leaf]]:
        return [(name, self)]

    def flatten(self, value: Any) -> list[Any]:
        return [value]

    def build(self, leaves: Iterator[Any]) -> Any:
        return next(leaves)

    def values(self) -> range:
        return range(self.lo, self.hi + 1)


class BoolDomain(Leaf):
    is_bool = True

    def __init__(self) -> None:
        self.lo, self.hi = 0, 1

    def default(self) -> Any:
        return False

    def well_formed(self, value: Any, x: Any) -> Term:
        return True

    def describe(self, value: Any) -> Any:
        return bool(value)

    def __repr__(self) -> str:
        return "Bool"


class IntRange(Leaf):
    """Integers from ``lo`` to ``hi``. The symbolic engine may give ``hi`` as a term (a bound left
    open, such as "any number of turns"); only the explicit engine needs it to be a number."""

    def __init__(self, lo: int, hi: Any) -> None:
        if isinstance(hi, int) and hi < lo:
            raise SchemaError(f"empty integer range {lo}..{hi}")
        self.lo, self.hi = lo, hi

    def default(self) -> Any:
        return self.lo

    def well_formed(self, value: Any, x: Any) -> Term:
        return x.And(value >= self.lo, value <= self.hi)

    def describe(self, value: Any) -> Any:
        return int(value)

    def __repr__(self) -> str:
        return f"Int[{self.lo}..{self.hi}]"


class EnumDomain(Leaf):
    """An ``IntEnum`` whose members are consecutive integers from 0."""

    def __init__(self, enum: type[IntEnum]) -> None:
        values = sorted(int(m) for m in enum)
        if values != list(range(len(values))):
            raise SchemaError(f"enum {enum.__name__} must number its members 0..n-1")
        self.enum = enum
        self.lo, self.hi = 0, len(values) - 1

    def default(self) -> Any:
        return self.enum(0)

    def well_formed(self, value: Any, x: Any) -> Term:
        return x.And(value >= self.lo, value <= self.hi)

    def describe(self, value: Any) -> Any:
        return self.enum(int(value)).name

    def __repr__(self) -> str:
        return self.enum.__name__


class RecordDomain(Domain):
    """A small record (a ``NamedTuple`` class) whose fields are leaves."""

    def __init__(self, cls: type[tuple[Any, ...]], fields: Mapping[str, Leaf]) -> None:
        names = tuple(getattr(cls, "_fields", ()))
        if names != tuple(fields):
            raise SchemaError(f"record {cls.__name__} has fields {names}, domains {tuple(fields)}")
        self.cls = cls
        self.fields = dict(fields)

    def default(self) -> Any:
        return self.cls(*(d.default() for d in self.fields.values()))

    def leaves(self, name: str) -> list[tuple[str, Leaf]]:
        return [(f"{name}.{n}", d) for n, d in self.fields.items()]

    def flatten(self, value: Any) -> list[Any]:
        return list(value)

    def build(self, leaves: Iterator[Any]) -> Any:
        return self.cls(*(next(leaves) for _ in self.fields))

    def well_formed(self, value: Any, x: Any) -> Term:
        return x.And(*(d.well_formed(v, x) for d, v in zip(self.fields.values(), value)))

    def describe(self, value: Any) -> Any:
        return {n: d.describe(v) for (n, d), v in zip(self.fields.items(), value)}

    def __repr__(self) -> str:
        return self.cls.__name__


class ArrayDomain(Domain):
    """A fixed-size array (a tuple), typically one entry per player."""

    def __init__(self, elem: Domain, size: int) -> None:
        if size < 1:
            raise SchemaError("arrays hold at least one element")
        self.elem, self.size = elem, size

    def default(self) -> Any:
        return tuple(self.elem.default() for _ in range(self.size))

    def leaves(self, name: str) -> list[tuple[str, Leaf]]:
        return [leaf for i in range(self.size) for leaf in self.elem.leaves(f"{name}[{i}]")]

    def flatten(self, value: Any) -> list[Any]:
        return [v for item in value for v in self.elem.flatten(item)]

    def build(self, leaves: Iterator[Any]) -> Any:
        return tuple(self.elem.build(leaves) for _ in range(self.size))

    def well_formed(self, value: Any, x: Any) -> Term:
        if len(value) != self.size:
            return False
        return x.And(*(self.elem.well_formed(v, x) for v in value))

    def describe(self, value: Any) -> Any:
        return [self.elem.describe(v) for v in value]

    def __repr__(self) -> str:
        return f"{self.elem!r}[{self.size}]"


class SeqDomain(Domain):
    """A sequence of at most ``capacity`` elements with canonical empty slots."""

    def __init__(self, elem: Domain, capacity: int) -> None:
        if capacity < 1:
            raise SchemaError("sequences have a capacity of at least 1")
        self.elem, self.capacity = elem, capacity
        self.empty_slot = elem.default()
        if any(v != 0 for v in elem.flatten(self.empty_slot)):
            raise SchemaError(
                f"the empty slot of {elem!r} must be all zeros (false, 0, first enum)"
            )

    def default(self) -> Any:
        return Seq(0, tuple(self.empty_slot for _ in range(self.capacity)))

    def leaves(self, name: str) -> list[tuple[str, Leaf]]:
        out: list[tuple[str, Leaf]] = [(f"{name}.len", IntRange(0, self.capacity))]
        for i in range(self.capacity):
            out.extend(self.elem.leaves(f"{name}[{i}]"))
        return out

    def flatten(self, value: Any) -> list[Any]:
        return [value.length] + [v for item in value.slots for v in self.elem.flatten(item)]

    def build(self, leaves: Iterator[Any]) -> Any:
        length = next(leaves)
        return Seq(length, tuple(self.elem.build(leaves) for _ in range(self.capacity)))

    def well_formed(self, value: Any, x: Any) -> Term:
        parts = [value.length >= 0, value.length <= self.capacity]
        for i, slot in enumerate(value.slots):
            parts.append(self.elem.well_formed(slot, x))
            parts.append(x.Implies(value.length <= i, x.Eq(slot, self.empty_slot)))
        return x.And(*parts)

    def describe(self, value: Any) -> Any:
        return [self.elem.describe(v) for v in value.slots[: int(value.length)]]

    def make(self, items: Sequence[Any]) -> Seq:
        """A concrete sequence holding ``items`` (bottom first)."""
        if len(items) > self.capacity:
            raise SchemaError(f"{len(items)} items exceed capacity {self.capacity}")
        pad = (self.empty_slot,) * (self.capacity - len(items))
        return Seq(len(items), tuple(items) + pad)

    def __repr__(self) -> str:
        return f"Seq[{self.elem!r}; {self.capacity}]"


class Schema:
    """A state class together with one domain per field, for one choice of bounds."""

    def __init__(self, state_cls: type[State], domains: Mapping[str, Domain]) -> None:
        fields = state_cls._fields
        if tuple(domains) != fields:
            raise SchemaError(
                f"{state_cls.__name__} declares fields {fields} "
                f"but the schema gives domains for {tuple(domains)}"
            )
        self.state_cls = state_cls
        self.domains: dict[str, Domain] = dict(domains)
        self._leaves = [leaf for n, d in self.domains.items() for leaf in d.leaves(n)]

    @property
    def fields(self) -> tuple[str, ...]:
        return self.state_cls._fields

    def leaves(self) -> list[tuple[str, Leaf]]:
        """Every scalar leaf with its path name (``stack[0].ctrl``, ``stack.len``, ``hand[1]``)."""
        return list(self._leaves)

    def flatten(self, state: State) -> list[Any]:
        return [v for d, value in zip(self.domains.values(), state) for v in d.flatten(value)]

    def build(self, leaves: Sequence[Any]) -> State:
        it = iter(leaves)
        values = [d.build(it) for d in self.domains.values()]
        return self.state_cls._make(values)

    def well_formed(self, state: State, x: Any) -> Term:
        return x.And(*(d.well_formed(v, x) for d, v in zip(self.domains.values(), state)))

    def describe_value(self, state: State) -> dict[str, Any]:
        """Field name to a JSON-friendly value (enum names, lists), for traces and reports."""
        return {n: d.describe(v) for (n, d), v in zip(self.domains.items(), state)}

    def check(self, state: State, x: Any) -> None:
        """Raise :class:`SchemaError` unless the concrete ``state`` fits the schema."""
        if not isinstance(state, self.state_cls):
            raise SchemaError(f"expected a {self.state_cls.__name__}, got {type(state).__name__}")
        for (name, dom), value in zip(self.domains.items(), state):
            try:
                ok = dom.well_formed(value, x)
            except (TypeError, AttributeError, IndexError) as exc:
                raise SchemaError(f"field {name}={value!r} does not fit {dom!r}: {exc}") from exc
            if not ok:
                raise SchemaError(f"field {name}={value!r} does not fit {dom!r}")


def _fits(dom: Domain, ref: str, out: list[str]) -> None:
    """Append Python conditions that the value at expression ``ref`` lies in ``dom`` (the
    checks ``well_formed`` makes on a concrete value, unrolled)."""
    if isinstance(dom, BoolDomain):
        return
    if isinstance(dom, Leaf):
        out.append(f"{dom.lo} <= {ref} <= {dom.hi}")
    elif isinstance(dom, RecordDomain):
        for i, field in enumerate(dom.fields.values()):
            _fits(field, f"{ref}[{i}]", out)
    elif isinstance(dom, ArrayDomain):
        out.append(f"len({ref}) == {dom.size}")
        for i in range(dom.size):
            _fits(dom.elem, f"{ref}[{i}]", out)
    elif isinstance(dom, SeqDomain):
        out.append(f"0 <= {ref}[0] <= {dom.capacity}")
        for i in range(dom.capacity):
            slot = f"{ref}[1][{i}]"
            inner: list[str] = []
            _fits(dom.elem, slot, inner)
            live = " and ".join(inner) or "True"
            out.append(f"(({live}) if {ref}[0] > {i} else {slot} == _E{id(dom)})")


def fits_checker(schema: Schema) -> Callable[[State], bool]:
    """A fast test that a concrete state lies in every field's domain (generated once per
    schema, for the explicit engine, which tests every state it discovers); use
    :meth:`Schema.check` to learn which field does not."""
    conds: list[str] = []
    empties: dict[str, Any] = {}
    for i, dom in enumerate(schema.domains.values()):
        _fits(dom, f"s[{i}]", conds)
        _collect_empty(dom, empties)
    src = "def fits(s):\n    return " + (" and ".join(conds) or "True") + "\n"
    namespace: dict[str, Any] = dict(empties)
    exec(src, namespace)  # noqa: S102 - generated from the schema's own domains only
    fits: Callable[[State], bool] = namespace["fits"]
    return fits


def _collect_empty(dom: Domain, out: dict[str, Any]) -> None:
    if isinstance(dom, SeqDomain):
        out[f"_E{id(dom)}"] = dom.empty_slot
        _collect_empty(dom.elem, out)
    elif isinstance(dom, ArrayDomain):
        _collect_empty(dom.elem, out)


def make_record(name: str, fields: Sequence[str]) -> type[tuple[Any, ...]]:
    """A NamedTuple class for record domains (kept for rule sets built from data)."""
    return NamedTuple(name, [(f, Any) for f in fields])  # type: ignore[return-value]


DomainFactory = Callable[..., Domain]
