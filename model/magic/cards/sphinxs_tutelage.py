"""Sphinx's Tutelage: "Whenever you draw a card, target opponent mills two cards. ..."

It triggers once per card drawn (603.2c). The mill changes nothing the turn structure looks at;
what matters is that its triggers wait, and cease to exist when the turn ends (ruling ET-03).
"""

from __future__ import annotations

from typing import Any

from turnproof.model.magic.core import fire, kinds
from turnproof.model.packs import KindSpec, Pack
from turnproof.model.schema import Term


def _draw(s: Any, x: Any, b: Any, *, me: Any, p: Term, count: Term, most: int) -> Any:
    ctrl = p if me.controller is None else me.controller
    t = s
    for k in range(1, most + 1):
        t = fire(t, x, b, x.And(me.controls(p), count >= k), ctrl, kinds(b).T_TUTELAGE)
    return t


CARD = Pack(
    key="sphinxs-tutelage",
    name="Sphinx's Tutelage",
    text="Enchantment. Whenever you draw a card, target opponent mills two cards. If two "
    "nonland cards that share a color were milled this way, repeat this process.",
    kinds=(KindSpec("T_TUTELAGE", "Sphinx's Tutelage's draw trigger"),),
    hooks={"draw": _draw},
    sources=("shared/examples/rulings.md ET-03",),
    module=__name__,
)
