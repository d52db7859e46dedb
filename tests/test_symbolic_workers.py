"""The symbolic engine's plumbing: worker processes rebuild the model from its scenario and give the
same answers whatever their number, the explicit engine's reached antecedents are handed over,
and the bounds that cut a reachable transition are reported with the depth that reaches them."""

from __future__ import annotations

import pickle
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

import pytest
from comparable import comparable
from turnproof.checks import explicit, runner, symbolic, workers
from turnproof.checks.explicit import explore
from turnproof.checks.results import Verdict
from turnproof.checks.symbolic import bounds_task, check_properties
from turnproof.model.bench import BENCH
from turnproof.model.magic import MAGIC, compose_magic
from turnproof.model.ops import ConcreteOps
from turnproof.model.properties import always
from turnproof.model.riftbound import RIFTBOUND
from turnproof.model.rules import Model

SMALL = {"turns": 1, "cap": 2, "budget": 1, "cmax": 1}


def test_a_scenario_rebuilds_the_same_rules_in_another_process() -> None:
    """Workers are sent the scenario (plain data) and build it again: the same rules, cards,
    bounds and properties, whatever process builds it."""
    sel = runner.select(MAGIC, mutant="napap-order", bounds={"turns": 1})
    sc = sel.scenario
    assert sc is not None and sc.game == "magic" and sc.mutant == "napap-order"
    again = pickle.loads(pickle.dumps(sc))
    assert again == sc
    code = (
        "import pickle, sys; sc = pickle.loads(sys.stdin.buffer.read()); b = sc.build(); "
        "print(b.model.ruleset.content_hash(), dict(b.model.bounds)['turns'], "
        "len(b.properties), len(b.model.actions))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], input=pickle.dumps(sc), capture_output=True, check=True
    )
    rs = sel.model.ruleset
    want = f"{rs.content_hash()} 1 {len(sel.properties)} {len(sel.model.actions)}"
    assert done.stdout.decode().strip() == want
    assert rs.content_hash() != MAGIC.content_hash()
    # A model that is no scenario's is checked in this process: nothing to rebuild it from.
    own = always("own", "a test's own property", lambda s, x, b, m: True)
    assert not symbolic._rebuilds(sc, sel.model, [own])


def test_workers_answer_the_same_whatever_their_number() -> None:
    sel = runner.select(BENCH, bounds=SMALL)
    model, sc = sel.model, sel.scenario
    one = check_properties(model, BENCH.properties, timeout_s=20, jobs=1, scenario=sc)
    two = check_properties(model, BENCH.properties, timeout_s=20, jobs=2, scenario=sc)
    assert comparable(one) == comparable(two)
    here = check_properties(model, BENCH.properties, timeout_s=20, jobs=0)
    assert [r.verdict for r in here] == [r.verdict for r in one]
    by_name = {r.name: r for r in one}
    assert by_name["no-deadlock"].verdict is Verdict.PROVED
    lasso = by_name["cleanup-terminates"]
    assert lasso.verdict is Verdict.VIOLATED and lasso.trace is not None
    assert lasso.trace.loop_start is not None and lasso.trace.exits is not None


def _check_while_killing(
    pick: Callable[[], int | None], jobs: int
) -> tuple[list[Any], dict[str, Verdict], list[int]]:
    """The bench's properties checked with ``jobs`` workers while a thread kills, with
    SIGKILL, the first process ``pick()`` names; the results, the verdicts when nothing is
    killed, and the process killed."""
    import os
    import signal
    import threading
    import time

    sel = runner.select(BENCH, bounds=SMALL)
    model, sc = sel.model, sel.scenario
    want = {
        r.name: r.verdict for r in check_properties(model, BENCH.properties, jobs=1, scenario=sc)
    }
    killed: list[int] = []
    stop = threading.Event()

    def kill_the_first() -> None:
        while not stop.is_set() and not killed:
            pid = pick()
            if pid is not None:
                os.kill(pid, signal.SIGKILL)
                killed.append(pid)
                return
            time.sleep(0.01)

    killer = threading.Thread(target=kill_the_first)
    killer.start()
    try:
        got = check_properties(model, BENCH.properties, jobs=jobs, scenario=sc)
    finally:
        stop.set()
        killer.join()
    return got, want, killed


