"""Graphs with their labels, loaded through a cache keyed by the files' contents."""

import gzip
import shutil

import pytest
import torch

from tvm_gnn import dataset as data
from tvm_gnn.dataset import dbfile
from tvm_gnn.nn.schema import FeaturizerConfig


def test_load_graphs_labels_and_cache(packed, tmp_path):
    graphs, samples = data.load_graphs(packed, cache_dir=tmp_path / "cache")
    assert len(graphs) == len(samples) == 6
    for g, s in zip(graphs, samples):
        g.validate(raise_on_error=True)
        assert float(g.latency) == pytest.approx(s.latency) and s.latency > 0
        assert s.network == "unit" and s.task == "matmul32"
    again, _ = data.load_graphs(packed, cache_dir=tmp_path / "cache")
    assert all(torch.equal(a.x, b.x) for a, b in zip(graphs, again))
    assert all(torch.equal(a.latency, b.latency) for a, b in zip(graphs, again))
    caches = list((tmp_path / "cache").rglob("*.pt"))
    assert len(caches) == 1 and FeaturizerConfig().version() in str(caches[0])
    data.load_graphs(packed, FeaturizerConfig(lowering="tvm"), cache_dir=tmp_path / "cache")
    assert len(list((tmp_path / "cache").rglob("*.pt"))) == 2  # another featurizer, another cache


def test_the_graph_cache_follows_the_files_contents_not_their_times(packed, tmp_path, monkeypatch):
    import shutil

    graphs, _ = data.load_graphs(packed, cache_dir=tmp_path / "cache")
    copy = tmp_path / "copy"  # a clone or a copy to another machine: new times, same bytes
    shutil.copytree(packed, copy, copy_function=shutil.copy)

    def featurize(*args, **kwargs):
        raise AssertionError("featurized again although the cache holds these files")

    monkeypatch.setattr(data.graphs, "_featurize_folder", featurize)
    again, _ = data.load_graphs(copy, cache_dir=tmp_path / "cache")
    assert all(torch.equal(a.x, b.x) for a, b in zip(graphs, again)) and len(again) == len(graphs)
    (rec,) = copy.glob(f"*/unit/{dbfile.RECORD_FILE}.gz")
    rec.write_bytes(gzip.compress(gzip.decompress(rec.read_bytes())[:-200]))  # other contents
    with pytest.raises(AssertionError, match="featurized again"):
        data.load_graphs(copy, cache_dir=tmp_path / "cache")


def test_packed_folders_gunzip_into_a_cache_keyed_by_contents(packed, tmp_path, monkeypatch):
    import os
    import re
    import shutil
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    (folder,) = packed.glob("*/unit")
    plain = data.layout.open_db_folder(folder)
    assert plain != folder and sorted(p.name for p in plain.iterdir()) == sorted(data.DB_FILES)
    record = dbfile.RECORD_FILE
    assert (plain / record).read_bytes() == gzip.decompress((folder / f"{record}.gz").read_bytes())
    copy = tmp_path / "copy" / "unit"
    shutil.copytree(folder, copy)
    os.utime(copy / f"{record}.gz", ns=(1, 1))
    assert data.layout.open_db_folder(copy) == plain  # same contents, other times: the same cache
    # other contents of the same size and time (what the cache was keyed by) get their own
    # cache, never the stale copy: one digit of a latency changed, the gzip size kept
    gz = copy / f"{record}.gz"
    body = gzip.decompress(gz.read_bytes())
    size = len(gzip.compress(body, mtime=0))
    digits = [
        i
        for m in re.finditer(rb"\],\[([0-9.]+)", body)  # latencies' digits
        for i in range(m.start(1) + 2, m.end(1))
        if body[i : i + 1].isdigit()
    ]
    edited = next(
        e
        for at in digits
        for d in b"0123456789"
        if d != body[at]
        for e in [body[:at] + bytes([d]) + body[at + 1 :]]
        if len(gzip.compress(e, mtime=0)) == size
    )
    seen = []
    for contents in (body, edited):
        gz.write_bytes(gzip.compress(contents, mtime=0))
        os.utime(gz, ns=(1, 1))
        seen.append((data.layout.open_db_folder(copy) / record).read_bytes())
    assert seen == [body, edited]
    # a cut gzip file is refused by name, and leaves nothing half written behind
    gz.write_bytes(gzip.compress(body, mtime=0)[:-20])
    with pytest.raises(ValueError, match="not a whole gzip file"):
        data.layout.open_db_folder(copy)
    assert not list((tmp_path / "tmp").rglob("*.tmp"))


