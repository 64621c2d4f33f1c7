"""Database folders: reading a snapshot while collect appends."""

import pytest

from tvm_gnn import dataset as data


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
