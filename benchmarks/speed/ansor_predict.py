# Licensed under the Apache License, Version 2.0.
"""Ansor: the GNN's ``predict`` against XGBModel's, on the states a real search asks about.

Records the ``predict`` calls of Ansor's search on one task (default: a 3x3 conv2d, 128
channels, 28x28, as issue 104's probe), ``--rounds`` rounds of the search as ``SketchPolicy``
runs one (the initial population, then the evolutionary search, which scores its first
population again and each generation), then replays the same calls, in one process:

- ``GNNModel`` (tvm_gnn's Ansor door, shipped weights), a fresh model, in the calls' order (a
  state scored again reuses its readout, as in tuning);
- TVM's ``XGBModel`` with a trained booster (trained on synthetic latencies: this measures speed,
  which does not depend on the labels): per-store features (C++, all cores) and the booster;
- the GNN's parts on the first call's states: lowering and JSON (threads), reading and walking
  the JSON, and the network.

Writes a table into docs/ansor.md (between markers) and JSON next to this file.

    .venv-tvm019/bin/python benchmarks/speed/ansor_predict.py             # 2 rounds
    .venv-tvm019/bin/python benchmarks/speed/ansor_predict.py --rounds 1  # quicker
"""

from __future__ import annotations

import argparse
import datetime
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
MARK = "ansor-speed"
WORKLOAD = "tvm_gnn_bench_conv2d"


def record_calls(task, rounds: int, seed: int) -> list[list]:
    """The state lists Ansor's search passes to ``predict`` in ``rounds`` rounds."""
    from tvm import auto_scheduler
    from tvm.auto_scheduler.cost_model.cost_model import PythonBasedModel

    calls: list[list] = []

    class Recorder(PythonBasedModel):
        def update(self, inputs, results):
            pass

        def predict(self, task, states):
            calls.append(list(states))
            return np.random.default_rng(len(calls)).uniform(0.0, 1.0, len(states))

    policy = auto_scheduler.SketchPolicy(task, program_cost_model=Recorder(), seed=seed, verbose=0)
    for _ in range(rounds):
        init = policy.sample_initial_population()
        policy.evolutionary_search(init, 16)
    return calls


def trained_xgb(task, states):
    """XGBModel with a booster trained on ``states`` with synthetic latencies."""
    from tvm import auto_scheduler

    rng = np.random.default_rng(0)
    inputs = [auto_scheduler.MeasureInput(task, s) for s in states]
    results = [
        auto_scheduler.MeasureResult([float(c)], 0, "", 0.1, 0.0)
        for c in rng.uniform(1e-4, 1e-2, len(states))
    ]
    model = auto_scheduler.XGBModel(num_warmup_sample=0, seed=0, verbose_eval=0)
    model.update(inputs, results)
    return model


def replay(model, task, calls) -> float:
    start = time.perf_counter()
    for states in calls:
        model.predict(task, states)
    return time.perf_counter() - start


