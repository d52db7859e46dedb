"""Pictures: the state graph, a trace's neighbourhood and the turn structure (DOT, and SVG
through Graphviz), ``turnproof explore``, and the HTML report that embeds them.

The DOT text and the HTML report (drawn without Graphviz, so that no Graphviz version shows
in it) are pinned by golden files. The tests that run Graphviz or the headless browser are in
the slow tier and skip, saying why, where the program is missing.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from tiny_ruleset import TINY
from turnproof.checks import explicit, graphs
from turnproof.model.bench import BENCH
from turnproof.model.rules import Model
from turnproof.reports import dot, html
from turnproof.reports.document import Run, build_report
from turnproof.scenarios import cli

Golden = Callable[..., None]


def invoke(*args: str) -> Result:
    return CliRunner().invoke(cli.cli, list(args))


def tiny_trace(name: str) -> object:
    (r,) = explicit.check_properties(Model(TINY), [TINY.property(name)])
    assert r.trace is not None
    return r.trace


def test_neighbourhood_of_a_lasso(golden: Golden) -> None:
    model = Model(TINY)
    trace = tiny_trace("counter-settles")
    g = graphs.neighbourhood(model, trace, "counter-settles")  # type: ignore[arg-type]
    assert g is not None
    on = [e for e in g.edges if e.on_trace]
    assert [(e.rule, e.name) for e in on] == [("TEST 1.1", "advance")] * 2 + [("TEST 1.3", "undo")]
    assert [n.trace_index for n in g.nodes if n.trace_index is not None] == [0, 1, 2]
    assert {n.id for n in g.nodes} >= {e.dst for e in g.edges}
    golden("pictures/neighbourhood_counter_settles.dot", dot.state_graph_dot(g), mask=False)


def test_a_trace_that_does_not_replay_is_not_drawn() -> None:
    trace = tiny_trace("empty-stack-at-two")
    assert graphs.neighbourhood(Model(TINY, {"cap": 2}), trace, "x") is not None
    other = Model(TINY.amend(*TINY.variants["no-undo"]))
    assert graphs.neighbourhood(other, tiny_trace("counter-settles"), "x") is None  # type: ignore[arg-type]


def test_state_graph_and_turn_structure(golden: Golden) -> None:
    ex = explicit.explore(Model(TINY))
    g = graphs.state_graph(ex, "tiny")
    assert len(g.nodes) == ex.states and len(g.edges) == ex.transitions
    golden("pictures/states_tiny.dot", dot.state_graph_dot(g), mask=False)
    assert graphs.turn_structure(ex) is None  # tiny has no step field
    ts = graphs.turn_structure(explicit.explore(Model(BENCH)))
    assert ts is not None and ts.steps[0] == "0"
    assert sum(m.count for m in ts.moves) + sum(ts.within.values()) == 9132  # every edge once
    golden("pictures/turn_bench.dot", dot.turn_structure_dot(ts), mask=False)


def test_dot_quotes_what_it_must() -> None:
    assert dot.quote('a "b" \\ c') == '"a \\"b\\" \\\\ c"'
    assert dot.quote("two\nlines") == '"two\\llines\\l"'


def test_explore_command(with_tiny: None, tmp_path: Path) -> None:
    out = tmp_path / "g.dot"
    result = invoke("explore", "tiny", "--dot", str(out))
    assert result.exit_code == 0, result.output
    assert out.read_text().startswith('digraph "states"')
    assert result.stdout == "10 states and 15 transitions\n"
    trace = invoke("explore", "tiny", "--trace", "spinner-stops", "--dot", str(tmp_path / "t.dot"))
    assert trace.exit_code == 0 and "the 5 states of the trace" in trace.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["explore", "tiny"], "give --dot FILE or --svg FILE"),
        (["explore", "bench", "--dot", "x.dot"], "5,017 states, more than --max-nodes 2,000"),
        (["explore", "tiny", "--turn-structure", "--dot", "x.dot"], "has no step field"),
        (["explore", "tiny", "--trace", "no-deadlock", "--dot", "x.dot"], "has no trace to draw"),
        (["explore", "tiny", "--trace", "nope", "--dot", "x.dot"], "unknown property 'nope'"),
    ],
)
def test_explore_refuses_with_one_line(
    with_tiny: None,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    args: list[str],
    message: str,
) -> None:
    monkeypatch.chdir(tmp_path)
    result = invoke(*args)
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr.startswith("turnproof: error: ") and message in result.stderr
    assert list(tmp_path.iterdir()) == []


def test_missing_graphviz_says_how_to_install_it(
    with_tiny: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(dot.shutil, "which", lambda name: None)
    result = invoke("explore", "tiny", "--svg", str(tmp_path / "g.svg"))
    assert result.exit_code == 2
    assert "apt-get install graphviz" in result.stderr
    monkeypatch.chdir(tmp_path)
    checked = invoke("check", "tiny", "--out", "out")
    assert "report.html has no pictures" in checked.stderr
    page = (tmp_path / "out/report.html").read_text()
    assert "apt-get install graphviz" in page and "<details><summary>DOT</summary>" in page


def tiny_document() -> object:
    from turnproof.checks.runner import run_check

    model = Model(TINY)
    report = run_check(model, TINY.properties, ("explicit",))
    pics = {
        (r.name, r.engine): graphs.neighbourhood(model, r.trace, r.name)
        for r in report.results
        if r.trace is not None
    }
    return build_report(report, Run(), graphs={k: v for k, v in pics.items() if v})


def test_html_report_golden_and_offline(golden: Golden) -> None:
    page = html.render_html(tiny_document(), draw=None)  # type: ignore[arg-type]
    golden("pictures/report_tiny.html", page)
    assert '<table id="verdicts"' in page.split("<h2", 1)[0]  # the verdict table comes first
    # Nothing is loaded from anywhere: no script, no link to a style sheet, no remote address.
    assert not re.search(r"<script|<link|<img|@import|url\(|src=", page)
    assert not re.search(r'href="(?!#|traces/)', page)  # links go within the page or the set


# -- with Graphviz and Chromium (slow) ---------------------------------------------------------


@pytest.mark.slow
def test_svg_through_graphviz(tmp_path: Path) -> None:
    if not dot.is_graphviz_available():
        pytest.skip("Graphviz's dot is not installed (apt-get install graphviz)")
    g = graphs.neighbourhood(Model(TINY), tiny_trace("spinner-stops"), "spinner-stops")  # type: ignore[arg-type]
    assert g is not None
    svg = dot.to_svg(dot.state_graph_dot(g))
    assert svg.lstrip().startswith("<?xml") and "<svg" in svg and "TEST 2.2" in svg
    inline = dot.inline_svg(svg)
    assert inline.startswith("<svg") and "<!--" not in inline


def _verdict_colour_rows(png: Path) -> dict[str, int]:
    """How many separate horizontal bands of each verdict colour the screenshot shows."""
    from PIL import Image

    image = Image.open(png).convert("RGB")
    width, height = image.size
    pixels = image.load()
    assert pixels is not None
    colours = {
        v.value: tuple(int(c[i : i + 2], 16) for i in (1, 3, 5))
        for v, c in html.VERDICT_COLOURS.items()
    }
    bands: dict[str, int] = {}
    for name, rgb in colours.items():
        rows = [
            y for y in range(height) if sum(pixels[x, y] == rgb for x in range(0, width, 4)) > 5
        ]
        bands[name] = sum(1 for i, y in enumerate(rows) if i == 0 or rows[i - 1] != y - 1)
    return bands


@pytest.mark.slow
def test_html_report_in_headless_chromium(
    with_tiny: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        pytest.skip("Chromium is not installed (apt-get install chromium; .ci/run does it)")
    monkeypatch.chdir(tmp_path)
    assert invoke("check", "tiny", "--out", "out").exit_code == 1
    page = tmp_path / "out/report.html"
    png = tmp_path / "shot.png"
    with tempfile.TemporaryDirectory() as profile:
        subprocess.run(
            [
                browser,
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--no-first-run",
                f"--user-data-dir={profile}",
                f"--screenshot={png}",
                "--window-size=1200,900",
                page.as_uri(),
            ],
            capture_output=True,
            timeout=120,
            check=True,
        )
    from PIL import Image

    image = Image.open(png).convert("RGB")
    colours = image.getcolors(maxcolors=1 << 20) or []
    assert len(colours) > 20, "the screenshot is blank"
    # The verdict table is in the first screen: one band per result row, in its colour
    # (tiny: two EXHAUSTIVE, three VIOLATED of which two are adjacent rows, one WITNESSED).
    bands = _verdict_colour_rows(png)
    assert bands == {"PROVED": 0, "EXHAUSTIVE": 2, "VIOLATED": 3, "WITNESSED": 1, "UNKNOWN": 0}
