"""Scenarios: the value every command runs.

A :class:`Scenario` names a built-in rule set (its ``game``), the cards in play with their
controllers, zones and counters, the bounds, where the game starts, the amendments (a variant, a
mutant), the properties (the rule set's own by name, or new ones written as expressions, see
:mod:`turnproof.model.expr`) with their expected verdicts, and the expected number of states. It
is plain data: immutable, picklable, and rebuilt the same way in every process. A built-in rule
set at its default bounds is just ``Scenario(name, game=name)``.

:meth:`Scenario.build` resolves every name against the rule set and returns a :class:`Built`:
the composed rule set, the model (rule set and bounds, with the scenario's start), the
properties and the pinned verdicts. Every problem is a :class:`SpecError` that says where in the
scenario it is (``at``: a path such as ``("card", 1, "controller")``), what was expected and the
valid choices; the scenario loader turns that path into the file's line.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import IntEnum
from functools import lru_cache
from typing import Any

from turnproof.model.errors import TurnproofError, choices_text, did_you_mean
from turnproof.model.properties import Expect, Mutant, Property, always, reachable, terminates
from turnproof.model.rules import Model, RuleSet, Variant
from turnproof.model.schema import (
    ArrayDomain,
    BoolDomain,
    Domain,
    EnumDomain,
    IntRange,
    Leaf,
    SeqDomain,
    State,
)

Path = tuple[str | int, ...]

EXPECTATIONS = ("holds", "violated", "witnessed")
VERDICTS = ("PROVED", "EXHAUSTIVE", "VIOLATED", "WITNESSED", "UNKNOWN")
ENGINES = ("explicit", "symbolic")
EXPRESSION_KINDS = ("always", "never", "reachable", "terminates")
_KEBAB = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")


class SpecError(TurnproofError):
    """A scenario that cannot be built: ``at`` is where in the scenario the problem is."""

    def __init__(self, at: Path, message: str) -> None:
        self.at = tuple(at)
        self.message = message
        where = ".".join(str(p) if isinstance(p, str) else f"[{p}]" for p in self.at)
        super().__init__(f"{where.replace('.[', '[')}: {message}" if self.at else message)


def unknown(
    at: Path, what: str, name: str, valid: Sequence[str], plural: str = "choices", note: str = ""
) -> SpecError:
    return SpecError(
        at,
        f"unknown {what} {name!r}{note}{did_you_mean(name, valid)}; valid {plural}: "
        f"{choices_text(valid)}",
    )


def _elsewhere(name: str, game: str) -> str:
    """' (a card of rule set magic)' when another built-in game's library has ``name``."""
    from turnproof.model.packs import find_card
    from turnproof.model.registry import builtin_rulesets

    for rs in builtin_rulesets().values():
        if rs.name == game or rs.setup is None:
            continue
        try:
            find_card(rs.setup.core.library(), name)
        except TurnproofError:
            continue
        return f" in the {game} library (it is a card of rule set {rs.name})"
    return ""


# -- the parts of a scenario ---------------------------------------------------------------------


@dataclass(frozen=True)
class CardSpec:
    """A card in play: by name (or key), its controller (``None``: each player has one), its
    zone, the counters on it and what is chosen for it (a Saga's ``read_ahead``): each sets the
    bound the card declares for it."""

    name: str
    controller: int | None = None
    zone: str = ""
    counters: tuple[tuple[str, int], ...] = ()
    choices: tuple[tuple[str, int], ...] = ()
    at: Path = ()


@dataclass(frozen=True)
class ItemSpec:
    """An object on the stack or chain, or a waiting trigger: its kind, or the card whose only
    object it is, and what its game reads of it (each game's core says which it takes): its
    controller, its number ("that many"), whether it is finalized (a Riftbound chain item) and
    its target. ``None``: not given."""

    kind: str = ""
    card: str = ""
    controller: int | None = None
    n: int | None = None
    finalized: bool | None = None
    target: int | None = None
    at: Path = ()


#: The keys of a ``[start]`` table that every game has.
START_KEYS = {
    "turn": "the turn number; the active (turn) player is that number modulo the players",
    "hands": "the number of cards in each player's hand",
    "fields": "any other field of the state, by its schema name",
}


