# Licensed under the Apache License, Version 2.0.
"""How the pretrained models rank what tuning searches propose (a test set beside the uniform one).

The project's test sets are mostly uniform draws of each design space (``docs/dataset.md``); a
search ranks, after its first round, the late and concentrated candidates of an evolutionary
search. Here each archived run of the per-task benchmark (``tune_tasks.py``; one task, one guiding
cost model, one seed) is one test group: the distinct programs it measured, that is what its
guide chose to measure. Each scorer ranks them as it ships, without learning from them:

- ``gnn``: the shipped GNN (one ``predict`` call over the group: its compare reference is the
  group's mean, as in a search round's first call);
- ``xgb-pretrained``: TVM's XGBModel trained on the GNN weights' training records (cached as
  ``tune_tasks.py`` caches it), the fair peer;
- ``random``: the expected pairwise accuracy 0.5 and the mean over the group's programs of best
  latency over latency (what a pick at random gives).

Reported per guide: pairwise accuracy and top-1 (best latency over the latency of the scorer's
pick), each a mean over tasks of the mean over seeds, with a 95% bootstrap interval over tasks;
the share of each scorer's scores below 0 (MetaSchedule's search clamps a score to 0, and picks
the parents of its next generation with probability proportional to the score: a candidate
scored below 0 is never one); and, per guide and search round (16 trials), how concentrated what
the guide chose to measure was: the median latency of the round over the run's best::

    .venv/bin/python benchmarks/tuning/search_testset.py                      # the held-out tasks'
    runs
    .venv/bin/python benchmarks/tuning/search_testset.py --scorers gnn random # without
    xgb-pretrained
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np
from tune_tasks_summary import PER_ROUND
from tuning_runs import quiet_console, saved_report

ROOT = Path(__file__).resolve().parents[2]
SCORERS = ("gnn", "xgb-pretrained", "random")


def run_groups(runs: Path, guides=None):
    """``(task, guide, seed, folder, group)`` of every finished run under ``runs``
    (``task/guide/seedN``), each group holding its distinct programs with a finite latency."""
    from tvm_gnn.dataset.groups import load_folder_groups
    from tvm_gnn.dataset.records import program_id

    for done in sorted(runs.glob("*/*/seed*/run.json")):
        folder = done.parent
        task, guide = folder.parent.parent.name, folder.parent.name
        if guides and guide not in guides:
            continue
        for group in load_folder_groups({"run": folder}):  # one workload, a task's run
            seen, cands, lats = set(), [], []
            for c, lat in zip(group.candidates, group.latencies):
                pid = program_id(c)
                if pid not in seen and np.isfinite(lat):
                    seen.add(pid)
                    cands.append(c)
                    lats.append(lat)
            group.candidates, group.latencies = cands, lats
            yield task, guide, int(folder.name.removeprefix("seed")), folder, group


def scores(scorer: str, models: dict, group) -> np.ndarray | None:
    """The scorer's scores of the group's programs (None for ``random``)."""
    if scorer == "random":
        return None
    model = models[scorer]()
    return np.asarray(model.predict(group.context, group.candidates), dtype=np.float64)


def metrics(s, lat) -> dict:
    """Pairwise accuracy and top-1 of scores ``s`` (None: a random pick's expectation)."""
    from tvm_gnn.nn.metrics import mean_top1, pairwise_accuracy

    lat = np.asarray(lat, dtype=np.float64)
    if s is None:
        return {"pairwise": 0.5, "top1": float(np.mean(lat.min() / lat))}
    one = np.zeros(len(lat), dtype=int)
    return {
        "pairwise": pairwise_accuracy(s, 1.0 / lat, one),
        "top1": mean_top1(s, 1.0 / lat, one),
        "negative": float(np.mean(s < 0)),  # what the search clamps to 0
    }


def round_medians(folder: Path, per_round: int = PER_ROUND) -> list[float]:
    """Per search round of a run (its records in measurement order, ``per_round`` at a time), the
    median latency of the round's valid measurements over the run's best (NaN: none valid)."""
    from tvm_gnn.dataset.dbfile import read_records
    from tvm_gnn.dataset.layout import open_db_folder

    lat = np.array(
        [np.inf if r.failed else r.latency for r in read_records(open_db_folder(folder)).records]
    )
    best = lat[np.isfinite(lat)].min(initial=np.inf)
    out = []
    for start in range(0, len(lat), per_round):
        valid = lat[start : start + per_round]
        valid = valid[np.isfinite(valid)]
        out.append(float(np.median(valid) / best) if len(valid) else float("nan"))
    return out


def build_models(scorers, args) -> dict:
    """Per scorer but ``random``, a function giving the model that scores one group."""
    from task_models import pretrained_xgb_cached

    from tvm_gnn.cost_models.gnn import GNNModel
    from tvm_gnn.tune.end_to_end import weights_provenance

    models = {}  # scorer -> the model to score one group with
    if "gnn" in scorers:
        # a new one each group: a GNN that compares candidates keeps the first set it scored of
        # a workload as the reference of later calls (a search round's), and runs share tasks
        models["gnn"] = lambda: GNNModel(seed=args.seed)
    if "xgb-pretrained" in scorers:
        digest = weights_provenance("gnn", None)["sha256"]
        xgb = pretrained_xgb_cached(args.seed, None, args.data, digest)
        models["xgb-pretrained"] = lambda: xgb  # predict changes nothing in it
    return models


def run(args) -> tuple[list[dict], list[dict]]:
    from tqdm import tqdm

    models = build_models(args.scorers, args)
    rows, rounds = [], []
    groups = list(run_groups(args.runs, args.guides))
    for task, guide, seed, folder, group in tqdm(groups, desc="runs", disable=args.quiet):
        if len(group.latencies) < 2:
            continue
        rounds.append(
            {"task": task, "guide": guide, "seed": seed, "medians": round_medians(folder)}
        )
        for scorer in args.scorers:
            m = metrics(scores(scorer, models, group), group.latencies)
            row = {"task": task, "guide": guide, "seed": seed, "scorer": scorer}
            rows.append(row | {"programs": len(group.latencies)} | m)
    return rows, rounds


def per_task(rows, guide, scorer, key) -> np.ndarray:
    """Per task (sorted), the mean over seeds of ``key`` for this guide and scorer."""
    tasks = sorted({r["task"] for r in rows if r["guide"] == guide})
    mine = [r for r in rows if r["guide"] == guide and r["scorer"] == scorer]
    return np.array([np.mean([r[key] for r in mine if r["task"] == t]) for t in tasks])


def cell(values: np.ndarray, seed: int = 0, resamples: int = 2000) -> str:
    rng = np.random.default_rng(seed)
    boot = [rng.choice(values, len(values)).mean() for _ in range(resamples)]
    lo, hi = np.percentile(boot, [2.5, 97.5])
    return f"{values.mean():.3f} [{lo:.3f}, {hi:.3f}]"


def render(rows, rounds, args) -> str:
    guides = sorted({r["guide"] for r in rows})
    lines = [
        f"Runs of `{args.runs.relative_to(ROOT) if args.runs.is_relative_to(ROOT) else args.runs}`"
        "; per guide, the mean over tasks (of the mean over seeds), 95% bootstrap over tasks.",
        "",
        "| guide | tasks | runs | programs a run | scorer | pairwise | top-1 | scores < 0 |",
        "|---|---:|---:|---:|---|---:|---:|---:|",
    ]
    for guide in guides:
        mine = [r for r in rows if r["guide"] == guide and r["scorer"] == args.scorers[0]]
        n_tasks = len({r["task"] for r in mine})
        programs = np.median([r["programs"] for r in mine])
        for scorer in args.scorers:
            pw, t1 = (per_task(rows, guide, scorer, k) for k in ("pairwise", "top1"))
            if scorer == "random":
                pw_cell, neg = "0.5", "-"
            else:
                pw_cell, neg = cell(pw), f"{per_task(rows, guide, scorer, 'negative').mean():.2f}"
            lines.append(
                f"| {guide} | {n_tasks} | {len(mine)} | {programs:.0f} | {scorer} | "
                f"{pw_cell} | {cell(t1)} | {neg} |"
            )
    return "\n".join(lines + ["", render_rounds(rounds, guides)])


def render_rounds(rounds, guides) -> str:
    """Per guide and round, the geometric mean over runs of the round's median latency over the
    run's best: how close to its best what the guide measured was, round by round."""
    width = max(len(r["medians"]) for r in rounds)
    head = " | ".join(f"round {k + 1}" for k in range(width))
    lines = [
        f"Median latency of each round's {PER_ROUND} measurements over the run's best (geometric "
        "mean over runs):",
        "",
        f"| guide | {head} |",
        "|---|" + "---:|" * width,
    ]
    for guide in guides:
        runs = [r["medians"] for r in rounds if r["guide"] == guide]
        cells = []
        for k in range(width):
            vals = np.array([m[k] for m in runs if len(m) > k and np.isfinite(m[k])])
            cells.append(f"{np.exp(np.log(vals).mean()):.2f}" if len(vals) else "-")
        lines.append(f"| {guide} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def parse(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument(
        "--runs",
        type=Path,
        default=ROOT / "benchmarks/tuning-runs/llvm-amd-epyc-2c/tasks",
        help="an archive of tune_tasks.py runs (default: the AMD EPYC's held-out tasks)",
    )
    p.add_argument("--guides", nargs="+", default=None, help="only runs guided by these models")
    p.add_argument("--scorers", nargs="+", choices=SCORERS, default=list(SCORERS))
    p.add_argument("--data", type=Path, default=ROOT / "data", help="xgb-pretrained's records")
    p.add_argument("--seed", type=int, default=0, help="the scorers' seed")
    p.add_argument("--json", type=Path, default=None, help="also write the rows here")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    p.add_argument(
        "--report-only", action="store_true", help="print the table from --json, compute nothing"
    )
    return p.parse_args(argv)


def main(argv=None) -> int:
    quiet_console()
    args = parse(argv)
    if args.report_only:
        saved = saved_report(args.json)
        args.scorers, args.runs = saved["scorers"], Path(saved["runs"])
        print(render(saved["rows"], saved["rounds"], args))
        return 0
    if not args.runs.is_dir():
        raise SystemExit(f"{args.runs}: no such folder of per-task runs")
    rows, rounds = run(args)
    if not rows:
        raise SystemExit(f"{args.runs}: no finished run with two programs or more")
    print(render(rows, rounds, args))
    if args.json:
        saved = {"scorers": args.scorers, "runs": str(args.runs), "rows": rows, "rounds": rounds}
        args.json.write_text(json.dumps(saved, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
