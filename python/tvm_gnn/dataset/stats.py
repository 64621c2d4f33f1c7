# Licensed under the Apache License, Version 2.0.
"""Per-network counts of a dataset (``tvm-gnn dataset-stats``) and the workloads it shares with
the held-out networks."""

from __future__ import annotations

import json

import numpy as np

from ..measure.synthetic import SYNTHETIC
from .layout import (
    check_root,
    network_folders,
    read_exhausted,
    read_shared,
    read_tasks,
)
from .rates import add_timed_runs, no_runs, rate_line, seconds_a_record
from .records import samples
from .splits import HELD_OUT


def stats(root, held_out=None) -> dict:
    """Per-network counts, latency range and workloads shared with the held-out networks.

    Each network also counts its workloads that a held-out network has (``shares_held_out``;
    ``None`` for a held-out network) and those no other network has (``only_here``).

    A workload under 32 valid records is either short (collection stopped in it, or it predates
    ``exhausted.json``) or complete with fewer programs than that: ``under_32_exhausted`` counts
    the latter, the workloads whose design space ``collect`` found no new program in. A task of
    ``tasks.json`` with no record at all, valid or failed, is ``tasks_unmeasured``: collection
    has not reached it yet; unless ``collect --skip-shared`` left it to another network's folder
    (its ``shared.json``), which ``tasks_left`` counts. ``workloads_over_32`` counts the
    workloads measured past 32 valid records: the wide tasks ``collect --wide-spread`` topped up
    (or, in a held-out network's folder, tuning runs' records).

    ``per_hardware`` totals each hardware folder: valid records, distinct workloads, how many
    folders are networks and how many synthetic operator families.
    """
    held_out = set(held_out or HELD_OUT)
    nets, by_wl, rates, per_hw = [], {}, {}, {}
    for hw, net, folder in network_folders(check_root(root)):
        add_timed_runs(rates.setdefault(hw, no_runs()), folder)
        got, scan = samples(folder)
        per_wl = {}
        traces = {r.line: json.dumps(r.trace, separators=(",", ":")) for r in scan.records}
        distinct = set()
        for s in got:
            per_wl[s.shash] = per_wl.get(s.shash, 0) + 1
            by_wl.setdefault(s.shash, set()).add(net)
            distinct.add((s.shash, traces[s.line]))
        lat = np.array([s.latency for s in got]) if got else np.zeros(0)
        short = {h for h, c in per_wl.items() if c < 32}
        tried = {scan.workload_hashes[r.workload] for r in scan.records}
        tasks = read_tasks(folder)
        left = {t["shash"] for t in tasks if t["shash"] not in tried} & set(read_shared(folder))
        reached = tried | left
        hw_total = per_hw.setdefault(
            hw, {"valid": 0, "workloads": set(), "networks": 0, "synthetic": 0}
        )
        hw_total["valid"] += len(got)
        hw_total["workloads"] |= set(per_wl)
        hw_total["synthetic" if net in SYNTHETIC else "networks"] += 1
        nets.append(
            {
                "network": net,
                "hardware": hw,
                "workloads": set(per_wl),
                "tasks": len(tasks),
                "tasks_unmeasured": sum(t["shash"] not in reached for t in tasks),
                "tasks_left": len(left),
                "workloads_measured": len(per_wl),
                "valid": len(got),
                "distinct": len(distinct),
                "failed": sum(r.failed for r in scan.records),
                "invalid_latency": len(scan.invalid_latency),
                "corrupt_lines": len(scan.problems),
                "workloads_under_32": len(short),
                "under_32_exhausted": len(short & read_exhausted(folder)),
                "workloads_over_32": sum(c > 32 for c in per_wl.values()),
                "min_ms": float(lat.min() * 1e3) if len(lat) else None,
                "max_ms": float(lat.max() * 1e3) if len(lat) else None,
            }
        )
    for n in nets:
        others = [by_wl[h] - {n["network"]} for h in n.pop("workloads")]
        shares = sum(bool(o & held_out) for o in others)
        n["shares_held_out"] = None if n["network"] in held_out else shares
        n["only_here"] = sum(not o for o in others)
    shared = sorted(h for h, ns in by_wl.items() if ns & held_out and ns - held_out)
    return {
        "networks": nets,
        "distinct_workloads": len(by_wl),
        "per_hardware": {hw: {**t, "workloads": len(t["workloads"])} for hw, t in per_hw.items()},
        "shared_with_held_out": {h: sorted(by_wl[h]) for h in shared},
        "collection": rates,
    }


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


def would_add(root, hardware: str, manifests: dict[str, list[dict]]) -> list[dict]:
    """How many workloads each candidate network would add to ``hardware``'s part of the dataset.

    ``manifests`` maps a network to its tasks as ``tasks.json`` keeps them (name, shash, weight),
    in the order the candidates are considered. The dataset's workloads are those of every
    ``tasks.json`` of the hardware's folders, measured or queued. Per network: its ``tasks``,
    distinct ``workloads``, those ``new`` to the dataset, and those new after the candidates
    before it (``new_after_above``: collecting them all in this order adds their sum).
    """
    known = set()
    root = check_root(root)
    for hw, _, folder in network_folders(root):
        if hw == hardware:
            known |= {t["shash"] for t in read_tasks(folder)}
    seen = set(known)
    rows = []
    for net, manifest in manifests.items():
        hashes = {t["shash"] for t in manifest}
        rows.append(
            {
                "network": net,
                "tasks": len(manifest),
                "workloads": len(hashes),
                "new": len(hashes - known),
                "new_after_above": len(hashes - seen),
            }
        )
        seen |= hashes
    return rows


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
    from pathlib import Path

    import matplotlib.pyplot as plt

    fig = stats_figure(st)
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
