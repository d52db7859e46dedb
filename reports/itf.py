"""Traces in the Informal Trace Format (ITF), so that the trace viewers and test generators of
the Apalache and Quint world read turnproof's counterexamples and witnesses.

The format is Apalache's ADR-015 (https://apalache-mc.org/docs/adr/015adr-trace.html): a JSON
object ``{"#meta": {...}, "vars": [...], "states": [...], "loop": i}``, each state an object
with ``#meta`` and a value for every variable. Values are written as the ADR says:

* booleans as JSON booleans, enum members by name (strings);
* integers always as ``{"#bigint": "123"}`` (the ADR allows it for every integer; Quint
  writes them so too, and one form is simpler to read back);
* records (``res``, a stack entry) as JSON objects, arrays (one entry per player) and
  fixed-capacity sequences (the stack: only the used slots) as JSON arrays.

Each state's values come from the trace's ``initial`` state and each step's changed fields;
its ``#meta`` names the step that reached it (the "action taken": rule citation, rule instance,
summary, who decided, the card). A lasso (a termination counterexample) has ``loop``: the index
of the state where the loop starts; its last state is that state again, reached by the step
that closes the loop (the form Apalache gives lassos, where the last state equals the loop's
first), and its ``#meta`` says so. The trace's ``#meta`` says which property, verdict, engine,
rule set (name, version, content hash) and bounds it belongs to, and the replay command.
Deterministic: no timestamps.
"""

from __future__ import annotations

from typing import Any

from turnproof.checks.results import trace_states
from turnproof.reports.document import Entry, ProofReport

SPEC = "https://apalache-mc.org/docs/adr/015adr-trace.html"


def itf_value(value: Any) -> Any:
    """A described state value in ITF.

    >>> itf_value({"ctrl": 1, "live": True, "what": "SUNDIAL", "stack": [0, 2]})
    {'ctrl': {'#bigint': '1'}, 'live': True, 'what': 'SUNDIAL', 'stack': [{'#bigint': '0'}, {'#bigint': '2'}]}
    """
    if isinstance(value, bool) or isinstance(value, str):
        return value
    if isinstance(value, int):
        return {"#bigint": str(value)}
    if isinstance(value, list | tuple):
        return [itf_value(v) for v in value]
    if isinstance(value, dict):
        return {str(k): itf_value(v) for k, v in value.items()}
    raise TypeError(f"no ITF form for {value!r}")


def itf_trace(doc: ProofReport, entry: Entry) -> dict[str, Any]:
    """The ITF object of ``entry``'s trace (the entry must have one)."""
    r = entry.result
    trace = r.trace
    if trace is None:
        raise ValueError(f"{r.name} [{r.engine}] has no trace")
    h = doc.header
    bounds = {**h.bounds, **trace.bounds}
    meta: dict[str, Any] = {
        "format": "ITF",
        "format-description": SPEC,
        "source": doc.run.command_line or f"turnproof check {h.ruleset}",
        "description": f"{r.name} [{r.engine}]: {entry.verdict_line}",
        "property": r.name,
        "claim": r.description,
        "verdict": r.verdict.value,
        "engine": r.engine,
        "ruleset": {"name": h.ruleset, "version": h.version, "content_hash": h.content_hash},
        "bounds": bounds,
        "replay": entry.replay,
    }
    if doc.run.version:
        meta["generated-by"] = f"turnproof {doc.run.version}"
    states = []
    for i, values in enumerate(trace_states(trace)):
        state_meta: dict[str, Any] = {"index": i}
        if i > 0:
            step = trace.steps[i - 1]
            state_meta.update(
                {"action": step.name, "rule": step.rule, "summary": step.summary, "kind": step.kind}
            )
            if step.decider is not None:
                state_meta["decider"] = step.decider
            if step.card:
                state_meta["card"] = step.card
            if trace.loop_start is not None and i == len(trace.steps):
                state_meta["closes-loop"] = f"this state is state {trace.loop_start} again"
        states.append({"#meta": state_meta, **{k: itf_value(v) for k, v in values.items()}})
    out: dict[str, Any] = {"#meta": meta, "vars": list(trace.initial), "states": states}
    if trace.loop_start is not None:
        out["loop"] = trace.loop_start
    return out


def itf_files(doc: ProofReport) -> dict[str, dict[str, Any]]:
    """Every trace of the report in ITF, by its file name (``traces/<property>-<engine>...``)."""
    return {e.trace_file: itf_trace(doc, e) for e in doc.traces()}
