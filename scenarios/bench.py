"""The turn-loop benchmark: the shared model as a turnproof rule set, measured against SPIN and
Rumur in one run.

The benchmark model (``shared/bench/README.md``) is written once as the rule set
:data:`turnproof.model.bench.BENCH` and, by the benchmark's generator ``gen_peers.py``, in Promela
and Murphi. All three must reach the same number of distinct states; this module explores each
configuration with every tool, checks that the counts agree with each other and with the
reference counts in :data:`turnproof.model.bench.CONFIGS`, and reports rates side by side.

What is timed, and why:

* turnproof: the call to ``explore()`` only, in a fresh interpreter per repeat, so that one
  repeat's heap cannot warm or bloat the next. Interpreter start-up, imports and building the
  model are left out; they are the counterpart of the peers' compilation.
* SPIN and Rumur: the wall time of the compiled checker binary only, measured around that process
  by this module; generating the model and compiling it are left out (and reported apart).
* CPU time (user + system) of the same span is reported next to wall time: the cores may be
  shared with other work, which stretches wall time but hardly CPU time, so the CPU-time ratios
  are the steadier comparison on a busy machine.
* Peak memory: the maximum resident set size of the measured process alone, from GNU
  ``/usr/bin/time`` (see :func:`run_measured` for why not ``RUSAGE_CHILDREN`` or a bare
  ``wait4``), so each repeat is measured on its own and the C compiler's memory never counts.
  turnproof's figure includes the interpreter and its imports.

TLC is not installable on the machines this runs on. The benchmark README measured TLC with one
worker at about SPIN's rate / 64 on this model, so the *TLC-parity* figure is SPIN's rate from the
same run divided by :data:`TLC_PARITY_DIVISOR`.

Counting conventions: turnproof and Rumur count transitions between states; SPIN counts one more,
the storing of the initial state (``transitions (= stored+matched)``). ``edges`` in the results is
the count between states for every tool, so the three can be compared directly.

The default Magic model (what ``turnproof check`` checks) can be explored the same way, by the
name :data:`MAGIC` instead of a configuration: ``run_turnproof(MAGIC, compiled=False)`` times its
interpreted path. :mod:`turnproof.scenarios.targets` reads the performance targets off these figures.

Library code: nothing here prints. ``benchmarks/turn_loop.py`` and ``turnproof bench`` are the
command-line front ends.
"""

from __future__ import annotations

import functools
import json
import os
import platform
import re
import resource
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from turnproof.checks.explicit import explore
from turnproof.model.bench import BENCH, CONFIGS
from turnproof.model.errors import TurnproofError, UnknownNameError
from turnproof.model.rules import Model

#: TLC with one worker explores this model at about SPIN's rate divided by this (bench README).
TLC_PARITY_DIVISOR = 64

#: The default Magic model, as ``turnproof check`` checks it, by the name this module measures it
#: under (beside the benchmark's configurations).
MAGIC = "magic"

#: Its distinct states and transitions (explored without monitors); pinned in the tests too
#: (``tests/test_symbolic_workers.py``): a change in the model must be deliberate.
MAGIC_COUNTS = (606_502, 687_501)

#: The peer model checkers this module can run, by the names the command line uses.
PEERS = ("spin", "rumur")

#: A folder holding ``gen_peers.py``; overrides the default location next to the project.
GEN_ENV = "TURNPROOF_BENCH_DIR"
GEN_NAME = "gen_peers.py"

#: Median runs shorter than this measure start-up (hash-table allocation, exec) more than search.
SHORT_RUN_SECONDS = 0.05

#: Seconds allowed for generating or compiling a peer model (``timeout`` is for the runs).
BUILD_TIMEOUT = 600.0

_MIB = 1024.0  # ru_maxrss is in KiB on Linux

# The child interpreter of a turnproof repeat: explore, then hand the figures back as JSON.
_CHILD = (
    "import json, sys\n"
    "from turnproof.scenarios.bench import explore_config\n"
    "json.dump(explore_config(sys.argv[1], **json.loads(sys.argv[2])), sys.stdout)\n"
)

Progress = Callable[[str], None]
"""``progress(message)``: told what is about to run (a tool, a config, a repeat)."""


# -- configurations and the generator ----------------------------------------------------------


def split_names(text: str) -> list[str]:
    """A comma-separated list of names, as the command lines take them; empty or ``none``
    gives no names."""
    if text.strip().lower() in ("", "none"):
        return []
    return [part.strip() for part in text.split(",") if part.strip()]


def config_bounds(config_name: str) -> dict[str, int]:
    """The bounds of a benchmark configuration (``base``, ``mid``, ``L``, ``XL``)."""
    if config_name not in CONFIGS:
        raise UnknownNameError("benchmark config", config_name, CONFIGS)
    return dict(CONFIGS[config_name][0])


def reference_counts(config_name: str) -> tuple[int, int]:
    """The README's distinct states and edges between states (SPIN's transitions minus one);
    for :data:`MAGIC`, :data:`MAGIC_COUNTS`."""
    if config_name == MAGIC:
        return MAGIC_COUNTS
    config_bounds(config_name)
    _, states, spin_transitions = CONFIGS[config_name]
    return states, spin_transitions - 1


