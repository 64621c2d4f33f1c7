# Licensed under the Apache License, Version 2.0.
"""Tuning one workload (``tvm-gnn demo``): MetaSchedule with a working builder, a chosen cost
model and a progress bar.
"""

from __future__ import annotations

import contextlib
import logging
import math

from tvm.ir.utils import derived_object
from tvm.s_tir import meta_schedule as ms
from tvm.s_tir.meta_schedule.measure_callback import PyMeasureCallback

from ..cost_models.factory import make_cost_model
from ..costs import result_cost
from ..measure.builder import make_builder
from ..measure.runner import EPS_GREEDY, SEARCH_POPULATION

#: MetaSchedule's logger
MS_LOGGER = "tvm.s_tir.meta_schedule"


def metaschedule_console_level() -> None:
    """What MetaSchedule prints on the console in the next tuning call: its INFO lines (task
    picks, the task table) only when tvm_gnn logs at INFO (``tvm-gnn -v``), otherwise only
    warnings. The full log goes to ``WORK_DIR/logs/`` either way.

    MetaSchedule sets its console handler's level from its logger's level when a tuning call
    starts, and then sets the logger to DEBUG, so this is called before every call.
    """
    verbose = logging.getLogger("tvm_gnn").isEnabledFor(logging.INFO)
    logging.getLogger(MS_LOGGER).setLevel(logging.INFO if verbose else logging.WARNING)


@contextlib.contextmanager
def metaschedule_logger_ready():
    """MetaSchedule rebuilds its logging from its logger's handlers by name and fails on any
    handler it did not configure itself (``'NoneType' object has no attribute 'format'`` for
    an unnamed one, ``Unable to configure logger`` for a named one). Such handlers (a user's, a
    test harness's) are set aside for the call and put back after it."""
    ms_logger = logging.getLogger(MS_LOGGER)
    foreign = [
        h for h in ms_logger.handlers if not (h.get_name() or "").startswith(MS_LOGGER + ".")
    ]
    for h in foreign:
        ms_logger.removeHandler(h)
    try:
        yield
    finally:
        for h in foreign:
            ms_logger.addHandler(h)


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
            lat = result_cost(b, r)
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
    population: int = SEARCH_POPULATION,
    eps_greedy: float = EPS_GREEDY,
    diverse: int = 0,
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
    cost_model : one of :data:`tvm_gnn.cost_models.COST_MODELS`, or a CostModel
        Which cost model guides the search.
    seed : int
        Seeds the search and the cost model.
    population : int
        The evolutionary search's population (MetaSchedule's default; smaller is faster and
        searches less).
    eps_greedy : float
        The share of each round's picks the search draws at random from its unmeasured initial
        population instead of taking the best-scored (MetaSchedule's default, 0.05).
    diverse : int
        W >= 1: each round's batch is chosen for diversity among W x its size of proposals
        (:class:`tvm_gnn.tune.diverse.DiverseSearch`; GNN models); 0 (default): the search's top.
    builder : Builder, optional
        Defaults to :func:`tvm_gnn.measure.builder.make_builder` (TVM's default times out on
        small machines).

    Returns
    -------
    database : Database
        The tuning records; ``progress.history`` of the returned ``(database, progress)`` has the
        best latency after each trial.
    """
    model = make_cost_model(cost_model, seed=seed, checkpoint=checkpoint)  # fails before the bar
    callback = ProgressCallback(max_trials, desc=desc, enabled=progress)
    metaschedule_console_level()
    own = make_builder() if builder is None else None  # closed here, a caller's is not
    try:
        with metaschedule_logger_ready():
            db = ms.tune_tir(
                mod=mod,
                target=target,
                work_dir=work_dir,
                max_trials_global=max_trials,
                num_trials_per_iter=num_trials_per_iter,
                builder=builder or own,
                runner=runner,
                cost_model=model,
                measure_callbacks=[
                    *ms.measure_callback.MeasureCallback.create("default"),
                    callback,
                ],
                seed=seed,
                strategy=search_strategy(model, population, eps_greedy, diverse, seed),
            )
    finally:
        callback.close()
        if own is not None:
            own.close()
    return db, callback


def search_strategy(model, population: int, eps_greedy: float, diverse: int = 0, seed: int = 0):
    """MetaSchedule's evolutionary search, or with ``diverse`` >= 1 the diversity-aware choice of
    its batch around it (:class:`tvm_gnn.tune.diverse.DiverseSearch`, which embeds with
    ``model``'s GNN)."""
    if not diverse:
        return ms.search_strategy.EvolutionarySearch(
            population_size=population, eps_greedy=eps_greedy
        )
    from .diverse import DiverseSearch

    return DiverseSearch(
        model, widen=diverse, population=population, eps_greedy=eps_greedy, seed=seed
    )
