# Licensed under the Apache License, Version 2.0.
"""How fast was each collection run's machine? A sample of every run's records, timed again here.

Each session collects on the machine it draws, and "AMD EPYC, 2 cores" has been more than one CPU
(docs/dataset.md, "Hardware and settings"): a Zen 3 and a Zen 4 at least, and runs before
2026-11-30 did not record which. Records of one workload measured on two machines are compared
when a model learns to rank them, so a run on a faster machine makes its programs look faster
than their neighbours from another run. This measures it.

For every run span (:func:`tvm_gnn.dataset.provenance.run_spans`) of at least ``--min-lines`` record
lines, up to ``--workloads`` workloads with ``--per-workload`` valid records each, drawn from the
span's lines at least ``--margin`` lines from its ends (a killed run's count can misplace the
boundary by a task), are built and timed again on this machine, one span at a time, with the
settings their run recorded. Spans are visited in a seeded random order, so that drift on this
machine spreads over all of them. Per span:

- **speed ratio**: the geometric mean of stored / new latency: below 1, the run's machine was
  faster than this one; 95% percentile bootstrap interval over the records;
- **agreement**: of the pairs of records of one workload, the share that the stored latencies
  order as the new ones do (the eval's pairwise accuracy).

Results append to ``--out``, one JSON line a span, so a killed run resumes where it stopped.
``--report`` writes the table and plot from what is there without timing anything.

    .venv/bin/python benchmarks/speed/run_speeds.py --data data
"""

from __future__ import annotations

import argparse
import datetime
import functools
import json
import random
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "python"))

from tvm_gnn import dataset as data  # noqa: E402
from tvm_gnn import report  # noqa: E402
from tvm_gnn.cli.common import hardware_args, resolved_hardware  # noqa: E402
from tvm_gnn.dataset.provenance import run_spans  # noqa: E402

SECTION = "run-speeds"
OUT = ROOT / "benchmarks" / "results" / "run_speeds.jsonl"
PLOT = ROOT / "docs" / "run_speeds.png"


@functools.cache
def _valid_records(folder: Path) -> list:
    """The valid records of a network folder, read once for all its spans."""
    from tvm_gnn.dataset.dbfile import read_records
    from tvm_gnn.dataset.layout import open_db_folder

    return [r for r in read_records(open_db_folder(folder)).records if not r.failed]


def picks(folder: Path, span, args, rng: random.Random) -> list:
    """The records of ``span`` to time again: ``args.workloads`` workloads x ``per_workload``."""
    lo, hi = span.first + args.margin, span.last - args.margin
    by_wl: dict[int, list] = {}
    for r in _valid_records(folder):
        if lo <= r.line <= hi:
            by_wl.setdefault(r.workload, []).append(r)
    full = sorted(w for w, rs in by_wl.items() if len(rs) >= args.per_workload)
    chosen = rng.sample(full, min(args.workloads, len(full)))
    return [r for w in chosen for r in rng.sample(by_wl[w], args.per_workload)]


def time_again(folder: Path, records: list, measure: dict, tools: dict) -> list:
    """New latencies (None where the build or run failed) of ``records``, timed here."""
    from tvm.s_tir import meta_schedule as ms

    from tvm_gnn.collect.recording import measure_batch
    from tvm_gnn.costs import run_cost
    from tvm_gnn.dataset.dbfile import WORKLOAD_FILE
    from tvm_gnn.dataset.layout import open_db_folder
    from tvm_gnn.dataset.workloads import Workloads
    from tvm_gnn.measure.runner import MeasureConfig, make_runner

    key = json.dumps(measure, sort_keys=True)
    if key not in tools:
        tools[key] = make_runner(MeasureConfig(**measure))
    workloads = Workloads(folder, (open_db_folder(folder) / WORKLOAD_FILE).read_text().splitlines())
    recs = [ms.database.TuningRecord.from_json(r.raw, workloads[r.workload]) for r in records]
    cands = [t.as_measure_candidate() for t in recs]
    results = measure_batch(cands, recs[0].target, tools["builder"], tools[key])
    return [None if res.error_msg else run_cost(res.run_secs) for res in results]


