"""The built-in rule sets, by name."""

from __future__ import annotations

from turnproof.model.bench import BENCH
from turnproof.model.errors import UnknownNameError
from turnproof.model.rules import RuleSet


def builtin_rulesets() -> dict[str, RuleSet]:
    """Every built-in rule set, by name, in a fixed order."""
    from turnproof.model.magic import MAGIC
    from turnproof.model.riftbound import RIFTBOUND

    sets = [MAGIC, RIFTBOUND, BENCH]
    return {r.name: r for r in sets}


def get_ruleset(name: str) -> RuleSet:
    sets = builtin_rulesets()
    if name not in sets:
        raise UnknownNameError("rule set", name, sets)
    return sets[name]
