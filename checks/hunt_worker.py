"""A hunt worker process: answers pickled :class:`~turnproof.checks.hunt.Job` values read from
its standard input with pickled :class:`~turnproof.checks.hunt.ComboResult` values on its
standard output, one after another, until its input is closed (``checks/hunt.py``'s local
backend starts one per worker).

Ctrl-C is ignored here: a terminal sends it to the whole process group, and the process that
started the worker decides (it keeps the answers that had arrived and ends its workers). A
worker whose parent has gone exits: at once when the parent dies (``die_with_parent``), or
quietly when it finds its output closed."""

from __future__ import annotations

import pickle
import signal
import sys

from turnproof.checks.hunt import answer_job
from turnproof.checks.workers import die_with_parent


def main() -> None:
    die_with_parent()
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    while True:
        try:
            job = pickle.load(stdin)  # noqa: S301 - sent by the hunt's local backend
        except EOFError:
            return
        answer = answer_job(job)
        try:
            pickle.dump(answer, stdout)
            stdout.flush()
        except BrokenPipeError:
            return


if __name__ == "__main__":
    main()
