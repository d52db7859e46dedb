"""What proved each property last time, kept so that the next run tries it first.

A cold run of the symbolic engine tries its methods in turn: the fields' domains, Spacer, the
control invariant, Spacer strengthened by the control invariant, k-induction. A property that
Spacer proved costs Spacer's search again on every run, and one that only the control invariant
proved costs Spacer's failed share first. This cache remembers, per property and model, the method
that proved it and, for Spacer, the invariant it found (as SMT-LIB text over the state variables).
For the control invariant, it keeps the fields the invariant was over (a property's own, or
those its stage two shared with others: ``proofs.Stage``), so that the next run infers the same
one. The next run tries that first, and re-checks it: a cached Spacer invariant is checked for
initiation, consecution and safety against the query as it is now, exactly as Spacer's own answer
is (in conjunction with the control invariant when Spacer found it relative to that one); the
control invariant is inferred and checked again as ever (its own cache makes that quick). Nothing
read from here is trusted: an entry that does not check (a changed rule, a changed property, a
damaged file) is passed over and the methods run in their usual order, so the verdict is what a
cold run gives, and so is the certificate. A reachability witness that the bounded search found is
kept as its rule instances, and followed again through the transition formula to a state of the
target, which gives the same shortest trace without the search. A ranking function found under a
region's invariant is kept as its features and components, and checked again on every region
transition under the invariant before it is used.

The question which declared bounds cut a reachable transition (it only adds notes to the
results) is kept too: each bound found reached is searched for again at its depth, each proved
never to cut has its invariant re-checked, and a bound the question's budget left undecided is
not asked again with the same budget and rule set (the note says it is undecided, as a cold run
with that budget said; ``TURNPROOF_PROOF_CACHE=0`` asks afresh).

The entries live beside the invariant cache (``invariants.cache_dir()``: the per-user cache
folder, or ``$TURNPROOF_INVARIANT_CACHE``), one small JSON file each, written atomically.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Sequence
from typing import Any

import z3
from turnproof.checks.cachefiles import write_whole
from turnproof.checks.invariants import _where, cache_dir
from turnproof.checks.symbolic import Encoding
from turnproof.model.properties import Property

#: Bumped when the entries' meaning changes.
VERSION = 1

#: Set to ``0``, the environment variable that turns the cache off (every run is a cold one).
ENV = "TURNPROOF_PROOF_CACHE"

SPACER = "chc-spacer"
CONTROL = "control-invariant"
#: Spacer's invariant relative to the control invariant (the proof is their conjunction).
SPACER_CONTROL = "chc-spacer-control"
BOUNDS = "bounds"
WITNESS = "witness"
RANKING = "ranking"


def enabled() -> bool:
    """Whether the cache is on (``TURNPROOF_PROOF_CACHE`` is not ``0``)."""
    return os.environ.get(ENV, "1") != "0"


def _name(prefix: str, enc: Encoding, *parts: str) -> str | None:
    """An entry's name: what every entry depends on (turnproof's entry version, Z3's version,
    the rule set's content, the bounds, the open bounds) and ``parts``; ``None`` with the
    cache off."""
    if not enabled():
        return None
    model = enc.model
    bounds = ",".join(f"{k}={v}" for k, v in sorted(model.bounds.items()))
    common = [
        f"v{VERSION}",
        z3.get_version_string(),
        model.ruleset.name,
        model.ruleset.content_hash(),
        bounds,
        "open=" + ",".join(enc.open_bounds),
    ]
    return f"{prefix}-" + hashlib.sha256("|".join([*common, *parts]).encode()).hexdigest()[:24]


def key(prop: Property, enc: Encoding, prefix: str = "proof") -> str | None:
    """The entry of ``prop`` on ``enc``: besides what every entry depends on, the property (its
    name, kind and the functions it is made of) and the monitors. ``prefix`` names which of
    the property's entries: ``proof`` (what proved it) or ``antecedent`` (a path to a state
    that satisfies its antecedent, a :data:`WITNESS`)."""
    return _name(
        prefix,
        enc,
        prop.name,
        prop.kind,
        _where(prop.pred) if prop.pred is not None else "",
        _where(prop.antecedent) if prop.antecedent is not None else "",
        "monitors=" + ",".join(f"{m.name}:{_where(m.update)}" for m in enc.monitors),
    )


def holds(name: str | None, method: str) -> bool:
    """The entry ``name`` was made by ``method``."""
    entry = load(name) if name else None
    return entry is not None and entry["method"] == method


def load(name: str) -> dict[str, Any] | None:
    """The entry ``name``, or ``None`` (none, or unreadable)."""
    try:
        with open(os.path.join(cache_dir(), f"{name}.json"), encoding="utf-8") as f:
            entry = json.load(f)
    except (OSError, ValueError):
        return None
    known = (SPACER, CONTROL, SPACER_CONTROL, BOUNDS, WITNESS, RANKING)
    return entry if isinstance(entry, dict) and entry.get("method") in known else None


def store(name: str, entry: dict[str, Any]) -> None:
    """Write the entry whole (a temporary file, then a rename); no cache folder, no entry."""
    write_whole(cache_dir(), f"{name}.json", lambda f: json.dump(entry, f))


def ranking_entry(proof: Any) -> dict[str, Any]:
    """A ranking under the region's invariant: its features, components and the figures its
    certificate shows (the invariant is the invariant cache's)."""
    return {
        "method": RANKING,
        "features": [[f.name, [list(p) for p in f.parts]] for f in proof.features],
        "components": [[list(c), list(strict)] for c, strict in proof.components],
        "refinements": proof.refinements,
        "seeded": proof.seeded,
    }


def ranking_parts(entry: dict[str, Any]) -> dict[str, Any] | None:
    """A ranking entry's parts, typed; ``None`` when the entry is malformed."""
    try:
        features = [
            (str(name), tuple((int(i), None if v is None else int(v)) for i, v in parts))
            for name, parts in entry["features"]
        ]
        components = [
            ([int(c) for c in coeffs], [int(a) for a in strict])
            for coeffs, strict in entry["components"]
        ]
        return {
            "features": features,
            "components": components,
            "refinements": int(entry["refinements"]),
            "seeded": int(entry["seeded"]),
        }
    except (KeyError, TypeError, ValueError):
        return None


def witness_entry(trace: Any) -> dict[str, Any]:
    """A reachability witness the bounded search found, as its rule instances."""
    return path_entry([step.name for step in trace.steps])


def path_entry(labels: Sequence[str]) -> dict[str, Any]:
    """A path's rule instances, kept as a :data:`WITNESS`."""
    return {"method": WITNESS, "labels": list(labels)}


def witness_labels(entry: dict[str, Any]) -> tuple[str, ...]:
    labels = entry.get("labels")
    if not isinstance(labels, list) or not all(isinstance(x, str) for x in labels):
        return ()
    return tuple(labels)


def invariant_text(invariant: Any) -> str:
    """An invariant over a state's variables as SMT-LIB text (:func:`parse_invariant` reads
    it back): how a Spacer invariant is kept here, and handed to other properties' searches
    (``proofs.Lemma``)."""
    return f"(assert {invariant.sexpr()})"


def parse_invariant(text: Any, enc: Encoding) -> Any:
    """The invariant :func:`invariant_text` wrote, over ``enc``'s step-0 variables, or
    ``None`` when ``text`` is no such text over them."""
    if not isinstance(text, str):
        return None
    try:
        parsed = z3.parse_smt2_string(text, decls={str(v): v for v in enc.vars(0)})
    except z3.Z3Exception:
        return None
    return parsed[0] if len(parsed) == 1 else None


def spacer_entry(invariant: Any, method: str = SPACER) -> dict[str, Any]:
    """Spacer's invariant (``method``: :data:`SPACER`, or :data:`SPACER_CONTROL` when it holds
    relative to the control invariant, which is inferred and checked again on use)."""
    return {"method": method, "invariant": invariant_text(invariant)}


def control_entry(fields: Sequence[str], steps: int | None = None) -> dict[str, Any]:
    """A proof by the control invariant over ``fields`` (inferred and checked again on use:
    its own cache keeps the claims), by ``steps``-induction strengthened by it when given
    (the steps are tried first on use, without looking for the claims that imply it)."""
    entry: dict[str, Any] = {"method": CONTROL, "fields": list(fields)}
    if steps is not None:
        entry["steps"] = steps
    return entry


def control_steps(entry: dict[str, Any]) -> int | None:
    """The steps of an entry's proof by induction strengthened by the control invariant, when
    it says so (a whole number from 1); ``None`` otherwise."""
    steps = entry.get("steps")
    if isinstance(steps, bool) or not isinstance(steps, int) or steps < 1:
        return None
    return steps


def control_fields(entry: dict[str, Any], enc: Encoding) -> list[str] | None:
    """The fields of the control invariant an entry's proof used, when it names them and
    ``enc`` has them all; ``None`` otherwise (the query's own fields are used then)."""
    fields = entry.get("fields")
    if not isinstance(fields, list) or not fields:
        return None
    known = {p for p, _ in enc.tracked()}
    if not all(isinstance(p, str) and p in known for p in fields):
        return None
    return [str(p) for p in fields]


def spacer_invariant(entry: dict[str, Any], enc: Encoding) -> Any:
    """The invariant of a Spacer entry over ``enc``'s step-0 variables, or ``None`` when the
    text does not parse over them."""
    return parse_invariant(entry.get("invariant"), enc)


# -- which bounds cut a reachable transition ---------------------------------------------------


def bounds_key(enc: Encoding, timeout_s: float, max_depth: int) -> str | None:
    """The entry of the question which bounds cut (``None`` with the cache off): besides what
    every entry depends on, the budget the question had (an undecided answer is kept only for
    the budget it was given)."""
    return _name("bounds", enc, f"budget={timeout_s:g}", f"depth={max_depth}")


def bounds_entry(outcome: Any, invariants: dict[str, Any]) -> dict[str, Any]:
    return {
        "method": BOUNDS,
        "reached": outcome.reached,
        "unreached": outcome.unreached,
        "undecided": outcome.undecided,
        "reason": outcome.reason,
        "domain_undecided": outcome.domain_undecided,
        "invariants": {b: f"(assert {f.sexpr()})" for b, f in invariants.items()},
    }


def load_bounds(name: str) -> tuple[Any, dict[str, str]] | None:
    """A kept outcome and the Spacer invariant (text) of each bound it proved never to cut."""
    from turnproof.checks.symbolic import BoundsOutcome

    entry = load(name)
    if entry is None or entry["method"] != BOUNDS:
        return None
    try:
        outcome = BoundsOutcome(
            {str(k): int(v) for k, v in entry["reached"].items()},
            [str(b) for b in entry["unreached"]],
            [str(b) for b in entry["undecided"]],
            str(entry["reason"]),
            domain_undecided=str(entry["domain_undecided"]),
        )
        invariants = {str(k): str(v) for k, v in entry["invariants"].items()}
    except (KeyError, TypeError, ValueError, AttributeError):
        return None
    return outcome, invariants