def _only_the_killed_task_is_lost(got: list[Any], want: dict[str, Verdict]) -> None:
    for r in got:
        if r.verdict is Verdict.UNKNOWN:
            assert r.reason == "its worker process was killed by SIGKILL (out of memory?)"
        else:
            assert r.verdict is want[r.name], r.name


def test_a_killed_worker_loses_its_own_task_only() -> None:
    """A worker killed by SIGKILL (the out-of-memory killer's signal) makes its property
    UNKNOWN, saying so (or, for the bounds task, leaves which bounds cut undecided); every
    other property keeps the verdict it gets when nothing is killed."""
    import os
    import time

    from procs import alive, children

    def first_worker() -> int | None:
        for pid in children(os.getpid()):
            try:
                cmd = open(f"/proc/{pid}/cmdline", "rb").read()
            except OSError:
                continue
            if b"turnproof.checks.workers" in cmd and alive(pid):
                time.sleep(0.3)  # past its start, in its task
                return pid
        return None

    got, want, killed = _check_while_killing(first_worker, jobs=2)
    assert killed
    lost = [r for r in got if "was killed by SIGKILL (out of memory?)" in r.reason]
    assert lost, [r.reason for r in got]
    _only_the_killed_task_is_lost(got, want)
    assert not [c for c in children(os.getpid()) if alive(c)]


