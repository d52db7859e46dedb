"""The edge-case hunter: which combinations of a pool's cards break the rules.

A *pool* (:class:`Pool`) is a game, a list of cards (each with its controller, or each player),
the bounds to check at and, optionally, *surprising states*: expressions in the scenario
language (``model/expr.py``) that mark a state as worth reporting. A hunt checks combinations
of the pool's cards of size 1 to ``size``:

* **exhaustively** when there are at most ``budget`` of them; else by **guided sampling**
  (seeded, so the same seed samples the same combinations): every single card first, then
  combinations drawn with each card weighted by how much it did on its own (``1 +`` the
  card-and-rule pairs it met), and every finding **shrunk** by removing one card at a time
  while the smaller combination still shows it. The report says which mode ran and what part
  of the space it covered.

Each combination (:func:`run_job`, one independent job) is composed as a scenario
(:class:`~turnproof.model.scenario.Scenario`: plain data every process builds the same way);
a combination that does not compose is skipped, with the reason. The explicit engine then
checks every property of the composed rule set (but ``no-deadlock`` and
``exclusive-automatic``, which :func:`~turnproof.checks.explicit.find_inconsistencies` answers
with every clash, not only the first), and the pool's surprising states as ``reachable``
properties (a surprising state that names what the combination lacks, a card's kind, is not
applicable to it). A *raw finding* is a property violated against its expectation (kind
``property``, or ``the turn can't end`` for a ``terminates`` property), a ``deadlock``, a
``two automatic rules clash`` or a ``surprising state`` witnessed, each with its shortest trace.

**Deduplication.** A raw finding's *signature* is its kind, its property and its *decisive
steps*, as a sorted set of ``citation`` (``citation [card]`` for a step of a card's rule):

* a lasso (the turn can't end): every step of its loop;
* a clash: the automatic rules that apply together;
* otherwise: the last step of the trace (the one into the state that breaks or witnesses the
  property) and every step whose rule comes from a card.

Raw findings with one signature are one finding (:class:`Group`), listing every combination that
shows it; its *minimal* combinations are those of which no checked proper subset shows it, and
it is reported at the first of them (fewest cards, then shortest trace, then by name). Findings
are ranked by size, then trace length, then kind, property and cards.

**Confirmation.** Each finding's trace is then replayed on the symbolic engine
(:func:`turnproof.checks.bmc.follow`: Z3 follows the trace's rule instances through the
transition formula and checks that the last state breaks the property, witnesses the state, or
closes the loop): ``confirmed``, ``path confirmed`` (deadlocks and clashes: the path exists; the
judgement of its last state is the explicit engine's), ``refuted`` or ``unconfirmed`` (Z3 gave
no answer within :data:`CONFIRM_RLIMIT`, a resource count rather than seconds, so that the
answer does not depend on the machine, the backend or the load).

**Interaction coverage.** In each explored transition, the cards that *act* are the card whose
rule fired and every card whose fields, or an object of whose kinds, the transition changed
(a card's hook acts through the core: its trigger appears); the cards *present* are those with
a field off its initial value or an object of their kind in the state before or after. Two
cards *met* when one acts and the other acts or is present; a card met a core rule when the
rule fired while the card acted or was present. A pair of cards in some checked combination
that never met is listed, so that "no finding" is not read as "no interaction".

**Scale.** Jobs run in this process (``jobs=1``), on a local process pool (``backend="local"``)
or on Ray (``backend="ray"``); each job's answer is cached on disk by the composed rule set's
``content_hash()``, the bounds, the state limit and the surprising states (:func:`cache_dir`),
so a re-run after adding a card checks only the new combinations. The result is sorted
throughout and holds no times, so it is the same whatever the backend and worker count.
"""

from __future__ import annotations

import contextlib
import hashlib
import itertools
import json
import math
import os
import random
import re
import time
import traceback
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import Any

import platformdirs
from turnproof.checks.cachefiles import write_whole
from turnproof.checks.results import LoopExit, Trace, TraceStep, Verdict
from turnproof.model.errors import TurnproofError

#: Part of every cache key: bump it when what a job computes changes.
HUNT_VERSION = "hunt-1"

#: The environment variable that names the hunt cache's folder ("off": no cache).
CACHE_ENV = "TURNPROOF_HUNT_CACHE"

#: Finding kinds, in the words of the report.
PROPERTY = "property"
NO_END = "the turn can't end"
DEADLOCK = "deadlock"
CLASH = "two automatic rules clash"
SURPRISE = "surprising state"

#: The work Z3 may spend confirming one finding, in its resource count (``rlimit``) rather
#: than seconds, so that a confirmation's answer is the same on every backend, machine and
#: load. A confirmation of a shipped pool's finding takes about 0.3 M of it (0.03 s).
CONFIRM_RLIMIT = 60_000_000


class HuntError(TurnproofError):
    """A pool that cannot be hunted in (bad input, exit code 2)."""


# -- the pool ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class PoolCard:
    """A card of a pool: its library key, its controller (``None``: each player has one) and
    its zone (empty: the card's first)."""

    key: str
    controller: int | None = None
    zone: str = ""

    @property
    def label(self) -> str:
        """``key`` (each player), ``key@N`` (player N's), with ``/zone`` when one is given."""
        who = "" if self.controller is None else f"@{self.controller}"
        return f"{self.key}{who}" + (f"/{self.zone}" if self.zone else "")


@dataclass(frozen=True)
class Surprise:
    """A surprising state: a name (kebab-case), an expression of the scenario language, and
    what it means."""

    name: str
    expr: str
    description: str = ""