@dataclass(frozen=True)
class StartSpec:
    """Where the game starts: the turn (its number; the active player is that number modulo
    the players), the hands, the game's own keys as written (its core's ``start``: Magic's
    step, stage, priority, stack and waiting triggers; Riftbound's phase, stage, priority, focus,
    showdown, chain and waiting triggers), with lists of objects as :class:`ItemSpec` tuples,
    and any other field of the state by its schema name."""

    turn: int | None = None
    hands: tuple[int, ...] | None = None
    keys: tuple[tuple[str, Any], ...] = ()
    fields: tuple[tuple[str, Any], ...] = ()
    at: Path = ("start",)

    def get(self, key: str, default: Any = None) -> Any:
        """The value of the game's start key ``key`` (``default`` when it is not given)."""
        return dict(self.keys).get(key, default)


@dataclass(frozen=True)
class PropertySpec:
    """A property of the scenario: a rule set's own by name (``kind`` empty), or a new one:
    ``always``/``never`` an expression, ``reachable`` (can this happen?), ``terminates`` (a
    region); ``when`` makes an ``always`` or ``never`` an implication whose antecedent must be
    reachable. ``expect`` overrides the property's expectation; ``verdicts`` pins the exact
    verdict of an engine."""

    name: str
    kind: str = ""
    expr: str = ""
    when: str = ""
    description: str = ""
    expect: str = ""
    verdicts: tuple[tuple[str, str], ...] = ()
    for_all: tuple[str, ...] = ()
    at: Path = ()


@dataclass(frozen=True)
class Scenario:
    """See the module docstring. ``cards=None`` keeps the rule set's own cards; with
    ``default_cards``, ``cards`` are added to them (a card named again replaces its entry, so
    that its controller can change)."""

    name: str
    game: str
    title: str = ""
    description: str = ""
    rules: str = ""
    cards: tuple[CardSpec, ...] | None = None
    default_cards: bool = False
    bounds: tuple[tuple[str, int], ...] = ()
    for_all: tuple[str, ...] = ()
    start: StartSpec | None = None
    variant: str | None = None
    mutant: str | None = None
    properties: tuple[PropertySpec, ...] = ()
    states: int | None = None
    engines: tuple[str, ...] = ()
    sources: tuple[str, ...] = ()
    origin: str = ""

    def build(self) -> Built:
        """Resolve every name (cached per process: the same scenario builds once)."""
        return _build(self)

    def with_properties(self, names: Sequence[str]) -> Scenario:
        """This scenario with only the named properties (its own, or the rule set's)."""
        if not names:
            return self
        own = {p.name: p for p in self.properties}
        chosen = tuple(own.get(n, PropertySpec(n, at=("property",))) for n in dict.fromkeys(names))
        return replace(self, properties=chosen)


@dataclass(frozen=True, eq=False)
class Built:
    """A scenario with every name resolved."""

    scenario: Scenario
    ruleset: RuleSet
    model: Model
    properties: tuple[Property, ...]
    verdicts: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    cards: tuple[str, ...] = ()
    mutant: Mutant | None = None

    def property(self, name: str) -> Property:
        for p in self.properties:
            if p.name == name:
                return p
        raise unknown(("property",), "property", name, [p.name for p in self.properties])

    def labels(self) -> dict[str, Any]:
        """How the rule set was chosen, for the report's header."""
        sc = self.scenario
        out = amendment_labels(self.model, sc.variant, self.mutant)
        if sc.origin or sc.title:
            out["scenario"] = {"name": sc.name, "title": sc.title, "origin": sc.origin}
        if sc.start is not None:
            out["start"] = "the scenario's (see its file)"
        return out


def amendment_labels(model: Model, variant: str | None, mutant: Mutant | None) -> dict[str, Any]:
    """``bounds_changed`` (the bounds that differ from the rule set's defaults), and the
    ``variant`` and ``mutant`` (name, description, breaks) when applied: for the report."""
    defaults = {b.name: b.default for b in model.ruleset.bound_specs}
    out: dict[str, Any] = {
        "bounds_changed": {k: v for k, v in model.bounds.items() if defaults[k] != v}
    }
    if variant is not None:
        out["variant"] = variant
    if mutant is not None:
        out["mutant"] = {
            "name": mutant.name,
            "description": mutant.description,
            "breaks": list(mutant.breaks),
        }
    return out


# -- building ----------------------------------------------------------------------------------


