"""Card packs, and the composition of a game's core with the cards in play.

A game's rules are a *core* (the turn structure, priority, the stack or chain, state-based
actions: everything the rules document says whatever the cards) and a *pack* per card. A pack
adds, each declared once:

* state fields, each with a one-line doc, its domain for the chosen bounds, its initial value
  and, for an effect that lasts a while, the *duration* at whose end the core resets it (for
  Magic: ``cleanup`` at 514.2, ``combat`` as the combat phase ends, ``turn`` as the turn ends);
* object kinds (what an item on the stack or a waiting trigger can be);
* bounds of its own (a planeswalker's starting loyalty);
* rules, each citing the card (``card: Sundial of the Infinite``) as well as the rule it
  follows; a pack rule receives its card in play as the keyword ``me`` (its controller);
* contributions to the core's *hooks*: functions the core calls at named points (a player
  draws, a creature dies, a step begins, the state-based actions ...), also given ``me``;
* what each of its kinds does when it resolves, and which of its kinds a player may cast;
* properties and mutants that only make sense with the card in play.

:func:`compose` turns a core and the cards in play into an ordinary
:class:`~turnproof.model.rules.RuleSet`. It checks the packs the way hypothesis checks a state
machine, at construction: a field, kind, bound or rule name that two packs (or a pack and the
core) both claim, a hook or duration that the core does not have, a card named twice. Each is a
:class:`CompositionError` that names the clash and the valid choices.

Cards are composed in the order of their keys, whatever order they are given in, so the same
cards always give the same rule set (and the same content hash). The kinds of the composed rule
set form one ``IntEnum`` (the core's first, then each card's), and the rules read them, the
cards and the hooks from ``b.setup`` (:class:`Setup`).
"""

from __future__ import annotations

import hashlib
import importlib
import inspect
import pkgutil
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import IntEnum
from functools import partial
from typing import Any

from turnproof.model.errors import TurnproofError, UnknownNameError
from turnproof.model.properties import Mutant, Property
from turnproof.model.rules import (
    RESERVED_BOUND_NAMES,
    Alias,
    Amendment,
    Bounds,
    BoundSpec,
    DeriveHook,
    ReplaceHook,
    Rule,
    RuleSet,
)
from turnproof.model.schema import Domain, Schema, State, Term


class CompositionError(TurnproofError):
    """Packs that cannot be composed with their core: a clash or an unknown name."""


# -- what a pack declares ------------------------------------------------------------------------


@dataclass(frozen=True)
class Field:
    """A state field: its name, its domain for the bounds (a Domain or a function of the
    bounds), a one-line doc, its initial value (a function of the bounds), and, for a field
    that holds an effect with a duration, that duration and the value it returns to."""

    name: str
    domain: Domain | Callable[[Bounds], Domain] = field(repr=False)
    doc: str
    init: Callable[[Bounds], Any] = field(repr=False)
    ends: str = ""
    reset: Callable[[Bounds], Any] | None = field(default=None, repr=False)

    def domain_for(self, b: Any) -> Domain:
        return self.domain if isinstance(self.domain, Domain) else self.domain(b)

    def reset_value(self, b: Any) -> Any:
        return (self.reset or self.init)(b)


@dataclass(frozen=True)
class KindSpec:
    """An object kind: an item on the stack or chain, or a waiting trigger.

    ``traits`` and ``stats`` are what the game's core reads about the kind, from the names its
    core declares (``Core.kind_traits``, ``Core.kind_stats``): for Riftbound, the card type
    (``spell``, ``unit``, ``gear``; an ``add`` or a ``trigger`` ability), its timing (``action``,
    ``reaction``), what it targets, and numbers such as its ``cost`` and a unit's ``might``.
    Magic's core reads none."""

    name: str
    doc: str
    traits: tuple[str, ...] = ()
    stats: tuple[tuple[str, int], ...] = ()

    def stat(self, name: str, default: int = 0) -> int:
        """The value of stat ``name`` (``default`` when the kind does not give it)."""
        return dict(self.stats).get(name, default)


