# Licensed under the Apache License, Version 2.0.
"""Do ``GNNModel(calibrated=True)``'s scores track measured speed? The weights' prior slope, and
the check on the held-out networks.

1. **Fit.** The weights' training records (the record lines they were trained on, their
   ``train_records``), scored as in training (each workload against its own set): log throughput
   regressed on the raw score within workloads (:func:`tvm_gnn.cost_models.calibration.
   within_slope`), on every training program and on the validation workloads training held
   back. The validation fit, out of sample as tuning is, is the prior, written beside the
   weights as ``<weights>.calibration.json`` with their sha256, which
   ``GNNModel(calibrated=True)`` reads (weights trained from now on carry theirs inside).
2. **Check**, on the held-out networks' programs, which the fit never saw: the slope of log
   measured throughput on the log calibrated score, pooled within workloads (1: a ratio of two
   scores is the ratio of their speeds), with a 95% bootstrap interval over workloads; and the
   same after the online refit, which fits each workload on a random half of its programs
   (``Calibration.fit``, as ``update`` does) and is checked on the other half.

    .venv/bin/python benchmarks/ranking/calibration.py            # fit, write, check, report
"""

from __future__ import annotations

import argparse
import datetime
import hashlib
from pathlib import Path

import numpy as np

from tvm_gnn import atomic, dataset, report
from tvm_gnn.cost_models.calibration import (
    MIN_PROGRAMS,
    Calibration,
    sidecar,
    within_slope,
    workload_sums,
)
from tvm_gnn.dataset.splits import HELD_OUT
from tvm_gnn.nn import checkpoint
from tvm_gnn.nn.config import VAL_FRACTION
from tvm_gnn.nn.training import label_graphs, predict
from tvm_gnn.resources import PRETRAINED

ROOT = Path(__file__).resolve().parents[2]
SECTION = "calibration"
JSON_OUT = ROOT / "benchmarks" / "results" / "calibration.json"
BOOTSTRAP = 2000


def scored(model, root, hardware: str, networks, snapshot=None, cache=".cache/graphs", val=None):
    """``(raw scores, latencies, workload ids)`` of the networks' distinct programs, each
    workload scored against its own set, as in training; ``val`` ``(seed, fraction)``: only the
    validation workloads training held back (merged and split as ``tvm_gnn.train`` does)."""
    graphs, samples = dataset.load_graphs(root, None, cache, True, hardware, networks, snapshot)
    if val is not None:
        from tvm_gnn.train import _merge_programs

        graphs, samples = _merge_programs(graphs, samples)
        _, keep = dataset.split(samples, "workload", None, *val)
        graphs, samples = [graphs[i] for i in keep], [samples[i] for i in keep]
    labelled = label_graphs(graphs, [s.shash for s in samples])
    groups = np.array([int(g.group) for g in labelled])
    latencies = np.array([float(g.latency) for g in labelled])
    return predict(model, labelled), latencies, groups


def pooled(log_scores, latencies, groups, rng, draws: int = BOOTSTRAP) -> dict:
    """The pooled within-workload slope of log throughput on ``log_scores``, with a bootstrap
    interval that resamples workloads."""
    sums = workload_sums(log_scores, latencies, groups)
    pick = rng.integers(0, len(sums), size=(draws, len(sums)))
    boot = sums[pick, 1].sum(axis=1) / sums[pick, 0].sum(axis=1)
    lo, hi = np.percentile(boot, [2.5, 97.5])
    return {"slope": sums[:, 1].sum() / sums[:, 0].sum(), "low": lo, "high": hi,
            "workloads": len(sums)}  # fmt: skip


def online_halves(raw, latencies, groups, prior: float, rng) -> tuple:
    """Each workload's calibration fitted on a random half of its programs, as ``update``
    refits it; ``(log scores, latencies, groups)`` of the other halves."""
    cal = Calibration(prior)
    out = ([], [], [])
    for g in np.unique(groups):
        idx = rng.permutation(np.flatnonzero(groups == g))
        half = len(idx) // 2
        if half < max(MIN_PROGRAMS, 2):
            continue
        fit = cal.fit(raw[idx[:half]], latencies[idx[:half]])
        rest = idx[half:]
        out[0].append(np.log(fit(raw[rest])))
        out[1].append(latencies[rest])
        out[2].append(groups[rest])
    return tuple(np.concatenate(x) for x in out)


