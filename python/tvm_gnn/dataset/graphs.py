# Licensed under the Apache License, Version 2.0.
"""The dataset as labelled graphs, featurized once and cached on disk per featurizer version."""

from __future__ import annotations

import logging
from pathlib import Path

from ..atomic import atomic_open
from ..measure.hardware import usable_cores
from ..nn.batch import pack_graphs, unpack_graphs
from ..nn.schema import FeaturizerConfig
from ..space import is_full
from .dbfile import RECORD_FILE
from .layout import folder_caches, record_lines
from .records import Sample, distinct_programs

logger = logging.getLogger(__name__)


def _featurize_folder(folder: Path, config, max_line: int | None = None, on_line=None):
    """Graphs (labelled with ``latency``) of one network folder's distinct programs, their
    samples, and a message for each record that could not be featurized. ``on_line(n)``, if
    given, is called with each program's first record line as its turn comes (in line order)."""
    import torch

    from ..featurize.graph import featurize

    graphs, kept, problems = [], [], []
    for s, _, cand in distinct_programs(folder, max_line):
        if on_line is not None:
            on_line(s.line)
        try:
            g = featurize(cand.sch.mod, config)
        except Exception as err:  # noqa: BLE001 - one bad record must not stop the dataset
            problems.append(f"{folder} line {s.line} not featurized: {err}")
            continue
        g.latency = torch.tensor(s.latency, dtype=torch.float64)
        graphs.append(g)
        kept.append(s)
    return graphs, kept, problems


def _write_cache(cache: Path, graphs, kept) -> None:
    """Write one folder's graphs and samples to its cache file, whole or not at all."""
    import torch

    with atomic_open(cache, "wb") as f:
        torch.save({"graphs": pack_graphs(graphs), "samples": [s.__dict__ for s in kept]}, f)


def _keep_cache(cache: Path, graphs, kept) -> None:
    """:func:`_write_cache`, where a full disk only costs the cache: the graphs are in memory,
    and the next run featurizes the folder again."""
    try:
        _write_cache(cache, graphs, kept)
    except OSError as err:
        if not is_full(err):
            raise
        logger.warning("%s: no space left for the graph cache; going on without it", cache)


def _build_cache(folder: Path, config, max_line: int | None, cache: Path) -> list[str]:
    """Featurize one folder into its cache file; the problems met.

    What a worker process runs when several folders need it: only the messages travel back."""
    graphs, kept, problems = _featurize_folder(folder, config, max_line)
    _write_cache(cache, graphs, kept)
    return problems


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
    jobs: int | None = None,
):
    """Graphs of every distinct measured program under ``root``, with :class:`Sample` metadata.

    ``hardware`` and ``networks`` restrict the folders read (default: all; never mix hardware
    in one training set). ``snapshot`` (``{network: record lines}``, see :func:`record_lines`)
    reads those networks' record files only up to that line.

    Cached per network folder under ``cache_dir/<featurizer version>/``; a cache is rebuilt when
    the featurizer version or the database files' contents change. Folders without a cache are
    featurized by ``jobs`` worker processes at once (default: every usable core); the result is
    the same, in the same order, whatever ``jobs`` is.
    """
    config = config or FeaturizerConfig()
    entries = list(
        folder_caches(
            root,
            cache_dir,
            f"{config.version()}-d{CACHE_FORMAT}",
            ".pt",
            hardware=hardware,
            networks=networks,
            snapshot=snapshot,
        )
    )
    loaded = {}
    for i, (_, _, _, cache) in enumerate(entries):
        cached = _read_cache(cache) if cache.exists() else None
        if cached is not None:
            loaded[i] = cached
    todo = [i for i in range(len(entries)) if i not in loaded]
    for i, built in _featurize_into_caches(entries, todo, config, jobs, progress):
        loaded[i] = built if built is not None else _read_cache(entries[i][3])
        if loaded[i] is None:
            raise RuntimeError(f"graph cache {entries[i][3]} unreadable right after writing it")
    all_graphs, all_samples = [], []
    for i in range(len(entries)):
        graphs, kept = loaded.pop(i)
        all_graphs += graphs
        all_samples += kept
    return all_graphs, all_samples


def _featurize_into_caches(entries, todo, config, jobs, progress):
    """Build the caches of ``entries[i]`` for each ``i`` in ``todo``, yielding ``(i, built)`` as
    each lands: in this process for one folder or one job (``built`` is its graphs and samples,
    kept rather than read back), else in a pool of ``jobs`` worker processes (default: every
    usable core), one folder at a time each (``built`` is None: the caller reads the cache).

    ``progress``: a bar counting record lines, moved on program by program in this process and
    folder by folder from the pool."""
    jobs = min(jobs or usable_cores(), len(todo))
    bar = _LineBar(entries, todo) if progress and todo else None
    try:
        if jobs <= 1:
            for i in todo:
                _, folder, max_line, cache = entries[i]
                on_line = bar.folder(i) if bar is not None else None
                graphs, kept, problems = _featurize_folder(folder, config, max_line, on_line)
                _keep_cache(cache, graphs, kept)
                _log(problems)
                if bar is not None:
                    bar.finish(i)
                yield i, (graphs, kept)
            return
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor, as_completed

        # spawn, not fork: the parent has TVM's and torch's thread pools running
        pool = ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("spawn"))
        try:
            futures = {
                pool.submit(_build_cache, entries[i][1], config, entries[i][2], entries[i][3]): i
                for i in sorted(todo, key=lambda i: -_records_size(entries[i][1]))
            }  # largest first: the last folder to start is a small one
            for future in as_completed(futures):
                _log(future.result())
                if bar is not None:
                    bar.finish(futures[future])
                yield futures[future], None
        finally:  # on an error, folders not yet begun are dropped, not featurized for nothing
            pool.shutdown(wait=True, cancel_futures=True)
    finally:
        if bar is not None:
            bar.close()


class _LineBar:
    """A tqdm bar over the record lines of the folders being featurized (a folder's lines are
    its snapshot's, if it reads one): the work goes by records, and folders differ in size
    a hundredfold."""

    def __init__(self, entries, todo):
        from tqdm import tqdm

        self.lines = {
            i: record_lines(entries[i][1]) if entries[i][2] is None else entries[i][2] for i in todo
        }
        self.done = dict.fromkeys(todo, 0)
        self.tqdm = tqdm(total=sum(self.lines.values()), desc="featurize", unit="record")

    def folder(self, i):
        """The ``on_line`` callback of folder ``i``: the bar reaches each program's line."""

        def on_line(line: int) -> None:
            self._to(i, min(line - 1, self.lines[i]))

        return on_line

    def finish(self, i) -> None:
        self._to(i, self.lines[i])

    def _to(self, i, lines: int) -> None:
        if lines > self.done[i]:
            self.tqdm.update(lines - self.done[i])
            self.done[i] = lines

    def close(self) -> None:
        self.tqdm.close()


def _records_size(folder: Path) -> int:
    """Bytes of a folder's record file, plain or gzipped: how long it takes to featurize."""
    return sum(p.stat().st_size for p in folder.glob(f"{RECORD_FILE}*"))


def _log(problems: list[str]) -> None:
    for message in problems:
        logger.warning("%s", message)