@pytest.mark.skipif(not workers.can_fork(), reason="fork servers are used on Linux only")
def test_a_fork_servers_children_answer_as_fresh_interpreters(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A task forked from a fork server (which built the scenario, compiled the rules and built
    the shared Z3 formulas) gives the answer a fresh interpreter gives: verdicts, traces,
    certificates, bounds reached."""
    sel = runner.select(BENCH, bounds=SMALL)
    model, sc = sel.model, sel.scenario
    forked = check_properties(model, BENCH.properties, timeout_s=20, jobs=2, scenario=sc)
    monkeypatch.setattr(workers, "can_fork", lambda: False)
    fresh = check_properties(model, BENCH.properties, timeout_s=20, jobs=2, scenario=sc)
    assert comparable(forked) == comparable(fresh)
    assert {r.name: r.verdict for r in forked} == {
        "no-deadlock": Verdict.PROVED,
        "cleanup-terminates": Verdict.VIOLATED,
    }
    lasso = forked[[r.name for r in forked].index("cleanup-terminates")]
    assert lasso.trace is not None and lasso.trace.loop_start is not None


@pytest.mark.skipif(not workers.can_fork(), reason="fork servers are used on Linux only")
def test_a_killed_task_of_a_fork_server_is_lost_and_the_server_goes_on() -> None:
    """The child a fork server forked for a task, killed by SIGKILL: that task is UNKNOWN with
    the signal's name, and the same server runs the next tasks."""
    import os

    from procs import alive, children

    servers: set[int] = set()

    def first_task() -> int | None:
        for server in children(os.getpid()):
            servers.add(server)
            for pid in children(server):
                if alive(pid):
                    return pid
        return None

    got, want, killed = _check_while_killing(first_task, jobs=1)
    assert killed and len(servers) == 1, "one server, which outlived its killed task"
    assert len([r for r in got if r.verdict is Verdict.UNKNOWN]) <= 1
    _only_the_killed_task_is_lost(got, want)
    assert not [c for c in children(os.getpid()) if alive(c)]


def _never_reached(s: Any, x: Any, b: Any, m: Any) -> Any:
    return s.turn > b.turns  # outside the domain: no state satisfies it


def test_a_reached_antecedent_is_not_searched_again() -> None:
    prop = always(
        "turn-in-range",
        "the turn counter stays in range",
        lambda s, x, b, m: s.turn <= b.turns,
        antecedent=_never_reached,
    )
    model = Model(BENCH, SMALL)
    (searched,) = check_properties(model, [prop], timeout_s=20, jobs=0)
    assert searched.verdict is Verdict.PROVED and searched.vacuous
    assert searched.reason.startswith("vacuous")
    (handed,) = check_properties(
        model, [prop], timeout_s=20, jobs=0, antecedents_reached={"turn-in-range"}
    )
    assert handed.verdict is Verdict.PROVED and not handed.vacuous and handed.reason == ""


def test_an_antecedent_beyond_the_bmc_depth_is_reached_by_a_checked_explicit_path() -> None:
    """The bench model's default bounds (5,017 states) are beyond the small-model path: the
    antecedent, two extra cleanups in the last turn, is out of a 3-step BMC's reach, so the
    explicit engine's first path to it is checked against the transition formula instead."""
    prop = always(
        "cl-in-range",
        "the extra-cleanup counter stays in range",
        lambda s, x, b, m: s.cl <= b.cmax,
        antecedent=lambda s, x, b, m: x.And(s.turn == b.turns - 1, s.cl == b.cmax),
    )
    model = Model(BENCH, {})
    ex = explore(model, stop=lambda s: s.turn == 2 and s.cl == 2)
    assert ex.hit is not None and not ex.complete and ex.depth(ex.hit) > 3
    assert all(not (ex.state(i).turn == 2 and ex.state(i).cl == 2) for i in range(ex.hit))
    (r,) = check_properties(model, [prop], timeout_s=20, max_depth=3, jobs=0)
    assert r.verdict is Verdict.PROVED and not r.vacuous and not r.vacuity_undecided
    assert r.reason == ""


def test_the_runner_hands_over_the_antecedents_the_explicit_engine_reached() -> None:
    reachable_antecedent = always(
        "cl-in-range",
        "the extra-cleanup counter stays in range",
        lambda s, x, b, m: s.cl <= b.cmax,
        antecedent=lambda s, x, b, m: s.cl == b.cmax,
    )
    vacuous = always(
        "turn-in-range",
        "the turn counter stays in range",
        lambda s, x, b, m: s.turn <= b.turns,
        antecedent=_never_reached,
    )
    props = [reachable_antecedent, vacuous, *BENCH.properties]
    results = explicit.check_properties(Model(BENCH, SMALL), props)
    assert runner.antecedents_reached(props, results) == {"cl-in-range"}


def test_bounds_reached_are_reported_with_their_depth() -> None:
    bounds = {"turns": 1, "stack": 1, "hand0": 7, "hand_cap": 8}
    cards = [("pump", None), ("shock", None), ("brace", None), ("sundial-of-the-infinite", None)]
    model = Model(compose_magic(cards), bounds)
    ex = explore(model)
    assert set(ex.bound_cuts) == {"stack"}
    shallowest = min(ex.depth(i) for i in ex.cut_nodes)
    # Half the time limit is the search's, which reaches the stack's cut in a few seconds at
    # load 1; the rest is Spacer's, on the bounds it leaves undecided (and spends it all).
    # 20 s was too little at load 6; 60 s cost the tier 20 s more for nothing it asserts.
    outcome = bounds_task(model, timeout_s=40, max_depth=20)
    assert outcome.reached == {"stack": shallowest} == ex.first_cuts()
    assert "stack" not in outcome.undecided + outcome.unreached
    assert set(outcome.undecided) <= {"damage", "effects", "hand_cap", "waiting"}
    if outcome.undecided:
        assert outcome.reason


#: Models where several bounds cut, each first at a different depth.
SEVERAL_CUTS = (
    (
        "magic",
        {"turns": 1, "stack": 1, "hand0": 7, "hand_cap": 8, "effects": 1, "damage": 1},
        {"damage": 8, "effects": 33, "stack": 7},
    ),
    (
        "riftbound",
        {"chain": 2, "waiting": 1, "damage": 2},
        {"chain": 21, "damage": 16, "waiting": 11},
    ),
)


def _model_of(name: str, bounds: dict[str, int]) -> Model:
    cards = [("pump", None), ("shock", None), ("brace", None), ("sundial-of-the-infinite", None)]
    return Model(compose_magic(cards) if name == "magic" else RIFTBOUND, bounds)


@pytest.mark.parametrize(("name", "bounds", "expected"), SEVERAL_CUTS)
def test_a_complete_search_places_each_bound_at_its_shallowest_cut(
    name: str, bounds: dict[str, int], expected: dict[str, int]
) -> None:
    """Each bound that cuts, at the depth of the shallowest state where it does: the same as
    running every rule instance in every reachable state, with the depths measured apart, by
    networkx from the initial states; the same again on a product with monitors."""
    import networkx as nx

    model = _model_of(name, bounds)
    ex = explore(model)
    assert ex.complete
    g = ex.to_networkx()
    depth = nx.multi_source_dijkstra_path_length(g, set(range(ex.n_initial)), weight=lambda *_: 1)
    every: dict[str, int] = {}
    for i in range(ex.states):
        for _, _, bound in symbolic.concrete_moves(model, ex.state(i)):
            if bound is not None and not model.is_terminal(ex.state(i), ConcreteOps()):
                every[bound] = min(every.get(bound, depth[i]), depth[i])
    assert ex.first_cuts() == every == expected
    monitored = next(p for p in model.ruleset.properties if p.monitors)
    assert explore(model, tuple(monitored.monitors)).first_cuts() == expected


def test_the_bounds_question_is_not_asked_when_a_complete_search_answered_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Given the explicit engine's cuts (here in this process, and through the handover of the
    engines run side by side), the symbolic engine reports them and asks no question of its
    own: the bounded search would not have placed ``chain``, which is first cut at depth 21."""
    from turnproof.checks import proofs

    name, bounds, expected = SEVERAL_CUTS[1]
    model = _model_of(name, bounds)
    props = [p for p in model.ruleset.properties if p.name == "who-may-act-when-open"]

    def asked(*_: Any, **__: Any) -> None:
        raise AssertionError("the bounds question was asked")

    monkeypatch.setattr(proofs, "bounds_reached", asked)
    (alone,) = check_properties(model, props, jobs=0, max_depth=3, bounds_cut=expected)
    assert alone.verdict is Verdict.PROVED and alone.bounds_reached == expected
    report = runner.run_check(model, props, ("explicit", "symbolic"))
    by_engine = {r.engine: r for r in report.results}
    assert by_engine["symbolic"].verdict is Verdict.PROVED
    assert by_engine["symbolic"].bounds_reached == expected
    assert by_engine["explicit"].bounds_reached == {"chain": 24, "damage": 433, "waiting": 50}


def test_without_a_complete_search_the_bounds_question_is_asked(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """An explicit search stopped by its state limit answers nothing: the symbolic engine asks
    the question itself, once."""
    from turnproof.checks import proofs

    model = Model(BENCH, SMALL)
    props = list(BENCH.properties[:1])
    real, calls = proofs.bounds_reached, []

    def counted(*args: Any, **kw: Any) -> Any:
        calls.append(1)
        return real(*args, **kw)

    monkeypatch.setattr(proofs, "bounds_reached", counted)
    report = runner.run_check(model, props, ("explicit", "symbolic"), explicit.Limits(10))
    by_engine = {r.engine: r for r in report.results}
    assert by_engine["explicit"].verdict is Verdict.UNKNOWN
    assert by_engine["symbolic"].verdict is not Verdict.UNKNOWN
    assert calls == [1]


#: A sample of the default check's symbolic properties for the slow tier: those the assertions
#: below name, proved in seconds each. The deep tier's whole default check proves them all.
SAMPLE = (
    "apnap-order",
    "creature-damage-never-costs-loyalty",
    "eot-effects-end-before-next-turn",
    "active-player-gets-priority-first",
    "sundial-only-during-your-turn",
    # A chain (test_lemma_chains.py): the second is given the first's invariant as a lemma.
    "step-ends-after-all-pass",
    "resolves-after-all-pass",
)
#: The properties a loaded machine may leave UNKNOWN in the whole default check: the four the
#: control invariant proves only with a step of induction after it (about 100 s each cold,
#: with Spacer's share first), and the 180 s budget may run out before.
CLOSE_TO_THE_BUDGET = (
    "attacking-creature-taps",
    "only-an-untapped-creature-attacks",
    "attacks-a-planeswalker-only-if-there-is-one",
    "sarkhan-is-attacked-only-as-the-defenders-planeswalker",
)


def _default_check(property_names: tuple[str, ...] = (), may_be_unknown: Any = None) -> None:
    """The default ``turnproof check`` (both engines, the symbolic properties on worker
    processes), on every property or on ``property_names``. ``may_be_unknown``: the names whose
    symbolic verdict may be UNKNOWN (default: any, as a budget can run out on a loaded
    machine)."""
    sel = runner.select(MAGIC, property_names=property_names)
    report = runner.run_selection(sel, ("explicit", "symbolic"))
    assert [r for r in report.results if r.engine == "both"] == []  # no disagreement
    explicit_results = [r for r in report.results if r.engine == "explicit"]
    assert [r.name for r in explicit_results if not r.meets_expectation] == []
    assert explicit_results[0].states == 606_502  # pinned: a change in the model must be deliberate
    sym = {r.name: r for r in report.results if r.engine == "symbolic"}
    assert set(sym) == {p.name for p in sel.properties}
    for name in ("apnap-order", "creature-damage-never-costs-loyalty"):
        # The explicit engine reached the antecedent: no vacuity search, no budget spent on it.
        assert sym[name].verdict is Verdict.PROVED and not sym[name].vacuous
        assert "antecedent" not in sym[name].reason
    for r in sym.values():
        assert r.verdict is not Verdict.VIOLATED
        if r.verdict is Verdict.UNKNOWN:
            assert r.reason and r.certificate is None
            assert may_be_unknown is None or r.name in may_be_unknown, r.reason
        if r.verdict is Verdict.PROVED:
            assert r.certificate is not None and r.certificate["checked"]
            # Magic's properties quantify over turns, hand size, effects and actions: a proof
            # covers every value, and says so.
            assert set(r.for_all) == set(MAGIC.property(r.name).for_all)
    for r in sym.values():
        if r.verdict is Verdict.PROVED and r.certificate["method"].startswith("control invariant"):
            # a proof from the control invariant names the claims it used, all in the invariant
            assert set(r.certificate["used"]) <= set(r.certificate["invariant"])
            assert r.certificate["claims"] == len(r.certificate["invariant"])
    chained = sym["resolves-after-all-pass"]
    assert chained.verdict is Verdict.PROVED, chained.reason
    assert "step-ends-after-all-pass" in chained.certificate["lemmas"]
    eot = sym["eot-effects-end-before-next-turn"]  # "whatever the number of turns" (issue 3)
    assert eot.verdict is Verdict.PROVED and eot.for_all["turns"] == ">= 1"
    assert "every turns >= 1" in eot.holds_for and "turns=2" not in eot.holds_for
    assert report.exit_code == 0


@pytest.mark.slow
def test_magic_at_default_bounds_with_both_engines() -> None:
    _default_check(SAMPLE, may_be_unknown=())


@pytest.mark.deep
def test_the_whole_default_check() -> None:
    _default_check(may_be_unknown=CLOSE_TO_THE_BUDGET)


def test_a_turnproof_error_a_worker_finds_reaches_the_caller_as_itself() -> None:
    """A worker runs as ``python -m``: the error it sends back must be of a class the caller
    can unpickle (not one of ``__main__``), so that the caller raises the worker's message."""
    from turnproof.checks import workers
    from turnproof.model.errors import TurnproofError
    from turnproof.model.scenario import CardSpec, Scenario

    bad = Scenario("bad", "magic", cards=(CardSpec("No Such Card", 0),))
    with pytest.raises(TurnproofError, match="No Such Card"):
        workers.run_tasks([workers.Task(bad, "no-deadlock", 5.0, 5)], 1)


