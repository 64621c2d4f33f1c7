# Licensed under the Apache License, Version 2.0.
"""How well tvm_gnn's native per-store features agree with TVM's, and what they cost.

Samples measured programs of the dataset (every k-th record of each network of one hardware
folder, the held-out networks left out), computes each program's rows both ways (TVM's
``PerStoreFeature`` after its lowering passes; :func:`tvm_gnn.featurize.stores.store_features`
on the scheduled TIR) and reports, per column over the rows of programs where both give the
same number of rows: Spearman's rank correlation, the share of rows equal to 1e-3, and whether
TVM's column is constant there. It also times, on the same candidates, the walk alone (the GNN's
graphs), the native features alone, and TVM's extraction.

Writes a table into docs/featurizer.md (between markers) and JSON beside this file.

    .venv/bin/python benchmarks/speed/store_agreement.py                  # ~40 programs a network
    .venv/bin/python benchmarks/speed/store_agreement.py --per-network 10  # quicker
"""

from __future__ import annotations

import argparse
import datetime
import time
from pathlib import Path

import numpy as np

from tvm_gnn import report

ROOT = Path(__file__).resolve().parents[2]
MARK = "store-agreement"


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--data", default=str(ROOT / "data"))
    p.add_argument("--hardware", default="llvm-amd-epyc-2c")
    p.add_argument("--per-network", type=int, default=40, help="programs sampled a network")
    p.add_argument("--no-write", action="store_true", help="print only")
    return p