def model_for(name: str) -> Model:
    """The model measured under ``name``: ``BENCH`` with a configuration's bounds, or the default
    Magic model (:data:`MAGIC`: the rule set, bounds and start ``turnproof check`` uses)."""
    if name == MAGIC:
        # Imported here: the benchmark's children need none of the rule sets' machinery.
        from turnproof.checks.runner import select
        from turnproof.model.registry import builtin_rulesets

        return select(builtin_rulesets()[MAGIC]).model
    return Model(BENCH, config_bounds(name))


def _check_name(name: str) -> None:
    if name != MAGIC and name not in CONFIGS:
        raise UnknownNameError("benchmark model", name, [*CONFIGS, MAGIC])


def find_generator(gen_path: str | Path | None = None) -> tuple[Path, str]:
    """Where ``gen_peers.py`` should be, and what said so: ``gen_path`` (the script or its
    folder), else the folder in ``$TURNPROOF_BENCH_DIR``, else ``../shared/bench`` next to the
    project root. The path may not exist; the peer runners report that."""
    if gen_path is not None and str(gen_path) != "":
        path, source = Path(gen_path), "the given path"
    elif os.environ.get(GEN_ENV):
        path, source = Path(os.environ[GEN_ENV]), f"${GEN_ENV}"
    else:
        root = Path(__file__).resolve().parent.parent
        path, source = root.parent / "shared" / "bench", "the default ../shared/bench"
    if path.is_dir() or path.suffix != ".py":
        path = path / GEN_NAME
    return path, source


# -- running a process and measuring it ------------------------------------------------------------


@dataclass(frozen=True)
class Measured:
    """One finished process: exit code, output, wall time and peak resident set."""

    returncode: int
    stdout: str
    stderr: str
    wall_seconds: float
    cpu_seconds: float  # user + system time of the process and the children it reaped
    peak_rss_kib: int
    rss_method: str
    timed_out: bool


@functools.cache
def gnu_time() -> str | None:
    """``/usr/bin/time`` when it is GNU time (it takes ``-f`` and ``-o``), else ``None``."""
    path = "/usr/bin/time"
    if not os.access(path, os.X_OK):
        return None
    try:
        done = subprocess.run(
            [path, "-f", "%M", "-o", os.devnull, "true"], capture_output=True, timeout=30
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return path if done.returncode == 0 else None


def run_measured(
    cmd: Sequence[str],
    cwd: str | Path | None = None,
    timeout: float | None = None,
    env: Mapping[str, str] | None = None,
) -> Measured:
    """Run ``cmd`` (in the environment ``env``, by default this process's) and measure that
    process alone: wall time from start to exit, and its peak resident set.

    The peak comes from GNU ``/usr/bin/time`` when present. Reading ``ru_maxrss`` from
    ``os.wait4`` directly would be wrong for small processes: a child started from this (large)
    interpreter inherits the interpreter's resident set as its starting maximum, so a 2 MiB
    checker would show 35 MiB. ``time`` forks the command from a 1 MiB process. Without GNU time
    the ``wait4`` figure is used, and ``rss_method`` says it is a floor-bounded one.

    Output goes to temporary files, so a chatty process cannot block on a full pipe while we
    wait. On ``timeout`` the whole process group is killed.
    """
    timer_cmd = gnu_time()
    with (
        tempfile.TemporaryFile() as out,
        tempfile.TemporaryFile() as err,
        tempfile.NamedTemporaryFile(mode="r", suffix=".rss") as rss,
    ):
        argv = [timer_cmd, "-f", "%M", "-o", rss.name, *cmd] if timer_cmd else list(cmd)
        start = time.perf_counter()
        proc = subprocess.Popen(
            argv,
            cwd=cwd,
            env=None if env is None else dict(env),
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=err,
            start_new_session=True,
        )
        lock = threading.Lock()
        reaped = False
        killed = False

        def kill() -> None:
            nonlocal killed
            with lock:
                if not reaped:
                    killed = True
                    os.killpg(proc.pid, signal.SIGKILL)

        timer = threading.Timer(timeout, kill) if timeout is not None else None
        if timer is not None:
            timer.start()
        # Wait without reaping first: until it is reaped its pid (and process group id) cannot
        # be reused, so the timer can never signal another process.
        os.waitid(os.P_PID, proc.pid, os.WEXITED | os.WNOWAIT)
        wall = time.perf_counter() - start
        with lock:
            reaped = True
        if timer is not None:
            timer.cancel()
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)  # Popen must not wait again
        peak, method = usage.ru_maxrss, "wait4 ru_maxrss (at least this interpreter's size)"
        if timer_cmd:
            # GNU time writes "Command exited with non-zero status N" first on failure.
            last = (rss.read().strip().splitlines() or [""])[-1]
            peak = int(last) if last.isdigit() else 0
            method = "GNU time %M"
        out.seek(0)
        err.seek(0)
        return Measured(
            returncode=proc.returncode,
            stdout=out.read().decode(errors="replace"),
            stderr=err.read().decode(errors="replace"),
            wall_seconds=wall,
            cpu_seconds=usage.ru_utime + usage.ru_stime,
            peak_rss_kib=peak,
            rss_method=method,
            timed_out=killed,
        )


def _tail(text: str, lines: int = 8) -> str:
    return "\n".join(text.strip().splitlines()[-lines:])


