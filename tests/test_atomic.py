"""Writes land whole: an error inside the block leaves the old file and no temporary file."""

import os

import pytest

from tvm_gnn import atomic


def test_write_replaces_whole_and_creates_folders(tmp_path):
    path = tmp_path / "a" / "b" / "out.json"
    atomic.write_json(path, {"x": 1})
    atomic.write_json(path, {"x": 2})
    assert path.read_text() == '{\n "x": 2\n}\n'
    assert sorted(p.name for p in path.parent.iterdir()) == ["out.json"]
    umask = os.umask(0)
    os.umask(umask)
    assert path.stat().st_mode & 0o777 == 0o666 & ~umask


def test_an_interrupted_write_keeps_the_old_file(tmp_path):
    path = tmp_path / "out.txt"
    atomic.write_text(path, "old")
    with pytest.raises(KeyboardInterrupt):
        with atomic.atomic_open(path) as f:
            f.write("half of the new")
            raise KeyboardInterrupt
    assert path.read_text() == "old" and [p.name for p in tmp_path.iterdir()] == ["out.txt"]


def test_only_whole_file_modes():
    with pytest.raises(ValueError, match="whole files"):
        with atomic.atomic_open("x", "a"):
            pass


def test_a_link_s_target_is_replaced_and_the_link_kept(tmp_path):
    target, link = tmp_path / "real.json", tmp_path / "link.json"
    target.write_text("old")
    link.symlink_to(target)
    atomic.write_text(link, "new")
    assert link.is_symlink() and target.read_text() == "new"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link.json", "real.json"]


def test_a_pipe_is_written_through_not_replaced(tmp_path):
    import stat
    import threading

    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)
    got = []
    reader = threading.Thread(target=lambda: got.append(pipe.read_text()))
    reader.start()
    atomic.write_text(pipe, "through")
    reader.join(timeout=10)
    assert got == ["through"] and stat.S_ISFIFO(pipe.stat().st_mode)


@pytest.mark.skipif(os.geteuid() != 0, reason="making a device node needs root")
def test_a_device_is_written_through_not_replaced(tmp_path):
    """As ``--out /dev/null`` run as root: the node stays a device (a copy of /dev/null here)."""
    import stat

    null = tmp_path / "null"
    os.mknod(null, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    atomic.write_bytes(null, b"discarded")
    assert stat.S_ISCHR(null.stat().st_mode) and null.read_bytes() == b""
    assert [p.name for p in tmp_path.iterdir()] == ["null"]


def test_a_folder_is_refused_by_name(tmp_path):
    with pytest.raises(IsADirectoryError, match="is a folder"):
        atomic.write_text(tmp_path, "x")


def test_json_holds_null_where_a_number_is_not_finite(tmp_path):
    import json

    import numpy as np

    path = tmp_path / "r.json"
    atomic.write_json(path, {"a": float("nan"), "b": [np.float64("inf"), 1.5], "c": (2,)})
    assert "NaN" not in path.read_text() and "Infinity" not in path.read_text()
    assert json.loads(path.read_text()) == {"a": None, "b": [None, 1.5], "c": [2]}
