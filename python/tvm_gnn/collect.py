# Licensed under the Apache License, Version 2.0.
"""``tvm-gnn collect``: measure candidate schedules of real network tasks into MetaSchedule databases.

For each task of a network, ``trials_per_task`` candidates are measured:

1. a ``uniform_fraction`` of them sampled uniformly from MetaSchedule's design space (random
   decisions, post-processed), which covers the slow end of the latency range;
2. the rest proposed by MetaSchedule's evolutionary search (guided by XGBModel), which covers the
   fast end;
3. if the task is still short, ``EXHAUST_DRAWS`` more uniform draws: they measure the programs the
   search missed, or, finding none unrecorded, mark the design space exhausted (a small space's
   search keeps re-proposing recorded programs and never proves it is done).

Records go into one standard JSON database per network and hardware
(``OUT/<hardware>/<network>/database_*.json``, loadable by ``ms.database.JSONDatabase``), committed
after every measured batch. Killed at any point and run again with the same arguments, it resumes:
measured records are never lost, and never recorded twice: uniform samples are deterministic and
skipped when already recorded, and a program the evolutionary search proposes again is measured but
not recorded (``_commit_new_class``).
"""

from __future__ import annotations

import datetime
import functools
import json
import logging
import os
import platform
from dataclasses import asdict, dataclass
from pathlib import Path

from . import dbfile

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class MeasureConfig:
    """How each candidate is timed (MetaSchedule's EvaluatorConfig) and how long it may take."""

    number: int = 3  # runs per measurement
    repeat: int = 1  # measurements per candidate (each the mean of `number` runs)
    min_repeat_ms: int = 40  # grow `number` until one measurement takes at least this long
    cache_flush: bool = False  # flush the CPU cache before each run
    build_timeout_sec: float = 30.0
    run_timeout_sec: float = 30.0


#: MetaSchedule's default evolutionary-search population; `collect` and `tune` default to it.
SEARCH_POPULATION = 512


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


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown-cpu"


def device_model(target) -> str:
    """What runs ``target``'s code here: the CPU model for ``llvm``, else the device's own name
    (``NVIDIA H100 80GB HBM3``), or the target's ``arch`` where no such device is present."""
    if target.kind.name == "llvm":
        return cpu_model()
    import tvm

    dev = tvm.device(target.kind.name, 0)
    if dev.exist and dev.device_name:
        return dev.device_name
    return str(target.attrs.get("arch", "unknown-device"))


def _slug(text: str) -> str:
    """``NVIDIA H100 80GB HBM3`` -> ``nvidia-h100-80gb-hbm3``: runs of other characters become one
    dash."""
    return "-".join("".join(c if c.isalnum() else " " for c in text.lower()).split())


def hardware_name(target, rpc_key: str | None = None) -> str:
    """Folder name for one kind of hardware, e.g. ``llvm-amd-epyc-2c``,
    ``cuda-nvidia-h100-80gb-hbm3`` or ``cuda-rpc-mykey``."""
    if rpc_key:
        return f"{target.kind.name}-rpc-{rpc_key}"
    if target.kind.name == "llvm":
        cores = int(target.attrs.get("num-cores", os.cpu_count() or 1))
        return f"llvm-{_slug(cpu_model())}-{cores}c"
    return f"{target.kind.name}-{_slug(device_model(target))}"


def device_type(target) -> str:
    return "cpu" if target.kind.name == "llvm" else target.kind.name


def evaluator_config(measure: MeasureConfig):
    """MetaSchedule's ``EvaluatorConfig`` for ``measure``."""
    from tvm.s_tir import meta_schedule as ms

    return ms.runner.EvaluatorConfig(
        number=measure.number,
        repeat=measure.repeat,
        min_repeat_ms=measure.min_repeat_ms,
        enable_cpu_cache_flush=measure.cache_flush,
    )


