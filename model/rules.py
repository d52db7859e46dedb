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
from functools import partial
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
    """One rule: a citation, a summary, a kind and the function that computes the successor.

    ``card`` names the card a rule comes from (``card: Sundial of the Infinite``), empty for the
    rules of the game itself. ``clauses`` are the keyword values bound into ``fn`` by
    :meth:`derive`: a rule written with a clause such as ``cleanup_repeats=True`` yields, with one
    changed clause, the mutant that breaks it, without a second copy of its body.
    """

    name: str
    citation: str
    summary: str
    fn: RuleFn = field(repr=False, compare=False)
    kind: Kind = Kind.GAME
    params: tuple[tuple[str, ParamDomain], ...] = field(default=(), compare=False)
    decider: Decider | None = field(default=None, repr=False, compare=False)
    when: tuple[str, tuple[int, ...]] | None = field(default=None, compare=False)
    card: str = ""
    clauses: tuple[tuple[str, Any], ...] = field(default=(), compare=False)
    #: The player decides it themselves even when another player controls them (conceding,
    #: MTG 723.6, is never the controller's to make).
    own_choice: bool = False

    @property
    def is_automatic(self) -> bool:
        """True for rules no player decides (turn-based actions, SBAs, procedures)."""
        return self.decider is None

    @property
    def cited(self) -> str:
        """The citation, with the card when the rule comes from one (``MTG 602.5d, card:
        Sundial of the Infinite``)."""
        return f"{self.citation}, card: {self.card}" if self.card else self.citation

    def derive(
        self,
        summary: str | None = None,
        *,
        when: Mapping[str, int | Sequence[int]] | None = None,
        card: str | None = None,
        **clauses: Any,
    ) -> Rule:
        """This rule with some keyword arguments of its function fixed (its clauses), and
        optionally a new summary, stage guard or card. A mutant is a derived rule with one
        changed clause (``pass_end_step.derive("MUTANT: ...", cleanup_repeats=False)``)."""
        fn = partial(self.fn, **clauses) if clauses else self.fn
        guard = self.when if when is None else _when_guard(self.citation, when)
        return replace(
            self,
            fn=fn,
            summary=self.summary if summary is None else summary,
            when=guard,
            card=self.card if card is None else card,
            clauses=self.clauses + tuple(sorted(clauses.items())),
        )

    def source_digest(self) -> str:
        """A digest of the rule's declaration, code and bound clauses, for content hashes."""
        base = self.fn
        while isinstance(base, partial):
            base = base.func
        try:
            code = inspect.getsource(base)
        except (OSError, TypeError):
            code = getattr(base, "__qualname__", repr(base))
        clauses = ";".join(f"{k}={_digest_value(v)}" for k, v in self.clauses)
        text = (
            f"{self.name}|{self.citation}|{self.summary}|{self.kind.value}|{self.when}|"
            f"{self.card}|{clauses}|{code}"
        )
        return hashlib.sha256(text.encode()).hexdigest()


def _digest_value(value: Any) -> str:
    """A stable text for a clause value (a card instance digests to its own description)."""
    digest = getattr(value, "digest", None)
    return digest() if callable(digest) else repr(value)


def _when_guard(
    citation: str, when: Mapping[str, int | Sequence[int]]
) -> tuple[str, tuple[int, ...]]:
    if len(when) != 1:
        raise AmendmentError(f"{citation}: 'when' names exactly one field, got {list(when)}")
    ((key, values),) = when.items()
    vals = (values,) if isinstance(values, int) else tuple(values)
    return key, tuple(int(v) for v in vals)


def rule(
    citation: str,
    summary: str,
    *,
    kind: Kind = Kind.GAME,
    params: Mapping[str, ParamDomain] | None = None,
    decider: Decider | None = None,
    name: str | None = None,
    when: Mapping[str, int | Sequence[int]] | None = None,
    card: str = "",
    own_choice: bool = False,
) -> Callable[[RuleFn], Rule]:
    """Declare a rule. ``decider(s, x, b, **params)`` returns the player who decides.

    ``when={"stage": Stage.PRIORITY}`` (one field, one value or several) is part of the rule's
    guard: the rule applies only when that field has one of those values. Both engines enforce
    it (through :meth:`Action.apply`); the explicit engine also uses it to skip, in each state,
    the rules that cannot apply there.
    """
    if kind is Kind.CHOICE and decider is None:
        raise AmendmentError(f"{citation}: a player's choice must name its decider")

    guard = _when_guard(citation, when) if when else None

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
            card=card,
            own_choice=own_choice,
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


