"""Dataset: packing, statistics, loading graphs with their labels, caching and splits."""

import gzip

import pytest
import torch

from tvm_gnn import dataset as data
from tvm_gnn.dataset import dbfile
from tvm_gnn.nn.schema import FeaturizerConfig

from ..conftest import workload_hashes


@pytest.fixture(scope="module")
def packed(small_db, tmp_path_factory):
    out = tmp_path_factory.mktemp("packed")
    written = data.pack(small_db.parent.parent, out)
    assert len(written) == 2 and all(w.endswith(".gz") for w in written)
    return out


def test_pack_is_lossless_and_deterministic(small_db, packed, tmp_path):
    (gz,) = packed.glob(f"*/unit/{dbfile.RECORD_FILE}.gz")
    assert gzip.decompress(gz.read_bytes()) == (small_db / dbfile.RECORD_FILE).read_bytes()
    again = tmp_path / "again"
    data.pack(small_db.parent.parent, again)
    (gz2,) = again.glob(f"*/unit/{dbfile.RECORD_FILE}.gz")
    assert gz.read_bytes() == gz2.read_bytes()
    assert (gz.parent / "tasks.json").exists() and (gz.parent / "provenance.jsonl").exists()
    before = gz2.stat().st_mtime_ns
    assert data.pack(small_db.parent.parent, again) == []  # nothing new: nothing rewritten
    assert gz2.stat().st_mtime_ns == before  # untouched, mtime included


def test_stats_raw_and_packed_agree(small_db, packed):
    raw, pk = data.stats(small_db.parent.parent), data.stats(packed)
    assert raw == pk
    unit = raw["networks"]["unit"]
    assert unit["valid"] == 6 and unit["failed"] == 0 and unit["tasks"] == 1
    assert unit["workloads_under_32"] == 1 and 0 < unit["min_ms"] <= unit["max_ms"]
    assert unit["under_32_exhausted"] == 0  # 6 of a 32x32 matmul's many programs: short
    assert "| unit |" in data.stats_markdown(raw)


def test_stats_counts_exhausted_workloads_apart(packed, tmp_path):
    import json
    import shutil

    from tvm_gnn.dataset import EXHAUSTED_FILE

    copy = tmp_path / "data"
    shutil.copytree(packed, copy)
    (folder,) = copy.glob("*/unit")
    (shash,) = workload_hashes(folder)
    (folder / EXHAUSTED_FILE).write_text(json.dumps([shash, "12345"]))  # one unmeasured hash
    st = data.stats(copy)
    unit = st["networks"]["unit"]
    assert (unit["workloads_under_32"], unit["under_32_exhausted"]) == (1, 1)
    assert "| 1 (1) |" in data.stats_markdown(st)


def test_load_graphs_labels_and_cache(packed, tmp_path):
    graphs, samples = data.load_graphs(packed, cache_dir=tmp_path / "cache")
    assert len(graphs) == len(samples) == 6
    for g, s in zip(graphs, samples):
        g.validate(raise_on_error=True)
        assert float(g.latency) == pytest.approx(s.latency) and s.latency > 0
        assert s.network == "unit" and s.task == "matmul32"
    again, _ = data.load_graphs(packed, cache_dir=tmp_path / "cache")
    assert all(torch.equal(a.x, b.x) for a, b in zip(graphs, again))
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


def test_splits():
    s = [
        data.Sample(net, "t", wl, 1, 1e-3, i)
        for i, (net, wl) in enumerate([("a", "w1")] * 5 + [("b", "w2")] * 5 + [("c", "w3")] * 5)
    ]
    tr, te = data.split(s, "network", {"b"})
    assert {s[i].network for i in te} == {"b"} and len(tr) == 10
    tr, te = data.split(s, "workload", None, seed=1, test_fraction=0.34)
    assert len({s[i].shash for i in te}) == 1 and not {s[i].shash for i in te} & {
        s[i].shash for i in tr
    }
    tr, te = data.split(s, "random", None, test_fraction=0.2)
    assert len(te) == 3 and {s[i].shash for i in te} == {"w1", "w2", "w3"}
    with pytest.raises(ValueError, match="network"):
        data.split(s, "task", None)


def test_unpack_then_pack_round_trip_and_shrink_guard(packed, tmp_path):
    raw = tmp_path / "raw"
    written = data.unpack(packed, raw)
    assert len(written) == 2
    assert data.unpack(packed, raw) == []  # never overwrites a raw database
    (folder,) = raw.glob("*/unit")
    again = tmp_path / "again"
    data.pack(raw, again)
    (gz,) = again.glob(f"*/unit/{dbfile.RECORD_FILE}.gz")
    (orig,) = packed.glob(f"*/unit/{dbfile.RECORD_FILE}.gz")
    assert gz.read_bytes() == orig.read_bytes()
    # a raw folder that started over must not replace what was measured before
    rec = folder / dbfile.RECORD_FILE
    rec.write_text(rec.read_text().splitlines(keepends=True)[0])
    with pytest.raises(ValueError, match="tvm-gnn unpack"):
        data.pack(raw, again)
    assert gzip.decompress(gz.read_bytes()) == gzip.decompress(orig.read_bytes())


def test_samples_read_a_snapshot_of_the_record_file(small_db):
    lines = data.record_lines(small_db)
    assert lines == 6
    assert len(data.samples(small_db, max_line=4)[0]) == 4
    assert data.snapshot_line(small_db, None) is None
    assert data.snapshot_line(small_db, {"unit": 6}) is None
    assert data.snapshot_line(small_db, {"other": 4}) is None
    assert data.snapshot_line(small_db, {"unit": 4}) == 4
    with pytest.raises(ValueError, match="6 record lines, fewer than the 7"):
        data.snapshot_line(small_db, {"unit": 7})
