# Licensed under the Apache License, Version 2.0.
"""One Ansor task tuned with one cost model (TVM 0.19): the per-task benchmark's run
(``benchmarks/tuning/ansor_tasks.py``), the best latency after every trial kept."""

from __future__ import annotations

import time

import numpy as np

from .ansor import _ProgressBar, _timed_model, tuning_options


def best_curve(log) -> list[float]:
    """The best latency (seconds, the mean of a record's runs) after each record of an
    auto_scheduler log, in the order measured; ``inf`` until a valid one."""
    from tvm import auto_scheduler

    from ..costs import FAILED_COST, ansor_cost

    best, curve = float("inf"), []
    for _, res in auto_scheduler.load_records(str(log)):
        cost = ansor_cost(res.error_no, res.costs)
        if cost < FAILED_COST:
            best = min(best, cost)
        curve.append(best)
    return curve


def tune_task(
    task,
    cost_model: str,
    trials: int,
    log,
    *,
    seed: int = 0,
    trials_per_round: int = 16,
    measure=None,
    checkpoint=None,
    pretrain=None,
    progress: bool = False,
    desc: str = "",
) -> dict:
    """Tune one ``SearchTask`` for ``trials`` measurements with a ``SketchPolicy`` and
    ``cost_model`` (:data:`TASK_COST_MODELS`), its records appended to ``log``; the best latency
    after each trial (``curve``), the search's wall-clock and the cost model's part of it."""
    from tvm import auto_scheduler

    from ..collect.ansor import AnsorMeasure

    measure = measure or AnsorMeasure()
    start = time.perf_counter()
    model, clock = _timed_model(cost_model, seed, checkpoint, pretrain)
    setup = time.perf_counter() - start
    policy = auto_scheduler.SketchPolicy(task, program_cost_model=model, seed=seed, verbose=0)
    bar = _ProgressBar(trials, desc or "task") if progress else None
    options = tuning_options(trials, trials_per_round, measure, log, bar)
    np.random.seed(seed)
    start = time.perf_counter()
    task.tune(options, search_policy=policy)
    tuning_seconds = time.perf_counter() - start
    if bar is not None:
        bar.close()
    curve = best_curve(log)
    return {
        "trials": len(curve),
        "curve": curve,
        "tuning_seconds": tuning_seconds,
        "cost_model_seconds": clock["seconds"],
        "setup_seconds": setup,  # creating the model: loading weights, or pretraining XGBModel
    }
