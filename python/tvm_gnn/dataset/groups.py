# Licensed under the Apache License, Version 2.0.
"""The dataset as MetaSchedule sees it: per (network, workload), a tuning context and the measured
candidates with their latencies. What cost models are trained and scored on.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import DataError, EvaluationError
from ..measure.hardware import usable_cores
from .layout import is_db_folder, network_folders, snapshot_line
from .records import distinct_programs


@dataclass
class Group:
    """The measured candidates of one workload in one network."""

    network: str
    shash: str
    task: str
    weight: int
    context: object  # ms.TuneContext of the workload
    candidates: list = field(default_factory=list)  # ms.MeasureCandidate
    latencies: list = field(default_factory=list)  # seconds


def _folder_target(folder: Path):
    import tvm

    prov = folder / "provenance.jsonl"
    if prov.exists():
        lines = [(i, ln) for i, ln in enumerate(prov.read_text().splitlines(), 1) if ln.strip()]
        if lines:
            number, line = lines[-1]
            try:
                return tvm.target.Target(json.loads(json.loads(line)["target"]))
            except (ValueError, KeyError, TypeError) as err:
                raise DataError(
                    f"{prov}, line {number}: not a provenance record with a target ({err!r})"
                ) from None
    return tvm.target.Target({"kind": "llvm", "num-cores": usable_cores()})


def load_groups(
    root, hardware: str, networks, progress: bool = False, snapshot: dict | None = None
) -> list[Group]:
    """Measured candidates of ``networks`` on ``hardware``, grouped by (network, workload).

    ``snapshot`` (``{network: record lines}``, a checkpoint's ``train_records``) reads those
    networks' record files only that far: the records a model was trained on.
    """
    folders = [
        (net, f) for hw, net, f in network_folders(root) if hw == hardware and net in set(networks)
    ]
    missing = set(networks) - {net for net, _ in folders}
    if missing:
        raise EvaluationError(f"no database for {sorted(missing)} under {root}/{hardware}")
    if progress:
        from tqdm import tqdm

        folders = tqdm(folders, desc="load records", unit="network")
    groups: dict[tuple[str, str], Group] = {}
    for net, folder in folders:
        try:
            max_line = snapshot_line(folder, snapshot)
        except ValueError as err:
            raise EvaluationError(str(err)) from None
        _add_folder(groups, net, folder, max_line)
    return list(groups.values())


def load_folder_groups(folders: dict, progress: bool = False) -> list[Group]:
    """Measured candidates of any folders of MetaSchedule databases (``{name: folder}``, each
    holding ``database_tuning_record.json`` and ``database_workload.json``, gzipped or not),
    grouped by (name, workload). Task weights default to 1 where a folder has no ``tasks.json``.
    """
    groups: dict[tuple[str, str], Group] = {}
    items = list(folders.items())
    if progress:
        from tqdm import tqdm

        items = tqdm(items, desc="load records", unit="folder")
    for name, folder in items:
        _add_folder(groups, name, check_db_folder(folder), None)
    return list(groups.values())


def check_db_folder(folder) -> Path:
    """``folder`` as a Path if it holds a MetaSchedule database; else an ``EvaluationError``."""
    folder = Path(folder)
    if not is_db_folder(folder):
        raise EvaluationError(
            f"{folder} holds no MetaSchedule database (database_tuning_record.json and "
            "database_workload.json, gzipped or not)"
        )
    return folder


def _add_folder(groups: dict, net: str, folder: Path, max_line: int | None) -> None:
    from tvm.s_tir import meta_schedule as ms

    target = _folder_target(folder)
    for s, record, cand in distinct_programs(folder, max_line):
        key = (net, s.shash)
        if key not in groups:
            ctx = ms.TuneContext(mod=record.workload.mod, target=target, num_threads=usable_cores())
            groups[key] = Group(net, s.shash, s.task, s.weight, ctx)
        groups[key].candidates.append(cand)
        groups[key].latencies.append(s.latency)


def runner_results(latencies):
    """MetaSchedule ``RunnerResult`` objects of measured latencies (seconds), one run each."""
    from tvm.s_tir import meta_schedule as ms

    return [ms.runner.RunnerResult(run_secs=[float(t)], error_msg=None) for t in latencies]
