"""A last-in-first-out sequence of items, each with a controller: Magic's stack (MTG 405) and
Riftbound's chain (RB 325-340).

Written with the operations object like every rule. Pushing onto a full sequence is a declared
bound (``x.within``): the transition is cut and the verdicts say so.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from turnproof.model.schema import Seq, Term


def push(x: Any, seq: Seq, item: Any, bound: str) -> Seq:
    """``seq`` with ``item`` on top; a full ``seq`` cuts the transition at ``bound``."""
    x.within(x.Not(x.seq_is_full(seq)), bound)
    return x.seq_push(seq, item)


def newest_controller(x: Any, seq: Seq) -> Term:
    """The controller of the newest (top) item (RB 337, 340: who gains priority)."""
    return x.seq_top(seq).ctrl


def lowest_index(x: Any, seq: Seq, pred: Callable[[Any], Term]) -> tuple[Term, Term]:
    """Whether some item satisfies ``pred``, and the index of the lowest (oldest) one that does
    (the capacity when none does)."""
    out: Term = len(seq.slots)
    for k in reversed(range(len(seq.slots))):
        here = x.And(seq.length > k, pred(seq.slots[k]))
        out = x.If(here, k, out)
    return x.seq_any(seq, pred), out


def highest_index(x: Any, seq: Seq, pred: Callable[[Any], Term]) -> tuple[Term, Term]:
    """Whether some item satisfies ``pred``, and the index of the highest (newest) one that
    does (the capacity when none does)."""
    out: Term = len(seq.slots)
    for k in range(len(seq.slots)):
        here = x.And(seq.length > k, pred(seq.slots[k]))
        out = x.If(here, k, out)
    return x.seq_any(seq, pred), out
