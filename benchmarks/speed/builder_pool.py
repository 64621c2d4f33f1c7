# Licensed under the Apache License, Version 2.0.
"""Build time of TVM's LocalBuilder (new worker processes every batch) against tvm_gnn's
KeptPoolBuilder (workers kept between batches), on the same candidates in the same run.

Samples batches of post-processed candidates of one real task (default: ResNet-18's 3x3 conv2d)
and has each builder build every batch, the two taking turns at going first. Prints seconds per
batch, the paired ratio with a bootstrap 95% interval over batches, and the kept workers' memory
after each batch (TVM starts afresh every batch for a memory leak it notes; the kept pool replaces
each worker after ``WORKER_USES`` builds). Writes a section of docs/benchmarks.md and JSON here.

    .venv/bin/python benchmarks/speed/builder_pool.py                 # 8 batches of 24
    .venv/bin/python benchmarks/speed/builder_pool.py --batches 2     # quicker
"""

from __future__ import annotations

import argparse
import datetime
import shutil
import time
from pathlib import Path

import numpy as np

from tvm_gnn import report

ROOT = Path(__file__).resolve().parents[2]
MARK = "builder-pool"
JSON_OUT = ROOT / "benchmarks" / "results" / "builder_pool.json"


def build_timed(builder, inputs) -> tuple[float, int]:
    """Seconds ``builder`` takes to build ``inputs``, and how many failed; artifacts removed."""
    start = time.perf_counter()
    results = builder.build(inputs)
    secs = time.perf_counter() - start
    for r in results:
        if r.artifact_path:
            shutil.rmtree(Path(r.artifact_path).parent, ignore_errors=True)
    return secs, sum(r.error_msg is not None for r in results)


def workers_mib() -> float:
    """Memory of this process's children (the kept build workers) that is theirs alone (USS:
    not the TVM and LLVM libraries they share), MiB."""
    import psutil

    total = 0
    for child in psutil.Process().children(recursive=True):
        try:
            total += child.memory_full_info().uss
        except psutil.Error:
            pass
    return total / 2**20


def bootstrap_ratio(tvm_secs, kept_secs, seed: int, draws: int = 2000) -> tuple[float, float]:
    """95% interval of sum(tvm)/sum(kept) over batches drawn with replacement."""
    a, b = np.asarray(tvm_secs), np.asarray(kept_secs)
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, len(a), size=(draws, len(a)))
    ratios = a[idx].sum(axis=1) / b[idx].sum(axis=1)
    return float(np.percentile(ratios, 2.5)), float(np.percentile(ratios, 97.5))


def run(args) -> dict:
    from tvm.s_tir import meta_schedule as ms

    from tvm_gnn.measure import workloads
    from tvm_gnn.measure.builder import WORKER_USES, make_builder
    from tvm_gnn.measure.hardware import cpu_identity, cpu_model, usable_cores
    from tvm_gnn.measure.sampling import sample_candidates, target_from

    target = target_from("llvm", usable_cores())
    n = args.batches * args.batch_size
    _, cands = sample_candidates(workloads.get(args.workload), target, n, seed=args.seed)
    batches = [
        [ms.builder.BuilderInput(c.sch.mod, target) for c in cands[i : i + args.batch_size]]
        for i in range(0, len(cands), args.batch_size)
    ]
    start = time.perf_counter()
    tvm_builder = make_builder(keep_workers=False)
    tvm_start = time.perf_counter() - start
    start = time.perf_counter()
    kept = make_builder()
    kept_start = time.perf_counter() - start
    rows = []
    try:
        for i, batch in enumerate(batches):
            order = [("tvm", tvm_builder), ("kept", kept)]
            if i % 2:
                order.reverse()
            row = {"batch": i, "candidates": len(batch), "first": order[0][0]}
            for name, builder in order:
                row[name], row[f"{name}_failed"] = build_timed(builder, batch)
            row["kept_workers_mib"] = workers_mib()
            rows.append(row)
            print(
                f"batch {i}: LocalBuilder {row['tvm']:.1f} s, kept {row['kept']:.1f} s "
                f"({row['tvm'] / row['kept']:.2f}x), kept workers {row['kept_workers_mib']:.0f} MiB"
            )
    finally:
        kept.close()
    tvm_secs, kept_secs = [r["tvm"] for r in rows], [r["kept"] for r in rows]
    lo, hi = bootstrap_ratio(tvm_secs, kept_secs, args.seed)
    return {
        "workload": args.workload,
        "batch_size": args.batch_size,
        "batches": rows,
        "construct_seconds": {"tvm": tvm_start, "kept": kept_start},
        "ratio": sum(tvm_secs) / sum(kept_secs),
        "ratio_95": [lo, hi],
        "worker_uses": WORKER_USES,
        "machine": {
            "cpu": cpu_model(),
            "llvm_cpu": cpu_identity().get("llvm"),
            "cores": usable_cores(),
            "date": datetime.date.today().isoformat(),
        },
    }


