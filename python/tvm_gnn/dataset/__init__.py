# Licensed under the Apache License, Version 2.0.
"""The measured dataset: database files, layout, records, graphs and their cache, splits, counts
and the card.

``from tvm_gnn import dataset`` gives the functions most callers need; each lives in one module:
:mod:`~.dbfile` (reading and repairing MetaSchedule JSON databases without TVM),
:mod:`~.layout` (folders, packed or not, snapshots, exhausted workloads), :mod:`~.archive`
(pack / unpack), :mod:`~.records` (samples and MetaSchedule records), :mod:`~.graphs` (featurized
and cached), :mod:`~.splits` (the held-out networks, train / test splits), :mod:`~.counts` (what
a dataset holds) and :mod:`~.card` (the dataset card that renders it), :mod:`~.groups`
(per-workload candidates for cost models), :mod:`~.store_features` (TVM's per-store features of
each program, cached), :mod:`~.provenance` and :mod:`~.rates` (which run measured what, and how
fast).
"""

from .archive import pack, unpack
from .card import (
    stats_figure,
    stats_markdown,
    stats_plot,
    summary_markdown,
    would_add_markdown,
)
from .counts import stats, would_add
from .graphs import CACHE_FORMAT, load_graphs
from .layout import (
    DB_FILES,
    EXHAUSTED_FILE,
    META_FILES,
    contents_digest,
    hardware_names,
    network_folders,
    read_exhausted,
    record_lines,
    resolve_hardware,
    snapshot_line,
    training_networks,
)
from .rates import collection_rate
from .records import Sample, distinct_programs, samples, tuning_records
from .splits import HELD_OUT, SPLITS, split
from .store_features import load_store_features

__all__ = [
    "CACHE_FORMAT",
    "DB_FILES",
    "EXHAUSTED_FILE",
    "META_FILES",
    "HELD_OUT",
    "SPLITS",
    "Sample",
    "collection_rate",
    "contents_digest",
    "distinct_programs",
    "hardware_names",
    "load_graphs",
    "load_store_features",
    "network_folders",
    "pack",
    "read_exhausted",
    "record_lines",
    "resolve_hardware",
    "samples",
    "snapshot_line",
    "split",
    "stats",
    "stats_figure",
    "stats_markdown",
    "stats_plot",
    "summary_markdown",
    "training_networks",
    "tuning_records",
    "unpack",
    "would_add",
    "would_add_markdown",
]