def collect(args, hardware: str) -> None:
    from tqdm import tqdm

    from tvm_gnn.measure.builder import make_builder
    from tvm_gnn.measure.hardware import cpu_identity

    out = Path(args.out)
    done = set()
    if out.exists():
        done = {(d["network"], d["first"]) for d in map(json.loads, out.read_text().splitlines())}
    jobs = [
        (net, folder, span)
        for hw, net, folder in data.network_folders(args.data)
        if hw == hardware
        for span in run_spans(folder)
        if span.lines >= args.min_lines and (net, span.first) not in done
    ]
    rng = random.Random(args.seed)
    rng.shuffle(jobs)
    jobs = jobs[: args.max_spans]
    tools = {"builder": make_builder(timeout_sec=30.0)}
    here = cpu_identity().get("llvm")
    try:
        for net, folder, span in tqdm(jobs, desc="run spans", unit="span"):
            records = picks(folder, span, args, random.Random(f"{args.seed}:{net}:{span.first}"))
            if not records:
                continue
            measure = _measure_of(folder, span)
            now = time_again(folder, records, measure, tools)
            line = {
                "network": net,
                "first": span.first,
                "last": span.last,
                "date": span.date,
                "cpu": span.cpu,
                "counted": span.counted,
                "timed_on": here,
                "timed_at": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
                "records": [
                    {"line": r.line, "workload": r.workload, "stored": r.latency, "now": t}
                    for r, t in zip(records, now)
                ],
            }
            out.parent.mkdir(parents=True, exist_ok=True)
            with out.open("a") as f:
                f.write(json.dumps(line) + "\n")
    finally:
        tools["builder"].close()


def _measure_of(folder: Path, span) -> dict:
    """The measure settings of the run that wrote ``span`` (the folder's first run's for lines of
    uncounted runs: every run so far used the same)."""
    runs = data.layout.read_provenance(folder)
    run = next((r for r in runs if str(r.get("date")) == span.date), runs[0])
    return dict(run["measure"])


def summarize(lines: list[dict], seed: int) -> list[dict]:
    from tvm_gnn.nn.metrics import pairwise_accuracy

    rng = np.random.default_rng(seed)
    rows = []
    for d in lines:
        ok = [r for r in d["records"] if r["now"]]
        if len(ok) < 2:
            continue
        logr = np.log([r["stored"] / r["now"] for r in ok])
        boots = rng.choice(logr, size=(1000, len(logr))).mean(axis=1)
        stored = np.array([r["stored"] for r in ok])
        now = np.array([r["now"] for r in ok])
        groups = np.array([r["workload"] for r in ok])
        rows.append(
            {
                **{k: d[k] for k in ("network", "first", "last", "date", "cpu", "counted")},
                "timed": len(ok),
                "ratio": float(np.exp(logr.mean())),
                "lo": float(np.exp(np.percentile(boots, 2.5))),
                "hi": float(np.exp(np.percentile(boots, 97.5))),
                "agreement": float(pairwise_accuracy(1 / stored, 1 / now, groups)),
            }
        )
    return sorted(rows, key=lambda r: r["date"])


