"""Amendment files (TOML, ``format = 1``): a change to a rule set, validated against it.

An amendment file names the rule set it changes (``ruleset = "magic"``), a title, and its
amendments, applied in the order they stand in the file:

* ``[[remove]] rule = "MTG 724.1a"``: remove a rule, by name or citation;
* ``[[derive]] rule = "pass_end_step"``, ``clauses = {cleanup_repeats = false}``, ``summary``:
  the rule replaced by itself with some keyword clauses changed (:meth:`Rule.derive`), the way
  the rule sets' own mutants and variants alter a rule;
* ``[[variant]] name = "no-second-cleanup"``: one of the rule set's variants;
* ``[[add]] python = "extra.py:my_rule"`` (``after = "rule"``) and ``[[replace]] rule = "..."``,
  ``python = "..."``: a new rule, a ``@rule`` function in a Python file (relative to the
  amendment file), loaded with :mod:`importlib`.

Optionally ``[[card]]`` tables (the cards to compare with, when the rule set's own do not show
the change) and ``[bounds]`` (the bounds the change shows at; ``--bound`` overrides them).

The file goes through the passes of a scenario file (:mod:`turnproof.scenarios.loader`): TOML by
``tomllib``, the shape by pydantic, then every name against the rule set: an unknown rule (by
name or citation) lists the near matches, an unknown clause the rule's clauses, a clause value
its choices. Every error is :class:`AmendmentFileError` (``FILE:LINE: ...``, exit code 2).
``amendments/FORMAT.md`` documents the format; the shipped files are package data
(``scenarios/amendments/*.toml``), listed by ``turnproof amendments``.
"""

from __future__ import annotations

import hashlib
import importlib.util
import sys
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any, Literal

import pydantic
from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt, StrictStr
from turnproof.model.clauses import clauses_of
from turnproof.model.errors import ScenarioError, TurnproofError, choices_text, did_you_mean
from turnproof.model.rules import Add, Amendment, Derive, Remove, Replace, Rule, RuleSet, Variant
from turnproof.scenarios.toml_lines import Path as KeyPath
from turnproof.scenarios.toml_lines import line_of, locate

SUFFIX = ".toml"


class AmendmentFileError(ScenarioError):
    """A malformed amendment file, or one that does not fit its rule set: file and line."""


# -- the shape --------------------------------------------------------------------------------


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class RemoveEntry(_Strict):
    rule: StrictStr


class DeriveEntry(_Strict):
    rule: StrictStr
    clauses: dict[StrictStr, StrictBool | StrictInt | StrictStr]
    summary: StrictStr = ""


class VariantEntry(_Strict):
    name: StrictStr


class AddEntry(_Strict):
    python: StrictStr
    after: StrictStr = ""


class ReplaceEntry(_Strict):
    rule: StrictStr
    python: StrictStr


class CardEntry(_Strict):
    name: StrictStr
    controller: StrictInt | Literal["each"] = "each"


class AmendmentFile(_Strict):
    format: Literal[1]
    title: StrictStr
    ruleset: StrictStr
    description: StrictStr = ""
    sources: list[StrictStr] = Field(default_factory=list)
    card: list[CardEntry] = Field(default_factory=list)
    bounds: dict[StrictStr, StrictInt] = Field(default_factory=dict)
    remove: list[RemoveEntry] = Field(default_factory=list)
    derive: list[DeriveEntry] = Field(default_factory=list)
    variant: list[VariantEntry] = Field(default_factory=list)
    add: list[AddEntry] = Field(default_factory=list)
    replace: list[ReplaceEntry] = Field(default_factory=list)


_TABLES: dict[str, type[BaseModel]] = {
    "remove": RemoveEntry,
    "derive": DeriveEntry,
    "variant": VariantEntry,
    "add": AddEntry,
    "replace": ReplaceEntry,
    "card": CardEntry,
}
KINDS = ("remove", "derive", "variant", "add", "replace")


def _keys_at(loc: Sequence[Any]) -> list[str]:
    model: type[BaseModel] = AmendmentFile
    if loc and isinstance(loc[0], str) and loc[0] in _TABLES:
        model = _TABLES[loc[0]]
    return list(model.model_fields)


def _pydantic_message(err: Any) -> str:
    loc = ".".join(str(p) for p in err["loc"])
    kind = err["type"]
    if kind == "extra_forbidden":
        key = str(err["loc"][-1])
        valid = _keys_at(err["loc"][:-1])
        return f"unknown key {key!r}{did_you_mean(key, valid)}; valid keys here: {', '.join(valid)}"
    if kind == "missing":
        return f"{loc}: this key is required"
    got = err.get("input")
    return f"{loc}: {err['msg'].lower()}, got {got!r}"


# -- the value ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Entry:
    """One amendment of the file, with the line it stands on."""

    line: int | None
    amendment: Amendment
    python: str = ""  # where a new rule came from (``extra.py:my_rule``)


