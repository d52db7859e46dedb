"""The explicit engine: breadth-first exploration of concrete states, and the checks run on it.

Terminal states (the rule set's ``terminal`` predicate: the game, as bounded, is over) are
absorbing: they are never expanded.

Exploration interns every state as an integer id (in BFS order, so ids grow with depth) and
keeps the edges in three compact arrays: source id, target id, rule-instance index. Each state
also remembers the edge that first reached it, which gives shortest traces for free. A networkx
graph is built from these arrays only when an analysis needs one (strongly connected components
for termination, export), never grown edge by edge during the search.

Properties with monitors (history variables, see ``model/properties.py``) are explored on the
product of the model and their monitors; all other properties share one exploration.

Verdicts here are ``EXHAUSTIVE`` (every state within the bounds checked), ``VIOLATED`` (with the
shortest trace), ``WITNESSED`` or ``UNKNOWN`` (a state or time limit stopped the search before an
answer). This engine never says ``PROVED``.
"""

from __future__ import annotations

import contextlib
import gc
import time
from array import array
from collections import Counter, deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from functools import partial
from typing import Any
from weakref import WeakKeyDictionary

import networkx as nx
import numpy as np
from turnproof.checks.compiled import Compiled, EveryKey, Halted, compile_model, fused_search
from turnproof.checks.encoding import Codec, CodeTable, NotEncodable, OutOfDomain
from turnproof.checks.parallel import Unit, WorkerPool
from turnproof.checks.results import (
    Finding,
    LoopExit,
    PropertyResult,
    Trace,
    TraceStep,
    Verdict,
)
from turnproof.checks.traces import step_record
from turnproof.model.errors import ModelError, SchemaError
from turnproof.model.ops import BoundReached, ConcreteOps, Disabled
from turnproof.model.properties import Property, monitor_class
from turnproof.model.rules import Model
from turnproof.model.schema import Leaf, State, fits_checker

Progress = Callable[[int, int, int], None]
"""``progress(expanded, discovered, transitions)``, called every few thousand states."""

PROGRESS_EVERY = 4096


#: The most states an exploration keeps as tuples before it starts again compactly (see
#: :func:`explore`): about 400 MB of tuples for the default Magic model's width.
AUTO_COMPACT_STATES = 1_000_000

#: With more than one worker (see :func:`explore`), the states found before worker processes
#: take over the expanding: a smaller search starts no process at all. Until then one core
#: works alone: on the benchmark's ``L`` with two workers, 65,536 took 16.3 and 15.7 s, 8,192
#: 15.3 and 15.4 s (paired runs).
PARALLEL_FROM = 8_192

#: The most nodes a worker expands at a time: a quarter of a batch, so that the nodes found
#: in one batch are sent on while the workers still expand the batch before.
UNIT = 1024


@dataclass
class Limits:
    """When to stop exploring. ``None`` means no limit."""

    max_states: int | None = None
    max_seconds: float | None = None


@dataclass
class Exploration:
    """The reachable state graph of a model (or of its product with some monitors)."""

    model: Model
    monitors: tuple[Any, ...]
    #: State, or (State, monitor tuple) for a product; see EncodedNodes and TypedNodes.
    nodes: Sequence[Any]
    src: array
    dst: array
    act: array
    parent: array  # edge id that first reached each node, -1 for initial nodes
    n_initial: int
    expanded: int  # nodes 0..expanded-1 had all their successors computed
    complete: bool
    stop_reason: str
    seconds: float
    bound_cuts: Counter[str] = field(default_factory=Counter)
    cut_nodes: set[int] = field(default_factory=set)
    #: How the rules ran: ``compiled`` or ``interpreted`` (see :func:`explore`).
    path: str = "interpreted"
    #: Rule instances that stayed interpreted on the compiled path: instance index -> why.
    fallbacks: dict[int, str] = field(default_factory=dict)
    #: With a ``stop`` predicate (see :func:`explore`): the first node that satisfied it.
    hit: int | None = None
    #: Worker processes that expanded nodes (0: all in this process; see :func:`explore`).
    worker_processes: int = 0
    #: Why the search ran in this process though more workers were asked for, or ``""``.
    sequential_because: str = ""
    #: The worker processes lost during the search (killed, say), each in a sentence; the
    #: parent expanded their units itself, so the results are those of a search without loss.
    workers_lost: tuple[str, ...] = ()
    _out: list[list[int]] | None = None

    @property
    def states(self) -> int:
        return len(self.nodes)

    @property
    def transitions(self) -> int:
        return len(self.src)

    def state(self, i: int) -> State:
        node = self.nodes[i]
        return node[0] if self.monitors else node

    def monitor_values(self, i: int) -> Any:
        return self.nodes[i][1] if self.monitors else None

    def iter_nodes(self, start: int = 0) -> Iterator[Any]:
        """The nodes from id ``start`` on, in id order (decoded a block at a time)."""
        nodes = self.nodes
        if isinstance(nodes, EncodedNodes | TypedNodes):
            yield from nodes.iter_from(start)
        else:
            yield from nodes[start:]

    def iter_states(self) -> Iterator[tuple[State, Any]]:
        """Each node's state and monitor values, in id order."""
        if self.monitors:
            yield from self.iter_nodes()
        else:
            for s in self.iter_nodes():
                yield s, None

    def out_edges(self, i: int) -> list[int]:
        """Edge ids leaving node ``i``. Edges are appended while expanding nodes in id order,
        so each node's edges are contiguous; an index is built once on first use."""
        if self._out is None:
            out: list[list[int]] = [[] for _ in range(len(self.nodes))]
            for e, s in enumerate(self.src):
                out[s].append(e)
            self._out = out
        return self._out[i]

    def path_to(self, i: int) -> list[int]:
        """Edge ids of a shortest path from an initial node to node ``i``."""
        edges: list[int] = []
        while self.parent[i] >= 0:
            e = self.parent[i]
            edges.append(e)
            i = self.src[e]
        edges.reverse()
        return edges

    def depth(self, i: int) -> int:
        return len(self.path_to(i))

    def first_cuts(self) -> dict[str, int]:
        """Each bound that cut a transition, with the depth of the shallowest expanded state
        where it does. Ids grow with depth, so the first cut node (by id) where a bound cuts is
        a shallowest one: the cut nodes are expanded again, by the successor functions the
        search used, in id order until every bound that cut is placed. Monitors never stop a
        transition, so a product's answer is its model's."""
        field_index, expanders, _, _ = _expanders(self.model, self.path == "compiled")
        todo = set(self.bound_cuts)
        found: dict[str, int] = {}
        for i in sorted(self.cut_nodes):
            if not todo:
                break
            s = self.state(i)
            for ai, bound in expanders[s[field_index]](s):
                if ai < 0 and bound in todo:
                    todo.discard(bound)
                    found[bound] = self.depth(i)
        return dict(sorted(found.items()))

    def to_networkx(self, nodes: Iterable[int] | None = None) -> nx.MultiDiGraph:
        """The state graph (or the subgraph induced by ``nodes``), edges keyed by edge id and
        labelled with the rule instance's index."""
        g = nx.MultiDiGraph()
        keep = None if nodes is None else set(nodes)
        g.add_nodes_from(range(len(self.nodes)) if keep is None else sorted(keep))
        g.add_edges_from(
            (s, d, e, {"action": a})
            for e, (s, d, a) in enumerate(zip(self.src, self.dst, self.act))
            if keep is None or (s in keep and d in keep)
        )
        return g


Act = tuple[int, Any, Callable[..., Any]]


