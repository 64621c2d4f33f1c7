# Licensed under the Apache License, Version 2.0.
"""Collecting one network: its tasks, its manifest and provenance, then each task in turn."""

from __future__ import annotations

import re
import time
from collections import Counter
from pathlib import Path

from .. import atomic
from ..dataset import dbfile
from ..dataset.layout import (
    DB_FILES,
    SHARED_FILE,
    grown_manifest,
    is_db_folder,
    read_exhausted,
    read_provenance,
    read_shared,
    read_tasks,
)
from ..dataset.records import samples
from ..dataset.splits import HELD_OUT
from ..errors import DataError
from ..lock import check_whole, one_writer
from ..measure.hardware import cpu_identity, cpu_model, hardware_name
from ..measure.runner import MeasureConfig, make_runner
from .config import CollectConfig, RunLog, provenance
from .recording import _existing
from .task import collect_task


def network_tasks(network: str, target) -> list[tuple]:
    """``(name, mod, weight)`` of each tuning task MetaSchedule extracts from a network (or a
    synthetic family) for ``target``."""
    from ..measure.networks import extract_tasks

    return [(t.task_name, t.dispatched[0], int(t.weight)) for t in extract_tasks(network, target)]


def task_manifest(tasks) -> list[dict]:
    """What ``tasks.json`` keeps of each task: its name, workload (structural hash) and weight."""
    import tvm_ffi

    return [{"name": n, "shash": str(tvm_ffi.structural_hash(m)), "weight": w} for n, m, w in tasks]


def measured_elsewhere(folder, trials: int) -> dict[str, str]:
    """The workloads that another training network's folder beside ``folder`` (the same
    hardware) has at least ``trials`` valid records of, or every program of (exhausted): shash
    -> the first such network, by name. A held-out network's folder does not count: training
    never reads it."""
    folder = Path(folder)
    out: dict[str, str] = {}
    for other in sorted(folder.parent.iterdir()):
        if other == folder or other.name in HELD_OUT or not is_db_folder(other):
            continue
        for h in _complete_workloads(other, trials):
            out.setdefault(h, other.name)
    return out


def _complete_workloads(folder: Path, trials: int) -> set[str]:
    """The workloads ``folder`` has ``trials`` valid records of, or every program of."""
    valid = Counter(s.shash for s in samples(folder)[0])
    return {h for h, n in valid.items() if n >= trials} | (read_exhausted(folder) & set(valid))


def _nothing_left(network: str, folder: Path, cfg: CollectConfig, line: dict) -> bool:
    """Whether a folder collection has been through has nothing left to measure under ``cfg``,
    decided from the folder alone (its tasks.json, records, exhausted.json and shared.json), so
    that a resumed run need not extract the network's tasks again (a minute or more for a large
    network). Only for the TVM version and target the last run had (``line`` is this run's
    provenance); a workload left to another network counts as done while that network's folder
    has it complete at ``cfg.trials_per_task``. In any doubt, the caller extracts as always. A
    network whose definition changed keeps the tasks.json of its last extraction: delete that
    file to have the next run extract again."""
    manifest = read_tasks(folder)
    runs = read_provenance(folder)
    if not manifest or cfg.max_tasks is not None or not runs:
        return False
    if any(runs[-1].get(k) != line[k] for k in ("tvm_version", "target")):
        return False
    latencies, begun, _ = _existing(folder)
    left = read_shared(folder) if cfg.skip_shared and network not in HELD_OUT else {}
    complete: dict[str, set] = {}  # per other network named in shared.json, read once
    shared = set()  # the unbegun tasks whose network still has them complete
    for t in manifest:
        h, other = t["shash"], left.get(t["shash"])
        if h in begun or other is None or not is_db_folder(folder.parent / other):
            continue
        if other not in complete:
            complete[other] = _complete_workloads(folder.parent / other, cfg.trials_per_task)
        if h in complete[other]:
            shared.add(h)
    return _records_to_measure(manifest, latencies, read_exhausted(folder), shared, cfg) == 0


