# Licensed under the Apache License, Version 2.0.
"""Per-task tuning benchmark: which cost model finds a faster program in fewer trials.

The tasks are the held-out networks' heaviest distinct workloads (task weight x best latency
measured in the dataset, ``data/<hardware>/``), with quotas so that depthwise convolutions, a
dense layer and a pooling or elementwise operator are among them (:func:`select_tasks`). Each
(task, model, seed) is tuned once with ``tvm_gnn.tune.workload.tune_tir`` at the largest budget
(16 candidates a round); the best latency after every trial is kept, so the 32- and 64-trial
values are read off the same run (a run of 64 trials would measure the same first 64 programs).

Each run writes ``RUNS/<task>/<model>/seed<k>/run.json`` (its curve, wall-clock and the cost
model's share of it from MetaSchedule's profiler) and its databases, gzipped. A finished run is
never repeated, so the benchmark resumes after a kill (a run killed halfway starts over), and it
runs by parts: ``--tasks`` (indices or names) and ``--seeds``.

The report (``docs/tuning.md``, generated section ``tune-tasks``; numbers in
``benchmarks/results/tune_tasks.json``; ``--report-only`` rebuilds both from the archived runs):

- per task, each model's best latency at 32, 64, 128 and ``--trials`` trials (geometric mean
  over seeds; the models of ``SHORT_RUNS`` stop at 128, so a 256-trial test reuses their runs);
- the geometric mean over tasks of GNN best / XGBModel best (and / ``xgb-pretrained``) at each,
  with a 95% bootstrap interval that resamples tasks, and seeds within each task;
- the median trials to reach XGBModel's final best of the same seed; the cost model's share of
  tuning wall-clock; a plot of each model's best / XGBModel's final best against trials.

The status table (section ``tune-tasks-targets``, or ``SECTION-targets`` for a held-out report's
own ``--section``) reads the same numbers against issue 85's targets
(:func:`tune_tasks_report.render_targets`) for ``--candidate``, "so far" until every task has
all :data:`SEEDS`.

    .venv/bin/python benchmarks/tuning/tune_tasks.py --list
    .venv/bin/python benchmarks/tuning/tune_tasks.py --tasks 0 1 --seeds 0 1 2 --alternate
    .venv/bin/python benchmarks/tuning/tune_tasks.py --report-only

A cost model or its settings are chosen elsewhere: ``--set dev`` tunes the tasks of the networks
that were collected but neither trained on by the weights nor held out (:data:`DEV_NETWORKS`,
fixed so that a network collected later does not change the tasks), into their own archive
(``tasks-dev``), section (``tune-tasks-dev``) and plot; ``--models`` adds the opt-in variants
(``tune_tasks_summary.DEFAULT_MODELS`` says what each is, ``SET_DEFAULTS`` each set's default
models and trials: the held-out test is of 256 trials with ``xgb-pretrained``, issue 73's). A
report of other models than a section's usual ones goes to its own ``--section`` (and plot and
numbers); without XGBModel it has the variants' table and no plot::

    .venv/bin/python benchmarks/tuning/tune_tasks.py --set dev --models gnn xgb gnn-long gnn-head
    .venv/bin/python benchmarks/tuning/tune_tasks.py --report-only --set dev \\
        --models gnn gnn-head --section tune-tasks-dev-choice
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import time
from pathlib import Path

from search_table import WINDOW, render_search, search_rows
from task_models import diverse_of, eps_greedy_of, logged_model
from task_selection import DEV_QUOTAS, dev_networks, held_out_workloads, select_tasks
from tune_tasks_report import plot, render, render_targets
from tune_tasks_summary import (
    GNN_MODELS,
    MODELS,
    PER_ROUND,
    SET_DEFAULTS,
    WEIGHTED_MODELS,
    model_trials,
    summarize,
)

from tvm_gnn import atomic, report
from tvm_gnn.nn import scratch

ROOT = Path(__file__).resolve().parents[2]
SECTION = "tune-tasks"
#: the seeds that make the whole benchmark
SEEDS = (0, 1, 2)
#: task sets (``--set``)
SETS = ("held-out", "dev")


# -- runs ---------------------------------------------------------------------------------------
def run_dir(runs: Path, task: dict, model: str, seed: int) -> Path:
    return runs / task["id"] / model / f"seed{seed}"


def tune_one(args, task: dict, model: str, seed: int, runs: Path, digest: str) -> dict:
    """Tune ``task`` with ``model`` and ``seed`` unless that run is archived; its ``run.json``."""
    from tvm.s_tir import meta_schedule as ms

    from tvm_gnn.dataset.archive import gzip_bytes
    from tvm_gnn.dataset.layout import DB_FILES
    from tvm_gnn.measure.hardware import cpu_identity, cpu_model
    from tvm_gnn.measure.sampling import target_from
    from tvm_gnn.tune import cost_model_seconds
    from tvm_gnn.tune.workload import tune_tir

    out = run_dir(runs, task, model, seed)
    done, trials = out / "run.json", model_trials(model, args.trials)
    if done.exists():
        old = json.loads(done.read_text())
        if old["trials"] >= trials and (
            model not in WEIGHTED_MODELS or old.get("weights") == digest
        ):
            return old
    work = out.with_name(out.name + ".work")
    shutil.rmtree(work, ignore_errors=True)
    logged = logged_model(model, seed, args.checkpoint, args.data, digest)
    start = time.perf_counter()
    with ms.Profiler() as profiler:
        _, progress = tune_tir(
            task["mod"],
            target_from("llvm", args.num_cores),
            str(work),
            max_trials=trials,
            cost_model=logged,
            num_trials_per_iter=PER_ROUND,
            seed=seed,
            desc=f"{task['id']} {model} seed {seed}",
            eps_greedy=eps_greedy_of(model),
            diverse=diverse_of(model),
        )
    wall = time.perf_counter() - start
    profile = {k: float(v) for k, v in profiler.get().items()}
    result = {
        "task": task["id"],
        "kind": task["kind"],
        "model": model,
        "seed": seed,
        "trials": len(progress.history),
        "curve": [float(x) for x in progress.history],
        "errors": progress.errors,
        "wall_seconds": wall,
        "cost_model_seconds": cost_model_seconds(profile),
        "tuning_seconds": profile.get("Total", wall),  # MetaSchedule's own, imports excluded
        "weights": digest if model in WEIGHTED_MODELS else None,
        "machine": f"{cpu_model()} ({cpu_identity()['llvm']}), {args.num_cores} cores",
        "day": time.strftime("%Y-%m-%d"),
        "eps_greedy": eps_greedy_of(model),
        "diverse": diverse_of(model),
        "score_calls": logged.calls,  # [candidates, top tenth's drawing weight, share <= 0]
    }
    for f in DB_FILES:
        if (work / f).exists():
            atomic.write_bytes(out / (f + ".gz"), gzip_bytes(work / f, f))
    atomic.write_json(done, result)  # the run counts as finished only once this lands
    shutil.rmtree(work, ignore_errors=True)
    return result


def _shown(path: Path) -> str:
    """``path`` as a command line shows it: relative to the checkout where it is inside."""
    path = Path(path).resolve()
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)


def model_order(models, seed: int, alternate: bool) -> list[str]:
    """The order a task-seed's models are tuned in: as given, or reversed on odd seeds."""
    return list(models)[::-1] if alternate and seed % 2 else list(models)