@dataclass(frozen=True)
class AmendmentSet:
    """An amendment file, read and validated: apply it with :meth:`apply`."""

    name: str
    title: str
    ruleset: str
    origin: str
    entries: tuple[Entry, ...]
    description: str = ""
    cards: tuple[tuple[str, int | None], ...] = ()
    bounds: tuple[tuple[str, int], ...] = ()

    @property
    def amendments(self) -> tuple[Amendment, ...]:
        return tuple(e.amendment for e in self.entries)

    def base(self) -> RuleSet:
        """The rule set the file names, with the file's cards when it gives some."""
        from turnproof.model.packs import with_cards
        from turnproof.model.registry import get_ruleset

        rs = get_ruleset(self.ruleset)
        return with_cards(rs, self.cards) if self.cards else rs

    def apply(self, ruleset: RuleSet) -> RuleSet:
        """``ruleset`` with every amendment applied in order; a rule the file names that
        ``ruleset`` lacks is an :class:`AmendmentFileError` at its line."""
        if ruleset.name != self.ruleset:
            raise AmendmentFileError(
                self.origin,
                None,
                f"this file amends rule set {self.ruleset!r}, not {ruleset.name!r}",
            )
        current = ruleset
        for e in self.entries:
            try:
                check_amendment(e.amendment, current)
                current = current.amend(e.amendment)
            except AmendmentFileError:
                raise
            except TurnproofError as exc:
                raise AmendmentFileError(self.origin, e.line, str(exc)) from None
        version = ruleset.version + f"+{self.name}"
        from dataclasses import replace

        return replace(current, version=version)


# -- validation against a rule set --------------------------------------------------------------


def _rule_names(ruleset: RuleSet) -> list[str]:
    return list(
        dict.fromkeys([r.name for r in ruleset.rules] + [r.citation for r in ruleset.rules])
    )


def find_target(ruleset: RuleSet, target: str) -> Rule:
    """The one rule ``target`` names (by name, or a citation that names one rule), or a
    :class:`TurnproofError` with the near matches."""
    found = ruleset.find_rules(target)
    if not found:
        valid = _rule_names(ruleset)
        why = ""
        try:
            why = ruleset.explain_citation(target)
        except TurnproofError:
            pass
        raise TurnproofError(
            f"no rule of {ruleset.name} is named or cited {target!r}"
            + (f" ({why})" if why else "")
            + did_you_mean(target, valid).replace(" (", "; ").rstrip(")")
            + f"; rules: {', '.join(r.name for r in ruleset.rules)}"
        )
    if len(found) > 1:
        raise TurnproofError(
            f"{target!r} names {len(found)} rules of {ruleset.name} "
            f"({', '.join(f'{r.name} ({r.citation})' for r in found)}); name one of them"
        )
    return found[0]


def check_derive(rule: Rule, clauses: Sequence[tuple[str, Any]]) -> None:
    """Every clause is one of the rule's, with a value of its type among its choices."""
    known = {c.name: c for c in clauses_of(rule)}
    if not known:
        raise TurnproofError(
            f"rule {rule.name} ({rule.citation}) has no keyword clauses to change; "
            "remove or replace it instead"
        )
    for name, value in clauses:
        if name not in known:
            raise TurnproofError(
                f"rule {rule.name} has no clause {name!r}{did_you_mean(name, list(known))}; "
                f"its clauses: {', '.join(f'{c.name} (default {c.default!r})' for c in known.values())}"
            )
        clause = known[name]
        if type(value) is not type(clause.default):
            raise TurnproofError(
                f"clause {name} of rule {rule.name} takes {clause.type_name}, got {value!r}"
            )
        if clause.choices and value not in clause.choices:
            shown = [repr(c) for c in clause.choices]
            raise TurnproofError(
                f"clause {name} of rule {rule.name} is one of {', '.join(shown)}, not {value!r}"
                + did_you_mean(str(value), [str(c) for c in clause.choices])
            )


def check_amendment(a: Amendment, ruleset: RuleSet) -> None:
    """The names of ``a`` exist in ``ruleset``, with the messages an amendment file gives."""
    if isinstance(a, Variant):
        if a.name not in ruleset.variants:
            valid = list(ruleset.variants)
            raise TurnproofError(
                f"rule set {ruleset.name} has no variant {a.name!r}{did_you_mean(a.name, valid)}; "
                f"variants: {choices_text(valid)}"
            )
    elif isinstance(a, Add):
        if a.after:
            find_target(ruleset, a.after)
        if any(r.name == a.rule.name for r in ruleset.rules):
            raise TurnproofError(
                f"rule set {ruleset.name} already has a rule named {a.rule.name!r}: "
                "give the new rule another name, or [[replace]] that one"
            )
    elif isinstance(a, Derive):
        check_derive(find_target(ruleset, a.target), a.clauses)
    elif isinstance(a, Remove | Replace):
        find_target(ruleset, a.target)