def _failure(m: Measured, what: str, timeout: float | None) -> str:
    if m.timed_out:
        return f"{what} was stopped after the time limit of {timeout:g} s"
    return f"{what} exited with code {m.returncode}: {_tail(m.stderr or m.stdout)}"


def _unavailable(tool: str, config_name: str, reason: str) -> dict[str, Any]:
    return {"tool": tool, "config": config_name, "available": False, "ok": False, "reason": reason}


def _failed(tool: str, config_name: str, reason: str) -> dict[str, Any]:
    return {"tool": tool, "config": config_name, "available": True, "ok": False, "reason": reason}


def _summary(
    tool: str,
    config_name: str,
    states: int,
    transitions: int,
    edges: int,
    complete: bool,
    seconds: list[float],
    cpu_seconds: list[float],
    peak_kib: list[int],
    rss_method: str,
    timing: str,
) -> dict[str, Any]:
    """The figures every tool reports, in the same keys."""
    ref_states, ref_edges = reference_counts(config_name)
    return {
        "tool": tool,
        "config": config_name,
        "available": True,
        "ok": True,
        "reason": "",
        "states": states,
        "transitions": transitions,
        "edges": edges,
        "complete": complete,
        "reference_states": ref_states,
        "reference_edges": ref_edges,
        "matches_reference": states == ref_states and edges == ref_edges,
        "seconds": seconds,
        "median_seconds": statistics.median(seconds),
        "states_per_second": statistics.median(states / max(s, 1e-9) for s in seconds),
        "cpu_seconds": cpu_seconds,
        "median_cpu_seconds": statistics.median(cpu_seconds),
        "states_per_cpu_second": statistics.median(states / max(s, 1e-9) for s in cpu_seconds),
        "peak_rss_mib": max(peak_kib) / _MIB,
        "peak_rss_mib_runs": [k / _MIB for k in peak_kib],
        "rss_method": rss_method,
        "timing": timing,
    }


# -- turnproof -------------------------------------------------------------------------------------


def explore_config(
    config_name: str,
    compiled: bool = True,
    workers: int = 1,
    compact: bool | None = None,
    parallel_from: int | None = None,
) -> dict[str, Any]:
    """Explore ``BENCH`` with a configuration's bounds (or the default Magic model,
    :data:`MAGIC`) in this process, and time ``explore()`` (on the compiled path, or the
    interpreted one: ``explore(compiled=...)``; with ``workers`` processes and the encoding
    ``compact``, as ``explore()`` takes them).

    The CPU time is this process's and its worker processes' (they have all been waited for
    when ``explore()`` returns). This is what each repeat of :func:`run_turnproof` runs in its
    fresh interpreter; tests call it directly for the counts.
    """
    model = model_for(config_name)
    rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    resident_before = resident_kib()
    more = {} if parallel_from is None else {"parallel_from": parallel_from}
    start, cpu_start, kids_start = time.perf_counter(), time.process_time(), _children_cpu()
    ex = explore(model, compiled=compiled, workers=workers, compact=compact, **more)
    seconds = time.perf_counter() - start
    cpu = time.process_time() - cpu_start + _children_cpu() - kids_start
    resident_after = resident_kib()  # the exploration, graph included, is still alive here
    return {
        "states": ex.states,
        "transitions": ex.transitions,
        "complete": ex.complete,
        "seconds": seconds,
        "cpu_seconds": cpu,
        "worker_processes": ex.worker_processes,
        "sequential_because": ex.sequential_because,
        "rss_before_search_kib": rss_before,
        "resident_before_search_kib": resident_before,
        "resident_after_search_kib": resident_after,
    }


