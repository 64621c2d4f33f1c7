# Licensed under the Apache License, Version 2.0.
"""Throughput of GNNModel against TVM's XGBModel, on the same candidates in the same run.

Samples N post-processed candidates of one real task (default: ResNet-18's 3x3 conv2d), gives
both models a booster / trained weights (from 64 candidates with synthetic latencies: what is
measured here is speed, which does not depend on the weights), then times, in one process:

- GNNModel.predict through TVM's cost-model interface (featurize + batched GNN), and its parts;
- the featurizer with TVM's own lowering passes instead (``lowering="tvm"``), on a subset;
- XGBModel.predict through the same interface, and its feature extraction (PerStoreFeature);
- StoreXGBModel on tvm_gnn's native per-store features, and draft then verify (``gnn+native``):
  GNNModel.predict with that booster reordering the GNN's top ``--verify-top``, and the verify
  step alone, per call.

Writes a markdown table into docs/benchmarks.md (between markers) and JSON next to this file.

    .venv/bin/python benchmarks/speed/featurize_predict.py            # 2,048 candidates
    .venv/bin/python benchmarks/speed/featurize_predict.py -n 256     # quicker
"""

from __future__ import annotations

import argparse
import datetime
import time
from pathlib import Path

import numpy as np

from tvm_gnn import report

ROOT = Path(__file__).resolve().parents[2]
MARK = "featurize-predict"


def timed(fn, reps: int):
    """Run fn reps times; return (median seconds, last result)."""
    times, out = [], None
    for _ in range(reps):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return float(np.median(times)), out


def parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("-n", "--candidates", type=int, default=2048)
    parser.add_argument("--workload", default="resnet18_conv2d")
    parser.add_argument("--reps", type=int, default=3, help="repetitions of the fast timings")
    parser.add_argument("--tvm-lowering-subset", type=int, default=256)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--verify-top", type=int, default=64, help="K of draft then verify (gnn+native: 64)"
    )
    parser.add_argument(
        "--checkpoint", default=None, help="GNN weights timed (default: the shipped ones)"
    )
    parser.add_argument("--no-write", action="store_true", help="print only")
    return parser


def timings(args, cores: int):
    """``(rows, n, gnn, graphs)``: seconds of each step over ``n`` sampled candidates, the
    GNNModel timed and its graphs."""
    import torch
    from tvm.s_tir import meta_schedule as ms

    from tvm_gnn.cost_models.gnn import GNNModel
    from tvm_gnn.cost_models.scoring import predict_chunks
    from tvm_gnn.featurize import graph
    from tvm_gnn.measure import workloads
    from tvm_gnn.measure.sampling import sample_candidates, target_from
    from tvm_gnn.nn.training import predict

    target = target_from("llvm", cores)
    t = time.perf_counter()
    ctx, cands = sample_candidates(
        workloads.get(args.workload), target, args.candidates + 64, seed=args.seed
    )
    sample_secs = time.perf_counter() - t
    warm, cands = cands[:64], cands[64:]
    n = len(cands)
    print(f"sampled {n + 64} candidates in {sample_secs:.1f}s")
    rng = np.random.default_rng(args.seed)
    results = [
        ms.runner.RunnerResult(run_secs=[float(s)], error_msg=None)
        for s in rng.uniform(1e-4, 1e-2, len(warm))
    ]

    # the shipped architecture (or --checkpoint's): its weights do not change its speed
    gnn = GNNModel(checkpoint=args.checkpoint, seed=args.seed)
    xgb = ms.cost_model.XGBModel(num_warmup_samples=0, num_tuning_cores=cores)
    xgb.update(ctx, warm, results)

    rows = {}
    cfg = gnn.featurizer
    secs, graphs = timed(lambda: graph.featurize_candidates(cands, cfg)[0], args.reps)
    rows["GNN: featurize (emulated lowering)"] = secs
    secs, _ = timed(lambda: predict(gnn.model, graphs, gnn.predict_batch_size), args.reps)
    rows["GNN: batched forward (Batch.from_data_list + GNN)"] = secs
    secs, gnn_scores = timed(lambda: gnn.predict(ctx, cands), args.reps)
    rows["**GNNModel.predict** (featurize + forward)"] = secs
    # before 2026-11-25: chunks of 256, the forward on all of torch's threads
    secs, _ = timed(lambda: predict_chunks(gnn.model, cands, gnn.featurizer, 256), args.reps)
    rows[f"GNN: predict as before (chunks of 256, torch threads {torch.get_num_threads()})"] = secs
    sub = cands[: args.tvm_lowering_subset]
    tvm_cfg = graph.FeaturizerConfig(lowering="tvm")
    secs, _ = timed(lambda: graph.featurize_candidates(sub, tvm_cfg), 1)
    rows[f"GNN: featurize with TVM's lowering passes ({len(sub)} candidates, scaled)"] = (
        secs * n / len(sub)
    )
    extractor = ms.feature_extractor.PerStoreFeature()
    secs, _ = timed(lambda: extractor.extract_from(ctx, cands), 1)
    rows["XGB: PerStoreFeature extraction"] = secs
    secs, xgb_scores = timed(lambda: xgb.predict(ctx, cands), 1)
    rows["**XGBModel.predict** (features + booster)"] = secs
    rows.update(native_rows(args, ctx, cands, warm, results, cores))
    rows.update(search_rows(args, ctx, cands, warm, results))
    # the opt-in blend with XGBModel (docs/results.md, direction 4b): both models score
    both = GNNModel(checkpoint=args.checkpoint, seed=args.seed, ensemble=xgb)
    secs, _ = timed(lambda: both.predict(ctx, cands), 1)
    rows["GNNModel(ensemble=XGBModel).predict (opt-in blend)"] = secs
    assert np.isfinite(gnn_scores).all() and np.isfinite(xgb_scores).all()
    return rows, n, gnn, graphs