def _records_to_measure(manifest, latencies, exhausted, shared, cfg: CollectConfig) -> int:
    """Valid records still to measure over the tasks of ``manifest`` (``latencies``: the valid
    ones each workload has): none for a workload exhausted or left to another network."""
    total = 0
    for t in manifest:
        h = t["shash"]
        if h not in exhausted and h not in shared:
            lat = latencies.get(h, [])
            total += max(0, cfg.task_target(lat) - len(lat))
    return total


def _left_to_others(network, folder: Path, manifest, begun, cfg: CollectConfig) -> dict:
    """With ``cfg.skip_shared``: the tasks of ``manifest`` to leave to the network that has
    their workload (shash -> network), also written to the folder's ``shared.json``. A task
    ``begun`` here (any record, failed ones too) is finished here; a held-out network's records
    are a test set, so it measures every task, shared or not."""
    if not cfg.skip_shared or network in HELD_OUT:
        return {}
    if all(t["shash"] in begun for t in manifest):
        return {}  # nothing to decide: no need to read the other folders
    elsewhere = measured_elsewhere(folder, cfg.trials_per_task)
    shared = {
        t["shash"]: elsewhere[t["shash"]]
        for t in manifest
        if t["shash"] in elsewhere and t["shash"] not in begun
    }
    atomic.write_json(folder / SHARED_FILE, shared)
    return shared


def collect_network(
    network: str,
    out_root,
    target,
    cfg: CollectConfig,
    measure: MeasureConfig,
    runner=None,
    rpc_key=None,
    tasks=None,
    progress: bool = True,
    hardware: str | None = None,
    builder=None,
) -> dict:
    """Collect one network's tasks into ``out_root/<hardware>/<network>/``.

    ``hardware`` names that folder; by default :func:`~tvm_gnn.measure.hardware.hardware_name`
    names it after the target and this machine. ``builder`` (a
    :func:`~tvm_gnn.measure.builder.make_builder`) is the caller's to close, so that several
    networks share its build workers (starting them takes seconds); without one, a builder is
    made for this network and closed at the end.

    ``tasks``, if given, is a list of ``(name, mod, weight)`` used instead of extracting the
    network's tasks (tests use a small program this way).
    """
    folder = Path(out_root) / (hardware or hardware_name(target, rpc_key)) / network
    check_raw(folder)
    with one_writer(folder, f"tvm-gnn collect {network}"):
        return _collect_held(
            network, folder, target, cfg, measure, runner, rpc_key, tasks, progress, builder
        )


def refuse_packed(folder: Path) -> None:
    """:class:`~tvm_gnn.errors.DataError` if ``folder`` is a packed folder: raw files beside its
    ``.gz`` ones would hide them from every reader."""
    packed = [f + ".gz" for f in DB_FILES if (folder / (f + ".gz")).exists()]
    if packed:
        root = folder.parent.parent
        raise DataError(
            f"{folder} is a packed dataset folder ({', '.join(packed)}); collect writes raw "
            f"JSON, which would hide them. Unpack it first: `tvm-gnn unpack --data {root} "
            f"--raw data_raw`, then collect with --out data_raw"
        )


def check_raw(folder: Path) -> None:
    """:class:`~tvm_gnn.errors.DataError` unless collection may write into ``folder``: not a
    packed folder (:func:`refuse_packed`), not one an ``unpack`` was cut in, and one it can make
    files in (created if missing)."""
    refuse_packed(folder)
    check_whole(folder)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        why = err
    else:
        why = atomic.refuses_files(folder)
    if why is not None:
        raise DataError(
            f"cannot write into {folder} ({why.strerror or why}); make it writable or collect "
            "into another --out"
        )


