# Licensed under the Apache License, Version 2.0.
"""What ``tvm-gnn collect`` measures, and the provenance line each run writes."""

from __future__ import annotations

import datetime
import os
from dataclasses import asdict, dataclass

from ..measure.hardware import cpu_model, device_model
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

    def __post_init__(self):
        if not 0.0 <= self.uniform_fraction <= 1.0:
            raise ValueError(f"uniform_fraction must be in [0, 1], got {self.uniform_fraction}")
        if self.trials_per_task < 1 or self.batch_size < 1 or self.population < 1:
            raise ValueError("trials_per_task, batch_size and population must be positive")


def provenance(target, measure: MeasureConfig, cfg: CollectConfig, rpc_key=None) -> dict:
    import tvm

    return {
        "cpu_model": cpu_model() if rpc_key is None else f"remote devices under RPC key {rpc_key}",
        "cores": os.cpu_count(),
        **({} if target.kind.name == "llvm" or rpc_key else {"device": device_model(target)}),
        "target": str(target),
        "tvm_version": tvm.__version__,
        "measure": asdict(measure),
        "collect": asdict(cfg),
        "date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
    }