@dataclass(frozen=True)
class Pool:
    """See the module docstring. ``properties`` limits the rule set's properties checked
    (empty: all of them)."""

    name: str
    game: str
    cards: tuple[PoolCard, ...]
    bounds: tuple[tuple[str, int], ...] = ()
    surprises: tuple[Surprise, ...] = ()
    properties: tuple[str, ...] = ()
    title: str = ""
    origin: str = ""

    def with_bounds(self, bounds: Mapping[str, int]) -> Pool:
        merged = dict(self.bounds) | dict(bounds)
        return replace(self, bounds=tuple(sorted(merged.items())))


# -- one job -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Job:
    """One combination to check (``confirm`` empty), or one finding to confirm on the
    symbolic engine (``confirm`` its signature, ``trace`` its rule instances)."""

    game: str
    cards: tuple[PoolCard, ...]
    bounds: tuple[tuple[str, int], ...]
    surprises: tuple[Surprise, ...] = ()
    properties: tuple[str, ...] = ()
    max_states: int = 20_000
    cache: str = ""  # the cache folder; empty: no cache
    confirm: tuple[str, str, tuple[str, ...]] | None = None  # (kind, property, decisive)
    labels: tuple[str, ...] = ()  # the trace's rule instances, for a confirmation
    loop_start: int | None = None

    @property
    def combo(self) -> tuple[str, ...]:
        return tuple(c.label for c in self.cards)


@dataclass
class RawFinding:
    """One finding of one combination (see the module docstring)."""

    kind: str
    property: str
    description: str
    decisive: tuple[str, ...]
    trace: Trace
    message: str = ""

    def signature(self) -> tuple[str, str, tuple[str, ...]]:
        return (self.kind, self.property, self.decisive)


@dataclass
class ComboResult:
    """What checking one combination gave: ``status`` ``checked``, ``skipped`` (it does not
    compose: ``reason``) or ``confirmed`` (a confirmation job: ``reason`` is its answer)."""

    combo: tuple[str, ...]
    status: str
    reason: str = ""
    key: str = ""
    states: int = 0
    findings: list[RawFinding] = field(default_factory=list)
    incomplete: list[str] = field(default_factory=list)  # properties left UNKNOWN
    inapplicable: list[str] = field(default_factory=list)  # surprises that name what is absent
    bounds_reached: dict[str, int] = field(default_factory=dict)  # transitions each bound cut
    met_cards: list[tuple[str, str]] = field(default_factory=list)
    met_rules: list[tuple[str, str]] = field(default_factory=list)
    from_cache: bool = False


def _scenario(job: Job, properties: Sequence[Any] = ()) -> Any:
    from turnproof.model.scenario import CardSpec, Scenario

    cards = tuple(
        CardSpec(c.key, c.controller, c.zone, at=("card", i)) for i, c in enumerate(job.cards)
    )
    return Scenario(
        name="hunt:" + "+".join(job.combo),
        game=job.game,
        cards=cards,
        bounds=job.bounds,
        properties=tuple(properties),
    )


def _surprise_spec(s: Surprise) -> Any:
    from turnproof.model.scenario import PropertySpec

    return PropertySpec(
        s.name, kind="reachable", expr=s.expr, description=s.description, at=("surprise", s.name)
    )


def run_job(job: Job) -> ComboResult:
    """A job's answer, from the cache when it holds one (the entry point of every backend)."""
    from turnproof.model.scenario import SpecError

    try:
        base = _scenario(job).build()
    except (SpecError, TurnproofError) as exc:
        return ComboResult(job.combo, "skipped", reason=_one_line(str(exc)))
    key = job_key(job, base.ruleset.content_hash())
    cached = _load(job.cache, key)
    if cached is not None:
        cached.from_cache = True
        cached.combo = job.combo
        return cached
    if job.confirm is not None:
        out = ComboResult(job.combo, "confirmed", reason=_confirm(job, base), key=key)
    else:
        out = _check(job, base)
        out.key = key
    _store(job.cache, key, out)
    return out


def answer_job(job: Job) -> ComboResult:
    """:func:`run_job`, with an internal error (a bug, not bad input) reported as the answer
    of its combination (status ``error``) rather than ending the hunt: every backend runs jobs
    through this."""
    try:
        return run_job(job)
    except Exception as exc:
        last = traceback.format_exception_only(exc)[-1].strip()
        return ComboResult(job.combo, "error", reason=f"internal error: {last}")


def _one_line(text: str) -> str:
    return " ".join(text.split())


def job_key(job: Job, content_hash: str) -> str:
    """The cache key of a job: what its answer depends on."""
    parts = {
        "version": HUNT_VERSION,
        "game": job.game,
        "hash": content_hash,
        "cards": job.combo,
        "bounds": sorted(job.bounds),
        "max_states": job.max_states,
        "surprises": [asdict(s) for s in job.surprises],
        "properties": list(job.properties),
        "confirm": job.confirm,
        "labels": job.labels,
    }
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()[:32]


