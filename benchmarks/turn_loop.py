#!/usr/bin/env python3
"""The turn-loop benchmark: turnproof against SPIN and Rumur on the shared model, in one run.

Run from the project root after ``pip install -e .``::

    python benchmarks/turn_loop.py --configs base,mid --repeats 3
    python benchmarks/turn_loop.py --configs base --peers spin --json

Prints a table (or, with ``--json``, every figure). Exit code 0 when every distinct-state count
agrees (turnproof with the reference and with each peer that ran), 1 when one does not, 2 for bad
arguments. A peer that is not installed is reported as unavailable, not as a failure.
See ``turnproof.scenarios.bench`` for what is timed and how memory is measured.
"""

from __future__ import annotations

import argparse
import json
import sys

from turnproof.model.bench import CONFIGS
from turnproof.model.errors import TurnproofError
from turnproof.scenarios.bench import (
    GEN_ENV,
    PEERS,
    _fmt_rate,
    _row,
    format_bench,
    path_ratios,
    run_bench,
    run_turnproof,
    split_names,
)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="Measure turnproof's explicit engine against SPIN and Rumur on the shared "
        "turn-loop model (TLC parity = SPIN's rate / 64 from the same run)."
    )
    parser.add_argument(
        "--configs",
        default="base,mid",
        help=f"comma-separated configurations, of {', '.join(CONFIGS)} (default: base,mid)",
    )
    parser.add_argument(
        "--repeats", type=int, default=3, help="runs per tool and config (default: 3)"
    )
    parser.add_argument(
        "--peers",
        default=",".join(PEERS),
        help=f"comma-separated peers, of {', '.join(PEERS)}, or 'none' (default: spin,rumur)",
    )
    parser.add_argument(
        "--gen",
        default=None,
        help=f"gen_peers.py or its folder (default: ${GEN_ENV}, else ../shared/bench)",
    )
    parser.add_argument(
        "--timeout", type=float, default=None, help="seconds allowed per run (default: none)"
    )
    parser.add_argument(
        "--interpreted",
        action="store_true",
        help="also time turnproof's interpreted path (explore(compiled=False)), the oracle",
    )
    parser.add_argument("--json", action="store_true", help="print every figure as JSON")
    parser.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    args = parser.parse_args(argv)

    def progress(message: str) -> None:
        print(f"... {message}", file=sys.stderr, flush=True)

    try:
        result = run_bench(
            split_names(args.configs),
            args.repeats,
            split_names(args.peers),
            args.gen,
            timeout=args.timeout,
            progress=None if args.quiet else progress,
        )
        if args.interpreted:
            for name, entry in result["results"].items():
                slow = run_turnproof(name, args.repeats, args.timeout, progress, compiled=False)
                entry["turnproof_interpreted"] = slow
    except TurnproofError as exc:
        parser.error(str(exc))
    print(json.dumps(result, indent=2) if args.json else format_bench(result), end="")
    if args.interpreted and not args.json:
        print(
            "\nturnproof's interpreted path (every rule on ConcreteOps), measured after the rest:"
        )
        for name, entry in result["results"].items():
            slow, fast = entry["turnproof_interpreted"], entry["turnproof"]
            print(f"{name}:")
            print(_row("turnproof interpreted", slow))
            gains = path_ratios(fast, slow)
            if gains is not None:
                print(
                    f"  compiled/interpreted = {gains['by_wall_time']:.2f} by wall time, "
                    f"{gains['by_cpu_time']:.2f} by CPU time "
                    f"({_fmt_rate(fast['states_per_second'])} against "
                    f"{_fmt_rate(slow['states_per_second'])} states/s)"
                )
    if args.json:
        print()
    return 0 if result["counts_agree"] else 1


if __name__ == "__main__":
    sys.exit(main())
