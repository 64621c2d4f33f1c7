# Licensed under the Apache License, Version 2.0.
"""Per-network counts of a dataset (``tvm-gnn dataset-stats``) and the workloads it shares with
the held-out networks; :mod:`.card` renders them."""

from __future__ import annotations

import json
import logging

import numpy as np

from ..measure.synthetic import SYNTHETIC
from .layout import (
    check_root,
    network_folders,
    read_exhausted,
    read_shared,
    read_tasks,
)
from .rates import add_timed_runs, no_runs
from .records import samples
from .splits import HELD_OUT

logger = logging.getLogger(__name__)


def stats(root, held_out=None) -> dict:
    """Per-network counts, latency range and workloads shared with the held-out networks.

    Each network also counts its workloads that a held-out network has (``shares_held_out``;
    ``None`` for a held-out network) and those no other network has (``only_here``).

    A workload under 32 valid records is either short (collection stopped in it, or it predates
    ``exhausted.json``) or complete with fewer programs than that: ``under_32_exhausted`` counts
    the latter, the workloads whose design space ``collect`` found no new program in. A task of
    ``tasks.json`` with no record at all, valid or failed, is ``tasks_unmeasured``: collection
    has not reached it yet; unless ``collect --skip-shared`` left it to another network's folder
    (its ``shared.json``), which ``tasks_left`` counts. ``workloads_over_32`` counts the
    workloads measured past 32 valid records: the wide tasks ``collect --wide-spread`` topped up
    (or, in a held-out network's folder, tuning runs' records).

    ``per_hardware`` totals each hardware folder: valid records, distinct workloads, how many
    folders are networks and how many synthetic operator families.
    """
    held_out = set(held_out or HELD_OUT)
    nets, by_wl, rates, per_hw = [], {}, {}, {}
    for hw, net, folder in network_folders(check_root(root)):
        add_timed_runs(rates.setdefault(hw, no_runs()), folder)
        got, scan = samples(folder)
        _check_scripts(folder, len(scan.workload_hashes))
        per_wl = {}
        traces = {r.line: json.dumps(r.trace, separators=(",", ":")) for r in scan.records}
        distinct = set()
        for s in got:
            per_wl[s.shash] = per_wl.get(s.shash, 0) + 1
            by_wl.setdefault(s.shash, set()).add(net)
            distinct.add((s.shash, traces[s.line]))
        lat = np.array([s.latency for s in got]) if got else np.zeros(0)
        short = {h for h, c in per_wl.items() if c < 32}
        tried = {scan.workload_hashes[r.workload] for r in scan.records}
        tasks = read_tasks(folder)
        left = {t["shash"] for t in tasks if t["shash"] not in tried} & set(read_shared(folder))
        reached = tried | left
        hw_total = per_hw.setdefault(
            hw, {"valid": 0, "workloads": set(), "networks": 0, "synthetic": 0}
        )
        hw_total["valid"] += len(got)
        hw_total["workloads"] |= set(per_wl)
        hw_total["synthetic" if net in SYNTHETIC else "networks"] += 1
        nets.append(
            {
                "network": net,
                "hardware": hw,
                "workloads": set(per_wl),
                "tasks": len(tasks),
                "tasks_unmeasured": sum(t["shash"] not in reached for t in tasks),
                "tasks_left": len(left),
                "workloads_measured": len(per_wl),
                "valid": len(got),
                "distinct": len(distinct),
                "failed": sum(r.failed for r in scan.records),
                "invalid_latency": len(scan.invalid_latency),
                "corrupt_lines": len(scan.problems),
                "workloads_under_32": len(short),
                "under_32_exhausted": len(short & read_exhausted(folder)),
                "workloads_over_32": sum(c > 32 for c in per_wl.values()),
                "min_ms": float(lat.min() * 1e3) if len(lat) else None,
                "max_ms": float(lat.max() * 1e3) if len(lat) else None,
            }
        )
    for n in nets:
        others = [by_wl[h] - {n["network"]} for h in n.pop("workloads")]
        shares = sum(bool(o & held_out) for o in others)
        n["shares_held_out"] = None if n["network"] in held_out else shares
        n["only_here"] = sum(not o for o in others)
    shared = sorted(h for h, ns in by_wl.items() if ns & held_out and ns - held_out)
    return {
        "networks": nets,
        "distinct_workloads": len(by_wl),
        "per_hardware": {hw: {**t, "workloads": len(t["workloads"])} for hw, t in per_hw.items()},
        "shared_with_held_out": {h: sorted(by_wl[h]) for h in shared},
        "collection": rates,
    }


def would_add(root, hardware: str, manifests: dict[str, list[dict]]) -> list[dict]:
    """How many workloads each candidate network would add to ``hardware``'s part of the dataset.

    ``manifests`` maps a network to its tasks as ``tasks.json`` keeps them (name, shash, weight),
    in the order the candidates are considered. The dataset's workloads are those of every
    ``tasks.json`` of the hardware's folders, measured or queued. Per network: its ``tasks``,
    distinct ``workloads``, those ``new`` to the dataset, and those new after the candidates
    before it (``new_after_above``: collecting them all in this order adds their sum).
    """
    known = set()
    root = check_root(root)
    for hw, _, folder in network_folders(root):
        if hw == hardware:
            known |= {t["shash"] for t in read_tasks(folder)}
    seen = set(known)
    rows = []
    for net, manifest in manifests.items():
        hashes = {t["shash"] for t in manifest}
        rows.append(
            {
                "network": net,
                "tasks": len(manifest),
                "workloads": len(hashes),
                "new": len(hashes - known),
                "new_after_above": len(hashes - seen),
            }
        )
        seen |= hashes
    return rows


def _check_scripts(folder, workloads: int) -> None:
    """A warning naming a folder's workload scripts where they cannot be read: the TVM versions
    that read the workloads only through them (0.27) would lose the folder's records."""
    from ..errors import DataError
    from .workloads import SCRIPT_FILE, read_scripts

    path = folder / SCRIPT_FILE
    if not path.exists():
        return
    try:
        read_scripts(path, workloads)
    except DataError as err:
        logger.warning("%s", err)
