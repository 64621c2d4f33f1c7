# Licensed under the Apache License, Version 2.0.
"""Recording measured candidates into a network's database, each program once."""

from __future__ import annotations

import functools
import json
import shutil
from pathlib import Path

from .. import space
from ..costs import result_cost
from ..dataset import dbfile
from ..errors import DiskFullError
from ..measure.hardware import device_type
from ..measure.runner import service_down


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
    """Per workload shash: the latencies of its valid records in the order recorded, and the
    set of all its records' trace keys; and the scan they came from.

    A failed record counts as seen (its program is not measured again) but not toward
    ``trials_per_task``, whose target is valid candidates.
    """
    scan = dbfile.read_records(folder)
    hashes = scan.workload_hashes
    latencies: dict[str, list[float]] = {}
    keys: dict[str, set] = {}
    for r in scan.records:
        h = hashes[r.workload]
        if not r.failed:
            latencies.setdefault(h, []).append(r.latency)
        keys.setdefault(h, set()).add(_trace_key(r.trace))
    return latencies, keys, scan


def measure_batch(cands, target, builder, runner):
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
        if b.artifact_path:  # in a folder of its own (TVM's export makes one per candidate)
            shutil.rmtree(Path(b.artifact_path).parent, ignore_errors=True)
    return results


def _record_key(trace, workload) -> str:
    """The trace of a candidate as its database line holds it (the key of ``_existing``)."""
    from tvm.s_tir import meta_schedule as ms

    return _trace_key(ms.database.TuningRecord(trace=trace, workload=workload).as_json()[0])


def _commit(db, workload, target, cands, results) -> list[float | None]:
    """Record each candidate with its result; returns their latencies in seconds, ``None`` for
    a failure or a latency that is not valid (which ``dbfile.read_records`` then skips)."""
    from tvm.s_tir import meta_schedule as ms

    costs = []
    for c, r in zip(cands, results):
        ok = r.error_msg is None and r.run_secs
        costs.append(result_cost(None, r))
        db.commit_tuning_record(
            ms.database.TuningRecord(
                trace=c.sch.trace,
                workload=workload,
                run_secs=r.run_secs if ok else None,
                target=target,
                args_info=c.args_info,
            )
        )
    records = Path(db.path_tuning_record)
    space.stop_if_full(  # TVM's database says nothing when its writes fail: ask the disk
        records,
        f"every record measured before it filled is kept in {records.parent}; free some space "
        "and run the same command again to resume",
    )
    return costs


@functools.cache
def _commit_new_class():
    """``CommitNew``, a MetaSchedule measure callback (defined on first use: TVM loads lazily)."""
    from tvm.ir.utils import derived_object
    from tvm.s_tir import meta_schedule as ms
    from tvm.s_tir.meta_schedule.measure_callback import PyMeasureCallback

    @derived_object
    class CommitNew(PyMeasureCallback):
        """MetaSchedule's ``AddToDatabase``, less the programs the database already holds.

        A fresh ``EvolutionarySearch`` avoids only what it measured itself (TVM leaves "add
        records from the database to avoid re-measuring" as a TODO in ``evolutionary_search.cc``),
        so after the uniform phase, or when a killed collection resumes, it proposes recorded
        programs again. Their measurements are counted in ``repeats`` and not recorded.
        """

        def __init__(self, db, workload, target, seen: set, bar=None, latencies=None):
            self.db, self.workload, self.target, self.bar = db, workload, target, bar
            self.seen = seen  # record keys (``_record_key``) of the task, shared with the caller
            # the valid latencies of the task in recorded order, shared with the caller
            self.latencies = [] if latencies is None else latencies
            self.proposed = self.new = self.failed = self.repeats = 0
            self.best = float("inf")  # seconds, shown on the bar
            self.down = None  # why the measuring service failed, if it did
            self.full = None  # the DiskFullError that stopped the search, if one did

        def apply(
            self, task_scheduler, task_id, measure_candidates, builder_results, runner_results
        ):
            self.proposed += len(measure_candidates)
            new, results = [], []
            for c, b, r in zip(measure_candidates, builder_results, runner_results):
                if service_down(r):  # the service's failure, not the program's: not recorded
                    self.down = r.error_msg
                    continue
                key = _record_key(c.sch.trace, self.workload)
                if key in self.seen:
                    self.repeats += 1
                    continue
                self.seen.add(key)
                new.append(c)
                results.append(
                    r
                    if b.error_msg is None
                    else ms.runner.RunnerResult(run_secs=None, error_msg=b.error_msg)
                )
            try:
                costs = _commit(self.db, self.workload, self.target, new, results)
            except DiskFullError as err:  # crosses TVM as a RuntimeError: kept for the caller
                self.full = err
                raise
            valid = [c for c in costs if c is not None]
            self.failed += len(costs) - len(valid)
            self.latencies.extend(valid)
            self.best = min([self.best, *valid])
            self.new += len(new)
            if self.bar is not None:
                self.bar.update(len(new))
                if self.best < float("inf"):
                    self.bar.set_postfix(best=f"{self.best * 1e3:.3f} ms", errors=self.failed)

    return CommitNew
