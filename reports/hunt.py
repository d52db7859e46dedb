"""The hunt's report (``turnproof hunt``): text, JSON, Markdown and HTML, each a layout of the one
document that :func:`turnproof.checks.hunt.build_document` builds (plain values, sorted, with
the findings' traces as :class:`~turnproof.checks.results.Trace` values). Nothing here judges:
what is a finding, and at which combination, is the document's."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from html import escape
from typing import Any

from turnproof.checks.results import Trace
from turnproof.reports.document import story_of
from turnproof.reports.html import page, story_html, table_html
from turnproof.reports.json_report import dumps, trace_json
from turnproof.reports.markdown import cell, code, table
from turnproof.reports.text import render_trace


def _cards(labels: Sequence[str]) -> str:
    return " + ".join(labels)


def search_line(doc: Mapping[str, Any]) -> str:
    """Which mode ran and how much of the space it covered."""
    s = doc["search"]
    share = 100.0 * s["done"] / s["space"] if s["space"] else 100.0
    head = (
        f"exhaustive: every combination of 1 to {s['size']} cards"
        if s["mode"] == "exhaustive"
        else f"sampled (seed {s['seed']}): the budget of {s['budget']} is below the "
        f"{s['space']} combinations of 1 to {s['size']} cards"
    )
    out = (
        f"{head}; {s['done']} of {s['space']} combinations done ({share:.1f}% of the space): "
        f"{s['checked']} checked now, {s['from_cache']} answered from the cache, "
        f"{s['skipped']} skipped"
    )
    if s["shrink_checks"]:
        out += f"; {s['shrink_checks']} subsets checked while shrinking"
    if s["stopped"] == "time budget":  # the document's words (checks/hunt.py: OUT_OF_TIME)
        out += (
            f"; STOPPED BY THE TIME BUDGET ({s['time_budget']:g} s) after {s['done']} of the "
            f"{s['planned']} planned combinations: how far a hunt stopped by time gets depends on "
            "the machine and its load (the report is the same for the same combinations done)"
        )
    elif s["interrupted"]:
        out += "; INTERRUPTED: the findings so far"
    return out


def coverage_counts(doc: Mapping[str, Any]) -> str:
    pairs = doc["coverage"]["pairs"]
    met = sum(1 for p in pairs if p["status"] == "met")
    never = sum(1 for p in pairs if p["status"] == "never met")
    unchecked = len(pairs) - met - never
    rules = doc["coverage"]["card_rules"]
    n_rules = len(doc["coverage"]["core_rules"])
    met_rules = sum(len(r["met"]) for r in rules)
    out = f"card pairs: {met} met, {never} never met"
    if unchecked:
        out += f", {unchecked} never checked together"
    return out + f"; card and core rule pairs: {met_rules} of {len(rules) * n_rules} met"


def render_hunt_text(doc: Mapping[str, Any]) -> str:
    pool = doc["pool"]
    bounds = ", ".join(f"{k}={v}" for k, v in pool["bounds"].items()) or "the defaults"
    lines = [
        f"turnproof hunt {pool['game']}: pool {pool['name']} ({len(pool['cards'])} cards), "
        f"bounds {bounds}",
        search_line(doc),
        f"findings: {len(doc['findings'])}",
    ]
    for i, f in enumerate(doc["findings"], 1):
        lines += ["", f"{i}. {f['kind']}: {f['property']}  [{_cards(f['cards'])}]"]
        lines.append(f"   {f['description']}")
        lines.append(f"   cards: {', '.join(f['card_names'])}")
        others = len(f["shown_by"]) - 1
        if others:
            lines.append(
                f"   also shown by {others} larger combination{'s' if others != 1 else ''}"
            )
        if len(f["minimal"]) > 1:
            lines.append("   minimal combinations: " + "; ".join(_cards(c) for c in f["minimal"]))
        lines.append(f"   decisive steps: {', '.join(f['decisive'])}")
        lines.append(f"   symbolic engine: {f['symbolic']}")
        lines.append(f"   replay: {f['replay']}")
        trace: Trace = f["trace"]
        lines.append(f"   trace ({len(trace.steps)} steps):")
        lines += ["     " + line for line in render_trace(trace).splitlines()]
    if doc["skipped"]:
        lines += ["", f"skipped (do not compose, or an internal error): {len(doc['skipped'])}"]
        reasons: dict[str, list[str]] = {}
        for s in doc["skipped"]:
            reasons.setdefault(s["reason"], []).append(_cards(s["cards"]))
        for reason, combos in sorted(reasons.items()):
            lines.append(
                f"  {reason} ({len(combos)}: {combos[0]}{', ...' if len(combos) > 1 else ''})"
            )
    if doc["incomplete"]:
        lines += ["", "incomplete (the state limit stopped the search):"]
        lines += [
            f"  {_cards(r['cards'])}: {', '.join(r['properties'])}" for r in doc["incomplete"]
        ]
    if doc["bounds_reached"]:
        lines += [
            "",
            "a bound cut transitions (what lies beyond it is not checked; raise it with --bound):",
        ]
        for r in doc["bounds_reached"]:
            cut = ", ".join(f"{k} ({v} transitions)" for k, v in r["bounds"].items())
            lines.append(f"  {_cards(r['cards'])}: {cut}")
    if doc["inapplicable"]:
        lines += ["", "surprising states not checked on some combinations:"]
        lines += [f"  {s}" for s in doc["inapplicable"]]
    lines += ["", "interaction coverage: " + coverage_counts(doc)]
    for status in ("met", "never met", "not checked together"):
        chosen = [p["cards"] for p in doc["coverage"]["pairs"] if p["status"] == status]
        if chosen:
            lines.append(f"  {status} ({len(chosen)}):")
            lines += [f"    {a} ~ {b}" for a, b in chosen]
    return "\n".join(lines) + "\n"


def hunt_json(doc: Mapping[str, Any]) -> dict[str, Any]:
    out = dict(doc)
    out["findings"] = [f | {"trace": trace_json(f["trace"])} for f in doc["findings"]]
    return out


def render_hunt_json(doc: Mapping[str, Any]) -> str:
    return dumps(hunt_json(doc))


def render_hunt_markdown(doc: Mapping[str, Any]) -> str:
    pool = doc["pool"]
    bounds = ", ".join(f"{k}={v}" for k, v in pool["bounds"].items()) or "the defaults"
    out = [
        f"# Hunt: pool {pool['name']} ({pool['game']})",
        "",
        f"{len(pool['cards'])} cards, bounds {code(bounds)}.",
        "",
        search_line(doc) + ".",
        "",
        f"## Findings ({len(doc['findings'])})",
        "",
    ]
    rows = [
        [
            str(i),
            f["kind"],
            code(f["property"]),
            _cards(f["cards"]),
            str(f["trace_length"]),
            f["symbolic"].split(":")[0],
            code(f["replay"]),
        ]
        for i, f in enumerate(doc["findings"], 1)
    ]
    if rows:
        out.append(
            table(
                ["#", "kind", "property", "cards", "steps", "symbolic", "replay"],
                rows,
                right=[0, 4],
            )
        )
    for i, f in enumerate(doc["findings"], 1):
        out += [
            "",
            f"### {i}. {f['kind']}: {f['property']}",
            "",
            cell(f["description"]),
            "",
            f"- cards: {cell(', '.join(f['card_names']))}",
            f"- shown by: {cell('; '.join(_cards(c) for c in f['shown_by']))}",
            f"- decisive steps: {cell(', '.join(f['decisive']))}",
            f"- symbolic engine: {cell(f['symbolic'])}",
            "",
            "```",
            render_trace(f["trace"]),
            "```",
        ]
    if doc["skipped"]:
        out += ["", f"## Skipped ({len(doc['skipped'])})", ""]
        out.append(
            table(
                ["cards", "reason"],
                [[_cards(s["cards"]), s["reason"]] for s in doc["skipped"]],
            )
        )
    out += ["", "## Interaction coverage", "", coverage_counts(doc) + ".", ""]
    out.append(
        table(
            ["card", "card", "met"],
            [
                [code(a), code(b), p["status"]]
                for p in doc["coverage"]["pairs"]
                for a, b in [p["cards"]]
            ],
        )
    )
    return "\n".join(out) + "\n"


_PAIR_CLASS = {"met": "met-yes", "never met": "met-no", "not checked together": "met-unknown"}


def _finding_html(i: int, f: Mapping[str, Any]) -> str:
    facts = [
        ("cards", ", ".join(f["card_names"]) + f" ({_cards(f['cards'])})"),
        ("shown by", "; ".join(_cards(c) for c in f["shown_by"])),
        ("minimal combinations", "; ".join(_cards(c) for c in f["minimal"])),
        ("decisive steps", ", ".join(f["decisive"])),
        ("symbolic engine", f["symbolic"]),
    ]
    rows = "".join(f"<tr><td>{escape(k)}</td><td>{escape(v)}</td></tr>" for k, v in facts)
    return (
        f'<section id="{escape(f["name"])}"><h3>{i}. {escape(f["kind"])}: '
        f"{escape(f['property'])}</h3><p>{escape(f['description'])}</p>"
        f'<table class="run">{rows}</table>'
        f"<p>replay: <code>{escape(f['replay'])}</code> (scenario file: "
        f'<a href="{escape(f["file"])}">{escape(f["file"])}</a>)</p>'
        f"{story_html(story_of(f['trace']))}</section>"
    )


def render_hunt_html(doc: Mapping[str, Any]) -> str:
    """The hunt's report as one self-contained page (the proof report's style sheet and trace
    stories, ``reports/html.py``): the findings' table first, then each finding with its
    trace, what was skipped or cut, and the interaction coverage."""
    pool = doc["pool"]
    bounds = ", ".join(f"{k}={v}" for k, v in pool["bounds"].items()) or "the defaults"
    findings = doc["findings"]
    rows = "".join(
        f'<tr><td class="num">{i}</td><td>{escape(f["kind"])}</td>'
        f'<td><a href="#{escape(f["name"])}">{escape(f["property"])}</a></td>'
        f"<td>{escape(_cards(f['cards']))}</td>"
        f'<td class="num">{f["trace_length"]}</td>'
        f"<td>{escape(f['symbolic'].split(':')[0])}</td></tr>"
        for i, f in enumerate(findings, 1)
    )
    head = "".join(f"<th>{h}</th>" for h in ("#", "kind", "property", "cards", "steps", "symbolic"))
    title = f"turnproof hunt: pool {pool['name']} ({pool['game']})"
    body = [
        f"<h1>{escape(title)}</h1>",
        f'<p class="headline">{len(findings)} finding{"s" if len(findings) != 1 else ""}</p>',
        f"<p>{len(pool['cards'])} cards, bounds <code>{escape(bounds)}</code>.</p>",
        f"<p>{escape(search_line(doc))}.</p>",
    ]
    if findings:
        body.append(
            f'<table id="findings"><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>'
        )
        body.append('<h2 id="details">Findings</h2>')
        body += [_finding_html(i, f) for i, f in enumerate(findings, 1)]
    if doc["skipped"]:
        body.append(
            f'<h2 id="skipped">Skipped: do not compose, or an internal error ({len(doc["skipped"])})</h2>'
        )
        body.append(
            table_html(
                ["cards", "reason"], [[_cards(s["cards"]), s["reason"]] for s in doc["skipped"]]
            )
        )
    if doc["incomplete"]:
        body.append('<h2 id="incomplete">Incomplete: the state limit stopped the search</h2>')
        body.append(
            table_html(
                ["cards", "properties left unanswered"],
                [[_cards(r["cards"]), ", ".join(r["properties"])] for r in doc["incomplete"]],
            )
        )
    if doc["bounds_reached"]:
        body.append('<h2 id="bounds">A bound cut transitions</h2>')
        body.append(
            "<p>What lies beyond a bound is not checked; raise it with <code>--bound</code>.</p>"
        )
        body.append(
            table_html(
                ["cards", "bound", "transitions cut"],
                [
                    [_cards(r["cards"]), k, f"{v:,}"]
                    for r in doc["bounds_reached"]
                    for k, v in r["bounds"].items()
                ],
                numeric=[2],
            )
        )
    if doc["inapplicable"]:
        body.append('<h2 id="inapplicable">Surprising states not checked on some combinations</h2>')
        body.append(
            "<ul>" + "".join(f"<li>{escape(s)}</li>" for s in doc["inapplicable"]) + "</ul>"
        )
    pairs = "".join(
        f"<tr><td><code>{escape(a)}</code></td><td><code>{escape(b)}</code></td>"
        f'<td class="{_PAIR_CLASS[p["status"]]}">{escape(p["status"])}</td></tr>'
        for p in doc["coverage"]["pairs"]
        for a, b in [p["cards"]]
    )
    body += [
        '<h2 id="coverage">Interaction coverage</h2>',
        f"<p>{escape(coverage_counts(doc))}.</p>",
        "<table><thead><tr><th>card</th><th>card</th><th>met</th></tr></thead>"
        f"<tbody>{pairs}</tbody></table>",
        table_html(
            ["card", "core rules met", "core rules never met"],
            [
                [r["card"], ", ".join(r["met"]) or "-", ", ".join(r["never"]) or "-"]
                for r in doc["coverage"]["card_rules"]
            ],
        ),
    ]
    return page(title, body)


RENDERERS = {
    "text": render_hunt_text,
    "json": render_hunt_json,
    "markdown": render_hunt_markdown,
    "html": render_hunt_html,
}


def hunt_files(doc: Mapping[str, Any]) -> dict[str, str]:
    """What ``turnproof hunt --out DIR`` writes: the report in every format, and the scenario
    file of every finding."""
    files = {
        "hunt.txt": render_hunt_text(doc),
        "hunt.json": render_hunt_json(doc),
        "hunt.md": render_hunt_markdown(doc),
        "hunt.html": render_hunt_html(doc),
    }
    for f in doc["findings"]:
        files[f["file"]] = f["scenario"]
    return files
