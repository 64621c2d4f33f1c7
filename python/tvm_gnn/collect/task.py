# Licensed under the Apache License, Version 2.0.
"""Measuring one task: uniform samples, then evolutionary search, then uniform draws to finish."""

from __future__ import annotations

import os
from pathlib import Path

from .. import atomic
from ..dataset.layout import EXHAUSTED_FILE, read_exhausted
from ..measure.sampling import sample_candidates
from .config import CollectConfig
from .records import _commit, _commit_new_class, _existing, _measure_batch, _record_key

#: Evolutionary searches per task and run at most; each new one starts from another seed.
EVOLUTION_ROUNDS = 3


def collect_task(
    task_name,
    mod,
    folder: Path,
    target,
    cfg: CollectConfig,
    builder,
    runner,
    bar=None,
    task_index: int = 0,
    db=None,
    existing=None,
) -> dict:
    """Measure one task up to ``cfg.trials_per_task`` valid records; returns counts.

    ``db`` (the folder's JSONDatabase) and ``existing`` (``_existing(folder)``) may be passed in
    when many tasks of one folder are collected: loading them costs seconds per call.
    """
    import tvm_ffi
    from tvm.s_tir import meta_schedule as ms

    shash = str(tvm_ffi.structural_hash(mod))
    done = {"task": task_name, "shash": shash, "measured": 0, "failed": 0, "repeats": 0}
    exhausted = read_exhausted(folder)
    if shash in exhausted:
        return done  # an earlier run found every program of this design space
    counts, keys, _ = existing or _existing(folder)
    have = counts.get(shash, 0)
    if have >= cfg.trials_per_task:
        return done
    db = db or ms.database.JSONDatabase(work_dir=str(folder))
    workload = db.commit_workload(mod)
    seen = set(keys.get(shash, set()))  # the traces this task's records hold
    # 1. uniform samples: deterministic per (seed, task), so a rerun skips what is recorded
    n_uniform = round(cfg.trials_per_task * cfg.uniform_fraction)

    def measure(todo):
        nonlocal have
        for i in range(0, len(todo), cfg.batch_size):
            batch = [c for _, c in todo[i : i + cfg.batch_size]]
            results = _measure_batch(batch, target, builder, runner)
            failed = _commit(db, workload, target, batch, results)
            done["failed"] += failed
            seen.update(key for key, _ in todo[i : i + cfg.batch_size])
            done["measured"] += len(batch)
            have += len(batch) - failed
            if bar is not None:
                bar.update(len(batch))

    if have < n_uniform:
        todo = unrecorded_draws(
            mod, target, workload, seen, n_uniform, seed=cfg.seed * 7919 + task_index
        )
        measure(todo[: n_uniform - have])
    # 2. evolutionary search for the rest, into the same database
    gained, spent = _evolve(task_name, mod, folder, target, cfg, (builder, runner, db), workload,
                            seen, bar, task_index, cfg.trials_per_task - have, done)  # fmt: skip
    have += gained
    if spent:  # the search stops early only when it finds no program it has not measured
        exhausted = exhausted | {shash}
        atomic.write_json(folder / EXHAUSTED_FILE, sorted(exhausted))
    # 3. still short: many uniform draws find what the search missed, or show there is none
    if have < cfg.trials_per_task and shash not in exhausted:
        rest = cfg.trials_per_task - have
        todo = unrecorded_draws(
            mod,
            target,
            workload,
            seen,
            EXHAUST_DRAWS,
            seed=_search_seed(cfg.seed, task_index, EVOLUTION_ROUNDS),
        )
        measure(todo[:rest])
        if len(todo) < rest:  # every program the draws found is recorded now, and it was too few
            atomic.write_json(folder / EXHAUSTED_FILE, sorted(exhausted | {shash}))
    return done


def _evolve(task_name, mod, folder: Path, target, cfg: CollectConfig, tools, workload, seen: set,
            bar, task_index: int, need: int, done: dict) -> tuple[int, bool]:  # fmt: skip
    """Up to :data:`EVOLUTION_ROUNDS` evolutionary searches, each from another seed, until
    ``need`` more records are in; counts go into ``done``. Returns the records added and whether
    a search ran out of programs it had not measured (the design space is exhausted)."""
    gained = 0
    for search in range(EVOLUTION_ROUNDS):
        rest = need - gained
        if rest <= 0:
            break
        commit = _commit_new_class()(tools[2], workload, target, seen, bar)
        seed = _search_seed(cfg.seed, task_index, search)
        _search(task_name, mod, folder, target, cfg, tools, commit, seed, rest)
        done["measured"] += commit.new
        done["failed"] += commit.failed
        done["repeats"] += commit.repeats
        gained += commit.new
        if commit.proposed < rest:
            return gained, True
        if commit.new == 0:
            break  # everything it proposed was recorded already
    return gained, False


def _search(
    task_name, mod, folder: Path, target, cfg: CollectConfig, tools, commit, seed: int, rest: int
) -> None:
    """One evolutionary search of the task, guided by XGBModel, for ``rest`` more programs:
    ``commit`` (a ``CommitNew`` callback) records what it measures. ``tools`` is ``(builder,
    runner, database)``."""
    from tvm.s_tir import meta_schedule as ms

    builder, runner, db = tools
    ctx = ms.TuneContext(
        mod=mod,
        target=target,
        space_generator="post-order-apply",
        search_strategy=ms.search_strategy.EvolutionarySearch(population_size=cfg.population),
        task_name=task_name,
        rand_state=seed,
        num_threads=os.cpu_count() or 1,
    ).clone()
    ms.tune.tune_tasks(
        tasks=[ctx],
        task_weights=[1.0],
        work_dir=str(folder / "ms_logs"),
        max_trials_global=rest,
        num_trials_per_iter=min(cfg.batch_size, rest),
        builder=builder,
        runner=runner,
        database=db,
        cost_model="xgb",
        measure_callbacks=[
            commit,
            ms.measure_callback.RemoveBuildArtifact(),
            ms.measure_callback.UpdateCostModel(),
        ],
    )


#: Uniform draws that decide whether a task still short after its search has more programs.
EXHAUST_DRAWS = 512


def unrecorded_draws(mod, target, workload, seen: set, n: int, seed: int) -> list:
    """(trace key, candidate) of the distinct programs among ``n`` uniform draws of ``mod``'s
    design space that ``seen`` (trace keys) lacks, in draw order, the same for the same seed.

    A small design space (an elementwise op has one schedule) makes the sampler return the same
    program again and again: each is returned once.
    """
    _, cands = sample_candidates(mod, target, n, seed=seed)
    todo, keyed = [], set()
    for c in cands:
        key = _record_key(c.sch.trace, workload)
        if key not in seen and key not in keyed:
            keyed.add(key)
            todo.append((key, c))
    return todo


def _search_seed(seed: int, task_index: int, search: int) -> int:
    """The evolutionary search's seed: apart from the uniform sampler's (``seed * 7919 + task``),
    whose single-threaded draws the search's first thread would otherwise repeat."""
    return seed * 7919 + task_index + 104729 * (search + 1)
