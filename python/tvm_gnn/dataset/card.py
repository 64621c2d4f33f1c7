# Licensed under the Apache License, Version 2.0.
"""The dataset card: what :func:`tvm_gnn.dataset.counts.stats` counted, as markdown (the summary
lines, the per-network table, what collecting more would add) and as a plot."""

from __future__ import annotations

import numpy as np

from .. import atomic
from .rates import no_runs, rate_line, seconds_a_record


def summary_markdown(st: dict) -> str:
    """One line per hardware folder: its records, workloads, networks and synthetic families,
    the networks collection has not finished, and the collection rate (the card's opening)."""
    lines = []
    for hw, t in st["per_hardware"].items():
        part = [
            f"{n['network']} ({n['tasks'] - n['tasks_unmeasured']} of its {n['tasks']} tasks)"
            for n in st["networks"]
            if n["hardware"] == hw and n["tasks_unmeasured"]
        ]
        per_record = seconds_a_record(st["collection"].get(hw, no_runs()))
        families = _count(
            t["synthetic"], "synthetic operator family", "synthetic operator families"
        )
        line = (
            f"**{hw}: {_count(t['valid'], 'valid record')} over "
            f"{_count(t['workloads'], 'distinct workload')}, "
            f"from {_count(t['networks'], 'network')} and {families}**"
        )
        line += f"; measured in part: {', '.join(part)}" if part else "; every task measured"
        if per_record is not None:
            line += f"; collected at {per_record:.2f} s a record"
        lines.append(line + ".")
    return "\n\n".join(lines)


def _count(n: int, one: str, many: str | None = None) -> str:
    return f"{n:,} {one if n == 1 else many or one + 's'}"