#: Attribute names of :class:`Bounds` that are not bounds: no bound may take them.
RESERVED_BOUND_NAMES = frozenset({"setup", "specs"})


class Bounds(Mapping[str, int]):
    """Concrete bound values, read as attributes (``b.players``) or as a mapping.

    ``setup`` is what the rule set composed for its rules to read besides the bounds (for a game
    built from a core and card packs: the object kinds, the cards in play and the hooks the
    cards contribute; see :mod:`turnproof.model.packs`); ``None`` for a rule set written whole.
    """

    def __init__(
        self,
        specs: Sequence[BoundSpec],
        values: Mapping[str, int] | None = None,
        *,
        setup: Any = None,
    ):
        self.setup = setup
        self._specs = {s.name: s for s in specs}
        taken = RESERVED_BOUND_NAMES & set(self._specs)
        if taken:
            raise BoundsError(f"a bound may not be named {', '.join(sorted(taken))}")
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


@dataclass(frozen=True)
class Derive:
    """Replace the rule named (or cited) ``target`` by itself with some clauses changed
    (:meth:`Rule.derive`), found when the amendment is applied: a mutant of a rule that the
    composition builds (a card's resolution) names it this way."""

    target: str
    summary: str
    clauses: tuple[tuple[str, Any], ...] = ()
    when: tuple[tuple[str, tuple[int, ...]], ...] = ()

    def label(self) -> str:
        shown = ", ".join(f"{k}={v!r}" for k, v in self.clauses + self.when)
        return f"derive {self.target}({shown})"


def derive(
    target: str,
    summary: str,
    *,
    when: Mapping[str, int | Sequence[int]] | None = None,
    **clauses: Any,
) -> Derive:
    """A :class:`Derive` amendment: ``derive("finalize", "MUTANT: ...", order="newest")``."""
    guard: tuple[tuple[str, tuple[int, ...]], ...] = ()
    if when is not None:
        guard = (_when_guard(target, when),)
    return Derive(target, summary, tuple(sorted(clauses.items())), guard)


@dataclass(frozen=True)
class DeriveHook:
    """Change clauses of what a card contributes to one of its game's hooks: the card (by its
    key or name, or ``tag:NAME``: every card in play with that tag), the hook, and the keyword
    values to bind (``simultaneous=False``)."""

    card: str
    hook: str
    clauses: tuple[tuple[str, Any], ...]
    summary: str = ""

    def label(self) -> str:
        shown = ", ".join(f"{k}={v!r}" for k, v in self.clauses)
        return f"derive {self.card}:{self.hook}({shown})"


@dataclass(frozen=True)
class ReplaceHook:
    """Put ``fn`` in place of what a card (by its key or name) contributes to one of its
    game's hooks: a generated mutant of the card's hook (``turnproof mutate``). ``fn`` takes
    what the card's own function takes (its card as ``me`` included); ``summary`` says what
    changed."""

    card: str
    hook: str
    fn: Callable[..., Any] = field(compare=False, repr=False)
    summary: str = ""

    def label(self) -> str:
        return f"replace {self.card}:{self.hook} ({self.summary})"


