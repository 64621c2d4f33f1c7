"""Database folders: the root's layout checked; a snapshot read while collect appends."""

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


def test_a_missing_or_misplaced_root_says_what_layout_was_expected(small_db, tmp_path):
    from tvm_gnn.dataset.layout import check_root
    from tvm_gnn.errors import DataError

    root = small_db.parent.parent
    assert check_root(root) == root
    for path, says in [
        (tmp_path / "nowhere", "does not exist"),
        (small_db / "tasks.json", "is not a folder"),
        (small_db.parent, f"is a hardware folder; pass the dataset root, {root}"),
        (small_db, f"is one network's folder; pass the dataset root, {root}"),
        (tmp_path, "no dataset under"),
    ]:
        with pytest.raises(DataError, match=says):
            check_root(path)