def make_runner(measure: MeasureConfig, rpc_tracker: str | None = None, rpc_key: str | None = None,
                rpc_workers: int = 1):  # fmt: skip
    """A LocalRunner, or an RPCRunner through TVM's tracker when ``rpc_tracker`` is HOST:PORT."""
    from tvm.s_tir import meta_schedule as ms

    evaluator = evaluator_config(measure)
    if rpc_tracker is None:
        return ms.runner.LocalRunner(timeout_sec=measure.run_timeout_sec, evaluator_config=evaluator)
    host, _, port = rpc_tracker.rpartition(":")
    if not host or not port.isdigit():
        raise ValueError(f"--rpc-tracker must be HOST:PORT, got {rpc_tracker!r}")
    if not rpc_key:
        raise ValueError("--rpc-tracker needs --rpc-key")
    config = ms.runner.RPCConfig(
        tracker_host=host, tracker_port=int(port), tracker_key=rpc_key,
        session_timeout_sec=int(measure.run_timeout_sec * 4),
    )  # fmt: skip
    return ms.runner.RPCRunner(rpc_config=config, evaluator_config=evaluator,
                               max_workers=rpc_workers)  # fmt: skip


def _trace_key(trace_json) -> str:
    """One string per trace, whether read from a database line or made by ``TuningRecord.as_json``.

    The two differ in booleans: the JSON TVM writes has ``[1,0]`` where ``as_json`` gives
    ``[true,false]`` (``Split``'s flags), so booleans are written as integers here.
    """

    def canonical(x):
        if isinstance(x, bool):
            return int(x)
        if isinstance(x, list):
            return [canonical(v) for v in x]
        return x

    return json.dumps(canonical(json.loads(json.dumps(trace_json))), separators=(",", ":"))


def _existing(folder: Path):
    """Per workload shash: number of valid records and the set of all records' trace keys.

    A failed record counts as seen (its program is not measured again) but not toward
    ``trials_per_task``, whose target is valid candidates.
    """
    hashes = dbfile.read_workload_hashes(folder)
    scan = dbfile.read_records(folder)
    counts: dict[str, int] = {}
    keys: dict[str, set] = {}
    for r in scan.records:
        h = hashes[r.workload]
        counts[h] = counts.get(h, 0) + (not r.failed)
        keys.setdefault(h, set()).add(_trace_key(r.trace))
    return counts, keys, scan


def _measure_batch(cands, target, builder, runner):
    """Build and run candidates; RunnerResults in order (build failures as failed results)."""
    from tvm.s_tir import meta_schedule as ms

    built = builder.build([ms.builder.BuilderInput(c.sch.mod, target) for c in cands])
    results = [None] * len(cands)
    inputs, where = [], []
    for i, (b, c) in enumerate(zip(built, cands)):
        if b.error_msg is None:
            inputs.append(ms.runner.RunnerInput(b.artifact_path, device_type(target), c.args_info))
            where.append(i)
        else:
            results[i] = ms.runner.RunnerResult(run_secs=None, error_msg=b.error_msg)
    for i, fut in zip(where, runner.run(inputs)):
        results[i] = fut.result()
    for b in built:
        if b.artifact_path:
            Path(b.artifact_path).unlink(missing_ok=True)
    return results


def _record_key(trace, workload) -> str:
    """The trace of a candidate as its database line holds it (the key of ``_existing``)."""
    from tvm.s_tir import meta_schedule as ms

    return _trace_key(ms.database.TuningRecord(trace=trace, workload=workload).as_json()[0])


def _commit(db, workload, target, cands, results) -> int:
    from tvm.s_tir import meta_schedule as ms

    failed = 0
    for c, r in zip(cands, results):
        ok = r.error_msg is None and r.run_secs
        failed += not ok
        db.commit_tuning_record(ms.database.TuningRecord(
            trace=c.sch.trace, workload=workload, run_secs=r.run_secs if ok else None,
            target=target, args_info=c.args_info,
        ))  # fmt: skip
    return failed


