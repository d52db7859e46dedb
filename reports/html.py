"""The proof report as one self-contained HTML file: inline CSS, inline SVG pictures, no script,
no font, no image or style sheet from anywhere else, so it reads the same offline, as a CI
artefact or in a mail.

Laid out from :class:`~turnproof.reports.document.ProofReport`. The verdict table comes first,
under the headline (``<table id="verdicts">``, each verdict cell in its verdict's colour:
:data:`VERDICT_COLOURS`); then the run's header, one section per result (its claim, what the
verdict means, the certificate of a proof, the trace as a story: a step a row, citing its rule,
saying who decided and only what changed; the replay line; the link to its ITF file; and the
picture of the trace's neighbourhood), the turn structure, rule coverage and the figures.

Pictures are drawn by ``draw`` (DOT text to SVG; :func:`turnproof.reports.dot.to_svg` by
default when Graphviz is installed). Without it, each picture is a note that says how to
install Graphviz, with the DOT text to draw elsewhere.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from html import escape

from turnproof.checks.results import Verdict
from turnproof.reports import dot
from turnproof.reports.document import Entry, ProofReport, Story, format_seconds

#: The background of each verdict's cell (text is white on all of them). No other part of the
#: page uses these colours, so that a screenshot shows where the verdicts are.
VERDICT_COLOURS = {
    Verdict.PROVED: "#1b5e20",
    Verdict.EXHAUSTIVE: "#2e7d32",
    Verdict.VIOLATED: "#c62828",
    Verdict.WITNESSED: "#1565c0",
    Verdict.UNKNOWN: "#e65100",
}

CSS = """
body { font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Helvetica, Arial, sans-serif;
       margin: 1.5em auto; max-width: 70em; padding: 0 1em; color: #212121; background: #fff; }
h1 { font-size: 1.5em; margin: 0 0 .2em; } h2 { margin-top: 1.6em; border-bottom: 1px solid #ccc; }
h3 { margin: 1.4em 0 .3em; font-size: 1.1em; }
code, pre { font: 13px/1.4 ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace; }
pre { background: #f5f5f5; padding: .6em; overflow-x: auto; }
table { border-collapse: separate; border-spacing: 0 2px; margin: .5em 0; }
th, td { text-align: left; padding: .25em .7em; vertical-align: top; }
th { border-bottom: 2px solid #9e9e9e; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
td.verdict { color: #fff; font-weight: 700; }
.met-yes { color: #388e3c; } .met-no { color: #b71c1c; font-weight: 700; } .met-unknown { color: #ef6c00; }
.headline { font-size: 1.1em; font-weight: 600; }
.outcome-passed { color: #388e3c; } .outcome-failed { color: #b71c1c; } .outcome-unknown { color: #ef6c00; }
table.run td:first-child { color: #616161; white-space: nowrap; }
ol.story { list-style: none; padding-left: 0; }
ol.story > li { border-left: 3px solid #bdbdbd; margin: 0 0 .4em; padding: .1em .7em; }
ol.story > li.loop { border-left-color: #e65100; }
.cite { font-weight: 700; white-space: nowrap; } .who { color: #616161; }
ul.changes { margin: .1em 0; padding-left: 1.2em; }
figure { margin: 1em 0; overflow: auto; max-height: 60em; border: 1px solid #e0e0e0; }
figcaption { color: #616161; font-size: .9em; }
.note { color: #616161; font-style: italic; }
"""

Draw = Callable[[str], str]


def default_draw() -> Draw | None:
    """Graphviz's ``dot`` when it is installed, else None (the pictures become notes)."""
    return dot.to_svg if dot.is_graphviz_available() else None


def _verdict_cell(v: Verdict) -> str:
    return (
        f'<td class="verdict v-{v.value.lower()}" style="background:{VERDICT_COLOURS[v]}">'
        f"{v.value}</td>"
    )


def _met_cell(e: Entry) -> str:
    kind = (
        "yes" if e.result.meets_expectation else "unknown" if e.met.startswith("unknown") else "no"
    )
    return f'<td class="met-{kind}">{escape(e.met)}</td>'


def _num(n: int | None) -> str:
    return f'<td class="num">{"-" if not n else f"{n:,}"}</td>'


def verdict_table(doc: ProofReport) -> str:
    rows = []
    for e in doc.entries:
        r = e.result
        anchor = escape(_anchor(e))
        rows.append(
            "<tr>"
            f'<td><a href="#{anchor}">{escape(e.name)}</a></td><td>{escape(e.engine)}</td>'
            f"{_verdict_cell(e.verdict)}{_num(r.states)}{_num(r.transitions)}"
            f'<td class="num">{"-" if r.depth is None else f"{r.depth:,}"}</td>'
            f'<td class="num">{format_seconds(r.seconds) if e.engine != "both" else "-"}</td>'
            f"{_met_cell(e)}</tr>"
        )
    head = "".join(
        f"<th>{h}</th>"
        for h in (
            "property",
            "engine",
            "verdict",
            "states",
            "edges",
            "depth",
            "time",
            "as expected",
        )
    )
    return (
        f'<table id="verdicts" class="verdicts"><thead><tr>{head}</tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table>"
    )


def _anchor(e: Entry) -> str:
    return f"r-{e.name}-{e.engine}"


def _picture(dot_text: str, caption: str, draw: Draw | None) -> str:
    if draw is not None:
        try:
            svg = dot.inline_svg(draw(dot_text))
            return f"<figure>{svg}<figcaption>{escape(caption)}</figcaption></figure>"
        except dot.GraphvizError as exc:
            problem = str(exc)
        except dot.GraphvizMissingError:
            problem = dot.INSTALL
    else:
        problem = dot.INSTALL
    return (
        f'<p class="note">{escape(caption)}: no picture. {escape(problem)}.</p>'
        f"<details><summary>DOT</summary><pre>{escape(dot_text)}</pre></details>"
    )


def story_html(story: Story) -> str:
    parts = []
    if story.open_bounds:
        parts.append(
            f"<p>with {escape(story.open_bounds)} (bounds the symbolic engine left open)</p>"
        )
    initial = "".join(
        f"<tr><td><code>{escape(k)}</code></td><td><code>{escape(v)}</code></td></tr>"
        for k, v in story.initial
    )
    items = [f'<li><b>state 0</b><table class="state">{initial}</table></li>']
    for step in story.steps:
        in_loop = story.loop_start is not None and step.number > story.loop_start
        who = f' <span class="who">{escape(step.who)}</span>' if step.who else ""
        params = f" <code>{escape(step.params)}</code>" if step.params else ""
        lands = (
            f"state {step.number} = state {story.loop_start}: the loop closes"
            if step.closes_loop
            else f"state {step.number}"
        )
        changes = "".join(f"<li><code>{escape(c)}</code></li>" for c in step.changes) or (
            "<li>(nothing changed)</li>"
        )
        loop_mark = "<p><b>── loop starts here ──</b></p>" if step.loop_starts_after else ""
        items.append(
            f'<li class="{"loop" if in_loop else ""}"><span class="cite">{escape(step.rule)}</span>'
            f"{params} {escape(step.summary)}{who} ──► <b>{escape(lands)}</b>"
            f'<ul class="changes">{changes}</ul>{loop_mark}</li>'
        )
    if story.loop_start == 0:
        items.insert(1, "<li><b>── loop starts here ──</b></li>")
    parts.append(f'<ol class="story">{"".join(items)}</ol>')
    if story.loop_note:
        parts.append("<pre>" + escape("\n".join(story.loop_note)) + "</pre>")
    return "".join(parts)


def _result_html(e: Entry, draw: Draw | None) -> str:
    r = e.result
    parts = [f'<section id="{escape(_anchor(e))}"><h3>{escape(e.title)}</h3>']
    parts.append(f"<p><b>claim:</b> {escape(r.description)}</p>")
    if r.citations:
        parts.append(f"<p><b>rules:</b> {escape(', '.join(r.citations))}</p>")
    parts.append(f"<p>{escape(e.verdict_line)}</p>")
    if e.certificate:
        rows = "".join(
            f"<tr><td>{escape(k)}</td><td><pre>{escape(chr(10).join(v))}</pre></td></tr>"
            for k, v in e.certificate
        )
        parts.append(f"<p><b>certificate:</b></p><table>{rows}</table>")
    if e.story is not None:
        parts.append(story_html(e.story))
        if e.story.replay:
            parts.append(f"<p>replay: <code>{escape(e.story.replay)}</code></p>")
        if e.trace_file:
            parts.append(
                f'<p>ITF trace: <a href="{escape(e.trace_file)}">{escape(e.trace_file)}</a></p>'
            )
        if e.graph is not None:
            parts.append(_picture(dot.state_graph_dot(e.graph), e.graph.caption, draw))
    parts.append("</section>")
    return "".join(parts)


def render_html(doc: ProofReport, draw: Draw | None = None) -> str:
    """The report as one HTML document. ``draw`` turns DOT into SVG (see the module doc)."""
    h = doc.header
    run_rows = [("rule set", f"{h.ruleset}, version {h.version}"), ("content hash", h.content_hash)]
    run_rows += list(h.lines)
    run_table = "".join(
        f"<tr><td>{escape(k)}</td><td>{f'<code>{escape(v)}</code>' if k in ('command', 'content hash') else escape(v)}</td></tr>"
        for k, v in run_rows
    )
    body = [
        f"<h1>turnproof check: {escape(h.ruleset)}</h1>",
        f'<p class="headline outcome-{doc.overall.value}">{escape(doc.headline)} '
        f"(exit code {doc.exit_code})</p>",
        verdict_table(doc),
        f'<h2 id="run">Run</h2><table class="run">{run_table}</table>',
        '<h2 id="results">Results</h2>',
        *(_result_html(e, draw) for e in doc.entries),
    ]
    ts = doc.turn_structure
    if ts is not None:
        caption = f"the steps reached and the rules that move between them ({ts.states:,} states)"
        body.append('<h2 id="turn-structure">Turn structure</h2>')
        body.append(_picture(dot.turn_structure_dot(ts), caption, draw))
    if doc.notes:
        body.append("".join(f'<p class="note">{escape(n)}</p>' for n in doc.notes))
    body.append('<h2 id="coverage">Rule coverage</h2>')
    if doc.coverage:
        never = set(doc.never_fired)
        rows = "".join(
            f"<tr><td>{escape(n)}{' <b>(never fired)</b>' if n in never else ''}</td>"
            f'<td class="num">{c:,}</td></tr>'
            for n, c in doc.coverage
        )
        body.append(
            f"<p>{escape(doc.coverage_text)}</p>"
            f"<table><thead><tr><th>rule</th><th>transitions</th></tr></thead>"
            f"<tbody>{rows}</tbody></table>"
        )
    else:
        body.append("<p>not measured: the explicit engine did not run</p>")
    figures = "".join(f"<li>{escape(k)}: {escape(v)}</li>" for k, v in doc.figures)
    summary = "".join(f"<li>{escape(s)}</li>" for s in doc.conclusions)
    body.append(f'<h2 id="figures">Figures</h2><ul>{figures}{summary}</ul>')
    return page(f"turnproof check: {h.ruleset}", body)


def page(title: str, body: Sequence[str]) -> str:
    """One self-contained HTML page: ``title`` (plain text) and the ``body`` parts (HTML), one
    a line, with the inline style sheet :data:`CSS`."""
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{escape(title)}</title><style>{CSS}</style></head>"
        "<body>\n" + "\n".join(body) + "\n</body></html>\n"
    )


def table_html(
    headers: Sequence[str], rows: Iterable[Sequence[str]], numeric: Sequence[int] = ()
) -> str:
    """A table of plain-text cells (escaped here); the columns in ``numeric`` right-aligned."""

    def cells(row: Sequence[str], tag: str) -> str:
        return "".join(
            f'<{tag} class="num">{escape(c)}</{tag}>'
            if i in numeric and tag == "td"
            else f"<{tag}>{escape(c)}</{tag}>"
            for i, c in enumerate(row)
        )

    body = "".join(f"<tr>{cells(r, 'td')}</tr>" for r in rows)
    return f"<table><thead><tr>{cells(headers, 'th')}</tr></thead><tbody>{body}</tbody></table>"
