# Licensed under the Apache License, Version 2.0.
"""End-to-end tuning benchmark: GNNModel against XGBModel on whole networks.

For every network, cost model and seed it runs ``tvm_gnn.tune.end_to_end.tune_network`` (tune with
the task scheduler, compile, check the output against PyTorch, time the network) once, at the
largest budget, then compiles, checks and times the network as it stood after each smaller
budget (the first N records of the run's database:
``tvm_gnn.tune.budgets.latency_at_budgets``). Each run
writes ``RUNS/<network>/<model>/seed<k>/{tune_log,budgets}.json``; finished work is not repeated,
so the benchmark resumes after a kill (a run killed halfway starts over), and on a new machine of
the same hardware finished runs are restored from the committed archive.

Cost models: ``gnn`` (the shipped weights, trained without the held-out networks), ``xgb``
(TVM's default, from scratch), ``xgb-pretrained`` (XGBModel first trained on the GNN's training
records), ``random``.

A table holds runs from one set of GNN weights (``--checkpoint``; runs from others are refused).
``--weights-name NAME`` gives runs from other weights their own folders and section, while
``xgb`` and ``random``, which use no GNN weights, are tuned once and shared with the main table.

The report (a generated section of ``docs/networks.md`` per command) gives:

- the measured end-to-end latency at each budget;
- the task scheduler's estimate (sum over tasks of weight x best measured latency) at each budget;
- how many trials the GNN needed to reach XGBModel's final estimate;
- the share of tuning wall-clock spent in the cost model (MetaSchedule's profiler scopes
  ``EvoSearch/Evolve/PredictNormalizedScore`` and ``MeasureCallback/UpdateCostModel``);
- the noise of the timings, and plots of the estimate against trials and against wall-clock.

    .venv/bin/python benchmarks/tuning/tune_networks.py --networks resnet18 --trials 480 --seeds 0
"""

from __future__ import annotations

import argparse
import datetime
import json
import re
from pathlib import Path

from tune_networks_report import plot, remeasure_table, summarize
from tuning_runs import archive, head_to_head_all, machine, remeasure_all, restore

from tvm_gnn import report

ROOT = Path(__file__).resolve().parents[2]
SECTION = "tune-networks"
DOC = "networks.md"  # the page under docs/ that holds the sections


def folders(args, model: str, weighted: tuple[str, ...]) -> tuple[str, str]:
    """(runs, archive) folders of ``model``'s runs. Under ``--weights-name``, models that use no
    GNN weights (``xgb``, ``random``) keep the main table's folders: their runs are the same
    whichever weights the GNN starts from, so they are tuned once and compared with both."""
    if args.weights_name and model not in weighted:
        return args.shared_runs, args.shared_archive
    return args.runs, args.archive


def run_all(args, budgets: list[int]) -> list[dict]:
    """Every finished run's log, with ``budgets`` (measured latency at each budget) added.

    ``--report-only`` reads runs from ``--runs``, or from the committed archive where ``--runs``
    does not have them (a clean clone).
    """
    from tvm_gnn.errors import CheckpointError
    from tvm_gnn.tune.end_to_end import WEIGHTED_COST_MODELS, weights_provenance

    try:
        wanted = weights_provenance("gnn", args.checkpoint)["sha256"]
    except CheckpointError as err:
        raise SystemExit(str(err)) from None
    logs = []
    for net in args.networks:
        for model in args.models:
            runs, kept_in = folders(args, model, WEIGHTED_COST_MODELS)
            for seed in args.seeds:
                work = Path(runs) / net / model / f"seed{seed}"
                kept = Path(kept_in) / net / model / f"seed{seed}"
                if args.report_only and not (work / "tune_log.json").exists():
                    work = kept
                if not args.report_only:
                    tune_unless_finished(args, net, model, seed, work, kept)
                if not (work / "tune_log.json").exists():
                    continue
                logs.append(read_run(args, work, budgets, wanted))
                if not args.no_write and work != kept:
                    archive(work, kept)
    return logs


def tune_unless_finished(args, net: str, model: str, seed: int, work: Path, kept: Path) -> None:
    """Tune (net, model, seed) into ``work`` unless it holds a finished run or the archive
    ``kept`` has one to restore."""
    from tvm_gnn.measure.sampling import target_from
    from tvm_gnn.tune.end_to_end import TuneSettings, tune_network

    if (work / "tune_log.json").exists():
        return
    if restore(kept, work):
        print(f"== {net} / {model} / seed {seed}: finished run restored from {kept}", flush=True)
        return
    print(f"== {net} / {model} / seed {seed}: {args.trials} trials", flush=True)
    settings = TuneSettings(
        seed=seed,
        trials_per_iter=args.trials_per_iter,
        cache_flush=args.cache_flush,
        repeats=args.repeats,
    )
    target = target_from(args.target, args.num_cores)
    tune_network(
        net, model, args.trials, target, work, settings, checkpoint=args.checkpoint, data=args.data
    )


