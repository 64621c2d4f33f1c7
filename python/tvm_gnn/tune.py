# Licensed under the Apache License, Version 2.0.
"""Tuning entry points: MetaSchedule with a working builder, a chosen cost model and a progress bar."""

from __future__ import annotations

import logging
import math

from tvm.ir.utils import derived_object
from tvm.s_tir import meta_schedule as ms
from tvm.s_tir.meta_schedule.measure_callback import PyMeasureCallback

from . import COST_MODELS
from .builder import make_builder

logger = logging.getLogger(__name__)


def make_cost_model(kind, *, seed: int = 0, checkpoint=None, num_tuning_cores: int | None = None,
                    data="data"):  # fmt: skip
    """A cost model by name, or ``kind`` itself if it is one.

    ``gnn``: GNNModel (shipped weights unless ``checkpoint``); ``xgb``: TVM's XGBModel from
    scratch (TVM's default); ``xgb-pretrained``: XGBModel first trained on the records under
    ``data`` that the GNN checkpoint was trained on; ``random``: TVM's RandomModel.
    """
    if not isinstance(kind, str):
        return kind
    if kind == "xgb-pretrained":
        from .evaluate import pretrained_xgb

        return pretrained_xgb(data, checkpoint=checkpoint, seed=seed)
    if kind == "gnn":
        from .cost_model import GNNModel

        return GNNModel(checkpoint=checkpoint, seed=seed)
    if kind == "xgb":
        import os

        return ms.cost_model.XGBModel(num_tuning_cores=num_tuning_cores or os.cpu_count() or 1)
    if kind == "random":
        return ms.cost_model.RandomModel(seed=seed)
    raise ValueError(f"unknown cost model {kind!r}; choose one of {COST_MODELS}")


def measured_latency(builder_result, runner_result) -> float | None:
    """Mean run time in seconds of one measured candidate, or None if its build or run failed."""
    secs = [float(s) for s in (runner_result.run_secs or [])]
    if builder_result.error_msg or runner_result.error_msg or not secs:
        return None
    return sum(secs) / len(secs)


@derived_object
class ProgressCallback(PyMeasureCallback):
    """Shows measured trials and the best latency so far on a tqdm bar; records the history."""

    def __init__(self, total: int, desc: str = "tune", enabled: bool = True):
        from tqdm import tqdm

        self.bar = tqdm(total=total, desc=desc, unit="trial", disable=not enabled)
        self.best = math.inf
        self.errors = 0
        self.history: list[float] = []  # best latency (s) after each measured trial

    def apply(self, task_scheduler, task_id, measure_candidates, builder_results, runner_results):
        for b, r in zip(builder_results, runner_results):
            lat = measured_latency(b, r)
            if lat is None:
                self.errors += 1
            else:
                self.best = min(self.best, lat)
            self.history.append(self.best)
        self.bar.update(len(runner_results))
        if math.isfinite(self.best):
            self.bar.set_postfix(best=f"{self.best * 1e3:.3f} ms", errors=self.errors)

    def close(self):
        self.bar.close()


def tune_tir(
    mod,
    target,
    work_dir: str,
    *,
    max_trials: int,
    cost_model="gnn",
    num_trials_per_iter: int = 32,
    seed: int = 0,
    builder=None,
    runner="local",
    progress: bool = True,
    desc: str = "tune",
    checkpoint=None,
):
    """Tune one TIR program with MetaSchedule.

    Parameters
    ----------
    mod : IRModule or PrimFunc
        The program.
    target : tvm.target.Target
        Where it runs.
    work_dir : str
        MetaSchedule's work directory (its JSON database and logs go there).
    max_trials : int
        Measured candidates in total.
    cost_model : {"gnn", "xgb", "random"} or CostModel
        Which cost model guides the search.
    seed : int
        Seeds the search and the cost model.
    builder : Builder, optional
        Defaults to :func:`tvm_gnn.builder.make_builder` (TVM's default times out on small machines).

    Returns
    -------
    database : Database
        The tuning records; ``progress.history`` of the returned ``(database, progress)`` has the
        best latency after each trial.
    """
    model = make_cost_model(cost_model, seed=seed, checkpoint=checkpoint)  # fails before the bar
    callback = ProgressCallback(max_trials, desc=desc, enabled=progress)
    try:
        db = ms.tune_tir(
            mod=mod,
            target=target,
            work_dir=work_dir,
            max_trials_global=max_trials,
            num_trials_per_iter=num_trials_per_iter,
            builder=builder or make_builder(),
            runner=runner,
            cost_model=model,
            measure_callbacks=[*ms.measure_callback.MeasureCallback.create("default"), callback],
            seed=seed,
        )
    finally:
        callback.close()
    return db, callback
