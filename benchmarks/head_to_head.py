# Licensed under the Apache License, Version 2.0.
"""Time finished runs' networks in turn, in one process: any runs of one network, e.g. across
``tune_networks.py`` variants (warm- and cold-timed tuning), which its own head-to-head table keeps
apart.

    .venv/bin/python benchmarks/head_to_head.py --budget 480 \\
        "gnn cold-tuned=tune_runs/bench-cache-flush/resnet18/gnn/seed0" \\
        "gnn=tune_runs/bench/resnet18/gnn/seed0" "xgb=tune_runs/bench/resnet18/xgb/seed0"

The first run is the reference of the ratios. ``tune_networks.py`` with a run's command restores
archived runs into ``tune_runs/`` first.
"""

from __future__ import annotations

import argparse

import numpy as np


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("runs", nargs="+", help="LABEL=WORK_DIR of a finished run")
    p.add_argument("--budget", type=int, required=True, help="the networks after this many trials")
    p.add_argument("--rounds", type=int, default=20, help="timed rounds (default 20)")
    args = p.parse_args()
    runs = dict(r.split("=", 1) for r in args.runs if "=" in r)
    if len(runs) != len(args.runs) or len(runs) < 2:
        p.error("give two or more distinct LABEL=WORK_DIR")
    from tvm_gnn.tune.budgets import head_to_head

    times = head_to_head(runs, args.budget, rounds=args.rounds)
    ref_label = next(iter(runs))
    ref = times[ref_label]
    print(
        f"| run | ms (median of {args.rounds} rounds) | vs {ref_label} | rounds faster than "
        f"{ref_label} |\n|---|---:|---:|---:|"
    )
    for label, t in times.items():
        wins = "-" if label == ref_label else f"{sum(a < b for a, b in zip(t, ref))} of {len(t)}"
        print(f"| {label} | {np.median(t):.3f} | {np.median(t) / np.median(ref):.3f}x | {wins} |")


if __name__ == "__main__":
    main()