@dataclass(frozen=True)
class Pack:
    """One card: what it adds to its game's core (see the module docstring).

    ``resolve`` maps a kind of this pack to what it does as it resolves,
    ``fn(s, x, b, *, me) -> state``; ``cast`` maps a kind to the condition under which a player
    who holds it may cast it, ``fn(s, x, b, p) -> Term`` (or ``None``: whenever they could cast
    an instant). ``zones`` are the zones a scenario may put the card in; ``counters`` maps a
    counter a scenario may put on it to the bound that counter sets (``choices``, likewise, what
    a scenario may choose for it). ``abstract`` marks a stand-in
    for a pattern of real cards rather than a printed card.
    """

    key: str
    name: str
    text: str
    kinds: tuple[KindSpec, ...] = ()
    fields: tuple[Field, ...] = ()
    bounds: tuple[BoundSpec, ...] = ()
    rules: tuple[Rule, ...] = ()
    hooks: Mapping[str, Callable[..., Any]] = field(default_factory=dict, repr=False)
    resolve: Mapping[str, Callable[..., Any]] = field(default_factory=dict, repr=False)
    cast: Mapping[str, Callable[..., Any] | None] = field(default_factory=dict, repr=False)
    properties: tuple[Property, ...] = field(default=(), repr=False)
    mutants: tuple[Mutant, ...] = field(default=(), repr=False)
    #: What the card offers as a target of damage besides the players' creatures, by name:
    #: ``(doc, legal(s, x, b, *, me, p), deal(s, x, b, *, me, amount))`` (a planeswalker).
    targets: Mapping[str, tuple[str, Callable[..., Any], Callable[..., Any]]] = field(
        default_factory=dict, repr=False
    )
    #: Castable kinds that deal damage to a target of the player's choice: each may be cast at
    #: every damage target in play as well (``aims={"SHOCK": "damage"}``).
    aims: Mapping[str, str] = field(default_factory=dict)
    #: Kinds whose resolution is one of the card's own rules (a choice as it resolves), not a
    #: ``resolve`` function: the core's rule for kinds without an effect leaves them alone.
    resolves_itself: tuple[str, ...] = ()
    zones: tuple[str, ...] = ("battlefield",)
    counters: Mapping[str, str] = field(default_factory=dict)
    #: What a scenario's ``[[card]]`` may choose for the card besides its counters (a Saga's
    #: ``read_ahead``), each to the bound it sets: a choice is 1 to the bound's highest value
    #: (the bound's 0 leaves it to the player).
    choices: Mapping[str, str] = field(default_factory=dict)
    abstract: bool = False
    sources: tuple[str, ...] = ()
    #: What the card does that properties may ask about ("ends the turn"), and whether each
    #: player may have one (a card in play for ``controller=None``).
    tags: tuple[str, ...] = ()
    each: bool = True
    module: str = ""
    #: What the card's objects do, stated apart from the code that does it, for the properties
    #: that watch them (a monitor reads this, never the card's own fields): for Magic,
    #: ``{"controls": {KIND: fn(item, x, b) -> ((player, controller), ...)}}``, the control
    #: effects an object of KIND creates as it resolves (723.1).
    declares: Mapping[str, Any] = field(default_factory=dict, repr=False)

    def source(self) -> str:
        """The text of the module that defines the pack (part of the composition's digest)."""
        mod = sys.modules.get(self.module)
        if mod is None:
            return self.key
        try:
            return inspect.getsource(mod)
        except (OSError, TypeError):
            return self.key


@dataclass(frozen=True)
class Card:
    """A card in play: its pack, the player who controls it (``None``: each player has one,
    as with instants in hands that are only counted), and its zone."""

    pack: Pack
    controller: int | None = None
    zone: str = ""

    @property
    def key(self) -> str:
        return self.pack.key

    @property
    def name(self) -> str:
        return self.pack.name

    def controls(self, p: Term) -> Term:
        """``p`` controls this card (always, for a card each player has)."""
        return True if self.controller is None else p == self.controller

    def digest(self) -> str:
        return f"{self.pack.key}@{self.controller}:{self.zone}"

    def __repr__(self) -> str:
        who = "each player" if self.controller is None else f"player {self.controller}"
        return f"Card({self.pack.name!r}, {who})"


