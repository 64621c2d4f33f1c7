# Licensed under the Apache License, Version 2.0.
"""What XGBModel sees, computed by tvm_gnn: per-store features of a scheduled candidate.

:func:`store_features` gives a program's rows (one per stored buffer, the
:data:`~tvm_gnn.featurize._stores.COLUMNS` of :mod:`~tvm_gnn.featurize._stores`), computed from
the scheduled TIR without TVM's lowering passes; :func:`summarize` turns rows into one vector per
program (their mean, their maximum, ``log2(1 + rows)``), the input of
:class:`~tvm_gnn.cost_models.StoreXGBModel`. ``docs/featurizer.md`` lists the columns and how
well each agrees with TVM's ``PerStoreFeature``.
"""

from __future__ import annotations

import numpy as np

from . import _stores
from .graph import lower

COLUMNS = _stores.COLUMNS
TVM_COLUMNS = _stores.TVM_COLUMNS
NUM_STORE_FEATURES = _stores.NUM_STORE_FEATURES
#: width of a :func:`summarize` vector
NUM_SUMMARY = 2 * NUM_STORE_FEATURES + 1

__all__ = [
    "COLUMNS",
    "NUM_STORE_FEATURES",
    "NUM_SUMMARY",
    "TVM_COLUMNS",
    "store_features",
    "store_summaries",
    "summarize",
]


def store_features(mod) -> np.ndarray:
    """``[stores, NUM_STORE_FEATURES]`` rows of one scheduled program (IRModule or PrimFunc)."""
    rows = _stores.store_rows(lower(mod, "emulated"))
    return np.asarray(rows, dtype=np.float32).reshape(len(rows), NUM_STORE_FEATURES)


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


def store_summaries(candidates):
    """``(summaries [n, NUM_SUMMARY] or None, ok, errors)`` of MetaSchedule candidates: the rows
    of those that featurized, their indices, and one message per candidate that did not (a bad
    candidate never raises)."""
    rows, ok, errors = [], [], []
    for i, cand in enumerate(candidates):
        try:
            rows.append(summarize(store_features(cand.sch.mod)))
            ok.append(i)
        except Exception as err:  # noqa: BLE001 - a cost model must survive any bad candidate
            errors.append(f"candidate {i}: {type(err).__name__}: {err}")
    if not ok:
        return None, ok, errors
    return np.stack(rows), ok, errors