def _collect_held(network, folder, target, cfg, measure, runner, rpc_key, tasks, progress, builder):
    """:func:`collect_network` in ``folder``, which this run holds."""
    from tqdm import tqdm

    from ..measure.builder import make_builder

    start = time.monotonic()
    problems = dbfile.repair(folder)
    line = provenance(target, measure, cfg, rpc_key)
    if tasks is None and _nothing_left(network, folder, cfg, line):
        return _finished(network, folder, problems)
    if tasks is None:
        tasks = network_tasks(network, target)
    manifest = task_manifest(tasks)
    atomic.write_json(folder / "tasks.json", grown_manifest(read_tasks(folder), manifest))
    if cfg.max_tasks is not None:  # what is measured; tasks.json records all the network has
        tasks, manifest = tasks[: cfg.max_tasks], manifest[: cfg.max_tasks]
    run_log = RunLog(folder / "provenance.jsonl", line, start)  # task extraction counts too
    existing = _existing(folder)  # per task, counted before any of them runs: tasks are distinct
    latencies = existing[0]
    shared = _left_to_others(network, folder, manifest, existing[1], cfg)
    # the bar's total grows as a task's first records turn out to spread widely
    total = _records_to_measure(manifest, latencies, read_exhausted(folder), shared, cfg)
    own = builder is None
    builder = builder or make_builder(timeout_sec=measure.build_timeout_sec)
    runner = runner or make_runner(measure)
    summary = _summary(network, folder, len(tasks), len(shared), problems)
    from tvm.s_tir import meta_schedule as ms

    db = ms.database.JSONDatabase(work_dir=str(folder))
    with tqdm(total=total, desc=network, unit="rec", disable=not progress) as bar:
        try:
            for i, (name, mod, _) in enumerate(tasks):
                if manifest[i]["shash"] in shared:
                    continue
                got = collect_task(
                    name, mod, folder, target, cfg, builder, runner, bar, i, db, existing
                )
                summary["measured"] += got["measured"]
                summary["failed"] += got["failed"]
                summary["repeats_not_recorded"] += got["repeats"]
                run_log.update(summary["measured"])
        finally:
            if own:
                builder.close()
    return _with_records(summary, folder)


def _summary(network: str, folder: Path, tasks: int, left: int, problems) -> dict:
    """A run's summary before it measures anything; :func:`_with_records` closes it."""
    return {
        "network": network,
        "folder": str(folder),
        "tasks": tasks,
        "left_to_other_networks": left,
        "measured": 0,
        "failed": 0,
        "repeats_not_recorded": 0,
        "corrupt_lines_skipped": len(problems),
    }


def _with_records(summary: dict, folder: Path) -> dict:
    """``summary`` with the folder's valid records and rejected latencies counted at the end."""
    scan = dbfile.read_records(folder)
    summary["records"] = len(scan.records)
    summary["invalid_latencies_rejected"] = len(scan.invalid_latency)
    return summary


def _finished(network: str, folder: Path, problems) -> dict:
    """The summary of a run that found nothing left to measure without extracting the tasks
    (:func:`_nothing_left`); it writes no provenance line, as it ran nothing."""
    tasks, left = len(read_tasks(folder)), len(read_shared(folder))
    summary = _with_records(_summary(network, folder, tasks, left, problems), folder)
    return {**summary, "finished_before": True}


def check_same_cpu(root, hardware: str | None, target) -> None:
    """:class:`~tvm_gnn.errors.DataError` if the hardware folder ``collect`` would write into
    holds records that another CPU measured (its provenance says so): this machine's latencies
    would mix with theirs without a word. ``--other-cpu`` allows it; a folder of its own avoids
    it. Only for llvm targets measured here (an RPC tracker's devices are not this CPU)."""
    from ..dataset.provenance import recorded_cpus

    if target.kind.name != "llvm":
        return
    hardware = hardware or hardware_name(target, None)
    model, llvm = cpu_model(), cpu_identity().get("llvm")
    others = sorted(
        f"{m} ({cpu or 'LLVM name not recorded'})"
        for m, cpu in recorded_cpus(Path(root) / hardware)
        if m != model or (cpu and llvm and cpu != llvm)
    )
    if others:
        # a folder named for this machine (its model, then LLVM's name for its CPU), never one
        # named for the other CPU
        mine, mark = hardware_name(target, None), llvm or "2"
        own = re.sub(r"-(\d+c)$", rf"-{mark}-\1", mine) if mark not in mine else mine
        own = own if own != hardware else f"{hardware}-{mark}"
        raise DataError(
            f"{Path(root) / hardware} holds records measured on {', '.join(others)}, and this "
            f"machine is {model} ({llvm or 'LLVM name unknown'}): its latencies would mix with "
            f"theirs. Collect into a folder of its own (--hardware {own}), or pass --other-cpu "
            "to add them anyway"
        )