@lru_cache(maxsize=256)
def _build(sc: Scenario) -> Built:
    from turnproof.model.packs import Card, CompositionError, compose, find_card, mutant_ruleset
    from turnproof.model.registry import builtin_rulesets

    sets = builtin_rulesets()
    if sc.game not in sets:
        raise unknown(("game",), "rule set", sc.game, list(sets))
    base = sets[sc.game]
    if sc.rules and sc.rules != base.version:
        raise SpecError(
            ("rules",),
            f"this rule set models {base.version}, not {sc.rules!r}; write rules = "
            f'"{base.version}" (or leave it out)',
        )

    counter_bounds: dict[str, tuple[int, Path]] = {}
    ruleset = base
    if sc.cards is not None:
        if base.setup is None:
            raise SpecError(("card",), f"rule set {sc.game} has no cards to put in play")
        library = base.setup.core.library()
        names = [p.name for p in library.values()]
        chosen = []
        named = {find_card(library, c.name).key for c in sc.cards if _known(library, c.name)}
        if sc.default_cards:
            chosen = [c for c in base.setup.cards if c.key not in named]
        for i, c in enumerate(sc.cards):
            at = c.at or ("card", i)
            try:
                pack = find_card(library, c.name)
            except TurnproofError:
                note = _elsewhere(c.name, sc.game)
                raise unknown(at + ("name",), "card", c.name, names, "cards", note) from None
            if c.zone and c.zone not in pack.zones:
                raise SpecError(
                    at + ("zone",),
                    f"{pack.name} cannot be in zone {c.zone!r}; valid zones for it: "
                    f"{', '.join(pack.zones)}",
                )
            for counter, value in c.counters:
                if counter not in pack.counters:
                    valid = list(pack.counters)
                    raise SpecError(
                        at + ("counters", counter),
                        f"{pack.name} cannot have {counter!r} counters"
                        f"{did_you_mean(counter, valid)}; valid counters for it: "
                        f"{choices_text(valid)}",
                    )
                where = at + ("counters", counter)
                _in_bound_range(pack, pack.counters[counter], value, where, f"{counter} counters")
                counter_bounds[pack.counters[counter]] = (value, where)
            for key, value in c.choices:
                if key not in pack.choices:
                    with_it = [p.name for p in library.values() if key in p.choices]
                    raise SpecError(
                        at + (key,),
                        f"{pack.name} has no {key.replace('_', ' ')}; cards that have it: "
                        f"{choices_text(with_it)}",
                    )
                _in_bound_range(pack, pack.choices[key], value, at + (key,), key, least=1)
                counter_bounds[pack.choices[key]] = (value, at + (key,))
            chosen.append(Card(pack, c.controller, c.zone))
        try:
            ruleset = compose(base.setup.core, chosen)
        except CompositionError as exc:
            raise SpecError(("card",), str(exc)) from None
    mutant = None
    if sc.mutant is not None:
        valid = [m.name for m in ruleset.mutants]
        if sc.mutant not in valid:
            raise unknown(("mutant",), "mutant", sc.mutant, valid)
        mutant = ruleset.mutant(sc.mutant)
    if sc.variant is not None:
        if sc.variant not in ruleset.variants:
            raise unknown(("variant",), "variant", sc.variant, list(ruleset.variants))
    amended = ruleset
    if mutant is not None and mutant.cards and sc.cards is None:
        from turnproof.model.packs import with_cards

        amended = with_cards(ruleset, mutant.cards)
    if sc.variant is not None:
        amended = amended.amend(Variant(sc.variant), label=f"variant {sc.variant}")
    if mutant is not None:
        amended = mutant_ruleset(amended, replace(mutant, cards=()))

    bounds: dict[str, int] = dict(mutant.bounds) if mutant is not None else {}
    given = dict(sc.bounds)
    for name, (value, at) in counter_bounds.items():
        if name in given and given[name] != value:
            raise SpecError(
                at,
                f"the counters set bound {name}={value}, but the bounds set {name}="
                f"{given[name]}; say it once",
            )
        bounds[name] = value
    bounds.update(given)
    valid_bounds = [sp.name for sp in amended.bound_specs]
    for name in bounds:
        if name not in valid_bounds:
            raise unknown(("bounds", name), "bound", name, valid_bounds)
    try:
        model = Model(amended, bounds)
    except TurnproofError as exc:
        raise SpecError(("bounds",), str(exc)) from None
    for i, c in enumerate(sc.cards or ()):
        if c.controller is not None and not 0 <= c.controller < model.bounds.players:
            raise SpecError(
                (c.at or ("card", i)) + ("controller",),
                f"player {c.controller} does not exist; players are 0..{model.bounds.players - 1}"
                " (or 'each')",
            )
    if sc.start is not None:
        start = _start_function(sc.start, model)
        model = Model(replace(amended, initial=start), bounds)
        model.initial_states()  # every start problem is reported now, before anything runs

    props, pins = _properties(sc, model)
    return Built(
        scenario=sc,
        ruleset=model.ruleset,
        model=model,
        properties=props,
        verdicts=pins,
        cards=model.ruleset.card_names(),
        mutant=mutant,
    )