def dispatch_table(model: Model) -> tuple[int, dict[Any, list[Act]]]:
    """The rule instances to try in a state, by the value of one field.

    Rules that declare ``when`` on the most used such field are listed only under the values
    they allow (their guard then holds by construction); every other rule instance is listed
    under every value, and keeps its whole guard. Parameters are bound once
    (``functools.partial`` is called at C speed), so the inner loop calls each positionally.
    """
    counts = Counter(a.rule.when[0] for a in model.actions if a.rule.when is not None)
    key = counts.most_common(1)[0][0] if counts else model.schema.fields[0]
    index = model.schema.fields.index(key)
    domain = model.schema.domains[key]
    values = list(domain.values()) if isinstance(domain, Leaf) else [None]
    table: dict[Any, list[Act]] = {v: [] for v in values}
    for a in model.actions:
        when = a.rule.when
        if when is not None and when[0] == key:
            fn = partial(a.rule.fn, **dict(a.params)) if a.params else a.rule.fn
            for allowed in when[1]:
                table[allowed].append((a.index, a.rule, fn))
            continue
        fn = (
            a.apply
            if when is not None
            else (partial(a.rule.fn, **dict(a.params)) if a.params else a.rule.fn)
        )
        for v in values:
            table[v].append((a.index, a.rule, fn))
    if not isinstance(domain, Leaf):  # never dispatch on a structured field
        return 0, _AnyKey(table[None])
    return index, table


class _AnyKey(dict[Any, list[Act]]):
    """A table that gives every rule instance for any key."""

    def __init__(self, acts: list[Act]) -> None:
        super().__init__()
        self.acts = acts

    def __missing__(self, key: Any) -> list[Act]:
        return self.acts


def interpreted_expand(model: Model, table: dict[Any, list[Act]]) -> dict[Any, Any]:
    """The interpreted path, in the compiled path's form (see :mod:`turnproof.checks.compiled`):
    for each value of the dispatch field, a function from a state to its ``(instance index,
    successor)`` pairs, ``(-1, bound)`` for a cut, and none for a terminal state. Every rule
    instance runs on :class:`ConcreteOps`: this is the oracle the compiled path is tested
    against."""
    x = ConcreteOps()
    b = model.bounds
    terminal = model.ruleset.terminal

    def make(acts: list[Act]) -> Callable[[State], list[tuple[int, Any]]]:
        def expand(s: State) -> list[tuple[int, Any]]:
            out: list[tuple[int, Any]] = []
            if terminal(s, x, b):
                return out  # the game is over here: terminal states are absorbing
            for ai, _, fn in acts:
                try:
                    out.append((ai, fn(s, x, b)))
                except Disabled:
                    continue
                except BoundReached as exc:
                    out.append((-1, exc.bound))
            return out

        return expand

    if isinstance(table, _AnyKey):
        return EveryKey(make(table.acts))
    return {key: make(acts) for key, acts in table.items()}


_COMPILED: WeakKeyDictionary[Model, Compiled] = WeakKeyDictionary()


def compiled_for(model: Model) -> Compiled:
    """The model's rule instances compiled (once per model; see
    :mod:`turnproof.checks.compiled`)."""
    done = _COMPILED.get(model)
    if done is None:
        field_index, table = dispatch_table(model)
        done = compile_model(model, table, field_index)
        _COMPILED[model] = done
    return done


def explore(
    model: Model,
    monitors: Sequence[Any] = (),
    limits: Limits | None = None,
    progress: Progress | None = None,
    compiled: bool = True,
    compact: bool | None = None,
    stop: Callable[[Any], bool] | None = None,
    workers: int = 1,
    parallel_from: int = PARALLEL_FROM,
) -> Exploration:
    """Breadth-first search of every state reachable from the model's initial states.

    ``stop(node)`` (a node is a state, or a ``(state, monitor values)`` pair with monitors)
    ends the search at the first node discovered that satisfies it: ``Exploration.hit`` is
    that node, whose path is a shortest one, and the exploration is incomplete.

    ``compiled`` runs the rule instances compiled to straight-line Python (those that the
    compiler cannot follow stay interpreted, each on its own; ``Exploration.fallbacks`` lists
    them); ``compiled=False`` interprets every rule on :class:`ConcreteOps`. Both give the same
    states, ids, edges and cuts.

    ``compact`` interns each state as its code (:mod:`turnproof.checks.encoding`: a few machine
    words derived from the schema's domains) instead of as its tuple, and keeps only the states
    still to expand as tuples; the nodes are decoded when read. ``compact=False`` keeps every
    state as a tuple in a dict: the same states, ids, edges and cuts, at several times the
    memory, but faster on wide states (1.5 times on the default Magic model), and read for free
    by the checks. ``compact=None`` (the default) explores the tuple way up to
    :data:`AUTO_COMPACT_STATES` states, and, when the model has more, starts again compactly
    (with what is left of the time limit): a large model pays that much again in time and
    keeps its memory per state low. A schema the codec cannot number (an open bound), and a
    search with ``stop`` (which ends early, and reads the nodes it stores), are explored the
    tuple way.

    ``workers`` above 1 lets that many worker processes expand the nodes of a compact search
    once it knows ``parallel_from`` states (:mod:`turnproof.checks.parallel`); this process
    still numbers every state, in the same order, so the states, ids, edges, parents, cuts,
    traces, limits and errors are those of ``workers=1``. With ``compact=None`` the tuple way
    then goes only up to ``parallel_from`` states before the compact search starts again. The
    tuple way stays in this process: ``Exploration.sequential_because`` says why, and
    ``Exploration.worker_processes`` how many workers took part.

    The cyclic garbage collector is paused meanwhile: states are tuples of numbers, which form
    no cycles, yet each collection would walk every state stored so far (a third of the time on
    the default Magic model)."""
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise ValueError(f"workers must be a whole number of at least 1, got {workers!r}")
    with collector_paused():
        ex = _explore_any(model, monitors, limits, progress, compiled, compact, stop, workers,
                          parallel_from)  # fmt: skip
        if workers == 1:
            ex.sequential_because = ""  # nobody asked for more processes
        elif not ex.worker_processes and not ex.sequential_because:
            ex.sequential_because = (
                f"fewer than {parallel_from:,} states: too few to share out"
                if ex.complete or ex.states < parallel_from
                else "it stopped before workers could take over"
            )
        return ex


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """Python's cyclic garbage collector paused (if it was running) for the block: an
    exploration, and the searches over its states and edges, allocate millions of tuples that
    form no cycles, and each collection would walk every object alive (a fifth of the default
    Magic check's explicit time).

    When it resumes, what the block left alive goes to the oldest generation unexamined
    (``gc.freeze()`` then ``gc.unfreeze()``, two list splices): else the first young
    collection after the block walks every state it stored, and the next one walks them
    again as it promotes them (0.5 s each on the benchmark's ``mid``). Cycles the block left
    are still collected, by the next full collection."""
    paused = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if paused:
            gc.freeze()
            gc.unfreeze()
            gc.enable()


