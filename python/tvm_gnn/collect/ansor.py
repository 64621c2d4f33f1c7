# Licensed under the Apache License, Version 2.0.
"""Collect Ansor's measured states (TVM 0.19) into auto_scheduler's own record logs.

The layout is TenSet's: under ``ROOT/HARDWARE/``,

- ``measure_records/(WORKLOAD_KEY,TARGET_KIND).json``: one log a task, auto_scheduler's JSON lines
  (``auto_scheduler.load_records`` reads it, ``ApplyHistoryBest`` and ``XGBModel.update_from_file``
  take it). A task two networks share is one file, measured once;
- ``network_info/NETWORK.json``: the network's tasks (workload key, weight, description, log).

Per task, the rules of the MetaSchedule dataset (docs/collection.md): ``trials_per_task`` valid
measurements, ``uniform_fraction`` of them states drawn from the sketches at random (Ansor's
initial population), the rest found by Ansor's own search (``SketchPolicy`` with a new
``XGBModel``, which is random until its warm-up ends, seeded by the task's earlier records).

Resumable: each batch is appended to its log as it is measured, a cut last line is dropped, and
a task's valid records are counted before anything is measured, so the same command goes on where
a killed one stopped, losing at most one batch. One collector a hardware folder
(:func:`tvm_gnn.lock.one_writer`).
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from pathlib import Path

from ..atomic import write_json
from ..costs import FAILED_COST, ansor_cost
from ..lock import one_writer
from ..measure.relay import extract_tasks, relay_module
from .config import RunLog, provenance

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class AnsorCollectConfig:
    """What ``tvm-gnn collect --tuner ansor`` measures."""

    trials_per_task: int = 48  # valid measured states per task (failures kept, not counted)
    uniform_fraction: float = 0.5  # drawn from the sketches at random; the rest searched
    batch_size: int = 16  # states built and run together, appended together
    seed: int = 0
    max_tasks: int | None = None  # only the first N tasks of each network


@dataclass(frozen=True)
class AnsorMeasure:
    """How states are timed: auto_scheduler's ``LocalRunner`` / ``RPCRunner`` settings."""

    number: int = 3
    repeat: int = 1
    min_repeat_ms: int = 40
    cache_flush: bool = False
    build_timeout: int = 60
    run_timeout: int = 20
    rpc_tracker: tuple[str, int] | None = None
    rpc_key: str | None = None
    rpc_workers: int = 1

    def builder(self):
        from tvm import auto_scheduler

        return auto_scheduler.LocalBuilder(timeout=self.build_timeout)

    def runner(self):
        from tvm import auto_scheduler

        timing = {
            "number": self.number,
            "repeat": self.repeat,
            "min_repeat_ms": self.min_repeat_ms,
            "enable_cpu_cache_flush": self.cache_flush,
            "timeout": self.run_timeout,
        }
        if self.rpc_tracker is None:
            return auto_scheduler.LocalRunner(**timing)
        host, port = self.rpc_tracker
        return auto_scheduler.RPCRunner(
            self.rpc_key, host, port, n_parallel=self.rpc_workers, **timing
        )


def log_name(task) -> str:
    """TenSet's file name of a task's log: ``(WORKLOAD_KEY,TARGET_KIND).json``, without spaces
    and quotes."""
    key = re.sub(r"[\s\"']", "", str(task.workload_key))
    return f"({key},{task.target.kind.name}).json"


def drop_cut_line(path: Path) -> None:
    """Drop a last line a killed writer left without its newline: it cannot be read."""
    if not path.is_file() or path.stat().st_size == 0:
        return
    data = path.read_bytes()
    if data.endswith(b"\n"):
        return
    keep = data[: data.rfind(b"\n") + 1]
    path.write_bytes(keep)
    logger.warning("%s: dropped a cut last line (a killed run's)", path)


def valid_records(path: Path) -> tuple[int, int]:
    """``(valid, all)`` measured records in a task's log."""
    from tvm import auto_scheduler

    if not path.is_file():
        return 0, 0
    valid = total = 0
    for _, res in auto_scheduler.load_records(str(path)):
        total += 1
        valid += ansor_cost(res.error_no, res.costs) < FAILED_COST
    return valid, total


def _measure_uniform(task, log: Path, count: int, cfg, measure, seed: int) -> None:
    """Measure ``count`` valid states drawn from the sketches at random, batch by batch."""
    from tvm import auto_scheduler

    policy = auto_scheduler.SketchPolicy(task, params={}, seed=seed, verbose=0)
    builder, runner = measure.builder(), measure.runner()
    done, tries, budget = 0, 0, 2 * count + cfg.batch_size  # states that keep failing end it
    while done < count and tries < budget:
        pool = list(policy.sample_initial_population())
        if not pool:
            break
        for start in range(0, len(pool), cfg.batch_size):
            batch = pool[start : start + min(cfg.batch_size, count - done, budget - tries)]
            inputs = [auto_scheduler.MeasureInput(task, s) for s in batch]
            results = runner.run(inputs, builder.build(inputs, verbose=0), verbose=0)
            auto_scheduler.save_records(str(log), inputs, results)
            tries += len(batch)
            done += sum(ansor_cost(r.error_no, r.costs) < FAILED_COST for r in results)
            if done >= count or tries >= budget:
                break
    if done < count:
        logger.warning(
            "%s: %d of %d states drawn at random measured valid; the search measures the rest",
            task.desc,
            done,
            tries,
        )


