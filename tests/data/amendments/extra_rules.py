"""A rule for an amendment file's [[add]]: the bench's untap step, a second way."""

from typing import Any

from turnproof.model.rules import Kind, rule


@rule("TEST 502.4", "the turn starts in upkeep (a second untap rule)", kind=Kind.TURN_BASED)
def skip_untap(s: Any, x: Any, b: Any) -> Any:
    x.require(s.step == 0)
    x.require(s.turn < b.turns)
    return s.replace(step=1, prio=s.turn % 2, passes=0)


NOT_A_RULE = 3
