# Licensed under the Apache License, Version 2.0.
"""The per-network seed table: each network's head-to-head ratio per seed, read against the
targets, from the runs ``tune_networks.py`` archived (it tunes nothing and times nothing).

For every network of the plan (``NETWORK:TRIALS:SEEDS``; default the three networks, budgets
and seed counts of issue 29), it reads the GNN's runs from ``ARCHIVE-NAME`` (``--weights-name``)
and XGBModel's from ``ARCHIVE``, as ``tune_networks.py --weights-name NAME`` keeps them, and
the head-to-head timing of the network's runs (``ARCHIVE-NAME/<network>/head_to_head.json``).
Only seeds that are in that timing count. Per network it gives:

- the GNN's network over XGBModel's of the same seed, timed in turn (median over rounds), per
  seed, with the rounds the GNN was faster; the median over seeds with their range, and the
  geometric mean with a 95% t-interval over seeds (on the log ratios);
- per seed, the trials after which the GNN's estimate reached XGBModel's final estimate (median
  over XGBModel's seeds, as ``tune_networks.py`` reads it), and the median over seeds. The
  estimate exists only once every task has a measured candidate (the task scheduler's first
  pass), so no cost model reaches it sooner: the table says where that floor was the answer;
- the cost model's share of tuning wall-clock (median over the GNN's runs);
- the verdict against the targets (median ratio <= 0.95; reached in <= 1/3 of the trials;
  cost model <= 10%), ``pending`` while a network has fewer seeds than planned;
- the finished runs it cannot read yet: one model's run of a seed without the other's, and
  runs of both that the head-to-head timing does not hold (``tune_networks.py`` times only
  the seeds of its ``--seeds``, so a network's runs are timed with all of them in one command);
- where the GNN's schedules win and lose: per task, the weighted gap between the GNN's best and
  XGBModel's after the full budget, read from the runs' databases. The databases key tasks by
  workload hash; their names and weights are extracted with TVM once per network and kept in
  ``ARCHIVE-NAME/<network>/tasks.json``.

The table goes to ``docs/networks.md`` (section ``tune-networks-seeds-NAME``, in "Status now")
and its numbers to ``benchmarks/results/tune_networks_seeds_NAME.json``::

    .venv/bin/python benchmarks/tuning/network_seeds.py --weights-name relational
"""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path

import numpy as np
import tuning_runs as tn

from tvm_gnn import atomic, report

ROOT = Path(__file__).resolve().parents[2]
PLAN = ("resnet18:480:3", "mobilenet_v2:1000:3", "inception_v3:1500:2")
RATIO_TARGET = 0.95
REACH_TARGET = 1 / 3
SHARE_TARGET = 0.10


def task_gaps(archive: Path, name: str, net: str, trials: int, seeds: list[int]) -> dict:
    """Where the GNN's schedules win and lose against XGBModel's after ``trials``: per task, the
    weighted gap (weight x (GNN's best - XGBModel's best of the same seed), ms; median over
    ``seeds``) and each model's trials on it (median over seeds)."""
    weighted = Path(f"{archive}-{name}")
    log = json.loads((weighted / net / "gnn" / f"seed{seeds[0]}" / "tune_log.json").read_text())
    tasks = tn.task_map(weighted, net, log["target"])  # one network, one target: one task map
    per_task: dict[str, dict[str, list]] = {}
    for seed in seeds:
        gnn_dir = weighted / net / "gnn" / f"seed{seed}"
        xgb_dir = archive / net / "xgb" / f"seed{seed}"
        (mine, mine_spent), (theirs, theirs_spent) = (
            tn.best_per_task(gnn_dir, trials),
            tn.best_per_task(xgb_dir, trials),
        )
        for key, task in tasks.items():
            row = per_task.setdefault(task["name"], {"gap_ms": [], "gnn": [], "xgb": []})
            gap = task["weight"] * (mine.get(key, math.nan) - theirs.get(key, math.nan)) * 1e3
            row["gap_ms"].append(gap)
            row["gnn"].append(mine_spent.get(key, 0))
            row["xgb"].append(theirs_spent.get(key, 0))
    return {
        task: {
            "gap_ms": float(np.median(v["gap_ms"])),
            "gnn_trials": float(np.median(v["gnn"])),
            "xgb_trials": float(np.median(v["xgb"])),
        }
        for task, v in per_task.items()
    }