def _check(job: Job, base: Any) -> ComboResult:
    """Check one combination with the explicit engine (see the module docstring)."""
    from turnproof.checks.explicit import Limits, check_all, explore, find_inconsistencies
    from turnproof.checks.explicit import check_properties as explicit_check
    from turnproof.model.scenario import PropertySpec, SpecError

    rs = base.ruleset
    wanted = set(job.properties)
    own = [
        p
        for p in rs.properties
        if p.kind not in ("no-deadlock", "exclusive-automatic") and (not wanted or p.name in wanted)
    ]
    out = ComboResult(job.combo, "checked")
    specs = [PropertySpec(p.name, at=("property", p.name)) for p in own]
    applicable = []
    for s in job.surprises:
        try:
            _scenario(job, [_surprise_spec(s)]).build()
        except SpecError as exc:
            out.inapplicable.append(f"{s.name}: {_lacks(str(exc))}")
            continue
        applicable.append(s)
    built = _scenario(job, specs + [_surprise_spec(s) for s in applicable]).build()
    model = built.model
    limits = Limits(max_states=job.max_states)
    ex = explore(model, (), limits)
    out.states = ex.states
    out.bounds_reached = dict(sorted(ex.bound_cuts.items()))
    out.met_cards, out.met_rules = interactions(ex)
    plain = [p for p in built.properties if not p.monitors]
    watched = [p for p in built.properties if p.monitors]
    results = check_all(ex, plain)
    results += explicit_check(model, watched, limits) if watched else []
    by_name = {p.name: p for p in built.properties}
    surprises = {s.name for s in applicable}
    for r in sorted(results, key=lambda r: r.name):
        prop = by_name[r.name]
        if r.verdict is Verdict.UNKNOWN:
            out.incomplete.append(r.name)
        elif r.name in surprises:
            if r.verdict is Verdict.WITNESSED and r.trace is not None:
                out.findings.append(_raw(SURPRISE, r.name, prop.description, r.trace))
        elif r.verdict is Verdict.VIOLATED and r.trace is not None and not r.meets_expectation:
            kind = NO_END if r.kind == "terminates" else PROPERTY
            out.findings.append(_raw(kind, r.name, prop.description, r.trace))
    if ex.complete:
        inconsistencies = find_inconsistencies(ex, most=1)
    else:
        inconsistencies = []
        out.incomplete.append("inconsistencies")
    for f in inconsistencies:
        if f.trace is None:
            continue
        if f.check == "no-deadlock":
            name = _property_of_kind(rs, "no-deadlock")
            out.findings.append(_raw(DEADLOCK, name, f.message, f.trace))
        else:
            name = _property_of_kind(rs, "exclusive-automatic")
            out.findings.append(_raw(CLASH, name, f.message, f.trace, tuple(sorted(f.rules))))
    return out


def _lacks(message: str) -> str:
    """What a surprising state's expression names that a combination lacks, in short."""
    names = re.findall(r"unknown name '([^']+)'|not a card in play[^']*'([^']+)'", message)
    found = sorted({a or b for a, b in names})
    if found:
        return "names " + ", ".join(found) + ", which these cards do not have"
    text = _one_line(message)
    return text if len(text) <= 160 else text[:157] + "..."


def _property_of_kind(rs: Any, kind: str) -> str:
    return next((p.name for p in rs.properties if p.kind == kind), kind)


def _raw(
    kind: str, prop: str, description: str, trace: Trace, decisive: tuple[str, ...] = ()
) -> RawFinding:
    return RawFinding(kind, prop, description, decisive or decisive_steps(trace), trace)


def _step_id(step: TraceStep) -> str:
    return f"{step.rule} [{step.card}]" if step.card else step.rule


def decisive_steps(trace: Trace) -> tuple[str, ...]:
    """The decisive steps of a trace (see the module docstring), as a sorted set."""
    steps = trace.steps
    if trace.loop_start is not None:
        chosen = steps[trace.loop_start :]
    else:
        chosen = tuple(s for s in steps if s.card) + steps[-1:]
    return tuple(sorted({_step_id(s) for s in chosen}))


# -- interactions ------------------------------------------------------------------------------


def interactions(ex: Any) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """The pairs of cards (by label) and of card and core rule (by rule name) that met in the
    exploration ``ex`` (see the module docstring), sorted."""
    from turnproof.model.schema import EnumDomain

    model = ex.model
    setup = model.ruleset.setup
    if setup is None:
        return [], []
    labels = {c.name: PoolCard(c.key, c.controller, c.zone).label for c in setup.cards}
    owner_of_field = {}
    for c in setup.cards:
        for f in c.pack.fields:
            owner_of_field[f.name] = labels[c.name]
    leaves = model.schema.leaves()
    kinds_enum = setup.kinds
    leaf_owner: list[str | None] = []
    kind_leaf: list[bool] = []
    for path, leaf in leaves:
        top = re.split(r"[.\[]", path, maxsplit=1)[0]
        leaf_owner.append(owner_of_field.get(top))
        kind_leaf.append(isinstance(leaf, EnumDomain) and leaf.enum is kinds_enum)
    kind_owner = {int(k): labels[c.name] for k, c in setup.owners.items()}
    initial = model.schema.flatten(ex.state(0))

    def owner(i: int, v: Any) -> str | None:
        if kind_leaf[i]:
            return kind_owner.get(int(v))
        return leaf_owner[i]

    flat: dict[int, list[Any]] = {}
    present: dict[int, frozenset[str]] = {}

    def values(n: int) -> list[Any]:
        got = flat.get(n)
        if got is None:
            got = flat[n] = model.schema.flatten(ex.state(n))
        return got

    def present_in(n: int) -> frozenset[str]:
        got = present.get(n)
        if got is None:
            vs = values(n)
            here = set()
            for i, v in enumerate(vs):
                if kind_leaf[i]:
                    o = kind_owner.get(int(v))
                    if o is not None:
                        here.add(o)
                elif v != initial[i]:
                    mine = leaf_owner[i]
                    if mine is not None:
                        here.add(mine)
            got = present[n] = frozenset(here)
        return got

    actions = model.actions
    met_cards: set[tuple[str, str]] = set()
    met_rules: set[tuple[str, str]] = set()
    seen: set[tuple[int, frozenset[str], frozenset[str]]] = set()
    for e in range(ex.transitions):
        s, t, a = ex.src[e], ex.dst[e], ex.act[e]
        rule = actions[a].rule
        acting = set()
        if rule.card and rule.card in labels:
            acting.add(labels[rule.card])
        vs, vt = values(s), values(t)
        for i, (u, w) in enumerate(zip(vs, vt)):
            if u != w:
                for o in (owner(i, u), owner(i, w)):
                    if o is not None:
                        acting.add(o)
        around = present_in(s) | present_in(t)
        key = (a, frozenset(acting), around)
        if key in seen:
            continue
        seen.add(key)
        for c in acting:
            for d in acting | around:
                if c != d:
                    met_cards.add((min(c, d), max(c, d)))
        if not rule.card:
            for c in acting | around:
                met_rules.add((c, rule.name))
    return sorted(met_cards), sorted(met_rules)


