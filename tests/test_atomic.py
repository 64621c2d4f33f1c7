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