@pytest.mark.parametrize("complete", [True, False])
def test_started_beside_the_explicit_engine_the_answers_are_those_of_one_after_the_other(
    monkeypatch: pytest.MonkeyPatch, complete: bool
) -> None:
    """The symbolic engine started before the explicit engine's findings are handed over: here
    every task has finished before they are, so each ran without them; one whose own search
    found no trace and asked for the explicit engine's is checked again with it. The results
    are those of handing the findings over first. The question which bounds cut waits for
    the handover: a complete explicit search answers it, else it is asked then."""
    import threading

    sel = runner.select(BENCH, bounds=SMALL)
    model, sc, props = sel.model, sel.scenario, list(BENCH.properties)
    found = explicit.check_properties(model, props)
    reached = runner.antecedents_reached(props, found)
    guides = runner.explicit_traces(found)
    assert guides.get("cleanup-terminates")
    after = check_properties(
        model, props, max_depth=2, jobs=2, scenario=sc, antecedents_reached=reached, guides=guides
    )

    submitted: list[Any] = []
    real_submit = workers.Pool.submit

    def submit(self: Any, task: Any, *, first: bool = False) -> Any:
        future = real_submit(self, task, first=first)
        submitted.append(future)
        return future

    monkeypatch.setattr(workers.Pool, "submit", submit)
    handover = workers.Handover()

    def hand_over_once_all_ran() -> None:
        while len(submitted) < len(props) or not all(f.done() for f in submitted):
            threading.Event().wait(0.02)
        handover.give(reached, guides, explore(model).first_cuts() if complete else None)

    giver = threading.Thread(target=hand_over_once_all_ran)
    giver.start()
    beside = check_properties(model, props, max_depth=2, jobs=2, scenario=sc, handover=handover)
    giver.join()
    early = [f.result() for f in submitted[: len(props)]]
    assert all(isinstance(a, workers.Early) for a in early), "all ran before the handover"
    # Each is checked again only if it asked for a guide that there is.
    again = [a for a in early if a.guide_asked and guides.get(a.result.name)]
    assert len(submitted) == len(props) + (not complete) + len(again)
    assert comparable(beside) == comparable(after)
    lasso = beside[[r.name for r in beside].index("cleanup-terminates")]
    assert lasso.verdict is Verdict.VIOLATED and lasso.trace is not None


