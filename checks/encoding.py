"""Compact state codes for the explicit engine, derived from the schema's finite domains.

Every scalar leaf of a state (``schema.leaves()``, then the monitors of a product) has a finite
range ``lo..hi``. A state is stored as its *code*: the leaves in mixed radix (leaf ``k`` is a
digit of radix ``hi - lo + 1``), cut into as few 64-bit words as the radices allow, each word
holding whole digits. Two states are equal exactly when their codes are, so the engine interns
codes instead of state tuples: a few machine words a state instead of a tree of Python objects.

The work is split between generated straight-line Python and numpy:

* :attr:`Codec.codes` holds, for each group of neighbouring fields, a dictionary from the
  group's values (as they are met) to their weighted digits, filled and range-checked once per
  distinct value; the generated :attr:`Codec.encode` and the engine's inner loop
  :attr:`Codec.expand_batch` encode a state with one look-up a group (tuples hash at C speed),
  so no work is done per leaf;
* :meth:`Codec.decode` (one code) and :meth:`Codec.decode_many` (a block of codes, vectorised
  with numpy) give the node back, with the schema's value types (``bool`` for booleans, the
  enum's members, ``int``), for traces, reports and every other reader of a state.

:class:`CodeTable` is the set of codes seen so far: codes by id (the BFS order) in one numpy
array, and an open-addressing hash index of ids over them. Both grow by doubling; a state costs
its code's words plus a few bytes of index.
"""

from __future__ import annotations

import gc
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray
from turnproof.model.schema import (
    ArrayDomain,
    BoolDomain,
    Domain,
    EnumDomain,
    IntRange,
    Leaf,
    RecordDomain,
    Schema,
    Seq,
    SeqDomain,
    _collect_empty,
    _fits,
)

WORD = 2**64

#: A lone scalar field up to this bound is encoded by indexing a tuple (``Codec._group_codes``).
SCALAR_TABLE = 1 << 16

#: Neighbouring fields are encoded together, by one look-up of the tuple of their values,
#: while the group has at most this many values (so that its table stays small).
GROUP_VALUES = 1 << 12

#: Probing goes on one code at a time once this few are left (long probe sequences are rare,
#: and a vectorised round costs the same for one code as for thousands).
TAIL = 64

U64 = NDArray[np.uint64]
I64 = NDArray[np.int64]


class NotEncodable(Exception):
    """A domain the codec cannot number (an open bound, an unknown kind of domain)."""


@dataclass
class _Gen:
    """Collects the leaves of a node, and the constants that rebuilding it uses."""

    consts: dict[str, Any] = field(default_factory=dict)
    leaves: list[Leaf] = field(default_factory=list)

    def const(self, v: Any) -> str:
        name = f"_c{len(self.consts)}"
        self.consts[name] = v
        return name

    def leaf(self, dom: Leaf) -> str:
        """Register one leaf; the expression for its value from the argument ``v<k>``."""
        if not isinstance(dom.lo, int) or not isinstance(dom.hi, int):
            raise NotEncodable(f"leaf domain {dom!r} has no numeric range")
        k = len(self.leaves)
        self.leaves.append(dom)
        if isinstance(dom, BoolDomain):
            return f"{self.const((False, True))}[v{k}]"
        if isinstance(dom, EnumDomain):
            return f"{self.const(tuple(dom.enum(i) for i in dom.values()))}[v{k}]"
        return f"v{k}"


def _gen(g: _Gen, dom: Domain) -> str:
    """Register the leaves of domain ``dom`` (in ``Domain.flatten`` order); the expression that
    rebuilds its value from them, with the schema's value types."""
    if isinstance(dom, Leaf):
        return g.leaf(dom)
    if isinstance(dom, RecordDomain):
        parts = [_gen(g, d) for d in dom.fields.values()]
        return f"_new({g.const(dom.cls)}, ({', '.join(parts)},))"
    if isinstance(dom, ArrayDomain):
        return f"({', '.join(_gen(g, dom.elem) for _ in range(dom.size))},)"
    if isinstance(dom, SeqDomain):
        n = g.leaf(IntRange(0, dom.capacity))
        items = ", ".join(_gen(g, dom.elem) for _ in range(dom.capacity))
        return f"_new(_Seq, ({n}, ({items},)))"
    raise NotEncodable(f"no code for domain {dom!r}")


class OutOfDomain(Exception):
    """A field value outside its domain (raised while encoding a successor; a scalar's raises
    ``TypeError`` or ``IndexError`` instead)."""


