"""Worker processes that expand nodes for the explicit engine's compact search.

The search itself stays in the calling process, the *parent*: it numbers the states, keeps the
table of codes and the edge arrays, and commits each batch exactly as the one-process search
does (:func:`turnproof.checks.explicit.explore`), so ids, edges, parents, cuts, limits and
errors are the same whatever the number of workers. What the workers take off it is the
expensive part, running the rules: a worker gets a *unit* (a run of consecutive node ids, at
most one batch), decodes the nodes from their codes, expands them with the compiled rule
instances, encodes the successors and hands back flat arrays: the successors' codes, their
rule instances, each node's number of successors, and the cuts met.

How the work travels, and why:

* The workers are forked (``multiprocessing``'s ``fork`` context) when the search has grown
  past its first states, so they inherit the compiled model, the codec and the monitors as
  they are: nothing of the model is pickled.
* The parent writes a unit's codes into the worker's slot of one shared anonymous mapping
  and sends only ``(slot, first id, count)``; the answer comes back over a pipe as raw bytes.
  Messages to a worker are tiny, so the parent never waits on sending, and a worker waiting to
  send its answer never holds the parent up: no cycle of waits.
* Each worker has :data:`SLOTS` slots: one unit expanding and the next ones waiting, so that
  it works on while the parent commits the batch before, and while its answers wait behind
  the other workers' (the parent takes the answers in id order).
* Every pipe end a process does not use is closed in it, so that a worker that dies (killed
  by the out-of-memory killer, say) shows as the end of its pipe, never as a wait that does
  not end. Its units, whose codes are still in the shared mapping, are then expanded by the
  parent itself, and it is sent no more: the search goes on, with the same results, and
  :attr:`WorkerPool.lost` says which worker was lost and how. A worker whose parent is gone
  finds its pipe closed and leaves.
* Workers ignore SIGINT: an interrupt reaches the parent, whose ``finally`` stops them
  (:meth:`WorkerPool.close`), as it does after an error or a time limit.
"""

from __future__ import annotations

import mmap
import multiprocessing
import os
import signal
from array import array
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from multiprocessing.connection import Connection
from typing import Any

import numpy as np
from turnproof.checks.encoding import Codec
from turnproof.checks.workers import die_with_parent

#: Units a worker holds at once: the one it expands and those waiting for it. With two, each
#: of two workers waited for work about 1.9 s of its 15 s on the benchmark's ``L`` (its next
#: unit is sent only once the parent has taken its last answer, in id order); with four, 0.1 s.
SLOTS = 4


@dataclass
class Unit:
    """A worker's answer for the nodes ``start..stop-1``: the successors' codes (``(m,
    words)``), their rule instances, each node's number of successors and the cuts met, as
    ``expand_batch`` gives them. When a node's expansion raised, ``failed_at`` is that node
    and the answer covers the nodes before it (the parent runs that node again itself, to
    raise what the one-process search raises)."""

    start: int
    stop: int
    codes: np.ndarray
    acts: array
    counts: array
    cut_log: list[tuple[int, int, str]]
    failed_at: int = -1


def _serve(
    slot_of: np.ndarray,
    inbox: Connection,
    outbox: Connection,
    others: Sequence[Connection],
    codec: Codec,
    expanders: Any,
    field_index: int,
    monitor: Callable[..., Any],
    parent: int,
) -> None:
    """A worker's loop: take a unit, answer it, until told to stop or the parent is gone (it
    dies with the parent, even one killed by SIGKILL)."""
    die_with_parent(parent)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    for conn in others:
        conn.close()
    while True:
        try:
            msg = inbox.recv()
        except (EOFError, OSError):
            return
        if msg is None:
            return
        slot, start, n = msg
        unit = expand_unit(codec, expanders, field_index, monitor, slot_of[slot, :n], start)
        try:
            outbox.send((start, unit.failed_at, unit.cut_log))
            outbox.send_bytes(unit.codes.data)  # the array's own buffer: no copy
            outbox.send_bytes(unit.acts)
            outbox.send_bytes(unit.counts)
        except (BrokenPipeError, OSError):
            return


def expand_unit(
    codec: Codec,
    expanders: Any,
    field_index: int,
    monitor: Callable[..., Any],
    codes: np.ndarray,
    start: int,
) -> Unit:
    """The answer for the nodes of ``codes`` (ids ``start`` on): what a worker computes, and
    what the parent computes itself for a lost worker's units."""
    words = codec.words
    nodes = codec.decode_many(codes)
    acts, counts = array("i"), array("i")
    cut_log: list[tuple[int, int, str]] = []
    ws = [array("Q") for _ in range(words)]
    try:
        codec.expand_codes(
            nodes,
            expanders,
            field_index,
            start,
            None,
            acts,
            counts,
            cut_log,
            monitor,
            *(w.append for w in ws),
        )
    except Exception:
        # The nodes before the one that raised are answered; the parent runs that one
        # again itself.
        failed_at = start + len(counts)
        done = sum(counts)
        del acts[done:]
        for w in ws:
            del w[done:]
        cut_log = [c for c in cut_log if c[0] < failed_at]
    else:
        failed_at = -1
    if words == 1:
        rows = np.frombuffer(ws[0], np.uint64).reshape(-1, 1)
    else:
        rows = np.stack([np.frombuffer(w, np.uint64) for w in ws], 1)
    return Unit(start, start + len(codes), rows, acts, counts, cut_log, failed_at)


