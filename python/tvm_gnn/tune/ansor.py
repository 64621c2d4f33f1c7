# Licensed under the Apache License, Version 2.0.
"""Tune a whole network with Ansor (TVM 0.19): ``tvm-gnn tune --tuner ansor``.

The network comes through Relay (:mod:`tvm_gnn.measure.relay`); Ansor's task scheduler shares
one cost model among all tasks (``gnn``: :class:`tvm_gnn.cost_models.ansor.GNNModel`, the
shipped weights; ``xgb``: Ansor's ``XGBModel``; ``random``). The records go to
``WORK_DIR/records.json``; the network is compiled with ``ApplyHistoryBest`` of them, its output
checked against an untuned build of the same network (a mismatch is an error), and timed. The
cost model's share of the wall-clock is measured around its ``predict`` and ``update``.
"""

from __future__ import annotations

import json
import logging
import os
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from ..measure.relay import INPUT, extract_tasks, relay_module
from .compile import check_output

logger = logging.getLogger(__name__)

ANSOR_COST_MODELS = ("gnn", "xgb", "random")
#: the per-task benchmark's models (:mod:`.ansor_task`): ``xgb-pretrained`` is XGBModel first
#: trained on records (``pretrain``), the fair peer of GNN weights trained on the same ones
TASK_COST_MODELS = ANSOR_COST_MODELS + ("xgb-pretrained",)


@dataclass
class AnsorTuneResult:
    network: str
    cost_model: str
    trials: int
    tasks: int
    latency_ms_median: float
    latency_ms_untuned: float
    tuning_seconds: float
    cost_model_seconds: float
    records: int
    log_path: str

    @property
    def cost_model_share(self) -> float:
        return self.cost_model_seconds / self.tuning_seconds if self.tuning_seconds else 0.0


def _timed_model(kind: str, seed: int, checkpoint=None, pretrain=None):
    """The cost model, wrapped so that the time spent in it is counted; ``(model, clock)``.
    ``pretrain()``: the ``(inputs, results)`` an ``xgb-pretrained`` model is first updated with
    (not counted)."""
    from tvm import auto_scheduler
    from tvm.auto_scheduler.cost_model.cost_model import PythonBasedModel

    if kind == "gnn":
        from ..cost_models.ansor import AnsorGNN

        inner = AnsorGNN(checkpoint=checkpoint, seed=seed)
    elif kind in ("xgb", "xgb-pretrained"):
        inner = auto_scheduler.XGBModel(seed=seed, verbose_eval=0)
        if kind == "xgb-pretrained":
            if pretrain is None:
                raise ValueError("xgb-pretrained needs the records to pretrain on")
            inner.update(*pretrain())
    elif kind == "random":
        inner = None
    else:
        raise ValueError(f"unknown cost model {kind!r}; choose one of {TASK_COST_MODELS}")
    clock = {"seconds": 0.0}
    rng = np.random.default_rng(seed)

    class Timed(PythonBasedModel):
        def update(self, inputs, results):
            t = time.perf_counter()
            if inner is not None:
                inner.update(inputs, results)
            clock["seconds"] += time.perf_counter() - t

        def predict(self, task, states):
            t = time.perf_counter()
            out = rng.uniform(0, 1, len(states)) if inner is None else inner.predict(task, states)
            clock["seconds"] += time.perf_counter() - t
            return out

    return Timed(), clock


def _build(mod, params, target, log=None, rewrite: bool = True):
    import tvm
    from tvm import auto_scheduler, relay

    os.environ.setdefault("TOPHUB_LOCATION", "NONE")  # relay.build would download TopHub's

    config = {"relay.backend.use_auto_scheduler": log is not None}
    off = set() if rewrite else {"AutoSchedulerLayoutRewrite"}
    if log is None:
        with tvm.transform.PassContext(opt_level=3, config=config):
            return relay.build(mod, target=target, params=params)
    with auto_scheduler.ApplyHistoryBest(str(log)):
        with tvm.transform.PassContext(opt_level=3, config=config, disabled_pass=off):
            return relay.build(mod, target=target, params=params)


