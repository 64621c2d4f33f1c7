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

- per task, each model's best latency at 32, 64 and 128 trials (geometric mean over seeds);
- the geometric mean over tasks of GNN best / XGBModel best at 32, 64 and 128 trials, with a
  95% bootstrap interval that resamples tasks, and seeds within each task;
- the median over tasks and seeds of the trials each model needs to reach XGBModel's 128-trial
  best of the same seed;
- the cost model's share of tuning wall-clock;
- a plot: each model's best latency relative to XGBModel's 128-trial best, geometric mean over
  tasks, against trials, with its bootstrap band.

The status table of ``docs/tuning.md`` (section ``tune-tasks-targets``) reads the same numbers
against the targets (GNN / XGBModel <= 0.90 at 64 trials with the interval below 1.0, XGBModel's
best reached in a third of the trials, cost model <= 10% of wall-clock), "so far" until every
task has all of :data:`SEEDS`.

    .venv/bin/python benchmarks/tune_tasks.py --list
    .venv/bin/python benchmarks/tune_tasks.py --tasks 0 1 --seeds 0 1 2
    .venv/bin/python benchmarks/tune_tasks.py --report-only

A cost model or its settings are chosen elsewhere: ``--set dev`` tunes the tasks of the networks
that were collected but neither trained on by the weights nor held out (:data:`DEV_NETWORKS`,
fixed so that a network collected later does not change the tasks), into their own archive
(``tasks-dev``), section (``tune-tasks-dev``) and plot; ``--models`` adds the opt-in
variants ``gnn+xgb`` (the GNN blended with an XGBModel that learns during the search),
``gnn-long`` (a longer online update) and ``gnn-head`` (an online update of the head alone,
``GNNModel(online="head")``). ``gnn+xgb`` spends about 40% of wall-clock in the cost model, over
the 10% limit, so the development runs left it after six tasks, and ``gnn-long`` and XGBModel
after seed 0 of every task (the choice reads ``gnn-head`` against ``gnn`` alone). A report of
other models than a section's usual ones goes to its own ``--section`` (and plot and numbers);
without XGBModel it has the variants' table and no plot::

    .venv/bin/python benchmarks/tune_tasks.py --set dev --models gnn xgb gnn-long gnn-head
    .venv/bin/python benchmarks/tune_tasks.py --report-only --set dev --models gnn gnn-head \\
        --section tune-tasks-dev-choice
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

ROOT = Path(__file__).resolve().parent.parent
SECTION = "tune-tasks"
#: the status section's table of the benchmark's targets, generated from the same runs
TARGETS_SECTION = "tune-tasks-targets"
MODELS = ("gnn", "xgb", "random", "gnn+xgb", "gnn-long", "gnn-head")
#: the models tuned and reported unless ``--models`` says otherwise. Opt-in: ``gnn+xgb``, the GNN
#: blended with an XGBModel that learns during the search; ``gnn-long``, the GNN whose online
#: update runs :data:`LONG_EPOCHS` epochs instead of ``ONLINE_TRAIN``'s 8; ``gnn-head``, the GNN
#: whose online update trains its head alone (``GNNModel(online="head")``)
DEFAULT_MODELS = ("gnn", "xgb", "random")
#: models that start from GNN weights: their runs record the weights' digest
GNN_MODELS = ("gnn", "gnn+xgb", "gnn-long", "gnn-head")
#: gnn-long's online epochs (benchmarks/online_adaptation.py's gnn-online-long)
LONG_EPOCHS = 64
#: the seeds that make the whole benchmark
SEEDS = (0, 1, 2)
#: kinds every selection holds at least this many of (when the held-out networks have them)
QUOTAS = {"depthwise conv2d": 2, "dense": 1, "pooling/elementwise": 1}
#: the development networks' quotas (a kind matches by its first word, so "conv2d" is any
#: conv2d but the depthwise ones): their heaviest tasks are all dense (ViT, ConvNeXt), so
#: convolutions are asked for, as the held-out selection is mostly convolutions
DEV_QUOTAS = {"conv2d": 4, "depthwise conv2d": 3, "pooling/elementwise": 1}
#: the development networks, fixed on 2026-11-26 as the networks collected on the AMD EPYC that
#: the shipped weights neither train on nor hold out
DEV_NETWORKS = (
    "convnext_tiny",
    "deeplabv3_mobilenet",
    "lstm",
    "mlp_mixer",
    "mobilenet_v3_large",
    "r3d_18",
    "regnet_y_800mf",
    "vit_b_16",
)
BOOTSTRAP = 2000
#: candidates measured per search round
PER_ROUND = 16
#: task sets (``--set``)
SETS = ("held-out", "dev")


