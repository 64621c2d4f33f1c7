# Licensed under the Apache License, Version 2.0.
"""Collecting one network: its tasks, its manifest and provenance, then each task in turn."""

from __future__ import annotations

import time
from collections import Counter
from pathlib import Path

from .. import atomic
from ..dataset import dbfile
from ..dataset.layout import SHARED_FILE, is_db_folder, read_exhausted
from ..dataset.records import samples
from ..measure.hardware import hardware_name
from ..measure.networks import HELD_OUT
from ..measure.runner import MeasureConfig, make_runner
from .config import CollectConfig, RunLog, provenance
from .records import _existing
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
        valid = Counter(s.shash for s in samples(other)[0])
        exhausted = read_exhausted(other)
        for h, n in valid.items():
            if n >= trials or h in exhausted:
                out.setdefault(h, other.name)
    return out


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
) -> dict:
    """Collect one network's tasks into ``out_root/<hardware>/<network>/``.

    ``tasks``, if given, is a list of ``(name, mod, weight)`` used instead of extracting the
    network's tasks (tests use a small program this way).
    """
    from tqdm import tqdm

    from ..measure.builder import make_builder

    start = time.monotonic()
    folder = Path(out_root) / hardware_name(target, rpc_key) / network
    folder.mkdir(parents=True, exist_ok=True)
    problems = dbfile.repair(folder)
    if tasks is None:
        tasks = network_tasks(network, target)
    if cfg.max_tasks is not None:
        tasks = tasks[: cfg.max_tasks]
    manifest = task_manifest(tasks)
    atomic.write_json(folder / "tasks.json", manifest)
    line = provenance(target, measure, cfg, rpc_key)
    run_log = RunLog(folder / "provenance.jsonl", line, start)  # task extraction counts too
    existing = _existing(folder)  # per task, counted before any of them runs: tasks are distinct
    latencies = existing[0]
    shared = _left_to_others(network, folder, manifest, existing[1], cfg)
    exhausted = read_exhausted(folder)
    total = 0  # grows as a task's first records turn out to spread widely
    for t in manifest:
        lat = latencies.get(t["shash"], [])
        if t["shash"] not in exhausted and t["shash"] not in shared:
            total += max(0, cfg.task_target(lat) - len(lat))
    builder = make_builder(timeout_sec=measure.build_timeout_sec)
    runner = runner or make_runner(measure)
    summary = {
        "network": network,
        "folder": str(folder),
        "tasks": len(tasks),
        "left_to_other_networks": len(shared),
        "measured": 0,
        "failed": 0,
        "repeats_not_recorded": 0,
        "corrupt_lines_skipped": len(problems),
    }
    from tvm.s_tir import meta_schedule as ms

    db = ms.database.JSONDatabase(work_dir=str(folder))
    with tqdm(total=total, desc=network, unit="rec", disable=not progress) as bar:
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
    scan = dbfile.read_records(folder)
    summary["records"] = len(scan.records)
    summary["invalid_latencies_rejected"] = len(scan.invalid_latency)
    return summary
