"""Spacer's time on the Horn clauses of safety properties, under sets of Z3 parameters.

Most of a cold default check is Spacer: it proves most properties, and on some it spends its
whole share and fails before the control invariant proves them. Its search is chaotic: one
parameter changes a property's time several-fold either way. This script tells whether a set of
parameters pays on more than one property: for each property and each configuration (Z3's
defaults first, then each --config) it gives Spacer alone the property's Horn clauses, as
``proofs.spacer`` makes them (the property's own open bounds), and --timeout seconds; it prints
each time and answer, then for each configuration the sum, an undecided property counted at the
timeout. One process, one run at a time; quote figures from one run of the script.

    python benchmarks/spacer_params.py
    python benchmarks/spacer_params.py --config spacer.mbqi=false --config spacer.q3=false
    python benchmarks/spacer_params.py --property resolves-after-all-pass \\
        --config spacer.push_pob=true,spacer.mbqi=false --timeout 120

A configuration is NAME=VALUE[,NAME=VALUE...] with names of Z3's fixed-point parameters
(``python -c "import z3; print(z3.Fixedpoint().param_descrs())"`` lists them).
"""

from __future__ import annotations

import argparse
import difflib
import sys
import time
from collections.abc import Sequence

import z3
from turnproof.checks.bmc import Deadline
from turnproof.checks.proofs import safety_query, spacer
from turnproof.checks.symbolic import shared_encoding
from turnproof.model.errors import TurnproofError
from turnproof.model.registry import get_ruleset
from turnproof.model.rules import Model

#: The default Magic check's safety properties that Spacer took longest on, or failed, on the
#: machines measured (ARCHITECTURE.md, "Spacer keeps Z3's defaults").
SLOW = (
    "attacking-creature-taps",
    "attacks-a-planeswalker-only-if-there-is-one",
    "sarkhan-is-attacked-only-as-the-defenders-planeswalker",
    "only-an-untapped-creature-attacks",
    "resolves-after-all-pass",
    "eoc-effects-end-with-combat",
    "step-ends-after-all-pass",
)

Config = dict[str, bool | int | float | str]


def parse_config(text: str) -> Config:
    """``NAME=VALUE[,NAME=VALUE...]``, each value read as its parameter's kind (ValueError
    saying what is wrong and what is valid)."""
    descrs = z3.Fixedpoint().param_descrs()
    kinds = {descrs.get_name(i): descrs.get_kind(descrs.get_name(i)) for i in range(descrs.size())}
    out: Config = {}
    for item in text.split(","):
        name, sep, value = item.strip().partition("=")
        if not sep or not name or not value:
            raise ValueError(f"{item!r}: expected NAME=VALUE, e.g. spacer.q3=false")
        if name not in kinds:
            near = difflib.get_close_matches(name, kinds, n=5)
            hint = f"; did you mean {', '.join(near)}?" if near else ""
            raise ValueError(f"{name!r} is not a Z3 fixed-point parameter{hint}")
        kind = kinds[name]
        try:
            if kind == z3.Z3_PK_BOOL:
                if value.lower() not in ("true", "false"):
                    raise ValueError
                out[name] = value.lower() == "true"
            elif kind == z3.Z3_PK_UINT:
                whole = int(value)
                if whole < 0:
                    raise ValueError
                out[name] = whole
            elif kind == z3.Z3_PK_DOUBLE:
                out[name] = float(value)
            else:
                out[name] = value
        except ValueError:
            want = {z3.Z3_PK_BOOL: "true or false", z3.Z3_PK_UINT: "a whole number >= 0"}
            raise ValueError(f"{name}={value}: expected {want.get(kind, 'a number')}") from None
    return out


def show(config: Config) -> str:
    return ",".join(f"{k}={str(v).lower()}" for k, v in config.items()) or "Z3 defaults"


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--ruleset", default="magic", help="built-in rule set (default: magic)")
    ap.add_argument(
        "--property",
        action="append",
        help="a safety property of the rule set (repeatable; default: seven slow ones of magic)",
    )
    ap.add_argument(
        "--config", action="append", default=[], help="NAME=VALUE[,NAME=VALUE...] (repeatable)"
    )
    ap.add_argument("--timeout", type=float, default=60.0, help="seconds per run (default 60)")
    args = ap.parse_args(argv)
    try:
        configs = [{}, *(parse_config(c) for c in args.config)]
        rs = get_ruleset(args.ruleset)
        props = [rs.property(name) for name in (args.property or SLOW)]
    except (ValueError, TurnproofError) as exc:
        print(f"spacer_params: {exc}", file=sys.stderr)
        return 2
    others = [p.name for p in props if p.kind not in ("always", "step")]
    if others or args.timeout <= 0:
        what = f"not safety properties: {', '.join(others)}" if others else "--timeout must be > 0"
        print(f"spacer_params: {what}", file=sys.stderr)
        return 2
    model = Model(rs)
    queries = [
        safety_query(shared_encoding(model, prop.monitors, prop.for_all), prop) for prop in props
    ]
    width = max(len(p.name) for p in props)
    print(f"{args.ruleset}: Spacer alone, {args.timeout:g} s each, z3 {z3.get_version_string()}")
    for i, config in enumerate(configs):
        print(f"  [{i}] {show(config)}")
    print(f"{'property':<{width}}  " + "  ".join(f"{f'[{i}]':>18}" for i in range(len(configs))))
    sums = [0.0] * len(configs)
    undecided = [0] * len(configs)
    for prop, q in zip(props, queries):
        cells = []
        for i, config in enumerate(configs):
            t0 = time.perf_counter()
            answer = spacer(q, Deadline(args.timeout), params=config)
            took = time.perf_counter() - t0
            if answer.status == "unknown":
                undecided[i] += 1
            sums[i] += args.timeout if answer.status == "unknown" else took
            cells.append(f"{took:8.1f} s {answer.status:>7}")
        print(f"{prop.name:<{width}}  " + "  ".join(cells), flush=True)
    print(
        f"{'sum (undecided at the timeout)':<{width}}  "
        + "  ".join(f"{s:8.1f} s {u:>3} unk" for s, u in zip(sums, undecided))
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