# -- Python rules ---------------------------------------------------------------------------------


def load_python_rule(spec: str, relative_to: Path) -> Rule:
    """The ``@rule`` named by ``FILE.py:NAME`` (``FILE`` relative to ``relative_to``)."""
    file_part, sep, name = spec.rpartition(":")
    if not sep or not file_part.endswith(".py") or not name.isidentifier():
        raise TurnproofError(
            f"python = {spec!r}: expected FILE.py:NAME, a Python file and the name of a "
            '@rule in it (e.g. "extra_rules.py:skip_upkeep")'
        )
    path = (relative_to / file_part).resolve()
    if not path.is_file():
        raise TurnproofError(f"python = {spec!r}: no file {path}")
    digest = hashlib.sha256(str(path).encode()).hexdigest()[:12]
    module_name = f"turnproof_amendment_{path.stem}_{digest}"
    loaded = importlib.util.spec_from_file_location(module_name, path)
    if loaded is None or loaded.loader is None:
        raise TurnproofError(f"python = {spec!r}: {path} cannot be loaded as Python")
    module = importlib.util.module_from_spec(loaded)
    sys.modules[module_name] = module  # dataclasses and pickling look modules up by name
    try:
        loaded.loader.exec_module(module)
    except Exception as exc:  # the user's code: any error is bad input, reported in one line
        del sys.modules[module_name]
        raise TurnproofError(
            f"python = {spec!r}: running {path.name} failed: {type(exc).__name__}: {exc}"
        ) from None
    rules = [k for k, v in vars(module).items() if isinstance(v, Rule)]
    if not hasattr(module, name):
        raise TurnproofError(
            f"python = {spec!r}: {path.name} defines no {name!r}{did_you_mean(name, rules)}; "
            f"its rules: {choices_text(rules)}"
        )
    value = getattr(module, name)
    if not isinstance(value, Rule):
        raise TurnproofError(
            f"python = {spec!r}: {name} is a {type(value).__name__}, not a rule: declare it "
            "with @rule(citation, summary, ...) from turnproof.model.rules"
        )
    return value


# -- reading ------------------------------------------------------------------------------------


def _entries(
    doc: AmendmentFile, lines: dict[KeyPath, int], base_dir: Path
) -> list[tuple[KeyPath, Entry]]:
    """The amendments in the order of their lines in the file."""
    out: list[tuple[int, KeyPath, Entry]] = []
    for kind in KINDS:
        for i, raw in enumerate(getattr(doc, kind)):
            at: KeyPath = (kind, i)
            line = line_of(lines, at)
            python = ""
            amendment: Amendment
            try:
                if isinstance(raw, RemoveEntry):
                    amendment = Remove(raw.rule)
                elif isinstance(raw, DeriveEntry):
                    summary = raw.summary or f"AMENDED ({doc.title}): " + ", ".join(
                        f"{k}={v!r}" for k, v in sorted(raw.clauses.items())
                    )
                    amendment = Derive(raw.rule, summary, tuple(sorted(raw.clauses.items())))
                elif isinstance(raw, VariantEntry):
                    amendment = Variant(raw.name)
                elif isinstance(raw, AddEntry):
                    python = raw.python
                    amendment = Add(load_python_rule(raw.python, base_dir), raw.after)
                else:
                    assert isinstance(raw, ReplaceEntry)
                    python = raw.python
                    amendment = Replace(raw.rule, load_python_rule(raw.python, base_dir))
            except TurnproofError as exc:
                raise _Located((kind, i, "python"), str(exc)) from None
            out.append((line or 0, at, Entry(line, amendment, python)))
    out.sort(key=lambda t: t[0])
    return [(at, e) for _, at, e in out]


class _Located(Exception):
    def __init__(self, at: KeyPath, message: str) -> None:
        self.at = at
        self.message = message


def _key_of(e: Entry, at: KeyPath, ruleset: RuleSet) -> KeyPath:
    """Where in the file the problem with ``e`` is: its rule, or (for a derive whose rule
    exists) its clauses."""
    a = e.amendment
    if isinstance(a, Derive) and len(ruleset.find_rules(a.target)) == 1:
        return at + ("clauses",)
    if isinstance(a, Derive | Remove | Replace):
        return at + ("rule",)
    if isinstance(a, Variant):
        return at + ("name",)
    return at + ("after",)


def load(path: str | Path) -> AmendmentSet:
    """The amendment file ``path``, validated against its rule set."""
    p = Path(path)
    shown = str(path)
    try:
        text = p.read_bytes().decode("utf-8")
    except OSError as exc:
        raise AmendmentFileError(
            shown, None, f"cannot read the amendment file: {exc.strerror}"
        ) from None
    except UnicodeDecodeError:
        raise AmendmentFileError(shown, None, "the file is not UTF-8 text") from None
    return loads(text, shown, name=p.stem, base_dir=p.parent)


