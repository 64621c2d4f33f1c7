# Licensed under the Apache License, Version 2.0.
"""How much each cost model learns from a workload's first measurements (offline, a diagnosis).

The per-task tuning benchmark (``tune_tasks.py``) finds the GNN's best improving little after its
first rounds. This asks whether the online update is the reason, without tuning anything: for
each task of that benchmark, the pool is every distinct program its archived runs measured (all
models and seeds). Per repeat, ``--measured`` programs drawn at random are given to the model's
``update`` as MetaSchedule would give them, and the model ranks ``--test`` others drawn from the
rest: pairwise accuracy, and the best latency among its top 16 (one search round) over the best
of the test set (1.0: the round would have measured the best program).

Models: ``gnn-prior`` (the shipped weights, no update), ``gnn-online`` (``GNNModel`` as it ships:
``update`` retrains with ``ONLINE_TRAIN``), ``gnn-online-long`` (the same with ``--long-epochs``
epochs), ``gnn-online-head`` (``GNNModel(online="head")``: the update trains the head alone),
``xgb`` (TVM's XGBModel trained through ``update``, with no warm-up: TVM's default scores at random
until 100 measurements), ``gnn+xgb`` (the two scores blended as ``GNNModel(ensemble=...)`` does),
and on request ``gnn-online-refit`` (``GNNModel(online="refit")``), ``native`` (``StoreXGBModel``,
no warm-up), ``gnn+native`` (the GNN's 64 best of the test set reordered with it, as draft then
verify does), ``readout`` (``ReadoutXGBModel``: the booster on the shipped GNN's frozen embeddings)
and ``gnn+readout`` (the same draft then verify with it). ``--recipe NAME:key=value,...`` adds a
GNN whose online update changes those fields of ``ONLINE_TRAIN`` (the online recipe's candidates);
``--rounds`` gives ``update`` the measured programs a search round (16) at a time, as tuning does;
``--verify-top K ...`` the sizes of the GNN's top that the verifiers reorder (K for draft then
verify).

The tasks are the held-out networks' (``--runs`` another archive: ``tasks-dev/``, the development
networks'): the numbers diagnose, they choose nothing (a variant is chosen by tuning the
development networks, ``tune_tasks.py --set dev``)::

    .venv/bin/python benchmarks/online_adaptation.py --repeats 3 \\
        --json benchmarks/results/online_adaptation.json
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from pathlib import Path

import numpy as np
from tuning_runs import quiet_console, saved_report

ROOT = Path(__file__).resolve().parent.parent
MODELS = (
    "gnn-prior",
    "gnn-online",
    "gnn-online-long",
    "gnn-online-head",
    "xgb",
    "gnn+xgb",
    "gnn-online-refit",
    "native",
    "gnn+native",
    "readout",
    "gnn+readout",
)
#: what the committed table shows (``--models``' default)
DEFAULT_MODELS = MODELS[:6]
ROUND = 16  # candidates MetaSchedule measures per search round in the tuning benchmark
VERIFY_TOP = 64  # K of gnn+native and gnn+readout (GNN_KINDS' "gnn+native"); others: gnn+X@K


def task_pools(runs: Path):
    """Per task folder, one Group of every distinct program its archived runs measured."""
    from tvm_gnn.dataset.groups import load_folder_groups
    from tvm_gnn.dataset.records import program_id

    pools = {}
    for task in sorted(p for p in runs.iterdir() if p.is_dir()):
        finished = sorted(f.parent for f in task.glob("*/seed*/run.json"))  # not runs under way
        folders = {f"{d.parent.name}/{d.name}": d for d in finished}
        groups = load_folder_groups(folders)
        pool, seen = groups[0], set()
        cands, lats = [], []
        for g in groups:
            for c, lat in zip(g.candidates, g.latencies):
                pid = program_id(c)
                if pid not in seen and np.isfinite(lat):
                    seen.add(pid)
                    cands.append(c)
                    lats.append(lat)
        pool.candidates, pool.latencies = cands, lats
        pools[task.name] = pool
    return pools


#: TrainConfig fields a ``--recipe`` may set, with their types
RECIPE_FIELDS = {"loss": str, "lr": float, "epochs": int, "batch_size": int, "mse_weight": float}


def parse_recipe(text: str) -> tuple[str, dict]:
    """``NAME:key=value,...`` (keys of :data:`RECIPE_FIELDS`) -> ``("gnn-NAME", changes)``: the
    shipped online update with those ``ONLINE_TRAIN`` fields changed."""
    name, _, body = text.partition(":")
    if not name or not body:
        raise ValueError(f"recipe {text!r}: expected NAME:key=value,...")
    changes = {}
    for item in body.split(","):
        key, _, value = item.partition("=")
        if key not in RECIPE_FIELDS:
            raise ValueError(f"recipe {text!r}: {key!r} is not one of {sorted(RECIPE_FIELDS)}")
        changes[key] = RECIPE_FIELDS[key](value)
    return f"gnn-{name}", changes


def _measure(model, ctx, measured, results, rounds: bool) -> None:
    """``update`` as MetaSchedule calls it: one call, or (``rounds``) one per search round."""
    step = ROUND if rounds else len(measured)
    for i in range(0, len(measured), step):
        model.update(ctx, measured[i : i + step], results[i : i + step])


def scores_of(pool, train, test, seed: int, args) -> dict[str, np.ndarray]:
    """Each model's scores of ``test`` after its updates with ``train`` (indices into pool)."""
    from tvm.s_tir.meta_schedule.cost_model.xgb_model import XGBConfig, XGBModel

    from tvm_gnn.cost_models.ensemble import blend, reorder_top
    from tvm_gnn.cost_models.gnn import ONLINE_TRAIN, GNNModel
    from tvm_gnn.cost_models.readout_xgb import ReadoutXGBModel
    from tvm_gnn.cost_models.store_xgb import StoreXGBModel
    from tvm_gnn.dataset.groups import runner_results

    ctx = pool.context
    measured = [pool.candidates[i] for i in train]
    results = runner_results([pool.latencies[i] for i in train])
    shown = [pool.candidates[i] for i in test]
    wanted = set(args.models) | set(args.recipes) | {"gnn-online"}  # the reference: always
    out = {}

    def gnn(name, **kw):
        model = GNNModel(seed=seed, **kw)
        _measure(model, ctx, measured, results, args.rounds)
        out[name] = model.predict(ctx, shown)

    online = GNNModel(seed=seed)
    # readout's booster reads the shipped GNN frozen (copied now, before online's update)
    frozen = None
    if wanted & {"readout", "gnn+readout"}:
        frozen = ReadoutXGBModel(online.model, online.featurizer, num_warmup_samples=0, seed=seed)
    if "gnn-prior" in wanted:
        out["gnn-prior"] = online.predict(ctx, shown)  # before its update: the shipped weights
    _measure(online, ctx, measured, results, args.rounds)
    out["gnn-online"] = online.predict(ctx, shown)
    if "gnn-online-long" in wanted:
        long = dataclasses.replace(ONLINE_TRAIN, epochs=args.long_epochs)
        gnn("gnn-online-long", train_config=long)
    if "gnn-online-head" in wanted:
        gnn("gnn-online-head", online="head")
    if "gnn-online-refit" in wanted:
        gnn("gnn-online-refit", online="refit")
    for name, changes in args.recipes.items():
        gnn(name, train_config=dataclasses.replace(ONLINE_TRAIN, **changes))
    if wanted & {"xgb", "gnn+xgb"}:
        xgb = XGBModel(num_warmup_samples=0, num_tuning_cores=1, config=XGBConfig(seed=seed))
        _measure(xgb, ctx, measured, results, args.rounds)
        out["xgb"] = np.asarray(xgb.predict(ctx, shown), dtype=np.float64)
        out["gnn+xgb"] = blend(out["gnn-online"], out["xgb"])
    partners = {
        "native": lambda: StoreXGBModel(num_warmup_samples=0, seed=seed),
        "readout": lambda: frozen,
    }
    for name, make in partners.items():
        if wanted & {name, f"gnn+{name}"}:
            partner = make()
            _measure(partner, ctx, measured, results, args.rounds)
            mine = out[name] = np.asarray(partner.predict(ctx, shown), dtype=np.float64)
            for k in args.verify_top if f"gnn+{name}" in wanted else ():
                wanted.add(verified := f"gnn+{name}" + ("" if k == VERIFY_TOP else f"@{k}"))
                out[verified] = reorder_top(out["gnn-online"], lambda idx, m=mine: m[idx], k)
    return {m: v for m, v in out.items() if m in wanted}


