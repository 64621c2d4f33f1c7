# Licensed under the Apache License, Version 2.0.
"""How long building the graph cache takes in one process and in a pool of worker processes.

``tvm_gnn.dataset.load_graphs`` (``tvm-gnn train``) featurizes every network folder its cache
lacks; ``jobs`` workers take one folder each. This featurizes the record files of ``--networks``
into fresh temporary caches, once with ``jobs=1`` and once with ``--jobs`` workers (default: every
usable core), checks that both give the same graphs in the same order, and prints a markdown
table (``--json`` writes it too). The packed files are gunzipped and this process has featurized
one folder before either is timed; the workers' start (spawned, each importing torch and TVM,
then its first lowering) is timed, as a user pays it.

    .venv/bin/python benchmarks/speed/featurize_jobs.py --data data \
        --json benchmarks/results/featurize_jobs.json
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

import torch

from tvm_gnn import dataset
from tvm_gnn.cli.common import hardware_args, resolved_hardware
from tvm_gnn.measure.hardware import cpu_model, usable_cores

NETWORKS = (
    "alexnet",
    "squeezenet1_0",
    "mnasnet0_5",
    "regnet_x_400mf",
    "mobilenet_v3_small",
    "shufflenet_v2_x2_0",
    "lstm",
    "mlp_mixer",
)


def timed(root, hardware, networks, jobs: int):
    with tempfile.TemporaryDirectory(prefix="tvm_gnn_featurize_jobs_") as cache:
        start = time.perf_counter()
        graphs, samples = dataset.load_graphs(
            root, cache_dir=cache, hardware=hardware, networks=networks, jobs=jobs
        )
        return time.perf_counter() - start, graphs, samples


def main(argv=None) -> dict:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    hardware_args(p)
    p.add_argument("--networks", nargs="+", default=list(NETWORKS), help="network folders")
    p.add_argument("--jobs", type=int, default=usable_cores(), help="workers (default: cores)")
    p.add_argument("--json", default=None, help="also write the result here")
    args = p.parse_args(argv)
    hardware = resolved_hardware(p, args)
    for net in args.networks:  # gunzip outside the timing (a cache keyed by contents)
        dataset.layout.open_db_folder(Path(args.data) / hardware / net)
    # this process's first featurization pays one-time costs (imports, TVM's first lowering)
    # that each worker pays too, but inside its timing: paid here before the one-process timing
    timed(args.data, hardware, args.networks[-1:], 1)
    one_s, one, one_samples = timed(args.data, hardware, args.networks, 1)
    pool_s, pooled, pooled_samples = timed(args.data, hardware, args.networks, args.jobs)
    same = pooled_samples == one_samples and all(
        torch.equal(a.x, b.x) and torch.equal(a.edge_index, b.edge_index)
        for a, b in zip(one, pooled, strict=True)
    )
    if not same:
        raise SystemExit("the pool's graphs differ from one process's")
    out = {
        "cpu": cpu_model(),
        "usable_cores": usable_cores(),
        "networks": args.networks,
        "programs": len(one),
        "seconds_one_process": round(one_s, 1),
        "jobs": args.jobs,
        "seconds_pool": round(pool_s, 1),
        "speedup": round(one_s / pool_s, 2),
        "same_graphs": same,
    }
    print(f"{len(args.networks)} network folders, {len(one)} distinct programs; {out['cpu']}\n")
    print("| workers | seconds | programs a second |\n|---:|---:|---:|")
    for jobs, s in ((1, one_s), (args.jobs, pool_s)):
        print(f"| {jobs} | {s:.1f} | {len(one) / s:.0f} |")
    print(f"\n{out['speedup']}x with {args.jobs} workers; the same graphs in the same order")
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=1) + "\n")
    return out


if __name__ == "__main__":
    main()
