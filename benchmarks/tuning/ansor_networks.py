# Licensed under the Apache License, Version 2.0.
"""Whole networks tuned with Ansor (TVM 0.19, issue 106): ``gnn`` against ``xgb``, end to end.

Each (network, model, seed) is tuned once by :func:`tvm_gnn.tune.ansor.tune_network` (Ansor's task
scheduler, one cost model shared by every task, ``--trials`` in all), which compiles the network,
checks its output against an untuned build and times it. Each run writes
``RUNS/<network>/<model>/seed<k>/tune_result.json`` (latency, wall-clock, the cost model's share,
the task scheduler's estimate after each trial) and its records, gzipped; a finished run is never
repeated. Then, per seed, the models' networks are compiled from their records and timed **head
to head in one process**, in alternating order for ``--rounds`` rounds
(:func:`tvm_gnn.tune.ansor.head_to_head`): the ratio of a seed is the median GNN / XGBModel over
rounds, kept in ``RUNS/<network>/head_to_head-seed<k>.json``.

The report (``docs/ansor.md``, section ``ansor-tune-networks``): per network, each seed's ratio and
the rounds the GNN was faster in, their geometric mean with a t-interval over seeds, the tuning
wall-clock and the cost model's share of it::

    .venv-tvm019/bin/python benchmarks/tuning/ansor_networks.py --networks resnet18 --seeds 0 1
    .venv-tvm019/bin/python benchmarks/tuning/ansor_networks.py --report-only
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import time
from pathlib import Path

import numpy as np

from tvm_gnn import atomic, report

ROOT = Path(__file__).resolve().parents[2]
SECTION = "ansor-tune-networks"
MODELS = ("gnn", "xgb")
#: the MetaSchedule runs' budgets (docs/networks.md), the same total here
BUDGETS = {"resnet18": 480, "mobilenet_v2": 1000, "inception_v3": 1500}


def run_dir(runs: Path, network: str, model: str, seed: int) -> Path:
    return runs / network / model / f"seed{seed}"


def tune_one(args, network: str, model: str, seed: int, runs: Path, target) -> dict:
    """Tune ``network`` with ``model`` and ``seed`` unless that run is archived."""
    from tvm_gnn.dataset.archive import gzip_bytes
    from tvm_gnn.measure.hardware import cpu_identity, cpu_model
    from tvm_gnn.tune.ansor import tune_network

    out = run_dir(runs, network, model, seed)
    done = out / "tune_result.json"
    trials = args.trials or BUDGETS.get(network, 480)
    if done.exists():
        old = json.loads(done.read_text())
        if old["trials"] >= trials:
            return old
    work = out.with_name(out.name + ".work")
    shutil.rmtree(work, ignore_errors=True)
    res = tune_network(
        network, model, trials, target, work, seed=seed, checkpoint=args.checkpoint,
        progress=not args.quiet,
    )  # fmt: skip
    summary = json.loads((work / "tune_result.json").read_text())
    summary["machine"] = f"{cpu_model()} ({cpu_identity()['llvm']})"
    summary["day"] = time.strftime("%Y-%m-%d")
    atomic.write_bytes(out / "records.json.gz", gzip_bytes(Path(res.log_path), "records.json"))
    atomic.write_json(done, summary)  # the run counts as finished only once this lands
    shutil.rmtree(work, ignore_errors=True)
    return summary


def compare_seed(args, network: str, seed: int, runs: Path, target) -> dict | None:
    """The head-to-head timing of a seed's runs (cached in ``head_to_head-seed<k>.json``)."""
    import gzip
    import tempfile

    from tvm_gnn.tune.ansor import head_to_head

    path = runs / network / f"head_to_head-seed{seed}.json"
    if path.exists():
        return json.loads(path.read_text())
    results = {m: run_dir(runs, network, m, seed) / "tune_result.json" for m in MODELS}
    if not all(p.exists() for p in results.values()):
        return None
    rewrite = all(json.loads(p.read_text()).get("layout_rewrite", True) for p in results.values())
    with tempfile.TemporaryDirectory() as tmp:
        logs = {}
        for m in MODELS:
            logs[m] = Path(tmp) / f"{m}.json"
            packed = run_dir(runs, network, m, seed) / "records.json.gz"
            logs[m].write_bytes(gzip.decompress(packed.read_bytes()))
        times = head_to_head(network, logs, target, rounds=args.rounds, seed=seed, rewrite=rewrite)
    ratios = np.array(times["gnn"]) / np.array(times["xgb"])
    out = {"network": network, "seed": seed, "times_ms": times,
           "ratio": float(np.median(ratios)), "gnn_faster": int((ratios < 1).sum()),
           "rounds": len(ratios)}  # fmt: skip
    atomic.write_json(path, out)
    return out


