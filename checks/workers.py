"""The symbolic checks of several properties, run side by side in worker processes.

Z3 terms cannot be pickled, so a worker is not sent the model: it is sent the
:class:`~turnproof.model.scenario.Scenario` (plain data: the rule set's name, the cards, the
bounds, the start, the amendments, the properties) and builds it again, exactly as the caller
did; it sends back plain :class:`~turnproof.checks.results.PropertyResult` values. A model that
is no scenario (a rule set built in a test) is checked in this process instead.

Every task starts from the same Z3 terms, created in the same order (those :func:`warm_up`
builds): Z3's answers may depend on the terms created before a query, so a fresh context per
task, always prepared the same way, keeps the output the same whatever the number of workers
and whichever worker picks a task up. Two ways give it:

* On Linux, a *fork server* per worker slot (``python -m turnproof.checks.workers --fork-server``):
  a fresh interpreter that imports the engine and builds the scenario once (the rules compiled,
  the reachable-set question answered, the shared formulas built: :func:`warm_up`), then forks
  one child per task. The child starts from that state, as a fresh interpreter that had done
  the same work would, and pays neither the imports nor the build again (about 1.2 s of a
  task's 1.5 to 2.5 s). Only the fork server forks: it is single-threaded (numpy's thread pool
  is off there, and no Z3 solver has run in it).
* Elsewhere, or when the tasks do not share one scenario, a fresh interpreter per task
  (``python -m turnproof.checks.workers``, the task pickled on its standard input, the answer
  pickled on its standard output).

Unlike ``multiprocessing``'s ``spawn`` or ``forkserver``, the caller's main module is not run
again in a worker, so a script without a ``__main__`` guard can call the engine too; and the
caller itself never forks.
"""

from __future__ import annotations

import contextlib
import ctypes
import heapq
import itertools
import os
import pickle
import queue
import signal
import struct
import subprocess
import sys
import tempfile
import threading
import traceback
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import IO, Any

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
    #: Run before the explicit engine handed over its traces: the answer is an :class:`Early`.
    early: bool = False
    #: The part of a safety property's check to run (a :class:`~turnproof.checks.proofs.Stage`;
    #: ``None``: all of it).
    stage: Any = None
    #: Instead of checking the property: infer the invariant that its stage two shares with
    #: the others of its encoding (over ``stage.shared``, in the control invariant's share of
    #: ``timeout_s``), into the invariant cache; the answer is a
    #: :class:`~turnproof.checks.symbolic.SharedInvariant`.
    invariant: bool = False


@dataclass(frozen=True)
class Early:
    """The answer of an ``early`` task, and whether it asked for the explicit engine's trace
    (which it did not have yet): one that did not ask is the answer it would have had."""

    result: Any
    guide_asked: bool


def run_task(task: Task) -> Any:
    """Run one task in this process (the worker's entry point)."""
    from turnproof.checks import symbolic

    built = task.scenario.build()
    model = built.model
    if not task.prop:
        return symbolic.bounds_task(model, timeout_s=task.timeout_s, max_depth=task.max_depth)
    prop = built.property(task.prop)
    if task.invariant:
        return symbolic.shared_invariant_task(
            model, prop, task.stage.shared, budget_s=task.timeout_s, open_bounds=task.open_bounds
        )
    answer = symbolic.property_task(
        model,
        prop,
        timeout_s=task.timeout_s,
        max_depth=task.max_depth,
        antecedent_reached=task.antecedent_reached,
        open_bounds=task.open_bounds,
        guide=task.guide,
        stage=task.stage,
    )
    if task.early:
        from turnproof.checks import proofs

        return Early(answer, proofs.guide_asked)
    return answer


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


