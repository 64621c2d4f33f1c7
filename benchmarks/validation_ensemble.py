# Licensed under the Apache License, Version 2.0.
"""The GNN, TVM's XGBModel and their blend (``GNNModel(ensemble=...)``) on the validation split.

For each seed, the validation sweep's checkpoint of a variant (``--runs``/VARIANT-seedS.pt) is
scored on the validation workloads that ``tvm-gnn train`` drew with that seed (the same split,
recomputed from the checkpoint's records); XGBModel is trained, through ``update``, on the same
training workloads' programs and scored on the same validation programs; the blend is
:func:`tvm_gnn.cost_models.ensemble.blend` of the two within each workload, as one ``predict``
call of ``GNNModel(ensemble=...)`` gives it. The GNN's numbers must equal what training recorded
at its chosen epoch (the script checks), so the three rows compare like with like::

    .venv/bin/python benchmarks/validation_ensemble.py --variant lambdarank-relational --seeds 0 1 2

Prints a Markdown table; ``--json`` also writes the numbers.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

from tvm_gnn.nn.config import VAL_FRACTION


def _val_split(path: Path, data: str, cache_dir: str):
    """The checkpoint's validation graphs (labelled, merged as training merged them) and the
    samples they came from, recomputed with the checkpoint's seed."""
    from tvm_gnn import dataset
    from tvm_gnn.nn import checkpoint
    from tvm_gnn.nn.checkpoint import read_info
    from tvm_gnn.nn.training import label_graphs
    from tvm_gnn.train import _merge_programs

    info = read_info(path)
    model, featurizer, _ = checkpoint.load(str(path))
    snapshot = info["train_records"]
    nets = sorted(snapshot)
    graphs, samples = dataset.load_graphs(
        data, featurizer, cache_dir, False, info["hardware"], nets, snapshot
    )
    graphs, samples = _merge_programs(graphs, samples)
    seed = info["train_config"]["seed"]
    _, val_idx = dataset.split(samples, "workload", None, seed, VAL_FRACTION)
    labelled = label_graphs(graphs, [s.shash for s in samples])
    return model, info, [labelled[i] for i in val_idx], [samples[i] for i in val_idx]


def _xgb_scores(data: str, info: dict, val_samples, seed: int) -> np.ndarray:
    """XGBModel trained on the training workloads' programs, scored on the validation programs
    (one ``predict`` call per workload, as the search calls it)."""
    from tvm_gnn.cost_models.baselines import train_xgb
    from tvm_gnn.dataset.groups import load_groups
    from tvm_gnn.dataset.records import program_id

    val_shash = {s.shash for s in val_samples}
    snapshot = info["train_records"]
    groups = load_groups(data, info["hardware"], sorted(snapshot), snapshot=snapshot)
    xgb = train_xgb([g for g in groups if g.shash not in val_shash], seed=seed)
    contexts = {g.shash: g.context for g in groups if g.shash in val_shash}
    cands = {}  # the validation programs, keyed as training's merged samples are
    for g in groups:
        if g.shash in val_shash:
            for cand in g.candidates:
                cands.setdefault((g.shash, program_id(cand)), cand)
    scores = np.zeros(len(val_samples))
    by_workload: dict[str, list[int]] = {}
    for i, s in enumerate(val_samples):
        by_workload.setdefault(s.shash, []).append(i)
    for shash, idx in by_workload.items():
        batch = [cands[(val_samples[i].shash, val_samples[i].program)] for i in idx]
        scores[idx] = xgb.predict(contexts[shash], batch)
    return scores


def score_seed(runs: Path, variant: str, seed: int, data: str, cache_dir: str) -> dict:
    from tvm_gnn.cost_models.ensemble import blend
    from tvm_gnn.nn.metrics import mean_top1, pairwise_accuracy
    from tvm_gnn.nn.training import predict

    path = runs / f"{variant}-seed{seed}.pt"
    model, info, val, val_samples = _val_split(path, data, cache_dir)
    y = np.array([float(g.y) for g in val])
    groups = np.array([int(g.group) for g in val])
    gnn = predict(model, val)
    xgb = _xgb_scores(data, info, val_samples, seed)
    mixed = np.zeros_like(gnn)
    for gid in np.unique(groups):
        idx = np.flatnonzero(groups == gid)
        mixed[idx] = blend(gnn[idx], xgb[idx])
    best = info["best_epoch"]
    recorded = info["val_pairwise_acc"][best]
    out = {"seed": seed, "workloads": int(len(np.unique(groups))), "programs": len(val)}
    for name, s in (("gnn", gnn), ("xgb", xgb), ("gnn+xgb", mixed)):
        out[name] = {
            "pairwise": pairwise_accuracy(s, y, groups),
            "top1": mean_top1(s, y, groups),
        }
    if abs(out["gnn"]["pairwise"] - recorded) > 1e-6:
        raise SystemExit(
            f"{path}: the GNN scores {out['gnn']['pairwise']:.6f} on the recomputed validation "
            f"split, training recorded {recorded:.6f}: the split is not the one it trained with"
        )
    return out


def table(variant: str, results: list[dict]) -> str:
    seeds = [r["seed"] for r in results]
    lines = [
        f"| model ({variant} checkpoints) | pairwise, seed {' / '.join(map(str, seeds))} | "
        "**mean** | top-1 per seed | **mean** | pairwise gain over the GNN (mean, paired t) |",
        "|---|---|---:|---|---:|---|",
    ]
    base = np.array([r["gnn"]["pairwise"] for r in results])
    for name in ("gnn", "xgb", "gnn+xgb"):
        p = np.array([r[name]["pairwise"] for r in results])
        t = np.array([r[name]["top1"] for r in results])
        gain = ""
        if name != "gnn":
            d = p - base
            tstat = d.mean() / (d.std(ddof=1) / np.sqrt(len(d))) if len(d) > 1 and d.std() else 0
            gain = f"{d.mean():+.4f} ({tstat:.1f})"
        lines.append(
            f"| {name} | {' / '.join(f'{v:.4f}' for v in p)} | **{p.mean():.4f}** | "
            f"{' / '.join(f'{v:.4f}' for v in t)} | **{t.mean():.4f}** | {gain} |"
        )
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--variant", default="lambdarank-relational", help="sweep variant")
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--runs", type=Path, default=Path(".cache/validation-sweep"))
    parser.add_argument("--data", default="data")
    parser.add_argument("--cache-dir", default=".cache/graphs")
    parser.add_argument("--json", type=Path, default=None, help="also write the numbers here")
    args = parser.parse_args(argv)
    missing = [s for s in args.seeds if not (args.runs / f"{args.variant}-seed{s}.pt").exists()]
    if missing:
        parser.error(f"no checkpoint of {args.variant} for seeds {missing} under {args.runs}")
    from tqdm import tqdm

    results = [
        score_seed(args.runs, args.variant, s, args.data, args.cache_dir)
        for s in tqdm(args.seeds, desc="seeds", unit="seed")
    ]
    print(table(args.variant, results))
    if args.json:
        args.json.write_text(json.dumps(results, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