#: issue 85's search options, by their ``tvm-gnn tune`` names
SEARCH_OPTIONS = ("gnn-calibrated", "gnn-novelty", "gnn-adaptive", "gnn-gp")
SEARCH_ROW = "GNNModel.predict as `{name}` (after 64 measurements)"


def search_rows(args, ctx, cands, warm, results) -> dict:
    """Seconds of GNNModel.predict with issue 85's options (item 3: "each one's cost per round
    beside the GNN's"), each model given the 64 warm-up measurements first, as in a search."""
    from tvm_gnn.cost_models.factory import make_cost_model

    rows = {}
    for name in SEARCH_OPTIONS:
        model = make_cost_model(name, seed=args.seed, checkpoint=args.checkpoint)
        model.update(ctx, warm, results)
        secs, scores = timed(lambda m=model: m.predict(ctx, cands), args.reps)
        assert np.isfinite(scores).all()
        rows[SEARCH_ROW.format(name=name)] = secs
    return rows


#: the rows render() reads beside GNNModel.predict's
NATIVE = "**StoreXGBModel.predict** (native features + booster)"
VERIFY = "**GNNModel(ensemble='native', top {k}).predict** (`gnn+native`: draft then verify)"
VERIFY_STEP = "verify step alone: StoreXGBModel.predict on the GNN's top {k}"


def native_rows(args, ctx, cands, warm, results, cores) -> dict:
    """Seconds of the native per-store features, of StoreXGBModel on them (issue 72, item 4),
    and of draft then verify (issue 73, item 3): GNNModel with that booster reordering its top
    ``--verify-top`` of each call, and the verify step alone, per call."""
    from tvm_gnn.cost_models.gnn import GNNModel
    from tvm_gnn.cost_models.store_xgb import StoreXGBModel
    from tvm_gnn.featurize.stores import store_summaries

    native = StoreXGBModel(seed=args.seed, num_warmup_samples=0, num_threads=cores)
    native.update(ctx, warm, results)
    rows = {}
    secs, _ = timed(lambda: store_summaries(cands), args.reps)
    rows["Native per-store features (tvm_gnn.featurize.stores)"] = secs
    secs, scores = timed(lambda: native.predict(ctx, cands), args.reps)
    rows[NATIVE] = secs
    assert np.isfinite(scores).all()
    k = args.verify_top
    verify = GNNModel(checkpoint=args.checkpoint, seed=args.seed, ensemble=native, ensemble_top=k)
    secs, scores = timed(lambda: verify.predict(ctx, cands), args.reps)
    rows[VERIFY.format(k=k)] = secs
    assert np.isfinite(scores).all()
    secs, _ = timed(lambda: native.predict(ctx, cands[:k]), args.reps)
    rows[VERIFY_STEP.format(k=k)] = secs
    return rows