# -- tasks --------------------------------------------------------------------------------------
def kind_of(name: str, shapes: list[tuple]) -> str:
    """What operator a task is, from its name and its parameters' shapes."""
    if "conv3d" in name:
        return "conv3d"
    if "conv2d" in name:
        weight = shapes[1] if len(shapes) > 1 else ()
        if len(weight) == 4 and weight[1] == 1 and weight[0] > 1:
            return "depthwise conv2d"
        return f"conv2d {weight[2]}x{weight[3]}" if len(weight) == 4 else "conv2d"
    if "matmul" in name or "dense" in name:
        return "dense"
    return "pooling/elementwise"


def _shapes(mod) -> list[tuple]:
    func = next(iter(mod.functions.values()))
    return [tuple(int(d) for d in p.shape) for p in func.params]


def held_out_workloads(data: Path, hardware: str, networks=None) -> list[dict]:
    """Every distinct workload of ``networks`` (default: the held-out ones), heaviest first: its
    network, task name, kind, parameter shapes, weight x best measured latency, whether
    collection exhausted its design space (``exhausted``: fewer distinct programs exist than it
    asked for), and its IRModule (``mod``)."""
    from tvm.s_tir import meta_schedule as ms

    from tvm_gnn import dataset
    from tvm_gnn.dataset import dbfile
    from tvm_gnn.dataset.layout import open_db_folder
    from tvm_gnn.dataset.splits import HELD_OUT

    seen: dict[str, dict] = {}
    for net in networks or HELD_OUT:
        folder = data / hardware / net
        got, scan = dataset.samples(folder)
        best: dict[str, tuple[float, object]] = {}
        for sample in got:
            cost = sample.weight * sample.latency
            if sample.shash not in best or cost < best[sample.shash][0]:
                best[sample.shash] = (cost, sample)
        exhausted = dataset.read_exhausted(folder)
        plain = open_db_folder(folder)
        lines = (plain / dbfile.WORKLOAD_FILE).read_text().splitlines()
        for shash, line in zip(scan.workload_hashes, lines):
            if shash in seen or shash not in best:
                continue
            workload = ms.database.Workload.from_json(json.loads(line))
            cost, sample = best[shash]
            shapes = _shapes(workload.mod)
            seen[shash] = {
                "network": net,
                "task": sample.task,
                "shash": shash,
                "kind": kind_of(sample.task, shapes),
                "shapes": shapes,
                "cost": cost,
                "exhausted": shash in exhausted,
                "mod": workload.mod,
            }
    return sorted(seen.values(), key=lambda w: -w["cost"])


def dev_networks(data: Path, hardware: str, trained_on) -> list[str]:
    """The development networks: those of :data:`DEV_NETWORKS` collected on ``hardware`` and
    neither among the weights' training networks (``trained_on``) nor held out. Variants are
    compared on their tasks. A network collected later does not join, so runs made in different
    sessions compare the same tasks."""
    from tvm_gnn.dataset.layout import network_folders
    from tvm_gnn.dataset.splits import HELD_OUT

    nets = {net for hw, net, _ in network_folders(data) if hw == hardware}
    dev = sorted(nets.intersection(DEV_NETWORKS) - set(trained_on) - set(HELD_OUT))
    if not dev:
        raise SystemExit(f"no development network under {data}/{hardware}: every one is trained on")
    return dev