def test_a_cut_cache_file_is_logged_and_rebuilt(packed, tmp_path, caplog):
    graphs, _ = data.load_graphs(packed, cache_dir=tmp_path / "cache")
    (cache,) = (tmp_path / "cache").rglob("*.pt")
    cache.write_bytes(cache.read_bytes()[:100])
    again, _ = data.load_graphs(packed, cache_dir=tmp_path / "cache")
    assert all(torch.equal(a.x, b.x) for a, b in zip(graphs, again)) and len(again) == len(graphs)
    assert f"graph cache {cache} is unreadable" in caplog.text
    assert cache.stat().st_size > 100  # rewritten whole


def test_worker_processes_featurize_folders_into_the_same_graphs_in_the_same_order(
    packed, tmp_path, caplog
):
    import shutil

    root = tmp_path / "data"
    shutil.copytree(packed, root)
    (unit,) = root.glob("*/unit")
    shutil.copytree(unit, unit.parent / "unit2")  # a second network folder to featurize
    alone, samples = data.load_graphs(root, cache_dir=tmp_path / "one", jobs=1)
    pooled, pooled_samples = data.load_graphs(root, cache_dir=tmp_path / "two", jobs=2)
    assert [s.network for s in samples] == ["unit"] * 6 + ["unit2"] * 6
    assert pooled_samples == samples
    for a, b in zip(alone, pooled, strict=True):
        assert torch.equal(a.x, b.x) and torch.equal(a.edge_index, b.edge_index)
        assert torch.equal(a.latency, b.latency)
    assert len(list((tmp_path / "two").rglob("*.pt"))) == 2
    # what a worker could not featurize is logged here, in the calling process
    tiny = FeaturizerConfig(max_nodes=1)
    none, _ = data.load_graphs(root, tiny, cache_dir=tmp_path / "tiny", jobs=2)
    assert none == [] and caplog.text.count("not featurized") == 12
    assert f"{unit.parent / 'unit2'} line" in caplog.text


def test_featurizing_in_this_process_keeps_the_graphs_rather_than_reading_them_back(
    packed, tmp_path, monkeypatch
):
    from tvm_gnn.dataset import graphs as module

    reads = []
    real = module._read_cache
    monkeypatch.setattr(module, "_read_cache", lambda cache: reads.append(cache) or real(cache))
    graphs, _ = data.load_graphs(packed, cache_dir=tmp_path / "cache", jobs=1)
    assert len(graphs) == 6 and reads == []  # written, not read back
    again, _ = data.load_graphs(packed, cache_dir=tmp_path / "cache", jobs=1)
    assert len(reads) == 1 and all(torch.equal(a.x, b.x) for a, b in zip(graphs, again))


@pytest.mark.parametrize("jobs", [1, 2])
def test_the_featurize_bar_counts_record_lines(packed, tmp_path, monkeypatch, jobs):
    import tqdm

    steps = []
    real = tqdm.tqdm.update
    monkeypatch.setattr(tqdm.tqdm, "update", lambda bar, n=1: steps.append(n) or real(bar, n))
    (folder,) = packed.glob("*/unit")
    copy = tmp_path / "data"  # two folders, so that jobs=2 runs the pool
    for net in ("unit", "other"):
        shutil.copytree(folder, copy / folder.parent.name / net)
    lines = data.layout.record_lines(folder)
    data.load_graphs(copy, cache_dir=tmp_path / "cache", progress=True, jobs=jobs)
    assert sum(steps) == 2 * lines and all(n > 0 for n in steps)
    # in this process the bar moves program by program; from the pool, folder by folder
    assert len(steps) > 2 if jobs == 1 else steps == [lines, lines]