def read_run(args, work: Path, budgets: list[int], wanted: str) -> dict:
    """The log of the finished run in ``work``, with its latency at each budget; SystemExit
    where it was timed otherwise or started from other GNN weights than ``wanted``."""
    from tvm_gnn.tune.budgets import latency_at_budgets, read_budgets

    entry = json.loads((work / "tune_log.json").read_text())
    if entry.get("cache_flush", False) != args.cache_flush:
        how = "cold" if entry.get("cache_flush") else "warm"
        raise SystemExit(
            f"{work} holds a run that timed candidates {how}: --cache-flush runs and warm runs "
            "need their own --runs and --archive folders"
        )
    used = (entry.get("weights") or {}).get("sha256")
    if used and used != wanted and not args.report_only:
        raise SystemExit(
            f"{work} holds a run that started from other GNN weights (SHA-256 {used[:12]}, "
            f"these are {wanted[:12]}): pass the weights it used with --checkpoint, or give "
            "the new weights their own folders with --weights-name"
        )
    if args.report_only:
        at = read_budgets(work)
    else:
        at = latency_at_budgets(work, budgets, repeats=args.repeats)
    entry["budgets"] = {int(b): v for b, v in at.items()}
    entry["work_dir"] = str(work)
    return entry


def measured_on(args, section: str) -> str:
    """The date of the section's timings: today, unless --report-only rewrites a section whose
    numbers were timed on an earlier day (which it keeps: nothing is timed again)."""
    if args.report_only:
        earlier = report.read_section(ROOT / "docs" / DOC, f"{SECTION}-{section}")
        found = re.search(r"; TVM [^;]+; (\d{4}-\d{2}-\d{2})\.", earlier or "")
        if found:
            return found.group(1)
    return str(datetime.date.today())


def section(args, budgets: list[int], kind: str, name: str, logs: list[dict], tables: str) -> str:
    """The docs section's head (the command that reproduces it, the machine) and ``tables``."""
    archive = Path(args.shared_archive if args.weights_name else args.archive).resolve()
    if archive.is_relative_to(ROOT):  # named, so that the command reads the same runs anywhere
        archive = archive.relative_to(ROOT)
    command = (
        f".venv/bin/python benchmarks/tuning/tune_networks.py --networks {' '.join(args.networks)} "
        f"--models {' '.join(args.models)} --trials {args.trials} --trials-per-iter "
        f"{args.trials_per_iter} --seeds {' '.join(map(str, args.seeds))} --repeats "
        f"{args.repeats} --rounds {args.rounds}"
        + (f" --budgets {' '.join(map(str, budgets))}" if args.budgets else "")
        + ("" if kind == "llvm" else f" --target {args.target}")
        + (f" --checkpoint {args.checkpoint}" if args.checkpoint else "")
        + (f" --weights-name {args.weights_name}" if args.weights_name else "")
        + (" --cache-flush" if args.cache_flush else "")
        + f" --archive {archive}"
    )
    timed = (
        ("" if kind == "llvm" else f", target `{args.target}`")
        + (", candidates timed cold (`--cache-flush`)" if args.cache_flush else "")
        + (f", GNN weights `{args.weights_name}`" if args.weights_name else "")
    )
    # each table line on its own: the bold paragraph after a table needs a blank line first,
    # or Markdown reads it as one more table row
    return (
        f"### {', '.join(args.networks)}: {args.trials} trials{timed}\n\n"
        f"Command: `{command}`\n\n"
        f"Machine: {machine(logs[0])}, target `{logs[0]['target']}`; "
        f"TVM {logs[0]['tvm_version']}; {measured_on(args, name)}. {args.trials_per_iter} "
        f"candidates per search round; each compiled network timed {args.repeats} times.\n\n"
        + tables
    )


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--networks", nargs="+", default=["resnet18", "mobilenet_v2", "inception_v3"])
    p.add_argument("--models", nargs="+", default=["gnn", "xgb"])
    p.add_argument("--trials", type=int, default=1000, help="budget of every run (default 1000)")
    p.add_argument(
        "--budgets",
        nargs="+",
        type=int,
        default=None,
        help="trial counts at which each run's network is compiled and timed "
        "(default: 1/5, 1/2 and all of --trials)",
    )
    p.add_argument(
        "--trials-per-iter",
        type=int,
        default=16,
        help="candidates measured per search round of a task (default 16)",
    )
    p.add_argument("--seeds", nargs="+", type=int, default=[0, 1])
    p.add_argument("--repeats", type=int, default=10, help="timed runs of each compiled network")
    p.add_argument(
        "--rounds",
        type=int,
        default=20,
        help="rounds of the head-to-head timing at the last budget (default 20)",
    )
    p.add_argument(
        "--cache-flush",
        action="store_true",
        help="time candidates cold while tuning (tvm-gnn tune --cache-flush); such runs "
        "go to their own folders (RUNS and ARCHIVE with -cache-flush appended) "
        "and their own section of docs/networks.md",
    )
    p.add_argument("--runs", default=None, help="where runs are tuned (default: tune_runs/bench)")
    p.add_argument(
        "--data",
        default=str(ROOT / "data"),
        help="dataset that xgb-pretrained trains on (default: data/)",
    )
    p.add_argument(
        "--checkpoint",
        default=None,
        help="GNN weights that gnn starts from and whose training networks "
        "xgb-pretrained trains on (default: the shipped weights); finished runs "
        "that used other weights are refused, never mixed",
    )
    p.add_argument(
        "--target",
        default="llvm",
        help="TVM target (default llvm); runs on another target get their own folders "
        "and docs section, e.g. --target nvidia/nvidia-h100",
    )
    p.add_argument("--num-cores", type=int, default=None)
    p.add_argument(
        "--archive",
        default=None,
        help="where finished runs are kept for the report (logs, gzipped databases; "
        "default: benchmarks/tuning-runs/HARDWARE)",
    )
    p.add_argument(
        "--weights-name",
        default=None,
        help="a name for runs from other GNN weights than the main table's (e.g. "
        "'shipped' for the weights the package ships now): gnn and "
        "xgb-pretrained runs go to RUNS and ARCHIVE with -NAME appended and to "
        "their own docs section; xgb and random, which use no GNN weights, are "
        "shared with the main table's folders",
    )
    p.add_argument("--report-only", action="store_true", help="only summarize existing runs")
    p.add_argument(
        "--no-write",
        action="store_true",
        help="print only: touch neither docs/ nor the archive (finished runs stay under --runs)",
    )
    p.add_argument(
        "--tune-only",
        action="store_true",
        help="tune and archive the runs, then stop: no head-to-head timing and docs/ left "
        "alone (a network's seeds run in parts; the run with every seed writes the section)",
    )
    return p