def select_tasks(workloads: list[dict], count: int = 12, quotas=None) -> list[dict]:
    """The ``count`` heaviest workloads, after the heaviest of each kind in ``quotas``
    (default :data:`QUOTAS`; a kind there matches every kind that starts with it).

    Workloads whose design space collection exhausted are left out: an elementwise ReLU or clip
    has a handful of schedules at most, so every model finds its best in the first round and the
    task says nothing about ranking."""
    workloads = [w for w in workloads if not w.get("exhausted")]
    chosen: list[dict] = []
    for kind, n in (QUOTAS if quotas is None else quotas).items():
        chosen += [w for w in workloads if w["kind"].split()[0] == kind.split()[0]][:n]
    for w in workloads:
        if len(chosen) >= count:
            break
        if w not in chosen:
            chosen.append(w)
    chosen.sort(key=lambda w: -w["cost"])
    for w in chosen:
        w["id"] = f"{w['network']}-{w['task']}"
    return chosen


# -- runs ---------------------------------------------------------------------------------------
def run_dir(runs: Path, task: dict, model: str, seed: int) -> Path:
    return runs / task["id"] / model / f"seed{seed}"


def cost_model_for(model: str, seed: int, checkpoint=None):
    """What ``tune_tir`` tunes with: a cost model's name (``gnn-head`` is one), or the GNN
    variant ``gnn-long``."""
    if model != "gnn-long":
        return model
    import dataclasses

    from tvm_gnn.cost_models.gnn import ONLINE_TRAIN, GNNModel

    config = dataclasses.replace(ONLINE_TRAIN, epochs=LONG_EPOCHS)
    return GNNModel(checkpoint=checkpoint, seed=seed, train_config=config)


def tune_one(args, task: dict, model: str, seed: int, runs: Path, digest: str) -> dict:
    """Tune ``task`` with ``model`` and ``seed`` unless that run is archived; its ``run.json``."""
    from tvm.s_tir import meta_schedule as ms

    from tvm_gnn.dataset.archive import gzip_bytes
    from tvm_gnn.dataset.layout import DB_FILES
    from tvm_gnn.measure.hardware import cpu_model
    from tvm_gnn.measure.sampling import target_from
    from tvm_gnn.tune import cost_model_seconds
    from tvm_gnn.tune.workload import tune_tir

    out = run_dir(runs, task, model, seed)
    done = out / "run.json"
    if done.exists():
        old = json.loads(done.read_text())
        if old["trials"] >= args.trials and (
            model not in GNN_MODELS or old.get("weights") == digest
        ):
            return old
    work = out.with_name(out.name + ".work")
    shutil.rmtree(work, ignore_errors=True)
    start = time.perf_counter()
    with ms.Profiler() as profiler:
        _, progress = tune_tir(
            task["mod"],
            target_from("llvm", args.num_cores),
            str(work),
            max_trials=args.trials,
            cost_model=cost_model_for(model, seed, args.checkpoint),
            num_trials_per_iter=PER_ROUND,
            seed=seed,
            desc=f"{task['id']} {model} seed {seed}",
            checkpoint=args.checkpoint if model in GNN_MODELS else None,
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
        "weights": digest if model in GNN_MODELS else None,
        "machine": f"{cpu_model()}, {args.num_cores} cores",
        "day": time.strftime("%Y-%m-%d"),
    }
    for f in DB_FILES:
        if (work / f).exists():
            atomic.write_bytes(out / (f + ".gz"), gzip_bytes(work / f, f))
    atomic.write_json(done, result)  # the run counts as finished only once this lands
    shutil.rmtree(work, ignore_errors=True)
    return result