def _run(lib, x, repeats: int):
    """``(output, median latency in ms)`` of a compiled network on input ``x``."""
    import tvm
    from tvm.contrib import graph_executor

    dev = tvm.cpu()
    module = graph_executor.GraphModule(lib["default"](dev))
    module.set_input(INPUT, x)
    module.run()
    out = module.get_output(0).numpy()
    timer = module.module.time_evaluator("run", dev, number=1, repeat=repeats, min_repeat_ms=50)
    return out, float(np.median(timer().results)) * 1e3


def tune_network(
    network: str,
    cost_model: str,
    trials: int,
    target,
    work_dir,
    *,
    seed: int = 0,
    trials_per_round: int = 16,
    repeats: int = 10,
    measure=None,
    checkpoint=None,
    progress: bool = True,
) -> AnsorTuneResult:
    """Tune ``network`` for ``trials`` measurements over all its tasks, compile, check, time."""
    from tvm import auto_scheduler

    from ..collect.ansor import AnsorMeasure, builds, without_layout_rewrite

    measure = measure or AnsorMeasure()
    work_dir = Path(work_dir)
    work_dir.mkdir(parents=True, exist_ok=True)
    log = work_dir / "records.json"
    mod, params, shape = relay_module(network, seed=seed)
    tasks, weights = extract_tasks(mod, params, target)
    # TVM 0.19 cannot build some tasks with layout rewriting; then the whole network is tuned
    # and compiled without it, so that every record applies as it was measured
    rewrite = all(builds(t, measure, seed) for t in tasks)
    if not rewrite:
        logger.warning("%s: a task does not build with layout rewriting; tuned without it", network)
        tasks = [without_layout_rewrite(t) for t in tasks]
    model, clock = _timed_model(cost_model, seed, checkpoint)
    policies = [
        auto_scheduler.SketchPolicy(t, program_cost_model=model, seed=seed + i, verbose=0)
        for i, t in enumerate(tasks)
    ]
    bar = _ProgressBar(trials, network) if progress else None
    options = tuning_options(trials, trials_per_round, measure, log, bar)
    from tvm.auto_scheduler.task_scheduler import LogEstimatedLatency

    # the scheduler's table goes to a file, not the console; its task choice draws from numpy
    scheduler = auto_scheduler.TaskScheduler(
        tasks, weights, callbacks=[LogEstimatedLatency(str(work_dir / "estimated_latency.tsv"))]
    )
    np.random.seed(seed)
    start = time.perf_counter()
    scheduler.tune(options, search_policy=policies)
    tuning_seconds = time.perf_counter() - start
    if bar is not None:
        bar.close()
    x = np.random.default_rng(seed).standard_normal(shape).astype("float32")
    tuned_ms, untuned_ms = _checked_latency(network, mod, params, target, log, rewrite, x, repeats)
    result = AnsorTuneResult(
        network=network,
        cost_model=cost_model,
        trials=trials,
        tasks=len(tasks),
        latency_ms_median=tuned_ms,
        latency_ms_untuned=untuned_ms,
        tuning_seconds=tuning_seconds,
        cost_model_seconds=clock["seconds"],
        records=sum(1 for _ in open(log)) if log.is_file() else 0,
        log_path=str(log),
    )
    _write_summary(work_dir, result, seed, rewrite, _estimate_curve(log, tasks, weights))
    return result


def _write_summary(work_dir: Path, result: AnsorTuneResult, seed, rewrite, curve) -> None:
    summary = {
        **asdict(result),
        "cost_model_share": result.cost_model_share,
        "seed": seed,
        "layout_rewrite": rewrite,
        "curve": curve,  # the task scheduler's estimate after each trial (seconds)
    }
    (work_dir / "tune_result.json").write_text(json.dumps(summary, indent=1) + "\n")


