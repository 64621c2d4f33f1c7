# Licensed under the Apache License, Version 2.0.
"""Per-task tuning on Ansor (TVM 0.19, issue 106): which cost model finds a faster program in
fewer trials, inside Ansor's own search.

The tasks are the held-out networks' heaviest distinct Ansor tasks (the sum over the held-out
networks of task weight x best latency measured in the Ansor dataset, ``data/ansor/HARDWARE/``),
each network's :data:`PER_NETWORK` heaviest among them.
Each (task, model, seed) is tuned once by :func:`tvm_gnn.tune.ansor_task.tune_task` (a
``SketchPolicy``, 16 measurements a round) for ``--trials``; the best latency after every trial is
kept, so 32 and 64 trials are read off the same run. The models:

- ``gnn``: ``auto_scheduler.GNNModel()``'s weights (``--checkpoint``, default the shipped ones);
- ``xgb``: Ansor's default ``XGBModel`` (random scores until 100 measurements);
- ``xgb-pretrained``: an ``XGBModel`` first updated with every record of the Ansor dataset's
  training networks, the held-out networks' workloads left out (the records the GNN's Ansor
  weights train on): the fair peer;
- ``random``: Ansor's search with random scores.

Each run writes ``RUNS/<task>/<model>/seed<k>/run.json`` (curve, wall-clock, the cost model's
seconds, the weights' sha256) and its records, gzipped. A finished run is never repeated; the
benchmark resumes after a kill (a run killed halfway starts over). The report (``docs/ansor.md``,
section ``ansor-tune-tasks``; numbers in ``benchmarks/results/ansor_tune_tasks.json``) is that of
``tune_tasks.py`` (:mod:`tune_tasks_summary`): ratios against ``xgb`` and ``xgb-pretrained`` with
bootstrap intervals over tasks and seeds, trials to reach XGBModel's final best, the cost model's
share of wall-clock::

    .venv-tvm019/bin/python benchmarks/tuning/ansor_tasks.py --list
    .venv-tvm019/bin/python benchmarks/tuning/ansor_tasks.py --tasks 0 1 --seeds 0 1 2
    .venv-tvm019/bin/python benchmarks/tuning/ansor_tasks.py --report-only
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import math
import shutil
import sys
import time
from pathlib import Path

from tune_tasks_report import _ratio_table, plot, render
from tune_tasks_summary import summarize

from tvm_gnn import atomic, report

ROOT = Path(__file__).resolve().parents[2]
SECTION = "ansor-tune-tasks"
SEEDS = (0, 1, 2)
MODELS = ("gnn", "xgb", "xgb-pretrained", "random")
DEFAULT_MODELS = ("gnn", "xgb", "xgb-pretrained")
#: tasks of each held-out network among those selected, at least
PER_NETWORK = 2


# -- tasks ----------------------------------------------------------------------------------------
def _best(log: Path) -> float:
    """The best valid latency of a task log (raw or gzipped; no TVM), inf without one."""
    path = log if log.is_file() else log.with_name(log.name + ".gz")
    if not path.is_file():
        return math.inf
    data = gzip.decompress(path.read_bytes()) if path.suffix == ".gz" else path.read_bytes()
    best = math.inf
    for line in data.decode().splitlines():
        try:
            rec = json.loads(line)
            costs, error = rec["r"][0], rec["r"][1]
        except (ValueError, KeyError, IndexError, TypeError):
            continue
        if error == 0 and costs and all(math.isfinite(c) for c in costs):
            best = min(best, sum(costs) / len(costs))
    return best


def select_tasks(folder: Path, held_out, count: int) -> list[dict]:
    """The ``count`` heaviest distinct workloads of the held-out networks: weight x best
    measured latency, summed over the networks that have the workload."""
    from tvm_gnn.dataset.ansor_records import read_network_info

    by_key: dict[str, dict] = {}
    for net in held_out:
        for i, t in enumerate(read_network_info(folder, net)):
            best = _best(folder / t["log"])
            if not math.isfinite(best):
                continue
            w = by_key.setdefault(
                t["workload_key"],
                {
                    "id": f"{net}-{i:02d}",
                    "network": net,
                    "kind": t["desc"],
                    "log": t["log"],
                    "key": t["workload_key"],
                    "cost": 0.0,
                },  # fmt: skip
            )
            w["cost"] += t["weight"] * best
    ranked = sorted(by_key.values(), key=lambda w: -w["cost"])
    # each network's own heaviest first, so that MobileNetV2's depthwise and pointwise
    # convolutions are among them (Inception v3's heavy 3x3 convolutions would fill the set)
    chosen = [
        w for net in held_out for w in [w for w in ranked if w["network"] == net][:PER_NETWORK]
    ]
    chosen += [w for w in ranked if w not in chosen][: max(0, count - len(chosen))]
    return sorted(chosen[:count], key=lambda w: -w["cost"])


def search_task(folder: Path, task: dict):
    """The task's ``SearchTask``, as its records were measured (target, hardware parameters,
    layout rewriting)."""
    from tvm.auto_scheduler.measure import recover_measure_input

    from tvm_gnn.dataset.ansor_records import read_records, register_workloads

    register_workloads(folder, task["network"])
    inp, _ = read_records(folder / task["log"])[0]
    return recover_measure_input(inp).task


# -- runs -----------------------------------------------------------------------------------------
def _sha256(path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def tune_one(args, folder: Path, task: dict, model: str, seed: int, runs: Path, pretrain) -> dict:
    """Tune ``task`` with ``model`` and ``seed`` unless that run is archived; its ``run.json``."""
    from tvm_gnn.dataset.archive import gzip_bytes
    from tvm_gnn.measure.hardware import cpu_identity, cpu_model
    from tvm_gnn.tune.ansor_task import tune_task

    out = runs / task["id"] / model / f"seed{seed}"
    done = out / "run.json"
    if done.exists():
        old = json.loads(done.read_text())
        if old["trials"] >= args.trials and (model != "gnn" or old["weights"] == args.digest):
            return old
    work = out.with_name(out.name + ".work")
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    log = work / "records.json"
    res = tune_task(
        search_task(folder, task),
        model,
        args.trials,
        log,
        seed=seed,
        checkpoint=args.checkpoint,
        pretrain=pretrain,
        progress=not args.quiet,
        desc=f"{task['id']} {model} seed {seed}",
    )
    result = {
        "task": task["id"],
        "kind": task["kind"],
        "workload_key": task["key"],
        "model": model,
        "seed": seed,
        **res,
        "weights": args.digest if model == "gnn" else None,
        "pretrain_records": len(pretrain()[0]) if model == "xgb-pretrained" else None,
        "machine": f"{cpu_model()} ({cpu_identity()['llvm']})",
        "day": time.strftime("%Y-%m-%d"),
    }
    if log.exists():
        atomic.write_bytes(out / "records.json.gz", gzip_bytes(log, "records.json"))
    atomic.write_json(done, result)  # the run counts as finished only once this lands
    shutil.rmtree(work, ignore_errors=True)
    return result


def read_runs(runs: Path, digest: str) -> list[dict]:
    """Every archived run (the GNN's only of the weights with ``digest``)."""
    out = []
    for path in sorted(runs.glob("*/*/seed*/run.json")):
        r = json.loads(path.read_text())
        if r["model"] == "gnn" and r.get("weights") != digest:
            continue
        out.append(r)
    return out


# -- command line ---------------------------------------------------------------------------------
def parse(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--data", type=Path, default=ROOT / "data", help="dataset (default: data/)")
    p.add_argument("--hardware", default=None, help="Ansor hardware folder (default: the only one)")
    p.add_argument("--runs", type=Path, help="archive (default: per hardware)")
    p.add_argument("--tasks", nargs="+", help="indices or ids (default: all)")
    p.add_argument("--count", type=int, default=12, help="tasks selected (default: 12)")
    p.add_argument("--seeds", nargs="+", type=int, default=list(SEEDS))
    p.add_argument("--models", nargs="+", choices=MODELS, default=list(DEFAULT_MODELS))
    p.add_argument("--trials", type=int, default=128, help="trials per run (default: 128)")
    p.add_argument("--checkpoint", default=None, help="GNN weights (default: the shipped ones)")
    p.add_argument("--list", action="store_true", help="print the selected tasks and exit")
    p.add_argument("--report-only", action="store_true", help="rebuild the report, tune nothing")
    p.add_argument("--doc", type=Path, default=ROOT / "docs" / "ansor.md")
    p.add_argument(
        "--json",
        type=Path,
        default=ROOT / "benchmarks" / "results" / "ansor_tune_tasks.json",
        help="the report's numbers (default: benchmarks/results/ansor_tune_tasks.json)",
    )
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bars")
    return p.parse_args(argv)


def main(argv=None) -> int:
    from tvm_gnn.dataset.ansor_records import networks_of, training_pairs
    from tvm_gnn.dataset.splits import HELD_OUT
    from tvm_gnn.evaluate.ansor import hardware_of
    from tvm_gnn.resources import PRETRAINED

    args = parse(argv)
    hardware = hardware_of(args.data, args.hardware)
    folder = args.data / "ansor" / hardware
    runs = args.runs or ROOT / "benchmarks" / "tuning-runs" / f"ansor-{hardware}" / "tasks"
    args.digest = _sha256(args.checkpoint or PRETRAINED)
    tasks = select_tasks(folder, HELD_OUT, args.count)
    if not args.report_only:
        if args.tasks:
            names = {str(i): t for i, t in enumerate(tasks)} | {t["id"]: t for t in tasks}
            unknown = [x for x in args.tasks if x not in names]
            if unknown:
                raise SystemExit(f"unknown task(s) {unknown}; see --list")
            tasks = [names[x] for x in args.tasks]
        if args.list:
            for i, t in enumerate(tasks):
                print(f"{i:>2} {t['id']:<18} {t['kind'][:60]:<60} {t['cost'] * 1e3:8.3f} ms")
            return 0
        cache = {}

        def pretrain():
            if "pairs" not in cache:
                train = [n for n in networks_of(folder) if n not in HELD_OUT]
                held = {t["key"] for t in select_tasks(folder, HELD_OUT, 10**6)}
                cache["pairs"] = training_pairs(folder, train, held)
            return cache["pairs"]

        for task in tasks:
            for seed in args.seeds:
                for model in args.models:
                    tune_one(args, folder, task, model, seed, runs, pretrain)
    archived = read_runs(runs, args.digest)
    res = summarize(archived, args.trials, args.models, "gnn")
    plot_path = args.doc.parent / "ansor-tune-tasks.png"
    if res["curves"]:
        plot(res, plot_path)
    command = ".venv-tvm019/bin/python benchmarks/tuning/ansor_tasks.py --report-only"
    if args.checkpoint:
        command += f" --checkpoint {args.checkpoint}"
    text = render(res, command, plot_path.name if res["curves"] else None)
    if res.get("ratios_pretrained"):
        table = _ratio_table(
            "GNN / pretrained XGBModel", res["ratios_pretrained"], "xgb-pretrained", res
        )
        text += "\n" + "\n".join(table) + "\n"
    print(text)
    report.write_section(args.doc, SECTION, text)
    atomic.write_json(args.json, {k: v for k, v in res.items() if k != "curves"})
    return 0


if __name__ == "__main__":
    sys.exit(main())
