# Licensed under the Apache License, Version 2.0.
"""``tvm-gnn tune``: tune a whole network with MetaSchedule, compile it, check it, time it.

The network comes from its PyTorch definition through Relax (:mod:`tvm_gnn.networks`); the task
scheduler splits the trial budget over its tasks; the tuned network is compiled with the database,
its output is compared with PyTorch's (a mismatch is an error), and its end-to-end latency is the
median of repeated runs. The JSON log records, after every measured batch, the task scheduler's
estimate of end-to-end latency (sum over tasks of weight x best latency so far) by trials and by
wall-clock time, and MetaSchedule's profile of where tuning time went.
"""

from __future__ import annotations

import json
import logging
import math
import os
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from tvm.ir.utils import derived_object
from tvm.s_tir.meta_schedule.measure_callback import PyMeasureCallback

from .tune import measured_latency

logger = logging.getLogger(__name__)


class OutputMismatchError(RuntimeError):
    """The tuned network's output differs from PyTorch's."""


@derived_object
class CurveCallback(PyMeasureCallback):
    """Records the estimated end-to-end latency after each measured batch; drives a progress bar."""

    def __init__(self, weights: dict[int, float], total: int, progress: bool = True):
        from tqdm import tqdm

        self.weights = weights
        self.best: dict[int, float] = {}
        self.start = time.perf_counter()
        self.trials = 0
        self.errors = 0
        self.curve: list[dict] = []
        self.bar = tqdm(total=total, desc="tune", unit="trial", disable=not progress)

    def estimate(self) -> float:
        if len(self.best) < len(self.weights):
            return math.inf
        return sum(w * self.best[t] for t, w in self.weights.items())

    def apply(self, task_scheduler, task_id, measure_candidates, builder_results, runner_results):
        for b, r in zip(builder_results, runner_results):
            lat = measured_latency(b, r)
            if lat is None:
                self.errors += 1
                continue
            self.best[task_id] = min(self.best.get(task_id, math.inf), lat)
        self.trials += len(runner_results)
        est = self.estimate()
        self.curve.append({"trials": self.trials, "seconds": time.perf_counter() - self.start,
                           "estimated_latency_s": est if math.isfinite(est) else None})
        self.bar.update(len(runner_results))
        if math.isfinite(est):
            self.bar.set_postfix(estimate=f"{est * 1e3:.3f} ms", errors=self.errors)


@dataclass
class TuneResult:
    network: str
    cost_model: str
    trials: int
    latency_ms_median: float
    latency_ms_runs: list[float]
    tuning_seconds: float
    log_path: str


def tune_network(network: str, cost_model: str, trials: int, target, work_dir, *, seed: int = 0,
                 checkpoint=None, trials_per_iter: int = 32, repeats: int = 10,
                 rtol: float = 1e-3, atol: float = 1e-4, progress: bool = True,
                 strategy: str = "evolutionary") -> TuneResult:  # fmt: skip
    """Tune, compile, check and time one network; write ``work_dir/tune_log.json``.

    ``strategy`` is MetaSchedule's search strategy: ``evolutionary`` (what tuning uses) or
    ``replay-trace`` (random sampling, no search: quick checks).

    Raises
    ------
    OutputMismatchError
        If the compiled network's output is not allclose to PyTorch's.
    """
    import torch
    import tvm
    from tvm import relax
    from tvm.s_tir import meta_schedule as ms

    from .builder import make_builder
    from . import networks
    from .tune import make_cost_model

    work_dir = Path(work_dir)
    work_dir.mkdir(parents=True, exist_ok=True)
    model, example = networks.get_torch(network, seed=seed)
    with torch.no_grad():
        expected = model(example).numpy()
    mod = networks.to_relax(model, example)
    tasks = ms.relax_integration.extract_tasks(mod, target)
    weights = {i: float(t.weight) for i, t in enumerate(tasks)}
    logger.info("%s: %d tasks", network, len(tasks))
    curve = CurveCallback(weights, trials, progress)
    cm = make_cost_model(cost_model, seed=seed, checkpoint=checkpoint)
    start = time.perf_counter()
    with ms.Profiler() as profiler:
        database = ms.relax_integration.tune_relax(
            mod=mod, params={}, target=target, work_dir=str(work_dir), max_trials_global=trials,
            num_trials_per_iter=trials_per_iter, builder=make_builder(), cost_model=cm,
            measure_callbacks=[*ms.measure_callback.MeasureCallback.create("default"), curve],
            seed=seed, strategy=strategy,
        )  # fmt: skip
    tuning_seconds = time.perf_counter() - start
    curve.bar.close()
    executable = ms.relax_integration.compile_relax(database, mod, target, params=None)
    dev = tvm.cpu() if target.kind.name == "llvm" else tvm.device(target.kind.name)
    vm = relax.VirtualMachine(executable, dev)
    inp = tvm.runtime.tensor(example.numpy(), dev)
    out = vm["main"](inp)
    got = (out[0] if isinstance(out, (list, tuple)) or hasattr(out, "__getitem__")
           and not hasattr(out, "numpy") else out).numpy()  # fmt: skip
    if got.shape != expected.shape or not np.allclose(got, expected, rtol=rtol, atol=atol):
        diff = float(np.max(np.abs(got - expected))) if got.shape == expected.shape else math.nan
        raise OutputMismatchError(
            f"{network}: tuned output differs from PyTorch's (shape {got.shape} vs "
            f"{expected.shape}, max abs diff {diff:.3g}, rtol={rtol}, atol={atol})"
        )
    timer = vm.time_evaluator("main", dev, number=1, repeat=repeats, min_repeat_ms=50)
    runs = [float(s) * 1e3 for s in timer(inp).results]
    result = TuneResult(network, cost_model, trials, float(np.median(runs)), runs, tuning_seconds,
                        str(work_dir / "tune_log.json"))  # fmt: skip
    profile = {k: float(v) for k, v in profiler.get().items()}
    log = {**result.__dict__, "target": str(target), "seed": seed, "tasks": len(tasks),
           "failed_trials": curve.errors, "curve": curve.curve, "profile_seconds": profile,
           "cpu_count": os.cpu_count(), "tvm_version": tvm.__version__}  # fmt: skip
    tmp = work_dir / "tune_log.json.tmp"
    tmp.write_text(json.dumps(log, indent=1))
    os.replace(tmp, work_dir / "tune_log.json")
    return result