def would_add_markdown(rows: list[dict], hardware: str, rate: float | None, trials: int = 32):
    """``would_add``'s rows as a table, with what collecting each network would cost: ``collect``
    measures ``trials`` records of every task of a network, its shared workloads too, so the
    cost is its tasks' records at ``hardware``'s measured rate (an upper bound: a workload whose
    design space runs out stops early, and a network already begun needs fewer). The last line
    adds the cost with ``collect --skip-shared``, which measures the new workloads only (about:
    a known workload whose records elsewhere are still short is measured too)."""
    out = [
        f"Workloads each network would add to the dataset's {hardware} part (its tasks.json "
        "files, measured or queued):",
        "",
        "| network | tasks | workloads | new to the dataset | new after the networks above | "
        f"records to collect ({trials} a task) | hours |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        records = r["tasks"] * trials
        hours = "-" if rate is None else f"{records * rate / 3600:.1f}"
        out.append(
            f"| {r['network']} | {r['tasks']} | {r['workloads']} | {r['new']} | "
            f"{r['new_after_above']} | {records} | {hours} |"
        )
    new = sum(r["new_after_above"] for r in rows)
    records = sum(r["tasks"] for r in rows) * trials
    out += ["", f"In all: {new} new workloads from {records} records"]
    if rate is not None:
        out[-1] += f", about {records * rate / 3600:.1f} h at {rate:.2f} s a record"
    else:
        out[-1] += f" (no timed collection on {hardware} yet, so no time estimate)"
    out[-1] += f"; with collect --skip-shared, from about {new * trials} records"
    if rate is not None:
        out[-1] += f" ({new * trials * rate / 3600:.1f} h)"
    return "\n".join(out)


def stats_markdown(st: dict) -> str:
    rows = [
        "| network | hardware | tasks | workloads measured | valid | distinct traces | failed | "
        "invalid | workloads < 32 valid (exhausted) | workloads > 32 valid | "
        "workloads a held-out network has | workloads no other network has | latency range (ms) |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    tot = {"valid": 0, "distinct": 0, "failed": 0, "invalid_latency": 0, "workloads_over_32": 0}
    for n in st["networks"]:
        rng = f"{n['min_ms']:.4f} - {n['max_ms']:.2f}" if n["min_ms"] is not None else "-"
        left = n.get("tasks_left", 0)
        tasks = f"{n['tasks']} ({left} left to others)" if left else n["tasks"]
        rows.append(
            f"| {n['network']} | {n['hardware']} | {tasks} | {n['workloads_measured']} | "
            f"{n['valid']} | {n['distinct']} | {n['failed']} | {n['invalid_latency']} | "
            f"{n['workloads_under_32']} ({n['under_32_exhausted']}) | "
            f"{n['workloads_over_32']} | "
            f"{'held out' if n['shares_held_out'] is None else n['shares_held_out']} | "
            f"{n['only_here']} | {rng} |"
        )
        for k in tot:
            tot[k] += n[k]
    rows.append(
        f"| **total** | | | {st['distinct_workloads']} distinct | {tot['valid']} | "
        f"{tot['distinct']} | {tot['failed']} | {tot['invalid_latency']} | | "
        f"{tot['workloads_over_32']} | {len(st['shared_with_held_out'])} distinct | | |"
    )
    if len(st["per_hardware"]) > 1:  # the targets are per CPU
        rows += [
            f"| **total** | {hw} | | {t['workloads']} distinct | {t['valid']} | | | | | | | | |"
            for hw, t in st["per_hardware"].items()
        ]
    rows += [""] + [rate_line(hw, r) for hw, r in st["collection"].items()]
    shared = st["shared_with_held_out"]
    rows += ["", f"Workloads shared between held-out and training networks: {len(shared)}"]
    rows += [f"- `{h}`: {', '.join(ns)}" for h, ns in shared.items()]
    return "\n".join(rows)


def stats_figure(st: dict):
    """The dataset's breadth at a glance: per network (fewest workloads at the bottom), its
    measured workloads, those no other network has in colour (red for a held-out network), and
    the range of its measured latencies. A matplotlib Figure; :func:`stats_plot` saves it."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    nets = sorted(st["networks"], key=lambda n: (n["workloads_measured"], n["network"]))
    several = len(st["per_hardware"]) > 1
    labels = [n["network"] + (f" ({n['hardware']})" if several else "") for n in nets]
    held = [n["shares_held_out"] is None for n in nets]
    only = [n["only_here"] for n in nets]
    shared = [n["workloads_measured"] - n["only_here"] for n in nets]
    y = np.arange(len(nets))
    fig, (wl, lat) = plt.subplots(
        1, 2, figsize=(11, 1.6 + 0.17 * len(nets)), sharey=True, width_ratios=(3, 2)
    )
    colours = ["tab:red" if h else "tab:blue" for h in held]
    wl.barh(y, only, color=colours, label="no other network has it (red: a held-out network)")
    wl.barh(y, shared, left=only, color="lightgray", label="another network has it too")
    wl.set_yticks(y, labels, fontsize=7)
    wl.set_xlabel("workloads measured")
    wl.legend(fontsize=7, loc="lower right")
    for i, n in enumerate(nets):
        if n["min_ms"] is not None:
            lat.plot([n["min_ms"], n["max_ms"]], [i, i], color=colours[i], lw=2.5)
    lat.set_xscale("log")
    lat.set_xlabel("latency of the measured programs (ms)")
    for ax in (wl, lat):
        ax.grid(axis="x", alpha=0.3)
        ax.set_ylim(-0.7, len(nets) - 0.3)
    fig.suptitle(
        "; ".join(
            f"{hw}: {t['valid']:,} valid records, {t['workloads']:,} distinct workloads"
            for hw, t in st["per_hardware"].items()
        ),
        fontsize=9,
    )
    fig.tight_layout()
    return fig


def stats_plot(st: dict, path) -> None:
    """:func:`stats_figure` as a PNG at ``path``."""
    import matplotlib.pyplot as plt

    fig = stats_figure(st)
    atomic.save_figure(fig, path, dpi=110)
    plt.close(fig)