Amendment = Replace | Remove | Add | Variant | Derive | DeriveHook | ReplaceHook


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
    #: Today's sections that the rule set knows of, modelled or not (``("MTG 723", "Controlling
    #: Another Player")``): a number under one of them is today's number, even where an old
    #: edition used it for something else.
    sections: tuple[tuple[str, str], ...] = ()
    #: Who actually makes a choice the rules give player ``p``: ``decided_by(s, x, b, p)``
    #: (under MTG 723, the player who controls them); ``None``: always ``p``.
    decided_by: Callable[..., Term] | None = field(default=None, repr=False)
    #: What the rules read besides the bounds (``Bounds.setup``): for a rule set composed from a
    #: core and card packs, the composition (:class:`turnproof.model.packs.Setup`).
    setup: Any = field(default=None, repr=False)

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
        editions = sorted({a.edition for a in self.aliases})
        if edition is not None and edition not in editions:
            raise UnknownNameError(
                f"edition (in {citation!r})", edition, editions, plural="editions with old numbers"
            )
        if edition is None and self.is_current(full):
            return full
        matches = self.old_meanings(full, edition)
        if len({new for _, new in matches}) == 1:
            return matches[0][1]
        if matches:
            shown = "; ".join(f"{num}@{ed} is today's {new}" for ed, new in matches)
            raise AmendmentError(
                f"old rule number {citation!r} is ambiguous: {shown}; add the edition"
            )
        return full

    def is_current(self, citation: str) -> bool:
        """``citation`` is a number of today's rules: a rule cites it, or it lies under one of
        today's sections the rule set knows of."""
        return any(_under(r.citation, citation) for r in self.rules) or any(
            _under(citation, sec) for sec, _ in self.sections
        )

    def old_meanings(self, citation: str, edition: str | None = None) -> list[tuple[str, str]]:
        """``(edition, today's number)`` for each old edition in which ``citation`` (``MTG
        722.1``) had another number (only ``edition``'s, when given)."""
        out = []
        for alias in self.aliases:
            if edition is not None and alias.edition != edition:
                continue
            if _under(citation, alias.old):
                out.append((alias.edition, alias.new + citation[len(alias.old) :]))
        return out

    def explain_citation(self, citation: str) -> str:
        """Why no rule answers to ``citation`` (today's): the section it lies in, if the rule
        set knows it, and what the number meant in earlier editions."""
        today = self.resolve_citation(citation)
        parts = []
        for sec, title in self.sections:
            if _under(today, sec):
                parts.append(
                    f"{today} is in today's {sec} ({title}), which this rule set does not model"
                )
        num = today.split()[-1]
        olds = [f"{num}@{ed} (today's {new})" for ed, new in self.old_meanings(today)]
        if olds:
            parts.append("in earlier editions write " + " or ".join(olds))
        return "; ".join(parts)

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
    def card_names(self) -> tuple[str, ...]:
        """The names of the cards in play (empty for a rule set without card packs)."""
        return tuple(self.setup.card_names()) if self.setup is not None else ()

    def content_hash(self) -> str:
        """A digest of every rule's declaration and code, in order, and of the cards composed
        into the rule set (stable across runs)."""
        h = hashlib.sha256(f"{self.name}|{self.version}".encode())
        for r in self.rules:
            h.update(r.source_digest().encode())
        if self.setup is not None:
            h.update(self.setup.digest().encode())
        return h.hexdigest()[:16]

    def amend(self, *amendments: Amendment, label: str = "") -> RuleSet:
        """A new rule set with ``amendments`` applied in order."""
        rules = list(self.rules)
        applied = list(self.amended)
        setup = self.setup
        for a in amendments:
            if isinstance(a, DeriveHook | ReplaceHook):
                if setup is None:
                    raise AmendmentError(f"{a.label()}: rule set {self.name} has no card packs")
                setup = setup.derive_hook(a) if isinstance(a, DeriveHook) else setup.replace_hook(a)
                applied.append(a.label())
                continue
            if isinstance(a, Variant):
                if a.name not in self.variants:
                    raise UnknownNameError("variant", a.name, self.variants)
                current = replace(self, rules=tuple(rules), amended=(), setup=setup)
                done = current.amend(*self.variants[a.name])
                rules, setup = list(done.rules), done.setup
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
            elif isinstance(a, Derive):
                when = dict(a.when) if a.when else None
                rules[i] = target.derive(a.summary, when=when, **dict(a.clauses))
                applied.append(a.label())
            else:
                del rules[i]
                applied.append(f"remove {target.name}")
        version = self.version + (f"+{label}" if label else "")
        return replace(
            self, rules=tuple(rules), amended=tuple(applied), version=version, setup=setup
        )


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
        """The player whose choice this is."""
        if self.rule.decider is None:
            return None
        return self.rule.decider(s, x, b, **dict(self.params))


class Model:
    """A rule set with concrete bounds: what the engines explore."""

    def __init__(self, ruleset: RuleSet, bounds: Mapping[str, int] | None = None) -> None:
        self.ruleset = ruleset
        self.bounds = Bounds(ruleset.bound_specs, bounds, setup=ruleset.setup)
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

    def decided_by(self, action: Action, s: State, x: Any) -> Term | None:
        """Who actually makes the choice of ``action`` in ``s``: its decider, or the player
        who controls the decider (MTG 723), unless it is the decider's own choice."""
        p = action.decider(s, x, self.bounds)
        hook = self.ruleset.decided_by
        if p is None or hook is None or action.rule.own_choice:
            return p
        return hook(s, x, self.bounds, p)

    def describe(self) -> dict[str, Any]:
        out = {
            "name": self.ruleset.name,
            "version": self.ruleset.version,
            "content_hash": self.ruleset.content_hash(),
            "amended": list(self.ruleset.amended),
        }
        if self.ruleset.setup is not None:
            out["cards"] = list(self.ruleset.card_names())
        return out


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