def network_row(archive: Path, name: str, net: str, trials: int, planned: int) -> dict:
    """One network's numbers (``seeds`` empty when no head-to-head timing is archived)."""
    weighted = Path(f"{archive}-{name}")
    h2h_path = weighted / net / "head_to_head.json"
    row = {"network": net, "trials": trials, "seeds_planned": planned, "seeds": {}}
    gnn, xgb = tn.archived_logs(weighted, net, "gnn"), tn.archived_logs(archive, net, "xgb")
    # finished runs the table cannot read yet: one model's only, or both but not timed in turn
    row["one_model"] = {"gnn": sorted(set(gnn) - set(xgb)), "xgb": sorted(set(xgb) - set(gnn))}
    row["untimed"] = sorted(set(gnn) & set(xgb))
    if not h2h_path.exists():
        return row
    h2h = json.loads(h2h_path.read_text())
    if h2h["budget"] != trials:
        raise SystemExit(
            f"{h2h_path} timed the networks after {h2h['budget']} trials, not {trials}"
        )
    ratios = tn.seed_ratios(h2h["times"], "gnn")
    row["untimed"] = [s for s in row["untimed"] if s not in ratios]
    finals = [tn.estimate_at(xgb[s]["curve"], xgb[s]["trials"]) for s in ratios if s in xgb]
    xgb_final = float(np.median(finals)) if finals else math.nan
    for seed, (ratio, wins, rounds) in ratios.items():
        log = gnn.get(seed)
        reach = tn.trials_to_reach(log["curve"], xgb_final) if log else None
        row["seeds"][seed] = {
            "ratio": ratio,
            "rounds_faster": wins,
            "rounds": rounds,
            "trials_to_xgb_final": reach,
            # before every task has a measured candidate there is no estimate to compare
            "first_estimate": first_estimate(log["curve"]) if log else None,
            "cost_model_share": tn.cost_model_share(log) if log else None,
            "xgb_cost_model_share": tn.cost_model_share(xgb[seed]) if seed in xgb else None,
        }
    row["xgb_final_estimate_ms"] = xgb_final * 1e3
    row["tasks"] = task_gaps(archive, name, net, trials, [s for s in ratios if s in gnn])
    row["machine"] = h2h.get("cpu")
    row["cores"] = next((lg.get("cpu_count") for lg in gnn.values()), None)
    return row


def first_estimate(curve: list[dict]) -> int | None:
    """The first trial count with an estimate: the task scheduler's first pass is over."""
    return next((p["trials"] for p in curve if p["estimated_latency_s"] is not None), None)


def _median_reach(reach: list[int | None], trials: int) -> float:
    """Median trials to reach, a run that never reached it counted as past its budget."""
    return float(np.median([trials + 1 if r is None else r for r in reach]))


def medians(row: dict) -> tuple[float, float, float]:
    """A network's median over seeds of the head-to-head ratio, of the trials to XGBModel's final
    estimate (:func:`_median_reach`) and of the GNN's cost-model share."""
    seeds = row["seeds"].values()
    shares = [s["cost_model_share"] for s in seeds if s["cost_model_share"] is not None]
    return (
        float(np.median([s["ratio"] for s in seeds])),
        _median_reach([s["trials_to_xgb_final"] for s in seeds], row["trials"]),
        float(np.median(shares)) if shares else math.nan,
    )