def start_worker(
    args: Sequence[str],
    *,
    pipe_stderr: bool = True,
    stderr: IO[bytes] | None = None,
    env: dict[str, str] | None = None,
) -> subprocess.Popen[bytes]:
    """Start a worker process, its standard input and output piped (and its standard error,
    unless ``pipe_stderr`` is false: then it is this process's, or the file ``stderr``), that
    :func:`end_workers` ends if it is still running then; :func:`forget` it once it has
    exited. The worker learns this process's id (:data:`PARENT_ENV`), so that it dies with it
    (:func:`die_with_parent`); ``env`` is added to its environment."""
    with _live_lock:  # started and remembered at once: end_workers misses none
        proc = subprocess.Popen(
            list(args),
            env={**os.environ, **(env or {}), PARENT_ENV: str(os.getpid())},
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE if pipe_stderr else stderr,
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
    """Every task's answer, in the order given, at most ``jobs`` at a time (see :class:`Pool`).
    A worker that ended without an answer (killed, crashed) gives a :class:`Lost` for its
    task, and the other tasks go on; a turnproof error a worker reported (bad input it found)
    is raised here. On Ctrl-C every worker is ended and :class:`WorkersInterrupted` carries
    the answers that had arrived. No worker outlives this call."""
    shared = len({t.scenario for t in tasks}) == 1 and len(tasks) > 1
    pool = Pool(min(jobs, len(tasks)), tasks[0].scenario if shared else None)
    futures = [pool.submit(t) for t in tasks]
    try:
        return [f.result() for f in futures]
    except KeyboardInterrupt:
        pool.interrupt()
        raise WorkersInterrupted(answered(futures)) from None
    except BaseException:
        pool.interrupt()
        raise
    finally:
        pool.close()


@dataclass(frozen=True)
class Findings:
    """What the explicit engine found that the symbolic engine uses: the properties whose
    antecedent it reached, the rule instances of its traces by property, and, when one of its
    searches was complete, which bounds cut a reachable transition at the model's bounds (bound
    -> the depth of the shallowest state where one does, :meth:`~turnproof.checks.explicit.
    Exploration.first_cuts`; ``None`` otherwise)."""

    reached: frozenset[str] = frozenset()
    guides: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    cuts: Mapping[str, int] | None = None


class Handover:
    """What the explicit engine found (:class:`Findings`), handed to a symbolic engine that
    started beside it (:func:`turnproof.checks.runner.run_check`). The symbolic engine starts
    every task at once, and checks again, once they are handed over (:meth:`wait`), those whose
    answer depends on them; :meth:`interrupt` (Ctrl-C) ends its workers."""

    def __init__(self) -> None:
        self._given = threading.Event()
        self._value: Findings | None = None
        self.interrupted = False
        self._on_interrupt: list[Any] = []
        self._lock = threading.Lock()

    def give(
        self,
        reached: Iterable[str],
        guides: Mapping[str, tuple[str, ...]],
        cuts: Mapping[str, int] | None = None,
    ) -> None:
        self._value = Findings(
            frozenset(reached), dict(guides), None if cuts is None else dict(cuts)
        )
        self._given.set()

    def wait(self) -> Findings | None:
        """What was given, once it is; ``None`` when interrupted first."""
        self._given.wait()
        return self.now()

    def now(self) -> Findings | None:
        """What was given, if it has been (and no interrupt came); ``None`` otherwise."""
        return None if self.interrupted or not self._given.is_set() else self._value

    def on_interrupt(self, fn: Any) -> None:
        """Call ``fn()`` on :meth:`interrupt` (at once, if it has happened)."""
        with self._lock:
            if not self.interrupted:
                self._on_interrupt.append(fn)
                return
        fn()

    def interrupt(self) -> None:
        with self._lock:
            self.interrupted = True
            todo, self._on_interrupt = self._on_interrupt, []
        self._given.set()
        for fn in todo:
            fn()


def answered(futures: Sequence[Future[Any]]) -> dict[int, Any]:
    """The answers that had arrived when the workers were ended, by index: not the tasks
    ended by the interrupt, nor those lost before it."""
    return {
        i: f.result()
        for i, f in enumerate(futures)
        if f.done()
        and not f.cancelled()
        and f.exception() is None
        and not isinstance(f.result(), Lost)
    }


class Pool:
    """Worker processes that run tasks handed to them one by one (:meth:`submit`), at most
    ``jobs`` at a time. With a ``scenario`` that every task shares, on Linux, each of the
    ``jobs`` slots is a :class:`ForkServer`; otherwise each task gets a fresh interpreter.
    :meth:`close` once done (or :meth:`interrupt`, to end every task at once)."""

    def __init__(self, jobs: int, scenario: Scenario | None = None) -> None:
        self.jobs = max(1, jobs)
        self._threads = ThreadPoolExecutor(max_workers=self.jobs)
        # The tasks not started, best first: (0 for a task submitted ``first``, else 1; the
        # order of submission; the task; its answer to come).
        self._pending: list[tuple[int, int, Task | Callable[[], Task], Future[Any]]] = []
        self._count = itertools.count()
        self._slots: list[ForkServer] = []
        self._free: queue.SimpleQueue[ForkServer] = queue.SimpleQueue()
        self._procs: set[subprocess.Popen[bytes]] = set()  # this pool's fresh interpreters
        self._lock = threading.Lock()
        self._cap = self.jobs  # tasks that may run at once (see limit)
        self._running = 0
        self._turn = threading.Condition()
        if scenario is not None and can_fork():
            self._slots = [ForkServer(scenario) for _ in range(self.jobs)]
            for slot in self._slots:
                self._free.put(slot)

    def submit(self, task: Task | Callable[[], Task], *, first: bool = False) -> Future[Any]:
        """The task's answer, to come (see :func:`run_tasks`). ``task`` may be a function
        that makes it, called when a worker slot starts it. Tasks start in the order they were
        submitted, except that one submitted ``first`` starts before those not started that
        were not (a task that others wait for, submitted once the tasks are under way)."""
        answer: Future[Any] = Future()
        with self._lock:
            heapq.heappush(self._pending, (0 if first else 1, next(self._count), task, answer))
        # One turn on a thread for each task submitted: each takes the best task not started.
        self._threads.submit(self._next)
        return answer

    def _next(self) -> None:
        with self._lock:
            if not self._pending:  # taken away by an interrupt
                return
            _, _, task, answer = heapq.heappop(self._pending)
        if not answer.set_running_or_notify_cancel():
            return
        try:
            answer.set_result(self._on_server(task) if self._slots else self._fresh(task))
        except BaseException as exc:  # handed to the caller, as the executor does
            answer.set_exception(exc)

    def limit(self, cap: int) -> None:
        """Let at most ``cap`` tasks run at once (at least one, at most ``jobs``) from now on:
        fewer while another engine uses a core, so that the solvers' time budgets, which are
        wall-clock, are not shared with it."""
        with self._turn:
            self._cap = min(max(1, cap), self.jobs)
            self._turn.notify_all()

    @contextlib.contextmanager
    def _slot(self) -> Iterator[None]:
        with self._turn:
            self._turn.wait_for(lambda: self._running < self._cap)
            self._running += 1
        try:
            yield
        finally:
            with self._turn:
                self._running -= 1
                self._turn.notify_all()

    def _on_server(self, task: Task | Callable[[], Task]) -> Any:
        with self._slot():
            server = self._free.get()
            try:
                return server.run(task if isinstance(task, Task) else task())
            finally:
                self._free.put(server)

    def _fresh(self, task: Task | Callable[[], Task]) -> Any:
        with self._slot():
            made = task if isinstance(task, Task) else task()
            return _run_in_subprocess(made, self._procs, self._lock)

    def interrupt(self) -> None:
        """Cancel the tasks not started and end this pool's worker processes: the tasks they
        ran give :class:`Lost`."""
        self._threads.shutdown(wait=False, cancel_futures=True)
        with self._lock:
            procs = [s.proc for s in self._slots if s.proc is not None] + list(self._procs)
            waiting, self._pending = self._pending, []
        for _, _, _, answer in waiting:
            answer.cancel()
        for proc in procs:
            with contextlib.suppress(OSError):
                proc.kill()

    def close(self) -> None:
        """Wait for the tasks submitted, then end the fork servers."""
        self._threads.shutdown(wait=True)
        for slot in self._slots:
            slot.close()


def _run_in_subprocess(
    task: Task,
    owned: set[subprocess.Popen[bytes]] | None = None,
    lock: threading.Lock | None = None,
) -> Any:
    """One task in a fresh interpreter; its process is in ``owned`` while it runs."""
    proc = start_worker([sys.executable, "-m", "turnproof.checks.workers"])
    if owned is not None and lock is not None:
        with lock:
            owned.add(proc)
    try:
        out, err_bytes = proc.communicate(pickle.dumps(task))
    finally:
        forget(proc)
        if owned is not None and lock is not None:
            with lock:
                owned.discard(proc)
    code = proc.returncode
    if code != 0:
        err = err_bytes.decode(errors="replace").strip().splitlines()
        return _lost(code, err[-1] if err else "")
    return _answer(out)


def _lost(code: int, last_line: str) -> Lost:
    """The task of a worker process that ended with exit code ``code`` (negative: killed by
    that signal) without an answer; ``last_line``: the last line it wrote on its standard
    error, if any."""
    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        how = f"was killed by {name}" + (" (out of memory?)" if name == "SIGKILL" else "")
    else:
        how = f"failed: {last_line}" if last_line else f"exited with code {code}"
    return Lost(f"its worker process {how}")


def _answer(data: bytes) -> Any:
    """A worker's pickled answer, or the turnproof error it reported, raised here."""
    answer = pickle.loads(data)  # noqa: S301 - our own child's answer
    if isinstance(answer, _Failure):
        error = TurnproofError(answer.message)
        error.exit_code = answer.exit_code
        raise error
    return answer


# -- the fork server --------------------------------------------------------------------------


def can_fork() -> bool:
    """Whether tasks run in children of a fork server (Linux), rather than each in a fresh
    interpreter."""
    return sys.platform.startswith("linux") and hasattr(os, "fork")


_LENGTH = struct.Struct("<q")


def _put(out: IO[bytes], data: bytes, code: int = 0) -> None:
    """One message: its code (a child's exit code, or 0), its length, its bytes."""
    out.write(_LENGTH.pack(code) + _LENGTH.pack(len(data)) + data)
    out.flush()


def _take(inp: IO[bytes]) -> tuple[int, bytes] | None:
    """The next message written by :func:`_put`; ``None`` once the other end has closed."""
    head = inp.read(2 * _LENGTH.size)
    if len(head) < 2 * _LENGTH.size:
        return None
    code, size = _LENGTH.unpack(head[: _LENGTH.size])[0], _LENGTH.unpack(head[_LENGTH.size :])[0]
    data = inp.read(size)
    if len(data) < size:
        return None
    return code, data


#: Added to a fork server's environment: numpy's OpenBLAS starts no thread pool, so the server
#: stays single-threaded when it forks (the engine does no linear algebra that needs one).
_SERVER_ENV = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}