def parts(task, states, gnn) -> dict:
    """Seconds per state of the GNN's parts on ``states``."""
    from tvm_gnn.featurize import _json
    from tvm_gnn.featurize.ansor import featurize_states, lower_states, lower_states_json
    from tvm_gnn.featurize.graph import walk_lists

    cfg = gnn.core.featurizer
    out = {}
    t = time.perf_counter()
    lower_states(task, states)
    out["lower (threads)"] = time.perf_counter() - t
    t = time.perf_counter()
    texts = lower_states_json(task, states)
    out["lower + JSON (threads)"] = time.perf_counter() - t
    t = time.perf_counter()
    trees = [_json.Function(_json.loads(x)) for x in texts]
    out["read JSON"] = time.perf_counter() - t
    t = time.perf_counter()
    for tree in trees:
        walk_lists(tree, cfg.max_nodes, reuse=cfg.reuse)
    out["walk"] = time.perf_counter() - t
    t = time.perf_counter()
    featurize_states(task, states, cfg)
    featurized = time.perf_counter() - t
    from tvm_gnn.cost_models.ansor import AnsorGNN

    fresh = AnsorGNN()
    t = time.perf_counter()
    fresh.predict(task, states)
    out["predict, all of it"] = time.perf_counter() - t
    out["featurize, all of it"] = featurized
    return {k: v / len(states) for k, v in out.items()}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=2, help="search rounds to record")
    parser.add_argument("--channels", type=int, default=128)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-doc", action="store_true", help="print, write no docs")
    args = parser.parse_args(argv)

    import tvm
    from tvm import auto_scheduler

    from tvm_gnn import report
    from tvm_gnn.cost_models.ansor import AnsorGNN
    from tvm_gnn.measure.hardware import cpu_model, usable_cores
    from tvm_gnn.nn.scratch import quiet_torch_notices

    quiet_torch_notices()
    c = args.channels
    if WORKLOAD not in auto_scheduler.workload_registry.WORKLOAD_FUNC_REGISTRY:
        auto_scheduler.register_workload(WORKLOAD, f=_conv2d)
    task = auto_scheduler.SearchTask(
        func=WORKLOAD, args=(1, c, 28, 3), target=tvm.target.Target("llvm -num-cores=2")
    )
    calls = record_calls(task, args.rounds, args.seed)
    n = sum(len(s) for s in calls)
    distinct = len({str(s) for states in calls for s in states})
    xgb = trained_xgb(task, calls[0][:64])
    gnn = AnsorGNN()
    secs = {"gnn": replay(gnn, task, calls), "xgb": replay(xgb, task, calls)}
    t = time.perf_counter()
    for states in calls:
        auto_scheduler.feature.get_per_store_features_from_states(states, task)
    secs["xgb features"] = time.perf_counter() - t
    part = parts(task, calls[0][:512], gnn)
    machine = f"{cpu_model()}, {usable_cores()} cores"
    rate = {k: n / v for k, v in secs.items()}
    lines = [
        f"States of {args.rounds} round(s) of Ansor's search on a 3x3 conv2d ({c} channels, "
        f"28x28): {len(calls)} `predict` calls, {n} states, {distinct} distinct. {machine}, "
        f"{datetime.date.today()}; `.venv-tvm019/bin/python benchmarks/speed/ansor_predict.py "
        f"--rounds {args.rounds}`.",
        "",
        "| cost model | states/s | ms a state | vs XGBModel |",
        "|---|---:|---:|---:|",
    ]
    for k, label in (
        ("gnn", "GNN (`auto_scheduler.GNNModel()`)"),
        ("xgb", "XGBModel (features + booster)"),
        ("xgb features", "XGBModel's per-store features alone"),
    ):
        lines.append(
            f"| {label} | {rate[k]:,.0f} | {1e3 * secs[k] / n:.2f} | {rate[k] / rate['xgb']:.2f}x |"
        )
    lines += ["", "The GNN's parts, on the first call's first 512 states (ms a state):", ""]
    lines += ["| part | ms |", "|---|---:|"]
    lines += [f"| {k} | {1e3 * v:.2f} |" for k, v in part.items()]
    body = "\n".join(lines)
    print(body)
    out = {
        "machine": machine,
        "date": str(datetime.date.today()),
        "calls": len(calls),
        "states": n,
        "distinct": distinct,
        "seconds": secs,
        "parts_ms": {k: 1e3 * v for k, v in part.items()},
    }
    report.write_json(Path(__file__).with_name("ansor_predict.json"), out)
    if not args.no_doc:
        report.write_section(ROOT / "docs" / "ansor.md", MARK, body)
    return 0


def _conv2d(n, c, hw, k):
    from tvm import te, topi

    data = te.placeholder((n, c, hw, hw), name="data")
    kernel = te.placeholder((c, c, k, k), name="kernel")
    return [data, kernel, topi.nn.conv2d_nchw(data, kernel, 1, k // 2, 1, out_dtype="float32")]


if __name__ == "__main__":
    import sys

    sys.exit(main())
