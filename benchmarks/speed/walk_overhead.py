# Licensed under the Apache License, Version 2.0.
"""What a change to the featurizer's walk costs: this checkout's walk against an earlier revision's.

Compiles the featurizer's walk (``python/tvm_gnn/featurize/_walk.py``, before the package's
layering ``python/tvm_gnn/_walk.py``) as it was at ``--against`` with Cython (as ``build.sh`` does
this checkout's) into a temporary folder, then featurizes the same measured programs of one
dataset network with both walks (``graph.featurize_batch``, the inference path), in alternating
rounds in one process, so that the machine's drift hits both alike; this checkout's walk is timed
as configured by default and with the footprint and reuse columns filled (``reuse=True``). Prints
a markdown table.

    .venv/bin/python benchmarks/speed/walk_overhead.py --against a24eee1
"""

from __future__ import annotations

import argparse
import importlib.util
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from tvm_gnn.cli.common import hardware_args, resolved_hardware

ROOT = Path(__file__).resolve().parents[2]
#: where the walk's source has lived: the layered package's place first, then the flat one's
WALKS = ("python/tvm_gnn/featurize/_walk.py", "python/tvm_gnn/_walk.py")


def _show(rev: str, path: str) -> str:
    try:
        return subprocess.run(
            ["git", "show", f"{rev}:{path}"], cwd=ROOT, check=True, capture_output=True, text=True
        ).stdout
    except subprocess.CalledProcessError as err:
        raise SystemExit(f"--against {rev}: {err.stderr.strip()}") from None


def compile_walk(rev: str, where: Path):
    """The walk of revision ``rev``, compiled in ``where`` by that revision's own ``setup.py``
    (its Cython settings), with the signature of this checkout's walk."""
    setup = _show(rev, "setup.py")
    walk = next((w for w in WALKS if f'"{w}"' in setup), None)
    if walk is None:
        raise SystemExit(f"--against {rev}: its setup.py builds none of {', '.join(WALKS)}")
    (where / "_walk_against.py").write_text(_show(rev, walk))
    (where / "setup.py").write_text(setup.replace(f'"{walk}"', '"_walk_against.py"'))
    subprocess.run(
        [sys.executable, "setup.py", "-q", "build_ext", "--inplace"],
        cwd=where,
        check=True,
        capture_output=True,
    )
    (so,) = where.glob("_walk_against*.so")
    spec = importlib.util.spec_from_file_location("_walk_against", so)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    if not hasattr(mod, "F_FOOTPRINT"):  # from before the reuse columns and their argument
        return lambda root, type_ids, max_nodes, reuse=False: mod.walk(root, type_ids, max_nodes)
    return mod.walk


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--against", required=True, help="git revision whose walk to compare with")
    p.add_argument("--network", default="resnet18", help="dataset network (default resnet18)")
    hardware_args(p)
    p.add_argument("-n", type=int, default=512, help="programs (default 512)")
    p.add_argument("--rounds", type=int, default=7, help="alternating rounds (default 7)")
    args = p.parse_args()

    from tvm_gnn import dataset as data
    from tvm_gnn.featurize import _walk
    from tvm_gnn.featurize.graph import featurize_batch
    from tvm_gnn.measure.hardware import cpu_model
    from tvm_gnn.nn.schema import FeaturizerConfig

    hw = resolved_hardware(p, args)
    folder = Path(args.data) / hw / args.network
    if not folder.is_dir():
        raise SystemExit(f"no network {args.network!r} under {Path(args.data) / hw}")
    cands = []
    for _, _, cand in data.distinct_programs(folder):
        cands.append(cand)
        if len(cands) == args.n:
            break
    with tempfile.TemporaryDirectory() as tmp:
        against = compile_walk(args.against, Path(tmp))
        walks = {
            args.against: (against, FeaturizerConfig()),
            "this checkout": (_walk.walk, FeaturizerConfig()),
            "this checkout, reuse=True": (_walk.walk, FeaturizerConfig(reuse=True)),
        }
        times = {k: [] for k in walks}
        nodes = {}
        for r in range(args.rounds):
            order = list(walks)[r % len(walks) :] + list(walks)[: r % len(walks)]  # rotated
            for label in order:
                walk, config = walks[label]
                t = time.perf_counter()
                arrays, ok, errors = featurize_batch(cands, config, walk=walk)
                times[label].append(time.perf_counter() - t)
                nodes[label] = len(arrays["node_type"]) / len(ok)
                if errors:
                    raise SystemExit(f"{label}: {len(errors)} programs failed: {errors[0]}")
    ref = np.median(times[args.against])
    print(
        f"{len(cands)} distinct programs of {args.network} ({hw}), mean "
        f"{nodes['this checkout']:.0f} nodes; {cpu_model()}; median of {args.rounds} "
        "alternating rounds.\n"
    )
    print(f"| walk | seconds | programs/s | time vs {args.against} |\n|---|---:|---:|---:|")
    for label, ts in times.items():
        med = np.median(ts)
        print(f"| {label} | {med:.3f} | {len(cands) / med:,.0f} | {med / ref:.3f}x |")


if __name__ == "__main__":
    main()
