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


def test_of_several_hardware_folders_this_machines_own_is_the_default(small_dataset, tmp_path):
    """Data from two machines: commands that name no hardware read the one they run on."""
    import shutil

    from tvm_gnn.dataset.layout import resolve_hardware, this_machine

    root = tmp_path / "data"
    shutil.copytree(small_dataset / "cpu" / "resnet18", root / "other-cpu" / "resnet18")
    shutil.copytree(small_dataset / "cpu" / "resnet18", root / "lab-box-1" / "resnet18")
    with pytest.raises(ValueError, match="choose one with --hardware"):
        resolve_hardware(root)
    shutil.copytree(small_dataset / "cpu" / "resnet18", root / this_machine() / "resnet18")
    assert resolve_hardware(root) == this_machine()
    assert resolve_hardware(root, recorded="other-cpu") == "other-cpu"  # a checkpoint's first
    assert resolve_hardware(root, "lab-box-1") == "lab-box-1"