def _explore_any(
    model: Model,
    monitors: Sequence[Any],
    limits: Limits | None,
    progress: Progress | None,
    compiled: bool,
    compact: bool | None,
    stop: Callable[[Any], bool] | None,
    workers: int,
    parallel_from: int,
) -> Exploration:
    """:func:`explore`, the garbage collector paused: which path, and in how many processes."""
    if stop is not None or compact is False:
        ex = _explore(model, monitors, limits, progress, compiled, stop)
        ex.sequential_because = (
            "a search with stop runs in one process"
            if stop is not None
            else "the tuple way (compact=False) runs in one process"
        )
        return ex
    limits = limits or Limits()
    tuples_up_to = AUTO_COMPACT_STATES if workers == 1 else min(parallel_from, AUTO_COMPACT_STATES)
    if compact is None:
        cap = limits.max_states
        if cap is not None and cap <= tuples_up_to:
            return _explore(model, monitors, limits, progress, compiled)
        first = _explore(
            model, monitors, replace(limits, max_states=tuples_up_to), progress, compiled
        )
        if first.complete or not first.stop_reason.startswith("state limit"):
            return first  # done, or stopped by the time limit
        spent = first.seconds
        del first
        if limits.max_seconds is not None:
            limits = replace(limits, max_seconds=max(limits.max_seconds - spent, 0.0))
    try:
        codec = codec_for(model, tuple(monitors))
    except NotEncodable as exc:
        ex = _explore(model, monitors, limits, progress, compiled)
        ex.sequential_because = (
            f"the schema has no compact code ({exc}), and the tuple way runs in one process"
        )
        return ex
    return _explore_codes(
        model, monitors, limits, progress, compiled, codec, workers, parallel_from
    )


def _expanders(
    model: Model, compiled: bool
) -> tuple[int, Any, dict[int, str], list[Callable[[State], bool]]]:
    """The dispatch field, the successor functions by its value, the rule instances left
    interpreted, and each instance's domain test (see :func:`explore`)."""
    if compiled:
        comp = compiled_for(model)
        return comp.field_index, comp.expand, dict(comp.fallbacks), comp.fits
    field_index, table = dispatch_table(model)
    fits = [fits_checker(model.schema)] * len(model.actions)
    return field_index, interpreted_expand(model, table), {}, fits


def _checkpoint(
    i: int,
    found: int,
    edges: int,
    progress: Progress | None,
    start: float,
    limits: Limits,
) -> str:
    """Every ``PROGRESS_EVERY`` nodes: report progress; why to stop (the time limit), or ``""``."""
    if progress is not None:
        progress(i, found, edges)
    if limits.max_seconds is not None and time.perf_counter() > start + limits.max_seconds:
        return f"time limit of {limits.max_seconds:g} s reached"
    return ""


def _monitor_updates(
    model: Model, mons: tuple[Any, ...], compiled: bool
) -> list[Callable[[State, State, Any], Any]] | None:
    """The monitors' updates compiled per rule instance (``checks/compiled_props.py``) on the
    compiled path; ``None`` on the interpreted one (and without monitors)."""
    if not mons or not compiled:
        return None
    from turnproof.checks.compiled_props import compile_monitor_updates

    updates, _ = compile_monitor_updates(model, mons, monitor_class(tuple(m.name for m in mons)))
    return updates


def _initial_nodes(model: Model, mons: tuple[Any, ...], x: Any) -> Iterator[Any]:
    """The initial nodes: each initial state (checked against the schema), paired with the
    monitors' initial values in a product."""
    b = model.bounds
    mcls = monitor_class(tuple(m.name for m in mons)) if mons else None
    for s in model.initial_states():
        model.schema.check(s, x)
        yield (s, mcls(*(m.init(s, x, b) for m in mons))) if mcls is not None else s


def _explore(
    model: Model,
    monitors: Sequence[Any],
    limits: Limits | None,
    progress: Progress | None,
    compiled: bool,
    stop: Callable[[Any], bool] | None = None,
    fused: bool = True,
) -> Exploration:
    """The tuple way of :func:`explore`. On the compiled path, without ``stop``, the loop runs
    fused with the successor functions (:func:`turnproof.checks.compiled.fused_search`);
    ``fused=False`` runs the loop below it instead, over the same functions: the same
    exploration, which tests compare."""
    limits = limits or Limits()
    x = ConcreteOps()
    b = model.bounds
    start = time.perf_counter()
    field_index, expanders, fallbacks, fits_of = _expanders(model, compiled)
    rules = [a.rule for a in model.actions]
    mons = tuple(monitors)
    mcls = None
    if mons:
        mcls = monitor_class(tuple(m.name for m in mons))
    updates = _monitor_updates(model, mons, compiled)

    nodes: list[Any] = []
    index: dict[Any, int] = {}
    src, dst, act, parent = array("i"), array("i"), array("i"), array("i")
    cuts: Counter[str] = Counter()
    cut_nodes: set[int] = set()

    for node in _initial_nodes(model, mons, x):
        if node not in index:
            index[node] = len(nodes)
            nodes.append(node)
            parent.append(-1)
    n_initial = len(nodes)
    hit = next((k for k, node in enumerate(nodes) if stop(node)), None) if stop else None

    max_states = limits.max_states
    state_cap: float = max_states if max_states is not None else float("inf")
    lookup, add_node, add_parent = index.get, nodes.append, parent.append
    add_src, add_dst, add_act = src.append, dst.append, act.append
    complete, reason = hit is None, "" if hit is None else "stopped at the state searched for"
    i = 0
    plain = False
    if compiled and stop is None and fused:
        comp = compiled_for(model)
        plain = comp.plain(bool(mons))
        run = fused_search(comp, bool(mons))(
            nodes, index, src, dst, act, parent, cuts, cut_nodes, state_cap, updates
        )
        while i < len(nodes):
            if i % PROGRESS_EVERY == 0:
                reason = _checkpoint(i, len(nodes), len(src), progress, start, limits)
                if reason:
                    complete = False
                    break
            try:
                i = run(i, i - i % PROGRESS_EVERY + PROGRESS_EVERY)
            except Halted as h:
                i = h.i  # not fully expanded
                if h.ai >= 0:
                    bad = comp.typed(h.t) if plain else h.t
                    raise out_of_domain(model, nodes, parent, src, act, i, h.ai, bad) from None
                complete, reason = False, f"state limit of {max_states} states reached"
                break
    while complete and i < len(nodes):
        if i % PROGRESS_EVERY == 0:
            reason = _checkpoint(i, len(nodes), len(src), progress, start, limits)
            if reason:
                complete = False
                break
        node = nodes[i]
        s = node[0] if mons else node
        for ai, t in expanders[s[field_index]](s):
            if ai < 0:
                cuts[t] += 1
                cut_nodes.add(i)
                continue
            if mons:
                m = node[1]
                if updates is not None:
                    t = (t, updates[ai](s, t, m))
                else:
                    r = rules[ai]
                    t = (t, mcls(*(mon.update(s, t, r, m, x, b) for mon in mons)))  # type: ignore[misc]
            j = lookup(t)
            if j is None:
                if not fits_of[ai](t[0] if mons else t):
                    raise out_of_domain(model, nodes, parent, src, act, i, ai, t[0] if mons else t)
                if len(nodes) >= state_cap:
                    complete = False
                    reason = f"state limit of {max_states} states reached"
                    break
                j = len(nodes)
                index[t] = j
                add_node(t)
                add_parent(len(src))
                if stop is not None and stop(t):
                    add_src(i)
                    add_dst(j)
                    add_act(ai)
                    hit, complete, reason = j, False, "stopped at the state searched for"
                    break
            add_src(i)
            add_dst(j)
            add_act(ai)
        if not complete:
            break  # node i was not fully expanded
        i += 1
    if progress is not None:
        progress(i, len(nodes), len(src))
    return Exploration(
        model=model,
        monitors=mons,
        nodes=TypedNodes(nodes, comp.typed) if plain else nodes,
        src=src,
        dst=dst,
        act=act,
        parent=parent,
        n_initial=n_initial,
        expanded=i,
        complete=complete and i >= len(nodes),
        stop_reason=reason,
        seconds=time.perf_counter() - start,
        bound_cuts=cuts,
        cut_nodes=cut_nodes,
        path="compiled" if compiled else "interpreted",
        fallbacks=fallbacks,
        hit=hit,
    )


