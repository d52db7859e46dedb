"""The shape of a scenario file (``format = 1``), as pydantic models: the keys of each table,
their types and their valid choices. ``scenarios/FORMAT.md`` documents it with an example.

Names that depend on the rule set (cards, steps, fields, properties, bounds) are checked when
the scenario is built (:mod:`turnproof.model.scenario`), not here.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt, StrictStr


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class CardEntry(_Strict):
    """A ``[[card]]``: a card in play."""

    name: StrictStr
    controller: StrictInt | Literal["each"] = "each"
    zone: StrictStr | None = None
    counters: dict[StrictStr, StrictInt] = Field(default_factory=dict)
    read_ahead: StrictInt | None = None


class ItemEntry(_Strict):
    """An object on the stack or chain, or a waiting trigger (each game's core says which of
    the optional keys its objects have)."""

    kind: StrictStr | None = None
    card: StrictStr | None = None
    controller: StrictInt | None = None
    n: StrictInt | None = None
    finalized: StrictBool | None = None
    target: StrictInt | None = None


class StartEntry(BaseModel):
    """``[start]``: where the game starts. Besides these keys, the game's own (its core's start
    keys: Magic's step, stage, priority, stack, waiting; Riftbound's phase, stage, priority,
    focus, showdown, chain, waiting), checked when the scenario is built."""

    model_config = ConfigDict(extra="allow", frozen=True)

    turn: StrictInt | None = None
    hands: list[StrictInt] | None = None
    fields: dict[StrictStr, Any] = Field(default_factory=dict)


Verdict = Literal["PROVED", "EXHAUSTIVE", "VIOLATED", "WITNESSED", "UNKNOWN"]


class PropertyEntry(_Strict):
    """A ``[[property]]``: the rule set's own by name, or a new one with an expression."""

    name: StrictStr
    description: StrictStr = ""
    always: StrictStr | None = None
    never: StrictStr | None = None
    reachable: StrictStr | None = None
    terminates: StrictStr | None = None
    when: StrictStr | None = None
    expect: Literal["holds", "violated", "witnessed"] | None = None
    verdicts: dict[Literal["explicit", "symbolic"], Verdict] = Field(default_factory=dict)
    for_all: list[StrictStr] = Field(default_factory=list)


class ExpectEntry(_Strict):
    """``[expect]``: what the whole scenario should give."""

    states: StrictInt | None = None


class ScenarioFile(_Strict):
    """The top level of a scenario file."""

    format: Literal[1]
    title: StrictStr
    game: StrictStr
    rules: StrictStr | None = None
    description: StrictStr = ""
    sources: list[StrictStr] = Field(default_factory=list)
    players: StrictInt | None = None
    default_cards: StrictBool = False
    card: list[CardEntry] = Field(default_factory=list)
    bounds: dict[StrictStr, StrictInt] = Field(default_factory=dict)
    for_all: list[StrictStr] = Field(default_factory=list)
    start: StartEntry | None = None
    variant: StrictStr | None = None
    mutant: StrictStr | None = None
    property: list[PropertyEntry] = Field(default_factory=list)
    expect: ExpectEntry | None = None
    engines: list[Literal["explicit", "symbolic"]] | None = None


_TABLES: dict[str, type[BaseModel]] = {
    "card": CardEntry,
    "start": StartEntry,
    "property": PropertyEntry,
    "expect": ExpectEntry,
}


def keys_at(loc: tuple[Any, ...]) -> list[str]:
    """The keys a table at ``loc`` (a pydantic error location) may have."""
    if len(loc) >= 3 and loc[0] == "start" and isinstance(loc[2], int):
        return list(ItemEntry.model_fields)  # an object of a game's start key (a stack, a chain)
    model: type[BaseModel] = ScenarioFile
    for part in loc:
        if isinstance(part, str) and part in _TABLES:
            model = _TABLES[part]
    return list(model.model_fields)
