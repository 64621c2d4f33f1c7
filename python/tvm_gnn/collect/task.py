# Licensed under the Apache License, Version 2.0.
"""Measuring one task: uniform samples, then evolutionary search, then uniform draws to finish."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from .. import atomic
from ..dataset.layout import EXHAUSTED_FILE, read_exhausted
from ..measure.hardware import usable_cores
from ..measure.runner import outage, service_down
from ..measure.sampling import sample_candidates
from .config import CollectConfig
from .recording import _commit, _commit_new_class, _existing, _record_key, measure_batch

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
    """Measure one task up to ``cfg.trials_per_task`` valid records (``cfg.task_target``: more
    when its first records spread widely); returns counts.

    ``db`` (the folder's JSONDatabase) and ``existing`` (``_existing(folder)``) may be passed in
    when many tasks of one folder are collected: loading them costs seconds per call.
    """
    import tvm_ffi
    from tvm.s_tir import meta_schedule as ms

    shash = str(tvm_ffi.structural_hash(mod))
    done = {"task": task_name, "shash": shash, "measured": 0, "failed": 0, "repeats": 0}
    if shash in read_exhausted(folder):
        return done  # an earlier run found every program of this design space
    by_workload, keys, _ = existing or _existing(folder)
    latencies = list(by_workload.get(shash, []))  # valid, in recorded order; grows as we go
    want = cfg.task_target(latencies)
    if len(latencies) >= want:
        return done
    db = db or ms.database.JSONDatabase(work_dir=str(folder))
    task = _Task(
        task_name, mod, folder, target, cfg, (builder, runner, db), task_index,
        workload=db.commit_workload(mod),
        seen=set(keys.get(shash, set())),  # the traces this task's records hold
        latencies=latencies, bar=bar, done=done,
    )  # fmt: skip
    stage = 0 if want == cfg.trials_per_task else 1
    while True:
        if task.fill(want, stage):
            return done  # the design space is exhausted
        more = cfg.task_target(latencies)
        if more <= want or len(latencies) < want:
            return done
        if bar is not None:  # the first records spread widely: the task's target grows
            bar.total += more - want
            bar.refresh()
        want, stage = more, 1


@dataclass
class _Task:
    """One task being measured: its tools, the traces it holds (``seen``), its valid latencies
    in recorded order and its counts (``done``)."""

    name: str
    mod: object
    folder: Path
    target: object
    cfg: CollectConfig
    tools: tuple  # (builder, runner, database)
    index: int  # the task's place in its network: part of every seed
    workload: object
    seen: set
    latencies: list
    bar: object
    done: dict

    def measure(self, todo) -> None:
        """Build, run and record ``todo`` (``(trace key, candidate)``), a batch at a time."""
        builder, runner, db = self.tools
        for i in range(0, len(todo), self.cfg.batch_size):
            part = todo[i : i + self.cfg.batch_size]
            batch = [c for _, c in part]
            results = measure_batch(batch, self.target, builder, runner)
            down = [r.error_msg for r in results if service_down(r)]
            if down:  # not the programs' failures: record none of the batch, stop the run
                raise outage(down[0])
            costs = _commit(db, self.workload, self.target, batch, results)
            self.done["failed"] += costs.count(None)
            self.latencies.extend(c for c in costs if c is not None)
            self.seen.update(key for key, _ in part)
            self.done["measured"] += len(batch)
            if self.bar is not None:
                self.bar.update(len(batch))

    def fill(self, want: int, stage: int) -> bool:
        """Measure up to ``want`` valid records: uniform samples, then evolutionary search
        (none with ``uniform_fraction`` 1), then uniform draws to finish. ``stage`` 0 is the
        task's first ``trials_per_task``, stage 1 the records a wide spread adds; each stage
        draws and searches from seeds of its own, so a stage does not re-propose what the one
        before measured. Returns whether the design space turned out to be exhausted (marked so
        in the folder's ``exhausted.json``)."""
        cfg, seed = self.cfg, self.cfg.seed
        n_uniform = round(want * cfg.uniform_fraction)
        first = stage * (EVOLUTION_ROUNDS + 1)  # this stage's first search index
        # 1. uniform samples: deterministic per (seed, task), so a rerun skips what is recorded;
        # stage 1 draws more of the same sequence, past the ones stage 0 recorded
        have = len(self.latencies)
        if have < n_uniform or stage:
            todo = unrecorded_draws(
                self.mod, self.target, self.workload, self.seen, n_uniform,
                seed=seed * 7919 + self.index,
            )  # fmt: skip
            self.measure(todo[: (n_uniform if not stage else want) - have])
        # 2. evolutionary search for the rest, into the same database; with uniform draws only,
        # none: what repeated draws and failures leave short, step 3's draws make up
        exhausted = cfg.uniform_fraction < 1 and self.evolve(want - len(self.latencies), first)
        # 3. still short: many uniform draws find what the search missed, or show there is none
        if not exhausted and len(self.latencies) < want:
            rest = want - len(self.latencies)
            todo = unrecorded_draws(
                self.mod, self.target, self.workload, self.seen, EXHAUST_DRAWS,
                seed=_search_seed(seed, self.index, first + EVOLUTION_ROUNDS),
            )  # fmt: skip
            self.measure(todo[:rest])
            exhausted = len(todo) < rest  # every program the draws found is recorded, too few
        if exhausted:
            marked = read_exhausted(self.folder) | {self.done["shash"]}
            atomic.write_json(self.folder / EXHAUSTED_FILE, sorted(marked))
        return exhausted

    def evolve(self, need: int, first: int) -> bool:
        """Up to :data:`EVOLUTION_ROUNDS` evolutionary searches, each from another seed (search
        indices from ``first``), until ``need`` more valid records are in; counts go into
        ``done``. Returns whether a search ran out of programs it had not measured (the design
        space is exhausted)."""
        gained = 0
        for search in range(first, first + EVOLUTION_ROUNDS):
            rest = need - gained
            if rest <= 0:
                break
            commit = _commit_new_class()(
                self.tools[2], self.workload, self.target, self.seen, self.bar, self.latencies
            )
            seed = _search_seed(self.cfg.seed, self.index, search)
            try:
                _search(self.name, self.mod, self.folder, self.target, self.cfg, self.tools,
                        commit, seed, rest)  # fmt: skip
            except Exception:
                if commit.full is not None:  # raised in the callback, through TVM
                    raise commit.full from None
                raise
            if commit.down is not None:
                raise outage(commit.down)
            self.done["measured"] += commit.new
            self.done["failed"] += commit.failed
            self.done["repeats"] += commit.repeats
            gained += commit.new - commit.failed
            if commit.proposed < rest:
                return True
            if commit.new == 0:
                break  # everything it proposed was recorded already
        return False


def _search(
    task_name, mod, folder: Path, target, cfg: CollectConfig, tools, commit, seed: int, rest: int
) -> None:
    """One evolutionary search of the task, with a new XGBModel (which scores at random until it
    has trained on 100 measured programs, TVM's warm-up), for ``rest`` more programs:
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
        num_threads=usable_cores(),
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