# -- confirmation ------------------------------------------------------------------------------


def _confirm(job: Job, base: Any) -> str:
    """Replay a finding's trace on the symbolic engine (see the module docstring)."""
    import z3
    from turnproof.checks import bmc
    from turnproof.checks.symbolic import Encoding
    from turnproof.model.scenario import PropertySpec

    assert job.confirm is not None
    kind, name, _ = job.confirm
    surprise = next((s for s in job.surprises if s.name == name), None)
    spec = _surprise_spec(surprise) if surprise else PropertySpec(name, at=("property", name))
    built = _scenario(job, [spec]).build()
    prop = built.property(name)
    try:
        enc = Encoding(built.model, prop.monitors)
        loop_start = None
        if kind == NO_END:
            target = bmc.lasso_target(enc, prop.pred)
            loop_start = bmc.lasso_start(enc)
        elif kind == SURPRISE:
            target = bmc.state_target(enc, prop.pred)
        elif kind in (DEADLOCK, CLASH):
            target = lambda k: z3.BoolVal(True)  # noqa: E731 - the path is what Z3 checks
        elif prop.kind == "step":
            target = bmc.step_violation_target(enc, prop.pred)
        else:
            target = bmc.violation_target(enc, prop.pred)
        found = bmc.follow(
            enc,
            job.labels,
            target,
            rlimit=CONFIRM_RLIMIT,
            loop_start=loop_start,
        )
    except TurnproofError as exc:
        return f"unconfirmed: {_one_line(str(exc))}"
    if found.status == "found":
        if kind in (DEADLOCK, CLASH):
            return "path confirmed: Z3 follows the trace through the transition formula"
        return "confirmed: Z3 follows the trace through the transition formula to a state that " + (
            "closes the loop"
            if kind == NO_END
            else "witnesses it"
            if kind == SURPRISE
            else "breaks it"
        )
    if found.status == "clear":
        return f"refuted: {found.reason}"
    return f"unconfirmed: {found.reason}"


# -- the cache ---------------------------------------------------------------------------------


def cache_dir() -> str:
    """The hunt cache's folder: ``$TURNPROOF_HUNT_CACHE`` (``off``: no cache), else ``hunt``
    in the per-user cache folder (``platformdirs``: ``~/.cache/turnproof`` on Linux)."""
    given = os.environ.get(CACHE_ENV)
    if given:
        return "" if given == "off" else given
    return os.path.join(platformdirs.user_cache_dir("turnproof", appauthor=False), "hunt")


def _trace_from_json(d: Mapping[str, Any]) -> Trace:
    steps = tuple(TraceStep(**s) for s in d["steps"])
    exits = d["exits"]
    return Trace(
        initial=d["initial"],
        steps=steps,
        loop_start=d["loop_start"],
        exits=None if exits is None else tuple(LoopExit(**e) for e in exits),
        final=d["final"],
        bounds=d["bounds"],
        forced=d["forced"],
    )


def result_to_json(r: ComboResult) -> dict[str, Any]:
    d = asdict(r)
    d.pop("from_cache")
    return d


def result_from_json(d: Mapping[str, Any]) -> ComboResult:
    findings = [
        RawFinding(
            f["kind"],
            f["property"],
            f["description"],
            tuple(f["decisive"]),
            _trace_from_json(f["trace"]),
            f["message"],
        )
        for f in d["findings"]
    ]
    return ComboResult(
        combo=tuple(d["combo"]),
        status=d["status"],
        reason=d["reason"],
        key=d["key"],
        states=d["states"],
        findings=findings,
        incomplete=list(d["incomplete"]),
        inapplicable=list(d["inapplicable"]),
        bounds_reached=dict(d["bounds_reached"]),
        met_cards=[(a, b) for a, b in d["met_cards"]],
        met_rules=[(a, b) for a, b in d["met_rules"]],
    )


def _load(folder: str, key: str) -> ComboResult | None:
    if not folder:
        return None
    try:
        with open(os.path.join(folder, f"{key}.json"), encoding="utf-8") as fh:
            return result_from_json(json.load(fh))
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _store(folder: str, key: str, result: ComboResult) -> None:
    if not folder:
        return
    data = result_to_json(result)
    write_whole(folder, f"{key}.json", lambda f: json.dump(data, f))


# -- the search --------------------------------------------------------------------------------


def space_size(n_cards: int, size: int) -> int:
    """The number of combinations of 1 to ``size`` of ``n_cards`` cards."""
    return sum(math.comb(n_cards, k) for k in range(1, min(size, n_cards) + 1))


def all_combinations(n_cards: int, size: int) -> list[tuple[int, ...]]:
    return [
        c
        for k in range(1, min(size, n_cards) + 1)
        for c in itertools.combinations(range(n_cards), k)
    ]


def sample_combinations(
    n_cards: int,
    size: int,
    budget: int,
    seed: int,
    weights: Sequence[float],
    have: Iterable[tuple[int, ...]],
) -> list[tuple[int, ...]]:
    """Up to ``budget`` new combinations of 2 to ``size`` cards, drawn (deterministically for
    ``seed``) with each card weighted by ``weights``; a size is drawn in proportion to the
    number of combinations of that size."""
    rng = random.Random(seed)
    taken = set(have)
    sizes = list(range(2, min(size, n_cards) + 1))
    if not sizes or budget <= 0:
        return []
    counts = [math.comb(n_cards, k) for k in sizes]
    out: list[tuple[int, ...]] = []
    tries = 0
    while len(out) < budget and tries < budget * 50:
        tries += 1
        k = rng.choices(sizes, weights=counts)[0]
        chosen: set[int] = set()
        while len(chosen) < k:
            chosen.add(rng.choices(range(n_cards), weights=weights)[0])
        combo = tuple(sorted(chosen))
        if combo not in taken:
            taken.add(combo)
            out.append(combo)
    return out