@dataclass(frozen=True)
class StartKeys:
    """A game's keys of a scenario's ``[start]`` table (besides ``turn``, ``hands`` and
    ``fields``, which every game has): each with a one-line doc; ``items``, those whose value
    is a list of objects (items on the stack or chain, waiting triggers); ``changes(spec, model,
    made)``, the field changes they make to the initial state (``spec`` a
    :class:`~turnproof.model.scenario.StartSpec`, ``made`` the changes of the keys every game
    has, such as the turn; problems are :class:`~turnproof.model.scenario.SpecError` values
    that say where); and ``item(what, spec, model)``, an object of kind ``what`` as a scenario
    writes it (an :class:`~turnproof.model.scenario.ItemSpec`)."""

    keys: Mapping[str, str]
    items: tuple[str, ...]
    changes: Callable[[Any, Any, dict[str, Any]], dict[str, Any]] = field(repr=False)
    item: Callable[[int, Any, Any], Any] = field(repr=False)


@dataclass(frozen=True)
class Core:
    """The part of a game's rules that holds whatever the cards: see the module docstring.

    ``resolution(pack, kind, fn, value)`` builds the rule by which an object of a card's kind
    (whose value in the composed enum is ``value``) resolves (the core knows its citation); ``card_rules_after`` names the core rule after which the
    cards' rules go, in the composed order.
    """

    name: str
    game: str
    version: str
    description: str
    state_name: str
    fields: tuple[Field, ...]
    kinds: tuple[KindSpec, ...]
    hooks: Mapping[str, str]
    durations: Mapping[str, str]
    rules: tuple[Rule, ...]
    bound_specs: tuple[BoundSpec, ...]
    terminal: Callable[..., Term] = field(repr=False)
    resolution: Callable[[Pack, KindSpec, Callable[..., Any], int], Rule] = field(repr=False)
    card_rules_after: str = ""
    properties: tuple[Property, ...] = field(default=(), repr=False)
    mutants: tuple[Mutant, ...] = field(default=(), repr=False)
    variants: Mapping[str, tuple[Amendment, ...]] = field(default_factory=dict, repr=False)
    aliases: tuple[Alias, ...] = ()
    sections: tuple[tuple[str, str], ...] = ()
    zones: tuple[str, ...] = ("battlefield", "hand")
    kind_enum: str = "Obj"
    #: The game's card library, by key (a function, so that the library's modules may import
    #: the core).
    library: Callable[[], Mapping[str, Pack]] = field(default=lambda: {}, repr=False)
    #: Who actually makes a choice the rules give a player (``RuleSet.decided_by``).
    decided_by: Callable[..., Term] | None = field(default=None, repr=False)
    #: Core rules that apply only with some cards in play, by name: ``applies(setup)``.
    optional_rules: Mapping[str, Callable[[Any], bool]] = field(default_factory=dict, repr=False)
    #: What the core reads about an object kind (:class:`KindSpec`): the traits a kind may
    #: have and the stats it may give, each with a one-line doc.
    kind_traits: Mapping[str, str] = field(default_factory=dict)
    kind_stats: Mapping[str, str] = field(default_factory=dict)
    #: What a scenario's ``[start]`` may set for this game besides ``turn``, ``hands`` and
    #: ``fields`` (:class:`StartKeys`); ``None``: nothing else.
    start: StartKeys | None = field(default=None, repr=False)
    #: The fields a conformance fixture shows after each step (``turnproof conformance``):
    #: what an engine can observe, such as who has priority and what is on the stack; empty:
    #: every field.
    observable: tuple[str, ...] = ()
    #: Whole-number names a scenario's expressions may use besides the state's fields: name to
    #: ``(doc, fn(s, x, b))`` (Magic's ``active`` player).
    names: Mapping[str, tuple[str, Callable[..., Term]]] = field(default_factory=dict, repr=False)

    @classmethod
    def of(cls, module: Any, **parts: Any) -> Core:
        """A core whose rules are the module's declarations (``FIELDS``, ``KINDS``, ``HOOKS``,
        ``DURATIONS``, ``RULES``, ``BOUNDS``, ``terminal`` and ``resolution``: how
        ``model/magic/core.py`` and ``model/riftbound/core.py`` declare theirs) and ``parts``
        the rest."""
        return cls(
            fields=module.FIELDS,
            kinds=module.KINDS,
            hooks=module.HOOKS,
            durations=module.DURATIONS,
            rules=module.RULES,
            bound_specs=module.BOUNDS,
            terminal=module.terminal,
            resolution=module.resolution,
            **parts,
        )