def metrics(scores: np.ndarray, lat: np.ndarray) -> dict:
    from tvm_gnn.nn.metrics import pairwise_accuracy

    top = np.argsort(-scores, kind="stable")[:ROUND]
    return {
        "pairwise": pairwise_accuracy(scores, 1.0 / lat, np.zeros(len(lat), dtype=int)),
        "round_best": float(lat[top].min() / lat.min()),
    }


def run(args) -> list[dict]:
    import torch
    from tqdm import tqdm

    torch.set_num_threads(args.threads)
    pools = task_pools(args.runs)
    rows = []
    jobs = [(t, r) for r in range(args.repeats) for t in pools]
    for task, rep in tqdm(jobs, desc="tasks x repeats", disable=args.quiet):
        pool = pools[task]
        rng = np.random.default_rng([rep, len(pool.latencies)])
        order = rng.permutation(len(pool.latencies))
        train, test = order[: args.measured], order[args.measured :][: args.test]
        lat = np.asarray([pool.latencies[i] for i in test])
        for model, s in scores_of(pool, train, test, rep, args).items():
            row = {"task": task, "repeat": rep, "model": model, "pool": len(pool.latencies)}
            rows.append(row | metrics(s, lat))
    return rows


def _per_task(rows: list[dict], tasks: list[str], model: str) -> tuple[np.ndarray, np.ndarray]:
    """Per task, mean pairwise accuracy and mean log(round_best) over repeats."""
    per = {t: [r for r in rows if r["model"] == model and r["task"] == t] for t in tasks}
    pw = np.array([np.mean([r["pairwise"] for r in per[t]]) for t in tasks])
    rb = np.array([np.mean([np.log(r["round_best"]) for r in per[t]]) for t in tasks])
    return pw, rb