def verdicts(row: dict) -> dict[str, str]:
    seeds = row["seeds"]
    if not seeds:
        return dict.fromkeys(("ratio", "reach", "share"), "not tuned yet")
    full = len(seeds) >= row["seeds_planned"]
    ratio, reach, share = medians(row)

    def read(ok: bool) -> str:
        return (
            ("met" if ok else "missed")
            if full
            else (
                f"pending ({len(seeds)} of {row['seeds_planned']} seeds; so far "
                + ("met" if ok else "missed")
                + ")"
            )
        )

    floor = float(np.median([s["first_estimate"] or math.nan for s in seeds.values()]))
    reach_text = read(reach <= REACH_TARGET * row["trials"])
    if reach > REACH_TARGET * row["trials"] and reach == floor:
        reach_text += (
            f": reached at the first estimate, which exists only from trial {floor:.0f} "
            f"({floor / row['trials']:.0%})"
        )
    return {
        "ratio": read(ratio <= RATIO_TARGET),
        "reach": reach_text,
        "share": read(share <= SHARE_TARGET),
    }


def table(rows: list[dict], command: str) -> str:
    machines = sorted({f"{r['machine']}, {r['cores']} cores" for r in rows if r.get("machine")})
    out = [
        f"{'; '.join(machines) or 'no runs yet'}; `{command}`.",
        "",
        "| network | trials | seeds | GNN / XGBModel head to head, per seed (rounds GNN faster) "
        "| median over seeds [range] | geometric mean [95% t-interval over seeds] "
        "| trials to XGBModel's final estimate, per seed | median | GNN cost-model share |",
        "|---|---:|---:|---|---:|---:|---|---:|---:|",
    ]
    for r in rows:
        seeds = r["seeds"]
        if not seeds:
            out.append(
                f"| {r['network']} | {r['trials']} | 0 of {r['seeds_planned']} | "
                "not tuned yet | - | - | - | - | - |"
            )
            continue
        ratios = [s["ratio"] for s in seeds.values()]
        each = ", ".join(
            f"{s['ratio']:.3f}x ({s['rounds_faster']} of {s['rounds']})" for s in seeds.values()
        )
        reach = [s["trials_to_xgb_final"] for s in seeds.values()]
        reach_each = ", ".join(
            "not reached"
            if x is None
            else f"{x} (the first estimate)"
            if x == s["first_estimate"]
            else str(x)
            for x, s in zip(reach, seeds.values())
        )
        median_ratio, med_reach, share = medians(r)
        med_text = (
            "not reached"
            if med_reach > r["trials"]
            else f"{med_reach:.0f} ({med_reach / r['trials']:.0%})"
        )
        geo, low, high = tn.log_interval(ratios)
        interval = f" [{low:.3f}, {high:.3f}]" if math.isfinite(low) else " (one seed)"
        out.append(
            f"| {r['network']} | {r['trials']} | {len(seeds)} of {r['seeds_planned']} | {each} | "
            f"**{median_ratio:.3f}x** [{min(ratios):.3f}, {max(ratios):.3f}] | "
            f"{geo:.3f}x{interval} | "
            f"{reach_each} | {med_text} | {share:.1%} |"
        )
    out += ["", "| target | " + " | ".join(r["network"] for r in rows) + " |"]
    out.append("|---|" + "---|" * len(rows))
    labels = {
        "ratio": f"median head-to-head ratio <= {RATIO_TARGET}",
        "reach": "XGBModel's final estimate reached in <= 1/3 of the trials (median)",
        "share": f"cost model <= {SHARE_TARGET:.0%} of tuning wall-clock",
    }
    got = [verdicts(r) for r in rows]
    for key, label in labels.items():
        out.append(f"| {label} | " + " | ".join(v[key] for v in got) + " |")
    waiting = [line for r in rows for line in not_read(r)]
    if waiting:
        out += ["", "Finished runs the table does not read yet:", "", *waiting]
    lines = [line for r in rows if r["seeds"] for line in [where(r)]]
    if lines:
        out += [
            "",
            "Where the GNN's schedules win and lose, after the full budget (per task: weight x "
            "(the GNN's best - XGBModel's best of the same seed), ms, median over seeds; the "
            "trials each model gave the task in brackets, GNN / XGBModel):",
            "",
            *lines,
        ]
    return "\n".join(out)