@functools.cache
def _commit_new_class():
    """``CommitNew``, a MetaSchedule measure callback (defined on first use: TVM loads lazily)."""
    from tvm.ir.utils import derived_object
    from tvm.s_tir import meta_schedule as ms
    from tvm.s_tir.meta_schedule.measure_callback import PyMeasureCallback

    from .tune import measured_latency

    @derived_object
    class CommitNew(PyMeasureCallback):
        """MetaSchedule's ``AddToDatabase``, less the programs the database already holds.

        A fresh ``EvolutionarySearch`` avoids only what it measured itself (TVM leaves "add
        records from the database to avoid re-measuring" as a TODO in ``evolutionary_search.cc``),
        so after the uniform phase, or when a killed collection resumes, it proposes recorded
        programs again. Their measurements are counted in ``repeats`` and not recorded.
        """

        def __init__(self, db, workload, target, seen: set, bar=None):
            self.db, self.workload, self.target, self.bar = db, workload, target, bar
            self.seen = seen  # record keys (``_record_key``) of the task, shared with the caller
            self.proposed = self.new = self.failed = self.repeats = 0
            self.best = float("inf")  # seconds, shown on the bar

        def apply(self, task_scheduler, task_id, measure_candidates, builder_results,
                  runner_results):  # fmt: skip
            self.proposed += len(measure_candidates)
            new, results = [], []
            for c, b, r in zip(measure_candidates, builder_results, runner_results):
                key = _record_key(c.sch.trace, self.workload)
                if key in self.seen:
                    self.repeats += 1
                    continue
                self.seen.add(key)
                new.append(c)
                results.append(r if b.error_msg is None else
                               ms.runner.RunnerResult(run_secs=None, error_msg=b.error_msg))
                latency = measured_latency(b, r)
                if latency is not None:
                    self.best = min(self.best, latency)
            self.failed += _commit(self.db, self.workload, self.target, new, results)
            self.new += len(new)
            if self.bar is not None:
                self.bar.update(len(new))
                if self.best < float("inf"):
                    self.bar.set_postfix(best=f"{self.best * 1e3:.3f} ms", errors=self.failed)

    return CommitNew


#: Evolutionary searches per task and run at most; each new one starts from another seed.
EVOLUTION_ROUNDS = 3


def collect_task(task_name, mod, folder: Path, target, cfg: CollectConfig, builder, runner,
                 bar=None, task_index: int = 0, db=None, existing=None) -> dict:  # fmt: skip
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
        todo = unrecorded_draws(mod, target, workload, seen, n_uniform,
                                seed=cfg.seed * 7919 + task_index)  # fmt: skip
        measure(todo[: n_uniform - have])
    # 2. evolutionary search for the rest, into the same database
    for search in range(EVOLUTION_ROUNDS):
        rest = cfg.trials_per_task - have
        if rest <= 0:
            break
        commit = _commit_new_class()(db, workload, target, seen, bar)
        ctx = ms.TuneContext(
            mod=mod, target=target, space_generator="post-order-apply",
            search_strategy=ms.search_strategy.EvolutionarySearch(population_size=cfg.population),
            task_name=task_name,
            rand_state=_search_seed(cfg.seed, task_index, search),
            num_threads=os.cpu_count() or 1,
        ).clone()  # fmt: skip
        ms.tune.tune_tasks(
            tasks=[ctx], task_weights=[1.0], work_dir=str(folder / "ms_logs"),
            max_trials_global=rest, num_trials_per_iter=min(cfg.batch_size, rest),
            builder=builder, runner=runner, database=db, cost_model="xgb",
            measure_callbacks=[commit, ms.measure_callback.RemoveBuildArtifact(),
                               ms.measure_callback.UpdateCostModel()],
        )  # fmt: skip
        done["measured"] += commit.new
        done["failed"] += commit.failed
        done["repeats"] += commit.repeats
        have += commit.new
        if commit.proposed < rest:
            # The search stops early only when it finds no program it has not measured.
            exhausted = exhausted | {shash}
            _write_json(folder / EXHAUSTED_FILE, sorted(exhausted))
            break
        if commit.new == 0:
            break  # everything it proposed was recorded already
    # 3. still short: many uniform draws find what the search missed, or show there is none
    if have < cfg.trials_per_task and shash not in exhausted:
        rest = cfg.trials_per_task - have
        todo = unrecorded_draws(mod, target, workload, seen, EXHAUST_DRAWS,
                                seed=_search_seed(cfg.seed, task_index, EVOLUTION_ROUNDS))
        measure(todo[:rest])
        if len(todo) < rest:  # every program the draws found is recorded now, and it was too few
            _write_json(folder / EXHAUSTED_FILE, sorted(exhausted | {shash}))
    return done


