"""Results as the report gives them, less their timings: what must be the same whichever way
(here or in worker processes, beside the explicit engine or after it) they were checked."""

from __future__ import annotations

from typing import Any

from turnproof.reports import json_report


def comparable(results: list[Any]) -> list[dict[str, Any]]:
    out = []
    for r in results:
        d = json_report.result_json(r)
        d.pop("seconds")
        out.append(d)
    return out