def resolve_folders(p, args, kind: str) -> str:
    """Fill in ``--runs`` and ``--archive`` for the target and options; return the variant suffix
    of the folders and docs section (runs on another target, timed cold or from named weights
    get their own)."""
    flush = "-cache-flush" if args.cache_flush else ""
    variant = ("" if kind == "llvm" else f"-{kind}") + flush
    if args.runs is None:
        args.runs = str(ROOT / "tune_runs" / f"bench{variant}")
    if args.archive is None:
        from tvm_gnn.measure.hardware import hardware_name
        from tvm_gnn.measure.sampling import target_from

        hw = hardware_name(target_from(args.target, args.num_cores))
        args.archive = str(ROOT / "benchmarks" / "tuning-runs" / f"{hw}{flush}")
    if args.weights_name:
        if not re.fullmatch(r"[a-z0-9][a-z0-9_.-]*", args.weights_name):
            p.error(
                f"--weights-name {args.weights_name!r}: use lower-case letters, digits, "
                "'.', '_' and '-' (it names folders and a docs section)"
            )
        args.shared_runs, args.shared_archive = args.runs, args.archive
        args.runs += f"-{args.weights_name}"
        args.archive += f"-{args.weights_name}"
        variant += f"-{args.weights_name}"
    return variant


def main() -> None:
    p = parser()
    args = p.parse_args()
    from tvm_gnn.measure.sampling import target_from

    target = target_from(args.target, args.num_cores)
    kind = target.kind.name
    variant = resolve_folders(p, args, kind)
    budgets = sorted(set(args.budgets or [args.trials // 5, args.trials // 2, args.trials]))
    logs = run_all(args, budgets)
    if not logs:
        raise SystemExit("no finished runs to report")
    if args.tune_only:
        for lg in logs:
            final = lg["budgets"][budgets[-1]]["latency_ms_median"]
            print(
                f"{lg['network']} / {lg['cost_model']} / seed {lg['seed']}: {final:.3f} ms "
                f"after {budgets[-1]} trials" + (", not archived" if args.no_write else "")
            )
        return
    h2h = head_to_head_all(args, logs, budgets[-1])
    # the re-timing's cold half flushes a CPU cache: CPU targets only
    remeasured = remeasure_all(args, logs, budgets[-1]) if kind == "llvm" else {}
    name = "-".join(args.networks) + variant
    body = section(args, budgets, kind, name, logs, summarize(logs, budgets, h2h))
    body += "".join(f"\n{line}" for line in remeasure_table(remeasured, h2h))
    body += f"\n\n![best latency against trials and wall-clock](tuning-{name}.png)\n"
    print(body)
    if not args.no_write:
        report.write_section(ROOT / "docs" / DOC, f"{SECTION}-{name}", body, title="Tuning")
        plot(logs, ROOT / "docs" / f"tuning-{name}.png")


if __name__ == "__main__":
    main()