def read_runs(runs: Path, digest: str | None) -> list[dict]:
    """Every archived run (GNN runs only of the weights with ``digest``, when given)."""
    out = []
    for path in sorted(runs.glob("*/*/seed*/run.json")):
        r = json.loads(path.read_text())
        if r["model"] in GNN_MODELS and digest and r.get("weights") != digest:
            continue
        out.append(r)
    return out


# -- statistics ---------------------------------------------------------------------------------
def best_at(curve: list[float], trials: int) -> float:
    """Best latency after ``trials`` trials (inf: nothing valid yet)."""
    return float(curve[min(trials, len(curve)) - 1]) if curve else float("inf")


def trials_to_reach(curve: list[float], target: float) -> float:
    """First trial (1-based) whose best is at most ``target``; inf if never."""
    hit = np.nonzero(np.asarray(curve) <= target * (1 + 1e-9))[0]
    return float(hit[0] + 1) if len(hit) else float("inf")


def geomean_ratio(a: dict, b: dict, tasks: list[str], rng=None) -> float:
    """Geometric mean over ``tasks`` of (geometric mean over seeds of ``a``) / (same of ``b``);
    ``a[task]``/``b[task]`` are arrays of latencies of the same seeds. With ``rng``, tasks are
    resampled, and seeds within each task, with replacement (a bootstrap replicate); a seed
    drawn counts for both models (their runs of one seed share the search's seed)."""
    if rng is not None:
        tasks = list(rng.choice(tasks, size=len(tasks), replace=True))
    logs = []
    for t in tasks:
        d = np.log(a[t]) - np.log(b[t])
        if rng is not None:
            d = rng.choice(d, size=len(d))
        logs.append(d.mean())
    return float(np.exp(np.mean(logs)))


def interval(a: dict, b: dict, tasks: list[str], seed: int = 0) -> tuple[float, float, float]:
    """:func:`geomean_ratio` and its 95% percentile bootstrap interval."""
    rng = np.random.default_rng(seed)
    reps = [geomean_ratio(a, b, tasks, rng) for _ in range(BOOTSTRAP)]
    low, high = np.percentile(reps, [2.5, 97.5])
    return geomean_ratio(a, b, tasks), float(low), float(high)


def _ratios(lat: dict, models: list[str], ref: str, budgets, tasks) -> dict:
    """``{"model@budget": {"ratio", "low", "high"}}``: each of ``models`` against ``ref``."""
    out = {}
    for m in models:
        for b in budgets:
            ratio, low, high = interval(lat[m, b], lat[ref, b], tasks)
            out[f"{m}@{b}"] = {"ratio": ratio, "low": low, "high": high}
    return out


