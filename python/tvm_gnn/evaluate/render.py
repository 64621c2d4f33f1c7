# Licensed under the Apache License, Version 2.0.
"""The results of :func:`tvm_gnn.evaluate.ranking.evaluate` as markdown tables and a bar plot."""

from __future__ import annotations

import numpy as np

from .. import atomic
from ..cost_models.mlp_fixes import MKL_CBWR
from .ranking import DESCRIPTIONS


def _num(x: float) -> str:
    return "-" if x != x else f"{x:.3f}"  # NaN: no workload with a choice in this network


def markdown(res: dict) -> str:
    """The results tables (unshared workloads first: the target), as markdown."""
    nets = res["held_out"]
    lines = []
    for part, title in (
        ("unshared", "Held-out workloads not shared with training networks"),
        ("all", "All workloads of the held-out networks"),
    ):
        any_model = next(iter(res["models"].values()))
        counts = ", ".join(
            f"{n} {any_model[part][n]['workloads']} workloads / "
            f"{any_model[part][n]['candidates']} candidates"
            for n in nets
        )
        lines += [f"### {title}", "", f"({counts})", ""]
        head = "| model | " + " | ".join(f"{n} pairwise | {n} top-1 | {n} top-5" for n in nets)
        head += " | **avg pairwise** | **avg top-1** | **avg top-5** |"
        lines += [head, "|---" * (1 + 3 * len(nets) + 3) + "|"]
        for name, m in res["models"].items():
            cells = [_num(m[part][n][k]) for n in nets for k in ("pairwise", "top1", "top5")]
            avg = m[part]["average"]
            cells += [f"**{_num(avg[k])}**" for k in ("pairwise", "top1", "top5")]
            lines.append(f"| {name} | " + " | ".join(cells) + " |")
        lines.append("")
    lines += [
        "### Models",
        "",
        "| model | what | training (s) (1) | predict (candidates/s) |",
        "|---|---|---:|---:|",
    ]
    for name, m in res["models"].items():
        lines.append(
            f"| {name} | {DESCRIPTIONS.get(name, name)} | {m['train_seconds']:.1f} | "
            f"{m['throughput']:,.0f} |"
        )
    lines += [
        "",
        "(1) GNN rows: the training time `tvm-gnn train` recorded in the checkpoint; "
        "XGBModel and MLPModel: trained in this run, feature extraction included.",
    ]
    models = res["models"]
    lines += _runs_table(res)
    if res.get("test_folders"):
        lines += [
            "",
            "Test databases: "
            + ", ".join(f"{name} `{folder}`" for name, folder in res["test_folders"].items())
            + ".",
        ]
    lines += [
        "",
        f"Workloads with a single distinct program (every model picks it; left out of "
        f"both tables): {res['single_program_workloads']}.",
    ]
    lines += [
        "",
        f"Shared workloads excluded from the first table: {len(res['shared'])}. "
        f"Training networks: {', '.join(res['train_networks'])}.",
    ]
    if "mlp" in models:
        mode = res.get("mkl_cbwr")
        same = " (the same float arithmetic on every x86 CPU)" if mode == MKL_CBWR else ""
        lines += ["", f"MLPModel trained on one thread, MKL in reproducibility mode {mode}{same}."]
    if res.get("train_records"):
        total = sum(res["train_records"].values())
        lines += [
            "",
            f"Training records: the first {total:,} lines of the training networks' "
            "record files, as many as they had when the GNNs were trained (their "
            "checkpoints record it); every row saw exactly these.",
        ]
    return "\n".join(lines) + "\n"


def _runs_table(res: dict) -> list[str]:
    """Per run (GNN checkpoint or baseline seed) pairwise and top-1 on unshared workloads, their
    mean and standard deviation, and the GNN/XGBModel error ratio with its bootstrap interval."""
    models = res["models"]
    lines = [
        "",
        "### Runs (unshared workloads, average over networks)",
        "",
        "| model | runs | pairwise per run | pairwise mean | std "
        "| top-1 per run | top-1 mean | std |",
        "|---|---:|---|---:|---:|---|---:|---:|",
    ]
    for name, m in models.items():
        runs = m.get("runs", [])
        pw = np.array([r["unshared"]["pairwise"] for r in runs])
        t1 = np.array([r["unshared"]["top1"] for r in runs])
        lines.append(
            f"| {name} | {len(runs)} | {' '.join(_num(x) for x in pw)} | {_num(pw.mean())} | "
            f"{_num(pw.std(ddof=1)) if len(pw) > 1 else '-'} | {' '.join(_num(x) for x in t1)} | "
            f"{_num(t1.mean())} | {_num(t1.std(ddof=1)) if len(t1) > 1 else '-'} |"
        )
    p = res.get("protocol")
    if p:
        g = 1 - models["gnn"]["unshared"]["average"]["pairwise"]
        x = 1 - models["xgb"]["unshared"]["average"]["pairwise"]
        lines += [
            "",
            f"GNN pairwise error / XGBModel pairwise error (unshared workloads, mean of "
            f"{p['gnn_runs']} GNN and {p['xgb_runs']} XGBModel runs): {g:.3f} / {x:.3f} = "
            f"**{p['ratio']:.2f}x**, {p['level']:.0%} bootstrap interval "
            f"[{p['low']:.2f}, {p['high']:.2f}] ({p['bootstrap']} resamples of the "
            f"{p['workloads']} workloads, within each network). Target: at most 0.67x, the "
            "interval's upper end below 1.0.",
        ]
    p = res.get("protocol_native")
    if p:
        lines += [
            "",
            f"xgb-native against XGBModel (unshared workloads, {p['gnn_runs']} and "
            f"{p['xgb_runs']} runs): pairwise **{p['difference']:+.3f}** "
            f"[{p['difference_low']:+.3f}, {p['difference_high']:+.3f}], error ratio "
            f"{p['ratio']:.2f}x [{p['low']:.2f}, {p['high']:.2f}] ({p['level']:.0%} bootstrap "
            f"intervals, {p['bootstrap']} resamples of the {p['workloads']} workloads within "
            "each network). Target: pairwise within 0.01 of XGBModel's.",
        ]
    lines.append("")
    return lines


def plot(res: dict, path) -> None:
    """Bar plot of the averaged metrics on unshared workloads, one bar group per metric."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = list(res["models"])
    metrics = ("pairwise", "top1", "top5")
    fig, ax = plt.subplots(figsize=(8, 4))
    width = 0.8 / len(names)
    for i, name in enumerate(names):
        avg = res["models"][name]["unshared"]["average"]
        xs = np.arange(len(metrics)) + i * width
        ax.bar(xs, [avg[m] for m in metrics], width, label=name)
    ax.set_xticks(np.arange(len(metrics)) + 0.4 - width / 2)
    ax.set_xticklabels(["pairwise accuracy", "top-1 score", "top-5 score"])
    ax.set_ylim(0, 1.15)
    ax.set_title(f"Held-out networks ({', '.join(res['held_out'])}), unshared workloads")
    ax.legend(fontsize=8, loc="upper left", ncol=3)
    ax.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    atomic.save_figure(fig, path, dpi=120)
    plt.close(fig)