def section(res: dict) -> str:
    m, rows = res["machine"], res["batches"]
    per = {k: sum(r[k] for r in rows) / sum(r["candidates"] for r in rows) for k in ("tvm", "kept")}
    failed = sum(r["tvm_failed"] + r["kept_failed"] for r in rows)
    mib = [r["kept_workers_mib"] for r in rows]
    lo, hi = res["ratio_95"]
    return "\n".join(
        [
            f"### Build workers kept between batches ({res['workload']}, "
            f"{len(rows)} batches of {res['batch_size']})",
            "",
            "Command: `.venv/bin/python benchmarks/speed/builder_pool.py`",
            "",
            f"Machine: {m['cpu']} (LLVM `{m['llvm_cpu']}`), {m['cores']} cores; {m['date']}. "
            "Each builder builds every batch; they take turns at going first.",
            "",
            "| builder | seconds a batch | seconds a candidate | failed builds |",
            "|---|---:|---:|---:|",
            f"| TVM's LocalBuilder (new workers every batch) | "
            f"{np.mean([r['tvm'] for r in rows]):.1f} | {per['tvm']:.2f} | "
            f"{sum(r['tvm_failed'] for r in rows)} |",
            f"| KeptPoolBuilder (`make_builder()`) | "
            f"{np.mean([r['kept'] for r in rows]):.1f} | {per['kept']:.2f} | "
            f"{sum(r['kept_failed'] for r in rows)} |",
            "",
            f"LocalBuilder takes **{res['ratio']:.2f}x** the kept pool's time "
            f"(bootstrap 95% interval over batches [{lo:.2f}, {hi:.2f}]); {failed} builds failed. "
            f"Making the builder (its check of the build functions starts a worker): "
            f"{res['construct_seconds']['tvm']:.1f} s LocalBuilder, "
            f"{res['construct_seconds']['kept']:.1f} s kept. The kept workers' own memory (USS) "
            f"after each batch: {', '.join(f'{x:.0f}' for x in mib)} MiB "
            f"(each worker is replaced after {res['worker_uses']} builds).",
        ]
    )


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--workload", default="resnet18_conv2d", help="a tvm_gnn workload name")
    parser.add_argument("--batches", type=int, default=8, help="batches each builder builds")
    parser.add_argument("--batch-size", type=int, default=24, help="candidates a batch")
    parser.add_argument("--seed", type=int, default=0, help="seeds the candidates and bootstrap")
    parser.add_argument("--doc", default=str(ROOT / "docs" / "benchmarks.md"))
    parser.add_argument("--json", default=str(JSON_OUT))
    parser.add_argument("--no-write", action="store_true", help="print only")
    args = parser.parse_args(argv)
    if args.batches < 1 or args.batch_size < 1:
        parser.error("--batches and --batch-size must be at least 1")
    res = run(args)
    text = section(res)
    print(text)
    if not args.no_write:
        report.write_json(args.json, res)
        report.write_section(args.doc, MARK, text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