def summarize(runs: list[dict], trials: int, models=DEFAULT_MODELS) -> dict:
    """The benchmark's numbers from the runs of ``models`` of ``trials`` trials (tasks where
    every one of them has runs of the same seeds only), read at 32, 64 and ``trials`` trials."""
    budgets = [b for b in (32, 64) if b < trials] + [trials]
    by: dict[tuple[str, str], dict[int, dict]] = {}
    for r in runs:
        if r["trials"] >= trials and r["model"] in models:
            by.setdefault((r["task"], r["model"]), {})[r["seed"]] = r
    models = [m for m in MODELS if any(k[1] == m for k in by)]
    tasks = sorted({t for t, _ in by if all((t, m) in by for m in models)})
    # seeds every model of a task has, so that ratios pair the same seeds
    seeds = {t: sorted(set.intersection(*(set(by[t, m]) for m in models))) for t in tasks}
    tasks = [t for t in tasks if seeds[t]]
    res = {"tasks": tasks, "models": models, "seeds": seeds, "budgets": list(budgets)}
    lat = {
        (m, b): {t: np.array([best_at(by[t, m][s]["curve"], b) for s in seeds[t]]) for t in tasks}
        for m in models
        for b in budgets
    }
    res["per_task"] = {
        t: {
            "kind": by[t, models[0]][seeds[t][0]]["kind"],
            **{
                f"{m}@{b}": float(np.exp(np.log(lat[m, b][t]).mean()))
                for m in models
                for b in budgets
            },
        }
        for t in tasks
    }
    res["ratios"], res["ratios_gnn"] = {}, {}
    if "gnn" in models and tasks:  # each GNN variant against the plain GNN, seed for seed
        variants = [m for m in models if m in GNN_MODELS and m != "gnn"]
        res["ratios_gnn"] = _ratios(lat, variants, "gnn", budgets, tasks)
    if "xgb" in models and tasks:
        res["ratios"] = _ratios(lat, [m for m in models if m != "xgb"], "xgb", budgets, tasks)
        final = max(budgets)
        res["trials_to_xgb_final"] = {}
        for m in models:
            need = [
                trials_to_reach(by[t, m][s]["curve"], best_at(by[t, "xgb"][s]["curve"], final))
                for t in tasks
                for s in seeds[t]
            ]
            res["trials_to_xgb_final"][m] = {
                "median": float(np.median(need)),
                "reached": int(np.isfinite(need).sum()),
                "runs": len(need),
            }
    # what each model's search gained after the first budget: best at the first budget over
    # best at the last, geometric mean over tasks and seeds (1.0: nothing found after it)
    # and in the last round alone (XGBModel's first with a model: it scores at random until
    # 100 measurements)
    first, last = min(budgets), max(budgets)

    def gain(m: str, before: int) -> float:
        if not tasks:
            return 1.0
        logs = [
            np.mean([np.log(best_at(c, before) / best_at(c, last)) for c in curves(t, m)])
            for t in tasks
        ]
        return float(np.exp(np.mean(logs)))

    def curves(t: str, m: str) -> list:
        return [by[t, m][s]["curve"] for s in seeds[t]]

    res["gain_after_first"] = {m: gain(m, first) for m in models}
    res["gain_last_round"] = {m: gain(m, last - PER_ROUND) for m in models}
    res["cost_model_share"] = {
        m: float(
            sum(by[t, m][s]["cost_model_seconds"] for t in tasks for s in seeds[t])
            / max(sum(by[t, m][s]["tuning_seconds"] for t in tasks for s in seeds[t]), 1e-9)
        )
        for m in models
    }
    res["machines"] = sorted({r["machine"] for r in runs})
    res["days"] = sorted({r["day"] for r in runs})
    res["curves"] = _curves(by, models, tasks, seeds, trials)
    return res


def _curves(by, models, tasks, seeds, trials) -> dict:
    """Per model, geometric mean over tasks of best latency / XGBModel's final best (mean over
    seeds) after each trial, with a bootstrap band over tasks."""
    if "xgb" not in models or not tasks:
        return {}
    ref = {
        t: np.exp(np.mean([np.log(best_at(by[t, "xgb"][s]["curve"], trials)) for s in seeds[t]]))
        for t in tasks
    }
    rng = np.random.default_rng(0)
    picks = [rng.integers(0, len(tasks), len(tasks)) for _ in range(200)]
    out = {}
    for m in models:
        logs = np.array(
            [
                np.mean(
                    [np.log(np.asarray(by[t, m][s]["curve"][:trials]) / ref[t]) for s in seeds[t]],
                    axis=0,
                )
                for t in tasks
            ]
        )  # tasks x trials
        mid = np.exp(logs.mean(axis=0))
        reps = np.exp(np.array([logs[p].mean(axis=0) for p in picks]))
        out[m] = {
            "mid": mid.tolist(),
            "low": np.percentile(reps, 2.5, axis=0).tolist(),
            "high": np.percentile(reps, 97.5, axis=0).tolist(),
        }
    return out