@pytest.mark.skipif(not workers.can_fork(), reason="fork servers are used on Linux only")
def test_a_fork_server_forks_with_one_thread_only() -> None:
    """A fork server has imported numpy and Z3 and built the shared formulas, and still runs
    one thread when it forks (a thread would be missing in its children, with any lock it
    held)."""
    import os

    sel = runner.select(MAGIC, bounds={"turns": 1})
    server = workers.ForkServer(sel.scenario)
    try:
        first = server.run(workers.Task(sel.scenario, "lethal-damage-destroys", 60.0, 10))
        assert first.verdict is Verdict.PROVED
        assert server.proc is not None
        assert len(os.listdir(f"/proc/{server.proc.pid}/task")) == 1
    finally:
        server.close()


def test_a_task_submitted_first_starts_before_those_waiting() -> None:
    """Tasks start in the order they were submitted, but one submitted ``first`` (a stage two
    that others wait for) starts before those not started yet. Each task here is a function
    that makes it, called when it starts; it records the order and fails, so no process is
    started, and each answer is that failure."""
    started: list[str] = []
    hold = threading.Event()

    def making(name: str) -> Callable[[], Any]:
        def make() -> Any:
            started.append(name)
            if name == "a":
                hold.wait(10)
            raise ValueError(name)

        return make

    pool = workers.Pool(1)
    try:
        answers = {"a": pool.submit(making("a"))}
        while not started:
            time.sleep(0.01)
        for name in ("b", "c"):
            answers[name] = pool.submit(making(name))
        answers["d"] = pool.submit(making("d"), first=True)
        hold.set()
        for name, f in answers.items():
            with pytest.raises(ValueError, match=name):
                f.result(timeout=10)
    finally:
        pool.close()
    assert started == ["a", "d", "b", "c"]


def test_an_interrupt_cancels_the_tasks_not_started() -> None:
    hold = threading.Event()

    def first() -> Any:
        hold.wait(10)
        raise ValueError("a")

    pool = workers.Pool(1)
    running = pool.submit(first)
    waiting = [pool.submit(first), pool.submit(first, first=True)]
    pool.interrupt()
    hold.set()
    pool.close()
    assert all(f.cancelled() for f in waiting)
    with pytest.raises(ValueError):
        running.result(timeout=10)