# -- the composition ---------------------------------------------------------------------------


@dataclass(frozen=True)
class DamageTarget:
    """Something a spell can deal damage to besides the players' creatures (a planeswalker):
    its name, the card it is, and, given that card, when it is a legal target and what damage
    does to it."""

    name: str
    doc: str
    card: Card
    legal: Callable[..., Any] = field(repr=False)
    deal: Callable[..., Any] = field(repr=False)


@dataclass(frozen=True)
class Play:
    """What casting one castable value puts on the stack: the kind, the target (0: the card's
    own, such as the opponent's creature; ``i``: ``damage_targets[i - 1]``), the timing
    condition, the card, and the target's legality (``None``: always)."""

    kind: int
    target: int
    timing: Callable[..., Any] | None
    card: Card
    legal: Callable[..., Any] | None = None


@dataclass(frozen=True, eq=False)
class Setup:
    """What a composed rule set gives its rules besides the bounds (``b.setup``).

    ``kinds`` is the composed ``IntEnum`` of object kinds; ``cards`` the cards in play, in key
    order; ``hooks`` each hook's contributions, in card order, each already given its card as
    ``me``; ``ending`` the card fields that each duration resets; ``castable`` what a player may
    cast from hand (an ``IntEnum``: a kind, or a kind at one of the ``damage_targets``), with
    ``cast`` what each is (:class:`Play`); ``resolving_kinds`` the kinds whose resolution a
    card gives.
    """

    core: Core
    cards: tuple[Card, ...]
    kinds: type[IntEnum]
    state_cls: type[State]
    fields: tuple[Field, ...]
    hooks: Mapping[str, tuple[Callable[..., Any], ...]]
    ending: Mapping[str, tuple[Field, ...]]
    castable: tuple[IntEnum, ...]
    cast: Mapping[int, Play]
    resolving_kinds: tuple[int, ...] = ()
    damage_targets: tuple[DamageTarget, ...] = ()
    derived: tuple[DeriveHook | ReplaceHook, ...] = ()
    #: Each kind's traits and stats (:class:`KindSpec`), by the kind's value, and the kinds
    #: with each trait the core declares (in kind order), and the card each kind comes from.
    traits: Mapping[int, frozenset[str]] = field(default_factory=dict)
    stats: Mapping[int, Mapping[str, int]] = field(default_factory=dict)
    by_trait: Mapping[str, tuple[int, ...]] = field(default_factory=dict)
    owners: Mapping[int, Card] = field(default_factory=dict)

    def card_names(self) -> list[str]:
        return [c.name for c in self.cards]

    def kinds_with(self, trait: str) -> tuple[int, ...]:
        """The kinds that have ``trait`` (one the core declares), in kind order."""
        if trait not in self.by_trait:
            raise UnknownNameError("kind trait", trait, self.by_trait)
        return self.by_trait[trait]

    def has_trait(self, kind: int, trait: str) -> bool:
        """Kind ``kind`` (a value of :attr:`kinds`) has ``trait``."""
        return trait in self.traits.get(int(kind), frozenset())

    def stat(self, kind: int, name: str) -> int:
        """Kind ``kind``'s stat ``name`` (0 when it gives none)."""
        return self.stats.get(int(kind), {}).get(name, 0)

    def has(self, key: str) -> bool:
        return any(c.key == key for c in self.cards)

    def tagged(self, tag: str) -> list[Card]:
        """The cards in play whose pack carries ``tag``."""
        return [c for c in self.cards if tag in c.pack.tags]

    def card(self, key: str) -> Card:
        for c in self.cards:
            if c.key == key or c.name == key:
                return c
        raise UnknownNameError("card in play", key, [c.name for c in self.cards])

    def kind_of(self, name: str) -> int:
        """The value of the kind ``name``."""
        try:
            return int(self.kinds[name])
        except KeyError:
            raise UnknownNameError("object kind", name, self.kinds.__members__) from None

    def reset(self, s: Any, duration: str, b: Any) -> Any:
        """``s`` with every card field of ``duration`` back at its value when it ends."""
        ending = self.ending[duration]
        if not ending:
            return s
        return s.replace(**{f.name: f.reset_value(b) for f in ending})

    def reset_when(self, s: Any, x: Any, duration: str, b: Any, cond: Term) -> Any:
        """:meth:`reset`, only where ``cond`` holds."""
        ending = self.ending[duration]
        if not ending:
            return s
        return s.replace(
            **{f.name: x.If(cond, f.reset_value(b), getattr(s, f.name)) for f in ending}
        )

    def digest(self) -> str:
        """A digest of the cards in play: their packs' code and how they are in play."""
        h = hashlib.sha256()
        for c in self.cards:
            h.update(c.digest().encode())
            h.update(c.pack.source().encode())
        for d in self.derived:
            h.update(d.label().encode())
        return h.hexdigest()

    def derive_hook(self, a: DeriveHook) -> Setup:
        """This setup with one card's contribution to one hook derived (see
        :class:`~turnproof.model.rules.DeriveHook`); ``tag:NAME`` for the card derives that of
        every card in play whose pack carries the tag (every Saga's, ``tag:saga``)."""
        if a.card.startswith("tag:"):  # every card in play with the tag
            tag = a.card[len("tag:") :]
            cards = self.tagged(tag)
            if not cards:
                library = sorted(p.name for p in self.core.library().values() if tag in p.tags)
                raise CompositionError(
                    f"{a.label()} changes every card tagged {tag!r} in play, and none is: "
                    f"put one in play (cards tagged {tag!r}: {', '.join(library) or 'none'})"
                )
        else:
            cards = [self.card(a.card)]
        hooks = dict(self.hooks)
        for card in cards:
            fn = card.pack.hooks.get(a.hook)
            if fn is None:
                raise UnknownNameError("hook", a.hook, card.pack.hooks, where=f"card {card.name}")
            before = partial(fn, me=card)
            after = partial(fn, me=card, **dict(a.clauses))
            hooks[a.hook] = tuple(after if _same(f, before) else f for f in hooks[a.hook])
        return replace(self, hooks=hooks, derived=self.derived + (a,))

    def replace_hook(self, a: ReplaceHook) -> Setup:
        """This setup with one card's contribution to one hook replaced by ``a.fn`` (see
        :class:`~turnproof.model.rules.ReplaceHook`), given the card as ``me`` as the card's
        own function is."""
        card = self.card(a.card)
        fn = card.pack.hooks.get(a.hook)
        if fn is None:
            raise UnknownNameError("hook", a.hook, card.pack.hooks, where=f"card {card.name}")
        mine = partial(fn, me=card)
        hooks = dict(self.hooks)
        hooks[a.hook] = tuple(
            partial(a.fn, *f.args, **f.keywords) if isinstance(f, partial) and _same(f, mine) else f
            for f in hooks[a.hook]
        )
        return replace(self, hooks=hooks, derived=self.derived + (a,))


