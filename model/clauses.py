"""The keyword clauses of a rule: what :meth:`Rule.derive` may change, and the values each takes.

A rule's function declares its clauses as keyword-only parameters with defaults
(``pass_end_step(s, x, b, *, cleanup_repeats: bool = True)``). :func:`clauses_of` lists them with
their default (the value the rule set runs, or the one a derivation already bound) and, for a
text clause, the values the function compares it with (``then == "restart"``): the choices an
amendment file may give it. A clause whose text values are not compared in the rule's own body
(it is passed on to a helper) takes any text.

>>> from turnproof.model.rules import rule
>>> @rule("X 1", "an example")
... def r(s, x, b, *, then: str = "cleanup", again: bool = True):
...     return s if then == "restart" or then in ("next turn",) else s
>>> [(c.name, c.default, c.choices) for c in clauses_of(r)]
[('then', 'cleanup', ('cleanup', 'next turn', 'restart')), ('again', True, (False, True))]
"""

from __future__ import annotations

import ast
import inspect
import textwrap
from dataclasses import dataclass
from functools import partial
from typing import Any

from turnproof.model.rules import Rule


@dataclass(frozen=True)
class Clause:
    """A keyword clause of a rule: its name, the value the rule runs with, and its choices
    (empty: any value of the default's type)."""

    name: str
    default: Any
    choices: tuple[Any, ...] = ()

    @property
    def type_name(self) -> str:
        return {bool: "true or false", int: "a whole number", str: "text"}.get(
            type(self.default), type(self.default).__name__
        )

    def alternatives(self) -> tuple[Any, ...]:
        """The values other than the one the rule runs with (for a mutation that alters it)."""
        return tuple(v for v in self.choices if v != self.default)


def base_function(fn: Any) -> tuple[Any, dict[str, Any]]:
    """The function under any :func:`functools.partial` layers, and the keywords they bind."""
    bound: dict[str, Any] = {}
    while isinstance(fn, partial):
        bound = {**fn.keywords, **bound}
        fn = fn.func
    return fn, bound


def _compared_texts(fn: Any, name: str) -> set[str]:
    """The text constants the body of ``fn`` compares the parameter ``name`` with."""
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(fn)))
    except (OSError, TypeError, SyntaxError):
        return set()
    found: set[str] = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.Compare):
            continue
        sides = [node.left, *node.comparators]
        if not any(isinstance(s, ast.Name) and s.id == name for s in sides):
            continue
        for s in sides:
            if isinstance(s, ast.Constant) and isinstance(s.value, str):
                found.add(s.value)
            elif isinstance(s, ast.Tuple | ast.List | ast.Set):
                found |= {
                    e.value
                    for e in s.elts
                    if isinstance(e, ast.Constant) and isinstance(e.value, str)
                }
    return found


def clauses_of(rule: Rule) -> list[Clause]:
    """The rule's clauses, in the order its function declares them (see the module doc)."""
    fn, bound = base_function(rule.fn)
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return []
    out = []
    for p in params:
        if p.kind is not inspect.Parameter.KEYWORD_ONLY or p.default is inspect.Parameter.empty:
            continue
        default = bound.get(p.name, p.default)
        choices: tuple[Any, ...] = ()
        if isinstance(default, bool):
            choices = (False, True)
        elif isinstance(default, str):
            texts = _compared_texts(fn, p.name) | {p.default, default}
            if len(texts) > 1:  # compared with other values in the rule's own body
                choices = tuple(sorted(texts))
        out.append(Clause(p.name, default, choices))
    return out
