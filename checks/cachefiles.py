"""Files of the on-disk caches (invariants, seeds, proofs, hunt results), each written whole.

A cache is an optimisation: a file that cannot be written means the result is computed again
next time, never an error. But a file must be either whole or absent, since other processes
read the folder while this one writes (a temporary file beside it, then a rename), and a write
that fails midway (a full disk) must leave neither a half file nor the temporary one.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Callable
from typing import IO, Any


def write_whole(
    folder: str, name: str, write: Callable[[IO[Any]], None], binary: bool = False
) -> bool:
    """Write ``folder/name`` with ``write(file)`` (text in UTF-8, or bytes with ``binary``):
    whole, or not at all. Whether it was written; an ``OSError`` (no folder, a full disk) is
    answered ``False``, any other error of ``write`` raised, with nothing left behind."""
    try:
        os.makedirs(folder, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=folder, suffix=".tmp")
    except OSError:
        return False
    try:
        if binary:
            with os.fdopen(fd, "wb") as f:
                write(f)
        else:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                write(f)
        os.replace(tmp, os.path.join(folder, name))
        return True
    except OSError:
        return False
    finally:
        with contextlib.suppress(OSError):
            os.unlink(tmp)  # after the rename there is nothing left to remove