def _estimate_curve(log, tasks, weights) -> list[float]:
    """The task scheduler's estimate after each record of a network's log: the sum over tasks of
    weight x best latency so far (seconds; inf until every task has a valid record)."""
    from tvm import auto_scheduler

    from ..costs import FAILED_COST, ansor_cost

    index = {str(t.workload_key): i for i, t in enumerate(tasks)}
    best = [float("inf")] * len(tasks)
    curve = []
    if Path(log).is_file():
        for inp, res in auto_scheduler.load_records(str(log)):
            i = index.get(str(inp.task.workload_key))
            cost = ansor_cost(res.error_no, res.costs)
            if i is not None and cost < FAILED_COST:
                best[i] = min(best[i], cost)
            curve.append(float(sum(w * b for w, b in zip(weights, best))))
    return curve


def head_to_head(
    network: str, logs: dict, target, *, rounds: int = 20, seed: int = 0, rewrite: bool = True
) -> dict:
    """Each log's compiled network timed in turns in one process: ``rounds`` rounds, each timing
    every build once (``{name: [ms a round]}``); outputs checked against the untuned build."""
    mod, params, shape = relay_module(network, seed=seed)
    x = np.random.default_rng(seed).standard_normal(shape).astype("float32")
    ref, _ = _run(_build(mod, params, target), x, 1)
    libs = {}
    for name, log in logs.items():
        lib = _build(mod, params, target, log, rewrite)
        out, _ = _run(lib, x, 1)
        what = f"{network} ({log})"
        check_output(out, ref, rtol=1e-3, atol=1e-3, what=what, against="the untuned build's")
        libs[name] = lib
    times = {name: [] for name in libs}
    for r in range(rounds):
        order = list(libs) if r % 2 == 0 else list(libs)[::-1]
        for name in order:
            times[name].append(_run(libs[name], x, 5)[1])
    return times


def _checked_latency(network, mod, params, target, log, rewrite, x, repeats):
    """``(tuned, untuned)`` latency in ms; :class:`~.compile.OutputMismatchError` where the
    outputs of the network compiled with the records and without them differ."""
    ref, untuned_ms = _run(_build(mod, params, target), x, repeats)
    out, tuned_ms = _run(_build(mod, params, target, log, rewrite), x, repeats)
    check_output(
        out, ref, rtol=1e-3, atol=1e-3, what=f"{network} ({log})", against="the untuned build's"
    )
    return tuned_ms, untuned_ms


def tuning_options(trials: int, trials_per_round: int, measure, log, bar=None):
    """Ansor's ``TuningOptions``: ``measure``'s builder and runner, each record appended to
    ``log``, and each round's measurements counted on ``bar`` (a :class:`_ProgressBar`)."""
    from tvm import auto_scheduler

    callbacks = [auto_scheduler.RecordToFile(str(log))]
    if bar is not None:
        callbacks.append(_as_callback(bar))
    return auto_scheduler.TuningOptions(
        num_measure_trials=trials,
        num_measures_per_round=trials_per_round,
        builder=measure.builder(),
        runner=measure.runner(),
        measure_callbacks=callbacks,
        verbose=0,
    )


class _ProgressBar:
    """A measure callback that advances a tqdm bar by each round's measurements."""

    def __init__(self, total: int, network: str):
        from tqdm import tqdm

        self.bar = tqdm(total=total, desc=f"{network} (Ansor)", unit="trial")

    def callback(self, policy, inputs, results):
        self.bar.update(len(inputs))

    def close(self):
        self.bar.close()


def _as_callback(obj):
    from tvm.auto_scheduler.measure import PythonBasedMeasureCallback

    class Callback(PythonBasedMeasureCallback):
        def callback(self, policy, inputs, results):
            obj.callback(policy, inputs, results)

    return Callback()
