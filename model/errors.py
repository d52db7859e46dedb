"""The one root error type of turnproof and its subclasses, one per cause of bad input.

Every error carries a one-line message that names what was wrong and, where there is a finite
set of valid choices, lists them. Errors never print; the CLI renders them.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Sequence


class TurnproofError(Exception):
    """Root of every error turnproof raises on purpose. The CLI maps it to exit code 2."""

    exit_code = 2


def choices_text(valid: Iterable[str]) -> str:
    """Render a sorted list of valid choices for an error message."""
    items = sorted(set(valid))
    return ", ".join(items) if items else "(none)"


def did_you_mean(name: str, valid: Sequence[str]) -> str:
    """' (did you mean X?)' for a near miss among ``valid``; empty when there is none."""
    close = difflib.get_close_matches(name, list(valid), n=2, cutoff=0.6)
    if not close:
        lowered = {v.casefold(): v for v in valid}
        close = difflib.get_close_matches(name.casefold(), list(lowered), n=2, cutoff=0.6)
        close = [lowered[c] for c in close]
    return f" (did you mean {' or '.join(repr(c) for c in close)}?)" if close else ""


class UnknownNameError(TurnproofError):
    """A name (property, rule, rule set, mutant, variant, card) that does not exist; the
    message names a near miss (``did you mean``) and lists the valid names."""

    def __init__(
        self, what: str, name: str, valid: Iterable[str], where: str = "", plural: str = ""
    ) -> None:
        self.what = what
        self.name = name
        self.valid = sorted(set(valid))
        prefix = f"{where}: " if where else ""
        plural = plural or _plural(what)
        super().__init__(
            f"{prefix}unknown {what} {name!r}; valid {plural}: {choices_text(self.valid)}"
            + did_you_mean(name, self.valid).replace(" (", "; ").rstrip(")")
        )


def _plural(word: str) -> str:
    """'property' -> 'properties', 'bound' -> 'bounds', 'rule set' -> 'rule sets'."""
    if word.endswith("y") and word[-2:-1] not in "aeiou":
        return word[:-1] + "ies"
    return word + "s"


class BoundsError(TurnproofError):
    """A bound outside its range, or an unknown bound."""


class AmendmentError(TurnproofError):
    """An amendment that names a missing rule or is otherwise not applicable."""


class SchemaError(TurnproofError):
    """A state that does not fit its schema, or a schema that is badly declared."""


class ScenarioError(TurnproofError):
    """A malformed scenario file: carries the file and line."""

    def __init__(self, path: str, line: int | None, message: str) -> None:
        self.path = path
        self.line = line
        loc = f"{path}:{line}" if line is not None else path
        super().__init__(f"{loc}: {message}")


class ModelError(TurnproofError):
    """A rule set that is wrong as a model, whatever the input: a rule gives a field a value
    outside the field's domain without declaring the bound (``x.within``)."""
