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

The report (a generated section of ``docs/tuning.md`` per command) gives:

- the measured end-to-end latency at each budget;
- the task scheduler's estimate (sum over tasks of weight x best measured latency) at each budget;
- how many trials the GNN needed to reach XGBModel's final estimate;
- the share of tuning wall-clock spent in the cost model (MetaSchedule's profiler scopes
  ``EvoSearch/Evolve/PredictNormalizedScore`` and ``MeasureCallback/UpdateCostModel``);
- the noise of the timings, and plots of the estimate against trials and against wall-clock.

    .venv/bin/python benchmarks/tune_networks.py --networks resnet18 --trials 480 --seeds 0
"""

from __future__ import annotations

import argparse
import datetime
import json
import math
import re
from pathlib import Path

import numpy as np

from tvm_gnn import report
from tvm_gnn.tune import cost_model_seconds

ROOT = Path(__file__).resolve().parent.parent
SECTION = "tune-networks"
MODEL_ORDER = ("gnn", "gnn-head", "xgb", "xgb-pretrained", "random")


def model_order(label: str) -> tuple:
    """Sort key for cost models (or ``model/seedN`` labels): MODEL_ORDER, then others by name."""
    model = label.split("/")[0]
    return (MODEL_ORDER.index(model) if model in MODEL_ORDER else len(MODEL_ORDER), label)


ARCHIVED = (
    "tune_log.json",
    "budgets.json",
    "database_workload.json",
    "database_tuning_record.json",
)


def archive(work: Path, dest: Path) -> None:
    """Copy a finished run's logs (and its databases, gzipped) into the committed archive."""
    import gzip
    import shutil

    dest.mkdir(parents=True, exist_ok=True)
    for name in ARCHIVED:
        src = work / name
        if not src.exists():
            continue
        if name.startswith("database_"):
            with open(src, "rb") as fin, gzip.GzipFile(dest / f"{name}.gz", "wb", mtime=0) as fout:
                shutil.copyfileobj(fin, fout)
        else:
            shutil.copyfile(src, dest / name)


def restore(kept: Path, work: Path) -> bool:
    """Unpack an archived run into ``work`` (a new machine of the same hardware resumes from the
    archive instead of tuning again). Returns whether there was a finished run to restore."""
    import gzip
    import shutil

    if not (kept / "tune_log.json").exists():
        return False
    work.mkdir(parents=True, exist_ok=True)
    for name in (n for n in ARCHIVED if n != "tune_log.json"):
        if (kept / name).exists():
            shutil.copyfile(kept / name, work / name)
        elif (kept / f"{name}.gz").exists():
            with gzip.open(kept / f"{name}.gz", "rb") as fin, open(work / name, "wb") as fout:
                shutil.copyfileobj(fin, fout)
    # the log last: it is what marks the run finished
    shutil.copyfile(kept / "tune_log.json", work / "tune_log.json")
    return True


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
    from tvm_gnn.measure.sampling import target_from
    from tvm_gnn.tune.budgets import latency_at_budgets, read_budgets
    from tvm_gnn.tune.end_to_end import (
        WEIGHTED_COST_MODELS,
        TuneSettings,
        tune_network,
        weights_provenance,
    )

    target = target_from(args.target, args.num_cores)
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
                log = work / "tune_log.json"
                if not log.exists() and not args.report_only and restore(kept, work):
                    print(
                        f"== {net} / {model} / seed {seed}: finished run restored from {kept}",
                        flush=True,
                    )
                if not log.exists() and not args.report_only:
                    print(f"== {net} / {model} / seed {seed}: {args.trials} trials", flush=True)
                    tune_network(
                        net,
                        model,
                        args.trials,
                        target,
                        work,
                        TuneSettings(
                            seed=seed,
                            trials_per_iter=args.trials_per_iter,
                            cache_flush=args.cache_flush,
                            repeats=args.repeats,
                        ),
                        checkpoint=args.checkpoint,
                        data=args.data,
                    )
                if not log.exists():
                    continue
                entry = json.loads(log.read_text())
                if entry.get("cache_flush", False) != args.cache_flush:
                    how = "cold" if entry.get("cache_flush") else "warm"
                    raise SystemExit(
                        f"{work} holds a run that timed candidates {how}: "
                        "--cache-flush runs and warm runs need their own --runs "
                        "and --archive folders"
                    )
                used = (entry.get("weights") or {}).get("sha256")
                if used and used != wanted and not args.report_only:
                    raise SystemExit(
                        f"{work} holds a run that started from other GNN weights "
                        f"(SHA-256 {used[:12]}, these are {wanted[:12]}): pass the "
                        "weights it used with --checkpoint, or give the new weights "
                        "their own folders with --weights-name"
                    )
                if args.report_only:
                    at = read_budgets(work)
                else:
                    at = latency_at_budgets(work, budgets, repeats=args.repeats)
                entry["budgets"] = {int(b): v for b, v in at.items()}
                entry["work_dir"] = str(work)
                logs.append(entry)
                if not args.no_write and work != kept:
                    archive(work, kept)
    return logs


