"""Rules, rule sets, amendments, bounds and the instantiated model that engines explore.

A *rule* is a Python function ``fn(s, x, b, **params) -> successor`` written against the
operations protocol (:mod:`turnproof.model.ops`), declared with :func:`rule`, which records its
citation (``MTG 514.3a``), a one-line summary, its kind, its parameters over finite domains and,
for a player's choice, who decides.

A *rule set* is a value: a name, a version (the rules document's date), an ordered tuple of rules,
the state schema, the initial states, the properties and the named rule mutants. Amendments
(:class:`Replace`, :class:`Remove`, :class:`Add`, :class:`Variant`) yield a new rule set. Old rule
numbers resolve through the rule set's aliases (``MTG 716.1a`` is today's ``MTG 724.1a``).

A :class:`Model` is a rule set instantiated with concrete bounds: the schema for those bounds,
every rule instance (rule plus one value per parameter) in a fixed order, and the initial states.
"""

from __future__ import annotations

import hashlib
import inspect
import itertools
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import Enum, IntEnum
from typing import Any

from turnproof.model.errors import AmendmentError, BoundsError, UnknownNameError
from turnproof.model.schema import Schema, State, Term


class Kind(Enum):
    """What makes a rule fire. ``CHOICE`` rules have a deciding player; the others are automatic
    unless they also name a decider (ordering one's own triggers is trigger bookkeeping *and* a
    choice)."""

    CHOICE = "choice"
    TURN_BASED = "turn-based action"
    STATE_BASED = "state-based action"
    TRIGGER = "trigger bookkeeping"
    GAME = "game procedure"


ParamDomain = Callable[["Bounds"], Sequence[int]] | Sequence[int]
Decider = Callable[..., Term]
RuleFn = Callable[..., Any]


@dataclass(frozen=True)
class Rule:
    """One rule: a citation, a summary, a kind and the function that computes the successor."""

    name: str
    citation: str
    summary: str
    fn: RuleFn = field(repr=False, compare=False)
    kind: Kind = Kind.GAME
    params: tuple[tuple[str, ParamDomain], ...] = field(default=(), compare=False)
    decider: Decider | None = field(default=None, repr=False, compare=False)
    when: tuple[str, tuple[int, ...]] | None = field(default=None, compare=False)

    @property
    def is_automatic(self) -> bool:
        """True for rules no player decides (turn-based actions, SBAs, procedures)."""
        return self.decider is None

    def source_digest(self) -> str:
        """A digest of the rule's declaration and code, for rule-set content hashes."""
        try:
            code = inspect.getsource(self.fn)
        except (OSError, TypeError):
            code = self.fn.__qualname__
        text = f"{self.name}|{self.citation}|{self.summary}|{self.kind.value}|{self.when}|{code}"
        return hashlib.sha256(text.encode()).hexdigest()


def rule(
    citation: str,
    summary: str,
    *,
    kind: Kind = Kind.GAME,
    params: Mapping[str, ParamDomain] | None = None,
    decider: Decider | None = None,
    name: str | None = None,
    when: Mapping[str, int | Sequence[int]] | None = None,
) -> Callable[[RuleFn], Rule]:
    """Declare a rule. ``decider(s, x, b, **params)`` returns the player who decides.

    ``when={"stage": Stage.PRIORITY}`` (one field, one value or several) is part of the rule's
    guard: the rule applies only when that field has one of those values. Both engines enforce
    it (through :meth:`Action.apply`); the explicit engine also uses it to skip, in each state,
    the rules that cannot apply there.
    """
    if kind is Kind.CHOICE and decider is None:
        raise AmendmentError(f"{citation}: a player's choice must name its decider")

    guard: tuple[str, tuple[int, ...]] | None = None
    if when:
        if len(when) != 1:
            raise AmendmentError(f"{citation}: 'when' names exactly one field, got {list(when)}")
        ((key, values),) = when.items()
        vals = (values,) if isinstance(values, int) else tuple(values)
        guard = (key, tuple(int(v) for v in vals))

    def wrap(fn: RuleFn) -> Rule:
        return Rule(
            name=name or fn.__name__,
            citation=citation,
            summary=summary,
            fn=fn,
            kind=kind,
            params=tuple((params or {}).items()),
            decider=decider,
            when=guard,
        )

    return wrap


# -- bounds -------------------------------------------------------------------------------


@dataclass(frozen=True)
class BoundSpec:
    """A bound of a rule set: its default and the range the rule set supports."""

    name: str
    default: int
    lo: int
    hi: int
    doc: str


