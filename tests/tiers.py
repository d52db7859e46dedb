"""The test tiers: the fast tier (``pytest``), the slow tier (``pytest -m slow``; CI runs both,
``pytest -m 'not deep'``) and the deep tier (``pytest -m deep``), the full sweep that the slow
tier samples."""

from __future__ import annotations

from collections.abc import Iterable

import pytest

#: The shipped scenarios the slow tier runs where the deep tier runs them all: one or two of
#: each mechanic (cleanup, ending the turn, durations, copied triggers, turn control with a
#: skipped turn, Sagas, the Riftbound chain, a scenario meant to fail), the quickest of them.
SAMPLE_SCENARIOS = (
    "cleanup-sba-alone",
    "et-14-sundial-hand-size",
    "expiration-loop",
    "mandate-copied",
    "meant-to-fail-cleanup-always-priority",
    "ms-03-skipped-turn",
    "rb-01-spell-in-neutral-open",
    "rb-05-trigger-during-resolution-waits",
    "sg-06-final-chapter-delays-sacrifice",
    "wurm-dies-ending-the-turn",
)


def tier(names: Iterable[str], sample: Iterable[str] = SAMPLE_SCENARIOS) -> list[object]:
    """``names`` as test parameters: those in ``sample`` in the slow tier, the others in the
    deep tier only."""
    keep = set(sample)
    return [
        pytest.param(n, marks=pytest.mark.slow if n in keep else pytest.mark.deep) for n in names
    ]