class ForkServer:
    """One worker slot: a fork server process, started at its first task and started again
    after it is lost. :meth:`run` runs one task at a time."""

    def __init__(self, scenario: Scenario) -> None:
        self.scenario = scenario
        self.proc: subprocess.Popen[bytes] | None = None
        self.stderr: IO[bytes] | None = None

    def _start(self) -> subprocess.Popen[bytes]:
        # The server's own standard error goes to a file, which nobody needs to read while it
        # runs (a pipe would fill up and block it): its last line explains a failed start.
        self.stderr = tempfile.TemporaryFile()  # noqa: SIM115 - closed in _ended
        self.proc = start_worker(
            [sys.executable, "-m", "turnproof.checks.workers", "--fork-server"],
            pipe_stderr=False,
            stderr=self.stderr,
            env=_SERVER_ENV,
        )
        assert self.proc.stdin is not None
        _put(self.proc.stdin, pickle.dumps(self.scenario))
        return self.proc

    def run(self, task: Task) -> Any:
        """The task's answer, computed in a child of the server (see :func:`run_tasks`)."""
        try:
            if self.proc is None:
                self.proc = self._start()
            proc = self.proc
            assert proc.stdin is not None and proc.stdout is not None
            _put(proc.stdin, pickle.dumps(task))
            got = _take(proc.stdout)
        except (BrokenPipeError, ConnectionResetError, ValueError):
            got = None
        if got is None:  # the server itself was lost, and its child with it
            return self._ended()
        code, data = got
        if code != 0:
            return _lost(code, _last_line(data))
        return _answer(data)

    def _ended(self) -> Lost:
        """The server process has ended (killed, crashed): the task it had is lost; the next
        task starts a new server."""
        proc, self.proc = self.proc, None
        assert proc is not None
        with contextlib.suppress(OSError):
            proc.kill()
        proc.wait()
        forget(proc)
        last = ""
        if self.stderr is not None:
            self.stderr.seek(0)
            lines = self.stderr.read().decode(errors="replace").strip().splitlines()
            last = lines[-1] if lines else ""
            self.stderr.close()
            self.stderr = None
        return _lost(proc.returncode or 1, last)

    def close(self) -> None:
        """End the server: it exits once its standard input is closed."""
        proc, self.proc = self.proc, None
        if proc is None:
            return
        with contextlib.suppress(OSError):
            assert proc.stdin is not None
            proc.stdin.close()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        forget(proc)
        if self.stderr is not None:
            self.stderr.close()
            self.stderr = None


