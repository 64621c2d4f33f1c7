# Licensed under the Apache License, Version 2.0.
"""Reading ``collect --tuner ansor``'s records back (TVM 0.19): a hardware folder's networks,
their tasks, and each task's measured states, raw (``.json``) or packed (``.json.gz``).

A folder is :mod:`.ansor_archive`'s layout: ``measure_records/`` (one auto_scheduler log per
task) and ``network_info/`` (``NET.json``, the network's tasks; ``NET.workloads.json``, their
compute DAGs, registered before a log is read in a process that did not extract the tasks).
Evaluation (:mod:`tvm_gnn.evaluate.ansor`) and training (:mod:`tvm_gnn.train.ansor`) read the
records through here, so both see the same states, latencies and workload keys.
"""

from __future__ import annotations

import gzip
import json
import tempfile
from pathlib import Path

import numpy as np

from ..costs import FAILED_COST, ansor_cost
from .ansor_archive import INFO, network_names
from .groups import Group

__all__ = [
    "network_groups",
    "networks_of",
    "read_network_info",
    "read_records",
    "register_workloads",
    "training_pairs",
]


def networks_of(folder) -> list[str]:
    """The networks whose tasks ``collect --tuner ansor`` recorded under ``folder``."""
    return network_names(Path(folder))


def read_network_info(folder, network: str) -> list[dict]:
    """The tasks ``collect --tuner ansor`` wrote for ``network`` under ``folder``."""
    return json.loads((Path(folder) / INFO / f"{network}.json").read_text())["tasks"]


def register_workloads(folder, network: str) -> None:
    """Register the compute DAGs ``collect --tuner ansor`` saved for ``network``'s tasks."""
    from tvm.auto_scheduler.workload_registry import deserialize_workload_registry_entry

    path = Path(folder) / INFO / f"{network}.workloads.json"
    for entry in json.loads(path.read_text()).items():
        deserialize_workload_registry_entry(entry)


def read_records(log: Path, states: bool = False) -> list:
    """A task log's ``(MeasureInput, MeasureResult)`` pairs, read from ``log`` or, where only
    the committed copy is there, from ``log.gz``; with ``states``, each input recovered whole (its
    state replayed on the task's compute DAG: a loaded state prints as a bare placeholder, and
    what models score is the state)."""
    from tvm import auto_scheduler
    from tvm.auto_scheduler.measure import recover_measure_input

    log = Path(log)
    packed = log.with_name(log.name + ".gz")
    if not log.is_file() and packed.is_file():
        with tempfile.NamedTemporaryFile("wb", suffix=".json") as plain:
            plain.write(gzip.decompress(packed.read_bytes()))
            plain.flush()
            pairs = list(auto_scheduler.load_records(plain.name))
    else:
        pairs = list(auto_scheduler.load_records(str(log))) if log.is_file() else []
    if states:
        pairs = [(recover_measure_input(inp, rebuild_state=True), res) for inp, res in pairs]
    return pairs


def task_group(folder: Path, network: str, task: dict) -> Group | None:
    """One task's distinct valid states (a state measured twice keeps its median latency), as
    a :class:`~.groups.Group` (the ``SearchTask`` as its context); None without a valid one."""
    search_task, by_state = None, {}
    for inp, res in read_records(Path(folder) / task["log"], states=True):
        cost = ansor_cost(res.error_no, res.costs)
        if cost >= FAILED_COST:
            continue
        search_task = search_task or inp.task
        by_state.setdefault(str(inp.state), (inp.state, []))[1].append(cost)
    if search_task is None:
        return None
    states = [s for s, _ in by_state.values()]
    lats = [float(np.median(c)) for _, c in by_state.values()]
    key, desc = task["workload_key"], task["desc"]
    return Group(network, key, desc, task["weight"], search_task, states, lats)


def network_groups(folder, network: str) -> list[Group]:
    """One group per task of ``network`` with at least one valid record (:func:`task_group`)."""
    register_workloads(folder, network)
    groups = (task_group(Path(folder), network, t) for t in read_network_info(folder, network))
    return [g for g in groups if g is not None]


def training_pairs(folder, networks: list[str], leave_out: set[str]):
    """``(inputs, results)`` of every record of ``networks``' tasks whose workload key is not in
    ``leave_out``, each task's log once (what Ansor's ``XGBModel.update`` trains on)."""
    inputs, results, seen = [], [], set()
    for net in networks:
        register_workloads(folder, net)
        for t in read_network_info(folder, net):
            if t["workload_key"] in leave_out or t["log"] in seen:
                continue
            seen.add(t["log"])
            for inp, res in read_records(Path(folder) / t["log"]):
                inputs.append(inp)
                results.append(res)
    return inputs, results