_CODECS: WeakKeyDictionary[Model, dict[tuple[Any, ...], Codec]] = WeakKeyDictionary()


def codec_for(model: Model, monitors: tuple[Any, ...] = ()) -> Codec:
    """The code of the model's states (paired with these monitors' values), built once."""
    by_mons = _CODECS.setdefault(model, {})
    key = tuple(m.name for m in monitors)
    codec = by_mons.get(key)
    if codec is None:
        mcls = monitor_class(key) if monitors else None
        codec = Codec(model.schema, monitors, mcls)
        by_mons[key] = codec
    return codec


class TypedNodes(Sequence[Any]):
    """The nodes of a tuple search whose successors were made as plain tuples (see
    :func:`~turnproof.checks.compiled.fused_search`): read-only, given the schema's types when
    read. ``raw`` holds them as they were interned."""

    def __init__(self, raw: list[Any], typed: Callable[[Any], Any]) -> None:
        self.raw = raw
        self.typed = typed

    def __len__(self) -> int:
        return len(self.raw)

    def __getitem__(self, i: Any) -> Any:
        if isinstance(i, slice):
            return [self.typed(s) for s in self.raw[i]]
        return self.typed(self.raw[i])

    def iter_from(self, start: int = 0) -> Iterator[Any]:
        typed, raw = self.typed, self.raw
        for i in range(start, len(raw)):
            yield typed(raw[i])

    def __iter__(self) -> Iterator[Any]:
        return self.iter_from(0)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, TypedNodes):
            return self.raw == other.raw
        if isinstance(other, list):
            return self.raw == other
        if not isinstance(other, Sequence) or len(other) != len(self):
            return False
        return all(a == b for a, b in zip(self.raw, other))

    __hash__ = None  # type: ignore[assignment]


class EncodedNodes(Sequence[Any]):
    """The nodes of a compact exploration: read-only, decoded from their codes when read."""

    def __init__(self, codec: Codec, table: CodeTable) -> None:
        self.codec = codec
        self.table = table

    def __len__(self) -> int:
        return len(self.table)

    def __getitem__(self, i: Any) -> Any:
        codes = self.table.view()
        if isinstance(i, slice):
            return self.codec.decode_many(codes[i])
        return self.codec.decode(codes[i].tolist())

    def iter_from(self, start: int = 0, block: int = 4096) -> Iterator[Any]:
        codes = self.table.view()
        for lo in range(start, len(codes), block):
            yield from self.codec.decode_many(codes[lo : lo + block])

    def __iter__(self) -> Iterator[Any]:
        return self.iter_from(0)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, EncodedNodes) and (
            self.codec.same_layout_key == other.codec.same_layout_key
        ):
            return bool(np.array_equal(self.table.view(), other.table.view()))
        if not isinstance(other, Sequence) or len(other) != len(self):
            return False
        return all(a == b for a, b in zip(self, other))

    __hash__ = None  # type: ignore[assignment]

    def nbytes(self) -> int:
        return self.table.nbytes()


def _explore_codes(
    model: Model,
    monitors: Sequence[Any],
    limits: Limits | None,
    progress: Progress | None,
    compiled: bool,
    codec: Codec,
    workers: int = 1,
    parallel_from: int = PARALLEL_FROM,
) -> Exploration:
    """:func:`_explore` on codes: nodes are expanded a batch at a time (at most
    ``PROGRESS_EVERY`` of them, never across a multiple of it, so progress and the time limit
    are seen where the tuple path sees them); each successor is encoded (and so checked
    against the domains) as it comes, and the batch's codes are looked up all at once. Only the
    nodes still to expand are kept as tuples. New states get ids
    in the order of their first appearance among the batch's successors, which is the order
    in which the tuple path discovers them: the same ids, edges, parents and cuts.

    With ``workers`` above 1, once ``parallel_from`` states are known (at a batch boundary),
    worker processes expand the nodes (:mod:`turnproof.checks.parallel`) and this process
    commits their answers batch by batch, the batches cut as here: the same ids, edges,
    parents, cuts, progress points, limits and errors."""
    limits = limits or Limits()
    x = ConcreteOps()
    b = model.bounds
    start = time.perf_counter()
    field_index, expanders, fallbacks, _ = _expanders(model, compiled)
    rules = [a.rule for a in model.actions]
    mons = tuple(monitors)
    mcls = monitor_class(tuple(m.name for m in mons)) if mons else None
    table = CodeTable(codec.words)

    updates = _monitor_updates(model, mons, compiled)

    def interpreted(s: State, t: State, ai: int, m: Any) -> Any:
        return mcls(*(mon.update(s, t, rules[ai], m, x, b) for mon in mons))  # type: ignore[misc]

    def from_compiled(s: State, t: State, ai: int, m: Any) -> Any:
        return updates[ai](s, t, m)  # type: ignore[index]

    # Chosen once, not tested on each call: it runs on every edge of a product.
    monitor = interpreted if updates is None else from_compiled

    graph = _Graph(table, limits.max_states)
    todo: deque[Any] = deque()  # the nodes found and not yet expanded, in id order

    for node in _initial_nodes(model, mons, x):
        code = np.array([codec.encode(node)], dtype=np.uint64)
        if table.lookup(code)[0] < 0:
            table.add(code)
            todo.append(node)
            graph.parent.append(-1)
    n_initial = len(table)

    def undecodable(node: Any, i: int) -> ModelError:
        g = graph
        return _undecodable(
            model, codec, expanders, field_index, monitor, node, g.parent, g.src, g.act, i
        )

    pool_size = 0
    complete, reason = True, ""
    i = 0
    while i < len(table):
        if i % PROGRESS_EVERY == 0:
            if workers > 1 and len(table) >= parallel_from:
                pool_size = workers
                break
            reason = _checkpoint(i, len(table), len(graph.src), progress, start, limits)
            if reason:
                complete = False
                break
        k = min(len(table) - i, PROGRESS_EVERY - i % PROGRESS_EVERY)
        batch = [todo.popleft() for _ in range(k)]
        acts = array("i")
        counts = array("i")
        succ: list[Any] = []
        cut_log: list[tuple[int, int, str]] = []
        words = [array("Q") for _ in range(codec.words)]
        try:
            codec.expand_batch(
                batch,
                expanders,
                field_index,
                i,
                succ,
                acts,
                counts,
                cut_log,
                monitor,
                *(w.append for w in words),
            )
        except (OutOfDomain, TypeError, ValueError, IndexError):
            raise undecodable(batch[len(counts)], i + len(counts)) from None
        codes = np.stack([np.frombuffer(w, dtype=np.uint64) for w in words], axis=1)
        k, new_pos = graph.commit(i, k, codes, acts, counts, cut_log)
        todo.extend(succ[p] for p in new_pos.tolist())
        i += k
        if graph.reason:
            complete, reason = False, graph.reason
            break
    lost: list[str] = []
    if pool_size:
        del todo  # the workers decode the nodes they expand from their codes
        i, complete, reason, lost = _explore_in_workers(
            pool_size, graph, i, codec, expanders, field_index, monitor, undecodable,
            progress, start, limits,
        )  # fmt: skip
    if progress is not None:
        progress(i, len(table), len(graph.src))
    nodes = EncodedNodes(codec, table)
    g = graph
    return Exploration(
        model, mons, nodes, g.src, g.dst, g.act, g.parent, n_initial, i,
        complete and i >= len(nodes), reason, time.perf_counter() - start, g.cuts, g.cut_nodes,
        "compiled" if compiled else "interpreted", fallbacks, worker_processes=pool_size,
        workers_lost=tuple(lost),
    )  # fmt: skip