def kinds(b: Any) -> Any:
    """The object kinds of the composed rule set the rules run in (``kinds(b).SUNDIAL``)."""
    return b.setup.kinds


def hooks(b: Any, name: str) -> tuple[Callable[..., Any], ...]:
    """The cards' contributions to the hook ``name``, in card order."""
    return tuple(b.setup.hooks[name])


def _same(f: Callable[..., Any], g: partial[Any]) -> bool:
    return (
        isinstance(f, partial) and f.func is g.func and f.keywords.get("me") is g.keywords.get("me")
    )


def _clash(what: str, name: str, first: str, second: str) -> CompositionError:
    return CompositionError(f"{what} {name!r} is declared by both {first} and {second}")


def _owner(pack: Pack | None) -> str:
    return "the core" if pack is None else f"card {pack.name!r}"


def compose(core: Core, cards: Iterable[Card], *, description: str = "") -> RuleSet:
    """The rule set of ``core`` with ``cards`` in play (see the module docstring)."""
    chosen = sorted(cards, key=lambda c: c.key)
    keys = [c.key for c in chosen]
    for c in chosen:
        if keys.count(c.key) > 1:
            raise CompositionError(f"card {c.name!r} is in play twice; name it once")
        if c.controller is None and not c.pack.each:
            raise CompositionError(
                f"card {c.name!r} needs a controller (a player number); it cannot be in play "
                "for each player"
            )
        if c.zone and c.zone not in c.pack.zones:
            raise CompositionError(
                f"card {c.name!r} cannot be in zone {c.zone!r}; "
                f"valid zones for it: {', '.join(c.pack.zones)}"
            )
    packs = [c.pack for c in chosen]

    owners: dict[str, str] = {}

    def claim(what: str, name: str, pack: Pack | None) -> None:
        key = f"{what}:{name}"
        if key in owners:
            raise _clash(what, name, owners[key], _owner(pack))
        owners[key] = _owner(pack)

    for f in core.fields:
        claim("field", f.name, None)
    for k in core.kinds:
        claim("kind", k.name, None)
    for sp in core.bound_specs:
        claim("bound", sp.name, None)
    for r in core.rules:
        claim("rule", r.name, None)
    for pack in packs:
        for f in pack.fields:
            claim("field", f.name, pack)
            if f.ends and f.ends not in core.durations:
                raise UnknownNameError(
                    "duration", f.ends, core.durations, where=f"field {f.name} of {pack.name}"
                )
        for k in pack.kinds:
            claim("kind", k.name, pack)
            for trait in k.traits:
                if trait not in core.kind_traits:
                    raise UnknownNameError(
                        f"trait (kind {k.name} of {pack.name})", trait, core.kind_traits
                    )
            for stat, _ in k.stats:
                if stat not in core.kind_stats:
                    raise UnknownNameError(
                        f"stat (kind {k.name} of {pack.name})", stat, core.kind_stats
                    )
        for sp in pack.bounds:
            if sp.name in RESERVED_BOUND_NAMES:
                raise CompositionError(f"card {pack.name!r}: a bound may not be named {sp.name}")
            claim("bound", sp.name, pack)
        for r in pack.rules:
            claim("rule", r.name, pack)
        names = {k.name for k in pack.kinds}
        for hook in pack.hooks:
            if hook not in core.hooks:
                raise UnknownNameError("hook", hook, core.hooks, where=f"card {pack.name}")
        for kind in (*pack.resolve, *pack.cast, *pack.aims, *pack.resolves_itself):
            if kind not in names:
                raise UnknownNameError(
                    "object kind", kind, names, where=f"card {pack.name}", plural="kinds of it"
                )
        for name in pack.targets:
            claim("damage target", name, pack)
        for kind in pack.resolve:
            claim("rule", resolution_name(kind), pack)

    kind_names = [k.name for k in core.kinds] + [k.name for p in packs for k in p.kinds]
    kinds = IntEnum(core.kind_enum, kind_names, start=0)  # type: ignore[misc]
    fields = tuple(core.fields) + tuple(f for p in packs for f in p.fields)
    annotations = {f.name: "Term" for f in fields}
    state_cls = type(
        core.state_name, (State,), {"__annotations__": annotations, "__module__": __name__}
    )

    hooks: dict[str, list[Callable[..., Any]]] = {h: [] for h in core.hooks}
    for c in chosen:
        for hook, fn in c.pack.hooks.items():
            hooks[hook].append(partial(fn, me=c))
    for f in core.fields:
        if f.ends and f.ends not in core.durations:
            raise UnknownNameError(f"duration (field {f.name} of the core)", f.ends, core.durations)
    specs = [(k, None) for k in core.kinds] + [(k, c) for c in chosen for k in c.pack.kinds]
    traits = {int(kinds[k.name]): frozenset(k.traits) for k, _ in specs}
    stats = {int(kinds[k.name]): dict(k.stats) for k, _ in specs}
    carded = {int(kinds[k.name]): c for k, c in specs if c is not None}
    ending = {d: tuple(f for f in fields if f.ends == d) for d in core.durations}
    damage_targets = tuple(
        DamageTarget(name, doc, c, partial(legal, me=c), partial(deal, me=c))
        for c in chosen
        for name, (doc, legal, deal) in c.pack.targets.items()
    )
    play_names: list[str] = []
    plays: list[Play] = []
    for c in chosen:
        for kind, timing in c.pack.cast.items():
            play_names.append(kind)
            plays.append(Play(int(kinds[kind]), 0, timing, c))
            if c.pack.aims.get(kind) == "damage":
                for i, target in enumerate(damage_targets, start=1):
                    play_names.append(f"{kind}_AT_{target.name}")
                    plays.append(Play(int(kinds[kind]), i, timing, c, target.legal))
    play_enum: Any = IntEnum("Play", play_names, start=1) if play_names else None
    cast = {i: play for i, play in enumerate(plays, start=1)}
    setup = Setup(
        core=core,
        cards=tuple(chosen),
        kinds=kinds,
        state_cls=state_cls,
        fields=fields,
        hooks={h: tuple(fns) for h, fns in hooks.items()},
        ending=ending,
        castable=tuple(play_enum) if play_enum is not None else (),
        cast=cast,
        resolving_kinds=tuple(
            int(kinds[k]) for p in packs for k in (*p.resolve, *p.resolves_itself)
        ),
        damage_targets=damage_targets,
        traits=traits,
        stats=stats,
        by_trait={t: tuple(v for v in sorted(traits) if t in traits[v]) for t in core.kind_traits},
        owners=carded,
    )

    card_rules: list[Rule] = []
    for c in chosen:
        for r in c.pack.rules:
            card_rules.append(r.derive(card=c.name, me=c))
        for spec in c.pack.kinds:
            if spec.name in c.pack.resolve:
                effect = c.pack.resolve[spec.name]
                made = core.resolution(c.pack, spec, effect, int(kinds[spec.name]))
                card_rules.append(made.derive(card=c.name, me=c))
    rules = [
        r
        for r in core.rules
        if r.name not in core.optional_rules or core.optional_rules[r.name](setup)
    ]
    at = next((i for i, r in enumerate(rules) if r.name == core.card_rules_after), None)
    if at is None:
        rules.extend(card_rules)
    else:
        rules[at + 1 : at + 1] = card_rules

    bound_specs = tuple(core.bound_specs) + tuple(sp for p in packs for sp in p.bounds)
    bound_names = {sp.name for sp in bound_specs}
    properties = tuple(
        _fit_for_all(p, bound_names)
        for p in tuple(core.properties) + tuple(q for pk in packs for q in pk.properties)
        if p.applies_to is None or p.applies_to(setup)
    )
    prop_names = {p.name for p in properties}
    for p in properties:
        if sum(1 for q in properties if q.name == p.name) > 1:
            raise CompositionError(f"property {p.name!r} is declared twice")
    mutants = tuple(
        m
        for m in tuple(core.mutants) + tuple(q for pk in packs for q in pk.mutants)
        if set(m.breaks) <= prop_names
    )
    return RuleSet(
        name=core.name,
        game=core.game,
        version=core.version,
        description=description or core.description,
        rules=tuple(rules),
        bound_specs=bound_specs,
        schema=_schema,
        initial=_initial,
        terminal=core.terminal,
        properties=properties,
        mutants=mutants,
        variants=dict(core.variants),
        aliases=core.aliases,
        sections=core.sections,
        decided_by=core.decided_by,
        setup=setup,
    )