def _measure_searched(task, log: Path, count: int, cfg, measure, seed: int) -> None:
    """Measure ``count`` states found by Ansor's search (seeded with the log's records)."""
    from tvm import auto_scheduler

    options = auto_scheduler.TuningOptions(
        num_measure_trials=max(count, 2),  # Ansor's search measures nothing when asked for one
        num_measures_per_round=cfg.batch_size,
        builder=measure.builder(),
        runner=measure.runner(),
        measure_callbacks=[auto_scheduler.RecordToFile(str(log))],
        verbose=0,
    )
    policy = auto_scheduler.SketchPolicy(
        task,
        program_cost_model=auto_scheduler.XGBModel(seed=seed, verbose_eval=0),
        seed=seed,
        verbose=0,
        init_search_callbacks=[auto_scheduler.PreloadMeasuredStates(str(log))],
    )
    task.tune(options, search_policy=policy)


def without_layout_rewrite(task):
    """The same task with Ansor's layout rewriting off."""
    from tvm import auto_scheduler

    return auto_scheduler.SearchTask(
        workload_key=task.workload_key,
        target=task.target,
        hardware_params=task.hardware_params,
        layout_rewrite_option=auto_scheduler.LayoutRewriteOption.NO_REWRITE,
        desc=task.desc,
    )


def builds(task, measure: AnsorMeasure, seed: int = 0) -> bool:
    """Whether any of a few of ``task``'s states builds: TVM 0.19's ``IndexRewriter`` fails on
    some dense tasks Relay extracts when layout rewriting is on ("Check failed: name_it !=
    name_to_arg.end()"), every state alike."""
    from tvm import auto_scheduler

    policy = auto_scheduler.SketchPolicy(task, params={}, seed=seed, verbose=0)
    inputs = [auto_scheduler.MeasureInput(task, s) for s in policy.sample_initial_population()[:2]]
    return not inputs or any(b.error_no == 0 for b in measure.builder().build(inputs, verbose=0))


def buildable(task, measure: AnsorMeasure, seed: int = 0):
    """``task``, or, where none of its states builds with layout rewriting, the task without."""
    from tvm import auto_scheduler

    if task.layout_rewrite_option == auto_scheduler.LayoutRewriteOption.NO_REWRITE:
        return task
    if builds(task, measure, seed):
        return task
    logger.warning("%s: no state builds with layout rewriting; measured without it", task.desc)
    return without_layout_rewrite(task)


def collect_task(task, log: Path, cfg: AnsorCollectConfig, measure: AnsorMeasure, seed: int):
    """Measure one task up to ``cfg.trials_per_task`` valid records; ``(valid, all)`` after."""
    drop_cut_line(log)
    valid, _ = valid_records(log)
    if valid >= cfg.trials_per_task:
        return valid_records(log)
    task = buildable(task, measure, seed)
    uniform = round(cfg.trials_per_task * cfg.uniform_fraction)
    if valid < uniform:
        _measure_uniform(task, log, uniform - valid, cfg, measure, seed + valid)
        valid, _ = valid_records(log)
    if valid < cfg.trials_per_task:
        _measure_searched(task, log, cfg.trials_per_task - valid, cfg, measure, seed + valid)
    return valid_records(log)


def collect_network(
    network: str,
    root,
    hardware: str,
    target,
    cfg: AnsorCollectConfig,
    measure: AnsorMeasure,
    progress: bool = True,
) -> dict:
    """Collect every task of ``network`` into ``root/hardware``; a summary of what is there."""
    from ..progress import bar

    folder = Path(root) / hardware
    mod, params, _ = relay_module(network, seed=cfg.seed)
    tasks, weights = extract_tasks(mod, params, target)
    if cfg.max_tasks:
        tasks, weights = tasks[: cfg.max_tasks], weights[: cfg.max_tasks]
    with one_writer(folder, f"tvm-gnn collect --tuner ansor {network}"):
        records = folder / "measure_records"
        records.mkdir(parents=True, exist_ok=True)
        info = [
            {
                "workload_key": str(t.workload_key),
                "weight": int(w),
                "desc": t.desc,
                "log": f"measure_records/{log_name(t)}",
            }
            for t, w in zip(tasks, weights)
        ]
        write_json(folder / "network_info" / f"{network}.json", {"tasks": info})
        write_json(folder / "network_info" / f"{network}.workloads.json", workloads(tasks))
        line = provenance(target, measure, cfg, measure.rpc_key if measure.rpc_tracker else None)
        # who measured: one line a run (its network, CPU, settings; records added, seconds), which
        # `collect` reads to refuse mixing another CPU's latencies into this folder
        run_log = RunLog(folder / "network_info" / "provenance.jsonl", {**line, "network": network})
        valid = total = added = 0
        for i, task in enumerate(bar(tasks, f"{network} (Ansor)", progress, unit="task")):
            log = records / log_name(task)
            drop_cut_line(log)  # before counting: TVM's reader stops at a cut line
            before = valid_records(log)[1]
            v, n = collect_task(task, log, cfg, measure, cfg.seed + 1000 * i)
            valid, total, added = valid + v, total + n, added + n - before
            run_log.update(added)
    return {
        "network": network,
        "tuner": "ansor",
        "tasks": len(tasks),
        "records": total,
        "valid": valid,
        "folder": str(folder),
    }


def workloads(tasks) -> dict[str, str]:
    """The tasks' compute DAGs as auto_scheduler serializes its workload registry
    (``{name: JSON}``): what a later process registers
    (:func:`tvm_gnn.dataset.ansor_records.register_workloads`) to read the
    logs of tasks Relay extracted, whose workload keys name no built-in function."""
    from tvm.auto_scheduler.workload_registry import serialize_workload_registry_entry

    return dict(serialize_workload_registry_entry(str(t.workload_key)) for t in tasks)