def _last_line(data: bytes) -> str:
    """The message of a child that failed: the last line of its traceback."""
    lines = data.decode(errors="replace").strip().splitlines()
    return lines[-1] if lines else ""


def warm_up(built: Any) -> None:
    """The work most tasks of ``built`` would do first, done once: imports, the rules compiled,
    whether the model is small, and the Z3 formulas of the encoding most properties share
    (its transition and well-formedness on the first step; see
    :func:`~turnproof.checks.symbolic.shared_encoding`). A fork server does it before it
    forks, and a fresh interpreter before its task, so that every task starts from the same
    Z3 terms, in the same order, whichever way it runs. No solver runs here: Z3's timeouts
    start threads, and a fork server must not hold any when it forks."""
    from turnproof.checks import explicit, proofs, ranking, symbolic  # noqa: F401

    model = built.model
    model.initial_states()
    explicit.compiled_for(model)
    proofs._small_model(model)
    keys: dict[tuple[Any, ...], int] = {}
    for p in built.properties:
        if not p.monitors:
            keys[tuple(p.for_all)] = keys.get(tuple(p.for_all), 0) + 1
    if keys:
        common = max(keys, key=lambda k: keys[k])  # the first of the most shared, on a tie
        enc = symbolic.shared_encoding(model, (), common)
        enc.transition(0)
        enc.well_formed(0)