#: A backend: runs a batch of jobs, calling ``done`` with each answer as it arrives and asking
#: ``stop`` before it starts each job (true: no more start; those in progress finish). Its
#: answer is aligned with the batch: ``None`` for a job that did not start.
Runner = Callable[
    [Sequence[Job], Callable[[ComboResult], None], Callable[[], bool]], list[ComboResult | None]
]


class HuntInterrupted(KeyboardInterrupt):
    """Ctrl-C during a hunt: ``results`` are the answers that had arrived, aligned with the
    batch (``None`` for a job that had not finished)."""

    def __init__(self, results: list[ComboResult | None]) -> None:
        super().__init__("interrupted")
        self.results = results


def _aligned(results: Mapping[int, ComboResult], n: int) -> list[ComboResult | None]:
    return [results.get(i) for i in range(n)]


def run_local(jobs: int) -> Runner:
    """Jobs in this process (``jobs == 1``), or on ``jobs`` worker processes
    (``python -m turnproof.checks.hunt_worker``, each answering pickled jobs on its standard
    input and output until it is closed; the caller's main module is never run again in them,
    unlike ``multiprocessing``'s ``spawn``, and nothing is forked)."""

    def run(
        batch: Sequence[Job], done: Callable[[ComboResult], None], stop: Callable[[], bool]
    ) -> list[ComboResult | None]:
        if jobs > 1 and len(batch) > 1:
            return _run_on_workers(batch, min(jobs, len(batch)), done, stop)
        results: dict[int, ComboResult] = {}
        try:
            for i, job in enumerate(batch):
                if stop():
                    break
                results[i] = answer_job(job)
                done(results[i])
        except KeyboardInterrupt:
            raise HuntInterrupted(_aligned(results, len(batch))) from None
        return _aligned(results, len(batch))

    return run


def _run_on_workers(
    batch: Sequence[Job],
    jobs: int,
    done: Callable[[ComboResult], None],
    should_stop: Callable[[], bool],
) -> list[ComboResult | None]:
    """``batch`` on ``jobs`` worker processes, each fed by a thread of this process. A worker
    ignores Ctrl-C (the terminal sends it to the whole process group): this process then ends
    every worker it started, keeps the answers that had arrived, and raises
    :class:`HuntInterrupted`. No worker outlives this call."""
    import pickle
    import queue
    import subprocess
    import sys
    import threading

    from turnproof.checks import workers

    todo: queue.Queue[tuple[int, Job]] = queue.Queue()
    for item in enumerate(batch):
        todo.put(item)
    answers: queue.Queue[tuple[int, ComboResult | BaseException]] = queue.Queue()
    procs: list[subprocess.Popen[bytes]] = []
    ending = threading.Event()  # Ctrl-C or a failure: end the workers now
    stopped = threading.Event()  # ``should_stop`` said so: start no more jobs

    def serve() -> None:
        if ending.is_set():
            return
        proc = workers.start_worker(
            [sys.executable, "-m", "turnproof.checks.hunt_worker"], pipe_stderr=False
        )
        procs.append(proc)
        assert proc.stdin is not None and proc.stdout is not None
        try:
            while not ending.is_set():
                if stopped.is_set() or should_stop():
                    stopped.set()
                    return
                try:
                    i, job = todo.get_nowait()
                except queue.Empty:
                    return
                try:
                    pickle.dump(job, proc.stdin)
                    proc.stdin.flush()
                    answer = pickle.load(proc.stdout)  # noqa: S301 - our own child's answer
                except (OSError, EOFError, pickle.UnpicklingError) as exc:
                    if not ending.is_set():
                        answers.put(
                            (i, HuntError(f"a hunt worker failed on {'+'.join(job.combo)}: {exc}"))
                        )
                    return
                answers.put((i, answer))
        finally:
            if ending.is_set():
                with contextlib.suppress(OSError):
                    proc.kill()
            with contextlib.suppress(OSError):
                proc.stdin.close()
            with contextlib.suppress(OSError, subprocess.TimeoutExpired):
                proc.wait(timeout=10)
            workers.forget(proc)

    threads = [threading.Thread(target=serve, daemon=True) for _ in range(jobs)]
    for t in threads:
        t.start()
    results: dict[int, ComboResult] = {}
    try:
        while len(results) < len(batch):
            try:
                i, answer = answers.get(timeout=0.2)
            except queue.Empty:
                if not any(t.is_alive() for t in threads) and answers.empty():
                    if stopped.is_set():
                        break
                    raise HuntError("the hunt workers stopped before every job was done") from None
                continue
            if isinstance(answer, BaseException):
                raise answer
            results[i] = answer
            done(answer)
    except BaseException as exc:
        ending.set()
        for proc in list(procs):  # only the workers this call started
            with contextlib.suppress(OSError):
                proc.kill()
        for t in threads:
            t.join(timeout=15)
        if isinstance(exc, KeyboardInterrupt):
            while not answers.empty():  # answers that arrived before the workers were ended
                i, answer = answers.get_nowait()
                if not isinstance(answer, BaseException):
                    results[i] = answer
            raise HuntInterrupted(_aligned(results, len(batch))) from None
        raise
    for t in threads:
        t.join()
    return _aligned(results, len(batch))