# -- report -------------------------------------------------------------------------------------
def _median_trials(t: dict, final: int) -> str:
    """A ``trials_to_xgb_final`` entry's median, "> final" when most runs never got there."""
    return f"{t['median']:.0f}" if np.isfinite(t["median"]) else f"> {final}"


def _ratio_cell(c: dict) -> str:
    return f"**{c['ratio']:.3f}** [{c['low']:.3f}, {c['high']:.3f}]"


def _ratio_table(heading: str, ratios: dict, ref: str, res: dict) -> list[str]:
    """A table of ``ratios`` (:func:`_ratios` against ``ref``): a row per model that has them,
    a column per budget."""
    budgets = res["budgets"]
    lines = [
        f"| {heading} | " + " | ".join(f"{b} trials" for b in budgets) + " |",
        "|---|" + "---:|" * len(budgets),
    ]
    for m in res["models"]:
        if f"{m}@{budgets[0]}" in ratios:
            cells = [ratios[f"{m}@{b}"] for b in budgets]
            lines.append(f"| {m} / {ref} | " + " | ".join(map(_ratio_cell, cells)) + " |")
    return lines


def _model_table(res: dict) -> list[str]:
    """A row per model: how soon it reaches XGBModel's final best (when XGBModel was tuned), what
    its search gained after the first budget and in the last round, its cost-model share."""
    budgets, final = res["budgets"], max(res["budgets"])
    to_xgb = res.get("trials_to_xgb_final")
    head = ["model"]
    if to_xgb:
        head += [f"trials to reach XGBModel's {final}-trial best (median over tasks x seeds)"]
        head += ["reached in"]
    head += [
        f"its own best at {min(budgets)} trials / at {final}",
        f"at {final - PER_ROUND} / at {final} (the last round)",
        "cost model share of tuning wall-clock",
    ]
    lines = ["| " + " | ".join(head) + " |", "|---|" + "---:|" * (len(head) - 1)]
    for m in res["models"]:
        cells = [m]
        if to_xgb:
            t = to_xgb[m]
            cells += [_median_trials(t, final), f"{t['reached']} / {t['runs']} runs"]
        cells += [
            f"{res['gain_after_first'][m]:.3f}",
            f"{res['gain_last_round'][m]:.3f}",
            f"{res['cost_model_share'][m]:.1%}",
        ]
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def render(res: dict, command: str, plot_name: str | None) -> str:
    if not res["tasks"]:
        return "No task has finished runs of every model yet.\n"
    budgets, models = res["budgets"], res["models"]
    lines = [
        f"Command: `{command}`; {', '.join(res['machines'])}; runs of {', '.join(res['days'])}. "
        f"{len(res['tasks'])} tasks, seeds per task: "
        + ", ".join(sorted({str(len(s)) for s in res["seeds"].values()}))
        + ".",
        "",
    ]
    tables = []
    if res["ratios"]:
        tables.append(
            _ratio_table(
                "GNN / XGBModel best latency (geometric mean over tasks)", res["ratios"], "xgb", res
            )
        )
    if res.get("ratios_gnn"):
        tables.append(
            _ratio_table(
                "each GNN variant / the shipped GNN, same seeds", res["ratios_gnn"], "gnn", res
            )
        )
    for table in tables:
        lines += table + [""]
    if tables:
        lines += ["(95% bootstrap interval: tasks resampled, and seeds within each task.)", ""]
    lines += _model_table(res)
    lines += [
        "",
        "| task | kind | " + " | ".join(f"{m} @{b} (ms)" for b in budgets for m in models) + " |",
        "|---|---|" + "---:|" * (len(budgets) * len(models)),
    ]
    for t, row in res["per_task"].items():
        cells = [f"{row[f'{m}@{b}'] * 1e3:.4f}" for b in budgets for m in models]
        lines.append(f"| {t} | {row['kind']} | " + " | ".join(cells) + " |")
    if plot_name:
        lines += ["", f"![best latency against trials]({plot_name})"]
    return "\n".join(lines) + "\n"


