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
pick), each a mean over tasks of the mean over seeds, with a 95% bootstrap interval over tasks::

    .venv/bin/python benchmarks/search_testset.py                      # the held-out tasks' runs
    .venv/bin/python benchmarks/search_testset.py --scorers gnn random # without xgb-pretrained
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
SCORERS = ("gnn", "xgb-pretrained", "random")


def run_groups(runs: Path, guides=None):
    """``(task, guide, seed, group)`` of every finished run under ``runs`` (``task/guide/seedN``),
    each group holding its distinct programs with a finite latency."""
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
            yield task, guide, int(folder.name.removeprefix("seed")), group


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
    }


def build_models(scorers, args) -> dict:
    """Per scorer but ``random``, a function giving the model that scores one group."""
    from tune_tasks import pretrained_xgb_cached

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


def run(args) -> list[dict]:
    from tqdm import tqdm

    models = build_models(args.scorers, args)
    rows = []
    groups = list(run_groups(args.runs, args.guides))
    for task, guide, seed, group in tqdm(groups, desc="runs", disable=args.quiet):
        if len(group.latencies) < 2:
            continue
        for scorer in args.scorers:
            m = metrics(scores(scorer, models, group), group.latencies)
            row = {"task": task, "guide": guide, "seed": seed, "scorer": scorer}
            rows.append(row | {"programs": len(group.latencies)} | m)
    return rows


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


def render(rows, args) -> str:
    guides = sorted({r["guide"] for r in rows})
    lines = [
        f"Runs of `{args.runs.relative_to(ROOT) if args.runs.is_relative_to(ROOT) else args.runs}`"
        "; per guide, the mean over tasks (of the mean over seeds), 95% bootstrap over tasks.",
        "",
        "| guide | tasks | runs | programs a run | scorer | pairwise | top-1 |",
        "|---|---:|---:|---:|---|---:|---:|",
    ]
    for guide in guides:
        mine = [r for r in rows if r["guide"] == guide and r["scorer"] == args.scorers[0]]
        n_tasks = len({r["task"] for r in mine})
        programs = np.median([r["programs"] for r in mine])
        for scorer in args.scorers:
            pw, t1 = (per_task(rows, guide, scorer, k) for k in ("pairwise", "top1"))
            pw_cell = "0.5" if scorer == "random" else cell(pw)
            lines.append(
                f"| {guide} | {n_tasks} | {len(mine)} | {programs:.0f} | {scorer} | "
                f"{pw_cell} | {cell(t1)} |"
            )
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
    import logging
    import warnings

    warnings.filterwarnings("ignore", message=".*torch.jit.script.*is deprecated")
    logging.disable(logging.WARNING)
    args = parse(argv)
    if args.report_only:
        if not (args.json and args.json.is_file()):
            raise SystemExit("--report-only reads the rows from --json FILE, which must exist")
        saved = json.loads(args.json.read_text())
        args.scorers, args.runs = saved["scorers"], Path(saved["runs"])
        print(render(saved["rows"], args))
        return 0
    if not args.runs.is_dir():
        raise SystemExit(f"{args.runs}: no such folder of per-task runs")
    rows = run(args)
    if not rows:
        raise SystemExit(f"{args.runs}: no finished run with two programs or more")
    print(render(rows, args))
    if args.json:
        saved = {"scorers": args.scorers, "runs": str(args.runs), "rows": rows}
        args.json.write_text(json.dumps(saved, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