class Bounds(Mapping[str, int]):
    """Concrete bound values, read as attributes (``b.players``) or as a mapping."""

    def __init__(self, specs: Sequence[BoundSpec], values: Mapping[str, int] | None = None):
        self._specs = {s.name: s for s in specs}
        merged = {s.name: s.default for s in specs}
        for key, value in (values or {}).items():
            if key not in self._specs:
                raise UnknownNameError("bound", key, self._specs)
            spec = self._specs[key]
            if isinstance(value, bool) or not isinstance(value, int):
                raise BoundsError(f"bound {key} must be a whole number, got {value!r}")
            if not spec.lo <= value <= spec.hi:
                raise BoundsError(
                    f"bound {key}={value} is out of range; {key} takes {spec.lo}..{spec.hi}"
                )
            merged[key] = value
        self._values = merged
        # Plain attributes: rules read bounds in the explicit engine's innermost loop.
        for key, value in merged.items():
            if not hasattr(Mapping, key):
                self.__dict__[key] = value

    def __getattr__(self, name: str) -> int:
        raise AttributeError(f"no bound named {name!r}; bounds are {', '.join(self._values)}")

    def __getitem__(self, key: str) -> int:
        return self._values[key]

    def __iter__(self) -> Any:
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)

    def __repr__(self) -> str:
        return "Bounds(" + ", ".join(f"{k}={v}" for k, v in self._values.items()) + ")"

    def specs(self) -> list[BoundSpec]:
        return list(self._specs.values())


def players(b: Bounds) -> range:
    """The parameter domain 'a player'."""
    return range(b.players)


# -- aliases --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Alias:
    """An old rule number: ``old`` (a section prefix such as ``MTG 716``) is today's ``new``."""

    old: str
    new: str
    edition: str
    note: str = ""


_CITE = re.compile(r"^(?:(?P<game>[A-Za-z]+)\s+)?(?P<num>[0-9][0-9A-Za-z.]*)(?:@(?P<ed>\S+))?$")


def _under(citation: str, prefix: str) -> bool:
    """True when ``citation`` is ``prefix`` or one of its subrules (``514.3a`` under ``514.3``)."""
    if citation == prefix:
        return True
    if not citation.startswith(prefix):
        return False
    nxt = citation[len(prefix)]
    last = prefix[-1]
    return nxt == "." or (last.isdigit() and nxt.isalpha())


# -- amendments -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Replace:
    """Replace the rule named (or cited) ``target`` by ``rule``."""

    target: str
    rule: Rule


@dataclass(frozen=True)
class Remove:
    target: str


@dataclass(frozen=True)
class Add:
    """Add ``rule`` after the rule ``after`` (at the end when ``after`` is empty)."""

    rule: Rule
    after: str = ""


@dataclass(frozen=True)
class Variant:
    """Select a named variant of the rule set (a stored list of amendments)."""

    name: str


Amendment = Replace | Remove | Add | Variant


@dataclass(frozen=True)
class RuleSet:
    """A named, versioned, ordered collection of rules with everything needed to explore it."""

    name: str
    game: str
    version: str
    description: str
    rules: tuple[Rule, ...]
    bound_specs: tuple[BoundSpec, ...]
    schema: Callable[[Bounds], Schema] = field(repr=False)
    initial: Callable[[Bounds], list[State]] = field(repr=False)
    terminal: Callable[..., Term] = field(repr=False)
    properties: tuple[Any, ...] = field(default=(), repr=False)
    mutants: tuple[Any, ...] = field(default=(), repr=False)
    variants: Mapping[str, tuple[Amendment, ...]] = field(default_factory=dict, repr=False)
    aliases: tuple[Alias, ...] = ()
    amended: tuple[str, ...] = ()

    # -- lookups ---------------------------------------------------------------------------
    def rule_names(self) -> list[str]:
        return [r.name for r in self.rules]

    def resolve_citation(self, citation: str) -> str:
        """Today's number for ``citation``: current numbers win; old ones go through aliases.

        ``716.1a`` and ``MTG 716.1a`` both give ``MTG 724.1a``; ``MTG 723.1a@2025-11`` names the
        late-2025 numbering explicitly (where 723 was 'Ending Turns and Phases').
        """
        m = _CITE.match(citation.strip())
        if not m:
            raise UnknownNameError("rule citation", citation, [r.citation for r in self.rules])
        game = (m.group("game") or self.game).upper()
        num, edition = m.group("num"), m.group("ed")
        full = f"{game} {num}"
        if edition is None and any(_under(r.citation, full) for r in self.rules):
            return full
        matches = []
        for alias in self.aliases:
            if edition is not None and alias.edition != edition:
                continue
            if _under(full, alias.old):
                matches.append(alias.new + full[len(alias.old) :])
        if len(set(matches)) == 1:
            return matches[0]
        if len(set(matches)) > 1:
            raise AmendmentError(
                f"old rule number {citation!r} is ambiguous: it names {', '.join(sorted(set(matches)))}; "
                f"add the edition, e.g. {citation}@{self.aliases[0].edition}"
            )
        return full

    def find_rules(self, target: str) -> list[Rule]:
        """Rules named ``target``, or cited by it (after alias resolution, subrules included)."""
        by_name = [r for r in self.rules if r.name == target]
        if by_name:
            return by_name
        try:
            cited = self.resolve_citation(target)
        except UnknownNameError:
            return []
        return [r for r in self.rules if _under(r.citation, cited)]

    def find_rule(self, target: str) -> Rule:
        found = self.find_rules(target)
        if not found:
            raise UnknownNameError("rule", target, self.rule_names())
        if len(found) > 1:
            raise AmendmentError(
                f"{target!r} names {len(found)} rules ({', '.join(r.name for r in found)}); "
                "name one of them"
            )
        return found[0]

    def property(self, name: str) -> Any:
        for p in self.properties:
            if p.name == name:
                return p
        raise UnknownNameError("property", name, [p.name for p in self.properties])

    def mutant(self, name: str) -> Any:
        for m in self.mutants:
            if m.name == name:
                return m
        raise UnknownNameError("mutant", name, [m.name for m in self.mutants])

    # -- values ----------------------------------------------------------------------------
    def content_hash(self) -> str:
        """A digest of every rule's declaration and code, in order (stable across runs)."""
        h = hashlib.sha256(f"{self.name}|{self.version}".encode())
        for r in self.rules:
            h.update(r.source_digest().encode())
        return h.hexdigest()[:16]

    def amend(self, *amendments: Amendment, label: str = "") -> RuleSet:
        """A new rule set with ``amendments`` applied in order."""
        rules = list(self.rules)
        applied = list(self.amended)
        for a in amendments:
            if isinstance(a, Variant):
                if a.name not in self.variants:
                    raise UnknownNameError("variant", a.name, self.variants)
                current = replace(self, rules=tuple(rules), amended=())
                rules = list(current.amend(*self.variants[a.name]).rules)
                applied.append(f"variant {a.name}")
                continue
            current = replace(self, rules=tuple(rules))
            if isinstance(a, Add):
                if any(r.name == a.rule.name for r in rules):
                    raise AmendmentError(f"cannot add rule {a.rule.name!r}: the name is taken")
                if a.after:
                    anchor = current.find_rule(a.after)
                    rules.insert(rules.index(anchor) + 1, a.rule)
                else:
                    rules.append(a.rule)
                applied.append(f"add {a.rule.name}")
                continue
            try:
                target = current.find_rule(a.target)
            except UnknownNameError as exc:
                raise AmendmentError(
                    f"amendment names a missing rule {a.target!r}; rules are: "
                    f"{', '.join(current.rule_names())}"
                ) from exc
            i = rules.index(target)
            if isinstance(a, Replace):
                rules[i] = a.rule
                applied.append(f"replace {target.name}")
            else:
                del rules[i]
                applied.append(f"remove {target.name}")
        version = self.version + (f"+{label}" if label else "")
        return replace(self, rules=tuple(rules), amended=tuple(applied), version=version)