def render_targets(res: dict, count: int, seeds: int) -> str:
    """The targets against the runs so far: ``count`` tasks of ``seeds`` seeds make the whole
    benchmark; until then every verdict reads "so far"."""
    tasks = res["tasks"]
    if not tasks or "gnn" not in res["models"] or "xgb" not in res["models"]:
        return "No task has finished runs of GNNModel and XGBModel yet.\n"
    budgets, final = res["budgets"], max(res["budgets"])
    complete = len(tasks) >= count and all(len(s) >= seeds for s in res["seeds"].values())
    so_far = "" if complete else " so far"
    at = 64 if 64 in budgets else final
    r = res["ratios"][f"gnn@{at}"]
    others = ", ".join(
        f"{res['ratios'][f'gnn@{b}']['ratio']:.3f} at {b} trials" for b in budgets if b != at
    )
    need, xgb_need = res["trials_to_xgb_final"]["gnn"], res["trials_to_xgb_final"]["xgb"]
    share = res["cost_model_share"]

    def verdict(ok: bool) -> str:
        return ("met" if ok else "missed") + so_far

    n_seeds = sorted({len(s) for s in res["seeds"].values()})
    lines = [
        f"{len(tasks)} of {count} tasks, seeds per task {'/'.join(map(str, n_seeds))} of {seeds}; "
        f"{', '.join(res['machines'])}; runs of {', '.join(res['days'])}; "
        "`.venv/bin/python benchmarks/tune_tasks.py --report-only`.",
        "",
        "| target | measured | verdict |",
        "|---|---|---|",
        f"| geometric mean GNN / XGBModel best latency at {at} trials <= 0.90, interval's upper "
        f"end < 1.0 | **{r['ratio']:.3f}**, 95% interval [{r['low']:.3f}, {r['high']:.3f}] "
        f"({others}) | {verdict(r['ratio'] <= 0.90 and r['high'] < 1.0)} |",
        f"| GNNModel reaches XGBModel's {final}-trial best in <= 1/3 of the trials (median) | "
        f"**{_median_trials(need, final)}** of {final} trials ({need['reached']} of "
        f"{need['runs']} runs reach it; XGBModel itself: {_median_trials(xgb_need, final)}) | "
        f"{verdict(need['median'] <= final / 3)} |",
        f"| cost model <= 10% of tuning wall-clock | GNN **{share['gnn']:.1%}** (XGBModel "
        f"{share['xgb']:.1%}) | {verdict(share['gnn'] <= 0.10)} |",
        "",
    ]
    ahead = {b: [t for t in tasks if _gnn_ahead(res, t, b)] for b in budgets}
    lines.append(
        "GNNModel has the lower best latency (geometric mean over seeds) on "
        + ", ".join(str(len(ahead[b])) for b in budgets)
        + f" of the {len(tasks)} tasks at "
        + ", ".join(str(b) for b in budgets)
        + " trials."
    )
    behind = {t: [b for b in budgets if t not in ahead[b]] for t in tasks}
    for t, bs in behind.items():
        if bs:
            row = res["per_task"][t]
            cells = ", ".join(
                f"{row[f'gnn@{b}'] * 1e3:.3f} against {row[f'xgb@{b}'] * 1e3:.3f} ms at {b}"
                for b in bs
            )
            lines.append(f"XGBModel is ahead on {t} ({row['kind']}): {cells}.")
    return "\n".join(lines) + "\n"


def _gnn_ahead(res: dict, task: str, budget: int) -> bool:
    row = res["per_task"][task]
    return row[f"gnn@{budget}"] < row[f"xgb@{budget}"]


