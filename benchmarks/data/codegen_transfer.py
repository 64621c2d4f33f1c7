"""Do the same scheduled programs rank alike when LLVM compiles them for another instruction set?

The dataset's records are of a plain ``llvm`` target: generic x86-64 code, SSE only. A user who
names the CPU (``{"kind": "llvm", "mcpu": "znver4"}``) runs the same schedules as AVX and FMA
code. This compares two hardware folders of the same networks, program by program (the same
structural hash of the scheduled TIR in the same workload):

- **pairwise agreement**: of the pairs of programs measured in both folders, the share that the
  first folder's latencies order as the second's do (the eval's pairwise accuracy: pairs tied in
  the second left out, tied in the first counted half). It is what a perfect model of
  the first folder's latencies would score on the second folder's programs, the ceiling for a
  cost model trained on one code generator and used with the other;
- **best-latency ratio**: per workload, the fastest program measured in the second folder over
  the fastest in the first.

    .venv/bin/python benchmarks/data/codegen_transfer.py data/llvm-amd-epyc-2c \
        testsets/llvm-amd-epyc-2c-znver4

Workloads with fewer than ``--min-common`` programs in both folders are left out of the
agreement; intervals are percentile bootstraps over workloads.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "python"))


def latencies(folder: Path) -> dict[str, dict[str, float]]:
    """``{workload shash: {program hash: latency}}`` of one network folder, packed or raw."""
    from tvm_gnn.dataset.records import distinct_programs

    out: dict[str, dict[str, float]] = {}
    for s, _, _ in distinct_programs(folder):
        out.setdefault(s.shash, {})[s.program] = s.latency
    return out


def compare(first: dict, second: dict, min_common: int) -> list[dict]:
    """One row per workload both folders hold; its agreement is the eval's pairwise accuracy
    (``pairwise_by_group``) of the first folder's latencies against the second's."""
    from tvm_gnn.nn.metrics import pairwise_by_group

    rows = []
    for shash in sorted(set(first) & set(second)):
        a, b = first[shash], second[shash]
        both = sorted(set(a) & set(b))
        agree = float("nan")
        if len(both) >= min_common:  # the first folder's latencies as the scores, one group
            scores, labels = [a[p] for p in both], [b[p] for p in both]
            (agree,) = pairwise_by_group(scores, labels, np.zeros(len(both)))
        rows.append(
            {
                "workload": shash,
                "common": len(both),
                "agreement": None if np.isnan(agree) else float(agree),
                "best_ratio": min(b.values()) / min(a.values()),
            }
        )
    return rows


def interval(values, statistic, resamples: int, seed: int) -> tuple[float, float]:
    """Percentile bootstrap 95% interval of ``statistic`` over ``values``."""
    rng = np.random.default_rng(seed)
    values = np.asarray(values, dtype=float)
    stats = [statistic(rng.choice(values, len(values))) for _ in range(resamples)]
    return float(np.percentile(stats, 2.5)), float(np.percentile(stats, 97.5))


def summary(name: str, rows: list[dict], resamples: int, seed: int) -> str:
    """A markdown table row for ``rows`` (one network's workloads, or all of them)."""
    agree = [r["agreement"] for r in rows if r["agreement"] is not None]
    ratios = [r["best_ratio"] for r in rows]
    geo = lambda v: float(np.exp(np.mean(np.log(v))))  # noqa: E731
    cells = [name, str(len(rows)), str(sum(r["common"] for r in rows)), str(len(agree))]
    if agree:
        lo, hi = interval(agree, np.mean, resamples, seed)
        cells.append(f"{np.mean(agree):.3f} [{lo:.3f}, {hi:.3f}]")
    else:
        cells.append("-")
    lo, hi = interval(ratios, geo, resamples, seed)
    cells.append(f"{geo(ratios):.2f} [{lo:.2f}, {hi:.2f}] ({min(ratios):.2f} - {max(ratios):.2f})")
    return "| " + " | ".join(cells) + " |"


def report(first: Path, second: Path, networks, min_common: int, resamples: int, seed: int) -> str:
    lines = [
        f"`{first}` against `{second}`: programs measured in both, per workload both hold",
        "",
        "| network | workloads | programs in both | workloads with >= "
        f"{min_common} in both | pairwise agreement, mean [95%] | best latency, second / first: "
        "geometric mean [95%] (range) |",
        "|---|---:|---:|---:|---|---|",
    ]
    everything = []
    for net in networks:
        rows = compare(latencies(first / net), latencies(second / net), min_common)
        if rows:
            everything += rows
            lines.append(summary(net, rows, resamples, seed))
    if not everything:
        return f"no workload is in both {first} and {second}"
    lines.append(summary("**all**", everything, resamples, seed))
    lines.append("")
    lines.append(f"(bootstrap over workloads, {resamples} resamples, seed {seed})")
    return "\n".join(lines)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("first", type=Path, help="a hardware folder, e.g. data/llvm-amd-epyc-2c")
    p.add_argument("second", type=Path, help="another, e.g. testsets/llvm-amd-epyc-2c-znver4")
    p.add_argument("--networks", nargs="+", help="default: every network both folders hold")
    p.add_argument("--min-common", type=int, default=5, help="programs in both (default: 5)")
    p.add_argument("--resamples", type=int, default=2000, help="bootstrap resamples")
    p.add_argument("--seed", type=int, default=0, help="bootstrap seed (default: 0)")
    args = p.parse_args(argv)
    for folder in (args.first, args.second):
        if not folder.is_dir():
            p.error(f"{folder} is not a folder")
    both = sorted(
        {d.name for d in args.first.iterdir() if d.is_dir()}
        & {d.name for d in args.second.iterdir() if d.is_dir()}
    )
    networks = args.networks or both
    missing = [n for n in networks if n not in both]
    if missing:
        p.error(f"not in both folders: {', '.join(missing)}")
    print(report(args.first, args.second, networks, args.min_common, args.resamples, args.seed))
    return 0


if __name__ == "__main__":
    sys.exit(main())