# -- the instantiated model ------------------------------------------------------------------


@dataclass(frozen=True)
class Action:
    """One rule instance: a rule with one value for each of its parameters."""

    index: int
    rule: Rule
    params: tuple[tuple[str, int], ...]
    shown: tuple[str, ...] = ()  # how each parameter value reads (an enum member's name)

    @property
    def label(self) -> str:
        if not self.params:
            return self.rule.name
        shown = self.shown or tuple(str(v) for _, v in self.params)
        return (
            f"{self.rule.name}("
            + ", ".join(f"{k}={v}" for (k, _), v in zip(self.params, shown))
            + ")"
        )

    def apply(self, s: State, x: Any, b: Bounds) -> Any:
        when = self.rule.when
        if when is not None:
            value = getattr(s, when[0])
            x.require(x.Or(*(value == v for v in when[1])))
        return self.rule.fn(s, x, b, **dict(self.params))

    def decider(self, s: State, x: Any, b: Bounds) -> Term | None:
        if self.rule.decider is None:
            return None
        return self.rule.decider(s, x, b, **dict(self.params))


class Model:
    """A rule set with concrete bounds: what the engines explore."""

    def __init__(self, ruleset: RuleSet, bounds: Mapping[str, int] | None = None) -> None:
        self.ruleset = ruleset
        self.bounds = Bounds(ruleset.bound_specs, bounds)
        self.schema = ruleset.schema(self.bounds)
        self.actions: list[Action] = []
        for r in ruleset.rules:
            domains = [d(self.bounds) if callable(d) else d for _, d in r.params]
            names = [n for n, _ in r.params]
            for values in itertools.product(*domains):
                shown = tuple(v.name if isinstance(v, IntEnum) else str(v) for v in values)
                params = tuple(zip(names, (int(v) for v in values)))
                self.actions.append(Action(len(self.actions), r, params, shown))

    def initial_states(self) -> list[State]:
        return list(self.ruleset.initial(self.bounds))

    def is_terminal(self, s: State, x: Any) -> Term:
        return self.ruleset.terminal(s, x, self.bounds)

    def describe(self) -> dict[str, Any]:
        return {
            "name": self.ruleset.name,
            "version": self.ruleset.version,
            "content_hash": self.ruleset.content_hash(),
            "amended": list(self.ruleset.amended),
        }


def summarize_rules(rules: Iterable[Rule]) -> list[dict[str, str]]:
    """One row per rule, for listings: citation, name, kind, summary."""
    return [
        {
            "citation": r.citation,
            "name": r.name,
            "kind": r.kind.value + ("" if r.is_automatic else " (player's choice)"),
            "summary": r.summary,
        }
        for r in rules
    ]
