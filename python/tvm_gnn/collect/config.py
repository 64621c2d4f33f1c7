# Licensed under the Apache License, Version 2.0.
"""What ``tvm-gnn collect`` measures, and the provenance line each run writes."""

from __future__ import annotations

import datetime
import json
import os
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from .. import atomic
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