class _FieldCodes(dict[Any, int]):
    """Values of a group of fields (a tuple of values, or one field's value), as they are met,
    to their weighted digits in the group's word: one dictionary look-up encodes and
    range-checks the group; each distinct value is checked and numbered once."""

    def __init__(self, codec: Codec, parts: Sequence[tuple[Domain, int, int]], one: bool) -> None:
        super().__init__()
        self.codec, self.parts, self.one = codec, tuple(parts), one

    def __missing__(self, key: Any) -> int:
        c = self.codec
        code = 0
        for (dom, first, last), value in zip(self.parts, (key,) if self.one else key):
            if not value_fits(dom, value):
                raise OutOfDomain(value)
            for k, v in zip(range(first, last), dom.flatten(value)):
                code += (int(v) - c.lo_of[k]) * c.weight[k]
        self[key] = code
        return code


def value_fits(dom: Domain, value: Any) -> bool:
    """A concrete value lies in ``dom`` (the test ``fits_checker`` makes, on one value)."""
    conds: list[str] = []
    empties: dict[str, Any] = {}
    _fits(dom, "v", conds)
    _collect_empty(dom, empties)
    try:
        return bool(eval(" and ".join(conds) or "True", {**empties, "v": value}))  # noqa: S307
    except (TypeError, IndexError, AttributeError, ValueError):
        return False


