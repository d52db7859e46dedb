"""The processes a test's subprocess started, read from Linux's ``/proc`` (for the tests that
check that no worker outlives a command)."""

from __future__ import annotations

import contextlib
from pathlib import Path

HAS_PROC = Path("/proc/self/task").exists()


def children(pid: int) -> set[int]:
    """The process ids of ``pid``'s children (of any of its threads)."""
    found: set[int] = set()
    for task in Path(f"/proc/{pid}/task").glob("*"):
        with contextlib.suppress(OSError):
            found |= {int(c) for c in (task / "children").read_text().split()}
    return found


def descendants(pid: int) -> set[int]:
    """The process ids of ``pid``'s children, their children, and so on."""
    found: set[int] = set()
    todo = [pid]
    while todo:
        for kid in children(todo.pop()) - found:
            found.add(kid)
            todo.append(kid)
    return found


def alive(pid: int) -> bool:
    """Whether ``pid`` is a process that has not exited (a zombie has exited)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[-1].split()[0] != "Z"
