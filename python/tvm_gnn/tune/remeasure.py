# Licensed under the Apache License, Version 2.0.
"""Why a tuned network is not as fast as the task scheduler's estimate: its best schedules again.

The task scheduler's estimate of a network's latency is the sum over tasks of weight x best
latency measured during tuning. Two things make the compiled network differ from it:

- **selection on noise**: each task's best is the minimum over many noisy measurements, so it is
  biased low, and more so the more good candidates a search measured;
- **warm caches**: MetaSchedule's default runner times each candidate alone, several runs in a
  row, its inputs and weights already in the CPU cache. In the network every kernel starts on
  data the kernels before it pushed out of the cache.

:func:`remeasure_best` times every run's best schedule of every task again, warm (as tuning
measured it) and cold (the CPU cache flushed before every run: what the runner does with
``EvaluatorConfig(enable_cpu_cache_flush=True)``), the runs of one task in turn so that drift hits
them alike. Summed with the task weights, the cold times predict the compiled network's ordering
where the tuning-time estimate may not.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..costs import run_cost
from ..jsonfile import read_json


def _timing(config) -> dict:
    """``time_evaluator`` arguments that time as MetaSchedule's ``EvaluatorConfig`` ``config``."""
    return {
        "number": config.number,
        "repeat": config.repeat,
        "min_repeat_ms": config.min_repeat_ms,
        "f_preproc": "cache_flush_cpu_non_first_arg" if config.enable_cpu_cache_flush else "",
    }


def _inputs(prim_func, dev, rng):
    """Random arguments for ``prim_func``: floats uniform in [0, 1), integers zero."""
    import tvm
    from tvm.s_tir import meta_schedule as ms

    out = []
    for info in ms.arg_info.ArgInfo.from_prim_func(prim_func):
        shape, dtype = [int(s) for s in info.shape], str(info.dtype)
        data = rng.uniform(size=shape) if "float" in dtype else np.zeros(shape)
        out.append(tvm.runtime.tensor(data.astype(dtype), dev))
    return out


def _time_us(rt_mod, dev, args, how: dict) -> float:
    timer = rt_mod.time_evaluator("main", dev, **how)
    return float(np.median(timer(*args).results)) * 1e6


def remeasure_best(
    work_dirs: dict, budget: int, *, seed: int = 0, progress: bool = True
) -> dict[str, dict]:
    """Each run's best schedule of every task (after ``budget`` trials), timed warm and cold.

    Parameters
    ----------
    work_dirs
        ``{label: work_dir}`` of finished runs of one network and target (``tune_log.json`` and
        the run's database in each).
    budget
        Only each run's first ``budget`` measured trials count, as in
        :func:`tvm_gnn.tune.budgets.database_at`.
    seed
        Seeds the random inputs.

    Returns
    -------
    dict
        ``{task: {"weight": w, label: {"tuned": us, "warm": us, "cold": us} or None}}``: the mean
        latency the database holds for the best record, then the same schedule timed again warm
        and cold (median of the timings, microseconds). ``None`` where a run had no working
        record for the task.
    """
    import tvm
    from tqdm import tqdm
    from tvm.s_tir import meta_schedule as ms

    from ..measure.runner import COLD_MEASURE, evaluator_config
    from .end_to_end import reference_network

    logs = {k: read_json(Path(w) / "tune_log.json") for k, w in work_dirs.items()}
    kinds = {(lg["network"], lg["target"]) for lg in logs.values()}
    if len(kinds) != 1:
        raise ValueError(f"remeasure_best compares runs of one network and target, got {kinds}")
    ((network, target_str),) = kinds
    target = tvm.target.Target(target_str)
    if target.kind.name != "llvm":
        raise ValueError(f"remeasure_best times CPU kernels (llvm targets), got {target.kind.name}")
    dev = tvm.cpu()
    mod = reference_network(network, seed)[0]
    tasks = ms.relax_integration.extract_tasks(mod, target)

    built = _build_bests(work_dirs, budget, tasks, target, f"{network} build bests", progress)
    warm = _timing(ms.runner.EvaluatorConfig())  # how tuning timed every candidate
    cold = _timing(evaluator_config(COLD_MEASURE))  # what ``tvm-gnn tune --cache-flush`` does
    rng = np.random.default_rng(seed)
    labels = list(work_dirs)
    out: dict[str, dict] = {}
    for i, task in enumerate(tqdm(tasks, desc=f"{network} re-time bests", disable=not progress)):
        row: dict = {"weight": float(task.weight)}
        args = None
        shift = i % len(labels)
        for label in labels[shift:] + labels[:shift]:  # the order rotated from task to task
            entry = built[task.task_name][label]
            if entry is None:
                row[label] = None
                continue
            rt_mod, prim_func, tuned = entry
            args = args or _inputs(prim_func, dev, rng)  # one set of inputs for every run
            row[label] = {
                "tuned": tuned,
                "warm": _time_us(rt_mod, dev, args, warm),
                "cold": _time_us(rt_mod, dev, args, cold),
            }
        out[task.task_name] = row
    return out


def _build_bests(work_dirs: dict, budget: int, tasks, target, desc: str, progress: bool) -> dict:
    """``{task: {label: (runtime module, PrimFunc, tuned us) or None}}``: every run's best
    schedule of every task after ``budget`` trials, built (``None``: no working record)."""
    from tqdm import tqdm

    from ..measure.builder import build
    from .budgets import database_at, read_run_database

    built: dict[str, dict[str, tuple | None]] = {}
    for label, w in tqdm(work_dirs.items(), desc=desc, disable=not progress):
        with database_at(read_run_database(w), budget) as (db, _):
            for task in tasks:
                rec = db.query_tuning_record(task.dispatched[0], target, task.task_name)
                if rec is None:
                    built.setdefault(task.task_name, {})[label] = None
                    continue
                sch_mod = rec.as_measure_candidate().sch.mod
                tuned = run_cost(rec.run_secs) * 1e6
                rt_mod = build(sch_mod, target)
                built.setdefault(task.task_name, {})[label] = (rt_mod, sch_mod["main"], tuned)
    return built


def weighted_sums(remeasured: dict[str, dict]) -> dict[str, dict[str, float]]:
    """``{label: {"tuned": ms, "warm": ms, "cold": ms}}``: sum over tasks of weight x latency.

    A label that lacks a record for some task gets ``nan`` (its network would run that task
    unscheduled, which no sum of kernel times here predicts).
    """
    labels = {k for row in remeasured.values() for k in row if k != "weight"}
    sums = {}
    for label in sorted(labels):
        rows = [(row["weight"], row.get(label)) for row in remeasured.values()]
        sums[label] = {
            key: (
                sum(w * r[key] for w, r in rows) / 1e3
                if all(r is not None for _, r in rows)
                else float("nan")
            )
            for key in ("tuned", "warm", "cold")
        }
    return sums
