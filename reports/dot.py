"""Pictures: state graphs and the turn structure as Graphviz DOT, and as SVG through Graphviz's
``dot`` program.

The graphs come as plain values (:class:`~turnproof.checks.results.StateGraph`,
:class:`~turnproof.checks.results.TurnStructure`) that the command line made with
``turnproof.checks.graphs``; nothing here runs an engine. A state reads like a step of a
story: the first state of a picture shows every field, every other state only the fields that
differ from the state it was reached from (``hand[0]: 8 → 7``); an arrow names the rule that
fired (citation and parameters). A trace's states and arrows are drawn bold and in colour, an
initial state with a double border, a terminal state grey.

The DOT text is written here (it is a small, stable format; networkx's writers need pydot or
pygraphviz for it, and would add nothing); :func:`to_svg` pipes it to ``dot -Tsvg``.
:class:`GraphvizMissingError` says how to install Graphviz when ``dot`` is not on the PATH.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from collections.abc import Iterable

from turnproof.checks.results import StateGraph, TurnStructure
from turnproof.model.errors import TurnproofError
from turnproof.reports.document import format_value, state_changes

TRACE_COLOUR = "#d32f2f"
INSTALL = (
    "Graphviz's dot program draws the SVG and is not installed: install Graphviz "
    "(Debian, Ubuntu: apt-get install graphviz; Fedora: dnf install graphviz; macOS: brew "
    "install graphviz; others: https://graphviz.org/download/), or write DOT with --dot FILE "
    "and draw it elsewhere"
)


class GraphvizMissingError(TurnproofError):
    """Graphviz's ``dot`` is not on the PATH."""

    def __init__(self) -> None:
        super().__init__(INSTALL)


class GraphvizError(TurnproofError):
    """``dot`` ran and failed (a message of its own), or took too long."""


def quote(text: str) -> str:
    """A DOT double-quoted string (newlines become ``\\l``, left-justified lines)."""
    body = text.replace("\\", "\\\\").replace('"', '\\"')
    return '"' + body.replace("\n", "\\l") + ('\\l"' if "\n" in text else '"')


def _attrs(**attrs: str) -> str:
    return "[" + ", ".join(f"{k}={quote(v)}" for k, v in attrs.items()) + "]"


def _head(name: str, title: str) -> list[str]:
    return [
        f"digraph {quote(name)} {{",
        f"  graph {_attrs(label=title, labelloc='t', fontname='Helvetica', fontsize='12')};",
        f"  node {_attrs(shape='box', style='rounded', fontname='Helvetica', fontsize='10')};",
        f"  edge {_attrs(fontname='Helvetica', fontsize='9')};",
    ]


def _rule_text(rule: str, name: str) -> str:
    """``MTG 117.4 [trig=1]``: the citation and the instance's parameters."""
    params = name[name.index("(") + 1 : -1] if "(" in name and name.endswith(")") else ""
    return f"{rule} [{params}]" if params else rule


def node_lines(graph: StateGraph, limit: int = 40) -> dict[int, list[str]]:
    """The text of each node: a title, then the state's fields or its changes."""
    by_id = {n.id: n for n in graph.nodes}
    out: dict[int, list[str]] = {}
    for n in graph.nodes:
        if n.trace_index is not None:
            title = f"state {n.trace_index}"
        else:
            title = "initial state" if n.initial else f"#{n.id}"
        parent = by_id.get(n.parent) if n.parent is not None else None
        if parent is None:
            body = [f"{k} = {format_value(v)}" for k, v in n.state.items()]
        else:
            body = state_changes(parent.state, n.state) or ["(nothing changed)"]
        if len(body) > limit:
            body = body[:limit] + [f"… {len(body) - limit} more"]
        out[n.id] = [title, *body]
    return out


def state_graph_dot(graph: StateGraph) -> str:
    """The DOT text of ``graph``."""
    lines = _head("states", graph.title + (f"\n{graph.caption}" if graph.caption else ""))
    texts = node_lines(graph)
    for node in graph.nodes:
        n = node.id
        attrs = {"label": "\n".join(texts[n])}
        if node.trace_index is not None:
            attrs.update(
                color=TRACE_COLOUR, penwidth="2", style="rounded,filled", fillcolor="#fdecea"
            )
        if node.initial:
            attrs["peripheries"] = "2"
        if node.terminal:
            attrs.update(style="rounded,filled", fillcolor="#e0e0e0")
        lines.append(f"  n{n} {_attrs(**attrs)};")
    for e in graph.edges:
        attrs = {"label": _rule_text(e.rule, e.name), "tooltip": e.name}
        if e.on_trace:
            attrs.update(color=TRACE_COLOUR, fontcolor=TRACE_COLOUR, penwidth="2.5")
        else:
            attrs.update(color="#757575", fontcolor="#616161")
        lines.append(f"  n{e.src} -> n{e.dst} {_attrs(**attrs)};")
    lines.append("}")
    return "\n".join(lines) + "\n"


def turn_structure_dot(ts: TurnStructure) -> str:
    """The steps as boxes (with how many transitions stay in each) and an arrow per pair of
    steps, labelled with the rules that move between them and how often they were explored."""
    title = f"turn structure: the {ts.states:,} explored states projected on {ts.field_name!r}"
    lines = _head("turn", title)
    for i, step in enumerate(ts.steps):
        label = f"{step}\n{ts.within.get(step, 0):,} transitions within"
        lines.append(f"  s{i} {_attrs(label=label)};")
    index = {step: i for i, step in enumerate(ts.steps)}
    pairs: dict[tuple[str, str], list[str]] = {}
    for m in ts.moves:
        pairs.setdefault((m.src, m.dst), []).append(f"{m.rule} {m.name} ({m.count:,})")
    for (src, dst), rules in pairs.items():
        lines.append(f"  s{index[src]} -> s{index[dst]} {_attrs(label=_label(rules))};")
    lines.append("}")
    return "\n".join(lines) + "\n"


def _label(rules: Iterable[str]) -> str:
    return "\n".join(rules) + "\n"


def is_graphviz_available() -> bool:
    return shutil.which("dot") is not None


def to_svg(dot: str, timeout: float = 120.0) -> str:
    """The SVG that Graphviz's ``dot`` draws from ``dot`` (DOT text)."""
    exe = shutil.which("dot")
    if exe is None:
        raise GraphvizMissingError()
    try:
        done = subprocess.run(
            [exe, "-Tsvg"], input=dot.encode(), capture_output=True, timeout=timeout, check=False
        )
    except subprocess.TimeoutExpired as exc:
        raise GraphvizError(f"Graphviz's dot took more than {timeout:g} s to draw it") from exc
    if done.returncode != 0:
        message = done.stderr.decode(errors="replace").strip().splitlines()
        raise GraphvizError("Graphviz's dot failed: " + (message[0] if message else "no message"))
    return done.stdout.decode()


def inline_svg(svg: str) -> str:
    """An SVG document as an element to put in HTML: no XML declaration, DOCTYPE or comments.
    It keeps Graphviz's natural size (a page scrolls a wide picture rather than shrink its
    text out of reading)."""
    body = svg[svg.index("<svg") :]
    return re.sub(r"<!--.*?-->\n?", "", body, flags=re.S)