def plot(res: dict, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FixedLocator, FormatStrFormatter, NullLocator

    names = {
        "gnn": "GNNModel",
        "xgb": "XGBModel",
        "random": "RandomModel",
        "gnn+xgb": "GNNModel + XGBModel",
        "gnn-long": f"GNNModel, {LONG_EPOCHS}-epoch online update",
        "gnn-head": "GNNModel, head-only online update",
    }
    fig, ax = plt.subplots(figsize=(7, 4))
    for m, c in res["curves"].items():
        x = np.arange(1, len(c["mid"]) + 1)
        ax.plot(x, c["mid"], label=names.get(m, m))
        ax.fill_between(x, c["low"], c["high"], alpha=0.2)
    ax.axhline(1.0, color="grey", lw=0.8, ls="--")
    for b in res["budgets"][:-1]:
        ax.axvline(b, color="grey", lw=0.6, ls=":")
    ax.set_yscale("log")
    ax.yaxis.set_major_locator(
        FixedLocator([0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.25, 1.5, 2, 3, 4, 6, 8])
    )
    ax.yaxis.set_minor_locator(NullLocator())
    ax.yaxis.set_major_formatter(FormatStrFormatter("%g"))
    ax.set_xlabel("trials")
    ax.set_ylabel("best latency / XGBModel's final best")
    ax.set_title(f"{len(res['tasks'])} held-out tasks, geometric mean (95% band over tasks)")
    ax.legend()
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


# -- command line -------------------------------------------------------------------------------
def parse(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--data", type=Path, default=ROOT / "data", help="dataset (default: data/)")
    p.add_argument("--hardware", default=None, help="dataset hardware folder the tasks come from")
    p.add_argument("--runs", type=Path, default=None, help="archive (default: per hardware)")
    p.add_argument("--tasks", nargs="+", default=None, help="indices or names (default: all)")
    p.add_argument("--count", type=int, default=12, help="tasks selected (default: 12)")
    p.add_argument("--seeds", nargs="+", type=int, default=list(SEEDS))
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
        default=list(DEFAULT_MODELS),
        help=f"tuned and reported (default: {' '.join(DEFAULT_MODELS)})",
    )
    p.add_argument("--trials", type=int, default=128, help="trials per run (default: 128)")
    p.add_argument("--num-cores", type=int, default=None, help="target cores (default: all)")
    p.add_argument("--checkpoint", default=None, help="GNN weights (default: the shipped ones)")
    p.add_argument("--list", action="store_true", help="print the selected tasks and exit")
    p.add_argument("--report-only", action="store_true", help="rebuild the report, tune nothing")
    p.add_argument("--doc", type=Path, default=ROOT / "docs" / "tuning.md")
    p.add_argument(
        "--section",
        default=None,
        help="the report's generated section in --doc, which also names its plot and numbers "
        "(default: tune-tasks, or tune-tasks-dev with --set dev)",
    )
    p.add_argument("--json", type=Path, default=None, help="numbers (default: per --section)")
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
            for seed in args.seeds:
                for model in args.models:
                    tune_one(args, task, model, seed, runs, digest)
    res = summarize(read_runs(runs, digest), args.trials, args.models)
    plot_path = args.doc.parent / f"tuning-{section.removeprefix('tune-')}.png"
    if res["curves"]:
        plot(res, plot_path)
    command = "python benchmarks/tune_tasks.py --report-only"
    if suffix:
        command += f" --set {args.set}"
    if tuple(args.models) != DEFAULT_MODELS:
        command += " --models " + " ".join(args.models)
    if args.section:
        command += f" --section {args.section}"
    text = render(res, command, plot_path.name if res["curves"] else None)
    print(text)
    report.write_section(args.doc, section, text)
    if not suffix:  # the targets are the held-out networks'
        targets = render_targets(res, args.count, len(SEEDS))
        print(targets)
        report.write_section(args.doc, TARGETS_SECTION, targets)
    atomic.write_json(json_path, {k: v for k, v in res.items() if k != "curves"})
    return 0


if __name__ == "__main__":
    sys.exit(main())
