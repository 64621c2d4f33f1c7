# Licensed under the Apache License, Version 2.0.
"""What TVM's XGBModel sees of each measured program: its per-store features, one row per program.

``tvm-gnn train --aux-store-features W`` trains the GNN to predict them from its graph readout
as a second target beside the ranking (issue 28's direction 4a: XGBModel's knowledge taught to
the GNN, at no cost at inference, where the auxiliary head is never run). TVM's
``PerStoreFeature`` lowers each program (about 100 programs a second on 2 cores), so the rows are
cached per network folder like the graphs (:func:`tvm_gnn.dataset.load_graphs`).

A program's row summarizes its stores' feature vectors: their mean, their maximum and
``log2(1 + stores)``.
"""

from __future__ import annotations

import logging
from pathlib import Path

import numpy as np

from ..atomic import atomic_open
from ..measure.hardware import usable_cores
from .groups import _folder_target
from .layout import folder_caches
from .records import distinct_programs

logger = logging.getLogger(__name__)

#: Bumped when what the cache holds changes.
STORE_FEATURES_FORMAT = 1


def summarize(per_store: np.ndarray) -> np.ndarray:
    """``[stores, F]`` per-store features -> ``[2F + 1]``: mean, max, ``log2(1 + stores)``.
    A program without stores gets zeros and a count of 0."""
    per_store = np.asarray(per_store, dtype=np.float32)
    if per_store.ndim != 2:
        raise ValueError(f"per-store features must be [stores, F], got {per_store.shape}")
    if len(per_store) == 0:
        return np.zeros(2 * per_store.shape[1] + 1, dtype=np.float32)
    count = np.float32(np.log2(1.0 + len(per_store)))
    return np.concatenate([per_store.mean(0), per_store.max(0), [count]]).astype(np.float32)


def _folder_rows(folder: Path, max_line: int | None) -> dict[int, np.ndarray]:
    """``{record line: summary row}`` of a folder's distinct programs, extracted per workload
    (a program TVM cannot lower is logged and left out)."""
    from tvm.s_tir import meta_schedule as ms

    target = _folder_target(folder)
    extractor = ms.feature_extractor.PerStoreFeature()
    by_workload: dict[str, tuple[object, list[int], list]] = {}
    for s, record, cand in distinct_programs(folder, max_line):
        if s.shash not in by_workload:
            ctx = ms.TuneContext(mod=record.workload.mod, target=target, num_threads=usable_cores())
            by_workload[s.shash] = (ctx, [], [])
        by_workload[s.shash][1].append(s.line)
        by_workload[s.shash][2].append(cand)
    rows: dict[int, np.ndarray] = {}
    for ctx, lines, cands in by_workload.values():
        try:
            features = extractor.extract_from(ctx, cands)
        except Exception:  # noqa: BLE001 - one program must not cost its workload's rows
            features = [_one(extractor, ctx, c, folder, line) for c, line in zip(cands, lines)]
        for line, f in zip(lines, features):
            if f is not None:
                rows[line] = summarize(f.numpy())
    return rows


def _one(extractor, ctx, cand, folder, line):
    try:
        return extractor.extract_from(ctx, [cand])[0]
    except Exception as err:  # noqa: BLE001 - logged; the program keeps its ranking target
        logger.warning("%s line %d: no per-store features (%s)", folder, line, err)
        return None


def load_store_features(
    root,
    cache_dir=".cache/graphs",
    progress: bool = False,
    hardware: str | None = None,
    networks=None,
    snapshot: dict | None = None,
) -> dict[tuple[str, int], np.ndarray]:
    """``{(network, record line): row}`` for the distinct programs :func:`load_graphs` reads
    with the same arguments (its samples' ``network`` and ``line`` are the keys).

    Cached per network folder under ``cache_dir/store-features-s<format>/``; rebuilt when the
    database files' contents change.
    """
    out: dict[tuple[str, int], np.ndarray] = {}
    for net, folder, max_line, cache in folder_caches(
        root,
        cache_dir,
        f"store-features-s{STORE_FEATURES_FORMAT}",
        ".npz",
        hardware=hardware,
        networks=networks,
        snapshot=snapshot,
        progress="per-store features" if progress else None,
    ):
        rows = _read(cache) if cache.exists() else None
        if rows is None:
            rows = _folder_rows(folder, max_line)
            lines = np.array(sorted(rows), dtype=np.int64)
            with atomic_open(cache, "wb") as f:
                np.savez(f, lines=lines, rows=np.stack([rows[i] for i in lines]) if rows else [])
        out.update({(net, line): row for line, row in rows.items()})
    return out


def _read(cache: Path) -> dict[int, np.ndarray] | None:
    try:
        with np.load(cache) as z:
            return {int(line): row for line, row in zip(z["lines"], z["rows"])}
    except Exception as err:  # noqa: BLE001 - whatever is wrong with it, it can be rebuilt
        logger.warning("per-store feature cache %s unreadable (%s); extracting again", cache, err)
        return None
