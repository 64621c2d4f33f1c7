# Licensed under the Apache License, Version 2.0.
"""How well could any cost model rank the held-out programs, given how noisy their labels are?

The dataset measured some programs more than once (the same trace in the same workload: small
design spaces sampled again, and reruns). Those repeats differ by measurement noise only, so they
estimate it: the pooled standard deviation of log latency within a repeated program, per latency
range (a 10 us kernel is timed with more relative noise than a 10 ms one).

Then a model that knew every program's true speed is simulated against the labels `tvm-gnn eval`
scores with: the held-out networks' workloads not shared with a training network, each program's
latency the median of its records. Taking those latencies as the truth, a second measurement is
drawn with the estimated noise of each program's latency range, and the eval's metrics score the
truth's order against it. The pairwise accuracy and top-1 this gives are what a perfect model
would score against labels of this noise: no cost model can be expected above them.

Programs are told apart by trace here (`tvm-gnn eval` merges by the scheduled program's
structural hash, which can merge a few more), and no TVM is needed, so it runs in seconds.

    .venv/bin/python benchmarks/ranking/noise_ceiling.py
"""

from __future__ import annotations

import argparse
import datetime
import json
from pathlib import Path

import numpy as np

from tvm_gnn import dataset as data
from tvm_gnn import report
from tvm_gnn.cli.common import hardware_args, resolved_hardware
from tvm_gnn.dataset.splits import HELD_OUT
from tvm_gnn.nn.metrics import pairwise_accuracy, topk_score

ROOT = Path(__file__).resolve().parents[2]
SECTION = "noise-ceiling"
JSON_OUT = ROOT / "benchmarks" / "results" / "noise_ceiling.json"
#: latency ranges (seconds) the noise is estimated in: [lo, hi)
BUCKETS = [(0.0, 20e-6), (20e-6, 100e-6), (100e-6, 1e-3), (1e-3, 10e-3), (10e-3, float("inf"))]
#: a range with fewer repeated programs than this borrows the pooled noise of all ranges
MIN_GROUPS = 10


def _label(lo: float, hi: float) -> str:
    def fmt(s):
        return f"{s * 1e3:g} ms" if s >= 1e-3 else f"{s * 1e6:g} us"

    return (
        f"under {fmt(hi)}"
        if lo == 0
        else f"{fmt(lo)} and up"
        if hi == float("inf")
        else f"{fmt(lo)} to {fmt(hi)}"
    )


def programs(folder: Path) -> dict[str, dict]:
    """``{workload shash: {"weight": w, "programs": {trace: [latencies]}}}`` of one network."""
    got, scan = data.samples(folder)
    trace = {r.line: json.dumps(r.trace, sort_keys=True) for r in scan.records}
    out: dict[str, dict] = {}
    for s in got:
        wl = out.setdefault(s.shash, {"weight": s.weight, "programs": {}})
        wl["programs"].setdefault(trace[s.line], []).append(s.latency)
    return out


def noise(networks: dict[str, dict]) -> dict:
    """Pooled within-program standard deviation of log latency, overall and per latency range."""
    sums = np.zeros(len(BUCKETS))
    dof = np.zeros(len(BUCKETS))
    groups = np.zeros(len(BUCKETS), dtype=int)
    records = np.zeros(len(BUCKETS), dtype=int)
    for wls in networks.values():
        for wl in wls.values():
            for lats in wl["programs"].values():
                if len(lats) < 2:
                    continue
                x = np.log(lats)
                b = _bucket(float(np.median(lats)))
                sums[b] += ((x - x.mean()) ** 2).sum()
                dof[b] += len(x) - 1
                groups[b] += 1
                records[b] += len(x)
    pooled = float(np.sqrt(sums.sum() / dof.sum())) if dof.sum() else float("nan")
    per = []
    for b, (lo, hi) in enumerate(BUCKETS):
        own = float(np.sqrt(sums[b] / dof[b])) if dof[b] else float("nan")
        per.append(
            {
                "range": _label(lo, hi),
                "programs": int(groups[b]),
                "records": int(records[b]),
                "sigma": own,
                "used": own if groups[b] >= MIN_GROUPS else pooled,
            }
        )
    return {
        "pooled": pooled,
        "programs": int(groups.sum()),
        "records": int(records.sum()),
        "buckets": per,
    }


def _bucket(latency: float) -> int:
    return next(b for b, (lo, hi) in enumerate(BUCKETS) if lo <= latency < hi)


