"""Packing and unpacking the dataset: lossless, deterministic, guarded."""

import gzip

import pytest

from tvm_gnn import dataset as data
from tvm_gnn.dataset import dbfile


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


def test_the_workload_scripts_travel_with_unpack_and_pack(packed, tmp_path):
    import shutil

    from tvm_gnn.dataset.workloads import SCRIPT_FILE

    src = tmp_path / "packed"
    shutil.copytree(packed, src)
    (folder,) = src.glob("*/unit")
    scripts = gzip.compress(b'{"0": "# a script"}', mtime=0)
    (folder / SCRIPT_FILE).write_bytes(scripts)
    raw = tmp_path / "raw"
    data.unpack(src, raw)
    (raw_folder,) = raw.glob("*/unit")
    assert (raw_folder / SCRIPT_FILE).read_bytes() == scripts  # train under 0.27 reads them here
    again = tmp_path / "again"
    data.pack(raw, again)
    (out,) = again.glob("*/unit")
    assert (out / SCRIPT_FILE).read_bytes() == scripts


def test_a_cut_archive_is_refused_by_name_and_nothing_of_its_folder_lands(packed, tmp_path):
    import shutil

    from tvm_gnn.errors import DataError

    cut = tmp_path / "cut"
    shutil.copytree(packed, cut)
    (gz,) = cut.glob(f"*/unit/{dbfile.RECORD_FILE}.gz")
    gz.write_bytes(gz.read_bytes()[: gz.stat().st_size // 2])
    raw = tmp_path / "raw"
    with pytest.raises(DataError, match=f"{gz}.* is cut or corrupt"):
        data.unpack(cut, raw)
    assert not list(raw.rglob("database_*"))  # a second unpack will try again, not skip it
    gz.write_bytes((packed / gz.relative_to(cut)).read_bytes())
    assert len(data.unpack(cut, raw)) == 2


def _cut_at(monkeypatch, name: str):
    """Make the archive's write of a file called ``name`` fail, as a kill there would cut it."""
    from tvm_gnn import atomic
    from tvm_gnn.dataset import archive

    write = atomic.write_bytes

    def write_bytes(path, data):
        if path.name == name:
            raise KeyboardInterrupt
        write(path, data)

    monkeypatch.setattr(archive.atomic, "write_bytes", write_bytes)


def test_a_cut_unpack_is_refused_by_the_readers_and_done_again_whole(packed, tmp_path):
    from tvm_gnn.errors import DataError
    from tvm_gnn.lock import LOCK_FILE, UNFINISHED_FILE

    raw = tmp_path / "raw"
    with pytest.MonkeyPatch.context() as mp:
        _cut_at(mp, dbfile.RECORD_FILE)  # the workload file is in, the records not
        with pytest.raises(KeyboardInterrupt):
            data.unpack(packed, raw)
    (folder,) = raw.glob("*/unit")
    assert (folder / dbfile.WORKLOAD_FILE).exists() and not (folder / dbfile.RECORD_FILE).exists()
    with pytest.raises(DataError, match="interrupted `tvm-gnn unpack`; run `tvm-gnn unpack`"):
        data.samples(folder)
    assert len(data.unpack(packed, raw)) == 2  # not skipped for the file it had
    (orig,) = packed.glob(f"*/unit/{dbfile.RECORD_FILE}.gz")
    assert (folder / dbfile.RECORD_FILE).read_bytes() == gzip.decompress(orig.read_bytes())
    assert data.unpack(packed, raw) == []  # whole now: a raw database is never overwritten
    assert not (folder / UNFINISHED_FILE).exists() and not (folder / LOCK_FILE).exists()


def test_a_cut_pack_is_named_to_readers_and_finished_by_the_next(small_db, tmp_path, caplog):
    from tvm_gnn.errors import DataError

    out = tmp_path / "packed"
    with pytest.MonkeyPatch.context() as mp:
        _cut_at(mp, dbfile.RECORD_FILE + ".gz")
        with pytest.raises(KeyboardInterrupt):
            data.pack(small_db.parent.parent, out)
    (folder,) = out.glob("*/unit")
    with pytest.raises(DataError, match="interrupted `tvm-gnn pack`"):
        data.samples(folder)
    assert len(data.pack(small_db.parent.parent, out)) == 1  # the file the cut pack missed
    assert "finishing the pack that was cut there" in caplog.text
    assert len(data.samples(folder)[0]) == 6


def test_pack_keeps_every_task_the_packed_folder_records(small_db, tmp_path):
    import json
    import shutil

    raw = tmp_path / "raw"
    shutil.copytree(small_db.parent.parent, raw)
    out = tmp_path / "packed"
    data.pack(raw, out)
    (dest,) = out.glob("*/unit")
    more = [
        *json.loads((dest / "tasks.json").read_text()),
        {"name": "b", "shash": "7", "weight": 2},
    ]
    (dest / "tasks.json").write_text(json.dumps(more))  # as a run that extracted more wrote it
    data.pack(raw, out)
    assert json.loads((dest / "tasks.json").read_text()) == more


def test_a_folder_a_collector_writes_is_not_packed_under_it(small_db, tmp_path):
    from tvm_gnn.lock import FolderBusyError, one_writer

    with one_writer(small_db, "tvm-gnn collect unit"):
        with pytest.raises(FolderBusyError, match=r"being written by pid \d+ \(tvm-gnn collect"):
            data.pack(small_db.parent.parent, tmp_path / "packed")
    assert not list((tmp_path / "packed").rglob("*.gz"))


def test_unpack_refuses_its_own_source_and_a_raw_folder_behind_the_packed_copy(packed, tmp_path):
    with pytest.raises(ValueError, match="would write inside the packed dataset"):
        data.unpack(packed, packed)
    with pytest.raises(ValueError, match="would write inside the packed dataset"):
        data.unpack(packed, packed / "raw")
    raw = tmp_path / "raw"
    data.unpack(packed, raw)
    (rec,) = raw.glob(f"*/unit/{dbfile.RECORD_FILE}")
    rec.write_text(rec.read_text().splitlines(keepends=True)[0])  # a run that started over
    with pytest.raises(ValueError, match=r"unit hold fewer records than the packed copy"):
        data.unpack(packed, raw)  # not "unpacked 0" and exit 0
    assert len(rec.read_text().splitlines()) == 1  # and nothing was touched


def test_pack_leaves_a_cut_last_line_out(small_db, tmp_path, caplog):
    import shutil

    raw = tmp_path / "raw"
    shutil.copytree(small_db.parent.parent, raw)  # the session's folder stays whole
    (rec,) = raw.glob(f"*/unit/{dbfile.RECORD_FILE}")
    whole = rec.read_bytes()
    rec.write_bytes(whole + b'[0, [["cut')  # a killed collector's last line
    out = tmp_path / "out"
    data.pack(raw, out)
    (gz,) = out.glob(f"*/unit/{dbfile.RECORD_FILE}.gz")
    assert gzip.decompress(gz.read_bytes()) == whole
    assert "its cut last line is left out of the packed copy" in caplog.text