def run_ray(address: str | None, jobs: int) -> Runner:
    """Jobs as Ray tasks: on the cluster at ``address``, or on a local Ray with ``jobs`` CPUs
    (started here, and shut down after the batch, when none was running). At most twice as
    many tasks as the cluster has CPUs are submitted at a time, so that ``stop`` holds back
    the rest."""

    def run(
        batch: Sequence[Job], done: Callable[[ComboResult], None], stop: Callable[[], bool]
    ) -> list[ComboResult | None]:
        try:
            import ray
        except ImportError:
            raise HuntError(
                "--backend ray needs Ray: pip install 'turnproof[ray]' (or pip install ray)"
            ) from None
        started = False
        if not ray.is_initialized():
            kw: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False}
            if address:
                ray.init(address=address, **kw)
            else:
                ray.init(num_cpus=max(1, jobs), **kw)
            started = True
        remote = ray.remote(answer_job)
        window = 2 * max(1, int(ray.cluster_resources().get("CPU", jobs)))
        waiting = iter(enumerate(batch))
        pending: dict[Any, int] = {}
        results: dict[int, ComboResult] = {}

        def submit() -> None:
            while len(pending) < window and not stop():
                nxt = next(waiting, None)
                if nxt is None:
                    return
                pending[remote.remote(nxt[1])] = nxt[0]

        try:
            submit()
            while pending:
                ready, _ = ray.wait(list(pending), num_returns=1)
                for ref in ready:
                    i = pending.pop(ref)
                    results[i] = ray.get(ref)
                    done(results[i])
                submit()
        except KeyboardInterrupt:
            for ref in pending:
                with contextlib.suppress(Exception):
                    ray.cancel(ref, force=True)
            raise HuntInterrupted(_aligned(results, len(batch))) from None
        finally:
            if started:
                ray.shutdown()
        return _aligned(results, len(batch))

    return run


@dataclass
class Settings:
    """How a hunt runs (the command line's options). ``time_budget``: seconds for the whole
    hunt, after which no job starts (``None``: no limit)."""

    size: int = 2
    budget: int = 1000
    seed: int = 0
    max_states: int = 20_000
    jobs: int = 1
    backend: str = "local"
    address: str | None = None
    confirm: bool = True
    cache: str | None = None  # None: cache_dir()
    time_budget: float | None = None


@dataclass
class Progress:
    """What a progress display is told: a phase begins with ``total`` jobs; a job is done."""

    start: Callable[[str, int], None] = lambda phase, total: None
    advance: Callable[[ComboResult], None] = lambda r: None


#: Why a hunt stopped before its plan was done (``search.stopped`` in the document).
OUT_OF_TIME = "time budget"
INTERRUPTED = "interrupted"


def hunt(
    pool: Pool,
    settings: Settings,
    progress: Progress | None = None,
    clock: Callable[[], float] = time.monotonic,
) -> dict[str, Any]:
    """Hunt in ``pool`` (see the module docstring): the hunt's document
    (:func:`build_document`). Ctrl-C ends the search; the document then holds the findings so
    far and says that it was interrupted. Once ``settings.time_budget`` seconds have passed
    (on ``clock``), no job starts: those in progress finish, and the document says that the
    time budget stopped the hunt, after how many of the planned combinations."""
    progress = progress or Progress()
    cache = cache_dir() if settings.cache is None else settings.cache
    runner = (
        run_ray(settings.address, settings.jobs)
        if settings.backend == "ray"
        else run_local(settings.jobs)
    )
    deadline = None if settings.time_budget is None else clock() + settings.time_budget
    n = len(pool.cards)
    total = space_size(n, settings.size)
    results: dict[tuple[str, ...], ComboResult] = {}
    labels = [c.label for c in pool.cards]
    stats: dict[str, Any] = {"shrink": 0, "stopped": ""}

    def stop() -> bool:
        if not stats["stopped"] and deadline is not None and clock() >= deadline:
            stats["stopped"] = OUT_OF_TIME
        return bool(stats["stopped"])

    def job(combo: tuple[int, ...]) -> Job:
        return Job(
            game=pool.game,
            cards=tuple(pool.cards[i] for i in combo),
            bounds=pool.bounds,
            surprises=pool.surprises,
            properties=pool.properties,
            max_states=settings.max_states,
            cache=cache,
        )

    def run(phase: str, combos: Sequence[tuple[int, ...]]) -> None:
        todo = [c for c in combos if tuple(labels[i] for i in c) not in results]
        if not todo or stop():
            return
        progress.start(phase, len(todo))
        try:
            got = runner([job(c) for c in todo], progress.advance, stop)
        except HuntInterrupted as exc:
            got = exc.results
            stats["stopped"] = INTERRUPTED
        for r in got:
            if r is not None:
                results[r.combo] = r

    mode = "exhaustive" if total <= settings.budget else "sampled"
    planned: list[tuple[int, ...]] = []
    confirmations: dict[Signature, str] = {}
    try:
        if mode == "exhaustive":
            planned = all_combinations(n, settings.size)
            run("combinations", planned)
        else:
            singles = [(i,) for i in range(n)][: settings.budget]
            run("single cards", singles)
            weights = []
            for i in range(n):
                r = results.get((labels[i],))
                active = r.met_rules if r is not None and r.status == "checked" else []
                weights.append(1.0 + len({rule for _, rule in active}))
            sampled = sample_combinations(
                n, settings.size, settings.budget - len(singles), settings.seed, weights, singles
            )
            planned = singles + sampled
            run("sampled combinations", sampled)
            index = {lab: i for i, lab in enumerate(labels)}
            while not stop():  # shrink: remove one card at a time
                groups = group_findings(results)
                wanted: set[tuple[int, ...]] = set()
                for g in groups.values():
                    for combo in g.minimal:
                        ids = tuple(index[lab] for lab in combo)
                        for drop in range(len(ids)):
                            sub = ids[:drop] + ids[drop + 1 :]
                            if sub and tuple(labels[i] for i in sub) not in results:
                                wanted.add(sub)
                if not wanted:
                    break
                stats["shrink"] += len(wanted)
                run("shrinking", sorted(wanted, key=lambda c: (len(c), c)))
        if settings.confirm:
            confirmations = _confirm_findings(
                pool, results, settings, cache, runner, progress, stop, stats
            )
    except KeyboardInterrupt:
        stats["stopped"] = INTERRUPTED
    return build_document(pool, settings, mode, total, planned, results, confirmations, stats)


