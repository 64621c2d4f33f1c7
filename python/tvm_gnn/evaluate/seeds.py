# Licensed under the Apache License, Version 2.0.
"""Several runs of one model in ``tvm-gnn eval``: their mean, and the blend of two models.

A run is ``{"run": label, "scores": [per-group scores], "throughput": c/s, "train_seconds": s}``
(:func:`~.ranking.evaluate` adds its metrics before averaging).
"""

from __future__ import annotations

import numpy as np

from ..cost_models.ensemble import blend


def ensemble_runs(gnn: list[dict], xgb: list[dict]) -> list[dict]:
    """GNN run i with XGBModel run i (cycling through the shorter list): within each workload,
    the two models' scores blended as ``GNNModel(ensemble=...)`` blends them in one ``predict``
    call (:func:`tvm_gnn.cost_models.ensemble.blend`)."""
    out = []
    for i, g in enumerate(gnn):
        x = xgb[i % len(xgb)]
        scores = [blend(a, b) for a, b in zip(g["scores"], x["scores"])]
        out.append(
            {
                "run": f"{g['run']} + {x['run']}",
                "scores": scores,
                "throughput": 1.0 / (1.0 / g["throughput"] + 1.0 / x["throughput"]),
                "train_seconds": g["train_seconds"] + x["train_seconds"],
            }
        )
    return out


def mean_of_runs(runs: list[dict]) -> dict:
    """One model's results averaged over its runs, each run's averages kept under ``runs``."""
    first = runs[0]
    res = {
        "throughput": float(np.mean([r["throughput"] for r in runs])),
        "train_seconds": float(np.mean([r["train_seconds"] for r in runs])),
    }
    for part in ("all", "unshared"):
        res[part] = {}
        for net, metrics in first[part].items():
            res[part][net] = {
                k: (
                    v
                    if k in ("workloads", "candidates")
                    else _nanmean([r[part][net][k] for r in runs])
                )
                for k, v in metrics.items()
            }
    res["runs"] = [
        {"run": r["run"], "unshared": r["unshared"]["average"], "all": r["all"]["average"]}
        for r in runs
    ]
    return res


def _nanmean(values) -> float:
    values = [v for v in values if v == v]
    return float(np.mean(values)) if values else float("nan")
