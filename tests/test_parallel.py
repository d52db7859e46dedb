"""Parallel explicit exploration: worker processes expand the nodes, and every result is the
one-process search's (states, ids, edges, parents, cuts, limits, errors, traces, verdicts).

Each model here goes parallel after its first ``FROM`` states (``parallel_from``), far below
the default, so that the searches stay short and the workers do most of the expanding.
"""

from __future__ import annotations

import json
import os
import signal
from typing import Any

import jsonschema
import pytest
from click.testing import CliRunner
from procs import HAS_PROC, alive, children
from turnproof.checks.explicit import (
    PROGRESS_EVERY,
    Exploration,
    Limits,
    check_properties,
    explore,
    trace_to,
)
from turnproof.checks.results import SearchProcesses
from turnproof.model.bench import BENCH, CONFIGS
from turnproof.model.errors import ModelError
from turnproof.model.magic import MAGIC
from turnproof.model.riftbound import RIFTBOUND
from turnproof.model.rules import BoundSpec, Model, RuleSet, rule
from turnproof.model.schema import IntRange, Schema, State
from turnproof.reports.json_report import SCHEMA_FILE
from turnproof.scenarios import cli

FROM = 2_000

BENCH_MID = Model(BENCH, {"turns": 2, "cap": 6, "budget": 4, "cmax": 2})  # 50,201 states


def no_workers_left() -> bool:
    """No child of this process is alive (a zombie has exited)."""
    return not HAS_PROC or not [c for c in children(os.getpid()) if alive(c)]


def ending(ex: Exploration) -> tuple[Any, ...]:
    return ex.n_initial, ex.expanded, ex.complete, ex.stop_reason