def cross_run_pairs(root, hardware: str) -> dict:
    """Of the pairs of valid records of one workload (what a ranking model compares), how many
    join records of two different run spans, and how many workloads have such a pair."""
    from tvm_gnn.dataset.dbfile import read_records
    from tvm_gnn.dataset.layout import open_db_folder

    pairs = cross = workloads = mixed = 0
    for hw, _, folder in data.network_folders(root):
        if hw != hardware:
            continue
        spans = run_spans(folder)
        ends = np.array([s.last for s in spans])
        per: dict[int, list[int]] = {}
        for r in read_records(open_db_folder(folder)).records:
            if not r.failed:
                per.setdefault(r.workload, []).append(int(np.searchsorted(ends, r.line)))
        for idx in per.values():
            counts = np.bincount(idx)
            n = len(idx)
            same = int((counts * (counts - 1) // 2).sum())
            pairs += n * (n - 1) // 2
            cross += n * (n - 1) // 2 - same
            workloads += 1
            mixed += int((counts > 0).sum() > 1)
    return {"pairs": pairs, "cross": cross, "workloads": workloads, "mixed": mixed}


def plot(rows: list[dict], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(10, 4.5))
    for label, pick, color in [
        ("runs that recorded znver3", lambda r: r["cpu"] == "znver3", "tab:red"),
        ("runs that did not record their CPU", lambda r: r["cpu"] is None, "tab:blue"),
    ]:
        sel = [r for r in rows if pick(r)]
        if not sel:
            continue
        x = [datetime.datetime.fromisoformat(r["date"]) for r in sel]
        y = np.array([r["ratio"] for r in sel])
        err = np.array([[r["ratio"] - r["lo"] for r in sel], [r["hi"] - r["ratio"] for r in sel]])
        ax.errorbar(x, y, yerr=err, fmt="o", ms=4, color=color, label=label, alpha=0.8)
    ax.axhline(1.0, color="grey", lw=0.8)
    ax.set_yscale("log")
    ax.set_ylabel("stored / re-timed latency\n(below 1: the run's machine was faster)")
    ax.set_xlabel("run start (UTC)")
    ax.set_title("Each collect run's records timed again on one machine (95% intervals)")
    ax.legend(loc="best", fontsize=8)
    fig.autofmt_xdate()
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _groups(rows: list[dict], here_since: str | None):
    """``(label, cpu, spans)`` per start day and recorded CPU (the runs since ``here_since``, on
    this machine, apart), then per recorded CPU over all the days before (label ``"all"``)."""

    def label(r):
        return "this machine" if here_since and r["date"] >= here_since else r["date"][:10]

    keys = sorted({(label(r), r["cpu"] or "-") for r in rows})
    for day, cpu in keys:
        yield day, cpu, [r for r in rows if label(r) == day and (r["cpu"] or "-") == cpu]
    before = [r for r in rows if label(r) != "this machine"]
    for cpu in sorted({r["cpu"] or "-" for r in before}):
        yield "all", cpu, [r for r in before if (r["cpu"] or "-") == cpu]


def _group_row(label: str, cpu: str, sel: list[dict], seed: int) -> str:
    ratios = np.array([r["ratio"] for r in sel])
    agree = np.array([r["agreement"] for r in sel if not np.isnan(r["agreement"])])
    boots = np.random.default_rng(seed).choice(agree, size=(1000, len(agree))).mean(axis=1)
    lo, hi = np.percentile(boots, [2.5, 97.5])
    return (
        f"| {len(sel)} | {'**all before this machine**' if label == 'all' else label} | {cpu} | "
        f"{np.exp(np.log(ratios).mean()):.2f} ({ratios.min():.2f}-{ratios.max():.2f}) | "
        f"{agree.mean():.2f} [{lo:.2f}, {hi:.2f}] |"
    )


def markdown(
    rows: list[dict], lines: list[dict], cross: dict, command: str, seed: int, here_since=None
) -> str:
    timed_on = sorted({d.get("timed_on") or "?" for d in lines})
    when = sorted(d["timed_at"] for d in lines)
    out = [
        f"Command: `{command}`",
        "",
        f"Pairs of valid records of one workload that join two run spans: {cross['cross']:,} of "
        f"{cross['pairs']:,} ({cross['cross'] / max(cross['pairs'], 1):.1%}); a network's "
        f"workloads with records from more than one span: {cross['mixed']:,} of "
        f"{cross['workloads']:,}.",
        "",
        f"Timed on the CPU LLVM names `{', '.join(timed_on)}`; {when[0][:16]} to "
        f"{when[-1][:16]} UTC; {len(rows)} run spans, "
        f"{sum(r['timed'] for r in rows):,} records timed again.",
        "",
        "| spans | run start | CPU recorded | speed ratio: geometric mean (range) | "
        "agreement: mean [95%] |",
        "|---|---|---|---|---|",
        *[_group_row(label, cpu, sel, seed) for label, cpu, sel in _groups(rows, here_since)],
        "",
        "| run start (UTC) | network | record lines | CPU recorded | timed | "
        "stored / now [95%] | agreement |",
        "|---|---|---|---|---:|---|---:|",
    ]
    for r in rows:
        span = f"{r['first']}-{r['last']}" + ("" if r["counted"] else " (uncounted)")
        out.append(
            f"| {r['date'][:16]} | {r['network']} | {span} | {r['cpu'] or '-'} | {r['timed']} | "
            f"{r['ratio']:.2f} [{r['lo']:.2f}, {r['hi']:.2f}] | {r['agreement']:.2f} |"
        )
    return "\n".join(out)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    hardware_args(parser)
    parser.add_argument("--min-lines", type=int, default=120, help="shortest span timed")
    parser.add_argument("--margin", type=int, default=48, help="lines kept from a span's ends")
    parser.add_argument("--workloads", type=int, default=3, help="workloads a span")
    parser.add_argument("--per-workload", type=int, default=4, help="records a workload")
    parser.add_argument("--seed", type=int, default=0, help="seeds the draws and the bootstrap")
    parser.add_argument("--max-spans", type=int, default=None, help="time at most this many")
    parser.add_argument("--out", default=str(OUT), help="JSON lines, one a span (resumable)")
    parser.add_argument("--report", action="store_true", help="only report what --out holds")
    parser.add_argument(
        "--here-since",
        default=None,
        metavar="ISO_UTC",
        help="runs that started after this time ran on this machine (its boot: uptime -s); "
        "the summary keeps them apart",
    )
    parser.add_argument("--doc", default=str(ROOT / "docs" / "collection.md"))
    parser.add_argument("--plot", default=str(PLOT))
    parser.add_argument("--no-write", action="store_true", help="print only")
    args = parser.parse_args(argv)
    hardware = resolved_hardware(parser, args)
    if not args.report:
        collect(args, hardware)
    lines = [json.loads(x) for x in Path(args.out).read_text().splitlines()]
    rows = summarize(lines, args.seed)
    cross = cross_run_pairs(args.data, hardware)
    command = f".venv/bin/python benchmarks/speed/run_speeds.py --data {args.data}"
    if args.here_since:
        command += f" --here-since {args.here_since}"
    body = markdown(rows, lines, cross, command, args.seed, args.here_since)
    print(body)
    if not args.no_write:
        plot(rows, Path(args.plot))
        report.write_section(args.doc, SECTION, body)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
