# Licensed under the Apache License, Version 2.0.
"""What ``tvm-gnn collect`` measures, and the provenance line each run writes."""

from __future__ import annotations

import datetime
import json
import os
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from .. import atomic
from ..measure.hardware import cpu_identity, cpu_model, device_model
from ..measure.runner import SEARCH_POPULATION, MeasureConfig


@dataclass(frozen=True)
class CollectConfig:
    """What is measured."""

    trials_per_task: int = 48  # measured candidates per task (failures included)
    uniform_fraction: float = 0.5  # share sampled uniformly from the design space
    batch_size: int = 16  # candidates built and run per batch (the commit granularity)
    seed: int = 0  # seeds sampling and search
    max_tasks: int | None = None  # only the first N tasks of each network (smoke runs)
    population: int = SEARCH_POPULATION  # the evolutionary search's population
    # a task whose first trials_per_task valid latencies spread by at least this ratio (90th
    # percentile over 10th) is measured up to wide_spread_trials; None: every task stops at
    # trials_per_task
    wide_spread: float | None = None
    wide_spread_trials: int | None = None  # None: twice trials_per_task
    # leave to the other networks of the hardware a task whose workload one of them already has
    # trials_per_task valid records of, unless this network's folder has begun it
    skip_shared: bool = False

    def __post_init__(self):
        if not 0.0 <= self.uniform_fraction <= 1.0:
            raise ValueError(f"uniform_fraction must be in [0, 1], got {self.uniform_fraction}")
        if self.trials_per_task < 1 or self.batch_size < 1 or self.population < 1:
            raise ValueError("trials_per_task, batch_size and population must be positive")
        if self.wide_spread is not None and not self.wide_spread > 1.0:
            raise ValueError(f"wide_spread must be a ratio above 1, got {self.wide_spread}")
        if self.wide_spread_trials is not None and self.wide_spread_trials < self.trials_per_task:
            raise ValueError(
                f"wide_spread_trials ({self.wide_spread_trials}) must be at least "
                f"trials_per_task ({self.trials_per_task})"
            )

    def task_target(self, latencies) -> int:
        """Valid records to measure for a task whose valid records so far have ``latencies`` (in
        the order recorded): ``wide_spread_trials`` if the first ``trials_per_task`` of them are
        all in and spread by at least ``wide_spread``, else ``trials_per_task``. Deciding on the
        first ones only keeps the decision the same when a killed collection resumes."""
        first = list(latencies)[: self.trials_per_task]
        if self.wide_spread is None or len(first) < self.trials_per_task:
            return self.trials_per_task
        if latency_spread(first) < self.wide_spread:
            return self.trials_per_task
        return self.wide_spread_trials or 2 * self.trials_per_task


def latency_spread(latencies) -> float:
    """How widely ``latencies`` spread: their 90th percentile over their 10th (1.0 when equal).
    Percentiles rather than the extremes, so one outlier does not make a task wide."""
    lat = np.asarray(latencies, dtype=float)
    return float(np.percentile(lat, 90) / np.percentile(lat, 10))


def provenance(target, measure: MeasureConfig, cfg: CollectConfig, rpc_key=None) -> dict:
    import tvm

    return {
        "cpu_model": cpu_model() if rpc_key is None else f"remote devices under RPC key {rpc_key}",
        **({} if rpc_key else {"cpu_id": cpu_identity()}),
        "cores": os.cpu_count(),
        **({} if target.kind.name == "llvm" or rpc_key else {"device": device_model(target)}),
        "target": str(target),
        "tvm_version": tvm.__version__,
        "measure": asdict(measure),
        "collect": asdict(cfg),
        "date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
    }


class RunLog:
    """This run's line of ``provenance.jsonl``, kept current as the run goes: after each task it
    gains ``measured`` (records written so far, failed candidates included) and ``seconds`` (wall
    time since the run began, task extraction included), rewritten atomically, so a run stopped at
    any point leaves its collection rate as of its last finished task. ``start`` is the run's
    ``time.monotonic()`` at its beginning (default: now)."""

    def __init__(self, path, line: dict, start: float | None = None):
        self.path = Path(path)
        self.start = time.monotonic() if start is None else start
        self.lines = self.path.read_text().splitlines() if self.path.exists() else []
        self.lines = [ln for ln in self.lines if ln.strip()]
        self.line = {**line, "measured": 0, "seconds": 0.0}
        self.lines.append("")
        self.update(0)

    def update(self, measured: int) -> None:
        self.line.update(measured=measured, seconds=round(time.monotonic() - self.start, 1))
        self.lines[-1] = json.dumps(self.line)
        atomic.write_text(self.path, "\n".join(self.lines) + "\n")
