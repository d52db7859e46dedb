"""Properties: named claims about a rule set, each with the outcome it is expected to have.

Kinds (named in kebab-case everywhere: CLI, reports, tests):

* ``always``: a state predicate ``pred(s, x, b, m)`` holds in every reachable state;
* ``step``: a transition predicate ``pred(s, t, r, x, b, m)`` holds on every reachable
  transition from ``s`` to ``t`` by rule ``r`` (the rule is a Python value in both engines,
  since the symbolic transition relation has one disjunct per rule instance);
* ``reachable``: some reachable state satisfies the predicate (a witness trace answers it);
* ``terminates``: no cycle lies inside the region ``pred(s, x, b, m)``; a counterexample is a
  lasso, with who could have broken the loop;
* ``no-deadlock``: every reachable non-terminal state has a successor;
* ``exclusive-automatic``: at most one automatic rule instance is enabled in any reachable state.

Predicates are written with the operations object, like rules, so both engines evaluate them.

*Monitors* give trace properties a memory without touching the rules under test: a monitor's
value is updated by the engine on every transition from ``(s, t, r)``, and the property reads it
as ``m.<name>``. The rule set never writes a monitor, so a monitor cannot be fooled by the rule it
watches (for instance, "an SBA or a trigger happened this cleanup step" is computed from the kinds
of the rules that fired).

*For all*: a property names the bounds it is meant for whatever their value (``for_all``); the
symbolic engine leaves them open, so that its proofs cover every value, and the report says so.

*Antecedents* keep implications honest: a property ``A -> B`` names ``A`` as its antecedent, and
the engines show that some reachable state satisfies it; otherwise the property is vacuous and
fails its expectation.
"""

from __future__ import annotations

from collections import namedtuple
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from turnproof.model.rules import Amendment
from turnproof.model.schema import Leaf

KINDS = ("always", "step", "reachable", "terminates", "no-deadlock", "exclusive-automatic")


class Expect(Enum):
    """What a property is expected to do on its own rule set."""

    HOLDS = "holds"  # PROVED or EXHAUSTIVE
    VIOLATED = "violated"  # a deliberately failing property: VIOLATED is the expected verdict
    WITNESSED = "witnessed"  # a reachability query that should find an example


@dataclass(frozen=True)
class Monitor:
    """A history variable: ``init(s, x, b)`` for initial states, ``update(s, t, r, m, x, b)``
    on each transition (``m`` holds the monitor values of ``s``)."""

    name: str
    domain: Leaf
    init: Callable[..., Any] = field(repr=False)
    update: Callable[..., Any] = field(repr=False)


@dataclass(frozen=True)
class Property:
    name: str
    kind: str
    description: str
    pred: Callable[..., Any] | None = field(default=None, repr=False)
    antecedent: Callable[..., Any] | None = field(default=None, repr=False)
    monitors: tuple[Monitor, ...] = ()
    citations: tuple[str, ...] = ()
    expect: Expect = Expect.HOLDS
    #: Bounds the claim is meant for *whatever their value* ("for any hand size"): the symbolic
    #: engine leaves them open (a Z3 variable from the bound's lowest value up, with no upper
    #: end), so a proof covers every value; the explicit engine checks the value in the bounds.
    for_all: tuple[str, ...] = ()
    #: For a rule set composed from cards: whether the property says anything with the cards
    #: in play (``applies_to(setup)``); a property about 'until end of combat' effects does not
    #: when no card creates one. ``None``: always.
    applies_to: Callable[[Any], bool] | None = field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"property {self.name}: kind {self.kind!r} is not one of {KINDS}")
        if self.kind in ("always", "step", "reachable", "terminates") and self.pred is None:
            raise ValueError(f"property {self.name}: a {self.kind} property needs a predicate")

    def monitor_tuple(self) -> type[tuple[Any, ...]] | None:
        """The NamedTuple class that holds this property's monitor values (None if it has none)."""
        if not self.monitors:
            return None
        return monitor_class(tuple(m.name for m in self.monitors))


_MONITOR_CLASSES: dict[tuple[str, ...], type[tuple[Any, ...]]] = {}


def monitor_class(names: tuple[str, ...]) -> type[tuple[Any, ...]]:
    """The NamedTuple class holding monitor values with these names (one class per name set)."""
    if names not in _MONITOR_CLASSES:
        _MONITOR_CLASSES[names] = namedtuple("Monitors", names)  # noqa: PYI024
    return _MONITOR_CLASSES[names]


_monitor_class = monitor_class  # the name the symbolic engine imported first


def always(name: str, description: str, pred: Callable[..., Any], **kw: Any) -> Property:
    return Property(name, "always", description, pred, **kw)


def step(name: str, description: str, pred: Callable[..., Any], **kw: Any) -> Property:
    return Property(name, "step", description, pred, **kw)


def reachable(name: str, description: str, pred: Callable[..., Any], **kw: Any) -> Property:
    kw.setdefault("expect", Expect.WITNESSED)
    return Property(name, "reachable", description, pred, **kw)


def terminates(name: str, description: str, region: Callable[..., Any], **kw: Any) -> Property:
    return Property(name, "terminates", description, region, **kw)


def no_deadlock(name: str = "no-deadlock", **kw: Any) -> Property:
    return Property(
        name,
        "no-deadlock",
        "every reachable state that is not terminal has a successor",
        **kw,
    )


def exclusive_automatic(name: str = "at-most-one-automatic-rule", **kw: Any) -> Property:
    return Property(
        name,
        "exclusive-automatic",
        "in every reachable state at most one automatic rule (turn-based action, state-based "
        "action, trigger bookkeeping, game procedure) is enabled",
        **kw,
    )


@dataclass(frozen=True)
class Mutant:
    """A deliberately wrong rule set: amendments that a named property must catch."""

    name: str
    description: str
    amendments: tuple[Amendment, ...]
    breaks: tuple[str, ...]
    bounds: dict[str, int] = field(default_factory=dict)
    #: For a rule set composed from cards: the cards (key and controller, ``None`` for each
    #: player) to check the mutant with, when they are not the rule set's own (empty: its own).
    cards: tuple[tuple[str, int | None], ...] = ()


def names(props: Sequence[Property]) -> list[str]:
    return [p.name for p in props]