class WorkerPool:
    """``n`` forked workers expanding units for one search (see the module's docstring).

    Units are answered in the order they were sent: :meth:`send` queues one on the worker
    with the fewest units, :meth:`take` gives back the oldest unit's answer."""

    def __init__(
        self,
        n: int,
        codec: Codec,
        expanders: Any,
        field_index: int,
        monitor: Callable[..., Any],
        unit: int,
    ) -> None:
        ctx = multiprocessing.get_context("fork")
        self.words = codec.words
        self.unit = unit
        self._here = (codec, expanders, field_index, monitor)  # to expand a lost worker's units
        self._dead: set[int] = set()
        self._answered: dict[int, Unit] = {}  # units expanded here when no worker is left
        #: Each worker lost during the search, said in a sentence.
        self.lost: list[str] = []
        self._shared = mmap.mmap(-1, max(n * SLOTS * unit * self.words * 8, 1))
        self._slots = np.frombuffer(self._shared, dtype=np.uint64).reshape(
            n, SLOTS, unit, self.words
        )
        self.procs: list[Any] = []
        self._to: list[Connection] = []
        self._back: list[Connection] = []
        self._free: list[list[int]] = []
        self._queued: deque[tuple[int, int, int, int]] = deque()  # start, stop, worker, slot
        self._next = 0
        try:
            for w in range(n):
                inbox, to = ctx.Pipe(duplex=False)
                back, outbox = ctx.Pipe(duplex=False)
                others = [*self._to, *self._back, to, back]
                proc = ctx.Process(
                    target=_serve,
                    args=(
                        self._slots[w],
                        inbox,
                        outbox,
                        others,
                        codec,
                        expanders,
                        field_index,
                        monitor,
                        os.getpid(),
                    ),
                    name=f"turnproof-explore-{w}",
                    daemon=True,
                )
                proc.start()
                inbox.close()
                outbox.close()
                self.procs.append(proc)
                self._to.append(to)
                self._back.append(back)
                self._free.append(list(range(SLOTS)))
        except BaseException:
            self.close()
            raise

    @property
    def queued(self) -> int:
        """Units sent and not yet taken."""
        return len(self._queued)

    def has_room(self) -> bool:
        """A live worker has a free slot, or none is left (the parent expands what it sends)."""
        live = [w for w in range(len(self.procs)) if w not in self._dead]
        return any(self._free[w] for w in live) if live else len(self._queued) < SLOTS

    @property
    def next_start(self) -> int | None:
        """The first node of the oldest unit not yet taken."""
        return self._queued[0][0] if self._queued else None

    def send(self, codes: np.ndarray, start: int) -> None:
        """Queue the nodes of ``codes`` (ids ``start`` on) on the worker with the most room
        (the next one in turn among equals)."""
        n = len(self.procs)
        live = [k for k in range(n) if k not in self._dead]
        count = len(codes)
        if not live:
            self._answered[start] = expand_unit(*self._here, codes, start)
            self._queued.append((start, start + count, -1, -1))
            return
        w = max(live, key=lambda k: (len(self._free[k]), -((k - self._next) % n)))
        slot = self._free[w].pop()
        self._slots[w, slot, :count] = codes
        try:
            self._to[w].send((slot, start, count))
        except OSError:  # it died: the unit is expanded here when its turn comes
            self._lose(w, start, start + count)
        self._queued.append((start, start + count, w, slot))
        self._next = (w + 1) % n

    def take(self) -> Unit:
        """The answer for the oldest unit sent: its worker's, or, when that worker is lost, the
        one this process computes from the unit's codes (still in the shared mapping)."""
        start, stop, w, slot = self._queued.popleft()
        if w < 0:
            return self._answered.pop(start)
        if w in self._dead:
            return self._expand_here(w, slot, start, stop)
        conn = self._back[w]
        try:
            got, failed_at, cut_log = conn.recv()
            assert got == start, "a worker answers its units in order"
            codes = np.frombuffer(conn.recv_bytes(), dtype=np.uint64).reshape(-1, self.words)
            acts, counts = array("i"), array("i")
            acts.frombytes(conn.recv_bytes())
            counts.frombytes(conn.recv_bytes())
        except (EOFError, OSError):
            self._lose(w, start, stop)
            return self._expand_here(w, slot, start, stop)
        self._free[w].append(slot)
        return Unit(start, stop, codes, acts, counts, cut_log, failed_at)

    def _lose(self, w: int, start: int, stop: int) -> None:
        """Worker ``w`` is gone (or stopped answering: it is ended): send it nothing more."""
        if w in self._dead:
            return
        proc = self.procs[w]
        proc.join(timeout=1.0)
        how = _exit_text(proc.exitcode) if proc.exitcode is not None else "stopped answering"
        if proc.exitcode is None:
            proc.kill()
            proc.join()
        self._dead.add(w)
        self.lost.append(
            f"exploring worker {w} (pid {proc.pid}) {how} while expanding states "
            f"{start}..{stop - 1}; this process expanded its units instead"
        )

    def _expand_here(self, w: int, slot: int, start: int, stop: int) -> Unit:
        return expand_unit(*self._here, self._slots[w, slot, : stop - start].copy(), start)

    def close(self) -> None:
        """Stop every worker and wait for it (killing one that does not stop at once)."""
        for conn in self._to:
            try:
                conn.send(None)
            except (BrokenPipeError, OSError):
                pass
        for conn in (*self._to, *self._back):
            conn.close()
        for proc in self.procs:
            proc.join(timeout=2.0)
            if proc.exitcode is None:
                proc.kill()
                proc.join()
        self._to, self._back, self.procs = [], [], []
        self._queued.clear()


def _exit_text(code: int) -> str:
    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        return f"was killed by {name}"
    return f"exited with code {code}"


def live_workers() -> list[int]:
    """Pids of this process's exploring workers still alive (for tests and diagnostics)."""
    return [
        p.pid
        for p in multiprocessing.active_children()
        if p.name.startswith("turnproof-explore-") and p.pid is not None and p.pid != os.getpid()
    ]
