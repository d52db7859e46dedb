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

import contextlib
import ctypes
import os
import pickle
import signal
import subprocess
import sys
import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from turnproof.model.errors import TurnproofError
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


class WorkersInterrupted(KeyboardInterrupt):
    """Ctrl-C (or SIGTERM, which the command line turns into the same) while workers ran:
    every worker process has been ended; ``done`` holds the answers that had arrived, by the
    index of their task."""

    def __init__(self, done: dict[int, Any]) -> None:
        super().__init__("interrupted")
        self.done = done


@dataclass(frozen=True)
class _Failure:
    """What a worker sends back instead of an answer when its task raised a turnproof error
    (bad input found only when the worker built the scenario): the message and exit code."""

    message: str
    exit_code: int


@dataclass(frozen=True)
class Lost:
    """What :func:`run_tasks` gives for a task whose worker process ended without an answer
    (killed by a signal, such as the out-of-memory killer's SIGKILL, or crashed): the task's
    result is unknown, and the other tasks' answers stand."""

    reason: str


#: The environment variable that tells a worker process which process started it.
PARENT_ENV = "TURNPROOF_PARENT_PID"

#: Linux's prctl option: the signal a process receives when its parent dies.
_PR_SET_PDEATHSIG = 1


def die_with_parent(parent: int | None = None) -> None:
    """In a worker process: be killed at once when the process that started it dies, even by
    SIGKILL, which runs no clean-up of its own (Linux's ``PR_SET_PDEATHSIG``, through libc;
    elsewhere the worker ends when it finds its pipes closed). ``parent`` is that process's
    id (default: :data:`PARENT_ENV`'s); a worker whose parent died before it asked exits
    here."""
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if parent is None:
        given = os.environ.get(PARENT_ENV, "")
        parent = int(given) if given.isdigit() else None
    if parent is not None and os.getppid() != parent:
        os._exit(1)


_live: set[subprocess.Popen[bytes]] = set()
_live_lock = threading.Lock()


def start_worker(args: Sequence[str], *, pipe_stderr: bool = True) -> subprocess.Popen[bytes]:
    """Start a worker process, its standard input and output piped (and its standard error,
    unless ``pipe_stderr`` is false: then it is this process's), that :func:`end_workers` ends
    if it is still running then; :func:`forget` it once it has exited. The worker learns this
    process's id (:data:`PARENT_ENV`), so that it dies with it (:func:`die_with_parent`)."""
    with _live_lock:  # started and remembered at once: end_workers misses none
        proc = subprocess.Popen(
            list(args),
            env={**os.environ, PARENT_ENV: str(os.getpid())},
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE if pipe_stderr else None,
        )
        _live.add(proc)
    return proc


def forget(proc: subprocess.Popen[bytes]) -> None:
    """A worker process that has exited (or been ended): :func:`end_workers` leaves it."""
    with _live_lock:
        _live.discard(proc)


def end_workers() -> None:
    """End every worker process this process started that is still running."""
    with _live_lock:
        live = list(_live)
    for proc in live:
        with contextlib.suppress(OSError):
            proc.kill()
    for proc in live:
        with contextlib.suppress(OSError, subprocess.TimeoutExpired):
            proc.wait(timeout=5)


def run_tasks(tasks: Sequence[Task], jobs: int) -> list[Any]:
    """Every task's answer, in the order given; each task in a fresh interpreter, at most
    ``jobs`` at a time. A worker that ended without an answer (killed, crashed) gives a
    :class:`Lost` for its task, and the other tasks go on; a turnproof error a worker reported
    (bad input it found) is raised here. On Ctrl-C every worker is ended and
    :class:`WorkersInterrupted` carries the answers that had arrived. No worker outlives this
    call."""
    pool = ThreadPoolExecutor(max_workers=jobs)
    futures = [pool.submit(_run_in_subprocess, t) for t in tasks]
    try:
        return [f.result() for f in futures]
    except KeyboardInterrupt:
        pool.shutdown(wait=False, cancel_futures=True)
        end_workers()
        done = {
            i: f.result()
            for i, f in enumerate(futures)
            if f.done()
            and not f.cancelled()
            and f.exception() is None
            and not isinstance(f.result(), Lost)  # ended by the interrupt, or lost before it
        }
        raise WorkersInterrupted(done) from None
    except BaseException:
        pool.shutdown(wait=False, cancel_futures=True)
        end_workers()
        raise
    finally:
        pool.shutdown(wait=True)


def _run_in_subprocess(task: Task) -> Any:
    proc = start_worker([sys.executable, "-m", "turnproof.checks.workers"])
    try:
        out, err_bytes = proc.communicate(pickle.dumps(task))
    finally:
        forget(proc)
    code = proc.returncode
    if code != 0:
        if code < 0:
            try:
                name = signal.Signals(-code).name
            except ValueError:
                name = f"signal {-code}"
            how = f"was killed by {name}" + (" (out of memory?)" if name == "SIGKILL" else "")
        else:
            err = err_bytes.decode(errors="replace").strip().splitlines()
            how = f"failed: {err[-1]}" if err else f"exited with code {code}"
        return Lost(f"its worker process {how}")
    answer = pickle.loads(out)  # noqa: S301 - our own child's answer
    if isinstance(answer, _Failure):
        error = TurnproofError(answer.message)
        error.exit_code = answer.exit_code
        raise error
    return answer


def main() -> None:
    """Worker entry point: one pickled task on stdin, its pickled answer on stdout."""
    die_with_parent()
    # Run as ``python -m``, this module is ``__main__``: the answer's classes are pickled from
    # the module by its own name, which the parent can import.
    from turnproof.checks import workers

    task = pickle.loads(sys.stdin.buffer.read())  # noqa: S301 - sent by run_tasks
    try:
        answer = workers.run_task(task)
    except TurnproofError as exc:
        answer = workers._Failure(str(exc), exc.exit_code)
    sys.stdout.buffer.write(pickle.dumps(answer))
    sys.stdout.buffer.flush()


if __name__ == "__main__":
    main()
