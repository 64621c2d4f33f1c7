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
from ..featurize.stores import store_features, summarize
from ..measure.hardware import usable_cores
from .groups import _folder_target
from .layout import folder_caches
from .records import distinct_programs

logger = logging.getLogger(__name__)

#: Bumped when what the cache holds changes.
STORE_FEATURES_FORMAT = 1
#: Bumped when the native rows (``tvm_gnn.featurize.stores``) change.
NATIVE_FORMAT = 1
#: where the rows come from: TVM's ``PerStoreFeature`` (after lowering) or tvm_gnn's own walk
KINDS = ("tvm", "native")


def _native_rows(folder: Path, max_line: int | None) -> dict[int, np.ndarray]:
    """``{record line: summary row}`` of tvm_gnn's own per-store features (a program the walk
    cannot read is logged and left out)."""
    rows: dict[int, np.ndarray] = {}
    for s, _, cand in distinct_programs(folder, max_line):
        try:
            rows[s.line] = summarize(store_features(cand.sch.mod))
        except Exception as err:  # noqa: BLE001 - logged; the program keeps its ranking target
            logger.warning("%s line %d: no native per-store features (%s)", folder, s.line, err)
    return rows


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
    kind: str = "tvm",
) -> dict[tuple[str, int], np.ndarray]:
    """``{(network, record line): row}`` for the distinct programs :func:`load_graphs` reads
    with the same arguments (its samples' ``network`` and ``line`` are the keys).

    ``kind``: ``"tvm"`` (TVM's ``PerStoreFeature``, about 100 programs a second) or
    ``"native"`` (:mod:`tvm_gnn.featurize.stores`; replaying each record's trace is most of its
    cost). Cached per network folder under ``cache_dir/store-features-s<format>/`` (or
    ``native-stores-n<format>/``); rebuilt when the database files' contents change.
    """
    if kind not in KINDS:
        raise ValueError(f"unknown per-store feature kind {kind!r}; choose one of {KINDS}")
    native = kind == "native"
    out: dict[tuple[str, int], np.ndarray] = {}
    for net, folder, max_line, cache in folder_caches(
        root,
        cache_dir,
        f"native-stores-n{NATIVE_FORMAT}" if native else f"store-features-s{STORE_FEATURES_FORMAT}",
        ".npz",
        hardware=hardware,
        networks=networks,
        snapshot=snapshot,
        progress="per-store features" if progress else None,
    ):
        rows = _read(cache) if cache.exists() else None
        if rows is None:
            rows = (_native_rows if native else _folder_rows)(folder, max_line)
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