def _in_bound_range(pack: Any, bound: str, value: int, at: Path, what: str, least: int = 0) -> None:
    """A card's counters or choice ``value`` is within the range of the bound it sets (from
    ``least`` up, for a choice)."""
    spec = next((sp for sp in pack.bounds if sp.name == bound), None)
    if spec is None:  # a bound of the core: the model checks it
        return
    lo = max(spec.lo, least)
    if not lo <= value <= spec.hi:
        valid = ", ".join(str(v) for v in range(lo, spec.hi + 1))
        raise SpecError(
            at, f"{pack.name}: {what} {value} is out of range; valid choices: {valid} ({spec.doc})"
        )


def _known(library: Mapping[str, Any], name: str) -> bool:
    from turnproof.model.packs import find_card

    try:
        find_card(library, name)
    except TurnproofError:
        return False
    return True


def _properties(
    sc: Scenario, model: Model
) -> tuple[tuple[Property, ...], dict[str, dict[str, str]]]:
    rs = model.ruleset
    if not sc.properties:
        return tuple(rs.properties), {}
    out: list[Property] = []
    pins: dict[str, dict[str, str]] = {}
    own = [p.name for p in rs.properties]
    for i, spec in enumerate(sc.properties):
        at = spec.at or ("property", i)
        if any(p.name == spec.name for p in out):
            raise SpecError(at + ("name",), f"property {spec.name!r} is stated twice")
        if not spec.kind:
            if spec.name not in own:
                raise unknown(at + ("name",), "property", spec.name, own)
            prop = rs.property(spec.name)
        else:
            if not _KEBAB.match(spec.name):
                raise SpecError(
                    at + ("name",),
                    f"a property name is kebab-case (lower-case words joined by '-'), not "
                    f"{spec.name!r}",
                )
            if spec.name in own:
                raise SpecError(
                    at + ("name",),
                    f"{spec.name!r} is a property of the rule set; give a new property "
                    "another name, or leave out its expression to use that one",
                )
            prop = _expression_property(spec, model, at)
        if spec.expect:
            if spec.expect not in EXPECTATIONS:
                raise unknown(at + ("expect",), "expectation", spec.expect, EXPECTATIONS)
            prop = replace(prop, expect=Expect(spec.expect))
        if spec.for_all:
            prop = replace(prop, for_all=tuple(dict.fromkeys(prop.for_all + spec.for_all)))
        for engine, verdict in spec.verdicts:
            if engine not in ENGINES:
                raise unknown(at + ("verdicts", engine), "engine", engine, ENGINES)
            if verdict not in VERDICTS:
                raise unknown(at + ("verdicts", engine), "verdict", verdict, VERDICTS)
            pins.setdefault(spec.name, {})[engine] = verdict
        out.append(prop)
    return tuple(out), pins


