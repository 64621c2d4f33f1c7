# Licensed under the Apache License, Version 2.0.
"""What ``collect --wide-spread`` would add to a dataset, before measuring any of it
(``tvm-gnn dataset-stats --wide-spread``)."""

from __future__ import annotations

import numpy as np

from ..dataset.layout import check_root, network_folders, read_exhausted
from ..dataset.records import samples
from .config import CollectConfig, latency_spread


def wide_spread_plan(root, hardware: str, cfg: CollectConfig) -> dict:
    """The spread of every task of ``hardware``'s folders whose first ``cfg.trials_per_task``
    valid records are in (a task is a workload in one network's folder, as ``collect`` decides
    it), and the records ``collect`` with ``cfg`` would add to them: ``wide`` tasks to measure
    further, ``records`` more valid records in all (an upper bound: a design space may run out).
    """
    spreads, wide, records = [], 0, 0
    for hw, _, folder in network_folders(check_root(root)):
        if hw != hardware:
            continue
        per_task: dict[str, list[float]] = {}
        for s in samples(folder)[0]:  # in recorded order, as collect reads them
            per_task.setdefault(s.shash, []).append(s.latency)
        exhausted = read_exhausted(folder)
        for shash, lat in per_task.items():
            if len(lat) < cfg.trials_per_task:
                continue
            spreads.append(latency_spread(lat[: cfg.trials_per_task]))
            target = cfg.task_target(lat)
            wide += target > cfg.trials_per_task
            records += 0 if shash in exhausted else max(0, target - len(lat))
    return {"spreads": spreads, "wide": wide, "records": records}


def wide_spread_markdown(plan: dict, hardware: str, cfg: CollectConfig, rate: float | None):
    """``wide_spread_plan``'s result in words: the spreads' quantiles, and what the setting adds
    at ``hardware``'s measured ``rate`` (seconds a record)."""
    n, first = len(plan["spreads"]), cfg.trials_per_task
    if not n:
        return f"No task of {hardware} has its first {first} valid records in yet."
    q = np.percentile(plan["spreads"], [10, 25, 50, 75, 90])
    quantiles = ", ".join(f"{p}% {v:.2f}" for p, v in zip((10, 25, 50, 75, 90), q))
    target = cfg.wide_spread_trials or 2 * first
    out = [
        f"Latency spread (90th percentile over 10th of the first {first} valid records) of the "
        f"{n} tasks of {hardware} that have them: {quantiles}.",
        f"At --wide-spread {cfg.wide_spread:g}: {plan['wide']} tasks ({plan['wide'] / n:.1%}) "
        f"spread that widely and get up to {target} valid records: {plan['records']} more "
        "records",
    ]
    if rate is not None:
        out[-1] += f", about {plan['records'] * rate / 3600:.1f} h at {rate:.2f} s a record"
    return "\n".join(out) + "."
