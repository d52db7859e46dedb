"""Scenario files (TOML, ``format = 1``): read, validated in full, and turned into a
:class:`~turnproof.model.scenario.Scenario` before anything runs.

Three passes, each with errors that give the file and the line:

1. ``tomllib`` parses the text (its own error names the line and column);
2. a pydantic model checks the shape: the keys each table may have, their types, the valid
   choices (:mod:`turnproof.scenarios.format`, documented in ``scenarios/FORMAT.md``);
3. the scenario is built once (:meth:`Scenario.build`): every card, field, step, bound, property,
   expression and the start state are resolved against the rule set.

The line of a problem comes from :mod:`turnproof.scenarios.toml_lines`, which scans the text
for the line of every key and array element. pydantic was chosen over a JSON Schema checked with
``jsonschema`` because its models are also the typed values the loader reads, and its error
locations are the same key paths; both would have served.

The shipped scenarios are package data of ``turnproof.scenarios`` (``data/*.toml``).
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass, replace
from importlib import resources
from pathlib import Path
from typing import Any

import pydantic
from turnproof.model.errors import ScenarioError
from turnproof.model.scenario import (
    CardSpec,
    ItemSpec,
    PropertySpec,
    Scenario,
    SpecError,
    StartSpec,
    did_you_mean,
)
from turnproof.scenarios import format as fmt
from turnproof.scenarios.toml_lines import Path as KeyPath
from turnproof.scenarios.toml_lines import line_of, locate

SUFFIX = ".toml"
_TOML_LINE = re.compile(r"\(at line (\d+), column (\d+)\)")


@dataclass(frozen=True)
class Shipped:
    """A scenario that ships with turnproof: its name, title and file."""

    name: str
    title: str
    path: Path


def data_dir() -> Path:
    return Path(str(resources.files("turnproof.scenarios") / "data"))


def shipped() -> list[Shipped]:
    """The shipped scenarios, by name."""
    out = []
    for path in sorted(data_dir().glob(f"*{SUFFIX}")):
        title = ""
        try:
            title = str(tomllib.loads(path.read_text(encoding="utf-8")).get("title", ""))
        except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError):
            pass
        out.append(Shipped(path.stem, title, path))
    return out


def shipped_path(name: str) -> Path | None:
    path = data_dir() / f"{name}{SUFFIX}"
    return path if path.is_file() else None


def load_shipped(name: str) -> Scenario | None:
    """The shipped scenario ``name`` (its origin is its name, so that its replay lines read
    ``turnproof check NAME``), or ``None``."""
    path = shipped_path(name)
    if path is None:
        return None
    return replace(load(path), origin=name)


def load(path: str | Path, *, build: bool = True) -> Scenario:
    """The scenario in the file ``path``, validated (and, with ``build``, built once, so that
    every name is resolved). Any problem is a :class:`ScenarioError` with the file and line."""
    p = Path(path)
    shown = str(path)
    try:
        raw = p.read_bytes()
    except OSError as exc:
        raise ScenarioError(shown, None, f"cannot read the scenario: {exc.strerror}") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise ScenarioError(shown, line, "the file is not UTF-8 text") from None
    return loads(text, shown, name=p.stem, build=build)


def loads(text: str, origin: str = "<scenario>", *, name: str = "", build: bool = True) -> Scenario:
    """The scenario in the TOML ``text`` (see :func:`load`)."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        m = _TOML_LINE.search(str(exc))
        line = int(m.group(1)) if m else None
        message = _TOML_LINE.sub("", str(exc)).strip()
        raise ScenarioError(origin, line, f"not valid TOML: {message}") from None
    lines = locate(text)
    try:
        doc = fmt.ScenarioFile.model_validate(data)
    except pydantic.ValidationError as exc:
        first = exc.errors()[0]
        at = tuple(first["loc"])
        raise ScenarioError(origin, line_of(lines, at), _pydantic_message(first)) from None
    try:
        scenario = _scenario(doc, name or "scenario", origin)
        if build:
            scenario.build()
    except SpecError as exc:
        raise ScenarioError(origin, line_of(lines, exc.at), exc.message) from None
    return scenario