def read_runs(runs: Path, digest: str | None) -> list[dict]:
    """Every archived run (GNN runs only of the weights with ``digest``, when given)."""
    out = []
    for path in sorted(runs.glob("*/*/seed*/run.json")):
        r = json.loads(path.read_text())
        if r["model"] in WEIGHTED_MODELS and digest and r.get("weights") != digest:
            continue
        out.append(r)
    return out


def report_subset(archived: list[dict], tasks, seeds) -> tuple[list[dict], str]:
    """The runs of a report of some ``tasks`` (archived names) and ``seeds`` (None: all), and
    the flags that say so in its command line."""
    flags = ""
    if tasks:
        unknown = sorted(set(tasks) - {r["task"] for r in archived})
        if unknown:
            raise SystemExit(f"--report-only --tasks takes archived task names, not {unknown}")
        archived = [r for r in archived if r["task"] in tasks]
        flags += " --tasks " + " ".join(tasks)
    if seeds:
        archived = [r for r in archived if r["seed"] in seeds]
        flags += " --seeds " + " ".join(map(str, seeds))
    return archived, flags


# -- command line -------------------------------------------------------------------------------
def parse(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--data", type=Path, default=ROOT / "data", help="dataset (default: data/)")
    p.add_argument("--hardware", default=None, help="dataset hardware folder the tasks come from")
    p.add_argument("--runs", type=Path, help="archive (default: per hardware)")
    p.add_argument(
        "--tasks",
        nargs="+",
        help="indices or names (default: all; with --report-only, archived names)",
    )
    p.add_argument("--count", type=int, default=12, help="tasks selected (default: 12)")
    p.add_argument(
        "--seeds",
        nargs="+",
        type=int,
        help=f"seeds tuned (default: {' '.join(map(str, SEEDS))}), or with --report-only reported "
        "(default: all archived)",
    )
    p.add_argument(
        "--set",
        choices=SETS,
        default="held-out",
        help="held-out: the held-out networks' tasks (the benchmark, default); dev: the tasks of "
        "networks collected but neither trained on by the weights nor held out, where variants "
        "are compared before they meet the held-out networks (own archive, section and plot)",
    )
    p.add_argument(
        "--models",
        nargs="+",
        choices=MODELS,
        help="tuned and reported (default: "
        + "; ".join(f"{k}: {' '.join(m)}" for k, (m, _) in SET_DEFAULTS.items())
        + ")",
    )
    p.add_argument(
        "--alternate",
        action="store_true",
        help="odd seeds tune the models in reverse order: back to back, none always runs first",
    )
    p.add_argument("--trials", type=int, help="trials per run (default: held-out 256, dev 128)")
    p.add_argument("--num-cores", type=int, default=None, help="target cores (default: all)")
    p.add_argument("--checkpoint", default=None, help="GNN weights (default: the shipped ones)")
    p.add_argument("--list", action="store_true", help="print the selected tasks and exit")
    p.add_argument("--report-only", action="store_true", help="rebuild the report, tune nothing")
    p.add_argument("--doc", type=Path, default=ROOT / "docs" / "tuning.md")
    p.add_argument(
        "--section",
        help="the report's generated section in --doc, which also names its plot and numbers "
        "(default: tune-tasks, or tune-tasks-dev with --set dev)",
    )
    p.add_argument("--json", type=Path, help="numbers (default: per --section)")
    p.add_argument(
        "--candidate",
        choices=[m for m in MODELS if m in GNN_MODELS],
        help="the GNN model whose targets the held-out report reads, against XGBModel and "
        "xgb-pretrained (default: gnn, or the first GNN model of --models without it)",
    )
    args = p.parse_args(argv)
    if not args.report_only:  # the tasks come from this folder: a usage line if there is none
        from tvm_gnn.cli.common import resolved_hardware

        args.hardware = resolved_hardware(p, args)
    return args


def main(argv=None) -> int:
    from tvm_gnn.measure.hardware import hardware_name, usable_cores
    from tvm_gnn.measure.sampling import target_from
    from tvm_gnn.tune.end_to_end import weights_provenance

    args = parse(argv)
    models, trials = SET_DEFAULTS[args.set]
    args.models, args.trials = args.models or list(models), args.trials or trials
    candidate = args.candidate or next(
        (m for m in ["gnn", *args.models] if m in args.models and m in GNN_MODELS), "gnn"
    )
    args.num_cores = args.num_cores or usable_cores()
    here = hardware_name(target_from("llvm", args.num_cores))
    suffix = "" if args.set == "held-out" else f"-{args.set}"
    runs = args.runs or ROOT / "benchmarks" / "tuning-runs" / here / f"tasks{suffix}"
    section = args.section or SECTION + suffix
    json_path = args.json or ROOT / "benchmarks" / "results" / f"{section.replace('-', '_')}.json"
    provenance = weights_provenance("gnn", args.checkpoint)
    digest = provenance["sha256"]
    if not args.report_only:
        hardware = args.hardware
        networks, quotas = None, None
        if args.set == "dev":
            networks = dev_networks(args.data, hardware, provenance["train_networks"])
            quotas = DEV_QUOTAS
        workloads = held_out_workloads(args.data, hardware, networks)
        tasks = select_tasks(workloads, args.count, quotas)
        if args.tasks:
            names = {str(i): t for i, t in enumerate(tasks)} | {t["id"]: t for t in tasks}
            unknown = [x for x in args.tasks if x not in names]
            if unknown:
                raise SystemExit(f"unknown task(s) {unknown}; see --list")
            tasks = [names[x] for x in args.tasks]
        if args.list:
            for i, t in enumerate(tasks):
                print(f"{i:>2} {t['id']:<70} {t['kind']:<20} {t['cost'] * 1e3:8.3f} ms")
            return 0
        for task in tasks:
            for seed in args.seeds or SEEDS:
                for model in model_order(args.models, seed, args.alternate):
                    tune_one(args, task, model, seed, runs, digest)
    archived, subset = read_runs(runs, digest), ""
    if args.report_only:
        archived, subset = report_subset(archived, args.tasks, args.seeds)
    res = summarize(archived, args.trials, args.models, candidate)
    plot_path = args.doc.parent / f"tuning-{section.removeprefix('tune-')}.png"
    if res["curves"]:
        plot(res, plot_path)
    command = "python benchmarks/tuning/tune_tasks.py --report-only"
    if suffix:
        command += f" --set {args.set}"
    if tuple(args.models) != models:
        command += " --models " + " ".join(args.models)
    if args.trials != trials:
        command += f" --trials {args.trials}"
    command += subset
    if args.runs:
        command += f" --runs {_shown(args.runs)}"
    if args.section:
        command += f" --section {args.section}"
    if args.candidate:
        command += f" --candidate {args.candidate}"
    text = render(res, command, plot_path.name if res["curves"] else None)
    print(text)
    report.write_section(args.doc, section, text)
    present = [m for m in MODELS if any(r["model"] == m for r in archived)]
    machines = ", ".join(sorted({r["machine"] for r in archived}))
    window = min(args.trials, WINDOW)  # a report of shorter runs reads them whole
    rows = search_rows(runs, archived, present, window)
    search = render_search(rows, command, machines, window)
    print(search)
    report.write_section(args.doc, f"{section}-search", search)
    if not suffix:  # the targets are the held-out networks'
        targets = render_targets(res, args.count, len(SEEDS), command)
        print(targets)
        report.write_section(args.doc, f"{section}-targets", targets)
    atomic.write_json(json_path, {k: v for k, v in res.items() if k != "curves"})
    return 0


if __name__ == "__main__":
    scratch.quiet_torch_notices()  # before anything imports torch_geometric, as in the CLI
    sys.exit(main())