class Codec:
    """The code of the nodes of one exploration: the states of ``schema``, paired with the
    values of ``monitors`` (``monitor_cls`` instances) when there are any.

    Words break between fields (a field's digits stay in one word), so that a field's part of
    its word can be looked up by the field's value (:class:`_FieldCodes`): encoding a state
    costs one dictionary look-up a field, at C speed for tuples, and no work per leaf."""

    def __init__(
        self,
        schema: Schema,
        monitors: Sequence[Any] = (),
        monitor_cls: type[tuple[Any, ...]] | None = None,
    ) -> None:
        g = _Gen()
        g.consts.update({"_new": tuple.__new__, "_Seq": Seq, "_S": schema.state_cls})
        fields: list[tuple[Domain, int, int]] = []
        parts = []
        for d in schema.domains.values():
            first = len(g.leaves)
            parts.append(_gen(g, d))
            fields.append((d, first, len(g.leaves)))
        node = f"_new(_S, ({', '.join(parts)},))"
        self.monitors = tuple(monitors)
        if monitors:
            mparts = []
            for mon in monitors:
                first = len(g.leaves)
                mparts.append(g.leaf(mon.domain))
                fields.append((mon.domain, first, len(g.leaves)))
            node = f"({node}, _new({g.const(monitor_cls)}, ({', '.join(mparts)},)))"
        args = ", ".join(f"v{k}" for k in range(len(g.leaves)))
        self.build_source = f"def build({args}):\n    return {node}\n"
        self._node_source = node
        namespace = dict(g.consts)
        exec(compile(self.build_source, "<turnproof state codec>", "exec"), namespace)  # noqa: S102
        self.build = namespace["build"]
        self.leaves: tuple[Leaf, ...] = tuple(g.leaves)
        self.width = len(g.leaves)
        self.lo_of = [int(d.lo) for d in g.leaves]
        self.lo = np.array(self.lo_of, dtype=np.int64)
        self.radix = tuple(int(d.hi) - int(d.lo) + 1 for d in g.leaves)
        # Whole fields per word, in field order: each leaf's weight within its word.
        self.word_of: list[int] = []
        self.weight: list[int] = []
        field_word: list[int] = []
        place, word = 1, 0
        for _, first, last in fields:
            size = 1
            for k in range(first, last):
                size *= self.radix[k]
            if size > WORD:
                raise NotEncodable(f"a field of {size.bit_length()} bits")
            if place * size > WORD:
                word, place = word + 1, 1
            field_word.append(word)
            for k in range(first, last):
                self.word_of.append(word)
                self.weight.append(place)
                place *= self.radix[k]
        self.words = word + 1
        # Groups of neighbouring fields of one word, each with at most GROUP_VALUES values.
        self.groups: list[list[int]] = []
        group_size = 0
        n_state = len(schema.domains)
        for f, (_, first, last) in enumerate(fields):
            size = 1
            for k in range(first, last):
                size *= self.radix[k]
            last_group = self.groups[-1] if self.groups else None
            if (
                last_group is not None
                and field_word[last_group[-1]] == field_word[f]
                and (last_group[-1] < n_state) == (f < n_state)
                and group_size * size <= GROUP_VALUES
            ):
                last_group.append(f)
                group_size *= size
            else:
                self.groups.append([f])
                group_size = size
        self.codes = [self._group_codes([fields[f] for f in g]) for g in self.groups]
        self._field_leaves = [last - first for _, first, last in fields]
        self._n_state = n_state
        self._state_cls = schema.state_cls
        self._monitor_cls = monitor_cls
        self._fast: Any = False  # the group decoder, built on first use
        self._group_place: list[tuple[int, int, int]] = []
        self._group_word = [field_word[g[0]] for g in self.groups]
        self.source = self._generate(n_state, len(fields))
        # one code to its node, straight-line: each leaf's digit from its word, then the node
        digits = [
            f"    v{k} = w{w} // {wt} % {r} + {lo}"
            for k, (w, wt, r, lo) in enumerate(
                zip(self.word_of, self.weight, self.radix, self.lo_of)
            )
        ]
        words = ", ".join(f"w{w}" for w in range(self.words))
        source = (
            f"def decode({words}):\n" + "\n".join(digits) + f"\n    return {self._node_source}\n"
        )
        namespace = dict(g.consts)
        exec(compile(source, "<turnproof state decoder>", "exec"), namespace)  # noqa: S102
        self._decode = namespace["decode"]

    def _group_codes(self, parts: list[tuple[Domain, int, int]]) -> Any:
        """What encodes a group of fields. A lone scalar: a tuple indexed by the value
        (indexing takes ``bool`` and enum members at C speed, where a dictionary would compare
        them with its ``int`` keys the slow way), with ``None`` where a value lies outside the
        domain, and where a negative index lands. Else a :class:`_FieldCodes`."""
        if len(parts) == 1:
            dom, first, last = parts[0]
            if isinstance(dom, Leaf) and 0 <= dom.lo and dom.hi < SCALAR_TABLE:
                w = self.weight[first]
                valid = [(v - dom.lo) * w if v >= dom.lo else None for v in range(dom.hi + 1)]
                return tuple(valid + [None] * (dom.hi + 1))
        return _FieldCodes(self, parts, len(parts) == 1)

    def _generate(self, n_state: int, n_fields: int) -> str:
        """``encode(node)`` (the words of one node) and ``expand_batch`` (the engine's inner
        loop over a batch of nodes, with the encoding inlined), as straight-line source. A
        group of fields is read as one slice of the state (a tuple), a lone field by index."""
        words: list[list[str]] = [[] for _ in range(self.words)]
        for j, (group, w) in enumerate(zip(self.groups, self._group_word)):
            var, lo = ("t", 0) if group[0] < n_state else ("mv", n_state)
            a, z = group[0] - lo, group[-1] - lo + 1
            words[w].append(f"_m{j}[{var}[{a}:{z}]]" if z - a > 1 else f"_m{j}[{var}[{a}]]")
        sums = [" + ".join(w) or "0" for w in words]
        n_mon = n_fields - n_state
        lines = ["def encode(node):", "    t, mv = node" if n_mon else "    t = node"]
        # ``0 +``: a lone scalar outside its domain gives None, which must raise here too
        lines.append(f"    return ({', '.join('0 + ' + w for w in sums)},)")
        # the batch: successors of each node, their codes, actions, and the cuts met; and the
        # same loop for a worker process (``checks/parallel.py``), which hands back the codes
        # only (no list of successor states: a node's successors are counted by its actions)
        lines += _batch_loop("expand_batch", sums, n_mon, keep_states=True)
        lines += _batch_loop("expand_codes", sums, n_mon, keep_states=False)
        source = "\n".join(lines) + "\n"
        namespace: dict[str, Any] = {f"_m{j}": m for j, m in enumerate(self.codes)}
        exec(compile(source, "<turnproof state encoder>", "exec"), namespace)  # noqa: S102
        self.encode = namespace["encode"]
        self.expand_batch = namespace["expand_batch"]
        self.expand_codes = namespace["expand_codes"]
        return source

    @property
    def same_layout_key(self) -> tuple[Any, ...]:
        return (self.radix, tuple(self.lo_of), tuple(self.word_of))

    def digits(self, codes: U64) -> I64:
        """The leaf values of codes (an ``(m, words)`` array)."""
        out = np.empty((len(codes), self.width), dtype=np.int64)
        for k in range(self.width):
            w = self.word_of[k]
            out[:, k] = (
                codes[:, w] // np.uint64(self.weight[k]) % np.uint64(self.radix[k])
            ).astype(np.int64)
        out += self.lo
        return out

    def decode(self, code: Sequence[int]) -> Any:
        """The node of one code (its words as Python ints)."""
        return self._decode(*code)

    def decode_many(self, codes: U64) -> list[Any]:
        """The nodes of a block of codes. The cyclic garbage collector is paused meanwhile:
        nodes are tuples of numbers, which form no cycles, yet building thousands of them
        would start collections that walk every object the process holds.

        Each group of fields is read off its word as one number, which indexes a table of the
        group's values (:meth:`_group_tables`), so a node costs a few look-ups; a codec with
        a group too large for a table decodes leaf by leaf."""
        paused = gc.isenabled()
        gc.disable()
        try:
            fast = self._by_groups()
            if fast is not None:
                return list(fast(*self._group_digits(codes)))
            build = self.build
            return [build(*row) for row in self.digits(codes).tolist()]
        finally:
            if paused:
                gc.enable()

    def _group_digits(self, codes: U64) -> list[list[int]]:
        """Each group's number in each code (``(m, words)``), as lists."""
        out = []
        for w, place, size in self._group_place:
            column = codes[:, w]
            if place > 1:
                column = column // np.uint64(place)
            if size < WORD:
                column = column % np.uint64(size)
            out.append(column.tolist())
        return out

    def _by_groups(self) -> Any:
        """The table-driven decoder of :meth:`decode_many` (built on first use), or ``None``
        when a group has more than :data:`SCALAR_TABLE` values."""
        if self._fast is False:
            self._fast = self._group_tables()
        return self._fast

    def _group_tables(self) -> Any:
        first_leaf = [0]
        for g in self.groups:
            first_leaf.append(first_leaf[-1] + sum(self._field_leaves[f] for f in g))
        sizes = []
        for j in range(len(self.groups)):
            size = 1
            for k in range(first_leaf[j], first_leaf[j + 1]):
                size *= self.radix[k]
            if size > SCALAR_TABLE:
                return None
            sizes.append(size)
        self._group_place = [
            (self.word_of[first_leaf[j]], self.weight[first_leaf[j]], sizes[j])
            for j in range(len(self.groups))
        ]
        n_state = self._n_state
        base = list(self.lo_of)
        namespace: dict[str, Any] = {"_new": tuple.__new__, "_S": self._state_cls}
        state_parts: list[str] = []
        mon_parts: list[str] = []
        for j, group in enumerate(self.groups):
            lo_leaf, hi_leaf = first_leaf[j], first_leaf[j + 1]
            values = []
            for v in range(sizes[j]):
                row = list(base)
                rest = v
                for k in range(lo_leaf, hi_leaf):
                    row[k] = rest % self.radix[k] + self.lo_of[k]
                    rest //= self.radix[k]
                node = self.build(*row)
                state, mons = (node[0], node[1]) if self.monitors else (node, ())
                got = [state[f] if f < n_state else mons[f - n_state] for f in group]
                values.append(got[0] if len(group) == 1 else tuple(got))
            namespace[f"_g{j}"] = tuple(values)
            part = f"_g{j}[d{j}]" if len(group) == 1 else f"*_g{j}[d{j}]"
            (state_parts if group[0] < n_state else mon_parts).append(part)
        node = f"_new(_S, ({', '.join(state_parts)},))"
        if self.monitors:
            namespace["_M"] = self._monitor_cls
            node = f"({node}, _new(_M, ({', '.join(mon_parts)},)))"
        ds = ", ".join(f"d{j}" for j in range(len(self.groups)))
        source = (
            f"def decode_groups({ds}):\n"
            f"    return [{node} for {ds}{',' if len(self.groups) == 1 else ''} in zip({ds})]\n"
        )
        exec(compile(source, "<turnproof state group decoder>", "exec"), namespace)  # noqa: S102
        return namespace["decode_groups"]