def resolution_name(kind: str) -> str:
    """The name of the rule by which an object of ``kind`` resolves."""
    return f"resolve_{kind.lower()}"


def _fit_for_all(p: Property, bounds: set[str]) -> Property:
    """``p`` quantified only over the bounds the composition has (a property meant for every
    starting loyalty says nothing about loyalty when no planeswalker is in play)."""
    kept = tuple(n for n in p.for_all if n in bounds)
    return p if kept == p.for_all else replace(p, for_all=kept)


def _schema(b: Any) -> Schema:
    setup: Setup = b.setup
    return Schema(setup.state_cls, {f.name: f.domain_for(b) for f in setup.fields})


def _initial(b: Any) -> list[State]:
    setup: Setup = b.setup
    return [setup.state_cls.make(**{f.name: f.init(b) for f in setup.fields})]


def card_table(packs: Sequence[Pack]) -> dict[str, Pack]:
    """A card library by key, refusing two packs with one key or one name."""
    out: dict[str, Pack] = {}
    names: dict[str, str] = {}
    for p in packs:
        if p.key in out:
            raise CompositionError(f"two cards have the key {p.key!r}")
        if p.name.casefold() in names:
            raise CompositionError(f"two cards are named {p.name!r}")
        out[p.key] = p
        names[p.name.casefold()] = p.key
    return dict(sorted(out.items()))