class _Graph:
    """The state graph a compact search builds: the table of codes, the edge arrays, the cuts,
    and why it stopped at the state limit (``reason``, empty until then)."""

    def __init__(self, table: CodeTable, max_states: int | None) -> None:
        self.table = table
        self.max_states = max_states
        self.state_cap = max_states if max_states is not None else 2**62
        self.src, self.dst, self.act, self.parent = array("i"), array("i"), array("i"), array("i")
        self.cuts: Counter[str] = Counter()
        self.cut_nodes: set[int] = set()
        self.reason = ""

    def commit(
        self,
        i: int,
        k: int,
        codes: np.ndarray,
        acts: array,
        counts: array,
        cut_log: list[tuple[int, int, str]],
    ) -> tuple[int, np.ndarray]:
        """Commit the successors of the batch of nodes ``i..i+k-1`` (their codes, rule
        instances, counts per node and cuts, as ``expand_batch`` gives them): number the new
        states, record the edges, parents and cuts. Returns how many nodes were fully expanded
        (fewer than ``k`` when the state limit stopped the batch) and the positions of the new
        states among the successors, in id order."""
        table = self.table
        m_succ = len(acts)
        ids = np.zeros(0, dtype=np.int64)
        new_pos = np.zeros(0, dtype=np.int64)
        stop_at = m_succ  # successors committed
        if m_succ:
            room = self.state_cap - len(table)
            uniq_first, inverse, found, fresh = _fresh(table, codes)
            new_pos = uniq_first[fresh]
            if len(new_pos) > room:
                stop_at = int(new_pos[room])
                fresh, new_pos = fresh[:room], new_pos[:room]
                self.reason = f"state limit of {self.max_states} states reached"
            found[fresh] = len(table) + np.arange(len(fresh))
            ids = found[inverse[:stop_at]]
            table.add(codes[new_pos])
        if stop_at < m_succ:  # the state limit: node ``i + q`` was not fully expanded
            q = int(np.searchsorted(np.cumsum(counts), stop_at, side="right"))
            counts = counts[: q + 1]
            counts[q] = stop_at - (sum(counts) - counts[q])
            k = q
        first_edge = len(self.src)
        per_node = np.frombuffer(counts, dtype=np.int32)
        sources = np.repeat(np.arange(i, i + len(counts), dtype=np.int32), per_node)
        self.src.frombytes(sources.tobytes())
        self.dst.frombytes(ids.astype(np.int32).tobytes())
        self.act.extend(acts[:stop_at])
        self.parent.frombytes((new_pos + first_edge).astype(np.int32).tobytes())
        for node_id, pos, bound in cut_log:
            if pos <= stop_at:  # before the successor the state limit stopped at
                self.cuts[bound] += 1
                self.cut_nodes.add(node_id)
        return k, new_pos


def _explore_in_workers(
    n: int,
    graph: _Graph,
    i: int,
    codec: Codec,
    expanders: Any,
    field_index: int,
    monitor: Callable[..., Any],
    undecodable: Callable[[Any, int], ModelError],
    progress: Progress | None,
    start: float,
    limits: Limits,
) -> tuple[int, bool, str, list[str]]:
    """The rest of :func:`_explore_codes` from node ``i`` on, the nodes expanded by ``n``
    worker processes. Nodes are sent in units of :data:`UNIT` as soon as they are numbered;
    their answers are committed here in id order, as soon as they come, so that the next
    units' nodes are numbered while the workers expand. Batches are still cut as the
    one-process loop cuts them (from a batch's first node to the next multiple of
    ``PROGRESS_EVERY``, or to the last state known when the batch began): progress and the
    time limit are seen at their first nodes, and a batch in which a successor leaves its
    domain raises, as there, even where the state limit stopped the batch before that node.
    Returns where the search stopped, whether it is complete and why not, and the workers
    lost on the way (:attr:`WorkerPool.lost`)."""
    table = graph.table
    pool = WorkerPool(n, codec, expanders, field_index, monitor, UNIT)
    sent = i  # nodes before this one are expanded or queued
    complete, reason = True, ""
    failure = -1  # the first node whose expansion raised in a worker

    def send_more() -> None:
        """Queue units while a worker has room: whole ones, or, while fewer units than
        workers are queued, the part of one whose states are known."""
        nonlocal sent
        while sent < len(table) and pool.has_room():
            end = sent - sent % UNIT + UNIT
            if end > len(table) and pool.queued >= n:
                return  # a short unit only when a worker would otherwise wait
            stop = min(end, len(table))
            pool.send(table.codes[sent:stop], sent)
            sent = stop

    def take() -> Unit:
        nonlocal failure
        u = pool.take()
        send_more()
        if u.failed_at >= 0 and failure < 0:
            failure = u.failed_at
        return u

    def fail() -> BaseException:
        return _rerun(codec, expanders, field_index, monitor, undecodable, table, failure)

    batch_end = i
    unit: Unit | None = None
    ends = np.zeros(0, dtype=np.int64)  # the unit's successors up to the end of each node
    try:
        while True:
            if i == batch_end:
                if i >= len(table):
                    break
                if i % PROGRESS_EVERY == 0:
                    reason = _checkpoint(i, len(table), len(graph.src), progress, start, limits)
                    if reason:
                        complete = False
                        break
                batch_end = min(len(table), i - i % PROGRESS_EVERY + PROGRESS_EVERY)
            if 0 <= failure < batch_end:
                raise fail()
            send_more()
            if unit is None or i >= unit.start + len(unit.counts):
                unit = take()
                assert unit.start == i, "units are answered in id order"
                ends = np.cumsum(np.frombuffer(unit.counts, dtype=np.int32), dtype=np.int64)
                continue
            stop = min(unit.start + len(unit.counts), batch_end)
            j, j2 = i - unit.start, stop - unit.start
            if j == 0 and j2 == len(unit.counts):
                codes, acts, counts, cut_log = unit.codes, unit.acts, unit.counts, unit.cut_log
            else:  # a piece of the unit: the part within this batch
                lo, hi = (int(ends[j - 1]) if j else 0), int(ends[j2 - 1])
                codes, acts, counts = unit.codes[lo:hi], unit.acts[lo:hi], unit.counts[j:j2]
                cut_log = [(q, p - lo, bd) for q, p, bd in unit.cut_log if i <= q < stop]
            k, _ = graph.commit(i, stop - i, codes, acts, counts, cut_log)
            i += k
            if graph.reason:
                # The one-process loop expands the whole batch before it commits any of it.
                while failure < 0 and pool.next_start is not None and pool.next_start < batch_end:
                    take()
                if 0 <= failure < batch_end:
                    raise fail()
                complete, reason = False, graph.reason
                break
    finally:
        pool.close()
    return i, complete, reason, pool.lost


def _rerun(
    codec: Codec,
    expanders: Any,
    field_index: int,
    monitor: Callable[..., Any],
    undecodable: Callable[[Any, int], ModelError],
    table: CodeTable,
    i: int,
) -> BaseException:
    """What the one-process search raises at node ``i``, whose expansion raised in a worker:
    the node expanded again here, the error of its successor outside the domains, or whatever
    the rules raised."""
    node = codec.decode(table.codes[i].tolist())
    words = [array("Q") for _ in range(codec.words)]
    try:
        codec.expand_batch(
            [node], expanders, field_index, i, [], array("i"), array("i"), [], monitor,
            *(w.append for w in words),
        )  # fmt: skip
    except (OutOfDomain, TypeError, ValueError, IndexError):
        return undecodable(node, i)
    except Exception as exc:  # the rules' own error, as the one-process search lets it out
        return exc
    return RuntimeError(f"expanding state {i} raised in a worker process and not here")


