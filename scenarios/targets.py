"""The performance targets, measured in one run, each beside its figure before the work.

Every target, what it is read off, and how "met" is judged:

* ``speed``: the explicit engine's states/s on the benchmark's ``mid`` over SPIN's, measured by
  :func:`~turnproof.scenarios.bench.run_bench` (both in the same run, medians of the same
  number of repeats). Met when the ratio by CPU time is at least 1/10: CPU time is what a
  busy machine hardly stretches (the ratio by wall time is reported beside it).
* ``magic``: the default Magic model (``turnproof check``'s) explored compiled and on the
  interpreted path, each repeat in a fresh interpreter; today's figure was the interpreted
  path's. Met when compiled/interpreted by CPU time, in this run, is at least 3.
* ``memory``: bytes a state on ``L``, the state graph included: the process's peak resident set
  over the states, which is how today's figure was counted. The peak less the resident set
  before ``explore()`` and what the search leaves resident are reported beside it.
* ``cores``: the compact search of ``L`` with two worker processes against the same search
  in one process (``explore(workers=2, compact=True)`` and ``explore(compact=True)``), each
  repeat in a fresh interpreter. Met when the one-process median wall time over the
  two-worker one is at least 1.7 (a speed-up is a wall-time figure; the CPU time of both,
  workers included, is reported beside it), the counts are the same and the two-worker run
  did use its workers.
* ``xl``: ``XL`` (41 M states) explored to the reference count, once; only when asked, since
  it takes minutes.
* ``symbolic``: the default ``turnproof check`` (both engines, Magic), as a subprocess, from an
  empty invariant cache and then again from the cache that run filled (wall time, interpreter
  start-up included). A third row judges the verdicts of both runs: every property expected
  to hold PROVED for every value of the open bounds it declares, every other one as expected
  (:func:`find_unproved`).
* ``ci``: the whole test suite within 12 minutes is measured by ``.ci/run``, not here.

Every figure of *today* is in :data:`BASELINES`, with where it came from. Library code:
nothing here prints; ``turnproof bench`` is the front end.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from turnproof.model.errors import TurnproofError, UnknownNameError
from turnproof.model.registry import builtin_rulesets
from turnproof.model.rules import RuleSet
from turnproof.reports.text import TextTable
from turnproof.scenarios.bench import (
    _HEADER,
    MAGIC,
    PEER_SPECS,
    PEERS,
    Measured,
    Progress,
    _check_repeats,
    _failure,
    _fmt_rate,
    _row,
    config_bounds,
    format_bench,
    format_config,
    machine_info,
    path_ratios,
    reference_counts,
    run_bench,
    run_measured,
    run_turnproof_ways,
)

#: The targets ``--only`` chooses from, in the order they are run and shown.
TARGETS = ("speed", "magic", "memory", "cores", "xl", "symbolic")

#: Where every figure of today comes from.
SOURCE = "measured on the main line before the performance work"


@dataclass(frozen=True)
class Baseline:
    """One row's target and today's figure: what is measured, the goal (``limit``, compared by
    ``at_least`` or at most), how the figure now is judged against it, the figure before the
    work as printed and as numbers, where it comes from, and what to know about it."""

    row: str
    title: str
    limit: float | None
    at_least: bool
    judged: str
    today: str
    figures: tuple[tuple[str, float], ...]
    note: str = ""
    source: str = SOURCE

    def is_met(self, value: float) -> bool:
        assert self.limit is not None, f"{self.row} has no numeric goal"
        return value >= self.limit if self.at_least else value <= self.limit

    def as_json(self) -> dict[str, Any]:
        return {
            "title": self.title,
            "limit": self.limit,
            "at_least": self.at_least,
            "judged": self.judged,
            "today": self.today,
            "figures": dict(self.figures),
            "note": self.note,
            "source": self.source,
        }


#: The one table of today's figures, one entry a row of the output.
BASELINES: dict[str, Baseline] = {
    b.row: b
    for b in (
        Baseline(
            "speed",
            "speed: bench mid, turnproof/SPIN >= 1/10",
            1 / 10,
            True,
            "turnproof/SPIN by CPU time (steadier on shared cores), medians of the same run; "
            "by wall time beside it",
            "1/44.7 (95.5 k vs 4.27 M/s)",
            (
                ("turnproof_over_spin", 1 / 44.7),
                ("turnproof_states_per_second", 95.5e3),
                ("spin_states_per_second", 4.27e6),
                ("turnproof_over_rumur", 1 / 13.7),
            ),
            "turnproof/Rumur was 1/13.7",
        ),
        Baseline(
            "magic",
            "magic: default model, states/s >= 3x today",
            3.0,
            True,
            "compiled/interpreted states per CPU second, both measured in this run",
            "25 k/CPU s (interpreted)",
            (("states_per_cpu_second", 25e3),),
            "the interpreted path, explore(compiled=False), which this row measures again in "
            "the same run",
        ),
        Baseline(
            "memory",
            "memory: bench L, <= 120 B/state",
            120.0,
            False,
            "the peak resident set over the states, interpreter included; 'above the start' is "
            "the peak less the resident set before explore()",
            "356 B/state (1,469 MiB peak)",
            (("bytes_per_state", 356.0), ("peak_rss_mib", 1469.0), ("states", 4_122_641)),
            "the peak resident set over 4.12 M states, graph included (1,469 MiB over "
            "4,122,641 states is 374 B/state; 356 is 1,469 million bytes over them)",
        ),
        Baseline(
            "cores",
            "cores: bench L, 2 workers >= 1.7x one",
            1.7,
            True,
            "median wall time of the compact search in one process over that with 2 worker "
            "processes (explore(workers=2)), in the same run; CPU time, workers included, beside",
            "one core only",
            (),
            "the explicit engine had no parallel exploration",
        ),
        Baseline(
            "xl",
            "xl: bench XL completes, or spills",
            None,
            True,
            "met when XL is explored to the reference count (one run)",
            "no figure given",
            (),
            "no figure was measured before; the goal: XL completes, or spills to disk with bounded memory",
        ),
        Baseline(
            "symbolic-cold",
            "symbolic: default check, cold, <= 60 s",
            60.0,
            False,
            "the wall time of the whole command (start-up and worker processes included)",
            "3 min 59 s",
            (("wall_seconds", 239.0),),
            "both engines on the Magic rule set, from an empty invariant cache",
        ),
        Baseline(
            "symbolic-warm",
            "symbolic: default check, warm, <= 30 s",
            30.0,
            False,
            "the wall time of the whole command, right after the cold run",
            "2 min 17 s",
            (("wall_seconds", 137.0),),
            "the same, with the invariants the cold run cached",
        ),
        Baseline(
            "symbolic-proofs",
            "symbolic: every property still PROVED",
            None,
            True,
            "every symbolic verdict of both runs: each property expected to hold PROVED for "
            "every value of the open bounds it declares, every other one as expected",
            "all PROVED",
            (),
            "every property expected to hold was PROVED for every value of its open bounds",
        ),
        Baseline(
            "ci",
            "ci: the test suite <= 12 min",
            12 * 60.0,
            False,
            "not measured here: .ci/run measures it",
            "no figure given",
            (),
        ),
    )
}

#: What XL took when the compact encoding made it complete (commit cdd6cd2, at load about
#: 10 on 2 cores): the estimate shown when it is not run and ``L`` was not measured either.
XL_RECORDED = {"wall_seconds": 1369.0, "cpu_seconds": 333.0}

#: The benchmark configuration each explicit target is measured on. Another one may be given
#: (``run_targets(configs=...)``, for a quick run): its row then shows the figure unjudged.
TARGET_CONFIGS = {"speed": "mid", "memory": "L", "cores": "L", "xl": "XL"}

#: The worker count the ``cores`` target measures against one.
CORES_WORKERS = 2


# -- choosing ------------------------------------------------------------------------------------


def choose_targets(names: Iterable[str]) -> tuple[str, ...]:
    """The targets named, in :data:`TARGETS` order; an unknown one raises, listing the valid
    choices, and so does naming none."""
    chosen = list(dict.fromkeys(names))
    for name in chosen:
        if name not in TARGETS:
            raise UnknownNameError("target", name, TARGETS)
    if not chosen:
        raise TurnproofError(f"name at least one target, of {', '.join(TARGETS)}")
    return tuple(t for t in TARGETS if t in chosen)


# -- judging the symbolic verdicts ----------------------------------------------------------------


def declared_open_bounds(ruleset: RuleSet) -> dict[str, tuple[str, ...]]:
    """Each property of ``ruleset`` with the bounds it is meant for whatever their value (its
    ``for_all``): the open bounds a proof of it must cover."""
    return {p.name: tuple(p.for_all) for p in ruleset.properties}


def find_unproved(
    doc: Mapping[str, Any], open_bounds: Mapping[str, Sequence[str]]
) -> list[dict[str, str]]:
    """What breaks "every property still PROVED for the same open bounds" in a ``turnproof
    check --format json`` document: each problem as ``{"property", "verdict", "why"}``.

    A property expected to hold must be PROVED by the symbolic engine, for every value of each
    bound ``open_bounds`` gives it (the result's ``for_all``); a property expected to be
    witnessed or violated must meet its expectation (WITNESSED or VIOLATED is no proof, and is
    not asked to be one). A disagreement between the engines, a property with no symbolic
    verdict and a document without any are problems too. An empty list: every verdict is as it
    should be."""
    results = [r for r in doc.get("properties", []) if r.get("kind") != "state-count"]
    symbolic = {r["name"]: r for r in results if r["engine"] == "symbolic"}
    if not symbolic:
        engines = ", ".join(doc.get("engines", [])) or "none"
        why = f"the document has no symbolic verdict (engines: {engines})"
        return [{"property": "(every one)", "verdict": "-", "why": why}]
    problems = []
    for r in results:
        if r["engine"] == "both":
            why = f"the engines disagree: {r.get('reason', '')}".rstrip(": ")
            problems.append({"property": r["name"], "verdict": r["verdict"], "why": why})
    for name in dict.fromkeys(r["name"] for r in results if r["engine"] == "explicit"):
        if name not in symbolic:
            problems.append({"property": name, "verdict": "-", "why": "no symbolic verdict"})
    for name, r in symbolic.items():
        verdict = r["verdict"]
        if r["expect"] != "holds":
            if not r["meets_expectation"]:
                why = f"{verdict}, expected {r['expect']}"
                problems.append({"property": name, "verdict": verdict, "why": why})
            continue
        if verdict != "PROVED":
            reason = str(r.get("reason") or "").strip()
            why = f"{verdict}, not PROVED" + (f": {reason}" if reason else "")
            problems.append({"property": name, "verdict": verdict, "why": why})
            continue
        missing = [b for b in open_bounds.get(name, ()) if b not in r.get("for_all", {})]
        if missing:
            why = f"PROVED, but not for every value of {', '.join(missing)}"
            problems.append({"property": name, "verdict": verdict, "why": why})
    return problems


def judge_check(doc: Mapping[str, Any]) -> list[dict[str, str]]:
    """:func:`find_unproved` with the open bounds each property of the document's built-in rule
    set declares (none are asked for when the rule set is not built in)."""
    name = doc.get("ruleset", {}).get("name", "")
    sets = builtin_rulesets()
    return find_unproved(doc, declared_open_bounds(sets[name]) if name in sets else {})


# -- measuring -----------------------------------------------------------------------------------


def check_command(check_args: Sequence[str] = ()) -> list[str]:
    """The ``turnproof check`` the symbolic target runs: by default the default check (both
    engines, Magic), in this interpreter's environment, as one JSON document."""
    return [
        sys.executable,
        "-m",
        "turnproof.scenarios",
        "check",
        *check_args,
        "--format",
        "json",
        "--no-progress",
    ]


def _check_run(m: Measured, timeout: float | None) -> dict[str, Any]:
    """One measured ``turnproof check``: its times, exit code and judged verdicts."""
    out: dict[str, Any] = {
        "ok": False,
        "reason": "",
        "exit_code": m.returncode,
        "wall_seconds": m.wall_seconds,
        "cpu_seconds": m.cpu_seconds,
        "peak_rss_mib": m.peak_rss_kib / 1024.0,
    }
    try:
        doc = json.loads(m.stdout)
    except ValueError:
        doc = None
    if m.timed_out or not isinstance(doc, dict):
        # Exit codes 1 (an unmet expectation) and 3 (UNKNOWN) still print the document.
        out["reason"] = _failure(m, "turnproof check", timeout)
        return out
    symbolic = [r for r in doc.get("properties", []) if r.get("engine") == "symbolic"]
    out.update(
        ok=True,
        check_seconds=doc.get("run", {}).get("seconds"),
        verdicts=[
            {
                "property": r["name"],
                "expect": r["expect"],
                "verdict": r["verdict"],
                "seconds": r["seconds"],
                "for_all": sorted(r.get("for_all", {})),
            }
            for r in symbolic
        ],
        problems=judge_check(doc),
    )
    return out


def measure_symbolic(
    check_args: Sequence[str] = (),
    timeout: float | None = None,
    progress: Progress | None = None,
) -> dict[str, Any]:
    """Run ``turnproof check`` (:func:`check_command`) twice with the invariant cache in a fresh
    temporary folder: ``cold`` finds it empty, ``warm`` reads what ``cold`` stored. Each run is
    measured as a whole process (wall and CPU time, peak resident set) and its verdicts are
    judged (:func:`judge_check`)."""
    from turnproof.checks.invariants import CACHE_ENV  # imports Z3: only when this runs

    cmd = check_command(check_args)
    runs: dict[str, Any] = {"command": " ".join(["turnproof", *cmd[3:]])}
    with tempfile.TemporaryDirectory(prefix="turnproof-bench-invariants-") as cache:
        env = {**os.environ, CACHE_ENV: cache}
        for label in ("cold", "warm"):
            if progress is not None:
                progress(f"turnproof check, {label} invariant cache")
            runs[label] = _check_run(run_measured(cmd, timeout=timeout, env=env), timeout)
        runs["cached_files"] = len(list(Path(cache).iterdir()))
    return runs


def measure_magic(
    repeats: int = 3, timeout: float | None = None, progress: Progress | None = None
) -> dict[str, Any]:
    """The default Magic model explored compiled and interpreted, ``repeats`` times each (taking
    turns) in a fresh interpreter, and how many times faster the compiled path ran."""
    compiled, interpreted = run_turnproof_ways(
        MAGIC, [{"compiled": True}, {"compiled": False}], repeats, timeout, progress
    )
    agree = all(r["ok"] and r["matches_reference"] for r in (compiled, interpreted))
    return {
        "compiled": compiled,
        "interpreted": interpreted,
        "ratios": path_ratios(compiled, interpreted),
        "reference_states": reference_counts(MAGIC)[0],
        "counts_agree": agree,
    }


def measure_cores(
    config_name: str = "L",
    repeats: int = 3,
    timeout: float | None = None,
    progress: Progress | None = None,
    workers: int = CORES_WORKERS,
    parallel_from: int | None = None,
) -> dict[str, Any]:
    """The compact search of a benchmark configuration in one process and with ``workers``
    worker processes, ``repeats`` times each (taking turns) in a fresh interpreter
    (:func:`~turnproof.scenarios.bench.run_turnproof_ways`), and how many times faster the
    second ran: ``{"one", "many", "workers", "speedup", "cpu_ratio", "counts_agree"}``;
    ``speedup`` (one-process median wall time over the other's) and ``cpu_ratio`` (the same by
    CPU time, workers included) are ``None`` when either run failed. ``parallel_from``: where
    the workers take over (``explore()``'s default when ``None``)."""
    one, many = run_turnproof_ways(
        config_name,
        [{"compact": True}, {"workers": workers, "compact": True, "parallel_from": parallel_from}],
        repeats, timeout, progress,
    )  # fmt: skip
    both = one["ok"] and many["ok"]
    return {
        "one": one,
        "many": many,
        "workers": workers,
        "speedup": one["median_seconds"] / many["median_seconds"] if both else None,
        "cpu_ratio": many["median_cpu_seconds"] / one["median_cpu_seconds"] if both else None,
        "counts_agree": both
        and (one["states"], one["edges"]) == (many["states"], many["edges"])
        and one["matches_reference"],
    }


def run_targets(
    targets: Sequence[str] = TARGETS,
    repeats: int = 3,
    peers: Sequence[str] = PEERS,
    gen_path: str | Path | None = None,
    timeout: float | None = None,
    xl: bool = False,
    progress: Progress | None = None,
    check_args: Sequence[str] = (),
    configs: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """Measure the chosen targets, one after the other, and judge each against its goal.

    ``repeats`` runs of each explicit figure (medians; XL runs once, the symbolic check once
    cold and once warm); ``xl`` runs XL when ``xl`` is among the targets (otherwise its row
    says it was not run); ``check_args`` replaces the default check's target and options, and
    ``configs`` the configuration of ``speed``, ``memory`` or ``xl`` (:data:`TARGET_CONFIGS`;
    tests use small ones, whose rows are then not judged). Returns ``{"targets", "configs",
    "repeats", "machine", "baselines", "rows",
    "bench", "magic", "cores", "xl", "symbolic", "problems", "exit_code"}``: a measurement not taken is
    ``None``; ``problems`` lists what makes the exit code 1 (a state count that disagrees with
    the reference or between tools, a measurement that failed, a symbolic verdict that is not
    as it should be); unmet goals do not. Bad names and a bad ``repeats`` raise before
    anything runs."""
    chosen = choose_targets(targets)
    _check_repeats(repeats)
    for p in peers:
        if p not in PEER_SPECS:
            raise UnknownNameError("peer", p, PEER_SPECS)
    on = {**TARGET_CONFIGS, **(configs or {})}
    for target, config in on.items():
        if target not in TARGET_CONFIGS:
            raise UnknownNameError("target with a configuration", target, TARGET_CONFIGS)
        config_bounds(config)
    explicit = list(dict.fromkeys(on[t] for t in ("speed", "memory") if t in chosen))
    machine = machine_info(list(peers) if "speed" in chosen else [])
    bench = None
    if explicit:
        speed_on = [on["speed"]] if "speed" in chosen else []
        bench = run_bench(explicit, repeats, peers, gen_path, timeout, progress, peers_on=speed_on)
    magic = measure_magic(repeats, timeout, progress) if "magic" in chosen else None
    cores = measure_cores(on["cores"], repeats, timeout, progress) if "cores" in chosen else None
    big = None
    if "xl" in chosen and xl:
        big = run_bench([on["xl"]], 1, [], gen_path, timeout, progress)
    symbolic = measure_symbolic(check_args, timeout, progress) if "symbolic" in chosen else None
    machine["load_at_end"] = os.getloadavg()[0] if hasattr(os, "getloadavg") else None
    out: dict[str, Any] = {
        "targets": list(chosen),
        "configs": on,
        "repeats": repeats,
        "machine": machine,
        "baselines": {k: b.as_json() for k, b in BASELINES.items()},
        "bench": bench,
        "magic": magic,
        "cores": cores,
        "xl": big,
        "symbolic": symbolic,
    }
    out["rows"] = target_rows(out)
    out["problems"] = _problems(out)
    out["exit_code"] = 1 if out["problems"] else 0
    return out


# -- the rows ------------------------------------------------------------------------------------


def _row_of(key: str, now: str, met: bool | None, status: str = "measured") -> dict[str, Any]:
    b = BASELINES[key]
    return {
        "row": key,
        "title": b.title,
        "today": b.today,
        "now": now,
        "met": met,
        "status": status,
    }


def _minutes(seconds: float) -> str:
    if seconds < 90:
        return f"{seconds:.1f} s"
    whole = round(seconds)
    return f"{whole // 60} min {whole % 60:02d} s"


def _entry(result: Mapping[str, Any], target: str) -> dict[str, Any] | None:
    """The benchmark's entry of the configuration ``target`` was measured on."""
    bench = result.get("xl" if target == "xl" else "bench")
    if bench is None:
        return None
    entry: dict[str, Any] | None = bench["results"].get(result["configs"][target])
    return entry


def _judged(result: Mapping[str, Any], row: dict[str, Any], target: str) -> dict[str, Any]:
    """``row`` as it is, when ``target`` was measured on its own configuration; else with its
    figure marked as measured on another one, and not judged."""
    config, wanted = result["configs"][target], TARGET_CONFIGS[target]
    if config == wanted or row["status"] != "measured":
        return row
    now = f"{row['now']} [on {config}, not {wanted}]"
    return {**row, "now": now, "met": None, "status": "not judged"}


def _speed_row(result: Mapping[str, Any]) -> dict[str, Any]:
    entry = _entry(result, "speed")
    assert entry is not None
    cmp, spin = entry["comparison"], entry.get("spin")
    if not entry["turnproof"]["ok"]:
        return _row_of("speed", f"failed: {entry['turnproof']['reason']}", False, "failed")
    if spin is None or not spin["ok"]:
        why = "SPIN was not asked for" if spin is None else spin["reason"]
        return _row_of("speed", f"no SPIN figure: {why}", None, "not available")
    cpu = cmp["by_cpu_time"]["turnproof_over_spin"]
    now = f"{_short_ratio(cpu)} by CPU time ({_short_ratio(cmp['turnproof_over_spin'])} wall)"
    rumur = cmp["by_cpu_time"]["turnproof_over_rumur"]
    if rumur is not None:
        now += f"; Rumur {_short_ratio(rumur)}"
    return _row_of("speed", now, BASELINES["speed"].is_met(cpu))


def _short_ratio(r: float | None) -> str:
    if r is None:
        return "n/a"
    return f"{r:.2f}" if r >= 1 else f"1/{1 / r:.1f}"


def _magic_row(result: Mapping[str, Any]) -> dict[str, Any]:
    magic = result["magic"]
    ratios = magic["ratios"]
    if ratios is None:
        path = "compiled" if not magic["compiled"]["ok"] else "interpreted"
        return _row_of("magic", f"failed ({path}): {magic[path]['reason']}", False, "failed")
    fast, slow = magic["compiled"], magic["interpreted"]
    now = (
        f"{ratios['by_cpu_time']:.2f}x by CPU time ({_fmt_rate(fast['states_per_cpu_second'])} "
        f"vs {_fmt_rate(slow['states_per_cpu_second'])}/CPU s; {ratios['by_wall_time']:.2f}x wall)"
    )
    return _row_of("magic", now, BASELINES["magic"].is_met(ratios["by_cpu_time"]))


def _cores_row(result: Mapping[str, Any]) -> dict[str, Any]:
    cores = result["cores"]
    one, many, n = cores["one"], cores["many"], cores["workers"]
    for label, run in (("1 process", one), (f"{n} workers", many)):
        if not run["ok"]:
            return _row_of("cores", f"failed ({label}): {run['reason']}", False, "failed")
    if not many["worker_processes"]:
        now = f"{n} workers asked for, none took part: {many['sequential_because']}"
        return _row_of("cores", now, False)
    now = (
        f"{cores['speedup']:.2f}x by wall time ({_minutes(one['median_seconds'])} vs "
        f"{_minutes(many['median_seconds'])}; {cores['cpu_ratio']:.2f}x the CPU time)"
    )
    met = BASELINES["cores"].is_met(cores["speedup"]) and cores["counts_agree"]
    return _row_of("cores", now, met)


def _memory_row(result: Mapping[str, Any]) -> dict[str, Any]:
    entry = _entry(result, "memory")
    assert entry is not None
    tp = entry["turnproof"]
    if not tp["ok"]:
        return _row_of("memory", f"failed: {tp['reason']}", False, "failed")
    peak = tp["peak_bytes_per_state"]
    now = (
        f"{peak:,.0f} B/state at the peak ({tp['peak_less_before_bytes_per_state']:.0f} above "
        f"the start; {tp['peak_rss_mib']:.0f} MiB)"
    )
    return _row_of("memory", now, BASELINES["memory"].is_met(peak))


def _xl_estimate(result: Mapping[str, Any]) -> str:
    """How long XL would take: ten times L's median in this run (ten times the states), else
    the recorded run."""
    entry = _entry(result, "memory")
    if result["configs"]["memory"] == "L" and entry is not None and entry["turnproof"]["ok"]:
        minutes = 10 * max(entry["turnproof"]["process_wall_seconds"]) / 60
        return f"about {max(round(minutes), 1)} minutes, 10 x L's time here"
    return (
        f"about {round(XL_RECORDED['cpu_seconds'] / 60)} minutes of CPU time; "
        f"{round(XL_RECORDED['wall_seconds'] / 60)} wall at load 10"
    )


def _xl_row(result: Mapping[str, Any]) -> dict[str, Any]:
    big = result.get("xl")
    if big is None:
        now = f"not run (pass --xl; takes {_xl_estimate(result)})"
        return _row_of("xl", now, None, "not run")
    entry = _entry(result, "xl")
    assert entry is not None
    tp = entry["turnproof"]
    if not tp["ok"]:
        return _row_of("xl", f"failed: {tp['reason']}", False, "failed")
    done = tp["complete"] and tp["matches_reference"]
    gib = tp["peak_rss_mib"] / 1024
    state = "completed" if done else "INCOMPLETE or off the reference count"
    now = (
        f"{state}: {tp['states']:,} states in {_minutes(tp['median_seconds'])}, {gib:.2f} GiB peak"
    )
    return _row_of("xl", now, done)


def _symbolic_rows(result: Mapping[str, Any]) -> list[dict[str, Any]]:
    sym = result["symbolic"]
    rows = []
    for label in ("cold", "warm"):
        key = f"symbolic-{label}"
        run = sym[label]
        if not run["ok"]:
            rows.append(_row_of(key, f"failed: {run['reason']}", False, "failed"))
            continue
        wall = run["wall_seconds"]
        now = f"{_minutes(wall)} wall (exit code {run['exit_code']})"
        rows.append(_row_of(key, now, BASELINES[key].is_met(wall)))
    judged = [sym[k] for k in ("cold", "warm") if sym[k]["ok"]]
    if not judged:
        rows.append(_row_of("symbolic-proofs", "no verdicts: both runs failed", False, "failed"))
        return rows
    bad = {p["property"]: p for run in judged for p in run["problems"]}
    holds = {v["property"] for run in judged for v in run["verdicts"] if v["expect"] == "holds"}
    others = {v["property"] for run in judged for v in run["verdicts"]} - holds
    if bad:
        now = f"{len(bad)} not as they should be (listed below)"
    else:
        now = f"all {len(holds)} PROVED for their open bounds"
        if others:
            now += f"; {len(others)} other(s) as expected"
    rows.append(_row_of("symbolic-proofs", now, not bad))
    return rows


def target_rows(result: Mapping[str, Any]) -> list[dict[str, Any]]:
    """One row a target (three for ``symbolic``) of a :func:`run_targets` result, each with
    its title, today's figure, the figure now, ``met`` (``True``, ``False``, or ``None`` when
    it was not measured) and ``status``; and the CI row when every target was chosen."""
    chosen = result["targets"]
    rows: list[dict[str, Any]] = []
    for t in chosen:
        if t == "speed":
            rows.append(_judged(result, _speed_row(result), t))
        elif t == "magic":
            rows.append(_magic_row(result))
        elif t == "memory":
            rows.append(_judged(result, _memory_row(result), t))
        elif t == "cores":
            rows.append(_judged(result, _cores_row(result), t))
        elif t == "xl":
            rows.append(_judged(result, _xl_row(result), t))
        elif t == "symbolic":
            rows.extend(_symbolic_rows(result))
    if tuple(chosen) == TARGETS:
        rows.append(_row_of("ci", "not measured here: .ci/run measures it", None, "not measured"))
    return rows


def _problems(result: Mapping[str, Any]) -> list[str]:
    """What makes the exit code 1: counts that disagree, failed measurements, verdicts that are
    not as they should be."""
    out = []
    for bench in (result.get("bench"), result.get("xl")):
        if bench is None:
            continue
        for name, entry in bench["results"].items():
            if not entry["comparison"]["counts_agree"]:
                bad = [k for k, v in entry["comparison"]["checks"].items() if v is False]
                out.append(f"{name}: the state counts do not agree ({', '.join(bad)})")
            for tool in ("turnproof", *PEERS):
                r = entry.get(tool)
                if r is not None and r["available"] and not r["ok"]:
                    out.append(f"{name}: {tool} failed: {r['reason']}")
    measured = []
    if result.get("magic") is not None:
        measured += [(f"magic ({p})", result["magic"][p]) for p in ("compiled", "interpreted")]
    if result.get("cores") is not None:
        cores = result["cores"]
        measured += [("cores (1 process)", cores["one"])]
        measured += [(f"cores ({cores['workers']} workers)", cores["many"])]
    if result.get("symbolic") is not None:
        measured += [(f"symbolic ({k})", result["symbolic"][k]) for k in ("cold", "warm")]
    for label, r in measured:
        if not r["ok"]:
            out.append(f"{label}: failed: {r['reason']}")
        elif "problems" in r:  # a symbolic run: its verdicts, judged (the reasons are in it)
            out += [f"{label}: {p['property']}: {p['why'].split(': ')[0]}" for p in r["problems"]]
        elif not r["matches_reference"]:
            out.append(
                f"{label}: {r['states']:,} states, {r['transitions']:,} transitions; the "
                f"reference is {r['reference_states']:,} and {r['reference_edges']:,}"
            )
    return out


# -- the text for people --------------------------------------------------------------------------


def _met_text(row: Mapping[str, Any]) -> str:
    if row["met"] is None:
        return "not run" if row["status"] == "not run" else "n/a"
    return "yes" if row["met"] else "no"


def _table(rows: Sequence[Mapping[str, Any]]) -> list[str]:
    headers = ("target", "today", "now", "met?")
    cells = tuple((r["title"], r["today"], r["now"], _met_text(r)) for r in rows)
    return TextTable(headers, cells).plain().splitlines()


def _magic_lines(magic: Mapping[str, Any]) -> list[str]:
    states = magic["reference_states"]
    lines = [f"default Magic model (turnproof check's): reference {states:,} states", _HEADER]
    lines.append(_row("turnproof compiled", magic["compiled"]))
    lines.append(_row("turnproof interpreted", magic["interpreted"]))
    ratios = magic["ratios"]
    if ratios is not None:
        today = dict(BASELINES["magic"].figures)["states_per_cpu_second"]
        lines.append(
            f"  compiled/interpreted = {ratios['by_cpu_time']:.2f} by CPU time, "
            f"{ratios['by_wall_time']:.2f} by wall time; the compiled path is "
            f"{magic['compiled']['states_per_cpu_second'] / today:.2f}x today's "
            f"{_fmt_rate(today)} states/CPU s"
        )
    agree = "agree" if magic["counts_agree"] else "DO NOT AGREE"
    lines.append(f"  counts {agree} with the reference on both paths")
    return lines


def _cores_lines(config: str, cores: Mapping[str, Any]) -> list[str]:
    n = cores["workers"]
    lines = [f"{config}, the compact search in one process and with {n} worker processes:"]
    lines += [_HEADER, _row("turnproof 1 process", cores["one"])]
    lines.append(_row(f"turnproof {n} workers", cores["many"]))
    many = cores["many"]
    if many["ok"] and not many["worker_processes"]:
        lines.append(f"  the {n}-worker run stayed in one process: {many['sequential_because']}")
    if cores["speedup"] is not None:
        lines.append(
            f"  1 process/{n} workers = {cores['speedup']:.2f} by wall time; the {n}-worker run "
            f"took {cores['cpu_ratio']:.2f}x the CPU time (workers included)"
        )
    agree = "the same, and the reference" if cores["counts_agree"] else "NOT THE SAME"
    lines.append(f"  counts: {agree}")
    return lines


def _symbolic_lines(sym: Mapping[str, Any]) -> list[str]:
    lines = [f"symbolic: `{sym['command']}`, in a fresh invariant cache, then again in it"]
    for label in ("cold", "warm"):
        run = sym[label]
        if not run["ok"]:
            lines.append(f"  {label}: failed: {run['reason']}")
            continue
        verdicts = run["verdicts"]
        counts: dict[str, int] = {}
        for v in verdicts:
            counts[v["verdict"]] = counts.get(v["verdict"], 0) + 1
        tally = ", ".join(f"{n} {k}" for k, n in sorted(counts.items()))
        check = run["check_seconds"]
        own = "" if check is None else f", {_minutes(check)} by the check's own clock"
        lines.append(
            f"  {label}: {_minutes(run['wall_seconds'])} wall, {_minutes(run['cpu_seconds'])} "
            f"CPU (workers included){own}; peak {run['peak_rss_mib']:.0f} MiB; exit code "
            f"{run['exit_code']}; symbolic verdicts: {tally}"
        )
        slowest = sorted(verdicts, key=lambda v: -v["seconds"])[:3]
        if slowest:
            lines.append(
                "    slowest: "
                + "; ".join(f"{v['property']} {_minutes(v['seconds'])}" for v in slowest)
            )
        for p in run["problems"]:
            lines.append(f"    NOT AS IT SHOULD BE: {p['property']}: {p['why']}")
    lines.append(f"  invariants cached by the cold run: {sym['cached_files']} file(s)")
    return lines


def format_targets(result: Mapping[str, Any]) -> str:
    """The table (target | today | now | met?), then how each was measured and judged, the
    benchmark's own table, the Magic model's, and the symbolic runs."""
    m = result["machine"]
    load = ""
    if m.get("load_at_start") is not None and m.get("load_at_end") is not None:
        load = f", load {m['load_at_start']:.2f} at start and {m['load_at_end']:.2f} at end"
    lines = [
        f"turnproof bench: the performance targets; medians of {result['repeats']} repeat(s) for the "
        f"explicit figures; Python {m['python']}, {m['cpus']} CPUs{load}",
        "",
        *_table(result["rows"]),
        "",
        f"today: {SOURCE}. How each figure now is judged:",
    ]
    for k, b in BASELINES.items():
        if k in _shown(result):
            lines.append(f"  {k}: {b.judged}." + (f" Today: {b.note}." if b.note else ""))
    if result.get("bench") is not None:
        on = result["configs"]
        parts = [f"{on[t]} ({t})" for t in ("speed", "memory") if t in result["targets"]]
        lines += ["", f"the explicit engine on {' and '.join(parts)}:", ""]
        lines.append(format_bench(result["bench"]).rstrip("\n"))
    if result.get("magic") is not None:
        lines += ["", *_magic_lines(result["magic"])]
    if result.get("cores") is not None:
        lines += ["", *_cores_lines(result["configs"]["cores"], result["cores"])]
    if result.get("xl") is not None:
        config = result["configs"]["xl"]
        entry = result["xl"]["results"][config]
        lines += ["", f"{config}, one run:", format_config(config, entry).rstrip("\n")]
    if result.get("symbolic") is not None:
        lines += ["", *_symbolic_lines(result["symbolic"])]
    if result["problems"]:
        lines += ["", "exit code 1:", *(f"  {p}" for p in result["problems"])]
    return "\n".join(lines).rstrip("\n") + "\n"


def _shown(result: Mapping[str, Any]) -> set[str]:
    return {r["row"] for r in result["rows"]}