def ceiling(test: dict[str, dict], sigma: dict, replicates: int, seed: int) -> dict:
    """Per network, the metrics of the true order scored against labels with simulated noise."""
    rng = np.random.default_rng(seed)
    used = np.array([b["used"] for b in sigma["buckets"]])
    out = {}
    for net, wls in test.items():
        lat, gid, weights = [], [], {}
        for i, wl in enumerate(w for w in wls.values() if len(w["programs"]) > 1):
            meds = [float(np.median(v)) for v in wl["programs"].values()]
            lat += meds
            gid += [i] * len(meds)
            weights[i] = wl["weight"]
        lat, gid = np.array(lat), np.array(gid)
        sd = used[[_bucket(x) for x in lat]]
        pair, top1 = [], []
        for _ in range(replicates):
            measured = lat * np.exp(sd * rng.standard_normal(len(lat)))
            # the perfect model scores each program by its true throughput; the labels are noisy
            pair.append(pairwise_accuracy(1.0 / lat, 1.0 / measured, gid))
            top1.append(topk_score(1.0 / lat, measured, gid, weights, k=1))
        out[net] = {
            "workloads": int(gid.max() + 1) if len(gid) else 0,
            "programs": len(lat),
            "pairwise": float(np.mean(pair)),
            "pairwise_sd": float(np.std(pair)),
            "top1": float(np.mean(top1)),
            "top1_sd": float(np.std(top1)),
        }
    return out


def markdown(res: dict, command: str) -> str:
    sig, ceil = res["noise"], res["ceiling"]
    lines = [
        f"Command: `{command}`",
        "",
        f"Data: `{res['data']}`, {res['hardware']}; {res['date']}. Noise from "
        f"{sig['programs']:,} programs measured more than once ({sig['records']:,} records), "
        f"over every network; pooled standard deviation of log latency **{sig['pooled']:.3f}**.",
        "",
        "| latency range | repeated programs | records | sd of log latency | sd used |",
        "|---|---:|---:|---:|---:|",
    ]
    for b in sig["buckets"]:
        lines.append(
            f"| {b['range']} | {b['programs']:,} | {b['records']:,} | "
            f"{b['sigma']:.3f} | {b['used']:.3f} |"
        )
    lines += [
        "",
        f"A perfect model against labels of this noise ({res['replicates']} draws, seed "
        f"{res['seed']}; held-out workloads not shared with a training network):",
        "",
        "| network | workloads | programs | pairwise accuracy | top-1 |",
        "|---|---:|---:|---:|---:|",
    ]
    for net, c in ceil.items():
        lines.append(
            f"| {net} | {c['workloads']} | {c['programs']:,} | "
            f"{c['pairwise']:.3f} +- {c['pairwise_sd']:.3f} | "
            f"{c['top1']:.3f} +- {c['top1_sd']:.3f} |"
        )
    lines.append(f"| **average** | | | **{res['pairwise']:.3f}** | **{res['top1']:.3f}** |")
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    hardware_args(parser)
    parser.add_argument(
        "--held-out",
        nargs="+",
        default=list(HELD_OUT),
        help="networks scored (default: the held-out trio)",
    )
    parser.add_argument("--replicates", type=int, default=200, help="noise draws (default: 200)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the noise draws")
    parser.add_argument(
        "--doc",
        default=str(ROOT / "docs" / "validation.md"),
        help="markdown file whose generated section is rewritten",
    )
    parser.add_argument("--json", default=str(JSON_OUT), help="where the numbers go as JSON")
    parser.add_argument("--no-write", action="store_true", help="print only")
    args = parser.parse_args(argv)
    hardware = resolved_hardware(parser, args)
    networks = {
        net: programs(folder)
        for hw, net, folder in data.network_folders(args.data)
        if hw == hardware
    }
    missing = [n for n in args.held_out if n not in networks]
    if missing:
        parser.error(f"no held-out network {missing} under {args.data}/{hardware}")
    trained = {h for net, wls in networks.items() if net not in args.held_out for h in wls}
    test = {n: {h: wl for h, wl in networks[n].items() if h not in trained} for n in args.held_out}
    sigma = noise(networks)
    ceil = ceiling(test, sigma, args.replicates, args.seed)
    res = {
        "data": args.data,
        "hardware": hardware,
        "date": datetime.date.today().isoformat(),
        "replicates": args.replicates,
        "seed": args.seed,
        "noise": sigma,
        "ceiling": ceil,
        "pairwise": float(np.mean([c["pairwise"] for c in ceil.values()])),
        "top1": float(np.mean([c["top1"] for c in ceil.values()])),
    }
    command = ".venv/bin/python benchmarks/ranking/noise_ceiling.py" + "".join(
        f" {opt} {val}"
        for opt, val, default in [
            ("--held-out", " ".join(args.held_out), " ".join(HELD_OUT)),
            ("--replicates", args.replicates, 200),
            ("--seed", args.seed, 0),
        ]
        if val != default
    )
    body = markdown(res, command)
    print(body)
    if not args.no_write:
        report.write_section(args.doc, SECTION, body)
        report.write_json(args.json, res)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