def both(model: Model, monitors: tuple[Any, ...] = (), **kw: Any) -> tuple[Exploration, ...]:
    """The model explored in one process and with two workers; asserts they are the same."""
    one = explore(model, monitors, compact=True, **kw)
    two = explore(model, monitors, compact=True, workers=2, parallel_from=FROM, **kw)
    assert one.worker_processes == 0
    assert (one.states, list(one.iter_nodes())) == (two.states, list(two.iter_nodes()))
    assert (two.src, two.dst, two.act, two.parent) == (one.src, one.dst, one.act, one.parent)
    assert (two.bound_cuts, two.cut_nodes) == (one.bound_cuts, one.cut_nodes)
    assert ending(two) == ending(one)
    for i in (0, one.states // 3, one.states - 1):
        assert trace_to(two, i) == trace_to(one, i)
    assert no_workers_left()
    return one, two


def monitors_of(model: Model) -> tuple[Any, ...]:
    return tuple({m.name: m for p in model.ruleset.properties for m in p.monitors}.values())


def test_a_bench_config_explores_alike_with_two_workers() -> None:
    progress: dict[int, list[tuple[int, int, int]]] = {1: [], 2: []}
    one = explore(BENCH_MID, compact=True, progress=lambda *a: progress[1].append(a))
    two = explore(
        BENCH_MID,
        compact=True,
        workers=2,
        parallel_from=FROM,
        progress=lambda *a: progress[2].append(a),
    )
    assert two.worker_processes == 2 and two.sequential_because == ""
    assert one.states == two.states == 50_201 and two.complete
    assert two.nodes == one.nodes
    assert (two.src, two.dst, two.act, two.parent) == (one.src, one.dst, one.act, one.parent)
    assert (two.bound_cuts, two.cut_nodes) == (one.bound_cuts, one.cut_nodes)
    # Progress is reported at the same points, with the same counts.
    assert progress[2] == progress[1] and len(progress[1]) > 10
    assert no_workers_left()


def test_the_magic_model_explores_alike_with_two_workers() -> None:
    one, two = both(Model(MAGIC, {"turns": 1}))
    assert two.worker_processes == 2 and one.states == 30_819
    assert two.bound_cuts == {"stack": 48}  # cuts at the stack's bound, met by the workers


def test_a_riftbound_model_explores_alike_with_two_workers() -> None:
    one, two = both(Model(RIFTBOUND, {"turns": 1}))
    assert two.worker_processes == 2 and one.states > FROM * 4
    assert two.bound_cuts == {"chain": 72}


def test_a_product_with_monitors_explores_alike_with_two_workers() -> None:
    model = Model(MAGIC, {"turns": 1})
    monitors = monitors_of(model)
    assert monitors
    one, two = both(model, monitors)
    assert two.worker_processes == 2
    for i in range(0, one.states, 997):
        assert two.monitor_values(i) == one.monitor_values(i)
        assert type(two.monitor_values(i)) is type(one.monitor_values(i))


@pytest.mark.parametrize("cap", [9_000, 3 * PROGRESS_EVERY + 1, 20_001, 33_333, 50_200])
def test_a_state_limit_stops_both_at_the_same_edge(cap: int) -> None:
    one, two = both(BENCH_MID, limits=Limits(max_states=cap))
    assert two.states == cap and not two.complete and two.worker_processes == 2


def test_a_time_limit_stops_the_workers() -> None:
    ex = explore(
        Model(BENCH, CONFIGS["mid"][0]),
        compact=True,
        workers=2,
        parallel_from=FROM,
        limits=Limits(max_seconds=0.5),
    )
    assert not ex.complete and ex.stop_reason == "time limit of 0.5 s reached"
    assert ex.worker_processes == 2 and ex.expanded % PROGRESS_EVERY == 0
    assert no_workers_left()


def test_verdicts_and_traces_are_the_same_with_two_workers(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import turnproof.checks.explicit as explicit

    model = Model(MAGIC, {"turns": 1})
    props = list(model.ruleset.properties)
    assert any(p.monitors for p in props) and any(not p.monitors for p in props)
    plain = explicit.explore
    seen: list[Exploration] = []

    def low(*a: Any, **k: Any) -> Exploration:
        ex = plain(*a, **k, parallel_from=FROM)
        seen.append(ex)
        return ex

    monkeypatch.setattr(explicit, "explore", low)
    one = check_properties(model, props)
    two = check_properties(model, props, workers=2)
    assert [(r.name, r.verdict, r.trace, r.states, r.reason) for r in two] == [
        (r.name, r.verdict, r.trace, r.states, r.reason) for r in one
    ]
    assert any(r.trace is not None for r in two)
    assert [ex.worker_processes for ex in seen] == [0, 0, 2, 2]  # plain, product; each twice
    assert no_workers_left()


# -- errors ----------------------------------------------------------------------------------


class _Grid(State):
    a: Any
    b: Any


def _grid(bad_at: tuple[int, int] | None, raise_at: tuple[int, int] | None = None) -> RuleSet:
    """Two counters, 0..199 each, either one stepping up; at ``bad_at`` a rule gives ``b`` a
    value outside its domain (no x.within); at ``raise_at`` a rule divides by zero."""

    @rule("G 1", "step a")
    def step_a(s: Any, x: Any, b: Any) -> Any:
        x.require(s.a < 199)
        return s.replace(a=s.a + 1)

    @rule("G 2", "step b")
    def step_b(s: Any, x: Any, b: Any) -> Any:
        x.require(s.b < 199)
        return s.replace(b=s.b + 1)

    @rule("G 3", "jump off the grid")
    def jump(s: Any, x: Any, b: Any) -> Any:
        where = bad_at or (-1, -1)
        x.require(x.And(s.a == where[0], s.b == where[1]))
        return s.replace(b=250)

    def divide(s: Any, x: Any, b: Any) -> Any:
        if raise_at is not None and (s.a, s.b) == raise_at:
            return s.replace(a=1 // 0)
        x.require(False)
        return s

    divide_rule = rule("G 4", "divide")(divide)
    return RuleSet(
        name="grid",
        game="G",
        version="1",
        description="a grid of two counters",
        rules=(step_a, step_b, jump, divide_rule),
        bound_specs=(BoundSpec("top", 1, 1, 1, "unused"),),
        schema=lambda b: Schema(_Grid, {"a": IntRange(0, 199), "b": IntRange(0, 199)}),
        initial=lambda b: [_Grid.make(a=0, b=0)],
        terminal=lambda s, x, b: False,
    )


def outcome(model: Model, **kw: Any) -> Any:
    """What exploring gives: the exploration's figures, or the error's type and message."""
    try:
        ex = explore(model, compact=True, **kw)
    except (ModelError, ZeroDivisionError) as exc:
        return type(exc).__name__, str(exc)
    return ex.states, ex.expanded, ex.complete, ex.stop_reason, tuple(ex.src), tuple(ex.dst)


def test_a_rule_that_leaves_its_domain_raises_alike_in_a_worker() -> None:
    model = Model(_grid(bad_at=(120, 30)))  # its node is numbered near 12,000
    with pytest.raises(ModelError) as one:
        explore(model, compact=True)
    with pytest.raises(ModelError) as two:
        explore(model, compact=True, workers=2, parallel_from=FROM)
    assert str(two.value) == str(one.value) and "gives b=250" in str(two.value)
    assert no_workers_left()


def test_state_limits_around_a_domain_error_stop_or_raise_alike() -> None:
    """The one-process search expands a whole batch before it commits any of it: a successor
    out of its domain raises even when the state limit falls earlier in the same batch, and
    does not when the limit falls in an earlier batch."""
    model = Model(_grid(bad_at=(120, 30)))
    with pytest.raises(ModelError):
        explore(model, compact=True)
    caps = [11_000, 11_900, 12_100, 12_300, 12_500, 13_000, 14_000]
    seen = set()
    for cap in caps:
        one = outcome(model, limits=Limits(max_states=cap))
        two = outcome(model, limits=Limits(max_states=cap), workers=2, parallel_from=FROM)
        assert two == one, cap
        seen.add(one[0] == "ModelError")
    assert seen == {True, False}  # some limits come before the error, others do not
    assert no_workers_left()


def test_an_error_a_rule_raises_in_a_worker_is_raised_alike() -> None:
    model = Model(_grid(bad_at=None, raise_at=(100, 20)), {"top": 1})
    one = outcome(model)
    two = outcome(model, workers=2, parallel_from=FROM)
    assert two == one and one[0] == "ZeroDivisionError"
    assert no_workers_left()


@pytest.mark.parametrize("kill", [1, 2])
def test_a_worker_that_dies_loses_nothing(kill: int) -> None:
    """A worker killed by SIGKILL (as the out-of-memory killer does) is noticed at the end of
    its pipe, never waited for: this process expands its units from their codes, and the
    search ends with the same graph as one without loss, saying which worker was lost. With
    both killed, this process does all the rest itself."""
    killed: list[int] = []

    def kill_some(expanded: int, found: int, edges: int) -> None:
        live = sorted(c for c in children(os.getpid()) if alive(c))
        if expanded >= 3 * PROGRESS_EVERY and len(live) == 2 and not killed:
            for pid in live[:kill]:
                os.kill(pid, signal.SIGKILL)
                killed.append(pid)

    one = explore(BENCH_MID, compact=True)
    two = explore(BENCH_MID, compact=True, workers=2, parallel_from=FROM, progress=kill_some)
    assert len(killed) == kill
    assert len(two.workers_lost) == kill
    assert all(
        "was killed by SIGKILL" in w and "this process expanded" in w for w in two.workers_lost
    )
    assert (one.states, list(one.iter_nodes())) == (two.states, list(two.iter_nodes()))
    assert (two.src, two.dst, two.act, two.parent) == (one.src, one.dst, one.act, one.parent)
    assert ending(two) == ending(one)
    assert no_workers_left()


def test_an_interrupt_stops_the_workers() -> None:
    def interrupt(expanded: int, found: int, edges: int) -> None:
        if expanded >= 2 * PROGRESS_EVERY:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        explore(BENCH_MID, compact=True, workers=2, parallel_from=FROM, progress=interrupt)
    assert no_workers_left()


# -- when the search stays in one process ----------------------------------------------------


def test_a_small_model_starts_no_process_and_says_why() -> None:
    ex = explore(Model(BENCH, CONFIGS["base"][0]), workers=2)  # 5,017 states
    assert ex.worker_processes == 0 and ex.complete
    assert ex.sequential_because == "fewer than 8,192 states: too few to share out"
    assert no_workers_left()


def test_the_tuple_path_and_a_stop_predicate_stay_in_one_process() -> None:
    model = Model(BENCH, CONFIGS["base"][0])
    tuples = explore(model, compact=False, workers=2, parallel_from=10)
    assert tuples.worker_processes == 0
    assert tuples.sequential_because == "the tuple way (compact=False) runs in one process"
    stopped = explore(model, stop=lambda n: n.turn == 2, workers=2, parallel_from=10)
    assert stopped.hit is not None and stopped.worker_processes == 0
    assert stopped.sequential_because == "a search with stop runs in one process"
    assert explore(model).sequential_because == ""  # one worker asked for, none to explain


def test_by_default_two_workers_take_over_past_parallel_from() -> None:
    """With ``compact=None`` the tuple way goes only up to ``parallel_from`` states; then the
    compact search starts again with the workers, and gives the tuple search's graph."""
    tuples = explore(BENCH_MID, compact=False)
    auto = explore(BENCH_MID, workers=2, parallel_from=FROM)
    assert auto.worker_processes == 2 and auto.nodes == tuples.nodes
    assert (auto.src, auto.dst, auto.act, auto.parent) == (
        tuples.src,
        tuples.dst,
        tuples.act,
        tuples.parent,
    )


@pytest.mark.parametrize("bad", [0, -1, 1.5, True, "2"])
def test_explore_refuses_a_bad_number_of_workers(bad: Any) -> None:
    with pytest.raises(ValueError, match="workers must be a whole number of at least 1"):
        explore(Model(BENCH, CONFIGS["base"][0]), workers=bad)


# -- the command line --------------------------------------------------------------------------


@pytest.mark.parametrize("bad", ["0", "-1", "x", "2.0", "+2", " 2", "\u0662", "", "65"])
def test_explore_workers_must_be_a_whole_number_in_ascii_digits(bad: str) -> None:
    done = CliRunner().invoke(
        cli.cli, ["check", "bench", "--engine", "explicit", "--explore-workers", bad]
    )
    assert done.exit_code == 2
    assert done.stderr == (
        f"turnproof: error: Invalid value for '--explore-workers': {bad!r} is not a number of "
        "workers: expected a whole number from 1 to 64, in digits 0-9 (1 explores in this "
        "process)\n"
    )


def test_the_search_processes_say_who_expanded_the_states() -> None:
    assert SearchProcesses(10, 1, 0).text() == "in this process"
    assert SearchProcesses(10**6, 2, 2).text() == "2 worker processes expanded the states"
    assert SearchProcesses(10, 3, 0, "it stopped before workers could take over").text() == (
        "in this process, though 3 were asked for: it stopped before workers could take over"
    )


def test_check_with_two_workers_gives_the_same_report() -> None:
    args = ["check", "bench", "--engine", "explicit", "--format", "json", "--no-progress"]
    one = CliRunner().invoke(cli.cli, args)
    two = CliRunner().invoke(cli.cli, [*args, "--explore-workers", "2"])
    assert one.exit_code == two.exit_code == 0, two.output

    def verdicts(out: str) -> list[tuple[Any, ...]]:
        doc = json.loads(out)
        return [(r["name"], r["verdict"], r["states"], r.get("trace")) for r in doc["properties"]]

    assert verdicts(two.stdout) == verdicts(one.stdout)
    # The report says how the search was shared out, and why it stayed in one process here.
    searches = json.loads(two.stdout)["explicit_searches"]
    assert searches == [
        {
            "states": 5_017,
            "workers": 2,
            "worker_processes": 0,
            "sequential_because": "fewer than 8,192 states: too few to share out",
            "workers_lost": [],
        }
    ]
    assert "explicit_searches" not in json.loads(one.stdout)
    jsonschema.validate(json.loads(two.stdout), json.loads(SCHEMA_FILE.read_text("utf-8")))
    text = CliRunner().invoke(cli.cli, [*args[:-3], "--explore-workers", "2"]).stdout
    assert (
        "explicit search: in this process, though 2 were asked for: fewer than 8,192 states: "
        "too few to share out\n"
    ) in text
    help_text = " ".join(CliRunner().invoke(cli.cli, ["check", "--help"]).stdout.split())
    assert "--explore-workers N" in help_text and "identical whatever N is" in help_text
    assert "--explore-workers" in CliRunner().invoke(cli.cli, ["explore", "--help"]).stdout


@pytest.mark.deep  # a minute; the fast tier compares a smaller Magic model
def test_the_default_magic_model_explores_alike_with_two_workers() -> None:
    from turnproof.scenarios.bench import MAGIC_COUNTS, model_for

    one, two = both(model_for("magic"))
    assert (one.states, one.transitions) == MAGIC_COUNTS and two.worker_processes == 2


@pytest.mark.skipif(not HAS_PROC, reason="needs Linux's /proc")
def test_no_exploring_worker_outlives_a_command_killed_by_sigkill() -> None:
    import subprocess
    import sys
    import time

    proc = subprocess.Popen(
        [sys.executable, "-m", "turnproof.scenarios", "check", "bench", "--engine", "explicit",
         "--bound", "turns=20", "--bound", "cap=8", "--bound", "budget=6", "--explore-workers",
         "2", "--format", "json", "--no-progress"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 120
        kids: set[int] = set()
        while len(kids) < 2 and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.05)
            kids = children(proc.pid)
        assert len(kids) == 2, "both workers started"
        proc.kill()
        proc.wait(timeout=30)
        deadline = time.monotonic() + 30
        while any(alive(k) for k in kids) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not [k for k in kids if alive(k)], "no worker outlives the command"
    finally:
        if proc.poll() is None:
            proc.kill()