def render(args, rows: dict, n: int, gnn, graphs, cores: int) -> tuple[str, float]:
    """The docs section, and the graphs' mean size."""
    import torch
    import tvm

    from tvm_gnn.measure.hardware import cpu_model

    gnn_s = rows["**GNNModel.predict** (featurize + forward)"]
    xgb_s = rows["**XGBModel.predict** (features + booster)"]
    nodes = np.mean([g.num_nodes for g in graphs])
    lines = [
        f"### Featurize + predict throughput ({args.workload}, {n} candidates)",
        "",
        "Command: `.venv/bin/python benchmarks/speed/featurize_predict.py"
        + (f" -n {args.candidates}" if args.candidates != 2048 else "")
        + (f" --checkpoint {args.checkpoint}" if args.checkpoint else "")
        + "`; the GNN is "
        + (f"`{args.checkpoint}`" if args.checkpoint else "the shipped weights")
        + f" ({type(gnn.model.convs[0]).__name__} layers).",
        "",
        f"Machine: {cpu_model()}, {cores} cores, torch threads {torch.get_num_threads()}; "
        f"TVM {tvm.__version__}; {datetime.date.today().isoformat()}. "
        f"Mean graph size {nodes:.0f} nodes. Timings are medians of {args.reps} runs where a "
        "run takes under a minute, else one run; ratios compare within this run.",
        "",
        "| step | seconds | candidates/s |",
        "|---|---:|---:|",
    ]
    for name, secs in rows.items():
        lines.append(f"| {name} | {secs:.3f} | {n / secs:,.0f} |")
    lines += [
        "",
        f"GNNModel.predict: **{n / gnn_s:,.0f} candidates/s**, "
        f"{xgb_s / gnn_s:.1f}x faster than XGBModel.predict ({n / xgb_s:,.1f} candidates/s). "
        f"Target: >= 2,000 candidates/s and within 3x of XGBModel's time.",
    ]
    native_s = rows.get(NATIVE)
    if native_s:
        lines += [
            "",
            f"StoreXGBModel.predict (issue 72, item 4): **{n / native_s:,.0f} candidates/s**, "
            f"{xgb_s / native_s:.1f}x XGBModel.predict's. Target: >= 10x.",
        ]
    k = args.verify_top
    verify_s = rows.get(VERIFY.format(k=k))
    if verify_s:
        step = rows[VERIFY_STEP.format(k=k)]
        lines += [
            "",
            f"`gnn+native` (issue 73, item 3): GNNModel.predict with the verify step, "
            f"**{n / verify_s:,.0f} candidates/s**, {xgb_s / verify_s:.1f}x XGBModel.predict's "
            f"(target: >= 10x); the verify step costs **{step * 1e3:.1f} ms a call** "
            f"({step / verify_s:.0%} of the call) for its {k} candidates.",
        ]
    return "\n".join(lines), float(nodes)


def main() -> None:
    from tvm_gnn.measure.hardware import cpu_model, usable_cores

    args = parser().parse_args()
    cores = usable_cores()
    rows, n, gnn, graphs = timings(args, cores)
    body, nodes = render(args, rows, n, gnn, graphs, cores)
    print(body)
    if not args.no_write:
        report.write_section(ROOT / "docs" / "benchmarks.md", MARK, body)
        numbers = {"candidates": n, "seconds": rows, "cpu": cpu_model(), "cores": cores}
        out = ROOT / "benchmarks" / "results" / "featurize_predict.json"
        report.write_json(out, {**numbers, "mean_nodes": nodes})


if __name__ == "__main__":
    main()