def loads(
    text: str, origin: str = "<amendments>", *, name: str = "amendments", base_dir: Path = Path(".")
) -> AmendmentSet:
    """The amendment file in the TOML ``text`` (see :func:`load`)."""
    from turnproof.model.packs import find_card, with_cards
    from turnproof.model.registry import builtin_rulesets

    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise AmendmentFileError(
            origin, getattr(exc, "lineno", None), f"not valid TOML: {exc}"
        ) from None
    lines = locate(text)
    try:
        doc = AmendmentFile.model_validate(data)
    except pydantic.ValidationError as exc:
        # An unknown key says more than the missing key it was probably meant to be.
        errors = sorted(exc.errors(), key=lambda e: e["type"] != "extra_forbidden")
        first = errors[0]
        raise AmendmentFileError(
            origin, line_of(lines, tuple(first["loc"])), _pydantic_message(first)
        ) from None
    sets = builtin_rulesets()
    if doc.ruleset not in sets:
        raise AmendmentFileError(
            origin,
            line_of(lines, ("ruleset",)),
            f"unknown rule set {doc.ruleset!r}{did_you_mean(doc.ruleset, list(sets))}; "
            f"rule sets: {choices_text(sets)}",
        )
    ruleset = sets[doc.ruleset]
    cards: list[tuple[str, int | None]] = []
    for i, c in enumerate(doc.card):
        if ruleset.setup is None:
            raise AmendmentFileError(
                origin, line_of(lines, ("card", i)), f"rule set {doc.ruleset} has no cards"
            )
        library = ruleset.setup.core.library()
        try:
            pack = find_card(library, c.name)
        except TurnproofError:
            valid = [p.name for p in library.values()]
            raise AmendmentFileError(
                origin,
                line_of(lines, ("card", i, "name")),
                f"unknown card {c.name!r}{did_you_mean(c.name, valid)}; cards: {choices_text(valid)}",
            ) from None
        cards.append((pack.key, None if c.controller == "each" else c.controller))
    if cards:
        ruleset = with_cards(ruleset, cards)
    valid_bounds = [b.name for b in ruleset.bound_specs]
    for bound in doc.bounds:
        if bound not in valid_bounds:
            raise AmendmentFileError(
                origin,
                line_of(lines, ("bounds", bound)),
                f"unknown bound {bound!r}{did_you_mean(bound, valid_bounds)}; bounds: "
                f"{choices_text(valid_bounds)}",
            )
    try:
        located = _entries(doc, lines, base_dir)
    except _Located as exc:
        raise AmendmentFileError(origin, line_of(lines, exc.at), exc.message) from None
    if not located:
        raise AmendmentFileError(
            origin,
            None,
            f"no amendment: give at least one of {', '.join(f'[[{k}]]' for k in KINDS)}",
        )
    current = ruleset
    for at, e in located:
        try:
            check_amendment(e.amendment, current)
            current = current.amend(e.amendment)
        except TurnproofError as exc:
            raise AmendmentFileError(
                origin, line_of(lines, _key_of(e, at, current)), str(exc)
            ) from None
    result = AmendmentSet(
        name=name,
        title=doc.title,
        ruleset=doc.ruleset,
        origin=origin,
        entries=tuple(e for _, e in located),
        description=doc.description,
        cards=tuple(cards),
        bounds=tuple(sorted(doc.bounds.items())),
    )
    try:
        from turnproof.model.rules import Model

        Model(result.apply(ruleset), dict(result.bounds))
    except AmendmentFileError:
        raise
    except TurnproofError as exc:
        raise AmendmentFileError(origin, line_of(lines, ("bounds",)), str(exc)) from None
    return result


def is_amendment_file(path: str | Path) -> bool:
    """A TOML file whose top level names a ``ruleset`` (a scenario names its ``game``)."""
    try:
        data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return False
    return "ruleset" in data and "game" not in data


# -- the shipped ones -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Shipped:
    name: str
    title: str
    ruleset: str
    path: Path


def data_dir() -> Path:
    return Path(str(resources.files("turnproof.scenarios") / "amendments"))


def shipped() -> list[Shipped]:
    """The amendment files that ship with turnproof, by name."""
    out = []
    for path in sorted(data_dir().glob(f"*{SUFFIX}")):
        data = tomllib.loads(path.read_text(encoding="utf-8"))
        out.append(
            Shipped(path.stem, str(data.get("title", "")), str(data.get("ruleset", "")), path)
        )
    return out


def shipped_path(name: str) -> Path | None:
    path = data_dir() / f"{name}{SUFFIX}"
    return path if path.is_file() else None