def kept_per_network(
    args, logs: list[dict], budget: int, filename: str, stamp: dict, labels_in, compute
) -> dict[str, dict]:
    """Per network: ``compute(runs)`` over every run that reached ``budget``, kept in the archive.

    ``runs`` is ``{label: work_dir}``. The result, with ``stamp`` added, is kept in
    ``ARCHIVE/<network>/<filename>`` and redone only when ``stamp`` or the set of runs
    (``labels_in(saved)``) changed; ``--report-only`` only reads it.
    """
    from tvm_gnn.measure.hardware import cpu_model

    out = {}
    for net in sorted({lg["network"] for lg in logs}):
        runs = {
            f"{lg['cost_model']}/seed{lg['seed']}": lg["work_dir"]
            for lg in logs
            if lg["network"] == net and lg["trials"] >= budget
        }
        path = Path(args.archive) / net / filename
        saved = json.loads(path.read_text()) if path.exists() else None
        fresh = (
            saved
            and all(saved.get(k) == v for k, v in stamp.items())
            and sorted(labels_in(saved)) == sorted(runs)
        )
        if not fresh and not args.report_only and len(runs) >= 2:
            saved = {
                **stamp,
                **compute(runs),
                "cpu": cpu_model(),
                "date": str(datetime.date.today()),
            }
            if not args.no_write:
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(json.dumps(saved, indent=1))
            fresh = True
        if fresh:
            out[net] = saved
    return out


def head_to_head_all(args, logs: list[dict], budget: int) -> dict[str, dict]:
    """Per network: every run's network after ``budget`` trials, timed in turn in one process
    (``ARCHIVE/<network>/head_to_head.json``; redone when the runs, the budget or the compile
    version changed)."""
    from tvm_gnn.tune.budgets import head_to_head
    from tvm_gnn.tune.compile import COMPILE_VERSION

    return kept_per_network(
        args,
        logs,
        budget,
        "head_to_head.json",
        {"budget": budget, "compile_version": COMPILE_VERSION},
        lambda saved: saved["times"],
        lambda runs: {
            "rounds": args.rounds,
            "times": head_to_head(runs, budget, rounds=args.rounds),
        },
    )


def remeasure_all(args, logs: list[dict], budget: int) -> dict[str, dict]:
    """Per network: every run's best schedules after ``budget`` trials, timed again warm and cold
    (``ARCHIVE/<network>/remeasured.json``; redone when the runs or the budget changed)."""
    from tvm_gnn.tune.remeasure import remeasure_best

    return kept_per_network(
        args,
        logs,
        budget,
        "remeasured.json",
        {"budget": budget},
        lambda saved: saved["runs"],
        lambda runs: {"runs": sorted(runs), "tasks": remeasure_best(runs, budget)},
    )