def _confirm_findings(
    pool: Pool,
    results: Mapping[tuple[str, ...], ComboResult],
    settings: Settings,
    cache: str,
    runner: Runner,
    progress: Progress,
    stop: Callable[[], bool],
    stats: dict[str, Any],
) -> dict[Signature, str]:
    """Each finding's answer from the symbolic engine, by signature (none for those that did
    not run: the hunt stopped first)."""
    by_label = {c.label: c for c in pool.cards}
    jobs = []
    for sig, g in group_findings(results).items():
        combo, raw = g.representative()
        jobs.append(
            Job(
                game=pool.game,
                cards=tuple(by_label[lab] for lab in combo),
                bounds=pool.bounds,
                surprises=pool.surprises,
                properties=pool.properties,
                max_states=settings.max_states,
                cache=cache,
                confirm=sig,
                labels=tuple(s.name for s in raw.trace.steps),
                loop_start=raw.trace.loop_start,
            )
        )
    if not jobs or stop():
        return {}
    progress.start("confirming", len(jobs))
    try:
        got = runner(jobs, progress.advance, stop)
    except HuntInterrupted as exc:
        got = exc.results
        stats["stopped"] = INTERRUPTED
    answers = {}
    for j, r in zip(jobs, got):
        if j.confirm is not None and r is not None:
            answers[j.confirm] = r.reason
    return answers


# -- findings ----------------------------------------------------------------------------------


Signature = tuple[str, str, tuple[str, ...]]


@dataclass
class Group:
    """One finding: its signature, its minimal combinations (each with its raw finding) and
    every combination that shows it."""

    signature: Signature
    minimal: dict[tuple[str, ...], RawFinding]
    shown: set[tuple[str, ...]]

    def representative(self) -> tuple[tuple[str, ...], RawFinding]:
        """The first minimal combination: fewest cards, then shortest trace, then by name."""
        combo = min(self.minimal, key=lambda c: (len(c), len(self.minimal[c].trace.steps), c))
        return combo, self.minimal[combo]


def group_findings(results: Mapping[tuple[str, ...], ComboResult]) -> dict[Signature, Group]:
    """The findings of the checked combinations, by signature (see the module docstring): a
    combination shows a finding at its minimal combination when no proper subset of it shows
    a raw finding of the same kind and property; the others are listed with the first finding
    (in signature order) of the same kind and property at a subset of theirs."""
    by_question: dict[tuple[str, str], dict[tuple[str, ...], RawFinding]] = {}
    for combo in sorted(results):
        for f in results[combo].findings:
            by_question.setdefault((f.kind, f.property), {}).setdefault(combo, f)
    groups: dict[Signature, Group] = {}
    for question in sorted(by_question):
        shown = by_question[question]
        minimal = minimal_combinations(list(shown))
        mine: list[Group] = []
        for combo in minimal:
            sig = shown[combo].signature()
            g = groups.setdefault(sig, Group(sig, {}, set()))
            g.minimal[combo] = shown[combo]
            g.shown.add(combo)
            if g not in mine:
                mine.append(g)
        mine.sort(key=lambda g: g.signature)
        for combo in shown:
            if combo in minimal:
                continue
            cs = frozenset(combo)
            for g in mine:
                if any(frozenset(m) < cs for m in g.minimal):
                    g.shown.add(combo)
                    break
    return dict(sorted(groups.items()))


def minimal_combinations(combos: Sequence[tuple[str, ...]]) -> list[tuple[str, ...]]:
    """The combinations of which no other in ``combos`` is a proper subset, sorted."""
    sets = [frozenset(c) for c in combos]
    return sorted(
        (c for c, s in zip(combos, sets) if not any(o < s for o in sets)),
        key=lambda c: (len(c), c),
    )


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def scenario_text(
    pool: Pool, cards: Sequence[PoolCard], finding: Mapping[str, Any], name: str
) -> str:
    """A scenario file that reproduces the finding as an expectation (``turnproof check``)."""
    q = json.dumps
    lines = [
        f"# Found by turnproof hunt in pool {pool.name}: {finding['kind']}"
        + (f" ({finding['property']})" if finding["property"] else ""),
        "# The expectation below pins the finding: this file passes while the finding stands,",
        "# and fails once the rules (or the cards) change so that it is gone.",
        "format = 1",
        f"title = {q('Hunt finding: ' + finding['kind'] + ' with ' + ', '.join(finding['card_names']))}",
        f"game = {q(pool.game)}",
        f"sources = [{q('turnproof hunt, pool ' + pool.name)}]",
        'engines = ["explicit"]',
        "",
    ]
    for c in cards:
        lines += ["[[card]]", f"name = {q(c.key)}"]
        who = '"each"' if c.controller is None else str(c.controller)
        lines.append(f"controller = {who}")
        if c.zone:
            lines.append(f"zone = {q(c.zone)}")
        lines.append("")
    if pool.bounds:
        lines.append("[bounds]")
        lines += [f"{k} = {v}" for k, v in pool.bounds]
        lines.append("")
    lines.append("[[property]]")
    surprise = next((s for s in pool.surprises if s.name == finding["property"]), None)
    lines.append(f"name = {q(finding['property'])}")
    if surprise is not None:
        if surprise.description:
            lines.append(f"description = {q(surprise.description)}")
        lines.append(f"reachable = {q(surprise.expr)}")
        lines.append('expect = "witnessed"')
    else:
        lines.append('expect = "violated"')
    del name
    return "\n".join(lines) + "\n"


