"""Rule consistency: the rules never fall silent, and never speak twice at once.

Two checks, asked of every reachable state (proved with the same unbounded machinery as safety
properties, so a finding is a real, reachable state with the shortest trace to it):

* **no-deadlock** (totality): a state that is not terminal enables some rule instance, or a rule
  instance is cut there by a declared bound (then the bound, not the rules, stopped the game,
  and results say so);
* **exclusive-automatic**: no state enables two automatic rule instances (turn-based actions,
  state-based actions, trigger bookkeeping, game procedures: rules no player decides), so the
  rules always say which automatic step comes next.

``check_consistency(model)`` returns one :class:`Finding` per check that does not come back
proved: a violation names the rules involved and the state, an unknown says why.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import z3
from turnproof.checks.bmc import Deadline
from turnproof.checks.proofs import Query, decide
from turnproof.checks.results import Finding
from turnproof.checks.symbolic import Encoding, concrete_moves
from turnproof.model.errors import BoundsError
from turnproof.model.rules import Model
from turnproof.model.schema import State

CHECKS = ("no-deadlock", "exclusive-automatic")


def deadlock_target(enc: Encoding) -> Any:
    """Step ``k`` is not terminal, enables no rule instance and no bound cuts one."""

    def target(k: int) -> Any:
        terminal = enc.is_terminal(k)
        cut = [enc.cut(k, bound) for bound in enc.bound_names()]
        return z3.And(z3.Not(terminal), z3.Not(z3.Or(*enc.enabled(k), *cut)))

    return target


def clash_target(enc: Encoding) -> Any:
    """Step ``k`` enables two or more automatic rule instances."""

    def target(k: int) -> Any:
        automatic = [ap.enabled for ap in enc.applied(k) if ap.action.rule.is_automatic]
        if len(automatic) < 2:
            return z3.BoolVal(False)
        return z3.Sum(*(z3.If(e, 1, 0) for e in automatic)) >= 2

    return target


def consistency_query(enc: Encoding, kind: str) -> Query:
    """The reachability question behind a ``no-deadlock`` or ``exclusive-automatic`` property."""
    if kind == "no-deadlock":
        return Query(enc, deadlock_target(enc), 0)
    if kind == "exclusive-automatic":
        return Query(enc, clash_target(enc), 0)
    raise ValueError(f"no consistency check named {kind!r}; checks are {', '.join(CHECKS)}")


def enabled_rules(model: Model, s: State) -> list[str]:
    """The rule instances enabled in ``s`` ("citation label", choices marked)."""
    return [
        f"{a.rule.citation} {a.label}" + ("" if a.rule.is_automatic else " (choice)")
        for a, t, _ in concrete_moves(model, s)
        if t is not None
    ]


def check_consistency(
    model: Model,
    *,
    timeout_s: float = 60.0,
    max_depth: int = 40,
    open_bounds: Sequence[str] = (),
) -> list[Finding]:
    """Every finding of the consistency checks on ``model`` (an empty list: both proved, for
    every value of the ``open_bounds``; see :class:`~turnproof.checks.symbolic.Encoding`)."""
    findings = []
    enc = Encoding(model, (), open_bounds)
    for kind in CHECKS:
        answer = decide(
            consistency_query(enc, kind), max_depth=max_depth, deadline=Deadline(timeout_s)
        )
        if answer.status == "safe":
            continue
        last = answer.last
        if answer.status == "unknown" or last is None:
            findings.append(Finding(kind, "unknown", answer.reason or "undecided"))
            continue
        here = model
        if answer.trace is not None and answer.trace.bounds:
            # Found with other values of the open bounds: list the rules with those values.
            try:
                here = Model(model.ruleset, {**dict(model.bounds), **answer.trace.bounds})
            except BoundsError:
                here = model
        enabled = enabled_rules(here, last)
        if kind == "no-deadlock":
            message = "a reachable state that is not terminal where no rule applies"
            rules: tuple[str, ...] = ()
        else:
            rules = tuple(sorted(r for r in enabled if not r.endswith("(choice)")))
            message = f"{len(rules)} automatic rules are enabled together"
        findings.append(
            Finding(
                kind, "violated", message, rules, model.schema.describe_value(last), answer.trace
            )
        )
    return findings