def discover(package: str, path: Iterable[str]) -> dict[str, Pack]:
    """A game's card library: the ``CARD`` of every module of the package ``package`` (whose
    ``__path__`` is ``path``), by key (see :func:`card_table`). A module added there is in the
    library; nothing else needs to list it."""
    packs = []
    for info in sorted(pkgutil.iter_modules(list(path)), key=lambda m: m.name):
        module = importlib.import_module(f"{package}.{info.name}")
        card = getattr(module, "CARD", None)
        if isinstance(card, Pack):
            packs.append(card)
    return card_table(packs)


#: How a composition is asked for: a card in play, a ``(name, controller)`` pair, or the name
#: of a card each player has.
CardLike = Card | tuple[str, int | None] | str


class Composer:
    """``compose_magic``, ``compose_riftbound``: a game's rule set with some cards in play,
    given as :data:`CardLike` values and found in its library; the same cards (in any order)
    give the same rule set value, composed once."""

    def __init__(self, core: Core) -> None:
        self.core = core
        self._made: dict[tuple[tuple[str, int, str], ...], RuleSet] = {}

    def card(self, name: str, controller: int | None = None, zone: str = "") -> Card:
        """A card of the library in play (by name or key)."""
        return Card(find_card(self.core.library(), name), controller, zone)

    def __call__(self, cards: Iterable[CardLike]) -> RuleSet:
        made = []
        for c in cards:
            if isinstance(c, str):
                c = self.card(c)
            elif not isinstance(c, Card):
                c = self.card(c[0], c[1])
            made.append(c)
        key = tuple(
            sorted((c.key, -1 if c.controller is None else c.controller, c.zone) for c in made)
        )
        if key not in self._made:
            self._made[key] = compose(self.core, made)
        return self._made[key]


def find_card(library: Mapping[str, Pack], name: str) -> Pack:
    """The card called ``name`` (its name, whatever the case, or its key)."""
    wanted = name.strip().casefold()
    for p in library.values():
        if wanted in (p.key, p.name.casefold()):
            return p
    raise UnknownNameError("card", name, [p.name for p in library.values()])


def with_cards(ruleset: RuleSet, cards: Iterable[tuple[str, int | None]]) -> RuleSet:
    """``ruleset`` recomposed with other cards in play (by key, with their controllers); its
    amendments are not carried over."""
    setup: Setup | None = ruleset.setup
    if setup is None:
        raise CompositionError(f"rule set {ruleset.name} has no card packs to choose from")
    library = setup.core.library()
    chosen = [Card(find_card(library, key), controller) for key, controller in cards]
    return compose(setup.core, chosen)


def mutant_ruleset(ruleset: RuleSet, mutant: Mutant, label: str = "") -> RuleSet:
    """The rule set a mutant is checked on: ``ruleset`` (recomposed with the mutant's own cards,
    when it names some) amended by the mutant."""
    base = with_cards(ruleset, mutant.cards) if mutant.cards else ruleset
    return base.amend(*mutant.amendments, label=label or f"mutant {mutant.name}")