#: Uniform draws that decide whether a task still short after its search has more programs.
EXHAUST_DRAWS = 512


def unrecorded_draws(mod, target, workload, seen: set, n: int, seed: int) -> list:
    """(trace key, candidate) of the distinct programs among ``n`` uniform draws of ``mod``'s
    design space that ``seen`` (trace keys) lacks, in draw order, the same for the same seed.

    A small design space (an elementwise op has one schedule) makes the sampler return the same
    program again and again: each is returned once.
    """
    from .sampling import sample_candidates

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


#: Workloads (structural hashes) whose design space was measured completely, so reruns skip them.
EXHAUSTED_FILE = "exhausted.json"


def read_exhausted(folder: Path) -> set:
    """The workloads (structural hashes) a folder's ``exhausted.json`` lists; empty if none."""
    path = folder / EXHAUSTED_FILE
    try:
        return set(json.loads(path.read_text())) if path.exists() else set()
    except ValueError:
        logger.warning("%s is corrupt; searching every task again", path)
        return set()


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
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
    }


def collect_network(network: str, out_root, target, cfg: CollectConfig, measure: MeasureConfig,
                    runner=None, rpc_key=None, tasks=None, progress: bool = True) -> dict:  # fmt: skip
    """Collect one network's tasks into ``out_root/<hardware>/<network>/``.

    ``tasks``, if given, is a list of ``(name, mod, weight)`` used instead of extracting the
    network's tasks (tests use a small program this way).
    """
    import tvm_ffi
    from tqdm import tqdm

    from .builder import make_builder

    folder = Path(out_root) / hardware_name(target, rpc_key) / network
    folder.mkdir(parents=True, exist_ok=True)
    problems = dbfile.repair(folder)
    if tasks is None:
        from .networks import extract_tasks

        tasks = [(t.task_name, t.dispatched[0], int(t.weight)) for t in extract_tasks(network, target)]
    if cfg.max_tasks is not None:
        tasks = tasks[: cfg.max_tasks]
    manifest = [{"name": n, "shash": str(tvm_ffi.structural_hash(m)), "weight": w}
                for n, m, w in tasks]  # fmt: skip
    _write_json(folder / "tasks.json", manifest)
    log = folder / "provenance.jsonl"
    with open(log, "a") as f:
        f.write(json.dumps(provenance(target, measure, cfg, rpc_key)) + "\n")
    existing = _existing(folder)  # per task, counted before any of them runs: tasks are distinct
    counts = existing[0]
    exhausted = read_exhausted(folder)
    total = sum(max(0, cfg.trials_per_task - counts.get(t["shash"], 0)) for t in manifest
                if t["shash"] not in exhausted)  # fmt: skip
    builder = make_builder(timeout_sec=measure.build_timeout_sec)
    runner = runner or make_runner(measure)
    summary = {"network": network, "folder": str(folder), "tasks": len(tasks), "measured": 0,
               "failed": 0, "repeats_not_recorded": 0,
               "corrupt_lines_skipped": len(problems)}  # fmt: skip
    from tvm.s_tir import meta_schedule as ms

    db = ms.database.JSONDatabase(work_dir=str(folder))
    with tqdm(total=total, desc=network, unit="rec", disable=not progress) as bar:
        for i, (name, mod, _) in enumerate(tasks):
            got = collect_task(name, mod, folder, target, cfg, builder, runner, bar, i, db,
                               existing)  # fmt: skip
            summary["measured"] += got["measured"]
            summary["failed"] += got["failed"]
            summary["repeats_not_recorded"] += got["repeats"]
    scan = dbfile.read_records(folder)
    summary["records"] = len(scan.records)
    summary["invalid_latencies_rejected"] = len(scan.invalid_latency)
    return summary


def _write_json(path: Path, obj) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(obj, indent=1) + "\n")
    os.replace(tmp, path)