def not_read(row: dict) -> list[str]:
    """A line per kind of finished run that is not in the table yet."""
    out = []
    names = {"gnn": "the GNN", "xgb": "XGBModel"}
    for model, seeds in row["one_model"].items():
        if seeds:
            other = names["xgb" if model == "gnn" else "gnn"]
            out.append(
                f"- {row['network']}: seed {', '.join(map(str, seeds))} tuned by "
                f"{names[model]} only; {other}'s run of the same seed is still to come."
            )
    if row["untimed"]:
        out.append(
            f"- {row['network']}: seed {', '.join(map(str, row['untimed']))} tuned by both "
            "but not timed head to head; `tune_networks.py` with every seed in one `--seeds` "
            "times them all in turn."
        )
    return out


def where(row: dict, top: int = 3) -> str:
    tasks = sorted(row["tasks"].items(), key=lambda kv: kv[1]["gap_ms"])

    def cell(item) -> str:
        task, v = item
        return f"`{task}` {v['gap_ms']:+.2f} ({v['gnn_trials']:.0f} / {v['xgb_trials']:.0f})"

    net = sum(v["gap_ms"] for _, v in tasks)
    return (
        f"- {row['network']}: in all {net:+.2f} ms against XGBModel's estimate of "
        f"{row['xgb_final_estimate_ms']:.2f} ms. Behind most on "
        + ", ".join(cell(t) for t in reversed(tasks[-top:]) if t[1]["gap_ms"] > 0)
        + "; ahead most on "
        + ", ".join(cell(t) for t in tasks[:top] if t[1]["gap_ms"] < 0)
        + "."
    )


def parse_plan(items: list[str], error) -> list[tuple[str, int, int]]:
    plan = []
    for item in items:
        parts = item.split(":")
        if len(parts) != 3 or not parts[1].isdigit() or not parts[2].isdigit():
            error(f"--plan {item!r}: write NETWORK:TRIALS:SEEDS, e.g. resnet18:480:3")
        plan.append((parts[0], int(parts[1]), int(parts[2])))
    return plan


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--weights-name", required=True, help="the GNN runs' --weights-name")
    p.add_argument(
        "--archive",
        default=None,
        help="XGBModel's archive, as tune_networks.py keeps it (default: "
        "benchmarks/tuning-runs/HARDWARE of this machine); the GNN's is ARCHIVE-NAME",
    )
    p.add_argument("--plan", nargs="+", default=list(PLAN), help="NETWORK:TRIALS:SEEDS ...")
    p.add_argument("--doc", default=str(ROOT / "docs" / "networks.md"))
    p.add_argument(
        "--json",
        default=None,
        help="where the numbers go (default: benchmarks/results/tune_networks_seeds_NAME.json)",
    )
    p.add_argument("--no-write", action="store_true", help="print, do not touch docs/")
    return p


def main(argv: list[str] | None = None) -> None:
    p = parser()
    args = p.parse_args(argv)
    plan = parse_plan(args.plan, p.error)
    archive = Path(args.archive) if args.archive else tn.this_machines_archive()
    if not archive.is_dir():
        p.error(f"--archive {archive}: no such folder")
    shown = archive.resolve()
    shown = shown.relative_to(ROOT) if shown.is_relative_to(ROOT) else shown
    command = (
        f".venv/bin/python benchmarks/tuning/network_seeds.py --weights-name {args.weights_name} "
        f"--archive {shown}" + ("" if args.plan == list(PLAN) else f" --plan {' '.join(args.plan)}")
    )
    rows = [network_row(archive, args.weights_name, *item) for item in plan]
    body = table(rows, command)
    print(body)
    if not args.no_write:
        name = f"tune-networks-seeds-{args.weights_name}"
        report.write_section(args.doc, name, body, title="Tuning")
        out = args.json or ROOT / "benchmarks" / "results" / f"{name.replace('-', '_')}.json"
        atomic.write_json(out, {"command": command, "networks": rows})


if __name__ == "__main__":
    main()
