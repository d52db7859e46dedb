"""Test-session settings shared by every test module."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest


@pytest.fixture(scope="session", autouse=True)
def _session_invariant_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """One invariant cache per test run: an invariant a slow test infers is read back (and
    re-checked) by the later tests on the same model instead of being inferred again, and no
    run reads what an earlier run left in the machine's cache. Under pytest-xdist (``-n``)
    the workers share it (writes are atomic)."""
    key = "TURNPROOF_INVARIANT_CACHE"
    old = os.environ.get(key)
    base = tmp_path_factory.getbasetemp()
    shared = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    folder = shared / "invariants"
    folder.mkdir(exist_ok=True)
    os.environ[key] = str(folder)
    yield
    if old is None:
        os.environ.pop(key, None)
    else:
        os.environ[key] = old
