"""Which of the benchmark's peer model checkers (SPIN, Rumur) can run here, for the tests that
compare state counts with them: a peer that cannot run skips its tests, saying why."""

from __future__ import annotations

import shutil

from turnproof.scenarios.bench import GEN_ENV, PEER_SPECS, find_generator


def missing_for(peer: str) -> str | None:
    """Why ``peer`` cannot run here, or ``None`` when it can."""
    absent = [exe for exe in PEER_SPECS[peer].needs if shutil.which(exe) is None]
    if absent:
        return f"{', '.join(absent)} not installed"
    gen, source = find_generator()
    if not gen.is_file():
        return f"gen_peers.py not found at {gen} ({source}); set {GEN_ENV}"
    return None


def runnable_peers() -> list[str]:
    """The peers whose tools and generator are all here."""
    return [p for p in PEER_SPECS if missing_for(p) is None]