def _undecodable(
    model: Model,
    codec: Codec,
    expanders: Any,
    field_index: int,
    monitor: Callable[..., Any],
    node: Any,
    parent: array,
    src: array,
    act: array,
    i: int,
) -> ModelError:
    """The error for the first successor of node ``i`` that lies outside the domains."""
    s = node[0] if codec.monitors else node
    for ai, t in expanders[s[field_index]](s):
        if ai < 0:
            continue
        try:
            codec.encode((t, monitor(s, t, ai, node[1])) if codec.monitors else t)
        except (OutOfDomain, TypeError, ValueError, IndexError):
            return out_of_domain(model, [], parent, src, act, i, ai, t)
    raise AssertionError("a successor that failed to encode encodes")


def _fresh(table: CodeTable, codes: np.ndarray) -> tuple[np.ndarray, ...]:
    """The distinct rows of ``codes`` against the table: for each distinct row, the position
    of its first occurrence and its id (``-1`` if new); for each row, which distinct row it
    is; and the distinct rows that are new, in the order of their first occurrence."""
    if codes.shape[1] == 1:
        keys = codes[:, 0]
    else:
        keys = np.ascontiguousarray(codes).view(np.dtype((np.void, 8 * codes.shape[1]))).ravel()
    _, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
    found = table.lookup(codes[first])
    fresh = np.flatnonzero(found < 0)
    fresh = fresh[np.argsort(first[fresh], kind="stable")]
    return first, inverse.ravel(), found, fresh


def out_of_domain(
    model: Model,
    nodes: list[Any],
    parent: array,
    src: array,
    act: array,
    i: int,
    ai: int,
    bad: State,
) -> ModelError:
    """The error for a rule that took node ``i`` to a state outside the schema's domains."""
    depth = 0
    while parent[i] >= 0:
        i = src[parent[i]]
        depth += 1
    return domain_error(model, model.actions[ai], bad, depth)


def domain_error(model: Model, action: Any, bad: State, depth: int) -> ModelError:
    """A rule gives a field a value outside its domain: name the rule, the field and the value
    (shared by both engines, so that they report it alike)."""
    field = "a field"
    try:
        model.schema.check(bad, ConcreteOps())
    except SchemaError as exc:
        field = str(exc).removeprefix("field ")
    card = f" (card: {action.rule.card})" if action.rule.card else ""
    return ModelError(
        f"rule {action.rule.citation} {action.label}{card} gives {field}, in a state reached in "
        f"{depth} step{'' if depth == 1 else 's'}: a rule that would leave a field's domain must "
        "say so with x.within "
        "(a declared bound), or the field's domain must be wider"
    )


def rule_coverage(ex: Exploration) -> dict[str, int]:
    """How many explored transitions each rule produced, by rule name, in the rule set's order.

    A rule at 0 never applied within the bounds: its card is not in the game, or the rule (or
    the model around it) is wrong. Reports list such rules so that a verdict is never read as
    covering behaviour that was never exercised.
    """
    counts: Counter[int] = Counter(ex.act)
    out = {r.name: 0 for r in ex.model.ruleset.rules}
    for a in ex.model.actions:
        out[a.rule.name] += counts.get(a.index, 0)
    return out


def find_inconsistencies(ex: Exploration, most: int = 20) -> list[Finding]:
    """Every inconsistency of the rules within the explored bounds, shallowest first:

    * ``no-deadlock``: a reachable state, not terminal, where no rule applies (and no bound cut
      a transition);
    * ``exclusive-automatic``: a reachable state where two or more automatic rules apply. States
      are grouped by the set of rules that clash; each group is reported once, with its
      shallowest state, its trace and how many states share it.

    At most ``most`` deadlock states are listed (a count says how many there are in all).
    """
    x = ConcreteOps()
    actions = ex.model.actions
    has_out = bytearray(ex.states)
    automatic: dict[int, list[int]] = {}
    for e in range(ex.transitions):
        s = ex.src[e]
        has_out[s] = 1
        if actions[ex.act[e]].rule.is_automatic:
            automatic.setdefault(s, []).append(e)
    findings: list[Finding] = []
    dead = [
        i
        for i in range(ex.expanded)
        if not has_out[i] and i not in ex.cut_nodes and not ex.model.is_terminal(ex.state(i), x)
    ]
    for i in dead[:most]:
        findings.append(
            Finding(
                "no-deadlock",
                "violated",
                f"no rule applies in this reachable state, and it is not terminal "
                f"({len(dead)} such states in all)",
                (),
                ex.model.schema.describe_value(ex.state(i)),
                trace_to(ex, i),
            )
        )
    groups: dict[tuple[str, ...], list[int]] = {}
    for s, edges in sorted(automatic.items()):
        names = tuple(
            sorted(
                {f"{actions[ex.act[e]].rule.citation} {actions[ex.act[e]].label}" for e in edges}
            )
        )
        if len(names) > 1:
            groups.setdefault(names, []).append(s)
    for names, states in groups.items():
        first = states[0]
        findings.append(
            Finding(
                "exclusive-automatic",
                "violated",
                f"{len(names)} automatic rules apply together "
                f"(in {len(states)} reachable state{'s' if len(states) != 1 else ''})",
                names,
                ex.model.schema.describe_value(ex.state(first)),
                trace_to(ex, first),
            )
        )
    return findings


# -- traces -----------------------------------------------------------------------------------


def trace_step(ex: Exploration, e: int) -> TraceStep:
    action = ex.model.actions[ex.act[e]]
    return step_record(ex.model, action, ex.state(ex.src[e]), ex.state(ex.dst[e]))


def build_trace(ex: Exploration, edges: Sequence[int], loop_start: int | None = None) -> Trace:
    first = ex.src[edges[0]] if edges else 0
    initial = ex.model.schema.describe_value(ex.state(first))
    steps = tuple(trace_step(ex, e) for e in edges)
    last = ex.dst[edges[-1]] if edges else first
    return Trace(
        initial=initial,
        steps=steps,
        loop_start=loop_start,
        final=ex.model.schema.describe_value(ex.state(last)),
    )


def trace_to(ex: Exploration, i: int) -> Trace:
    """The shortest trace from an initial state to node ``i``."""
    edges = ex.path_to(i)
    if not edges:
        initial = ex.model.schema.describe_value(ex.state(i))
        return Trace(initial=initial, steps=(), final=initial)
    return build_trace(ex, edges)


# -- checks -----------------------------------------------------------------------------------


def _result(
    ex: Exploration, prop: Property, verdict: Verdict, seconds: float, **kw: Any
) -> PropertyResult:
    return PropertyResult(
        name=prop.name,
        kind=prop.kind,
        description=prop.description,
        verdict=verdict,
        engine="explicit",
        expect=prop.expect.value,
        states=ex.states,
        transitions=ex.transitions,
        seconds=seconds,
        bounds=dict(ex.model.bounds),
        bounds_reached=dict(sorted(ex.bound_cuts.items())),
        citations=prop.citations,
        depth=ex.depth(ex.states - 1) if ex.states else 0,  # ids grow with depth
        **kw,
    )


def _incomplete(ex: Exploration) -> str:
    return (
        f"exploration incomplete: {ex.stop_reason} after {ex.states} states; "
        "no violation in the explored part"
    )


def find_state(ex: Exploration, pred: Callable[..., Any]) -> int | None:
    """The first node (lowest BFS depth) whose state satisfies ``pred(s, x, b, m)``."""
    x, b = ConcreteOps(), ex.model.bounds
    for i, (s, m) in enumerate(ex.iter_states()):
        if pred(s, x, b, m):
            return i
    return None