def remeasure_table(remeasured: dict[str, dict], h2h: dict[str, dict]) -> list[str]:
    from tvm_gnn.tune.remeasure import weighted_sums

    if not remeasured:
        return []
    out = [
        "",
        "**The estimate against the network** (`tvm_gnn.tune.remeasure`: each run's best "
        "schedule of every task, timed again one task at a time, the runs in turn, on the "
        "same random inputs: warm as tuning timed it, 3 runs in a row on cached data, and "
        "cold, every argument but the first flushed from the CPU cache before each of 10 "
        "runs, as `tvm-gnn tune --cache-flush` times candidates; summed with the task "
        "weights, ms. The last column is the compiled network's ratio from the head-to-head "
        "table):",
        "",
        "| network | model | tuning's estimate | re-timed warm | re-timed cold | "
        "estimate vs xgb | warm vs xgb | cold vs xgb | network vs xgb (head to head) |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for net, saved in sorted(remeasured.items()):
        sums = weighted_sums(saved["tasks"])
        net_med = {}
        for label, times in (h2h.get(net) or {}).get("times", {}).items():
            net_med[label] = float(np.median(times))
        xgb = next((k for k in sums if k.startswith("xgb/")), None)
        for label in sorted(sums, key=model_order):
            s = sums[label]
            cells = [f"{s[k]:.3f}" for k in ("tuned", "warm", "cold")]
            cells += [
                f"{s[k] / sums[xgb][k]:.3f}x" if xgb else "-" for k in ("tuned", "warm", "cold")
            ]
            cells.append(
                f"{net_med[label] / net_med[xgb]:.3f}x"
                if xgb and label in net_med and xgb in net_med
                else "-"
            )
            out.append(f"| {net} | {label} | " + " | ".join(cells) + " |")
        gnn = next((k for k in sums if k.startswith("gnn/")), None)
        if gnn and xgb:
            diffs = sorted(
                (
                    (row["weight"] * (row[gnn]["cold"] - row[xgb]["cold"]) / 1e3, task, row)
                    for task, row in saved["tasks"].items()
                    if row.get(gnn) and row.get(xgb)
                ),
                reverse=True,
            )
            worst = "; ".join(
                f"`{task}` x{row['weight']:.0f}: {row[gnn]['warm']:.0f} vs {row[xgb]['warm']:.0f} "
                f"us warm, {row[gnn]['cold']:.0f} vs {row[xgb]['cold']:.0f} us cold"
                for _, task, row in diffs[:3]
            )
            out.append(
                f"- {net}: where {gnn}'s schedules lose most to {xgb}'s once cold "
                f"(GNN vs XGB, per call): {worst}."
            )
    return out


def seed_ratios(times: dict[str, list[float]], model: str) -> dict[int, tuple[float, int, int]]:
    """Per seed that both ``model`` and ``xgb`` ran: (median latency over rounds of ``model``'s
    network / XGBModel's, rounds where ``model``'s was faster, rounds). Runs of one seed share
    the search's seed and were timed in the same rounds."""
    out = {}
    for label, mine in times.items():
        name, _, seed = label.partition("/")
        theirs = times.get(f"xgb/{seed}")
        if name != model or theirs is None:
            continue
        ratio = float(np.median(mine) / np.median(theirs))
        out[int(seed.removeprefix("seed"))] = (
            ratio,
            sum(a < b for a, b in zip(mine, theirs)),
            len(mine),
        )
    return dict(sorted(out.items()))


def head_to_head_table(h2h: dict[str, dict]) -> list[str]:
    if not h2h:
        return []
    out = [
        "",
        "**Head to head** (every run's network as it stood after the last budget, compiled "
        "and checked, then timed in turn in one process: one timed run each per round, the "
        "order rotated every round, so that the machine's drift over time hits all alike; ms, "
        "median over rounds, then over seeds; each seed's ratio is its network against "
        "XGBModel's of the same seed, and the median is over those ratios):",
        "",
        "| network | trials | rounds | model | seeds | latency (ms) | vs xgb, per seed | "
        "vs xgb, median over seeds | rounds where it beat xgb, per seed |",
        "|---|---:|---:|---|---:|---:|---|---:|---|",
    ]
    for net, saved in sorted(h2h.items()):
        per_model: dict[str, list[list[float]]] = {}
        for label, times in saved["times"].items():
            per_model.setdefault(label.split("/")[0], []).append(times)
        med = {m: float(np.median([np.median(t) for t in ts])) for m, ts in per_model.items()}
        for m in sorted(per_model, key=model_order):
            pairs = seed_ratios(saved["times"], m) if m != "xgb" else {}
            each = ", ".join(f"{r:.3f}x (seed {k})" for k, (r, _, _) in pairs.items()) or "-"
            median = f"**{np.median([r for r, _, _ in pairs.values()]):.3f}x**" if pairs else "-"
            wins = ", ".join(f"{w} of {n}" for _, w, n in pairs.values()) or "-"
            out.append(
                f"| {net} | {saved['budget']} | {saved['rounds']} | {m} | "
                f"{len(per_model[m])} | {med[m]:.3f} | {each} | {median} | {wins} |"
            )
    return out


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
    return cost_model_seconds(prof) / total


def _spread(runs: list[float]) -> float:
    """Relative spread of repeated timings: (max - min) / median."""
    return (max(runs) - min(runs)) / float(np.median(runs))


def summarize(logs: list[dict], budgets: list[int], h2h: dict | None = None) -> str:
    from tvm_gnn.tune.compile import COMPILE_VERSION

    by: dict[tuple[str, str], list[dict]] = {}
    for log in logs:
        by.setdefault((log["network"], log["cost_model"]), []).append(log)
    nets = sorted({n for n, _ in by})
    models = sorted({m for _, m in by}, key=model_order)
    out = [
        "**Measured end-to-end latency** (ms; the network compiled with the database as it "
        "stood after that many trials, checked against PyTorch, median of the timed runs; "
        "median over seeds):",
        "",
        "| network | model | seeds | "
        + " | ".join(f"{b} trials" for b in budgets)
        + " | vs xgb at the last budget |",
        "|---|---|---:|" + "---:|" * len(budgets) + "---:|",
    ]
    spreads = []
    for net in nets:
        final = {}
        for model in models:
            runs = by.get((net, model), [])
            if runs:
                final[model] = np.median(
                    [
                        r["budgets"].get(budgets[-1], {}).get("latency_ms_median", math.nan)
                        for r in runs
                    ]
                )
        for model in models:
            runs = by.get((net, model), [])
            if not runs:
                continue
            cells = []
            for b in budgets:
                vals = [r["budgets"][b]["latency_ms_median"] for r in runs if b in r["budgets"]]
                spreads += [
                    _spread(r["budgets"][b]["latency_ms_runs"]) for r in runs if b in r["budgets"]
                ]
                cells.append(f"{np.median(vals):.3f}" if vals else "-")
            ratio = final[model] / final["xgb"] if "xgb" in final else math.nan
            out.append(
                f"| {net} | {model} | {len(runs)} | "
                + " | ".join(cells)
                + (f" | {ratio:.3f}x |" if math.isfinite(ratio) else " | - |")
            )
    out += [
        "",
        "**Tuning** (the task scheduler's estimate is the sum over tasks of weight x best "
        "measured latency; `-` until every task has a measured candidate):",
        "",
        "| network | model | "
        + " | ".join(f"estimate @ {b} (ms)" for b in budgets)
        + " | tuning wall-clock (s) | failed trials | cost-model share |",
        "|---|---|" + "---:|" * len(budgets) + "---:|---:|---:|",
    ]
    for net in nets:
        for model in models:
            runs = by.get((net, model), [])
            if not runs:
                continue
            ests = [np.median([estimate_at(r["curve"], b) for r in runs]) * 1e3 for b in budgets]
            wall = np.median([r["tuning_seconds"] for r in runs])
            share = np.median([cost_model_share(r) for r in runs])
            fails = sum(r["failed_trials"] for r in runs)
            out.append(
                f"| {net} | {model} | "
                + " | ".join(f"{e:.3f}" if math.isfinite(e) else "-" for e in ests)
                + f" | {wall:.0f} | {fails} | {share:.1%} |"
            )
    out.append("")
    for net in nets:
        if (net, "xgb") not in by:
            continue
        xgb_runs = by[(net, "xgb")]
        xgb_final = np.median([estimate_at(r["curve"], r["trials"]) for r in xgb_runs])
        xgb_trials = xgb_runs[0]["trials"]
        if not math.isfinite(xgb_final):
            out.append(f"- {net}: XGBModel had not measured every task after {xgb_trials} trials.")
            continue
        for model in (m for m in models if m != "xgb" and (net, m) in by):
            runs = sorted(by[(net, model)], key=lambda r: r["seed"])
            got = [trials_to_reach(r["curve"], xgb_final) for r in runs]
            text = ", ".join(
                f"seed {r['seed']} not in its {r['trials']} trials"
                if g is None
                else f"seed {r['seed']} after {g} trials ({g / xgb_trials:.0%})"
                for g, r in zip(got, runs)
            )
            out.append(
                f"- {net}: XGBModel's final estimate (median over seeds) {xgb_final * 1e3:.3f} ms "
                f"after {xgb_trials} trials; reached by {model}: {text}."
            )
    if spreads:
        out.append(
            f"- Noise: the timed runs of one compiled network spread by at most "
            f"{max(spreads):.1%} (median {np.median(spreads):.1%}) of their median "
            "((max - min) / median over the repeats)."
        )
    redo = [
        abs(lg["latency_ms_median"] / lg["budgets"][lg["trials"]]["latency_ms_median"] - 1)
        for lg in logs
        if lg.get("compile_version") == COMPILE_VERSION and lg["trials"] in lg["budgets"]
    ]
    if redo:
        out.append(
            f"- Drift: the same run's network compiled and timed twice, at the end of "
            f"tuning and again for the last budget (minutes apart, the scheduler's last "
            f"few overshoot trials aside), differs by a median {np.median(redo):.1%}, at "
            f"most {max(redo):.1%} ({len(redo)} runs)"
            + (
                ": more than the spread within one timing, which is why the head-to-head "
                "table times the networks in turn."
                if spreads and np.median(redo) > np.median(spreads)
                else ", within the spread of one timing."
            )
        )
    out += head_to_head_table(h2h or {})
    return "\n".join(out)


def plot(logs: list[dict], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    nets = sorted({log["network"] for log in logs})
    fig, axes = plt.subplots(len(nets), 2, figsize=(10, 3.2 * len(nets)), squeeze=False)
    colors = {
        "gnn": "tab:blue",
        "gnn-head": "tab:green",
        "xgb": "tab:orange",
        "xgb-pretrained": "tab:red",
        "random": "tab:gray",
    }
    for row, net in zip(axes, nets):
        for log in (lg for lg in logs if lg["network"] == net):
            pts = [p for p in log["curve"] if p["estimated_latency_s"] is not None]
            if not pts:
                continue
            y = [p["estimated_latency_s"] * 1e3 for p in pts]
            for ax, key in zip(row, ("trials", "seconds")):
                ax.plot(
                    [p[key] for p in pts],
                    y,
                    color=colors.get(log["cost_model"], "k"),
                    alpha=0.7,
                    label=f"{log['cost_model']} seed {log['seed']}",
                )
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


def measured_on(args, section: str) -> str:
    """The date of the section's timings: today, unless --report-only rewrites a section whose
    numbers were timed on an earlier day (which it keeps: nothing is timed again)."""
    if args.report_only:
        earlier = report.read_section(ROOT / "docs" / "tuning.md", f"{SECTION}-{section}")
        found = re.search(r"; TVM [^;]+; (\d{4}-\d{2}-\d{2})\.", earlier or "")
        if found:
            return found.group(1)
    return str(datetime.date.today())


def machine(log: dict) -> str:
    """The hardware a run was tuned on, as its log records it (older logs name no device)."""
    from tvm_gnn.measure.hardware import cpu_model

    cpu = f"{log.get('cpu', cpu_model())}, {log['cpu_count']} cores"
    device = log.get("device")
    return cpu if device in (None, log.get("cpu")) else f"{device} (host: {cpu})"


def main() -> None:
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
        "and their own section of docs/tuning.md",
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
    args = p.parse_args()
    from tvm_gnn.measure.sampling import target_from

    target = target_from(args.target, args.num_cores)
    kind = target.kind.name
    # runs on another target, or timed cold, get their own folders and their own docs section
    flush = "-cache-flush" if args.cache_flush else ""
    variant = ("" if kind == "llvm" else f"-{kind}") + flush
    if args.runs is None:
        args.runs = str(ROOT / "tune_runs" / f"bench{variant}")
    if args.archive is None:
        from tvm_gnn.measure.hardware import hardware_name

        hw = hardware_name(target)
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
    archive = Path(args.shared_archive if args.weights_name else args.archive).resolve()
    if archive.is_relative_to(ROOT):  # named, so that the command reads the same runs anywhere
        archive = archive.relative_to(ROOT)
    command = (
        f".venv/bin/python benchmarks/tune_networks.py --networks {' '.join(args.networks)} "
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
    body = (
        f"### {', '.join(args.networks)}: {args.trials} trials{timed}\n\n"
        f"Command: `{command}`\n\n"
        f"Machine: {machine(logs[0])}, target `{logs[0]['target']}`; "
        f"TVM {logs[0]['tvm_version']}; {measured_on(args, name)}. {args.trials_per_iter} "
        f"candidates per search round; each compiled network timed {args.repeats} times.\n\n"
        + summarize(logs, budgets, h2h)
        # each line on its own: the bold paragraph after a table needs a blank line first,
        # or Markdown reads it as one more table row
        + "".join(f"\n{line}" for line in remeasure_table(remeasured, h2h))
        + f"\n\n![best latency against trials and wall-clock](tuning-{name}.png)\n"
    )
    print(body)
    if not args.no_write:
        report.write_section(ROOT / "docs" / "tuning.md", f"{SECTION}-{name}", body, title="Tuning")
        plot(logs, ROOT / "docs" / f"tuning-{name}.png")


if __name__ == "__main__":
    main()