def _expression_property(spec: PropertySpec, model: Model, at: Path) -> Property:
    from turnproof.model.expr import Env, ExpressionError, compile_predicate

    if spec.kind not in EXPRESSION_KINDS:
        raise unknown(at, "property kind", spec.kind, EXPRESSION_KINDS)
    env = Env.for_schema(
        model.schema, bounds=tuple(model.bounds), extra=expression_names(model.ruleset)
    )

    def compiled(text: str, key: str) -> Any:
        try:
            return compile_predicate(text, env)
        except ExpressionError as exc:
            raise SpecError(at + (key,), str(exc)) from None

    main = compiled(spec.expr, spec.kind)
    description = spec.description or f"{spec.kind} {spec.expr}"
    monitors = list(main.monitors)
    antecedent = None
    if spec.when:
        if spec.kind not in ("always", "never"):
            raise SpecError(at + ("when",), f"'when' goes with always or never, not {spec.kind}")
        cond = compiled(spec.when, "when")
        monitors += [m for m in cond.monitors if m not in monitors]
        antecedent = cond.fn
    kw: dict[str, Any] = {"monitors": tuple(monitors)}
    fn = main.fn
    if spec.kind in ("always", "never"):
        negate = spec.kind == "never"

        def pred(s: Any, x: Any, b: Any, m: Any) -> Any:
            value = fn(s, x, b, m)
            value = x.Not(value) if negate else value
            if antecedent is not None:
                return x.Implies(antecedent(s, x, b, m), value)
            return value

        return always(spec.name, description, pred, antecedent=antecedent, **kw)
    if spec.kind == "reachable":
        return reachable(spec.name, description, fn, **kw)
    return terminates(spec.name, description, fn, **kw)


def expression_names(ruleset: RuleSet) -> dict[str, Any]:
    """Names a scenario's expressions may use besides the state's fields: the game's own, as
    its core declares them (Magic's ``active`` player, Riftbound's ``active`` turn player)."""
    from turnproof.model.expr import INT

    if ruleset.setup is None:
        return {}
    return {name: (INT, fn) for name, (_, fn) in ruleset.setup.core.names.items()}


# -- the start state ---------------------------------------------------------------------------


def _start_function(spec: StartSpec, model: Model) -> Callable[[Any], list[State]]:
    """The rule set's initial state with the scenario's changes, as a function of the bounds
    (an open bound keeps its term where the scenario does not set the field)."""
    default = model.ruleset.initial
    changes = _start_changes(spec, model)

    def start(b: Any) -> list[State]:
        return [s.replace(**changes) for s in default(b)]

    # Check the start against the schema for the scenario's own bounds.
    from turnproof.model.errors import SchemaError
    from turnproof.model.ops import ConcreteOps

    for s in start(model.bounds):
        try:
            model.schema.check(s, ConcreteOps())
        except SchemaError as exc:
            raise SpecError(spec.at, f"the start state does not fit the schema: {exc}") from None
    return start


def enum_value(enum: type[IntEnum], name: Any, at: Path, what: str) -> IntEnum:
    """The member of ``enum`` named ``name``, or a :class:`SpecError` listing the members."""
    valid = list(enum.__members__)
    if not isinstance(name, str) or name not in enum.__members__:
        raise unknown(at, what, str(name), valid)
    return enum[name]


def player_value(value: Any, model: Model, at: Path) -> int:
    """A player's number, or a :class:`SpecError` naming the players."""
    players = model.bounds.players
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < players:
        raise SpecError(at, f"player {value} does not exist; players are 0..{players - 1}")
    return value


def _start_changes(spec: StartSpec, model: Model) -> dict[str, Any]:
    sch = model.schema
    b = model.bounds
    at = spec.at
    fields = sch.domains
    setup = model.ruleset.setup
    game = setup.core.start if setup is not None else None
    own = dict(game.keys) if game is not None else {}
    valid = list(START_KEYS) + list(own)
    for key, _ in spec.keys:
        if key not in own:
            raise SpecError(
                at + (key,),
                f"unknown key {key!r}{did_you_mean(key, valid)}; valid keys here: "
                f"{', '.join(valid)}",
            )
    changes: dict[str, Any] = {}
    if spec.turn is not None:
        if not 0 <= spec.turn < b["turns"]:
            raise SpecError(
                at + ("turn",),
                f"turn {spec.turn} is not played: turns are 0..{b['turns'] - 1} with the bound "
                f"turns={b['turns']} (raise turns to start later)",
            )
        changes["turn"] = spec.turn
    if spec.hands is not None:
        hand_dom = fields["hand"]
        assert isinstance(hand_dom, ArrayDomain)
        if len(spec.hands) != b.players:
            raise SpecError(
                at + ("hands",),
                f"give one hand size per player ({b.players}), not {len(spec.hands)}",
            )
        cap = b["hand_cap"]
        for p, n in enumerate(spec.hands):
            if not 0 <= n <= cap:
                raise SpecError(
                    at + ("hands", p),
                    f"a hand of {n} cards does not fit: hands hold 0..{cap} (the bound hand_cap)",
                )
        changes["hand"] = tuple(spec.hands)
    if game is not None:
        changes.update(game.changes(replace(spec, fields=()), model, dict(changes)))
    for name, value in spec.fields:
        if name not in fields:
            raise unknown(at + ("fields", name), "field", name, list(fields))
        if name in changes:
            raise SpecError(
                at + ("fields", name),
                f"{name} is set by the start's own keys ({', '.join(valid[:2] + list(own))}); "
                "set it there",
            )
        changes[name] = _field_value(fields[name], value, at + ("fields", name))
    return changes