def render(res: dict) -> str:
    def cell(p):
        return f"**{p['slope']:.3f}** [{p['low']:.3f}, {p['high']:.3f}]"

    lines = [
        f"Command: `{res['command']}`; {res['machine']}, {res['day']}; weights "
        f"`{res['weights'][:12]}`.",
        "",
        "| prior slope fitted on | raw slope | programs, workloads | held-out networks "
        f"({res['held_out']['validation']['programs']} programs, "
        f"{res['held_out']['validation']['workloads']} workloads): slope of log measured "
        "throughput on log score within workloads (95% interval over workloads) |",
        "|---|---:|---:|---|",
    ]
    fitted_on = {"training": "every training program", "validation": "the validation workloads"}
    for name, what in fitted_on.items():
        f = res["fits"][name]
        lines.append(
            f"| {what} | {f['slope']:.3f} | {f['programs']}, {f['workloads']} | "
            f"{cell(res['held_out'][name])} |"
        )
    o = res["online"]
    lines += [
        "",
        f"With each held-out workload refitted on a random half of its programs (as `update` "
        f"does, around the prior) and checked on the other half ({o['programs']} programs, "
        f"{o['workloads']} workloads): {cell(o)}.",
        "",
    ]
    return "\n".join(lines)


def main(argv=None) -> int:
    from tvm_gnn.measure.hardware import cpu_identity, cpu_model

    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--checkpoint", type=Path, default=Path(PRETRAINED))
    p.add_argument("--data", type=Path, default=ROOT / "data")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--doc", type=Path, default=ROOT / "docs" / "tuning.md")
    p.add_argument("--json", type=Path, default=JSON_OUT, help="numbers")
    p.add_argument("--cache-dir", type=Path, default=ROOT / ".cache" / "graphs")
    args = p.parse_args(argv)
    rng = np.random.default_rng(args.seed)
    model, _, extra = checkpoint.load(str(args.checkpoint))
    hardware = extra["hardware"]
    snapshot = {k: int(v) for k, v in extra["train_records"].items()}
    nets, cache = sorted(snapshot), args.cache_dir
    val = (int(extra["train_config"]["seed"]), VAL_FRACTION)
    fits = {}
    for name, held_back in (("training", None), ("validation", val)):
        raw, lat, groups = scored(model, args.data, hardware, nets, snapshot, cache, held_back)
        slope, programs = within_slope(raw, lat, groups)
        fits[name] = {"slope": slope, "programs": programs, "workloads": len(np.unique(groups))}
    prior = fits["validation"]["slope"]  # out of sample, as the held-out networks will be
    digest = hashlib.sha256(args.checkpoint.read_bytes()).hexdigest()
    atomic.write_json(sidecar(args.checkpoint), {"sha256": digest, **fits["validation"]})
    raw, lat, groups = scored(model, args.data, hardware, sorted(HELD_OUT), None, cache)
    checks = {
        name: pooled(fit["slope"] * raw, lat, groups, rng) | {"programs": len(raw)}
        for name, fit in fits.items()
    }
    log_s, lat_h, groups_h = online_halves(raw, lat, groups, prior, rng)
    online = pooled(log_s, lat_h, groups_h, rng) | {"programs": len(log_s)}
    res = {
        "command": "python benchmarks/ranking/calibration.py",
        "machine": f"{cpu_model()} ({cpu_identity()['llvm']})",
        "day": datetime.date.today().isoformat(),
        "weights": digest,
        "prior": prior,
        "fits": fits,
        "held_out": checks,
        "online": online,
    }
    text = render(res)
    print(text)
    report.write_section(args.doc, SECTION, text)
    atomic.write_json(args.json, res)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
