"""The proof report as Markdown (GitHub-flavoured): for a code host, a pull request, or a CI job's
summary (``cat report.md >> "$GITHUB_STEP_SUMMARY"``).

Laid out from :class:`~turnproof.reports.document.ProofReport`: the header as a table, the
verdict table, one section per result (its claim, what the verdict means, the certificate of a
proof, the trace as a story in a fenced block inside ``<details>``, open when the result is not
as expected, and its replay line), then rule coverage and the figures. Deterministic but for
the measurements.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from turnproof.reports.document import Entry, ProofReport, format_seconds, plural
from turnproof.reports.text import story_lines

_MET_MARK = {True: "✅", False: "❌"}


def cell(text: str) -> str:
    """A table cell: pipes escaped, line breaks as ``<br>``."""
    return text.replace("|", "\\|").replace("\n", "<br>")


def code(text: str) -> str:
    """An inline code span that survives backticks in ``text``."""
    fence = "``" if "`" in text else "`"
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def table(headers: Sequence[str], rows: Iterable[Sequence[str]], right: Sequence[int] = ()) -> str:
    align = ["---:" if i in right else "---" for i in range(len(headers))]
    lines = ["| " + " | ".join(headers) + " |", "| " + " | ".join(align) + " |"]
    lines.extend("| " + " | ".join(cell(c) for c in row) + " |" for row in rows)
    return "\n".join(lines)


def met_cell(e: Entry) -> str:
    if e.met.startswith("unknown"):
        return f"❔ {e.met}"
    return f"{_MET_MARK[e.result.meets_expectation]} {e.met}"


def verdict_table(doc: ProofReport) -> str:
    rows = [
        (
            e.name,
            e.engine,
            f"**{e.verdict.value}**",
            f"{e.result.states:,}" if e.result.states else "-",
            f"{e.result.transitions:,}" if e.result.transitions else "-",
            f"{e.result.depth:,}" if e.result.depth is not None else "-",
            format_seconds(e.result.seconds) if e.engine != "both" else "-",
            met_cell(e),
        )
        for e in doc.entries
    ]
    headers = ("property", "engine", "verdict", "states", "edges", "depth", "time", "as expected")
    return table(headers, rows, right=(3, 4, 5, 6))


def _result_section(e: Entry) -> str:
    r = e.result
    lines = [f"### {e.title}", "", f"**claim:** {r.description}", ""]
    if r.citations:
        lines += [f"**rules:** {', '.join(r.citations)}", ""]
    lines += [e.verdict_line, ""]
    if e.certificate:
        lines.append("**certificate:**")
        lines.append("")
        for key, values in e.certificate:
            if len(values) == 1:
                lines.append(f"- {key}: {code(values[0])}")
            else:
                lines += [f"- {key}:", "", "  ```text", *(f"  {v}" for v in values), "  ```"]
        lines.append("")
    if e.story is not None:
        n = len(e.story.steps)
        opened = " open" if not r.meets_expectation else ""
        lines += [
            f"<details{opened}><summary>trace: {plural(n, 'step')}</summary>",
            "",
            "```text",
            *story_lines(e.story),
            "```",
            "",
            "</details>",
            "",
        ]
    if e.story is not None and e.story.replay:
        lines += [f"replay: {code(e.story.replay)}", ""]
    if e.trace_file:
        lines += [f"ITF trace: {code(e.trace_file)}", ""]
    return "\n".join(lines).rstrip()


def render_markdown(doc: ProofReport) -> str:
    h = doc.header
    parts = [
        f"# turnproof check: {h.ruleset}",
        "",
        f"**{doc.headline}** (exit code {doc.exit_code})",
        "",
        table(
            ("", ""),
            [
                ("rule set", f"{h.ruleset}, version {h.version}"),
                ("content hash", code(h.content_hash)),
                *((label, code(text) if label == "command" else text) for label, text in h.lines),
            ],
        ),
        "",
        "## Verdicts",
        "",
        verdict_table(doc),
        "",
        "## Results",
        "",
        "\n\n".join(_result_section(e) for e in doc.entries),
        "",
        "## Rule coverage",
        "",
    ]
    if doc.coverage:
        never = set(doc.never_fired)
        parts += [
            doc.coverage_text,
            "",
            table(
                ("rule", "transitions"),
                [
                    (n if n not in never else f"**{n}** (never fired)", f"{c:,}")
                    for n, c in doc.coverage
                ],
                right=(1,),
            ),
        ]
    else:
        parts.append("not measured: the explicit engine did not run")
    parts += ["", "## Figures", ""]
    parts += [f"- {label}: {text}" for label, text in doc.figures] or ["- (none measured)"]
    parts += ["", *(f"- {line}" for line in doc.conclusions)]
    return "\n".join(parts).rstrip() + "\n"
