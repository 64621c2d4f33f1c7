# Licensed under the Apache License, Version 2.0.
"""What the evolutionary-search half of each task's records adds over its uniform half.

``collect`` measures each task's first ``trials_per_task * uniform_fraction`` programs by uniform
draws from the design space, then the rest from MetaSchedule's evolutionary search, into one
record file in that order. This reads every workload of a hardware folder whose network folder's
runs all used the same mixed settings (0 < ``uniform_fraction`` < 1), takes its first
``trials_per_task`` records in file order (failed ones hold their place), and compares the two
halves' valid latencies. If the search found faster programs than chance, its records' median,
10th percentile and best would sit below the uniform half's. Had the two halves come from one
distribution, their log ratios would centre on 0 and a search record would beat the uniform
half's best with probability 1/(n+1) for n uniform records: the null line of the table.
Geometric means with bootstrap 95% intervals over workloads. Writes a section of docs/collection.md
and JSON here.

    .venv/bin/python benchmarks/data/search_half.py --data data --hardware llvm-amd-epyc-2c
"""

from __future__ import annotations

import argparse
import datetime
from collections import defaultdict
from pathlib import Path

import numpy as np

from tvm_gnn import report
from tvm_gnn.cli.common import hardware_args, resolved_hardware

ROOT = Path(__file__).resolve().parents[2]
JSON_DIR = ROOT / "benchmarks" / "results"


def mixed_settings(folder: Path) -> tuple[int, int] | None:
    """``(trials_per_task, uniform records)`` when every run of ``folder`` measured a uniform
    half and a search half with the same settings, else None."""
    from tvm_gnn.dataset.layout import read_provenance

    settings = {
        (c.get("trials_per_task"), c.get("uniform_fraction"))
        for c in (run.get("collect", {}) for run in read_provenance(folder))
    }
    if len(settings) != 1:
        return None
    ((trials, fraction),) = settings
    if not trials or fraction is None or not 0 < fraction < 1:
        return None
    uniform = round(trials * fraction)
    return (trials, uniform) if 0 < uniform < trials else None


def halves(folder: Path) -> list[tuple[np.ndarray, np.ndarray]]:
    """Per workload with at least ``trials_per_task`` records: the valid latencies of its
    uniform records and of its search records (the first ``trials_per_task``, file order)."""
    from tvm_gnn.dataset import dbfile
    from tvm_gnn.dataset.layout import open_db_folder

    settings = mixed_settings(folder)
    if settings is None:
        return []
    trials, uniform = settings
    scan = dbfile.read_records(open_db_folder(folder))
    by_workload = defaultdict(list)
    for r in scan.records:
        by_workload[scan.workload_hashes[r.workload]].append(r)
    out = []
    for recs in by_workload.values():
        if len(recs) < trials:
            continue
        u = np.array([r.latency for r in recs[:uniform] if not r.failed])
        s = np.array([r.latency for r in recs[uniform:trials] if not r.failed])
        if len(u) >= 4 and len(s) >= 4:
            out.append((u, s))
    return out


def compare(pairs, seed: int = 0, draws: int = 2000) -> dict:
    """The search half against the uniform half over ``pairs`` (uniform, search latencies):
    geometric-mean ratios of median, 10th percentile and best, the share of search records
    below the uniform best against its 1/(n+1) null, each with a bootstrap 95% interval."""
    logs = {
        "median": [np.log(np.median(s) / np.median(u)) for u, s in pairs],
        "p10": [np.log(np.percentile(s, 10) / np.percentile(u, 10)) for u, s in pairs],
        "best": [np.log(s.min() / u.min()) for u, s in pairs],
    }
    beats = np.array([np.mean(s < u.min()) for u, s in pairs])
    null = np.array([1 / (len(u) + 1) for u, _ in pairs])
    rng = np.random.default_rng(seed)
    picks = rng.integers(0, len(pairs), size=(draws, len(pairs)))
    out = {"workloads": len(pairs)}
    for name, values in logs.items():
        v = np.asarray(values)
        out[name] = [float(np.exp(v.mean())), *np.exp(np.percentile(v[picks].mean(1), [2.5, 97.5]))]
        out[f"{name}_below"] = float(np.mean(v < 0))
    lo, hi = np.percentile(beats[picks].mean(1), [2.5, 97.5])
    out["beats_best"] = [float(beats.mean()), float(lo), float(hi)]
    out["beats_best_null"] = float(null.mean())
    return out


def table(result: dict) -> str:
    ratio = "| {} | {:.3f} [{:.3f}, {:.3f}] | 1 | {:.1%} |"
    rows = [
        "| search half against uniform half | geometric mean [95%] | if alike | workloads "
        "where the search's is lower |",
        "|---|---:|---:|---:|",
        ratio.format("median latency", *result["median"], result["median_below"]),
        ratio.format("10th-percentile latency", *result["p10"], result["p10_below"]),
        ratio.format("best latency", *result["best"], result["best_below"]),
        "| share of search records faster than the uniform half's best | "
        "{:.3f} [{:.3f}, {:.3f}] | {:.3f} | |".format(
            *result["beats_best"], result["beats_best_null"]
        ),
    ]
    return "\n".join(rows)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    hardware_args(p)
    p.add_argument("--seed", type=int, default=0, help="bootstrap seed (default 0)")
    p.add_argument("--doc", default=str(ROOT / "docs" / "collection.md"), help="markdown to write")
    p.add_argument("--no-write", action="store_true", help="print only")
    args = p.parse_args(argv)
    hardware = resolved_hardware(p, args)
    from tqdm import tqdm

    folders = sorted(f for f in (Path(args.data) / hardware).iterdir() if f.is_dir())
    pairs, networks = [], 0
    for folder in tqdm(folders, desc="network folders", unit="folder", leave=False):
        found = halves(folder)
        pairs += found
        networks += bool(found)
    if not pairs:
        p.error(f"no workload of {hardware} has a uniform half and a search half to compare")
    result = {"hardware": hardware, "networks": networks, **compare(pairs, args.seed)}
    command = (
        f".venv/bin/python benchmarks/data/search_half.py --data {args.data} --hardware {hardware}"
    )
    text = (
        f"{hardware}: {result['workloads']:,} workloads of {networks} network folders, each "
        f"task's first records as `collect` measured them. Command: `{command}` "
        f"({datetime.date.today()}).\n\n{table(result)}"
    )
    print(text)
    if not args.no_write:
        report.write_section(args.doc, f"search-half-{hardware}", text)
        report.write_json(JSON_DIR / f"search_half_{hardware}.json", result)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
