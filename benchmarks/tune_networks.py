# Licensed under the Apache License, Version 2.0.
"""End-to-end tuning benchmark: GNNModel against XGBModel on whole networks.

For every network, cost model and seed it runs ``tvm_gnn.tune_network.tune_network`` (tune with
the task scheduler, compile, check the output against PyTorch, time the network) once, at the
largest budget. Each run writes ``RUNS/<network>/<model>/seed<k>/tune_log.json``; a run whose log
exists is not repeated, so the benchmark resumes after a kill.

The report (``docs/tuning.md``, a generated section) gives:

- the measured end-to-end latency at the final budget (median of ``--repeats`` timed runs of the
  compiled network, then the median over seeds), and the task scheduler's estimate
  (sum over tasks of weight x best measured latency) at every budget;
- how many trials the GNN needed to reach XGBModel's final estimate;
- the share of tuning wall-clock spent in the cost model (MetaSchedule's profiler scopes
  ``EvoSearch/Evolve/PredictNormalizedScore`` and ``MeasureCallback/UpdateCostModel``);
- plots of the estimate against trials and against wall-clock.

    .venv/bin/python benchmarks/tune_networks.py --networks resnet18 --trials 200 --seeds 0 1
"""

from __future__ import annotations

import argparse
import datetime
import json
import math
from pathlib import Path

import numpy as np

from tvm_gnn import report

ROOT = Path(__file__).resolve().parent.parent
SECTION = "tune-networks"
COST_MODEL_SCOPES = ("EvoSearch/Evolve/PredictNormalizedScore", "MeasureCallback/UpdateCostModel")


def run_all(args) -> list[dict]:
    from tvm_gnn.sampling import target_from
    from tvm_gnn.tune_network import tune_network

    target = target_from(args.target, args.num_cores)
    logs = []
    for net in args.networks:
        for model in args.models:
            for seed in args.seeds:
                work = Path(args.runs) / net / model / f"seed{seed}"
                log = work / "tune_log.json"
                if not log.exists() and not args.report_only:
                    print(f"== {net} / {model} / seed {seed}: {args.trials} trials", flush=True)
                    tune_network(net, model, args.trials, target, work, seed=seed,
                                 repeats=args.repeats)  # fmt: skip
                if log.exists():
                    logs.append(json.loads(log.read_text()))
    return logs


def estimate_at(curve: list[dict], trials: int) -> float:
    """The scheduler's estimate (s) after ``trials`` measured trials (inf before all tasks ran)."""
    best = math.inf
    for point in curve:
        if point["trials"] > trials:
            break
        if point["estimated_latency_s"] is not None:
            best = point["estimated_latency_s"]
    return best


def trials_to_reach(curve: list[dict], target_s: float) -> int | None:
    for point in curve:
        est = point["estimated_latency_s"]
        if est is not None and est <= target_s:
            return point["trials"]
    return None


def cost_model_share(log: dict) -> float:
    prof = log["profile_seconds"]
    total = prof.get("Total") or log["tuning_seconds"]
    return sum(prof.get(k, 0.0) for k in COST_MODEL_SCOPES) / total


def summarize(logs: list[dict], budgets: list[int]) -> str:
    by = {}
    for log in logs:
        by.setdefault((log["network"], log["cost_model"]), []).append(log)
    nets = sorted({n for n, _ in by})
    models = sorted({m for _, m in by})
    lines = ["| network | model | seeds | " + " | ".join(f"estimate @ {b} (ms)" for b in budgets)
             + " | measured end-to-end (ms) | failed trials | cost-model share |",
             "|---|---|---:|" + "---:|" * len(budgets) + "---:|---:|---:|"]  # fmt: skip
    reach = []
    for net in nets:
        for model in models:
            runs = by.get((net, model), [])
            if not runs:
                continue
            ests = [np.median([estimate_at(r["curve"], b) for r in runs]) * 1e3 for b in budgets]
            measured = np.median([r["latency_ms_median"] for r in runs])
            share = np.median([cost_model_share(r) for r in runs])
            fails = sum(r["failed_trials"] for r in runs)
            lines.append(f"| {net} | {model} | {len(runs)} | "
                         + " | ".join(f"{e:.3f}" if math.isfinite(e) else "-" for e in ests)
                         + f" | {measured:.3f} | {fails} | {share:.1%} |")  # fmt: skip
    lines.append("")
    lines.append("`-`: not every task had a measured candidate yet, so there is no estimate.")
    for net in nets:
        if (net, "gnn") in by and (net, "xgb") in by:
            xgb_final = np.median([estimate_at(r["curve"], r["trials"]) for r in by[(net, "xgb")]])
            xgb_trials = by[(net, "xgb")][0]["trials"]
            if not math.isfinite(xgb_final):
                reach.append(f"- {net}: XGBModel had not measured every task after "
                             f"{xgb_trials} trials.")  # fmt: skip
                continue
            got = [trials_to_reach(r["curve"], xgb_final) for r in by[(net, "gnn")]]
            text = ", ".join("never" if g is None else str(g) for g in got)
            reach.append(f"- {net}: XGBModel's final estimate {xgb_final * 1e3:.3f} ms after "
                         f"{xgb_trials} trials; GNNModel reached it after {text} trials "
                         "(per seed).")  # fmt: skip
    return "\n".join(lines + ["", *reach])


