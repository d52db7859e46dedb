"""Pool files for ``turnproof hunt`` (TOML), and the shipped pools in ``scenarios/pools/``.

A pool file::

    format = 1
    title = "Cards that keep creating triggers"     # optional: one line
    game = "magic"                                  # a built-in rule set
    properties = ["cleanup-terminates"]             # optional: only these of the rule set's

    [bounds]                                        # optional: the bounds every combination
    turns = 1                                       # is checked at (small: a hunt checks many)

    [[card]]                                        # one table per card of the pool
    name = "Endless Rielle"                         # its name (any case) or its key
    controller = 0                                  # a player number, or "each" (the default)
    zone = "battlefield"                            # optional

    [[surprise]]                                    # optional: a state worth reporting
    name = "priority-in-cleanup-with-empty-stack"   # kebab-case
    description = "a player gets priority in a cleanup step with an empty stack"
    reachable = "step == CLEANUP and stage == PRIORITY and stack.len == 0"

The expressions are those of scenario properties (``scenarios/FORMAT.md``). Every problem is a
:class:`~turnproof.model.errors.TurnproofError` naming the file and the key (exit code 2).
"""

from __future__ import annotations

import tomllib
from importlib import resources
from pathlib import Path
from typing import Any

from turnproof.checks.hunt import HuntError, Pool, PoolCard, Surprise
from turnproof.model.errors import TurnproofError
from turnproof.model.packs import find_card
from turnproof.model.registry import builtin_rulesets

TOP_KEYS = {"format", "name", "title", "game", "properties", "bounds", "card", "surprise"}
CARD_KEYS = {"name", "controller", "zone"}
SURPRISE_KEYS = {"name", "description", "reachable"}


def shipped_pools() -> dict[str, Path]:
    """The shipped pools by name (the file's stem)."""
    folder = resources.files("turnproof.scenarios") / "pools"
    return {
        Path(str(p)).stem: Path(str(p))
        for p in sorted(folder.iterdir(), key=lambda p: p.name)
        if p.name.endswith(".toml")
    }


def find_pool(name: str) -> Path:
    """A pool by file path, or by the name of a shipped pool."""
    if name.endswith(".toml") or "/" in name:
        path = Path(name)
        if not path.is_file():
            raise HuntError(f"no pool file {name}")
        return path
    pools = shipped_pools()
    if name not in pools:
        raise HuntError(f"no shipped pool {name!r}; shipped pools: {', '.join(pools)}")
    return pools[name]


def _fail(path: Path, where: str, message: str) -> HuntError:
    return HuntError(f"{path}: {where}: {message}" if where else f"{path}: {message}")


def _unknown_keys(path: Path, where: str, table: dict[str, Any], valid: set[str]) -> None:
    extra = sorted(set(table) - valid)
    if extra:
        raise _fail(
            path, where, f"unknown key {extra[0]!r}; valid keys: {', '.join(sorted(valid))}"
        )


def _tables(
    path: Path, data: dict[str, Any], key: str, valid: set[str]
) -> list[tuple[str, dict[str, Any]]]:
    """The ``[[key]]`` tables of a pool file, each with where it is, checked for its keys."""
    out = []
    for i, table in enumerate(data.get(key, [])):
        where = f"{key}[{i}]"
        if not isinstance(table, dict):
            raise _fail(path, where, f"a table ([[{key}]])")
        _unknown_keys(path, where, table, valid)
        out.append((where, table))
    return out


def load_pool(path: Path) -> Pool:
    """The pool in the file at ``path`` (see the module docstring)."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise HuntError(f"cannot read pool {path}: {exc.strerror}") from None
    except tomllib.TOMLDecodeError as exc:
        raise HuntError(f"{path}: not valid TOML: {exc}") from None
    _unknown_keys(path, "", data, TOP_KEYS)
    if data.get("format") != 1:
        raise _fail(path, "format", "required, and 1 (the version of the pool format)")
    sets = builtin_rulesets()
    game = data.get("game")
    if game not in sets or sets[game].setup is None:
        valid = [n for n, rs in sets.items() if rs.setup is not None]
        raise _fail(path, "game", f"a rule set with cards: {', '.join(valid)}, not {game!r}")
    setup = sets[game].setup
    assert setup is not None
    library = setup.core.library()
    cards = []
    for where, c in _tables(path, data, "card", CARD_KEYS):
        try:
            pack = find_card(library, str(c.get("name", "")))
        except TurnproofError as exc:
            raise _fail(path, where + ".name", str(exc)) from None
        who = c.get("controller", "each")
        if who == "each":
            controller = None
        elif isinstance(who, int) and not isinstance(who, bool) and who >= 0:
            controller = who
        else:
            raise _fail(path, where + ".controller", f'a player number or "each", not {who!r}')
        zone = str(c.get("zone", ""))
        if zone and zone not in pack.zones:
            raise _fail(
                path, where + ".zone", f"valid zones for {pack.name}: {', '.join(pack.zones)}"
            )
        card = PoolCard(pack.key, controller, zone)
        if any(o.label == card.label for o in cards):
            raise _fail(path, where, f"{card.label} is in the pool twice")
        cards.append(card)
    if not cards:
        raise _fail(path, "card", "a pool needs at least one [[card]]")
    surprises = []
    for where, s in _tables(path, data, "surprise", SURPRISE_KEYS):
        if not isinstance(s.get("name"), str) or not isinstance(s.get("reachable"), str):
            raise _fail(path, where, "needs a name and a reachable expression")
        surprises.append(Surprise(s["name"], s["reachable"], str(s.get("description", ""))))
    bounds = data.get("bounds", {})
    valid_bounds = {sp.name for sp in sets[game].bound_specs}
    for k, v in bounds.items():
        if k not in valid_bounds:
            raise _fail(
                path, f"bounds.{k}", f"no such bound; valid: {', '.join(sorted(valid_bounds))}"
            )
        if not isinstance(v, int) or isinstance(v, bool):
            raise _fail(path, f"bounds.{k}", f"a whole number, not {v!r}")
    properties = data.get("properties", [])
    own = {p.name for p in sets[game].properties} | {
        p.name for pack in library.values() for p in pack.properties
    }
    for p in properties:
        if p not in own:
            raise _fail(path, "properties", f"no property {p!r} in rule set {game}")
    return Pool(
        name=str(data.get("name", path.stem)),
        game=game,
        cards=tuple(cards),
        bounds=tuple(sorted(bounds.items())),
        surprises=tuple(surprises),
        properties=tuple(properties),
        title=str(data.get("title", "")),
        origin=str(path),
    )
