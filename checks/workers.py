"""The symbolic checks of several properties, run side by side in worker processes.

Z3 terms cannot be pickled, so a worker is not sent the model: it is sent the
:class:`~turnproof.model.scenario.Scenario` (plain data: the rule set's name, the cards, the
bounds, the start, the amendments, the properties) and builds it again, exactly as the caller
did; it sends back plain :class:`~turnproof.checks.results.PropertyResult` values. A model that
is no scenario (a rule set built in a test) is checked in this process instead.

Every task runs in a fresh interpreter (``python -m turnproof.checks.workers``, the task pickled
on its standard input, the answer pickled on its standard output): Z3's answers may depend on the
terms created before a query, so a fresh context per task keeps the output the same whatever the
number of workers and whichever worker picks a task up. Nothing is forked (Z3 holds native state
and threads), and unlike ``multiprocessing``'s ``spawn`` the caller's main module is not run again
in the worker, so a script without a ``__main__`` guard can call the engine too.
"""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from turnproof.model.scenario import Scenario


@dataclass(frozen=True)
class Task:
    """One job for a worker: a property (by name) or, with ``prop`` empty, the question which
    declared bounds cut a reachable transition."""

    scenario: Scenario
    prop: str
    timeout_s: float
    max_depth: int
    antecedent_reached: bool = False
    open_bounds: tuple[str, ...] = ()
    guide: tuple[str, ...] = ()


def run_task(task: Task) -> Any:
    """Run one task in this process (the worker's entry point)."""
    from turnproof.checks import symbolic

    built = task.scenario.build()
    model = built.model
    if not task.prop:
        return symbolic.bounds_task(model, timeout_s=task.timeout_s, max_depth=task.max_depth)
    prop = built.property(task.prop)
    return symbolic.property_task(
        model,
        prop,
        timeout_s=task.timeout_s,
        max_depth=task.max_depth,
        antecedent_reached=task.antecedent_reached,
        open_bounds=task.open_bounds,
        guide=task.guide,
    )


def default_jobs() -> int:
    """Worker processes to use: the cores this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not on Linux
        return max(1, os.cpu_count() or 1)


def run_tasks(tasks: Sequence[Task], jobs: int) -> list[Any]:
    """Every task's answer, in the order given; each task in a fresh interpreter, at most
    ``jobs`` at a time."""
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        return list(pool.map(_run_in_subprocess, tasks))


def _run_in_subprocess(task: Task) -> Any:
    done = subprocess.run(
        [sys.executable, "-m", "turnproof.checks.workers"],
        input=pickle.dumps(task),
        capture_output=True,
        check=False,
    )
    if done.returncode != 0:
        err = done.stderr.decode(errors="replace").strip().splitlines()
        raise RuntimeError(
            f"symbolic worker for {task.prop or 'bounds'} failed: {err[-1] if err else done.returncode}"
        )
    return pickle.loads(done.stdout)  # noqa: S301 - our own child's answer


def main() -> None:
    """Worker entry point: one pickled task on stdin, its pickled answer on stdout."""
    task = pickle.loads(sys.stdin.buffer.read())  # noqa: S301 - sent by run_tasks
    answer = run_task(task)
    sys.stdout.buffer.write(pickle.dumps(answer))
    sys.stdout.buffer.flush()


if __name__ == "__main__":
    main()
