# Licensed under the Apache License, Version 2.0.
"""The dataset as labelled graphs, featurized once and cached on disk per featurizer version."""

from __future__ import annotations

import logging
from pathlib import Path

from ..atomic import atomic_open
from ..nn.batch import pack_graphs, unpack_graphs
from ..nn.schema import FeaturizerConfig
from .layout import folder_caches
from .records import Sample, distinct_programs

logger = logging.getLogger(__name__)


def _featurize_folder(folder: Path, config, max_line: int | None = None):
    """Graphs (labelled with ``latency``) of one network folder's distinct programs."""
    import torch

    from ..featurize.graph import featurize

    graphs, kept, skipped = [], [], 0
    for s, _, cand in distinct_programs(folder, max_line):
        try:
            g = featurize(cand.sch.mod, config)
        except Exception as err:  # noqa: BLE001 - one bad record must not stop the dataset
            logger.warning("%s line %d not featurized: %s", folder, s.line, err)
            skipped += 1
            continue
        g.latency = torch.tensor(s.latency, dtype=torch.float64)
        graphs.append(g)
        kept.append(s)
    return graphs, kept, skipped


#: Bumped when what load_graphs caches changes (2: one sample per distinct program).
CACHE_FORMAT = 2


def _read_cache(cache: Path):
    """The graphs and samples of a cache file, or None (logged) if it is cut or corrupt: the
    caller featurizes the folder again and rewrites it."""
    import torch

    try:
        payload = torch.load(cache, weights_only=False)
        graphs = unpack_graphs(payload["graphs"])
        kept = [Sample(**s) for s in payload["samples"]]
        if len(graphs) != len(kept):
            raise ValueError(f"{len(graphs)} graphs for {len(kept)} samples")
    except Exception as err:  # noqa: BLE001 - whatever is wrong with it, it can be rebuilt
        logger.warning("graph cache %s is unreadable (%s); featurizing again", cache, err)
        return None
    for g, s in zip(graphs, kept):
        g.latency = torch.tensor(s.latency, dtype=torch.float64)
    return graphs, kept


def load_graphs(
    root,
    config=None,
    cache_dir=".cache/graphs",
    progress: bool = False,
    hardware: str | None = None,
    networks=None,
    snapshot: dict | None = None,
):
    """Graphs of every distinct measured program under ``root``, with :class:`Sample` metadata.

    ``hardware`` and ``networks`` restrict the folders read (default: all; never mix hardware
    in one training set). ``snapshot`` (``{network: record lines}``, see :func:`record_lines`)
    reads those networks' record files only up to that line.

    Cached per network folder under ``cache_dir/<featurizer version>/``; a cache is rebuilt when
    the featurizer version or the database files' contents change.
    """
    import torch

    config = config or FeaturizerConfig()
    all_graphs, all_samples = [], []
    for _, folder, max_line, cache in folder_caches(
        root,
        cache_dir,
        f"{config.version()}-d{CACHE_FORMAT}",
        ".pt",
        hardware=hardware,
        networks=networks,
        snapshot=snapshot,
        progress="featurize" if progress else None,
    ):
        cached = _read_cache(cache) if cache.exists() else None
        if cached is not None:
            graphs, kept = cached
        else:
            graphs, kept, _ = _featurize_folder(folder, config, max_line)
            with atomic_open(cache, "wb") as f:
                torch.save(
                    {"graphs": pack_graphs(graphs), "samples": [s.__dict__ for s in kept]}, f
                )
        all_graphs += graphs
        all_samples += kept
    return all_graphs, all_samples