def sample(folder: Path, per_network: int):
    """``(context, candidate)`` of about ``per_network`` records spread over a folder's file."""
    from tvm.s_tir import meta_schedule as ms

    from tvm_gnn.dataset.groups import _folder_target
    from tvm_gnn.dataset.records import samples, tuning_records
    from tvm_gnn.measure.hardware import usable_cores

    valid = [x.line for x in samples(folder)[0]]
    chosen = set(valid[:: max(len(valid) // per_network, 1)][:per_network])
    target = _folder_target(folder)
    contexts, out = {}, []
    for s, record in tuning_records(folder, lines=chosen):
        if isinstance(record, Exception):
            continue
        if s.shash not in contexts:
            contexts[s.shash] = ms.TuneContext(
                mod=record.workload.mod, target=target, num_threads=usable_cores()
            )
        try:
            out.append((contexts[s.shash], record.as_measure_candidate()))
        except Exception:  # noqa: BLE001 - a record TVM cannot replay is not a sample
            continue
    return out


def agreement(pairs):
    """Per-column statistics over the rows of programs both extractors give equally many rows."""
    from scipy.stats import spearmanr
    from tvm.s_tir import meta_schedule as ms

    from tvm_gnn.featurize import stores

    extractor = ms.feature_extractor.PerStoreFeature()
    ref, mine, mismatched = [], [], 0
    for ctx, cand in pairs:
        theirs = extractor.extract_from(ctx, [cand])[0].numpy()[:, list(stores.TVM_COLUMNS)]
        ours = stores.store_features(cand.sch.mod)
        if theirs.shape != ours.shape:
            mismatched += 1
            continue
        ref.append(theirs)
        mine.append(ours)
    ref, mine = np.vstack(ref), np.vstack(mine)
    cols = []
    for j, name in enumerate(stores.COLUMNS):
        a, b = ref[:, j], mine[:, j]
        constant = bool(np.ptp(a) == 0)
        rho = float("nan") if constant or np.ptp(b) == 0 else float(spearmanr(a, b)[0])
        cols.append(
            {
                "column": name,
                "tvm_column": stores.TVM_COLUMNS[j],
                "spearman": rho,
                "equal": float(np.mean(np.abs(a - b) < 1e-3)),
                "tvm_constant": constant,
            }
        )
    return cols, len(ref), mismatched


def throughput(pairs):
    """Candidates/s of the walk, the native features, both, and TVM's extraction (one pass each,
    contexts grouped as a cost model's predict gets them)."""
    from tvm.s_tir import meta_schedule as ms

    from tvm_gnn.featurize import graph, stores

    cands = [c for _, c in pairs]
    by_ctx: dict[int, tuple] = {}
    for ctx, c in pairs:
        by_ctx.setdefault(id(ctx), (ctx, []))[1].append(c)
    out = {}
    t = time.perf_counter()
    graph.featurize_batch(cands)
    out["walk (the GNN's graphs)"] = time.perf_counter() - t
    t = time.perf_counter()
    stores.store_summaries(cands)
    out["native per-store features"] = time.perf_counter() - t
    t = time.perf_counter()
    graph.featurize_batch(cands)
    stores.store_summaries(cands)
    out["walk + native per-store features"] = time.perf_counter() - t
    extractor = ms.feature_extractor.PerStoreFeature()
    t = time.perf_counter()
    for ctx, group in by_ctx.values():
        extractor.extract_from(ctx, group)
    out["TVM's PerStoreFeature"] = time.perf_counter() - t
    return {k: len(cands) / v for k, v in out.items()}


def render(args, cols, rows, mismatched, programs, speed, cores) -> str:
    import tvm

    from tvm_gnn.measure.hardware import cpu_model

    rhos = [c["spearman"] for c in cols if c["spearman"] == c["spearman"]]
    lines = [
        "Command: `.venv/bin/python benchmarks/speed/store_agreement.py"
        + (f" --per-network {args.per_network}" if args.per_network != 40 else "")
        + f"`. Machine: {cpu_model()}, {cores} cores; TVM {tvm.__version__}; "
        f"{datetime.date.today().isoformat()}.",
        "",
        f"{programs} programs of `{args.hardware}` (every k-th record of each network but the "
        f"held-out ones), {rows} store rows; {mismatched} programs where the two extractors "
        "gave a different number of rows are left out. Spearman is over those rows; "
        "'equal' is the share of rows within 1e-3 of TVM's value; columns where TVM's value "
        "is constant over the sample have no Spearman.",
        "",
        f"Median Spearman over the {len(rhos)} non-constant columns: "
        f"**{np.median(rhos):.3f}**; {sum(r >= 0.9 for r in rhos)} columns at 0.9 or above, "
        f"{sum(r < 0.5 for r in rhos)} below 0.5.",
        "",
        "| step | candidates/s |",
        "|---|---:|",
    ]
    lines += [f"| {k} | {v:,.0f} |" for k, v in speed.items()]
    lines += ["", "| column | TVM column | Spearman | equal |", "|---|---:|---:|---:|"]
    for c in cols:
        rho = "constant in TVM's" if c["tvm_constant"] else f"{c['spearman']:.3f}"
        lines.append(f"| `{c['column']}` | {c['tvm_column']} | {rho} | {c['equal']:.2f} |")
    return "\n".join(lines)


def main() -> None:
    from tvm_gnn.dataset.layout import network_folders
    from tvm_gnn.dataset.splits import HELD_OUT
    from tvm_gnn.measure.hardware import cpu_model, usable_cores
    from tvm_gnn.progress import bar

    args = parser().parse_args()
    folders = [
        f
        for hw, net, f in network_folders(args.data)
        if hw == args.hardware and net not in HELD_OUT
    ]
    pairs = []
    for f in bar(folders, "sample", True, unit="network"):
        pairs += sample(f, args.per_network)
    cols, rows, mismatched = agreement(pairs)
    speed = throughput(pairs)
    cores = usable_cores()
    body = render(args, cols, rows, mismatched, len(pairs), speed, cores)
    print(body)
    if not args.no_write:
        report.write_section(ROOT / "docs" / "featurizer.md", MARK, body)
        report.write_json(
            ROOT / "benchmarks" / "results" / "store_agreement.json",
            {
                "programs": len(pairs),
                "rows": rows,
                "mismatched": mismatched,
                "columns": cols,
                "candidates_per_s": speed,
                "cpu": cpu_model(),
                "cores": cores,
            },
        )


if __name__ == "__main__":
    main()
