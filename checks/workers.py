"""The symbolic checks of several properties, run side by side in worker processes.

Z3 terms cannot be pickled, so a worker is not sent the model: it is sent a :class:`Recipe` (the
built-in rule set's name, the variant and mutant applied, the bounds) and rebuilds the model from
it; it sends back plain :class:`~turnproof.checks.results.PropertyResult` values. A model that
cannot be rebuilt that way (a rule set built in a test, a property that is not the rule set's
own) is checked in this process instead.

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

from turnproof.model.errors import TurnproofError
from turnproof.model.properties import Property
from turnproof.model.registry import get_ruleset
from turnproof.model.rules import Model, RuleSet, Variant


@dataclass(frozen=True)
class Recipe:
    """How to rebuild a model in another process: a built-in rule set, its amendments by name
    (``("variant", name)`` or ``("mutant", name)``, in the order applied) and the bounds."""

    ruleset: str
    amendments: tuple[tuple[str, str], ...]
    bounds: tuple[tuple[str, int], ...]

    def build(self) -> Model:
        rs: RuleSet = get_ruleset(self.ruleset)
        base = rs
        for what, name in self.amendments:
            if what == "variant":
                rs = rs.amend(Variant(name), label=f"variant {name}")
            else:
                rs = rs.amend(*base.mutant(name).amendments, label=f"mutant {name}")
        return Model(rs, dict(self.bounds))


def recipe_for(model: Model, properties: Sequence[Property]) -> Recipe | None:
    """A recipe that rebuilds ``model`` with exactly the same rules, and in which every property
    is the rule set's own; ``None`` when there is none."""
    rs = model.ruleset
    try:
        base = get_ruleset(rs.name)
    except TurnproofError:
        return None
    if not all(_own_property(base, p) for p in properties):
        return None
    amendments: list[tuple[str, str]] = []
    labels = rs.version[len(base.version) :] if rs.version.startswith(base.version) else None
    if labels is None:
        return None
    for label in filter(None, labels.split("+")):
        what, _, name = label.partition(" ")
        if what not in ("variant", "mutant") or not name:
            return None
        amendments.append((what, name))
    recipe = Recipe(rs.name, tuple(amendments), tuple(sorted(model.bounds.items())))
    try:
        rebuilt = recipe.build()
    except TurnproofError:
        return None
    same = (
        rebuilt.ruleset.content_hash() == rs.content_hash()
        and rebuilt.ruleset.version == rs.version
        and dict(rebuilt.bounds) == dict(model.bounds)
        and len(rebuilt.actions) == len(model.actions)
    )
    return recipe if same else None


def _own_property(rs: RuleSet, p: Property) -> bool:
    try:
        return bool(rs.property(p.name) is p)
    except TurnproofError:
        return False


@dataclass(frozen=True)
class Task:
    """One job for a worker: a property (by name) or, with ``prop`` empty, the question which
    declared bounds cut a reachable transition."""

    recipe: Recipe
    prop: str
    timeout_s: float
    max_depth: int
    antecedent_reached: bool = False
    open_bounds: tuple[str, ...] = ()


def run_task(task: Task) -> Any:
    """Run one task in this process (the worker's entry point)."""
    from turnproof.checks import symbolic

    model = task.recipe.build()
    if not task.prop:
        return symbolic.bounds_task(model, timeout_s=task.timeout_s, max_depth=task.max_depth)
    prop = model.ruleset.property(task.prop)
    return symbolic.property_task(
        model,
        prop,
        timeout_s=task.timeout_s,
        max_depth=task.max_depth,
        antecedent_reached=task.antecedent_reached,
        open_bounds=task.open_bounds,
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