def build_document(
    pool: Pool,
    settings: Settings,
    mode: str,
    total: int,
    planned: Sequence[tuple[int, ...]],
    results: Mapping[tuple[str, ...], ComboResult],
    confirmations: Mapping[Signature, str],
    stats: Mapping[str, Any],
) -> dict[str, Any]:
    """The hunt's one document (plain values and :class:`Trace` objects, sorted, no times):
    every format in ``reports/hunt.py`` lays it out."""
    by_label = {c.label: c for c in pool.cards}
    names = _card_names(pool)
    checked = [r for r in results.values() if r.status == "checked"]
    skipped = sorted(
        (r for r in results.values() if r.status in ("skipped", "error")), key=lambda r: r.combo
    )
    stopped = stats.get("stopped", "")
    not_confirmed = (
        "not run"
        if not settings.confirm
        else "not run: the time budget ran out"
        if stopped == OUT_OF_TIME
        else "not run: interrupted"
    )
    findings = []
    for sig, g in group_findings(results).items():
        combo, raw = g.representative()
        kind, prop, decisive = sig
        f: dict[str, Any] = {
            "kind": kind,
            "property": prop,
            "description": raw.description,
            "cards": list(combo),
            "card_names": [names.get(lab, lab) for lab in combo],
            "size": len(combo),
            "trace_length": len(raw.trace.steps),
            "decisive": list(decisive),
            "minimal": [list(c) for c in sorted(g.minimal, key=lambda c: (len(c), c))],
            "shown_by": [list(c) for c in sorted(g.shown, key=lambda c: (len(c), c))],
            "symbolic": confirmations.get(sig, not_confirmed),
            "trace": raw.trace,
        }
        findings.append(f)
    findings.sort(
        key=lambda f: (
            f["size"],
            f["trace_length"],
            f["kind"],
            f["property"],
            f["cards"],
            f["decisive"],
        )
    )
    for i, f in enumerate(findings, 1):
        f["name"] = f"{i:02d}-{slug(f['property'] or f['kind'])}-" + "-".join(
            slug(by_label[lab].key) for lab in f["cards"]
        )
        f["name"] = f["name"][:80].rstrip("-")
        f["file"] = f"findings/{f['name']}.toml"
        f["replay"] = f"turnproof check {f['file']}"
        f["scenario"] = scenario_text(pool, [by_label[lab] for lab in f["cards"]], f, f["name"])
    labels = [c.label for c in pool.cards]
    together: set[tuple[str, str]] = set()
    for r in checked:
        for a, b in itertools.combinations(sorted(r.combo), 2):
            together.add((a, b))
    met = {p for r in checked for p in r.met_cards}
    pairs = []
    for a, b in itertools.combinations(sorted(labels), 2):
        state = (
            "met"
            if (a, b) in met
            else "never met"
            if (a, b) in together
            else "not checked together"
        )
        pairs.append({"cards": [a, b], "status": state})
    met_rules: dict[str, set[str]] = {lab: set() for lab in labels}
    for r in checked:
        for c, rule in r.met_rules:
            met_rules.setdefault(c, set()).add(rule)
    all_rules = sorted(
        {rule for rules in met_rules.values() for rule in rules} | set(_core_rules(pool))
    )
    card_rules = [
        {
            "card": lab,
            "met": sorted(met_rules.get(lab, ())),
            "never": sorted(set(all_rules) - met_rules.get(lab, set())),
        }
        for lab in sorted(labels)
    ]
    return {
        "pool": {
            "name": pool.name,
            "title": pool.title,
            "game": pool.game,
            "cards": labels,
            "bounds": dict(pool.bounds),
            "surprises": [asdict(s) for s in pool.surprises],
            "origin": pool.origin,
        },
        "search": {
            "mode": mode,
            "size": settings.size,
            "budget": settings.budget,
            "seed": settings.seed if mode == "sampled" else None,
            "max_states": settings.max_states,
            "space": total,
            "planned": len(planned),
            "done": sum(1 for c in planned if tuple(labels[i] for i in c) in results),
            "checked": sum(1 for r in checked if not r.from_cache),
            "skipped": len(skipped),
            "from_cache": sum(1 for r in results.values() if r.from_cache),
            "shrink_checks": stats.get("shrink", 0),
            "time_budget": settings.time_budget,
            "stopped": stopped or None,
            "interrupted": stopped == INTERRUPTED,
        },
        "findings": findings,
        "skipped": [{"cards": list(r.combo), "reason": r.reason} for r in skipped],
        "incomplete": [
            {"cards": list(r.combo), "properties": r.incomplete}
            for r in sorted(checked, key=lambda r: r.combo)
            if r.incomplete
        ],
        "inapplicable": sorted({s for r in checked for s in r.inapplicable}),
        "bounds_reached": [
            {"cards": list(r.combo), "bounds": r.bounds_reached}
            for r in sorted(checked, key=lambda r: r.combo)
            if r.bounds_reached
        ],
        "coverage": {
            "pairs": pairs,
            "card_rules": card_rules,
            "core_rules": all_rules,
        },
    }


def _card_names(pool: Pool) -> dict[str, str]:
    try:
        from turnproof.model.registry import builtin_rulesets

        setup = builtin_rulesets()[pool.game].setup
        library = setup.core.library() if setup is not None else {}
    except (KeyError, TurnproofError):
        return {}
    return {c.label: library[c.key].name for c in pool.cards if c.key in library}


def _core_rules(pool: Pool) -> list[str]:
    from turnproof.model.registry import builtin_rulesets

    rs = builtin_rulesets().get(pool.game)
    if rs is None or rs.setup is None:
        return []
    return [r.name for r in rs.setup.core.rules]