def serve() -> None:
    """Fork-server entry point: the scenario, then one task per message on stdin; for each, a
    child computes the answer, and the server writes it (with the child's exit code) on
    stdout. Ends when stdin is closed."""
    die_with_parent()
    from turnproof.checks import workers

    inp, out = sys.stdin.buffer, sys.stdout.buffer
    first = _take(inp)
    if first is None:
        return
    scenario = pickle.loads(first[1])  # noqa: S301 - sent by ForkServer
    failure = None
    try:
        workers.warm_up(scenario.build())
    except TurnproofError as exc:  # every task reports it, as a fresh interpreter would
        failure = pickle.dumps(workers._Failure(str(exc), exc.exit_code))
    me = os.getpid()
    while (got := _take(inp)) is not None:
        if failure is not None:
            _put(out, failure)
            continue
        read_end, write_end = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: one task, then exit without any of the server's clean-up
            os.close(read_end)
            code = 0
            try:
                die_with_parent(me)
                task = pickle.loads(got[1])  # noqa: S301 - sent by ForkServer
                try:
                    data = pickle.dumps(workers.run_task(task))
                except TurnproofError as exc:
                    data = pickle.dumps(workers._Failure(str(exc), exc.exit_code))
            except BaseException:  # noqa: BLE001 - reported to the caller as a lost task
                code, data = 1, traceback.format_exc().encode()
            with os.fdopen(write_end, "wb") as pipe:
                pipe.write(data)
            os._exit(code)
        os.close(write_end)
        with os.fdopen(read_end, "rb") as pipe:
            data = pipe.read()
        _, status = os.waitpid(pid, 0)
        _put(out, data, os.waitstatus_to_exitcode(status))


def main() -> None:
    """Worker entry point: one pickled task on stdin, its pickled answer on stdout."""
    die_with_parent()
    # Run as ``python -m``, this module is ``__main__``: the answer's classes are pickled from
    # the module by its own name, which the parent can import.
    from turnproof.checks import workers

    task = pickle.loads(sys.stdin.buffer.read())  # noqa: S301 - sent by run_tasks
    try:
        workers.warm_up(task.scenario.build())  # as a fork server would have
        answer = workers.run_task(task)
    except TurnproofError as exc:
        answer = workers._Failure(str(exc), exc.exit_code)
    sys.stdout.buffer.write(pickle.dumps(answer))
    sys.stdout.buffer.flush()


if __name__ == "__main__":
    if sys.argv[1:] == ["--fork-server"]:
        serve()
    else:
        main()