def start_items(
    items: Sequence[ItemSpec], model: Model, field_name: str, where: str, bound: str, at: Path
) -> Any:
    """The sequence field ``field_name`` holding ``items`` (each resolved by the game's core),
    or a :class:`SpecError` when they do not fit its capacity (the bound ``bound``)."""
    dom = model.schema.domains[field_name]
    assert isinstance(dom, SeqDomain)
    if len(items) > dom.capacity:
        raise SpecError(
            at + (where,),
            f"{len(items)} objects do not fit: the {where} holds at most {dom.capacity} "
            f"(the bound {bound})",
        )
    return dom.make([resolve_item(it, model, at + (where, i)) for i, it in enumerate(items)])


def resolve_item(spec: ItemSpec, model: Model, at: Path) -> Any:
    """An object as the game's core builds it from ``spec`` (its kind, by name or by its
    card)."""
    setup = model.ruleset.setup
    if setup is None or setup.core.start is None:
        raise SpecError(at, f"rule set {model.ruleset.name} has no objects to put there")
    kinds = setup.kinds
    valid = [k for k in kinds.__members__ if k != "NONE"]
    if spec.kind:
        if spec.kind not in valid:
            raise unknown(at + ("kind",), "object kind", spec.kind, valid)
        what = kinds[spec.kind]
    elif spec.card:
        match = [c for c in setup.cards if spec.card.casefold() in (c.key, c.name.casefold())]
        if not match:
            raise unknown(at + ("card",), "card in play", spec.card, setup.card_names())
        own = [k.name for k in match[0].pack.kinds]
        if len(own) != 1:
            raise SpecError(
                at + ("card",),
                f"{match[0].name} has several kinds of object ({', '.join(own)}); name one with "
                "kind = ...",
            )
        what = kinds[own[0]]
    else:
        raise SpecError(at, "an object names its kind (kind = ...) or its card (card = ...)")
    if spec.controller is not None:
        player_value(spec.controller, model, at + ("controller",))
    return setup.core.start.item(int(what), replace(spec, at=at), model)


def refuse_item_keys(spec: ItemSpec, game: str, keys: Sequence[str]) -> None:
    """A :class:`SpecError` for the first of ``keys`` (``finalized``, ``target`` ...) that
    ``spec`` gives but the game's objects do not have."""
    for key in keys:
        if getattr(spec, key) is not None:
            raise SpecError(spec.at + (key,), f"{game} objects have no {key!r}")


def _field_value(dom: Domain, value: Any, at: Path) -> Any:
    if isinstance(dom, ArrayDomain):
        if not isinstance(value, list | tuple) or len(value) != dom.size:
            raise SpecError(at, f"expected a list of {dom.size} values ({dom!r})")
        return tuple(_field_value(dom.elem, v, at + (i,)) for i, v in enumerate(value))
    if isinstance(dom, BoolDomain):
        if not isinstance(value, bool):
            raise SpecError(at, f"expected true or false, got {value!r}")
        return value
    if isinstance(dom, EnumDomain):
        return enum_value(dom.enum, value, at, dom.enum.__name__)
    if isinstance(dom, IntRange):
        if isinstance(value, bool) or not isinstance(value, int):
            raise SpecError(at, f"expected a whole number in {dom.lo}..{dom.hi}, got {value!r}")
        if not dom.lo <= value <= dom.hi:
            raise SpecError(at, f"{value} is outside {dom.lo}..{dom.hi}")
        return value
    if isinstance(dom, Leaf):
        return value
    raise SpecError(at, f"this field ({dom!r}) is set by the start's own keys, not by 'fields'")