def find_edge(ex: Exploration, pred: Callable[..., Any]) -> int | None:
    """The shallowest edge ``s -r-> t`` with ``pred(s, t, r, x, b, m)`` true."""
    x, b = ConcreteOps(), ex.model.bounds
    rules = [a.rule for a in ex.model.actions]
    # Edges are stored in BFS order of their source, so the first hit has the shallowest source;
    # each source's edges are contiguous, so its node is read once, in id order.
    sources = ex.iter_states()
    at, s, m = -1, None, None
    for e in range(ex.transitions):
        i, j = ex.src[e], ex.dst[e]
        while at < i:
            s, m = next(sources)
            at += 1
        if pred(s, ex.state(j), rules[ex.act[e]], x, b, m):
            return e
    return None


class Searches:
    """The searches the checks make, answered one by one through the interpreted predicates
    (:func:`find_state`, :func:`find_edge`: the oracle), or, by :meth:`compiled`, all at once
    by compiled predicates in one pass over the states and one over the edges
    (``checks/compiled_props.py``). The answers are the same."""

    def __init__(self, ex: Exploration) -> None:
        self.ex = ex
        self._states: dict[tuple[int, bool], int | None] = {}
        self._edges: dict[int, int | None] = {}
        self.fallbacks: list[str] = []
        self._by_compiled = False

    @classmethod
    def compiled(cls, ex: Exploration, props: Sequence[Property]) -> Searches:
        """Every search ``props`` make, answered at once."""
        from turnproof.checks.compiled_props import first_edges, first_states

        found = cls(ex)
        wanted: dict[tuple[int, bool], tuple[Any, bool]] = {}
        steps: dict[int, Any] = {}
        for p in props:
            if p.pred is not None and p.kind in ("always", "reachable"):
                negate = p.kind == "always"
                wanted.setdefault((id(p.pred), negate), (p.pred, negate))
            if p.pred is not None and p.kind == "step":
                steps.setdefault(id(p.pred), p.pred)
            if p.antecedent is not None:
                wanted.setdefault((id(p.antecedent), False), (p.antecedent, False))
        keys = list(wanted)
        firsts, notes = first_states(ex, [wanted[k] for k in keys])
        found._states.update(zip(keys, firsts))
        step_keys = list(steps)
        edges, more = first_edges(ex, [steps[k] for k in step_keys])
        found._edges.update(zip(step_keys, edges))
        found.fallbacks = notes + more
        found._by_compiled = True
        return found

    def region(self, pred: Callable[..., Any]) -> list[int]:
        """Every node whose state satisfies ``pred``, in id order (compiled, when these
        searches are: :func:`~turnproof.checks.compiled_props.states_where`)."""
        if self._by_compiled:
            from turnproof.checks.compiled_props import states_where

            region, notes = states_where(self.ex, pred)
            self.fallbacks += [n for n in notes if n not in self.fallbacks]
            return region
        x, b = ConcreteOps(), self.ex.model.bounds
        return [i for i, (s, m) in enumerate(self.ex.iter_states()) if pred(s, x, b, m)]

    def state(self, pred: Callable[..., Any], negate: bool = False) -> int | None:
        """The first node whose state satisfies ``pred`` (fails it, with ``negate``)."""
        key = (id(pred), negate)
        if key not in self._states:
            test = (lambda s, x, b, m: not pred(s, x, b, m)) if negate else pred
            self._states[key] = find_state(self.ex, test)
        return self._states[key]

    def failing_edge(self, pred: Callable[..., Any]) -> int | None:
        """The shallowest edge on which the step predicate ``pred`` fails."""
        if id(pred) not in self._edges:
            self._edges[id(pred)] = find_edge(
                self.ex, lambda s, t, r, x, b, m: not pred(s, t, r, x, b, m)
            )
        return self._edges[id(pred)]


def check_always(
    ex: Exploration, prop: Property, t0: float, found: Searches | None = None
) -> PropertyResult:
    assert prop.pred is not None
    bad = (found or Searches(ex)).state(prop.pred, negate=True)
    if bad is not None:
        return _result(
            ex, prop, Verdict.VIOLATED, time.perf_counter() - t0, trace=trace_to(ex, bad)
        )
    return _finish_holds(ex, prop, t0, found)


def check_step(
    ex: Exploration, prop: Property, t0: float, found: Searches | None = None
) -> PropertyResult:
    assert prop.pred is not None
    e = (found or Searches(ex)).failing_edge(prop.pred)
    if e is not None:
        edges = ex.path_to(ex.src[e]) + [e]
        return _result(
            ex, prop, Verdict.VIOLATED, time.perf_counter() - t0, trace=build_trace(ex, edges)
        )
    return _finish_holds(ex, prop, t0, found)


def _finish_holds(
    ex: Exploration, prop: Property, t0: float, found: Searches | None = None
) -> PropertyResult:
    vacuous = False
    reason = ""
    if prop.antecedent is not None and (found or Searches(ex)).state(prop.antecedent) is None:
        vacuous = True
        reason = "vacuous: no reachable state satisfies the property's antecedent"
    if not ex.complete:
        return _result(ex, prop, Verdict.UNKNOWN, time.perf_counter() - t0, reason=_incomplete(ex))
    return _result(
        ex, prop, Verdict.EXHAUSTIVE, time.perf_counter() - t0, vacuous=vacuous, reason=reason
    )


def check_reachable(
    ex: Exploration, prop: Property, t0: float, found: Searches | None = None
) -> PropertyResult:
    assert prop.pred is not None
    hit = (found or Searches(ex)).state(prop.pred)
    if hit is not None:
        return _result(
            ex, prop, Verdict.WITNESSED, time.perf_counter() - t0, trace=trace_to(ex, hit)
        )
    if not ex.complete:
        return _result(ex, prop, Verdict.UNKNOWN, time.perf_counter() - t0, reason=_incomplete(ex))
    # Exhaustively unreachable: the answer to "can this happen?" is no, within the bounds.
    return _result(
        ex,
        prop,
        Verdict.EXHAUSTIVE,
        time.perf_counter() - t0,
        reason="no reachable state satisfies it within the bounds",
    )


def check_no_deadlock(
    ex: Exploration, prop: Property, t0: float, found: Searches | None = None
) -> PropertyResult:
    x = ConcreteOps()
    has_out = bytearray(ex.states)
    for s in ex.src:
        has_out[s] = 1
    for i in range(ex.expanded):
        if has_out[i] or i in ex.cut_nodes:
            continue
        if not ex.model.is_terminal(ex.state(i), x):
            return _result(
                ex, prop, Verdict.VIOLATED, time.perf_counter() - t0, trace=trace_to(ex, i)
            )
    return _finish_holds(ex, prop, t0, found)


def check_exclusive(
    ex: Exploration, prop: Property, t0: float, found: Searches | None = None
) -> PropertyResult:
    actions = ex.model.actions
    seen_src = -1
    automatic: list[int] = []
    for e in range(ex.transitions + 1):
        s = ex.src[e] if e < ex.transitions else -2
        if s != seen_src:
            if len(automatic) > 1:
                edges = ex.path_to(seen_src) + [automatic[0]]
                names = ", ".join(
                    f"{actions[ex.act[a]].rule.citation} {actions[ex.act[a]].label}"
                    for a in automatic
                )
                trace = build_trace(ex, edges)
                return _result(
                    ex,
                    prop,
                    Verdict.VIOLATED,
                    time.perf_counter() - t0,
                    trace=trace,
                    reason=f"{len(automatic)} automatic rules enabled together: {names}",
                )
            seen_src, automatic = s, []
        if e < ex.transitions and actions[ex.act[e]].rule.is_automatic:
            automatic.append(e)
    return _finish_holds(ex, prop, t0, found)