def _children_cpu() -> float:
    """CPU seconds (user + system) of this process's children that have been waited for."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def resident_kib() -> int:
    """This process's resident set now, in KiB (Linux ``/proc/self/statm``; elsewhere the peak
    so far, which is at least as large)."""
    try:
        with open("/proc/self/statm") as f:
            pages = int(f.read().split()[1])
        return pages * os.sysconf("SC_PAGE_SIZE") // 1024
    except (OSError, ValueError, IndexError):
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def run_turnproof(
    config_name: str,
    repeats: int = 3,
    timeout: float | None = None,
    progress: Progress | None = None,
    compiled: bool = True,
    workers: int = 1,
    compact: bool | None = None,
    parallel_from: int | None = None,
) -> dict[str, Any]:
    """Explore the benchmark model (or the default Magic model, :data:`MAGIC`) ``repeats`` times,
    each in a fresh interpreter, and summarise: states, transitions, seconds per repeat,
    medians, states/s, peak resident set (MiB) and whether the counts equal the reference.
    ``compiled=False``: the interpreted path; ``workers`` and ``compact`` as ``explore()``
    takes them, and ``parallel_from`` when given (the CPU time then includes the worker
    processes'; the peak resident set is the main process's)."""
    way = {"compiled": compiled, "workers": workers, "compact": compact}
    return run_turnproof_ways(config_name, [{**way, "parallel_from": parallel_from}],
                              repeats, timeout, progress)[0]  # fmt: skip


def run_turnproof_ways(
    config_name: str,
    ways: Sequence[Mapping[str, Any]],
    repeats: int = 3,
    timeout: float | None = None,
    progress: Progress | None = None,
) -> list[dict[str, Any]]:
    """:func:`run_turnproof` for each of several ways of exploring (each a mapping of its
    keyword arguments), the repeats of the ways taking turns (the first way's first repeat,
    the second's, ..., then the second repeats): a ratio of two ways' medians is then not
    skewed by the machine slowing down in the middle of the run, as it is when one way's
    repeats all come before the other's. A way that fails stops being run."""
    _check_name(config_name)
    _check_repeats(repeats)
    options = [
        json.dumps(
            {
                "compiled": w.get("compiled", True),
                "workers": w.get("workers", 1),
                "compact": w.get("compact"),
                "parallel_from": w.get("parallel_from"),
            }
        )
        for w in ways
    ]
    runs: list[list[dict[str, Any]]] = [[] for _ in ways]
    peak: list[list[int]] = [[] for _ in ways]
    wall: list[list[float]] = [[] for _ in ways]
    failed: dict[int, dict[str, Any]] = {}
    rss_method = ""
    for k in range(repeats):
        for n, way in enumerate(ways):
            if n in failed:
                continue
            if progress is not None:
                progress(f"turnproof {_way_text(config_name, way)}: repeat {k + 1}/{repeats}")
            cmd = [sys.executable, "-c", _CHILD, config_name, options[n]]
            m = run_measured(cmd, timeout=timeout)
            if m.returncode != 0:
                why = _failure(m, "the exploring child", timeout)
                failed[n] = _failed("turnproof", config_name, why)
                continue
            try:
                runs[n].append(json.loads(m.stdout.strip().splitlines()[-1]))
            except (IndexError, ValueError):
                why = f"no figures from the child: {_tail(m.stdout)}"
                failed[n] = _failed("turnproof", config_name, why)
                continue
            peak[n].append(m.peak_rss_kib)
            wall[n].append(m.wall_seconds)
            rss_method = m.rss_method
    return [
        failed[n]
        if n in failed
        else _turnproof_summary(
            config_name, way, runs[n], peak[n], wall[n], rss_method
        )  # fmt: skip
        for n, way in enumerate(ways)
    ]


def _way_text(config_name: str, way: Mapping[str, Any]) -> str:
    what = config_name if way.get("compiled", True) else f"{config_name} (interpreted)"
    workers, compact = way.get("workers", 1), way.get("compact")
    if workers != 1 or compact is not None:
        what += f" ({workers} worker{'s' if workers != 1 else ''}, compact={compact})"
    return what


def _turnproof_summary(
    config_name: str,
    way: Mapping[str, Any],
    runs: list[dict[str, Any]],
    peak: list[int],
    wall: list[float],
    rss_method: str,
) -> dict[str, Any]:
    """The figures of one way's repeats (see :func:`run_turnproof`)."""
    counts = {(r["states"], r["transitions"]) for r in runs}
    if len(counts) != 1:
        return _failed("turnproof", config_name, f"counts differ between repeats: {counts}")
    first = runs[0]
    result = _summary(
        "turnproof",
        config_name,
        states=first["states"],
        transitions=first["transitions"],
        edges=first["transitions"],
        complete=all(r["complete"] for r in runs),
        seconds=[r["seconds"] for r in runs],
        cpu_seconds=[r["cpu_seconds"] for r in runs],
        peak_kib=peak,
        rss_method=rss_method,
        timing="explore() only, in a fresh interpreter per repeat "
        "(start-up, imports and model set-up excluded)",
    )
    result["process_wall_seconds"] = wall
    result["path"] = "compiled" if way.get("compiled", True) else "interpreted"
    result["workers"] = way.get("workers", 1)
    result["compact"] = way.get("compact")
    result["worker_processes"] = max(r["worker_processes"] for r in runs)
    result["sequential_because"] = first["sequential_because"]
    result["rss_before_search_mib"] = max(r["rss_before_search_kib"] for r in runs) / _MIB
    # Bytes a state (the largest run each): the whole process at its peak (interpreter and
    # imports included); the peak less the resident set before the search (what the memory
    # target counts); and what the search left resident, the state graph included.
    states = max(first["states"], 1)
    result["peak_bytes_per_state"] = max(peak) * 1024 / states
    above = max(p - r["resident_before_search_kib"] for p, r in zip(peak, runs, strict=True))
    result["peak_less_before_bytes_per_state"] = max(above, 0) * 1024 / states
    grown = max(r["resident_after_search_kib"] - r["resident_before_search_kib"] for r in runs)
    result["search_bytes_per_state"] = grown * 1024 / states
    return result


def _check_repeats(repeats: int) -> None:
    if isinstance(repeats, bool) or not isinstance(repeats, int) or repeats < 1:
        raise TurnproofError(f"repeats must be a whole number of at least 1, got {repeats!r}")


# -- peers ----------------------------------------------------------------------------------------

_NUM = r"([0-9][0-9.]*(?:e[+-]?[0-9]+)?)"  # SPIN prints counts with %9.8g


def _count(text: str) -> int:
    return int(float(text))


def _parse_spin(out: str) -> dict[str, Any] | None:
    states = re.search(rf"^\s*{_NUM} states, stored", out, re.M)
    transitions = re.search(rf"^\s*{_NUM} transitions \(=", out, re.M)
    if states is None or transitions is None:
        return None
    errors = re.search(r"errors: (\d+)", out)
    depth = re.search(r"depth reached (\d+)", out)
    elapsed = re.search(rf"pan: elapsed time {_NUM} seconds", out)
    truncated = "max search depth too small" in out
    n_errors = int(errors.group(1)) if errors else 0
    n_transitions = _count(transitions.group(1))
    return {
        "states": _count(states.group(1)),
        "transitions": n_transitions,
        "edges": n_transitions - 1,  # SPIN also counts storing the initial state
        "complete": n_errors == 0 and not truncated,
        "errors": n_errors,
        "depth_reached": int(depth.group(1)) if depth else None,
        "depth_limit_hit": truncated,
        "exact_counts": "e" not in states.group(1) + transitions.group(1),
        "tool_seconds": float(elapsed.group(1)) if elapsed else None,
    }


def _parse_rumur(out: str) -> dict[str, Any] | None:
    found = re.search(r"(\d+) states, (\d+) rules fired in (\d+)s", out)
    if found is None:
        return None
    return {
        "states": int(found.group(1)),
        "transitions": int(found.group(2)),
        "edges": int(found.group(2)),
        "complete": "No error found." in out,
        "tool_seconds": float(found.group(3)),  # whole seconds only
    }


@dataclass(frozen=True)
class PeerSpec:
    """How to build and run one peer on the generated model, exactly as the bench README says."""

    name: str
    needs: tuple[str, ...]
    build: tuple[tuple[str, ...], ...]
    run: tuple[str, ...]
    parse: Callable[[str], dict[str, Any] | None]
    version: tuple[str, ...]


SPIN = PeerSpec(
    name="SPIN",
    needs=("spin", "gcc"),
    build=(
        ("spin", "-a", "mtg.pml"),
        ("gcc", "-O2", "-DSAFETY", "-DNOCLAIM", "-DNOREDUCE", "-o", "pan", "pan.c"),
    ),
    run=("./pan", "-m10000", "-w22"),
    parse=_parse_spin,
    version=("spin", "-V"),
)

RUMUR = PeerSpec(
    name="Rumur",
    needs=("rumur", "gcc"),
    build=(
        ("rumur", "--deadlock-detection", "off", "--threads", "1", "--output", "m.c", "mtg.m"),
        ("gcc", "-O3", "-o", "m", "m.c", "-lpthread"),
    ),
    run=("./m",),
    parse=_parse_rumur,
    version=("rumur", "--version"),
)

PEER_SPECS = {"spin": SPIN, "rumur": RUMUR}


def tool_version(cmd: Sequence[str]) -> str:
    """The first line a tool prints for its version command ``cmd``, or why there is none."""
    if shutil.which(cmd[0]) is None:
        return f"{cmd[0]} not found"
    try:
        done = subprocess.run(list(cmd), capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError) as exc:
        return f"unknown ({exc})"
    lines = (done.stdout or done.stderr).strip().splitlines()
    return lines[0] if lines else "unknown"


def run_peer(
    spec: PeerSpec,
    config_name: str,
    repeats: int = 3,
    gen_path: str | Path | None = None,
    timeout: float | None = None,
    progress: Progress | None = None,
) -> dict[str, Any]:
    """Generate the peer's model, build it once, run the binary ``repeats`` times and
    summarise. A missing tool or generator gives ``available: False`` with the reason; a failing
    step gives ``ok: False`` with the reason. Never raises for the peer's sake."""
    bounds = config_bounds(config_name)
    _check_repeats(repeats)
    tool = spec.name
    missing = [exe for exe in spec.needs if shutil.which(exe) is None]
    if missing:
        return _unavailable(tool, config_name, f"{', '.join(missing)} not found on PATH")
    gen, source = find_generator(gen_path)
    if not gen.is_file():
        return _unavailable(tool, config_name, f"{GEN_NAME} not found at {gen} ({source})")
    args = [str(bounds[k]) for k in ("turns", "cap", "budget", "cmax")]
    with tempfile.TemporaryDirectory(prefix=f"turnproof-bench-{spec.version[0]}-") as tmp:
        steps = [(sys.executable, str(gen), *args, tmp), *spec.build]
        build_start = time.perf_counter()
        if progress is not None:
            progress(f"{tool} {config_name}: generating and compiling")
        for step in steps:
            try:
                done = subprocess.run(
                    step, cwd=tmp, capture_output=True, text=True, timeout=BUILD_TIMEOUT
                )
            except (OSError, subprocess.SubprocessError) as exc:
                return _failed(tool, config_name, f"{' '.join(step)} failed: {exc}")
            if done.returncode != 0:
                return _failed(
                    tool,
                    config_name,
                    f"{' '.join(step)} exited with code {done.returncode}: "
                    f"{_tail(done.stderr or done.stdout)}",
                )
        build_seconds = time.perf_counter() - build_start
        parsed: list[dict[str, Any]] = []
        wall: list[float] = []
        cpu: list[float] = []
        peak: list[int] = []
        for k in range(repeats):
            if progress is not None:
                progress(f"{tool} {config_name}: repeat {k + 1}/{repeats}")
            try:
                m = run_measured(spec.run, cwd=tmp, timeout=timeout)
            except OSError as exc:
                return _failed(tool, config_name, f"{' '.join(spec.run)} failed: {exc}")
            if m.returncode != 0:
                return _failed(tool, config_name, _failure(m, " ".join(spec.run), timeout))
            figures = spec.parse(m.stdout)
            if figures is None:
                return _failed(
                    tool, config_name, f"no state count in the output: {_tail(m.stdout)}"
                )
            parsed.append(figures)
            wall.append(m.wall_seconds)
            cpu.append(m.cpu_seconds)
            peak.append(m.peak_rss_kib)
    counts = {(p["states"], p["transitions"]) for p in parsed}
    if len(counts) != 1:
        return _failed(tool, config_name, f"counts differ between repeats: {counts}")
    first = parsed[0]
    result = _summary(
        tool,
        config_name,
        states=first["states"],
        transitions=first["transitions"],
        edges=first["edges"],
        complete=all(p["complete"] for p in parsed),
        seconds=wall,
        cpu_seconds=cpu,
        peak_kib=peak,
        rss_method=m.rss_method,
        timing=f"wall time of `{' '.join(spec.run)}` only (generation and compilation excluded)",
    )
    result["build_seconds"] = build_seconds
    result["tool_seconds"] = [p["tool_seconds"] for p in parsed]
    result["command"] = " && ".join(" ".join(s) for s in (*spec.build, spec.run))
    for key in ("errors", "depth_reached", "depth_limit_hit", "exact_counts"):
        if key in first:
            result[key] = first[key]
    return result


def run_spin(
    config_name: str,
    repeats: int = 3,
    gen_path: str | Path | None = None,
    timeout: float | None = None,
    progress: Progress | None = None,
) -> dict[str, Any]:
    """SPIN on the generated Promela model (see :func:`run_peer`)."""
    return run_peer(SPIN, config_name, repeats, gen_path, timeout, progress)


def run_rumur(
    config_name: str,
    repeats: int = 3,
    gen_path: str | Path | None = None,
    timeout: float | None = None,
    progress: Progress | None = None,
) -> dict[str, Any]:
    """Rumur on the generated Murphi model (see :func:`run_peer`)."""
    return run_peer(RUMUR, config_name, repeats, gen_path, timeout, progress)


# -- the whole benchmark --------------------------------------------------------------------------


def _rate(result: dict[str, Any] | None, key: str = "states_per_second") -> float | None:
    if result is None or not result["ok"]:
        return None
    return float(result[key])


def _ratio(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None or b == 0 else a / b


def _rates(turnproof: dict[str, Any], peers: dict[str, dict[str, Any]], key: str) -> dict[str, Any]:
    """States per (wall or CPU) second of each tool, the TLC-parity estimate and the ratios."""
    tp, spin, rumur = (_rate(r, key) for r in (turnproof, peers.get("spin"), peers.get("rumur")))
    parity = None if spin is None else spin / TLC_PARITY_DIVISOR
    return {
        "turnproof": tp,
        "spin": spin,
        "rumur": rumur,
        "tlc_parity": parity,
        "turnproof_over_spin": _ratio(tp, spin),
        "turnproof_over_rumur": _ratio(tp, rumur),
        "turnproof_over_tlc_parity": _ratio(tp, parity),
    }


def _same_counts(a: dict[str, Any], b: dict[str, Any] | None) -> bool | None:
    """Same distinct states and edges; ``None`` when ``b`` did not run."""
    if b is None or not b["ok"] or not a["ok"]:
        return None
    return bool(a["states"] == b["states"] and a["edges"] == b["edges"])


def compare(turnproof: dict[str, Any], peers: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """Rates, ratios, the TLC-parity estimate and the count checks of one configuration."""
    spin, rumur = peers.get("spin"), peers.get("rumur")
    checks = {
        "turnproof_matches_reference": bool(turnproof["ok"] and turnproof["matches_reference"]),
        "spin_matches_turnproof": _same_counts(turnproof, spin),
        "rumur_matches_turnproof": _same_counts(turnproof, rumur),
        "spin_matches_reference": None
        if spin is None or not spin["ok"]
        else bool(spin["matches_reference"]),
    }
    wall = _rates(turnproof, peers, "states_per_second")
    return {
        "turnproof_states_per_second": wall["turnproof"],
        "spin_states_per_second": wall["spin"],
        "rumur_states_per_second": wall["rumur"],
        "tlc_parity_states_per_second": wall["tlc_parity"],
        "turnproof_over_spin": wall["turnproof_over_spin"],
        "turnproof_over_rumur": wall["turnproof_over_rumur"],
        "turnproof_over_tlc_parity": wall["turnproof_over_tlc_parity"],
        # The same by CPU time: steadier than wall time when other work shares the cores.
        "by_cpu_time": _rates(turnproof, peers, "states_per_cpu_second"),
        "checks": checks,
        "counts_agree": all(v is not False for v in checks.values()),
    }


def machine_info(peers: Sequence[str]) -> dict[str, Any]:
    """What the figures were measured on, load included (the cores may be shared)."""
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else None
    info: dict[str, Any] = {
        "python": platform.python_version(),
        "platform": platform.platform(),
        "cpus": os.cpu_count(),
        "load_at_start": load,
    }
    for name in peers:
        info[f"{name}_version"] = tool_version(PEER_SPECS[name].version)
    if peers:
        info["gcc_version"] = tool_version(("gcc", "--version"))
    return info


def run_bench(
    configs: Sequence[str] = ("base", "mid"),
    repeats: int = 3,
    peers: Sequence[str] = PEERS,
    gen_path: str | Path | None = None,
    timeout: float | None = None,
    progress: Progress | None = None,
    peers_on: Sequence[str] | None = None,
) -> dict[str, Any]:
    """Run turnproof and the chosen peers on each configuration, one after the other (never in
    parallel: they would compete for the same cores), and compare them.

    Returns ``{"configs": [...], "repeats": n, "peers": [...], "machine": {...}, "tlc": {...},
    "results": {config: {"bounds", "turnproof", "spin", "rumur", "comparison"}},
    "counts_agree": bool}``; a peer that was not asked for is absent from its config's entry.
    ``peers_on`` names the configurations the peers run on (default: every one); on the others
    turnproof runs alone. Unknown config or peer names and a bad ``repeats`` raise before
    anything runs. ``timeout`` (seconds) stops any single measured run that takes longer; that
    run is reported as failed.
    """
    configs, peers = list(configs), list(peers)
    with_peers = set(configs if peers_on is None else peers_on)
    for c in [*configs, *with_peers]:
        config_bounds(c)
    for p in peers:
        if p not in PEER_SPECS:
            raise UnknownNameError("peer", p, PEER_SPECS)
    _check_repeats(repeats)
    if not configs:
        raise TurnproofError("name at least one benchmark config")
    out: dict[str, Any] = {
        "configs": configs,
        "repeats": repeats,
        "peers": peers,
        "machine": machine_info(peers),
        "tlc": {
            "installed": False,
            "divisor": TLC_PARITY_DIVISOR,
            "note": "TLC is not installable here; the TLC-parity figure is SPIN's states/s "
            f"/ {TLC_PARITY_DIVISOR}, with SPIN measured in this same run",
        },
        "results": {},
    }
    for c in configs:
        entry: dict[str, Any] = {"bounds": config_bounds(c)}
        entry["turnproof"] = run_turnproof(c, repeats, timeout, progress)
        ran: dict[str, dict[str, Any]] = {}
        for p in peers if c in with_peers else []:
            ran[p] = run_peer(PEER_SPECS[p], c, repeats, gen_path, timeout, progress)
            entry[p] = ran[p]
        entry["comparison"] = compare(entry["turnproof"], ran)
        out["results"][c] = entry
    out["counts_agree"] = all(e["comparison"]["counts_agree"] for e in out["results"].values())
    return out


# -- the table for people -------------------------------------------------------------------------


def _fmt_rate(rate: float | None) -> str:
    if rate is None:
        return "n/a"
    if rate >= 1e6:
        return f"{rate / 1e6:.2f} M"
    if rate >= 1e3:
        return f"{rate / 1e3:.1f} k"
    return f"{rate:.0f}"


def _fmt_ratio(r: float | None) -> str:
    if r is None:
        return "n/a"
    if r >= 1:
        return f"{r:.2f}"
    return f"{r:.4f} (1/{1 / r:.1f})" if r > 0 else "0"


_TOOLS = (("turnproof", "turnproof"), ("spin", "SPIN"), ("rumur", "Rumur"))
_HEADER = (
    f"  {'tool':<22}{'states':>12}{'transitions':>13}{'median s':>10} {'states/s':>10}"
    f"{'CPU s':>10} {'states/CPU s':>13}{'peak MiB':>10}"
)


def _is_short(res: dict[str, Any]) -> bool:
    """A run so short that start-up dominates; judged by CPU time too, which a busy machine
    does not stretch."""
    if not res["ok"]:
        return False
    return bool(min(res["median_seconds"], res["median_cpu_seconds"]) < SHORT_RUN_SECONDS)


def _row(label: str, res: dict[str, Any]) -> str:
    if not res["ok"]:
        what = "not available" if not res["available"] else "failed"
        return f"  {label:<22}{what}: {res['reason']}"
    short = "*" if _is_short(res) else " "
    incomplete = "" if res["complete"] else "  INCOMPLETE search"
    return (
        f"  {label:<22}{res['states']:>12,}{res['transitions']:>13,}"
        f"{res['median_seconds']:>10.3f}{short}{_fmt_rate(res['states_per_second']):>10}"
        f"{res['median_cpu_seconds']:>10.3f} {_fmt_rate(res['states_per_cpu_second']):>13}"
        f"{res['peak_rss_mib']:>10.1f}{incomplete}"
    )


def _ratio_line(label: str, ratios: dict[str, Any], entry: dict[str, Any]) -> str:
    parts = []
    if "spin" in entry:
        parts.append(f"turnproof/SPIN = {_fmt_ratio(ratios['turnproof_over_spin'])}")
    if "rumur" in entry:
        parts.append(f"turnproof/Rumur = {_fmt_ratio(ratios['turnproof_over_rumur'])}")
    if "spin" in entry:
        tlc = _fmt_ratio(ratios["turnproof_over_tlc_parity"])
        parts.append(f"turnproof/TLC-parity = {tlc}")
    return f"  {label}: " + "; ".join(parts)


def _counts_line(entry: dict[str, Any]) -> str:
    checks = entry["comparison"]["checks"]
    tp = entry["turnproof"]
    ref = reference_counts(tp["config"])[0]
    if not tp["ok"]:
        return f"  counts: turnproof did not finish; reference {ref:,} states"
    names = {
        "turnproof_matches_reference": "turnproof = reference",
        "spin_matches_turnproof": "SPIN = turnproof",
        "rumur_matches_turnproof": "Rumur = turnproof",
        "spin_matches_reference": "SPIN = reference",
    }
    bad = [names[k] for k, v in checks.items() if v is False]
    good = [names[k] for k, v in checks.items() if v is True]
    if bad:
        return f"  counts: MISMATCH, not true: {'; '.join(bad)} (reference {ref:,} states)"
    return f"  counts agree ({tp['states']:,} states, {tp['edges']:,} edges): {'; '.join(good)}"


def _config_lines(name: str, entry: dict[str, Any]) -> list[str]:
    bounds = " ".join(f"{k}={v}" for k, v in entry["bounds"].items())
    ref_states, ref_edges = reference_counts(name)
    lines = [f"{name} ({bounds}): reference {ref_states:,} states, {ref_edges:,} edges", _HEADER]
    lines += [_row(label, entry[key]) for key, label in _TOOLS if key in entry]
    tp = entry["turnproof"]
    if tp["ok"] and "search_bytes_per_state" in tp:
        lines.append(
            f"  turnproof memory: {tp['search_bytes_per_state']:.0f} B/state resident for the "
            f"search, graph included (resident set after explore() less before); "
            f"{tp['peak_less_before_bytes_per_state']:.0f} B/state at the peak less the "
            f"resident set before explore(); {tp['peak_bytes_per_state']:.0f} B/state at the "
            "process's peak"
        )
    cmp = entry["comparison"]
    if "spin" in entry:
        label = f"TLC parity (SPIN / {TLC_PARITY_DIVISOR})"
        wall = _fmt_rate(cmp["tlc_parity_states_per_second"])
        cpu = _fmt_rate(cmp["by_cpu_time"]["tlc_parity"])
        lines.append(f"  {label:<22}{'':>35} {wall:>10}{'':>10} {cpu:>13}")
    if "spin" in entry or "rumur" in entry:
        short = any(_is_short(entry[k]) for k, _ in _TOOLS if k in entry)
        lines.append(_ratio_line(f"ratios by wall time{' (*)' if short else ''}", cmp, entry))
        lines.append(_ratio_line("ratios by CPU time", cmp["by_cpu_time"], entry))
    lines.append(_counts_line(entry))
    spin = entry.get("spin")
    if spin and spin["ok"] and spin.get("depth_limit_hit"):
        lines.append("  SPIN hit its depth limit (-m10000): its search is incomplete")
    return lines


def format_config(name: str, entry: dict[str, Any]) -> str:
    """One configuration's part of :func:`format_bench`: its rows, memory, ratios and counts."""
    return "\n".join(_config_lines(name, entry)) + "\n"


def path_ratios(compiled: dict[str, Any], interpreted: dict[str, Any]) -> dict[str, float] | None:
    """How many times faster the compiled path explored than the interpreted one, by wall time
    and by CPU time (both summaries of :func:`run_turnproof` on the same model, in the same
    run); ``None`` when either did not finish."""
    if not (compiled["ok"] and interpreted["ok"]):
        return None
    return {
        "by_wall_time": compiled["states_per_second"] / interpreted["states_per_second"],
        "by_cpu_time": compiled["states_per_cpu_second"] / interpreted["states_per_cpu_second"],
    }


def format_bench(result: dict[str, Any]) -> str:
    """A plain-text table: medians, states/s, peak MiB, counts, ratios and the TLC note."""
    m = result["machine"]
    load = "" if m["load_at_start"] is None else f", load {m['load_at_start']:.2f} at start"
    lines = [
        f"turn-loop benchmark: medians of {result['repeats']} repeat(s) per tool; "
        f"Python {m['python']}, {m['cpus']} CPUs{load}",
    ]
    for name, entry in result["results"].items():
        lines += ["", *_config_lines(name, entry)]
    ran = [e[k] for e in result["results"].values() for k, _ in _TOOLS if k in e and e[k]["ok"]]
    methods = sorted({r["rss_method"] for r in ran})
    before = [r["rss_before_search_mib"] for r in ran if r["tool"] == "turnproof"]
    lines += [
        "",
        "TLC is not installable here (not in the reachable registries); the TLC-parity figure "
        f"is SPIN's states/s / {TLC_PARITY_DIVISOR} measured in this same run (bench README: "
        f"TLC with 1 worker ran at about SPIN / {TLC_PARITY_DIVISOR} on this model).",
        "Times: turnproof = explore() only, in a fresh interpreter per repeat (start-up, imports "
        "and model set-up excluded); SPIN and Rumur = wall time of the compiled binary only "
        "(generating and compiling the model excluded). CPU s = user + system time of the same "
        "span; steadier than wall time when other work shares the cores.",
        f"Peak MiB: maximum resident set of the measured process ({', '.join(methods)}), the "
        "largest over the repeats"
        + (
            f"; turnproof's includes the interpreter and imports ({max(before):.0f} MiB before "
            "the search)."
            if before
            else "."
        ),
        "SPIN's transitions count one more than turnproof's and Rumur's: it also counts storing "
        "the initial state.",
    ]
    if any(_is_short(r) for r in ran):
        lines.append(
            f"* median run under {SHORT_RUN_SECONDS:g} s of wall or CPU time: the rate measures "
            "start-up more than search."
        )
    return "\n".join(lines) + "\n"