def _pydantic_message(err: Any) -> str:
    loc = ".".join(str(p) for p in err["loc"])
    kind = err["type"]
    if kind == "extra_forbidden":
        key = str(err["loc"][-1])
        valid = fmt.keys_at(err["loc"][:-1])
        return f"unknown key {key!r}{did_you_mean(key, valid)}; valid keys here: {', '.join(valid)}"
    if kind == "missing":
        return f"{loc}: this key is required"
    if kind in ("literal_error", "enum"):
        expected = err.get("ctx", {}).get("expected", "")
        got = err.get("input")
        near = did_you_mean(str(got), re.findall(r"'([^']*)'", expected)) if got is not None else ""
        return f"{loc}: {got!r} is not one of {expected}{near}"
    got = err.get("input")
    return f"{loc}: {err['msg'].lower()}, got {got!r}"


def _freeze(value: Any) -> Any:
    if isinstance(value, list):
        return tuple(_freeze(v) for v in value)
    if isinstance(value, dict):
        return tuple((k, _freeze(v)) for k, v in value.items())
    return value


def _items(entries: Any, where: KeyPath) -> tuple[ItemSpec, ...]:
    """A start key's list of objects, each checked against :class:`format.ItemEntry`."""
    if not isinstance(entries, list):
        raise SpecError(where, f"expected a list of objects ({{card = ...}}, ...), got {entries!r}")
    out = []
    for i, raw in enumerate(entries):
        try:
            e = fmt.ItemEntry.model_validate(raw)
        except pydantic.ValidationError as exc:
            first = exc.errors()[0]
            loc = where + (i,) + tuple(first["loc"])
            first = {**first, "loc": loc}
            raise SpecError(loc, _pydantic_message(first)) from None
        out.append(
            ItemSpec(
                kind=e.kind or "",
                card=e.card or "",
                controller=e.controller,
                n=e.n,
                finalized=e.finalized,
                target=e.target,
                at=where + (i,),
            )
        )
    return tuple(out)


def _item_keys(game: str) -> tuple[str, ...]:
    """The start keys of ``game`` whose value is a list of objects (none for a game that is not
    built in: building the scenario then says so)."""
    from turnproof.model.registry import builtin_rulesets

    rs = builtin_rulesets().get(game)
    if rs is None or rs.setup is None or rs.setup.core.start is None:
        return ()
    return rs.setup.core.start.items


def _start(st: fmt.StartEntry, game: str) -> StartSpec:
    keys = []
    lists = _item_keys(game)
    for key, value in (st.model_extra or {}).items():
        if key in lists:
            keys.append((key, _items(value, ("start", key))))
        else:
            keys.append((key, _freeze(value)))
    return StartSpec(
        turn=st.turn,
        hands=tuple(st.hands) if st.hands is not None else None,
        keys=tuple(keys),
        fields=tuple((k, _freeze(v)) for k, v in st.fields.items()),
    )


def _scenario(doc: fmt.ScenarioFile, name: str, origin: str) -> Scenario:
    cards: tuple[CardSpec, ...] | None = tuple(
        CardSpec(
            name=c.name,
            controller=None if c.controller == "each" else c.controller,
            zone=c.zone or "",
            counters=tuple(sorted(c.counters.items())),
            choices=(("read_ahead", c.read_ahead),) if c.read_ahead is not None else (),
            at=("card", i),
        )
        for i, c in enumerate(doc.card)
    )
    if doc.default_cards and not cards:
        cards = None
    bounds = dict(doc.bounds)
    if doc.players is not None:
        bounds["players"] = doc.players
    start = _start(doc.start, doc.game) if doc.start is not None else None
    props = []
    for i, p in enumerate(doc.property):
        kinds = [k for k in ("always", "never", "reachable", "terminates") if getattr(p, k)]
        if len(kinds) > 1:
            raise SpecError(("property", i), f"a property has one kind; this one has {kinds}")
        kind = kinds[0] if kinds else ""
        props.append(
            PropertySpec(
                name=p.name,
                kind=kind,
                expr=getattr(p, kind) if kind else "",
                when=p.when or "",
                description=p.description,
                expect=p.expect or "",
                verdicts=tuple(sorted(p.verdicts.items())),
                for_all=tuple(p.for_all),
                at=("property", i),
            )
        )
    return Scenario(
        name=name,
        game=doc.game,
        title=doc.title,
        description=doc.description,
        rules=doc.rules or "",
        cards=cards,
        default_cards=doc.default_cards,
        bounds=tuple(sorted(bounds.items())),
        for_all=tuple(doc.for_all),
        start=start,
        variant=doc.variant,
        mutant=doc.mutant,
        properties=tuple(props),
        states=doc.expect.states if doc.expect is not None else None,
        engines=tuple(doc.engines or ()),
        sources=tuple(doc.sources),
        origin=origin,
    )


def iter_shipped() -> Iterator[tuple[Shipped, Scenario]]:
    for s in shipped():
        yield s, load(s.path)
