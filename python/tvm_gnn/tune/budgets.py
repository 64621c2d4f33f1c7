# Licensed under the Apache License, Version 2.0.
"""A finished run as it stood after fewer trials: its database cut at a budget, compiled and
timed, alone or in turn with other runs.
"""

from __future__ import annotations

import contextlib
from pathlib import Path

import numpy as np

from .. import atomic
from ..jsonfile import read_json
from .compile import COMPILE_VERSION, compile_check_time, compile_checked, time_network
from .end_to_end import reference_network


def read_budgets(work_dir) -> dict:
    """``work_dir/budgets.json`` as ``{budget: result}``; empty if absent or from an older build."""
    path = Path(work_dir) / "budgets.json"
    if not path.exists():
        return {}
    saved = read_json(path)
    if saved.get("compile_version") != COMPILE_VERSION:
        return {}
    return {int(k): v for k, v in saved["budgets"].items()}


def latency_at_budgets(work_dir, budgets, *, repeats: int = 10, progress: bool = True) -> dict:
    """Measured end-to-end latency of a finished run as if it had stopped after each budget.

    MetaSchedule's JSON database appends one line per measured trial, failures included, in the
    order they were measured; the first ``b`` lines are the database a ``b``-trial run would have
    left. Each budget's network is compiled with those, checked against PyTorch and timed.
    Results are stored in ``work_dir/budgets.json`` and budgets already there are not redone.

    Returns
    -------
    dict
        ``{budget: {"latency_ms_median": ..., "latency_ms_runs": [...], "records": n}}``.
    """
    import tvm
    from tqdm import tqdm

    work_dir = Path(work_dir)
    log = read_json(work_dir / "tune_log.json")
    out_path = work_dir / "budgets.json"
    done = read_budgets(work_dir)
    todo = [b for b in sorted(set(budgets)) if b not in done and b <= log["trials"]]
    if not todo:
        return done
    target = tvm.target.Target(log["target"])
    mod, example, expected = reference_network(log["network"], log["seed"])
    run_database = read_run_database(work_dir)  # once, not per budget

    for b in tqdm(todo, desc=f"{log['network']}/{log['cost_model']} budgets", disable=not progress):
        with database_at(run_database, b) as (db, records):
            runs, untuned = compile_check_time(
                db,
                mod,
                target,
                example,
                expected,
                repeats=repeats,
                what=f"{log['network']} after {b} trials",
            )
        done[b] = {
            "latency_ms_median": float(np.median(runs)),
            "latency_ms_runs": runs,
            "records": records,
            "untuned_functions": len(untuned),
        }
        atomic.write_json(
            out_path,
            {
                "compile_version": COMPILE_VERSION,
                "budgets": {str(k): v for k, v in sorted(done.items())},
            },
        )
    return done


def read_run_database(work_dir) -> tuple[str, list[str]]:
    """A run's workload file (text) and its tuning records (lines, in measurement order)."""
    work_dir = Path(work_dir)
    records = (work_dir / "database_tuning_record.json").read_text().splitlines()
    return ((work_dir / "database_workload.json").read_text(), [ln for ln in records if ln.strip()])


@contextlib.contextmanager
def database_at(run_database: tuple[str, list[str]], budget: int):
    """A database of a run's first ``budget`` measured trials (and its record count), while open.

    ``run_database`` is what :func:`read_run_database` returns. MetaSchedule's JSON database
    appends one line per measured trial, failures included, in the order they were measured: the
    first ``budget`` lines are what a ``budget``-trial run would have left.
    """
    import tempfile

    from tvm.s_tir import meta_schedule as ms

    workloads, records = run_database[0], run_database[1][:budget]
    with tempfile.TemporaryDirectory() as tmp:
        wl, tr = Path(tmp) / "database_workload.json", Path(tmp) / "database_tuning_record.json"
        wl.write_text(workloads)
        tr.write_text("".join(ln + "\n" for ln in records))
        db = ms.database.JSONDatabase(path_workload=str(wl), path_tuning_record=str(tr))
        yield db, len(records)


def head_to_head(
    work_dirs: dict, budget: int, *, rounds: int = 10, progress: bool = True
) -> dict[str, list[float]]:
    """Time several runs' networks (each as it stood after ``budget`` trials) in turn, one process.

    Latencies timed minutes or hours apart drift with the machine's state (a shared 2-core
    machine: other jobs, frequency, memory placement) by more than their own spread. Here every
    network is compiled and checked first, then timed one repeat at a time, round after round,
    the order rotated every round, so that drift hits all of them alike and their ratio is a
    comparison inside one run.

    Parameters
    ----------
    work_dirs
        ``{label: work_dir}`` of finished runs of one network and target.

    Returns
    -------
    dict
        ``{label: [ms per round]}``.
    """
    import tvm
    from tqdm import tqdm

    logs = {k: read_json(Path(w) / "tune_log.json") for k, w in work_dirs.items()}
    kinds = {(lg["network"], lg["target"]) for lg in logs.values()}
    if len(kinds) != 1:
        raise ValueError(f"head_to_head compares runs of one network and target, got {kinds}")
    ((network, target_str),) = kinds
    target = tvm.target.Target(target_str)
    compiled = {}
    references: dict[int, tuple] = {}
    for label, w in tqdm(
        work_dirs.items(), desc=f"{network} compile @ {budget}", disable=not progress
    ):
        seed = logs[label]["seed"]
        if seed not in references:
            references[seed] = reference_network(network, seed)
        mod, example, expected = references[seed]
        with database_at(read_run_database(w), budget) as (db, _):
            vm, inp, _ = compile_checked(
                db,
                mod,
                target,
                example,
                expected,
                what=f"{network} ({label}) after {budget} trials",
            )
        compiled[label] = (vm, inp)
    labels = list(compiled)
    times: dict[str, list[float]] = {k: [] for k in labels}
    for r in tqdm(range(rounds), desc=f"{network} time in turn", disable=not progress):
        shift = r % len(labels)
        for label in labels[shift:] + labels[:shift]:
            times[label] += time_network(*compiled[label], repeats=1)
    return times