def render(runs: Path, command: str) -> str:
    from scipy import stats

    lines = [
        f"Command: `{command}`.",
        "",
        "| network | trials | seeds | GNN / XGBModel head to head, per seed (rounds GNN faster) "
        "| geometric mean [95% t-interval over seeds] | tuning wall-clock, GNN / XGBModel (s) "
        "| cost-model share, GNN / XGBModel |",
        "|---|---:|---:|---|---:|---:|---:|",
    ]
    machines = set()
    for net_dir in sorted(p for p in runs.glob("*") if p.is_dir()):
        pairs = [json.loads(p.read_text()) for p in sorted(net_dir.glob("head_to_head-seed*.json"))]
        if not pairs:
            continue
        res = {m: [json.loads(p.read_text()) for p in sorted(net_dir.glob(f"{m}/seed*/"
               "tune_result.json"))] for m in MODELS}  # fmt: skip
        machines |= {r["machine"] for rs in res.values() for r in rs}
        logs = np.log([p["ratio"] for p in pairs])
        mean = float(np.exp(logs.mean()))
        if len(logs) > 1:
            half = stats.t.ppf(0.975, len(logs) - 1) * logs.std(ddof=1) / np.sqrt(len(logs))
            interval = f"[{np.exp(logs.mean() - half):.3f}, {np.exp(logs.mean() + half):.3f}]"
        else:
            interval = "(one seed)"
        per_seed = ", ".join(
            f"{p['ratio']:.3f}x ({p['gnn_faster']} of {p['rounds']})" for p in pairs
        )
        wall = " / ".join(f"{np.mean([r['tuning_seconds'] for r in res[m]]):.0f}" for m in MODELS)
        share = " / ".join(
            f"{100 * np.mean([r['cost_model_share'] for r in res[m]]):.1f}%" for m in MODELS
        )
        trials = res["gnn"][0]["trials"]
        lines.append(
            f"| {net_dir.name} | {trials} | {len(pairs)} | {per_seed} | **{mean:.3f}x** {interval} "
            f"| {wall} | {share} |"
        )
    lines.insert(1, f"Machines: {', '.join(sorted(machines)) or '-'}.")
    return "\n".join(lines) + "\n"


def parse(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--networks", nargs="+", default=list(BUDGETS))
    p.add_argument("--seeds", nargs="+", type=int, default=[0, 1])
    p.add_argument("--trials", type=int, help="trials a run (default: the MetaSchedule budget)")
    p.add_argument("--rounds", type=int, default=20, help="head-to-head timing rounds")
    p.add_argument("--runs", type=Path, help="archive (default: per hardware)")
    p.add_argument("--checkpoint", default=None, help="GNN weights (default: the shipped ones)")
    p.add_argument("--report-only", action="store_true", help="rebuild the report, tune nothing")
    p.add_argument("--doc", type=Path, default=ROOT / "docs" / "ansor.md")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bars")
    return p.parse_args(argv)


def main(argv=None) -> int:
    import tvm

    from tvm_gnn.evaluate.ansor import hardware_of
    from tvm_gnn.measure.hardware import usable_cores

    args = parse(argv)
    target = tvm.target.Target(f"llvm -num-cores={usable_cores()}")
    # beside the per-task runs: the folder of the Ansor dataset of this machine
    hardware = hardware_of(ROOT / "data", None)
    runs = args.runs or ROOT / "benchmarks" / "tuning-runs" / f"ansor-{hardware}" / "networks"
    if not args.report_only:
        for network in args.networks:
            for seed in args.seeds:
                for model in MODELS if seed % 2 == 0 else MODELS[::-1]:
                    tune_one(args, network, model, seed, runs, target)
                compare_seed(args, network, seed, runs, target)
    text = render(runs, ".venv-tvm019/bin/python benchmarks/tuning/ansor_networks.py --report-only")
    print(text)
    report.write_section(args.doc, SECTION, text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