def _batch_loop(name: str, sums: list[str], n_mon: int, *, keep_states: bool) -> list[str]:
    """The source of the engine's inner loop over a batch of nodes, with the encoding of each
    successor inlined (``sums``: each word's expression). ``keep_states``: the successors are
    also appended to ``succ``; without, ``succ`` is unused and a node's successors are
    counted by the actions appended (both loops take the same arguments)."""
    ws = ", ".join(f"_w{k}" for k in range(len(sums)))
    found = "succ" if keep_states else "acts"
    lines = [
        "",
        f"def {name}(batch, expanders, fi, i0, succ, acts, counts, cut_log, monitor, {ws}):",
        "    add_succ, add_act, add_count, add_cut = succ.append, acts.append, counts.append, "
        "cut_log.append"
        if keep_states
        else "    add_act, add_count, add_cut = acts.append, counts.append, cut_log.append",
        "    for q, node in enumerate(batch):",
        "        s = node[0]" if n_mon else "        s = node",
        f"        before = len({found})",
        "        for ai, t in expanders[s[fi]](s):",
        "            if ai < 0:",
        f"                add_cut((i0 + q, len({found}), t))",
        "                continue",
    ]
    if n_mon:
        lines.append("            mv = monitor(s, t, ai, node[1])")
    lines += [f"            _w{k}({total})" for k, total in enumerate(sums)]
    lines.append("            add_act(ai)")
    if keep_states:
        lines.append("            add_succ((t, mv))" if n_mon else "            add_succ(t)")
    lines.append(f"        add_count(len({found}) - before)")
    return lines


