# Licensed under the Apache License, Version 2.0.
"""The report of ``tune_networks.py``: the measured end-to-end latency at each budget, the
scheduler's estimates, the trials to reach XGBModel, the noise and drift of the timings, the
head-to-head and re-measured tables, and the plot."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
from tuning_runs import cost_model_share, estimate_at, model_order, seed_ratios, trials_to_reach


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


def _spread(runs: list[float]) -> float:
    """Relative spread of repeated timings: (max - min) / median."""
    return (max(runs) - min(runs)) / float(np.median(runs))


def summarize(logs: list[dict], budgets: list[int], h2h: dict | None = None) -> str:
    """The report's tables and notes for the runs' ``logs`` at ``budgets``."""
    by: dict[tuple[str, str], list[dict]] = {}
    for log in logs:
        by.setdefault((log["network"], log["cost_model"]), []).append(log)
    nets = sorted({n for n, _ in by})
    models = sorted({m for _, m in by}, key=model_order)
    out, spreads = latency_table(by, nets, models, budgets)
    out += tuning_table(by, nets, models, budgets) + [""]
    out += reach_lines(by, nets, models) + noise_lines(logs, spreads)
    out += head_to_head_table(h2h or {})
    return "\n".join(out)


def latency_table(by: dict, nets, models, budgets) -> tuple[list[str], list[float]]:
    """The measured end-to-end latency at each budget, and the spreads of the timed runs."""
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
                last = [r["budgets"].get(budgets[-1], {}) for r in runs]
                final[model] = np.median([b.get("latency_ms_median", math.nan) for b in last])
        for model in models:
            runs = by.get((net, model), [])
            if not runs:
                continue
            cells = []
            for b in budgets:
                at = [r["budgets"][b] for r in runs if b in r["budgets"]]
                spreads += [_spread(v["latency_ms_runs"]) for v in at]
                vals = [v["latency_ms_median"] for v in at]
                cells.append(f"{np.median(vals):.3f}" if vals else "-")
            ratio = final[model] / final["xgb"] if "xgb" in final else math.nan
            out.append(
                f"| {net} | {model} | {len(runs)} | "
                + " | ".join(cells)
                + (f" | {ratio:.3f}x |" if math.isfinite(ratio) else " | - |")
            )
    return out, spreads


def tuning_table(by: dict, nets, models, budgets) -> list[str]:
    """The scheduler's estimate at each budget, the wall-clock, failures and cost-model share."""
    out = [
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
    return out


def reach_lines(by: dict, nets, models) -> list[str]:
    """Per network and model: after how many trials each seed reached XGBModel's final estimate."""
    out = []
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
    return out


def noise_lines(logs: list[dict], spreads: list[float]) -> list[str]:
    """The spread of one compiled network's timings, and the drift between two timings of it."""
    from tvm_gnn.tune.compile import COMPILE_VERSION

    out = []
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
    return out


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
