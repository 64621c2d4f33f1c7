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
