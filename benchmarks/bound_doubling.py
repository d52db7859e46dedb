"""How each engine's time grows as a bound doubles, on one property (issue 3's figure).

For each value of the bound (1, 2, 4, ... up to ``--max``) the script checks the property with the
explicit engine (states, time) and with the symbolic engine with the bound fixed at that value
(time), then once with the symbolic engine leaving the bound open: one proof for every value.
Each figure is the median of ``--repeats`` runs in this process, one engine at a time.

    python benchmarks/bound_doubling.py
    python benchmarks/bound_doubling.py --ruleset bench --property no-deadlock --bound turns --max 16
"""

from __future__ import annotations

import argparse
import dataclasses
import statistics
import sys
import time
from typing import Any

from turnproof.checks import explicit
from turnproof.checks.symbolic import property_task
from turnproof.model.registry import get_ruleset
from turnproof.model.rules import Model


def timed(fn: Any, repeats: int) -> tuple[float, Any]:
    times, last = [], None
    for _ in range(repeats):
        t0 = time.perf_counter()
        last = fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), last


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--ruleset", default="magic")
    ap.add_argument("--property", default="eot-effects-end-before-next-turn")
    ap.add_argument("--bound", default="turns")
    ap.add_argument("--max", type=int, default=4, help="largest value of the bound (default 4)")
    ap.add_argument("--repeats", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=120.0, help="symbolic budget per check (s)")
    args = ap.parse_args(argv)

    rs = get_ruleset(args.ruleset)
    prop = rs.property(args.property)
    closed = dataclasses.replace(prop, for_all=())
    values = []
    v = 1
    while v <= args.max:
        values.append(v)
        v *= 2
    print(f"{args.ruleset} / {args.property}: doubling {args.bound}; medians of {args.repeats}")
    print(
        f"{args.bound:>6} {'states':>10} {'explicit s':>11} {'x prev':>7} {'symbolic s':>11} "
        f"{'x prev':>7}  verdicts"
    )
    prev_e = prev_s = None
    for value in values:
        model = Model(rs, {args.bound: value})
        te, (er,) = timed(lambda m=model: explicit.check_properties(m, [closed]), args.repeats)
        # As the runner does: an antecedent the explicit engine reached is not searched again.
        reached = not er.vacuous and closed.antecedent is not None
        ts, sr = timed(
            lambda m=model, r=reached: property_task(
                m, closed, timeout_s=args.timeout, max_depth=40, antecedent_reached=r
            ),
            args.repeats,
        )
        ratio_e = f"{te / prev_e:7.2f}" if prev_e else " " * 7
        ratio_s = f"{ts / prev_s:7.2f}" if prev_s else " " * 7
        print(
            f"{value:>6} {er.states:>10,} {te:>11.2f} {ratio_e} {ts:>11.2f} {ratio_s}  "
            f"{er.verdict.value} / {sr.verdict.value}"
        )
        prev_e, prev_s = te, ts
    model = Model(rs)
    to, open_r = timed(
        lambda: property_task(
            model,
            closed,
            timeout_s=args.timeout,
            max_depth=40,
            antecedent_reached=closed.antecedent is not None,
            open_bounds=(args.bound,),
        ),
        args.repeats,
    )
    print(
        f"{args.bound} left open (every value): symbolic {to:.2f} s, {open_r.verdict.value}"
        f" for {open_r.holds_for}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