def render(rows: list[dict], args) -> str:
    """Per model: mean over tasks and repeats with a 95% bootstrap interval over tasks; then each
    model against ``gnn-online`` (the GNN as it ships), paired by task."""
    tasks = sorted({r["task"] for r in rows})
    rng = np.random.default_rng(0)
    picks = [rng.integers(0, len(tasks), len(tasks)) for _ in range(2000)]

    def cell(v: np.ndarray, f=lambda x: x, sign: str = "") -> str:
        lo, hi = np.percentile([v[p].mean() for p in picks], [2.5, 97.5])
        return f"**{f(v.mean()):{sign}.3f}** [{f(lo):{sign}.3f}, {f(hi):{sign}.3f}]"

    lines = [
        f"{len(tasks)} tasks x {args.repeats} repeats; {args.measured} programs measured, "
        f"{args.test} ranked per task.",
        "",
        f"| model | pairwise accuracy | best of its top {ROUND} / best (geometric mean) | "
        "pairwise, minus gnn-online's | top-16 best, over gnn-online's |",
        "|---|---:|---:|---:|---:|",
    ]
    base_pw, base_rb = _per_task(rows, tasks, "gnn-online")
    order = list(MODELS) + sorted({r["model"] for r in rows} - set(MODELS))  # recipes last
    for m in (m for m in order if any(r["model"] == m for r in rows)):  # those it has rows of
        pw, rb = _per_task(rows, tasks, m)
        paired = (
            "| - | - |"
            if m == "gnn-online"
            else (f"| {cell(pw - base_pw, sign='+')} | {cell(rb - base_rb, np.exp)} |")
        )
        lines.append(f"| {m} | {cell(pw)} | {cell(rb, np.exp)} {paired}")
    return "\n".join(lines) + "\n"


def parse(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument(
        "--runs",
        type=Path,
        default=ROOT / "benchmarks/tuning-runs/llvm-amd-epyc-2c/tasks",
        help="the per-task benchmark's archive (default: the AMD EPYC's)",
    )
    p.add_argument("--repeats", type=int, default=3, help="random draws per task (default: 3)")
    p.add_argument("--measured", type=int, default=32, help="programs given to update")
    p.add_argument("--test", type=int, default=192, help="programs ranked per task and repeat")
    p.add_argument("--long-epochs", type=int, default=64, help="gnn-online-long's epochs")
    p.add_argument(
        "--models",
        nargs="+",
        choices=MODELS,
        default=list(DEFAULT_MODELS),
        help="(gnn-online always)",
    )
    p.add_argument(
        "--recipe",
        action="append",
        default=[],
        metavar="NAME:KEY=VALUE,...",
        help="also a GNN whose online update changes these ONLINE_TRAIN fields "
        f"({', '.join(RECIPE_FIELDS)}), reported as gnn-NAME; repeatable",
    )
    p.add_argument(
        "--rounds",
        action="store_true",
        help=f"give the measured programs to update {ROUND} at a time, as a search's rounds do "
        "(default: one call)",
    )
    p.add_argument(
        "--verify-top",
        type=int,
        nargs="+",
        default=[VERIFY_TOP],
        metavar="K",
        help=f"the GNN's K best the verifiers reorder; a K but {VERIFY_TOP} is reported as "
        "gnn+PARTNER@K (default: %(default)s)",
    )
    p.add_argument("--threads", type=int, default=1, help="torch threads (default: 1)")
    p.add_argument("--json", type=Path, default=None, help="also write the rows here")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    p.add_argument(
        "--report-only", action="store_true", help="print the tables from --json, compute nothing"
    )
    args = p.parse_args(argv)
    try:
        args.recipes = dict(parse_recipe(r) for r in args.recipe)
        from tvm_gnn.nn.config import TrainConfig

        for changes in args.recipes.values():
            dataclasses.replace(TrainConfig(), **changes)  # a loss it does not know, say
    except ValueError as err:
        p.error(str(err))
    return args


def main(argv=None) -> int:
    quiet_console()
    args = parse(argv)
    if args.report_only:
        saved = saved_report(args.json)
        for k in ("repeats", "measured", "test"):
            setattr(args, k, saved["args"][k])
        print(render(saved["rows"], args))
        return 0
    if not args.runs.is_dir():
        raise SystemExit(f"{args.runs}: no such folder of per-task runs")
    rows = run(args)
    text = render(rows, args)
    print(text)
    if args.json:
        opts = {k: str(v) if isinstance(v, Path) else v for k, v in vars(args).items()}
        args.json.write_text(json.dumps({"args": opts, "rows": rows}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