class CodeTable:
    """The codes seen so far, by id, with a hash index: ids are given in the order codes are
    added, so the engine's ids stay its BFS order."""

    def __init__(self, words: int, capacity: int = 1024) -> None:
        self.words = words
        self.n = 0
        self.codes: U64 = np.zeros((capacity, words), dtype=np.uint64)
        self._slots: NDArray[np.int32] = np.full(2 * capacity, -1, dtype=np.int32)
        self._shift = np.uint64(64 - (2 * capacity).bit_length() + 1)

    def __len__(self) -> int:
        return self.n

    def view(self) -> U64:
        return self.codes[: self.n]

    def _hash(self, keys: U64) -> NDArray[np.int64]:
        h = keys[:, 0] * np.uint64(0x9E3779B97F4A7C15)
        for k in range(1, self.words):
            h ^= h >> np.uint64(31)
            h = (h + keys[:, k]) * np.uint64(0xBF58476D1CE4E5B9)
        h ^= h >> np.uint64(29)
        h *= np.uint64(0x94D049BB133111EB)
        return (h >> self._shift).astype(np.int64)

    def lookup(self, keys: U64) -> NDArray[np.int64]:
        """The id of each code, ``-1`` for those not in the table."""
        out = np.full(len(keys), -1, dtype=np.int64)
        slot = self._hash(keys)
        mask = len(self._slots) - 1
        todo = np.arange(len(keys))
        while todo.size > TAIL:
            ids = self._slots[slot].astype(np.int64)
            full = ids >= 0
            hit = np.zeros(len(todo), dtype=bool)
            if full.any():
                hit[full] = (self.codes[ids[full]] == keys[todo[full]]).all(axis=1)
            out[todo[hit]] = ids[hit]
            more = full & ~hit
            todo, slot = todo[more], (slot[more] + 1) & mask
        # the few with long probe sequences: one at a time
        slots, codes = self._slots, self.codes
        for r, h in zip(todo.tolist(), slot.tolist()):
            key = keys[r]
            while (j := int(slots[h])) >= 0:
                if (codes[j] == key).all():
                    out[r] = j
                    break
                h = (h + 1) & mask
        return out

    def add(self, keys: U64) -> None:
        """Add distinct codes that are not in the table yet, with the next ids in order."""
        m = len(keys)
        if self.n + m > len(self.codes):
            cap = len(self.codes)
            while self.n + m > cap:
                cap *= 2
            grown = np.zeros((cap, self.words), dtype=np.uint64)
            grown[: self.n] = self.codes[: self.n]
            self.codes = grown
        self.codes[self.n : self.n + m] = keys
        first = self.n
        self.n += m
        if 2 * self.n > len(self._slots):
            size = len(self._slots)
            while 2 * self.n > size:
                size *= 2
            self._slots = np.full(size, -1, dtype=np.int32)
            self._shift = np.uint64(64 - size.bit_length() + 1)
            self._place(np.arange(self.n, dtype=np.int64))
        else:
            self._place(np.arange(first, self.n, dtype=np.int64))

    def _place(self, ids: NDArray[np.int64]) -> None:
        slot = self._hash(self.codes[ids])
        mask = len(self._slots) - 1
        while ids.size > TAIL:
            free = self._slots[slot] < 0
            cand, where = ids[free], slot[free]
            self._slots[where] = cand  # of several ids aimed at one free slot, one stays
            won = np.zeros(len(ids), dtype=bool)
            won[free] = self._slots[where] == cand
            rest = ~won
            ids, slot = ids[rest], (slot[rest] + 1) & mask
        slots = self._slots
        for j, h in zip(ids.tolist(), slot.tolist()):
            while slots[h] >= 0:
                h = (h + 1) & mask
            slots[h] = j

    def nbytes(self) -> int:
        return int(self.codes.nbytes + self._slots.nbytes)