def plot(logs: list[dict], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    nets = sorted({log["network"] for log in logs})
    fig, axes = plt.subplots(len(nets), 2, figsize=(10, 3.2 * len(nets)), squeeze=False)
    colors = {"gnn": "tab:blue", "xgb": "tab:orange", "random": "tab:gray"}
    for row, net in zip(axes, nets):
        for log in (lg for lg in logs if lg["network"] == net):
            pts = [p for p in log["curve"] if p["estimated_latency_s"] is not None]
            if not pts:
                continue
            y = [p["estimated_latency_s"] * 1e3 for p in pts]
            for ax, key in zip(row, ("trials", "seconds")):
                ax.plot([p[key] for p in pts], y, color=colors.get(log["cost_model"], "k"),
                        alpha=0.7, label=f"{log['cost_model']} seed {log['seed']}")  # fmt: skip
        for ax, key in zip(row, ("trials", "wall-clock seconds")):
            ax.set_xlabel(key)
            ax.set_ylabel("estimated end-to-end (ms)")
            ax.set_title(net)
            ax.grid(alpha=0.3)
        row[0].legend(fontsize=7)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--networks", nargs="+", default=["resnet18", "mobilenet_v2", "inception_v3"])
    p.add_argument("--models", nargs="+", default=["gnn", "xgb"])
    p.add_argument("--trials", type=int, default=1000, help="budget of every run (default 1000)")
    p.add_argument("--budgets", nargs="+", type=int, default=None,
                   help="budgets reported from each run's curve (default: 1/5, 1/2 and all)")
    p.add_argument("--seeds", nargs="+", type=int, default=[0, 1])
    p.add_argument("--repeats", type=int, default=10, help="timed runs of each compiled network")
    p.add_argument("--runs", default=str(ROOT / "tune_runs" / "bench"))
    p.add_argument("--target", default="llvm")
    p.add_argument("--num-cores", type=int, default=None)
    p.add_argument("--report-only", action="store_true", help="only summarize existing runs")
    p.add_argument("--no-write", action="store_true", help="print, do not touch docs/")
    args = p.parse_args()
    budgets = args.budgets or sorted({args.trials // 5, args.trials // 2, args.trials})
    logs = run_all(args)
    if not logs:
        raise SystemExit("no finished runs to report")
    from tvm_gnn.collect import cpu_model

    body = (f"Command: `.venv/bin/python benchmarks/tune_networks.py --networks "
            f"{' '.join(args.networks)} --models {' '.join(args.models)} --trials {args.trials} "
            f"--seeds {' '.join(map(str, args.seeds))}`\n\nMachine: {cpu_model()}, target "
            f"{logs[0]['target']}, {logs[0]['cpu_count']} cores; TVM {logs[0]['tvm_version']}; "
            f"{datetime.date.today()}.\n\n" + summarize(logs, budgets)
            + "\n\n![estimated end-to-end latency](tuning.png)\n")  # fmt: skip
    print(body)
    if not args.no_write:
        report.write_section(ROOT / "docs" / "tuning.md", SECTION, body, title="Tuning")
        plot(logs, ROOT / "docs" / "tuning.png")


if __name__ == "__main__":
    main()