def check_terminates(
    ex: Exploration, prop: Property, t0: float, found: Searches | None = None
) -> PropertyResult:
    """No cycle inside the region: strongly connected components of the region's subgraph."""
    assert prop.pred is not None
    region = (found or Searches(ex)).region(prop.pred)
    inside = set(region)
    g = nx.DiGraph()
    g.add_nodes_from(region)
    g.add_edges_from((s, d) for s, d in zip(ex.src, ex.dst) if s in inside and d in inside)
    cyclic = [
        c
        for c in nx.strongly_connected_components(g)
        if len(c) > 1 or any(g.has_edge(n, n) for n in c)
    ]
    if not cyclic:
        result = _finish_holds(ex, prop, t0, found)
        if not region and result.verdict is Verdict.EXHAUSTIVE:
            result.vacuous = True
            result.reason = "vacuous: the region is never reached"
        return result
    # The loop entered first (lowest BFS id, hence lowest depth) gives the shortest stem.
    comp = min(cyclic, key=min)
    entry = min(comp)
    loop_edges = _shortest_cycle(ex, entry, comp)
    stem = ex.path_to(entry)
    trace = build_trace(ex, stem + loop_edges, loop_start=len(stem))
    exits, forced = _loop_exits(ex, loop_edges, inside)
    trace = Trace(
        initial=trace.initial,
        steps=trace.steps,
        loop_start=trace.loop_start,
        exits=tuple(exits),
        final=trace.final,
        forced=forced,
    )
    return _result(ex, prop, Verdict.VIOLATED, time.perf_counter() - t0, trace=trace)


def _shortest_cycle(ex: Exploration, entry: int, comp: set[int]) -> list[int]:
    """Edge ids of a shortest cycle through ``entry`` that stays inside ``comp`` (BFS)."""
    prev: dict[int, int] = {}
    queue = deque([entry])
    seen = {entry}
    while queue:
        n = queue.popleft()
        for e in ex.out_edges(n):
            d = ex.dst[e]
            if d not in comp:
                continue
            if d == entry:
                path = [e]
                while n != entry:
                    pe = prev[n]
                    path.append(pe)
                    n = ex.src[pe]
                path.reverse()
                return path
            if d not in seen:
                seen.add(d)
                prev[d] = e
                queue.append(d)
    raise AssertionError("a cyclic component always holds a cycle through each of its nodes")


def leaves_region(ex: Exploration, start: int, inside: set[int], avoid: set[int]) -> bool:
    """From node ``start``, the game can leave the region ``inside``, or end (a terminal
    state), without passing through a node of ``avoid`` (the loop): a search over the explored
    edges."""
    x, b = ConcreteOps(), ex.model.bounds

    def out(n: int) -> bool:
        return n not in inside or bool(ex.model.ruleset.terminal(ex.state(n), x, b))

    if out(start):
        return True
    seen = {start}
    queue = deque([start])
    while queue:
        n = queue.popleft()
        for e in ex.out_edges(n):
            d = ex.dst[e]
            if out(d):
                return True
            if d not in seen and d not in avoid:
                seen.add(d)
                queue.append(d)
    return False


def _loop_exits(
    ex: Exploration, loop_edges: list[int], inside: set[int]
) -> tuple[list[LoopExit], bool]:
    """The moves on the loop after which the game can leave the region without coming back to
    the loop (at once, or by later steps): who could break the loop, and how. A move after
    which every way on stays in the region, or comes back to the loop, only delays it and is
    no exit. Also whether the loop is forced: no state on it has more than one move."""
    x, b = ConcreteOps(), ex.model.bounds
    on_loop = {ex.src[e] for e in loop_edges}
    exits: list[LoopExit] = []
    forced = True
    for pos, e in enumerate(loop_edges):
        n = ex.src[e]
        moves = ex.out_edges(n)
        if len(moves) > 1:
            forced = False
        for alt in moves:
            d = ex.dst[alt]
            if alt == e or d in on_loop or not leaves_region(ex, d, inside, on_loop):
                continue
            action = ex.model.actions[ex.act[alt]]
            who = action.decider(ex.state(n), x, b)
            by = ex.model.decided_by(action, ex.state(n), x)
            exits.append(
                LoopExit(
                    pos,
                    None if who is None else int(who),
                    action.rule.citation,
                    action.label,
                    None if by is None else int(by),
                )
            )
    return exits, forced


CHECKS = {
    "always": check_always,
    "step": check_step,
    "reachable": check_reachable,
    "terminates": check_terminates,
    "no-deadlock": check_no_deadlock,
    "exclusive-automatic": check_exclusive,
}


def check_properties(
    model: Model,
    properties: Sequence[Property],
    limits: Limits | None = None,
    progress: Progress | None = None,
    coverage: dict[str, int] | None = None,
    on_exploration: Callable[[Exploration], None] | None = None,
    workers: int = 1,
) -> list[PropertyResult]:
    """Check ``properties`` on ``model``: one shared exploration for the properties without
    monitors, and one product exploration with every monitor (by name) for those with monitors.
    Results keep the given order. A ``coverage`` dict, when given, receives the transitions per
    rule of the first exploration (see :func:`rule_coverage`); ``on_exploration`` is called
    with each exploration, that one first, before it is let go. ``workers``: how many
    processes each exploration may use (:func:`explore`; the same results)."""
    by_name: dict[str, Any] = {}
    for p in properties:
        for mon in p.monitors:
            by_name.setdefault(mon.name, mon)
    product = tuple(by_name[n] for n in sorted(by_name))
    groups: dict[tuple[Any, ...], list[Property]] = {}
    for p in properties:
        groups.setdefault(product if p.monitors else (), []).append(p)
    results: dict[str, PropertyResult] = {}
    with collector_paused():
        _check_groups(model, groups, limits, progress, coverage, on_exploration, workers, results)
    return [results[p.name] for p in properties]


def _check_groups(
    model: Model,
    groups: dict[tuple[Any, ...], list[Property]],
    limits: Limits | None,
    progress: Progress | None,
    coverage: dict[str, int] | None,
    on_exploration: Callable[[Exploration], None] | None,
    workers: int,
    results: dict[str, PropertyResult],
) -> None:
    """:func:`check_properties` for each group of properties (with the same monitors)."""
    for monitors, props in groups.items():
        t0 = time.perf_counter()
        ex = explore(model, monitors, limits, progress, workers=workers)
        explore_seconds = time.perf_counter() - t0
        if coverage is not None and not coverage:
            coverage.update(rule_coverage(ex))
        if on_exploration is not None:
            on_exploration(ex)
        t1 = time.perf_counter()
        found = Searches.compiled(ex, props)
        # The one pass answers every property's search: its time is shared out evenly.
        searched = (time.perf_counter() - t1) / max(1, len(props))
        for p in props:
            t2 = time.perf_counter()
            r = CHECKS[p.kind](ex, p, t2, found)
            # The exploration is shared: charge its time to every property it served.
            r.seconds = explore_seconds + searched + (time.perf_counter() - t2)
            results[p.name] = r


def check_all(ex: Exploration, props: Sequence[Property]) -> list[PropertyResult]:
    """Every property of ``props`` checked on one exploration, their searches answered together
    (:meth:`Searches.compiled`)."""
    with collector_paused():
        found = Searches.compiled(ex, props)
        return [CHECKS[p.kind](ex, p, time.perf_counter(), found) for p in props]
